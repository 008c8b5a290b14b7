/* A job: one run of one balancer of a scenario, written down so that it can
 * be started here (a forked child) or elsewhere (one task of a cluster
 * sweep): the scenario file, the command-line overrides and the balancer. */
#pragma once

#include "lbsim/run.h"
#include "lbsim/scenario.h"

typedef struct {
  char *scenario; /* path, as given */
  gint ranks;     /* 0: the file's */
  char *platform; /* NULL: the file's */
  char *balancer;
  char **sets;    /* GROUP.KEY=VALUE, NULL-terminated; may be NULL */
  char **plugins; /* plugins to load first (their files), NULL-terminated; may be NULL */
} LbJob;

/* A job of the plugins loaded so far (lb_plugins_loaded) too. */
LbJob *lb_job_new(const char *scenario, const LbScenarioOverrides *overrides, const char *balancer);
void lb_job_free(LbJob *job);
G_DEFINE_AUTOPTR_CLEANUP_FUNC(LbJob, lb_job_free)

#define LB_JOB_ERROR (lb_job_error_quark())
GQuark lb_job_error_quark(void);

typedef enum {
  LB_JOB_ERROR_PARSE,   /* a line that is not one of a job file */
  LB_JOB_ERROR_INVALID, /* a bad value */
  LB_JOB_ERROR_MISSING, /* scenario or balancer */
} LbJobError;

/* A job as a GLib key file: [job] scenario, balancer, and optionally ranks,
 * platform, set1, set2, ... (one GROUP.KEY=VALUE each, numbered from 1),
 * plugin1, plugin2, ... (files of plugins to load first);
 * text that is not UTF-8 goes under KEY-bytes with C escapes. */
char *lb_job_to_data(const LbJob *job);

/* Reads a job as strictly as a scenario is read: another group or key, a
 * repeated one, a gap in the set lines, a set line that is not
 * GROUP.KEY=VALUE or a bad ranks is an error naming name and the line.
 * Whether the overrides' keys exist is checked when the job is loaded. */
LbJob *lb_job_parse(const char *name, const char *data, gsize length, GError **error);
/* The same, of lb_job_to_data's text ("the job" in errors). */
LbJob *lb_job_from_data(const char *data, GError **error);
/* The same, of a file (a scenario's size cap). */
LbJob *lb_job_from_file(const char *path, GError **error);

/* The scenario of a job: its plugins loaded, its file with its overrides,
 * running only its balancer. */
LbScenario *lb_job_load(const LbJob *job, GError **error);

/* The child side: simulates the job and writes the typed result to
 * result_path (or the error text to error_path, NULL: stderr). loaded is the
 * job's scenario when the caller has it already (a forked child), else NULL:
 * the job is loaded here. Returns the exit code: 0, 2 input, 3 invariant,
 * 1 anything else. */
int lb_job_execute(const LbJob *job, const LbScenario *loaded, guint index,
                   const LbRunOptions *options, const char *result_path, const char *error_path);
