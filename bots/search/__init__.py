"""Game-tree search over the rules engine, shared by the `mcts`,
`alphabeta` and `champion` bots: one algorithm per module.

- `core`: the search core in C (protocol/search/), what the bots play, and
  its one interface (a game, a Budget, an Outcome); the Python modules
  below are its reference implementations, compared with it by
  tests/test_search_core.py;
- `actions`: the reduced move sets both searches branch over;
- `evaluation`: the heuristic value of a non-terminal state;
- `weights`: its weights and the files that ship them, and `records`, the
  immutable records the bots load (no dataclasses: start-up);
- `mcts`: simultaneous-move Monte Carlo tree search;
- `alphabeta`: depth-limited paranoid alpha-beta with iterative deepening;
- `mixed`: alpha-beta whose simultaneous root is solved as a matrix game
  (`matrix`), the champion's search;
- `tuning`: the self-play tuner that produced `weights.json`
  (`champion-v1.json`: those plus a weight on `race`; `champion.json`,
  the champion's, is the learned evaluation of `train`).
"""
