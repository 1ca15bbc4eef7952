"""Batch Plackett-Luce (Luce choice) ratings with bootstrap intervals.

A game is read as one choice of winner among the seats at the table:
P(i wins) = exp(t_i) / sum_j exp(t_j). With two players this is the
Bradley-Terry model behind Elo, so one fit serves 2, 3 and 4 player
tables, reported on the Elo scale (400 / ln 10 per unit of t). Draws and
faults spread the choice as `tournaments.outcomes.win_shares` says.

Bots do not learn between games, so the whole log is refitted at once
(Newton's method on the concave log-likelihood, a few iterations) rather
than updated online. A weak Gaussian prior (sd `prior_elo`) keeps bots
that never win (or never lose) at finite ratings. Intervals come from a
bootstrap over games: resampling is done as multinomial game weights,
so each replicate is a weighted refit on the same arrays.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

import numpy as np

from tournaments.outcomes import Result, win_shares

ELO_PER_UNIT = 400.0 / math.log(10.0)


@dataclass(frozen=True)
class Rating:
    name: str
    elo: float
    low: float  # 2.5% bootstrap quantile
    high: float  # 97.5% bootstrap quantile
    games: int


@dataclass(frozen=True)
class _Data:
    members: np.ndarray  # (G, P) bot index per seat, -1 for an empty seat
    shares: np.ndarray  # (G, P) win share per seat, 0 for an empty seat
    n_bots: int


def _encode(results: Sequence[Result], names: Sequence[str]) -> _Data:
    index = {n: i for i, n in enumerate(names)}
    width = max((r.n_players for r in results), default=2)
    members = np.full((len(results), width), -1, dtype=np.int64)
    shares = np.zeros((len(results), width))
    for g, res in enumerate(results):
        members[g, : res.n_players] = [index[s] for s in res.seats]
        shares[g, : res.n_players] = win_shares(res)
    return _Data(members, shares, len(names))


def fit(
    data: _Data,
    weights: np.ndarray | None = None,
    prior_elo: float = 400.0,
    start: np.ndarray | None = None,
) -> np.ndarray:
    """Maximum a posteriori strengths t (natural-log scale, mean 0)."""
    n, (G, P) = data.n_bots, data.members.shape
    w = np.ones(G) if weights is None else weights
    mask = data.members >= 0
    idx = np.where(mask, data.members, 0)
    lam = (ELO_PER_UNIT / prior_elo) ** 2  # precision of the prior on t
    wins = np.bincount(idx.ravel(), (data.shares * w[:, None]).ravel(), minlength=n)
    pair_idx = (idx[:, :, None] * n + idx[:, None, :]).ravel()
    t = np.zeros(n) if start is None else start.copy()
    for _ in range(100):
        e = np.where(mask, np.exp(t[idx]), 0.0)
        p = e / e.sum(axis=1, keepdims=True)  # (G, P) win probabilities
        pw = p * w[:, None]
        grad = wins - np.bincount(idx.ravel(), pw.ravel(), minlength=n) - lam * t
        # Hessian of the log-likelihood: -(diag(sum p) - sum p p^T), weighted.
        hess = np.bincount(
            pair_idx, (pw[:, :, None] * p[:, None, :]).ravel(), minlength=n * n
        ).reshape(n, n)
        hess[np.diag_indices(n)] -= np.bincount(idx.ravel(), pw.ravel(), minlength=n)
        hess[np.diag_indices(n)] -= lam
        step = np.linalg.solve(hess, -grad)
        t = t + step
        if np.max(np.abs(step)) < 1e-10:
            break
    return t - t.mean()


def ratings(
    results: Iterable[Result],
    names: Sequence[str] | None = None,
    *,
    bootstrap: int = 200,
    seed: int = 0,
    prior_elo: float = 400.0,
) -> list[Rating]:
    """Elo-scale ratings (mean 0) of every bot in `results`, best first,
    with 95% bootstrap intervals."""
    results = list(results)
    if names is None:
        names = sorted({s for r in results for s in r.seats})
    names = list(names)
    if not names:
        return []
    data = _encode(results, names)
    point = fit(data, prior_elo=prior_elo)
    played = np.bincount(data.members[data.members >= 0], minlength=len(names))
    if results and bootstrap > 0:
        rng = np.random.default_rng(seed)
        reps = np.array(
            [
                fit(data, rng.multinomial(len(results), np.full(len(results), 1 / len(results))).astype(float),
                    prior_elo=prior_elo, start=point)
                for _ in range(bootstrap)
            ]
        )
        low, high = np.quantile(reps, [0.025, 0.975], axis=0)
    else:
        low = high = point
    out = [
        Rating(n, float(point[i] * ELO_PER_UNIT), float(low[i] * ELO_PER_UNIT),
               float(high[i] * ELO_PER_UNIT), int(played[i]))
        for i, n in enumerate(names)
    ]
    return sorted(out, key=lambda r: -r.elo)


def win_probabilities(elos: Sequence[float]) -> list[float]:
    """Each seat's chance to win a table of bots with these Elo-scale ratings."""
    t = np.asarray(elos) / ELO_PER_UNIT
    e = np.exp(t - t.max())
    return [float(x) for x in e / e.sum()]
