"""The learned evaluation: self-play positions from the C core
(protocol/search/selfplay.c) and the fit (bots/search/train.py)."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from bots.search import train
from bots.search.evaluation import CHAMPION_WEIGHTS_FILE, FEATURES, Weights, evaluate, load_weights
from protocol import _engine
from protocol.engine import Game
from test_search_moves import random_state

CHAMPION = load_weights(packaged=CHAMPION_WEIGHTS_FILE)
TINY = ["--games", "4", "--chunk", "2", "--players", "2,3", "--sample", "0.5", "-q"]


def _selfplay(seed: int, players: int = 2, base: bool = False, games: int = 3, **options) -> tuple[bytes, ...]:
    return _engine.selfplay(Game(players, base=base), games, seed, list(CHAMPION.values), CHAMPION.scale, **options)


def test_selfplay_is_reproducible_from_its_seed_and_its_games_end() -> None:
    first = _selfplay(7, players=3, base=True)
    assert first == _selfplay(7, players=3, base=True)
    assert first != _selfplay(8, players=3, base=True)
    features, alive, game, winners = first
    f = np.frombuffer(features, dtype=np.float32).reshape(-1, 3, len(FEATURES))
    a = np.frombuffer(alive, dtype=np.uint8).reshape(-1, 3)
    g = np.frombuffer(game, dtype=np.int32)
    w = np.frombuffer(winners, dtype=np.int8)
    assert len(f) == len(a) == len(g) > 0 and list(np.unique(g)) == [0, 1, 2]
    assert set(w) <= {-1, 0, 1, 2}
    assert (a.sum(axis=1) >= 1).all() and (f[:, :, FEATURES.index("points")] >= 0).all()


def test_greedy_players_play_other_games_than_the_heuristic_and_most_end_in_a_result() -> None:
    greedy = _selfplay(1, games=20, greedy=1.0)
    heuristic = _selfplay(1, games=20, greedy=0.0)
    assert greedy[0] != heuristic[0]
    assert (np.frombuffer(greedy[3], dtype=np.int8) >= 0).mean() > 0.5  # not mostly 100-day draws


def test_bad_selfplay_arguments_are_refused() -> None:
    with pytest.raises(ValueError):
        _selfplay(1, greedy=1.5)
    with pytest.raises(ValueError):
        _selfplay(1, games=0)
    with pytest.raises(TypeError):
        _engine.selfplay("a game", 1, 1, list(CHAMPION.values))


def _weights(path: Path) -> dict:
    return json.loads(path.read_text())


def test_training_is_deterministic_and_resumes_to_the_same_weights(tmp_path: Path) -> None:
    train.main([str(tmp_path / "whole"), *TINY])
    whole = _weights(tmp_path / "whole" / "weights.json")
    # An interrupted run: half the games, then a chunk lost to a kill, then the full command.
    train.main([str(tmp_path / "resumed"), *TINY[:1], "2", *TINY[2:]])
    stored = sorted((tmp_path / "resumed" / "corpus").glob("*.npz"))
    stored[0].unlink()
    train.main([str(tmp_path / "resumed"), *TINY])
    resumed = _weights(tmp_path / "resumed" / "weights.json")
    assert resumed["weights"] == whole["weights"]
    assert whole["weights"] != CHAMPION.as_dict()  # it did fit something
    assert whole["trained"]["games"] == 16 and whole["trained"]["positions"] > 0
    assert whole["trained"]["command"].startswith("python -m bots.search.train ")
    assert whole["trained"]["commit"]


def test_the_learned_weights_load_into_the_python_and_the_c_evaluation_alike(tmp_path: Path) -> None:
    train.main([str(tmp_path), *TINY])
    learned = load_weights(str(tmp_path / "weights.json"))
    assert learned.values != CHAMPION.values
    for seed in range(60):
        game = random_state(seed, 2 + seed % 3, seed % 2 == 1)
        for player in range(game.n_players):
            assert _engine.evaluate(game, player, learned.values, learned.scale) == evaluate(game, player, learned)


def test_another_setting_in_the_same_directory_is_refused(tmp_path: Path) -> None:
    train.main([str(tmp_path), *TINY])
    with pytest.raises(SystemExit, match="other settings"):
        train.main([str(tmp_path), *TINY, "--epsilon", "0.3"])


def test_the_fit_finds_what_decides_the_results() -> None:
    # Synthetic positions in which the richer player always wins: the fit
    # must put a clearly positive weight on coins and rank every decided
    # position right, from weights that ignore coins.
    rng = np.random.default_rng(1)
    n = 2000
    features = rng.normal(0, 3, size=(n, 2, len(FEATURES))).astype(np.float32)
    alive = np.ones((n, 2), dtype=bool)
    coins = FEATURES.index("coins")
    winner = np.argmax(features[:, :, coins], axis=1).astype(np.int8)
    corpus = train.Corpus([train.Group(features, alive, winner)], games=n, positions=n)
    start = Weights(tuple(0.0 for _ in FEATURES))
    fitted, loss = train.fit(corpus, start)
    values = fitted.as_dict()
    assert values["coins"] > 5 * max(abs(v) for name, v in values.items() if name != "coins")
    assert train.accuracy(corpus, fitted) > 0.97 and train.accuracy(corpus, start) < 0.6


def test_the_shipped_learned_weights_name_how_they_were_made_and_evaluate_alike_in_python_and_c() -> None:
    data = json.loads((Path(train.__file__).parent / "learned.json").read_text())
    made = data["trained"]
    assert made["command"].startswith("python -m bots.search.train ") and made["commit"]
    assert made["games"] >= 200_000 and made["positions"] >= 1_000_000
    learned = load_weights(packaged="learned.json")
    for seed in range(40):
        game = random_state(500 + seed, 2 + seed % 3, seed % 2 == 0)
        for player in range(game.n_players):
            assert _engine.evaluate(game, player, learned.values, learned.scale) == evaluate(game, player, learned)


def test_the_weights_fitted_to_searching_players_name_their_corpus_and_evaluate_alike_in_python_and_c() -> None:
    data = json.loads((Path(train.__file__).parent / "searched.json").read_text())
    made = data["trained"]
    assert made["command"].startswith("python -m bots.search.train ") and "--search 2000" in made["command"]
    assert made["settings"]["search"] == 2000 and made["games"] == 6000 and made["positions"] >= 50_000
    searched = load_weights(packaged="searched.json")
    assert searched.values != load_weights(packaged="learned.json").values
    for seed in range(40):
        game = random_state(900 + seed, 2 + seed % 3, seed % 2 == 0)
        for player in range(game.n_players):
            assert _engine.evaluate(game, player, searched.values, searched.scale) == evaluate(game, player, searched)


def test_compare_judges_weights_files_on_a_corpus_without_fitting(tmp_path: Path, capsys) -> None:
    shipped = str(Path(train.__file__).parent / "champion.json")
    train.main([str(tmp_path), *TINY, "--seed", "5", "--compare", shipped, shipped])
    out = capsys.readouterr().out
    assert not (tmp_path / "weights.json").exists()
    rows = [line for line in out.splitlines() if line.startswith(shipped)]
    assert len(rows) == 2 and rows[0] == rows[1] and "2p " in rows[0] and "3p " in rows[0]


def test_a_fixed_weight_stays_where_it_is_held_and_the_others_are_fitted(tmp_path: Path) -> None:
    train.main([str(tmp_path), *TINY, "--fix", "coins=0.5", "--fix", "race=-4"])
    data = _weights(tmp_path / "weights.json")
    assert data["weights"]["coins"] == 0.5 and data["weights"]["race"] == -4
    assert data["trained"]["settings"]["fixed"] == {"coins": 0.5, "race": -4.0}
    free = _weights(tmp_path / "weights.json")["weights"]
    train.main([str(tmp_path), *TINY, "-o", str(tmp_path / "free.json")])
    assert _weights(tmp_path / "free.json")["weights"]["coins"] != 0.5
    assert free["points"] != CHAMPION.as_dict()["points"]
    with pytest.raises(SystemExit):
        train.main([str(tmp_path), *TINY, "--fix", "charisma=1"])


def test_searching_players_play_reproducible_games_whose_positions_match_the_c_features() -> None:
    """--search: every seat the champion's MCTS at fixed iterations; the
    chunk's seed decides every game, and the stored features are the
    evaluation's own (the positions replayed by a second run are equal)."""
    settings = train.Settings(seed=5, policy_values=CHAMPION.values, scale=CHAMPION.scale, search=60, sample=1.0,
                              epsilon=0.1)
    chunk = train.Chunk(True, 2, 0, 3)
    first = train.search_selfplay(chunk, settings)
    again = train.search_selfplay(chunk, settings)
    for a, b in zip(first, again):
        assert np.array_equal(a, b)
    features, alive, index, winners = first
    assert features.shape == (len(index), 2, len(FEATURES)) and alive.shape == (len(index), 2)
    assert sorted(set(index.tolist())) == [0, 1, 2] and len(winners) == 3
    assert all(w in (-1, 0, 1) for w in winners.tolist())
    other = train.search_selfplay(train.Chunk(True, 2, 1, 3), settings)
    assert not np.array_equal(other[0][:5], features[:5])  # another chunk, other games


def test_a_corpus_of_searching_players_is_its_own_setting(tmp_path: Path) -> None:
    tiny = ["--games", "2", "--chunk", "1", "--players", "2", "--sets", "simple", "-q", "--rounds", "1",
            "--iterations", "5"]
    train.main([str(tmp_path), *tiny, "--search", "40"])
    made = _weights(tmp_path / "weights.json")
    assert made["trained"]["settings"]["search"] == 40 and made["trained"]["games"] == 2
    with pytest.raises(SystemExit, match="other settings"):
        train.main([str(tmp_path), *tiny])
    with pytest.raises(SystemExit):
        train.main([str(tmp_path / "bad"), "--search", "-1"])


def test_a_corpus_stored_before_a_setting_existed_still_resumes(tmp_path: Path) -> None:
    train.main([str(tmp_path), *TINY])
    settings = json.loads((tmp_path / "settings.json").read_text())
    del settings["search"]
    (tmp_path / "settings.json").write_text(json.dumps(settings))
    train.main([str(tmp_path), *TINY])  # read as --search 0, the setting it was made with
