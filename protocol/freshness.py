"""Whether the C engine was built from the C sources beside it.

An editable install (`pip install -e .`) builds `protocol._engine` once;
after a `git pull`, a checkout of another branch or an edit to a `.c`
file, Python goes on importing the old build without a word, and every
game, test and measurement then plays the old rules and searches. A
figure measured so belongs to no commit. The build records a digest of
the sources it compiled (setup.py passes it to the compiler as
SOURCE_DIGEST); at import, `protocol.engine` compares it with the sources
found beside the package and warns (StaleEngineWarning) when they differ.

Cheap on the common path, since every bot imports the engine: when no
source is newer than the built file, nothing is read (two folders listed,
a few `stat`s, no module imported beyond `os`); only then are the sources hashed, so
a checkout that touched them without changing them costs one digest and
no warning. A wheel or a frozen bundle has no sources beside it and is
not checked.

This module uses the standard library only: setup.py loads it by path,
before the package can be imported.
"""

from __future__ import annotations

import os

SOURCE_FOLDERS = ("", "search")
"""Where the engine's sources are, relative to protocol/: every .c and .h
file there is one (what setup.py compiles and includes), and the digest
covers them all."""

HERE = os.path.dirname(os.path.abspath(__file__))


class StaleEngineWarning(UserWarning):
    """protocol._engine was built from other C sources than those beside it."""


def source_files(root: str = HERE) -> list[str]:
    """The engine's source files under `root` (a protocol/ folder), as
    paths relative to it, sorted."""
    found = []
    for folder in SOURCE_FOLDERS:
        try:
            names = os.listdir(os.path.join(root, folder))
        except OSError:
            continue
        found += [f"{folder}/{name}" if folder else name for name in names if name.endswith((".c", ".h"))]
    return sorted(found)


def source_digest(root: str = HERE) -> str:
    """A digest of the engine's sources under `root`: their names relative
    to it and their bytes."""
    import hashlib  # only when a source is newer than the build

    digest = hashlib.sha256()
    for name in source_files(root):
        with open(os.path.join(root, name), "rb") as source:
            data = source.read()
        digest.update(b"%d:%s%d:" % (len(name), name.encode(), len(data)))
        digest.update(data)
    return digest.hexdigest()


def stale_message(built_file: str | None, built_digest: str, root: str = HERE) -> str | None:
    """Why the engine at `built_file`, built from sources of digest
    `built_digest`, is not a build of the sources under `root`, or None
    when it is, or when that cannot be told (no sources there, no file, or
    no digest recorded by the build)."""
    if not built_file or not built_digest or not os.path.exists(os.path.join(root, "_engine.c")):
        return None
    try:
        built = os.stat(built_file).st_mtime
        if all(os.stat(os.path.join(root, name)).st_mtime <= built for name in source_files(root)):
            return None
        if source_digest(root) == built_digest:
            return None
    except OSError:
        return None
    return (f"{built_file} was built from other C sources than those in {root} (an edit, a pull or a checkout "
            f"since), so it plays other rules and searches than this checkout: rebuild it with `pip install -e .` "
            f"in this environment")
