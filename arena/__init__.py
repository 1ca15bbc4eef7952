"""The commands, composed: the top layer, which alone may import every
package (docs/architecture.md). `arena.cli` builds `driver` (the referee's
commands with `view` from the viewer and `serve`/`connect` from the game
server), `tournament`, `ladder`, `evolve` (with `evolve play`) and `exploit`,
and registers the game server's `remote:NAME` bots with the referee."""
