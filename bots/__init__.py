"""Our Economancy bots: one executable module per bot, the SDK they share
(`bots.sdk`) and the table of names the referee knows them by
(`bots.registry`).

Kept import-free so that starting a bot loads only what that bot needs.
"""
