"""Text chosen by strangers, made safe to show: the one helper every plot, table and report uses.

Token names and symbols come from whoever deployed the contract, validator names, identities,
websites and details from whoever created the validator. Any of them may be ten thousand
characters long, reverse the text after it (U+202E RIGHT-TO-LEFT OVERRIDE shows "\\u202eevil"
as "live"), hide characters (zero-width ones), or carry control characters (newlines, NUL, BEL,
ANSI escapes). Shown as they are they break a chart's layout, a table's width, a terminal, or
mislead the reader. So before any chain text is shown:

* :func:`visible` writes every character a reader would not see as itself as a visible escape
  (``\\u202e``, ``\\n``, ``\\x00``, ``\\U000e0041``): control (Cc), format (Cf: bidi controls,
  zero-width characters, the BOM), line and paragraph separators (Zl, Zp), private-use,
  surrogate and unassigned code points, and combining marks piled beyond two on one character;
  a display that lacks glyphs (a plot's font) names what it can show (``keep``);
* :func:`shorten` cuts it to a display width (wide East Asian characters count two) with an
  ellipsis, never inside an escape;
* :func:`labelled` puts the (shortened) address beside it, so two tokens or validators with the
  same or an empty name stay apart.

HTML escaping stays the page's job (``html.escape`` in :mod:`hmyframe.report._html`), and
matplotlib's mathtext dollars the plots' (:func:`hmyframe.plot._style.plot_text`).
"""

from __future__ import annotations

import unicodedata
from collections.abc import Callable
from typing import Final

__all__ = ["chain_text", "labelled", "short_address", "shorten", "visible"]

_NAMED: Final = {"\n": "\\n", "\r": "\\r", "\t": "\\t"}
_HIDDEN: Final = frozenset({"Cc", "Cf", "Cs", "Co", "Cn", "Zl", "Zp"})
_MARKS: Final = frozenset({"Mn", "Me"})
_MAX_MARKS: Final = 2  # combining marks kept on one character (accents); more pile up out of the line
ELLIPSIS: Final = "…"


def _escape(char: str) -> str:
    named = _NAMED.get(char)
    if named is not None:
        return named
    code = ord(char)
    if code < 0x100:
        return f"\\x{code:02x}"
    if code < 0x10000:
        return f"\\u{code:04x}"
    return f"\\U{code:08x}"


def _pieces(text: str, keep: Callable[[str], bool] | None) -> list[str]:
    """Each character of ``text`` as what is shown for it (itself or its escape)."""
    out: list[str] = []
    marks = 0
    for char in text:
        category = unicodedata.category(char)
        if category in _MARKS:
            marks += 1
            hidden = marks > _MAX_MARKS
        else:
            marks = 0
            hidden = category in _HIDDEN
        if not hidden and keep is not None and char != " " and not keep(char):
            hidden = True
        out.append(_escape(char) if hidden else char)
    return out


def _width(piece: str) -> int:
    if len(piece) == 1:
        if unicodedata.category(piece) in _MARKS:
            return 0
        return 2 if unicodedata.east_asian_width(piece) in ("W", "F") else 1
    return len(piece)  # an escape: ASCII


def visible(text: str, keep: Callable[[str], bool] | None = None) -> str:
    """``text`` with every character a reader would not see as itself written as an escape.

    Parameters
    ----------
    text
        Any text (a token name, a validator's details...).
    keep
        ``keep(char)``: whether the display can show ``char`` (a font's glyphs); characters it
        cannot are escaped too. ``None``: every printable character is shown as itself.

    Examples
    --------
    >>> visible("\\u202eevil")
    '\\\\u202eevil'
    >>> visible("two\\nlines\\x00")
    'two\\\\nlines\\\\x00'
    """
    return "".join(_pieces(text, keep))


def shorten(text: str, width: int) -> str:
    """``text`` cut to at most ``width`` display columns, ending in an ellipsis when cut (wide
    characters count two; an escape written by :func:`visible` is never cut in two)."""
    return _fit(_pieces(text, None), width)


def _fit(pieces: list[str], width: int) -> str:
    if sum(_width(p) for p in pieces) <= width:
        return "".join(pieces)
    out: list[str] = []
    used = 0
    for piece in pieces:
        w = _width(piece)
        if used + w > width - 1:
            break
        out.append(piece)
        used += w
    return "".join(out).rstrip() + ELLIPSIS


def chain_text(value: object, width: int = 32, keep: Callable[[str], bool] | None = None) -> str | None:
    """Chain-chosen ``value`` as safe text: invisible characters escaped, cut to ``width``
    columns; ``None`` for a missing value (``None``, NA, not a string) or blank text."""
    if not isinstance(value, str) or not value.strip():
        return None
    return _fit(_pieces(value, keep), width)


def short_address(address: object) -> str:
    """``0x12345678…cdef`` / ``one1abcd…wxyz``: the start and the end of an address."""
    text = visible(str(address))
    return f"{text[:8]}{ELLIPSIS}{text[-4:]}" if len(text) > 14 else text


def labelled(
    name: object, address: object, width: int = 24, keep: Callable[[str], bool] | None = None
) -> str:
    """A name with its address beside it: ``"Alpha · one1qqsx…8ay9"``; the address alone when
    there is no name. The name is made safe by :func:`chain_text` (cut to ``width``)."""
    text = chain_text(name, width, keep)
    short = short_address(address)
    return f"{text} · {short}" if text else short
