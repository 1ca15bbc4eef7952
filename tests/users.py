"""Running the referee as root and as an unprivileged user, from one test.

The isolation a bot gets depends on who runs the referee (as root, bots
run as nobody; otherwise as the referee's own user), so the hostile-bot
and kill tests run both ways. Run as root, the test starts the
unprivileged referee with setpriv under an unused uid; run as a normal
user, it skips the root case. The unprivileged user needs an interpreter
it may run: this one, or the system's Python with our checkout and our
virtualenv's packages on PYTHONPATH; if neither works, the case is skipped
and says why.
"""

from __future__ import annotations

import os
import pwd
import shutil
import subprocess
import sys
import sysconfig
import tempfile
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
UNUSED_UID = 54321


def _shared_root() -> Path:
    """Where tests make folders their bots write to: not under /tmp, /var/tmp,
    /dev/shm or /run/lock, which are each bot's own under namespaces
    (driver.isolation.SCRATCH_PLACES; a checkout under /tmp is bound into a
    bot read-only). Beside the checkout when it lies elsewhere, else (as
    root) under /var/lib."""
    from driver.isolation import SCRATCH_PLACES

    real = ROOT.resolve()
    if not any(real == Path(p) or Path(p) in real.parents for p in SCRATCH_PLACES):
        return ROOT / ".test-shared"
    return Path("/var/lib/economancy-test-shared")


SHARED = _shared_root()


def shared_directory(prefix: str) -> Path:
    """A fresh folder any user (a bot running as nobody) may write to, that
    bots under namespaces see too; the caller removes it."""
    SHARED.mkdir(mode=0o755, parents=True, exist_ok=True)
    directory = Path(tempfile.mkdtemp(prefix=prefix, dir=SHARED))
    directory.chmod(0o777)
    return directory


@dataclass
class User:
    """Who runs the referee: the command prefix that becomes that user, the
    Python it runs (and the bots under test run), and a directory it may write."""

    label: str
    prefix: list[str]
    python: str
    env: dict[str, str]
    workdir: Path
    uid: int
    _cleanup: list[Path] = field(default_factory=list)

    def command(self, *argv: str) -> list[str]:
        return [*self.prefix, *argv]

    def driver(self, *args: str) -> list[str]:
        return self.command(self.python, "-m", "arena.cli", *args)

    def tournament(self, *args: str) -> list[str]:
        code = "from arena.cli import tournament_main; tournament_main()"
        return self.command(self.python, "-c", code, *args)

    def bot(self, script: str, *args: str) -> str:
        """A BOT argument for one of tests/bots, run by this user's Python."""
        return " ".join([self.python, "-S", str(ROOT / "tests" / "bots" / script), *args])


def _unprivileged_prefix(uid: int) -> list[str]:
    # setpriv still holds root's capabilities when it execs its program, so
    # the first exec could reach what the user cannot: exec once more via sh.
    return ["setpriv", f"--reuid={uid}", f"--regid={uid}", "--clear-groups", "--", "/bin/sh", "-c", 'exec "$0" "$@"']


def _works(prefix: list[str], python: str, env: dict[str, str]) -> str | None:
    """None if `python` can import our packages as that user, else why not."""
    try:
        done = subprocess.run(
            [*prefix, python, "-c", "import driver.game, tournaments.cli"],
            env=env, cwd=ROOT, capture_output=True, timeout=120,
        )
    except (OSError, subprocess.TimeoutExpired) as e:
        return str(e)
    return None if done.returncode == 0 else done.stderr.decode(errors="replace").strip().splitlines()[-1]


def _free_uid() -> int:
    uid = UNUSED_UID
    while True:
        try:
            pwd.getpwuid(uid)
        except KeyError:
            return uid
        uid += 1


@pytest.fixture(scope="session", params=["root", "unprivileged"])
def user(request: pytest.FixtureRequest) -> Iterator[User]:
    """The referee's user: root, then an unprivileged one (skipped with a
    reason where this platform cannot have it)."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("PYTEST")}
    if request.param == "root":
        if os.geteuid() != 0:
            pytest.skip("the root case needs the tests to run as root")
        workdir = Path(tempfile.mkdtemp(prefix="economancy-root-"))
        yield User("root", [], sys.executable, env, workdir, 0)
        shutil.rmtree(workdir, ignore_errors=True)
        return
    if os.geteuid() != 0:
        workdir = Path(tempfile.mkdtemp(prefix="economancy-user-"))
        yield User(f"uid {os.geteuid()}", [], sys.executable, env, workdir, os.geteuid())
        shutil.rmtree(workdir, ignore_errors=True)
        return
    if shutil.which("setpriv") is None:
        pytest.skip("no setpriv to run the referee as an unprivileged user")
    uid = _free_uid()
    prefix = _unprivileged_prefix(uid)
    env = {**env, "HOME": "/nonexistent"}
    reasons = []
    candidates: Sequence[tuple[str, dict[str, str]]] = [
        (sys.executable, env),
        (
            "/usr/bin/python3",
            {**env, "PYTHONPATH": os.pathsep.join([str(ROOT), sysconfig.get_paths()["purelib"]])},
        ),
    ]
    for python, python_env in candidates:
        why = _works(prefix, python, python_env)
        if why is None:
            break
        reasons.append(f"{python}: {why}")
    else:
        pytest.skip(f"uid {uid} cannot run the referee here: " + "; ".join(reasons))
    workdir = Path(tempfile.mkdtemp(prefix="economancy-user-"))
    os.chown(workdir, uid, uid)
    yield User(f"uid {uid}", prefix, python, python_env, workdir, uid)
    shutil.rmtree(workdir, ignore_errors=True)
