"""`driver check`: a compliance check for bot authors.

The bot plays several games against in-process opponents, so that it
meets every phase (investing, attacking, defending, buying), 2, 3 and 4
players, both card sets, a game that ends normally and one that ends in
another player's fault. Every answer is judged the way the referee
judges it: did it come, in time, well-formed, legal.

Whatever the original driver accepts passes: it starts one process per
game and ignores what a bot does after the end or fault message. So a
bot may exit after it (the next game gets a new process), and output
after it is only a warning. Separately, the report says whether one
process can play game after game (`tournament --reuse`): it must keep
reading after the end and send nothing back.

The opponents are random, with a per-game temper (never invest, or
invest everything) so that the bot both attacks and is attacked.
"""

from __future__ import annotations

import random
import time
from collections import Counter
from dataclasses import dataclass, field
from typing import Any

from driver.botspec import BotSpec
from driver.isolation import Fence
from driver.game import interpret_reply, state_lines
from driver.process import STDERR_LIMIT, BotGroup, BotProcess, LineChannel, ReplyKind
from protocol.engine import ATTACKING, BUY, DEFENDING, INVESTING, PHASE_NAMES, Game, IllegalMove
from common.settings import MAX_DAYS, TIMEOUT

__all__ = ["Step", "CheckReport", "check_bot", "SCENARIOS"]

SCENARIOS: tuple[tuple[int, bool], ...] = ((2, False), (2, True), (3, False), (3, True), (4, False), (4, True))
"""(players, base set) of the games always played, in order."""

_ASKED_PHASES = (INVESTING, ATTACKING, DEFENDING, BUY)
_SILENCE = 0.25  # seconds the bot must stay quiet after an end or fault message


@dataclass
class Step:
    """One message sent to the bot and what came of it."""

    game: int
    players: int
    base: bool
    seat: int
    day: int
    phase: str
    answer: str  # as received (or what stood in for it)
    seconds: float
    problem: str | None = None  # None: answered in time, well-formed and legal
    check: str = "ok"  # the first check that failed: answered, in time, well-formed, legal
    warning: str | None = None  # after an end or fault message: what the bot did that is allowed but noted


@dataclass
class CheckReport:
    """Every step, and whether the bot passed."""

    steps: list[Step] = field(default_factory=list)
    covered: Counter[tuple[str, int, bool]] = field(default_factory=Counter)  # (phase, players, base) -> answers
    stderr: bytes = b""
    aborted: str | None = None  # why the check could not go on
    isolation: list[str] = field(default_factory=list)  # what each process of the bot got
    header: dict[str, Any] | None = None  # its first process's part of the trace header: limits and variable names
    processes: int = 0  # processes started: one per game for a bot that is not reusable
    exits_after_a_game: bool = False
    writes_after_a_game: bool = False
    leniency: Counter[str] = field(default_factory=Counter)
    """Answers in a form only a driver that reads one JSON value from the
    stream accepts (ours and the original), by form: passed, but warned."""

    def answer_forms(self) -> str:
        """Whether every answer was one line ended by a newline, in words."""
        if not self.leniency:
            return "ok"
        forms = "; ".join(f"{count} {form}" for form, count in sorted(self.leniency.items()))
        return (f"warning: answers {forms} (accepted here and by the original driver, which read one"
                " JSON value from the stream; a driver that reads lines would not)")

    @property
    def failures(self) -> list[Step]:
        return [s for s in self.steps if s.problem is not None]

    @property
    def warnings(self) -> list[Step]:
        return [s for s in self.steps if s.warning is not None]

    @property
    def reusable(self) -> bool:
        """Whether one process can play game after game (`tournament --reuse`)."""
        return self.passed and not self.exits_after_a_game and not self.writes_after_a_game

    def reuse(self) -> str:
        """Whether the bot can be reused across games, and why not, in words."""
        if self.writes_after_a_game:
            return "no: it writes after the end or fault message, which its next game would read as an answer"
        if self.exits_after_a_game:
            return "no: it exits after each game (fine: a new process is started for each game)"
        if not self.passed:
            return "unknown: the check did not pass"
        return f"yes: one process played {len({s.game for s in self.steps})} games"

    @property
    def passed(self) -> bool:
        return not self.failures and self.aborted is None

    def missing(self) -> list[str]:
        """Phases (by players and set) the bot was never asked about."""
        out = []
        for n, base in SCENARIOS:
            for phase in _ASKED_PHASES:
                if not self.covered[(PHASE_NAMES[phase], n, base)]:
                    out.append(f"{PHASE_NAMES[phase]} ({n} players, {'base' if base else 'simple'})")
        return out


def check_bot(
    spec: BotSpec,
    timeout: float = TIMEOUT,
    seed: int = 0,
    extra_games: int = 12,
    max_days: int = MAX_DAYS,
    max_failures: int = 50,
    isolation: str = "auto",
    fence: Fence | None = None,
) -> CheckReport:
    """Run the compliance check on a bot.

    Plays one game per scenario, with the bot's seat rotating and the last
    one ending in an opponent's fault, then up to `extra_games` more games
    while some phase of some scenario has not been met; stops after the
    game in which the bot reaches `max_failures` failed steps. A game is
    played on the previous game's process if it can go on, else on a new
    one. Raises BotStartError if the bot cannot be started.
    """
    rng = random.Random(seed)
    report = CheckReport()
    proc: LineChannel | None = None
    stderr = bytearray()

    def retire(bot: LineChannel) -> None:
        report.leniency.update(bot.leniency)
        BotGroup([bot]).close()
        stderr.extend(bot.kept_stderr())
        del stderr[: max(0, len(stderr) - STDERR_LIMIT)]

    try:
        plan = [(n, base, i == len(SCENARIOS) - 1) for i, (n, base) in enumerate(SCENARIOS)]
        number = 0
        while report.aborted is None:
            if number < len(plan):
                n, base, fault = plan[number]
            elif number < len(plan) + extra_games and report.missing():
                n, base = rng.choice([s for s in SCENARIOS if any(_lacks(report, s, p) for p in _ASKED_PHASES)])
                fault = False
            else:
                break
            number += 1
            if proc is not None and (not proc.reusable or report.writes_after_a_game):
                retire(proc)  # as the original driver would: a new process for the next game
                proc = None
            if proc is None:
                proc = BotProcess(spec.argv, spec.name, isolation=isolation, fence=fence)
                report.processes += 1
                if report.header is None:
                    report.header = proc.header()
                if proc.isolation not in report.isolation:
                    report.isolation.append(proc.isolation)
            group = BotGroup([proc])
            _check_game(group, report, number, n, base, number % n, fault, rng, timeout, max_days)
            group.detach()
            proc.note_unterminated_answer()  # the bot had its silence after the end to write a newline
            if group.bots[0] is not proc:  # it exited after the last game and was restarted
                report.exits_after_a_game = True
                retire(proc)
                proc = group.bots[0]
            if len(report.failures) >= max_failures and report.aborted is None:
                report.aborted = f"{len(report.failures)} failed steps; later games not played"
    finally:
        if proc is not None:
            retire(proc)
        report.stderr = bytes(stderr)
    return report


def _lacks(report: CheckReport, scenario: tuple[int, bool], phase: int) -> bool:
    n, base = scenario
    return not report.covered[(PHASE_NAMES[phase], n, base)]


def _check_game(
    group: BotGroup,
    report: CheckReport,
    number: int,
    n: int,
    base: bool,
    me: int,
    fault: bool,
    rng: random.Random,
    timeout: float,
    max_days: int,
) -> None:
    game = Game(n, base=base, max_days=max_days)
    tempers = {p: rng.choice(("passive", "aggressive", "random")) for p in range(n) if p != me}
    fault_at = rng.randrange(5, 40) if fault else None
    decisions = 0
    while not game.is_over:
        if fault_at is not None and decisions >= fault_at:
            game.forfeit(rng.choice(list(tempers)), "scripted fault of another player (driver check)")
            break
        p = game.pending()[0]
        if p == me:
            if not _ask(group, report, game, number, me, timeout):
                return
        else:
            game.play(p, _opponent_move(game, p, tempers[p], rng))
        decisions += 1
    _send_final(group, report, game, number, me)


def _ask(group: BotGroup, report: CheckReport, game: Game, number: int, me: int, timeout: float) -> bool:
    """Ask the bot for its move, judge and apply it (a random legal move
    replaces an illegal one); False if the bot can no longer be asked."""
    phase = game.phase
    wire = game.to_wire()
    group.send(0, state_lines(wire, [me])[me])
    started = time.monotonic()
    ((_, reply),) = group.replies([0], timeout)
    seconds = time.monotonic() - started
    answer, move, reason = interpret_reply(game, reply)
    check = "ok"
    if reply.kind is ReplyKind.CLOSED:
        check = "answered"
    elif reply.kind is ReplyKind.TIMEOUT:
        check = "in time"
    elif reason is not None:
        check = "well-formed"
    else:
        try:
            game.play(me, move)
        except IllegalMove as e:
            check, reason = "legal", getattr(e, "reason", str(e))
    report.steps.append(
        Step(
            number,
            game.n_players,
            game.base,
            me,
            wire["day"],
            PHASE_NAMES[phase],
            answer.decode() if answer is not None else "(nothing)",
            seconds,
            reason,
            check,
        )
    )
    report.covered[(PHASE_NAMES[phase], game.n_players, game.base)] += 1
    if check in ("answered", "in time"):
        report.aborted = f"the bot {'did not answer' if check == 'answered' else 'timed out'}; later steps not run"
        return False
    if check != "ok":
        game.play(me, _opponent_move(game, me, "passive", random.Random(0)))
    return True


def _send_final(group: BotGroup, report: CheckReport, game: Game, number: int, me: int) -> None:
    """Send the end or fault state and note what the bot does after it:
    nothing (it can be reused), exit (fine), or write (allowed, warned)."""
    wire = game.to_wire()
    group.bots[0].mark_end()
    group.send(0, state_lines(wire, [me])[me], request=False)
    ((_, reply),) = group.replies([0], _SILENCE)
    phase = wire["phase"]["name"]
    warning = None
    if reply.kind is ReplyKind.LINE:
        warning = f"answered the {phase} message (ignored; bots should send nothing back)"
        report.writes_after_a_game = True
    elif reply.kind is ReplyKind.TOO_LONG:
        warning = f"wrote after the {phase} message (ignored): {reply.detail}"
        report.writes_after_a_game = True
    elif reply.kind is ReplyKind.CLOSED:
        report.exits_after_a_game = True
    shown = reply.line.decode("utf-8", "replace")[:80] if reply.kind is ReplyKind.LINE else "(nothing)"
    if reply.kind is ReplyKind.CLOSED:
        shown = f"(nothing; {reply.detail})"
    report.steps.append(
        Step(number, game.n_players, game.base, me, wire["day"], phase, shown, _SILENCE, warning=warning)
    )


def _opponent_move(game: Game, p: int, temper: str, rng: random.Random) -> int:
    if game.phase == INVESTING:
        # Not legal_moves(): Magic Bean Stock can compound coins past any list size.
        coins = game.coins(p)
        return {"passive": 0, "aggressive": coins}.get(temper, rng.randint(0, coins))
    return rng.choice(game.legal_moves(p))
