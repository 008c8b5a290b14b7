/* A simulation in a child process of its own. */
#pragma once

#include <sys/types.h>

#include "runner/job.h"
#include "lbsim/run.h"
#include "lbsim/scenario.h"

/* Forks a child that simulates job and writes its typed result to result.
 * sc is the job's scenario when the caller has loaded it (index: the job's
 * run in it), else NULL: the child loads the job. The child leaves its
 * error text and the stage it reached in dir/TAG.err and dir/TAG.stage.
 * Call it between lb_signals_watch and lb_signals_unwatch, slot one of
 * the watched ones: it gets the child's pid. FALSE (errno) if fork
 * failed.
 *
 * With ready non-NULL, *ready is a pipe's read end, on which the child
 * writes one byte once its platform and hosts are checked, before its
 * ranks start: lb_child_wait_ready tells whether it did. */
gboolean lb_child_spawn(const LbJob *job, const LbScenario *sc, guint index,
                        const LbRunOptions *options, const char *dir, const char *tag,
                        const char *result, pid_t *slot, int *ready);

/* Reads the byte of a child spawned with ready and closes the pipe: TRUE
 * if the child got past its checks, FALSE if it ended before. */
gboolean lb_child_wait_ready(int ready);

/* Why the child of tag (the name balancer's run of scenario file on
 * platform) ended with status, which is not success: the message, and
 * *code: 2 input, 3 invariant, 1 anything else. */
char *lb_child_failure(const char *file, const char *platform, const LbRunOptions *options,
                       const char *dir, const char *tag, const char *name, int status, int *code);

/* Waits for one child of pids[0..n) (0: an empty slot) to end: returns
 * its index, its slot cleared and its wait status in *status, or -1 when
 * no child is left. */
gint lb_child_reap(pid_t *pids, guint n, int *status);
