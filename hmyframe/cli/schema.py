"""``hmyframe schema [DATASET]``: list the datasets, or print one dataset's columns."""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any

from hmyframe.datasets import DATASETS, describe, get
from hmyframe.datasets.docs import render_dataset

__all__ = ["register", "run"]


def register(subparsers: Any) -> None:
    """Add the ``schema`` sub-command."""
    parser = subparsers.add_parser(
        "schema",
        help="list the datasets, or show a dataset's columns (name, Arrow type, description)",
        description="Without DATASET, list the datasets; with it, print its columns.",
    )
    parser.add_argument("dataset", nargs="?", metavar="DATASET", help=f"one of: {', '.join(DATASETS)}")
    parser.add_argument(
        "--format",
        choices=("text", "markdown", "json"),
        default="text",
        help="output format (default: text)",
    )
    parser.set_defaults(handler=run)


def _table(rows: list[tuple[str, ...]]) -> str:
    widths = [max(len(r[i]) for r in rows) for i in range(len(rows[0]) - 1)]
    return "\n".join(
        "  ".join([*(c.ljust(w) for c, w in zip(r[:-1], widths, strict=False)), r[-1]]).rstrip() for r in rows
    )


def run(args: argparse.Namespace) -> int:
    """Print the listing or the schema; return 0 (an unknown name raises ConfigError)."""
    fmt: str = args.format
    if args.dataset is None:
        if fmt == "json":
            out = json.dumps(
                [
                    {"name": d.name, "description": d.description, "source": d.source}
                    for d in DATASETS.values()
                ],
                indent=2,
            )
        elif fmt == "markdown":
            out = "\n".join(
                ["| dataset | description |", "|---|---|"]
                + [f"| `{d.name}` | {d.description} |" for d in DATASETS.values()]
            )
        else:
            out = _table([("DATASET", "DESCRIPTION"), *((d.name, d.description) for d in DATASETS.values())])
        sys.stdout.write(out + "\n")
        return 0
    ds = get(args.dataset)
    if fmt == "json":
        out = json.dumps(
            {
                "name": ds.name,
                "description": ds.description,
                "source": ds.source,
                "sort_by": list(ds.sort_by),
                "fingerprint": ds.fingerprint,
                "columns": [
                    {"name": f.name, "type": str(f.type), "description": describe(f)} for f in ds.schema
                ],
            },
            indent=2,
        )
    elif fmt == "markdown":
        out = render_dataset(ds, heading="##")
    else:
        header = f"{ds.name}: {ds.description}\nsorted by {', '.join(ds.sort_by)}; fingerprint {ds.fingerprint}\n\n"
        out = header + _table(
            [("COLUMN", "ARROW TYPE", "DESCRIPTION")]
            + [(f.name, str(f.type), describe(f)) for f in ds.schema]
        )
    sys.stdout.write(out + "\n")
    return 0
