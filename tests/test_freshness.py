"""protocol/freshness.py: a build of the C engine older than the sources beside it is not played unnoticed."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import protocol._engine as _engine
from protocol.freshness import SOURCE_FOLDERS, source_digest, source_files, stale_message

ROOT = Path(__file__).resolve().parent.parent
PROTOCOL = ROOT / "protocol"


def test_the_engine_in_use_is_a_build_of_the_sources_beside_it() -> None:
    """The build recorded the digest of what it compiled (setup.py), and it
    is this checkout's: a fresh install, as CI makes, is never stale."""
    assert _engine.SOURCE_DIGEST == source_digest(str(PROTOCOL))
    assert stale_message(_engine.__file__, _engine.SOURCE_DIGEST) is None


def test_every_c_file_of_the_engine_is_in_the_digest() -> None:
    """A C file the digest left out could change with no warning."""
    on_disk = {path.relative_to(PROTOCOL).as_posix() for suffix in ("c", "h") for path in PROTOCOL.rglob(f"*.{suffix}")}
    assert on_disk and set(source_files(str(PROTOCOL))) == on_disk, SOURCE_FOLDERS


def _copy_sources(to: Path) -> Path:
    root = to / "protocol"
    for name in source_files(str(PROTOCOL)):
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(PROTOCOL / name, root / name)
    return root


def test_a_build_is_stale_when_a_source_changed_not_when_it_was_only_touched(tmp_path: Path) -> None:
    root = _copy_sources(tmp_path)
    built = tmp_path / "_engine.so"
    built.write_bytes(b"")
    digest = source_digest(str(root))
    old = built.stat().st_mtime - 100
    for name in source_files(str(root)):
        os.utime(root / name, (old, old))
    assert stale_message(str(built), digest, str(root)) is None  # nothing newer than the build: nothing read
    os.utime(root / "search" / "mcts.c")  # touched (a checkout), the same bytes
    assert stale_message(str(built), digest, str(root)) is None
    with open(root / "search" / "mcts.c", "a") as source:
        source.write("/* changed */\n")
    message = stale_message(str(built), digest, str(root))
    assert message is not None and "pip install -e ." in message and str(built) in message
    # A build whose digest is unknown, a missing build, or no sources beside it: not told.
    assert stale_message(str(built), "", str(root)) is None
    assert stale_message(str(tmp_path / "missing.so"), digest, str(root)) is None
    assert stale_message(str(built), digest, str(tmp_path / "elsewhere")) is None
    # An engine built before builds recorded a digest is stale once a source is newer.
    assert stale_message(str(built), "?", str(root)) is not None


def test_importing_a_stale_engine_warns(tmp_path: Path) -> None:
    """The warning comes from `import protocol.engine`, which every game,
    bot and measurement goes through; -W error makes it a failure."""
    for package in ("protocol", "common"):
        shutil.copytree(ROOT / package, tmp_path / package, ignore=shutil.ignore_patterns("__pycache__", "search"))
    _copy_sources(tmp_path)
    shutil.copy2(_engine.__file__, tmp_path / "protocol" / Path(_engine.__file__).name)
    env = {**os.environ, "PYTHONPATH": str(tmp_path)}
    command = [sys.executable, "-W", "error", "-c", "import protocol.engine, protocol._engine as e; print(e.__file__)"]
    fresh = subprocess.run(command, capture_output=True, text=True, env=env, cwd=tmp_path, timeout=120)
    assert fresh.returncode == 0 and fresh.stdout.startswith(str(tmp_path)), fresh.stderr
    source = tmp_path / "protocol" / "search" / "mcts.c"
    source.write_text(source.read_text() + "/* changed */\n")
    stale = subprocess.run(command, capture_output=True, text=True, env=env, cwd=tmp_path, timeout=120)
    assert stale.returncode != 0 and "StaleEngineWarning" in stale.stderr and "pip install -e ." in stale.stderr
