/* The parallel loop: N independent iterations whose costs are drawn once,
 * when the scenario is read, from a distribution, a file, or an adaptive
 * quadrature profile, or are the cells of a field at each adaptation step.
 * Every adaptation step executes the loop again. Iteration i is the unit
 * with id i; its load is its cost in work units. */
#include <math.h>
#include <string.h>

#include "io/input.h"
#include "workloads/aqr.h"
#include "workloads/models.h"

typedef enum {
  COST_CONSTANT,
  COST_UNIFORM,
  COST_NORMAL,
  COST_EXPONENTIAL,
  COST_GAMMA,
  COST_INCREASING,
  COST_DECREASING,
  COST_BIMODAL,
  COST_FILE,
  COST_FIELD,
  COST_AQR,
} CostKind;

static const char *const cost_names[] = {
    [COST_CONSTANT] = "constant",
    [COST_UNIFORM] = "uniform",
    [COST_NORMAL] = "normal",
    [COST_EXPONENTIAL] = "exponential",
    [COST_GAMMA] = "gamma",
    [COST_INCREASING] = "increasing",
    [COST_DECREASING] = "decreasing",
    [COST_BIMODAL] = "bimodal",
    [COST_FILE] = "file",
    [COST_FIELD] = "field",
    [COST_AQR] = "aqr",
};

typedef struct {
  CostKind kind;
  guint64 *costs; /* one per iteration (cost field: at step 0) */
  /* cost field: the costs at each adaptation step, made when a rank first
   * asks for them (guint64 arrays, indexed by step; NULL: not yet) */
  GPtrArray *steps;
  guint dim;
  guint64 size[LB_MAX_DIM];
} Loop;

static const LbParamSpec loop_params[] = {
    {"iterations", LB_PARAM_INT, "10400", 1, 1e8, NULL,
     "loop: number of iterations N (cost file and field: taken from the file or the field unless "
     "given)"},
    {"cost", LB_PARAM_CHOICE, "constant", 0, 0,
     "constant|uniform|normal|exponential|gamma|increasing|decreasing|bimodal|file|field|aqr",
     "loop: where each iteration's cost (in work units) comes from"},
    {"mean", LB_PARAM_DOUBLE, "1000", 0, 1e12, NULL,
     "loop, cost constant, normal, exponential, gamma: the mean cost; bimodal: the first mode's "
     "mean"},
    {"sd", LB_PARAM_DOUBLE, "100", 0, 1e12, NULL,
     "loop, cost normal and bimodal: the standard deviation (of each mode)"},
    {"shape", LB_PARAM_DOUBLE, "2", 0.01, 1e6, NULL,
     "loop, cost gamma: the shape k (scale mean / k)"},
    {"mean2", LB_PARAM_DOUBLE, "5000", 0, 1e12, NULL, "loop, cost bimodal: the second mode's mean"},
    {"share", LB_PARAM_DOUBLE, "0.2", 0, 1, NULL,
     "loop, cost bimodal: the probability of the second mode"},
    {"cost-min", LB_PARAM_INT, "1", 0, 1e12, NULL,
     "loop, cost uniform: the smallest cost; increasing, decreasing: the first (last) iteration's"},
    {"cost-max", LB_PARAM_INT, "2000", 0, 1e12, NULL,
     "loop, cost uniform: the largest cost; increasing, decreasing: the last (first) iteration's"},
    {"cost-file", LB_PARAM_STRING, NULL, 0, 0, NULL,
     "loop, cost file: one cost per line (blank lines skipped), relative to the scenario"},
    {"field-size", LB_PARAM_STRING, "128x128", 0, 0, NULL,
     "loop, cost field: the field's cells NXxNY or NXxNYxNZ; one iteration per cell in the "
     "field's linear order, costing the cell's load under the pattern keys at each adaptation "
     "step"},
    {"aqr-model", LB_PARAM_CHOICE, "quadrature", 0, 0, "quadrature|formula",
     "loop, cost aqr: each integral's cost is the evaluations lbsim's adaptive Gauss-Kronrod "
     "routine spends on it (quadrature), or lbsim's earlier formula for them (formula)"},
    {"aqr-families", LB_PARAM_INT, "8", 1, 8, NULL,
     "loop, cost aqr: integrand families (the first this many of the eight)"},
    {"aqr-levels", LB_PARAM_INT, "10", 1, 20, NULL,
     "loop, cost aqr: difficulty levels per family (each level's feature twice as sharp as the "
     "one before, or its singularity's exponent nearer -1)"},
    {"aqr-tolerances", LB_PARAM_INT, "13", 1, 13, NULL,
     "loop, cost aqr: relative tolerances per level (tolerance e: 10^-(2+e)); aqr-model "
     "formula: 8 unless given"},
    {"aqr-rules", LB_PARAM_INT, "1", 1, 2, NULL,
     "loop, cost aqr, aqr-model quadrature: rules per tolerance (Gauss-Kronrod 7-15, then "
     "10-21)"},
    {"aqr-samples", LB_PARAM_INT, "10", 1, 10000, NULL,
     "loop, cost aqr, aqr-model quadrature: integrals per family, level, tolerance and rule, "
     "each with its feature at a random place"},
    {"aqr-max-evaluations", LB_PARAM_INT, "10000", 1, 1e9, NULL,
     "loop, cost aqr, aqr-model quadrature: the routine's limit of evaluations per integral "
     "(MAXNFE)"},
    {"aqr-family", LB_PARAM_CHOICE, "all", 0, 0, "all|0|1|2|3|4|5|6|7",
     "loop, cost aqr: all (the first aqr-families families, one after another) or one family's "
     "integrals only (5: discontinuous, the seed's family 6 read as A. Genz's sixth)"},
    {"aqr-order", LB_PARAM_CHOICE, "profile", 0, 0, "profile|back|front|random",
     "loop, cost aqr: the iterations in the profile's order (family, level, tolerance, rule, "
     "sample), sorted with the costliest at the back or at the front, or shuffled"},
    {"bytes-per-iteration", LB_PARAM_DOUBLE, "64", 0, 1e12, NULL,
     "loop: bytes an iteration's data carries when it moves"},
    {"flops-per-unit", LB_PARAM_DOUBLE, "1e4", 0, 1e15, NULL,
     "flops per unit of cost (aqr: per function evaluation)"},
    {NULL},
};

/* Keys that apply to some costs only, and which. */
static const struct {
  const char *key;
  const char *costs;
} cost_keys[] = {
    {"mean", "constant|normal|exponential|gamma|bimodal"},
    {"sd", "normal|bimodal"},
    {"shape", "gamma"},
    {"mean2", "bimodal"},
    {"share", "bimodal"},
    {"cost-min", "uniform|increasing|decreasing"},
    {"cost-max", "uniform|increasing|decreasing"},
    {"cost-file", "file"},
    {"field-size", "field"},
    {"aqr-model", "aqr"},
    {"aqr-families", "aqr"},
    {"aqr-levels", "aqr"},
    {"aqr-rules", "aqr"},
    {"aqr-samples", "aqr"},
    {"aqr-max-evaluations", "aqr"},
    {"aqr-tolerances", "aqr"},
    {"aqr-family", "aqr"},
    {"aqr-order", "aqr"},
};

static char *
resolve_relative(const char *dir, const char *path)
{
  return g_path_is_absolute(path) ? g_strdup(path) : g_build_filename(dir, path, NULL);
}

/* A uniform double in (0, 1]: never 0, so that logarithms are finite. */
static double
open_uniform(GRand *rand)
{
  return 1.0 - g_rand_double(rand);
}

/* Box-Muller: one standard normal from two uniforms (the sine's twin is
 * dropped, so that every draw costs the same two uniforms). */
static double
standard_normal(GRand *rand)
{
  double u1 = open_uniform(rand), u2 = g_rand_double(rand);
  return sqrt(-2.0 * log(u1)) * cos(2.0 * G_PI * u2);
}

/* Marsaglia and Tsang, "A simple method for generating gamma variables"
 * (2000): shape k >= 1 by squeeze and rejection; k < 1 as
 * Gamma(k + 1) U^(1/k). Unit scale. */
static double
standard_gamma(GRand *rand, double k)
{
  if (k < 1.0)
    return standard_gamma(rand, k + 1.0) * pow(open_uniform(rand), 1.0 / k);
  double d = k - 1.0 / 3.0, c = 1.0 / sqrt(9.0 * d);
  for (;;) {
    double z = standard_normal(rand), v = 1.0 + c * z;
    if (v <= 0)
      continue;
    v = v * v * v;
    double u = open_uniform(rand);
    if (log(u) < 0.5 * z * z + d - d * v + d * log(v))
      return d * v;
  }
}

/* Costs are integers: rounded to the nearest, negatives clipped to 0. */
static guint64
to_cost(double x)
{
  if (!(x > 0))
    return 0;
  if (x >= 0x1p62)
    return (guint64)1 << 62;
  return (guint64)llround(x);
}

/* ---- reading ---- */

static gboolean
read_cost_file(LbWork *work, Loop *loop, const char *file, const char *dir, GError **error)
{
  const LbParams *w = work->params;
  if (!lb_params_is_set(w, "cost-file"))
    return lb_workload_fail(error, file, "cost-file", "cost file needs cost-file = PATH");
  g_autofree char *path = resolve_relative(dir, lb_params_get_string(w, "cost-file"));
  g_autofree char *text = NULL;
  gsize length = 0;
  g_autoptr(GError) local = NULL;
  if (!lb_input_read(path, LB_INPUT_COSTS, &text, &length, &local))
    return lb_workload_fail(error, file, "cost-file", "%s", local->message);
  guint nul = lb_text_nul_line(text, length);
  if (nul != 0)
    return lb_workload_fail(error, file, "cost-file", "%s:%u: a NUL byte (is this a text file?)",
                            path, nul);
  g_autoptr(GArray) costs = g_array_new(FALSE, FALSE, sizeof(guint64));
  g_auto(GStrv) lines = g_strsplit(text, "\n", -1);
  for (guint i = 0; lines[i] != NULL; i++) {
    char *line = g_strstrip(lines[i]);
    if (*line == '\0')
      continue;
    guint64 v = 0;
    gboolean ok = g_ascii_isdigit(*line) &&
                  g_ascii_string_to_unsigned(line, 10, 0, (guint64)1 << 62, &v, NULL);
    if (!ok)
      return lb_workload_fail(error, file, "cost-file",
                              "%s:%u: '%s' is not one cost (an integer 0 .. 2^62)", path, i + 1,
                              line);
    g_array_append_val(costs, v);
  }
  if (costs->len == 0)
    return lb_workload_fail(error, file, "cost-file", "%s holds no costs", path);
  if (lb_params_is_set(w, "iterations") && lb_params_get_int(w, "iterations") != costs->len)
    return lb_workload_fail(error, file, "iterations",
                            "%" G_GINT64_FORMAT " iterations, but %s holds %u costs",
                            lb_params_get_int(w, "iterations"), path, costs->len);
  work->cells = costs->len;
  loop->costs = (guint64 *)g_array_free(g_steal_pointer(&costs), FALSE);
  return TRUE;
}

/* The field's cells' loads at an adaptation step, in its linear order. */
static guint64 *
field_costs_at(const LbWork *work, Loop *loop, guint adaptation)
{
  if (adaptation < loop->steps->len && loop->steps->pdata[adaptation] != NULL)
    return loop->steps->pdata[adaptation];
  guint64 *costs = g_new(guint64, work->cells);
  g_autoptr(LbPatternAt) at = lb_pattern_at_new(&work->pattern, loop->dim, adaptation);
  const guint64 *size = loop->size;
  lb_pattern_at_prepare(at, &work->pattern, size);
  guint64 index[LB_MAX_DIM];
  for (guint64 id = 0; id < work->cells; id++) {
    index[0] = id % size[0];
    index[1] = (id / size[0]) % size[1];
    index[2] = id / (size[0] * size[1]);
    costs[id] = lb_pattern_load(&work->pattern, at, loop->dim, index, size, id);
  }
  if (adaptation >= loop->steps->len)
    g_ptr_array_set_size(loop->steps, (gint)adaptation + 1);
  loop->steps->pdata[adaptation] = costs;
  /* the ranks are all at this step or the last (regridding waits for
   * them all): older steps go, or a long run would keep every step */
  for (guint a = 0; a + 1 < adaptation; a++) {
    if (loop->steps->pdata[a] == loop->costs)
      loop->costs = NULL;
    g_clear_pointer(&loop->steps->pdata[a], g_free);
  }
  return costs;
}

static gboolean
field_costs(LbWork *work, Loop *loop, const char *file, GError **error)
{
  const LbParams *w = work->params;
  const char *text = lb_params_get_string(w, "field-size");
  guint64 size[LB_MAX_DIM] = {1, 1, 1};
  guint dim = 1;
  for (const char *p = text; *p != '\0'; p++)
    dim += *p == 'x';
  if ((dim != 2 && dim != 3) || !lb_parse_dims(text, dim, size))
    return lb_workload_fail(error, file, "field-size",
                            "'%s' is not NXxNY or NXxNYxNZ of positive integers", text);
  guint64 cells = size[0] * size[1] * size[2];
  if ((double)size[0] * (double)size[1] * (double)size[2] > 1e8)
    return lb_workload_fail(error, file, "field-size", "'%s' has more than 10^8 cells", text);
  if (work->pattern.kind == LB_PATTERN_FILE)
    return lb_workload_fail(error, file, "pattern",
                            "pattern file is cost file here: use cost = file, cost-file = PATH");
  if (lb_params_is_set(w, "iterations") && (guint64)lb_params_get_int(w, "iterations") != cells)
    return lb_workload_fail(error, file, "iterations",
                            "%" G_GINT64_FORMAT " iterations, but the field has %" G_GUINT64_FORMAT
                            " cells",
                            lb_params_get_int(w, "iterations"), cells);
  work->cells = cells;
  loop->dim = dim;
  memcpy(loop->size, size, sizeof size);
  /* step 0's costs in lbsim's process, two steps' in a run's */
  g_autofree char *what =
      g_strdup_printf("%" G_GUINT64_FORMAT " iterations, with the costs of two steps, need", cells);
  if (!lb_work_check_memory(work, (double)cells * (LB_UNIT_BYTES + 3 * sizeof(guint64)), file,
                            "field-size", what, error))
    return FALSE;
  loop->steps = g_ptr_array_new_with_free_func(g_free);
  loop->costs = field_costs_at(work, loop, 0);
  return TRUE;
}

/* Each iteration is a unit and has its cost. */
static gboolean
check_iterations(LbWork *work, const char *file, const char *key, GError **error)
{
  g_autofree char *what = g_strdup_printf("%" G_GUINT64_FORMAT " iterations need", work->cells);
  return lb_work_check_memory(work, (double)work->cells * (LB_UNIT_BYTES + sizeof(guint64)), file,
                              key, what, error);
}

/* Keys of another cost, and pattern keys without cost = field, are
 * mistakes. */
static gboolean
check_keys(const LbWork *work, const char *cost, const char *file, GError **error)
{
  const LbParams *w = work->params;
  for (guint i = 0; i < G_N_ELEMENTS(cost_keys); i++) {
    if (!lb_params_is_set(w, cost_keys[i].key))
      continue;
    g_auto(GStrv) allowed = g_strsplit(cost_keys[i].costs, "|", -1);
    if (!g_strv_contains((const char *const *)allowed, cost))
      return lb_workload_fail(error, file, cost_keys[i].key, "applies to cost %s, but cost is %s",
                              cost_keys[i].costs, cost);
  }
  if (strcmp(cost, "field") == 0)
    return TRUE;
  for (const LbParamSpec *s = lb_model_param_spec(work->model); s->name != NULL; s++) {
    gboolean pattern_key = FALSE;
    lb_pattern_key_applies(s->name, "", &pattern_key);
    if ((pattern_key || strcmp(s->name, "pattern") == 0) && lb_params_is_set(w, s->name))
      return lb_workload_fail(error, file, s->name, "applies to cost field, but cost is %s", cost);
  }
  return TRUE;
}

static void
loop_free(gpointer data)
{
  Loop *loop = data;
  if (loop->steps != NULL)
    g_ptr_array_unref(loop->steps); /* holds costs */
  else
    g_free(loop->costs);
  g_free(loop);
}

static void
draw_costs(const LbWork *work, Loop *loop)
{
  const LbParams *w = work->params;
  guint64 n = work->cells;
  double mean = lb_params_get_double(w, "mean"), sd = lb_params_get_double(w, "sd");
  double mean2 = lb_params_get_double(w, "mean2"), share = lb_params_get_double(w, "share");
  double shape = lb_params_get_double(w, "shape");
  double lo = (double)lb_params_get_int(w, "cost-min"),
         hi = (double)lb_params_get_int(w, "cost-max");
  guint32 seed[2] = {(guint32)work->seed, (guint32)(work->seed >> 32)};
  g_autoptr(GRand) rand = g_rand_new_with_seed_array(seed, 2);
  loop->costs = g_new(guint64, n);
  guint64 *c = loop->costs;
  if (loop->kind == COST_AQR) {
    lb_aqr_costs(w, work->seed, n, c);
    return;
  }
  for (guint64 i = 0; i < n; i++) {
    double t = n > 1 ? (double)i / (double)(n - 1) : 0.0;
    switch (loop->kind) {
    case COST_CONSTANT:
      c[i] = to_cost(mean);
      break;
    case COST_UNIFORM:
      c[i] = (guint64)lo + (guint64)floor(g_rand_double(rand) * (hi - lo + 1));
      break;
    case COST_NORMAL:
      c[i] = to_cost(mean + sd * standard_normal(rand));
      break;
    case COST_EXPONENTIAL:
      c[i] = to_cost(-mean * log(open_uniform(rand)));
      break;
    case COST_GAMMA:
      c[i] = to_cost(mean / shape * standard_gamma(rand, shape));
      break;
    case COST_INCREASING:
      c[i] = to_cost(lo + (hi - lo) * t);
      break;
    case COST_DECREASING:
      c[i] = to_cost(hi - (hi - lo) * t);
      break;
    case COST_BIMODAL: {
      double m = g_rand_double(rand) < share ? mean2 : mean;
      c[i] = to_cost(m + sd * standard_normal(rand));
      break;
    }
    default:
      g_assert_not_reached();
    }
  }
}

static gboolean
loop_load(LbWork *work, const char *file, const char *dir, GError **error)
{
  const LbParams *w = work->params;
  Loop *loop = g_new0(Loop, 1);
  work->data = loop;
  work->dim = 1;
  work->size[1] = work->size[2] = 1;
  work->procs[0] = work->ranks;
  work->procs[1] = work->procs[2] = 1;
  work->bytes_per_unit = lb_params_get_double(w, "bytes-per-iteration");
  work->flops_per_unit = lb_params_get_double(w, "flops-per-unit");
  const char *cost = lb_params_get_string(w, "cost");
  for (guint i = 0; i < G_N_ELEMENTS(cost_names); i++)
    if (strcmp(cost, cost_names[i]) == 0)
      loop->kind = (CostKind)i;
  if (!check_keys(work, cost, file, error))
    return FALSE;
  if (loop->kind == COST_AQR &&
      !lb_aqr_check(w, (guint64)lb_params_get_int(w, "iterations"), file, error))
    return FALSE;
  gboolean bounded =
      loop->kind == COST_UNIFORM || loop->kind == COST_INCREASING || loop->kind == COST_DECREASING;
  if (bounded && lb_params_get_int(w, "cost-min") > lb_params_get_int(w, "cost-max"))
    return lb_workload_fail(error, file, "cost-min",
                            "%" G_GINT64_FORMAT " is larger than cost-max (%" G_GINT64_FORMAT ")",
                            lb_params_get_int(w, "cost-min"), lb_params_get_int(w, "cost-max"));
  if (loop->kind == COST_FILE) {
    if (!read_cost_file(work, loop, file, dir, error) ||
        !check_iterations(work, file, "cost-file", error))
      return FALSE;
  } else if (loop->kind == COST_FIELD) {
    if (!field_costs(work, loop, file, error))
      return FALSE;
  } else {
    work->cells = (guint64)lb_params_get_int(w, "iterations");
    if (!check_iterations(work, file, "iterations", error))
      return FALSE;
    draw_costs(work, loop);
  }
  work->size[0] = work->cells;
  double total = 0;
  for (guint64 i = 0; i < work->cells; i++)
    total += (double)loop->costs[i];
  if (total >= 0x1p62)
    return lb_workload_fail(error, file, "cost",
                            "the costs add up to %.3g, beyond the 2^62 that lbsim's 64-bit load "
                            "positions hold",
                            total);
  return TRUE;
}

/* STAT's blocks: consecutive iterations, the first N mod P ranks one more. */
static guint64
block_start(guint64 n, guint ranks, guint r)
{
  return r * (n / ranks) + MIN((guint64)r, n % ranks);
}

static void
loop_initial_units(const LbWork *work, guint rank, LbStart start, GArray *units)
{
  guint64 first = block_start(work->cells, work->ranks, rank);
  guint64 end = block_start(work->cells, work->ranks, rank + 1);
  g_array_set_size(units, (guint)(end - first));
  LbUnit *u = (LbUnit *)units->data;
  for (guint64 id = first; id < end; id++)
    u[id - first] = (LbUnit){id, 0};
}

static char *
loop_describe_start(const LbWork *work, LbStart start)
{
  return g_strdup("blocks of consecutive iterations (STAT)");
}

const guint64 *
lb_loop_costs(const LbWork *work, guint adaptation)
{
  if (work->model != &lb_loop_model)
    return NULL;
  Loop *loop = work->data;
  return loop->kind == COST_FIELD ? field_costs_at(work, loop, adaptation) : loop->costs;
}

static void
loop_update(const LbWork *work, guint rank, GArray *units, guint adaptation)
{
  const guint64 *costs = lb_loop_costs(work, adaptation);
  LbUnit *u = (LbUnit *)units->data;
  for (guint i = 0; i < units->len; i++)
    u[i].load = costs[u[i].id];
}

const LbModel lb_loop_model = {
    .name = "loop",
    .summary = "a parallel loop of N independent iterations whose costs come from a "
               "distribution, a file, a field's cells or an adaptive quadrature profile",
    .offers = LB_CAP_ORDER | LB_CAP_ITERATIONS,
    .params = loop_params,
    .patterns = TRUE,
    .order = "iteration",
    .load = loop_load,
    .free_data = loop_free,
    .initial_units = loop_initial_units,
    .describe_start = loop_describe_start,
    .update = loop_update,
};
