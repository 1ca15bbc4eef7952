"""The referee: bot processes, one refereed game and its trace, the `driver` command."""
