"""The command-line face of the viewer, shared by `driver view`, `driver run
--view` and `tournament replay`: the options are declared once here and
the commands stay a few lines each. Heavy imports wait until a command runs."""

from __future__ import annotations

import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any, BinaryIO, TypeVar

import click

__all__ = ["VIEW_EPILOG", "export_options", "view_trace", "write_run_replay", "emit_replay"]

F = TypeVar("F", bound=Callable[..., Any])

VIEW_EPILOG = """\b
Keys in the page: Left/Right a decision, Up/Down a round, PageUp/PageDown
a day, Home/End, Space plays. The address #step=N or #day=D opens one step.
\b
--pdf and --png print the page in a headless Chromium found on PATH
(chromium, chromium-browser or google-chrome; Debian: apt-get install
chromium); nothing is downloaded."""

RUN_REPLAY = Path("replay.html")


def export_options(f: F) -> F:
    """--pdf FILE, --png DIR and --every, for every command that writes a replay."""
    for option in (
        click.option("--every", type=click.Choice(["day", "round", "step"]), default="day", show_default=True,
                     help="One PDF page or PNG frame per day, round or step."),
        click.option("--png", "png", type=click.Path(file_okay=False, path_type=Path), default=None,
                     metavar="DIR", help="Also save PNG frames into DIR (needs Chromium)."),
        click.option("--pdf", "pdf", type=click.Path(dir_okay=False, path_type=Path), default=None,
                     metavar="FILE", help="Also print the replay to a PDF (needs Chromium)."),
    ):
        f = option(f)
    return f


def emit_replay(replay: Any, output: Path, open_: bool, pdf: Path | None = None, png: Path | None = None,
                every: str = "day") -> Path:
    """Write the page, print its path, then export and open as asked."""
    from common.safefile import error_text
    from viewer.export import ExportError, export_pdf, export_png, frame_steps, open_in_browser, write_page

    try:
        path = write_page(replay, output)
    except OSError as e:
        raise click.ClickException(error_text(e, output)) from None
    click.echo(str(path))
    try:
        if pdf is not None:
            click.echo(str(export_pdf(path, pdf, every)))
        if png is not None:
            frames = export_png(path, png, frame_steps(replay, every))
            click.echo(f"{len(frames)} frames in {png.resolve()}")
    except ExportError as e:
        raise click.ClickException(str(e)) from None
    if open_ and not open_in_browser(path):
        click.echo("no browser could be started; open the file above yourself", err=True)
    return path


def view_trace(trace: str, output: Path | None, open_: bool, *, pdf: Path | None = None,
               png: Path | None = None, every: str = "day") -> None:
    """`driver view`: read a trace file or standard input and write its page."""
    from viewer.model import TraceError, build_replay

    if trace == "-":
        data = sys.stdin.buffer.read()
        title = "Economancy replay"
        default = RUN_REPLAY
    else:
        path = Path(trace)
        try:
            data = path.read_bytes()
        except OSError as e:
            raise click.BadParameter(f"cannot read {trace}: {e.strerror or e}", param_hint="TRACE") from None
        title = f"Economancy replay: {path.name}"
        default = path.with_suffix(".html") if path.suffix != ".html" else path.with_suffix(".replay.html")
    try:
        replay = build_replay(data, title=title)
    except TraceError as e:
        raise click.BadParameter(str(e), param_hint="TRACE") from None
    emit_replay(replay, output or default, open_, pdf, png, every)


def write_run_replay(trace: Sequence[bytes], names: Sequence[str], stderr: Sequence[bytes], out: BinaryIO,
                     times: Sequence[float | None] = ()) -> None:
    """`driver run --view`: the page of the game just played, with the bots'
    names, the faulting bot's standard error and each answer's think time,
    written into `out` (the file run opened before its bots started, see
    `common.safefile`)."""
    from viewer.model import build_replay
    from viewer.page import replay_page

    replay = build_replay(trace, names, title="Economancy: " + " vs ".join(names),
                          stderr=[e.decode("utf-8", "replace") for e in stderr], times=times)
    out.seek(0)
    out.truncate()
    out.write(replay_page(replay).encode("utf-8"))
    out.flush()


@click.command(epilog=VIEW_EPILOG)
@click.argument("trace", metavar="TRACE")
@click.option("-o", "--output", type=click.Path(dir_okay=False, path_type=Path), default=None,
              help="The page to write [default: TRACE with .html, or replay.html for -].")
@click.option("--open", "open_", is_flag=True, help="Open the page in your browser.")
@export_options
def view(trace: str, output: Path | None, open_: bool, **export: Any) -> None:
    """Write a replay page of a game's trace: one self-contained HTML file.

    TRACE is a trace file (ours or the original driver's, a tournament
    stream of several games included) or - for standard input, so that
    `driver run A B | driver view -` shows the game just played. Prints
    the page's path.
    """
    view_trace(trace, output, open_, **export)
