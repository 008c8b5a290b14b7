/* What every kind of picture shares (picture-draw.h): colours, text,
 * titles, and writing a picture in each format (figure.c). */
#include "report/picture-draw.h"

/* ---- colours, numbers, text ---- */

/* viridis (matplotlib's perceptually uniform map) at 10 even stops; linear
 * in between. */
const guint8 lb_pic_viridis_stops[10][3] = {
    {0x44, 0x01, 0x54}, {0x48, 0x28, 0x78}, {0x3e, 0x4a, 0x89}, {0x31, 0x68, 0x8e},
    {0x26, 0x82, 0x8e}, {0x1f, 0x9e, 0x89}, {0x35, 0xb7, 0x79}, {0x6d, 0xcd, 0x59},
    {0xb4, 0xde, 0x2c}, {0xfd, 0xe7, 0x25},
};

guint32
lb_pic_viridis(double t)
{
  t = CLAMP(t, 0.0, 1.0) * 9;
  guint i = MIN((guint)t, 8u);
  double f = t - i;
  guint32 rgb = 0;
  for (guint c = 0; c < 3; c++) {
    double v = lb_pic_viridis_stops[i][c] +
               f * (lb_pic_viridis_stops[i + 1][c] - lb_pic_viridis_stops[i][c]);
    rgb = rgb << 8 | (guint32)lround(v);
  }
  return rgb;
}

void
lb_pic_set_rgb(cairo_t *cr, guint32 rgb)
{
  cairo_set_source_rgb(cr, (rgb >> 16) / 255.0, (rgb >> 8 & 0xff) / 255.0, (rgb & 0xff) / 255.0);
}

/* Loads on labels: exact up to six digits, else three significant ones. */
char *
lb_pic_format_load(guint64 v)
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

void
lb_pic_set_font(cairo_t *cr, double size, gboolean bold)
{
  cairo_select_font_face(cr, LB_FONT_FAMILY, CAIRO_FONT_SLANT_NORMAL,
                         bold ? CAIRO_FONT_WEIGHT_BOLD : CAIRO_FONT_WEIGHT_NORMAL);
  cairo_set_font_size(cr, size * FONT_SCALE);
}

double
lb_pic_text_width(cairo_t *cr, const char *text)
{
  cairo_text_extents_t e;
  cairo_text_extents(cr, text, &e);
  return e.x_advance;
}

double
lb_pic_text_height(cairo_t *cr)
{
  cairo_font_extents_t e;
  cairo_font_extents(cr, &e);
  return e.ascent + e.descent;
}

void
lb_pic_show_text(cairo_t *cr, double x, double y, double ax, double ay, const char *text)
{
  cairo_font_extents_t e;
  cairo_font_extents(cr, &e);
  lb_figure_show_text(cr, x, y - ay * (e.ascent + e.descent) + e.ascent, ax, text);
}

void
lb_pic_rounded_rectangle(cairo_t *cr, double x, double y, double width, double height,
                         double radius)
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
void
lb_pic_show_label(cairo_t *cr, double x, double y, const char *const *lines, guint n, double width)
{
  double line = lb_pic_text_height(cr);
  double top = y - n * line / 2;
  lb_pic_rounded_rectangle(cr, x - width / 2, top - 1, width, n * line + 2, 4);
  cairo_set_source_rgba(cr, 0, 0, 0, 0.45);
  cairo_fill(cr);
  cairo_set_source_rgb(cr, 1, 1, 1);
  for (guint i = 0; i < n; i++)
    lb_pic_show_text(cr, x, top + i * line, 0.5, 0, lines[i]);
}

/* One line anchored at x (ax as show_text's), made smaller until it
 * fits width. */
void
lb_pic_show_fitted_at(cairo_t *cr, double x, double y, double ax, double width, double size,
                      gboolean bold, const char *text)
{
  lb_pic_set_font(cr, size, bold);
  /* hinted advances are whole pixels: the width is not quite in
   * proportion to the size */
  for (double w = lb_pic_text_width(cr, text); w > width && size > 4;
       w = lb_pic_text_width(cr, text)) {
    size *= MIN(width / w, 0.98);
    lb_pic_set_font(cr, size, bold);
  }
  lb_pic_show_text(cr, x, y, ax, 0, text);
}

void
lb_pic_show_fitted(cairo_t *cr, double x, double y, double width, double size, gboolean bold,
                   const char *text)
{
  lb_pic_show_fitted_at(cr, x, y, 0, width, size, bold, text);
}

void
lb_pic_show_rotated(cairo_t *cr, double x, double y, const char *text)
{
  cairo_save(cr);
  cairo_translate(cr, x, y);
  cairo_rotate(cr, -G_PI / 2);
  lb_pic_show_text(cr, 0, 0, 0.5, 0.5, text);
  cairo_restore(cr);
}

/* ---- writing ---- */

typedef void (*DrawFunc)(cairo_t *cr, gconstpointer data);

guint
lb_pic_formats_of(const LbPictureOptions *o)
{
  return o->formats != 0 ? o->formats : LB_PICTURES_DEFAULT_FORMATS;
}

void
lb_pictures_add_files(GPtrArray *names, const LbPictureOptions *o, const char *dir,
                      const char *scenario, const char *what)
{
  for (guint f = 0; f < LB_FIGURE_FORMATS; f++)
    if (lb_pic_formats_of(o) & 1u << f)
      g_ptr_array_add(names, lb_figure_file(dir, scenario, what, lb_figure_format_ext(1u << f)));
}

static const cairo_user_data_key_t untitled_key;

gboolean
lb_pic_untitled(cairo_t *cr)
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
gboolean
lb_pic_write_picture(const LbPictureOptions *o, const char *scenario, const char *what, guint width,
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
    if (!(lb_pic_formats_of(o) & 1u << f))
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

void
lb_pic_draw_titles(cairo_t *cr, guint width, const char *title, const char *subtitle,
                   const char *details)
{
  if (lb_pic_untitled(cr))
    return;
  double room = width - 2 * 16.0;
  lb_pic_set_rgb(cr, 0x202020);
  lb_pic_show_fitted(cr, 16, 14, room, 17, TRUE, title);
  lb_pic_show_fitted(cr, 16, 48, room, 13, FALSE, subtitle);
  if (details != NULL) {
    lb_pic_set_rgb(cr, 0x606060);
    lb_pic_show_fitted(cr, 16, 76, room, 12, FALSE, details);
  }
}

/* Ticks along an axis of n cells drawn over `length` pixels from `start`
 * (vertical: upwards from start). */
void
lb_pic_draw_cell_ticks(cairo_t *cr, double start, double across, double length, guint64 n,
                       gboolean vertical, const char *name)
{
  lb_pic_set_font(cr, 11, FALSE);
  double step = lb_figure_nice_step((double)n, length >= 400 ? 8 : 4, TRUE);
  cairo_set_line_width(cr, 1);
  for (double v = 0; v <= (double)n + 1e-9; v += step) {
    double at = length * v / (double)n;
    g_autofree char *label = lb_figure_format_tick(v, step);
    lb_pic_set_rgb(cr, 0x404040);
    if (vertical) {
      double y = round(start - at) + 0.5;
      cairo_move_to(cr, across - 5, y);
      cairo_line_to(cr, across, y);
      cairo_stroke(cr);
      lb_pic_show_text(cr, across - 8, y, 1, 0.5, label);
    } else {
      double x = round(start + at) + 0.5;
      cairo_move_to(cr, x, across);
      cairo_line_to(cr, x, across + 5);
      cairo_stroke(cr);
      lb_pic_show_text(cr, x, across + 8, 0.5, 0, label);
    }
  }
  lb_pic_set_font(cr, 12, TRUE);
  if (vertical)
    lb_pic_show_rotated(cr, across - 70, start - length / 2, name);
  else
    lb_pic_show_text(cr, start + length / 2, across + 36, 0.5, 0, name);
}

/* The most and the least loaded rank, the first of equals. */
void
lb_pic_extreme_ranks(const guint64 *load, guint ranks, guint *most, guint *least)
{
  *most = *least = 0;
  for (guint r = 1; r < ranks; r++) {
    if (load[r] > load[*most])
      *most = r;
    if (load[r] < load[*least])
      *least = r;
  }
}
