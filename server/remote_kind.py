"""The `remote:NAME` form of BOT: a bot connected to a game server (`driver
connect`), played here through a relay process (`server.relay`) and reserved
with its owner's token before each game.

The referee knows nothing of servers: this module registers the kind with
`driver.botspec.register_kind`, and the commands that take BOTs import it
(`arena.cli`). The forms accepted are `remote:NAME` and `remote:NAME@URL`,
optionally followed by `--wait SECONDS`; the server is URL, else
$ECONOMANCY_SERVER, else http://127.0.0.1:8000.
"""

from __future__ import annotations

import math
import shlex
from collections.abc import Sequence

from driver.botspec import BotKind, BotSpec, BotSpecError, register_kind
from server.relay import check_remote, is_relay, relay_argv, reserve_argv
from server.remotes import check_name

__all__ = ["REMOTE", "parse_remote"]


def parse_remote(text: str, name: str | None, options: Sequence[str] = ()) -> BotSpec:
    """`NAME[@URL] [--wait SECONDS]` (after `remote:`): --wait bounds how long
    a game waits for the bot while it is busy with another (default 300 s)."""
    bot, _, url = text.partition("@")
    try:
        check_name(bot)
    except ValueError as e:
        raise BotSpecError(f"remote:{bot}: {e}") from None
    wait = None
    words = list(options)
    if words and words[0].startswith("--wait="):
        words[:1] = ["--wait", words[0][len("--wait="):]]
    if words:
        if len(words) != 2 or words[0] != "--wait":
            raise BotSpecError(f"remote:{bot} takes one option, --wait SECONDS, not {shlex.join(options)!r}")
        try:
            wait = float(words[1])
        except ValueError:
            wait = -1.0
        if not (0 <= wait < math.inf):
            raise BotSpecError(f"remote:{bot} --wait: seconds, not negative, not {words[1]!r}")
    return BotSpec(relay_argv(bot, url or None, wait), name or f"remote:{bot}", REMOTE)


REMOTE = BotKind(prefix="remote", parse=parse_remote, owns=is_relay, reserve=reserve_argv, check=check_remote)
"""The kind: its relay runs outside namespaces (it must reach the server; the bot runs elsewhere)."""

register_kind(REMOTE)
