"""The ``dex_pairs`` dataset built from call answers: a pair read, a pair without code, reverts,
malformed answers, and the tokens joined by ``with_tokens``."""

from __future__ import annotations

import pyarrow as pa
import pytest

from hmyframe.addresses import to_one
from hmyframe.datasets import ConvertContext, get
from hmyframe.datasets.dex_pairs import SCHEMA, TOKEN_COLUMNS, with_tokens
from hmyframe.errors import ConfigError, ResponseShapeError

PAIR, EMPTY, REVERTING = "0x" + "21" * 20, "0x" + "22" * 20, "0x" + "23" * 20
TOKEN0, TOKEN1 = "0x" + "aa" * 20, "0x" + "bb" * 20
WORD = "0" * 24
FUNCTIONS = ("token0", "token1", "getReserves")


def convert(answers: list[str], pairs: list[str], block: int = 7) -> list[dict[str, object]]:
    calls = [(p, block, f) for p in pairs for f in FUNCTIONS]
    table = get("dex_pairs").convert(
        [a.encode() for a in answers], ConvertContext(shard_id=1, token_calls=calls)
    )
    assert table.schema.equals(SCHEMA, check_metadata=False)
    rows: list[dict[str, object]] = table.to_pylist()
    return rows


def test_a_pair_its_tokens_and_exact_reserves() -> None:
    reserve0, reserve1 = 2**112 - 1, 5 * 10**20
    answers = [f'"0x{WORD}{"aa" * 20}"', f'"0x{WORD}{"BB" * 20}"']
    answers.append(f'"0x{reserve0:064x}{reserve1:064x}{1_700_000_000:064x}"')
    (row,) = convert(answers, [PAIR])
    assert row == {
        "pair_address": to_one(PAIR),
        "pair_address_hex": PAIR,
        "block_number": 7,
        "shard_id": 1,
        "token0": to_one(TOKEN0),
        "token0_hex": TOKEN0,
        "token1": to_one(TOKEN1),
        "token1_hex": TOKEN1,
        "reserve0": str(reserve0),  # exact digits, beyond any float
        "reserve1": str(reserve1),
        "block_timestamp_last": 1_700_000_000,
        "reason": None,
    }


def test_no_code_reverts_and_odd_answers_are_nulls_with_reasons() -> None:
    answers = ['"0x"'] * 3
    answers += ['{"error": {"code": 3, "message": "execution reverted: LOCKED"}}'] * 2
    answers.append('{"error": {"code": 3, "message": "execution reverted"}}')
    odd = "0x" + "0" * 62 + "01"  # an address word with high bytes set
    answers += [f'"0x{"ff" * 12}{"aa" * 20}"', f'"{odd}"', f'"0x{1:064x}"']
    rows = convert(answers, [EMPTY, REVERTING, PAIR])
    by_pair = {r["pair_address_hex"]: r for r in rows}
    assert by_pair[EMPTY]["reason"] == "token0() missing; token1() missing; getReserves() missing"
    assert by_pair[REVERTING]["reason"] == (
        "token0() reverted: LOCKED; token1() reverted: LOCKED; getReserves() reverted"
    )
    assert by_pair[PAIR]["reason"] == (
        "token0() returned 32 bytes, not an address word; getReserves() returned 32 bytes, not three words"
    )
    assert by_pair[PAIR]["token1_hex"] == "0x" + "0" * 38 + "01"
    for row in rows:
        assert row["reserve0"] is None
        assert row["reserve1"] is None
        assert row["block_timestamp_last"] is None
    assert by_pair[EMPTY]["token0"] is None


def test_malformed_answers_and_contexts_are_one_line_errors() -> None:
    with pytest.raises(ResponseShapeError, match=r"payload\[0\]' has '0xzz'; expected a 0x hex string"):
        convert(['"0xzz"', '"0x"', '"0x"'], [PAIR])
    with pytest.raises(ConfigError, match="one \\(pair, block, function\\) per payload"):
        get("dex_pairs").convert([b'"0x"'], ConvertContext(shard_id=0, token_calls=[]))
    with pytest.raises(ConfigError, match="token_calls\\[0\\] must be \\(pair, block, one of token0"):
        get("dex_pairs").convert([b'"0x"'], ConvertContext(shard_id=0, token_calls=[(PAIR, 1, "name")]))


def test_with_tokens_joins_each_side_on_shard_and_address() -> None:
    answers = [f'"0x{WORD}{"aa" * 20}"', f'"0x{WORD}{"bb" * 20}"', f'"0x{3:064x}{4:064x}{5:064x}"']
    calls = [(PAIR, 7, f) for f in FUNCTIONS]
    pairs = get("dex_pairs").convert(
        [a.encode() for a in answers], ConvertContext(shard_id=1, token_calls=calls)
    )
    tokens = pa.table(
        {
            "shard_id": pa.array([1, 1, 0, 1], pa.int32()),
            "address_hex": [TOKEN0, TOKEN1, TOKEN1, TOKEN0.upper().replace("0X", "0x")],
            "block_number": pa.array([7, 7, 9, 3], pa.int64()),
            "name": ["Alpha", "Beta", "other shard", "older read"],
            "symbol": ["ALP", "BET", "X", "OLD"],
            "decimals": pa.array([6, None, 18, 8], pa.int32()),
        }
    )
    (row,) = with_tokens(pairs, tokens).to_pylist()
    assert {k: row[k] for k in TOKEN_COLUMNS.names} == {
        "token0_name": "Alpha",
        "token0_symbol": "ALP",
        "token0_decimals": 6,
        "token1_name": "Beta",
        "token1_symbol": "BET",
        "token1_decimals": None,
    }
    (alone,) = with_tokens(pairs, tokens.slice(2, 1)).to_pylist()  # only another shard's row
    assert alone["token1_symbol"] is None
