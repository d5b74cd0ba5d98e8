"""Scaling out with Dask: exports as Dask tasks, several endpoints, Dask DataFrames.

Needs the ``dask`` extra (``pip install 'hmyframe[dask]'``: dask, distributed, fsspec); the
rest of hmyframe never imports it.

* :func:`export_ranges` (used by :func:`hmyframe.exporting.export` when given ``client=``, and by
  ``hmyframe export --scheduler``): the range's missing chunks are planned here, against the
  output, and each chunk becomes one Dask task (:func:`~hmyframe.scale._tasks.run_chunk`)
  that fetches, converts and writes it on a worker through the normal engine
  (:func:`~hmyframe.engine.fetch_range` of that one chunk), so the files and their
  rules (skip what exists, atomic write, resume, footer verification) are those of a local
  export. Progress is shown here as chunks complete.
* :func:`connect`: a Dask client from ``--scheduler`` (``local`` for a ``LocalCluster``, or a
  scheduler address).
* :func:`read_dask`: ``hmyframe.read(..., engine="dask")``, one partition per file.

What a real cluster needs: every worker must reach the endpoints (``rpc``, ``trace_rpc``) and
the output (a folder shared by all machines, or a URL such as ``s3://bucket/prefix`` with
fsspec and its credentials set up on each worker), and the same hmyframe installed. Rate
limits hold across workers: see :mod:`hmyframe.scale._tasks`.
"""

from __future__ import annotations

from hmyframe.scale._cluster import check_client, connect
from hmyframe.scale._export import export_ranges
from hmyframe.scale._frames import read_dask

__all__ = ["check_client", "connect", "export_ranges", "read_dask"]
