"""bench/tournament.py: the CPU split of a small run adds up, and the side by
side with the original driver says why it is skipped where it cannot run."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
BENCH = ROOT / "bench" / "tournament.py"


def bench(*args: str, env: dict[str, str] | None = None) -> str:
    done = subprocess.run([sys.executable, str(BENCH), "--skip-throughput", *args], capture_output=True, text=True,
                          timeout=600, env=env)
    assert done.returncode == 0, done.stderr
    return done.stdout


def test_the_cpu_split_counts_the_whole_tree_and_the_bots_answers() -> None:
    out = bench("--cpu-games", "1", "--max-days", "3", "--pair", "random", "random")
    (row,) = [line.split() for line in out.splitlines() if line.strip().startswith("random vs random")]
    (further,) = [line.split() for line in out.splitlines() if line.strip().startswith("each further game")]
    assert int(further[3]) == 4  # 6 games, then 2
    games, moves, total, bots, first, harness = int(row[3]), int(row[4]), *map(float, row[5:9])
    assert games == 2 and moves > 0
    assert total > 0 and bots >= 0 and first >= 0
    assert abs(total - bots - first - harness) < 0.02  # the three parts are the whole
    assert 0 < float(row[-1].rstrip("%")) <= 100


def test_against_the_original_is_skipped_with_the_reason_where_it_cannot_run(tmp_path: Path) -> None:
    out = bench("--skip-cpu", "--against-original", str(tmp_path / "nowhere"))
    assert f"skipped: no original driver at {tmp_path / 'nowhere'}" in out
    checkout = tmp_path / "economancy"
    (checkout / "player").mkdir(parents=True)
    (checkout / "player" / "tournament.rhm").write_text("#lang rhombus/static\n")
    no_racket = {**os.environ, "PATH": str(tmp_path)}  # a PATH with no racket on it
    out = bench("--skip-cpu", "--against-original", str(checkout), env=no_racket)
    assert "skipped: racket is not installed" in out and "Rhombus" in out
