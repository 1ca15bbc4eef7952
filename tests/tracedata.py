"""The original driver's conformance traces, kept in tests/data/traces.

Stored gzip-compressed so that the clone stays small; every test reads
them through here, so that nothing outside the repository is needed.
"""

from __future__ import annotations

import atexit
import gzip
import shutil
import tempfile
from pathlib import Path

DIR = Path(__file__).resolve().parent / "data" / "traces"
SUFFIX = ".jsonl.gz"


def names() -> list[str]:
    """Every trace's name (`simple_2p_random_decent_1.jsonl`), sorted."""
    return sorted(p.name[: -len(".gz")] for p in DIR.glob("*" + SUFFIX))


def read_bytes(name: str) -> bytes:
    """The trace `name` (with or without `.gz`) exactly as the original wrote it."""
    return gzip.decompress((DIR / (name.removesuffix(".gz") + ".gz")).read_bytes())


def read_text(name: str) -> str:
    return read_bytes(name).decode()


def materialize(name: str, directory: Path) -> Path:
    """The trace written uncompressed into `directory` (for commands that take a file)."""
    path = directory / name.removesuffix(".gz")
    path.write_bytes(read_bytes(name))
    return path


_unpacked: Path | None = None


def unpacked() -> Path:
    """A directory holding every trace uncompressed (`NAME.jsonl`), made once
    per test process and removed when it exits: for tests that hand trace
    files to commands or glob for them."""
    global _unpacked
    if _unpacked is None:
        directory = Path(tempfile.mkdtemp(prefix="economancy-traces-"))
        atexit.register(shutil.rmtree, directory, True)
        for name in names():
            materialize(name, directory)
        _unpacked = directory
    return _unpacked
