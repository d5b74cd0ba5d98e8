"""Every exact amount has a float64 ONE companion beside it (issue 7, point 2)."""

from __future__ import annotations

from decimal import Decimal

import pyarrow as pa
import pytest

from hmyframe.datasets import AMOUNT, DATASETS, ConvertContext, Dataset
from hmyframe.datasets._base import column, one_column, one_of
from hmyframe.errors import ConfigError

AMOUNT_COLUMNS = [
    (name, f.name) for name, dataset in DATASETS.items() for f in dataset.schema if f.type == AMOUNT
]


def test_the_datasets_have_amount_columns() -> None:
    names = {name for name, _ in AMOUNT_COLUMNS}
    assert {"validators", "voting_power", "delegations", "undelegations"} <= names
    assert {"staking_transactions", "cx_receipts", "transactions", "traces"} <= names


@pytest.mark.parametrize(("dataset", "name"), AMOUNT_COLUMNS, ids=[f"{d}.{c}" for d, c in AMOUNT_COLUMNS])
def test_every_amount_column_has_a_one_companion_right_after_it(dataset: str, name: str) -> None:
    schema = DATASETS[dataset].schema
    companion = schema.field(schema.get_field_index(name) + 1)
    assert companion.name == f"{name}_one"
    assert companion.type == pa.float64()
    assert one_of(companion) == name
    assert "ONE" in companion.metadata[b"description"].decode()


def _dataset(builder_gives_companion: bool) -> Dataset:
    schema = pa.schema([column("amount", AMOUNT, "An amount."), one_column("amount", "The amount in ONE.")])

    def build(decoded: object, ctx: ConvertContext) -> dict[str, pa.Array]:
        values = [Decimal(v) if v is not None else None for v in decoded]  # type: ignore[attr-defined]
        out = {"amount": pa.array(values, type=AMOUNT)}
        if builder_gives_companion:
            out["amount_one"] = pa.array([-1.0] * len(values), type=pa.float64())
        return out

    return Dataset(
        name="t",
        description="test",
        schema=schema,
        sort_by=(),
        source="blocks",
        methods=(),
        builder=build,
        decoder=lambda payloads, what: payloads,
    )


def test_companions_are_derived_exactly_when_the_builder_leaves_them_out() -> None:
    # values a float64 cannot hold: the companion is one correctly rounded division each
    values = [10**27 + 1, None, 1, 123_456_789_012_345_678_901_234_567]
    table = _dataset(False).build(values, ConvertContext(shard_id=0))
    assert table["amount_one"].to_pylist() == [10**27 / 10**18, None, 1e-18, values[3] / 10**18]
    # a builder that supplies the companion is used as is
    assert _dataset(True).build([5], ConvertContext(shard_id=0))["amount_one"].to_pylist() == [-1.0]


def test_a_companion_of_no_exact_column_is_refused() -> None:
    schema = pa.schema([column("n", pa.int64(), "A count."), one_column("n", "Nonsense.")])
    with pytest.raises(ConfigError, match="companion of no exact column 'n'"):
        Dataset(
            name="bad",
            description="test",
            schema=schema,
            sort_by=(),
            source="blocks",
            methods=(),
            builder=lambda d, c: {},
            decoder=lambda p, w: p,
        )
