"""The dataset reference of the docs (``docs/datasets.md``), generated from the schemas.

``python -m hmyframe.datasets.docs`` prints the Markdown; ``--write docs/datasets.md`` rewrites
the block between ``<!-- datasets:start -->`` and ``<!-- datasets:end -->``;
``--check docs/datasets.md`` exits 1 when that block is out of date.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from pathlib import Path

from hmyframe.errors import ConfigError

from . import DATASETS
from ._base import Dataset, describe

__all__ = ["END", "PAGE", "START", "main", "render", "render_dataset", "replace_block"]

#: The docs page holding the generated block, relative to the repository root.
PAGE = "docs/datasets.md"
START = "<!-- datasets:start -->"
END = "<!-- datasets:end -->"


def _cell(text: str) -> str:
    return text.replace("|", "\\|")


def render_dataset(ds: Dataset, heading: str = "###") -> str:
    """Markdown for one dataset: heading, description, source, sort order and column table."""
    lines = [
        f"{heading} `{ds.name}`",
        "",
        _cell(ds.description),
        "",
        f"Source `{ds.source}` ({_cell(', '.join(ds.methods))}); sorted by {', '.join(f'`{c}`' for c in ds.sort_by)}.",
        "",
        "| column | Arrow type | description |",
        "|---|---|---|",
    ]
    lines += [f"| `{f.name}` | `{f.type}` | {_cell(describe(f))} |" for f in ds.schema]
    return "\n".join(lines)


def render() -> str:
    """The whole generated block (without the markers); each dataset under a level-2 heading."""
    parts = [
        f"Generated from the schemas by `python -m hmyframe.datasets.docs --write {PAGE}`; "
        "`hmyframe schema DATASET` prints the same. Exact amounts are `decimal128(38, 0)` in atto; "
        "times are `timestamp[ms, tz=UTC]`; addresses come as `one1...` with a `*_hex` column beside.",
        "",
        "| dataset | description |",
        "|---|---|",
        *(f"| [`{name}`](#{name}) | {_cell(ds.description)} |" for name, ds in DATASETS.items()),
    ]
    body = "\n".join(parts)
    details = "\n\n".join(render_dataset(ds, heading="##") for ds in DATASETS.values())
    return f"{body}\n\n{details}\n"


def replace_block(text: str, block: str) -> str:
    """``text`` with the content between the markers replaced by ``block``."""
    start = text.find(START)
    end = text.find(END)
    if start < 0 or end < start:
        raise ConfigError(f"the file has no {START} ... {END} block to rewrite")
    return text[: start + len(START)] + "\n" + block + text[end:]


def main(argv: Sequence[str] | None = None) -> int:
    """Command-line entry: print, ``--write FILE`` or ``--check FILE``."""
    parser = argparse.ArgumentParser(prog="python -m hmyframe.datasets.docs", description=__doc__)
    group = parser.add_mutually_exclusive_group()
    group.add_argument("--write", metavar="FILE", help="rewrite the datasets block of FILE")
    group.add_argument("--check", metavar="FILE", help="exit 1 if the datasets block of FILE is stale")
    args = parser.parse_args(argv)
    block = render()
    if args.write is None and args.check is None:
        sys.stdout.write(block)
        return 0
    path = Path(args.write or args.check)
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as exc:
        raise ConfigError(f"cannot read {path}: {exc}") from None
    new = replace_block(text, block)
    if args.check is not None:
        if new != text:
            sys.stderr.write(f"{path}: the datasets block is out of date; run with --write {path}\n")
            return 1
        return 0
    if new != text:
        path.write_text(new, encoding="utf-8")
    return 0


if __name__ == "__main__":  # pragma: no cover
    raise SystemExit(main())
