"""Writers' temporary files: their names, and the removal of those left by writers that died.

A file is written under ``.<file name>.<writer tag>.tmp`` (hidden from ``*.parquet`` globs)
and renamed into place. The tag, ``<pid>-<host>-<token>``, is unique to a writer among all
processes and machines sharing the folder, and tells a later writer whether the file's writer
is gone: at once for a dead process of this machine, after :data:`ORPHAN_AGE` otherwise (no
pid of another machine is ever trusted).
"""

from __future__ import annotations

import contextlib
import os
import re
import socket
import time
from pathlib import PurePath

from hmyframe.storage import Storage

__all__ = ["ORPHAN_AGE", "TMP_RE", "orphaned", "remove_orphans", "temp_path", "writer_tag"]

# ".<file name>.<writer tag>.tmp": the tag is "<pid>-<host>-<token>" (older versions: "<pid>");
# the file a range, tail or snapshot file, or a piece file (".<dataset>__<start>_<end>.piece")
TMP_RE = re.compile(
    r"^\.(?P<final>[a-z_]+__(?:\d{10}_(?:\d{10}|tail)|at_\d{10})\.parquet|\.[a-z_]+__\d{10}_\d{10}\.piece)"
    r"\.(?P<tag>[A-Za-z0-9-]+)\.tmp$"
)
#: Seconds after which a temporary file of a writer on another machine counts as orphaned.
ORPHAN_AGE = 3600.0


def writer_tag(token: str) -> str:
    """The tag of this process's writer ``token``: unique among all processes and machines."""
    return f"{os.getpid()}-{_host_tag()}-{token}"


def temp_path(path: PurePath, tag: str) -> PurePath:
    """Where writer ``tag`` writes ``path`` before renaming it into place."""
    return path.with_name(f".{path.name}.{tag}.tmp")


def _host_tag() -> str:
    """This machine's name, reduced to letters, digits and ``-`` (part of temporary file names)."""
    name = re.sub(r"[^A-Za-z0-9]+", "", socket.gethostname())[:24]
    return name or "host"


def remove_orphans(files: Storage, path: PurePath) -> None:
    """Delete temporary files of ``path`` left by writers that died mid-write (killed exports).

    A file of a process of this machine is removed once that process is gone; a file of
    another machine (or of an unknown writer) only when it is older than :data:`ORPHAN_AGE`.
    A concurrent writer's file is left alone.
    """
    for tmp in files.listdir(path.parent):
        m = TMP_RE.match(tmp.name)
        if m is None or m["final"] != path.name:
            continue
        if orphaned(files, tmp, m["tag"]):
            with contextlib.suppress(OSError):
                files.unlink(tmp)


def orphaned(files: Storage, tmp: PurePath, tag: str) -> bool:
    parts = tag.split("-")
    pid_text = parts[0]
    here = len(parts) == 1 or (len(parts) == 3 and parts[1] == _host_tag())
    if here and pid_text.isdigit():
        return not _alive(int(pid_text))
    try:
        return time.time() - files.stat(tmp).mtime > ORPHAN_AGE
    except OSError:
        return False


def _alive(pid: int) -> bool:
    if pid == os.getpid():
        return True
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except (PermissionError, OSError):
        return True  # exists (another user's), or cannot tell: keep its file
    return True
