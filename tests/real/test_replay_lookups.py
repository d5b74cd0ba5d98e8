"""Point lookups from real answers: ``head``, ``shards``, ``pending_cx_receipts``, ``tx_counts``,
``tokens``, ``transactions_by_hash`` and ``traces_by_hash``, against an independent decode.

Each real answer of a method these lookups call is served by :class:`replay_more.ReplayNode`
(see its docstring for what follows from recorded answers and what is a stand-in) and asked
through the public function (and the CLI where a command shows it: ``hmyframe head``,
``hmyframe shards``), in the generation of the answer; every value of every row is compared
with what this file reads from the answer with plain Python. Answers no lookup asks for but
a dataset accepts (``getCXReceiptByHash``, a single sharding-structure entry) go through the
dataset's conversion. The bech32 codec the comparisons use is checked first, against published
vectors.
"""

from __future__ import annotations

import json
import warnings
from datetime import UTC, datetime
from decimal import Decimal
from pathlib import Path
from typing import Any

import pytest
import real_corpus
from real_corpus import Answer
from real_node import collection
from replay_more import (
    ReplayNode,
    addresses,
    assert_rows,
    columns,
    exact_float,
    frame_rows,
    hex_to_one,
    integer,
    one_to_hex,
    placed,
    staking_block,
    version,
)

import hmyframe
from hmyframe import FetchOptions
from hmyframe.cli import main
from hmyframe.datasets import ConvertContext
from hmyframe.errors import HmyframeError, RpcError
from hmyframe.rpc import watch_heads

#: The head a stand-in claims for answers recorded at "latest" without a head of their own.
STAND_IN_HEAD = 1_000


def home(answer: Answer) -> list[Answer]:
    """The answers of the node that gave ``answer``: its collection, or the answer alone."""
    folder = answer.id.split("/", 1)[0]
    return collection(folder) if folder != "samples" else [answer]


def recorded_head(answer: Answer) -> bool:
    return any(a.name == "blockNumber" for a in home(answer) if a.id != answer.id)


# --------------------------------------------------------------------------- bech32


VECTORS = [  # harmony-rpc-notes.md section 5 (pyhmy tests and README, the docs, harmony-test)
    ("0xebcd16e8c1d8f493ba04e99a56474122d81a9c58", "one1a0x3d6xpmr6f8wsyaxd9v36pytvp48zckswvv9"),
    ("0xA5241513DA9F4463F1d4874b548dFBAC29D91f34", "one155jp2y76nazx8uw5sa94fr0m4s5aj8e5xm6fu3"),
    ("0x0B585F8DaEfBC68a311FbD4cB20d9174aD174016", "one1pdv9lrdwl0rg5vglh4xtyrv3wjk3wsqket7zxy"),
    ("0x0000000000000000000000000000000000000000", "one1qqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqquzw7vz"),
    ("0x1f2213a52f7409ff4f103458e6d202e0b3aa805a", "one1ru3p8ff0wsyl7ncsx3vwd5szuze64qz60upg37"),
]


@pytest.mark.parametrize(("hex_form", "one1"), VECTORS)
def test_the_reference_bech32_codec(hex_form: str, one1: str) -> None:
    assert hex_to_one(hex_form) == one1
    assert one_to_hex(one1) == hex_form.lower()
    with pytest.raises(ValueError, match="not a one1 address"):
        one_to_hex(one1[:-1] + ("q" if one1[-1] != "q" else "p"))  # checksum broken


# --------------------------------------------------------------------------- head


@pytest.mark.parametrize("answer", real_corpus.by_method("hmyv2_blockNumber"), ids=lambda a: a.id)
def test_head(answer: Answer, capsys: pytest.CaptureFixture[str]) -> None:
    with ReplayNode([answer], recorded_head=True) as node:
        got = hmyframe.head(rpc=node.url)
        assert main(["head", "--shard", "0", "--rpc", node.url]) == 0
    assert got == answer.result
    assert type(got) is int
    assert capsys.readouterr().out == f"shard 0: {answer.result}\n"
    assert node.misses == []


@pytest.mark.parametrize("answer", real_corpus.by_method("hmy_blockNumber"), ids=lambda a: a.id)
async def test_heads_polled(answer: Answer) -> None:
    """``watch_heads`` polls ``hmy_blockNumber``: its first head is the answer's, exactly."""
    async with ReplayNode([answer], recorded_head=True) as node:
        heads = watch_heads(node.url, 0, poll_interval=0.05)
        try:
            first = await heads.__anext__()
        finally:
            await heads.aclose()
    assert first == int(answer.result, 16)
    assert "hmy_blockNumber" in node.calls


# --------------------------------------------------------------------------- shards


def expected_shards(result: Any, queried: int) -> list[dict[str, Any]]:
    rows = [
        {
            "shard_id": e["shardID"],
            "http_url": e["http"],
            "ws_url": e["ws"],
            "is_current": e["current"],
            "queried_shard_id": queried,
        }
        for e in (result if isinstance(result, list) else [result])
    ]
    return sorted(rows, key=lambda r: r["shard_id"])


#: Whole sharding structures (the harmony-test reference is one entry of the list, checked
#: against each entry: not a whole answer).
STRUCTURES = [a for a in real_corpus.by_name("getShardingStructure") if isinstance(a.result, list)]


@pytest.mark.parametrize("answer", [a for a in STRUCTURES if a.namespace == "hmy"], ids=lambda a: a.id)
def test_shards(answer: Answer, capsys: pytest.CaptureFixture[str]) -> None:
    (current,) = [e["shardID"] for e in answer.result if e["current"]]
    with ReplayNode([answer], recorded_sharding=True) as node:
        df = hmyframe.shards(rpc=node.url)
        assert main(["shards", "--rpc", node.url]) == 0
    assert_rows(
        frame_rows(df), expected_shards(answer.result, current), columns=columns("shards"), what=answer.id
    )
    lines = [
        f"shard {e['shardID']}: {e['http']}  {e['ws']}" + ("  (answering node)" if e["current"] else "")
        for e in sorted(answer.result, key=lambda e: e["shardID"])
    ]
    assert capsys.readouterr().out.splitlines() == lines
    assert node.misses == []


@pytest.mark.parametrize("answer", real_corpus.by_name("getShardingStructure"), ids=lambda a: a.id)
def test_every_sharding_structure_parses(answer: Answer) -> None:
    table = hmyframe.dataset("shards").convert(
        [json.dumps(answer.result).encode()], ConvertContext(shard_id=0)
    )
    assert_rows(
        table.to_pylist(), expected_shards(answer.result, 0), columns=columns("shards"), what=answer.id
    )


# --------------------------------------------------------------------------- cross-shard receipts


def expected_cx(result: Any) -> list[dict[str, Any]]:
    rows = []
    for proof in result if isinstance(result, list) else [result]:
        if "receipts" in proof:
            proved = proof["merkleProof"]
            items = [
                (r, integer(proved["blockNum"]), proved["blockHash"], integer(proof["header"]["epoch"]), k)
                for k, r in enumerate(proof["receipts"])
            ]
        else:  # getCXReceiptByHash: one flat receipt
            items = [(proof, integer(proof["blockNumber"]), proof["blockHash"], None, None)]
        for r, number, block_hash, epoch, k in items:
            amount = integer(r["amount"] if "amount" in r else r["value"])
            frm, frm_hex = addresses(r["from"])
            to, to_hex = addresses(r["to"])
            rows.append(
                {
                    "block_number": number,
                    "block_hash": block_hash,
                    "shard_id": r["shardID"],
                    "to_shard_id": r["toShardID"],
                    "epoch": epoch,
                    "receipt_index": k,
                    "transaction_hash": r["txHash"] if "txHash" in r else r["hash"],
                    "from_address": frm,
                    "from_address_hex": frm_hex,
                    "to_address": to,
                    "to_address_hex": to_hex,
                    "amount": amount,
                    "amount_one": exact_float(amount),
                }
            )
    return sorted(rows, key=lambda r: (r["block_number"], r["shard_id"], r["transaction_hash"]))


PENDING_CX = [a for a in real_corpus.by_name("getPendingCXReceipts") if a.namespace in ("hmy", "hmyv2")]


@pytest.mark.parametrize("answer", PENDING_CX, ids=lambda a: a.id)
def test_pending_cx_receipts(answer: Answer) -> None:
    served = placed(answer, []) if answer.params is None else answer
    with ReplayNode([served]) as node:
        df = hmyframe.pending_cx_receipts(0, rpc=node.url, options=FetchOptions(version=version(answer)))
    assert f"{answer.namespace}_getPendingCXReceipts" in node.calls
    want = expected_cx(answer.result)
    assert_rows(frame_rows(df), want, columns=columns("cx_receipts"), what=answer.id)
    assert max(r["amount"] for r in want) > 2**64  # 500 ONE: exact through the float-free path


@pytest.mark.parametrize("answer", real_corpus.by_name("getCXReceiptByHash"), ids=lambda a: a.id)
def test_every_cx_receipt_by_hash_parses(answer: Answer) -> None:
    table = hmyframe.dataset("cx_receipts").convert(
        [json.dumps(answer.result).encode()], ConvertContext(shard_id=0)
    )
    got = [{k: int(v) if isinstance(v, Decimal) else v for k, v in r.items()} for r in table.to_pylist()]
    assert_rows(got, expected_cx(answer.result), columns=columns("cx_receipts"), what=answer.id)


# --------------------------------------------------------------------------- transaction counts


COUNTS = [a for a in real_corpus.by_name("getTransactionCount") if a.namespace in ("hmy", "hmyv2")]


def count_node(answer: Answer) -> tuple[ReplayNode, int | None]:
    """The node of a count answer, and the block to ask (None: the head, for "latest")."""
    block = answer.params[1]
    asked = None if block == "latest" else integer(block)
    if recorded_head(answer):
        return ReplayNode(home(answer), recorded_head=True), asked
    return ReplayNode(home(answer), stand_in_head=STAND_IN_HEAD), asked


@pytest.mark.parametrize("answer", COUNTS, ids=lambda a: a.id)
def test_tx_counts(answer: Answer) -> None:
    address = answer.params[0]
    node, block = count_node(answer)
    with node:
        if not answer.has_result:
            with pytest.raises(RpcError) as caught:
                hmyframe.tx_counts(
                    [address], block, rpc=node.url, options=FetchOptions(version=version(answer))
                )
            message = str(caught.value)
            assert "\n" not in message
            assert caught.value.code == answer.error["code"]
            assert caught.value.rpc_message == answer.error["message"]
            assert f"[{answer.error['code']}] {answer.error['message']}" in message
            assert caught.value.method == answer.method
            return
        df = hmyframe.tx_counts([address], block, rpc=node.url, options=FetchOptions(version=version(answer)))
    one1, hex_form = addresses(address)
    want = {
        "address": one1,
        "address_hex": hex_form,
        "block_number": node.head_number() if block is None else block,
        "shard_id": 0,
        "transaction_count": integer(answer.result),
    }
    assert_rows(frame_rows(df), [want], columns=columns("tx_counts"), what=answer.id)
    assert node.misses == []


# --------------------------------------------------------------------------- tokens

#: Accounts without code: a token row follows from ``getCode`` alone (the four calls answer
#: "0x", replay_more). A getCode answer with code (the 2019 Migrations contract) has no
#: recorded answers to name(), symbol(), decimals() and totalSupply(): not replayed.
CODELESS = [a for a in real_corpus.by_name("getCode") if a.namespace in ("hmy", "hmyv2") and a.result == "0x"]


@pytest.mark.parametrize("answer", CODELESS, ids=lambda a: a.id)
def test_tokens_of_an_account_without_code(answer: Answer) -> None:
    address, block = answer.params
    node = (
        ReplayNode(home(answer), recorded_head=True)
        if recorded_head(answer)
        else ReplayNode(home(answer), stand_in_head=STAND_IN_HEAD)
    )
    with node:
        df = hmyframe.tokens(
            [address],
            None if block == "latest" else integer(block),
            rpc=node.url,
            cache=False,
            options=FetchOptions(version=version(answer)),
        )
    one1, hex_form = addresses(address)
    want = {
        "address": one1,
        "address_hex": hex_form,
        "block_number": node.head_number(answer.namespace) if block == "latest" else integer(block),
        "shard_id": 0,
        "name": None,
        "symbol": None,
        "decimals": None,
        "total_supply": None,
        "is_contract": False,
        "reason": "no contract code",  # the tokens dataset's documented reason
    }
    assert_rows(frame_rows(df), [want], columns=columns("tokens"), what=answer.id)
    assert f"{answer.namespace}_getCode" in node.calls
    assert len(node.derived_calls) == 4  # name, symbol, decimals, totalSupply: no code, "0x"
    assert node.misses == []


# --------------------------------------------------------------------------- transactions by hash


def expected_transaction(tx: dict[str, Any], shard: int = 0) -> dict[str, Any]:
    frm, frm_hex = addresses(tx["from"])
    to, to_hex = addresses(tx.get("to"))
    value, gas_price = integer(tx["value"]), integer(tx["gasPrice"])
    source = tx.get("shardID", shard)
    target = tx.get("toShardID")
    pending = tx["blockHash"] == "0x" + "0" * 64  # the pool's: no block, index 0, time 0
    stamp = None if pending else tx.get("timestamp")
    return {
        "block_number": integer(tx["blockNumber"]),
        "block_hash": None if pending else tx["blockHash"],
        "transaction_index": None if pending else integer(tx["transactionIndex"]),
        "transaction_hash": tx["hash"],
        "eth_hash": tx.get("ethHash"),
        "timestamp": None if stamp is None else datetime.fromtimestamp(integer(stamp), UTC),
        "from_address": frm,
        "from_address_hex": frm_hex,
        "to_address": to,
        "to_address_hex": to_hex,
        "value": value,
        "value_one": exact_float(value),
        "gas": integer(tx["gas"]),
        "gas_price": gas_price,
        "gas_price_one": exact_float(gas_price),
        "nonce": integer(tx["nonce"]),
        "input": tx["input"],
        "shard_id": source,
        "to_shard_id": target,
        "is_cross_shard": None if target is None else target != source,
        "is_contract_creation": not tx.get("to"),
    }


TX_BY_HASH = [
    a
    for a in real_corpus.by_name("getTransactionByHash")
    if a.namespace in ("hmy", "hmyv2") and isinstance(a.result, dict)
]


@pytest.mark.parametrize("answer", TX_BY_HASH, ids=lambda a: a.id)
def test_transactions_by_hash(answer: Answer) -> None:
    tx_hash = answer.result["hash"]
    served = placed(answer, [tx_hash]) if answer.params is None else answer
    with ReplayNode([served]) as node:
        df = hmyframe.transactions_by_hash(
            [tx_hash], rpc=node.url, options=FetchOptions(version=version(answer))
        )
    assert node.derived == 0  # the answer's own generation, as recorded
    assert df.attrs["not_found"] == []
    assert_rows(
        frame_rows(df), [expected_transaction(answer.result)], columns=columns("transactions"), what=answer.id
    )


PENDING = [
    a for a in real_corpus.by_name("pendingTransactions") if a.namespace in ("hmy", "hmyv2") and a.result
]


@pytest.mark.parametrize("answer", PENDING, ids=lambda a: a.id)
def test_transactions_by_hash_of_the_pool(answer: Answer) -> None:
    """A pending transaction by hash: the node renders it as its ``pendingTransactions`` does
    (zero block hash, null block number, index and time 0x0), so that element is the answer;
    the rows have no block, index or time."""
    txs = [t for t in answer.result if isinstance(t, dict)]
    served = placed(answer, []) if answer.params is None else answer
    with ReplayNode([served]) as node:
        df = hmyframe.transactions_by_hash(
            [t["hash"] for t in txs], rpc=node.url, options=FetchOptions(version=version(answer))
        )
    assert len(node.derived_calls) == len(txs)
    want = sorted((expected_transaction(t) for t in txs), key=lambda r: r["transaction_hash"])
    got = sorted(frame_rows(df), key=lambda r: r["transaction_hash"])
    assert_rows(got, want, columns=columns("transactions"), what=answer.id)
    assert all(r["block_hash"] is None and r["timestamp"] is None for r in got)


@pytest.mark.parametrize("gen", ["hmy", "hmyv2"])
def test_transactions_by_hash_null_for_a_staking_transaction(gen: str) -> None:
    """The node answers null for a hash it has no plain transaction of (here: the hash of block
    11's CreateValidator, a staking transaction): reported, warned, no row."""
    block = staking_block(gen)
    (stx,) = block.result[0]["stakingTransactions"]
    with ReplayNode([block]) as node:
        with pytest.warns(hmyframe.NotFoundWarning, match=stx["hash"]):
            df = hmyframe.transactions_by_hash(
                [stx["hash"].upper().replace("0X", "0x")],
                rpc=node.url,
                options=FetchOptions(version=version(block)),
            )
        with pytest.raises(HmyframeError, match="1 transactions not found on the node"):
            hmyframe.transactions_by_hash(
                [stx["hash"]], rpc=node.url, on_missing="raise", options=FetchOptions(version=version(block))
            )
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            quiet = hmyframe.transactions_by_hash(
                [stx["hash"]], rpc=node.url, on_missing="ignore", options=FetchOptions(version=version(block))
            )
    assert len(df) == 0
    assert len(quiet) == 0
    assert df.attrs["not_found"] == quiet.attrs["not_found"] == [stx["hash"].lower()]
    assert list(df.columns) == columns("transactions")
    assert len(node.derived_calls) == 3


# --------------------------------------------------------------------------- traces by hash


def expected_traces(result: list[dict[str, Any]], asked: str) -> list[dict[str, Any]]:
    rows = []
    zero = "0x" + "0" * 64
    for i, t in enumerate(result):
        action, outcome = t["action"], t.get("result") or {}
        kind = t["type"]
        frm, frm_hex = addresses(action.get("from") or action.get("address"))
        to_raw = {
            "call": action.get("to"),
            "create": outcome.get("address"),
            "suicide": action.get("refundAddress"),
        }[kind]
        to, to_hex = addresses(to_raw)
        value = integer(action.get("value", action.get("balance")))
        used = outcome.get("gasUsed")
        rows.append(
            {
                "block_number": t["blockNumber"],
                "block_hash": t["blockHash"],
                "shard_id": 0,
                "transaction_hash": asked.lower(),
                "reported_transaction_hash": None if t["transactionHash"] == zero else t["transactionHash"],
                "transaction_position": t["transactionPosition"],
                "trace_index": i,
                "trace_address": ",".join(str(x) for x in t["traceAddress"]),
                "trace_depth": len(t["traceAddress"]),
                "subtraces": t["subtraces"],
                "type": kind,
                "call_type": action.get("callType") if kind == "call" else None,
                "from_address": frm,
                "from_address_hex": frm_hex,
                "to_address": to,
                "to_address_hex": to_hex,
                "value": value,
                "value_one": None if value is None else exact_float(value),
                "gas": integer(action.get("gas")),
                "gas_used": None if used is None else integer(used),
                "input": action.get("input", action.get("init")),
                "output": outcome.get("output", outcome.get("code")) if "error" not in t else None,
                "error": t.get("error"),
                "revert": t.get("revert"),
            }
        )
    return rows


TRACES_BY_HASH = [a for a in real_corpus.by_method("trace_transaction") if a.has_result and a.params]


@pytest.mark.parametrize("answer", TRACES_BY_HASH, ids=lambda a: a.id)
def test_traces_by_hash(answer: Answer) -> None:
    (asked,) = answer.params
    with ReplayNode([answer]) as node:
        df = hmyframe.traces_by_hash([asked], rpc=node.url, trace_rpc=node.url)
    assert df.attrs["not_found"] == []
    assert "trace_transaction" in node.calls
    assert_rows(
        frame_rows(df), expected_traces(answer.result, asked), columns=columns("traces"), what=answer.id
    )


# --------------------------------------------------------------------------- what else is asked


@pytest.mark.parametrize(
    "answer",
    [a for a in real_corpus.by_name("getEpoch") if a.namespace in ("hmy", "hmyv2")],
    ids=lambda a: a.id,
)
async def test_current_epoch(answer: Answer) -> None:
    """``getEpoch``, as the staking history asks it (the rest of a history needs
    ``epochLastBlock`` answers or headers with an epoch, which no real answer of that node
    gives: not replayed)."""
    from hmyframe.engine import Session
    from hmyframe.engine._history import current_epoch

    node = ReplayNode([answer])
    await node.start()
    try:
        async with Session(node.url, cache=False, options=FetchOptions(version=version(answer))) as session:
            epoch = await current_epoch(session)
    finally:
        await node.stop()
    assert epoch == integer(answer.result)
    assert node.calls[-1] == answer.method


@pytest.mark.parametrize("answer", real_corpus.by_method("web3_clientVersion"), ids=lambda a: a.id)
def test_node_version_in_the_files_provenance(answer: Answer, tmp_path: Path) -> None:
    """An export records what the node says of its version (``web3_clientVersion``) in every
    file's footer, verbatim (whitespace runs made one space); read back with pyarrow alone."""
    import pyarrow.parquet as pq

    blocks = [a for a in home(answer) if a.name == "getBlockByNumber"] or [
        a for a in collection("mainnet-2023") if a.name == "getBlockByNumber" and a.network == answer.network
    ]
    served = {a.id: a for a in [*home(answer), *collection("mainnet-2023")] if a.network == answer.network}
    number = integer(blocks[0].result["number"])
    with ReplayNode(list(served.values())) as node:
        code = main(
            [
                "export",
                "staking_transactions",
                "--start",
                str(number),
                "--end",
                str(number),
                "--rpc",
                node.url,
                "--out",
                str(tmp_path),
                "--no-progress",
            ]
        )
    assert code == 0
    files = sorted(tmp_path.rglob("*.parquet"))
    assert files
    for path in files:
        footer = pq.read_metadata(path).metadata
        assert footer[b"hmyframe.node_version"].decode() == " ".join(answer.result.split())
    assert "web3_clientVersion" in node.calls
