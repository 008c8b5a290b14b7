/* What the report's pages share (html-page.c): the folder's manifest, HTML
 * and CSV text, the files a page writes and its charts; each page is a
 * file of its own (html-run.c, html-sweep.c, html-reproduction.c). Only
 * those files include it. */
#pragma once

#include <glib.h>

#include "metrics/summary.h"
#include "report/html.h"
#include "report/plots.h"
#include "report/results.h"
#include "report/style.h"

#define MANIFEST "lbsim-report.ini"
#define PAGE "index.html"

typedef struct {
  char *kind, *name, *json_sha256;
  gboolean pictures_drawn; /* the run of that JSON drew its pictures in the folder */
  char **files;
} Manifest;

static inline void
manifest_clear(Manifest *m)
{
  g_free(m->kind);
  g_free(m->name);
  g_free(m->json_sha256);
  g_strfreev(m->files);
}

G_DEFINE_AUTO_CLEANUP_CLEAR_FUNC(Manifest, manifest_clear)

typedef struct {
  const LbResults *doc; /* NULL for a reproduction's page */
  const char *kind, *name, *version;
  const char *json; /* the text it was read from */
  gsize length;
  const char *dir;
  GPtrArray *files; /* base names written, in order */
  LbPlotValueScale chart_scale;
  guint chart_formats;      /* the charts' files besides their SVG (LbFigureFormat) */
  const LbFigureLook *look; /* the charts' files' size and text */
  LbStyles *styles;         /* of the names the page's charts show */
} Out;

static inline void
out_clear(Out *o)
{
  lb_styles_free(o->styles);
}

G_DEFINE_AUTO_CLEANUP_CLEAR_FUNC(Out, out_clear)

/* The folder's lbsim-report.ini (what made it, the files it wrote), if any. */
gboolean lb_page_manifest_load(const char *dir, Manifest *m);

/* text escaped for HTML; a number as the CSV and data attributes write it
 * (nothing when not finite), after a comma. */
void lb_page_esc(GString *out, const char *text);

void lb_page_number(GString *out, double v);

void lb_page_csv_number(GString *out, double v);

/* NAME.WHAT.EXT, as the pictures' files are named (lb_figure_file). */
char *lb_page_file_name(const char *name, const char *what, const char *ext);

/* A file name as a relative link, escaped as a URI's path. */
char *lb_page_href(const char *base);

/* <a href="base">text</a>. */
void lb_page_put_link(GString *out, const char *base, const char *text);

/* A table cell that shows text and carries the JSON's number. */
void lb_page_value_cell(GString *out, const char *key, double v, const char *text);

/* The terminal writes no time as a bare 0; the page gives it its unit. */
char *lb_page_with_unit(char *text, const char *unit);

/* The run's declared metric of a JSON name, or NULL. */
const LbMetricDef *lb_page_declared(const LbRunResult *r, const char *json_name, double *value);

/* A summary field's value, NAN when it does not apply to the run. */
double lb_page_summary_value(const LbSummaryField *f, const LbRunResult *r);

/* The summary's fields of the terminal's table, as it writes them. */
void lb_page_summary_cells(GString *out, const LbRunResult *r);

/* The table's header cells of the summary's fields. */
void lb_page_summary_head(GString *out);

/* The CSV's head of the summary's fields, and a run's values. */
void lb_page_summary_csv_head(GString *csv);

void lb_page_summary_csv_values(GString *csv, const LbRunResult *r);

/* The page's head (style sheet, title) and its end (what made it, the
 * JSON beside it). */
void lb_page_page_start(GString *out, const char *version, const char *title);

void lb_page_page_end(GString *out, const char *version, const char *json_base);

/* A line of the facts list (fact_if: only when value is not NULL). */
void lb_page_fact(GString *out, const char *name, const char *value);

void lb_page_fact_if(GString *out, const char *name, const char *value);

/* A chart of the page, its names in their styles. */
LbPlot *lb_page_new_plot(Out *o, LbPlotKind kind, const char *id, const char *title);

/* A file of the report in its folder, listed in o->files. */
gboolean lb_page_put_file(Out *o, const char *base, const char *text, gsize length, GError **error);

/* A chart in the page, and beside it as an SVG file (and PNG and PDF as
 * --picture-format asks, the files at --figure-size's size) and its
 * numbers as CSV. */
gboolean lb_page_put_chart(Out *o, GString *page, LbPlot *plot, const char *what,
                           const char *caption, const GString *csv, GError **error);

/* The body of a run's page (html-run.c) and of a sweep's (html-sweep.c),
 * with the balancers a sweep ran. */
gboolean lb_page_run_page(Out *o, GString *out, const char *pictures_dir, gboolean drawn,
                          gboolean local, const char *json_base, GError **error);

GPtrArray *lb_page_sweep_balancers(const LbResults *doc);

gboolean lb_page_sweep_page(Out *o, GString *out, const char *json_base, GError **error);

/* lbsim-report.ini: the kind and name of the report, the JSON's digest,
 * every file written. */
gboolean lb_page_write_manifest(Out *o, const char *json_base, gboolean pictures_drawn,
                                GError **error);

/* Whether two paths name one file (both exist). */
gboolean lb_page_same_file(const char *a, const char *b);

/* The files of the report replaced that this one did not write: only
 * plain names the old list holds, never the JSON just read. */
void lb_page_remove_stale(Out *o, const Manifest *old, const char *source);
