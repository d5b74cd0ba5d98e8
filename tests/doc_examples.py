"""The code blocks of the README and the docs pages, as the tests run them.

Import it as ``import doc_examples`` (``tests/`` is on ``sys.path`` for every test).

A page is ``README.md`` or any ``docs/**/*.md``. Its fenced blocks are read in order; a block is

* part of a **named example** when it lies between the lines ``<!-- example:NAME:start -->``
  and ``<!-- example:NAME:end -->`` (a test runs it and checks what it claims: :func:`example`);
* **not run**, with the reason, when the line just above its fence is
  ``<!-- not-run: REASON -->`` (it needs the network, a cluster, or runs until interrupted);
* **run** otherwise when it is ``python``, and when it is ``sh`` marked ``<!-- run -->`` on the
  line just above its fence (each ``hmyframe ...`` line through the command line).
"""

from __future__ import annotations

import ast
import asyncio
import re
import shlex
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from hmyframe.cli import main

ROOT = Path(__file__).resolve().parent.parent
README = ROOT / "README.md"

_FENCE = re.compile(r"^```([\w-]*)[^\n]*\n(.*?)^```[ \t]*$", re.S | re.M)
_NAMED = re.compile(r"^<!-- example:([\w-]+):(start|end) -->$", re.M)  # a marker is a line of its own
_NOT_RUN = re.compile(r"<!-- not-run: *(.*?) *-->")
_RUN = "<!-- run -->"


def pages() -> list[Path]:
    """The README and every docs page, the README first."""
    return [README, *sorted((ROOT / "docs").rglob("*.md"))]


@dataclass(frozen=True)
class Block:
    """One fenced block of a page."""

    page: Path
    line: int  # of its opening fence, from 1
    language: str
    code: str
    example: str | None  # the named example it belongs to
    not_run: str | None  # the reason it is not run (None: no not-run marker)
    marked_run: bool  # an ``sh`` block marked <!-- run -->

    @property
    def where(self) -> str:
        return f"{self.page.relative_to(ROOT)}:{self.line}"

    @property
    def runs(self) -> bool:
        """Run by the page runner (named examples run in their own tests)."""
        if self.example is not None or self.not_run is not None:
            return False
        return self.language == "python" or (self.language == "sh" and self.marked_run)


def blocks(page: Path) -> list[Block]:
    """The fenced blocks of ``page``, in order; a named example's markers must pair up."""
    text = page.read_text(encoding="utf-8")
    found: list[Block] = []
    open_example: str | None = None
    position = 0
    for m in _FENCE.finditer(text):
        for marker in _NAMED.finditer(text, position, m.start()):
            name, edge = marker[1], marker[2]
            if edge == "start":
                assert open_example is None, f"{page.name}: example {name} starts inside {open_example}"
                open_example = name
            else:
                assert open_example == name, f"{page.name}: example {name} ends but {open_example} is open"
                open_example = None
        position = m.end()
        above = text[: m.start()].rstrip("\n").rsplit("\n", 1)[-1].strip()
        reason = _NOT_RUN.fullmatch(above)
        found.append(
            Block(
                page=page,
                line=text.count("\n", 0, m.start()) + 1,
                language=m[1],
                code=m[2],
                example=open_example,
                not_run=reason[1] if reason else None,
                marked_run=above == _RUN,
            )
        )
    for marker in _NAMED.finditer(text, position):
        name, edge = marker[1], marker[2]
        assert edge == "end", f"{page.name}: example {name} starts after the last block"
        assert open_example == name, f"{page.name}: example {name} ends but {open_example} is open"
        open_example = None
    assert open_example is None, f"{page.name}: example {open_example} never ends"
    return found


def all_blocks() -> Iterator[Block]:
    for page in pages():
        yield from blocks(page)


def example(name: str) -> list[tuple[str, str]]:
    """The ``(language, code)`` blocks of the named example ``name`` (on exactly one page)."""
    found = [b for b in all_blocks() if b.example == name]
    assert found, f"no page has the example {name} (<!-- example:{name}:start --> ... end)"
    assert len({b.page for b in found}) == 1, f"the example {name} is on several pages"
    return [(b.language, b.code) for b in found]


def run_python(code: str, namespace: dict[str, Any], filename: str) -> None:
    """Run ``code`` in ``namespace`` as a notebook cell would: a top-level ``await`` is allowed."""
    compiled = compile(code, filename, "exec", flags=ast.PyCF_ALLOW_TOP_LEVEL_AWAIT)
    result = eval(compiled, namespace)  # a coroutine when the code awaits at top level
    if result is not None:
        asyncio.run(result)


def run_commands(code: str, capsys: pytest.CaptureFixture[str]) -> list[str]:
    """Run each ``hmyframe ...`` line of an ``sh`` block (text after ``  #`` is a comment) through
    the command line; return what each printed, in order."""
    printed: list[str] = []
    for line in code.splitlines():
        command = line.split("  #", 1)[0].strip()
        if not command or command.startswith("#"):
            continue
        words = shlex.split(command)
        assert words[0] == "hmyframe", f"only hmyframe commands run here: {command}"
        capsys.readouterr()
        assert main(words[1:]) == 0, (command, capsys.readouterr())
        out, err = capsys.readouterr()
        printed.append(out + err)
    return printed
