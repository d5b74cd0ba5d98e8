"""Typed node methods, one coroutine per method, for both generations (``hmy_`` / ``hmyv2_``).

``client.v1`` and ``client.v2`` are two instances of the same :class:`Methods` class; the
generation only changes the method prefix and how params are encoded:

=====================  ==============================  ==================================
param                  v1 (``hmy_``)                   v2 (``hmyv2_``)
=====================  ==============================  ==================================
block number           ``"0x1a"`` hex string            ``26`` JSON integer
block options          ``getBlockByNumber``/``ByHash``:  ``{"fullTx", "inclTx",
                       the ``fullTx`` bool; getBlocks:  "inclStaking", "withSigners"}``
                       the blockArgs object
"latest"               sent as ``"latest"``             resolved to a number first
                                                        (early-2020 v2 nodes take numbers)
=====================  ==============================  ==================================

Every method returns the decoded JSON ``result`` exactly as the node sent it (v1 hex strings
stay strings). Methods whose answers are large also have a ``*_raw`` twin returning the
``result`` bytes for typed decoders. Staking methods are routed to shard 0 (the beacon
chain), the only shard that serves them. Arguments are validated before anything is sent.

Notes on fidelity
-----------------
* ``blockArgs`` always carries ``"inclTx": true``: early-2020 nodes omitted transactions
  unless it was set (the spec shows it in a sample request); current nodes ignore it.
* Param 1 of ``getBlockByNumber``/``getBlockByHash`` and the 3rd param of ``getBlocks`` are
  always sent (the current node crashes on a missing ``getBlocks`` blockArgs).
* ``getAllValidatorInformationByBlockNumber`` takes the block as a JSON number in both
  generations (the spec's type; current nodes accept it too).
"""

from __future__ import annotations

import re
from typing import Any, Literal, TypeVar

from hmyframe._tasks import gather_or_raise
from hmyframe.errors import AddressError, ConfigError, ResponseShapeError, short_repr
from hmyframe.rpc._check import is_int
from hmyframe.rpc.shared import Caller

__all__ = [
    "GET_BLOCKS_MAX",
    "Methods",
    "address_param",
    "block_number_param",
    "page_param",
    "tx_hash_param",
]

#: Most blocks one ``getBlocks`` call may return (``end - start <= 1024``, inclusive range).
GET_BLOCKS_MAX = 1025
_INT64_MAX = 2**63 - 1
_HASH = re.compile(r"0x[0-9a-fA-F]{64}")
_HEX_ADDRESS = re.compile(r"0x[0-9a-fA-F]{40}")
_BECH32_CHARSET = frozenset("qpzry9x8gf2tvdw0s3jn54khce6mua7l")

T = TypeVar("T")
BlockTag = Literal["latest", "earliest"]


def block_number_param(value: Any, what: str = "block number") -> int:
    """Validate a block number: an ``int`` in ``0 .. 2**63-1``.

    Parameters
    ----------
    value
        The candidate.
    what
        Its name in the error message.

    Returns
    -------
    int
        ``value`` unchanged.

    Raises
    ------
    ConfigError
        Naming the value if it is not a non-negative int64.
    """
    if isinstance(value, bool) or not isinstance(value, int):
        raise ConfigError(f"{what} must be an integer >= 0, got {short_repr(value)}")
    if not 0 <= value <= _INT64_MAX:
        raise ConfigError(f"{what} must be between 0 and 2**63-1, got {value}")
    return value


def page_param(value: Any) -> int:
    """Validate a validator-listing page: an ``int >= 0`` (pages are 0-based, 100 validators each).

    Raises
    ------
    ConfigError
        Naming the value otherwise.
    """
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        raise ConfigError(f"page must be an integer >= 0 (pages are 0-based), got {short_repr(value)}")
    return value


def tx_hash_param(value: Any, what: str = "transaction hash") -> str:
    """Validate a 32-byte hash: ``0x`` followed by 64 hex digits.

    Raises
    ------
    ConfigError
        Naming the value otherwise.
    """
    if not isinstance(value, str) or not _HASH.fullmatch(value):
        raise ConfigError(f"{what} must be '0x' followed by 64 hex digits, got {short_repr(value)}")
    return value


def address_param(value: Any) -> str:
    """Shape-check an address: ``0x`` + 40 hex digits, or ``one1`` + 38 bech32 characters.

    This checks the shape only (the node validates the bech32 checksum itself).

    Raises
    ------
    AddressError
        Naming the value and what is wrong with it.
    """
    if not isinstance(value, str):
        raise AddressError(value, "not a string")
    if value.startswith(("0x", "0X")):
        if not _HEX_ADDRESS.fullmatch("0x" + value[2:]):
            raise AddressError(value, "a 0x address has exactly 40 hex digits")
        return value
    lower = value.lower()
    if value not in (lower, value.upper()):
        raise AddressError(value, "mixed case is not allowed in a bech32 address")
    if not lower.startswith("one1"):
        raise AddressError(value, "must start with 'one1' or '0x'")
    body = lower[4:]
    if len(body) != 38 or not set(body) <= _BECH32_CHARSET:
        raise AddressError(value, "a one1 address has 38 bech32 characters after 'one1'")
    return value


def _flag(value: Any, name: str) -> bool:
    if not isinstance(value, bool):
        raise ConfigError(f"{name} must be True or False, got {short_repr(value)}")
    return value


def _shape_list(result: Any, method: str) -> list[Any]:
    if not isinstance(result, list):
        raise ResponseShapeError(method, "$", result, "a list of blocks")
    return result


class Methods:
    """The node methods of one generation; use ``client.v1`` / ``client.v2``.

    Parameters
    ----------
    client
        What sends the calls: a :class:`~hmyframe.rpc.Client`, an
        :class:`~hmyframe.rpc.pool.EndpointPool`, any :class:`~hmyframe.rpc.shared.Caller`.
    version
        ``1`` for the ``hmy_`` methods, ``2`` for ``hmyv2_``.
    """

    def __init__(self, client: Caller, version: Literal[1, 2]) -> None:
        if version not in (1, 2):
            raise ConfigError(f"version must be 1 (hmy_) or 2 (hmyv2_), got {short_repr(version)}")
        self._client = client
        self.version: Literal[1, 2] = version
        self.prefix = "hmy_" if version == 1 else "hmyv2_"

    def __repr__(self) -> str:
        return f"<Methods {self.prefix}* of {self._client!r}>"

    # ------------------------------------------------------------------ encoding (shared)

    def method(self, name: str) -> str:
        """Full method name for this generation: ``method("blockNumber")`` -> ``"hmyv2_blockNumber"``."""
        return self.prefix + name

    def quantity(self, value: int) -> int | str:
        """Encode a number param: hex string in v1, JSON integer in v2."""
        return hex(value) if self.version == 1 else value

    def block_args(self, full_tx: bool, incl_staking: bool, with_signers: bool) -> dict[str, bool]:
        """The ``blockArgs`` object (v2 block calls, and ``getBlocks`` in both generations)."""
        return {
            "fullTx": _flag(full_tx, "full_tx"),
            "inclTx": True,
            "inclStaking": _flag(incl_staking, "incl_staking"),
            "withSigners": _flag(with_signers, "with_signers"),
        }

    def block_option(self, full_tx: bool, incl_staking: bool, with_signers: bool) -> bool | dict[str, bool]:
        """Param 1 of ``getBlockByNumber``/``getBlockByHash``: the fullTx bool (v1) or blockArgs (v2).

        Raises
        ------
        ConfigError
            In v1 for ``incl_staking=False`` or ``with_signers=True``, which v1 cannot express.
        """
        args = self.block_args(full_tx, incl_staking, with_signers)
        if self.version == 2:
            return args
        if not incl_staking or with_signers:
            raise ConfigError(
                f"{self.prefix}getBlockByNumber/ByHash always include staking transactions and never "
                f"signers (got incl_staking={incl_staking}, with_signers={with_signers}); use client.v2"
            )
        return full_tx

    async def _block_ref(self, block: int | BlockTag, shard: int | None) -> int | str:
        """Encode a block reference; v2 resolves tags to a number (early v2 nodes take numbers only)."""
        if block == "earliest":
            return self.quantity(0) if self.version == 2 else "earliest"
        if block == "latest":
            if self.version == 1:
                return "latest"
            head = await self._client.request(self.method("blockNumber"), [], shard=shard)
            return block_number_param(head, "hmyv2_blockNumber result")
        return self.quantity(block_number_param(block))

    async def _call(self, name: str, params: list[Any], shard: int | None, raw: bool) -> Any:
        method = self.method(name)
        if raw:
            return await self._client.request_raw(method, params, shard=shard)
        return await self._client.request(method, params, shard=shard)

    # ------------------------------------------------------------------ chain

    async def block_number(self, shard: int | None = None) -> Any:
        """``blockNumber``: the head block number (v1 hex string, v2 int).

        Parameters
        ----------
        shard
            Shard to ask; ``None`` for the home shard.
        """
        return await self._call("blockNumber", [], shard, False)

    async def get_sharding_structure(self, shard: int | None = None) -> Any:
        """``getShardingStructure``: list of ``{current, http, shardID, ws}`` shard entries."""
        return await self._call("getShardingStructure", [], shard, False)

    async def _block_by_number(
        self,
        number: int | BlockTag,
        full_tx: bool,
        incl_staking: bool,
        with_signers: bool,
        shard: int | None,
        raw: bool,
    ) -> Any:
        option = self.block_option(full_tx, incl_staking, with_signers)
        if number not in ("latest", "earliest"):
            block_number_param(number)
        return await self._call(
            "getBlockByNumber", [await self._block_ref(number, shard), option], shard, raw
        )

    async def get_block_by_number(
        self,
        number: int | BlockTag,
        *,
        full_tx: bool = True,
        incl_staking: bool = True,
        with_signers: bool = False,
        shard: int | None = None,
    ) -> Any:
        """``getBlockByNumber``: one block.

        Parameters
        ----------
        number
            Block number, or ``"latest"`` / ``"earliest"``.
        full_tx
            Full transaction objects (else hashes).
        incl_staking
            Include staking transactions (v2 only; v1 always includes them).
        with_signers
            Add the ``signers`` list (v2 only; needs block ``number + 1``).
        shard
            Shard; ``None`` for the home shard.

        Returns
        -------
        dict
            The block object. A number beyond the head raises ``NotFoundError``.
        """
        return await self._block_by_number(number, full_tx, incl_staking, with_signers, shard, False)

    async def get_block_by_number_raw(
        self,
        number: int | BlockTag,
        *,
        full_tx: bool = True,
        incl_staking: bool = True,
        with_signers: bool = False,
        shard: int | None = None,
    ) -> bytes:
        """Raw-bytes twin of :meth:`get_block_by_number`."""
        result: bytes = await self._block_by_number(number, full_tx, incl_staking, with_signers, shard, True)
        return result

    async def _block_by_hash(
        self,
        block_hash: str,
        full_tx: bool,
        incl_staking: bool,
        with_signers: bool,
        shard: int | None,
        raw: bool,
    ) -> Any:
        params = [
            tx_hash_param(block_hash, "block hash"),
            self.block_option(full_tx, incl_staking, with_signers),
        ]
        return await self._call("getBlockByHash", params, shard, raw)

    async def get_block_by_hash(
        self,
        block_hash: str,
        *,
        full_tx: bool = True,
        incl_staking: bool = True,
        with_signers: bool = False,
        shard: int | None = None,
    ) -> Any:
        """``getBlockByHash``: one block by hash (``None`` if the node does not know it).

        Parameters are as for :meth:`get_block_by_number`, with ``block_hash`` (``0x`` + 64 hex).
        """
        return await self._block_by_hash(block_hash, full_tx, incl_staking, with_signers, shard, False)

    async def get_block_by_hash_raw(
        self,
        block_hash: str,
        *,
        full_tx: bool = True,
        incl_staking: bool = True,
        with_signers: bool = False,
        shard: int | None = None,
    ) -> bytes:
        """Raw-bytes twin of :meth:`get_block_by_hash`."""
        result: bytes = await self._block_by_hash(
            block_hash, full_tx, incl_staking, with_signers, shard, True
        )
        return result

    def _blocks_params(
        self, start: int, end: int, full_tx: bool, incl_staking: bool, with_signers: bool
    ) -> list[Any]:
        block_number_param(start, "start")
        block_number_param(end, "end")
        if end < start:
            raise ConfigError(f"end must be >= start, got start={start}, end={end}")
        if end - start + 1 > GET_BLOCKS_MAX:
            raise ConfigError(
                f"getBlocks returns at most {GET_BLOCKS_MAX} blocks per call, got {start}..{end} "
                f"({end - start + 1} blocks); use block_range()"
            )
        return [
            self.quantity(start),
            self.quantity(end),
            self.block_args(full_tx, incl_staking, with_signers),
        ]

    async def get_blocks(
        self,
        start: int,
        end: int,
        *,
        full_tx: bool = True,
        incl_staking: bool = True,
        with_signers: bool = False,
        shard: int | None = None,
    ) -> Any:
        """``getBlocks``: blocks ``start..end`` inclusive, one call (at most 1025 blocks).

        Parameters
        ----------
        start, end
            Inclusive range; ``end - start <= 1024``. The node truncates ``end`` at its head.
        full_tx, incl_staking, with_signers
            The blockArgs (always sent).
        shard
            Shard; ``None`` for the home shard.

        Returns
        -------
        list
            Block objects in order.

        Raises
        ------
        ConfigError
            For a range of more than 1025 blocks, ``end < start`` or negative numbers.
        """
        params = self._blocks_params(start, end, full_tx, incl_staking, with_signers)
        return await self._call("getBlocks", params, shard, False)

    async def get_blocks_raw(
        self,
        start: int,
        end: int,
        *,
        full_tx: bool = True,
        incl_staking: bool = True,
        with_signers: bool = False,
        shard: int | None = None,
    ) -> bytes:
        """Raw-bytes twin of :meth:`get_blocks`."""
        params = self._blocks_params(start, end, full_tx, incl_staking, with_signers)
        result: bytes = await self._call("getBlocks", params, shard, True)
        return result

    def _chunks(self, start: int, end: int, chunk_size: int) -> list[tuple[int, int]]:
        block_number_param(start, "start")
        block_number_param(end, "end")
        if end < start:
            raise ConfigError(f"end must be >= start, got start={start}, end={end}")
        if not is_int(chunk_size) or not 1 <= chunk_size <= GET_BLOCKS_MAX:
            raise ConfigError(
                f"chunk_size must be an integer in 1..{GET_BLOCKS_MAX}, got {short_repr(chunk_size)}"
            )
        return [(lo, min(lo + chunk_size - 1, end)) for lo in range(start, end + 1, chunk_size)]

    async def block_range(
        self,
        start: int,
        end: int,
        *,
        full_tx: bool = True,
        incl_staking: bool = True,
        with_signers: bool = False,
        shard: int | None = None,
        chunk_size: int = GET_BLOCKS_MAX,
    ) -> list[Any]:
        """Blocks ``start..end`` inclusive of any length, via concurrent ``getBlocks`` calls.

        Parameters
        ----------
        start, end
            Inclusive range.
        full_tx, incl_staking, with_signers, shard
            As for :meth:`get_blocks`.
        chunk_size
            Blocks per ``getBlocks`` call (1..1025).

        Returns
        -------
        list
            All blocks in order (fewer if the range passes the node's head).
        """
        self.block_args(full_tx, incl_staking, with_signers)
        parts = await gather_or_raise(
            [
                self.get_blocks(
                    lo, hi, full_tx=full_tx, incl_staking=incl_staking, with_signers=with_signers, shard=shard
                )
                for lo, hi in self._chunks(start, end, chunk_size)
            ]
        )
        method = self.method("getBlocks")
        return [block for part in parts for block in _shape_list(part, method)]

    async def block_range_raw(
        self,
        start: int,
        end: int,
        *,
        full_tx: bool = True,
        incl_staking: bool = True,
        with_signers: bool = False,
        shard: int | None = None,
        chunk_size: int = GET_BLOCKS_MAX,
    ) -> list[bytes]:
        """Raw twin of :meth:`block_range`: one ``result`` byte string per ``getBlocks`` call, in order."""
        self.block_args(full_tx, incl_staking, with_signers)
        return await gather_or_raise(
            [
                self.get_blocks_raw(
                    lo, hi, full_tx=full_tx, incl_staking=incl_staking, with_signers=with_signers, shard=shard
                )
                for lo, hi in self._chunks(start, end, chunk_size)
            ]
        )

    # ------------------------------------------------------------------ transactions

    async def get_transaction_by_hash(self, tx_hash: str, shard: int | None = None) -> Any:
        """``getTransactionByHash``: a transaction object, or ``None`` if unknown.

        Parameters
        ----------
        tx_hash
            Harmony transaction hash (``0x`` + 64 hex).
        shard
            Shard holding the transaction; ``None`` for the home shard.
        """
        return await self._call("getTransactionByHash", [tx_hash_param(tx_hash)], shard, False)

    async def get_transaction_by_hash_raw(self, tx_hash: str, shard: int | None = None) -> bytes:
        """Raw-bytes twin of :meth:`get_transaction_by_hash`."""
        result: bytes = await self._call("getTransactionByHash", [tx_hash_param(tx_hash)], shard, True)
        return result

    async def get_staking_transaction_by_hash(self, tx_hash: str) -> Any:
        """``getStakingTransactionByHash`` on shard 0: a staking transaction, or ``None``."""
        return await self._call("getStakingTransactionByHash", [tx_hash_param(tx_hash)], 0, False)

    async def get_staking_transaction_by_hash_raw(self, tx_hash: str) -> bytes:
        """Raw-bytes twin of :meth:`get_staking_transaction_by_hash`."""
        result: bytes = await self._call("getStakingTransactionByHash", [tx_hash_param(tx_hash)], 0, True)
        return result

    async def get_transaction_count(
        self, address: str, block: int | BlockTag = "latest", shard: int | None = None
    ) -> Any:
        """``getTransactionCount``: the account nonce at ``block`` (v1 hex string, v2 int).

        Parameters
        ----------
        address
            ``one1...`` or ``0x...`` address.
        block
            Block number, ``"latest"`` or ``"earliest"``.
        shard
            Shard; ``None`` for the home shard.
        """
        addr = address_param(address)
        if block not in ("latest", "earliest"):
            block_number_param(block, "block")
        return await self._call(
            "getTransactionCount", [addr, await self._block_ref(block, shard)], shard, False
        )

    async def get_pending_cx_receipts(self, shard: int | None = None) -> Any:
        """``getPendingCXReceipts``: the pending cross-shard receipt proofs of a shard's pool."""
        return await self._call("getPendingCXReceipts", [], shard, False)

    async def get_pending_cx_receipts_raw(self, shard: int | None = None) -> bytes:
        """Raw-bytes twin of :meth:`get_pending_cx_receipts`."""
        result: bytes = await self._call("getPendingCXReceipts", [], shard, True)
        return result

    # ------------------------------------------------------------------ staking (shard 0)

    async def get_all_validator_information(self, page: int) -> Any:
        """``getAllValidatorInformation(page)`` on shard 0: up to 100 validators per page.

        Paced by the client's ``validator_pacing`` (by default once the node has refused one for
        its rate). Stop paging at the first **empty** page.
        Pages count from 0 on current nodes; early-2020 nodes count from 1 (their page 0 is
        page 1 again) and wrap each element as ``{"id", "jsonrpc", "result"}``. Page -1 (all
        validators on those nodes) is refused here: current nodes answer it with an error.
        """
        return await self._call("getAllValidatorInformation", [page_param(page)], 0, False)

    async def get_all_validator_information_raw(self, page: int) -> bytes:
        """Raw-bytes twin of :meth:`get_all_validator_information`."""
        result: bytes = await self._call("getAllValidatorInformation", [page_param(page)], 0, True)
        return result

    async def get_all_validator_information_by_block_number(self, page: int, block: int) -> Any:
        """``getAllValidatorInformationByBlockNumber(page, block)`` on shard 0.

        A historical page may hold fewer than 100 validators without being the last: stop at
        the first **empty** page.
        """
        params = [page_param(page), block_number_param(block, "block")]
        return await self._call("getAllValidatorInformationByBlockNumber", params, 0, False)

    async def get_all_validator_information_by_block_number_raw(self, page: int, block: int) -> bytes:
        """Raw-bytes twin of :meth:`get_all_validator_information_by_block_number`."""
        params = [page_param(page), block_number_param(block, "block")]
        result: bytes = await self._call("getAllValidatorInformationByBlockNumber", params, 0, True)
        return result

    async def get_validator_information_by_block_number(self, address: str, block: int) -> Any:
        """``getValidatorInformationByBlockNumber(address, block)`` on shard 0: one validator's
        information at ``block`` (not subject to the validator-page limiter).

        A validator that did not exist at ``block`` is an ``RpcError`` (-32000 ``address not
        present in state``).
        """
        params = [address_param(address), self.quantity(block_number_param(block, "block"))]
        return await self._call("getValidatorInformationByBlockNumber", params, 0, False)

    async def get_validator_information_by_block_number_raw(self, address: str, block: int) -> bytes:
        """Raw-bytes twin of :meth:`get_validator_information_by_block_number`."""
        params = [address_param(address), self.quantity(block_number_param(block, "block"))]
        result: bytes = await self._call("getValidatorInformationByBlockNumber", params, 0, True)
        return result

    async def epoch_last_block(self, epoch: int) -> Any:
        """``epochLastBlock(epoch)`` on shard 0: the last block of ``epoch`` by the node's schedule.

        The node takes the epoch as a JSON number and answers a JSON number in both generations;
        for an epoch not reached yet the block lies beyond the head. Nodes that do not serve it
        answer -32601 (``MethodNotFoundError``).
        """
        return await self._call("epochLastBlock", [block_number_param(epoch, "epoch")], 0, False)

    async def get_all_validator_addresses(self) -> Any:
        """``getAllValidatorAddresses`` on shard 0: every validator's ``one1`` address."""
        return await self._call("getAllValidatorAddresses", [], 0, False)
