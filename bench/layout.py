"""The layout's figures: what a newcomer trips over, counted from the source (no timing).

* **private imports across packages**: imports that reach into another package's ``_module`` or
  ``_name`` (the rule of ``tests/test_layout.py``, which states it precisely), as statements,
  imported names and files;
* **functions over 80 lines** outside ``hmyframe/devnet/`` (``def`` line to last line, the
  docstring included), and how many of them carry a ``# long:`` reason;
* **README lines**;
* **doors per public function**: for each public function (``hmyframe.aio``'s), the names it
  can be called by under ``hmyframe``: attributes of a public module (no ``_part`` in its
  dotted name) that are the coroutine or a twin wrapping it, plus those of a private module
  another package imports it from (the before state's ``engine._public``), plus ``fetch(name)``
  where it takes the dataset by name without a deprecation warning. Counted once ``hmyframe``,
  ``hmyframe.aio``, every name of ``hmyframe.__all__`` and (if it exists) ``hmyframe.api`` are
  imported.

Usage::

    python bench/layout.py [-v]
"""

from __future__ import annotations

import argparse
import importlib
import inspect
import sys
import warnings
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests"))

from test_layout import long_functions, private_imports  # noqa: E402


def _doors() -> dict[str, int]:
    """Per public function, the ways to call it (see the module docstring)."""
    import hmyframe
    import hmyframe.aio as aio

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            importlib.import_module("hmyframe.api")
        except ImportError:
            pass
        for name in hmyframe.__all__:  # every twin hmyframe makes on first use, made now
            getattr(hmyframe, name)
    coroutines = {
        name: value
        for name, value in vars(aio).items()
        if not name.startswith("_")
        and (inspect.iscoroutinefunction(value) or inspect.isasyncgenfunction(value))
    }
    # private modules other packages import from (the rule of tests/test_layout.py)
    reached = {f.target.rsplit(".", 1)[0] for f in private_imports()} | {f.target for f in private_imports()}
    doors: Counter[str] = Counter()
    for module_name, module in sorted(sys.modules.items()):
        if module is None or not (module_name == "hmyframe" or module_name.startswith("hmyframe.")):
            continue
        private = any(p.startswith("_") and not p.startswith("__") for p in module_name.split("."))
        if module_name.startswith("hmyframe.devnet") or (private and module_name not in reached):
            continue
        for value in list(vars(module).values()):
            for name, coroutine in coroutines.items():
                if value is coroutine or getattr(value, "__wrapped__", None) is coroutine:
                    doors[name] += 1
    fetch = getattr(aio, "fetch", None)
    if fetch is not None and "DeprecationWarning" not in inspect.getsource(fetch):
        from hmyframe.datasets.sources import RANGE_DATASETS, SNAPSHOT_DATASETS

        for name in (*RANGE_DATASETS, *SNAPSHOT_DATASETS):
            if name in coroutines:
                doors[name] += 1
    return {name: doors[name] for name in coroutines if name != "fetch"}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("-v", action="store_true", help="list each import and function")
    verbose = parser.parse_args().v

    found = private_imports()
    statements = {(f.path, f.line) for f in found}
    print(
        f"private imports across packages: {len(statements)} statements, {len(found)} names, "
        f"{len({f.path for f in found})} files"
    )
    if verbose:
        for f in found:
            print(f"    {f}")
    long = long_functions()
    reasoned = [f for f in long if f.reason]
    print(f"functions over 80 lines (outside devnet): {len(long)} ({len(reasoned)} with a '# long:' reason)")
    if verbose:
        for f in long:
            print(f"    {f.lines:4d}  {f.where}  {f.name}  {f.reason or ''}")
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    print(f"README lines: {len(readme.splitlines())}")
    doors = _doors()
    print(f"doors per public function: {dict(sorted(Counter(doors.values()).items()))} (doors: functions)")
    if verbose:
        for name, n in doors.items():
            print(f"    {name}: {n}")


if __name__ == "__main__":
    main()
