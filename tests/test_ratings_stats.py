"""The statistics against values computed by hand."""

from __future__ import annotations

import math

import pytest

from tournaments.outcomes import Result, pair_score, seat_outcome, win_shares
from tournaments.stats import sprt
from tournaments.stats.crosstable import crosstable, wilson
from tournaments.stats.elo import elo_to_score, score_to_elo
from tournaments.stats.plackett_luce import ratings, win_probabilities


def test_outcomes_of_win_draw_and_faults() -> None:
    win = Result(("a", "b", "c"), winner=1)
    assert [seat_outcome(win, s) for s in range(3)] == ["loss", "win", "loss"]
    assert win_shares(win) == [0, 1, 0]
    draw = Result(("a", "b"), None)
    assert [seat_outcome(draw, s) for s in range(2)] == ["draw", "draw"]
    fault2 = Result(("a", "b"), None, fault_seat=0)
    assert [seat_outcome(fault2, s) for s in range(2)] == ["forfeit", "win"]
    fault3 = Result(("a", "b", "c"), None, fault_seat=2)
    assert [seat_outcome(fault3, s) for s in range(3)] == ["draw", "draw", "forfeit"]
    assert win_shares(fault3) == [0.5, 0.5, 0.0]
    assert (pair_score(fault3, 0, 2), pair_score(fault3, 2, 1), pair_score(fault3, 0, 1)) == (1, 0, 0.5)


def test_elo_conversions() -> None:
    assert score_to_elo(0.75) == pytest.approx(400 * math.log10(3))  # 190.85
    assert score_to_elo(0.5) == 0
    assert elo_to_score(400) == pytest.approx(10 / 11)
    assert score_to_elo(1.0) == math.inf


def test_wilson_interval_by_hand() -> None:
    # p = 0.8, n = 10, z = 1.96: denominator 1.38415, centre 0.71681,
    # half-width 1.96 * sqrt(0.016 + 0.0096038) / 1.38415 = 0.22658
    low, high = wilson(8, 10)
    assert low == pytest.approx(0.4902, abs=2e-4)
    assert high == pytest.approx(0.9434, abs=2e-4)
    assert wilson(10, 10)[1] == pytest.approx(1.0) and wilson(10, 10)[0] == pytest.approx(0.7225, abs=2e-4)


def test_crosstable_scores_and_significance() -> None:
    games = [Result(("a", "b"), 0)] * 8 + [Result(("b", "a"), 0)] * 1 + [Result(("a", "b"), None)] * 2
    cells = crosstable(games, ["a", "b"])
    ab, ba = cells[("a", "b")], cells[("b", "a")]
    assert (ab.games, ab.score, ba.score) == (11, 9.0, 2.0)
    assert ab.significant and ba.significant
    even = crosstable([Result(("a", "b"), 0), Result(("a", "b"), 1)], ["a", "b"])[("a", "b")]
    assert even.mean == 0.5 and not even.significant


def test_bradley_terry_two_bots_matches_closed_form() -> None:
    # 60 wins to 40: the MLE Elo difference is 400 log10(60/40) = 70.44.
    games = [Result(("a", "b"), 0)] * 30 + [Result(("b", "a"), 1)] * 30 + [Result(("a", "b"), 1)] * 40
    rated = {r.name: r for r in ratings(games, prior_elo=1e7)}
    assert rated["a"].elo == pytest.approx(35.218, abs=1e-2)
    assert rated["b"].elo == pytest.approx(-35.218, abs=1e-2)
    assert rated["a"].low < rated["a"].elo < rated["a"].high
    assert rated["a"].games == 100


def test_plackett_luce_three_player_tables_match_win_counts() -> None:
    # Same three bots at every table: the MLE strength is proportional to wins
    # (50, 30, 20): Elo 400 log10(w) centred = 82.64, -6.10, -76.54.
    games = (
        [Result(("a", "b", "c"), 0)] * 50 + [Result(("c", "a", "b"), 2)] * 30 + [Result(("b", "c", "a"), 1)] * 20
    )
    rated = {r.name: r.elo for r in ratings(games, prior_elo=1e7)}
    assert rated["a"] == pytest.approx(82.64, abs=0.05)
    assert rated["b"] == pytest.approx(-6.10, abs=0.05)
    assert rated["c"] == pytest.approx(-76.54, abs=0.05)
    probs = win_probabilities([rated["a"], rated["b"], rated["c"]])
    assert probs == pytest.approx([0.5, 0.3, 0.2], abs=1e-4)


def test_prior_keeps_a_bot_that_never_wins_finite() -> None:
    games = [Result(("a", "crash"), None, fault_seat=1)] * 20
    rated = {r.name: r for r in ratings(games)}
    assert math.isfinite(rated["crash"].elo) and rated["crash"].elo < -200
    assert rated["a"].elo == pytest.approx(-rated["crash"].elo)


def test_sprt_bounds_and_decisions() -> None:
    lower, upper = sprt.bounds(0.05, 0.05)
    assert upper == pytest.approx(math.log(19)) and lower == pytest.approx(-math.log(19))
    assert sprt.state([0, 0, 5, 10, 40], 0, 50).decision == "H1"
    assert sprt.state([40, 10, 5, 0, 0], 0, 50).decision == "H0"
    assert sprt.state([1, 2, 3, 2, 1], 0, 50).decision is None
    # Strong evidence still needs more pairs when H0 and H1 are close.
    assert sprt.state([0, 0, 5, 10, 40], 0, 10).decision is None


def test_sprt_llr_matches_the_normal_approximation() -> None:
    # LLR ~ N (s1 - s0) (2 m - s0 - s1) / (2 var) for pair scores with mean m, variance var.
    penta = [50, 200, 400, 250, 100]
    n = sum(penta)
    m = sum(c * a for c, a in zip(penta, sprt.PAIR_SCORES)) / n  # 0.5375
    var = sum(c * (a - m) ** 2 for c, a in zip(penta, sprt.PAIR_SCORES)) / n
    s0, s1 = elo_to_score(0), elo_to_score(5)
    approx = n * (s1 - s0) * (2 * m - s0 - s1) / (2 * var)
    assert sprt.llr(penta, 0, 5) == pytest.approx(approx, rel=0.02)
    assert m == pytest.approx(0.5375)


def test_sprt_elo_estimate_from_pairs() -> None:
    elo, low, high = sprt.estimate([0, 0, 0, 3, 1])  # pair scores .75 x3, 1 x1: mean 0.8125
    assert elo == pytest.approx(score_to_elo(0.8125))
    assert low < elo < high


def test_elo_text_rounds_and_never_shows_negative_zero() -> None:
    from tournaments.standings import elo_text

    assert [elo_text(x) for x in (-0.4, 0.4, -12.6, 391.49)] == ["0", "0", "-13", "391"]


def test_ratings_need_no_scipy_stats() -> None:
    """The interval's quantile is scipy's to the last bit, and computing
    ratings (every command that shows standings) does not import
    scipy.stats, whose import alone cost some 1.5 s of CPU."""
    import subprocess
    import sys

    from scipy.stats import norm

    from tournaments.stats.plackett_luce import Z_95

    assert Z_95 == float(norm.ppf(0.975))
    script = ("import sys; from tournaments.outcomes import Result; from tournaments.stats.plackett_luce import ratings; "
              "ratings([Result(('a', 'b'), 0), Result(('b', 'a'), 0)]); print('scipy.stats' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=120)
    assert out.stdout.strip() == "False", out.stderr
