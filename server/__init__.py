"""The game server: network seats, people in the browser, live games.

`driver serve` runs one process: an ASGI application (Starlette on
uvicorn) for pages, the JSON API and WebSockets, and a TCP listener for
the original game server's protocol, on one event loop; each game runs
through the referee (`driver.game.play_game`) in a thread of its own.
`driver connect` (`server.bridge`) plays a local stdio bot on a server;
`server.relay` plays a connected bot in a referee elsewhere
(`remote:NAME` in tournaments and the ladder). docs/server.md describes
the protocols; docs/architecture.md how the parts fit.
"""
