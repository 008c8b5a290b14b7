/* Results as JSON (the stable contract), a terminal table and CSV. */
#pragma once

#include <json-glib/json-glib.h>
#include "lbsim/run.h"
#include "lbsim/scenario.h"

/* One run as a JSON object (what a child process hands to its parent). */
char *lb_report_run_json(const LbRunResult *result);

/* The whole document around the runs' JSON texts, in scenario order. */
char *lb_report_document(const LbScenario *scenario, guint hosts, GPtrArray *run_texts);

/* One row per run: the numbers a user compares first. */
char *lb_report_table(JsonArray *runs);
char *lb_report_csv(JsonArray *runs);
/* Steps, messages, bytes and time of every phase of every run. */
char *lb_report_phases(JsonArray *runs);

/* A summary figure of a run by metric name (summary field, or
 * PHASE_steps / _messages / _bytes / _time); FALSE if there is none. */
gboolean lb_report_metric(JsonObject *run, const char *metric, double *value);
