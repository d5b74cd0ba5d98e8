"""The corpus of real node answers: what real Harmony nodes said, as the oracle of the tests.

Two places hold it:

* ``tests/real/<collection>/``: one folder per collection of answers recorded from one source
  (``mainnet-2023``: one mainnet block through every namespace, from a provider's API
  reference). ``collection.json`` in the folder gives what its answers share: where they come
  from, the network, the node era (``"2023"``), the date and the node version where known.
  Every other ``*.json`` file is one answer: ``{"method", "params", "result"}`` (or ``"error"``
  instead of ``"result"``), with ``"source"`` (where it was published) and optionally
  ``"date"``, ``"version"``, ``"network"``, ``"era"``, ``"notes"`` overriding the collection's.
* ``tests/samples/``: the 206 vendored samples of ``../shared/reference/samples`` (see
  ``tests/conftest.py``); ``tests/real/samples.json`` lists which of them are answers of a
  node (a harmony-test localnet reply, a mainnet reply printed by the CLI) and their era. Hand-
  written documentation examples and anything with placeholders are not in the corpus.

Import it as ``import real_corpus`` (``tests/`` is on ``sys.path`` for every test).
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
REAL_DIR = HERE / "real"
SAMPLES_DIR = HERE / "samples"
#: The namespaces of method names (the part before ``_``).
NAMESPACES = ("hmy", "hmyv2", "eth", "net", "web3", "trace", "debug")


@dataclass(frozen=True)
class Answer:
    """One real answer of a node to one call.

    Attributes
    ----------
    id
        ``<collection>/<file>`` (``samples/<file>`` for a vendored sample).
    method, params
        The call (``params`` is ``None`` where the source does not show them).
    result, error
        What the node answered: ``result`` (any JSON, ``None`` for a JSON null) or an
        ``error`` object; ``has_result`` tells a null result from an error.
    source
        Where the answer was published (repository and path, or URL).
    era
        The node era it shows (``"2020"``, ``"2023"``...), network and date/version where known.
    """

    id: str
    method: str
    params: Any
    result: Any
    error: dict[str, Any] | None
    has_result: bool
    source: str
    era: str
    network: str
    date: str | None = None
    version: str | None = None
    notes: tuple[str, ...] = field(default=())

    @property
    def namespace(self) -> str:
        """``hmy``, ``hmyv2``, ``eth``, ``trace``... (the method name's prefix)."""
        return self.method.split("_", 1)[0]

    @property
    def name(self) -> str:
        """The method name without its namespace (``getBlockReceipts``)."""
        return self.method.split("_", 1)[1]


def _collection(folder: Path) -> Iterator[Answer]:
    meta = json.loads((folder / "collection.json").read_text())
    for path in sorted(folder.glob("*.json")):
        if path.name == "collection.json":
            continue
        data = json.loads(path.read_text())
        has_result = "result" in data
        yield Answer(
            id=f"{folder.name}/{path.name}",
            method=data["method"],
            params=data.get("params"),
            result=data.get("result"),
            error=data.get("error"),
            has_result=has_result,
            source=data.get("source", meta.get("source", "")),
            era=str(data.get("era", meta["era"])),
            network=data.get("network", meta["network"]),
            date=data.get("date", meta.get("date")),
            version=data.get("version", meta.get("version")),
            notes=tuple(data.get("notes") or ()),
        )


def _samples() -> Iterator[Answer]:
    listed_path = REAL_DIR / "samples.json"
    if not listed_path.exists():
        return
    listed: dict[str, dict[str, Any]] = json.loads(listed_path.read_text())["answers"]
    for file, meta in sorted(listed.items()):
        data = json.loads((SAMPLES_DIR / file).read_text())
        part = data.get("response_part")
        response = data.get("response")
        error: dict[str, Any] | None = None
        result: Any = None
        if part == "full JSON-RPC envelope":
            has_result = "result" in response
            result = response.get("result")
            error = response.get("error")
        elif part == "result":
            has_result, result = True, response
        else:
            has_result, error = False, response
        request = data.get("request") or {}
        yield Answer(
            id=f"samples/{file}",
            method=meta["method"],
            params=request.get("params") if isinstance(request, dict) else None,
            result=result,
            error=error,
            has_result=has_result,
            source=data.get("source", ""),
            era=str(meta["era"]),
            network=meta["network"],
            date=meta.get("date"),
            version=meta.get("version"),
            notes=tuple(meta.get("notes") or ()),
        )


@cache
def load() -> tuple[Answer, ...]:
    """Every answer of the corpus, collections first (in folder order), then the listed samples."""
    out: list[Answer] = []
    for folder in sorted(p for p in REAL_DIR.iterdir() if (p / "collection.json").is_file()):
        out.extend(_collection(folder))
    out.extend(_samples())
    return tuple(out)


def by_method(method: str) -> list[Answer]:
    """The answers to exactly this method (``"hmyv2_getBlockReceipts"``)."""
    return [a for a in load() if a.method == method]


def by_name(name: str) -> list[Answer]:
    """The answers to a method in any namespace (``"getBlockReceipts"``)."""
    return [a for a in load() if a.name == name]
