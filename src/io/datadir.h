/* Where lbsim's shared data are: the platforms and the scenarios (papers'
 * experiments among them), and its documentation, whether lbsim runs from
 * its build directory or from an installed prefix. */
#pragma once

#include <glib.h>

/* The data directory, which holds platforms/ and scenarios/, in this
 * order: $LBSIM_DATA_DIR; the installed one, DATADIR/lbsim of the prefix
 * the library (or the program that links it statically) sits in, found
 * from its own path, so that a moved prefix still works; the source tree
 * lbsim was built from, when it still exists. NULL when there is none. */
const char *lb_data_dir(void);

/* The documentation's folder, which holds reference/ and tutorial.md:
 * DATADIR/doc/lbsim/docs of the prefix lbsim is installed in (found as the
 * data directory is), or docs/ of the source tree lbsim was built from.
 * NULL when there is none. */
const char *lb_doc_dir(void);

/* A file of the data directory ("platforms", "hypercube-4.xml"), or NULL
 * when there is no data directory. */
char *lb_data_file(const char *first, ...) G_GNUC_NULL_TERMINATED;
