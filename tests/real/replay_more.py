"""The replay node for the datasets outside the block / receipt / log family, and the tests'
independent decoders.

:class:`ReplayNode` is :class:`real_node.RealNode` (real answers over HTTP, see its docstring)
with the answer kinds the snapshot and lookup datasets ask for. As there, every answer is a
recorded one or follows from recorded ones by what the node's code does (``/tmp/hsrc``, commit
dc52025a, and its history); where an export needs a call no real answer covers, a **stand-in**
answers it, clearly marked, and the tests compare nothing of it.

What it adds
------------
* **calls by meaning**: ``getTransactionCount`` / ``getCode`` / ``call`` are matched on what
  their params mean, as the node reads them: an address in one1 or 0x form (``ParseAddr``), a
  block as hex text or a number, ``"latest"`` as the head the node claims (see below);
* **validator pages** (``getAllValidatorInformation[ByBlockNumber]``): the recorded page; a page
  beyond the last one is ``[]`` when a recorded ``getAllValidatorAddresses`` answer of the same
  node lists no validator for it (``rpc/harmony/staking.go`` ``getAllValidatorInformation``:
  ``len(addresses) <= page*100`` gives an empty list). ``getAllValidatorInformation(page)`` is
  the page at the head (``getPagedValidatorInformationCached(ctx, page, LatestBlockNumber)``);
* **calls to an account without code**: ``call`` to an address whose recorded ``getCode`` at
  that block is ``"0x"`` answers ``"0x"`` (the EVM runs no code and returns no data:
  ``core/vm/evm.go`` ``Call``; ``DoEVMCall`` hands the empty return to ``hexutil.Bytes``).
  Counted in :attr:`ReplayNode.derived_calls`;
* **a pending transaction by hash**: ``getTransactionByHash`` of a transaction a recorded
  ``pendingTransactions`` answer lists is that element: both render the pool's transaction with
  ``NewTransaction(tx, common.Hash{}, 0, 0, 0)`` (``rpc/harmony/transaction.go``
  ``GetTransactionByHash``, ``rpc/harmony/pool.go`` ``PendingTransactions``). Counted in
  :attr:`ReplayNode.derived_calls`;
* **an unknown transaction hash**: ``getTransactionByHash`` of the hash of a recorded block's
  *staking* transaction is ``null``: ``rawdb.ReadTransaction`` finds no plain transaction at
  that index (``TransactionAt`` is nil, so "missing"), and ``GetTransactionByHash`` answers
  ``nil, nil`` (``rpc/harmony/transaction.go``). Counted in :attr:`ReplayNode.derived_calls`;
* **the recorded sharding structure** (``recorded_sharding=True``) instead of the synthesized
  one-shard answer;
* **the recorded head** (``recorded_head=True``): ``blockNumber`` as recorded in each
  namespace; ``"latest"`` in recorded params then means the ``hmyv2_blockNumber`` answer;
* **method-wide errors**: an answer placed with params :data:`ANY` (a -32601 whose params the
  source does not show) answers every call of its method.

Stand-ins
---------
``stand_in_head=N`` answers ``blockNumber`` with N (a stand-in: no real head of that node is
recorded) and ``stand_in_blocks`` answers ``getBlockByNumber`` of those numbers with a header
``{"hash": stand_in_hash(n), "number": n}`` (its hash spells ``STAND-IN``, like the genesis
stand-in of :mod:`real_node`; it has no ``epoch``). :attr:`ReplayNode.stand_ins` lists the
calls they answered.

Placed answers
--------------
harmony-test's localnet replies are vendored without their params (the suite builds them in
Python; ``request.params_python_source`` of the sample shows how): :func:`placed` gives such an
answer the params that source names, with the values a test chooses for the names it uses
(``curr_block``: a stand-in head). :func:`staking_block` reassembles harmony-test's block 11
with its CreateValidator: the suite keeps one reply in three references (the block with
``stakingTransactions`` emptied, the staking transaction with ``msg: null``, the message), see
its docstring.

Independent decoding
--------------------
:func:`one_to_hex` / :func:`hex_to_one` are the tests' own BIP-173 bech32 codec
(:mod:`bech32_codec`, no hmyframe code), checked against published vectors in
``test_replay_lookups.py``; :func:`plain`
turns a DataFrame or Parquet cell into plain Python for comparison.
"""

from __future__ import annotations

import json
import math
import os
from dataclasses import replace
from datetime import datetime
from decimal import Decimal
from typing import Any

import real_corpus
from bech32_codec import hex_to_one, one_to_hex
from real_corpus import Answer
from real_node import NotRecorded, RealNode, block_param

__all__ = [
    "ANY",
    "ReplayNode",
    "addresses",
    "columns",
    "exact_float",
    "hex_to_one",
    "integer",
    "one_to_hex",
    "placed",
    "plain",
    "sample_file",
    "staking_block",
    "stand_in_hash",
    "version",
]

#: Params of a placed answer that answers every call of its method.
ANY = "*any params*"
#: Validators per page of ``getAllValidatorInformation*`` (``validatorsPageSize``).
PAGE_SIZE = 100


def stand_in_hash(number: int) -> str:
    """The hash of a stand-in header: ``STAND-IN`` in ASCII, then the block number."""
    return "0x" + b"STAND-IN".hex() + f"{number:048x}"


def sample_file(answer: Answer) -> dict[str, Any]:
    """The vendored sample file an answer of ``samples/`` comes from, whole."""
    if not answer.id.startswith("samples/"):
        raise ValueError(f"{answer.id} is not a vendored sample")
    data: dict[str, Any] = json.loads((real_corpus.SAMPLES_DIR / answer.id.split("/", 1)[1]).read_text())
    return data


def placed(answer: Answer, params: Any) -> Answer:
    """``answer`` with the params its source builds (an answer recorded without them).

    Raises
    ------
    ValueError
        The answer has params already (nothing to place).
    """
    if answer.params is not None:
        raise ValueError(f"{answer.id} has its params already: {answer.params}")
    return replace(answer, params=params)


def staking_block(gen: str) -> Answer:
    """harmony-test's block 11 (2020 localnet, test_staking.py) with its CreateValidator, as
    ``{gen}_getBlocks [11, 11, fullTx, inclStaking]`` answered it.

    The suite keeps the reply in three references: the block (``test_get_blocks_v1|v2``, its
    ``stakingTransactions`` emptied), the staking transaction (``msg: null``) and its message
    (``reference_create_validator_msg``). In ``hmy_`` all three are of
    ``test_get_blocks_v1``: the transaction's ``blockHash`` is the block's hash, its
    ``blockNumber`` 0xb. In ``hmyv2_`` the transaction of ``test_get_blocks_v2`` is of another
    run (pending: zero block hash, identity test3), so the transaction and message are those of
    ``test_get_staking_transaction_history_v2``: the same transaction 0xf80460f1... in block
    11 (hash 0xc0438fb5..., the block's) with the v2 numbers. Either way the block's
    ``gasUsed`` (5,317,060) is that transaction's gas: it holds that one transaction.
    """
    if gen not in ("hmy", "hmyv2"):
        raise ValueError(f"gen must be 'hmy' or 'hmyv2', got {gen!r}")
    block_id = f"samples/{gen}_getBlocks__harmony-test.test_staking.test_get_blocks_{'v1' if gen == 'hmy' else 'v2'}.json"
    block_answer = real_corpus.by_id(block_id)
    if gen == "hmy":
        refs = sample_file(block_answer)["extra_references"]
        tx, msg = refs["reference_staking_response"], refs["reference_create_validator_msg"]
    else:
        history = real_corpus.by_id(
            "samples/hmyv2_getStakingTransactionsHistory__harmony-test.test_staking."
            "test_get_staking_transaction_history_v2.json"
        )
        (tx,) = history.result["staking_transactions"]
        msg = sample_file(history)["extra_references"]["reference_create_validator_msg"]
    block = dict(block_answer.result)
    if tx["blockHash"] != block["hash"] or tx["msg"] is not None:
        raise ValueError(f"{block_id}: the staking transaction is not of this block")
    block["stakingTransactions"] = [{**tx, "msg": msg}]
    number = block["number"]
    return replace(
        block_answer,
        id=block_answer.id + "#with-staking-transaction",
        params=[number, number, {"fullTx": True, "inclStaking": True}],
        result=[block],
    )


def columns(name: str) -> list[str]:
    """The columns of dataset ``name``, in schema order."""
    import hmyframe

    return list(hmyframe.dataset(name).schema.names)


def version(answer: Answer) -> int:
    """The ``FetchOptions.version`` that asks in an answer's namespace: 1 for ``hmy_``, else 2."""
    return 1 if answer.namespace == "hmy" else 2


def integer(value: Any) -> Any:
    """A quantity as the node wrote it (hex text or a JSON number) as an int; None stays None."""
    if value is None:
        return None
    return int(value, 16) if isinstance(value, str) else int(value)


def addresses(value: Any) -> tuple[Any, Any]:
    """(one1, 0x) of an address the node wrote in either form ('' or null: none)."""
    if not value:
        return None, None
    if value.startswith("one1"):
        return value, one_to_hex(value)
    return hex_to_one(value), value.lower()


def exact_float(atto: int, scale: int = 18) -> float:
    """``atto / 10**scale`` rounded once to the nearest float (what a ``*_one`` column holds)."""
    return atto / 10**scale  # int / int is correctly rounded in Python


def plain(value: Any) -> Any:
    """A DataFrame / Parquet cell as plain Python: None for nulls, int for integral amounts."""
    if value is None:
        return None
    try:
        import pandas as pd

        if value is pd.NA or value is pd.NaT:
            return None
        if isinstance(value, pd.Timestamp):
            return value.to_pydatetime()
    except ImportError:  # pragma: no cover (pandas is a dependency)
        pass
    if isinstance(value, float) and math.isnan(value):
        return None
    if isinstance(value, Decimal):
        return int(value) if value == value.to_integral_value() else value
    if hasattr(value, "item") and not isinstance(value, (str, bytes, datetime)):
        return value.item()  # numpy scalars
    return value


# ---------------------------------------------------------------------------------------
# the node
# ---------------------------------------------------------------------------------------


def _address(value: Any) -> str | None:
    """An address param as the node's ``ParseAddr`` reads it: lower-case 0x form, or None."""
    if not isinstance(value, str):
        return None
    if value.lower().startswith("one1"):
        try:
            return one_to_hex(value)
        except ValueError:
            return None
    if value[:2].lower() == "0x" and len(value) == 42:
        return value.lower()
    return None


class ReplayNode(RealNode):
    """:class:`real_node.RealNode` with the answer kinds of the module docstring.

    Parameters
    ----------
    answers
        The answers to serve (all of one node; placed ones included).
    stand_in_head
        ``blockNumber`` answers this number (a stand-in), and ``"latest"`` means it.
    stand_in_blocks
        Block numbers whose ``getBlockByNumber`` a stand-in header answers.
    recorded_head
        ``blockNumber`` as recorded (per namespace); ``"latest"`` means the ``hmyv2_`` answer.
    recorded_sharding
        ``getShardingStructure`` as recorded (a whole list) instead of the synthesized one.
    **kwargs
        As for :class:`~real_node.RealNode`.
    """

    def __init__(
        self,
        answers: list[Answer] | tuple[Answer, ...],
        *,
        stand_in_head: int | None = None,
        stand_in_blocks: tuple[int, ...] = (),
        recorded_head: bool = False,
        recorded_sharding: bool = False,
        **kwargs: Any,
    ) -> None:
        super().__init__(answers, **kwargs)
        if stand_in_head is not None and recorded_head:
            raise ValueError("a head is either recorded or a stand-in, not both")
        self.stand_in_head = stand_in_head
        self.stand_in_blocks = frozenset(stand_in_blocks)
        self.recorded_head = recorded_head
        self.recorded_sharding = recorded_sharding
        #: Calls a stand-in answered (``method params``).
        self.stand_ins: list[str] = []
        #: Calls answered by a derivation of this module (not recorded as such).
        self.derived_calls: list[str] = []
        self._by_method: dict[str, list[Answer]] = {}
        for answer in self.answers:
            self._by_method.setdefault(answer.method, []).append(answer)
        self._pending: dict[tuple[str, str], dict[str, Any]] = {}
        for answer in self.answers:
            if answer.name == "pendingTransactions" and isinstance(answer.result, list):
                for tx in answer.result:
                    if isinstance(tx, dict) and isinstance(tx.get("hash"), str):
                        self._pending[(answer.namespace, tx["hash"].lower())] = tx
        self._staking_hashes: set[str] = set()
        for answer in self.answers:
            if answer.name in ("getBlocks", "getBlockByNumber", "getBlockByHash") and answer.has_result:
                result = answer.result
                for obj in result if isinstance(result, list) else [result]:
                    for stx in (obj or {}).get("stakingTransactions") or ():
                        if isinstance(stx, dict) and isinstance(stx.get("hash"), str):
                            self._staking_hashes.add(stx["hash"].lower())

    # -- what "latest" means here

    def head_number(self, namespace: str = "hmyv2") -> int:
        """The head this node claims in ``namespace`` (stand-in, the recorded ``blockNumber`` of
        that namespace, else ``hmyv2_``'s, else the rule): the recorded answers of one namespace
        were taken at one moment, so its "latest" is its own ``blockNumber``'s block."""
        if self.stand_in_head is not None:
            return self.stand_in_head
        if self.recorded_head:
            for method in (f"{namespace}_blockNumber", "hmyv2_blockNumber"):
                for answer in self._by_method.get(method, ()):
                    number = block_param(answer.result) if answer.has_result else None
                    if number is not None:
                        return number
        return self.head

    def _block_ref(self, value: Any, namespace: str = "hmyv2") -> int | None:
        if value == "latest":
            return self.head_number(namespace)
        return block_param(value)

    # -- answering

    def answer(self, method: Any, params: Any) -> tuple[str, Any]:
        """``("result", value)`` or ``("error", {...})``: this module's kinds first, then the
        :class:`~real_node.RealNode` ones."""
        if isinstance(method, str) and "_" in method and method.split("_", 1)[0] not in self.hide:
            params = [] if params is None else params
            try:
                found = self._more(method, params)
            except NotRecorded as missing:
                self.misses.append(f"{method}{json.dumps(params)}: {missing}")
                return "error", {"code": -32000, "message": f"replay node: {missing}"}
            if found is not None:
                return found
        return super().answer(method, params)

    def _recorded(self, answer: Answer) -> tuple[str, Any]:
        if answer.has_result:
            return "result", answer.result
        return "error", answer.error or {"code": -32000, "message": "error"}

    def _more(self, method: str, params: list[Any]) -> tuple[str, Any] | None:
        namespace, name = method.split("_", 1)
        for answer in self._by_method.get(method, ()):
            if answer.params == ANY:
                return self._recorded(answer)
        if name == "blockNumber" and namespace in ("hmy", "hmyv2"):
            if self.stand_in_head is not None:
                self.stand_ins.append(method)
                return "result", hex(self.stand_in_head) if namespace == "hmy" else self.stand_in_head
            if self.recorded_head:
                recorded = self._by_method.get(method)
                if not recorded:
                    raise NotRecorded(f"no recorded {method}")
                return self._recorded(recorded[0])
            return None
        if name == "getBlockByNumber" and namespace in ("hmy", "hmyv2") and params:
            number = block_param(params[0])
            if number in self.stand_in_blocks and number not in self._blocks:
                self.stand_ins.append(f"{method} {number}")
                return "result", {
                    "hash": stand_in_hash(number),
                    "number": hex(number) if namespace == "hmy" else number,
                }
            return None
        if name == "getShardingStructure" and self.recorded_sharding:
            recorded = self._by_method.get(method)
            if not recorded:
                raise NotRecorded(f"no recorded {method}")
            return self._recorded(recorded[0])
        if name in ("getAllValidatorInformation", "getAllValidatorInformationByBlockNumber"):
            return self._page(namespace, name, params)
        if name in ("getTransactionCount", "getCode"):
            return self._account_call(method, params)
        if name == "call":
            return self._call(method, params)
        if name == "getTransactionByHash" and params and isinstance(params[0], str):
            wanted = params[0].lower()
            if (namespace, wanted) in self._txs:
                return None
            if (namespace, wanted) in self._pending:
                self.derived_calls.append(f"{method} {wanted}: the pool's transaction")
                return "result", self._pending[(namespace, wanted)]
            if wanted in self._staking_hashes:
                self.derived_calls.append(f"{method} {wanted} (a staking transaction's hash): null")
                return "result", None
        return None

    def _page(self, namespace: str, name: str, params: list[Any]) -> tuple[str, Any]:
        page = params[0] if params else None
        if isinstance(page, bool) or not isinstance(page, int):
            raise NotRecorded(f"validator page {page!r}")
        head = self.head_number()
        block = (
            head
            if name == "getAllValidatorInformation"
            else self._block_ref(params[1] if len(params) > 1 else None)
        )
        if block is None:
            raise NotRecorded(f"validator page at block {params[1:2]}")
        for method in (
            f"{namespace}_getAllValidatorInformationByBlockNumber",
            f"{namespace}_getAllValidatorInformation",
        ):
            for answer in self._by_method.get(method, ()):
                at = (
                    head if answer.name == "getAllValidatorInformation" else self._block_ref(answer.params[1])
                )
                if answer.params[0] == page and at == block:
                    return self._recorded(answer)
        listed = [
            a.result
            for m in ("hmy_getAllValidatorAddresses", "hmyv2_getAllValidatorAddresses")
            for a in self._by_method.get(m, ())
            if a.has_result and isinstance(a.result, list)
        ]
        if listed and page > 0 and len(listed[0]) <= page * PAGE_SIZE:
            self.derived_calls.append(f"{namespace}_{name} page {page}: [] ({len(listed[0])} validators)")
            return "result", []
        raise NotRecorded(f"validator page {page} at block {block}")

    def _account_call(self, method: str, params: list[Any]) -> tuple[str, Any]:
        ns = method.split("_", 1)[0]
        wanted = (
            _address(params[0]) if params else None,
            self._block_ref(params[1], ns) if len(params) > 1 else None,
        )
        for answer in self._by_method.get(method, ()):
            p = answer.params
            if (_address(p[0]), self._block_ref(p[1] if len(p) > 1 else "latest", ns)) == wanted:
                return self._recorded(answer)
        raise NotRecorded(f"{method} of {wanted[0]} at block {wanted[1]}")

    def _code(self, address: str, block: int) -> str | None:
        for method in ("hmy_getCode", "hmyv2_getCode", "eth_getCode"):
            for answer in self._by_method.get(method, ()):
                p = answer.params
                ref = self._block_ref(p[1], answer.namespace)
                if answer.has_result and (_address(p[0]), ref) == (address, block):
                    return str(answer.result)
        return None

    def _call(self, method: str, params: list[Any]) -> tuple[str, Any]:
        message = params[0] if params and isinstance(params[0], dict) else {}
        ns = method.split("_", 1)[0]
        block = self._block_ref(params[1], ns) if len(params) > 1 else None
        to = _address(message.get("to"))

        def meaning(m: dict[str, Any]) -> dict[str, Any]:
            return {
                k: (_address(v) or str(v).lower()) if k in ("to", "from") else str(v).lower()
                for k, v in m.items()
            }

        for answer in self._by_method.get(method, ()):
            p = answer.params
            if meaning(p[0]) == meaning(message) and self._block_ref(p[1], ns) == block:
                return self._recorded(answer)
        if to is not None and block is not None and self._code(to, block) == "0x":
            self.derived_calls.append(f"{method} to {to} at {block}: no code, 0x")
            return "result", "0x"
        raise NotRecorded(f"{method} to {to} at block {block}")


# ---------------------------------------------------------------------------------------
# comparing rows
# ---------------------------------------------------------------------------------------

#: An expected value that is not compared (a number the source re-printed through a float64).
SKIP = type("Skip", (), {"__repr__": lambda self: "SKIP"})()


def frame_rows(df: Any) -> list[dict[str, Any]]:
    """A DataFrame's rows as dicts of plain Python values."""
    return [{k: plain(v) for k, v in row.items()} for row in df.to_dict("records")]


def parquet_rows(folder: Any, dataset: str) -> list[dict[str, Any]]:
    """Every row of the Parquet files of ``dataset`` under an export folder, read with pyarrow
    alone (``<out>/<chain>/<dataset>/shard<S>/*.parquet``)."""
    from pathlib import Path

    import pyarrow.parquet as pq

    files = sorted(p for p in Path(folder).glob(f"*/{dataset}/shard*/*.parquet"))
    if not files:
        raise AssertionError(f"no {dataset} Parquet file under {folder}")
    return [{k: plain(v) for k, v in row.items()} for f in files for row in pq.read_table(f).to_pylist()]


def assert_rows(
    got: list[dict[str, Any]], expected: list[dict[str, Any]], *, columns: list[str], what: str
) -> int:
    """Every value of ``got`` equals ``expected`` (same rows, in order; every column of the
    dataset named in each expected row). Returns how many values were compared."""
    assert len(got) == len(expected), f"{what}: {len(got)} rows, expected {len(expected)}"
    compared = 0
    for i, (row, want) in enumerate(zip(got, expected, strict=True)):
        assert sorted(want) == sorted(columns), (
            f"{what}: the expected row names {sorted(set(columns) ^ set(want))}"
        )
        assert sorted(row) == sorted(columns), f"{what}: row {i} has columns {sorted(row)}"
        for column in columns:
            if want[column] is SKIP:
                continue
            value = row[column]
            said = (
                f"{what}: row {i} {column} = {value!r} ({type(value).__name__}), "
                f"expected {want[column]!r} ({type(want[column]).__name__})"
            )
            assert value == want[column], said
            assert type(value) is type(want[column]), said
            compared += 1
    tally = os.environ.get("HMYFRAME_REPLAY_TALLY")
    if tally:  # a file to count the values compared (for reports)
        with open(tally, "a") as out:
            out.write(json.dumps({"what": what, "rows": len(got), "values": compared}) + "\n")
    return compared
