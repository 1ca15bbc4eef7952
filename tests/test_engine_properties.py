"""Invariants of random legal play, checked after every move (hypothesis)."""
from __future__ import annotations

import random

import pytest

from hypothesis import given, settings
from hypothesis import strategies as st

from protocol.cards import CARDS, NAME_TO_ID, PER_PLAYER, POINTS, shop_ids
from protocol.engine import (
    ATTACKING,
    BUY,
    DEFENDING,
    END,
    INVESTING,
    Game,
)


def winner_rule(g: Game) -> int | None:
    """Section 7, restated independently of the engine."""
    alive = [p for p in range(g.n_players) if g.alive(p)]
    if len(alive) == 1:
        return alive[0]
    pts = [sum(POINTS[c] for c, _ in g.cards(p)) for p in range(g.n_players)]
    best = max(pts)
    if best >= 7 and pts.count(best) == 1:
        return pts.index(best)
    return None


def check_invariants(g: Game) -> None:
    n = g.n_players
    shop, removed, lost = g.shop(), g.removed(), g.lost()
    assert set(shop) == set(shop_ids(g.base))
    for p in range(n):
        assert g.coins(p) >= 0 and g.buys(p) >= 0
        assert g.points(p) == sum(POINTS[c] for c, _ in g.cards(p))
        if not g.alive(p):
            assert (g.coins(p), g.buys(p), g.cards(p)) == (0, 0, ())
        else:
            assert g.cards(p)[0][0] == 0  # the Stipend never leaves
    for c in shop:
        owned = sum(1 for p in range(n) for cid, _ in g.cards(p) if cid == c)
        assert shop[c] >= 0
        assert shop[c] + owned + removed[c] + lost[c] == PER_PLAYER[c] * n, c
    assert 1 <= g.day <= 3 and 0 <= g.days_played <= g.max_days
    assert (g.day - 1) == g.days_played % 3
    pending = g.pending()
    if g.is_over:
        assert pending == ()
    else:
        assert pending and list(pending) == sorted(pending)
        assert g.legal_moves(pending[0])
    if g.phase == END:
        assert g.winner == winner_rule(g)
        if g.days_played < g.max_days:
            assert g.winner is not None
    elif not g.is_over:
        assert winner_rule(g) is None  # checked after every fight and buy round
    if g.phase in (ATTACKING, DEFENDING):
        assert g.attacker is not None and g.alive(g.attacker)
    if g.phase == DEFENDING:
        assert g.attacker_card is not None and g.attacker not in pending


def exact_on_the_wire(g: Game) -> bool:
    """Whether the wire state says everything the engine knows: no hidden
    answer is pending, and no earlier defender's choice needs guessing."""
    if g.phase in (INVESTING, BUY):
        everyone = tuple(p for p in range(g.n_players) if g.alive(p) and (g.phase == INVESTING or g.buys(p) > 0))
        return g.pending() == everyone
    if g.phase == DEFENDING:
        # Exact when each earlier player has at most one defending card in use
        # and, if that card is used up, has no other (see Game.from_wire).
        for j in range(g.pending()[0]):
            if j == g.attacker:
                continue
            defenders = [(c, u) for c, u in g.cards(j) if CARDS[c].can_defend]
            used = [(c, u) for c, u in defenders if u > 0]
            if len(used) > 1 or (used and all(u >= CARDS[c].defends for c, u in defenders)):
                return False
    return True


def check_wire_roundtrip(g: Game) -> None:
    me = g.pending()[0] if g.pending() else None
    w = g.to_wire(me)
    back = Game.from_wire(w, days_played=g.days_played, max_days=g.max_days)
    assert back.to_wire(me) == w
    if exact_on_the_wire(g):
        assert back.key() == g.key() and back == g


def random_play(seed: int, n: int, base: bool, max_days: int, *, deep: bool) -> Game:
    rng = random.Random(seed)
    g = Game(n, base=base, max_days=max_days)
    check_invariants(g)
    steps = 0
    while not g.is_over:
        p = rng.choice(g.pending())
        moves = g.legal_moves(p)
        if deep and rng.random() < 0.05:
            c = g.copy()
            assert c == g and c.key() == g.key() and c.to_wire() == g.to_wire()
            before = g.key()
            c.play(p, rng.choice(moves))
            assert g.key() == before  # the copy is independent
        g.play(p, rng.choice(moves))
        steps += 1
        check_invariants(g)
        if deep:
            check_wire_roundtrip(g)
        assert steps < 100_000
    return g


game_params = dict(
    seed=st.integers(0, 2**32),
    n=st.integers(2, 4),
    base=st.booleans(),
    max_days=st.one_of(st.integers(0, 8), st.just(100)),
)


@settings(max_examples=150, deadline=None)
@given(**game_params)
def test_random_play_keeps_invariants(seed: int, n: int, base: bool, max_days: int) -> None:
    g = random_play(seed, n, base, max_days, deep=True)
    assert g.days_played <= max_days


@settings(max_examples=100, deadline=None)
@given(**game_params, policy=st.sampled_from([0, 1]))
def test_playout_is_deterministic_and_ends_legally(seed: int, n: int, base: bool, max_days: int, policy: int) -> None:
    g = Game(n, base=base, max_days=max_days)
    a, b = g.copy(), g.copy()
    ra, rb = a.playout(seed, policy), b.playout(seed, policy)
    assert ra == rb and a.key() == b.key() and a.decisions == b.decisions
    assert a.phase == END and (a.winner if a.winner is not None else -1) == ra
    check_invariants(a)
    assert g.phase == (INVESTING if max_days else END) and g.decisions == 0  # copies are independent


def test_playout_from_the_middle_of_a_game() -> None:
    rng = random.Random(7)
    for seed in range(200):
        g = Game(3, base=seed % 2 == 1)
        for _ in range(rng.randrange(40)):
            if g.is_over:
                break
            p = g.pending()[0]
            g.play(p, rng.choice(g.legal_moves(p)))
        r = g.playout(seed)
        check_invariants(g)
        assert g.is_over and r == (g.winner if g.winner is not None else -1)


def test_playout_many_seeds_keep_invariants() -> None:
    for seed in range(3000):
        g = Game(2 + seed % 3, base=seed % 2 == 0, max_days=1 + seed % 40)
        g.playout(seed, seed % 5 == 0)
        check_invariants(g)


def test_heuristic_policy_beats_random() -> None:
    games = 600
    wins = sum(Game(2, base=s % 2 == 0).playout(s, [1, 0] if s % 4 < 2 else [0, 1]) == (0 if s % 4 < 2 else 1) for s in range(games))
    assert wins > 0.8 * games


def _two_players(day: int, phase: str, mine: list[str], my_coins: int, theirs: list[str], their_coins: int) -> Game:
    """A 2-player simple-set position: seat 0 holding `mine` and seat 1
    `theirs` (beside their Stipends), 2 of every card in the shop."""
    def player(cards: list[str], coins: int) -> dict[str, object]:
        return {"coins": coins, "buys": 1,
                "cards": [{"name": name, "uses": 0} for name in ["Sorcerer's Stipend", *cards]]}

    shop = {name: 2 for name in ("Board of Monopoly", "Incantation", "Worker", "Magic Bean Stock", "Bubble", "Ghost",
                                 "Senior Worker", "Gold Fish")}
    return Game.from_wire({"day": day, "phase": {"name": phase}, "shop": shop,
                           "players": [player(mine, my_coins), player(theirs, their_coins)]})


def _investing(mine: list[str], my_coins: int, theirs: list[str], their_coins: int) -> Game:
    """Day 1's investing."""
    return _two_players(1, "investing", mine, my_coins, theirs, their_coins)


AGGRESSIVE = (1.0, 1.0)


def _heuristic_bids(game: Game, player: int, seeds: int = 64, aggression: tuple[float, ...] | None = None) -> list[int]:
    return [game.policy_move(player, seed, aggression=aggression) for seed in range(seeds)]


def _usual_bid(game: Game, player: int, aggression: tuple[float, ...] | None = None) -> int:
    """The heuristic's bid here, seen past its one move in 16 at random."""
    bids = _heuristic_bids(game, player, aggression=aggression)
    most = max(set(bids), key=bids.count)
    assert bids.count(most) > len(bids) * 3 // 4, bids
    return most


def test_the_heuristic_outbids_with_a_sure_attack_and_denies_one_it_faces_if_told() -> None:
    """A Ghost against Workers (none of which kills it) is a sure attack:
    its holder outbids a poorer opponent by one coin. Given each player's
    aggression (its chance of bidding for a sure attack), the Workers'
    holder matches the purse of the Ghost's holder with that chance when it
    can (a shared highest bid: nobody attacks), and bids nothing when it
    cannot, or when nothing threatens it; without it, it never denies. A
    threat is counted: Ghosts that outnumber the cards killing them (each
    trades with one) still threaten."""
    assert _usual_bid(_investing(["Worker"], 5, ["Ghost"], 7), 1) == 6
    assert _usual_bid(_investing(["Worker"], 5, ["Ghost"], 4), 0) == 0
    assert _usual_bid(_investing(["Worker"], 5, ["Ghost"], 4), 0, AGGRESSIVE) == 4
    assert _usual_bid(_investing(["Worker"], 5, ["Ghost"], 5), 0, AGGRESSIVE) == 5
    assert _usual_bid(_investing(["Worker"], 5, ["Ghost"], 7), 0, AGGRESSIVE) == 0  # cannot match 7
    assert _usual_bid(_investing(["Worker", "Bubble"], 5, ["Ghost"], 4), 0, AGGRESSIVE) == 0  # a Bubble kills a Ghost
    assert _usual_bid(_investing(["Worker"], 5, ["Worker"], 4), 0, AGGRESSIVE) == 0
    assert _usual_bid(_investing(["Worker"], 5, ["Ghost"], 4), 0, (1.0, 0.0)) == 0  # seat 1 never bids
    # A Ghost of ours trades with one of theirs: two of theirs still get through, one does not.
    assert _usual_bid(_investing(["Worker", "Ghost"], 5, ["Ghost", "Ghost"], 4), 0, AGGRESSIVE) == 4
    assert _usual_bid(_investing(["Worker", "Ghost"], 5, ["Ghost"], 4), 0, AGGRESSIVE) == 0
    assert _usual_bid(_investing(["Worker", "Bubble", "Ghost"], 5, ["Ghost", "Ghost"], 4), 0, AGGRESSIVE) == 0
    # With seat 1's aggression at 1/2, about half the heuristic bids match.
    half = _heuristic_bids(_investing(["Worker"], 5, ["Ghost"], 4), 0, seeds=400, aggression=(1.0, 0.5))
    assert 120 < half.count(4) < 260, half.count(4)
    # Exact past 64 bits, both ways.
    huge = 3 ** 50
    assert _usual_bid(_investing(["Worker"], huge, ["Ghost"], huge - 1), 0, AGGRESSIVE) == huge - 1
    assert _usual_bid(_investing(["Worker"], huge, ["Ghost"], huge + 5), 1) == huge + 1


def _buying(mine: list[str], my_coins: int, theirs: list[str], their_coins: int = 0) -> Game:
    """Day 2's buy."""
    return _two_players(2, "buy", mine, my_coins, theirs, their_coins)


def test_the_heuristic_plays_one_move_in_explore_at_random() -> None:
    """`explore` (the champion's --playout-noise): one move in `explore` is
    uniformly random, 16 by default, 0 never; the rest is the heuristic's
    own move. A buy with 9 coins has 9 candidates; the heuristic's is an
    Incantation."""
    game = _buying(["Worker"], 9, ["Worker"])
    incantation = NAME_TO_ID["Incantation"]

    def others(explore: int | None, seeds: int = 2000) -> int:
        extra = {} if explore is None else {"explore": explore}
        return sum(game.policy_move(0, seed, **extra) != incantation for seed in range(seeds))

    assert others(0) == 0
    assert others(None) == others(16)
    # A random move is another card 8 times in 9: 2000 * 8/9 / 16 = 111 by default, 28 at 64, 1778 at 1.
    assert 70 < others(16) < 160, others(16)
    assert 10 < others(64) < 50, others(64)
    assert others(1) > 1600
    with pytest.raises(ValueError, match="explore must be 0"):
        game.policy_move(0, 1, explore=-1)


def test_the_finisher_buys_the_points_that_win_at_once_and_is_the_heuristic_otherwise() -> None:
    """Policy 2 (the champion's playouts) takes a buy that brings its player
    to 7 points and strictly more than anyone, every time (no move at
    random there); the heuristic, with 6 points and 2 coins, buys a Senior
    Worker before a Board of Monopoly. Where no buy wins at once (a Board
    only ties 7 with 7, or the points are out of reach), the finisher plays
    exactly as the heuristic, seed for seed."""
    board, incantation = NAME_TO_ID["Board of Monopoly"], NAME_TO_ID["Incantation"]
    six = ["Incantation", "Incantation"]
    wins = _buying(six, 2, ["Worker"])
    assert {wins.policy_move(0, seed, policy=2) for seed in range(64)} == {board}
    heuristic = [wins.policy_move(0, seed, policy=1) for seed in range(64)]
    assert max(set(heuristic), key=heuristic.count) == NAME_TO_ID["Senior Worker"]
    # The cheapest card that wins: with 4 coins a Board (2) rather than an Incantation (4).
    assert {_buying(six, 4, ["Worker"]).policy_move(0, seed, policy=2) for seed in range(64)} == {board}
    # 4 points need an Incantation to reach 7.
    assert {_buying(["Incantation", "Board of Monopoly"], 4, []).policy_move(0, seed, policy=2)
            for seed in range(64)} == {incantation}
    for game in (_buying(six, 2, ["Incantation", "Incantation", "Board of Monopoly"]),  # 7 would tie 7
                 _buying(six, 1, ["Worker"]),  # a Board costs 2
                 _buying(["Incantation"], 9, ["Worker"])):  # 6 at most
        assert [game.policy_move(0, seed, policy=2) for seed in range(64)] == \
            [game.policy_move(0, seed, policy=1) for seed in range(64)]


def test_a_policy_move_is_asked_of_a_pending_player_only() -> None:
    game = Game(2)
    assert game.policy_move(0, 1) in game.legal_moves(0)
    assert game.policy_move(1, 1, policy=0) in game.legal_moves(1)
    assert game.policy_move(0, 1, policy=2) in game.legal_moves(0)
    with pytest.raises(ValueError, match="policy must be 0, 1 or 2, not 3"):
        game.policy_move(0, 1, policy=3)
    with pytest.raises(ValueError, match="policy must be 0, 1 or 2, not -1"):
        game.copy().playout(1, -1)
    with pytest.raises(ValueError, match="policy must be 0, 1 or 2, not 3"):
        game.copy().playout(1, [1, 3])
    with pytest.raises(ValueError, match="aggression needs 2 entries"):
        game.policy_move(0, 1, aggression=[1.0])
    with pytest.raises(ValueError, match="between 0 and 1"):
        game.policy_move(0, 1, aggression=[1.0, 2.0])
    game.play(0, 0)  # seat 1 still to invest, seat 0 answered
    with pytest.raises(ValueError, match="player 0 is not to move"):
        game.policy_move(0, 1)
    assert game.policy_move(1, 1) in game.legal_moves(1)


def test_random_policy_is_fair_between_seats() -> None:
    results = [Game(2).playout(s) for s in range(4000)]
    assert abs(results.count(0) - results.count(1)) < 300
    assert results.count(-1) < 100


def test_decisions_count_applied_moves() -> None:
    g = Game(2)
    g.play(0, 0)
    g.play(1, 1)
    assert g.decisions == 2
    assert g.copy().decisions == 0
    n = g.decisions
    g.playout(3)
    assert g.decisions > n
