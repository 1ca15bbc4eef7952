"""The Economancy rules engine: the typed Python face of the C core.

Everything that plays or searches works on :class:`Game` and plain ints
(docs/architecture.md, "The engine contract"). The rules live in
``protocol/_engine.c``; this module adds what belongs to the wire: rebuilding
a game from a received state (:meth:`Game.from_wire`) and converting moves
(:func:`move_to_wire`, :func:`move_from_wire`).
"""
from __future__ import annotations

import protocol._engine as _engine  # the C core (protocol/_engine.c): no stubs, its Python face is this module
from common.defaults import MAX_DAYS
from protocol.cards import BASE, CARDS, NAME_TO_ID, NAMES, PASS, PASS_NAME, SIMPLE, STIPEND
from protocol.freshness import StaleEngineWarning, stale_message

_stale = stale_message(getattr(_engine, "__file__", None), getattr(_engine, "SOURCE_DIGEST", "?"))
if _stale is not None:  # a build older than its sources plays old rules unnoticed (protocol/freshness.py)
    import warnings

    warnings.warn(_stale, StaleEngineWarning, stacklevel=2)

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing: every bot imports this module
if TYPE_CHECKING:
    from typing import Any, Sequence

__all__ = [
    "Game",
    "IllegalMove",
    "INVESTING",
    "ATTACKING",
    "DEFENDING",
    "BUY",
    "END",
    "FAULT",
    "PASS",
    "PHASE_NAMES",
    "move_to_wire",
    "move_from_wire",
]

# Phases (ints, as Game.phase returns them), defined by the C core.
INVESTING: int = _engine.INVESTING  # 0
ATTACKING: int = _engine.ATTACKING  # 1: the attacker chooses a card, or 0 to stop
DEFENDING: int = _engine.DEFENDING  # 2: the next defender chooses a card
BUY: int = _engine.BUY  # 3
END: int = _engine.END  # 4
FAULT: int = _engine.FAULT  # 5
PHASE_NAMES = ("investing", "attacking", "defending", "buy", "end", "fault")

IllegalMove: type[ValueError] = _engine.IllegalMove
"""An illegal move (a ValueError); ``.reason`` is worded like the original's."""

_SIMPLE_NAMES = frozenset(NAMES[i] for i in SIMPLE)
_BASE_NAMES = frozenset(NAMES[i] for i in BASE)


if TYPE_CHECKING:

    class _Core:
        """Signatures of the C type protocol._engine.Game, for type checkers."""

        def __init__(self, n_players: int, base: bool = False, max_days: int = MAX_DAYS) -> None: ...
        n_players: int
        base: bool
        day: int
        phase: int
        max_days: int
        days_played: int
        attacker: int | None
        attacker_card: int | None
        winner: int | None
        fault: tuple[int, str] | None
        is_over: bool
        decisions: int
        def pending(self) -> tuple[int, ...]: ...
        def legal_moves(self, player: int) -> Sequence[int]: ...
        def play(self, player: int, move: int) -> None: ...
        def forfeit(self, player: int, reason: str) -> None: ...
        def copy(self) -> "Game": ...
        def key(self) -> bytes: ...
        def coins(self, p: int) -> int: ...
        def buys(self, p: int) -> int: ...
        def cards(self, p: int) -> tuple[tuple[int, int], ...]: ...
        def points(self, p: int) -> int: ...
        def alive(self, p: int) -> bool: ...
        def shop(self) -> dict[int, int]: ...
        def removed(self) -> dict[int, int]: ...
        def lost(self) -> dict[int, int]: ...
        def to_wire(self, player: int | None = None) -> dict[str, Any]: ...
        def playout(self, seed: int, policy: int | Sequence[int] = 0) -> int: ...
        def policy_move(self, player: int, seed: int, policy: int = 1,
                        aggression: Sequence[float] | None = None) -> int: ...
        @classmethod
        def _restore(cls, *fields: Any) -> "Game": ...

else:
    _Core = _engine.Game


class Game(_Core):
    """An Economancy game, always at a decision point or over.

    ``Game(n_players, base=False, max_days=100)`` starts on day 1 after income
    (3 coins, 1 buy each), phase INVESTING. Read-only properties: n_players,
    base, day, phase, max_days, days_played, attacker, attacker_card, winner,
    fault, is_over, decisions. Methods (all in C): pending(), legal_moves(p),
    play(p, move), forfeit(p, reason), copy(), key(), coins(p), buys(p),
    cards(p), points(p), alive(p), shop(), removed(), lost(), to_wire(player),
    playout(seed, policy), policy_move(p, seed, policy, aggression) (the move
    a built-in policy plays for pending player p, for tests and analysis;
    `aggression` as the champion's MCTS gives its playouts). The rules are
    documented on the contract (docs/architecture.md) and in
    protocol/_engine.c.

    ``key()`` encodes everything that decides the rest of the game (including
    hidden answers already given), not the removed()/lost() bookkeeping;
    ``==`` compares keys. ``copy()`` starts its own ``decisions`` count at 0
    (no move has been applied to the new object). ``playout`` also accepts
    a sequence with one policy per player. The policies: 0 random, 1 the
    light heuristic, 2 the finisher (the heuristic, buying a points card
    that wins at once whenever it can: the champion's playouts).

    Coins and investments are exact integers of any size, as in the original
    (Magic Bean Stock compounds a purse past 2**64 in long games). They cost
    nothing extra while they fit in 64 bits; beyond, the C core holds them as
    Python ints. ``playout``'s random policy then invests uniformly in
    0..coins as always, and its heuristic outbids the richest opponent by one
    coin (or, given an aggression, matches a threatening opponent's purse),
    exactly.
    """

    __slots__ = ()

    @staticmethod
    def from_wire(d: dict[str, Any], days_played: int = 0, max_days: int = MAX_DAYS) -> "Game":
        """Rebuild a Game from a received state (raises ValueError if malformed).

        The set (simple or base) comes from the shop's keys. The wire does not
        carry ``days_played`` or ``max_days``; bots that need them count days
        themselves. Hidden answers (investments, buys) are never on the wire:
        an INVESTING or BUY state is rebuilt with nobody having answered yet.

        A DEFENDING state does not say which cards the defenders asked before
        the receiving player chose. Players after it in index order who can
        defend are still to answer (exact). For an earlier player:
        - if one of its defending cards can still defend, it was asked;
          its choice is guessed as the used defending card (uses > 0) with
          the highest defense (then attack, then the leftmost), exact when it
          has only one; with none used (a referee that hides earlier choices,
          ``--fair``) the same rule picks among the cards it can defend with;
        - if it has no defending card in use, it was not asked (it is
          eliminated when the fight resolves);
        - otherwise (all its defending cards used up) we guess that it was
          asked if its defending cards' uses add up to at least the
          attacker's (it defended in every fight so far, this one included).
        Without a "player" key, nobody is taken to have answered yet.
        """
        return _from_wire(d, days_played, max_days)


def move_to_wire(game: Game, move: int) -> int | str:
    """The JSON value a player sends for an engine move (inside its array)."""
    if game.phase == BUY:
        return PASS_NAME if move == PASS else NAMES[move]
    return move


def move_from_wire(game: Game, value: Any) -> int:
    """The engine move for a value a player sent; IllegalMove for a wrong type
    or an unknown card name. Legality proper is left to :meth:`Game.play`."""
    phase = game.phase
    if phase in (INVESTING, ATTACKING, DEFENDING):
        if type(value) is int and value >= 0:  # bool and float are not moves
            return value
        raise IllegalMove(f"bad move: {_show(value)}")
    if phase == BUY:
        if not isinstance(value, str):
            raise IllegalMove(f"bad move: {_show(value)}")
        if value == PASS_NAME:
            return PASS
        card = NAME_TO_ID.get(value)
        if card is None:
            raise IllegalMove("unrecognized card name")
        return card
    raise IllegalMove("the game is over")


_SHOWN = 200  # characters of a bad move quoted in its reason


def _show(value: Any) -> str:
    # Only messages need the exact JSON helpers: importing them (and orjson)
    # with the engine would tax every process that only plays games.
    from protocol.exactjson import describe_int, dumps

    if type(value) is int:
        return describe_int(value)
    try:
        text = dumps(value).decode()
    except (TypeError, ValueError):
        text = repr(value)
    return text if len(text) <= _SHOWN else text[:_SHOWN] + "..."


# --------------------------------------------------------------------- from_wire


def _int(v: Any, what: str, lo: int = 0, hi: int | None = None) -> int:
    if type(v) is not int:
        raise ValueError(f"{what} must be an integer, not {_show(v)}")
    if v < lo or (hi is not None and v > hi):
        from protocol.exactjson import describe_int

        bound = f"{lo}..{hi}" if hi is not None else f">= {lo}"
        raise ValueError(f"{what} must be {bound}, not {describe_int(v)}")
    return v


def _dict(v: Any, what: str) -> dict[str, Any]:
    if not isinstance(v, dict):
        raise ValueError(f"{what} must be an object, not {type(v).__name__}")
    return v


def _list(v: Any, what: str) -> list[Any]:
    if not isinstance(v, list):
        raise ValueError(f"{what} must be an array, not {type(v).__name__}")
    return v


def _key(d: dict[str, Any], k: str, what: str) -> Any:
    if k not in d:
        raise ValueError(f"{what} lacks {k!r}")
    return d[k]


def _from_wire(d: Any, days_played: int, max_days: int) -> Game:
    d = _dict(d, "state")
    day = _int(_key(d, "day", "state"), "day", 1, 3)
    shop_d = _dict(_key(d, "shop", "state"), "shop")
    names = frozenset(shop_d)
    if names == _SIMPLE_NAMES:
        base = False
    elif names == _BASE_NAMES:
        base = True
    else:
        raise ValueError(f"shop must list exactly the simple or the base set, not {sorted(shop_d)}")
    ids = BASE if base else SIMPLE
    shop = tuple(_int(shop_d[NAMES[c]], f"shop count of {NAMES[c]}") for c in ids)

    players_l = _list(_key(d, "players", "state"), "players")
    if not 2 <= len(players_l) <= 4:
        raise ValueError(f"a game has 2 to 4 players, not {len(players_l)}")
    n = len(players_l)
    players = []
    for i, pd in enumerate(players_l):
        pd = _dict(pd, f"player {i}")
        coins = _int(_key(pd, "coins", f"player {i}"), f"player {i} coins")  # exact, of any size
        buys = _int(_key(pd, "buys", f"player {i}"), f"player {i} buys", 0, 2**30)
        cards = []
        for k, cd in enumerate(_list(_key(pd, "cards", f"player {i}"), f"player {i} cards")):
            cd = _dict(cd, f"player {i} card {k}")
            name = _key(cd, "name", f"player {i} card {k}")
            cid = NAME_TO_ID.get(name) if isinstance(name, str) else None
            if cid is None or (cid != STIPEND and cid not in ids):
                raise ValueError(f"player {i} card {k}: {name!r} is not a card of this game")
            uses = _int(_key(cd, "uses", f"player {i} card {k}"), f"player {i} card {k} uses", 0, 255)
            cards.append((cid, uses))
        players.append((coins, buys, tuple(cards)))

    me = d.get("player")
    if me is not None:
        me = _int(me, "player", 0, n - 1)

    phase_d = _dict(_key(d, "phase", "state"), "phase")
    pname = _key(phase_d, "name", "phase")
    attacker = attacker_card = winner = fault_player = next_def = -1
    fault_reason: str | None = None
    eligible = 0
    def_cards = [-1] * n
    if pname == "investing":
        phase = INVESTING
        if not any(p[2] for p in players):
            raise ValueError("investing state with nobody in the game")
    elif pname == "buy":
        phase = BUY
        if not any(p[1] > 0 and p[2] for p in players):
            raise ValueError("buy state where nobody has buys left")
    elif pname == "attacking":
        attacker = _int(_key(phase_d, "attacker", "phase"), "attacker", 0, n - 1)
        if not players[attacker][2]:
            raise ValueError(f"attacker {attacker} is out of the game")
        ac = _key(phase_d, "attacker_card", "phase")
        if ac is False:
            phase = ATTACKING
        else:
            phase = DEFENDING
            attacker_card = _int(ac, "attacker_card", 1, len(players[attacker][2]) - 1)
            next_def, eligible, def_cards = _infer_defenders(players, attacker, me)
    elif pname == "end":
        phase = END
        w = _key(phase_d, "winner", "phase")
        winner = -1 if w is False else _int(w, "winner", 0, n - 1)
    elif pname == "fault":
        phase = FAULT
        fault_player = _int(_key(phase_d, "forfiet", "phase"), "forfiet", 0, n - 1)
        fault_reason = _key(phase_d, "reason", "phase")
        if not isinstance(fault_reason, str):
            raise ValueError("fault reason must be a string")
    else:
        raise ValueError(f"unknown phase {pname!r}")
    _int(days_played, "days_played")
    _int(max_days, "max_days")
    return Game._restore(
        n, base, day, phase, max_days, days_played, shop, tuple(players), attacker,
        attacker_card, winner, fault_player, fault_reason, next_def, eligible, tuple(def_cards),
    )


def _can_defend(cards: tuple[tuple[int, int], ...]) -> bool:
    return any(CARDS[c].can_defend and u < CARDS[c].defends for c, u in cards)


def _infer_defenders(
    players: list[tuple[int, int, tuple[tuple[int, int], ...]]], attacker: int, me: int | None
) -> tuple[int, int, list[int]]:
    """(next defender, eligible mask, chosen card per player); see Game.from_wire."""
    n = len(players)
    eligible = 0
    chosen = [-1] * n
    attacks_so_far = sum(u for _, u in players[attacker][2])
    for j, (_, _, cards) in enumerate(players):
        if j == attacker or not cards:
            continue
        if me is not None and j < me:
            able = [k for k, (c, u) in enumerate(cards) if CARDS[c].can_defend and u < CARDS[c].defends]
            used = [k for k, (c, u) in enumerate(cards) if CARDS[c].can_defend and u > 0]
            if able or (used and sum(cards[k][1] for k in used) >= attacks_so_far):
                eligible |= 1 << j
                chosen[j] = max(used or able, key=lambda k: (CARDS[cards[k][0]].def_, CARDS[cards[k][0]].atk, -k))
        elif _can_defend(cards):
            eligible |= 1 << j
    if me is not None:
        if me == attacker or not (eligible >> me) & 1:
            raise ValueError(f"player {me} cannot be the defender asked in this state")
        return me, eligible, chosen
    for j in range(n):
        if (eligible >> j) & 1:
            return j, eligible, chosen
    raise ValueError("defending state where nobody can defend")
