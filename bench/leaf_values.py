"""How well does each way of valuing an MCTS leaf predict the real result?

    python bench/leaf_values.py [--base] [--phase race|after] [--positions N] [--playouts K]
                                [--seed S] [--weights FILE]... [-o WEIGHTS.json] ROW.jsonl...

A ROW is a file of stored 2-player games (`bench/variants.py` and
`bench/strength.py --db-dir` write them). Every position of their games
at an investing step (from day 3; `--phase race` while a card worth
points is for sale, `after` once none is) is read from player 0's side
with the game's real result (1, 1/2, 0). The openings are split, a
quarter held out (seeded); the evaluation's weights are fitted to the
results of the other positions (bots.search.train.fit, from
weights.json), and on up to N held-out positions each estimator below is
asked for player 0's chance:

- the evaluation of the position itself, weights.json, the fitted
  weights and those of each `--weights` FILE;
- the champion's leaf: the engine's heuristic plays on (K playouts)
  through the race and HORIZON_DAYS more, then weights.json values it;
- 1, 2 and 3 days of the heuristic's playouts, then the fitted weights.

Printed for each: the Brier score of its values mapped to chances by a
logistic fit (two folds, so that no estimator is judged on its own
scale), beside a constant's, and the correlation with the results.

Why: the champion's search is only as good as its leaves, and its
rows against `mcts-v1` do not move with more time (docs/bots.md, "The
games mcts-v1 takes, whoever plays them"). This says which estimator
carries the real games' information. It does not say which makes the
better search: the leaves of a search are positions the search chose,
and an evaluation fitted here can reward what merely goes with winning
in these games (docs/bots.md, "Race leaves by a fitted evaluation").
`-o` writes the fitted weights, with a note naming this command.
"""

from __future__ import annotations

import argparse
import random
import shlex
import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bots.champion import HORIZON_DAYS  # noqa: E402
from bots.search import train  # noqa: E402
from bots.search.evaluation import all_features, evaluate_all  # noqa: E402
from bots.search.weights import Weights, load_weights, save_weights  # noqa: E402
from endings import POINT_CARDS  # noqa: E402  (bench/endings.py: python puts bench/ first on the path)
from exploit.matches import records, steps  # noqa: E402
from protocol.engine import INVESTING, Game, IllegalMove  # noqa: E402

FIRST_DAY = 3
"""Positions from this many days played: before it, the suites' openings."""


def points_for_sale(game: Game) -> bool:
    shop = game.shop()
    return any(shop.get(card, 0) for card in POINT_CARDS)


def positions(games: Sequence[dict[str, Any]], base: bool, race: bool) -> list[tuple[int, Game, float]]:
    """(opening, position, player 0's result) at every investing step of
    player 0 from FIRST_DAY days on, in the race or after it."""
    out = []
    for game in games:
        if game.get("fault"):
            continue
        result = 0.5 if game["winner"] is None else float(game["winner"] == 0)
        for state, seat, _ in steps(game, base):
            if (state.phase == INVESTING and seat == 0 and state.days_played >= FIRST_DAY
                    and points_for_sale(state) == race):
                out.append((game["opening"], state.copy(), result))
    return out


def fitted(train_positions: list[tuple[int, Game, float]], start: Weights) -> Weights:
    """The evaluation's weights fitted to the results (bots.search.train.fit)."""
    features = np.array([all_features(state) for _, state, _ in train_positions], dtype=np.float32)
    winners = np.array([-1 if result == 0.5 else int(result == 0.0) for _, _, result in train_positions])
    corpus = train.Corpus([train.Group(features, np.ones(features.shape[:2], bool), winners)], 0,
                          len(train_positions))
    return train.fit(corpus, start)[0]


def played_on(state: Game, days: int, weights: Weights, rng: random.Random, through_race: bool = False) -> float:
    """Player 0's value after the heuristic plays `days` days on (first
    through the race, with `through_race`): 1, 1/2 or 0 if the game
    ended, else the evaluation's."""
    game = state.copy()
    start = game.days_played
    while not game.is_over and ((through_race and points_for_sale(game)) or game.days_played < start + days):
        seat = game.pending()[0]
        game.play(seat, game.policy_move(seat, rng.getrandbits(62), 1))
    if game.is_over:
        return 0.5 if game.winner is None else float(game.winner == 0)
    return evaluate_all(game, weights)[0]


def calibrated_brier(values: Sequence[float], results: np.ndarray) -> float:
    """The Brier score of `values` mapped to chances by a logistic fit on
    their logit (two folds: each half mapped by the other's fit)."""
    from scipy.optimize import minimize

    clipped = np.clip(np.asarray(values, dtype=float), 1e-3, 1 - 1e-3)
    x = np.log(clipped / (1 - clipped))
    fold = np.arange(len(x)) % 2
    chances = np.zeros_like(x)
    for held in (0, 1):
        design = np.c_[np.ones((fold != held).sum()), x[fold != held]]
        y = results[fold != held]

        def loss(w: np.ndarray, design: np.ndarray = design, y: np.ndarray = y) -> tuple[float, np.ndarray]:
            p = 1 / (1 + np.exp(-np.clip(design @ w, -30, 30)))
            return (float(-np.mean(y * np.log(p + 1e-12) + (1 - y) * np.log(1 - p + 1e-12))),
                    design.T @ (p - y) / len(y))

        w = minimize(loss, np.zeros(2), jac=True, method="L-BFGS-B").x
        chances[fold == held] = 1 / (1 + np.exp(-(w[0] + w[1] * x[fold == held])))
    return float(np.mean((chances - results) ** 2))


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("rows", type=Path, nargs="+", metavar="ROW.jsonl", help="files of stored 2-player games")
    parser.add_argument("--base", action="store_true", help="the games are of the base set (default: simple)")
    parser.add_argument("--phase", choices=("race", "after"), default="race",
                        help="positions while points are for sale, or after (default %(default)s)")
    parser.add_argument("--positions", type=int, default=3000, metavar="N",
                        help="held-out positions judged (default %(default)s)")
    parser.add_argument("--playouts", type=int, default=8, metavar="K",
                        help="playouts a position for the estimators that play on (default %(default)s)")
    parser.add_argument("--seed", type=int, default=1, help="the split and the playouts (default %(default)s)")
    parser.add_argument("--weights", action="append", default=[], metavar="FILE",
                        help="another weights file, judged on the position itself (repeatable)")
    parser.add_argument("-o", "--output", type=Path, default=None, metavar="WEIGHTS.json",
                        help="write the fitted weights there")
    options = parser.parse_args(argv)
    if options.positions < 1 or options.playouts < 1:
        parser.error("--positions and --playouts must be positive")
    missing = [str(row) for row in options.rows if not row.is_file()]
    if missing:
        parser.error(f"no such file: {', '.join(missing)}")
    try:
        others = [(name, load_weights(name)) for name in options.weights]
    except (OSError, ValueError) as problem:
        parser.error(f"--weights: {problem}")
    games = [game for row in options.rows for game in records(row)]
    try:
        every = positions(games, options.base, options.phase == "race")
    except (IllegalMove, KeyError, TypeError, ValueError) as problem:
        parser.error(f"a stored game does not replay in the {'base' if options.base else 'simple'} set: {problem}")
    openings = sorted({opening for opening, _, _ in every})
    if len(openings) < 4:
        parser.error(f"the rows hold {len(openings)} openings with such positions: the split needs 4 or more")
    rng = random.Random(options.seed)
    rng.shuffle(openings)
    held = set(openings[:len(openings) // 4])
    learn = [p for p in every if p[0] not in held]
    judged = [p for p in every if p[0] in held]
    rng.shuffle(judged)
    judged = judged[:options.positions]
    hand = load_weights()
    weights = fitted(learn, hand)
    results = np.array([result for _, _, result in judged])
    k = options.playouts

    def static(values: Weights) -> Callable[[Game], float]:
        return lambda state: evaluate_all(state, values)[0]

    def playouts(days: int, values: Weights, through_race: bool = False) -> Callable[[Game], float]:
        return lambda state: sum(played_on(state, days, values, rng, through_race) for _ in range(k)) / k

    estimators: list[tuple[str, Callable[[Game], float]]] = [
        ("weights.json, the position itself", static(hand)),
        ("fitted weights, the position itself", static(weights)),
        *[(f"{name}, the position itself", static(values)) for name, values in others],
        (f"the champion's leaf: playouts through the race and {HORIZON_DAYS} days, weights.json",
         playouts(HORIZON_DAYS, hand, through_race=True)),
        *[(f"{days} day{'s' if days > 1 else ''} of playouts, fitted weights", playouts(days, weights))
          for days in (1, 2, 3)],
    ]
    print(f"{len(games)} games, {len(every)} positions ({options.phase}); fitted on {len(learn)}, "
          f"judged on {len(judged)} from {len(held)} held-out openings")
    print("| estimator | Brier (calibrated) | correlation with the result |")
    print("|---|---|---|")
    print(f"| a constant | {float(np.mean((results - results.mean()) ** 2)):.4f} | |")
    for name, estimate in estimators:
        values = [estimate(state) for _, state, _ in judged]
        spread = np.std(values) > 0 and np.std(results) > 0
        correlation = f"{np.corrcoef(values, results)[0, 1]:.3f}" if spread else "-"
        print(f"| {name} | {calibrated_brier(values, results):.4f} | {correlation} |")
    if options.output is not None:
        command = shlex.join(["python", "bench/leaf_values.py", *(argv if argv is not None else sys.argv[1:])])
        save_weights(weights, str(options.output),
                     f"fitted by `{command}` to the results of {len(learn)} positions ({options.phase}) of "
                     f"{len(games)} stored games, the openings but {len(held)} held out")
        print(f"fitted weights written to {options.output}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
