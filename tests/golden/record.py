"""Record the golden fixtures: run this once when the expected output legitimately changes.

    .venv/bin/python tests/golden/record.py

It starts a devnet (``_golden.DEVNET``), puts a recording proxy in front of it (one aiohttp
server on 127.0.0.1 that forwards each POST to the devnet's node or trace port and files every
call's answer under its ``(method, params)``), runs the golden export through the proxy, then
writes

* ``answers.json.gz``: the node's answers (exact JSON text per call), what
  ``test_golden.py`` replays, so the test never depends on later devnet changes;
* ``digests.json``: the digest of every Parquet file the export wrote (``_golden.digest``).

Then it replays the answers into a second export and checks that it writes the same files, so a
fixture is never recorded from a non-deterministic run. Review the diff of ``digests.json``
before committing: every changed digest is a file whose content changed.
"""

from __future__ import annotations

import asyncio
import json
import sys
import tempfile
from pathlib import Path

import aiohttp
from _golden import (
    ANSWERS,
    DEVNET,
    DIGESTS,
    Replay,
    digests,
    export_golden,
    load_answers,
    record_answers,
    save_answers,
    serve,
)

from hmyframe.devnet import Devnet


async def _record(node: str, trace: str, out: Path) -> dict[str, list[str]]:
    answers: dict[str, list[str]] = {}
    async with aiohttp.ClientSession(auto_decompress=True) as session:

        async def forward(body: bytes) -> bytes:
            upstream = trace if b'"trace_' in body else node
            async with session.post(
                upstream, data=body, headers={"Content-Type": "application/json"}
            ) as resp:
                answer = await resp.read()
            record_answers(body, answer, answers)
            return answer

        async with serve(forward) as url:
            await export_golden(url, url, out)
    return answers


async def _replay(answers: dict[str, list[str]], out: Path) -> list[str]:
    replay = Replay(answers)

    async def handle(body: bytes) -> bytes:
        return replay.answer(body)

    async with serve(handle) as url:
        await export_golden(url, url, out)
    return replay.misses


def main() -> int:
    with tempfile.TemporaryDirectory() as tmp, Devnet(**DEVNET) as net:  # type: ignore[arg-type]
        first, second = Path(tmp, "recorded"), Path(tmp, "replayed")
        answers = asyncio.run(_record(net.urls[0], net.trace_urls[0], first))
        recorded = digests(first)
        save_answers(answers)
        misses = asyncio.run(_replay(load_answers(), second))
        if misses:
            print(f"replay asked for {len(misses)} unrecorded calls, e.g. {misses[0]}", file=sys.stderr)
            return 1
        replayed = digests(second)
        if replayed != recorded:
            differ = sorted(set(replayed) ^ set(recorded)) or [
                p for p in recorded if replayed[p] != recorded[p]
            ]
            print(f"the replayed export wrote different files ({differ}): not recording", file=sys.stderr)
            return 1
    DIGESTS.write_text(json.dumps(recorded, indent=1, sort_keys=True) + "\n")
    size = ANSWERS.stat().st_size + DIGESTS.stat().st_size
    print(f"recorded {len(answers)} answers and {len(recorded)} file digests ({size:,} bytes of fixtures)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
