"""The best response's settings, measured: rollout policy, time a move, horizon.

    python bench/best_response.py TARGET [--base] [--time 0.1 ...] [--horizon 9 0] [--openings 10]
                                  [--style expert ...] [--both-play] [--out DIR] [-j 1]
    python bench/best_response.py TARGET --cost [--base] [--time 0.1] [--horizon 9] [--openings 2]
                                  [--style expert ...]

For each `--style` (our policy in the rollouts), `--time` (seconds a
move) and `--horizon` (days a rollout plays before the evaluation scores
it; 0 plays to the end of the game), the exploiter `exploiter
--best-response TARGET --base-style STYLE --time T --horizon H` plays
TARGET (one of our bots) from the same `--openings` random openings,
each from both seats, in-process (`exploit.matches`: resumable, every
game appended to a JSONL file under DIR named by the settings, with the
load average when it ended). `--both-play` draws the openings as the
exploit command does (none leaves a seat exposed). It prints, per
setting, the win rate with its 95% interval, the draws, the distinct
games and the mean seconds a game took.

`--cost` plays nothing to keep: it says where the best response's time
goes. For each setting it plays `--openings` games (each from both
seats) against the target, times every decision of the exploiter on
the thread's CPU clock, and splits that time into the target's answers
(the model, asked at every opponent step of the tree and the rollouts),
our rollout policy (the style), the evaluation that scores a cut
rollout (C), and the rest: the tree, copying and stepping the game.
Whether a search core in C would make the best response stronger turns
on that last share (docs/exploit.md, the best response's cost).
"""

from __future__ import annotations

import argparse
import itertools
import re
import random
import shlex
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bots.inprocess import play_out  # noqa: E402
from exploit.best_response import HORIZON_DAYS, BestResponse  # noqa: E402
from exploit.matches import Match, play_match, records  # noqa: E402
from exploit.model import cheaper, close_model, make_model  # noqa: E402
from exploit.searchers.best_response import MODEL_SECONDS  # noqa: E402
from exploit.styles import make_style  # noqa: E402
from protocol.engine import Game  # noqa: E402
from protocol.openings import play_opening, random_opening  # noqa: E402


DEFAULT_SEED = 7


def games_file(out: Path, target: str, kind: str, style: str, seconds: float, horizon: int, seed: int) -> Path:
    """Where one setting's games are kept: a resumed run appends to it, so
    everything that changes the games names it. The default style and
    seed keep the names they had before they could be chosen."""
    def slug(text: str) -> str:
        return re.sub(r"[^A-Za-z0-9.]+", "-", text).strip("-")

    named = "" if style == "expert" else f"-{slug(style)}"
    seeded = "" if seed == DEFAULT_SEED else f"-s{seed}"
    return out / f"{slug(target)}-{kind}{named}-h{horizon}-t{seconds:g}{seeded}.jsonl"


class Timed:
    """A callable whose calls are timed on the thread's CPU clock (the
    clock the best response budgets by); its other attributes (`close`,
    `new_game`, ...) are the wrapped object's, so the search treats it as
    the callable itself."""

    def __init__(self, wrapped: Callable[..., Any]) -> None:
        self.wrapped = wrapped
        self.seconds = 0.0
        self.calls = 0

    def __call__(self, *args: Any) -> Any:
        start = time.thread_time()
        try:
            return self.wrapped(*args)
        finally:
            self.seconds += time.thread_time() - start
            self.calls += 1

    def __getattr__(self, name: str) -> Any:
        return getattr(self.wrapped, name)


def cost_split(target: str, style: str, *, seconds: float, horizon: int, openings: int, base: bool,
               seed: int) -> dict[str, float]:
    """Play `openings` openings from both seats (the exploit command's
    draws) with the best response against `target`, and return where its
    decisions' CPU time went: seconds in all, the shares of the target's
    answers, of our rollout policy, of the evaluation and of the rest
    (each 0..1), decisions searched and iterations a second."""
    rng = random.Random(seed)
    model_text = cheaper(target, MODEL_SECONDS)
    totals = {"seconds": 0.0, "model": 0.0, "policy": 0.0, "evaluation": 0.0, "decisions": 0.0, "iterations": 0.0}
    for _ in range(openings):
        opening = random_opening(2, 4, rng, base=base, both_play=True)
        for seat in (0, 1):
            model = Timed(make_model(model_text, rng.getrandbits(32)))
            policy = Timed(make_style(style, random.Random(rng.getrandbits(32))))
            response = BestResponse(model, policy, seconds=seconds, seed=rng.getrandbits(32), horizon=horizon or None)
            evaluation = Timed(response._value)
            setattr(response, "_value", evaluation)  # the evaluation it calls, timed
            decisions = Timed(response)
            searched = 0

            def decide(game: Game, me: int) -> int:
                nonlocal searched
                move = decisions(game, me)
                searched += response.searched
                return int(move)

            opponent = make_model(model_text, rng.getrandbits(32))
            game = Game(2, base=base)
            play_opening(game, opening)
            response.new_game(game, seat)
            try:
                play_out(game, [decide, opponent] if seat == 0 else [opponent, decide])
            finally:
                close_model(opponent)
                response.close()
            # The base policy's own calls outside the search (the first
            # move a decision tries) count as policy time too, as they
            # are the style's.
            totals["seconds"] += decisions.seconds
            totals["model"] += model.seconds
            totals["policy"] += policy.seconds
            totals["evaluation"] += evaluation.seconds
            totals["decisions"] += decisions.calls
            totals["iterations"] += searched
    spent = totals["seconds"] or 1.0
    return {
        "seconds": totals["seconds"],
        "model": totals["model"] / spent,
        "policy": totals["policy"] / spent,
        "evaluation": totals["evaluation"] / spent,
        "rest": max(0.0, 1 - (totals["model"] + totals["policy"] + totals["evaluation"]) / spent),
        "decisions": totals["decisions"],
        "iterations_per_second": totals["iterations"] / spent,
    }


def print_costs(options: argparse.Namespace) -> None:
    """The --cost table, one row a setting."""
    kind = "base" if options.base else "simple"
    print(f"| rollouts | s a move | horizon | decisions | iterations/s | target's answers | rollout policy | evaluation "
          f"| tree and rules | ({options.target}, {kind}) |")
    print("|---|---|---|---|---|---|---|---|---|---|")
    for style, seconds, horizon in itertools.product(options.style, options.time, options.horizon):
        split = cost_split(options.target, style, seconds=seconds, horizon=horizon, openings=options.openings,
                           base=options.base, seed=options.seed)
        print(f"| {style} | {seconds:g} | {horizon or 'whole game'} | {split['decisions']:.0f} | "
              f"{split['iterations_per_second']:,.0f} | {100 * split['model']:.1f}% | {100 * split['policy']:.1f}% | "
              f"{100 * split['evaluation']:.1f}% | {100 * split['rest']:.1f}% | |", flush=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("target", metavar="TARGET", help="one of our bots, with its options")
    parser.add_argument("--base", action="store_true", help="the base set (default: simple)")
    parser.add_argument("--time", type=float, nargs="+", default=[0.1],
                        help="the best response's seconds a move, each compared (default 0.1)")
    parser.add_argument("--horizon", type=int, nargs="+", default=[HORIZON_DAYS, 0],
                        help=f"horizons to compare, in days, 0 for the whole game (default {HORIZON_DAYS} 0)")
    parser.add_argument("--openings", type=int, default=10, help="openings, each from both seats (default 10)")
    parser.add_argument("--style", nargs="+", default=["expert"],
                        help="our policy in the rollouts, each compared (default expert)")
    parser.add_argument("--both-play", action="store_true",
                        help="draw openings as the exploit command does: none leaves a seat exposed")
    parser.add_argument("--seed", type=int, default=DEFAULT_SEED, help="of the openings (default %(default)s)")
    parser.add_argument("--out", type=Path, default=Path("best-response"), help="where the games are kept")
    parser.add_argument("-j", "--concurrency", type=int, default=1, help="games at once (default 1)")
    parser.add_argument("--cost", action="store_true",
                        help="keep nothing: split the best response's CPU time between the target's answers, the "
                             "rollout policy, the evaluation and the tree (docs/exploit.md)")
    options = parser.parse_args()
    if options.cost:
        print_costs(options)
        return
    kind = ("base" if options.base else "simple") + ("-both" if options.both_play else "")
    print(f"| rollouts | s a move | horizon | win rate [95%] | draws | distinct | s/game | load | ({options.target}, "
          f"{kind}) |")
    print("|---|---|---|---|---|---|---|---|---|")
    for style, seconds, horizon in itertools.product(options.style, options.time, options.horizon):
        bot = shlex.join(["exploiter", "--best-response", options.target, "--base-style", style,
                          "--time", f"{seconds:g}", "--horizon", str(horizon)])
        match = Match(bot=bot, opponent=options.target, base=options.base, seed=options.seed,
                      both_play=options.both_play)
        path = games_file(options.out, options.target, kind, style, seconds, horizon, options.seed)
        label = f"{style} t{seconds:g} h{horizon}"
        tally = play_match(match, options.openings, path, options.concurrency,
                           lambda text: print(f"  {label}: {text}", file=sys.stderr, flush=True))
        games = records(path)
        mean = sum(g["seconds"] for g in games) / max(1, len(games))
        loads = sorted(float(g["load"].split()[0]) for g in games)
        low, high = tally.interval
        print(f"| {style} | {seconds:g} | {horizon or 'whole game'} | {100 * tally.rate:.1f}% [{100 * low:.1f}, "
              f"{100 * high:.1f}] | {tally.draws} | {tally.distinct_games} | {mean:.1f} | {loads[0]:.1f}-{loads[-1]:.1f} "
              f"| |", flush=True)


if __name__ == "__main__":
    main()
