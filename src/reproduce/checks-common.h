/* What the checks of every paper share (checks-common.c), and each
 * paper's table of checks (checks-PAPER.c), which checks.c joins. */
#pragma once

#include "lbsim/scenario.h"
#include "reproduce/checks.h"

/* a check's arguments that name no run's label or metric */
#define LB_CHECK_NO_LABELS -1, -1, NULL, -1, NULL

/* Each paper's checks, ended by a row with a NULL name. */
extern const LbReproCheck lb_checks_quinlan1997[];
extern const LbReproCheck lb_checks_lbd[];
extern const LbReproCheck lb_checks_baiardi2001[];
extern const LbReproCheck lb_checks_chaube2003[];

/* Sets error (the checks' domain) to the formatted text: FALSE. */
gboolean lb_check_fail(GError **error, const char *format, ...) G_GNUC_PRINTF(2, 3);
/* The d of p = 2^d (the least d with 2^d >= p); whether p is a power of 2. */
guint lb_check_log2_of(guint64 p);
gboolean lb_check_power_of_two(guint64 p);
/* "0110" -> 6; at most 20 bits. */
gboolean lb_check_binary(const char *text, guint *value);
/* v as width binary digits, the highest first. */
char *lb_check_bits_text(guint v, guint width);
/* "5,1,7" -> its numbers (guint64), or NULL. */
GArray *lb_check_numbers(const char *text);
/* Orders guint64s, or (key, value) pairs of them by key (qsort, g_array_sort). */
int lb_check_compare_guint64(gconstpointer a, gconstpointer b);
/* Simulations at once: jobs, or one per processor. */
guint lb_check_processors(guint jobs);
/* What a check's own run keeps beyond its totals: the schedule's
 * transfers and the rest of --detail, the ranks' narration. Each costs:
 * with --detail's members as well, lbd's quick checks (narrated runs of up
 * to 1,024 ranks, carried back from their children) took twice as long. */
typedef enum {
  LB_CHECK_KEEP_TOTALS = 0,
  LB_CHECK_KEEP_DETAIL = 1 << 0,
  LB_CHECK_KEEP_NARRATION = 1 << 1,
} LbCheckKeep;
/* The scenario's one balancer run, simulated in a child; what `keep`
 * names kept. key: a text that determines the run (with keep), such as
 * a sweep run's id and what the check changes of it; its result is kept
 * in sims->keep_dir under it and read back from there the next time
 * (NULL: never kept). */
LbRunResult *lb_check_simulate(const LbScenario *sc, const LbScenarioOverrides *ov,
                               LbCheckKeep keep, const LbCheckSims *sims, const char *key,
                               GError **error);
/* MLB on a hypercube of p ranks over the given elements (in blocks of
 * equal counts over the ranks), narrated, its schedule kept. */
LbRunResult *lb_check_simulate_mlb(guint p, const guint64 *elements, guint n,
                                   const LbCheckSims *sims, GError **error);
