"""Sampling a move from a preference distribution.

A gene holds one weight per option the game might offer; a state offers
only some of them (cards we can afford, cards we hold). The distribution
actually sampled is the weights of the offered options, normalised to sum
to one. If every offered option has weight zero, all are equally likely:
a strategy never gets stuck for want of a preference.
"""

from __future__ import annotations

TYPE_CHECKING = False
if TYPE_CHECKING:  # the bot starts without typing (tests/test_bot_startup.py)
    import random
    from collections.abc import Callable, Sequence
    from typing import TypeVar

    Option = TypeVar("Option")


def distribution(
    weights: Sequence[float], options: Sequence[Option], slot: Callable[[Option], int]
) -> list[tuple[Option, float]]:
    """Each offered option with its probability: its weight (the weight at
    index `slot(option)`) over the total weight of the offered options.
    An option offered twice counts once."""
    unique = list(dict.fromkeys(options))
    if not unique:
        raise ValueError("no options to choose from")
    raw = [weights[slot(o)] for o in unique]
    total = sum(raw)
    if total <= 0:
        return [(o, 1.0 / len(unique)) for o in unique]
    return [(o, w / total) for o, w in zip(unique, raw)]


def sample(
    weights: Sequence[float], options: Sequence[Option], slot: Callable[[Option], int], rng: random.Random
) -> Option:
    """Draw one option from `distribution(weights, options, slot)`."""
    dist = distribution(weights, options, slot)
    point = rng.random()
    for option, p in dist:
        point -= p
        if point < 0:
            return option
    return dist[-1][0]
