"""What a fetcher returns: a pandas DataFrame (the default), a pyarrow Table or a polars DataFrame."""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any, Literal, TypeAlias, get_args

from hmyframe import datasets as ds
from hmyframe.errors import ConfigError, short_repr

if TYPE_CHECKING:
    import pyarrow as pa

__all__ = ["Output", "check_output", "to_output"]

#: The ``output=`` a fetcher takes.
Output: TypeAlias = Literal["pandas", "arrow", "polars"]
_OUTPUTS: tuple[str, ...] = get_args(Output)
_ATTRS = b"hmyframe.attrs"


def check_output(output: object) -> None:
    """Refuse an unknown ``output`` (and ``"polars"`` without polars installed) before any request.

    Raises
    ------
    ConfigError
        Naming the value and the accepted ones, or saying how to install polars.
    """
    if output not in _OUTPUTS:
        raise ConfigError(f"output must be one of {', '.join(map(repr, _OUTPUTS))}, got {short_repr(output)}")
    if output == "polars":
        _polars()


def _polars() -> Any:
    try:
        import polars
    except ImportError:
        raise ConfigError(
            "output='polars' needs the polars package, which is not installed: "
            "pip install polars (or pip install 'hmyframe[polars]')"
        ) from None
    return polars


def to_output(table: pa.Table, output: Output, attrs: dict[str, Any] | None = None) -> Any:
    """A dataset table as ``output`` asks.

    Parameters
    ----------
    table
        A dataset table (its schema is the dataset's).
    output
        ``"pandas"``: :func:`hmyframe.datasets.to_pandas` (exact amounts as the ``atto`` dtype,
        ``attrs`` in ``df.attrs``); ``"arrow"``: the table itself (``attrs`` as JSON in its schema
        metadata under ``hmyframe.attrs``); ``"polars"``: ``polars.from_arrow`` (amounts as
        polars ``Decimal(38, 0)``).
    attrs
        Facts about the result (``snapshot_block``, ``not_found``...).
    """
    check_output(output)
    if output == "pandas":
        df = ds.to_pandas(table)
        df.attrs.update(attrs or {})
        return df
    if output == "arrow":
        if attrs:
            meta = dict(table.schema.metadata or {})
            meta[_ATTRS] = json.dumps(attrs).encode()
            table = table.replace_schema_metadata(meta)
        return table
    return _polars().from_arrow(table)
