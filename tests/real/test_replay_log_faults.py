"""A node that drops or repeats logs: the real block's logs served broken are refused, not exported.

The replay node (``tests/real_node.py``) serves mainnet block 42,379,341's 11 logs with one log
repeated, one left out, or one naming a transaction hash that is not the block's. Before, the
export wrote 12, 10 or 11 rows without a word (a repeated Transfer became a second token
transfer). Now each is one line naming the shard, the block and the log, nothing of the logs'
chunk is cached, and a run against a good node fetches it.

What each fault is seen by: a repeated index; a gap in the indexes (a log left out in the
middle); the log's transaction (a hash of no transaction at its position); with the block's
receipts fetched in the same run, each transaction's log count. A left-out *last* log leaves
indexes 0..9 and, for this block, the same bloom (its address and topics are all set by other
logs): only the receipts see it.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from real_node import FOREIGN_HASH, LogEdit, RealNode, collection

import hmyframe
from hmyframe.errors import InconsistentAnswerError

BLOCK = 42_379_341
ANSWERS = collection("mainnet-2023")
HARMONY = "0xef7ec4991840bd66569fa070ea9ab39b38a2233bbc5b3cfd272fa456e893b135"
ETH = "0x48a4124c61f3e81f8a3fe7b885a6705e8096343ece3bac530dc88a864c9c0439"
PREFIX = f"logs of shard 0 block {BLOCK}: "
FAULTS = {
    "repeated": (LogEdit("repeat", 3), "log index 3 appears twice"),
    "left out": (LogEdit("drop", 5), "log index 5 is missing (its 10 logs have indexes 0..10)"),
    "foreign hash": (
        LogEdit("foreign", 2),
        f"log 2 names transaction {FOREIGN_HASH} at position 0, where the block has transaction {HARMONY} ({ETH})",
    ),
}


def _logs_files(root: Path) -> list[Path]:
    return sorted(p for name in ("logs", "token_transfers") for p in root.glob(f"*/{name}/shard0/*.parquet"))


@pytest.mark.parametrize("fault", list(FAULTS))
@pytest.mark.parametrize("name", ["logs", "token_transfers"])
def test_a_broken_logs_answer_is_one_line_and_nothing_of_its_chunk_is_cached(
    fault: str, name: str, tmp_path: Path
) -> None:
    edit, message = FAULTS[fault]
    with RealNode(ANSWERS, log_edits=[edit]) as bad, pytest.raises(InconsistentAnswerError) as info:
        getattr(hmyframe, name)(BLOCK, BLOCK, rpc=bad.url, cache=tmp_path)
    text = str(info.value)
    assert "\n" not in text
    assert text.startswith(PREFIX + message + "; nothing of its chunk was cached"), text
    assert _logs_files(tmp_path) == []
    # the blocks it needed were fetched (headers only: the logs are resolved through their hash
    # lists) and kept; a good node gives the logs
    assert list(tmp_path.glob("*/blocks/shard0/*.parquet"))
    assert not list(tmp_path.glob("*/transactions/shard0/*.parquet"))
    with RealNode(ANSWERS) as good:
        frame = getattr(hmyframe, name)(BLOCK, BLOCK, rpc=good.url, cache=tmp_path)
    assert len(frame) == (11 if name == "logs" else 5)
    assert len(_logs_files(tmp_path)) == 2  # logs and token_transfers, one chunk each


def test_a_last_log_left_out_is_seen_by_the_receipts_fetched_with_the_logs(tmp_path: Path) -> None:
    with RealNode(ANSWERS, log_edits=[LogEdit("drop", -1)]) as bad:
        # alone, nothing tells: indexes 0..9, every bit of the block's bloom set by the other logs
        assert len(hmyframe.logs(BLOCK, BLOCK, rpc=bad.url, cache=False)) == 10
        with pytest.raises(InconsistentAnswerError) as info:
            hmyframe.export(["receipts", "logs"], BLOCK, BLOCK, rpc=bad.url, out=tmp_path)
    assert str(info.value).startswith(
        PREFIX + f"transaction {HARMONY} has 10 logs, its receipt lists 11; nothing of its chunk was cached"
    )
    assert _logs_files(tmp_path) == []
    assert list(tmp_path.glob("*/receipts/shard0/*.parquet"))  # the receipts were right: kept


def test_logs_of_a_repeated_transfer_are_not_two_token_transfers() -> None:
    with RealNode(ANSWERS, log_edits=[LogEdit("repeat", 0)]) as bad, pytest.raises(InconsistentAnswerError):
        hmyframe.token_transfers(BLOCK, BLOCK, rpc=bad.url, cache=False)
    with RealNode(ANSWERS) as good:
        transfers = hmyframe.token_transfers(BLOCK, BLOCK, rpc=good.url, cache=False)
    assert transfers["log_index"].is_unique
    assert len(transfers) == 5
