"""The asynchronous public API: ``await hmyframe.aio.transactions(...)`` and friends.

Same names and parameters as the synchronous functions of :mod:`hmyframe` (each of those runs
the coroutine of the same name here). Each function's docstring explains every parameter.
"""

from hmyframe import engine as _engine
from hmyframe.engine import *  # noqa: F403  (this module is hmyframe.engine's public API under a short name)
from hmyframe.export import export

__all__ = [*(name for name in vars(_engine) if not name.startswith("_")), "export"]
