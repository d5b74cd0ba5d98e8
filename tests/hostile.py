"""Small hostile endpoints on 127.0.0.1 (ephemeral ports), served from background threads.

* :class:`RawServer` speaks HTTP by hand over a socket, for answers no web framework sends:
  an endless chunked body, a body announced as 1 GiB, no answer at all.
* :class:`Proxy` is an aiohttp app in front of a devnet port: it forwards each request and lets
  a test rewrite requests or answers (another network's shard URL, 502s for some block ranges,
  a trace port that hides ``hmy_getBlockByNumber``).
* :func:`peak_rss_of_cli` runs the command line in a child process and reports the child's
  peak resident memory (its ``VmHWM``, read by the child itself), killing it past a hard limit.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import socket
import ssl
import subprocess
import sys
import threading
import time
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import aiohttp
from aiohttp import web

Handler = Callable[[socket.socket, bytes], None]


class RawServer:
    """A one-handler HTTP server on raw sockets; every request runs ``handler(conn, body)``."""

    def __init__(self, handler: Handler) -> None:
        self.handler = handler
        self.requests = 0
        self._sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        self._sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        self._sock.bind(("127.0.0.1", 0))
        self._sock.listen(16)
        self._closed = threading.Event()
        self._thread = threading.Thread(target=self._accept, daemon=True)
        self._thread.start()

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self._sock.getsockname()[1]}"

    def _accept(self) -> None:
        while not self._closed.is_set():
            try:
                conn, _ = self._sock.accept()
            except OSError:
                return
            threading.Thread(target=self._serve, args=(conn,), daemon=True).start()

    def _serve(self, conn: socket.socket) -> None:
        with conn:
            try:
                data = b""
                while b"\r\n\r\n" not in data:
                    piece = conn.recv(65536)
                    if not piece:
                        return
                    data += piece
                head, _, body = data.partition(b"\r\n\r\n")
                length = 0
                for line in head.split(b"\r\n")[1:]:
                    name, _, value = line.partition(b":")
                    if name.strip().lower() == b"content-length":
                        length = int(value.strip())
                while len(body) < length:
                    piece = conn.recv(65536)
                    if not piece:
                        return
                    body += piece
                self.requests += 1
                self.handler(conn, body)
            except OSError:
                return

    def close(self) -> None:
        self._closed.set()
        with contextlib.suppress(OSError):
            self._sock.close()


def endless_chunked(conn: socket.socket, body: bytes) -> None:
    """A 200 answer whose chunked body never ends (1 MiB chunks, as fast as the client reads)."""
    conn.sendall(b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n")
    start = b'{"jsonrpc":"2.0","id":1,"result":"'
    conn.sendall(b"%x\r\n%s\r\n" % (len(start), start))
    chunk = b"a" * (1 << 20)
    frame = b"%x\r\n%s\r\n" % (len(chunk), chunk)
    while True:
        conn.sendall(frame)


def announces_a_gibibyte(conn: socket.socket, body: bytes) -> None:
    """A 200 answer announcing a 1 GiB body, then sending it slowly (64 KiB at a time)."""
    conn.sendall(
        b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: %d\r\n\r\n" % (1 << 30)
    )
    chunk = b" " * (1 << 16)
    for _ in range((1 << 30) // len(chunk)):
        conn.sendall(chunk)


def never_answers(conn: socket.socket, body: bytes) -> None:
    """Read the request, then say nothing until the client hangs up."""
    conn.settimeout(600)
    with contextlib.suppress(OSError):
        while conn.recv(65536):
            pass


def json_answer(payload: bytes, *, status: int = 200, headers: dict[str, str] | None = None) -> Handler:
    """A handler sending ``payload`` with ``status`` (and extra ``headers``) to every request."""

    def handler(conn: socket.socket, body: bytes) -> None:
        extra = "".join(f"{k}: {v}\r\n" for k, v in (headers or {}).items()).encode()
        conn.sendall(
            b"HTTP/1.1 %d X\r\nContent-Type: application/json\r\nContent-Length: %d\r\n%s\r\n%s"
            % (status, len(payload), extra, payload)
        )

    return handler


# --------------------------------------------------------------------------- aiohttp proxy

#: ``rewrite(request_json) -> answer`` : ``None`` forwards the request unchanged; a
#: ``(status, body_bytes)`` pair answers without forwarding.
Rewrite = Callable[[Any], Awaitable[tuple[int, bytes] | None] | tuple[int, bytes] | None]


class Proxy:
    """Forwards POSTs to ``target``, unless ``rewrite`` answers them itself.

    With ``split_batches``, a JSON-RPC batch is shown to ``rewrite`` call by call (each as a
    request of its own), and the calls it lets through are forwarded one by one; the answers
    are put back together (a non-200 answer to any call answers the whole batch).
    """

    def __init__(
        self,
        target: str,
        rewrite: Rewrite,
        *,
        split_batches: bool = False,
        tls: ssl.SSLContext | None = None,
    ) -> None:
        self.target = target
        self.rewrite = rewrite
        self.split_batches = split_batches
        self.tls = tls  # served over https with this (server) context
        self.requests: list[Any] = []
        self._loop = asyncio.new_event_loop()
        self._ready = threading.Event()
        self._port = 0
        self._thread = threading.Thread(target=self._run, daemon=True)
        self._thread.start()
        self._ready.wait(10)

    @property
    def url(self) -> str:
        return f"{'https' if self.tls else 'http'}://127.0.0.1:{self._port}"

    def _run(self) -> None:
        asyncio.set_event_loop(self._loop)
        self._loop.run_until_complete(self._start())
        self._ready.set()
        self._loop.run_forever()

    async def _start(self) -> None:
        self._session = aiohttp.ClientSession()
        app = web.Application(client_max_size=64 << 20)
        app.router.add_post("/", self._handle)
        self._runner = web.AppRunner(app)
        await self._runner.setup()
        site = web.TCPSite(self._runner, "127.0.0.1", 0, ssl_context=self.tls)
        await site.start()
        self._port = site._server.sockets[0].getsockname()[1]  # type: ignore[union-attr]

    async def _handle(self, request: web.Request) -> web.Response:
        raw = await request.read()
        body = json.loads(raw)
        self.requests.append(body)
        if self.split_batches and isinstance(body, list):
            parts = [await self._answer(call, json.dumps(call).encode()) for call in body]
            failed = next(((status, payload) for status, payload in parts if status != 200), None)
            status, payload = failed or (200, json.dumps([json.loads(p) for _, p in parts]).encode())
        else:
            status, payload = await self._answer(body, raw)
        return web.Response(status=status, body=payload, content_type="application/json")

    async def _answer(self, body: Any, raw: bytes) -> tuple[int, bytes]:
        answer = self.rewrite(body)
        if asyncio.iscoroutine(answer):
            answer = await answer
        if answer is not None:
            status, payload = answer
            return status, payload
        async with self._session.post(
            self.target, data=raw, headers={"Content-Type": "application/json"}
        ) as resp:
            return resp.status, await resp.read()

    def close(self) -> None:
        async def stop() -> None:
            await self._session.close()
            await self._runner.cleanup()

        asyncio.run_coroutine_threadsafe(stop(), self._loop).result(10)
        self._loop.call_soon_threadsafe(self._loop.stop)
        self._thread.join(10)
        self._loop.close()


def rpc_result(request: Any, result: Any) -> bytes:
    """The JSON-RPC answer to ``request`` (a call or a batch) carrying ``result`` for each call."""
    items = request if isinstance(request, list) else [request]
    answers = [{"jsonrpc": "2.0", "id": item["id"], "result": result} for item in items]
    return json.dumps(answers if isinstance(request, list) else answers[0]).encode()


# --------------------------------------------------------------------------- memory of a child

# The child's own peak: VmHWM of its address space. (ru_maxrss is no good here: at exec the
# kernel folds the parent's high-water mark into it, so it reports the test process's size.)
_CHILD = """
import resource, sys
from hmyframe.cli import main
def peak_kib():
    try:
        with open("/proc/self/status") as fh:
            for line in fh:
                if line.startswith("VmHWM:"):
                    return int(line.split()[1])
    except OSError:
        pass
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
try:
    code = main(sys.argv[2:])
finally:
    with open(sys.argv[1], "w") as fh:
        fh.write(str(peak_kib()))
raise SystemExit(code)
"""


def _rss_kib(pid: int) -> int:
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    except (OSError, ValueError):
        pass
    return 0


def peak_rss_of_cli(
    argv: list[str],
    tmp: Path,
    *,
    kill_above_mib: int,
    timeout: float = 120.0,
    env: dict[str, str] | None = None,
) -> tuple[int | None, str, str, int]:
    """Run ``hmyframe ARGV`` in a child; return ``(exit code, stdout, stderr, peak RSS in MiB)``.

    The peak is the child's own high-water mark (``VmHWM``); a watchdog kills the child (exit code ``None``)
    once its resident memory passes ``kill_above_mib``, or after ``timeout`` seconds, and
    then reports the highest resident size it saw.
    """
    report = tmp / f"rss-{time.monotonic_ns()}.txt"
    proc = subprocess.Popen(
        [sys.executable, "-c", _CHILD, str(report), *argv],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env={**os.environ, **(env or {})},
    )
    seen = 0
    killed = False
    deadline = time.monotonic() + timeout

    def watch() -> None:
        nonlocal seen, killed
        while proc.poll() is None:
            seen = max(seen, _rss_kib(proc.pid))
            if seen > kill_above_mib * 1024 or time.monotonic() > deadline:
                killed = True
                proc.kill()
                return
            time.sleep(0.02)

    watcher = threading.Thread(target=watch, daemon=True)
    watcher.start()
    out, err = proc.communicate()
    watcher.join()
    if killed or not report.exists():
        return None, out, err, max(seen // 1024, kill_above_mib if killed else 0)
    return proc.returncode, out, err, int(report.read_text()) // 1024
