#include "lbsim/balancer.h"
#include "balancers/registry.h"

static const LbBalancer *const registry[] = {
  &lb_none_balancer,
  &lb_mlb_balancer,
  NULL,
};

const LbBalancer *const *
lb_balancers(void)
{
  return registry;
}

const LbBalancer *
lb_balancer_lookup(const char *name)
{
  for (guint i = 0; registry[i] != NULL; i++)
    if (g_strcmp0(registry[i]->name, name) == 0)
      return registry[i];
  return NULL;
}
