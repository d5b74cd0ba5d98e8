"""Checks that an answer of the corpus looks like what a node said, not like a documentation example.

A node never answers with an ellipsis, a ``<placeholder>``, a ``{{template}}``, a made-up hash
(``0x1234...``, ``0xdeadbeef``, a run of one digit), a ``one1`` address whose bech32 checksum is
wrong, or a hash or address of the wrong length. Documentation writers do. These functions walk
any JSON value and return what they find, as ``"<path>: <reason>"`` lines (empty: nothing found).

* :func:`placeholder_findings`: placeholders and invented values (keys and strings).
* :func:`malformed_findings`: hashes and addresses of the wrong shape under keys that always
  hold one (``blockHash``, ``transactionHash``, ``from``...).
* :func:`float_paths`: numbers that are not integers (a node prints integers; a float shows the
  answer went through a float64, as the go-sdk CLI's output does).
* :func:`bech32_valid`: the ``one1`` checksum, by the tests' own codec (:mod:`bech32_codec`),
  independent of hmyframe's so that the corpus does not check hmyframe with hmyframe.

The detector is tuned to catch what a writer types by hand while never firing on random hex:
each hex pattern it looks for has a chance below 1e-8 per position in a real hash, and the
hex patterns are looked for in strings of at most 80 characters only (hashes, addresses,
topics, quantities; not bytecode or call data).
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

from bech32_codec import bech32_valid

__all__ = ["bech32_valid", "float_paths", "malformed_findings", "placeholder_findings"]

# ------------------------------------------------------------------------------ placeholders

_TEXT_PATTERNS: tuple[tuple[re.Pattern[str], str], ...] = (
    (re.compile(r"\.\.\.|\u2026"), "an ellipsis (the example was cut short)"),
    (re.compile(r"<[A-Za-z][A-Za-z0-9 _\-.]{0,40}>"), "a <placeholder>"),
    (re.compile(r"\{\{.*?\}\}|\$\{.*?\}"), "a template variable"),
    (
        re.compile(r"(?i)\b(your[_-]|replace[_ -]?me|placeholder|lorem ipsum|todo\b|fixme\b)"),
        "placeholder wording",
    ),
    (re.compile(r"(?i)(?:^|[^a-z0-9])x{3,}(?:$|[^a-z0-9])|0x[xX]{2,}"), "an xxx placeholder"),
)

#: Hex words a writer invents (8+ fixed characters: chance < 16**-8 per position by accident).
_INVENTED_HEX = re.compile(r"deadbeef|cafebabe|feedface|badc0ffee|0ddba11", re.I)
#: A keyboard run: 8+ hex digits each one more (or one less) than the last, ``f`` wrapping to ``0``.
RUN_LENGTH = 8


def _keyboard_run(body: str) -> str | None:
    digits = [int(c, 16) for c in body]
    for step in (1, -1):
        start = 0
        for i in range(1, len(digits) + 1):
            if i < len(digits) and digits[i] == (digits[i - 1] + step) % 16:
                continue
            if i - start >= RUN_LENGTH:
                return body[start:i]
            start = i
    return None


#: One digit other than 0 and f repeated 10+ times (zeros and ff runs are real: padding, masks).
_REPEATED_DIGIT = re.compile(r"([1-9a-eA-E])\1{9,}")
#: A block of 2-4 characters (not only 0s and fs) repeated to 16+ characters (``0x1234123412341234``).
_REPEATED_BLOCK = re.compile(r"([0-9a-fA-F]{2,4}?)\1{3,}")
#: Hex heuristics look at hashes, addresses, topics and quantities (with a margin for a mistyped
#: length) only: long data (bytecode,
#: call input, blooms) legitimately holds constants such as ``0x5555...`` bit masks.
HEX_CHECKED_LENGTH = 80


def _hex_findings(text: str) -> Iterator[str]:
    if len(text) > HEX_CHECKED_LENGTH:
        return
    body = text[2:]
    match = _INVENTED_HEX.search(body)
    if match:
        yield f"an invented hex word ({match.group(0)})"
        return
    run = _keyboard_run(body)
    if run:
        yield f"a keyboard run ({run})"
        return
    match = _REPEATED_DIGIT.search(body)
    if match:
        yield f"a run of one digit ({match.group(0)[:12]})"
        return
    for match in _REPEATED_BLOCK.finditer(body):
        block = match.group(1)
        if len(match.group(0)) >= 16 and len(set(block)) > 1 and set(block.lower()) - {"0", "f"}:
            yield f"a repeated block ({match.group(0)[:16]})"
            return


def _text_findings(text: str) -> Iterator[str]:
    for pattern, reason in _TEXT_PATTERNS:
        if pattern.search(text):
            yield reason
    if re.fullmatch(r"0x[0-9a-fA-F]*", text):
        yield from _hex_findings(text)
    elif text.startswith("0x") and re.fullmatch(r"0x\w+", text):
        yield "not hex after 0x"
    if re.fullmatch(r"(?i)one1[0-9a-z]+", text) and not bech32_valid(text):
        yield "a one1 address with a bad bech32 checksum or length"


def _walk(value: Any, path: str) -> Iterator[tuple[str, Any]]:
    yield path, value
    if isinstance(value, dict):
        for key, item in value.items():
            yield f"{path}.{key}#key", key
            yield from _walk(item, f"{path}.{key}")
    elif isinstance(value, list):
        for index, item in enumerate(value):
            yield from _walk(item, f"{path}[{index}]")


def placeholder_findings(value: Any, path: str = "$") -> list[str]:
    """Placeholders and invented values anywhere in ``value`` (keys and strings).

    Parameters
    ----------
    value
        Any JSON value (as :func:`json.loads` gives it).
    path
        The name of ``value`` in the messages.

    Returns
    -------
    list of str
        ``"<path>: <reason> in <text>"`` for each finding, in document order.
    """
    found = []
    for where, item in _walk(value, path):
        if isinstance(item, str):
            found += [f"{where}: {reason} in {item[:60]!r}" for reason in _text_findings(item)]
    return found


# ---------------------------------------------------------------------------------- shapes

#: Keys whose value is always a 32-byte hash (or null where the node has none).
HASH_KEYS = frozenset(
    {
        "hash",
        "blockHash",
        "parentHash",
        "transactionHash",
        "ethHash",
        "stateRoot",
        "receiptsRoot",
        "transactionsRoot",
        "mixHash",
        "sha3Uncles",
        "codeHash",
        "storageHash",
        "txHash",
    }
)
#: Keys whose value is always an address: ``0x`` + 40 hex digits or a ``one1`` address.
ADDRESS_KEYS = frozenset(
    {"from", "to", "miner", "address", "contractAddress", "validatorAddress", "delegatorAddress", "sender"}
)


def malformed_findings(value: Any, path: str = "$") -> list[str]:
    """Hashes and addresses of the wrong shape under keys that always hold one.

    ``null`` is accepted everywhere (pending or absent), and so is ``""`` for an address (a
    contract creation's ``to``). ``hash`` inside a trace's ``action`` and the like are not
    special: only the keys of :data:`HASH_KEYS` and :data:`ADDRESS_KEYS` are looked at, and
    only where they hold a string.
    """
    found = []
    for where, item in _walk(value, path):
        if not isinstance(item, str) or where.endswith("#key"):
            continue
        key = where.rsplit(".", 1)[-1]
        if key in HASH_KEYS and not re.fullmatch(r"0x[0-9a-fA-F]{64}", item):
            found.append(f"{where}: not a 32-byte hash: {item[:70]!r}")
        if (
            key in ADDRESS_KEYS
            and item
            and not (re.fullmatch(r"0x[0-9a-fA-F]{40}", item) or bech32_valid(item))
        ):
            found.append(f"{where}: not an address: {item[:60]!r}")
    return found


def float_paths(value: Any, path: str = "$") -> list[str]:
    """Where ``value`` holds a number that is not an integer (``3.46e+19``, ``0.5``)."""
    return [f"{where}: {item!r}" for where, item in _walk(value, path) if isinstance(item, float)]
