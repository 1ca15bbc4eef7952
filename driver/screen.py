"""What `driver play` shows a person: the table at each decision, and what
just happened, in 80 columns, with colour only where it is welcome.

The facts are the replay's (`viewer.model`, through `viewer.live.build_view`,
the same view of a game in progress that the server's spectators get): the
states, and the events between them (investments revealed, who attacked
with what, which card fainted and why, who bought what, the end). The card
texts are the replay page's (`viewer.model.card_table`). The sentences say
what the replay page's `describe` says (viewer/static/table.js), in the same
words, so a game reads the same in the terminal and in `driver view`.

Rendering is rich's: it drops colour when the output is not a terminal, when
NO_COLOR is set or TERM is dumb, and wraps at the terminal's width. Every
name a bot or a person chose goes through `common.text.printable` and into
rich as plain text (never as markup), so it can neither move the cursor nor
restyle the screen.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from rich.console import Console
from rich.text import Text

from common.text import printable
from viewer.model import POINTS_TO_WIN, card_table

__all__ = ["CARDS_TABLE", "describe", "render_board", "render_events", "event_steps", "make_console", "phase_label"]

CARDS_TABLE = card_table()
"""The replay page's card table (index = card id): names, levels, texts."""

_WIDTH = 80
_SEAT_STYLES = ("bold cyan", "bold magenta", "bold yellow", "bold green")


def make_console(file: Any = None) -> Console:
    """The console everything is shown on. rich decides colour: none for a
    pipe or a file, none with NO_COLOR, TERM=dumb or --no-color's
    environment; 80 columns when it cannot ask a terminal."""
    return Console(file=file, highlight=False, emoji=False, markup=False, soft_wrap=False)


def phase_label(phase: dict[str, Any]) -> str:
    """The phase as the replay page labels it."""
    name = phase.get("name")
    if name == "investing":
        return "Investing"
    if name == "attacking":
        return "Attack: choosing a card" if phase.get("attacker_card") is False else "Attack: defending"
    if name == "buy":
        return "Buying"
    if name == "end":
        return "Game over"
    if name == "fault":
        return "Forfeit"
    return printable(str(name))


def _name(view: dict[str, Any], seat: Any) -> str:
    names = view.get("names") or []
    if type(seat) is int and 0 <= seat < len(names):
        return printable(names[seat])
    return f"Seat {seat}"


def _card(c: Any) -> str:
    return CARDS_TABLE[c]["name"] if type(c) is int and 0 <= c < len(CARDS_TABLE) else f"card {c}"


def _points(view: dict[str, Any], state: dict[str, Any], seat: int) -> int:
    hand = state["players"][seat][2]
    return sum(CARDS_TABLE[hand[i]]["points"] for i in range(0, len(hand), 2) if hand[i] < len(CARDS_TABLE))


def describe(view: dict[str, Any], step: dict[str, Any], me: int | None = None) -> str:
    """One sentence saying what happened at `step`, as the replay page says it."""
    ev = step.get("ev") or {}
    kind = step.get("k")
    if kind == "ask":
        if "a" not in step:
            return f"Waiting for {_name(view, step['p'])}: {_asking(view, step)}"
        return f"{_name(view, step['p'])} {_answer(view, step)}" + (
            " (not a legal move)" if (step.get("m") or {}).get("bad") else "")
    if kind == "reveal" and ev.get("type") == "invest":
        amounts = ", ".join(f"{_name(view, q)} {n}" for q, n in ev["amounts"])
        if ev["attacker"] is None:
            verdict = "Tie: nobody attacks."
        elif ev["attacks"]:
            verdict = f"{_name(view, ev['attacker'])} attacks."
        else:
            verdict = f"{_name(view, ev['attacker'])} invested most but has no card that can attack."
        return f"Investments revealed: {amounts}. {verdict}"
    if kind == "reveal":
        parts = [
            _name(view, q)
            + (" passes" if c is None else (" buys " if got else " pays for but does not get ") + _card(c))
            for q, c, got in ev["choices"]
        ]
        return "Buys revealed: " + ", ".join(parts) + "."
    if kind == "fight":
        att = _card(ev["c"])
        text = f"{_name(view, ev['attacker'])}'s {att} attacks"
        if ev["defs"]:
            text += ": " + ", ".join(
                f"{_name(view, d['p'])}'s {_card(d['c'])} {'faints' if d['faint'] else 'holds'}" for d in ev["defs"])
        if ev["faint"]:
            text += f"; {att} faints"
        if ev["out"]:
            text += "; " + ", ".join(_name(view, p) for p in ev["out"]) + " eliminated"
        return text + "."
    if kind == "end":
        if ev.get("winner") is None:
            return "Draw: the day limit was reached with no winner."
        if ev.get("how") == "elimination":
            return f"{_name(view, ev['winner'])} wins: everyone else is eliminated."
        return f"{_name(view, ev['winner'])} wins the points race with {ev['points'][ev['winner']]} points."
    if kind == "fault":
        who = "A player" if ev.get("seat") is None else _name(view, ev["seat"])
        return f"{who} forfeits: {printable(str(ev.get('reason', '')))}"
    if kind == "aborted":
        return f"Game cut off: {printable(str(ev.get('reason', '')))}"
    if kind == "cut":
        return "The trace ends here (the game did not finish)."
    return ""


def _asking(view: dict[str, Any], step: dict[str, Any]) -> str:
    phase = view["states"][step["s"]]["phase"]
    if phase.get("name") == "investing":
        return "how much to invest (hidden from the others)"
    if phase.get("name") == "buy":
        return "what to buy (hidden from the others)"
    if phase.get("name") == "attacking":
        return "which card attacks (or 0 to stop)" if phase.get("attacker_card") is False \
            and phase.get("attacker") == step["p"] else "which card defends"
    return "a move"


def _answer(view: dict[str, Any], step: dict[str, Any]) -> str:
    m = step.get("m") or {}
    if step["a"] is None:
        return "no answer"
    if "invest" in m:
        return f"invests {m['invest']}"
    if m.get("pass"):
        return "passes"
    if "buy" in m:
        return f"buys {_card(m['buy'])}"
    if m.get("stop"):
        return "stops attacking"
    if "card" in m:
        phase = view["states"][step["s"]]["phase"]
        attacking = phase.get("name") == "attacking" and phase.get("attacker") == step["p"] \
            and phase.get("attacker_card") is False
        return f"{'attacks' if attacking else 'defends'} with {_card(m['c'])} (#{m['card']})"
    return f"answers {printable(str(step['a']))}"


def fight_reasons(view: dict[str, Any], step: dict[str, Any]) -> list[str]:
    """Why each card of a fight fainted or held, with the levels compared
    (the replay page's fight panel, in words)."""
    ev = step["ev"]
    att = CARDS_TABLE[ev["c"]]
    lines = []
    for d in ev["defs"]:
        card = CARDS_TABLE[d["c"]]
        sign = ">" if d["faint"] else "\u2264"
        lines.append(f"{_name(view, d['p'])}'s {card['name']} {'faints' if d['faint'] else 'holds'}"
                     f" (attack {att['atk']} {sign} defense {card['def']})"
                     + ("; +1 coin (Shield of Greed)" if d["shield"] else ""))
    if ev["defs"]:
        strongest = max(CARDS_TABLE[d["c"]]["atk"] or 0 for d in ev["defs"])
        sign = ">" if ev["faint"] else "\u2264"
        lines.append(f"{_name(view, ev['attacker'])}'s {att['name']} {'faints' if ev['faint'] else 'survives'}"
                     f" (a defender's attack {strongest} {sign} its defense {att['def']})")
    for p in ev["nodef"]:
        lines.append(f"{_name(view, p)}: " + ("no card can defend: eliminated" if p in ev["out"] else "cannot defend"))
    if not ev["defs"] and not ev["nodef"]:
        lines.append("nobody defends")
    return lines


def event_steps(view: dict[str, Any], start: int, me: int) -> list[dict[str, Any]]:
    """The steps from `start` a person at seat `me` reads as news: reveals,
    fights, the end, and the other players' visible choices (an attacker
    that stops). Their own moves and the sealed answers are left out (the
    reveal says them)."""
    out = []
    for step in view["steps"][start:]:
        kind = step["k"]
        if kind in ("reveal", "fight", "end", "fault", "aborted"):
            out.append(step)
        elif kind == "ask" and step["p"] != me and "a" in step and (step.get("m") or {}).get("stop"):
            out.append(step)
    return out


def render_events(console: Console, view: dict[str, Any], steps: Sequence[dict[str, Any]], me: int) -> None:
    """Print the news: one sentence per step, a fight's reasons under it."""
    for step in steps:
        text = Text(describe(view, step, me))
        if step["k"] in ("end", "fault", "aborted"):
            text.stylize("bold")
        console.print(text)
        if step["k"] == "fight":
            for line in fight_reasons(view, step):
                console.print(Text("    " + line, style="dim"))


def _pack(entries: Sequence[Text], indent: str, gap: str, width: int) -> list[Text]:
    """Entries on as few lines of `width` as they fit on, never broken
    inside one (a card's name, levels and uses stay together)."""
    rows: list[Text] = []
    row = Text(indent)
    for entry in entries:
        if len(row.plain) > len(indent) and len(row.plain) + len(gap) + len(entry.plain) > width:
            rows.append(row)
            row = Text(indent)
        if len(row.plain) > len(indent):
            row.append(gap)
        row.append_text(entry)
    if len(row.plain) > len(indent):
        rows.append(row)
    return rows


def render_board(console: Console, view: dict[str, Any], state_index: int, me: int, *, note: str = "") -> None:
    """The table at one state: the day and phase, each player's coins, buys,
    points and cards (# to type, attack/defense, uses), the shop (number to
    type, price, levels, count left). `note` goes on the header line."""
    st = view["states"][state_index]
    phase = st["phase"]
    head = Text()
    head.append(f"Day {st['D']}", style="bold")
    head.append(f" (day {st['day']} of the 3-day cycle) \u00b7 ")
    head.append(phase_label(phase), style="bold")
    if note:
        head.append(f" \u00b7 {note}")
    console.rule(head, align="left", characters="\u2500" if console.encoding.lower().startswith("utf") else "-")
    width = max(len(_name(view, seat)) + (6 if seat == me else 0) for seat in range(len(st["players"])))
    for seat, (coins, buys, hand) in enumerate(st["players"]):
        style = _SEAT_STYLES[seat % len(_SEAT_STYLES)]
        line = Text()
        line.append(f"{seat} ", style="dim")
        line.append(_name(view, seat), style=style)
        if seat == me:
            line.append(" (you)", style="bold")
        tags = []
        if not hand:
            tags.append("out")
        if phase.get("name") == "attacking" and phase.get("attacker") == seat:
            tags.append("attacker")
        if phase.get("name") == "end" and type(phase.get("winner")) is int and phase.get("winner") == seat:
            tags.append("winner")
        if phase.get("name") == "fault" and type(phase.get("forfiet")) is int and phase.get("forfiet") == seat:
            tags.append("forfeited")
        line.pad_right(max(0, width + 2 - len(line.plain)))
        line.append(f" coins {coins}  buys {buys}  points {_points(view, st, seat)}/{POINTS_TO_WIN}")
        if tags:
            line.append("  " + ", ".join(tags), style="bold red" if "out" in tags or "forfeited" in tags else "bold")
        console.print(line)
        entries = []
        for i in range(0, len(hand), 2):
            c, uses = hand[i], hand[i + 1]
            card: dict[str, Any] = CARDS_TABLE[c] if c < len(CARDS_TABLE) else {"name": f"card {c}", "atk": None, "def": None,
                                                                 "attacks": 0, "defends": 0}
            entry = Text()
            entry.append(f"#{i // 2} ", style="dim")
            entry.append(card["name"], style="bold" if seat == me else "")
            if card["atk"] is not None:
                entry.append(f" {card['atk']}/{card['def']}", style="dim")
            if uses:  # one count for attacks and defences; a card acts while it is below its A (or D)
                entry.append(f" used {uses}/{max(card['attacks'], card['defends'], 1)}", style="yellow")
            chosen = phase.get("attacker_card")
            if phase.get("name") == "attacking" and phase.get("attacker") == seat and type(chosen) is int \
                    and chosen == i // 2:
                entry.append(" attacking", style="bold red")
            entries.append(entry)
        for row in _pack(entries, "   ", "  ", console.width):
            console.print(row)
    shop = Text("Shop ", style="bold")
    entries = []
    for k, c in enumerate(view["shop"]):
        card = CARDS_TABLE[c]
        count = st["shop"][k]
        entry = Text()
        entry.append(f"{k + 1:>2} ", style="dim")
        entry.append(f"{card['name']:<17} ", style="dim" if str(count) == "0" else "")
        entry.append(f"{card['cost']}c ")
        entry.append(f"{card['atk']}/{card['def']} ", style="dim")
        entry.append(f"{'x' + str(count):<3}", style="dim" if str(count) == "0" else "")
        if card["points"]:
            entry.append(f" {card['points']}pt", style="bold")
        entries.append(entry)
    console.print(shop + Text("(number to buy, price in coins, attack/defense, left; 0: pass)", style="dim"))
    half = (len(entries) + 1) // 2 if console.width >= 78 else len(entries)  # two columns where they fit
    for k in range(half):
        line = Text(" ")
        line.append_text(entries[k])
        if k + half < len(entries):
            line.pad_right(max(1, 39 - len(line.plain)))
            line.append_text(entries[k + half])
        console.print(line)
