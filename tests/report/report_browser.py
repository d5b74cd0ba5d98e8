"""A real headless Chromium driven over the Chrome DevTools protocol (aiohttp's websocket client).

``open_page(path)`` loads a local HTML file in Debian's Chromium with the network switched off
and reports what a reader would get: each chart image's loaded state, size and place, console
errors and exceptions, any request that left the file, the elements that stick out of the page,
a full-page screenshot and a printed PDF.
"""

from __future__ import annotations

import asyncio
import base64
import contextlib
import itertools
import json
import os
import re
import shutil
import signal
import subprocess
import tempfile
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import aiohttp


def _find_chromium() -> str | None:
    return shutil.which("chromium") or shutil.which("chromium-browser")


def install_chromium() -> str:
    """Debian's chromium, installed with apt-get when missing (the test command sets up everything).

    Raises an AssertionError naming what failed when it cannot be installed here.
    """
    found = _find_chromium()
    if found:
        return found
    sudo = [] if os.geteuid() == 0 else ["sudo", "-n"]
    for step in (["apt-get", "install", "-y", "-q", "chromium"], ["apt-get", "update", "-q"]):
        done = subprocess.run([*sudo, *step], capture_output=True, text=True, check=False)
        if step[1] == "update" and done.returncode == 0:
            done = subprocess.run(
                [*sudo, "apt-get", "install", "-y", "-q", "chromium"],
                capture_output=True,
                text=True,
                check=False,
            )
        found = _find_chromium()
        if found:
            return found
    raise AssertionError(
        "the report tests need Debian's chromium, and `apt-get install chromium` failed here: "
        + (done.stderr.strip().splitlines() or ["no output"])[-1]
    )


#: Flags Chromium needs here: root in a container, no GPU, no calls home (the network is closed).
FLAGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--disable-extensions",
    "--disable-dev-shm-usage",
    "--hide-scrollbars",
    "--remote-debugging-port=0",
    "--remote-allow-origins=*",
]

CHECK_IMAGES = """
JSON.stringify(Array.from(document.images).map(img => {
  const box = img.getBoundingClientRect();
  return {alt: img.alt, complete: img.complete, natural: [img.naturalWidth, img.naturalHeight],
          shown: [box.width, box.height], scheme: img.src.split(':')[0],
          box: [box.left + window.scrollX, box.top + window.scrollY, box.width, box.height]};
}))
"""


#: The page's width and every element that reaches beyond it (the layout a long name can break),
#: and what the markup holds: scripts, headings, images.
CHECK_LAYOUT = """
JSON.stringify((() => {
  const width = document.documentElement.clientWidth;
  const wide = Array.from(document.body.querySelectorAll('*'))
    .map(e => [e, e.getBoundingClientRect()])
    .filter(([e, box]) => box.right > width + 1 || box.left < -1)
    .map(([e, box]) => ({tag: e.tagName, cls: e.className, left: box.left, right: box.right}));
  return {width: width, scroll_width: document.documentElement.scrollWidth, wide: wide,
          scripts: document.scripts.length, h1: document.querySelectorAll('h1').length,
          tables: document.querySelectorAll('table').length};
})())
"""


@dataclass
class PageReport:
    """What the browser saw (``images``: each chart's alt, load state, natural and shown size,
    and ``box``, its place on the full-page screenshot)."""

    images: list[dict[str, Any]]
    console_errors: list[str]
    requests: list[str]
    title: str
    text: str
    screenshot: bytes = b""
    pdf: bytes = b""
    events: list[str] = field(default_factory=list)
    layout: dict[str, Any] = field(default_factory=dict)


class _Cdp:
    def __init__(self, ws: aiohttp.ClientWebSocketResponse) -> None:
        self.ws = ws
        self.ids = itertools.count(1)
        self.pending: dict[int, asyncio.Future[dict[str, Any]]] = {}
        self.events: list[dict[str, Any]] = []
        self.loaded = asyncio.Event()
        self.reader = asyncio.ensure_future(self._read())

    async def _read(self) -> None:
        async for message in self.ws:
            data = json.loads(message.data)
            if "id" in data and data["id"] in self.pending:
                self.pending.pop(data["id"]).set_result(data)
            else:
                self.events.append(data)
                if data.get("method") == "Page.loadEventFired":
                    self.loaded.set()

    async def send(
        self, method: str, params: dict[str, Any] | None = None, session: str | None = None
    ) -> Any:
        ident = next(self.ids)
        future: asyncio.Future[dict[str, Any]] = asyncio.get_running_loop().create_future()
        self.pending[ident] = future
        message: dict[str, Any] = {"id": ident, "method": method, "params": params or {}}
        if session:
            message["sessionId"] = session
        await self.ws.send_str(json.dumps(message))
        reply = await asyncio.wait_for(future, 60)
        if "error" in reply:
            raise RuntimeError(f"{method}: {reply['error']}")
        return reply.get("result", {})


@contextlib.contextmanager
def chromium() -> Iterator[str]:
    """Start Chromium with a fresh profile; yield its DevTools websocket URL."""
    browser = install_chromium()
    profile = Path(tempfile.mkdtemp(prefix="hmyframe-chromium-"))
    log = profile / "stderr.log"
    # stderr goes to a file, not a pipe: a pipe nobody reads would block a chatty browser
    with log.open("wb") as sink:
        process = subprocess.Popen(
            [browser, *FLAGS, f"--user-data-dir={profile / 'profile'}", "about:blank"],
            stdout=subprocess.DEVNULL,
            stderr=sink,
            start_new_session=True,
        )
    try:
        yield _devtools_url(process, log)
    finally:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(process.pid, signal.SIGTERM)
        try:
            process.wait(10)
        except subprocess.TimeoutExpired:
            os.killpg(process.pid, signal.SIGKILL)
            process.wait(10)
        shutil.rmtree(profile, ignore_errors=True)


def _devtools_url(process: subprocess.Popen[bytes], log: Path, timeout: float = 60) -> str:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        found = re.search(r"DevTools listening on (ws://\S+)", log.read_text(errors="replace"))
        if found:
            return found.group(1)
        if process.poll() is not None:
            raise RuntimeError(
                f"chromium exited ({process.returncode}): {log.read_text(errors='replace')[-2000:]}"
            )
        time.sleep(0.05)
    raise RuntimeError("chromium gave no DevTools endpoint within a minute")


def open_page(path: Path, *, width: int = 1100) -> PageReport:
    """Load ``path`` offline in headless Chromium and report what it shows."""
    uri = path.resolve().as_uri()
    with chromium() as endpoint:
        return asyncio.run(asyncio.wait_for(_drive(endpoint, uri, width), 180))


async def _drive(endpoint: str, uri: str, width: int) -> PageReport:
    async with aiohttp.ClientSession() as http, http.ws_connect(endpoint, max_msg_size=0) as ws:
        cdp = _Cdp(ws)
        target = await cdp.send("Target.createTarget", {"url": "about:blank"})
        session = (
            await cdp.send("Target.attachToTarget", {"targetId": target["targetId"], "flatten": True})
        )["sessionId"]
        for domain in ("Page", "Runtime", "Log", "Network"):
            await cdp.send(f"{domain}.enable", session=session)
        await cdp.send(
            "Network.emulateNetworkConditions",
            {"offline": True, "latency": 0, "downloadThroughput": -1, "uploadThroughput": -1},
            session=session,
        )
        await cdp.send(
            "Emulation.setDeviceMetricsOverride",
            {"width": width, "height": 900, "deviceScaleFactor": 1, "mobile": False},
            session=session,
        )
        cdp.loaded.clear()
        await cdp.send("Page.navigate", {"url": uri}, session=session)
        await asyncio.wait_for(cdp.loaded.wait(), 60)
        images = json.loads(
            (await cdp.send("Runtime.evaluate", {"expression": CHECK_IMAGES}, session=session))["result"][
                "value"
            ]
        )
        title = (await cdp.send("Runtime.evaluate", {"expression": "document.title"}, session=session))[
            "result"
        ]["value"]
        text = (
            await cdp.send("Runtime.evaluate", {"expression": "document.body.innerText"}, session=session)
        )["result"]["value"]
        layout = json.loads(
            (await cdp.send("Runtime.evaluate", {"expression": CHECK_LAYOUT}, session=session))["result"][
                "value"
            ]
        )
        metrics = await cdp.send("Page.getLayoutMetrics", session=session)
        height = int(metrics["cssContentSize"]["height"])
        await cdp.send(
            "Emulation.setDeviceMetricsOverride",
            {"width": width, "height": min(height, 16000), "deviceScaleFactor": 1, "mobile": False},
            session=session,
        )
        shot = await cdp.send(
            "Page.captureScreenshot", {"format": "png", "captureBeyondViewport": True}, session=session
        )
        pdf = await cdp.send("Page.printToPDF", {"printBackground": True}, session=session)
        cdp.reader.cancel()
    errors: list[str] = []
    requests: list[str] = []
    for event in cdp.events:
        method, params = event.get("method"), event.get("params", {})
        if method == "Runtime.consoleAPICalled" and params.get("type") in ("error", "assert"):
            errors.append(
                " ".join(str(a.get("value", a.get("description", ""))) for a in params.get("args", []))
            )
        elif method == "Runtime.exceptionThrown":
            errors.append(str(params.get("exceptionDetails", {}).get("text")))
        elif method == "Log.entryAdded" and params.get("entry", {}).get("level") == "error":
            errors.append(str(params["entry"].get("text")))
        elif method == "Network.requestWillBeSent":
            url = params.get("request", {}).get("url", "")
            if not url.startswith(("data:", "file:")):
                requests.append(url)
    return PageReport(
        images=images,
        console_errors=errors,
        requests=requests,
        title=title,
        text=text,
        screenshot=base64.b64decode(shot["data"]),
        pdf=base64.b64decode(pdf["data"]),
        events=[str(e.get("method")) for e in cdp.events],
        layout=layout,
    )
