/* A run's typed result between the child that simulated it and the parent
 * that reports it: written once with json-glib and read back into the same
 * structure. Doubles travel with 17 digits, so nothing is rounded on the
 * way; the user's document is formatted later, from the typed result. */
#include <json-glib/json-glib.h>
#include <string.h>

#include "lbsim/balancer.h"
#include "lbsim/scenario.h"
#include "metrics/metrics.h"
#include "report/report.h"

#define TRANSPORT_VERSION 1

static void
add_int(JsonBuilder *b, const char *key, gint64 v)
{
  json_builder_set_member_name(b, key);
  json_builder_add_int_value(b, v);
}

static void
add_string(JsonBuilder *b, const char *key, const char *v)
{
  json_builder_set_member_name(b, key);
  json_builder_add_string_value(b, v);
}

static void
add_doubles(JsonBuilder *b, const char *key, const double *v, gsize n)
{
  json_builder_set_member_name(b, key);
  json_builder_begin_array(b);
  for (gsize i = 0; i < n; i++)
    json_builder_add_double_value(b, v[i]);
  json_builder_end_array(b);
}

char *
lb_result_to_transport(const LbRunResult *r)
{
  g_autoptr(JsonBuilder) b = json_builder_new();
  json_builder_begin_object(b);
  add_int(b, "version", TRANSPORT_VERSION);
  add_string(b, "balancer", r->balancer);
  add_string(b, "model", r->model);
  if (r->view != NULL)
    add_string(b, "view", r->view);
  add_string(b, "start", r->start);
  add_string(b, "placement", r->placement);
  add_int(b, "ranks", r->ranks);
  add_int(b, "steps", r->nadaptations);
  add_int(b, "hosts", r->hosts);
  json_builder_set_member_name(b, "params");
  json_builder_begin_object(b);
  for (const LbParamSpec *s = lb_params_spec(r->params); s->name != NULL; s++) {
    const char *text = lb_params_get_text(r->params, s->name);
    if (text != NULL)
      add_string(b, s->name, text);
  }
  json_builder_end_object(b);
  double summary[] = {r->imbalance_before, r->imbalance_after, (double)r->messages, r->bytes,
                      r->bytes_moved,      r->balance_time,    r->app_time,         r->total_time};
  add_doubles(b, "summary", summary, G_N_ELEMENTS(summary));
  add_int(b, "simulated_messages", (gint64)r->simulated_messages);

  json_builder_set_member_name(b, "metric_names");
  json_builder_begin_array(b);
  for (guint i = 0; i < r->metric_defs->len; i++)
    json_builder_add_string_value(b, g_array_index(r->metric_defs, LbMetricDef, i).name);
  json_builder_end_array(b);
  add_doubles(b, "step_metrics", r->adaptation_metrics,
              (gsize)r->nadaptations * r->metric_defs->len);

  json_builder_set_member_name(b, "phases");
  json_builder_begin_array(b);
  for (guint i = 0; i < r->nphases; i++) {
    const LbPhaseResult *p = &r->phases[i];
    json_builder_begin_array(b);
    json_builder_add_int_value(b, p->rounds);
    json_builder_add_int_value(b, (gint64)p->messages);
    json_builder_add_double_value(b, p->bytes);
    json_builder_add_double_value(b, p->time);
    json_builder_end_array(b);
  }
  json_builder_end_array(b);

  json_builder_set_member_name(b, "final_loads");
  json_builder_begin_array(b);
  for (guint i = 0; i < r->ranks; i++)
    json_builder_add_int_value(b, (gint64)r->final_loads[i]);
  json_builder_end_array(b);

  json_builder_set_member_name(b, "adaptations");
  json_builder_begin_array(b);
  for (guint s = 0; s < r->nadaptations; s++) {
    const LbAdaptationResult *a = &r->adaptations[s];
    double v[] = {a->imbalance_before,
                  a->imbalance_after,
                  (double)a->max_load_before,
                  (double)a->max_load_after,
                  (double)a->total_load,
                  (double)a->messages,
                  a->bytes,
                  a->bytes_moved,
                  a->balance_time,
                  a->app_time};
    json_builder_begin_array(b);
    for (guint i = 0; i < G_N_ELEMENTS(v); i++)
      json_builder_add_double_value(b, v[i]);
    json_builder_end_array(b);
  }
  json_builder_end_array(b);

  if (r->transfers != NULL) {
    json_builder_set_member_name(b, "transfers");
    json_builder_begin_array(b);
    for (guint i = 0; i < r->transfers->len; i++) {
      const LbTransfer *t = &g_array_index(r->transfers, LbTransfer, i);
      json_builder_begin_array(b);
      gint64 v[] = {t->adaptation,    t->round,         t->src,         t->dst,
                    (gint64)t->first, (gint64)t->count, (gint64)t->load};
      for (guint k = 0; k < G_N_ELEMENTS(v); k++)
        json_builder_add_int_value(b, v[k]);
      json_builder_end_array(b);
    }
    json_builder_end_array(b);
  }
  if (r->partition != NULL) {
    add_int(b, "dim", r->dim);
    json_builder_set_member_name(b, "partition");
    json_builder_begin_array(b);
    for (guint rank = 0; rank < r->ranks; rank++) {
      const LbRankPart *part = &r->partition[rank];
      json_builder_begin_array(b); /* lo..., hi..., load, neighbours... */
      for (guint a = 0; a < r->dim; a++)
        json_builder_add_int_value(b, (gint64)part->lo[a]);
      for (guint a = 0; a < r->dim; a++)
        json_builder_add_int_value(b, (gint64)part->hi[a]);
      json_builder_add_int_value(b, (gint64)part->load);
      for (guint i = 0; i < part->nneighbours; i++)
        json_builder_add_int_value(b, part->neighbours[i]);
      json_builder_end_array(b);
    }
    json_builder_end_array(b);
  }
  if (r->grids != NULL) {
    if (r->partition == NULL)
      add_int(b, "dim", r->dim);
    json_builder_set_member_name(b, "grids");
    json_builder_begin_array(b);
    for (guint i = 0; i < r->grids->len; i++) {
      const LbGridPart *g = &g_array_index(r->grids, LbGridPart, i);
      json_builder_begin_array(b);
      gint64 v[] = {g->owner, g->level, g->lo[0], g->lo[1],       g->lo[2],
                    g->hi[0], g->hi[1], g->hi[2], (gint64)g->load};
      for (guint k = 0; k < G_N_ELEMENTS(v); k++)
        json_builder_add_int_value(b, v[k]);
      json_builder_end_array(b);
    }
    json_builder_end_array(b);
  }
  if (r->events != NULL) {
    json_builder_set_member_name(b, "events");
    json_builder_begin_array(b);
    for (guint i = 0; i < r->events->len; i++) {
      const LbEvent *e = &g_array_index(r->events, LbEvent, i);
      json_builder_begin_array(b);
      gint64 v[] = {e->adaptation, e->kind, (gint64)e->unit, (gint64)e->piece,
                    e->from,       e->to,   (gint64)e->load};
      for (guint k = 0; k < G_N_ELEMENTS(v); k++)
        json_builder_add_int_value(b, v[k]);
      json_builder_end_array(b);
    }
    json_builder_end_array(b);
  }
  if (r->narration != NULL) {
    json_builder_set_member_name(b, "narration");
    json_builder_begin_array(b);
    for (guint i = 0; i < r->narration->len; i++)
      json_builder_add_string_value(b, r->narration->pdata[i]);
    json_builder_end_array(b);
  }
  double measured[] = {r->wall_seconds, r->sim_wall_seconds};
  add_doubles(b, "measured", measured, G_N_ELEMENTS(measured));
  add_int(b, "peak_rss_kib", (gint64)r->peak_rss_kib);
  json_builder_end_object(b);

  g_autoptr(JsonGenerator) gen = json_generator_new();
  g_autoptr(JsonNode) root = json_builder_get_root(b);
  json_generator_set_root(gen, root);
  return json_generator_to_data(gen, NULL);
}

static gboolean
bad(GError **error, const char *what)
{
  g_set_error(error, JSON_PARSER_ERROR, JSON_PARSER_ERROR_INVALID_DATA,
              "a run's result is malformed: %s", what);
  return FALSE;
}

/* Member `key` of o as an array of exactly n elements, or NULL. */
static JsonArray *
array_of(JsonObject *o, const char *key, guint n)
{
  JsonNode *node = json_object_get_member(o, key);
  if (node == NULL || !JSON_NODE_HOLDS_ARRAY(node))
    return NULL;
  JsonArray *a = json_node_get_array(node);
  return json_array_get_length(a) == n ? a : NULL;
}

static gboolean
read_doubles(JsonObject *o, const char *key, double *out, guint n, GError **error)
{
  JsonArray *a = array_of(o, key, n);
  if (a == NULL)
    return bad(error, key);
  for (guint i = 0; i < n; i++)
    out[i] = json_array_get_double_element(a, i);
  return TRUE;
}

static const char *
member_string(JsonObject *o, const char *key)
{
  JsonNode *n = json_object_get_member(o, key);
  return n != NULL && JSON_NODE_HOLDS_VALUE(n) && json_node_get_value_type(n) == G_TYPE_STRING
             ? json_node_get_string(n)
             : NULL;
}

static gint64
member_int(JsonObject *o, const char *key)
{
  JsonNode *n = json_object_get_member(o, key);
  return n != NULL && JSON_NODE_HOLDS_VALUE(n) ? json_node_get_int(n) : -1;
}

static gboolean
read_result(JsonObject *o, LbRunResult *r, GError **error)
{
  if (member_int(o, "version") != TRANSPORT_VERSION)
    return bad(error, "version");
  const char *name = member_string(o, "balancer");
  const LbBalancer *balancer = name != NULL ? lb_balancer_of_label(name) : NULL;
  if (balancer == NULL)
    return bad(error, "balancer");
  r->balancer = g_strdup(name);
  r->model = g_strdup(member_string(o, "model"));
  r->view = g_strdup(member_string(o, "view"));
  r->start = g_strdup(member_string(o, "start"));
  r->placement = g_strdup(member_string(o, "placement"));
  gint64 ranks = member_int(o, "ranks"), steps = member_int(o, "steps");
  if (r->model == NULL || r->start == NULL || r->placement == NULL || ranks < 1 || steps < 1 ||
      ranks > G_MAXINT32 || steps > G_MAXINT32)
    return bad(error, "run description");
  r->ranks = (guint)ranks;
  r->nadaptations = (guint)steps;
  r->hosts = (guint)member_int(o, "hosts");

  r->params = lb_params_new(balancer->params);
  JsonNode *params = json_object_get_member(o, "params");
  if (params == NULL || !JSON_NODE_HOLDS_OBJECT(params))
    return bad(error, "params");
  g_autoptr(GList) members = json_object_get_members(json_node_get_object(params));
  for (GList *l = members; l != NULL; l = l->next) {
    const char *value = member_string(json_node_get_object(params), l->data);
    if (value == NULL || !lb_params_set(r->params, l->data, value, NULL))
      return bad(error, "params");
  }

  double summary[8];
  if (!read_doubles(o, "summary", summary, G_N_ELEMENTS(summary), error))
    return FALSE;
  r->imbalance_before = summary[0];
  r->imbalance_after = summary[1];
  r->messages = (guint64)summary[2];
  r->bytes = summary[3];
  r->bytes_moved = summary[4];
  r->balance_time = summary[5];
  r->app_time = summary[6];
  r->total_time = summary[7];
  r->simulated_messages = (guint64)member_int(o, "simulated_messages");

  r->metric_defs = lb_balancer_metric_defs(balancer);
  guint ndefs = r->metric_defs->len;
  JsonArray *names = array_of(o, "metric_names", ndefs);
  if (names == NULL)
    return bad(error, "metric_names");
  for (guint i = 0; i < ndefs; i++)
    if (g_strcmp0(json_array_get_string_element(names, i),
                  g_array_index(r->metric_defs, LbMetricDef, i).name) != 0)
      return bad(error, "metric_names");
  r->adaptation_metrics = g_new0(double, (gsize)r->nadaptations *ndefs);
  if (!read_doubles(o, "step_metrics", r->adaptation_metrics, r->nadaptations * ndefs, error))
    return FALSE;
  lb_run_result_aggregate(r);

  guint nphases = 0;
  while (balancer->phases[nphases] != NULL)
    nphases++;
  JsonArray *phases = array_of(o, "phases", nphases);
  if (phases == NULL)
    return bad(error, "phases");
  r->nphases = nphases;
  r->phases = g_new0(LbPhaseResult, nphases);
  for (guint i = 0; i < nphases; i++) {
    JsonArray *p = json_array_get_array_element(phases, i);
    if (p == NULL || json_array_get_length(p) != 4)
      return bad(error, "phases");
    r->phases[i] =
        (LbPhaseResult){balancer->phases[i], (guint)json_array_get_int_element(p, 0),
                        (guint64)json_array_get_int_element(p, 1),
                        json_array_get_double_element(p, 2), json_array_get_double_element(p, 3)};
  }

  JsonArray *loads = array_of(o, "final_loads", r->ranks);
  if (loads == NULL)
    return bad(error, "final_loads");
  r->final_loads = g_new(guint64, r->ranks);
  for (guint i = 0; i < r->ranks; i++)
    r->final_loads[i] = (guint64)json_array_get_int_element(loads, i);

  JsonArray *adaptations = array_of(o, "adaptations", r->nadaptations);
  if (adaptations == NULL)
    return bad(error, "adaptations");
  r->adaptations = g_new0(LbAdaptationResult, r->nadaptations);
  for (guint s = 0; s < r->nadaptations; s++) {
    JsonArray *a = json_array_get_array_element(adaptations, s);
    if (a == NULL || json_array_get_length(a) != 10)
      return bad(error, "adaptations");
    double v[10];
    for (guint i = 0; i < 10; i++)
      v[i] = json_array_get_double_element(a, i);
    r->adaptations[s] =
        (LbAdaptationResult){v[0],          v[1], (guint64)v[2], (guint64)v[3], (guint64)v[4],
                             (guint64)v[5], v[6], v[7],          v[8],          v[9]};
  }

  JsonNode *transfers = json_object_get_member(o, "transfers");
  if (transfers != NULL) {
    if (!JSON_NODE_HOLDS_ARRAY(transfers))
      return bad(error, "transfers");
    JsonArray *t = json_node_get_array(transfers);
    r->transfers = g_array_sized_new(FALSE, FALSE, sizeof(LbTransfer), json_array_get_length(t));
    for (guint i = 0; i < json_array_get_length(t); i++) {
      JsonArray *x = json_array_get_array_element(t, i);
      if (x == NULL || json_array_get_length(x) != 7)
        return bad(error, "transfers");
      LbTransfer tr = {
          (guint)json_array_get_int_element(x, 0),   (guint)json_array_get_int_element(x, 1),
          (guint)json_array_get_int_element(x, 2),   (guint)json_array_get_int_element(x, 3),
          (guint64)json_array_get_int_element(x, 4), (guint64)json_array_get_int_element(x, 5),
          (guint64)json_array_get_int_element(x, 6)};
      g_array_append_val(r->transfers, tr);
    }
  }
  JsonNode *partition = json_object_get_member(o, "partition");
  if (partition != NULL) {
    gint64 dim = member_int(o, "dim");
    JsonArray *parts = array_of(o, "partition", r->ranks);
    if (parts == NULL || dim < 1 || dim > 3)
      return bad(error, "partition");
    r->dim = (guint)dim;
    r->partition = g_new0(LbRankPart, r->ranks);
    for (guint rank = 0; rank < r->ranks; rank++) {
      JsonArray *x = json_array_get_array_element(parts, rank);
      guint fixed = 2 * r->dim + 1;
      if (x == NULL || json_array_get_length(x) < fixed)
        return bad(error, "partition");
      LbRankPart *part = &r->partition[rank];
      for (guint a = 0; a < r->dim; a++) {
        part->lo[a] = (guint64)json_array_get_int_element(x, a);
        part->hi[a] = (guint64)json_array_get_int_element(x, r->dim + a);
      }
      part->load = (guint64)json_array_get_int_element(x, 2 * r->dim);
      part->nneighbours = json_array_get_length(x) - fixed;
      part->neighbours = g_new(guint, MAX(part->nneighbours, 1));
      for (guint i = 0; i < part->nneighbours; i++)
        part->neighbours[i] = (guint)json_array_get_int_element(x, fixed + i);
    }
  }
  JsonNode *grids = json_object_get_member(o, "grids");
  if (grids != NULL) {
    if (!JSON_NODE_HOLDS_ARRAY(grids))
      return bad(error, "grids");
    gint64 dim = member_int(o, "dim");
    if (dim < 1 || dim > 3)
      return bad(error, "grids");
    r->dim = (guint)dim;
    JsonArray *t = json_node_get_array(grids);
    r->grids = g_array_sized_new(FALSE, FALSE, sizeof(LbGridPart), json_array_get_length(t));
    for (guint i = 0; i < json_array_get_length(t); i++) {
      JsonArray *x = json_array_get_array_element(t, i);
      if (x == NULL || json_array_get_length(x) != 9)
        return bad(error, "grids");
      LbGridPart g = {(guint)json_array_get_int_element(x, 0),
                      (guint)json_array_get_int_element(x, 1),
                      {json_array_get_int_element(x, 2), json_array_get_int_element(x, 3),
                       json_array_get_int_element(x, 4)},
                      {json_array_get_int_element(x, 5), json_array_get_int_element(x, 6),
                       json_array_get_int_element(x, 7)},
                      (guint64)json_array_get_int_element(x, 8)};
      g_array_append_val(r->grids, g);
    }
  }
  JsonNode *events = json_object_get_member(o, "events");
  if (events != NULL) {
    if (!JSON_NODE_HOLDS_ARRAY(events))
      return bad(error, "events");
    JsonArray *t = json_node_get_array(events);
    r->events = g_array_sized_new(FALSE, FALSE, sizeof(LbEvent), json_array_get_length(t));
    for (guint i = 0; i < json_array_get_length(t); i++) {
      JsonArray *x = json_array_get_array_element(t, i);
      if (x == NULL || json_array_get_length(x) != 7)
        return bad(error, "events");
      gint64 kind = json_array_get_int_element(x, 1);
      if (kind != LB_EVENT_MOVE && kind != LB_EVENT_SPLIT)
        return bad(error, "events");
      LbEvent e = {
          (guint)json_array_get_int_element(x, 0),   (LbEventKind)kind,
          (guint64)json_array_get_int_element(x, 2), (guint64)json_array_get_int_element(x, 3),
          (guint)json_array_get_int_element(x, 4),   (guint)json_array_get_int_element(x, 5),
          (guint64)json_array_get_int_element(x, 6)};
      g_array_append_val(r->events, e);
    }
  }
  JsonNode *narration = json_object_get_member(o, "narration");
  if (narration != NULL) {
    if (!JSON_NODE_HOLDS_ARRAY(narration))
      return bad(error, "narration");
    JsonArray *n = json_node_get_array(narration);
    r->narration = g_ptr_array_new_with_free_func(g_free);
    for (guint i = 0; i < json_array_get_length(n); i++)
      g_ptr_array_add(r->narration, g_strdup(json_array_get_string_element(n, i)));
  }
  double measured[2];
  if (!read_doubles(o, "measured", measured, 2, error))
    return FALSE;
  r->wall_seconds = measured[0];
  r->sim_wall_seconds = measured[1];
  r->peak_rss_kib = (guint64)member_int(o, "peak_rss_kib");
  return TRUE;
}

LbRunResult *
lb_result_from_transport(const char *text, GError **error)
{
  g_autoptr(JsonParser) parser = json_parser_new();
  if (!json_parser_load_from_data(parser, text, -1, error))
    return NULL;
  JsonNode *root = json_parser_get_root(parser);
  if (root == NULL || !JSON_NODE_HOLDS_OBJECT(root)) {
    bad(error, "not an object");
    return NULL;
  }
  g_autoptr(LbRunResult) r = g_new0(LbRunResult, 1);
  if (!read_result(json_node_get_object(root), r, error))
    return NULL;
  return g_steal_pointer(&r);
}
