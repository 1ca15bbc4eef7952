"""Evolution runs stored by key in the platform's user data directory.

One directory per key holds everything needed to inspect or resume a run:

    settings.json      the run's settings (bots.evolved.ga.Settings)
    generations.jsonl  one line per generation: its statistics and leader
    population.json    the latest population and the generation it ends

Lines are appended as generations finish, so a run stopped midway keeps
every generation done so far.
"""

from __future__ import annotations

import os

import shutil
from pathlib import Path
from typing import Any

import orjson
import platformdirs

from bots.evolved.genome import Genome

APP = "economancy-arena"


def data_root() -> Path:
    """Where keys live: <user data dir>/economancy-arena/evolved (on Linux
    $XDG_DATA_HOME/economancy-arena/evolved, ~/.local/share by default)."""
    return platformdirs.user_data_path(APP) / "evolved"


def check_key(key: str) -> str:
    """`key` if it is a valid key (non-empty, ASCII letters and digits), else ValueError."""
    if not key or not (key.isascii() and key.isalnum()):
        raise ValueError(f"invalid key {key!r}: a key is a non-empty string of ASCII letters and digits")
    return key


class Store:
    """The stored run under one key."""

    def __init__(self, key: str, root: Path | None = None) -> None:
        self.key = check_key(key)
        self.path = (root or data_root()) / key

    @property
    def exists(self) -> bool:
        return (self.path / "settings.json").exists()

    def create(self, settings: dict[str, Any], overwrite: bool) -> None:
        """Start a fresh run; FileExistsError if the key is taken and not `overwrite`."""
        if self.path.exists():
            if not overwrite:
                raise FileExistsError(
                    f"key {self.key!r} already holds a run ({self.path}); use --overwrite to replace it"
                )
            shutil.rmtree(self.path)
        self.path.mkdir(parents=True)
        self._write("settings.json", orjson.dumps(settings, option=orjson.OPT_INDENT_2))
        self._write("generations.jsonl", b"")

    def settings(self) -> dict[str, Any]:
        settings: dict[str, Any] = orjson.loads(self._read("settings.json"))
        return settings

    def append_generation(self, record: dict[str, Any], population: list[Genome]) -> None:
        """Record a finished generation (statistics and `leader` genome) and the population it leaves."""
        with open(self.path / "generations.jsonl", "ab") as out:
            out.write(orjson.dumps(record) + b"\n")
        state = {"generation": record["generation"], "population": [g.to_json() for g in population]}
        self._write("population.json", orjson.dumps(state))

    def generations(self) -> list[dict[str, Any]]:
        """Every stored generation's record, oldest first."""
        lines = self._read("generations.jsonl").splitlines()
        return [orjson.loads(line) for line in lines if line.strip()]

    def leaders(self) -> list[Genome]:
        return [Genome.from_json(record["leader"]) for record in self.generations()]

    def leader(self) -> Genome:
        """The latest generation's leader; LookupError if the run has none yet."""
        records = self.generations()
        if not records:
            raise LookupError(f"key {self.key!r} has no finished generation yet")
        return Genome.from_json(records[-1]["leader"])

    def strongest(self, n: int) -> list[Genome]:
        """The run's `n` strongest genomes as far as it knows (fewer if it
        holds fewer distinct ones): the last generation's elites in order of
        fitness (the stored population starts with them, best first), then
        the leaders of the generations before, newest first. LookupError if
        the run has no finished generation."""
        settings = self.settings()
        out = [self.leader()]
        _, population = self.population()
        out += population[: int(settings.get("elite", 0))]
        out += reversed(self.leaders())
        distinct: list[Genome] = []
        for genome in out:
            if genome not in distinct:
                distinct.append(genome)
        return distinct[:n]

    def population(self) -> tuple[int, list[Genome]]:
        """(generations done, the population they left) for resuming."""
        state = orjson.loads(self._read("population.json"))
        return state["generation"], [Genome.from_json(g) for g in state["population"]]

    def _read(self, name: str) -> bytes:
        try:
            return (self.path / name).read_bytes()
        except FileNotFoundError:
            raise LookupError(f"no run stored under key {self.key!r} (looked in {self.path})") from None
        except PermissionError:
            raise LookupError(
                f"cannot read the run stored under key {self.key!r} in {self.path}: permission denied to"
                f" uid {os.getuid()} (a bot started by a referee running as root runs as nobody: give the"
                " referee --key, which passes the weights, or --genome a file it can read)"
            ) from None

    def _write(self, name: str, data: bytes) -> None:
        tmp = self.path / (name + ".tmp")
        tmp.write_bytes(data)
        tmp.replace(self.path / name)
