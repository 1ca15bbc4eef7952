"""The evaluation's weights and the files that ship them.

`weights.json` holds the weights found by the self-play tuner in
`bots.search.tuning`, with a note of how; `champion.json` the
champion's, which add a weight on `race`. The evaluation itself is the C
core's (`bots.search.evaluation` is its Python reference); this module is
all of it a search bot loads before its first answer, so it imports
nothing but json: a bot's start-up is part of every game it plays.
"""

from __future__ import annotations

import json
import os

from common.records import Record

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing (start-up)
if TYPE_CHECKING:
    from typing import Any

__all__ = ["FEATURES", "Weights", "DEFAULT_WEIGHTS_FILE", "CHAMPION_WEIGHTS_FILE", "CHAMPION_V1_WEIGHTS_FILE", "load_weights", "save_weights",
           "load_note", "weights_from_json", "weights_to_json"]

FEATURES: tuple[str, ...] = (
    "points",
    "points_squared",
    "coins",
    "income",
    "attack",
    "defense",
    "defenders",
    "buys",
    "attackers",
    "exposed",
    "race",
    "firepower",
)
"""The names of a player's features, in the order of a weight vector
(bots.search.evaluation.all_features says what each one counts)."""


class Weights(Record):
    """One weight per feature, plus the scale of the squashing."""

    __slots__ = ("values", "scale")
    values: tuple[float, ...]
    scale: float

    def __init__(self, values: tuple[float, ...], scale: float = 10.0) -> None:
        if len(values) != len(FEATURES):
            raise ValueError(f"{len(values)} weights for {len(FEATURES)} features")
        self._set(values=values, scale=scale)

    def as_dict(self) -> dict[str, float]:
        return dict(zip(FEATURES, self.values))

    @staticmethod
    def from_dict(named: dict[str, float], scale: float = 10.0) -> Weights:
        unknown = set(named) - set(FEATURES)
        if unknown:
            raise ValueError(f"unknown features {sorted(unknown)}; expected {list(FEATURES)}")
        return Weights(tuple(float(named.get(name, 0.0)) for name in FEATURES), scale)


DEFAULT_WEIGHTS_FILE = "weights.json"
CHAMPION_WEIGHTS_FILE = "champion.json"
"""The champion's own weights, measured separately (docs/bots.md, the
champion), so that changing them does not silently change the other bots'
measured rows: the learned evaluation (`learned.json`, bots/search/train.py)
with the weight on coins set by hand."""
CHAMPION_V1_WEIGHTS_FILE = "champion-v1.json"
"""The champion's hand-tuned weights before the learned ones (alpha-beta's,
`weights.json`, plus a weight on `race`): `champion-v1` plays them, and the
self-play corpus of `learned.json` was played with them."""


def _packaged_text(name: str) -> str:
    """A file shipped in this package: read beside this module (a source
    tree, a wheel, a PyInstaller bundle), or through importlib.resources
    where it is not a file of its own (a zip), whose import alone cost a
    bot more than the rest of its start-up."""
    try:
        with open(os.path.join(os.path.dirname(__file__), name), encoding="utf-8") as handle:
            return handle.read()
    except OSError:
        from importlib import resources

        return resources.files(__package__).joinpath(name).read_text(encoding="utf-8")


def _weights_json(path: str | None, packaged: str = DEFAULT_WEIGHTS_FILE) -> dict[str, Any]:
    if path is None:
        text = _packaged_text(packaged)
    else:
        with open(path, encoding="utf-8") as handle:
            text = handle.read()
    data = json.loads(text)
    if not isinstance(data, dict):
        raise ValueError(f"{path or packaged}: not a weights file (not a JSON object)")
    return data


def weights_from_json(data: dict[str, Any]) -> Weights:
    """The weights of a weights file's JSON object; KeyError, TypeError or
    ValueError if it is not one."""
    return Weights.from_dict(data["weights"], float(data.get("scale", 10.0)))


def weights_to_json(weights: Weights, note: str) -> dict[str, Any]:
    """A weights file's JSON object: `weights` with a note of how they were made."""
    return {"weights": weights.as_dict(), "scale": weights.scale, "note": note}


def load_weights(path: str | None = None, packaged: str = DEFAULT_WEIGHTS_FILE) -> Weights:
    """The weights in the JSON file at `path`, or if None the shipped file
    `packaged` (one of the *_WEIGHTS_FILE names above)."""
    data = _weights_json(path, packaged)
    try:
        return weights_from_json(data)
    except (KeyError, TypeError, ValueError) as problem:
        raise ValueError(f"{path or packaged}: not a weights file ({problem})") from None


def save_weights(weights: Weights, path: str, note: str) -> None:
    """Write `weights` with a note of how they were made."""
    with open(path, "w", encoding="utf-8") as handle:
        json.dump(weights_to_json(weights, note), handle, indent=2)
        handle.write("\n")


def load_note(path: str | None = None, packaged: str = DEFAULT_WEIGHTS_FILE) -> str:
    """How the weights at `path` (default: the shipped file `packaged`) were made."""
    return str(_weights_json(path, packaged).get("note", ""))
