"""Execute notebooks/noise_floor_audit.ipynb: its asserts check the paper's headline numbers."""

from pathlib import Path

import nbformat
from nbclient import NotebookClient

NOTEBOOK = Path(__file__).resolve().parents[1] / "notebooks" / "noise_floor_audit.ipynb"


def test_noise_floor_notebook_runs_and_shows_the_plot(tmp_path):
    nb = nbformat.read(NOTEBOOK, as_version=4)
    NotebookClient(nb, timeout=180, kernel_name="python3",
                   resources={"metadata": {"path": str(tmp_path)}}).execute()
    outputs = [o for c in nb.cells if c.cell_type == "code" for o in c.get("outputs", [])]
    assert not [o for o in outputs if o.get("output_type") == "error"]
    text = "".join(o.get("text", "") for o in outputs)
    assert "seed 1  W/L/T 27/9/64  gap +18.0 pp  p_corr 0.012" in text
    assert "{'below': 7, 'inside': 1, 'above': 2}" in text
    assert any("image/png" in o.get("data", {}) for o in outputs)
