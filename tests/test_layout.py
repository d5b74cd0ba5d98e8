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
"""

from __future__ import annotations

import ast
from collections.abc import Iterator, Mapping
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
