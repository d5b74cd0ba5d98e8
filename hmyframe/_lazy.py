"""Modules imported on first use, so that ``import hmyframe`` and an export's start stay light.

pyarrow (0.15-0.3 s and 50-70 MB to import), numpy and pandas are needed where tables are
built, read or written, not where requests are planned and sent: an export's main process
sends requests and leaves conversion to worker processes (:mod:`hmyframe.engine._workers`).
A module that uses pyarrow only inside functions binds it with :func:`lazy_module` (typed as
the real module for mypy under ``TYPE_CHECKING``)::

    if TYPE_CHECKING:
        import pyarrow as pa
    else:
        pa = lazy_module("pyarrow")
"""

from __future__ import annotations

import importlib
import sys
import threading
from types import ModuleType
from typing import Any

__all__ = [
    "TRIM_BYTES",
    "aiohttp_without_default_certificates",
    "arrow_system_allocator",
    "arrow_without_pandas",
    "give_back_freed",
    "lazy_module",
    "tls_for",
]


class _LazyModule:
    """Stands for a module until an attribute is read; then imports it (once)."""

    __slots__ = ("_module", "_name")

    def _load(self) -> ModuleType:
        module: ModuleType | None = self._module
        if module is None:
            module = importlib.import_module(self._name)
            object.__setattr__(self, "_module", module)
        return module

    def __init__(self, name: str) -> None:
        object.__setattr__(self, "_name", name)
        object.__setattr__(self, "_module", None)

    def __getattr__(self, attr: str) -> Any:
        return getattr(self._load(), attr)

    def __setattr__(self, attr: str, value: Any) -> None:
        setattr(self._load(), attr, value)  # (a test patching a function of the module)

    def __delattr__(self, attr: str) -> None:
        delattr(self._load(), attr)

    def __repr__(self) -> str:
        state = "imported" if self._module is not None else "not imported yet"
        return f"<lazy module {self._name!r} ({state})>"


def lazy_module(name: str) -> Any:
    """A stand-in for module ``name`` that imports it when one of its attributes is first read.

    Parameters
    ----------
    name
        Dotted module name (``"pyarrow.parquet"``).

    Returns
    -------
    object
        Attribute reads go to the module, imported on the first one.
    """
    return _LazyModule(name)


def arrow_without_pandas() -> None:
    """Let pyarrow know, before its first array, that this process works without pandas.

    pyarrow imports pandas (0.3-0.6 s) the first time it builds an array or a scalar, to
    recognise pandas objects, even when given numpy data. A one-shot command that only moves
    Arrow tables to files (``hmyframe export``) never holds a pandas object, so it calls this
    first: pyarrow's first look is made with pandas hidden, and it records that pandas is
    absent. Its own pandas conversions (``to_pandas``) still import pandas when asked, as they
    retry the import. Does nothing when pandas is already imported.
    """
    if "pandas" in sys.modules:
        return
    import pyarrow as pa

    hide = _Hidden("pandas")
    sys.meta_path.insert(0, hide)
    try:
        pa.array([0])
    finally:
        sys.meta_path.remove(hide)


#: Whether aiohttp was imported without its default TLS contexts' certificates, and hmyframe's
#: own verified context once made (see :func:`tls_for`).
_tls: dict[str, Any] = {"own": False, "context": None}


def aiohttp_without_default_certificates() -> None:
    """Import aiohttp without its loading the system's CA certificates, in a process hmyframe
    owns (the ``hmyframe`` command; never in a caller's interpreter).

    aiohttp makes two default TLS contexts when it is imported, each reading and parsing the CA
    bundle (``set_default_verify_paths``): about 35 ms, a quarter of its import and an eighth of
    a whole ``hmyframe export`` of a cached block, spent even when every URL is ``http``. Here
    they are made without certificates (which would fail every certificate, never accept one),
    and hmyframe's requests to ``https`` / ``wss`` URLs carry a verified context of its own,
    made on the first one (:func:`tls_for`). Does nothing once aiohttp is imported.
    """
    if "aiohttp" in sys.modules:
        return
    import ssl

    context = ssl.SSLContext
    saved = {name: context.__dict__.get(name) for name in ("load_default_certs", "set_default_verify_paths")}

    def skip(self: object, *args: object, **kwargs: object) -> None:
        return None

    for name in saved:
        setattr(context, name, skip)
    try:
        importlib.import_module("aiohttp")
    finally:
        for name, method in saved.items():
            if method is None:
                delattr(context, name)  # (inherited from the C type)
            else:
                setattr(context, name, method)
    _tls["own"] = True


def tls_for(url: str) -> Any:
    """aiohttp's ``ssl`` argument for a request to ``url``: ``True`` (aiohttp's default, verified),
    or, where :func:`aiohttp_without_default_certificates` left aiohttp's contexts without
    certificates, for an ``https`` / ``wss`` URL a verified context of hmyframe's own, made once
    (as aiohttp makes its: the system's CA certificates, ALPN ``http/1.1``)."""
    if not _tls["own"] or not url[:6].lower().startswith(("https:", "wss:")):
        return True
    if _tls["context"] is None:
        import ssl

        context = ssl.create_default_context()
        context.set_alpn_protocols(("http/1.1",))
        _tls["context"] = context
    return _tls["context"]


def arrow_system_allocator() -> None:
    """Make pyarrow allocate through the C library (its "system" pool) in a one-shot process.

    pyarrow's default pool on Linux is mimalloc, which keeps what it freed for reuse: an
    export's chunks come and go, and its peak resident memory was 70-90 MB above what the
    same export reaches with the system allocator (``bench/export_memory.py``: 5,000 blocks,
    about 255 MB against 171-192 MB), at the same CPU time. Called where hmyframe owns the process
    (``hmyframe export``, the conversion workers); a caller's own choice in
    ``ARROW_DEFAULT_MEMORY_POOL`` is kept.
    """
    import os

    _trim["owned"] = True
    if os.environ.get("ARROW_DEFAULT_MEMORY_POOL"):
        return
    if "pyarrow" not in sys.modules:
        # before pyarrow's first allocation: no mimalloc arena is ever made (set_memory_pool
        # later leaves some allocations in it: 200 MB against 171 MB for the export above)
        os.environ["ARROW_DEFAULT_MEMORY_POOL"] = "system"
        return
    import pyarrow as pa

    pa.set_memory_pool(pa.system_memory_pool())


#: Answer bytes converted between two hand-backs of freed memory (:func:`give_back_freed`).
TRIM_BYTES = 32 << 20
_trim: dict[str, Any] = {"owned": False, "since": 0, "call": None}
_TRIM_LOCK = threading.Lock()


def give_back_freed(nbytes: int) -> None:
    """Count ``nbytes`` of answers converted; every :data:`TRIM_BYTES` of them, hand the memory
    the C library keeps free back to the system (glibc's ``malloc_trim``; nothing where there is
    none), in a process hmyframe owns (:func:`arrow_system_allocator` was called).

    glibc keeps what a thread freed in that thread's arena for reuse; a conversion of a large
    answer (a ``busy`` 100-block ``getBlocks`` answer: ~12 MB of JSON, ~14 MB of decoded
    objects, ~10 MB of columns) leaves its freed memory resident, and an export's resident
    memory stayed near its highest (3,000 busy blocks: ~300 MB from the first answers to the
    end; ~170-260 MB with this). Every 32 MiB it costs a few page faults: nothing measurable on
    a ``devnet`` export, which converts ~15 MiB per 1,000 blocks.
    """
    if not _trim["owned"]:
        return
    with _TRIM_LOCK:
        _trim["since"] += nbytes
        if _trim["since"] < TRIM_BYTES:
            return
        _trim["since"] = 0
        if _trim["call"] is None:
            import ctypes

            _trim["call"] = getattr(ctypes.CDLL(None), "malloc_trim", False)
    if _trim["call"]:
        _trim["call"](0)


class _Hidden:
    """A module finder that makes importing one top-level module fail, for a moment."""

    def __init__(self, name: str) -> None:
        self.name = name

    def find_spec(self, fullname: str, path: object = None, target: object = None) -> None:
        if fullname == self.name:
            raise ImportError(f"{fullname} is hidden here", name=fullname)
