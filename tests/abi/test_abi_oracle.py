"""eth-abi, the reference ABI codec, as the oracle: hypothesis draws ABI types (static, dynamic,
nested arrays, tuples, bytesN, intN with negatives) and values, eth-abi encodes them, and our
decoders must give eth-abi's values back: the general decoder (:func:`hmyframe.abi.decode`), and
events built from them (indexed dynamic arguments, anonymous events, overloaded names) through
:func:`hmyframe.abi.decode_logs`, which takes the vectorised path when the data is one-word
arguments and the general one otherwise. The expected column layout is written here anew from
its documentation."""

from __future__ import annotations

from typing import Any

import eth_abi
from abi_tables import logs_table
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from hmyframe.abi import AbiType, Event, Param, decode, decode_logs, parse_type
from hmyframe.abi._types import keccak256
from hmyframe.addresses import to_one

# --------------------------------------------------------------------------- types and values

elementary = st.one_of(
    st.integers(1, 32).map(lambda k: f"uint{8 * k}"),
    st.integers(1, 32).map(lambda k: f"int{8 * k}"),
    st.just("address"),
    st.just("bool"),
    st.integers(1, 32).map(lambda k: f"bytes{k}"),
)
leaf_types = st.one_of(elementary, st.sampled_from(["bytes", "string"]))


def _composite(children: st.SearchStrategy[str]) -> st.SearchStrategy[str]:
    return st.one_of(
        children.map(lambda t: f"{t}[]"),
        st.tuples(children, st.integers(1, 3)).map(lambda tk: f"{tk[0]}[{tk[1]}]"),
        st.lists(children, min_size=1, max_size=3).map(lambda ts: f"({','.join(ts)})"),
    )


abi_types = st.recursive(leaf_types, _composite, max_leaves=6)


def values_of(t: AbiType) -> st.SearchStrategy[Any]:
    """Values eth-abi can encode for ``t``."""
    kind = t.kind
    if kind == "uint":
        return st.one_of(st.integers(0, 2**t.size - 1), st.sampled_from([0, 2**t.size - 1]))
    if kind == "int":
        half = 2 ** (t.size - 1)
        return st.one_of(st.integers(-half, half - 1), st.sampled_from([-half, -1, half - 1]))
    if kind == "address":
        return st.binary(min_size=20, max_size=20).map(lambda b: "0x" + b.hex())
    if kind == "bool":
        return st.booleans()
    if kind == "fixed_bytes":
        return st.binary(min_size=t.size, max_size=t.size)
    if kind == "bytes":
        return st.binary(max_size=70)
    if kind == "string":
        return st.text(max_size=20)
    if kind == "array":
        assert t.item is not None
        size = {"min_size": t.length, "max_size": t.length} if t.length is not None else {"max_size": 3}
        return st.lists(values_of(t.item), **size)
    return st.tuples(*(values_of(p.type) for p in t.components))


def norm(t: AbiType, v: Any) -> Any:
    """eth-abi's decoded value in our decoder's form (lists for arrays, lower-case addresses)."""
    if t.kind == "address":
        return v.lower()
    if t.kind == "array":
        assert t.item is not None
        item = t.item
        return [norm(item, x) for x in v]
    if t.kind == "tuple":
        return tuple(norm(p.type, x) for p, x in zip(t.components, v, strict=True))
    return v


@st.composite
def typed_values(draw: st.DrawFn, count: int = 4) -> tuple[list[str], list[Any]]:
    types = draw(st.lists(abi_types, min_size=1, max_size=count))
    values = [draw(values_of(parse_type(t))) for t in types]
    return types, values


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(typed_values())
def test_the_general_decoder_gives_eth_abis_values(drawn: tuple[list[str], list[Any]]) -> None:
    types, values = drawn
    data = eth_abi.encode(types, values)
    ours = decode(types, data)
    theirs = eth_abi.decode(types, data)
    assert list(ours) == [norm(parse_type(t), v) for t, v in zip(types, theirs, strict=True)]
    assert decode(types, "0x" + data.hex()) == ours


# --------------------------------------------------------------------------- events


def shown(t: AbiType, v: Any, hex_form: bool) -> Any:
    """A value as a nested column shows it (the documented layout)."""
    if t.kind == "address":
        return v.lower() if hex_form else to_one(v)
    if t.kind in ("fixed_bytes", "bytes"):
        return "0x" + v.hex()
    if t.kind == "array":
        assert t.item is not None
        item = t.item
        return [shown(item, x, hex_form) for x in v]
    if t.kind == "tuple":
        return {p.name: shown(p.type, x, hex_form) for p, x in zip(t.components, v, strict=True)}
    return v


def expected_columns(name: str, t: AbiType, v: Any, topic: str | None) -> dict[str, Any]:
    """The documented columns of one argument: a topic hash for an indexed composite, tuple
    members flattened, an address and its _hex twin, arrays as nested values."""
    if topic is not None and t.kind not in ("uint", "int", "address", "bool", "fixed_bytes"):
        return {name: topic}
    if t.kind == "tuple":
        out: dict[str, Any] = {}
        for p, x in zip(t.components, v, strict=True):
            out.update(expected_columns(f"{name}.{p.name}", p.type, x, None))
        return out
    if t.kind == "address":
        return {name: to_one(v), f"{name}_hex": v.lower()}
    if t.kind in ("uint", "int", "bool", "string"):
        return {name: v}
    if t.kind in ("fixed_bytes", "bytes"):
        return {name: "0x" + v.hex()}
    out = {name: shown(t, v, False)}
    if t.has_address:
        out[f"{name}_hex"] = shown(t, v, True)
    return out


def named(t: AbiType) -> AbiType:
    """``t`` with tuple members named m0, m1... (the ABI JSON a contract would have)."""
    if t.kind == "tuple":
        return AbiType(
            "tuple", components=tuple(Param(f"m{i}", named(p.type)) for i, p in enumerate(t.components))
        )
    if t.kind == "array":
        assert t.item is not None
        return AbiType("array", item=named(t.item), length=t.length)
    return t


@st.composite
def events(draw: st.DrawFn, name: str = "Ev") -> Event:
    types = [named(parse_type(t)) for t in draw(st.lists(abi_types, min_size=1, max_size=5))]
    anonymous = draw(st.booleans())
    most = 4 if anonymous else 3
    flags = draw(st.lists(st.booleans(), min_size=len(types), max_size=len(types)))
    seen = 0
    indexed = []
    for f in flags:
        indexed.append(f and seen < most)
        seen += f and seen < most
    params = tuple(Param(f"p{i}", t, ix) for i, (t, ix) in enumerate(zip(types, indexed, strict=True)))
    return Event(name, params, anonymous)


def make_log(
    event: Event, values: list[Any], block: int, index: int
) -> tuple[dict[str, Any], dict[str, Any]]:
    """A logs-dataset row for ``event`` with ``values``, and the columns expected from it."""
    topics = [] if event.anonymous else [event.topic0]
    expected: dict[str, Any] = {"block_number": block, "log_index": index}
    for p, v in zip(event.inputs, values, strict=True):
        topic = None
        if p.indexed:
            if p.type.elementary:
                topic = "0x" + eth_abi.encode([p.type.canonical], [v]).hex()
            else:  # the hash of the value's encoding: any 32 bytes do here
                topic = "0x" + keccak256(eth_abi.encode([p.type.canonical], [v])).hex()
            topics.append(topic)
        expected.update(expected_columns(p.name, p.type, v, topic))
    data = eth_abi.encode(
        [p.type.canonical for p in event.data_inputs],
        [v for p, v in zip(event.inputs, values, strict=True) if not p.indexed],
    )
    row = {
        "block_number": block,
        "transaction_hash": "0x" + keccak256(bytes([block % 256, index % 256])).hex(),
        "log_index": index,
        "address": "one1qqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqquzw7vz",
        "address_hex": "0x" + "00" * 20,
        **{f"topic{k}": (topics[k] if k < len(topics) else None) for k in range(4)},
        "topic_count": len(topics),
        "data": "0x" + data.hex(),
    }
    return row, expected


def _rows_of(frame: Any, expected: list[dict[str, Any]]) -> None:
    assert len(frame) == len(expected)
    assert not frame.attrs["undecoded"]
    for got, want in zip(frame.to_dict("records"), expected, strict=True):
        for column, value in want.items():
            assert got[column] == value, column
            if isinstance(value, int) and not isinstance(value, bool):
                assert type(got[column]) is int, column


@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.data())
def test_events_decode_to_the_values_eth_abi_encoded(data: st.DataObject) -> None:
    event = data.draw(events())
    rows, expected = [], []
    for k in range(data.draw(st.integers(1, 4))):
        values = [data.draw(values_of(p.type)) for p in event.inputs]
        row, want = make_log(event, values, 100 + k, k)
        rows.append(row)
        expected.append(want)
    frame = decode_logs(logs_table(rows), event)
    _rows_of(frame, expected)
    # the argument columns come after the position columns, in declaration order
    first = next(iter(expected[0].keys() - {"block_number", "log_index"}))
    assert list(frame.columns).index(first) > list(frame.columns).index("address_hex")
    # and eth-abi decodes the same data to the same values
    data_types = [p.type.canonical for p in event.data_inputs]
    for row, want in zip(rows, expected, strict=True):
        theirs = eth_abi.decode(data_types, bytes.fromhex(row["data"][2:]))
        ours = decode(data_types, row["data"])
        assert list(ours) == [norm(p.type, v) for p, v in zip(event.data_inputs, theirs, strict=True)]
        assert want["block_number"] == row["block_number"]


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.data())
def test_overloaded_event_names_are_told_apart_by_their_signature(data: st.DataObject) -> None:
    # (anonymous overloads would match each other's logs by topic count: not this test's point)
    first = data.draw(events("Moved").filter(lambda e: not e.anonymous))
    second = data.draw(events("Moved").filter(lambda e: not e.anonymous and e.signature != first.signature))
    rows, expected = [], {first.signature: [], second.signature: []}
    for k in range(data.draw(st.integers(2, 6))):
        event = data.draw(st.sampled_from([first, second]))
        values = [data.draw(values_of(p.type)) for p in event.inputs]
        row, want = make_log(event, values, 7, k)
        rows.append(row)
        expected[event.signature].append(want)
    frames = decode_logs(logs_table(rows), [first, second])
    assert set(frames) == {first.signature, second.signature}
    for signature, frame in frames.items():
        _rows_of(frame, expected[signature])


def test_an_anonymous_event_is_matched_by_its_topic_count_and_address() -> None:
    event = Event(
        "Note",
        (
            Param("who", parse_type("address"), True),
            Param("tag", parse_type("string"), True),
            Param("ids", parse_type("uint256[]")),
        ),
        anonymous=True,
    )
    row, want = make_log(event, ["0x" + "ab" * 20, "hello", [1, 2**255]], 5, 0)
    other = dict(row, log_index=1, topic_count=3, topic2="0x" + "00" * 32)  # three topics: not it
    frame = decode_logs(logs_table([row, other]), event)
    _rows_of(frame, [want])
    assert frame["tag"][0] == "0x" + keccak256(eth_abi.encode(["string"], ["hello"])).hex()
    assert decode_logs(logs_table([row]), event, address="0x" + "11" * 20).empty
