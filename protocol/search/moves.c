/*
 * Candidate moves (bots/search/actions.py), exact investments beyond int64,
 * the expert's defender, state hashing and clocks: what every search shares.
 */
#include "search.h"
#include <time.h>

/* --------------------------------------------------------------- investments */

/* The investments worth searching, as bots.search.actions.investments:
   0, 1, the whole purse, and each opponent's purse and one more, those the
   player can afford, ascending. Fast path: every purse fits an int64. */
static int investments(const State *s, int p, int64_t *out)
{
    const Player *me = &s->pl[p];
    int simple = !me->big && me->coins < INT64_MAX;
    for (int o = 0; o < s->np && simple; o++)
        if (o != p && alive(s, o) && (s->pl[o].big || s->pl[o].coins >= INT64_MAX))
            simple = 0;
    if (simple) {
        int64_t a[3 + 2 * MAXP];
        int n = 0;
        a[n++] = 0;
        a[n++] = 1;
        a[n++] = me->coins;
        for (int o = 0; o < s->np; o++)
            if (o != p && alive(s, o)) {
                a[n++] = s->pl[o].coins;
                a[n++] = s->pl[o].coins + 1;
            }
        /* insertion sort, then unique, then affordable */
        for (int i = 1; i < n; i++)
            for (int j = i; j > 0 && a[j - 1] > a[j]; j--) {
                int64_t t = a[j];
                a[j] = a[j - 1];
                a[j - 1] = t;
            }
        int k = 0;
        for (int i = 0; i < n; i++)
            if (a[i] <= me->coins && (k == 0 || out[k - 1] != a[i]))
                out[k++] = a[i];
        return k;
    }
    /* Some purse is a Python int: compare exactly, and name the amounts
       that do not fit an int64 by where they come from (INVEST_CODE). */
    PyObject *v[3 + 2 * MAXP] = {NULL};
    int64_t code[3 + 2 * MAXP];
    int n = 0, k = -1;
    PyObject *one = PyLong_FromLong(1);
    if (!one)
        return -1;
    v[n] = PyLong_FromLong(0), code[n++] = 0;
    v[n] = Py_NewRef(one), code[n++] = 1;
    v[n] = num_obj(me->coins, me->big), code[n++] = INVEST_CODE(p, 0);
    for (int o = 0; o < s->np; o++)
        if (o != p && alive(s, o)) {
            PyObject *c = num_obj(s->pl[o].coins, s->pl[o].big);
            v[n] = c, code[n++] = INVEST_CODE(o, 0);
            v[n] = c ? PyNumber_Add(c, one) : NULL, code[n++] = INVEST_CODE(o, 1);
        }
    for (int i = 0; i < n; i++)
        if (!v[i])
            goto done;
    for (int i = 1; i < n; i++)
        for (int j = i; j > 0; j--) {
            int gt = PyObject_RichCompareBool(v[j - 1], v[j], Py_GT);
            if (gt < 0)
                goto done;
            if (!gt)
                break;
            PyObject *t = v[j];
            int64_t tc = code[j];
            v[j] = v[j - 1], code[j] = code[j - 1];
            v[j - 1] = t, code[j - 1] = tc;
        }
    {
        PyObject *purse = num_obj(me->coins, me->big);
        if (!purse)
            goto done;
        int m = 0;
        PyObject *last = NULL;
        for (int i = 0; i < n; i++) {
            int le = PyObject_RichCompareBool(v[i], purse, Py_LE);
            int dup = last ? PyObject_RichCompareBool(last, v[i], Py_EQ) : 0;
            if (le < 0 || dup < 0) {
                Py_DECREF(purse);
                goto done;
            }
            if (!le || dup)
                continue;
            int overflow;
            long long x = PyLong_AsLongLongAndOverflow(v[i], &overflow);
            out[m++] = overflow ? code[i] : (int64_t)x;
            last = v[i];
        }
        Py_DECREF(purse);
        k = m;
    }
done:
    for (int i = 0; i < n; i++)
        Py_XDECREF(v[i]);
    Py_DECREF(one);
    return k;
}

/* One index per distinct (card, uses) pair (actions._distinct_cards). */
static int distinct_cards(const State *s, const Player *pl, int attacking, int64_t *out)
{
    int n = 0;
    uint16_t seen[MAXMOVES];
    int nseen = 0;
    if (attacking)
        out[n++] = 0;
    for (int i = 0; i < pl->n; i++) {
        if (attacking ? !can_attack_card(pl, i) : !can_defend_card(pl, i))
            continue;
        uint16_t key = (uint16_t)(pl->id[i] << 8 | pl->uses[i]);
        int dup = 0;
        for (int k = 0; k < nseen; k++)
            if (seen[k] == key)
                dup = 1;
        if (dup || n >= MAXMOVES)
            continue;
        seen[nseen++] = key;
        out[n++] = i;
    }
    return n;
}

int candidate_moves(const State *s, int p, int64_t *out)
{
    if (p < 0 || p >= s->np || !(pending_mask(s) & (1u << p)))
        return 0;
    const Player *pl = &s->pl[p];
    switch (s->phase) {
    case INVESTING:
        return investments(s, p, out);
    case BUY: {
        int n = 0;
        out[n++] = PASS;
        for (int c = 1; c <= MAX_SHOP_ID(s); c++)
            if (CARDS[c].cost <= pl->coins && s->shop[c] > 0)
                out[n++] = c;
        return n;
    }
    case ATTACKING:
        return distinct_cards(s, pl, 1, out);
    case DEFENDING:
        return distinct_cards(s, pl, 0, out);
    }
    return 0;
}

/* The exact amount of INVEST_CODE(o, plus): a new reference. */
static PyObject *invest_amount(const State *s, int64_t move)
{
    int64_t q = -2 - move;
    int o = (int)(q / 2), plus = (int)(q % 2);
    if (o < 0 || o >= s->np) {
        PyErr_SetString(PyExc_SystemError, "bad investment code");
        return NULL;
    }
    PyObject *c = num_obj(s->pl[o].coins, s->pl[o].big);
    if (!c || !plus)
        return c;
    PyObject *one = PyLong_FromLong(1), *r = one ? PyNumber_Add(c, one) : NULL;
    Py_DECREF(c);
    Py_XDECREF(one);
    return r;
}

const char *play_search_move(State *s, int p, int64_t move)
{
    if (!(s->phase == INVESTING && IS_INVEST_CODE(move)))
        return apply_move(s, p, move, NULL);
    PyObject *amount = invest_amount(s, move);
    if (!amount) {
        s->failed = 1;
        PyErr_Clear();
        return "bad move";
    }
    int overflow;
    long long x = PyLong_AsLongLongAndOverflow(amount, &overflow);
    const char *why = overflow ? apply_move(s, p, INT64_MAX, amount) : apply_move(s, p, x, NULL);
    Py_DECREF(amount);
    return why;
}

PyObject *search_move_to_py(const State *s, int64_t move)
{
    if (s->phase == INVESTING && IS_INVEST_CODE(move))
        return invest_amount(s, move);
    return PyLong_FromLongLong(move);
}

int search_move_from_py(const State *s, int p, PyObject *obj, int64_t *out)
{
    int64_t moves[MAXMOVES];
    int n = candidate_moves(s, p, moves);
    if (n < 0)
        return -1;
    for (int i = 0; i < n; i++) {
        PyObject *v = search_move_to_py(s, moves[i]);
        if (!v)
            return -1;
        int eq = PyObject_RichCompareBool(v, obj, Py_EQ);
        Py_DECREF(v);
        if (eq < 0)
            return -1;
        if (eq) {
            *out = moves[i];
            return 0;
        }
    }
    PyErr_Format(PyExc_ValueError, "%R is not a candidate move of player %d here", obj, p);
    return -1;
}

/* --------------------------------------------------------------- the expert's defender */

static int card_value(int c)
{
    if (c == 0)
        return 100;
    const CardInfo *ci = &CARDS[c];
    return (ci->cost > 0 ? ci->cost : 0) + ci->coins[1] + ci->coins[2] + ci->coins[3] + (ci->bean ? 3 : 0) +
           2 * ci->points;
}

int expert_defender(const State *s, int p)
{
    const CardInfo *att = &CARDS[s->pl[s->attacker].id[s->attacker_card]];
    int att_id = s->pl[s->attacker].id[s->attacker_card];
    const Player *pl = &s->pl[p];
    int best = -1, best1 = 0, best2 = 0;
    for (int i = 0; i < pl->n; i++) {
        if (!can_defend_card(pl, i))
            continue;
        const CardInfo *ci = &CARDS[pl->id[i]];
        int lost = att->atk > ci->def ? card_value(pl->id[i]) : 0;
        int won = ci->atk > att->def ? card_value(att_id) : 0;
        int k1 = won - lost + ci->defend_coins, k2 = -card_value(pl->id[i]);
        if (best < 0 || k1 > best1 || (k1 == best1 && k2 > best2)) {
            best = i;
            best1 = k1;
            best2 = k2;
        }
    }
    return best;
}

/* --------------------------------------------------------------- hashing */

static inline uint64_t mix(uint64_t h, uint64_t x)
{
    h ^= x + UINT64_C(0x9E3779B97F4A7C15) + (h << 6) + (h >> 2);
    h *= UINT64_C(0xBF58476D1CE4E5B9);
    return h ^ (h >> 31);
}

static uint64_t hash_big(PyObject *big)
{
    Py_hash_t h = PyObject_Hash(big); /* an int's hash cannot fail */
    return (uint64_t)h ^ UINT64_C(0x5bd1e9955bd1e995);
}

/* Two independent chains of mix() (the words alternate between them) and
   the shop's counts packed four to a word: the hash is taken at every step
   of every MCTS iteration, and one chain of a mix a field made it a fifth
   of the search's time (perf, bench/search.py speed). */
uint64_t state_hash(const State *s)
{
    uint64_t a = 0x243F6A8885A308D3u, b = 0x13198A2E03707344u;
    a = mix(a, (uint64_t)s->np | (uint64_t)s->base << 8 | (uint64_t)s->day << 16 | (uint64_t)s->phase << 24 |
                   (uint64_t)(uint8_t)s->attacker << 32 | (uint64_t)(uint8_t)s->winner << 40 |
                   (uint64_t)(uint8_t)s->next_def << 48 | (uint64_t)s->answered << 56);
    b = mix(b, (uint64_t)(uint16_t)s->attacker_card | (uint64_t)s->eligible << 16);
    a = mix(a, (uint64_t)s->max_days);
    b = mix(b, (uint64_t)s->days_played);
    for (int c = 1; c < NCARDS; c += 4) {
        uint64_t w = 0;
        for (int k = 0; k < 4 && c + k < NCARDS; k++)
            w |= (uint64_t)(uint16_t)s->shop[c + k] << (16 * k);
        a = mix(a, w);
        uint64_t t = a;
        a = b;
        b = t;
    }
    for (int p = 0; p < s->np; p++) {
        const Player *pl = &s->pl[p];
        a = mix(a, (uint64_t)(uint16_t)s->def_card[p] | (uint64_t)(uint16_t)s->buy_choice[p] << 16 |
                       (uint64_t)(uint32_t)pl->buys << 32);
        b = mix(b, pl->big ? hash_big(pl->big) : (uint64_t)pl->coins);
        a = mix(a, s->big_invest[p] ? hash_big(s->big_invest[p]) : (uint64_t)s->invest[p]);
        b = mix(b, (uint64_t)pl->n | (uint64_t)p << 32);
        for (int i = 0; i < pl->n; i += 4) {
            uint64_t w = 0;
            for (int k = 0; k < 4 && i + k < pl->n; k++)
                w |= (uint64_t)(pl->id[i + k] | pl->uses[i + k] << 8) << (16 * k);
            a = mix(a, w);
            uint64_t t = a;
            a = b;
            b = t;
        }
    }
    return mix(a, b);
}

/* --------------------------------------------------------------- clocks */

double cpu_seconds(void)
{
    struct timespec t;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

double wall_seconds(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

void clock_start(Clock *c, int cpu, double seconds, double wall_limit)
{
    c->cpu = cpu;
    c->start = clock_now(c);
    c->deadline = seconds > 0 ? c->start + seconds : INFINITY;
    c->wall_deadline = wall_limit > 0 ? wall_seconds() + wall_limit : INFINITY;
}

double clock_now(const Clock *c) { return c->cpu ? cpu_seconds() : wall_seconds(); }

int clock_expired(const Clock *c) { return clock_now(c) > c->deadline || wall_seconds() > c->wall_deadline; }
