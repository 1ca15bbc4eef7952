"""The expert-rule bot: what a strong human player does, written as rules.

The game is a race to 7 points (strictly the most) with one buy a day,
interrupted by attacks that destroy cards or eliminate a player left
without defenders. The rules below, in the order `decide` applies them:

Buying
  1. Take a buy that wins at once (`winning_buys`), never one that is the
     contested last copy of a card, which nobody would get.
  2. Deny an opponent who could win this round: reach their possible
     points ourselves (the winner needs strictly the most), or buy the last
     copy they need so that it is contested and nobody gets it.
  3. Stay alive: if some opponent could have more attacks than we have
     defenses, do not pass: buy the card of our route that defends (points
     cards defend too), or else the defender that best beats their attackers.
  4. Keep a deterrent: when opponents hold attackers and none of our
     defenders would make one faint, buy the cheapest card that would.
  5. Otherwise follow the fastest route to the winning points
     (`fastest_route`): a small search over our own future buys that knows
     which cards pay on which day of the 3-day cycle, so an income card is
     bought only when it pays for itself before the points are complete.

Investing (all investments are paid; strictly the highest attacks)
  1. Survival: an opponent who could eliminate us (more attacks than our
     defenses) is denied by matching their coins, a tie stopping any attack
     (if we cannot match them, the coins go to a defender instead).
  2. Elimination: if we can eliminate an opponent, invest one more than
     every opponent has, when we can afford it.
  3. Profitable attack: if our cards win fights without fainting, attack
     when the cards they destroy are worth more than the coins it costs.
  4. Damage denial: match an opponent's coins when their attack would
     cost us more than those coins.

Attacking: attack with cards that win without fainting (cheapest first);
while an opponent can still be run out of defenders, with cards that
cannot faint, or with anything if that runs out every opponent; else stop.

Defending: the card that loses least: one that survives, better one that
kills the attacker, else the cheapest card to lose.

The card facts and the tactical helpers at the top of this module are also
the "automatic heuristics" of the evolved bot (bots/evolved).
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import lru_cache

from bots.sdk import option_parser, run
from protocol.cards import ATK, ATTACKS, CARDS, COST, DEF, DEFENDS, POINTS, shop_ids
from protocol.engine import ATTACKING, BUY, DEFENDING, INVESTING, PASS, Game

WIN_POINTS = 7
"""Points that win, if strictly the most (spec section 7)."""

FIGHT_ATK: tuple[int, ...] = tuple(level or 0 for level in ATK)
FIGHT_DEF: tuple[int, ...] = tuple(level or 0 for level in DEF)
"""Attack and defense levels as the fight rules compare them: only cards
that attack or defend are ever compared, and the one card without levels
(the Stipend, None in `protocol.cards`) does neither; whether a card can
defend at all is still `DEF[card] is not None`."""

# ----------------------------------------------------------------- card facts


def day_income(card: int, day: int, coins: int) -> int:
    """Coins `card` adds on `day` to a player holding `coins` when it pays."""
    facts = CARDS[card]
    return facts.coins[day - 1] + (coins // 3 if facts.bean else 0)


def cycle_income(card: int) -> int:
    """Coins a card yields over one 3-day cycle (Magic Bean Stock counted as
    one coin a day, what it gives a player holding 3 to 5 coins)."""
    facts = CARDS[card]
    return sum(facts.coins) + (3 if facts.bean else 0)


def card_value(card: int) -> int:
    """What owning a card is worth, in coins, in the middle of a game: its
    price, a cycle of its income, and two coins a point (points are what
    win, and a buy spent on points is a buy not spent on income)."""
    if card == 0:
        return 100  # the Stipend is never at risk: it cannot defend
    return (COST[card] or 0) + cycle_income(card) + 2 * POINTS[card]


def beats(attacker: int, defender: int) -> bool:
    """Card `attacker` makes card `defender` faint and survives the fight."""
    return FIGHT_ATK[attacker] > FIGHT_DEF[defender] and FIGHT_DEF[attacker] >= FIGHT_ATK[defender]


def ready_attackers(game: Game, p: int) -> list[int]:
    """Indexes of p's cards that can still attack this attack phase."""
    return [i for i, (card, uses) in enumerate(game.cards(p)) if ATTACKS[card] > uses]


def ready_defenders(game: Game, p: int) -> list[int]:
    """Indexes of p's cards that can still defend this attack phase."""
    return [
        i for i, (card, uses) in enumerate(game.cards(p)) if DEF[card] is not None and DEFENDS[card] > uses
    ]


def defenses_left(game: Game, p: int) -> int:
    """How many more attacks p can answer before being eliminated."""
    return sum(DEFENDS[card] - uses for card, uses in game.cards(p) if DEF[card] is not None and DEFENDS[card] > uses)


def opponents(game: Game, me: int) -> list[int]:
    """Opponents still in the game."""
    return [p for p in range(game.n_players) if p != me and game.alive(p)]


def can_eliminate(game: Game, attacker: int, defender: int) -> bool:
    """`attacker` has more attacks left than `defender` has defenses: the
    defender is eliminated if the attacker uses them all."""
    return game.alive(defender) and len(ready_attackers(game, attacker)) > defenses_left(game, defender)


def safe_attackers(game: Game, me: int) -> list[int]:
    """Our ready attackers that make any defender faint without fainting
    themselves, against every ready defender of every opponent, cheapest first."""
    rivals = [game.cards(p)[i][0] for p in opponents(game, me) for i in ready_defenders(game, p)]
    cards = game.cards(me)
    safe = [i for i in ready_attackers(game, me) if all(beats(cards[i][0], d) for d in rivals)]
    return sorted(safe, key=lambda i: card_value(cards[i][0]))


def sacrifice_cost(game: Game, p: int, attacks: int) -> int:
    """What p loses to `attacks` attacks it cannot win: its cheapest defenders."""
    values = sorted(card_value(game.cards(p)[i][0]) for i in ready_defenders(game, p))
    return sum(values[:attacks])


# ------------------------------------------------------------------- buying


def in_stock(game: Game, me: int) -> list[int]:
    """Cards `me` can buy and actually get: affordable, count above 0."""
    shop = game.shop()
    return [m for m in game.legal_moves(me) if m != PASS and shop[m] > 0]


def best_points_buy(game: Game, p: int) -> int:
    """The most points p can add with one buy right now (0 if none)."""
    if game.buys(p) == 0:
        return 0
    shop = game.shop()
    return max((POINTS[c] for c, n in shop.items() if n > 0 and (COST[c] or 0) <= game.coins(p)), default=0)


def contested(game: Game, me: int, card: int) -> bool:
    """Buying `card` now may get us nothing: fewer copies are left than the
    players (us included) who can afford it and have a buy."""
    rivals = sum(1 for p in opponents(game, me) if game.buys(p) > 0 and (COST[card] or 0) <= game.coins(p))
    return rivals > 0 and game.shop()[card] < 1 + rivals


def winning_buys(game: Game, me: int) -> list[int]:
    """Buys that win this round whatever the opponents buy at the same time,
    uncontested ones first; never a contested last copy."""
    if game.phase != BUY:
        return []
    mine = game.points(me)
    best_rival = max((game.points(p) + best_points_buy(game, p) for p in opponents(game, me)), default=0)
    wins = [
        c
        for c in in_stock(game, me)
        if mine + POINTS[c] >= WIN_POINTS and mine + POINTS[c] > best_rival and not contested(game, me, c)
    ]
    return sorted(wins, key=lambda c: COST[c] or 0)


def rival_winning_cards(game: Game, me: int) -> dict[int, set[int]]:
    """For each opponent who could win this round with one buy, the cards that would do it."""
    threats: dict[int, set[int]] = {}
    if game.phase != BUY:
        return threats
    shop = game.shop()
    for p in opponents(game, me):
        if game.buys(p) == 0:
            continue
        others = max(game.points(q) for q in range(game.n_players) if q != p)
        cards = {
            c
            for c, n in shop.items()
            if n > 0 and (COST[c] or 0) <= game.coins(p) and game.points(p) + POINTS[c] >= WIN_POINTS
            and game.points(p) + POINTS[c] > others
        }
        if cards:
            threats[p] = cards
    return threats


def denial_buy(game: Game, me: int) -> int | None:
    """A buy that stops an opponent from winning this round, if one exists."""
    threats = rival_winning_cards(game, me)
    if not threats:
        return None
    their_best = max(game.points(p) + max(POINTS[c] for c in cards) for p, cards in threats.items())
    stock = in_stock(game, me)
    matching = [c for c in stock if game.points(me) + POINTS[c] >= their_best]
    if matching:
        # A tie at the top is no win: match their points (cheapest way).
        return min(matching, key=lambda c: COST[c] or 0)
    needed = set.union(*threats.values())
    if len(needed) == 1:
        (card,) = needed
        if card in stock and game.shop()[card] == 1:
            return card  # the last copy, contested: nobody gets it
    return None


def attack_strength(game: Game, p: int) -> int:
    """Attacks p can make in one attack phase, counting the attacker it
    may buy this round (every card but Bubble and the Stipend attacks)."""
    held = sum(ATTACKS[card] for card, _ in game.cards(p))
    return held + (1 if game.phase == BUY and game.buys(p) > 0 and game.coins(p) >= 1 else 0)


def defense_strength(game: Game, p: int) -> int:
    """Defenses p can make in one attack phase."""
    return sum(DEFENDS[card] for card, _ in game.cards(p) if DEF[card] is not None)


def exposed(game: Game, me: int) -> bool:
    """Without a new defender, some opponent could eliminate us tomorrow:
    their attacks (with what they may buy now) outnumber our defenses."""
    return any(attack_strength(game, p) > defense_strength(game, me) for p in opponents(game, me))


def defender_buy(game: Game, me: int, options: Sequence[int]) -> int | None:
    """Among `options`, the defender that best answers the opponents'
    attackers: survives and kills them, defends twice, costs least."""
    stock = [c for c in options if c != PASS and DEF[c] is not None and DEFENDS[c] > 0]
    if not stock:
        return None
    attackers = [c for p in opponents(game, me) for c, _ in game.cards(p) if ATTACKS[c] > 0]

    def merit(card: int) -> tuple[int, int, int]:
        survives = sum(1 for a in attackers if FIGHT_ATK[a] <= FIGHT_DEF[card])
        kills = sum(1 for a in attackers if FIGHT_ATK[card] > FIGHT_DEF[a])
        return (survives + kills, DEFENDS[card], -(COST[card] or 0))

    return max(stock, key=merit)


def deterrent_buy(game: Game, me: int, options: Sequence[int]) -> int | None:
    """When opponents hold attackers and none of our cards would make one
    faint in a fight, the cheapest card that would: their attacks then cost
    them cards, and if it can attack too, an opponent who cannot beat it
    must pay to deny its attacks."""
    attackers = {c for p in opponents(game, me) for c, _ in game.cards(p) if ATTACKS[c] > 0}
    if not attackers:
        return None
    ours = [c for c, _ in game.cards(me) if DEF[c] is not None and DEFENDS[c] > 0]
    if any(FIGHT_ATK[c] > FIGHT_DEF[a] for c in ours for a in attackers):
        return None
    killers = [c for c in options if c != PASS and DEF[c] is not None and all(FIGHT_ATK[c] > FIGHT_DEF[a] for a in attackers)]
    return min(killers, key=lambda c: (COST[c] or 0, -ATTACKS[c], -FIGHT_DEF[c]), default=None)


# Cards the route search considers: points, and income cards that return
# more than half their price each cycle (Ghost and Thug are bought for
# fighting, by the other rules, not for their coins).
def _route_cards(base: bool) -> tuple[int, ...]:
    return tuple(c for c in shop_ids(base) if POINTS[c] > 0 or 2 * cycle_income(c) > (COST[c] or 0))


ROUTE_INCOME_BUYS = 2
"""Income cards a route may still buy: a third one never pays for itself
before a 5- or 6-day race is over, and the limit keeps the search fast."""


@lru_cache(maxsize=200_000)
def _route(
    day: int, coins: int, earners: tuple[int, ...], points: int, target: int,
    stock: tuple[tuple[int, int], ...], days_left: int, scoring: bool, first: frozenset[int] | None = None,
    income_buys: int = ROUTE_INCOME_BUYS,
) -> tuple[int, int, int]:
    """(days to reach `target` points, -coins left then, first buy) from a
    buy phase, with one buy a day and no interference.

    `earners` are our income cards in list order (Magic Bean Stock depends
    on it); `stock` the (card, count) of the cards considered; once a
    points card is bought only points are considered (income bought later
    would not pay for itself before the end).
    """
    best = (days_left + 1 + (target - points), -coins, PASS)
    # PASS last: on a tie a card in hand beats coins in the purse.
    may_earn = not scoring and income_buys > 0
    options = [c for c, n in stock if n > 0 and (COST[c] or 0) <= coins and (POINTS[c] > 0 or may_earn)] + [PASS]
    if first is not None:
        options = [c for c in options if c in first]
    for card in options:
        cost = (COST[card] or 0) if card != PASS else 0
        gained = POINTS[card] if card != PASS else 0
        left = coins - cost
        if points + gained >= target:
            result = (1, -left, card)
        elif days_left <= 1 or points + gained + 3 * (days_left - 1) < target:
            continue
        else:
            now_earners = earners + (card,) if card != PASS and cycle_income(card) > 0 else earners
            now_stock = tuple((c, n - 1 if c == card else n) for c, n in stock) if card != PASS else stock
            next_day = day % 3 + 1
            tomorrow = left
            for earner in now_earners:
                tomorrow += day_income(earner, next_day, tomorrow)
            days, spare, _ = _route(
                next_day, tomorrow, now_earners, points + gained, target, now_stock, days_left - 1,
                scoring or gained > 0, None, income_buys - (1 if card != PASS and gained == 0 else 0),
            )
            result = (days + 1, spare, card)
        if result[:2] < best[:2]:
            best = result
    return best


def fastest_route(
    game: Game, me: int, horizon: int = 6, first: frozenset[int] | None = None
) -> tuple[int, int, int]:
    """(days, -coins left, first buy) of our fastest route to winning points
    starting with one of `first` if given (PASS as first buy when none of
    them starts a route)."""
    target = max(WIN_POINTS, max((game.points(p) for p in opponents(game, me)), default=0) + 1)
    earners = tuple(c for c, _ in game.cards(me) if cycle_income(c) > 0)
    shop = game.shop()
    stock = tuple((c, shop[c]) for c in _route_cards(game.base))
    scoring = game.points(me) > 0
    return _route(game.day, game.coins(me), earners, game.points(me), target, stock, horizon, scoring, first)


def tactical_buy(game: Game, me: int) -> int | None:
    """Rules 1-2 of buying, which every sound player follows whatever its
    plan (the evolved bot and the exploiter's styles too): a buy that wins
    now, else one that stops an opponent's winning buy; None if neither."""
    wins = winning_buys(game, me)
    if wins:
        return wins[0]
    return denial_buy(game, me)


def choose_buy(game: Game, me: int) -> int:
    """Rules 1-5 of buying, in order."""
    tactical = tactical_buy(game, me)
    if tactical is not None:
        return tactical
    stock = in_stock(game, me)
    shop = game.shop()
    # A last copy someone else can afford may be lost with our coins: take
    # it only when nothing uncontested does the job.
    sure = [c for c in stock if not (contested(game, me, c) and shop[c] == 1)]
    deterrent = deterrent_buy(game, me, sure)
    if deterrent is not None:
        return deterrent
    if exposed(game, me):
        # Any card that defends keeps the count (points cards too): the
        # best one for our route; a passing day could be our last.
        defenders = [c for c in sure if DEF[c] is not None and DEFENDS[c] > 0]
        _, _, card = fastest_route(game, me, first=frozenset(defenders))
        return card if card != PASS else defender_buy(game, me, stock) or PASS
    _, _, card = fastest_route(game, me, first=frozenset(sure) | {PASS})
    return card


# ---------------------------------------------------------------- investing


def choose_investment(game: Game, me: int) -> int:
    """Rules 1-4 of investing: the largest amount any of them asks for."""
    coins = game.coins(me)
    rivals = opponents(game, me)
    if not rivals or coins == 0:
        return 0
    outbid = max(game.coins(p) for p in rivals) + 1
    amount = 0
    # 1. Survival: match the coins of anyone who could eliminate us.
    # (Only when we can match them: coins spent on a hopeless block are
    # better spent on a defender.)
    lethal = [game.coins(p) for p in rivals if can_eliminate(game, p, me)]
    if lethal and max(lethal) <= coins:
        amount = max(amount, max(lethal))
    # 2. Elimination: a guaranteed attack that runs an opponent out of defenders.
    if outbid <= coins and any(can_eliminate(game, me, p) for p in rivals):
        return outbid
    # 3. Profitable attack: safe attackers destroy their cheapest defenders.
    safe = safe_attackers(game, me)
    if safe and outbid <= coins:
        gain = sum(sacrifice_cost(game, p, len(safe)) for p in rivals)
        if gain >= outbid:
            amount = max(amount, outbid)
    # 4. Damage denial: their safe attackers would cost us more than matching them.
    for p in rivals:
        theirs = safe_attackers(game, p)
        if not theirs or game.coins(p) > coins:
            continue
        loss = sacrifice_cost(game, me, len(theirs))
        if loss > game.coins(p):
            amount = max(amount, game.coins(p))
    return amount


# ------------------------------------------------------------ attack, defend


def survivors(game: Game, me: int) -> list[int]:
    """Our ready attackers that no ready defender can make faint, cheapest first."""
    rivals = [game.cards(p)[i][0] for p in opponents(game, me) for i in ready_defenders(game, p)]
    cards = game.cards(me)
    alive = [i for i in ready_attackers(game, me) if all(FIGHT_DEF[cards[i][0]] >= FIGHT_ATK[d] for d in rivals)]
    return sorted(alive, key=lambda i: card_value(cards[i][0]))


def choose_attack(game: Game, me: int) -> int:
    """A card to attack with, or 0 to stop."""
    cards = game.cards(me)
    ready = ready_attackers(game, me)
    if not ready:
        return 0
    safe = safe_attackers(game, me)
    if safe:
        return safe[0]
    rivals = opponents(game, me)
    if any(can_eliminate(game, me, p) for p in rivals):
        # Every attack uses up a defense. Risk a card that may faint only
        # when the attacks run out every opponent: that wins the game.
        keep = survivors(game, me)
        if keep:
            return keep[0]
        if all(can_eliminate(game, me, p) for p in rivals):
            return min(ready, key=lambda i: card_value(cards[i][0]))
    return 0


def choose_defender(game: Game, me: int) -> int:
    """The defender whose fight costs us least (and costs the attacker most)."""
    seat, index = game.attacker, game.attacker_card
    assert seat is not None and index is not None  # asked to defend: an attack is on
    attacker = game.cards(seat)[index][0]
    cards = game.cards(me)

    def outcome(i: int) -> tuple[int, int]:
        card = cards[i][0]
        lost = card_value(card) if FIGHT_ATK[attacker] > FIGHT_DEF[card] else 0
        won = card_value(attacker) if FIGHT_ATK[card] > FIGHT_DEF[attacker] else 0
        return (won - lost + CARDS[card].defend_coins, -card_value(card))

    return max(game.legal_moves(me), key=outcome)


def decide(game: Game, me: int) -> int:
    """The expert's move for `me` (any phase in which it is asked)."""
    phase = game.phase
    if phase == INVESTING:
        return choose_investment(game, me)
    if phase == ATTACKING:
        return choose_attack(game, me)
    if phase == DEFENDING:
        return choose_defender(game, me)
    if phase == BUY:
        return choose_buy(game, me)
    raise ValueError(f"no move to make in phase {phase}")


def main(argv: Sequence[str] | None = None) -> None:
    """Entry point of `python -m bots.expert` and `economancy-expert`."""
    options = option_parser("Economancy bot following hand-written expert rules.").parse_args(argv)
    run(decide, max_days=options.max_days)


if __name__ == "__main__":
    main()
