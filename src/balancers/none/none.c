/* The baseline every comparison needs: leave the load where it is. */
#include "balancers/registry.h"

static const LbParamSpec none_params[] = {
    {NULL},
};

static const char *const none_phases[] = {NULL};

static void
none_balance(LbRank *self, gpointer state)
{
}

const LbBalancer lb_none_balancer = {
    .name = "none",
    .summary = "no balancing: the baseline",
    .params = none_params,
    .phases = none_phases,
    .needs = 0,
    .keeps_order = FALSE,
    .check = NULL,
    .balance = none_balance,
};
