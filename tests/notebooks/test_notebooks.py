"""Every notebook runs top to bottom without error against the devnet: the examples under
notebooks/ and the analyst workflow under tests/notebooks/ (whose cells assert what they compute)."""

from __future__ import annotations

from pathlib import Path

import nbformat
import pytest
from nbclient import NotebookClient

ROOT = Path(__file__).parents[2]
NOTEBOOKS = sorted((ROOT / "notebooks").glob("*.ipynb")) + sorted(Path(__file__).parent.glob("*.ipynb"))


@pytest.mark.slow
@pytest.mark.parametrize("path", NOTEBOOKS, ids=[p.name for p in NOTEBOOKS])
def test_notebook_runs(path: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HMYFRAME_CACHE", str(tmp_path / "cache"))
    monkeypatch.setenv("MPLBACKEND", "Agg")
    monkeypatch.delenv("HMYFRAME_RPC", raising=False)
    notebook = nbformat.read(path, as_version=4)
    NotebookClient(
        notebook, timeout=300, kernel_name="python3", resources={"metadata": {"path": str(tmp_path)}}
    ).execute()
    outputs = [o for cell in notebook.cells if cell.cell_type == "code" for o in cell.get("outputs", [])]
    assert not [o for o in outputs if o.get("output_type") == "error"]
    # the notebook printed the exact total it computed
    assert any("atto" in o.get("text", "") for o in outputs if o.get("output_type") == "stream")
    if path.name == "07_live.ipynb":  # the live view drew frames (its last one is a cell's result)
        assert any("image/png" in o.get("data", {}) for o in outputs)
        assert any("LiveView stopped" in o.get("text", "") for o in outputs)


def test_there_is_a_notebook() -> None:
    assert list((ROOT / "notebooks").glob("*.ipynb")), "notebooks/ must hold at least one example"
    assert any(p.parent == Path(__file__).parent for p in NOTEBOOKS), "the analyst workflow notebook"


def test_the_analyst_notebook_needs_no_astype() -> None:
    notebook = nbformat.read(Path(__file__).parent / "analyst_workflow.ipynb", as_version=4)
    source = "\n".join(c.source for c in notebook.cells if c.cell_type == "code")
    assert "astype" not in source
    for step in ('shard="all"', "nlargest", "describe()", "plot.hist", "Fraction", "2026-01-01T00:50"):
        assert step in source
