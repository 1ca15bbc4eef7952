/*
 * The Economancy rules engine as a CPython extension.
 *
 * Why C: the engine is the inner loop of every search bot and of the
 * genetic algorithm, so a state is a fixed-size struct of small ints
 * that copies with one memcpy, and whole games can be played out
 * without returning to Python.
 *
 * Coins are exact integers of any size, as in the original (Racket's
 * integers are unbounded, and Magic Bean Stock compounds a purse past
 * 2**64 in long games: 1.65e25 coins after 200 days). A purse or a
 * hidden investment lives in an int64 while it fits, which is every
 * purse of every ordinary game; beyond INT64_MAX it lives in a Python
 * int held by the state (Player.big, State.big_invest), and the int64
 * holds the sentinel BIG (INT64_MAX), so that the many comparisons
 * with a card's cost need no special case. The representation is
 * canonical (a value that fits is never held as a Python int), so equal
 * values have equal states and equal keys. Only the few operations that
 * can grow or compare purses (income, investments, buys, a Shield of
 * Greed's coin) go through the coins_* helpers below; each takes the
 * int64 fast path unless a value is big or the result would overflow.
 *
 * The Python face is protocol/engine.py, which subclasses Game, adds
 * from_wire and the wire conversions of moves; the semantics follow the
 * original driver (oflatt/economancy, the player/ folder).
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <stdint.h>
#include <string.h>

#include "engine.h"

/* The digest of the sources this build compiled, given by setup.py:
   protocol/freshness.py compares it at import with the sources beside the
   package, so that a build older than them is not played unnoticed. */
#ifndef SOURCE_DIGEST
#define SOURCE_DIGEST ""
#endif

const CardInfo CARDS[NCARDS] = {
    {"Sorcerer's Stipend", -1, -1, -1, 0, 0, 0, 0, 0, {0, 2, 1, 1}, 0, {0, 0, 0, 0}},
    {"Board of Monopoly", 2, 1, 1, 2, 1, 1, 1, 0, {0, 0, 0, 0}, 0, {0, 0, 0, 0}},
    {"Incantation", 4, 1, 1, 3, 3, 1, 1, 0, {0, 0, 0, 0}, 0, {0, 0, 0, 0}},
    {"Worker", 1, 1, 2, 2, 0, 1, 1, 0, {0, 0, 1, 1}, 0, {0, 0, 0, 0}},
    {"Magic Bean Stock", 1, 1, 1, 1, 0, 1, 1, 0, {0, 0, 0, 0}, 1, {0, 0, 0, 0}},
    {"Bubble", 2, 9, 2, 1, 0, 0, 1, 0, {0, 0, 0, 0}, 0, {0, 0, 0, 0}},
    {"Ghost", 2, 3, 2, 2, 0, 1, 1, 0, {0, 0, 0, 1}, 0, {0, 0, 0, 0}},
    {"Senior Worker", 2, 2, 2, 2, 0, 1, 1, 0, {0, 1, 1, 1}, 0, {0, 0, 0, 0}},
    {"Gold Fish", 3, 1, 2, 1, 0, 1, 1, 0, {0, 0, 0, 4}, 0, {0, 0, 0, 0}},
    {"Wall of Wealth", 1, 1, 2, 2, 0, 1, 2, 0, {0, 1, 0, 0}, 0, {0, 0, 0, 0}},
    {"Apprentice", 3, 2, 1, 1, 0, 1, 1, 0, {0, 1, 1, 0}, 0, {0, 0, 0, 1}},
    {"Thug", 3, 4, 4, 1, 0, 1, 1, 0, {0, 0, 1, 0}, 0, {0, 0, 0, 0}},
    {"Shield of Greed", 4, 2, 7, 1, 0, 1, 1, 1, {0, 0, 0, 0}, 0, {0, 0, 0, 0}},
    {"Golem", 5, 7, 7, 1, 0, 1, 1, 0, {0, 0, 0, 0}, 0, {0, 0, 0, 0}},
};


/* ------------------------------------------------------------------ exact coins */

/* A number held as (int64 v, Python int big): the value is big if set, else v.
   Each helper is an inline int64 fast path with its Python-int path kept
   out of line (SLOW), so that playouts pay one predictable branch. */

/* Its exact value, as a new reference (NULL on MemoryError). */
PyObject *num_obj(int64_t v, PyObject *big)
{
    return big ? Py_NewRef(big) : PyLong_FromLongLong(v);
}

/* Stores the non-negative Python int `obj` (reference stolen) canonically:
   inline if it fits, else as the Python int with v = BIG. A NULL `obj` (a
   failed Python call) leaves the number as it was and marks the step failed. */
static SLOW void num_store(State *s, int64_t *v, PyObject **big, PyObject *obj)
{
    if (!obj) {
        s->failed = 1;
        return;
    }
    int overflow;
    long long x = PyLong_AsLongLongAndOverflow(obj, &overflow);
    if (x == -1 && PyErr_Occurred()) {
        Py_DECREF(obj);
        s->failed = 1;
    } else if (overflow) {
        *v = BIG;
        Py_XSETREF(*big, obj);
    } else {
        *v = x;
        Py_CLEAR(*big);
        Py_DECREF(obj);
    }
}

/* value += d, for a small d >= 0. */
static SLOW void coins_add_slow(State *s, int64_t *v, PyObject **big, int64_t d)
{
    PyObject *a = num_obj(*v, *big), *b = a ? PyLong_FromLongLong(d) : NULL;
    PyObject *sum = b ? PyNumber_Add(a, b) : NULL;
    Py_XDECREF(a);
    Py_XDECREF(b);
    num_store(s, v, big, sum);
}

static inline void coins_add(State *s, int64_t *v, PyObject **big, int64_t d)
{
    int64_t r;
    if (!*big && !__builtin_add_overflow(*v, d, &r))
        *v = r;
    else
        coins_add_slow(s, v, big, d);
}

/* value += value // 3: Magic Bean Stock. */
static SLOW void coins_bean_slow(State *s, int64_t *v, PyObject **big)
{
    PyObject *a = num_obj(*v, *big), *three = a ? PyLong_FromLong(3) : NULL;
    PyObject *q = three ? PyNumber_FloorDivide(a, three) : NULL;
    PyObject *sum = q ? PyNumber_Add(a, q) : NULL;
    Py_XDECREF(a);
    Py_XDECREF(three);
    Py_XDECREF(q);
    num_store(s, v, big, sum);
}

static inline void coins_bean(State *s, int64_t *v, PyObject **big)
{
    int64_t r;
    if (!*big && !__builtin_add_overflow(*v, *v / 3, &r))
        *v = r;
    else
        coins_bean_slow(s, v, big);
}

/* value -= (dv, dbig), which the caller knows is at most value. */
static SLOW void coins_sub_slow(State *s, int64_t *v, PyObject **big, int64_t dv, PyObject *dbig)
{
    PyObject *a = num_obj(*v, *big), *b = a ? num_obj(dv, dbig) : NULL;
    PyObject *diff = b ? PyNumber_Subtract(a, b) : NULL;
    Py_XDECREF(a);
    Py_XDECREF(b);
    num_store(s, v, big, diff);
}

static inline void coins_sub(State *s, int64_t *v, PyObject **big, int64_t dv, PyObject *dbig)
{
    if (!*big && !dbig)
        *v -= dv;
    else
        coins_sub_slow(s, v, big, dv, dbig);
}

/* -1, 0 or 1 as a < b, a == b, a > b, exactly. A big value exceeds every
   int64 (canonical form), and comparing two Python ints cannot fail. */
SLOW int num_cmp_slow(int64_t a, PyObject *abig, int64_t b, PyObject *bbig)
{
    if (!bbig)
        return 1;
    if (!abig)
        return -1;
    if (PyObject_RichCompareBool(abig, bbig, Py_GT) > 0)
        return 1;
    return PyObject_RichCompareBool(abig, bbig, Py_LT) > 0 ? -1 : 0;
}

/* Whether (v, big) is a valid non-negative number in canonical form. */
static int num_canonical(int64_t v, PyObject *big)
{
    if (!big)
        return v >= 0;
    if (v != BIG || !PyLong_CheckExact(big))
        return 0;
    int overflow;
    long long x = PyLong_AsLongLongAndOverflow(big, &overflow);
    (void)x;
    return overflow > 0;
}

static SLOW void clear_big_investments(State *s)
{
    for (int p = 0; p < MAXP; p++)
        Py_CLEAR(s->big_invest[p]);
}

static inline void clear_investments(State *s)
{
    memset(s->invest, 0, sizeof s->invest);
    if ((uintptr_t)s->big_invest[0] | (uintptr_t)s->big_invest[1] | (uintptr_t)s->big_invest[2] |
        (uintptr_t)s->big_invest[3])
        clear_big_investments(s);
}

static inline int has_big(const State *s)
{
    uintptr_t any = 0;
    for (int p = 0; p < MAXP; p++)
        any |= (uintptr_t)s->pl[p].big | (uintptr_t)s->big_invest[p];
    return any != 0;
}

/* A state copied with memcpy shares the Python ints: take references. */
void state_incref(State *s)
{
    if (!has_big(s))
        return;
    for (int p = 0; p < MAXP; p++) {
        Py_XINCREF(s->pl[p].big);
        Py_XINCREF(s->big_invest[p]);
    }
}

void state_release(State *s)
{
    if (!has_big(s))
        return;
    for (int p = 0; p < MAXP; p++) {
        Py_CLEAR(s->pl[p].big);
        Py_CLEAR(s->big_invest[p]);
    }
}

/* Whether this move may need Python ints (see NEAR_BIG): only then does
   Game.play keep a copy to restore if a Python call fails. */
static int near_big(const State *s)
{
    for (int p = 0; p < s->np; p++)
        if (s->pl[p].coins >= NEAR_BIG)
            return 1;
    return 0;
}

/* ------------------------------------------------------------------ rules */


static int in_shop(const State *s, int c) { return c >= 1 && c <= MAX_SHOP_ID(s); }

/* Spends one use of card `move` to attack (`attack` 1) or defend (0), or
 * says why it cannot (the reasons the original gives). */
static const char *use_card(Player *pl, int64_t move, int attack)
{
    if (move >= pl->n)
        return attack ? "attacker card index is too large" : "defender card index is too large";
    const CardInfo *c = &CARDS[pl->id[move]];
    int limit = attack ? c->attacks : c->defends;
    if (pl->uses[move] >= limit) {
        if (limit == 0)
            return attack ? "card cannot attack" : "card cannot defend";
        return attack ? "card for attack is already used to its maximum"
                      : "card for defend is already used to its maximum";
    }
    pl->uses[move]++;
    return NULL;
}

/* The original ends the attack phase when no card has uses < attacks
   (attack level not consulted; it only differs for cards without one). */
static int can_attack(const Player *p)
{
    for (int i = 0; i < p->n; i++)
        if (p->uses[i] < CARDS[p->id[i]].attacks)
            return 1;
    return 0;
}

static void remove_card(State *s, Player *p, int i)
{
    if (p->id[i] != 0)
        s->removed[p->id[i]]++;
    memmove(p->id + i, p->id + i + 1, (size_t)(p->n - i - 1));
    memmove(p->uses + i, p->uses + i + 1, (size_t)(p->n - i - 1));
    p->n--;
}

static void eliminate(State *s, Player *p)
{
    for (int i = 0; i < p->n; i++)
        if (p->id[i] != 0)
            s->removed[p->id[i]]++;
    p->n = 0;
    p->coins = 0;
    Py_CLEAR(p->big);
    p->buys = 0;
}

/* Section 7: returns 1 and sets *w (-1 = nobody) when the game is decided. */
static int decided(const State *s, int *w)
{
    int n_alive = 0, last = -1;
    for (int p = 0; p < s->np; p++)
        if (alive(s, p)) {
            n_alive++;
            last = p;
        }
    if (n_alive <= 1) {
        *w = last;
        return 1;
    }
    int most;
    int best = points_leader(s, &most);
    if (best >= 0 && most >= 7) {
        *w = best;
        return 1;
    }
    *w = -1;
    return 0;
}

static void end_game(State *s, int w)
{
    s->phase = END;
    s->winner = (int8_t)w;
    s->attacker = -1;
    s->attacker_card = -1;
    s->next_def = -1;
    s->answered = 0;
    s->eligible = 0;
    clear_investments(s);
    for (int p = 0; p < MAXP; p++) {
        s->buy_choice[p] = NO_CHOICE;
        s->def_card[p] = -1;
    }
}

#define SAFE_BEAN ((INT64_C(1) << 61) - 8)

static void income(State *s)
{
    int day = s->day;
    for (int p = 0; p < s->np; p++) {
        Player *pl = &s->pl[p];
        if (pl->n == 0) {
            pl->coins = 0;
            Py_CLEAR(pl->big);
            pl->buys = 0;
            continue;
        }
        int32_t b = pl->buys + 1;
        int i = 0;
        if (!pl->big && pl->coins < SAFE_BEAN) {
            /* Plain int64: a bean is applied only under SAFE_BEAN, which
               keeps the purse under 2**62, and the other cards add at most
               4 coins each. */
            int64_t c = pl->coins;
            for (; i < pl->n; i++) {
                const CardInfo *ci = &CARDS[pl->id[i]];
                if (ci->bean && c >= SAFE_BEAN)
                    break; /* this card and the rest, below, checked */
                c += ci->coins[day];
                if (ci->bean)
                    c += c / 3;
                b += ci->buys[day];
            }
            pl->coins = c;
        }
        for (; i < pl->n; i++) {
            const CardInfo *ci = &CARDS[pl->id[i]];
            coins_add(s, &pl->coins, &pl->big, ci->coins[day]);
            if (ci->bean)
                coins_bean(s, &pl->coins, &pl->big);
            b += ci->buys[day];
        }
        pl->buys = b;
    }
}

static void start_investing(State *s)
{
    s->phase = INVESTING;
    s->answered = 0;
    s->attacker = -1;
    s->attacker_card = -1;
    clear_investments(s);
}

/* Income then investing, or END when max_days days are complete. */
static void begin_day(State *s)
{
    if (s->days_played >= s->max_days) {
        int w;
        decided(s, &w);
        end_game(s, w);
        return;
    }
    income(s);
    start_investing(s);
}

static unsigned buyers(const State *s)
{
    unsigned m = 0;
    for (int p = 0; p < s->np; p++)
        if (s->pl[p].buys > 0)
            m |= 1u << p;
    return m;
}

static void after_buy_phase(State *s)
{
    int w;
    if (decided(s, &w)) {
        end_game(s, w);
        return;
    }
    s->day = (uint8_t)(s->day % 3 + 1);
    s->days_played++;
    begin_day(s);
}

static void start_buy(State *s)
{
    s->phase = BUY;
    s->answered = 0;
    s->attacker = -1;
    s->attacker_card = -1;
    s->next_def = -1;
    s->eligible = 0;
    for (int p = 0; p < MAXP; p++) {
        s->buy_choice[p] = NO_CHOICE;
        s->def_card[p] = -1;
    }
    if (!buyers(s))
        after_buy_phase(s);
}

static void end_attack(State *s)
{
    for (int p = 0; p < s->np; p++)
        memset(s->pl[p].uses, 0, sizeof s->pl[p].uses);
    start_buy(s);
}

/* At the start of the attack and after every fight. */
static void next_attack(State *s)
{
    s->attacker_card = -1;
    s->next_def = -1;
    s->eligible = 0;
    for (int p = 0; p < MAXP; p++)
        s->def_card[p] = -1;
    if (!can_attack(&s->pl[s->attacker])) {
        end_attack(s);
        return;
    }
    s->phase = ATTACKING;
}

static void resolve_investments(State *s)
{
    int best = -1, att = -1;
    for (int p = 0; p < s->np; p++) {
        Player *pl = &s->pl[p];
        coins_sub(s, &pl->coins, &pl->big, s->invest[p], s->big_invest[p]);
        int c = best < 0 ? 1 : num_cmp(s->invest[p], s->big_invest[p], s->invest[best], s->big_invest[best]);
        if (c > 0) {
            best = p;
            att = p;
        } else if (c == 0) {
            att = -1;
        }
    }
    clear_investments(s);
    s->answered = 0;
    if (att < 0) {
        start_buy(s);
        return;
    }
    s->attacker = (int8_t)att;
    next_attack(s);
}

static int next_defender(const State *s, int after)
{
    for (int p = after + 1; p < s->np; p++)
        if (s->eligible & (1u << p))
            return p;
    return -1;
}

/* Step 4. A player unable to defend answers, as in the original, with
   card index 0 (the Stipend, which has no defense: it is eliminated). */
static void fight(State *s)
{
    int a = s->attacker;
    Player *A = &s->pl[a];
    int ac = s->attacker_card;
    const CardInfo *acard = &CARDS[A->id[ac]];
    int attacker_faints = 0;
    for (int j = 0; j < s->np; j++) {
        if (j == a || !alive(s, j))
            continue;
        int ci = (s->eligible & (1u << j)) ? s->def_card[j] : 0;
        if (CARDS[s->pl[j].id[ci]].atk > acard->def)
            attacker_faints = 1;
    }
    for (int j = 0; j < s->np; j++) {
        if (j == a || !alive(s, j))
            continue;
        Player *d = &s->pl[j];
        int ci = (s->eligible & (1u << j)) ? s->def_card[j] : 0;
        const CardInfo *dcard = &CARDS[d->id[ci]];
        if (dcard->defend_coins)
            coins_add(s, &d->coins, &d->big, dcard->defend_coins);
        if (dcard->def < 0)
            eliminate(s, d);
        else if (acard->atk > dcard->def)
            remove_card(s, d, ci);
    }
    if (attacker_faints)
        remove_card(s, A, ac);
    int w;
    if (decided(s, &w)) {
        end_game(s, w);
        return;
    }
    next_attack(s);
}

static void resolve_buys(State *s)
{
    int k[NCARDS] = {0};
    for (int p = 0; p < s->np; p++)
        if ((s->answered & (1u << p)) && s->buy_choice[p] >= 0)
            k[s->buy_choice[p]]++;
    for (int p = 0; p < s->np; p++) {
        if (!(s->answered & (1u << p)))
            continue;
        Player *pl = &s->pl[p];
        int c = s->buy_choice[p];
        if (c == PASS) {
            if (pl->buys > 0)
                pl->buys--;
            continue;
        }
        pl->buys--;
        coins_sub(s, &pl->coins, &pl->big, CARDS[c].cost, NULL);
        if (k[c] <= s->shop[c] && pl->n < MAXC) {
            pl->id[pl->n] = (uint8_t)c;
            pl->uses[pl->n] = 0;
            pl->n++;
        }
    }
    for (int c = 1; c < NCARDS; c++) {
        if (!k[c])
            continue;
        if (k[c] > s->shop[c]) {
            s->lost[c] += s->shop[c];
            s->shop[c] = 0;
        } else {
            s->shop[c] -= k[c];
        }
    }
    s->answered = 0;
    for (int p = 0; p < MAXP; p++)
        s->buy_choice[p] = NO_CHOICE;
    int w;
    if (decided(s, &w)) {
        end_game(s, w);
        return;
    }
    if (!buyers(s))
        after_buy_phase(s);
}

unsigned pending_mask(const State *s)
{
    unsigned m = 0;
    switch (s->phase) {
    case INVESTING:
        for (int p = 0; p < s->np; p++)
            if (alive(s, p))
                m |= 1u << p;
        return m & ~(unsigned)s->answered;
    case BUY:
        return buyers(s) & ~(unsigned)s->answered;
    case ATTACKING:
        return 1u << s->attacker;
    case DEFENDING:
        return 1u << s->next_def;
    default:
        return 0;
    }
}

/* `s` must hold no Python ints (fresh, or released). */
static void state_init(State *s, int np, int base, int64_t max_days)
{
    memset(s, 0, sizeof *s);
    s->np = (uint8_t)np;
    s->base = (uint8_t)base;
    s->day = 1;
    s->max_days = max_days;
    s->attacker = -1;
    s->attacker_card = -1;
    s->winner = -1;
    s->fault_player = -1;
    s->next_def = -1;
    for (int p = 0; p < MAXP; p++) {
        s->def_card[p] = -1;
        s->buy_choice[p] = NO_CHOICE;
    }
    for (int c = 1; c <= MAX_SHOP_ID(s); c++)
        s->shop[c] = CARDS[c].per_player * np;
    for (int p = 0; p < np; p++) {
        s->pl[p].coins = 1;
        s->pl[p].n = 1;
        s->pl[p].id[0] = 0;
    }
    begin_day(s);
}

/* Reasons the Python layer completes: with the move, with the player. */
static const char BAD_MOVE[] = "bad move";
static const char NOT_PENDING[] = "player is not expected to move";
static const char GAME_OVER[] = "the game is over";

/* Apply a move; returns NULL when legal, else the reason (state unchanged).
   A move beyond int64 comes as move = INT64_MAX (or INT64_MIN) with the exact
   value in `big` (borrowed; NULL otherwise): only an investment can use it.
   If a Python call fails on the way (MemoryError), s->failed is set. */
const char *apply_move(State *s, int p, int64_t move, PyObject *big)
{
    if (s->phase == END || s->phase == FAULT)
        return GAME_OVER;
    if (p < 0 || p >= s->np || !(pending_mask(s) & (1u << p)))
        return NOT_PENDING;
    Player *pl = &s->pl[p];
    switch (s->phase) {
    case INVESTING:
        if (move < 0)
            return BAD_MOVE;
        if (!big && !pl->big ? move > pl->coins : num_cmp_slow(move, big, pl->coins, pl->big) > 0)
            return "player attempted to invest more coins than they have";
        s->invest[p] = move;
        if (big) /* the slot is empty: cleared when the round began */
            s->big_invest[p] = Py_NewRef(big);
        s->answered |= (uint8_t)(1u << p);
        if (!pending_mask(s))
            resolve_investments(s);
        return NULL;
    case ATTACKING: {
        if (move < 0)
            return BAD_MOVE;
        if (move == 0) {
            end_attack(s);
            return NULL;
        }
        const char *refused = use_card(pl, move, 1);
        if (refused)
            return refused;
        s->attacker_card = (int16_t)move;
        s->eligible = 0;
        for (int j = 0; j < s->np; j++)
            if (j != p && can_defend(&s->pl[j]))
                s->eligible |= (uint8_t)(1u << j);
        int nd = next_defender(s, -1);
        if (nd < 0) {
            fight(s);
        } else {
            s->next_def = (int8_t)nd;
            s->phase = DEFENDING;
        }
        return NULL;
    }
    case DEFENDING: {
        if (move < 0)
            return BAD_MOVE;
        const char *refused = use_card(pl, move, 0);
        if (refused)
            return refused;
        s->def_card[p] = (int16_t)move;
        int nd = next_defender(s, p);
        if (nd < 0) {
            s->next_def = -1;
            fight(s);
        } else {
            s->next_def = (int8_t)nd;
        }
        return NULL;
    }
    case BUY:
        if (move != PASS) {
            if (move < 0 || move >= NCARDS || !in_shop(s, (int)move))
                return "unrecognized card name";
            if (CARDS[move].cost > pl->coins)
                return "player does not have enough coins to buy card";
        }
        s->buy_choice[p] = (int16_t)move;
        s->answered |= (uint8_t)(1u << p);
        if (!pending_mask(s))
            resolve_buys(s);
        return NULL;
    }
    return GAME_OVER;
}

/* ------------------------------------------------------------------ RNG */

/* ------------------------------------------------------------------ policies */


/* A move computed as a Python int (reference stolen). A failed Python call
   gives the move 0 (always legal where moves are computed) and marks the
   step failed. */
static SLOW Move move_of(State *s, PyObject *obj)
{
    Move m = {0, NULL};
    num_store(s, &m.v, &m.big, obj);
    return m;
}

/* Uniform in 0..top for a purse `top` beyond int64: 64 more random bits
   than top has, reduced modulo top + 1 (bias below 2**-64), so that the
   random policy stays uniform over legal_moves however rich the player. */
static SLOW Move random_big_investment(State *s, uint64_t *rng, PyObject *top)
{
    PyObject *one = PyLong_FromLong(1), *n = NULL, *bits = NULL, *r = NULL, *shift = NULL, *m = NULL;
    if (!one || !(n = PyNumber_Add(top, one)) || !(bits = PyObject_CallMethod(n, "bit_length", NULL)) ||
        !(shift = PyLong_FromLong(64)))
        goto done;
    long words = PyLong_AsLong(bits) / 64 + 2;
    if (!(r = PyLong_FromLong(0)))
        goto done;
    for (long k = 0; k < words; k++) {
        PyObject *w = PyLong_FromUnsignedLongLong(rng_next(rng)), *t = NULL;
        if (w && (t = PyNumber_Lshift(r, shift)))
            Py_SETREF(t, PyNumber_Or(t, w));
        Py_XDECREF(w);
        Py_SETREF(r, t);
        if (!r)
            goto done;
    }
    m = PyNumber_Remainder(r, n);
done:
    Py_XDECREF(one);
    Py_XDECREF(n);
    Py_XDECREF(bits);
    Py_XDECREF(r);
    Py_XDECREF(shift);
    return move_of(s, m);
}

/* Uniform over legal_moves(p), without building the list. */
static Move random_move(State *s, int p, uint64_t *rng)
{
    const Player *pl = &s->pl[p];
    int opts[MAXC + NCARDS];
    int n = 0;
    switch (s->phase) {
    case INVESTING:
        if (pl->big)
            return random_big_investment(s, rng, pl->big);
        return MOVE((int64_t)rng_below(rng, (uint64_t)pl->coins + 1));
    case ATTACKING:
        opts[n++] = 0;
        for (int i = 0; i < pl->n; i++)
            if (can_attack_card(pl, i))
                opts[n++] = i;
        break;
    case DEFENDING:
        for (int i = 0; i < pl->n; i++)
            if (can_defend_card(pl, i))
                opts[n++] = i;
        break;
    case BUY:
        opts[n++] = PASS;
        for (int c = 1; c <= MAX_SHOP_ID(s); c++)
            if (CARDS[c].cost <= pl->coins)
                opts[n++] = c;
        break;
    }
    return MOVE(opts[rng_below(rng, (uint64_t)n)]);
}

/* Would card `c` (attacking) make every possible defending card of every
   opponent faint, without fainting itself? (Opponents unable to defend
   are eliminated by any attack, so they never spoil it.) */
int sure_attack(const State *s, int me, int c)
{
    const CardInfo *ac = &CARDS[c];
    for (int j = 0; j < s->np; j++) {
        if (j == me || !alive(s, j))
            continue;
        const Player *d = &s->pl[j];
        for (int i = 0; i < d->n; i++) {
            const CardInfo *dc = &CARDS[d->id[i]];
            if (!can_defend_card(d, i))
                continue;
            if (ac->atk <= dc->def || dc->atk > ac->def)
                return 0;
        }
    }
    return 1;
}

/* Whether j's copies of attacking card c destroy p's defenders one by one:
   no card of p able to defend survives c, and j holds more copies of c
   than p holds cards that kill it (each such card trades with one copy).
   With no such card it is sure_attack against p. */
static int outnumbers(const State *s, int j, int p, int c)
{
    const CardInfo *ac = &CARDS[c];
    const Player *d = &s->pl[p];
    int killers = 0, copies = 0;
    for (int i = 0; i < d->n; i++) {
        if (!can_defend_card(d, i))
            continue;
        const CardInfo *dc = &CARDS[d->id[i]];
        if (ac->atk <= dc->def)
            return 0; /* it survives every copy */
        if (dc->atk > ac->def)
            killers++;
    }
    for (int i = 0; i < s->pl[j].n; i++)
        copies += s->pl[j].id[i] == c;
    return copies > killers;
}

/* Order in which the heuristic buys: points first, then income and
   strong fighters. */
static const int BUY_ORDER[] = {2, 13, 8, 11, 7, 6, 12, 10, 1, 3, 9, 4, 5};

/*
 * Policy 1, a light heuristic clearly stronger than random:
 * - invest (one more than the richest opponent, if affordable) only when
 *   one of its cards can attack and beats every card able to defend
 *   against it without fainting (sure_attack); otherwise invest 0, or,
 *   given each player's `aggression` (heuristic_move_deny: its chance of
 *   bidding for a sure attack it holds; the champion's bid model), when an
 *   opponent threatens it (copies of an attacking card that no defender
 *   survives, more of them than its cards that kill one: `outnumbers`),
 *   match the purse of the richest such opponent if it can (a shared
 *   highest bid: nobody attacks), with that opponent's aggression as the
 *   chance. The match is the price an attacker that does bid makes the
 *   threatened pay day after day, coins it cannot spend on its economy:
 *   without it a playout let a Ghost stand against no Ghost-killer for
 *   free, and the champion's MCTS bought Workers where a Bubble or a Ghost
 *   was needed (docs/bots.md, "Against alphabeta-v1, and denying in the
 *   playouts");
 * - attack only with such a card (the strongest), else stop;
 * - defend with a card that survives and preferably makes the attacker
 *   faint; failing that, sacrifice the cheapest defending card;
 * - buy: with no defending card, the best affordable defender first;
 *   otherwise Incantation when affordable, then the fixed BUY_ORDER;
 *   never a sold-out card; pass when nothing fits;
 * - one move in `explore` (HEURISTIC_EXPLORE, 16, by default) is uniformly
 *   random instead, so that playouts from one state differ between seeds
 *   (search bots average over them) and two heuristic players do not
 *   mirror each other into a draw. `champion --playout-noise` sets it
 *   for the champion's playouts; 8, 64 and 256 were not measured better
 *   (docs/bots.md, "The playouts' random moves").
 */
Move heuristic_move(State *s, int p, uint64_t *rng) { return heuristic_move_deny(s, p, rng, NULL, HEURISTIC_EXPLORE); }

Move heuristic_move_deny(State *s, int p, uint64_t *rng, const double *aggression, int explore)
{
    if (explore > 0 && rng_below(rng, (uint64_t)explore) == 0)
        return random_move(s, p, rng);
    const Player *pl = &s->pl[p];
    switch (s->phase) {
    case INVESTING: {
        int good = 0;
        for (int i = 0; i < pl->n; i++)
            if (CARDS[pl->id[i]].attacks > 0 && sure_attack(s, p, pl->id[i]))
                good = 1;
        if (!good && aggression) {
            /* Deny: match the purse of the richest opponent whose attackers
               outnumber our answers to them, when ours is at least as large (a
               shared highest bid: nobody attacks), with that opponent's
               aggression as the chance. */
            int threat = -1;
            for (int j = 0; j < s->np; j++) {
                if (j == p || !alive(s, j))
                    continue;
                const Player *o = &s->pl[j];
                for (int i = 0; i < o->n; i++)
                    if (CARDS[o->id[i]].attacks > 0 && outnumbers(s, j, p, o->id[i])) {
                        if (threat < 0 || num_cmp(o->coins, o->big, s->pl[threat].coins, s->pl[threat].big) > 0)
                            threat = j;
                        break;
                    }
            }
            if (threat < 0 || aggression[threat] <= 0 ||
                (aggression[threat] < 1 && (double)(rng_next(rng) >> 11) * 0x1.0p-53 >= aggression[threat]))
                return MOVE(0);
            const Player *t = &s->pl[threat];
            if (num_cmp(t->coins, t->big, pl->coins, pl->big) > 0)
                return MOVE(0); /* cannot match them */
            if (!t->big)
                return MOVE(t->coins);
            return move_of(s, num_obj(t->coins, t->big));
        }
        if (!good)
            return MOVE(0);
        int richest = -1; /* the richest opponent, compared exactly */
        for (int j = 0; j < s->np; j++)
            if (j != p && (richest < 0 || num_cmp(s->pl[j].coins, s->pl[j].big, s->pl[richest].coins,
                                                  s->pl[richest].big) > 0))
                richest = j;
        const Player *r = &s->pl[richest];
        if (num_cmp(r->coins, r->big, pl->coins, pl->big) >= 0)
            return MOVE(0); /* cannot outbid them */
        if (!r->big && r->coins < INT64_MAX)
            return MOVE(r->coins + 1);
        PyObject *rich = num_obj(r->coins, r->big), *one = rich ? PyLong_FromLong(1) : NULL;
        PyObject *outbid = one ? PyNumber_Add(rich, one) : NULL;
        Py_XDECREF(rich);
        Py_XDECREF(one);
        return move_of(s, outbid);
    }
    case ATTACKING: {
        int best = 0, best_atk = -1;
        for (int i = 0; i < pl->n; i++)
            if (can_attack_card(pl, i) && sure_attack(s, p, pl->id[i]) &&
                CARDS[pl->id[i]].atk > best_atk) {
                best = i;
                best_atk = CARDS[pl->id[i]].atk;
            }
        return MOVE(best);
    }
    case DEFENDING: {
        const CardInfo *ac = &CARDS[s->pl[s->attacker].id[s->attacker_card]];
        int best = -1, best_score = -1000;
        for (int i = 0; i < pl->n; i++) {
            if (!can_defend_card(pl, i))
                continue;
            const CardInfo *dc = &CARDS[pl->id[i]];
            int survives = ac->atk <= dc->def;
            int kills = dc->atk > ac->def;
            int score = survives * 100 + kills * 50 - dc->cost;
            if (score > best_score) {
                best = i;
                best_score = score;
            }
        }
        return MOVE(best);
    }
    case BUY: {
        int has_def = 0;
        for (int i = 0; i < pl->n; i++)
            if (CARDS[pl->id[i]].def >= 0)
                has_def = 1;
        if (!has_def) {
            int best = PASS, best_def = -1;
            for (int c = 1; c <= MAX_SHOP_ID(s); c++)
                if (s->shop[c] > 0 && CARDS[c].cost <= pl->coins && CARDS[c].def > best_def) {
                    best = c;
                    best_def = CARDS[c].def;
                }
            if (best != PASS)
                return MOVE(best);
        }
        for (size_t k = 0; k < sizeof BUY_ORDER / sizeof BUY_ORDER[0]; k++) {
            int c = BUY_ORDER[k];
            if (in_shop(s, c) && s->shop[c] > 0 && CARDS[c].cost <= pl->coins)
                return MOVE(c);
        }
        return MOVE(PASS);
    }
    }
    return MOVE(0);
}

/* The card worth points that p can buy now and that brings it to 7 points
   or more and strictly more than any other player holds now (the cheapest
   such), else -1. Whether it wins is decided after the round, when the
   others have bought too. */
static int winning_buy(const State *s, int p)
{
    int mine = points_of(&s->pl[p]), most = 0;
    for (int j = 0; j < s->np; j++)
        if (j != p && alive(s, j) && points_of(&s->pl[j]) > most)
            most = points_of(&s->pl[j]);
    int best = -1;
    for (int c = 1; c <= MAX_SHOP_ID(s); c++)
        if (CARDS[c].points > 0 && s->shop[c] > 0 && CARDS[c].cost <= s->pl[p].coins &&
            mine + CARDS[c].points >= 7 && mine + CARDS[c].points > most &&
            (best < 0 || CARDS[c].cost < CARDS[best].cost))
            best = c;
    return best;
}

/*
 * Policy 2, the finisher: the heuristic, except that at a buy it takes a
 * card that wins the game at once (winning_buy) whenever there is one. The
 * heuristic buys an Incantation when it can and a Board of Monopoly (1
 * point, 2 coins) after income and fighters, so a playout's player holding 6
 * points and 2 coins buys a Senior Worker where a Board wins: the race for
 * points, which `mcts-v1` wins against the champion, runs slower in the
 * playouts than in the games. `champion --finisher` plays it (docs/bots.md,
 * "The finisher in the playouts", has what it was measured to give).
 */
Move policy_move(State *s, int p, uint64_t *rng, int policy, const double *aggression, int explore)
{
    if (policy == POLICY_RANDOM)
        return random_move(s, p, rng);
    if (policy == POLICY_FINISHER && s->phase == BUY) {
        int c = winning_buy(s, p);
        if (c >= 0)
            return MOVE(c);
    }
    return heuristic_move_deny(s, p, rng, aggression, explore);
}

/* Play to the end, or until `stop_days` days have been played (the state is
   then at the next day's investing, its income received); policies[p] is a
   POLICY_*. Returns the moves played. */
uint64_t run_playout_until(State *s, uint64_t seed, const int *policies, int64_t stop_days)
{
    return run_playout_deny(s, seed, policies, stop_days, NULL, HEURISTIC_EXPLORE);
}

uint64_t run_playout_deny(State *s, uint64_t seed, const int *policies, int64_t stop_days, const double *aggression,
                          int explore)
{
    uint64_t rng = seed, n = 0;
    while (s->phase != END && s->phase != FAULT && s->days_played < stop_days) {
        unsigned m = pending_mask(s);
        if (!m) /* cannot happen in a valid state; never spin */
            break;
        int p = __builtin_ctz(m);
        Move mv = policy_move(s, p, &rng, policies[p], aggression, explore);
        /* An illegal move cannot happen (every policy plays legal moves).
           A failed Python call (s->failed, checked by the caller at the end)
           leaves a number unchanged and play goes on: no check per move. */
        const char *refused = apply_move(s, p, mv.v, mv.big);
        if (mv.big)
            Py_DECREF(mv.big);
        if (refused)
            break;
        n++;
    }
    return n;
}

/* Play to the end. */
uint64_t run_playout(State *s, uint64_t seed, const int *policies)
{
    return run_playout_until(s, seed, policies, INT64_MAX);
}

/* Whether a state is one the engine can run on safely; NULL if so, else
   the reason. Guards the states that enter from outside (_restore,
   __setstate__): everything else only ever produces valid states. */
static const char *state_invalid(const State *s)
{
    if (s->np < 2 || s->np > MAXP || s->base > 1 || s->day < 1 || s->day > 3 || s->phase > FAULT)
        return "header out of range";
    if (s->max_days < 0 || s->days_played < 0)
        return "days out of range";
    int32_t total = 0;
    for (int c = 0; c < NCARDS; c++) {
        if (s->shop[c] < 0 || s->shop[c] > MAXC || s->removed[c] < 0 || s->lost[c] < 0)
            return "card counts out of range";
        if (s->shop[c] && !in_shop(s, c))
            return "shop holds a card outside the set";
        total += s->shop[c];
    }
    for (int p = 0; p < MAXP; p++) {
        const Player *pl = &s->pl[p];
        if (p >= s->np) {
            if (pl->n || pl->coins || pl->big || s->invest[p] || s->big_invest[p])
                return "cards or coins for a player not in the game";
            continue;
        }
        if (pl->n < 0 || pl->n + total > MAXC)
            return "too many cards";
        if (pl->coins < 0 || pl->buys < 0 || pl->buys > INT32_MAX / 2)
            return "coins or buys out of range";
        if (!num_canonical(pl->coins, pl->big))
            return "coins not held canonically";
        for (int i = 0; i < pl->n; i++)
            if (pl->id[i] != 0 && !in_shop(s, pl->id[i]))
                return "a card outside the set";
    }
    unsigned all = (1u << s->np) - 1;
    if (s->answered & ~all || s->eligible & ~all)
        return "answers from players not in the game";
    for (int p = 0; p < s->np; p++) {
        int answered = (s->answered >> p) & 1;
        if (!num_canonical(s->invest[p], s->big_invest[p]))
            return "hidden investment not held canonically";
        if (s->phase == INVESTING && answered &&
            (s->invest[p] < 0 || num_cmp(s->invest[p], s->big_invest[p], s->pl[p].coins, s->pl[p].big) > 0))
            return "hidden investment out of range";
        if (s->phase == BUY && answered) {
            int c = s->buy_choice[p];
            if (c != PASS && (c < 0 || c >= NCARDS || !in_shop(s, c) || CARDS[c].cost > s->pl[p].coins))
                return "hidden buy out of range";
        }
    }
    if (s->phase == ATTACKING || s->phase == DEFENDING) {
        if (s->attacker < 0 || s->attacker >= s->np || !alive(s, s->attacker))
            return "attacker out of range";
    }
    if (s->phase == DEFENDING) {
        if (s->attacker_card < 1 || s->attacker_card >= s->pl[s->attacker].n)
            return "attacking card out of range";
        if (s->eligible & (1u << s->attacker))
            return "the attacker cannot defend";
        if (s->next_def < 0 || s->next_def >= s->np || !(s->eligible & (1u << s->next_def)))
            return "defender out of range";
        for (int j = 0; j < s->np; j++) {
            if (!(s->eligible & (1u << j)))
                continue;
            if (!alive(s, j))
                return "an eliminated player cannot defend";
            if (j < s->next_def && (s->def_card[j] < 0 || s->def_card[j] >= s->pl[j].n))
                return "an earlier defender's card out of range";
        }
    }
    if (s->phase == END && (s->winner < -1 || s->winner >= s->np))
        return "winner out of range";
    if (s->phase == FAULT && (s->fault_player < 0 || s->fault_player >= s->np))
        return "faulting player out of range";
    if (s->phase != END && s->phase != FAULT && !pending_mask(s))
        return "nobody is to move";
    return NULL;
}

/* ================================================================== Python */


static PyObject *IllegalMove;
static PyObject *card_names[NCARDS];
static PyObject *s_day, *s_phase, *s_shop, *s_players, *s_player, *s_coins, *s_buys,
    *s_cards, *s_name, *s_uses, *s_attacker, *s_attacker_card, *s_winner, *s_forfiet,
    *s_reason, *s_investing, *s_attacking, *s_buy, *s_end, *s_fault;

/* Raise IllegalMove(reason); steals the reference to `reason`. */
static PyObject *raise_illegal(PyObject *reason)
{
    if (!reason)
        return NULL;
    PyObject *exc = PyObject_CallOneArg(IllegalMove, reason);
    Py_DECREF(reason);
    if (exc) {
        PyErr_SetObject(IllegalMove, exc);
        Py_DECREF(exc);
    }
    return NULL;
}

static int check_player(GameObject *g, PyObject *arg, int *p)
{
    long v = PyLong_AsLong(arg);
    if (v == -1 && PyErr_Occurred())
        return -1;
    if (v < 0 || v >= g->s.np) {
        PyErr_Format(PyExc_IndexError, "player %ld out of range (0..%d)", v, g->s.np - 1);
        return -1;
    }
    *p = (int)v;
    return 0;
}

static GameObject *new_game(PyTypeObject *type)
{
    GameObject *g = (GameObject *)type->tp_alloc(type, 0);
    if (g) {
        g->fault_reason = NULL;
        g->decisions = 0;
    }
    return g;
}

static int Game_init(GameObject *self, PyObject *args, PyObject *kw)
{
    static char *kwlist[] = {"n_players", "base", "max_days", NULL};
    int np, base = 0;
    long long max_days = 100;
    if (!PyArg_ParseTupleAndKeywords(args, kw, "i|pL", kwlist, &np, &base, &max_days))
        return -1;
    if (np < 2 || np > MAXP) {
        PyErr_Format(PyExc_ValueError, "n_players must be 2 to 4, not %d", np);
        return -1;
    }
    if (max_days < 0) {
        PyErr_Format(PyExc_ValueError, "max_days must be >= 0, not %lld", max_days);
        return -1;
    }
    state_release(&self->s);
    state_init(&self->s, np, base, max_days);
    Py_CLEAR(self->fault_reason);
    self->decisions = 0;
    return 0;
}

static void Game_dealloc(GameObject *self)
{
    state_release(&self->s);
    Py_XDECREF(self->fault_reason);
    Py_TYPE(self)->tp_free((PyObject *)self);
}

/* ---- properties */

static PyObject *opt_int(int v) { return v < 0 ? Py_NewRef(Py_None) : PyLong_FromLong(v); }

static PyObject *G_n_players(GameObject *g, void *Py_UNUSED(c)) { return PyLong_FromLong(g->s.np); }
static PyObject *G_base(GameObject *g, void *Py_UNUSED(c)) { return PyBool_FromLong(g->s.base); }
static PyObject *G_day(GameObject *g, void *Py_UNUSED(c)) { return PyLong_FromLong(g->s.day); }
static PyObject *G_phase(GameObject *g, void *Py_UNUSED(c)) { return PyLong_FromLong(g->s.phase); }
static PyObject *G_max_days(GameObject *g, void *Py_UNUSED(c)) { return PyLong_FromLongLong(g->s.max_days); }
static PyObject *G_days_played(GameObject *g, void *Py_UNUSED(c)) { return PyLong_FromLongLong(g->s.days_played); }
static PyObject *G_decisions(GameObject *g, void *Py_UNUSED(c)) { return PyLong_FromUnsignedLongLong(g->decisions); }
static PyObject *G_is_over(GameObject *g, void *Py_UNUSED(c))
{
    return PyBool_FromLong(g->s.phase == END || g->s.phase == FAULT);
}
static PyObject *G_attacker(GameObject *g, void *Py_UNUSED(c))
{
    int ph = g->s.phase;
    return opt_int(ph == ATTACKING || ph == DEFENDING ? g->s.attacker : -1);
}
static PyObject *G_attacker_card(GameObject *g, void *Py_UNUSED(c))
{
    return opt_int(g->s.phase == DEFENDING ? g->s.attacker_card : -1);
}
static PyObject *G_winner(GameObject *g, void *Py_UNUSED(c))
{
    return opt_int(g->s.phase == END ? g->s.winner : -1);
}
static PyObject *G_fault(GameObject *g, void *Py_UNUSED(c))
{
    if (g->s.phase != FAULT)
        Py_RETURN_NONE;
    return Py_BuildValue("(iO)", g->s.fault_player, g->fault_reason ? g->fault_reason : Py_None);
}

static PyGetSetDef Game_getset[] = {
    {"n_players", (getter)G_n_players, NULL, "Number of players (2-4).", NULL},
    {"base", (getter)G_base, NULL, "True for the base set (13 shop cards), False for simple.", NULL},
    {"day", (getter)G_day, NULL, "Day in the cycle, 1..3.", NULL},
    {"phase", (getter)G_phase, NULL, "INVESTING, ATTACKING, DEFENDING, BUY, END or FAULT.", NULL},
    {"max_days", (getter)G_max_days, NULL, "Days after which the game ends.", NULL},
    {"days_played", (getter)G_days_played, NULL, "Completed days.", NULL},
    {"attacker", (getter)G_attacker, NULL, "The attacker in ATTACKING/DEFENDING, else None.", NULL},
    {"attacker_card", (getter)G_attacker_card, NULL, "DEFENDING: the attacking card's index.", NULL},
    {"winner", (getter)G_winner, NULL, "END: the winner, None for a draw.", NULL},
    {"fault", (getter)G_fault, NULL, "FAULT: (player, reason).", NULL},
    {"is_over", (getter)G_is_over, NULL, "END or FAULT.", NULL},
    {"decisions", (getter)G_decisions, NULL, "Moves applied to this object (play and playout).", NULL},
    {NULL},
};

/* ---- methods */

static PyObject *mask_tuple(unsigned m, int np)
{
    PyObject *t = PyTuple_New(__builtin_popcount(m));
    if (!t)
        return NULL;
    Py_ssize_t k = 0;
    for (int p = 0; p < np; p++)
        if (m & (1u << p))
            PyTuple_SET_ITEM(t, k++, PyLong_FromLong(p));
    return t;
}

static PyObject *Game_pending(GameObject *g, PyObject *Py_UNUSED(unused))
{
    return mask_tuple(pending_mask(&g->s), g->s.np);
}

static PyObject *Game_legal_moves(GameObject *g, PyObject *arg)
{
    int p;
    if (check_player(g, arg, &p) < 0)
        return NULL;
    const State *s = &g->s;
    /* Investments are a range object, not a list: Magic Bean Stock compounds
       coins without limit, and a list of every amount would not fit. */
    if (s->phase == INVESTING && (pending_mask(s) & (1u << p))) {
        if (!s->pl[p].big && s->pl[p].coins < INT64_MAX)
            return PyObject_CallFunction((PyObject *)&PyRange_Type, "iL", 0, (long long)s->pl[p].coins + 1);
        PyObject *c = num_obj(s->pl[p].coins, s->pl[p].big), *one = c ? PyLong_FromLong(1) : NULL;
        PyObject *stop = one ? PyNumber_Add(c, one) : NULL, *r = NULL;
        if (stop)
            r = PyObject_CallFunction((PyObject *)&PyRange_Type, "iO", 0, stop);
        Py_XDECREF(c);
        Py_XDECREF(one);
        Py_XDECREF(stop);
        return r;
    }
    PyObject *l = PyList_New(0);
    if (!l || !(pending_mask(s) & (1u << p)))
        return l;
    const Player *pl = &s->pl[p];
    PyObject *v;
#define ADD(x)                                           \
    do {                                                 \
        if (!(v = PyLong_FromLongLong(x)) || PyList_Append(l, v) < 0) { \
            Py_XDECREF(v);                               \
            Py_DECREF(l);                                \
            return NULL;                                 \
        }                                                \
        Py_DECREF(v);                                    \
    } while (0)
    switch (s->phase) {
    case ATTACKING:
        ADD(0);
        for (int i = 0; i < pl->n; i++)
            if (can_attack_card(pl, i))
                ADD(i);
        break;
    case DEFENDING:
        for (int i = 0; i < pl->n; i++)
            if (can_defend_card(pl, i))
                ADD(i);
        break;
    case BUY:
        ADD(PASS);
        for (int c = 1; c <= MAX_SHOP_ID(s); c++)
            if (CARDS[c].cost <= pl->coins)
                ADD(c);
        break;
    }
#undef ADD
    return l;
}

static PyObject *Game_play(GameObject *g, PyObject *const *args, Py_ssize_t nargs)
{
    if (nargs != 2) {
        PyErr_SetString(PyExc_TypeError, "play(player, move) takes 2 arguments");
        return NULL;
    }
    int p;
    if (check_player(g, args[0], &p) < 0)
        return NULL;
    if (!PyLong_Check(args[1]) || PyBool_Check(args[1])) {
        PyErr_Format(PyExc_TypeError, "move must be an int, not %.50s", Py_TYPE(args[1])->tp_name);
        return NULL;
    }
    int overflow;
    long long mv = PyLong_AsLongLongAndOverflow(args[1], &overflow);
    if (mv == -1 && PyErr_Occurred())
        return NULL;
    if (overflow)
        mv = overflow > 0 ? INT64_MAX : INT64_MIN;
    /* apply_move validates everything before it changes anything; only a
       Python call failing midway (MemoryError, with Python ints in play)
       could stop it after a change, so then a copy is kept to restore. */
    PyObject *big = NULL; /* a move beyond int64, as a plain int (the state may keep it) */
    if (overflow > 0 && !(big = PyObject_CallOneArg((PyObject *)&PyLong_Type, args[1])))
        return NULL;
    State backup;
    int keep = near_big(&g->s) || big;
    if (keep) {
        memcpy(&backup, &g->s, sizeof backup);
        state_incref(&backup);
    }
    const char *why = apply_move(&g->s, p, mv, big);
    Py_XDECREF(big);
    if (!keep && g->s.failed) { /* cannot happen in a reachable state (see NEAR_BIG) */
        g->s.failed = 0;
        return NULL;
    }
    if (keep) {
        if (g->s.failed) {
            state_release(&g->s);
            memcpy(&g->s, &backup, sizeof backup);
            g->s.failed = 0;
            return NULL;
        }
        state_release(&backup);
    }
    if (why == BAD_MOVE && overflow)
        return raise_illegal(PyUnicode_FromString("bad move: a negative number below -2**63"));
    if (why == BAD_MOVE)
        return raise_illegal(PyUnicode_FromFormat("bad move: %S", args[1]));
    if (why == NOT_PENDING)
        return raise_illegal(PyUnicode_FromFormat("player %d is not expected to move", p));
    if (why)
        return raise_illegal(PyUnicode_FromString(why));
    g->decisions++;
    Py_RETURN_NONE;
}

static PyObject *Game_forfeit(GameObject *g, PyObject *const *args, Py_ssize_t nargs)
{
    if (nargs != 2 || !PyUnicode_Check(args[1])) {
        PyErr_SetString(PyExc_TypeError, "forfeit(player, reason: str)");
        return NULL;
    }
    int p;
    if (check_player(g, args[0], &p) < 0)
        return NULL;
    g->s.phase = FAULT;
    g->s.fault_player = (int8_t)p;
    Py_INCREF(args[1]);
    Py_XSETREF(g->fault_reason, args[1]);
    Py_RETURN_NONE;
}

static PyObject *Game_copy(GameObject *g, PyObject *Py_UNUSED(unused))
{
    GameObject *c = new_game(Py_TYPE(g));
    if (!c)
        return NULL;
    memcpy(&c->s, &g->s, sizeof g->s);
    state_incref(&c->s);
    c->fault_reason = g->fault_reason;
    Py_XINCREF(c->fault_reason);
    return (PyObject *)c;
}

static PyObject *Game_deepcopy(GameObject *g, PyObject *Py_UNUSED(memo)) { return Game_copy(g, NULL); }

/* key(): unsigned LEB128 varints (signed values zigzagged), only the live
   part of the state. A number beyond int64 (a purse or an investment)
   continues the same varint past 64 bits, so its encoding is the value's,
   whichever way it is held. */
typedef struct {
    uint8_t *p;
} Writer;

static void put_uv(Writer *w, uint64_t v)
{
    while (v >= 0x80) {
        *w->p++ = (uint8_t)(v | 0x80);
        v >>= 7;
    }
    *w->p++ = (uint8_t)v;
}

static void put_sv(Writer *w, int64_t v) { put_uv(w, ((uint64_t)v << 1) ^ (uint64_t)(v >> 63)); }

/* The varint of a non-negative number given as its little-endian bytes. */
static void put_uv_bytes(Writer *w, const uint8_t *b, Py_ssize_t n)
{
    while (n > 0 && b[n - 1] == 0)
        n--;
    Py_ssize_t nbits = 0;
    if (n > 0) {
        int top = 8;
        while (!(b[n - 1] & (1u << (top - 1))))
            top--;
        nbits = 8 * (n - 1) + top;
    }
    Py_ssize_t groups = nbits ? (nbits + 6) / 7 : 1;
    for (Py_ssize_t k = 0; k < groups; k++) {
        Py_ssize_t bit = 7 * k, i = bit / 8;
        int off = (int)(bit % 8);
        unsigned v = i < n ? b[i] >> off : 0;
        if (off > 1 && i + 1 < n)
            v |= (unsigned)b[i + 1] << (8 - off);
        *w->p++ = (uint8_t)((v & 0x7f) | (k + 1 < groups ? 0x80 : 0));
    }
}

/* mags: NULL when no number is big, else the little-endian bytes of each
   big number (coins of players 0..3, then investments 0..3) or NULL. */
static void put_num(Writer *w, int64_t v, PyObject *mag)
{
    if (mag)
        put_uv_bytes(w, (const uint8_t *)PyBytes_AS_STRING(mag), PyBytes_GET_SIZE(mag));
    else
        put_uv(w, (uint64_t)v);
}

static Py_ssize_t encode_key(const State *s, uint8_t *buf, PyObject *const *mags)
{
    Writer w = {buf};
    *w.p++ = s->np;
    *w.p++ = s->base;
    *w.p++ = s->day;
    *w.p++ = s->phase;
    put_sv(&w, s->attacker);
    put_sv(&w, s->winner);
    put_sv(&w, s->fault_player);
    put_sv(&w, s->next_def);
    put_sv(&w, s->attacker_card);
    *w.p++ = s->answered;
    *w.p++ = s->eligible;
    put_uv(&w, (uint64_t)s->max_days);
    put_uv(&w, (uint64_t)s->days_played);
    for (int p = 0; p < s->np; p++) {
        put_sv(&w, s->def_card[p]);
        put_sv(&w, s->buy_choice[p]);
        put_num(&w, s->invest[p], mags ? mags[MAXP + p] : NULL);
    }
    for (int c = 1; c <= MAX_SHOP_ID(s); c++)
        put_uv(&w, (uint64_t)s->shop[c]);
    for (int p = 0; p < s->np; p++) {
        const Player *pl = &s->pl[p];
        put_num(&w, pl->coins, mags ? mags[p] : NULL);
        put_sv(&w, pl->buys);
        *w.p++ = (uint8_t)pl->n;
        for (int i = 0; i < pl->n; i++) {
            *w.p++ = pl->id[i];
            *w.p++ = pl->uses[i];
        }
    }
    return w.p - buf;
}

#define KEY_BUF (sizeof(State) * 2)

/* Little-endian bytes of a non-negative Python int (new reference). */
static PyObject *magnitude(PyObject *v)
{
    PyObject *bits = PyObject_CallMethod(v, "bit_length", NULL);
    if (!bits)
        return NULL;
    Py_ssize_t n = PyLong_AsSsize_t(bits);
    Py_DECREF(bits);
    if (n < 0)
        return NULL;
    return PyObject_CallMethod(v, "to_bytes", "ns", (n + 7) / 8, "little");
}

/* The key as a bytes object, for any state. */
static PyObject *key_bytes(const State *s)
{
    if (!has_big(s)) {
        uint8_t buf[KEY_BUF];
        Py_ssize_t n = encode_key(s, buf, NULL);
        return PyBytes_FromStringAndSize((const char *)buf, n);
    }
    PyObject *mags[2 * MAXP] = {NULL}, *key = NULL;
    size_t size = KEY_BUF;
    uint8_t *buf = NULL;
    for (int p = 0; p < MAXP; p++) {
        PyObject *big[2] = {s->pl[p].big, s->big_invest[p]};
        for (int k = 0; k < 2; k++) {
            if (!big[k])
                continue;
            PyObject *m = mags[k * MAXP + p] = magnitude(big[k]);
            if (!m)
                goto done;
            size += (size_t)PyBytes_GET_SIZE(m) * 8 / 7 + 2;
        }
    }
    if (!(buf = PyMem_Malloc(size))) {
        PyErr_NoMemory();
        goto done;
    }
    key = PyBytes_FromStringAndSize((const char *)buf, encode_key(s, buf, mags));
done:
    PyMem_Free(buf);
    for (int k = 0; k < 2 * MAXP; k++)
        Py_XDECREF(mags[k]);
    return key;
}

static PyObject *Game_key(GameObject *g, PyObject *Py_UNUSED(unused)) { return key_bytes(&g->s); }

static PyObject *Game_richcompare(PyObject *a, PyObject *b, int op)
{
    if ((op != Py_EQ && op != Py_NE) || !PyObject_TypeCheck(b, Py_TYPE(a)))
        Py_RETURN_NOTIMPLEMENTED;
    const State *sa = &((GameObject *)a)->s, *sb = &((GameObject *)b)->s;
    int eq;
    if (!has_big(sa) && !has_big(sb)) {
        uint8_t ka[KEY_BUF], kb[KEY_BUF];
        Py_ssize_t na = encode_key(sa, ka, NULL), nb = encode_key(sb, kb, NULL);
        eq = na == nb && memcmp(ka, kb, (size_t)na) == 0;
    } else {
        PyObject *ka = key_bytes(sa), *kb = ka ? key_bytes(sb) : NULL;
        eq = kb ? PyObject_RichCompareBool(ka, kb, Py_EQ) : -1;
        Py_XDECREF(ka);
        Py_XDECREF(kb);
        if (eq < 0)
            return NULL;
    }
    return PyBool_FromLong(op == Py_EQ ? eq : !eq);
}

static PyObject *Game_coins(GameObject *g, PyObject *arg)
{
    int p;
    if (check_player(g, arg, &p) < 0)
        return NULL;
    return num_obj(g->s.pl[p].coins, g->s.pl[p].big);
}

static PyObject *Game_buys(GameObject *g, PyObject *arg)
{
    int p;
    if (check_player(g, arg, &p) < 0)
        return NULL;
    return PyLong_FromLong(g->s.pl[p].buys);
}

static PyObject *Game_points(GameObject *g, PyObject *arg)
{
    int p;
    if (check_player(g, arg, &p) < 0)
        return NULL;
    return PyLong_FromLong(points_of(&g->s.pl[p]));
}

static PyObject *Game_alive(GameObject *g, PyObject *arg)
{
    int p;
    if (check_player(g, arg, &p) < 0)
        return NULL;
    return PyBool_FromLong(alive(&g->s, p));
}

static PyObject *Game_cards(GameObject *g, PyObject *arg)
{
    int p;
    if (check_player(g, arg, &p) < 0)
        return NULL;
    const Player *pl = &g->s.pl[p];
    PyObject *t = PyTuple_New(pl->n);
    if (!t)
        return NULL;
    for (int i = 0; i < pl->n; i++) {
        PyObject *pair = Py_BuildValue("(ii)", pl->id[i], pl->uses[i]);
        if (!pair) {
            Py_DECREF(t);
            return NULL;
        }
        PyTuple_SET_ITEM(t, i, pair);
    }
    return t;
}

static PyObject *count_dict(const State *s, const int32_t *counts)
{
    PyObject *d = PyDict_New();
    if (!d)
        return NULL;
    for (int c = 1; c <= MAX_SHOP_ID(s); c++) {
        PyObject *k = PyLong_FromLong(c), *v = PyLong_FromLong(counts[c]);
        int r = (k && v) ? PyDict_SetItem(d, k, v) : -1;
        Py_XDECREF(k);
        Py_XDECREF(v);
        if (r < 0) {
            Py_DECREF(d);
            return NULL;
        }
    }
    return d;
}

static PyObject *Game_shop(GameObject *g, PyObject *Py_UNUSED(u)) { return count_dict(&g->s, g->s.shop); }
static PyObject *Game_removed(GameObject *g, PyObject *Py_UNUSED(u)) { return count_dict(&g->s, g->s.removed); }
static PyObject *Game_lost(GameObject *g, PyObject *Py_UNUSED(u)) { return count_dict(&g->s, g->s.lost); }

/* ---- to_wire */

static int set_item(PyObject *d, PyObject *k, PyObject *v)
{
    if (!v)
        return -1;
    int r = PyDict_SetItem(d, k, v);
    Py_DECREF(v);
    return r;
}

static PyObject *phase_dict(GameObject *g)
{
    const State *s = &g->s;
    PyObject *d = PyDict_New();
    if (!d)
        return NULL;
    int r = 0;
    switch (s->phase) {
    case INVESTING:
        r = PyDict_SetItem(d, s_name, s_investing);
        break;
    case ATTACKING:
    case DEFENDING:
        r = PyDict_SetItem(d, s_name, s_attacking);
        if (!r)
            r = set_item(d, s_attacker, PyLong_FromLong(s->attacker));
        if (!r)
            r = set_item(d, s_attacker_card,
                         s->phase == DEFENDING ? PyLong_FromLong(s->attacker_card) : Py_NewRef(Py_False));
        break;
    case BUY:
        r = PyDict_SetItem(d, s_name, s_buy);
        break;
    case END:
        r = PyDict_SetItem(d, s_name, s_end);
        if (!r)
            r = set_item(d, s_winner, s->winner < 0 ? Py_NewRef(Py_False) : PyLong_FromLong(s->winner));
        break;
    case FAULT:
        r = PyDict_SetItem(d, s_name, s_fault);
        if (!r)
            r = set_item(d, s_forfiet, PyLong_FromLong(s->fault_player));
        if (!r)
            r = PyDict_SetItem(d, s_reason, g->fault_reason ? g->fault_reason : s_fault);
        break;
    }
    if (r < 0) {
        Py_DECREF(d);
        return NULL;
    }
    return d;
}

static PyObject *player_dict(const Player *pl)
{
    PyObject *d = PyDict_New(), *cards = NULL;
    if (!d)
        return NULL;
    if (set_item(d, s_coins, num_obj(pl->coins, pl->big)) < 0 ||
        set_item(d, s_buys, PyLong_FromLong(pl->buys)) < 0 || !(cards = PyList_New(pl->n)))
        goto fail;
    for (int i = 0; i < pl->n; i++) {
        PyObject *c = PyDict_New();
        if (!c)
            goto fail;
        PyList_SET_ITEM(cards, i, c);
        if (PyDict_SetItem(c, s_name, card_names[pl->id[i]]) < 0 ||
            set_item(c, s_uses, PyLong_FromLong(pl->uses[i])) < 0)
            goto fail;
    }
    if (set_item(d, s_cards, cards) < 0) {
        cards = NULL;
        goto fail;
    }
    return d;
fail:
    Py_XDECREF(cards);
    Py_DECREF(d);
    return NULL;
}

static PyObject *Game_to_wire(GameObject *g, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames)
{
    PyObject *player = Py_None;
    Py_ssize_t nkw = kwnames ? PyTuple_GET_SIZE(kwnames) : 0;
    if (nargs + nkw > 1) {
        PyErr_SetString(PyExc_TypeError, "to_wire(player=None) takes at most 1 argument");
        return NULL;
    }
    if (nargs == 1)
        player = args[0];
    else if (nkw == 1) {
        if (PyUnicode_CompareWithASCIIString(PyTuple_GET_ITEM(kwnames, 0), "player") != 0) {
            PyErr_SetString(PyExc_TypeError, "to_wire() got an unexpected keyword argument");
            return NULL;
        }
        player = args[0];
    }
    int p = -1;
    if (player != Py_None && check_player(g, player, &p) < 0)
        return NULL;
    const State *s = &g->s;
    PyObject *d = PyDict_New(), *shop = NULL, *players = NULL;
    if (!d)
        return NULL;
    if (set_item(d, s_day, PyLong_FromLong(s->day)) < 0 || set_item(d, s_phase, phase_dict(g)) < 0)
        goto fail;
    if (!(shop = PyDict_New()))
        goto fail;
    for (int c = 1; c <= MAX_SHOP_ID(s); c++)
        if (set_item(shop, card_names[c], PyLong_FromLong(s->shop[c])) < 0)
            goto fail;
    if (set_item(d, s_shop, shop) < 0) {
        shop = NULL;
        goto fail;
    }
    shop = NULL;
    if (!(players = PyList_New(s->np)))
        goto fail;
    for (int q = 0; q < s->np; q++) {
        PyObject *pd = player_dict(&s->pl[q]);
        if (!pd)
            goto fail;
        PyList_SET_ITEM(players, q, pd);
    }
    if (set_item(d, s_players, players) < 0) {
        players = NULL;
        goto fail;
    }
    players = NULL;
    if (p >= 0 && set_item(d, s_player, PyLong_FromLong(p)) < 0)
        goto fail;
    return d;
fail:
    Py_XDECREF(shop);
    Py_XDECREF(players);
    Py_DECREF(d);
    return NULL;
}

/* ---- playout */

static PyObject *Game_playout(GameObject *g, PyObject *args, PyObject *kw)
{
    static char *kwlist[] = {"seed", "policy", NULL};
    PyObject *seed_obj, *policy = NULL;
    if (!PyArg_ParseTupleAndKeywords(args, kw, "O|O", kwlist, &seed_obj, &policy))
        return NULL;
    uint64_t seed = PyLong_AsUnsignedLongLongMask(seed_obj);
    if (seed == (uint64_t)-1 && PyErr_Occurred())
        return NULL;
    int pol[MAXP] = {0, 0, 0, 0};
    if (policy && PyLong_Check(policy)) {
        long v = PyLong_AsLong(policy);
        if (v < 0 || v >= N_POLICIES) {
            PyErr_Format(PyExc_ValueError, "policy must be 0, 1 or 2, not %ld", v);
            return NULL;
        }
        for (int p = 0; p < MAXP; p++)
            pol[p] = (int)v;
    } else if (policy) {
        PyObject *seq = PySequence_Fast(policy, "policy must be 0, 1, 2 or a sequence of them per player");
        if (!seq)
            return NULL;
        if (PySequence_Fast_GET_SIZE(seq) != g->s.np) {
            Py_DECREF(seq);
            PyErr_Format(PyExc_ValueError, "policy sequence needs %d entries", g->s.np);
            return NULL;
        }
        for (int p = 0; p < g->s.np; p++) {
            long v = PyLong_AsLong(PySequence_Fast_GET_ITEM(seq, p));
            if ((v == -1 && PyErr_Occurred()) || v < 0 || v >= N_POLICIES) {
                Py_DECREF(seq);
                if (!PyErr_Occurred())
                    PyErr_Format(PyExc_ValueError, "policy must be 0, 1 or 2, not %ld", v);
                return NULL;
            }
            pol[p] = (int)v;
        }
        Py_DECREF(seq);
    }
    g->decisions += run_playout(&g->s, seed, pol);
    if (g->s.failed) {
        /* MemoryError growing a purse: the game is left valid but partway,
           that step's arithmetic skipped (a playout's game is scratch). */
        g->s.failed = 0;
        return NULL;
    }
    return PyLong_FromLong(g->s.phase == END ? g->s.winner : -1);
}

/* ---- policy_move: one move of a built-in policy, for tests and analysis */

/* A sequence of chances, one a player, each between 0 and 1, read into
   `out` (its first MAXP; zeros beyond its length): its length, or -1 with
   an exception set. The caller checks the length it needs; `name` names
   the argument in the errors. The champion's MCTS reads its bid model
   (passive) with it too. */
Py_ssize_t read_chances(PyObject *obj, const char *name, double out[MAXP])
{
    char message[96];
    snprintf(message, sizeof message, "%s must be a sequence of chances, one a player", name);
    PyObject *seq = PySequence_Fast(obj, message);
    if (!seq)
        return -1;
    for (int i = 0; i < MAXP; i++)
        out[i] = 0;
    Py_ssize_t n = PySequence_Fast_GET_SIZE(seq);
    for (Py_ssize_t i = 0; i < n && i < MAXP; i++) {
        out[i] = PyFloat_AsDouble(PySequence_Fast_GET_ITEM(seq, i));
        if (out[i] == -1 && PyErr_Occurred())
            break;
        if (!(out[i] >= 0 && out[i] <= 1)) {
            PyErr_Format(PyExc_ValueError, "%s: each chance must be between 0 and 1", name);
            break;
        }
    }
    Py_DECREF(seq);
    return PyErr_Occurred() ? -1 : n;
}

static PyObject *Game_policy_move(GameObject *g, PyObject *args, PyObject *kw)
{
    static char *kwlist[] = {"player", "seed", "policy", "aggression", "explore", NULL};
    PyObject *player, *seed_obj, *aggression_obj = Py_None;
    int policy = 1, explore = HEURISTIC_EXPLORE;
    if (!PyArg_ParseTupleAndKeywords(args, kw, "OO|iOi", kwlist, &player, &seed_obj, &policy, &aggression_obj,
                                     &explore))
        return NULL;
    if (explore < 0) {
        PyErr_Format(PyExc_ValueError, "explore must be 0 (no random moves) or more, not %d", explore);
        return NULL;
    }
    int p;
    if (check_player(g, player, &p) < 0)
        return NULL;
    if (policy < 0 || policy >= N_POLICIES) {
        PyErr_Format(PyExc_ValueError, "policy must be 0, 1 or 2, not %d", policy);
        return NULL;
    }
    if (!(pending_mask(&g->s) & (1u << p))) {
        PyErr_Format(PyExc_ValueError, "player %d is not to move", p);
        return NULL;
    }
    double aggression[MAXP] = {0};
    if (aggression_obj != Py_None) {
        Py_ssize_t n = read_chances(aggression_obj, "aggression", aggression);
        if (n < 0)
            return NULL;
        if (n != g->s.np) {
            PyErr_Format(PyExc_ValueError, "aggression needs %d entries", g->s.np);
            return NULL;
        }
    }
    uint64_t rng = PyLong_AsUnsignedLongLongMask(seed_obj);
    if (rng == (uint64_t)-1 && PyErr_Occurred())
        return NULL;
    g->s.failed = 0;
    Move mv = policy_move(&g->s, p, &rng, policy, aggression_obj != Py_None ? aggression : NULL, explore);
    if (g->s.failed) {
        g->s.failed = 0;
        Py_XDECREF(mv.big);
        return NULL;
    }
    if (mv.big)
        return mv.big; /* the policy's reference, handed on */
    return PyLong_FromLongLong(mv.v);
}

/* ---- _restore: the low-level constructor behind engine.Game.from_wire */

static int get_i64(PyObject *o, const char *what, int64_t lo, int64_t hi, int64_t *out)
{
    long long v = PyLong_AsLongLong(o);
    if (v == -1 && PyErr_Occurred())
        return -1;
    if (v < lo || v > hi) {
        PyErr_Format(PyExc_ValueError, "%s out of range: %lld", what, v);
        return -1;
    }
    *out = v;
    return 0;
}

/*
 * _restore(n_players, base, day, phase, max_days, days_played, shop, players,
 *          attacker, attacker_card, winner, fault_player, fault_reason,
 *          next_def, eligible, def_cards)
 * shop: counts for ids 1..8 or 1..13; players: ((coins, buys, ((id, uses), ...)), ...);
 * def_cards: a card index or -1 per player. Values are validated by the caller;
 * this checks only what would break the engine's invariants.
 */
/* A number of coins: any non-negative int, held canonically. */
static int get_coins(PyObject *o, int64_t *v, PyObject **big)
{
    if (!PyLong_Check(o)) {
        PyErr_SetString(PyExc_TypeError, "coins must be an int");
        return -1;
    }
    int overflow;
    long long x = PyLong_AsLongLongAndOverflow(o, &overflow);
    if (x == -1 && PyErr_Occurred())
        return -1;
    if (overflow < 0 || (!overflow && x < 0)) {
        PyErr_SetString(PyExc_ValueError, "coins out of range: negative");
        return -1;
    }
    if (overflow) {
        PyObject *exact = PyObject_CallOneArg((PyObject *)&PyLong_Type, o); /* a plain int */
        if (!exact)
            return -1;
        *v = BIG;
        Py_XSETREF(*big, exact);
    } else {
        *v = x;
        Py_CLEAR(*big);
    }
    return 0;
}

static PyObject *Game_restore(PyObject *cls, PyObject *args)
{
    int np, base, day, phase, attacker, attacker_card, winner, fplayer, next_def, eligible;
    long long max_days, days_played;
    PyObject *shop, *players, *freason, *def_cards;
    if (!PyArg_ParseTuple(args, "iiiiLLO!O!iiiiOiiO!", &np, &base, &day, &phase, &max_days,
                          &days_played, &PyTuple_Type, &shop, &PyTuple_Type, &players, &attacker,
                          &attacker_card, &winner, &fplayer, &freason, &next_def, &eligible,
                          &PyTuple_Type, &def_cards))
        return NULL;
    if (np < 2 || np > MAXP || day < 1 || day > 3 || phase < 0 || phase > FAULT || max_days < 0 ||
        days_played < 0 || PyTuple_GET_SIZE(players) != np || PyTuple_GET_SIZE(def_cards) != np) {
        PyErr_SetString(PyExc_ValueError, "inconsistent state");
        return NULL;
    }
    GameObject *g = new_game((PyTypeObject *)cls);
    if (!g)
        return NULL;
    State *s = &g->s;
    memset(s, 0, sizeof *s);
    s->np = (uint8_t)np;
    s->base = (uint8_t)(base != 0);
    s->day = (uint8_t)day;
    s->phase = (uint8_t)phase;
    s->max_days = max_days;
    s->days_played = days_played;
    s->attacker = (int8_t)attacker;
    s->attacker_card = (int16_t)attacker_card;
    s->winner = (int8_t)winner;
    s->fault_player = (int8_t)fplayer;
    s->next_def = (int8_t)next_def;
    s->eligible = (uint8_t)eligible;
    for (int p = 0; p < MAXP; p++)
        s->buy_choice[p] = NO_CHOICE;
    int nshop = MAX_SHOP_ID(s);
    int64_t v, total = 0;
    if (PyTuple_GET_SIZE(shop) != nshop) {
        PyErr_Format(PyExc_ValueError, "shop needs %d counts", nshop);
        goto fail;
    }
    for (int c = 1; c <= nshop; c++) {
        if (get_i64(PyTuple_GET_ITEM(shop, c - 1), "shop count", 0, MAXC, &v) < 0)
            goto fail;
        s->shop[c] = (int32_t)v;
        total += v;
    }
    for (int p = 0; p < np; p++) {
        PyObject *t = PyTuple_GET_ITEM(players, p), *cards;
        if (!PyTuple_Check(t) || PyTuple_GET_SIZE(t) != 3 || !PyTuple_Check(cards = PyTuple_GET_ITEM(t, 2))) {
            PyErr_SetString(PyExc_ValueError, "player must be (coins, buys, cards)");
            goto fail;
        }
        Player *pl = &s->pl[p];
        if (get_coins(PyTuple_GET_ITEM(t, 0), &pl->coins, &pl->big) < 0 ||
            get_i64(PyTuple_GET_ITEM(t, 1), "buys", 0, INT32_MAX / 2, &v) < 0)
            goto fail;
        pl->buys = (int32_t)v;
        Py_ssize_t n = PyTuple_GET_SIZE(cards);
        if (n + total > MAXC) {
            PyErr_Format(PyExc_ValueError, "player %d: %zd cards plus %lld in the shop exceed %d", p,
                         n, (long long)total, MAXC);
            goto fail;
        }
        pl->n = (int32_t)n;
        for (Py_ssize_t i = 0; i < n; i++) {
            PyObject *cu = PyTuple_GET_ITEM(cards, i);
            int64_t id, uses;
            if (!PyTuple_Check(cu) || PyTuple_GET_SIZE(cu) != 2) {
                PyErr_SetString(PyExc_ValueError, "card must be (id, uses)");
                goto fail;
            }
            if (get_i64(PyTuple_GET_ITEM(cu, 0), "card id", 0, nshop, &id) < 0 ||
                get_i64(PyTuple_GET_ITEM(cu, 1), "uses", 0, 255, &uses) < 0)
                goto fail;
            pl->id[i] = (uint8_t)id;
            pl->uses[i] = (uint8_t)uses;
        }
        int64_t dc;
        if (get_i64(PyTuple_GET_ITEM(def_cards, p), "defending card", -1, n - 1 < 0 ? -1 : n - 1, &dc) < 0)
            goto fail;
        s->def_card[p] = (int16_t)dc;
    }
    if ((phase == ATTACKING || phase == DEFENDING) && (attacker < 0 || attacker >= np)) {
        PyErr_SetString(PyExc_ValueError, "attacker out of range");
        goto fail;
    }
    if (phase == DEFENDING &&
        (attacker_card < 1 || attacker_card >= s->pl[attacker].n || next_def < 0 || next_def >= np ||
         !(eligible & (1 << next_def)))) {
        PyErr_SetString(PyExc_ValueError, "inconsistent defending state");
        goto fail;
    }
    if (phase == FAULT) {
        if (!PyUnicode_Check(freason)) {
            PyErr_SetString(PyExc_ValueError, "fault reason must be a str");
            goto fail;
        }
        g->fault_reason = Py_NewRef(freason);
    }
    const char *why = state_invalid(s);
    if (why) {
        PyErr_Format(PyExc_ValueError, "inconsistent state: %s", why);
        goto fail;
    }
    return (PyObject *)g;
fail:
    Py_DECREF(g);
    return NULL;
}

/* Pickling (multiprocessing): the raw state, valid on the same build, with
   its pointers cleared, and the Python ints of big numbers apart (coins of
   players 0..3, then investments 0..3; None where the number fits int64). */
static void clear_pointers(State *s)
{
    for (int p = 0; p < MAXP; p++) {
        s->pl[p].big = NULL;
        s->big_invest[p] = NULL;
    }
}

static PyObject *Game_getstate(GameObject *g, PyObject *Py_UNUSED(unused))
{
    State raw;
    memcpy(&raw, &g->s, sizeof raw);
    clear_pointers(&raw);
    PyObject *bigs = PyTuple_New(2 * MAXP);
    if (!bigs)
        return NULL;
    for (int p = 0; p < MAXP; p++) {
        PyTuple_SET_ITEM(bigs, p, Py_NewRef(g->s.pl[p].big ? g->s.pl[p].big : Py_None));
        PyTuple_SET_ITEM(bigs, MAXP + p, Py_NewRef(g->s.big_invest[p] ? g->s.big_invest[p] : Py_None));
    }
    PyObject *r = Py_BuildValue("(y#OKN)", (const char *)&raw, (Py_ssize_t)sizeof raw,
                                g->fault_reason ? g->fault_reason : Py_None, g->decisions, bigs);
    return r;
}

static PyObject *Game_setstate(GameObject *g, PyObject *arg)
{
    const char *buf;
    Py_ssize_t len;
    PyObject *reason, *bigs;
    unsigned long long decisions;
    if (!PyArg_ParseTuple(arg, "y#OKO!", &buf, &len, &reason, &decisions, &PyTuple_Type, &bigs))
        return NULL;
    State st;
    if (len != (Py_ssize_t)sizeof st || PyTuple_GET_SIZE(bigs) != 2 * MAXP) {
        PyErr_SetString(PyExc_ValueError, "pickled Game from another build of the engine");
        return NULL;
    }
    memcpy(&st, buf, sizeof st);
    clear_pointers(&st); /* never trust pointers from outside */
    st.failed = 0;
    for (int p = 0; p < MAXP; p++) {
        PyObject *c = PyTuple_GET_ITEM(bigs, p), *i = PyTuple_GET_ITEM(bigs, MAXP + p);
        st.pl[p].big = c == Py_None ? NULL : Py_NewRef(c);
        st.big_invest[p] = i == Py_None ? NULL : Py_NewRef(i);
    }
    const char *why = state_invalid(&st);
    if (!why && st.phase == FAULT && !PyUnicode_Check(reason))
        why = "fault without a reason";
    if (why) {
        state_release(&st);
        PyErr_Format(PyExc_ValueError, "inconsistent pickled state: %s", why);
        return NULL;
    }
    state_release(&g->s);
    g->s = st;
    g->decisions = decisions;
    Py_XSETREF(g->fault_reason, PyUnicode_Check(reason) ? Py_NewRef(reason) : NULL);
    Py_RETURN_NONE;
}

static PyMethodDef Game_methods[] = {
    {"__getstate__", (PyCFunction)Game_getstate, METH_NOARGS, NULL},
    {"__setstate__", (PyCFunction)Game_setstate, METH_O, NULL},
    {"pending", (PyCFunction)Game_pending, METH_NOARGS,
     "Players whose answer the current step waits for, in index order."},
    {"legal_moves", (PyCFunction)Game_legal_moves, METH_O, "Legal moves of a pending player, else []."},
    {"play", (PyCFunction)(void (*)(void))Game_play, METH_FASTCALL,
     "Apply one player's move; IllegalMove (state unchanged) if illegal."},
    {"forfeit", (PyCFunction)(void (*)(void))Game_forfeit, METH_FASTCALL,
     "Phase becomes FAULT, everything else as it stands."},
    {"copy", (PyCFunction)Game_copy, METH_NOARGS, "An independent copy (decisions included)."},
    {"__copy__", (PyCFunction)Game_copy, METH_NOARGS, NULL},
    {"__deepcopy__", (PyCFunction)Game_deepcopy, METH_O, NULL},
    {"key", (PyCFunction)Game_key, METH_NOARGS, "Compact exact encoding of the state."},
    {"coins", (PyCFunction)Game_coins, METH_O, NULL},
    {"buys", (PyCFunction)Game_buys, METH_O, NULL},
    {"points", (PyCFunction)Game_points, METH_O, NULL},
    {"alive", (PyCFunction)Game_alive, METH_O, NULL},
    {"cards", (PyCFunction)Game_cards, METH_O, "((card id, uses), ...) in list order."},
    {"shop", (PyCFunction)Game_shop, METH_NOARGS, "card id -> count, set cards only."},
    {"removed", (PyCFunction)Game_removed, METH_NOARGS, "Copies that fainted or left with an eliminated player."},
    {"lost", (PyCFunction)Game_lost, METH_NOARGS, "Copies paid for but lost to contested buys."},
    {"to_wire", (PyCFunction)(void (*)(void))Game_to_wire, METH_FASTCALL | METH_KEYWORDS,
     "The spec's JSON object; \"player\" only if given."},
    {"playout", (PyCFunction)(void (*)(void))Game_playout, METH_VARARGS | METH_KEYWORDS,
     "Play to the end in place; returns the winner or -1."},
    {"policy_move", (PyCFunction)(void (*)(void))Game_policy_move, METH_VARARGS | METH_KEYWORDS,
     "The move a built-in playout policy (0 random, 1 heuristic, 2 finisher) plays here for a pending player; aggression: "
     "each player's chance of bidding for a sure attack, which a threatened heuristic player denies; explore: the "
     "heuristic plays one move in `explore` at random (default 16, 0 never)."},
    {"_restore", (PyCFunction)Game_restore, METH_VARARGS | METH_CLASS, NULL},
    {NULL},
};

PyTypeObject GameType = {
    PyVarObject_HEAD_INIT(NULL, 0)
    .tp_name = "protocol._engine.Game",
    .tp_basicsize = sizeof(GameObject),
    .tp_dealloc = (destructor)Game_dealloc,
    .tp_flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_BASETYPE,
    .tp_doc = "An Economancy game at a decision point (or over).",
    .tp_richcompare = Game_richcompare,
    .tp_hash = PyObject_HashNotImplemented,
    .tp_methods = Game_methods,
    .tp_getset = Game_getset,
    .tp_init = (initproc)Game_init,
    .tp_new = PyType_GenericNew,
};

/* ---- module */

static PyObject *card_table(PyObject *Py_UNUSED(m), PyObject *Py_UNUSED(unused))
{
    PyObject *t = PyTuple_New(NCARDS);
    if (!t)
        return NULL;
    for (int c = 0; c < NCARDS; c++) {
        const CardInfo *ci = &CARDS[c];
        PyObject *row = Py_BuildValue(
            "{s:s,s:i,s:i,s:i,s:i,s:i,s:i,s:i,s:i,s:(iii),s:O,s:(iii)}", "name", ci->name, "cost",
            ci->cost, "atk", ci->atk, "def", ci->def, "per_player", ci->per_player, "points",
            ci->points, "attacks", ci->attacks, "defends", ci->defends, "defend_coins",
            ci->defend_coins, "coins", ci->coins[1], ci->coins[2], ci->coins[3], "bean",
            ci->bean ? Py_True : Py_False, "buys", ci->buys[1], ci->buys[2], ci->buys[3]);
        if (!row) {
            Py_DECREF(t);
            return NULL;
        }
        PyTuple_SET_ITEM(t, c, row);
    }
    return t;
}

static PyObject *reason_get(PyObject *Py_UNUSED(self), PyObject *exc)
{
    PyObject *args = PyObject_GetAttrString(exc, "args");
    if (!args)
        return NULL;
    PyObject *r = PyTuple_Check(args) && PyTuple_GET_SIZE(args) > 0 ? Py_NewRef(PyTuple_GET_ITEM(args, 0))
                                                                    : PyUnicode_FromString("");
    Py_DECREF(args);
    return r;
}

static PyMethodDef reason_def = {"reason", reason_get, METH_O, NULL};

static PyMethodDef module_methods[] = {
    {"card_table", card_table, METH_NOARGS, "The C card table, to check it against protocol.cards."},
    {NULL},
};

static struct PyModuleDef engine_module = {
    .m_base = PyModuleDef_HEAD_INIT,
    .m_name = "protocol._engine",
    .m_doc = "The Economancy rules engine (C core).",
    .m_size = -1,
    .m_methods = module_methods,
};

static PyObject *make_illegal_move(void)
{
    PyObject *dict = PyDict_New(), *fget = NULL, *prop = NULL, *cls = NULL;
    if (!dict)
        return NULL;
    if (!(fget = PyCFunction_New(&reason_def, NULL)))
        goto done;
    if (!(prop = PyObject_CallOneArg((PyObject *)&PyProperty_Type, fget)))
        goto done;
    if (PyDict_SetItemString(dict, "reason", prop) < 0)
        goto done;
    {
        PyObject *doc = PyUnicode_FromString(
            "An illegal move; .reason is the readable reason, worded like the original's.");
        if (!doc || PyDict_SetItemString(dict, "__doc__", doc) < 0) {
            Py_XDECREF(doc);
            goto done;
        }
        Py_DECREF(doc);
    }
    cls = PyErr_NewException("protocol.engine.IllegalMove", PyExc_ValueError, dict);
done:
    Py_XDECREF(fget);
    Py_XDECREF(prop);
    Py_DECREF(dict);
    return cls;
}

PyMODINIT_FUNC PyInit__engine(void)
{
    if (PyType_Ready(&GameType) < 0)
        return NULL;
    PyObject *m = PyModule_Create(&engine_module);
    if (!m)
        return NULL;
    for (int c = 0; c < NCARDS; c++)
        if (!(card_names[c] = PyUnicode_InternFromString(CARDS[c].name)))
            goto fail;
#define INTERN(var, text) if (!(var = PyUnicode_InternFromString(text))) goto fail
    INTERN(s_day, "day");
    INTERN(s_phase, "phase");
    INTERN(s_shop, "shop");
    INTERN(s_players, "players");
    INTERN(s_player, "player");
    INTERN(s_coins, "coins");
    INTERN(s_buys, "buys");
    INTERN(s_cards, "cards");
    INTERN(s_name, "name");
    INTERN(s_uses, "uses");
    INTERN(s_attacker, "attacker");
    INTERN(s_attacker_card, "attacker_card");
    INTERN(s_winner, "winner");
    INTERN(s_forfiet, "forfiet");
    INTERN(s_reason, "reason");
    INTERN(s_investing, "investing");
    INTERN(s_attacking, "attacking");
    INTERN(s_buy, "buy");
    INTERN(s_end, "end");
    INTERN(s_fault, "fault");
#undef INTERN
    if (!(IllegalMove = make_illegal_move()))
        goto fail;
    Py_INCREF(IllegalMove);
    if (PyModule_AddObject(m, "IllegalMove", IllegalMove) < 0)
        goto fail;
    Py_INCREF(&GameType);
    if (PyModule_AddObject(m, "Game", (PyObject *)&GameType) < 0)
        goto fail;
    if (search_module_init(m) < 0)
        goto fail;
    if (PyModule_AddIntConstant(m, "MAX_CARDS", MAXC) < 0 || PyModule_AddIntConstant(m, "PASS", PASS) < 0 ||
        PyModule_AddIntConstant(m, "INVESTING", INVESTING) < 0 ||
        PyModule_AddIntConstant(m, "ATTACKING", ATTACKING) < 0 ||
        PyModule_AddIntConstant(m, "DEFENDING", DEFENDING) < 0 || PyModule_AddIntConstant(m, "BUY", BUY) < 0 ||
        PyModule_AddIntConstant(m, "END", END) < 0 || PyModule_AddIntConstant(m, "FAULT", FAULT) < 0 ||
        PyModule_AddIntConstant(m, "HEURISTIC_EXPLORE", HEURISTIC_EXPLORE) < 0 ||
        PyModule_AddStringConstant(m, "SOURCE_DIGEST", SOURCE_DIGEST) < 0)
        goto fail;
    return m;
fail:
    Py_DECREF(m);
    return NULL;
}
