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
