"""`evolve` end to end: a tiny evolution, show, plot, resume, and clear
errors for bad keys and sizes. Runs are stored under a temporary
XDG_DATA_HOME."""

from __future__ import annotations

import os
import random
from pathlib import Path

import pytest
from click.testing import CliRunner

from bots.evolved.bot import load_genome, policy
from arena.cli import evolve as main
from bots.evolved.store import Store, check_key
from bots.inprocess import play_game

TINY = ["--generations", "2", "--population", "8", "--players", "4", "--tournaments", "2", "-j", "1", "-q"]


@pytest.fixture
def data_home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path))
    return tmp_path


def evolve(*args: str) -> "object":
    return CliRunner().invoke(main, list(args), catch_exceptions=False)


def test_tiny_evolution_end_to_end(data_home: Path) -> None:
    result = evolve("tiny1", *TINY, "--seed", "3")
    assert result.exit_code == 0, result.output
    lines = [line for line in result.output.splitlines() if line.startswith("generation")]
    assert len(lines) == 2 and "best fitness" in lines[0] and "games/s" in lines[0] and "diversity" in lines[0]
    store = Store("tiny1")
    assert store.path.is_relative_to(data_home)
    assert [r["generation"] for r in store.generations()] == [1, 2]
    # The stored leader plays.
    genome = load_genome("tiny1")
    game = play_game([policy(genome, random.Random(0)), policy(genome, random.Random(1))], max_days=30)
    assert game.fault is None

    shown = evolve("show", "tiny1")
    assert shown.exit_code == 0
    assert "Incantation" in shown.output and "Golem" not in shown.output and "outbid" in shown.output


def test_same_seed_same_run(data_home: Path) -> None:
    evolve("runa", *TINY, "--seed", "5")
    evolve("runb", *TINY, "--seed", "5")
    strip = lambda rs: [{k: v for k, v in r.items() if k not in ("seconds", "games_per_second")} for r in rs]  # noqa: E731
    assert strip(Store("runa").generations()) == strip(Store("runb").generations())


def test_resume_continues_like_an_uninterrupted_run(data_home: Path) -> None:
    evolve("whole", *TINY, "--generations", "3")
    evolve("parts", *TINY)
    result = evolve("parts", "--resume", "--generations", "3", "-q")
    assert result.exit_code == 0, result.output
    leaders = lambda key: [r["leader"] for r in Store(key).generations()]  # noqa: E731
    assert leaders("parts") == leaders("whole")


def test_outside_opponents_enter_the_run_and_its_summary(data_home: Path) -> None:
    result = evolve("outer", *TINY, "--opponents", "expert,decent-repro", "--opponent-games", "2")
    assert result.exit_code == 0, result.output
    assert "against expert,decent-repro" in result.output
    assert Store("outer").settings()["opponents"] == ["expert", "decent-repro"]
    assert all(0 <= r["outside"] <= 1 for r in Store("outer").generations())
    bad = evolve("outer2", *TINY, "--opponents", "expert,nobody")
    assert bad.exit_code == 2 and "unknown opponent(s) nobody" in bad.output and not Store("outer2").exists


def test_refuses_to_overwrite_without_overwrite(data_home: Path) -> None:
    assert evolve("keep", *TINY).exit_code == 0
    again = evolve("keep", *TINY)
    assert again.exit_code == 2 and "use --overwrite to replace it" in again.output
    assert len(Store("keep").generations()) == 2
    assert evolve("keep", *TINY, "-o").exit_code == 2  # -o is --output everywhere, never --overwrite
    assert evolve("keep", *TINY, "--overwrite").exit_code == 0


def test_a_mistyped_subcommand_starts_nothing(data_home: Path) -> None:
    result = evolve("shw", *TINY)
    assert result.exit_code == 2 and "Did you mean 'show'?" in result.output
    assert not Store("shw").exists
    assert "(economancy-arena)" in evolve("--version").output


@pytest.mark.parametrize("key", ["bad-key", "", "über", "a b", "show"])
def test_bad_keys_are_refused(data_home: Path, key: str) -> None:
    result = evolve("run", key, *TINY)
    assert result.exit_code == 2
    assert "key" in result.output.lower()
    with pytest.raises(ValueError):
        if key != "show":
            check_key(key)
        else:
            raise ValueError


@pytest.mark.parametrize(
    "size, players, message",
    [("4", "2", "between 8 and 512"), ("1024", "4", "between 8 and 512"), ("10", "4", "not divisible")],
)
def test_bad_population_sizes_are_refused(data_home: Path, size: str, players: str, message: str) -> None:
    result = evolve("sizes", "--population", size, "--players", players, "-g", "1")
    assert result.exit_code == 2 and message in result.output
    assert not Store("sizes").exists


def test_show_and_resume_of_unknown_keys_fail_clearly(data_home: Path) -> None:
    assert "no run stored under key 'nothing'" in evolve("show", "nothing").output
    assert "nothing to resume" in evolve("nothing", "--resume").output


def test_plot_draws_a_png(data_home: Path, tmp_path: Path) -> None:
    pytest.importorskip("matplotlib")
    evolve("drawn", *TINY)
    out = tmp_path / "progress.png"
    result = evolve("plot", "drawn", "-o", str(out), "--games", "2")
    assert result.exit_code == 0, result.output
    assert out.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_ray_backend_runs_the_fitness_games(data_home: Path) -> None:
    try:
        import ray  # noqa: F401
    except ImportError:
        if os.environ.get("CI"):
            pytest.fail("Ray is required in CI (pip install -e '.[test,ray]')")
        pytest.skip("Ray is not installed")
    result = evolve("onray", "--generations", "1", "--population", "8", "--tournaments", "2", "--backend", "ray", "-q")
    assert result.exit_code == 0, result.output
    assert len(Store("onray").generations()) == 1


def _stored_run(key: str) -> None:
    """A run under `key` whose leader is the shipped genome (no evolution needed)."""
    from bots.evolved.bot import shipped_genome

    store = Store(key)
    store.create({"seed": 0}, overwrite=False)
    store.append_generation({"generation": 1, "leader": shipped_genome().to_json()}, [shipped_genome()])


def test_a_stored_key_plays_under_the_default_isolation(data_home: Path) -> None:
    """`driver run "evolved --key KEY"`: the referee reads the leader and passes
    its weights, so the bot plays even where it cannot read the store (as
    root it runs as nobody; the store is in a folder only we may enter)."""
    import subprocess
    import sys

    _stored_run("mine")
    data_home.chmod(0o700)
    done = subprocess.run(
        [sys.executable, "-c", "from arena.cli import driver_main; driver_main()", "run", "--max-days", "3", "evolved --key mine",
         "random"], capture_output=True, text=True, timeout=300, env={**os.environ, "XDG_DATA_HOME": str(data_home)},
    )
    assert done.returncode in (0, 3), done.stderr  # a win or a draw, not a forfeit (4)
    assert "forfeit" not in done.stderr


def test_an_unknown_key_is_refused_before_the_game_with_the_truth(data_home: Path) -> None:
    import subprocess
    import sys

    done = subprocess.run(
        [sys.executable, "-c", "from arena.cli import driver_main; driver_main()", "run", "evolved --key nothere", "random"],
        capture_output=True, text=True, timeout=300, env={**os.environ, "XDG_DATA_HOME": str(data_home)},
    )
    assert done.returncode == 2, done.stderr
    assert "no run stored under key 'nothere'" in done.stderr and str(data_home) in done.stderr


def test_a_store_the_bot_cannot_read_is_not_called_missing(data_home: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    _stored_run("locked")

    def denied(self: Path) -> bytes:
        raise PermissionError(13, "Permission denied", str(self))

    monkeypatch.setattr(Path, "read_bytes", denied)
    with pytest.raises(LookupError, match="permission denied") as caught:
        Store("locked").leader()
    assert "no run stored" not in str(caught.value)
