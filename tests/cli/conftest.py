"""Shared by the CLI tests: a private default cache, no ambient endpoint, and ``run`` (in cli_helpers)."""

from __future__ import annotations

from pathlib import Path

import pytest


@pytest.fixture(autouse=True)
def private_cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """Any default cache root goes to the test's folder, and no ambient endpoint leaks in."""
    root = tmp_path / "default-cache"
    monkeypatch.setenv("HMYFRAME_CACHE", str(root))
    monkeypatch.delenv("HMYFRAME_RPC", raising=False)
    monkeypatch.delenv("HMYFRAME_TRACE_RPC", raising=False)
    return root
