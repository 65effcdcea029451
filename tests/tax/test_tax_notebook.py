"""Execute notebooks/tax_report.ipynb: a real `tax run` on the scripted endpoint, then the report."""

from pathlib import Path

import nbformat
from nbclient import NotebookClient

REPO = Path(__file__).resolve().parents[2]
NOTEBOOK = REPO / "notebooks" / "tax_report.ipynb"


def test_tax_notebook_runs_end_to_end(tmp_path):
    nb = nbformat.read(NOTEBOOK, as_version=4)
    # the kernel starts in the repository root so that it imports this tree's noisefloor
    NotebookClient(nb, timeout=240, kernel_name="python3",
                   resources={"metadata": {"path": str(REPO)}}).execute()
    outputs = [o for c in nb.cells if c.cell_type == "code" for o in c.get("outputs", [])]
    errors = [o for o in outputs if o.get("output_type") == "error"]
    assert not errors, errors[0].get("evalue") if errors else ""
    text = "".join(o.get("text", "") for o in outputs)
    assert "tax by model and family" in text
    assert "intervention all_four: recovered" in text        # the recovered share
    assert "cascade, failed pair rollouts (all families): L1" in text
    assert sum("image/png" in o.get("data", {}) for o in outputs) == 2
