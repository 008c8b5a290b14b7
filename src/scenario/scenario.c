/* Scenario files. Every group and key is checked against a parameter
 * table; an error names the file, the group and the key. */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <glib/gstdio.h>

#include "io/datadir.h"
#include "io/input.h"
#include "lbsim/plugin.h"
#include "lbsim/run.h"
#include "lbsim/scenario.h"
#include "metrics/expr.h"
#include "metrics/summary.h"
#include "workloads/models.h"

/* the quark's name is the macro's text, spaces and all */
/* clang-format off */
G_DEFINE_QUARK(lb-scenario-error-quark, lb_scenario_error)
/* clang-format on */

static const LbParamSpec scenario_params[] = {
    {"name", LB_PARAM_STRING, NULL, 0, 0, NULL, "name shown in reports (default: the file's name)"},
    {"description", LB_PARAM_STRING, NULL, 0, 0, NULL, "free text"},
    {"platform", LB_PARAM_STRING, NULL, 0, 0, NULL,
     "SimGrid platform XML: relative to the scenario's folder, then to platforms/ (required)"},
    {"ranks", LB_PARAM_INT, NULL, 1, 1 << 20, NULL, "virtual processors, one per host (required)"},
    {"seed", LB_PARAM_INT, "1", 0, 9007199254740992.0, NULL, "seed of every random choice"},
    {"placement-seed", LB_PARAM_INT, NULL, 0, 9007199254740992.0, NULL,
     "seed of the queue placement's draw of nodes and of the background traffic's flows, so that "
     "runs on other nodes keep the same work (default: seed)"},
    {"steps", LB_PARAM_INT, "1", 1, 100000, NULL,
     "adaptation steps: update loads, balance, compute"},
    {"placement", LB_PARAM_CHOICE, "auto", 0, 0, "auto|linear|gray|cost|queue",
     "rank r on host r (linear), on host gray(r) (gray), on the r-th host of the SP order by "
     "communication cost of Baiardi et al. (cost: Gray order on hypercubes, a snake on tori, leaf "
     "order on fat trees, nearest route latency next elsewhere), or on whole nodes drawn at random "
     "with the seed as a batch queue hands them out (queue: ceil(ranks / K) nodes of the "
     "platform's K = lbsim-node-hosts hosts, 1 if it has none; ranks 0 .. K-1 on the first drawn "
     "node's hosts, and so on); auto: gray on hypercube platforms"},
    {"plugins", LB_PARAM_STRING, NULL, 0, 0, NULL,
     "plugins to load before the rest of the file is read: a comma-separated list of shared "
     "objects, relative to the scenario's folder (see lbsim run --plugin)"},
    {"background", LB_PARAM_STRING, NULL, 0, 0, NULL,
     "competing load on some hosts: a comma-separated list of HOSTS:SHARE[@START-END], HOSTS a "
     "host name or a range nA-nB, SHARE in (0, 1] the fraction of the host's speed its rank keeps "
     "from START to END simulated seconds (default: the whole run; @START-: to its end)"},
    {"background-traffic", LB_PARAM_INT, "0", 0, 1024, NULL,
     "other jobs' network traffic: on every edge switch that holds a rank, this many nodes the "
     "run did not take each send a flow to one on another switch, and as many receive one, for "
     "the whole run, drawn with the seed (0: none; needs the platform's lbsim-switch-nodes, as "
     "lbsim-platgen dual-cluster writes it)"},
    {NULL},
};

const LbParamSpec *
lb_scenario_params(void)
{
  return scenario_params;
}

LbStart
lb_scenario_start(const LbScenario *scenario, const LbBalancer *balancer)
{
  return balancer->keeps_order ? LB_START_ORDER : balancer->start;
}

void
lb_scenario_initial_units(const LbScenario *scenario, const LbBalancerRun *brun, guint rank,
                          GArray *units)
{
  const LbBalancer *b = brun->balancer;
  g_array_set_size(units, 0);
  if (b->initial_units != NULL)
    b->initial_units(brun->work, brun->params, scenario->ranks, rank, units);
  else
    lb_work_initial_units(brun->work, rank, lb_scenario_start(scenario, b), units);
}

const char *
lb_platform_dir(void)
{
  const char *env = g_getenv("LBSIM_PLATFORM_DIR");
  if (env != NULL)
    return env;
  static char *dir;
  if (dir == NULL) {
    dir = lb_data_file("platforms", NULL);
    if (dir == NULL)
      dir = g_strdup("platforms");
  }
  return dir;
}

void
lb_scenario_free(LbScenario *sc)
{
  if (sc == NULL)
    return;
  g_free(sc->file);
  g_free(sc->name);
  g_free(sc->description);
  g_free(sc->platform);
  g_free(sc->background);
  g_clear_pointer(&sc->loads, g_array_unref);
  g_clear_pointer(&sc->runs, g_ptr_array_unref);
  g_clear_pointer(&sc->views, g_ptr_array_unref);
  lb_work_free(sc->work);
  g_clear_pointer(&sc->expects, g_ptr_array_unref);
  g_clear_pointer(&sc->lets, g_ptr_array_unref);
  g_free(sc);
}

static void
balancer_run_free(gpointer data)
{
  LbBalancerRun *run = data;
  lb_params_free(run->params);
  g_free(run->label);
  g_free(run);
}

static gboolean fail(GError **error, int code, const char *file, const char *group, const char *key,
                     const char *format, ...) G_GNUC_PRINTF(6, 7);

static gboolean
fail(GError **error, int code, const char *file, const char *group, const char *key,
     const char *format, ...)
{
  va_list args;
  va_start(args, format);
  g_autofree char *text = g_strdup_vprintf(format, args);
  va_end(args);
  if (key != NULL)
    g_set_error(error, LB_SCENARIO_ERROR, code, "%s: [%s] %s: %s", file, group, key, text);
  else if (group != NULL)
    g_set_error(error, LB_SCENARIO_ERROR, code, "%s: [%s]: %s", file, group, text);
  else
    g_set_error(error, LB_SCENARIO_ERROR, code, "%s: %s", file, text);
  return FALSE;
}

/* Inline comments (whitespace, then ; or #) go, and the lines of [expect]
 * ("KEY OP VALUE" or "KEY = OP VALUE") are taken out as key, value pairs into
 * expects: GKeyFile keeps one value per key, and a metric may be bounded on
 * both sides. Line numbers stay as they were. GKeyFile would also merge a
 * repeated group, let the last of a repeated key win and hide KEY[LOCALE]:
 * all three are errors here. */
static char *
preprocess(const char *file, const char *text, GPtrArray *expects, GError **error)
{
  g_auto(GStrv) lines = g_strsplit(text, "\n", -1);
  g_autoptr(GHashTable) seen = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, NULL);
  g_autofree char *group = NULL;
  gboolean in_expect = FALSE;
  for (guint i = 0; lines[i] != NULL; i++) {
    char *line = lines[i];
    char *start = line;
    while (g_ascii_isspace(*start))
      start++;
    if (*start == '#' || *start == ';') {
      *line = '\0';
      continue;
    }
    for (char *c = start; *c != '\0'; c++) {
      if ((*c == ';' || *c == '#') && c > start && g_ascii_isspace(c[-1])) {
        *c = '\0';
        break;
      }
    }
    g_strchomp(line);
    g_autofree char *where = NULL;
    if (*start == '[') {
      in_expect = g_str_has_prefix(start, "[expect]");
      g_free(group);
      group = g_strndup(start + 1, strcspn(start + 1, "]"));
      guint first = GPOINTER_TO_UINT(g_hash_table_lookup(seen, group));
      if (first != 0) {
        where = g_strdup_printf("%s:%u", file, i + 1);
        fail(error, LB_SCENARIO_ERROR_PARSE, where, group, NULL,
             "the group is repeated (first on line %u)", first);
        return NULL;
      }
      g_hash_table_insert(seen, g_strdup(group), GUINT_TO_POINTER(i + 1));
      continue;
    }
    if (*start == '\0' || group == NULL)
      continue;
    if (!in_expect) {
      g_autofree char *key = g_strstrip(g_strndup(start, strcspn(start, "=")));
      if (strchr(key, '[') != NULL) {
        where = g_strdup_printf("%s:%u", file, i + 1);
        fail(error, LB_SCENARIO_ERROR_PARSE, where, group, key,
             "localized keys (KEY[LOCALE]) are not supported");
        return NULL;
      }
      char *id = g_strdup_printf("%s\n%s", group, key);
      guint first = GPOINTER_TO_UINT(g_hash_table_lookup(seen, id));
      if (first != 0) {
        g_free(id);
        where = g_strdup_printf("%s:%u", file, i + 1);
        fail(error, LB_SCENARIO_ERROR_PARSE, where, group, key,
             "the key is repeated (first on line %u)", first);
        return NULL;
      }
      g_hash_table_insert(seen, id, GUINT_TO_POINTER(i + 1));
      continue;
    }
    /* without an operator the key is the first word, for lb_expect_parse to reject */
    char *op = strpbrk(start, "<>=");
    char *value = op;
    if (op == NULL)
      op = value = start + strcspn(start, " \t");
    else if (op[0] == '=' && op[1] != '=')
      value = op + 1;
    g_ptr_array_add(expects, g_strstrip(g_strndup(start, (gsize)(op - start))));
    g_ptr_array_add(expects, g_strstrip(g_strdup(value)));
    g_ptr_array_add(expects, g_strdup_printf("%u", i + 1));
    *line = '\0';
  }
  return g_strjoinv("\n", lines);
}

#define NAME_CHARS "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_"

/* An [expect] key, BALANCER.METRIC, with the metric spelt as the JSON
 * spells it (schedule_steps for schedule-steps), so that a --set replaces
 * the file's line whichever spelling either uses. */
static char *
expect_key_canonical(const char *key)
{
  char *canonical = g_strdup(key);
  char *metric = strchr(canonical, '.');
  for (char *c = metric; c != NULL && *c != '\0'; c++)
    if (*c == '-')
      *c = '_';
  return canonical;
}

/* GROUP.KEY=VALUE, with spaces around '=' as in a file. Anything else would
 * reach GKeyFile as an invalid name, which it drops with a warning. A key
 * of [expect] is BALANCER.METRIC, so it may hold dots. */
static gboolean
apply_override(GKeyFile *kf, const char *file, const char *set, GError **error)
{
  gsize group_len = strspn(set, NAME_CHARS ":");
  gboolean expect = group_len == strlen("expect") && g_str_has_prefix(set, "expect");
  const char *key = set + group_len + (set[group_len] == '.');
  gsize key_len = strspn(key, expect ? NAME_CHARS ".:" : NAME_CHARS);
  const char *eq = key + key_len;
  while (*eq == ' ' || *eq == '\t')
    eq++;
  if (group_len == 0 || set[group_len] != '.' || key_len == 0 || *eq != '=')
    return fail(error, LB_SCENARIO_ERROR_INVALID, file, NULL, NULL,
                "--set %s: expected GROUP.KEY=VALUE, GROUP and KEY made of letters, digits, "
                "'-' and '_'",
                set);
  g_autofree char *group = g_strndup(set, group_len);
  g_autofree char *given = g_strndup(key, key_len);
  g_autofree char *name = expect ? expect_key_canonical(given) : g_strdup(given);
  g_autofree char *value = g_strstrip(g_strdup(eq + 1));
  g_key_file_set_value(kf, group, name, value);
  return TRUE;
}

/* Fills params from a group, rejecting unknown keys and bad values. */
static gboolean
read_group(GKeyFile *kf, const char *file, const char *group, LbParams *params, GError **error)
{
  if (!g_key_file_has_group(kf, group))
    return TRUE;
  gsize n = 0;
  g_auto(GStrv) keys = g_key_file_get_keys(kf, group, &n, NULL);
  for (gsize i = 0; i < n; i++) {
    g_autofree char *value = g_key_file_get_value(kf, group, keys[i], NULL);
    g_autoptr(GError) local = NULL;
    if (!lb_params_set(params, keys[i], value, &local)) {
      if (g_error_matches(local, LB_PARAM_ERROR, LB_PARAM_ERROR_UNKNOWN)) {
        g_autoptr(GString) known = g_string_new(NULL);
        for (const LbParamSpec *s = lb_params_spec(params); s->name != NULL; s++)
          g_string_append_printf(known, "%s%s", known->len ? ", " : "", s->name);
        return fail(error, LB_SCENARIO_ERROR_UNKNOWN_KEY, file, group, keys[i],
                    "unknown key (known: %s)", known->len ? known->str : "none");
      }
      return fail(error, LB_SCENARIO_ERROR_INVALID, file, group, keys[i], "%s", local->message);
    }
  }
  return TRUE;
}

static char *
resolve_relative(const char *base_dir, const char *path)
{
  if (g_path_is_absolute(path))
    return g_strdup(path);
  return g_build_filename(base_dir, path, NULL);
}

static gboolean
resolve_platform(LbScenario *sc, const char *base_dir, const char *value, const char *origin,
                 GError **error)
{
  g_autofree char *first = resolve_relative(base_dir, value);
  g_autofree char *second = g_build_filename(lb_platform_dir(), value, NULL);
  const char *found = NULL;
  if (g_file_test(first, G_FILE_TEST_IS_REGULAR))
    found = first;
  else if (!g_path_is_absolute(value) && g_file_test(second, G_FILE_TEST_IS_REGULAR))
    found = second;
  if (found == NULL && g_path_is_absolute(value))
    return fail(error, LB_SCENARIO_ERROR_PLATFORM, sc->file, "scenario", "platform",
                "%s'%s' not found", origin, value);
  if (found == NULL)
    return fail(error, LB_SCENARIO_ERROR_PLATFORM, sc->file, "scenario", "platform",
                "%s'%s' not found (looked for %s and %s)", origin, value, first, second);
  sc->platform = g_canonicalize_filename(found, NULL);
  return TRUE;
}

/* Keys of another pattern are mistakes, except that the file's own keys
 * stop mattering when --set changes the pattern: then only the keys given
 * with --set (`only`) are checked. */
static gboolean
check_pattern_keys(GKeyFile *kf, const char *file, const char *pattern, GHashTable *only,
                   GError **error)
{
  gsize n = 0;
  g_auto(GStrv) keys = g_key_file_get_keys(kf, "workload", &n, NULL);
  for (gsize i = 0; i < n; i++) {
    if (only != NULL && !g_hash_table_contains(only, keys[i]))
      continue;
    gboolean is_pattern_key = FALSE;
    if (!lb_pattern_key_applies(keys[i], pattern, &is_pattern_key))
      return fail(error, LB_SCENARIO_ERROR_INVALID, file, "workload", keys[i],
                  "applies to pattern %s, but pattern is %s", lb_pattern_key_patterns(keys[i]),
                  pattern);
  }
  return TRUE;
}

/* The preset [workload] names for its model, or NULL. */
static const LbPreset *
preset_of(GKeyFile *kf)
{
  g_autofree char *model = g_key_file_get_value(kf, "workload", "model", NULL);
  g_autofree char *name = g_key_file_get_value(kf, "workload", "preset", NULL);
  const LbModel *m = lb_model_lookup(model != NULL ? g_strstrip(model) : "array1d");
  return m != NULL && name != NULL ? lb_model_preset(m, g_strstrip(name)) : NULL;
}

/* A [workload] key as the file (and --set) give it, else as its preset
 * does; NULL for neither. */
static char *
workload_value(GKeyFile *kf, const char *key)
{
  char *v = g_key_file_get_value(kf, "workload", key, NULL);
  if (v != NULL)
    return g_strstrip(v);
  const LbPreset *p = preset_of(kf);
  for (guint i = 0; p != NULL && p->keys[i] != NULL; i += 2)
    if (strcmp(p->keys[i], key) == 0)
      return g_strdup(p->keys[i + 1]);
  return NULL;
}

/* The preset's values for the keys the scenario does not give. */
static void
apply_preset(GKeyFile *kf)
{
  const LbPreset *p = preset_of(kf);
  for (guint i = 0; p != NULL && p->keys[i] != NULL; i += 2)
    if (!g_key_file_has_key(kf, "workload", p->keys[i], NULL))
      g_key_file_set_value(kf, "workload", p->keys[i], p->keys[i + 1]);
}

static gboolean
read_workload(LbScenario *sc, GKeyFile *kf, const char *dir, GHashTable *set_keys, GError **error)
{
  g_autofree char *name = g_key_file_get_value(kf, "workload", "model", NULL);
  if (name != NULL)
    g_strstrip(name);
  const LbModel *model = lb_model_lookup(name != NULL ? name : "array1d");
  if (model == NULL) {
    g_autoptr(GString) known = g_string_new(NULL);
    for (const LbModel *const *m = lb_models(); *m != NULL; m++)
      g_string_append_printf(known, "%s%s", known->len ? ", " : "", (*m)->name);
    return fail(error, LB_SCENARIO_ERROR_INVALID, sc->file, "workload", "model",
                "unknown model '%s' (known: %s)", name, known->str);
  }
  apply_preset(kf);
  g_autoptr(LbParams) w = lb_params_new(lb_model_param_spec(model));
  if (!read_group(kf, sc->file, "workload", w, error))
    return FALSE;
  if (model->patterns &&
      !check_pattern_keys(kf, sc->file, lb_params_get_string(w, "pattern"), set_keys, error))
    return FALSE;
  g_autoptr(GError) local = NULL;
  sc->work = lb_work_new(model, g_steal_pointer(&w), sc->seed, sc->ranks, sc->nadaptations,
                         sc->file, dir, &local);
  if (sc->work == NULL) {
    g_set_error_literal(error, LB_SCENARIO_ERROR,
                        g_error_matches(local, LB_PARAM_ERROR, LB_PARAM_ERROR_MISSING)
                            ? LB_SCENARIO_ERROR_MISSING
                            : LB_SCENARIO_ERROR_INVALID,
                        local->message);
    return FALSE;
  }
  sc->elements = lb_work_total_units(sc->work);
  return TRUE;
}

static gboolean
runs_label(const LbScenario *sc, const char *label)
{
  for (guint i = 0; i < sc->runs->len; i++)
    if (strcmp(((LbBalancerRun *)sc->runs->pdata[i])->label, label) == 0)
      return TRUE;
  return FALSE;
}

/* The balancer a label (NAME or NAME:VARIANT) names, or NULL. */
const LbBalancer *
lb_balancer_of_label(const char *label)
{
  g_autofree char *name = g_strndup(label, strcspn(label, ":"));
  return lb_balancer_lookup(name);
}

/* The view of the workload an adapter makes, built once per scenario from
 * the adapter's group. */
static const LbWork *
view_of(LbScenario *sc, GKeyFile *kf, const LbAdapter *adapter, GError **error)
{
  const LbModel *to = lb_model_lookup(adapter->to);
  for (guint i = 0; i < sc->views->len; i++)
    if (((const LbWork *)sc->views->pdata[i])->model == to)
      return sc->views->pdata[i];
  g_autoptr(LbParams) params = lb_params_new(lb_model_param_spec(to));
  if (!read_group(kf, sc->file, adapter->group, params, error))
    return NULL;
  g_autofree char *dir = g_path_get_dirname(sc->file);
  g_autoptr(GError) local = NULL;
  LbWork *view =
      lb_adapter_build(adapter, sc->work, g_steal_pointer(&params), sc->file, dir, &local);
  if (view == NULL) {
    g_set_error_literal(error, LB_SCENARIO_ERROR, LB_SCENARIO_ERROR_INVALID, local->message);
    return NULL;
  }
  g_ptr_array_add(sc->views, view);
  return view;
}

static gboolean
add_balancer(LbScenario *sc, GKeyFile *kf, const char *label, const char *origin, GError **error)
{
  const char *colon = strchr(label, ':');
  g_autofree char *name = g_strndup(label, colon != NULL ? (gsize)(colon - label) : strlen(label));
  const char *variant = colon != NULL ? colon + 1 : NULL;
  const LbBalancer *b = lb_balancer_lookup(name);
  if (b == NULL) {
    g_autoptr(GString) known = g_string_new(NULL);
    for (const LbBalancer *const *l = lb_balancers(); *l != NULL; l++)
      g_string_append_printf(known, "%s%s", known->len ? ", " : "", (*l)->name);
    return fail(error, LB_SCENARIO_ERROR_INVALID, sc->file, "balancers", "run",
                "%sunknown balancer '%s' (known: %s)", origin, name, known->str);
  }
  if (variant != NULL && (*variant == '\0' || variant[strspn(variant, NAME_CHARS)] != '\0'))
    return fail(error, LB_SCENARIO_ERROR_INVALID, sc->file, "balancers", "run",
                "%s'%s': a variant is NAME:VARIANT, VARIANT made of letters, digits, '-' and '_'",
                origin, label);
  if (runs_label(sc, label))
    return fail(error, LB_SCENARIO_ERROR_INVALID, sc->file, "balancers", "run",
                "'%s' is listed twice", label);
  LbBalancerRun *run = g_new0(LbBalancerRun, 1);
  run->balancer = b;
  run->params = lb_params_new(b->params);
  run->label = g_strdup(label);
  g_ptr_array_add(sc->runs, run);
  if (!read_group(kf, sc->file, name, run->params, error))
    return FALSE;
  if (variant != NULL) {
    gboolean keyed =
        b->variant_key != NULL && lb_params_set(run->params, b->variant_key, variant, NULL);
    if (!keyed && !g_key_file_has_group(kf, label)) {
      g_autofree char *why = b->variant_key != NULL
                                 ? g_strdup_printf("'%s' is not a value of [%s] %s, and ", variant,
                                                   name, b->variant_key)
                                 : g_strdup("");
      return fail(error, LB_SCENARIO_ERROR_INVALID, sc->file, "balancers", "run",
                  "%s'%s': %sno group [%s] gives the variant's parameters", origin, label, why,
                  label);
    }
    if (!read_group(kf, sc->file, label, run->params, error))
      return FALSE;
  }
  run->work = sc->work;
  g_autofree char *why = lb_balancer_refuses_model(b, sc->work->model);
  run->adapter = why != NULL ? lb_adapter_for(sc->work->model, b->needs) : NULL;
  if (run->adapter != NULL) {
    run->work = view_of(sc, kf, run->adapter, error);
    if (run->work == NULL)
      return FALSE;
    g_clear_pointer(&why, g_free);
    why = lb_balancer_refuses_model(b, run->work->model);
  }
  if (why != NULL)
    return fail(error, LB_SCENARIO_ERROR_INVALID, sc->file, "balancers", "run", "%s%s", origin,
                why);
  g_autoptr(GError) local = NULL;
  if (b->check != NULL && !b->check(sc->ranks, run->work, run->params, &local))
    return fail(error, LB_SCENARIO_ERROR_INVALID, sc->file, NULL, NULL, "%s", local->message);
  return TRUE;
}

static gboolean
read_balancers(LbScenario *sc, GKeyFile *kf, const LbScenarioOverrides *ov, GError **error)
{
  sc->runs = g_ptr_array_new_with_free_func(balancer_run_free);
  sc->views = g_ptr_array_new_with_free_func((GDestroyNotify)lb_work_free);
  if (g_key_file_has_group(kf, "balancers")) {
    gsize n = 0;
    g_auto(GStrv) keys = g_key_file_get_keys(kf, "balancers", &n, NULL);
    for (gsize i = 0; i < n; i++)
      if (strcmp(keys[i], "run") != 0)
        return fail(error, LB_SCENARIO_ERROR_UNKNOWN_KEY, sc->file, "balancers", keys[i],
                    "unknown key (known: run)");
  }
  if (ov != NULL && ov->balancer != NULL) {
    if (!add_balancer(sc, kf, ov->balancer, "--balancer: ", error))
      return FALSE;
  } else {
    g_autofree char *list = g_key_file_get_value(kf, "balancers", "run", NULL);
    if (list == NULL)
      return fail(error, LB_SCENARIO_ERROR_MISSING, sc->file, "balancers", "run",
                  "missing: name the balancers to run, e.g. run = none, mlb");
    g_auto(GStrv) names = g_strsplit_set(list, ";,", -1);
    guint named = 0;
    for (guint i = 0; names[i] != NULL; i++)
      named += *g_strstrip(names[i]) != '\0';
    for (guint i = 0; named > 0 && names[i] != NULL; i++) {
      /* "a,,b" or a trailing comma: a name left out by mistake */
      if (*names[i] == '\0')
        return fail(error, LB_SCENARIO_ERROR_INVALID, sc->file, "balancers", "run",
                    "item %u of the list is empty", i + 1);
      if (!add_balancer(sc, kf, names[i], "", error))
        return FALSE;
    }
    if (sc->runs->len == 0)
      return fail(error, LB_SCENARIO_ERROR_MISSING, sc->file, "balancers", "run",
                  "names no balancer");
  }
  /* the group of a balancer or view that does not run is checked all the
   * same */
  g_auto(GStrv) groups = g_key_file_get_groups(kf, NULL);
  for (guint i = 0; groups[i] != NULL; i++) {
    const LbAdapter *view = lb_adapter_by_group(groups[i]);
    if (view != NULL) {
      g_autoptr(LbParams) unused = lb_params_new(lb_model_param_spec(lb_model_lookup(view->to)));
      if (!read_group(kf, sc->file, groups[i], unused, error))
        return FALSE;
      continue;
    }
    const LbBalancer *b = lb_balancer_of_label(groups[i]);
    if (b == NULL || runs_label(sc, groups[i]))
      continue;
    g_autoptr(LbParams) unused = lb_params_new(b->params);
    if (!read_group(kf, sc->file, groups[i], unused, error))
      return FALSE;
  }
  return TRUE;
}

static gboolean
known_metric(const LbBalancer *b, const char *metric)
{
  /* a summary field derived from a declared metric applies only to the
   * balancers that declare it (none has no schedule_steps) */
  const LbSummaryField *f = lb_summary_lookup(metric);
  if (f != NULL && (f->where & LB_SUMMARY_RUN) && f->run_offset >= 0)
    return TRUE;
  g_autoptr(GArray) defs = lb_balancer_metric_defs(b);
  return lb_metric_defs_find(defs, metric) >= 0;
}

static char *
metric_names(const LbBalancer *b)
{
  /* named as in the JSON and lbsim list */
  g_autoptr(GString) names = g_string_new(NULL);
  g_autoptr(GArray) defs = lb_balancer_metric_defs(b);
  for (const LbSummaryField *f = lb_summary(); f->name != NULL; f++)
    if ((f->where & LB_SUMMARY_RUN) &&
        (f->run_offset >= 0 || lb_metric_defs_find(defs, f->name) >= 0))
      g_string_append_printf(names, "%s%s", names->len ? ", " : "", f->json);
  for (guint i = 0; i < defs->len; i++) {
    const LbMetricDef *d = &g_array_index(defs, LbMetricDef, i);
    if (!g_strv_contains(lb_summary_fields(), d->name))
      g_string_append_printf(names, ", %s", d->json_name);
  }
  return g_strdup(names->str);
}

static void
let_free(gpointer data)
{
  LbLet *let = data;
  g_free(let->name);
  lb_expr_free(let->expr);
  g_free(let->text);
  g_free(let);
}

/* What a formula may read: ranks, steps, the [let] names before it
 * (lets: how many of sc->lets), and any balancer's metric or phase
 * figure (BALANCER.phase.NAME.steps, .messages, .bytes, .time). */
typedef struct {
  const LbScenario *sc;
  guint lets;
  char *bad; /* the first name it may not read, and why */
} NameCheck;

static gboolean
known_phase_figure(const LbBalancer *b, const char *name)
{
  if (!g_str_has_prefix(name, "phase."))
    return FALSE;
  const char *phase = name + strlen("phase.");
  const char *dot = strrchr(phase, '.');
  if (dot == NULL)
    return FALSE;
  const char *figure = dot + 1;
  if (strcmp(figure, "steps") != 0 && strcmp(figure, "messages") != 0 &&
      strcmp(figure, "bytes") != 0 && strcmp(figure, "time") != 0)
    return FALSE;
  for (const char *const *p = b->phases; p != NULL && *p != NULL; p++)
    if (strlen(*p) == (gsize)(dot - phase) && strncmp(*p, phase, (gsize)(dot - phase)) == 0)
      return TRUE;
  return FALSE;
}

static void
check_name(const char *balancer, const char *name, gpointer data)
{
  NameCheck *c = data;
  if (c->bad != NULL)
    return;
  if (balancer == NULL) {
    if (strcmp(name, "ranks") == 0 || strcmp(name, "steps") == 0)
      return;
    for (guint i = 0; i < c->lets; i++)
      if (strcmp(((const LbLet *)c->sc->lets->pdata[i])->name, name) == 0)
        return;
    c->bad = g_strdup_printf("'%s' is not ranks, steps nor a [let] name before it", name);
    return;
  }
  const LbBalancer *b = lb_balancer_of_label(balancer);
  if (b == NULL)
    c->bad = g_strdup_printf("unknown balancer '%s'", balancer);
  else if (!known_metric(b, name) && !known_phase_figure(b, name)) {
    g_autofree char *names = metric_names(b);
    c->bad = g_strdup_printf("%s has no metric '%s' (known: %s, and phase.PHASE.steps, "
                             ".messages, .bytes or .time)",
                             b->name, name, names);
  }
}

/* [let]: NAME = FORMULA, each reading the names before it. */
static gboolean
read_lets(LbScenario *sc, GKeyFile *kf, GError **error)
{
  sc->lets = g_ptr_array_new_with_free_func(let_free);
  gsize n = 0;
  g_auto(GStrv) keys = g_key_file_get_keys(kf, "let", &n, NULL);
  for (gsize i = 0; i < n; i++) {
    const char *name = keys[i];
    gboolean plain = g_ascii_isalpha(name[0]);
    for (const char *c = name; *c != '\0'; c++)
      plain &= g_ascii_isalnum(*c) || *c == '_';
    if (!plain || strcmp(name, "ranks") == 0 || strcmp(name, "steps") == 0)
      return fail(error, LB_SCENARIO_ERROR_INVALID, sc->file, "let", name,
                  "a name is a letter, then letters, digits and '_', not ranks or steps");
    g_autofree char *text = g_key_file_get_value(kf, "let", name, NULL);
    g_autoptr(GError) local = NULL;
    LbExpr *expr = lb_expr_parse(text, &local);
    if (expr == NULL)
      return fail(error, LB_SCENARIO_ERROR_INVALID, sc->file, "let", name, "'%s': %s", text,
                  local->message);
    LbLet *let = g_new0(LbLet, 1);
    let->name = g_strdup(name);
    let->expr = expr;
    let->text = g_strdup(text);
    NameCheck check = {sc, sc->lets->len, NULL};
    g_ptr_array_add(sc->lets, let);
    lb_expr_names(expr, check_name, &check);
    if (check.bad != NULL) {
      g_autofree char *bad = check.bad;
      return fail(error, LB_SCENARIO_ERROR_INVALID, sc->file, "let", name, "'%s': %s", text, bad);
    }
  }
  return TRUE;
}

/* line: in the file, 0 for --set. */
static gboolean
add_expect(LbScenario *sc, const char *key, const char *value, guint line, GError **error)
{
  LbExpect *e = NULL;
  g_autoptr(GError) local = NULL;
  g_autofree char *where =
      line > 0 ? g_strdup_printf("%s:%u", sc->file, line) : g_strdup_printf("%s", sc->file);
  if (!lb_expect_parse(key, value, &e, &local))
    return fail(error, LB_SCENARIO_ERROR_INVALID, where, "expect", key, "%s", local->message);
  e->line = line;
  g_ptr_array_add(sc->expects, e);
  const LbBalancer *b = lb_balancer_of_label(e->balancer);
  if (b == NULL)
    return fail(error, LB_SCENARIO_ERROR_INVALID, where, "expect", key, "unknown balancer '%s'",
                e->balancer);
  if (!known_metric(b, e->metric)) {
    g_autofree char *names = metric_names(b);
    return fail(error, LB_SCENARIO_ERROR_INVALID, where, "expect", key,
                "%s has no metric '%s' (known: %s)", b->name, strchr(key, '.') + 1, names);
  }
  if (e->formula != NULL) {
    NameCheck check = {sc, sc->lets->len, NULL};
    lb_expr_names(e->formula, check_name, &check);
    if (check.bad != NULL) {
      g_autofree char *bad = check.bad;
      return fail(error, LB_SCENARIO_ERROR_INVALID, where, "expect", key,
                  "'%s' does not compare with a number, another run's metric or a formula it "
                  "can read: %s",
                  e->text, bad);
    }
  }
  if (e->other_balancer == NULL)
    return TRUE;
  const LbBalancer *other = lb_balancer_of_label(e->other_balancer);
  if (other == NULL)
    return fail(error, LB_SCENARIO_ERROR_INVALID, where, "expect", key,
                "'%s': unknown balancer '%s'", e->text, e->other_balancer);
  if (!known_metric(other, e->other_metric)) {
    g_autofree char *names = metric_names(other);
    return fail(error, LB_SCENARIO_ERROR_INVALID, where, "expect", key,
                "'%s': %s has no metric '%s' (known: %s)", e->text, other->name,
                strrchr(e->text, '.') + 1, names);
  }
  return TRUE;
}

/* lines: key, value pairs from the file; what GKeyFile holds in [expect] came
 * from --set and replaces the file's lines with the same key. */
static gboolean
read_expects(LbScenario *sc, GKeyFile *kf, GPtrArray *lines, GError **error)
{
  sc->expects = g_ptr_array_new_with_free_func((GDestroyNotify)lb_expect_free);
  for (guint i = 0; i + 2 < lines->len; i += 3) {
    g_autofree char *canonical = expect_key_canonical(lines->pdata[i]);
    if (!g_key_file_has_key(kf, "expect", canonical, NULL) &&
        !add_expect(sc, lines->pdata[i], lines->pdata[i + 1], (guint)atoi(lines->pdata[i + 2]),
                    error))
      return FALSE;
  }
  gsize n = 0;
  g_auto(GStrv) keys = g_key_file_get_keys(kf, "expect", &n, NULL);
  for (gsize i = 0; i < n; i++) {
    g_autofree char *value = g_key_file_get_value(kf, "expect", keys[i], NULL);
    if (!add_expect(sc, keys[i], value, 0, error))
      return FALSE;
  }
  return TRUE;
}

/* Each work checked its own estimate; the steps come on top of them all. */
static gboolean
check_memory(LbScenario *sc, GError **error)
{
  double works = sc->work->memory;
  for (guint i = 0; i < sc->views->len; i++)
    works += ((const LbWork *)sc->views->pdata[i])->memory;
  double steps = (double)sc->nadaptations * sc->runs->len * LB_STEP_BYTES;
  sc->memory = works + steps;
  double have = lb_machine_memory();
  if (have > 0 && sc->memory > have) {
    g_autofree char *needs = lb_gib_text(sc->memory), *has = lb_gib_text(have);
    return fail(error, LB_SCENARIO_ERROR_INVALID, sc->file, "scenario", "steps",
                "%u steps of %u balancer runs and the workload need about %s, more than this "
                "machine's %s",
                sc->nadaptations, sc->runs->len, needs, has);
  }
  return TRUE;
}

static gboolean
check_groups(GKeyFile *kf, const char *file, GError **error)
{
  gsize n = 0;
  g_auto(GStrv) groups = g_key_file_get_groups(kf, &n);
  for (gsize i = 0; i < n; i++) {
    const char *g = groups[i];
    if (strcmp(g, "scenario") == 0 || strcmp(g, "workload") == 0 || strcmp(g, "balancers") == 0 ||
        strcmp(g, "expect") == 0 || strcmp(g, "let") == 0 || lb_balancer_of_label(g) != NULL ||
        lb_adapter_by_group(g) != NULL)
      continue;
    return fail(error, LB_SCENARIO_ERROR_UNKNOWN_GROUP, file, g, NULL,
                "unknown group (known: scenario, workload, balancers, expect, let, a balancer's "
                "name, NAME:VARIANT, or a view of a field: as-htree, as-samr, as-loop)");
  }
  return TRUE;
}

/* [scenario] plugins, loaded before the groups are checked: a plugin's
 * balancers may have groups of their own, and run lists name them. */
static gboolean
load_plugins(GKeyFile *kf, const char *path, GError **error)
{
  g_autofree char *list = g_key_file_get_value(kf, "scenario", "plugins", NULL);
  if (list == NULL)
    return TRUE;
  g_autofree char *dir = g_path_get_dirname(path);
  g_auto(GStrv) files = g_strsplit(list, ",", -1);
  for (guint i = 0; files[i] != NULL; i++) {
    const char *file = g_strstrip(files[i]);
    if (*file == '\0')
      return fail(error, LB_SCENARIO_ERROR_INVALID, path, "scenario", "plugins",
                  "an empty entry in '%s'", list);
    g_autofree char *full =
        g_path_is_absolute(file) ? g_strdup(file) : g_build_filename(dir, file, NULL);
    g_autoptr(GError) local = NULL;
    if (!lb_plugin_load(full, &local))
      return fail(error, LB_SCENARIO_ERROR_INVALID, path, "scenario", "plugins", "%s",
                  local->message);
  }
  return TRUE;
}

char *
lb_scenario_find(const char *name)
{
  if (g_file_test(name, G_FILE_TEST_EXISTS) || g_path_is_absolute(name) || *name == '\0' ||
      strstr(name, "..") != NULL)
    return g_strdup(name);
  /* a shipped scenario by its name: "mlb-teach-16", "papers/lbd/axes-shock" */
  g_autofree char *file =
      g_str_has_suffix(name, ".ini") ? g_strdup(name) : g_strconcat(name, ".ini", NULL);
  char *shipped = lb_data_file("scenarios", file, NULL);
  if (shipped != NULL && g_file_test(shipped, G_FILE_TEST_IS_REGULAR))
    return shipped;
  g_free(shipped);
  return g_strdup(name);
}

char *
lb_scenario_description(const char *path)
{
  g_autofree char *text = NULL;
  gsize length = 0;
  if (!lb_input_read(path, LB_INPUT_SCENARIO, &text, &length, NULL))
    return NULL;
  /* [expect]'s lines are no keys GKeyFile reads: preprocess takes them out */
  g_autoptr(GPtrArray) expect_lines = g_ptr_array_new_with_free_func(g_free);
  g_autofree char *clean = preprocess(path, text, expect_lines, NULL);
  g_autoptr(GKeyFile) kf = g_key_file_new();
  if (clean == NULL || !g_key_file_load_from_data(kf, clean, (gsize)-1, G_KEY_FILE_NONE, NULL))
    return NULL;
  return g_key_file_get_string(kf, "scenario", "description", NULL);
}

LbScenario *
lb_scenario_load_text(const char *text, const char *loads, const char *name,
                      const LbScenarioOverrides *ov, GError **error)
{
  g_autofree char *dir = g_dir_make_tmp("lbsim-scenario-XXXXXX", error);
  if (dir == NULL)
    return NULL;
  g_autofree char *path = g_build_filename(dir, "scenario.ini", NULL);
  g_autofree char *loads_path = g_build_filename(dir, "loads.txt", NULL);
  g_autoptr(GError) local = NULL;
  LbScenario *sc = NULL;
  if (g_file_set_contents(path, text, -1, &local) &&
      (loads == NULL || g_file_set_contents(loads_path, loads, -1, &local)))
    sc = lb_scenario_load(path, ov, &local);
  g_unlink(path);
  g_unlink(loads_path);
  g_rmdir(dir);
  if (sc != NULL)
    return sc;
  if (name == NULL) {
    g_propagate_error(error, g_steal_pointer(&local));
    return NULL;
  }
  /* the user never saw the temporary file: name the scenario instead */
  gboolean named = g_str_has_prefix(local->message, path);
  g_set_error(error, local->domain, local->code, "%s%s%s", name, named ? "" : ": ",
              local->message + (named ? strlen(path) : 0));
  return NULL;
}

LbScenario *
lb_scenario_load(const char *given, const LbScenarioOverrides *ov, GError **error)
{
  g_autofree char *path = lb_scenario_find(given);
  g_autoptr(LbScenario) sc = g_new0(LbScenario, 1);
  sc->file = g_strdup(path);
  g_autofree char *text = NULL;
  gsize length = 0;
  g_autoptr(GError) local = NULL;
  if (!lb_input_read(path, LB_INPUT_SCENARIO, &text, &length, &local)) {
    /* a name that is no file here: say where lbsim looked */
    g_autofree char *shipped = lb_data_file("scenarios", NULL);
    if (g_error_matches(local, G_FILE_ERROR, G_FILE_ERROR_NOENT) && strcmp(path, given) == 0 &&
        shipped != NULL && !g_path_is_absolute(given))
      g_set_error(error, LB_SCENARIO_ERROR, LB_SCENARIO_ERROR_PARSE,
                  "%s; and no shipped scenario %s%s in %s (lbsim list --scenarios lists them)",
                  local->message, given, g_str_has_suffix(given, ".ini") ? "" : "(.ini)", shipped);
    else
      g_set_error_literal(error, LB_SCENARIO_ERROR, LB_SCENARIO_ERROR_PARSE, local->message);
    return NULL;
  }
  /* an editor's UTF-8 byte-order mark is no part of the first group's name */
  const char *body = text;
  if (length >= 3 && memcmp(text, "\xef\xbb\xbf", 3) == 0) {
    body += 3;
    length -= 3;
  }
  /* the rest would be cut off unseen, [expect] lines and all */
  guint nul = lb_text_nul_line(body, length);
  if (nul != 0) {
    g_autofree char *where = g_strdup_printf("%s:%u", path, nul);
    fail(error, LB_SCENARIO_ERROR_PARSE, where, NULL, NULL, "a NUL byte (is this a text file?)");
    return NULL;
  }
  g_autoptr(GPtrArray) expect_lines = g_ptr_array_new_with_free_func(g_free);
  g_autofree char *clean = preprocess(path, body, expect_lines, error);
  if (clean == NULL)
    return NULL;
  g_autoptr(GKeyFile) kf = g_key_file_new();
  if (!g_key_file_load_from_data(kf, clean, (gsize)-1, G_KEY_FILE_NONE, &local)) {
    fail(error, LB_SCENARIO_ERROR_PARSE, path, NULL, NULL, "%s", local->message);
    return NULL;
  }
  if (!load_plugins(kf, path, error))
    return NULL;
  /* expect_lines holds key, value, line number triples */
  g_autofree char *file_pattern = workload_value(kf, "pattern");
  if (!check_pattern_keys(kf, path, file_pattern != NULL ? file_pattern : "random", NULL, error))
    return NULL;
  g_autoptr(GHashTable) set_keys = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, NULL);
  for (guint i = 0; ov != NULL && ov->sets != NULL && ov->sets[i] != NULL; i++) {
    if (!apply_override(kf, path, ov->sets[i], error))
      return NULL;
    if (g_str_has_prefix(ov->sets[i], "workload.")) {
      const char *key = ov->sets[i] + strlen("workload.");
      g_hash_table_add(set_keys, g_strstrip(g_strndup(key, strcspn(key, "="))));
    }
  }
  if (ov != NULL && ov->ranks > 0) {
    g_autofree char *ranks = g_strdup_printf("%d", ov->ranks);
    g_key_file_set_value(kf, "scenario", "ranks", ranks);
  }
  if (!check_groups(kf, path, error))
    return NULL;

  g_autoptr(LbParams) s = lb_params_new(scenario_params);
  if (!read_group(kf, path, "scenario", s, error))
    return NULL;
  if (!lb_params_is_set(s, "ranks")) {
    fail(error, LB_SCENARIO_ERROR_MISSING, path, "scenario", "ranks", "missing");
    return NULL;
  }
  static const char *const texts[] = {"name", "description"};
  for (guint i = 0; i < G_N_ELEMENTS(texts); i++) {
    if (lb_params_is_set(s, texts[i]) &&
        !g_utf8_validate(lb_params_get_string(s, texts[i]), -1, NULL)) {
      fail(error, LB_SCENARIO_ERROR_INVALID, path, "scenario", texts[i], "not valid UTF-8");
      return NULL;
    }
  }
  g_autofree char *dir = g_path_get_dirname(path);
  g_autofree char *base = g_path_get_basename(path);
  if (g_str_has_suffix(base, ".ini"))
    base[strlen(base) - 4] = '\0';
  sc->name = g_strdup(lb_params_is_set(s, "name") ? lb_params_get_string(s, "name") : base);
  sc->description =
      lb_params_is_set(s, "description") ? g_strdup(lb_params_get_string(s, "description")) : NULL;
  sc->ranks = (guint)lb_params_get_int(s, "ranks");
  sc->seed = (guint64)lb_params_get_int(s, "seed");
  sc->placement_seed_set = lb_params_is_set(s, "placement-seed");
  sc->placement_seed =
      sc->placement_seed_set ? (guint64)lb_params_get_int(s, "placement-seed") : sc->seed;
  sc->nadaptations = (guint)lb_params_get_int(s, "steps");
  const char *placement = lb_params_get_string(s, "placement");
  sc->placement = strcmp(placement, "gray") == 0     ? LB_PLACEMENT_GRAY
                  : strcmp(placement, "linear") == 0 ? LB_PLACEMENT_LINEAR
                  : strcmp(placement, "cost") == 0   ? LB_PLACEMENT_COST
                  : strcmp(placement, "queue") == 0  ? LB_PLACEMENT_QUEUE
                                                     : LB_PLACEMENT_AUTO;
  const char *background =
      lb_params_is_set(s, "background") ? lb_params_get_string(s, "background") : "";
  sc->loads = lb_background_parse(background, &local);
  if (sc->loads == NULL) {
    fail(error, LB_SCENARIO_ERROR_INVALID, path, "scenario", "background", "%s", local->message);
    return NULL;
  }
  if (sc->loads->len > 0)
    sc->background = g_strstrip(g_strdup(background));
  sc->background_traffic = (guint)lb_params_get_int(s, "background-traffic");
  if (ov != NULL && ov->platform != NULL) {
    g_autofree char *cwd = g_get_current_dir();
    if (!resolve_platform(sc, cwd, ov->platform, "--platform: ", error))
      return NULL;
  } else {
    if (!lb_params_is_set(s, "platform")) {
      fail(error, LB_SCENARIO_ERROR_MISSING, path, "scenario", "platform", "missing");
      return NULL;
    }
    if (!resolve_platform(sc, dir, lb_params_get_string(s, "platform"), "", error))
      return NULL;
  }

  if (!read_workload(sc, kf, dir, set_keys, error))
    return NULL;
  if (!read_balancers(sc, kf, ov, error) || !check_memory(sc, error) || !read_lets(sc, kf, error) ||
      !read_expects(sc, kf, expect_lines, error))
    return NULL;
  return g_steal_pointer(&sc);
}
