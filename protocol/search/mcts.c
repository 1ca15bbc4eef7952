/*
 * Simultaneous-move Monte Carlo tree search, the C port of the reference
 * bots/search/mcts.py (its docstring says why each pending player keeps
 * its own statistics): decoupled UCT or regret matching (Lanctot et al.
 * 2013), the final move the most visited (duct) or drawn from the average
 * strategy (rm), leaves valued by a playout with the engine's heuristic or
 * by the evaluation.
 *
 * Unlike the reference, nodes are found by a hash of the state rather than
 * under their parent: positions reached by different orders of moves (the
 * same purchases on other days, the same fight after another bid) share
 * one node and its statistics (transpositions), and the tree of the last
 * search is found again from the new root without a walk. The tree is
 * bounded (max_nodes); once full, iterations go on without adding nodes.
 *
 * A playout may stop after `horizon` days once no points are for sale, the
 * state it reached valued by the evaluation (early playout termination, as
 * in Winands et al.'s MC-LOA; playout() says when). Played to day 100 from a locked position (all the points
 * bought, 11-11, killers on both sides), a playout's result is decided by
 * the heuristic's random moves over the eighty days left (one in 16: a
 * point card thrown in front of a Ghost loses the game), so every move at
 * the root scores about one half and a fight that destroys a defender
 * today is lost in that noise. Cut a few days on, the defender destroyed
 * is still missing from the evaluated material.
 */
#include "search.h"

#define MAX_PATH 512
#define DECIDED_EVERY 128

typedef struct {
    uint64_t key;
    uint32_t visits;
    uint32_t stats; /* index of its first statistic */
    uint8_t nplayers;
    uint8_t players[MAXP];
    uint8_t nmoves[MAXP];
} MNode;

typedef struct {
    int64_t move;
    double total, regret, ssum;
    uint32_t count;
} MStat;

typedef struct {
    PyObject_HEAD
    Weights w;
    int rm, eval_leaf;
    int64_t horizon; /* days a playout runs before the evaluation values it; 0: to the end */
    int64_t race_days; /* days a playout from a leaf in the race runs before the evaluation values it; -1: through the race */
    int policy;      /* the playouts' policy: POLICY_HEURISTIC or POLICY_FINISHER */
    int explore;     /* its random moves: one in `explore` (0 none) */
    double contempt; /* taken off the searching player's value of a drawn or locked leaf */
    int me;          /* the searching player of the current search */
    int race_over;   /* no card worth points for sale at its root: contempt applies */
    double passive[MAXP]; /* this search's chance that each player bids 0 while it holds a sure attack (0: searched) */
    int bid_model;        /* passive given for this search: the playouts' threatened players deny */
    double aggression[MAXP]; /* the chance that the playouts' threatened players match each player's purse: 1 - passive,
                                and `denied` for the searching player */
    double exploration;
    uint64_t rng;
    uint32_t max_nodes;
    MNode *nodes;
    uint32_t n_nodes, cap_nodes;
    MStat *stats;
    uint32_t n_stats, cap_stats;
    uint32_t *index; /* open addressing: node index + 1, 0 empty */
    uint64_t index_mask;
} MctsObject;

/* ------------------------------------------------------------ the tree */

static void tree_clear(MctsObject *t)
{
    t->n_nodes = 0;
    t->n_stats = 0;
    if (t->index)
        memset(t->index, 0, (t->index_mask + 1) * sizeof(uint32_t));
}

static int64_t find(const MctsObject *t, uint64_t key)
{
    for (uint64_t i = key & t->index_mask;; i = (i + 1) & t->index_mask) {
        uint32_t v = t->index[i];
        if (!v)
            return -1;
        if (t->nodes[v - 1].key == key)
            return v - 1;
    }
}

/* Whether player p holds a card that attacks (at investing, every card's
   uses are 0). */
static int holds_attacker(const State *s, int p)
{
    for (int i = 0; i < s->pl[p].n; i++)
        if (CARDS[s->pl[p].id[i]].attacks > 0)
            return 1;
    return 0;
}

/* Drops from p's candidate bids (n of them) those another bid dominates:
   they win or lose the bid exactly as a cheaper one does and leave fewer
   coins, which never helps (coins only pay for bids and buys, and the
   Stock's income grows with them):
   - bids above every opponent's purse plus one (that one wins the bid);
   - if p holds no card that attacks, winning the bid gives it nothing and
     only denial is left: bids above the richest opponent's purse (a tie
     already stops every attack), and, if no opponent holds one either,
     every bid above 0 (there is nothing to deny).
   Searched, they split the visits of one decision between equivalent
   moves, and the most visited of them spent the whole purse on an attack
   the tree then did not make. Only where every purse fits an int64 (else
   the candidates are kept as they are). Returns the number kept. */
static int drop_dominated_bids(const State *s, int p, int64_t *moves, int n)
{
    if (s->phase != INVESTING || s->pl[p].big)
        return n;
    int64_t top = -1;
    int threat = 0;
    for (int o = 0; o < s->np; o++)
        if (o != p && alive(s, o)) {
            if (s->pl[o].big || s->pl[o].coins >= INT64_MAX)
                return n;
            if (s->pl[o].coins > top)
                top = s->pl[o].coins;
            threat |= holds_attacker(s, o);
        }
    int64_t limit = holds_attacker(s, p) ? top + 1 : threat ? top : 0;
    int k = 0;
    for (int i = 0; i < n; i++)
        if (IS_INVEST_CODE(moves[i]) || moves[i] <= limit)
            moves[k++] = moves[i];
    return k > 0 ? k : n;
}

/* A new node for `s` (pending, not over), or -1 when the tree is full (or
   -2 on a failed Python call). */
static int64_t add(MctsObject *t, const State *s, uint64_t key)
{
    if (t->n_nodes >= t->max_nodes)
        return -1;
    unsigned mask = pending_mask(s);
    MNode node = {0};
    node.key = key;
    int64_t moves[MAXP][MAXMOVES];
    uint32_t total = 0;
    for (int p = 0; p < s->np; p++)
        if ((mask >> p) & 1) {
            int k = node.nplayers++;
            node.players[k] = (uint8_t)p;
            int n = candidate_moves(s, p, moves[k]);
            if (n <= 0)
                return -2;
            n = drop_dominated_bids(s, p, moves[k], n);
            node.nmoves[k] = (uint8_t)n;
            total += (uint32_t)n;
        }
    if (t->n_stats + total > t->cap_stats) {
        uint32_t cap = t->cap_stats ? t->cap_stats * 2 : 4096;
        while (cap < t->n_stats + total)
            cap *= 2;
        if (cap > t->max_nodes * 16u)
            return -1;
        MStat *grown = PyMem_Realloc(t->stats, cap * sizeof(MStat));
        if (!grown)
            return -1;
        t->stats = grown;
        t->cap_stats = cap;
    }
    if (t->n_nodes >= t->cap_nodes) {
        uint32_t cap = t->cap_nodes ? t->cap_nodes * 2 : 1024;
        if (cap > t->max_nodes)
            cap = t->max_nodes;
        MNode *grown = PyMem_Realloc(t->nodes, cap * sizeof(MNode));
        if (!grown)
            return -1;
        t->nodes = grown;
        t->cap_nodes = cap;
    }
    node.stats = t->n_stats;
    for (int k = 0; k < node.nplayers; k++)
        for (int i = 0; i < node.nmoves[k]; i++) {
            MStat *st = &t->stats[t->n_stats++];
            memset(st, 0, sizeof *st);
            st->move = moves[k][i];
        }
    uint32_t id = t->n_nodes++;
    t->nodes[id] = node;
    uint64_t i = key & t->index_mask;
    while (t->index[i])
        i = (i + 1) & t->index_mask;
    t->index[i] = id + 1;
    return id;
}

static MStat *stats_of(const MctsObject *t, const MNode *node, int k)
{
    uint32_t off = node->stats;
    for (int j = 0; j < k; j++)
        off += node->nmoves[j];
    return &t->stats[off];
}

static double uniform(uint64_t *rng) { return (double)(rng_next(rng) >> 11) * 0x1.0p-53; }

static void rm_strategy(const MStat *st, int n, double *out)
{
    double total = 0;
    for (int i = 0; i < n; i++)
        total += st[i].regret > 0 ? st[i].regret : 0.0;
    for (int i = 0; i < n; i++)
        out[i] = total <= 0 ? 1.0 / n : (st[i].regret > 0 ? st[i].regret : 0.0) / total;
}

static int select_move(MctsObject *t, const MNode *node, int k)
{
    const MStat *st = stats_of(t, node, k);
    int n = node->nmoves[k];
    if (t->rm) {
        double strategy[MAXMOVES], gamma = t->exploration / 10, r = uniform(&t->rng), acc = 0;
        rm_strategy(st, n, strategy);
        for (int i = 0; i < n; i++) {
            acc += (1 - gamma) * strategy[i] + gamma / n;
            if (r < acc)
                return i;
        }
        return n - 1;
    }
    int untried[MAXMOVES], nu = 0;
    for (int i = 0; i < n; i++)
        if (st[i].count == 0)
            untried[nu++] = i;
    if (nu)
        return untried[rng_below(&t->rng, (uint64_t)nu)];
    double log_n = log((double)node->visits), best_score = -INFINITY;
    int best = 0;
    for (int i = 0; i < n; i++) {
        double score = st[i].total / st[i].count + t->exploration * sqrt(log_n / st[i].count);
        if (score > best_score) {
            best = i;
            best_score = score;
        }
    }
    return best;
}

static void update(MctsObject *t, MNode *node, const uint8_t *picks, const double *values)
{
    node->visits++;
    for (int k = 0; k < node->nplayers; k++) {
        MStat *st = stats_of(t, node, k);
        int n = node->nmoves[k], pick = picks[k];
        double v = values[node->players[k]];
        st[pick].count++;
        st[pick].total += v;
        if (t->rm) {
            double strategy[MAXMOVES], gamma = t->exploration / 10;
            rm_strategy(st, n, strategy);
            double played = (1 - gamma) * strategy[pick] + gamma / n;
            for (int b = 0; b < n; b++) {
                double estimate = b == pick ? v / played : 0.0;
                st[b].regret += estimate - v;
                st[b].ssum += strategy[b];
            }
        }
    }
}

/* How a decided game's value fades with the days it took from the search's
   root: a win `elapsed` days away is worth 1 - WIN_FADE * elapsed / (elapsed
   + FADE_DAYS), and a loss as much above 0. Without it a player who wins in
   every line values every move alike, so it may bid nothing today (it wins
   tomorrow just the same) and the same again tomorrow: in a lock where any
   day's attack wins, the champion put it off. A loss put off is a chance
   for the opponent to go wrong. A win stays above 1 - WIN_FADE, above every
   undecided playout (at most 0.75). */
#define WIN_FADE 0.2
#define FADE_DAYS 10.0

/* Whether the shop still sells a card worth points. */
static int points_for_sale(const State *s)
{
    for (int c = 1; c <= MAX_SHOP_ID(s); c++)
        if (CARDS[c].points > 0 && s->shop[c] > 0)
            return 1;
    return 0;
}

/* Whether an undecided state is a draw or a lock: the game ended without a
   winner (the day limit), or no card worth points is left in the shop and
   the leaders are level, so that only an elimination can still decide it
   (bench/endings.py's "locked"). An eliminated player holds no cards, so
   no points: it ties the leaders only where nobody holds any. */
static int drawish(const State *s)
{
    if (s->phase == END)
        return s->winner < 0;
    return !points_for_sale(s) && points_leader(s, NULL) < 0;
}

/* Contempt for a draw: once the points are sold out at the search's
   root, the searching player's value of a drawn or locked leaf lowered by
   `contempt`, the opponents' left as they are. Against an opponent weaker
   than the search assumes, a line that still decides the game is worth
   more than a lock both sides value alike; a search indifferent between
   them drew 45 of 149 games against mcts-v1 in the base set at 0.5 s,
   every one a lock. Not during the race for the points: there, against
   mcts-v1 at 0.5 s, the gambles it bought were races lost as often as
   locks broken (docs/bots.md, "Contempt for a draw"). */
static void scorn(const MctsObject *t, const State *s, double *values)
{
    if (t->contempt > 0 && t->race_over && drawish(s))
        values[t->me] = fmax(0.0, values[t->me] - t->contempt);
}

/* Each player's result of a finished game, or of a playout cut at the
   horizon (mcts.outcome in the reference, which does not fade wins): an
   undecided game is valued by the evaluation, between a loss (0) and a win
   (1). `root_days`: the days played at the search's root. */
static void outcome(const MctsObject *t, const State *s, int64_t root_days, double *values)
{
    if (s->phase == END && s->winner >= 0) {
        double elapsed = (double)(s->days_played > root_days ? s->days_played - root_days : 0);
        double fade = WIN_FADE * elapsed / (elapsed + FADE_DAYS);
        for (int p = 0; p < s->np; p++)
            values[p] = p == s->winner ? 1.0 - fade : fade;
        return;
    }
    evaluate_all(s, &t->w, values);
    for (int p = 0; p < s->np; p++)
        values[p] = 0.25 + 0.5 * values[p];
    scorn(t, s, values);
}

/* A leaf's playout by the engine's heuristic (the finisher with `finish`:
   a player buys a points card that wins at once): to the game's end, or, with
   a horizon, `horizon` days on and then a day at a time until no card worth
   points is left in the shop. While points are for sale the game is a
   race, which a playout measures and the evaluation (no race feature in
   weights.json) does not: cut at 6 days from the first days, the champion
   spent the coin that buys an Incantation rather than a Board on bids, and
   drew games against `expert` it had won in 7 days. Once they are sold
   out only fights decide, and the rest of a playout is noise. With the
   bid model (`passive` given), a player threatened by attackers it cannot
   answer matches their holder's purse, when it can, with the chance that
   the holder bids for them (1 - passive): the coins a strangle costs,
   which a playout otherwise never charged (docs/bots.md, "Against
   alphabeta-v1, and denying in the playouts"). */
static void playout(MctsObject *t, State *s)
{
    const int policies[MAXP] = {t->policy, t->policy, t->policy, t->policy};
    const double *deny = t->bid_model ? t->aggression : NULL;
    if (t->race_days >= 0 && points_for_sale(s)) {
        /* A leaf in the race valued by the evaluation after `race_days`
           days: the heuristic's racers do not race as the players do, and
           playouts through the race predict the real games' results no
           better than a coin (docs/bots.md, "Race leaves by a fitted
           evaluation"). */
        run_playout_deny(s, rng_next(&t->rng), policies, s->days_played + t->race_days, deny, t->explore);
        return;
    }
    int64_t stop = t->horizon <= 0 ? INT64_MAX : s->days_played + t->horizon;
    run_playout_deny(s, rng_next(&t->rng), policies, stop, deny, t->explore);
    while (t->horizon > 0 && s->phase != END && s->phase != FAULT && !s->failed && s->days_played >= stop &&
           points_for_sale(s))
        run_playout_deny(s, rng_next(&t->rng), policies, ++stop, deny, t->explore); /* short of `stop`: it could not go on */
}

/* Whether p holds a card that attacks and beats every card able to defend
   against it, without fainting (the engine's sure_attack): the attack a
   player bids for if it bids at all. */
static int holds_sure_attack(const State *s, int p)
{
    for (int i = 0; i < s->pl[p].n; i++) {
        int c = s->pl[p].id[i];
        if (CARDS[c].attacks > 0 && sure_attack(s, p, c))
            return 1;
    }
    return 0;
}

/* The index of the bid 0 among the k-th player's moves at `node` (always a
   candidate: candidate_moves puts it first). */
static int bid_zero(const MctsObject *t, const MNode *node, int k)
{
    const MStat *st = stats_of(t, node, k);
    for (int i = 0; i < node->nmoves[k]; i++)
        if (st[i].move == 0)
            return i;
    return 0;
}

/* One iteration. An opponent with a `passive` chance (the bid model, set
   for each search by the champion from the bids it has seen) bids 0 with
   that chance at an investing node where it holds a sure attack, whatever
   its statistics say: decoupled UCT otherwise answers every bid as an
   opponent who always bids its best, and against one that mostly does
   not attack (`evolved`) the champion paid to deny attacks that were not
   coming and lost the race (docs/bots.md, the bid model). */
static void iterate(MctsObject *t, const State *start, uint32_t root)
{
    State s;
    state_copy(&s, start);
    uint32_t path[MAX_PATH];
    uint8_t picks[MAX_PATH][MAXP];
    int len = 0;
    double values[MAXP];
    uint32_t node = root;
    for (;;) {
        MNode *nd = &t->nodes[node];
        for (int k = 0; k < nd->nplayers; k++) {
            int p = nd->players[k];
            picks[len][k] = (uint8_t)select_move(t, nd, k);
            if (s.phase == INVESTING && t->passive[p] > 0 && uniform(&t->rng) < t->passive[p] && holds_sure_attack(&s, p))
                picks[len][k] = (uint8_t)bid_zero(t, nd, k);
        }
        path[len] = node;
        for (int k = 0; k < nd->nplayers; k++)
            play_search_move(&s, nd->players[k], stats_of(t, nd, k)[picks[len][k]].move);
        len++;
        if (s.phase == END || s.phase == FAULT) {
            outcome(t, &s, start->days_played, values);
            break;
        }
        uint64_t key = state_hash(&s);
        int64_t child = len < MAX_PATH ? find(t, key) : -1;
        if (child < 0) {
            if (len < MAX_PATH)
                add(t, &s, key);
            if (t->eval_leaf) {
                evaluate_all(&s, &t->w, values);
                scorn(t, &s, values);
            } else {
                playout(t, &s);
                outcome(t, &s, start->days_played, values);
            }
            break;
        }
        node = (uint32_t)child;
    }
    state_release(&s);
    for (int i = 0; i < len; i++)
        update(t, &t->nodes[path[i]], picks[i], values);
}

/* Whether the rest of the budget can no longer change duct's move (the
   reference's _decided): the leader's visits ahead of the runner-up's by
   more than the iterations left could bring. */
static int decided(const MctsObject *t, const MNode *root, int k, double left)
{
    if (t->rm)
        return 0;
    const MStat *st = stats_of(t, root, k);
    uint32_t first = 0, second = 0;
    for (int i = 0; i < root->nmoves[k]; i++) {
        if (st[i].count > first) {
            second = first;
            first = st[i].count;
        } else if (st[i].count > second) {
            second = st[i].count;
        }
    }
    return (double)(first - second) > left;
}

static int final_move(MctsObject *t, const MNode *root, int k)
{
    const MStat *st = stats_of(t, root, k);
    int n = root->nmoves[k];
    if (t->rm) {
        double total = 0;
        for (int i = 0; i < n; i++)
            total += st[i].ssum;
        if (total > 0) {
            double r = uniform(&t->rng) * total, acc = 0;
            for (int i = 0; i < n; i++) {
                acc += st[i].ssum;
                if (r < acc)
                    return i;
            }
            return n - 1;
        }
    }
    int best = 0;
    for (int i = 1; i < n; i++)
        if (st[i].count > st[best].count || (st[i].count == st[best].count && st[i].total > st[best].total))
            best = i;
    return best;
}

/* ------------------------------------------------------------ Python */

int search_parse_weights(PyObject *obj, double scale, Weights *w);

static int M_init(MctsObject *self, PyObject *args, PyObject *kw)
{
    static char *kwlist[] = {"weights", "scale", "selection", "exploration", "leaf", "seed", "max_nodes", "horizon",
                             "finish", "explore", "contempt", "race_days", NULL};
    PyObject *weights;
    double scale = 10.0, exploration = 1.0;
    const char *selection = "duct", *leaf = "playout";
    unsigned long long seed = 0;
    unsigned int max_nodes = 1u << 17;
    long long horizon = 0;
    int finish = 0, explore = HEURISTIC_EXPLORE;
    double contempt = 0.0;
    long long race_days = -1;
    if (!PyArg_ParseTupleAndKeywords(args, kw, "O|dsdsKILpidL", kwlist, &weights, &scale, &selection, &exploration,
                                     &leaf, &seed, &max_nodes, &horizon, &finish, &explore, &contempt, &race_days))
        return -1;
    if (race_days < -1 || race_days > 1000000) {
        PyErr_SetString(PyExc_ValueError, "race_days must be -1 (playouts through the race) or 0 to 1000000 days");
        return -1;
    }
    if (!(contempt >= 0.0 && contempt <= 0.5)) {
        PyErr_SetString(PyExc_ValueError, "contempt must be from 0 to 0.5"); /* core.MAX_CONTEMPT */
        return -1;
    }
    if (explore < 0) {
        PyErr_Format(PyExc_ValueError, "explore must be 0 (no random moves) or more, not %d", explore);
        return -1;
    }
    if (horizon < 0 || horizon > 1000000) {
        PyErr_SetString(PyExc_ValueError, "horizon must be 0 (play to the end) or a number of days up to 1000000");
        return -1;
    }
    if (search_parse_weights(weights, scale, &self->w) < 0)
        return -1;
    if (strcmp(selection, "duct") && strcmp(selection, "rm")) {
        PyErr_SetString(PyExc_ValueError, "selection must be 'duct' or 'rm'");
        return -1;
    }
    if (strcmp(leaf, "playout") && strcmp(leaf, "eval")) {
        PyErr_SetString(PyExc_ValueError, "leaf must be 'playout' or 'eval'");
        return -1;
    }
    if (max_nodes < 16 || max_nodes > (1u << 24)) {
        PyErr_SetString(PyExc_ValueError, "max_nodes must be 16..2**24");
        return -1;
    }
    self->rm = !strcmp(selection, "rm");
    self->eval_leaf = !strcmp(leaf, "eval");
    self->exploration = exploration;
    self->horizon = horizon;
    self->race_days = race_days;
    self->policy = finish ? POLICY_FINISHER : POLICY_HEURISTIC;
    self->explore = explore;
    self->contempt = contempt;
    self->me = -1;
    self->rng = seed;
    self->max_nodes = max_nodes;
    uint64_t size = 1;
    while (size < 2 * (uint64_t)max_nodes)
        size *= 2;
    PyMem_Free(self->index);
    self->index = PyMem_Calloc(size, sizeof(uint32_t));
    if (!self->index)
        return PyErr_NoMemory(), -1;
    self->index_mask = size - 1;
    tree_clear(self);
    return 0;
}

static void M_dealloc(MctsObject *self)
{
    PyMem_Free(self->nodes);
    PyMem_Free(self->stats);
    PyMem_Free(self->index);
    Py_TYPE(self)->tp_free((PyObject *)self);
}

static PyObject *M_search(MctsObject *self, PyObject *args, PyObject *kw)
{
    static char *kwlist[] = {"game", "me", "iterations", "seconds", "wall_limit", "cpu", "passive", "denied", NULL};
    PyObject *game, *passive = Py_None;
    int me, cpu = 0;
    long long iterations = -1;
    double seconds = -1, wall_limit = -1, denied = 1.0;
    if (!PyArg_ParseTupleAndKeywords(args, kw, "Oi|LddpOd", kwlist, &game, &me, &iterations, &seconds, &wall_limit,
                                     &cpu, &passive, &denied))
        return NULL;
    if (!(denied >= 0.0 && denied <= 1.0)) {
        PyErr_SetString(PyExc_ValueError, "denied: a chance, from 0 to 1");
        return NULL;
    }
    double chances[MAXP] = {0};
    if (passive != Py_None) {
        Py_ssize_t n = read_chances(passive, "passive", chances);
        if (n < 0)
            return NULL;
        if (n > MAXP) {
            PyErr_SetString(PyExc_ValueError, "passive: one chance a player, at most 4");
            return NULL;
        }
    }
    memcpy(self->passive, chances, sizeof chances);
    self->bid_model = passive != Py_None;
    for (int p = 0; p < MAXP; p++)
        self->aggression[p] = 1.0 - chances[p];
    if (!PyObject_TypeCheck(game, &GameType)) {
        PyErr_SetString(PyExc_TypeError, "game must be a protocol.engine.Game");
        return NULL;
    }
    if (iterations < 0 && seconds <= 0) {
        PyErr_SetString(PyExc_ValueError, "give a time or an iteration budget");
        return NULL;
    }
    const State *s = &((GameObject *)game)->s;
    if (me < 0 || me >= s->np || !(pending_mask(s) & (1u << me))) {
        PyErr_Format(PyExc_ValueError, "player %d has no move to make in this state", me);
        return NULL;
    }
    /* Our own attacks in the playouts: a threatened opponent matches our
       purse with the chance `denied`, which bots/search/bids.py makes
       the share of our purse that this opponent has paid to stop them in
       this game, not the chance that we bid for them. The heuristic
       attacker bids only to outbid a poorer player, so every match is a
       price our Ghosts cost the opponent: charged in full every day (1, as
       before), a richer opponent threw away as many coins as we held, day
       after day, and our Ghosts looked worth more than the points we
       bought instead (docs/bots.md, "What the opponent pays to stop our
       attacks"). */
    self->aggression[me] = denied;
    /* With contempt the tree's values are one player's: searched for
       another, it starts again. A search of no iterations only reads the
       root's statistics (bench/predictions.py reads the opponent's), so it
       keeps the tree and whose it is. */
    if (iterations != 0) {
        if (self->contempt > 0 && self->me != me)
            tree_clear(self);
        self->me = me;
        self->race_over = !points_for_sale(s);
    }
    Clock clock;
    clock_start(&clock, cpu, seconds, wall_limit);
    if (self->n_nodes > self->max_nodes / 4 * 3 || self->n_stats > self->max_nodes * 12u)
        tree_clear(self);
    uint64_t key = state_hash(s);
    int64_t root = find(self, key);
    if (root < 0)
        root = add(self, s, key);
    if (root < 0) {
        tree_clear(self);
        root = add(self, s, key);
        if (root < 0)
            return PyErr_Occurred() ? NULL : PyErr_NoMemory();
    }
    const MNode *rn = &self->nodes[root];
    int k = 0;
    while (rn->players[k] != me)
        k++;
    long long done = 0;
    if (rn->nmoves[k] > 1) {
        double limit = iterations >= 0 ? (double)iterations : INFINITY;
        while (done < limit) {
            if ((seconds > 0 || wall_limit > 0) && (done & 15) == 0 && clock_expired(&clock))
                break;
            iterate(self, s, (uint32_t)root);
            done++;
            if (done % DECIDED_EVERY == 0) {
                double now = clock_now(&clock), left = limit - done;
                if (seconds > 0) {
                    double rate = done / fmax(now - clock.start, 1e-9) * (clock.deadline - now);
                    left = fmin(left, rate);
                }
                if (decided(self, &self->nodes[root], k, left))
                    break;
            }
        }
    }
    rn = &self->nodes[root];
    const MStat *st = stats_of(self, rn, k);
    int pick = rn->nmoves[k] > 1 ? final_move(self, rn, k) : 0;
    PyObject *stats = PyList_New(rn->nmoves[k]);
    for (int i = 0; stats && i < rn->nmoves[k]; i++) {
        PyObject *mv = search_move_to_py(s, st[i].move);
        PyObject *row = mv ? Py_BuildValue("(NId)", mv, st[i].count, st[i].count ? st[i].total / st[i].count : 0.0)
                           : NULL;
        if (!row) {
            Py_CLEAR(stats);
            break;
        }
        PyList_SET_ITEM(stats, i, row);
    }
    PyObject *move = stats ? search_move_to_py(s, st[pick].move) : NULL;
    if (!move || PyErr_Occurred()) {
        Py_XDECREF(stats);
        Py_XDECREF(move);
        return NULL;
    }
    return Py_BuildValue("(NLN)", move, done, stats);
}

static PyObject *M_reset(MctsObject *self, PyObject *Py_UNUSED(unused))
{
    tree_clear(self);
    Py_RETURN_NONE;
}

static PyObject *M_size(MctsObject *self, void *Py_UNUSED(c)) { return PyLong_FromUnsignedLong(self->n_nodes); }

static PyGetSetDef M_getset[] = {
    {"nodes", (getter)M_size, NULL, "Nodes in the tree.", NULL},
    {NULL},
};

static PyMethodDef M_methods[] = {
    {"search", (PyCFunction)(void (*)(void))M_search, METH_VARARGS | METH_KEYWORDS,
     "search(game, me, iterations=-1, seconds=-1, wall_limit=-1, cpu=False, passive=None) -> (move, iterations, "
     "[(move, visits, mean value), ...]): SM-MCTS from `game` within the budget (negative: none), reusing the tree; "
     "passive: each player's chance of bidding 0 while it holds a sure attack (the bid model; default none)."},
    {"reset", (PyCFunction)M_reset, METH_NOARGS, "Forget the tree."},
    {NULL},
};

static PyTypeObject MctsType = {
    PyVarObject_HEAD_INIT(NULL, 0)
    .tp_name = "protocol._engine.Mcts",
    .tp_basicsize = sizeof(MctsObject),
    .tp_dealloc = (destructor)M_dealloc,
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_doc = "Mcts(weights, scale=10.0, selection='duct', exploration=1.0, leaf='playout', seed=0, "
              "max_nodes=2**17, horizon=0, finish=False, explore=16, contempt=0.0, race_days=-1): the C SM-MCTS searcher, its tree "
              "kept across searches; playouts stop after `horizon` days (0: at the game's end; from a leaf while points are "
              "for sale, after `race_days` days if it is 0 or more) and are valued by the evaluation; with "
              "`finish` their players play the finisher (policy 2) instead of the heuristic (policy 1), which plays one "
              "move in `explore` at random (0: none).",
    .tp_methods = M_methods,
    .tp_getset = M_getset,
    .tp_init = (initproc)M_init,
    .tp_new = PyType_GenericNew,
};

int mcts_init(PyObject *module)
{
    if (PyType_Ready(&MctsType) < 0)
        return -1;
    Py_INCREF(&MctsType);
    return PyModule_AddObject(module, "Mcts", (PyObject *)&MctsType);
}
