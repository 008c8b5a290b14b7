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
