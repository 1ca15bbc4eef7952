"""What every package may use: the game's default numbers (`common.defaults`)
and settings (`common.settings`), the one pool of worker processes for games
(`common.pool`), immutable records cheap to import (`common.records`), the escaping of hostile text for people (`common.text`),
output files opened safely (`common.safefile`) and the command-line options
spelled the same on every command (`common.options`). It imports nothing of ours, so that no
import runs back up the layers drawn in docs/architecture.md."""
