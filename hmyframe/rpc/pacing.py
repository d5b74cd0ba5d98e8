"""Rate limiting and validator pacing: the ``requests_per_second`` bucket, and the adaptive
pacing of the node-wide rate-limited ``*_getAllValidatorInformation*`` listings.

``validator_pacing="auto"`` (the default) sends the listings unpaced until one is refused for
its rate at an endpoint (the node's ``-32000`` limiter message or an HTTP 429); from then on
that endpoint's listings pass a token bucket equal to the node's node-wide limiter
(:data:`NODE_VALIDATOR_PACING`: 1 req/s, burst 3, starting empty since the node's bucket was
just drained) and the refused calls are retried. A node run without the limiter (harmony PR
#5025) is never slowed down; one with it waits or refuses at most the calls of the first
burst. A fixed ``(rate, burst)`` paces from the first call, ``None`` never.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from typing import Literal, TypeAlias

from hmyframe.errors import ConfigError, redact_url, short_repr
from hmyframe.rpc.envelope import Call, Failure
from hmyframe.rpc.limiter import TokenBucket
from hmyframe.rpc.shared import ClientStats

__all__ = ["NODE_VALIDATOR_PACING", "Pacing", "ValidatorPacing", "is_validator_listing"]

_log = logging.getLogger("hmyframe.rpc")

#: ``(rate, burst)`` of the node's node-wide limiter on ``*_getAllValidatorInformation*``
#: (1 request per second, burst 3): the pacing ``validator_pacing="auto"`` switches on.
NODE_VALIDATOR_PACING: tuple[float, int] = (1.0, 3)

#: What ``Client(validator_pacing=...)`` accepts: ``"auto"``, a fixed ``(rate, burst)``, or ``None``.
ValidatorPacing: TypeAlias = Literal["auto"] | tuple[float, int] | None


def is_validator_listing(method: str) -> bool:
    """Whether ``method`` is one of the node-wide rate-limited ``*_getAllValidatorInformation*`` calls.

    Parameters
    ----------
    method
        A JSON-RPC method name.

    Returns
    -------
    bool
        ``True`` for ``hmy_getAllValidatorInformation``, ``hmyv2_...ByBlockNumber`` etc.
    """
    return method.partition("_")[2].startswith("getAllValidatorInformation")


class Pacing:
    """One client's request-rate bucket and its per-endpoint validator pacers.

    Parameters
    ----------
    requests_per_second
        Cap on HTTP requests per second (burst 1), or ``None``.
    validator_pacing
        ``"auto"``, a fixed ``(rate, burst)`` or ``None`` (see the module docstring).
    stats
        The client's counters (``pacing_wait``, ``pacing_engaged``).

    Raises
    ------
    ConfigError
        If ``validator_pacing`` is none of those.
    """

    def __init__(
        self, requests_per_second: float | None, validator_pacing: ValidatorPacing, stats: ClientStats
    ) -> None:
        pacing: object = validator_pacing
        auto = isinstance(pacing, str) and pacing == "auto"
        if not auto and pacing is not None and (not isinstance(pacing, tuple | list) or len(pacing) != 2):
            raise ConfigError(
                'validator_pacing must be "auto" (the default: pace after the first rate-limit refusal), '
                f"a (rate, burst) pair such as (1.0, 3), or None (never pace), got {short_repr(validator_pacing)}"
            )
        self._fixed: tuple[float, int] | None = None
        if isinstance(pacing, tuple | list):
            TokenBucket(pacing[0], pacing[1])  # validates both numbers
            self._fixed = (float(pacing[0]), int(pacing[1]))
        self._auto = auto
        self._stats = stats
        self._pacers: dict[str, TokenBucket] = {}
        #: The ``requests_per_second`` bucket (``None``: no cap).
        self.rps = None if requests_per_second is None else TokenBucket(requests_per_second, 1)

    async def wait_turn(self, url: str, calls: Sequence[Call]) -> None:
        """Wait for the pacer of ``url``, if ``calls`` is a validator listing it paces."""
        # validator listings are solo: a paced call is always alone in its request
        if len(calls) != 1 or not is_validator_listing(calls[0].method):
            return
        pacer = self._pacers.get(url)
        if pacer is None and self._fixed is not None:
            pacer = self._pacers[url] = TokenBucket(*self._fixed)
        if pacer is not None:
            waited = await pacer.acquire()  # then add: `+= await` would read the sum before waiting
            self._stats.pacing_wait += waited

    def refused(self, url: str, failures: Sequence[tuple[Call, Failure]]) -> None:
        """``"auto"``: pace ``url``'s validator listings once one is refused for its rate."""
        if not self._auto or url in self._pacers:
            return
        if not any(f.rate and is_validator_listing(c.method) for c, f in failures):
            return
        # the node's bucket has just been drained: start ours empty, so the next listing waits
        # for the token the node refills, and no later one outruns the node's rate
        self._pacers[url] = TokenBucket(*NODE_VALIDATOR_PACING, tokens=0)
        self._stats.pacing_engaged += 1
        _log.info(
            "hmyframe: %s refused a validator listing for its rate (%s); pacing them at %g req/s, burst %d from now on",
            redact_url(url),
            failures[0][1].message,
            *NODE_VALIDATOR_PACING,
        )
