"""The evolved strategy: a handful of preference distributions.

Modelled on evolvedominion: a strategy is not a program but a set of
weights, one per option, from which a move is sampled after keeping only
the options the state allows and normalising (bots.evolved.sampling).
Evolution changes the weights; the bot (bots.evolved.bot) reads them.

A strategy that sees only the day cannot answer what its opponent does,
so each decision has a few sets of weights, chosen by a coarse reading of
the state (bots.evolved.bot says which applies, first match wins):

* buying, one weight per buy option (Pass, then card ids 1-13):
  ``buy_threat`` when an opponent holds an attacker that beats every
  defender we hold; else ``buy_race`` once any player has ``race_points``
  points (the race for 7 is on); else ``buy_early`` before day
  ``switch_day`` and ``buy_late`` from that day on;
* investing, one weight per investment level (`INVEST_LEVELS`, resolved
  against the coin difference with the richest opponent):
  ``invest_threat`` when we hold a ready card that beats every defender we
  would meet; else ``invest_danger`` when an opponent holds one against
  us; else ``invest_calm``;
* ``attack``: one weight per attack option (stop, then card ids 1-13);
* ``defend``: one weight per card id 1-13.

Weights are non-negative floats; ``switch_day`` and ``race_points`` are
integers in `INT_GENES` ranges.
"""

from __future__ import annotations

import math

from common.records import Record

TYPE_CHECKING = False
if TYPE_CHECKING:  # the bot starts without typing (tests/test_bot_startup.py)
    import random
    from typing import Any

N_CARDS = 13
"""Shop card ids are 1..13 (protocol.cards)."""

BUY_OPTIONS = 1 + N_CARDS
"""Index 0 is Pass, index i is card id i."""

ATTACK_OPTIONS = 1 + N_CARDS
"""Index 0 is "stop attacking", index i is a card with id i."""

INVEST_LEVELS: tuple[str, ...] = ("nothing", "one", "half", "match", "outbid", "all")
"""Investment levels, resolved against the state by bots.evolved.bot:
nothing (0), one coin, half our coins, match the richest opponent's coins
(a tie: nobody attacks), outbid them by one (a sure attack), all our coins."""

MAX_SWITCH_DAY = 30
"""The latest day the late buy preferences may take over."""

INT_GENES: dict[str, tuple[int, int]] = {"switch_day": (0, MAX_SWITCH_DAY), "race_points": (1, 8)}
"""Integer genes and their inclusive ranges (race_points 8: the race set is never used)."""

_WEIGHT_CAP = 100.0
_WEIGHT_FLOOR = 1e-3


def _weights(n: int) -> list[float]:
    return [1.0] * n


class Genome(Record):
    """One strategy. Plain floats and an int, so it stores as JSON as is.
    A `Record` (equality, repr, pickling; no `dataclasses` at start-up),
    built from keywords: a weight list left out is all ones."""

    __slots__ = ("buy_early", "buy_late", "switch_day", "invest_calm", "invest_threat", "buy_threat", "buy_race",
                 "race_points", "invest_danger", "attack", "defend")
    buy_early: list[float]
    buy_late: list[float]
    switch_day: int
    invest_calm: list[float]
    invest_threat: list[float]
    buy_threat: list[float]
    buy_race: list[float]
    race_points: int
    invest_danger: list[float]
    attack: list[float]
    defend: list[float]

    def __init__(self, buy_early: list[float] | None = None, buy_late: list[float] | None = None,
                 switch_day: int = 6, invest_calm: list[float] | None = None,
                 invest_threat: list[float] | None = None, buy_threat: list[float] | None = None,
                 buy_race: list[float] | None = None, race_points: int = 8,
                 invest_danger: list[float] | None = None, attack: list[float] | None = None,
                 defend: list[float] | None = None) -> None:
        given: dict[str, Any] = {
            "buy_early": buy_early, "buy_late": buy_late, "invest_calm": invest_calm,
            "invest_threat": invest_threat, "buy_threat": buy_threat, "buy_race": buy_race,
            "invest_danger": invest_danger, "attack": attack, "defend": defend,
        }
        for name, size in _SIZES.items():
            genes = given[name]
            if genes is None:
                given[name] = _weights(size)
                continue
            if len(genes) != size:
                raise ValueError(f"genome: {name} needs {size} weights, got {len(genes)}")
            if any(not (isinstance(w, (int, float)) and math.isfinite(w) and w >= 0) for w in genes):
                raise ValueError(f"genome: {name} weights must be finite and non-negative")
            given[name] = [float(w) for w in genes]
        given["switch_day"], given["race_points"] = switch_day, race_points
        for name, (low, high) in INT_GENES.items():
            value = given[name]
            if not (isinstance(value, int) and not isinstance(value, bool) and low <= value <= high):
                raise ValueError(f"genome: {name} must be an integer in {low}..{high}, got {value!r}")
        self._set(**{name: given[name] for name in self.__slots__})

    def to_json(self) -> dict[str, Any]:
        return {name: getattr(self, name) for name in self.__slots__}

    @classmethod
    def from_json(cls, data: Any) -> "Genome":
        """Rebuild a genome from `to_json` output; ValueError names what is wrong."""
        if not isinstance(data, dict):
            raise ValueError("genome: expected a JSON object")
        unknown = set(data) - set(cls.__slots__)
        missing = set(cls.__slots__) - set(data)
        if unknown or missing:
            raise ValueError(f"genome: unknown keys {sorted(unknown)}, missing keys {sorted(missing)}")
        return cls(**data)


_SIZES = {
    "buy_early": BUY_OPTIONS,
    "buy_late": BUY_OPTIONS,
    "buy_threat": BUY_OPTIONS,
    "buy_race": BUY_OPTIONS,
    "invest_calm": len(INVEST_LEVELS),
    "invest_threat": len(INVEST_LEVELS),
    "invest_danger": len(INVEST_LEVELS),
    "attack": ATTACK_OPTIONS,
    "defend": N_CARDS,
}
WEIGHT_GENES: tuple[str, ...] = tuple(_SIZES)
"""The names of the weight lists, in a fixed order (crossover, diversity)."""


def random_genome(rng: random.Random) -> Genome:
    """A fresh random strategy: weights drawn log-uniformly in [e^-3, e^3],
    so some options start strongly preferred and some nearly never taken."""
    genes: dict[str, Any] = {
        name: [math.exp(rng.uniform(-3.0, 3.0)) for _ in range(size)] for name, size in _SIZES.items()
    }
    genes.update({name: rng.randint(low, high) for name, (low, high) in INT_GENES.items()})
    return Genome(**genes)


def mutate(genome: Genome, rng: random.Random, rate: float = 0.1, scale: float = 0.5) -> Genome:
    """A copy with each weight, with probability `rate`, multiplied by
    e^N(0, scale) (weights are relative, so changes are multiplicative),
    and each integer gene moved by a step or two as often."""
    genes: dict[str, Any] = {}
    for name in WEIGHT_GENES:
        genes[name] = [
            min(_WEIGHT_CAP, max(_WEIGHT_FLOOR, w * math.exp(rng.gauss(0.0, scale)))) if rng.random() < rate else w
            for w in getattr(genome, name)
        ]
    for name, (low, high) in INT_GENES.items():
        value = getattr(genome, name)
        if rng.random() < rate:
            value = min(high, max(low, value + rng.choice((-2, -1, 1, 2))))
        genes[name] = value
    return Genome(**genes)


def crossover(a: Genome, b: Genome, rng: random.Random) -> Genome:
    """A child taking each whole distribution (and each integer gene) from
    either parent: a distribution only means something as a whole."""
    genes: dict[str, Any] = {name: list(getattr(a if rng.random() < 0.5 else b, name)) for name in WEIGHT_GENES}
    genes.update({name: getattr(a if rng.random() < 0.5 else b, name) for name in INT_GENES})
    return Genome(**genes)


def distance(a: Genome, b: Genome) -> float:
    """How different two strategies play: the mean total-variation distance
    between their normalised distributions (0 same, 1 disjoint)."""
    total = 0.0
    for name in WEIGHT_GENES:
        x, y = getattr(a, name), getattr(b, name)
        sx, sy = sum(x), sum(y)
        total += 0.5 * sum(abs(p / sx - q / sy) for p, q in zip(x, y))
    return total / len(WEIGHT_GENES)
