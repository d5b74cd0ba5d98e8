"""The asynchronous public API: ``await hmyframe.aio.transactions(...)`` and friends.

Same names and parameters as the synchronous functions of :mod:`hmyframe` (each of those runs
the coroutine of the same name here); see :mod:`hmyframe.engine` for the common keyword arguments.
"""

from __future__ import annotations

from hmyframe.engine import *  # noqa: F403  (this module is hmyframe.engine's public API under a short name)
from hmyframe.engine import __all__ as __all__
