/* Jobs: written down, read back, and run on the child side. */
#include "runner/job.h"

#include <stdio.h>
#include <string.h>

#include "runner/signals.h"
#include "io/input.h"
#include "io/output.h"
#include "lbsim/params.h"
#include "lbsim/plugin.h"
#include "lbsim/workload.h"
#include "runner/transport.h"

#define GROUP "job"

LbJob *
lb_job_new(const char *scenario, const LbScenarioOverrides *ov, const char *balancer)
{
  LbJob *job = g_new0(LbJob, 1);
  job->scenario = g_strdup(scenario);
  job->balancer = g_strdup(balancer);
  if (ov != NULL) {
    job->ranks = ov->ranks;
    job->platform = g_strdup(ov->platform);
    job->sets = g_strdupv((char **)ov->sets);
  }
  const char *const *plugins = lb_plugins_loaded();
  if (plugins[0] != NULL)
    job->plugins = g_strdupv((char **)plugins);
  return job;
}

void
lb_job_free(LbJob *job)
{
  if (job == NULL)
    return;
  g_free(job->scenario);
  g_free(job->platform);
  g_free(job->balancer);
  g_strfreev(job->sets);
  g_strfreev(job->plugins);
  g_free(job);
}

/* Key files hold UTF-8; a path is bytes. Text that is not UTF-8 goes under
 * KEY-bytes, with C escapes (\377) for the bytes. */
static void
set_text(GKeyFile *kf, const char *key, const char *value)
{
  if (g_utf8_validate(value, -1, NULL)) {
    g_key_file_set_string(kf, GROUP, key, value);
    return;
  }
  g_autofree char *escaped = g_strescape(value, NULL);
  g_autofree char *name = g_strdup_printf("%s-bytes", key);
  g_key_file_set_string(kf, GROUP, name, escaped);
}

char *
lb_job_to_data(const LbJob *job)
{
  g_autoptr(GKeyFile) kf = g_key_file_new();
  set_text(kf, "scenario", job->scenario);
  set_text(kf, "balancer", job->balancer);
  if (job->ranks > 0)
    g_key_file_set_integer(kf, GROUP, "ranks", job->ranks);
  if (job->platform != NULL)
    set_text(kf, "platform", job->platform);
  for (guint i = 0; job->sets != NULL && job->sets[i] != NULL; i++) {
    g_autofree char *key = g_strdup_printf("set%u", i + 1);
    set_text(kf, key, job->sets[i]);
  }
  for (guint i = 0; job->plugins != NULL && job->plugins[i] != NULL; i++) {
    g_autofree char *key = g_strdup_printf("plugin%u", i + 1);
    set_text(kf, key, job->plugins[i]);
  }
  return g_key_file_to_data(kf, NULL, NULL);
}

/* the quark's name is the macro's text, spaces and all */
/* clang-format off */
G_DEFINE_QUARK(lb-job-error-quark, lb_job_error)
/* clang-format on */

static gboolean G_GNUC_PRINTF(5, 6)
    fail(GError **error, int code, const char *where, const char *key, const char *format, ...)
{
  va_list args;
  va_start(args, format);
  g_autofree char *text = g_strdup_vprintf(format, args);
  va_end(args);
  if (key != NULL)
    g_set_error(error, LB_JOB_ERROR, code, "%s: [" GROUP "] %s: %s", where, key, text);
  else
    g_set_error(error, LB_JOB_ERROR, code, "%s: %s", where, text);
  return FALSE;
}

#define KNOWN_KEYS "scenario, balancer, ranks, platform, set1, set2, ..., plugin1, plugin2, ..."

/* Text of the file quoted in a message: its first 60 characters, as
 * UTF-8 (a -bytes value need not be). */
static char *
excerpt(const char *text)
{
  g_autofree char *valid = g_utf8_make_valid(text, -1);
  if (g_utf8_strlen(valid, -1) <= 60)
    return g_steal_pointer(&valid);
  g_autofree char *start = g_utf8_substring(valid, 0, 60);
  return g_strconcat(start, "...", NULL);
}

/* N of PREFIXN: digits without a leading zero; 0 when name is not one. */
static guint
numbered(const char *name, const char *prefix)
{
  guint64 n = 0;
  gsize len = strlen(prefix);
  if (!g_str_has_prefix(name, prefix) || name[len] == '0' ||
      !g_ascii_string_to_unsigned(name + len, 10, 1, G_MAXUINT, &n, NULL))
    return 0;
  return (guint)n;
}

static guint
set_number(const char *name)
{
  return numbered(name, "set");
}

/* A key of the group, without its -bytes form: the key it sets, or NULL. */
static char *
known_key(const char *name)
{
  g_autofree char *plain =
      g_str_has_suffix(name, "-bytes") ? g_strndup(name, strlen(name) - strlen("-bytes")) : NULL;
  const char *key = plain != NULL ? plain : name;
  if (set_number(key) == 0 && numbered(key, "plugin") == 0 && strcmp(key, "scenario") != 0 &&
      strcmp(key, "balancer") != 0 && strcmp(key, "platform") != 0 &&
      (plain != NULL || strcmp(key, "ranks") != 0))
    return NULL;
  return g_strdup(key);
}

/* name:LINE, the line of key */
static char *
line_of(const char *name, GHashTable *lines, const char *key)
{
  return g_strdup_printf("%s:%u", name, GPOINTER_TO_UINT(g_hash_table_lookup(lines, key)));
}

static int
compare_uint(gconstpointer a, gconstpointer b)
{
  guint x = *(const guint *)a, y = *(const guint *)b;
  return x < y ? -1 : x > y;
}

/* GKeyFile would merge a repeated group, keep the last of a repeated key
 * and take any key at all: the lines are checked here first, each key's
 * line kept (in lines, by key) for the errors about its value. */
static gboolean
scan_lines(const char *name, const char *data, GHashTable *lines, GError **error)
{
  g_auto(GStrv) text = g_strsplit(data, "\n", -1);
  guint group = 0;
  g_autoptr(GArray) sets = g_array_new(FALSE, FALSE, sizeof(guint));
  for (guint i = 0; text[i] != NULL; i++) {
    g_autofree char *where = g_strdup_printf("%s:%u", name, i + 1);
    char *line = g_strstrip(text[i]);
    if (*line == '\0' || *line == '#')
      continue;
    if (!g_utf8_validate(line, -1, NULL))
      return fail(error, LB_JOB_ERROR_PARSE, where, NULL,
                  "not UTF-8 (a path that is not is written KEY-bytes, with C escapes)");
    g_autofree char *shown = excerpt(line);
    if (*line == '[') {
      if (strcmp(line, "[" GROUP "]") != 0)
        return fail(error, LB_JOB_ERROR_PARSE, where, NULL,
                    "%s: unknown group (a job file holds one [" GROUP "] group)", shown);
      if (group != 0)
        return fail(error, LB_JOB_ERROR_PARSE, where, NULL,
                    "[" GROUP "]: the group is repeated (first on line %u)", group);
      group = i + 1;
      continue;
    }
    const char *eq = strchr(line, '=');
    if (eq == NULL || eq == line)
      return fail(error, LB_JOB_ERROR_PARSE, where, NULL, "'%s': expected KEY = VALUE", shown);
    if (group == 0)
      return fail(error, LB_JOB_ERROR_PARSE, where, NULL, "a key before the [" GROUP "] group");
    g_autofree char *key = g_strchomp(g_strndup(line, (gsize)(eq - line)));
    g_autofree char *plain = known_key(key);
    g_autofree char *key_shown = excerpt(key);
    if (plain == NULL)
      return fail(error, LB_JOB_ERROR_PARSE, where, key_shown,
                  strcmp(key, "set") == 0
                      ? "unknown key (one override a line: set1 = GROUP.KEY=VALUE, set2 = ...)"
                      : "unknown key (known: " KNOWN_KEYS ")");
    guint first = GPOINTER_TO_UINT(g_hash_table_lookup(lines, plain));
    if (first != 0)
      return fail(error, LB_JOB_ERROR_PARSE, where, key, "the key is repeated (first on line %u)",
                  first);
    guint n = set_number(plain);
    if (n != 0)
      g_array_append_val(sets, n);
    g_hash_table_insert(lines, g_steal_pointer(&plain), GUINT_TO_POINTER(i + 1));
  }
  if (group == 0)
    return fail(error, LB_JOB_ERROR_PARSE, name, NULL, "no [" GROUP "] group");
  g_array_sort(sets, compare_uint);
  for (guint k = 0; k < sets->len; k++) {
    guint n = g_array_index(sets, guint, k);
    if (n == k + 1)
      continue;
    g_autofree char *key = g_strdup_printf("set%u", n);
    g_autofree char *where = line_of(name, lines, key);
    return fail(error, LB_JOB_ERROR_PARSE, where, key,
                "no set%u before it (set lines are numbered from 1, without gaps)", k + 1);
  }
  return TRUE;
}

#define NAME_CHARS "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_"

/* The form --set takes; whether GROUP and KEY exist is the scenario's to
 * say, as for --set. */
static gboolean
is_override(const char *set)
{
  gsize group = strspn(set, NAME_CHARS ":");
  if (group == 0 || set[group] != '.')
    return FALSE;
  const char *key = set + group + 1;
  gsize len = strspn(key, NAME_CHARS ".:");
  const char *eq = key + len;
  while (*eq == ' ' || *eq == '\t')
    eq++;
  return len > 0 && *eq == '=';
}

/* The value of key (or key-bytes), from its line. */
static char *
value_of(const char *name, GKeyFile *kf, GHashTable *lines, const char *key, GError **error)
{
  g_autofree char *where = line_of(name, lines, key);
  g_autofree char *bytes = g_strdup_printf("%s-bytes", key);
  gboolean escaped = g_key_file_has_key(kf, GROUP, bytes, NULL);
  g_autoptr(GError) local = NULL;
  g_autofree char *value = g_key_file_get_string(kf, GROUP, escaped ? bytes : key, &local);
  if (value == NULL) {
    fail(error, LB_JOB_ERROR_INVALID, where, escaped ? bytes : key, "%s", local->message);
    return NULL;
  }
  if (escaped) {
    char *raw = g_strcompress(value);
    g_free(value);
    value = raw;
  }
  if (*value == '\0') {
    fail(error, LB_JOB_ERROR_INVALID, where, key, "empty");
    return NULL;
  }
  return g_steal_pointer(&value);
}

LbJob *
lb_job_parse(const char *name, const char *data, gsize length, GError **error)
{
  guint nul = lb_text_nul_line(data, length);
  if (nul != 0) {
    g_autofree char *where = g_strdup_printf("%s:%u", name, nul);
    fail(error, LB_JOB_ERROR_PARSE, where, NULL, "a NUL byte (is this a text file?)");
    return NULL;
  }
  g_autoptr(GHashTable) lines = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, NULL);
  g_autofree char *text = g_strndup(data, length);
  if (!scan_lines(name, text, lines, error))
    return NULL;
  g_autoptr(GKeyFile) kf = g_key_file_new();
  g_autoptr(GError) local = NULL;
  if (!g_key_file_load_from_data(kf, text, length, G_KEY_FILE_NONE, &local)) {
    fail(error, LB_JOB_ERROR_PARSE, name, NULL, "%s", local->message);
    return NULL;
  }
  static const char *const needed[] = {"scenario", "balancer"};
  for (guint i = 0; i < G_N_ELEMENTS(needed); i++)
    if (!g_hash_table_contains(lines, needed[i])) {
      fail(error, LB_JOB_ERROR_MISSING, name, needed[i], "missing");
      return NULL;
    }
  g_autoptr(LbJob) job = g_new0(LbJob, 1);
  if ((job->scenario = value_of(name, kf, lines, "scenario", error)) == NULL ||
      (job->balancer = value_of(name, kf, lines, "balancer", error)) == NULL)
    return NULL;
  if (g_hash_table_contains(lines, "ranks")) {
    g_autofree char *ranks = value_of(name, kf, lines, "ranks", error);
    if (ranks == NULL)
      return NULL;
    g_strstrip(ranks);
    gint64 max = (gint64)lb_param_spec_find(lb_scenario_params(), "ranks")->max, n = 0;
    if (!g_ascii_string_to_signed(ranks, 10, 1, max, &n, NULL)) {
      g_autofree char *where = line_of(name, lines, "ranks");
      g_autofree char *shown = excerpt(ranks);
      fail(error, LB_JOB_ERROR_INVALID, where, "ranks",
           "'%s': expected a whole number from 1 to %" G_GINT64_FORMAT, shown, max);
      return NULL;
    }
    job->ranks = (gint)n;
  }
  if (g_hash_table_contains(lines, "platform") &&
      (job->platform = value_of(name, kf, lines, "platform", error)) == NULL)
    return NULL;
  g_autoptr(GPtrArray) sets = g_ptr_array_new_null_terminated(0, g_free, TRUE);
  for (guint i = 1;; i++) {
    g_autofree char *key = g_strdup_printf("set%u", i);
    if (!g_hash_table_contains(lines, key))
      break;
    char *value = value_of(name, kf, lines, key, error);
    if (value == NULL)
      return NULL;
    g_ptr_array_add(sets, value);
    if (!is_override(value)) {
      g_autofree char *where = line_of(name, lines, key);
      g_autofree char *shown = excerpt(value);
      fail(error, LB_JOB_ERROR_INVALID, where, key,
           "'%s': expected GROUP.KEY=VALUE, GROUP and KEY made of letters, digits, '-' and '_' "
           "(as --set takes)",
           shown);
      return NULL;
    }
  }
  if (sets->len > 0)
    job->sets = (char **)g_ptr_array_free(g_steal_pointer(&sets), FALSE);
  g_autoptr(GPtrArray) plugins = g_ptr_array_new_null_terminated(0, g_free, TRUE);
  for (guint i = 1;; i++) {
    g_autofree char *key = g_strdup_printf("plugin%u", i);
    if (!g_hash_table_contains(lines, key))
      break;
    char *value = value_of(name, kf, lines, key, error);
    if (value == NULL)
      return NULL;
    g_ptr_array_add(plugins, value);
  }
  /* a gap would leave the rest unread */
  GHashTableIter it;
  gpointer key = NULL;
  g_hash_table_iter_init(&it, lines);
  while (g_hash_table_iter_next(&it, &key, NULL)) {
    guint n = numbered(key, "plugin");
    if (n > plugins->len + 1) {
      g_autofree char *where = line_of(name, lines, key);
      fail(error, LB_JOB_ERROR_PARSE, where, key,
           "no plugin%u before it (plugin lines are numbered from 1, without gaps)",
           plugins->len + 1);
      return NULL;
    }
  }
  if (plugins->len > 0)
    job->plugins = (char **)g_ptr_array_free(g_steal_pointer(&plugins), FALSE);
  return g_steal_pointer(&job);
}

LbJob *
lb_job_from_data(const char *data, GError **error)
{
  return lb_job_parse("the job", data, strlen(data), error);
}

LbJob *
lb_job_from_file(const char *path, GError **error)
{
  g_autofree char *text = NULL;
  gsize length = 0;
  if (!lb_input_read(path, LB_INPUT_SCENARIO, &text, &length, error))
    return NULL;
  return lb_job_parse(path, text, length, error);
}

LbScenario *
lb_job_load(const LbJob *job, GError **error)
{
  for (guint i = 0; job->plugins != NULL && job->plugins[i] != NULL; i++)
    if (!lb_plugin_load(job->plugins[i], error))
      return NULL;
  LbScenarioOverrides ov = {job->ranks, job->platform, job->balancer,
                            (const char *const *)job->sets};
  return lb_scenario_load(job->scenario, &ov, error);
}

int
lb_job_execute(const LbJob *job, const LbScenario *loaded, guint index, const LbRunOptions *options,
               const char *result_path, const char *error_path)
{
  lb_signals_alone();
  g_autoptr(GError) error = NULL;
  g_autoptr(LbScenario) own = loaded == NULL ? lb_job_load(job, &error) : NULL;
  const LbScenario *sc = loaded != NULL ? loaded : own;
  if (loaded == NULL)
    index = 0;
  int code = 2;
  g_autoptr(LbRunResult) result = NULL;
  if (sc != NULL) {
    g_assert(g_strcmp0(((LbBalancerRun *)sc->runs->pdata[index])->label, job->balancer) == 0);
    result = lb_run_simulate(sc, index, options, &error);
    if (result == NULL)
      code = g_error_matches(error, LB_RUN_ERROR, LB_RUN_ERROR_INVARIANT) ? 3
             : g_error_matches(error, LB_RUN_ERROR, LB_RUN_ERROR_AT_END)  ? 1
                                                                          : 2;
  }
  if (result == NULL) {
    if (error_path != NULL)
      g_file_set_contents(error_path, error->message, -1, NULL);
    else
      g_printerr("lbsim: %s\n", error->message);
    return code;
  }
  g_autofree char *text = lb_result_to_transport(result);
  if (!lb_output_write(result_path, text, -1, &error)) {
    if (error_path != NULL)
      g_file_set_contents(error_path, error->message, -1, NULL);
    else
      g_printerr("lbsim: %s\n", error->message);
    return 1;
  }
  return 0;
}
