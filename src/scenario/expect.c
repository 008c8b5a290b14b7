/* [expect] lines: "BALANCER.METRIC OP VALUE" or a relation between two
 * runs, "BALANCER.METRIC OP [FACTOR *] OTHER.METRIC": the regression
 * checks (and a paper's findings) that `lbsim check` enforces. */
#include <string.h>

#include "lbsim/scenario.h"
#include "metrics/expr.h"

static const struct {
  const char *text;
  LbExpectOp op;
} operators[] = {
    {"<=", LB_EXPECT_LE}, {">=", LB_EXPECT_GE}, {"==", LB_EXPECT_EQ},
    {"<", LB_EXPECT_LT},  {">", LB_EXPECT_GT},
};

const char *
lb_expect_op_text(LbExpectOp op)
{
  for (guint i = 0; i < G_N_ELEMENTS(operators); i++)
    if (operators[i].op == op)
      return operators[i].text;
  g_assert_not_reached();
}

void
lb_expect_free(LbExpect *expect)
{
  if (expect == NULL)
    return;
  g_free(expect->balancer);
  g_free(expect->metric);
  g_free(expect->other_balancer);
  g_free(expect->other_metric);
  g_free(expect->text);
  lb_expr_free(expect->formula);
  g_free(expect);
}

/* "OTHER.METRIC" or "FACTOR * OTHER.METRIC": *factor and the reference. */
static gboolean
parse_relation(const char *text, double *factor, char **reference)
{
  const char *star = strchr(text, '*');
  g_autofree char *ref = g_strstrip(g_strdup(star != NULL ? star + 1 : text));
  *factor = 1;
  if (star != NULL) {
    g_autofree char *number = g_strndup(text, (gsize)(star - text));
    if (!lb_parse_decimal(number, factor))
      return FALSE;
  }
  /* a balancer's name starts with a letter: 1.5x is a bad number */
  const char *dot = strrchr(ref, '.');
  if (!g_ascii_isalpha(ref[0]) || dot == NULL || dot[1] == '\0' || strchr(ref, '.') != dot)
    return FALSE; /* BALANCER.phase.NAME.steps is a formula's */
  for (const char *c = ref; *c != '\0'; c++)
    if (g_ascii_isspace(*c) || *c == '*')
      return FALSE;
  *reference = g_steal_pointer(&ref);
  return TRUE;
}

gboolean
lb_expect_parse(const char *key, const char *value, LbExpect **out, GError **error)
{
  const char *dot = strchr(key, '.');
  if (dot == NULL || dot == key || dot[1] == '\0') {
    g_set_error(error, LB_SCENARIO_ERROR, LB_SCENARIO_ERROR_INVALID,
                "'%s' is not BALANCER.METRIC (e.g. mlb.schedule_steps)", key);
    return FALSE;
  }
  const char *v = value;
  while (g_ascii_isspace(*v))
    v++;
  guint i;
  for (i = 0; i < G_N_ELEMENTS(operators); i++)
    if (g_str_has_prefix(v, operators[i].text))
      break;
  if (i == G_N_ELEMENTS(operators)) {
    g_set_error(error, LB_SCENARIO_ERROR, LB_SCENARIO_ERROR_INVALID,
                "'%s' needs a comparison: one of <=, <, >=, >, == and a number", key);
    return FALSE;
  }
  g_autofree char *rhs = g_strstrip(g_strdup(v + strlen(operators[i].text)));
  double bound = 1;
  g_autofree char *other = NULL;
  g_autoptr(LbExpr) formula = NULL;
  /* nan, inf or a hex float would be read, then fail every run */
  if (!lb_parse_decimal(rhs, &bound) && !parse_relation(rhs, &bound, &other)) {
    g_autoptr(GError) local = NULL;
    formula = lb_expr_parse(rhs, &local);
    if (formula == NULL) {
      g_set_error(error, LB_SCENARIO_ERROR, LB_SCENARIO_ERROR_INVALID,
                  "'%s %s' does not compare with a number (a finite decimal: 2.5, 1e-3), "
                  "another run's metric or a formula: %s",
                  key, v, local->message);
      return FALSE;
    }
  }
  LbExpect *e = g_new0(LbExpect, 1);
  e->balancer = g_strndup(key, (gsize)(dot - key));
  e->metric = g_strdelimit(g_strdup(dot + 1), "-", '_');
  e->op = operators[i].op;
  e->value = bound;
  e->formula = g_steal_pointer(&formula);
  if (other != NULL) {
    const char *odot = strrchr(other, '.');
    e->other_balancer = g_strndup(other, (gsize)(odot - other));
    e->other_metric = g_strdelimit(g_strdup(odot + 1), "-", '_');
  }
  /* the text names the metrics as the JSON does, whichever spelling the
   * line used */
  if (other != NULL)
    g_strdelimit(strrchr(rhs, '.'), "-", '_');
  e->text = g_strdup_printf("%s.%s %s %s", e->balancer, e->metric, operators[i].text, rhs);
  *out = e;
  return TRUE;
}

gboolean
lb_expect_holds(const LbExpect *expect, double actual, double bound)
{
  switch (expect->op) {
  case LB_EXPECT_LE:
    return actual <= bound;
  case LB_EXPECT_LT:
    return actual < bound;
  case LB_EXPECT_GE:
    return actual >= bound;
  case LB_EXPECT_GT:
    return actual > bound;
  case LB_EXPECT_EQ:
    return actual == bound;
  }
  g_assert_not_reached();
}
