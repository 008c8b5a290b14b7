/* The charts of the report page (lbsim run --report, lbsim report), of a
 * reproduction's page and the pictures' imbalance charts, written as SVG
 * text rather than through cairo's SVG surface: that one turns text into
 * glyph outlines and series into anonymous paths, where the page wants
 * text a reader can select and search, and every series an element,
 * <g class="series" data-series="NAME">, whose lines and bars carry the
 * numbers they draw (data-x, data-y, data-value). Their PNG and PDF are
 * that SVG drawn with cairo (svg-draw.c). */
#pragma once

#include <glib.h>

#include "report/figure.h"
#include "report/style.h"

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

/* A chart on a screen: this many pixels wide, its body text this large. */
#define LB_PLOT_WIDTH 1000
#define LB_PLOT_FONT 12

typedef struct _LbPlot LbPlot;

/* id names the SVG element in the page: unique there, and the prefix of
 * the ids inside it. */
LbPlot *lb_plot_new(LbPlotKind kind, const char *id, const char *title);
void lb_plot_free(LbPlot *plot);
G_DEFINE_AUTOPTR_CLEANUP_FUNC(LbPlot, lb_plot_free)

/* A line under the title, smaller. */
void lb_plot_subtitle(LbPlot *plot, const char *subtitle);
/* Its size: look's, in points, when it gives one (its text
 * LB_FIGURE_FONT points unless it says), else width pixels with its body
 * text font pixels; without its title when look says so. Its height
 * follows from its content unless look gives one. */
void lb_plot_look(LbPlot *plot, const LbFigureLook *look, double width, double font);
/* The styles of the page's names (borrowed: they outlive the plot). */
void lb_plot_styles(LbPlot *plot, const LbStyles *styles);

/* Lines: the x axis; categories (NULL-terminated) label the indices of a
 * LB_PLOT_CATEGORIES axis. */
void lb_plot_x_axis(LbPlot *plot, const char *label, LbPlotScale scale,
                    const char *const *categories);
/* The axis of the values (y for lines, x for bars): it starts at floor
 * when every value is at or above it; seconds show in s, ms or µs,
 * whichever suits the largest value. */
void lb_plot_value_axis(LbPlot *plot, const char *label, double floor, gboolean seconds);
void lb_plot_value_scale(LbPlot *plot, LbPlotValueScale scale);
/* Auto's span for a log axis (LB_PLOT_LOG_SPAN unless given). */
void lb_plot_log_span(LbPlot *plot, double span);
/* Parses auto, linear or log; FALSE for another word. */
gboolean lb_plot_value_scale_parse(const char *text, LbPlotValueScale *scale);
/* Lines: what a line style (a dash pattern) means, for the legend.
 * Styles without a label are not listed. */
void lb_plot_style(LbPlot *plot, guint style, const char *label);

/* Starts the next series, in its name's style (lb_plot_styles). */
void lb_plot_series(LbPlot *plot, const char *name);
/* What the legend adds after the current series' name ("mean 1.02"). */
void lb_plot_series_note(LbPlot *plot, const char *note);
/* Lines: a line of the current series through n points, in order. */
void lb_plot_line(LbPlot *plot, guint style, guint n, const double *x, const double *y);
typedef enum {
  LB_PLOT_BAND_AREA, /* shaded, translucent, under the line */
  LB_PLOT_BAND_BARS, /* an error bar with caps at each point */
} LbPlotBand;

/* Lines: a band around the current series' last line, n values (one per
 * point of the line) low and high, in its colour. */
void lb_plot_band(LbPlot *plot, LbPlotBand kind, guint n, const double *lo, const double *hi);
/* Lines: a reference that is no series (ideal scaling): a thin grey
 * dotted line through n points, named in the legend after the series. */
void lb_plot_reference(LbPlot *plot, const char *label, guint n, const double *x, const double *y);
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

/* The series that dwarf the rest on an imbalance chart, left out of its
 * close-up: whose largest excess over 1 (excess[i]) is LB_PLOT_CLOSE_UP
 * times the median series' or more (none, or enzo-original's whole grids,
 * beside balancers near 1). NULL when none would go, or fewer than two
 * would stay. */
#define LB_PLOT_CLOSE_UP 10.0
gboolean *lb_plot_dwarfs(const double *excess, guint n);

/* A style of the palette as a small <svg> element (a line and its
 * marker) to stand beside a name in a table, as the legends show it. */
char *lb_plot_swatch(guint style);

/* The chart as an <svg> element; standalone adds the XML prolog and the
 * namespace a file needs. */
char *lb_plot_svg(const LbPlot *plot, gboolean standalone);
/* Charts one above the other (as wide as the first) as one figure in a
 * format: SVG text, or that text drawn (PNG, PDF). A figure in pixels is
 * scaled to pixel_width (0: its own width); one in points is its size in
 * points, its PNG LB_FIGURE_PPI pixels per inch. NULL with error set when
 * cairo fails (path names the file in the message). */
GBytes *lb_plot_figure(const LbPlot *const *plots, guint n, LbFigureFormat format,
                       double pixel_width, const char *path, GError **error);
