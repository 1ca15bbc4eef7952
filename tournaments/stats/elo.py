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
    return 1.0 / (1.0 + 10.0 ** (-elo / 400.0))
