"""What a spectator's page draws of a game in progress.

The view is the replay's own model (`viewer.model`) of the trace lines
spectators may see so far (`server.referee.Withholder` decides which),
plus the question the referee is waiting on now: its state carries no
hidden choice, and without it the last round would only be explained
(the investments revealed, the fight resolved) once the next one ends.
That question is drawn as an unanswered step ("thinking...").

Pages get the model once, then only what changed: the model of a longer
trace starts like the model of a shorter one, except for its last steps,
so an update is "states from index i" and "steps from index j".
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

__all__ = ["build_view", "view_update"]


def build_view(lines: Sequence[bytes], names: Sequence[str], asking: bytes | None) -> dict[str, Any] | None:
    """The view model of a game so far (None before its first state).
    `asking`: the state line of the question being waited on, if any."""
    from viewer.model import TraceError, build_replay

    shown = list(lines) + ([asking] if asking else [])
    if not shown:
        return None
    try:
        replay = build_replay(shown, names)
    except TraceError:
        return None
    game = replay.games[-1].to_json()
    steps = game["steps"]
    if steps and steps[-1]["k"] == "cut":
        steps.pop()  # a game in progress, not a trace that stops
    if asking and steps and steps[-1]["k"] == "ask" and steps[-1].get("a") is None:
        steps[-1].pop("a", None)  # the renderer's "thinking..."
        steps[-1]["m"] = {}
    return game


def view_update(old: dict[str, Any] | None, new: dict[str, Any]) -> dict[str, Any]:
    """What a page holding `old` needs to hold `new`."""
    if old is None or old.get("names") != new.get("names") or old.get("shop") != new.get("shop"):
        return {"full": new}
    return {
        "states_from": _common(old["states"], new["states"]),
        "states": new["states"][_common(old["states"], new["states"]):],
        "steps_from": _common(old["steps"], new["steps"]),
        "steps": new["steps"][_common(old["steps"], new["steps"]):],
        "chart": new["chart"],
        "result": new["result"],
    }


def _common(a: list[Any], b: list[Any]) -> int:
    n = min(len(a), len(b))
    i = 0
    while i < n and a[i] == b[i]:
        i += 1
    return i
