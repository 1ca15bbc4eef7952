"""bench/variants.py: variants of a bot on the same games, compared game by game."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from scripts import load_script

ROOT = Path(__file__).resolve().parent.parent
SCRIPT = ROOT / "bench" / "variants.py"
variants = load_script(SCRIPT)


def _run(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, str(SCRIPT), *args], capture_output=True, text=True, timeout=600,
                          cwd=ROOT, stdin=subprocess.DEVNULL)


def test_file_names_and_the_paired_counts() -> None:
    assert variants.file_name("champion --time 0.1 --finisher") == "champion_--time_0.1_--finisher"
    assert variants.file_name("mcts-v1 --time=0.1 'x/y'") == "mcts-v1_--time=0.1_xy"
    def game(opening: int, seat: int, winner: int | None, fault: list[object] | None = None) -> dict[str, object]:
        return {"opening": opening, "seat": seat, "winner": winner, "fault": fault, "days": 3, "moves": []}

    # The opponent's forfeit wins, the measured bot's loses, as the tallies count them.
    games = [game(0, 0, 0), game(0, 1, None), game(1, 0, 1), game(1, 1, None, [1, "timeout"]), game(2, 1, None, [0, "crash"])]
    reference = variants.scores(games)
    assert reference == {(0, 0): 1.0, (0, 1): 0.5, (1, 0): 0.0, (1, 1): 0.0, (2, 1): 1.0}
    reference.pop((2, 1))
    other = {(0, 0): 0.0, (0, 1): 1.0, (1, 0): 0.0, (2, 0): 1.0}  # (1, 1) not played, (2, 0) not by the reference
    assert variants.paired(reference, other) == (3, 1, 1)


def test_every_variant_plays_the_same_games_resumably_and_the_table_pairs_them(tmp_path: Path) -> None:
    args = ("--opponent", "random", "--openings", "2", "--out", str(tmp_path), "expert", "random")
    run = _run(*args)
    assert run.returncode == 0, run.stderr
    folder = tmp_path / "simple" / "random"
    expert, rand = (folder / "expert.jsonl").read_text(), (folder / "random.jsonl").read_text()
    assert len(expert.splitlines()) == len(rand.splitlines()) == 4
    a, b = (variants.scores(variants.records(folder / name)) for name in ("expert.jsonl", "random.jsonl"))
    assert a.keys() == b.keys() == {(0, 0), (0, 1), (1, 0), (1, 1)}
    common, better, worse = variants.paired(a, b)
    lines = run.stdout.splitlines()
    assert lines[0] == "simple set, against random:"
    assert lines[3].startswith(f"| `expert` | 4 | {sum(a.values()):g} = ")
    assert lines[4].startswith(f"| `random` | 4 | {sum(b.values()):g} = ")
    assert lines[4].endswith(f"| {better} / {worse} ({common}) |") and common == 4
    # Run again: nothing is played, the table is the same.
    again = _run(*args)
    assert again.returncode == 0 and again.stdout == run.stdout
    assert (folder / "expert.jsonl").read_text() == expert and (folder / "random.jsonl").read_text() == rand
    # More openings play only the new ones; --summary plays nothing.
    assert _run("--summary", *args[:3], "3", *args[4:]).stdout == run.stdout
    assert _run(*args[:3], "3", *args[4:]).returncode == 0
    assert len((folder / "expert.jsonl").read_text().splitlines()) == 6
    assert (folder / "expert.jsonl").read_text().startswith(expert)


def test_the_variants_take_turns_opening_by_opening(tmp_path: Path) -> None:
    """The n-th games of every variant are played about the same time: each
    plays the next opening (from both seats; -j N: the next N) before any
    plays the one after, and within a turn the variants' games alternate."""
    assert variants.turns(5, 1) == [1, 2, 3, 4, 5]
    assert variants.turns(5, 2) == [2, 4, 5] and variants.turns(2, 4) == [2]
    run = _run("--opponent", "random", "--openings", "3", "--out", str(tmp_path), "expert", "random")
    assert run.returncode == 0, run.stderr
    played = [line.split(":")[0].strip() for line in run.stderr.splitlines() if "games, load" in line]
    assert played == ["expert", "random"] * 6, run.stderr
    assert "openings 3/3, 2/2 games" in run.stderr


def test_bad_variants_are_refused_before_anything_is_played(tmp_path: Path) -> None:
    unknown = _run("--opponent", "nosuch", "--out", str(tmp_path), "expert")
    assert unknown.returncode == 2 and "unknown bot 'nosuch'" in unknown.stderr
    twice = _run("--opponent", "random", "--out", str(tmp_path), "expert", "expert")
    assert twice.returncode == 2 and "same file name" in twice.stderr
    assert _run("--opponent", "random", "--out", str(tmp_path), "--openings", "0", "expert").returncode == 2
    assert not any(tmp_path.iterdir())


def test_the_paired_sprt_counts_score_differences_as_pairs() -> None:
    """A game's score minus the reference's, -1 to 1 in halves, is counted
    on the pentanomial scale of tournament sprt ((difference + 1) / 2), and
    its LLR is that test's on the score scale."""
    from tournaments.stats import sprt
    from tournaments.stats.elo import elo_to_score

    test = variants.PairedTest(0.1)
    reference = {(0, 0): 1.0, (0, 1): 0.5, (1, 0): 0.0, (1, 1): 0.5, (2, 0): 0.0}
    variant = {(0, 0): 0.0, (0, 1): 1.0, (1, 0): 1.0, (1, 1): 0.5, (3, 0): 1.0}
    assert test.differences(reference, variant) == (1, 0, 1, 1, 1)
    assert sprt.llr_of_means((3, 5, 40, 9, 4), 0.5, elo_to_score(35)) == sprt.llr((3, 5, 40, 9, 4), 0, 35)
    assert test.decision(3.0) == "H1" and test.decision(-3.0) == "H0" and test.decision(0.5) is None
    assert variants.PairedTest(0.1, alpha=0.2, beta=0.2).decision(1.5) == "H1"


def test_with_sprt_each_variant_stops_once_decided_and_the_reference_once_all_are(tmp_path: Path) -> None:
    """`expert` scores half a game more than `random` against `expert` on
    every opening (H1); `random` with another seed scores what `random`
    does, nothing (H0). Neither is played past its decision, the reference
    not past the last one, and a rerun plays nothing."""
    args = ("--opponent", "expert", "--openings", "12", "--out", str(tmp_path), "--sprt", "0.3",
            "random", "expert", "random --seed 3")
    run = _run(*args)
    assert run.returncode == 0, run.stderr
    folder = tmp_path / "simple" / "expert"
    played = {name: len(variants.records(folder / f"{name}.jsonl")) for name in ("random", "expert", "random_--seed_3")}
    assert "expert: --sprt decided H1" in run.stderr and "random_--seed_3: --sprt decided H0" in run.stderr
    assert "every variant decided by --sprt" in run.stderr
    assert played["random_--seed_3"] < played["random"] == played["expert"] < 24, played
    lines = run.stdout.splitlines()
    assert lines[1].endswith("| SPRT: 0.3 more a game |")
    assert "| H1, LLR " in lines[4] and "| H0, LLR " in lines[5]
    again = _run(*args)
    assert again.returncode == 0 and again.stdout == run.stdout
    assert {name: len(variants.records(folder / f"{name}.jsonl")) for name in played} == played


def test_bad_sprt_settings_are_refused(tmp_path: Path) -> None:
    for bad in (("--sprt", "0"), ("--sprt", "1.5"), ("--sprt", "0.1", "--alpha", "0.6")):
        run = _run("--opponent", "random", "--out", str(tmp_path), *bad, "expert", "random")
        assert run.returncode == 2 and ("--sprt" in run.stderr or "--alpha" in run.stderr), run.stderr
    alone = _run("--opponent", "random", "--out", str(tmp_path), "--sprt", "0.1", "expert")
    assert alone.returncode == 2 and "two BOTs" in alone.stderr
    assert not any(tmp_path.iterdir())
