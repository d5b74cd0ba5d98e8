"""One contender of ``bench/compare.py``, run in its own process (and its own virtual environment).

    python bench/_contenders.py NAME '{"url": ..., "start": ..., "end": ..., ...}'

Prints one JSON line: ``{"seconds": in-process seconds of the work, "rows": ..., "blocks": ...,
"rss_mb": peak resident memory of the process}``. ``rows`` is ``null`` when the contender wrote
files (``compare.py`` counts their rows). Each factory imports its contender's package (hmyframe's
export modules and pyarrow, aiohttp, pyhmy, ethereumetl, cryo) before the clock starts, so imports
count in the wall time of the process, not in the in-process time; what a contender imports lazily
while working stays counted.

Only the standard library is imported at the top: each contender runs with the Python of its own
environment (hmyframe's, or one per peer), which has only that contender's packages.
"""

from __future__ import annotations

import asyncio
import json
import resource
import sys
import time
from collections.abc import Callable
from typing import Any

Result = tuple[int, int | None]  # (blocks, rows or None)
GET_BLOCKS_ARGS = {"fullTx": True, "inclTx": True, "inclStaking": True, "withSigners": False}
JSON_HEADERS = {"Content-Type": "application/json"}


def ranges(start: int, end: int, size: int) -> list[tuple[int, int]]:
    """Inclusive ``(first, last)`` ranges of at most ``size`` blocks covering ``start..end``."""
    return [(first, min(end, first + size - 1)) for first in range(start, end + 1, size)]


# --------------------------------------------------------------------------------------------
# hmyframe (its own environment)
# --------------------------------------------------------------------------------------------


def hmyframe_export(p: dict[str, Any]) -> Callable[[], Result]:
    """``hmyframe export``, its modules imported before the clock as the peers' packages are.

    hmyframe imports lazily, so ``hmyframe.cli`` alone would leave the export's own modules (and
    pyarrow) to be imported inside the timed work; they are imported here instead. pandas is not:
    an export should not need it, so whatever imports it during the work stays counted. aiohttp
    is imported as the ``hmyframe`` command imports it (without the CA certificates of its
    default TLS contexts: ``hmyframe.cli.main`` run without ``argv`` does the same).
    """
    from hmyframe._lazy import aiohttp_without_default_certificates

    aiohttp_without_default_certificates()
    import pyarrow  # these imports are for their import time only, before the clock
    import pyarrow.compute
    import pyarrow.parquet  # noqa: F401

    import hmyframe.cli.export
    import hmyframe.engine._ranges
    import hmyframe.exporting
    import hmyframe.rpc.client  # noqa: F401
    from hmyframe.cli import main

    argv = ["export", p["datasets"], "--rpc", p["url"], "--out", p["out"], "--no-progress"]
    if "start" in p:
        argv += ["--start", str(p["start"]), "--end", str(p["end"])]
    if p.get("trace_url"):
        argv += ["--trace-rpc", p["trace_url"]]
    argv += ["--max-in-flight", str(p.get("in_flight", 8))]
    if p.get("convert_processes"):
        argv += ["--convert-processes", str(p["convert_processes"])]

    def run() -> Result:
        code = main(argv)
        if code:
            raise SystemExit(f"hmyframe export exited with {code}")
        return p.get("end", -1) - p.get("start", 0) + 1, None

    return run


def wire(p: dict[str, Any]) -> Callable[[], Result]:
    """A bare aiohttp client making hmyframe's requests: getBlocks ranges, or trace_block."""
    import aiohttp

    if p.get("trace"):
        bodies = [
            json.dumps({"jsonrpc": "2.0", "id": n, "method": "trace_block", "params": [hex(n)]}).encode()
            for n in range(p["start"], p["end"] + 1)
        ]
        marker = b'"traceAddress"'
    else:
        bodies = [
            json.dumps(
                {"jsonrpc": "2.0", "id": a, "method": "hmyv2_getBlocks", "params": [a, b, GET_BLOCKS_ARGS]}
            ).encode()
            for a, b in ranges(p["start"], p["end"], p.get("per_request", 100))
        ]
        marker = b'"ethHash"'  # one per plain transaction

    async def fetch() -> int:
        rows = 0
        queue = list(reversed(bodies))
        connector = aiohttp.TCPConnector(limit=p["in_flight"])
        async with aiohttp.ClientSession(connector=connector) as session:

            async def worker() -> None:
                nonlocal rows
                while queue:
                    body = queue.pop()
                    async with session.post(p["url"], data=body, headers=JSON_HEADERS) as resp:
                        data = await resp.read()
                    if resp.status != 200 or b'"error"' in data[:200]:
                        raise SystemExit(f"bad answer: HTTP {resp.status} {data[:200]!r}")
                    rows += data.count(marker)

            await asyncio.gather(*(worker() for _ in range(p["in_flight"])))
        return rows

    def run() -> Result:
        return p["end"] - p["start"] + 1, asyncio.run(fetch())

    return run


# --------------------------------------------------------------------------------------------
# peers (each in its own environment)
# --------------------------------------------------------------------------------------------


def pyhmy_ranges(p: dict[str, Any]) -> Callable[[], Result]:
    from pyhmy import blockchain

    def run() -> Result:
        rows = 0
        for a, b in ranges(p["start"], p["end"], p.get("per_request", 100)):
            blocks = blockchain.get_blocks(
                a, b, full_tx=True, include_tx=True, include_staking_tx=True, endpoint=p["url"], timeout=120
            )
            rows += sum(len(block["transactions"]) for block in blocks)
        return p["end"] - p["start"] + 1, rows

    return run


def pyhmy_loop(p: dict[str, Any]) -> Callable[[], Result]:
    from pyhmy import blockchain

    def run() -> Result:
        rows = 0
        for n in range(p["start"], p["end"] + 1):
            block = blockchain.get_block_by_number(
                n, full_tx=True, include_tx=True, include_staking_tx=True, endpoint=p["url"], timeout=120
            )
            rows += len(block["transactions"])
        return p["end"] - p["start"] + 1, rows

    return run


def pyhmy_validators(p: dict[str, Any]) -> Callable[[], Result]:
    from pyhmy import staking

    def run() -> Result:
        rows: list[Any] = []
        page = 0
        while True:
            answer = staking.get_all_validator_information(page=page, endpoint=p["url"], timeout=120)
            if not answer:
                break
            rows.extend(answer)
            page += 1
        return 0, len(rows)

    return run


def ethereum_etl(p: dict[str, Any]) -> Callable[[], Result]:
    from ethereumetl.cli import cli

    argv = [
        "export_blocks_and_transactions",
        "--start-block",
        str(p["start"]),
        "--end-block",
        str(p["end"]),
        "--provider-uri",
        p["url"],
        "--blocks-output",
        f"{p['out']}/blocks.csv",
        "--transactions-output",
        f"{p['out']}/transactions.csv",
    ]

    def run() -> Result:
        cli.main(args=argv, standalone_mode=False)
        return p["end"] - p["start"] + 1, None

    return run


def ethereum_etl_receipts(p: dict[str, Any]) -> Callable[[], Result]:
    """ethereum-etl's receipts, logs and token transfers of a block range, as its documentation
    chains them: ``export_blocks_and_transactions`` (the transactions only), ``extract_csv_column``
    (their hashes), ``export_receipts_and_logs`` (batches of 100 ``eth_getTransactionReceipt``
    from 5 threads), ``extract_token_transfers`` (from the logs written). With ``p["hashes"]`` (a
    file of Ethereum transaction hashes) the first two steps are skipped: the receipts alone."""
    from ethereumetl.cli import cli

    out = p["out"]
    url = p["url"]
    steps: list[list[str]] = []
    hashes = p.get("hashes")
    if not hashes:
        hashes = f"{out}/transaction_hashes.txt"
        steps.append(
            [
                "export_blocks_and_transactions",
                *("--start-block", str(p["start"]), "--end-block", str(p["end"]), "--provider-uri", url),
                *("--transactions-output", f"{out}/transactions.csv"),
            ]
        )
        steps.append(["extract_csv_column", "-i", f"{out}/transactions.csv", "-c", "hash", "-o", hashes])
    steps.append(
        [
            "export_receipts_and_logs",
            *("--transaction-hashes", hashes, "--provider-uri", url),
            *("--receipts-output", f"{out}/receipts.csv", "--logs-output", f"{out}/logs.csv"),
        ]
    )
    steps.append(
        [
            "extract_token_transfers",
            *("--logs", f"{out}/logs.csv", "--output", f"{out}/token_transfers.csv"),
            "--values-as-strings",
        ]
    )

    def run() -> Result:
        for argv in steps:
            cli.main(args=argv, standalone_mode=False)
        return p["end"] - p["start"] + 1, None

    return run


def cryo(p: dict[str, Any]) -> Callable[[], Result]:
    """``cryo.freeze`` of ``p["datasets"]`` (default blocks and transactions) over the range."""
    import cryo

    def run() -> Result:
        summary = cryo.freeze(
            p.get("datasets", ["blocks", "transactions"]),
            blocks=[f"{p['start']}:{p['end'] + 1}"],
            rpc=p["url"],
            output_dir=p["out"],
            no_verbose=True,
        )
        if summary.get("n_errored"):
            raise SystemExit(f"cryo: {summary}")
        return p["end"] - p["start"] + 1, None

    return run


CONTENDERS: dict[str, Callable[[dict[str, Any]], Callable[[], Result]]] = {
    "hmyframe": hmyframe_export,
    "wire": wire,
    "pyhmy_ranges": pyhmy_ranges,
    "pyhmy_loop": pyhmy_loop,
    "pyhmy_validators": pyhmy_validators,
    "ethereum_etl": ethereum_etl,
    "ethereum_etl_receipts": ethereum_etl_receipts,
    "cryo": cryo,
}


def peak_rss_mb() -> float:
    """Peak resident memory of this process (``VmHWM``; ``ru_maxrss`` would include the parent's
    from before ``exec`` on Linux)."""
    try:
        with open("/proc/self/status") as status:
            for line in status:
                if line.startswith("VmHWM:"):
                    return int(line.split()[1]) / 1024
    except OSError:
        pass
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def main() -> int:
    name, params = sys.argv[1], json.loads(sys.argv[2])
    work = CONTENDERS[name](params)
    started = time.perf_counter()
    blocks, rows = work()
    seconds = time.perf_counter() - started
    rss_mb = peak_rss_mb()
    print(json.dumps({"seconds": seconds, "blocks": blocks, "rows": rows, "rss_mb": rss_mb}))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
