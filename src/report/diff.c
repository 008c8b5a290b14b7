/* lbsim diff's comparison (diff.h). */
#include "report/diff.h"

#include <json-glib/json-glib.h>
#include <math.h>
#include <string.h>

#include "io/input.h"
#include "lbsim/metric.h"

/* clang-format off */
G_DEFINE_QUARK(lb-diff-error-quark, lb_diff_error)
/* clang-format on */

/* A metric's name with '_' for '-', as the JSON and [expect] write it. */
static char *
canonical(const char *name)
{
  char *out = g_strdup(name);
  g_strdelimit(out, "-", '_');
  return out;
}

LbTolerance *
lb_tolerance_parse(const char *text, GError **error)
{
  const char *eq = strchr(text, '=');
  const char *amount = eq != NULL ? eq + 1 : text;
  g_autofree char *metric = eq != NULL ? g_strndup(text, (gsize)(eq - text)) : NULL;
  if (metric != NULL) {
    g_strstrip(metric);
    if (*metric == '\0') {
      g_set_error(error, LB_DIFF_ERROR, LB_DIFF_ERROR_INPUT, "--tolerance %s: no metric before '='",
                  text);
      return NULL;
    }
  }
  char *end = NULL;
  double value = g_ascii_strtod(amount, &end);
  gboolean relative = end != NULL && *end == '%';
  if (end == amount || !isfinite(value) || value < 0 ||
      (relative ? end[1] != '\0' : *end != '\0')) {
    g_set_error(error, LB_DIFF_ERROR, LB_DIFF_ERROR_INPUT,
                "--tolerance %s: '%s' is not an amount at least 0 (e.g. 1%%, or 0.5 for an "
                "absolute difference)",
                text, amount);
    return NULL;
  }
  LbTolerance *t = g_new0(LbTolerance, 1);
  t->metric = metric != NULL ? canonical(metric) : NULL;
  t->relative = relative;
  t->amount = relative ? value / 100 : value;
  return t;
}

void
lb_tolerance_free(LbTolerance *t)
{
  if (t == NULL)
    return;
  g_free(t->metric);
  g_free(t);
}

void
lb_diff_row_free(LbDiffRow *row)
{
  if (row == NULL)
    return;
  g_free(row->where);
  g_free(row->metric);
  g_free(row);
}

typedef struct {
  const LbDiffOptions *options;
  GPtrArray *rows;
  guint compared;
} Diff;

static gboolean
wanted(const Diff *d, const char *metric)
{
  if (d->options->only == NULL)
    return TRUE;
  for (const char *const *m = d->options->only; *m != NULL; m++) {
    g_autofree char *name = canonical(*m);
    if (strcmp(name, metric) == 0)
      return TRUE;
  }
  return FALSE;
}

static gboolean
within(const Diff *d, const char *metric, double a, double b)
{
  const LbTolerance *general = NULL, *own = NULL;
  for (guint i = 0; d->options->tolerances != NULL && i < d->options->tolerances->len; i++) {
    const LbTolerance *t = d->options->tolerances->pdata[i];
    if (t->metric == NULL)
      general = t;
    else if (strcmp(t->metric, metric) == 0)
      own = t;
  }
  const LbTolerance *t = own != NULL ? own : general;
  double change = fabs(b - a);
  if (t == NULL)
    return change == 0;
  return change <= (t->relative ? t->amount * fabs(a) : t->amount);
}

/* Holds one value of each side; only: 'A' or 'B' when the value is in
 * that result alone, else 0 (a NAN on one side only counts as absent). */
static void
compare_only(Diff *d, const char *where, const char *metric, double a, double b, char only)
{
  if (!wanted(d, metric))
    return;
  d->compared++;
  if (only == 0 && isnan(a) != isnan(b))
    only = isnan(a) ? 'B' : 'A';
  if (only == 0 && (a == b || (isnan(a) && isnan(b))))
    return;
  LbDiffRow *row = g_new0(LbDiffRow, 1);
  row->where = g_strdup(where);
  row->metric = g_strdup(metric);
  row->a = a;
  row->b = b;
  row->only = only;
  row->moved = only != 0 || !within(d, metric, a, b);
  g_ptr_array_add(d->rows, row);
}

static void
compare(Diff *d, const char *where, const char *metric, double a, double b)
{
  compare_only(d, where, metric, a, b, 0);
}

/* The values of a run: the summary, the declared metrics, each phase's. */
static GHashTable *
values_of(const LbRunResult *r)
{
  GHashTable *v = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, g_free);
#define PUT(name, value)                                                                           \
  g_hash_table_insert(v, g_strdup(name), g_memdup2(&(double){value}, sizeof(double)))
  PUT("imbalance_before", r->imbalance_before);
  PUT("imbalance_after", r->imbalance_after);
  PUT("messages", (double)r->messages);
  PUT("bytes", r->bytes);
  PUT("bytes_moved", r->bytes_moved);
  PUT("balance_time", r->balance_time);
  PUT("app_time", r->app_time);
  PUT("total_time", r->total_time);
  for (guint i = 0; r->metric_defs != NULL && i < r->metric_defs->len; i++) {
    const LbMetricDef *m = &g_array_index(r->metric_defs, LbMetricDef, i);
    g_autofree char *name = canonical(m->name);
    PUT(name, r->metrics[i]);
  }
  for (guint k = 0; k < r->nphases; k++) {
    const LbPhaseResult *p = &r->phases[k];
    g_autofree char *steps = g_strdup_printf("phase.%s.steps", p->name);
    g_autofree char *messages = g_strdup_printf("phase.%s.messages", p->name);
    g_autofree char *bytes = g_strdup_printf("phase.%s.bytes", p->name);
    g_autofree char *time = g_strdup_printf("phase.%s.time", p->name);
    PUT(steps, p->rounds);
    PUT(messages, (double)p->messages);
    PUT(bytes, p->bytes);
    PUT(time, p->time);
  }
#undef PUT
  return v;
}

static int
compare_names(gconstpointer a, gconstpointer b)
{
  return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* Every value of two runs in the order of A's names then B's own. */
static void
compare_runs(Diff *d, const char *where, const LbRunResult *a, const LbRunResult *b)
{
  g_autoptr(GHashTable) va = a != NULL ? values_of(a) : g_hash_table_new(g_str_hash, g_str_equal);
  g_autoptr(GHashTable) vb = b != NULL ? values_of(b) : g_hash_table_new(g_str_hash, g_str_equal);
  g_autoptr(GPtrArray) names = g_ptr_array_new();
  GHashTableIter it;
  gpointer key;
  g_hash_table_iter_init(&it, va);
  while (g_hash_table_iter_next(&it, &key, NULL))
    g_ptr_array_add(names, key);
  g_hash_table_iter_init(&it, vb);
  while (g_hash_table_iter_next(&it, &key, NULL))
    if (!g_hash_table_contains(va, key))
      g_ptr_array_add(names, key);
  g_ptr_array_sort(names, compare_names);
  for (guint i = 0; i < names->len; i++) {
    const double *x = g_hash_table_lookup(va, names->pdata[i]);
    const double *y = g_hash_table_lookup(vb, names->pdata[i]);
    compare(d, where, names->pdata[i], x != NULL ? *x : NAN, y != NULL ? *y : NAN);
  }
}

/* A run's place in its document: its balancer, after a sweep's point. */
static char *
where_of(const LbResults *doc, guint i)
{
  if (strcmp(doc->kind, "sweep") != 0)
    return g_strdup(((const LbRunResult *)doc->runs->pdata[i])->balancer);
  const LbSweepResult *s = doc->results->pdata[i];
  GString *w = g_string_new(NULL);
  for (guint k = 0; k < doc->axes->len; k++) {
    const LbSweepAxis *axis = doc->axes->pdata[k];
    if (strcmp(axis->name, "balancer") != 0)
      g_string_append_printf(w, "%s=%s ", axis->name, s->point[k]);
  }
  g_string_append(w, s->balancer);
  return g_string_free(w, FALSE);
}

static const LbRunResult *
run_at(const LbResults *doc, guint i)
{
  return strcmp(doc->kind, "sweep") == 0 ? ((const LbSweepResult *)doc->results->pdata[i])->result
                                         : doc->runs->pdata[i];
}

static guint
runs_of(const LbResults *doc)
{
  return strcmp(doc->kind, "sweep") == 0 ? doc->results->len : doc->runs->len;
}

static gboolean
diff_results(Diff *d, const LbResults *a, const char *a_name, const LbResults *b,
             const char *b_name, GError **error)
{
  if (strcmp(a->kind, b->kind) != 0) {
    g_set_error(error, LB_DIFF_ERROR, LB_DIFF_ERROR_INPUT, "%s is a %s's result, %s a %s's", a_name,
                a->kind, b_name, b->kind);
    return FALSE;
  }
  if (g_strcmp0(a->name, b->name) != 0) {
    g_set_error(error, LB_DIFF_ERROR, LB_DIFF_ERROR_INPUT,
                "%s is of scenario '%s', %s of scenario '%s': lbsim diff compares two results "
                "of one scenario",
                a_name, a->name, b_name, b->name);
    return FALSE;
  }
  g_autoptr(GHashTable) in_b = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, NULL);
  for (guint j = 0; j < runs_of(b); j++)
    g_hash_table_insert(in_b, where_of(b, j), GUINT_TO_POINTER(j + 1));
  g_autoptr(GHashTable) seen = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, NULL);
  for (guint i = 0; i < runs_of(a); i++) {
    g_autofree char *where = where_of(a, i);
    guint j = GPOINTER_TO_UINT(g_hash_table_lookup(in_b, where));
    compare_runs(d, where, run_at(a, i), j > 0 ? run_at(b, j - 1) : NULL);
    g_hash_table_add(seen, g_strdup(where));
  }
  for (guint j = 0; j < runs_of(b); j++) {
    g_autofree char *where = where_of(b, j);
    if (!g_hash_table_contains(seen, where))
      compare_runs(d, where, NULL, run_at(b, j));
  }
  return TRUE;
}

/* A reproduction's claims by id: lbsim's number, and whether it agrees
 * (1, 0; NAN when not evaluated). */
static void
claims_of(JsonObject *root, GHashTable *lbsim, GHashTable *agrees, GPtrArray *order)
{
  JsonArray *claims = json_object_get_array_member(root, "claims");
  for (guint i = 0; claims != NULL && i < json_array_get_length(claims); i++) {
    JsonObject *c = json_array_get_object_element(claims, i);
    const char *id = c != NULL ? json_object_get_string_member_with_default(c, "id", NULL) : NULL;
    if (id == NULL)
      continue;
    JsonNode *v = json_object_get_member(c, "lbsim");
    JsonNode *ok = json_object_get_member(c, "agrees");
    double value = v != NULL && JSON_NODE_HOLDS_VALUE(v) ? json_node_get_double(v) : NAN;
    double agree =
        ok != NULL && JSON_NODE_HOLDS_VALUE(ok) ? (json_node_get_boolean(ok) ? 1 : 0) : NAN;
    g_hash_table_insert(lbsim, g_strdup(id), g_memdup2(&value, sizeof value));
    g_hash_table_insert(agrees, g_strdup(id), g_memdup2(&agree, sizeof agree));
    if (order != NULL)
      g_ptr_array_add(order, g_strdup(id));
  }
}

static gboolean
diff_reproductions(Diff *d, JsonObject *a, const char *a_name, JsonObject *b, const char *b_name,
                   GError **error)
{
  const char *pa = json_object_get_string_member_with_default(a, "paper", "");
  const char *pb = json_object_get_string_member_with_default(b, "paper", "");
  if (strcmp(pa, pb) != 0) {
    g_set_error(error, LB_DIFF_ERROR, LB_DIFF_ERROR_INPUT,
                "%s reproduces '%s', %s '%s': lbsim diff compares two reproductions of one paper",
                a_name, pa, b_name, pb);
    return FALSE;
  }
  g_autoptr(GHashTable) la = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, g_free);
  g_autoptr(GHashTable) aa = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, g_free);
  g_autoptr(GHashTable) lb = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, g_free);
  g_autoptr(GHashTable) ab = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, g_free);
  g_autoptr(GPtrArray) order = g_ptr_array_new_with_free_func(g_free);
  g_autoptr(GPtrArray) order_b = g_ptr_array_new_with_free_func(g_free);
  claims_of(a, la, aa, order);
  claims_of(b, lb, ab, order_b);
  for (guint i = 0; i < order_b->len; i++)
    if (!g_hash_table_contains(la, order_b->pdata[i]))
      g_ptr_array_add(order, g_strdup(order_b->pdata[i]));
  for (guint i = 0; i < order->len; i++) {
    const char *id = order->pdata[i];
    const double *x = g_hash_table_lookup(la, id), *y = g_hash_table_lookup(lb, id);
    const double *p = g_hash_table_lookup(aa, id), *q = g_hash_table_lookup(ab, id);
    if (x == NULL || y == NULL) {
      compare_only(d, id, "lbsim", x != NULL ? *x : NAN, y != NULL ? *y : NAN,
                   x != NULL ? 'A' : 'B');
      continue;
    }
    compare(d, id, "lbsim", *x, *y);
    compare(d, id, "agrees", *p, *q);
  }
  return TRUE;
}

GPtrArray *
lb_diff_documents(const char *a, gsize a_length, const char *a_name, const char *b, gsize b_length,
                  const char *b_name, const LbDiffOptions *options, guint *compared, GError **error)
{
  Diff d = {options, g_ptr_array_new_with_free_func((GDestroyNotify)lb_diff_row_free), 0};
  JsonObject *ra = NULL, *rb = NULL;
  g_autoptr(GError) local = NULL;
  g_autoptr(JsonParser) pa = lb_input_json_object(a, a_length, "not an object", LB_DIFF_ERROR,
                                                  LB_DIFF_ERROR_INPUT, &ra, &local);
  const char *bad = pa == NULL ? a_name : NULL;
  g_autoptr(JsonParser) pb = pa != NULL
                                 ? lb_input_json_object(b, b_length, "not an object", LB_DIFF_ERROR,
                                                        LB_DIFF_ERROR_INPUT, &rb, &local)
                                 : NULL;
  if (pa != NULL && pb == NULL)
    bad = b_name;
  gboolean ok = bad == NULL;
  if (!ok)
    g_set_error(error, LB_DIFF_ERROR, LB_DIFF_ERROR_INPUT, "%s: %s", bad, local->message);
  gboolean claims_a = ok && json_object_has_member(ra, "claims");
  gboolean claims_b = ok && json_object_has_member(rb, "claims");
  if (ok && claims_a != claims_b) {
    ok = FALSE;
    g_set_error(error, LB_DIFF_ERROR, LB_DIFF_ERROR_INPUT,
                "%s is %s, %s %s: lbsim diff compares two of a kind", a_name,
                claims_a ? "a reproduction" : "a run's or a sweep's result", b_name,
                claims_b ? "a reproduction" : "a run's or a sweep's result");
  } else if (ok && claims_a) {
    ok = diff_reproductions(&d, ra, a_name, rb, b_name, error);
  } else if (ok) {
    g_autoptr(LbResults) x = lb_results_read(a, a_length, a_name, error);
    g_autoptr(LbResults) y = x != NULL ? lb_results_read(b, b_length, b_name, error) : NULL;
    ok = y != NULL && diff_results(&d, x, a_name, y, b_name, error);
  }
  if (!ok) {
    g_ptr_array_unref(d.rows);
    return NULL;
  }
  *compared = d.compared;
  return d.rows;
}

static void
append_number(GString *out, double v)
{
  if (isnan(v))
    g_string_append(out, "-");
  else
    g_string_append_printf(out, "%.10g", v);
}

char *
lb_diff_table(const GPtrArray *rows, guint compared)
{
  GString *out = g_string_new(NULL);
  guint moved = 0;
  if (rows->len > 0) {
    gsize wide = strlen("where"), wide_metric = strlen("metric");
    for (guint i = 0; i < rows->len; i++) {
      const LbDiffRow *r = rows->pdata[i];
      wide = MAX(wide, strlen(r->where));
      wide_metric = MAX(wide_metric, strlen(r->metric));
    }
    g_string_append_printf(out, "%-*s  %-*s  %16s  %16s  %14s  %9s  %s\n", (int)wide, "where",
                           (int)wide_metric, "metric", "A", "B", "change", "relative", "");
    for (guint i = 0; i < rows->len; i++) {
      const LbDiffRow *r = rows->pdata[i];
      g_autoptr(GString) a = g_string_new(NULL), b = g_string_new(NULL);
      append_number(a, r->a);
      append_number(b, r->b);
      g_autofree char *change = r->only != 0 ? g_strdup_printf("only in %c", r->only)
                                : isnan(r->a) || isnan(r->b)
                                    ? g_strdup("-")
                                    : g_strdup_printf("%+.6g", r->b - r->a);
      g_autofree char *relative =
          isnan(r->a) || isnan(r->b) || r->a == 0
              ? g_strdup("-")
              : g_strdup_printf("%+.2f%%", 100 * (r->b - r->a) / fabs(r->a));
      g_string_append_printf(out, "%-*s  %-*s  %16s  %16s  %14s  %9s  %s\n", (int)wide, r->where,
                             (int)wide_metric, r->metric, a->str, b->str, change, relative,
                             r->moved ? "MOVED" : "within");
      moved += r->moved;
    }
    g_string_append_c(out, '\n');
  }
  g_string_append_printf(out, "%u values compared, %u differ, %u beyond the tolerance\n", compared,
                         rows->len, moved);
  return g_string_free(out, FALSE);
}

char *
lb_diff_json(const GPtrArray *rows, guint compared, const char *a_name, const char *b_name)
{
  g_autoptr(JsonBuilder) j = json_builder_new();
  json_builder_begin_object(j);
  json_builder_set_member_name(j, "format");
  json_builder_add_string_value(j, "lbsim-diff");
  json_builder_set_member_name(j, "a");
  json_builder_add_string_value(j, a_name);
  json_builder_set_member_name(j, "b");
  json_builder_add_string_value(j, b_name);
  json_builder_set_member_name(j, "compared");
  json_builder_add_int_value(j, compared);
  guint moved = 0;
  json_builder_set_member_name(j, "differences");
  json_builder_begin_array(j);
  for (guint i = 0; i < rows->len; i++) {
    const LbDiffRow *r = rows->pdata[i];
    json_builder_begin_object(j);
    json_builder_set_member_name(j, "where");
    json_builder_add_string_value(j, r->where);
    json_builder_set_member_name(j, "metric");
    json_builder_add_string_value(j, r->metric);
    json_builder_set_member_name(j, "a");
    if (isnan(r->a))
      json_builder_add_null_value(j);
    else
      json_builder_add_double_value(j, r->a);
    json_builder_set_member_name(j, "b");
    if (isnan(r->b))
      json_builder_add_null_value(j);
    else
      json_builder_add_double_value(j, r->b);
    json_builder_set_member_name(j, "only_in");
    if (r->only != 0) {
      char side[2] = {r->only, '\0'};
      json_builder_add_string_value(j, side);
    } else {
      json_builder_add_null_value(j);
    }
    json_builder_set_member_name(j, "moved");
    json_builder_add_boolean_value(j, r->moved);
    json_builder_end_object(j);
    moved += r->moved;
  }
  json_builder_end_array(j);
  json_builder_set_member_name(j, "moved");
  json_builder_add_int_value(j, moved);
  json_builder_end_object(j);
  g_autoptr(JsonGenerator) gen = json_generator_new();
  g_autoptr(JsonNode) root = json_builder_get_root(j);
  json_generator_set_root(gen, root);
  json_generator_set_pretty(gen, TRUE);
  char *text = json_generator_to_data(gen, NULL);
  char *out = g_strconcat(text, "\n", NULL);
  g_free(text);
  return out;
}
