"""One GameSettings value (common.settings): defaults defined once, handed on
whole by every holder, stored formats unchanged."""

from __future__ import annotations

import dataclasses
import inspect
import json
from collections.abc import Callable

import orjson
import pytest
from click.testing import CliRunner

from common.settings import MAX_DAYS, STARTUP, TIMEOUT, GameSettings, Isolation
from driver.game import GameOptions
from tournaments.workers import PlayOptions


def test_every_holder_starts_from_the_same_defaults() -> None:
    from server.hub import Settings

    default = GameSettings()
    assert (default.max_days, default.timeout, default.startup) == (MAX_DAYS, TIMEOUT, STARTUP) == (100, 10.0, 30.0)
    assert GameOptions().settings() == default
    assert PlayOptions().settings() == default
    assert Settings().game == default
    from exploit.run import Settings as ExploitSettings

    assert ExploitSettings(budget=1.0).game == default


def _default(function: Callable[..., object], name: str) -> object:
    return inspect.signature(function).parameters[name].default


def test_no_default_day_limit_or_time_is_written_twice() -> None:
    """Every default day limit and time per move is `common.defaults`'
    (a bare 100 that drifted would fail here), the C core's included."""
    from arena.cli import evolve, exploit_main
    from bots import inprocess, sdk
    from bots.evolved.ga import Settings as EvolveSettings
    from driver.check import check_bot
    from exploit.arena import Arena
    from exploit.model import ProcessModel
    from protocol.engine import Game
    from protocol.openings import random_opening
    from tournaments.openings import OpeningPlan

    assert Game(2).max_days == MAX_DAYS  # the C core's own default
    assert Game.from_wire(Game(2).to_wire()).max_days == MAX_DAYS
    assert sdk.option_parser().parse_args([]).max_days == MAX_DAYS
    assert sdk.Session(lambda game, me: 0).max_days == MAX_DAYS
    days = [_default(f, "max_days") for f in (inprocess.play_game, random_opening, check_bot, ProcessModel)]
    assert days == [MAX_DAYS] * 4
    assert [_default(f, "timeout") for f in (check_bot, ProcessModel)] == [TIMEOUT] * 2
    assert EvolveSettings().max_days == MAX_DAYS and OpeningPlan("default").max_days == MAX_DAYS
    assert _default(Arena, "game") == GameSettings()
    for command in (exploit_main, evolve.commands["run"]):
        params = {p.name: p for p in command.params}
        assert params["max_days"].default == MAX_DAYS
    assert {p.name: p for p in exploit_main.params}["timeout"].default == TIMEOUT


@pytest.mark.parametrize("command", [("driver", "run"), ("tournament", "round-robin"), ("driver", "play")])
def test_the_commands_defaults_are_the_settings_defaults(command: tuple[str, str]) -> None:
    from arena.cli import driver, tournament_main

    group = {"driver": driver, "tournament": tournament_main}[command[0]]
    params = {p.name: p for p in group.commands[command[1]].params}
    assert params["max_days"].default == MAX_DAYS and params["timeout"].default == TIMEOUT
    assert params["isolation"].default == Isolation.AUTO
    assert f"[default: {STARTUP:g}]" in (params["startup"].help or "")


def test_a_tournament_hands_every_setting_to_the_referee() -> None:
    given = GameSettings(base=True, max_days=7, timeout=2.5, fair=True, startup=4.0, margin=0.5,
                         isolation=Isolation.NONE, bot_env=("HOME",))
    play = PlayOptions(**vars(given), bot_options={"*": "timeout=3"})
    game = play.game_options(seed=5)
    assert game.settings() == given and game.seed == 5
    # every field, including any added later: nothing is copied by hand
    assert all(getattr(game, f.name) == getattr(given, f.name) for f in dataclasses.fields(GameSettings))


def test_a_commands_options_make_the_settings() -> None:
    options = {"base": True, "max_days": 12, "timeout": 3.0, "fair": False, "startup": None, "margin": 0.25,
               "isolation": "none", "bot_env": ["LANG"], "bots": ("random",), "bot_options": ()}
    settings = GameSettings.from_options(options)
    assert settings == GameSettings(base=True, max_days=12, timeout=3.0, margin=0.25, isolation=Isolation.NONE,
                                    bot_env=("LANG",))
    assert settings.startup == STARTUP  # --startup not given
    assert PlayOptions.from_options({**options, "bot_options": [("*", "timeout=2")]}).bot_options[0][0] == "*"


def test_isolation_is_an_enum_spelled_as_before() -> None:
    options = GameOptions(isolation="namespaces")
    assert options.isolation is Isolation.NAMESPACES and options.isolation == "namespaces"
    assert json.dumps(options.isolation) == orjson.dumps(options.isolation).decode() == '"namespaces"'
    with pytest.raises(ValueError):
        GameSettings(isolation="sandbox")


def test_a_tournaments_stored_options_are_unchanged() -> None:
    # The SQLite store keeps these bytes in every game's row: they must not change with the settings' shape.
    stored = PlayOptions(max_days=30, bot_options={"mcts": "timeout=2"}, isolation="none", bot_env=("HOME",)).to_json()
    assert orjson.dumps(stored) == (b'{"base":false,"max_days":30,"timeout":10.0,"fair":false,"startup":30.0,'
                                    b'"margin":0.0,"bot_options":[["mcts",{"timeout":2.0}]]}')


def test_driver_run_plays_under_its_options(tmp_path) -> None:
    from arena.cli import driver

    done = CliRunner().invoke(driver, ["run", "--max-days", "2", "--isolation", "none", "random", "random",
                                       "--trace", str(tmp_path / "t.jsonl")])
    assert done.exit_code in (0, 3), done.output
    header = orjson.loads((tmp_path / "t.jsonl").read_bytes().splitlines()[0])
    assert "none (--isolation none)" in json.dumps(header)
