/* What the charts' files share (plots.c): the plot's structure, the SVG
 * being written and its primitives (plot-svg.c: text, numbers, styles, the
 * value axis, segment fills), lines (plot-lines.c) and bars
 * (plot-bars.c). Only those files include it. */
#pragma once

#include <cairo.h>
#include <math.h>
#include <string.h>

#include "report/plots.h"
#include "report/svg-draw.h"

G_DEFINE_AUTOPTR_CLEANUP_FUNC(cairo_t, cairo_destroy)
G_DEFINE_AUTOPTR_CLEANUP_FUNC(cairo_surface_t, cairo_surface_destroy)

/* for body text of LB_PLOT_FONT */
#define FRAME_HEIGHT 336
#define BAR_HEIGHT 24
#define BAR_GAP 14
#define LEGEND_MAX 300
#define LEGEND_ROW 22
#define MARKER_R 3.5
#define LINE_WIDTH 2.25
#define MARKERS_MAX 30 /* markers per line beyond which they would hide it */
/* A legend right of the plot leaves it at least this share of the width;
 * else it goes under it. */
#define PLOT_SHARE 0.55

#define MAX_BANDS 2

typedef struct {
  guint style;
  GArray *x, *y;
  guint nbands;
  GArray *lo[MAX_BANDS], *hi[MAX_BANDS]; /* lb_plot_band */
  LbPlotBand band_kind[MAX_BANDS];
} Line;

typedef struct {
  char *name, *note;
  GPtrArray *lines;    /* Line */
  GPtrArray *segments; /* names, owned by the plot's segment list */
  GArray *values;      /* double per segment */
  double mark;         /* bars: NAN for none */
  guint style;         /* of the palette */
} Series;

typedef struct {
  char *label;
  GArray *x, *y;
} Reference;

struct _LbPlot {
  LbPlotKind kind;
  char *id, *title, *subtitle, *x_label, *value_label;
  LbPlotScale scale;
  LbPlotValueScale value_scale;
  double log_span;
  double width, height, font; /* the layout: units, 0 height from the content */
  gboolean points, untitled;
  const LbStyles *styles;
  GPtrArray *references; /* Reference */
  char *mark_label;
  GPtrArray *categories;
  double floor;
  gboolean seconds;
  GPtrArray *style_labels; /* by style index; NULL: not listed */
  GPtrArray *series;
  GPtrArray *segment_names; /* every segment name, in first-seen order */
  GPtrArray *segment_keys;  /* names of fixed fills, by fill */
};

#define NSTYLES 5

typedef struct {
  GString *out;
  cairo_t *cr; /* for text widths only */
  const LbPlot *plot;
  double k;                /* lengths per length made for LB_PLOT_FONT */
  double font, tick, head; /* the body text's size, the ticks', the title's */
  gboolean log;            /* the value axis */
  gboolean cut;            /* bars: the longest is cut at a break */
  double factor;           /* value units per drawn unit */
  const char *unit;        /* of the drawn values, or NULL */
  char *value_label;
  double v_lo, v_hi, v_step; /* the value axis */
  double x_lo, x_hi;         /* lines: the x axis, in axis units (log2 for LOG2) */
  double left, right, top, bottom;
  double width, height;
  gboolean legend_below; /* the legend under the plot, not right of it */
} Svg;

static inline void
svg_clear(Svg *s)
{
  g_free(s->value_label);
}

G_DEFINE_AUTO_CLEANUP_CLEAR_FUNC(Svg, svg_clear)

extern const char *const lb_chart_dashes[];

/* A line segment from (x0, y0) to (x1, y1), as path data. */
void lb_chart_put_segment(GString *out, double x0, double y0, double x1, double y1);

/* #rrggbb. */
void lb_chart_put_colour(GString *out, guint32 rgb);

/* A style's colour, marker and dash (report/style.h), by its index. */
guint32 lb_chart_series_colour(guint index);

/* A line's dash: its style's, the series' own for the solid style. */
void lb_chart_put_dash(GString *out, guint style, guint series, double k);

/* A marker of radius r centred on (x, y), as path data. */
void lb_chart_put_marker(GString *out, LbMarker marker, double x, double y, double r);

LbMarker lb_chart_series_marker(guint index);

/* A text's width at size (points), in the sans-serif a browser picks. */
double lb_chart_text_width(cairo_t *cr, const char *text, double size, gboolean bold);

/* A coordinate or a size, to a hundredth of a unit, without the zeros a
 * reader does not need (244.8, 12). */
void lb_chart_put_px(GString *out, double v);

/* A <text> at (x, y), anchored start, middle or end, with more
 * attributes (extra), escaped. */
void lb_chart_put_text(Svg *s, double x, double y, const char *anchor, const char *extra,
                       const char *text);

/* Every value the plot draws, in its units. */
void lb_chart_value_extent(const LbPlot *p, double *lo, double *hi);

/* The smallest positive value of the lines, or infinity. */
double lb_chart_smallest_positive(const LbPlot *p);

/* Bars: the second longest (with its mark), or 0. */
double lb_chart_second_longest(const LbPlot *p);

/* The value axis' range and ticks from lo to hi (linear or log). */
void lb_chart_value_range(Svg *s, double lo, double hi);

/* Lines: the layout (right of the plot the legend, or under it when it
 * would leave the plot too narrow), then the grid, the axes, the series
 * and the legend. */
void lb_chart_draw_lines(Svg *s);

/* A bar chart's body (plot-bars.c). */
void lb_chart_draw_bars(Svg *s);

/* A segment fill's colour, by its index. */
guint32 lb_chart_segment_colour(guint index);

const char *lb_chart_series_dash(guint index);

/* A number in an attribute: every digit the JSON has (it prints ten). */
void lb_chart_put_number(GString *out, double v);

/* Where a drawn value lies along the value axis, from 0 (its start) to 1. */
double lb_chart_axis_at(const Svg *s, double v);

/* A tick's label on the value axis (seconds with their unit). */
char *lb_chart_tick_label(const Svg *s, double v);

/* The value axis' ticks: its start (the floor, 1 for an imbalance, is
 * worth a tick) and the multiples of the step above it. */
GArray *lb_chart_value_ticks(const Svg *s);

/* The widest tick label of the value axis. */
double lb_chart_value_ticks_width(Svg *s);

/* The fill (index) of a segment name: its key's, or after the keys in
 * the order the names came. */
guint lb_chart_fill_of(const LbPlot *p, const char *name);

/* The fill of index c: a colour, or past the colours a pattern of one
 * defined by segment_patterns. */
void lb_chart_put_fill(GString *out, const LbPlot *p, guint c);

/* The hatched and dotted fills the chart's segment names need. */
void lb_chart_segment_patterns(Svg *s);

/* A series' style, for scripts: data-colour, data-marker, data-dash. */
void lb_chart_put_style(GString *out, guint series);

/* The value axis' grid lines and labels, across or up the frame. */
void lb_chart_value_grid(Svg *s, gboolean vertical);

/* The plot's frame, where a legend leaves room for it. */
void lb_chart_frame(Svg *s);

/* The width the legend needs. */
double lb_chart_legend_width(Svg *s);
