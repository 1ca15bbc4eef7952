"""The packages' layering (docs/architecture.md): no import runs back up.

Every module of every package is read (not imported), and each import,
at the top or inside a function, must name a package of a lower layer or
the module's own; packages of one layer do not import each other. A
private name (`_name`) is never imported from another module.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]

LAYERS: tuple[tuple[str, ...], ...] = (
    ("common",),
    ("protocol",),
    ("viewer", "bots"),
    ("driver",),
    ("tournaments",),
    ("server", "exploit"),
    ("arena",),
)
"""Lowest first, as docs/architecture.md draws them."""
RANK = {package: rank for rank, layer in enumerate(LAYERS) for package in layer}


def modules() -> list[Path]:
    return sorted(p for package in RANK for p in (ROOT / package).rglob("*.py"))


def imports(path: Path) -> list[tuple[int, str, tuple[str, ...]]]:
    """(line, module, names) of every absolute import in `path`."""
    found = []
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Import):
            found += [(node.lineno, alias.name, ()) for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            found.append((node.lineno, node.module, tuple(alias.name for alias in node.names)))
    return found


def module_name(path: Path) -> str:
    parts = path.relative_to(ROOT).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def upward_imports(path: Path, package: str) -> list[str]:
    """The imports in `path`, a module of `package`, of a package not below it."""
    wrong = []
    for line, module, _ in imports(path):
        target = module.split(".")[0]
        if target in RANK and target != package and RANK[target] >= RANK[package]:
            wrong.append(f"{path}:{line}: {package} (layer {RANK[package]}) imports {module}"
                         f" (layer {RANK[target]})")
    return wrong


def private_imports(path: Path, own: str) -> list[str]:
    """Private names that `path`, module `own`, takes from another module. A
    private module is not a name: the C core (`protocol._engine`) is its
    package's to hand out."""
    wrong = []
    for line, module, names in imports(path):
        if module.split(".")[0] in RANK and module != own:
            folder = ROOT.joinpath(*module.split("."))
            wrong += [f"{path}:{line}: from {module} import {name}"
                      for name in names if name.startswith("_") and not name.startswith("__")
                      and not any(folder.glob(f"{name}.*"))]
    return wrong


def test_every_package_has_a_layer() -> None:
    packages = {p.parent.name for p in ROOT.glob("*/__init__.py")} - {"tests", "bench", "examples"}
    assert packages == set(RANK), "docs/architecture.md and LAYERS name every package"


def test_no_import_runs_back_up() -> None:
    wrong = [w for path in modules() for w in upward_imports(path, path.relative_to(ROOT).parts[0])]
    assert not wrong, "\n".join(wrong)


def test_no_private_name_is_imported_from_another_module() -> None:
    wrong = [w for path in modules() for w in private_imports(path, module_name(path))]
    assert not wrong, "\n".join(wrong)


@pytest.mark.parametrize("source, found", [
    ("from server.relay import reserve_argv\n", True),      # the referee reaching up to the server
    ("def f():\n    import tournaments.store\n", True),     # a lazy import is an import
    ("from bots import registry\n", False),                 # down a layer
    ("from driver.game import play_game\n", False),         # its own package
])
def test_the_check_sees_an_upward_import(tmp_path: Path, source: str, found: bool) -> None:
    module = tmp_path / "probe.py"
    module.write_text(source)
    assert bool(upward_imports(module, "driver")) is found


@pytest.mark.parametrize("source, found", [
    ("from tournaments.workers import _stderr_lines\n", True),  # another module's private helper
    ("from protocol import _engine\n", False),                  # a private module: its package's to hand out
    ("from driver.probe import _helper\n", False),              # its own module's
])
def test_the_check_sees_a_private_import(tmp_path: Path, source: str, found: bool) -> None:
    module = ROOT / "driver" / "probe.py"  # read, never written: the source comes from tmp_path
    probe = tmp_path / "probe.py"
    probe.write_text(source)
    assert bool(private_imports(probe, module_name(module))) is found


def test_a_console_script_imports_only_what_its_command_needs() -> None:
    """arena.cli builds each command when it is asked for: `driver` (started
    hundreds of times by the suite, and for every game a person plays) paid
    1.3 s of CPU for the tournaments' NumPy, the exploiter and the evolver
    when they were imported with the module."""
    import subprocess
    import sys

    probe = ("import sys\nfrom arena.cli import {name}\n"
             "print(' '.join(m for m in ('numpy', 'tournaments.cli', 'exploit.cli', 'bots.evolved.cli')"
             " if m in sys.modules))")

    def loaded(name: str) -> set[str]:
        done = subprocess.run([sys.executable, "-c", probe.format(name=name)], capture_output=True, text=True,
                              cwd=ROOT, timeout=300)
        assert done.returncode == 0, done.stderr
        return set(done.stdout.split())

    assert loaded("driver_main") == loaded("driver") == set()
    assert {"tournaments.cli", "exploit.cli"} & loaded("tournament_main") == {"tournaments.cli"}
    assert loaded("exploit_main") >= {"exploit.cli"} and "tournaments.cli" not in loaded("evolve")
    # The tournaments' NumPy only where ratings are fitted (tournaments.standings): a `tournament` or
    # `ladder` command that plays no game (add, list, --help) started 0.14 s of CPU sooner without it.
    assert "numpy" not in loaded("tournament_main") | loaded("ladder_main")
