"""What a BOT argument means: the one parser behind `driver run`, tournaments and the ladder.

Accepted forms, tried in this order:

- ``name=command``: any form below, shown as ``name`` in results;
- a first word containing ``/``: a program path (must exist and be executable),
  followed by its arguments (``"./bots/my_bot --depth 3"``);
- one of our bot names followed by its options (``"mcts --time 0.2"``);
- ``remote:NAME`` or ``remote:NAME@URL``: a bot connected to a game server
  (`driver connect`), played through a relay process (`server.relay`);
  the server is URL, else $ECONOMANCY_SERVER, else http://127.0.0.1:8000;
- a command found on PATH with its arguments (``"node bot.js"``).

The text is split like a shell command line (quotes allowed). Every
problem is reported here, before any game starts, so a tournament never
dies on its hundredth game because of a typo in one bot's name.
"""

from __future__ import annotations

import os
import re
import shlex
import shutil
from dataclasses import dataclass

from bots import registry

__all__ = ["BotSpec", "BotSpecError", "parse_bot"]

_NAMED = re.compile(r"^([A-Za-z0-9_.@+:-]+)=(.*)$", re.DOTALL)


class BotSpecError(ValueError):
    """A BOT argument that does not name a bot we can start."""


@dataclass(frozen=True, slots=True)
class BotSpec:
    """How to start one bot (`argv`) and what to call it in results (`name`)."""

    argv: tuple[str, ...]
    name: str

    @property
    def ours(self) -> bool:
        """One of our named bots: they accept `--max-days`, which the wire does not carry."""
        return registry.owns(self.argv)

    @property
    def remote(self) -> bool:
        """A `remote:NAME` bot: its command first reserves the bot on the
        server, waiting for it if need be (so the game's clock does not run
        while it is away)."""
        from server.relay import is_relay

        return is_relay(self.argv)

    def command(self, max_days: int = 100) -> tuple[str, ...]:
        """The argv to start this bot for a game of `max_days` days.

        Our bots plan for the game's end, and the wire never says when it
        comes, so a named bot of ours is told a non-default `max_days` on its
        command line (an explicit `--max-days` in the BOT text wins).
        """
        if self.remote:
            from server.relay import reserve_argv

            return reserve_argv(self.argv)
        if not self.ours or max_days == 100 or "--max-days" in self.argv:
            return self.argv
        return (*self.argv, "--max-days", str(max_days))


def parse_bot(text: str) -> BotSpec:
    """Turn a BOT argument into a BotSpec; raises BotSpecError with a readable reason."""
    name: str | None = None
    match = _NAMED.match(text.strip())
    if match and "/" not in match.group(1):
        name, text = match.group(1), match.group(2)
    try:
        words = shlex.split(text)
    except ValueError as e:
        raise BotSpecError(f"cannot parse bot {text!r}: {e}") from None
    if not words:
        raise BotSpecError(f"empty bot command{f' for {name!r}' if name else ''}")
    first, rest = words[0], words[1:]
    if first.startswith("remote:") and not rest:
        return _remote(first[len("remote:"):], name)
    if "/" in first:
        argv = [_check_program(first)] + rest
    elif (prefix := registry.resolve(first)) is not None:
        if not registry.is_installed(first):
            raise BotSpecError(f"bot {first!r} is one of ours but is not available in this installation")
        argv = prefix + rest
    elif (found := shutil.which(first)) is not None:
        argv = [found] + rest
    else:
        known = ", ".join(n for n, _ in registry.names())
        raise BotSpecError(
            f"unknown bot {first!r}: not one of ours ({known}) nor a command on PATH"
            f" (write a program in the current directory as ./{first})"
        )
    return BotSpec(tuple(argv), name or shlex.join(words))


def _remote(text: str, name: str | None) -> BotSpec:
    from server.relay import relay_argv
    from server.remotes import check_name

    bot, _, url = text.partition("@")
    try:
        check_name(bot)
    except ValueError as e:
        raise BotSpecError(f"remote:{bot}: {e}") from None
    return BotSpec(relay_argv(bot, url or None), name or f"remote:{bot}")


def _check_program(path: str) -> str:
    if not os.path.exists(path):
        raise BotSpecError(f"bot program {path!r} does not exist")
    if os.path.isdir(path):
        raise BotSpecError(f"bot program {path!r} is a directory")
    if not os.access(path, os.X_OK):
        raise BotSpecError(f"bot program {path!r} is not executable (chmod +x {shlex.quote(path)})")
    return path
