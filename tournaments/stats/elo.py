"""Conversions between expected score and Elo difference (logistic)."""

from __future__ import annotations

import math


def score_to_elo(score: float) -> float:
    """Elo difference that predicts `score` (0..1); +-inf at the ends."""
    if score <= 0.0:
        return -math.inf
    if score >= 1.0:
        return math.inf
    return -400.0 * math.log10(1.0 / score - 1.0)


def elo_to_score(elo: float) -> float:
    return 1.0 / (1.0 + float(10.0 ** (-elo / 400.0)))


def interval_text(elo: float, low: float, high: float) -> str:
    """An Elo estimate with its interval, honest at the ends: a side the data
    leave open is shown as a bound ("> 190" for a perfect score), never as a
    zero-width interval or infinity."""
    if math.isnan(elo):
        return "no games"
    up, down = math.isinf(high) or elo == math.inf, math.isinf(low) or elo == -math.inf
    if up and down:
        return "unbounded"
    if up:
        return f"> {round(low)}"
    if down:
        return f"< {round(high)}"
    return f"{round(elo)} [{round(low)}, {round(high)}]"


def finite_or_none(x: float) -> float | None:
    """JSON has no infinity: an open side of an interval is null."""
    return x if math.isfinite(x) else None
