"""The asynchronous public API: ``await hmyframe.aio.transactions(...)`` and friends.

Same names and parameters as the synchronous functions of :mod:`hmyframe` (each of those runs
the coroutine of the same name here); see :mod:`hmyframe.fetch` for the common keyword arguments.
"""

from __future__ import annotations

from hmyframe.fetch import *  # noqa: F403  (this module is hmyframe.fetch's public API under a short name)
from hmyframe.fetch import __all__ as __all__
