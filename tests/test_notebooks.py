"""The notebooks are committed without outputs and run top to bottom (nbclient), each within a
minute."""

import time
from pathlib import Path

import pytest

NOTEBOOKS = sorted((Path(__file__).resolve().parent.parent / "notebooks").glob("*.ipynb"))
#: Longest a notebook may take (each is meant to run in under a minute).
TIME_LIMIT = 60


@pytest.fixture(autouse=True)
def _jupyter_paths(monkeypatch):
    # jupyter_core ≥ 5 warns (DeprecationWarning) unless told to use the platformdirs locations.
    monkeypatch.setenv("JUPYTER_PLATFORM_DIRS", "1")


def test_the_notebooks_exist():
    assert [path.name for path in NOTEBOOKS] == ["chen_machanavajjhala.ipynb", "lyu_svt.ipynb",
                                                 "your_own_svt.ipynb"]


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda path: path.stem)
def test_notebook_is_stored_without_outputs(path):
    import nbformat

    notebook = nbformat.read(path, as_version=4)
    nbformat.validate(notebook)
    for cell in notebook.cells:
        if cell.cell_type == "code":
            assert cell.outputs == [] and cell.execution_count is None


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda path: path.stem)
def test_notebook_runs(path):
    import nbformat
    from nbclient import NotebookClient

    notebook = nbformat.read(path, as_version=4)
    start = time.monotonic()
    NotebookClient(notebook, timeout=TIME_LIMIT, kernel_name="python3",
                   resources={"metadata": {"path": str(path.parent)}}).execute()
    assert time.monotonic() - start < TIME_LIMIT
    outputs = [output for cell in notebook.cells if cell.cell_type == "code"
               for output in cell.outputs]
    assert not [output for output in outputs if output.output_type == "error"]
    text = "".join(output.get("text", "") for output in outputs)
    assert "ln ratio" in text
