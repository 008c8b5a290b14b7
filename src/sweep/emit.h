/* lbsim sweep --emit-jobs: a sweep's missing runs written down for a
 * scheduler, each run by lbsim run-job and the results gathered by lbsim
 * merge. A scheduler is one file (emit-plain.c, emit-parallel.c,
 * emit-slurm.c) and one row of the table in emit.c: its checks before
 * anything is written, its files, and the line it says after. */
#pragma once

#include "io/output.h"
#include "sweep/sweep.h"

typedef struct LbEmitter LbEmitter;

typedef struct LbEmit {
  const LbEmitter *scheduler; /* --scheduler (NULL: plain) */
  const char *target;         /* --emit-jobs: FILE, or DIR for slurm */
  const char *lbsim;          /* --lbsim: the program the jobs run; NULL: this one */
  const char *json, *csv;     /* what the merge writes (csv may be NULL) */
  const char *long_csv;       /* and, when not NULL, the long and statistics CSVs */
  const char *stats_csv;
  const char *state; /* the sweep's state folder */
  /* Slurm's (emit-slurm.c): refused with another scheduler */
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

/* The missing runs a scheduler's files run, their job files written in
 * the state folder. */
typedef struct {
  GPtrArray *runs;   /* const LbSweepRun *, in the sweep's order, one per distinct run */
  const char *lbsim; /* the program, as a shell word */
  const char *state; /* the state folder, absolute */
  guint done;        /* distinct runs with a result already */
  guint distinct;    /* distinct runs of the sweep */
} LbEmitJobs;

struct LbEmitter {
  const char *name; /* --scheduler NAME */
  /* before anything is written: its options (the common ones are
   * checked), the files it will write added to set */
  gboolean (*check)(const LbEmit *emit, const LbSweep *sweep, LbFileSet *set, GError **error);
  /* writes its files */
  gboolean (*write)(const LbEmit *emit, const LbSweep *sweep, const LbEmitJobs *jobs,
                    GError **error);
  /* the line on stderr after (unless quiet) */
  void (*say)(const LbEmit *emit, const LbEmitJobs *jobs);
};

extern const LbEmitter lb_emit_plain, lb_emit_parallel, lb_emit_slurm;

/* A --scheduler NAME: plain, parallel or slurm. */
gboolean lb_emit_parse_scheduler(const char *text, const LbEmitter **scheduler, GError **error);

/* Before anything is written: the options fit the scheduler, and every
 * file emit writes (added to set) can be written; a Slurm folder holds
 * nothing of anyone else's (another sweep's scripts, or files of that
 * name lbsim did not write) unless force. */
gboolean lb_emit_check(const LbEmit *emit, const LbSweep *sweep, LbFileSet *set, GError **error);
/* Whether text is one of the time forms sbatch --time takes. */
gboolean lb_emit_slurm_time_valid(const char *text);

/* Writes the job file of every distinct run without a result (results[i]
 * NULL) into the state folder, then the scheduler's files. Returns the
 * exit status, having said why on stderr. */
int lb_emit_jobs(const LbEmit *emit, const LbSweep *sweep, LbRunResult *const *results);

/* ---- for the schedulers' files ---- */

/* A word the shell reads back as it is. */
char *lb_emit_shell_word(const char *text);
/* A run's point as one comment line: control characters become spaces. */
char *lb_emit_comment(const LbSweep *sweep, const LbSweepRun *run);
/* Whether text holds a control character. */
gboolean lb_emit_has_control(const char *text);
/* " --csv FILE --long-csv FILE ..." of the tables the merge writes, each
 * path made absolute and a shell word when absolute is TRUE. */
char *lb_emit_tables(const LbEmit *emit, gboolean absolute);
/* A FILE of one `LBSIM run-job JOB RESULT` line per run, each ending with
 * its point as a comment when comments is TRUE. */
gboolean lb_emit_lines(const LbEmit *emit, const LbSweep *sweep, const LbEmitJobs *jobs,
                       gboolean comments, GError **error);
/* "N jobs in FILE ...; run them HOW, then: lbsim merge ..." */
void lb_emit_say_lines(const LbEmit *emit, const LbEmitJobs *jobs, const char *how);
