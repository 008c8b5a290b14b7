/* The checks of lbsim reproduce (checks.h), each paper's in a file of its
 * own (checks-PAPER.c) and one row here. Each takes lbsim's answer from
 * lbsim's own code (a balancer's plan functions, or real runs: the claim's
 * sweep, or a run it makes itself as lbsim explain does) and holds it
 * against the paper's words and against a computation written there, apart
 * from the balancer's (a brute force, an exact optimum). */
#include "reproduce/checks.h"

#include <string.h>

#include "reproduce/checks-common.h"

static const LbReproCheck *const papers[] = {
    lb_checks_quinlan1997,
    lb_checks_lbd,
    lb_checks_baiardi2001,
    lb_checks_chaube2003,
};

const LbReproCheck *
lb_repro_check_lookup(const char *name)
{
  for (guint p = 0; p < G_N_ELEMENTS(papers); p++)
    for (const LbReproCheck *c = papers[p]; c->name != NULL; c++)
      if (strcmp(c->name, name) == 0)
        return c;
  return NULL;
}

char *
lb_repro_check_names(void)
{
  GString *t = g_string_new(NULL);
  for (guint p = 0; p < G_N_ELEMENTS(papers); p++)
    for (const LbReproCheck *c = papers[p]; c->name != NULL; c++)
      g_string_append_printf(t, "%s%s", t->len > 0 ? ", " : "", c->name);
  return g_string_free(t, FALSE);
}
