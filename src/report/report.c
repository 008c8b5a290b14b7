#include "report/report.h"

#include <math.h>
#include <string.h>

#include "lbsim/plugin.h"
#include "metrics/summary.h"
#include "report/json-writer.h"

static void
write_params(LbJson *j, const LbParams *params)
{
  lb_json_begin_object(j, "params");
  for (const LbParamSpec *s = lb_params_spec(params); s->name != NULL; s++) {
    switch (s->type) {
    case LB_PARAM_INT:
      lb_json_int(j, s->name, lb_params_get_int(params, s->name));
      break;
    case LB_PARAM_DOUBLE:
      lb_json_double(j, s->name, lb_params_get_double(params, s->name));
      break;
    case LB_PARAM_BOOL:
      lb_json_bool(j, s->name, lb_params_get_bool(params, s->name));
      break;
    case LB_PARAM_CHOICE:
    case LB_PARAM_STRING:
      lb_json_string(j, s->name, lb_params_get_string(params, s->name));
      break;
    }
  }
  lb_json_end_object(j);
}

static void
write_schedule(LbJson *j, const LbRunResult *r)
{
  lb_json_begin_array(j, "schedule", FALSE);
  guint i = 0;
  GArray *t = r->transfers;
  while (i < t->len) {
    const LbTransfer *first = &g_array_index(t, LbTransfer, i);
    lb_json_begin_object(j, NULL);
    lb_json_uint(j, "adaptation", first->adaptation);
    if (r->stages != NULL && first->stage < r->stages->len)
      lb_json_string(j, "stage", r->stages->pdata[first->stage]);
    if (first->phase >= 0 && (guint)first->phase < r->nphases)
      lb_json_string(j, "phase", r->phases[first->phase].name);
    lb_json_uint(j, "step", first->round);
    lb_json_begin_array(j, "transfers", FALSE);
    for (; i < t->len; i++) {
      const LbTransfer *x = &g_array_index(t, LbTransfer, i);
      if (x->adaptation != first->adaptation || x->round != first->round ||
          x->phase != first->phase || x->stage != first->stage)
        break;
      lb_json_begin_compact_object(j, NULL);
      lb_json_uint(j, "src", x->src);
      lb_json_uint(j, "dst", x->dst);
      lb_json_uint(j, "first", x->first);
      lb_json_uint(j, "count", x->count);
      lb_json_uint(j, "load", x->load);
      lb_json_end_object(j);
    }
    lb_json_end_array(j);
    lb_json_end_object(j);
  }
  lb_json_end_array(j);
}

/* Grids: {"owner", "level", "box": [lo..., hi...], "load"}, the box with
 * as many numbers per corner as the model has axes. */
static void
write_grids(LbJson *j, const LbRunResult *r)
{
  lb_json_begin_array(j, "grids", FALSE);
  for (guint i = 0; i < r->grids->len; i++) {
    const LbGridPart *g = &g_array_index(r->grids, LbGridPart, i);
    lb_json_begin_compact_object(j, NULL);
    lb_json_uint(j, "owner", g->owner);
    lb_json_uint(j, "level", g->level);
    lb_json_begin_array(j, "box", TRUE);
    for (guint a = 0; a < r->dim; a++)
      lb_json_uint(j, NULL, (guint64)g->lo[a]);
    for (guint a = 0; a < r->dim; a++)
      lb_json_uint(j, NULL, (guint64)g->hi[a]);
    lb_json_end_array(j);
    lb_json_uint(j, "load", g->load);
    lb_json_end_object(j);
  }
  lb_json_end_array(j);
}

static void
write_events(LbJson *j, const LbRunResult *r)
{
  lb_json_begin_array(j, "events", FALSE);
  for (guint i = 0; i < r->events->len; i++) {
    const LbEvent *e = &g_array_index(r->events, LbEvent, i);
    lb_json_begin_compact_object(j, NULL);
    lb_json_uint(j, "adaptation", e->adaptation);
    lb_json_string(j, "kind", e->kind == LB_EVENT_MOVE ? "move" : "split");
    lb_json_uint(j, "grid", e->unit);
    if (e->kind == LB_EVENT_SPLIT)
      lb_json_uint(j, "piece", e->piece);
    lb_json_uint(j, "from", e->from);
    lb_json_uint(j, "to", e->to);
    lb_json_uint(j, "load", e->load);
    lb_json_end_object(j);
  }
  lb_json_end_array(j);
}

static void
write_partition(LbJson *j, const LbRunResult *r)
{
  lb_json_begin_array(j, "partition", FALSE);
  for (guint rank = 0; rank < r->ranks; rank++) {
    const LbRankPart *part = &r->partition[rank];
    lb_json_begin_compact_object(j, NULL);
    lb_json_uint(j, "rank", rank);
    lb_json_begin_array(j, "box", TRUE);
    for (guint a = 0; a < r->dim; a++)
      lb_json_uint(j, NULL, part->lo[a]);
    for (guint a = 0; a < r->dim; a++)
      lb_json_uint(j, NULL, part->hi[a]);
    lb_json_end_array(j);
    lb_json_uint(j, "load", part->load);
    lb_json_begin_array(j, "neighbours", TRUE);
    for (guint i = 0; i < part->nneighbours; i++)
      lb_json_uint(j, NULL, part->neighbours[i]);
    lb_json_end_array(j);
    lb_json_end_object(j);
  }
  lb_json_end_array(j);
}

/* Declared metrics keep the unit's kind: counts print as integers. */
static void
write_metric(LbJson *j, const LbMetricDef *def, double value)
{
  gboolean count = strcmp(def->unit, "rounds") == 0 || strcmp(def->unit, "messages") == 0;
  if (count && value >= 0 && value == (double)(guint64)value)
    lb_json_uint(j, def->json_name, (guint64)value);
  else
    lb_json_double(j, def->json_name, value);
}

/* The summary's fields of the run (step < 0) or of one step, in the
 * table's order. */
static void
write_summary(LbJson *j, const LbRunResult *r, int step)
{
  guint where = step < 0 ? LB_SUMMARY_RUN : LB_SUMMARY_STEP;
  for (const LbSummaryField *f = lb_summary(); f->name != NULL; f++) {
    if (!(f->where & where))
      continue;
    double v = 0;
    /* a measure that does not apply (a derived one the balancer does not
     * declare) is null, never 0 */
    if (!lb_summary_get(f, r, step, &v))
      lb_json_raw(j, f->json, "null");
    else if (f->whole)
      lb_json_uint(j, f->json, (guint64)v);
    else
      lb_json_double(j, f->json, v);
  }
}

void
lb_report_write_run(LbJson *j, const char *key, const LbRunResult *r)
{
  lb_json_begin_object(j, key);
  lb_json_string(j, "balancer", r->balancer);
  /* a plugin's balancer: the file a reader loads to know it */
  const LbBalancer *b = lb_balancer_of_label(r->balancer);
  const char *plugin = b != NULL ? lb_balancer_origin(b) : NULL;
  if (plugin != NULL)
    lb_json_string(j, "plugin", plugin);
  write_params(j, r->params);
  lb_json_string(j, "placement", r->placement);
  lb_json_uint(j, "hosts", r->hosts);
  lb_json_string(j, "model", r->model);
  if (r->view != NULL)
    lb_json_string(j, "view", r->view);
  lb_json_string(j, "start", r->start);
  lb_json_begin_object(j, "summary");
  write_summary(j, r, -1);
  lb_json_end_object(j);

  lb_json_begin_object(j, "metrics");
  for (guint i = 0; i < r->metric_defs->len; i++)
    write_metric(j, &g_array_index(r->metric_defs, LbMetricDef, i), r->metrics[i]);
  lb_json_end_object(j);

  lb_json_begin_array(j, "phases", FALSE);
  for (guint i = 0; i < r->nphases; i++) {
    const LbPhaseResult *p = &r->phases[i];
    lb_json_begin_compact_object(j, NULL);
    lb_json_string(j, "name", p->name);
    lb_json_uint(j, "steps", p->rounds);
    lb_json_uint(j, "messages", p->messages);
    lb_json_double(j, "bytes", p->bytes);
    lb_json_double(j, "time", p->time);
    lb_json_end_object(j);
  }
  lb_json_end_array(j);

  lb_json_begin_array(j, "final_loads", TRUE);
  for (guint i = 0; i < r->ranks; i++)
    lb_json_uint(j, NULL, r->final_loads[i]);
  lb_json_end_array(j);

  if (r->transfers != NULL)
    write_schedule(j, r);
  if (r->partition != NULL)
    write_partition(j, r);
  if (r->grids != NULL)
    write_grids(j, r);
  if (r->events != NULL)
    write_events(j, r);

  guint ndefs = r->metric_defs->len;
  lb_json_begin_array(j, "adaptations", FALSE);
  for (guint s = 0; s < r->nadaptations; s++) {
    lb_json_begin_compact_object(j, NULL);
    lb_json_uint(j, "step", s);
    write_summary(j, r, (int)s);
    lb_json_begin_object(j, "metrics");
    for (guint i = 0; i < ndefs; i++)
      write_metric(j, &g_array_index(r->metric_defs, LbMetricDef, i),
                   r->adaptation_metrics[(gsize)s * ndefs + i]);
    lb_json_end_object(j);
    lb_json_end_object(j);
  }
  lb_json_end_array(j);

  if (r->narration != NULL) {
    lb_json_begin_array(j, "narration", FALSE);
    for (guint i = 0; i < r->narration->len; i++)
      lb_json_string(j, NULL, r->narration->pdata[i]);
    lb_json_end_array(j);
  }

  lb_json_begin_object(j, "measured");
  lb_json_double(j, "wall_seconds", r->wall_seconds);
  lb_json_double(j, "sim_wall_seconds", r->sim_wall_seconds);
  lb_json_double(j, "peak_rss_mib", (double)r->peak_rss_kib / 1024.0);
  lb_json_double(j, "comms_per_second",
                 r->sim_wall_seconds > 0 ? (double)r->simulated_messages / r->sim_wall_seconds
                                         : 0.0);
  lb_json_end_object(j);
  lb_json_end_object(j);
}

void
lb_report_write_format(LbJson *j)
{
  lb_json_string(j, "format", LB_RESULT_FORMAT);
  lb_json_uint(j, "format_version", LB_RESULT_FORMAT_VERSION);
  lb_json_string(j, "lbsim", LB_VERSION);
}

/* A run's document, with its checks (lbsim check's) when checked. */
static void
write_document(LbJson *j, const LbScenario *sc, GPtrArray *results, gboolean checked,
               const LbExpectOutcome *checks, guint nchecks)
{
  lb_json_begin_object(j, NULL);
  lb_report_write_format(j);
  lb_json_begin_object(j, "scenario");
  lb_json_string(j, "name", sc->name);
  lb_json_string(j, "file", sc->file);
  lb_json_uint(j, "seed", sc->seed);
  if (sc->placement_seed_set)
    lb_json_uint(j, "placement_seed", sc->placement_seed);
  lb_json_uint(j, "steps", sc->nadaptations);
  lb_json_uint(j, "elements", sc->elements);
  lb_json_string(j, "model", sc->work->model->name);
  lb_json_end_object(j);
  lb_json_begin_object(j, "platform");
  lb_json_string(j, "file", sc->platform);
  lb_json_uint(j, "hosts", results->len > 0 ? ((LbRunResult *)results->pdata[0])->hosts : 0);
  if (sc->background != NULL)
    lb_json_string(j, "background", sc->background);
  if (sc->background_traffic > 0)
    lb_json_uint(j, "background_traffic", sc->background_traffic);
  lb_json_end_object(j);
  lb_json_uint(j, "ranks", sc->ranks);
  lb_json_begin_array(j, "runs", FALSE);
  for (guint i = 0; i < results->len; i++)
    lb_report_write_run(j, NULL, results->pdata[i]);
  lb_json_end_array(j);
  if (checked) {
    lb_json_begin_array(j, "checks", FALSE);
    for (guint i = 0; i < nchecks; i++) {
      lb_json_begin_compact_object(j, NULL);
      lb_json_string(j, "expect", checks[i].text);
      lb_json_string(j, "outcome", checks[i].outcome);
      lb_json_double(j, "actual", checks[i].actual); /* null when skipped (NAN) */
      lb_json_double(j, "bound", checks[i].bound);
      if (checks[i].skipped != NULL)
        lb_json_string(j, "skipped", checks[i].skipped);
      lb_json_end_object(j);
    }
    lb_json_end_array(j);
  }
  lb_json_end_object(j);
}

char *
lb_report_document(const LbScenario *sc, GPtrArray *results)
{
  GString *out = g_string_new(NULL);
  LbJson j;
  lb_json_init(&j, out);
  write_document(&j, sc, results, FALSE, NULL, 0);
  return g_string_free(out, FALSE);
}

char *
lb_report_document_checked(const LbScenario *sc, GPtrArray *results, const LbExpectOutcome *checks,
                           guint nchecks)
{
  GString *out = g_string_new(NULL);
  LbJson j;
  lb_json_init(&j, out);
  write_document(&j, sc, results, TRUE, checks, nchecks);
  return g_string_free(out, FALSE);
}

char *
lb_report_check_documents(const LbScenario *const *scenarios, GPtrArray *const *results,
                          const LbExpectOutcome *const *checks, const guint *nchecks, guint count)
{
  GString *out = g_string_new(NULL);
  LbJson j;
  lb_json_init(&j, out);
  lb_json_begin_object(&j, NULL);
  lb_report_write_format(&j);
  lb_json_begin_array(&j, "checks", FALSE);
  for (guint i = 0; i < count; i++)
    write_document(&j, scenarios[i], results[i], TRUE, checks[i], nchecks[i]);
  lb_json_end_array(&j);
  lb_json_end_object(&j);
  return g_string_free(out, FALSE);
}

char *
lb_report_bytes(double b)
{
  static const char *const units[] = {"B", "KiB", "MiB", "GiB", "TiB"};
  guint u = 0;
  while (b >= 1024 && u + 1 < G_N_ELEMENTS(units)) {
    b /= 1024;
    u++;
  }
  return u == 0 ? g_strdup_printf("%.0f B", b) : g_strdup_printf("%.1f %s", b, units[u]);
}

char *
lb_report_seconds(double s)
{
  if (s == 0)
    return g_strdup("0");
  if (s < 1e-3)
    return g_strdup_printf("%.1f us", s * 1e6);
  if (s < 1)
    return g_strdup_printf("%.2f ms", s * 1e3);
  return g_strdup_printf("%.3f s", s);
}

char *
lb_report_metric_value(const LbMetricDef *def, double v)
{
  if (strcmp(def->unit, "s") == 0)
    return lb_report_seconds(v);
  if (strcmp(def->unit, "bytes") == 0)
    return lb_report_bytes(v);
  if (strcmp(def->unit, "rounds") == 0 || strcmp(def->unit, "messages") == 0)
    return g_strdup_printf("%.0f", v);
  return g_strdup_printf("%.4g%s%s", v, *def->unit != '\0' ? " " : "", def->unit);
}

char *
lb_report_summary_text(const LbSummaryField *f, const LbRunResult *r)
{
  double v = 0;
  gboolean has = lb_summary_get(f, r, -1, &v);
  return !has                            ? g_strdup("-")
         : f->kind == LB_SUMMARY_RATIO   ? g_strdup_printf("%.4f", v)
         : f->kind == LB_SUMMARY_BYTES   ? lb_report_bytes(v)
         : f->kind == LB_SUMMARY_SECONDS ? lb_report_seconds(v)
                                         : g_strdup_printf("%.0f", v);
}

char *
lb_report_table(GPtrArray *results)
{
  g_autoptr(GPtrArray) cells = g_ptr_array_new_with_free_func(g_free);
  g_ptr_array_add(cells, g_strdup("balancer"));
  for (const LbSummaryField *f = lb_summary(); f->name != NULL; f++)
    if (f->column != NULL)
      g_ptr_array_add(cells, g_strdup(f->column));
  guint ncol = cells->len, nrow = results->len;
  for (guint r = 0; r < nrow; r++) {
    const LbRunResult *run = results->pdata[r];
    g_ptr_array_add(cells, g_strdup(run->balancer));
    for (const LbSummaryField *f = lb_summary(); f->name != NULL; f++) {
      if (f->column == NULL)
        continue;
      g_ptr_array_add(cells, lb_report_summary_text(f, run));
    }
  }
  g_autofree gsize *width = g_new0(gsize, ncol);
  for (guint i = 0; i < cells->len; i++)
    width[i % ncol] = MAX(width[i % ncol], (gsize)g_utf8_strlen(cells->pdata[i], -1));
  GString *out = g_string_new(NULL);
  for (guint r = 0; r <= nrow; r++) {
    for (guint c = 0; c < ncol; c++) {
      const char *cell = cells->pdata[r * ncol + c];
      gsize pad = width[c] - (gsize)g_utf8_strlen(cell, -1);
      if (c == 0)
        g_string_append_printf(out, "%s%*s", cell, (int)pad, "");
      else
        g_string_append_printf(out, "  %*s%s", (int)pad, "", cell);
    }
    g_string_append_c(out, '\n');
    if (r == 0) {
      for (guint c = 0; c < ncol; c++)
        for (gsize k = 0; k < width[c] + (c ? 2 : 0); k++)
          g_string_append_c(out, '-');
      g_string_append_c(out, '\n');
    }
  }
  return g_string_free(out, FALSE);
}

static gboolean
is_phase_def(const LbRunResult *run, const LbMetricDef *def)
{
  static const char *const kinds[] = {"steps", "messages", "bytes", "time"};
  for (guint i = 0; i < run->nphases; i++) {
    gsize n = strlen(run->phases[i].name);
    if (strncmp(def->name, run->phases[i].name, n) != 0 || def->name[n] != '-')
      continue;
    /* a phase's own four, not a declared metric that starts with its name */
    for (guint k = 0; k < G_N_ELEMENTS(kinds); k++)
      if (strcmp(def->name + n + 1, kinds[k]) == 0)
        return TRUE;
  }
  return FALSE;
}

char *
lb_report_phases(GPtrArray *results)
{
  GString *out = g_string_new(NULL);
  for (guint r = 0; r < results->len; r++) {
    const LbRunResult *run = results->pdata[r];
    if (run->nphases > 0) {
      g_string_append_printf(out, "%s phases:\n", run->balancer);
      for (guint i = 0; i < run->nphases; i++) {
        const LbPhaseResult *p = &run->phases[i];
        g_autofree char *bytes = lb_report_bytes(p->bytes);
        g_autofree char *time = lb_report_seconds(p->time);
        g_string_append_printf(out,
                               "  %-12s %4u steps  %9" G_GUINT64_FORMAT " messages  %10s  %10s\n",
                               p->name, p->rounds, p->messages, bytes, time);
      }
    }
    /* declared metrics that are neither a phase's nor in the table above */
    g_autoptr(GString) other = g_string_new(NULL);
    for (guint i = 0; i < run->metric_defs->len; i++) {
      const LbMetricDef *def = &g_array_index(run->metric_defs, LbMetricDef, i);
      if (strcmp(def->name, "schedule-steps") == 0 || is_phase_def(run, def))
        continue;
      /* order holds unless a rule read literally broke it */
      if (strcmp(def->name, "order-breaks") == 0 && run->metrics[i] == 0)
        continue;
      double ghosts = 0;
      lb_run_result_metric(run, "ghost-messages", &ghosts);
      /* the application's split only says something with a ghost exchange */
      if ((g_str_has_prefix(def->name, "ghost") || strcmp(def->name, "compute-time") == 0) &&
          ghosts == 0)
        continue;
      g_autofree char *value = lb_report_metric_value(def, run->metrics[i]);
      g_string_append_printf(other, "%s%s %s", other->len ? ", " : "", def->json_name, value);
    }
    if (other->len > 0)
      g_string_append_printf(out, "%s: %s\n", run->balancer, other->str);
  }
  return g_string_free(out, FALSE);
}

static void
csv_double(GString *out, double v)
{
  char buf[G_ASCII_DTOSTR_BUF_SIZE];
  g_ascii_formatd(buf, sizeof buf, "%.10g", v);
  g_string_append_printf(out, ",%s", buf);
}

void
lb_report_csv_text(GString *out, const char *text)
{
  if (strpbrk(text, ",\"\r\n") == NULL) {
    g_string_append(out, text);
    return;
  }
  g_string_append_c(out, '"');
  for (const char *c = text; *c != '\0'; c++) {
    if (*c == '"')
      g_string_append_c(out, '"');
    g_string_append_c(out, *c);
  }
  g_string_append_c(out, '"');
}

char *
lb_report_csv(GPtrArray *results)
{
  return lb_report_csv_lead(results, 0, NULL, NULL);
}

char *
lb_report_csv_lead(GPtrArray *results, guint nlead, const char *const *names,
                   const char *const *cells)
{
  /* every declared metric of any run, in first-seen order */
  g_autoptr(GPtrArray) columns = g_ptr_array_new();
  for (guint r = 0; r < results->len; r++) {
    const LbRunResult *run = results->pdata[r];
    for (guint i = 0; i < run->metric_defs->len; i++) {
      const char *name = g_array_index(run->metric_defs, LbMetricDef, i).json_name;
      gboolean seen = FALSE;
      for (guint c = 0; c < columns->len && !seen; c++)
        seen = strcmp(columns->pdata[c], name) == 0;
      if (!seen && strcmp(name, "schedule_steps") != 0)
        g_ptr_array_add(columns, (gpointer)name);
    }
  }
  GString *out = g_string_new(NULL);
  for (guint c = 0; c < nlead; c++) {
    lb_report_csv_text(out, names[c]);
    g_string_append_c(out, ',');
  }
  g_string_append(out, "balancer");
  for (const LbSummaryField *f = lb_summary(); f->name != NULL; f++)
    if (f->csv)
      g_string_append_printf(out, ",%s", f->json);
  for (guint c = 0; c < columns->len; c++)
    g_string_append_printf(out, ",%s", (char *)columns->pdata[c]);
  g_string_append_c(out, '\n');
  for (guint r = 0; r < results->len; r++) {
    const LbRunResult *run = results->pdata[r];
    for (guint c = 0; c < nlead; c++) {
      lb_report_csv_text(out, cells[(gsize)r * nlead + c]);
      g_string_append_c(out, ',');
    }
    g_string_append(out, run->balancer);
    for (const LbSummaryField *f = lb_summary(); f->name != NULL; f++) {
      double v = 0;
      if (!f->csv)
        continue;
      if (lb_summary_get(f, run, -1, &v))
        csv_double(out, v);
      else
        g_string_append_c(out, ','); /* does not apply: empty */
    }
    for (guint c = 0; c < columns->len; c++) {
      double v = 0;
      if (lb_run_result_metric(run, columns->pdata[c], &v))
        csv_double(out, v);
      else
        g_string_append_c(out, ',');
    }
    g_string_append_c(out, '\n');
  }
  return g_string_free(out, FALSE);
}

/* ---- the long CSV ---- */

/* The shortest text that reads back as v. */
static void
long_number(GString *out, double v)
{
  char buf[G_ASCII_DTOSTR_BUF_SIZE];
  for (int digits = 15; digits <= 17; digits++) {
    g_ascii_formatd(buf, sizeof buf, digits == 15 ? "%.15g" : digits == 16 ? "%.16g" : "%.17g", v);
    if (g_ascii_strtod(buf, NULL) == v)
      break;
  }
  g_string_append(out, buf);
}

void
lb_report_long_csv_head(GString *out, guint nlead, const char *const *names)
{
  g_string_append(out, "scenario,balancer,label,ranks,seed,");
  for (guint c = 0; c < nlead; c++) {
    lb_report_csv_text(out, names[c]);
    g_string_append_c(out, ',');
  }
  g_string_append(out, "metric,value,unit,lbsim\n");
}

static void
long_row(GString *out, const GString *lead, const char *metric, double value, const char *unit)
{
  if (!isfinite(value))
    return;
  g_string_append_len(out, lead->str, lead->len);
  g_string_append_printf(out, "%s,", metric);
  long_number(out, value);
  g_string_append_c(out, ',');
  lb_report_csv_text(out, unit);
  g_string_append(out, "," LB_VERSION "\n");
}

void
lb_report_long_csv_rows(GString *out, const LbRunResult *r, const char *scenario, guint64 seed,
                        guint nlead, const char *const *cells)
{
  g_autoptr(GString) lead = g_string_new(NULL);
  const LbBalancer *b = lb_balancer_of_label(r->balancer);
  lb_report_csv_text(lead, scenario);
  g_string_append_c(lead, ',');
  lb_report_csv_text(lead, b != NULL ? b->name : r->balancer);
  g_string_append_c(lead, ',');
  lb_report_csv_text(lead, r->balancer);
  g_string_append_printf(lead, ",%u,%" G_GUINT64_FORMAT ",", r->ranks, seed);
  for (guint c = 0; c < nlead; c++) {
    lb_report_csv_text(lead, cells[c]);
    g_string_append_c(lead, ',');
  }
  for (const LbSummaryField *f = lb_summary(); f->name != NULL; f++) {
    double v = 0;
    if ((f->where & LB_SUMMARY_RUN) && lb_summary_get(f, r, -1, &v))
      long_row(out, lead, f->json, v, *f->unit != '\0' ? f->unit : "ratio");
  }
  for (guint i = 0; i < r->metric_defs->len; i++) {
    const LbMetricDef *def = &g_array_index(r->metric_defs, LbMetricDef, i);
    if (lb_summary_lookup(def->name) == NULL)
      long_row(out, lead, def->json_name, r->metrics[i], def->unit);
  }
}

char *
lb_report_long_csv(const char *scenario, guint64 seed, GPtrArray *results)
{
  GString *out = g_string_new(NULL);
  lb_report_long_csv_head(out, 0, NULL);
  for (guint i = 0; i < results->len; i++)
    lb_report_long_csv_rows(out, results->pdata[i], scenario, seed, 0, NULL);
  return g_string_free(out, FALSE);
}

/* ---- replicates ---- */

/* P(|T| < t) for Student's t with df degrees of freedom, in closed form
 * for whole df (Abramowitz and Stegun 26.7.3 and 26.7.4). */
static double
t_within(double t, guint df)
{
  double theta = atan(t / sqrt((double)df)), c2 = cos(theta) * cos(theta), s = sin(theta);
  if (df % 2 == 0) {
    double term = 1, sum = 1;
    for (guint k = 2; k + 2 <= df; k += 2) {
      term *= c2 * (k - 1) / k;
      sum += term;
    }
    return s * sum;
  }
  double term = cos(theta), sum = df > 1 ? term : 0;
  for (guint k = 3; k + 2 <= df; k += 2) {
    term *= c2 * (k - 1) / k;
    sum += term;
  }
  return 2 / G_PI * (theta + s * sum);
}

double
lb_stats_t975(guint df)
{
  g_return_val_if_fail(df > 0, NAN);
  double lo = 0, hi = 64;
  for (int i = 0; i < 200 && hi - lo > 1e-15 * hi; i++) {
    double mid = (lo + hi) / 2;
    if (t_within(mid, df) < 0.95)
      lo = mid;
    else
      hi = mid;
  }
  return (lo + hi) / 2;
}

void
lb_stats_of(const double *x, guint n, LbStats *s)
{
  *s = (LbStats){n, NAN, NAN, NAN, NAN, NAN, NAN};
  if (n == 0)
    return;
  double sum = 0;
  s->min = s->max = x[0];
  for (guint i = 0; i < n; i++) {
    sum += x[i];
    s->min = MIN(s->min, x[i]);
    s->max = MAX(s->max, x[i]);
  }
  s->mean = sum / n;
  if (n < 2)
    return;
  double squares = 0;
  for (guint i = 0; i < n; i++)
    squares += (x[i] - s->mean) * (x[i] - s->mean);
  s->sd = sqrt(squares / (n - 1));
  double half = lb_stats_t975(n - 1) * s->sd / sqrt((double)n);
  s->ci_low = s->mean - half;
  s->ci_high = s->mean + half;
}
