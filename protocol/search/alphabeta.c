/*
 * Alpha-beta with iterative deepening and a transposition table, the C
 * port of the reference bots/search/alphabeta.py (whose docstring says why
 * simultaneous steps are serialised pessimistically, why 3-4 players are
 * paranoid, and why leaves inside an attack phase are searched on), and the
 * matrix of a simultaneous root for bots/search/mixed.py: the value of
 * every pair (our move, their move), searched by the same tree.
 *
 * Same moves in the same order, same bounds, same table policy (an entry
 * is replaced only when its bucket is full), so that at a fixed depth the
 * two give the same value and move (tests/test_search_core.py).
 */
#include "search.h"

#define WIN 1000.0
#define PROVEN (WIN - 500.0)
#define EVAL_SCALE 100.0
#define NEXT_DEPTH_COST 3.0
#define MIN_SPENT 0.25
#define MAX_COMBAT_EXTENSION 16
#define CHECK_EVERY 64
#define BUCKET 4
#define MAX_MATRIX 32

enum { EXACT, LOWER, UPPER };

typedef struct {
    uint64_t key;
    double value;
    int64_t mine;
    int64_t reply[MAXP];
    int16_t depth;
    uint8_t used, bound, has_mine, has_reply, nreply;
} Entry;

typedef struct {
    PyObject_HEAD
    Weights w;
    int smab; /* 2 players: simultaneous steps below the root are matrix games (smab.c) */
    int they_first; /* 2 players: below the root the opponent chooses first at a simultaneous step (a loss so found is sure) */
    Entry *table;
    uint64_t mask;
    size_t filled;
    int seat;
    /* one search */
    int me, stop;
    Clock clock;
    unsigned long long nodes;
    int has_searched;
    double searched_value;
    int64_t searched_move;
} AlphaBetaObject;

/* ------------------------------------------------------------ the table */

static const Entry *probe(const AlphaBetaObject *ab, uint64_t key)
{
    if (!ab->table)
        return NULL;
    for (int k = 0; k < BUCKET; k++) {
        const Entry *e = &ab->table[(key + (uint64_t)k) & ab->mask];
        if (!e->used)
            return NULL;
        if (e->key == key)
            return e;
    }
    return NULL;
}

static void store(AlphaBetaObject *ab, const Entry *entry)
{
    if (!ab->table)
        return;
    Entry *victim = NULL;
    for (int k = 0; k < BUCKET; k++) {
        Entry *e = &ab->table[(entry->key + (uint64_t)k) & ab->mask];
        if (!e->used) {
            ab->filled++;
            victim = e;
            break;
        }
        if (e->key == entry->key) {
            victim = e;
            break;
        }
        if (!victim || e->depth < victim->depth)
            victim = e;
    }
    *victim = *entry;
    victim->used = 1;
}

static void table_clear(AlphaBetaObject *ab)
{
    if (ab->table && ab->filled) /* an empty table is all zeros: touch no pages */
        memset(ab->table, 0, (ab->mask + 1) * sizeof(Entry));
    ab->filled = 0;
}

/* Proven results are stored relative to the node (see the reference). */
static double to_table(double v, int ply) { return v > PROVEN ? v + ply : v < -PROVEN ? v - ply : v; }
static double from_table(double v, int ply) { return v > PROVEN ? v - ply : v < -PROVEN ? v + ply : v; }

/* ------------------------------------------------------------ the tree */

static int winning_buy_now(const State *s)
{
    if (s->phase != BUY)
        return 0;
    int incantation = s->shop[2] > 0, board = s->shop[1] > 0;
    for (int p = 0; p < s->np; p++) {
        const Player *pl = &s->pl[p];
        if (!alive(s, p) || pl->buys == 0)
            continue;
        int short_ = 7 - points_of(pl);
        if ((short_ <= 3 && pl->coins >= 4 && incantation) || (short_ <= 1 && pl->coins >= 2 && board))
            return 1;
    }
    return 0;
}

static double value(AlphaBetaObject *ab, const State *s, int depth, int ply, double alpha, double beta);

typedef struct {
    AlphaBetaObject *ab;
    int depth, ply;
} ChildContext;

/* A cell of a simultaneous node's matrix (smab.c): the child one step deeper. */
static double smab_child(void *ctx, const State *child, double alpha, double beta)
{
    const ChildContext *c = ctx;
    return value(c->ab, child, c->depth - 1, c->ply + 1, alpha, beta);
}

/* Our move `mine` (if has_mine) answered by the opponents' joint reply that
   is worst for us: a min node over the product of their moves. */
static double min_replies(AlphaBetaObject *ab, const State *s, int has_mine, int64_t mine, const int *opp, int nopp,
                          int depth, int ply, double alpha, double beta, const Entry *entry, int64_t *best_reply)
{
    int64_t moves[MAXP][MAXMOVES];
    int n[MAXP];
    for (int k = 0; k < nopp; k++) {
        if (depth <= 0 && s->phase == DEFENDING && s->np > 2) {
            moves[k][0] = expert_defender(s, opp[k]);
            n[k] = 1;
        } else {
            n[k] = candidate_moves(s, opp[k], moves[k]);
            if (n[k] <= 0) { /* a failed Python call: stop the search */
                ab->stop = 1;
                return 0.0;
            }
        }
    }
    /* The stored reply first, when it is one of the replies here. */
    int preferred = entry && entry->has_reply && entry->nreply == nopp;
    int pidx[MAXP] = {0};
    for (int k = 0; k < nopp && preferred; k++) {
        int found = -1;
        for (int i = 0; i < n[k]; i++)
            if (moves[k][i] == entry->reply[k])
                found = i;
        if (found < 0)
            preferred = 0;
        pidx[k] = found;
    }
    double best = INFINITY;
    int idx[MAXP] = {0};
    int first = 1;
    for (;;) {
        const int *cur = idx;
        int skip = 0;
        if (first && preferred) {
            cur = pidx;
        } else if (preferred) {
            skip = 1;
            for (int k = 0; k < nopp; k++)
                if (idx[k] != pidx[k])
                    skip = 0;
        }
        if (!skip) {
            State child;
            state_copy(&child, s);
            /* Seat order: ours among theirs (opp is in seat order). */
            int played_mine = !has_mine;
            for (int k = 0; k < nopp; k++) {
                if (!played_mine && ab->me < opp[k]) {
                    play_search_move(&child, ab->me, mine);
                    played_mine = 1;
                }
                play_search_move(&child, opp[k], moves[k][cur[k]]);
            }
            if (!played_mine)
                play_search_move(&child, ab->me, mine);
            double v = value(ab, &child, depth - 1, ply + 1, alpha, beta < best ? beta : best);
            state_release(&child);
            if (ab->stop)
                return 0.0;
            if (v < best) {
                best = v;
                for (int k = 0; k < nopp; k++)
                    best_reply[k] = moves[k][cur[k]];
            }
            if (best <= alpha)
                break;
        }
        if (first && preferred) {
            first = 0;
            continue;
        }
        first = 0;
        int k = nopp - 1;
        while (k >= 0 && ++idx[k] == n[k])
            idx[k--] = 0;
        if (k < 0)
            break;
    }
    return best;
}

static void opponents_of(const AlphaBetaObject *ab, const State *s, int *opp, int *nopp, int *me_pending)
{
    unsigned m = pending_mask(s);
    *nopp = 0;
    *me_pending = (m >> ab->me) & 1;
    for (int p = 0; p < s->np; p++)
        if ((m >> p) & 1 && p != ab->me)
            opp[(*nopp)++] = p;
}

static double value(AlphaBetaObject *ab, const State *s, int depth, int ply, double alpha, double beta)
{
    ab->nodes++;
    if (ab->nodes % CHECK_EVERY == 0 && clock_expired(&ab->clock)) {
        ab->stop = 1;
        return 0.0;
    }
    if (s->phase == END || s->phase == FAULT) {
        if (s->phase == FAULT || s->winner < 0)
            return 0.0;
        return s->winner == ab->me ? WIN - ply : -WIN + ply;
    }
    if (!alive(s, ab->me))
        return -WIN + ply;
    if (depth <= 0 &&
        (depth <= -MAX_COMBAT_EXTENSION || !(s->phase == ATTACKING || s->phase == DEFENDING || winning_buy_now(s))))
        return EVAL_SCALE * evaluate(s, ab->me, &ab->w);
    uint64_t key = state_hash(s);
    Entry entry_copy;
    const Entry *entry = NULL;
    const Entry *found = probe(ab, key);
    if (found) {
        entry_copy = *found; /* the table changes below */
        entry = &entry_copy;
        if (entry->depth >= depth) {
            double stored = from_table(entry->value, ply);
            if (entry->bound == EXACT)
                return stored;
            if (entry->bound == LOWER && stored >= beta)
                return stored;
            if (entry->bound == UPPER && stored <= alpha)
                return stored;
        }
    }
    double alpha0 = alpha, beta0 = beta;
    int opp[MAXP], nopp, me_pending;
    opponents_of(ab, s, opp, &nopp, &me_pending);
    Entry out = {0};
    out.key = key;
    out.depth = (int16_t)depth;
    double v;
    if (ab->they_first && s->np == 2 && me_pending && nopp == 1) {
        /* Exact (full-window cells, and only columns that cannot lower the
           minimum are cut), so stored as such whatever the window. */
        ChildContext ctx = {ab, depth, ply};
        v = they_first_node(s, ab->me, opp[0], smab_child, &ctx, &ab->stop);
        if (ab->stop)
            return 0.0;
        out.bound = EXACT;
        out.value = to_table(v, ply);
        store(ab, &out);
        return v;
    }
    if (ab->smab && s->np == 2 && me_pending && nopp == 1) {
        ChildContext ctx = {ab, depth, ply};
        int bound;
        v = smab_node(s, ab->me, opp[0], alpha, beta, smab_child, &ctx, &ab->stop, &bound);
        if (ab->stop)
            return 0.0;
        out.bound = bound == 1 ? LOWER : bound == 2 ? UPPER : EXACT;
        out.value = to_table(v, ply);
        store(ab, &out);
        return v;
    } else if (me_pending) {
        int64_t mine[MAXMOVES];
        int n = candidate_moves(s, ab->me, mine);
        if (n <= 0) {
            ab->stop = 1;
            return 0.0;
        }
        if (entry && entry->has_mine)
            for (int i = 1; i < n; i++)
                if (mine[i] == entry->mine) {
                    memmove(mine + 1, mine, (size_t)i * sizeof mine[0]);
                    mine[0] = entry->mine;
                    break;
                }
        v = -INFINITY;
        int64_t reply[MAXP];
        for (int i = 0; i < n; i++) {
            double x = min_replies(ab, s, 1, mine[i], opp, nopp, depth, ply, alpha > v ? alpha : v, beta, entry, reply);
            if (ab->stop)
                return 0.0;
            if (x > v) {
                v = x;
                out.mine = mine[i];
                out.has_mine = 1;
            }
            if (v >= beta)
                break;
        }
    } else {
        v = min_replies(ab, s, 0, 0, opp, nopp, depth, ply, alpha, beta, entry, out.reply);
        if (ab->stop)
            return 0.0;
        out.has_reply = v < INFINITY;
        out.nreply = (uint8_t)nopp;
    }
    out.bound = v <= alpha0 ? UPPER : v >= beta0 ? LOWER : EXACT;
    out.value = to_table(v, ply);
    store(ab, &out);
    return v;
}

/* The root: our moves in the given order (the stored best first). */
static double root(AlphaBetaObject *ab, const State *s, int depth, const int64_t *moves, int n, int64_t *best_move)
{
    uint64_t key = state_hash(s);
    Entry entry_copy;
    const Entry *entry = NULL;
    const Entry *found = probe(ab, key);
    if (found) {
        entry_copy = *found;
        entry = &entry_copy;
    }
    int64_t ordered[MAXMOVES];
    memcpy(ordered, moves, (size_t)n * sizeof moves[0]);
    if (entry && entry->has_mine)
        for (int i = 1; i < n; i++)
            if (ordered[i] == entry->mine) {
                memmove(ordered + 1, ordered, (size_t)i * sizeof ordered[0]);
                ordered[0] = entry->mine;
                break;
            }
    int opp[MAXP], nopp, me_pending;
    opponents_of(ab, s, opp, &nopp, &me_pending);
    double best = -INFINITY;
    *best_move = ordered[0];
    ab->has_searched = 0;
    int64_t reply[MAXP];
    for (int i = 0; i < n; i++) {
        double x = min_replies(ab, s, 1, ordered[i], opp, nopp, depth, 0, best, INFINITY, entry, reply);
        if (ab->stop)
            return 0.0;
        if (x > best) {
            best = x;
            *best_move = ordered[i];
            ab->has_searched = 1;
            ab->searched_value = best;
            ab->searched_move = ordered[i];
        }
    }
    Entry out = {0};
    out.key = key;
    out.depth = (int16_t)depth;
    out.value = best;
    out.bound = EXACT;
    out.mine = *best_move;
    out.has_mine = 1;
    if (entry && entry->has_reply) {
        out.has_reply = 1;
        out.nreply = entry->nreply;
        memcpy(out.reply, entry->reply, sizeof out.reply);
    }
    store(ab, &out);
    return best;
}

static void start(AlphaBetaObject *ab, int me, double seconds, double wall_limit, int cpu)
{
    if (me != ab->seat || ab->filled > (ab->mask + 1) / 2)
        table_clear(ab); /* values are stored from one seat's side */
    ab->seat = me;
    ab->me = me;
    ab->stop = 0;
    ab->nodes = 0;
    ab->has_searched = 0;
    clock_start(&ab->clock, cpu, seconds, wall_limit);
}

static int next_depth_fits(const AlphaBetaObject *ab, double started, double last)
{
    double now = clock_now(&ab->clock);
    return now + NEXT_DEPTH_COST * (now - last) <= ab->clock.deadline ||
           now - started <= MIN_SPENT * (ab->clock.deadline - started);
}

/* ------------------------------------------------------------ Python */

static int parse_weights(PyObject *obj, double scale, Weights *w)
{
    PyObject *seq = PySequence_Fast(obj, "weights must be a sequence of floats");
    if (!seq)
        return -1;
    if (PySequence_Fast_GET_SIZE(seq) != NFEAT) {
        Py_DECREF(seq);
        PyErr_Format(PyExc_ValueError, "%d weights, one per feature, expected", NFEAT);
        return -1;
    }
    for (int i = 0; i < NFEAT; i++) {
        w->w[i] = PyFloat_AsDouble(PySequence_Fast_GET_ITEM(seq, i));
        if (w->w[i] == -1.0 && PyErr_Occurred()) {
            Py_DECREF(seq);
            return -1;
        }
    }
    Py_DECREF(seq);
    if (!(scale > 0)) {
        PyErr_SetString(PyExc_ValueError, "scale must be positive");
        return -1;
    }
    w->scale = scale;
    return 0;
}

int search_parse_weights(PyObject *obj, double scale, Weights *w) { return parse_weights(obj, scale, w); }

static int AB_init(AlphaBetaObject *self, PyObject *args, PyObject *kw)
{
    static char *kwlist[] = {"weights", "scale", "table_bits", "smab", "they_first", NULL};
    PyObject *weights;
    double scale = 10.0;
    int bits = 19, smab = 0, they_first = 0;
    if (!PyArg_ParseTupleAndKeywords(args, kw, "O|dipp", kwlist, &weights, &scale, &bits, &smab, &they_first))
        return -1;
    if (smab && they_first) {
        PyErr_SetString(PyExc_ValueError, "smab and they_first are two ways to search a simultaneous step: choose one");
        return -1;
    }
    self->smab = smab;
    self->they_first = they_first;
    if (parse_weights(weights, scale, &self->w) < 0)
        return -1;
    if (bits != 0 && (bits < 4 || bits > 26)) {
        PyErr_Format(PyExc_ValueError, "table_bits must be 0 (no table) or 4..26, not %d", bits);
        return -1;
    }
    PyMem_Free(self->table);
    self->table = NULL;
    self->mask = ((uint64_t)1 << bits) - 1;
    if (bits && !(self->table = PyMem_Calloc(self->mask + 1, sizeof(Entry))))
        return PyErr_NoMemory(), -1;
    self->filled = 0;
    self->seat = -1;
    return 0;
}

static void AB_dealloc(AlphaBetaObject *self)
{
    PyMem_Free(self->table);
    Py_TYPE(self)->tp_free((PyObject *)self);
}

static int check_game(PyObject *game, int me)
{
    if (!PyObject_TypeCheck(game, &GameType)) {
        PyErr_SetString(PyExc_TypeError, "game must be a protocol.engine.Game");
        return -1;
    }
    const State *s = &((GameObject *)game)->s;
    if (me < 0 || me >= s->np || !(pending_mask(s) & (1u << me))) {
        PyErr_Format(PyExc_ValueError, "player %d has no move to make in this state", me);
        return -1;
    }
    return 0;
}

static int moves_from_list(const State *s, int p, PyObject *list, int64_t *out, int *n)
{
    PyObject *seq = PySequence_Fast(list, "moves must be a sequence");
    if (!seq)
        return -1;
    Py_ssize_t k = PySequence_Fast_GET_SIZE(seq);
    if (k < 1 || k > MAXMOVES) {
        Py_DECREF(seq);
        PyErr_Format(PyExc_ValueError, "1 to %d moves expected, not %zd", MAXMOVES, k);
        return -1;
    }
    for (Py_ssize_t i = 0; i < k; i++)
        if (search_move_from_py(s, p, PySequence_Fast_GET_ITEM(seq, i), &out[i]) < 0) {
            Py_DECREF(seq);
            return -1;
        }
    Py_DECREF(seq);
    *n = (int)k;
    return 0;
}

static PyObject *failed_or(PyObject *result)
{
    if (PyErr_Occurred()) {
        Py_XDECREF(result);
        return NULL;
    }
    return result;
}

static PyObject *AB_search(AlphaBetaObject *self, PyObject *args, PyObject *kw)
{
    static char *kwlist[] = {"game", "me", "order", "max_depth", "seconds", "wall_limit", "cpu", NULL};
    PyObject *game, *order;
    int me, max_depth = 64, cpu = 1;
    double seconds = -1, wall_limit = -1;
    if (!PyArg_ParseTupleAndKeywords(args, kw, "OiO|iddp", kwlist, &game, &me, &order, &max_depth, &seconds,
                                     &wall_limit, &cpu))
        return NULL;
    if (check_game(game, me) < 0)
        return NULL;
    const State *s = &((GameObject *)game)->s;
    int64_t moves[MAXMOVES];
    int n;
    if (moves_from_list(s, me, order, moves, &n) < 0)
        return NULL;
    start(self, me, seconds, wall_limit, cpu);
    int64_t move = moves[0];
    double val = 0.0;
    int depth_done = 0, unfinished = 0;
    if (n > 1) {
        double started = clock_now(&self->clock), last = started;
        for (int depth = 1; depth <= max_depth; depth++) {
            int64_t m;
            double v = root(self, s, depth, moves, n, &m);
            if (self->stop) {
                unfinished = depth == 1;
                break;
            }
            move = m;
            val = v;
            depth_done = depth;
            if (fabs(v) > PROVEN || !next_depth_fits(self, started, last))
                break;
            last = clock_now(&self->clock);
        }
    }
    if (unfinished) {
        if (!self->has_searched)
            return failed_or(Py_BuildValue("(OdiK)", Py_None, 0.0, 0, self->nodes));
        move = self->searched_move;
        val = self->searched_value;
    }
    PyObject *m = search_move_to_py(s, move);
    if (!m)
        return NULL;
    return failed_or(Py_BuildValue("(NdiK)", m, val, depth_done, self->nodes));
}

static PyObject *AB_matrix(AlphaBetaObject *self, PyObject *args, PyObject *kw)
{
    static char *kwlist[] = {"game", "me", "them", "ours", "theirs", "max_depth", "seconds", "wall_limit", "cpu", NULL};
    PyObject *game, *ours_l, *theirs_l;
    int me, them, max_depth = 64, cpu = 1;
    double seconds = -1, wall_limit = -1;
    if (!PyArg_ParseTupleAndKeywords(args, kw, "OiiOO|iddp", kwlist, &game, &me, &them, &ours_l, &theirs_l,
                                     &max_depth, &seconds, &wall_limit, &cpu))
        return NULL;
    if (check_game(game, me) < 0 || check_game(game, them) < 0)
        return NULL;
    const State *s = &((GameObject *)game)->s;
    int64_t ours[MAXMOVES], theirs[MAXMOVES];
    int n, m;
    if (moves_from_list(s, me, ours_l, ours, &n) < 0 || moves_from_list(s, them, theirs_l, theirs, &m) < 0)
        return NULL;
    start(self, me, seconds, wall_limit, cpu);
    State *children = PyMem_Malloc(sizeof(State) * (size_t)(n * m));
    double *values = PyMem_Malloc(sizeof(double) * (size_t)(n * m));
    double *done = PyMem_Malloc(sizeof(double) * (size_t)(n * m));
    if (!children || !values || !done) {
        PyMem_Free(children);
        PyMem_Free(values);
        PyMem_Free(done);
        return PyErr_NoMemory();
    }
    for (int i = 0; i < n; i++)
        for (int j = 0; j < m; j++) {
            State *c = &children[i * m + j];
            state_copy(c, s);
            if (me < them) {
                play_search_move(c, me, ours[i]);
                play_search_move(c, them, theirs[j]);
            } else {
                play_search_move(c, them, theirs[j]);
                play_search_move(c, me, ours[i]);
            }
        }
    int depth_done = 0;
    double started = clock_now(&self->clock), last = started;
    for (int depth = 1; depth <= max_depth && !self->stop; depth++) {
        int proven = 1;
        for (int k = 0; k < n * m && !self->stop; k++) {
            values[k] = value(self, &children[k], depth - 1, 1, -INFINITY, INFINITY);
            proven &= fabs(values[k]) > PROVEN;
        }
        if (self->stop)
            break;
        memcpy(done, values, sizeof(double) * (size_t)(n * m));
        depth_done = depth;
        if (proven || !next_depth_fits(self, started, last))
            break;
        last = clock_now(&self->clock);
    }
    for (int k = 0; k < n * m; k++)
        state_release(&children[k]);
    PyMem_Free(children);
    PyObject *rows = Py_None;
    Py_INCREF(rows);
    if (depth_done) {
        Py_DECREF(rows);
        rows = PyList_New(n);
        for (int i = 0; rows && i < n; i++) {
            PyObject *row = PyList_New(m);
            if (!row) {
                Py_CLEAR(rows);
                break;
            }
            for (int j = 0; j < m; j++)
                PyList_SET_ITEM(row, j, PyFloat_FromDouble(done[i * m + j]));
            PyList_SET_ITEM(rows, i, row);
        }
    }
    PyMem_Free(values);
    PyMem_Free(done);
    if (!rows)
        return NULL;
    return failed_or(Py_BuildValue("(NiK)", rows, depth_done, self->nodes));
}

static PyObject *AB_reset(AlphaBetaObject *self, PyObject *Py_UNUSED(unused))
{
    table_clear(self);
    Py_RETURN_NONE;
}

static PyMethodDef AB_methods[] = {
    {"search", (PyCFunction)(void (*)(void))AB_search, METH_VARARGS | METH_KEYWORDS,
     "search(game, me, order, max_depth=64, seconds=-1, wall_limit=-1, cpu=True) -> (move or None, value, depth, "
     "nodes): iterative deepening over the root moves `order`; move None when depth 1 was cut short before any "
     "root move was searched. seconds/wall_limit <= 0: no limit."},
    {"matrix", (PyCFunction)(void (*)(void))AB_matrix, METH_VARARGS | METH_KEYWORDS,
     "matrix(game, me, them, ours, theirs, max_depth=64, seconds=-1, wall_limit=-1, cpu=True) -> (rows or None, "
     "depth, nodes): the searched value of every pair of simultaneous moves at the deepest completed depth."},
    {"reset", (PyCFunction)AB_reset, METH_NOARGS, "Forget the transposition table."},
    {NULL},
};

static PyTypeObject AlphaBetaType = {
    PyVarObject_HEAD_INIT(NULL, 0)
    .tp_name = "protocol._engine.AlphaBeta",
    .tp_basicsize = sizeof(AlphaBetaObject),
    .tp_dealloc = (destructor)AB_dealloc,
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_doc = "AlphaBeta(weights, scale=10.0, table_bits=19, smab=False, they_first=False): the C alpha-beta searcher, its "
              "table kept across searches (table_bits=0: none); with smab, 2-player simultaneous steps below the root are "
              "solved as matrix games; with they_first, the opponent chooses first at them (an upper bound: a loss it "
              "finds is sure).",
    .tp_methods = AB_methods,
    .tp_init = (initproc)AB_init,
    .tp_new = PyType_GenericNew,
};

int alphabeta_init(PyObject *module)
{
    if (PyType_Ready(&AlphaBetaType) < 0)
        return -1;
    Py_INCREF(&AlphaBetaType);
    return PyModule_AddObject(module, "AlphaBeta", (PyObject *)&AlphaBetaType);
}
