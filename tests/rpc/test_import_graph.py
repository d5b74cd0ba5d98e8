"""The rpc modules import one another without a circle (every import counts: module level,
inside functions, and under ``if TYPE_CHECKING``)."""

from __future__ import annotations

import ast
from pathlib import Path

import hmyframe.rpc

RPC = Path(hmyframe.rpc.__file__).parent


def import_graph(folder: Path, package: str) -> dict[str, set[str]]:
    """``{module: modules of the same folder it imports}``, read from the source with ast."""
    modules = {p.stem: p for p in folder.glob("*.py")}
    graph: dict[str, set[str]] = {}
    for name, path in modules.items():
        deps: set[str] = set()
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                targets = [node.module, *(f"{node.module}.{a.name}" for a in node.names)]
            elif isinstance(node, ast.Import):
                targets = [a.name for a in node.names]
            else:
                continue
            for target in targets:
                stem = "__init__" if target == package else target.removeprefix(package + ".")
                if stem in modules and "." not in stem and stem != name:
                    deps.add(stem)
        graph[name] = deps
    return graph


def cycles(graph: dict[str, set[str]]) -> list[set[str]]:
    """The strongly connected components of more than one module (each holds a circle)."""
    reach = {m: set(deps) for m, deps in graph.items()}
    changed = True
    while changed:  # transitive closure: a dozen modules, a handful of rounds
        changed = False
        for deps in reach.values():
            more = set().union(*(reach[d] for d in deps)) - deps
            if more:
                deps |= more
                changed = True
    found: list[set[str]] = []
    for m in sorted(graph):
        component = {m} | {d for d in reach[m] if m in reach[d]}
        if len(component) > 1 and component not in found:
            found.append(component)
    return found


def test_the_check_finds_a_circle() -> None:
    graph = {"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}
    assert cycles(graph) == [{"a", "b", "c"}]


def test_the_graph_reads_type_checking_and_function_level_imports(tmp_path: Path) -> None:
    (tmp_path / "one.py").write_text(
        "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from pkg.two import X\n"
    )
    (tmp_path / "two.py").write_text("def f():\n    from pkg import one\n")
    (tmp_path / "__init__.py").write_text("")
    graph = import_graph(tmp_path, "pkg")
    assert graph == {"one": {"two"}, "two": {"one", "__init__"}, "__init__": set()}
    assert cycles(graph) == [{"one", "two"}]


def test_no_import_circle_in_rpc() -> None:
    graph = import_graph(RPC, "hmyframe.rpc")
    assert {"client", "methods", "pool", "shared"} <= set(graph)
    assert graph["methods"] <= {"_check", "shared"}  # Methods takes any Caller
    assert "pool" not in graph["client"]  # the pool builds on Client, never the other way
    assert cycles(graph) == []
