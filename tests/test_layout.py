"""No import circles inside hmyframe: each module can be read and changed without its importers.

The graph is read from the source with :mod:`ast`, not by importing: every ``import`` and
``from ... import`` in a module counts wherever it stands (module level, inside a function, under
``if TYPE_CHECKING:``), and so does ``importlib.import_module("hmyframe....")`` with a literal
name. ``from hmyframe.x import y`` is an edge to the module ``hmyframe.x.y`` when that is a
module, else to ``hmyframe.x``; importing a submodule is not counted as an edge to the
packages above it (Python runs their ``__init__`` first, but that is the package's business,
not a dependency of the importer on the package's other modules).

A circle is a strongly connected component of that graph with more than one module. The only
ones allowed are listed in ``KNOWN_CYCLES``; a listed circle that no longer exists fails too, so
that the list shrinks as circles are broken. Run this file as a script to print the graph's
circles with the import lines that make them.

Entrances. A *package* is a folder of ``hmyframe/`` with an ``__init__.py``; the modules at the
top of ``hmyframe/`` belong to the root package ``hmyframe``. A name (module, function, class,
constant) whose last part starts with one underscore (``_ranges``, ``_check_heads``; not a
``__dunder__``) is private to the package that holds it, and a package holds its subpackages:
``hmyframe._sync`` serves every module of hmyframe, ``hmyframe.engine._ranges`` only the modules
of ``hmyframe.engine``. An import reaches into a private part when the dotted name it imports
(``from a.b import c``: ``a.b.c``; ``import a.b``: ``a.b``; ``importlib.import_module`` or
``lazy_module`` of a literal name, and any string constant that is exactly a module's dotted
name: ``a.b``) has a private part: the first such part names its holder (the package it is, or
the package of the module it is in). It is allowed only from a module of that holder (at any
depth). Anything else goes through the holder's entrance (its ``__init__``, which lists its
public names in ``__all__``) or a public module of it. :func:`private_imports` lists the
imports that break the rule.

Layers. :data:`LAYERS` stacks the package's *units* (each subpackage folder, each module at
the top of ``hmyframe/``) bottom to top, as docs/DESIGN.md draws them: a unit may import the
units of the layers below its own, never those above, nor another unit of its own layer (but in
the bottom layer, the shared pieces, whose modules import each other). Every import counts
(module level, in a function, under ``TYPE_CHECKING``); a unit missing from the table fails
too, so a new module is placed when it is added.

Long functions. :func:`long_functions` lists the functions of ``hmyframe/`` (the devnet aside)
longer than :data:`LONG` lines (``def`` line to last line), each with the reason a comment
``# long: ...`` right above it (above its decorators) gives, if any.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path

PACKAGE_ROOT = Path(__file__).resolve().parent.parent / "hmyframe"

#: Circles still allowed, each as the set of its modules. Delete an entry when its circle is
#: broken (the test fails until then).
KNOWN_CYCLES: list[frozenset[str]] = []

#: module -> {imported module -> line numbers of the import statements}
Graph = dict[str, dict[str, list[int]]]


def package_modules(root: Path = PACKAGE_ROOT) -> dict[str, Path]:
    """Every module of the package, by dotted name (a package is named by its ``__init__``)."""
    modules: dict[str, Path] = {}
    for path in sorted(root.rglob("*.py")):
        parts = list(path.relative_to(root.parent).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts.pop()
        modules[".".join(parts)] = path
    return modules


def _resolve_from(node: ast.ImportFrom, module: str, is_package: bool) -> str:
    """The absolute module name a ``from ... import`` statement reads from."""
    if not node.level:
        return node.module or ""
    base = module.split(".")
    if not is_package:
        base.pop()
    base = base[: len(base) - (node.level - 1)]
    return ".".join([*base, *([node.module] if node.module else [])])


def _import_module_name(node: ast.Call) -> str | None:
    """The literal module name of an ``importlib.import_module("...")`` call, if it is one."""
    func = node.func
    name = func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", None)
    if name != "import_module" or not node.args:
        return None
    arg = node.args[0]
    return arg.value if isinstance(arg, ast.Constant) and isinstance(arg.value, str) else None


def _targets(tree: ast.AST, module: str, is_package: bool) -> Iterator[tuple[list[str], int]]:
    """``(names, line)`` for every import in ``tree``, at any depth: the imported module is the
    first of ``names`` that is a module (``from x import y``: ``x.y`` if a module, else ``x``)."""
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                yield [alias.name], node.lineno
        elif isinstance(node, ast.ImportFrom):
            source = _resolve_from(node, module, is_package)
            for alias in node.names:
                yield [f"{source}.{alias.name}", source], node.lineno
        elif isinstance(node, ast.Call):
            name = _import_module_name(node)
            if name is not None:
                yield [name], node.lineno


def import_graph(modules: Mapping[str, Path] | None = None) -> Graph:
    """Which package modules each package module imports, with the lines that do it."""
    modules = package_modules() if modules is None else modules
    graph: Graph = {}
    for module, path in modules.items():
        tree = ast.parse(path.read_text(encoding="utf-8"), str(path))
        edges: dict[str, list[int]] = {}
        for names, line in _targets(tree, module, path.name == "__init__.py"):
            # "import hmyframe.x.y" where y is not a module: the longest module prefix
            name = names[-1]
            while name and name not in modules:
                name = name.rpartition(".")[0]
            target = next((n for n in names if n in modules), name)
            if target and target != module and line not in edges.get(target, []):
                edges.setdefault(target, []).append(line)
        graph[module] = edges
    return graph


def _components(graph: Graph) -> list[list[str]]:
    """The strongly connected components of ``graph`` (Tarjan's algorithm, iterative)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []
    for start in sorted(graph):
        if start in index:
            continue
        work: list[tuple[str, Iterator[str]]] = [(start, iter(sorted(graph[start])))]
        index[start] = low[start] = len(index)
        stack.append(start)
        on_stack.add(start)
        while work:
            node, children = work[-1]
            child = next(children, None)
            if child is not None:
                if child not in index:
                    index[child] = low[child] = len(index)
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(sorted(graph[child]))))
                elif child in on_stack:
                    low[node] = min(low[node], index[child])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                component = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    component.append(member)
                    if member == node:
                        break
                found.append(sorted(component))
    return found


def cycles(graph: Graph) -> list[frozenset[str]]:
    """Every import circle: each strongly connected component of more than one module."""
    return [frozenset(c) for c in _components(graph) if len(c) > 1]


def describe(cycle: frozenset[str], graph: Graph) -> str:
    """The circle's modules and the import lines (``path:line``) that join them."""
    lines = [" <-> ".join(sorted(cycle))]
    for module in sorted(cycle):
        for target, at in sorted(graph[module].items()):
            if target in cycle:
                where = ", ".join(str(n) for n in sorted(set(at)))
                lines.append(f"    {module} imports {target} (line {where})")
    return "\n".join(lines)


# --------------------------------------------------------------------------- entrances


@dataclass(frozen=True)
class PrivateImport:
    """One import that reaches into another package's private part."""

    path: str  #: the importing file, relative to the repository
    line: int
    target: str  #: the dotted name imported
    holder: str  #: the package the private part belongs to

    def __str__(self) -> str:
        return (
            f"{self.path}:{self.line} imports {self.target}, private to {self.holder}: "
            f"import it from {self.holder}'s entrance (or make it public there)"
        )


def _private_holder(name: str, modules: Mapping[str, Path], packages: set[str]) -> str | None:
    """The package a dotted name's first private part belongs to (``None``: nothing private)."""
    parts = name.split(".")
    for i, part in enumerate(parts):
        if part.startswith("_") and not part.startswith("__"):
            prefix = ".".join(parts[:i])
            return prefix if prefix in packages else prefix.rpartition(".")[0]
    return None


def _imported_names(
    tree: ast.AST, module: str, is_package: bool, modules: Mapping[str, Path]
) -> Iterator[tuple[str, int]]:
    """``(dotted name, line)`` of everything ``tree`` imports, as the rule reads it."""
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                yield alias.name, node.lineno
        elif isinstance(node, ast.ImportFrom):
            source = _resolve_from(node, module, is_package)
            for alias in node.names:
                yield f"{source}.{alias.name}", node.lineno
        elif isinstance(node, ast.Call):
            name = _import_module_name(node)
            func = node.func
            called = func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", None)
            if name is None and called == "lazy_module" and node.args:
                arg = node.args[0]
                name = arg.value if isinstance(arg, ast.Constant) and isinstance(arg.value, str) else None
            if name is not None:
                yield name, node.lineno
        elif isinstance(node, ast.Constant) and isinstance(node.value, str) and node.value in modules:
            yield node.value, node.lineno


def private_imports(root: Path = PACKAGE_ROOT) -> list[PrivateImport]:
    """Every import of the package that reaches into another package's private part."""
    modules = package_modules(root)
    packages = {name for name, path in modules.items() if path.name == "__init__.py"}
    found: list[PrivateImport] = []
    for module, path in modules.items():
        own = module if module in packages else module.rpartition(".")[0]
        tree = ast.parse(path.read_text(encoding="utf-8"), str(path))
        seen: set[tuple[str, int]] = set()
        for name, line in _imported_names(tree, module, path.name == "__init__.py", modules):
            if (name, line) in seen or not (name == root.name or name.startswith(root.name + ".")):
                continue
            seen.add((name, line))
            holder = _private_holder(name, modules, packages)
            if holder is not None and own != holder and not own.startswith(holder + "."):
                where = path.relative_to(root.parent).as_posix()
                found.append(PrivateImport(where, line, name, holder))
    return sorted(found, key=lambda f: (f.path, f.line, f.target))


# --------------------------------------------------------------------------- long functions

#: Lines (``def`` to last line) beyond which a function needs a ``# long:`` reason.
LONG = 80

_REASON = re.compile(r"^\s*# long: (.+)$")


@dataclass(frozen=True)
class LongFunction:
    """A function longer than :data:`LONG` lines."""

    where: str  #: ``path:line`` of its ``def``
    name: str
    lines: int
    reason: str | None  #: the ``# long:`` comment above it, if any


def long_functions(root: Path = PACKAGE_ROOT, *, skip: tuple[str, ...] = ("devnet",)) -> list[LongFunction]:
    """The functions of the package (outside ``skip``'s folders) longer than :data:`LONG` lines."""
    found: list[LongFunction] = []
    for path in sorted(root.rglob("*.py")):
        if any(part in skip for part in path.relative_to(root).parts[:-1]):
            continue
        text = path.read_text(encoding="utf-8")
        lines = text.splitlines()
        for node in ast.walk(ast.parse(text, str(path))):
            if not isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
                continue
            length = (node.end_lineno or node.lineno) - node.lineno + 1
            if length <= LONG:
                continue
            top = min([node.lineno, *(d.lineno for d in node.decorator_list)])
            m = _REASON.match(lines[top - 2]) if top >= 2 else None
            where = f"{path.relative_to(root.parent).as_posix()}:{node.lineno}"
            found.append(LongFunction(where, node.name, length, m[1] if m else None))
    return sorted(found, key=lambda f: -f.lines)


def test_no_import_reaches_into_another_package_s_private_part() -> None:
    found = private_imports()
    assert not found, "imports reaching into another package's private part:\n" + "\n".join(map(str, found))


def test_no_function_is_longer_than_80_lines_without_a_reason() -> None:
    bare = [f for f in long_functions() if not f.reason]
    assert not bare, (
        f"functions over {LONG} lines: split them into named steps, or write the reason the function "
        "is one step in a '# long: ...' comment right above it:\n"
        + "\n".join(f"{f.where} {f.name} ({f.lines} lines)" for f in bare)
    )


# --------------------------------------------------------------------------- layers

#: The units of the package, bottom layer first (docs/DESIGN.md, "Layers", draws the same).
LAYERS: list[tuple[str, ...]] = [
    (  # the shared pieces: what every layer may use
        "errors",
        "_version",
        "_lazy",
        "_json",
        "_sync",
        "_tasks",
        "_spans",
        "storage",
        "addresses",
        "amounts",
        "_exactint",
        "_intarrow",
        "_pandas_meta",
        "_provenance",
        "_text",
        "_bloom",
    ),
    ("rpc/", "cache/", "metrics/", "devnet/"),
    ("datasets/",),
    ("engine/",),
    ("abi/",),
    ("_public", "_parts"),
    ("plot/", "scale/"),
    ("reader", "exporting", "report/"),
    ("aio", "query"),
    ("_twins",),
    ("hmyframe",),
    ("cli/",),
    ("__main__",),
]


def unit_of(module: str, modules: Mapping[str, Path]) -> str:
    """The unit a module belongs to: ``engine/`` for any module of ``hmyframe/engine/``, the
    module's own name for one at the top of ``hmyframe/``, ``hmyframe`` for its ``__init__``."""
    parts = module.split(".")
    if len(parts) == 1:
        return parts[0]
    top = ".".join(parts[:2])
    return f"{parts[1]}/" if modules[top].name == "__init__.py" else parts[1]


def layer_violations(graph: Graph, modules: Mapping[str, Path], layers: list[tuple[str, ...]]) -> list[str]:
    """Every unit missing from ``layers``, and every import that goes up or sideways."""
    level = {unit: i for i, layer in enumerate(layers) for unit in layer}
    problems = sorted(
        {f"{unit_of(m, modules)} is in no layer of LAYERS" for m in graph if unit_of(m, modules) not in level}
    )
    for module, targets in sorted(graph.items()):
        source = unit_of(module, modules)
        for target, lines in sorted(targets.items()):
            unit = unit_of(target, modules)
            if unit == source or source not in level or unit not in level:
                continue
            if level[unit] > level[source] or (level[unit] == level[source] and level[unit] > 0):
                base = modules[module.split(".")[0]].parent.parent
                where = modules[module].relative_to(base).as_posix()
                what = "above" if level[unit] > level[source] else "beside"
                problems.append(f"{where}:{min(lines)} imports {target}: {unit} is {what} {source} in LAYERS")
    return problems


def test_each_unit_imports_only_the_layers_below_it() -> None:
    modules = package_modules()
    problems = layer_violations(import_graph(modules), modules, LAYERS)
    assert not problems, "\n".join(problems)


def test_the_layer_rule_on_a_toy_package(tmp_path: Path) -> None:
    pkg = tmp_path / "toy"
    (pkg / "low").mkdir(parents=True)
    (pkg / "__init__.py").write_text("from toy import top\n")
    (pkg / "base.py").write_text("")
    (pkg / "util.py").write_text("from toy import base\n")  # beside, in the bottom layer: fine
    (pkg / "low" / "__init__.py").write_text("from toy.low import a\n")
    (pkg / "low" / "a.py").write_text("def f():\n    from toy import top\n")  # up, in a function
    (pkg / "top.py").write_text("from toy.low import a\nfrom toy import side\n")
    (pkg / "side.py").write_text("")
    (pkg / "stray.py").write_text("")
    modules = package_modules(pkg)
    layers = [("base", "util"), ("low/",), ("top", "side"), ("toy",)]
    assert layer_violations(import_graph(modules), modules, layers) == [
        "stray is in no layer of LAYERS",
        "toy/low/a.py:2 imports toy.top: top is above low/ in LAYERS",
        "toy/top.py:2 imports toy.side: side is beside top in LAYERS",
    ]


def test_the_entrance_rule_and_the_length_rule_on_a_toy_package(tmp_path: Path) -> None:
    pkg = tmp_path / "toy"
    for folder in ("", "low", "low/deep", "high"):
        (pkg / folder).mkdir(parents=True, exist_ok=True)
        (pkg / folder / "__init__.py").write_text("")
    (pkg / "_shared.py").write_text("X = 1\n")
    (pkg / "low" / "_inner.py").write_text("from toy._shared import X\n_Y = 2\nZ = 3\n")
    (pkg / "low" / "deep" / "use.py").write_text(
        "from toy.low._inner import _Y\nfrom toy.low import _inner\n"
    )
    (pkg / "low" / "__init__.py").write_text("from toy.low._inner import Z\n__all__ = ['Z']\n")
    (pkg / "high" / "a.py").write_text(
        "from toy.low import Z\n"  # the entrance: fine
        "from toy.low._inner import Z as W\n"  # line 2: a private module of another package
        "from toy._shared import X\n"  # the root's private module: every module's
        "def f():\n"
        "    from ..low import _inner\n"  # line 5: relative, in a function
        "    return lazy_module('toy.low._inner')\n"  # line 6
        "HOMES = {'W': 'toy.low._inner'}\n"  # line 7: a module named in a string
    )
    (pkg / "high" / "b.py").write_text("from toy.low.deep.use import _Y\n")  # a private name
    found = [(f.path, f.line, f.target, f.holder) for f in private_imports(pkg)]
    assert found == [
        ("toy/high/a.py", 2, "toy.low._inner.Z", "toy.low"),
        ("toy/high/a.py", 5, "toy.low._inner", "toy.low"),
        ("toy/high/a.py", 6, "toy.low._inner", "toy.low"),
        ("toy/high/a.py", 7, "toy.low._inner", "toy.low"),
        ("toy/high/b.py", 1, "toy.low.deep.use._Y", "toy.low.deep"),
    ]
    assert "toy/high/a.py:2 imports toy.low._inner.Z, private to toy.low" in str(private_imports(pkg)[0])

    body = "".join(f"    x{i} = {i}\n" for i in range(LONG))
    (pkg / "long.py").write_text(
        f"def short():\n    return 1\n\n# long: one table\n@staticmethod\ndef reasoned():\n{body}\n"
        f"def bare():\n{body}\n"
    )
    (pkg / "low" / "deep" / "long.py").write_text(f"def skipped():\n{body}")
    found_long = long_functions(pkg, skip=("deep",))
    assert [(f.name, f.lines, f.reason) for f in found_long] == [
        ("reasoned", LONG + 1, "one table"),
        ("bare", LONG + 1, None),
    ]


def test_no_import_cycles_but_the_known_ones() -> None:
    graph = import_graph()
    found = cycles(graph)
    new = [c for c in found if c not in KNOWN_CYCLES]
    gone = [c for c in KNOWN_CYCLES if c not in found]
    problems = [f"import circle:\n{describe(c, graph)}" for c in new]
    problems += [
        f"KNOWN_CYCLES lists {sorted(c)}, which is no longer a circle: delete the entry" for c in gone
    ]
    assert not problems, "\n".join(problems)


def test_the_graph_sees_every_kind_of_import(tmp_path: Path) -> None:
    # a toy package with one import of each kind the check must count
    pkg = tmp_path / "toy"
    (pkg / "sub").mkdir(parents=True)
    (pkg / "__init__.py").write_text("")
    (pkg / "sub" / "__init__.py").write_text("from toy.sub.c import C\n")
    (pkg / "a.py").write_text(
        "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from toy.b import B\n"
    )
    (pkg / "b.py").write_text("def f():\n    from . import a\n    return a\n")
    (pkg / "sub" / "c.py").write_text(
        "import importlib\nC = 1\ndef g():\n    return importlib.import_module('toy.sub.d')\n"
    )
    (pkg / "sub" / "d.py").write_text("from ..sub import C\nimport toy.sub.c\n")
    graph = import_graph(package_modules(pkg))
    assert graph["toy.a"] == {"toy.b": [3]}  # under TYPE_CHECKING
    assert graph["toy.b"] == {"toy.a": [2]}  # relative, inside a function
    assert graph["toy.sub.c"] == {"toy.sub.d": [4]}  # importlib with a literal name
    assert graph["toy.sub.d"] == {"toy.sub": [1], "toy.sub.c": [2]}
    assert sorted(map(sorted, cycles(graph))) == [
        ["toy.a", "toy.b"],
        ["toy.sub", "toy.sub.c", "toy.sub.d"],
    ]
    text = describe(frozenset({"toy.a", "toy.b"}), graph)
    assert "toy.a imports toy.b (line 3)" in text
    assert "toy.b imports toy.a (line 2)" in text


if __name__ == "__main__":
    graph = import_graph()
    for cycle in cycles(graph):
        known = " (known)" if cycle in KNOWN_CYCLES else ""
        print(describe(cycle, graph) + known)
