/*
 * The search core's functions in protocol._engine: the candidate moves and
 * the evaluation, for the Python searches and the tests that compare them.
 * The searchers themselves are the types of mcts.c and alphabeta.c.
 */
#include "search.h"

static const State *game_state(PyObject *game)
{
    if (!PyObject_TypeCheck(game, &GameType)) {
        PyErr_SetString(PyExc_TypeError, "game must be a protocol.engine.Game");
        return NULL;
    }
    return &((GameObject *)game)->s;
}

static PyObject *py_candidate_moves(PyObject *Py_UNUSED(m), PyObject *args)
{
    PyObject *game;
    int p;
    if (!PyArg_ParseTuple(args, "Oi", &game, &p))
        return NULL;
    const State *s = game_state(game);
    if (!s)
        return NULL;
    if (p < 0 || p >= s->np)
        return PyErr_Format(PyExc_IndexError, "player %d out of range (0..%d)", p, s->np - 1);
    int64_t moves[MAXMOVES];
    int n = candidate_moves(s, p, moves);
    if (n < 0)
        return NULL;
    PyObject *list = PyList_New(n);
    for (int i = 0; list && i < n; i++) {
        PyObject *v = search_move_to_py(s, moves[i]);
        if (!v) {
            Py_CLEAR(list);
            break;
        }
        PyList_SET_ITEM(list, i, v);
    }
    return list;
}

static PyObject *py_features(PyObject *Py_UNUSED(m), PyObject *args)
{
    PyObject *game;
    int race = 1;
    if (!PyArg_ParseTuple(args, "O|p", &game, &race))
        return NULL;
    const State *s = game_state(game);
    if (!s)
        return NULL;
    double f[MAXP][NFEAT];
    if (all_features(s, race, f) < 0)
        return NULL;
    PyObject *out = PyList_New(s->np);
    for (int p = 0; out && p < s->np; p++) {
        PyObject *row = PyList_New(NFEAT);
        if (!row) {
            Py_CLEAR(out);
            break;
        }
        for (int i = 0; i < NFEAT; i++)
            PyList_SET_ITEM(row, i, PyFloat_FromDouble(f[p][i]));
        PyList_SET_ITEM(out, p, row);
    }
    return out;
}

static PyObject *py_evaluate_all(PyObject *Py_UNUSED(m), PyObject *args)
{
    PyObject *game, *weights;
    double scale = 10.0;
    if (!PyArg_ParseTuple(args, "OO|d", &game, &weights, &scale))
        return NULL;
    const State *s = game_state(game);
    Weights w;
    if (!s || search_parse_weights(weights, scale, &w) < 0)
        return NULL;
    double v[MAXP];
    evaluate_all(s, &w, v);
    if (PyErr_Occurred())
        return NULL;
    PyObject *out = PyList_New(s->np);
    for (int p = 0; out && p < s->np; p++)
        PyList_SET_ITEM(out, p, PyFloat_FromDouble(v[p]));
    return out;
}

static PyObject *py_evaluate(PyObject *Py_UNUSED(m), PyObject *args)
{
    PyObject *game, *weights;
    int me;
    double scale = 10.0;
    if (!PyArg_ParseTuple(args, "OiO|d", &game, &me, &weights, &scale))
        return NULL;
    const State *s = game_state(game);
    Weights w;
    if (!s || search_parse_weights(weights, scale, &w) < 0)
        return NULL;
    if (me < 0 || me >= s->np)
        return PyErr_Format(PyExc_IndexError, "player %d out of range (0..%d)", me, s->np - 1);
    double v = evaluate(s, me, &w);
    if (PyErr_Occurred())
        return NULL;
    return PyFloat_FromDouble(v);
}

/* A payoff matrix from a sequence of rows: 0, or -1 with a Python error. */
static int parse_matrix(PyObject *rows, double *a, int *rows_out, int *cols_out)
{
    PyObject *seq = PySequence_Fast(rows, "rows must be a sequence of sequences of floats");
    if (!seq)
        return -1;
    Py_ssize_t n = PySequence_Fast_GET_SIZE(seq), m = -1;
    for (Py_ssize_t i = 0; i < n && n <= MAXMOVES; i++) {
        PyObject *row = PySequence_Fast(PySequence_Fast_GET_ITEM(seq, i), "each row must be a sequence of floats");
        if (!row) {
            Py_DECREF(seq);
            return -1;
        }
        Py_ssize_t k = PySequence_Fast_GET_SIZE(row);
        if (m >= 0 && k != m) {
            Py_DECREF(row);
            m = -2;
            break;
        }
        m = k;
        for (Py_ssize_t j = 0; j < k && k <= MAXMOVES; j++) {
            a[i * k + j] = PyFloat_AsDouble(PySequence_Fast_GET_ITEM(row, j));
            if (a[i * k + j] == -1.0 && PyErr_Occurred()) {
                Py_DECREF(row);
                Py_DECREF(seq);
                return -1;
            }
        }
        Py_DECREF(row);
    }
    Py_DECREF(seq);
    if (n < 1 || n > MAXMOVES || m < 1 || m > MAXMOVES) {
        PyErr_Format(PyExc_ValueError, "a matrix of 1 to %d equal rows of 1 to %d values expected", MAXMOVES,
                     MAXMOVES);
        return -1;
    }
    for (Py_ssize_t k = 0; k < n * m; k++)
        if (!isfinite(a[k])) {
            PyErr_Format(PyExc_ValueError, "payoffs must be finite");
            return -1;
        }
    *rows_out = (int)n;
    *cols_out = (int)m;
    return 0;
}

static PyObject *py_matrix_game_value(PyObject *Py_UNUSED(m), PyObject *rows)
{
    double a[MAXMOVES * MAXMOVES];
    int n, m;
    if (parse_matrix(rows, a, &n, &m) < 0)
        return NULL;
    return PyFloat_FromDouble(matrix_game_value(a, n, m));
}

static PyObject *float_list(const double *v, int k)
{
    PyObject *list = PyList_New(k);
    for (int i = 0; list && i < k; i++) {
        PyObject *f = PyFloat_FromDouble(v[i]);
        if (!f) {
            Py_CLEAR(list);
            break;
        }
        PyList_SET_ITEM(list, i, f);
    }
    return list;
}

static PyObject *py_matrix_game_solve(PyObject *Py_UNUSED(m), PyObject *args, PyObject *kwargs)
{
    static char *keywords[] = {"rows", "iterations", "tolerance", NULL};
    PyObject *rows;
    int iterations = 1000;
    double tolerance = 1e-3;
    if (!PyArg_ParseTupleAndKeywords(args, kwargs, "O|id", keywords, &rows, &iterations, &tolerance))
        return NULL;
    if (iterations < 1)
        return PyErr_Format(PyExc_ValueError, "iterations must be at least 1, got %d", iterations);
    if (!(tolerance >= 0.0))
        return PyErr_Format(PyExc_ValueError, "tolerance must be a non-negative number");
    double a[MAXMOVES * MAXMOVES], row[MAXMOVES], column[MAXMOVES], value, gap;
    int n, m;
    if (parse_matrix(rows, a, &n, &m) < 0)
        return NULL;
    regret_matching_solve(a, n, m, iterations, tolerance, row, column, &value, &gap);
    PyObject *r = float_list(row, n), *c = r ? float_list(column, m) : NULL;
    if (!c) {
        Py_XDECREF(r);
        return NULL;
    }
    return Py_BuildValue("NNdd", r, c, value, gap);
}

static PyMethodDef search_functions[] = {
    {"matrix_game_value", py_matrix_game_value, METH_O,
     "matrix_game_value(rows): the row player's value of a zero-sum matrix game, by the simplex method."},
    {"matrix_game_solve", (PyCFunction)(void (*)(void))py_matrix_game_solve, METH_VARARGS | METH_KEYWORDS,
     "matrix_game_solve(rows, iterations=1000, tolerance=1e-3): (row strategy, column strategy, value, gap) "
     "of a zero-sum matrix game by regret matching+ (bots.search.matrix.solve)."},
    {"candidate_moves", py_candidate_moves, METH_VARARGS,
     "candidate_moves(game, player): the moves the searches branch over (bots.search.actions.candidate_moves)."},
    {"features", py_features, METH_VARARGS,
     "features(game, race=True): every player's feature vector (bots.search.evaluation.all_features)."},
    {"evaluate", py_evaluate, METH_VARARGS, "evaluate(game, me, weights, scale=10.0): me's value in (-1, 1)."},
    {"evaluate_all", py_evaluate_all, METH_VARARGS,
     "evaluate_all(game, weights, scale=10.0): every player's value in (0, 1)."},
    {NULL},
};

int search_module_init(PyObject *module)
{
    if (PyModule_AddFunctions(module, search_functions) < 0)
        return -1;
    if (mcts_init(module) < 0 || alphabeta_init(module) < 0 || selfplay_init(module) < 0)
        return -1;
    return 0;
}
