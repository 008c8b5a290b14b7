/* --report and lbsim report through the lbsim binary: the page's tables
 * and charts against the JSON they come from, the CSV beside them, links
 * that resolve, the folder rules, escaping, a sweep's curves, and the page
 * rendered by headless Chromium (no console message, the same numbers in
 * its DOM, a screenshot that is not blank). */
#include <glib.h>
#include <glib/gstdio.h>
#include <cairo.h>
#include <json-glib/json-glib.h>
#include <math.h>
#include <string.h>
#include <sys/wait.h>

#include "lbsim-spawn.h"
#include "figure-files.h"

G_DEFINE_AUTOPTR_CLEANUP_FUNC(cairo_surface_t, cairo_surface_destroy)

#include "chromium.h"

/* A field whose hot spots drift, on 16 ranks: none keeps its blocks, mlb
 * and lbd have phases; small enough to take a fraction of a second. */
static const char scenario_text[] = "[scenario]\n"
                                    "name = report-16\n"
                                    "platform = hypercube-16.xml\n"
                                    "ranks = 16\n"
                                    "seed = 3\n"
                                    "steps = 4\n"
                                    "[workload]\n"
                                    "model = field2d\n"
                                    "size = 64x32\n"
                                    "pattern = hotspots\n"
                                    "hotspots = 4\n"
                                    "width = 0.08\n"
                                    "amplitude = 300\n"
                                    "base = 20\n"
                                    "drift = 0.05\n"
                                    "[balancers]\n"
                                    "run = none, mlb, lbd\n";

static const char *const balancers[] = {"none", "mlb", "lbd"};
#define NBALANCERS G_N_ELEMENTS(balancers)

/* The summary's columns in the page (the terminal table's). */
static const char *const columns[] = {"imbalance_before", "imbalance_after", "schedule_steps",
                                      "messages",         "bytes_moved",     "balance_time",
                                      "app_time",         "total_time"};

/* Every family on one small field: ten balancers, 25 phase names. */
static const char families_text[] = "[scenario]\n"
                                    "name = families-16\n"
                                    "platform = hypercube-16.xml\n"
                                    "ranks = 16\n"
                                    "seed = 7\n"
                                    "steps = 3\n"
                                    "[workload]\n"
                                    "model = field2d\n"
                                    "size = 64x64\n"
                                    "pattern = hotspots\n"
                                    "hotspots = 4\n"
                                    "width = 0.06\n"
                                    "amplitude = 400\n"
                                    "base = 20\n"
                                    "drift = 0.02\n"
                                    "[balancers]\n"
                                    "run = none, mlb, mlb-nd, lbd, sfc-shift, enzo-original, "
                                    "move-split, dls, scratch-remap, diffusion\n";

static char *tmp_dir;
static char *scenario_path;

static char *
tmp_path(const char *name)
{
  return g_build_filename(tmp_dir, name, NULL);
}

static char *
read_text(const char *path)
{
  g_autofree char *text = NULL;
  g_autoptr(GError) error = NULL;
  g_file_get_contents(path, &text, NULL, &error);
  g_assert_no_error(error);
  return g_steal_pointer(&text);
}

static JsonParser *
parse_json(const char *path)
{
  JsonParser *p = json_parser_new();
  g_autoptr(GError) error = NULL;
  json_parser_load_from_file(p, path, &error);
  g_assert_no_error(error);
  return p;
}

static JsonArray *
runs_of(JsonParser *p)
{
  return json_object_get_array_member(json_node_get_object(json_parser_get_root(p)), "runs");
}

static double
member_double(JsonObject *o, const char *key)
{
  g_assert_true(json_object_has_member(o, key));
  return json_node_get_double(json_object_get_member(o, key));
}

static void
assert_close(double a, double b)
{
  g_assert_cmpfloat_with_epsilon(a, b, 1e-9 * MAX(1, fabs(b)));
}

/* The report of the scenario made by lbsim run --report (and its -o JSON),
 * once per folder name. */
static const char *
run_report(const char *name)
{
  g_autofree char *dir = tmp_path(name);
  if (!g_file_test(dir, G_FILE_TEST_IS_DIR)) {
    g_autofree char *json = g_strconcat(dir, ".json", NULL);
    g_auto(Result) r = {0};
    lbsim(&r, "run", "-q", "-j", "2", scenario_path, "--report", dir, "-o", json, NULL);
    g_test_message("%s", r.err);
    g_assert_cmpint(r.status, ==, 0);
  }
  return g_intern_string(dir);
}

static char *
report_file(const char *dir, const char *base)
{
  return g_build_filename(dir, base, NULL);
}

/* ---- reading the page (lbsim's file or Chromium's DOM) ---- */

static char *
unescape(const char *text)
{
  static const char *const entities[][2] = {{"&lt;", "<"},  {"&gt;", ">"},   {"&quot;", "\""},
                                            {"&#39;", "'"}, {"&apos;", "'"}, {"&amp;", "&"}};
  GString *out = g_string_new(NULL);
  for (const char *c = text; *c != '\0';) {
    gboolean done = FALSE;
    for (guint e = 0; e < G_N_ELEMENTS(entities) && !done; e++)
      if (g_str_has_prefix(c, entities[e][0])) {
        g_string_append(out, entities[e][1]);
        c += strlen(entities[e][0]);
        done = TRUE;
      }
    if (!done)
      g_string_append_c(out, *c++);
  }
  return g_string_free(out, FALSE);
}

/* The text from the element that opens with `<TAG ... id="ID"` to its
 * closing tag (tables and SVG charts do not nest their own kind). */
static char *
element(const char *html, const char *tag, const char *id)
{
  g_autofree char *pattern = g_strdup_printf("<%s\\b[^>]*\\bid=\"%s\".*?</%s>", tag, id, tag);
  g_autoptr(GRegex) re = g_regex_new(pattern, G_REGEX_DOTALL, 0, NULL);
  g_autoptr(GMatchInfo) m = NULL;
  if (!g_regex_match(re, html, 0, &m))
    return NULL;
  return g_match_info_fetch(m, 0);
}

/* Every match of pattern in text: group `group` of each. */
static GPtrArray *
all_matches(const char *text, const char *pattern, int group)
{
  GPtrArray *out = g_ptr_array_new_with_free_func(g_free);
  g_autoptr(GRegex) re = g_regex_new(pattern, G_REGEX_DOTALL, 0, NULL);
  g_assert_nonnull(re);
  g_autoptr(GMatchInfo) m = NULL;
  for (g_regex_match(re, text, 0, &m); g_match_info_matches(m); g_match_info_next(m, NULL))
    g_ptr_array_add(out, g_match_info_fetch(m, group));
  return out;
}

static GArray *
numbers(const char *text)
{
  GArray *out = g_array_new(FALSE, FALSE, sizeof(double));
  g_auto(GStrv) words = g_strsplit_set(text, " ,", -1);
  for (guint i = 0; words[i] != NULL; i++) {
    if (*words[i] == '\0')
      continue;
    char *end = NULL;
    double v = g_ascii_strtod(words[i], &end);
    g_assert_true(*end == '\0');
    g_array_append_val(out, v);
  }
  return out;
}

/* The summary table's rows against the runs of the JSON, in order: every
 * cell's number, and the imbalances as the terminal prints them. */
static void
check_summary(const char *html, JsonArray *runs)
{
  g_autofree char *table = element(html, "table", "summary");
  g_assert_nonnull(table);
  g_autoptr(GPtrArray) rows = all_matches(table, "<tr data-balancer=\"([^\"]*)\">(.*?)</tr>", 0);
  g_assert_cmpuint(rows->len, ==, json_array_get_length(runs));
  for (guint i = 0; i < rows->len; i++) {
    JsonObject *run = json_array_get_object_element(runs, i);
    JsonObject *summary = json_object_get_object_member(run, "summary");
    g_autoptr(GPtrArray) name = all_matches(rows->pdata[i], "data-balancer=\"([^\"]*)\"", 1);
    g_autofree char *balancer = unescape(name->pdata[0]);
    g_assert_cmpstr(balancer, ==, json_object_get_string_member(run, "balancer"));
    g_autoptr(GPtrArray) keys = all_matches(rows->pdata[i], "<td data-key=\"([^\"]*)\"", 1);
    g_autoptr(GPtrArray) values = all_matches(rows->pdata[i], "data-value=\"([^\"]*)\"", 1);
    g_autoptr(GPtrArray) texts = all_matches(rows->pdata[i], "data-value=\"[^\"]*\">([^<]*)<", 1);
    g_assert_cmpuint(keys->len, ==, G_N_ELEMENTS(columns));
    for (guint c = 0; c < G_N_ELEMENTS(columns); c++) {
      g_assert_cmpstr(keys->pdata[c], ==, columns[c]);
      assert_close(g_ascii_strtod(values->pdata[c], NULL), member_double(summary, columns[c]));
    }
    g_autofree char *after = g_strdup_printf("%.4f", member_double(summary, "imbalance_after"));
    g_assert_cmpstr(texts->pdata[1], ==, after);
  }
}

/* A chart's series: their names, in order. */
static GPtrArray *
series_of(const char *svg)
{
  return all_matches(svg, "<g class=\"series\" data-series=\"([^\"]*)\"", 1);
}

/* The text of one series' group. */
static char *
series_group(const char *svg, const char *name)
{
  g_autofree char *quoted = g_regex_escape_string(name, -1);
  g_autofree char *pattern =
      g_strdup_printf("<g class=\"series\" data-series=\"%s\"[^>]*>(.*?)</g>", quoted);
  g_autoptr(GPtrArray) m = all_matches(svg, pattern, 1);
  g_assert_cmpuint(m->len, ==, 1);
  return g_strdup(m->pdata[0]);
}

typedef struct {
  guint style;
  GArray *x, *y;   /* data-x, data-y: the numbers drawn */
  GArray *px, *py; /* the path's points */
} Line;

static void
line_free(gpointer data)
{
  Line *l = data;
  g_array_unref(l->x);
  g_array_unref(l->y);
  g_array_unref(l->px);
  g_array_unref(l->py);
  g_free(l);
}

static GPtrArray *
lines_of(const char *group)
{
  GPtrArray *lines = g_ptr_array_new_with_free_func(line_free);
  g_autoptr(GPtrArray) paths = all_matches(group, "<path class=\"line\"[^>]*>", 0);
  for (guint i = 0; i < paths->len; i++) {
    g_autoptr(GPtrArray) style = all_matches(paths->pdata[i], "data-style=\"([0-9]+)\"", 1);
    g_autoptr(GPtrArray) x = all_matches(paths->pdata[i], "data-x=\"([^\"]*)\"", 1);
    g_autoptr(GPtrArray) y = all_matches(paths->pdata[i], "data-y=\"([^\"]*)\"", 1);
    g_autoptr(GPtrArray) d = all_matches(paths->pdata[i], " d=\"([^\"]*)\"", 1);
    g_assert_cmpuint(x->len * y->len * d->len, ==, 1);
    g_assert_cmpuint(style->len, <=, 1); /* a reference's line has none */
    Line *l = g_new0(Line, 1);
    l->style = style->len > 0 ? (guint)g_ascii_strtoull(style->pdata[0], NULL, 10) : 0;
    l->x = numbers(x->pdata[0]);
    l->y = numbers(y->pdata[0]);
    g_autofree char *coords = g_strdelimit(g_strdup(d->pdata[0]), "ML", ' ');
    g_autoptr(GArray) xy = numbers(coords);
    g_assert_cmpuint(xy->len % 2, ==, 0);
    l->px = g_array_new(FALSE, FALSE, sizeof(double));
    l->py = g_array_new(FALSE, FALSE, sizeof(double));
    for (guint k = 0; k < xy->len; k += 2) {
      g_array_append_val(l->px, g_array_index(xy, double, k));
      g_array_append_val(l->py, g_array_index(xy, double, k + 1));
    }
    g_assert_cmpuint(l->px->len, ==, l->x->len);
    g_assert_cmpuint(l->y->len, ==, l->x->len);
    g_ptr_array_add(lines, l);
  }
  return lines;
}

/* The chart's value axis is a log one (data-value-scale, which the
 * geometry below checks). */
static gboolean
log_values(const char *svg)
{
  g_autoptr(GPtrArray) scale = all_matches(svg, "<svg[^>]*data-value-scale=\"([a-z]+)\"", 1);
  g_assert_cmpuint(scale->len, ==, 1);
  g_assert_true(strcmp(scale->pdata[0], "log") == 0 || strcmp(scale->pdata[0], "linear") == 0);
  return strcmp(scale->pdata[0], "log") == 0;
}

/* The points' pixels follow their numbers through one affine map per
 * axis for the whole chart (log2 of x when log_x, log of y when log_y),
 * and a larger value is drawn higher. */
static void
check_geometry(GPtrArray *all_lines, gboolean log_x, gboolean log_y)
{
  double v0 = NAN, p0 = 0, v1 = NAN, p1 = 0, x0 = NAN, q0 = 0, x1 = NAN, q1 = 0;
  for (guint pass = 0; pass < 2; pass++)
    for (guint i = 0; i < all_lines->len; i++) {
      const Line *l = all_lines->pdata[i];
      for (guint k = 0; k < l->x->len; k++) {
        double x = g_array_index(l->x, double, k), y = g_array_index(l->y, double, k);
        double px = g_array_index(l->px, double, k), py = g_array_index(l->py, double, k);
        if (log_x)
          x = log2(x);
        if (log_y)
          y = log10(y);
        if (pass == 0) { /* the extremes fix the maps */
          if (isnan(v0) || y < v0)
            v0 = y, p0 = py;
          if (isnan(v1) || y > v1)
            v1 = y, p1 = py;
          if (isnan(x0) || x < x0)
            x0 = x, q0 = px;
          if (isnan(x1) || x > x1)
            x1 = x, q1 = px;
          continue;
        }
        if (v1 > v0)
          g_assert_cmpfloat_with_epsilon(py, p0 + (y - v0) * (p1 - p0) / (v1 - v0), 0.05);
        if (x1 > x0)
          g_assert_cmpfloat_with_epsilon(px, q0 + (x - x0) * (q1 - q0) / (x1 - x0), 0.05);
      }
    }
  g_assert_true(v1 > v0);
  g_assert_cmpfloat(p1, <, p0);
  g_assert_cmpfloat(q1, >, q0);
}

/* The imbalance chart: a series per run, named and ordered as the JSON's
 * runs, with a line before (style 1) and after (style 0) balancing that
 * draws the JSON's values at every step. */
static void
check_imbalance_chart(const char *html, JsonArray *runs)
{
  g_autofree char *svg = element(html, "svg", "imbalance-steps");
  g_assert_nonnull(svg);
  g_autoptr(GPtrArray) series = series_of(svg);
  g_assert_cmpuint(series->len, ==, json_array_get_length(runs));
  g_autoptr(GPtrArray) everything = g_ptr_array_new();
  g_autoptr(GPtrArray) keep = g_ptr_array_new_with_free_func((GDestroyNotify)g_ptr_array_unref);
  for (guint i = 0; i < series->len; i++) {
    JsonObject *run = json_array_get_object_element(runs, i);
    g_assert_cmpstr(series->pdata[i], ==, json_object_get_string_member(run, "balancer"));
    JsonArray *steps = json_object_get_array_member(run, "adaptations");
    g_autofree char *group = series_group(svg, series->pdata[i]);
    GPtrArray *lines = lines_of(group);
    g_ptr_array_add(keep, lines);
    g_assert_cmpuint(lines->len, ==, 2);
    for (guint l = 0; l < lines->len; l++) {
      const Line *line = lines->pdata[l];
      const char *key = line->style == 0 ? "imbalance_after" : "imbalance_before";
      g_assert_cmpuint(line->x->len, ==, json_array_get_length(steps));
      for (guint s = 0; s < line->x->len; s++) {
        g_assert_cmpfloat(g_array_index(line->x, double, s), ==, s);
        assert_close(g_array_index(line->y, double, s),
                     member_double(json_array_get_object_element(steps, s), key));
      }
      g_ptr_array_add(everything, (gpointer)line);
    }
    g_assert_cmpuint(((Line *)lines->pdata[0])->style + ((Line *)lines->pdata[1])->style, ==, 1);
  }
  check_geometry(everything, FALSE, log_values(svg));
}

/* The phase chart: a bar per run, a segment per phase with its time. */
static void
check_phase_chart(const char *html, JsonArray *runs)
{
  g_autofree char *svg = element(html, "svg", "phase-times");
  g_assert_nonnull(svg);
  g_autoptr(GPtrArray) series = series_of(svg);
  g_assert_cmpuint(series->len, ==, json_array_get_length(runs));
  for (guint i = 0; i < series->len; i++) {
    JsonObject *run = json_array_get_object_element(runs, i);
    JsonArray *phases = json_object_get_array_member(run, "phases");
    g_autofree char *group = series_group(svg, series->pdata[i]);
    g_autoptr(GPtrArray) names = all_matches(group, "data-segment=\"([^\"]*)\"", 1);
    g_autoptr(GPtrArray) values =
        all_matches(group, "data-segment=\"[^\"]*\" data-value=\"([^\"]*)\"", 1);
    g_autoptr(GPtrArray) widths =
        all_matches(group, "data-value=\"[^\"]*\" x=\"[^\"]*\" y=\"[^\"]*\" width=\"([^\"]*)\"", 1);
    g_assert_cmpuint(names->len, ==, json_array_get_length(phases));
    g_assert_cmpuint(widths->len, ==, names->len);
    for (guint k = 0; k < names->len; k++) {
      JsonObject *p = json_array_get_object_element(phases, k);
      g_assert_cmpstr(names->pdata[k], ==, json_object_get_string_member(p, "name"));
      assert_close(g_ascii_strtod(values->pdata[k], NULL), member_double(p, "time"));
      g_assert_cmpfloat(g_ascii_strtod(widths->pdata[k], NULL), >=, 0);
    }
  }
}

/* ---- the files ---- */

/* Every CSV line split at commas (lbsim's names here have none). */
static GPtrArray *
csv_rows(const char *path)
{
  g_autofree char *text = read_text(path);
  GPtrArray *rows = g_ptr_array_new_with_free_func((GDestroyNotify)g_strfreev);
  g_auto(GStrv) lines = g_strsplit(text, "\n", -1);
  for (guint i = 0; lines[i] != NULL; i++)
    if (*lines[i] != '\0')
      g_ptr_array_add(rows, g_strsplit(lines[i], ",", -1));
  return rows;
}

static guint
column(char **head, const char *name)
{
  for (guint c = 0; head[c] != NULL; c++)
    if (strcmp(head[c], name) == 0)
      return c;
  g_assert_not_reached();
}

/* Every link and source of the page is a file of the folder (the large
 * pictures' <img>) or an image inside it (the pictures' heat maps), none
 * goes to the network, and there is no script. */
static void
check_links(const char *dir, const char *html)
{
  g_autoptr(GPtrArray) refs =
      all_matches(html, "\\b(?:href|src)=\"(?!data:image/png;base64,)([^\"#][^\"]*)\"", 1);
  g_assert_cmpuint(refs->len, >, 0);
  for (guint i = 0; i < refs->len; i++) {
    g_autofree char *name = g_uri_unescape_string(refs->pdata[i], NULL);
    g_assert_nonnull(name);
    g_assert_null(strchr(name, '/'));
    g_autofree char *path = report_file(dir, name);
    if (!g_file_test(path, G_FILE_TEST_IS_REGULAR))
      g_error("the page links %s, which is not in %s", name, dir);
  }
  g_autoptr(GRegex) remote =
      g_regex_new("(?:href|src)=\"(?:https?:|//)|url\\(['\"]?(?:https?:|//)|@import|<script|"
                  "<link\\b|<iframe\\b|<img\\b(?![^>]*\\bsrc=\")",
                  G_REGEX_CASELESS, 0, NULL);
  g_assert_false(g_regex_match(remote, html, 0, NULL));
}

static void
test_run_files(void)
{
  const char *dir = run_report("run");
  g_autofree char *json_path = g_strconcat(dir, ".json", NULL);
  g_autoptr(JsonParser) json = parse_json(json_path);
  JsonArray *runs = runs_of(json);
  g_assert_cmpuint(json_array_get_length(runs), ==, NBALANCERS);
  g_autofree char *page = report_file(dir, "index.html");
  g_autofree char *html = read_text(page);

  check_links(dir, html);
  check_summary(html, runs);
  check_imbalance_chart(html, runs);
  check_phase_chart(html, runs);

  /* a picture of each run, inline, its ids its own */
  g_autoptr(GPtrArray) pictures =
      all_matches(html, "<figure class=\"picture\" data-balancer=\"([^\"]*)\"", 1);
  g_assert_cmpuint(pictures->len, ==, NBALANCERS);
  g_autoptr(GPtrArray) ids = all_matches(html, "\\bid=\"([^\"]*)\"", 1);
  g_autoptr(GHashTable) seen = g_hash_table_new(g_str_hash, g_str_equal);
  for (guint i = 0; i < ids->len; i++) {
    if (g_hash_table_contains(seen, ids->pdata[i]))
      g_error("the id %s is used twice", (char *)ids->pdata[i]);
    g_hash_table_add(seen, ids->pdata[i]);
  }
  g_autoptr(GPtrArray) uses = all_matches(html, "(?:href=\"#|url\\(#)([^\")]*)", 1);
  for (guint i = 0; i < uses->len; i++)
    if (!g_hash_table_contains(seen, uses->pdata[i]))
      g_error("#%s is used but never defined", (char *)uses->pdata[i]);

  /* the CSV: exactly the JSON's numbers */
  g_autofree char *steps_csv = report_file(dir, "report-16.imbalance-steps.csv");
  g_autoptr(GPtrArray) rows = csv_rows(steps_csv);
  char **head = rows->pdata[0];
  guint row = 1;
  for (guint i = 0; i < NBALANCERS; i++) {
    JsonObject *run = json_array_get_object_element(runs, i);
    JsonArray *steps = json_object_get_array_member(run, "adaptations");
    for (guint s = 0; s < json_array_get_length(steps); s++, row++) {
      char **r = rows->pdata[row];
      JsonObject *a = json_array_get_object_element(steps, s);
      g_assert_cmpstr(r[column(head, "balancer")], ==, balancers[i]);
      g_assert_cmpuint(g_ascii_strtoull(r[column(head, "step")], NULL, 10), ==, s);
      assert_close(g_ascii_strtod(r[column(head, "imbalance_before")], NULL),
                   member_double(a, "imbalance_before"));
      assert_close(g_ascii_strtod(r[column(head, "imbalance_after")], NULL),
                   member_double(a, "imbalance_after"));
    }
  }
  g_assert_cmpuint(row, ==, rows->len);

  g_autofree char *summary_csv = report_file(dir, "report-16.summary.csv");
  g_autoptr(GPtrArray) srows = csv_rows(summary_csv);
  g_assert_cmpuint(srows->len, ==, NBALANCERS + 1);
  for (guint i = 0; i < NBALANCERS; i++) {
    JsonObject *run = json_array_get_object_element(runs, i);
    JsonObject *summary = json_object_get_object_member(run, "summary");
    JsonObject *metrics = json_object_get_object_member(run, "metrics");
    char **r = srows->pdata[i + 1];
    g_assert_cmpstr(r[0], ==, balancers[i]);
    /* a measure that does not apply (the schedule steps of none and lbd,
     * which declare none) is null in the JSON and an empty cell, never 0 */
    gboolean applies = strcmp(balancers[i], "mlb") == 0;
    g_assert_true(json_object_has_member(metrics, "schedule_steps") == applies);
    g_assert_true(json_object_get_null_member(summary, "schedule_steps") == !applies);
    g_assert_true(*r[column(srows->pdata[0], "schedule_steps")] == '\0' ? !applies : applies);
    for (guint c = 0; c < G_N_ELEMENTS(columns); c++)
      assert_close(g_ascii_strtod(r[column(srows->pdata[0], columns[c])], NULL),
                   member_double(summary, columns[c]));
    g_autoptr(GList) names = json_object_get_members(metrics);
    for (GList *l = names; l != NULL; l = l->next)
      assert_close(g_ascii_strtod(r[column(srows->pdata[0], l->data)], NULL),
                   member_double(metrics, l->data));
  }

  g_autofree char *phases_csv = report_file(dir, "report-16.phase-times.csv");
  g_autoptr(GPtrArray) prows = csv_rows(phases_csv);
  guint nphases = 0;
  for (guint i = 0; i < NBALANCERS; i++)
    nphases += json_array_get_length(
        json_object_get_array_member(json_array_get_object_element(runs, i), "phases"));
  g_assert_cmpuint(prows->len, ==, nphases + 1);

  /* the list of files: every one there, and everything there listed */
  g_autoptr(GKeyFile) manifest = g_key_file_new();
  g_autofree char *manifest_path = report_file(dir, "lbsim-report.ini");
  g_assert_true(g_key_file_load_from_file(manifest, manifest_path, G_KEY_FILE_NONE, NULL));
  g_auto(GStrv) files = g_key_file_get_string_list(manifest, "report", "files", NULL, NULL);
  g_assert_nonnull(files);
  g_autoptr(GDir) d = g_dir_open(dir, 0, NULL);
  guint present = 0;
  for (const char *name; (name = g_dir_read_name(d)) != NULL; present++)
    g_assert_true(g_strv_contains((const char *const *)files, name));
  g_assert_cmpuint(present, ==, g_strv_length(files));
  /* the JSON beside the page is the one -o wrote, but for wall clocks */
  g_autofree char *copy_path = report_file(dir, "report-16.run.json");
  g_autofree char *copy = read_text(copy_path);
  g_autofree char *original = read_text(json_path);
  g_autofree char *a = json_without_measured(copy), *b = json_without_measured(original);
  g_assert_cmpstr(a, ==, b);
}

/* The same JSON makes the same page: lbsim report of the run's JSON in
 * its own folder rewrites it byte for byte and keeps the pictures; in a
 * new folder, the page is the same but for the pictures, twice alike. */
static void
test_determinism(void)
{
  const char *dir = run_report("again");
  g_autofree char *page = report_file(dir, "index.html");
  g_autofree char *before = read_text(page);
  g_autofree char *json = report_file(dir, "report-16.run.json");
  g_auto(Result) r = {0};
  lbsim(&r, "report", json, dir, NULL);
  g_assert_cmpint(r.status, ==, 0);
  g_autofree char *after = read_text(page);
  g_assert_cmpstr(before, ==, after);
  g_autofree char *picture = report_file(dir, "report-16.mlb.partition.svg");
  g_assert_true(g_file_test(picture, G_FILE_TEST_IS_REGULAR));

  g_autofree char *elsewhere = tmp_path("elsewhere");
  g_autofree char *texts[2] = {NULL, NULL};
  for (guint i = 0; i < 2; i++) {
    g_auto(Result) again = {0};
    lbsim(&again, "report", json, elsewhere, NULL);
    g_assert_cmpint(again.status, ==, 0);
    g_autofree char *other = report_file(elsewhere, "index.html");
    texts[i] = read_text(other);
  }
  g_assert_cmpstr(texts[0], ==, texts[1]);
  g_assert_null(strstr(texts[0], "class=\"picture\""));
  g_assert_nonnull(strstr(texts[0], "No pictures"));
  /* --pictures, the folder other commands write, is refused here with
   * the option's new name; nothing is written */
  g_auto(Result) former = {0};
  lbsim(&former, "report", json, elsewhere, "--pictures", dir, NULL);
  g_assert_cmpint(former.status, ==, 2);
  g_assert_nonnull(strstr(former.err, "report --pictures is --partition-pictures now"));
  /* with --partition-pictures, the pictures are back and the page is the first */
  g_auto(Result) with = {0};
  lbsim(&with, "report", json, elsewhere, "--partition-pictures", dir, NULL);
  g_assert_cmpint(with.status, ==, 0);
  g_autofree char *other = report_file(elsewhere, "index.html");
  g_autofree char *text = read_text(other);
  g_autoptr(GPtrArray) pictures = all_matches(text, "<figure class=\"picture\"", 0);
  g_assert_cmpuint(pictures->len, ==, NBALANCERS);
}

/* A folder holds one report: another scenario's is refused before
 * anything runs, and replaced with --force, its files gone. */
static void
test_folder(void)
{
  const char *dir = run_report("folder");
  g_autofree char *other = tmp_path("other.ini");
  g_autoptr(GString) text = g_string_new(scenario_text);
  g_string_replace(text, "name = report-16", "name = other-16", 1);
  g_string_replace(text, "run = none, mlb, lbd", "run = none", 1);
  g_assert_true(g_file_set_contents(other, text->str, -1, NULL));
  g_auto(Result) refused = {0};
  lbsim(&refused, "run", "-q", other, "--report", dir, NULL);
  g_assert_cmpint(refused.status, ==, 2);
  g_assert_nonnull(strstr(refused.err, "holds the report of the run of report-16"));
  g_assert_nonnull(strstr(refused.err, "--force"));
  g_assert_null(strstr(refused.out, "balancer")); /* nothing ran */

  g_auto(Result) forced = {0};
  lbsim(&forced, "run", "-q", other, "--report", dir, "--force", NULL);
  g_assert_cmpint(forced.status, ==, 0);
  g_autoptr(GDir) d = g_dir_open(dir, 0, NULL);
  for (const char *name; (name = g_dir_read_name(d)) != NULL;)
    if (g_str_has_prefix(name, "report-16"))
      g_error("%s of the replaced report is left", name);
  g_autofree char *page = report_file(dir, "index.html");
  g_autofree char *html = read_text(page);
  g_assert_nonnull(strstr(html, "<h1>other-16</h1>"));

  /* the same scenario again: no --force needed */
  g_auto(Result) same = {0};
  lbsim(&same, "run", "-q", other, "--report", dir, NULL);
  g_assert_cmpint(same.status, ==, 0);

  /* a page not made by lbsim, a file, a folder whose parent is missing */
  g_autofree char *foreign = tmp_path("foreign");
  g_assert_cmpint(g_mkdir(foreign, 0777), ==, 0);
  g_autofree char *foreign_page = report_file(foreign, "index.html");
  g_assert_true(g_file_set_contents(foreign_page, "<p>mine</p>", -1, NULL));
  g_autofree char *missing = tmp_path("no/such/dir");
  const char *const bad[] = {foreign, other, missing};
  const char *const says[] = {"was not written by lbsim", "Not a directory", "No such file"};
  for (guint i = 0; i < G_N_ELEMENTS(bad); i++) {
    g_auto(Result) r = {0};
    lbsim(&r, "run", "-q", other, "--report", bad[i], NULL);
    g_assert_cmpint(r.status, ==, 2);
    g_assert_nonnull(strstr(r.err, says[i]));
  }
  g_autofree char *kept = read_text(foreign_page);
  g_assert_cmpstr(kept, ==, "<p>mine</p>");
}

/* Text from the JSON is escaped wherever the page shows it. */
static void
test_escape(void)
{
  const char *dir = run_report("escape");
  g_autofree char *json = report_file(dir, "report-16.run.json");
  g_autofree char *text = read_text(json);
  g_autoptr(GString) s = g_string_new(text);
  g_string_replace(s, "\"name\": \"report-16\"", "\"name\": \"x<b>&amp;\\\"y\"", 1);
  /* a label's variant is the user's text */
  g_string_replace(s, "\"balancer\": \"mlb\"", "\"balancer\": \"mlb:m<i>'\"", 0);
  g_autofree char *odd = tmp_path("odd.json");
  g_assert_true(g_file_set_contents(odd, s->str, -1, NULL));
  g_autofree char *out = tmp_path("odd");
  g_auto(Result) r = {0};
  lbsim(&r, "report", odd, out, NULL);
  g_test_message("%s", r.err);
  g_assert_cmpint(r.status, ==, 0);
  g_autofree char *page = report_file(out, "index.html");
  g_autofree char *html = read_text(page);
  g_assert_null(strstr(html, "<b>"));
  g_assert_null(strstr(html, "<i>"));
  g_assert_nonnull(strstr(html, "<h1>x&lt;b&gt;&amp;amp;&quot;y</h1>"));
  g_assert_nonnull(strstr(html, "data-series=\"mlb:m&lt;i&gt;&apos;\""));
  /* the files are named after the scenario as the pictures are: / as _ */
  g_autofree char *csv = report_file(out, "x<b>&amp;\"y.summary.csv");
  g_assert_true(g_file_test(csv, G_FILE_TEST_IS_REGULAR));
  check_links(out, html);
}

/* JSON that is not lbsim's is bad input that names the file and where. */
static void
test_bad_json(void)
{
  static const char *const cases[][2] = {
      {"not json", "not JSON"},
      {"[1, 2]", "not lbsim's JSON"},
      {"{\"lbsim\": \"0\", \"scenario\": {\"name\": \"a\"}, \"ranks\": 2, \"runs\": [{}]}",
       "runs[0].balancer: missing, expected a string"},
      /* the results are read as this lbsim's balancers made them */
      {"{\"lbsim\": \"0\", \"scenario\": {\"name\": \"a\"}, \"ranks\": 2, \"runs\": "
       "[{\"balancer\": \"nosuch\"}]}",
       "runs[0].balancer: 'nosuch' is not a balancer of this lbsim"},
      {"{\"lbsim\": \"0\", \"scenario\": {\"name\": \"a\"}, \"ranks\": 2, \"runs\": "
       "[{\"balancer\": \"mlb\", \"summary\": {}, \"adaptations\": []}]}",
       "runs[0].summary.imbalance_before: missing, expected a number"},
      {"{\"lbsim\": \"0\", \"scenario\": {\"name\": \"\"}, \"ranks\": 2, \"runs\": []}",
       "scenario.name: empty"},
      {"{\"lbsim\": \"0\", \"scenario\": {\"name\": \"a\"}, \"ranks\": 2.5, \"runs\": []}",
       "ranks: expected a whole number from 1 to 1048576"},
      {"{\"lbsim\": \"0\", \"scenario\": {\"name\": \"a\"}, \"ranks\": 2, \"runs\": "
       "[{\"balancer\": \"mlb\", \"summary\": {}, \"adaptations\": [], \"final_loads\": [1]}]}",
       "runs[0].final_loads: 1 entries, expected one per rank (2)"},
      {"{\"lbsim\": \"0\", \"scenario\": {\"name\": \"a\"}, \"ranks\": 2, \"runs\": "
       "[{\"balancer\": \"mlb\", \"summary\": {}, \"adaptations\": [], \"final_loads\": [1, "
       "-1]}]}",
       "runs[0].final_loads[1]: expected a whole number from 0 to"},
      {"{\"lbsim\": \"0\", \"scenario\": {\"name\": \"a\"}, \"ranks\": 2, \"runs\": "
       "[{\"balancer\": \"mlb\", \"summary\": {\"imbalance_before\": 1, \"imbalance_after\": 1, "
       "\"schedule_steps\": -1}, \"adaptations\": []}]}",
       "runs[0].summary.schedule_steps: expected a whole number from 0 to"},
      /* a chart's axis up to the largest double would never end */
      {"{\"lbsim\": \"0\", \"scenario\": {\"name\": \"a\"}, \"ranks\": 2, \"runs\": "
       "[{\"balancer\": \"mlb\", \"summary\": {\"imbalance_before\": 1.7e308}, \"adaptations\": "
       "[]}]}",
       "runs[0].summary.imbalance_before: expected a number from 0 to 1e+300, or null"},
      {"{\"lbsim\": \"0\", \"sweep\": {\"scenario\": \"s.ini\", \"runs_total\": -5, "
       "\"vary\": []}, \"runs\": []}",
       "sweep.runs_total: expected a whole number from 0 to"},
      {"{\"lbsim\": \"0\", \"sweep\": {\"scenario\": \"s.ini\", \"vary\": [{\"name\": \"ranks\", "
       "\"values\": [2]}]}, \"runs\": [{\"point\": {\"ranks\": 4}, \"balancer\": \"mlb\"}]}",
       "runs[0]: point \"ranks\" should be one of sweep.vary's values"},
      {"{\"lbsim\": \"0\", \"sweep\": {\"scenario\": \"s.ini\", \"vary\": [{\"name\": \"ranks\", "
       "\"values\": [2]}, {\"name\": \"ranks\", \"values\": [4]}]}, \"runs\": []}",
       "sweep.vary[1].name: \"ranks\" is varied twice"},
  };
  /* json-glib would recurse once per level */
  g_autofree char *deep = g_strnfill(100000, '[');
  for (guint i = 0; i <= G_N_ELEMENTS(cases); i++) {
    const char *text = i < G_N_ELEMENTS(cases) ? cases[i][0] : deep;
    const char *says = i < G_N_ELEMENTS(cases) ? cases[i][1] : "nested more than 64 deep";
    g_autofree char *name = g_strdup_printf("bad-%u.json", i);
    g_autofree char *path = tmp_path(name);
    g_assert_true(g_file_set_contents(path, text, -1, NULL));
    g_autofree char *out = tmp_path("bad-out");
    g_auto(Result) r = {0};
    lbsim(&r, "report", path, out, NULL);
    g_assert_cmpint(r.status, ==, 2);
    g_assert_nonnull(strstr(r.err, path));
    if (strstr(r.err, says) == NULL)
      g_error("case %u: %s", i, r.err);
    g_assert_false(g_file_test(out, G_FILE_TEST_EXISTS));
  }
}

/* ---- a sweep ---- */

static const guint sweep_ranks[] = {4, 8, 16};
static const char *const sweep_amplitudes[] = {"100", "300"};

static char *
sweep_run_path(guint p, guint a)
{
  g_autofree char *name = g_strdup_printf("sweep-%u-%s.json", sweep_ranks[p], sweep_amplitudes[a]);
  return tmp_path(name);
}

/* A sweep's JSON as lbsim sweep writes it, put together from runs of the
 * scenario at every point. */
static const char *
sweep_json(void)
{
  g_autofree char *path = tmp_path("sweep.json");
  if (g_file_test(path, G_FILE_TEST_EXISTS))
    return g_intern_string(path);
  g_autoptr(JsonBuilder) b = json_builder_new();
  json_builder_begin_object(b);
  json_builder_set_member_name(b, "lbsim");
  json_builder_add_string_value(b, "test");
  json_builder_set_member_name(b, "sweep");
  json_builder_begin_object(b);
  json_builder_set_member_name(b, "scenario");
  json_builder_add_string_value(b, scenario_path);
  json_builder_set_member_name(b, "vary");
  json_builder_begin_array(b);
  json_builder_begin_object(b);
  json_builder_set_member_name(b, "name");
  json_builder_add_string_value(b, "ranks");
  json_builder_set_member_name(b, "values");
  json_builder_begin_array(b);
  for (guint p = 0; p < G_N_ELEMENTS(sweep_ranks); p++)
    json_builder_add_int_value(b, sweep_ranks[p]);
  json_builder_end_array(b);
  json_builder_end_object(b);
  json_builder_begin_object(b);
  json_builder_set_member_name(b, "name");
  json_builder_add_string_value(b, "workload.amplitude");
  json_builder_set_member_name(b, "values");
  json_builder_begin_array(b);
  for (guint a = 0; a < G_N_ELEMENTS(sweep_amplitudes); a++)
    json_builder_add_string_value(b, sweep_amplitudes[a]);
  json_builder_end_array(b);
  json_builder_end_object(b);
  json_builder_end_array(b);
  json_builder_set_member_name(b, "runs_total");
  json_builder_add_int_value(b, G_N_ELEMENTS(sweep_ranks) * G_N_ELEMENTS(sweep_amplitudes) *
                                    NBALANCERS);
  json_builder_end_object(b);
  json_builder_set_member_name(b, "runs");
  json_builder_begin_array(b);
  g_autoptr(GPtrArray) parsers = g_ptr_array_new_with_free_func(g_object_unref);
  for (guint p = 0; p < G_N_ELEMENTS(sweep_ranks); p++)
    for (guint a = 0; a < G_N_ELEMENTS(sweep_amplitudes); a++) {
      g_autofree char *out = sweep_run_path(p, a);
      g_autofree char *ranks = g_strdup_printf("%u", sweep_ranks[p]);
      g_autofree char *set = g_strdup_printf("workload.amplitude=%s", sweep_amplitudes[a]);
      g_auto(Result) r = {0};
      lbsim(&r, "run", "-q", "-j", "2", scenario_path, "--ranks", ranks, "--set", set, "-o", out,
            NULL);
      g_assert_cmpint(r.status, ==, 0);
      JsonParser *parser = parse_json(out);
      g_ptr_array_add(parsers, parser);
      JsonArray *runs = runs_of(parser);
      for (guint i = 0; i < json_array_get_length(runs); i++) {
        JsonObject *run = json_array_get_object_element(runs, i);
        json_builder_begin_object(b);
        json_builder_set_member_name(b, "point");
        json_builder_begin_object(b);
        json_builder_set_member_name(b, "ranks");
        json_builder_add_int_value(b, sweep_ranks[p]);
        json_builder_set_member_name(b, "workload.amplitude");
        json_builder_add_string_value(b, sweep_amplitudes[a]);
        json_builder_end_object(b);
        json_builder_set_member_name(b, "balancer");
        json_builder_add_string_value(b, json_object_get_string_member(run, "balancer"));
        json_builder_set_member_name(b, "result");
        json_builder_add_value(b, json_node_copy(json_array_get_element(runs, i)));
        json_builder_end_object(b);
      }
    }
  json_builder_end_array(b);
  json_builder_end_object(b);
  g_autoptr(JsonGenerator) gen = json_generator_new();
  g_autoptr(JsonNode) root = json_builder_get_root(b);
  json_generator_set_root(gen, root);
  json_generator_set_pretty(gen, TRUE);
  g_autoptr(GError) error = NULL;
  json_generator_to_file(gen, path, &error);
  g_assert_no_error(error);
  return g_intern_string(path);
}

static double
summary_of(guint p, guint a, const char *balancer, const char *key)
{
  g_autofree char *path = sweep_run_path(p, a);
  g_autoptr(JsonParser) parser = parse_json(path);
  JsonArray *runs = runs_of(parser);
  for (guint i = 0; i < json_array_get_length(runs); i++) {
    JsonObject *run = json_array_get_object_element(runs, i);
    if (strcmp(json_object_get_string_member(run, "balancer"), balancer) == 0)
      return member_double(json_object_get_object_member(run, "summary"), key);
  }
  g_assert_not_reached();
}

/* A sweep chart against one parameter: a series per balancer, a line
 * per value of the other, through the runs' values in the parameter's
 * order. */
static void
check_sweep_chart(const char *html, const char *id, gboolean by_ranks, const char *key)
{
  g_autofree char *svg = element(html, "svg", id);
  g_assert_nonnull(svg);
  g_autoptr(GPtrArray) series = series_of(svg);
  g_assert_cmpuint(series->len, ==, NBALANCERS);
  g_autoptr(GPtrArray) everything = g_ptr_array_new();
  g_autoptr(GPtrArray) keep = g_ptr_array_new_with_free_func((GDestroyNotify)g_ptr_array_unref);
  guint nlines = by_ranks ? G_N_ELEMENTS(sweep_amplitudes) : G_N_ELEMENTS(sweep_ranks);
  guint npoints = by_ranks ? G_N_ELEMENTS(sweep_ranks) : G_N_ELEMENTS(sweep_amplitudes);
  for (guint b = 0; b < NBALANCERS; b++) {
    g_assert_cmpstr(series->pdata[b], ==, balancers[b]);
    g_autofree char *group = series_group(svg, balancers[b]);
    GPtrArray *lines = lines_of(group);
    g_ptr_array_add(keep, lines);
    g_assert_cmpuint(lines->len, ==, nlines);
    for (guint l = 0; l < nlines; l++) {
      const Line *line = lines->pdata[l];
      g_assert_cmpuint(line->style, ==, l);
      g_assert_cmpuint(line->x->len, ==, npoints);
      for (guint k = 0; k < npoints; k++) {
        guint p = by_ranks ? k : l, a = by_ranks ? l : k;
        double x = by_ranks ? sweep_ranks[p] : g_ascii_strtod(sweep_amplitudes[a], NULL);
        g_assert_cmpfloat(g_array_index(line->x, double, k), ==, x);
        assert_close(g_array_index(line->y, double, k), summary_of(p, a, balancers[b], key));
      }
      g_ptr_array_add(everything, (gpointer)line);
    }
  }
  /* time against ranks: ideal scaling from the fastest run on the fewest
   * ranks, drawn on the chart's axes; no such line elsewhere */
  g_autoptr(GPtrArray) references =
      all_matches(svg, "<g class=\"reference\" data-reference=\"([^\"]*)\"[^>]*>(.*?)</g>", 0);
  gboolean ideal = by_ranks && strcmp(key, "total_time") == 0;
  g_assert_cmpuint(references->len, ==, ideal ? 1 : 0);
  g_autoptr(GPtrArray) reference = ideal ? lines_of(references->pdata[0]) : NULL;
  if (ideal) {
    double fastest = G_MAXDOUBLE;
    for (guint b = 0; b < NBALANCERS; b++)
      for (guint a = 0; a < G_N_ELEMENTS(sweep_amplitudes); a++)
        fastest = MIN(fastest, summary_of(0, a, balancers[b], key));
    g_autofree char *label =
        g_strdup_printf("data-reference=\"ideal scaling from %u ranks\"", sweep_ranks[0]);
    g_assert_nonnull(strstr(references->pdata[0], label));
    g_assert_cmpuint(reference->len, ==, 1);
    const Line *line = reference->pdata[0];
    g_assert_cmpuint(line->x->len, ==, G_N_ELEMENTS(sweep_ranks));
    for (guint k = 0; k < line->x->len; k++) {
      g_assert_cmpfloat(g_array_index(line->x, double, k), ==, sweep_ranks[k]);
      assert_close(g_array_index(line->y, double, k), fastest * sweep_ranks[0] / sweep_ranks[k]);
    }
    g_ptr_array_add(everything, reference->pdata[0]);
  }
  check_geometry(everything, by_ranks, log_values(svg));
}

static const char *
sweep_report(void)
{
  g_autofree char *dir = tmp_path("sweep");
  if (!g_file_test(dir, G_FILE_TEST_IS_DIR)) {
    g_auto(Result) r = {0};
    lbsim(&r, "report", sweep_json(), dir, NULL);
    g_test_message("%s", r.err);
    g_assert_cmpint(r.status, ==, 0);
  }
  return g_intern_string(dir);
}

static void
test_sweep(void)
{
  const char *dir = sweep_report();
  g_autofree char *page = report_file(dir, "index.html");
  g_autofree char *html = read_text(page);
  check_links(dir, html);
  check_sweep_chart(html, "vs-ranks-time", TRUE, "total_time");
  check_sweep_chart(html, "vs-ranks-imbalance", TRUE, "imbalance_after");
  check_sweep_chart(html, "vs-workload.amplitude-time", FALSE, "total_time");
  check_sweep_chart(html, "vs-workload.amplitude-imbalance", FALSE, "imbalance_after");
  /* the table: a row per run, in the sweep's order */
  g_autoptr(JsonParser) sweep = parse_json(sweep_json());
  JsonArray *runs = runs_of(sweep);
  g_autoptr(JsonArray) results = json_array_new();
  for (guint i = 0; i < json_array_get_length(runs); i++)
    json_array_add_element(results, json_node_copy(json_object_get_member(
                                        json_array_get_object_element(runs, i), "result")));
  check_summary(html, results);
  /* a chart's CSV: balancer, the other parameter, the parameter, the value */
  g_autofree char *csv = report_file(dir, "report-16.vs-ranks.time.csv");
  g_autoptr(GPtrArray) rows = csv_rows(csv);
  g_assert_cmpuint(rows->len, ==, 1 + json_array_get_length(runs));
  char **head = rows->pdata[0];
  g_assert_cmpstr(head[0], ==, "balancer");
  g_assert_cmpstr(head[1], ==, "workload.amplitude");
  g_assert_cmpstr(head[2], ==, "ranks");
  g_assert_cmpstr(head[3], ==, "total_time");
  char **first = rows->pdata[1];
  g_assert_cmpstr(first[0], ==, balancers[0]);
  g_assert_cmpstr(first[1], ==, sweep_amplitudes[0]);
  g_assert_cmpstr(first[2], ==, "4");
  assert_close(g_ascii_strtod(first[3], NULL), summary_of(0, 0, balancers[0], "total_time"));
}

/* ---- styles, scales, units ---- */

/* The report of the families' scenario (lbsim run --report, and its -o
 * JSON beside the folder), made once. */
static const char *
families_report(void)
{
  g_autofree char *dir = tmp_path("families");
  if (!g_file_test(dir, G_FILE_TEST_IS_DIR)) {
    g_autofree char *ini = tmp_path("families-16.ini");
    g_assert_true(g_file_set_contents(ini, families_text, -1, NULL));
    g_autofree char *json = g_strconcat(dir, ".json", NULL);
    g_auto(Result) r = {0};
    lbsim(&r, "run", "-q", "-j", "2", ini, "--report", dir, "-o", json, NULL);
    g_test_message("%s", r.err);
    g_assert_cmpint(r.status, ==, 0);
  }
  return g_intern_string(dir);
}

/* A chart's series with their styles, "NAME colour marker dash", in
 * order. */
static GPtrArray *
series_styles(const char *svg)
{
  GPtrArray *out = g_ptr_array_new_with_free_func(g_free);
  g_autoptr(GRegex) re =
      g_regex_new("<g class=\"series\" data-series=\"([^\"]*)\" data-colour=\"(#[0-9a-f]{6})\" "
                  "data-marker=\"([a-z-]+)\" data-dash=\"([^\"]+)\"",
                  0, 0, NULL);
  g_autoptr(GMatchInfo) m = NULL;
  for (g_regex_match(re, svg, 0, &m); g_match_info_matches(m); g_match_info_next(m, NULL)) {
    g_autofree char *name = g_match_info_fetch(m, 1), *colour = g_match_info_fetch(m, 2);
    g_autofree char *marker = g_match_info_fetch(m, 3), *dash = g_match_info_fetch(m, 4);
    g_ptr_array_add(out, g_strdup_printf("%s %s %s %s", name, colour, marker, dash));
  }
  return out;
}

/* No two series of a chart share a colour and a marker (nor a style). */
static int
compare_doubles(gconstpointer a, gconstpointer b)
{
  double x = *(const double *)a, y = *(const double *)b;
  return x < y ? -1 : x > y;
}

static void
check_distinct_styles(GPtrArray *styles)
{
  g_autoptr(GHashTable) seen = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, NULL);
  for (guint i = 0; i < styles->len; i++) {
    const char *style = strchr(styles->pdata[i], ' ') + 1;
    g_auto(GStrv) parts = g_strsplit(style, " ", 3);
    g_autofree char *pair = g_strdup_printf("%s %s", parts[0], parts[1]);
    if (!g_hash_table_add(seen, g_steal_pointer(&pair)))
      g_error("%s: colour and marker of another series", (char *)styles->pdata[i]);
  }
}

/* The families' page: a style per balancer, distinct, the same on both
 * charts; the phases' fills keyed by name, distinct past the 16 colours
 * (the hatched and dotted ones defined in the chart), each in the
 * legend; and on every bar the summary's balance time. */
static void
check_families_charts(const char *html, JsonArray *runs)
{
  g_autofree char *lines = element(html, "svg", "imbalance-steps");
  g_autofree char *bars = element(html, "svg", "phase-times");
  g_assert_nonnull(lines);
  g_assert_nonnull(bars);
  g_autoptr(GPtrArray) line_styles = series_styles(lines);
  g_autoptr(GPtrArray) bar_styles = series_styles(bars);
  g_assert_cmpuint(line_styles->len, ==, json_array_get_length(runs));
  g_assert_cmpuint(bar_styles->len, ==, line_styles->len);
  for (guint i = 0; i < line_styles->len; i++) {
    g_assert_true(g_str_has_prefix(
        line_styles->pdata[i],
        json_object_get_string_member(json_array_get_object_element(runs, i), "balancer")));
    g_assert_cmpstr(bar_styles->pdata[i], ==, line_styles->pdata[i]);
  }
  check_distinct_styles(line_styles);

  g_autoptr(GPtrArray) names =
      all_matches(bars, "<rect class=\"segment\" data-segment=\"([^\"]*)\"", 1);
  g_autoptr(GPtrArray) fills =
      all_matches(bars, "<rect class=\"segment\"[^>]* fill=\"([^\"]*)\"", 1);
  g_assert_cmpuint(fills->len, ==, names->len);
  g_autoptr(GHashTable) fill_of = g_hash_table_new(g_str_hash, g_str_equal);
  g_autoptr(GHashTable) name_of = g_hash_table_new(g_str_hash, g_str_equal);
  for (guint k = 0; k < names->len; k++) {
    const char *known = g_hash_table_lookup(fill_of, names->pdata[k]);
    if (known != NULL)
      g_assert_cmpstr(known, ==, fills->pdata[k]);
    const char *named = g_hash_table_lookup(name_of, fills->pdata[k]);
    if (named != NULL && strcmp(named, names->pdata[k]) != 0)
      g_error("the phases %s and %s share the fill %s", named, (char *)names->pdata[k],
              (char *)fills->pdata[k]);
    g_hash_table_insert(fill_of, names->pdata[k], fills->pdata[k]);
    g_hash_table_insert(name_of, fills->pdata[k], names->pdata[k]);
    if (g_str_has_prefix(fills->pdata[k], "url(#")) {
      g_autofree char *id = g_strndup((char *)fills->pdata[k] + 5, strlen(fills->pdata[k]) - 6);
      g_autofree char *def = g_strdup_printf("<pattern id=\"%s\"", id);
      g_assert_nonnull(strstr(bars, def));
    }
  }
  g_assert_cmpuint(g_hash_table_size(fill_of), >, 16); /* past the colours alone */
  g_autofree char *legend = element(bars, "g", "phase-times-legend");
  g_assert_nonnull(legend);
  GHashTableIter it;
  gpointer name;
  g_hash_table_iter_init(&it, fill_of);
  while (g_hash_table_iter_next(&it, &name, NULL)) {
    g_autofree char *text = g_strdup_printf(">%s</text>", (char *)name);
    g_assert_nonnull(strstr(legend, text));
  }

  for (guint i = 0; i < json_array_get_length(runs); i++) {
    JsonObject *run = json_array_get_object_element(runs, i);
    g_autofree char *group = series_group(bars, json_object_get_string_member(run, "balancer"));
    g_autoptr(GPtrArray) marks =
        all_matches(group, "<path class=\"mark\"[^>]* data-value=\"([^\"]*)\"", 1);
    if (json_array_get_length(json_object_get_array_member(run, "phases")) == 0) {
      g_assert_cmpuint(marks->len, ==, 0);
      continue;
    }
    g_assert_cmpuint(marks->len, ==, 1);
    assert_close(g_ascii_strtod(marks->pdata[0], NULL),
                 member_double(json_object_get_object_member(run, "summary"), "balance_time"));
  }
}

/* The close-up of the imbalance after balancing: the balancers whose
 * largest excess over 1 is under ten times the median one's, each in its
 * style of the chart above, through its values after balancing. */
static void
check_close_up(const char *html, JsonArray *runs)
{
  guint n = json_array_get_length(runs);
  g_autofree double *excess = g_new0(double, n);
  g_autoptr(GArray) sorted = g_array_new(FALSE, FALSE, sizeof(double));
  for (guint i = 0; i < n; i++) {
    JsonArray *steps =
        json_object_get_array_member(json_array_get_object_element(runs, i), "adaptations");
    for (guint s = 0; s < json_array_get_length(steps); s++)
      excess[i] = MAX(
          excess[i], member_double(json_array_get_object_element(steps, s), "imbalance_after") - 1);
    g_array_append_val(sorted, excess[i]);
  }
  g_array_sort(sorted, (GCompareFunc)compare_doubles);
  double median =
      n % 2 ? g_array_index(sorted, double, n / 2)
            : (g_array_index(sorted, double, n / 2 - 1) + g_array_index(sorted, double, n / 2)) / 2;
  g_autofree char *main_svg = element(html, "svg", "imbalance-steps");
  g_autofree char *svg = element(html, "svg", "imbalance-close");
  g_assert_nonnull(svg);
  g_autoptr(GPtrArray) main_styles = series_styles(main_svg);
  g_autoptr(GPtrArray) styles = series_styles(svg);
  guint k = 0, left = 0;
  for (guint i = 0; i < n; i++) {
    JsonObject *run = json_array_get_object_element(runs, i);
    if (excess[i] >= 10 * median) {
      left++;
      continue;
    }
    g_assert_cmpuint(k, <, styles->len);
    g_assert_cmpstr(styles->pdata[k], ==, main_styles->pdata[i]);
    g_autofree char *group = series_group(svg, json_object_get_string_member(run, "balancer"));
    g_autoptr(GPtrArray) lines = lines_of(group);
    g_assert_cmpuint(lines->len, ==, 1);
    const Line *line = lines->pdata[0];
    JsonArray *steps = json_object_get_array_member(run, "adaptations");
    g_assert_cmpuint(line->y->len, ==, json_array_get_length(steps));
    for (guint s = 0; s < line->y->len; s++)
      assert_close(g_array_index(line->y, double, s),
                   member_double(json_array_get_object_element(steps, s), "imbalance_after"));
    k++;
  }
  g_assert_cmpuint(k, ==, styles->len);
  g_assert_cmpuint(left, >, 0);
}

/* Numbers in the tables stay on one line and times carry their unit. */
static void
check_units(const char *html)
{
  g_assert_nonnull(strstr(html, "table.numbers td{text-align:right;font-variant-numeric:"
                                "tabular-nums;white-space:nowrap}"));
  for (guint t = 0; t < 2; t++) {
    g_autofree char *table = element(html, "table", t == 0 ? "summary" : "metrics");
    g_assert_nonnull(table);
    g_autoptr(GPtrArray) keys = all_matches(table, "<td data-key=\"([^\"]*)\"", 1);
    g_autoptr(GPtrArray) texts =
        all_matches(table, "<td data-key=\"[^\"]*\" data-value=\"[^\"]*\">([^<]*)<", 1);
    g_assert_cmpuint(keys->len, ==, texts->len);
    g_assert_cmpuint(keys->len, >, 10);
    g_autoptr(GRegex) timed = g_regex_new("^[0-9.]+\xc2\xa0(s|ms|\xc2\xb5s)$", 0, 0, NULL);
    guint times = 0;
    for (guint i = 0; i < keys->len; i++) {
      const char *text = texts->pdata[i];
      if (strchr(text, ' ') != NULL)
        g_error("%s: '%s' may wrap", (char *)keys->pdata[i], text);
      if (!g_str_has_suffix(keys->pdata[i], "_time") || strcmp(text, "\xe2\x80\x93") == 0)
        continue;
      times++;
      if (!g_regex_match(timed, text, 0, NULL))
        g_error("%s: '%s' is a time without its unit", (char *)keys->pdata[i], text);
    }
    g_assert_cmpuint(times, >, 0);
  }
}

static void
test_styles(void)
{
  const char *dir = families_report();
  g_autofree char *json_path = g_strconcat(dir, ".json", NULL);
  g_autoptr(JsonParser) json = parse_json(json_path);
  g_autofree char *page = report_file(dir, "index.html");
  g_autofree char *html = read_text(page);
  check_links(dir, html);
  check_families_charts(html, runs_of(json));
  check_close_up(html, runs_of(json));
  /* the summary's rows wear their balancer's colour and marker */
  g_autofree char *chart = element(html, "svg", "imbalance-steps");
  g_autoptr(GPtrArray) row_styles = series_styles(chart);
  g_autoptr(GPtrArray) swatches =
      all_matches(html,
                  "<tr data-balancer=\"([^\"]*)\"><th scope=\"row\"><svg "
                  "class=\"swatch\"[^>]*><path [^>]*stroke=\"(#[0-9a-f]{6})\"",
                  0);
  g_assert_cmpuint(swatches->len, ==, row_styles->len);
  for (guint i = 0; i < row_styles->len; i++) {
    g_auto(GStrv) parts = g_strsplit(row_styles->pdata[i], " ", 3);
    g_autofree char *row = g_strdup_printf("<tr data-balancer=\"%s\">", parts[0]);
    g_autofree char *colour = g_strdup_printf("stroke=\"%s\"", parts[1]);
    g_assert_true(g_str_has_prefix(swatches->pdata[i], row));
    g_assert_true(g_str_has_suffix(swatches->pdata[i], colour));
  }
  check_units(html);
  /* pictures elsewhere (--pictures): the large ones and those without
   * an SVG are copied beside the page and shown from their PNG */
  g_autofree char *elsewhere = tmp_path("families-pictures");
  g_assert_cmpint(g_mkdir(elsewhere, 0777), ==, 0);
  g_autoptr(GDir) d = g_dir_open(dir, 0, NULL);
  for (const char *name; (name = g_dir_read_name(d)) != NULL;) {
    if (strstr(name, ".partition.") == NULL && strstr(name, ".grids.") == NULL &&
        strstr(name, ".curve.") == NULL && strstr(name, ".chunks.") == NULL)
      continue;
    if (strcmp(name, "families-16.mlb.partition.svg") == 0)
      continue; /* drawn as PNG alone */
    g_autofree char *from = report_file(dir, name), *to = report_file(elsewhere, name);
    g_autofree char *bytes = NULL;
    gsize length = 0;
    g_assert_true(g_file_get_contents(from, &bytes, &length, NULL));
    g_assert_true(g_file_set_contents(to, bytes, (gssize)length, NULL));
  }
  g_autofree char *copied = tmp_path("families-copied");
  g_auto(Result) with = {0};
  lbsim(&with, "report", json_path, copied, "--partition-pictures", elsewhere, NULL);
  g_assert_cmpint(with.status, ==, 0);
  g_autofree char *copied_page = report_file(copied, "index.html");
  g_autofree char *copied_html = read_text(copied_page);
  check_links(copied, copied_html);
  g_autoptr(GPtrArray) figures = all_matches(copied_html, "<figure class=\"picture\"", 0);
  g_assert_cmpuint(figures->len, ==, json_array_get_length(runs_of(json)));
  g_assert_nonnull(
      strstr(copied_html, "<img class=\"picture\" src=\"families-16.mlb.partition.png\""));
  g_autoptr(GDir) c = g_dir_open(copied, 0, NULL);
  for (const char *name; (name = g_dir_read_name(c)) != NULL;) {
    if (!g_str_has_suffix(name, ".png"))
      continue;
    g_autofree char *img = g_strdup_printf("<img class=\"picture\" src=\"%s\"", name);
    g_assert_nonnull(strstr(copied_html, img)); /* copied only to be shown */
    g_autofree char *svg = g_strndup(name, strlen(name) - 3);
    g_autofree char *svg_name = g_strconcat(svg, "svg", NULL);
    g_autofree char *svg_path = report_file(elsewhere, svg_name);
    GStatBuf st;
    g_assert_true(g_stat(svg_path, &st) != 0 || st.st_size > 96 * 1024);
  }

  /* a phase has one fill on every page: report-16's (none, mlb, lbd) as
   * the families' */
  g_autofree char *small_page = report_file(run_report("run"), "index.html");
  g_autofree char *small_html = read_text(small_page);
  g_autofree char *small_bars = element(small_html, "svg", "phase-times");
  g_autofree char *bars = element(html, "svg", "phase-times");
  g_autoptr(GPtrArray) fills =
      all_matches(small_bars, "data-segment=\"([^\"]*)\"[^>]* fill=\"([^\"]*)\"", 0);
  g_assert_cmpuint(fills->len, >, 0);
  for (guint i = 0; i < fills->len; i++) {
    g_autofree char *segment = g_strndup(fills->pdata[i], strstr(fills->pdata[i], " data-value") -
                                                              (char *)fills->pdata[i]);
    g_autofree char *fill = g_strdup(strstr(fills->pdata[i], " fill=\""));
    g_autoptr(GPtrArray) there =
        all_matches(bars, "data-segment=\"[^\"]*\"[^>]* fill=\"[^\"]*\"", 0);
    gboolean found = FALSE;
    for (guint k = 0; k < there->len; k++)
      if (g_str_has_prefix(there->pdata[k], segment)) {
        g_assert_cmpstr(strstr(there->pdata[k], " fill=\""), ==, fill);
        found = TRUE;
      }
    g_assert_true(found);
  }
  /* none's balance is 0 s, not a bare 0 */
  g_assert_nonnull(strstr(html, "data-key=\"balance_time\" data-value=\"0\">0\xc2\xa0s</td>"));

  /* the palette: 18 balancers (variants of three), 18 styles that differ
   * in colour and marker */
  g_autofree char *small_path = g_strconcat(run_report("run"), ".json", NULL);
  g_autoptr(JsonParser) small = parse_json(small_path);
  JsonObject *root = json_node_get_object(json_parser_get_root(small));
  JsonArray *runs = runs_of(small);
  g_autoptr(JsonArray) many = json_array_new();
  for (guint k = 0; k < 6; k++)
    for (guint i = 0; i < json_array_get_length(runs); i++) {
      /* a deep copy: json_node_copy shares the object */
      g_autofree char *text = json_to_string(json_array_get_element(runs, i), FALSE);
      JsonNode *copy = json_from_string(text, NULL);
      JsonObject *o = json_node_get_object(copy);
      g_autofree char *label =
          g_strdup_printf("%s:v%u", json_object_get_string_member(o, "balancer"), k);
      json_object_set_string_member(o, "balancer", label);
      json_array_add_element(many, copy);
    }
  json_object_set_array_member(root, "runs", json_array_ref(many));
  g_autoptr(JsonGenerator) gen = json_generator_new();
  json_generator_set_root(gen, json_parser_get_root(small));
  g_autofree char *many_path = tmp_path("many.json");
  g_autoptr(GError) error = NULL;
  json_generator_to_file(gen, many_path, &error);
  g_assert_no_error(error);
  g_autofree char *out = tmp_path("many");
  g_auto(Result) r = {0};
  lbsim(&r, "report", many_path, out, NULL);
  g_test_message("%s", r.err);
  g_assert_cmpint(r.status, ==, 0);
  g_autofree char *many_page = report_file(out, "index.html");
  g_autofree char *many_html = read_text(many_page);
  g_autofree char *svg = element(many_html, "svg", "imbalance-steps");
  g_autoptr(GPtrArray) styles = series_styles(svg);
  g_assert_cmpuint(styles->len, ==, 18);
  check_distinct_styles(styles);
}

/* The first <svg>'s attribute. */
static char *
svg_attribute(const char *svg, const char *name)
{
  g_autofree char *pattern = g_strdup_printf("<svg[^>]* %s=\"([^\"]*)\"", name);
  g_autoptr(GPtrArray) m = all_matches(svg, pattern, 1);
  g_assert_cmpuint(m->len, >=, 1);
  return g_strdup(m->pdata[0]);
}

/* lbsim report --picture-format pdf,png --figure-size 3.4in --no-title:
 * every chart's SVG beside its PDF and PNG, 244.8 points wide (the PNG
 * 1020 pixels, 300 an inch) and as tall in each, its ticks and legend in
 * 8-point text, no title line; the files in the report's list, and gone
 * when the report is made again without them. The page's own charts stay
 * as they are on a screen. */
static void
test_print(void)
{
  const char *dir = run_report("run");
  g_autofree char *json = g_strconcat(dir, ".json", NULL);
  g_autofree char *out = tmp_path("print");
  g_auto(Result) r = {0};
  lbsim(&r, "report", json, out, "--picture-format", "pdf,png", "--figure-size", "3.4in",
        "--no-title", NULL);
  g_test_message("%s", r.err);
  g_assert_cmpint(r.status, ==, 0);
  g_autofree char *manifest_path = report_file(out, "lbsim-report.ini");
  g_autofree char *manifest = read_text(manifest_path);
  const char *const charts[][2] = {{"imbalance-steps", "Imbalance per adaptation step"},
                                   {"phase-times", "Time per phase, summed over the steps"}};
  for (guint c = 0; c < G_N_ELEMENTS(charts); c++) {
    g_autofree char *svg_base = g_strdup_printf("report-16.%s.svg", charts[c][0]);
    g_autofree char *pdf_base = g_strdup_printf("report-16.%s.pdf", charts[c][0]);
    g_autofree char *png_base = g_strdup_printf("report-16.%s.png", charts[c][0]);
    g_autofree char *svg_path = report_file(out, svg_base);
    g_autofree char *pdf_path = report_file(out, pdf_base);
    g_autofree char *png_path = report_file(out, png_base);
    g_autofree char *svg = read_text(svg_path);
    g_autofree char *width = svg_attribute(svg, "width");
    g_autofree char *height = svg_attribute(svg, "height");
    g_assert_cmpstr(width, ==, "244.8pt");
    g_assert_true(g_str_has_suffix(height, "pt"));
    g_assert_nonnull(strstr(svg, "<g class=\"tick-labels\" font-size=\"8\""));
    g_assert_nonnull(strstr(svg, "font-size=\"8\">\n"));
    g_autofree char *title_text = g_strdup_printf(">%s</text>", charts[c][1]);
    g_assert_null(strstr(svg, title_text));
    double pw = 0, ph = 0;
    pdf_size(pdf_path, &pw, &ph);
    g_assert_cmpfloat_with_epsilon(pw, 244.8, 1e-6);
    g_assert_cmpfloat_with_epsilon(ph, g_ascii_strtod(height, NULL), 1e-6);
    g_autoptr(cairo_surface_t) png = cairo_image_surface_create_from_png(png_path);
    g_assert_cmpint(cairo_surface_status(png), ==, CAIRO_STATUS_SUCCESS);
    g_assert_cmpint(cairo_image_surface_get_width(png), ==, 1020);
    g_assert_cmpint(cairo_image_surface_get_height(png), ==, (int)ceil(ph * 300 / 72));
    g_assert_nonnull(strstr(manifest, pdf_base));
    g_assert_nonnull(strstr(manifest, png_base));
  }
  /* the page's chart: a screen's, with its title */
  g_autofree char *page = report_file(out, "index.html");
  g_autofree char *html = read_text(page);
  g_autofree char *inline_svg = element(html, "svg", "imbalance-steps");
  g_autofree char *inline_width = svg_attribute(inline_svg, "width");
  g_assert_cmpstr(inline_width, ==, "1000");
  g_assert_nonnull(strstr(inline_svg, ">Imbalance per adaptation step</text>"));
  /* again without them: the PDFs and PNGs go */
  g_auto(Result) again = {0};
  lbsim(&again, "report", json, out, NULL);
  g_assert_cmpint(again.status, ==, 0);
  g_autofree char *pdf = report_file(out, "report-16.imbalance-steps.pdf");
  g_autofree char *svg = report_file(out, "report-16.imbalance-steps.svg");
  g_assert_false(g_file_test(pdf, G_FILE_TEST_EXISTS));
  g_assert_true(g_file_test(svg, G_FILE_TEST_EXISTS));
  /* refused before anything is written */
  const char *const bad[][3] = {{"--picture-format", "gif", "--picture-format gif"},
                                {"--figure-size", "3", "--figure-size 3"},
                                {"--figure-font", "8", "--figure-font is for --figure-size"}};
  for (guint b = 0; b < G_N_ELEMENTS(bad); b++) {
    g_autofree char *where = tmp_path("print-refused");
    g_auto(Result) refused = {0};
    lbsim(&refused, "report", json, where, bad[b][0], bad[b][1], NULL);
    g_test_message("%s", refused.err);
    g_assert_cmpint(refused.status, ==, 2);
    g_assert_nonnull(strstr(refused.err, bad[b][2]));
    g_assert_false(g_file_test(where, G_FILE_TEST_EXISTS));
  }
}

/* Values spread over a factor of 10 or more get a log axis, others a
 * linear one, unless --chart-scale says; a word it does not know is bad
 * input, and so is --chart-scale without a report. */
static void
test_chart_scale(void)
{
  const char *dir = run_report("run");
  g_autofree char *json_path = g_strconcat(dir, ".json", NULL);
  g_autoptr(JsonParser) json = parse_json(json_path);
  double lo = G_MAXDOUBLE, hi = 0;
  JsonArray *runs = runs_of(json);
  for (guint i = 0; i < json_array_get_length(runs); i++) {
    JsonArray *steps =
        json_object_get_array_member(json_array_get_object_element(runs, i), "adaptations");
    for (guint s = 0; s < json_array_get_length(steps); s++)
      for (guint k = 0; k < 2; k++) {
        double v = member_double(json_array_get_object_element(steps, s),
                                 k == 0 ? "imbalance_before" : "imbalance_after");
        lo = MIN(lo, v);
        hi = MAX(hi, v);
      }
  }
  g_autofree char *page = report_file(dir, "index.html");
  g_autofree char *html = read_text(page);
  g_autofree char *svg = element(html, "svg", "imbalance-steps");
  g_assert_cmpint(log_values(svg), ==, hi >= 10 * lo);

  /* none's imbalance made 40 times larger: log; --chart-scale overrides */
  g_autoptr(JsonParser) big = parse_json(json_path);
  JsonObject *none = json_array_get_object_element(runs_of(big), 0);
  g_assert_cmpstr(json_object_get_string_member(none, "balancer"), ==, "none");
  JsonArray *steps = json_object_get_array_member(none, "adaptations");
  for (guint s = 0; s < json_array_get_length(steps); s++) {
    JsonObject *a = json_array_get_object_element(steps, s);
    for (guint k = 0; k < 2; k++) {
      const char *key = k == 0 ? "imbalance_before" : "imbalance_after";
      json_object_set_double_member(a, key, 40 * member_double(a, key));
    }
  }
  g_autoptr(JsonGenerator) gen = json_generator_new();
  json_generator_set_root(gen, json_parser_get_root(big));
  g_autofree char *big_path = tmp_path("big.json");
  g_autoptr(GError) error = NULL;
  json_generator_to_file(gen, big_path, &error);
  g_assert_no_error(error);
  const char *const scales[] = {NULL, "linear", "log"};
  const gboolean logs[] = {TRUE, FALSE, TRUE};
  for (guint i = 0; i < G_N_ELEMENTS(scales); i++) {
    g_autofree char *name = g_strdup_printf("big-%u", i);
    g_autofree char *out = tmp_path(name);
    g_auto(Result) r = {0};
    lbsim(&r, "report", big_path, out, scales[i] != NULL ? "--chart-scale" : NULL, scales[i], NULL);
    g_test_message("%s", r.err);
    g_assert_cmpint(r.status, ==, 0);
    g_autofree char *big_page = report_file(out, "index.html");
    g_autofree char *big_html = read_text(big_page);
    g_autofree char *chart = element(big_html, "svg", "imbalance-steps");
    g_assert_cmpint(log_values(chart), ==, logs[i]);
    check_imbalance_chart(big_html, runs_of(big)); /* the points on the axis it says */
    g_autoptr(GPtrArray) ticks = all_matches(chart, "<g class=\"tick-labels\"[^>]*>(.*?)</g>", 1);
    g_autoptr(GPtrArray) labels = all_matches(ticks->pdata[0], ">([^<]*)</text>", 1);
    g_assert_cmpuint(labels->len, >=, 4);
    double last = 0;
    for (guint k = 0; k < labels->len; k++) {
      double v = g_ascii_strtod(labels->pdata[k], NULL);
      g_assert_cmpfloat(v, >, last);
      if (logs[i] && k > 0) { /* 1, 1.5, 2, 3, 5 or 7 times a power of ten */
        double m = v / pow(10, floor(log10(v) + 1e-9));
        g_assert_true(fabs(m - 1) < 1e-9 || fabs(m - 1.5) < 1e-9 || fabs(m - 2) < 1e-9 ||
                      fabs(m - 3) < 1e-9 || fabs(m - 5) < 1e-9 || fabs(m - 7) < 1e-9);
      }
      last = v;
    }
    g_assert_true(logs[i] == (strstr(chart, "log scale</text>") != NULL));
  }

  g_autofree char *never = tmp_path("never");
  g_auto(Result) bad = {0};
  lbsim(&bad, "report", big_path, never, "--chart-scale", "wide", NULL);
  g_assert_cmpint(bad.status, ==, 2);
  g_assert_nonnull(strstr(bad.err, "--chart-scale wide: expected auto, linear or log"));
  g_assert_false(g_file_test(never, G_FILE_TEST_EXISTS));
  g_auto(Result) alone = {0};
  lbsim(&alone, "run", "-q", scenario_path, "--chart-scale", "log", NULL);
  g_assert_cmpint(alone.status, ==, 2);
  g_assert_nonnull(strstr(alone.err, "add --report DIR"));
  g_assert_null(strstr(alone.out, "balancer")); /* nothing ran */
}

/* ---- in a browser ---- */

/* Renders page headless: its DOM after loading, its log, a screenshot. */
static void
render(const char *page, const char *screenshot, char **dom, char **log)
{
  g_autofree char *uri = g_filename_to_uri(page, NULL, NULL);
  g_autofree char *profile = tmp_path("chromium-profile");
  chromium_render(uri, profile, 1280, 2000, screenshot, dom, log);
}

/* Not blank: many colours, and much of it neither the page's white nor
 * its margin's grey. */
static void
check_screenshot(const char *path)
{
  static const guint32 paper[] = {0xffffff, 0xf6f6f4};
  check_screenshot_inked(path, 1280, 2000, 200, 0.05, paper, G_N_ELEMENTS(paper));
}

static void
test_browser(void)
{
  g_autofree char *chromium = chromium_path();
  if (chromium == NULL) {
    g_test_skip("chromium is not installed (tools/install-deps installs it): the page is not "
                "rendered");
    return;
  }
  const char *dir = run_report("run");
  g_autofree char *json_path = g_strconcat(dir, ".json", NULL);
  g_autoptr(JsonParser) json = parse_json(json_path);
  JsonArray *runs = runs_of(json);
  g_autofree char *page = report_file(dir, "index.html");
  g_autofree char *shot = tmp_path("report.png");
  g_autofree char *dom = NULL, *log = NULL;
  render(page, shot, &dom, &log);
  g_assert_cmpuint(console_messages(log), ==, 0);
  check_summary(dom, runs);
  check_imbalance_chart(dom, runs);
  check_phase_chart(dom, runs);
  g_autoptr(GPtrArray) pictures = all_matches(dom, "<figure class=\"picture\"", 0);
  g_assert_cmpuint(pictures->len, ==, NBALANCERS);
  check_screenshot(shot);
  /* kept where the build can show it */
  g_autofree char *kept = g_build_filename(g_get_current_dir(), "report-screenshot.png", NULL);
  gsize length = 0;
  g_autofree char *bytes = NULL;
  g_assert_true(g_file_get_contents(shot, &bytes, &length, NULL));
  if (g_file_set_contents(kept, bytes, (gssize)length, NULL))
    g_test_message("screenshot: %s", kept);

  /* The families' page: ten balancers, large pictures shown from their
   * files, small enough to open at once, a style per balancer in the
   * DOM too. */
  const char *families = families_report();
  g_autofree char *families_json = g_strconcat(families, ".json", NULL);
  g_autoptr(JsonParser) fjson = parse_json(families_json);
  g_autofree char *fpage = report_file(families, "index.html");
  GStatBuf st;
  g_assert_cmpint(g_stat(fpage, &st), ==, 0);
  g_test_message("the families' page: %lld bytes", (long long)st.st_size);
  g_assert_cmpint(st.st_size, <, 512 * 1024);
  g_autofree char *fshot = tmp_path("families.png");
  g_autofree char *fdom = NULL, *flog = NULL;
  render(fpage, fshot, &fdom, &flog);
  g_assert_cmpuint(console_messages(flog), ==, 0);
  check_families_charts(fdom, runs_of(fjson));
  g_autoptr(GPtrArray) fpictures = all_matches(fdom, "<figure class=\"picture\"", 0);
  g_autoptr(GPtrArray) linked = all_matches(fdom, "<img class=\"picture\" src=\"([^\"]*)\"", 1);
  g_assert_cmpuint(fpictures->len, ==, json_array_get_length(runs_of(fjson)));
  g_assert_cmpuint(linked->len, >, 0);
  check_screenshot(fshot);
  g_autofree char *fkept = g_build_filename(g_get_current_dir(), "families-screenshot.png", NULL);
  g_autofree char *fbytes = NULL;
  g_assert_true(g_file_get_contents(fshot, &fbytes, &length, NULL));
  if (g_file_set_contents(fkept, fbytes, (gssize)length, NULL))
    g_test_message("screenshot: %s", fkept);

  /* The sweep's page, with a script that logs twice: those two are
   * caught (the detection works), and the page itself logs nothing. One
   * start of Chromium less: it takes seconds. */
  const char *sweep_dir = sweep_report();
  g_autofree char *sweep_page = report_file(sweep_dir, "index.html");
  g_autofree char *sweep_html = read_text(sweep_page);
  g_autoptr(GString) broken = g_string_new(sweep_html);
  g_assert_cmpuint(g_string_replace(broken, "</main>",
                                    "<script>console.error('injected'); nowhere();</script></main>",
                                    1),
                   ==, 1);
  g_autofree char *broken_page = report_file(sweep_dir, "broken.html");
  g_assert_true(g_file_set_contents(broken_page, broken->str, -1, NULL));
  g_autofree char *dom2 = NULL, *log2 = NULL;
  g_autofree char *shot2 = tmp_path("sweep.png");
  render(broken_page, shot2, &dom2, &log2);
  g_unlink(broken_page);
  g_assert_cmpuint(console_messages(log2), ==, 2);
  check_sweep_chart(dom2, "vs-ranks-time", TRUE, "total_time");
  check_sweep_chart(dom2, "vs-workload.amplitude-imbalance", FALSE, "imbalance_after");
  check_screenshot(shot2);
}

int
main(int argc, char **argv)
{
  g_test_init(&argc, &argv, NULL);
  g_autoptr(GError) error = NULL;
  tmp_dir = g_dir_make_tmp("lbsim-report-XXXXXX", &error);
  g_assert_no_error(error);
  scenario_path = tmp_path("report-16.ini");
  g_assert_true(g_file_set_contents(scenario_path, scenario_text, -1, NULL));
  g_test_add_func("/report/run-files", test_run_files);
  g_test_add_func("/report/determinism", test_determinism);
  g_test_add_func("/report/folder", test_folder);
  g_test_add_func("/report/escape", test_escape);
  g_test_add_func("/report/bad-json", test_bad_json);
  g_test_add_func("/report/sweep", test_sweep);
  g_test_add_func("/report/styles", test_styles);
  g_test_add_func("/report/chart-scale", test_chart_scale);
  g_test_add_func("/report/print", test_print);
  g_test_add_func("/report/browser", test_browser);
  int status = g_test_run();
  remove_tree(tmp_dir);
  g_free(scenario_path);
  g_free(tmp_dir);
  return status;
}
