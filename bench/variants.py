"""Variants of a bot on the same games: paired scores against one opponent.

    python bench/variants.py --opponent "mcts-v1 --time 0.1 --cpu" [--base] [--openings 48]
        [--out results/variants] [-j 1] [--sprt GAIN [--alpha 0.05] [--beta 0.05]] [--summary] BOT [BOT ...]

Each BOT text (one of our bots with its options, e.g. "champion --time
0.1" and "champion --time 0.1 --finisher") plays the harness's balanced
suite for the set (tournaments/suites), each opening from both seats,
against OPPONENT, in-process through `exploit.matches` (resumable: a rerun
plays only what is missing). Past the suite's length the openings come
round again with new seeds, so `--openings 96` plays the suite twice.

Why paired: the n-th game of every variant has the same opening, seat and
seeds, so two variants differ only where their play does. A variant a few
points better than another is within the noise of a hundred games; how
many games it scored more and fewer points in than the first BOT, on the
games both played, says whether the difference is one of a few games or
of many. The table at the end has every variant asked for: games, score
with its 95% interval, and those counts.

Why side by side: the variants take turns, each playing the next opening
(from both seats; `-j N`: the next N) before any plays the one after, and
within a turn their games are queued in turns too (each variant's first
game, then each one's second), so that the n-th games of all of them are
played at about the same time (with `-j` at least the number of
variants, at the same time), on the same build and under the same load,
and no worker waits for one variant's slowest game before the next
variant starts. Bots on a CPU-time budget do not
replay a game move for move (their searches stop at another iteration),
so a row is paired with another only as well as they were played under
the same conditions: the champion played again, two stops after its own
row was stored, scored 38 where the stored row had 45.5 on the same 56
games (1 more, 12 fewer), and a variant compared with the stored row
looked 13 games worse (docs/bots.md, "More time against mcts-v1"). A
row already stored is compared as it stands; to measure against games
played beside a new variant, name the first BOT with options that do
not change its play, so that it is played again (say, its default
`--exploration` written out).

Why `--sprt GAIN`: a row of 192 games at 0.5 s a move takes hours, and
most variants change nothing. With it, each variant stops as soon as a
sequential test on its paired games decides whether it scores GAIN more
than the first BOT on the same games (0.1: ten points in a hundred games)
or no more, with error rates `--alpha` and `--beta` (0.05 each): the
pentanomial GSPRT of `tournament sprt` (tournaments/stats/sprt.py), on
each game's score minus the reference's (-1 to 1, in halves) instead of a
pair's. The reference plays on while some variant is undecided; a
variant decided is not played again (a rerun reads the decision from the
stored games). `--openings` still bounds every row.
"""

from __future__ import annotations

import argparse
import re
import signal
import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from common.pool import WorkerPool  # noqa: E402
from exploit.arena import Tally  # noqa: E402
from exploit.matches import Match, game_record, play_matches, records, unplayable  # noqa: E402
from tournaments.make_suites import SUITES  # noqa: E402
from tournaments.openings import suite_name  # noqa: E402
from tournaments.stats import sprt  # noqa: E402
from tournaments.stats.crosstable import wilson  # noqa: E402


def file_name(text: str) -> str:
    """A file name for a bot text: its words joined by '_', anything but
    letters, digits, '.', '=' and '-' dropped ("champion --time 0.1" ->
    "champion_--time_0.1")."""
    return "_".join(re.sub(r"[^A-Za-z0-9.=-]", "", word) for word in text.split()) or "bot"


def scores(games: list[dict[str, Any]]) -> dict[tuple[int, int], float]:
    """The measured bot's score in each stored game, by (opening, seat), as
    the tallies count it (exploit.matches.game_record: 1 a win or the
    opponent's forfeit, 1/2 a draw)."""
    return {(game["opening"], game["seat"]): game_record(game).score for game in games}


def paired(reference: dict[tuple[int, int], float], variant: dict[tuple[int, int], float]) -> tuple[int, int, int]:
    """On the games both played: how many, in how many the variant scored
    more than the reference, and in how many less."""
    common = reference.keys() & variant.keys()
    return (len(common), sum(variant[key] > reference[key] for key in common),
            sum(variant[key] < reference[key] for key in common))


@dataclass(frozen=True)
class PairedTest:
    """The paired sequential test of `--sprt`: H1, a variant scores `gain`
    more a game than the reference on the same games, against H0, no more."""

    gain: float
    alpha: float = 0.05
    beta: float = 0.05

    def differences(self, reference: dict[tuple[int, int], float],
                    variant: dict[tuple[int, int], float]) -> tuple[int, int, int, int, int]:
        """On the games both played, how many times the variant's score
        minus the reference's was -1, -1/2, 0, 1/2 and 1: the counts of
        sprt.PAIR_SCORES, (difference + 1) / 2."""
        counts = [0] * len(sprt.PAIR_SCORES)
        for key in reference.keys() & variant.keys():
            counts[round(2 * (variant[key] - reference[key] + 1))] += 1
        return counts[0], counts[1], counts[2], counts[3], counts[4]

    def llr(self, reference: dict[tuple[int, int], float], variant: dict[tuple[int, int], float]) -> float:
        return sprt.llr_of_means(self.differences(reference, variant), 0.5, 0.5 + self.gain / 2)

    def decision(self, llr: float) -> str | None:
        """"H1" (it gains), "H0" (it does not), or None (play on)."""
        lower, upper = sprt.bounds(self.alpha, self.beta)
        return "H1" if llr >= upper else "H0" if llr <= lower else None

    def verdict(self, llr: float) -> str:
        """The table's cell."""
        lower, upper = sprt.bounds(self.alpha, self.beta)
        decided = self.decision(llr)
        return f"{decided}, LLR {llr:.2f}" if decided else f"LLR {llr:.2f} of [{lower:.2f}, {upper:.2f}]"


def table(paths: list[Path], test: PairedTest | None = None) -> list[str]:
    """The variants' rows (Markdown), the first path the reference; with
    `test`, a column of its verdicts."""
    head = "| variant | games | score | 95% interval | W-D-L | better / worse than the first (games in common) |"
    rule = "|---|---|---|---|---|---|"
    if test is not None:
        head += f" SPRT: {test.gain:g} more a game |"
        rule += "---|"
    lines = [head, rule]
    reference: dict[tuple[int, int], float] = {}
    for index, path in enumerate(paths):
        games = records(path)
        result = Tally().extend(game_record(game) for game in games)
        if index == 0:
            reference = scores(games)
        extra = "" if test is None else " |"
        if not result.games:
            lines.append(f"| `{path.stem}` | 0 | | | | |{extra}")
            continue
        low, high = wilson(result.score, result.games)
        losses = result.games - result.wins - result.draws
        if index == 0:
            versus = ""
        else:
            common, better, worse = paired(reference, scores(games))
            versus = f"{better} / {worse} ({common})"
            if test is not None:
                extra = f" {test.verdict(test.llr(reference, scores(games)))} |"
        lines.append(f"| `{path.stem}` | {result.games} | {result.score:g} = {100 * result.score / result.games:.1f}% "
                     f"| [{100 * low:.1f}, {100 * high:.1f}] | {result.wins}-{result.draws}-{losses} | {versus} |{extra}")
    return lines


def undecided(paths: list[Path], test: PairedTest | None, told: set[int] | None = None,
              tell: Callable[[str], None] = lambda _: None) -> list[int]:
    """The rows still to play: every row without a test; with one, the
    variants its stored games have not decided, and the reference while
    any is left. Each decision is told once (`told` holds the rows told)."""
    if test is None:
        return list(range(len(paths)))
    told = set() if told is None else told
    reference = scores(records(paths[0]))
    left = []
    for index in range(1, len(paths)):
        variant = scores(records(paths[index]))
        llr = test.llr(reference, variant)
        if test.decision(llr) is None:
            left.append(index)
        elif index not in told:
            told.add(index)
            tell(f"{paths[index].stem}: --sprt decided {test.verdict(llr)}, "
                 f"after {len(reference.keys() & variant.keys())} games in common")
    return [0, *left] if left else []


def turns(openings: int, concurrency: int) -> list[int]:
    """How many openings each variant has played after each turn: the next
    `concurrency` at a time (one game a seat each), up to `openings`."""
    step = max(1, concurrency)
    return [min(upto, openings) for upto in range(step, openings + step, step)]


def _stop(signum: int, frame: object) -> None:
    raise KeyboardInterrupt


def main(argv: list[str] | None = None) -> int:
    signal.signal(signal.SIGTERM, _stop)
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("bots", nargs="+", metavar="BOT", help="the variants, each one of our bots as a BOT text; "
                                                              "the first is the one the others are compared with")
    parser.add_argument("--opponent", required=True, help="one of our bots, as a BOT text")
    parser.add_argument("--openings", type=int, default=48,
                        help="openings, each from both seats (default %(default)s: the 2-player suite once)")
    parser.add_argument("--base", action="store_true", help="the base set (default: simple)")
    parser.add_argument("--out", type=Path, default=Path("results/variants"),
                        help="where the games go, OUT/<set>/<opponent>/<bot>.jsonl (default %(default)s)")
    parser.add_argument("-j", "--concurrency", type=int, default=1, help="games at once (default %(default)s)")
    parser.add_argument("--sprt", type=float, default=None, metavar="GAIN",
                        help="stop each variant once a sequential test decides whether it scores GAIN more a game than "
                             "the first BOT on the same games (0.1: ten points in a hundred games) or no more")
    parser.add_argument("--alpha", type=float, default=0.05, help="--sprt: the chance of H1 where H0 holds "
                                                                  "(default %(default)s)")
    parser.add_argument("--beta", type=float, default=0.05, help="--sprt: the chance of H0 where H1 holds "
                                                                 "(default %(default)s)")
    parser.add_argument("--summary", action="store_true", help="print the table of what is stored, play nothing")
    options = parser.parse_args(argv)
    if options.openings < 1 or options.concurrency < 1:
        parser.error("--openings and -j must be positive")
    if options.sprt is not None and not 0 < options.sprt < 1:
        parser.error(f"--sprt: a gain of score a game, above 0 and below 1 (0.1: ten points in a hundred), "
                     f"not {options.sprt:g}")
    if not (0 < options.alpha < 0.5 and 0 < options.beta < 0.5):
        parser.error("--alpha and --beta: chances above 0 and below 0.5")
    if options.sprt is not None and len(options.bots) < 2:
        parser.error("--sprt compares variants with the first BOT: give two BOTs or more")
    test = PairedTest(options.sprt, options.alpha, options.beta) if options.sprt is not None else None
    for text in (options.opponent, *options.bots):
        problem = unplayable(text)
        if problem is not None:
            parser.error(problem)
    names = [file_name(text) for text in options.bots]
    if len(set(names)) != len(names):
        parser.error("two variants have the same file name: give each variant once")
    cards = "base" if options.base else "simple"
    group = options.out / cards / file_name(options.opponent)
    paths = [group / f"{name}.jsonl" for name in names]
    suite = str(SUITES / suite_name(2, options.base))
    interrupted = False
    if not options.summary:
        matches = [Match(text, options.opponent, base=options.base, suite=suite) for text in options.bots]
        for text, path in zip(options.bots, paths):
            print(f"== {text} vs {options.opponent}, {cards} set: {path}", file=sys.stderr, flush=True)
        try:
            with WorkerPool(options.concurrency) as pool:  # one for every turn: a worker imports the project once
                told: set[int] = set()
                for upto in turns(options.openings, options.concurrency):
                    playing = undecided(paths, test, told, lambda text: print(f"  {text}", file=sys.stderr, flush=True))
                    if not playing:
                        print("  every variant decided by --sprt", file=sys.stderr, flush=True)
                        break

                    def progress(row: int, note: str, playing: list[int] = playing, upto: int = upto) -> None:
                        print(f"  {paths[playing[row]].stem}: openings {upto}/{options.openings}, {note}",
                              file=sys.stderr, flush=True)

                    play_matches([(matches[index], upto, paths[index]) for index in playing], progress=progress,
                                 pool=pool)
        except KeyboardInterrupt:
            print("\ninterrupted: finished games are stored; run the same command to resume", file=sys.stderr)
            interrupted = True
    print(f"{cards} set, against {options.opponent}:")
    print("\n".join(table(paths, test)))
    return 130 if interrupted else 0


if __name__ == "__main__":
    sys.exit(main())
