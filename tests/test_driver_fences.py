"""Fences between bots (docs/protocol.md, "What a bot can reach"): a clean
environment, private scratch space, limits on memory, processes, disk and
CPU time, each a clean fault or a contained nuisance; the trace header
that says so; and bots that need more (a JVM, Node.js) still running."""

from __future__ import annotations

import os
import shutil
import tempfile
import sys
from pathlib import Path

import orjson
import pytest
from click.testing import CliRunner
from proctable import MARK_VARIABLE, new_mark, wait_until_gone
from users import shared_directory

from driver import isolation
from driver.botspec import BotOptions, BotSpec, BotSpecError, parse_bot_options
from arena.cli import driver as cli
from driver.game import GameOptions, GameResult, is_meta, play_game

BOTS = Path(__file__).parent / "bots"
SECRET = "ECONOMANCY_TEST_SECRET"

needs_namespaces = pytest.mark.skipif(
    isolation.namespaces_unavailable() is not None,
    reason=f"namespaces are not available here: {isolation.namespaces_unavailable()}",
)


def bot(script: str, *args: str, name: str | None = None) -> BotSpec:
    return BotSpec((sys.executable, "-S", str(BOTS / script), *args), name or script)


SIMPLE = bot("simple.py")


def header(result: GameResult) -> dict:
    first = result.trace[0]
    assert is_meta(first)
    value = orjson.loads(first)
    assert value["meta"] == "header"
    return value


def env_lines(stderr: bytes) -> dict[str, str]:
    pairs = [line.removeprefix("env: ").partition("=") for line in stderr.decode().splitlines() if line.startswith("env: ")]
    return {name: value for name, _, value in pairs}


# -- the environment ----------------------------------------------------------


def test_a_secret_in_the_referees_environment_does_not_reach_a_bot(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(SECRET, "hunter2")
    monkeypatch.setenv("ECONOMANCY_TOKEN", "token-of-the-referee")
    monkeypatch.setenv("LC_ALL", "C.UTF-8")
    result = play_game([bot("hog.py", "env"), SIMPLE], GameOptions(max_days=1, timeout=30))
    got = env_lines(result.stderr[0])
    assert SECRET not in got and "ECONOMANCY_TOKEN" not in got
    assert "hunter2" not in result.stderr[0].decode()
    allowed = {"PATH", "LANG", "TZ", "TERM", "HOME", "LC_ALL", *os.environ.get("ECONOMANCY_BOT_ENV", "").split()}
    assert set(got) <= allowed and {"PATH", "HOME", "LC_ALL"} <= set(got)
    assert got["PATH"] == os.environ["PATH"]
    # Its HOME is its own scratch folder, not the referee's.
    assert got["HOME"] != os.environ.get("HOME")
    # The header names the variables, never their values.
    assert sorted(got) == header(result)["env"][0]
    assert b"hunter2" not in b"".join(result.trace)


def test_variables_pass_by_name_globally_and_per_bot(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(SECRET, "meant-for-the-bot")
    options = GameOptions(max_days=1, timeout=30, bot_env=(SECRET, "GLOBAL=1"),
                          seats=(BotOptions(env=("OWN=2",)), BotOptions()))
    hog = bot("hog.py", "env")
    result = play_game([hog, bot("hog.py", "env", name="other")], options)
    first, second = env_lines(result.stderr[0]), env_lines(result.stderr[1])
    assert first[SECRET] == second[SECRET] == "meant-for-the-bot"
    assert first["GLOBAL"] == second["GLOBAL"] == "1"
    assert first["OWN"] == "2" and "OWN" not in second
    assert "OWN" in header(result)["env"][0] and "OWN" not in header(result)["env"][1]
    assert parse_bot_options("env=A,env=B=c").env == ("A", "B=c")
    with pytest.raises(BotSpecError, match="not a variable name"):
        parse_bot_options("env=1BAD")


def test_isolation_none_keeps_the_referees_environment_and_says_so(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(SECRET, "visible-under-none")
    result = play_game([bot("hog.py", "env"), SIMPLE], GameOptions(max_days=1, timeout=30, isolation="none"))
    assert env_lines(result.stderr[0])[SECRET] == "visible-under-none"
    assert "inherits the referee's whole environment and has no limits" in result.isolation[0]
    assert header(result)["limits"][0] is None


def test_driver_run_and_check_show_the_limits_and_the_variable_names(tmp_path: Path) -> None:
    runner = CliRunner()
    trace = tmp_path / "t.jsonl"
    done = runner.invoke(cli, ["run", "random", "random", "--max-days", "1", "--trace", str(trace),
                               "--bot-env", "FROM_CLI=x", "--bot-option", "*", "memory=3G"],
                         env={SECRET: "not-for-bots"})
    assert done.exit_code in (0, 3), done.output
    first = orjson.loads(trace.read_bytes().splitlines()[0])
    assert first["meta"] == "header" and len(first["isolation"]) == 2
    assert all("FROM_CLI" in names and SECRET not in names for names in first["env"])
    if first["limits"][0] is not None:
        assert first["limits"][0]["memory"] == 3 << 30
        assert first["limits"][0]["by"].startswith(("cgroup v2", "rlimits"))
    assert "not-for-bots" not in trace.read_text() and "x" not in "".join(str(n) for n in first["env"])
    assert "limits     memory 3 GiB" in done.output and "env        FROM_CLI HOME" in done.output
    checked = runner.invoke(cli, ["check", "random", "--bot-env", "FROM_CLI=x"])
    assert "limits     memory 2 GiB" in checked.output and "FROM_CLI" in checked.output
    assert "by rlimits" in checked.output or "by cgroup v2" in checked.output
    bad = runner.invoke(cli, ["run", "random", "random", "--bot-env", "A-B"])
    assert bad.exit_code == 2 and "not a variable name" in bad.output


# -- private scratch space ----------------------------------------------------------


def _collusion_leftovers() -> list[str]:
    return [str(p) for place in isolation.SCRATCH_PLACES if os.path.isdir(place)
            for p in Path(place).glob("economancy-collude*")]


@needs_namespaces
def test_two_colluding_copies_in_a_four_player_game_see_nothing_of_each_other() -> None:
    before = _collusion_leftovers()
    colluder = bot("collude.py")
    result = play_game([colluder, SIMPLE, colluder, SIMPLE], GameOptions(max_days=3, timeout=60))
    assert result.fault is None, result.fault
    for seat in (0, 2):
        lines = [line.split(": ", 1)[1] for line in result.stderr[seat].decode().splitlines() if ": " in line]
        assert not [line for line in lines if line.startswith("SAW")], lines
        made = {line.split()[1] for line in lines if line.startswith("made ")}
        # Each channel was really open to it: its own mark was in place.
        assert {"file:/tmp", "file:/var/tmp", "file:/dev/shm", "unix:path", "unix:abstract", "tcp",
                "sysv-queue", "posix-queue", "shm", "lock", "signal"} <= made, made
    # Nothing it wrote is left on the host.
    assert _collusion_leftovers() == before


@needs_namespaces
def test_copies_in_two_games_at_once_see_nothing_of_each_other() -> None:
    from concurrent.futures import ThreadPoolExecutor

    options = GameOptions(max_days=3, timeout=60)
    with ThreadPoolExecutor(2) as pool:
        results = list(pool.map(lambda _: play_game([bot("collude.py"), SIMPLE], options), range(2)))
    for result in results:
        assert result.fault is None, result.fault
        notes = result.stderr[0].decode()
        assert "made file:/tmp" in notes and "SAW" not in notes, notes


@needs_namespaces
def test_a_bot_under_tmp_still_runs_with_its_neighbours_read_only() -> None:
    directory = Path(shutil.copytree(BOTS, Path("/tmp") / f"economancy-fences-{new_mark()}"))
    try:
        directory.chmod(0o755)
        result = play_game([BotSpec((sys.executable, "-S", str(directory / "simple.py")), "in-tmp"), SIMPLE],
                           GameOptions(max_days=1, timeout=60))
        assert result.fault is None, result.fault  # botlib.py beside it was found
    finally:
        shutil.rmtree(directory)


@needs_namespaces
def test_a_bot_started_from_a_working_directory_under_tmp_finds_it(monkeypatch: pytest.MonkeyPatch) -> None:
    """`cd /tmp/work && driver run "python3 bot.py" ...`: the bot's working
    directory lies in what is its private /tmp, so it is bound back too (a
    pyenv shim or a relative path needs it; the docs' commands run so)."""
    directory = Path(shutil.copytree(BOTS, Path("/tmp") / f"economancy-fences-cwd-{new_mark()}"))
    try:
        directory.chmod(0o755)
        monkeypatch.chdir(directory)
        checker = "import os, sys; os.stat('simple.py'); sys.argv[1:] = []; exec(open('simple.py').read())"
        result = play_game([BotSpec((sys.executable, "-S", "-c", checker), "cwd-in-tmp"), SIMPLE],
                           GameOptions(max_days=1, timeout=60))
        assert result.fault is None, (result.fault, result.stderr[0][-500:])
    finally:
        shutil.rmtree(directory)


@needs_namespaces
def test_a_program_reached_through_links_across_tmp_entries_starts() -> None:
    """/tmp/a/python -> /tmp/b/python -> the interpreter (a venv linked into
    a work folder, as the docs test lays it): every hop is bound back, not
    only the first and the last, or the bot cannot start."""
    a, b = (Path(tempfile.mkdtemp(prefix=f"economancy-fences-{x}-", dir="/tmp")) for x in "ab")
    try:
        for folder in (a, b):
            folder.chmod(0o755)
        (b / "python").symlink_to(sys.executable)
        (a / "python").symlink_to(b / "python")
        result = play_game([BotSpec((str(a / "python"), "-S", str(BOTS / "simple.py")), "linked"), SIMPLE],
                           GameOptions(max_days=1, timeout=60))
        assert result.fault is None, (result.fault, result.stderr[0][-500:])
    finally:
        shutil.rmtree(a)
        shutil.rmtree(b)


# -- limits -------------------------------------------------------------------------


def test_an_8_gib_allocation_is_a_clean_out_of_memory_fault() -> None:
    result = play_game([bot("hog.py", "memory", "8"), SIMPLE], GameOptions(max_days=2, timeout=60))
    assert result.fault is not None and result.fault[0] == 0
    assert "out of memory: its limit is 2 GiB" in result.fault[1]


def test_a_fork_bomb_is_contained_and_ends_with_the_game(monkeypatch: pytest.MonkeyPatch) -> None:
    mark = new_mark()
    monkeypatch.setenv(MARK_VARIABLE, mark)
    options = GameOptions(max_days=2, timeout=60, seats=(BotOptions(processes=40),))
    result = play_game([bot("hog.py", "forkbomb"), SIMPLE], options)
    assert result.fault is None, result.fault  # refused, not faulted: it plays on
    (line,) = [ln for ln in result.stderr[0].decode().splitlines() if ln.startswith("hog: started")]
    started = int(line.split()[2])
    if header(result)["limits"][0]["by"].startswith("rlimits") and not result.isolation[0].startswith("none"):
        assert started < 40 and "Resource temporarily unavailable" in line
    assert wait_until_gone(mark) == []  # every process it made ended with it


def test_a_10_gib_write_to_tmp_stops_at_the_scratch_cap_and_leaves_nothing() -> None:
    options = GameOptions(max_days=1, timeout=60, seats=(BotOptions(scratch=32 << 20),))
    result = play_game([bot("hog.py", "disk", "10"), SIMPLE], options)
    assert result.fault is None, result.fault
    (line,) = [ln for ln in result.stderr[0].decode().splitlines() if ln.startswith("hog: wrote")]
    written = int(line.split()[2])
    assert written <= 32 << 20 and ("No space left" in line or "too large" in line), line
    assert not Path("/tmp/hog").exists()


def test_a_file_over_the_file_size_limit_is_refused() -> None:
    options = GameOptions(max_days=1, timeout=60, seats=(BotOptions(scratch=64 << 20, file_size=8 << 20),))
    result = play_game([bot("hog.py", "disk", "1"), SIMPLE], options)
    assert result.fault is None, result.fault  # Python ignores SIGXFSZ: the write fails, the bot plays on
    (line,) = [ln for ln in result.stderr[0].decode().splitlines() if ln.startswith("hog: wrote")]
    assert int(line.split()[2]) <= 8 << 20 and "File too large" in line, line


def test_without_namespaces_a_bot_still_gets_limits_a_clean_environment_and_its_own_home(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setitem(isolation._unavailable, os.getpid(), "pretend (a test)")
    monkeypatch.setenv(SECRET, "hunter2")
    result = play_game([bot("hog.py", "env"), SIMPLE], GameOptions(max_days=1, timeout=30))
    assert result.isolation[0].startswith("none (namespaces are not available here: pretend (a test))")
    got = env_lines(result.stderr[0])
    assert SECRET not in got and got["HOME"] != os.environ.get("HOME")
    limits = header(result)["limits"][0]
    assert limits["memory"] == 2 << 30 and "scratch folder is " + got["HOME"] in limits["by"]
    assert not os.path.exists(got["HOME"])  # removed after the bot


def test_a_cpu_budget_faults_a_bot_that_thinks_too_long_whatever_the_wall_clock() -> None:
    hog = bot("hog.py", "cpu", "1.5")
    budget = GameOptions(max_days=2, timeout=120, seats=(BotOptions(cpu=0.3, startup=0),))
    result = play_game([hog, SIMPLE], budget)
    assert result.fault is not None and result.fault[0] == 0
    assert "of CPU, over its budget of 0.3 s" in result.fault[1]
    # Without a budget the same bot plays on; each answer's CPU time is recorded beside its wall time.
    free = play_game([hog, SIMPLE], GameOptions(max_days=1, timeout=120))
    assert free.fault is None, free.fault
    assert len(free.answer_cpu) == len(free.answer_times)
    hog_cpu = free.answer_cpu[0]
    assert hog_cpu is not None and hog_cpu >= 1.4
    assert free.answer_times[0] is not None and free.answer_times[0] >= hog_cpu * 0.5


@pytest.mark.parametrize("kind", ["child", "thread"])
def test_an_answers_cpu_counts_the_children_and_threads_the_bot_used(kind: str) -> None:
    result = play_game([bot("hog.py", kind, "0.5"), SIMPLE], GameOptions(max_days=1, timeout=120))
    assert result.fault is None, result.fault
    first = result.answer_cpu[0]  # seat 0's first answer: the burn happened there
    assert first is not None and first >= 0.4, result.answer_cpu


def test_the_referee_reads_a_bots_cpu_once_per_answer(monkeypatch: pytest.MonkeyPatch) -> None:
    # Two readings per answer (before the state, after the answer) doubled what measuring cost the referee.
    from driver.process import BotProcess

    readings = []
    real = BotProcess.cpu_seconds
    monkeypatch.setattr(BotProcess, "cpu_seconds", lambda self: readings.append(self) or real(self))
    result = play_game([SIMPLE, bot("simple.py", name="other")], GameOptions(max_days=3, timeout=60))
    assert result.fault is None, result.fault
    answers = len(result.answer_cpu)
    assert answers > 10 and all(c is not None for c in result.answer_cpu)
    assert len(readings) == answers + 2  # one per answer, and one per bot before its first


def test_each_bot_keeps_to_its_own_cpu_where_no_cpu_controller_caps_it() -> None:
    result = play_game([bot("hog.py", "affinity"), bot("hog.py", "affinity", name="other")],
                       GameOptions(max_days=1, timeout=60))
    cores = [limits["core"] for limits in header(result)["limits"]]
    if cores[0] is None:
        pytest.skip(f"no pinning here: {header(result)['limits'][0]['by']}")
    assert cores[0] != cores[1]  # two bots, two CPUs: neither thinks on the other's
    for seat, core in enumerate(cores):
        notes = result.stderr[seat].decode()
        assert f"hog: on CPUs [{core}]" in notes
        assert "hog: refused: Operation not permitted" in notes, notes


def test_cgroup_v2_groups_get_the_limits_and_report_cpu_and_oom(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # The files the kernel serves, as a folder: what we write and read (this
    # machine may not delegate cgroup v2; a machine that does runs the other tests on it).
    monkeypatch.setitem(isolation._cgroup_state, os.getpid(), (tmp_path, ""))
    assert isolation.limit_backend() == f"cgroup v2 ({tmp_path})"
    group = isolation._make_cgroup(isolation.Limits(memory=3 << 30, processes=77))
    assert group is not None and group.parent == tmp_path
    assert (group / "memory.max").read_text() == str(3 << 30)
    assert (group / "pids.max").read_text() == "77"
    assert (group / "cpu.max").read_text() == "100000 100000"  # one core's worth per bot
    (group / "cpu.stat").write_text("usage_usec 1500000\nuser_usec 1400000\n")
    assert isolation.cpu_seconds(0, group) == 1.5
    assert not isolation.out_of_memory(group)
    (group / "memory.events").write_text("low 0\nhigh 0\nmax 4\noom 1\noom_kill 1\n")
    assert isolation.out_of_memory(group)


def test_limits_are_bot_options_with_clear_errors() -> None:
    options = parse_bot_options("memory=4G,processes=64,files=100,filesize=10M,scratch=1G,cpu=0.5")
    fence = options.fence()
    assert fence.limits == isolation.Limits(4 << 30, 64, 100, 10 << 20, 1 << 30, 0.5)
    assert BotOptions().fence().limits == isolation.Limits()
    for bad, why in (("memory=lots", "not a size"), ("processes=0", "whole number"), ("cpu=0", "above 0")):
        with pytest.raises(BotSpecError, match=why):
            parse_bot_options(bad)


# -- bots that need more ----------------------------------------------------------

JAVA_BOT = """
import java.io.*;
public class Bot {
    public static void main(String[] a) throws IOException {
        BufferedReader in = new BufferedReader(new InputStreamReader(System.in));
        for (String line; (line = in.readLine()) != null; ) {
            if (line.contains("\\"name\\":\\"end\\"") || line.contains("\\"name\\":\\"fault\\"")) continue;
            System.out.println(line.contains("\\"name\\":\\"buy\\"") ? "[\\"Pass\\"]" : "[0]");
            System.out.flush();
        }
    }
}
"""
NODE_BOT = """
const rl = require('readline').createInterface({input: process.stdin});
rl.on('line', (line) => {
  const s = JSON.parse(line);
  if (s.phase.name === 'end' || s.phase.name === 'fault') return;
  process.stdout.write(s.phase.name === 'buy' ? '["Pass"]\\n' : '[0]\\n');
});
"""


@pytest.mark.parametrize("kind", ["java", "node"])
def test_a_jvm_or_node_bot_runs_under_the_default_limits(kind: str) -> None:
    program = shutil.which(kind)
    if program is None:
        pytest.skip(f"no {kind} on this machine")
    directory = shared_directory("economancy-runtime-")
    try:
        source = directory / ("Bot.java" if kind == "java" else "bot.js")
        source.write_text(JAVA_BOT if kind == "java" else NODE_BOT)
        source.chmod(0o644)
        directory.chmod(0o755)
        spec = BotSpec((program, str(source)), kind)
        result = play_game([spec, SIMPLE], GameOptions(max_days=1, timeout=60, startup=120))
        # Its first answer (an investment of 0) came and was legal: it started and ran.
        answers = [orjson.loads(line) for line in result.trace[1:3]]
        assert answers[1] == [0], (result.fault, result.stderr[0][-2000:])
        assert result.fault is None or result.fault[0] != 0 or "exited" not in result.fault[1], result.fault
    finally:
        shutil.rmtree(directory, ignore_errors=True)
