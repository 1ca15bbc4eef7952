"""Bot processes: spawn, talk one answer at a time, and clean up completely.

A game's bots share one selector (`BotGroup`), so while the referee waits
for one bot, every other bot's standard error is still drained and no
bot can stall the game by filling a pipe. All pipes are non-blocking and
read with `os.read`: a bot can send an answer of any length or none at
all without costing more than `line_limit` bytes of memory or the
per-move timeout. An answer is one JSON value, found in the output
stream the way the original driver reads it (`driver.framing`): over
several lines, with or without a newline after it. A bot's exit is seen at once through a pidfd, not at the next
timeout.

Each bot runs under an init of its own (`driver.isolation`), our direct
child: it reaps and, when the bot exits or the referee asks or dies,
kills every process the bot started, even one that escaped with setsid
and double-forked; with namespaces the bot cannot see anything outside
them. So this module only ever talks to, signals and reaps the inits.
"""

from __future__ import annotations

import array
import enum
import errno
import fcntl
import os
import selectors
import signal
import termios
import time
import weakref
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Self

from common.settings import LINE_LIMIT, STDERR_LIMIT
from driver import isolation as _isolation
from driver.framing import FoundKind, ValueScanner

__all__ = [
    "LINE_LIMIT",
    "STDERR_LIMIT",
    "BotStartError",
    "ReplyKind",
    "Reply",
    "ProcessHandle",
    "LineChannel",
    "BotProcess",
    "PipeEndpoint",
    "BotGroup",
    "respawner",
    "kill_started_bots",
]

UNREAD_LIMIT = 4 * LINE_LIMIT
"""Most unread output (answers nobody asked for) a bot may pile up."""
END_MARK = b"[--- written after the game's final state was sent to it ---]\n"
"""The line `BotProcess.kept_stderr` puts between what a bot wrote during the
game and what it wrote once told the game was over."""
EXIT_WAIT = 2.0
"""Seconds a bot that closed a pipe gets to exit before that, rather than its
exit status, is the reason given (its init reports the status a moment later)."""

SETTLE_TIMEOUT = 2.0
"""How long a kept bot's next game waits for it to be done with the last
one's end (`BotProcess.settle`): a bot that reads the end and writes about
it, then waits for input, takes milliseconds; one that works on after the
end (or never reads it) starts its next game after this at the latest."""

_CHUNK = 1 << 16
_CHUNKS_PER_WAKEUP = 16  # a bot that floods a pipe cannot hold the loop longer than this


def _drain(fd: int, take: Callable[[bytes], None], chunks: int = _CHUNKS_PER_WAKEUP) -> bool:
    """Hand what `fd` holds now to `take`, chunk by chunk; True at end of file.

    Bounded per call, so a bot writing without pause cannot starve the other
    pipes: the selector wakes us again for the rest.
    """
    for _ in range(chunks):
        try:
            data = os.read(fd, _CHUNK)
        except BlockingIOError:
            return False
        except OSError:
            data = b""
        if not data:
            return True
        take(data)
        if len(data) < _CHUNK:
            return False
    return False


_KEEP_OF_LONG_LINE = 256


class BotStartError(OSError):
    """The bot's program could not be started at all; `seat` is its index in
    the group being spawned."""

    seat: int = 0


class ReplyKind(enum.Enum):
    LINE = "line"  # an answer: one JSON value's bytes (the name is the protocol's old framing)
    TIMEOUT = "timeout"
    TOO_LONG = "too long"
    CLOSED = "closed"


@dataclass(frozen=True, slots=True)
class Reply:
    """What came back from a bot for one request: a line, or why not.

    `line` is the answer's bytes, the whitespace around it left out (LINE:
    one JSON value, or the garbage up to the end of its line), or the start
    of an over-long one (TOO_LONG); `detail` says in words what went wrong.
    """

    kind: ReplyKind
    line: bytes = b""
    detail: str = ""


class ProcessHandle:
    """The bot's init process (`driver.isolation`), our direct child: its exit
    status (reported by the init), reaping, signals, the CPU the bot has
    used, its limits and what was made for it (home, cgroup, core). Knows
    nothing of pipes: a `LineChannel` carries the lines."""

    def __init__(self, launched: _isolation.Launched) -> None:
        self.pid = launched.pid  # the bot's init: our child, which its exit status comes through
        self.namespaces = launched.isolation.namespaces
        self.limits: _isolation.Limits | None = launched.limits
        self.limit_backend = launched.limit_backend
        self.env_names = launched.env_names
        self._cgroup = launched.cgroup
        self._home = launched.home
        self._core = launched.core
        self._meter: _isolation.CpuMeter | None = _isolation.CpuMeter(self.pid, self._cgroup)
        self._out_of_memory = False  # its cgroup's OOM kills, read when it is reaped
        self._report: int | None = launched.report
        self._reported = launched.reported  # read from the report pipe so far
        try:
            self.pidfd: int | None = os.pidfd_open(self.pid)
        except (AttributeError, OSError):
            self.pidfd = None
        self._status: int | None = None  # the bot's exit status, once known
        self._reaped = False

    def cpu_seconds(self) -> float | None:
        """CPU seconds the bot and everything it started have used so far
        (None once it is gone): what an answer's CPU time is measured with."""
        if self._reaped or self._meter is None:
            return None
        return self._meter.seconds()

    def limits_record(self) -> dict[str, object] | None:
        """Its limits and how they are enforced, for the trace header."""
        return None if self.limits is None else {**self.limits.to_json(), "by": self.limit_backend, "core": self._core}

    def returncode(self) -> int | None:
        """The bot's exit status (negative: killed by that signal), None while
        it runs.

        Peeks at its init without reaping it; the init reports the bot's own
        status just before it exits (after killing all the bot left behind).
        An init that died without reporting (killed) gives its own status.
        """
        if self._status is not None:
            return self._status
        try:
            info = os.waitid(os.P_PID, self.pid, os.WEXITED | os.WNOHANG | os.WNOWAIT)
        except ChildProcessError:  # reaped behind our back: only its report is left
            self._reaped = True
            self._status = self._reported_status()
            if self._status is None:
                self._status = -signal.SIGKILL
            return self._status
        if info is None:
            return None
        self._status = self._reported_status()
        if self._status is None:
            self._status = info.si_status if info.si_code == os.CLD_EXITED else -info.si_status
        return self._status

    def _reported_status(self) -> int | None:
        """The "exit STATUS" its init reported, read once the init is gone."""
        if self._report is not None:
            try:
                while chunk := os.read(self._report, 4096):
                    self._reported += chunk
            except BlockingIOError:
                pass
            os.close(self._report)
            self._report = None
        for line in self._reported.splitlines():
            if line.startswith(b"exit "):
                status = int(line.split()[1])
                return os.waitstatus_to_exitcode(status)
        return None

    def reap(self) -> None:
        """Wait for the init to exit and release its pid (it exits promptly
        once asked; see `BotGroup.close`)."""
        if self._reaped:
            return
        self.returncode()
        try:
            _, status = os.waitpid(self.pid, 0)
        except ChildProcessError:
            status = None
        self._reaped = True
        if self._status is None:
            self._status = self._reported_status()
        if self._status is None:
            self._status = -signal.SIGKILL if status is None else os.waitstatus_to_exitcode(status)
        self._out_of_memory = _isolation.out_of_memory(self._cgroup)
        if self._meter is not None:
            self._meter.close()
            self._meter = None
        _isolation.release(self._home, self._cgroup, self._core)
        self._home = self._cgroup = self._core = None

    def send_signal(self, sig: int) -> None:
        """Signal the bot's init (SIGTERM: passed on to the bot and all it
        started; SIGUSR1: kill them all). Never after it has been reaped."""
        if not self._reaped:
            try:
                os.kill(self.pid, sig)
            except ProcessLookupError:
                pass

    def kill(self) -> None:
        """End the bot and everything it started, now, without waiting.

        Under namespaces SIGKILL to the init does it (the kernel empties its
        PID namespace); without them, the init does it on SIGUSR1 (a killed
        init would leave the bot's escaped descendants behind).
        """
        self.send_signal(signal.SIGKILL if self.namespaces else signal.SIGUSR1)

    _MEMORY_WORDS = (b"MemoryError", b"OutOfMemoryError", b"bad_alloc", b"Cannot allocate memory", b"out of memory",
                     b"heap out of memory")

    def limit_note(self, code: int, stderr_tail: bytes) -> str:
        """Which limit a bot that ended badly hit, when that is known: the
        kernel's word (its cgroup's OOM kills, SIGXFSZ for file size) or its
        runtime's (an allocation failure in the tail of its standard error,
        under rlimits, where a failed allocation is the bot's to report)."""
        limits = self.limits
        if code == 0 or limits is None:
            return ""
        memory = f" (out of memory: its limit is {_isolation.format_size(limits.memory)})"
        if code == -signal.SIGKILL and (self._out_of_memory or _isolation.out_of_memory(self._cgroup)):
            return memory
        if code == -signal.SIGXFSZ:
            return f" (a file over its limit of {_isolation.format_size(limits.file_size)})"
        if any(word in stderr_tail for word in self._MEMORY_WORDS):
            return memory
        return ""

    def close_fds(self) -> None:
        """Close the pidfd, the report pipe and the CPU meter (the group is done with the bot)."""
        if self._meter is not None:
            self._meter.close()
            self._meter = None
        _close_fd_attributes(self, ("pidfd", "_report"))


def _close_fd_attributes(owner: object, names: tuple[str, ...]) -> None:
    """Close the descriptors held in `owner`'s attributes `names` and set
    them to None, so that a second close (a group released twice) is a no-op."""
    for name in names:
        fd = getattr(owner, name)
        if fd is not None:
            try:
                os.close(fd)
            except OSError:
                pass
            setattr(owner, name, None)


class LineChannel:
    """One seat's lines: state lines out through one pipe, answers back
    through another, standard error (if any) kept bounded, with the
    buffered state `BotGroup` serves. `process` is the bot's process behind
    the pipes (`ProcessHandle`), or None for a seat someone else holds the
    other ends of (`PipeEndpoint`: a player over the network, a person in
    the terminal): then nothing is signalled, reaped or restarted, and a
    closed pipe is reported at once with `ended` (the other side's account
    of why it went away).

    Not used alone: a `BotGroup` drives the I/O of all seats of a game.
    """

    def __init__(
        self,
        name: str,
        stdin_fd: int | None,
        stdout_fd: int | None,
        stderr_fd: int | None = None,
        *,
        process: ProcessHandle | None = None,
        isolation: str = "none: not a process of this machine",
        line_limit: int = LINE_LIMIT,
        stderr_limit: int = STDERR_LIMIT,
    ) -> None:
        self.name = name
        self.process = process
        self.isolation = isolation  # in words: how the bot behind it is fenced off
        self.line_limit = line_limit
        self.stderr_limit = stderr_limit
        self.ended = "closed its end"
        self.stdin_fd: int | None = stdin_fd
        self.stdout_fd: int | None = stdout_fd
        self.stderr_fd: int | None = stderr_fd
        self._out = bytearray()  # unsent bytes for stdin
        self._buf = bytearray()  # received stdout not yet taken
        self._scanner = ValueScanner(self.line_limit)  # where the next answer ends in _buf
        self._too_long: str | None = None
        self._too_long_start = b""  # the first bytes of the over-long answer
        self._unterminated = False  # the last answer taken has no newline after it yet
        self.leniency: dict[str, int] = {}
        """Answers that relied on the original's way of reading (one JSON value
        from the stream), by form: `driver check` warns about them."""
        self._stdin_broken = False
        self.awaiting = 0  # requests sent whose answer has not been taken yet
        self.answered = 0  # answers taken: 0 until the bot has started up and answered once
        self.games = 0  # final states sent: games this process has finished
        self.stdout_eof = False
        self.stderr_eof = stderr_fd is None
        self.exited = False
        self._closed_at: float | None = None  # when a closed pipe was first seen
        self.stderr = bytearray()
        self.stderr_dropped = 0
        self._stderr_at_end: int | None = None  # bytes of stderr received when the final state went out

    @property
    def pidfd(self) -> int | None:
        """The process's pidfd, watched for its exit (None: no process, or no pidfd)."""
        return self.process.pidfd if self.process is not None else None

    def close_pidfd(self) -> None:
        """Stop watching for the process's exit (it has exited)."""
        if self.process is not None and self.process.pidfd is not None:
            os.close(self.process.pidfd)
            self.process.pidfd = None

    def cpu_seconds(self) -> float | None:
        """CPU seconds its process has used so far (None: no process, or gone)."""
        return self.process.cpu_seconds() if self.process is not None else None

    def header(self) -> dict[str, object]:
        """This seat's part of the trace header: its isolation, its limits and
        how they are enforced, and the names (never the values) of its
        environment variables."""
        process = self.process
        return {"isolation": self.isolation, "limits": process.limits_record() if process is not None else None,
                "env": list(process.env_names) if process is not None else []}

    # -- status ------------------------------------------------------------

    def returncode(self) -> int | None:
        """Its process's exit status (negative: killed by that signal), None
        while it runs, or when there is no process."""
        return self.process.returncode() if self.process is not None else None

    def reap(self) -> None:
        """Reap its process, if any (see `ProcessHandle.reap`)."""
        if self.process is not None:
            self.process.reap()

    def send_signal(self, sig: int) -> None:
        """Signal its process's init, if there is a process."""
        if self.process is not None:
            self.process.send_signal(sig)

    def kill(self) -> None:
        """End its process and everything it started, now, if there is a process."""
        if self.process is not None:
            self.process.kill()

    def exit_description(self, wait: float = 0.0) -> str:
        """How the process ended, or "still running" (waits up to `wait` s
        for it); without a process, `ended`."""
        process = self.process
        if process is None:
            return self.ended
        deadline = time.monotonic() + wait
        code = process.returncode()
        while code is None and time.monotonic() < deadline:
            time.sleep(0.002)
            code = process.returncode()
        if code is None:
            return "still running"
        if code < 0:
            try:
                how = f"killed by {signal.Signals(-code).name}"
            except ValueError:
                how = f"killed by signal {-code}"
        else:
            how = f"exited with status {code}"
        if code != 0 and process.limits is not None:
            self._read_stderr()  # its last words may still be in the pipe
        return how + process.limit_note(code, bytes(self.stderr[-4096:]))

    @property
    def reusable(self) -> bool:
        """Whether this bot can start another game as it is: alive, both pipes
        open, no answer still owed (a bot that timed out may answer late, into
        the next game) and no unread output."""
        return (
            not self.exited
            and not self.stdout_eof
            and not self._stdin_broken
            and self._too_long is None
            and self.awaiting <= 0
            and not self._buf.strip()
            and not self._out
            and self.stdin_fd is not None
            and self.returncode() is None
        )

    def kept_stderr(self) -> bytes:
        """The kept tail of standard error, with a note of what was dropped
        before it and, once the game's final state was sent (`mark_end`), a
        line between what the bot wrote before it and after it: a bot's
        crash on the end or fault message must not read as the cause of
        its forfeit."""
        kept = bytes(self.stderr)
        if self._stderr_at_end is not None:
            cut = self._stderr_at_end - self.stderr_dropped
            if cut < len(kept):
                cut = max(cut, 0)
                head = kept[:cut] if not cut or kept[:cut].endswith(b"\n") else kept[:cut] + b"\n"
                kept = head + END_MARK + kept[cut:]
        if self.stderr_dropped:
            return b"[... %d bytes of standard error dropped ...]\n" % self.stderr_dropped + kept
        return kept

    def take_stderr(self) -> bytes:
        """Everything kept of standard error since the last take (reading
        what the pipe holds now first), with a note of what was dropped, and
        forget it: a kept bot's standard error between two games."""
        self._read_stderr()
        kept = bytes(self.stderr)
        if self.stderr_dropped:
            kept = b"[... %d bytes of standard error dropped ...]\n" % self.stderr_dropped + kept
        self.stderr.clear()
        self.stderr_dropped = 0
        return kept

    def mark_end(self) -> None:
        """Note that the game's final state goes out now: what the bot writes
        to standard error from here on is shown apart (`kept_stderr`). What
        it wrote before is read first, so that it counts as before."""
        self._read_stderr()
        self._stderr_at_end = self.stderr_dropped + len(self.stderr)

    # -- I/O callbacks (called by BotGroup) --------------------------------

    def _write(self) -> None:
        if self.stdin_fd is None or not self._out:
            return
        try:
            n = os.write(self.stdin_fd, self._out)
        except BlockingIOError:
            return
        except OSError:  # EPIPE: the bot closed its standard input or died
            self._stdin_broken = True
            self._out.clear()
            return
        del self._out[:n]

    def _read_stdout(self, chunks: int = _CHUNKS_PER_WAKEUP) -> None:
        if self.stdout_fd is not None and _drain(self.stdout_fd, self._take_in, chunks):
            self.stdout_eof = True

    def _take_in(self, data: bytes) -> None:
        buf = self._buf
        if self._too_long is not None:
            return  # the bot forfeits at its next answer: keep nothing more
        buf += data
        if len(buf) > UNREAD_LIMIT + self.line_limit:
            self._too_long = f"more than {UNREAD_LIMIT} bytes of unrequested output"
            self._too_long_start = bytes(buf[:_KEEP_OF_LONG_LINE])
            buf.clear()

    def _read_stderr(self) -> None:
        if self.stderr_fd is not None and _drain(self.stderr_fd, self._keep_stderr):
            self.stderr_eof = True

    def _keep_stderr(self, data: bytes) -> None:
        kept = self.stderr
        kept += data
        excess = len(kept) - self.stderr_limit
        if excess > 0:
            del kept[:excess]
            self.stderr_dropped += excess

    # -- protocol ----------------------------------------------------------

    def take_reply(self) -> Reply | None:
        """The next answer if one is complete, a closed/too-long reply, or None."""
        buf = self._buf
        if self._too_long is None:
            found = self._scanner.find(buf, eof=self.stdout_eof)
            if found is not None:
                answer = bytes(buf[found.start : found.end])
                del buf[: found.after]
                self.awaiting -= 1
                if found.kind is FoundKind.TOO_LONG:
                    self._too_long = f"answer longer than {self.line_limit} bytes"
                    self._too_long_start = answer[:_KEEP_OF_LONG_LINE]
                    buf.clear()
                    return Reply(ReplyKind.TOO_LONG, self._too_long_start, self._too_long)
                self._note_form(answer, found.newline_before)
                self.answered += 1
                return Reply(ReplyKind.LINE, answer)
        if self._too_long is not None:
            return Reply(ReplyKind.TOO_LONG, self._too_long_start, self._too_long)
        if not (self.exited or self.stdout_eof or self._stdin_broken):
            return None  # the usual case, kept cheap: still waiting for the answer
        if not self._end_known():
            # Its exit status is the better reason, and its init reports it a
            # moment after the pipe closes: wait for it, up to EXIT_WAIT.
            now = time.monotonic()
            if self._closed_at is None:
                self._closed_at = now
            if now - self._closed_at < EXIT_WAIT:
                return None
        return self.closed_reply()

    def _note_form(self, answer: bytes, newline_before: bool) -> None:
        """Count the answer forms only the original's way of reading accepts."""
        if b"\n" in answer:
            self._lenient("spread over several lines")
        if self._unterminated and not newline_before:
            self._lenient("not followed by a newline")
        self._unterminated = True

    def _lenient(self, form: str) -> None:
        self.leniency[form] = self.leniency.get(form, 0) + 1

    def note_unterminated_answer(self) -> None:
        """Count the last answer as unterminated if nothing but spaces followed
        it (called once the bot had its time to write the newline: when the
        game's final state has gone out and the bot stayed silent)."""
        if self._unterminated and b"\n" not in self._buf:
            self._lenient("not followed by a newline")
        self._unterminated = False

    def _closed(self) -> str | None:
        if self.exited or self.stdout_eof:
            return "closed its standard output"
        if self._stdin_broken:
            return "closed its standard input"
        return None

    def closed_reply(self) -> Reply | None:
        """CLOSED with the best reason known now, if a pipe of the bot closed."""
        closed = self._closed()
        if closed is None:
            return None
        return Reply(ReplyKind.CLOSED, detail=self.exit_description() if self._end_known() else closed)

    def _end_known(self) -> bool:
        """Whether `exit_description` says how the bot ended (its exit status
        is in, or there is no process to wait for), so that a closed pipe is
        reported with it."""
        return self.process is None or self.process.returncode() is not None

    def wake_at(self) -> float | None:
        """When `take_reply` gives up waiting for the exit status of a bot
        that closed a pipe (None: not waiting for it)."""
        if self._closed_at is None or self.process is None or self.process._status is not None:
            return None
        return self._closed_at + EXIT_WAIT

    def note(self, text: str) -> None:
        """Keep a line where a bot's standard error goes (shown with a fault,
        stored with the game): what a seat without a process has to say."""
        self._keep_stderr(text.encode("utf-8", "replace") + b"\n")




class BotProcess(LineChannel):
    """One running bot: a `LineChannel` over the pipes of a process started
    here (`ProcessHandle`), with what it takes to start it again
    (`respawn`): its command, environment, isolation mode and fence."""

    def __init__(
        self,
        argv: Sequence[str],
        name: str,
        *,
        line_limit: int = LINE_LIMIT,
        stderr_limit: int = STDERR_LIMIT,
        env: Mapping[str, str] | None = None,
        isolation: str = "auto",
        fence: _isolation.Fence | None = None,
    ) -> None:
        self.argv = tuple(argv)
        self.env = dict(os.environ if env is None else env)  # the referee's: the bot's is made from it
        self.isolation_mode = isolation
        self.fence = fence or _isolation.Fence()
        try:
            launched = _isolation.launch(self.argv, self.env, isolation, self.fence)
        except _isolation.LaunchError as e:
            message = f"cannot start bot {name!r} ({' '.join(argv)}): {e.strerror or e}"
            if e.errno == errno.ENOEXEC:
                message += " (a script needs a #! line)"
            raise BotStartError(e.errno, message) from None
        super().__init__(name, launched.stdin, launched.stdout, launched.stderr, process=ProcessHandle(launched),
                         isolation=launched.isolation.description, line_limit=line_limit, stderr_limit=stderr_limit)
        _started.add(self)

    @property
    def pid(self) -> int:
        """Its init's pid."""
        assert self.process is not None
        return self.process.pid

    def settle(self, timeout: float = SETTLE_TIMEOUT) -> bool:
        """Wait, at most `timeout` seconds, until the bot has read all it
        was sent and every thread of it sleeps: a kept bot between two
        games is then done with the last one's end (a thread that read it
        and lost the processor is runnable, not asleep), and what it wrote
        on standard error about it is in the pipe, not yet to come during
        its next game. True if it settled. One look when it has (a few
        system calls: no pause on a game's way in)."""
        deadline = time.monotonic() + timeout
        while True:
            if self.returncode() is not None:
                return True
            if self._unread_input() == 0 and not _isolation.tree_running(self.pid):
                return True
            if time.monotonic() >= deadline:
                return False
            time.sleep(0.002)

    def _unread_input(self) -> int:
        """Bytes sent to the bot that it has not read yet (in the pipe or still unsent here)."""
        if self.stdin_fd is None:
            return 0
        pending = array.array("i", [0])
        try:
            fcntl.ioctl(self.stdin_fd, termios.FIONREAD, pending)
        except OSError:
            return len(self._out)
        return pending[0] + len(self._out)

    def respawn(self) -> BotProcess:
        """A fresh process of the same bot, with the same limits and isolation."""
        return BotProcess(
            self.argv,
            self.name,
            line_limit=self.line_limit,
            stderr_limit=self.stderr_limit,
            env=self.env,
            isolation=self.isolation_mode,
            fence=self.fence,
        )


def respawner(procs: list[BotProcess]) -> Callable[[int], LineChannel]:
    """A `BotGroup` restart for an owner that keeps its processes in `procs`
    (one per seat, played on game after game): it ends the seat's process
    (briefly: it has closed a pipe already), starts the same bot afresh and
    puts the new process in its place in `procs`."""

    def restart(seat: int) -> LineChannel:
        old = procs[seat]
        BotGroup([old]).close(exit_grace=0.05, term_grace=0.2)
        procs[seat] = old.respawn()
        return procs[seat]

    return restart


class PipeEndpoint(LineChannel):
    """A seat with no process behind it: two pipes whose other ends someone
    else holds (the game server's event loop, for a player connected over
    the network: `driver.seat`; a person's terminal: `driver.play`).

    `BotGroup` serves it exactly as it serves a bot, so the seat gets the
    referee's timeouts, line limit, fault rules and trace unchanged. There
    is nothing to signal, reap or restart; `note` keeps lines where a bot's
    standard error would go. The holder of the other ends closes them;
    `release` closes these.
    """

    def __init__(
        self,
        name: str,
        stdin_fd: int,
        stdout_fd: int,
        *,
        line_limit: int = LINE_LIMIT,
        stderr_limit: int = STDERR_LIMIT,
        isolation: str = "none: not a process of this machine",
    ) -> None:
        super().__init__(name, stdin_fd, stdout_fd, None, isolation=isolation, line_limit=line_limit,
                         stderr_limit=stderr_limit)
        self.abandoned: BaseException | None = None
        """Set by the holder of the other ends when its side left the game
        rather than lost it (a person who quit at the prompt): the referee
        raises it, instead of faulting the seat, when the seat fails to answer."""

    def release(self, flush: float = 1.0) -> None:
        """The referee is done with this seat (after `play_game`, whose group
        only detaches it): write what is still queued (the final state) for
        up to `flush` seconds, then close both pipes, so the other side reads
        end of file after the last line."""
        fd = self.stdin_fd
        if fd is not None and self._out and not self._stdin_broken:
            deadline = time.monotonic() + flush
            with selectors.DefaultSelector() as sel:
                sel.register(fd, selectors.EVENT_WRITE)
                while self._out and not self._stdin_broken and time.monotonic() < deadline:
                    sel.select(max(deadline - time.monotonic(), 0))
                    self._write()
        for attr in ("stdin_fd", "stdout_fd"):
            fd = getattr(self, attr)
            if fd is not None:
                os.close(fd)
                setattr(self, attr, None)




class BotGroup:
    """The bots of one game and the selector that serves all of their pipes."""

    def __init__(self, bots: Sequence[LineChannel], restart: Callable[[int], LineChannel] | None = None) -> None:
        """Serve `bots` (one per seat). `restart(seat)` is how the owner of a
        seat's process replaces it (see `replies`): it ends the old process
        and returns a started channel, or raises BotStartError; without it,
        nothing is restarted."""
        self.bots = list(bots)
        self.restart = restart
        self.selector = selectors.DefaultSelector()
        self._closed = False
        self._asked = [0] * len(self.bots)  # requests sent to each seat in this group
        self._last_request: list[bytes | None] = [None] * len(self.bots)
        for bot in self.bots:
            self._register(bot)

    def _register(self, bot: LineChannel) -> None:
        for fd, handler in (
            (bot.stdout_fd, bot._read_stdout),
            (bot.stderr_fd, bot._read_stderr),
            (bot.pidfd, lambda b=bot: self._on_exit(b)),
        ):
            if fd is not None and not (fd == bot.stdout_fd and bot.stdout_eof):
                self.selector.register(fd, selectors.EVENT_READ, (bot, handler))
        if bot._out and bot.stdin_fd is not None:  # left unsent by a detached group
            self.selector.register(bot.stdin_fd, selectors.EVENT_WRITE, (bot, bot._write))

    def _unregister(self, bot: LineChannel) -> None:
        for fd in (bot.stdout_fd, bot.stderr_fd, bot.pidfd, bot.stdin_fd):
            if fd is not None:
                try:
                    self.selector.unregister(fd)
                except (KeyError, ValueError):
                    pass

    @classmethod
    def spawn(
        cls,
        commands: Sequence[
            tuple[Sequence[str], str]
            | tuple[Sequence[str], str, str]
            | tuple[Sequence[str], str, str, _isolation.Fence]
            | LineChannel
        ],
        isolation: str = "auto",
        line_limit: int = LINE_LIMIT,
        stderr_limit: int = STDERR_LIMIT,
        restart: Callable[[int], LineChannel] | None = None,
    ) -> Self:
        """Start every (argv, name), or (argv, name, isolation[, fence]) for
        one with an isolation (and limits and variables) of its own; an entry that is already a channel (a
        `PipeEndpoint`, a process started by its owner) takes its seat as it
        is. If one cannot start, stop those started here (the given ones are
        the caller's). `restart`: as for the constructor."""
        bots: list[LineChannel] = []
        started: list[LineChannel] = []
        try:
            for entry in commands:
                if isinstance(entry, LineChannel):
                    bots.append(entry)
                    continue
                argv, name = entry[0], entry[1]
                own = entry[2] if len(entry) > 2 else isolation
                fence = entry[3] if len(entry) > 3 else None
                started.append(BotProcess(argv, name, isolation=own, fence=fence, line_limit=line_limit,
                                          stderr_limit=stderr_limit))
                bots.append(started[-1])
        except BaseException as e:
            if isinstance(e, BotStartError):
                e.seat = len(bots)
            BotGroup(started).close(exit_grace=0.0, term_grace=0.0)
            raise
        return cls(bots, restart)

    # -- event loop --------------------------------------------------------

    def _on_exit(self, bot: LineChannel) -> None:
        # An answer written just before exiting still counts: read all that a
        # well-behaved bot can have left in the pipe, not one wakeup's worth.
        bot._read_stdout(chunks=(UNREAD_LIMIT + LINE_LIMIT) // _CHUNK + 1)
        bot.exited = True
        if bot.pidfd is not None:
            self.selector.unregister(bot.pidfd)
            bot.close_pidfd()

    def _poll(self, timeout: float) -> None:
        for key, events in self.selector.select(max(timeout, 0.0)):
            bot, handler = key.data
            if events & selectors.EVENT_WRITE and key.fd == bot.stdin_fd:
                bot._write()
                if not bot._out:
                    self.selector.unregister(key.fd)
                continue
            handler()
            # A pipe at EOF stays readable: stop watching it.
            if key.fd == bot.stdout_fd and bot.stdout_eof:
                self.selector.unregister(key.fd)
            elif key.fd == bot.stderr_fd and bot.stderr_eof:
                self.selector.unregister(key.fd)
                os.close(key.fd)  # nothing more can come; a long-lived referee must not keep it
                bot.stderr_fd = None

    def send(self, seat: int, line: bytes, request: bool = True) -> None:
        """Queue one line (newline added) for a bot and write what the pipe
        takes now. `request`: the line asks for an answer (not a final state)."""
        bot = self.bots[seat]
        if request:
            bot.awaiting += 1
            self._asked[seat] += 1
            self._last_request[seat] = line
        else:
            bot.games += 1
        if bot.stdin_fd is None or bot._stdin_broken:
            return
        had_pending = bool(bot._out)
        bot._out += line
        bot._out += b"\n"
        if not had_pending:
            bot._write()
            if bot._out:
                self.selector.register(bot.stdin_fd, selectors.EVENT_WRITE, (bot, bot._write))

    def replies(
        self, seats: Iterable[int], timeout: float | Mapping[int, float], startup: Mapping[int, float] | None = None
    ) -> Iterator[tuple[int, Reply]]:
        """Each seat's next reply as soon as it is known; TIMEOUT for those
        still silent past their limit: `timeout` seconds from now, one limit
        for all or one per seat. The caller may stop early.

        A bot that has finished a game on this process and closes before
        answering its first state here is not at fault (a bot may exit after
        the end, as the original driver starts one process per game): if
        the group has a `restart`, its owner replaces it, and the new one is
        asked again and given its limit anew plus its `startup` allowance
        (seconds per seat), since a new process starts up again.
        """
        start = time.monotonic()
        waiting = sorted(seats)
        limits = timeout if isinstance(timeout, Mapping) else dict.fromkeys(waiting, timeout)
        deadlines = {seat: start + limits[seat] for seat in waiting}
        while waiting:
            still = []
            for seat in waiting:
                reply = self.bots[seat].take_reply()
                if reply is None:
                    still.append(seat)
                    continue
                if reply.kind is ReplyKind.CLOSED and self._restartable(seat):
                    failed = self._restart(seat)
                    if failed is None:
                        deadlines[seat] = time.monotonic() + limits[seat] + (startup or {}).get(seat, 0.0)
                        still.append(seat)
                        continue
                    reply = failed
                yield seat, reply
            waiting = still
            if not waiting:
                return
            now = time.monotonic()
            late = [seat for seat in waiting if deadlines[seat] <= now]
            for seat in late:
                closed = self.bots[seat].closed_reply()
                yield seat, closed or Reply(ReplyKind.TIMEOUT, detail=f"no answer within {limits[seat]:g} s")
            if late:
                waiting = [seat for seat in waiting if seat not in late]
                if not waiting:
                    return
            wake = min(deadlines[seat] for seat in waiting)
            for seat in waiting:  # a bot that closed a pipe: its exit status is awaited
                at = self.bots[seat].wake_at()
                if at is not None:
                    wake = min(wake, at if self.bots[seat].pidfd is not None else now + 0.01)
            self._poll(wake - now)

    def _restartable(self, seat: int) -> bool:
        bot = self.bots[seat]
        return self.restart is not None and bot.games > 0 and self._asked[seat] == 1 and bot.awaiting == 1

    def _restart(self, seat: int) -> Reply | None:
        """Have the seat's owner replace its process (`restart`) and send the
        new one the request again; a CLOSED reply saying why if it cannot start."""
        assert self.restart is not None  # _restartable
        self._unregister(self.bots[seat])
        try:
            new = self.restart(seat)
        except BotStartError as e:
            return Reply(ReplyKind.CLOSED, detail=f"exited after its last game and could not be restarted: {e.strerror}")
        self.bots[seat] = new
        self._register(new)
        line = self._last_request[seat]
        assert line is not None
        self.send(seat, line)
        return None

    # -- shutdown ----------------------------------------------------------

    def detach(self, flush: float = 0.1) -> list[LineChannel]:
        """Stop serving the bots without ending them, so that another group
        can take them over for another game (bots that play game after game).

        Output queued for them is flushed for up to `flush` seconds (the rest
        stays queued for the next group), and what they have already written
        is read, so that `BotProcess.reusable` tells the truth. The caller
        owns the bots from now on (`bots` may hold processes restarted
        during the game) and must close them in the end.
        """
        if self._closed:
            return self.bots
        self._closed = True
        deadline = time.monotonic() + flush
        while any(b._out and b.stdin_fd is not None and not b._stdin_broken for b in self.bots):
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                break
            self._poll(remaining)
        self._poll(0)
        self.selector.close()
        return self.bots

    def close(self, exit_grace: float = 0.5, term_grace: float = 0.5) -> None:
        """End every bot and everything it started, and reap them all.

        Each bot gets its pending output flushed and its standard input
        closed, then `exit_grace` seconds to exit by itself; then SIGTERM
        for it and its descendants, `term_grace` seconds, and SIGKILL.
        Returns at once for bots that exit promptly.
        """
        if self._closed:
            return
        self._closed = True
        try:
            self._flush_and_close_stdin(min(exit_grace, 0.1))
            self._wait_exits(exit_grace)
            if any(b.returncode() is None for b in self.bots):
                for bot in self.bots:
                    bot.send_signal(signal.SIGTERM)
                self._wait_exits(term_grace)
                for bot in self.bots:
                    if bot.returncode() is None:
                        bot.kill()
                self._wait_exits(_KILL_GRACE)
                for bot in self.bots:  # an init that did not obey: its own end
                    if bot.returncode() is None:
                        bot.send_signal(signal.SIGKILL)
            for bot in self.bots:
                bot.reap()
            self._drain_stderr(0.1)
        finally:
            self._release()

    def _flush_and_close_stdin(self, grace: float) -> None:
        deadline = time.monotonic() + grace
        while any(b._out and b.stdin_fd is not None and not b._stdin_broken for b in self.bots):
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                break
            self._poll(remaining)
        for bot in self.bots:
            if bot.stdin_fd is not None:
                if bot._out:
                    self.selector.unregister(bot.stdin_fd)
                    bot._out.clear()
                os.close(bot.stdin_fd)
                bot.stdin_fd = None

    def _wait_exits(self, grace: float) -> None:
        """Serve pipes until every bot's init has exited, at most `grace` s."""
        deadline = time.monotonic() + grace
        while True:
            alive = [b for b in self.bots if not b.exited and b.returncode() is None]
            if not alive:
                return
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                return
            if any(b.pidfd is None for b in alive):
                remaining = min(remaining, 0.01)  # no pidfd: poll the exit status
            self._poll(remaining)

    def _drain_stderr(self, grace: float) -> None:
        deadline = time.monotonic() + grace
        while any(b.stderr_fd is not None for b in self.bots):
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                return
            self._poll(remaining)

    def _release(self) -> None:
        for bot in self.bots:
            if bot.process is not None:
                bot.process.close_fds()
            _close_fd_attributes(bot, ("stdin_fd", "stdout_fd", "stderr_fd"))
        self.selector.close()

    def __enter__(self) -> BotGroup:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


_KILL_GRACE = 2.0
"""Seconds an init gets to kill and reap everything before it is killed itself."""

_started: weakref.WeakSet[BotProcess] = weakref.WeakSet()
"""Every bot this process started: what `kill_started_bots` ends."""


def kill_started_bots() -> None:
    """End every bot this process started and has not reaped, and all their
    processes, without waiting.

    For a process that must end now (a tournament worker told to stop):
    closing each game's bots in turn would wait out their grace periods.
    (Its death alone would do it too, a moment later: see driver.isolation.)
    """
    for bot in list(_started):
        bot.kill()
