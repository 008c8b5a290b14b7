/* The hostile tests: lbsim run as a careless or malicious user would run
 * it, one case per class of bad input, each in a private folder. Every
 * case asserts the exit status, exactly one message line naming the
 * problem, and that every file of its folder is as it was (contents,
 * types, device numbers) with nothing added. */
#pragma once

#include <glib.h>
#include <glib/gstdio.h>

typedef struct {
  char *dir;       /* the case's folder: lbsim runs here */
  GHashTable *was; /* name -> what it was, from hostile_snapshot */
} HostileCase;

typedef struct {
  int status; /* the exit status, or 128 + the signal that ended it */
  char *out;
  char *err; /* without AddressSanitizer's notes on stack switches */
} HostileResult;

HostileCase *hostile_case_new(void);
void hostile_case_free(HostileCase *hc);
G_DEFINE_AUTOPTR_CLEANUP_FUNC(HostileCase, hostile_case_free)
void hostile_result_clear(HostileResult *r);
G_DEFINE_AUTO_CLEANUP_CLEAR_FUNC(HostileResult, hostile_result_clear)

/* A file of the case's folder: its path (free it). */
char *hostile_path(const HostileCase *hc, const char *name);
/* Writes text to name in the folder. */
void hostile_write(const HostileCase *hc, const char *name, const char *text);
/* Copies a file of the source tree (relative to its root) into the folder
 * as name. */
void hostile_copy(const HostileCase *hc, const char *source, const char *name);
/* The small scenario every case may use: s.ini (16 ranks, none and mlb,
 * a fraction of a second) with its platform p.xml beside it. */
void hostile_scenario(const HostileCase *hc);
/* A character device like /dev/null (1, 3) named name in the folder, when
 * running as root on a file system that allows device nodes: FALSE (and a
 * note in the test log) when it cannot be made or opened. */
gboolean hostile_mknod_null(const HostileCase *hc, const char *name);

/* Remembers every entry of the folder, recursively: for a regular file
 * its contents' checksum, for anything else its type and device number. */
void hostile_snapshot(HostileCase *hc);
/* Asserts the folder holds exactly what the snapshot saw. */
void hostile_assert_unchanged(const HostileCase *hc);

/* Drops from captured stderr what AddressSanitizer says about SimGrid's
 * stack switches (three lines, once per process): no output of lbsim's. */
void hostile_strip_asan_notes(char *err);

/* Runs $LBSIM with the NULL-terminated arguments in the case's folder. */
void hostile_run(const HostileCase *hc, HostileResult *r, ...) G_GNUC_NULL_TERMINATED;
/* The same, with the environment of this process plus "NAME=VALUE"
 * strings in env (NULL-terminated). */
void hostile_run_env(const HostileCase *hc, const char *const *env, HostileResult *r,
                     ...) G_GNUC_NULL_TERMINATED;

/* Asserts status and exactly one line on stderr, containing each of the
 * NULL-terminated needles. */
void hostile_assert_refused(const HostileResult *r, int status, ...) G_GNUC_NULL_TERMINATED;

/* Each file of cases registers its own. */
void hostile_register_output(void);
void hostile_register_platform(void);
void hostile_register_signals(void);
void hostile_register_jobs_and_results(void);
void hostile_register_memory(void);
void hostile_register_small(void);
