"""compile.sh: standalone bot executables that run anywhere, with no venv.

Slow (a PyInstaller build, about 10-60 s once the build tools are cached
in build/compile/venv, or ECONOMANCY_COMPILE_TOOLS's folder as in CI; the
first run also installs them).
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import orjson
import pytest

from protocol.engine import Game

pytestmark = pytest.mark.slow

ROOT = Path(__file__).resolve().parent.parent
VENV_BIN = Path(sys.executable).parent


def _clean_env() -> dict[str, str]:
    """The environment of a user with no virtual environment activated."""
    env = {k: v for k, v in os.environ.items() if k not in ("VIRTUAL_ENV", "PYTHONPATH", "PYTHONHOME")}
    env["PATH"] = os.pathsep.join(
        p for p in env.get("PATH", "").split(os.pathsep) if p and Path(p).resolve() != VENV_BIN.resolve()
    )
    return env


def _build(out: Path) -> None:
    build = subprocess.run(
        ["bash", str(ROOT / "compile.sh"), "-o", str(out), "random"],
        capture_output=True,
        text=True,
        timeout=900,
        stdin=subprocess.DEVNULL,
    )
    assert build.returncode == 0, build.stderr[-3000:]
    assert f"built {out}/random" in build.stdout


def test_a_compiled_bot_runs_through_a_symlink_and_plays_full_games_under_the_driver(tmp_path: Path) -> None:
    """One test for the one build (a PyInstaller build is 10-40 s of CPU;
    as a module fixture of two tests it was built once per test worker
    that took one)."""
    compiled = tmp_path / "bin"
    _build(compiled)
    _launcher_is_a_real_executable_found_through_a_symlink(compiled, tmp_path)
    _compiled_bots_play_a_full_game_under_the_driver(compiled, tmp_path)


def _launcher_is_a_real_executable_found_through_a_symlink(compiled: Path, tmp_path: Path) -> None:
    launcher = compiled / "random"
    assert os.access(launcher, os.X_OK) and launcher.read_bytes().startswith(b"#!")
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    (elsewhere / "my-bot").symlink_to(launcher)
    state = orjson.dumps(Game(2).to_wire(1)) + b"\n"
    run = subprocess.run(
        ["./my-bot"], input=state * 3, capture_output=True, cwd=elsewhere, env=_clean_env(), timeout=60
    )
    assert run.returncode == 0, run.stderr
    assert [orjson.loads(line)[0] in range(4) for line in run.stdout.splitlines()] == [True] * 3


def _compiled_bots_play_a_full_game_under_the_driver(compiled: Path, tmp_path: Path) -> None:
    driver = VENV_BIN / "driver"
    for base in ([], ["--base"]):
        game = subprocess.run(
            [str(driver), "run", *base, str(compiled / "random"), str(compiled / "random")],
            capture_output=True,
            cwd=tmp_path,
            env=_clean_env(),
            timeout=120,
            stdin=subprocess.DEVNULL,
        )
        trace = [orjson.loads(line) for line in game.stdout.splitlines()]
        assert trace, game.stderr
        final = trace[-1]
        assert final["phase"]["name"] == "end", final
        assert "player" not in final
        answers = [m for m in trace if isinstance(m, list)]
        assert answers and all(len(a) == 1 for a in answers)
