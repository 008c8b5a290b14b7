/* lbsim's results read back (see results.h): the user's documents first,
 * then a child's transport. Errors name the member, as "runs[0].summary.
 * messages: expected ..." (a document's also its source). */
#include "report/results.h"

#include <json-glib/json-glib.h>
#include <math.h>
#include <string.h>

#include "io/input.h"
#include "lbsim/balancer.h"
#include "lbsim/plugin.h"
#include "lbsim/scenario.h"
#include "metrics/metrics.h"
#include "metrics/summary.h"
#include "report/report.h"

/* the quark's name is the macro's text, spaces and all */
/* clang-format off */
G_DEFINE_QUARK(lb-results-error-quark, lb_results_error)
/* clang-format on */

/* ---- reading ---- */

/* "where: what", or "what" where where is empty */
static gboolean G_GNUC_PRINTF(3, 4) bad(GError **error, const char *where, const char *format, ...)
{
  va_list args;
  va_start(args, format);
  g_autofree char *what = g_strdup_vprintf(format, args);
  va_end(args);
  g_set_error(error, LB_RESULTS_ERROR, LB_RESULTS_ERROR_INPUT, "%s%s%s", where,
              *where != '\0' ? ": " : "", what);
  return FALSE;
}

/* where.key, the member's name in messages */
static char *
member_name(const char *where, const char *key)
{
  return *where != '\0' ? g_strdup_printf("%s.%s", where, key) : g_strdup(key);
}

static gboolean G_GNUC_PRINTF(4, 5)
    bad_member(GError **error, const char *where, const char *key, const char *format, ...)
{
  va_list args;
  va_start(args, format);
  g_autofree char *what = g_strdup_vprintf(format, args);
  va_end(args);
  g_autofree char *name = member_name(where, key);
  return bad(error, name, "%s", what);
}

static JsonNode *
node_of(JsonObject *o, const char *key)
{
  return json_object_has_member(o, key) ? json_object_get_member(o, key) : NULL;
}

static gboolean
is_string(JsonNode *n)
{
  return n != NULL && JSON_NODE_HOLDS_VALUE(n) && json_node_get_value_type(n) == G_TYPE_STRING;
}

/* The members a reader takes, json-glib's parse of the whole text first
 * (io/input.h). */
static JsonParser *
parse(const char *text, gsize length, const char *not_object, JsonObject **root, GError **error)
{
  return lb_input_json_object(text, length, not_object, LB_RESULTS_ERROR, LB_RESULTS_ERROR_INPUT,
                              root, error);
}

static double
max_ranks(void)
{
  return lb_param_spec_find(lb_scenario_params(), "ranks")->max;
}

static const LbBalancer *
balancer_of(const char *where, const char *label, GError **error)
{
  const LbBalancer *b = lb_balancer_of_label(label);
  if (b == NULL)
    bad_member(error, where, "balancer", "'%s' is not a balancer of this lbsim (lbsim list)",
               label);
  return b;
}

/* ---- a user's document ---- */

/* A member that must hold a node of type (an object, an array); absent,
 * when not needed: *out NULL. */
static gboolean
read_node(JsonObject *o, const char *key, const char *where, gboolean needed, JsonNodeType type,
          JsonNode **out, GError **error)
{
  JsonNode *n = node_of(o, key);
  *out = NULL;
  if (n == NULL && !needed)
    return TRUE;
  if (n == NULL || json_node_get_node_type(n) != type)
    return bad_member(error, where, key, "%sexpected %s", n == NULL ? "missing, " : "",
                      type == JSON_NODE_OBJECT ? "an object" : "an array");
  *out = n;
  return TRUE;
}

static gboolean
read_object(JsonObject *o, const char *key, const char *where, gboolean needed, JsonObject **out,
            GError **error)
{
  JsonNode *n;
  if (!read_node(o, key, where, needed, JSON_NODE_OBJECT, &n, error))
    return FALSE;
  *out = n != NULL ? json_node_get_object(n) : NULL;
  return TRUE;
}

static gboolean
read_array(JsonObject *o, const char *key, const char *where, gboolean needed, JsonArray **out,
           GError **error)
{
  JsonNode *n;
  if (!read_node(o, key, where, needed, JSON_NODE_ARRAY, &n, error))
    return FALSE;
  *out = n != NULL ? json_node_get_array(n) : NULL;
  return TRUE;
}

/* A string member, copied into *out; absent, when not needed: NULL. A
 * needed one is not empty: the scenario's name names the report's files. */
static gboolean
read_string(JsonObject *o, const char *key, const char *where, gboolean needed, char **out,
            GError **error)
{
  JsonNode *n = node_of(o, key);
  *out = NULL;
  if (n == NULL && !needed)
    return TRUE;
  if (!is_string(n))
    return bad_member(error, where, key, "%sexpected a string", n == NULL ? "missing, " : "");
  if (needed && *json_node_get_string(n) == '\0')
    return bad_member(error, where, key, "empty");
  *out = g_strdup(json_node_get_string(n));
  return TRUE;
}

/* A run of a plugin's balancer names the plugin's file: loaded when the
 * balancer is not known yet. */
static gboolean
load_plugin_of(JsonObject *o, const char *where, const char *label, GError **error)
{
  if (lb_balancer_of_label(label) != NULL || !json_object_has_member(o, "plugin"))
    return TRUE;
  g_autofree char *plugin = NULL;
  if (!read_string(o, "plugin", where, TRUE, &plugin, error))
    return FALSE;
  g_autoptr(GError) local = NULL;
  if (!lb_plugin_load(plugin, &local))
    return bad_member(error, where, "plugin", "%s", local->message);
  return TRUE;
}

/* A number of a document: lbsim writes a non-finite value as null. */
static gboolean
node_number(JsonNode *n, double *out)
{
  if (n != NULL && JSON_NODE_HOLDS_NULL(n)) {
    *out = NAN;
    return TRUE;
  }
  if (n == NULL || !JSON_NODE_HOLDS_VALUE(n))
    return FALSE;
  GType t = json_node_get_value_type(n);
  if (t == G_TYPE_INT64)
    *out = (double)json_node_get_int(n);
  else if (t == G_TYPE_DOUBLE)
    *out = json_node_get_double(n);
  else
    return FALSE;
  return TRUE;
}

/* Every whole number a double holds exactly. */
#define MAX_WHOLE 9007199254740992.0

/* Far above any time, size or ratio a run measures, and far enough below
 * the largest double that a chart's axis up to it stays finite. */
#define MAX_AMOUNT 1e300

/* An amount lbsim writes: from 0 to MAX_AMOUNT, or null. */
static gboolean
read_amount(JsonObject *o, const char *key, const char *where, double *out, GError **error)
{
  JsonNode *n = node_of(o, key);
  if (node_number(n, out) && (isnan(*out) || (*out >= 0 && *out <= MAX_AMOUNT)))
    return TRUE;
  return bad_member(error, where, key, "%sexpected a number from 0 to %g, or null",
                    n == NULL ? "missing, " : "", MAX_AMOUNT);
}

/* A declared metric: any number, or null. */
static gboolean
read_value(JsonObject *o, const char *key, const char *where, double *out, GError **error)
{
  JsonNode *n = node_of(o, key);
  if (node_number(n, out) && (isnan(*out) || fabs(*out) <= MAX_AMOUNT))
    return TRUE;
  return bad_member(error, where, key, "%sexpected a number from -%g to %g, or null",
                    n == NULL ? "missing, " : "", MAX_AMOUNT, MAX_AMOUNT);
}

static gboolean
whole(JsonNode *n, double min, double max, double *out)
{
  return n != NULL && !JSON_NODE_HOLDS_NULL(n) && node_number(n, out) && *out >= min &&
         *out <= max && *out == floor(*out);
}

static gboolean
read_whole(JsonObject *o, const char *key, const char *where, double min, double max, double *out,
           GError **error)
{
  JsonNode *n = node_of(o, key);
  if (whole(n, min, max, out))
    return TRUE;
  return bad_member(error, where, key, "%sexpected a whole number from %.0f to %.0f",
                    n == NULL ? "missing, " : "", min, max);
}

/* A value as text: a sweep's point (how it is matched and shown), a fact
 * of the scenario, a parameter. */
static char *
canonical(JsonNode *n)
{
  if (n == NULL || !JSON_NODE_HOLDS_VALUE(n))
    return NULL;
  GType t = json_node_get_value_type(n);
  if (t == G_TYPE_STRING)
    return g_strdup(json_node_get_string(n));
  if (t == G_TYPE_INT64)
    return g_strdup_printf("%" G_GINT64_FORMAT, json_node_get_int(n));
  if (t == G_TYPE_BOOLEAN)
    return g_strdup(json_node_get_boolean(n) ? "true" : "false");
  char buf[G_ASCII_DTOSTR_BUF_SIZE];
  return g_strdup(g_ascii_formatd(buf, sizeof buf, "%.15g", json_node_get_double(n)));
}

/* A run's loads at the end, one per rank: ranks of them when the
 * document says how many (0: a sweep's run, whose ranks may vary). */
static gboolean
read_final_loads(JsonObject *o, const char *where, guint ranks, LbRunResult *r, GError **error)
{
  JsonArray *loads;
  if (!read_array(o, "final_loads", where, FALSE, &loads, error))
    return FALSE;
  if (loads == NULL)
    return TRUE;
  guint n = json_array_get_length(loads);
  if (ranks > 0 && n != ranks)
    return bad_member(error, where, "final_loads", "%u entries, expected one per rank (%u)", n,
                      ranks);
  if (n == 0 || n > max_ranks())
    return bad_member(error, where, "final_loads", "%u entries, expected one per rank (1 to %.0f)",
                      n, max_ranks());
  r->ranks = n;
  r->final_loads = g_new(guint64, n);
  for (guint i = 0; i < n; i++) {
    double v;
    if (!whole(json_array_get_element(loads, i), 0, MAX_WHOLE, &v)) {
      g_autofree char *at = g_strdup_printf("final_loads[%u]", i);
      return bad_member(error, where, at, "expected a whole number from 0 to %.0f", MAX_WHOLE);
    }
    r->final_loads[i] = (guint64)v;
  }
  return TRUE;
}

/* The parameters, written with their types, as the balancer's. */
static gboolean
read_doc_params(JsonObject *o, const char *where, const LbBalancer *b, LbRunResult *r,
                GError **error)
{
  r->params = lb_params_new(b->params);
  JsonObject *params;
  if (!read_object(o, "params", where, FALSE, &params, error))
    return FALSE;
  if (params == NULL)
    return TRUE;
  g_autoptr(GList) members = json_object_get_members(params);
  for (GList *l = members; l != NULL; l = l->next) {
    JsonNode *n = json_object_get_member(params, l->data);
    g_autofree char *text = NULL;
    if (JSON_NODE_HOLDS_NULL(n) && lb_param_spec_find(b->params, l->data) != NULL &&
        lb_params_get_text(r->params, l->data) == NULL)
      continue; /* a string left unset (dls' weights) is written null */
    if (JSON_NODE_HOLDS_VALUE(n) && json_node_get_value_type(n) == G_TYPE_DOUBLE) {
      char buf[G_ASCII_DTOSTR_BUF_SIZE];
      text = g_strdup(g_ascii_dtostr(buf, sizeof buf, json_node_get_double(n)));
    } else {
      text = canonical(n);
    }
    g_autofree char *at = g_strdup_printf("params.%s", (const char *)l->data);
    g_autoptr(GError) local = NULL;
    if (text == NULL)
      return bad_member(error, where, at, "expected a number, a string or true or false");
    if (!lb_params_set(r->params, l->data, text, &local))
      return bad_member(error, where, at, "%s", local->message);
  }
  return TRUE;
}

/* A summary field of the run (step < 0) or of a step: a stored one into
 * its place; a derived one (from a declared metric) only checked. */
static gboolean
read_summary_field(JsonObject *o, const char *where, const LbSummaryField *f, LbRunResult *r,
                   int step, GError **error)
{
  double v;
  gboolean derived = (step < 0 ? f->run_offset : f->step_offset) < 0;
  /* a derived measure the balancer does not declare is null (0 before
   * format_version 3) */
  JsonNode *n = node_of(o, f->json);
  if (derived && n != NULL && JSON_NODE_HOLDS_NULL(n))
    return TRUE;
  if (f->whole ? !read_whole(o, f->json, where, 0, MAX_WHOLE, &v, error)
               : !read_amount(o, f->json, where, &v, error))
    return FALSE;
  if (!derived)
    lb_summary_set(f, r, step, v);
  return TRUE;
}

/* The declared metrics of the run (into out) or of a step: each by its
 * JSON name. */
static gboolean
read_metrics(JsonObject *o, const char *where, const LbRunResult *r, double *out, GError **error)
{
  JsonObject *metrics;
  if (!read_object(o, "metrics", where, TRUE, &metrics, error))
    return FALSE;
  g_autofree char *at = member_name(where, "metrics");
  for (guint i = 0; i < r->metric_defs->len; i++)
    if (!read_value(metrics, g_array_index(r->metric_defs, LbMetricDef, i).json_name, at, &out[i],
                    error))
      return FALSE;
  return TRUE;
}

static gboolean
read_doc_phases(JsonObject *o, const char *where, const LbBalancer *b, LbRunResult *r,
                GError **error)
{
  JsonArray *phases;
  if (!read_array(o, "phases", where, TRUE, &phases, error))
    return FALSE;
  guint n = lb_balancer_phase_count(b);
  if (json_array_get_length(phases) != n)
    return bad_member(error, where, "phases", "%u entries, expected %u (the balancer's phases)",
                      json_array_get_length(phases), n);
  r->nphases = n;
  r->phases = g_new0(LbPhaseResult, MAX(n, 1));
  for (guint i = 0; i < n; i++) {
    g_autofree char *at = g_strdup_printf("%s.phases[%u]", where, i);
    JsonNode *node = json_array_get_element(phases, i);
    if (!JSON_NODE_HOLDS_OBJECT(node))
      return bad(error, at, "expected an object");
    JsonObject *po = json_node_get_object(node);
    JsonNode *name = node_of(po, "name");
    if (!is_string(name) || strcmp(json_node_get_string(name), b->phases[i]) != 0)
      return bad_member(error, at, "name", "expected \"%s\"", b->phases[i]);
    double steps, messages;
    LbPhaseResult *p = &r->phases[i];
    p->name = b->phases[i];
    if (!read_whole(po, "steps", at, 0, G_MAXUINT32, &steps, error) ||
        !read_whole(po, "messages", at, 0, MAX_WHOLE, &messages, error) ||
        !read_amount(po, "bytes", at, &p->bytes, error) ||
        !read_amount(po, "time", at, &p->time, error))
      return FALSE;
    p->rounds = (guint)steps;
    p->messages = (guint64)messages;
  }
  return TRUE;
}

static gboolean
read_steps(JsonObject *o, const char *where, LbRunResult *r, GError **error)
{
  JsonArray *steps;
  if (!read_array(o, "adaptations", where, TRUE, &steps, error))
    return FALSE;
  guint n = json_array_get_length(steps), ndefs = r->metric_defs->len;
  r->nadaptations = n;
  r->adaptations = g_new0(LbAdaptationResult, MAX(n, 1));
  r->adaptation_metrics = g_new0(double, MAX((gsize)n * ndefs, 1));
  for (guint s = 0; s < n; s++) {
    g_autofree char *at = g_strdup_printf("%s.adaptations[%u]", where, s);
    JsonNode *node = json_array_get_element(steps, s);
    if (!JSON_NODE_HOLDS_OBJECT(node))
      return bad(error, at, "expected an object");
    JsonObject *so = json_node_get_object(node);
    for (const LbSummaryField *f = lb_summary(); f->name != NULL; f++)
      if ((f->where & LB_SUMMARY_STEP) && !read_summary_field(so, at, f, r, (int)s, error))
        return FALSE;
    if (!read_metrics(so, at, r, r->adaptation_metrics + (gsize)s * ndefs, error))
      return FALSE;
  }
  return TRUE;
}

static gboolean
read_narration(JsonObject *o, const char *where, LbRunResult *r, GError **error)
{
  JsonArray *lines;
  if (!read_array(o, "narration", where, FALSE, &lines, error))
    return FALSE;
  if (lines == NULL)
    return TRUE;
  r->narration = g_ptr_array_new_with_free_func(g_free);
  for (guint i = 0; i < json_array_get_length(lines); i++) {
    JsonNode *n = json_array_get_element(lines, i);
    if (!is_string(n)) {
      g_autofree char *at = g_strdup_printf("narration[%u]", i);
      return bad_member(error, where, at, "expected a string");
    }
    g_ptr_array_add(r->narration, g_strdup(json_node_get_string(n)));
  }
  return TRUE;
}

static gboolean
read_measured(JsonObject *o, const char *where, LbRunResult *r, GError **error)
{
  JsonObject *m;
  if (!read_object(o, "measured", where, FALSE, &m, error))
    return FALSE;
  if (m == NULL)
    return TRUE;
  g_autofree char *at = member_name(where, "measured");
  double rss = 0;
  if (!read_amount(m, "wall_seconds", at, &r->wall_seconds, error) ||
      !read_amount(m, "sim_wall_seconds", at, &r->sim_wall_seconds, error) ||
      !read_amount(m, "peak_rss_mib", at, &rss, error))
    return FALSE;
  r->peak_rss_kib = isfinite(rss) ? (guint64)(rss * 1024) : 0;
  return TRUE;
}

/* One element of a document's "runs" (a sweep's "result"): ranks 0 for a
 * sweep's, whose ranks may vary. */
static LbRunResult *
read_doc_run(JsonObject *o, const char *where, guint ranks, GError **error)
{
  g_autoptr(LbRunResult) r = g_new0(LbRunResult, 1);
  r->ranks = ranks;
  JsonObject *summary;
  const LbBalancer *b;
  if (!read_string(o, "balancer", where, TRUE, &r->balancer, error) ||
      !load_plugin_of(o, where, r->balancer, error) ||
      (b = balancer_of(where, r->balancer, error)) == NULL ||
      !read_string(o, "model", where, FALSE, &r->model, error) ||
      !read_string(o, "placement", where, FALSE, &r->placement, error) ||
      !read_string(o, "view", where, FALSE, &r->view, error) ||
      !read_string(o, "start", where, FALSE, &r->start, error) ||
      !read_doc_params(o, where, b, r, error) ||
      !read_object(o, "summary", where, TRUE, &summary, error) ||
      !read_final_loads(o, where, ranks, r, error))
    return NULL;
  if (r->view != NULL && *r->view == '\0')
    g_clear_pointer(&r->view, g_free);
  double hosts = 0;
  if (node_of(o, "hosts") != NULL && !read_whole(o, "hosts", where, 1, G_MAXINT32, &hosts, error))
    return NULL;
  r->hosts = (guint)hosts;
  g_autofree char *in_summary = member_name(where, "summary");
  /* the CSV's fields are there; others are read when they are */
  for (const LbSummaryField *f = lb_summary(); f->name != NULL; f++)
    if ((f->where & LB_SUMMARY_RUN) && (f->csv || node_of(summary, f->json) != NULL) &&
        !read_summary_field(summary, in_summary, f, r, -1, error))
      return NULL;
  r->metric_defs = lb_balancer_metric_defs(b);
  r->metrics = g_new0(double, MAX(r->metric_defs->len, 1));
  if (!read_metrics(o, where, r, r->metrics, error) || !read_doc_phases(o, where, b, r, error) ||
      !read_steps(o, where, r, error) || !read_narration(o, where, r, error) ||
      !read_measured(o, where, r, error))
    return NULL;
  return g_steal_pointer(&r);
}

static gboolean
read_runs(LbResults *doc, JsonArray *runs, GError **error)
{
  for (guint i = 0; i < json_array_get_length(runs); i++) {
    g_autofree char *at = g_strdup_printf("runs[%u]", i);
    JsonNode *n = json_array_get_element(runs, i);
    if (!JSON_NODE_HOLDS_OBJECT(n))
      return bad(error, at, "expected an object");
    LbRunResult *r = read_doc_run(json_node_get_object(n), at, doc->ranks, error);
    if (r == NULL)
      return FALSE;
    g_ptr_array_add(doc->runs, r);
  }
  if (doc->runs->len == 0)
    return bad(error, "runs", "no run");
  return TRUE;
}

LbSweepAxis *
lb_sweep_axis_new(const char *name)
{
  LbSweepAxis *a = g_new0(LbSweepAxis, 1);
  a->name = g_strdup(name);
  a->values = g_ptr_array_new_null_terminated(0, g_free, TRUE);
  return a;
}

void
lb_sweep_axis_free(LbSweepAxis *axis)
{
  if (axis == NULL)
    return;
  g_free(axis->name);
  g_ptr_array_unref(axis->values);
  g_free(axis);
}

static void
sweep_result_free(gpointer data)
{
  LbSweepResult *s = data;
  g_strfreev(s->point);
  g_free(s->balancer);
  g_free(s);
}

/* A sweep names its scenario file: the report takes its base name. */
static char *
sweep_name(const char *scenario)
{
  g_autofree char *base = g_path_get_basename(scenario);
  if (g_str_has_suffix(base, ".ini") && strlen(base) > 4)
    base[strlen(base) - 4] = '\0';
  return g_steal_pointer(&base);
}

/* The axes of a sweep's points; a varied balancer is not one (each run
 * names its balancer, as the sweep's state does): its labels go to
 * *balancers. */
static gboolean
read_axes(LbResults *doc, JsonArray *vary, GPtrArray **balancers, GError **error)
{
  guint nvary = json_array_get_length(vary);
  if (nvary == 0)
    return bad(error, "sweep.vary", "no parameter");
  for (guint i = 0; i < nvary; i++) {
    g_autofree char *at = g_strdup_printf("sweep.vary[%u]", i);
    JsonNode *n = json_array_get_element(vary, i);
    g_autofree char *name = NULL;
    JsonArray *values;
    if (!JSON_NODE_HOLDS_OBJECT(n))
      return bad(error, at, "expected an object");
    if (!read_string(json_node_get_object(n), "name", at, TRUE, &name, error) ||
        !read_array(json_node_get_object(n), "values", at, TRUE, &values, error))
      return FALSE;
    gboolean balancer = strcmp(name, "balancer") == 0;
    for (guint k = 0; k < doc->axes->len; k++)
      if (strcmp(((const LbSweepAxis *)doc->axes->pdata[k])->name, name) == 0)
        return bad_member(error, at, "name", "\"%s\" is varied twice", name);
    if (balancer && *balancers != NULL)
      return bad_member(error, at, "name", "\"balancer\" is varied twice");
    GPtrArray *list = NULL;
    if (balancer) {
      *balancers = g_ptr_array_new_with_free_func(g_free);
      list = *balancers;
    } else {
      LbSweepAxis *axis = lb_sweep_axis_new(name);
      g_ptr_array_add(doc->axes, axis);
      list = axis->values;
    }
    if (json_array_get_length(values) == 0)
      return bad_member(error, at, "values", "no value");
    for (guint k = 0; k < json_array_get_length(values); k++) {
      char *value = canonical(json_array_get_element(values, k));
      if (value == NULL)
        return bad(error, at, "values[%u]: expected a number or a string", k);
      g_ptr_array_add(list, value);
    }
  }
  return TRUE;
}

/* A point's value of name: GROUP.KEY is member KEY of member GROUP
 * (format_version 2), or member GROUP.KEY (version 1). */
static JsonNode *
point_member(JsonObject *point, const char *name)
{
  JsonNode *n = node_of(point, name);
  const char *dot = strchr(name, '.');
  if (n != NULL || dot == NULL)
    return n;
  g_autofree char *group = g_strndup(name, dot - name);
  JsonNode *g = node_of(point, group);
  return g != NULL && JSON_NODE_HOLDS_OBJECT(g) ? node_of(json_node_get_object(g), dot + 1) : NULL;
}

static gboolean
read_sweep(LbResults *doc, JsonObject *root, JsonObject *sweep, GError **error)
{
  JsonArray *vary, *runs;
  if (!read_string(sweep, "scenario", "sweep", TRUE, &doc->sweep_scenario, error) ||
      !read_array(sweep, "vary", "sweep", TRUE, &vary, error) ||
      !read_array(root, "runs", "", TRUE, &runs, error))
    return FALSE;
  double total = 0;
  if (node_of(sweep, "runs_total") != NULL &&
      !read_whole(sweep, "runs_total", "sweep", json_array_get_length(runs), G_MAXUINT32, &total,
                  error))
    return FALSE;
  doc->runs_total = (guint)total;
  doc->name = sweep_name(doc->sweep_scenario);
  doc->axes = g_ptr_array_new_with_free_func((GDestroyNotify)lb_sweep_axis_free);
  doc->results = g_ptr_array_new_with_free_func(sweep_result_free);
  g_autoptr(GPtrArray) balancers = NULL;
  if (!read_axes(doc, vary, &balancers, error))
    return FALSE;
  guint nvary = doc->axes->len;
  g_autofree char *replicates = NULL;
  doc->replicates = -1;
  if (!read_string(sweep, "replicates", "sweep", FALSE, &replicates, error))
    return FALSE;
  for (guint v = 0; replicates != NULL && v < nvary; v++)
    if (strcmp(((const LbSweepAxis *)doc->axes->pdata[v])->name, replicates) == 0)
      doc->replicates = (gint)v;
  if (replicates != NULL && doc->replicates < 0)
    return bad_member(error, "sweep", "replicates", "\"%s\" is not in sweep.vary", replicates);
  /* written before replicates: a varied seed's values are */
  for (guint v = 0; replicates == NULL && v < nvary; v++)
    if (strcmp(((const LbSweepAxis *)doc->axes->pdata[v])->name, "seed") == 0)
      doc->replicates = (gint)v;
  for (guint i = 0; i < json_array_get_length(runs); i++) {
    g_autofree char *at = g_strdup_printf("runs[%u]", i);
    JsonNode *n = json_array_get_element(runs, i);
    if (!JSON_NODE_HOLDS_OBJECT(n))
      return bad(error, at, "expected an object");
    JsonObject *o = json_node_get_object(n), *point, *result;
    LbSweepResult *s = g_new0(LbSweepResult, 1);
    s->point = g_new0(char *, nvary + 1);
    g_ptr_array_add(doc->results, s);
    if (!read_object(o, "point", at, TRUE, &point, error) ||
        !read_string(o, "balancer", at, TRUE, &s->balancer, error))
      return FALSE;
    if (balancers != NULL &&
        !g_ptr_array_find_with_equal_func(balancers, s->balancer, g_str_equal, NULL))
      return bad_member(error, at, "balancer", "\"%s\" is not one of sweep.vary's balancers",
                        s->balancer);
    for (guint v = 0; v < nvary; v++) {
      const LbSweepAxis *axis = doc->axes->pdata[v];
      s->point[v] = canonical(point_member(point, axis->name));
      if (s->point[v] == NULL ||
          !g_ptr_array_find_with_equal_func(axis->values, s->point[v], g_str_equal, NULL))
        return bad(error, at, "point \"%s\" should be one of sweep.vary's values", axis->name);
    }
    if (!read_object(o, "result", at, TRUE, &result, error))
      return FALSE;
    g_autofree char *in_result = g_strdup_printf("%s.result", at);
    s->result = read_doc_run(result, in_result, 0, error);
    if (s->result == NULL)
      return FALSE;
    g_ptr_array_add(doc->runs, s->result); /* doc->runs owns it */
    if (strcmp(s->result->balancer, s->balancer) != 0)
      return bad_member(error, in_result, "balancer", "\"%s\", where the run's is \"%s\"",
                        s->result->balancer, s->balancer);
  }
  if (doc->results->len == 0)
    return bad(error, "runs", "no run");
  return TRUE;
}

/* A fact of the scenario or the platform as written, or NULL. */
static char *
fact(JsonObject *o, const char *key)
{
  return o != NULL ? canonical(node_of(o, key)) : NULL;
}

static gboolean
read_run_doc(LbResults *doc, JsonObject *root, GError **error)
{
  JsonObject *scenario, *platform;
  JsonArray *runs;
  double ranks;
  if (!read_object(root, "scenario", "", TRUE, &scenario, error) ||
      !read_string(scenario, "name", "scenario", TRUE, &doc->name, error) ||
      !read_object(root, "platform", "", FALSE, &platform, error) ||
      !read_whole(root, "ranks", "", 1, max_ranks(), &ranks, error))
    return FALSE;
  doc->ranks = (guint)ranks;
  doc->scenario_file = fact(scenario, "file");
  doc->model = fact(scenario, "model");
  doc->elements = fact(scenario, "elements");
  doc->steps = fact(scenario, "steps");
  doc->seed = fact(scenario, "seed");
  doc->platform = fact(platform, "file");
  doc->hosts = fact(platform, "hosts");
  doc->background = fact(platform, "background");
  doc->background_traffic = fact(platform, "background_traffic");
  return read_array(root, "runs", "", TRUE, &runs, error) && read_runs(doc, runs, error);
}

void
lb_results_free(LbResults *doc)
{
  if (doc == NULL)
    return;
  g_free(doc->version);
  g_free(doc->name);
  g_clear_pointer(&doc->results, g_ptr_array_unref);
  g_clear_pointer(&doc->runs, g_ptr_array_unref);
  g_free(doc->scenario_file);
  g_free(doc->model);
  g_free(doc->platform);
  g_free(doc->background);
  g_free(doc->background_traffic);
  g_free(doc->seed);
  g_free(doc->steps);
  g_free(doc->elements);
  g_free(doc->hosts);
  g_free(doc->sweep_scenario);
  g_clear_pointer(&doc->axes, g_ptr_array_unref);
  g_free(doc);
}

/* "format" and "format_version", which documents written before them
 * lack: another format, or a version this lbsim does not know, is refused. */
static gboolean
read_format(JsonObject *root, GError **error)
{
  g_autofree char *format = NULL;
  if (!read_string(root, "format", "", FALSE, &format, error))
    return FALSE;
  if (format != NULL && strcmp(format, LB_RESULT_FORMAT) != 0)
    return bad_member(error, "", "format", "'%s', not " LB_RESULT_FORMAT, format);
  if (!json_object_has_member(root, "format_version"))
    return format == NULL ||
           bad_member(error, "", "format_version", "missing (with \"format\" it is needed)");
  JsonNode *n = json_object_get_member(root, "format_version");
  if (JSON_NODE_TYPE(n) != JSON_NODE_VALUE || json_node_get_value_type(n) != G_TYPE_INT64)
    return bad_member(error, "", "format_version", "not a whole number");
  gint64 v = json_node_get_int(n);
  if (v < 1 || v > LB_RESULT_FORMAT_VERSION)
    return bad_member(error, "", "format_version",
                      "%" G_GINT64_FORMAT ": this lbsim reads versions 1 to %d (a newer lbsim "
                      "wrote it?)",
                      v, LB_RESULT_FORMAT_VERSION);
  return TRUE;
}

LbResults *
lb_results_read(const char *json, gsize length, const char *source, GError **error)
{
  g_autoptr(LbResults) doc = g_new0(LbResults, 1);
  doc->runs = g_ptr_array_new_with_free_func((GDestroyNotify)lb_run_result_free);
  JsonObject *root = NULL, *sweep = NULL;
  g_autoptr(JsonParser) parser =
      parse(json, length, "not lbsim's JSON (an object with \"runs\")", &root, error);
  gboolean ok = parser != NULL && read_format(root, error) &&
                read_string(root, "lbsim", "", TRUE, &doc->version, error) &&
                read_object(root, "sweep", "", FALSE, &sweep, error);
  if (ok && json_object_has_member(root, "paper") && json_object_has_member(root, "claims")) {
    /* a reproduction's: its own page is made by the command that wrote it */
    const char *paper = json_node_get_string(json_object_get_member(root, "paper"));
    g_set_error(error, LB_RESULTS_ERROR, LB_RESULTS_ERROR_INPUT,
                "a reproduction's document (lbsim reproduce --json), not a run's or a sweep's: "
                "its page is lbsim reproduce %s --report DIR (the runs it kept are sweeps: "
                "lbsim report STATE/NAME.json)",
                paper != NULL ? paper : "KEY");
    ok = FALSE;
  } else if (ok && !json_object_has_member(root, "runs") &&
             json_object_has_member(root, "checks")) {
    g_set_error(error, LB_RESULTS_ERROR, LB_RESULTS_ERROR_INPUT,
                "the document of a check of several scenarios (lbsim check A.ini B.ini "
                "--json): each element of its \"checks\" is one scenario's run document; "
                "lbsim report reads one scenario's (lbsim check A.ini --json FILE)");
    ok = FALSE;
  } else if (ok && sweep != NULL) {
    doc->kind = "sweep";
    ok = read_sweep(doc, root, sweep, error);
  } else if (ok) {
    doc->kind = "run";
    ok = read_run_doc(doc, root, error);
  }
  if (!ok) {
    g_prefix_error(error, "%s: ", source);
    return NULL;
  }
  return g_steal_pointer(&doc);
}
