"""The evolved-preference bot: sample each move from a genome's preferences.

Only two things are not left to evolution, because no strategy should
ever get them wrong (evolvedominion's "automatic" heuristics):

* take an immediate win: a buy that wins at once, an investment that
  buys a sure attack able to eliminate every opponent, and then those
  attacks;
* avoid an immediate loss: match the coins of an opponent who could
  eliminate us, deny an opponent's winning buy, and never defend with a
  card whose loss hands an opponent the game when another card would not.

Everything else is drawn from the genome (bots.evolved.genome), over the
options the state offers (bots.evolved.sampling), from the set of weights
that the state's reading (`buy_weights`, `invest_weights`) selects.
"""

from __future__ import annotations

import argparse
import json
import os
import random

from bots import expert
from protocol.cards import ATTACKS, DEF, DEFENDS
from bots.evolved.genome import Genome, random_genome
from bots.evolved.sampling import sample
from bots.sdk import Decide, option_parser, bot_main
from protocol.engine import ATTACKING, BUY, DEFENDING, INVESTING, PASS, Game

TYPE_CHECKING = False
if TYPE_CHECKING:  # the bot starts without typing, pathlib or importlib.resources (tests/test_bot_startup.py)
    from collections.abc import Sequence

SHIPPED = "shipped.json"
"""The genome shipped with the package (how it was made: docs/bots.md)."""


def shipped_genome() -> Genome:
    """The genome the bot plays when no key is given."""
    with open(os.path.join(os.path.dirname(__file__), SHIPPED), "rb") as shipped:
        return Genome.from_json(json.loads(shipped.read()))


def investment_amounts(game: Game, me: int) -> list[int]:
    """The coins each of `INVEST_LEVELS` stands for in this state."""
    coins = game.coins(me)
    richest = max((game.coins(p) for p in expert.opponents(game, me)), default=0)
    return [0, 1, coins // 2, richest, richest + 1, coins]


def outgunned(game: Game, me: int) -> bool:
    """Some opponent holds an attacker that beats every defender we hold
    (any attacker, if we hold none): our defenses alone will not stop it."""
    ours = [card for card, _ in game.cards(me) if DEF[card] is not None and DEFENDS[card] > 0]
    return any(
        ATTACKS[card] > 0 and all(expert.beats(card, d) for d in ours)
        for p in expert.opponents(game, me)
        for card, _ in game.cards(p)
    )


def buy_weights(genome: Genome, game: Game, me: int) -> list[float]:
    """The buy preferences this state calls for (bots.evolved.genome)."""
    if outgunned(game, me):
        return genome.buy_threat
    if max(game.points(p) for p in range(game.n_players) if game.alive(p)) >= genome.race_points:
        return genome.buy_race
    return genome.buy_early if game.days_played + 1 < genome.switch_day else genome.buy_late


def invest_weights(genome: Genome, game: Game, me: int) -> list[float]:
    """The investment preferences this state calls for (bots.evolved.genome)."""
    if expert.safe_attackers(game, me):
        return genome.invest_threat
    if any(expert.safe_attackers(game, p) for p in expert.opponents(game, me)):
        return genome.invest_danger
    return genome.invest_calm


def _invest(genome: Genome, game: Game, me: int, rng: random.Random) -> int:
    coins = game.coins(me)
    rivals = expert.opponents(game, me)
    richest = max((game.coins(p) for p in rivals), default=0)
    if rivals and richest + 1 <= coins and all(expert.can_eliminate(game, me, p) for p in rivals):
        return richest + 1  # a sure attack that eliminates everyone: a win
    danger = [game.coins(p) for p in rivals if expert.can_eliminate(game, p, me)]
    floor = max(danger) if danger and max(danger) <= coins else 0  # a tie stops their attack
    weights = invest_weights(genome, game, me)
    amounts = investment_amounts(game, me)
    levels = [i for i, amount in enumerate(amounts) if amount <= coins]
    return max(floor, amounts[sample(weights, levels, lambda i: i, rng)])


def _attack(genome: Genome, game: Game, me: int, rng: random.Random) -> int:
    rivals = expert.opponents(game, me)
    if rivals and all(expert.can_eliminate(game, me, p) for p in rivals):
        return expert.choose_attack(game, me)
    cards = game.cards(me)
    return sample(genome.attack, game.legal_moves(me), lambda i: cards[i][0] if i else 0, rng)


def _loses_at_once(game: Game, me: int, move: int) -> bool:
    after = game.copy()
    after.play(me, move)
    return after.is_over and after.winner != me


def _defend(genome: Genome, game: Game, me: int, rng: random.Random) -> int:
    options = game.legal_moves(me)
    safe = [i for i in options if not _loses_at_once(game, me, i)]
    cards = game.cards(me)
    return sample(genome.defend, safe or options, lambda i: cards[i][0] - 1, rng)


def _buy(genome: Genome, game: Game, me: int, rng: random.Random) -> int:
    tactical = expert.tactical_buy(game, me)
    if tactical is not None:
        return tactical
    return sample(buy_weights(genome, game, me), [PASS] + expert.in_stock(game, me), lambda c: 0 if c == PASS else c, rng)


def policy(genome: Genome, rng: random.Random) -> Decide:
    """The `decide(game, me)` of a genome, drawing its samples from `rng`."""

    def decide(game: Game, me: int) -> int:
        phase = game.phase
        if phase == INVESTING:
            return _invest(genome, game, me, rng)
        if phase == ATTACKING:
            return _attack(genome, game, me, rng)
        if phase == DEFENDING:
            return _defend(genome, game, me, rng)
        if phase == BUY:
            return _buy(genome, game, me, rng)
        raise ValueError(f"no move to make in phase {phase}")

    return decide


def load_genome(key: str | None, path: str | os.PathLike[str] | None = None, weights: str | None = None) -> Genome:
    """The genome to play: JSON text, a JSON file, a stored evolution's leader, or the shipped one."""
    if weights is not None:
        return Genome.from_json(json.loads(weights))
    if path is not None:
        with open(path, "rb") as file:
            return Genome.from_json(json.loads(file.read()))
    if key is not None:
        from bots.evolved.store import Store  # platformdirs only when a key is asked for

        return Store(key).leader()
    return shipped_genome()


class FreshGenomes:
    """Plays a new random genome every game: the strategies evolution
    starts from, the baseline the shipped genome is measured against."""

    def __init__(self, rng: random.Random) -> None:
        self.rng = rng
        self.genome = random_genome(rng)

    def new_game(self, game: Game, me: int) -> None:
        """The SDK's game-start hook: draw the next genome."""
        self.genome = random_genome(self.rng)

    def decide(self, game: Game, me: int) -> int:
        return policy(self.genome, self.rng)(game, me)

    __call__ = decide


def parser() -> argparse.ArgumentParser:
    """The bot's command line (also read by tools that run it in-process)."""
    parser = option_parser("Economancy bot sampling its moves from evolved preferences.", prog="evolved")
    source = parser.add_mutually_exclusive_group()
    source.add_argument("--key", help="play the leader of the evolution stored under KEY (see `evolve`)")
    source.add_argument("--genome", metavar="FILE", help="play the genome in this JSON file")
    source.add_argument(
        "--weights", metavar="JSON",
        help="play this genome, given as JSON text (what the referee turns --key into: it reads the"
        " store, which the bot, run as another user, may not reach)",
    )
    source.add_argument(
        "--fresh", action="store_true", help="play a new random genome every game (the baseline evolution starts from)"
    )
    return parser


def policy_from(options: argparse.Namespace) -> Decide:
    """The policy `options` (parsed by `parser()`) describe; with `--fresh`
    it has a `new_game` hook. OSError, ValueError or LookupError if the
    genome cannot be loaded."""
    rng = random.Random(options.seed)
    if options.fresh:
        return FreshGenomes(rng)
    return policy(load_genome(options.key, options.genome, options.weights), rng)


def key_to_weights(args: Sequence[str]) -> list[str]:
    """The bot's arguments with `--key KEY` replaced by `--weights JSON`, the
    leader read here: the referee calls this when it builds the bot's
    command, since the bot itself runs as another user (nobody, under the
    default isolation as root) and cannot read the store in our home.
    LookupError (with the store's own words) if KEY has no run."""
    out = list(args)
    for i, arg in enumerate(out):
        if arg == "--key" and i + 1 < len(out):
            key, span = out[i + 1], slice(i, i + 2)
        elif arg.startswith("--key="):
            key, span = arg[len("--key="):], slice(i, i + 1)
        else:
            continue
        from bots.evolved.store import Store

        import orjson  # the referee's side (see `key_to_weights`): the bot itself reads with json

        weights = orjson.dumps(Store(key).leader().to_json()).decode()
        out[span] = ["--weights", weights]
        break
    return out


def main(argv: Sequence[str] | None = None) -> None:
    """Entry point of `python -m bots.evolved` and `economancy-evolved`."""
    bot_main(parser(), policy_from, argv)


if __name__ == "__main__":
    main()
