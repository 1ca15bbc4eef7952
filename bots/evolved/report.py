"""Reading a run: the leader's preferences as a table, and the progression
view (each generation's leader against the leaders before it, as in the
Provincial Dominion simulator's seed progression)."""

from __future__ import annotations

import random
from collections.abc import Sequence

from bots.evolved.bot import policy
from bots.evolved.genome import INVEST_LEVELS, Genome
from bots.inprocess import play_game
from protocol.cards import NAMES, shop_ids


def _percent(weights: Sequence[float]) -> list[str]:
    total = sum(weights)
    return [f"{100 * w / total:5.1f}%" if total > 0 else "   -  " for w in weights]


def preference_table(genome: Genome, base: bool = True) -> str:
    """The genome's distributions, each normalised over all its options
    (in play they are renormalised over the options a state offers); with
    `base` False only the simple set's cards are listed."""
    buys = [_percent(w) for w in (genome.buy_early, genome.buy_late, genome.buy_threat, genome.buy_race)]
    attack, defend = _percent(genome.attack), _percent(genome.defend)
    width = max(len(name) for name in NAMES) + 2
    race = f"from {genome.race_points} points" if genome.race_points <= 7 else "never (race_points 8)"
    lines = [
        f"buy: threat set while an opponent's attacker beats all our defenders; else race set {race};",
        f"     else early set before day {genome.switch_day}, late set from then on",
        f"{'option':<{width}} {'early':>7} {'late':>7} {'threat':>7} {'race':>7} {'attack':>7} {'defend':>7}",
        f"{'Pass / stop':<{width}} " + " ".join(f"{b[0]:>7}" for b in buys) + f" {attack[0]:>7} {'':>7}",
    ]
    for card in shop_ids(base):
        lines.append(
            f"{NAMES[card]:<{width}} " + " ".join(f"{b[card]:>7}" for b in buys)
            + f" {attack[card]:>7} {defend[card - 1]:>7}"
        )
    invest = [_percent(w) for w in (genome.invest_calm, genome.invest_threat, genome.invest_danger)]
    lines += ["", f"{'investment':<{width}} {'calm':>7} {'threat':>7} {'danger':>7}"]
    for i, level in enumerate(INVEST_LEVELS):
        lines.append(f"{level:<{width}} " + " ".join(f"{column[i]:>7}" for column in invest))
    return "\n".join(lines)


def spaced(total: int, at_most: int) -> list[int]:
    """Up to `at_most` indexes in 0..total-1, evenly spaced, first and last included."""
    if total <= at_most:
        return list(range(total))
    return sorted({round(i * (total - 1) / (at_most - 1)) for i in range(at_most)})


def head_to_head(a: Genome, b: Genome, base: bool, games: int, rng: random.Random) -> float:
    """a's score against b over `games` 2-player games, seats alternating
    (a win 1, a draw 1/2)."""
    score = 0.0
    for game_number in range(games):
        seat = game_number % 2
        pair = [policy(a, rng), policy(b, rng)] if seat == 0 else [policy(b, rng), policy(a, rng)]
        game = play_game(pair, base=base)
        if game.winner is None:
            score += 0.5
        elif game.winner == seat:
            score += 1.0
    return score / games


def progression(leaders: Sequence[Genome], base: bool, games: int, rng: random.Random) -> list[list[float | None]]:
    """scores[i][j]: leader i's score against leader j, for j < i (None elsewhere)."""
    n = len(leaders)
    scores: list[list[float | None]] = [[None] * n for _ in range(n)]
    for i in range(n):
        for j in range(i):
            scores[i][j] = head_to_head(leaders[i], leaders[j], base, games, rng)
    return scores


def plot_progress(scores: Sequence[Sequence[float | None]], generations: Sequence[int], path: str, title: str) -> None:
    """A heat map of scores[i][j] and each leader's mean score against all
    earlier ones, written as a PNG. Needs matplotlib (the `plot` extra)."""
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        raise ImportError(
            "evolve plot needs matplotlib: pip install 'economancy-arena[plot]' (or pip install matplotlib)"
        ) from None
    import numpy as np

    n = len(scores)
    grid = np.full((n, n), np.nan)
    for i in range(n):
        for j in range(i):
            grid[i, j] = scores[i][j]
    means = [float(np.nanmean(grid[i, :i])) for i in range(1, n)]
    fig, (left, right) = plt.subplots(1, 2, figsize=(12, 5.2))
    image = left.imshow(grid, vmin=0, vmax=1, cmap="RdYlGn", origin="lower")
    ticks = list(range(n)) if n <= 12 else list(range(0, n, max(1, n // 10)))
    left.set_xticks(ticks, [str(generations[t]) for t in ticks])
    left.set_yticks(ticks, [str(generations[t]) for t in ticks])
    left.set_xlabel("earlier leader (generation)")
    left.set_ylabel("leader (generation)")
    left.set_title("score of row leader against column leader")
    fig.colorbar(image, ax=left, fraction=0.046)
    right.plot(generations[1:], means, marker="o")
    right.axhline(0.5, color="grey", linestyle="--", linewidth=1)
    right.set_ylim(0, 1)
    right.set_xlabel("generation")
    right.set_ylabel("mean score against earlier leaders")
    right.set_title("progress")
    fig.suptitle(title)
    fig.tight_layout()
    fig.savefig(path, dpi=100)
    plt.close(fig)
