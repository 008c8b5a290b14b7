/* Pictures with cairo: every picture is drawn by one function in each
 * format (figure.c), so that they agree; the charts of the steps are the
 * report's (plots.c). */
#include "report/pictures.h"
#include "lbsim/balancer.h"
#include "report/plots.h"

#include <math.h>
#include <string.h>
#include <cairo.h>

G_DEFINE_AUTOPTR_CLEANUP_FUNC(cairo_t, cairo_destroy)
G_DEFINE_AUTOPTR_CLEANUP_FUNC(cairo_surface_t, cairo_surface_destroy)

/* The map's longest side: a field up to this many cells gets a pixel (or
 * more) per cell; a larger one is sampled. Small fields are blown up to
 * about MAP_SMALL pixels. */
#define MAP_MAX 1024
#define MAP_SMALL 896
#define CELL_PX_MAX 48
#define MARGIN_LEFT 100
#define MARGIN_TOP 120
#define MARGIN_BOTTOM 84
#define COLOUR_BAR_GAP 24
#define COLOUR_BAR_WIDTH 20
#define MARGIN_RIGHT_BAR 144 /* gap, colour bar, its labels */
#define MARGIN_RIGHT_1D 28
#define MIN_MAP_HEIGHT 260
#define BARS_HEIGHT 320
#define RANK_BAND_GAP 8
#define RANK_BAND_HEIGHT 44
/* The title lines' band at the top of every picture, cut off when the
 * title is dropped (--no-title). */
#define TITLE_BAND 88
/* Every size below is multiplied by this: one scale for every picture,
 * large enough to read when a page shows the picture half as wide. */
#define FONT_SCALE 1.5

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
  cairo_select_font_face(cr, LB_FONT_FAMILY, CAIRO_FONT_SLANT_NORMAL,
                         bold ? CAIRO_FONT_WEIGHT_BOLD : CAIRO_FONT_WEIGHT_NORMAL);
  cairo_set_font_size(cr, size * FONT_SCALE);
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

static void
show_text(cairo_t *cr, double x, double y, double ax, double ay, const char *text)
{
  cairo_font_extents_t e;
  cairo_font_extents(cr, &e);
  lb_figure_show_text(cr, x, y - ay * (e.ascent + e.descent) + e.ascent, ax, text);
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

/* One line anchored at x (ax as show_text's), made smaller until it
 * fits width. */
static void
show_fitted_at(cairo_t *cr, double x, double y, double ax, double width, double size, gboolean bold,
               const char *text)
{
  set_font(cr, size, bold);
  /* hinted advances are whole pixels: the width is not quite in
   * proportion to the size */
  for (double w = text_width(cr, text); w > width && size > 4; w = text_width(cr, text)) {
    size *= MIN(width / w, 0.98);
    set_font(cr, size, bold);
  }
  show_text(cr, x, y, ax, 0, text);
}

static void
show_fitted(cairo_t *cr, double x, double y, double width, double size, gboolean bold,
            const char *text)
{
  show_fitted_at(cr, x, y, 0, width, size, bold, text);
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

static guint
formats_of(const LbPictureOptions *o)
{
  return o->formats != 0 ? o->formats : LB_PICTURES_DEFAULT_FORMATS;
}

void
lb_pictures_add_files(GPtrArray *names, const LbPictureOptions *o, const char *dir,
                      const char *scenario, const char *what)
{
  for (guint f = 0; f < LB_FIGURE_FORMATS; f++)
    if (formats_of(o) & 1u << f)
      g_ptr_array_add(names, lb_figure_file(dir, scenario, what, lb_figure_format_ext(1u << f)));
}

static const cairo_user_data_key_t untitled_key;

static gboolean
untitled(cairo_t *cr)
{
  return cairo_get_user_data(cr, &untitled_key) != NULL;
}

/* A picture drawn without its title band: moved up over it. */
typedef struct {
  DrawFunc draw;
  gconstpointer data;
} Untitled;

static void
draw_untitled(cairo_t *cr, gconstpointer data)
{
  const Untitled *u = data;
  cairo_set_user_data(cr, &untitled_key, (void *)u, NULL);
  cairo_translate(cr, 0, -TITLE_BAND);
  u->draw(cr, u->data);
}

/* DIR/SCENARIO.WHAT.EXT in each of the options' formats, drawn width x
 * height (every picture LB_PICTURES_WIDTH wide, so that one font size
 * reads the same in all) and scaled to the options' width: pixels (PDF:
 * points), or, for print, its width in points (its PNG LB_FIGURE_PPI
 * pixels an inch). */
static gboolean
write_picture(const LbPictureOptions *o, const char *scenario, const char *what, guint width,
              guint height, DrawFunc draw, gconstpointer data, GError **error)
{
  gboolean print = o->look.width > 0;
  double scale = print          ? o->look.width / LB_PICTURES_WIDTH
                 : o->width > 0 ? (double)o->width / LB_PICTURES_WIDTH
                                : 1.0;
  Untitled u = {draw, data};
  double h = height;
  if (o->look.no_title) {
    draw = draw_untitled;
    data = &u;
    h -= TITLE_BAND;
  }
  for (guint f = 0; f < LB_FIGURE_FORMATS; f++) {
    if (!(formats_of(o) & 1u << f))
      continue;
    LbFigureTarget target = {scale, print};
    if (print && 1u << f == LB_FIGURE_PNG)
      target.scale *= LB_FIGURE_PPI / 72;
    g_autofree char *path = lb_figure_file(o->dir, scenario, what, lb_figure_format_ext(1u << f));
    g_autoptr(GBytes) bytes = lb_figure_draw(1u << f, &target, width, h, draw, data, path, error);
    if (bytes == NULL || !lb_figure_save(path, bytes, error))
      return FALSE;
  }
  return TRUE;
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
    /* the nearest whole blow-up to MAP_SMALL that stays within MAP_MAX */
    guint64 k = (2 * MAP_SMALL / longest + 1) / 2;
    layout->cell_px = (guint)CLAMP(MIN(k, MAP_MAX / longest), 1, CELL_PX_MAX);
  } else {
    layout->sx = (guint)MAX(1, layout->nx * MAP_MAX / longest);
    layout->sy = (guint)MAX(1, layout->ny * MAP_MAX / longest);
    layout->cell_px = 1;
  }
  layout->map_width = layout->sx * layout->cell_px;
  layout->map_height = strip ? BARS_HEIGHT : layout->sy * layout->cell_px;
  guint right = strip ? MARGIN_RIGHT_1D : MARGIN_RIGHT_BAR;
  guint natural = MARGIN_LEFT + layout->map_width + right;
  layout->width = LB_PICTURES_WIDTH;
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
  guint most, least; /* the most and the least loaded rank (the first of equals) */
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

/* The most and the least loaded rank, the first of equals. */
static void
extreme_ranks(const guint64 *load, guint ranks, guint *most, guint *least)
{
  *most = *least = 0;
  for (guint r = 1; r < ranks; r++) {
    if (load[r] > load[*most])
      *most = r;
    if (load[r] < load[*least])
      *least = r;
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
  extreme_ranks(pic->rank_load, pic->ranks, &p->most, &p->least);
  g_autofree char *most = format_load(pic->rank_load[p->most]);
  g_autofree char *least = format_load(pic->rank_load[p->least]);
  g_string_append_printf(d, " \xc2\xb7 most loaded r%u (%s), least loaded r%u (%s)", p->most, most,
                         p->least, least);
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
  if (untitled(cr))
    return;
  double room = width - 2 * 16.0;
  set_rgb(cr, 0x202020);
  show_fitted(cr, 16, 14, room, 17, TRUE, title);
  show_fitted(cr, 16, 48, room, 13, FALSE, subtitle);
  if (details != NULL) {
    set_rgb(cr, 0x606060);
    show_fitted(cr, 16, 76, room, 12, FALSE, details);
  }
}

/* Ticks along an axis of n cells drawn over `length` pixels from `start`
 * (vertical: upwards from start). */
static void
draw_cell_ticks(cairo_t *cr, double start, double across, double length, guint64 n,
                gboolean vertical, const char *name)
{
  set_font(cr, 11, FALSE);
  double step = lb_figure_nice_step((double)n, length >= 400 ? 8 : 4, TRUE);
  cairo_set_line_width(cr, 1);
  for (double v = 0; v <= (double)n + 1e-9; v += step) {
    double at = length * v / (double)n;
    g_autofree char *label = lb_figure_format_tick(v, step);
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
    show_rotated(cr, across - 70, start - length / 2, name);
  else
    show_text(cr, start + length / 2, across + 36, 0.5, 0, name);
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
  double step = lb_figure_nice_step(span, 6, TRUE);
  double first = ceil(p->lo / step) * step, last = floor(p->hi / step) * step;
  for (double v = first; v <= last + 1e-9; v += step) {
    double y = round(bottom - height * (v - p->lo) / span) + 0.5;
    cairo_move_to(cr, x + COLOUR_BAR_WIDTH, y);
    cairo_line_to(cr, x + COLOUR_BAR_WIDTH + 5, y);
    cairo_stroke(cr);
    g_autofree char *label = lb_figure_format_tick(v, step);
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

/* The boundaries of one direction (edges of them, each covering `share`
 * of the map). Where they would cover much of the map (thin pieces,
 * hundreds of ranks: MLB's rows), they are dark and faint, so that the
 * loads show through rather than a white wash; the other direction's (the
 * cuts along the rows) keep their white. */
static void
stroke_boundaries(cairo_t *cr, guint64 edges, double share)
{
  double covered = edges * share;
  if (covered > 0.15)
    cairo_set_source_rgba(cr, 0, 0, 0, CLAMP(0.9 * 0.04 / covered, 0.12, 0.35));
  else
    cairo_set_source_rgba(cr, 1, 1, 1, CLAMP(0.9 * 0.06 / MAX(covered, 1e-9), 0.35, 0.9));
  cairo_stroke(cr);
}

/* Owner boundaries: a line along every edge between samples of different
 * owners, edges in a row merged into one segment, each direction drawn
 * by itself. */
static void
draw_boundaries(cairo_t *cr, const Plane *p)
{
  const LbPictureLayout *l = &p->layout;
  guint k = l->cell_px;
  double width = k >= 12 ? 2 : 1, shift = k >= 12 ? 0 : 0.5;
  const guint32 *o = p->owner;
  guint64 edges = 0;
  cairo_set_line_width(cr, width);
  cairo_set_line_cap(cr, CAIRO_LINE_CAP_SQUARE);
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
  stroke_boundaries(cr, edges, k * width / ((double)l->map_width * l->map_height));
  edges = 0;
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
  stroke_boundaries(cr, edges, k * width / ((double)l->map_width * l->map_height));
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
    if (a->count == 0 || r == p->most || r == p->least)
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

/* The outline of rank r's region: every sample edge with r on one side
 * only. */
static void
outline_rank(cairo_t *cr, const Plane *p, guint32 r)
{
  const LbPictureLayout *l = &p->layout;
  guint k = l->cell_px;
  const guint32 *o = p->owner;
  for (guint j = 0; j < l->sy; j++)
    for (guint i = 0; i < l->sx; i++) {
      if (o[(gsize)j * l->sx + i] != r)
        continue;
      double x = l->map_x + (double)i * k, y = l->map_y + (double)(l->sy - 1 - j) * k;
      if (i == 0 || o[(gsize)j * l->sx + i - 1] != r) {
        cairo_move_to(cr, x, y);
        cairo_line_to(cr, x, y + k);
      }
      if (i + 1 == l->sx || o[(gsize)j * l->sx + i + 1] != r) {
        cairo_move_to(cr, x + k, y);
        cairo_line_to(cr, x + k, y + k);
      }
      if (j == 0 || o[(gsize)(j - 1) * l->sx + i] != r) {
        cairo_move_to(cr, x, y + k);
        cairo_line_to(cr, x + k, y + k);
      }
      if (j + 1 == l->sy || o[(gsize)(j + 1) * l->sx + i] != r) {
        cairo_move_to(cr, x, y);
        cairo_line_to(cr, x + k, y);
      }
    }
  cairo_set_line_width(cr, 2);
  cairo_set_line_cap(cr, CAIRO_LINE_CAP_SQUARE);
  cairo_stroke(cr);
  cairo_set_line_cap(cr, CAIRO_LINE_CAP_BUTT);
}

/* "max r9: 2.17k" and "min r3: 1.90k" on the most and the least loaded
 * rank's region (at its centroid), whether or not they fit: what a reader
 * looks for first. A rank with no cells in the plane is named in the
 * details only. */
static void
draw_extremes(cairo_t *cr, const Plane *p)
{
  const LbPictureLayout *l = &p->layout;
  double k = l->cell_px;
  set_font(cr, 11, TRUE);
  double line = text_height(cr), last_y = -1e9;
  const guint ranks[2] = {p->most, p->least};
  const char *const names[2] = {"max", "min"};
  const guint32 colours[2] = {0xd55e00, 0x0072b2};
  for (guint e = 0; e < (p->most == p->least ? 1u : 2u); e++) {
    const RankArea *a = &p->areas[ranks[e]];
    if (a->count == 0)
      continue;
    set_rgb(cr, colours[e]);
    outline_rank(cr, p, ranks[e]);
    double x = l->map_x + a->sum_x / a->count * k;
    double y = l->map_y + (l->sy - a->sum_y / a->count) * k;
    if (fabs(y - last_y) < line + 4)
      y = last_y + line + 4;
    last_y = y;
    g_autofree char *load = format_load(p->picture->rank_load[ranks[e]]);
    g_autofree char *text = g_strdup_printf("%s r%u: %s", names[e], ranks[e], load);
    double w = text_width(cr, text) + 10;
    x = CLAMP(x, l->map_x + w / 2, l->map_x + l->map_width - w / 2);
    rounded_rectangle(cr, x - w / 2, y - line / 2 - 2, w, line + 4, 4);
    set_rgb(cr, colours[e]);
    cairo_fill_preserve(cr);
    cairo_set_source_rgb(cr, 1, 1, 1);
    cairo_set_line_width(cr, 1.5);
    cairo_stroke(cr);
    show_text(cr, x, y, 0.5, 0.5, text);
  }
}

/* array1d: the most and the least loaded rank named over their bars. */
static void
draw_strip_extremes(cairo_t *cr, const Plane *p)
{
  const LbPictureLayout *l = &p->layout;
  set_font(cr, 11, TRUE);
  const guint ranks[2] = {p->most, p->least};
  const char *const names[2] = {"max", "min"};
  const guint32 colours[2] = {0xd55e00, 0x0072b2};
  for (guint e = 0; e < (p->most == p->least ? 1u : 2u); e++) {
    guint first = G_MAXUINT, last = 0;
    for (guint i = 0; i < l->sx; i++)
      if (p->owner[i] == ranks[e]) {
        first = MIN(first, i);
        last = i;
      }
    if (first == G_MAXUINT)
      continue;
    g_autofree char *load = format_load(p->picture->rank_load[ranks[e]]);
    g_autofree char *text = g_strdup_printf("%s r%u: %s", names[e], ranks[e], load);
    double w = text_width(cr, text) + 10, line = text_height(cr);
    double x = l->map_x + (first + last + 1) / 2.0 * l->cell_px;
    x = CLAMP(x, l->map_x + w / 2, l->map_x + l->map_width - w / 2);
    double y = l->map_y + 4 + e * (line + 8) + line / 2;
    rounded_rectangle(cr, x - w / 2, y - line / 2 - 2, w, line + 4, 4);
    set_rgb(cr, colours[e]);
    cairo_fill(cr);
    cairo_set_source_rgb(cr, 1, 1, 1);
    show_text(cr, x, y, 0.5, 0.5, text);
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
  double step = lb_figure_nice_step((double)p->hi, 5, TRUE);
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
    g_autofree char *label = lb_figure_format_tick(v, step);
    show_text(cr, x0 - 8, y, 1, 0.5, label);
  }
  set_font(cr, 12, TRUE);
  show_rotated(cr, x0 - 76, top + BARS_HEIGHT / 2.0, "load");

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
    draw_strip_extremes(cr, p);
    return;
  }
  draw_heat(cr, p);
  draw_boundaries(cr, p);
  set_rgb(cr, 0x404040);
  cairo_set_line_width(cr, 1);
  cairo_rectangle(cr, l->map_x - 0.5, l->map_y - 0.5, l->map_width + 1, l->map_height + 1);
  cairo_stroke(cr);
  draw_labels(cr, p);
  draw_extremes(cr, p);
  draw_cell_ticks(cr, l->map_x, l->map_y + l->map_height, l->map_width, l->nx, FALSE, "x");
  draw_cell_ticks(cr, l->map_y + l->map_height, l->map_x, l->map_height, l->ny, TRUE, "y");
  draw_colour_bar(cr, p);
}

gboolean
lb_pictures_partition(const LbPictureOptions *o, const LbPartitionPicture *picture, GError **error)
{
  g_auto(Plane) p = {.picture = picture};
  lb_pictures_layout(picture->work, &p.layout);
  sample_plane(&p);
  describe_plane(&p);
  g_autofree char *what = g_strdup_printf("%s.partition", picture->balancer);
  return write_picture(o, picture->scenario, what, p.layout.width, p.layout.height, draw_partition,
                       &p, error);
}

/* ---- the charts of the steps ---- */

/* What a chart of the steps shows: the imbalance after balancing, or a
 * declared metric by name. */
typedef struct {
  const char *metric; /* NULL: the imbalance after balancing */
  const char *what, *axis;
  double floor; /* the best value: the axis starts there when it can */
} Measure;

static double
step_value(const Measure *m, const LbRunResult *run, guint step)
{
  if (m->metric == NULL)
    return run->adaptations[step].imbalance_after;
  int k = lb_metric_defs_find(run->metric_defs, m->metric);
  return run->adaptation_metrics[(gsize)step * run->metric_defs->len + (guint)k];
}

static double
run_mean(const Measure *m, const LbRunResult *run)
{
  if (m->metric == NULL)
    return run->imbalance_after;
  double v = 0;
  lb_run_result_metric(run, m->metric, &v);
  return v;
}

/* A chart of the runs (those not left out), a line each, in its
 * balancer's style. */
static LbPlot *
steps_chart(const LbPictureOptions *o, const LbStyles *styles, const char *id, const char *title,
            const char *subtitle, const Measure *m, GPtrArray *runs, const gboolean *left_out)
{
  LbPlot *plot = lb_plot_new(LB_PLOT_LINES, id, title);
  lb_plot_look(plot, &o->look, LB_PICTURES_WIDTH, LB_PICTURES_CHART_FONT);
  lb_plot_styles(plot, styles);
  lb_plot_subtitle(plot, subtitle);
  lb_plot_log_span(plot, LB_PICTURES_LOG_SPAN);
  lb_plot_x_axis(plot, "adaptation step", LB_PLOT_INTEGER, NULL);
  lb_plot_value_axis(plot, m->axis, m->floor, FALSE);
  for (guint r = 0; r < runs->len; r++) {
    const LbRunResult *run = runs->pdata[r];
    if (left_out != NULL && left_out[r])
      continue;
    lb_plot_series(plot, run->balancer);
    char buf[G_ASCII_DTOSTR_BUF_SIZE];
    g_autofree char *mean =
        g_strconcat("mean ", g_ascii_formatd(buf, sizeof buf, "%.4f", run_mean(m, run)), NULL);
    lb_plot_series_note(plot, mean);
    g_autoptr(GArray) xs = g_array_new(FALSE, FALSE, sizeof(double));
    g_autoptr(GArray) ys = g_array_new(FALSE, FALSE, sizeof(double));
    for (guint s = 0; s < run->nadaptations; s++) {
      double x = s, y = step_value(m, run, s);
      if (!isfinite(y))
        continue;
      g_array_append_val(xs, x);
      g_array_append_val(ys, y);
    }
    lb_plot_line(plot, 0, xs->len, (double *)xs->data, (double *)ys->data);
  }
  return plot;
}

static LbStyles *
styles_of(GPtrArray *runs)
{
  g_autofree const char **names = g_new0(const char *, MAX(runs->len, 1));
  for (guint r = 0; r < runs->len; r++)
    names[r] = ((const LbRunResult *)runs->pdata[r])->balancer;
  return lb_styles_new(names, runs->len);
}

/* DIR/SCENARIO.WHAT.EXT of the charts, one above the other. */
static gboolean
write_charts(const LbPictureOptions *o, const char *scenario, const char *what,
             const LbPlot *const *plots, guint n, GError **error)
{
  for (guint f = 0; f < LB_FIGURE_FORMATS; f++) {
    if (!(formats_of(o) & 1u << f))
      continue;
    g_autofree char *path = lb_figure_file(o->dir, scenario, what, lb_figure_format_ext(1u << f));
    g_autoptr(GBytes) bytes = lb_plot_figure(plots, n, 1u << f, o->width, path, error);
    if (bytes == NULL || !lb_figure_save(path, bytes, error))
      return FALSE;
  }
  return TRUE;
}

static char *
chart_subtitle(GPtrArray *runs, const char *what)
{
  const LbRunResult *first = runs->pdata[0];
  return g_strdup_printf("%s, %u rank%s, %u adaptation step%s \xc2\xb7 %s", first->model,
                         first->ranks, first->ranks == 1 ? "" : "s", first->nadaptations,
                         first->nadaptations == 1 ? "" : "s", what);
}

gboolean
lb_pictures_imbalance(const LbPictureOptions *o, const char *scenario, GPtrArray *results,
                      GError **error)
{
  g_return_val_if_fail(results->len > 0, FALSE);
  g_autoptr(LbStyles) styles = styles_of(results);
  const Measure m = {NULL, "imbalance after balancing", "imbalance after balancing (max/avg)", 1};
  g_autofree char *subtitle = chart_subtitle(
      results, "max/avg of the ranks' loads after each step's balancing, one line per balancer");
  g_autofree char *title = g_strconcat(scenario, ": imbalance after balancing", NULL);
  g_autoptr(LbPlot) all = steps_chart(o, styles, "imbalance", title, subtitle, &m, results, NULL);
  /* the balancers that stay near 1, on an axis made for them */
  g_autofree double *excess = g_new0(double, results->len);
  for (guint r = 0; r < results->len; r++) {
    const LbRunResult *run = results->pdata[r];
    for (guint s = 0; s < run->nadaptations; s++)
      if (isfinite(run->adaptations[s].imbalance_after))
        excess[r] = MAX(excess[r], run->adaptations[s].imbalance_after - 1);
  }
  g_autofree gboolean *left_out = lb_plot_dwarfs(excess, results->len);
  if (left_out == NULL)
    return write_charts(o, scenario, "imbalance", (const LbPlot *const *)&all, 1, error);
  g_autoptr(GString) left = g_string_new(NULL);
  for (guint r = 0; r < results->len; r++)
    if (left_out[r])
      g_string_append_printf(left, "%s%s", left->len ? ", " : "",
                             ((const LbRunResult *)results->pdata[r])->balancer);
  g_autofree char *close_title = g_strconcat(scenario, ": close up, without ", left->str, NULL);
  g_autofree char *close_subtitle =
      g_strdup_printf("the balancers that stay near 1: %s exceed%s 1 by ten times the median "
                      "balancer's excess or more",
                      left->str, strchr(left->str, ',') != NULL ? "" : "s");
  g_autoptr(LbPlot) close =
      steps_chart(o, styles, "imbalance-close", close_title, close_subtitle, &m, results, left_out);
  lb_plot_log_span(close, LB_PLOT_LOG_SPAN);
  const LbPlot *both[] = {all, close};
  return write_charts(o, scenario, "imbalance", both, 2, error);
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
lb_pictures_idle(const LbPictureOptions *o, const char *scenario, GPtrArray *results,
                 GError **error)
{
  g_autoptr(GPtrArray) with = g_ptr_array_new();
  for (guint i = 0; i < results->len; i++) {
    const LbRunResult *run = results->pdata[i];
    if (lb_metric_defs_find(run->metric_defs, "idle-procs") >= 0)
      g_ptr_array_add(with, results->pdata[i]);
  }
  g_return_val_if_fail(with->len > 0, FALSE);
  /* the styles of every run of the scenario, as the imbalance chart has them */
  g_autoptr(LbStyles) styles = styles_of(results);
  const Measure m = {"idle-procs", "idle processors", "idle processors (%)", 0};
  g_autofree char *subtitle = chart_subtitle(
      with, "percentage of ranks with no load after each step's balancing (the paper's eq. 3)");
  g_autofree char *title = g_strconcat(scenario, ": idle processors", NULL);
  g_autoptr(LbPlot) plot = steps_chart(o, styles, "idle", title, subtitle, &m, with, NULL);
  return write_charts(o, scenario, "idle", (const LbPlot *const *)&plot, 1, error);
}

/* ---- the grids of a hierarchy ---- */

#define GRIDS_WIDTH LB_PICTURES_WIDTH
#define GRIDS_HEIGHT 760
#define GRIDS_TOP 130
/* More grids than this in a panel are drawn as an image. */
#define GRIDS_VECTOR_MAX 1500

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

/* Per-level outlines: a colour and a width each, finer levels stronger. */
static const guint32 level_colours[] = {0x505050, 0x000000, 0xcc79a7, 0x0072b2, 0xe69f00};

static guint32
level_colour(guint level)
{
  return level_colours[MIN(level, G_N_ELEMENTS(level_colours) - 1)];
}

static double
level_width(guint level)
{
  return 0.6 + 0.8 * level;
}

/* A grid's rectangle in a panel, or FALSE when it does not meet the
 * drawn plane (a 3D hierarchy: the root's mid-plane). */
static gboolean
grid_rect(const LbGridsPicture *p, const LbGridPart *g, double left, double top, double s, double h,
          double r[4])
{
  double k = (double)g->scale;
  if (p->dim == 3) { /* the mid-plane of the root, at this level's resolution */
    double z = (double)p->root[2] / 2.0 * k;
    if (z < (double)g->lo[2] || z >= (double)g->hi[2])
      return FALSE;
  }
  r[0] = left + s * (double)g->lo[0] / k;
  r[1] = top + h - s * (double)g->hi[1] / k;
  r[2] = s * (double)(g->hi[0] - g->lo[0]) / k;
  r[3] = s * (double)(g->hi[1] - g->lo[1]) / k;
  return TRUE;
}

/* Loads per rank: the run's (given), or the sums of a set of grids' loads;
 * and the most and the least loaded rank. */
static guint64 *
grid_loads(const LbGridsPicture *p, const GArray *grids, const guint64 *given, guint *most,
           guint *least)
{
  guint64 *load = g_new0(guint64, MAX(p->ranks, 1));
  if (given != NULL)
    memcpy(load, given, p->ranks * sizeof *load);
  for (guint i = 0; given == NULL && i < grids->len; i++) {
    const LbGridPart *g = &g_array_index(grids, LbGridPart, i);
    if (g->owner < p->ranks)
      load[g->owner] += g->load;
  }
  extreme_ranks(load, p->ranks, most, least);
  return load;
}

/* One panel: the grids of a hierarchy in a square of `side` pixels, with
 * axes in root cells; filled by owner (a colour each), or, with many
 * ranks, by their owner's load (viridis from the least to the most
 * loaded rank); the most and the least loaded rank's grids outlined. */
static void
draw_grid_panel(cairo_t *cr, const LbGridsPicture *p, const GArray *grids, const guint64 *loads,
                double left, double top, double side, const char *caption)
{
  double s = MIN(side / (double)p->root[0], side / (double)p->root[1]);
  double w = s * (double)p->root[0], h = s * (double)p->root[1];
  guint levels = 0;
  for (guint i = 0; i < grids->len; i++)
    levels = MAX(levels, g_array_index(grids, LbGridPart, i).level);
  guint most = 0, least = 0;
  g_autofree guint64 *load = grid_loads(p, grids, loads, &most, &least);
  double total = 0;
  for (guint r = 0; r < p->ranks; r++)
    total += (double)load[r];
  double avg = MAX(total / MAX(p->ranks, 1), 1e-300);
  gboolean heat = p->ranks >= LB_PICTURES_MANY_RANKS;
  /* Thousands of grids (a field seen as a hierarchy on 1024 ranks) are
   * drawn on an image at the output's resolution and pasted in: in SVG
   * and PDF they would be a path each (1.7 MB for 8000). */
  cairo_t *to = cr;
  cairo_surface_t *image = NULL;
  double dx = 1, dy = 0;
  cairo_user_to_device_distance(cr, &dx, &dy);
  double scale = hypot(dx, dy);
  if (grids->len > GRIDS_VECTOR_MAX) {
    image =
        cairo_image_surface_create(CAIRO_FORMAT_RGB24, (int)ceil(w * scale), (int)ceil(h * scale));
    to = cairo_create(image);
    cairo_scale(to, scale, scale);
    cairo_translate(to, -left, -top);
  }
  set_rgb(to, 0xeeeeee);
  cairo_rectangle(to, left, top, w, h);
  cairo_fill(to);
  for (guint level = 0; level <= levels; level++)
    for (guint i = 0; i < grids->len; i++) {
      const LbGridPart *g = &g_array_index(grids, LbGridPart, i);
      double r[4];
      if (g->level != level || !grid_rect(p, g, left, top, s, h, r))
        continue;
      guint32 fill = !heat                  ? lb_pictures_owner_colour(g->owner)
                     : g->owner >= p->ranks ? 0xcccccc
                                            : viridis(load[g->owner] / avg / 2);
      set_rgb(to, fill);
      cairo_rectangle(to, r[0], r[1], r[2], r[3]);
      cairo_fill_preserve(to);
      set_rgb(to, level_colour(level));
      /* a small grid's outline no wider than a quarter of it */
      cairo_set_line_width(to, MIN(level_width(level), MAX(0.3, MIN(r[2], r[3]) / 4)));
      cairo_stroke(to);
    }
  if (image != NULL) {
    cairo_destroy(to);
    cairo_surface_flush(image);
    cairo_save(cr);
    cairo_translate(cr, left, top);
    cairo_scale(cr, 1 / scale, 1 / scale);
    cairo_set_source_surface(cr, image, 0, 0);
    cairo_paint(cr);
    cairo_restore(cr);
    cairo_surface_destroy(image);
  }
  for (guint e = 0; e < (most == least ? 1u : 2u); e++) {
    guint rank = e == 0 ? most : least;
    for (guint i = 0; i < grids->len; i++) {
      const LbGridPart *g = &g_array_index(grids, LbGridPart, i);
      double r[4];
      if (g->owner == rank && grid_rect(p, g, left, top, s, h, r))
        cairo_rectangle(cr, r[0] + 1.5, r[1] + 1.5, MAX(r[2] - 3, 1), MAX(r[3] - 3, 1));
    }
    set_rgb(cr, e == 0 ? 0xd55e00 : 0x0072b2);
    cairo_set_line_width(cr, 3);
    cairo_stroke(cr);
  }
  set_rgb(cr, 0x404040);
  cairo_set_line_width(cr, 1);
  cairo_rectangle(cr, left - 0.5, top - 0.5, w + 1, h + 1);
  cairo_stroke(cr);
  draw_cell_ticks(cr, left, top + h, w, p->root[0], FALSE, caption);
  draw_cell_ticks(cr, top + h, left, h, p->root[1], TRUE, "y (root cells)");
  g_autofree char *most_load = format_load(load[most]);
  g_autofree char *least_load = format_load(load[least]);
  g_autofree char *max = g_strdup_printf("max r%u: %s", most, most_load);
  g_autofree char *min = g_strdup_printf("min r%u: %s", least, least_load);
  set_font(cr, 11, TRUE);
  set_rgb(cr, 0xd55e00);
  show_text(cr, left, top - 6, 0, 1, max);
  set_rgb(cr, 0x0072b2);
  show_text(cr, left + text_width(cr, max) + 16, top - 6, 0, 1, min);
}

static void
draw_grids(cairo_t *cr, gconstpointer data)
{
  const LbGridsPicture *p = data;
  cairo_set_source_rgb(cr, 1, 1, 1);
  cairo_paint(cr);
  g_autofree char *title = g_strdup_printf("%s \xc2\xb7 %s", p->scenario, p->balancer);
  g_autofree char *subtitle = g_strdup_printf(
      "grids at adaptation step %u (last of %u), %s%s", p->adaptation, p->nadaptations,
      p->ranks >= LB_PICTURES_MANY_RANKS ? "coloured by their owner's load over the average (dark: "
                                           "none, teal: 1, yellow: 2 or more)"
                                         : "coloured by owner",
      p->dim == 3 ? "; the slice z = NZ/2 of the root" : "");
  guint levels = 0;
  for (guint i = 0; i < p->grids->len; i++)
    levels = MAX(levels, g_array_index(p->grids, LbGridPart, i).level);
  g_autofree char *details = g_strdup_printf(
      "%u grids on %u ranks \xc2\xb7 %" G_GUINT64_FORMAT " \xc3\x97 %" G_GUINT64_FORMAT
      " root cells \xc2\xb7 outlines by level, finer stronger \xc2\xb7 the most loaded rank's "
      "grids outlined orange, the least loaded's blue",
      p->grids->len, p->ranks, p->root[0], p->root[1]);
  draw_titles(cr, GRIDS_WIDTH, title, subtitle, details);
  double side = GRIDS_HEIGHT - GRIDS_TOP - 150;
  g_autofree char *before =
      g_strdup_printf("before balancing: imbalance %.4f (max/avg)", p->imbalance_before);
  g_autofree char *after =
      g_strdup_printf("after balancing: imbalance %.4f (max/avg)", p->imbalance_after);
  if (p->before != NULL)
    draw_grid_panel(cr, p, p->before, p->rank_load_before, 100, GRIDS_TOP, side, before);
  draw_grid_panel(cr, p, p->grids, p->rank_load_after, GRIDS_WIDTH / 2 + 60, GRIDS_TOP, side,
                  after);
  /* the levels' key, under the panels */
  double x = 100, y = GRIDS_HEIGHT - 26;
  set_font(cr, 11, FALSE);
  for (guint level = 0; level <= levels; level++, x += 140) {
    set_rgb(cr, 0xdddddd);
    cairo_rectangle(cr, x, y, 26, 16);
    cairo_fill_preserve(cr);
    set_rgb(cr, level_colour(level));
    cairo_set_line_width(cr, level_width(level));
    cairo_stroke(cr);
    g_autofree char *name = g_strdup_printf("level %u", level);
    set_rgb(cr, 0x202020);
    show_text(cr, x + 34, y + 8, 0, 0.5, name);
  }
}

gboolean
lb_pictures_grids(const LbPictureOptions *o, const LbGridsPicture *picture, GError **error)
{
  g_autofree char *what = g_strdup_printf("%s.grids", picture->balancer);
  return write_picture(o, picture->scenario, what, GRIDS_WIDTH, GRIDS_HEIGHT, draw_grids, picture,
                       error);
}

/* ---- a curve through the leaves of a tree ---- */

#define CURVE_WIDTH LB_PICTURES_WIDTH
#define CURVE_HEIGHT 750
#define CURVE_TOP 120
#define CURVE_SIDE 550
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
  guint64 load;
} CurveLeaf;

typedef struct {
  const LbCurvePicture *picture;
  CurveLeaf *leaves;       /* those drawn, in the curve's order */
  gsize n, total;          /* drawn, and all the tree's leaves */
  gboolean heat;           /* many ranks: loads and boundaries, not a curve of colours */
  guint most[2], least[2]; /* before, after */
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

/* load[leaf] as owners_of finds owner[leaf] (0: no unit). */
static void
loads_of(const Pair *leaves, gsize n, const GArray *const *units, guint ranks, Pair *held,
         Pair *spare, guint64 *load)
{
  gsize m = 0;
  for (guint r = 0; r < ranks; r++)
    for (guint i = 0; i < units[r]->len; i++)
      held[m++] =
          (Pair){g_array_index(units[r], LbUnit, i).id, g_array_index(units[r], LbUnit, i).load};
  const Pair *sorted = sort_pairs(held, spare, m);
  gsize j = 0;
  for (gsize i = 0; i < n; i++) {
    while (j < m && sorted[j].key < leaves[i].key)
      j++;
    load[leaves[i].value] = j < m && sorted[j].key == leaves[i].key ? sorted[j].value : 0;
  }
}

/* The most and the least loaded rank of units. */
static void
extreme_units(const GArray *const *units, guint ranks, guint *most, guint *least)
{
  g_autofree guint64 *load = g_new0(guint64, MAX(ranks, 1));
  for (guint r = 0; r < ranks; r++)
    for (guint i = 0; i < units[r]->len; i++)
      load[r] += g_array_index(units[r], LbUnit, i).load;
  extreme_ranks(load, ranks, most, least);
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
  g_autofree guint64 *load = g_new(guint64, MAX(n, 1));
  loads_of(by_id, n, pic->after, pic->ranks, pairs, spare, load);

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
        .load = load[by_key[k].value],
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
  c->heat = pic->ranks >= LB_PICTURES_MANY_RANKS;
  extreme_units(pic->before, pic->ranks, &c->most[0], &c->least[0]);
  extreme_units(pic->after, pic->ranks, &c->most[1], &c->least[1]);
  if (c->heat)
    c->subtitle = g_strdup_printf(
        "%s of adaptation step %u (last of %u), by load per area (log scale, dark to light), "
        "the ranks' parts of the %s curve outlined",
        which, pic->adaptation, pic->nadaptations, lb_curve_name(pic->curve));
  else
    c->subtitle =
        g_strdup_printf("the %s curve through %s of adaptation step %u (last of %u), "
                        "each segment coloured by the owner of the leaf it leaves",
                        lb_curve_name(pic->curve), which, pic->adaptation, pic->nadaptations);
  c->details = g_strdup_printf(
      "%s, %uD, %" G_GUINT64_FORMAT " finest cells per axis \xc2\xb7 %" G_GUINT64_FORMAT
      " hnodes \xc2\xb7 %u rank%s \xc2\xb7 after balancing: most loaded r%u, least "
      "loaded r%u%s",
      work->model->name, work->dim, work->size[0], lb_work_total_units(work), pic->ranks,
      pic->ranks == 1 ? "" : "s", c->most[1], c->least[1],
      c->heat ? "" : " \xc2\xb7 small leaves not outlined");
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

static void draw_rings(cairo_t *cr, const Curve *c, guint panel, double sum[2][3]);

/* Many ranks: every leaf's square filled by its load per area (log
 * scale), a pixel wide line where owners meet, the most and the least
 * loaded rank's lines in orange and blue; a raster of the panel. */
static void
draw_curve_heat(cairo_t *cr, const Curve *c, guint panel)
{
  guint side = CURVE_SIDE;
  g_autofree guint32 *owner = g_new(guint32, (gsize)side * side);
  g_autofree double *density = g_new0(double, (gsize)side *side);
  for (gsize i = 0; i < (gsize)side * side; i++)
    owner[i] = LB_PICTURES_NOBODY;
  double lo = G_MAXDOUBLE, hi = 0;
  for (gsize i = 0; i < c->n; i++) {
    const CurveLeaf *leaf = &c->leaves[i];
    double size = ldexp(1.0, -(int)leaf->level);
    double d = leaf->load > 0 ? log((double)leaf->load / (size * size)) : 0;
    if (leaf->load > 0) {
      lo = MIN(lo, d);
      hi = MAX(hi, d);
    }
    guint x0 = (guint)floor(leaf->x * size * side), y0 = (guint)floor(leaf->y * size * side);
    guint x1 = MAX((guint)floor((leaf->x + 1) * size * side), x0 + 1);
    guint y1 = MAX((guint)floor((leaf->y + 1) * size * side), y0 + 1);
    for (guint y = y0; y < MIN(y1, side); y++)
      for (guint x = x0; x < MIN(x1, side); x++) {
        gsize at = (gsize)(side - 1 - y) * side + x;
        owner[at] = leaf->owner[panel];
        density[at] = MAX(density[at], d);
      }
  }
  if (hi <= lo)
    hi = lo + 1;
  double sum[2][3] = {{0}};
  g_autoptr(cairo_surface_t) image =
      cairo_image_surface_create(CAIRO_FORMAT_RGB24, (int)side, (int)side);
  cairo_surface_flush(image);
  guint8 *data = cairo_image_surface_get_data(image);
  int stride = cairo_image_surface_get_stride(image);
  for (guint y = 0; y < side; y++) {
    guint32 *px = (guint32 *)(gpointer)(data + (gsize)y * stride);
    for (guint x = 0; x < side; x++) {
      gsize at = (gsize)y * side + x;
      guint32 o = owner[at];
      for (guint e = 0; e < 2; e++)
        if (o == (e == 0 ? c->most[panel] : c->least[panel])) {
          sum[e][0] += x;
          sum[e][1] += y;
          sum[e][2]++;
        }
      guint32 colour = o == LB_PICTURES_NOBODY ? 0xcccccc : viridis((density[at] - lo) / (hi - lo));
      gboolean edge =
          (x + 1 < side && owner[at + 1] != o) || (y + 1 < side && owner[at + side] != o);
      if (edge || ((o == c->most[panel] || o == c->least[panel]) &&
                   ((x > 0 && owner[at - 1] != o) || (y > 0 && owner[at - side] != o)))) {
        if (o == c->most[panel])
          colour = 0xd55e00;
        else if (o == c->least[panel])
          colour = 0x0072b2;
        else /* white at 60 % */
          colour = ((((colour >> 16) & 0xff) * 2 / 5 + 153) << 16) |
                   ((((colour >> 8) & 0xff) * 2 / 5 + 153) << 8) | ((colour & 0xff) * 2 / 5 + 153);
      }
      px[x] = colour;
    }
  }
  cairo_surface_mark_dirty(image);
  double left, top;
  lb_pictures_curve_point(panel, 0, 1, &left, &top);
  cairo_set_source_surface(cr, image, left, top);
  cairo_paint(cr);
  draw_rings(cr, c, panel, sum);
}

/* A ring round the most and the least loaded rank's part (at the centre
 * of its pixels: sum[e] holds their x, y and count, e 0 the most loaded,
 * 1 the least, in the panel's pixels), and its name. */
static void
draw_rings(cairo_t *cr, const Curve *c, guint panel, double sum[2][3])
{
  double left, top, side = CURVE_SIDE;
  lb_pictures_curve_point(panel, 0, 1, &left, &top);
  set_font(cr, 11, TRUE);
  for (guint e = 0; e < 2; e++) {
    if (sum[e][2] == 0 || (e == 1 && c->least[panel] == c->most[panel]))
      continue;
    double x = left + sum[e][0] / sum[e][2], y = top + sum[e][1] / sum[e][2];
    set_rgb(cr, e == 0 ? 0xd55e00 : 0x0072b2);
    cairo_new_sub_path(cr);
    cairo_arc(cr, x, y, 16, 0, 2 * G_PI);
    cairo_set_line_width(cr, 3);
    cairo_stroke(cr);
    g_autofree char *name = g_strdup_printf("%s r%u", e == 0 ? "max" : "min",
                                            e == 0 ? c->most[panel] : c->least[panel]);
    double w = text_width(cr, name) + 10, line = text_height(cr);
    double lx = CLAMP(x, left + w / 2, left + side - w / 2);
    /* the most loaded's name under its ring, the least loaded's over it,
     * so that two rings close together keep both names */
    double below = y + 20 + line / 2 + 2, above = y - 20 - line / 2 - 2;
    double ly = e == 0 ? (below + line / 2 > top + side ? above : below)
                       : (above - line / 2 < top ? below : above);
    rounded_rectangle(cr, lx - w / 2, ly - line / 2 - 2, w, line + 4, 4);
    cairo_fill(cr);
    cairo_set_source_rgb(cr, 1, 1, 1);
    show_text(cr, lx, ly, 0.5, 0.5, name);
  }
}

/* A panel's caption under it, centred, within the panel's width and a
 * little more (the left panel is 40 from the picture's edge). */
static void
show_caption(cairo_t *cr, double left, double top, const char *caption)
{
  set_rgb(cr, 0x404040);
  show_fitted_at(cr, left + CURVE_SIDE / 2.0, top + CURVE_SIDE + 10, 0.5, CURVE_SIDE + 60, 12, TRUE,
                 caption);
}

static void
draw_curve_panel(cairo_t *cr, const Curve *c, guint panel, const char *caption)
{
  double left, top;
  lb_pictures_curve_point(panel, 0, 1, &left, &top);
  if (c->heat) {
    draw_curve_heat(cr, c, panel);
    set_rgb(cr, 0x404040);
    cairo_set_line_width(cr, 1);
    cairo_rectangle(cr, left - 0.5, top - 0.5, CURVE_SIDE + 1, CURVE_SIDE + 1);
    cairo_stroke(cr);
    show_caption(cr, left, top, caption);
    return;
  }
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
  show_caption(cr, left, top, caption);
  /* the most and the least loaded rank, named by their colours (a ring
   * in the panel would hide the leaves under it) */
  set_font(cr, 11, TRUE);
  double y = top + CURVE_SIDE + 42, x = left + CURVE_SIDE / 2.0 - 120;
  for (guint e = 0; e < (c->most[panel] == c->least[panel] ? 1u : 2u); e++) {
    guint rank = e == 0 ? c->most[panel] : c->least[panel];
    g_autofree char *name = g_strdup_printf("%s r%u", e == 0 ? "max" : "min", rank);
    set_rgb(cr, lb_pictures_owner_colour(rank));
    cairo_rectangle(cr, x, y - 8, 16, 16);
    cairo_fill(cr);
    set_rgb(cr, e == 0 ? 0xd55e00 : 0x0072b2);
    show_text(cr, x + 22, y, 0, 0.5, name);
    x += 140;
  }
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
lb_pictures_curve(const LbPictureOptions *o, const LbCurvePicture *picture, GError **error)
{
  g_return_val_if_fail(picture->work->model->leaves != NULL, FALSE);
  g_auto(Curve) c = {.picture = picture};
  collect_leaves(&c);
  describe_curve(&c);
  g_autofree char *what = g_strdup_printf("%s.curve", picture->balancer);
  return write_picture(o, picture->scenario, what, CURVE_WIDTH, CURVE_HEIGHT, draw_curve, &c,
                       error);
}

/* ---- chunks over time (a balancer that owns the compute) ---- */

#define GANTT_LEFT 110
#define GANTT_RIGHT (LB_PICTURES_WIDTH - 150)
#define GANTT_TOP 120
#define GANTT_BOTTOM 90
/* Migrations drawn as lines from the owner's row up to this many;
 * beyond, only the marks at the chunks' starts. */
#define GANTT_LINES_MAX 300

void
lb_pictures_gantt_layout(guint ranks, double t_end, LbGanttLayout *l)
{
  l->ranks = MAX(ranks, 1);
  l->left = GANTT_LEFT;
  l->right = GANTT_RIGHT;
  l->top = GANTT_TOP;
  l->row = CLAMP(900.0 / l->ranks, 0.5, 24.0);
  double plot = MAX(l->row * l->ranks, 240.0);
  l->row = plot / l->ranks;
  l->bottom = l->top + plot;
  l->width = LB_PICTURES_WIDTH;
  l->height = (guint)ceil(l->bottom + GANTT_BOTTOM);
  l->t_end = t_end > 0 ? t_end : 1;
}

guint32
lb_pictures_chunk_colour(guint64 first, guint64 n)
{
  return viridis(n > 1 ? 0.1 + 0.9 * (double)first / (double)(n - 1) : 0.5);
}

typedef struct {
  const LbChunkPicture *picture;
  LbGanttLayout layout;
  guint64 migrated;
  guint64 iterations; /* the loop's: the last chunk's end, at most */
  char *title, *subtitle, *details;
} Gantt;

static void
gantt_clear(Gantt *g)
{
  g_free(g->title);
  g_free(g->subtitle);
  g_free(g->details);
}

G_DEFINE_AUTO_CLEANUP_CLEAR_FUNC(Gantt, gantt_clear)

static double
gantt_x(const LbGanttLayout *l, double t)
{
  return l->left + (l->right - l->left) * t / l->t_end;
}

static void
draw_gantt(cairo_t *cr, gconstpointer data)
{
  const Gantt *g = data;
  const LbChunkPicture *pic = g->picture;
  const LbGanttLayout *l = &g->layout;
  cairo_set_source_rgb(cr, 1, 1, 1);
  cairo_paint(cr);
  draw_titles(cr, l->width, g->title, g->subtitle, g->details);
  double w = l->right - l->left, h = l->bottom - l->top;
  /* idle time grey, the bars over it: a raster of the plot, so that
   * thousands of chunks cost pixels, not paths */
  guint pw = (guint)ceil(w), ph = (guint)ceil(h);
  g_autoptr(cairo_surface_t) bars =
      cairo_image_surface_create(CAIRO_FORMAT_RGB24, (int)pw, (int)ph);
  cairo_surface_flush(bars);
  guint8 *px = cairo_image_surface_get_data(bars);
  int stride = cairo_image_surface_get_stride(bars);
  for (guint y = 0; y < ph; y++)
    for (guint x = 0; x < pw; x++)
      ((guint32 *)(gpointer)(px + (gsize)y * stride))[x] = 0xf0f0f0;
  const LbChunk *chunk = (const LbChunk *)pic->chunks->data;
  for (guint i = 0; i < pic->chunks->len; i++) {
    const LbChunk *c = &chunk[i];
    if (c->rank >= l->ranks)
      continue;
    guint x0 = (guint)CLAMP(lround(gantt_x(l, c->began) - l->left), 0, (long)pw - 1);
    guint x1 = (guint)CLAMP(lround(gantt_x(l, c->ended) - l->left), (long)x0 + 1, (long)pw);
    guint y0 = (guint)lround(c->rank * l->row);
    guint y1 = (guint)MAX(lround((c->rank + 1) * l->row), (long)y0 + 1);
    /* a gap of a pixel between rows that have room for it */
    if (l->row >= 6)
      y1--;
    guint32 colour = lb_pictures_chunk_colour(c->first, g->iterations);
    for (guint y = y0; y < MIN(y1, ph); y++)
      for (guint x = x0; x < x1; x++)
        ((guint32 *)(gpointer)(px + (gsize)y * stride))[x] = colour;
    /* a chunk's start: a white line, so that chunks in a row stay apart;
     * orange and two pixels wide when it migrated */
    gboolean migrated = c->owner != c->rank;
    guint mark = migrated ? MIN(2u, x1 - x0) : x1 - x0 >= 3 ? 1 : 0;
    for (guint y = y0; y < MIN(y1, ph); y++)
      for (guint x = x0; x < x0 + mark; x++)
        ((guint32 *)(gpointer)(px + (gsize)y * stride))[x] = migrated ? 0xd55e00 : 0xffffff;
  }
  cairo_surface_mark_dirty(bars);
  cairo_set_source_surface(cr, bars, l->left, l->top);
  cairo_pattern_set_filter(cairo_get_source(cr), CAIRO_FILTER_NEAREST);
  cairo_paint(cr);

  /* migrations, when few: from the owner's row to the worker's at the
   * chunk's start */
  cairo_set_line_width(cr, 1);
  for (guint i = 0; g->migrated <= GANTT_LINES_MAX && i < pic->chunks->len; i++) {
    const LbChunk *c = &chunk[i];
    if (c->owner == c->rank || c->rank >= l->ranks || c->owner >= l->ranks)
      continue;
    double x = round(gantt_x(l, c->began)) + 0.5;
    cairo_move_to(cr, x, l->top + (c->owner + 0.5) * l->row);
    cairo_line_to(cr, x, l->top + (c->rank + 0.5) * l->row);
  }
  cairo_set_source_rgba(cr, 0.84, 0.37, 0, 0.6);
  cairo_stroke(cr);

  /* adaptation steps: where each one's first chunk starts */
  guint step = G_MAXUINT;
  set_font(cr, 10, FALSE);
  for (guint i = 0; i < pic->chunks->len; i++) {
    const LbChunk *c = &chunk[i];
    if (c->adaptation == step)
      continue;
    step = c->adaptation;
    double start = c->began;
    for (guint k = i; k < pic->chunks->len && chunk[k].adaptation == step; k++)
      start = MIN(start, chunk[k].began);
    double x = round(gantt_x(l, start)) + 0.5;
    set_rgb(cr, 0x404040);
    cairo_move_to(cr, x, l->top - 6);
    cairo_line_to(cr, x, l->bottom);
    cairo_stroke(cr);
    if (pic->nadaptations > 1) {
      g_autofree char *name = g_strdup_printf("step %u", step);
      show_text(cr, x + 3, l->top - 4, 0, 1, name);
    }
  }

  set_rgb(cr, 0x404040);
  cairo_rectangle(cr, l->left - 0.5, l->top - 0.5, w + 1, h + 1);
  cairo_stroke(cr);
  /* the axes: simulated time, ranks downwards */
  set_font(cr, 11, FALSE);
  double t_step = lb_figure_nice_step(l->t_end, 8, FALSE);
  for (double t = 0; t <= l->t_end + t_step * 1e-6; t += t_step) {
    double x = round(gantt_x(l, t)) + 0.5;
    cairo_move_to(cr, x, l->bottom);
    cairo_line_to(cr, x, l->bottom + 5);
    cairo_stroke(cr);
    g_autofree char *label = lb_figure_format_tick(t, t_step);
    show_text(cr, x, l->bottom + 8, 0.5, 0, label);
  }
  double r_step = lb_figure_nice_step(l->ranks, MIN(l->ranks, 16u), TRUE);
  for (double r = 0; r < l->ranks; r += r_step) {
    double y = l->top + (r + 0.5) * l->row;
    cairo_move_to(cr, l->left - 5, y);
    cairo_line_to(cr, l->left, y);
    cairo_stroke(cr);
    g_autofree char *label = g_strdup_printf("r%.0f", r);
    show_text(cr, l->left - 8, y, 1, 0.5, label);
  }
  set_font(cr, 12, TRUE);
  show_text(cr, (l->left + l->right) / 2, l->bottom + 36, 0.5, 0, "simulated time (s)");
  show_rotated(cr, l->left - 80, (l->top + l->bottom) / 2, "worker (rank)");

  /* the colour key: the iterations' position in the loop */
  double x = l->right + 28, bar = MIN(h, 360.0);
  cairo_pattern_t *ramp = cairo_pattern_create_linear(0, l->top + bar, 0, l->top);
  for (guint i = 0; i < 10; i++) {
    guint32 c = viridis(0.1 + 0.1 * i);
    cairo_pattern_add_color_stop_rgb(ramp, i / 9.0, (c >> 16) / 255.0, (c >> 8 & 0xff) / 255.0,
                                     (c & 0xff) / 255.0);
  }
  cairo_rectangle(cr, x, l->top, COLOUR_BAR_WIDTH, bar);
  cairo_set_source(cr, ramp);
  cairo_fill(cr);
  cairo_pattern_destroy(ramp);
  set_rgb(cr, 0x404040);
  set_font(cr, 11, FALSE);
  g_autofree char *last = format_load(g->iterations > 0 ? g->iterations - 1 : 0);
  show_text(cr, x + COLOUR_BAR_WIDTH + 6, l->top, 0, 0, last);
  show_text(cr, x + COLOUR_BAR_WIDTH + 6, l->top + bar, 0, 1, "0");
  show_rotated(cr, x + COLOUR_BAR_WIDTH + 24, l->top + bar / 2, "first iteration");
  if (g->migrated > 0) {
    set_rgb(cr, 0xd55e00);
    cairo_rectangle(cr, x, l->top + bar + 24, 3, 12);
    cairo_fill(cr);
    set_rgb(cr, 0x404040);
    show_text(cr, x + 8, l->top + bar + 30, 0, 0.5, "migrated");
  }
}

gboolean
lb_pictures_chunks(const LbPictureOptions *o, const LbChunkPicture *picture, GError **error)
{
  g_auto(Gantt) g = {.picture = picture};
  double t_end = 0;
  guint64 iterations = 0, work = 0;
  g_autofree guint64 *count = g_new0(guint64, MAX(picture->ranks, 1));
  const LbChunk *chunk = (const LbChunk *)picture->chunks->data;
  for (guint i = 0; i < picture->chunks->len; i++) {
    const LbChunk *c = &chunk[i];
    t_end = MAX(t_end, c->ended);
    iterations = MAX(iterations, c->first + c->count);
    work += c->count;
    g.migrated += c->owner != c->rank;
    if (c->rank < picture->ranks)
      count[c->rank]++;
  }
  g.iterations = iterations;
  lb_pictures_gantt_layout(picture->ranks, t_end, &g.layout);
  g.title = g_strdup_printf("%s \xc2\xb7 %s", picture->scenario, picture->balancer);
  g.subtitle = g_strdup_printf("the chunks each worker computed over simulated time, %u adaptation "
                               "step%s, coloured by their first iteration",
                               picture->nadaptations, picture->nadaptations == 1 ? "" : "s");
  guint busiest = 0;
  for (guint r = 1; r < picture->ranks; r++)
    if (count[r] > count[busiest])
      busiest = r;
  g.details = g_strdup_printf(
      "%u chunks, %" G_GUINT64_FORMAT " migrated (an orange start%s) \xc2\xb7 %" G_GUINT64_FORMAT
      " iterations \xc2\xb7 %u worker%s, r%u computed the most chunks (%" G_GUINT64_FORMAT
      ") \xc2\xb7 T_p %.4g s",
      picture->chunks->len, g.migrated,
      g.migrated <= GANTT_LINES_MAX && g.migrated > 0 ? ", a line from the data's owner" : "", work,
      picture->ranks, picture->ranks == 1 ? "" : "s", busiest, count[busiest], t_end);
  g_autofree char *what = g_strdup_printf("%s.chunks", picture->balancer);
  return write_picture(o, picture->scenario, what, g.layout.width, g.layout.height, draw_gantt, &g,
                       error);
}

static gboolean
chunks_of_run(const LbRunEnd *end, const LbPictureOptions *o, GError **error)
{
  LbChunkPicture picture = {
      .scenario = end->scenario->name,
      .balancer = end->brun->label,
      .ranks = end->ranks,
      .nadaptations = end->nadaptations,
      .chunks = end->chunks,
  };
  return lb_pictures_chunks(o, &picture, error);
}

/* ---- a run's final partition, at its end ---- */

static gboolean
partition_of_run(const LbRunEnd *end, const LbPictureOptions *o, GError **error)
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
  return lb_pictures_partition(o, &picture, error);
}

static gboolean
grids_of_run(const LbRunEnd *end, const LbPictureOptions *o, GError **error)
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
      .imbalance_before = end->imbalance_before,
      .imbalance_after = end->imbalance_after,
      .rank_load_before = end->rank_load_before,
      .rank_load_after = end->rank_load,
      .grids = grids,
      .before = end->grids_before,
  };
  return lb_pictures_grids(o, &picture, error);
}

/* The curve the run's balancer keeps, as it says; Hilbert's for one
 * that keeps none. */
static gboolean
curve_of_run(const LbRunEnd *end, const LbPictureOptions *o, GError **error)
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
  return lb_pictures_curve(o, &picture, error);
}

const char *
lb_pictures_kind(const LbBalancerRun *run)
{
  const LbModel *model = run->work->model;
  if (run->balancer->owns_compute)
    return "chunks";
  if (model->grids != NULL)
    return "grids";
  if (model->leaves != NULL)
    return "curve";
  return model->total_units == NULL ? "partition" : NULL;
}

gboolean
lb_pictures_of_run(const LbRunEnd *end, gpointer options, GError **error)
{
  const LbPictureOptions *o = options;
  if (end->brun->balancer->owns_compute)
    return end->chunks == NULL || chunks_of_run(end, o, error);
  const LbModel *model = end->work->model;
  /* of models whose units are cells, of grids, of trees */
  if (model->total_units == NULL && !partition_of_run(end, o, error))
    return FALSE;
  if (model->grids != NULL && !grids_of_run(end, o, error))
    return FALSE;
  if (model->leaves != NULL && end->units_before != NULL && !curve_of_run(end, o, error))
    return FALSE;
  return TRUE;
}
