"""The evolved bot: genome, sampling against hand-computed distributions,
the automatic heuristics, and the GA's pieces."""

from __future__ import annotations

import random
from collections import Counter

import orjson
import pytest

from bots.evolved import ga
from bots.evolved.bot import buy_weights, invest_weights, investment_amounts, outgunned, policy, shipped_genome
from bots.evolved.genome import (
    ATTACK_OPTIONS,
    BUY_OPTIONS,
    INVEST_LEVELS,
    N_CARDS,
    WEIGHT_GENES,
    Genome,
    crossover,
    distance,
    mutate,
    random_genome,
)
from bots.evolved.sampling import distribution, sample
from protocol.cards import NAME_TO_ID as ID
from protocol.engine import PASS
from test_expert import build


def identity(i: int) -> int:
    return i


# ---------------------------------------------------------------- sampling


def test_distribution_normalises_over_the_offered_options() -> None:
    weights = [1.0, 2.0, 3.0, 4.0]
    assert distribution(weights, [0, 2], identity) == [(0, 0.25), (2, 0.75)]
    assert distribution(weights, [3, 1, 2], identity) == [(3, 4 / 9), (1, 2 / 9), (2, 3 / 9)]


def test_distribution_maps_options_to_weight_slots() -> None:
    weights = [5.0, 1.0, 0.0, 3.0]  # slot 0 is Pass
    dist = distribution(weights, [PASS, 1, 3], lambda c: 0 if c == PASS else c)
    assert dist == [(PASS, 5 / 9), (1, 1 / 9), (3, 3 / 9)]


def test_all_zero_weights_fall_back_to_uniform() -> None:
    assert distribution([0.0, 0.0, 7.0], [0, 1], identity) == [(0, 0.5), (1, 0.5)]


def test_repeated_options_count_once() -> None:
    assert distribution([1.0, 3.0], [1, 0, 1], identity) == [(1, 0.75), (0, 0.25)]


def test_no_options_is_an_error() -> None:
    with pytest.raises(ValueError):
        distribution([1.0], [], identity)


def test_sample_frequencies_match_the_distribution() -> None:
    rng = random.Random(7)
    counts = Counter(sample([1.0, 2.0, 3.0, 4.0], [1, 3], identity, rng) for _ in range(6000))
    assert counts.keys() == {1, 3}
    assert abs(counts[1] / 6000 - 2 / 6) < 0.02


def test_a_zero_weight_option_is_never_drawn() -> None:
    rng = random.Random(1)
    assert {sample([0.0, 1.0], [0, 1], identity, rng) for _ in range(200)} == {1}


# ------------------------------------------------------------------ genome


def test_genome_round_trips_through_json() -> None:
    genome = random_genome(random.Random(3))
    assert Genome.from_json(genome.to_json()) == genome


@pytest.mark.parametrize(
    "change, message",
    [
        ({"buy_early": [1.0] * 3}, "buy_early needs 14"),
        ({"defend": [-1.0] * N_CARDS}, "non-negative"),
        ({"switch_day": 99}, "switch_day"),
        ({"race_points": 0}, "race_points must be an integer in 1..8"),
        ({"race_points": 3.0}, "race_points"),
        ({"colour": "red"}, "unknown keys"),
    ],
)
def test_bad_genomes_are_refused_clearly(change: dict, message: str) -> None:
    data = {**Genome().to_json(), **change}
    with pytest.raises(ValueError, match=message):
        Genome.from_json(data)


def test_mutation_changes_weights_multiplicatively_within_bounds() -> None:
    rng = random.Random(5)
    parent = Genome()
    child = mutate(parent, rng, rate=1.0, scale=0.5)
    assert child != parent
    for name in WEIGHT_GENES:
        assert all(1e-3 <= w <= 100 for w in getattr(child, name))
    assert mutate(parent, rng, rate=0.0) == parent
    for _ in range(50):
        child = mutate(child, rng, rate=1.0)
        assert 0 <= child.switch_day <= 30 and 1 <= child.race_points <= 8


def test_crossover_takes_whole_distributions_from_the_parents() -> None:
    rng = random.Random(2)
    a, b = random_genome(rng), random_genome(rng)
    child = crossover(a, b, rng)
    for name in WEIGHT_GENES:
        assert getattr(child, name) in (getattr(a, name), getattr(b, name))
    assert distance(a, a) == 0 and 0 < distance(a, b) <= 1


def test_the_shipped_genome_loads() -> None:
    genome = shipped_genome()
    assert len(genome.buy_early) == BUY_OPTIONS and len(genome.attack) == ATTACK_OPTIONS


# --------------------------------------------------------------------- bot


def only(size: int, slot: int) -> list[float]:
    return [1.0 if i == slot else 0.0 for i in range(size)]


def test_buys_follow_the_early_then_the_late_preferences() -> None:
    genome = Genome(buy_early=only(BUY_OPTIONS, ID["Ghost"]), buy_late=only(BUY_OPTIONS, 0), switch_day=4)
    decide = policy(genome, random.Random(0))
    early = build("buy", [(3, ["Worker"]), (3, ["Worker"])])
    assert decide(early, 0) == ID["Ghost"]
    late = build("buy", [(3, ["Worker"]), (3, ["Worker"])])
    late = type(late).from_wire(late.to_wire(0), days_played=3)
    assert decide(late, 0) == PASS


def frequencies(decide, game, me: int, draws: int = 4000) -> dict[int, float]:
    counts = Counter(decide(game, me) for _ in range(draws))
    return {move: n / draws for move, n in counts.items()}


@pytest.mark.parametrize(
    "mine, theirs, expected",
    [
        (["Worker"], ["Ghost"], True),  # Ghost (3/2) kills a Worker (1/2) and survives it
        (["Ghost"], ["Ghost"], False),  # Ghost against Ghost: both faint
        ([], ["Worker"], True),  # no defender at all
        (["Worker"], [], False),  # nothing attacks us
        (["Worker", "Bubble"], ["Ghost"], False),  # a Ghost attacking the Bubble (9/2) faints
    ],
)
def test_outgunned_reads_the_opponents_attackers_against_our_defenders(mine, theirs, expected) -> None:
    game = build("buy", [(3, mine), (3, theirs)])
    assert outgunned(game, 0) is expected


def test_threatened_buys_sample_the_threat_set_normalised_over_what_is_offered() -> None:
    # Offered with 3 coins: Pass and cards 1-8 but Incantation (4). Only
    # Worker (1) and Ghost (3) have weight there: 1/4 and 3/4.
    weights = [0.0] * BUY_OPTIONS
    weights[ID["Worker"]], weights[ID["Ghost"]], weights[ID["Incantation"]] = 1.0, 3.0, 50.0
    genome = Genome(buy_threat=weights, buy_early=only(BUY_OPTIONS, 0), buy_late=only(BUY_OPTIONS, 0))
    game = build("buy", [(3, ["Worker"]), (3, ["Ghost"])])
    assert buy_weights(genome, game, 0) is genome.buy_threat
    seen = frequencies(policy(genome, random.Random(3)), game, 0)
    assert seen.keys() == {ID["Worker"], ID["Ghost"]}
    assert abs(seen[ID["Ghost"]] - 0.75) < 0.03


def test_the_race_set_takes_over_once_someone_has_race_points() -> None:
    # The opponent holds 4 points (Incantation 3, Board of Monopoly 1); nothing of theirs beats our Worker.
    game = build("buy", [(3, ["Worker"]), (3, ["Incantation", "Board of Monopoly"])])
    racing = Genome(buy_race=only(BUY_OPTIONS, ID["Board of Monopoly"]), buy_early=only(BUY_OPTIONS, 0), race_points=4)
    assert not outgunned(game, 0)
    assert buy_weights(racing, game, 0) is racing.buy_race
    assert policy(racing, random.Random(0))(game, 0) == ID["Board of Monopoly"]
    calm = Genome(buy_race=racing.buy_race, buy_early=racing.buy_early, race_points=5)
    assert buy_weights(calm, game, 0) is calm.buy_early
    assert policy(calm, random.Random(0))(game, 0) == PASS


@pytest.mark.parametrize(
    "mine, theirs, chosen",
    [(["Ghost"], ["Worker"], "invest_threat"), (["Worker"], ["Ghost"], "invest_danger"), (["Worker"], ["Worker"], "invest_calm")],
)
def test_investment_set_follows_who_holds_a_sure_attacker(mine, theirs, chosen) -> None:
    genome = random_genome(random.Random(8))
    game = build("investing", [(5, mine), (3, theirs)])
    assert invest_weights(genome, game, 0) is getattr(genome, chosen)


def test_danger_investments_sample_hand_computed_amounts() -> None:
    # 5 coins against 3: levels nothing=0, one=1, half=2, match=3, outbid=4, all=5.
    weights = [0.0] * len(INVEST_LEVELS)
    weights[INVEST_LEVELS.index("nothing")], weights[INVEST_LEVELS.index("match")] = 1.0, 3.0
    genome = Genome(invest_danger=weights, invest_calm=only(len(INVEST_LEVELS), 5))
    game = build("investing", [(5, ["Worker"]), (3, ["Ghost"])])
    seen = frequencies(policy(genome, random.Random(4)), game, 0)
    assert seen.keys() == {0, 3} and abs(seen[3] - 0.75) < 0.03


def test_sold_out_cards_are_never_bought() -> None:
    genome = Genome(buy_early=only(BUY_OPTIONS, ID["Ghost"]))
    game = build("buy", [(3, ["Worker"]), (3, ["Worker"])], shop={"Ghost": 0})
    assert policy(genome, random.Random(0))(game, 0) != ID["Ghost"]


def test_takes_an_immediate_win_whatever_the_genome() -> None:
    genome = Genome(buy_early=only(BUY_OPTIONS, 0), buy_late=only(BUY_OPTIONS, 0))
    game = build("buy", [(4, ["Incantation", "Board of Monopoly"]), (1, ["Worker"])])
    assert policy(genome, random.Random(0))(game, 0) == ID["Incantation"]


def test_invests_for_a_sure_elimination_whatever_the_genome() -> None:
    genome = Genome(invest_calm=only(len(INVEST_LEVELS), 0), invest_threat=only(len(INVEST_LEVELS), 0))
    game = build("investing", [(5, ["Worker", "Senior Worker"]), (3, ["Worker"])])
    assert policy(genome, random.Random(0))(game, 0) == 4


def test_blocks_an_opponent_who_could_eliminate_it() -> None:
    genome = Genome(invest_calm=only(len(INVEST_LEVELS), 0), invest_threat=only(len(INVEST_LEVELS), 0))
    game = build("investing", [(5, ["Worker"]), (3, ["Worker", "Senior Worker"])])
    assert policy(genome, random.Random(0))(game, 0) == 3


def test_investment_levels_resolve_against_the_state() -> None:
    game = build("investing", [(7, ["Worker"]), (2, ["Worker"]), (4, ["Worker"])])
    assert investment_amounts(game, 0) == [0, 1, 3, 4, 5, 7]
    genome = Genome(invest_calm=only(len(INVEST_LEVELS), INVEST_LEVELS.index("outbid")))
    assert policy(genome, random.Random(0))(game, 0) == 5


def test_attack_and_defend_follow_the_card_preferences() -> None:
    genome = Genome(attack=only(ATTACK_OPTIONS, ID["Worker"]), defend=only(N_CARDS, ID["Senior Worker"] - 1))
    decide = policy(genome, random.Random(0))
    attack = build("attacking", [(0, ["Ghost", "Worker"]), (0, ["Ghost", "Worker", "Worker"])], attacker=0)
    assert decide(attack, 0) == 2
    defend = build(
        "attacking", [(0, ["Worker"]), (0, ["Ghost", "Senior Worker"])],
        me=1, attacker=0, attacker_card=1, uses={(0, 1): 1},
    )
    assert decide(defend, 1) == 2


def test_never_defends_with_a_card_whose_loss_hands_over_the_game() -> None:
    # Losing the Incantation would leave the opponent alone at 7 points.
    genome = Genome(defend=only(N_CARDS, ID["Incantation"] - 1))
    game = build(
        "attacking",
        [(0, ["Ghost", "Incantation", "Incantation", "Board of Monopoly"]), (0, ["Incantation", "Incantation", "Worker", "Board of Monopoly"])],
        me=1, attacker=0, attacker_card=1, uses={(0, 1): 1},
    )
    assert policy(genome, random.Random(0))(game, 1) == 3


# --------------------------------------------------------------------- ga


def test_settings_refuse_bad_sizes_clearly() -> None:
    with pytest.raises(ValueError, match="between 8 and 512"):
        ga.Settings(population=4, players=2).check()
    with pytest.raises(ValueError, match="between 8 and 512"):
        ga.Settings(population=1024).check()
    with pytest.raises(ValueError, match="not divisible by --players 4"):
        ga.Settings(population=18).check()
    with pytest.raises(ValueError, match="--players must be"):
        ga.Settings(population=10, players=5).check()


def test_an_elimination_tournament_crowns_one_champion() -> None:
    rng = random.Random(4)
    genomes = [random_genome(rng) for _ in range(16)]
    wins, games = ga.elimination(genomes, 4, False, 100, random.Random(9))
    assert games == 4 + 1  # four tables, then the final table of the four winners
    assert sum(wins) == games
    assert sorted(wins)[-1] == 2 and wins.count(1) == 3
    assert ga.champion_fitness(ga.Settings(population=16)) == 2


def test_fitness_is_reproducible_for_a_seed() -> None:
    settings = ga.Settings(population=8, players=2, tournaments=2)
    population = ga.initial_population(settings)
    serial = lambda fn, tasks: [fn(*t) for t in tasks]  # noqa: E731
    first = ga.evaluate(population, settings, random.Random(1), serial, 2)
    again = ga.evaluate(population, settings, random.Random(1), serial, 1)
    assert first == again
    # 8 genomes in tables of 2: 7 games a tournament, a champion wins 3.
    assert first.games == 2 * 7 and sum(first.fitness) == pytest.approx(7 / 3)
    assert first.outside is None and first.fitness == first.tournament


def test_outside_opponents_share_the_fitness_reproducibly() -> None:
    settings = ga.Settings(population=8, players=2, tournaments=2, opponents=("random", "expert"), opponent_games=4)
    population = ga.initial_population(settings)
    serial = lambda fn, tasks: [fn(*t) for t in tasks]  # noqa: E731
    first = ga.evaluate(population, settings, random.Random(1), serial, 3)
    # Batched differently, the same genome still plays the same games.
    assert first == ga.evaluate(population, settings, random.Random(1), serial, 1)
    assert first.games == 2 * 7 + 8 * 2 * 4
    for f, t, o in zip(first.fitness, first.tournament, first.outside):
        assert f == pytest.approx(0.5 * t + 0.5 * o) and 0 <= o <= 1


def test_outside_score_counts_wins_with_seats_alternating() -> None:
    # A genome that always passes and never invests loses to expert from either
    # seat; the shipped genome wins most games against random from either seat.
    passive = Genome(
        buy_early=only(BUY_OPTIONS, 0), buy_late=only(BUY_OPTIONS, 0),
        invest_calm=only(len(INVEST_LEVELS), 0), invest_threat=only(len(INVEST_LEVELS), 0),
    )
    scores, games = ga.play_outside([passive.to_json()], ["expert"], 4, False, 100, [5])
    assert scores == [0.0] and games == 4
    shipped, _ = ga.play_outside([shipped_genome().to_json()], ["random"], 10, False, 100, [5])
    assert shipped[0] >= 0.8


def test_settings_refuse_bad_opponents_clearly() -> None:
    with pytest.raises(ValueError, match="unknown opponent.*choose from expert"):
        ga.Settings(population=8, players=2, opponents=("grandmaster",)).check()
    with pytest.raises(ValueError, match="even"):
        ga.Settings(population=8, players=2, opponents=("expert",), opponent_games=3).check()
    settings = ga.Settings(population=8, players=2, opponents=("expert", "random"))
    assert ga.Settings.from_json(settings.to_json()) == settings
    assert ga.Settings.from_json({"population": 8}).opponents == ()


def test_next_population_keeps_the_elite_and_the_size() -> None:
    settings = ga.Settings(population=8, players=2, elite=2)
    population = ga.initial_population(settings)
    fitness = [float(i) for i in range(8)]
    children = ga.next_population(population, fitness, settings, random.Random(0))
    assert len(children) == 8
    assert children[:2] == [population[7], population[6]]


def test_a_few_generations_improve_on_random_genomes() -> None:
    # Selection at work: after a short run the leader beats fresh genomes.
    from bots.evolved.report import head_to_head

    settings = ga.Settings(population=16, players=2, tournaments=4, generations=6, seed=2)
    leaders = []
    serial = lambda fn, tasks: [fn(*t) for t in tasks]  # noqa: E731
    ga.run_generations(settings, ga.initial_population(settings), 0, serial, 1, lambda g, _: leaders.append(g.leader))
    rng = random.Random(11)
    score = sum(head_to_head(leaders[-1], random_genome(rng), False, 10, rng) for _ in range(6)) / 6
    assert score > 0.6


def test_fresh_genomes_draw_a_new_genome_each_game() -> None:
    from bots.evolved.bot import FreshGenomes

    fresh = FreshGenomes(random.Random(0))
    game = build("buy", [(3, ["Worker"]), (3, ["Worker"])])
    seen = []
    for _ in range(4):
        seen.append(fresh.genome)
        assert fresh.decide(game, 0) in game.legal_moves(0)
        fresh.new_game(game, 0)
    assert all(a != b for i, a in enumerate(seen) for b in seen[i + 1 :])


def test_the_hall_of_fame_spans_the_run_from_the_first_leader_to_the_latest() -> None:
    leaders = [random_genome(random.Random(i)) for i in range(10)]
    hall = ga.hall_of_fame(leaders, 4)
    assert hall[0] is leaders[0] and hall[-1] is leaders[-1] and len(hall) == 4
    assert ga.hall_of_fame(leaders[:3], 8) == leaders[:3]
    assert ga.hall_of_fame(leaders, 0) == [] and ga.hall_of_fame([], 4) == []


def test_hall_of_fame_games_count_in_the_fitness() -> None:
    """A genome's outside score includes its games against earlier leaders:
    against a hall of one strong leader, a random genome scores less than
    against none of them, and the games are counted."""
    settings = ga.Settings(population=8, players=2, tournaments=1, hall_of_fame=1, hall_games=10, seed=3)
    population = ga.initial_population(settings)
    serial = lambda fn, tasks: [fn(*t) for t in tasks]  # noqa: E731
    from bots.evolved.bot import shipped_genome

    plain = ga.evaluate(population, settings, random.Random(1), serial, 1)
    judged = ga.evaluate(population, settings, random.Random(1), serial, 1, [shipped_genome()])
    assert plain.outside is None
    assert judged.games == plain.games + 8 * 10
    assert judged.outside is not None and sum(judged.outside) / 8 < 0.5
    assert judged.fitness != plain.fitness


def test_a_run_with_a_hall_of_fame_plays_earlier_leaders() -> None:
    settings = ga.Settings(population=8, players=2, tournaments=2, generations=3, hall_of_fame=2, hall_games=2, seed=4)
    seen: list[tuple[str, ...]] = []
    serial = lambda fn, tasks: [fn(*t) for t in tasks]  # noqa: E731
    ga.run_generations(settings, ga.initial_population(settings), 0, serial, 1, lambda g, _: seen.append(g.opponents))
    assert seen == [(), ("hall of fame",), ("hall of fame",)]


def test_ancestors_stay_in_the_hall_of_fame_from_the_first_generation() -> None:
    from bots.evolved.bot import shipped_genome

    ancestor = orjson.dumps(shipped_genome().to_json()).decode()
    settings = ga.Settings(population=8, players=2, tournaments=1, generations=2, hall_games=2, seed=5,
                           ancestors=(ancestor,))
    assert ga.Settings.from_json(orjson.loads(orjson.dumps(settings.to_json()))) == settings
    seen: list[tuple[str, ...]] = []
    serial = lambda fn, tasks: [fn(*t) for t in tasks]  # noqa: E731
    ga.run_generations(settings, ga.initial_population(settings), 0, serial, 1, lambda g, _: seen.append(g.opponents))
    assert seen == [("hall of fame",), ("hall of fame",)]
