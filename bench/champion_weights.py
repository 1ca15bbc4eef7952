"""The champion with one evaluation weight changed, against a fixed opponent.

    python bench/champion_weights.py [--weights FILE] [--set race=-4 [--set firepower=2 ...]]
        [--opponent expert] [--time 0.1] [--openings 48] [--base]
        [--out results/weights] [-j 1]

How the champion's weights (bots/search/champion.json) were chosen: a
weight is a guess until the champion, at a real time budget, has played
with it from the harness's balanced openings (tournaments/suites, each
opening from both seats) against the bots it must beat. Each variant's
games go to OUT/<name>.jsonl (in-process through `exploit.matches`,
resumable: a rerun plays only what is missing), its weights file beside
them; the table at the end compares every variant stored under OUT for
that opponent, time and set, so a sweep is one command per value. The
shipped weights, unchanged, are the variant `shipped`; `--weights FILE`
starts from a whole other weights file instead (a learned evaluation,
bots/search/train.py), the variant named after the file.
"""

from __future__ import annotations

import argparse
import signal
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bots.search.evaluation import CHAMPION_WEIGHTS_FILE, Weights, load_weights, save_weights  # noqa: E402
from bots.search.train import parse_setting  # noqa: E402
from exploit.matches import Match, play_match, tally, unplayable  # noqa: E402
from tournaments.make_suites import SUITES  # noqa: E402
from tournaments.openings import suite_name  # noqa: E402


def variant_name(settings: list[tuple[str, float]], weights: str | None = None) -> str:
    """The variant's name: its changed weights, after the file it starts from if not champion.json."""
    changes = ",".join(f"{name}={value:g}" for name, value in settings)
    if weights is None:
        return changes or "shipped"
    stem = Path(weights).name.removesuffix(".json")
    return f"{stem},{changes}" if changes else stem


def weights_with(settings: list[tuple[str, float]], weights: str | None = None) -> Weights:
    shipped = load_weights(weights, CHAMPION_WEIGHTS_FILE)
    named = shipped.as_dict()
    named.update(settings)
    return Weights.from_dict(named, shipped.scale)


def _stop(signum: int, frame: object) -> None:
    raise KeyboardInterrupt


def main() -> None:
    signal.signal(signal.SIGTERM, _stop)
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--set", dest="settings", action="append", type=parse_setting, default=[],
                        metavar="FEATURE=VALUE", help="a weight changed from champion.json (repeatable)")
    parser.add_argument("--weights", default=None, metavar="FILE",
                        help="the weights file a variant starts from (default: bots/search/champion.json)")
    parser.add_argument("--opponent", default="expert", help="one of our bots, as a BOT text (default %(default)s)")
    parser.add_argument("--time", type=float, default=0.1, help="the champion's CPU seconds a move (default %(default)s)")
    parser.add_argument("--openings", type=int, default=48, help="openings of the suite, each from both seats (default %(default)s)")
    parser.add_argument("--base", action="store_true", help="the base set (default: simple)")
    parser.add_argument("--out", type=Path, default=Path("results/weights"), help="where the games go (default %(default)s)")
    parser.add_argument("-j", "--concurrency", type=int, default=1, help="games at once (default %(default)s)")
    options = parser.parse_args()
    if options.openings < 1 or options.time <= 0:
        parser.error("--openings and --time must be positive")
    problem = unplayable(options.opponent)
    if problem is not None:
        parser.error(f"--opponent: {problem}")
    cards = "base" if options.base else "simple"
    group = options.out / f"{options.opponent.split()[0]}-{cards}-{options.time:g}s"
    group.mkdir(parents=True, exist_ok=True)
    try:
        weights = weights_with(options.settings, options.weights)
    except (OSError, ValueError) as problem:
        parser.error(f"--weights: {problem}")
    name = variant_name(options.settings, options.weights)
    if name == "shipped" and options.weights is not None:
        parser.error("--weights: a file named shipped.json would be mistaken for champion.json; rename it")
    weights_file = group / f"{name}.weights.json"
    changes = ", ".join(f"{k}={v:g}" for k, v in options.settings) or "nothing changed"
    save_weights(weights, str(weights_file), f"{options.weights or 'champion.json'}, {changes}")
    match = Match(f"champion --search alphabeta --time {options.time:g} --weights {weights_file}", options.opponent,
                  base=options.base, suite=str(SUITES / suite_name(2, options.base)))
    print(f"== {name}: {match.bot} vs {match.opponent}, {cards} set", flush=True)
    try:
        play_match(match, options.openings, group / f"{name}.jsonl", options.concurrency,
                   lambda text: print(f"  {name}: {text}", file=sys.stderr, flush=True))
    except KeyboardInterrupt:
        print("\ninterrupted: finished games are stored; run the same command to resume", file=sys.stderr)
    print(f"{'variant':32s} {'score':>13s}  {'rate':>6s}  95% interval    wins draws losses  distinct")
    for path in sorted(group.glob("*.jsonl")):
        result = tally(path)
        if not result.games:
            continue
        low, high = result.interval
        losses = result.games - result.wins - result.draws
        print(f"{path.stem:32s} {result.score:>6g} / {result.games:<5d} {100 * result.rate:5.1f}%  "
              f"[{100 * low:4.1f}, {100 * high:5.1f}]  {result.wins:4d} {result.draws:5d} {losses:6d}  {result.distinct_games:8d}")


if __name__ == "__main__":
    main()
