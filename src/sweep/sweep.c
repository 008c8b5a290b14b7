/* Sweeps: the axes and their values, the points and their runs, the
 * definition as written in the state folder, and the documents built from
 * the runs' results. */
#include "sweep/sweep.h"

#include <math.h>
#include <string.h>

#include "runner/preflight.h"
#include "runner/runner.h"
#include "io/input.h"
#include "lbsim/plugin.h"
#include "report/report.h"

/* the quark's name is the macro's text, spaces and all */
/* clang-format off */
G_DEFINE_QUARK(lb-sweep-error-quark, lb_sweep_error)
/* clang-format on */

#define FORMAT 1
#define MAX_VALUES 100000
#define MAX_RUNS 1000000
#define MAX_DIGITS 18
#define ID_CHARS 16

gboolean
lb_sweep_fail(GError **error, LbSweepError code, const char *format, ...)
{
  va_list args;
  va_start(args, format);
  g_autofree char *text = g_strdup_vprintf(format, args);
  va_end(args);
  g_set_error_literal(error, LB_SWEEP_ERROR, code, text);
  return FALSE;
}

static void
run_free(gpointer p)
{
  LbSweepRun *r = p;
  g_free(r->balancer);
  g_free(r->id);
  lb_job_free(r->job);
  g_free(r->platform);
  g_free(r);
}

void
lb_sweep_free(LbSweep *sw)
{
  if (sw == NULL)
    return;
  g_free(sw->scenario);
  g_free(sw->name);
  g_free(sw->platform);
  g_strfreev(sw->sets);
  if (sw->axes != NULL)
    g_ptr_array_unref(sw->axes);
  if (sw->runs != NULL)
    g_ptr_array_unref(sw->runs);
  g_free(sw->definition);
  g_free(sw->id);
  g_free(sw);
}

/* ---- values ---- */

static gint64
power10(guint n)
{
  gint64 p = 1;
  while (n-- > 0)
    p *= 10;
  return p;
}

/* [-+]DIGITS[.DIGITS] (or .DIGITS): units of 10^-scale; *digits counts
 * them (beyond MAX_DIGITS, units is meaningless). */
static gboolean
decimal_parse(const char *text, gint64 *units, guint *scale, guint *digits)
{
  const char *c = text;
  gboolean negative = *c == '-', point = FALSE;
  if (*c == '-' || *c == '+')
    c++;
  gint64 v = 0;
  guint n = 0, s = 0;
  for (; *c != '\0'; c++) {
    if (*c == '.' && !point) {
      point = TRUE;
      continue;
    }
    if (!g_ascii_isdigit(*c))
      return FALSE;
    if (++n <= MAX_DIGITS)
      v = v * 10 + (*c - '0');
    s += point;
  }
  *units = negative ? -v : v;
  *scale = s;
  *digits = n;
  return n > 0;
}

static char *
decimal_text(gint64 units, guint scale)
{
  guint64 a = units < 0 ? -(guint64)units : (guint64)units;
  const char *sign = units < 0 ? "-" : "";
  if (scale == 0)
    return g_strdup_printf("%s%" G_GUINT64_FORMAT, sign, a);
  guint64 p = (guint64)power10(scale);
  return g_strdup_printf("%s%" G_GUINT64_FORMAT ".%0*" G_GUINT64_FORMAT, sign, a / p, (int)scale,
                         a % p);
}

/* START:END:STEP when all three are decimal numbers (*range TRUE): its
 * values, counted in integers so that no step is rounded. */
static gboolean
add_range(GPtrArray *values, const char *item, gboolean *range, GError **error)
{
  g_auto(GStrv) parts = g_strsplit(item, ":", -1);
  gint64 v[3];
  guint scale[3], digits[3], p = 0;
  *range = FALSE;
  if (g_strv_length(parts) != 3)
    return TRUE;
  for (guint i = 0; i < 3; i++) {
    if (!decimal_parse(g_strstrip(parts[i]), &v[i], &scale[i], &digits[i]))
      return TRUE;
    p = MAX(p, scale[i]);
  }
  *range = TRUE;
  const gint64 limit = power10(MAX_DIGITS);
  for (guint i = 0; i < 3; i++) {
    gint64 f = p - scale[i] <= MAX_DIGITS ? power10(p - scale[i]) : limit;
    if (digits[i] > MAX_DIGITS || p > MAX_DIGITS || v[i] >= limit / f || v[i] <= -limit / f)
      return lb_sweep_fail(error, LB_SWEEP_ERROR_INPUT, "range %s: more than %d digits", item,
                           MAX_DIGITS);
    v[i] *= f;
  }
  if (v[2] == 0)
    return lb_sweep_fail(error, LB_SWEEP_ERROR_INPUT, "range %s: the step is 0", item);
  gint64 span = v[1] - v[0];
  if (span != 0 && (span > 0) != (v[2] > 0))
    return lb_sweep_fail(error, LB_SWEEP_ERROR_INPUT,
                         "range %s: a step of %s never goes from %s to %s", item, parts[2],
                         parts[0], parts[1]);
  gint64 count = span / v[2] + 1;
  if (count + values->len > MAX_VALUES)
    return lb_sweep_fail(error, LB_SWEEP_ERROR_INPUT, "range %s: more than %d values", item,
                         MAX_VALUES);
  for (gint64 i = 0; i < count; i++)
    g_ptr_array_add(values, decimal_text(v[0] + i * v[2], p));
  return TRUE;
}

GPtrArray *
lb_sweep_values_parse(const char *text, GError **error)
{
  g_autoptr(GPtrArray) values = g_ptr_array_new_null_terminated(0, g_free, TRUE);
  g_auto(GStrv) items = g_strsplit(text, ",", -1);
  if (items[0] == NULL) {
    lb_sweep_fail(error, LB_SWEEP_ERROR_INPUT, "no values");
    return NULL;
  }
  for (guint i = 0; items[i] != NULL; i++) {
    g_autofree char *item = g_strstrip(g_strdup(items[i]));
    gboolean range = FALSE;
    if (*item == '\0') {
      lb_sweep_fail(error, LB_SWEEP_ERROR_INPUT, "an empty value in '%s'", text);
      return NULL;
    }
    if (!add_range(values, item, &range, error))
      return NULL;
    if (!range)
      g_ptr_array_add(values, g_steal_pointer(&item));
    if (values->len > MAX_VALUES) {
      lb_sweep_fail(error, LB_SWEEP_ERROR_INPUT, "more than %d values", MAX_VALUES);
      return NULL;
    }
  }
  g_autoptr(GHashTable) seen = g_hash_table_new(g_str_hash, g_str_equal);
  for (guint i = 0; i < values->len; i++) {
    if (!g_hash_table_add(seen, values->pdata[i])) {
      lb_sweep_fail(error, LB_SWEEP_ERROR_INPUT, "%s comes twice", (char *)values->pdata[i]);
      return NULL;
    }
  }
  return g_steal_pointer(&values);
}

/* ---- axes and points ---- */

static gboolean
is_balancer_axis(const LbSweepAxis *a)
{
  return strcmp(a->name, "balancer") == 0;
}

static const LbSweepAxis *
axis(const LbSweep *sw, guint i)
{
  return sw->axes->pdata[i];
}

static const LbSweepRun *
run_at(const LbSweep *sw, guint i)
{
  return sw->runs->pdata[i];
}

/* The scenario key an axis sets, for conflicts: ranks is scenario.ranks. */
static const char *
axis_key(const char *name)
{
  static const char *const short_names[][2] = {{"ranks", "scenario.ranks"},
                                               {"platform", "scenario.platform"},
                                               {"seed", "scenario.seed"},
                                               {"steps", "scenario.steps"}};
  for (guint i = 0; i < G_N_ELEMENTS(short_names); i++)
    if (strcmp(name, short_names[i][0]) == 0)
      return short_names[i][1];
  return name;
}

#define NAME_CHARS "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_"

static gboolean
known_axis(const char *name)
{
  static const char *const names[] = {"ranks", "platform", "seed", "steps", "balancer"};
  for (guint i = 0; i < G_N_ELEMENTS(names); i++)
    if (strcmp(name, names[i]) == 0)
      return TRUE;
  gsize group = strspn(name, NAME_CHARS ":");
  return group > 0 && name[group] == '.' && name[group + 1] != '\0' &&
         name[group + 1 + strspn(name + group + 1, NAME_CHARS ".:")] == '\0';
}

const char *
lb_sweep_value(const LbSweep *sw, guint point, guint a)
{
  g_return_val_if_fail(!is_balancer_axis(axis(sw, a)), NULL);
  guint stride = 1;
  for (guint i = a + 1; i < sw->axes->len; i++)
    if (!is_balancer_axis(axis(sw, i)))
      stride *= axis(sw, i)->values->len;
  const GPtrArray *values = axis(sw, a)->values;
  return values->pdata[(point / stride) % values->len];
}

static char *
point_text(const LbSweep *sw, guint point)
{
  GString *out = g_string_new(NULL);
  for (guint a = 0; a < sw->axes->len; a++)
    if (!is_balancer_axis(axis(sw, a)))
      g_string_append_printf(out, "%s%s=%s", out->len ? " " : "", axis(sw, a)->name,
                             lb_sweep_value(sw, point, a));
  return g_string_free(out, FALSE);
}

char *
lb_sweep_describe(const LbSweep *sw, const LbSweepRun *run)
{
  g_autofree char *point = point_text(sw, run->point);
  return g_strdup_printf("%s%sbalancer=%s", point, *point ? " " : "", run->balancer);
}

/* The --platform pattern with {NAME} replaced by the point's value of
 * NAME; with point G_MAXUINT, only checked. */
static char *
expand_platform(const LbSweep *sw, guint point, GError **error)
{
  GString *out = g_string_new(NULL);
  for (const char *c = sw->platform; *c != '\0'; c++) {
    if (*c != '{') {
      g_string_append_c(out, *c);
      continue;
    }
    const char *end = strchr(c, '}');
    g_autofree char *name = end != NULL ? g_strndup(c + 1, end - c - 1) : NULL;
    guint a = 0;
    while (name != NULL && a < sw->axes->len &&
           (strcmp(axis(sw, a)->name, name) != 0 || is_balancer_axis(axis(sw, a))))
      a++;
    if (name == NULL || a == sw->axes->len) {
      lb_sweep_fail(error, LB_SWEEP_ERROR_INPUT,
                    "--platform %s: {%s} is not a varied key (a --vary NAME other than balancer)",
                    sw->platform, name != NULL ? name : c + 1);
      g_string_free(out, TRUE);
      return NULL;
    }
    if (point != G_MAXUINT)
      g_string_append(out, lb_sweep_value(sw, point, a));
    c = end;
  }
  return g_string_free(out, FALSE);
}

/* The overrides of a point: the fixed sets, then the varied keys. */
typedef struct {
  gint ranks;
  char *platform;
  GPtrArray *sets; /* NULL-terminated, sorted: a job's written form is canonical */
} PointOverrides;

static void
point_overrides_clear(PointOverrides *o)
{
  g_free(o->platform);
  if (o->sets != NULL)
    g_ptr_array_unref(o->sets);
}

G_DEFINE_AUTO_CLEANUP_CLEAR_FUNC(PointOverrides, point_overrides_clear)

static int
compare_text(gconstpointer a, gconstpointer b)
{
  return strcmp(*(char *const *)a, *(char *const *)b);
}

static void
point_overrides(const LbSweep *sw, guint point, PointOverrides *o)
{
  o->sets = g_ptr_array_new_with_free_func(g_free);
  for (guint i = 0; sw->sets != NULL && sw->sets[i] != NULL; i++)
    g_ptr_array_add(o->sets, g_strdup(sw->sets[i]));
  if (sw->platform != NULL)
    o->platform = expand_platform(sw, point, NULL);
  for (guint a = 0; a < sw->axes->len; a++) {
    const char *name = axis(sw, a)->name;
    if (is_balancer_axis(axis(sw, a)))
      continue;
    const char *value = lb_sweep_value(sw, point, a);
    if (strcmp(name, "ranks") == 0)
      o->ranks = (gint)g_ascii_strtoll(value, NULL, 10);
    else if (strcmp(name, "platform") == 0)
      o->platform = g_strdup(value);
    else
      g_ptr_array_add(o->sets, g_strdup_printf("%s=%s", axis_key(name), value));
  }
  g_ptr_array_sort(o->sets, compare_text);
  g_ptr_array_add(o->sets, NULL);
}

/* ---- building a sweep ---- */

static gboolean
add_axis(LbSweep *sw, const char *spec, GError **error)
{
  const char *eq = strchr(spec, '=');
  if (eq == NULL)
    return lb_sweep_fail(error, LB_SWEEP_ERROR_INPUT, "--vary %s: expected NAME=LIST", spec);
  g_autofree char *name = g_strstrip(g_strndup(spec, eq - spec));
  if (!known_axis(name))
    return lb_sweep_fail(error, LB_SWEEP_ERROR_INPUT,
                         "--vary %s: unknown name '%s' (ranks, platform, seed, steps, balancer or "
                         "GROUP.KEY such as workload.size)",
                         spec, name);
  for (guint a = 0; a < sw->axes->len; a++)
    if (strcmp(axis_key(axis(sw, a)->name), axis_key(name)) == 0)
      return lb_sweep_fail(error, LB_SWEEP_ERROR_INPUT, "--vary %s: %s is varied twice", spec,
                           name);
  for (guint i = 0; sw->sets != NULL && sw->sets[i] != NULL; i++) {
    g_autofree char *key = g_strstrip(g_strndup(sw->sets[i], strcspn(sw->sets[i], "=")));
    if (strcmp(key, axis_key(name)) == 0)
      return lb_sweep_fail(error, LB_SWEEP_ERROR_INPUT, "--vary %s and --set %s: give %s once",
                           spec, sw->sets[i], name);
  }
  if (strcmp(name, "platform") == 0 && sw->platform != NULL)
    return lb_sweep_fail(error, LB_SWEEP_ERROR_INPUT, "--vary %s and --platform %s: give one", spec,
                         sw->platform);
  g_autoptr(GError) local = NULL;
  g_autoptr(GPtrArray) values = lb_sweep_values_parse(eq + 1, &local);
  if (values == NULL)
    return lb_sweep_fail(error, LB_SWEEP_ERROR_INPUT, "--vary %s: %s", spec, local->message);
  for (guint i = 0; i < values->len; i++) {
    guint count = 0;
    if (strcmp(name, "ranks") == 0 &&
        !lb_runner_parse_count("ranks", values->pdata[i], &count, &local))
      return lb_sweep_fail(error, LB_SWEEP_ERROR_INPUT, "--vary %s: %s", spec, local->message);
    if (strcmp(name, "balancer") == 0 && lb_balancer_of_label(values->pdata[i]) == NULL)
      return lb_sweep_fail(error, LB_SWEEP_ERROR_INPUT,
                           "--vary %s: unknown balancer '%s' (lbsim list shows them)", spec,
                           (char *)values->pdata[i]);
  }
  LbSweepAxis *a = g_new0(LbSweepAxis, 1);
  a->name = g_steal_pointer(&name);
  a->values = g_steal_pointer(&values);
  g_ptr_array_add(sw->axes, a);
  return TRUE;
}

static char *
digest(const char *text)
{
  g_autofree char *hex = g_compute_checksum_for_string(G_CHECKSUM_SHA256, text, -1);
  return g_strndup(hex, ID_CHARS);
}

/* Whether an override GROUP.KEY=VALUE can change the run of label: all
 * do but the keys of another balancer's group (a balancer reads its
 * name's group and its label's). */
static gboolean
set_reaches(const char *set, const char *label)
{
  g_autofree char *group = g_strndup(set, strcspn(set, "."));
  if (lb_balancer_of_label(group) == NULL)
    return TRUE;
  gsize name_len = strcspn(label, ":");
  return strcmp(group, label) == 0 ||
         (strlen(group) == name_len && strncmp(group, label, name_len) == 0);
}

static gboolean
add_run(LbSweep *sw, guint point, const PointOverrides *o, const LbScenario *sc, const char *label,
        const char *scenario_digest)
{
  /* the job holds only the overrides its balancer can see: equal jobs of
   * two points are one run */
  g_autoptr(GPtrArray) sets = g_ptr_array_new();
  for (guint i = 0; i + 1 < o->sets->len; i++)
    if (set_reaches(o->sets->pdata[i], label))
      g_ptr_array_add(sets, o->sets->pdata[i]);
  g_ptr_array_add(sets, NULL);
  LbScenarioOverrides ov = {o->ranks, o->platform != NULL ? sc->platform : NULL, NULL,
                            (const char *const *)sets->pdata};
  LbSweepRun *run = g_new0(LbSweepRun, 1);
  run->point = point;
  run->balancer = g_strdup(label);
  run->job = lb_job_new(sw->scenario, &ov, label);
  run->platform = g_strdup(sc->platform);
  g_autofree char *data = lb_job_to_data(run->job);
  g_autofree char *keyed = g_strdup_printf("%sscenario-sha256=%s\n", data, scenario_digest);
  run->id = digest(keyed);
  g_ptr_array_add(sw->runs, run);
  return sw->runs->len <= MAX_RUNS;
}

/* Each run's first (the first run with its id) and next (the one after it
 * with that id): the runs sharing one result, in order. */
static void
link_runs(LbSweep *sw)
{
  g_autoptr(GHashTable) last = g_hash_table_new(g_str_hash, g_str_equal);
  for (guint i = 0; i < sw->runs->len; i++) {
    LbSweepRun *run = sw->runs->pdata[i];
    gpointer at = NULL;
    run->first = i;
    run->next = 0;
    if (g_hash_table_lookup_extended(last, run->id, NULL, &at)) {
      LbSweepRun *before = sw->runs->pdata[GPOINTER_TO_UINT(at)];
      run->first = before->first;
      before->next = i;
    }
    g_hash_table_insert(last, run->id, GUINT_TO_POINTER(i));
  }
}

guint
lb_sweep_distinct(const LbSweep *sw)
{
  guint n = 0;
  for (guint i = 0; i < sw->runs->len; i++)
    n += ((const LbSweepRun *)sw->runs->pdata[i])->first == i;
  return n;
}

/* Every point's scenario, loaded as its runs will load it: bad input is
 * found before anything runs, and names the point. */
static gboolean
add_point(LbSweep *sw, guint point, char **scenario_digest, GError **error)
{
  g_auto(PointOverrides) o = {0};
  point_overrides(sw, point, &o);
  LbScenarioOverrides ov = {o.ranks, o.platform, NULL, (const char *const *)o.sets->pdata};
  const LbSweepAxis *balancers = NULL;
  for (guint a = 0; a < sw->axes->len; a++)
    if (is_balancer_axis(axis(sw, a)))
      balancers = axis(sw, a);
  guint loads = balancers != NULL ? balancers->values->len : 1;
  g_autofree char *where = point_text(sw, point);
  for (guint l = 0; l < loads; l++) {
    ov.balancer = balancers != NULL ? balancers->values->pdata[l] : NULL;
    g_autoptr(GError) local = NULL;
    g_autoptr(LbScenario) sc = lb_scenario_load(sw->scenario, &ov, &local);
    int code = 0;
    if (sc != NULL && !lb_preflight(sc, NULL, &code, &local))
      g_clear_pointer(&sc, lb_scenario_free);
    if (sc == NULL) {
      if (*where == '\0')
        g_propagate_error(error, g_steal_pointer(&local));
      else
        lb_sweep_fail(error, LB_SWEEP_ERROR_INPUT, "at %s: %s", where, local->message);
      return FALSE;
    }
    if (sw->name == NULL) {
      g_autofree char *bytes = NULL;
      gsize len = 0;
      if (!lb_input_read(sw->scenario, LB_INPUT_SCENARIO, &bytes, &len, error))
        return FALSE;
      *scenario_digest = g_compute_checksum_for_data(G_CHECKSUM_SHA256, (const guchar *)bytes, len);
      sw->name = g_strdup(sc->name);
      sw->seed = sc->seed;
    }
    for (guint r = 0; r < sc->runs->len; r++)
      if (!add_run(sw, point, &o, sc, ((LbBalancerRun *)sc->runs->pdata[r])->label,
                   *scenario_digest))
        return lb_sweep_fail(error, LB_SWEEP_ERROR_INPUT, "more than %d runs", MAX_RUNS);
  }
  return TRUE;
}

/* sweep.ini holds text C-escaped (a path is bytes, a key file UTF-8). */
static void
set_escaped(GKeyFile *kf, const char *group, const char *key, const char *value)
{
  g_autofree char *escaped = g_strescape(value, NULL);
  g_key_file_set_string(kf, group, key, escaped);
}

static void
set_escaped_list(GKeyFile *kf, const char *group, const char *key, char **values, guint n)
{
  g_autoptr(GPtrArray) escaped = g_ptr_array_new_with_free_func(g_free);
  for (guint i = 0; i < n; i++)
    g_ptr_array_add(escaped, g_strescape(values[i], NULL));
  g_key_file_set_string_list(kf, group, key, (const char *const *)escaped->pdata, n);
}

static char *
definition_text(const LbSweep *sw)
{
  g_autoptr(GKeyFile) kf = g_key_file_new();
  g_key_file_set_integer(kf, "sweep", "format", FORMAT);
  set_escaped(kf, "sweep", "scenario", sw->scenario);
  set_escaped(kf, "sweep", "name", sw->name);
  if (sw->platform != NULL)
    set_escaped(kf, "sweep", "platform", sw->platform);
  if (sw->sets != NULL)
    set_escaped_list(kf, "sweep", "set", sw->sets, g_strv_length(sw->sets));
  /* the plugins its balancers may come from: merge loads them too */
  const char *const *plugins = lb_plugins_loaded();
  if (plugins[0] != NULL)
    set_escaped_list(kf, "sweep", "plugins", (char **)plugins, g_strv_length((char **)plugins));
  g_key_file_set_uint64(kf, "sweep", "seed", sw->seed);
  if (sw->replicates >= 0)
    set_escaped(kf, "sweep", "replicates", axis(sw, (guint)sw->replicates)->name);
  g_key_file_set_integer(kf, "sweep", "axes", (gint)sw->axes->len);
  for (guint a = 0; a < sw->axes->len; a++) {
    g_autofree char *name = g_strdup_printf("axis%u", a + 1);
    g_autofree char *values = g_strdup_printf("values%u", a + 1);
    set_escaped(kf, "sweep", name, axis(sw, a)->name);
    set_escaped_list(kf, "sweep", values, (char **)axis(sw, a)->values->pdata,
                     axis(sw, a)->values->len);
  }
  g_key_file_set_integer(kf, "runs", "count", (gint)sw->runs->len);
  for (guint i = 0; i < sw->runs->len; i++) {
    g_autofree char *key = g_strdup_printf("run%u", i + 1);
    g_autofree char *value = g_strdup_printf("%s %u %s", run_at(sw, i)->id, run_at(sw, i)->point,
                                             run_at(sw, i)->balancer);
    g_key_file_set_string(kf, "runs", key, value);
  }
  return g_key_file_to_data(kf, NULL, NULL);
}

static guint
count_points(const LbSweep *sw)
{
  guint64 n = 1;
  for (guint a = 0; a < sw->axes->len; a++)
    if (!is_balancer_axis(axis(sw, a)))
      n = MIN(n * axis(sw, a)->values->len, (guint64)MAX_RUNS + 1);
  return (guint)n;
}

/* The axis of name other than balancer, or -1. */
static gint
find_axis(const LbSweep *sw, const char *name)
{
  for (guint a = 0; a < sw->axes->len; a++)
    if (strcmp(axis(sw, a)->name, name) == 0 && !is_balancer_axis(axis(sw, a)))
      return (gint)a;
  return -1;
}

#define MAX_REPEAT 10000

/* --repeat: the axis seed = S .. S + repeat - 1, S the seed of the
 * scenario with the fixed overrides and the first value of every axis. */
static gboolean
add_repeat(LbSweep *sw, guint repeat, GError **error)
{
  if (repeat > MAX_REPEAT)
    return lb_sweep_fail(error, LB_SWEEP_ERROR_INPUT, "--repeat %u: at most %d", repeat,
                         MAX_REPEAT);
  if (find_axis(sw, "seed") >= 0)
    return lb_sweep_fail(
        error, LB_SWEEP_ERROR_INPUT,
        "--repeat and --vary seed: give one (--vary seed=LIST --replicates seed makes "
        "the given seeds replicates)");
  for (guint i = 0; sw->sets != NULL && sw->sets[i] != NULL; i++) {
    g_autofree char *key = g_strstrip(g_strndup(sw->sets[i], strcspn(sw->sets[i], "=")));
    if (strcmp(key, "scenario.seed") == 0)
      return lb_sweep_fail(
          error, LB_SWEEP_ERROR_INPUT,
          "--repeat and --set %s: give the seeds with --vary seed=LIST --replicates seed",
          sw->sets[i]);
  }
  g_auto(PointOverrides) o = {0};
  point_overrides(sw, 0, &o);
  LbScenarioOverrides ov = {o.ranks, o.platform, NULL, (const char *const *)o.sets->pdata};
  g_autoptr(GError) local = NULL;
  g_autoptr(LbScenario) sc = lb_scenario_load(sw->scenario, &ov, &local);
  if (sc == NULL) {
    g_propagate_error(error, g_steal_pointer(&local));
    return FALSE;
  }
  if (sc->seed > G_MAXUINT64 - repeat)
    return lb_sweep_fail(error, LB_SWEEP_ERROR_INPUT,
                         "--repeat %u: seed %" G_GUINT64_FORMAT " is too large", repeat, sc->seed);
  LbSweepAxis *a = g_new0(LbSweepAxis, 1);
  a->name = g_strdup("seed");
  a->values = g_ptr_array_new_null_terminated(repeat, g_free, TRUE);
  for (guint k = 0; k < repeat; k++)
    g_ptr_array_add(a->values, g_strdup_printf("%" G_GUINT64_FORMAT, sc->seed + k));
  g_ptr_array_add(sw->axes, a);
  sw->replicates = (gint)sw->axes->len - 1;
  return TRUE;
}

LbSweep *
lb_sweep_new(const char *scenario, const char *const *vary, const char *platform,
             const char *const *sets, GError **error)
{
  return lb_sweep_new_replicated(scenario, vary, platform, sets, 0, NULL, error);
}

LbSweep *
lb_sweep_new_replicated(const char *scenario, const char *const *vary, const char *platform,
                        const char *const *sets, guint repeat, const char *replicates,
                        GError **error)
{
  g_autoptr(LbSweep) sw = g_new0(LbSweep, 1);
  sw->replicates = -1;
  g_autofree char *file = lb_scenario_find(scenario); /* a shipped one's name too */
  sw->scenario = g_canonicalize_filename(file, NULL);
  sw->platform = g_strdup(platform);
  sw->sets = sets != NULL && sets[0] != NULL ? g_strdupv((char **)sets) : NULL;
  sw->axes = g_ptr_array_new_with_free_func((GDestroyNotify)lb_sweep_axis_free);
  sw->runs = g_ptr_array_new_with_free_func(run_free);
  for (guint i = 0; vary != NULL && vary[i] != NULL; i++)
    if (!add_axis(sw, vary[i], error))
      return NULL;
  if (sw->platform != NULL) {
    g_autofree char *checked = expand_platform(sw, G_MAXUINT, error);
    if (checked == NULL)
      return NULL;
  }
  if (repeat > 0 && replicates != NULL) {
    lb_sweep_fail(error, LB_SWEEP_ERROR_INPUT,
                  "--repeat and --replicates: give one (--repeat N varies the seed itself)");
    return NULL;
  }
  if (replicates != NULL && (sw->replicates = find_axis(sw, replicates)) < 0) {
    lb_sweep_fail(error, LB_SWEEP_ERROR_INPUT,
                  "--replicates %s: not a varied key (a --vary NAME other than balancer)",
                  replicates);
    return NULL;
  }
  if (repeat > 0 && !add_repeat(sw, repeat, error))
    return NULL;
  /* a seed's values are replicates: nothing depends on one seed more than
   * on another */
  if (sw->replicates < 0)
    sw->replicates = find_axis(sw, "seed");
  sw->npoints = count_points(sw);
  if (sw->npoints > MAX_RUNS) {
    lb_sweep_fail(error, LB_SWEEP_ERROR_INPUT, "more than %d points", MAX_RUNS);
    return NULL;
  }
  g_autofree char *scenario_digest = NULL;
  for (guint p = 0; p < sw->npoints; p++)
    if (!add_point(sw, p, &scenario_digest, error))
      return NULL;
  link_runs(sw);
  sw->definition = definition_text(sw);
  sw->id = digest(sw->definition);
  return g_steal_pointer(&sw);
}

char *
lb_sweep_run_file(const char *dir, const LbSweepRun *run, const char *suffix)
{
  g_autofree char *name = g_strconcat(run->id, suffix, NULL);
  return g_build_filename(dir, name, NULL);
}

/* Ranks varied on the scenario's one platform: each point runs on the
 * first hosts of it, which a user may not expect; say so once a count. */
void
lb_sweep_say_hosts(const LbSweep *sw)
{
  guint axis = 0;
  while (axis < sw->axes->len && strcmp(((LbSweepAxis *)sw->axes->pdata[axis])->name, "ranks") != 0)
    axis++;
  if (sw->platform != NULL || axis == sw->axes->len)
    return;
  g_autoptr(GHashTable) said = g_hash_table_new(g_str_hash, g_str_equal);
  for (guint i = 0; i < sw->runs->len; i++) {
    const LbSweepRun *run = sw->runs->pdata[i];
    const char *ranks = lb_sweep_value(sw, run->point, axis);
    if (run->platform == NULL || !g_hash_table_add(said, (gpointer)ranks))
      continue;
    g_autofree char *base = g_path_get_basename(run->platform);
    g_printerr("lbsim: ranks=%s runs on %s of the hosts of the scenario's platform, %s, placed "
               "as its [scenario] placement says (host r for rank r by default); --platform "
               "PATTERN gives each point its own, e.g. hypercube-{ranks}.xml\n",
               ranks, ranks, base);
  }
}

/* ---- reading a sweep back ---- */

static char *
get_escaped(GKeyFile *kf, const char *group, const char *key, GError **error)
{
  g_autofree char *escaped = g_key_file_get_string(kf, group, key, error);
  return escaped != NULL ? g_strcompress(escaped) : NULL;
}

static GPtrArray *
get_escaped_list(GKeyFile *kf, const char *group, const char *key, GError **error)
{
  gsize n = 0;
  g_auto(GStrv) escaped = g_key_file_get_string_list(kf, group, key, &n, error);
  if (escaped == NULL)
    return NULL;
  GPtrArray *values = g_ptr_array_new_null_terminated(n, g_free, TRUE);
  for (gsize i = 0; i < n; i++)
    g_ptr_array_add(values, g_strcompress(escaped[i]));
  return values;
}

static gboolean
read_definition(LbSweep *sw, GKeyFile *kf, GError **error)
{
  if (g_key_file_get_integer(kf, "sweep", "format", error) != FORMAT)
    return error != NULL && *error != NULL
               ? FALSE
               : lb_sweep_fail(error, LB_SWEEP_ERROR_STATE, "made by another version of lbsim");
  if ((sw->scenario = get_escaped(kf, "sweep", "scenario", error)) == NULL ||
      (sw->name = get_escaped(kf, "sweep", "name", error)) == NULL)
    return FALSE;
  if (g_key_file_has_key(kf, "sweep", "platform", NULL) &&
      (sw->platform = get_escaped(kf, "sweep", "platform", error)) == NULL)
    return FALSE;
  if (g_key_file_has_key(kf, "sweep", "set", NULL)) {
    g_autoptr(GPtrArray) sets = get_escaped_list(kf, "sweep", "set", error);
    if (sets == NULL)
      return FALSE;
    sw->sets = g_strdupv((char **)sets->pdata);
  }
  if (g_key_file_has_key(kf, "sweep", "plugins", NULL)) {
    g_autoptr(GPtrArray) plugins = get_escaped_list(kf, "sweep", "plugins", error);
    if (plugins == NULL)
      return FALSE;
    for (guint i = 0; i < plugins->len; i++)
      if (!lb_plugin_load(plugins->pdata[i], error))
        return FALSE;
  }
  if (g_key_file_has_key(kf, "sweep", "seed", NULL)) {
    g_autoptr(GError) local = NULL;
    sw->seed = g_key_file_get_uint64(kf, "sweep", "seed", &local);
    if (local != NULL)
      return lb_sweep_fail(error, LB_SWEEP_ERROR_STATE, "[sweep] seed: %s", local->message);
  }
  gint naxes = g_key_file_get_integer(kf, "sweep", "axes", error);
  if (naxes < 0)
    return lb_sweep_fail(error, LB_SWEEP_ERROR_STATE, "[sweep] axes: negative");
  for (gint a = 1; a <= naxes; a++) {
    g_autofree char *name = g_strdup_printf("axis%d", a);
    g_autofree char *values = g_strdup_printf("values%d", a);
    LbSweepAxis *x = g_new0(LbSweepAxis, 1);
    x->name = get_escaped(kf, "sweep", name, error);
    x->values = x->name != NULL ? get_escaped_list(kf, "sweep", values, error) : NULL;
    if (x->values == NULL) {
      g_free(x->name);
      g_free(x);
      return FALSE;
    }
    g_ptr_array_add(sw->axes, x);
    if (x->values->len == 0)
      return lb_sweep_fail(error, LB_SWEEP_ERROR_STATE, "[sweep] %s: no values", values);
  }
  sw->npoints = count_points(sw);
  if (g_key_file_has_key(kf, "sweep", "replicates", NULL)) {
    g_autofree char *name = get_escaped(kf, "sweep", "replicates", error);
    if (name == NULL)
      return FALSE;
    if ((sw->replicates = find_axis(sw, name)) < 0)
      return lb_sweep_fail(error, LB_SWEEP_ERROR_STATE, "[sweep] replicates: %s is not an axis",
                           name);
  }
  gint nruns = g_key_file_get_integer(kf, "runs", "count", error);
  if (nruns < 0 || nruns > MAX_RUNS)
    return error != NULL && *error != NULL
               ? FALSE
               : lb_sweep_fail(error, LB_SWEEP_ERROR_STATE, "[runs] count: out of range");
  for (gint i = 1; i <= nruns; i++) {
    g_autofree char *key = g_strdup_printf("run%d", i);
    g_autofree char *text = g_key_file_get_string(kf, "runs", key, error);
    if (text == NULL)
      return FALSE;
    g_auto(GStrv) parts = g_strsplit(text, " ", 3);
    guint64 point = 0;
    if (g_strv_length(parts) != 3 || strlen(parts[0]) != ID_CHARS ||
        strspn(parts[0], "0123456789abcdef") != ID_CHARS ||
        !g_ascii_string_to_unsigned(parts[1], 10, 0, sw->npoints - 1, &point, NULL) ||
        lb_balancer_of_label(parts[2]) == NULL)
      return lb_sweep_fail(error, LB_SWEEP_ERROR_STATE, "[runs] %s: expected ID POINT BALANCER",
                           key);
    LbSweepRun *run = g_new0(LbSweepRun, 1);
    run->point = (guint)point;
    run->id = g_strdup(parts[0]);
    run->balancer = g_strdup(parts[2]);
    g_ptr_array_add(sw->runs, run);
  }
  return TRUE;
}

LbSweep *
lb_sweep_read(const char *dir, GError **error)
{
  g_autofree char *path = g_build_filename(dir, "sweep.ini", NULL);
  g_autofree char *text = NULL;
  if (!lb_input_read(path, LB_INPUT_SWEEP_STATE, &text, NULL, error))
    return NULL;
  g_autoptr(GKeyFile) kf = g_key_file_new();
  g_autoptr(LbSweep) sw = g_new0(LbSweep, 1);
  sw->replicates = -1;
  sw->axes = g_ptr_array_new_with_free_func((GDestroyNotify)lb_sweep_axis_free);
  sw->runs = g_ptr_array_new_with_free_func(run_free);
  g_autoptr(GError) local = NULL;
  if (!g_key_file_load_from_data(kf, text, (gsize)-1, G_KEY_FILE_NONE, &local) ||
      !read_definition(sw, kf, &local)) {
    lb_sweep_fail(error, LB_SWEEP_ERROR_STATE, "%s: not a sweep's definition: %s", path,
                  local->message);
    return NULL;
  }
  link_runs(sw);
  sw->definition = g_steal_pointer(&text);
  sw->id = digest(sw->definition);
  return g_steal_pointer(&sw);
}

/* ---- documents ---- */

/* Which results the documents show (see lb_sweep_document); fills in the
 * related metrics of complete points. */
static gboolean *
ready_runs(const LbSweep *sw, LbRunResult *const *results)
{
  guint n = sw->runs->len;
  gboolean *ready = g_new0(gboolean, n);
  for (guint first = 0; first < n;) {
    guint point = run_at(sw, first)->point, end = first;
    gboolean complete = TRUE;
    for (; end < n && run_at(sw, end)->point == point; end++)
      complete &= results[end] != NULL;
    if (complete)
      lb_runner_relate(results + first, end - first);
    for (guint i = first; i < end; i++)
      ready[i] = results[i] != NULL &&
                 (complete || lb_balancer_of_label(run_at(sw, i)->balancer)->relate == NULL);
    first = end;
  }
  return ready;
}

/* A JSON number as written: -?(0|[1-9][0-9]*)(.[0-9]+)?([eE][+-]?[0-9]+)? */
static gboolean
json_number(const char *t)
{
  if (*t == '-')
    t++;
  if (*t == '0')
    t++;
  else if (*t >= '1' && *t <= '9')
    t += strspn(t, "0123456789");
  else
    return FALSE;
  if (*t == '.') {
    gsize n = strspn(++t, "0123456789");
    if (n == 0)
      return FALSE;
    t += n;
  }
  if (*t == 'e' || *t == 'E') {
    t++;
    if (*t == '+' || *t == '-')
      t++;
    gsize n = strspn(t, "0123456789");
    if (n == 0)
      return FALSE;
    t += n;
  }
  return *t == '\0';
}

/* An axis whose every value is a number writes them as numbers, as
 * written (1.10 stays 1.10); another writes them all as strings, so that
 * a column has one type. */
static gboolean
numeric_axis(const LbSweepAxis *x)
{
  for (guint v = 0; v < x->values->len; v++)
    if (!json_number(x->values->pdata[v]))
      return FALSE;
  return TRUE;
}

static void
write_value(LbJson *j, const LbSweepAxis *x, const char *key, const char *value)
{
  if (numeric_axis(x))
    lb_json_raw(j, key, value);
  else
    lb_json_string(j, key, value);
}

/* A point as an object: ranks, platform, seed and steps as members, a
 * GROUP.KEY as member KEY of member GROUP (no key holds a dot, so tools
 * that join nested names with dots, such as pandas' json_normalize, make
 * GROUP.KEY again). The balancer axis and skip (-1: none) are left out. */
static void
write_point(LbJson *j, const LbSweep *sw, guint point, gint skip)
{
  lb_json_begin_compact_object(j, "point");
  for (guint a = 0; a < sw->axes->len; a++) {
    const LbSweepAxis *x = axis(sw, a);
    const char *dot = strchr(x->name, '.');
    if (is_balancer_axis(x) || (gint)a == skip)
      continue;
    if (dot == NULL) {
      write_value(j, x, x->name, lb_sweep_value(sw, point, a));
      continue;
    }
    gsize group = dot - x->name;
    gboolean seen = FALSE;
    for (guint b = 0; b < a && !seen; b++)
      seen = !is_balancer_axis(axis(sw, b)) && (gint)b != skip &&
             strncmp(axis(sw, b)->name, x->name, group + 1) == 0;
    if (seen)
      continue;
    g_autofree char *name = g_strndup(x->name, group);
    lb_json_begin_compact_object(j, name);
    for (guint b = a; b < sw->axes->len; b++)
      if (!is_balancer_axis(axis(sw, b)) && (gint)b != skip &&
          strncmp(axis(sw, b)->name, x->name, group + 1) == 0)
        write_value(j, axis(sw, b), axis(sw, b)->name + group + 1, lb_sweep_value(sw, point, b));
    lb_json_end_object(j);
  }
  lb_json_end_object(j);
}

/* ---- replicates ---- */

/* The runs of one point (the replicates' axis aside) and balancer. */
typedef struct {
  guint point; /* with the replicates' axis at its first value */
  const char *balancer;
  GArray *runs; /* guint: ready runs, in order */
} Group;

static void
group_clear(gpointer p)
{
  g_array_unref(((Group *)p)->runs);
}

static GArray *
replicate_groups(const LbSweep *sw, const gboolean *ready)
{
  GArray *groups = g_array_new(FALSE, TRUE, sizeof(Group));
  g_array_set_clear_func(groups, group_clear);
  guint stride = 1, nvalues = axis(sw, (guint)sw->replicates)->values->len;
  for (guint i = (guint)sw->replicates + 1; i < sw->axes->len; i++)
    if (!is_balancer_axis(axis(sw, i)))
      stride *= axis(sw, i)->values->len;
  g_autoptr(GHashTable) index = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, NULL);
  for (guint i = 0; i < sw->runs->len; i++) {
    const LbSweepRun *run = run_at(sw, i);
    guint base = run->point - (run->point / stride % nvalues) * stride;
    g_autofree char *key = g_strdup_printf("%u %s", base, run->balancer);
    gpointer at = NULL;
    if (!g_hash_table_lookup_extended(index, key, NULL, &at)) {
      Group g = {base, run->balancer, g_array_new(FALSE, FALSE, sizeof(guint))};
      g_array_append_val(groups, g);
      at = GUINT_TO_POINTER(groups->len - 1);
      g_hash_table_insert(index, g_steal_pointer(&key), at);
    }
    if (ready[i])
      g_array_append_val(g_array_index(groups, Group, GPOINTER_TO_UINT(at)).runs, i);
  }
  return groups;
}

typedef struct {
  const char *name, *unit; /* JSON names */
  gboolean summary;        /* a field of the summary, else a declared metric */
  LbStats stats;
} Measure;

/* Every measure all the group's runs have: the summary's fields, then
 * the declared metrics the summary does not hold. */
static GArray *
group_measures(const Group *g, LbRunResult *const *results)
{
  GArray *out = g_array_new(FALSE, FALSE, sizeof(Measure));
  guint n = g->runs->len;
  if (n == 0)
    return out;
  g_autofree double *x = g_new(double, n);
  const LbRunResult *first = results[g_array_index(g->runs, guint, 0)];
  for (const LbSummaryField *f = lb_summary(); f->name != NULL; f++) {
    gboolean all = (f->where & LB_SUMMARY_RUN) != 0;
    for (guint k = 0; k < n && all; k++)
      all = lb_summary_get(f, results[g_array_index(g->runs, guint, k)], -1, &x[k]);
    if (!all)
      continue;
    Measure m = {f->json, *f->unit != '\0' ? f->unit : "ratio", TRUE, {0}};
    lb_stats_of(x, n, &m.stats);
    g_array_append_val(out, m);
  }
  for (guint i = 0; i < first->metric_defs->len; i++) {
    const LbMetricDef *def = &g_array_index(first->metric_defs, LbMetricDef, i);
    gboolean all = lb_summary_lookup(def->name) == NULL;
    for (guint k = 0; k < n && all; k++)
      all = lb_run_result_metric(results[g_array_index(g->runs, guint, k)], def->json_name, &x[k]);
    if (!all)
      continue;
    Measure m = {def->json_name, def->unit, FALSE, {0}};
    lb_stats_of(x, n, &m.stats);
    g_array_append_val(out, m);
  }
  return out;
}

static void
write_stats(LbJson *j, const Measure *m)
{
  lb_json_begin_compact_object(j, m->name);
  lb_json_double(j, "mean", m->stats.mean);
  lb_json_double(j, "sd", m->stats.sd);
  lb_json_double(j, "min", m->stats.min);
  lb_json_double(j, "max", m->stats.max);
  lb_json_double(j, "ci95_low", m->stats.ci_low);
  lb_json_double(j, "ci95_high", m->stats.ci_high);
  lb_json_end_object(j);
}

static void
write_statistics(LbJson *j, const LbSweep *sw, LbRunResult *const *results, const gboolean *ready)
{
  g_autoptr(GArray) groups = replicate_groups(sw, ready);
  const LbSweepAxis *rx = axis(sw, (guint)sw->replicates);
  lb_json_begin_array(j, "statistics", FALSE);
  for (guint gi = 0; gi < groups->len; gi++) {
    const Group *g = &g_array_index(groups, Group, gi);
    if (g->runs->len == 0)
      continue;
    lb_json_begin_object(j, NULL);
    write_point(j, sw, g->point, sw->replicates);
    lb_json_string(j, "balancer", g->balancer);
    lb_json_uint(j, "runs", g->runs->len);
    lb_json_begin_array(j, "replicates", TRUE);
    for (guint k = 0; k < g->runs->len; k++)
      write_value(j, rx, NULL,
                  lb_sweep_value(sw, run_at(sw, g_array_index(g->runs, guint, k))->point,
                                 (guint)sw->replicates));
    lb_json_end_array(j);
    g_autoptr(GArray) measures = group_measures(g, results);
    for (int summary = 1; summary >= 0; summary--) {
      lb_json_begin_object(j, summary ? "summary" : "metrics");
      for (guint m = 0; m < measures->len; m++)
        if (g_array_index(measures, Measure, m).summary == summary)
          write_stats(j, &g_array_index(measures, Measure, m));
      lb_json_end_object(j);
    }
    lb_json_end_object(j);
  }
  lb_json_end_array(j);
}

char *
lb_sweep_document(const LbSweep *sw, LbRunResult *const *results)
{
  g_autofree gboolean *ready = ready_runs(sw, results);
  GString *out = g_string_new(NULL);
  LbJson j;
  lb_json_init(&j, out);
  lb_json_begin_object(&j, NULL);
  lb_report_write_format(&j);
  lb_json_begin_object(&j, "sweep");
  lb_json_string(&j, "scenario", sw->scenario);
  lb_json_string(&j, "name", sw->name);
  lb_json_string(&j, "definition", sw->id);
  if (sw->platform != NULL)
    lb_json_string(&j, "platform", sw->platform);
  lb_json_begin_array(&j, "set", TRUE);
  for (guint i = 0; sw->sets != NULL && sw->sets[i] != NULL; i++)
    lb_json_string(&j, NULL, sw->sets[i]);
  lb_json_end_array(&j);
  lb_json_begin_array(&j, "vary", FALSE);
  for (guint a = 0; a < sw->axes->len; a++) {
    const LbSweepAxis *x = axis(sw, a);
    lb_json_begin_compact_object(&j, NULL);
    lb_json_string(&j, "name", x->name);
    lb_json_begin_array(&j, "values", TRUE);
    for (guint v = 0; v < x->values->len; v++)
      write_value(&j, x, NULL, x->values->pdata[v]);
    lb_json_end_array(&j);
    lb_json_end_object(&j);
  }
  lb_json_end_array(&j);
  if (sw->replicates >= 0)
    lb_json_string(&j, "replicates", axis(sw, (guint)sw->replicates)->name);
  lb_json_uint(&j, "runs_total", sw->runs->len);
  lb_json_end_object(&j);
  lb_json_begin_array(&j, "runs", FALSE);
  for (guint i = 0; i < sw->runs->len; i++) {
    if (!ready[i])
      continue;
    const LbSweepRun *run = run_at(sw, i);
    lb_json_begin_object(&j, NULL);
    write_point(&j, sw, run->point, -1);
    lb_json_string(&j, "balancer", run->balancer);
    lb_report_write_run(&j, "result", results[i]);
    lb_json_end_object(&j);
  }
  lb_json_end_array(&j);
  if (sw->replicates >= 0)
    write_statistics(&j, sw, results, ready);
  lb_json_end_object(&j);
  return g_string_free(out, FALSE);
}

/* The long CSV's lead columns: the varied keys but ranks, seed and
 * balancer, which have columns of their own. */
static gboolean
long_lead(const LbSweepAxis *x)
{
  return !is_balancer_axis(x) && strcmp(x->name, "ranks") != 0 && strcmp(x->name, "seed") != 0;
}

char *
lb_sweep_long_csv(const LbSweep *sw, LbRunResult *const *results)
{
  g_autofree gboolean *ready = ready_runs(sw, results);
  g_autoptr(GPtrArray) names = g_ptr_array_new();
  for (guint a = 0; a < sw->axes->len; a++)
    if (long_lead(axis(sw, a)))
      g_ptr_array_add(names, axis(sw, a)->name);
  gint seed_axis = find_axis(sw, "seed");
  GString *out = g_string_new(NULL);
  lb_report_long_csv_head(out, names->len, (const char *const *)names->pdata);
  g_autoptr(GPtrArray) cells = g_ptr_array_new();
  for (guint i = 0; i < sw->runs->len; i++) {
    if (!ready[i])
      continue;
    guint point = run_at(sw, i)->point;
    g_ptr_array_set_size(cells, 0);
    for (guint a = 0; a < sw->axes->len; a++)
      if (long_lead(axis(sw, a)))
        g_ptr_array_add(cells, (gpointer)lb_sweep_value(sw, point, a));
    guint64 seed = seed_axis >= 0
                       ? g_ascii_strtoull(lb_sweep_value(sw, point, (guint)seed_axis), NULL, 10)
                       : sw->seed;
    lb_report_long_csv_rows(out, results[i], sw->name, seed, cells->len,
                            (const char *const *)cells->pdata);
  }
  return g_string_free(out, FALSE);
}

static void
stats_cell(GString *out, double v)
{
  g_string_append_c(out, ',');
  if (isfinite(v)) {
    char buf[G_ASCII_DTOSTR_BUF_SIZE];
    g_string_append(out, g_ascii_formatd(buf, sizeof buf, "%.10g", v));
  }
}

char *
lb_sweep_stats_csv(const LbSweep *sw, LbRunResult *const *results)
{
  GString *out = g_string_new(NULL);
  for (guint a = 0; a < sw->axes->len; a++)
    if (!is_balancer_axis(axis(sw, a)) && (gint)a != sw->replicates) {
      lb_report_csv_text(out, axis(sw, a)->name);
      g_string_append_c(out, ',');
    }
  g_string_append(out, "balancer,metric,unit,runs,mean,sd,min,max,ci95_low,ci95_high\n");
  if (sw->replicates < 0)
    return g_string_free(out, FALSE);
  g_autofree gboolean *ready = ready_runs(sw, results);
  g_autoptr(GArray) groups = replicate_groups(sw, ready);
  for (guint gi = 0; gi < groups->len; gi++) {
    const Group *g = &g_array_index(groups, Group, gi);
    g_autoptr(GArray) measures = group_measures(g, results);
    for (guint m = 0; m < measures->len; m++) {
      const Measure *me = &g_array_index(measures, Measure, m);
      for (guint a = 0; a < sw->axes->len; a++)
        if (!is_balancer_axis(axis(sw, a)) && (gint)a != sw->replicates) {
          lb_report_csv_text(out, lb_sweep_value(sw, g->point, a));
          g_string_append_c(out, ',');
        }
      lb_report_csv_text(out, g->balancer);
      g_string_append_printf(out, ",%s,", me->name);
      lb_report_csv_text(out, me->unit);
      g_string_append_printf(out, ",%u", me->stats.n);
      stats_cell(out, me->stats.mean);
      stats_cell(out, me->stats.sd);
      stats_cell(out, me->stats.min);
      stats_cell(out, me->stats.max);
      stats_cell(out, me->stats.ci_low);
      stats_cell(out, me->stats.ci_high);
      g_string_append_c(out, '\n');
    }
  }
  return g_string_free(out, FALSE);
}

char *
lb_sweep_csv(const LbSweep *sw, LbRunResult *const *results)
{
  g_autofree gboolean *ready = ready_runs(sw, results);
  g_autoptr(GPtrArray) names = g_ptr_array_new();
  for (guint a = 0; a < sw->axes->len; a++)
    if (!is_balancer_axis(axis(sw, a)))
      g_ptr_array_add(names, axis(sw, a)->name);
  g_autoptr(GPtrArray) shown = g_ptr_array_new();
  g_autoptr(GPtrArray) cells = g_ptr_array_new();
  for (guint i = 0; i < sw->runs->len; i++) {
    if (!ready[i])
      continue;
    g_ptr_array_add(shown, results[i]);
    for (guint a = 0; a < sw->axes->len; a++)
      if (!is_balancer_axis(axis(sw, a)))
        g_ptr_array_add(cells, (gpointer)lb_sweep_value(sw, run_at(sw, i)->point, a));
  }
  return lb_report_csv_lead(shown, names->len, (const char *const *)names->pdata,
                            (const char *const *)cells->pdata);
}
