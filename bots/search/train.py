"""A learned evaluation: weights fitted on self-play positions of the C core.

    python -m bots.search.train DIR [--games N] [--players 2,3,4] [--sets simple,base] [--seed S]
                                    [--chunk G] [--greedy P] [--epsilon E] [--sample F]
                                    [--search ITERATIONS] [--policy-weights FILE] [--l2 L] [--rounds R] [--iterations I] [--fix FEATURE=V]
                                    [--compare FILE ...] [-o OUT.json] [-j N] [-q]

Why: the hand-tuned weights (weights.json, champion-v1.json) were chosen by a
few hundred games each, a weight at a time, so they are as good as those
games could tell. Millions of positions whose final result is known can
tell more: the evaluation's own form, `tanh((w.f_me - w.f_best) / scale)`
(bots.search.evaluation), read as the probability `(1 + v) / 2` that
`me` wins, is fitted to the results by maximum likelihood (logistic
regression on the feature differences for 2 players; the best opponent
by the current weights for 3-4), with a small L2 penalty that keeps
weights of rare features finite. That is regression on final outcomes
(TD(1)); the weights it gives are read by the Python and the C
evaluation alike, since they are the same linear form over the same
features.

The positions come from `protocol._engine.selfplay` (protocol/search/
selfplay.c: greedy-by-evaluation and light-heuristic players, both card
sets, 2 to 4 players), in chunks of `--chunk` games stored under
`DIR/corpus/`, each from its own seed (the run's seed, the set, the
players and the chunk's number), so a corpus is reproducible and the
command resumable: Ctrl-C keeps every finished chunk, and the same
command (or one with more `--games`) plays only the missing ones before
fitting. The fit itself takes seconds and is deterministic.

The weights file written (`-o`, default `DIR/weights.json`) names the
command, the commit it was trained at and the games and positions it saw.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import shlex
import subprocess
import sys
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path

import numpy as np

from common.settings import MAX_DAYS
from common.pool import WorkerPool
from bots.search.evaluation import CHAMPION_V1_WEIGHTS_FILE, FEATURES, Weights, load_weights

NFEAT = len(FEATURES)
FEATURE_CLIP = 100.0
"""Feature differences are clipped to +-this for the fit: a purse grown
past every price by Magic Bean Stock differs by up to 1e300, which says
nothing more than a difference of 100 (the evaluation is saturated by
then either way) and would swamp the gradient."""


@dataclass(frozen=True)
class Settings:
    """What decides a corpus: a rerun with other settings is refused, since
    its chunks would not be the ones already stored."""

    seed: int = 1
    chunk: int = 200
    greedy: float = 0.5
    epsilon: float = 0.1
    sample: float = 0.25
    max_days: int = MAX_DAYS
    policy_weights: str = "champion-v1.json"
    policy_values: tuple[float, ...] = ()
    scale: float = 10.0
    search: int = 0
    """MCTS iterations a move of the searching players (0: the greedy and
    heuristic players of protocol/search/selfplay.c)."""


@dataclass(frozen=True)
class Chunk:
    """One unit of self-play: `games` games of `players` players in a set."""

    base: bool
    players: int
    index: int
    games: int

    @property
    def name(self) -> str:
        return f"{'base' if self.base else 'simple'}-{self.players}p-{self.index:05d}"

    def seed(self, settings: Settings) -> int:
        digest = hashlib.sha256(f"{settings.seed}/{self.name}".encode()).digest()
        return int.from_bytes(digest[:8], "little")


def play_chunk(chunk: Chunk, settings: Settings, path: Path) -> int:
    """Plays `chunk` and stores its positions at `path` (atomically: a file
    there is always complete); returns the positions stored."""
    from protocol import _engine
    from protocol.engine import Game

    if settings.search:
        f, a, g, w = search_selfplay(chunk, settings)
    else:
        game = Game(chunk.players, base=chunk.base, max_days=settings.max_days)
        features, alive, index, winners = _engine.selfplay(
            game, chunk.games, chunk.seed(settings), list(settings.policy_values), settings.scale,
            greedy=settings.greedy, epsilon=settings.epsilon, sample=settings.sample,
        )
        f = np.frombuffer(features, dtype=np.float32).reshape(-1, chunk.players, NFEAT)
        a = np.frombuffer(alive, dtype=np.uint8).reshape(-1, chunk.players)
        g = np.frombuffer(index, dtype=np.int32)
        w = np.frombuffer(winners, dtype=np.int8)
    temporary = path.with_suffix(".tmp.npz")
    np.savez(temporary, features=f, alive=a, game=g, winners=w)
    os.replace(temporary, path)
    return len(g)


def search_selfplay(chunk: Chunk, settings: Settings) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Self-play of searching players: every seat the C core's MCTS as the
    champion configures it at 2 players (its horizon and UCB1 constant,
    `settings.policy_values` as its weights), `settings.search` iterations
    a move, a uniformly random candidate move instead with chance
    `settings.epsilon`. Why: the greedy players look one step ahead and the
    heuristic ones never bid to deny, so in their games a purse kept for
    later predicts nothing and the fit put no weight on coins (docs/bots.md,
    "The learned evaluation"); searching players use their purses (their
    fit still put nothing on coins: docs/bots.md, "Searching players do not
    teach the purse either"). The
    same arrays as `_engine.selfplay`: features (positions x players x
    features), who is alive, each position's game and each game's winner
    (-1 a draw, -2 a forfeit). Reproducible from the chunk's seed."""
    import random

    from bots.champion import EXPLORATION, HORIZON_DAYS
    from bots.mcts import MctsPolicy
    from bots.search.core import MctsConfig, candidate_moves
    from bots.search.evaluation import all_features
    from protocol.engine import BUY, INVESTING, Game

    rng = random.Random(chunk.seed(settings))
    weights = Weights(settings.policy_values, settings.scale)
    config = MctsConfig(exploration=EXPLORATION, horizon=HORIZON_DAYS)
    features: list[list[list[float]]] = []
    alive: list[list[bool]] = []
    index: list[int] = []
    winners: list[int] = []
    for number in range(chunk.games):
        game = Game(chunk.players, base=chunk.base, max_days=settings.max_days)
        players = [MctsPolicy(iterations=settings.search, seed=rng.getrandbits(64), config=config, weights=weights)
                   for _ in range(chunk.players)]
        while not game.is_over:
            pending = game.pending()
            choosing = game.phase in (INVESTING, BUY)
            if choosing and rng.random() < settings.sample:
                features.append(all_features(game))
                alive.append([game.alive(p) for p in range(chunk.players)])
                index.append(number)
            seats = pending if choosing else pending[:1]  # every bid and buy on the same state: none seen early
            moves = [(seat, rng.choice(candidate_moves(game, seat)) if choosing and rng.random() < settings.epsilon
                      else players[seat](game, seat)) for seat in seats]
            for seat, move in moves:
                game.play(seat, move)
        winners.append(-2 if game.fault is not None else -1 if game.winner is None else game.winner)
    return (np.array(features, dtype=np.float32).reshape(-1, chunk.players, NFEAT),
            np.array(alive, dtype=np.uint8).reshape(-1, chunk.players),
            np.array(index, dtype=np.int32), np.array(winners, dtype=np.int8))


def _play_job(job: tuple[Chunk, Settings, str]) -> int:
    return play_chunk(job[0], job[1], Path(job[2]))


def chunks_of(games: int, chunk: int, players: Sequence[int], sets: Sequence[bool]) -> list[Chunk]:
    """The chunks of a corpus of `games` games per set and table size."""
    out = []
    for base in sets:
        for n in players:
            for k in range(-(-games // chunk)):
                out.append(Chunk(base, n, k, min(chunk, games - k * chunk)))
    return out


@dataclass
class Group:
    """Positions of one table size: every player's features (float32, as
    stored), who is alive, and the game's winner (-1 a draw)."""

    features: np.ndarray  # n x players x NFEAT
    alive: np.ndarray  # n x players, bool
    winner: np.ndarray  # n
    _fixed: "list[tuple[np.ndarray, np.ndarray]] | None" = field(default=None, repr=False)

    def pairs(self, weights: np.ndarray) -> "list[tuple[np.ndarray, np.ndarray]]":
        """For each seat: the feature differences between it and its best
        opponent by `weights` (clipped, float64) and its result (1 a win,
        1/2 a draw, 0 a loss), over the positions where it and an opponent
        are alive: what the evaluation compares."""
        players = self.features.shape[1]
        if players == 2 and self._fixed is not None:
            return self._fixed  # the best opponent is the only one, whatever the weights
        # float32 like the stored features: a float64 copy of a corpus is gigabytes
        material = np.where(self.alive, self.features @ weights.astype(np.float32), -np.inf)
        several = self.alive.sum(axis=1) >= 2
        out = []
        for p in range(players):
            rows = np.flatnonzero(self.alive[:, p] & several)
            others = material[rows]
            others[:, p] = -np.inf
            best = np.argmax(others, axis=1)
            diff = (self.features[rows, p] - self.features[rows, best]).astype(np.float64)
            np.clip(diff, -FEATURE_CLIP, FEATURE_CLIP, out=diff)
            won = self.winner[rows]
            out.append((diff, np.where(won == p, 1.0, np.where(won == -1, 0.5, 0.0))))
        if players == 2:
            self._fixed = out
        return out


@dataclass
class Corpus:
    """Self-play positions by table size, with the games and positions they come from."""

    groups: list[Group]
    games: int
    positions: int


def load_corpus(paths: Sequence[Path]) -> Corpus:
    """Every position of the chunks at `paths`, in the order given, grouped by table size."""
    by_size: dict[int, list[tuple[np.ndarray, np.ndarray, np.ndarray]]] = {}
    games = positions = 0
    for path in paths:
        with np.load(path) as data:
            f, a, g, w = data["features"], data["alive"].astype(bool), data["game"], data["winners"]
        games += int((w >= -1).sum())
        keep = w[g] >= -1
        positions += int(keep.sum())
        by_size.setdefault(a.shape[1], []).append((f[keep], a[keep], w[g][keep]))
    if not positions:
        raise ValueError("the corpus holds no positions")
    groups = []
    for n in sorted(by_size):
        features, alive, winners = (np.concatenate(column) for column in zip(*by_size[n]))
        groups.append(Group(features, alive, winners))
    for group in groups:
        group.features = np.clip(group.features, -1e6, 1e6).astype(np.float32)
    return Corpus(groups, games, positions)


def _loss(w: np.ndarray, corpus: Corpus, scale: float, l2: float) -> tuple[float, np.ndarray]:
    """Mean negative log-likelihood of the results (plus l2 * |w|^2) and its gradient."""
    total, grad, count = 0.0, np.zeros_like(w), 0
    for group in corpus.groups:
        for diff, y in group.pairs(w):
            z = 2.0 * (diff @ w) / scale
            # -[y log s(z) + (1 - y) log s(-z)], computed stably
            total += float((np.logaddexp(0.0, z) - y * z).sum())
            p = 0.5 * (1.0 + np.tanh(0.5 * z))
            grad += diff.T @ (p - y) * (2.0 / scale)
            count += len(y)
    return total / count + l2 * float(w @ w), grad / count + 2.0 * l2 * w


def _logistic(w: np.ndarray, diff: np.ndarray, y: np.ndarray, scale: float, l2: float) -> tuple[float, np.ndarray]:
    """The loss and gradient of _loss with every best opponent fixed (float32 differences)."""
    z = (diff @ w.astype(np.float32)).astype(np.float64) * (2.0 / scale)
    p = 0.5 * (1.0 + np.tanh(0.5 * z))
    grad = (diff.T @ (p - y).astype(np.float32)).astype(np.float64) * (2.0 / scale) / len(y)
    return float((np.logaddexp(0.0, z) - y * z).mean()) + l2 * float(w @ w), grad + 2.0 * l2 * w


def fit(corpus: Corpus, start: Weights, l2: float = 1e-4, iterations: int = 500, rounds: int = 10,
        progress: Callable[[int], object] = lambda _: None, fixed: dict[str, float] | None = None) -> tuple[Weights, float]:
    """The weights that maximise the likelihood of the results, from
    `start` (the hand-tuned ones); their mean log-loss. Deterministic.

    With 3-4 players the best opponent depends on the weights, which makes
    the likelihood piecewise; so each round fixes every position's best
    opponent by the current weights, fits that logistic regression (one
    matrix of differences, not regathered per step: a corpus of millions
    of positions fits in seconds instead of an hour), and repeats until
    the weights stop moving. `fixed` holds some weights at given values
    (a feature whose worth the self-play games cannot show, like a purse
    kept for a later buy), fitting the others around them."""
    from scipy.optimize import minimize

    fixed = fixed or {}
    unknown = set(fixed) - set(FEATURES)
    if unknown:
        raise ValueError(f"unknown features {sorted(unknown)}; expected {list(FEATURES)}")
    w = np.array([fixed.get(name, value) for name, value in zip(FEATURES, start.values)], dtype=np.float64)
    bounds = [(fixed[name], fixed[name]) if name in fixed else (None, None) for name in FEATURES]
    for _ in range(rounds):
        pairs = [pair for group in corpus.groups for pair in group.pairs(w)]
        diff = np.concatenate([d for d, _ in pairs]).astype(np.float32)
        y = np.concatenate([r for _, r in pairs])
        result = minimize(_logistic, w, args=(diff, y, start.scale, l2), jac=True, method="L-BFGS-B", bounds=bounds,
                          options={"maxiter": iterations})
        progress(1)
        moved = float(np.abs(result.x - w).max())
        w = result.x
        if moved < 1e-6:
            break
    return Weights(tuple(float(x) for x in w), start.scale), _loss(w, corpus, start.scale, l2)[0]


def accuracy(corpus: Corpus, weights: Weights) -> float:
    """How often the evaluation's sign names the result of a decided game
    (draws left out): a figure to compare weights by."""
    w = np.array(weights.values, dtype=np.float64)
    right = decided = 0
    for group in corpus.groups:
        for diff, y in group.pairs(w):
            known = y != 0.5
            right += int(((diff[known] @ w > 0) == (y[known] == 1.0)).sum())
            decided += int(known.sum())
    return right / decided if decided else 0.0


def compare(corpus: Corpus, files: Sequence[str]) -> None:
    """Prints how well each weights file predicts the corpus's results. The
    log-loss depends on the weights' scale, which the search hardly cares
    about, so it is also given at the best single rescaling."""
    from scipy.optimize import minimize_scalar

    print(f"{corpus.games} games, {corpus.positions} positions")
    print(f"{'weights':40s} {'log-loss':>9s} {'rescaled':>9s} {'x':>6s} {'accuracy':>9s}  by table size")
    for name in files:
        weights = load_weights(name)
        w = np.array(weights.values)
        raw = _loss(w, corpus, weights.scale, 0.0)[0]
        best = minimize_scalar(lambda k: _loss(k * w, corpus, weights.scale, 0.0)[0], bounds=(0.001, 10),
                               method="bounded")
        sizes = " ".join(f"{g.features.shape[1]}p {accuracy(Corpus([g], 0, 0), weights):.4f}" for g in corpus.groups)
        print(f"{name:40s} {raw:9.4f} {best.fun:9.4f} {best.x:6.3f} {accuracy(corpus, weights):9.4f}  {sizes}")


def _commit() -> str:
    """The checkout's commit, marked when tracked files differ from it (the
    weights were then made by code no commit holds)."""
    try:
        root = Path(__file__).resolve().parent.parent.parent
        head = subprocess.run(["git", "-C", str(root), "rev-parse", "--short", "HEAD"], capture_output=True,
                              text=True, timeout=10).stdout.strip()
        changed = subprocess.run(["git", "-C", str(root), "status", "--porcelain", "--untracked-files=no"],
                                 capture_output=True, text=True, timeout=10).stdout.strip()
        return f"{head} with uncommitted changes" if head and changed else head or "unknown"
    except (OSError, subprocess.SubprocessError):
        return "unknown"


def _settings_file(directory: Path, settings: Settings) -> None:
    path = directory / "settings.json"
    mine = asdict(settings)
    mine["policy_values"] = list(settings.policy_values)
    if path.exists():
        defaults = asdict(Settings()) | {"policy_values": list(Settings().policy_values)}
        stored = defaults | json.loads(path.read_text())  # a setting added since reads as its default
        if stored != mine:
            changed = sorted(k for k in mine if stored.get(k) != mine[k])
            raise SystemExit(f"{directory} holds a corpus made with other settings ({', '.join(changed)}): "
                             "use another DIR, or the same settings")
    else:
        path.write_text(json.dumps(mine, indent=2) + "\n")


def parse_setting(text: str) -> tuple[str, float]:
    """FEATURE=VALUE, with FEATURE one of the evaluation's features (--fix here, --set in bench/champion_weights.py)."""
    name, sep, value = text.partition("=")
    if not sep or name not in FEATURES:
        raise argparse.ArgumentTypeError(f"want FEATURE=VALUE with FEATURE one of {', '.join(FEATURES)}; got {text!r}")
    try:
        return name, float(value)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r}: {value!r} is not a number") from None


def _int_list(text: str) -> list[int]:
    try:
        values = [int(x) for x in text.split(",")]
    except ValueError:
        raise argparse.ArgumentTypeError(f"want numbers separated by commas, got {text!r}") from None
    if not values or any(v not in (2, 3, 4) for v in values):
        raise argparse.ArgumentTypeError(f"players must be 2, 3 or 4, got {text!r}")
    return sorted(set(values))


def _sets(text: str) -> list[bool]:
    names = text.split(",")
    if not names or any(n not in ("simple", "base") for n in names):
        raise argparse.ArgumentTypeError(f"sets are simple and base, got {text!r}")
    return sorted({n == "base" for n in names})


def parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="python -m bots.search.train", description=__doc__.splitlines()[0])
    parser.add_argument("directory", type=Path, metavar="DIR", help="where the corpus and the fit go (resumable)")
    parser.add_argument("--games", type=int, default=2000, help="games per set and table size (default %(default)s)")
    parser.add_argument("--players", type=_int_list, default=[2, 3, 4], help="table sizes (default 2,3,4)")
    parser.add_argument("--sets", type=_sets, default=[False, True], help="card sets (default simple,base)")
    parser.add_argument("--seed", type=int, default=1, help="the corpus's seed (default %(default)s)")
    parser.add_argument("--chunk", type=int, default=200, help="games per stored chunk (default %(default)s)")
    parser.add_argument("--greedy", type=float, default=0.5,
                        help="chance that a player bids and buys greedily by the evaluation (default %(default)s)")
    parser.add_argument("--epsilon", type=float, default=0.1,
                        help="a greedy player's chance of a random candidate move instead (default %(default)s)")
    parser.add_argument("--search", type=int, default=0, metavar="ITERATIONS",
                        help="every player the C core's MCTS at ITERATIONS a move, as the champion configures it, "
                             "with --epsilon's random moves (default 0: greedy and heuristic players, --greedy)")
    parser.add_argument("--sample", type=float, default=0.25,
                        help="chance that a bid or buy step's position is recorded (default %(default)s)")
    parser.add_argument("--policy-weights", default=None, metavar="FILE",
                        help="the greedy players' weights (default: the hand-tuned champion weights, bots/search/champion-v1.json, which played the corpus of learned.json)")
    parser.add_argument("--l2", type=float, default=1e-4, help="the fit's L2 penalty (default %(default)s)")
    parser.add_argument("--rounds", type=int, default=10,
                        help="rounds of the fit, each with the best opponents fixed (default %(default)s)")
    parser.add_argument("--iterations", type=int, default=500,
                        help="L-BFGS iterations a round at most (default %(default)s)")
    parser.add_argument("--fix", action="append", type=parse_setting, default=[], metavar="FEATURE=VALUE",
                        help="hold a weight at VALUE and fit the others (repeatable)")
    parser.add_argument("--compare", nargs="+", metavar="FILE", default=None,
                        help="instead of fitting, judge these weights files on the corpus (a held-out one: "
                             "another --seed): log-loss, the same at its best rescaling, sign accuracy")
    parser.add_argument("-o", "--output", type=Path, default=None, help="weights file written (default DIR/weights.json)")
    parser.add_argument("-j", "--workers", type=int, default=1, help="processes playing chunks (default %(default)s)")
    parser.add_argument("-q", "--quiet", action="store_true", help="no progress bar")
    return parser


def main(argv: Sequence[str] | None = None) -> None:
    """`python -m bots.search.train`: the corpus (resumed), then the fit."""
    import click

    args = list(sys.argv[1:] if argv is None else argv)
    options = parser().parse_args(args)
    if min(options.games, options.chunk, options.workers, options.rounds, options.iterations) < 1:
        parser().error("--games, --chunk, -j, --rounds and --iterations must be at least 1")
    if options.search < 0:
        parser().error("--search must be 0 (no searching players) or a number of iterations")
    if not (0 <= options.greedy <= 1 and 0 <= options.epsilon <= 1 and 0 < options.sample <= 1):
        parser().error("--greedy and --epsilon must be in [0, 1], --sample in (0, 1]")
    try:
        policy = load_weights(options.policy_weights, CHAMPION_V1_WEIGHTS_FILE)
    except (OSError, ValueError) as problem:
        parser().error(f"--policy-weights: {problem}")
    settings = Settings(options.seed, options.chunk, options.greedy, options.epsilon, options.sample,
                        policy_weights=options.policy_weights or CHAMPION_V1_WEIGHTS_FILE,
                        policy_values=policy.values, scale=policy.scale, search=options.search)
    corpus_dir = options.directory / "corpus"
    corpus_dir.mkdir(parents=True, exist_ok=True)
    _settings_file(options.directory, settings)
    chunks = chunks_of(options.games, options.chunk, options.players, options.sets)
    todo = [c for c in chunks if not (corpus_dir / f"{c.name}.npz").exists()]
    stream = open(os.devnull, "w") if options.quiet else sys.stderr
    try:
        with WorkerPool(options.workers) as pool, click.progressbar(
            length=sum(c.games for c in todo), label=f"self-play ({len(chunks) - len(todo)} of {len(chunks)} chunks stored)",
            file=stream, show_pos=True,
        ) as bar:
            jobs = [(c, settings, str(corpus_dir / f"{c.name}.npz")) for c in todo]
            for chunk, _ in zip(todo, pool.map(_play_job, jobs)):
                bar.update(chunk.games)
    except KeyboardInterrupt:
        print("\ninterrupted: finished chunks are stored; run the same command to resume", file=sys.stderr)
        raise SystemExit(130) from None
    corpus = load_corpus([corpus_dir / f"{c.name}.npz" for c in chunks])
    if options.compare:
        compare(corpus, options.compare)
        return
    start = load_weights(packaged=CHAMPION_V1_WEIGHTS_FILE)
    with click.progressbar(length=options.rounds, label="fit (rounds)", file=stream) as bar:
        weights, loss = fit(corpus, start, options.l2, options.iterations, options.rounds, progress=bar.update,
                            fixed=dict(options.fix))
    hand_loss = _loss(np.array(start.values), corpus, start.scale, 0.0)[0]
    note = (f"Fitted by regression on final outcomes (bots/search/train.py) to {corpus.positions} positions of "
            f"{corpus.games} self-play games of the C core ({'both sets' if len(options.sets) == 2 else 'base' if options.sets[0] else 'simple'}, "
            f"{','.join(map(str, options.players))} players), at commit {_commit()}: mean log-loss {loss:.4f} "
            f"(the champion's hand-tuned weights: {hand_loss:.4f}), sign accuracy on decided games "
            f"{accuracy(corpus, weights):.3f} ({accuracy(corpus, start):.3f}).")
    output = options.output or options.directory / "weights.json"
    data = {
        "weights": weights.as_dict(), "scale": weights.scale, "note": note,
        "trained": {
            "command": shlex.join(["python", "-m", "bots.search.train", *args]), "commit": _commit(),
            "games": corpus.games, "positions": corpus.positions, "settings": json.loads(
                (options.directory / "settings.json").read_text()) | {"players": options.players,
                                                                     "sets": ["base" if b else "simple" for b in options.sets],
                                                                     "games_per_table": options.games, "l2": options.l2,
                                                                     "rounds": options.rounds, "iterations": options.iterations,
                                                                     "fixed": dict(options.fix)},
            "log_loss": loss, "hand_tuned_log_loss": hand_loss,
        },
    }
    output.parent.mkdir(parents=True, exist_ok=True)
    output.write_text(json.dumps(data, indent=2) + "\n")
    print(note)
    for name, value in weights.as_dict().items():
        print(f"  {name:16s} {value:9.4f}   (hand-tuned {start.as_dict()[name]:g})")
    print(f"written to {output}")


if __name__ == "__main__":
    main()
