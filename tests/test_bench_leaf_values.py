"""bench/leaf_values.py: which way of valuing a leaf predicts the real results of stored games."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from bots.search.weights import load_weights
from exploit.matches import Match, play_match
from tournaments.make_suites import SUITES
from tournaments.openings import suite_name

ROOT = Path(__file__).resolve().parent.parent
SCRIPT = ROOT / "bench" / "leaf_values.py"


def _run(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, str(SCRIPT), *args], capture_output=True, text=True, timeout=600,
                          cwd=ROOT, stdin=subprocess.DEVNULL)


def test_every_estimator_is_judged_on_held_out_openings_and_the_fit_is_written(tmp_path: Path) -> None:
    row = tmp_path / "row.jsonl"
    play_match(Match("expert", "decent-repro", suite=str(SUITES / suite_name(2, False))), 12, row)
    out = tmp_path / "fitted.json"
    run = _run(str(row), "--positions", "40", "--playouts", "2", "--weights", "bots/search/champion.json", "-o", str(out))
    assert run.returncode == 0, run.stderr
    lines = run.stdout.splitlines()
    assert lines[0].startswith("24 games, ") and "from 3 held-out openings" in lines[0]
    table = [line.split(" | ") for line in lines[3:] if line.startswith("| ")]
    names = [cells[0].lstrip("| ") for cells in table]
    assert names[0] == "a constant" and len(names) == 8
    assert names[3] == "bots/search/champion.json, the position itself"
    assert "the champion's leaf" in names[4] and names[-1].startswith("3 days of playouts")
    constant = float(table[0][1])
    for cells in table[1:]:
        brier = float(cells[1])
        assert 0 <= brier <= constant + 0.05, cells  # mapped by a fit, nothing does much worse than a constant
    weights = load_weights(str(out))
    assert len(weights.values) == len(load_weights().values)
    assert "bench/leaf_values.py" in out.read_text() and "--positions 40" in out.read_text()


def test_bad_input_is_refused_with_a_reason(tmp_path: Path) -> None:
    missing = _run(str(tmp_path / "nothing.jsonl"))
    assert missing.returncode == 2 and "no such file" in missing.stderr
    row = tmp_path / "row.jsonl"
    play_match(Match("expert", "decent-repro", suite=str(SUITES / suite_name(2, False))), 2, row)
    few = _run(str(row))
    assert few.returncode == 2 and "the split needs 4 or more" in few.stderr
    assert _run(str(row), "--playouts", "0").returncode == 2
    bad = _run(str(row), "--weights", str(row))
    assert bad.returncode == 2 and "--weights" in bad.stderr
