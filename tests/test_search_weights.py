"""The evaluation's weights file and the tuner's openings."""

from __future__ import annotations

import json
from importlib import resources

import pytest

from bots.search.evaluation import FEATURES, Weights, evaluate, features, load_weights, save_weights
from bots.search.tuning import OPENING_DAYS, START_SHARE, best_of, opening, parse_sweep
from bots.search.tuning import main as tuning_main
from protocol import cards as card_table
from protocol.engine import Game


def test_shipped_weights_are_tuned_and_complete() -> None:
    weights = load_weights()
    assert len(weights.values) == len(FEATURES)
    data = json.loads(resources.files("bots.search").joinpath("weights.json").read_text())
    assert set(data["weights"]) == set(FEATURES)  # none silently left at 0
    assert "bots.search.tuning" in data["note"]  # says how they were made


def test_weights_round_trip(tmp_path) -> None:
    weights = Weights(tuple(float(i) for i in range(len(FEATURES))), 7.0)
    path = tmp_path / "w.json"
    save_weights(weights, str(path), "test")
    assert load_weights(str(path)) == weights


def test_a_bad_weights_file_is_refused_clearly(tmp_path) -> None:
    path = tmp_path / "w.json"
    path.write_text(json.dumps({"weights": {"points": 1, "charisma": 2}}))
    with pytest.raises(ValueError, match="unknown features.*charisma"):
        load_weights(str(path))
    path.write_text(json.dumps({"scale": 3}))
    with pytest.raises(ValueError, match="not a weights file"):
        load_weights(str(path))


def test_evaluation_prefers_the_richer_player() -> None:
    game = _two_players(["Incantation"], [])
    weights = load_weights()
    assert evaluate(game, 0, weights) > 0 > evaluate(game, 1, weights)
    assert -1 < evaluate(game, 1, weights) < 1


def test_openings_are_reproducible_open_games() -> None:
    for seed in range(1, 8):
        if seed % START_SHARE == 0:
            continue
        game = opening(seed, seed % 2 == 1)
        assert game.key() == opening(seed, seed % 2 == 1).key()
        assert not game.is_over and game.days_played >= OPENING_DAYS


def test_some_openings_are_the_real_start() -> None:
    assert opening(START_SHARE, True).key() == Game(2, base=True).key()
    assert opening(START_SHARE + 1, True).key() != Game(2, base=True).key()


def _two_players(
    mine: list[str], theirs: list[str], coins: tuple[int, int] = (3, 3), base: bool = False
) -> Game:
    return Game.from_wire({
        "day": 1, "phase": {"name": "investing"},
        "shop": Game(2, base=base).to_wire()["shop"],
        "players": [
            {"coins": coins[0], "buys": 1,
             "cards": [{"name": name, "uses": 0} for name in ["Sorcerer's Stipend", *mine]]},
            {"coins": coins[1], "buys": 1,
             "cards": [{"name": name, "uses": 0} for name in ["Sorcerer's Stipend", *theirs]]},
        ],
    })


def test_exposed_when_outnumbered_by_attackers_that_can_outbid() -> None:
    exposed = FEATURES.index("exposed")
    attackers = FEATURES.index("attackers")
    # two attackers against one defender, and the richer purse
    game = _two_players(["Worker"], ["Ghost", "Ghost"], coins=(1, 3))
    assert features(game, 0)[exposed] == 1.0 and features(game, 1)[exposed] == 0.0
    assert features(game, 1)[attackers] == 2.0
    # the same armies, but the purses tie the bid: nobody can attack
    game = _two_players(["Worker"], ["Ghost", "Ghost"], coins=(3, 3))
    assert features(game, 0)[exposed] == 0.0
    # Bubble defends but cannot attack
    game = _two_players(["Worker", "Bubble"], ["Ghost", "Ghost"], coins=(1, 3))
    assert features(game, 0)[exposed] == 0.0 and features(game, 0)[attackers] == 1.0


def test_a_wall_of_wealth_blocks_twice() -> None:
    exposed = FEATURES.index("exposed")
    game = _two_players(["Wall of Wealth"], ["Ghost", "Ghost"], coins=(1, 3), base=True)
    assert features(game, 0)[exposed] == 0.0
    game = _two_players(["Wall of Wealth"], ["Ghost", "Ghost", "Ghost"], coins=(1, 3), base=True)
    assert features(game, 0)[exposed] == 1.0


def test_sweep_arguments_are_checked() -> None:
    assert parse_sweep("coins=0.1, 0.5,2") == ("coins", [0.1, 0.5, 2.0])
    with pytest.raises(ValueError, match="FEATURE one of"):
        parse_sweep("charisma=1")
    with pytest.raises(ValueError, match="numbers"):
        parse_sweep("coins=a,b")
    with pytest.raises(ValueError, match="names no value"):
        parse_sweep("coins=")


def test_sweep_keeps_the_best_value_and_a_tie_changes_nothing() -> None:
    assert best_of([(0.1, 3.0), (0.5, 5.0), (1.0, 4.0)], current=1.0) == 0.5
    assert best_of([(0.1, 5.0), (0.5, 5.0), (2.0, 5.0)], current=0.5) == 0.5
    assert best_of([(0.1, 5.0), (2.0, 5.0)], current=1.5) == 2.0


def test_a_sweep_plays_every_value_on_the_same_games(tmp_path) -> None:
    out = tmp_path / "w.json"
    tuning_main(["--sweep", "coins=0,0.5", "--openings", "1", "--depth", "1", "--jobs", "1", "--out", str(out)])
    swept = load_weights(str(out))
    shipped = load_weights()
    coins = FEATURES.index("coins")
    assert swept.values[coins] in (0.0, 0.5)
    assert [w for i, w in enumerate(swept.values) if i != coins] == [
        w for i, w in enumerate(shipped.values) if i != coins]
    note = json.loads(out.read_text())["note"]
    assert "--sweep coins=0,0.5" in note and "of 4 games" in note
    assert note.startswith(json.loads(resources.files("bots.search").joinpath("weights.json").read_text())["note"])


@pytest.mark.parametrize("packaged", ["weights.json", "champion-v1.json"])
def test_shipped_weights_have_the_signs_their_features_call_for(packaged: str) -> None:
    """A sign slip cannot be caught by the tuner's noisy scores: a positive
    `exposed` weight once made alpha-beta seek positions one lost bid away
    from elimination. (Hand-set weights only: a fit may put a small weight
    of either sign on features that move together, as `learned.json` does.)"""
    weights = load_weights(packaged=packaged).as_dict()
    assert all(weights[name] > 0 for name in ("points", "coins", "income", "attack", "defense", "defenders"))
    assert weights["exposed"] < 0
    assert weights["race"] <= 0  # days to the winning points: fewer is better
    assert weights["firepower"] >= 0  # attack levels: more is stronger


def test_firepower_sums_the_attack_of_every_card_that_can_attack() -> None:
    """`attack` is the best level only, so two Ghosts (3 each) and two
    Workers (1 each) looked alike to it: the evolved bot's Ghost rushes."""
    firepower = FEATURES.index("firepower")
    game = _two_players(["Ghost", "Ghost", "Bubble"], ["Worker", "Worker", "Senior Worker"])
    assert features(game, 0)[firepower] == 6  # a Bubble cannot attack: its 9 counts only in defence
    assert features(game, 1)[firepower] == 4
    assert features(game, 0)[FEATURES.index("attack")] == 3
    weighted = Weights.from_dict({"firepower": 1.0})
    assert evaluate(game, 0, weighted) > 0 > evaluate(game, 1, weighted)


def test_coins_count_only_as_far_as_they_can_win_a_bid_and_buy() -> None:
    """A purse grown without limit once swamped every other feature."""
    coins = FEATURES.index("coins")
    dearest = max(card.cost or 0 for card in card_table.CARDS)
    rich = _two_players([], [], coins=(10**6, 3))
    assert features(rich, 0)[coins] == 3 + dearest and features(rich, 1)[coins] == 3
    weights = load_weights()
    richer = _two_players(["Incantation"], [], coins=(10**6, 3))  # 3 more points, the same useful coins
    assert evaluate(richer, 0, weights) > evaluate(rich, 0, weights)
    assert features(_two_players([], [], coins=(7, 3)), 0)[coins] == 7  # under the cap: every coin counts


def test_race_days_counts_the_days_to_buy_the_winning_points() -> None:
    from bots.search.evaluation import RACE_HORIZON, race_days
    from test_alphabeta import _cards, _state

    # 4 points and 4 coins at the buy: an Incantation now.
    now = _state({"name": "buy"}, [(4, 1, _cards("Incantation", "Board of Monopoly")), (0, 1, _cards())])
    assert race_days(now, 0, 7) == 0
    # The same after today's buy is spent: tomorrow's (day 3) buy.
    spent = _state({"name": "buy"}, [(4, 0, _cards("Incantation", "Board of Monopoly")), (0, 1, _cards())])
    assert race_days(spent, 0, 7) == 1
    # Broke on day 2 with nothing but the Stipend (1, 1, then 2 coins on
    # day 1): 7 points take two Incantations and a Board, 10 coins, which
    # the Stipend has paid by the buy 8 days from now (1+2+1+1+2+1+1+2).
    poor = _state({"name": "investing"}, [(0, 1, _cards()), (0, 1, _cards())])
    assert race_days(poor, 0, 7) == 8
    # A player who holds the points needs none; a target beyond reach is the horizon.
    assert race_days(now, 0, 4) == 0
    assert race_days(poor, 0, 60) == RACE_HORIZON


def test_the_champions_weights_are_the_learned_ones_with_coins_set_by_hand() -> None:
    """The fit puts almost nothing on coins (a purse is spent by the next
    buy in most of its positions), and a champion that does not value coins
    spends its last ones on bids it cannot win; the shipped file must say
    where it comes from and differ from the fit in that weight alone."""
    data = json.loads(resources.files("bots.search").joinpath("champion.json").read_text())
    learned = json.loads(resources.files("bots.search").joinpath("learned.json").read_text())
    assert data["trained"] == learned["trained"]
    assert data["derived"]["from"] == "learned.json" and data["derived"]["set"] == {"coins": 0.5}
    champion, fitted = load_weights(packaged="champion.json").as_dict(), load_weights(packaged="learned.json").as_dict()
    assert {name for name in champion if champion[name] != fitted[name]} == {"coins"}
    assert champion["coins"] == 0.5 and fitted["coins"] < 0.05
