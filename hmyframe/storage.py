"""Where cache and export files live: a local folder (plain ``os`` calls) or any fsspec URL.

The cache (:mod:`hmyframe.cache`) and the reader (:mod:`hmyframe.reader`) do every file
operation through a :class:`Storage`, chosen by :func:`open_storage` from the root they are
given:

* a path, or a ``file://`` URL: :class:`LocalStorage`, the fast default; nothing beyond
  ``os`` and ``pathlib`` is imported. Files are published by an atomic ``os.replace`` after an
  ``fsync``.
* any other URL (``memory://``, ``s3://bucket/prefix``, ``gcs://``, ``sftp://``...):
  :class:`FsspecStorage` over the filesystem fsspec resolves for it (fsspec is imported only
  then; the filesystem's own package, such as ``s3fs``, and its credentials come from the
  user's fsspec set-up). Paths inside it are :class:`~pathlib.PurePosixPath`; :meth:`Storage.url`
  gives their URL.

What holds on a filesystem without atomic rename (object stores)
    A file is written under its writer's temporary name, then moved to its final name
    (``fs.mv``: on object stores a server-side copy and a delete). Object stores publish an
    object whole when its upload or copy completes, so readers see a final name either absent
    or complete, never half-written. Names stay deterministic (two writers of the same blocks
    publish the same rows under the same name, so the last copy wins and nothing is
    duplicated), and every published file is read back and its footer checked against what
    was written (write-then-verify); readers check every footer's integrity record on
    planning as they do locally, so a torn or foreign file is refetched, never mixed in.
    Listings are refreshed (``invalidate_cache``) before each scan, so a writer sees what
    others published. What is lost without rename: the check that another writer already
    published a range and the move are two steps, so two writers may both publish the same
    file (harmless: same name, same rows); and a temporary object of a writer that died stays
    until its file is written again or the cache is cleared (after an hour when its writer
    ran on another machine).
"""

from __future__ import annotations

import contextlib
import os
import secrets
from abc import ABC, abstractmethod
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path, PurePath, PurePosixPath
from typing import TYPE_CHECKING, Any, BinaryIO
from urllib.parse import unquote, urlsplit

from hmyframe._lazy import lazy_module
from hmyframe.errors import CacheError, ConfigError, short_repr

if TYPE_CHECKING:
    import pyarrow as pa
    import pyarrow.parquet as pq
else:  # loaded when a table is read or written (see hmyframe._lazy)
    pa = lazy_module("pyarrow")
    pq = lazy_module("pyarrow.parquet")

__all__ = ["FsspecStorage", "LocalStorage", "Stat", "Storage", "is_url", "open_storage", "os_reason"]


def os_reason(exc: OSError) -> str:
    """An ``OSError`` as one line without a traceback: ``[Errno 30] Read-only file system``."""
    text = exc.strerror or str(exc) or type(exc).__name__
    return f"[Errno {exc.errno}] {text}" if exc.errno is not None else text


@dataclass(frozen=True, slots=True)
class Stat:
    """What a listing says about a file.

    Attributes
    ----------
    size
        Bytes.
    mtime
        Modification (or creation) time, seconds since the epoch; ``0.0`` when unknown.
    stamp
        Changes whenever the file is rewritten (size, time, inode or ETag); ``None`` when the
        filesystem gives nothing that does, and then nothing about the file is remembered.
    """

    size: int
    mtime: float
    stamp: tuple[object, ...] | None


def is_url(root: object) -> bool:
    """Whether ``root`` is a URL (``scheme://...``) rather than a local path."""
    return isinstance(root, str) and "://" in root


def open_storage(root: str | os.PathLike[str]) -> tuple[Storage, PurePath]:
    """The storage of ``root`` and the root as a path inside it.

    Parameters
    ----------
    root
        A local folder, a ``file://`` URL (a local folder too), or any URL fsspec knows.

    Raises
    ------
    ConfigError
        A URL whose protocol fsspec does not know (or whose package is not installed), or a
        URL without fsspec installed.
    """
    if not is_url(root):
        return LOCAL, Path(root)
    text = str(root)
    parts = urlsplit(text)
    if parts.scheme == "file":
        if parts.netloc not in ("", "localhost"):
            raise ConfigError(
                f"file URL {text!r} names host {parts.netloc!r}: expected file:///absolute/path"
            )
        return LOCAL, Path(unquote(parts.path))
    try:
        import fsspec
    except ImportError:
        raise ConfigError(
            f"output {text!r} is a URL, which needs fsspec: pip install 'hmyframe[dask]' (or fsspec and the "
            "package of the filesystem, such as s3fs)"
        ) from None
    try:
        fs, path = fsspec.core.url_to_fs(text)
    except (ImportError, ValueError) as exc:
        raise ConfigError(f"fsspec cannot open {text!r}: {exc}") from None
    return FsspecStorage(fs), PurePosixPath(path or "/")


class Storage(ABC):
    """File operations of the cache and the reader (see the module docstring)."""

    #: Whether files are on this machine's filesystem (``pathlib.Path`` paths).
    local: bool = True

    def url(self, path: PurePath) -> str:
        """How to show ``path`` to a user (its URL for a remote filesystem)."""
        return str(path)

    @abstractmethod
    def listdir(self, folder: PurePath) -> list[PurePath]:
        """Entries of ``folder``, sorted by name; ``[]`` when it does not exist."""

    @abstractmethod
    def is_dir(self, path: PurePath) -> bool:
        """Whether ``path`` is a folder."""

    @abstractmethod
    def glob(self, root: PurePath, pattern: str) -> list[PurePath]:
        """Paths under ``root`` matching ``pattern`` (``**`` for any depth), sorted."""

    @abstractmethod
    def stat(self, path: PurePath) -> Stat:
        """Size and change stamp of a file; ``FileNotFoundError`` when it is gone."""

    @abstractmethod
    def open(self, path: PurePath) -> BinaryIO:
        """``path`` opened for reading bytes (a context manager)."""

    @abstractmethod
    def read_metadata(self, path: PurePath) -> pq.FileMetaData:
        """The Parquet footer of ``path``."""

    @abstractmethod
    def read_table(self, path: PurePath, schema: pa.Schema | None = None) -> pa.Table:
        """A Parquet file (``FileNotFoundError`` when it is gone)."""

    @abstractmethod
    def write_parquet(self, table: pa.Table, path: PurePath, footers: list[pq.FileMetaData]) -> None:
        """Write ``table`` to ``path`` (zstd), appending its footer to ``footers``."""

    @abstractmethod
    def publish(self, tmp: PurePath, path: PurePath) -> None:
        """Move the finished file ``tmp`` to its final name ``path``, as atomically as the
        filesystem allows (see the module docstring)."""

    @abstractmethod
    def unlink(self, path: PurePath) -> None:
        """Delete a file (``FileNotFoundError`` when it is gone)."""

    @abstractmethod
    def mkdir(self, folder: PurePath) -> None:
        """Create ``folder`` and its parents if needed."""

    @abstractmethod
    def rmdir(self, folder: PurePath) -> None:
        """Remove ``folder`` if it is empty (errors are ignored)."""

    @abstractmethod
    def ensure_writable(self, folder: PurePath, what: str) -> None:
        """Create ``folder`` and check that a file can be written in it (``CacheError`` if not)."""

    def verify_published(self, path: PurePath, check: str, read_check: Any) -> None:
        """After :meth:`publish`: on a filesystem without atomic rename, read the footer back
        and compare its content check (``read_check(footer)``) with ``check``; a file that
        differs is removed and ``CacheError`` raised."""
        return


class LocalStorage(Storage):
    """A folder of this machine: ``os`` and ``pathlib``, ``fsync`` and atomic ``os.replace``."""

    local = True

    def listdir(self, folder: PurePath) -> list[PurePath]:
        try:
            # (names sorted as strings: the order of the paths, without comparing Path objects)
            base = Path(folder)
            return [base / name for name in sorted(os.listdir(base))]
        except (FileNotFoundError, NotADirectoryError):
            return []
        except OSError as exc:
            raise CacheError(f"cannot list folder {folder}: {os_reason(exc)}") from None

    def is_dir(self, path: PurePath) -> bool:
        return Path(path).is_dir()

    def glob(self, root: PurePath, pattern: str) -> list[PurePath]:
        return sorted(Path(root).glob(pattern))

    def stat(self, path: PurePath) -> Stat:
        st = os.stat(path)
        return Stat(st.st_size, st.st_mtime, (st.st_mtime_ns, st.st_size, st.st_ino))

    def open(self, path: PurePath) -> BinaryIO:
        return open(path, "rb")

    def read_metadata(self, path: PurePath) -> pq.FileMetaData:
        return pq.read_metadata(path)

    def read_table(self, path: PurePath, schema: pa.Schema | None = None) -> pa.Table:
        # one open file for the footer and the pages: a file replaced under the same name
        # meanwhile (a follower's tail) is read whole as it was when opened, never mixed
        with pa.OSFile(str(path)) as fh:
            return pq.read_table(fh, schema=schema)

    def write_parquet(self, table: pa.Table, path: PurePath, footers: list[pq.FileMetaData]) -> None:
        # written through one Arrow file (no filesystem resolution by path), synced before closing
        with pa.OSFile(os.fspath(path), "wb") as sink:
            pq.write_table(table, sink, compression="zstd", metadata_collector=footers)
            os.fsync(sink.fileno())

    def publish(self, tmp: PurePath, path: PurePath) -> None:
        os.replace(tmp, path)

    def unlink(self, path: PurePath) -> None:
        Path(path).unlink()

    def mkdir(self, folder: PurePath) -> None:
        Path(folder).mkdir(parents=True, exist_ok=True)

    def rmdir(self, folder: PurePath) -> None:
        with contextlib.suppress(OSError):
            Path(folder).rmdir()  # only succeeds when empty

    def ensure_writable(self, folder: PurePath, what: str) -> None:
        local = Path(folder)
        if local.exists() and not local.is_dir():
            raise CacheError(f"{what} {local} is a file, not a folder")
        try:
            local.mkdir(parents=True, exist_ok=True)
            probe = local / f".hmyframe-probe.{os.getpid()}-{secrets.token_hex(4)}.tmp"
            probe.write_bytes(b"")
            probe.unlink()
        except OSError as exc:
            raise CacheError(f"{what} {local} is not usable: {os_reason(exc)}") from None


#: The one local storage (it holds no state).
LOCAL = LocalStorage()


def _seconds(value: object) -> float:
    if isinstance(value, datetime):
        return value.timestamp()
    if isinstance(value, int | float) and not isinstance(value, bool):
        return float(value)
    return 0.0


class FsspecStorage(Storage):
    """Any fsspec filesystem (see the module docstring for what holds without atomic rename).

    Parameters
    ----------
    fs
        An ``fsspec.AbstractFileSystem``.
    """

    local = False
    _TIME_KEYS = ("mtime", "LastModified", "last_modified", "updated", "modified", "created")

    def __init__(self, fs: Any) -> None:
        self.fs = fs
        self._listed: dict[PurePath, Stat] = {}  # from the last listing of each folder

    def __reduce__(self) -> tuple[Any, ...]:
        return (FsspecStorage, (self.fs,))

    def __repr__(self) -> str:
        return f"<FsspecStorage {short_repr(self.fs)}>"

    def url(self, path: PurePath) -> str:
        text: str = self.fs.unstrip_protocol(str(path))
        return text

    def _stat_of(self, info: dict[str, Any]) -> Stat:
        size = int(info.get("size") or 0)
        when = next((info[k] for k in self._TIME_KEYS if info.get(k) is not None), None)
        tag = info.get("ETag") or info.get("etag") or info.get("md5Hash")
        if when is None and tag is None:
            return Stat(size, 0.0, None)
        return Stat(size, _seconds(when), (size, _seconds(when), str(tag)))

    def listdir(self, folder: PurePath) -> list[PurePath]:
        text = str(folder)
        with contextlib.suppress(Exception):
            self.fs.invalidate_cache(text)
        try:
            infos = self.fs.ls(text, detail=True)
        except (FileNotFoundError, NotADirectoryError):
            return []
        except OSError as exc:
            raise CacheError(f"cannot list {self.url(folder)}: {os_reason(exc)}") from None
        out: list[PurePath] = []
        for info in infos:
            path = PurePosixPath(str(info["name"]).rstrip("/"))
            if path == PurePosixPath(text) or path.parent != PurePosixPath(text):
                continue  # some filesystems list the folder itself
            out.append(path)
            if info.get("type") == "file":
                self._listed[path] = self._stat_of(info)
            else:
                self._listed.pop(path, None)
        return sorted(out)

    def is_dir(self, path: PurePath) -> bool:
        try:
            return bool(self.fs.isdir(str(path)))
        except OSError:
            return False

    def glob(self, root: PurePath, pattern: str) -> list[PurePath]:
        with contextlib.suppress(Exception):
            self.fs.invalidate_cache(str(root))
        found = self.fs.glob(f"{str(root).rstrip('/')}/{pattern}")
        return sorted(PurePosixPath(str(p).rstrip("/")) for p in found)

    def stat(self, path: PurePath) -> Stat:
        known = self._listed.get(path)
        if known is not None:
            return known
        info = self.fs.info(str(path))
        if info.get("type") != "file":
            raise FileNotFoundError(str(path))
        return self._stat_of(info)

    def open(self, path: PurePath) -> BinaryIO:
        handle: BinaryIO = self.fs.open(str(path), "rb")
        return handle

    def read_metadata(self, path: PurePath) -> pq.FileMetaData:
        with self.fs.open(str(path), "rb") as fh:
            return pq.read_metadata(fh)

    def read_table(self, path: PurePath, schema: pa.Schema | None = None) -> pa.Table:
        with self.fs.open(str(path), "rb") as fh:
            return pq.read_table(fh, schema=schema)

    def write_parquet(self, table: pa.Table, path: PurePath, footers: list[pq.FileMetaData]) -> None:
        with self.fs.open(str(path), "wb") as fh:
            pq.write_table(table, fh, compression="zstd", metadata_collector=footers)

    def publish(self, tmp: PurePath, path: PurePath) -> None:
        self._listed.pop(path, None)
        self._listed.pop(tmp, None)
        self.fs.mv(str(tmp), str(path))

    def verify_published(self, path: PurePath, check: str, read_check: Any) -> None:
        try:
            found = read_check(self.read_metadata(path))
        except FileNotFoundError:
            return  # a concurrent repair already replaced it: its successor is checked by readers
        except (OSError, pa.ArrowException) as exc:
            problem = f"does not read back after publishing ({exc})"
        else:
            if found == check:
                return
            problem = f"reads back with another content check than was written ({found} instead of {check})"
        with contextlib.suppress(OSError):
            self.unlink(path)  # never leave it for readers (they would refuse it anyway)
        raise CacheError(
            f"{self.url(path)} {problem}: the filesystem did not publish the file whole; it was removed"
        )

    def unlink(self, path: PurePath) -> None:
        self._listed.pop(path, None)
        try:
            self.fs.rm_file(str(path))
        except FileNotFoundError:
            raise
        except OSError as exc:
            if not self.fs.exists(str(path)):
                raise FileNotFoundError(str(path)) from None
            raise CacheError(f"cannot delete {self.url(path)}: {os_reason(exc)}") from None

    def mkdir(self, folder: PurePath) -> None:
        self.fs.makedirs(str(folder), exist_ok=True)

    def rmdir(self, folder: PurePath) -> None:
        with contextlib.suppress(Exception):
            if not self.fs.ls(str(folder), detail=False):
                self.fs.rmdir(str(folder))

    def ensure_writable(self, folder: PurePath, what: str) -> None:
        probe = PurePosixPath(folder) / f".hmyframe-probe.{os.getpid()}-{secrets.token_hex(4)}.tmp"
        try:
            if self.fs.isfile(str(folder)):
                raise CacheError(f"{what} {self.url(folder)} is a file, not a folder")
            self.fs.makedirs(str(folder), exist_ok=True)
            self.fs.pipe_file(str(probe), b"")
            self.fs.rm_file(str(probe))
        except OSError as exc:
            raise CacheError(f"{what} {self.url(folder)} is not usable: {os_reason(exc)}") from None
