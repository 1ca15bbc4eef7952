"""Watching games: the replay page of a trace and the one table renderer.

`viewer.model` turns trace lines into the steps a person steps through
(pure Python, unit-tested); `viewer.page` embeds that model in one
self-contained HTML file with the renderer (`viewer/static/table.js`,
`table.css`, shared with the game server's live pages) and the replay
navigation (`replay.js`, `replay.css`); `viewer.export` prints a page to
PDF or PNG frames in headless Chromium.
"""
