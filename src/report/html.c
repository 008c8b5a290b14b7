/* The report page: it renders the results read back from lbsim's JSON
 * (report/results.h), never those a run holds, so that lbsim run --report
 * and lbsim report FILE.json make the same page out of the same numbers. */
#include "report/html.h"

#include <errno.h>
#include <math.h>
#include <string.h>
#include <glib/gstdio.h>
#include <unistd.h>

#include "io/output.h"
#include "lbsim/balancer.h"
#include "lbsim/scenario.h"
#include "report/pictures.h"
#include "report/plots.h"
#include "metrics/summary.h"
#include "report/report.h"
#include "report/results.h"

/* the quark's name is the macro's text, spaces and all */
/* clang-format off */
G_DEFINE_QUARK(lb-html-error-quark, lb_html_error)
/* clang-format on */

#define MANIFEST "lbsim-report.ini"
#define PAGE "index.html"

/* ---- the folder ---- */

typedef struct {
  char *kind, *name, *json_sha256;
  gboolean pictures_drawn; /* the run of that JSON drew its pictures in the folder */
  char **files;
} Manifest;

static void
manifest_clear(Manifest *m)
{
  g_free(m->kind);
  g_free(m->name);
  g_free(m->json_sha256);
  g_strfreev(m->files);
}

G_DEFINE_AUTO_CLEANUP_CLEAR_FUNC(Manifest, manifest_clear)

static gboolean
manifest_load(const char *dir, Manifest *m)
{
  g_autofree char *path = g_build_filename(dir, MANIFEST, NULL);
  g_autoptr(GKeyFile) kf = g_key_file_new();
  if (!g_key_file_load_from_file(kf, path, G_KEY_FILE_NONE, NULL))
    return FALSE;
  m->kind = g_key_file_get_string(kf, "report", "kind", NULL);
  m->name = g_key_file_get_string(kf, "report", "name", NULL);
  m->json_sha256 = g_key_file_get_string(kf, "report", "json-sha256", NULL);
  m->files = g_key_file_get_string_list(kf, "report", "files", NULL, NULL);
  m->pictures_drawn = g_key_file_get_boolean(kf, "report", "pictures-drawn", NULL);
  return m->kind != NULL && m->name != NULL;
}

static gboolean
folder_error(GError **error, const char *option, const char *dir, int errsv)
{
  g_set_error(error, LB_HTML_ERROR, LB_HTML_ERROR_OUTPUT, "%s %s: cannot write: %s", option, dir,
              g_strerror(errsv));
  return FALSE;
}

gboolean
lb_html_check_folder(const char *dir, const char *option, const char *kind, const char *name,
                     gboolean force, gboolean *make, GError **error)
{
  GStatBuf st;
  *make = FALSE;
  if (*dir == '\0')
    return folder_error(error, option, dir, ENOENT);
  if (g_stat(dir, &st) != 0) {
    if (errno != ENOENT)
      return folder_error(error, option, dir, errno);
    g_autofree char *trimmed = g_strdup(dir);
    for (gsize n = strlen(trimmed); n > 1 && trimmed[n - 1] == '/'; n--)
      trimmed[n - 1] = '\0';
    g_autofree char *parent = g_path_get_dirname(trimmed);
    if (g_access(parent, W_OK | X_OK) != 0)
      return folder_error(error, option, dir, errno);
    *make = TRUE;
    return TRUE;
  }
  if (!S_ISDIR(st.st_mode))
    return folder_error(error, option, dir, ENOTDIR);
  if (g_access(dir, W_OK | X_OK) != 0)
    return folder_error(error, option, dir, errno);
  if (force)
    return TRUE;
  g_auto(Manifest) m = {0};
  if (manifest_load(dir, &m)) {
    if (strcmp(m.kind, kind) == 0 && strcmp(m.name, name) == 0)
      return TRUE;
    g_set_error(error, LB_HTML_ERROR, LB_HTML_ERROR_FOLDER,
                "%s %s: holds the report of the %s of %s, not of the %s of %s: give another "
                "folder, or --force to replace it",
                option, dir, m.kind, m.name, kind, name);
    return FALSE;
  }
  g_autofree char *page = g_build_filename(dir, PAGE, NULL);
  if (g_file_test(page, G_FILE_TEST_EXISTS)) {
    g_set_error(error, LB_HTML_ERROR, LB_HTML_ERROR_FOLDER,
                "%s %s: its %s was not written by lbsim: give another folder, or --force to "
                "replace it",
                option, dir, PAGE);
    return FALSE;
  }
  return TRUE;
}

/* ---- text ---- */

static void
esc(GString *out, const char *text)
{
  if (text == NULL)
    return;
  g_autofree char *e = g_markup_escape_text(text, -1);
  g_string_append(out, e);
}

static void
number(GString *out, double v)
{
  char buf[G_ASCII_DTOSTR_BUF_SIZE];
  if (isfinite(v))
    g_string_append(out, g_ascii_formatd(buf, sizeof buf, "%.10g", v));
}

static void
csv_number(GString *out, double v)
{
  g_string_append_c(out, ',');
  number(out, v);
}

/* NAME.WHAT.EXT, as the pictures' files are named (lb_figure_file). */
static char *
file_name(const char *name, const char *what, const char *ext)
{
  g_autofree char *path = lb_figure_file("", name, what, ext);
  return g_path_get_basename(path);
}

/* A file name as a relative link, escaped as a URI's path. */
static char *
href(const char *base)
{
  return g_uri_escape_string(base, "+", FALSE);
}

static void
put_link(GString *out, const char *base, const char *text)
{
  g_autofree char *h = href(base);
  g_string_append_printf(out, "<a href=\"%s\">", h);
  esc(out, text);
  g_string_append(out, "</a>");
}

/* A table cell that shows text and carries the JSON's number. */
static void
value_cell(GString *out, const char *key, double v, const char *text)
{
  g_string_append(out, "<td data-key=\"");
  esc(out, key);
  g_string_append(out, "\" data-value=\"");
  number(out, v);
  g_string_append(out, "\">");
  g_autoptr(GString) shown = g_string_new(isfinite(v) ? text : "\xe2\x80\x93");
  /* a number and its unit stay on one line; the terminal's "us" is µs here */
  if (g_str_has_suffix(shown->str, " us"))
    g_string_replace(shown, " us", " \xc2\xb5s", 1);
  g_string_replace(shown, " ", "\xc2\xa0", 0);
  esc(out, shown->str);
  g_string_append(out, "</td>");
}

/* The terminal writes no time as a bare 0; the page gives it its unit. */
static char *
with_unit(char *text, const char *unit)
{
  if (strcmp(text, "0") != 0 || unit == NULL || strcmp(unit, "s") != 0)
    return text;
  g_free(text);
  return g_strdup("0 s");
}

/* The run's declared metric of a JSON name, or NULL. */
static const LbMetricDef *
declared(const LbRunResult *r, const char *json_name, double *value)
{
  for (guint i = 0; i < r->metric_defs->len; i++) {
    const LbMetricDef *d = &g_array_index(r->metric_defs, LbMetricDef, i);
    if (strcmp(d->json_name, json_name) == 0) {
      *value = r->metrics[i];
      return d;
    }
  }
  return NULL;
}

static double
summary_value(const LbSummaryField *f, const LbRunResult *r)
{
  double v = 0;
  return lb_summary_get(f, r, -1, &v) ? v : NAN; /* NAN: does not apply */
}

/* The summary's fields of the terminal's table, as it writes them. */
static void
summary_cells(GString *out, const LbRunResult *r)
{
  for (const LbSummaryField *f = lb_summary(); f->name != NULL; f++) {
    if (f->column == NULL)
      continue;
    g_autofree char *text = with_unit(lb_report_summary_text(f, r), f->unit);
    value_cell(out, f->json, summary_value(f, r), text);
  }
}

static void
summary_head(GString *out)
{
  for (const LbSummaryField *f = lb_summary(); f->name != NULL; f++) {
    if (f->column == NULL)
      continue;
    g_string_append(out, "<th scope=\"col\" title=\"");
    esc(out, f->help);
    g_string_append(out, "\">");
    esc(out, f->column);
    g_string_append(out, "</th>");
  }
}

/* The CSV's head of the summary's fields, and a run's values. */
static void
summary_csv_head(GString *csv)
{
  for (const LbSummaryField *f = lb_summary(); f->name != NULL; f++)
    if (f->csv)
      g_string_append_printf(csv, ",%s", f->json);
}

static void
summary_csv_values(GString *csv, const LbRunResult *r)
{
  for (const LbSummaryField *f = lb_summary(); f->name != NULL; f++)
    if (f->csv)
      csv_number(csv, summary_value(f, r));
}

static const char style_sheet[] =
    "body{font-family:sans-serif;color:#202020;background:#f6f6f4;margin:0}\n"
    "main{max-width:1200px;margin:0 auto;padding:8px 24px 32px;background:#fff}\n"
    "h1{font-size:1.6em;margin:16px 0 4px}h2{font-size:1.25em;margin:28px 0 8px;"
    "border-bottom:1px solid #ddd;padding-bottom:4px}h3{font-size:1.05em;margin:20px 0 6px}\n"
    "p.lead{color:#505050;margin:0 0 12px}nav a{margin-right:14px}\n"
    "table{border-collapse:collapse;margin:6px 0;font-size:0.92em}\n"
    "th,td{border:1px solid #d8d8d8;padding:3px 8px}thead th{background:#eef1f5}\n"
    "table.numbers td{text-align:right;font-variant-numeric:tabular-nums;white-space:nowrap}\n"
    "table.numbers th{white-space:nowrap}div.wide{overflow-x:auto;max-width:100%}\n"
    "table.numbers td.text{text-align:left;white-space:normal;min-width:16em}\n"
    "div.wide tbody th{position:sticky;left:0;background:#f4f6f8}table#metrics{font-size:0.8em}\n"
    "tbody th{text-align:left}table.facts th{background:#f4f4f4}\n"
    "tbody tr:nth-child(even){background:#fafafa}\n"
    "figure{margin:10px 0 18px}figure svg,figure img{max-width:100%;height:auto;display:block;"
    "border:1px solid #e4e4e4}\n"
    "figcaption{font-size:0.9em;color:#505050;margin-top:4px}\n"
    "div.pictures{display:grid;grid-template-columns:repeat(auto-fit,minmax(520px,1fr));"
    "gap:12px}\n"
    "svg.swatch{vertical-align:middle;margin-right:4px}\n"
    "p.files,p.note{font-size:0.9em;color:#505050}td.error{text-align:left;color:#a00000}\n"
    ".known,.known th{color:#b00000}blockquote{margin:2px 0 8px 18px;color:#404040;"
    "font-style:italic}\n"
    "footer{font-size:0.85em;color:#707070;margin-top:32px;border-top:1px solid #ddd;"
    "padding-top:8px}\n";

static void
page_start(GString *out, const char *version, const char *title)
{
  g_string_append(out,
                  "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
                  "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n");
  g_string_append_printf(out, "<meta name=\"generator\" content=\"lbsim ");
  esc(out, version);
  g_string_append(out, "\">\n<title>");
  esc(out, title);
  g_string_append_printf(out,
                         " \xc2\xb7 lbsim report</title>\n<style>\n%s</style>\n</head>\n"
                         "<body>\n<main>\n",
                         style_sheet);
}

static void
page_end(GString *out, const char *version, const char *json_base)
{
  g_string_append(out, "<footer>Made by lbsim ");
  esc(out, version);
  g_string_append(out, " from ");
  put_link(out, json_base, json_base);
  g_string_append(out, ". This page needs no network and runs no script: its charts are SVG "
                       "inside it, and the numbers of each chart are in the CSV file linked "
                       "under it.</footer>\n</main>\n</body>\n</html>\n");
}

static void
fact(GString *out, const char *name, const char *value)
{
  g_string_append_printf(out, "<tr><th scope=\"row\">%s</th><td>", name);
  esc(out, value);
  g_string_append(out, "</td></tr>\n");
}

static void
fact_if(GString *out, const char *name, const char *value)
{
  if (value != NULL)
    fact(out, name, value);
}

/* ---- the files a report writes ---- */

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

static void
out_clear(Out *o)
{
  lb_styles_free(o->styles);
}

G_DEFINE_AUTO_CLEANUP_CLEAR_FUNC(Out, out_clear)

/* A chart of the page, its names in their styles. */
static LbPlot *
new_plot(Out *o, LbPlotKind kind, const char *id, const char *title)
{
  LbPlot *plot = lb_plot_new(kind, id, title);
  lb_plot_styles(plot, o->styles);
  return plot;
}

static gboolean
put_file(Out *o, const char *base, const char *text, gsize length, GError **error)
{
  g_autofree char *path = g_build_filename(o->dir, base, NULL);
  g_autoptr(GError) local = NULL;
  if (!lb_output_write(path, text, (gssize)length, &local)) {
    g_set_error(error, LB_HTML_ERROR, LB_HTML_ERROR_OUTPUT, "cannot write %s: %s", path,
                local->message);
    return FALSE;
  }
  g_ptr_array_add(o->files, g_strdup(base));
  return TRUE;
}

/* A chart in the page, and beside it as an SVG file (and PNG and PDF as
 * --picture-format asks, the files at --figure-size's size) and its
 * numbers as CSV. */
static gboolean
put_chart(Out *o, GString *page, LbPlot *plot, const char *what, const char *caption,
          const GString *csv, GError **error)
{
  lb_plot_value_scale(plot, o->chart_scale);
  g_autofree char *inline_svg = lb_plot_svg(plot, FALSE);
  lb_plot_look(plot, o->look, LB_PLOT_WIDTH, LB_PLOT_FONT);
  g_autofree char *csv_base = file_name(o->name, what, "csv");
  if (!put_file(o, csv_base, csv->str, csv->len, error))
    return FALSE;
  g_autoptr(GString) links = g_string_new(NULL);
  for (guint f = 0; f < LB_FIGURE_FORMATS; f++) {
    LbFigureFormat format = 1u << f;
    if (format != LB_FIGURE_SVG && !(o->chart_formats & format))
      continue;
    const char *ext = lb_figure_format_ext(format);
    g_autofree char *base = file_name(o->name, what, ext);
    g_autofree char *path = g_build_filename(o->dir, base, NULL);
    g_autoptr(GBytes) bytes = NULL;
    if (format == LB_FIGURE_SVG) {
      char *svg = lb_plot_svg(plot, TRUE);
      bytes = g_bytes_new_take(svg, strlen(svg));
    } else {
      bytes = lb_plot_figure((const LbPlot *const *)&plot, 1, format, 0, path, error);
    }
    gsize length = 0;
    const char *data = bytes != NULL ? g_bytes_get_data(bytes, &length) : NULL;
    if (bytes == NULL || !put_file(o, base, data, length, error))
      return FALSE;
    g_string_append(links, links->len > 0 ? " \xc2\xb7 " : "");
    put_link(links, base, base);
  }
  g_string_append_printf(page, "<figure>\n%s<figcaption>", inline_svg);
  esc(page, caption);
  g_string_append(page, " Numbers: ");
  put_link(page, csv_base, csv_base);
  g_string_append_printf(page, " \xc2\xb7 chart: %s</figcaption>\n</figure>\n", links->str);
  return TRUE;
}

/* ---- a run's page ---- */

static void
run_header(GString *out, const LbResults *doc)
{
  const LbRunResult *first = doc->runs->pdata[0];
  g_string_append(out, "<header>\n<h1>");
  esc(out, doc->name);
  g_string_append(out, "</h1>\n<p class=\"lead\">");
  g_autoptr(GString) lead = g_string_new(NULL);
  g_string_append_printf(lead, "%u balancer%s on %u rank%s", doc->runs->len,
                         doc->runs->len == 1 ? "" : "s", doc->ranks, doc->ranks == 1 ? "" : "s");
  if (first->model != NULL && *first->model != '\0')
    g_string_append_printf(lead, ", model %s", first->model);
  esc(out, lead->str);
  g_string_append(out, "</p>\n</header>\n<nav><a href=\"#summary-section\">Summary</a>"
                       "<a href=\"#imbalance-section\">Imbalance per step</a>"
                       "<a href=\"#phases-section\">Time per phase</a>"
                       "<a href=\"#pictures-section\">Partitions</a>"
                       "<a href=\"#metrics-section\">Declared metrics</a>"
                       "<a href=\"#balancers-section\">Balancers</a></nav>\n"
                       "<h2 id=\"setup-section\">Scenario</h2>\n<table class=\"facts\" "
                       "id=\"setup\">\n");
  fact(out, "scenario", doc->name);
  fact_if(out, "scenario file", doc->scenario_file);
  fact_if(out, "platform", doc->platform);
  fact_if(out, "hosts", doc->hosts);
  fact_if(out, "background traffic", doc->background);
  g_autofree char *ranks = g_strdup_printf("%u", doc->ranks);
  fact(out, "ranks", ranks);
  fact_if(out, "model", doc->model);
  fact_if(out, "work units", doc->elements);
  fact_if(out, "adaptation steps", doc->steps);
  fact_if(out, "seed", doc->seed);
  fact(out, "lbsim", doc->version);
  g_string_append(out, "</table>\n");
}

static void
summary_csv(GString *csv, GPtrArray *runs, GPtrArray *metric_names)
{
  g_string_append(csv, "balancer");
  summary_csv_head(csv);
  for (guint m = 0; m < metric_names->len; m++)
    g_string_append_printf(csv, ",%s", (char *)metric_names->pdata[m]);
  g_string_append_c(csv, '\n');
  for (guint i = 0; i < runs->len; i++) {
    const LbRunResult *r = runs->pdata[i];
    lb_report_csv_text(csv, r->balancer);
    summary_csv_values(csv, r);
    for (guint m = 0; m < metric_names->len; m++) {
      double v;
      if (declared(r, metric_names->pdata[m], &v) != NULL)
        csv_number(csv, v);
      else
        g_string_append_c(csv, ',');
    }
    g_string_append_c(csv, '\n');
  }
}

/* Every declared metric of any run but schedule_steps (a column of the
 * summary), in first-seen order. */
static GPtrArray *
metric_names(GPtrArray *runs)
{
  GPtrArray *names = g_ptr_array_new();
  for (guint i = 0; i < runs->len; i++) {
    const LbRunResult *r = runs->pdata[i];
    for (guint k = 0; k < r->metric_defs->len; k++) {
      const char *name = g_array_index(r->metric_defs, LbMetricDef, k).json_name;
      if (strcmp(name, "schedule_steps") != 0 &&
          !g_ptr_array_find_with_equal_func(names, name, g_str_equal, NULL))
        g_ptr_array_add(names, (gpointer)name);
    }
  }
  return names;
}

static gboolean
run_summary(Out *o, GString *out, GError **error)
{
  const LbResults *doc = o->doc;
  g_string_append(out,
                  "<h2 id=\"summary-section\">Summary</h2>\n<p>One row per balancer, as "
                  "<code>lbsim run</code> prints it: imbalances are means over the "
                  "adaptation steps, the rest sums.</p>\n<div class=\"wide\"><table "
                  "class=\"numbers\" id=\"summary\">\n<thead><tr><th scope=\"col\">balancer</th>");
  summary_head(out);
  g_string_append(out, "</tr></thead>\n<tbody>\n");
  for (guint i = 0; i < doc->runs->len; i++) {
    const LbRunResult *r = doc->runs->pdata[i];
    g_string_append(out, "<tr data-balancer=\"");
    esc(out, r->balancer);
    /* its style on the charts */
    g_autofree char *swatch = lb_plot_swatch(lb_styles_index(o->styles, r->balancer));
    g_string_append_printf(out, "\"><th scope=\"row\">%s ", swatch);
    esc(out, r->balancer);
    g_string_append(out, "</th>");
    summary_cells(out, r);
    g_string_append(out, "</tr>\n");
  }
  g_string_append(out, "</tbody>\n</table></div>\n<p class=\"files\">Numbers, with every "
                       "declared metric: ");
  g_autoptr(GPtrArray) names = metric_names(doc->runs);
  g_autoptr(GString) csv = g_string_new(NULL);
  summary_csv(csv, doc->runs, names);
  g_autofree char *csv_base = file_name(doc->name, "summary", "csv");
  put_link(out, csv_base, csv_base);
  g_string_append(out, "</p>\n");
  return put_file(o, csv_base, csv->str, csv->len, error);
}

static void
run_metrics(GString *out, const LbResults *doc)
{
  g_autoptr(GPtrArray) names = metric_names(doc->runs);
  g_autofree char *csv_base = file_name(doc->name, "summary", "csv");
  g_string_append(out,
                  "<h2 id=\"metrics-section\">Declared metrics</h2>\n<p>What each balancer "
                  "(and the application step) declares besides the summary; a dash where a "
                  "balancer has no such metric.</p>\n<div class=\"wide\"><table "
                  "class=\"numbers\" id=\"metrics\">\n<thead><tr><th scope=\"col\">metric</th>");
  for (guint i = 0; i < doc->runs->len; i++) {
    g_string_append(out, "<th scope=\"col\">");
    esc(out, ((const LbRunResult *)doc->runs->pdata[i])->balancer);
    g_string_append(out, "</th>");
  }
  g_string_append(out, "</tr></thead>\n<tbody>\n");
  for (guint m = 0; m < names->len; m++) {
    const char *name = names->pdata[m];
    g_autoptr(GString) cells = g_string_new(NULL);
    g_autofree char *help = NULL;
    for (guint i = 0; i < doc->runs->len; i++) {
      const LbRunResult *r = doc->runs->pdata[i];
      double v;
      const LbMetricDef *d = declared(r, name, &v);
      if (d == NULL) {
        g_string_append(cells, "<td>-</td>");
        continue;
      }
      if (help == NULL)
        help = g_strdup(d->help);
      g_autofree char *text = with_unit(lb_report_metric_value(d, v), d->unit);
      value_cell(cells, name, v, text);
    }
    g_string_append(out, "<tr data-metric=\"");
    esc(out, name);
    g_string_append(out, "\"><th scope=\"row\"");
    if (help != NULL) {
      g_string_append(out, " title=\"");
      esc(out, help);
      g_string_append(out, "\"");
    }
    g_string_append(out, ">");
    esc(out, name);
    g_string_append_printf(out, "</th>%s</tr>\n", cells->str);
  }
  g_string_append(out, "</tbody>\n</table></div>\n<p class=\"files\">Numbers: ");
  put_link(out, csv_base, csv_base);
  g_string_append(out, "</p>\n");
}

/* The points of a line of the steps' imbalances (before or after
 * balancing) that have a value (lbsim writes null for none). */
static void
finite_points(const LbRunResult *r, gboolean after, GArray *xs, GArray *ys)
{
  for (guint s = 0; s < r->nadaptations; s++) {
    const LbAdaptationResult *a = &r->adaptations[s];
    double v = after ? a->imbalance_after : a->imbalance_before, x = s;
    if (!isfinite(v))
      continue;
    g_array_append_val(xs, x);
    g_array_append_val(ys, v);
  }
}

/* A close-up of the imbalance after balancing, without the balancers
 * that dwarf the rest (lb_plot_dwarfs). Its lines keep their styles; there
 * is none when no balancer or all but one would go. */
static gboolean
run_imbalance_close(Out *o, GString *out, GError **error)
{
  const LbResults *doc = o->doc;
  guint n = doc->runs->len;
  g_autofree double *excess = g_new0(double, MAX(n, 1));
  for (guint i = 0; i < n; i++) {
    const LbRunResult *r = doc->runs->pdata[i];
    for (guint s = 0; s < r->nadaptations; s++)
      if (isfinite(r->adaptations[s].imbalance_after))
        excess[i] = MAX(excess[i], r->adaptations[s].imbalance_after - 1);
  }
  g_autofree gboolean *left_out = lb_plot_dwarfs(excess, n);
  if (left_out == NULL)
    return TRUE;
  g_autoptr(GString) left = g_string_new(NULL);
  for (guint i = 0; i < n; i++)
    if (left_out[i])
      g_string_append_printf(left, "%s%s", left->len ? ", " : "",
                             ((const LbRunResult *)doc->runs->pdata[i])->balancer);
  g_autoptr(LbPlot) plot =
      new_plot(o, LB_PLOT_LINES, "imbalance-close", "Imbalance after balancing, close up");
  lb_plot_x_axis(plot, "adaptation step", LB_PLOT_INTEGER, NULL);
  lb_plot_value_axis(plot, "imbalance after balancing (max/avg load)", 1, FALSE);
  g_autoptr(GString) csv = g_string_new("balancer,step,imbalance_after\n");
  for (guint i = 0; i < n; i++) {
    const LbRunResult *r = doc->runs->pdata[i];
    if (left_out[i])
      continue;
    lb_plot_series(plot, r->balancer);
    g_autoptr(GArray) xs = g_array_new(FALSE, FALSE, sizeof(double));
    g_autoptr(GArray) ys = g_array_new(FALSE, FALSE, sizeof(double));
    finite_points(r, TRUE, xs, ys);
    lb_plot_line(plot, 0, xs->len, (double *)xs->data, (double *)ys->data);
    for (guint s = 0; s < r->nadaptations; s++) {
      lb_report_csv_text(csv, r->balancer);
      g_string_append_printf(csv, ",%u", s);
      csv_number(csv, r->adaptations[s].imbalance_after);
      g_string_append_c(csv, '\n');
    }
  }
  g_autofree char *caption = g_strdup_printf(
      "The imbalance after balancing of the balancers that stay near 1, on an axis made for "
      "them: %s, whose imbalance exceeds 1 by ten times the median balancer's or more, are "
      "left out (they are in the chart above).",
      left->str);
  return put_chart(o, out, plot, "imbalance-close", caption, csv, error);
}

static gboolean
run_imbalance(Out *o, GString *out, GError **error)
{
  const LbResults *doc = o->doc;
  g_autoptr(LbPlot) plot =
      new_plot(o, LB_PLOT_LINES, "imbalance-steps", "Imbalance per adaptation step");
  lb_plot_x_axis(plot, "adaptation step", LB_PLOT_INTEGER, NULL);
  lb_plot_value_axis(plot, "imbalance (max/avg load)", 1, FALSE);
  lb_plot_style(plot, 0, "after balancing");
  lb_plot_style(plot, 1, "before balancing");
  g_autoptr(GString) csv = g_string_new("balancer,step,imbalance_before,imbalance_after\n");
  for (guint i = 0; i < doc->runs->len; i++) {
    const LbRunResult *r = doc->runs->pdata[i];
    lb_plot_series(plot, r->balancer);
    for (guint l = 0; l < 2; l++) { /* before first: the line after balancing over it */
      g_autoptr(GArray) xs = g_array_new(FALSE, FALSE, sizeof(double));
      g_autoptr(GArray) ys = g_array_new(FALSE, FALSE, sizeof(double));
      finite_points(r, l == 1, xs, ys);
      lb_plot_line(plot, l == 0 ? 1 : 0, xs->len, (double *)xs->data, (double *)ys->data);
    }
    for (guint s = 0; s < r->nadaptations; s++) {
      lb_report_csv_text(csv, r->balancer);
      g_string_append_printf(csv, ",%u", s);
      csv_number(csv, r->adaptations[s].imbalance_before);
      csv_number(csv, r->adaptations[s].imbalance_after);
      g_string_append_c(csv, '\n');
    }
  }
  g_string_append(out, "<h2 id=\"imbalance-section\">Imbalance per adaptation step</h2>\n");
  return put_chart(o, out, plot, "imbalance-steps",
                   "The largest rank's load over the mean load at every adaptation step: dashed "
                   "as the step found it (after the model's update), solid after the balancer's "
                   "work; 1 is perfect balance.",
                   csv, error) &&
         run_imbalance_close(o, out, error);
}

static gboolean
run_phases(Out *o, GString *out, GError **error)
{
  const LbResults *doc = o->doc;
  g_autoptr(LbPlot) plot =
      new_plot(o, LB_PLOT_BARS, "phase-times", "Time per phase, summed over the steps");
  lb_plot_value_axis(plot, "simulated time", 0, TRUE);
  /* a phase's fill is its name's place among every balancer's phases */
  g_autoptr(GPtrArray) keys = g_ptr_array_new_null_terminated(0, NULL, TRUE);
  for (const LbBalancer *const *b = lb_balancers(); *b != NULL; b++)
    for (const char *const *name = (*b)->phases; name != NULL && *name != NULL; name++)
      if (!g_ptr_array_find_with_equal_func(keys, *name, g_str_equal, NULL))
        g_ptr_array_add(keys, (gpointer)*name);
  lb_plot_segment_keys(plot, (const char *const *)keys->pdata);
  g_autoptr(GString) csv = g_string_new("balancer,phase,steps,messages,bytes,time\n");
  const LbSummaryField *balance = lb_summary_lookup("balance_time");
  for (guint i = 0; i < doc->runs->len; i++) {
    const LbRunResult *r = doc->runs->pdata[i];
    lb_plot_series(plot, r->balancer);
    double balanced = summary_value(balance, r);
    if (r->nphases > 0 && isfinite(balanced))
      lb_plot_mark(plot, balanced, "balance time (the summary's)");
    for (guint k = 0; k < r->nphases; k++) {
      const LbPhaseResult *p = &r->phases[k];
      lb_plot_segment(plot, p->name, isfinite(p->time) ? p->time : 0);
      lb_report_csv_text(csv, r->balancer);
      g_string_append_c(csv, ',');
      lb_report_csv_text(csv, p->name);
      csv_number(csv, p->rounds);
      csv_number(csv, (double)p->messages);
      csv_number(csv, p->bytes);
      csv_number(csv, p->time);
      g_string_append_c(csv, '\n');
    }
  }
  g_string_append(out, "<h2 id=\"phases-section\">Time per phase</h2>\n");
  return put_chart(o, out, plot, "phase-times",
                   "The simulated time of each of a balancer's phases, summed over the "
                   "adaptation steps, one bar per balancer (balancers without phases have "
                   "none). A phase's time is its slowest rank's, and the slowest rank is not "
                   "the same in every phase: a rank that finishes one phase early starts the "
                   "next early. So a bar, the sum of these maxima, can be longer than the "
                   "summary's balance column (the black mark), the slowest rank's whole "
                   "balancing; it is shorter where a balancer spends time outside its "
                   "phases.",
                   csv, error);
}

/* A cairo SVG inside the page: its ids (glyphs, clips, images) prefixed,
 * since every picture numbers its own from 1 and ids are the page's. */
static void
inline_picture(GString *out, const char *svg, const char *prefix)
{
  const char *at = strstr(svg, "<svg");
  if (at == NULL)
    return;
  g_string_append(out, "<svg class=\"picture\"");
  at += strlen("<svg");
  static const char *const refs[] = {"id=\"", "href=\"#", "url(#"};
  while (*at != '\0') {
    const char *next = NULL;
    guint which = 0;
    for (guint k = 0; k < G_N_ELEMENTS(refs); k++) {
      const char *m = strstr(at, refs[k]);
      if (m != NULL && (next == NULL || m < next)) {
        next = m;
        which = k;
      }
    }
    if (next == NULL) {
      g_string_append(out, at);
      break;
    }
    next += strlen(refs[which]);
    g_string_append_len(out, at, next - at);
    g_string_append(out, prefix);
    at = next;
  }
}

static const char *const picture_kinds[] = {"partition", "grids", "curve", "chunks"};

/* A picture whose SVG is larger is shown from its file (an <img> of its
 * PNG, or of the SVG without one) instead of inside the page: a curve
 * through a million leaves is megabytes of path, and ten pictures of 1024
 * ranks would make a page no browser opens quickly. */
#define PICTURE_INLINE_MAX (96 * 1024)

/* The picture file shown for a large picture, copied into the report's
 * folder when it is elsewhere: its base name, or NULL. */
static char *
picture_file(Out *o, const char *pictures_dir, gboolean local, const char *what)
{
  static const char *const exts[] = {"png", "svg"};
  for (guint e = 0; e < G_N_ELEMENTS(exts); e++) {
    g_autofree char *path = lb_figure_file(pictures_dir, o->name, what, exts[e]);
    g_autofree char *base = file_name(o->name, what, exts[e]);
    if (!g_file_test(path, G_FILE_TEST_IS_REGULAR))
      continue;
    if (local)
      return g_steal_pointer(&base);
    g_autofree char *bytes = NULL;
    gsize length = 0;
    if (g_file_get_contents(path, &bytes, &length, NULL) && put_file(o, base, bytes, length, NULL))
      return g_steal_pointer(&base);
  }
  return NULL;
}

/* The pictures in pictures_dir: drawn there by the run of this JSON
 * (drawn), or found there; links to them when they are the folder's. */
static void
run_pictures(Out *o, GString *out, const char *pictures_dir, gboolean drawn, gboolean local)
{
  const LbResults *doc = o->doc;
  g_string_append(out, "<h2 id=\"pictures-section\">Final partitions</h2>\n<p>Each run's "
                       "units on its ranks after the last balancing; for a balancer that owns "
                       "the compute (dls), the chunks each rank computed over simulated "
                       "time.</p>\n");
  if (pictures_dir == NULL) {
    g_string_append(out, "<p class=\"note\">No pictures: <code>lbsim run --report</code> draws "
                         "them; <code>lbsim report</code> adds those of <code>lbsim run "
                         "--pictures DIR</code> with <code>--pictures DIR</code>.</p>\n");
    return;
  }
  g_autoptr(GString) figures = g_string_new(NULL);
  guint n = 0;
  for (guint i = 0; i < doc->runs->len; i++) {
    const LbRunResult *r = doc->runs->pdata[i];
    for (guint k = 0; k < G_N_ELEMENTS(picture_kinds); k++) {
      g_autofree char *what = g_strdup_printf("%s.%s", r->balancer, picture_kinds[k]);
      g_autofree char *path = lb_figure_file(pictures_dir, doc->name, what, "svg");
      g_autofree char *svg = NULL;
      gsize size = 0;
      /* no SVG (pictures drawn as PNG alone): the PNG */
      gboolean has_svg = g_file_get_contents(path, &svg, &size, NULL);
      g_autofree char *shown =
          !has_svg || size > PICTURE_INLINE_MAX ? picture_file(o, pictures_dir, local, what) : NULL;
      if (!has_svg && shown == NULL)
        continue;
      g_string_append(figures, "<figure class=\"picture\" data-balancer=\"");
      esc(figures, r->balancer);
      g_string_append(figures, "\">\n");
      g_autofree char *prefix = g_strdup_printf("pic%u-", n++);
      if (shown != NULL) {
        g_autofree char *h = href(shown);
        g_string_append_printf(figures, "<img class=\"picture\" src=\"%s\" alt=\"", h);
        esc(figures, r->balancer);
        g_string_append(figures, strcmp(picture_kinds[k], "chunks") == 0
                                     ? ": the chunks over time\" loading=\"lazy\">\n"
                                     : ": the final partition\" loading=\"lazy\">\n");
      } else {
        inline_picture(figures, svg, prefix);
      }
      g_string_append(figures, "<figcaption>");
      esc(figures, r->balancer);
      if (local) {
        g_autofree char *svg_base = file_name(doc->name, what, "svg");
        g_string_append(figures, ":");
        if (has_svg) {
          g_string_append(figures, " ");
          put_link(figures, svg_base, "SVG");
          g_ptr_array_add(o->files, g_strdup(svg_base));
        }
        gboolean linked = has_svg;
        static const char *const others[][2] = {{"png", "PNG"}, {"pdf", "PDF"}};
        for (guint f = 0; f < G_N_ELEMENTS(others); f++) {
          g_autofree char *base = file_name(doc->name, what, others[f][0]);
          g_autofree char *other = g_build_filename(o->dir, base, NULL);
          if (!g_file_test(other, G_FILE_TEST_EXISTS))
            continue;
          g_string_append(figures, linked ? " \xc2\xb7 " : " ");
          put_link(figures, base, others[f][1]);
          g_ptr_array_add(o->files, g_strdup(base));
          linked = TRUE;
        }
      }
      g_string_append(figures, "</figcaption>\n</figure>\n");
    }
  }
  if (n == 0 && drawn) {
    const LbRunResult *first = doc->runs->pdata[0];
    g_string_append(out, "<p class=\"note\">lbsim draws no pictures of this model (");
    esc(out, first->model);
    g_string_append(out, ").</p>\n");
    return;
  }
  if (n == 0) {
    g_string_append(out, "<p class=\"note\">No pictures of these runs in ");
    esc(out, pictures_dir);
    g_string_append(out, ".</p>\n");
    return;
  }
  g_string_append(out, "<p>Each balancer's partition after the last adaptation step, drawn by "
                       "lbsim's pictures (as <code>--pictures</code> draws them).</p>\n"
                       "<div class=\"pictures\">\n");
  g_string_append(out, figures->str);
  g_string_append(out, "</div>\n");
}

/* "name = value, ...", in the balancer's order, or "none". */
static void
params_text(GString *out, const LbParams *params)
{
  const LbParamSpec *spec = lb_params_spec(params);
  if (spec->name == NULL) {
    g_string_append(out, "none");
    return;
  }
  for (const LbParamSpec *p = spec; p->name != NULL; p++) {
    g_autofree char *value = NULL;
    switch (p->type) {
    case LB_PARAM_INT:
      value = g_strdup_printf("%" G_GINT64_FORMAT, (gint64)lb_params_get_int(params, p->name));
      break;
    case LB_PARAM_DOUBLE: {
      char buf[G_ASCII_DTOSTR_BUF_SIZE];
      value = g_strdup(
          g_ascii_formatd(buf, sizeof buf, "%.15g", lb_params_get_double(params, p->name)));
      break;
    }
    case LB_PARAM_BOOL:
      value = g_strdup(lb_params_get_bool(params, p->name) ? "true" : "false");
      break;
    case LB_PARAM_CHOICE:
    case LB_PARAM_STRING:
      value = g_strdup(lb_params_get_string(params, p->name));
      break;
    }
    g_autofree char *pair = g_strdup_printf("%s = %s", p->name, value != NULL ? value : "?");
    if (p != spec)
      g_string_append(out, ", ");
    esc(out, pair);
  }
}

static void
run_balancers(GString *out, const LbResults *doc)
{
  g_string_append(out, "<h2 id=\"balancers-section\">Balancers</h2>\n<table id=\"balancers\">\n"
                       "<thead><tr><th scope=\"col\">balancer</th><th scope=\"col\">starting "
                       "distribution</th><th scope=\"col\">placement</th><th "
                       "scope=\"col\">parameters</th></tr></thead>\n<tbody>\n");
  for (guint i = 0; i < doc->runs->len; i++) {
    const LbRunResult *r = doc->runs->pdata[i];
    g_string_append(out, "<tr><th scope=\"row\">");
    esc(out, r->balancer);
    g_string_append(out, "</th><td>");
    esc(out, r->start);
    if (r->view != NULL) {
      g_string_append(out, " (on the ");
      esc(out, r->view);
      g_string_append(out, ")");
    }
    g_string_append(out, "</td><td>");
    esc(out, r->placement);
    g_string_append(out, "</td><td>");
    params_text(out, r->params);
    g_string_append(out, "</td></tr>\n");
  }
  g_string_append(out, "</tbody>\n</table>\n");
}

static gboolean
run_page(Out *o, GString *out, const char *pictures_dir, gboolean drawn, gboolean local,
         const char *json_base, GError **error)
{
  page_start(out, o->version, o->doc->name);
  run_header(out, o->doc);
  if (!run_summary(o, out, error) || !run_imbalance(o, out, error) || !run_phases(o, out, error))
    return FALSE;
  run_pictures(o, out, pictures_dir, drawn, local);
  run_metrics(out, o->doc);
  run_balancers(out, o->doc);
  page_end(out, o->version, json_base);
  return TRUE;
}

/* ---- a sweep's page ---- */

static gboolean
parse_value(const char *text, double *v)
{
  char *end = NULL;
  *v = g_ascii_strtod(text, &end);
  return end != text && *end == '\0' && isfinite(*v);
}

/* How a varied parameter's values lie along x: as numbers (on a log2
 * axis when they are powers of two, each double the one before, or spread
 * over a factor of 8 or more, as rank counts are), or, when one is not a
 * number, as labels in the sweep's order. */
static LbPlotScale
value_scale(const LbSweepAxis *v, double *xs)
{
  gboolean numeric = TRUE, integral = TRUE, powers = v->values->len > 2,
           doubling = v->values->len > 2;
  double lo = G_MAXDOUBLE, hi = -G_MAXDOUBLE;
  for (guint k = 0; k < v->values->len; k++) {
    numeric = numeric && parse_value(v->values->pdata[k], &xs[k]);
    if (!numeric)
      break;
    integral = integral && xs[k] == floor(xs[k]);
    powers = powers && xs[k] >= 1 && xs[k] == exp2(round(log2(xs[k])));
    doubling = doubling && (k == 0 || xs[k] == 2 * xs[k - 1]);
    lo = MIN(lo, xs[k]);
    hi = MAX(hi, xs[k]);
  }
  if (!numeric) {
    for (guint k = 0; k < v->values->len; k++)
      xs[k] = k;
    return LB_PLOT_CATEGORIES;
  }
  if (lo > 0 && (powers || doubling || hi / lo >= 8))
    return LB_PLOT_LOG2;
  return integral ? LB_PLOT_INTEGER : LB_PLOT_LINEAR;
}

static guint
value_index(const LbSweepAxis *v, const char *value)
{
  guint k = 0;
  g_ptr_array_find_with_equal_func(v->values, value, g_str_equal, &k);
  return k;
}

/* The other parameters' values of a run: "a = 1, b = x" (empty with one
 * parameter), the replicates' aside. */
static char *
others_text(const LbResults *doc, const LbSweepResult *s, guint skip)
{
  GString *t = g_string_new(NULL);
  for (guint v = 0; v < doc->axes->len; v++) {
    if (v == skip || (gint)v == doc->replicates)
      continue;
    g_string_append_printf(t, "%s%s = %s", t->len ? ", " : "",
                           ((const LbSweepAxis *)doc->axes->pdata[v])->name, s->point[v]);
  }
  return g_string_free(t, FALSE);
}

/* Orders runs by their other parameters' value indices, the replicates'
 * aside. */
static int
compare_others(const LbSweepResult *a, const LbSweepResult *b, const LbResults *doc, guint skip)
{
  for (guint v = 0; v < doc->axes->len; v++) {
    if (v == skip || (gint)v == doc->replicates)
      continue;
    guint ia = value_index(doc->axes->pdata[v], a->point[v]);
    guint ib = value_index(doc->axes->pdata[v], b->point[v]);
    if (ia != ib)
      return ia < ib ? -1 : 1;
  }
  return 0;
}

static GPtrArray *
sweep_balancers(const LbResults *doc)
{
  GPtrArray *names = g_ptr_array_new_null_terminated(0, NULL, TRUE);
  for (guint i = 0; i < doc->results->len; i++) {
    const LbSweepResult *s = doc->results->pdata[i];
    if (!g_ptr_array_find_with_equal_func(names, s->balancer, g_str_equal, NULL))
      g_ptr_array_add(names, (gpointer)s->balancer);
  }
  return names;
}

typedef struct {
  const char *what, *title, *axis;
  const char *field; /* the summary's */
  double floor;
  gboolean seconds;
} SweepMeasure;

static const SweepMeasure sweep_measures[] = {
    {"time", "Total time", "total simulated time", "total_time", 0, TRUE},
    {"imbalance", "Imbalance after balancing", "imbalance after balancing (max/avg, mean)",
     "imbalance_after", 1, FALSE},
};

/* The runs of one line at one x: their values and statistics. */
typedef struct {
  double x;
  GArray *y;
  LbStats stats;
} SweepPoint;

static void
sweep_point_clear(gpointer p)
{
  g_array_unref(((SweepPoint *)p)->y);
}

/* One chart: a measure against parameter v, one series per balancer, a
 * line per combination of the other parameters' values. With replicates,
 * a line goes through the mean of each point's replicates, over two
 * bands: their least to greatest, and the 95 % interval of the mean. */
static gboolean
sweep_chart(Out *o, GString *out, guint v, const SweepMeasure *m, GPtrArray *balancers,
            const gboolean *left_out, GError **error)
{
  const LbResults *doc = o->doc;
  const LbSweepAxis *vary = doc->axes->pdata[v];
  gboolean replicated = doc->replicates >= 0;
  g_autofree double *xs = g_new(double, MAX(vary->values->len, 1));
  LbPlotScale scale = value_scale(vary, xs);
  g_autofree char *safe = g_strdup(vary->name);
  g_strcanon(safe, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789._-", '_');
  const char *close = left_out != NULL ? "-close" : "";
  g_autofree char *what = g_strdup_printf("vs-%s.%s%s", safe, m->what, close);
  g_autofree char *id = g_strdup_printf("vs-%s-%s%s", safe, m->what, close);
  g_autofree char *title =
      replicated
          ? g_strdup_printf("%s against %s (mean of %u replicates)%s", m->title, vary->name,
                            ((const LbSweepAxis *)doc->axes->pdata[doc->replicates])->values->len,
                            left_out != NULL ? ", close up" : "")
          : g_strdup_printf("%s against %s%s", m->title, vary->name,
                            left_out != NULL ? ", close up" : "");
  g_autoptr(LbPlot) plot = new_plot(o, LB_PLOT_LINES, id, title);
  lb_plot_x_axis(plot, vary->name, scale, (const char *const *)vary->values->pdata);
  lb_plot_value_axis(plot, m->axis, m->floor, m->seconds);

  /* the combinations of the other parameters, in the sweep's order */
  g_autoptr(GPtrArray) combos = g_ptr_array_new();
  for (guint i = 0; i < doc->results->len; i++) {
    const LbSweepResult *s = doc->results->pdata[i];
    guint k = 0;
    while (k < combos->len && compare_others(combos->pdata[k], s, doc, v) < 0)
      k++;
    if (k == combos->len || compare_others(combos->pdata[k], s, doc, v) != 0)
      g_ptr_array_insert(combos, (gint)k, (gpointer)s);
  }
  guint others = doc->axes->len - 1 - (replicated ? 1 : 0);
  if (others > 0)
    for (guint c = 0; c < combos->len; c++) {
      g_autofree char *label = others_text(doc, combos->pdata[c], v);
      lb_plot_style(plot, c, label);
    }

  g_autoptr(GString) csv = g_string_new("balancer");
  for (guint k = 0; k < doc->axes->len; k++)
    if (k != v && (gint)k != doc->replicates)
      g_string_append_printf(csv, ",%s", ((const LbSweepAxis *)doc->axes->pdata[k])->name);
  const LbSummaryField *field = lb_summary_lookup(m->field);
  g_string_append_printf(csv, ",%s,%s", vary->name, field->json);
  if (replicated)
    g_string_append(csv, "_mean,runs,min,max,ci95_low,ci95_high");
  g_string_append_c(csv, '\n');
  g_autoptr(GString) left = g_string_new(NULL);
  double fastest_x = INFINITY, fastest_y = INFINITY; /* the first point of the fewest ranks */
  for (guint b = 0; b < balancers->len; b++) {
    if (left_out != NULL && left_out[b]) {
      g_string_append_printf(left, "%s%s", left->len ? ", " : "", (char *)balancers->pdata[b]);
      continue;
    }
    lb_plot_series(plot, balancers->pdata[b]);
    for (guint c = 0; c < combos->len; c++) {
      /* this line's runs, gathered by their x, in the order of x */
      g_autoptr(GArray) points = g_array_new(FALSE, FALSE, sizeof(SweepPoint));
      g_array_set_clear_func(points, sweep_point_clear);
      for (guint i = 0; i < doc->results->len; i++) {
        const LbSweepResult *s = doc->results->pdata[i];
        if (strcmp(s->balancer, balancers->pdata[b]) != 0 ||
            compare_others(s, combos->pdata[c], doc, v) != 0 ||
            !isfinite(summary_value(field, s->result)))
          continue;
        double px = xs[value_index(vary, s->point[v])], py = summary_value(field, s->result);
        guint at = 0;
        while (at < points->len && g_array_index(points, SweepPoint, at).x < px)
          at++;
        if (at == points->len || g_array_index(points, SweepPoint, at).x != px) {
          SweepPoint p = {px, g_array_new(FALSE, FALSE, sizeof(double)), {0}};
          g_array_insert_val(points, at, p);
        }
        g_array_append_val(g_array_index(points, SweepPoint, at).y, py);
      }
      if (points->len == 0)
        continue;
      guint n = points->len;
      g_autofree double *x = g_new(double, n);
      g_autofree double *y = g_new(double, n);
      g_autofree double *lo = g_new(double, 2 * n);
      g_autofree double *hi = g_new(double, 2 * n);
      for (guint k = 0; k < n; k++) {
        SweepPoint *p = &g_array_index(points, SweepPoint, k);
        lb_stats_of((double *)p->y->data, p->y->len, &p->stats);
        x[k] = p->x;
        y[k] = p->stats.mean;
        lo[k] = p->stats.min;
        hi[k] = p->stats.max;
        /* one replicate has no interval: the band narrows to the mean */
        lo[n + k] = isfinite(p->stats.ci_low) ? p->stats.ci_low : p->stats.mean;
        hi[n + k] = isfinite(p->stats.ci_high) ? p->stats.ci_high : p->stats.mean;
      }
      lb_plot_line(plot, c, n, x, y);
      if (n > 0 && (x[0] < fastest_x || (x[0] == fastest_x && y[0] < fastest_y))) {
        fastest_x = x[0];
        fastest_y = y[0];
      }
      if (replicated) {
        lb_plot_band(plot, LB_PLOT_BAND_AREA, n, lo, hi);
        lb_plot_band(plot, LB_PLOT_BAND_BARS, n, lo + n, hi + n);
      }
      for (guint k = 0; k < n; k++) {
        const SweepPoint *p = &g_array_index(points, SweepPoint, k);
        for (guint r = 0; r < (replicated ? 1 : p->y->len); r++) {
          lb_report_csv_text(csv, balancers->pdata[b]);
          const LbSweepResult *s = combos->pdata[c];
          for (guint q = 0; q < doc->axes->len; q++)
            if (q != v && (gint)q != doc->replicates) {
              g_string_append_c(csv, ',');
              lb_report_csv_text(csv, s->point[q]);
            }
          g_string_append_c(csv, ',');
          if (scale == LB_PLOT_CATEGORIES)
            lb_report_csv_text(csv, vary->values->pdata[(guint)p->x]);
          else
            number(csv, p->x);
          if (!replicated) {
            csv_number(csv, g_array_index(p->y, double, r));
          } else {
            csv_number(csv, p->stats.mean);
            g_string_append_printf(csv, ",%u", p->stats.n);
            csv_number(csv, p->stats.min);
            csv_number(csv, p->stats.max);
            csv_number(csv, lo[n + k]);
            csv_number(csv, hi[n + k]);
          }
          g_string_append_c(csv, '\n');
        }
      }
    }
  }
  /* time against ranks: what ideal (strong) scaling would give from the
   * fastest run at the fewest ranks */
  gboolean ideal = m->seconds && strcmp(vary->name, "ranks") == 0 && scale != LB_PLOT_CATEGORIES &&
                   isfinite(fastest_y) && fastest_y > 0 && fastest_x > 0;
  if (ideal) {
    g_autofree double *ix = g_new(double, vary->values->len);
    g_autofree double *iy = g_new(double, vary->values->len);
    guint n = 0;
    for (guint k = 0; k < vary->values->len; k++)
      if (xs[k] >= fastest_x) {
        ix[n] = xs[k];
        iy[n++] = fastest_y * fastest_x / xs[k];
      }
    g_autofree char *label = g_strdup_printf("ideal scaling from %g ranks", fastest_x);
    lb_plot_reference(plot, label, n, ix, iy);
  }
  const char *rname =
      replicated ? ((const LbSweepAxis *)doc->axes->pdata[doc->replicates])->name : NULL;
  g_autofree char *of = replicated ? g_strdup_printf("The mean over the replicates (%s)", rname)
                                   : g_strdup("Every run's value");
  g_autofree char *bands =
      replicated ? g_strdup(" The shaded band runs from the least to the greatest replicate, the "
                            "error bars span the 95 % confidence interval of the mean (Student's "
                            "t with n - 1 degrees of freedom).")
                 : g_strdup("");
  g_autofree char *close_text =
      left->len > 0 ? g_strdup_printf(" On an axis made for the balancers that stay near 1: %s, "
                                      "whose excess over 1 is ten times the median balancer's "
                                      "or more, are left out (they are in the chart above).",
                                      left->str)
                    : g_strdup("");
  g_autofree char *ideal_text =
      ideal ? g_strdup_printf(" The grey dotted line is ideal strong scaling, the fastest time on "
                              "%g ranks times %g over the ranks (not in the CSV).",
                              fastest_x, fastest_x)
            : g_strdup("");
  g_autofree char *caption =
      others > 0 ? g_strdup_printf("%s: %s against %s, a colour per balancer, a line style per "
                                   "combination of the other parameters' values.%s%s%s",
                                   m->title, of, vary->name, bands, close_text, ideal_text)
                 : g_strdup_printf("%s: %s against %s, a line per balancer.%s%s%s", m->title, of,
                                   vary->name, bands, close_text, ideal_text);
  return put_chart(o, out, plot, what, caption, csv, error);
}

/* The balancers that dwarf the rest on the imbalance charts, as the run
 * page's close-up leaves them out (lb_plot_dwarfs), their largest
 * excess over 1 over every run. */
static gboolean *
sweep_dwarfs(const LbResults *doc, const SweepMeasure *m, GPtrArray *balancers)
{
  guint n = balancers->len;
  const LbSummaryField *field = lb_summary_lookup(m->field);
  g_autofree double *excess = g_new0(double, MAX(n, 1));
  for (guint i = 0; i < doc->results->len; i++) {
    const LbSweepResult *s = doc->results->pdata[i];
    double v = summary_value(field, s->result);
    for (guint b = 0; b < n && isfinite(v); b++)
      if (strcmp(s->balancer, balancers->pdata[b]) == 0)
        excess[b] = MAX(excess[b], v - 1);
  }
  return lb_plot_dwarfs(excess, n);
}

static void
sweep_header(GString *out, const LbResults *doc, GPtrArray *balancers)
{
  g_string_append(out, "<header>\n<h1>");
  esc(out, doc->name);
  g_string_append(out, ": a sweep</h1>\n<p class=\"lead\">");
  g_autoptr(GString) lead = g_string_new(NULL);
  guint varied = doc->axes->len - (doc->replicates >= 0 ? 1 : 0), k = 0;
  for (guint v = 0; v < doc->axes->len; v++, k++) {
    if ((gint)v == doc->replicates) {
      k--;
      continue;
    }
    g_string_append_printf(lead, "%s%s",
                           k == 0           ? ""
                           : k + 1 < varied ? ", "
                                            : " and ",
                           ((const LbSweepAxis *)doc->axes->pdata[v])->name);
  }
  if (varied > 0)
    g_string_append(lead, " varied, ");
  if (doc->replicates >= 0) {
    const LbSweepAxis *r = doc->axes->pdata[doc->replicates];
    g_string_append_printf(lead, "%u replicates (%s), ", r->values->len, r->name);
  }
  g_string_append_printf(lead, "%u balancer%s", balancers->len, balancers->len == 1 ? "" : "s");
  esc(out, lead->str);
  g_string_append(out, "</p>\n</header>\n<h2 id=\"setup-section\">Sweep</h2>\n"
                       "<table class=\"facts\" id=\"setup\">\n");
  fact(out, "scenario", doc->sweep_scenario);
  for (guint v = 0; v < doc->axes->len; v++) {
    const LbSweepAxis *vy = doc->axes->pdata[v];
    g_autofree char *values = g_strjoinv(", ", (char **)vy->values->pdata);
    g_autofree char *name =
        g_strdup_printf((gint)v == doc->replicates ? "replicates: %s" : "varied: %s", vy->name);
    g_autofree char *escaped = g_markup_escape_text(name, -1);
    fact(out, escaped, values);
  }
  g_autofree char *runs = doc->runs_total > 0
                              ? g_strdup_printf("%u of %u", doc->results->len, doc->runs_total)
                              : g_strdup_printf("%u", doc->results->len);
  fact(out, "runs", runs);
  g_autofree char *names = g_strjoinv(", ", (char **)balancers->pdata);
  fact(out, "balancers", names);
  const LbRunResult *first = doc->runs->len > 0 ? doc->runs->pdata[0] : NULL;
  if (first != NULL && first->model != NULL && *first->model != '\0')
    fact(out, "model", first->model);
  fact(out, "lbsim", doc->version);
  g_string_append(out, "</table>\n");
}

/* The end of a sweep page's table: the link to its numbers, as CSV,
 * written beside the page as NAME.WHAT.csv. */
static gboolean
sweep_table_end(Out *o, GString *out, const GString *csv, const char *what, GError **error)
{
  g_string_append(out, "</tbody>\n</table>\n<p class=\"files\">Numbers: ");
  g_autofree char *csv_base = file_name(o->doc->name, what, "csv");
  put_link(out, csv_base, csv_base);
  g_string_append(out, "</p>\n");
  return put_file(o, csv_base, csv->str, csv->len, error);
}

/* A row of a table of runs: the point's values but the one at skip (-1:
 * none), each a cell and a CSV field followed by a comma, then the
 * balancer's header cell, left open for what follows its name. */
static void
point_row_start(GString *out, GString *csv, const LbResults *doc, const LbSweepResult *s, gint skip)
{
  g_string_append(out, "<tr data-balancer=\"");
  esc(out, s->balancer);
  g_string_append(out, "\">");
  for (guint v = 0; v < doc->axes->len; v++) {
    if ((gint)v == skip)
      continue;
    g_string_append(out, "<td>");
    esc(out, s->point[v]);
    g_string_append(out, "</td>");
    lb_report_csv_text(csv, s->point[v]);
    g_string_append_c(csv, ',');
  }
  g_string_append(out, "<th scope=\"row\">");
  esc(out, s->balancer);
}

static gboolean
sweep_table(Out *o, GString *out, GError **error)
{
  const LbResults *doc = o->doc;
  g_autoptr(GString) csv = g_string_new(NULL);
  g_string_append(out, "<h2 id=\"runs-section\">Every run</h2>\n<table class=\"numbers\" "
                       "id=\"summary\">\n<thead><tr>");
  for (guint v = 0; v < doc->axes->len; v++) {
    const char *name = ((const LbSweepAxis *)doc->axes->pdata[v])->name;
    g_string_append(out, "<th scope=\"col\">");
    esc(out, name);
    g_string_append(out, "</th>");
    lb_report_csv_text(csv, name);
    g_string_append_c(csv, ',');
  }
  g_string_append(out, "<th scope=\"col\">balancer</th>");
  summary_head(out);
  g_string_append(out, "</tr></thead>\n<tbody>\n");
  g_string_append(csv, "balancer");
  summary_csv_head(csv);
  g_string_append_c(csv, '\n');
  for (guint i = 0; i < doc->results->len; i++) {
    const LbSweepResult *s = doc->results->pdata[i];
    point_row_start(out, csv, doc, s, -1);
    g_string_append(out, "</th>");
    lb_report_csv_text(csv, s->balancer);
    summary_cells(out, s->result);
    summary_csv_values(csv, s->result);
    g_string_append(out, "</tr>\n");
    g_string_append_c(csv, '\n');
  }
  return sweep_table_end(o, out, csv, "sweep-runs", error);
}

/* With replicates: the mean and the 95 % interval's half-width of a few
 * measures, one row per point (the replicates' aside) and balancer. */
static const char *const mean_fields[] = {"imbalance_after", "balance_time", "total_time"};

static gboolean
sweep_means(Out *o, GString *out, GError **error)
{
  const LbResults *doc = o->doc;
  g_autoptr(GString) csv = g_string_new(NULL);
  g_string_append(out, "<h2 id=\"means-section\">Means over the replicates</h2>\n<p>The mean of "
                       "each point's replicates and the half-width of its 95 % confidence "
                       "interval (Student's t with n - 1 degrees of freedom).</p>\n<table "
                       "class=\"numbers\" id=\"means\">\n<thead><tr>");
  for (guint v = 0; v < doc->axes->len; v++) {
    if ((gint)v == doc->replicates)
      continue;
    const char *name = ((const LbSweepAxis *)doc->axes->pdata[v])->name;
    g_string_append(out, "<th scope=\"col\">");
    esc(out, name);
    g_string_append(out, "</th>");
    lb_report_csv_text(csv, name);
    g_string_append_c(csv, ',');
  }
  g_string_append(out, "<th scope=\"col\">balancer</th><th scope=\"col\">runs</th>");
  g_string_append(csv, "balancer,runs");
  for (guint f = 0; f < G_N_ELEMENTS(mean_fields); f++) {
    const LbSummaryField *field = lb_summary_lookup(mean_fields[f]);
    g_string_append_printf(out, "<th scope=\"col\">%s</th><th scope=\"col\">\xc2\xb1 95 %%</th>",
                           field->column);
    g_string_append_printf(csv, ",%s_mean,%s_ci95_half", field->json, field->json);
  }
  g_string_append(out, "</tr></thead>\n<tbody>\n");
  g_string_append_c(csv, '\n');
  /* the groups, in the order of their first runs */
  g_autoptr(GPtrArray) firsts = g_ptr_array_new();
  for (guint i = 0; i < doc->results->len; i++) {
    const LbSweepResult *s = doc->results->pdata[i];
    gboolean seen = FALSE;
    for (guint g = 0; g < firsts->len && !seen; g++) {
      const LbSweepResult *f = firsts->pdata[g];
      seen = strcmp(f->balancer, s->balancer) == 0 &&
             compare_others(f, s, doc, (guint)doc->replicates) == 0;
    }
    if (!seen)
      g_ptr_array_add(firsts, (gpointer)s);
  }
  for (guint g = 0; g < firsts->len; g++) {
    const LbSweepResult *first = firsts->pdata[g];
    g_autoptr(GArray) members = g_array_new(FALSE, FALSE, sizeof(const LbSweepResult *));
    for (guint i = 0; i < doc->results->len; i++) {
      const LbSweepResult *s = doc->results->pdata[i];
      if (strcmp(first->balancer, s->balancer) == 0 &&
          compare_others(first, s, doc, (guint)doc->replicates) == 0)
        g_array_append_val(members, s);
    }
    point_row_start(out, csv, doc, first, doc->replicates);
    g_string_append_printf(out, "</th><td>%u</td>", members->len);
    lb_report_csv_text(csv, first->balancer);
    g_string_append_printf(csv, ",%u", members->len);
    g_autofree double *x = g_new(double, members->len);
    for (guint f = 0; f < G_N_ELEMENTS(mean_fields); f++) {
      const LbSummaryField *field = lb_summary_lookup(mean_fields[f]);
      for (guint k = 0; k < members->len; k++)
        x[k] = summary_value(field, g_array_index(members, const LbSweepResult *, k)->result);
      LbStats st;
      lb_stats_of(x, members->len, &st);
      double half = st.ci_high - st.mean;
      g_autofree char *mean_text = field->kind == LB_SUMMARY_SECONDS
                                       ? with_unit(lb_report_seconds(st.mean), "s")
                                       : g_strdup_printf("%.4f", st.mean);
      g_autofree char *half_text = field->kind == LB_SUMMARY_SECONDS
                                       ? with_unit(lb_report_seconds(half), "s")
                                       : g_strdup_printf("%.4f", half);
      g_autofree char *key = g_strdup_printf("%s_mean", field->json);
      g_autofree char *half_key = g_strdup_printf("%s_ci95_half", field->json);
      value_cell(out, key, st.mean, mean_text);
      value_cell(out, half_key, half, half_text);
      csv_number(csv, st.mean);
      csv_number(csv, half);
    }
    g_string_append(out, "</tr>\n");
    g_string_append_c(csv, '\n');
  }
  return sweep_table_end(o, out, csv, "sweep-means", error);
}

static gboolean
sweep_page(Out *o, GString *out, const char *json_base, GError **error)
{
  const LbResults *doc = o->doc;
  g_autofree char *title = g_strdup_printf("%s: a sweep", doc->name);
  g_autoptr(GPtrArray) balancers = sweep_balancers(doc);
  page_start(out, doc->version, title);
  sweep_header(out, doc, balancers);
  g_string_append(out, doc->replicates >= 0
                           ? "<h2 id=\"curves-section\">Curves</h2>\n<p>The mean over each "
                             "point's replicates against each varied parameter, with their range "
                             "and the 95 % interval of the mean: the total simulated time and the "
                             "imbalance after balancing (its mean over the adaptation "
                             "steps).</p>\n"
                           : "<h2 id=\"curves-section\">Curves</h2>\n<p>Each run's summary "
                             "against each varied parameter: the total simulated time and the "
                             "imbalance after balancing (its mean over the adaptation "
                             "steps).</p>\n");
  for (guint v = 0; v < doc->axes->len; v++) {
    if ((gint)v == doc->replicates)
      continue; /* never a chart against the seed */
    g_string_append(out, "<h3>");
    esc(out, ((const LbSweepAxis *)doc->axes->pdata[v])->name);
    g_string_append(out, "</h3>\n");
    for (guint m = 0; m < G_N_ELEMENTS(sweep_measures); m++) {
      if (!sweep_chart(o, out, v, &sweep_measures[m], balancers, NULL, error))
        return FALSE;
      if (sweep_measures[m].floor != 1)
        continue; /* a close-up of the imbalance only */
      g_autofree gboolean *left_out = sweep_dwarfs(doc, &sweep_measures[m], balancers);
      if (left_out != NULL &&
          !sweep_chart(o, out, v, &sweep_measures[m], balancers, left_out, error))
        return FALSE;
    }
  }
  if ((doc->replicates >= 0 && !sweep_means(o, out, error)) || !sweep_table(o, out, error))
    return FALSE;
  page_end(out, doc->version, json_base);
  return TRUE;
}

/* ---- writing it all ---- */

static gboolean
same_file(const char *a, const char *b)
{
  GStatBuf sa, sb;
  return g_stat(a, &sa) == 0 && g_stat(b, &sb) == 0 && sa.st_dev == sb.st_dev &&
         sa.st_ino == sb.st_ino;
}

static gboolean
write_manifest(Out *o, const char *json_base, gboolean pictures_drawn, GError **error)
{
  g_autoptr(GKeyFile) kf = g_key_file_new();
  g_autofree char *sha =
      g_compute_checksum_for_data(G_CHECKSUM_SHA256, (const guchar *)o->json, o->length);
  g_key_file_set_string(kf, "report", "kind", o->kind);
  g_key_file_set_string(kf, "report", "name", o->name);
  g_key_file_set_string(kf, "report", "json", json_base);
  g_key_file_set_string(kf, "report", "json-sha256", sha);
  g_key_file_set_boolean(kf, "report", "pictures-drawn", pictures_drawn);
  g_ptr_array_add(o->files, g_strdup(MANIFEST));
  g_key_file_set_string_list(kf, "report", "files", (const char *const *)o->files->pdata,
                             o->files->len);
  gsize length = 0;
  g_autofree char *text = g_key_file_to_data(kf, &length, NULL);
  g_autofree char *path = g_build_filename(o->dir, MANIFEST, NULL);
  g_autoptr(GError) local = NULL;
  if (lb_output_write(path, text, (gssize)length, &local))
    return TRUE;
  g_set_error(error, LB_HTML_ERROR, LB_HTML_ERROR_OUTPUT, "cannot write %s: %s", path,
              local->message);
  return FALSE;
}

/* The files of the report replaced that this one did not write: only
 * plain names the old list holds, never the JSON just read. */
static void
remove_stale(Out *o, const Manifest *old, const char *source)
{
  for (guint i = 0; old->files != NULL && old->files[i] != NULL; i++) {
    const char *base = old->files[i];
    if (*base == '\0' || *base == '.' || strchr(base, '/') != NULL ||
        g_ptr_array_find_with_equal_func(o->files, base, g_str_equal, NULL))
      continue;
    g_autofree char *path = g_build_filename(o->dir, base, NULL);
    if (source != NULL && same_file(path, source))
      continue;
    g_unlink(path);
  }
}

gboolean
lb_html_write(const LbResults *doc, const LbHtmlOptions *options, GError **error)
{
  g_autoptr(GPtrArray) files = g_ptr_array_new_with_free_func(g_free);
  g_auto(Out) o = {.doc = doc,
                   .kind = doc->kind,
                   .name = doc->name,
                   .version = doc->version,
                   .json = options->json,
                   .length = options->length,
                   .dir = options->dir,
                   .files = files,
                   .chart_scale = options->chart_scale,
                   .chart_formats = options->chart_formats,
                   .look = &options->look};
  /* a balancer's style: by its name, among the names of the page */
  g_autoptr(GPtrArray) names = g_ptr_array_new();
  if (strcmp(doc->kind, "sweep") == 0) {
    g_autoptr(GPtrArray) balancers = sweep_balancers(doc);
    g_ptr_array_extend(names, balancers, NULL, NULL);
  } else {
    for (guint i = 0; i < doc->runs->len; i++)
      g_ptr_array_add(names, ((LbRunResult *)doc->runs->pdata[i])->balancer);
  }
  o.styles = lb_styles_new((const char *const *)names->pdata, names->len);
  g_auto(Manifest) old = {0};
  gboolean had = manifest_load(options->dir, &old);
  g_autofree char *sha = g_compute_checksum_for_data(
      G_CHECKSUM_SHA256, (const guchar *)options->json, options->length);
  /* lbsim run --report has just drawn the pictures (source NULL); a
   * report made again from the same JSON text in the same folder finds
   * them there */
  const char *pictures = options->pictures_dir;
  gboolean drawn = pictures != NULL && options->source == NULL;
  if (pictures == NULL && had && old.pictures_drawn && strcmp(old.kind, doc->kind) == 0 &&
      strcmp(old.name, doc->name) == 0 && g_strcmp0(old.json_sha256, sha) == 0) {
    pictures = options->dir;
    drawn = TRUE;
  }
  gboolean local = pictures != NULL && same_file(pictures, options->dir);

  g_autofree char *json_base = file_name(doc->name, doc->kind, "json");
  g_autofree char *json_path = g_build_filename(options->dir, json_base, NULL);
  if (options->source == NULL || !same_file(options->source, json_path)) {
    if (!put_file(&o, json_base, options->json, options->length, error))
      return FALSE;
  } else {
    g_ptr_array_add(files, g_strdup(json_base));
  }
  g_autoptr(GString) page = g_string_new(NULL);
  if (strcmp(doc->kind, "sweep") == 0
          ? !sweep_page(&o, page, json_base, error)
          : !run_page(&o, page, pictures, drawn, local, json_base, error))
    return FALSE;
  if (!put_file(&o, PAGE, page->str, page->len, error) ||
      !write_manifest(&o, json_base, drawn && local, error))
    return FALSE;
  if (had)
    remove_stale(&o, &old, options->source);
  return TRUE;
}

/* ---- a reproduction's page ---- */

static char *
claim_number(double v, const char *unit)
{
  return g_strdup_printf("%.4g%s%s", v, *unit ? " " : "", unit);
}

/* The scorecard first: the headline claims by their verdict, each with
 * the paper's words, the known disagreements apart, in red, with why. */
static void
scorecard(GString *out, const LbReproduction *rep)
{
  const LbScorecardRow *s = rep->scorecard;
  g_string_append(out, "<h2 id=\"scorecard-section\">Scorecard</h2>\n<p class=\"lead\">");
  g_string_append_printf(out,
                         "<strong>%u of %u</strong> headline findings reproduced; %u not "
                         "reproduced (%u known)",
                         s->reproduced, s->headline, s->not_reproduced, s->known);
  if (s->not_evaluated > 0)
    g_string_append_printf(out, "; %u not evaluated in the quick form", s->not_evaluated);
  if (s->failed > 0)
    g_string_append_printf(out, "; %u could not be evaluated", s->failed);
  if (s->calibrated > 0)
    g_string_append_printf(out, "; %u calibrated (not counted)", s->calibrated);
  g_string_append_printf(out, ". %u of %u claims evaluated agree.</p>\n", s->agreeing,
                         s->evaluated);
  static const struct {
    const char *title, *status;
  } groups[] = {
      {"Reproduced", "agrees"},
      {"Not reproduced", "disagrees"},
      {"Known disagreements", "known"},
      {"Listed as known, but agreeing now", "known-agrees"},
      {"Could not be evaluated", "failed"},
      {"Not evaluated (quick form)", "not-run"},
  };
  for (guint g = 0; g < G_N_ELEMENTS(groups); g++) {
    gboolean any = FALSE;
    for (guint i = 0; i < rep->nclaims; i++) {
      const LbClaimRow *c = &rep->claims[i];
      gboolean calibrated = c->calibrated != NULL && c->done;
      if (!c->headline || c->diagnostic || strcmp(c->status, groups[g].status) != 0 ||
          (calibrated && g < 2))
        continue;
      gboolean known = strcmp(c->status, "known") == 0;
      if (!any)
        g_string_append_printf(out, "<h3%s>%s</h3>\n<ul>\n", known ? " class=\"known\"" : "",
                               groups[g].title);
      any = TRUE;
      g_string_append_printf(out, "<li%s><strong>", known ? " class=\"known\"" : "");
      esc(out, c->id);
      g_string_append(out, "</strong>: ");
      g_autofree char *paper = claim_number(c->paper, c->unit);
      esc(out, paper);
      if (c->done) {
        g_autofree char *lbsim = claim_number(c->lbsim, c->unit);
        g_string_append(out, " in the paper, lbsim ");
        esc(out, lbsim);
      }
      g_string_append(out, " (");
      esc(out, c->rule);
      g_string_append(out, ")");
      if (known) {
        g_string_append(out, ". <em>Why:</em> ");
        esc(out, c->known);
      }
      g_string_append(out, "<blockquote>");
      esc(out, c->words);
      g_string_append(out, "</blockquote></li>\n");
    }
    if (any)
      g_string_append(out, "</ul>\n");
  }
  gboolean calibrated = FALSE;
  for (guint i = 0; i < rep->nclaims; i++) {
    const LbClaimRow *c = &rep->claims[i];
    if (c->calibrated == NULL || !c->done || c->diagnostic)
      continue;
    if (!calibrated)
      g_string_append(out, "<h3>Calibrated (shown, not counted)</h3>\n<ul>\n");
    calibrated = TRUE;
    g_string_append(out, "<li>");
    esc(out, c->id);
    g_string_append(out, ": fitted with ");
    esc(out, c->calibrated);
    g_string_append(out, "</li>\n");
  }
  if (calibrated)
    g_string_append(out, "</ul>\n");
}

static void
claims_table(GString *out, const LbReproduction *rep)
{
  g_string_append(out, "<h2 id=\"claims-section\">Claims</h2>\n<table class=\"numbers\" "
                       "id=\"claims\">\n<thead><tr><th scope=\"col\">claim</th><th "
                       "scope=\"col\">paper</th><th scope=\"col\">lbsim</th><th "
                       "scope=\"col\">rule</th><th scope=\"col\">agrees</th><th "
                       "scope=\"col\">note</th></tr></thead>\n<tbody>\n");
  for (guint i = 0; i < rep->nclaims; i++) {
    const LbClaimRow *c = &rep->claims[i];
    if (c->diagnostic)
      continue;
    g_autofree char *paper = g_strdup_printf("%.2f%s%s", c->paper, *c->unit ? " " : "", c->unit);
    g_autofree char *lbsim =
        c->done ? g_strdup_printf("%.2f%s%s", c->lbsim, *c->unit ? " " : "", c->unit)
                : g_strdup("\xe2\x80\x93");
    gboolean known = strcmp(c->status, "known") == 0;
    g_string_append_printf(out, "<tr%s data-claim=\"", known ? " class=\"known\"" : "");
    esc(out, c->id);
    g_string_append(out, "\" data-status=\"");
    esc(out, c->status);
    g_string_append(out, "\"><th scope=\"row\" title=\"");
    esc(out, c->text);
    g_string_append(out, "\">");
    esc(out, c->id);
    g_string_append(out, "</th>");
    value_cell(out, "paper", c->paper, paper);
    value_cell(out, "lbsim", c->done ? c->lbsim : NAN, lbsim);
    g_string_append(out, "<td>");
    esc(out, c->rule);
    g_string_append_printf(out, "</td><td>%s</td><td class=\"text\">",
                           !c->done    ? "\xe2\x80\x93"
                           : c->agrees ? "yes"
                           : known     ? "<strong>no</strong> (known)"
                                       : "<strong>no</strong>");
    if (c->headline)
      g_string_append(out, "(headline) ");
    if (c->calibrated != NULL)
      g_string_append(out, "(calibrated) ");
    esc(out, c->note);
    g_string_append(out, "</td></tr>\n");
  }
  g_string_append(out, "</tbody>\n</table>\n<p class=\"files\">Hover a claim for its text; "
                       "every claim is in the JSON linked below.</p>\n");
}

/* lbsim's own numbers beside the claims, and the inputs the paper does
 * not state with where each comes from. */
static void
diagnostics_and_calibration(GString *out, const LbReproduction *rep)
{
  gboolean any = FALSE;
  for (guint i = 0; i < rep->nclaims; i++) {
    const LbClaimRow *c = &rep->claims[i];
    if (!c->diagnostic)
      continue;
    if (!any)
      g_string_append(out, "<h2 id=\"diagnostics-section\">Diagnostics</h2>\n<p "
                           "class=\"note\">lbsim's own numbers, not the paper's: no claim "
                           "is made of them.</p>\n<table class=\"numbers\" "
                           "id=\"diagnostics\">\n<thead><tr><th scope=\"col\">diagnostic</th>"
                           "<th scope=\"col\">lbsim</th><th scope=\"col\">what</th><th "
                           "scope=\"col\">note</th></tr></thead>\n<tbody>\n");
    any = TRUE;
    g_autofree char *lbsim = c->done ? claim_number(c->lbsim, c->unit) : g_strdup("\xe2\x80\x93");
    g_string_append(out, "<tr data-diagnostic=\"");
    esc(out, c->id);
    g_string_append(out, "\"><th scope=\"row\">");
    esc(out, c->id);
    g_string_append(out, "</th>");
    value_cell(out, "lbsim", c->done ? c->lbsim : NAN, lbsim);
    g_string_append(out, "<td class=\"text\">");
    esc(out, c->text);
    g_string_append(out, "</td><td class=\"text\">");
    esc(out, c->note);
    g_string_append(out, "</td></tr>\n");
  }
  if (any)
    g_string_append(out, "</tbody>\n</table>\n");
  if (rep->ncalibration == 0)
    return;
  g_string_append(out, "<h2 id=\"calibration-section\">Calibration</h2>\n<p class=\"note\">"
                       "The inputs the paper does not state, each with where its value comes "
                       "from.</p>\n<table class=\"facts\" id=\"calibration\">\n<thead><tr><th "
                       "scope=\"col\">input</th><th scope=\"col\">value</th><th "
                       "scope=\"col\">source</th></tr></thead>\n<tbody>\n");
  for (guint i = 0; i < rep->ncalibration; i++) {
    g_string_append(out, "<tr><th scope=\"row\">");
    esc(out, rep->calibration[i].key);
    g_string_append(out, "</th><td>");
    esc(out, rep->calibration[i].value);
    g_string_append(out, "</td><td>");
    esc(out, rep->calibration[i].source);
    g_string_append(out, "</td></tr>\n");
  }
  g_string_append(out, "</tbody>\n</table>\n");
}

/* Text as a file name's part: lower case, a '-' for every run of other
 * characters than letters and digits, at most 80 characters. */
static char *
slug(const char *text, gssize length)
{
  g_autofree char *lower = g_ascii_strdown(text, length);
  GString *out = g_string_new(NULL);
  for (const char *c = lower; *c != '\0'; c++)
    if (g_ascii_isalnum(*c))
      g_string_append_c(out, *c);
    else if (out->len > 0 && out->str[out->len - 1] != '-')
      g_string_append_c(out, '-');
  if (out->len > 80)
    g_string_truncate(out, 80);
  while (out->len > 0 && out->str[out->len - 1] == '-')
    g_string_truncate(out, out->len - 1);
  if (out->len == 0)
    g_string_assign(out, "figure");
  return g_string_free(out, FALSE);
}

/* The figures' file names: each its reference, the words before its ':'
 * ("Fig. 1, problem 1 (h = 10): ..." is fig-1-problem-1-h-10); figures
 * that share a reference each their whole text; a number after a name
 * taken still. */
static GPtrArray *
figure_slugs(GPtrArray *figures)
{
  GPtrArray *out = g_ptr_array_new_with_free_func(g_free);
  g_autoptr(GPtrArray) short_names = g_ptr_array_new_with_free_func(g_free);
  for (guint k = 0; k < figures->len; k++) {
    const char *f = figures->pdata[k];
    g_ptr_array_add(short_names, slug(f, (gssize)strcspn(f, ":")));
  }
  for (guint k = 0; k < figures->len; k++) {
    guint same = 0;
    for (guint j = 0; j < figures->len; j++)
      same += strcmp(short_names->pdata[j], short_names->pdata[k]) == 0;
    g_autofree char *name =
        same > 1 ? slug(figures->pdata[k], -1) : g_strdup(short_names->pdata[k]);
    char *unique = g_strdup(name);
    for (guint n = 2; g_ptr_array_find_with_equal_func(out, unique, g_str_equal, NULL); n++) {
      g_free(unique);
      unique = g_strdup_printf("%s-%u", name, n);
    }
    g_ptr_array_add(out, unique);
  }
  return out;
}

/* The points of one line: (processors, value) in the order of the
 * processors. */
static void
line_points(GPtrArray *points, gboolean paper, GArray *x, GArray *y)
{
  g_autoptr(GArray) order = g_array_new(FALSE, FALSE, sizeof(double));
  for (guint i = 0; i < points->len; i++) {
    const LbFigurePoint *pt = points->pdata[i];
    double v = paper ? pt->paper : pt->lbsim, r = pt->ranks;
    if (!isfinite(v))
      continue;
    guint at = 0;
    while (at < x->len && g_array_index(x, double, at) <= r)
      at++;
    g_array_insert_val(x, at, r);
    g_array_insert_val(y, at, v);
  }
}

/* One chart per figure the claims name: a series per quantity its claims
 * measure (a claim of one number at one processor count is a point of
 * its quantity's lines; a claim of several points, lbsim's line and the
 * bounds the paper states), the paper's numbers dashed, lbsim's solid,
 * against the processors; each file named after the figure. */
static gboolean
figure_charts(Out *o, GString *out, const LbReproduction *rep, GError **error)
{
  g_autoptr(GPtrArray) figures = g_ptr_array_new();
  for (guint i = 0; i < rep->nclaims; i++) {
    const char *f = rep->claims[i].figure;
    if (f != NULL && !g_ptr_array_find_with_equal_func(figures, f, g_str_equal, NULL))
      g_ptr_array_add(figures, (gpointer)f);
  }
  g_string_append(out, "<h2 id=\"figures-section\">The paper's figures</h2>\n");
  g_autoptr(GPtrArray) slugs = figure_slugs(figures);
  for (guint k = 0; k < figures->len; k++) {
    const char *figure = figures->pdata[k];
    g_autoptr(GPtrArray) points = g_ptr_array_new();
    const char *unit = "";
    for (guint i = 0; i < rep->nclaims; i++) {
      const LbClaimRow *c = &rep->claims[i];
      if (c->figure == NULL || strcmp(c->figure, figure) != 0)
        continue;
      unit = c->unit;
      for (guint p = 0; p < c->npoints; p++)
        g_ptr_array_add(points, (gpointer)&c->points[p]);
    }
    const char *name = slugs->pdata[k];
    g_autoptr(LbPlot) plot = new_plot(o, LB_PLOT_LINES, name, figure);
    lb_plot_x_axis(plot, "processors", LB_PLOT_LOG2, NULL);
    lb_plot_value_axis(plot, *unit != '\0' ? unit : "value", 0, FALSE);
    lb_plot_style(plot, 0, "lbsim");
    lb_plot_style(plot, 1, "the paper");
    g_autoptr(GString) csv = g_string_new("series,processors,paper,lbsim\n");
    g_autoptr(GPtrArray) series = g_ptr_array_new();
    for (guint i = 0; i < points->len; i++) {
      const LbFigurePoint *pt = points->pdata[i];
      if (!g_ptr_array_find_with_equal_func(series, pt->series, g_str_equal, NULL))
        g_ptr_array_add(series, (gpointer)pt->series);
    }
    for (guint l = 0; l < series->len; l++) {
      lb_plot_series(plot, series->pdata[l]);
      for (guint line = 0; line < 3; line++) { /* the paper's two, then lbsim's */
        g_autoptr(GPtrArray) on = g_ptr_array_new();
        for (guint i = 0; i < points->len; i++) {
          const LbFigurePoint *pt = points->pdata[i];
          if (strcmp(pt->series, series->pdata[l]) == 0 &&
              (line == 2 ? isfinite(pt->lbsim) : isfinite(pt->paper) && pt->line == line))
            g_ptr_array_add(on, (gpointer)pt);
        }
        g_autoptr(GArray) x = g_array_new(FALSE, FALSE, sizeof(double));
        g_autoptr(GArray) y = g_array_new(FALSE, FALSE, sizeof(double));
        line_points(on, line < 2, x, y);
        if (x->len > 0)
          lb_plot_line(plot, line < 2 ? 1 : 0, x->len, (double *)x->data, (double *)y->data);
      }
      for (guint i = 0; i < points->len; i++) {
        const LbFigurePoint *pt = points->pdata[i];
        if (strcmp(pt->series, series->pdata[l]) != 0)
          continue;
        lb_report_csv_text(csv, pt->series);
        g_string_append_printf(csv, ",%u", pt->ranks);
        if (isfinite(pt->paper))
          csv_number(csv, pt->paper);
        else
          g_string_append_c(csv, ',');
        if (isfinite(pt->lbsim))
          csv_number(csv, pt->lbsim);
        else
          g_string_append_c(csv, ',');
        g_string_append_c(csv, '\n');
      }
    }
    g_string_append(out, "<h3>");
    esc(out, figure);
    g_string_append(out, "</h3>\n");
    if (!put_chart(o, out, plot, name,
                   "The paper's numbers (dashed) and lbsim's (solid, where it ran) against the "
                   "processors, a line per quantity measured; for a claim of several points, "
                   "the least and the most the paper states.",
                   csv, error))
      return FALSE;
  }
  return TRUE;
}

/* What the checks computed and print (a tree, a schedule, a table of
 * step counts), each under its claim's id. */
static void
worked_examples(GString *out, const LbReproduction *rep)
{
  gboolean any = FALSE;
  for (guint i = 0; i < rep->nclaims; i++) {
    const LbClaimRow *c = &rep->claims[i];
    if (c->detail == NULL)
      continue;
    if (!any)
      g_string_append(out, "<h2 id=\"examples-section\">As lbsim computes them</h2>\n");
    any = TRUE;
    g_string_append(out, "<h3>");
    esc(out, c->id);
    g_string_append(out, "</h3>\n<pre>");
    esc(out, c->detail);
    g_string_append(out, "</pre>\n");
  }
}

gboolean
lb_html_write_reproduction(const LbReproduction *rep, const LbHtmlOptions *options, GError **error)
{
  g_autoptr(GPtrArray) files = g_ptr_array_new_with_free_func(g_free);
  g_auto(Out) o = {.kind = "reproduction",
                   .name = rep->key,
                   .version = LB_VERSION,
                   .json = options->json,
                   .length = options->length,
                   .dir = options->dir,
                   .files = files,
                   .chart_scale = options->chart_scale,
                   .chart_formats = options->chart_formats,
                   .look = &options->look};
  g_autoptr(GPtrArray) names = g_ptr_array_new();
  for (guint i = 0; i < rep->nclaims; i++)
    for (guint p = 0; p < rep->claims[i].npoints; p++)
      g_ptr_array_add(names, (gpointer)rep->claims[i].points[p].series);
  o.styles = lb_styles_new((const char *const *)names->pdata, names->len);
  g_auto(Manifest) old = {0};
  gboolean had = manifest_load(options->dir, &old);
  g_autofree char *json_base = file_name(rep->key, "reproduction", "json");
  if (!put_file(&o, json_base, options->json, options->length, error))
    return FALSE;
  g_autoptr(GString) page = g_string_new(NULL);
  g_autofree char *title = g_strdup_printf("%s: a reproduction", rep->key);
  page_start(page, LB_VERSION, title);
  g_string_append(page, "<header>\n<h1>");
  esc(page, title);
  g_string_append(page, "</h1>\n<p class=\"lead\">");
  esc(page, rep->cite);
  g_string_append(page, "</p>\n<p>");
  esc(page, rep->summary);
  if (rep->quick != NULL) {
    g_string_append(page, "</p>\n<p class=\"note\">The quick form: ");
    esc(page, rep->quick);
  }
  if (rep->changed != NULL) {
    g_string_append(page, "</p>\n<p class=\"note known\">Not the paper's experiment: every run "
                          "with ");
    esc(page, rep->changed);
  }
  g_string_append(page, "</p>\n</header>\n");
  scorecard(page, rep);
  claims_table(page, rep);
  diagnostics_and_calibration(page, rep);
  if (!figure_charts(&o, page, rep, error))
    return FALSE;
  worked_examples(page, rep);
  page_end(page, LB_VERSION, json_base);
  if (!put_file(&o, PAGE, page->str, page->len, error) ||
      !write_manifest(&o, json_base, FALSE, error))
    return FALSE;
  if (had)
    remove_stale(&o, &old, NULL);
  return TRUE;
}
