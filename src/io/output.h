/* Every file lbsim writes goes through here, under one set of rules:
 *
 * - A new path, or an existing regular file (after symlinks), is written
 *   to a temporary file in the same folder, flushed to disk and renamed
 *   over it: readers see the old file or the new one, and a failure
 *   mid-write leaves the old file as it was and no temporary file.
 * - A character or block device, a FIFO or a socket is opened and written
 *   in place: never renamed over, truncated by a rename or unlinked.
 * - Anything else is an input error found by lb_output_check before
 *   anything runs: a folder where a file is wanted, a missing parent
 *   folder, a path under /proc or /sys, a dangling symlink into a missing
 *   folder, a folder that cannot be written.
 * - "-" is standard output where a command documents it.
 *
 * Before anything runs a command also lists its inputs and outputs in an
 * LbFileSet: no output may be an input, and no two outputs one file
 * (compared by device and inode where the file exists, by resolved path
 * where it does not). */
#pragma once

#include <glib.h>
#include <stdio.h>

/* Can path be written under the rules above? option names the path in
 * the error ("--json"). */
gboolean lb_output_check(const char *option, const char *path, GError **error);

/* A folder outputs go into: an existing folder that can be written, or a
 * new one whose parent can (*make then says so: the caller makes it once
 * every check has passed). */
gboolean lb_output_check_folder(const char *option, const char *dir, gboolean *make,
                                GError **error);

/* Makes a folder lb_output_check_folder said to make. */
gboolean lb_output_make_folder(const char *option, const char *dir, GError **error);

/* A name as it goes into a file's name that lbsim makes of it (a run
 * label, a scenario's name): a label's ':' (NAME:VARIANT) written '+',
 * which scp, make and Windows take as it is, and a '/' written '_'. No
 * other character changes, and the labels inside the results stay as
 * they are. */
#define LB_OUTPUT_LABEL_SEPARATOR '+'
char *lb_output_file_part(const char *name);

/* Writes text (length bytes; -1: up to its NUL) to path by the rules. */
gboolean lb_output_write(const char *path, const char *text, gssize length, GError **error);

/* A file written as a stream: lb_output_open, then write to
 * lb_output_stream, then lb_output_commit (or lb_output_abort). */
typedef struct LbOutput LbOutput;

LbOutput *lb_output_open(const char *path, GError **error);
FILE *lb_output_stream(LbOutput *out);
/* Flushes, checks every write, closes and puts the file in place; frees
 * out either way. */
gboolean lb_output_commit(LbOutput *out, GError **error);
/* Drops what was written (the old file stays); frees out. NULL is fine. */
void lb_output_abort(LbOutput *out);
G_DEFINE_AUTOPTR_CLEANUP_FUNC(LbOutput, lb_output_abort)

/* Moves the file at from (written by lbsim in a private folder) to path
 * by the rules: renamed when it can be, else copied. from is removed. */
gboolean lb_output_move(const char *from, const char *path, GError **error);

/* Writes to standard output and checks the write: FALSE with errno set
 * when it failed (a full device, a closed pipe). */
gboolean lb_output_stdout(const char *text);
/* Writes text to path by the rules (lb_output_write), or to standard
 * output, flushed and checked, when path is "-". */
gboolean lb_output_text(const char *path, const char *text, GError **error);
/* Flushes and checks standard output at the end of a command: 0, or 1
 * after printing one line saying why. */
int lb_output_stdout_close(void);

/* ---- inputs and outputs of one command ---- */

typedef struct LbFileSet LbFileSet;

LbFileSet *lb_file_set_new(void);
void lb_file_set_free(LbFileSet *set);
G_DEFINE_AUTOPTR_CLEANUP_FUNC(LbFileSet, lb_file_set_free)

/* A file the command reads; what names it in errors ("the scenario"). */
void lb_file_set_input(LbFileSet *set, const char *what, const char *path);

/* A file the command writes: FALSE when it is one of the inputs or
 * another output (the error names both). Devices may be written by
 * several outputs (two outputs to /dev/null lose nothing). */
gboolean lb_file_set_output(LbFileSet *set, const char *what, const char *path, GError **error);
