/* A run's typed result between the child that simulated it and the parent
 * that reports it, written once with json-glib (report/results.c reads it
 * back into the same structure). Doubles travel with 17 digits, so nothing
 * is rounded on the way; the user's document is formatted later, from the
 * typed result. */
#include <json-glib/json-glib.h>
#include <math.h>
#include <string.h>

#include "lbsim/balancer.h"
#include "lbsim/scenario.h"
#include "metrics/metrics.h"
#include "metrics/summary.h"
#include "report/report.h"

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
  json_builder_set_member_name(b, "params");
  json_builder_begin_object(b);
  for (const LbParamSpec *s = lb_params_spec(r->params); s->name != NULL; s++) {
    const char *text = lb_params_get_text(r->params, s->name);
    if (text != NULL)
      add_string(b, s->name, text);
  }
  json_builder_end_object(b);
  /* the run's stored summary fields by name; the steps' in table order */
  json_builder_set_member_name(b, "summary");
  json_builder_begin_object(b);
  for (const LbSummaryField *f = lb_summary(); f->name != NULL; f++) {
    double v = 0;
    if (f->run_offset < 0 || !lb_summary_get(f, r, -1, &v))
      continue;
    json_builder_set_member_name(b, f->json);
    if (f->whole)
      json_builder_add_int_value(b, (gint64)v);
    else
      json_builder_add_double_value(b, v);
  }
  json_builder_end_object(b);

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
    json_builder_begin_array(b);
    for (const LbSummaryField *f = lb_summary(); f->name != NULL; f++) {
      double v = 0;
      if (f->step_offset >= 0 && lb_summary_get(f, r, (int)s, &v))
        json_builder_add_double_value(b, v);
    }
    json_builder_end_array(b);
  }
  json_builder_end_array(b);

  if (r->transfers != NULL) {
    json_builder_set_member_name(b, "transfers");
    json_builder_begin_array(b);
    for (guint i = 0; i < r->transfers->len; i++) {
      const LbTransfer *t = &g_array_index(r->transfers, LbTransfer, i);
      json_builder_begin_array(b);
      gint64 v[] = {t->adaptation,    t->round,        t->src,       t->dst,  (gint64)t->first,
                    (gint64)t->count, (gint64)t->load, t->phase + 1, t->stage};
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
  GPtrArray *texts[] = {r->narration, r->stages};
  static const char *const text_names[] = {"narration", "stages"};
  for (guint k = 0; k < G_N_ELEMENTS(texts); k++) {
    if (texts[k] == NULL)
      continue;
    json_builder_set_member_name(b, text_names[k]);
    json_builder_begin_array(b);
    for (guint i = 0; i < texts[k]->len; i++)
      json_builder_add_string_value(b, texts[k]->pdata[i]);
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
