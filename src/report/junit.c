/* Test reports (junit.h). */
#include "report/junit.h"

#include <math.h>
#include <string.h>

static void
clear_case(gpointer data)
{
  LbTestCase *c = data;
  g_free(c->name);
  g_free(c->message);
  g_free(c->type);
}

LbTestSuite *
lb_test_suite_new(const char *name, double seconds)
{
  LbTestSuite *s = g_new0(LbTestSuite, 1);
  s->name = g_strdup(name);
  s->seconds = seconds;
  s->cases = g_array_new(FALSE, TRUE, sizeof(LbTestCase));
  g_array_set_clear_func(s->cases, clear_case);
  return s;
}

void
lb_test_suite_free(LbTestSuite *suite)
{
  if (suite == NULL)
    return;
  g_free(suite->name);
  g_array_unref(suite->cases);
  g_free(suite);
}

void
lb_test_suite_add(LbTestSuite *suite, const char *name, LbTestOutcome outcome, const char *message,
                  const char *type)
{
  LbTestCase c = {g_strdup(name), outcome, g_strdup(message), g_strdup(type)};
  g_array_append_val(suite->cases, c);
}

LbTestSuite *
lb_test_suite_of_check(const LbScenario *sc, const LbExpectOutcome *outcomes, guint n,
                       const GPtrArray *baseline, double seconds, const char *error)
{
  LbTestSuite *s = lb_test_suite_new(sc->name, seconds);
  if (outcomes == NULL) {
    /* no line could be held: each is an error (a scenario without lines,
     * its run) */
    guint lines = sc->expects->len;
    for (guint i = 0; i < MAX(lines, 1); i++) {
      const LbExpect *e = lines > 0 ? sc->expects->pdata[i] : NULL;
      lb_test_suite_add(s, e != NULL ? e->text : "run", LB_TEST_ERROR,
                        error != NULL ? error : "the runs failed", "run");
    }
    return s;
  }
  for (guint i = 0; i < n; i++) {
    const LbExpectOutcome *o = &outcomes[i];
    const LbExpect *e = sc->expects->pdata[i];
    if (o->skipped != NULL) {
      g_autofree char *why = g_strdup_printf("balancer %s was not run", o->skipped);
      lb_test_suite_add(s, o->text, LB_TEST_SKIP, why, NULL);
    } else if (strcmp(o->outcome, "pass") != 0) {
      g_autofree char *message = g_strdup_printf("actual %.10g, bound %s %.10g", o->actual,
                                                 lb_expect_op_text(e->op), o->bound);
      lb_test_suite_add(s, o->text, LB_TEST_FAIL, message, "expect");
    } else {
      lb_test_suite_add(s, o->text, LB_TEST_PASS, NULL, NULL);
    }
  }
  for (guint i = 0; baseline != NULL && i < baseline->len; i++) {
    const LbDiffRow *row = baseline->pdata[i];
    g_autofree char *name = g_strdup_printf("baseline: %s %s", row->where, row->metric);
    g_autofree char *message =
        !row->moved      ? NULL
        : row->only != 0 ? g_strdup_printf("in the %s only", row->only == 'A' ? "baseline" : "run")
                         : g_strdup_printf("baseline %.10g, now %.10g", row->a, row->b);
    lb_test_suite_add(s, name, row->moved ? LB_TEST_FAIL : LB_TEST_PASS, message, "baseline");
  }
  return s;
}

static void
append_escaped(GString *out, const char *text)
{
  g_autofree char *escaped = g_markup_escape_text(text, -1);
  g_string_append(out, escaped);
}

/* The counts of a suite, by outcome. */
static void
tally(const LbTestSuite *s, guint *counts)
{
  memset(counts, 0, 4 * sizeof *counts);
  for (guint i = 0; i < s->cases->len; i++)
    counts[g_array_index(s->cases, LbTestCase, i).outcome]++;
}

static void
append_suite(GString *out, const LbTestSuite *s)
{
  guint n[4];
  tally(s, n);
  g_string_append(out, "  <testsuite name=\"");
  append_escaped(out, s->name);
  g_string_append_printf(out,
                         "\" tests=\"%u\" failures=\"%u\" errors=\"%u\" skipped=\"%u\" "
                         "time=\"%.3f\">\n",
                         s->cases->len, n[LB_TEST_FAIL], n[LB_TEST_ERROR], n[LB_TEST_SKIP],
                         s->seconds);
  static const char *const element[] = {NULL, "failure", "skipped", "error"};
  for (guint i = 0; i < s->cases->len; i++) {
    const LbTestCase *c = &g_array_index(s->cases, LbTestCase, i);
    g_string_append(out, "    <testcase classname=\"");
    append_escaped(out, s->name);
    g_string_append(out, "\" name=\"");
    append_escaped(out, c->name);
    g_string_append(out, "\" time=\"0\"");
    if (c->outcome == LB_TEST_PASS) {
      g_string_append(out, "/>\n");
      continue;
    }
    g_string_append_printf(out, ">\n      <%s message=\"", element[c->outcome]);
    append_escaped(out, c->message != NULL ? c->message : "");
    g_string_append_c(out, '"');
    if (c->type != NULL) {
      g_string_append(out, " type=\"");
      append_escaped(out, c->type);
      g_string_append_c(out, '"');
    }
    g_string_append(out, "/>\n    </testcase>\n");
  }
  g_string_append(out, "  </testsuite>\n");
}

char *
lb_junit_document(LbTestSuite *const *suites, guint n, const char *name)
{
  guint total = 0, counts[4] = {0};
  double seconds = 0;
  for (guint i = 0; i < n; i++) {
    guint c[4];
    tally(suites[i], c);
    for (guint k = 0; k < 4; k++)
      counts[k] += c[k];
    total += suites[i]->cases->len;
    seconds += suites[i]->seconds;
  }
  GString *out = g_string_new("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<testsuites name=\"");
  append_escaped(out, name);
  g_string_append_printf(out,
                         "\" tests=\"%u\" failures=\"%u\" errors=\"%u\" skipped=\"%u\" "
                         "time=\"%.3f\">\n",
                         total, counts[LB_TEST_FAIL], counts[LB_TEST_ERROR], counts[LB_TEST_SKIP],
                         seconds);
  for (guint i = 0; i < n; i++)
    append_suite(out, suites[i]);
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
    if (*c == '\n')
      g_string_append(out, "\\n");
    else
      g_string_append_c(out, *c);
  }
  g_string_append_c(out, '"');
}

char *
lb_tap_document(LbTestSuite *const *suites, guint n)
{
  guint total = 0;
  for (guint i = 0; i < n; i++)
    total += suites[i]->cases->len;
  GString *out = g_string_new("TAP version 13\n");
  g_string_append_printf(out, "1..%u\n", total);
  guint k = 0;
  for (guint i = 0; i < n; i++)
    for (guint j = 0; j < suites[i]->cases->len; j++) {
      const LbTestCase *c = &g_array_index(suites[i]->cases, LbTestCase, j);
      gboolean ok = c->outcome == LB_TEST_PASS || c->outcome == LB_TEST_SKIP;
      /* a description has no '#' (a directive) and no newline */
      g_autofree char *text = g_strdup_printf("%s: %s", suites[i]->name, c->name);
      g_strdelimit(text, "#\n", ' ');
      g_string_append_printf(out, "%s %u - %s", ok ? "ok" : "not ok", ++k, text);
      if (c->outcome == LB_TEST_SKIP) {
        g_autofree char *why = g_strdup(c->message != NULL ? c->message : "");
        g_strdelimit(why, "\n", ' ');
        g_string_append_printf(out, " # SKIP %s\n", why);
      } else if (!ok) {
        g_string_append(out, "\n  ---\n  message: ");
        append_yaml_string(out, c->message != NULL ? c->message : "");
        g_string_append_printf(out, "\n  severity: %s\n  ...\n",
                               c->outcome == LB_TEST_ERROR ? "error" : "fail");
      } else {
        g_string_append_c(out, '\n');
      }
    }
  return g_string_free(out, FALSE);
}
