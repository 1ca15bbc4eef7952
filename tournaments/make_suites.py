"""Make the default opening suites (`tournaments/suites/*.txt`).

    python -m tournaments.make_suites [--openings 48] [--candidates 4] [--plies 2] [--seed 2026] [--only simple-2p]

How the openings are chosen, for each card set and table size:

1. Draw candidates: `protocol.openings.random_opening` with `--plies`
   plies per player (2: about day 1's investment and buy; completed to
   the end of the round they stop in: no hidden choice is left made),
   from one seeded generator, so the same command writes the same files.
   Short on purpose: longer random openings (4 plies per player were
   tried) decided games between strong bots by themselves (alphabeta
   against expert, 40 games: 13 of 20 seat-swapped pairs split 1-1;
   7 of 20 with 2 plies per player).
2. Distinct: a candidate whose position (the engine's exact state key
   after its moves) equals an earlier one's is dropped, so no two
   openings are the same game.
3. Balanced: each candidate is played to the end in-process
   (`bots.inprocess`) by self-play of three of our bots with different
   styles, every seat the same bot: `expert` (deterministic) once,
   `decent-repro` and `evolved` (the shipped genome) with four seeds each.
   A seat's share of those nine games measures how much the opening
   favours it; the imbalance is the largest share above the fair 1/P.
   In 2 players a second panel plays it too: the C core's MCTS as the
   champion configures it (`bots.champion`'s horizon and weights) at
   2,000 iterations a move (reproducible, unlike a time budget), four
   seeds; the candidate's imbalance is the larger of the two panels'.
   The rule bots' panel alone kept openings that strong play decides:
   of the 96 games (48 openings, both seats) of the simple suite that
   the champion played against `alphabeta-v1` at 0.1 s, 11 were lost by
   it and by five variants of it, and `alphabeta-v1` lost 9 of those 11
   seats to the champion and to itself: a seat lost whoever plays it.
   The `--openings` candidates with the smallest imbalance are kept
   (ties: the order drawn), out of `--candidates` times as many drawn.
   A candidate that leaves a seat with no defender against an armed
   opponent (`protocol.openings.exposed`) is never kept: that seat must
   match every bid and buys nothing, so the opening (and, against a bot
   that bids at random, its luck) decides the game. In 3 and 4 players
   too: the champion scored 46% from such seats against three `expert`
   in the 4-player suite drawn before the filter, 74% from the others.

Each file records this, its parameters, the measured imbalance of the
kept and of all candidates, and the command that regenerates it.
A tournament plays each opening once per seating, so what an opening
still favours one seat cancels out within the pair.
"""

from __future__ import annotations

import argparse
import functools
import random
import sys
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from common.safefile import make_dirs, write_file
from protocol.engine import Game
from protocol.openings import Opening, exposed_seats, format_opening, play_opening, random_opening

SUITES = Path(__file__).parent / "suites"


SEARCH_ITERATIONS = 2000
"""The search panel's MCTS iterations a move: 1-4 s of CPU for its four
games of an opening (simple set), and it finds the openings the
champion lost from one seat whoever played that seat."""


def search_panel(iterations: int = SEARCH_ITERATIONS) -> list[tuple[str, Callable[[], object]]]:
    """Self-play of the C core's MCTS, configured as the champion's, at a
    fixed number of iterations: (name, a maker of one seat's policy)."""
    return [(f"mcts/{seed}", functools.partial(_mcts, seed, iterations)) for seed in (1, 2, 3, 4)]


def _mcts(seed: int, iterations: int) -> object:
    """A fresh MCTS policy (the champion's horizon and weights) with its own seed."""
    from bots.champion import HORIZON_DAYS
    from bots.mcts import MctsPolicy
    from bots.search.core import MctsConfig
    from bots.search.weights import DEFAULT_WEIGHTS_FILE, load_weights

    return MctsPolicy(iterations=iterations, seed=seed, config=MctsConfig(horizon=HORIZON_DAYS),
                      weights=load_weights(packaged=DEFAULT_WEIGHTS_FILE))


def _panel(base: bool) -> list[tuple[str, Callable[[], object]]]:
    """Self-play policies: (name, a maker of one seat's policy)."""
    from bots import expert
    from bots.evolved.bot import shipped_genome

    genome = shipped_genome()
    panel: list[tuple[str, Callable[[], object]]] = [("expert", lambda: expert.decide)]
    for seed in (1, 2, 3, 4):
        panel.append((f"decent-repro/{seed}", functools.partial(_decent_repro, seed)))
        panel.append((f"evolved/{seed}", functools.partial(_evolved, genome, seed)))
    return panel


def _decent_repro(seed: int) -> object:
    """A fresh decent-repro policy drawing from its own generator."""
    from bots import decent_repro

    return decent_repro.decide_with(random.Random(seed))


def _evolved(genome: Any, seed: int) -> object:
    """A fresh evolved policy of `genome` drawing from its own generator."""
    from bots.evolved.bot import policy

    return policy(genome, random.Random(seed))


def imbalance(opening: Opening, players: int, base: bool, panel: Sequence[tuple[str, Callable[[], object]]]) -> float:
    """Largest share of the panel's self-play games a seat won (draws
    shared), above the fair 1/players."""
    from bots.inprocess import play_out

    shares = [0.0] * players
    for _, make in panel:
        game = Game(players, base=base)
        play_opening(game, opening)
        play_out(game, [make() for _ in range(players)])  # type: ignore[misc]
        if game.fault is not None:
            level = [p for p in range(players) if p != game.fault[0]]
            for p in level:
                shares[p] += 1 / len(level)
        elif game.winner is None:
            shares = [s + 1 / players for s in shares]
        else:
            shares[game.winner] += 1
    return max(shares) / len(panel) - 1 / players


def build(players: int, base: bool, n: int, factor: int, seed: int, per_player: int = 2,
          search_iterations: int = SEARCH_ITERATIONS) -> tuple[list[Opening], str]:
    """The kept openings and the file's header (`search_iterations`: the
    search panel's, fewer for a quick test)."""
    rng = random.Random(f"suite/{seed}/{players}/{base}")
    panels = [_panel(base)] + ([search_panel(search_iterations)] if players == 2 else [])
    plies = per_player * players
    seen: set[bytes] = set()
    scored: list[tuple[float, int, Opening]] = []
    exposed = 0  # distinct candidates never kept: a seat with no defender against an armed opponent
    drawn = 0
    while len(scored) + exposed < n * factor:
        opening = random_opening(players, plies, rng, base=base)
        drawn += 1
        game = Game(players, base=base)
        play_opening(game, opening)
        if game.key() in seen:
            continue
        seen.add(game.key())
        if exposed_seats(game):  # decided by the opening (and the bids): never kept
            exposed += 1
            continue
        scored.append((max(imbalance(opening, players, base, panel) for panel in panels), len(scored), opening))
    if len(scored) < n:
        raise ValueError(f"only {len(scored)} of {n * factor} candidates leave every seat a defence; draw more")
    kept = sorted(scored)[:n]

    def mean(xs: Sequence[float]) -> float:
        return sum(xs) / len(xs)

    name = f"{'base' if base else 'simple'}-{players}p"
    header = [
        f"# Default openings, {name}: {n} of {len(scored) + exposed} distinct candidates ({drawn} drawn),",
        f"# each {plies} random plies completed to the round's end (protocol.openings.random_opening),",
        "# kept for the smallest seat imbalance in in-process self-play of expert, decent-repro x4",
        "# and evolved x4 (largest seat share of the 9 games above the fair 1/players)"
        + (",\n# and of the C core's MCTS x4 as the champion configures it, at"
           f" {search_iterations} iterations a move\n# (the larger of the two panels' imbalances)."
           if players == 2 else "."),
        f"# Imbalance: kept mean {mean([s for s, _, _ in kept]):.3f}, max {max(s for s, _, _ in kept):.3f};"
        f" all candidates mean {mean([s for s, _, _ in scored]):.3f}.",
        f"# Never kept: the {exposed} candidates leaving a seat with no defender"
        " against an armed opponent (protocol.openings.exposed).",
        f"# Regenerate: python -m tournaments.make_suites --openings {n} --candidates {factor} --plies {per_player}"
        f" --seed {seed} --only {name}",
    ]
    return [o for _, _, o in kept], "\n".join(header)


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m tournaments.make_suites", description=__doc__.splitlines()[0])
    parser.add_argument("--openings", type=int, default=48, help="openings kept per suite (default %(default)s)")
    parser.add_argument("--candidates", type=int, default=4,
                        help="distinct candidates drawn per kept opening (default %(default)s)")
    parser.add_argument("--plies", type=int, default=2, help="random plies per player (default %(default)s)")
    parser.add_argument("--seed", type=int, default=2026, help="seed of the draw (default %(default)s)")
    parser.add_argument("--only", nargs="+", metavar="NAME", help="only these suites (simple-2p ... base-4p)")
    parser.add_argument("--out", type=Path, default=SUITES, help="where the files go (default: the package's)")
    options = parser.parse_args(argv)
    if options.openings < 1 or options.candidates < 1 or options.plies < 0:
        parser.error("--openings and --candidates must be at least 1, --plies at least 0")
    wanted = [(p, b) for b in (False, True) for p in (2, 3, 4)]
    names = {f"{'base' if b else 'simple'}-{p}p": (p, b) for p, b in wanted}
    if options.only:
        unknown = [n for n in options.only if n not in names]
        if unknown:
            parser.error(f"unknown suites {unknown}; known: {', '.join(names)}")
        wanted = [names[n] for n in options.only]
    make_dirs(options.out)
    for players, base in wanted:
        started = time.monotonic()
        openings, header = build(players, base, options.openings, options.candidates, options.seed, options.plies)
        path = options.out / f"{'base' if base else 'simple'}-{players}p.txt"
        write_file(path, header + "\n" + "".join(format_opening(o) + "\n" for o in openings))
        print(f"{path}: {len(openings)} openings in {time.monotonic() - started:.0f} s", file=sys.stderr)


if __name__ == "__main__":
    main()
