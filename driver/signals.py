"""Stopping a referee from outside: SIGINT, SIGTERM and SIGHUP all unwind.

A referee that is told to stop must still end its bots (the games'
`finally` blocks do it) and end each unfinished trace with a record
saying so, then exit with 128 + the signal's number, as a shell reports
a process killed by that signal. SIGINT already raises KeyboardInterrupt;
`stop_on_signals` makes SIGTERM (kill, a service manager) and SIGHUP (the
terminal went away) raise `Stopped`, which unwinds the same way.
"""

from __future__ import annotations

import signal
from types import FrameType

__all__ = ["Left", "Stopped", "stop_on_signals", "stop_reason", "stop_status"]


class Stopped(BaseException):
    """Raised in the main thread by SIGTERM or SIGHUP (see `stop_on_signals`)."""

    def __init__(self, signum: int) -> None:
        super().__init__(signum)
        self.signum = signum


class Left(BaseException):
    """Raised in the referee by a person who left the game they were playing
    at this terminal (`driver play`: quit, Ctrl+C or Ctrl+D at the prompt):
    it unwinds like a stop, so the bots are ended and the trace ends with
    an aborted record giving `reason`. `status` is the exit status."""

    def __init__(self, reason: str, status: int) -> None:
        super().__init__(reason)
        self.reason = reason
        self.status = status


def _raise_stopped(signum: int, frame: FrameType | None) -> None:
    raise Stopped(signum)


def stop_on_signals() -> None:
    """Make SIGTERM and SIGHUP raise `Stopped` (main thread only).

    A SIGHUP that was ignored when we started (nohup) stays ignored.
    """
    signal.signal(signal.SIGTERM, _raise_stopped)
    if signal.getsignal(signal.SIGHUP) is not signal.SIG_IGN:
        signal.signal(signal.SIGHUP, _raise_stopped)


def _name(signum: int) -> str:
    try:
        return signal.Signals(signum).name
    except ValueError:
        return f"signal {signum}"


def stop_reason(error: BaseException) -> str:
    """Why a game was cut off, in words, for its aborted record."""
    if isinstance(error, Stopped):
        return f"the referee was stopped ({_name(error.signum)})"
    if isinstance(error, KeyboardInterrupt):
        return "the referee was interrupted (SIGINT)"
    if isinstance(error, Left):
        return error.reason
    return f"the referee failed: {type(error).__name__}: {error}"


def stop_status(error: BaseException) -> int | None:
    """The exit status for a stop (128 + signal), None for other errors."""
    if isinstance(error, Stopped):
        return 128 + error.signum
    if isinstance(error, KeyboardInterrupt):
        return 128 + signal.SIGINT
    if isinstance(error, Left):
        return error.status
    return None
