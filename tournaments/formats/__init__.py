"""Tournament formats over a Context: round robin and gauntlet, elimination, SPRT."""
