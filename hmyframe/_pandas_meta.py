"""The ``pandas`` metadata hmyframe writes into its Parquet files, built from the Arrow schema.

One job: let plain ``pd.read_parquet`` of a cache or export file give the dtypes of a fetch,
without pandas (the export path never imports it) and without hmyframe on the reading side.
pyarrow turns a file's ``pandas`` key-value metadata into dtypes by name (``numpy_type``), so:

* every Arrow-typed column is named ``"<arrow type>[pyarrow]"``, a ``pd.ArrowDtype``; strings as
  ``"utf8[pyarrow]"``, because the name ``"string[pyarrow]"`` that pyarrow itself writes means
  pandas' ``StringDtype`` when read back, not the ``pd.ArrowDtype(pa.string())`` of a fetch;
* exact integer columns (``decimal128(38, 0)``; digit strings marked ``hmyframe.dtype``) are
  named ``"object"``, as pyarrow names decimals. Their dtype names (``"atto"``, ``"uint256"``)
  are NOT written: a reader without hmyframe would fail on an unknown name (pyarrow GH-39914).
  They read back exactly (``Decimal`` values, digit strings); ``hmyframe.read`` and
  :func:`hmyframe.datasets.to_pandas` give the exact-integer dtypes.

Only the key-value metadata changes: data pages, statistics and the Arrow schema are the same
bytes as before, so pyarrow, polars, DuckDB and Dask read the same plain types.
"""

from __future__ import annotations

import json

import pyarrow as pa

__all__ = ["DTYPE_KEY", "PANDAS_KEY", "pandas_metadata"]

#: Field metadata key naming the pandas dtype of a column whose Arrow type alone does not say it
#: (``b"uint256"`` on a ``string`` field of digits); plain readers ignore it.
DTYPE_KEY = b"hmyframe.dtype"
#: The schema metadata key pandas and pyarrow read.
PANDAS_KEY = b"pandas"


def pandas_metadata(schema: pa.Schema) -> bytes:
    """The ``pandas`` schema metadata (JSON) for a dataset's ``schema``: see the module docstring."""
    columns = [_column(f) for f in schema]
    return json.dumps(
        {
            "index_columns": [],
            "column_indexes": [],
            "columns": columns,
            "creator": {"library": "hmyframe", "version": _version()},
            "pandas_version": "2.0.0",  # the metadata format, as pyarrow writes it for pandas >= 2
        },
        separators=(",", ":"),
    ).encode()


def _column(f: pa.Field) -> dict[str, object]:
    t = f.type
    column: dict[str, object] = {"name": f.name, "field_name": f.name, "metadata": None}
    if (f.metadata or {}).get(DTYPE_KEY) is not None:
        column.update(pandas_type="unicode", numpy_type="object")
    elif pa.types.is_decimal(t):
        column.update(
            pandas_type="decimal", numpy_type="object", metadata={"precision": t.precision, "scale": t.scale}
        )
    elif pa.types.is_string(t):
        column.update(pandas_type="unicode", numpy_type="utf8[pyarrow]")
    elif pa.types.is_large_string(t):
        column.update(pandas_type="unicode", numpy_type="large_string[pyarrow]")
    else:
        column.update(pandas_type=_logical(t), numpy_type=f"{t}[pyarrow]")
    return column


def _logical(t: pa.DataType) -> str:
    if pa.types.is_boolean(t):
        return "bool"
    if pa.types.is_integer(t):
        return str(t)
    if pa.types.is_floating(t):
        return f"float{t.bit_width}"
    if pa.types.is_timestamp(t):
        return "datetimetz" if t.tz is not None else "datetime"
    if pa.types.is_binary(t) or pa.types.is_fixed_size_binary(t):
        return "bytes"
    return "object"


def _version() -> str:
    from hmyframe import __version__

    return __version__
