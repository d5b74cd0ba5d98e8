"""docs/DESIGN.md's layout list names every module and folder of the package, and nothing else.

The list is the block under ``## Layout``: an entry is a line ``<indent><names>  <description>``
whose names are file or folder names separated by ``", "`` (a line of names only, ending in a
comma, continues on the next line at the same indent); a folder ends with ``/`` and its entries
are indented two more spaces; any other line continues a description. Every ``.py`` file of
``hmyframe/`` must be named (a subpackage's ``__init__.py`` is named by its folder line), every
subpackage folder too, and every name must exist.
"""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
DESIGN = ROOT / "docs" / "DESIGN.md"
PACKAGE = "hmyframe"

_NAME = r"[A-Za-z0-9_.]+/?"
_NAMES = re.compile(rf"{_NAME}(?:, {_NAME})*")


def layout_block(text: str) -> list[str]:
    """The lines of the first code block after the ``## Layout`` heading."""
    after = text.split("\n## Layout\n", 1)[1]
    return after.split("```", 2)[1].splitlines()[1:]


def listed_names(lines: list[str], package: str = PACKAGE) -> set[str]:
    """Paths (``hmyframe/x.py``, ``hmyframe/rpc/``) named by the layout lines under ``package/``."""
    names: set[str] = set()
    folders: list[str] = []  # the folder of each depth
    for line in lines:
        stripped = line.lstrip(" ")
        indent = len(line) - len(stripped)
        field = re.split(r"\s{2,}", stripped, maxsplit=1)[0].rstrip(",")
        if not (
            stripped
            and indent % 2 == 0
            and indent // 2 <= len(folders)
            and _NAMES.fullmatch(field) is not None
            and all(n.endswith((".py", "/")) for n in field.split(", "))
        ):
            continue  # a description's continuation
        depth = indent // 2
        del folders[depth:]
        for name in field.split(", "):
            names.add("".join(folders) + name)
        if field.endswith("/") and ", " not in field:
            folders.append(field)
    return {n for n in names if n.startswith(f"{package}/") and n != f"{package}/"}


def package_names(root: Path = ROOT, package: str = PACKAGE) -> set[str]:
    """Every ``.py`` file of the package and every subpackage folder, as layout paths."""
    base = root / package
    names: set[str] = set()
    for path in base.rglob("*.py"):
        relative = path.relative_to(root).as_posix()
        if path.name == "__init__.py" and path.parent != base:
            names.add(path.parent.relative_to(root).as_posix() + "/")
        else:
            names.add(relative)
    return names


def _subpackage_inits(root: Path = ROOT, package: str = PACKAGE) -> set[str]:
    base = root / package
    return {p.relative_to(root).as_posix() for p in base.rglob("__init__.py") if p.parent != base}


def test_design_layout_lists_every_module_and_folder() -> None:
    listed = listed_names(layout_block(DESIGN.read_text(encoding="utf-8")))
    present = package_names()
    missing = sorted(present - listed)
    unknown = sorted(listed - present - _subpackage_inits())
    problems = []
    if missing:
        problems.append(
            "docs/DESIGN.md's layout list (## Layout) misses "
            + ", ".join(missing)
            + ": add one line each under its folder"
        )
    if unknown:
        problems.append(
            "docs/DESIGN.md's layout list (## Layout) names what does not exist: " + ", ".join(unknown)
        )
    assert not problems, "\n".join(problems)


def test_the_layout_parser_reads_entries_folders_and_name_lines() -> None:
    lines = [
        "hmyframe/",
        "  __init__.py      the public names",
        "  api.py, aio.py   sync twins / async API",
        "                   rpc/ in a description is not an entry, nor is x.py here",
        "  rpc/             talking to a node",
        "    client.py      Client: envelope,",
        "                   batching",
        "  datasets/        one module per dataset",
        "    blocks.py, transactions.py,",
        "    traces.py",
        "                   the datasets",
        "  cli/             commands",
        "bench/             scripts",
        "  run.py           not in the package",
    ]
    assert listed_names(lines) == {
        "hmyframe/__init__.py",
        "hmyframe/api.py",
        "hmyframe/aio.py",
        "hmyframe/rpc/",
        "hmyframe/rpc/client.py",
        "hmyframe/datasets/",
        "hmyframe/datasets/blocks.py",
        "hmyframe/datasets/transactions.py",
        "hmyframe/datasets/traces.py",
        "hmyframe/cli/",
    }


def test_the_package_names_come_from_the_filesystem(tmp_path: Path) -> None:
    (tmp_path / "pkg" / "sub").mkdir(parents=True)
    for name in ("__init__.py", "a.py", "sub/__init__.py", "sub/b.py", "py.typed"):
        (tmp_path / "pkg" / name).write_text("")
    assert package_names(tmp_path, "pkg") == {"pkg/__init__.py", "pkg/a.py", "pkg/sub/", "pkg/sub/b.py"}
