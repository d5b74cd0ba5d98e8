"""Reading a contract interface: ABI JSON (a file, text or a list), a built-in name, or signatures.

One job: turn what a caller passes as ``abi`` into an :class:`Abi` (its events and functions),
or fail with one :class:`~hmyframe.errors.AbiError` line naming the entry. Accepted:

* an :class:`Abi`, an :class:`~hmyframe.abi.Event` or :class:`~hmyframe.abi.Function`;
* a list of ABI JSON entries, or a dict holding one under ``"abi"`` (Hardhat, Truffle and
  Foundry artifacts);
* a path (``str`` or ``os.PathLike``) to such a JSON file;
* JSON text (starting with ``[`` or ``{``);
* a built-in interface by name (:data:`BUILTIN_ABIS`: ``"hrc20"``, ``"uniswap_v2_pair"``...;
  case, ``-`` and ``_`` are ignored, so ``"HRC-20"`` and ``"UniswapV2Pair"`` work too);
* human-readable signatures, one or several separated by ``;`` or new lines:
  ``"event Swap(address indexed sender, uint256 amount0In, ...)"``,
  ``"function transfer(address to, uint256 amount)"``; without the keyword a signature is an
  event for :func:`hmyframe.events` and a function for :func:`hmyframe.calls`. Argument names
  are optional (``"Swap(address indexed,uint256,uint256,uint256,uint256,address indexed)"``),
  a tuple is written ``(uint256 a, address b)`` or ``tuple(uint256,address)``, an anonymous
  event ends with ``anonymous``.
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from functools import cache
from importlib import resources
from pathlib import Path
from typing import Any, Literal

from hmyframe.errors import AbiError, short_repr

from ._types import AbiType, Event, Function, Param, parse_type, split_top_level

__all__ = ["BUILTIN_ABIS", "Abi", "builtin", "parse_abi"]

#: The built-in interfaces, by name: the JSON files of ``hmyframe/abi/builtin/``.
BUILTIN_ABIS: dict[str, str] = {
    "hrc20": "HRC-20 (ERC-20) token: Transfer, Approval; transfer, approve, transferFrom, views",
    "hrc721": "HRC-721 (ERC-721) NFT: Transfer, Approval, ApprovalForAll; safeTransferFrom (both), views",
    "hrc1155": "HRC-1155 (ERC-1155) multi-token: TransferSingle, TransferBatch, ApprovalForAll, URI",
    "wone": "Wrapped ONE (WETH9's interface): Deposit, Withdrawal, Transfer, Approval; deposit, withdraw",
    "uniswap_v2_factory": "UniswapV2 factory: PairCreated; createPair, getPair, allPairs",
    "uniswap_v2_pair": "UniswapV2 pair (ViperSwap, SushiSwap, DeFi Kingdoms): Swap, Sync, Mint, Burn, "
    "Transfer, Approval; swap, mint, burn, skim, sync, permit, views",
    "uniswap_v2_router": "UniswapV2 Router02: addLiquidity*, removeLiquidity*, swap* (fee-on-transfer "
    "variants included), quote and getAmounts* views",
}

_KEYWORD = re.compile(r"^\s*(event|function)\s+", re.I)
_NAME = re.compile(r"[A-Za-z_$][A-Za-z0-9_$]*")
_LOCATIONS = {"memory", "calldata", "storage", "payable"}
_MUTABILITY = {"pure", "view", "nonpayable", "payable"}
_FUNCTION_WORDS = {"external", "public", "internal", "private", "virtual", "override", *_MUTABILITY}


@dataclass(frozen=True)
class Abi:
    """A contract interface: its events and functions (other entries are not decoded).

    Attributes
    ----------
    events
        In the order the ABI lists them.
    functions
        In the order the ABI lists them.
    """

    events: tuple[Event, ...] = ()
    functions: tuple[Function, ...] = ()

    def __add__(self, other: Abi) -> Abi:
        """Both interfaces in one (a pair's events with its tokens'...)."""
        return Abi(self.events + other.events, self.functions + other.functions)


def _normal(name: str) -> str:
    return re.sub(r"[-_\s]", "", name).lower()


_BUILTIN_BY_NORMAL = {_normal(n): n for n in BUILTIN_ABIS}


@cache
def builtin(name: str) -> Abi:
    """A built-in interface by name (see :data:`BUILTIN_ABIS`; case, ``-`` and ``_`` ignored).

    Raises
    ------
    AbiError
        If there is no such built-in interface (the message lists them).
    """
    key = _BUILTIN_BY_NORMAL.get(_normal(name))
    if key is None:
        raise AbiError(f"no built-in ABI named {name!r}: expected one of {', '.join(BUILTIN_ABIS)}")
    text = resources.files("hmyframe.abi").joinpath("builtin", f"{key}.json").read_text(encoding="utf-8")
    return _from_json_text(text, f"built-in ABI {key}")


def parse_abi(source: object, default: Literal["event", "function"] = "event") -> Abi:
    """The :class:`Abi` that ``source`` names or holds (see the module docstring for the forms).

    Parameters
    ----------
    source
        An ABI in any accepted form.
    default
        What a signature without ``event`` / ``function`` is.

    Raises
    ------
    AbiError
        One line naming the malformed entry (its position and name) and what was expected.
    """
    if isinstance(source, Abi):
        return source
    if isinstance(source, Event):
        return Abi(events=(source,))
    if isinstance(source, Function):
        return Abi(functions=(source,))
    if isinstance(source, list | tuple):
        return _from_entries(source, "ABI")
    if isinstance(source, dict):
        return _from_document(source, "ABI")
    if isinstance(source, os.PathLike):
        return _from_file(Path(source))
    if not isinstance(source, str):
        raise AbiError(
            f"expected an ABI (a JSON list, a file, a built-in name or a signature), got {short_repr(source)}"
        )
    text = source.strip()
    if not text:
        raise AbiError("expected an ABI (a JSON list, a file, a built-in name or a signature), got ''")
    if text[0] in "[{":
        return _from_json_text(text, "ABI JSON")
    if "(" in text and not text.lower().endswith(".json"):
        return _from_signatures(text, default)
    if _normal(text) in _BUILTIN_BY_NORMAL:
        return builtin(text)
    path = Path(text).expanduser()
    if path.is_file():
        return _from_file(path)
    raise AbiError(
        f"{short_repr(source)} is not a built-in ABI ({', '.join(BUILTIN_ABIS)}), a file, JSON "
        "or a signature like 'Transfer(address indexed from, address indexed to, uint256 value)'"
    )


# --------------------------------------------------------------------------- JSON


def _from_file(path: Path) -> Abi:
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise AbiError(f"cannot read the ABI file {str(path)!r}: {exc}") from None
    return _from_json_text(text, f"ABI file {path.name}")


def _from_json_text(text: str, what: str) -> Abi:
    try:
        document = json.loads(text)
    except json.JSONDecodeError as exc:
        raise AbiError(f"{what} is not JSON: {exc.msg} at line {exc.lineno} column {exc.colno}") from None
    if isinstance(document, list):
        return _from_entries(document, what)
    if isinstance(document, dict):
        return _from_document(document, what)
    raise AbiError(f"{what}: expected a list of entries or an object with 'abi', got {short_repr(document)}")


def _from_document(document: dict[str, Any], what: str) -> Abi:
    entries = document.get("abi")
    if isinstance(entries, str):  # some tools store the ABI as JSON text inside the artifact
        return _from_json_text(entries, what)
    if not isinstance(entries, list):
        if "type" in document or "inputs" in document:
            return _from_entries([document], what)
        raise AbiError(f"{what}: expected a list of entries, or an artifact with an 'abi' list")
    return _from_entries(entries, what)


def _from_entries(entries: Sequence[Any], what: str) -> Abi:
    events: list[Event] = []
    functions: list[Function] = []
    for i, entry in enumerate(entries):
        if isinstance(entry, Event | Function):
            (events if isinstance(entry, Event) else functions).append(entry)  # type: ignore[arg-type]
            continue
        if not isinstance(entry, dict):
            raise AbiError(f"{what} entry {i}: expected an object, got {short_repr(entry)}")
        kind = entry.get("type", "function")
        label = f"{what} entry {i} ({kind} {entry.get('name')!r})"
        if kind not in ("function", "event", "constructor", "fallback", "receive", "error"):
            raise AbiError(
                f"{what} entry {i}: type {short_repr(kind)}; expected function, event, constructor, "
                "fallback, receive or error"
            )
        if kind not in ("function", "event"):
            continue
        name = entry.get("name")
        if not isinstance(name, str) or _NAME.fullmatch(name) is None:
            raise AbiError(f"{label}: expected a name (an identifier), got {short_repr(name)}")
        inputs = _params(entry.get("inputs", []), label, "inputs", event=kind == "event")
        if kind == "event":
            anonymous = entry.get("anonymous", False)
            if not isinstance(anonymous, bool):
                raise AbiError(f"{label}: 'anonymous' must be true or false, got {short_repr(anonymous)}")
            events.append(_checked_event(Event(name, inputs, anonymous), label))
        else:
            outputs = _params(entry.get("outputs", []), label, "outputs", event=False)
            mutability = entry.get("stateMutability", "")
            functions.append(
                Function(name, inputs, outputs, mutability if isinstance(mutability, str) else "")
            )
    return Abi(tuple(events), tuple(functions))


def _params(raw: object, label: str, key: str, *, event: bool) -> tuple[Param, ...]:
    if raw is None:
        return ()
    if not isinstance(raw, list):
        raise AbiError(f"{label}: '{key}' must be a list of parameters, got {short_repr(raw)}")
    out: list[Param] = []
    for j, item in enumerate(raw):
        where = f"{label}: {key}[{j}]"
        if not isinstance(item, dict):
            raise AbiError(f"{where}: expected an object with 'type', got {short_repr(item)}")
        name = item.get("name", "") or ""
        type_text = item.get("type")
        if not isinstance(name, str):
            raise AbiError(f"{where}: 'name' must be a string, got {short_repr(name)}")
        if not isinstance(type_text, str):
            raise AbiError(
                f"{where} ({name or 'unnamed'}): expected a 'type' string, got {short_repr(type_text)}"
            )
        components = None
        if type_text.startswith("tuple"):
            components = _params(
                item.get("components"), f"{where} ({name or 'unnamed'})", "components", event=False
            )
            if "components" not in item:
                raise AbiError(f"{where} ({name or 'unnamed'}): type {type_text!r} needs 'components'")
        try:
            parsed = parse_type(type_text, components)
        except AbiError as exc:
            raise AbiError(f"{where} ({name or 'unnamed'}): {exc}") from None
        indexed = item.get("indexed", False) if event else False
        if not isinstance(indexed, bool):
            raise AbiError(
                f"{where} ({name or 'unnamed'}): 'indexed' must be true or false, got {short_repr(indexed)}"
            )
        out.append(Param(name, parsed, indexed))
    return tuple(out)


def _checked_event(event: Event, label: str) -> Event:
    most = 4 if event.anonymous else 3
    if len(event.indexed) > most:
        raise AbiError(
            f"{label}: {len(event.indexed)} indexed arguments; an "
            f"{'anonymous ' if event.anonymous else ''}event has at most {most}"
        )
    return event


# --------------------------------------------------------------------------- signatures


def _from_signatures(text: str, default: Literal["event", "function"]) -> Abi:
    events: list[Event] = []
    functions: list[Function] = []
    for i, line in enumerate(s for s in re.split(r"[;\n]", text) if s.strip()):
        label = (
            f"signature {i} ({line.strip()[:60]!r})"
            if ("\n" in text or ";" in text)
            else f"signature {line.strip()[:80]!r}"
        )
        kind, item = _signature(line, default, label)
        if kind == "event":
            assert isinstance(item, Event)
            events.append(_checked_event(item, label))
        else:
            assert isinstance(item, Function)
            functions.append(item)
    return Abi(tuple(events), tuple(functions))


def _signature(line: str, default: str, label: str) -> tuple[str, Event | Function]:
    text = line.strip()
    m = _KEYWORD.match(text)
    kind = default
    if m is not None:
        kind = m[1].lower()
        text = text[m.end() :]
    open_at = text.find("(")
    close_at = _matching(text, open_at, label) if open_at >= 0 else -1
    name = text[:open_at].strip()
    if open_at < 0 or _NAME.fullmatch(name) is None:
        raise AbiError(f"{label}: expected NAME(TYPE [indexed] [name], ...)")
    inner = text[open_at + 1 : close_at]
    rest = text[close_at + 1 :].split()
    params = tuple(
        _param(part, label, j, event=kind == "event")
        for j, part in enumerate(split_top_level(inner) if inner.strip() else [])
    )
    if kind == "event":
        anonymous = rest == ["anonymous"]
        if rest and not anonymous:
            raise AbiError(f"{label}: unexpected {' '.join(rest)!r} after the arguments (only 'anonymous')")
        return kind, Event(name, params, anonymous)
    mutability = ""
    words = list(rest)
    if "returns" in words:  # "function f(...) view returns (uint256)": outputs are not decoded
        words = words[: words.index("returns")]
    for word in words:
        if word not in _FUNCTION_WORDS:
            raise AbiError(f"{label}: unexpected {word!r} after the arguments")
        if word in _MUTABILITY:
            mutability = word
    return kind, Function(name, params, (), mutability)


def _matching(text: str, open_at: int, label: str) -> int:
    depth = 0
    for i in range(open_at, len(text)):
        if text[i] == "(":
            depth += 1
        elif text[i] == ")":
            depth -= 1
            if depth == 0:
                return i
    raise AbiError(f"{label}: unbalanced parentheses")


def _param(text: str, label: str, j: int, *, event: bool) -> Param:
    """``"address indexed sender"``, ``"(uint256 a, address b)[] orders"``, ``"uint"``."""
    where = f"{label}: argument {j} {text!r}"
    body = text.strip()
    if not body:
        raise AbiError(f"{where}: empty argument")
    if body.startswith("tuple("):
        body = body[len("tuple") :]
    if body.startswith("("):
        close = _matching(body, 0, where)
        members = body[1:close]
        end = close + 1
        m = re.match(r"(\[\d*\])*", body[end:])
        suffix = m[0] if m else ""
        end += len(suffix)
        components = tuple(
            _param(part, where, k, event=False)
            for k, part in enumerate(split_top_level(members) if members.strip() else [])
        )
        try:
            parsed = parse_type("tuple" + suffix, components)
        except AbiError as exc:
            raise AbiError(f"{where}: {exc}") from None
        words = body[end:].split()
    else:
        first, *words = body.split()
        try:
            parsed = parse_type(first)
        except AbiError as exc:
            raise AbiError(f"{where}: {exc}") from None
    words = [w for w in words if w not in _LOCATIONS]
    indexed = False
    if words and words[0] == "indexed":
        if not event:
            raise AbiError(f"{where}: 'indexed' only marks an event's arguments")
        indexed = True
        words = words[1:]
    if len(words) > 1 or (words and _NAME.fullmatch(words[0]) is None):
        raise AbiError(f"{where}: expected TYPE [indexed] [name]")
    return Param(words[0] if words else "", parsed, indexed)


def select(
    items: Iterable[Event | Function], wanted: object, what: Literal["event", "function"]
) -> list[Any]:
    """The events (functions) ``wanted`` names among ``items``: all of them for ``None``; else a
    name (every overload of it), a canonical signature, a full signature, or a list of these.

    Raises
    ------
    AbiError
        Naming what matched nothing and listing what the ABI has.
    """
    pool = list(items)
    if wanted is None:
        return pool
    names = [wanted] if isinstance(wanted, str) else wanted
    if not isinstance(names, list | tuple) or not names or not all(isinstance(n, str) for n in names):
        raise AbiError(f"{what} must be a name, a signature or a list of them, got {short_repr(wanted)}")
    chosen: list[Any] = []
    for name in names:
        key = name.strip()
        found = [
            e
            for e in pool
            if key in (e.name, e.signature, e.full_signature)
            or key.replace(" ", "") in (e.signature, e.full_signature.replace(" ", ""))
        ]
        if not found:
            have = ", ".join(dict.fromkeys(e.name for e in pool)) or "none"
            raise AbiError(f"no {what} {name!r} in the ABI: it has {have}")
        chosen.extend(e for e in found if e not in chosen)
    return chosen


def is_bare_signature(source: object) -> bool:
    """Whether ``source`` is one signature string (then a single frame is returned)."""
    if not isinstance(source, str):
        return False
    text = source.strip()
    return (
        "(" in text
        and text[:1] not in ("[", "{")
        and not text.lower().endswith(".json")
        and not re.search(r"[;\n]", text)
    )


def type_of(text: str) -> AbiType:
    """One type from its spelling in a signature (names allowed inside tuples)."""
    return _param(text, "type", 0, event=False).type
