/* The report: one self-contained HTML page (DIR/index.html: no script, no
 * network; its charts are inline SVG) made from lbsim's JSON, either a
 * run's (lbsim run -o) or a sweep's, with every chart's numbers as CSV
 * and as a standalone SVG file beside it. A folder holds one report; its
 * files are listed in DIR/lbsim-report.ini, so that a report that replaces
 * another removes what the new one does not rewrite. */
#pragma once

#include <glib.h>

#include "report/results.h"

#define LB_HTML_ERROR (lb_html_error_quark())
GQuark lb_html_error_quark(void);

typedef enum {
  LB_HTML_ERROR_FOLDER, /* the folder holds another report */
  LB_HTML_ERROR_OUTPUT, /* a file could not be written */
} LbHtmlError;

/* Before anything is written: can dir (option names it in messages) take
 * the report of this kind and scenario? A missing folder whose parent can
 * be written will be made (*make). A folder that holds the report of
 * another scenario or kind, or an index.html not made by lbsim, is
 * refused unless force. */
gboolean lb_html_check_folder(const char *dir, const char *option, const char *kind,
                              const char *name, gboolean force, gboolean *make, GError **error);

typedef struct {
  const char *json; /* the text the results were read from (lb_results_read) */
  gsize length;
  const char *dir; /* exists */
  /* Where the run's pictures (SCENARIO.BALANCER.partition|grids|curve.svg)
   * are; NULL: in dir, if the report there was made from the same JSON. */
  const char *pictures_dir;
  /* The JSON file the document was read from, or NULL; its text goes to
   * DIR/SCENARIO.run.json (or .sweep.json) unless it is that file. */
  const char *source;
} LbHtmlOptions;

/* Writes the page, its CSV and SVG files, the JSON and the list of files,
 * then removes the files of the report it replaces that it did not write. */
gboolean lb_html_write(const LbResults *results, const LbHtmlOptions *options, GError **error);
