"""ethereum-etl as an independent oracle: run it in its own environment against a devnet's
``eth_`` endpoint, read what it wrote, and compare it with hmyframe's tables column by column.

The environment is the one ``bench/compare.py`` installs (ethereum-etl 2.4.2 with the pins it
needs on Python 3.11); create it once with::

    .venv/bin/python bench/compare.py --prepare-only --only-peers ethereum-etl

(about 1.5 minutes; ``$HMYFRAME_PEERS_DIR`` points at another peers folder). Without it the
oracle tests are skipped, saying this command; ``.ci/run`` creates it and sets
``HMYFRAME_REQUIRE_PEERS=1``, under which a missing environment fails the run instead.

A comparison (``test_oracle_*.py``) is a few lines: run the export (:func:`export_tokens`,
:func:`export_receipts_and_logs`, :func:`extract_token_transfers`), key both sides' rows
(:func:`keyed`), say how each ethereum-etl column reads as a value (:data:`AS_INT`,
:data:`AS_TEXT`, :data:`AS_HEX`) and call :func:`assert_same` with the differences that are
by design.
"""

from __future__ import annotations

import csv
import os
import subprocess
from collections.abc import Callable, Iterable, Mapping, Sequence
from functools import cache
from pathlib import Path
from typing import Any

import pandas as pd
import pytest

ROOT = Path(__file__).resolve().parents[2]
PEERS_DIR = Path(os.environ.get("HMYFRAME_PEERS_DIR") or ROOT / "build" / "peers")
ETL_PYTHON = PEERS_DIR / "ethereum-etl" / "bin" / "python"
SETUP = ".venv/bin/python bench/compare.py --prepare-only --only-peers ethereum-etl"
#: The devnet the oracle tests share: busy with tokens (every variant minted and moved).
ORACLE_NET = {"blocks": 200, "seed": 11, "token_density": 3}


def peers_required(missing: str | None) -> None:
    """Under ``HMYFRAME_REQUIRE_PEERS=1`` (CI) a peer's missing environment is an error, not a skip."""
    if missing is not None and os.environ.get("HMYFRAME_REQUIRE_PEERS") == "1":
        raise RuntimeError(f"HMYFRAME_REQUIRE_PEERS=1 but {missing}")


@cache
def etl_missing() -> str | None:
    """Why ethereum-etl cannot run here (``None`` when it can)."""
    if not ETL_PYTHON.exists():
        return f"no ethereum-etl environment at {ETL_PYTHON.parent.parent}; create it with: {SETUP}"
    probe = subprocess.run(
        [str(ETL_PYTHON), "-c", "import ethereumetl.cli"], capture_output=True, text=True, timeout=120
    )
    if probe.returncode:
        tail = (probe.stderr.strip().splitlines() or ["?"])[-1]
        return f"ethereum-etl does not import ({tail}); recreate it with: {SETUP}"
    return None


def requires_etl() -> pytest.MarkDecorator:
    """Skip unless the peers' ethereum-etl environment exists (the reason says how to make it)."""
    missing = etl_missing()
    peers_required(missing)
    return pytest.mark.skipif(missing is not None, reason=missing or "")


def ethereum_etl(command: str, *args: str, timeout: float = 300) -> None:
    """Run ``ethereumetl <command> <args>`` in the peers' environment; fail with its error."""
    done = subprocess.run(
        [str(ETL_PYTHON), "-c", "from ethereumetl.cli import cli; cli()", command, *args],
        capture_output=True,
        text=True,
        timeout=timeout,
    )
    if done.returncode:
        tail = "\n".join(done.stderr.strip().splitlines()[-15:])
        raise AssertionError(f"ethereumetl {command} failed ({done.returncode}):\n{tail}")


def read_csv(path: Path) -> list[dict[str, str]]:
    """The rows ethereum-etl wrote (every value a string; ``""`` for its empty values)."""
    with path.open(newline="", encoding="utf-8") as f:
        return list(csv.DictReader(f))


def _lines(path: Path, values: Iterable[str]) -> Path:
    path.write_text("".join(f"{v}\n" for v in values), encoding="utf-8")
    return path


# --------------------------------------------------------------------------- the exports


def export_tokens(url: str, addresses: Sequence[str], folder: Path) -> list[dict[str, str]]:
    """``export_tokens`` of 0x ``addresses`` (at ``latest``: it takes no block) from ``url``."""
    out = folder / "tokens.csv"
    ethereum_etl(
        "export_tokens",
        "-t",
        str(_lines(folder / "token_addresses.txt", addresses)),
        "-o",
        str(out),
        "-p",
        url,
    )
    return read_csv(out)


def export_receipts_and_logs(
    url: str, eth_hashes: Sequence[str], folder: Path
) -> tuple[list[dict[str, str]], list[dict[str, str]]]:
    """``export_receipts_and_logs`` of the transactions with these Ethereum hashes: (receipts, logs)."""
    receipts, logs = folder / "receipts.csv", folder / "logs.csv"
    hashes = _lines(folder / "transaction_hashes.txt", eth_hashes)
    ethereum_etl(
        "export_receipts_and_logs",
        "-t",
        str(hashes),
        "-p",
        url,
        "--receipts-output",
        str(receipts),
        "--logs-output",
        str(logs),
    )
    return read_csv(receipts), read_csv(logs)


def extract_token_transfers(folder: Path) -> list[dict[str, str]]:
    """``extract_token_transfers`` from the ``logs.csv`` :func:`export_receipts_and_logs` wrote
    (values as strings: exact)."""
    out = folder / "token_transfers.csv"
    ethereum_etl(
        "extract_token_transfers", "-l", str(folder / "logs.csv"), "-o", str(out), "--values-as-strings"
    )
    return read_csv(out)


# --------------------------------------------------------------------------- comparing

#: How an ethereum-etl CSV value reads: ``""`` is its null.
AS_INT: Callable[[str], Any] = lambda v: None if v == "" else int(v)  # noqa: E731
AS_TEXT: Callable[[str], Any] = lambda v: None if v == "" else v  # noqa: E731
AS_HEX: Callable[[str], Any] = lambda v: None if v == "" else v.lower()  # noqa: E731


def keyed(rows: Iterable[Mapping[str, Any]], *key: str) -> dict[tuple[Any, ...], Mapping[str, Any]]:
    """Rows by ``key`` columns; a key seen twice fails (neither side may repeat a row)."""
    out: dict[tuple[Any, ...], Mapping[str, Any]] = {}
    for row in rows:
        k = tuple(row[c] for c in key)
        assert k not in out, f"row {k} appears twice"
        out[k] = row
    return out


def plain(value: Any) -> Any:
    """A pandas / Arrow cell as plain Python (missing -> None)."""
    return None if value is None or value is pd.NA or value != value else value


def assert_same(
    ours: Mapping[tuple[Any, ...], Mapping[str, Any]],
    theirs: Mapping[tuple[Any, ...], Mapping[str, str]],
    columns: Mapping[str, tuple[str, Callable[[str], Any]]],
    by_design: Mapping[tuple[tuple[Any, ...], str], str] | None = None,
) -> int:
    """Assert the same keys and, per ``columns`` (``our column -> (their column, reader)``),
    the same value wherever both give one; return how many values were compared.

    A null on one side and a value on the other is a difference too, unless listed in
    ``by_design`` (``(key, our column) -> why``), where the values must differ (a listed
    difference that disappeared fails, so the list stays true).
    """
    assert sorted(ours) == sorted(theirs), sorted(set(ours) ^ set(theirs))[:5]
    by_design = by_design or {}
    compared = 0
    problems = []
    for key, row in ours.items():
        for column, (their_column, read) in columns.items():
            mine, other = plain(row[column]), read(theirs[key][their_column])
            if (key, column) in by_design:
                if mine == other:
                    problems.append(f"{key} {column}: listed as differing by design but both are {mine!r}")
                continue
            compared += 1
            if mine != other:
                problems.append(f"{key} {column}: hmyframe {mine!r}, ethereum-etl {other!r}")
    assert not problems, "\n".join(problems)
    return compared
