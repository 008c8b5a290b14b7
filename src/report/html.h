/* The report: one self-contained HTML page (DIR/index.html: no script, no
 * network; its charts are inline SVG) made from lbsim's JSON, either a
 * run's (lbsim run -o) or a sweep's, with every chart's numbers as CSV
 * and as a standalone SVG file beside it. A folder holds one report; its
 * files are listed in DIR/lbsim-report.ini, so that a report that replaces
 * another removes what the new one does not rewrite. */
#pragma once

#include <glib.h>

#include "report/plots.h"
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
  LbPlotValueScale chart_scale; /* the value axes of the lines charts (--chart-scale) */
  guint chart_formats;          /* each chart's files besides its SVG: LbFigureFormat bits */
  LbFigureLook look;            /* the charts' files for print (the page's stay as they are) */
} LbHtmlOptions;

/* Writes the page, its CSV and SVG files, the JSON and the list of files,
 * then removes the files of the report it replaces that it did not write. */
gboolean lb_html_write(const LbResults *results, const LbHtmlOptions *options, GError **error);

/* A point of a figure's chart: the quantity it is of (a series: the
 * paper's lines and lbsim's of one quantity share its name and style),
 * its processors, and the paper's number there or lbsim's (NAN: none).
 * A claim of several points has lbsim's points and the paper's bounds as
 * lines of their own (line 0 and 1: the least and the most). */
typedef struct {
  const char *series;
  guint ranks;
  double paper, lbsim;
  guint line;
} LbFigurePoint;

/* A claim of a paper beside lbsim's number (lbsim reproduce --report), or
 * a diagnostic (lbsim's own number: no paper, no rule). */
typedef struct {
  const char *id, *text, *unit, *rule, *note;
  const char *figure;          /* the chart it is on (x: processors), or NULL */
  const LbFigurePoint *points; /* its points on that chart */
  guint npoints;
  guint ranks;
  double paper, lbsim;
  gboolean done, agrees, headline, diagnostic;
  const char *status;     /* "agrees", "disagrees", "known", "not run", "failed", ... */
  const char *words;      /* the paper's words (headline claims), or NULL */
  const char *known;      /* why it is a known disagreement, or NULL */
  const char *calibrated; /* the calibration fitted to it, or NULL */
  const char *detail;     /* a check's worked example (lines), or NULL */
} LbClaimRow;

typedef struct {
  const char *key, *value, *source;
} LbCalibrationRow;

/* The headline claims' tally (see lbsim reproduce's scorecard). */
typedef struct {
  guint headline, reproduced, not_reproduced, known, not_evaluated, failed, calibrated;
  guint claims, evaluated, agreeing, stale;
} LbScorecardRow;

typedef struct {
  const char *key, *cite, *summary;
  const char *quick;   /* what the quick form ran, or NULL for the full form */
  const char *changed; /* the --set overrides the runs had, or NULL */
  const LbScorecardRow *scorecard;
  const LbClaimRow *claims; /* the claims, then the diagnostics */
  guint nclaims;
  const LbCalibrationRow *calibration;
  guint ncalibration;
  const char *deep;        /* what the deep form ran at the paper's scale, or NULL */
  const char *only;        /* --only's runs ("amr64, no-dlb"), or NULL: every run */
  const char *not_run_why; /* why claims were not evaluated: " (quick form)", or "" */
} LbReproduction;

/* A reproduction's page in options->dir (checked with
 * lb_html_check_folder, kind "reproduction"): its claims as a table, and
 * one chart per figure of the paper's and lbsim's numbers against the
 * processors, each with its CSV and SVG; options->json is the document of
 * lbsim reproduce --json, kept beside it. */
gboolean lb_html_write_reproduction(const LbReproduction *rep, const LbHtmlOptions *options,
                                    GError **error);
