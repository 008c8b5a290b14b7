/* How any figure is written: its formats (PNG, SVG with its text as text,
 * PDF), its file's name, its size (pixels, or points for print), and the
 * round ticks of its axes. The pictures (pictures.c) and the charts
 * (plots.c) are drawn through it. */
#pragma once

#include <cairo.h>
#include <glib.h>

#include "report/style.h"

typedef enum {
  LB_FIGURE_PNG = 1 << 0,
  LB_FIGURE_SVG = 1 << 1,
  LB_FIGURE_PDF = 1 << 2,
} LbFigureFormat;

#define LB_FIGURE_FORMATS 3

/* --picture-format's values (each "png", "svg", "pdf" or a comma list of
 * them) as LbFigureFormat bits; 0 when none is given. */
gboolean lb_figure_parse_formats(const char *const *values, guint *formats, GError **error);
const char *lb_figure_format_ext(LbFigureFormat format);

/* DIR/SCENARIO.WHAT.EXT, SCENARIO and WHAT as lb_output_file_part writes
 * them (a label's ':' written '+'). */
char *lb_figure_file(const char *dir, const char *scenario, const char *what, const char *ext);

/* A tick spacing of 1, 2, 2.5 or 5 times a power of ten giving at most
 * about `count` ticks over span (whole numbers only when integral), and a
 * tick's label with as many decimals as the spacing needs. */
double lb_figure_nice_step(double span, guint count, gboolean integral);
char *lb_figure_format_tick(double v, double step);

typedef void (*LbDrawFunc)(cairo_t *cr, gconstpointer data);

/* Where a drawing goes: device units per drawing unit (scale), and
 * whether the file states its size in points (a figure for print). */
typedef struct {
  double scale;
  gboolean points;
} LbFigureTarget;

/* A drawing of width x height units in one format: PNG, SVG (its text
 * kept as <text> elements: draw through lb_figure_show_text) or PDF
 * (without a creation date, so that the same drawing is the same bytes).
 * NULL with error set when cairo fails. */
GBytes *lb_figure_draw(LbFigureFormat format, const LbFigureTarget *target, double width,
                       double height, LbDrawFunc draw, gconstpointer data, const char *path,
                       GError **error);

/* Shows text at the current point's font, colour and matrix; on an SVG
 * surface, keeps it as a <text> element written over the drawing
 * instead of cairo's glyph outlines (which no editor changes and no
 * search finds). (x, y) is the baseline's start; anchor 0 start, 0.5
 * middle, 1 end. */
void lb_figure_show_text(cairo_t *cr, double x, double y, double anchor, const char *text);

/* Writes bytes to path (a temporary file renamed over it). */
gboolean lb_figure_save(const char *path, GBytes *bytes, GError **error);
