"""Pentanomial generalised SPRT, as fishtest and fastchess run it.

Games come in seat-swapped pairs (A first, then B first). A pair's total
score for A is 0, 0.5, 1, 1.5 or 2: the five pentanomial counts. Counting
pairs rather than games cancels the seat advantage out of the variance.

The log-likelihood ratio of H1 (Elo = elo1) against H0 (Elo = elo0), on
the logistic Elo scale, follows M. Van den Bergh's GSPRT: for each
hypothesis, the distribution over the five outcomes closest (maximum
likelihood) to the observed one with the hypothesis's expected score,
then LLR = N * sum p_i log(p1_i / p0_i). The test stops when the LLR
leaves (log(beta / (1 - alpha)), log((1 - beta) / alpha)).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

from tournaments.stats.elo import elo_to_score, score_to_elo

PAIR_SCORES = (0.0, 0.25, 0.5, 0.75, 1.0)  # a pair's total score, per game
_REGULARISE = 1e-3  # added to empty cells so the MLE is defined


@dataclass(frozen=True)
class SprtState:
    penta: tuple[int, int, int, int, int]
    llr: float
    lower: float
    upper: float
    elo: float  # estimate from the pairs
    elo_low: float
    elo_high: float

    @property
    def decision(self) -> Literal["H0", "H1"] | None:
        if self.llr >= self.upper:
            return "H1"
        if self.llr <= self.lower:
            return "H0"
        return None

    @property
    def pairs(self) -> int:
        return sum(self.penta)


def bounds(alpha: float, beta: float) -> tuple[float, float]:
    return math.log(beta / (1 - alpha)), math.log((1 - beta) / alpha)


def _mle_with_mean(pdf: Sequence[float], s: float) -> list[float]:
    """The distribution on PAIR_SCORES with mean `s` that maximises the
    likelihood of observed frequencies `pdf`: p_i = pdf_i / (1 + x (a_i - s)),
    x found by bisection on the (monotone) mean condition."""
    lo, hi = -1.0 / (1.0 - s) + 1e-12, 1.0 / s - 1e-12  # keeps every 1 + x(a - s) > 0

    def f(x: float) -> float:
        return sum(p * (a - s) / (1 + x * (a - s)) for a, p in zip(PAIR_SCORES, pdf))

    for _ in range(200):
        mid = (lo + hi) / 2
        if f(mid) > 0:
            lo = mid
        else:
            hi = mid
    x = (lo + hi) / 2
    return [p / (1 + x * (a - s)) for a, p in zip(PAIR_SCORES, pdf)]


def llr(penta: Sequence[int], elo0: float, elo1: float) -> float:
    """Log-likelihood ratio of elo1 against elo0 given the pentanomial counts."""
    return llr_of_means(penta, elo_to_score(elo0), elo_to_score(elo1))


def llr_of_means(penta: Sequence[int], s0: float, s1: float) -> float:
    """Log-likelihood ratio of a mean pair score (PAIR_SCORES) of s1 against
    one of s0, given the counts of each: `llr` on the score scale, for
    tests whose hypotheses are not Elo differences (bench/variants.py's
    paired games: a game's score minus the reference's, mapped onto
    PAIR_SCORES)."""
    counts = [c + _REGULARISE for c in penta]
    n = sum(counts)
    pdf = [c / n for c in counts]
    p0 = _mle_with_mean(pdf, s0)
    p1 = _mle_with_mean(pdf, s1)
    return sum(penta) * sum(p * math.log(b / a) for p, a, b in zip(pdf, p0, p1))


def estimate(penta: Sequence[int]) -> tuple[float, float, float]:
    """Elo estimate and 95% interval from pairs: the normal approximation on
    the pair scores, as fastchess reports it. Where that is degenerate (every
    pair scored the same: zero variance), Wilson's interval on the games'
    score instead, which stays honest at 0% and 100% ("> X", not inf)."""
    from tournaments.stats.crosstable import wilson

    n = sum(penta)
    if n == 0:
        return (math.nan, -math.inf, math.inf)
    mean = sum(c * a for c, a in zip(penta, PAIR_SCORES)) / n
    var = sum(c * (a - mean) ** 2 for c, a in zip(penta, PAIR_SCORES)) / n
    if var == 0:
        low, high = wilson(mean * 2 * n, 2 * n)
    else:
        half = 1.959963984540054 * math.sqrt(var / n)
        low, high = max(mean - half, 0.0), min(mean + half, 1.0)
    return score_to_elo(mean), score_to_elo(low), score_to_elo(high)


def state(
    penta: Sequence[int], elo0: float, elo1: float, alpha: float = 0.05, beta: float = 0.05
) -> SprtState:
    lower, upper = bounds(alpha, beta)
    e, lo, hi = estimate(penta)
    p = tuple(int(c) for c in penta)
    return SprtState(p, llr(penta, elo0, elo1), lower, upper, e, lo, hi)  # type: ignore[arg-type]
