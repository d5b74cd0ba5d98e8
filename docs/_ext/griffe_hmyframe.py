"""Griffe extension for the API pages (mkdocs.yml loads it; nothing in the package imports it).

* The public functions of ``hmyframe.aio`` and their blocking twins in ``hmyframe._twins`` are
  made or documented at import time (``blocks = _public.range_fetcher("blocks")``, ``balances =
  _public.balances`` whose docstring its decorator writes, ``blocks = _twin(_aio.blocks, ...)``),
  so static analysis sees attributes (or aliases) without docstrings. Each such member whose
  value at run time is a function is replaced by that function: its signature and its docstring.
* Docstrings use Sphinx roles (``:func:`gini```) and reST literal blocks (``::``); Markdown has
  neither, so a role is shown as the code span of its target and ``::`` as ``:``.
"""

from __future__ import annotations

import importlib
import inspect
import re
from typing import Any

import griffe

#: Modules whose public names are bound at import time (see the module docstring).
DYNAMIC = ("hmyframe.aio", "hmyframe._twins")

_ROLE = re.compile(r":(?:py:)?(?:func|meth|class|mod|attr|data|exc|obj|const):`~?([^`]+)`")
_LITERAL = re.compile(r"(?<=\S)::$", re.M)


def _text(annotation: Any) -> str | None:
    if annotation is inspect.Parameter.empty:
        return None
    return annotation if isinstance(annotation, str) else inspect.formatannotation(annotation)


def _function(name: str, value: Any, line: int | None, like: griffe.Docstring | None) -> griffe.Function:
    signature = inspect.signature(value)
    parameters = griffe.Parameters(
        *(
            griffe.Parameter(
                p.name,
                annotation=_text(p.annotation),
                kind=griffe.ParameterKind[p.kind.name.lower()],
                default=None if p.default is inspect.Parameter.empty else repr(p.default),
            )
            for p in signature.parameters.values()
        )
    )
    function = griffe.Function(
        name,
        lineno=line,
        endlineno=line,
        parameters=parameters,
        returns=_text(signature.return_annotation),
    )
    if inspect.iscoroutinefunction(value):
        function.labels.add("async")
    if value.__doc__:
        function.docstring = griffe.Docstring(
            inspect.cleandoc(value.__doc__),
            parent=function,
            parser=like.parser if like else None,  # the style mkdocs.yml asks for, as the module's
            parser_options=like.parser_options if like else None,
        )
    return function


class HmyframeDocs(griffe.Extension):
    """The two fixes above."""

    def on_module_members(self, *, mod: griffe.Module, **kwargs: Any) -> None:
        if mod.path not in DYNAMIC:
            return
        runtime = importlib.import_module(mod.path)
        for name, member in list(mod.members.items()):
            value = getattr(runtime, name, None)
            if isinstance(member, griffe.Attribute | griffe.Alias) and inspect.isfunction(value):
                # (an alias's own line: its target's may not be loaded)
                line = member.alias_lineno if isinstance(member, griffe.Alias) else member.lineno
                mod.set_member(name, _function(name, value, line, mod.docstring))

    def on_instance(self, *, obj: griffe.Object, **kwargs: Any) -> None:
        self._markdown(obj)

    def on_function(self, *, func: griffe.Function, **kwargs: Any) -> None:
        self._markdown(func)

    @staticmethod
    def _markdown(obj: griffe.Object) -> None:
        docstring = obj.docstring
        if docstring is not None:
            docstring.value = _LITERAL.sub(":", _ROLE.sub(lambda m: f"`{m[1]}`", docstring.value))
