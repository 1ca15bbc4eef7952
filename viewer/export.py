"""Writing a replay page, opening it, and printing it to PDF or PNG frames.

Export needs a headless Chromium on PATH (`chromium`, as Debian's package
installs it, or `chromium-browser`, `google-chrome`); nothing is
downloaded. The PDF is one `--print-to-pdf` of the page in print mode
(`#print=day`: every chosen step drawn one under the other, one per
page); PNG frames are one `--screenshot` per step.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import tempfile
import webbrowser
from pathlib import Path

from viewer.model import Replay
from viewer.page import replay_page

__all__ = ["write_page", "open_in_browser", "find_chromium", "export_pdf", "export_png", "ExportError", "EVERY", "frame_steps"]

EVERY = ("day", "round", "step")
_TIMEOUT = 300.0  # seconds one Chromium run may take (a long game printed page by page)
_FLAGS = [
    "--headless", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--no-first-run",
    "--disable-background-networking", "--disable-component-update", "--disable-sync", "--hide-scrollbars",
]


class ExportError(RuntimeError):
    """Chromium is missing or failed; the message says which and why."""


def write_page(replay: Replay, output: Path) -> Path:
    """Write the replay's page and return its absolute path: its folder made
    if missing, the page replaced at once (a reader never sees half of it),
    never through a link another user laid (`common.safefile`)."""
    from common.safefile import make_dirs, write_file

    make_dirs(output.parent)
    return write_file(output, replay_page(replay))


def open_in_browser(path: Path) -> bool:
    """Open a written page in the user's browser; False when none could be started."""
    return webbrowser.open(path.resolve().as_uri())


def find_chromium() -> str:
    for name in ("chromium", "chromium-browser", "google-chrome", "google-chrome-stable"):
        found = shutil.which(name)
        if found:
            return found
    raise ExportError("PDF/PNG export needs a headless Chromium on PATH (Debian: apt-get install chromium)")


def _run(browser: str, args: list[str], flag: str, output: Path) -> None:
    """One Chromium run writing `output`: Chromium writes into a private
    folder of ours (it would follow any link at the path it is given), and
    the file is then moved to `output` the safe way (`common.safefile`)."""
    from common.safefile import error_text, write_file

    with tempfile.TemporaryDirectory(prefix="economancy-chromium-") as private:
        made = Path(private) / ("out.pdf" if flag == "--print-to-pdf" else "out.png")
        try:
            done = subprocess.run([browser, *_FLAGS, f"--user-data-dir={private}/profile", f"{flag}={made}", *args],
                                  capture_output=True, timeout=_TIMEOUT, stdin=subprocess.DEVNULL)
        except subprocess.TimeoutExpired:
            raise ExportError(f"{browser} did not finish within {_TIMEOUT:.0f} s") from None
        if done.returncode != 0:
            tail = done.stderr.decode("utf-8", "replace").strip().splitlines()[-3:]
            raise ExportError(f"{browser} failed (exit {done.returncode}): {' / '.join(tail)}")
        if not made.exists() or made.stat().st_size == 0:
            raise ExportError(f"Chromium wrote nothing for {output}")
        try:
            write_file(output, made.read_bytes())
        except OSError as e:
            raise ExportError(error_text(e, output)) from None


def export_pdf(page: Path, pdf: Path, every: str = "day") -> Path:
    """Print one frame per day, round or step of the page's first game to a PDF."""
    if every not in EVERY:
        raise ExportError(f"--every must be one of {', '.join(EVERY)}")
    browser = find_chromium()
    pdf = Path(os.path.abspath(pdf))  # not resolve(): the safe write decides which links to follow
    _run(browser, ["--no-pdf-header-footer", "--virtual-time-budget=30000",
                   page.resolve().as_uri() + f"#print={every}"], "--print-to-pdf", pdf)
    return pdf


def export_png(page: Path, directory: Path, steps: list[int], width: int = 1400, height: int = 1000) -> list[Path]:
    """One screenshot per step index (0-based) of the page's first game."""
    from common.safefile import make_dirs

    browser = find_chromium()
    directory = make_dirs(directory)
    out = []
    for step in steps:
        png = directory / f"step-{step:05d}.png"
        _run(browser, [f"--window-size={width},{height}", "--virtual-time-budget=5000",
                       page.resolve().as_uri() + f"#step={step}"], "--screenshot", png)
        out.append(png)
    return out


def frame_steps(replay: Replay, every: str) -> list[int]:
    """The steps one frame per day/round/step shows: the last step of each
    day or round (the table as that unit left it), or every step."""
    steps = replay.games[0].steps
    if every == "step":
        return list(range(len(steps)))
    key = "D" if every == "day" else "r"
    return [i for i, s in enumerate(steps) if i == len(steps) - 1 or steps[i + 1][key] != s[key]]
