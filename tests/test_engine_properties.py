"""Invariants of random legal play, checked after every move (hypothesis)."""
from __future__ import annotations

import random

from hypothesis import given, settings
from hypothesis import strategies as st

from protocol.cards import CARDS, PER_PLAYER, POINTS, shop_ids
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
