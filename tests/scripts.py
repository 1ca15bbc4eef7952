"""Programs that are not modules of a package (bench/*.py, the replay bot),
imported by their path so that tests can call their functions."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from types import ModuleType


def load_script(path: Path) -> ModuleType:
    """The program at `path` as a module (named after its folder and file),
    its top level run once as an import runs it."""
    spec = importlib.util.spec_from_file_location(f"script_{path.parent.name}_{path.stem}", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # as an import does: dataclasses look their module up there
    spec.loader.exec_module(module)
    return module
