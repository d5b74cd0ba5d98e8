"""The public API comes from one registry (issue 7, points 6 and 11): every fetcher is bound once
in ``hmyframe.aio`` and its blocking twin once in ``hmyframe``, matches the datasets registry, and
documents every parameter it takes; one door each (issue 25). Nothing here lists the fetchers by
hand."""

from __future__ import annotations

import ast
import importlib
import inspect
import re
import types
from pathlib import Path

import pytest

import hmyframe
from hmyframe import _twins, aio
from hmyframe._public import PARAMETERS, REGISTRY
from hmyframe.datasets import DATASETS

NAMES = list(REGISTRY)


def _bound_fetchers(module: types.ModuleType) -> set[str]:
    """Names in ``module`` (its own, and those it makes on first use) bound to a registered
    coroutine or to the sync twin of one."""
    functions = [e.function for e in REGISTRY.values()]
    names = dir(module)
    return {
        name
        for name in names
        if any(
            (value := getattr(module, name)) is f or getattr(value, "__wrapped__", None) is f
            for f in functions
        )
    }


def test_every_registered_fetcher_is_bound_once_async_and_once_sync() -> None:
    assert set(NAMES) == _bound_fetchers(aio) == _bound_fetchers(hmyframe)
    for name in NAMES:
        assert getattr(aio, name) is REGISTRY[name].function
        assert getattr(hmyframe, name).__wrapped__ is REGISTRY[name].function
        assert name in hmyframe.__all__
        assert name in aio.__all__


def test_each_public_function_has_one_async_door_and_one_sync_door() -> None:
    # aio's list is the one list: hmyframe's functions are exactly the blocking twins of its
    # functions (the reports' twins are hmyframe.report's), spelled out once in _twins for
    # type checkers, in aio's order
    assert set(REGISTRY) <= set(aio.FUNCTIONS)
    assert {"follow", "staking_history", "export"} <= set(aio.FUNCTIONS)
    tree = ast.parse(Path(_twins.__file__).read_text(encoding="utf-8"))
    bound = [
        t.id
        for node in tree.body
        if isinstance(node, ast.Assign)
        for t in node.targets
        if isinstance(t, ast.Name)
    ]
    assert tuple(bound) == aio.FUNCTIONS
    for name in aio.FUNCTIONS:
        twin = getattr(hmyframe, name)
        assert twin is getattr(_twins, name)
        assert twin.__wrapped__ is getattr(aio, name)
        assert twin.__module__ == "hmyframe"
        assert name in hmyframe.__all__
    # the old doors are gone: no hmyframe.api, no public function in the engine's entrance
    with pytest.raises(ModuleNotFoundError):
        importlib.import_module("hmyframe.api")
    engine = vars(hmyframe.engine).values()
    assert not [f for f in aio.FUNCTIONS if getattr(aio, f) in engine]


def test_every_range_and_snapshot_dataset_has_its_fetcher() -> None:
    fetched = {name: d.fetched_by for name, d in DATASETS.items() if d.fetched_by != "lookup"}
    assert fetched  # the registry says how each dataset is fetched
    for name, kind in fetched.items():
        assert REGISTRY[name].kind == kind
        assert REGISTRY[name].dataset == name
    for name, entry in REGISTRY.items():
        if entry.kind in ("range", "snapshot"):
            assert DATASETS[name].fetched_by == entry.kind
        elif entry.dataset is not None:
            assert DATASETS[entry.dataset].fetched_by == "lookup" or entry.kind == "lookup"


def test_the_kinds_share_one_signature_each() -> None:
    for kind in ("range", "snapshot"):
        signatures = {
            str(inspect.signature(e.function))
            for e in REGISTRY.values()
            if e.kind == kind and DATASETS[e.name].source != "traces" and e.name != "token_transfers"
        }
        assert len(signatures) == 1, signatures
    assert "trace_rpc" in inspect.signature(aio.traces).parameters
    # token_transfers: the range signature plus with_tokens (a keyword, default False)
    ranged = inspect.signature(aio.blocks).parameters
    extra = inspect.signature(aio.token_transfers).parameters
    assert [p for p in extra if p != "with_tokens"] == list(ranged)
    assert extra["with_tokens"].kind is inspect.Parameter.KEYWORD_ONLY
    assert extra["with_tokens"].default is False


def _documented(doc: str) -> list[str]:
    """Parameter names of a NumPy-style Parameters section."""
    section = doc.split("Parameters\n----------\n", 1)[1].split("\n\n", 1)[0]
    return [line for line in section.splitlines() if line and not line.startswith(" ")]


@pytest.mark.parametrize("name", NAMES)
def test_each_docstring_explains_every_parameter(name: str) -> None:
    for function in (getattr(aio, name), getattr(hmyframe, name)):
        doc = inspect.getdoc(function) or ""
        parameters = list(inspect.signature(function).parameters)
        assert _documented(doc) == parameters, name
        assert "module documentation" not in doc
        assert "Returns\n-------" in doc
        # each explanation is the shared one (one text per parameter, never copied by hand)
        for parameter in parameters:
            block = doc.split(f"\n{parameter}\n", 1)[1].split("\n\n", 1)[0]
            first_words = " ".join(block.split()[:6])
            assert any(" ".join(text.split()[:6]) == first_words for text in PARAMETERS.values()), (
                name,
                parameter,
            )


@pytest.mark.parametrize("name", [n for n in NAMES if REGISTRY[n].dataset is not None])
def test_each_dataset_docstring_names_its_columns(name: str) -> None:
    doc = " ".join((inspect.getdoc(getattr(hmyframe, name)) or "").split())
    dataset = DATASETS[REGISTRY[name].dataset]  # type: ignore[index]
    for column in dataset.schema.names:
        assert re.search(rf"\b{column}\b", doc), (name, column)


def test_help_shows_the_real_signature_and_names() -> None:
    text = str(inspect.signature(hmyframe.transactions))
    assert text.startswith("(start: int | str | datetime.date, end:")
    assert "output: Literal['pandas', 'arrow', 'polars'] = 'pandas'" in text
    assert hmyframe.transactions.__name__ == "transactions"
    assert aio.validators.__qualname__ == "validators"
    assert inspect.iscoroutinefunction(aio.blocks)
    assert not inspect.iscoroutinefunction(hmyframe.blocks)


def test_the_reports_async_door_is_aio_and_the_old_names_warn() -> None:
    from hmyframe import report

    assert set(aio.REPORTS) == {"staking_report", "throughput_report", "validator_report", "account_report"}
    for name in aio.REPORTS:
        coroutine = getattr(aio, name)
        twin = getattr(report, name)
        assert inspect.iscoroutinefunction(coroutine)
        assert not inspect.iscoroutinefunction(twin)
        assert twin.__wrapped__ is coroutine
        assert inspect.signature(twin) == inspect.signature(coroutine)
        assert f"hmyframe.aio.{name}" in (twin.__doc__ or "")
        assert name in aio.__all__
        assert name not in aio.FUNCTIONS  # (no twin in hmyframe: the reports' twins are report's)
        if name == "account_report":  # born after the doors: it never had an _async name
            with pytest.raises(AttributeError):
                getattr(report, f"{name}_async")
            continue
        with pytest.warns(DeprecationWarning, match=rf"use hmyframe\.aio\.{name}"):
            assert getattr(report, f"{name}_async") is coroutine
    with pytest.raises(AttributeError):
        report.nosuch_report_async


def test_nothing_shadows_a_module_or_is_misnamed() -> None:
    importlib.import_module("hmyframe.exporting")  # (the command line imports it)
    assert not isinstance(hmyframe.export, types.ModuleType)
    assert hmyframe.export.__name__ == "export"
    assert hmyframe.export.__wrapped__ is aio.export
    assert isinstance(hmyframe.engine, types.ModuleType)
    assert callable(hmyframe.fetch)
    assert hmyframe.fetch.__name__ == "fetch"
    assert hmyframe.dataset.__name__ == "dataset"
    assert hmyframe.dataset("blocks") is DATASETS["blocks"]
    assert hmyframe.read.__name__ == "read"
    assert "see the module" not in (inspect.getdoc(hmyframe.dataset) or "")


def test_every_public_warning_lives_in_errors_and_is_importable_from_hmyframe() -> None:
    from hmyframe import errors

    warned = [name for name in errors.__all__ if name.endswith("Warning")]
    assert {"CacheWarning", "NotFoundWarning", "FollowWarning", "NonStandardTokenWarning"} <= set(warned)
    for name in warned:
        category = getattr(errors, name)
        assert issubclass(category, UserWarning)
        assert getattr(hmyframe, name) is category
        assert name in hmyframe.__all__
        assert name in (errors.__doc__ or "")  # drawn in the hierarchy's warnings list
