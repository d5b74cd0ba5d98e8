"""What ``start`` / ``end`` of a block-range fetch accept, and their resolution to block numbers.

Accepted forms (``end`` is inclusive; every form is resolved per shard, since shards number
their blocks independently):

* a block number: ``1500000``, ``"1_500_000"``, ``"1.5M"``, ``"250K"``, ``"1B"``; ``"latest"``
  is the shard's head;
* a date or a time, in UTC unless it carries its own zone: ``"2026-01-01"``,
  ``"2026-01-01T12:00"``, ``datetime``, ``date``, ``pandas.Timestamp``, ``numpy.datetime64``.
  A start time is the first block at or after it; an end time the last block at or before it;
  an end *date* covers its whole day (the last block before the next midnight);
* relative: a start of ``-N`` (or ``"-N"``) is the ``N`` blocks that end at ``end`` (the head by
  default: ``-1000`` is the last 1000 blocks); an end of ``"+N"`` is ``N`` blocks from ``start``;
* a whole range given as ``start`` (``end`` left out), cryo style: ``"-1000:"``, ``"1M:1.1M"``,
  ``":700"`` (blocks 0..700), ``"2M:"`` (to the head), ``"1M:+500"``.

Times are found by searching block timestamps (they never decrease): the two ends of the chain,
then rounds of about twenty probes sent as one batch (the interpolated guess and the block before
it, points around the guess, an even grid), each round shrinking the interval at least 8-fold:
two requests on a chain of regular blocks, a handful on a long irregular one. Every timestamp learnt and every
resolution found inside the chain is remembered for the life of the process (per chain and
shard), so resolving the same time again sends no request.
"""

from __future__ import annotations

import math
import operator
import re
import sys
import threading
from dataclasses import dataclass
from datetime import UTC, date, datetime, timedelta
from decimal import Decimal
from typing import TYPE_CHECKING, Literal, TypeAlias

from hmyframe._tasks import gather_or_raise
from hmyframe.errors import ConfigError, ResponseShapeError, short_repr

if TYPE_CHECKING:
    from hmyframe.engine._session import Session

__all__ = ["ACCEPTED", "BlockSpec", "Bound", "parse_range", "resolve_range"]

#: A caller's ``start`` / ``end``: a block number, a spec string, or a date / datetime / Timestamp.
BlockSpec: TypeAlias = int | str | date

#: What the error messages list as accepted.
ACCEPTED = (
    "a block number (1500000, '1.5M', '250K', '1_500_000'), 'latest', a date or time in UTC "
    "('2026-01-01', '2026-01-01T12:00', datetime, pandas.Timestamp), a start of -N (the last N "
    "blocks up to end), an end of '+N' (N blocks from start), or a whole range as start: "
    "'-1000:', '1M:1.1M', ':700', '2M:'"
)

_NUMBER = re.compile(r"(\d+(?:\.\d+)?)([kmb]?)", re.I)
_SCALE = {"": 1, "k": 10**3, "m": 10**6, "b": 10**9}
_DATE = re.compile(r"\d{4}-\d{2}-\d{2}")


@dataclass(frozen=True)
class Bound:
    """One parsed end of a range.

    ``kind`` is ``"block"`` (``value`` is the number), ``"latest"`` (the head), ``"from_time"``
    (the first block whose timestamp is at least ``value`` unix seconds), ``"before_time"`` (the
    last block whose timestamp is below ``value``), ``"back"`` (a start ``value`` blocks long,
    ending at the end) or ``"forward"`` (an end ``value`` blocks from the start).
    """

    kind: Literal["block", "latest", "from_time", "before_time", "back", "forward"]
    value: int = 0


def _bad(what: str, value: object, why: str = "") -> ConfigError:
    why = f" ({why})" if why else ""
    return ConfigError(f"{what} {short_repr(value)} is not understood{why}; accepted: {ACCEPTED}")


def _number(text: str, what: str, original: object) -> int | None:
    """A block count or number written with ``_`` and K/M/B suffixes; ``None`` if not a number."""
    m = _NUMBER.fullmatch(text.replace("_", ""))
    if m is None:
        return None
    value = Decimal(m[1]) * _SCALE[m[2].lower()]
    if value != value.to_integral_value():
        raise _bad(what, original, "not a whole block number")
    return int(value)


def _time(value: datetime, side: Literal["start", "end"]) -> Bound:
    """A point in time (naive means UTC)."""
    if value.tzinfo is None:
        value = value.replace(tzinfo=UTC)
    seconds = value.timestamp()
    if side == "start":  # block timestamps are whole seconds
        return Bound("from_time", math.ceil(seconds))
    return Bound("before_time", math.floor(seconds) + 1)


def _day(value: date, side: Literal["start", "end"]) -> Bound:
    """A whole UTC day: from its midnight, or up to the next one."""
    midnight = datetime(value.year, value.month, value.day, tzinfo=UTC)
    if side == "start":
        return Bound("from_time", int(midnight.timestamp()))
    return Bound("before_time", int((midnight + timedelta(days=1)).timestamp()))


def _bound(value: object, side: Literal["start", "end"], what: str) -> Bound:
    """Parse one bound (not a range string)."""
    if isinstance(value, bool | float):
        raise _bad(what, value, "floats and booleans are not block numbers")
    if isinstance(value, datetime):
        return _time(value, side)
    if isinstance(value, date):
        return _day(value, side)
    np = sys.modules.get("numpy")  # a numpy.datetime64 exists only once numpy is loaded
    if np is not None and isinstance(value, np.datetime64):
        if np.isnat(value):
            raise _bad(what, value, "not a time")
        seconds = value.astype("datetime64[us]").astype(np.int64) / 1e6
        return _time(datetime.fromtimestamp(seconds, tz=UTC), side)
    if isinstance(value, str):
        return _text_bound(value, side, what)
    try:
        number = operator.index(value)  # type: ignore[arg-type]  # ints, numpy integers
    except TypeError:
        raise _bad(what, value) from None
    if number < 0:
        if side == "start":
            return Bound("back", -number)
        raise _bad(what, value, "an end block cannot be negative; '+N' counts blocks from start")
    return Bound("block", number)


def _text_bound(value: str, side: Literal["start", "end"], what: str) -> Bound:
    text = value.strip()
    if text.lower() == "latest":
        return Bound("latest")
    sign = text[:1]
    if sign in "+-" and text:
        count = _number(text[1:], what, value)
        if count is not None:
            if sign == "-" and side == "start":
                return Bound("back", count)
            if sign == "+" and side == "end":
                return Bound("forward", count)
            where = "a start" if sign == "-" else "an end"
            raise _bad(what, value, f"'{sign}N' is only meaningful as {where}")
    number = _number(text, what, value)
    if number is not None:
        return Bound("block", number)
    if _DATE.fullmatch(text):
        try:
            return _day(date.fromisoformat(text), side)
        except ValueError:
            raise _bad(what, value, "not a calendar date") from None
    try:
        return _time(datetime.fromisoformat(text), side)
    except ValueError:
        raise _bad(what, value) from None


def _split_range(text: str) -> tuple[str, str] | None:
    """``"A:B"`` as its two halves when both are block forms (not the colons of a time)."""
    if text.count(":") != 1:
        return None
    left, right = (part.strip() for part in text.split(":"))
    for part in (left, right):
        if part and part.lower() != "latest" and _number(part.lstrip("+-"), "range", text) is None:
            return None
    return left, right


def parse_range(start: object, end: object) -> tuple[Bound, Bound | None]:
    """Parse a caller's ``start`` / ``end`` (see the module documentation).

    Returns
    -------
    (Bound, Bound or None)
        ``None`` for an end left out (the shard's head).

    Raises
    ------
    ConfigError
        Naming the value that is not understood and listing the accepted forms.
    """
    if start is None:
        raise ConfigError(f"a block range needs a start; accepted: {ACCEPTED}")
    if isinstance(start, str) and (halves := _split_range(start)) is not None:
        if end is not None:
            raise ConfigError(
                f"start {start!r} is already a whole range: leave end out (got end={short_repr(end)})"
            )
        left, right = halves
        first = _bound(left, "start", "range start") if left else Bound("block", 0)
        last = _bound(right, "end", "range end") if right else None
    else:
        first = _bound(start, "start", "start")
        last = None if end is None else _bound(end, "end", "end")
    if first.kind == "back" and last is not None and last.kind == "forward":
        raise ConfigError(
            f"start {short_repr(start)} counts back from end and end {short_repr(end)} counts forward "
            "from start: give at least one of them as a block or a time"
        )
    return first, last


# --------------------------------------------------------------------------- resolution


#: Distances from the interpolated guess probed in each round of a time search, and the number
#: of evenly spaced probes (see :meth:`_Finder.first_at`). ``bench/time_search.py`` counts the
#: requests on simulated chains: 2 for regular block times, 5 to 7 with irregular ones (about 50
#: headers in all), where a binary search asks 24 one header at a time.
_STEPS = (4, 16, 64, 256)
_GRID = 7

_lock = threading.Lock()
#: (chain id, shard) -> {block number: unix timestamp}: facts of a finalised chain.
_timestamps: dict[tuple[str, int], dict[int, int]] = {}
#: (chain id, shard, unix seconds) -> first block at or after that time (found inside the chain).
_first_at: dict[tuple[str, int, int], int] = {}


class _Finder:
    """Finds blocks by timestamp on one shard of one chain."""

    def __init__(self, session: Session, shard: int, chain_id: str) -> None:
        self.session = session
        self.shard = shard
        self.chain_id = chain_id
        with _lock:
            self.known = _timestamps.setdefault((chain_id, shard), {})

    async def timestamps(self, numbers: list[int]) -> list[int]:
        missing = [n for n in dict.fromkeys(numbers) if n not in self.known]
        if missing:
            methods = self.session.methods  # (the configured generation: a node may serve only hmy_)
            v1 = methods.version == 1
            headers = await gather_or_raise(
                methods.get_block_by_number(n, full_tx=False, incl_staking=v1, shard=self.shard)
                for n in missing
            )
            from hmyframe.datasets import Bad, parse_int

            for n, header in zip(missing, headers, strict=True):
                raw = header.get("timestamp") if isinstance(header, dict) else None
                try:
                    stamp = parse_int(raw)
                except Bad:
                    raise ResponseShapeError(
                        methods.method("getBlockByNumber"),
                        "timestamp",
                        header if raw is None else raw,
                        f"the unix timestamp of block {n} of shard {self.shard}",
                    ) from None
                with _lock:
                    self.known[n] = stamp
        return [self.known[n] for n in numbers]

    async def first_at(self, when: int) -> int:
        """The first block whose timestamp is at least ``when`` (``head + 1`` if none yet)."""
        key = (self.chain_id, self.shard, when)
        with _lock:
            found = _first_at.get(key)
        if found is not None:
            return found
        head = await self.session.head(self.shard)
        lo, hi = 0, head
        ts_lo, ts_hi = await self.timestamps([lo, hi])
        if ts_lo >= when:
            return self._found(key, 0)
        if ts_hi < when:
            return head + 1
        # ts(lo) < when <= ts(hi): the answer is in lo+1..hi. Each round asks, in one batch,
        # the interpolated guess and the block before it (exact on a regular chain), points at
        # growing distances around it (a guess off by a few long blocks), and an even grid over
        # the interval (so it shrinks at least 8-fold whatever the timestamps do).
        while hi - lo > 1:
            width = hi - lo
            guess = lo + -(-(when - ts_lo) * width // max(ts_hi - ts_lo, 1))  # ceiling
            probes = {guess - 1, guess}
            for step in _STEPS:
                probes |= {guess - step, guess + step}
            probes |= {lo + width * i // (_GRID + 1) for i in range(1, _GRID + 1)}
            ordered = sorted(n for n in probes if lo < n < hi)
            for n, ts in zip(ordered, await self.timestamps(ordered), strict=True):
                if ts >= when:
                    hi, ts_hi = n, ts
                    break
                lo, ts_lo = n, ts
        return self._found(key, hi)

    def is_head_bound(self, when: int) -> bool:
        """Whether :meth:`first_at` found no block at or after ``when`` (so it gave ``head + 1``)."""
        with _lock:
            return (self.chain_id, self.shard, when) not in _first_at

    def _found(self, key: tuple[str, int, int], block: int) -> int:
        with _lock:
            _first_at[key] = block
        return block


def _when(seconds: int) -> str:
    return datetime.fromtimestamp(seconds, tz=UTC).strftime("%Y-%m-%d %H:%M:%S UTC")


class _Resolver:
    """What resolving one caller's range on one shard asks of the session (the time search made
    once, on first need)."""

    def __init__(self, session: Session, shard: int, end_offset: int) -> None:
        self.session = session
        self.shard = shard
        self.end_offset = end_offset
        self._finder: _Finder | None = None

    async def finder(self) -> _Finder:
        if self._finder is None:
            self._finder = _Finder(self.session, self.shard, await self.session.chain_id())
        return self._finder

    async def head(self) -> int:
        return await self.session.head(self.shard) - self.end_offset

    async def end(self, last: Bound | None, given: object) -> int | None:
        """The last block (``None``: it counts from the start, ``"+N"``)."""
        if last is None or last.kind == "latest":
            return await self.head()
        if last.kind == "block":
            return last.value
        if last.kind != "before_time":
            return None
        hi = await (await self.finder()).first_at(last.value) - 1
        if hi < 0:
            raise ConfigError(
                f"end {short_repr(given)}: shard {self.shard} has no block before {_when(last.value)}"
            )
        if self.end_offset or (await self.finder()).is_head_bound(last.value):
            hi = min(hi, await self.head())
        return hi

    async def start(self, first: Bound, hi: int | None, given: object) -> int:
        """The first block (``hi``: the last one, for a start counting back from it)."""
        if first.kind == "block":
            return first.value
        if first.kind == "latest":
            return await self.head()
        if first.kind == "from_time":
            finder = await self.finder()
            lo = await finder.first_at(first.value)
            if finder.is_head_bound(first.value):
                stamp = (await finder.timestamps([lo - 1]))[0]
                raise ConfigError(
                    f"start {short_repr(given)}: shard {self.shard} has no block at or after "
                    f"{_when(first.value)} (its head, block {lo - 1}, is at {_when(stamp)})"
                )
            return lo
        # back: the N blocks that end at the end
        assert hi is not None
        return max(0, hi - first.value + 1)


async def resolve_range(
    session: Session,
    start: object,
    end: object,
    shard: int,
    *,
    end_offset: int = 0,
    end_reason: str = "",
) -> tuple[int, int]:
    """Block numbers ``(first, last)`` of a caller's ``start`` / ``end`` on ``shard``.

    Parameters
    ----------
    session
        An open session.
    start, end
        As the fetchers take them (see the module documentation).
    shard
        The shard whose blocks are meant.
    end_offset, end_reason
        Subtracted from the head when ``end`` is left out or ``"latest"``, and why (see
        :func:`hmyframe.datasets.sources.head_offset`).

    Returns
    -------
    (int, int)
        Inclusive block numbers. Plain block numbers are resolved without any request.

    Raises
    ------
    ConfigError
        A spec that is not understood, a time outside the shard's blocks, or a start after
        the end.
    """
    first, last = parse_range(start, end)
    at = _Resolver(session, shard, end_offset)
    # the end first (unless it counts from the start), then the start
    hi = await at.end(last, end if end is not None else start)
    lo = await at.start(first, hi, start)
    if hi is None:  # forward: N blocks from the start
        assert last is not None
        hi = lo + last.value - 1
    if hi < lo and (last is None or last.kind == "latest"):
        why = f" (and {end_reason})" if end_offset and end_reason else ""
        raise ConfigError(
            f"start block {lo} is beyond the head of shard {shard}: the head is block {hi + end_offset}{why}"
        )
    if hi < lo:
        plain = first.kind == "block" and last is not None and last.kind == "block"
        given = "" if plain else f" (start={short_repr(start)}, end={short_repr(end)} on shard {shard})"
        raise ConfigError(f"end block {hi} is before start block {lo}{given}")
    return lo, hi
