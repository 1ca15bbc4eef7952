/*
 * The heuristic evaluation, feature for feature and float for float the
 * reference bots/search/evaluation.py (its docstrings say why each feature
 * is there); the tests compare the two on random positions. Purses are
 * exact integers of any size: the coin feature and the bids are computed
 * exactly (in 128 bits, or with Python ints beyond int64) before the
 * feature saturates at 1e300 as the reference's does.
 */
#include "search.h"

#define DEAREST_CARD 5 /* Golem */
#define WIN_POINTS 7
#define RACE_HORIZON 12
#define INCANTATION 2
#define BOARD 1
#define EXACT_FLOAT (INT64_C(1) << 53)
#define FLOAT_CAP 1e300
/* The race only compares a budget with a dozen buys' worth of coins, so a
   purse is counted up to this, exactly. */
#define RACE_BUDGET_CAP (INT64_C(1) << 40)

typedef struct {
    int points;
    double income;
    int attack, defense, defenders, attackers, blocks, firepower;
    int day_income[3];
} Army;

static void army_of(const Player *pl, Army *a)
{
    memset(a, 0, sizeof *a);
    for (int i = 0; i < pl->n; i++) {
        const CardInfo *c = &CARDS[pl->id[i]];
        int bean = c->bean ? 1 : 0;
        a->points += c->points;
        a->income += (double)(c->coins[1] + c->coins[2] + c->coins[3]) + (bean ? 3.0 : 0.0);
        for (int d = 0; d < 3; d++)
            a->day_income[d] += c->coins[d + 1] + bean;
        int attack = c->attacks > 0 && c->atk > 0 ? c->atk : 0;
        int defense = c->def >= 0 && c->defends > 0 ? c->def : 0;
        if (attack) {
            a->attackers++;
            a->firepower += attack;
            if (attack > a->attack)
                a->attack = attack;
        }
        if (defense) {
            a->defense += defense;
            a->defenders++;
            a->blocks += c->defends;
        }
    }
}

static int race(int need, int64_t budget, const int income[3], int day, int today, int incantations, int boards)
{
    if (need <= 0)
        return 0;
    int buys = today ? 1 : 0;
    for (int elapsed = today ? 0 : 1; elapsed < RACE_HORIZON; elapsed++) {
        if (elapsed > 0) {
            day = day % 3 + 1;
            budget += income[day - 1];
            buys++;
        }
        int64_t k = buys;
        if (budget / 4 < k)
            k = budget / 4;
        if (incantations < k)
            k = incantations;
        int64_t m = buys - k;
        if ((budget - 4 * k) / 2 < m)
            m = (budget - 4 * k) / 2;
        if (boards < m)
            m = boards;
        if (3 * k + m >= need)
            return elapsed;
    }
    return RACE_HORIZON;
}

typedef __int128 i128;

static double capped(double x) { return x > FLOAT_CAP ? FLOAT_CAP : x < -FLOAT_CAP ? -FLOAT_CAP : x; }

/* The coin features and `exposed`'s bid comparisons (bid[p] > bid[q]) when
   every purse fits an int64: exact in 128 bits. */
static void coins_fast(const State *s, const Army *armies, double *coins, int outbids[MAXP][MAXP])
{
    int np = s->np;
    i128 purse[MAXP], bid[MAXP];
    i128 top = 0;
    for (int p = 0; p < np; p++) {
        purse[p] = s->pl[p].coins;
        bid[p] = 3 * purse[p] + (i128)(int64_t)armies[p].income;
        if (purse[p] > top)
            top = purse[p];
    }
    i128 floor = 0;
    if (top >= EXACT_FLOAT) {
        int any = 0;
        for (int p = 0; p < np; p++)
            if (alive(s, p) && (!any || purse[p] < floor)) {
                floor = purse[p];
                any = 1;
            }
    }
    for (int p = 0; p < np; p++) {
        i128 richest = 0;
        for (int o = 0; o < np; o++)
            if (o != p && alive(s, o) && purse[o] > richest)
                richest = purse[o];
        i128 c = purse[p] < richest + DEAREST_CARD ? purse[p] : richest + DEAREST_CARD;
        coins[p] = capped((double)(c - floor));
        for (int o = 0; o < np; o++)
            outbids[o][p] = bid[o] > bid[p];
    }
}

/* The same with Python ints, for purses beyond int64. */
static int coins_slow(const State *s, const Army *armies, double *coins, int outbids[MAXP][MAXP])
{
    int np = s->np, ok = 0;
    PyObject *purse[MAXP] = {NULL}, *bid[MAXP] = {NULL}, *floor = NULL, *three = PyLong_FromLong(3),
             *dear = PyLong_FromLong(DEAREST_CARD), *exact = PyLong_FromLongLong(EXACT_FLOAT);
    if (!three || !dear || !exact)
        goto done;
    for (int p = 0; p < np; p++) {
        PyObject *inc = PyLong_FromLongLong((int64_t)armies[p].income), *t = NULL;
        if (!(purse[p] = num_obj(s->pl[p].coins, s->pl[p].big)) || !inc || !(t = PyNumber_Multiply(three, purse[p]))) {
            Py_XDECREF(inc);
            goto done;
        }
        bid[p] = PyNumber_Add(t, inc);
        Py_DECREF(t);
        Py_DECREF(inc);
        if (!bid[p])
            goto done;
    }
    int huge = 0;
    for (int p = 0; p < np; p++) {
        int ge = PyObject_RichCompareBool(purse[p], exact, Py_GE);
        if (ge < 0)
            goto done;
        huge |= ge;
    }
    if (huge) {
        for (int p = 0; p < np; p++)
            if (alive(s, p)) {
                int lt = floor ? PyObject_RichCompareBool(purse[p], floor, Py_LT) : 1;
                if (lt < 0)
                    goto done;
                if (lt)
                    floor = purse[p];
            }
    }
    for (int p = 0; p < np; p++) {
        PyObject *richest = NULL;
        for (int o = 0; o < np; o++)
            if (o != p && alive(s, o)) {
                int gt = richest ? PyObject_RichCompareBool(purse[o], richest, Py_GT) : 1;
                if (gt < 0)
                    goto done;
                if (gt)
                    richest = purse[o];
            }
        PyObject *cap = richest ? PyNumber_Add(richest, dear) : Py_NewRef(dear);
        if (!cap)
            goto done;
        int lt = PyObject_RichCompareBool(purse[p], cap, Py_LT);
        PyObject *c = lt > 0 ? Py_NewRef(purse[p]) : Py_NewRef(cap);
        Py_DECREF(cap);
        if (lt < 0) {
            Py_DECREF(c);
            goto done;
        }
        if (floor)
            Py_SETREF(c, PyNumber_Subtract(c, floor));
        if (!c)
            goto done;
        double x = PyLong_AsDouble(c);
        if (x == -1.0 && PyErr_Occurred()) {
            PyErr_Clear();
            int pos = PyObject_RichCompareBool(c, dear, Py_GT);
            x = pos > 0 ? FLOAT_CAP : -FLOAT_CAP;
        }
        Py_DECREF(c);
        coins[p] = capped(x);
        for (int o = 0; o < np; o++) {
            int gt = PyObject_RichCompareBool(bid[o], bid[p], Py_GT);
            if (gt < 0)
                goto done;
            outbids[o][p] = gt;
        }
    }
    ok = 1;
done:
    for (int p = 0; p < np; p++) {
        Py_XDECREF(purse[p]);
        Py_XDECREF(bid[p]);
    }
    Py_XDECREF(three);
    Py_XDECREF(dear);
    Py_XDECREF(exact);
    return ok ? 0 : -1;
}

int all_features(const State *s, int with_race, double out[MAXP][NFEAT])
{
    int np = s->np;
    Army armies[MAXP];
    int any_big = 0;
    for (int p = 0; p < np; p++) {
        army_of(&s->pl[p], &armies[p]);
        any_big |= s->pl[p].big != NULL;
    }
    double coins[MAXP];
    int outbids[MAXP][MAXP];
    if (any_big) {
        if (coins_slow(s, armies, coins, outbids) < 0)
            return -1;
    } else {
        coins_fast(s, armies, coins, outbids);
    }
    for (int p = 0; p < np; p++) {
        const Army *a = &armies[p];
        int exposed = 0, rival_points = 0;
        for (int o = 0; o < np; o++)
            if (o != p && alive(s, o)) {
                if (armies[o].attackers > a->blocks && outbids[o][p])
                    exposed = 1;
                if (armies[o].points > rival_points)
                    rival_points = armies[o].points;
            }
        double *f = out[p];
        f[F_POINTS] = (double)a->points;
        f[F_POINTS_SQUARED] = (double)(a->points * a->points) / 7.0;
        f[F_COINS] = coins[p];
        f[F_INCOME] = a->income;
        f[F_ATTACK] = (double)a->attack;
        f[F_DEFENSE] = (double)a->defense;
        f[F_DEFENDERS] = (double)a->defenders;
        f[F_BUYS] = (double)s->pl[p].buys;
        f[F_ATTACKERS] = (double)a->attackers;
        f[F_EXPOSED] = exposed ? 1.0 : 0.0;
        f[F_RACE] = 0.0;
        if (with_race && alive(s, p)) {
            int target = 1 + rival_points > WIN_POINTS ? 1 + rival_points : WIN_POINTS;
            int64_t budget = s->pl[p].big || s->pl[p].coins > RACE_BUDGET_CAP ? RACE_BUDGET_CAP : s->pl[p].coins;
            int today = s->phase != BUY || s->pl[p].buys > 0;
            f[F_RACE] = (double)race(target - a->points, budget, a->day_income, s->day, today, s->shop[INCANTATION],
                                     s->shop[BOARD]);
        }
        f[F_FIREPOWER] = (double)a->firepower;
    }
    return 0;
}

/* Every player's material; -inf once eliminated. A failed Python call (only
   with purses beyond int64, out of memory) leaves the error set and values 0. */
static void materials(const State *s, const Weights *w, double *out)
{
    double f[MAXP][NFEAT];
    if (all_features(s, w->w[F_RACE] != 0.0, f) < 0) {
        for (int p = 0; p < s->np; p++)
            out[p] = 0.0;
        return;
    }
    for (int p = 0; p < s->np; p++) {
        if (!alive(s, p)) {
            out[p] = -INFINITY;
            continue;
        }
        double acc = 0.0;
        for (int i = 0; i < NFEAT; i++)
            acc += w->w[i] * f[p][i];
        out[p] = acc;
    }
}

static double squash(const double *scores, int np, int me, double scale)
{
    double mine = scores[me], best = -INFINITY;
    for (int p = 0; p < np; p++)
        if (p != me && scores[p] > best)
            best = scores[p];
    if (mine == -INFINITY)
        return -1.0 + 1e-9;
    if (best == -INFINITY)
        return 1.0 - 1e-9;
    return tanh((mine - best) / scale);
}

double evaluate(const State *s, int me, const Weights *w)
{
    double m[MAXP];
    materials(s, w, m);
    return squash(m, s->np, me, w->scale);
}

void evaluate_all(const State *s, const Weights *w, double *out)
{
    double m[MAXP];
    materials(s, w, m);
    for (int p = 0; p < s->np; p++)
        out[p] = (1.0 + squash(m, s->np, p, w->scale)) / 2.0;
}
