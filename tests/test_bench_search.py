"""bench/search.py: its speed positions are ones every search searches."""

from __future__ import annotations

from pathlib import Path

import pytest

from bots.search import core
from bots.search.mcts import Searcher
from bots.search.weights import load_weights
from scripts import load_script

ROOT = Path(__file__).resolve().parent.parent
search_bench = load_script(ROOT / "bench" / "search.py")


@pytest.mark.parametrize("base", [False, True])
def test_both_mcts_search_at_each_speed_position(base: bool) -> None:
    """A ratio of iterations means something only where both searches
    iterate: at the day-1 bids the C core drops every bid but 0 (nobody
    holds an attacker), searches nothing, and the speed bench printed 0
    iterations/s for it there."""
    weights = load_weights()
    for position in (search_bench.first_buy(base), search_bench.mid_game(base)):
        assert 0 in position.pending()
        assert len(core.candidate_moves(position, 0)) > 1
        outcome = core.Mcts(weights, seed=1).search(position, 0, core.Budget(iterations=300))
        assert outcome.iterations > 0  # (it stops early once its move is decided)
        reference = Searcher(weights, seed=1)
        reference.choose(position, 0, iterations=300)
        assert reference.iterations > 0
