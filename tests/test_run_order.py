"""The suite's order (conftest.run_order): longest first, module by module,
so that no worker is left running a long test alone at the end."""

from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace
from typing import Any

from conftest import DURATIONS, known_durations, run_order, stable_id


def _item(nodeid: str, slow: bool = False) -> Any:
    return SimpleNamespace(nodeid=nodeid, get_closest_marker=lambda name: object() if slow and name == "slow" else None)


def test_the_longest_tests_modules_go_first_and_each_module_stays_together() -> None:
    items = [_item("a.py::quick"), _item("a.py::other"), _item("b.py::one"), _item("b.py::long"),
             _item("c.py::new_and_slow", slow=True), _item("c.py::new")]
    known = {"a.py::quick": 0.5, "b.py::long": 90.0, "b.py::one": 4.0}
    order = [item.nodeid for item in run_order(items, known)]
    assert order == ["b.py::long", "b.py::one", "c.py::new_and_slow", "c.py::new", "a.py::quick", "a.py::other"]


def test_the_file_is_read_and_names_tests_that_exist(tmp_path: Path) -> None:
    sample = tmp_path / "durations.tsv"
    sample.write_text("tests/test_x.py::test_y[a b]\t12.50\t3.00\ntests/test_x.py::test_z\t3.1\t0.2\n")
    assert known_durations(sample) == {"tests/test_x.py::test_y[a b]": 12.5, "tests/test_x.py::test_z": 3.1}
    assert known_durations(tmp_path / "missing.tsv") == {}
    modules = {nodeid.split("::")[0] for nodeid in known_durations(DURATIONS)}
    gone = sorted(module for module in modules if not (DURATIONS.parent.parent / module).is_file())
    assert modules and not gone, f"tests/durations.tsv names {gone}: write it again (conftest.known_durations)"


def test_a_documented_command_is_known_wherever_its_line_moves(tmp_path: Path) -> None:
    sample = tmp_path / "durations.tsv"
    sample.write_text("tests/test_docs.py::test_documented_command_runs[docs/a.md:439 .venv/bin/python b.py]\t39.5\t13\n")
    moved = _item("tests/test_docs.py::test_documented_command_runs[docs/a.md:464 .venv/bin/python b.py]")
    other = _item("tests/test_docs.py::test_documented_command_runs[docs/a.md:464 .venv/bin/python c.py]")
    known = known_durations(sample)
    assert stable_id(moved.nodeid) in known and stable_id(other.nodeid) not in known
    assert [item.nodeid for item in run_order([other, moved], known)] == [moved.nodeid, other.nodeid]
    assert stable_id("tests/test_x.py::test_y[a:12 b]") == "tests/test_x.py::test_y[a:12 b]"  # not a page
