"""SQL over a cache or export folder: :func:`sql` (DuckDB, the ``sql`` extra).

Each dataset with files under the folder is a DuckDB view of the same name (``blocks``,
``transactions``, ``validators``...), read by :func:`hmyframe.read`: only that dataset's files,
each block once, the dataset's Arrow types (amounts ``DECIMAL(38,0)``, times
``TIMESTAMP WITH TIME ZONE``). Only the views a query names are read (into memory, as Arrow;
DuckDB scans them without a copy). The result comes back with the dtypes a fetch gives: exact
amounts in the ``atto`` dtype, every other column ``pd.ArrowDtype``; a column that keeps the
name and values of a dataset column keeps that column's Arrow type too.

DuckDB is imported here only: ``import hmyframe`` never loads it.
"""

from __future__ import annotations

import os
import re
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from hmyframe import datasets as ds
from hmyframe.engine import Output, check_output, to_output
from hmyframe.errors import ConfigError, QueryError, short_repr
from hmyframe.reader import datasets_in, read

if TYPE_CHECKING:
    import pyarrow as pa

__all__ = ["sql", "views"]

_WORD = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


def _duckdb() -> Any:
    try:
        import duckdb
    except ImportError:
        raise ConfigError(
            "hmyframe.sql needs the duckdb package, which is not installed: "
            "pip install 'hmyframe[sql]' (or pip install duckdb)"
        ) from None
    return duckdb


def _is_params(params: object) -> bool:
    """``None``, a list-like of values or a mapping (not a string, which is a sequence too)."""
    if isinstance(params, str | bytes):
        return False
    return params is None or isinstance(params, Sequence | Mapping)


def _reason(exc: Exception) -> str:
    """DuckDB's message, on one line."""
    return " ".join(str(exc).split())


def views(path: str | os.PathLike[str] | None = None, *, chain: str | None = None) -> dict[str, pa.Schema]:
    """The views :func:`sql` offers on ``path``: one per dataset with files there.

    Parameters
    ----------
    path, chain
        As for :func:`sql`.

    Returns
    -------
    dict[str, pyarrow.Schema]
        View name -> its columns and Arrow types (the dataset's schema), in
        ``hmyframe.DATASETS`` order.

    Raises
    ------
    ConfigError
        ``path`` is not a folder, or holds files of several chains and no ``chain`` is given.
    """
    found = datasets_in(path, chain=chain)
    chains = sorted({c for held in found.values() for c in held})
    if chain is None and len(chains) > 1:
        raise ConfigError(f"{_where(path)} holds files of several chains {chains}: choose one with chain=")
    return {name: ds.get(name).schema for name in found}


def _where(path: str | os.PathLike[str] | None) -> str:
    return "the cache root" if path is None else short_repr(os.fspath(path))


def sql(
    query: str,
    path: str | os.PathLike[str] | None = None,
    *,
    chain: str | None = None,
    params: Sequence[Any] | Mapping[str, Any] | None = None,
    output: Output = "pandas",
) -> Any:
    """Run an SQL query (DuckDB) over the datasets of a cache or export folder.

    Parameters
    ----------
    query
        One DuckDB ``SELECT`` (or ``WITH ... SELECT``); each dataset with files under ``path``
        is a view of its name: ``select count(*) from transactions join blocks using
        (shard_id, block_number)``.
    path
        An export's ``--out``, a cache root, a chain folder, or a URL (``memory://``,
        ``s3://...`` through fsspec), as for :func:`hmyframe.read`. Default: the cache root
        (``data/`` or ``$HMYFRAME_CACHE``).
    chain
        The chain folder (16 hex digits, ``hmyframe cache ls`` shows them) when ``path`` holds
        several chains.
    params
        Values for the query's ``?`` / ``$1`` (a sequence) or ``$name`` (a mapping)
        placeholders, passed to DuckDB as parameters (never pasted into the text).
    output
        ``"pandas"`` (default: exact amounts in the ``atto`` dtype, every other column
        ``pd.ArrowDtype``), ``"arrow"`` or ``"polars"``.

    Returns
    -------
    pandas.DataFrame (or pyarrow.Table / polars DataFrame)
        The query's result.

    Raises
    ------
    QueryError
        DuckDB refused the query (syntax, an unknown view or column...) or failed running it;
        the message gives DuckDB's reason and, for an unknown view, the views there are.
    ConfigError
        ``query`` not a string, ``path`` not a folder, several chains and no ``chain``, or
        duckdb not installed (install ``hmyframe[sql]``).
    CacheError
        A file of a view the query reads is unreadable.

    Examples
    --------
    >>> hmyframe.sql("select shard_id, count(*) as n from transactions group by 1", "exports/")  # doctest: +SKIP
    """
    text: object = query  # (callers without type checking pass anything)
    if not isinstance(text, str) or not text.strip():
        raise ConfigError(f"query must be an SQL text, got {short_repr(query)}")
    if not _is_params(params):
        raise ConfigError(f"params must be a list or a dict of values, got {short_repr(params)}")
    check_output(output)
    duckdb = _duckdb()
    available = views(path, chain=chain)
    # the views the query may name (a word of its text; duckdb.get_table_names binds the query,
    # which needs the views first): reading one it only mentions in a string costs a read, no more
    named = {word.lower() for word in _WORD.findall(query)}
    used = [name for name in available if name in named]
    con = duckdb.connect()
    try:
        for name in used:
            con.register(name, read(name, path, chain=chain, output="arrow"))
        result = _run(duckdb, con, query, params, available, path)
    finally:
        con.close()
    return to_output(_dataset_types(result, [available[n] for n in used]), output)


def _run(
    duckdb: Any,
    con: Any,
    query: str,
    params: Sequence[Any] | Mapping[str, Any] | None,
    available: Mapping[str, pa.Schema],
    path: str | os.PathLike[str] | None,
) -> pa.Table:
    """The query's result as an Arrow table, or a :class:`QueryError` with DuckDB's reason."""
    try:
        relation = con.sql(query, params=params)
        if relation is None:
            raise QueryError(f"the query {short_repr(query)} gives no rows: expected a SELECT")
        # duckdb 2 names it to_arrow_table, 1.x arrow
        table: pa.Table = (getattr(relation, "to_arrow_table", None) or relation.arrow)()
    except duckdb.CatalogException as exc:
        shown = ", ".join(available) or "none"
        raise QueryError(
            f"the query {short_repr(query)} names something that is not there: {_reason(exc)} "
            f"(views under {_where(path)}: {shown})"
        ) from None
    except duckdb.ParserException as exc:
        raise QueryError(f"the query {short_repr(query)} is not valid SQL: {_reason(exc)}") from None
    except duckdb.Error as exc:
        raise QueryError(f"the query {short_repr(query)} failed: {_reason(exc)}") from None
    return table


def _dataset_types(table: pa.Table, schemas: Sequence[pa.Schema]) -> pa.Table:
    """``table`` with each column named as a column of the queried datasets given back that
    column's field (its type, cast where DuckDB changed it: ``timestamp[us]`` for ``[ms]``, a
    string view...; and its metadata, which names a dtype such as ``uint256``) where the cast
    loses nothing (a computed column of the same name that does not fit stays as it is), and
    other zoned timestamps as ``timestamp[ms, tz=UTC]`` where that loses nothing."""
    import pyarrow as pa

    known: dict[str, pa.Field] = {}
    for schema in schemas:
        for field in schema:
            known.setdefault(field.name, field)
    columns, fields = [], []
    for field, column in zip(table.schema, table.columns, strict=True):
        want = known.get(field.name)
        if want is None and pa.types.is_timestamp(field.type) and field.type.tz is not None:
            # DuckDB's timestamp[us, tz=Etc/UTC] back to the UTC milliseconds of the datasets
            want = pa.field(field.name, pa.timestamp("ms", tz="UTC"))
        if want is not None:
            try:
                column, field = column.cast(want.type, safe=True), want.with_nullable(True)
            except (pa.ArrowInvalid, pa.ArrowNotImplementedError):
                pass
        columns.append(column)
        fields.append(field)
    return pa.Table.from_arrays(columns, schema=pa.schema(fields))
