"""Contract reads: ``call`` (``hmy_``, ``hmyv2_``, ``eth_``) and ``getCode``, as the node answers
them (``rpc/harmony/contract.go``, ``transaction.go`` ``newRevertError``).

* ``call(args, blockNrOrHash)``: both required; ``args.to`` is a Go ``common.Address`` (0x hex
  only), ``args.data`` ``hexutil.Bytes``. A revert *with* revert data answers error code 3
  ``execution reverted: <reason>`` (``execution reverted`` when the data is not an
  ``Error(string)``) and no ``data`` field; a revert without data, a missing function and
  an account without code answer ``"0x"``.
* ``getCode(address, blockNrOrHash)``: ``address`` one1 or 0x; ``"0x"`` for an account.

The devnet's contracts answering calls are its token contracts
(:mod:`hmyframe.devnet._gen_tokens`): ``name``, ``symbol``, ``decimals``, ``totalSupply``,
``balanceOf``, ``ownerOf``, with the ledger at the block asked for.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from hmyframe.devnet.methods._table import register, register_method
from hmyframe.devnet.methods.blocks import block_number_or_hash
from hmyframe.devnet.params import RpcFault, _go_type, address_param, arity, bytes_param, invalid
from hmyframe.devnet.render import Gen, encode

if TYPE_CHECKING:
    from hmyframe.devnet.shard import ShardState

__all__ = ["revert_message"]


def revert_message(revert: str) -> str:
    """The node's message for revert data: ``Error(string)`` unpacked, else the bare text."""
    raw = bytes.fromhex(revert[2:])
    if len(raw) >= 68 and raw[:4].hex() == "08c379a0":
        length = int.from_bytes(raw[36:68], "big")
        reason = raw[68 : 68 + length]
        if len(reason) == length:
            return f"execution reverted: {reason.decode('utf-8', errors='replace')}"
    return "execution reverted"


def _address_field(value: Any, field: str) -> str:
    """A ``*common.Address`` field of CallArgs (0x hex only)."""
    where = f"Go struct field CallArgs.{field} of type common.Address"
    if not isinstance(value, str):
        raise invalid(0, f"json: cannot unmarshal {_go_type(value)} into {where}")
    if not value.startswith(("0x", "0X")):
        raise invalid(0, f"json: cannot unmarshal hex string without 0x prefix into {where}")
    digits = value[2:]
    if len(digits) % 2:
        raise invalid(0, f"json: cannot unmarshal hex string of odd length into {where}")
    if any(c not in "0123456789abcdefABCDEF" for c in digits):
        raise invalid(0, f"json: cannot unmarshal invalid hex string into {where}")
    if len(digits) != 40:
        raise invalid(0, f"hex string has length {len(digits)}, want 40 for common.Address")
    return "0x" + digits.lower()


async def _call(node: ShardState, gen: Gen, params: list[Any]) -> bytes:
    raw_args, raw_block = arity(params, 2, 2)
    if not isinstance(raw_args, dict):
        raise invalid(
            0, f"json: cannot unmarshal {_go_type(raw_args)} into Go value of type harmony.CallArgs"
        )
    to = raw_args.get("to")
    target = None if to is None else _address_field(to, "to")
    if raw_args.get("from") is not None:
        _address_field(raw_args["from"], "from")
    data = raw_args.get("data")
    try:
        call_data = "0x" if data is None else bytes_param(data, "CallArgs.data")
    except ValueError as exc:
        raise invalid(0, str(exc)) from None
    number = block_number_or_hash(node, raw_block)
    if target is None:
        return encode("0x")  # a creation's init code run: the devnet models no such execution
    await node.read_cost()
    result, revert = node.chain.call(node.shard, target, call_data, number)
    if revert is not None:
        raise RpcFault(3, revert_message(revert))
    return encode(result)


async def _get_code(node: ShardState, gen: Gen, params: list[Any]) -> bytes:
    raw_address, raw_block = arity(params, 2, 2)
    address = address_param(raw_address)
    number = block_number_or_hash(node, raw_block)
    await node.read_cost()
    return encode(node.chain.code(node.shard, address, number))


register("call", _call)
register("getCode", _get_code)
register_method("eth_call", _call, current_only=True)
register_method("eth_getCode", _get_code, current_only=True)
