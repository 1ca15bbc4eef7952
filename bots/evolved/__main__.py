"""`python -m bots.evolved`: the evolved bot (the registry runs it this way)."""

from bots.evolved.bot import main

main()
