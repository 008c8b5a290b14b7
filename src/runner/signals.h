/* Stop signals: SIGINT, SIGTERM and SIGHUP (SIGHUP only when lbsim did not
 * start with it ignored, as under nohup). Once started they are blocked in
 * every thread and taken by one thread of their own, so SimGrid's SIGINT
 * handler never runs. What a signal does depends on the process's role:
 *
 * - alone (run-job, --no-fork, and a parent once its children are done):
 *   the files and folders registered by io/temporary are removed, "lbsim: interrupted" is
 *   printed and the process exits with 128 + the signal;
 * - a parent watching its children: the first signal is kept, each child
 *   is sent SIGTERM, and the parent goes on to clean up and report;
 * - a forked child: SIGINT and SIGHUP are left to the parent (a Ctrl-C
 *   reaches the whole process group); SIGTERM, from the parent or from the
 *   kernel when the parent dies, removes the child's registered files (and
 *   its parent's folder when the parent died without cleaning up) and
 *   ends the child by the signal. */
#pragma once

#include <glib.h>
#include <sys/types.h>

#define LB_SIGNALS_ERROR (lb_signals_error_quark())
GQuark lb_signals_error_quark(void);

typedef enum {
  LB_SIGNALS_ERROR_INTERRUPTED,
} LbSignalsError;

/* This process simulates alone; no-op in a forked child. */
void lb_signals_alone(void);

/* From now on children[0..n) (0: an empty slot) are this process's
 * simulations: a signal is kept and sent on to them as SIGTERM. */
void lb_signals_watch(pid_t *children, guint n);
/* Back to alone: returns the signal kept while watching, or 0. */
int lb_signals_unwatch(void);
/* The signal kept while watching, or 0. */
int lb_signals_caught(void);
/* *slot = pid, a child just forked: sent SIGTERM at once if a signal came
 * already. */
void lb_signals_child_started(pid_t *slot, pid_t pid);
/* *slot = 0, before its child is reaped (so its pid is never reused under
 * a kill). */
void lb_signals_child_ended(pid_t *slot);

/* In a child just forked from a watching parent (whose pid was parent,
 * before the fork): ends with it, and removes dir, the parent's scratch
 * folder, if the parent is gone when SIGTERM comes. */
void lb_signals_in_child(pid_t parent, const char *dir);

/* Removes dir once this process has ended, however it ended (even by
 * SIGKILL, when it cannot clean up itself): a detached process waits for
 * that and removes it, again until it stays gone. */
void lb_signals_janitor(const char *dir);

/* Sets error to "interrupted" and returns the exit status for sig. */
int lb_signals_error(int sig, GError **error);
