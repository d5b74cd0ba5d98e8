"""Run the CLI in process and capture what it printed."""

from __future__ import annotations

import pytest

from hmyframe.cli import main


def run(argv: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    """``hmyframe ARGV...`` in this process: (exit code, stdout, stderr)."""
    capsys.readouterr()
    code = main(argv)
    out, err = capsys.readouterr()
    return code, out, err
