/*
 * The champion's root strategy: an approximate mixed equilibrium of a small
 * zero-sum matrix game by regret matching+ (Tammelin 2014) with alternating
 * updates and linearly weighted averages; bots.search.matrix.solve (numpy)
 * is its reference, step for step: same updates, same stopping rule (every
 * 50 iterations, a gap below `tolerance` times the payoff range), so the
 * two agree but for rounding (numpy's BLAS sums in another order).
 *
 * It is here rather than in numpy because a bot's start-up is part of every
 * game it plays: importing numpy took longer than a bare Python bot's whole
 * start-up, and the champion's first state is such a root.
 */
#include "search.h"

/* max_i (a y)_i - min_j (x a)_j: zero exactly at an equilibrium. */
static double gap_of(const double *a, int n, int m, const double *x, const double *y)
{
    double best_row = -INFINITY, best_col = INFINITY;
    for (int i = 0; i < n; i++) {
        double v = 0.0;
        for (int j = 0; j < m; j++)
            v += a[i * m + j] * y[j];
        if (v > best_row)
            best_row = v;
    }
    for (int j = 0; j < m; j++) {
        double v = 0.0;
        for (int i = 0; i < n; i++)
            v += x[i] * a[i * m + j];
        if (v < best_col)
            best_col = v;
    }
    return best_row - best_col;
}

static void normalised(const double *sum, int k, double *out)
{
    double total = 0.0;
    for (int i = 0; i < k; i++)
        total += sum[i];
    for (int i = 0; i < k; i++)
        out[i] = sum[i] / total;
}

void regret_matching_solve(const double *a, int n, int m, int iterations, double tolerance, double *row,
                           double *column, double *value, double *gap)
{
    double lo = INFINITY, hi = -INFINITY;
    for (int k = 0; k < n * m; k++) {
        if (a[k] < lo)
            lo = a[k];
        if (a[k] > hi)
            hi = a[k];
    }
    double scale = hi - lo;
    if (scale == 0.0) {
        for (int i = 0; i < n; i++)
            row[i] = 1.0 / n;
        for (int j = 0; j < m; j++)
            column[j] = 1.0 / m;
        *value = a[0];
        *gap = 0.0;
        return;
    }
    double regret_row[MAXMOVES] = {0}, regret_col[MAXMOVES] = {0};
    double sum_row[MAXMOVES] = {0}, sum_col[MAXMOVES] = {0};
    double x[MAXMOVES], y[MAXMOVES], values[MAXMOVES], losses[MAXMOVES];
    for (int i = 0; i < n; i++)
        x[i] = 1.0 / n;
    for (int j = 0; j < m; j++)
        y[j] = 1.0 / m;
    for (int t = 1; t <= iterations; t++) {
        /* The row player updates against the column player's current strategy... */
        double mean = 0.0, total = 0.0;
        for (int i = 0; i < n; i++) {
            double v = 0.0;
            for (int j = 0; j < m; j++)
                v += a[i * m + j] * y[j];
            values[i] = v;
            mean += x[i] * v;
        }
        for (int i = 0; i < n; i++) {
            double r = regret_row[i] + values[i] - mean;
            regret_row[i] = r > 0.0 ? r : 0.0;
            total += regret_row[i];
        }
        for (int i = 0; i < n; i++) {
            x[i] = total > 0.0 ? regret_row[i] / total : 1.0 / n;
            sum_row[i] += t * x[i];
        }
        /* ...then the column player against the row player's new one. */
        mean = 0.0;
        total = 0.0;
        for (int j = 0; j < m; j++) {
            double v = 0.0;
            for (int i = 0; i < n; i++)
                v += x[i] * a[i * m + j];
            losses[j] = v;
            mean += v * y[j];
        }
        for (int j = 0; j < m; j++) {
            double r = regret_col[j] + mean - losses[j];
            regret_col[j] = r > 0.0 ? r : 0.0;
            total += regret_col[j];
        }
        for (int j = 0; j < m; j++) {
            y[j] = total > 0.0 ? regret_col[j] / total : 1.0 / m;
            sum_col[j] += t * y[j];
        }
        if (t % 50 == 0 || t == iterations) {
            double xr[MAXMOVES], yc[MAXMOVES];
            normalised(sum_row, n, xr);
            normalised(sum_col, m, yc);
            if (gap_of(a, n, m, xr, yc) <= tolerance * scale)
                break;
        }
    }
    normalised(sum_row, n, row);
    normalised(sum_col, m, column);
    double v = 0.0;
    for (int j = 0; j < m; j++) {
        double c = 0.0;
        for (int i = 0; i < n; i++)
            c += row[i] * a[i * m + j];
        v += c * column[j];
    }
    *value = v;
    *gap = gap_of(a, n, m, row, column);
}
