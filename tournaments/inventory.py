"""`tournament list`: what a results database holds, tournament by tournament."""

from __future__ import annotations

import time
from typing import Any

from tournaments.store import Store


def inventory(store: Store) -> dict[str, Any]:
    """Every tournament with its bots, settings and stored games; the ladder's pool."""
    counts = store.game_counts()
    return {
        "db": str(store.path),
        "schema_version": store.version,
        "tournaments": [
            {
                "id": t.id,
                "kind": t.kind,
                "created": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime(t.created)) if t.created else None,
                "bots": [name for name, _ in t.entrants],
                "commands": {name: argv for name, argv in t.entrants},
                "config": {k: v for k, v in t.config.items() if k != "openings"},
                "openings": _openings(t.config.get("openings")),
                "games": counts.get(t.id, {}).get("finished", 0),
                "aborted": counts.get(t.id, {}).get("aborted", 0),
            }
            for t in store.tournaments()
        ],
        "ladder_bots": [name for name, _ in store.ladder_bots()],
    }


def _openings(value: Any) -> str:
    if not value or "none" in value:
        return "none"
    if "random" in value:
        return f"random:{value['random']}"
    return f"a suite of {len(value.get('suite', []))}"


def render_inventory(inv: dict[str, Any]) -> str:
    lines = [f"{inv['db']} (results schema {inv['schema_version']})"]
    if not inv["tournaments"]:
        lines.append("no tournament yet")
    for t in inv["tournaments"]:
        cfg = dict(t["config"])
        options = cfg.pop("options", {})
        settings = ", ".join(f"{k} {v}" for k, v in cfg.items() if k not in ("ladder",))
        played = f"{t['games']} games" + (f" (+{t['aborted']} aborted)" if t["aborted"] else "")
        lines.append(f"{t['id']:>3}  {t['kind']}  {played}  created {t['created']}")
        if t["bots"]:
            lines.append(f"     bots: {', '.join(t['bots'])}")
        if settings:
            lines.append(f"     {settings}; openings {t['openings']}")
        if options:
            lines.append("     options: " + ", ".join(f"{k} {v}" for k, v in options.items()))
    if inv["ladder_bots"]:
        lines.append(f"ladder pool: {', '.join(inv['ladder_bots'])}")
    return "\n".join(lines)
