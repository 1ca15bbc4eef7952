"""Game-tree search over the rules engine, shared by the `mcts` and
`alphabeta` bots: one algorithm per module.

- `actions`: the reduced move sets both searches branch over;
- `evaluation`: the heuristic value of a non-terminal state and its weights;
- `mcts`: simultaneous-move Monte Carlo tree search;
- `alphabeta`: depth-limited paranoid alpha-beta with iterative deepening;
- `tuning`: the self-play tuner that produced `weights.json`.
"""
