"""The ``hmyframe`` command line.

Each command lives in its own module in this package and exposes two functions:

* ``register(subparsers)``: add its sub-parser (``subparsers.add_parser(NAME, ...)``) and
  ``set_defaults(handler=run)``;
* ``run(args) -> int``: do the work and return the process exit code.

Add a command by writing the module and naming it in ``COMMANDS``.
"""

from __future__ import annotations

import argparse
import gc
import importlib
import sys
from collections.abc import Sequence

from hmyframe.errors import HmyframeError

__all__ = ["COMMANDS", "build_parser", "main"]

#: Modules of ``hmyframe.cli`` that define a command, in ``--help`` order.
COMMANDS: tuple[str, ...] = (
    "demo",
    "export",
    "events",
    "accounts",
    "report",
    "head",
    "shards",
    "cache",
    "sql",
    "schema",
    "devnet",
)


def build_parser(only: str | None = None) -> argparse.ArgumentParser:
    """Build the top-level parser with every command of ``COMMANDS`` registered.

    Parameters
    ----------
    only
        Register this command alone (``main`` does when the command line names one: each
        command module imports what its command needs, so ``hmyframe export`` does not load
        the report's pandas and matplotlib).
    """
    from hmyframe._version import __version__

    parser = argparse.ArgumentParser(
        prog="hmyframe",
        description="Harmony blockchain data as exact, typed pandas DataFrames.",
    )
    parser.add_argument("--version", action="version", version=f"hmyframe {__version__}")
    subparsers = parser.add_subparsers(dest="command", metavar="COMMAND")
    for name in COMMANDS if only is None else (only,):
        module = importlib.import_module(f"hmyframe.cli.{name}")
        module.register(subparsers)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line; return the exit code (0 ok, 1 error, 2 usage, 130 interrupted).

    Without ``argv`` (the ``hmyframe`` command, ``python -m hmyframe``: the words of
    ``sys.argv``) it owns its process, and imports aiohttp without the CA certificates aiohttp
    loads at import for its default TLS contexts (``hmyframe._lazy.
    aiohttp_without_default_certificates``: ~35 ms of every command's start; ``https`` requests
    carry a verified context of hmyframe's own). Given ``argv`` (a caller's own interpreter),
    aiohttp is left as it is.
    """
    if argv is None:
        from hmyframe._lazy import aiohttp_without_default_certificates

        aiohttp_without_default_certificates()
    words = list(sys.argv[1:] if argv is None else argv)
    # the first word not starting with "-" is the command (the top level takes no valued option)
    command = next((w for w in words if not w.startswith("-")), None)
    parser = build_parser(command if command in COMMANDS else None)
    args = parser.parse_args(words)
    handler = getattr(args, "handler", None)
    if handler is None:
        parser.print_help()
        return 2
    # the modules imported so far live as long as the process: frozen, the collector's full
    # passes stop walking them (each such pass cost ~15 ms of a validator snapshot's ~100);
    # unfrozen after, so a caller running commands in its own process (tests) collects as before
    gc.freeze()
    try:
        code: int = handler(args)
    except HmyframeError as exc:
        print(f"hmyframe {args.command}: error: {exc}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        print(f"hmyframe {args.command}: interrupted", file=sys.stderr)
        return 130
    finally:
        gc.unfreeze()
    return code


if __name__ == "__main__":  # pragma: no cover
    raise SystemExit(main())
