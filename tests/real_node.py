"""A replay node: real answers of a Harmony node (:mod:`real_corpus`) served over HTTP as a node would.

``RealNode(answers)`` is an aiohttp server on 127.0.0.1 (an ephemeral port) that answers
JSON-RPC calls (single or batched) from a set of :class:`real_corpus.Answer` s, so hmyframe's
normal API and CLI can be pointed at real answers (``rpc=node.url``)::

    with RealNode(collection("mainnet-2023")) as node:
        hmyframe.logs(42_379_341, 42_379_341, rpc=node.url, cache=False)

Use it in a thread (``with``) or on the running loop (``async with``). Import it as
``import real_node`` (``tests/`` is on ``sys.path``).

What it answers
---------------
Every answer is a recorded one, or follows from recorded ones by what the node's code does,
never from invented chain data:

* **the recorded call**: a call whose method and params mean what a recorded call's do (a block
  number in either hex case, a hash in either case) gets the recorded result or error;
* **blocks** (``getBlockByNumber``, ``getBlockByHash``, ``getBlocks`` of a range, in ``hmy_``
  and ``hmyv2_``): from a recorded block object of the same generation, with what the call
  asks for: a full-transaction object gives a headers-only one (``transactions`` the hashes,
  ``transactionsInEthHash`` the transactions' ``ethHash``, ``stakingTransactions`` the hashes:
  the node's ``BlockWithTxHash``), ``signers`` are kept only when asked (``withSigners``) and
  taken from any recorded answer of the block (the list is the same in both generations:
  ``[]string`` bech32 in ``rpc/harmony/v1|v2/types.go``). A block needed in ``hmy_`` with full
  transactions when only the ``hmyv2_`` object is recorded is **derived**: the same object with
  the quantities the v1 types declare ``hexutil`` written as hex (block: ``number``, ``viewID``,
  ``epoch``, ``size``, ``gasLimit``, ``gasUsed``, ``timestamp``; transaction: ``blockNumber``,
  ``timestamp``, ``gas``, ``gasPrice``, ``nonce``, ``transactionIndex``, ``value``), the rest as
  is (``rpc/harmony/v1/types.go`` ``BlockWithFullTx`` / ``Transaction`` against the v2 ones).
  ``derived`` counts these answers; ``tests/real/test_real_node.py`` checks the rule against the
  recorded ``hmy_`` headers of the same blocks. Keys are sorted, as the node's
  ``StructuredResponse`` map marshals them;
* **getBlockSigners** (both generations): the recorded signers list of the block;
* **receipts** (``getBlockReceipts`` by block hash, ``getTransactionReceipt`` by the Harmony or
  the Ethereum-form hash: the node finds the transaction by either) in ``hmy_``, ``hmyv2_`` and
  ``eth_``: the recorded receipt objects of that namespace (a receipt of a recorded block-
  receipts list is what ``getTransactionReceipt`` renders for it: the same ``NewReceipt``);
* **transactions** (``getTransactionByHash``): the recorded object, or the block's;
* **logs** (``hmy_getLogs`` / ``eth_getLogs``, a block range or a block hash, with the node's
  address and topic filters and its 1,024-block cap): the logs of every recorded receipt of
  the blocks, in order, which is what the node's filter does (``hmy.GetLogs`` returns the
  block's receipts' logs; ``rpc/harmony/filters``); a recorded block without transactions has
  none. A block of the range that is not recorded at all is an error naming it;
* **blockNumber**: the highest recorded block + 1 (so the highest block's signers, known from
  the next block, are in reach), hex in ``hmy_``, a number in ``hmyv2_``;
* **getShardingStructure**: one shard, 0, whose ``http`` is this server (the shape of the
  harmony-test localnet answer);
* anything else: ``-32601 the method X does not exist/is not available``, as the node answers a
  method it does not serve (``web3_clientVersion`` included: the version of the recorded node is
  not known).

Chain identity (a stand-in)
---------------------------
hmyframe's first contact asks for the shard-0 genesis block (its hash keys the cache:
``engine/_session.py`` ``identify``). No answer of the mainnet genesis block is recorded, so
block 0 is a **stand-in**, clearly not mainnet's: ``{"hash": STAND_IN_GENESIS_HASH, "number": 0}``
(``0x0`` in ``hmy_``), whose hash spells ``STAND-IN`` in ASCII. It only names the chain in
hmyframe's cache; tests compare nothing of it.

The node's cache state, and perturbations
-----------------------------------------
Which hash a log carries depends on the node's receipts cache (``hmy/blockchain.go`` ``GetLogs``
with ``isEth`` and ``rpc/harmony/eth/types.go`` ``NewReceipt`` rewrite the ``TxHash`` of the
cached receipts' logs in place): ``log_tx_hash=None`` serves each receipt as recorded and the
logs of ``hmy_getLogs`` as the recorded ``hmy_`` receipts carry them; ``"harmony"`` (a node whose
cache no ``eth_`` call touched) puts the Harmony hash, ``"eth"`` the Ethereum-form hash, in the
logs of every ``hmy_``/``hmyv2_`` receipt and of ``hmy_getLogs`` (staking transactions' logs keep
their hash). ``eth_getLogs`` always carries the Ethereum-form hash. ``log_edits`` break the
``getLogs`` answers as a faulty node would (:class:`LogEdit`: a log repeated, left out, or naming
a transaction hash of no transaction of the block), and ``hide`` makes namespaces answer -32601
as a node with an RPC method filter does.

``calls`` lists every method asked, in order (batches flattened); ``misses`` the calls answered
with the "not recorded" error.
"""

from __future__ import annotations

import asyncio
import json
import threading
from collections.abc import Iterable, Sequence
from concurrent.futures import Future
from dataclasses import dataclass
from types import TracebackType
from typing import Any, Literal

import real_corpus
from aiohttp import web
from real_corpus import Answer

__all__ = [
    "FOREIGN_HASH",
    "STAND_IN_GENESIS_HASH",
    "LogEdit",
    "RealNode",
    "block_param",
    "collection",
    "eth_hash_of",
]

#: The stand-in genesis hash: ``STAND-IN`` in ASCII, then zeros (not mainnet's).
STAND_IN_GENESIS_HASH = "0x" + b"STAND-IN".hex() + "0" * 48
#: A transaction hash no recorded block holds (``LogEdit("foreign", ...)``).
FOREIGN_HASH = "0x" + "f0" * 32
#: The node's ``rpcGetLogsLimit``: ``toBlock - fromBlock`` may be at most this.
GET_LOGS_LIMIT = 1024
#: The generations a block or receipt object comes in (``eth`` is the Ethereum namespace).
Gen = Literal["hmy", "hmyv2", "eth"]
_V1_BLOCK_HEX = ("number", "viewID", "epoch", "size", "gasLimit", "gasUsed", "timestamp")
_V1_TX_HEX = ("blockNumber", "timestamp", "gas", "gasPrice", "nonce", "transactionIndex", "value")
_BLOCK_METHODS = ("getBlockByNumber", "getBlockByHash", "getBlocks")


class NotRecorded(Exception):
    """A call whose answer does not follow from the recorded ones."""


@dataclass(frozen=True)
class LogEdit:
    """A fault of the ``getLogs`` answers: what a node that drops or repeats logs sends.

    Attributes
    ----------
    kind
        ``"repeat"`` (the log at ``index`` sent twice, one after the other), ``"drop"`` (left
        out) or ``"foreign"`` (its ``transactionHash`` replaced by ``hash``).
    index
        Position of the log in the answer (negative counts from the end).
    hash
        The transaction hash a ``"foreign"`` log names.
    """

    kind: Literal["repeat", "drop", "foreign"]
    index: int
    hash: str = FOREIGN_HASH

    def apply(self, logs: list[dict[str, Any]]) -> list[dict[str, Any]]:
        if not logs:
            return logs
        i = self.index % len(logs)
        out = [dict(log) for log in logs]
        if self.kind == "repeat":
            out.insert(i + 1, dict(out[i]))
        elif self.kind == "drop":
            del out[i]
        else:
            out[i]["transactionHash"] = self.hash
        return out


def collection(name: str) -> list[Answer]:
    """The answers of one collection of ``tests/real`` (``"mainnet-2023"``): one chain's."""
    found = [a for a in real_corpus.load() if a.id.startswith(f"{name}/")]
    if not found:
        raise ValueError(f"no collection {name!r} in tests/real")
    return found


def eth_hash_of(tx: dict[str, Any]) -> str | None:
    """A recorded transaction object's Ethereum-form hash (``ethHash``), if it has one."""
    value = tx.get("ethHash")
    return value if isinstance(value, str) else None


def _hexq(value: Any) -> Any:
    """A JSON number as the node's hexutil quantity (``0x`` + lower-case hex, ``0x0``)."""
    if isinstance(value, bool) or not isinstance(value, int):
        return value
    return hex(value)


def block_param(value: Any) -> int | None:
    """A block number param: an int, a hex string (either case), ``earliest``; else None."""
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return value
    if isinstance(value, str):
        if value == "earliest":
            return 0
        if value[:2].lower() == "0x":
            try:
                return int(value, 16)
            except ValueError:
                return None
    return None


def _hash(value: Any) -> str | None:
    return value.lower() if isinstance(value, str) and value[:2].lower() == "0x" else None


class _Block:
    """What is recorded of one block: its objects per generation, its signers, its receipts."""

    def __init__(self, number: int, block_hash: str) -> None:
        self.number = number
        self.hash = block_hash
        self.objects: dict[str, list[dict[str, Any]]] = {}  # generation -> recorded objects
        self.signers: list[str] | None = None
        self.receipts: dict[str, list[dict[str, Any]]] = {}  # namespace -> getBlockReceipts list

    def full(self, gen: str) -> dict[str, Any] | None:
        for obj in self.objects.get(gen, ()):
            txs = obj.get("transactions")
            if isinstance(txs, list) and all(isinstance(t, dict) for t in txs):
                return obj
        return None

    def any_object(self, gen: str) -> dict[str, Any] | None:
        objs = self.objects.get(gen)
        return objs[0] if objs else None

    @property
    def has_transactions(self) -> bool | None:
        """Whether the block has (plain or staking) transactions, from any recorded object."""
        for objs in self.objects.values():
            for obj in objs:
                txs, staking = obj.get("transactions"), obj.get("stakingTransactions")
                if isinstance(txs, list):
                    return bool(txs) or bool(staking)
        return None

    def tx_pairs(self) -> list[tuple[str, str | None]]:
        """``(Harmony hash, Ethereum-form hash)`` of each plain transaction, in block order."""
        for gen in ("hmyv2", "hmy"):
            full = self.full(gen)
            if full is not None:
                return [
                    (t["hash"].lower(), (eth_hash_of(t) or "").lower() or None) for t in full["transactions"]
                ]
            for obj in self.objects.get(gen, ()):
                hashes, eths = obj.get("transactions"), obj.get("transactionsInEthHash")
                if isinstance(hashes, list) and isinstance(eths, list) and len(hashes) == len(eths):
                    return [(h.lower(), e.lower()) for h, e in zip(hashes, eths, strict=True)]
        return []


class RealNode:
    """Serve recorded real answers as a node would (see the module docstring).

    Parameters
    ----------
    answers
        The answers to serve, all of one network (:func:`collection`); answers without their
        params (some vendored samples) are not served.
    log_tx_hash
        The node's cache state: ``None`` (as recorded), ``"harmony"`` or ``"eth"``.
    log_edits
        Faults of the ``getLogs`` answers, applied in order to every answer with logs.
    hide
        Namespaces answered -32601 (``("hmyv2",)``: a node serving only ``hmy_`` methods).
    """

    def __init__(
        self,
        answers: Iterable[Answer],
        *,
        log_tx_hash: Literal["harmony", "eth"] | None = None,
        log_edits: Sequence[LogEdit] = (),
        hide: Sequence[str] = (),
    ) -> None:
        if log_tx_hash not in (None, "harmony", "eth"):
            raise ValueError(f"log_tx_hash must be None, 'harmony' or 'eth', got {log_tx_hash!r}")
        self.answers = tuple(a for a in answers if a.params is not None)
        networks = {a.network for a in self.answers}
        if len(networks) > 1:
            raise ValueError(
                f"answers of several networks ({', '.join(sorted(networks))}) are not one node's"
            )
        self.log_tx_hash = log_tx_hash
        self.log_edits = tuple(log_edits)
        self.hide = frozenset(hide)
        self.calls: list[str] = []
        self.misses: list[str] = []
        self.derived = 0
        self._exact: dict[str, Answer] = {}
        self._blocks: dict[int, _Block] = {}
        self._by_hash: dict[str, int] = {}
        self._tx_receipts: dict[tuple[str, str], dict[str, Any]] = {}
        self._txs: dict[tuple[str, str], dict[str, Any]] = {}
        for answer in self.answers:
            self._index(answer)
        self._runner: web.AppRunner | None = None
        self.url = ""
        self._loop: asyncio.AbstractEventLoop | None = None
        self._thread: threading.Thread | None = None
        self._stop: asyncio.Event | None = None

    # ------------------------------------------------------------------ what is recorded

    @property
    def head(self) -> int:
        """The head the node claims: the highest recorded block + 1."""
        return max(self._blocks, default=0) + 1

    def block_numbers(self) -> list[int]:
        """The recorded blocks' numbers."""
        return sorted(self._blocks)

    def _block(self, number: int, block_hash: str) -> _Block:
        block = self._blocks.get(number)
        if block is None:
            block = self._blocks[number] = _Block(number, block_hash.lower())
            self._by_hash[block_hash.lower()] = number
        return block

    def _index(self, answer: Answer) -> None:
        self._exact[self._key(answer.method, answer.params)] = answer
        if not answer.has_result:
            return
        gen, name = answer.namespace, answer.name
        result = answer.result
        if name in _BLOCK_METHODS:
            for obj in result if isinstance(result, list) else [result]:
                if not isinstance(obj, dict):
                    continue
                number = block_param(obj.get("number"))
                block_hash = _hash(obj.get("hash"))
                if number is None or block_hash is None:
                    continue
                block = self._block(number, block_hash)
                block.objects.setdefault(gen, []).append(obj)
                if isinstance(obj.get("signers"), list):
                    block.signers = obj["signers"]
                for tx in obj.get("transactions") or ():
                    if isinstance(tx, dict):
                        for h in (tx.get("hash"), tx.get("ethHash")):
                            if isinstance(h, str):
                                self._txs[(gen, h.lower())] = tx
        elif name == "getBlockReceipts" and isinstance(result, list):
            receipts = [r for r in result if isinstance(r, dict)]
            number = block_param(receipts[0].get("blockNumber")) if receipts else None
            if number is not None:
                self._block(number, receipts[0]["blockHash"]).receipts[gen] = receipts
            for receipt in receipts:
                self._file_receipt(gen, receipt)
        elif name == "getTransactionReceipt" and isinstance(result, dict):
            self._file_receipt(gen, result)
            if answer.params:
                self._tx_receipts[(gen, str(answer.params[0]).lower())] = result
        elif name == "getTransactionByHash" and isinstance(result, dict):
            for h in (result.get("hash"), result.get("ethHash")):
                if isinstance(h, str):
                    self._txs[(gen, h.lower())] = result

    def _file_receipt(self, gen: str, receipt: dict[str, Any]) -> None:
        tx_hash = receipt.get("transactionHash")
        if isinstance(tx_hash, str):
            self._tx_receipts[(gen, tx_hash.lower())] = receipt

    @staticmethod
    def _key(method: str, params: Any) -> str:
        def norm(value: Any) -> Any:
            if isinstance(value, str) and value[:2].lower() == "0x":
                return value.lower()
            if isinstance(value, list):
                return [norm(v) for v in value]
            if isinstance(value, dict):
                return {k: norm(v) for k, v in sorted(value.items())}
            return value

        return json.dumps([method, norm(params if params is not None else [])], sort_keys=True)

    # ------------------------------------------------------------------ answering

    def answer(self, method: Any, params: Any) -> tuple[str, Any]:
        """``("result", value)`` or ``("error", {"code", "message"})`` for one call."""
        if not isinstance(method, str) or "_" not in method:
            return "error", {
                "code": -32601,
                "message": f"the method {method} does not exist/is not available",
            }
        namespace, name = method.split("_", 1)
        if namespace in self.hide:
            return "error", {
                "code": -32601,
                "message": f"the method {method} does not exist/is not available",
            }
        params = [] if params is None else params
        try:
            return "result", self._answer(namespace, name, method, params)
        except NotRecorded as missing:
            self.misses.append(f"{method}{json.dumps(params)}: {missing}")
            return "error", {"code": -32000, "message": f"replay node: {missing}"}
        except _Recorded as recorded:
            return "error", recorded.error

    def _answer(self, namespace: str, name: str, method: str, params: list[Any]) -> Any:
        if namespace in ("hmy", "hmyv2"):
            gen = namespace
            if name == "getBlockByNumber":
                number = block_param(params[0]) if params else None
                if number == 0:
                    return self._genesis(gen)
                if number is None:
                    raise NotRecorded(f"block {params[:1]} (only numbers are served)")
                return self._render_block(gen, number, self._args(gen, params[1:2]))
            if name == "getBlockByHash":
                number = self._by_hash.get(str(params[0]).lower()) if params else None
                if number is None:
                    return self._exact_or(method, params)
                return self._render_block(gen, number, self._args(gen, params[1:2]))
            if name == "getBlocks":
                first, last = (block_param(p) for p in params[:2])
                if first is None or last is None:
                    raise NotRecorded(f"getBlocks params {params}")
                args = self._args("hmyv2", params[2:3])  # getBlocks takes blockArgs in both generations
                return [self._render_block(gen, n, args) for n in range(first, last + 1)]
            if name == "getBlockSigners":
                number = block_param(params[0]) if params else None
                block = self._blocks.get(number) if number is not None else None
                if block is None or block.signers is None:
                    raise NotRecorded(f"the signers of block {params[:1]}")
                return block.signers
            if name == "blockNumber":
                return hex(self.head) if gen == "hmy" else self.head
            if name == "getShardingStructure":
                port = self.url.rsplit(":", 1)[-1].rstrip("/")
                return [
                    {
                        "current": True,
                        "http": self.url.rstrip("/"),
                        "shardID": 0,
                        "ws": f"ws://127.0.0.1:{port}",
                    }
                ]
        if name == "getBlockReceipts" and namespace in ("hmy", "hmyv2", "eth"):
            number = self._by_hash.get(str(params[0]).lower()) if params else None
            block = self._blocks.get(number) if number is not None else None
            if block is None or namespace not in block.receipts:
                return self._exact_or(method, params)
            return [self._receipt_logs(namespace, block, r) for r in block.receipts[namespace]]
        if name == "getTransactionReceipt" and namespace in ("hmy", "hmyv2", "eth"):
            found = self._tx_receipts.get((namespace, str(params[0]).lower())) if params else None
            if found is None:
                return self._exact_or(method, params)
            number = block_param(found.get("blockNumber"))
            block = self._blocks.get(number) if number is not None else None
            return self._receipt_logs(namespace, block, found) if block is not None else found
        if name == "getTransactionByHash" and namespace in ("hmy", "hmyv2"):
            found = self._txs.get((namespace, str(params[0]).lower())) if params else None
            if found is None:
                v2 = self._txs.get(("hmyv2", str(params[0]).lower())) if params else None
                if v2 is None or namespace != "hmy":
                    return self._exact_or(method, params)
                self.derived += 1
                return self._v1_tx(v2)
            return found
        if name == "getLogs" and namespace in ("hmy", "eth"):
            return self._logs(namespace, params)
        return self._exact_or(method, params)

    def _exact_or(self, method: str, params: list[Any]) -> Any:
        found = self._exact.get(self._key(method, params))
        if found is None:
            namespace = method.split("_", 1)[0]
            if namespace in ("hmy", "hmyv2", "eth") and method.split("_", 1)[1] in (
                *_BLOCK_METHODS,
                "getBlockReceipts",
                "getTransactionReceipt",
                "getTransactionByHash",
                "getBlockSigners",
            ):
                raise NotRecorded(f"no recorded answer for {method}{json.dumps(params)}")
            raise _Recorded(
                {"code": -32601, "message": f"the method {method} does not exist/is not available"}
            )
        if not found.has_result:
            raise _Recorded(found.error or {"code": -32000, "message": "error"})
        return found.result

    # -- blocks

    @staticmethod
    def _args(gen: str, option: list[Any]) -> dict[str, bool]:
        """What a block call asks for: v1 ``fullTx`` bool, v2 (and getBlocks) blockArgs."""
        if gen == "hmy" and option and isinstance(option[0], bool):
            return {"fullTx": option[0], "inclTx": True, "inclStaking": True, "withSigners": False}
        raw = option[0] if option and isinstance(option[0], dict) else {}
        return {
            "fullTx": bool(raw.get("fullTx", False)),
            "inclTx": bool(raw.get("inclTx", True)),
            "inclStaking": bool(raw.get("inclStaking", False)),
            "withSigners": bool(raw.get("withSigners", False)),
        }

    def _genesis(self, gen: str) -> dict[str, Any]:
        """The stand-in genesis block (see the module docstring): it names the chain, nothing more."""
        return {"hash": STAND_IN_GENESIS_HASH, "number": "0x0" if gen == "hmy" else 0}

    def _render_block(self, gen: str, number: int, args: dict[str, bool]) -> dict[str, Any]:
        block = self._blocks.get(number)
        if block is None:
            raise NotRecorded(f"block {number} is not in the recorded answers")
        base = block.full(gen)
        if base is None and args["fullTx"] and gen == "hmy" and block.full("hmyv2") is not None:
            base = self._v1_block(block.full("hmyv2"))  # type: ignore[arg-type]
            self.derived += 1
        if base is None and not args["fullTx"]:
            base = block.any_object(gen)
            if base is None and gen == "hmy" and block.any_object("hmyv2") is not None:
                base = self._v1_block(block.full("hmyv2") or block.any_object("hmyv2"))  # type: ignore[arg-type]
                self.derived += 1
        if base is None:
            raise NotRecorded(f"block {number} in {gen}_ with fullTx={args['fullTx']}")
        out = dict(base)
        txs = out.get("transactions")
        if not args["fullTx"] and isinstance(txs, list) and all(isinstance(t, dict) for t in txs):
            out["transactions"] = [t["hash"] for t in txs]
            out["transactionsInEthHash"] = [t["ethHash"] for t in txs]
            out["stakingTransactions"] = [t["hash"] for t in out.get("stakingTransactions") or ()]
        elif not args["fullTx"] and isinstance(txs, list) and "transactionsInEthHash" not in out:
            raise NotRecorded(f"block {number}: headers-only without transactionsInEthHash")
        if not args["inclTx"]:
            out["transactions"] = []
        if not args["inclStaking"] and gen == "hmyv2":
            out["stakingTransactions"] = []
        if args["withSigners"]:
            if block.signers is None:
                raise NotRecorded(f"the signers of block {number}")
            out["signers"] = block.signers
        else:
            out.pop("signers", None)
        return dict(sorted(out.items()))

    @staticmethod
    def _v1_block(v2: dict[str, Any]) -> dict[str, Any]:
        """The ``hmy_`` rendering of an ``hmyv2_`` block object (see the module docstring)."""
        out = {k: (_hexq(v) if k in _V1_BLOCK_HEX else v) for k, v in v2.items()}
        txs = v2.get("transactions")
        if isinstance(txs, list):
            out["transactions"] = [RealNode._v1_tx(t) if isinstance(t, dict) else t for t in txs]
        if v2.get("stakingTransactions"):
            raise NotRecorded("deriving hmy_ staking transactions from hmyv2_ ones")
        return dict(sorted(out.items()))

    @staticmethod
    def _v1_tx(tx: dict[str, Any]) -> dict[str, Any]:
        return dict(sorted((k, _hexq(v) if k in _V1_TX_HEX else v) for k, v in tx.items()))

    # -- receipts and logs

    def _receipt_logs(self, namespace: str, block: _Block, receipt: dict[str, Any]) -> dict[str, Any]:
        """A recorded receipt with its logs' transaction hash as the cache state says."""
        if self.log_tx_hash is None or namespace == "eth":
            return receipt
        out = dict(receipt)
        out["logs"] = [self._log_hash(block, log, self.log_tx_hash) for log in receipt.get("logs") or ()]
        return out

    def _log_hash(self, block: _Block, log: dict[str, Any], form: str) -> dict[str, Any]:
        """``log`` with the ``form`` (``harmony`` / ``eth``) hash of its plain transaction."""
        index = block_param(log.get("transactionIndex"))
        pairs = block.tx_pairs()
        if index is None or index >= len(pairs):
            return log  # a staking transaction's log keeps its hash
        harmony, eth = pairs[index]
        out = dict(log)
        out["transactionHash"] = harmony if form == "harmony" or eth is None else eth
        return out

    def _block_logs(self, namespace: str, block: _Block) -> list[dict[str, Any]]:
        if block.has_transactions is False:
            return []
        # the receipts the node reads (as recorded: the hmy_ namespace's, else hmyv2_'s)
        for gen in ("hmy", "hmyv2"):
            if gen in block.receipts:
                logs = [log for r in block.receipts[gen] for log in r.get("logs") or ()]
                break
        else:
            raise NotRecorded(f"the receipts (logs) of block {block.number}")
        form = "eth" if namespace == "eth" else self.log_tx_hash
        return logs if form is None else [self._log_hash(block, log, form) for log in logs]

    def _logs(self, namespace: str, params: list[Any]) -> list[dict[str, Any]]:
        crit = params[0] if params and isinstance(params[0], dict) else {}
        crit = {str(k).lower(): v for k, v in crit.items()}
        if crit.get("blockhash") is not None:
            number = self._by_hash.get(str(crit["blockhash"]).lower())
            if number is None:
                raise _Recorded({"code": -32000, "message": "unknown block"})
            numbers = [number]
        else:
            head = self.head - 1
            first = (
                block_param(crit.get("fromblock")) if crit.get("fromblock") not in (None, "latest") else head
            )
            last = block_param(crit.get("toblock")) if crit.get("toblock") not in (None, "latest") else head
            if first is None or last is None:
                raise NotRecorded(f"getLogs range {crit}")
            if last >= first and last - first > GET_LOGS_LIMIT:
                raise _Recorded(
                    {"code": -32000, "message": f"GetLogs query must be smaller than size {GET_LOGS_LIMIT}"}
                )
            numbers = list(range(first, min(last, head) + 1))
        addresses = crit.get("address")
        wanted = {a.lower() for a in ([addresses] if isinstance(addresses, str) else addresses or [])}
        topics = crit.get("topics") or []
        out: list[dict[str, Any]] = []
        for number in numbers:
            block = self._blocks.get(number)
            if block is None:
                raise NotRecorded(f"block {number} (of a getLogs range) is not in the recorded answers")
            for log in self._block_logs(namespace, block):
                if wanted and log["address"].lower() not in wanted:
                    continue
                if len(topics) > len(log["topics"]):
                    continue
                if all(
                    alts is None or (log["topics"][i] in (alts if isinstance(alts, list) else [alts]))
                    for i, alts in enumerate(topics)
                ):
                    out.append(log)
        for edit in self.log_edits:
            out = edit.apply(out)
        return out

    # ------------------------------------------------------------------ HTTP

    async def _post(self, request: web.Request) -> web.Response:
        body = await request.read()
        try:
            message = json.loads(body)
        except ValueError:
            return web.json_response(
                {"jsonrpc": "2.0", "id": None, "error": {"code": -32700, "message": "parse error"}}
            )
        many = isinstance(message, list)
        out = []
        for call in message if many else [message]:
            method = call.get("method") if isinstance(call, dict) else None
            self.calls.append(str(method))
            kind, value = self.answer(method, call.get("params") if isinstance(call, dict) else None)
            out.append(
                {"jsonrpc": "2.0", "id": call.get("id") if isinstance(call, dict) else None, kind: value}
            )
        return web.Response(
            body=json.dumps(out if many else out[0], separators=(",", ":")).encode(),
            content_type="application/json",
        )

    async def start(self) -> None:
        """Serve on the running loop (what ``async with`` does)."""
        app = web.Application(client_max_size=64 * 1024 * 1024)
        app.router.add_post("/", self._post)
        self._runner = web.AppRunner(app, access_log=None)
        await self._runner.setup()
        site = web.TCPSite(self._runner, "127.0.0.1", 0)
        await site.start()
        port = self._runner.addresses[0][1]
        self.url = f"http://127.0.0.1:{port}/"

    async def stop(self) -> None:
        """Stop serving."""
        runner, self._runner = self._runner, None
        if runner is not None:
            await runner.cleanup()

    async def __aenter__(self) -> RealNode:
        await self.start()
        return self

    async def __aexit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        await self.stop()

    def __enter__(self) -> RealNode:
        started: Future[None] = Future()

        def run() -> None:
            loop = asyncio.new_event_loop()
            self._loop = loop
            try:
                loop.run_until_complete(self._serve(started))
            finally:
                loop.close()

        self._thread = threading.Thread(target=run, name="real-node", daemon=True)
        self._thread.start()
        started.result()
        return self

    async def _serve(self, started: Future[None]) -> None:
        self._stop = asyncio.Event()
        try:
            await self.start()
        except Exception as exc:  # noqa: BLE001 (handed to the starting thread)
            started.set_exception(exc)
            return
        started.set_result(None)
        try:
            await self._stop.wait()
        finally:
            await self.stop()

    def __exit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        loop, stop = self._loop, self._stop
        if loop is not None and stop is not None:
            loop.call_soon_threadsafe(stop.set)
        if self._thread is not None:
            self._thread.join()
            self._thread = None


class _Recorded(Exception):
    """An error answer (recorded, or the node's own for the call)."""

    def __init__(self, error: dict[str, Any]) -> None:
        super().__init__(error.get("message"))
        self.error = error
