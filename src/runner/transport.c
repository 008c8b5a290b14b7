/* A run's typed result between the child that simulated it and the parent
 * that reports it, written as JSON text and read back with json-glib into
 * the same structure. Doubles travel with 17 digits, so nothing is rounded on the
 * way; the user's document is formatted later, from the typed result. */
#include "runner/transport.h"

#include <json-glib/json-glib.h>
#include <math.h>
#include <string.h>

#include "io/input.h"
#include "lbsim/balancer.h"
#include "lbsim/params.h"
#include "lbsim/scenario.h"
#include "metrics/metrics.h"
#include "metrics/summary.h"

/* the quark's name is the macro's text, spaces and all */
/* clang-format off */
G_DEFINE_QUARK(lb-transport-error-quark, lb_transport_error)
/* clang-format on */

/* ---- writing ---- */

/* The text written directly, as json-glib's generator writes it (the
 * same bytes: no spaces, doubles by g_ascii_dtostr with ".0" when they
 * have no point, strings with its escapes), without a node a value: a
 * run with --detail carries tens of millions of numbers, and the tree of
 * them took a third of such a run's time. */
typedef struct {
  GString *s;
  gboolean comma; /* a value came before, at this level */
} Tw;

static void
tw_sep(Tw *t)
{
  if (t->comma)
    g_string_append_c(t->s, ',');
  t->comma = TRUE;
}

static void
tw_text(GString *s, const char *v)
{
  g_string_append_c(s, '"');
  for (const unsigned char *c = (const unsigned char *)v; *c != '\0'; c++) {
    switch (*c) {
    case '"':
      g_string_append(s, "\\\"");
      break;
    case '\\':
      g_string_append(s, "\\\\");
      break;
    case '\b':
      g_string_append(s, "\\b");
      break;
    case '\f':
      g_string_append(s, "\\f");
      break;
    case '\n':
      g_string_append(s, "\\n");
      break;
    case '\r':
      g_string_append(s, "\\r");
      break;
    case '\t':
      g_string_append(s, "\\t");
      break;
    default:
      if (*c < 0x20 || *c == 0x7f)
        g_string_append_printf(s, "\\u%04x", *c);
      else
        g_string_append_c(s, (char)*c);
    }
  }
  g_string_append_c(s, '"');
}

static void
tw_member(Tw *t, const char *key)
{
  tw_sep(t);
  tw_text(t->s, key);
  g_string_append_c(t->s, ':');
  t->comma = FALSE;
}

static void
tw_begin(Tw *t, char open)
{
  tw_sep(t);
  g_string_append_c(t->s, open);
  t->comma = FALSE;
}

static void
tw_end(Tw *t, char close)
{
  g_string_append_c(t->s, close);
  t->comma = TRUE;
}

static void
tw_int(Tw *t, gint64 v)
{
  tw_sep(t);
  g_string_append_printf(t->s, "%" G_GINT64_FORMAT, v);
}

static void
tw_double(Tw *t, double v)
{
  tw_sep(t);
  char buf[G_ASCII_DTOSTR_BUF_SIZE];
  g_ascii_dtostr(buf, sizeof buf, v);
  g_string_append(t->s, buf);
  if (strchr(buf, '.') == NULL)
    g_string_append(t->s, ".0");
}

static void
tw_string(Tw *t, const char *v)
{
  tw_sep(t);
  tw_text(t->s, v);
}

static void
add_int(Tw *b, const char *key, gint64 v)
{
  tw_member(b, key);
  tw_int(b, v);
}

static void
add_string(Tw *b, const char *key, const char *v)
{
  tw_member(b, key);
  tw_string(b, v);
}

static void
add_doubles(Tw *b, const char *key, const double *v, gsize n)
{
  tw_member(b, key);
  tw_begin(b, '[');
  for (gsize i = 0; i < n; i++)
    tw_double(b, v[i]);
  tw_end(b, ']');
}

/* What narration keeps besides its lines (lbsim explain's frames): each
 * line's place, the balancer's messages, the chunks, the loads at the
 * start of every step. */
static void
write_narrated(Tw *b, const LbRunResult *r)
{
  if (r->notes != NULL) {
    tw_member(b, "notes");
    tw_begin(b, '[');
    for (guint i = 0; i < r->notes->len; i++) {
      const LbNote *n = &g_array_index(r->notes, LbNote, i);
      tw_begin(b, '[');
      gint64 v[] = {n->adaptation, n->stage, n->step, n->rank, n->phase + 1};
      for (guint k = 0; k < G_N_ELEMENTS(v); k++)
        tw_int(b, v[k]);
      tw_double(b, n->time);
      tw_end(b, ']');
    }
    tw_end(b, ']');
  }
  if (r->sent != NULL) {
    tw_member(b, "sent");
    tw_begin(b, '[');
    for (guint i = 0; i < r->sent->len; i++) {
      const LbSent *m = &g_array_index(r->sent, LbSent, i);
      tw_begin(b, '[');
      gint64 v[] = {m->adaptation, m->stage, m->step,          m->phase + 1,
                    m->src,        m->dst,   (gint64)m->units, (gint64)m->load};
      for (guint k = 0; k < G_N_ELEMENTS(v); k++)
        tw_int(b, v[k]);
      tw_double(b, m->bytes);
      tw_double(b, m->time);
      tw_string(b, m->label != NULL ? m->label : "");
      tw_int(b, m->resized);
      tw_end(b, ']');
    }
    tw_end(b, ']');
  }
  if (r->chunks != NULL) {
    tw_member(b, "chunks");
    tw_begin(b, '[');
    for (guint i = 0; i < r->chunks->len; i++) {
      const LbChunk *c = &g_array_index(r->chunks, LbChunk, i);
      tw_begin(b, '[');
      gint64 v[] = {c->adaptation,    c->rank,          c->owner,
                    (gint64)c->first, (gint64)c->count, (gint64)c->load};
      for (guint k = 0; k < G_N_ELEMENTS(v); k++)
        tw_int(b, v[k]);
      tw_double(b, c->began);
      tw_double(b, c->ended);
      tw_end(b, ']');
    }
    tw_end(b, ']');
  }
  if (r->loads_at_start != NULL) {
    tw_member(b, "loads_at_start");
    tw_begin(b, '[');
    for (guint i = 0; i < r->nadaptations * r->ranks; i++)
      tw_int(b, (gint64)r->loads_at_start[i]);
    tw_end(b, ']');
  }
  if (r->units_at_start != NULL) {
    /* [step, rank, id, load] */
    tw_member(b, "units_at_start");
    tw_begin(b, '[');
    for (guint i = 0; i < r->units_at_start->len; i++) {
      const GArray *units = r->units_at_start->pdata[i];
      for (guint k = 0; units != NULL && k < units->len; k++) {
        const LbUnit *u = &g_array_index(units, LbUnit, k);
        tw_begin(b, '[');
        gint64 v[] = {i / r->ranks, i % r->ranks, (gint64)u->id, (gint64)u->load};
        for (guint j = 0; j < G_N_ELEMENTS(v); j++)
          tw_int(b, v[j]);
        tw_end(b, ']');
      }
    }
    tw_end(b, ']');
  }
  if (r->machine.ranks != NULL) {
    if (r->machine.topology != NULL)
      add_string(b, "machine_topology", r->machine.topology);
    tw_member(b, "machine_dims");
    tw_begin(b, '[');
    for (guint k = 0; k < r->machine.ndims; k++)
      tw_int(b, r->machine.dims[k]);
    tw_end(b, ']');
    tw_member(b, "machine");
    tw_begin(b, '[');
    for (guint i = 0; i < r->ranks; i++) {
      const LbRankHost *h = &r->machine.ranks[i];
      tw_begin(b, '[');
      tw_int(b, h->host);
      tw_double(b, h->speed);
      tw_int(b, h->group);
      tw_end(b, ']');
    }
    tw_end(b, ']');
  }
}

char *
lb_result_to_transport(const LbRunResult *r)
{
  Tw tw = {g_string_sized_new(64 * 1024), FALSE}, *b = &tw;
  tw_begin(b, '{');
  add_int(b, "version", LB_TRANSPORT_VERSION);
  add_string(b, "balancer", r->balancer);
  add_string(b, "model", r->model);
  if (r->view != NULL)
    add_string(b, "view", r->view);
  add_string(b, "start", r->start);
  add_string(b, "placement", r->placement);
  add_int(b, "ranks", r->ranks);
  add_int(b, "steps", r->nadaptations);
  add_int(b, "hosts", r->hosts);
  tw_member(b, "params");
  tw_begin(b, '{');
  for (const LbParamSpec *s = lb_params_spec(r->params); s->name != NULL; s++) {
    const char *text = lb_params_get_text(r->params, s->name);
    if (text != NULL)
      add_string(b, s->name, text);
  }
  tw_end(b, '}');
  /* the run's stored summary fields by name; the steps' in table order */
  tw_member(b, "summary");
  tw_begin(b, '{');
  for (const LbSummaryField *f = lb_summary(); f->name != NULL; f++) {
    double v = 0;
    if (f->run_offset < 0 || !lb_summary_get(f, r, -1, &v))
      continue;
    tw_member(b, f->json);
    if (f->whole)
      tw_int(b, (gint64)v);
    else
      tw_double(b, v);
  }
  tw_end(b, '}');

  tw_member(b, "metric_names");
  tw_begin(b, '[');
  for (guint i = 0; i < r->metric_defs->len; i++)
    tw_string(b, g_array_index(r->metric_defs, LbMetricDef, i).name);
  tw_end(b, ']');
  add_doubles(b, "step_metrics", r->adaptation_metrics,
              (gsize)r->nadaptations * r->metric_defs->len);

  tw_member(b, "phases");
  tw_begin(b, '[');
  for (guint i = 0; i < r->nphases; i++) {
    const LbPhaseResult *p = &r->phases[i];
    tw_begin(b, '[');
    tw_int(b, p->rounds);
    tw_int(b, (gint64)p->messages);
    tw_double(b, p->bytes);
    tw_double(b, p->time);
    tw_end(b, ']');
  }
  tw_end(b, ']');

  tw_member(b, "final_loads");
  tw_begin(b, '[');
  for (guint i = 0; i < r->ranks; i++)
    tw_int(b, (gint64)r->final_loads[i]);
  tw_end(b, ']');

  tw_member(b, "adaptations");
  tw_begin(b, '[');
  for (guint s = 0; s < r->nadaptations; s++) {
    tw_begin(b, '[');
    for (const LbSummaryField *f = lb_summary(); f->name != NULL; f++) {
      double v = 0;
      if (f->step_offset >= 0 && lb_summary_get(f, r, (int)s, &v))
        tw_double(b, v);
    }
    tw_end(b, ']');
  }
  tw_end(b, ']');

  if (r->transfers != NULL) {
    tw_member(b, "transfers");
    tw_begin(b, '[');
    for (guint i = 0; i < r->transfers->len; i++) {
      const LbTransfer *t = &g_array_index(r->transfers, LbTransfer, i);
      tw_begin(b, '[');
      gint64 v[] = {t->adaptation,    t->round,        t->src,       t->dst,   (gint64)t->first,
                    (gint64)t->count, (gint64)t->load, t->phase + 1, t->stage, t->step};
      for (guint k = 0; k < G_N_ELEMENTS(v); k++)
        tw_int(b, v[k]);
      tw_double(b, t->time);
      tw_end(b, ']');
    }
    tw_end(b, ']');
  }
  if (r->partition != NULL) {
    add_int(b, "dim", r->dim);
    tw_member(b, "partition");
    tw_begin(b, '[');
    for (guint rank = 0; rank < r->ranks; rank++) {
      const LbRankPart *part = &r->partition[rank];
      tw_begin(b, '['); /* lo..., hi..., load, neighbours... */
      for (guint a = 0; a < r->dim; a++)
        tw_int(b, (gint64)part->lo[a]);
      for (guint a = 0; a < r->dim; a++)
        tw_int(b, (gint64)part->hi[a]);
      tw_int(b, (gint64)part->load);
      for (guint i = 0; i < part->nneighbours; i++)
        tw_int(b, part->neighbours[i]);
      tw_end(b, ']');
    }
    tw_end(b, ']');
  }
  if (r->grids != NULL) {
    if (r->partition == NULL)
      add_int(b, "dim", r->dim);
    tw_member(b, "grids");
    tw_begin(b, '[');
    for (guint i = 0; i < r->grids->len; i++) {
      const LbGridPart *g = &g_array_index(r->grids, LbGridPart, i);
      tw_begin(b, '[');
      gint64 v[] = {g->owner, g->level, g->lo[0], g->lo[1],       g->lo[2],
                    g->hi[0], g->hi[1], g->hi[2], (gint64)g->load};
      for (guint k = 0; k < G_N_ELEMENTS(v); k++)
        tw_int(b, v[k]);
      tw_end(b, ']');
    }
    tw_end(b, ']');
  }
  if (r->events != NULL) {
    tw_member(b, "events");
    tw_begin(b, '[');
    for (guint i = 0; i < r->events->len; i++) {
      const LbEvent *e = &g_array_index(r->events, LbEvent, i);
      tw_begin(b, '[');
      gint64 v[] = {e->adaptation, e->kind, (gint64)e->unit, (gint64)e->piece,
                    e->from,       e->to,   (gint64)e->load};
      for (guint k = 0; k < G_N_ELEMENTS(v); k++)
        tw_int(b, v[k]);
      tw_end(b, ']');
    }
    tw_end(b, ']');
  }
  write_narrated(b, r);
  GPtrArray *texts[] = {r->narration, r->stages};
  static const char *const text_names[] = {"narration", "stages"};
  for (guint k = 0; k < G_N_ELEMENTS(texts); k++) {
    if (texts[k] == NULL)
      continue;
    tw_member(b, text_names[k]);
    tw_begin(b, '[');
    for (guint i = 0; i < texts[k]->len; i++)
      tw_string(b, texts[k]->pdata[i]);
    tw_end(b, ']');
  }
  double measured[] = {r->wall_seconds, r->sim_wall_seconds};
  add_doubles(b, "measured", measured, G_N_ELEMENTS(measured));
  add_int(b, "peak_rss_kib", (gint64)r->peak_rss_kib);
  tw_end(b, '}');

  return g_string_free(tw.s, FALSE);
}

/* ---- reading ---- */

/* "where: what", or "what" where where is empty */
static gboolean G_GNUC_PRINTF(3, 4) bad(GError **error, const char *where, const char *format, ...)
{
  va_list args;
  va_start(args, format);
  g_autofree char *what = g_strdup_vprintf(format, args);
  va_end(args);
  g_set_error(error, LB_TRANSPORT_ERROR, LB_TRANSPORT_ERROR_INPUT, "%s%s%s", where,
              *where != '\0' ? ": " : "", what);
  return FALSE;
}

/* Below 2^64: a double that converts to a guint64. */
#define BELOW_2_64 18446744073709551616.0

static gboolean
node_int(JsonNode *n, gint64 min, gint64 max, gint64 *out)
{
  if (n == NULL || !JSON_NODE_HOLDS_VALUE(n) || json_node_get_value_type(n) != G_TYPE_INT64)
    return FALSE;
  *out = json_node_get_int(n);
  return *out >= min && *out <= max;
}

static gboolean
node_double(JsonNode *n, double *out)
{
  if (n == NULL || !JSON_NODE_HOLDS_VALUE(n))
    return FALSE;
  GType t = json_node_get_value_type(n);
  if (t == G_TYPE_INT64)
    *out = (double)json_node_get_int(n);
  else if (t == G_TYPE_DOUBLE)
    *out = json_node_get_double(n);
  else
    return FALSE;
  return isfinite(*out);
}

static gboolean
int_field(JsonNode *n, const char *field, gint64 min, gint64 max, gint64 *out, GError **error)
{
  if (node_int(n, min, max, out))
    return TRUE;
  return bad(error, field,
             "%sexpected a whole number from %" G_GINT64_FORMAT " to %" G_GINT64_FORMAT,
             n == NULL ? "missing, " : "", min, max);
}

static gboolean
double_field(JsonNode *n, const char *field, double *out, GError **error)
{
  if (node_double(n, out))
    return TRUE;
  return bad(error, field, "%sexpected a finite number", n == NULL ? "missing, " : "");
}

/* A count lbsim keeps as a guint64 but writes as a double. */
static gboolean
count_field(JsonNode *n, const char *field, guint64 *out, GError **error)
{
  double v;
  if (node_double(n, &v) && v >= 0 && v < BELOW_2_64) {
    *out = (guint64)v;
    return TRUE;
  }
  return bad(error, field, "%sexpected a number from 0 to 2^64", n == NULL ? "missing, " : "");
}

static gboolean
member_int(JsonObject *o, const char *key, gint64 min, gint64 max, gint64 *out, GError **error)
{
  return int_field(json_object_get_member(o, key), key, min, max, out, error);
}

/* NULL with the error set when the member is missing or not a string and
 * needed; NULL without one when it is missing and not needed. */
static const char *
member_string(JsonObject *o, const char *key, gboolean needed, GError **error)
{
  JsonNode *n = json_object_get_member(o, key);
  if (n == NULL && !needed)
    return NULL;
  if (n == NULL || !JSON_NODE_HOLDS_VALUE(n) || json_node_get_value_type(n) != G_TYPE_STRING) {
    bad(error, key, "%sexpected a string", n == NULL ? "missing, " : "");
    return NULL;
  }
  return json_node_get_string(n);
}

/* Member key of o as an array of exactly n elements (what: what they
 * are, in the message). */
static JsonArray *
array_of(JsonObject *o, const char *key, guint64 n, const char *what, GError **error)
{
  JsonNode *node = json_object_get_member(o, key);
  if (node == NULL || !JSON_NODE_HOLDS_ARRAY(node)) {
    bad(error, key, "%sexpected an array", node == NULL ? "missing, " : "");
    return NULL;
  }
  JsonArray *a = json_node_get_array(node);
  if (json_array_get_length(a) != n) {
    bad(error, key, "%u entries, expected %" G_GUINT64_FORMAT " (%s)", json_array_get_length(a), n,
        what);
    return NULL;
  }
  return a;
}

/* Element i of a, an array of n elements (n 0: any length). */
static JsonArray *
row_of(JsonArray *a, guint i, const char *key, guint min, guint max, GError **error)
{
  JsonNode *n = json_array_get_element(a, i);
  guint len = JSON_NODE_HOLDS_ARRAY(n) ? json_array_get_length(json_node_get_array(n)) : 0;
  if (JSON_NODE_HOLDS_ARRAY(n) && len >= min && len <= max)
    return json_node_get_array(n);
  g_autofree char *at = g_strdup_printf("%s[%u]", key, i);
  if (min == max)
    bad(error, at, "expected an array of %u numbers", min);
  else
    bad(error, at, "expected an array of %u numbers or more", min);
  return NULL;
}

/* The whole numbers of a row into out, each in [min, max]. */
static gboolean
row_ints(JsonArray *row, const char *key, guint i, guint from, guint n, gint64 min, gint64 max,
         gint64 *out, GError **error)
{
  for (guint k = 0; k < n; k++) {
    if (node_int(json_array_get_element(row, from + k), min, max, &out[k]))
      continue;
    g_autofree char *at = g_strdup_printf("%s[%u][%u]", key, i, from + k);
    return int_field(json_array_get_element(row, from + k), at, min, max, &out[k], error);
  }
  return TRUE;
}

static gboolean
read_doubles(JsonObject *o, const char *key, double *out, guint n, const char *what, GError **error)
{
  JsonArray *a = array_of(o, key, n, what, error);
  if (a == NULL)
    return FALSE;
  for (guint i = 0; i < n; i++) {
    g_autofree char *at = g_strdup_printf("%s[%u]", key, i);
    if (!double_field(json_array_get_element(a, i), at, &out[i], error))
      return FALSE;
  }
  return TRUE;
}

static gboolean
read_optional_array(JsonObject *o, const char *key, JsonArray **out, GError **error)
{
  JsonNode *n = json_object_get_member(o, key);
  *out = NULL;
  if (n == NULL)
    return TRUE;
  if (!JSON_NODE_HOLDS_ARRAY(n))
    return bad(error, key, "expected an array");
  *out = json_node_get_array(n);
  return TRUE;
}

static gboolean
read_params(JsonObject *o, const LbBalancer *balancer, LbRunResult *r, GError **error)
{
  r->params = lb_params_new(balancer->params);
  JsonNode *params = json_object_get_member(o, "params");
  if (params == NULL || !JSON_NODE_HOLDS_OBJECT(params))
    return bad(error, "params", "%sexpected an object", params == NULL ? "missing, " : "");
  JsonObject *p = json_node_get_object(params);
  g_autoptr(GList) members = json_object_get_members(p);
  for (GList *l = members; l != NULL; l = l->next) {
    g_autofree char *at = g_strdup_printf("params.%s", (const char *)l->data);
    JsonNode *n = json_object_get_member(p, l->data);
    if (!JSON_NODE_HOLDS_VALUE(n) || json_node_get_value_type(n) != G_TYPE_STRING)
      return bad(error, at, "expected a string");
    g_autoptr(GError) local = NULL;
    if (!lb_params_set(r->params, l->data, json_node_get_string(n), &local))
      return bad(error, at, "%s", local->message);
  }
  return TRUE;
}

static gboolean
row_double(JsonArray *row, const char *key, guint i, guint at, double *out, GError **error)
{
  g_autofree char *where = g_strdup_printf("%s[%u][%u]", key, i, at);
  return double_field(json_array_get_element(row, at), where, out, error);
}

static void
clear_sent(gpointer data)
{
  LbSent *sent = data;
  g_clear_pointer(&sent->label, g_free);
}

/* the machine write_narrated keeps, back */
static gboolean
read_machine(JsonObject *o, JsonArray *machine, JsonArray *dims, LbRunResult *r, GError **error)
{
  if (json_array_get_length(machine) != r->ranks)
    return bad(error, "machine", "expected %u rows, one per rank", r->ranks);
  guint ndims = dims != NULL ? json_array_get_length(dims) : 0;
  if (ndims > G_N_ELEMENTS(r->machine.dims))
    return bad(error, "machine_dims", "expected at most %u sizes",
               (guint)G_N_ELEMENTS(r->machine.dims));
  for (guint k = 0; k < ndims; k++) {
    gint64 v;
    g_autofree char *at = g_strdup_printf("machine_dims[%u]", k);
    if (!int_field(json_array_get_element(dims, k), at, 1, G_MAXUINT32, &v, error))
      return FALSE;
    r->machine.dims[k] = (guint)v;
  }
  r->machine.ndims = ndims;
  const char *topology = member_string(o, "machine_topology", FALSE, error);
  if (topology == NULL && json_object_has_member(o, "machine_topology"))
    return FALSE;
  r->machine.topology = g_strdup(topology);
  r->machine.ranks = g_new0(LbRankHost, r->ranks);
  for (guint i = 0; i < r->ranks; i++) {
    JsonArray *x = row_of(machine, i, "machine", 3, 3, error);
    gint64 host, group;
    double speed;
    if (x == NULL || !row_ints(x, "machine", i, 0, 1, 0, G_MAXUINT32, &host, error) ||
        !row_double(x, "machine", i, 1, &speed, error) ||
        !row_ints(x, "machine", i, 2, 1, 0, G_MAXUINT32, &group, error))
      return FALSE;
    r->machine.ranks[i] = (LbRankHost){(guint)host, speed, (guint)group};
  }
  return TRUE;
}

/* write_narrated's, back */
static gboolean
read_narrated(JsonObject *o, LbRunResult *r, GError **error)
{
  JsonArray *notes, *sent, *chunks, *loads, *machine, *dims, *units;
  if (!read_optional_array(o, "notes", &notes, error) ||
      !read_optional_array(o, "sent", &sent, error) ||
      !read_optional_array(o, "chunks", &chunks, error) ||
      !read_optional_array(o, "loads_at_start", &loads, error) ||
      !read_optional_array(o, "machine", &machine, error) ||
      !read_optional_array(o, "machine_dims", &dims, error) ||
      !read_optional_array(o, "units_at_start", &units, error))
    return FALSE;
  if (units != NULL) {
    r->units_at_start = g_ptr_array_new_with_free_func((GDestroyNotify)g_array_unref);
    for (guint i = 0; i < r->nadaptations * r->ranks; i++)
      g_ptr_array_add(r->units_at_start, g_array_new(FALSE, FALSE, sizeof(LbUnit)));
    for (guint i = 0; i < json_array_get_length(units); i++) {
      JsonArray *x = row_of(units, i, "units_at_start", 4, 4, error);
      gint64 v[4];
      if (x == NULL ||
          !row_ints(x, "units_at_start", i, 0, 1, 0, (gint64)r->nadaptations - 1, v, error) ||
          !row_ints(x, "units_at_start", i, 1, 1, 0, (gint64)r->ranks - 1, v + 1, error) ||
          !row_ints(x, "units_at_start", i, 2, 2, 0, G_MAXINT64, v + 2, error))
        return FALSE;
      LbUnit u = {(guint64)v[2], (guint64)v[3]};
      g_array_append_val(r->units_at_start->pdata[v[0] * r->ranks + v[1]], u);
    }
  }
  if (machine != NULL && !read_machine(o, machine, dims, r, error))
    return FALSE;
  if (notes != NULL) {
    r->notes = g_array_sized_new(FALSE, FALSE, sizeof(LbNote), json_array_get_length(notes));
    for (guint i = 0; i < json_array_get_length(notes); i++) {
      JsonArray *x = row_of(notes, i, "notes", 6, 6, error);
      gint64 v[5];
      double t;
      if (x == NULL || !row_ints(x, "notes", i, 0, 4, 0, G_MAXUINT32, v, error) ||
          !row_ints(x, "notes", i, 4, 1, 0, r->nphases, v + 4, error) ||
          !row_double(x, "notes", i, 5, &t, error))
        return FALSE;
      LbNote n = {(guint)v[0], (guint)v[1], (guint)v[2], (guint)v[3], (int)v[4] - 1, t};
      g_array_append_val(r->notes, n);
    }
  }
  if (sent != NULL) {
    r->sent = g_array_sized_new(FALSE, FALSE, sizeof(LbSent), json_array_get_length(sent));
    g_array_set_clear_func(r->sent, clear_sent);
    for (guint i = 0; i < json_array_get_length(sent); i++) {
      JsonArray *x = row_of(sent, i, "sent", 12, 12, error);
      gint64 v[9];
      double bytes, t;
      if (x == NULL || !row_ints(x, "sent", i, 0, 3, 0, G_MAXUINT32, v, error) ||
          !row_ints(x, "sent", i, 3, 1, 1, r->nphases, v + 3, error) ||
          !row_ints(x, "sent", i, 4, 2, 0, r->ranks - 1, v + 4, error) ||
          !row_ints(x, "sent", i, 6, 2, 0, G_MAXINT64, v + 6, error) ||
          !row_double(x, "sent", i, 8, &bytes, error) || !row_double(x, "sent", i, 9, &t, error) ||
          !row_ints(x, "sent", i, 11, 1, G_MININT64, G_MAXINT64, v + 8, error))
        return FALSE;
      JsonNode *label = json_array_get_element(x, 10);
      if (!JSON_NODE_HOLDS_VALUE(label) || json_node_get_value_type(label) != G_TYPE_STRING) {
        g_autofree char *at = g_strdup_printf("sent[%u][10]", i);
        return bad(error, at, "expected a string");
      }
      const char *words = json_node_get_string(label);
      LbSent m = {(guint)v[0],   (guint)v[1], (guint)v[2],
                  (int)v[3] - 1, (guint)v[4], (guint)v[5],
                  bytes,         t,           (guint64)v[6],
                  (guint64)v[7], v[8],        *words != '\0' ? g_strdup(words) : NULL};
      g_array_append_val(r->sent, m);
    }
  }
  if (chunks != NULL) {
    r->chunks = g_array_sized_new(FALSE, FALSE, sizeof(LbChunk), json_array_get_length(chunks));
    for (guint i = 0; i < json_array_get_length(chunks); i++) {
      JsonArray *x = row_of(chunks, i, "chunks", 8, 8, error);
      gint64 v[6];
      double began, ended;
      if (x == NULL || !row_ints(x, "chunks", i, 0, 1, 0, G_MAXUINT32, v, error) ||
          !row_ints(x, "chunks", i, 1, 2, 0, r->ranks - 1, v + 1, error) ||
          !row_ints(x, "chunks", i, 3, 3, 0, G_MAXINT64, v + 3, error) ||
          !row_double(x, "chunks", i, 6, &began, error) ||
          !row_double(x, "chunks", i, 7, &ended, error))
        return FALSE;
      LbChunk c = {(guint)v[0],   (guint)v[1],   (guint)v[2], (guint64)v[3],
                   (guint64)v[4], (guint64)v[5], began,       ended};
      g_array_append_val(r->chunks, c);
    }
  }
  if (loads != NULL) {
    guint n = r->nadaptations * r->ranks;
    JsonArray *a = array_of(o, "loads_at_start", n, "steps x ranks", error);
    if (a == NULL)
      return FALSE;
    r->loads_at_start = g_new(guint64, n);
    for (guint i = 0; i < n; i++) {
      gint64 v;
      g_autofree char *at = g_strdup_printf("loads_at_start[%u]", i);
      if (!int_field(json_array_get_element(a, i), at, 0, G_MAXINT64, &v, error))
        return FALSE;
      r->loads_at_start[i] = (guint64)v;
    }
  }
  return TRUE;
}

static gboolean
read_detail(JsonObject *o, LbRunResult *r, GError **error)
{
  JsonArray *t;
  if (!read_optional_array(o, "transfers", &t, error))
    return FALSE;
  if (t != NULL) {
    r->transfers = g_array_sized_new(FALSE, FALSE, sizeof(LbTransfer), json_array_get_length(t));
    for (guint i = 0; i < json_array_get_length(t); i++) {
      /* then the phase (plus one: 0 is none) and the stage it was sent in,
       * which results written before they were kept do not have */
      JsonArray *x = row_of(t, i, "transfers", 7, 11, error);
      gint64 v[10] = {0};
      double when = 0;
      guint len = x != NULL ? json_array_get_length(x) : 0;
      if (x == NULL || !row_ints(x, "transfers", i, 0, 4, 0, G_MAXUINT32, v, error) ||
          !row_ints(x, "transfers", i, 4, 3, 0, G_MAXINT64, v + 4, error) ||
          !row_ints(x, "transfers", i, 7, len > 7 ? 1 : 0, 0, r->nphases, v + 7, error) ||
          !row_ints(x, "transfers", i, 8, len > 8 ? 1 : 0, 0, G_MAXUINT16, v + 8, error) ||
          !row_ints(x, "transfers", i, 9, len > 9 ? 1 : 0, 0, G_MAXUINT32, v + 9, error) ||
          (len > 10 && !row_double(x, "transfers", i, 10, &when, error)))
        return FALSE;
      LbTransfer tr = {(guint)v[0],   (guint)v[1],   (guint)v[2],   (guint)v[3],
                       (guint64)v[4], (guint64)v[5], (guint64)v[6], (int)v[7] - 1,
                       (guint)v[8],   (guint)v[9],   when};
      g_array_append_val(r->transfers, tr);
    }
  }
  JsonNode *partition = json_object_get_member(o, "partition");
  JsonArray *grids;
  if (!read_optional_array(o, "grids", &grids, error))
    return FALSE;
  if (partition != NULL || grids != NULL) {
    gint64 dim;
    if (!member_int(o, "dim", 1, 3, &dim, error))
      return FALSE;
    r->dim = (guint)dim;
  }
  if (partition != NULL) {
    JsonArray *parts = array_of(o, "partition", r->ranks, "one per rank", error);
    if (parts == NULL)
      return FALSE;
    r->partition = g_new0(LbRankPart, r->ranks);
    guint fixed = 2 * r->dim + 1;
    for (guint rank = 0; rank < r->ranks; rank++) {
      JsonArray *x = row_of(parts, rank, "partition", fixed, G_MAXUINT, error);
      gint64 v[7];
      if (x == NULL || !row_ints(x, "partition", rank, 0, fixed, 0, G_MAXINT64, v, error))
        return FALSE;
      LbRankPart *part = &r->partition[rank];
      for (guint a = 0; a < r->dim; a++) {
        part->lo[a] = (guint64)v[a];
        part->hi[a] = (guint64)v[r->dim + a];
      }
      part->load = (guint64)v[2 * r->dim];
      part->nneighbours = json_array_get_length(x) - fixed;
      part->neighbours = g_new(guint, MAX(part->nneighbours, 1));
      for (guint i = 0; i < part->nneighbours; i++) {
        gint64 n;
        if (!row_ints(x, "partition", rank, fixed + i, 1, 0, G_MAXUINT32, &n, error))
          return FALSE;
        part->neighbours[i] = (guint)n;
      }
    }
  }
  if (grids != NULL) {
    r->grids = g_array_sized_new(FALSE, FALSE, sizeof(LbGridPart), json_array_get_length(grids));
    for (guint i = 0; i < json_array_get_length(grids); i++) {
      JsonArray *x = row_of(grids, i, "grids", 9, 9, error);
      gint64 v[9];
      if (x == NULL || !row_ints(x, "grids", i, 0, 2, 0, G_MAXUINT32, v, error) ||
          !row_ints(x, "grids", i, 2, 6, G_MININT64, G_MAXINT64, v + 2, error) ||
          !row_ints(x, "grids", i, 8, 1, 0, G_MAXINT64, v + 8, error))
        return FALSE;
      LbGridPart g = {
          (guint)v[0], (guint)v[1], {v[2], v[3], v[4]}, {v[5], v[6], v[7]}, (guint64)v[8]};
      g_array_append_val(r->grids, g);
    }
  }
  JsonArray *events;
  if (!read_optional_array(o, "events", &events, error))
    return FALSE;
  if (events != NULL) {
    r->events = g_array_sized_new(FALSE, FALSE, sizeof(LbEvent), json_array_get_length(events));
    for (guint i = 0; i < json_array_get_length(events); i++) {
      JsonArray *x = row_of(events, i, "events", 7, 7, error);
      gint64 v[7];
      if (x == NULL || !row_ints(x, "events", i, 0, 1, 0, G_MAXUINT32, v, error) ||
          !row_ints(x, "events", i, 1, 1, LB_EVENT_MOVE, LB_EVENT_SPLIT, v + 1, error) ||
          !row_ints(x, "events", i, 2, 2, 0, G_MAXINT64, v + 2, error) ||
          !row_ints(x, "events", i, 4, 2, 0, G_MAXUINT32, v + 4, error) ||
          !row_ints(x, "events", i, 6, 1, 0, G_MAXINT64, v + 6, error))
        return FALSE;
      LbEvent e = {(guint)v[0], (LbEventKind)v[1], (guint64)v[2], (guint64)v[3],
                   (guint)v[4], (guint)v[5],       (guint64)v[6]};
      g_array_append_val(r->events, e);
    }
  }
  if (!read_narrated(o, r, error))
    return FALSE;
  static const char *const text_names[] = {"narration", "stages"};
  GPtrArray **texts[] = {&r->narration, &r->stages};
  for (guint k = 0; k < G_N_ELEMENTS(texts); k++) {
    JsonArray *lines;
    if (!read_optional_array(o, text_names[k], &lines, error))
      return FALSE;
    if (lines == NULL)
      continue;
    *texts[k] = g_ptr_array_new_with_free_func(g_free);
    for (guint i = 0; i < json_array_get_length(lines); i++) {
      JsonNode *n = json_array_get_element(lines, i);
      if (!JSON_NODE_HOLDS_VALUE(n) || json_node_get_value_type(n) != G_TYPE_STRING) {
        g_autofree char *at = g_strdup_printf("%s[%u]", text_names[k], i);
        return bad(error, at, "expected a string");
      }
      g_ptr_array_add(*texts[k], g_strdup(json_node_get_string(n)));
    }
  }
  return TRUE;
}

/* One stored summary field: a whole one a count below 2^64. */
static gboolean
read_field(JsonNode *n, const char *at, const LbSummaryField *f, LbRunResult *r, int step,
           GError **error)
{
  if (f->whole) {
    guint64 c = 0;
    if (!count_field(n, at, &c, error))
      return FALSE;
    lb_summary_set(f, r, step, (double)c);
    return TRUE;
  }
  double v = 0;
  if (!double_field(n, at, &v, error))
    return FALSE;
  lb_summary_set(f, r, step, v);
  return TRUE;
}

/* The run's stored summary fields, each by its name. */
static gboolean
read_summary(JsonObject *o, LbRunResult *r, GError **error)
{
  JsonNode *node = json_object_get_member(o, "summary");
  if (node == NULL || !JSON_NODE_HOLDS_OBJECT(node))
    return bad(error, "summary", "expected an object of the run's summary");
  JsonObject *summary = json_node_get_object(node);
  for (const LbSummaryField *f = lb_summary(); f->name != NULL; f++) {
    if (f->run_offset < 0)
      continue;
    g_autofree char *at = g_strdup_printf("summary.%s", f->json);
    JsonNode *n = json_object_get_member(summary, f->json);
    if (n == NULL)
      return bad(error, at, "missing");
    if (!read_field(n, at, f, r, -1, error))
      return FALSE;
  }
  return TRUE;
}

static gboolean
read_result(JsonObject *o, LbRunResult *r, GError **error)
{
  gint64 version;
  if (!member_int(o, "version", LB_TRANSPORT_VERSION, LB_TRANSPORT_VERSION, &version, error))
    return FALSE;
  const char *name = member_string(o, "balancer", TRUE, error);
  if (name == NULL)
    return FALSE;
  const LbBalancer *balancer = lb_balancer_of_label(name);
  if (balancer == NULL)
    return bad(error, "balancer", "'%s' is not a balancer of this lbsim (lbsim list)", name);
  r->balancer = g_strdup(name);
  const char *model = member_string(o, "model", TRUE, error);
  const char *start = model != NULL ? member_string(o, "start", TRUE, error) : NULL;
  const char *placement = start != NULL ? member_string(o, "placement", TRUE, error) : NULL;
  if (placement == NULL)
    return FALSE;
  const char *view = member_string(o, "view", FALSE, error);
  if (view == NULL && json_object_has_member(o, "view"))
    return FALSE;
  r->model = g_strdup(model);
  r->start = g_strdup(start);
  r->placement = g_strdup(placement);
  r->view = g_strdup(view);
  gint64 max_ranks = (gint64)lb_param_spec_find(lb_scenario_params(), "ranks")->max;
  gint64 ranks, steps, hosts, peak;
  if (!member_int(o, "ranks", 1, max_ranks, &ranks, error) ||
      !member_int(o, "steps", 1, G_MAXINT32, &steps, error) ||
      !member_int(o, "hosts", 1, G_MAXINT32, &hosts, error) ||
      !member_int(o, "peak_rss_kib", 0, G_MAXINT64, &peak, error))
    return FALSE;
  r->ranks = (guint)ranks;
  r->nadaptations = (guint)steps;
  r->hosts = (guint)hosts;
  r->peak_rss_kib = (guint64)peak;
  if (!read_params(o, balancer, r, error))
    return FALSE;

  if (!read_summary(o, r, error))
    return FALSE;

  /* the steps are counted against an array before anything is allocated */
  JsonArray *adaptations = array_of(o, "adaptations", r->nadaptations, "one per step", error);
  if (adaptations == NULL)
    return FALSE;
  r->metric_defs = lb_balancer_metric_defs(balancer);
  guint ndefs = r->metric_defs->len;
  JsonArray *names = array_of(o, "metric_names", ndefs, "the balancer's metrics", error);
  if (names == NULL)
    return FALSE;
  for (guint i = 0; i < ndefs; i++) {
    JsonNode *n = json_array_get_element(names, i);
    const char *def = g_array_index(r->metric_defs, LbMetricDef, i).name;
    if (!JSON_NODE_HOLDS_VALUE(n) || json_node_get_value_type(n) != G_TYPE_STRING ||
        strcmp(json_node_get_string(n), def) != 0) {
      g_autofree char *at = g_strdup_printf("metric_names[%u]", i);
      return bad(error, at, "expected \"%s\"", def);
    }
  }
  gsize nmetrics = (gsize)r->nadaptations * ndefs;
  JsonArray *step_metrics = array_of(o, "step_metrics", nmetrics, "steps x metrics", error);
  if (step_metrics == NULL)
    return FALSE;
  r->adaptation_metrics = g_new0(double, MAX(nmetrics, 1));
  if (!read_doubles(o, "step_metrics", r->adaptation_metrics, (guint)nmetrics, "steps x metrics",
                    error))
    return FALSE;
  lb_run_result_aggregate(r);

  guint nphases = lb_balancer_phase_count(balancer);
  JsonArray *phases = array_of(o, "phases", nphases, "the balancer's phases", error);
  if (phases == NULL)
    return FALSE;
  r->nphases = nphases;
  r->phases = g_new0(LbPhaseResult, MAX(nphases, 1));
  for (guint i = 0; i < nphases; i++) {
    JsonArray *p = row_of(phases, i, "phases", 4, 4, error);
    gint64 v[2];
    double d[2];
    g_autofree char *bytes = g_strdup_printf("phases[%u][2]", i);
    g_autofree char *time = g_strdup_printf("phases[%u][3]", i);
    if (p == NULL || !row_ints(p, "phases", i, 0, 1, 0, G_MAXUINT32, v, error) ||
        !row_ints(p, "phases", i, 1, 1, 0, G_MAXINT64, v + 1, error) ||
        !double_field(json_array_get_element(p, 2), bytes, &d[0], error) ||
        !double_field(json_array_get_element(p, 3), time, &d[1], error))
      return FALSE;
    r->phases[i] = (LbPhaseResult){balancer->phases[i], (guint)v[0], (guint64)v[1], d[0], d[1]};
  }

  JsonArray *loads = array_of(o, "final_loads", r->ranks, "one per rank", error);
  if (loads == NULL)
    return FALSE;
  r->final_loads = g_new(guint64, r->ranks);
  for (guint i = 0; i < r->ranks; i++) {
    gint64 v = 0;
    g_autofree char *at = g_strdup_printf("final_loads[%u]", i);
    if (!int_field(json_array_get_element(loads, i), at, 0, G_MAXINT64, &v, error))
      return FALSE;
    r->final_loads[i] = (guint64)v;
  }

  r->adaptations = g_new0(LbAdaptationResult, r->nadaptations);
  guint nstep = 0;
  for (const LbSummaryField *f = lb_summary(); f->name != NULL; f++)
    nstep += f->step_offset >= 0;
  for (guint s = 0; s < r->nadaptations; s++) {
    JsonArray *a = row_of(adaptations, s, "adaptations", nstep, nstep, error);
    if (a == NULL)
      return FALSE;
    guint i = 0;
    for (const LbSummaryField *f = lb_summary(); f->name != NULL; f++) {
      if (f->step_offset < 0)
        continue;
      g_autofree char *at = g_strdup_printf("adaptations[%u][%u] (%s)", s, i, f->json);
      if (!read_field(json_array_get_element(a, i++), at, f, r, (int)s, error))
        return FALSE;
    }
  }
  if (!read_detail(o, r, error))
    return FALSE;
  double measured[2];
  if (!read_doubles(o, "measured", measured, 2, "wall and simulation seconds", error))
    return FALSE;
  r->wall_seconds = measured[0];
  r->sim_wall_seconds = measured[1];
  return TRUE;
}

LbRunResult *
lb_result_from_transport(const char *text, GError **error)
{
  JsonObject *root = NULL;
  g_autoptr(JsonParser) parser =
      lb_input_json_object(text, strlen(text), "not a JSON object", LB_TRANSPORT_ERROR,
                           LB_TRANSPORT_ERROR_INPUT, &root, error);
  if (parser == NULL)
    return NULL;
  g_autoptr(LbRunResult) r = g_new0(LbRunResult, 1);
  if (!read_result(root, r, error))
    return NULL;
  return g_steal_pointer(&r);
}
