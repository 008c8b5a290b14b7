#pragma once

#include "lbsim/balancer.h"

extern const LbBalancer lb_none_balancer;
extern const LbBalancer lb_mlb_balancer;
extern const LbBalancer lb_mlb_nd_balancer;
extern const LbBalancer lb_lbd_balancer;
extern const LbBalancer lb_enzo_original_balancer;
extern const LbBalancer lb_move_split_balancer;
extern const LbBalancer lb_sfc_shift_balancer;
extern const LbBalancer lb_dls_balancer;
extern const LbBalancer lb_scratch_remap_balancer;
extern const LbBalancer lb_diffusion_balancer;

/* lb_balancer_register with where it came from (a plugin's file, or NULL)
 * and an error instead of an abort when its name is bad or taken. */
gboolean lb_balancer_register_from(const LbBalancer *balancer, const char *origin, GError **error);
