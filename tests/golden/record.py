"""Record the golden fixtures: run this once when the expected output legitimately changes.

    .venv/bin/python tests/golden/record.py           # everything afresh
    .venv/bin/python tests/golden/record.py --keep    # keep every recorded answer, add new calls' answers

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

``--keep`` is for when the export starts asking something new (a new dataset, another call)
while the devnet has changed since the recording: the answers already recorded are kept as they
are and only calls without one are recorded, so the files of the datasets that were pinned keep
their digests unless hmyframe's output for them changed. The new answers come from today's
devnet; check they fit the old ones (a receipt for a transaction the recorded blocks hold).
"""

from __future__ import annotations

import argparse
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


async def _record(node: str, trace: str, out: Path, kept: dict[str, list[str]]) -> dict[str, list[str]]:
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
    return {**answers, **kept}


async def _replay(answers: dict[str, list[str]], out: Path) -> list[str]:
    replay = Replay(answers)

    async def handle(body: bytes) -> bytes:
        return replay.answer(body)

    async with serve(handle) as url:
        await export_golden(url, url, out)
    return replay.misses


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--keep", action="store_true", help="keep the recorded answers, add only new calls' answers"
    )
    args = parser.parse_args()
    kept = load_answers() if args.keep else {}
    with tempfile.TemporaryDirectory() as tmp, Devnet(**DEVNET) as net:  # type: ignore[arg-type]
        first, second, third = Path(tmp, "recorded"), Path(tmp, "replayed"), Path(tmp, "again")
        answers = asyncio.run(_record(net.urls[0], net.trace_urls[0], first, kept))
        save_answers(answers)
        # the digests are those of the replayed answers (with --keep, not all the devnet's today)
        misses = asyncio.run(_replay(load_answers(), second))
        misses += asyncio.run(_replay(load_answers(), third))
        if misses:
            print(f"replay asked for {len(misses)} unrecorded calls, e.g. {misses[0]}", file=sys.stderr)
            return 1
        recorded, replayed = digests(second), digests(third)
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
