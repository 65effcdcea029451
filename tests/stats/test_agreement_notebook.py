"""notebooks/agreement.ipynb runs top to bottom and reproduces the numbers it reports."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

nbformat = pytest.importorskip("nbformat")
nbclient = pytest.importorskip("nbclient")

NOTEBOOK = Path(__file__).resolve().parents[2] / "notebooks" / "agreement.ipynb"


def _text(cell) -> str:
    out = []
    for o in cell.get("outputs", []):
        if "text" in o:
            out.append(o["text"])
        elif "data" in o and "text/plain" in o["data"]:
            out.append(o["data"]["text/plain"])
    return "\n".join(out)


def test_agreement_notebook_executes(monkeypatch):
    # the kernel imports this checkout's noisefloor, not whichever copy is installed
    repo = str(NOTEBOOK.parents[1])
    path = os.pathsep.join(filter(None, [repo, os.environ.get("PYTHONPATH")]))
    monkeypatch.setenv("PYTHONPATH", path)
    nb = nbformat.read(NOTEBOOK, as_version=4)
    for cell in nb.cells:
        if cell.cell_type == "code":
            cell.outputs = []
    client = nbclient.NotebookClient(
        nb, timeout=180, kernel_name="python3",
        resources={"metadata": {"path": str(NOTEBOOK.parent)}},
    )
    client.execute()
    text = "\n".join(_text(c) for c in nb.cells if c.cell_type == "code")
    assert "Fleiss' kappa = 0.430" in text  # Fleiss (1971)
    assert "0.1459 (irr: 0.1459)" in text  # R irr::kappa2(anxiety[, 2:3], "equal")
    plot_cell = next(c for c in nb.cells if "agreement_forest_plot(table)" in c.get("source", ""))
    assert any("image/png" in o.get("data", {}) for o in plot_cell.outputs)
