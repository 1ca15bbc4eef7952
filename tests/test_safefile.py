"""Issue 29, hole 1: nothing we write goes through a trap another user laid.

Each trap is laid the way a bot would lay it: by another user (uid
65534, nobody, as the bots of a root referee run) in a sticky
world-writable directory like /tmp, from a forked child that drops to
that uid. The kernel's own protection (`fs.protected_symlinks`,
`protected_regular`) is off in many containers; `common.safefile`
applies the rule itself, so these hold whatever the kernel's setting.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from common.safefile import UnsafePath, check_target, make_dirs, open_write, write_file
from users import shared_directory

NOBODY = 65534
SECRET = b"root:x:0:0:the file a bot wants overwritten\n"

needs_root = pytest.mark.skipif(os.geteuid() != 0, reason="laying a file as another user needs root")


def as_user(uid: int, directory: Path, act: Callable[[], None]) -> None:
    """Run `act` in a forked child that works in `directory` as `uid`."""
    pid = os.fork()
    if pid == 0:  # pragma: no cover - the child
        code = 1
        try:
            os.chdir(directory)
            os.setgroups([])
            os.setgid(uid)
            os.setuid(uid)
            act()
            code = 0
        finally:
            os._exit(code)
    _, status = os.waitpid(pid, 0)
    assert os.waitstatus_to_exitcode(status) == 0, "the other user could not lay its trap"


@pytest.fixture
def shared() -> Iterator[Path]:
    """A sticky world-writable directory, like /tmp, that another user and a
    bot under namespaces reach (each bot has a /tmp of its own, so the host's
    /tmp is out of a bot's reach: users.SHARED is where tests share folders)."""
    directory = shared_directory("economancy-shared-")
    directory.chmod(0o1777)
    yield directory
    shutil.rmtree(directory, ignore_errors=True)


@pytest.fixture
def victim(tmp_path: Path) -> Path:
    path = tmp_path / "passwd"
    path.write_bytes(SECRET)
    return path


WRITERS: dict[str, Callable[[Path], object]] = {
    "open_write": lambda p: open_write(p).write(b"trace\n"),
    "open_write append": lambda p: open_write(p, append=True).write(b"trace\n"),
    "write_file": lambda p: write_file(p, b"page"),
    "check_target": check_target,
}


@needs_root
@pytest.mark.parametrize("writer", WRITERS)
def test_a_symbolic_link_another_user_laid_is_not_followed(shared: Path, victim: Path, writer: str) -> None:
    as_user(NOBODY, shared, lambda: os.symlink(victim, "x.trace"))
    with pytest.raises(UnsafePath, match=f"refusing to write {shared}/x.trace: .*symbolic link of user {NOBODY}"):
        WRITERS[writer](shared / "x.trace")
    assert victim.read_bytes() == SECRET


@needs_root
@pytest.mark.parametrize("writer", ["open_write", "write_file", "check_target"])
def test_a_file_another_user_laid_is_not_written(shared: Path, writer: str) -> None:
    as_user(NOBODY, shared, lambda: Path("x.trace").write_bytes(b"theirs"))
    with pytest.raises(UnsafePath, match=f"belongs to user {NOBODY}"):
        WRITERS[writer](shared / "x.trace")
    assert (shared / "x.trace").read_bytes() == b"theirs"


@needs_root
def test_a_hard_link_to_our_file_is_not_written(shared: Path, victim: Path) -> None:
    os.link(victim, shared / "x.trace")  # what a bot can do when protected_hardlinks is off
    with pytest.raises(UnsafePath, match="2 hard links"):
        open_write(shared / "x.trace")
    assert victim.read_bytes() == SECRET


@needs_root
def test_a_fifo_another_user_laid_neither_hangs_nor_is_written(shared: Path) -> None:
    as_user(NOBODY, shared, lambda: os.mkfifo("x.trace"))
    with pytest.raises(UnsafePath, match="x.trace"):
        open_write(shared / "x.trace")


@needs_root
def test_a_directory_link_another_user_laid_is_not_followed(shared: Path, victim: Path) -> None:
    as_user(NOBODY, shared, lambda: os.symlink(victim.parent, "out"))
    for act in (lambda: open_write(shared / "out" / "passwd"), lambda: write_file(shared / "out" / "passwd", "x"),
                lambda: make_dirs(shared / "out" / "replays")):
        with pytest.raises(UnsafePath, match="'out' is a symbolic link of user"):
            act()
    assert victim.read_bytes() == SECRET and not (victim.parent / "replays").exists()


@needs_root
def test_our_own_links_and_files_in_a_shared_directory_are_used(shared: Path, tmp_path: Path) -> None:
    (shared / "mine").symlink_to(tmp_path)
    (shared / "link.trace").symlink_to(tmp_path / "a.trace")
    with open_write(shared / "link.trace") as f:
        f.write(b"one\n")
    assert (tmp_path / "a.trace").read_bytes() == b"one\n"
    with open_write(shared / "mine" / "a.trace", append=True) as f:
        f.write(b"two\n")
    assert (tmp_path / "a.trace").read_bytes() == b"one\ntwo\n"
    with open_write(shared / "own.trace") as f:
        f.write(b"long first text")
    with open_write(shared / "own.trace") as f:
        f.write(b"short")
    assert (shared / "own.trace").read_bytes() == b"short"


def test_a_private_directory_works_as_open_does(tmp_path: Path) -> None:
    (tmp_path / "real.txt").write_bytes(b"old")
    (tmp_path / "link.txt").symlink_to("real.txt")
    with open_write(tmp_path / "link.txt") as f:
        f.write(b"new")
    assert (tmp_path / "real.txt").read_bytes() == b"new"
    out = make_dirs(tmp_path / "a" / "b")
    assert out.is_dir()
    assert write_file(out / "page.html", "é") == out / "page.html"
    assert (out / "page.html").read_text(encoding="utf-8") == "é"
    assert [p.name for p in out.iterdir()] == ["page.html"]  # no temporary file left
    with open_write(tmp_path / "keep.txt") as f:
        f.write(b"abc")
    with open_write(tmp_path / "keep.txt", truncate=False) as f:
        f.write(b"X")
    assert (tmp_path / "keep.txt").read_bytes() == b"Xbc"
    with pytest.raises(FileNotFoundError, match="no directory 'missing'"):
        open_write(tmp_path / "missing" / "x")
    with pytest.raises(IsADirectoryError):
        open_write(tmp_path / "a")


# -- the commands -------------------------------------------------------------

ROOT = Path(__file__).resolve().parents[1]
BOTS = ROOT / "tests" / "bots"


def command(*argv: str, cwd: Path = ROOT) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, *argv], capture_output=True, text=True, timeout=300, cwd=cwd)


@needs_root
def test_driver_run_refuses_a_trace_link_laid_before_it_and_starts_no_bot(shared: Path, victim: Path) -> None:
    as_user(NOBODY, shared, lambda: os.symlink(victim, "x.trace"))
    marker = shared / "started"
    bot = f"{sys.executable} -c \"open('{marker}', 'w')\""  # would leave a mark if it were started
    done = command("-m", "arena.cli", "run", "--trace", str(shared / "x.trace"), bot, "random")
    assert done.returncode == 2, done.stderr
    assert f"refusing to write {shared}/x.trace" in done.stderr and "symbolic link of user 65534" in done.stderr
    assert victim.read_bytes() == SECRET and not marker.exists()


@needs_root
def test_a_bot_that_lays_links_during_the_game_overwrites_nothing(shared: Path, victim: Path) -> None:
    """The trap a bot lays while it plays (as nobody, under the default
    isolation): links where the trace and the replay page (and the page's
    temporary file, which the old writer used) are about to be written."""
    links = [shared / "x.trace", shared / "replay.html", shared / "replay.html.tmp"]
    trapper = f"{sys.executable} -S {BOTS / 'trapper.py'} {victim} " + " ".join(map(str, links))
    done = command("-m", "arena.cli", "run", "--max-days", "3", "--trace", str(shared / "x.trace"), "--view",
                   trapper, f"{sys.executable} -S {BOTS / 'simple.py'}", cwd=shared)
    assert done.returncode in (0, 3), done.stderr
    assert (shared / "replay.html.tmp").is_symlink()  # the bot did lay what it could
    assert (shared / "replay.html.tmp").lstat().st_uid != 0
    assert victim.read_bytes() == SECRET
    trace = (shared / "x.trace").read_bytes().splitlines()
    assert len(trace) > 5 and json.loads(trace[-1])["phase"]["name"] == "end"
    assert not (shared / "x.trace").is_symlink() and not (shared / "replay.html").is_symlink()
    assert "<html" in (shared / "replay.html").read_text(encoding="utf-8").lower()
    assert f"replay   {shared / 'replay.html'}" in done.stderr


@needs_root
def test_reports_exports_and_pages_refuse_links_laid_for_them(shared: Path, victim: Path, tmp_path: Path) -> None:
    from tournaments.store import Store

    db = tmp_path / "games.sqlite"
    Store.open(db).close()
    trace = tmp_path / "game.jsonl"
    trace.write_bytes(subprocess.run([sys.executable, "-m", "arena.cli", "run", "--max-days", "2", "random", "random"],
                                     capture_output=True, timeout=120, cwd=ROOT).stdout)
    as_user(NOBODY, shared, lambda: (os.symlink(victim, "report.html"), os.symlink(victim.parent, "export"),
                                     os.symlink(victim, "page.html"), os.symlink(victim, "games.sqlite")))
    tournament = "from arena.cli import tournament_main; tournament_main()"
    for argv in (["-c", tournament, "report", str(db), "-o", str(shared / "report.html"), "--no-replays"],
                 ["-c", tournament, "export", str(db), "-o", str(shared / "export" / "out")],
                 ["-m", "arena.cli", "view", str(trace), "-o", str(shared / "page.html")],
                 ["-c", tournament, "round-robin", "random", "random", "-n", "1", "--db", str(shared / "games.sqlite")]):
        done = command(*argv)
        assert done.returncode != 0 and "refusing to write" in done.stderr and "symbolic link of user" in done.stderr, \
            (argv, done.stderr)
    assert victim.read_bytes() == SECRET
    assert not (victim.parent / "out").exists()


def test_dev_stdout_and_dev_null_still_work() -> None:
    """/dev/stdout leads, through /proc, to a pipe (a link only the kernel can follow)."""
    code = "from common.safefile import open_write; open_write('/dev/stdout').write(b'to the pipe');" \
           "open_write('/dev/null').write(b'gone')"
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, timeout=60, cwd=ROOT)
    assert done.returncode == 0 and done.stdout == b"to the pipe", done.stderr
