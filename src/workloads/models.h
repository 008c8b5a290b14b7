/* The models of the registry (src/workloads/model.c). */
#pragma once

#include "lbsim/model.h"

extern const LbModel lb_array1d_model;
extern const LbModel lb_field2d_model;
extern const LbModel lb_field3d_model;
extern const LbModel lb_samr_model;
extern const LbModel lb_htree_model;
extern const LbModel lb_loop_model;

/* "2048x2048": exactly dim positive integers below 2^32. */
gboolean lb_parse_dims(const char *text, guint dim, guint64 *out);

/* Sets an input error "FILE: [workload] KEY: ..." and returns FALSE. */
gboolean lb_workload_fail(GError **error, const char *file, const char *key, const char *format,
                          ...) G_GNUC_PRINTF(4, 5);

/* Records need (bytes) as the work's estimate; when it is more than the
 * machine's memory, an input error "FILE: [workload] KEY: WHAT about X GiB,
 * more than this machine's Y GiB" (what ends in its verb: "... need"). */
gboolean lb_work_check_memory(LbWork *work, double need, const char *file, const char *key,
                              const char *what, GError **error);

/* The patterns a pattern key applies to ("hotspots|step"), or NULL. */
const char *lb_pattern_key_patterns(const char *key);

/* The most square factorisation of p into dim factors, the first axis
 * largest (64 = 8x8, 32 = 8x4, 1024 = 16x8x8 in 3D). */
void lb_grid_square_factors(guint p, guint dim, guint64 *out);

/* lb_model_register with where it came from (a plugin's file, or NULL) and
 * an error instead of an abort when its name is taken or scenarios have
 * been read already. */
gboolean lb_model_register_from(const LbModel *model, const char *origin, GError **error);

/* Where a registered balancer or model came from: its plugin's file
 * (nothing is recorded for a built-in one, origin NULL). */
void lb_registry_set_origin(gconstpointer entry, const char *origin);
const char *lb_registry_origin(gconstpointer entry);
