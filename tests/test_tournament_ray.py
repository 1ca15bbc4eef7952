"""--backend ray: the same tournament as Ray tasks on a local Ray instance,
results written by the parent to the one database."""

from __future__ import annotations

import os
import sqlite3
from pathlib import Path

import pytest

from tournaments import PlayOptions, round_robin

PASSIVE = str(Path(__file__).parent / "bots_tournament" / "passive.py")


@pytest.fixture(scope="module")
def ray_module():  # type: ignore[no-untyped-def]
    try:
        import ray
    except ImportError:
        if os.environ.get("CI"):
            pytest.fail("Ray is required in CI (pip install -e '.[test,ray]')")
        pytest.skip("Ray is not installed")
    yield ray
    if ray.is_initialized():
        ray.shutdown()


def test_round_robin_on_ray_stores_every_game_once(ray_module, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    db = tmp_path / "ray.sqlite"
    kw = dict(games=2, db=db, backend="ray", concurrency=2, options=PlayOptions(max_days=5))
    res = round_robin(["random", PASSIVE, PASSIVE], **kw)  # type: ignore[arg-type]
    assert ray_module.is_initialized()
    assert res.played_now == res.standings.games == 12
    keys = [k for (k,) in sqlite3.connect(db).execute("SELECT key FROM games")]
    assert len(keys) == len(set(keys)) == 12
    assert round_robin(["random", PASSIVE, PASSIVE], **kw).played_now == 0  # type: ignore[arg-type]


def test_a_node_starts_our_bots_with_its_own_interpreter() -> None:
    """A job carries the argv its parent resolved, whose interpreter (the
    parent's virtual environment) need not exist on a Ray node: the worker
    starts our named bots under its own. Without that both seats forfeit."""
    from driver.botspec import BotSpec, parse_bot
    from tournaments.workers import Job, play

    ours = parse_bot("random")
    elsewhere = BotSpec(("/nonexistent/venv/bin/python", *ours.argv[1:]), "random")
    rec = play(Job("rr/0.1/0", ("a", "b"), (elsewhere, elsewhere), PlayOptions(max_days=3)))
    assert rec.fault_seat is None and rec.fault_reason is None
    assert rec.moves > 0


def test_a_working_dir_without_ray_is_refused_before_any_game(tmp_path: Path) -> None:
    """--ray-working-dir ships bots to Ray nodes: with the local backend it
    would silently do nothing, so it is refused, and no database is left."""
    from click.testing import CliRunner

    from tournaments.cli import tournament_main

    db = tmp_path / "t.sqlite"
    done = CliRunner().invoke(tournament_main, ["round-robin", "random", "random", "--db", str(db),
                                                "--ray-working-dir", str(tmp_path)])
    assert done.exit_code == 2, done.output
    assert "--ray-working-dir is for --backend ray" in done.output
    assert not db.exists()
