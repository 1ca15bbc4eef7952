"""Fixed opponents for the fitness: bots that are not part of the population.

Fitness relative to the population alone lets evolution settle on a
strategy that beats its own kind and nothing else (the first shipped
genome won 1.5% against `expert`). A share of each genome's fitness games
are therefore played against these policies, in-process, seats swapped.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence

from bots import decent_repro, expert
from bots.random_bot import random_policy
from bots.sdk import Decide

MAKERS: dict[str, Callable[[random.Random], Decide]] = {
    "expert": lambda rng: expert.decide,
    "decent-repro": decent_repro.decide_with,
    "random": random_policy,
}
"""Each outside opponent's policy, drawing any random choice from the given generator."""


def check_names(names: Sequence[str]) -> tuple[str, ...]:
    """`names` as a tuple if every one is known; ValueError naming the choices otherwise."""
    unknown = [n for n in names if n not in MAKERS]
    if unknown:
        raise ValueError(f"unknown opponent(s) {', '.join(unknown)}: choose from {', '.join(MAKERS)}")
    if len(set(names)) != len(names):
        raise ValueError(f"opponents named twice: {', '.join(names)}")
    return tuple(names)


def parse_names(text: str) -> tuple[str, ...]:
    """A comma-separated list (`expert,decent-repro`) as checked names; "" is none."""
    return check_names([n.strip() for n in text.split(",") if n.strip()])
