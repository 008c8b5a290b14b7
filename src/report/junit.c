/* lbsim check's test reports (junit.h). */
#include "report/junit.h"

#include <math.h>
#include <string.h>

/* A failed line's message: "actual 12, bound <= 10". */
static char *
failure_message(const LbExpectOutcome *o, const LbExpect *e)
{
  return g_strdup_printf("actual %.10g, bound %s %.10g", o->actual, lb_expect_op_text(e->op),
                         o->bound);
}

/* A baseline row's test name and, when it moved, its message. */
static char *
baseline_name(const LbDiffRow *row)
{
  return g_strdup_printf("baseline: %s %s", row->where, row->metric);
}

static char *
baseline_message(const LbDiffRow *row)
{
  if (row->only != 0)
    return g_strdup_printf("in the %s only", row->only == 'A' ? "baseline" : "run");
  return g_strdup_printf("baseline %.10g, now %.10g", row->a, row->b);
}

static void
append_escaped(GString *out, const char *text)
{
  g_autofree char *escaped = g_markup_escape_text(text, -1);
  g_string_append(out, escaped);
}

/* The counts of one scenario: tests, failures, errors, skipped. */
static void
tally(const LbCheckReport *r, guint *tests, guint *failures, guint *errors, guint *skipped)
{
  *tests = *failures = *errors = *skipped = 0;
  if (r->outcomes == NULL) {
    *tests = *errors = MAX(r->scenario->expects->len, 1);
    return;
  }
  *tests = r->n;
  for (guint i = 0; i < r->n; i++) {
    if (r->outcomes[i].skipped != NULL)
      (*skipped)++;
    else if (strcmp(r->outcomes[i].outcome, "pass") != 0)
      (*failures)++;
  }
  for (guint i = 0; r->baseline != NULL && i < r->baseline->len; i++) {
    (*tests)++;
    *failures += ((const LbDiffRow *)r->baseline->pdata[i])->moved;
  }
}

static void
append_suite(GString *out, const LbCheckReport *r)
{
  guint tests, failures, errors, skipped;
  tally(r, &tests, &failures, &errors, &skipped);
  g_string_append(out, "  <testsuite name=\"");
  append_escaped(out, r->name);
  g_string_append_printf(out,
                         "\" tests=\"%u\" failures=\"%u\" errors=\"%u\" skipped=\"%u\" "
                         "time=\"%.3f\">\n",
                         tests, failures, errors, skipped, r->seconds);
  if (r->outcomes == NULL) {
    /* no line could be held: each is an error (a scenario without lines,
     * its run) */
    guint lines = r->scenario->expects->len;
    for (guint i = 0; i < MAX(lines, 1); i++) {
      const LbExpect *e = lines > 0 ? r->scenario->expects->pdata[i] : NULL;
      g_string_append(out, "    <testcase classname=\"");
      append_escaped(out, r->name);
      g_string_append(out, "\" name=\"");
      append_escaped(out, e != NULL ? e->text : "run");
      g_string_append(out, "\" time=\"0\">\n      <error message=\"");
      append_escaped(out, r->error != NULL ? r->error : "the runs failed");
      g_string_append(out, "\" type=\"run\"/>\n    </testcase>\n");
    }
    g_string_append(out, "  </testsuite>\n");
    return;
  }
  for (guint i = 0; i < r->n; i++) {
    const LbExpectOutcome *o = &r->outcomes[i];
    const LbExpect *e = r->scenario->expects->pdata[i];
    g_string_append(out, "    <testcase classname=\"");
    append_escaped(out, r->name);
    g_string_append(out, "\" name=\"");
    append_escaped(out, o->text);
    g_string_append(out, "\" time=\"0\"");
    if (o->skipped != NULL) {
      g_autofree char *why = g_strdup_printf("balancer %s was not run", o->skipped);
      g_string_append(out, ">\n      <skipped message=\"");
      append_escaped(out, why);
      g_string_append(out, "\"/>\n    </testcase>\n");
    } else if (strcmp(o->outcome, "pass") != 0) {
      g_autofree char *message = failure_message(o, e);
      g_string_append(out, ">\n      <failure message=\"");
      append_escaped(out, message);
      g_string_append(out, "\" type=\"expect\">");
      append_escaped(out, o->text);
      g_string_append(out, ": ");
      append_escaped(out, message);
      g_string_append(out, "</failure>\n    </testcase>\n");
    } else {
      g_string_append(out, "/>\n");
    }
  }
  for (guint i = 0; r->baseline != NULL && i < r->baseline->len; i++) {
    const LbDiffRow *row = r->baseline->pdata[i];
    g_autofree char *name = baseline_name(row);
    g_string_append(out, "    <testcase classname=\"");
    append_escaped(out, r->name);
    g_string_append(out, "\" name=\"");
    append_escaped(out, name);
    g_string_append(out, "\" time=\"0\"");
    if (!row->moved) {
      g_string_append(out, "/>\n");
      continue;
    }
    g_autofree char *message = baseline_message(row);
    g_string_append(out, ">\n      <failure message=\"");
    append_escaped(out, message);
    g_string_append(out, "\" type=\"baseline\"/>\n    </testcase>\n");
  }
  g_string_append(out, "  </testsuite>\n");
}

char *
lb_junit_document(const LbCheckReport *reports, guint n)
{
  guint tests = 0, failures = 0, errors = 0, skipped = 0;
  double seconds = 0;
  for (guint i = 0; i < n; i++) {
    guint t, f, e, s;
    tally(&reports[i], &t, &f, &e, &s);
    tests += t;
    failures += f;
    errors += e;
    skipped += s;
    seconds += reports[i].seconds;
  }
  GString *out = g_string_new("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n");
  g_string_append_printf(out,
                         "<testsuites name=\"lbsim check\" tests=\"%u\" failures=\"%u\" "
                         "errors=\"%u\" skipped=\"%u\" time=\"%.3f\">\n",
                         tests, failures, errors, skipped, seconds);
  for (guint i = 0; i < n; i++)
    append_suite(out, &reports[i]);
  g_string_append(out, "</testsuites>\n");
  return g_string_free(out, FALSE);
}

/* A YAML double-quoted scalar. */
static void
append_yaml_string(GString *out, const char *text)
{
  g_string_append_c(out, '"');
  for (const char *c = text; *c != '\0'; c++) {
    if (*c == '"' || *c == '\\')
      g_string_append_c(out, '\\');
    g_string_append_c(out, *c);
  }
  g_string_append_c(out, '"');
}

/* A test point's description: no '#', which would start a directive. */
static void
append_description(GString *out, const char *scenario, const char *line)
{
  g_autofree char *text = g_strdup_printf("%s: %s", scenario, line);
  g_strdelimit(text, "#\n", ' ');
  g_string_append(out, text);
}

char *
lb_tap_document(const LbCheckReport *reports, guint n)
{
  guint total = 0;
  for (guint i = 0; i < n; i++) {
    guint t, f, e, s;
    tally(&reports[i], &t, &f, &e, &s);
    total += t;
  }
  GString *out = g_string_new("TAP version 13\n");
  g_string_append_printf(out, "1..%u\n", total);
  guint k = 0;
  for (guint i = 0; i < n; i++) {
    const LbCheckReport *r = &reports[i];
    if (r->outcomes == NULL) {
      guint lines = r->scenario->expects->len;
      for (guint j = 0; j < MAX(lines, 1); j++) {
        const LbExpect *e = lines > 0 ? r->scenario->expects->pdata[j] : NULL;
        g_string_append_printf(out, "not ok %u - ", ++k);
        append_description(out, r->name, e != NULL ? e->text : "run");
        g_string_append(out, "\n  ---\n  message: ");
        append_yaml_string(out, r->error != NULL ? r->error : "the runs failed");
        g_string_append(out, "\n  severity: error\n  ...\n");
      }
      continue;
    }
    for (guint j = 0; j < r->n; j++) {
      const LbExpectOutcome *o = &r->outcomes[j];
      gboolean ok = o->skipped != NULL || strcmp(o->outcome, "pass") == 0;
      g_string_append_printf(out, "%s %u - ", ok ? "ok" : "not ok", ++k);
      append_description(out, r->name, o->text);
      if (o->skipped != NULL) {
        g_string_append_printf(out, " # SKIP balancer %s was not run\n", o->skipped);
      } else if (!ok) {
        g_autofree char *message = failure_message(o, r->scenario->expects->pdata[j]);
        g_string_append(out, "\n  ---\n  message: ");
        append_yaml_string(out, message);
        g_string_append_printf(out, "\n  actual: %.10g\n  bound: %.10g\n  ...\n", o->actual,
                               o->bound);
      } else {
        g_string_append_c(out, '\n');
      }
    }
    for (guint j = 0; r->baseline != NULL && j < r->baseline->len; j++) {
      const LbDiffRow *row = r->baseline->pdata[j];
      g_autofree char *name = baseline_name(row);
      g_string_append_printf(out, "%s %u - ", row->moved ? "not ok" : "ok", ++k);
      append_description(out, r->name, name);
      g_string_append_c(out, '\n');
      if (row->moved) {
        g_autofree char *message = baseline_message(row);
        g_string_append(out, "  ---\n  message: ");
        append_yaml_string(out, message);
        g_string_append(out, "\n  ...\n");
      }
    }
  }
  return g_string_free(out, FALSE);
}
