/*
 * The search core: what every search algorithm shares (candidate moves,
 * the evaluation, state hashing, budgets). One algorithm per file beside
 * it (mcts.c, alphabeta.c, smab.c, regret.c), as OpenSpiel does; module.c is their
 * Python face. Everything works on the engine's own State (engine.h).
 *
 * The Python modules bots/search/{actions,evaluation,mcts,alphabeta,mixed}.py
 * are the reference implementations these follow: the tests compare the two
 * (tests/test_search_core.py).
 */
#ifndef ECONOMANCY_SEARCH_H
#define ECONOMANCY_SEARCH_H

#include "../engine.h"
#include <math.h>

/* ------------------------------------------------------------ moves */

/* The most candidate moves a player can have: a distinct (card, uses) pair
   per card id and uses below the card's limit, plus stop; 14 buys; 9 bids. */
#define MAXMOVES 32

/* A search move is an int64. It is the engine's move, except for an
   investment that does not fit an int64: it is then INVEST_CODE(p, plus),
   "player p's whole purse (plus one)", resolved exactly when played. */
#define INVEST_CODE(p, plus) (-2 - 2 * (int64_t)(p) - (int64_t)(plus))
#define IS_INVEST_CODE(m) ((m) <= -2)

/* The moves of `p` worth searching, in bots.search.actions.candidate_moves's
   order; 0 when p is not pending. -1 with a Python error set if a Python
   call failed (only with purses beyond int64). */
int candidate_moves(const State *s, int p, int64_t *out);

/* Plays a search move (exactly); NULL if legal, else the engine's reason. */
const char *play_search_move(State *s, int p, int64_t move);

/* The exact Python int (or PASS) of a search move. */
PyObject *search_move_to_py(const State *s, int64_t move);

/* The search move equal to the Python int `obj` among the candidates of p;
   -1 with ValueError if it is none of them. */
int search_move_from_py(const State *s, int p, PyObject *obj, int64_t *out);

/* The expert rule's defender (bots.expert.choose_defender): the search's
   single reply of a 3-4 player defender inside the combat extension. */
int expert_defender(const State *s, int p);

/* Copies that hold their own references to any Python ints. */
static inline void state_copy(State *dst, const State *src)
{
    memcpy(dst, src, sizeof *dst);
    state_incref(dst);
}

/* ------------------------------------------------------------ evaluation */

#define NFEAT 12
enum {
    F_POINTS, F_POINTS_SQUARED, F_COINS, F_INCOME, F_ATTACK, F_DEFENSE, F_DEFENDERS, F_BUYS,
    F_ATTACKERS, F_EXPOSED, F_RACE, F_FIREPOWER
};

typedef struct {
    double w[NFEAT];
    double scale;
} Weights;

/* Every player's features (bots.search.evaluation.all_features); the race
   feature only when `race`. -1 with a Python error if a Python call failed. */
int all_features(const State *s, int race, double out[MAXP][NFEAT]);
/* `me`'s value in (-1, 1) (evaluation.evaluate). */
double evaluate(const State *s, int me, const Weights *w);
/* Every player's value in (0, 1) (evaluation.evaluate_all). */
void evaluate_all(const State *s, const Weights *w, double *out);

/* ------------------------------------------------------------ hashing, clocks */

/* A 64-bit hash of everything Game.key() encodes. */
uint64_t state_hash(const State *s);

/* Seconds of this thread's CPU time, and of a monotonic wall clock. */
double cpu_seconds(void);
double wall_seconds(void);

/* A search budget: a deadline on the chosen clock (CPU or wall) and a
   wall-clock cap that holds whatever the clock (infinite when unset). */
typedef struct {
    int cpu;          /* the budget is CPU time (else wall time) */
    double start, deadline, wall_deadline;
} Clock;

void clock_start(Clock *c, int cpu, double seconds, double wall_limit);
double clock_now(const Clock *c);
int clock_expired(const Clock *c);

/* ------------------------------------------------------------ algorithms */

/* The value for the row player (maximiser) of the zero-sum matrix game
   `a` (n x m, row-major), by the simplex method (smab.c). */
double matrix_game_value(const double *a, int n, int m);

/* An approximate equilibrium of the same game by regret matching+ (regret.c,
   bots.search.matrix.solve): the mixed strategies `row` (n) and `column` (m),
   the row player's expected payoff and the exploitability gap. */
void regret_matching_solve(const double *a, int n, int m, int iterations, double tolerance, double *row,
                           double *column, double *value, double *gap);

/* A child's value for the searching player, searched with (alpha, beta). */
typedef double (*ChildValue)(void *ctx, const State *child, double alpha, double beta);

/* The value of a 2-player step where `me` and `them` choose at once, as a
   matrix game over their candidate moves, pruned by its serialised bounds
   (smab.c). *bound: 0 exact, 1 a lower bound (>= beta), 2 an upper bound
   (<= alpha). Sets *stop (and returns 0) when a child search stops. */
double smab_node(const State *s, int me, int them, double alpha, double beta, ChildValue child_value, void *ctx,
                 int *stop, int *bound);

/* The same step serialised the other way round: they choose first and we
   answer knowing their move, the min over their moves of the max over
   ours. An upper bound on the step's value, and the exact one where it
   matters for a loss: a value that loses even so loses against a move of
   theirs made without seeing ours (smab.c). Sets *stop as smab_node. */
double they_first_node(const State *s, int me, int them, ChildValue child_value, void *ctx, int *stop);

/* Weights from a sequence of NFEAT floats (module.c, alphabeta.c). */
int search_parse_weights(PyObject *obj, double scale, Weights *w);

int mcts_init(PyObject *module);
int selfplay_init(PyObject *module);
int alphabeta_init(PyObject *module);

#endif
