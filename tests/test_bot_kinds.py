"""Kinds of BOT registered from above the referee (`driver.botspec.BotKind`):
the game server's `remote:NAME`. The referee knows nothing of servers; a
remote bot's argv is built without asking anyone, and reserved only when
its process is about to start."""

from __future__ import annotations

import pickle
import subprocess
import sys

from driver.botspec import BotSpec, parse_bot, spec_for
from driver.game import GameOptions


def test_building_a_remote_bots_command_asks_no_server() -> None:
    import server.remote_kind  # noqa: F401  (registers remote:NAME)
    from server import relay

    spec = parse_bot("remote:faraway@http://127.0.0.1:9 --wait 5")
    assert spec.kind is server.remote_kind.REMOTE and spec.name == "remote:faraway"
    assert relay.is_relay(spec.argv)
    # Pure: no reservation (no HTTP, no --ticket or --absent), whatever the day limit and seed.
    assert spec.command(30, seed=7) == spec.argv
    assert GameOptions(max_days=30, seed=7).command(spec, 0) == spec.argv


def test_a_remote_bot_is_fenced_by_its_kind_and_travels_to_workers() -> None:
    import server.remote_kind

    spec = parse_bot("remote:faraway")
    assert GameOptions(isolation="namespaces").isolation_for(spec) == "relay"
    assert GameOptions(isolation="namespaces").isolation_for(BotSpec(("/bin/true",), "t")) == "namespaces"
    # A tournament's worker process gets the spec pickled, its kind with it.
    again = pickle.loads(pickle.dumps(spec))
    assert again == spec and again.kind == server.remote_kind.REMOTE
    # A ladder's stored bot finds its kind again from its argv.
    assert spec_for("mine", spec.argv).kind is server.remote_kind.REMOTE
    assert spec_for("rnd", ("/bin/true",)).kind is None


def test_launch_reserves_and_reports_why_it_cannot() -> None:
    import server.remote_kind  # noqa: F401

    spec = parse_bot("remote:faraway@http://127.0.0.1:9")
    # No owner's token for that server here: the relay's argv carries the reason, as its fault.
    argv = spec.launch(spec.command())
    assert argv[: len(spec.argv)] == spec.argv and argv[-1].startswith("--absent=no token for remote bot 'faraway'")


def test_the_referee_alone_does_not_know_remote_bots() -> None:
    # Without the game server's package imported, remote:NAME is no bot the referee can start.
    code = ("import sys; from driver.botspec import parse_bot, BotSpecError\n"
            "try:\n    parse_bot('remote:faraway')\nexcept BotSpecError as e:\n    print(e)\n"
            "print('server' in ' '.join(sys.modules))")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert "unknown bot 'remote:faraway'" in done.stdout and done.stdout.splitlines()[-1] == "False"
