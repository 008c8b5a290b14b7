/* The temporary files and folders lbsim makes (an output being written,
 * the private folders of a run), registered while they exist so that a
 * stop signal can remove them before the process ends. */
#pragma once

#include <glib.h>

/* g_mkstemp_full() and g_dir_make_tmp(), the file or folder registered
 * at once. */
int lb_temporary_mkstemp(char *tmpl, int flags, int mode);
char *lb_temporary_make_dir(const char *tmpl, GError **error);
/* path is gone, or kept on purpose: no longer registered. */
void lb_temporary_forget(const char *path);

/* A file, or a folder with everything in it (symbolic links not
 * followed). */
void lb_temporary_remove_tree(const char *path);

/* Removes every registered file and folder (a folder with everything in
 * it); nothing is registered after it, by any thread: for a process
 * about to end. */
void lb_temporary_remove_all(void);
/* In a child just forked: the paths registered are its parent's, to
 * keep; the lock starts afresh (the fork may have caught another thread
 * holding it). */
void lb_temporary_reset_in_child(void);
