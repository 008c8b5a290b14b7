#include "report/report.h"

#include <string.h>

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
    lb_json_uint(j, "step", first->round);
    lb_json_begin_array(j, "transfers", FALSE);
    for (; i < t->len; i++) {
      const LbTransfer *x = &g_array_index(t, LbTransfer, i);
      if (x->adaptation != first->adaptation || x->round != first->round)
        break;
      lb_json_begin_object(j, NULL);
      j->inline_array[j->depth] = TRUE;
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

char *
lb_report_run_json(const LbRunResult *r)
{
  GString *out = g_string_new(NULL);
  LbJson j;
  lb_json_init(&j, out);
  lb_json_begin_object(&j, NULL);
  lb_json_string(&j, "balancer", r->balancer);
  write_params(&j, r->params);
  lb_json_string(&j, "placement", r->placement);
  lb_json_uint(&j, "hosts", r->hosts);
  lb_json_begin_object(&j, "summary");
  lb_json_double(&j, "imbalance_before", r->imbalance_before);
  lb_json_double(&j, "imbalance_after", r->imbalance_after);
  lb_json_uint(&j, "schedule_steps", r->schedule_steps);
  lb_json_uint(&j, "messages", r->messages);
  lb_json_double(&j, "bytes", r->bytes);
  lb_json_double(&j, "bytes_moved", r->bytes_moved);
  lb_json_double(&j, "balance_time", r->balance_time);
  lb_json_double(&j, "app_time", r->app_time);
  lb_json_double(&j, "total_time", r->total_time);
  lb_json_uint(&j, "simulated_messages", r->simulated_messages);
  lb_json_end_object(&j);

  lb_json_begin_array(&j, "phases", FALSE);
  for (guint i = 0; i < r->nphases; i++) {
    const LbPhaseResult *p = &r->phases[i];
    lb_json_begin_object(&j, NULL);
    j.inline_array[j.depth] = TRUE;
    lb_json_string(&j, "name", p->name);
    lb_json_uint(&j, "steps", p->steps);
    lb_json_uint(&j, "messages", p->messages);
    lb_json_double(&j, "bytes", p->bytes);
    lb_json_double(&j, "time", p->time);
    lb_json_end_object(&j);
  }
  lb_json_end_array(&j);

  lb_json_begin_array(&j, "final_loads", TRUE);
  for (guint i = 0; i < r->ranks; i++)
    lb_json_uint(&j, NULL, r->final_loads[i]);
  lb_json_end_array(&j);

  if (r->transfers != NULL)
    write_schedule(&j, r);

  lb_json_begin_array(&j, "adaptations", FALSE);
  for (guint s = 0; s < r->steps; s++) {
    const LbStepResult *a = &r->adaptations[s];
    lb_json_begin_object(&j, NULL);
    j.inline_array[j.depth] = TRUE;
    lb_json_uint(&j, "step", s);
    lb_json_double(&j, "imbalance_before", a->imbalance_before);
    lb_json_double(&j, "imbalance_after", a->imbalance_after);
    lb_json_uint(&j, "max_load_before", a->max_load_before);
    lb_json_uint(&j, "max_load_after", a->max_load_after);
    lb_json_uint(&j, "total_load", a->total_load);
    lb_json_uint(&j, "schedule_steps", a->schedule_steps);
    lb_json_uint(&j, "messages", a->messages);
    lb_json_double(&j, "bytes", a->bytes);
    lb_json_double(&j, "bytes_moved", a->bytes_moved);
    lb_json_double(&j, "balance_time", a->balance_time);
    lb_json_double(&j, "app_time", a->app_time);
    lb_json_end_object(&j);
  }
  lb_json_end_array(&j);

  if (r->narration != NULL) {
    lb_json_begin_array(&j, "narration", FALSE);
    for (guint i = 0; i < r->narration->len; i++)
      lb_json_string(&j, NULL, r->narration->pdata[i]);
    lb_json_end_array(&j);
  }

  lb_json_begin_object(&j, "measured");
  lb_json_double(&j, "wall_seconds", r->wall_seconds);
  lb_json_double(&j, "sim_wall_seconds", r->sim_wall_seconds);
  lb_json_double(&j, "peak_rss_mib", (double)r->peak_rss_kib / 1024.0);
  lb_json_double(&j, "comms_per_second",
                 r->sim_wall_seconds > 0 ? (double)r->simulated_messages / r->sim_wall_seconds
                                         : 0.0);
  lb_json_end_object(&j);
  lb_json_end_object(&j);
  return g_string_free(out, FALSE);
}

char *
lb_report_document(const LbScenario *sc, guint hosts, GPtrArray *run_texts)
{
  GString *out = g_string_new(NULL);
  LbJson j;
  lb_json_init(&j, out);
  lb_json_begin_object(&j, NULL);
  lb_json_string(&j, "lbsim", LB_VERSION);
  lb_json_begin_object(&j, "scenario");
  lb_json_string(&j, "name", sc->name);
  lb_json_string(&j, "file", sc->file);
  lb_json_uint(&j, "seed", sc->seed);
  lb_json_uint(&j, "steps", sc->steps);
  lb_json_uint(&j, "elements", sc->array.size);
  lb_json_end_object(&j);
  lb_json_begin_object(&j, "platform");
  lb_json_string(&j, "file", sc->platform);
  lb_json_uint(&j, "hosts", hosts);
  lb_json_end_object(&j);
  lb_json_uint(&j, "ranks", sc->ranks);
  lb_json_begin_array(&j, "runs", FALSE);
  for (guint i = 0; i < run_texts->len; i++)
    lb_json_raw(&j, NULL, run_texts->pdata[i]);
  lb_json_end_array(&j);
  lb_json_end_object(&j);
  return g_string_free(out, FALSE);
}

static double
member_double(JsonObject *o, const char *name)
{
  JsonNode *n = json_object_get_member(o, name);
  return n != NULL && JSON_NODE_HOLDS_VALUE(n) ? json_node_get_double(n) : 0.0;
}

gboolean
lb_report_metric(JsonObject *run, const char *metric, double *value)
{
  JsonObject *summary = json_object_get_object_member(run, "summary");
  if (json_object_has_member(summary, metric)) {
    *value = member_double(summary, metric);
    return TRUE;
  }
  const char *underscore = strrchr(metric, '_');
  if (underscore == NULL)
    return FALSE;
  g_autofree char *phase = g_strdelimit(g_strndup(metric, (gsize)(underscore - metric)), "_", '-');
  JsonArray *phases = json_object_get_array_member(run, "phases");
  for (guint i = 0; i < json_array_get_length(phases); i++) {
    JsonObject *p = json_array_get_object_element(phases, i);
    if (strcmp(json_object_get_string_member(p, "name"), phase) == 0 &&
        json_object_has_member(p, underscore + 1)) {
      *value = member_double(p, underscore + 1);
      return TRUE;
    }
  }
  return FALSE;
}

static char *
human_bytes(double b)
{
  static const char *const units[] = {"B", "KiB", "MiB", "GiB", "TiB"};
  guint u = 0;
  while (b >= 1024 && u + 1 < G_N_ELEMENTS(units)) {
    b /= 1024;
    u++;
  }
  return u == 0 ? g_strdup_printf("%.0f B", b) : g_strdup_printf("%.1f %s", b, units[u]);
}

static char *
human_time(double s)
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
lb_report_table(JsonArray *runs)
{
  static const char *const head[] = {"balancer",  "imb before", "imb after", "steps",
                                     "messages",  "moved",      "balance",   "app",
                                     "total"};
  guint ncol = G_N_ELEMENTS(head), nrow = json_array_get_length(runs);
  g_autoptr(GPtrArray) cells = g_ptr_array_new_with_free_func(g_free);
  for (guint c = 0; c < ncol; c++)
    g_ptr_array_add(cells, g_strdup(head[c]));
  for (guint r = 0; r < nrow; r++) {
    JsonObject *run = json_array_get_object_element(runs, r);
    JsonObject *s = json_object_get_object_member(run, "summary");
    g_ptr_array_add(cells, g_strdup(json_object_get_string_member(run, "balancer")));
    g_ptr_array_add(cells, g_strdup_printf("%.4f", member_double(s, "imbalance_before")));
    g_ptr_array_add(cells, g_strdup_printf("%.4f", member_double(s, "imbalance_after")));
    g_ptr_array_add(cells, g_strdup_printf("%.0f", member_double(s, "schedule_steps")));
    g_ptr_array_add(cells, g_strdup_printf("%.0f", member_double(s, "messages")));
    g_ptr_array_add(cells, human_bytes(member_double(s, "bytes_moved")));
    g_ptr_array_add(cells, human_time(member_double(s, "balance_time")));
    g_ptr_array_add(cells, human_time(member_double(s, "app_time")));
    g_ptr_array_add(cells, human_time(member_double(s, "total_time")));
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

char *
lb_report_phases(JsonArray *runs)
{
  GString *out = g_string_new(NULL);
  for (guint r = 0; r < json_array_get_length(runs); r++) {
    JsonObject *run = json_array_get_object_element(runs, r);
    JsonArray *phases = json_object_get_array_member(run, "phases");
    if (json_array_get_length(phases) == 0)
      continue;
    g_string_append_printf(out, "%s phases:\n", json_object_get_string_member(run, "balancer"));
    for (guint i = 0; i < json_array_get_length(phases); i++) {
      JsonObject *p = json_array_get_object_element(phases, i);
      g_autofree char *bytes = human_bytes(member_double(p, "bytes"));
      g_autofree char *time = human_time(member_double(p, "time"));
      g_string_append_printf(out, "  %-12s %4.0f steps  %9.0f messages  %10s  %10s\n",
                             json_object_get_string_member(p, "name"), member_double(p, "steps"),
                             member_double(p, "messages"), bytes, time);
    }
  }
  return g_string_free(out, FALSE);
}

char *
lb_report_csv(JsonArray *runs)
{
  static const char *const fields[] = {"imbalance_before", "imbalance_after", "schedule_steps",
                                       "messages",         "bytes",           "bytes_moved",
                                       "balance_time",     "app_time",        "total_time"};
  GString *out = g_string_new("balancer");
  for (guint c = 0; c < G_N_ELEMENTS(fields); c++)
    g_string_append_printf(out, ",%s", fields[c]);
  g_string_append_c(out, '\n');
  for (guint r = 0; r < json_array_get_length(runs); r++) {
    JsonObject *run = json_array_get_object_element(runs, r);
    JsonObject *s = json_object_get_object_member(run, "summary");
    g_string_append(out, json_object_get_string_member(run, "balancer"));
    for (guint c = 0; c < G_N_ELEMENTS(fields); c++) {
      char buf[G_ASCII_DTOSTR_BUF_SIZE];
      g_ascii_formatd(buf, sizeof buf, "%.10g", member_double(s, fields[c]));
      g_string_append_printf(out, ",%s", buf);
    }
    g_string_append_c(out, '\n');
  }
  return g_string_free(out, FALSE);
}
