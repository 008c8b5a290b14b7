/* lbsim sweep --emit-jobs: a sweep's missing runs written down for a
 * scheduler (a list of commands, GNU parallel's job list, a Slurm job
 * array with a merge job after it), each run by lbsim run-job and the
 * results gathered by lbsim merge. */
#pragma once

#include "cli/sweep.h"
#include "io/output.h"

typedef enum {
  LB_SCHEDULER_PLAIN,    /* FILE: one command per missing run */
  LB_SCHEDULER_PARALLEL, /* FILE: the same, each line ending with its run's point */
  LB_SCHEDULER_SLURM,    /* DIR: array.sbatch, merge.sbatch and submit.sh */
} LbScheduler;

typedef struct {
  LbScheduler scheduler;
  const char *target;     /* --emit-jobs: FILE, or DIR for slurm */
  const char *lbsim;      /* --lbsim: the program the jobs run; NULL: this one */
  const char *json, *csv; /* what the merge writes (csv may be NULL) */
  const char *long_csv;   /* and, when not NULL, the long and statistics CSVs */
  const char *stats_csv;
  const char *state;      /* the sweep's state folder */
  const char *slurm_time; /* #SBATCH --time, or NULL for the default */
  const char *slurm_mem;  /* #SBATCH --mem, or NULL for the default */
  const char *slurm_partition;
  guint slurm_max_array;   /* array tasks at most (0: the default, 1000) */
  guint slurm_array_limit; /* tasks running at once (#SBATCH --array=...%N), 0: no limit */
  /* the merge job's own limits, or NULL: the tasks' */
  const char *slurm_merge_time, *slurm_merge_mem, *slurm_merge_partition;
  const char *const *sbatch; /* more #SBATCH options, or NULL */
  gboolean force, quiet;
} LbEmit;

/* "plain", "parallel" or "slurm". */
gboolean lb_emit_parse_scheduler(const char *text, LbScheduler *scheduler, GError **error);

/* Before anything is written: the options fit the scheduler, and every
 * file emit writes (added to set) can be written; a Slurm folder holds
 * nothing of anyone else's (another sweep's scripts, or files of that
 * name lbsim did not write) unless force. */
/* Whether text is one of the time forms sbatch --time takes. */
gboolean lb_emit_slurm_time_valid(const char *text);
gboolean lb_emit_check(const LbEmit *emit, const LbSweep *sweep, LbFileSet *set, GError **error);

/* Writes the job file of every run without a result (results[i] NULL)
 * into the state folder, then the scheduler's files. Returns the exit
 * status, having said why on stderr. */
int lb_emit_jobs(const LbEmit *emit, const LbSweep *sweep, LbRunResult *const *results);
