/* --pictures through the lbsim binary: the files, their sizes, the colours
 * of known cells and the boundaries where ranks meet, SVG that parses,
 * byte-identical reruns, and a bad folder refused before anything runs. */
#include <glib.h>
#include <glib/gstdio.h>
#include <cairo.h>
#include <math.h>
#include <string.h>
#include <sys/wait.h>

#include "balancers/sfc/sfc-plan.h"
#include "lbsim/scenario.h"
#include "report/pictures.h"
#include "workloads/htree.h"
#include "lbsim-spawn.h"
#include "figure-files.h"

G_DEFINE_AUTOPTR_CLEANUP_FUNC(cairo_surface_t, cairo_surface_destroy)

/* 64 x 32 cells on 16 ranks, loads rising along x from 0 to 1000: none
 * keeps the 4 x 4 blocks of 16 x 8 cells, and every row weighs the same,
 * so mlb's row-major pieces are two whole rows each. */
static const char scenario_text[] = "[scenario]\n"
                                    "name = pictures-16\n"
                                    "platform = hypercube-16.xml\n"
                                    "ranks = 16\n"
                                    "seed = 3\n"
                                    "steps = 2\n"
                                    "[workload]\n"
                                    "model = field2d\n"
                                    "size = 64x32\n"
                                    "pattern = ramp\n"
                                    "from = 0\n"
                                    "to = 1000\n"
                                    "[balancers]\n"
                                    "run = none, mlb\n";

static const char *const balancers[] = {"none", "mlb"};

static char *tmp_dir;
static char *scenario_path;

static char *
tmp_path(const char *name)
{
  return g_build_filename(tmp_dir, name, NULL);
}

/* The pictures of the scenario in dir, made once per folder name. */
static const char *
pictures(const char *name, const char *jobs)
{
  g_autofree char *dir = tmp_path(name);
  if (!g_file_test(dir, G_FILE_TEST_IS_DIR)) {
    g_auto(Result) r = {0};
    lbsim(&r, "run", "-q", "-j", jobs, scenario_path, "--pictures", dir, NULL);
    g_test_message("%s", r.err);
    g_assert_cmpint(r.status, ==, 0);
  }
  return g_intern_string(dir);
}

static char *
picture_file(const char *dir, const char *what, const char *ext)
{
  return lb_figure_file(dir, "pictures-16", what, ext);
}

static LbWork *
work_of(const char *path, LbScenario **scenario)
{
  g_autoptr(GError) error = NULL;
  *scenario = lb_scenario_load(path, NULL, &error);
  g_assert_no_error(error);
  return (*scenario)->work;
}

static cairo_surface_t *
load_png(const char *path)
{
  cairo_surface_t *s = cairo_image_surface_create_from_png(path);
  g_assert_cmpint(cairo_surface_status(s), ==, CAIRO_STATUS_SUCCESS);
  return s;
}

static guint32
pixel(cairo_surface_t *s, guint x, guint y)
{
  g_assert_cmpint(x, <, cairo_image_surface_get_width(s));
  g_assert_cmpint(y, <, cairo_image_surface_get_height(s));
  const guint8 *row =
      cairo_image_surface_get_data(s) + (gsize)y * cairo_image_surface_get_stride(s);
  return ((const guint32 *)(gconstpointer)row)[x] & 0xffffff;
}

#define R(c) ((c) >> 16 & 0xff)
#define G(c) ((c) >> 8 & 0xff)
#define B(c) ((c)&0xff)

/* viridis' low end is dark purple, its high end yellow; boundaries are
 * (nearly) white, which viridis never is (its blue stays under 0x90). */
static gboolean
is_low(guint32 c)
{
  return R(c) < 0x60 && G(c) < 0x40 && B(c) > 0x50;
}

static gboolean
is_high(guint32 c)
{
  return R(c) > 0xc0 && G(c) > 0xc0 && B(c) < 0x60;
}

/* The most and the least loaded rank's outlines (orange, blue) are
 * boundaries too. */
static gboolean
is_boundary(guint32 c)
{
  return (R(c) >= 0xd0 && G(c) >= 0xd0 && B(c) >= 0xd0) || c == 0xd55e00 || c == 0x0072b2;
}

/* Is there a boundary pixel on the segment between the centres of two
 * neighbouring cells? */
static gboolean
boundary_between(cairo_surface_t *s, const LbPictureLayout *l, guint64 x0, guint64 y0, guint64 x1,
                 guint64 y1)
{
  guint ax, ay, bx, by;
  lb_pictures_cell_pixel(l, x0, y0, &ax, &ay);
  lb_pictures_cell_pixel(l, x1, y1, &bx, &by);
  for (guint x = MIN(ax, bx); x <= MAX(ax, bx); x++)
    for (guint y = MIN(ay, by); y <= MAX(ay, by); y++)
      if (is_boundary(pixel(s, x, y)))
        return TRUE;
  return FALSE;
}

typedef struct {
  char *root;
  char *width, *height;
} SvgRoot;

static void
svg_start_cb(GMarkupParseContext *context, const char *element, const char **names,
             const char **values, gpointer data, GError **error)
{
  SvgRoot *root = data;
  if (root->root != NULL)
    return;
  root->root = g_strdup(element);
  for (guint i = 0; names[i] != NULL; i++) {
    if (strcmp(names[i], "width") == 0)
      root->width = g_strdup(values[i]);
    if (strcmp(names[i], "height") == 0)
      root->height = g_strdup(values[i]);
  }
}

/* The whole file parses as XML, and its root is <svg> width x height. */
static void
assert_svg(const char *path, guint width, guint height)
{
  g_autofree char *text = NULL;
  gsize len = 0;
  g_assert_true(g_file_get_contents(path, &text, &len, NULL));
  SvgRoot root = {0};
  GMarkupParser parser = {.start_element = svg_start_cb};
  g_autoptr(GMarkupParseContext) ctx = g_markup_parse_context_new(&parser, 0, &root, NULL);
  g_autoptr(GError) error = NULL;
  gboolean ok = g_markup_parse_context_parse(ctx, text, (gssize)len, &error) &&
                g_markup_parse_context_end_parse(ctx, &error);
  g_assert_no_error(error);
  g_assert_true(ok);
  g_autofree char *w = g_strdup_printf("%u", width);
  g_autofree char *h = g_strdup_printf("%u", height);
  g_assert_cmpstr(root.root, ==, "svg");
  g_assert_cmpstr(root.width, ==, w);
  g_assert_cmpstr(root.height, ==, h);
  g_free(root.root);
  g_free(root.width);
  g_free(root.height);
}

/* A balancer's colour on every figure (report/style.h), among the
 * balancers of its run. */
static guint32
colour_of(const char *const *names, guint n, const char *name)
{
  g_autoptr(LbStyles) styles = lb_styles_new(names, n);
  return lb_style_at(lb_styles_index(styles, name))->colour;
}

/* Pixels of exactly this colour. */
static guint
pixels_of(cairo_surface_t *s, guint32 colour)
{
  guint n = 0;
  guint w = (guint)cairo_image_surface_get_width(s), h = (guint)cairo_image_surface_get_height(s);
  for (guint y = 0; y < h; y++)
    for (guint x = 0; x < w; x++)
      n += pixel(s, x, y) == colour;
  return n;
}

/* A chart LB_PICTURES_WIDTH wide (PNG, and SVG of the same size) whose
 * lines of a and b are drawn, each in its balancer's colour among the
 * run's names. */
static void
assert_two_lines(const char *png, const char *svg, const char *const *names, guint n, const char *a,
                 const char *b)
{
  g_autoptr(cairo_surface_t) s = load_png(png);
  guint w = (guint)cairo_image_surface_get_width(s), h = (guint)cairo_image_surface_get_height(s);
  g_assert_cmpuint(w, ==, LB_PICTURES_WIDTH);
  g_assert_cmpuint(h, >, 400);
  assert_svg(svg, w, h);
  g_assert_cmpuint(colour_of(names, n, a), !=, colour_of(names, n, b));
  g_assert_cmpuint(pixels_of(s, colour_of(names, n, a)), >, 50);
  g_assert_cmpuint(pixels_of(s, colour_of(names, n, b)), >, 50);
}

static void
test_files(void)
{
  /* the folder does not exist yet: lbsim makes it */
  const char *dir = pictures("made", "2");
  for (guint b = 0; b < G_N_ELEMENTS(balancers); b++) {
    g_autofree char *what = g_strdup_printf("%s.partition", balancers[b]);
    g_autofree char *png = picture_file(dir, what, "png");
    g_autofree char *svg = picture_file(dir, what, "svg");
    g_assert_true(g_str_has_suffix(png, "/pictures-16.none.partition.png") ||
                  g_str_has_suffix(png, "/pictures-16.mlb.partition.png"));
    g_assert_true(g_file_test(png, G_FILE_TEST_IS_REGULAR));
    g_assert_true(g_file_test(svg, G_FILE_TEST_IS_REGULAR));
  }
  g_autofree char *chart = picture_file(dir, "imbalance", "png");
  g_autofree char *chart_svg = picture_file(dir, "imbalance", "svg");
  g_assert_true(g_file_test(chart, G_FILE_TEST_IS_REGULAR));
  g_assert_true(g_file_test(chart_svg, G_FILE_TEST_IS_REGULAR));
  g_autoptr(GDir) d = g_dir_open(dir, 0, NULL);
  guint n = 0;
  while (g_dir_read_name(d) != NULL)
    n++;
  g_assert_cmpuint(n, ==, 6);
}

static void
test_partition(void)
{
  const char *dir = pictures("made", "2");
  g_autoptr(LbScenario) sc = NULL;
  LbPictureLayout l;
  lb_pictures_layout(work_of(scenario_path, &sc), &l);
  /* 64 x 32 cells blown up to 14 pixels each, framed by titles, axes and
   * the colour bar, as wide as every picture */
  g_assert_cmpuint(l.cell_px, ==, 14);
  g_assert_cmpuint(l.map_width, ==, 896);
  g_assert_cmpuint(l.map_height, ==, 448);
  g_assert_cmpuint(l.width, >=, l.map_x + l.map_width + 60);
  g_assert_cmpuint(l.width, ==, LB_PICTURES_WIDTH);

  for (guint b = 0; b < G_N_ELEMENTS(balancers); b++) {
    g_autofree char *what = g_strdup_printf("%s.partition", balancers[b]);
    g_autofree char *png = picture_file(dir, what, "png");
    g_autofree char *svg = picture_file(dir, what, "svg");
    g_autoptr(cairo_surface_t) s = load_png(png);
    g_assert_cmpint(cairo_image_surface_get_width(s), ==, l.width);
    g_assert_cmpint(cairo_image_surface_get_height(s), ==, l.height);
    assert_svg(svg, l.width, l.height);

    /* the ramp: light cells at the right, dark ones at the left, in every
     * row (away from the labels at the centroids) */
    for (guint64 y = 4; y < 32; y += 8) {
      guint x0, x1, py;
      lb_pictures_cell_pixel(&l, 2, y, &x0, &py);
      lb_pictures_cell_pixel(&l, 61, y, &x1, &py);
      g_test_message("%s row %" G_GUINT64_FORMAT ": %06x %06x", balancers[b], y, pixel(s, x0, py),
                     pixel(s, x1, py));
      g_assert_true(is_low(pixel(s, x0, py)));
      g_assert_true(is_high(pixel(s, x1, py)));
    }
    if (b == 0) {
      /* none: the 16 x 8 blocks */
      g_assert_true(boundary_between(s, &l, 15, 4, 16, 4));
      g_assert_true(boundary_between(s, &l, 47, 20, 48, 20));
      g_assert_true(boundary_between(s, &l, 4, 7, 4, 8));
      g_assert_true(boundary_between(s, &l, 60, 23, 60, 24));
      g_assert_false(boundary_between(s, &l, 7, 1, 8, 1));
      g_assert_false(boundary_between(s, &l, 1, 3, 1, 4));
    } else {
      /* mlb: two rows each */
      g_assert_true(boundary_between(s, &l, 4, 3, 4, 4));
      g_assert_true(boundary_between(s, &l, 60, 29, 60, 30));
      g_assert_false(boundary_between(s, &l, 4, 4, 4, 5));
      g_assert_false(boundary_between(s, &l, 15, 4, 16, 4));
      g_assert_false(boundary_between(s, &l, 47, 20, 48, 20));
    }
  }
}

static void
test_imbalance_chart(void)
{
  const char *dir = pictures("made", "2");
  g_autofree char *png = picture_file(dir, "imbalance", "png");
  g_autofree char *svg = picture_file(dir, "imbalance", "svg");
  assert_two_lines(png, svg, balancers, G_N_ELEMENTS(balancers), "none", "mlb");
}

/* Same scenario and seed, same bytes, however many simulations at once. */
static void
test_determinism(void)
{
  const char *a = pictures("made", "2");
  const char *b = pictures("again", "1");
  const char *const whats[] = {"none.partition", "mlb.partition", "imbalance"};
  const char *const exts[] = {"png", "svg"};
  for (guint w = 0; w < G_N_ELEMENTS(whats); w++)
    for (guint e = 0; e < G_N_ELEMENTS(exts); e++) {
      g_autofree char *pa = picture_file(a, whats[w], exts[e]);
      g_autofree char *pb = picture_file(b, whats[w], exts[e]);
      g_autofree char *ta = NULL, *tb = NULL;
      gsize la = 0, lb = 0;
      g_assert_true(g_file_get_contents(pa, &ta, &la, NULL));
      g_assert_true(g_file_get_contents(pb, &tb, &lb, NULL));
      g_assert_cmpmem(ta, la, tb, lb);
    }
}

/* The other models: array1d as bars over a band of ranks, field3d's middle
 * slice as a field. */
static void
test_models(void)
{
  g_autofree char *teach = g_build_filename(source_root(), "scenarios/mlb-teach-16.ini", NULL);
  g_autofree char *dir = tmp_path("models");
  g_autofree char *slashed = g_strconcat(dir, "/", NULL);
  g_auto(Result) r = {0};
  /* a new folder named with a trailing slash is made too */
  lbsim(&r, "run", "-q", teach, "--balancer", "none", "--pictures", slashed, NULL);
  g_assert_cmpint(r.status, ==, 0);
  g_autoptr(LbScenario) sc = NULL;
  LbPictureLayout l;
  lb_pictures_layout(work_of(teach, &sc), &l);
  g_autofree char *png = lb_figure_file(dir, "mlb-teach-16", "none.partition", "png");
  g_autoptr(cairo_surface_t) s = load_png(png);
  g_assert_cmpint(cairo_image_surface_get_width(s), ==, l.width);
  g_assert_cmpint(cairo_image_surface_get_height(s), ==, l.height);
  /* the heavy first quarter (load 10) is the top of the scale */
  guint px, py;
  lb_pictures_cell_pixel(&l, 3, 0, &px, &py);
  g_assert_true(is_high(pixel(s, px, py)));
  lb_pictures_cell_pixel(&l, 40, 0, &px, &py);
  g_assert_true(is_low(pixel(s, px, py)));

  g_auto(Result) three = {0};
  lbsim(&three, "run", "-q", scenario_path, "--set", "workload.model=field3d", "--set",
        "workload.size=16x8x6", "--balancer", "mlb", "--pictures", dir, NULL);
  g_assert_cmpint(three.status, ==, 0);
  g_autofree char *png3 = lb_figure_file(dir, "pictures-16", "mlb.partition", "png");
  g_autoptr(cairo_surface_t) s3 = load_png(png3);
  /* 16 cells along x blown up to 48 pixels (the most), 8 along y */
  g_assert_cmpint(cairo_image_surface_get_width(s3), ==, LB_PICTURES_WIDTH);
  g_assert_cmpint(cairo_image_surface_get_height(s3), ==, 120 + 8 * 48 + 84);
}

/* A folder that cannot be used is bad input, found before anything runs. */
static void
expect_refused(const char *path, const char *needle)
{
  g_auto(Result) r = {0};
  lbsim(&r, "run", scenario_path, "--pictures", path, NULL);
  g_test_message("--pictures %s: %s", path, r.err);
  g_assert_cmpint(r.status, ==, 2);
  g_assert_cmpstr(r.out, ==, "");
  g_assert_null(strstr(r.err, "running"));
  g_autofree char *named = g_strdup_printf("lbsim: --pictures %s", path);
  g_assert_true(g_str_has_prefix(r.err, named));
  g_assert_nonnull(strstr(r.err, needle));
}

static void
test_bad_folder(void)
{
  expect_refused("/nonexistent/pictures", ": the folder /nonexistent does not exist");
  g_assert_false(g_file_test("/nonexistent", G_FILE_TEST_EXISTS));
  expect_refused("", "an empty folder name");
  /* a file, not a folder */
  g_autofree char *file = tmp_path("a-file");
  g_assert_true(g_file_set_contents(file, "x", 1, NULL));
  expect_refused(file, ": exists and is not a folder");
  /* a folder whose picture's name is taken by a folder */
  g_autofree char *taken = tmp_path("taken");
  g_autofree char *png = lb_figure_file(taken, "pictures-16", "mlb.partition", "png");
  g_assert_cmpint(g_mkdir_with_parents(png, 0700), ==, 0);
  g_auto(Result) r = {0};
  lbsim(&r, "run", scenario_path, "--pictures", taken, NULL);
  g_assert_cmpint(r.status, ==, 2);
  g_autofree char *named = g_strdup_printf("lbsim: --pictures %s: is a folder, not a file", png);
  g_assert_true(g_str_has_prefix(r.err, named));
  g_assert_null(strstr(r.err, "running"));
}

/* A SAMR scenario: the imbalance chart, the idle-processor chart (one line
 * per SAMR balancer, none has no such metric) and each run's grids by
 * owner instead of a partition of cells. */
static void
test_samr(void)
{
  g_autofree char *dir = tmp_path("samr-pictures");
  g_autofree char *ini = tmp_path("samr.ini");
  g_autofree char *text = g_strdup_printf(
      "[scenario]\nname = samr-pictures\nplatform = %s/platforms/hypercube-16.xml\nranks = 16\n"
      "seed = 2\nsteps = 6\n[workload]\nmodel = samr\nsize = 16x16x16\nlevels = 2\n"
      "pattern = clusters\nclusters = 2\ninterval = 2\ngrowth = 0.03\namplitude = 300\nbase = 0\n"
      "[balancers]\nrun = none, enzo-original, move-split\n",
      g_getenv("LBSIM_SOURCE_ROOT"));
  g_assert_true(g_file_set_contents(ini, text, -1, NULL));
  g_auto(Result) r = {0};
  lbsim(&r, "run", "-q", ini, "--pictures", dir, NULL);
  g_test_message("%s", r.err);
  g_assert_cmpint(r.status, ==, 0);
  g_autoptr(GDir) d = g_dir_open(dir, 0, NULL);
  guint n = 0;
  while (g_dir_read_name(d) != NULL)
    n++;
  g_assert_cmpuint(n, ==, 10);
  g_autofree char *grids = lb_figure_file(dir, "samr-pictures", "move-split.grids", "png");
  g_autoptr(cairo_surface_t) gs = load_png(grids);
  g_assert_cmpint(cairo_image_surface_get_width(gs), ==, 1280);
  g_autofree char *grids_svg = lb_figure_file(dir, "samr-pictures", "move-split.grids", "svg");
  assert_svg(grids_svg, 1280, 760);
  g_autofree char *png = lb_figure_file(dir, "samr-pictures", "idle", "png");
  g_autofree char *svg = lb_figure_file(dir, "samr-pictures", "idle", "svg");
  const char *const names[] = {"none", "enzo-original", "move-split"};
  assert_two_lines(png, svg, names, G_N_ELEMENTS(names), "enzo-original", "move-split");
  g_unlink(ini);
}

/* The text of a file, which must exist. */
static char *
read_text(const char *path)
{
  char *text = NULL;
  g_assert_true(g_file_get_contents(path, &text, NULL, NULL));
  return text;
}

/* The texts of an SVG's <text> elements, in order. */
static GPtrArray *
svg_texts(const char *svg)
{
  GPtrArray *texts = g_ptr_array_new_with_free_func(g_free);
  for (const char *at = strstr(svg, "<text "); at != NULL; at = strstr(at + 1, "<text ")) {
    const char *start = strchr(at, '>'), *end = strstr(at, "</text>");
    g_assert_nonnull(start);
    g_assert_nonnull(end);
    g_autofree char *raw = g_strndup(start + 1, (gsize)(end - start - 1));
    g_ptr_array_add(texts, g_steal_pointer(&raw));
  }
  return texts;
}

static gboolean
has_text(GPtrArray *texts, const char *needle)
{
  for (guint i = 0; i < texts->len; i++)
    if (strstr(texts->pdata[i], needle) != NULL)
      return TRUE;
  return FALSE;
}

/* The styles of a chart's series (its first lines), "colour marker dash
 * stroke" by name: what the group says and the colour its line is drawn
 * in. */
static GHashTable *
series_styles(const char *svg)
{
  GHashTable *out = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, g_free);
  g_autoptr(GRegex) re = g_regex_new(
      "<g class=\"series\" data-series=\"([^\"]*)\" data-colour=\"(#[0-9a-f]{6})\" "
      "data-marker=\"([a-z-]+)\" data-dash=\"([^\"]+)\"[^>]*>\n<path class=\"line\"[^>]* "
      "stroke=\"(#[0-9a-f]{6})\"",
      0, 0, NULL);
  g_autoptr(GMatchInfo) m = NULL;
  for (g_regex_match(re, svg, 0, &m); g_match_info_matches(m); g_match_info_next(m, NULL)) {
    g_autofree char *name = g_match_info_fetch(m, 1);
    g_autofree char *colour = g_match_info_fetch(m, 2), *marker = g_match_info_fetch(m, 3);
    g_autofree char *dash = g_match_info_fetch(m, 4), *stroke = g_match_info_fetch(m, 5);
    g_assert_cmpstr(stroke, ==, colour); /* drawn as it says */
    char *style = g_strdup_printf("%s %s %s", colour, marker, dash);
    const char *before = g_hash_table_lookup(out, name);
    if (before != NULL) /* a close-up below: the same again */
      g_assert_cmpstr(before, ==, style);
    g_hash_table_replace(out, g_strdup(name), style);
  }
  return out;
}

/* One palette keyed by balancer: two different pictures of one run (the
 * imbalance and the idle processors) draw each balancer in one colour,
 * marker and dash, its style's (report/style.h), and no two balancers,
 * a variant and its family among them, in one colour and marker; the
 * PNGs have pixels of each SAMR balancer's colour. */
static void
test_palette(void)
{
  g_autofree char *dir = tmp_path("palette");
  g_autofree char *ini = tmp_path("palette.ini");
  g_autofree char *text = g_strdup_printf(
      "[scenario]\nname = palette\nplatform = %s/platforms/hypercube-16.xml\nranks = 16\n"
      "seed = 2\nsteps = 6\n[workload]\nmodel = samr\nsize = 16x16x16\nlevels = 2\n"
      "pattern = clusters\nclusters = 2\ninterval = 2\ngrowth = 0.03\namplitude = 300\nbase = 0\n"
      "[balancers]\nrun = none, enzo-original, move-split, move-split:t125\n"
      "[move-split:t125]\nthreshold = 1.25\n",
      source_root());
  g_assert_true(g_file_set_contents(ini, text, -1, NULL));
  g_auto(Result) r = {0};
  lbsim(&r, "run", "-q", ini, "--pictures", dir, NULL);
  g_test_message("%s", r.err);
  g_assert_cmpint(r.status, ==, 0);
  const char *const names[] = {"none", "enzo-original", "move-split", "move-split:t125"};
  g_autoptr(LbStyles) palette = lb_styles_new(names, G_N_ELEMENTS(names));
  g_autofree char *imbalance_path = lb_figure_file(dir, "palette", "imbalance", "svg");
  g_autofree char *idle_path = lb_figure_file(dir, "palette", "idle", "svg");
  g_autofree char *imbalance_text = read_text(imbalance_path);
  g_autofree char *idle_text = read_text(idle_path);
  g_autoptr(GHashTable) imbalance = series_styles(imbalance_text);
  g_autoptr(GHashTable) idle = series_styles(idle_text);
  g_assert_cmpuint(g_hash_table_size(imbalance), ==, G_N_ELEMENTS(names));
  g_assert_cmpuint(g_hash_table_size(idle), ==, 3); /* none has no idle processors */
  g_autoptr(GHashTable) pairs = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, NULL);
  for (guint i = 0; i < G_N_ELEMENTS(names); i++) {
    const char *style = g_hash_table_lookup(imbalance, names[i]);
    g_assert_nonnull(style);
    g_test_message("%s: %s", names[i], style);
    if (i > 0)
      g_assert_cmpstr(g_hash_table_lookup(idle, names[i]), ==, style);
    const LbStyle *own = lb_style_at(lb_styles_index(palette, names[i]));
    g_autofree char *colour = g_strdup_printf("#%06x ", own->colour);
    g_assert_true(g_str_has_prefix(style, colour));
    g_auto(GStrv) parts = g_strsplit(style, " ", 3);
    g_assert_cmpstr(parts[1], ==, lb_style_marker_name(own->marker));
    if (!g_hash_table_add(pairs, g_strdup_printf("%s %s", parts[0], parts[1])))
      g_error("%s: the colour and marker of another balancer", names[i]);
  }
  for (guint p = 0; p < 2; p++) {
    g_autofree char *png = lb_figure_file(dir, "palette", p == 0 ? "imbalance" : "idle", "png");
    g_autoptr(cairo_surface_t) s = load_png(png);
    for (guint i = 1; i < G_N_ELEMENTS(names); i++)
      g_assert_cmpuint(pixels_of(s, lb_style_at(lb_styles_index(palette, names[i]))->colour), >,
                       50);
  }
  g_unlink(ini);
}

/* An SVG root's attribute, as written. */
static char *
root_attribute(const char *svg, const char *name)
{
  const char *root = strstr(svg, "<svg");
  g_assert_nonnull(root);
  g_autofree char *key = g_strdup_printf(" %s=\"", name);
  const char *at = strstr(root, key);
  g_assert_true(at != NULL && at < strchr(root, '>'));
  at += strlen(key);
  return g_strndup(at, strcspn(at, "\""));
}

/* Figures for print: --figure-size 3.4in makes every picture 244.8 points
 * wide in its SVG and its PDF (the same height in both) and 1020 pixels in
 * its PNG (300 an inch); the chart's ticks and legend in 8-point text, or
 * --figure-font's; --no-title drops the title lines (and their band). */
static void
test_print(void)
{
  const char *const looks[][4] = {
      {"print", "--figure-font", "8", NULL},
      {"print-10", "--figure-font", "10", NULL},
      {"print-untitled", "--no-title", NULL, NULL},
  };
  double partition_height[G_N_ELEMENTS(looks)] = {0};
  for (guint k = 0; k < G_N_ELEMENTS(looks); k++) {
    g_autofree char *dir = tmp_path(looks[k][0]);
    g_auto(Result) r = {0};
    lbsim(&r, "run", "-q", scenario_path, "--pictures", dir, "--picture-format", "svg,pdf,png",
          "--figure-size", "3.4in", looks[k][1], looks[k][2], NULL);
    g_test_message("%s", r.err);
    g_assert_cmpint(r.status, ==, 0);
    const char *const whats[] = {"imbalance", "mlb.partition"};
    for (guint w = 0; w < G_N_ELEMENTS(whats); w++) {
      g_autofree char *svg = picture_file(dir, whats[w], "svg");
      g_autofree char *pdf = picture_file(dir, whats[w], "pdf");
      g_autofree char *png = picture_file(dir, whats[w], "png");
      g_autofree char *text = read_text(svg);
      g_autofree char *width = root_attribute(text, "width");
      g_autofree char *height = root_attribute(text, "height");
      g_assert_cmpstr(width, ==, "244.8pt");
      g_assert_true(g_str_has_suffix(height, "pt"));
      double pw = 0, ph = 0;
      pdf_size(pdf, &pw, &ph);
      g_assert_cmpfloat_with_epsilon(pw, 244.8, 1e-6);
      g_assert_cmpfloat_with_epsilon(ph, g_ascii_strtod(height, NULL), 0.01);
      g_autoptr(cairo_surface_t) s = load_png(png);
      g_assert_cmpint(cairo_image_surface_get_width(s), ==, 1020);
      g_assert_cmpint(cairo_image_surface_get_height(s), ==, (int)ceil(ph * 300 / 72 - 1e-9));
      g_autoptr(GPtrArray) texts = svg_texts(text);
      gboolean untitled = strcmp(looks[k][1], "--no-title") == 0;
      if (w == 0) {
        const char *font = untitled ? "8" : looks[k][2];
        g_autofree char *ticks = g_strdup_printf("<g class=\"tick-labels\" font-size=\"%s\"", font);
        g_autofree char *legend = g_strdup_printf("<g class=\"legend\" font-size=\"%s\"", font);
        g_assert_nonnull(strstr(text, ticks));
        g_assert_nonnull(strstr(text, legend));
        g_assert_cmpint(has_text(texts, "pictures-16: imbalance"), ==, !untitled);
      } else {
        partition_height[k] = ph;
        g_assert_cmpint(has_text(texts, "pictures-16 \xc2\xb7 mlb"), ==, !untitled);
        g_assert_true(has_text(texts, "cell load"));
      }
    }
  }
  /* the title's band gone, the rest as it was */
  g_assert_cmpfloat(partition_height[2], <, partition_height[0] - 10);
  g_assert_cmpfloat_with_epsilon(partition_height[1], partition_height[0], 1e-6);

  /* refused before anything runs */
  const char *const bad[][4] = {
      {"--figure-size", "3.4", "--figure-size", NULL},
      {"--figure-size", "0.5in", "--figure-size", NULL},
      {"--figure-font", "8", "--figure-font", NULL},
      {"--figure-size", "3.4in", "--picture-width", "640"},
  };
  for (guint b = 0; b < G_N_ELEMENTS(bad); b++) {
    g_autofree char *where = tmp_path("print-refused");
    g_auto(Result) refused = {0};
    if (bad[b][3] != NULL)
      lbsim(&refused, "run", scenario_path, "--pictures", where, bad[b][0], bad[b][1], bad[b][2],
            bad[b][3], NULL);
    else
      lbsim(&refused, "run", scenario_path, "--pictures", where, bad[b][0], bad[b][1], NULL);
    g_test_message("%s %s: %s", bad[b][0], bad[b][1], refused.err);
    g_assert_cmpint(refused.status, ==, 2);
    g_assert_nonnull(strstr(refused.err, bad[b][2]));
    g_assert_false(g_file_test(where, G_FILE_TEST_EXISTS));
  }
  g_auto(Result) alone = {0};
  lbsim(&alone, "run", scenario_path, "--no-title", NULL);
  g_assert_cmpint(alone.status, ==, 2);
  g_assert_nonnull(strstr(alone.err, "--no-title draws nothing without"));
}

/* An H-tree on 8 ranks whose two hot spots move between the two steps:
 * min-level 2 leaves squares of a quarter of the domain's side or less,
 * max-level 6 squares of 1/64. */
static const char htree_text[] = "[scenario]\n"
                                 "name = htree-pictures\n"
                                 "platform = hypercube-8.xml\n"
                                 "ranks = 8\n"
                                 "seed = 4\n"
                                 "steps = 2\n"
                                 "[workload]\n"
                                 "model = htree\n"
                                 "dim = 2\n"
                                 "min-level = 2\n"
                                 "max-level = 6\n"
                                 "elements = 600\n"
                                 "leaf-elements = 8\n"
                                 "load = constant\n"
                                 "pattern = hotspots\n"
                                 "hotspots = 2\n"
                                 "width = 0.06\n"
                                 "amplitude = 100\n"
                                 "base = 5\n"
                                 "drift = 0.2\n"
                                 "[balancers]\n"
                                 "run = none, sfc-shift\n"
                                 "[sfc-shift]\n"
                                 "threshold = 0.05\n";

/* Leaves whose squares are 1/32 of the side or more (18 pixels and more):
 * the curve's stroke covers their centre's pixel in their owner's colour
 * (the segments of a Hilbert curve between face-adjacent squares stay in
 * them, so no other leaf's segment comes near). */
#define HTREE_SAMPLE_LEVEL 5

typedef struct {
  guint64 key, id;
  gsize at;
} TreeLeaf;

static int
compare_tree_leaves(gconstpointer a, gconstpointer b)
{
  guint64 x = ((const TreeLeaf *)a)->key, y = ((const TreeLeaf *)b)->key;
  return x < y ? -1 : x > y;
}

/* The tree's leaves of level HTREE_SAMPLE_LEVEL or less, in the Hilbert
 * curve's order, the very first leaf (under the start's dot) left out. */
static GArray *
sampled_leaves(const LbHtree *tree, guint max_level)
{
  GArray *all = g_array_new(FALSE, FALSE, sizeof(TreeLeaf));
  for (gsize at = 0; at < lb_htree_size(tree); at++) {
    if (!lb_htree_is_leaf(tree, at))
      continue;
    guint64 id = lb_htree_id_at(tree, at);
    TreeLeaf l = {sfc_key(LB_CURVE_HILBERT, 2, max_level, id), id, at};
    g_array_append_val(all, l);
  }
  g_array_sort(all, compare_tree_leaves);
  GArray *sampled = g_array_new(FALSE, FALSE, sizeof(TreeLeaf));
  for (guint i = 1; i < all->len; i++) {
    guint64 c[3];
    if (lb_htree_decode(g_array_index(all, TreeLeaf, i).id, 2, c) <= HTREE_SAMPLE_LEVEL)
      g_array_append_val(sampled, g_array_index(all, TreeLeaf, i));
  }
  g_array_unref(all);
  return sampled;
}

/* The colour at the centre of a leaf's square in a panel. */
static guint32
leaf_pixel(cairo_surface_t *s, guint panel, guint64 id)
{
  guint64 c[3];
  guint level = lb_htree_decode(id, 2, c);
  double side = 1.0 / (double)(1u << level), px, py;
  lb_pictures_curve_point(panel, (c[0] + 0.5) * side, (c[1] + 0.5) * side, &px, &py);
  return pixel(s, (guint)px, (guint)py);
}

static int
rank_of_colour(guint32 colour, guint ranks)
{
  for (guint r = 0; r < ranks; r++)
    if (lb_pictures_owner_colour(r) == colour)
      return (int)r;
  return -1;
}

/* The pictures of the H-tree scenario with up to six more arguments, made
 * once per folder name. */
static char *
htree_run(const char *name, const char *jobs, const char *const *extra)
{
  g_autofree char *ini = tmp_path("htree-pictures.ini");
  if (!g_file_test(ini, G_FILE_TEST_EXISTS))
    g_assert_true(g_file_set_contents(ini, htree_text, -1, NULL));
  char *dir = tmp_path(name);
  if (g_file_test(dir, G_FILE_TEST_IS_DIR))
    return dir;
  const char *x[7] = {NULL};
  for (guint i = 0; extra != NULL && extra[i] != NULL; i++) {
    g_assert_cmpuint(i, <, 6);
    x[i] = extra[i];
  }
  g_auto(Result) r = {0};
  lbsim(&r, "run", "-q", "-j", jobs, ini, "--pictures", dir, x[0], x[1], x[2], x[3], x[4], x[5],
        NULL);
  g_test_message("%s", r.err);
  g_assert_cmpint(r.status, ==, 0);
  return dir;
}

static LbScenario *
htree_scenario(void)
{
  g_autofree char *ini = tmp_path("htree-pictures.ini");
  g_autoptr(GError) error = NULL;
  LbScenario *sc = lb_scenario_load(ini, NULL, &error);
  g_assert_no_error(error);
  return sc;
}

/* The curve pictures of an H-tree: one per run, 1280 x 750 in PNG and SVG
 * (the chart as tall as its content), the same bytes from a second run. */
static void
test_htree_files(void)
{
  g_autofree char *dir = htree_run("htree", "2", NULL);
  g_autofree char *again = htree_run("htree-again", "1", NULL);
  g_autoptr(GDir) d = g_dir_open(dir, 0, NULL);
  guint n = 0;
  while (g_dir_read_name(d) != NULL)
    n++;
  g_assert_cmpuint(n, ==, 6); /* two curves and the imbalance chart, in PNG and SVG */
  const char *const whats[] = {"none.curve", "sfc-shift.curve", "imbalance"};
  const char *const exts[] = {"png", "svg"};
  for (guint w = 0; w < G_N_ELEMENTS(whats); w++) {
    g_autofree char *png = lb_figure_file(dir, "htree-pictures", whats[w], "png");
    g_autoptr(cairo_surface_t) s = load_png(png);
    guint width = 1280, height = w < 2 ? 750 : (guint)cairo_image_surface_get_height(s);
    g_assert_cmpuint(height, >, 400);
    g_assert_cmpint(cairo_image_surface_get_width(s), ==, width);
    g_assert_cmpint(cairo_image_surface_get_height(s), ==, height);
    g_autofree char *svg = lb_figure_file(dir, "htree-pictures", whats[w], "svg");
    assert_svg(svg, width, height);
    for (guint e = 0; e < G_N_ELEMENTS(exts); e++) {
      g_autofree char *pa = lb_figure_file(dir, "htree-pictures", whats[w], exts[e]);
      g_autofree char *pb = lb_figure_file(again, "htree-pictures", whats[w], exts[e]);
      g_autofree char *ta = NULL, *tb = NULL;
      gsize la = 0, lb = 0;
      g_assert_true(g_file_get_contents(pa, &ta, &la, NULL));
      g_assert_true(g_file_get_contents(pb, &tb, &lb, NULL));
      g_assert_cmpmem(ta, la, tb, lb);
    }
  }
}

/* The rank that `none` leaves a hnode of the last step's tree on: the
 * model starts the step-0 tree in equal counts of its pre-order, and a
 * hnode new at step 1 starts where its deepest ancestor of step 0 was. */
static guint
none_owner(const LbHtree *step0, guint64 id)
{
  gsize at = 0, n = lb_htree_size(step0);
  while (!lb_htree_find(step0, id, &at))
    id = lb_htree_parent(id, 2);
  guint owner = 0; /* rank r holds positions n r / 8 .. n (r + 1) / 8 - 1 */
  for (guint r = 0; r < 8; r++)
    if ((guint64)n * r / 8 <= at)
      owner = r;
  return owner;
}

/* none: every leaf's segment in the colour of its rank, the same before
 * and after balancing. */
static void
test_htree_owners(void)
{
  const char *const extra[] = {"--balancer", "none", NULL};
  g_autofree char *dir = htree_run("htree-none", "1", extra);
  g_autoptr(LbScenario) first = htree_scenario();
  g_autoptr(LbScenario) last = htree_scenario();
  g_autoptr(GArray) none = g_array_new(FALSE, FALSE, sizeof(LbUnit));
  lb_work_update(last->work, 0, none, 1); /* the tree of the last step */
  g_autofree char *png = lb_figure_file(dir, "htree-pictures", "none.curve", "png");
  g_autoptr(cairo_surface_t) s = load_png(png);
  g_autoptr(GArray) leaves = sampled_leaves(lb_htree_of(last->work), 6);
  g_assert_cmpuint(leaves->len, >=, 20);
  guint ranks_seen = 0, new_leaves = 0, previous = G_MAXUINT;
  for (guint i = 0; i < leaves->len; i++) {
    guint64 id = g_array_index(leaves, TreeLeaf, i).id;
    guint owner = none_owner(lb_htree_of(first->work), id);
    new_leaves += !lb_htree_find(lb_htree_of(first->work), id, NULL);
    for (guint panel = 0; panel < 2; panel++) {
      guint32 c = leaf_pixel(s, panel, id);
      g_test_message("leaf %u: rank %u, panel %u: %06x", i, owner, panel, c);
      g_assert_cmphex(c, ==, lb_pictures_owner_colour(owner));
    }
    ranks_seen += owner != previous;
    previous = owner;
  }
  g_assert_cmpuint(ranks_seen, >=, 4);
  g_assert_cmpuint(new_leaves, >, 0); /* the step changed the tree */
}

/* sfc-shift after the hot spots moved: along the curve the ranks come in
 * order (the range property) on both sides, and the shift changed some
 * leaf's owner. */
static void
test_htree_shift(void)
{
  g_autofree char *dir = htree_run("htree", "2", NULL);
  g_autoptr(LbScenario) sc = htree_scenario();
  g_autoptr(GArray) none = g_array_new(FALSE, FALSE, sizeof(LbUnit));
  lb_work_update(sc->work, 0, none, 1); /* the tree of the last step */
  g_autoptr(GArray) leaves = sampled_leaves(lb_htree_of(sc->work), 6);
  g_autofree char *png = lb_figure_file(dir, "htree-pictures", "sfc-shift.curve", "png");
  g_autoptr(cairo_surface_t) s = load_png(png);
  guint changed = 0;
  for (guint panel = 0; panel < 2; panel++) {
    int last = 0;
    guint seen = 0;
    for (guint i = 0; i < leaves->len; i++) {
      guint64 id = g_array_index(leaves, TreeLeaf, i).id;
      int r = rank_of_colour(leaf_pixel(s, panel, id), 8);
      g_test_message("panel %u, leaf %u: rank %d", panel, i, r);
      g_assert_cmpint(r, >=, last);
      seen += r != last;
      last = r;
      if (panel == 1)
        changed += leaf_pixel(s, 0, id) != leaf_pixel(s, 1, id);
    }
    g_assert_cmpuint(seen, >=, 4);
  }
  g_assert_cmpuint(changed, >, 0);
}

/* 3D: the leaves meeting the plane z = 1/2. */
static void
test_htree_3d(void)
{
  const char *const extra[] = {"--set", "workload.dim=3",         "--set", "workload.max-level=4",
                               "--set", "sfc-shift.curve=morton", NULL};
  g_autofree char *dir = htree_run("htree-3d", "2", extra);
  g_autofree char *png = lb_figure_file(dir, "htree-pictures", "sfc-shift.curve", "png");
  g_autoptr(cairo_surface_t) s = load_png(png);
  g_assert_cmpint(cairo_image_surface_get_width(s), ==, 1280);
  g_autofree char *svg = lb_figure_file(dir, "htree-pictures", "sfc-shift.curve", "svg");
  assert_svg(svg, 1280, 750);
  /* the curve in owners' colours in both panels */
  for (guint panel = 0; panel < 2; panel++) {
    double x0, y0, x1, y1;
    lb_pictures_curve_point(panel, 0, 1, &x0, &y0);
    lb_pictures_curve_point(panel, 1, 0, &x1, &y1);
    guint coloured = 0;
    for (guint y = (guint)y0; y < (guint)y1; y++)
      for (guint x = (guint)x0; x < (guint)x1; x++)
        coloured += rank_of_colour(pixel(s, x, y), 8) >= 0;
    g_assert_cmpuint(coloured, >, 1000);
  }
}

/* --picture-format pdf,svg --picture-width 640: no PNG; a PDF that begins
 * with %PDF and that pdftoppm draws 640 points wide; an SVG 640 wide
 * whose text is <text> (the title, the axes' names), not glyph outlines. */
static void
test_formats(void)
{
  g_autofree char *dir = tmp_path("formats");
  g_auto(Result) r = {0};
  lbsim(&r, "run", "-q", scenario_path, "--balancer", "mlb", "--pictures", dir, "--picture-format",
        "pdf,svg", "--picture-width", "640", NULL);
  g_test_message("%s", r.err);
  g_assert_cmpint(r.status, ==, 0);
  g_autofree char *png = picture_file(dir, "mlb.partition", "png");
  g_autofree char *pdf = picture_file(dir, "mlb.partition", "pdf");
  g_autofree char *svg = picture_file(dir, "mlb.partition", "svg");
  g_autofree char *chart = picture_file(dir, "imbalance", "pdf");
  g_assert_false(g_file_test(png, G_FILE_TEST_EXISTS));
  g_assert_true(g_file_test(chart, G_FILE_TEST_IS_REGULAR));
  g_autoptr(LbScenario) sc = NULL;
  LbPictureLayout l;
  lb_pictures_layout(work_of(scenario_path, &sc), &l);
  guint height = (guint)ceil(l.height * 640.0 / LB_PICTURES_WIDTH);
  assert_svg(svg, 640, height);
  g_autofree char *text = read_text(svg);
  g_assert_null(strstr(text, "glyph"));
  g_autoptr(GPtrArray) texts = svg_texts(text);
  g_assert_cmpuint(texts->len, >, 10);
  g_assert_true(has_text(texts, "pictures-16 \xc2\xb7 mlb"));
  g_assert_true(has_text(texts, "cell load"));
  g_autofree char *head = read_text(pdf);
  g_assert_true(g_str_has_prefix(head, "%PDF"));
  g_autofree char *pdftoppm = g_find_program_in_path("pdftoppm");
  if (pdftoppm == NULL) {
    g_test_message("pdftoppm is not installed (tools/install-deps installs it): the PDF is not "
                   "drawn");
  } else {
    g_autofree char *out = tmp_path("formats-pdf");
    const char *argv[] = {pdftoppm, "-png", "-r", "72", "-singlefile", pdf, out, NULL};
    int status = 0;
    g_autofree char *err = NULL;
    g_assert_true(g_spawn_sync(NULL, (char **)argv, NULL, G_SPAWN_STDOUT_TO_DEV_NULL, NULL, NULL,
                               NULL, &err, &status, NULL));
    g_test_message("pdftoppm: %s", err);
    g_assert_true(g_spawn_check_wait_status(status, NULL));
    g_autofree char *drawn = g_strconcat(out, ".png", NULL);
    g_autoptr(cairo_surface_t) s = load_png(drawn);
    g_assert_cmpint(cairo_image_surface_get_width(s), ==, 640);
    g_assert_cmpint(cairo_image_surface_get_height(s), ==, height);
    /* the ramp drawn: dark at the left of the map, light at its right */
    guint x, y;
    lb_pictures_cell_pixel(&l, 2, 20, &x, &y);
    g_assert_true(is_low(pixel(s, x / 2, y / 2)));
    lb_pictures_cell_pixel(&l, 61, 20, &x, &y);
    g_assert_true(is_high(pixel(s, x / 2, y / 2)));
  }

  /* the default formats at another width: the PNG too, its heat map
   * scaled with it */
  g_autofree char *narrow = tmp_path("formats-960");
  g_auto(Result) w = {0};
  lbsim(&w, "run", "-q", scenario_path, "--balancer", "mlb", "--pictures", narrow,
        "--picture-width", "960", NULL);
  g_assert_cmpint(w.status, ==, 0);
  g_autofree char *png960 = picture_file(narrow, "mlb.partition", "png");
  g_autoptr(cairo_surface_t) s960 = load_png(png960);
  g_assert_cmpint(cairo_image_surface_get_width(s960), ==, 960);
  g_assert_cmpint(cairo_image_surface_get_height(s960), ==, (int)ceil(l.height * 0.75));
  guint hx, hy;
  lb_pictures_cell_pixel(&l, 61, 20, &hx, &hy);
  g_assert_true(is_high(pixel(s960, (guint)(hx * 0.75), (guint)(hy * 0.75))));
  g_autofree char *svg960 = picture_file(narrow, "mlb.partition", "svg");
  assert_svg(svg960, 960, (guint)ceil(l.height * 0.75));

  /* refused before anything runs */
  const char *const bad[][4] = {
      {"--picture-format", "gif", "--pictures", "gif"},
      {"--picture-width", "100", "--pictures", "100"},
      {"--picture-format", "pdf", "--json", "-"},
  };
  for (guint b = 0; b < G_N_ELEMENTS(bad); b++) {
    g_autofree char *where = tmp_path(bad[b][3]);
    g_auto(Result) refused = {0};
    lbsim(&refused, "run", scenario_path, bad[b][0], bad[b][1], bad[b][2],
          strcmp(bad[b][2], "--json") == 0 ? "-" : where, NULL);
    g_test_message("%s %s: %s", bad[b][0], bad[b][1], refused.err);
    g_assert_cmpint(refused.status, ==, 2);
    g_assert_nonnull(strstr(refused.err, bad[b][0]));
    g_assert_false(g_file_test(where, G_FILE_TEST_EXISTS));
  }
}

/* The final loads of each run of a JSON document, by balancer. */
static GArray *
final_loads(JsonNode *root, const char *balancer)
{
  JsonArray *runs = json_object_get_array_member(json_node_get_object(root), "runs");
  for (guint i = 0; i < json_array_get_length(runs); i++) {
    JsonObject *run = json_array_get_object_element(runs, i);
    if (strcmp(json_object_get_string_member(run, "balancer"), balancer) != 0)
      continue;
    JsonArray *loads = json_object_get_array_member(run, "final_loads");
    GArray *out = g_array_new(FALSE, FALSE, sizeof(guint64));
    for (guint r = 0; r < json_array_get_length(loads); r++) {
      guint64 v = (guint64)json_array_get_int_element(loads, r);
      g_array_append_val(out, v);
    }
    return out;
  }
  g_assert_not_reached();
}

/* "max rN" and "min rM" in a picture's text: the most and the least
 * loaded rank of the run's final loads (the first of equals). */
static void
assert_extremes(const char *svg, GArray *loads)
{
  guint most = 0, least = 0;
  for (guint r = 1; r < loads->len; r++) {
    if (g_array_index(loads, guint64, r) > g_array_index(loads, guint64, most))
      most = r;
    if (g_array_index(loads, guint64, r) < g_array_index(loads, guint64, least))
      least = r;
  }
  g_autofree char *text = read_text(svg);
  g_autoptr(GPtrArray) texts = svg_texts(text);
  g_autofree char *max = g_strdup_printf("max r%u", most);
  g_autofree char *min = g_strdup_printf("min r%u", least);
  g_test_message("%s: %s, %s", svg, max, min);
  g_assert_true(has_text(texts, max));
  g_assert_true(most == least || has_text(texts, min));
  /* and no other rank is called the most loaded */
  guint named = 0;
  for (guint i = 0; i < texts->len; i++)
    named += strstr(texts->pdata[i], "max r") != NULL && strstr(texts->pdata[i], max) == NULL;
  g_assert_cmpuint(named, ==, 0);
}

/* The most and the least loaded rank named on the partitions (cells), the
 * grids (SAMR) and the curves (H-tree), as the JSON's final loads say. */
static void
test_extremes(void)
{
  g_autofree char *dir = tmp_path("extremes");
  g_autofree char *json = tmp_path("extremes.json");
  g_auto(Result) r = {0};
  lbsim(&r, "run", "-q", scenario_path, "--pictures", dir, "--json", json, NULL);
  g_assert_cmpint(r.status, ==, 0);
  g_autoptr(JsonNode) root = load_json(json);
  for (guint b = 0; b < G_N_ELEMENTS(balancers); b++) {
    g_autoptr(GArray) loads = final_loads(root, balancers[b]);
    g_autofree char *what = g_strdup_printf("%s.partition", balancers[b]);
    g_autofree char *svg = picture_file(dir, what, "svg");
    assert_extremes(svg, loads);
  }
  /* SAMR grids: the after panel names the JSON's most and least loaded
   * rank with their loads */
  g_autofree char *samr = tmp_path("extremes-samr.ini");
  g_autofree char *samr_text = g_strdup_printf(
      "[scenario]\nname = samr-extremes\nplatform = %s/platforms/hypercube-16.xml\nranks = 16\n"
      "seed = 2\nsteps = 5\n[workload]\nmodel = samr\nsize = 16x16x16\nlevels = 2\n"
      "pattern = clusters\nclusters = 2\ninterval = 2\ngrowth = 0.03\namplitude = 300\n"
      "base = 0\n[balancers]\nrun = move-split\n",
      g_getenv("LBSIM_SOURCE_ROOT"));
  g_assert_true(g_file_set_contents(samr, samr_text, -1, NULL));
  g_autofree char *samr_dir = tmp_path("extremes-samr");
  g_autofree char *samr_json = tmp_path("extremes-samr.json");
  g_auto(Result) g = {0};
  lbsim(&g, "run", "-q", samr, "--pictures", samr_dir, "--json", samr_json, NULL);
  g_assert_cmpint(g.status, ==, 0);
  g_autoptr(JsonNode) grids_root = load_json(samr_json);
  g_autoptr(GArray) grid_loads = final_loads(grids_root, "move-split");
  guint top = 0, bottom = 0;
  for (guint k = 1; k < grid_loads->len; k++) {
    if (g_array_index(grid_loads, guint64, k) > g_array_index(grid_loads, guint64, top))
      top = k;
    if (g_array_index(grid_loads, guint64, k) < g_array_index(grid_loads, guint64, bottom))
      bottom = k;
  }
  g_autofree char *grids_svg = lb_figure_file(samr_dir, "samr-extremes", "move-split.grids", "svg");
  g_autofree char *grids_text = read_text(grids_svg);
  g_autofree char *max = g_strdup_printf(">max r%u: %" G_GUINT64_FORMAT "<", top,
                                         g_array_index(grid_loads, guint64, top));
  g_autofree char *min = g_strdup_printf(">min r%u: %" G_GUINT64_FORMAT "<", bottom,
                                         g_array_index(grid_loads, guint64, bottom));
  g_test_message("grids: %s %s", max, min);
  g_assert_nonnull(strstr(grids_text, max));
  g_assert_nonnull(strstr(grids_text, min));
  g_assert_nonnull(strstr(grids_text, "after balancing: imbalance"));

  g_autofree char *ini = tmp_path("htree-pictures.ini");
  if (!g_file_test(ini, G_FILE_TEST_EXISTS))
    g_assert_true(g_file_set_contents(ini, htree_text, -1, NULL));
  g_autofree char *tree_dir = tmp_path("extremes-tree");
  g_autofree char *tree_json = tmp_path("extremes-tree.json");
  g_auto(Result) t = {0};
  lbsim(&t, "run", "-q", ini, "--balancer", "sfc-shift", "--pictures", tree_dir, "--json",
        tree_json, NULL);
  g_assert_cmpint(t.status, ==, 0);
  g_autoptr(JsonNode) tree = load_json(tree_json);
  g_autoptr(GArray) loads = final_loads(tree, "sfc-shift");
  g_autofree char *svg = lb_figure_file(tree_dir, "htree-pictures", "sfc-shift.curve", "svg");
  g_autofree char *text = read_text(svg);
  guint most = 0;
  for (guint k = 1; k < loads->len; k++)
    if (g_array_index(loads, guint64, k) > g_array_index(loads, guint64, most))
      most = k;
  g_autofree char *named = g_strdup_printf("most loaded r%u, least", most);
  g_assert_nonnull(strstr(text, named));
}

/* No file of the folder has a ':' in its name. */
static void
assert_no_colon(const char *dir)
{
  g_autoptr(GDir) d = g_dir_open(dir, 0, NULL);
  g_assert_nonnull(d);
  guint n = 0;
  for (const char *name; (name = g_dir_read_name(d)) != NULL; n++)
    if (strchr(name, ':') != NULL)
      g_error("%s/%s: a ':' in a file's name", dir, name);
  g_assert_cmpuint(n, >, 0);
}

/* dls: its chunks over time, as `lbsim explain` tells them: the counts of
 * chunks and migrated ones in the caption, and every chunk's bar (those
 * wide enough to look at) in its colour on its worker's row. */
static void
test_chunks(void)
{
  g_autofree char *loop = g_build_filename(source_root(), "scenarios/loop-aqr-hetero-16.ini", NULL);
  g_autofree char *dir = tmp_path("chunks");
  const char *sets[] = {"--set", "dls.data=distributed", "--set", "dls.strategy=get"};
  g_auto(Result) r = {0};
  lbsim(&r, "run", "-q", loop, "--balancer", "dls:fac", sets[0], sets[1], sets[2], sets[3],
        "--pictures", dir, NULL);
  g_test_message("%s", r.err);
  g_assert_cmpint(r.status, ==, 0);
  g_auto(Result) told = {0};
  lbsim(&told, "explain", "dls:fac", loop, sets[0], sets[1], sets[2], sets[3], NULL);
  g_assert_cmpint(told.status, ==, 0);
  typedef struct {
    int rank, owner;
    guint64 first, end;
    double began, ended;
  } Told;
  g_autoptr(GArray) chunks = g_array_new(FALSE, FALSE, sizeof(Told));
  g_auto(GStrv) lines = g_strsplit(told.out, "\n", -1);
  guint migrated = 0;
  guint64 iterations = 0;
  double t_end = 0;
  for (guint i = 0; lines[i] != NULL; i++) {
    const char *at = strstr(lines[i], " t="), *began = strstr(lines[i], ", began at ");
    Told c;
    if (at == NULL || began == NULL ||
        sscanf(at,
               " t=%lf s rank %d: computed chunk [%" G_GUINT64_FORMAT ", %" G_GUINT64_FORMAT
               ") of rank %d",
               &c.ended, &c.rank, &c.first, &c.end, &c.owner) != 5 ||
        sscanf(began, ", began at %lf", &c.began) != 1)
      continue;
    g_array_append_val(chunks, c);
    migrated += c.owner != c.rank;
    iterations = MAX(iterations, c.end);
    t_end = MAX(t_end, c.ended);
  }
  g_assert_cmpuint(chunks->len, >, 50);
  g_assert_cmpuint(migrated, >, 0);
  /* a variant's label in file names: NAME+VARIANT, no ':' (scp, make);
   * the label itself, in the picture and the results, as it is */
  g_autofree char *svg = g_build_filename(dir, "loop-aqr-hetero-16.dls+fac.chunks.svg", NULL);
  g_autofree char *named = lb_figure_file(dir, "loop-aqr-hetero-16", "dls:fac.chunks", "svg");
  g_assert_cmpstr(named, ==, svg);
  assert_no_colon(dir);
  g_autofree char *text = read_text(svg);
  g_assert_nonnull(strstr(text, "dls:fac"));
  g_autofree char *counts = g_strdup_printf("%u chunks, %u migrated", chunks->len, migrated);
  g_assert_nonnull(strstr(text, counts));
  g_assert_null(strstr(text, "final partition"));
  g_autofree char *png = lb_figure_file(dir, "loop-aqr-hetero-16", "dls:fac.chunks", "png");
  g_autoptr(cairo_surface_t) s = load_png(png);
  LbGanttLayout l;
  lb_pictures_gantt_layout(16, t_end, &l);
  g_assert_cmpint(cairo_image_surface_get_width(s), ==, l.width);
  g_assert_cmpint(cairo_image_surface_get_height(s), ==, l.height);
  guint looked = 0;
  guint seen[16] = {0};
  for (guint i = 0; i < chunks->len; i++) {
    const Told *c = &g_array_index(chunks, Told, i);
    double x0 = l.left + (l.right - l.left) * c->began / l.t_end;
    double x1 = l.left + (l.right - l.left) * c->ended / l.t_end;
    if (x1 - x0 < 16) /* clear of its start's mark and the rounding of its ends */
      continue;
    /* at a quarter, the middle and three quarters of the bar: a
     * migration's line may cross one of them */
    guint y = (guint)(l.top + (c->rank + 0.5) * l.row), right = 0;
    guint32 want = lb_pictures_chunk_colour(c->first, iterations), got = 0;
    for (guint q = 1; q <= 3; q++) {
      got = pixel(s, (guint)(x0 + (x1 - x0) * q / 4), y);
      right += got == want;
    }
    if (right < 2)
      g_test_message("chunk %u of rank %d [%" G_GUINT64_FORMAT ", %" G_GUINT64_FORMAT
                     ") %.6f-%.6f s: %06x, not %06x",
                     i, c->rank, c->first, c->end, c->began, c->ended, got, want);
    g_assert_cmpuint(right, >=, 2);
    looked++;
    seen[c->rank]++;
  }
  guint rows = 0;
  for (guint k = 0; k < 16; k++)
    rows += seen[k] > 0;
  g_test_message("%u chunks looked at on %u rows", looked, rows);
  g_assert_cmpuint(looked, >=, 30);
  g_assert_cmpuint(rows, >=, 12);
  /* the report page shows the chart (its JSON, with dls's unset string
   * parameter as null, reads back) */
  g_autofree char *report = tmp_path("chunks-report");
  g_auto(Result) page = {0};
  lbsim(&page, "run", "-q", loop, "--balancer", "dls:fac", sets[0], sets[1], sets[2], sets[3],
        "--report", report, NULL);
  g_test_message("%s", page.err);
  g_assert_cmpint(page.status, ==, 0);
  g_autofree char *index = g_build_filename(report, "index.html", NULL);
  g_autofree char *html = read_text(index);
  g_assert_nonnull(strstr(html, "href=\"loop-aqr-hetero-16.dls+fac.chunks.svg\""));
  assert_no_colon(report);
  g_assert_nonnull(strstr(html, counts));

  /* idle time is grey: after the last chunk of rank 0 */
  double last0 = 0;
  for (guint i = 0; i < chunks->len; i++)
    if (g_array_index(chunks, Told, i).rank == 0)
      last0 = MAX(last0, g_array_index(chunks, Told, i).ended);
  if (l.right - (l.left + (l.right - l.left) * last0 / l.t_end) > 6)
    g_assert_cmphex(pixel(s, (guint)l.right - 3, (guint)(l.top + 0.5 * l.row)), ==, 0xf0f0f0);
}

/* From 256 ranks on, a curve picture is the leaves' loads with the
 * parts' boundaries over them, not a colour per rank: almost no pixel of
 * the panels has a rank's colour, the most loaded rank's ring (orange) is
 * drawn in each panel, and the caption names the JSON's most loaded. */
static void
test_many_ranks(void)
{
  g_autofree char *ini = tmp_path("htree-pictures.ini");
  if (!g_file_test(ini, G_FILE_TEST_EXISTS))
    g_assert_true(g_file_set_contents(ini, htree_text, -1, NULL));
  g_autofree char *dir = tmp_path("many");
  g_autofree char *json = tmp_path("many.json");
  g_auto(Result) r = {0};
  lbsim(&r, "run", "-q", ini, "--ranks", "256", "--platform", "hypercube-256.xml", "--set",
        "workload.elements=40000", "--set", "workload.max-level=8", "--balancer", "sfc-shift",
        /* the collections' end without section 5.3's p (p - 1) messages:
         * the picture is the subject, and 256 ranks of them take minutes */
        "--set", "sfc-shift.sync=counts", "--pictures", dir, "--json", json, NULL);
  g_test_message("%s", r.err);
  g_assert_cmpint(r.status, ==, 0);
  g_autofree char *png = lb_figure_file(dir, "htree-pictures", "sfc-shift.curve", "png");
  g_autoptr(cairo_surface_t) s = load_png(png);
  for (guint panel = 0; panel < 2; panel++) {
    double x0, y0, x1, y1;
    lb_pictures_curve_point(panel, 0, 1, &x0, &y0);
    lb_pictures_curve_point(panel, 1, 0, &x1, &y1);
    guint64 owned = 0, ring = 0, all = 0;
    g_autoptr(GHashTable) colours = g_hash_table_new(g_direct_hash, g_direct_equal);
    for (guint k = 0; k < 256; k++)
      g_hash_table_add(colours, GUINT_TO_POINTER(lb_pictures_owner_colour(k)));
    for (guint y = (guint)y0 + 1; y < (guint)y1; y++)
      for (guint x = (guint)x0 + 1; x < (guint)x1; x++) {
        guint32 c = pixel(s, x, y);
        owned += g_hash_table_contains(colours, GUINT_TO_POINTER(c));
        ring += c == 0xd55e00;
        all++;
      }
    g_test_message("panel %u: %" G_GUINT64_FORMAT " of %" G_GUINT64_FORMAT
                   " pixels in ranks' colours, %" G_GUINT64_FORMAT " orange",
                   panel, owned, all, ring);
    g_assert_cmpuint(owned * 200, <, all);
    g_assert_cmpuint(ring, >, 50);
  }
  g_autoptr(JsonNode) root = load_json(json);
  g_autoptr(GArray) loads = final_loads(root, "sfc-shift");
  g_assert_cmpuint(loads->len, ==, 256);
  guint most = 0;
  for (guint k = 1; k < loads->len; k++)
    if (g_array_index(loads, guint64, k) > g_array_index(loads, guint64, most))
      most = k;
  g_autofree char *svg = lb_figure_file(dir, "htree-pictures", "sfc-shift.curve", "svg");
  g_autofree char *text = read_text(svg);
  g_autofree char *named = g_strdup_printf("most loaded r%u, least", most);
  g_assert_nonnull(strstr(text, named));
  g_autofree char *ring_name = g_strdup_printf(">max r%u<", most);
  g_assert_nonnull(strstr(text, ring_name));
}

static char *
chromium_path(void)
{
  char *path = g_find_program_in_path("chromium");
  return path != NULL ? path : g_find_program_in_path("chromium-browser");
}

/* Pictures at 64 and 1024 ranks (partitions, the dls chunks) as a browser
 * shows their SVG: a page of them, screenshotted by headless Chromium, is
 * not blank, and is kept in the build folder (pictures-screenshot.png)
 * to be looked at. */
static void
test_browser(void)
{
  g_autofree char *chromium = chromium_path();
  if (chromium == NULL) {
    g_test_skip("chromium is not installed (tools/install-deps installs it)");
    return;
  }
  g_autofree char *dir = tmp_path("browser");
  g_auto(Result) r64 = {0};
  lbsim(&r64, "run", "-q", scenario_path, "--ranks", "64", "--platform", "hypercube-64.xml",
        "--set", "workload.pattern=hotspots", "--balancer", "mlb", "--pictures", dir, NULL);
  g_assert_cmpint(r64.status, ==, 0);
  g_autofree char *dir1024 = tmp_path("browser-1024");
  g_auto(Result) r1024 = {0};
  lbsim(&r1024, "run", "-q", scenario_path, "--ranks", "1024", "--platform", "hypercube-1024.xml",
        "--set", "workload.size=256x128", "--set", "workload.pattern=hotspots", "--balancer", "mlb",
        "--pictures", dir1024, NULL);
  g_assert_cmpint(r1024.status, ==, 0);
  g_autofree char *loop = g_build_filename(source_root(), "scenarios/loop-aqr-hetero-16.ini", NULL);
  g_auto(Result) dls = {0};
  lbsim(&dls, "run", "-q", loop, "--balancer", "dls:gss", "--pictures", dir, NULL);
  g_assert_cmpint(dls.status, ==, 0);
  g_autofree char *a = picture_file(dir, "mlb.partition", "svg");
  g_autofree char *b = picture_file(dir1024, "mlb.partition", "svg");
  g_autofree char *c = lb_figure_file(dir, "loop-aqr-hetero-16", "dls:gss.chunks", "svg");
  g_autoptr(GString) page = g_string_new("<!DOCTYPE html><html><body style=\"margin:0\">\n");
  const char *const svgs[] = {a, b, c};
  for (guint i = 0; i < G_N_ELEMENTS(svgs); i++) {
    g_autofree char *uri = g_filename_to_uri(svgs[i], NULL, NULL);
    g_string_append_printf(page, "<img src=\"%s\" style=\"width:640px\">\n", uri);
  }
  g_string_append(page, "</body></html>\n");
  g_autofree char *html = tmp_path("browser.html");
  g_assert_true(g_file_set_contents(html, page->str, -1, NULL));
  g_autofree char *shot = tmp_path("browser.png");
  g_autofree char *uri = g_filename_to_uri(html, NULL, NULL);
  g_autofree char *profile = tmp_path("chromium-profile");
  g_autofree char *profile_arg = g_strconcat("--user-data-dir=", profile, NULL);
  g_autofree char *shot_arg = g_strconcat("--screenshot=", shot, NULL);
  const char *argv[] = {chromium,
                        "--headless",
                        "--no-sandbox",
                        "--disable-gpu",
                        "--no-first-run",
                        "--hide-scrollbars",
                        profile_arg,
                        "--window-size=1280,1000",
                        shot_arg,
                        uri,
                        NULL};
  int status = 0;
  g_autofree char *out = NULL, *err = NULL;
  g_assert_true(g_spawn_sync(NULL, (char **)argv, NULL, G_SPAWN_DEFAULT, NULL, NULL, &out, &err,
                             &status, NULL));
  if (!g_spawn_check_wait_status(status, NULL))
    g_error("chromium failed: %s", err);
  g_autoptr(cairo_surface_t) s = load_png(shot);
  guint w = (guint)cairo_image_surface_get_width(s), h = (guint)cairo_image_surface_get_height(s);
  g_autoptr(GHashTable) colours = g_hash_table_new(g_direct_hash, g_direct_equal);
  guint64 inked = 0;
  guint64 dark_text = 0;
  for (guint y = 0; y < h; y++)
    for (guint x = 0; x < w; x++) {
      guint32 px = pixel(s, x, y);
      g_hash_table_add(colours, GUINT_TO_POINTER(px));
      inked += px != 0xffffff;
      /* the titles' dark grey (0x202020) in the top band of each picture */
      dark_text += y < 40 && R(px) < 0x40 && G(px) < 0x40 && B(px) < 0x40;
    }
  g_test_message("screenshot %ux%u: %u colours, %.1f%% inked", w, h, g_hash_table_size(colours),
                 100.0 * inked / ((double)w * h));
  g_assert_cmpuint(g_hash_table_size(colours), >=, 200);
  g_assert_cmpfloat(inked, >, 0.2 * w * h);
  g_assert_cmpuint(dark_text, >, 100); /* the SVG's <text> is drawn */
  g_autofree char *kept = g_build_filename(g_get_current_dir(), "pictures-screenshot.png", NULL);
  g_autofree char *bytes = NULL;
  gsize length = 0;
  g_assert_true(g_file_get_contents(shot, &bytes, &length, NULL));
  if (g_file_set_contents(kept, bytes, (gssize)length, NULL))
    g_test_message("screenshot: %s", kept);
}

/* The imbalance chart's axis is logarithmic exactly when the largest
 * imbalance after balancing is four times the smallest or more (the
 * JSON's adaptations say which): a narrow hot spot that leaves `none` at
 * about 5, and the ramp that leaves it under 2. */
static void
test_log_axis(void)
{
  const char *const cases[][2] = {{"log-narrow", "0.03"}, {"log-wide", "0.3"}};
  for (guint k = 0; k < G_N_ELEMENTS(cases); k++) {
    g_autofree char *dir = tmp_path(cases[k][0]);
    g_autofree char *json = g_strconcat(dir, ".json", NULL);
    g_autofree char *width = g_strconcat("workload.width=", cases[k][1], NULL);
    g_auto(Result) r = {0};
    lbsim(&r, "run", "-q", scenario_path, "--set", "workload.pattern=hotspots", "--set",
          "workload.hotspots=1", "--set", width, "--set", "workload.size=128x64", "--pictures", dir,
          "--json", json, NULL);
    g_assert_cmpint(r.status, ==, 0);
    g_autoptr(JsonNode) root = load_json(json);
    JsonArray *runs = json_object_get_array_member(json_node_get_object(root), "runs");
    double lo = G_MAXDOUBLE, hi = 0;
    for (guint i = 0; i < json_array_get_length(runs); i++) {
      JsonArray *steps =
          json_object_get_array_member(json_array_get_object_element(runs, i), "adaptations");
      for (guint s = 0; s < json_array_get_length(steps); s++) {
        double v = json_object_get_double_member(json_array_get_object_element(steps, s),
                                                 "imbalance_after");
        lo = MIN(lo, v);
        hi = MAX(hi, v);
      }
    }
    g_autofree char *svg = picture_file(dir, "imbalance", "svg");
    g_autofree char *text = read_text(svg);
    g_test_message("%s: %g to %g", cases[k][0], lo, hi);
    g_assert_cmpint(strstr(text, "log scale") != NULL, ==, hi / lo >= 4);
    g_assert_cmpint(k == 0, ==, hi / lo >= 4); /* the two cases are the two kinds */
    if (hi / lo >= 4)                          /* ticks at 1, 2, 5 */
      g_assert_nonnull(strstr(text, ">5</text>"));
  }
}

int
main(int argc, char **argv)
{
  g_test_init(&argc, &argv, NULL);
  tmp_dir = g_dir_make_tmp("lbsim-pictures-XXXXXX", NULL);
  g_assert_nonnull(tmp_dir);
  scenario_path = g_build_filename(tmp_dir, "pictures-16.ini", NULL);
  g_assert_true(g_file_set_contents(scenario_path, scenario_text, -1, NULL));
  g_test_add_func("/pictures/files", test_files);
  g_test_add_func("/pictures/partition", test_partition);
  g_test_add_func("/pictures/imbalance-chart", test_imbalance_chart);
  g_test_add_func("/pictures/determinism", test_determinism);
  g_test_add_func("/pictures/models", test_models);
  g_test_add_func("/pictures/samr", test_samr);
  g_test_add_func("/pictures/palette", test_palette);
  g_test_add_func("/pictures/print", test_print);
  g_test_add_func("/pictures/bad-folder", test_bad_folder);
  g_test_add_func("/pictures/htree-files", test_htree_files);
  g_test_add_func("/pictures/htree-owners", test_htree_owners);
  g_test_add_func("/pictures/htree-shift", test_htree_shift);
  g_test_add_func("/pictures/htree-3d", test_htree_3d);
  g_test_add_func("/pictures/formats", test_formats);
  g_test_add_func("/pictures/extremes", test_extremes);
  g_test_add_func("/pictures/chunks", test_chunks);
  g_test_add_func("/pictures/many-ranks", test_many_ranks);
  g_test_add_func("/pictures/log-axis", test_log_axis);
  g_test_add_func("/pictures/browser", test_browser);
  int status = g_test_run();
  remove_tree(tmp_dir);
  g_free(scenario_path);
  g_free(tmp_dir);
  return status;
}
