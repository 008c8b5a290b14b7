/* What every kind of picture shares (picture-draw.c): colours, text, titles,
 * the layout constants of the title band, and writing a picture in each
 * format. Only the picture files include it. */
#pragma once

#include <cairo.h>
#include <math.h>
#include <string.h>

#include "lbsim/balancer.h"
#include "report/pictures.h"
#include "report/plots.h"

G_DEFINE_AUTOPTR_CLEANUP_FUNC(cairo_t, cairo_destroy)
G_DEFINE_AUTOPTR_CLEANUP_FUNC(cairo_surface_t, cairo_surface_destroy)

#define COLOUR_BAR_WIDTH 20
/* The title lines' band at the top of every picture, cut off when the
 * title is dropped (--no-title). */
#define TITLE_BAND 88
/* Every size below is multiplied by this: one scale for every picture,
 * large enough to read when a page shows the picture half as wide. */
#define FONT_SCALE 1.5

/* A picture's drawing, called once per format. */
typedef void (*DrawFunc)(cairo_t *cr, gconstpointer data);

/* viridis sampled at ten stops, for the colour bars. */
extern const guint8 lb_pic_viridis_stops[10][3];

/* The viridis colour map at t in [0, 1], as 0xRRGGBB. */
guint32 lb_pic_viridis(double t);

/* cairo's source colour from 0xRRGGBB. */
void lb_pic_set_rgb(cairo_t *cr, guint32 rgb);

/* Loads on labels: exact up to six digits, else three significant ones. */
char *lb_pic_format_load(guint64 v);

/* The pictures' sans-serif font, size times FONT_SCALE. */
void lb_pic_set_font(cairo_t *cr, double size, gboolean bold);

/* A text's advance and the font's line height in the current font. */
double lb_pic_text_width(cairo_t *cr, const char *text);
double lb_pic_text_height(cairo_t *cr);

/* text anchored at (x, y): ax and ay from 0 (left, top) to 1 (right,
 * bottom). */
void lb_pic_show_text(cairo_t *cr, double x, double y, double ax, double ay, const char *text);

void lb_pic_rounded_rectangle(cairo_t *cr, double x, double y, double width, double height,
                              double radius);

/* Lines of white text centred on (x, y) over a dark translucent box:
 * readable on every colour of the map, and small in SVG (the glyphs are
 * shared, where outlined text would be a path each). */
void lb_pic_show_label(cairo_t *cr, double x, double y, const char *const *lines, guint n,
                       double width);

/* One line anchored at x (ax as show_text's), made smaller until it
 * fits width. */
void lb_pic_show_fitted_at(cairo_t *cr, double x, double y, double ax, double width, double size,
                           gboolean bold, const char *text);

/* The same, centred on x. */
void lb_pic_show_fitted(cairo_t *cr, double x, double y, double width, double size, gboolean bold,
                        const char *text);

/* text turned a quarter turn, anchored at (x, y) (an axis title). */
void lb_pic_show_rotated(cairo_t *cr, double x, double y, const char *text);

/* Whether the picture being drawn drops its title (--no-title). */
gboolean lb_pic_untitled(cairo_t *cr);

/* DIR/SCENARIO.WHAT.EXT in each of the options' formats, drawn width x
 * height (every picture LB_PICTURES_WIDTH wide, so that one font size
 * reads the same in all) and scaled to the options' width: pixels (PDF:
 * points), or, for print, its width in points (its PNG LB_FIGURE_PPI
 * pixels an inch). */
gboolean lb_pic_write_picture(const LbPictureOptions *o, const char *scenario, const char *what,
                              guint width, guint height, DrawFunc draw, gconstpointer data,
                              GError **error);

/* The options' formats, or the default ones (LB_PICTURES_DEFAULT_FORMATS). */
guint lb_pic_formats_of(const LbPictureOptions *o);

/* The title band: a title, a subtitle and a line of details, unless the
 * picture is untitled. */
void lb_pic_draw_titles(cairo_t *cr, guint width, const char *title, const char *subtitle,
                        const char *details);

/* Ticks along an axis of n cells drawn over `length` pixels from `start`
 * (vertical: upwards from start). */
void lb_pic_draw_cell_ticks(cairo_t *cr, double start, double across, double length, guint64 n,
                            gboolean vertical, const char *name);

/* The most and the least loaded rank, the first of equals. */
void lb_pic_extreme_ranks(const guint64 *load, guint ranks, guint *most, guint *least);
