"""Tune the evaluation weights by self-play: a (1+1) evolution strategy.

    python -m bots.search.tuning [--generations 20] [--openings 6] [--depth 2]
                                 [--jobs 2] [--seed 0] [--out bots/search/weights.json]

Each generation perturbs the incumbent weights with Gaussian noise and
lets the candidate play, at a fixed search depth (cheap, and the same for
both, so only the weights differ), against the incumbent itself and
against the `expert` and `decent-repro` bots, from several random
openings with seats swapped. The incumbent plays the same openings
against the same fixed bots (common random numbers, so the comparison is
paired). The candidate replaces the incumbent when its total score is
higher; the step size follows the 1/5 success rule.

Random openings (both players move at random for the first days) give
the deterministic searchers different games to play; without them two
alpha-beta bots would replay one game per seating.

The ES tunes cheaply, at a shallow depth, and a shallow search values
some features differently from the bot's real one. So one weight at a
time can also be checked at the bot's real depth by a sweep:

    python -m bots.search.tuning --sweep coins=0.005,0.05,0.2,0.5,1,2 --depth 4

plays each value (every other weight as shipped) against `expert` and
`decent-repro` from the same openings and seats, and keeps the best.
"""

from __future__ import annotations

import argparse
import random
import time
from collections.abc import Callable, Sequence

from bots import decent_repro, expert
from bots.alphabeta import AlphaBetaPolicy
from bots.inprocess import Policy, play_out
from bots.search.evaluation import FEATURES, Weights, load_note, load_weights, save_weights
from common.pool import WorkerPool
from protocol.engine import ATTACKING, DEFENDING, Game

OPENING_DAYS = 2
START_SHARE = 4
OPPONENTS = ("self", "expert", "decent")


def opening(seed: int, base: bool) -> Game:
    """A game after OPENING_DAYS days of random play (investments small, so
    the game is still open), reproducible from `seed`; one seed in
    START_SHARE is the real start instead, the position every real game is
    played from (weights tuned on random openings alone once drifted to
    ones that lose every game from the start)."""
    if seed % START_SHARE == 0:
        return Game(2, base=base)
    rng = random.Random(seed)
    while True:
        game = Game(2, base=base)
        while not game.is_over and game.days_played < OPENING_DAYS:
            for player in game.pending()[:1] if game.phase in (ATTACKING, DEFENDING) else game.pending():
                moves = game.legal_moves(player)
                game.play(player, rng.choice(moves[:3]))
        if not game.is_over:
            return game


def _opponent(name: str, incumbent: Weights, depth: int, seed: int) -> Policy:
    if name == "self":
        return AlphaBetaPolicy(seconds=None, depth=depth, seed=seed, weights=incumbent)
    if name == "expert":
        return expert.decide
    return decent_repro.decide_with(random.Random(seed))


def _game(job: tuple[tuple[float, ...], tuple[float, ...], str, int, int, bool, int]) -> float:
    """The score (1, 1/2, 0) of the weights under test in one game."""
    tested, incumbent, opponent, seed, seat, base, depth = job
    policies: list[Policy] = [_opponent(opponent, Weights(incumbent), depth, seed)] * 2
    policies[seat] = AlphaBetaPolicy(seconds=None, depth=depth, seed=seed + 1, weights=Weights(tested))
    game = play_out(opening(seed, base), policies)
    if game.winner is None:
        return 0.5
    return 1.0 if game.winner == seat else 0.0


def score(
    pool: WorkerPool, tested: Weights, incumbent: Weights, seeds: Sequence[int], depth: int,
    opponents: Sequence[str] = OPPONENTS,
) -> float:
    """Total score of `tested` over every opponent, opening (both sets
    alternate) and seat."""
    jobs = [
        (tested.values, incumbent.values, name, seed, seat, (seed >> 2) & 1 == 1, depth)
        for name in opponents
        for seed in seeds
        for seat in (0, 1)
    ]
    return sum(pool.map(_game, jobs))


def tune(
    start: Weights, generations: int, openings: int, depth: int, jobs: int, seed: int,
    log: Callable[..., object] = print,
    checkpoint: Callable[[Weights, list[str]], None] | None = None,
) -> tuple[Weights, list[str]]:
    """Run the ES; `checkpoint` gets the incumbent after every generation,
    so an interrupted run keeps what it found."""
    rng = random.Random(seed)
    incumbent = start
    sigma = 0.3
    history = []
    with WorkerPool(jobs) as pool:
        for generation in range(1, generations + 1):
            seeds = [rng.getrandbits(32) for _ in range(openings)]
            candidate = Weights(tuple(w + rng.gauss(0.0, sigma) for w in incumbent.values), incumbent.scale)
            candidate_score = score(pool, candidate, incumbent, seeds, depth)
            # The incumbent against itself scores exactly half: no need to play it.
            incumbent_score = score(pool, incumbent, incumbent, seeds, depth, OPPONENTS[1:]) + openings
            accepted = candidate_score > incumbent_score
            if accepted:
                incumbent = candidate
            sigma *= 1.5 if accepted else 1.5 ** -0.25  # 1/5 success rule
            line = (f"generation {generation}: candidate {candidate_score:.1f} vs incumbent "
                    f"{incumbent_score:.1f} of {len(OPPONENTS) * 2 * openings}; "
                    f"{'accepted' if accepted else 'rejected'}; sigma {sigma:.3f}")
            history.append(line)
            log(line, flush=True)
            if checkpoint is not None:
                checkpoint(incumbent, history)
    return incumbent, history


def parse_sweep(text: str) -> tuple[str, list[float]]:
    """`coins=0.1,0.5,1` -> ("coins", [0.1, 0.5, 1.0])."""
    name, sep, values = text.partition("=")
    if not sep or name not in FEATURES:
        raise ValueError(f"--sweep wants FEATURE=V1,V2,... with FEATURE one of {', '.join(FEATURES)}; got {text!r}")
    try:
        numbers = [float(v) for v in values.split(",") if v.strip()]
    except ValueError:
        raise ValueError(f"--sweep values must be numbers: {values!r}") from None
    if not numbers:
        raise ValueError(f"--sweep {name}= names no value")
    return name, numbers


def with_weight(weights: Weights, feature: str, value: float) -> Weights:
    values = list(weights.values)
    values[FEATURES.index(feature)] = value
    return Weights(tuple(values), weights.scale)


def sweep_games(openings: int) -> int:
    """Games each value of a sweep plays: 2 opponents x `openings` x 2 seats."""
    return (len(OPPONENTS) - 1) * 2 * openings


def sweep(
    start: Weights, feature: str, values: Sequence[float], openings: int, depth: int, jobs: int,
    log: Callable[..., object] = print,
) -> list[tuple[float, float]]:
    """Each value's total score (of 2 opponents x `openings` x 2 seats),
    every value playing the same openings: a paired comparison, so the
    differences are the weight's, not the openings'."""
    seeds = list(range(openings))
    results = []
    with WorkerPool(jobs) as pool:
        for value in values:
            total = score(pool, with_weight(start, feature, value), start, seeds, depth, OPPONENTS[1:])
            results.append((value, total))
            games = sweep_games(openings)
            log(f"{feature}={value:g}: {total:g}/{games} ({100 * total / games:.1f}%)", flush=True)
    return results


def best_of(results: Sequence[tuple[float, float]], current: float) -> float:
    """The best-scoring value; among equals, the one nearest the current
    weight (a tie is no evidence for a change)."""
    top = max(total for _, total in results)
    return min((value for value, total in results if total == top), key=lambda v: abs(v - current))


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description="Tune the search evaluation's weights by self-play ((1+1)-ES).")
    parser.add_argument("--generations", type=int, default=20)
    parser.add_argument("--openings", type=int, default=6, help="random openings per generation (x2 seats x3 opponents)")
    parser.add_argument("--depth", type=int, default=2, help="alpha-beta depth in the tuning games")
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--start", default=None, help="weights file to start from (default: the shipped one)")
    parser.add_argument("--out", default=None, help="write the tuned weights here (default: print only)")
    parser.add_argument("--sweep", default=None, metavar="FEATURE=V1,V2,...",
                        help="instead of the ES, score each value of one weight (others as --start) and keep the best")
    options = parser.parse_args(argv)
    start = load_weights(options.start)
    began = time.perf_counter()
    if options.sweep:
        try:
            feature, values = parse_sweep(options.sweep)
        except ValueError as err:
            parser.error(str(err))
        results = sweep(start, feature, values, options.openings, options.depth, options.jobs)
        current = start.values[FEATURES.index(feature)]
        chosen = best_of(results, current)
        print(f"best {feature}={chosen:g} (was {current:g})")
        if options.out:
            table = ", ".join(f"{v:g}: {t:g}" for v, t in results)
            games = sweep_games(options.openings)
            note = (f"{feature} set to {chosen:g} by `python -m bots.search.tuning --sweep {options.sweep} "
                    f"--openings {options.openings} --depth {options.depth}` (scores of {games} games against "
                    f"expert and decent-repro: {table}).")
            save_weights(with_weight(start, feature, chosen), options.out, f"{load_note(options.start)} {note}".strip())
        return

    def save(weights: Weights, history: list[str]) -> None:
        if not options.out:
            return
        accepted = sum("accepted" in line for line in history)
        minutes = (time.perf_counter() - began) / 60
        note = (
            f"Tuned by `python -m bots.search.tuning --generations {options.generations} --openings "
            f"{options.openings} --depth {options.depth} --seed {options.seed}` ((1+1)-ES; after "
            f"{len(history)} generations, {accepted} candidates accepted, {minutes:.0f} min on "
            f"{options.jobs} processes): alpha-beta at depth {options.depth} with these weights against "
            f"the incumbent, expert and decent-repro from random openings, seats swapped, simple and "
            f"base sets alternating."
        )
        save_weights(weights, options.out, note)

    best, _ = tune(start, options.generations, options.openings, options.depth, options.jobs, options.seed,
                   checkpoint=save)
    print({name: round(w, 3) for name, w in zip(FEATURES, best.values)})

if __name__ == "__main__":
    main()
