"""Where games run: local worker processes, or Ray tasks on a cluster.

Both backends only play games and hand results back; the caller (the
parent process) writes each to the one database as it arrives. The
interface is three calls so the runner can keep a bounded number of
games in flight and stop submitting at any moment (SPRT, Ctrl-C).
"""

from __future__ import annotations

import multiprocessing
import os
import threading
from collections.abc import Collection
from concurrent.futures import FIRST_COMPLETED, Future
from concurrent.futures import wait as wait_futures
from typing import Any, Protocol

from common.pool import WorkerPool, default_workers
from driver.process import kill_started_bots
from tournaments.errors import TournamentError
from tournaments.store import GameRecord
from tournaments.workers import Job, Tail, play, send_tails_to


class Backend(Protocol):
    slots: int  # how many games to keep in flight

    def submit(self, job: Job) -> Any: ...

    def wait(self, handles: Collection[Any]) -> list[Any]:
        """Block until at least one handle is done; return the done ones."""
        ...

    def result(self, handle: Any) -> GameRecord: ...

    def tails(self) -> list[Tail]:
        """The kept bots' standard error written after their games' records
        (tournaments.workers.Tail) received since the last call; after
        close, the rest."""
        ...

    def close(self, cancel: bool = False) -> None: ...


class LocalBackend:
    """Games in a pool of worker processes (`common.pool.WorkerPool`:
    spawned, never forked from the parent, which holds an open SQLite
    connection and threads; direct children, told to die with the parent;
    a worker told to stop ends its bots first)."""

    def __init__(self, concurrency: int) -> None:
        if concurrency < 1:
            raise TournamentError(f"--concurrency must be at least 1, got {concurrency}")
        self.slots = concurrency
        context = multiprocessing.get_context("spawn")
        # The workers' tails, read as they come (a full pipe would hold up a worker's exit).
        self._tail_queue: Any = context.Queue()
        self._tails: list[Tail] = []
        self._tails_lock = threading.Lock()
        self._tail_reader = threading.Thread(target=self._read_tails, name="tails", daemon=True)
        self._tail_reader.start()
        self._pool = WorkerPool(concurrency, on_stop=kill_started_bots, on_start=send_tails_to,
                                on_start_args=(self._tail_queue,))

    def submit(self, job: Job) -> Future[GameRecord]:
        return self._pool.submit(play, job)

    def wait(self, handles: Collection[Future[GameRecord]]) -> list[Future[GameRecord]]:
        done, _ = wait_futures(handles, return_when=FIRST_COMPLETED)
        return list(done)

    def result(self, handle: Future[GameRecord]) -> GameRecord:
        return handle.result()

    def _read_tails(self) -> None:
        while True:
            tail = self._tail_queue.get()
            if tail is None:
                return
            with self._tails_lock:
                self._tails.append(tail)

    def tails(self) -> list[Tail]:
        with self._tails_lock:
            tails, self._tails = self._tails, []
        return tails

    def close(self, cancel: bool = False) -> None:
        """Wait for the games in flight, or with `cancel` abandon them: the
        workers are told to stop (SIGTERM) so that neither they nor the exit
        of this process waits for games whose results nobody will store."""
        self._pool.close(cancel)
        if self._tail_reader.is_alive():  # the workers have exited, their last tails sent: this comes after
            self._tail_queue.put(None)
            self._tail_reader.join(timeout=None if not cancel else 1.0)


# Times Ray plays a game again after losing its worker or node (never after
# an exception raised by the game): a cluster that loses a node finishes.
_NODE_LOSS_RETRIES = 3


class RayBackend:
    """Games as Ray tasks. Connects to the cluster at `address` (--ray-address,
    or the RAY_ADDRESS variable), or starts a local Ray instance.

    Bots must be runnable on every node: `working_dir` (--ray-working-dir)
    is sent with the job (Ray's runtime environment) and is each worker's
    current directory, so bots given by paths relative to it run on nodes
    that share no folder with this one. A game whose node dies (or whose
    worker is killed) is played again elsewhere: its result was never
    stored, and one that raises is not retried (the referee handles the
    bots' faults; an exception is a bug to report, not to repeat)."""

    def __init__(self, concurrency: int | None, address: str | None = None,
                 working_dir: str | os.PathLike[str] | None = None) -> None:
        try:
            import ray
        except ImportError:
            raise TournamentError(
                "--backend ray needs Ray: pip install 'economancy-arena[ray]'"
            ) from None
        self._ray = ray
        address = address or os.environ.get("RAY_ADDRESS") or None
        if working_dir is not None and not os.path.isdir(working_dir):
            raise TournamentError(f"--ray-working-dir {os.fspath(working_dir)!r} is not a folder")
        if not ray.is_initialized():
            ray.init(
                address=address,
                num_cpus=None if address else (concurrency or None),
                include_dashboard=False,
                log_to_driver=False,
                configure_logging=False,
                runtime_env={"working_dir": os.fspath(working_dir)} if working_dir is not None else None,
            )
        elif working_dir is not None:
            raise TournamentError("--ray-working-dir needs a Ray connection of its own (Ray is already started here)")
        self._task = ray.remote(num_cpus=1, max_retries=_NODE_LOSS_RETRIES)(play)
        self.slots = concurrency or max(1, int(ray.cluster_resources().get("CPU", 1)))  # type: ignore[no-untyped-call]

    def submit(self, job: Job) -> Any:
        return self._task.remote(job)

    def wait(self, handles: Collection[Any]) -> list[Any]:
        done, _ = self._ray.wait(list(handles), num_returns=1)
        return done

    def result(self, handle: Any) -> GameRecord:
        record: GameRecord = self._ray.get(handle)
        return record

    def tails(self) -> list[Tail]:
        """None: Ray's workers send none (they keep bots only with --reuse,
        and those bots' standard error after a game's final state is dropped)."""
        return []

    def close(self, cancel: bool = False) -> None:
        """Leave the Ray instance up: other runs in this process may reuse it."""


def make_backend(name: str, concurrency: int | None, ray_address: str | None = None,
                 ray_working_dir: str | os.PathLike[str] | None = None) -> Backend:
    if name == "local":
        if ray_working_dir is not None:
            raise TournamentError("--ray-working-dir is for --backend ray")
        return LocalBackend(concurrency or default_workers())
    if name == "ray":
        return RayBackend(concurrency, ray_address, ray_working_dir)
    raise TournamentError(f"unknown backend {name!r} (local, ray)")
