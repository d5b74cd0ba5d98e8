"""ABI types, parameters, events and functions: what a contract's interface says, canonically.

One job: the model every other module of :mod:`hmyframe.abi` reads. A type is parsed once from
its ABI spelling (``"uint"``, ``"tuple[]"`` with components, ``"(address,uint256)[2]"``) into an
:class:`AbiType` that knows its canonical spelling (``uint`` is ``uint256``), whether it is
dynamic and its head size in bytes, per the Solidity ABI specification. An :class:`Event`'s
``topic0`` and a :class:`Function`'s ``selector`` are the keccak-256 of the canonical signature
(pycryptodome's keccak). Nothing here imports numpy or pyarrow.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from functools import cached_property

from Crypto.Hash import keccak

from hmyframe.errors import AbiError

__all__ = [
    "ELEMENTARY",
    "AbiType",
    "Event",
    "Function",
    "Param",
    "event_topic",
    "function_selector",
    "keccak256",
    "parse_type",
]

#: The kinds of a value that fits one 32-byte word in place (what a topic can hold as is).
ELEMENTARY = frozenset({"uint", "int", "address", "bool", "fixed_bytes", "function"})

_ARRAY_SUFFIX = re.compile(r"\[(\d*)\]$")
_ELEMENTARY = re.compile(r"(uint|int|bytes|address|bool|string|function)(\d*)")


def keccak256(data: bytes) -> bytes:
    """The keccak-256 digest of ``data`` (what Ethereum calls sha3)."""
    return keccak.new(digest_bits=256, data=data).digest()


@dataclass(frozen=True)
class AbiType:
    """One ABI type, parsed.

    Attributes
    ----------
    kind
        ``"uint"``, ``"int"``, ``"address"``, ``"bool"``, ``"fixed_bytes"`` (``bytesN``),
        ``"function"`` (24 bytes: address and selector), ``"bytes"``, ``"string"``,
        ``"array"`` or ``"tuple"``.
    size
        Bits of a ``uint``/``int`` (8..256), bytes of a ``bytesN`` (1..32); else 0.
    item
        The element type of an array.
    length
        An array's fixed length (``T[k]``), or ``None`` for a dynamic array (``T[]``).
    components
        A tuple's members, in order.
    """

    kind: str
    size: int = 0
    item: AbiType | None = None
    length: int | None = None
    components: tuple[Param, ...] = ()

    @cached_property
    def canonical(self) -> str:
        """The spelling used in signatures: ``uint256``, ``bytes32``, ``(address,uint256)[]``."""
        if self.kind in ("uint", "int"):
            return f"{self.kind}{self.size}"
        if self.kind == "fixed_bytes":
            return f"bytes{self.size}"
        if self.kind == "array":
            assert self.item is not None
            return f"{self.item.canonical}[{'' if self.length is None else self.length}]"
        if self.kind == "tuple":
            return "(" + ",".join(p.type.canonical for p in self.components) + ")"
        return self.kind

    @cached_property
    def dynamic(self) -> bool:
        """Whether the value is encoded out of place (its head holds an offset)."""
        if self.kind in ("bytes", "string"):
            return True
        if self.kind == "array":
            assert self.item is not None
            return self.length is None or self.item.dynamic
        if self.kind == "tuple":
            return any(p.type.dynamic for p in self.components)
        return False

    @cached_property
    def head_size(self) -> int:
        """Bytes the value takes in its tuple's head: 32 for a dynamic value (its offset)."""
        if self.dynamic:
            return 32
        if self.kind == "array":
            assert self.item is not None
            assert self.length is not None
            return self.length * self.item.head_size
        if self.kind == "tuple":
            return sum(p.type.head_size for p in self.components)
        return 32

    @property
    def elementary(self) -> bool:
        """Whether the value is one word in place (``uint``, ``int``, ``address``, ``bool``,
        ``bytesN``, ``function``): what vectorised decoding and a topic hold as is."""
        return self.kind in ELEMENTARY

    @cached_property
    def has_address(self) -> bool:
        """Whether an address appears anywhere in the value (then a ``_hex`` column goes beside)."""
        if self.kind == "address":
            return True
        if self.kind == "array":
            assert self.item is not None
            return self.item.has_address
        return any(p.type.has_address for p in self.components)

    def __str__(self) -> str:
        return self.canonical


@dataclass(frozen=True)
class Param:
    """One argument of an event or function (or member of a tuple).

    Attributes
    ----------
    name
        Its name in the ABI (``""`` when the ABI gives none).
    type
        Its :class:`AbiType`.
    indexed
        For an event argument: whether it is a topic rather than in the data.
    """

    name: str
    type: AbiType
    indexed: bool = False

    def describe(self) -> str:
        """``"address indexed sender"``: how a human-readable signature writes it."""
        return " ".join(w for w in (_written(self.type), "indexed" if self.indexed else "", self.name) if w)


def _written(t: AbiType) -> str:
    """A type as a human-readable signature writes it (tuple members with their names)."""
    if t.kind == "tuple":
        return "(" + ", ".join(p.describe() for p in t.components) + ")"
    if t.kind == "array":
        assert t.item is not None
        return f"{_written(t.item)}[{'' if t.length is None else t.length}]"
    return t.canonical


@dataclass(frozen=True)
class Event:
    """An event of a contract ABI.

    Attributes
    ----------
    name
        The event's name (``"Swap"``).
    inputs
        Its arguments in declaration order (indexed ones included, flagged).
    anonymous
        An anonymous event has no ``topic0``: up to four indexed arguments, matched by the
        number of topics alone.
    """

    name: str
    inputs: tuple[Param, ...]
    anonymous: bool = False

    @cached_property
    def signature(self) -> str:
        """The canonical signature: ``"Swap(address,uint256,uint256,uint256,uint256,address)"``."""
        return f"{self.name}({','.join(p.type.canonical for p in self.inputs)})"

    @cached_property
    def topic0(self) -> str:
        """``0x`` keccak-256 of :attr:`signature`: the log's first topic (unless anonymous)."""
        return event_topic(self.signature)

    @cached_property
    def full_signature(self) -> str:
        """The signature with ``indexed`` markers and names: tells apart two events of one
        canonical signature (an HRC-20 and an HRC-721 ``Transfer``)."""
        text = f"{self.name}({', '.join(p.describe() for p in self.inputs)})"
        return text + (" anonymous" if self.anonymous else "")

    @property
    def indexed(self) -> tuple[Param, ...]:
        """The indexed arguments, in order (topics 1.., or 0.. for an anonymous event)."""
        return tuple(p for p in self.inputs if p.indexed)

    @property
    def data_inputs(self) -> tuple[Param, ...]:
        """The arguments ABI-encoded in the log's data, in order."""
        return tuple(p for p in self.inputs if not p.indexed)

    @property
    def topic_count(self) -> int:
        """How many topics a log of this event has."""
        return len(self.indexed) + (0 if self.anonymous else 1)


@dataclass(frozen=True)
class Function:
    """A function of a contract ABI.

    Attributes
    ----------
    name
        The function's name (``"swapExactTokensForTokens"``).
    inputs
        Its arguments, in order.
    outputs
        What it returns (not decoded here; kept for reference).
    state_mutability
        ``"view"``, ``"payable"``... as the ABI says (``""`` when it does not).
    """

    name: str
    inputs: tuple[Param, ...]
    outputs: tuple[Param, ...] = field(default=())
    state_mutability: str = ""

    @cached_property
    def signature(self) -> str:
        """The canonical signature: ``"transfer(address,uint256)"``."""
        return f"{self.name}({','.join(p.type.canonical for p in self.inputs)})"

    @cached_property
    def selector(self) -> str:
        """``0x`` and the first 4 bytes of keccak-256 of :attr:`signature` (input's first bytes)."""
        return function_selector(self.signature)

    @cached_property
    def full_signature(self) -> str:
        """The signature with argument names: ``"transfer(address to, uint256 amount)"``."""
        return f"{self.name}({', '.join(p.describe() for p in self.inputs)})"


def event_topic(signature: str) -> str:
    """``topic0`` of a canonical event signature: ``0x`` + keccak-256, 64 hex digits.

    Examples
    --------
    >>> event_topic("Transfer(address,address,uint256)")[:10]
    '0xddf252ad'
    """
    return "0x" + keccak256(signature.encode()).hex()


def function_selector(signature: str) -> str:
    """The 4-byte selector of a canonical function signature, ``0x`` + 8 hex digits.

    Examples
    --------
    >>> function_selector("transfer(address,uint256)")
    '0xa9059cbb'
    """
    return "0x" + keccak256(signature.encode()).hex()[:8]


def parse_type(text: str, components: tuple[Param, ...] | None = None) -> AbiType:
    """Parse one ABI type: ``"uint"``, ``"bytes32[]"``, ``"(address,uint256)[2]"``, or
    ``"tuple[]"`` with the tuple's ``components`` (as an ABI JSON entry gives them).

    Raises
    ------
    AbiError
        Naming the type and what was expected (the caller adds which entry it is).
    """
    spelled = text.strip()
    m = _ARRAY_SUFFIX.search(spelled)
    if m is not None:
        item = parse_type(spelled[: m.start()], components)
        if m[1] and int(m[1]) == 0:
            raise AbiError(f"type {text!r}: a fixed-size array needs a length of at least 1")
        return AbiType("array", item=item, length=int(m[1]) if m[1] else None)
    if spelled == "tuple":
        if components is None:
            raise AbiError(f"type {text!r} has no components: expected a list of the tuple's members")
        return AbiType("tuple", components=components)
    if spelled.startswith("(") and spelled.endswith(")"):
        if components is not None:
            return AbiType("tuple", components=components)
        inner = spelled[1:-1]
        members = split_top_level(inner) if inner.strip() else []
        return AbiType("tuple", components=tuple(Param("", parse_type(member)) for member in members))
    m = _ELEMENTARY.fullmatch(spelled)
    if m is None:
        if re.fullmatch(r"u?fixed(\d+x\d+)?", spelled):
            raise AbiError(f"type {text!r}: fixed-point types are not supported")
        raise AbiError(
            f"unknown type {text!r}: expected uintN, intN, address, bool, bytesN, bytes, string, "
            "function, a tuple or an array of these"
        )
    base, digits = m[1], m[2]
    if base in ("uint", "int"):
        bits = int(digits) if digits else 256
        if not (8 <= bits <= 256 and bits % 8 == 0) or (digits and digits != str(bits)):
            raise AbiError(f"type {text!r}: expected {base}8 .. {base}256 in steps of 8")
        return AbiType(base, size=bits)
    if base == "bytes":
        if not digits:
            return AbiType("bytes")
        if not (1 <= int(digits) <= 32) or digits != str(int(digits)):
            raise AbiError(f"type {text!r}: expected bytes1 .. bytes32, or bytes")
        return AbiType("fixed_bytes", size=int(digits))
    if digits:
        raise AbiError(f"unknown type {text!r}: {base} takes no size")
    if base == "function":
        return AbiType("function", size=24)
    return AbiType(base)


def split_top_level(text: str) -> list[str]:
    """``text`` split at the commas outside parentheses (members of a tuple or a signature)."""
    parts: list[str] = []
    depth = 0
    start = 0
    for i, c in enumerate(text):
        if c == "(":
            depth += 1
        elif c == ")":
            depth -= 1
            if depth < 0:
                raise AbiError(f"unbalanced parentheses in {text!r}")
        elif c == "," and depth == 0:
            parts.append(text[start:i])
            start = i + 1
    if depth:
        raise AbiError(f"unbalanced parentheses in {text!r}")
    parts.append(text[start:])
    return [p.strip() for p in parts]
