"""The game's default numbers, each defined once: what a game is played
under unless a command says otherwise.

Plain numbers in a module that imports nothing, so that a bot (every bot
imports `protocol.engine` and `bots.sdk`, which take their defaults from
here) pays nothing for them at start-up; `common.settings` builds the
settings value (`GameSettings`) on them and hands them on too.
"""

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
