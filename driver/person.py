"""What a person types at `driver play`'s prompt, read into a move or a command.

A person thinks in words ("invest 2", "attack with the ghost", "buy gold
fish", "pass"), a bot in wire values (`[2]`, `[3]`, `["Gold Fish"]`). This
module turns the first into the second, or into a command (help, a card's
text, the day's log, leaving), and explains every refusal in a sentence,
so that a typo or an illegal move is asked again, never sent: the referee
would forfeit the person for it, as it forfeits a bot.

Legality is the engine's (`protocol.engine`): a move is tried on a copy of
the game rebuilt from the state the person was sent, and the engine's
reason is what the person reads. Card names match whole, by a prefix of
the name or of one of its words, in any case ("gf" is not a prefix:
"gold" is), with a did-you-mean for a misspelling.
"""

from __future__ import annotations

import difflib
import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from protocol.cards import CARDS, NAMES, PASS, PASS_NAME
from protocol.engine import ATTACKING, BUY, DEFENDING, INVESTING, Game, IllegalMove, move_to_wire

__all__ = ["Command", "Move", "Refusal", "read_input", "match_card", "HELP", "phase_question", "card_help"]

MAX_INPUT = 200
"""Characters of a typed line read (a paste of a whole screen is refused, not parsed)."""


@dataclass(frozen=True)
class Move:
    """A legal move: the wire value to answer with, and what it means in words."""

    value: int | str
    words: str
    warning: str = ""
    """Legal but almost surely a slip (a card none is left of: paid for,
    not got): said once, and the move taken if typed again."""


@dataclass(frozen=True)
class Command:
    """Not a move: `help` (with `arg`, a card's text), `log` or `quit`."""

    name: str
    arg: str = ""


@dataclass(frozen=True)
class Refusal:
    """Input that is neither a legal move nor a command: `why`, in a sentence."""

    why: str


HELP = """\
Commands (at any prompt):
  NUMBER        the coins to invest; a card's # to attack or defend with;
                a shop number to buy (0: pass)
  CARD          a card by name, any case, or the start of its name or of a word
                in it ("gold" for Gold Fish): to attack, defend with or buy
  pass          invest 0, stop attacking, or buy nothing
  ? CARD        what a card does (also: help CARD)
  ?             this help (also: help)
  log           what has happened so far today
  quit          leave the game (also Ctrl+C or Ctrl+D); the bots are ended
A move that is not allowed is explained and asked again."""

_COMMANDS = {"?": "help", "help": "help", "h": "help", "log": "log", "quit": "quit", "exit": "quit", "q": "quit"}
_PASS_WORDS = {"pass", "p", "stop", "none", "nothing"}
_VERBS = re.compile(r"^(?:invest|buy|attack(?:\s+with)?|defend(?:\s+with)?|play|use)\s+", re.IGNORECASE)


def phase_question(game: Game, me: int) -> str:
    """What the person is asked, in a sentence, with the range of answers."""
    if game.phase == INVESTING:
        return f"How much do you invest? (0 to {game.coins(me)}; hidden until everyone has answered)"
    if game.phase == ATTACKING:
        return "You attack: with which card? (its # or name; pass to stop attacking)"
    if game.phase == DEFENDING:
        attacker, used = game.attacker, game.attacker_card
        assert attacker is not None and used is not None  # DEFENDING: both known
        card = CARDS[game.cards(attacker)[used][0]]
        return f"{card.name} (attack {card.atk}, defense {card.def_}) attacks you: which card defends?"
    if game.phase == BUY:
        return (f"What do you buy? (shop number or name, 0 to pass; {game.buys(me)} buy"
                f"{'s' if game.buys(me) != 1 else ''} left; hidden)")
    return "The game is over."


def match_card(text: str, names: Sequence[str]) -> tuple[str | None, str]:
    """The one name of `names` that `text` means, or None and why not:
    exact (any case), then a prefix of the name, then a prefix of one of
    its words; several matches are a question, none a did-you-mean."""
    want = " ".join(text.lower().split())
    if not want:
        return None, "type a card's name or number"
    exact = [n for n in names if n.lower() == want]
    if exact:
        return exact[0], ""
    for matches in (
        [n for n in names if n.lower().startswith(want)],
        [n for n in names if any(w.startswith(want) for w in n.lower().replace("'", "").split())],
    ):
        unique = list(dict.fromkeys(matches))
        if len(unique) == 1:
            return unique[0], ""
        if len(unique) > 1:
            return None, f"{text!r} could be {_or(unique)}: type more of the name"
    close = difflib.get_close_matches(want, [n.lower() for n in names], n=1, cutoff=0.5)
    if close:
        name = next(n for n in names if n.lower() == close[0])
        return None, f"no card here is called {text!r}; did you mean {name}?"
    return None, f"no card here is called {text!r}"


def _or(names: Sequence[str]) -> str:
    return ", ".join(names[:-1]) + " or " + names[-1] if len(names) > 1 else names[0]


def read_input(text: str, game: Game, me: int) -> Move | Command | Refusal:
    """Read one typed line, given the game as the person was sent it and
    their seat. A Move returned is legal (the engine accepted it on a copy)."""
    line = " ".join(text.split())
    if len(line) > MAX_INPUT:
        return Refusal(f"that is {len(line)} characters long; a move is a number, a card or pass")
    if not line:
        return Refusal("type a move, or ? for help")
    head, _, rest = line.partition(" ")
    command = _COMMANDS.get(head.lower())
    if command is None and head.startswith("?"):  # "?ghost"
        command, rest = "help", line[1:].strip()
    if command is not None:
        return Command(command, rest.strip())
    line = _VERBS.sub("", line)
    phase = game.phase
    if phase == INVESTING:
        return _invest(line, game, me)
    if phase in (ATTACKING, DEFENDING):
        return _card_in_hand(line, game, me)
    if phase == BUY:
        return _buy(line, game, me)
    return Refusal("the game is over")


def _invest(line: str, game: Game, me: int) -> Move | Refusal:
    coins = game.coins(me)
    if line.lower() in _PASS_WORDS:
        line = "0"
    if not re.fullmatch(r"[0-9]+", line):
        return Refusal(f"you are investing: type a number of coins from 0 to {coins}")
    amount = int(line)
    if amount > coins:
        return Refusal(f"you have {coins} coin{'s' if coins != 1 else ''}: invest 0 to {coins}")
    return _legal(game, me, amount, f"invest {amount}")


def _card_in_hand(line: str, game: Game, me: int) -> Move | Refusal:
    attacking = game.phase == ATTACKING
    cards = game.cards(me)
    legal = set(game.legal_moves(me))
    verb = "attack" if attacking else "defend"
    if line.lower() in _PASS_WORDS:
        if not attacking:
            return Refusal("a defender cannot pass: choose one of your cards that can defend")
        line = "0"
    if re.fullmatch(r"#?[0-9]+", line):
        index = int(line.lstrip("#"))
        if attacking and index == 0:
            return _legal(game, me, 0, "stop attacking")
        if index >= len(cards):
            return Refusal(f"you have cards #0 to #{len(cards) - 1}")
        return _legal(game, me, index, f"{verb} with {NAMES[cards[index][0]]} (#{index})")
    names = [NAMES[card] for card, _ in cards]
    name, why = match_card(line, names)
    if name is None:
        if why.startswith("no card here") and (other := match_card(line, NAMES)[0]) is not None:
            return Refusal(f"you have no {other}")
        return Refusal(why)
    copies = [i for i, (card, _) in enumerate(cards) if NAMES[card] == name]
    usable = [i for i in copies if i in legal and not (attacking and i == 0)]
    index = usable[0] if usable else copies[0]
    return _legal(game, me, index, f"{verb} with {name} (#{index})")


def _buy(line: str, game: Game, me: int) -> Move | Refusal:
    shop = sorted(game.shop(), key=lambda c: (CARDS[c].cost or 0, c))
    if line.lower() in _PASS_WORDS:
        return _legal(game, me, PASS, "pass")
    if re.fullmatch(r"[0-9]+", line):
        number = int(line)
        if number == 0:
            return _legal(game, me, PASS, "pass")
        if number > len(shop):
            return Refusal(f"the shop's numbers are 1 to {len(shop)} (0: pass)")
        card = shop[number - 1]
    else:
        name, why = match_card(line, [NAMES[c] for c in shop])
        if name is None:
            if why.startswith("no card here") and (other := match_card(line, NAMES)[0]) is not None:
                return Refusal(f"{other} is not sold in this game")
            return Refusal(why)
        card = NAMES.index(name)
    move = _legal(game, me, card, f"buy {NAMES[card]}")
    if isinstance(move, Move) and game.shop()[card] == 0:
        cost = CARDS[card].cost
        coins = f"{cost} coin{'s' if cost != 1 else ''}"
        return Move(move.value, move.words,
                    f"no {NAMES[card]} is left: you would pay {coins} and get nothing (type it again to do so anyway)")
    return move


def _legal(game: Game, me: int, move: int, words: str) -> Move | Refusal:
    """`move` if the engine takes it, else its reason, said to the person."""
    try:
        game.copy().play(me, move)
    except IllegalMove as e:
        return Refusal(_explain(game, me, move, getattr(e, "reason", None) or str(e)))
    return Move(move_to_wire(game, move), words)


def _explain(game: Game, me: int, move: int, reason: str) -> str:
    """The engine's reason, with the fact that makes it so."""
    if game.phase == BUY and move != PASS:
        card = CARDS[move]
        return f"{card.name} costs {card.cost} and you have {game.coins(me)}: not allowed ({reason})"
    if game.phase in (ATTACKING, DEFENDING) and 0 <= move < len(game.cards(me)):
        card = CARDS[game.cards(me)[move][0]]
        uses = game.cards(me)[move][1]
        if game.phase == ATTACKING:
            can = ("cannot attack" if card.attacks == 0
                   else f"has attacked {uses} of {card.attacks} times this attack phase")
        else:
            can = ("cannot defend" if not card.can_defend
                   else f"has defended {uses} of {card.defends} times this attack phase")
        return f"{card.name} (#{move}) {can}: not allowed ({reason})"
    return f"not allowed: {reason}"


def card_help(text: str, table: Sequence[dict[str, Any]]) -> str:
    """`? CARD`: the card's levels and text, from the replay's card table
    (`viewer.model.card_table`, the one wording of what cards do)."""
    names = [c["name"] for c in table] + [PASS_NAME]
    name, why = match_card(text, names)
    if name is None:
        return why[0].upper() + why[1:] + "."
    if name == PASS_NAME:
        return "Pass: buy nothing with this buy."
    card = next(c for c in table if c["name"] == name)
    levels = [
        f"costs {card['cost']}" if card["cost"] is not None else "not sold",
        f"attack {card['atk'] if card['atk'] is not None else '-'}",
        f"defense {card['def'] if card['def'] is not None else '-'}",
    ]
    if card["points"]:
        levels.append(f"{card['points']} point{'s' if card['points'] != 1 else ''}")
    uses = []
    if card["attacks"]:
        uses.append(f"attacks {_times(card['attacks'])}")
    if card["defends"]:
        uses.append(f"defends {_times(card['defends'])}")
    per_phase = f"; {' and '.join(uses)} per attack phase" if uses else "; never attacks or defends"
    return f"{name}: {', '.join(levels)}{per_phase}. {card['text']}".rstrip()


def _times(n: int) -> str:
    return {1: "once", 2: "twice"}.get(n, f"{n} times")
