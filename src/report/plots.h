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

/* The value axis of a lines chart. Auto takes a log axis when every value
 * drawn is positive and the largest is LB_PLOT_LOG_SPAN times the smallest
 * or more (a baseline such as none's imbalance beside balancers near 1),
 * a linear one otherwise. Bars stay linear (stacked lengths on a log axis
 * would lie). */
typedef enum {
  LB_PLOT_VALUES_AUTO,
  LB_PLOT_VALUES_LINEAR,
  LB_PLOT_VALUES_LOG,
} LbPlotValueScale;

#define LB_PLOT_LOG_SPAN 10.0
/* Bars, unless linear: the longest bar, when LB_PLOT_CUT_RATIO times the
 * next or more, is cut at a break mark, the axis made for the others. */
#define LB_PLOT_CUT_RATIO 4.0

/* Every series of a chart gets a style of one palette: a colour (8
 * colour-blind-safe ones, Okabe and Ito's with wine for their yellow), a
 * marker (6 shapes) and, from the ninth on, a dash of its own; the first
 * LB_PLOT_STYLES styles differ pairwise in colour and marker. The n-th
 * series of every chart takes style n, so a page that adds its names in
 * one order gives a name the same style on every chart. */
#define LB_PLOT_STYLES 24

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
void lb_plot_value_scale(LbPlot *plot, LbPlotValueScale scale);
/* Parses auto, linear or log; FALSE for another word. */
gboolean lb_plot_value_scale_parse(const char *text, LbPlotValueScale *scale);
/* Lines: what a line style (a dash pattern and a marker shape) means, for
 * the legend. Styles without a label are not listed. */
void lb_plot_style(LbPlot *plot, guint style, const char *label);

/* Starts the next series, in the next style (the n-th series, style n). */
void lb_plot_series(LbPlot *plot, const char *name);
/* Starts the next series in a style of its own (the style its name has
 * on the page's other charts). */
void lb_plot_series_styled(LbPlot *plot, const char *name, guint style);
/* Lines: a line of the current series through n points, in order. */
void lb_plot_line(LbPlot *plot, guint style, guint n, const double *x, const double *y);
typedef enum {
  LB_PLOT_BAND_AREA, /* shaded, translucent, under the line */
  LB_PLOT_BAND_BARS, /* an error bar with caps at each point */
} LbPlotBand;

/* Lines: a band around the current series' last line, n values (one per
 * point of the line) low and high, in its colour. */
void lb_plot_band(LbPlot *plot, LbPlotBand kind, guint n, const double *lo, const double *hi);
/* Bars: the next segment of the current series' bar. A segment's fill is
 * keyed by its name (lb_plot_segment_keys): 16 colours, then the same
 * hatched, then dotted, so that no two of 48 names share one. */
void lb_plot_segment(LbPlot *plot, const char *name, double value);
/* Bars: the names whose fills are fixed, the n-th taking fill n on every
 * chart (a page gives every phase name of lbsim's balancers, so that a
 * phase has one fill on every page); other names take the fills after
 * them, first seen, first fill. */
void lb_plot_segment_keys(LbPlot *plot, const char *const *names);
/* Bars: a mark across the current series' bar at value (another measure
 * of the same quantity, e.g. the summary's balance time); label names it
 * in the legend (the last one given). */
void lb_plot_mark(LbPlot *plot, double value, const char *label);

/* A style as a small <svg> element (a line and its marker) to stand
 * beside a name in a table, as the legends show it. */
char *lb_plot_swatch(guint style);

/* The chart as an <svg> element; standalone adds the XML prolog and the
 * namespace a file needs. */
char *lb_plot_svg(const LbPlot *plot, gboolean standalone);
