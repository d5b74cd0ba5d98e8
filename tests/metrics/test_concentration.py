"""Gini, Lorenz and Nakamoto against cases worked out by hand."""

from __future__ import annotations

import math
from decimal import Decimal
from fractions import Fraction

import pandas as pd
import pyarrow as pa
import pytest

from hmyframe import metrics
from hmyframe.errors import ConfigError


def exact(values: list[int | None]) -> pd.Series:
    """A column like the datasets' exact amounts (decimal128(38, 0))."""
    return pd.Series(pd.arrays.ArrowExtensionArray(pa.array(values, pa.decimal128(38, 0))))


# --------------------------------------------------------------------------- gini


def test_gini_of_one_to_four_is_a_quarter() -> None:
    # sorted 1,2,3,4: sum(i*x) = 30, S = 10, n = 4 -> (60 - 50) / 40
    assert metrics.gini([4, 1, 3, 2]) == 0.25
    # mean absolute difference: all ordered pairs sum to 20 -> 20 / (2 * 16 * 2.5)
    assert metrics.gini(pd.Series([1.0, 2.0, 3.0, 4.0])) == pytest.approx(0.25)


def test_gini_of_one_holder_among_four_is_three_quarters() -> None:
    # sorted 0,0,0,10: sum(i*x) = 40, S = 10 -> (80 - 50) / 40
    assert metrics.gini([0, 10, 0, 0]) == 0.75
    assert metrics.gini([5, 5, 5]) == 0.0


def test_gini_is_exact_for_atto_amounts_beyond_float_precision() -> None:
    a = 10**30
    # two stakes a and a+1: G = (2(3a+2) - 3(2a+1)) / (2(2a+1)) = 1 / (4a + 2); in floats the
    # two stakes are equal and the answer would be 0
    assert float(a) == float(a + 1)
    assert metrics.gini(exact([a + 1, a])) == float(Fraction(1, 4 * a + 2))
    assert metrics.gini(exact([a + 1, a])) > 0


def test_gini_ignores_missing_values_and_reports_nothing_as_nan() -> None:
    assert metrics.gini(exact([None, 1, 2, 3, 4, None])) == 0.25
    assert math.isnan(metrics.gini([]))
    assert math.isnan(metrics.gini([0, 0]))
    assert metrics.gini([Decimal(3), Decimal(1)]) == 0.25  # (2*7 - 3*4) / 8


def test_gini_refuses_negative_and_non_numeric_values() -> None:
    with pytest.raises(ConfigError, match="non-negative"):
        metrics.gini([1, -2])
    with pytest.raises(ConfigError, match="numbers"):
        metrics.gini(["a", "b"])


# --------------------------------------------------------------------------- lorenz


def test_lorenz_points_of_three_and_one() -> None:
    curve = metrics.lorenz([3, 1])
    assert curve["population_share"].tolist() == [0.0, 0.5, 1.0]
    assert curve["value_share"].tolist() == [0.0, 0.25, 1.0]


def test_lorenz_is_exact_and_empty_without_values() -> None:
    a = 10**30
    curve = metrics.lorenz(exact([a + 2, a]))
    assert curve["value_share"].iloc[1] == float(Fraction(a, 2 * a + 2))
    assert metrics.lorenz([]).empty
    assert list(metrics.lorenz([]).columns) == ["population_share", "value_share"]


# --------------------------------------------------------------------------- nakamoto


def current_format() -> pd.DataFrame:
    """Shard 0: A holds two keys (0.20 + 0.15), B 0.30, C 0.25, Harmony's keys the other 0.10.
    Shard 1: D 0.20 and E 0.10 only (Harmony's keys 0.70)."""
    return pd.DataFrame(
        {
            "validator_address": ["A", "A", "B", "C", "D", "E"],
            "shard_id": pd.array([0, 0, 0, 0, 1, 1], dtype=pd.ArrowDtype(pa.int32())),
            "bls_public_key": ["k1", "k2", "k3", "k4", "k5", "k6"],
            "overall_percent": pd.array(
                [0.20, 0.15, 0.30, 0.25, 0.20, 0.10], dtype=pd.ArrowDtype(pa.float64())
            ),
            "voting_power_adjusted": pd.array([None] * 6, dtype=pd.ArrowDtype(pa.float64())),
        }
    )


def test_nakamoto_sums_a_validators_keys_and_counts_per_shard() -> None:
    counts = metrics.nakamoto(current_format())
    # shard 0 at 1/3: A alone holds 0.35 > 1/3 -> 1; shard 1: D + E hold 0.30, never > 1/3
    assert counts.index.tolist() == [0, 1]
    assert counts.loc[0] == 1
    assert counts.loc[1] is pd.NA
    assert counts.min() == 1
    # at 2/3: A + B = 0.65 is not enough, A + B + C = 0.90 is -> 3
    assert metrics.nakamoto(current_format(), 2 / 3).loc[0] == 3
    # at 0.6 (a threshold the pair A + B exceeds) -> 2
    assert metrics.nakamoto(current_format(), 0.6).loc[0] == 2


def test_nakamoto_reads_the_early_2020_adjusted_voting_power() -> None:
    legacy = pd.DataFrame(
        {
            "validator_address": ["A", "B", "C", "B"],
            "shard_id": [0, 0, 0, 1],
            "bls_public_key": [None] * 4,
            "overall_percent": [None] * 4,
            "voting_power_raw": [0.5, 0.3, 0.2, 1.0],
            "voting_power_adjusted": [0.16, 0.10, 0.06, 0.34],
        }
    )
    counts = metrics.nakamoto(legacy)
    # shard 0: 0.16 + 0.10 + 0.06 = 0.32 never exceeds 1/3 (Harmony's keys hold 0.68) -> NA;
    # shard 1: B's 0.34 > 1/3 -> 1
    assert counts.loc[0] is pd.NA
    assert counts.loc[1] == 1
    assert metrics.nakamoto(legacy, 0.2).loc[0] == 2


def test_validator_voting_power_is_per_validator_and_shard() -> None:
    power = metrics.validator_voting_power(current_format())
    assert power.values.tolist() == [
        [0, "A", pytest.approx(0.35)],
        [0, "B", 0.30],
        [0, "C", 0.25],
        [1, "D", 0.20],
        [1, "E", 0.10],
    ]


@pytest.mark.parametrize("threshold", [0, 1, 1.5, -0.1, "1/3", True, None])
def test_nakamoto_refuses_a_threshold_outside_zero_one(threshold: object) -> None:
    with pytest.raises(ConfigError, match="strictly between 0 and 1"):
        metrics.nakamoto(current_format(), threshold)  # type: ignore[arg-type]


def test_nakamoto_names_missing_columns() -> None:
    with pytest.raises(ConfigError, match="shard_id"):
        metrics.nakamoto(pd.DataFrame({"validator_address": ["A"]}))
    with pytest.raises(ConfigError, match="overall_percent"):
        metrics.nakamoto(pd.DataFrame({"validator_address": ["A"], "shard_id": [0], "x": [1]}))
    empty = current_format().iloc[:0]
    assert metrics.nakamoto(empty).empty
