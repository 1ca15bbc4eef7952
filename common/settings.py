"""The game's settings as one value (`GameSettings`), and the isolation modes.

Every holder of game settings (the commands' options, `driver.game.GameOptions`,
`driver.play`, the tournament's jobs, the game server, the exploiter) is a
GameSettings or holds one, and its defaults are `common.defaults`' numbers
(handed on from here too), so that "100 days" or "10 seconds a move"
cannot drift apart between commands.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, fields
from enum import StrEnum
from typing import Any, Self

from common.defaults import LINE_LIMIT, MARGIN, MAX_DAYS, STARTUP, STDERR_LIMIT, TIMEOUT

__all__ = ["MAX_DAYS", "TIMEOUT", "STARTUP", "MARGIN", "LINE_LIMIT", "STDERR_LIMIT", "Isolation", "MODES",
           "GameSettings"]


class Isolation(StrEnum):
    """How a bot's process is fenced off from the referee and the other bots
    (`driver.isolation`). String-valued, so that traces, stored options and
    JSON outputs spell a mode exactly as they did when it was a plain string."""

    AUTO = "auto"
    """Namespaces where the system allows them, else NONE with limits and a clean environment."""
    NAMESPACES = "namespaces"
    """Own user, PID, mount and network namespaces, a private /tmp."""
    NONE = "none"
    """No fences at all: the referee's environment, no limits."""
    RELAY = "relay"
    """Not a user's choice: a program of ours that plays a bot running
    elsewhere (a `remote:NAME` bot's relay) and must reach the network, so
    it runs as NONE does."""


MODES: tuple[str, ...] = (Isolation.AUTO.value, Isolation.NAMESPACES.value, Isolation.NONE.value)
"""The values of --isolation (RELAY is chosen by a bot's kind, never by a person)."""


@dataclass(frozen=True)
class GameSettings:
    """What every game of a command is played under: the card set, the day
    limit, fairness, every bot's time control, its fences and the variables
    it gets. One value, built once from the command's options and handed on
    whole: the referee's `GameOptions` and the tournament's `PlayOptions`
    are GameSettings with what they add (a game's seats, opening and seed;
    the per-bot options), never copies made field by field.

    `timeout`: seconds for each answer; `startup`: added to the first answer
    of a freshly started process; `margin`: grace past both. `isolation`:
    how bots are fenced off (`Isolation`; a plain string is taken too).
    `bot_env`: variables for every bot (`--bot-env NAME[=VALUE]`).
    """

    base: bool = False
    max_days: int = MAX_DAYS
    timeout: float = TIMEOUT
    fair: bool = False
    startup: float = STARTUP
    margin: float = MARGIN
    isolation: Isolation = Isolation.AUTO
    bot_env: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        # "auto" and Isolation.AUTO are one value; a mode that is none of them is refused here, not at launch.
        object.__setattr__(self, "isolation", Isolation(self.isolation))
        object.__setattr__(self, "bot_env", tuple(self.bot_env))

    @classmethod
    def from_options(cls, values: Mapping[str, Any]) -> Self:
        """The settings a command's options give (its keyword arguments, by
        the names of the fields); those it lacks, or leaves None (--startup
        not given), keep their defaults."""
        names = {f.name for f in fields(cls)}
        return cls(**{k: v for k, v in values.items() if k in names and v is not None})

    def settings(self) -> GameSettings:
        """Only the GameSettings part (of a subclass's value), to hand on."""
        return GameSettings(**{f.name: getattr(self, f.name) for f in fields(GameSettings)})
