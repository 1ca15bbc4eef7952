"""The game's default settings, each defined once, and the isolation modes.

Every holder of game settings (the commands' options, `driver.game.GameOptions`,
`driver.play`, the tournament's jobs, the game server, the exploiter) takes
its defaults from here, so that "100 days" or "10 seconds a move" cannot
drift apart between commands.
"""

from __future__ import annotations

from enum import StrEnum

__all__ = ["MAX_DAYS", "TIMEOUT", "STARTUP", "MARGIN", "LINE_LIMIT", "STDERR_LIMIT", "Isolation", "MODES"]

MAX_DAYS = 100
"""Days played before a game is decided as it stands (the original's limit)."""
TIMEOUT = 10.0
"""Seconds a bot has for each answer (the original driver's)."""
STARTUP = 30.0
"""Default start-up allowance (seconds): generous, so that a bot that loads
a model or starts a JVM, or any bot on a loaded machine, is not forfeited
at its first move."""
MARGIN = 0.0
"""Grace (seconds) past every limit before an answer counts as missing."""
LINE_LIMIT = 1 << 20
"""Longest answer accepted (bytes of its one JSON value, whitespace around it excluded)."""
STDERR_LIMIT = 64 << 10
"""How much of each bot's standard error is kept (the most recent bytes)."""


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
