"""The names of our bots and how to start them.

One table serves the referee's botspec parser (`driver run random ...`),
the tournament tools and compile.sh, so a new bot is one line in `BOTS`.
Bots run as `python -P -m bots.<module>` under the interpreter that runs
the caller: no PATH lookup, no virtual environment to activate. `-P`
keeps the current directory off the module path, so the bot is the
installed one even when the driver runs inside a source checkout (whose
engine may not be built in place).
"""

from __future__ import annotations

import sys
from collections.abc import Sequence
from typing import NamedTuple


class BotEntry(NamedTuple):
    name: str
    module: str
    description: str


BOTS: tuple[BotEntry, ...] = (
    BotEntry("random", "bots.random_bot", "uniformly random legal move (like the original's play_random)"),
    BotEntry("expert", "bots.expert", "hand-written rules: the race to 7 points, safe attacks, denial investing"),
    BotEntry("evolved", "bots.evolved", "preference weights per decision, tuned by a genetic algorithm"),
    BotEntry("mcts", "bots.mcts", "simultaneous-move Monte Carlo tree search over the rules engine"),
    BotEntry("alphabeta", "bots.alphabeta", "paranoid alpha-beta search with a tuned evaluation"),
    BotEntry("decent-repro", "bots.decent_repro", "a reproduction of the original's play_decent"),
    BotEntry("simple-repro", "bots.simple_repro", "a reproduction of the original's play_simple"),
    BotEntry("points-repro", "bots.points_repro", "a reproduction of the original's play_points"),
    BotEntry("attack-repro", "bots.attack_repro", "a reproduction of the original's play_attack"),
    BotEntry("champion", "bots.champion", "our strongest search: simultaneous-move MCTS in C on a CPU-time budget, forced wins proven first"),
    BotEntry("mcts-v1", "bots.mcts_v1", "mcts before the C core: the same search in Python (a reference to measure against)"),
    BotEntry("alphabeta-v1", "bots.alphabeta_v1", "alphabeta before the C core: the same search in Python (a reference to measure against)"),
    BotEntry("champion-v1", "bots.champion_v1", "champion before the C core: Python, serialised below the root (a reference to measure against)"),
    BotEntry("exploiter", "exploit.bot", "what `exploit` finds: a fixed style, an evolved genome or a best response"),
)

_BY_NAME = {entry.name: entry for entry in BOTS}
_MODULES = frozenset(entry.module for entry in BOTS)


def resolve(name: str) -> list[str] | None:
    """The argv prefix that starts bot `name`, or None if it is not one of ours.

    Callers append the bot's own options (e.g. `--seed 3`).
    """
    entry = _BY_NAME.get(name)
    if entry is None:
        return None
    return [sys.executable, "-P", "-m", entry.module]


def arguments(name: str, args: Sequence[str]) -> list[str]:
    """Bot `name`'s own arguments as its process gets them: what only the
    referee can read is read here (`evolved --key KEY` becomes the stored
    leader's weights, since the bot runs as another user). Raises
    LookupError or OSError with a readable reason."""
    if name == "evolved":
        from bots.evolved.bot import key_to_weights

        return key_to_weights(args)
    return list(args)


def owns(argv: Sequence[str]) -> bool:
    """Whether `argv` starts one of our bots (as `resolve` builds it, with any
    interpreter), e.g. a ladder entry stored by an earlier installation."""
    return len(argv) >= 4 and tuple(argv[1:3]) == ("-P", "-m") and argv[3] in _MODULES


def module(name: str) -> str | None:
    """The module that `python -m` runs for bot `name`, or None if unknown."""
    entry = _BY_NAME.get(name)
    return entry.module if entry else None


def names() -> list[tuple[str, str]]:
    """Every bot name with its one-line description, in a stable order."""
    return [(entry.name, entry.description) for entry in BOTS]


def is_installed(name: str) -> bool:
    """Whether bot `name` is known and its module can be found (some bots
    are written later than others; compile.sh builds only what exists)."""
    from importlib.util import find_spec

    mod = module(name)
    if mod is None:
        return False
    try:
        return find_spec(mod) is not None
    except ModuleNotFoundError:
        return False


def run_bot(name: str, argv: list[str]) -> None:
    """Run bot `name` in this process as `python -m` would, with `argv` as
    its options. This is the multicall entry of compile.sh's bundle, which
    holds every bot behind one interpreter."""
    import runpy

    mod = module(name)
    if mod is None:
        known = ", ".join(entry.name for entry in BOTS)
        sys.exit(f"unknown bot {name!r}; known bots: {known}")
    sys.argv = [name, *argv]
    runpy.run_module(mod, run_name="__main__", alter_sys=True)


def main(argv: list[str] | None = None) -> None:
    """`python -m bots.registry` lists the bots; `... NAME [OPTIONS]` runs one."""
    args = sys.argv[1:] if argv is None else argv
    if not args or args[0] in ("-h", "--help", "--list"):
        width = max(len(entry.name) for entry in BOTS)
        for name, description in names():
            print(f"{name:<{width}}  {description}")
        return
    run_bot(args[0], args[1:])


if __name__ == "__main__":
    main()
