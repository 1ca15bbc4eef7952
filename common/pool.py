"""Worker processes that play games: the one pool every command uses.

Tournaments play their referee games in it, and every tool that plays
in-process games in bulk (evolution, tuning, training's self-play, the
exploiter and its matches, the bench scripts) plays them in it too, so
that they all start, stop and answer Ctrl-C the same way:

- workers are spawned (fresh interpreters), never forked: the parent may
  hold threads (the exploiter's referee games, numpy's BLAS), an open
  SQLite connection or locks, which a forked child would inherit
  half-taken; it is also what Python 3.14 makes the default elsewhere;
- Ctrl-C is the parent's: it reaches the whole process group, but workers
  ignore it, and the parent decides what to keep and then stops them;
- a worker dies with its parent (SIGTERM when the parent dies, on Linux)
  and at SIGTERM or SIGHUP ends at once, after the pool's `on_stop`
  (a tournament's worker ends the bots it started);
- leaving the pool's `with` block by an exception (Ctrl-C, an error)
  stops the workers at once and drops queued work, instead of waiting for
  games whose results nobody will read.
"""

from __future__ import annotations

import ctypes
import multiprocessing
import os
import signal
import threading
from collections.abc import Callable, Iterator
from concurrent.futures import Future, ProcessPoolExecutor
from contextlib import contextmanager
from types import TracebackType
from typing import Any, ParamSpec, TypeVar

__all__ = ["WorkerPool", "default_workers"]

P = ParamSpec("P")
T = TypeVar("T")

_PR_SET_PDEATHSIG = 1


def default_workers() -> int:
    """Every core this process may use (its CPU affinity, not the machine's count)."""
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # not on Linux
        return os.cpu_count() or 1


class WorkerPool(ProcessPoolExecutor):
    """`workers` spawned worker processes (see the module's docstring);
    `on_stop`, a module-level function, runs in a worker told to stop;
    `on_start(*on_start_args)`, also module-level, in each worker as it
    starts (a tournament's workers are handed the queue their kept bots'
    late standard error goes to)."""

    def __init__(self, workers: int, on_stop: Callable[[], None] | None = None,
                 on_start: Callable[..., None] | None = None, on_start_args: tuple[Any, ...] = ()) -> None:
        if workers < 1:
            raise ValueError(f"a pool needs at least 1 worker, not {workers}")
        self.workers = workers
        super().__init__(
            max_workers=workers,
            mp_context=multiprocessing.get_context("spawn"),
            initializer=_start_worker,
            initargs=(os.getpid(), on_stop, on_start, on_start_args),
        )

    def submit(self, fn: Callable[P, T], /, *args: P.args, **kwargs: P.kwargs) -> Future[T]:
        """As `ProcessPoolExecutor.submit`; a Ctrl-C while it starts a worker
        is delivered once the worker is started (`map` comes here too)."""
        with _interrupt_after_spawning():
            return super().submit(fn, *args, **kwargs)

    def close(self, cancel: bool = False) -> None:
        """Wait for the work in flight, or with `cancel` abandon it: queued
        work is dropped and the workers are told to stop (SIGTERM), so that
        neither they nor the exit of this process waits for results nobody
        will read."""
        # The pool's own table of workers: ProcessPoolExecutor has no public
        # way to stop running work before Python 3.14's terminate_workers().
        workers = list((getattr(self, "_processes", None) or {}).values()) if cancel else []
        for worker in workers:
            try:
                worker.terminate()
            except (OSError, ValueError):  # already gone, or closed
                pass
        self.shutdown(wait=not cancel, cancel_futures=cancel)

    def __exit__(
        self, kind: type[BaseException] | None, value: BaseException | None, traceback: TracebackType | None
    ) -> bool | None:
        self.close(cancel=kind is not None)
        return None


@contextmanager
def _interrupt_after_spawning() -> Iterator[None]:
    """Hold a Ctrl-C back while a worker may be spawned, and deliver it after.

    Two holes to close. A worker inherits the signal mask across exec, so
    with SIGINT blocked it cannot be reached before it has chosen to leave
    SIGINT to the parent. And the parent must not unwind halfway through a
    spawn: a child whose start-up data was never written dies printing a
    traceback. Blocking the signal here does not protect the parent, since
    the kernel hands it to any thread that does not block it (numpy's BLAS
    threads) and Python then runs the handler in this thread anyway; so the
    handler itself is replaced by one that only remembers.
    """
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    caught: list[int] = []
    previous = signal.signal(signal.SIGINT, lambda signum, frame: caught.append(signum))
    signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT})
    try:
        yield
    finally:
        signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGINT})
        signal.signal(signal.SIGINT, previous)
        if caught:
            signal.raise_signal(signal.SIGINT)


_on_stop: Callable[[], None] | None = None


def _start_worker(parent: int, on_stop: Callable[[], None] | None, on_start: Callable[..., None] | None,
                  on_start_args: tuple[Any, ...]) -> None:
    """A worker lives and dies by its pool's owner.

    Ctrl-C reaches the whole process group, but it is the parent's to
    handle: it decides what is kept and then stops the workers. SIGTERM,
    from the parent stopping or dying, ends the worker at once (after
    `on_stop`: a tournament's worker ends its bots, which run in sessions
    of their own, out of reach of the terminal's signals). A killed parent
    leaves no worker behind: each gets SIGTERM when the parent dies
    (Linux; elsewhere a no-op).
    """
    global _on_stop
    _on_stop = on_stop
    if on_start is not None:
        on_start(*on_start_args)
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, _stop_worker)
    signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGINT})  # blocked by _interrupt_after_spawning
    signal.signal(signal.SIGHUP, _stop_worker)
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        libc.prctl(_PR_SET_PDEATHSIG, signal.SIGTERM, 0, 0, 0)
    except (OSError, AttributeError):
        return
    if os.getppid() != parent:  # the parent died before the line above
        _stop_worker(signal.SIGTERM, None)


def _stop_worker(signum: int, frame: object) -> None:
    if _on_stop is not None:
        _on_stop()
    os._exit(128 + signum)
