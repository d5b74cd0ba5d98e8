"""pyhmy as an independent oracle: run its functions in its own environment against a devnet and
read what they return (exact: JSON with Python ints, written by the pyhmy process).

The environment is the one ``bench/compare.py`` installs (pyhmy from PyPI); create it once with::

    .venv/bin/python bench/compare.py --prepare-only --only-peers pyhmy

(``$HMYFRAME_PEERS_DIR`` points at another peers folder). Without it the pyhmy oracle tests are
skipped, saying this command (``.ci/run`` creates it and sets ``HMYFRAME_REQUIRE_PEERS=1``, so
there a missing environment fails the run instead).

pyhmy never batches and decodes with ``json`` (exact integers), one call per block range, page
and address: what it returns is the node's JSON as plain Python, a second decode of the same
answers that shares no code with hmyframe.
"""

from __future__ import annotations

import json
import subprocess
from functools import cache
from typing import Any

import pytest
from oracle_helpers import PEERS_DIR, peers_required

PYHMY_PYTHON = PEERS_DIR / "pyhmy" / "bin" / "python"
SETUP = ".venv/bin/python bench/compare.py --prepare-only --only-peers pyhmy"


@cache
def pyhmy_missing() -> str | None:
    """Why pyhmy cannot run here (``None`` when it can)."""
    if not PYHMY_PYTHON.exists():
        return f"no pyhmy environment at {PYHMY_PYTHON.parent.parent}; create it with: {SETUP}"
    probe = subprocess.run(
        [str(PYHMY_PYTHON), "-c", "import pyhmy.staking, pyhmy.blockchain, pyhmy.account, pyhmy.util"],
        capture_output=True,
        text=True,
        timeout=120,
    )
    if probe.returncode:
        tail = (probe.stderr.strip().splitlines() or ["?"])[-1]
        return f"pyhmy does not import ({tail}); recreate it with: {SETUP}"
    return None


def requires_pyhmy() -> pytest.MarkDecorator:
    """Skip unless the peers' pyhmy environment exists (fail instead under ``HMYFRAME_REQUIRE_PEERS=1``)."""
    missing = pyhmy_missing()
    peers_required(missing)
    return pytest.mark.skipif(missing is not None, reason=missing or "")


def run_pyhmy(script: str, **inputs: Any) -> Any:
    """Run ``script`` in pyhmy's environment; it reads ``inputs`` (JSON on stdin, bound as
    ``INPUT``) and binds its answer to ``OUTPUT``, which comes back decoded with exact ints."""
    program = (
        "import json, sys\n"
        "INPUT = json.load(sys.stdin)\n"
        f"{script}\n"
        "json.dump(OUTPUT, sys.stdout, default=str)\n"
    )
    done = subprocess.run(
        [str(PYHMY_PYTHON), "-c", program],
        input=json.dumps(inputs),
        capture_output=True,
        text=True,
        timeout=600,
    )
    if done.returncode:
        tail = "\n".join(done.stderr.strip().splitlines()[-15:])
        raise AssertionError(f"pyhmy script failed ({done.returncode}):\n{tail}")
    return json.loads(done.stdout)
