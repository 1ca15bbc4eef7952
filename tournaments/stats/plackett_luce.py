"""Batch Plackett-Luce (Luce choice) ratings with 95% intervals.

A game is read as one choice of winner among the seats at the table:
P(i wins) = exp(t_i) / sum_j exp(t_j). With two players this is the
Bradley-Terry model behind Elo, so one fit serves 2, 3 and 4 player
tables, reported on the Elo scale (400 / ln 10 per unit of t). Draws and
faults spread the choice as `tournaments.outcomes.win_shares` says.

Bots do not learn between games, so the whole log is refitted at once
(Newton's method on the concave log-likelihood, a few iterations) rather
than updated online. A weak Gaussian prior (sd `prior_elo`) keeps bots
that never win (or never lose) at finite ratings.

Intervals are the Laplace approximation of the posterior under that
prior (the inverse Hessian at the maximum, as BayesElo does), on the
ratings centred to mean 0. Unlike a bootstrap, which resamples a perfect
score into the same perfect score and so printed zero-width intervals
(`234 [234, 234]`), it is never degenerate. A bot that took the whole of
every game it played (or no share of any) has no finite maximum-likelihood
rating: the data only bound it from one side, so that side of its interval is open
(`high = inf`, shown "> low"; or `low = -inf`).

(choix fits the same model, but takes whole wins only: draws and
forfeits in 3-4 player tables share a game's unit of victory here,
`tournaments.outcomes.win_shares`, so the fit stays ours; it is checked
against closed forms in tests/test_ratings_stats.py.)
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

import numpy as np

from tournaments.outcomes import Result, win_shares

Z_95 = 1.959963984540054
"""The standard normal's 97.5% quantile (`scipy.stats.norm.ppf(0.975)`,
which the tests check): importing scipy.stats for it cost every command
that shows standings some 1.5 s of CPU (its distributions' docstrings)."""

ELO_PER_UNIT = 400.0 / math.log(10.0)


@dataclass(frozen=True)
class Rating:
    name: str
    elo: float
    low: float  # 2.5% posterior quantile (-inf: lost every game)
    high: float  # 97.5% posterior quantile (inf: won every game)
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
    n, (G, _) = data.n_bots, data.members.shape
    w = np.ones(G) if weights is None else weights
    mask = data.members >= 0
    idx = np.where(mask, data.members, 0)
    lam = (ELO_PER_UNIT / prior_elo) ** 2  # precision of the prior on t
    wins = np.bincount(idx.ravel(), (data.shares * w[:, None]).ravel(), minlength=n).astype(float)
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
        ).reshape(n, n).astype(float)
        hess[np.diag_indices(n)] -= np.bincount(idx.ravel(), pw.ravel(), minlength=n)
        hess[np.diag_indices(n)] -= lam
        step = np.linalg.solve(hess, -grad)
        t = t + step
        if np.max(np.abs(step)) < 1e-10:
            break
    centred: np.ndarray = t - t.mean()
    return centred


def ratings(
    results: Iterable[Result],
    names: Sequence[str] | None = None,
    *,
    prior_elo: float = 400.0,
) -> list[Rating]:
    """Elo-scale ratings (mean 0) of every bot in `results`, best first,
    with 95% intervals (see the module's docstring)."""
    results = list(results)
    if names is None:
        names = sorted({s for r in results for s in r.seats})
    names = list(names)
    if not names:
        return []
    data = _encode(results, names)
    point = fit(data, prior_elo=prior_elo)
    n = len(names)
    played = np.bincount(data.members[data.members >= 0], minlength=n)
    # Posterior covariance of the centred strengths: C (-H)^-1 C, C = I - 1/n.
    cov = np.linalg.inv(-_hessian(data, point, prior_elo))
    centre = np.eye(n) - 1.0 / n
    sd = np.sqrt(np.clip(np.diag(centre @ cov @ centre), 0.0, None))
    z = Z_95
    low, high = point - z * sd, point + z * sd
    mask = data.members >= 0
    won = np.bincount(data.members[mask], data.shares[mask], minlength=n)
    out = []
    for i, name in enumerate(names):
        lo, hi = float(low[i] * ELO_PER_UNIT), float(high[i] * ELO_PER_UNIT)
        if played[i] and won[i] >= played[i] - 1e-9:
            hi = math.inf  # took the whole of every game: nothing bounds it from above
        if played[i] and won[i] <= 1e-9:
            lo = -math.inf  # took no share of any game
        out.append(Rating(name, float(point[i] * ELO_PER_UNIT), lo, hi, int(played[i])))
    return sorted(out, key=lambda r: -r.elo)


def _hessian(data: _Data, t: np.ndarray, prior_elo: float) -> np.ndarray:
    """Hessian of the log-posterior at t (negative definite: the prior's term)."""
    n = data.n_bots
    mask = data.members >= 0
    idx = np.where(mask, data.members, 0)
    e = np.where(mask, np.exp(t[idx]), 0.0)
    p = e / e.sum(axis=1, keepdims=True)
    pair_idx = (idx[:, :, None] * n + idx[:, None, :]).ravel()
    hess = np.bincount(pair_idx, (p[:, :, None] * p[:, None, :]).ravel(), minlength=n * n).reshape(n, n).astype(float)
    hess[np.diag_indices(n)] -= np.bincount(idx.ravel(), p.ravel(), minlength=n)
    hess[np.diag_indices(n)] -= (ELO_PER_UNIT / prior_elo) ** 2
    return hess


def win_probabilities(elos: Sequence[float]) -> list[float]:
    """Each seat's chance to win a table of bots with these Elo-scale ratings."""
    t = np.asarray(elos) / ELO_PER_UNIT
    e = np.exp(t - t.max())
    return [float(x) for x in e / e.sum()]
