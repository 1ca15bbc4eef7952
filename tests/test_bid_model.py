"""The champion's bid model (bots/search/bids.py) and the C MCTS's
`passive` chances it feeds: an opponent's bids of 0 while it held a sure
attack are counted from the purses, and the tree then has that opponent
bid 0 as often."""

from __future__ import annotations

import pytest

from bots.champion import ChampionPolicy, parser, policy_from
from bots.search import core
from bots.search.bids import BidModel, holds_sure_attack
from bots.search.evaluation import load_weights
from protocol.engine import Game
from test_alphabeta import _cards, _state

WEIGHTS = load_weights()


def _ghost_day(their_coins: int = 3) -> Game:
    """Investing: we (0) hold a Worker, they (1) a Ghost, which beats it
    without fainting (a sure attack), and coins."""
    return _state({"name": "investing"}, [(2, 1, _cards("Worker")), (their_coins, 1, _cards("Ghost"))])


def _after_bids(game: Game, ours: int, theirs: int) -> Game:
    child = game.copy()
    child.play(0, ours)
    child.play(1, theirs)
    return child


def test_the_model_counts_bids_of_zero_while_the_opponent_held_a_sure_attack() -> None:
    model = BidModel()
    day = _ghost_day()
    assert holds_sure_attack(day, 1) and not holds_sure_attack(day, 0)
    assert model.chances(day, 0) == [0.0, 0.0]  # nothing seen, nothing assumed: their bids are searched
    model.observe(day, 0)
    model.observe(_after_bids(day, 0, 0), 0)  # they bid 0; we are at the buy now
    assert (model.zeros, model.steps) == ({1: 1}, {1: 1})
    assert model.chances(day, 0) == [0.0, 0.5]
    model.observe(day, 0)
    model.observe(_after_bids(day, 0, 0), 0)
    assert model.chances(day, 0) == [0.0, 2 / 3]
    model.observe(day, 0)
    later = _after_bids(day, 0, 2)  # they bid 2 and attack: our next step is to defend
    assert later.phase != day.phase and later.coins(1) == 1
    model.observe(later, 0)
    assert (model.zeros, model.steps) == ({1: 2}, {1: 3})
    assert model.chances(day, 0) == [0.0, 0.5]
    model.reset()
    assert model.chances(day, 0) == [0.0, 0.0]


def test_only_steps_where_the_opponent_held_a_sure_attack_count() -> None:
    model = BidModel()
    calm = _state({"name": "investing"}, [(2, 1, _cards("Worker")), (3, 1, _cards("Bubble"))])  # a Bubble never attacks
    guarded = _state({"name": "investing"}, [(2, 1, _cards("Bubble")), (3, 1, _cards("Ghost"))])  # a Ghost faints on it
    for game in (calm, guarded):
        assert not holds_sure_attack(game, 1)
        model.observe(game, 0)
        model.observe(_after_bids(game, 0, 0), 0)
    broke = _ghost_day(their_coins=0)  # nothing to bid with
    model.observe(broke, 0)
    model.observe(_after_bids(broke, 0, 0), 0)
    assert model.steps == {}
    # A step of another day does not read a bid: income changed the purses.
    day = _ghost_day()
    model.observe(day, 0)
    tomorrow = _after_bids(day, 0, 0)
    while tomorrow.days_played == day.days_played:
        tomorrow.play(tomorrow.pending()[0], tomorrow.legal_moves(tomorrow.pending()[0])[0])
    model.observe(tomorrow, 0)
    assert model.steps == {}


def _their_root_visits(searcher: core.Mcts, game: Game) -> dict[int, int]:
    _, _, stats = searcher.core.search(game, 1, 1)  # player 1's statistics at the same root (one more iteration)
    return {move: visits for move, visits, _ in stats}


def test_a_passive_opponent_bids_zero_in_the_tree() -> None:
    game = _ghost_day()
    modelled = core.Mcts(WEIGHTS, seed=2)
    modelled.search(game, 0, core.Budget(iterations=600), passive=[0.0, 1.0])
    visits = _their_root_visits(modelled, game)
    assert visits[0] > 100 and sum(visits.values()) - visits[0] <= 1  # (the search may stop once its move is decided)
    searched = core.Mcts(WEIGHTS, seed=2)
    searched.search(game, 0, core.Budget(iterations=600))
    visits = _their_root_visits(searched, game)
    assert sum(visits.values()) - visits[0] > 100  # without the model their bids are searched
    # Only where they hold a sure attack: against a Bubble their Ghost faints, and their bids are searched.
    guarded = _state({"name": "investing"}, [(2, 1, _cards("Bubble")), (3, 1, _cards("Ghost"))])
    modelled = core.Mcts(WEIGHTS, seed=2)
    modelled.search(guarded, 0, core.Budget(iterations=600), passive=[0.0, 1.0])
    visits = _their_root_visits(modelled, guarded)
    assert sum(visits.values()) - visits[0] > 100


@pytest.mark.parametrize("passive", [[0.0, 1.5], [0.0, -0.1], [0.0] * 5, ["x", 0.0], 3])
def test_bad_chances_are_refused(passive: object) -> None:
    with pytest.raises((ValueError, TypeError)):
        core.Mcts(WEIGHTS, seed=1).core.search(_ghost_day(), 0, 10, -1, -1, False, passive)


def test_the_champion_models_bids_unless_told_not_to() -> None:
    assert policy_from(parser().parse_args([])).bids is not None
    assert policy_from(parser().parse_args(["--no-bid-model"])).bids is None
    assert ChampionPolicy(search="alphabeta").bids is None  # alpha-beta solves its bids as matrix games
    champion = ChampionPolicy(seconds=0.02, seed=1)
    game = _ghost_day()
    champion.new_game(game, 0)
    champion(game, 0)
    champion(_after_bids(game, 0, 0), 0)
    assert champion.bids is not None and champion.bids.chances(game, 0) == [0.0, 0.5]


def _spy_on_search(monkeypatch: pytest.MonkeyPatch) -> list[tuple[list[float] | None, float]]:
    """What the champion passes its MCTS at each search: (passive, denied),
    whichever MCTS it searches with (it has one by number of players)."""
    search = core.Mcts.search
    passed: list[tuple[list[float] | None, float]] = []

    def spy(self: core.Mcts, game: Game, me: int, budget: core.Budget, passive: list[float] | None = None,
            denied: float = 1.0) -> core.Outcome:
        passed.append((passive, denied))
        return search(self, game, me, budget, passive, denied)

    monkeypatch.setattr(core.Mcts, "search", spy)
    return passed


def test_at_three_and_four_players_the_champion_searches_every_bid(monkeypatch: pytest.MonkeyPatch) -> None:
    # At 4 players against three `expert` the model cost a tenth of the
    # champion's score (docs/bots.md, "The bid model at 4 players").
    champion = ChampionPolicy(seconds=0.02, seed=1)
    passed = _spy_on_search(monkeypatch)
    for players in (2, 3, 4):
        game = Game(players)
        champion.new_game(game, 0)
        champion(game, 0)
    assert [passive for passive, _ in passed] == [[0.0, 0.0], None, None]


def _our_ghost_day(our_coins: int = 3, their_coins: int = 6) -> Game:
    """Investing: our (0) Ghost beats every defender of theirs (1), a
    Worker and a Senior Worker, without fainting (our sure attack)."""
    return _state({"name": "investing"},
                  [(our_coins, 1, _cards("Ghost", "Worker")), (their_coins, 1, _cards("Worker", "Senior Worker"))])


def test_the_model_counts_what_an_opponent_paid_to_stop_our_sure_attack() -> None:
    model = BidModel()
    day = _our_ghost_day()  # our purse: 3 coins
    assert holds_sure_attack(day, 0) and not holds_sure_attack(day, 1)
    assert model.denied(day, 0) == 0.5  # one half assumed until they have shown it
    model.observe(day, 0)
    model.observe(_after_bids(day, 0, 0), 0)  # they let us attack for nothing
    assert (model.paid, model.threatened) == ({1: 0.0}, {1: 1})
    assert model.denied(day, 0) == 0.25
    model.observe(day, 0)
    model.observe(_after_bids(day, 0, 1), 0)  # a coin: a third of our purse
    assert model.denied(day, 0) == pytest.approx((1 / 3 + 0.5) / 3)
    model.observe(day, 0)
    model.observe(_after_bids(day, 0, 5), 0)  # more than our purse counts as all of it
    assert model.denied(day, 0) == pytest.approx((4 / 3 + 0.5) / 4)
    # Only where they could match: a poorer opponent is not counted, nor a day
    # we hold no sure attack (their Bubble kills our Ghost), nor a day we have
    # no coin to bid.
    for game in (_our_ghost_day(their_coins=2), _our_ghost_day(our_coins=0),
                 _state({"name": "investing"}, [(3, 1, _cards("Ghost")), (6, 1, _cards("Bubble"))])):
        model.observe(game, 0)
        model.observe(_after_bids(game, 0, 0), 0)
    assert model.threatened == {1: 3}
    assert model.steps == {}  # their side: they never held a sure attack
    model.reset()
    assert model.denied(day, 0) == 0.5


def test_what_the_opponent_pays_to_stop_our_attack_prices_our_ghost_in_the_playouts() -> None:
    game = _our_ghost_day()

    def value(seed: int, denied: float, passive: list[float] | None = [0.0, 0.0]) -> float:
        return core.Mcts(WEIGHTS, seed=seed).search(game, 0, core.Budget(iterations=3000), passive, denied).value

    for seed in range(3):
        # Matched every day, our Ghost drains their purse: worth far more than unanswered.
        assert value(seed, 1.0) > value(seed, 0.0) + 0.15
        # Without the bid model nobody matches in the playouts, whatever `denied` says.
        assert value(seed, 1.0, None) == value(seed, 0.0, None)


@pytest.mark.parametrize("denied", [-0.1, 1.5, float("nan")])
def test_a_bad_denial_chance_is_refused(denied: float) -> None:
    with pytest.raises(ValueError, match="denied"):
        core.Mcts(WEIGHTS, seed=1).core.search(_our_ghost_day(), 0, 10, -1, -1, False, [0.0, 0.0], denied)


def test_the_champion_passes_what_it_saw_to_the_search(monkeypatch: pytest.MonkeyPatch) -> None:
    champion = ChampionPolicy(seconds=0.02, seed=1)
    passed = _spy_on_search(monkeypatch)
    day = _our_ghost_day()
    champion.new_game(day, 0)
    champion(day, 0)
    champion(_after_bids(day, 0, 0), 0)  # nobody bid: the buy, where the model reads that they did not pay
    champion(day, 0)
    assert passed[0][1] == 0.5 and passed[-1][1] == 0.25
