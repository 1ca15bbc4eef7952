"""What a BOT argument means: the one parser behind `driver run`, tournaments and the ladder.

Accepted forms, tried in this order:

- ``name=command``: any form below, shown as ``name`` in results;
- a first word containing ``/``: a program path (must exist and be executable),
  followed by its arguments (``"./bots/my_bot --depth 3"``);
- one of our bot names followed by its options (``"mcts --time 0.2"``);
- ``PREFIX:TEXT`` for a registered kind of bot (`BotKind`, `register_kind`):
  the game server registers ``remote:NAME`` (`server.relay`), a bot
  connected to a game server and played through a relay process;
- a command found on PATH with its arguments (``"node bot.js"``).

The text is split like a shell command line (quotes allowed). Every
problem is reported here, before any game starts, so a tournament never
dies on its hundredth game because of a typo in one bot's name.
"""

from __future__ import annotations

import difflib
import math
import os
import re
import shlex
import shutil
from collections.abc import Callable, Iterable, Sequence
from dataclasses import asdict, dataclass, field
from typing import Any

from common.settings import MAX_DAYS, Isolation

from bots import registry
from driver.isolation import Fence, Limits, check_env_entry, parse_size

__all__ = ["BotKind", "BotOptions", "BotSpec", "BotSpecError", "parse_bot", "parse_bot_options", "options_by_seat",
           "register_kind", "spec_for", "suggest"]

_NAMED = re.compile(r"^([A-Za-z0-9_.@+:-]+)=(.*)$", re.DOTALL)


class BotSpecError(ValueError):
    """A BOT argument that does not name a bot we can start."""


@dataclass(frozen=True, slots=True)
class BotKind:
    """A kind of bot that is not simply a program started here: the
    `PREFIX:TEXT` form of BOT, which a higher layer registers
    (`register_kind`; the game server's `remote:NAME`, `server.relay`), so
    that the referee plays it without knowing what stands behind it.

    Its functions are module-level, so that a BotSpec carrying its kind
    pickles to the tournament's worker processes (and unpickling there
    imports, and so registers, the kind's module)."""

    prefix: str
    """The word before the colon: `remote` for `remote:NAME`."""
    parse: Callable[[str, str | None, Sequence[str]], "BotSpec"]
    """(the text after `PREFIX:`, the display name given or None, the words after it) -> the BotSpec,
    raising BotSpecError with a readable reason."""
    owns: Callable[[Sequence[str]], bool]
    """Whether a stored argv (a ladder's bot) is one of this kind's."""
    reserve: Callable[[Sequence[str]], tuple[str, ...]]
    """The argv that starts the bot now. It may wait (a busy remote bot), so
    the referee calls it before the game's clock starts, never in between
    moves; an argv that cannot play reports its reason as its own fault."""
    check: Callable[[Sequence[str]], str | None]
    """Why the bot cannot play now, or None: asked before a tournament's first
    game, so that it stops at once rather than forfeit game after game."""
    isolation: Isolation = Isolation.RELAY
    """How its process is fenced off, whatever --isolation says (a relay must reach the network)."""


_KINDS: dict[str, BotKind] = {}


def register_kind(kind: BotKind) -> None:
    """Make `PREFIX:TEXT` BOTs mean `kind` in this process (again: replaced)."""
    _KINDS[kind.prefix] = kind


def _kind_of(argv: Sequence[str]) -> BotKind | None:
    return next((k for k in _KINDS.values() if k.owns(argv)), None)


@dataclass(frozen=True, slots=True)
class BotSpec:
    """How to start one bot (`argv`) and what to call it in results (`name`);
    `kind` if it is of a registered kind (`BotKind`), which then decides how
    it starts and is fenced off."""

    argv: tuple[str, ...]
    name: str
    kind: BotKind | None = field(default=None, repr=False)

    @property
    def ours(self) -> bool:
        """One of our named bots: they accept `--max-days`, which the wire does not carry."""
        return registry.owns(self.argv)

    def command(self, max_days: int = MAX_DAYS, seed: int | None = None) -> tuple[str, ...]:
        """The argv to start this bot for a game of `max_days` days (pure:
        nothing is asked of anyone; `launch` turns it into what starts now).

        Our bots plan for the game's end, and the wire never says when it
        comes, so a named bot of ours is told a non-default `max_days` on its
        command line (an explicit `--max-days` in the BOT text wins). A
        `seed` is appended as `--seed N` (unless the BOT text sets one):
        the caller decides which bots take one (ours do; others opt in).
        A bot of a registered kind takes neither: its argv is its kind's.
        """
        argv = self.argv
        if self.kind is not None:
            return argv
        if self.ours and max_days != MAX_DAYS and "--max-days" not in argv:
            argv = (*argv, "--max-days", str(max_days))
        if seed is not None and "--seed" not in argv:
            argv = (*argv, "--seed", str(seed))
        return argv

    def launch(self, argv: Sequence[str]) -> tuple[str, ...]:
        """The argv that starts this bot now, from its `command`: that argv,
        or for a bot of a registered kind what its kind makes of it (a remote
        bot is reserved on its server, waiting for it if it is busy: call
        this before the game's clock starts)."""
        return self.kind.reserve(argv) if self.kind is not None else tuple(argv)

    def unavailable(self) -> str | None:
        """Why this bot cannot play now (its kind's check), or None; a program is checked when parsed."""
        return self.kind.check(self.argv) if self.kind is not None else None


def spec_for(name: str, argv: Sequence[str]) -> BotSpec:
    """The BotSpec of a stored bot (a ladder's): its kind found again from its argv."""
    return BotSpec(tuple(argv), name, _kind_of(argv))


_BOT_OPTION_KEYS = {
    "timeout": "time for each answer (seconds)",
    "startup": "extra time for the first answer of a freshly started process (seconds)",
    "margin": "grace past the timeout before an answer counts as late (seconds)",
    "seed": "on/off: hand the bot the per-game seed as --seed N (default: on for our bots only)",
    "cpu": "CPU-time budget for each answer (seconds of CPU, whatever the wall clock says)",
    "memory": "memory of the bot's processes together (bytes, or 2G, 512M)",
    "processes": "processes and threads",
    "files": "open files per process",
    "filesize": "largest file it may write (bytes, or 1G)",
    "scratch": "its private /tmp, /var/tmp and /dev/shm together (bytes, or 512M)",
    "env": "NAME or NAME=VALUE: a variable passed to it (repeatable; see --bot-env)",
}
_SIZES = {"memory": "memory", "filesize": "file_size", "scratch": "scratch"}
_COUNTS = {"processes": "processes", "files": "files"}


@dataclass(frozen=True, slots=True)
class BotOptions:
    """Per-bot settings, `--bot-option NAME KEY=VALUE[,KEY=VALUE...]`: its
    time control, whether it is handed a per-game seed, its limits and the
    variables it is passed. None leaves the command's setting (`--timeout`,
    `--startup`, `--margin`, the default `Limits`) in force.

    In the spirit of cutechess's per-engine `tc=` and `timemargin=`: a
    bot's first answer may take `startup + timeout` seconds (a process
    that loads a model or a JVM, or any bot on a loaded machine, must not
    forfeit at move 0), every later one `timeout`; `margin` is added to
    both before the referee gives up, for pipe and scheduling jitter.
    `cpu` is a budget of CPU seconds per answer, checked beside the wall
    clock, so that a bot is judged by the work it did, not by how busy the
    machine was. The limits are `driver.isolation.Limits`'.
    """

    timeout: float | None = None
    startup: float | None = None
    margin: float | None = None
    seed: bool | None = None
    cpu: float | None = None
    memory: int | None = None
    processes: int | None = None
    files: int | None = None
    file_size: int | None = None
    scratch: int | None = None
    env: tuple[str, ...] = ()

    def over(self, base: "BotOptions") -> "BotOptions":
        """These settings, with `base`'s where these leave one unset (variables: base's, then these)."""
        merged = {f: getattr(self, f) if getattr(self, f) is not None else getattr(base, f) for f in _FIELDS}
        return BotOptions(**merged, env=(*base.env, *self.env))

    def to_json(self) -> dict[str, Any]:
        return {k: list(v) if k == "env" else v for k, v in asdict(self).items() if v is not None and v != ()}

    def fence(self) -> Fence:
        """The limits and variables this bot is started with (defaults where unset)."""
        default = Limits()
        return Fence(
            Limits(**{f: getattr(self, f) if getattr(self, f) is not None else getattr(default, f)
                      for f in ("memory", "processes", "files", "file_size", "scratch", "cpu")}),
            self.env,
        )


_FIELDS = ("timeout", "startup", "margin", "seed", "cpu", "memory", "processes", "files", "file_size", "scratch")


def parse_bot_options(text: str) -> BotOptions:
    """`timeout=2,startup=30,margin=0.1,seed=on,memory=4G,env=NAME` (commas or spaces) -> BotOptions."""
    values: dict[str, Any] = {}
    env: list[str] = []
    for item in re.split(r"[,\s]+", text.strip()):
        if not item:
            continue
        key, eq, value = item.partition("=")
        if not eq or key not in _BOT_OPTION_KEYS:
            known = ", ".join(f"{k}=" for k in _BOT_OPTION_KEYS)
            raise BotSpecError(f"bad bot option {item!r}: expected KEY=VALUE with KEY one of {known}{suggest(key, _BOT_OPTION_KEYS)}")
        if key == "seed":
            if value.lower() not in ("on", "off", "yes", "no", "true", "false", "1", "0"):
                raise BotSpecError(f"bad bot option {item!r}: seed is on or off")
            values[key] = value.lower() in ("on", "yes", "true", "1")
            continue
        if key == "env":
            try:
                env.append(check_env_entry(value))
            except ValueError as e:
                raise BotSpecError(f"bad bot option {item!r}: {e}") from None
            continue
        if key in _SIZES:
            try:
                values[_SIZES[key]] = parse_size(value)
            except ValueError as e:
                raise BotSpecError(f"bad bot option {item!r}: {e}") from None
            continue
        if key in _COUNTS:
            if not value.isdigit() or int(value) < 1:
                raise BotSpecError(f"bad bot option {item!r}: {key} is a whole number above 0")
            values[_COUNTS[key]] = int(value)
            continue
        try:
            seconds = float(value)
        except ValueError:
            seconds = math.nan
        positive = key in ("timeout", "cpu")
        if not math.isfinite(seconds) or seconds < 0 or (positive and seconds == 0):
            raise BotSpecError(f"bad bot option {item!r}: {key} is a number of seconds"
                               f" ({'above' if positive else 'at least'} 0)")
        values[key] = seconds
    if not values and not env:
        raise BotSpecError(f"empty bot options {text!r} (e.g. timeout=2,startup=30)")
    return BotOptions(**values, env=tuple(env))


def options_by_seat(names: Sequence[str], given: Iterable[tuple[str, str | BotOptions]]) -> list[BotOptions]:
    """Each bot's options from (NAME, options) pairs, in seat or entrant
    order. NAME is a bot's display name or `*` (every bot); later pairs
    win. An unknown NAME is an error (a typo must not go unnoticed)."""
    out = [BotOptions()] * len(names)
    for name, options in given:
        if isinstance(options, str):
            options = parse_bot_options(options)
        seats = [i for i, n in enumerate(names) if name in ("*", n)]
        if not seats:
            raise BotSpecError(f"--bot-option names {name!r}, which is none of the bots"
                               f" ({', '.join(names)}){suggest(name, names)}")
        for i in seats:
            out[i] = options.over(out[i])
    return out


def suggest(word: str, choices: Iterable[str]) -> str:
    """"; did you mean X?" for the closest choice, or ""."""
    close = difflib.get_close_matches(word, list(choices), n=1, cutoff=0.6)
    return f"; did you mean {close[0]!r}?" if close else ""


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
    word, colon, after = first.partition(":")
    if colon and word in _KINDS:
        return _KINDS[word].parse(after, name, rest)
    if "/" in first:
        argv = [_check_program(first)] + rest
    elif (prefix := registry.resolve(first)) is not None:
        if not registry.is_installed(first):
            raise BotSpecError(f"bot {first!r} is one of ours but is not available in this installation")
        try:
            argv = prefix + registry.arguments(first, rest)
        except (LookupError, OSError, ValueError) as e:
            raise BotSpecError(f"bot {first!r}: {e}") from None
    elif (found := shutil.which(first)) is not None:
        argv = [found] + rest
    else:
        ours = [n for n, _ in registry.names()]
        hint = suggest(first, ours)
        raise BotSpecError(
            f"unknown bot {first!r}: not one of ours ({', '.join(ours)}) nor a command on PATH"
            + f"{hint} (a program in the current directory is ./{first})"
        )
    return BotSpec(tuple(argv), name or shlex.join(words))


def _check_program(path: str) -> str:
    if not os.path.exists(path):
        raise BotSpecError(f"bot program {path!r} does not exist")
    if os.path.isdir(path):
        raise BotSpecError(f"bot program {path!r} is a directory")
    if not os.access(path, os.X_OK):
        raise BotSpecError(f"bot program {path!r} is not executable (chmod +x {shlex.quote(path)})")
    return path
