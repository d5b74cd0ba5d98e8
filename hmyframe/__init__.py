"""hmyframe: Harmony blockchain data as exact, typed pandas DataFrames."""

from __future__ import annotations

from hmyframe.errors import HmyframeError

__version__ = "0.1.0"

__all__ = ["HmyframeError", "__version__"]
