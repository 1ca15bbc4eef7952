"""Writing files where a bot may have laid a trap: the one way every
writer of ours (the referee's trace and replay, tournament reports and
exports, the viewer, the server's store and journals, exploit's output)
opens what it writes.

A bot runs as another user (as root, as nobody) but shares the host's
world-writable places (/tmp). Its files outlive it, so it can lay a
symbolic link, a hard link, a FIFO or a file of its own where a later
run of the referee will write (`--trace /tmp/x.trace`), and a referee
running as root would then overwrite whatever the link names. The
kernel's `fs.protected_symlinks` and `protected_regular` stop that, but
containers often turn them off; so this module applies the same rule
itself, whatever the kernel's setting:

- the path is walked one directory at a time through descriptors
  (`openat` with `O_NOFOLLOW`), so nothing can be swapped behind a check;
- in a directory others may write to (world-writable, or owned by
  another user than us or root), a symbolic link is followed only if it
  is ours (or root's), and an existing file is written only if it is
  ours (or root's), has a single link, and is a regular file or a device
  (not a FIFO a writer would block on);
- a new file is created with `O_EXCL`, and a replaced one through a
  fresh temporary file renamed over it (`write_file`).

A refused path raises `UnsafePath` (a PermissionError) whose message names
the path and says why; callers show it as the error.
"""

from __future__ import annotations

import errno
import os
import re
import secrets
import stat
from collections import deque
from pathlib import Path
from typing import BinaryIO

__all__ = ["UnsafePath", "open_write", "open_fd", "write_file", "make_dirs", "check_target", "error_text"]

_DIR = os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC
_MAX_LINKS = 40  # as the kernel's MAXSYMLINKS
_MAGIC = re.compile(r"^(pipe|socket|anon_inode):")  # /proc/PID/fd/N of a pipe or socket


class UnsafePath(PermissionError):
    """A path we refuse to write: the message names it and says why."""

    def __init__(self, path: str | os.PathLike[str], why: str) -> None:
        super().__init__(errno.EPERM, f"refusing to write {os.fspath(path)}: {why}")
        self.path = os.fspath(path)

    def __str__(self) -> str:
        return str(self.strerror)


def _trusted(uid: int) -> bool:
    return uid in (0, os.geteuid())


def _shared(directory: os.stat_result) -> bool:
    """Others may create or replace names in it: world-writable, or not ours (nor root's)."""
    return bool(directory.st_mode & stat.S_IWOTH) or not _trusted(directory.st_uid)


class _Walk:
    """Where a path leads, walked one component at a time from descriptors.

    `parent` is an open descriptor of the directory holding the last
    component, `name` that component (never a symbolic link we refused).
    """

    def __init__(self, path: str | os.PathLike[str], *, create_dirs: bool, follow_last: bool = True) -> None:
        self.path = os.fspath(path)
        if not self.path:
            raise UnsafePath(self.path, "an empty path")
        self.parent = os.open("/" if self.path.startswith("/") else ".", _DIR)
        self.name = ""
        self.magic = False  # `name` is one of /proc's links to an open pipe or socket (/dev/stdout)
        try:
            self._walk(create_dirs, follow_last)
        except BaseException:
            os.close(self.parent)
            raise

    def close(self) -> None:
        os.close(self.parent)

    def __enter__(self) -> "_Walk":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def parent_stat(self) -> os.stat_result:
        return os.fstat(self.parent)

    def _move(self, fd: int) -> None:
        os.close(self.parent)
        self.parent = fd

    def _follow(self, name: str, link: os.stat_result, parts: deque[str], seen: list[int]) -> None:
        """Queue the target of the symbolic link `name` in `parent`, if we may follow it."""
        if _shared(self.parent_stat()) and not _trusted(link.st_uid):
            raise UnsafePath(self.path, f"{name!r} is a symbolic link of user {link.st_uid} in a directory "
                                        "others can write to (a link another user laid)")
        seen[0] += 1
        if seen[0] > _MAX_LINKS:
            raise UnsafePath(self.path, "too many levels of symbolic links")
        target = os.readlink(name, dir_fd=self.parent)
        if target.startswith("/"):
            self._move(os.open("/", _DIR))
        parts.extendleft(reversed(target.split("/")))

    def _walk(self, create_dirs: bool, follow_last: bool) -> None:
        parts = deque(self.path.split("/"))
        seen = [0]
        while parts:
            part = parts.popleft()
            if part in ("", "."):
                if not parts and not self.name:
                    self.name = "."
                continue
            self.name = ""
            if not parts and part != "..":
                try:
                    st = os.stat(part, dir_fd=self.parent, follow_symlinks=False)
                except FileNotFoundError:
                    self.name = part
                    return
                if follow_last and stat.S_ISLNK(st.st_mode):
                    if _MAGIC.match(os.readlink(part, dir_fd=self.parent)) and not _shared(self.parent_stat()):
                        self.name, self.magic = part, True  # only the kernel can follow it
                        return
                    self._follow(part, st, parts, seen)
                    continue
                self.name = part
                return
            try:
                self._move(os.open(part, _DIR | os.O_NOFOLLOW, dir_fd=self.parent))
                continue
            except FileNotFoundError:
                if not create_dirs:
                    raise FileNotFoundError(errno.ENOENT, f"{self.path}: no directory {part!r}", self.path) from None
                try:
                    os.mkdir(part, 0o777, dir_fd=self.parent)
                except FileExistsError:
                    pass  # made meanwhile: look again
                parts.appendleft(part)
                continue
            except OSError as e:
                if e.errno not in (errno.ELOOP, errno.ENOTDIR):
                    raise
            st = os.stat(part, dir_fd=self.parent, follow_symlinks=False)
            if not stat.S_ISLNK(st.st_mode):
                raise NotADirectoryError(errno.ENOTDIR, f"{self.path}: {part!r} is not a directory", self.path)
            self._follow(part, st, parts, seen)
        if not self.name:
            self.name = "."

    def check_existing(self, st: os.stat_result) -> None:
        """Refuse to write into `st`, the existing file at `name`, unless it is safe."""
        if stat.S_ISDIR(st.st_mode):
            raise IsADirectoryError(errno.EISDIR, f"{self.path} is a directory", self.path)
        if stat.S_ISLNK(st.st_mode):
            raise UnsafePath(self.path, "it is a symbolic link (it changed while being opened)")
        if not _shared(self.parent_stat()):
            return
        if not _trusted(st.st_uid):
            raise UnsafePath(self.path, f"it belongs to user {st.st_uid}, in a directory others can write to")
        if stat.S_ISREG(st.st_mode) and st.st_nlink > 1:
            raise UnsafePath(self.path, f"it has {st.st_nlink} hard links, in a directory others can write to")
        if stat.S_ISFIFO(st.st_mode) or stat.S_ISSOCK(st.st_mode):
            raise UnsafePath(self.path, "it is a FIFO or a socket, in a directory others can write to")


def open_fd(path: str | os.PathLike[str], *, append: bool = False, truncate: bool = True, mode: int = 0o666) -> int:
    """`open_write`'s descriptor itself, for writers that use `os.write`."""
    with _Walk(path, create_dirs=False) as walk:
        if walk.name in (".", ".."):
            raise IsADirectoryError(errno.EISDIR, f"{walk.path} is a directory", walk.path)
        flags = os.O_WRONLY | os.O_NOFOLLOW | os.O_CLOEXEC | (os.O_APPEND if append else 0)
        if walk.magic:  # `--trace /dev/stdout` with a pipe there: our own descriptor, reopened
            return os.open(walk.name, flags & ~os.O_NOFOLLOW, dir_fd=walk.parent)
        try:
            return os.open(walk.name, flags | os.O_CREAT | os.O_EXCL, mode, dir_fd=walk.parent)
        except FileExistsError:
            pass
        try:
            # O_NONBLOCK: a FIFO laid by someone else must not hang us before the checks
            fd = os.open(walk.name, flags | os.O_NONBLOCK, dir_fd=walk.parent)
        except OSError as e:
            if e.errno == errno.ELOOP:
                raise UnsafePath(walk.path, "it is a symbolic link (it changed while being opened)") from None
            if e.errno == errno.ENXIO:
                raise UnsafePath(walk.path, "it is a FIFO with no reader") from None
            raise
        try:
            st = os.fstat(fd)
            walk.check_existing(st)
            os.set_blocking(fd, True)
            if truncate and stat.S_ISREG(st.st_mode):
                os.ftruncate(fd, 0)
        except BaseException:
            os.close(fd)
            raise
        return fd


def open_write(path: str | os.PathLike[str], *, append: bool = False, truncate: bool = True,
               mode: int = 0o666) -> BinaryIO:
    """Open `path` for writing (binary), creating it if need be (`mode`,
    less the umask): the safe `open(path, "wb")` or `"ab"` (`append`).
    `truncate=False` keeps an existing file's bytes (a file opened early,
    before any bot starts, and written later)."""
    fd = open_fd(path, append=append, truncate=truncate and not append, mode=mode)
    return os.fdopen(fd, "ab" if append else "wb")


def write_file(path: str | os.PathLike[str], data: bytes | str, *, mode: int = 0o666) -> Path:
    """Replace `path` with `data` at once (a reader never sees half of it)
    and return its absolute path: written to a fresh temporary file in the
    same directory, then renamed over the name (which replaces a link
    rather than writing through it). Text is written as UTF-8."""
    raw = data.encode("utf-8") if isinstance(data, str) else data
    with _Walk(path, create_dirs=False, follow_last=False) as walk:
        if walk.name in (".", ".."):
            raise IsADirectoryError(errno.EISDIR, f"{walk.path} is a directory", walk.path)
        try:
            st = os.stat(walk.name, dir_fd=walk.parent, follow_symlinks=False)
        except FileNotFoundError:
            pass
        else:
            if stat.S_ISLNK(st.st_mode):
                if _shared(walk.parent_stat()) and not _trusted(st.st_uid):
                    raise UnsafePath(walk.path, f"it is a symbolic link of user {st.st_uid} in a directory "
                                                "others can write to")
            else:
                walk.check_existing(st)
        for _ in range(100):
            tmp = f".{walk.name[:200]}.{secrets.token_hex(6)}.tmp"
            try:
                fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC, mode,
                             dir_fd=walk.parent)
                break
            except FileExistsError:
                continue
        else:
            raise UnsafePath(walk.path, "no free temporary name beside it")
        try:
            with os.fdopen(fd, "wb") as f:
                f.write(raw)
            os.rename(tmp, walk.name, src_dir_fd=walk.parent, dst_dir_fd=walk.parent)
        except BaseException:
            try:
                os.unlink(tmp, dir_fd=walk.parent)
            except OSError:
                pass
            raise
    return Path(os.path.abspath(path))


def make_dirs(path: str | os.PathLike[str]) -> Path:
    """`mkdir -p path`, following only the symbolic links `open_write`
    would follow; returns its absolute path."""
    with _Walk(os.path.join(os.fspath(path), "."), create_dirs=True):
        pass
    return Path(os.path.abspath(path))


def check_target(path: str | os.PathLike[str]) -> None:
    """Raise UnsafePath (or FileNotFoundError for a missing directory) if
    `path` is a file `open_write` would refuse; for files a library opens
    by name itself (SQLite), checked just before it does."""
    with _Walk(path, create_dirs=False) as walk:
        try:
            st = os.stat(walk.name, dir_fd=walk.parent, follow_symlinks=False)
        except FileNotFoundError:
            return
        walk.check_existing(st)


def error_text(error: OSError, path: str | os.PathLike[str]) -> str:
    """The one message for a write that failed: a refusal says itself,
    any other error names the path and the system's reason."""
    if isinstance(error, UnsafePath):
        return str(error)
    return f"cannot write {os.fspath(path)}: {error.strerror or error}"
