"""Bracket logic: seeding placement, byes, tables of 3 and 4, tie-breaks."""

from __future__ import annotations

import pytest

from tournaments.bracket import Bracket, snake, table_winner
from tournaments.outcomes import Result


def first_round(b: Bracket) -> list[list[int]]:
    return [t.seeds for t in b.rounds[0]]


def play_favourites(b: Bracket) -> list[list[int]]:
    """Let the best seed win every table; return the tables played, in order."""
    played = []
    while b.champion is None:
        for t in b.ready():
            played.append(sorted(t.seeds))
            b.decide(t, min(t.seeds))
    return played


def test_eight_bots_in_pairs_is_the_standard_draw() -> None:
    b = Bracket(8, 2)
    assert first_round(b) == [[1, 8], [2, 7], [3, 6], [4, 5]]
    assert play_favourites(b) == [[1, 8], [2, 7], [3, 6], [4, 5], [1, 4], [2, 3], [1, 2]]
    assert b.champion == 1


def test_byes_go_to_the_top_seeds() -> None:
    b = Bracket(5, 2)
    assert first_round(b) == [[1], [2], [3], [4, 5]]
    assert [t.winner for t in b.rounds[0][:3]] == [1, 2, 3]  # byes decided at once
    # Seeds 2 and 3 had byes, so their second-round table can start at once.
    assert [sorted(t.seeds) for t in b.ready()] == [[4, 5], [2, 3]]
    b.decide(b.rounds[0][3], 5)  # the lower seed wins its match
    assert sorted(b.rounds[1][0].seeds) == [1, 5]
    assert play_favourites(b) == [[1, 5], [2, 3], [1, 2]]


def test_four_player_tables_with_byes() -> None:
    b = Bracket(6, 4)
    assert first_round(b) == [[1], [2], [3, 6], [4, 5]]
    assert len(b.rounds) == 2 and len(b.rounds[1]) == 1
    assert play_favourites(b) == [[3, 6], [4, 5], [1, 2, 3, 4]]


def test_sixteen_bots_in_tables_of_four() -> None:
    b = Bracket(16, 4)
    assert first_round(b) == [[1, 8, 9, 16], [2, 7, 10, 15], [3, 6, 11, 14], [4, 5, 12, 13]]
    assert play_favourites(b)[-1] == [1, 2, 3, 4]


def test_three_player_tables() -> None:
    b = Bracket(5, 3)
    assert first_round(b) == [[1], [2, 5], [3, 4]]
    b.decide(b.rounds[0][1], 5)
    b.decide(b.rounds[0][2], 3)
    assert sorted(b.rounds[1][0].seeds) == [1, 3, 5]


def test_small_field_is_one_table() -> None:
    b = Bracket(3, 4)
    assert first_round(b) == [[1, 2, 3]] and len(b.rounds) == 1


def test_snake_places_tiers_alternately() -> None:
    assert snake(1, 4, 4) == (1, 8, 9, 16)
    assert snake(4, 4, 2) == (4, 5)


def test_bad_fields_are_refused() -> None:
    with pytest.raises(ValueError):
        Bracket(1, 2)
    with pytest.raises(ValueError):
        Bracket(8, 5)
    with pytest.raises(ValueError):
        Bracket(4, 2).decide(Bracket(4, 2).rounds[0][0], 3)


def test_table_winner_tie_break_wins_then_forfeits_then_seed() -> None:
    names = ["s1", "s2", "s3"]
    # In 3-player games a forfeit gives nobody a win: s2 and s3 tie on wins,
    # s3 forfeited once, so s2 advances although s3 is seated first more often.
    games = [
        Result(("s3", "s2", "s1"), 0),
        Result(("s2", "s3", "s1"), 0),
        Result(("s3", "s1", "s2"), None, fault_seat=0),
    ]
    winner, record = table_winner([1, 2, 3], names, games)
    assert winner == 2 and record == {1: (0, 0), 2: (1, 0), 3: (1, 1)}
    # Fully level: the better seed advances.
    level = [Result(("s2", "s3"), 0), Result(("s3", "s2"), 0)]
    winner, record = table_winner([3, 2], names, level)
    assert winner == 2 and record == {3: (1, 0), 2: (1, 0)}
    # Only forfeits by the better seed: the lower seed wins every game and advances.
    winner, _ = table_winner([1, 3], names, [Result(("s1", "s3"), None, fault_seat=0)] * 2)
    assert winner == 3
