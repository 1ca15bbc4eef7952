"""BotGroup's line protocol and shutdown, on tiny inline programs."""

from __future__ import annotations

import sys
import time

from driver.process import BotGroup, ReplyKind


def group_of(*programs: str, **options: int) -> BotGroup:
    return BotGroup.spawn([((sys.executable, "-S", "-c", p), f"bot{i}") for i, p in enumerate(programs)], **options)


def close_soon(group: BotGroup) -> None:
    """For bots that sleep instead of reading: no need for the usual grace."""
    group.close(exit_grace=0.05, term_grace=0.5)


def test_lines_are_assembled_split_and_blank_lines_skipped() -> None:
    program = (
        "import sys, time\n"
        "w = sys.stdout.write\n"
        "sys.stdin.readline()\n"
        "w('[1'); sys.stdout.flush(); time.sleep(0.05)\n"
        "w('2]\\n\\n  \\n[3]\\n'); sys.stdout.flush()\n"
        "sys.stdin.readline()\n"
    )
    with group_of(program) as group:
        group.send(0, b"go")
        answers = [r for _, r in group.replies([0], 2)] + [r for _, r in group.replies([0], 2)]
    assert [(r.kind, r.line) for r in answers] == [(ReplyKind.LINE, b"[12]"), (ReplyKind.LINE, b"[3]")]


def test_over_long_answer_is_reported_before_it_ends() -> None:
    # An array that never closes: reported once it passes the limit, not
    # at the timeout (which would make the reply a TIMEOUT).
    program = "import sys, time\nsys.stdout.write('[' + '1,' * 5000); sys.stdout.flush(); time.sleep(30)\n"
    group = group_of(program, line_limit=1000)
    ((_, reply),) = group.replies([0], 20)
    close_soon(group)
    assert reply.kind is ReplyKind.TOO_LONG and reply.line.startswith(b"[1,1,")
    assert "longer than 1000 bytes" in reply.detail


def test_garbage_is_reported_at_once_with_its_line() -> None:
    program = "import sys, time\nsys.stdout.write('x' * 500); sys.stdout.flush(); time.sleep(30)\n"
    group = group_of(program, line_limit=1000)
    ((_, reply),) = group.replies([0], 20)
    close_soon(group)
    assert reply.kind is ReplyKind.LINE and reply.line.startswith(b"xxx")


def test_closed_output_of_a_running_bot() -> None:
    program = "import os, time\nos.close(1)\ntime.sleep(30)\n"
    group = group_of(program)
    ((_, reply),) = group.replies([0], 10)
    close_soon(group)
    assert reply.kind is ReplyKind.CLOSED and reply.detail == "closed its standard output"


def test_exit_status_and_signal_are_described() -> None:
    programs = ("raise SystemExit(7)", "import os, signal\nos.kill(os.getpid(), signal.SIGSEGV)")
    with group_of(*programs) as group:
        replies = dict(group.replies([0, 1], 10))
    assert replies[0].detail == "exited with status 7"
    assert replies[1].detail == "killed by SIGSEGV"


def test_stderr_keeps_the_tail_and_counts_the_rest() -> None:
    program = "import sys\nsys.stderr.write('a' * 10000 + 'THE END')\n"
    with group_of(program, stderr_limit=1000) as group:
        group.replies([0], 10).__next__()
    kept = group.bots[0].kept_stderr()
    assert kept.endswith(b"THE END") and b"[... 9007 bytes of standard error dropped ...]" in kept


def test_prompt_bots_are_closed_without_waiting_for_grace() -> None:
    echo = "import sys\nfor line in sys.stdin: print(line, end='', flush=True)\n"
    group = group_of(echo, echo)
    group.send(0, b"[0]")
    assert next(group.replies([0], 5))[1].line == b"[0]"
    started = time.monotonic()
    group.close(exit_grace=120, term_grace=120)
    assert time.monotonic() - started < 60  # not the 120 s of grace (a margin no load eats)
    assert [b.returncode() for b in group.bots] == [0, 0]


def test_detached_bots_play_on_and_tell_whether_they_are_reusable() -> None:
    """play_game on running bots (channels, not specs): the same processes play two
    games; a bot that timed out owes an answer and is not reusable."""
    from pathlib import Path

    from driver.botspec import BotSpec
    from driver.game import GameOptions, play_game

    bots = Path(__file__).parent / "bots"
    specs = [BotSpec((sys.executable, "-S", str(bots / "simple.py")), "simple") for _ in range(2)]
    procs = BotGroup.spawn([(s.argv, s.name) for s in specs]).detach()
    pids = [p.pid for p in procs]
    try:
        for _ in range(2):
            result = play_game(procs, GameOptions(max_days=2, timeout=5))
            assert result.fault is None and result.moves >= 4
            assert all(p.reusable for p in procs)
        assert [p.pid for p in procs] == pids
        # Seat 1 thinks 4 s before its first investment: a timeout, and a
        # late answer owed; seat 0 has 2 s to start up and answer.
        slow = BotSpec((sys.executable, "-S", str(bots / "simple.py"), "defender", "4"), "slow")
        slow_procs = BotGroup.spawn([(s.argv, s.name) for s in (specs[0], slow)]).detach()
        procs += slow_procs
        result = play_game(slow_procs, GameOptions(max_days=2, timeout=2))
        assert result.fault is not None and result.fault[0] == 1
        assert slow_procs[0].reusable and not slow_procs[1].reusable
    finally:
        BotGroup(procs).close(exit_grace=1, term_grace=0.2)
    assert all(p.returncode() is not None for p in procs)
