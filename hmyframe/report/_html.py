"""One self-contained HTML page: summary figures, charts embedded as SVG data, tables.

A :class:`Page` collects sections and renders a file that needs nothing else to be viewed
(no script, no font, no network: charts are ``data:image/svg+xml`` images) and prints on A4
without cutting a chart or a table row in two.
"""

from __future__ import annotations

import base64
import datetime as dt
import html
import io
import math
import os
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pandas as pd
from matplotlib.axes import Axes
from matplotlib.figure import Figure

from hmyframe.errors import ConfigError, short_repr
from hmyframe.plot import RC, style

__all__ = ["Card", "Column", "Page", "chart", "output_path"]

_CSS = """
:root { --ink: #1f2328; --muted: #5f6b76; --line: #d8dee4; --accent: #0072B2; --bad: #D55E00; }
* { box-sizing: border-box; }
body { margin: 0; font-family: "DejaVu Sans", "Helvetica Neue", Arial, sans-serif; color: var(--ink);
       background: #fff; font-size: 14px; line-height: 1.45; }
main { max-width: 1000px; margin: 0 auto; padding: 28px 24px 48px; }
header h1 { font-size: 26px; margin: 0 0 4px; overflow-wrap: break-word; }
header p { margin: 2px 0; color: var(--muted); }
h2 { font-size: 19px; margin: 34px 0 10px; padding-bottom: 4px; border-bottom: 2px solid var(--line); }
h3 { font-size: 15px; margin: 18px 0 8px; }
.cards { display: grid; grid-template-columns: repeat(auto-fill, minmax(185px, 1fr)); gap: 10px; margin: 16px 0; }
.card { border: 1px solid var(--line); border-radius: 6px; padding: 10px 12px; break-inside: avoid; }
.card .label { font-size: 12px; color: var(--muted); text-transform: uppercase; letter-spacing: .03em; }
.card .value { font-size: 21px; font-weight: bold; margin-top: 2px; font-variant-numeric: tabular-nums; }
.card .note { font-size: 12px; color: var(--muted); }
.card .unit { font-size: 13px; font-weight: normal; color: var(--muted); }
figure { margin: 14px 0 22px; break-inside: avoid; page-break-inside: avoid; }
figure img { display: block; width: 100%; height: auto; max-width: 900px; }
figcaption { font-size: 12.5px; color: var(--muted); margin-top: 4px; }
table { border-collapse: collapse; width: 100%; font-size: 12.5px; margin: 6px 0 18px; }
th, td { padding: 4px 8px; border-bottom: 1px solid var(--line); text-align: left; vertical-align: top; }
th { background: #f4f6f8; font-weight: bold; }
td.num, th.num { text-align: right; font-variant-numeric: tabular-nums; white-space: nowrap; }
td.chain { overflow-wrap: anywhere; min-width: 9em; }
td.mono { font-family: "DejaVu Sans Mono", monospace; font-size: 11.5px; word-break: break-all; }
tr { break-inside: avoid; page-break-inside: avoid; }
thead { display: table-header-group; }
p.note, p.empty { color: var(--muted); }
p.empty { font-style: italic; }
footer { margin-top: 40px; font-size: 12px; color: var(--muted); border-top: 1px solid var(--line); padding-top: 8px; }
@media print {
  @page { size: A4; margin: 14mm; }
  main { max-width: none; padding: 0; }
  body { font-size: 11pt; }
  h2, h3 { break-after: avoid; page-break-after: avoid; }
  figure img { width: auto; max-width: 100%; max-height: 118mm; margin: 0 auto; }
  p.note { break-after: avoid; }
  table { font-size: 8.5pt; }
  td.mono { font-size: 7pt; min-width: 48mm; }
  .cards { grid-template-columns: repeat(3, 1fr); }
}
"""


def chart(draw: Callable[[Axes], Any], size: tuple[float, float] | None = None) -> str:
    """Draw one chart on a fresh figure (no pyplot, no global state) and return it as a
    ``data:image/svg+xml;base64,...`` URI."""
    with style():
        figure = Figure(figsize=size or RC["figure.figsize"], layout="constrained")
        ax = figure.add_subplot()
        draw(ax)
        buffer = io.BytesIO()
        figure.savefig(buffer, format="svg", metadata={"Date": None})
    return "data:image/svg+xml;base64," + base64.b64encode(buffer.getvalue()).decode("ascii")


@dataclass(frozen=True)
class Card:
    """One summary figure: a label, the value as text, an optional note under it."""

    label: str
    value: str
    note: str = ""


@dataclass(frozen=True)
class Column:
    """A table column: the frame's column, its heading, how to show a value, alignment.

    ``chain``: the column holds text chosen on chain (names, symbols), already made safe and
    short by :mod:`hmyframe._text`; its cells may break anywhere, so no run of characters
    without a space widens the table beyond the page.
    """

    key: str
    heading: str
    format: Callable[[Any], str] = str
    numeric: bool = False
    mono: bool = False
    chain: bool = False


def _cell(value: Any, column: Column) -> str:
    if value is None or value is pd.NA or (isinstance(value, float) and math.isnan(value)):
        text = "–"
    else:
        text = column.format(value)
    flags = (("num", column.numeric), ("mono", column.mono), ("chain", column.chain))
    classes = " ".join(c for c, on in flags if on)
    attr = f' class="{classes}"' if classes else ""
    return f"<td{attr}>{html.escape(text)}</td>"


@dataclass
class Page:
    """A report page under construction; :meth:`render` gives the HTML text."""

    title: str
    subtitle: Sequence[str] = ()
    parts: list[str] = field(default_factory=list)
    charts: int = 0

    def section(self, heading: str, intro: str = "") -> None:
        """Start a section (``<h2>``), with an optional introductory sentence."""
        self.parts.append(f"<h2>{html.escape(heading)}</h2>")
        if intro:
            self.parts.append(f'<p class="note">{html.escape(intro)}</p>')

    def heading(self, text: str) -> None:
        """A sub-heading (``<h3>``)."""
        self.parts.append(f"<h3>{html.escape(text)}</h3>")

    def note(self, text: str) -> None:
        """A grey paragraph."""
        self.parts.append(f'<p class="note">{html.escape(text)}</p>')

    def cards(self, cards: Iterable[Card]) -> None:
        """A grid of summary figures."""
        items = []
        for card in cards:
            note = f'<div class="note">{html.escape(card.note)}</div>' if card.note else ""
            value = html.escape(card.value)
            if value.endswith(" ONE"):  # the unit smaller, so long amounts keep to one line
                value = value[:-4] + ' <span class="unit">ONE</span>'
            items.append(
                f'<div class="card"><div class="label">{html.escape(card.label)}</div>'
                f'<div class="value">{value}</div>{note}</div>'
            )
        self.parts.append(f'<div class="cards">{"".join(items)}</div>')

    def figure(
        self, draw: Callable[[Axes], Any], caption: str, size: tuple[float, float] | None = None
    ) -> None:
        """A chart (drawn by ``draw(ax)``), embedded as SVG data, with its caption."""
        self.charts += 1
        uri = chart(draw, size)
        alt = html.escape(caption, quote=True)
        self.parts.append(
            f'<figure><img class="chart" src="{uri}" alt="{alt}">'
            f"<figcaption>{html.escape(caption)}</figcaption></figure>"
        )

    def table(
        self, frame: pd.DataFrame, columns: Sequence[Column], *, empty: str = "Nothing to list."
    ) -> None:
        """A table of ``frame``'s rows (an empty frame gives the ``empty`` sentence)."""
        if frame.empty:
            self.parts.append(f'<p class="empty">{html.escape(empty)}</p>')
            return
        head = "".join(
            f"<th{' class=num' if c.numeric else ''}>{html.escape(c.heading)}</th>" for c in columns
        )
        rows = []
        for record in frame.to_dict("records"):
            rows.append("<tr>" + "".join(_cell(record.get(c.key), c) for c in columns) + "</tr>")
        self.parts.append(f"<table><thead><tr>{head}</tr></thead><tbody>{''.join(rows)}</tbody></table>")

    def render(self) -> str:
        """The complete HTML document."""
        generated = dt.datetime.now(dt.UTC).strftime("%Y-%m-%d %H:%M UTC")
        from hmyframe._version import __version__

        lines = "".join(f"<p>{html.escape(line)}</p>" for line in self.subtitle)
        return (
            "<!DOCTYPE html>\n"
            '<html lang="en"><head><meta charset="utf-8">'
            '<meta name="viewport" content="width=device-width, initial-scale=1">'
            f"<title>{html.escape(self.title)}</title><style>{_CSS}</style></head>"
            f"<body><main><header><h1>{html.escape(self.title)}</h1>{lines}</header>"
            + "".join(self.parts)
            + f"<footer>Written by hmyframe {html.escape(__version__)} on {generated}. "
            "Amounts in ONE (1 ONE = 10<sup>18</sup> atto; sums computed exactly in atto); times in UTC. "
            "The charts are embedded in this file: no network is needed to view or print it.</footer>"
            "</main></body></html>\n"
        )


def output_path(out: object) -> Path:
    """Check the ``out`` argument of a report: a path ending in ``.html`` whose folder exists
    or can be made."""
    if not isinstance(out, str | os.PathLike):
        raise ConfigError(f"out must be a path to an .html file, got {short_repr(out)}")
    path = Path(out)
    if path.suffix.lower() not in (".html", ".htm"):
        raise ConfigError(f"out must name an .html file, got {str(path)!r}")
    if path.exists() and path.is_dir():
        raise ConfigError(f"out {str(path)!r} is a folder; give a file name ending in .html")
    return path


def write(page: Page, out: Path) -> Path:
    """Write the page atomically (a temporary file renamed into place)."""
    out.parent.mkdir(parents=True, exist_ok=True)
    temporary = out.with_name(f".{out.name}.{os.getpid()}.tmp")
    temporary.write_text(page.render(), encoding="utf-8")
    temporary.replace(out)
    return out
