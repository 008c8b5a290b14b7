/* What the report's pages share: the folder and its manifest, HTML and CSV
 * text, the files a page writes, its charts (html-page.h). */
#include "report/html-page.h"

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

/* ---- the folder ---- */

gboolean
lb_page_manifest_load(const char *dir, Manifest *m)
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
  if (lb_page_manifest_load(dir, &m)) {
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

void
lb_page_esc(GString *out, const char *text)
{
  if (text == NULL)
    return;
  g_autofree char *e = g_markup_escape_text(text, -1);
  g_string_append(out, e);
}

void
lb_page_number(GString *out, double v)
{
  char buf[G_ASCII_DTOSTR_BUF_SIZE];
  if (isfinite(v))
    g_string_append(out, g_ascii_formatd(buf, sizeof buf, "%.10g", v));
}

void
lb_page_csv_number(GString *out, double v)
{
  g_string_append_c(out, ',');
  lb_page_number(out, v);
}

/* NAME.WHAT.EXT, as the pictures' files are named (lb_figure_file). */
char *
lb_page_file_name(const char *name, const char *what, const char *ext)
{
  g_autofree char *path = lb_figure_file("", name, what, ext);
  return g_path_get_basename(path);
}

/* A file name as a relative link, escaped as a URI's path. */
char *
lb_page_href(const char *base)
{
  return g_uri_escape_string(base, "+", FALSE);
}

void
lb_page_put_link(GString *out, const char *base, const char *text)
{
  g_autofree char *h = lb_page_href(base);
  g_string_append_printf(out, "<a href=\"%s\">", h);
  lb_page_esc(out, text);
  g_string_append(out, "</a>");
}

/* A table cell that shows text and carries the JSON's number. */
void
lb_page_value_cell(GString *out, const char *key, double v, const char *text)
{
  g_string_append(out, "<td data-key=\"");
  lb_page_esc(out, key);
  g_string_append(out, "\" data-value=\"");
  lb_page_number(out, v);
  g_string_append(out, "\">");
  g_autoptr(GString) shown = g_string_new(isfinite(v) ? text : "\xe2\x80\x93");
  /* a number and its unit stay on one line; the terminal's "us" is µs here */
  if (g_str_has_suffix(shown->str, " us"))
    g_string_replace(shown, " us", " \xc2\xb5s", 1);
  g_string_replace(shown, " ", "\xc2\xa0", 0);
  lb_page_esc(out, shown->str);
  g_string_append(out, "</td>");
}

/* The terminal writes no time as a bare 0; the page gives it its unit. */
char *
lb_page_with_unit(char *text, const char *unit)
{
  if (strcmp(text, "0") != 0 || unit == NULL || strcmp(unit, "s") != 0)
    return text;
  g_free(text);
  return g_strdup("0 s");
}

/* The run's declared metric of a JSON name, or NULL. */
const LbMetricDef *
lb_page_declared(const LbRunResult *r, const char *json_name, double *value)
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

double
lb_page_summary_value(const LbSummaryField *f, const LbRunResult *r)
{
  double v = 0;
  return lb_summary_get(f, r, -1, &v) ? v : NAN; /* NAN: does not apply */
}

/* The summary's fields of the terminal's table, as it writes them. */
void
lb_page_summary_cells(GString *out, const LbRunResult *r)
{
  for (const LbSummaryField *f = lb_summary(); f->name != NULL; f++) {
    if (f->column == NULL)
      continue;
    g_autofree char *text = lb_page_with_unit(lb_report_summary_text(f, r), f->unit);
    lb_page_value_cell(out, f->json, lb_page_summary_value(f, r), text);
  }
}

void
lb_page_summary_head(GString *out)
{
  for (const LbSummaryField *f = lb_summary(); f->name != NULL; f++) {
    if (f->column == NULL)
      continue;
    g_string_append(out, "<th scope=\"col\" title=\"");
    lb_page_esc(out, f->help);
    g_string_append(out, "\">");
    lb_page_esc(out, f->column);
    g_string_append(out, "</th>");
  }
}

/* The CSV's head of the summary's fields, and a run's values. */
void
lb_page_summary_csv_head(GString *csv)
{
  for (const LbSummaryField *f = lb_summary(); f->name != NULL; f++)
    if (f->csv)
      g_string_append_printf(csv, ",%s", f->json);
}

void
lb_page_summary_csv_values(GString *csv, const LbRunResult *r)
{
  for (const LbSummaryField *f = lb_summary(); f->name != NULL; f++)
    if (f->csv)
      lb_page_csv_number(csv, lb_page_summary_value(f, r));
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

void
lb_page_page_start(GString *out, const char *version, const char *title)
{
  g_string_append(out,
                  "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
                  "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n");
  g_string_append_printf(out, "<meta name=\"generator\" content=\"lbsim ");
  lb_page_esc(out, version);
  g_string_append(out, "\">\n<title>");
  lb_page_esc(out, title);
  g_string_append_printf(out,
                         " \xc2\xb7 lbsim report</title>\n<style>\n%s</style>\n</head>\n"
                         "<body>\n<main>\n",
                         style_sheet);
}

void
lb_page_page_end(GString *out, const char *version, const char *json_base)
{
  g_string_append(out, "<footer>Made by lbsim ");
  lb_page_esc(out, version);
  g_string_append(out, " from ");
  lb_page_put_link(out, json_base, json_base);
  g_string_append(out, ". This page needs no network and runs no script: its charts are SVG "
                       "inside it, and the numbers of each chart are in the CSV file linked "
                       "under it.</footer>\n</main>\n</body>\n</html>\n");
}

void
lb_page_fact(GString *out, const char *name, const char *value)
{
  g_string_append_printf(out, "<tr><th scope=\"row\">%s</th><td>", name);
  lb_page_esc(out, value);
  g_string_append(out, "</td></tr>\n");
}

void
lb_page_fact_if(GString *out, const char *name, const char *value)
{
  if (value != NULL)
    lb_page_fact(out, name, value);
}

/* ---- the files a report writes ---- */

/* A chart of the page, its names in their styles. */
LbPlot *
lb_page_new_plot(Out *o, LbPlotKind kind, const char *id, const char *title)
{
  LbPlot *plot = lb_plot_new(kind, id, title);
  lb_plot_styles(plot, o->styles);
  return plot;
}

gboolean
lb_page_put_file(Out *o, const char *base, const char *text, gsize length, GError **error)
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
gboolean
lb_page_put_chart(Out *o, GString *page, LbPlot *plot, const char *what, const char *caption,
                  const GString *csv, GError **error)
{
  lb_plot_value_scale(plot, o->chart_scale);
  g_autofree char *inline_svg = lb_plot_svg(plot, FALSE);
  lb_plot_look(plot, o->look, LB_PLOT_WIDTH, LB_PLOT_FONT);
  g_autofree char *csv_base = lb_page_file_name(o->name, what, "csv");
  if (!lb_page_put_file(o, csv_base, csv->str, csv->len, error))
    return FALSE;
  g_autoptr(GString) links = g_string_new(NULL);
  for (guint f = 0; f < LB_FIGURE_FORMATS; f++) {
    LbFigureFormat format = 1u << f;
    if (format != LB_FIGURE_SVG && !(o->chart_formats & format))
      continue;
    const char *ext = lb_figure_format_ext(format);
    g_autofree char *base = lb_page_file_name(o->name, what, ext);
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
    if (bytes == NULL || !lb_page_put_file(o, base, data, length, error))
      return FALSE;
    g_string_append(links, links->len > 0 ? " \xc2\xb7 " : "");
    lb_page_put_link(links, base, base);
  }
  g_string_append_printf(page, "<figure>\n%s<figcaption>", inline_svg);
  lb_page_esc(page, caption);
  g_string_append(page, " Numbers: ");
  lb_page_put_link(page, csv_base, csv_base);
  g_string_append_printf(page, " \xc2\xb7 chart: %s</figcaption>\n</figure>\n", links->str);
  return TRUE;
}

/* ---- writing it all ---- */

gboolean
lb_page_same_file(const char *a, const char *b)
{
  GStatBuf sa, sb;
  return g_stat(a, &sa) == 0 && g_stat(b, &sb) == 0 && sa.st_dev == sb.st_dev &&
         sa.st_ino == sb.st_ino;
}

gboolean
lb_page_write_manifest(Out *o, const char *json_base, gboolean pictures_drawn, GError **error)
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
void
lb_page_remove_stale(Out *o, const Manifest *old, const char *source)
{
  for (guint i = 0; old->files != NULL && old->files[i] != NULL; i++) {
    const char *base = old->files[i];
    if (*base == '\0' || *base == '.' || strchr(base, '/') != NULL ||
        g_ptr_array_find_with_equal_func(o->files, base, g_str_equal, NULL))
      continue;
    g_autofree char *path = g_build_filename(o->dir, base, NULL);
    if (source != NULL && lb_page_same_file(path, source))
      continue;
    g_unlink(path);
  }
}
