/* The charts of the report page (lbsim run --report, lbsim report),
 * written as SVG text rather than through cairo's SVG surface: that one
 * turns text into glyph outlines and series into anonymous paths, where
 * the page wants text a reader can select and search, and every series an
 * element, <g class="series" data-series="NAME">, whose lines and bars
 * carry the numbers they draw (data-x, data-y, data-value). */
#pragma once

#include <glib.h>

typedef enum {
  LB_PLOT_LINES, /* lines over a shared x axis */
  LB_PLOT_BARS,  /* a horizontal bar per series, stacked from named segments */
} LbPlotKind;

typedef enum {
  LB_PLOT_LINEAR,
  LB_PLOT_INTEGER,    /* linear, ticks on whole numbers only */
  LB_PLOT_LOG2,       /* ticks on powers of two */
  LB_PLOT_CATEGORIES, /* x is the index of a label, spaced evenly */
} LbPlotScale;

typedef struct _LbPlot LbPlot;

/* id names the SVG element in the page: unique there, and the prefix of
 * the ids inside it. */
LbPlot *lb_plot_new(LbPlotKind kind, const char *id, const char *title);
void lb_plot_free(LbPlot *plot);
G_DEFINE_AUTOPTR_CLEANUP_FUNC(LbPlot, lb_plot_free)

/* Lines: the x axis; categories (NULL-terminated) label the indices of a
 * LB_PLOT_CATEGORIES axis. */
void lb_plot_x_axis(LbPlot *plot, const char *label, LbPlotScale scale,
                    const char *const *categories);
/* The axis of the values (y for lines, x for bars): it starts at floor
 * when every value is at or above it; seconds show in s, ms or µs,
 * whichever suits the largest value. */
void lb_plot_value_axis(LbPlot *plot, const char *label, double floor, gboolean seconds);
/* Lines: what a line style (a dash pattern and a marker shape) means, for
 * the legend. Styles without a label are not listed. */
void lb_plot_style(LbPlot *plot, guint style, const char *label);

/* Starts the next series (the next colour). */
void lb_plot_series(LbPlot *plot, const char *name);
/* Lines: a line of the current series through n points, in order. */
void lb_plot_line(LbPlot *plot, guint style, guint n, const double *x, const double *y);
typedef enum {
  LB_PLOT_BAND_AREA, /* shaded, translucent, under the line */
  LB_PLOT_BAND_BARS, /* an error bar with caps at each point */
} LbPlotBand;

/* Lines: a band around the current series' last line, n values (one per
 * point of the line) low and high, in its colour. */
void lb_plot_band(LbPlot *plot, LbPlotBand kind, guint n, const double *lo, const double *hi);
/* Bars: the next segment of the current series' bar. */
void lb_plot_segment(LbPlot *plot, const char *name, double value);

/* The chart as an <svg> element; standalone adds the XML prolog and the
 * namespace a file needs. */
char *lb_plot_svg(const LbPlot *plot, gboolean standalone);
