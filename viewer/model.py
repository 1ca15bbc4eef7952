"""The replay's view model: trace lines in, the steps a person steps through out.

A trace (section 6 of ECONOMANCY.md) is states sent to players, their
answers and a final state. A person does not think in lines: they think
"everyone invested, seat 1 attacks", "Ghost hit Worker and Worker
fainted", "both wanted the last Golem, nobody got it". This module reads
the lines once and writes down, for every step, what the table shows and
what just happened, so the page only draws (the renderer never applies a
rule) and every derivation here is unit-tested.

Steps, in order, each with the state to draw (an index into `states`):
- ``ask``: a state sent to one seat and that seat's answer (a decision);
- ``reveal``: the end of a simultaneous round (investments or buys): every
  answer shown together with its consequence (the attacker; who got which
  card, and the contested cards nobody got);
- ``fight``: one attack resolved: the attacking card against each
  defending card, who fainted, who was eliminated;
- ``end`` / ``fault`` / ``aborted`` / ``cut``: how the game stopped (a
  winner or a draw; a forfeit; a game cut off when its referee was
  stopped; a trace that simply stops).

A decision of a stored game also carries ``t``, the seconds its answer
took, or ``o: 1`` when it was an opening move the referee played (from the
store's answer times); ``m.timeout`` marks the referee's "timeout" line.

Everything a bot wrote (answers, reasons, names, standard error) is kept
as text, bounded; the page escapes it. Integers beyond what a JavaScript
number holds exactly (Magic Bean Stock compounds past 2**62) are written
as decimal strings.
"""

from __future__ import annotations

import json
import math
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any, TypeGuard

import orjson

from common.text import printable
from protocol.cards import CARDS, NAME_TO_ID, PASS_NAME

__all__ = [
    "TraceError",
    "Replay",
    "GameView",
    "build_replay",
    "parse_lines",
    "card_table",
    "visible",
    "MAX_TEXT",
]

MAX_TEXT = 300  # characters of an answer or a card name kept
MAX_REASON = 2000  # characters of a fault or abort reason kept
MAX_NAME = 80  # characters of a player name kept
MAX_STDERR = 20000  # characters of a bot's standard error kept (its end)
_JS_SAFE = 2**53 - 1  # largest integer a JavaScript number holds exactly
POINTS_TO_WIN = 7

_INCOME_TEXT = {
    "Sorcerer's Stipend": "Day 1: +2 coins; days 2, 3: +1 coin. Never sold.",
    "Board of Monopoly": "1 point.",
    "Incantation": "3 points.",
    "Worker": "Days 2 and 3: +1 coin.",
    "Magic Bean Stock": "Every day: +1 coin per 3 coins held.",
    "Bubble": "Cannot attack; its attack 9 counts when it defends.",
    "Ghost": "Day 3: +1 coin.",
    "Senior Worker": "Every day: +1 coin.",
    "Gold Fish": "Day 3: +4 coins.",
    "Wall of Wealth": "Day 1: +1 coin. May defend twice per attack phase.",
    "Apprentice": "Days 1 and 2: +1 coin; day 3: +1 buy.",
    "Thug": "Day 2: +1 coin.",
    "Shield of Greed": "Each time it defends, its owner gains 1 coin.",
    "Golem": "No income.",
}


class TraceError(ValueError):
    """A trace the viewer cannot read; the message names the line."""


def card_table() -> list[dict[str, Any]]:
    """The known cards as the renderer reads them (index = card id)."""
    return [
        {
            "name": c.name,
            "cost": c.cost,
            "atk": c.atk,
            "def": c.def_,
            "points": c.points,
            "attacks": c.attacks,
            "defends": c.defends,
            "text": _INCOME_TEXT.get(c.name, ""),
        }
        for c in CARDS
    ]


def _num(x: int) -> int | str:
    return x if -_JS_SAFE <= x <= _JS_SAFE else str(x)


def _float(x: int) -> float:
    return float(x) if abs(x) < 10**300 else math.copysign(1e300, x)


def _text(value: str, limit: int = MAX_TEXT) -> str:
    return value if len(value) <= limit else value[:limit] + "\u2026"


# --------------------------------------------------------------- parsing


@dataclass
class _Line:
    number: int  # 1-based line number in the input
    value: Any
    raw: bytes = b""

    def exact(self) -> "_Line":
        """Read again with exact integers: orjson reads an integer past 64 bits
        as a float, which only a purse compounded by Magic Bean Stock (or a
        bot's answer) holds; the standard library keeps it exact."""
        self.value = json.loads(self.raw)
        return self


def parse_lines(data: bytes | str | Iterable[bytes | str]) -> list[_Line]:
    """Decode a trace (bytes, text, or an iterable of lines) into JSON values;
    blank lines are skipped, a line that is not JSON is a TraceError."""
    out, bad = _parse(data)
    if bad is not None:
        raise bad
    return out


def _parse(data: bytes | str | Iterable[bytes | str]) -> tuple[list[_Line], TraceError | None]:
    """The lines up to the first that is not JSON, and that line's error
    (None: every line read). A trace copied while it was written ends
    mid-line: the caller shows what came before and says it is cut."""
    # A line cut while it was written has no line break after it; a whole
    # line that is not JSON (it has one) is an error wherever it is.
    if isinstance(data, bytes):
        open_end = not data.endswith(b"\n")
    else:
        open_end = not data.endswith("\n") if isinstance(data, str) else True
    lines: Iterator[bytes | str] = iter(data.splitlines() if isinstance(data, (bytes, str)) else data)
    out = []
    for number, line in enumerate(lines, 1):
        if not line.strip():
            continue
        try:
            text = line.encode() if isinstance(line, str) else line
            try:
                value = orjson.loads(text)
            except orjson.JSONDecodeError:
                value = json.loads(text)  # what orjson refuses but JSON allows (huge integers)
            out.append(_Line(number, value, text))
        except (orjson.JSONDecodeError, ValueError) as e:
            snippet = printable(line if isinstance(line, str) else line.decode("utf-8", "replace"))
            error = TraceError(f"line {number}: not JSON ({getattr(e, 'msg', e)}): {_text(snippet, 80)}")
            error.line = number  # type: ignore[attr-defined]
            error.last = open_end and not any(rest.strip() for rest in lines)  # type: ignore[attr-defined]
            return out, error
    return out, None


def _has_float(v: Any) -> bool:
    if type(v) is float:
        return True
    if type(v) is list:
        return any(_has_float(x) for x in v)
    if type(v) is dict:
        return any(_has_float(x) for x in v.values())
    return False


def _answer_text(value: Any) -> str:
    try:
        return orjson.dumps(value).decode()
    except TypeError:  # an integer past 64 bits
        return _dumps(value)


def _dumps(value: Any) -> str:
    """Compact JSON with exact integers of any size (orjson stops at 64 bits)."""
    return json.dumps(value, separators=(",", ":"), sort_keys=True, ensure_ascii=False)


def visible(text: str) -> str:
    """Bot text as a page may show it (before its HTML escaping): control,
    bidi and invisible characters as \\xNN or \\uNNNN, so it cannot hide
    itself or reorder a line; `common.text.printable`, the one escaping of
    bot text for a person (the page's renderer does the same in JavaScript)."""
    return printable(text)


def _is_state(v: Any) -> TypeGuard[dict[str, Any]]:
    return isinstance(v, dict) and "phase" in v and "players" in v


def _is_meta(v: Any) -> bool:
    return isinstance(v, dict) and "meta" in v and "phase" not in v


# ------------------------------------------------------------ the model


@dataclass
class _Cards:
    """Card names to indexes of the page's card table; unknown names (a
    foreign or hostile trace) are appended with no rules attached."""

    table: list[dict[str, Any]] = field(default_factory=card_table)
    index: dict[str, int] = field(default_factory=lambda: dict(NAME_TO_ID))

    def of(self, name: Any, number: int) -> int:
        if not isinstance(name, str):
            raise TraceError(f"line {number}: a card name is not a string: {_text(repr(name), 60)}")
        i = self.index.get(name)
        if i is None:
            i = len(self.table)
            self.table.append({"name": _text(name, 60), "cost": None, "atk": None, "def": None,
                               "points": 0, "attacks": 0, "defends": 0, "text": "Unknown card."})
            self.index[name] = i
        return i


@dataclass
class _State:
    """One state decoded and checked: what the steps refer to."""

    day: int
    phase: dict[str, Any]
    players: list[tuple[int, int, list[tuple[int, int]]]]  # coins, buys, [(card, uses)]
    shop: dict[int, int]
    player: int | None
    line: int

    def alive(self, p: int) -> bool:
        return bool(self.players[p][2])

    def points(self, cards: _Cards, p: int) -> int:
        return sum(cards.table[c]["points"] for c, _ in self.players[p][2])

    def key(self) -> tuple[Any, ...]:
        """Everything drawn, hashable: equal keys are the same picture (computed once)."""
        k = self.__dict__.get("_key")
        if k is None:
            phase: Any = tuple(sorted(self.phase.items()))
            try:
                hash(phase)
            except TypeError:  # a list or object inside the phase (a foreign trace)
                phase = _dumps(self.phase)
            k = self.__dict__["_key"] = (
                self.day, phase,
                tuple((c, b, tuple(cs)) for c, b, cs in self.players), tuple(sorted(self.shop.items())))
        return k


def _int(v: Any, what: str, number: int) -> int:
    if type(v) is float:
        raise _Inexact
    if type(v) is not int:
        raise TraceError(f"line {number}: {what} is not an integer: {_text(repr(v), 60)}")
    return v


class _Inexact(Exception):
    """A number read as a float: the line must be read again exactly."""


def _state_of(line: _Line, cards: _Cards) -> _State:
    try:
        return _decode_state(line.value, line.number, cards)
    except _Inexact:
        return _decode_state(line.exact().value, line.number, cards)


def _decode_state(v: dict[str, Any], number: int, cards: _Cards) -> _State:
    try:
        day = _int(v["day"], "day", number)
        phase = v["phase"]
        if not isinstance(phase, dict) or not isinstance(phase.get("name"), str):
            raise TraceError(f"line {number}: phase has no name")
        players: list[tuple[int, int, list[tuple[int, int]]]] = []
        if not isinstance(v["players"], list) or not 1 <= len(v["players"]) <= 8:
            raise TraceError(f"line {number}: players is not a list of 1 to 8 players")
        index = cards.index
        for p in v["players"]:
            hand = [(index[c["name"]] if type(c["name"]) is str and c["name"] in index
                     else cards.of(c["name"], number), c["uses"]) for c in p["cards"]]
            if any(type(u) is not int for _, u in hand):
                raise TraceError(f"line {number}: a card's uses is not an integer")
            players.append((_int(p["coins"], "coins", number), _int(p["buys"], "buys", number), hand))
        if not isinstance(v["shop"], dict):
            raise TraceError(f"line {number}: shop is not an object")
        shop = {cards.of(k, number): _int(n, "a shop count", number) for k, n in v["shop"].items()}
        player = v.get("player")
        if player is not None and (type(player) is not int or not 0 <= player < len(players)):
            raise TraceError(f"line {number}: player {_text(repr(player), 20)} is not a seat")
    except (KeyError, TypeError) as e:
        raise TraceError(f"line {number}: not a game state (missing or wrong {e})") from None
    clean = {k: (_text(x, MAX_REASON) if isinstance(x, str) else _num(x) if type(x) is int else x)
             for k, x in phase.items()}
    return _State(day, clean, players, shop, player, number)


@dataclass
class GameView:
    """One game of the trace, as the page draws it."""

    names: list[str]
    states: list[dict[str, Any]] = field(default_factory=list)
    steps: list[dict[str, Any]] = field(default_factory=list)
    shop: list[int] = field(default_factory=list)  # card indexes in display order
    chart: dict[str, Any] = field(default_factory=dict)
    result: dict[str, Any] = field(default_factory=dict)
    first_line: int = 0

    def to_json(self) -> dict[str, Any]:
        return {"names": self.names, "shop": self.shop, "states": self.states, "steps": self.steps,
                "chart": self.chart, "result": self.result, "line": self.first_line}


@dataclass
class Replay:
    """Every game of one trace (the original's tournament stream holds several)."""

    games: list[GameView]
    cards: list[dict[str, Any]]
    title: str = "Economancy replay"

    def to_json(self) -> dict[str, Any]:
        return {"title": self.title, "cards": self.cards, "games": [g.to_json() for g in self.games]}


class _Builder:
    """Walks one game's lines and writes its steps."""

    def __init__(self, cards: _Cards, names: Sequence[str]) -> None:
        self.cards = cards
        self.names = list(names)
        self.game: GameView | None = None
        self.state_ids: dict[tuple[Any, ...], int] = {}
        self.abs_day = 0
        self.last_day: int | None = None
        self.round = -1
        self.round_kind = ""
        self.round_key: tuple[Any, ...] | None = None
        self.round_answers: list[tuple[int, Any, str]] = []  # seat, decoded move, text
        self.round_state: _State | None = None
        self.attack: dict[str, Any] | None = None  # the attack being answered
        self.attack_state: _State | None = None
        self.chart_days: list[int] = []
        self.chart_coins: list[list[float]] = []
        self.chart_points: list[list[int]] = []
        self.timed_out = False  # the decision being read ran out of time

    # states ---------------------------------------------------------

    def _start(self, first: _State) -> None:
        n = len(first.players)
        names = [_text(str(x), MAX_NAME) for x in self.names[:n]]
        names += [f"Seat {i}" for i in range(len(names), n)]
        shop = sorted(first.shop, key=lambda c: (self.cards.table[c]["cost"] is None,
                                                 self.cards.table[c]["cost"] or 0, c))
        self.game = GameView(names, shop=shop, first_line=first.line)
        self.chart_coins = [[] for _ in range(n)]
        self.chart_points = [[] for _ in range(n)]

    def _state_id(self, s: _State, final: bool = False) -> int:
        assert self.game is not None
        if not final and s.day != self.last_day:
            self.abs_day += 1
            self.last_day = s.day
            self.chart_days.append(self.abs_day)
            for p in range(len(s.players)):
                self.chart_coins[p].append(_float(s.players[p][0]))
                self.chart_points[p].append(s.points(self.cards, p))
        key = s.key()
        i = self.state_ids.get(key)
        if i is None:
            i = len(self.game.states)
            self.state_ids[key] = i
            shop_counts = [_num(s.shop.get(c, 0)) for c in self.game.shop]
            self.game.states.append({
                "day": s.day,
                "D": max(self.abs_day, 1),
                "phase": s.phase,
                "shop": shop_counts,
                "players": [[_num(c), _num(b), [x for card in hand for x in card]] for c, b, hand in s.players],
            })
        return i

    def _step(self, kind: str, s: _State, **extra: Any) -> dict[str, Any]:
        assert self.game is not None
        step = {"k": kind, "s": self._state_id(s, final=s.player is None), "D": max(self.abs_day, 1),
                "r": self.round, "ln": s.line, **extra}
        self.game.steps.append(step)
        return step

    def _new_round(self, kind: str) -> None:
        self.round += 1
        self.round_kind = kind
        self.round_answers = []

    # decisions -------------------------------------------------------

    def ask(self, s: _State, answer: _Line | None, following: _State | None,
            took: float | None | bool = False) -> None:
        """A state sent to one seat, its answer (None: none came), and the
        next state (None: the trace stops), which tells what it led to.
        `took`: the answer's seconds, None for an opening move the referee
        played, False when unknown."""
        if self.game is None:
            self._start(s)
        seat = s.player
        assert seat is not None
        name = s.phase.get("name")
        text = _text(_answer_text(answer.value)) if answer is not None else None
        move = answer.value[0] if answer is not None and isinstance(answer.value, list) and len(answer.value) == 1 \
            else None
        extra: dict[str, Any] = {"p": seat, "a": text}
        if took is None:
            extra["o"] = 1  # the opening's move: the referee played it, not the bot
        elif took is not False and isinstance(took, (int, float)) and math.isfinite(took) and took >= 0:
            extra["t"] = round(float(took), 3)
        faulted = following is not None and following.player is None and following.phase.get("name") == "fault" \
            and following.phase.get("forfiet") == seat
        self.timed_out = faulted and answer is not None and answer.value == "timeout" \
            and str(following.phase.get("reason", "")).startswith("timeout")  # type: ignore[union-attr]
        if name in ("investing", "buy"):
            key = s.key()
            if self.round_kind != name or key != self.round_key or any(q >= seat for q, _, _ in self.round_answers):
                self._new_round(name)
                self.round_key = key
                self.round_state = s
            extra["m"] = self._meaning(name, move, s, seat, faulted)
            extra["sealed"] = [q for q, _, _ in self.round_answers]
            self._step("ask", s, **extra)
            self.round_answers.append((seat, move, text or ""))
            if following is not None and not self._same_round(s, following, seat):
                if following.phase.get("name") != "fault":
                    self._reveal(name, following)
            return
        if name == "attacking":
            attacker = s.phase.get("attacker")
            if s.phase.get("attacker_card") is False and seat == attacker:
                self._new_round("attack")
                extra["m"] = self._meaning("attacking", move, s, seat, faulted)
                self._step("ask", s, **extra)
                if type(move) is int and move != 0 and 0 <= move < len(s.players[seat][2]):
                    self.attack = {"attacker": seat, "i": move, "c": s.players[seat][2][move][0], "defs": []}
                    self.attack_state = s
                    self._maybe_fight(following)
                return
            extra["m"] = self._meaning("defending", move, s, seat, faulted)
            self._step("ask", s, **extra)
            if self.attack is not None and type(move) is int and 0 <= move < len(s.players[seat][2]):
                self.attack["defs"].append({"p": seat, "i": move, "c": s.players[seat][2][move][0]})
                self._maybe_fight(following)
            return
        # An unknown phase with a seat asked: show it as a plain decision.
        self._step("ask", s, **extra, m={"bad": True} if faulted else {})

    def _same_round(self, s: _State, following: _State, seat: int) -> bool:
        return following.player is not None and following.player > seat and following.key() == s.key()

    def _meaning(self, phase: str, move: Any, s: _State, seat: int, faulted: bool) -> dict[str, Any]:
        """What the answer says in words the page can draw, with "bad" when
        the referee refused it (the fault that follows says why) or it is
        not even shaped like a move."""
        m = self._move(phase, move, s, seat)
        if faulted:
            m["bad"] = True
            if self.timed_out:  # the referee's "timeout" line, not the bot's words
                m["timeout"] = True
        return m

    def _move(self, phase: str, move: Any, s: _State, seat: int) -> dict[str, Any]:
        if phase == "investing":
            return {"invest": _num(move)} if type(move) is int else {"bad": True}
        if phase == "buy":
            if move == PASS_NAME:
                return {"pass": True}
            if isinstance(move, str) and move in self.cards.index:
                return {"buy": self.cards.index[move]}
            return {"bad": True}
        hand = s.players[seat][2]
        if type(move) is not int or not 0 <= move < len(hand):
            return {"bad": True}
        if phase == "attacking" and move == 0:
            return {"stop": True}
        return {"card": move, "c": hand[move][0]}

    def _reveal(self, kind: str, after: _State) -> None:
        assert self.round_state is not None
        before = self.round_state
        answers = self.round_answers
        if kind == "investing":
            amounts = [[q, _num(m)] for q, m, _ in answers if type(m) is int]
            ints = [(m, q) for q, m, _ in answers if type(m) is int]
            top = max((m for m, _ in ints), default=None)
            leaders = [q for m, q in ints if m == top]
            attacker = leaders[0] if len(leaders) == 1 else None
            event = {"type": "invest", "amounts": amounts, "attacker": attacker,
                     "attacks": after.phase.get("name") == "attacking"}
        else:
            wanted: dict[int, list[int]] = {}
            choices = []
            for q, m, text in answers:
                c = self.cards.index.get(m) if isinstance(m, str) and m != PASS_NAME else None
                choices.append([q, c])
                if c is not None:
                    wanted.setdefault(c, []).append(q)
            got = {c: before.shop.get(c, 0) >= len(qs) for c, qs in wanted.items()}
            event = {"type": "buy", "choices": [[q, c, c is not None and got[c]] for q, c in choices],
                     "contested": [[c, qs, _num(before.shop.get(c, 0))] for c, qs in wanted.items() if not got[c]]}
            if after.day != before.day or after.phase.get("name") == "investing":
                # The trace's next state is already the next day (after its
                # income): show this round's table as the buys left it.
                after = self._after_buys(before, choices, got)
        self._step("reveal", after, ev=event)

    def _after_buys(self, before: _State, choices: list[list[Any]], got: dict[int, bool]) -> _State:
        players = [(c, b, list(hand)) for c, b, hand in before.players]
        shop = dict(before.shop)
        for q, c in choices:
            coins, buys, hand = players[q]
            cost = self.cards.table[c]["cost"] if c is not None else None
            if cost is not None:
                coins -= cost
                if got[c]:
                    hand.append((c, 0))
            players[q] = (coins, max(buys - 1, 0), hand)
        for c in got:
            shop[c] = max(shop.get(c, 0) - sum(1 for _, x in choices if x == c), 0)
        return _State(before.day, {"name": "buy"}, players, shop, None, before.line)

    def _maybe_fight(self, following: _State | None) -> None:
        """Resolve the attack when no defender is asked next."""
        assert self.attack is not None
        if following is not None and following.phase.get("name") == "attacking" \
                and following.phase.get("attacker_card") not in (False, None) and following.player is not None \
                and following.player != self.attack["attacker"]:
            return  # another defender answers first
        if following is None or following.phase.get("name") == "fault":
            self.attack = None
            return
        self._fight(following)

    def _fight(self, after: _State) -> None:
        assert self.attack is not None and self.attack_state is not None
        a = self.attack
        table = self.cards.table
        att = table[a["c"]]
        before = self.attack_state
        defs = []
        attacker_faints = False
        for d in a["defs"]:
            card = table[d["c"]]
            faints = att["atk"] is not None and card["def"] is not None and att["atk"] > card["def"]
            if card["atk"] is not None and att["def"] is not None and card["atk"] > att["def"]:
                attacker_faints = True
            defs.append({**d, "faint": faints, "shield": card["name"] == "Shield of Greed"})
        asked = {d["p"] for d in a["defs"]}
        out = [p for p in range(len(before.players))
               if p != a["attacker"] and before.alive(p) and p < len(after.players) and not after.alive(p)]
        nodef = [p for p in range(len(before.players))
                 if p != a["attacker"] and before.alive(p) and p not in asked]
        event = {"type": "fight", "attacker": a["attacker"], "i": a["i"], "c": a["c"], "faint": attacker_faints,
                 "defs": defs, "out": out, "nodef": nodef}
        self.attack = None
        self._step("fight", after, ev=event)

    # ends -------------------------------------------------------------

    def final(self, s: _State) -> None:
        if self.game is None:
            self._start(s)
        assert self.game is not None  # started just now if it was not
        event: dict[str, Any]
        name = s.phase.get("name")
        self._new_round("end")
        self._chart_final(s)
        if name == "fault":
            seat = s.phase.get("forfiet")
            reason = s.phase.get("reason")
            event = {"type": "fault", "seat": seat if type(seat) is int else None,
                     "reason": _text(str(reason), MAX_REASON) if reason is not None else ""}
            self.game.result = {"kind": "fault", "seat": event["seat"], "reason": event["reason"]}
            self._step("fault", s, ev=event)
            return
        winner = s.phase.get("winner")
        winner = winner if type(winner) is int and 0 <= winner < len(s.players) else None
        alive = [p for p in range(len(s.players)) if s.alive(p)]
        if winner is None:
            how = "draw"
        elif alive == [winner]:
            how = "elimination"
        else:
            how = "points"
        event = {"type": "end", "winner": winner, "how": how,
                 "points": [s.points(self.cards, p) for p in range(len(s.players))],
                 "alive": alive, "days": self.abs_day}
        self.game.result = {"kind": how, "winner": winner}
        self._step("end", s, ev=event)

    def stop(self, reason: str | None, line: int, cut: str | None = None) -> None:
        """The trace stops without a final state: cut off (`aborted` meta
        line, with the referee's reason) or simply ended (`cut` says how,
        when the reader knows: a last line cut mid-line)."""
        assert self.game is not None and self.game.steps
        last = self.game.steps[-1]
        self._new_round("end")
        kind = "aborted" if reason is not None else "cut"
        event = {"type": kind, "reason": _text(reason, MAX_REASON) if reason is not None else (cut or "")}
        self.game.result = {"kind": kind}
        self.game.steps.append({"k": kind, "s": last["s"], "D": last["D"], "r": self.round, "ln": line, "ev": event})

    def _chart_final(self, s: _State) -> None:
        assert self.game is not None
        self.chart_days.append(max(self.abs_day, 1) + 1)  # the end, after the last day begun
        for p in range(len(s.players)):
            self.chart_coins[p].append(_float(s.players[p][0]))
            self.chart_points[p].append(s.points(self.cards, p))

    def finish(self) -> GameView:
        assert self.game is not None
        self.game.chart = {"days": self.chart_days, "coins": self.chart_coins, "points": self.chart_points}
        return self.game


def build_replay(
    data: bytes | str | Iterable[bytes | str],
    names: Sequence[str] = (),
    *,
    title: str = "Economancy replay",
    stderr: Sequence[str] | None = None,
    times: Sequence[float | None] | None = None,
) -> Replay:
    """Read a whole trace (one game or the original's stream of several)
    into the replay's model. `names` name the seats when the trace does
    not (a `{"meta": "players"}` or `{"meta": "header"}` line does; given
    names win over a header's, which a bot could not write but a file
    edited by hand could); `stderr` is each seat's kept standard error,
    shown with a fault (from the tournament store); `times` the seconds
    each answer line took, in trace order, None for an opening move the
    referee played (the store's `answer_times`): each decision shows its
    think time, and the opening's moves are marked as the referee's.

    A trace whose last line is cut mid-line (copied while it was being
    written) shows everything before it and ends on "cut", saying so."""
    lines, bad = _parse(data)
    if bad is not None and not (getattr(bad, "last", False) and any(_is_state(x.value) for x in lines)):
        raise bad
    cut_reason = f"the trace's last line ({getattr(bad, 'line', '?')}) is cut mid-line" if bad is not None else None
    answer_times = list(times or ())
    answered = 0  # answer lines read so far (the index into answer_times)
    cards = _Cards()
    games: list[GameView] = []
    current_names = list(names)
    builder: _Builder | None = None
    decoded: dict[int, _State] = {}  # the state after a decision, read ahead once
    i = 0
    while i < len(lines):
        line = lines[i]
        v = line.value
        if _is_meta(v):
            kind = v.get("meta")
            if kind == "players" and isinstance(v.get("names"), list):
                current_names = [str(x) for x in v["names"]]
            elif kind == "header" and isinstance(v.get("seats"), list) and not names:
                current_names = [str(x) for x in v["seats"][:8]]
            elif kind == "aborted" and builder is not None and builder.game is not None and builder.game.steps:
                reason = v.get("reason")
                builder.stop(str(reason) if reason is not None else "stopped", line.number)
                games.append(builder.finish())
                builder = None
            i += 1
            continue
        if not _is_state(v):
            raise TraceError(f"line {line.number}: expected a game state, got {_text(_dumps(v), 80)}")
        s = decoded.pop(i, None) or _state_of(line, cards)
        if builder is None:
            builder = _Builder(cards, current_names)
        if s.player is None:
            builder.final(s)
            game = builder.finish()
            _attach_stderr(game, stderr)
            games.append(game)
            builder = None
            i += 1
            continue
        answer, i = _answer_after(lines, i, s, cards)
        following = None
        if i < len(lines) and _is_state(lines[i].value):
            following = decoded[i] = _state_of(lines[i], cards)
        took: float | None | bool = False  # False: no time known
        if answer is not None:
            if not games and answered < len(answer_times):
                took = answer_times[answered]
            answered += 1
        builder.ask(s, answer, following, took)
    if builder is not None and builder.game is not None and builder.game.steps:
        builder.stop(None, lines[-1].number if lines else 0, cut_reason)
        games.append(builder.finish())
    if not games:
        raise TraceError("no game in the trace (no state line)")
    return Replay(games, cards.table, title)


def _answer_after(lines: list[_Line], i: int, s: _State, cards: _Cards) -> tuple[_Line | None, int]:
    """The answer line after the state at `i` (None when none came: the next
    line is already a state), and the index after it. A bot may answer with
    something shaped like a state; it is the answer when a fault naming
    that seat follows it."""
    j = i + 1
    if j >= len(lines):
        return None, j
    v = lines[j].value
    if _is_meta(v):
        return None, j
    if not _is_state(v):
        return (lines[j].exact() if _has_float(v) else lines[j]), j + 1
    after = lines[j + 1].value if j + 1 < len(lines) else None
    if _is_state(after) and "player" not in after and isinstance(after.get("phase"), dict) \
            and after["phase"].get("name") == "fault" and after["phase"].get("forfiet") == s.player \
            and "player" not in v and not (isinstance(v.get("phase"), dict) and v["phase"].get("name") == "fault"):
        return lines[j], j + 1
    return None, j


def _attach_stderr(game: GameView, stderr: Sequence[str] | None) -> None:
    if not stderr or game.result.get("kind") != "fault":
        return
    seat = game.result.get("seat")
    if type(seat) is int and 0 <= seat < len(stderr) and stderr[seat]:
        text = stderr[seat]
        if len(text) > MAX_STDERR:
            text = "\u2026" + text[-MAX_STDERR:]
        game.steps[-1]["ev"]["stderr"] = text
