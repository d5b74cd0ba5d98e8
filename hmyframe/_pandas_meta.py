"""The ``pandas`` metadata hmyframe writes into its Parquet files, built from the Arrow schema.

One job: let plain ``pd.read_parquet`` of a cache or export file give the dtypes of a fetch
(``atto`` and ``uint256`` included, once :mod:`hmyframe.amounts` is imported), never fail
without hmyframe, and leave the file plain for every other reader. The export path never
imports pandas. pyarrow turns a file's ``pandas`` key-value metadata into dtypes by name
(``numpy_type``, resolved by ``pandas.api.types.pandas_dtype``), so:

* every Arrow-typed column is named ``"<arrow type>[pyarrow]"``, a ``pd.ArrowDtype``; strings as
  ``"utf8[pyarrow]"``, because the name ``"string[pyarrow]"`` that pyarrow itself writes means
  pandas' ``StringDtype`` when read back, not the ``pd.ArrowDtype(pa.string())`` of a fetch;
* exact integer columns (``decimal128(38, 0)``; digit strings marked ``hmyframe.dtype``) are
  named by their storage's :attr:`~hmyframe._intarrow.IntStorage.file_alias` (``"V16"`` for
  ``atto``, ``"V32"`` for ``uint256``, ``"|V32"`` for ``int256``): raw-bytes NumPy dtypes of the values' width, which no
  frame column has. Without hmyframe, pandas resolves them to a NumPy dtype, which pyarrow
  ignores (it only uses extension dtypes named there): exact ``Decimal`` values / digit
  strings, no error. With :mod:`hmyframe.amounts` imported, each dtype claims its alias
  (``construct_from_string``) and pandas builds the column with its ``__from_arrow__``. The
  dtype names (``"atto"``) are NOT written: a reader without hmyframe would fail on an unknown
  name (pyarrow GH-39914).

The files carry no Arrow extension type (polars reads one as an opaque ``ext[...]`` column
whose ``sum`` fails): only the key-value metadata differs from a plain file, so the data pages,
statistics and Arrow types that pyarrow, polars, DuckDB and Dask read are plain.
"""

from __future__ import annotations

import functools
import json

import pyarrow as pa

from hmyframe._intarrow import DECIMAL128, DECIMAL_STRING, SIGNED_DECIMAL_STRING

__all__ = ["DTYPE_KEY", "PANDAS_KEY", "pandas_metadata"]

#: Field metadata key naming the pandas dtype of a column whose Arrow type alone does not say it
#: (``b"uint256"`` on a ``string`` field of digits); plain readers ignore it.
DTYPE_KEY = b"hmyframe.dtype"
#: The schema metadata key pandas and pyarrow read.
PANDAS_KEY = b"pandas"


@functools.lru_cache(maxsize=128)
def pandas_metadata(schema: pa.Schema) -> bytes:
    """The ``pandas`` schema metadata (JSON) for a dataset's ``schema``: see the module docstring.

    Remembered per schema: every file a cache writes carries its dataset's."""
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
    named = (f.metadata or {}).get(DTYPE_KEY)
    if named is not None:
        column.update(pandas_type="unicode", numpy_type=_ALIASES.get(named, "object"))
    elif pa.types.is_decimal(t):
        column.update(
            pandas_type="decimal",
            numpy_type=DECIMAL128.file_alias if t.equals(DECIMAL128.arrow_type) else "object",
            metadata={"precision": t.precision, "scale": t.scale},
        )
    elif pa.types.is_string(t):
        column.update(pandas_type="unicode", numpy_type="utf8[pyarrow]")
    elif pa.types.is_large_string(t):
        column.update(pandas_type="unicode", numpy_type="large_string[pyarrow]")
    else:
        column.update(pandas_type=_logical(t), numpy_type=f"{t}[pyarrow]")
    return column


#: the file alias of each exact-integer dtype named in field metadata (``hmyframe.dtype``)
_ALIASES = {b"uint256": DECIMAL_STRING.file_alias, b"int256": SIGNED_DECIMAL_STRING.file_alias}


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
    from hmyframe._version import __version__

    return __version__
