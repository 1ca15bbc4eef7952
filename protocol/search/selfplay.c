/*
 * Self-play positions for fitting the evaluation (bots/search/train.py).
 *
 * A learned evaluation is only as good as the positions it is fitted on:
 * uniformly random games end in eliminations nobody would allow, so the
 * players here are stronger than random, and varied so that the corpus
 * covers what a search meets:
 * - "greedy" players choose their bids and buys by the evaluation one step
 *   ahead: each candidate move (moves.c) is played on a copy, the other
 *   players reply by the engine's light heuristic, a bid's fights are
 *   fought by it too, and the move whose resulting state the evaluation
 *   (or the game's end) values most is played; with probability `epsilon` a uniformly drawn
 *   candidate instead. They fight (attack, defend) by the light heuristic,
 *   whose fights the evaluation cannot see one step ahead anyway.
 * - "heuristic" players play the engine's light heuristic throughout
 *   (policy 1 of the playouts, itself exploring one move in 16).
 * Each player of each game is greedy with probability `greedy`.
 *
 * A position is recorded at the start of a bid or buy step (no answer given
 * yet: where the searches' leaves mostly fall) with probability `sample`,
 * so that one game gives a few loosely related positions, not a hundred
 * near-copies. Every player's features (evaluation.c, race included) are
 * stored with the game's winner; all randomness comes from `seed`, so a
 * corpus is reproducible.
 */
#include "search.h"

typedef struct {
    float *features; /* positions x np x NFEAT */
    uint8_t *alive;  /* positions x np */
    int32_t *game;   /* positions */
    Py_ssize_t n, cap;
} Corpus;

static int corpus_grow(Corpus *c, int np)
{
    if (c->n < c->cap)
        return 0;
    Py_ssize_t cap = c->cap ? 2 * c->cap : 4096;
    float *f = PyMem_Realloc(c->features, (size_t)cap * np * NFEAT * sizeof *f);
    if (f)
        c->features = f;
    uint8_t *a = f ? PyMem_Realloc(c->alive, (size_t)cap * np) : NULL;
    if (a)
        c->alive = a;
    int32_t *g = a ? PyMem_Realloc(c->game, (size_t)cap * sizeof *g) : NULL;
    if (!g) {
        PyErr_NoMemory();
        return -1;
    }
    c->game = g;
    c->cap = cap;
    return 0;
}

static void corpus_free(Corpus *c)
{
    PyMem_Free(c->features);
    PyMem_Free(c->alive);
    PyMem_Free(c->game);
}

/* Plays the engine's heuristic move for p; 0, or -1 if it was refused. */
static int play_heuristic(State *s, int p, uint64_t *rng)
{
    Move mv = heuristic_move(s, p, rng);
    const char *refused = apply_move(s, p, mv.v, mv.big);
    Py_XDECREF(mv.big);
    return refused ? -1 : 0;
}

/* What p makes of the state after playing `move`, the others still to
   answer this step replying by the heuristic, and the fights a bid leads
   to fought by the heuristic (the evaluation cannot see a fight's
   outcome, so a bid is judged by what it wins): 2 a win, -2 a loss, 0 a
   draw, else the evaluation in (-1, 1). */
static double lookahead(const State *s, int p, int64_t move, const Weights *w, uint64_t *rng)
{
    State t;
    state_copy(&t, s);
    double value = -3.0;
    if (play_search_move(&t, p, move) == NULL) {
        unsigned m; /* until the step resolves (no answer held back any more) and its fights end */
        while ((((t.phase == INVESTING || t.phase == BUY) && t.answered != 0) || t.phase == ATTACKING ||
                t.phase == DEFENDING) && (m = pending_mask(&t)) != 0)
            if (play_heuristic(&t, __builtin_ctz(m), rng) < 0)
                break;
        if (t.phase == END)
            value = t.winner == p ? 2.0 : t.winner < 0 ? 0.0 : -2.0;
        else
            value = evaluate(&t, p, w);
        if (PyErr_Occurred()) {
            PyErr_Clear();
            value = -3.0;
        }
    }
    state_release(&t);
    return value;
}

/* A greedy player's move at a bid or buy, chosen on the step's state as
   every player sees it (no other answer of the step given yet); 0, or -1
   if it has no candidate (the heuristic moves instead). */
static int pick_greedy(const State *s, int p, const Weights *w, double epsilon, uint64_t *rng, int64_t *out)
{
    int64_t moves[MAXMOVES];
    int n = candidate_moves(s, p, moves);
    if (n < 0)
        PyErr_Clear();
    if (n <= 0)
        return -1;
    int pick = 0;
    if ((double)(rng_next(rng) >> 11) * 0x1.0p-53 < epsilon) {
        pick = (int)rng_below(rng, (uint64_t)n);
    } else {
        double best = -INFINITY;
        int ties = 0;
        for (int i = 0; i < n; i++) {
            double v = lookahead(s, p, moves[i], w, rng);
            if (v > best) {
                best = v;
                pick = i;
                ties = 1;
            } else if (v == best && rng_below(rng, (uint64_t)++ties) == 0) {
                pick = i;
            }
        }
    }
    *out = moves[pick];
    return 0;
}

/* One bid or buy step: every pending player chooses on the same state
   (a hidden answer given first must not be seen by the next), then the
   answers are played in order. 0, or -1 if a move was refused. */
static int play_step(State *s, const int *is_greedy, const Weights *w, double epsilon, uint64_t *rng)
{
    unsigned m = pending_mask(s);
    int greedy[MAXP] = {0};
    int64_t chosen[MAXP];
    Move heuristic[MAXP];
    for (int p = 0; p < s->np; p++) {
        if (!(m >> p & 1))
            continue;
        greedy[p] = is_greedy[p] && pick_greedy(s, p, w, epsilon, rng, &chosen[p]) == 0;
        if (!greedy[p])
            heuristic[p] = heuristic_move(s, p, rng);
    }
    int refused = 0;
    for (int p = 0; p < s->np; p++) {
        if (!(m >> p & 1))
            continue;
        if (!refused)
            refused = (greedy[p] ? play_search_move(s, p, chosen[p]) : apply_move(s, p, heuristic[p].v,
                                                                                    heuristic[p].big)) != NULL;
        if (!greedy[p])
            Py_XDECREF(heuristic[p].big);
    }
    return refused ? -1 : 0;
}

static int record(Corpus *c, const State *s, int32_t game)
{
    double f[MAXP][NFEAT];
    if (all_features(s, 1, f) < 0) {
        PyErr_Clear(); /* a purse beyond every float: not a position to learn from */
        return 0;
    }
    if (corpus_grow(c, s->np) < 0)
        return -1;
    float *out = c->features + (size_t)c->n * s->np * NFEAT;
    for (int p = 0; p < s->np; p++) {
        for (int i = 0; i < NFEAT; i++)
            out[p * NFEAT + i] = (float)(f[p][i] > 1e30 ? 1e30 : f[p][i] < -1e30 ? -1e30 : f[p][i]);
        c->alive[(size_t)c->n * s->np + p] = alive(s, p) ? 1 : 0;
    }
    c->game[c->n++] = game;
    return 0;
}

static PyObject *py_selfplay(PyObject *Py_UNUSED(m), PyObject *args, PyObject *kw)
{
    static char *kwlist[] = {"game", "games", "seed", "weights", "scale", "greedy", "epsilon", "sample", NULL};
    PyObject *game, *weights;
    int games;
    unsigned long long seed;
    double scale = 10.0, greedy = 0.5, epsilon = 0.1, sample = 0.25;
    if (!PyArg_ParseTupleAndKeywords(args, kw, "OiKO|dddd", kwlist, &game, &games, &seed, &weights, &scale, &greedy,
                                     &epsilon, &sample))
        return NULL;
    if (!PyObject_TypeCheck(game, &GameType))
        return PyErr_Format(PyExc_TypeError, "game must be a protocol.engine.Game");
    if (games < 1 || games > 10000000)
        return PyErr_Format(PyExc_ValueError, "games must be 1..10000000, not %d", games);
    if (!(greedy >= 0 && greedy <= 1 && epsilon >= 0 && epsilon <= 1 && sample > 0 && sample <= 1))
        return PyErr_Format(PyExc_ValueError, "greedy and epsilon must be in [0, 1], sample in (0, 1]");
    Weights w;
    if (search_parse_weights(weights, scale, &w) < 0)
        return NULL;
    const State *start = &((GameObject *)game)->s;
    if (start->phase == END || start->phase == FAULT)
        return PyErr_Format(PyExc_ValueError, "the game is over");
    int np = start->np;
    Corpus c = {0};
    int8_t *winners = PyMem_Malloc((size_t)games);
    if (!winners)
        return PyErr_NoMemory();
    uint64_t rng = seed;
    uint64_t sample_below = sample >= 1 ? UINT64_MAX : (uint64_t)(sample * 0x1.0p64);
    for (int g = 0; g < games; g++) {
        State s;
        state_copy(&s, start);
        int is_greedy[MAXP];
        for (int p = 0; p < np; p++)
            is_greedy[p] = (double)(rng_next(&rng) >> 11) * 0x1.0p-53 < greedy;
        int ok = 0;
        while (s.phase != END && s.phase != FAULT) {
            unsigned m = pending_mask(&s);
            if (!m)
                break;
            int fresh = (s.phase == INVESTING || s.phase == BUY) && s.answered == 0;
            if (fresh && rng_next(&rng) <= sample_below && record(&c, &s, g) < 0)
                goto fail;
            int r = fresh ? play_step(&s, is_greedy, &w, epsilon, &rng) : play_heuristic(&s, __builtin_ctz(m), &rng);
            if (r < 0 || s.failed)
                break;
        }
        ok = s.phase == END;
        winners[g] = (int8_t)(ok ? s.winner : -2); /* -2: no result (cannot happen in a valid game) */
        state_release(&s);
        if (PyErr_Occurred())
            PyErr_Clear();
        continue;
    fail:
        state_release(&s);
        corpus_free(&c);
        PyMem_Free(winners);
        return NULL;
    }
    PyObject *out = Py_BuildValue("(y#y#y#y#)", (const char *)c.features, (Py_ssize_t)(c.n * np * NFEAT * sizeof(float)),
                                  (const char *)c.alive, (Py_ssize_t)(c.n * np), (const char *)c.game,
                                  (Py_ssize_t)(c.n * sizeof(int32_t)), (const char *)winners, (Py_ssize_t)games);
    corpus_free(&c);
    PyMem_Free(winners);
    return out;
}

static PyMethodDef selfplay_functions[] = {
    {"selfplay", (PyCFunction)(void (*)(void))py_selfplay, METH_VARARGS | METH_KEYWORDS,
     "selfplay(game, games, seed, weights, scale=10.0, greedy=0.5, epsilon=0.1, sample=0.25): play `games` games "
     "from `game`'s state and return (features, alive, game, winners) as bytes: float32 positions x players x "
     "features, uint8 positions x players, int32 positions (the game of each), int8 games (the winner, -1 a draw)."},
    {NULL},
};

int selfplay_init(PyObject *module) { return PyModule_AddFunctions(module, selfplay_functions); }
