"""bench/champion_weights.py: the champion with a weight changed, played
from the suite's openings and compared with the other variants stored."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SCRIPT = ROOT / "bench" / "champion_weights.py"


def _run(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, str(SCRIPT), *args], capture_output=True, text=True, timeout=300,
                          cwd=ROOT, stdin=subprocess.DEVNULL)


def test_a_variant_plays_each_opening_from_both_seats_and_resumes(tmp_path: Path) -> None:
    args = ("--set", "firepower=1", "--opponent", "random", "--time", "0.02", "--openings", "1", "--out", str(tmp_path))
    first = _run(*args)
    assert first.returncode == 0, first.stderr
    group = tmp_path / "random-simple-0.02s"
    weights = json.loads((group / "firepower=1.weights.json").read_text())["weights"]
    shipped = json.loads((ROOT / "bots" / "search" / "champion.json").read_text())["weights"]
    assert weights["firepower"] == 1 and shipped["firepower"] != 1
    assert {k: v for k, v in weights.items() if k != "firepower"} == {k: v for k, v in shipped.items() if k != "firepower"}
    games = (group / "firepower=1.jsonl").read_text().splitlines()
    assert sorted((json.loads(g)["opening"], json.loads(g)["seat"]) for g in games) == [(0, 0), (0, 1)]
    row = [line for line in first.stdout.splitlines() if line.startswith("firepower=1 ")]
    assert row and " / 2 " in row[0]
    again = _run(*args)
    assert again.returncode == 0, again.stderr
    assert (group / "firepower=1.jsonl").read_text().splitlines() == games  # nothing replayed


def test_an_unknown_feature_is_refused_with_the_known_ones(tmp_path: Path) -> None:
    run = _run("--set", "charisma=2", "--out", str(tmp_path))
    assert run.returncode == 2
    assert "charisma" in run.stderr and "firepower" in run.stderr
    assert not any(tmp_path.iterdir())


def test_an_opponent_that_is_not_ours_is_refused_before_anything_is_written(tmp_path: Path) -> None:
    run = _run("--opponent", f"{sys.executable} my_bot.py", "--out", str(tmp_path))
    assert run.returncode == 2
    assert "not one of our bots" in run.stderr and "Traceback" not in run.stderr
    assert not any(tmp_path.iterdir())


def test_a_whole_weights_file_is_a_variant_named_after_it(tmp_path: Path) -> None:
    # The side-by-side of a learned evaluation (bots/search/train.py) and the hand-tuned one.
    learned = json.loads((ROOT / "bots" / "search" / "champion.json").read_text())
    learned["weights"]["coins"] = 0.25
    source = tmp_path / "learned.json"
    source.write_text(json.dumps(learned))
    out = tmp_path / "out"
    run = _run("--weights", str(source), "--set", "race=-2", "--opponent", "random", "--time", "0.02",
               "--openings", "1", "--out", str(out))
    assert run.returncode == 0, run.stderr
    group = out / "random-simple-0.02s"
    weights = json.loads((group / "learned,race=-2.weights.json").read_text())["weights"]
    assert weights["coins"] == 0.25 and weights["race"] == -2  # the file's weights, one changed
    assert [line for line in run.stdout.splitlines() if line.startswith("learned,race=-2 ")]
    missing = _run("--weights", str(tmp_path / "nowhere.json"), "--out", str(out))
    assert missing.returncode == 2 and "--weights" in missing.stderr
