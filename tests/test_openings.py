"""Openings: replaying a move list from the start, and drawing random ones."""

from __future__ import annotations

import random
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from protocol.engine import BUY, INVESTING, Game
from protocol.openings import (
    OpeningError,
    doomed_seats,
    exposed,
    exposed_seats,
    format_opening,
    lost_at_once,
    parse_opening,
    play_opening,
    random_opening,
    read_openings,
)


def test_an_opening_is_played_by_the_first_pending_player_in_turn() -> None:
    game = Game(2)
    # Day 1: seat 0 invests 1, seat 1 invests 0, so seat 0 attacks... with
    # nothing that can attack, and the buy round follows.
    assert play_opening(game, [1, 0, "Worker", "Pass"]) == 4
    assert game.day == 2 and game.phase == INVESTING
    assert [c for c, _ in game.cards(0)] == [0, 3] and [c for c, _ in game.cards(1)] == [0]
    assert game.coins(0) == 3 - 1 - 1 + 1 + 1  # invested 1, paid 1, day 2: stipend +1, worker +1


def test_an_illegal_move_is_named_with_its_number_and_seat() -> None:
    with pytest.raises(OpeningError, match=r"opening move 2 \(\[4\], seat 1\) is illegal"):
        play_opening(Game(2), [0, 4])  # seat 1 has 3 coins
    with pytest.raises(OpeningError, match="opening move 1"):
        play_opening(Game(2), ["Worker"])  # a card name while investing


def test_an_opening_that_ends_the_game_is_refused() -> None:
    game = Game(2, max_days=1)
    with pytest.raises(OpeningError, match="ends the game"):
        play_opening(game, [0, 0, "Pass", "Pass"])  # day 1 is the last: a draw
    with pytest.raises(OpeningError, match="over before opening move 5"):
        play_opening(Game(2, max_days=1), [0, 0, "Pass", "Pass", 0])


def test_random_openings_are_reproducible_and_end_between_rounds() -> None:
    a = random_opening(3, 9, random.Random(7), base=True)
    b = random_opening(3, 9, random.Random(7), base=True)
    assert a == b and len(a) >= 9
    game = Game(3, base=True)
    play_opening(game, a)
    if game.phase in (INVESTING, BUY):  # nobody's hidden answer is already in
        everyone = [p for p in range(3) if game.alive(p) and (game.phase == INVESTING or game.buys(p) > 0)]
        assert list(game.pending()) == everyone


@settings(max_examples=60, deadline=None)
@given(players=st.integers(2, 4), plies=st.integers(0, 40), base=st.booleans(), seed=st.integers(0, 2**32))
def test_random_openings_replay_and_leave_the_game_open(players: int, plies: int, base: bool, seed: int) -> None:
    opening = random_opening(players, plies, random.Random(seed), base=base)
    game = Game(players, base=base)
    assert play_opening(game, parse_opening(format_opening(opening))) == len(opening)
    assert not game.is_over and len(opening) >= plies


def test_a_seat_without_a_defender_facing_a_richer_attacker_is_lost_at_once() -> None:
    # Seat 0 bid 2 of its 3 coins and could buy nothing; seat 1 bought a
    # Worker: on day 2 it holds 4 coins to seat 0's 2, and seat 0 no defender.
    game = Game(2)
    play_opening(game, (2, 0, "Pass", "Worker"))
    assert lost_at_once(game, 0) and not lost_at_once(game, 1) and doomed_seats(game) == [0]
    game = Game(2)
    play_opening(game, (0, 0, "Worker", "Worker"))
    assert doomed_seats(game) == []
    with pytest.raises(ValueError, match="2 players"):
        lost_at_once(Game(3), 0)


def test_a_seat_without_a_defender_facing_an_attacker_is_exposed_whatever_the_coins() -> None:
    # Seat 0 bid all 3 coins on day 1 and bought nothing; seat 1 bid 2 and
    # bought a Magic Bean Stock (an attacker): on day 2 both hold 1 coin, so
    # seat 0 is not lost at once, but must match every bid and can buy nothing.
    game = Game(2)
    play_opening(game, (3, 2, "Pass", "Magic Bean Stock"))
    assert game.coins(0) == game.coins(1) == 1
    assert exposed(game, 0) and not lost_at_once(game, 0)
    assert exposed_seats(game) == [0] and doomed_seats(game) == []
    game = Game(2)
    play_opening(game, (3, 2, "Pass", "Pass"))  # no attacker on either side: nobody is exposed
    assert exposed_seats(game) == []
    game = Game(2)
    play_opening(game, (2, 0, "Pass", "Worker"))  # lost at once is exposed too
    assert exposed_seats(game) == doomed_seats(game) == [0]
    # At a table of 4: the Stipend alone against any armed opponent.
    game = Game(4)
    play_opening(game, (1, 0, 0, 0, "Worker", "Pass", "Worker", "Magic Bean Stock"))
    assert exposed_seats(game) == [1]
    game = Game(4)
    play_opening(game, (0, 0, 0, 0, "Pass", "Pass", "Pass", "Pass"))  # nobody armed: nobody exposed
    assert exposed_seats(game) == []


def test_openings_that_leave_both_seats_a_game_expose_no_seat_and_change_only_exposing_draws() -> None:
    """Over many seeds: a raw draw exposes a seat now and then (so the
    filter has work), a filtered draw never does, and a filtered draw is
    the raw draw whenever that one left both seats a game (nothing else
    moves)."""
    for base in (False, True):
        raw_exposed = 0
        for seed in range(1500):
            raw = random_opening(2, 4, random.Random(seed), base=base)
            kept = random_opening(2, 4, random.Random(seed), base=base, both_play=True)
            assert kept == random_opening(2, 4, random.Random(seed), base=base, both_play=True)
            raw_game, kept_game = Game(2, base=base), Game(2, base=base)
            play_opening(raw_game, raw)
            play_opening(kept_game, kept)
            assert exposed_seats(kept_game) == [] == doomed_seats(kept_game)
            if exposed_seats(raw_game):
                raw_exposed += 1
            else:
                assert kept == raw
        assert raw_exposed > 100, raw_exposed  # a share of raw openings expose a seat


@settings(max_examples=60, deadline=None)
@given(plies=st.integers(0, 30), base=st.booleans(), seed=st.integers(0, 2**32))
def test_an_opening_drawn_for_both_seats_leaves_neither_exposed(plies: int, base: bool, seed: int) -> None:
    game = Game(2, base=base)
    play_opening(game, random_opening(2, plies, random.Random(seed), base=base, both_play=True))
    assert not game.is_over and exposed_seats(game) == [] == doomed_seats(game)


def test_only_two_player_openings_are_drawn_for_both_seats() -> None:
    with pytest.raises(ValueError, match="2-player"):
        random_opening(3, 4, random.Random(0), both_play=True)


def test_openings_file_skips_comments_and_names_a_bad_line(tmp_path: Path) -> None:
    good = tmp_path / "good.txt"
    good.write_text('# two openings\n[0, 0, "Worker", "Pass"]\n\n[1,0]\n')
    assert read_openings(good) == [(0, 0, "Worker", "Pass"), (1, 0)]
    bad = tmp_path / "bad.txt"
    bad.write_text('[0, 0]\n{"not": "a list"}\n')
    with pytest.raises(OpeningError, match="bad.txt, line 2"):
        read_openings(bad)
    with pytest.raises(OpeningError, match="cannot read"):
        read_openings(tmp_path / "missing.txt")
    (tmp_path / "empty.txt").write_text("# nothing\n")
    with pytest.raises(OpeningError, match="holds no opening"):
        read_openings(tmp_path / "empty.txt")


def test_opening_lines_keep_big_integers_exact() -> None:
    line = "[99999999999999999999, 0]"
    assert parse_opening(line) == (99999999999999999999, 0)
    assert format_opening(parse_opening(line)) == "[99999999999999999999,0]"
    with pytest.raises(OpeningError, match="nests deeper than 1024 levels"):
        parse_opening("[" * 2000 + "]" * 2000)
    game = Game(2)
    with pytest.raises(OpeningError, match="invest more coins than they have"):
        play_opening(game, parse_opening(line))
