"""The options every command spells the same way (common.options)."""

from __future__ import annotations

import click
import pytest
from click.testing import CliRunner

from common.options import backend_for, ray_address_option


@click.command()
@click.option("--backend", type=click.Choice(["local", "ray"]), default=None)
@ray_address_option
def _which(backend: str | None, ray_address: str | None) -> None:
    click.echo(backend_for(backend, ray_address))


@pytest.mark.parametrize("args, env, chosen", [
    ((), {}, "local"),
    ((), {"RAY_ADDRESS": "auto"}, "local"),                    # the variable alone moves nothing onto a cluster
    (("--ray-address", "auto"), {}, "ray"),                   # the flag does
    (("--ray-address", "auto", "--backend", "local"), {}, "local"),
    (("--backend", "ray"), {}, "ray"),
])
def test_ray_only_when_an_address_is_given_on_the_command_line(args: tuple[str, ...], env: dict[str, str],
                                                                chosen: str) -> None:
    result = CliRunner().invoke(_which, list(args), env={"RAY_ADDRESS": None, **env})
    assert result.exit_code == 0, result.output
    assert result.output.strip() == chosen
