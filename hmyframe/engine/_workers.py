"""Where chunks are converted: worker processes, or a thread of the fetching process.

The fetching process only sends requests and forwards each answer, as it arrives, to the
converter of its chunk; conversion (decoding, building Arrow tables, checking, writing Parquet)
runs elsewhere, so that requests keep going out while earlier answers are converted, and
conversion uses the machine's other cores:

* **Worker processes** (``FetchOptions.workers``; by default one per core, up to 4, for fetches
  of :data:`AUTO_MIN_BLOCKS` blocks or more). Each is a fresh ``python`` started at once, in
  parallel with the first requests; it imports pyarrow and the datasets (the fetching process
  never has to) and talks to the fetching process over its stdin / stdout: length-prefixed
  pickles of the messages of :class:`~hmyframe.engine._work.Host`. Every answer of a chunk goes
  to the same worker, which converts it at once, writes the chunk's files to the cache itself
  and sends back only the row counts (or the tables, when there is no cache). A worker that
  dies fails its chunks with an error; the others finish.
* **A thread** otherwise (``workers=0``, small fetches): the same messages, handled one after
  another by one background thread, so the event loop keeps reading answers meanwhile.

:class:`Converters` is what the fetch driver (:mod:`hmyframe.engine._ranges`) uses; one serves
every shard of a fetch and is closed at its end (the worker processes exit).
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import contextlib
import os
import pickle
import signal
import struct
import sys
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from hmyframe.datasets.sources import Call, Refetch
from hmyframe.errors import HmyframeError

if TYPE_CHECKING:
    from hmyframe.cache import Cache
    from hmyframe.engine._work import ChunkResult, ChunkSpec

__all__ = ["AUTO_MIN_BLOCKS", "MAX_AUTO_WORKERS", "Converters", "serve", "worker_count"]

#: Fetches of at least this many blocks get worker processes when ``FetchOptions.workers`` is
#: ``None`` (starting one costs about 0.3 s of a core, while fetching goes on).
AUTO_MIN_BLOCKS = 3000
#: Most worker processes started automatically (each holds pyarrow: about 100 MB).
MAX_AUTO_WORKERS = 4

_HEADER = struct.Struct("<Q")
_BOOT = "from hmyframe.engine._workers import serve; serve()"


def worker_count(option: int | None, blocks: int) -> int:
    """Worker processes for a fetch of ``blocks`` blocks (0: convert in a thread)."""
    if option is not None:
        return option
    cores = os.cpu_count() or 1
    if blocks < AUTO_MIN_BLOCKS or cores < 2:
        return 0
    return min(cores, MAX_AUTO_WORKERS)


@dataclass
class _Handle:
    """One chunk on its converter."""

    cid: int
    backend: _Backend
    result: asyncio.Future[ChunkResult]


class _Backend:
    """Something that handles :class:`~hmyframe.engine._work.Host` messages."""

    def __init__(self) -> None:
        self.active = 0  # chunks begun and not finished
        self.caches: set[int] = set()  # keys of the caches it was given

    async def send(self, message: tuple[Any, ...]) -> None:
        raise NotImplementedError

    async def close(self, *, abort: bool) -> None:
        raise NotImplementedError


class _Thread(_Backend):
    """A :class:`Host` in one background thread of this process."""

    def __init__(self, on_reply: Any) -> None:
        from hmyframe.engine._work import Host  # pyarrow and the datasets, in this process

        super().__init__()
        loop = asyncio.get_running_loop()
        self._executor = concurrent.futures.ThreadPoolExecutor(1, thread_name_prefix="hmyframe-convert")
        self._host = Host(lambda reply: loop.call_soon_threadsafe(on_reply, self, reply))

    async def send(self, message: tuple[Any, ...]) -> None:
        if message[0] == "cache":  # its own copy, as a worker process gets (no shared footer memo)
            message = pickle.loads(pickle.dumps(message, protocol=pickle.HIGHEST_PROTOCOL))
        self._executor.submit(self._host.handle, message)

    async def close(self, *, abort: bool) -> None:
        self._executor.shutdown(wait=not abort, cancel_futures=abort)


class _Process(_Backend):
    """One worker process."""

    def __init__(self, proc: asyncio.subprocess.Process) -> None:
        super().__init__()
        self.proc = proc
        self.reader: asyncio.Task[None] | None = None

    async def send(self, message: tuple[Any, ...]) -> None:
        stdin = self.proc.stdin
        assert stdin is not None
        data = pickle.dumps(message, protocol=pickle.HIGHEST_PROTOCOL)
        try:
            stdin.write(_HEADER.pack(len(data)))
            stdin.write(data)
            await stdin.drain()
        except (BrokenPipeError, ConnectionResetError):
            pass  # the worker is gone: its reader fails its chunks

    async def close(self, *, abort: bool) -> None:
        stdin = self.proc.stdin
        if stdin is not None and not stdin.is_closing():
            stdin.close()
        if abort:
            with contextlib.suppress(ProcessLookupError):
                self.proc.kill()
        try:
            await asyncio.wait_for(self.proc.wait(), 30)
        except TimeoutError:
            with contextlib.suppress(ProcessLookupError):
                self.proc.kill()
            await self.proc.wait()
        if self.reader is not None:
            await asyncio.gather(self.reader, return_exceptions=True)


class Converters:
    """The converters of one fetch (see the module docstring).

    Parameters
    ----------
    workers
        ``FetchOptions.workers``: a number of worker processes (0: a thread), or ``None`` to
        decide from the size of the fetch (:func:`worker_count`).
    """

    def __init__(self, workers: int | None) -> None:
        self._option = workers
        self._blocks = 0
        self._thread: _Thread | None = None
        self._processes: list[_Process] = []
        self._starting: asyncio.Task[None] | None = None
        self._handles: dict[int, _Handle] = {}
        self._next = 0
        self._caches: dict[int, Cache] = {}  # id -> cache (kept alive so ids stay unique)
        self._closed = False

    # -- workers ----------------------------------------------------------------------------

    async def plan(self, blocks: int) -> None:
        """Announce ``blocks`` more blocks to convert (may start the worker processes)."""
        self._blocks += blocks
        if self._starting is None and worker_count(self._option, self._blocks) > 0:
            self._starting = asyncio.get_running_loop().create_task(
                self._start(worker_count(self._option, self._blocks))
            )

    async def _start(self, n: int) -> None:
        for _ in range(n):
            try:
                proc = await asyncio.create_subprocess_exec(
                    sys.executable,
                    "-c",
                    _BOOT,
                    stdin=asyncio.subprocess.PIPE,
                    stdout=asyncio.subprocess.PIPE,
                )
            except OSError:
                break  # no new process here (embedded interpreter...): the thread converts
            worker = _Process(proc)
            worker.reader = asyncio.get_running_loop().create_task(self._read(worker))
            await worker.send(("init", list(sys.path)))
            self._processes.append(worker)

    async def _backend(self) -> _Backend:
        if self._starting is not None:
            await self._starting
        if self._processes:
            alive = [w for w in self._processes if w.proc.returncode is None]
            if alive:
                return min(alive, key=lambda w: w.active)
        if self._thread is None:
            self._thread = _Thread(self._on_reply)
        return self._thread

    async def _read(self, worker: _Process) -> None:
        stdout = worker.proc.stdout
        assert stdout is not None
        try:
            while True:
                header = await stdout.readexactly(_HEADER.size)
                data = await stdout.readexactly(_HEADER.unpack(header)[0])
                self._on_reply(worker, pickle.loads(data))
        except (asyncio.IncompleteReadError, ConnectionResetError):
            pass
        code = await worker.proc.wait()
        for handle in self._handles.values():
            if handle.backend is worker and not handle.result.done():
                handle.result.set_exception(
                    HmyframeError(
                        f"a conversion worker process (pid {worker.proc.pid}) exited unexpectedly "
                        f"(exit code {code}); the chunks it had finished are kept"
                    )
                )

    def _on_reply(self, backend: _Backend, reply: tuple[Any, ...]) -> None:
        handle = self._handles.get(reply[1])
        if handle is None or handle.result.done():
            return
        kind = reply[0]
        if kind == "done":
            handle.result.set_result(reply[2])
        elif kind == "refetch":
            handle.result.set_exception(Refetch(reply[2], reply[3]))
        else:
            handle.result.set_exception(reply[2])

    # -- chunks -----------------------------------------------------------------------------

    async def begin(self, spec: ChunkSpec, cache: Cache | None) -> _Handle:
        """Start converting a chunk (on the least busy worker)."""
        backend = await self._backend()
        key: int | None = None
        if cache is not None:
            key = id(cache)
            self._caches[key] = cache
            if key not in backend.caches:
                await backend.send(("cache", key, cache))
                backend.caches.add(key)
        self._next += 1
        handle = _Handle(self._next, backend, asyncio.get_running_loop().create_future())
        self._handles[handle.cid] = handle
        backend.active += 1
        await backend.send(("begin", handle.cid, spec, key))
        return handle

    async def piece(
        self, handle: _Handle, job: int, first: int, last: int, calls: Sequence[Call], payloads: list[bytes]
    ) -> None:
        """Hand over one piece's answers."""
        await handle.backend.send(("piece", handle.cid, job, first, last, tuple(calls), payloads))

    async def finish(self, handle: _Handle) -> ChunkResult:
        """All pieces are in: the chunk's result (its tables written), or its error.

        Raises
        ------
        Refetch
            The answers ask for the chunk to be fetched again with other settings.
        HmyframeError
            A conversion, check or write failed.
        """
        try:
            await handle.backend.send(("finish", handle.cid))
            return await handle.result
        finally:
            self._release(handle)

    async def abort(self, handle: _Handle) -> None:
        """Forget a chunk (its fetch failed or is redone)."""
        if self._handles.get(handle.cid) is handle:
            self._release(handle)
            await handle.backend.send(("abort", handle.cid))

    def failed(self, handle: _Handle) -> BaseException | None:
        """The error a chunk's conversion already reported (before its last piece), if any."""
        if handle.result.done() and not handle.result.cancelled():
            return handle.result.exception()
        return None

    def _release(self, handle: _Handle) -> None:
        if self._handles.pop(handle.cid, None) is not None:
            handle.backend.active -= 1
        if not handle.result.done():
            handle.result.cancel()

    async def close(self, *, abort: bool = False) -> None:
        """Stop the workers (``abort``: at once, without letting them finish what they hold)."""
        if self._closed:
            return
        self._closed = True
        if self._starting is not None:
            if abort:
                self._starting.cancel()
            await asyncio.gather(self._starting, return_exceptions=True)
        backends: list[_Backend] = [*self._processes, *([self._thread] if self._thread else [])]
        await asyncio.gather(*(b.close(abort=abort) for b in backends), return_exceptions=True)


# --------------------------------------------------------------------------- the worker side


def _read_frame(stream: Any) -> Any:
    header = stream.read(_HEADER.size)
    if len(header) < _HEADER.size:
        return None
    (size,) = _HEADER.unpack(header)
    data = stream.read(size)
    if len(data) < size:
        return None
    return pickle.loads(data)


def serve() -> None:
    """A worker process's main loop: messages from stdin, replies to stdout, until stdin closes."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C is the fetching process's to handle
    out = os.fdopen(os.dup(1), "wb")
    os.dup2(2, 1)  # whatever else writes to stdout goes to stderr, never into the replies
    sys.stdout = sys.stderr
    inp = os.fdopen(os.dup(0), "rb")

    from hmyframe.engine._work import Host  # pyarrow and the datasets, while the first answers arrive

    def reply(message: tuple[Any, ...]) -> None:
        data = pickle.dumps(message, protocol=pickle.HIGHEST_PROTOCOL)
        out.write(_HEADER.pack(len(data)))
        out.write(data)
        out.flush()

    host = Host(reply)
    while (message := _read_frame(inp)) is not None:
        host.handle(message)
