"""The best response's settings, measured: rollout policy, time a move, horizon.

    python bench/best_response.py TARGET [--base] [--time 0.1 ...] [--horizon 9 0] [--openings 10]
                                  [--style expert ...] [--both-play] [--out DIR] [-j 1]

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
"""

from __future__ import annotations

import argparse
import itertools
import re
import shlex
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from exploit.best_response import HORIZON_DAYS  # noqa: E402
from exploit.matches import Match, play_match, records  # noqa: E402


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
    options = parser.parse_args()
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
