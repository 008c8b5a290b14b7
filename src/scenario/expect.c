/* [expect] lines: "BALANCER.METRIC OP VALUE", the regression checks that
 * `lbsim check` enforces. */
#include <string.h>

#include "lbsim/scenario.h"

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
  g_free(expect->text);
  g_free(expect);
}

gboolean
lb_expect_parse(const char *key, const char *value, LbExpect **out, GError **error)
{
  const char *dot = strchr(key, '.');
  if (dot == NULL || dot == key || dot[1] == '\0') {
    g_set_error(error, LB_SCENARIO_ERROR, LB_SCENARIO_ERROR_INVALID,
                "'%s' is not BALANCER.METRIC (e.g. mlb.schedule-steps)", key);
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
  const char *number = v + strlen(operators[i].text);
  double bound = 0;
  /* nan, inf or a hex float would be read, then fail every run */
  if (!lb_parse_decimal(number, &bound)) {
    g_set_error(error, LB_SCENARIO_ERROR, LB_SCENARIO_ERROR_INVALID,
                "'%s %s' does not compare with a number (a finite decimal: 2.5, 1e-3)", key, v);
    return FALSE;
  }
  g_autofree char *number_text = g_strstrip(g_strdup(number));
  LbExpect *e = g_new0(LbExpect, 1);
  e->balancer = g_strndup(key, (gsize)(dot - key));
  e->metric = g_strdelimit(g_strdup(dot + 1), "-", '_');
  e->op = operators[i].op;
  e->value = bound;
  e->text = g_strdup_printf("%s %s %s", key, operators[i].text, number_text);
  *out = e;
  return TRUE;
}

gboolean
lb_expect_holds(const LbExpect *expect, double actual)
{
  switch (expect->op) {
  case LB_EXPECT_LE:
    return actual <= expect->value;
  case LB_EXPECT_LT:
    return actual < expect->value;
  case LB_EXPECT_GE:
    return actual >= expect->value;
  case LB_EXPECT_GT:
    return actual > expect->value;
  case LB_EXPECT_EQ:
    return actual == expect->value;
  }
  g_assert_not_reached();
}
