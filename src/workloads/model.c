/* The model registry, the [workload] keys every pattern model shares, and
 * what the core asks of any model. */
#include "lbsim/model.h"
#include "lbsim/plugin.h"

#include <errno.h>
#include <math.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

#include "io/input.h"
#include "workloads/models.h"

static const LbModel *const builtin[] = {
    &lb_array1d_model,
    &lb_field2d_model,
    &lb_field3d_model,
    &lb_samr_model,
    &lb_htree_model,
    &lb_loop_model,
    NULL,
};

/* The table above plus models registered at run time (tests, and
 * programs that link the library with models of their own), NULL-ended. */
static GPtrArray *registry;
/* Set once the key tables are made: their `model` choices are fixed. */
static gboolean tables_made;

static void
ensure_registry(void)
{
  if (registry != NULL)
    return;
  registry = g_ptr_array_new();
  for (guint i = 0; builtin[i] != NULL; i++)
    g_ptr_array_add(registry, (gpointer)builtin[i]);
  g_ptr_array_add(registry, NULL);
}

/* clang-format off */
G_DEFINE_QUARK(lb-plugin-error-quark, lb_plugin_error)
/* clang-format on */

/* registered entry (a model, a balancer) -> the plugin's file it came from */
static GHashTable *origins;

void
lb_registry_set_origin(gconstpointer entry, const char *origin)
{
  if (origin == NULL)
    return;
  if (origins == NULL)
    origins = g_hash_table_new_full(g_direct_hash, g_direct_equal, NULL, g_free);
  g_hash_table_insert(origins, (gpointer)entry, g_strdup(origin));
}

const char *
lb_registry_origin(gconstpointer entry)
{
  return origins != NULL ? g_hash_table_lookup(origins, entry) : NULL;
}

void
lb_model_register(const LbModel *model)
{
  gboolean registered = lb_model_register_from(model, NULL, NULL);
  g_assert(registered);
}

gboolean
lb_model_register_from(const LbModel *model, const char *origin, GError **error)
{
  ensure_registry();
  if (model->name == NULL || *model->name == '\0') {
    g_set_error_literal(error, LB_PLUGIN_ERROR, 0, "a model needs a name");
    return FALSE;
  }
  const LbModel *taken = lb_model_lookup(model->name);
  if (taken != NULL) {
    const char *from = lb_model_origin(taken);
    g_set_error(error, LB_PLUGIN_ERROR, 0, "a model named '%s' exists already (%s)", model->name,
                from != NULL ? from : "built in");
    return FALSE;
  }
  if (tables_made) {
    g_set_error(error, LB_PLUGIN_ERROR, 0,
                "model '%s' comes too late: scenarios have been read already (give a plugin "
                "that adds models with --plugin or $LBSIM_PLUGIN_PATH)",
                model->name);
    return FALSE;
  }
  registry->pdata[registry->len - 1] = (gpointer)model;
  g_ptr_array_add(registry, NULL);
  lb_registry_set_origin(model, origin);
  return TRUE;
}

const char *
lb_model_origin(const LbModel *model)
{
  return lb_registry_origin(model);
}

/* The `model` key, its choices every registered model. */
static LbParamSpec
model_key(void)
{
  static char *choices;
  if (choices == NULL) {
    GString *names = g_string_new(NULL);
    for (const LbModel *const *m = lb_models(); *m != NULL; m++)
      g_string_append_printf(names, "%s%s", names->len > 0 ? "|" : "", (*m)->name);
    choices = g_string_free(names, FALSE);
  }
  LbParamSpec key = {"model",
                     LB_PARAM_CHOICE,
                     "array1d",
                     0,
                     0,
                     choices,
                     "work model: a 1D load array, a 2D or 3D field of cells, a grid hierarchy, "
                     "an H-tree, or a parallel loop"};
  return key;
}

static const LbParamSpec pattern_params[] = {
    {"pattern", LB_PARAM_CHOICE, "random", 0, 0,
     "uniform|random|hotspots|ramp|step|shock|clusters|file", "how loads are generated"},
    {"value", LB_PARAM_INT, "1", 0, 1e15, NULL, "uniform: the load of every unit"},
    {"min", LB_PARAM_INT, "1", 0, 1e15, NULL, "random: smallest load"},
    {"max", LB_PARAM_INT, "100", 0, 1e15, NULL, "random: largest load"},
    {"hotspots", LB_PARAM_INT, "3", 1, 1000, NULL, "hotspots: number of gaussian hot spots"},
    {"width", LB_PARAM_DOUBLE, "0.02", 1e-9, 1, NULL,
     "hotspots, shock: standard deviation; clusters: radius when a cluster appears (fractions of "
     "the domain's side)"},
    {"amplitude", LB_PARAM_DOUBLE, "1000", 0, 1e15, NULL,
     "hotspots, shock, clusters: peak load added"},
    {"base", LB_PARAM_INT, "10", 0, 1e15, NULL, "hotspots, shock, clusters: background load"},
    {"drift", LB_PARAM_DOUBLE, "0.01", -1, 1, NULL,
     "hotspots, step, shock: fraction of the domain moved per adaptation step (hot spots: along "
     "each axis, in a seeded direction)"},
    {"from", LB_PARAM_INT, "1", 0, 1e15, NULL,
     "ramp: load of the first unit (along the first axis)"},
    {"to", LB_PARAM_INT, "100", 0, 1e15, NULL, "ramp: load of the last unit"},
    {"low", LB_PARAM_INT, "1", 0, 1e15, NULL, "step: load right of the edge"},
    {"high", LB_PARAM_INT, "10", 0, 1e15, NULL, "step: load left of the edge"},
    {"at", LB_PARAM_DOUBLE, "0.5", 0, 1, NULL,
     "step: position of the edge on the first axis; shock: position of the front along its "
     "normal (fractions)"},
    {"angle", LB_PARAM_DOUBLE, "30", -360, 360, NULL,
     "shock: direction of the front's normal in the x-y plane, degrees from the x axis"},
    {"elevation", LB_PARAM_DOUBLE, "0", -90, 90, NULL,
     "shock: angle of the front's normal out of the x-y plane (3D), degrees"},
    {"centre", LB_PARAM_STRING, NULL, 0, 0, NULL,
     "hotspots, clusters: X,Y[,Z] in [0,1): the first spot's or cluster's centre at step 0, and a "
     "placed hot spot has the full amplitude (the others stay as the seed makes them)"},
    {"clusters", LB_PARAM_INT, "4", 1, 1000, NULL, "clusters: number of clusters"},
    {"growth", LB_PARAM_DOUBLE, "0.01", 0, 1, NULL,
     "clusters: radius added per adaptation step after a cluster appears"},
    {"interval", LB_PARAM_INT, "2", 0, 100000, NULL,
     "clusters: adaptation steps between two appearances (cluster k appears at step k x interval)"},
    {"file", LB_PARAM_STRING, NULL, 0, 0, NULL,
     "file: whitespace-separated loads in the model's linear order, relative to the scenario"},
    {NULL},
};

static const struct {
  const char *key;
  const char *patterns;
} pattern_keys[] = {
    {"value", "uniform"},
    {"min", "random"},
    {"max", "random"},
    {"hotspots", "hotspots"},
    {"width", "hotspots|shock|clusters"},
    {"amplitude", "hotspots|shock|clusters"},
    {"base", "hotspots|shock|clusters"},
    {"drift", "hotspots|step|shock"},
    {"from", "ramp"},
    {"to", "ramp"},
    {"low", "step"},
    {"high", "step"},
    {"at", "step|shock"},
    {"angle", "shock"},
    {"elevation", "shock"},
    {"centre", "hotspots|clusters"},
    {"clusters", "clusters"},
    {"growth", "clusters"},
    {"interval", "clusters"},
    {"file", "file"},
};

gboolean
lb_pattern_key_applies(const char *key, const char *pattern, gboolean *is_pattern_key)
{
  for (guint i = 0; i < G_N_ELEMENTS(pattern_keys); i++) {
    if (strcmp(pattern_keys[i].key, key) != 0)
      continue;
    *is_pattern_key = TRUE;
    g_auto(GStrv) allowed = g_strsplit(pattern_keys[i].patterns, "|", -1);
    return g_strv_contains((const char *const *)allowed, pattern);
  }
  *is_pattern_key = FALSE;
  return TRUE;
}

const char *
lb_pattern_key_patterns(const char *key)
{
  for (guint i = 0; i < G_N_ELEMENTS(pattern_keys); i++)
    if (strcmp(pattern_keys[i].key, key) == 0)
      return pattern_keys[i].patterns;
  return NULL;
}

char *
lb_capabilities_describe(guint caps)
{
  static const struct {
    guint cap;
    const char *text;
  } names[] = {
      {LB_CAP_CELLS, "cells"},
      {LB_CAP_ORDER, "a total order"},
      {LB_CAP_BOXES, "a 2D or 3D grid of cells to cut into boxes"},
      {LB_CAP_GRIDS, "a hierarchy of grids"},
      {LB_CAP_TREE, "an H-tree"},
      {LB_CAP_ITERATIONS, "independent iterations"},
  };
  GString *out = g_string_new(NULL);
  guint left = (guint)__builtin_popcount(caps);
  for (guint i = 0; i < G_N_ELEMENTS(names); i++)
    if (caps & names[i].cap) {
      left--;
      g_string_append_printf(out, "%s%s",
                             out->len == 0 ? ""
                             : left == 0   ? " and "
                                           : ", ",
                             names[i].text);
    }
  if (out->len == 0)
    g_string_append(out, "nothing");
  return g_string_free(out, FALSE);
}

const LbModel *const *
lb_models(void)
{
  ensure_registry();
  return (const LbModel *const *)registry->pdata;
}

const LbModel *
lb_model_lookup(const char *name)
{
  for (const LbModel *const *m = lb_models(); *m != NULL; m++)
    if (g_strcmp0((*m)->name, name) == 0)
      return *m;
  return NULL;
}

static void
append_rows(GArray *rows, const LbParamSpec *spec)
{
  for (; spec->name != NULL; spec++)
    g_array_append_val(rows, *spec);
}

const LbParamSpec *
lb_model_param_spec(const LbModel *model)
{
  static GHashTable *tables;
  static GMutex lock;
  g_mutex_lock(&lock);
  if (tables == NULL)
    tables = g_hash_table_new(g_direct_hash, g_direct_equal);
  GArray *rows = g_hash_table_lookup(tables, model);
  if (rows == NULL) {
    rows = g_array_new(TRUE, TRUE, sizeof(LbParamSpec));
    tables_made = TRUE;
    LbParamSpec key = model_key();
    g_array_append_val(rows, key);
    append_rows(rows, model->params);
    if (model->patterns)
      append_rows(rows, pattern_params);
    g_hash_table_insert(tables, (gpointer)model, rows);
  }
  g_mutex_unlock(&lock);
  return (const LbParamSpec *)rows->data;
}

static const char *const pattern_names[] = {
    [LB_PATTERN_UNIFORM] = "uniform",   [LB_PATTERN_RANDOM] = "random",
    [LB_PATTERN_HOTSPOTS] = "hotspots", [LB_PATTERN_RAMP] = "ramp",
    [LB_PATTERN_STEP] = "step",         [LB_PATTERN_FILE] = "file",
    [LB_PATTERN_SHOCK] = "shock",       [LB_PATTERN_CLUSTERS] = "clusters",
};

/* centre = X,Y[,Z]: one fraction in [0, 1) per axis of the model. */
static gboolean
read_centre(LbPattern *p, const char *text, guint dim, const char *file, GError **error)
{
  g_auto(GStrv) parts = g_strsplit(text, ",", -1);
  if (g_strv_length(parts) != dim)
    return lb_workload_fail(error, file, "centre", "'%s': %u values, one per axis (%u)", text,
                            g_strv_length(parts), dim);
  for (guint a = 0; a < dim; a++) {
    double v = 0;
    if (!lb_parse_decimal(parts[a], &v) || v < 0 || v >= 1)
      return lb_workload_fail(error, file, "centre", "'%s': '%s' is not a fraction in [0, 1)", text,
                              g_strstrip(parts[a]));
    p->centre[a] = v;
  }
  p->has_centre = TRUE;
  return TRUE;
}

static void
read_pattern(LbPattern *p, const LbParams *w, guint64 seed)
{
  const char *name = lb_params_get_string(w, "pattern");
  for (guint i = 0; i < G_N_ELEMENTS(pattern_names); i++)
    if (strcmp(name, pattern_names[i]) == 0)
      p->kind = (LbPatternKind)i;
  p->seed = seed;
  p->value = (guint64)lb_params_get_int(w, "value");
  p->min = (guint64)lb_params_get_int(w, "min");
  p->max = (guint64)lb_params_get_int(w, "max");
  p->hotspots = (guint)lb_params_get_int(w, "hotspots");
  p->width = lb_params_get_double(w, "width");
  p->amplitude = lb_params_get_double(w, "amplitude");
  p->base = (guint64)lb_params_get_int(w, "base");
  p->drift = lb_params_get_double(w, "drift");
  p->from = (guint64)lb_params_get_int(w, "from");
  p->to = (guint64)lb_params_get_int(w, "to");
  p->low = (guint64)lb_params_get_int(w, "low");
  p->high = (guint64)lb_params_get_int(w, "high");
  p->at = lb_params_get_double(w, "at");
  p->angle = lb_params_get_double(w, "angle");
  p->elevation = lb_params_get_double(w, "elevation");
  p->clusters = (guint)lb_params_get_int(w, "clusters");
  p->growth = lb_params_get_double(w, "growth");
  p->interval = (guint)lb_params_get_int(w, "interval");
}

double
lb_pattern_max_load(const LbPattern *p)
{
  switch (p->kind) {
  case LB_PATTERN_UNIFORM:
    return (double)p->value;
  case LB_PATTERN_RANDOM:
    return (double)p->max;
  case LB_PATTERN_HOTSPOTS:
    return (double)p->base + p->amplitude * p->hotspots + 1;
  case LB_PATTERN_RAMP:
    return (double)MAX(p->from, p->to);
  case LB_PATTERN_STEP:
    return (double)MAX(p->low, p->high);
  case LB_PATTERN_SHOCK:
    return (double)p->base + p->amplitude + 1;
  case LB_PATTERN_CLUSTERS:
    return (double)p->base + p->amplitude * p->clusters + 1;
  case LB_PATTERN_FILE: {
    guint64 m = 0;
    for (guint64 i = 0; i < p->file_len; i++)
      m = MAX(m, p->file_loads[i]);
    return (double)m;
  }
  }
  g_assert_not_reached();
}

gboolean
lb_workload_fail(GError **error, const char *file, const char *key, const char *format, ...)
{
  va_list args;
  va_start(args, format);
  g_autofree char *text = g_strdup_vprintf(format, args);
  va_end(args);
  g_set_error(error, LB_PARAM_ERROR, LB_PARAM_ERROR_INVALID, "%s: [workload] %s: %s", file, key,
              text);
  return FALSE;
}

guint64
lb_boxes_shared_faces(const gint64 *alo, const gint64 *ahi, const gint64 *blo, const gint64 *bhi,
                      guint dim)
{
  guint64 faces = 1;
  guint touching = 0;
  for (guint i = 0; i < dim; i++) {
    if (ahi[i] == blo[i] || bhi[i] == alo[i]) {
      touching++;
      continue;
    }
    gint64 lo = MAX(alo[i], blo[i]), hi = MIN(ahi[i], bhi[i]);
    if (hi <= lo)
      return 0;
    faces *= (guint64)(hi - lo);
  }
  return touching == 1 ? faces : 0;
}

/* A limit in bytes from a cgroup's file, or 0 when it says none. */
static double
cgroup_limit(const char *path)
{
  g_autofree char *text = NULL;
  if (!lb_input_read_prefix(path, 64, &text, NULL))
    return 0;
  char *end = NULL;
  guint64 v = g_ascii_strtoull(text, &end, 10);
  /* "max", or cgroup v1's page-rounded 2^63 */
  return end == text || v >= (guint64)1 << 62 ? 0 : (double)v;
}

double
lb_machine_memory(void)
{
  double have = (double)sysconf(_SC_PHYS_PAGES) * (double)sysconf(_SC_PAGESIZE);
  static const int limits[] = {RLIMIT_AS, RLIMIT_DATA};
  for (guint i = 0; i < G_N_ELEMENTS(limits); i++) {
    struct rlimit rl;
    if (getrlimit(limits[i], &rl) == 0 && rl.rlim_cur != RLIM_INFINITY)
      have = have > 0 ? MIN(have, (double)rl.rlim_cur) : (double)rl.rlim_cur;
  }
  static const char *const cgroups[] = {"/sys/fs/cgroup/memory.max",
                                        "/sys/fs/cgroup/memory/memory.limit_in_bytes"};
  for (guint i = 0; i < G_N_ELEMENTS(cgroups); i++) {
    double limit = cgroup_limit(cgroups[i]);
    if (limit > 0)
      have = have > 0 ? MIN(have, limit) : limit;
  }
  return MAX(have, 0);
}

char *
lb_gib_text(double bytes)
{
  double gib = bytes / 0x1p30;
  return gib < 1e4 ? g_strdup_printf("%.1f GiB", gib) : g_strdup_printf("%.3g GiB", gib);
}

gboolean
lb_work_check_memory(LbWork *work, double need, const char *file, const char *key, const char *what,
                     GError **error)
{
  work->memory = MAX(work->memory, need);
  double have = lb_machine_memory();
  if (have > 0 && need > have) {
    g_autofree char *needs = lb_gib_text(need), *has = lb_gib_text(have);
    return lb_workload_fail(error, file, key, "%s about %s, more than this machine's %s", what,
                            needs, has);
  }
  return TRUE;
}

const LbPreset *
lb_model_preset(const LbModel *model, const char *name)
{
  for (const LbPreset *p = model->presets; p != NULL && p->name != NULL && name != NULL; p++)
    if (strcmp(p->name, name) == 0)
      return p;
  return NULL;
}

LbWork *
lb_work_new(const LbModel *model, LbParams *params, guint64 seed, guint ranks, guint steps,
            const char *file, const char *dir, GError **error)
{
  g_autoptr(LbWork) work = g_new0(LbWork, 1);
  work->model = model;
  work->params = params;
  work->seed = seed;
  work->ranks = ranks;
  work->steps = steps;
  if (model->patterns)
    read_pattern(&work->pattern, params, seed);
  if (!model->load(work, file, dir, error))
    return NULL;
  if (model->patterns && lb_params_is_set(params, "centre") &&
      !read_centre(&work->pattern, lb_params_get_string(params, "centre"), work->dim, file, error))
    return NULL;
  if (model->patterns && work->pattern.kind == LB_PATTERN_RANDOM &&
      work->pattern.min > work->pattern.max) {
    lb_workload_fail(error, file, "min",
                     "min (%" G_GUINT64_FORMAT ") is larger than max (%" G_GUINT64_FORMAT ")",
                     work->pattern.min, work->pattern.max);
    return NULL;
  }
  /* a model whose units are not its cells made its own estimate; a
   * pattern file's loads stay in lbsim's process, shared by the runs' */
  if (work->memory == 0) {
    g_autofree char *what = g_strdup_printf("%" G_GUINT64_FORMAT " units need", work->cells);
    double need = (double)work->cells * LB_UNIT_BYTES + (double)work->pattern.file_len * 8;
    if (!lb_work_check_memory(work, need, file, "size", what, error))
      return NULL;
  }
  if (model->patterns) {
    double bound = (double)work->cells * lb_pattern_max_load(&work->pattern);
    if (bound >= 0x1p62) {
      lb_workload_fail(
          error, file, "size",
          "the total load may reach %.3g, beyond the 2^62 that lbsim's 64-bit load positions "
          "hold; use fewer units or smaller loads",
          bound);
      return NULL;
    }
  }
  return g_steal_pointer(&work);
}

void
lb_work_free(LbWork *work)
{
  if (work == NULL)
    return;
  if (work->model != NULL && work->model->free_data != NULL && work->data != NULL)
    work->model->free_data(work->data);
  lb_pattern_clear(&work->pattern);
  lb_pattern_at_free(work->pattern_at);
  lb_params_free(work->params);
  g_free(work);
}

void
lb_work_initial_units(const LbWork *work, guint rank, LbStart start, GArray *units)
{
  g_array_set_size(units, 0);
  work->model->initial_units(work, rank, start, units);
}

char *
lb_work_describe_start(const LbWork *work, LbStart start)
{
  return work->model->describe_start(work, start);
}

/* Loads from the pattern at each unit's cell. The pattern's per-step data
 * is a pure function of (pattern, step): it is made once per step and
 * shared by the ranks instead of once per rank. */
static void
pattern_update(const LbWork *work, GArray *units, guint adaptation)
{
  LbWork *mutable = (LbWork *)work;
  if (work->pattern_at == NULL || work->pattern_at_adaptation != adaptation) {
    lb_pattern_at_free(mutable->pattern_at);
    mutable->pattern_at = lb_pattern_at_new(&work->pattern, work->dim, adaptation);
    mutable->pattern_at_adaptation = adaptation;
    lb_pattern_at_prepare(mutable->pattern_at, &work->pattern, work->size);
  }
  lb_pattern_load_units(&work->pattern, work->pattern_at, work->dim, work->size,
                        (LbUnit *)units->data, units->len);
}

void
lb_work_update(const LbWork *work, guint rank, GArray *units, guint adaptation)
{
  if (work->model->update != NULL)
    work->model->update(work, rank, units, adaptation);
  else
    pattern_update(work, units, adaptation);
}

guint64
lb_work_total_units(const LbWork *work)
{
  return work->model->total_units != NULL ? work->model->total_units(work) : work->cells;
}

void
lb_work_conserve(const LbWork *work, const LbUnit *units, gsize n, LbConserved *into)
{
  if (work->model->conserve != NULL) {
    work->model->conserve(work, units, n, into);
    return;
  }
  for (gsize i = 0; i < n; i++)
    lb_conserve_unit(into, units + i);
}

gboolean
lb_work_conserves_units(const LbWork *work)
{
  return work->model->conserve == NULL;
}

double
lb_work_bytes(const LbWork *work, const LbUnit *units, gsize n)
{
  if (work->model->bytes != NULL)
    return work->model->bytes(work, units, n);
  return (double)n * work->bytes_per_unit;
}

double
lb_work_flops(const LbWork *work, guint64 load)
{
  return (double)load * work->flops_per_unit;
}

gboolean
lb_work_has_ghosts(const LbWork *work)
{
  return work->model->app_step != NULL ||
         ((work->model->boundary != NULL || work->model->neighbours != NULL) &&
          work->ghost_depth > 0);
}

guint
lb_text_nul_line(const char *text, gsize length)
{
  const char *nul = memchr(text, '\0', length);
  if (nul == NULL)
    return 0;
  guint line = 1;
  for (const char *c = text; c < nul; c++)
    line += *c == '\n';
  return line;
}

gboolean
lb_read_integers(const char *path, GArray **values, GError **error)
{
  g_autofree char *text = NULL;
  gsize length = 0;
  if (!lb_input_read(path, LB_INPUT_LOADS, &text, &length, error))
    return FALSE;
  guint nul = lb_text_nul_line(text, length);
  if (nul != 0) {
    g_set_error(error, G_FILE_ERROR, G_FILE_ERROR_INVAL,
                "%s:%u: a NUL byte (expected whitespace-separated integers)", path, nul);
    return FALSE;
  }
  g_autoptr(GArray) out = g_array_new(FALSE, FALSE, sizeof(guint64));
  const char *p = text;
  guint line = 1;
  for (;;) {
    while (g_ascii_isspace(*p)) {
      if (*p == '\n')
        line++;
      p++;
    }
    if (*p == '\0')
      break;
    char *end = NULL;
    errno = 0;
    guint64 v = g_ascii_strtoull(p, &end, 10);
    if (end == p || errno != 0 || (*end != '\0' && !g_ascii_isspace(*end)) || *p == '-') {
      g_set_error(error, G_FILE_ERROR, G_FILE_ERROR_INVAL, "%s:%u: expected a non-negative integer",
                  path, line);
      return FALSE;
    }
    g_array_append_val(out, v);
    p = end;
  }
  *values = g_steal_pointer(&out);
  return TRUE;
}
