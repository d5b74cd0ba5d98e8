"""The shape of a JSON answer, and the differences between two shapes (used by test_shape_parity).

A *shape* keeps what a client depends on and drops the values:

* the JSON type of every field: object, array, string, number (integer), float, bool, null;
* for strings, the *form* of the value: hex quantity (``0x1f``: no leading zero digit), hex
  data (``0x`` and an even number of digits), its width when it is a 20-byte address, a
  32-byte hash or a 256-byte bloom, lower- or upper/mixed-case hex digits, a bech32 ``one1``
  address, a decimal string (``numeric.Dec``: ``"0.050000000000000000"``), the empty string,
  or other text;
* for objects, the set of keys (their exact spelling) and their order;
* for arrays, the merged shape of their elements (a key present in every element is required,
  in only some optional), or *empty*.

Two leaf values agree when their forms can describe the same field: a hex string that is both
a valid quantity and valid data agrees with either; a quantity's length is its value, and data
may have any length, but two fixed widths must agree (a 32-byte hash against a 20-byte address
is a difference). A hash shortened to some other length passes when only one of its values is
seen; the elements of an array are read together, which sharpens it. Values themselves are
never compared (a hash is a hash).

The elements of an array are merged into one shape; where they disagree (an object in some,
``null`` in others: a state-dependent field) the merged shape is an :class:`Alt` of the
shapes they take. A real :class:`Alt` needs each of its options on the devnet's side; a
devnet :class:`Alt` needs one option that matches the real shape (the real node may send the
other ones in states the recording did not show).

:func:`differences` walks two shapes together and returns one :class:`Difference` per place
where they disagree (a missing or extra key, a spelling, a type, a form, ``null`` vs a value,
the key order where asked for). An array that is empty on the real side says nothing about its
elements; an array that is empty on the devnet's side while the real one has elements is a
difference (the real elements could not be compared: the analogous request was not analogous).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any

__all__ = ["Alt", "Arr", "Difference", "Leaf", "Obj", "Shape", "describe", "differences", "shape_of"]

_HEX = re.compile(r"0x([0-9a-fA-F]*)")
_ONE1 = re.compile(r"one1[02-9ac-hj-np-z]{38}")
_DECIMAL = re.compile(r"-?[0-9]+\.[0-9]+")
_INTEGER_TEXT = re.compile(r"-?[0-9]+")

#: Fixed widths of hex data, in digits: what they are called in a report.
_WIDTHS = {40: "20-byte", 64: "32-byte", 512: "256-byte"}
#: Forms that are hex and describe how the digits may be read.
_HEX_READINGS = frozenset({"hex quantity", "hex data"})


@dataclass(frozen=True)
class Leaf:
    """A scalar: the forms its value(s) can be read as (see the module docstring)."""

    forms: frozenset[str]
    example: str = ""


@dataclass(frozen=True)
class Obj:
    """An object: its keys in order, each key's shape, and keys missing from some elements."""

    keys: tuple[str, ...]
    fields: dict[str, Shape]
    optional: frozenset[str] = frozenset()


@dataclass(frozen=True)
class Arr:
    """An array: the merged shape of its elements (``None`` when empty)."""

    element: Shape | None
    length: int = 0


@dataclass(frozen=True)
class Alt:
    """The elements of one array disagree: each option is one of the shapes they take (an
    object in some, ``null`` in others: a state-dependent field)."""

    options: tuple[Leaf | Obj | Arr, ...]


Shape = Leaf | Obj | Arr | Alt


def _string_forms(text: str) -> frozenset[str]:
    if text == "":
        return frozenset({"empty string", "text"})
    if _ONE1.fullmatch(text):
        return frozenset({"one1 address"})
    match = _HEX.fullmatch(text)
    if match is not None:
        digits = match.group(1)
        forms = set()
        if digits == "0" or (digits and digits[0] != "0"):
            forms.add("hex quantity")
        if len(digits) % 2 == 0:
            forms.add("hex data")
            if len(digits) in _WIDTHS:
                forms.add(f"{_WIDTHS[len(digits)]} hex")
        if any(c in "ABCDEF" for c in digits):
            forms.add("upper-case hex digits")
        elif any(c in "abcdef" for c in digits):
            forms.add("lower-case hex digits")
        if not forms & _HEX_READINGS:
            forms.add("malformed hex")
        return frozenset(forms)
    if _DECIMAL.fullmatch(text):
        return frozenset({"decimal string", "text"})
    if _INTEGER_TEXT.fullmatch(text):
        return frozenset({"integer string", "text"})
    return frozenset({"text"})


def _leaf_forms(value: Any) -> frozenset[str]:
    if value is None:
        return frozenset({"null"})
    if isinstance(value, bool):
        return frozenset({"bool"})
    if isinstance(value, int):
        return frozenset({"number"})
    if isinstance(value, float):
        return frozenset({"float"})
    if isinstance(value, str):
        return _string_forms(value)
    raise TypeError(f"not a JSON value: {value!r:.60}")


def shape_of(value: Any) -> Shape:
    """The shape of one decoded JSON value."""
    if isinstance(value, dict):
        return Obj(tuple(value), {k: shape_of(v) for k, v in value.items()})
    if isinstance(value, list):
        return Arr(_merge([shape_of(v) for v in value]), len(value))
    return Leaf(_leaf_forms(value), f"{value!r:.70}")


def _family(leaf: Leaf) -> str:
    for family in ("null", "bool", "number", "float"):
        if family in leaf.forms:
            return family
    return "string"


def _merge_leaves(leaves: Sequence[Leaf]) -> list[Leaf]:
    """Leaves of one family with a common reading become one; others stay apart."""
    out: list[Leaf] = []
    for leaf in leaves:
        for i, kept in enumerate(out):
            common = kept.forms & leaf.forms
            if _family(kept) == _family(leaf) and common - _CASES and _compatible(kept.forms, leaf.forms):
                out[i] = Leaf(common, kept.example)
                break
        else:
            out.append(leaf)
    return out


def _merge(shapes: Sequence[Shape]) -> Shape | None:
    """One shape for the elements of an array (an :class:`Alt` where they disagree)."""
    flat: list[Leaf | Obj | Arr] = []
    for s in shapes:
        flat.extend(s.options if isinstance(s, Alt) else (s,))
    if not flat:
        return None
    options: list[Leaf | Obj | Arr] = _merge_leaves([s for s in flat if isinstance(s, Leaf)])
    objs = [s for s in flat if isinstance(s, Obj)]
    if objs:
        keys: dict[str, None] = {}
        for o in objs:
            keys.update(dict.fromkeys(o.keys))
        fields: dict[str, Shape] = {}
        optional = set().union(*(o.optional for o in objs))
        for k in keys:
            present = [o.fields[k] for o in objs if k in o.fields]
            if len(present) < len(objs):
                optional.add(k)
            merged = _merge(present)
            assert merged is not None
            fields[k] = merged
        options.append(Obj(tuple(keys), fields, frozenset(optional)))
    arrs = [s for s in flat if isinstance(s, Arr)]
    if arrs:
        elements = [a.element for a in arrs if a.element is not None]
        options.append(Arr(_merge(elements), max(a.length for a in arrs)))
    return options[0] if len(options) == 1 else Alt(tuple(options))


def describe(shape: Shape | None) -> str:
    """A short human description of a shape (what a difference line shows)."""
    if shape is None:
        return "(absent)"
    if isinstance(shape, Obj):
        return "object{" + ",".join(shape.keys[:6]) + (",..." if len(shape.keys) > 6 else "") + "}"
    if isinstance(shape, Arr):
        return "[]" if shape.element is None else f"array of {describe(shape.element)}"
    if isinstance(shape, Alt):
        return " or ".join(describe(o) for o in shape.options)
    forms = sorted(shape.forms)
    shown = " / ".join(forms)
    return f"{shown} ({shape.example})" if shape.example else shown


@dataclass(frozen=True)
class Difference:
    """One place where the devnet's answer differs in shape from the real one."""

    path: str
    what: str  # missing key, extra key, spelling, type, form, order, elements
    real: str
    devnet: str

    def line(self, prefix: str) -> str:
        """``<prefix> <path>: <what>: real <real> | devnet <devnet>`` on one line."""
        return f"{prefix} {self.path}: {self.what}: real {self.real} | devnet {self.devnet}"


def _spelling_key(key: str) -> str:
    return key.replace("_", "").replace("-", "").lower()


_CASES = frozenset({"lower-case hex digits", "upper-case hex digits"})


def _compatible(real: frozenset[str], dev: frozenset[str]) -> bool:
    common = real & dev
    if not common - _CASES - {"text"}:
        # "text" is shared by every non-hex string: free text agrees with free text, the
        # empty string and decimals; a decimal or an integer string must stay one
        return "text" in common and not {"decimal string", "integer string"} & (real ^ dev)
    if ("upper-case hex digits" in real and "lower-case hex digits" in dev) or (
        "lower-case hex digits" in real and "upper-case hex digits" in dev
    ):
        return False
    # two fixed widths must agree (a 32-byte hash stays 32 bytes, an address 20); otherwise a
    # quantity's length is its value, and data (input, log data) may have any length
    widths_real = {f for f in real if f.endswith("-byte hex")}
    widths_dev = {f for f in dev if f.endswith("-byte hex")}
    return not (widths_real and widths_dev and widths_real != widths_dev)


def _matches(real: Leaf | Obj | Arr, dev: Leaf | Obj | Arr) -> bool:
    """Whether a devnet option is the same kind as the real shape (leaves: compatible forms)."""
    if isinstance(real, Leaf) and isinstance(dev, Leaf):
        return _compatible(real.forms, dev.forms)
    return type(real) is type(dev)


def _what(real: Leaf | Obj | Arr, dev: Alt) -> str:
    leaf = isinstance(real, Leaf) and any(isinstance(o, Leaf) for o in dev.options)
    return "form" if leaf else "type"


@dataclass
class _Walk:
    check_order: bool
    out: list[Difference] = field(default_factory=list)

    def add(self, path: str, what: str, real: str, devnet: str) -> None:
        self.out.append(Difference(path, what, real, devnet))

    def walk(self, real: Shape, dev: Shape, path: str) -> None:
        if isinstance(real, Alt):
            for option in real.options:
                self.walk(option, dev, path)
            return
        if isinstance(dev, Alt):
            # the devnet sends several shapes here (elements in different states): the real
            # one must be among them
            matches = [o for o in dev.options if _matches(real, o)]
            if not matches:
                self.add(path, _what(real, dev), describe(real), describe(dev))
                return
            dev = matches[0]
        if isinstance(real, Obj) and isinstance(dev, Obj):
            self.objects(real, dev, path)
        elif isinstance(real, Arr) and isinstance(dev, Arr):
            if real.element is None:
                return  # nothing real to compare the devnet's elements with
            if dev.element is None:
                self.add(
                    f"{path}[]",
                    "elements",
                    f"{real.length} x {describe(real.element)}",
                    "[] (nothing compared)",
                )
                return
            self.walk(real.element, dev.element, f"{path}[]")
        elif isinstance(real, Leaf) and isinstance(dev, Leaf):
            if not _compatible(real.forms, dev.forms):
                self.add(path, "form", describe(real), describe(dev))
        else:
            self.add(path, "type", describe(real), describe(dev))

    def objects(self, real: Obj, dev: Obj, path: str) -> None:
        missing = [k for k in real.keys if k not in dev.fields and k not in real.optional]
        extra = [k for k in dev.keys if k not in real.fields and k not in dev.optional]
        respelled = {}
        for k in missing:
            twins = [e for e in extra if _spelling_key(e) == _spelling_key(k)]
            if len(twins) == 1:
                respelled[k] = twins[0]
        for k in missing:
            if k in respelled:
                self.add(f"{path}.{k}", "spelling", repr(k), repr(respelled[k]))
            else:
                self.add(f"{path}.{k}", "missing key", describe(real.fields[k]), "(absent)")
        for k in extra:
            if k not in respelled.values():
                self.add(f"{path}.{k}", "extra key", "(absent)", describe(dev.fields[k]))
        for k in real.keys:
            if k in dev.fields:
                self.walk(real.fields[k], dev.fields[k], f"{path}.{k}")
        if self.check_order:
            common_real = [k for k in real.keys if k in dev.fields]
            common_dev = [k for k in dev.keys if k in real.fields]
            if common_real != common_dev:
                self.add(path, "key order", ",".join(common_real), ",".join(common_dev))


def differences(
    real: Any, devnet: Any, *, path: str = "result", check_order: bool = True
) -> list[Difference]:
    """Every shape difference between a real answer and the devnet's (decoded JSON values).

    Parameters
    ----------
    real, devnet
        The two ``result`` values.
    path
        The name of the root in the reported paths.
    check_order
        Also compare the order of the keys both objects have (only where the real answer's
        order is the node's: a publisher that re-sorted keys tells nothing about it).
    """
    walk = _Walk(check_order)
    walk.walk(shape_of(real), shape_of(devnet), path)
    return walk.out


def key_orders(value: Any, path: str = "result") -> Iterator[tuple[str, tuple[str, ...]]]:
    """Every object of a decoded JSON value with its path (array elements as ``[]``) and keys."""
    if isinstance(value, dict):
        yield path, tuple(value)
        for k, v in value.items():
            yield from key_orders(v, f"{path}.{k}")
    elif isinstance(value, list):
        for v in value:
            yield from key_orders(v, f"{path}[]")


def subsequence(keys: Iterable[str], order: Sequence[str]) -> bool:
    """True when ``keys`` appear in ``order``'s order (all of them listed there)."""
    position = {k: i for i, k in enumerate(order)}
    last = -1
    for k in keys:
        if k not in position or position[k] < last:
            return False
        last = position[k]
    return True
