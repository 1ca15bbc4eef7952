"""The docs are a contract: every shell command they show runs.

Collected from README.md and docs/*.md: every line of a fenced block
marked `sh`, `bash` or `shell` (a trailing backslash continues a line),
and every inline code span that starts with `.venv/bin/` (a whole
command in the prose). Blocks without a language are synopses and
output samples: not run. Each block (or inline command) is one test,
run line by line with bash (pipefail) in a fresh directory that holds
links to the repository's files and `.venv` (this interpreter's
environment), so that the docs' relative paths work and what the
commands write stays there.

A command the test must run differently says so in an HTML comment
right before its block or span (invisible on the rendered page):

    <!-- docs-test: slow; sub "--games 50" "--games 4"; exit 0,3 -->

- `sub "OLD" "NEW"`: replace text in each command (shrink game counts,
  budgets; the docs keep the real figures);
- `exit N,M`: exit statuses that mean success (default 0; `driver run`
  exits 3 for a draw);
- `slow`: only in the slow set (`-m slow`), for commands of minutes;
- `timeout S`: seconds per command (default 600);
- `background S`: a server: within S seconds it must print the http://
  address it serves, answer a request there and still run; it is then
  stopped (SIGINT);
- `clone`: run in a fresh copy of the repository's tracked files, with
  no `.venv` (the quick start);
- `requires PROGRAM`: skipped where PROGRAM is not on PATH (node);
- `skip REASON`: not run, with the reason (another test covers it).

A command that starts with `nice -n N` (a bench, polite on a shared
machine) runs without it: beside the suite's own workers, which it would
yield to, it ran at a tenth of a core and finished last (6-12 times its
CPU time in wall clock, the benches of docs/exploit.md and
docs/tournaments.md, in a full run on the shared machine).

A new command in the docs is picked up with no change here.
"""

from __future__ import annotations

import os
import re
import selectors
import shlex
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from protocol.cards import CARDS

ROOT = Path(__file__).resolve().parent.parent
DOCS = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
SHELL_LANGUAGES = ("sh", "bash", "shell")
DEFAULT_TIMEOUT = 600.0

_FENCE = re.compile(r"^```(\w*)[^\n]*\n(.*?)^```", re.S | re.M)
_DIRECTIVE = re.compile(r"<!--\s*docs-test:(.*?)-->", re.S)
_INLINE = re.compile(r"`(\.venv/bin/[^`\n]+)`")


@dataclass
class Directives:
    """How to run one documented block (see the module's docstring)."""

    subs: list[tuple[str, str]] = field(default_factory=list)
    exits: tuple[int, ...] = (0,)
    slow: bool = False
    timeout: float = DEFAULT_TIMEOUT
    background: float | None = None
    clone: bool = False
    requires: list[str] = field(default_factory=list)
    skip: str | None = None


@dataclass
class Documented:
    """One block (or inline command) of a document, at its line."""

    where: str
    commands: list[str]
    directives: Directives


def parse_directives(text: str) -> Directives:
    """Read `a; b; c` directives; an unknown one is an error, so that a typo
    cannot silently run the docs' real (long) command."""
    out = Directives()
    for part in filter(None, (p.strip() for p in text.split(";"))):
        word, _, rest = part.partition(" ")
        if word == "sub":
            old, new = shlex.split(rest)
            out.subs.append((old, new))
        elif word == "exit":
            out.exits = tuple(int(n) for n in rest.split(","))
        elif word == "slow":
            out.slow = True
        elif word == "timeout":
            out.timeout = float(rest)
        elif word == "background":
            out.background = float(rest)
        elif word == "clone":
            out.clone = True
        elif word == "requires":
            out.requires.append(rest.strip())
        elif word == "skip":
            out.skip = rest.strip() or "no reason given"
        else:
            raise ValueError(f"unknown docs-test directive {word!r} in {text!r}")
    return out


def _directives_before(text: str, start: int) -> Directives:
    """The directives of the comment that ends just before `start` (blank
    space between them allowed), or the defaults."""
    before = text[:start].rstrip()
    m = _DIRECTIVE.fullmatch(before[before.rfind("<!--"):]) if before.endswith("-->") else None
    return parse_directives(m.group(1)) if m else Directives()


def _lines(body: str) -> list[str]:
    commands, current = [], ""
    for line in body.splitlines():
        if line.rstrip().endswith("\\"):
            current += line.rstrip()[:-1] + " "
            continue
        current += line
        if current.strip():
            commands.append(current.strip())
        current = ""
    return commands


def collect(path: Path) -> list[Documented]:
    """Every documented command of one markdown file, in order."""
    text = path.read_text()
    name = path.relative_to(ROOT).as_posix() if path.is_relative_to(ROOT) else path.name
    found = []
    for m in _FENCE.finditer(text):
        if m.group(1) in SHELL_LANGUAGES:
            line = text.count("\n", 0, m.start()) + 1
            found.append(Documented(f"{name}:{line}", _lines(m.group(2)), _directives_before(text, m.start())))
    prose = _FENCE.sub(lambda m: "\n" * m.group(0).count("\n"), text)  # keep line numbers
    for m in _INLINE.finditer(prose):
        line = prose.count("\n", 0, m.start()) + 1
        found.append(Documented(f"{name}:{line}", [m.group(1)], _directives_before(prose, m.start())))
    return found


ALL = [d for path in DOCS for d in collect(path)]


def _params() -> list[object]:
    params = []
    for d in ALL:
        marks = [pytest.mark.slow] if d.directives.slow else []
        if d.directives.skip:
            marks.append(pytest.mark.skip(reason=d.directives.skip))
        for program in d.directives.requires:
            if shutil.which(program) is None:
                marks.append(pytest.mark.skip(reason=f"{program} is not installed"))
        params.append(pytest.param(d, id=f"{d.where} {d.commands[0][:60]}", marks=marks))
    return params


def _workspace(tmp_path: Path, clone: bool) -> Path:
    """Where the commands run: links to the repository's files (or a copy
    of the tracked ones) and, unless cloning, `.venv` to this environment.
    `tmp_path` must be a folder the bots may enter: run as nobody (when we
    are root), they start in the current directory."""
    work = tmp_path / "work"
    work.mkdir()
    if clone:
        listed = subprocess.run(["git", "ls-files", "-z"], cwd=ROOT, capture_output=True, check=True).stdout
        for name in filter(None, listed.decode().split("\0")):
            source, target = ROOT / name, work / name
            if source.is_file():
                target.parent.mkdir(parents=True, exist_ok=True)
                shutil.copy2(source, target)
        return work
    for entry in ROOT.iterdir():
        if entry.name not in (".venv", ".git") and not entry.name.endswith(".egg-info"):
            (work / entry.name).symlink_to(entry)
    (work / ".venv").symlink_to(Path(sys.prefix))
    return work


_NICE = re.compile(r"^nice -n \d+ ")


def to_run(command: str, d: Directives) -> str:
    """The documented command as the test runs it: its `sub` directives
    applied, and without a leading `nice -n N` (see the module's docstring)."""
    for old, new in d.subs:
        command = command.replace(old, new)
    return _NICE.sub("", command)


def _run(command: str, work: Path, d: Directives) -> None:
    command = to_run(command, d)
    home = work.parent / "home"  # what a command keeps in the user's home (the ladder) stays here
    home.mkdir(exist_ok=True)
    # Bytecode as the rest of the suite has it (written beside the sources
    # unless PYTHONDONTWRITEBYTECODE says otherwise; forced off, every command
    # compiled numpy, scipy and our modules again); the clone's `pip install`
    # compiles none up front: its one game compiles only what it imports.
    env = {**os.environ, "PIP_COMPILE": "0", "HOME": str(home)}
    for name in ("VIRTUAL_ENV", "XDG_DATA_HOME", "XDG_CONFIG_HOME", "XDG_CACHE_HOME", "ECONOMANCY_SERVER"):
        env.pop(name, None)
    if d.background is not None:
        proc = subprocess.Popen(["bash", "-o", "pipefail", "-c", f"exec {command}"], cwd=work, env=env,
                                stdout=subprocess.PIPE, stderr=subprocess.STDOUT, start_new_session=True)
        try:
            said = _served_address(proc, d.background)
            assert said.url, f"{command!r} said no http:// address in {d.background:g} s:\n{said.text}"
            with urllib.request.urlopen(said.url, timeout=d.background) as page:
                assert page.status == 200, f"{command!r}: {said.url} answered {page.status}"
            assert proc.poll() is None, f"{command!r} exited with {proc.returncode}:\n{said.text}"
        finally:
            if proc.poll() is None:
                os.killpg(proc.pid, signal.SIGINT)
                try:
                    proc.wait(60)
                except subprocess.TimeoutExpired:
                    os.killpg(proc.pid, signal.SIGKILL)
                    proc.wait()
        return
    done = subprocess.run(["bash", "-o", "pipefail", "-c", command], cwd=work, env=env, capture_output=True,
                          timeout=d.timeout, stdin=subprocess.DEVNULL)
    assert done.returncode in d.exits, (
        f"{command!r} exited with {done.returncode}\n--- stdout\n{done.stdout.decode(errors='replace')[-3000:]}"
        f"\n--- stderr\n{done.stderr.decode(errors='replace')[-3000:]}"
    )


@dataclass
class Served:
    """What a server printed until it said where it serves (`url`, "" if it never did)."""

    url: str
    text: str


_URL = re.compile(rb"http://[\w.:\[\]-]+/?")


def _served_address(proc: subprocess.Popen[bytes], seconds: float) -> Served:
    """Read the server's output until it prints an http:// address, for at
    most `seconds`: the server is waited for as long as it takes to start,
    not a fixed time (a fixed sleep was 15 s a command)."""
    assert proc.stdout is not None
    os.set_blocking(proc.stdout.fileno(), False)
    out, deadline = b"", time.monotonic() + seconds
    with selectors.DefaultSelector() as sel:
        sel.register(proc.stdout, selectors.EVENT_READ)
        while (left := deadline - time.monotonic()) > 0:
            if not sel.select(left):
                break
            chunk = proc.stdout.read()
            if not chunk:  # the server ended
                break
            out += chunk
            if m := _URL.search(out):
                return Served(m.group().decode(), out.decode(errors="replace"))
    return Served("", out.decode(errors="replace"))


@pytest.fixture
def open_tmp() -> Iterator[Path]:
    """A temporary folder anyone may enter (pytest's tmp_path is private)."""
    path = Path(tempfile.mkdtemp(prefix="docs-test-", dir="/tmp"))
    path.chmod(0o755)
    try:
        yield path
    finally:
        shutil.rmtree(path, ignore_errors=True)


@pytest.mark.parametrize("documented", _params())
def test_documented_command_runs(documented: Documented, open_tmp: Path) -> None:
    work = _workspace(open_tmp, documented.directives.clone)
    for command in documented.commands:
        _run(command, work, documented.directives)


# --- the collector itself, and the docs' other promises -------------------------


def test_directives_are_read_and_a_typo_is_refused(tmp_path: Path) -> None:
    text = 'x\n<!-- docs-test: slow; sub "--games 50" "--games 4"; exit 0,3 -->\n```sh\nrun --games 50 \\\n  -o x\n```\n'
    path = tmp_path / "sample.md"
    path.write_text(text)
    (d,) = collect(path)
    assert d.commands == ["run --games 50    -o x"]
    assert d.directives.slow and d.directives.exits == (0, 3) and d.directives.subs == [("--games 50", "--games 4")]
    with pytest.raises(ValueError, match="unknown docs-test directive"):
        parse_directives("slwo")
    assert to_run("nice -n 10 .venv/bin/python bench/x.py --games 50", d.directives) == (
        ".venv/bin/python bench/x.py --games 4")
    assert to_run("echo nice -n 10 x", d.directives) == "echo nice -n 10 x"


_SERVER = """import http.server, signal, sys, time
signal.signal(signal.SIGINT, signal.SIG_DFL)  # stopped with SIGINT, which a test worker's children inherit ignored
if sys.argv[1] == "silent":
    time.sleep(60)
elif sys.argv[1] == "refused":
    print(f"serving http://127.0.0.1:{sys.argv[2]}/", flush=True)
    time.sleep(60)
else:
    server = http.server.HTTPServer(("127.0.0.1", 0), http.server.SimpleHTTPRequestHandler)
    print(f"serving http://127.0.0.1:{server.server_address[1]}/", flush=True)
    server.serve_forever()
"""


def test_a_background_command_must_say_where_it_serves_and_answer_there(tmp_path: Path) -> None:
    """`background S` waits for the address, not for S seconds: a server that
    says none, or says one where nothing answers, fails; one that serves passes."""
    d, work = Directives(background=2.0), tmp_path / "work"
    work.mkdir()
    (work / "server.py").write_text(_SERVER)
    with pytest.raises(AssertionError, match="said no http:// address in 2 s"):
        _run(f"{sys.executable} server.py silent", work, d)
    with socket.socket() as unused:
        unused.bind(("127.0.0.1", 0))  # bound, not listening: connecting is refused
        port = unused.getsockname()[1]
        with pytest.raises(urllib.error.URLError):
            _run(f"{sys.executable} server.py refused {port}", work, d)
    _run(f"{sys.executable} server.py serve", work, Directives(background=60.0))


def test_the_docs_show_commands() -> None:
    assert len(ALL) >= 20  # the collector finds them (a broken pattern would find none)


def test_no_path_outside_the_repository() -> None:
    for path in [*DOCS, *sorted((ROOT / "tests").glob("*.py"))]:
        text = path.read_text()
        for bad in ("../shared", "/work/", "../../"):
            assert bad not in text or path.name == "test_docs.py", f"{path.name} refers to {bad}"


def test_the_rules_card_table_is_the_engines() -> None:
    """docs/rules.md's table, column by column, against protocol.cards."""
    rows = {}
    for line in (ROOT / "docs" / "rules.md").read_text().splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(cells) == 10 and cells[0] in {c.name for c in CARDS}:
            rows[cells[0]] = cells
    assert len(rows) == len(CARDS)

    def shown(value: int | None) -> str:
        return "-" if value is None else str(value)

    for card in CARDS:
        _, cost, atk, def_, attacks, defends, points, copies, _, sets = rows[card.name]
        assert (cost, atk, def_) == (shown(card.cost), shown(card.atk), shown(card.def_)), card.name
        assert (attacks, defends, points) == (str(card.attacks), str(card.defends), str(card.points)), card.name
        if card.id:
            assert copies == str(card.per_player), card.name
            assert sets == ("simple, base" if card.id <= 8 else "base"), card.name


SCRIPTS = ("driver", "tournament", "ladder", "evolve", "exploit")
_OPTION = re.compile(r"(?<![\w-])(--[a-z][a-z0-9-]*|-[a-zA-Z])(?![\w-])")


def _help(script: str, sub: str | None) -> str:
    """The --help of a console script, or of its subcommand `sub`."""
    from click.testing import CliRunner

    from arena.cli import driver, evolve, ladder_main
    from arena.cli import exploit_main as exploit
    from arena.cli import tournament_main as tournament

    group = {"driver": driver, "tournament": tournament, "ladder": ladder_main, "evolve": evolve, "exploit": exploit}[script]
    return CliRunner().invoke(group, ([sub] if sub else []) + ["--help"]).output


def _subcommand(script: str, word: str) -> str | None:
    from arena.cli import driver, evolve, ladder_main, tournament_main

    group = {"driver": driver, "tournament": tournament_main, "ladder": ladder_main, "evolve": evolve}.get(script)
    if group is None:
        return None
    return word if word in group.commands else ("run" if script == "evolve" else None)  # evolve KEY: evolve run KEY


def test_every_option_a_synopsis_shows_exists() -> None:
    """The synopses (blocks without a language) name options of our commands:
    each must be one the command (or subcommand) shown accepts."""
    helps: dict[tuple[str, str | None], str] = {}
    for path in DOCS:
        for m in _FENCE.finditer(path.read_text()):
            if m.group(1):
                continue
            command: tuple[str, str | None] | None = None
            for line in m.group(2).splitlines():
                words = line.split()
                if not words:
                    continue
                if words[0] in SCRIPTS:
                    command = (words[0], _subcommand(words[0], words[1] if len(words) > 1 else ""))
                elif not line[:1].isspace():
                    command = None  # a continuation line keeps the command above
                if command is None:
                    continue
                text = helps.setdefault(command, _help(*command))
                for option in _OPTION.findall(line.split("#")[0]):
                    shown = re.search(rf"(?<![\w-]){re.escape(option)}(?![\w-])", text)
                    assert shown, f"{path.name}: {' '.join(filter(None, command))} has no {option}: {line.strip()}"


def test_no_bench_script_hides_a_package() -> None:
    """`python bench/X.py` puts bench/ first on the import path: a script
    named like one of our packages (bench/server.py did) hides it from every
    import the script makes (`'server' is not a package`)."""
    packages = {p.name for p in ROOT.iterdir() if (p / "__init__.py").exists()}
    assert {"driver", "server", "tournaments"} <= packages
    assert not {p.stem for p in (ROOT / "bench").glob("*.py")} & packages
