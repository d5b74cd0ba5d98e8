"""Shared fixtures: a running devnet, a devnet factory, its statistics, and the recorded samples.

* ``devnet`` (session): ``Devnet(blocks=400, seed=7, validator_rate_limit=False)`` served from
  a background thread for the whole session. Treat it as read-only: do not ``mine()`` it or
  leave fault rules on it (use ``make_devnet`` for that).
* ``devnet_truth``: a separate :class:`~hmyframe.devnet.Chain` with the session devnet's
  parameters: the ground truth to compare fetched data with. Prefer it to ``devnet.chain``,
  which the server thread is using at the same time.
* ``devnet_stats``: the session devnet's statistics, reset for the test that asks for them.
* ``make_devnet``: ``make_devnet(**kwargs) -> Devnet`` starts extra devnets (any ``Devnet``
  arguments); all are stopped at teardown.
* ``samples``: the recorded node samples of ``tests/samples`` (see :class:`Samples`).
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from hmyframe.devnet import Chain, Devnet, DevnetStats

SAMPLES_DIR = Path(__file__).parent / "samples"


#: Parameters of the session devnet (and of ``devnet_truth``).
SESSION_DEVNET = {"blocks": 400, "seed": 7}


@pytest.fixture(scope="session")
def devnet() -> Iterator[Devnet]:
    """The session-wide devnet (2 shards, 400 blocks, seed 7, validator limiter off)."""
    with Devnet(**SESSION_DEVNET, validator_rate_limit=False) as net:
        yield net


@pytest.fixture(scope="session")
def devnet_truth() -> Chain:
    """A chain identical to the session devnet's, for ground-truth comparisons (same seed => same objects)."""
    return Chain(**SESSION_DEVNET)


@pytest.fixture
def devnet_stats(devnet: Devnet) -> DevnetStats:
    """The session devnet's statistics, zeroed at the start of the test."""
    devnet.stats.reset()
    return devnet.stats


@pytest.fixture
def make_devnet() -> Iterator[Callable[..., Devnet]]:
    """Factory starting extra devnets (sync mode); every one is stopped at teardown."""
    started: list[Devnet] = []

    def make(**kwargs: Any) -> Devnet:
        net = Devnet(**kwargs)
        net.__enter__()
        started.append(net)
        return net

    yield make
    for net in reversed(started):
        net.close()


@dataclass(frozen=True)
class Sample:
    """One recorded request/response sample (a file of ``tests/samples``)."""

    file: str
    method: str
    source: str
    response_part: str
    parsed: bool
    notes: tuple[str, ...]
    data: dict[str, Any]

    @property
    def request(self) -> Any:
        """The recorded request (``None`` for CLI samples)."""
        return self.data.get("request")

    @property
    def response(self) -> Any:
        """The recorded response (envelope, result or error object, per ``response_part``)."""
        return self.data.get("response")

    @property
    def result(self) -> Any:
        """The ``result`` part whatever ``response_part`` is (``None`` for error samples)."""
        if self.response_part == "full JSON-RPC envelope":
            response = self.response
            return response.get("result") if isinstance(response, dict) else None
        if self.response_part == "result":
            return self.response
        return None

    @property
    def from_docs(self) -> bool:
        """True for a docs-home sample (early-2020 format unless noted)."""
        return self.source.startswith("harmony-one/docs-home")

    @property
    def from_harmony_test(self) -> bool:
        """True for a harmony-test localnet reference reply."""
        return self.source.startswith("harmony-one/harmony-test")


class Samples(list[Sample]):
    """All samples listed in ``tests/samples/_index.json``, with filters."""

    def by_method(self, method: str) -> list[Sample]:
        """Samples of exactly this method name (``"hmyv2_getBlocks"``)."""
        return [s for s in self if s.method == method]

    def by_suffix(self, name: str) -> list[Sample]:
        """Samples of both generations of a method (``"getBlocks"`` -> hmy_ and hmyv2_)."""
        return [s for s in self if s.method in (f"hmy_{name}", f"hmyv2_{name}")]

    @property
    def methods(self) -> list[str]:
        """Distinct method names, sorted."""
        return sorted({s.method for s in self})


def load_samples() -> Samples:
    """Read the index and every sample file (also usable at collection time)."""
    index = json.loads((SAMPLES_DIR / "_index.json").read_text())
    out = Samples()
    for entry in index:
        data = json.loads((SAMPLES_DIR / entry["file"]).read_text())
        out.append(
            Sample(
                file=entry["file"],
                method=entry["method"],
                source=entry["source"],
                response_part=entry["response_part"],
                parsed=bool(entry["parsed"]),
                notes=tuple(entry.get("notes") or ()),
                data=data,
            )
        )
    return out


@pytest.fixture(scope="session")
def samples() -> Samples:
    """Every recorded sample (parsed), with ``by_method``/``by_suffix`` filters."""
    return load_samples()
