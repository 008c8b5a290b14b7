/* Pictures with cairo: every picture is drawn twice by the same function,
 * on an image surface (PNG) and on an SVG surface, so the two agree. */
#include "report/pictures.h"
#include "io/output.h"
#include "lbsim/balancer.h"

#include <math.h>
#include <string.h>
#include <cairo.h>
#include <cairo-svg.h>

G_DEFINE_AUTOPTR_CLEANUP_FUNC(cairo_t, cairo_destroy)
G_DEFINE_AUTOPTR_CLEANUP_FUNC(cairo_surface_t, cairo_surface_destroy)

/* The map's longest side: a field up to this many cells gets a pixel (or
 * more) per cell; a larger one is sampled. Small fields are blown up to
 * about MAP_SMALL pixels. */
#define MAP_MAX 1024
#define MAP_SMALL 640
#define CELL_PX_MAX 48
#define MARGIN_LEFT 66
#define MARGIN_TOP 88
#define MARGIN_BOTTOM 56
#define COLOUR_BAR_GAP 24
#define COLOUR_BAR_WIDTH 18
#define MARGIN_RIGHT_BAR 110 /* gap, colour bar, its labels */
#define MARGIN_RIGHT_1D 28
#define MIN_WIDTH 780
#define MIN_MAP_HEIGHT 220
#define BARS_HEIGHT 240
#define RANK_BAND_GAP 8
#define RANK_BAND_HEIGHT 34
#define CHART_WIDTH 960
#define CHART_HEIGHT 540
#define FONT "sans-serif"

/* ---- colours, numbers, text ---- */

/* viridis (matplotlib's perceptually uniform map) at 10 even stops; linear
 * in between. */
static const guint8 viridis_stops[10][3] = {
    {0x44, 0x01, 0x54}, {0x48, 0x28, 0x78}, {0x3e, 0x4a, 0x89}, {0x31, 0x68, 0x8e},
    {0x26, 0x82, 0x8e}, {0x1f, 0x9e, 0x89}, {0x35, 0xb7, 0x79}, {0x6d, 0xcd, 0x59},
    {0xb4, 0xde, 0x2c}, {0xfd, 0xe7, 0x25},
};

static guint32
viridis(double t)
{
  t = CLAMP(t, 0.0, 1.0) * 9;
  guint i = MIN((guint)t, 8u);
  double f = t - i;
  guint32 rgb = 0;
  for (guint c = 0; c < 3; c++) {
    double v = viridis_stops[i][c] + f * (viridis_stops[i + 1][c] - viridis_stops[i][c]);
    rgb = rgb << 8 | (guint32)lround(v);
  }
  return rgb;
}

static void
set_rgb(cairo_t *cr, guint32 rgb)
{
  cairo_set_source_rgb(cr, (rgb >> 16) / 255.0, (rgb >> 8 & 0xff) / 255.0, (rgb & 0xff) / 255.0);
}

/* Colour-blind-safe (Okabe and Ito), without the yellow that white hides. */
static const guint32 line_colours[] = {0x0072b2, 0xd55e00, 0x009e73, 0xcc79a7,
                                       0xe69f00, 0x56b4e9, 0x000000};

guint32
lb_pictures_line_colour(guint index)
{
  return line_colours[index % G_N_ELEMENTS(line_colours)];
}

double
lb_pictures_nice_step(double span, guint count, gboolean integral)
{
  double raw = span > 0 ? span / count : 1;
  double magnitude = pow(10, floor(log10(raw)));
  double f = raw / magnitude;
  double step = (f <= 1 ? 1 : f <= 2 ? 2 : f <= 2.5 ? 2.5 : f <= 5 ? 5 : 10) * magnitude;
  if (integral)
    step = MAX(1, round(step));
  return step;
}

char *
lb_pictures_format_tick(double v, double step)
{
  int decimals = 0;
  while (decimals < 6 && fabs(step * pow(10, decimals) - round(step * pow(10, decimals))) > 1e-6)
    decimals++;
  return g_strdup_printf("%.*f", decimals, fabs(v) < step * 1e-9 ? 0.0 : v);
}

/* Loads on labels: exact up to six digits, else three significant ones. */
static char *
format_load(guint64 v)
{
  static const char *const suffix[] = {"k", "M", "G", "T", "P", "E"};
  if (v < 1000000)
    return g_strdup_printf("%" G_GUINT64_FORMAT, v);
  double x = (double)v;
  guint s = 0;
  for (x /= 1000; x >= 999.5 && s + 1 < G_N_ELEMENTS(suffix); s++)
    x /= 1000;
  return g_strdup_printf("%.*f%s", x < 9.995 ? 2 : x < 99.95 ? 1 : 0, x, suffix[s]);
}

static void
set_font(cairo_t *cr, double size, gboolean bold)
{
  cairo_select_font_face(cr, FONT, CAIRO_FONT_SLANT_NORMAL,
                         bold ? CAIRO_FONT_WEIGHT_BOLD : CAIRO_FONT_WEIGHT_NORMAL);
  cairo_set_font_size(cr, size);
}

static double
text_width(cairo_t *cr, const char *text)
{
  cairo_text_extents_t e;
  cairo_text_extents(cr, text, &e);
  return e.x_advance;
}

static double
text_height(cairo_t *cr)
{
  cairo_font_extents_t e;
  cairo_font_extents(cr, &e);
  return e.ascent + e.descent;
}

/* Moves to where text anchored at (x, y) starts: ax 0 left, 0.5 centre,
 * 1 right; ay 0 top, 0.5 middle, 1 bottom. */
static void
move_to_anchor(cairo_t *cr, double x, double y, double ax, double ay, const char *text)
{
  cairo_font_extents_t e;
  cairo_font_extents(cr, &e);
  cairo_move_to(cr, x - ax * text_width(cr, text), y - ay * (e.ascent + e.descent) + e.ascent);
}

static void
show_text(cairo_t *cr, double x, double y, double ax, double ay, const char *text)
{
  move_to_anchor(cr, x, y, ax, ay, text);
  cairo_show_text(cr, text);
}

static void
rounded_rectangle(cairo_t *cr, double x, double y, double width, double height, double radius)
{
  cairo_new_sub_path(cr);
  cairo_arc(cr, x + width - radius, y + radius, radius, -G_PI / 2, 0);
  cairo_arc(cr, x + width - radius, y + height - radius, radius, 0, G_PI / 2);
  cairo_arc(cr, x + radius, y + height - radius, radius, G_PI / 2, G_PI);
  cairo_arc(cr, x + radius, y + radius, radius, G_PI, 3 * G_PI / 2);
  cairo_close_path(cr);
}

/* Lines of white text centred on (x, y) over a dark translucent box:
 * readable on every colour of the map, and small in SVG (the glyphs are
 * shared, where outlined text would be a path each). */
static void
show_label(cairo_t *cr, double x, double y, const char *const *lines, guint n, double width)
{
  double line = text_height(cr);
  double top = y - n * line / 2;
  rounded_rectangle(cr, x - width / 2, top - 1, width, n * line + 2, 4);
  cairo_set_source_rgba(cr, 0, 0, 0, 0.45);
  cairo_fill(cr);
  cairo_set_source_rgb(cr, 1, 1, 1);
  for (guint i = 0; i < n; i++)
    show_text(cr, x, top + i * line, 0.5, 0, lines[i]);
}

/* One line, made smaller until it fits width. */
static void
show_fitted(cairo_t *cr, double x, double y, double width, double size, gboolean bold,
            const char *text)
{
  set_font(cr, size, bold);
  double w = text_width(cr, text);
  if (w > width)
    set_font(cr, size * width / w, bold);
  show_text(cr, x, y, 0, 0, text);
}

static void
show_rotated(cairo_t *cr, double x, double y, const char *text)
{
  cairo_save(cr);
  cairo_translate(cr, x, y);
  cairo_rotate(cr, -G_PI / 2);
  show_text(cr, 0, 0, 0.5, 0.5, text);
  cairo_restore(cr);
}

/* ---- writing ---- */

typedef void (*DrawFunc)(cairo_t *cr, gconstpointer data);

static cairo_status_t
append_cb(void *closure, const unsigned char *data, unsigned int length)
{
  g_byte_array_append(closure, data, length);
  return CAIRO_STATUS_SUCCESS;
}

static gboolean
save(const char *path, GByteArray *bytes, GError **error)
{
  g_autoptr(GError) local = NULL;
  if (lb_output_write(path, (const char *)bytes->data, bytes->len, &local))
    return TRUE;
  g_set_error(error, G_FILE_ERROR, local->code, "cannot write %s: %s", path, local->message);
  return FALSE;
}

static gboolean
cairo_failed(cairo_status_t status, const char *path, GError **error)
{
  if (status == CAIRO_STATUS_SUCCESS)
    return FALSE;
  g_set_error(error, G_FILE_ERROR, G_FILE_ERROR_FAILED, "cannot draw %s: %s", path,
              cairo_status_to_string(status));
  return TRUE;
}

/* DIR/SCENARIO.WHAT.png and .svg. The SVG's ids come from cairo's
 * counters, which the same drawing in the same order makes the same in
 * every run. */
static gboolean
write_picture(const char *dir, const char *scenario, const char *what, guint width, guint height,
              DrawFunc draw, gconstpointer data, GError **error)
{
  g_autofree char *png = lb_pictures_file(dir, scenario, what, "png");
  g_autofree char *svg = lb_pictures_file(dir, scenario, what, "svg");
  g_autoptr(GByteArray) bytes = g_byte_array_new();
  {
    g_autoptr(cairo_surface_t) image =
        cairo_image_surface_create(CAIRO_FORMAT_RGB24, (int)width, (int)height);
    g_autoptr(cairo_t) cr = cairo_create(image);
    draw(cr, data);
    if (cairo_failed(cairo_status(cr), png, error) ||
        cairo_failed(cairo_surface_write_to_png_stream(image, append_cb, bytes), png, error) ||
        !save(png, bytes, error))
      return FALSE;
  }
  g_byte_array_set_size(bytes, 0);
  {
    g_autoptr(cairo_surface_t) vector =
        cairo_svg_surface_create_for_stream(append_cb, bytes, width, height);
    cairo_svg_surface_set_document_unit(vector, CAIRO_SVG_UNIT_USER);
    g_autoptr(cairo_t) cr = cairo_create(vector);
    draw(cr, data);
    cairo_status_t status = cairo_status(cr);
    g_clear_pointer(&cr, cairo_destroy);
    cairo_surface_finish(vector);
    if (cairo_failed(status, svg, error) || cairo_failed(cairo_surface_status(vector), svg, error))
      return FALSE;
  }
  return save(svg, bytes, error);
}

char *
lb_pictures_file(const char *dir, const char *scenario, const char *what, const char *ext)
{
  g_autofree char *name = g_strdup_printf("%s.%s.%s", scenario, what, ext);
  g_strdelimit(name, "/", '_');
  return g_build_filename(dir, name, NULL);
}

/* ---- the partition ---- */

/* Sample i of m over n cells covers cells [lo(i), lo(i + 1)). */
static guint64
sample_lo(guint i, guint m, guint64 n)
{
  return (guint64)(((unsigned __int128)n * i) / m);
}

/* The sample holding cell c: the last i with lo(i) <= c. */
static guint
sample_of(guint64 c, guint m, guint64 n)
{
  return (guint)((((unsigned __int128)c + 1) * m - 1) / n);
}

void
lb_pictures_layout(const LbWork *work, LbPictureLayout *layout)
{
  memset(layout, 0, sizeof *layout);
  layout->dim = work->dim;
  gboolean strip = work->dim == 1;
  layout->nx = work->size[0];
  layout->ny = strip ? 1 : work->size[1];
  guint64 longest = MAX(layout->nx, layout->ny);
  if (longest <= MAP_MAX) {
    layout->sx = (guint)layout->nx;
    layout->sy = (guint)layout->ny;
    layout->cell_px = (guint)CLAMP(MAP_SMALL / longest, 1, CELL_PX_MAX);
  } else {
    layout->sx = (guint)MAX(1, layout->nx * MAP_MAX / longest);
    layout->sy = (guint)MAX(1, layout->ny * MAP_MAX / longest);
    layout->cell_px = 1;
  }
  layout->map_width = layout->sx * layout->cell_px;
  layout->map_height = strip ? BARS_HEIGHT : layout->sy * layout->cell_px;
  guint right = strip ? MARGIN_RIGHT_1D : MARGIN_RIGHT_BAR;
  guint natural = MARGIN_LEFT + layout->map_width + right;
  layout->width = MAX(natural, MIN_WIDTH);
  layout->map_x = MARGIN_LEFT + (layout->width - natural) / 2;
  layout->map_y = MARGIN_TOP;
  layout->height = MARGIN_TOP + MARGIN_BOTTOM +
                   (strip ? BARS_HEIGHT + RANK_BAND_GAP + RANK_BAND_HEIGHT
                          : MAX(layout->map_height, MIN_MAP_HEIGHT));
}

void
lb_pictures_cell_pixel(const LbPictureLayout *layout, guint64 x, guint64 y, guint *px, guint *py)
{
  guint i = sample_of(x, layout->sx, layout->nx);
  *px = layout->map_x + i * layout->cell_px + layout->cell_px / 2;
  if (layout->dim == 1) {
    *py = layout->map_y + layout->map_height - 1;
    return;
  }
  guint j = sample_of(y, layout->sy, layout->ny);
  *py = layout->map_y + (layout->sy - 1 - j) * layout->cell_px + layout->cell_px / 2;
}

typedef struct {
  guint64 count;
  double sum_x, sum_y;
} RankArea;

/* The picture's data: the drawn plane sampled, and what its ranks hold. */
typedef struct {
  const LbPartitionPicture *picture;
  LbPictureLayout layout;
  guint32 *owner; /* sx * sy samples, sample row 0 = cell row 0 */
  guint64 *load;  /* the largest load of the sample's cells */
  guint64 lo, hi; /* heat scale */
  RankArea *areas;
  char *title, *subtitle, *details;
} Plane;

static void
plane_clear(Plane *p)
{
  g_free(p->owner);
  g_free(p->load);
  g_free(p->areas);
  g_free(p->title);
  g_free(p->subtitle);
  g_free(p->details);
}

G_DEFINE_AUTO_CLEANUP_CLEAR_FUNC(Plane, plane_clear)

static void
sample_plane(Plane *p)
{
  const LbPartitionPicture *pic = p->picture;
  const LbWork *work = pic->work;
  const LbPictureLayout *l = &p->layout;
  guint64 plane = work->dim == 3 ? work->size[2] / 2 * work->size[0] * work->size[1] : 0;
  p->owner = g_new(guint32, (gsize)l->sx * l->sy);
  p->load = g_new0(guint64, (gsize)l->sx * l->sy);
  p->lo = G_MAXUINT64;
  p->hi = 0;
  for (guint j = 0; j < l->sy; j++) {
    guint64 y0 = sample_lo(j, l->sy, l->ny), y1 = sample_lo(j + 1, l->sy, l->ny);
    for (guint i = 0; i < l->sx; i++) {
      guint64 x0 = sample_lo(i, l->sx, l->nx), x1 = sample_lo(i + 1, l->sx, l->nx);
      guint64 top = 0;
      for (guint64 y = y0; y < y1; y++)
        for (guint64 x = x0; x < x1; x++)
          top = MAX(top, pic->load[plane + y * l->nx + x]);
      gsize s = (gsize)j * l->sx + i;
      p->owner[s] = pic->owner[plane + y0 * l->nx + x0];
      p->load[s] = top;
      p->lo = MIN(p->lo, top);
      p->hi = MAX(p->hi, top);
    }
  }
  if (p->hi == p->lo)
    p->hi = p->lo + 1;
  p->areas = g_new0(RankArea, pic->ranks);
  for (guint j = 0; j < l->sy; j++)
    for (guint i = 0; i < l->sx; i++) {
      guint32 r = p->owner[(gsize)j * l->sx + i];
      if (r >= pic->ranks)
        continue;
      RankArea *a = &p->areas[r];
      a->count++;
      a->sum_x += i + 0.5;
      a->sum_y += j + 0.5;
    }
}

static void
describe_plane(Plane *p)
{
  const LbPartitionPicture *pic = p->picture;
  const LbWork *work = pic->work;
  const LbPictureLayout *l = &p->layout;
  p->title = g_strdup_printf("%s \xc2\xb7 %s", pic->scenario, pic->balancer);
  g_autofree char *where = work->dim == 3
                               ? g_strdup_printf(" in the mid-plane slice z = %" G_GUINT64_FORMAT
                                                 " (of 0\xe2\x80\x93%" G_GUINT64_FORMAT ")",
                                                 work->size[2] / 2, work->size[2] - 1)
                               : g_strdup("");
  p->subtitle = g_strdup_printf("final partition%s after adaptation step %u (last of %u) \xc2\xb7 "
                                "imbalance %.4f (max/avg)",
                                where, pic->adaptation, pic->nadaptations, pic->imbalance);
  g_autoptr(GString) d = g_string_new(work->model->name);
  if (work->dim == 1)
    g_string_append_printf(d, " of %" G_GUINT64_FORMAT " elements", work->size[0]);
  else
    for (guint a = 0; a < work->dim; a++)
      g_string_append_printf(d, "%s%" G_GUINT64_FORMAT, a ? " \xc3\x97 " : " ", work->size[a]);
  g_string_append_printf(d, "%s \xc2\xb7 %u rank%s", work->dim == 1 ? "" : " cells", pic->ranks,
                         pic->ranks == 1 ? "" : "s");
  guint64 per_x = (l->nx + l->sx - 1) / l->sx, per_y = (l->ny + l->sy - 1) / l->sy;
  if (work->dim == 1 && per_x > 1)
    g_string_append_printf(
        d, " \xc2\xb7 a column shows the largest load of up to %" G_GUINT64_FORMAT " elements",
        per_x);
  else if (per_x > 1 || per_y > 1)
    g_string_append_printf(d,
                           " \xc2\xb7 a pixel shows the largest load of up to %" G_GUINT64_FORMAT
                           " \xc3\x97 %" G_GUINT64_FORMAT " cells",
                           per_x, per_y);
  p->details = g_string_free(g_steal_pointer(&d), FALSE);
}

static void
draw_titles(cairo_t *cr, guint width, const char *title, const char *subtitle, const char *details)
{
  double room = width - 2 * 16.0;
  set_rgb(cr, 0x202020);
  show_fitted(cr, 16, 12, room, 17, TRUE, title);
  show_fitted(cr, 16, 36, room, 13, FALSE, subtitle);
  if (details != NULL) {
    set_rgb(cr, 0x606060);
    show_fitted(cr, 16, 56, room, 12, FALSE, details);
  }
}

/* Ticks along an axis of n cells drawn over `length` pixels from `start`
 * (vertical: upwards from start). */
static void
draw_cell_ticks(cairo_t *cr, double start, double across, double length, guint64 n,
                gboolean vertical, const char *name)
{
  set_font(cr, 11, FALSE);
  double step = lb_pictures_nice_step((double)n, length >= 400 ? 8 : 4, TRUE);
  cairo_set_line_width(cr, 1);
  for (double v = 0; v <= (double)n + 1e-9; v += step) {
    double at = length * v / (double)n;
    g_autofree char *label = lb_pictures_format_tick(v, step);
    set_rgb(cr, 0x404040);
    if (vertical) {
      double y = round(start - at) + 0.5;
      cairo_move_to(cr, across - 5, y);
      cairo_line_to(cr, across, y);
      cairo_stroke(cr);
      show_text(cr, across - 8, y, 1, 0.5, label);
    } else {
      double x = round(start + at) + 0.5;
      cairo_move_to(cr, x, across);
      cairo_line_to(cr, x, across + 5);
      cairo_stroke(cr);
      show_text(cr, x, across + 8, 0.5, 0, label);
    }
  }
  set_font(cr, 12, TRUE);
  if (vertical)
    show_rotated(cr, across - 48, start - length / 2, name);
  else
    show_text(cr, start + length / 2, across + 26, 0.5, 0, name);
}

static void
draw_colour_bar(cairo_t *cr, const Plane *p)
{
  const LbPictureLayout *l = &p->layout;
  double x = l->map_x + l->map_width + COLOUR_BAR_GAP;
  double height = MAX(l->map_height, MIN_MAP_HEIGHT);
  double top = l->map_y, bottom = top + height;
  cairo_pattern_t *ramp = cairo_pattern_create_linear(0, bottom, 0, top);
  for (guint i = 0; i < G_N_ELEMENTS(viridis_stops); i++)
    cairo_pattern_add_color_stop_rgb(ramp, i / 9.0, viridis_stops[i][0] / 255.0,
                                     viridis_stops[i][1] / 255.0, viridis_stops[i][2] / 255.0);
  cairo_rectangle(cr, x, top, COLOUR_BAR_WIDTH, height);
  cairo_set_source(cr, ramp);
  cairo_fill(cr);
  cairo_pattern_destroy(ramp);
  set_rgb(cr, 0x404040);
  cairo_set_line_width(cr, 1);
  cairo_rectangle(cr, x - 0.5, top - 0.5, COLOUR_BAR_WIDTH + 1, height + 1);
  cairo_stroke(cr);

  set_font(cr, 11, FALSE);
  double span = (double)(p->hi - p->lo);
  double step = lb_pictures_nice_step(span, 6, TRUE);
  double first = ceil(p->lo / step) * step, last = floor(p->hi / step) * step;
  for (double v = first; v <= last + 1e-9; v += step) {
    double y = round(bottom - height * (v - p->lo) / span) + 0.5;
    cairo_move_to(cr, x + COLOUR_BAR_WIDTH, y);
    cairo_line_to(cr, x + COLOUR_BAR_WIDTH + 5, y);
    cairo_stroke(cr);
    g_autofree char *label = lb_pictures_format_tick(v, step);
    show_text(cr, x + COLOUR_BAR_WIDTH + 8, y, 0, 0.5, label);
  }
  /* the ends, the smallest and largest load shown, unless a tick is there */
  double tick_px = height * step / span;
  const guint64 ends[2] = {p->lo, p->hi};
  const double gaps[2] = {first - p->lo, p->hi - last};
  for (guint e = 0; e < 2; e++) {
    if (gaps[e] * height / span < 14 && tick_px >= 14)
      continue;
    double y = e == 0 ? bottom : top;
    g_autofree char *label = format_load(ends[e]);
    show_text(cr, x + COLOUR_BAR_WIDTH + 8, y, 0, e == 0 ? 1 : 0, label);
  }
  set_font(cr, 12, TRUE);
  show_text(cr, x + COLOUR_BAR_WIDTH / 2.0, top - 8, 0.5, 1, "cell load");
}

static guint32
sample_colour(const Plane *p, gsize s)
{
  if (p->owner[s] == LB_PICTURES_NOBODY)
    return 0xcccccc;
  return viridis((double)(p->load[s] - p->lo) / (double)(p->hi - p->lo));
}

static void
draw_heat(cairo_t *cr, const Plane *p)
{
  const LbPictureLayout *l = &p->layout;
  guint k = l->cell_px;
  g_autoptr(cairo_surface_t) heat =
      cairo_image_surface_create(CAIRO_FORMAT_RGB24, (int)l->map_width, (int)l->map_height);
  cairo_surface_flush(heat);
  guint8 *data = cairo_image_surface_get_data(heat);
  int stride = cairo_image_surface_get_stride(heat);
  for (guint row = 0; row < l->map_height; row++) {
    guint32 *px = (guint32 *)(gpointer)(data + (gsize)row * stride);
    guint j = l->sy - 1 - row / k;
    for (guint i = 0; i < l->sx; i++) {
      guint32 colour = sample_colour(p, (gsize)j * l->sx + i);
      for (guint c = 0; c < k; c++)
        px[i * k + c] = colour;
    }
  }
  cairo_surface_mark_dirty(heat);
  cairo_set_source_surface(cr, heat, l->map_x, l->map_y);
  cairo_paint(cr);
}

/* Owner boundaries: a line along every edge between samples of different
 * owners, edges in a row merged into one segment. */
static void
draw_boundaries(cairo_t *cr, const Plane *p)
{
  const LbPictureLayout *l = &p->layout;
  guint k = l->cell_px;
  double width = k >= 12 ? 2 : 1, shift = k >= 12 ? 0 : 0.5;
  const guint32 *o = p->owner;
  guint64 edges = 0;
  /* vertical edges: left of sample column i */
  for (guint i = 1; i < l->sx; i++)
    for (guint j = 0; j < l->sy;) {
      if (o[(gsize)j * l->sx + i] == o[(gsize)j * l->sx + i - 1]) {
        j++;
        continue;
      }
      guint j0 = j;
      while (j < l->sy && o[(gsize)j * l->sx + i] != o[(gsize)j * l->sx + i - 1])
        j++;
      edges += j - j0;
      double x = l->map_x + i * k + shift;
      cairo_move_to(cr, x, l->map_y + (l->sy - j) * k);
      cairo_line_to(cr, x, l->map_y + (l->sy - j0) * k);
    }
  /* horizontal edges: below sample row j */
  for (guint j = 1; j < l->sy; j++)
    for (guint i = 0; i < l->sx;) {
      const guint32 *row = o + (gsize)j * l->sx, *below = row - l->sx;
      if (row[i] == below[i]) {
        i++;
        continue;
      }
      guint i0 = i;
      while (i < l->sx && row[i] != below[i])
        i++;
      edges += i - i0;
      double y = l->map_y + (l->sy - j) * k + shift;
      cairo_move_to(cr, l->map_x + i0 * k, y);
      cairo_line_to(cr, l->map_x + i * k, y);
    }
  /* Where boundaries would cover much of the map (thin pieces), they are
   * drawn fainter so that the loads still show through. */
  double covered = edges * k * width / ((double)l->map_width * l->map_height);
  cairo_set_source_rgba(cr, 1, 1, 1, CLAMP(0.9 * 0.06 / covered, 0.35, 0.9));
  cairo_set_line_width(cr, width);
  cairo_set_line_cap(cr, CAIRO_LINE_CAP_SQUARE);
  cairo_stroke(cr);
  cairo_set_line_cap(cr, CAIRO_LINE_CAP_BUTT);
}

/* Is the box of width w and height h centred on pixel (x, y) inside rank
 * r's region? Its corners, the middles of its sides and its centre are. */
static gboolean
label_fits(const Plane *p, guint32 r, double x, double y, double w, double h)
{
  const LbPictureLayout *l = &p->layout;
  for (int dx = -1; dx <= 1; dx++)
    for (int dy = -1; dy <= 1; dy++) {
      /* a box exactly as large as the region still fits */
      double px = (x + dx * (w / 2 - 0.01) - l->map_x) / l->cell_px;
      double py = (y + dy * (h / 2 - 0.01) - l->map_y) / l->cell_px;
      if (px < 0 || py < 0 || px >= l->sx || py >= l->sy)
        return FALSE;
      if (p->owner[(gsize)(l->sy - 1 - (guint)py) * l->sx + (guint)px] != r)
        return FALSE;
    }
  return TRUE;
}

/* "r12" over its load at the centroid of the rank's cells, or both on one
 * line, where the region holds the label; nothing otherwise. */
static void
draw_labels(cairo_t *cr, const Plane *p)
{
  const LbPictureLayout *l = &p->layout;
  double k = l->cell_px;
  set_font(cr, 11, TRUE);
  double line = text_height(cr);
  for (guint r = 0; r < p->picture->ranks; r++) {
    const RankArea *a = &p->areas[r];
    if (a->count == 0)
      continue;
    double x = l->map_x + a->sum_x / a->count * k;
    double y = l->map_y + (l->sy - a->sum_y / a->count) * k;
    g_autofree char *rank = g_strdup_printf("r%u", r);
    g_autofree char *load = format_load(p->picture->rank_load[r]);
    g_autofree char *both = g_strdup_printf("%s: %s", rank, load);
    double w2 = MAX(text_width(cr, rank), text_width(cr, load)) + 8, h2 = 2 * line + 2;
    double w1 = text_width(cr, both) + 8, h1 = line + 2;
    if (label_fits(p, r, x, y, w2 + 4, h2 + 4)) {
      const char *lines[] = {rank, load};
      show_label(cr, x, y, lines, 2, w2);
    } else if (label_fits(p, r, x, y, w1 + 4, h1)) {
      const char *lines[] = {both};
      show_label(cr, x, y, lines, 1, w1);
    }
  }
}

/* array1d: the loads as bars coloured like the heat map, and under them a
 * band of ranks. */
static void
draw_strip(cairo_t *cr, const Plane *p)
{
  const LbPictureLayout *l = &p->layout;
  guint k = l->cell_px;
  double x0 = l->map_x, top = l->map_y, bottom = top + BARS_HEIGHT;
  double step = lb_pictures_nice_step((double)p->hi, 5, TRUE);
  double y_max = ceil((double)p->hi / step) * step;
  set_font(cr, 11, FALSE);
  cairo_set_line_width(cr, 1);
  for (double v = 0; v <= y_max + 1e-9; v += step) {
    double y = round(bottom - BARS_HEIGHT * v / y_max) + 0.5;
    set_rgb(cr, 0xe4e4e4);
    cairo_move_to(cr, x0, y);
    cairo_line_to(cr, x0 + l->map_width, y);
    cairo_stroke(cr);
    set_rgb(cr, 0x404040);
    cairo_move_to(cr, x0 - 5, y);
    cairo_line_to(cr, x0, y);
    cairo_stroke(cr);
    g_autofree char *label = lb_pictures_format_tick(v, step);
    show_text(cr, x0 - 8, y, 1, 0.5, label);
  }
  set_font(cr, 12, TRUE);
  show_rotated(cr, x0 - 56, top + BARS_HEIGHT / 2.0, "load");

  g_autoptr(cairo_surface_t) bars =
      cairo_image_surface_create(CAIRO_FORMAT_ARGB32, (int)l->map_width, BARS_HEIGHT);
  cairo_surface_flush(bars);
  guint8 *data = cairo_image_surface_get_data(bars);
  int stride = cairo_image_surface_get_stride(bars);
  for (guint i = 0; i < l->sx; i++) {
    guint h = (guint)lround(BARS_HEIGHT * (double)p->load[i] / y_max);
    guint32 colour = 0xff000000u | sample_colour(p, i);
    for (guint row = BARS_HEIGHT - MIN(h, BARS_HEIGHT); row < BARS_HEIGHT; row++) {
      guint32 *px = (guint32 *)(gpointer)(data + (gsize)row * stride);
      for (guint c = 0; c < k; c++)
        px[i * k + c] = colour;
    }
  }
  cairo_surface_mark_dirty(bars);
  cairo_set_source_surface(cr, bars, x0, top);
  cairo_paint(cr);

  /* the band: runs of samples of one owner, labelled where they fit */
  double band = bottom + RANK_BAND_GAP;
  guint runs = 0;
  set_font(cr, 11, TRUE);
  for (guint i = 0; i < l->sx;) {
    guint i0 = i;
    while (i < l->sx && p->owner[i] == p->owner[i0])
      i++;
    double left = x0 + i0 * k, width = (i - i0) * (double)k;
    set_rgb(cr, runs++ % 2 ? 0xd4d4d4 : 0xeeeeee);
    cairo_rectangle(cr, left, band, width, RANK_BAND_HEIGHT);
    cairo_fill(cr);
    guint32 r = p->owner[i0];
    if (r == LB_PICTURES_NOBODY)
      continue;
    g_autofree char *rank = g_strdup_printf("r%u", r);
    g_autofree char *load = format_load(p->picture->rank_load[r]);
    double middle = left + width / 2, line = text_height(cr);
    set_rgb(cr, 0x202020);
    if (MAX(text_width(cr, rank), text_width(cr, load)) + 6 <= width) {
      show_text(cr, middle, band + RANK_BAND_HEIGHT / 2.0 - line / 2, 0.5, 0.5, rank);
      show_text(cr, middle, band + RANK_BAND_HEIGHT / 2.0 + line / 2, 0.5, 0.5, load);
    } else if (text_width(cr, rank) + 6 <= width) {
      show_text(cr, middle, band + RANK_BAND_HEIGHT / 2.0, 0.5, 0.5, rank);
    }
  }
  /* rank boundaries across the bars, unless they would hide them */
  gboolean across = runs > 0 && l->map_width / runs >= 4;
  for (guint i = 1; i < l->sx; i++) {
    if (p->owner[i] == p->owner[i - 1])
      continue;
    double x = x0 + i * k + 0.5;
    cairo_move_to(cr, x, across ? top : band);
    cairo_line_to(cr, x, band + RANK_BAND_HEIGHT);
  }
  cairo_set_source_rgba(cr, 0.15, 0.15, 0.15, 0.6);
  cairo_set_line_width(cr, 1);
  cairo_stroke(cr);
  set_rgb(cr, 0x404040);
  cairo_rectangle(cr, x0 - 0.5, top - 0.5, l->map_width + 1, BARS_HEIGHT + 1);
  cairo_rectangle(cr, x0 - 0.5, band - 0.5, l->map_width + 1, RANK_BAND_HEIGHT + 1);
  cairo_stroke(cr);
  draw_cell_ticks(cr, x0, band + RANK_BAND_HEIGHT, l->map_width, l->nx, FALSE, "element");
}

static void
draw_partition(cairo_t *cr, gconstpointer data)
{
  const Plane *p = data;
  const LbPictureLayout *l = &p->layout;
  cairo_set_source_rgb(cr, 1, 1, 1);
  cairo_paint(cr);
  draw_titles(cr, l->width, p->title, p->subtitle, p->details);
  if (p->picture->work->dim == 1) {
    draw_strip(cr, p);
    return;
  }
  draw_heat(cr, p);
  draw_boundaries(cr, p);
  set_rgb(cr, 0x404040);
  cairo_set_line_width(cr, 1);
  cairo_rectangle(cr, l->map_x - 0.5, l->map_y - 0.5, l->map_width + 1, l->map_height + 1);
  cairo_stroke(cr);
  draw_labels(cr, p);
  draw_cell_ticks(cr, l->map_x, l->map_y + l->map_height, l->map_width, l->nx, FALSE, "x");
  draw_cell_ticks(cr, l->map_y + l->map_height, l->map_x, l->map_height, l->ny, TRUE, "y");
  draw_colour_bar(cr, p);
}

gboolean
lb_pictures_partition(const char *dir, const LbPartitionPicture *picture, GError **error)
{
  g_auto(Plane) p = {.picture = picture};
  lb_pictures_layout(picture->work, &p.layout);
  sample_plane(&p);
  describe_plane(&p);
  g_autofree char *what = g_strdup_printf("%s.partition", picture->balancer);
  return write_picture(dir, picture->scenario, what, p.layout.width, p.layout.height,
                       draw_partition, &p, error);
}

/* ---- the imbalance chart ---- */

typedef struct {
  const char *scenario;
  GPtrArray *results; /* the runs drawn (those with a value) */
  char *subtitle;
  const char *title, *axis; /* after "SCENARIO: ", and the y axis */
  double floor;             /* the best value: the axis starts there when it can */
  int metric;               /* -1: imbalance after balancing; else a metric def index... */
  const char *metric_name;  /* ...looked up by name in each run */
} Chart;

/* A run's value at a step, and its mean over the run. */
static double
chart_value(const Chart *c, const LbRunResult *run, guint step)
{
  if (c->metric_name == NULL)
    return run->adaptations[step].imbalance_after;
  int k = lb_metric_defs_find(run->metric_defs, c->metric_name);
  return run->adaptation_metrics[(gsize)step * run->metric_defs->len + (guint)k];
}

static double
chart_mean(const Chart *c, const LbRunResult *run)
{
  if (c->metric_name == NULL)
    return run->imbalance_after;
  double v = 0;
  lb_run_result_metric(run, c->metric_name, &v);
  return v;
}

static void
draw_chart(cairo_t *cr, gconstpointer data)
{
  const Chart *c = data;
  GPtrArray *results = c->results;
  double left = 84, right = CHART_WIDTH - 190, top = 80, bottom = CHART_HEIGHT - 64;
  cairo_set_source_rgb(cr, 1, 1, 1);
  cairo_paint(cr);
  g_autofree char *title = g_strconcat(c->scenario, ": ", c->title, NULL);
  draw_titles(cr, CHART_WIDTH, title, c->subtitle, NULL);

  guint steps = 0;
  double hi = c->floor, lo = c->floor;
  for (guint r = 0; r < results->len; r++) {
    const LbRunResult *run = results->pdata[r];
    steps = MAX(steps, run->nadaptations);
    for (guint s = 0; s < run->nadaptations; s++) {
      hi = MAX(hi, chart_value(c, run, s));
      lo = MIN(lo, chart_value(c, run, s));
    }
  }
  double y_step = lb_pictures_nice_step(MAX(hi - lo, 1e-3), 6, FALSE);
  /* start at the best value (1 for max/avg) when every value allows it */
  double y_lo = lo >= c->floor ? c->floor : floor(lo / y_step + 1e-9) * y_step;
  double y_hi = MAX(ceil(hi / y_step - 1e-9) * y_step, y_lo + y_step);
  if (hi > y_hi - y_step * 0.2)
    y_hi += y_step;
  double y_axis = y_lo - (y_hi - y_lo) * 0.03; /* points at y_lo clear of the frame */
  double x_lo = steps > 1 ? 0 : -0.5, x_hi = steps > 1 ? steps - 1.0 : 0.5;
  double pad = (x_hi - x_lo) * 0.02;
  x_lo -= pad;
  x_hi += pad;
#define PX(v) (left + (right - left) * ((v)-x_lo) / (x_hi - x_lo))
#define PY(v) (bottom - (bottom - top) * ((v)-y_axis) / (y_hi - y_axis))

  set_font(cr, 11, FALSE);
  cairo_set_line_width(cr, 1);
  for (double v = y_lo; v <= y_hi + y_step * 1e-6;
       v = v == y_lo ? floor(v / y_step + 1.3) * y_step : v + y_step) {
    double y = round(PY(v)) + 0.5;
    set_rgb(cr, 0xe4e4e4);
    cairo_move_to(cr, left, y);
    cairo_line_to(cr, right, y);
    cairo_stroke(cr);
    set_rgb(cr, 0x404040);
    cairo_move_to(cr, left - 5, y);
    cairo_line_to(cr, left, y);
    cairo_stroke(cr);
    g_autofree char *label = lb_pictures_format_tick(v, y_step);
    show_text(cr, left - 8, y, 1, 0.5, label);
  }
  double x_step = lb_pictures_nice_step(MAX(steps - 1.0, 1), 10, TRUE);
  for (double v = 0; v <= steps - 1.0 + 1e-9; v += x_step) {
    double x = round(PX(v)) + 0.5;
    set_rgb(cr, 0x404040);
    cairo_move_to(cr, x, bottom);
    cairo_line_to(cr, x, bottom + 5);
    cairo_stroke(cr);
    g_autofree char *label = lb_pictures_format_tick(v, x_step);
    show_text(cr, x, bottom + 8, 0.5, 0, label);
  }
  set_rgb(cr, 0x404040);
  cairo_rectangle(cr, left - 0.5, top - 0.5, right - left + 1, bottom - top + 1);
  cairo_stroke(cr);
  set_font(cr, 12, TRUE);
  show_text(cr, (left + right) / 2, bottom + 28, 0.5, 0, "adaptation step");
  show_rotated(cr, left - 60, (top + bottom) / 2, c->axis);

  cairo_save(cr);
  cairo_rectangle(cr, left, top, right - left, bottom - top);
  cairo_clip(cr);
  for (guint r = 0; r < results->len; r++) {
    const LbRunResult *run = results->pdata[r];
    set_rgb(cr, line_colours[r % G_N_ELEMENTS(line_colours)]);
    cairo_set_line_width(cr, 2.25);
    cairo_set_line_join(cr, CAIRO_LINE_JOIN_ROUND);
    for (guint s = 0; s < run->nadaptations; s++)
      cairo_line_to(cr, PX(s), PY(chart_value(c, run, s)));
    cairo_stroke(cr);
    if (run->nadaptations > 60)
      continue;
    for (guint s = 0; s < run->nadaptations; s++) {
      cairo_new_sub_path(cr);
      cairo_arc(cr, PX(s), PY(chart_value(c, run, s)), 3.5, 0, 2 * G_PI);
    }
    cairo_fill_preserve(cr);
    cairo_set_source_rgb(cr, 1, 1, 1);
    cairo_set_line_width(cr, 1);
    cairo_stroke(cr);
  }
  cairo_restore(cr);
#undef PX
#undef PY

  /* the legend, right of the plot: a line per run, with its mean */
  double lx = right + 20, ly = top + 4;
  for (guint r = 0; r < results->len; r++) {
    const LbRunResult *run = results->pdata[r];
    double y = ly + r * 40 + 8;
    set_rgb(cr, line_colours[r % G_N_ELEMENTS(line_colours)]);
    cairo_set_line_width(cr, 2.25);
    cairo_move_to(cr, lx, y);
    cairo_line_to(cr, lx + 28, y);
    cairo_stroke(cr);
    cairo_arc(cr, lx + 14, y, 3.5, 0, 2 * G_PI);
    cairo_fill(cr);
    set_rgb(cr, 0x202020);
    set_font(cr, 12, TRUE);
    show_text(cr, lx + 36, y, 0, 0.5, run->balancer);
    g_autofree char *mean = g_strdup_printf("mean %.4f", chart_mean(c, run));
    set_rgb(cr, 0x606060);
    set_font(cr, 11, FALSE);
    show_text(cr, lx + 36, y + 16, 0, 0.5, mean);
  }
}

gboolean
lb_pictures_imbalance(const char *dir, const char *scenario, GPtrArray *results, GError **error)
{
  g_return_val_if_fail(results->len > 0, FALSE);
  const LbRunResult *first = results->pdata[0];
  g_autofree char *subtitle =
      g_strdup_printf("%s, %u rank%s, %u adaptation step%s \xc2\xb7 max/avg of the ranks' loads "
                      "after each step's balancing, one line per balancer",
                      first->model, first->ranks, first->ranks == 1 ? "" : "s", first->nadaptations,
                      first->nadaptations == 1 ? "" : "s");
  Chart chart = {scenario,
                 results,
                 subtitle,
                 "imbalance after balancing",
                 "imbalance after balancing (max/avg)",
                 1,
                 -1,
                 NULL};
  return write_picture(dir, scenario, "imbalance", CHART_WIDTH, CHART_HEIGHT, draw_chart, &chart,
                       error);
}

gboolean
lb_pictures_has_idle(GPtrArray *results)
{
  for (guint i = 0; i < results->len; i++) {
    const LbRunResult *run = results->pdata[i];
    if (lb_metric_defs_find(run->metric_defs, "idle-procs") >= 0)
      return TRUE;
  }
  return FALSE;
}

gboolean
lb_pictures_idle(const char *dir, const char *scenario, GPtrArray *results, GError **error)
{
  g_autoptr(GPtrArray) with = g_ptr_array_new();
  for (guint i = 0; i < results->len; i++) {
    const LbRunResult *run = results->pdata[i];
    if (lb_metric_defs_find(run->metric_defs, "idle-procs") >= 0)
      g_ptr_array_add(with, results->pdata[i]);
  }
  g_return_val_if_fail(with->len > 0, FALSE);
  const LbRunResult *first = with->pdata[0];
  g_autofree char *subtitle =
      g_strdup_printf("%s, %u rank%s, %u adaptation step%s \xc2\xb7 percentage of ranks with no "
                      "load after each step's balancing (the paper's eq. 3)",
                      first->model, first->ranks, first->ranks == 1 ? "" : "s", first->nadaptations,
                      first->nadaptations == 1 ? "" : "s");
  Chart chart = {scenario, with, subtitle,    "idle processors", "idle processors (%)",
                 0,        0,    "idle-procs"};
  return write_picture(dir, scenario, "idle", CHART_WIDTH, CHART_HEIGHT, draw_chart, &chart, error);
}

/* ---- the grids of a hierarchy ---- */

#define GRIDS_WIDTH 1280
#define GRIDS_HEIGHT 720

/* A colour per rank, spread round the hue circle by the golden angle. */
guint32
lb_pictures_owner_colour(guint owner)
{
  double h = fmod(owner * 0.381966, 1.0) * 6.0, s = 0.55, v = 0.92;
  int i = (int)h;
  double f = h - i, p = v * (1 - s), q = v * (1 - s * f), t = v * (1 - s * (1 - f));
  double rgb[6][3] = {{v, t, p}, {q, v, p}, {p, v, t}, {p, q, v}, {t, p, v}, {v, p, q}};
  const double *c = rgb[i % 6];
  return (guint32)(c[0] * 255) << 16 | (guint32)(c[1] * 255) << 8 | (guint32)(c[2] * 255);
}

/* One panel: the grids of a hierarchy in a square of `side` pixels. */
static void
draw_grid_panel(cairo_t *cr, const LbGridsPicture *p, const GArray *grids, double left, double top,
                double side, const char *caption)
{
  double s = MIN(side / (double)p->root[0], side / (double)p->root[1]);
  double w = s * (double)p->root[0], h = s * (double)p->root[1];
  guint levels = 0;
  for (guint i = 0; i < grids->len; i++)
    levels = MAX(levels, g_array_index(grids, LbGridPart, i).level);
  for (guint level = 0; level <= levels; level++)
    for (guint i = 0; i < grids->len; i++) {
      const LbGridPart *g = &g_array_index(grids, LbGridPart, i);
      if (g->level != level)
        continue;
      double k = (double)g->scale;
      if (p->dim == 3) { /* the mid-plane of the root, at this level's resolution */
        double z = (double)p->root[2] / 2.0 * k;
        if (z < (double)g->lo[2] || z >= (double)g->hi[2])
          continue;
      }
      double x0 = left + s * (double)g->lo[0] / k, x1 = left + s * (double)g->hi[0] / k;
      double y0 = top + h - s * (double)g->hi[1] / k, y1 = top + h - s * (double)g->lo[1] / k;
      set_rgb(cr, lb_pictures_owner_colour(g->owner));
      cairo_rectangle(cr, x0, y0, x1 - x0, y1 - y0);
      cairo_fill_preserve(cr);
      set_rgb(cr, 0x202020);
      cairo_set_line_width(cr, 0.5 + level);
      cairo_stroke(cr);
    }
  set_rgb(cr, 0x404040);
  cairo_set_line_width(cr, 1);
  cairo_rectangle(cr, left - 0.5, top - 0.5, w + 1, h + 1);
  cairo_stroke(cr);
  set_font(cr, 12, TRUE);
  show_text(cr, left + w / 2, top + h + 10, 0.5, 0, caption);
}

static void
draw_grids(cairo_t *cr, gconstpointer data)
{
  const LbGridsPicture *p = data;
  cairo_set_source_rgb(cr, 1, 1, 1);
  cairo_paint(cr);
  g_autofree char *title = g_strdup_printf("%s \xc2\xb7 %s", p->scenario, p->balancer);
  g_autofree char *subtitle = g_strdup_printf(
      "grids at adaptation step %u (last of %u), coloured by owner%s", p->adaptation,
      p->nadaptations, p->dim == 3 ? "; the slice z = NZ/2 of the root" : "");
  draw_titles(cr, GRIDS_WIDTH, title, subtitle, NULL);
  double side = GRIDS_HEIGHT - 130;
  if (p->before != NULL)
    draw_grid_panel(cr, p, p->before, 40, 80, side, "before balancing");
  draw_grid_panel(cr, p, p->grids, GRIDS_WIDTH / 2 + 20, 80, side, "after balancing");
}

gboolean
lb_pictures_grids(const char *dir, const LbGridsPicture *picture, GError **error)
{
  g_autofree char *what = g_strdup_printf("%s.grids", picture->balancer);
  return write_picture(dir, picture->scenario, what, GRIDS_WIDTH, GRIDS_HEIGHT, draw_grids, picture,
                       error);
}

/* ---- a curve through the leaves of a tree ---- */

#define CURVE_WIDTH 1280
#define CURVE_HEIGHT 720
#define CURVE_TOP 80
#define CURVE_SIDE (CURVE_HEIGHT - 130)
/* Leaves narrower than this get no outline: it would cover them. */
#define OUTLINE_MIN_PX 2.0
/* Centres closer than this to the last one drawn are passed over. */
#define SKIP_PX 2.0

/* A sort key and what it sorts. */
typedef struct {
  guint64 key, value;
} Pair;

/* A leaf drawn: the square [x, x + 1) x [y, y + 1) x 2^-level. */
typedef struct {
  guint32 x, y, level;
  guint32 owner[2]; /* before, after */
} CurveLeaf;

typedef struct {
  const LbCurvePicture *picture;
  CurveLeaf *leaves; /* those drawn, in the curve's order */
  gsize n, total;    /* drawn, and all the tree's leaves */
  char *title, *subtitle, *details;
} Curve;

static void
curve_clear(Curve *c)
{
  g_free(c->leaves);
  g_free(c->title);
  g_free(c->subtitle);
  g_free(c->details);
}

G_DEFINE_AUTO_CLEANUP_CLEAR_FUNC(Curve, curve_clear)

#define DIGIT_BITS 11

/* Least significant digit first, DIGIT_BITS a pass (the buckets' write
 * fronts stay in cache), as many passes as the largest key needs;
 * returns the buffer that holds the sorted pairs (a or spare). Stable. */
static Pair *
sort_pairs(Pair *a, Pair *spare, gsize n)
{
  guint64 top = 0;
  for (gsize i = 0; i < n; i++)
    top |= a[i].key;
  gsize start[1u << DIGIT_BITS];
  guint64 mask = (1u << DIGIT_BITS) - 1;
  Pair *from = a, *to = spare;
  for (guint shift = 0; shift < 64 && top >> shift != 0; shift += DIGIT_BITS) {
    memset(start, 0, sizeof start);
    for (gsize i = 0; i < n; i++)
      start[(from[i].key >> shift) & mask]++;
    gsize sum = 0;
    for (guint d = 0; d <= mask; d++) {
      gsize count = start[d];
      start[d] = sum;
      sum += count;
    }
    for (gsize i = 0; i < n; i++)
      to[start[(from[i].key >> shift) & mask]++] = from[i];
    Pair *swap = from;
    from = to;
    to = swap;
  }
  return from;
}

/* owner[leaf] for the leaves (sorted by id, value: their index): the
 * rank that holds the unit of that id, from every rank's units sorted
 * once and walked along with the leaves. held and spare have room for
 * every unit. */
static void
owners_of(const Pair *leaves, gsize n, const GArray *const *units, guint ranks, Pair *held,
          Pair *spare, guint32 *owner)
{
  gsize m = 0;
  for (guint r = 0; r < ranks; r++)
    for (guint i = 0; i < units[r]->len; i++)
      held[m++] = (Pair){g_array_index(units[r], LbUnit, i).id, r};
  const Pair *sorted = sort_pairs(held, spare, m);
  gsize j = 0;
  for (gsize i = 0; i < n; i++) {
    while (j < m && sorted[j].key < leaves[i].key)
      j++;
    owner[leaves[i].value] =
        j < m && sorted[j].key == leaves[i].key ? (guint32)sorted[j].value : LB_PICTURES_NOBODY;
  }
}

static gsize
count_units(const GArray *const *units, guint ranks)
{
  gsize m = 0;
  for (guint r = 0; r < ranks; r++)
    m += units[r]->len;
  return m;
}

/* The leaves drawn (3D: those whose cube meets z = 1/2 from above, as the
 * grids' slice), with their owners, in the order of their curve
 * positions: leaves do not overlap, so the position of their first finest
 * cell alone orders them as the curve's sequence of hnodes does. */
static void
collect_leaves(Curve *c)
{
  const LbCurvePicture *pic = c->picture;
  const LbWork *work = pic->work;
  guint dim = work->dim;
  guint order = (guint)__builtin_ctzll(work->size[0]); /* the finest level */
  g_autoptr(GArray) leaves = g_array_new(FALSE, FALSE, sizeof(LbLeaf));
  work->model->leaves(work, leaves);
  gsize n = c->total = leaves->len;
  const LbLeaf *leaf = (const LbLeaf *)leaves->data;
  gsize room = MAX(MAX(count_units(pic->before, pic->ranks), count_units(pic->after, pic->ranks)),
                   MAX(n, 1));
  g_autofree Pair *pairs = g_new(Pair, room);
  g_autofree Pair *spare = g_new(Pair, room);
  g_autofree Pair *by_id = g_new(Pair, MAX(n, 1));
  for (gsize i = 0; i < n; i++)
    pairs[i] = (Pair){leaf[i].id, i};
  memcpy(by_id, sort_pairs(pairs, spare, n), n * sizeof(Pair));
  g_autofree guint32 *before = g_new(guint32, MAX(n, 1));
  g_autofree guint32 *after = g_new(guint32, MAX(n, 1));
  owners_of(by_id, n, pic->before, pic->ranks, pairs, spare, before);
  owners_of(by_id, n, pic->after, pic->ranks, pairs, spare, after);

  gsize drawn = 0;
  for (gsize i = 0; i < n; i++) {
    const LbLeaf *l = &leaf[i];
    if (dim == 3 && l->level > 0 && l->coords[2] != 1u << (l->level - 1))
      continue;
    pairs[drawn++] = (Pair){lb_curve_cube_start(pic->curve, dim, order, l->level, l->coords), i};
  }
  const Pair *by_key = sort_pairs(pairs, spare, drawn);
  c->leaves = g_new(CurveLeaf, MAX(drawn, 1));
  c->n = drawn;
  for (gsize k = 0; k < drawn; k++) {
    const LbLeaf *l = &leaf[by_key[k].value];
    c->leaves[k] = (CurveLeaf){
        .x = l->coords[0],
        .y = l->coords[1],
        .level = l->level,
        .owner = {before[by_key[k].value], after[by_key[k].value]},
    };
  }
}

static void
describe_curve(Curve *c)
{
  const LbCurvePicture *pic = c->picture;
  const LbWork *work = pic->work;
  c->title = g_strdup_printf("%s \xc2\xb7 %s", pic->scenario, pic->balancer);
  g_autofree char *which =
      work->dim == 3 ? g_strdup_printf("the %zu leaves (of %zu) that meet the plane z = 1/2, seen "
                                       "along z",
                                       c->n, c->total)
                     : g_strdup_printf("the %zu leaves", c->n);
  c->subtitle =
      g_strdup_printf("the %s curve through %s of adaptation step %u (last of %u), "
                      "each segment coloured by the owner of the leaf it leaves",
                      lb_curve_name(pic->curve), which, pic->adaptation, pic->nadaptations);
  c->details = g_strdup_printf(
      "%s, %uD, %" G_GUINT64_FORMAT " finest cells per axis \xc2\xb7 %" G_GUINT64_FORMAT
      " hnodes \xc2\xb7 %u rank%s \xc2\xb7 leaves under %.0f pixels wide are not outlined",
      work->model->name, work->dim, work->size[0], lb_work_total_units(work), pic->ranks,
      pic->ranks == 1 ? "" : "s", OUTLINE_MIN_PX);
}

void
lb_pictures_curve_point(guint panel, double x, double y, double *px, double *py)
{
  double left = panel == 0 ? 40 : CURVE_WIDTH / 2 + 20;
  *px = left + CURVE_SIDE * x;
  *py = CURVE_TOP + CURVE_SIDE * (1 - y);
}

static void
leaf_centre(const CurveLeaf *leaf, guint panel, double *px, double *py)
{
  double side = ldexp(1.0, -(int)leaf->level);
  lb_pictures_curve_point(panel, (leaf->x + 0.5) * side, (leaf->y + 0.5) * side, px, py);
}

/* The curve in runs of one owner, a stroke each: from the run's first
 * centre through its others to the next run's first. Centres closer than
 * SKIP_PX to the last one drawn are passed over (the run's last is always
 * drawn), so that a finely refined region costs its pixels, not its
 * leaves. */
static void
draw_curve_line(cairo_t *cr, const Curve *c, guint panel)
{
  double mean_px = CURVE_SIDE / sqrt((double)MAX(c->n, 1));
  cairo_set_line_width(cr, CLAMP(0.12 * mean_px, 1.0, 3.0));
  cairo_set_line_join(cr, CAIRO_LINE_JOIN_ROUND);
  cairo_set_line_cap(cr, CAIRO_LINE_CAP_ROUND);
  for (gsize i = 0; i < c->n;) {
    guint32 owner = c->leaves[i].owner[panel];
    gsize end = i + 1;
    while (end < c->n && c->leaves[end].owner[panel] == owner)
      end++;
    double x, y, last_x, last_y;
    leaf_centre(&c->leaves[i], panel, &last_x, &last_y);
    cairo_move_to(cr, last_x, last_y);
    for (gsize k = i + 1; k <= end && k < c->n; k++) {
      leaf_centre(&c->leaves[k], panel, &x, &y);
      if (k + 1 < end && fabs(x - last_x) < SKIP_PX && fabs(y - last_y) < SKIP_PX)
        continue;
      cairo_line_to(cr, x, y);
      last_x = x;
      last_y = y;
    }
    if (end - i == 1 && end == c->n) /* a lone last leaf: a dot */
      cairo_line_to(cr, last_x, last_y);
    set_rgb(cr, owner == LB_PICTURES_NOBODY ? 0x909090 : lb_pictures_owner_colour(owner));
    cairo_stroke(cr);
    i = end;
  }
  cairo_set_line_cap(cr, CAIRO_LINE_CAP_BUTT);
}

static void
draw_curve_panel(cairo_t *cr, const Curve *c, guint panel, const char *caption)
{
  double left, top;
  lb_pictures_curve_point(panel, 0, 1, &left, &top);
  cairo_save(cr);
  cairo_rectangle(cr, left, top, CURVE_SIDE, CURVE_SIDE);
  cairo_clip(cr);
  for (gsize i = 0; i < c->n; i++) {
    const CurveLeaf *leaf = &c->leaves[i];
    double side = ldexp(1.0, -(int)leaf->level), w = side * CURVE_SIDE, x, y;
    if (w < OUTLINE_MIN_PX)
      continue;
    lb_pictures_curve_point(panel, leaf->x * side, (leaf->y + 1) * side, &x, &y);
    cairo_rectangle(cr, x, y, w, w);
  }
  set_rgb(cr, 0xb8b8b8);
  cairo_set_line_width(cr, 0.5);
  cairo_stroke(cr);
  draw_curve_line(cr, c, panel);
  if (c->n > 0) { /* where the curve starts */
    double x, y;
    leaf_centre(&c->leaves[0], panel, &x, &y);
    cairo_arc(cr, x, y, 4, 0, 2 * G_PI);
    set_rgb(cr, 0x202020);
    cairo_fill(cr);
  }
  cairo_restore(cr);
  set_rgb(cr, 0x404040);
  cairo_set_line_width(cr, 1);
  cairo_rectangle(cr, left - 0.5, top - 0.5, CURVE_SIDE + 1, CURVE_SIDE + 1);
  cairo_stroke(cr);
  set_font(cr, 12, TRUE);
  show_text(cr, left + CURVE_SIDE / 2.0, top + CURVE_SIDE + 10, 0.5, 0, caption);
}

static void
draw_curve(cairo_t *cr, gconstpointer data)
{
  const Curve *c = data;
  const LbCurvePicture *pic = c->picture;
  cairo_set_source_rgb(cr, 1, 1, 1);
  cairo_paint(cr);
  draw_titles(cr, CURVE_WIDTH, c->title, c->subtitle, c->details);
  g_autofree char *before = g_strdup_printf(
      "before balancing (after the tree's update): imbalance %.4f", pic->imbalance_before);
  g_autofree char *after = g_strdup_printf("after balancing: imbalance %.4f", pic->imbalance_after);
  draw_curve_panel(cr, c, 0, before);
  draw_curve_panel(cr, c, 1, after);
}

gboolean
lb_pictures_curve(const char *dir, const LbCurvePicture *picture, GError **error)
{
  g_return_val_if_fail(picture->work->model->leaves != NULL, FALSE);
  g_auto(Curve) c = {.picture = picture};
  collect_leaves(&c);
  describe_curve(&c);
  g_autofree char *what = g_strdup_printf("%s.curve", picture->balancer);
  return write_picture(dir, picture->scenario, what, CURVE_WIDTH, CURVE_HEIGHT, draw_curve, &c,
                       error);
}

/* ---- a run's final partition, at its end ---- */

static gboolean
partition_of_run(const LbRunEnd *end, const char *dir, GError **error)
{
  const LbWork *work = end->work;
  g_autofree guint64 *load = g_new0(guint64, work->cells);
  for (guint r = 0; r < end->ranks; r++) {
    const GArray *units = end->units[r];
    for (guint i = 0; i < units->len; i++)
      load[g_array_index(units, LbUnit, i).id] = g_array_index(units, LbUnit, i).load;
  }
  LbPartitionPicture picture = {
      .scenario = end->scenario->name,
      .balancer = end->brun->label,
      .work = work,
      .ranks = end->ranks,
      .adaptation = end->nadaptations - 1,
      .nadaptations = end->nadaptations,
      .imbalance = end->imbalance_after,
      .owner = end->owner,
      .load = load,
      .rank_load = end->rank_load,
  };
  return lb_pictures_partition(dir, &picture, error);
}

static gboolean
grids_of_run(const LbRunEnd *end, const char *dir, GError **error)
{
  const LbWork *work = end->work;
  g_autoptr(GArray) grids = g_array_new(FALSE, FALSE, sizeof(LbGridPart));
  work->model->grids(work, grids);
  LbGridsPicture picture = {
      .scenario = end->scenario->name,
      .balancer = end->brun->label,
      .dim = work->dim,
      .ranks = end->ranks,
      .adaptation = end->nadaptations - 1,
      .nadaptations = end->nadaptations,
      .root = {work->size[0], work->size[1], work->size[2]},
      .grids = grids,
      .before = end->grids_before,
  };
  return lb_pictures_grids(dir, &picture, error);
}

/* The curve the run's balancer keeps, as it says; Hilbert's for one
 * that keeps none. */
static gboolean
curve_of_run(const LbRunEnd *end, const char *dir, GError **error)
{
  LbCurveKind kind = LB_CURVE_HILBERT;
  const LbBalancer *b = end->brun->balancer;
  if (b->curve != NULL && !lb_curve_parse(b->curve(end->brun->params), &kind))
    kind = LB_CURVE_HILBERT;
  LbCurvePicture picture = {
      .scenario = end->scenario->name,
      .balancer = end->brun->label,
      .work = end->work,
      .curve = kind,
      .ranks = end->ranks,
      .adaptation = end->nadaptations - 1,
      .nadaptations = end->nadaptations,
      .imbalance_before = end->imbalance_before,
      .imbalance_after = end->imbalance_after,
      .before = end->units_before,
      .after = end->units,
  };
  return lb_pictures_curve(dir, &picture, error);
}

gboolean
lb_pictures_of_run(const LbRunEnd *end, gpointer dir, GError **error)
{
  const LbModel *model = end->work->model;
  /* of models whose units are cells, of grids, of trees */
  if (model->total_units == NULL && !partition_of_run(end, dir, error))
    return FALSE;
  if (model->grids != NULL && !grids_of_run(end, dir, error))
    return FALSE;
  if (model->leaves != NULL && end->units_before != NULL && !curve_of_run(end, dir, error))
    return FALSE;
  return TRUE;
}
