"""The default opening suites: chosen for balance, and in 2 players never
an opening that leaves a seat with no defender against an attacker."""

from __future__ import annotations

import pytest

from protocol.engine import Game
from protocol.openings import exposed_seats, play_opening, read_openings
from tournaments.make_suites import SUITES, build


@pytest.mark.parametrize("base", [False, True])
def test_a_built_two_player_suite_exposes_no_seat_and_says_how_many_it_left_out(base: bool) -> None:
    kept, header = build(2, base, n=6, factor=3, seed=7)
    assert len(kept) == 6 and len(set(kept)) == 6
    for opening in kept:
        game = Game(2, base=base)
        play_opening(game, opening)
        assert exposed_seats(game) == []
    assert "Never kept: the " in header and "--seed 7" in header


@pytest.mark.parametrize("name", ["simple-2p", "base-2p"])
def test_the_shipped_two_player_suites_expose_no_seat(name: str) -> None:
    openings = read_openings(SUITES / f"{name}.txt")
    assert len(openings) == 48
    for opening in openings:
        game = Game(2, base=name.startswith("base"))
        play_opening(game, opening)
        assert exposed_seats(game) == [], opening
