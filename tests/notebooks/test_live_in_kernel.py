"""plot.live in a real IPython kernel, spoken to over the Jupyter messaging protocol (what
JupyterLab does): the view's output is one display whose later frames arrive as
``update_display_data`` messages naming its ``display_id`` (a front end redraws that output in
place), they keep arriving while other cells run, and those cells get their replies at once."""

from __future__ import annotations

import base64
import time
from typing import Any

import pytest

jupyter_client = pytest.importorskip("jupyter_client")
pytest.importorskip("ipykernel")

SETUP = """
from hmyframe.devnet import Devnet
import hmyframe.plot
net = Devnet(shards=2, blocks=300, seed=9, validator_rate_limit=False, mine_every=0.5)
await net.start()
"""


class Kernel:
    """A kernel and every iopub message it sent, by the request that caused it."""

    def __init__(self) -> None:
        self.manager, self.client = jupyter_client.manager.start_new_kernel(kernel_name="python3")
        self.messages: list[dict[str, Any]] = []

    def drain(self, seconds: float) -> None:
        end = time.monotonic() + seconds
        while (left := end - time.monotonic()) > 0:
            try:
                self.messages.append(self.client.get_iopub_msg(timeout=min(left, 0.2)))
            except Exception:  # noqa: BLE001 - queue.Empty: nothing yet
                continue

    def run(self, code: str, timeout: float = 60.0) -> tuple[str, float]:
        """Execute ``code``; its msg id and the seconds until the kernel replied."""
        began = time.monotonic()
        msg_id = self.client.execute(code)
        while True:
            reply = self.client.get_shell_msg(timeout=timeout)
            if reply["parent_header"].get("msg_id") == msg_id:
                break
        took = time.monotonic() - began
        assert reply["content"]["status"] == "ok", reply["content"]
        self.drain(0.1)
        return msg_id, took

    def of(self, kind: str) -> list[dict[str, Any]]:
        return [m for m in self.messages if m["header"]["msg_type"] == kind]

    def close(self) -> None:
        self.client.stop_channels()
        self.manager.shutdown_kernel(now=True)


def test_the_live_view_updates_its_one_output_in_place_while_other_cells_run() -> None:
    kernel = Kernel()
    try:
        kernel.run(SETUP)
        started, took = kernel.run("view = hmyframe.plot.live(rpc=net.url, minutes=5, every=0.5, seconds=12)")
        assert took < 5  # the cell returns at once: the view runs as a task on the kernel's loop
        kernel.drain(3)
        # other cells run meanwhile, answered at once
        sleeping, slept = kernel.run("import asyncio\nawait asyncio.sleep(2)\nprint('frames', view.frames)")
        assert slept < 4
        quick, took = kernel.run("41 + 1")
        assert took < 2
        ended, _ = kernel.run("await view\nprint(view)")  # until it stops by itself (seconds=12)
        kernel.run("await net.stop()")
    finally:
        kernel.close()
    (shown,) = [m for m in kernel.of("display_data") if m["parent_header"]["msg_id"] == started]
    display_id = shown["content"]["transient"]["display_id"]
    updates = [
        m for m in kernel.of("update_display_data") if m["content"]["transient"]["display_id"] == display_id
    ]
    frames = [
        base64.b64decode(m["content"]["data"]["image/png"])
        for m in updates
        if "image/png" in m["content"]["data"]
    ]
    assert len(frames) >= 6, len(frames)
    assert all(f.startswith(b"\x89PNG") for f in frames)
    assert len(set(frames)) >= 4  # the chart changes as blocks arrive
    # frames kept coming while another cell was executing (between its busy and idle states):
    # a front end routes them to the view's output by display_id, wherever they come from
    states = [
        (i, m["content"]["execution_state"])
        for i, m in enumerate(kernel.messages)
        if m["header"]["msg_type"] == "status" and m["parent_header"].get("msg_id") == sleeping
    ]
    busy = next(i for i, state in states if state == "busy")
    idle = next(i for i, state in states if state == "idle")
    assert sum(busy < kernel.messages.index(m) < idle for m in updates) >= 2
    # the view's output is the only display it made: no second figure anywhere
    assert [m for m in kernel.of("display_data") if "image/png" in m["content"]["data"]] == []
    # every frame the view drew went to that one output, and it stopped by itself
    said = "".join(m["content"]["text"] for m in kernel.of("stream") if m["parent_header"]["msg_id"] == ended)
    assert said.startswith("<LiveView stopped: "), said
    assert said.rstrip().endswith(f" {len(frames)} frames>"), said
    results = [m for m in kernel.of("execute_result") if m["parent_header"]["msg_id"] == quick]
    assert results[0]["content"]["data"]["text/plain"] == "42"
    printed = "".join(
        m["content"]["text"] for m in kernel.of("stream") if m["parent_header"]["msg_id"] == sleeping
    )
    assert printed.startswith("frames ")
