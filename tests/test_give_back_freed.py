"""``give_back_freed``: freed memory handed back to the system every ``TRIM_BYTES`` of converted
answers, only in a process hmyframe owns (a child process here: the flag is process-wide)."""

from __future__ import annotations

import subprocess
import sys

CHILD = """
import hmyframe._lazy as lazy
calls = []
lazy._trim["call"] = lambda pad: calls.append(pad) or 1
step = lazy.TRIM_BYTES // 4
for _ in range(8):
    lazy.give_back_freed(step)
before = len(calls)
lazy.arrow_system_allocator()  # hmyframe owns the process from here
for _ in range(9):
    lazy.give_back_freed(step)
print(before, calls)
"""


def test_freed_memory_is_given_back_every_trim_bytes_in_an_owned_process_only() -> None:
    out = subprocess.run([sys.executable, "-c", CHILD], capture_output=True, text=True, check=True).stdout
    assert out.split(maxsplit=1) == ["0", "[0, 0]\n"]
