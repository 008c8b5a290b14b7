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

static const char *const none_models[] = {"array1d", "field2d", "field3d", "samr",
                                          "htree",   "loop",    NULL};

const LbBalancer lb_none_balancer = {
    .name = "none",
    .summary = "no balancing: the baseline",
    .params = none_params,
    .phases = none_phases,
    .models = none_models,
    .keeps_order = FALSE,
    .check = NULL,
    .balance = none_balance,
};
