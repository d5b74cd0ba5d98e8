"""Fault injection for the devnet: make the next N (or a seeded share of) requests fail.

A :class:`FaultRule` says *what* goes wrong and *which* requests it hits; a
:class:`FaultInjector` (``devnet.faults``) holds the rules and is consulted by the server for
every HTTP request. Rules can be added and cleared at runtime from any thread.

Kinds
-----
``status``
    Answer with an HTTP status (``status=429|500|502|503|504|...``) and a short text body;
    for 429, ``retry_after`` (seconds) adds a ``Retry-After`` header.
``reset``
    Close the connection without answering (the client sees a disconnect / reset).
``truncate``
    Send only the first half of the real answer (valid HTTP, cut JSON).
``delay``
    Wait ``delay`` seconds before handling the request, then answer normally.
``shuffle``
    Answer a batch with its items in a (seeded) shuffled order.
``rpc_error``
    Replace the answer to each matching JSON-RPC call by an error object
    ``{"code": code, "message": message}`` (default: the node's -32000 rate-limit message).
``logs``
    A node that drops or repeats logs: in each matching ``getLogs`` answer (``hmy_getLogs``,
    ``eth_getLogs``, or the rule's ``method``) with more than ``at`` logs, the log at position
    ``at`` (negative: from the end) is repeated (``logs=repeat``, the default), left out
    (``logs=drop``) or names a transaction hash of no transaction (``logs=foreign``:
    :data:`FOREIGN_LOG_HASH`). ``times`` counts the answers changed.

Matching and counting
---------------------
``method``
    Only requests carrying this JSON-RPC method. For the HTTP-level kinds a batch matches
    when any of its items has the method; ``rpc_error`` applies to the matching items only.
``shard`` / ``trace``
    Only this shard's endpoints / only the trace port (``True``) or only the normal port
    (``False``).
``times``
    Fire for the next N matching requests (``rpc_error``: the next N matching calls), then
    the rule retires. ``None`` = unlimited.
``probability``
    Fire for each matching request with this probability, drawn from a seeded
    :class:`random.Random` (same seed and same request sequence => same faults).

Both ``times`` and ``probability`` may be given: a matching request fires with the
probability, and the rule retires after ``times`` firings.

Text syntax (``hmyframe devnet --faults SPEC``)
-----------------------------------------------
Rules are separated by ``;``. A rule is comma-separated: first the kind, optionally with its
main value after ``=``, then ``key=value`` options::

    KIND[=VALUE][,key=value...][;RULE...]

    status=429,retry_after=2,times=3       three 429 answers with Retry-After: 2
    status=503,p=0.1                       10 % of requests get 503
    reset,times=1,method=hmyv2_getBlocks   drop the next getBlocks connection
    truncate,times=1                       cut the next answer in half
    delay=0.5,p=0.2                        20 % of requests wait 0.5 s
    shuffle                                every batch answered in shuffled order
    rpc_error,times=2                      the next 2 calls get -32000 "rate: Wait(n=1) ..."
    rpc_error=-32603,message=boom,times=1  a custom error
    logs=drop,at=-1,times=1                the next getLogs answer loses its last log

Keys: ``times`` (int), ``p``/``probability`` (0..1), ``method``, ``shard`` (int),
``trace`` (true/false), ``retry_after`` (seconds), ``status`` (int), ``delay`` (seconds),
``code`` (int), ``message`` (text without ``,`` or ``;``), ``edit`` (repeat, drop, foreign),
``at`` (int).
"""

from __future__ import annotations

import json
import random
import threading
from collections.abc import Iterable
from dataclasses import dataclass, field, replace
from typing import Literal, get_args

from hmyframe.devnet.limits import RATE_LIMIT_MESSAGE
from hmyframe.errors import ConfigError

__all__ = [
    "FOREIGN_LOG_HASH",
    "RATE_LIMIT_MESSAGE",
    "FaultInjector",
    "FaultKind",
    "FaultRule",
    "RequestFaults",
    "parse_fault_spec",
]

FaultKind = Literal["status", "reset", "truncate", "delay", "shuffle", "rpc_error", "logs"]
_KINDS: tuple[str, ...] = get_args(FaultKind)
LogEdit = Literal["repeat", "drop", "foreign"]
_EDITS: tuple[str, ...] = get_args(LogEdit)
#: The transaction hash a ``logs=foreign`` log names (no devnet transaction has it).
FOREIGN_LOG_HASH = "0x" + "f0" * 32
#: The methods a ``logs`` rule without ``method`` changes the answers of.
_LOG_METHODS = ("hmy_getLogs", "eth_getLogs")


def _is_int(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _number(name: str, value: object) -> float:
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise ConfigError(f"fault {name}={value!r} must be a number")
    return float(value)


@dataclass(frozen=True, slots=True)
class FaultRule:
    """One fault-injection rule.

    Parameters
    ----------
    kind
        What goes wrong: ``"status"``, ``"reset"``, ``"truncate"``, ``"delay"``,
        ``"shuffle"`` or ``"rpc_error"`` (see the module docstring).
    times
        Fire for the next ``times`` matching requests (calls for ``rpc_error``); ``None`` for
        no limit.
    probability
        Fire for a matching request with this probability (seeded); ``None`` = always.
    method
        Only requests with this JSON-RPC method.
    shard
        Only this shard's endpoints.
    trace
        ``True``: only the trace port; ``False``: only the normal port; ``None``: both.
    status
        HTTP status for ``kind="status"``.
    retry_after
        ``Retry-After`` seconds sent with the status (any status; meant for 429).
    delay
        Seconds to wait for ``kind="delay"``.
    code, message
        The JSON-RPC error for ``kind="rpc_error"``.
    edit, at
        For ``kind="logs"``: what happens to the log at position ``at`` of a ``getLogs``
        answer (``"repeat"``, ``"drop"`` or ``"foreign"``).
    """

    kind: FaultKind
    times: int | None = None
    probability: float | None = None
    method: str | None = None
    shard: int | None = None
    trace: bool | None = None
    status: int = 503
    retry_after: float | None = None
    delay: float = 1.0
    code: int = -32000
    message: str = RATE_LIMIT_MESSAGE
    edit: LogEdit = "repeat"
    at: int = 0

    def __post_init__(self) -> None:
        kind: object = self.kind
        if kind not in _KINDS:
            raise ConfigError(f"fault kind {kind!r} is not one of {', '.join(_KINDS)}")
        times: object = self.times
        if times is not None and (not _is_int(times) or int(times) < 1):  # type: ignore[call-overload]
            raise ConfigError(f"fault times={times!r} must be a positive integer or None")
        if self.probability is not None and not 0.0 <= _number("probability", self.probability) <= 1.0:
            raise ConfigError(f"fault probability={self.probability!r} must be between 0 and 1")
        status: object = self.status
        if not _is_int(status) or not 400 <= int(status) <= 599:  # type: ignore[call-overload]
            raise ConfigError(f"fault status={status!r} must be an HTTP error status 400..599")
        if self.retry_after is not None and _number("retry_after", self.retry_after) < 0:
            raise ConfigError(f"fault retry_after={self.retry_after!r} must be >= 0 seconds")
        if _number("delay", self.delay) < 0:
            raise ConfigError(f"fault delay={self.delay!r} must be >= 0 seconds")
        if not _is_int(self.code):
            raise ConfigError(f"fault code={self.code!r} must be an integer JSON-RPC error code")
        shard: object = self.shard
        if shard is not None and (not _is_int(shard) or int(shard) < 0):  # type: ignore[call-overload]
            raise ConfigError(f"fault shard={shard!r} must be a shard number >= 0")
        if self.edit not in _EDITS:
            raise ConfigError(f"fault edit={self.edit!r} must be one of {', '.join(_EDITS)}")
        if not _is_int(self.at):
            raise ConfigError(f"fault at={self.at!r} must be an integer (a log's position in the answer)")

    @property
    def per_call(self) -> bool:
        """True for rules applied per JSON-RPC call (``rpc_error``), else per HTTP request."""
        return self.kind == "rpc_error"


@dataclass(slots=True)
class RequestFaults:
    """The faults chosen for one HTTP request (what the server must do).

    Attributes
    ----------
    status
        The status rule that fired, if any (it wins over everything but ``reset``).
    reset
        Drop the connection.
    truncate
        Send half the body.
    delay
        Seconds to wait before answering (sum of the delay rules that fired).
    shuffle
        Shuffle batch answers with ``shuffle_seed``.
    call_errors
        Per call index in the request: ``(code, message)`` to answer instead.
    fired
        Kinds that fired, for the statistics.
    """

    status: FaultRule | None = None
    reset: bool = False
    truncate: bool = False
    delay: float = 0.0
    shuffle: bool = False
    shuffle_seed: int = 0
    call_errors: dict[int, tuple[int, str]] = field(default_factory=dict)
    fired: list[str] = field(default_factory=list)

    @property
    def any(self) -> bool:
        """True when at least one fault fired."""
        return bool(self.fired)


@dataclass(slots=True)
class _Active:
    rule: FaultRule
    remaining: int | None
    rule_id: int


class FaultInjector:
    """The set of active fault rules of one devnet (thread-safe).

    Parameters
    ----------
    seed
        Seed of the random generator used by probabilistic rules and shuffling.
    rules
        Initial rules (``FaultRule`` objects or text specs, see :func:`parse_fault_spec`).
    """

    def __init__(self, seed: int = 0, rules: Iterable[FaultRule | str] | str | None = None) -> None:
        self._lock = threading.Lock()
        self._rng = random.Random(seed)
        self._seed = seed
        self._rules: list[_Active] = []
        self._next_id = 1
        if rules is not None:
            for rule in [rules] if isinstance(rules, str) else rules:
                if isinstance(rule, str):
                    for parsed in parse_fault_spec(rule):
                        self.add(parsed)
                else:
                    self.add(rule)

    def add(self, rule: FaultRule | FaultKind | str, /, **options: object) -> int:
        """Add a rule; return its id (for :meth:`remove`).

        Parameters
        ----------
        rule
            A :class:`FaultRule`, a kind name with the rule's fields as keyword options
            (``faults.add("status", status=429, retry_after=1, times=2)``), or a text spec
            (``faults.add("status=429,times=2")``; several ``;``-separated rules are all
            added and the id of the last one is returned).
        **options
            Fields of :class:`FaultRule` when ``rule`` is a kind name.

        Returns
        -------
        int
            The rule id.
        """
        rules: list[FaultRule]
        if isinstance(rule, FaultRule):
            rules = [replace(rule, **options) if options else rule]  # type: ignore[arg-type]
        elif rule in _KINDS:
            try:
                rules = [FaultRule(rule, **options)]  # type: ignore[arg-type]
            except TypeError as exc:
                raise ConfigError(f"bad fault option for kind {rule!r}: {exc}") from None
        elif isinstance(rule, str):
            if options:
                raise ConfigError(f"fault spec {rule!r} takes no keyword options (got {sorted(options)})")
            rules = parse_fault_spec(rule)
        else:
            raise ConfigError(f"fault rule {rule!r} must be a FaultRule, a kind name or a text spec")
        rule_id = 0
        with self._lock:
            for r in rules:
                rule_id = self._next_id
                self._next_id += 1
                self._rules.append(_Active(r, r.times, rule_id))
        return rule_id

    def remove(self, rule_id: int) -> bool:
        """Remove the rule with this id; return whether it was still active."""
        with self._lock:
            before = len(self._rules)
            self._rules = [a for a in self._rules if a.rule_id != rule_id]
            return len(self._rules) != before

    def clear(self) -> None:
        """Remove every rule."""
        with self._lock:
            self._rules.clear()

    def reseed(self, seed: int) -> None:
        """Restart the random generator from ``seed``."""
        with self._lock:
            self._seed = seed
            self._rng = random.Random(seed)

    @property
    def rules(self) -> list[FaultRule]:
        """The active rules, in the order they were added."""
        with self._lock:
            return [a.rule for a in self._rules]

    def remaining(self, rule_id: int) -> int | None:
        """How many firings the rule has left (``None``: unlimited); ConfigError if gone."""
        with self._lock:
            for a in self._rules:
                if a.rule_id == rule_id:
                    return a.remaining
        raise ConfigError(f"no active fault rule with id {rule_id}")

    def decide(self, *, shard: int, trace: bool, methods: list[str | None]) -> RequestFaults:
        """Choose the faults for one HTTP request (consumes ``times`` counts).

        Parameters
        ----------
        shard, trace
            The endpoint hit.
        methods
            The JSON-RPC method of each call in the request (``None`` for an item that is not
            a valid call); one element for a single request.

        Returns
        -------
        RequestFaults
            What to do; ``.any`` is false when nothing fired.
        """
        out = RequestFaults()
        with self._lock:
            if not self._rules:
                return out
            for active in list(self._rules):
                rule = active.rule
                if rule.kind == "logs":
                    continue  # applied to the answers (edit_logs)
                if rule.shard is not None and rule.shard != shard:
                    continue
                if rule.trace is not None and rule.trace != trace:
                    continue
                if rule.per_call:
                    for index, method in enumerate(methods):
                        if method is None or (rule.method is not None and method != rule.method):
                            continue
                        if index in out.call_errors or not self._fires(active):
                            continue
                        out.call_errors[index] = (rule.code, rule.message)
                        out.fired.append(rule.kind)
                    continue
                if rule.method is not None and rule.method not in methods:
                    continue
                # a request gets at most one outcome that replaces its answer (a status, a reset
                # or a truncated body): the first matching rule decides it, and later ones are
                # neither counted nor consumed, so each rule's `times` means answers it changed
                terminal = rule.kind in ("status", "reset", "truncate")
                if terminal and (out.status is not None or out.reset or out.truncate):
                    continue
                if not self._fires(active):
                    continue
                out.fired.append(rule.kind)
                if rule.kind == "status":
                    out.status = rule
                elif rule.kind == "reset":
                    out.reset = True
                elif rule.kind == "truncate":
                    out.truncate = True
                elif rule.kind == "delay":
                    out.delay += float(rule.delay)
                else:  # shuffle
                    out.shuffle = True
                    out.shuffle_seed = self._rng.getrandbits(32)
            self._rules = [a for a in self._rules if a.remaining is None or a.remaining > 0]
        return out

    def edit_logs(self, *, shard: int, trace: bool, method: str, result: bytes) -> tuple[bytes, bool]:
        """Apply the ``logs`` rules to one call's answer: ``(result, changed)``.

        A rule counts (``times``, ``probability``) only answers with a log at its position.
        """
        with self._lock:
            rules = [
                a
                for a in self._rules
                if a.rule.kind == "logs"
                and (a.rule.shard is None or a.rule.shard == shard)
                and (a.rule.trace is None or a.rule.trace == trace)
                and (method == a.rule.method if a.rule.method is not None else method in _LOG_METHODS)
            ]
            if not rules:
                return result, False
            logs = json.loads(result)
            changed = False
            for active in rules:
                rule = active.rule
                if not isinstance(logs, list) or not -len(logs) <= rule.at < len(logs):
                    continue
                if not self._fires(active):
                    continue
                i = rule.at % len(logs)
                if rule.edit == "repeat":
                    logs.insert(i + 1, dict(logs[i]))
                elif rule.edit == "drop":
                    del logs[i]
                else:
                    logs[i] = {**logs[i], "transactionHash": FOREIGN_LOG_HASH}
                changed = True
            self._rules = [a for a in self._rules if a.remaining is None or a.remaining > 0]
        if not changed:
            return result, False
        return json.dumps(logs, separators=(",", ":")).encode(), True

    def _fires(self, active: _Active) -> bool:
        if active.remaining is not None and active.remaining <= 0:
            return False
        probability = active.rule.probability
        if probability is not None and self._rng.random() >= probability:
            return False
        if active.remaining is not None:
            active.remaining -= 1
        return True

    def __len__(self) -> int:
        with self._lock:
            return len(self._rules)

    def __repr__(self) -> str:
        return f"FaultInjector(seed={self._seed}, rules={self.rules!r})"


_MAIN_VALUE = {"status": "status", "delay": "delay", "rpc_error": "code", "logs": "edit"}
_INT_KEYS = {"times", "shard", "status", "code", "at"}
_FLOAT_KEYS = {"probability", "retry_after", "delay"}


def _parse_bool(value: str) -> bool:
    lowered = value.lower()
    if lowered not in ("true", "false", "1", "0", "yes", "no"):
        raise ValueError(value)
    return lowered in ("true", "1", "yes")


def parse_fault_spec(spec: str) -> list[FaultRule]:
    """Parse the text syntax (see the module docstring) into rules.

    Parameters
    ----------
    spec
        ``KIND[=VALUE][,key=value...]`` rules separated by ``;``.

    Returns
    -------
    list of FaultRule

    Raises
    ------
    ConfigError
        Naming the offending rule or option.
    """
    if not isinstance(spec, str) or not spec.strip():  # type: ignore[redundant-expr]
        raise ConfigError(f"fault spec {spec!r} is empty; expected e.g. 'status=429,times=3'")
    rules: list[FaultRule] = []
    for raw_rule in spec.split(";"):
        text = raw_rule.strip()
        if not text:
            continue
        parts = [p.strip() for p in text.split(",")]
        kind, _, main = parts[0].partition("=")
        kind = kind.strip()
        if kind not in _KINDS:
            raise ConfigError(f"fault rule {text!r}: kind {kind!r} is not one of {', '.join(_KINDS)}")
        options: dict[str, str] = {}
        if main:
            if kind not in _MAIN_VALUE:
                raise ConfigError(f"fault rule {text!r}: kind {kind!r} takes no value after '='")
            options[_MAIN_VALUE[kind]] = main.strip()
        for part in parts[1:]:
            if not part:
                continue
            key, eq, value = part.partition("=")
            key = key.strip()
            if not eq:
                raise ConfigError(f"fault rule {text!r}: option {part!r} is not key=value")
            if key == "p":
                key = "probability"
            if key not in FaultRule.__dataclass_fields__ or key == "kind":
                raise ConfigError(f"fault rule {text!r}: unknown option {key!r}")
            options[key] = value.strip()
        typed: dict[str, object] = {}
        for key, value in options.items():
            try:
                if key in _INT_KEYS:
                    typed[key] = int(value)
                elif key in _FLOAT_KEYS:
                    typed[key] = float(value)
                elif key == "trace":
                    typed[key] = _parse_bool(value)
                else:
                    typed[key] = value
            except ValueError:
                raise ConfigError(f"fault rule {text!r}: {key}={value!r} is not a valid {key}") from None
        rules.append(FaultRule(kind, **typed))  # type: ignore[arg-type]
    if not rules:
        raise ConfigError(f"fault spec {spec!r} holds no rule")
    return rules
