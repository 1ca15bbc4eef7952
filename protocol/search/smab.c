/*
 * Simultaneous nodes solved as matrix games (SMAB: Saffidine, Finnsson and
 * Buro, "Alpha-Beta Pruning for Games with Simultaneous Moves", AAAI 2012),
 * for two players, at every depth of alpha-beta (alphabeta.c calls it).
 *
 * The paranoid search serialises a step where both players choose at once:
 * we choose first and the opponent answers knowing our choice. That is a
 * lower bound on the step's value (max-min), and serialising the other way
 * round (they choose first) an upper bound (min-max). The step's true
 * value, the value of the matrix game of its children, lies between.
 * So the node computes the cheap serialised bounds first, each with
 * alpha-beta's own pruning inside (a row whose minimum cannot beat the best
 * row so far is abandoned; a column likewise), and stops when they settle
 * it: a lower bound at or above beta, or an upper bound at or below alpha,
 * cuts the node as in alpha-beta; equal bounds are a saddle point, the value.
 * Only a node the bounds leave open has its whole matrix searched and
 * solved, exactly, by the simplex method (matrix_game_value).
 *
 * Cells are searched with a full window, so that each is an exact value
 * and can enter the matrix; a cell is searched once per node.
 */
#include "search.h"

#define EPS 1e-12

double matrix_game_value(const double *a, int n, int m)
{
    /* Shift to positive payoffs; then the column player's LP: maximise
       sum(y) subject to A y <= 1, y >= 0, whose optimum is 1 / value. */
    double lo = INFINITY;
    for (int k = 0; k < n * m; k++)
        if (a[k] < lo)
            lo = a[k];
    double shift = 1.0 - lo;
    int cols = m + n;
    double t[MAXMOVES][2 * MAXMOVES + 1];
    double obj[2 * MAXMOVES + 1];
    int basis[MAXMOVES];
    for (int i = 0; i < n; i++) {
        for (int j = 0; j < m; j++)
            t[i][j] = a[i * m + j] + shift;
        for (int j = 0; j < n; j++)
            t[i][m + j] = i == j ? 1.0 : 0.0;
        t[i][cols] = 1.0;
        basis[i] = m + i;
    }
    for (int j = 0; j <= cols; j++)
        obj[j] = j < m ? -1.0 : 0.0;
    for (int iteration = 0; iteration < 1000; iteration++) {
        int e = -1;
        for (int j = 0; j < cols; j++)
            if (obj[j] < -EPS) {
                e = j; /* Bland's rule: the lowest index, never cycles */
                break;
            }
        if (e < 0)
            break;
        int r = -1;
        double best = INFINITY;
        for (int i = 0; i < n; i++)
            if (t[i][e] > EPS) {
                double ratio = t[i][cols] / t[i][e];
                if (ratio < best - EPS || (fabs(ratio - best) <= EPS && basis[i] < basis[r])) {
                    best = ratio;
                    r = i;
                }
            }
        if (r < 0)
            break; /* unbounded: impossible with positive payoffs */
        double pivot = t[r][e];
        for (int j = 0; j <= cols; j++)
            t[r][j] /= pivot;
        for (int i = 0; i < n; i++)
            if (i != r && t[i][e] != 0.0) {
                double f = t[i][e];
                for (int j = 0; j <= cols; j++)
                    t[i][j] -= f * t[r][j];
            }
        double f = obj[e];
        for (int j = 0; j <= cols; j++)
            obj[j] -= f * t[r][j];
        basis[r] = e;
    }
    return 1.0 / obj[cols] - shift;
}

/* A simultaneous node's matrix, each cell searched on first use. */
typedef struct {
    const State *s;
    int me, them, m;
    const int64_t *ours, *theirs;
    double cell[MAXMOVES * MAXMOVES];
    unsigned char known[MAXMOVES * MAXMOVES];
    ChildValue child_value;
    void *ctx;
} Matrix;

/* The cell (i, j): the child after both moves (played in seat order),
   searched with a full window so that it is exact. */
static double cell_at(Matrix *mx, int i, int j)
{
    int k = i * mx->m + j;
    if (!mx->known[k]) {
        State child;
        state_copy(&child, mx->s);
        if (mx->me < mx->them) {
            play_search_move(&child, mx->me, mx->ours[i]);
            play_search_move(&child, mx->them, mx->theirs[j]);
        } else {
            play_search_move(&child, mx->them, mx->theirs[j]);
            play_search_move(&child, mx->me, mx->ours[i]);
        }
        mx->cell[k] = mx->child_value(mx->ctx, &child, -INFINITY, INFINITY);
        state_release(&child);
        mx->known[k] = 1;
    }
    return mx->cell[k];
}

/* The node's matrix, nothing searched yet: our move count, or 0 after a
   failed candidate list (the search must stop). */
static int matrix_init(Matrix *mx, const State *s, int me, int them, int64_t *ours, int64_t *theirs,
                       ChildValue child_value, void *ctx)
{
    int n = candidate_moves(s, me, ours), m = candidate_moves(s, them, theirs);
    if (n <= 0 || m <= 0)
        return 0;
    mx->s = s;
    mx->me = me;
    mx->them = them;
    mx->m = m;
    mx->ours = ours;
    mx->theirs = theirs;
    mx->child_value = child_value;
    mx->ctx = ctx;
    memset(mx->known, 0, sizeof mx->known);
    return n;
}

/* They choose first: the minimum over their moves of our best answer, each
   column abandoned once it cannot lower the bound. */
static double they_choose_first(Matrix *mx, int n, int *stop)
{
    double upper = INFINITY;
    for (int j = 0; j < mx->m; j++) {
        double col = -INFINITY;
        for (int i = 0; i < n; i++) {
            double x = cell_at(mx, i, j);
            if (*stop)
                return 0.0;
            if (x > col)
                col = x;
            if (col >= upper)
                break;
        }
        if (col < upper)
            upper = col;
    }
    return upper;
}

double they_first_node(const State *s, int me, int them, ChildValue child_value, void *ctx, int *stop)
{
    int64_t ours[MAXMOVES], theirs[MAXMOVES];
    Matrix mx;
    int n = matrix_init(&mx, s, me, them, ours, theirs, child_value, ctx);
    if (n <= 0) {
        *stop = 1;
        return 0.0;
    }
    return they_choose_first(&mx, n, stop);
}

double smab_node(const State *s, int me, int them, double alpha, double beta, ChildValue child_value, void *ctx,
                 int *stop, int *bound)
{
    int64_t ours[MAXMOVES], theirs[MAXMOVES];
    Matrix mx;
    int n = matrix_init(&mx, s, me, them, ours, theirs, child_value, ctx);
    if (n <= 0) {
        *stop = 1;
        return 0.0;
    }
    int m = mx.m;
    /* The lower bound: we choose first (max over rows of the row minimum). */
    double lower = -INFINITY;
    for (int i = 0; i < n; i++) {
        double row = INFINITY;
        for (int j = 0; j < m; j++) {
            double x = cell_at(&mx, i, j);
            if (*stop)
                return 0.0;
            if (x < row)
                row = x;
            if (row <= lower)
                break; /* this row cannot raise the bound */
        }
        if (row > lower)
            lower = row;
    }
    if (lower >= beta) {
        *bound = 1;
        return lower;
    }
    /* The upper bound: they choose first (min over columns of the column maximum). */
    double upper = they_choose_first(&mx, n, stop);
    if (*stop)
        return 0.0;
    if (upper <= alpha) {
        *bound = 2;
        return upper;
    }
    *bound = 0;
    if (upper - lower <= EPS)
        return lower; /* a saddle point */
    for (int i = 0; i < n; i++)
        for (int j = 0; j < m; j++) {
            cell_at(&mx, i, j);
            if (*stop)
                return 0.0;
        }
    double value = matrix_game_value(mx.cell, n, m);
    return value < lower ? lower : value > upper ? upper : value;
}
