/*
 * The engine's state, shared by the rules (_engine.c) and the search core
 * (the search/ files), which are compiled into the one extension protocol._engine:
 * the search works on the same struct the rules do, with no conversion per
 * node. Only what both sides need is here; everything else stays private
 * to its file.
 */
#ifndef ECONOMANCY_ENGINE_H
#define ECONOMANCY_ENGINE_H

#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <stdint.h>
#include <string.h>

#define NCARDS 14        /* card ids 0..13; 0 is the Sorcerer's Stipend */
#define MAXP 4
#define MAXC 81          /* 80 shop cards (base set, 4 players) + the Stipend */
#define PASS (-1)
#define NO_CHOICE (-2)
#define BIG INT64_MAX    /* the int64 of a purse or investment held as a Python int */
/* Below this, no move can take any purse past INT64_MAX: one day's income
   multiplies a purse by at most (4/3)**4 (a player holds at most the 4
   Magic Bean Stocks of a 4-player shop) plus a few coins, and a move brings
   at most one income and one fight. (A state built by hand with more beans
   can cross it in one move; only a MemoryError there would go unrestored.) */
#define NEAR_BIG (INT64_C(1) << 60)
#define MAX_SHOP_ID(s) ((s)->base ? 13 : 8)

enum { INVESTING = 0, ATTACKING = 1, DEFENDING = 2, BUY = 3, END = 4, FAULT = 5 };

/* ------------------------------------------------------------------ cards */

typedef struct {
    const char *name;
    int cost;          /* -1: cannot be bought */
    int atk, def;      /* -1: none */
    int per_player;    /* copies per player in the shop */
    int points;
    int attacks, defends;
    int defend_coins;  /* coins gained each time it defends */
    int coins[4];      /* income by day (index 1..3) */
    int bean;          /* Magic Bean Stock: + running coins // 3 */
    int buys[4];       /* extra buys by day */
} CardInfo;

extern const CardInfo CARDS[NCARDS];

/* ------------------------------------------------------------------ state */

typedef struct {
    int64_t coins;           /* exact if big is NULL, else BIG */
    PyObject *big;           /* coins beyond INT64_MAX: a Python int (owned), else NULL */
    int32_t buys;
    int32_t n;               /* number of cards; 0 = eliminated */
    uint8_t id[MAXC];
    uint8_t uses[MAXC];
} Player;

typedef struct {
    uint8_t np, base, day, phase;
    int8_t attacker;         /* -1 when none */
    int8_t winner;           /* END: -1 draw */
    int8_t fault_player;     /* FAULT */
    int8_t next_def;         /* DEFENDING: the defender asked now */
    int16_t attacker_card;   /* DEFENDING: the attacking card's index, else -1 */
    uint8_t answered;        /* INVESTING/BUY: bit mask of hidden answers */
    uint8_t eligible;        /* DEFENDING: players able to defend this fight */
    int16_t def_card[MAXP];  /* DEFENDING: the card each defender chose, -1 */
    int16_t buy_choice[MAXP];/* BUY: hidden choice, PASS or a card id, NO_CHOICE */
    uint8_t failed;          /* a Python call failed (MemoryError) during the current step */
    int64_t max_days, days_played;
    int64_t invest[MAXP];    /* INVESTING: hidden investments; BIG if big_invest is set */
    PyObject *big_invest[MAXP]; /* investments beyond INT64_MAX (owned), else NULL */
    int32_t shop[NCARDS], removed[NCARDS], lost[NCARDS];
    Player pl[MAXP];
} State;

#define SLOW __attribute__((noinline, cold))

typedef struct {
    PyObject_HEAD
    State s;
    PyObject *fault_reason;   /* str, FAULT only */
    unsigned long long decisions;
} GameObject;

extern PyTypeObject GameType;

/* A policy's move: v, or BIG with the value in `big` (owned) when it is an
   investment beyond int64. Returned by value (two registers). */
typedef struct {
    int64_t v;
    PyObject *big;
} Move;

#define MOVE(x) ((Move){(x), NULL})

/* splitmix64: tiny, fast, good enough for uniform playouts. */
static inline uint64_t rng_next(uint64_t *x)
{
    uint64_t z = (*x += UINT64_C(0x9E3779B97F4A7C15));
    z = (z ^ (z >> 30)) * UINT64_C(0xBF58476D1CE4E5B9);
    z = (z ^ (z >> 27)) * UINT64_C(0x94D049BB133111EB);
    return z ^ (z >> 31);
}

/* Uniform in [0, n): Lemire's multiply-shift where 128-bit ints exist,
   else a modulo; the bias is below n / 2^64 either way. */
static inline uint64_t rng_below(uint64_t *x, uint64_t n)
{
#ifdef __SIZEOF_INT128__
    __extension__ typedef unsigned __int128 u128;
    return (uint64_t)(((u128)rng_next(x) * n) >> 64);
#else
    return rng_next(x) % n;
#endif
}

/* ------------------------------------------------------------------ rules used by the search */

int num_cmp_slow(int64_t a, PyObject *abig, int64_t b, PyObject *bbig);
PyObject *num_obj(int64_t v, PyObject *big); /* its exact value, a new reference */
void state_incref(State *s);
void state_release(State *s);
unsigned pending_mask(const State *s);
const char *apply_move(State *s, int p, int64_t move, PyObject *big);
uint64_t run_playout(State *s, uint64_t seed, const int *policies);
uint64_t run_playout_until(State *s, uint64_t seed, const int *policies, int64_t stop_days);
Move heuristic_move(State *s, int p, uint64_t *rng);
/* The heuristic plays one move in `explore` uniformly at random (0: none;
   HEURISTIC_EXPLORE unless a search sets its own). */
#define HEURISTIC_EXPLORE 16
Move heuristic_move_deny(State *s, int p, uint64_t *rng, const double *aggression, int explore);
/* The built-in playout policies: random, the light heuristic, and the
   finisher (the heuristic that buys a points card winning at once). */
enum { POLICY_RANDOM = 0, POLICY_HEURISTIC = 1, POLICY_FINISHER = 2, N_POLICIES = 3 };
Move policy_move(State *s, int p, uint64_t *rng, int policy, const double *aggression, int explore);
uint64_t run_playout_deny(State *s, uint64_t seed, const int *policies, int64_t stop_days, const double *aggression,
                          int explore);
/* A sequence of chances in [0, 1], one a player, into out; its length, or -1 with an exception set. */
Py_ssize_t read_chances(PyObject *obj, const char *name, double out[MAXP]);
/* Would card `c` of player `me`, attacking, make every card of every opponent
   still in that can defend faint, without fainting itself? */
int sure_attack(const State *s, int me, int c);

static inline int alive(const State *s, int p) { return s->pl[p].n > 0; }

static inline int points_of(const Player *p)
{
    int t = 0;
    for (int i = 0; i < p->n; i++)
        t += CARDS[p->id[i]].points;
    return t;
}

/* The one player holding the most points, or -1 when the most are shared or
   nobody holds any: the points half of who has won (with 7 or more), and
   what a lock needs to be level. `most` (if given) gets the most points
   held, so that the win check, run after every step, counts them once. */
static inline int points_leader(const State *s, int *most)
{
    int best = -1, best_pts = 0;
    for (int p = 0; p < s->np; p++) {
        int pts = points_of(&s->pl[p]);
        if (pts > best_pts) {
            best = p;
            best_pts = pts;
        } else if (pts == best_pts) {
            best = -1;
        }
    }
    if (most)
        *most = best_pts;
    return best;
}

static inline int can_defend_card(const Player *p, int i)
{
    const CardInfo *c = &CARDS[p->id[i]];
    return c->def >= 0 && p->uses[i] < c->defends;
}

static inline int can_attack_card(const Player *p, int i)
{
    const CardInfo *c = &CARDS[p->id[i]];
    return c->atk >= 0 && p->uses[i] < c->attacks;
}

static inline int can_defend(const Player *p)
{
    for (int i = 0; i < p->n; i++)
        if (can_defend_card(p, i))
            return 1;
    return 0;
}

static inline int num_cmp(int64_t a, PyObject *abig, int64_t b, PyObject *bbig)
{
    if (!abig && !bbig)
        return (a > b) - (a < b);
    return num_cmp_slow(a, abig, b, bbig);
}

/* The search core's Python face, added to the module by PyInit__engine. */
int search_module_init(PyObject *module);

#endif
