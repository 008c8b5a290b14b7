/* Charts as SVG text: axes with round ticks, a legend, series as groups
 * that carry their numbers. Text is measured with cairo's toy font API in
 * the same sans-serif a browser picks, to lay out margins and legends.
 * Every length is made for body text of LB_PLOT_FONT and scaled with the
 * chart's (k), so that a chart for print, 8 points on 3.4 inches, is laid
 * out as the page's. */
#include "report/plots.h"
#include "report/svg-draw.h"

#include <math.h>
#include <string.h>
#include <cairo.h>

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

static void
line_free(gpointer data)
{
  Line *l = data;
  g_array_unref(l->x);
  g_array_unref(l->y);
  for (guint b = 0; b < l->nbands; b++) {
    g_array_unref(l->lo[b]);
    g_array_unref(l->hi[b]);
  }
  g_free(l);
}

static void
reference_free(gpointer data)
{
  Reference *r = data;
  g_free(r->label);
  g_array_unref(r->x);
  g_array_unref(r->y);
  g_free(r);
}

static void
series_free(gpointer data)
{
  Series *s = data;
  g_free(s->name);
  g_free(s->note);
  g_ptr_array_unref(s->lines);
  g_ptr_array_unref(s->segments);
  g_array_unref(s->values);
  g_free(s);
}

LbPlot *
lb_plot_new(LbPlotKind kind, const char *id, const char *title)
{
  LbPlot *p = g_new0(LbPlot, 1);
  p->kind = kind;
  p->id = g_strdup(id);
  p->title = g_strdup(title);
  p->x_label = g_strdup("");
  p->value_label = g_strdup("");
  p->scale = LB_PLOT_LINEAR;
  p->log_span = LB_PLOT_LOG_SPAN;
  p->width = LB_PLOT_WIDTH;
  p->font = LB_PLOT_FONT;
  p->references = g_ptr_array_new_with_free_func(reference_free);
  p->categories = g_ptr_array_new_with_free_func(g_free);
  p->style_labels = g_ptr_array_new_with_free_func(g_free);
  p->series = g_ptr_array_new_with_free_func(series_free);
  p->segment_names = g_ptr_array_new_with_free_func(g_free);
  p->segment_keys = g_ptr_array_new_with_free_func(g_free);
  return p;
}

void
lb_plot_free(LbPlot *plot)
{
  if (plot == NULL)
    return;
  g_free(plot->id);
  g_free(plot->title);
  g_free(plot->subtitle);
  g_ptr_array_unref(plot->references);
  g_free(plot->x_label);
  g_free(plot->value_label);
  g_free(plot->mark_label);
  g_ptr_array_unref(plot->categories);
  g_ptr_array_unref(plot->style_labels);
  g_ptr_array_unref(plot->series);
  g_ptr_array_unref(plot->segment_names);
  g_ptr_array_unref(plot->segment_keys);
  g_free(plot);
}

void
lb_plot_subtitle(LbPlot *plot, const char *subtitle)
{
  g_free(plot->subtitle);
  plot->subtitle = g_strdup(subtitle);
}

void
lb_plot_look(LbPlot *plot, const LbFigureLook *look, double width, double font)
{
  plot->points = look != NULL && look->width > 0;
  plot->width = plot->points ? look->width : width;
  plot->height = plot->points ? look->height : 0;
  plot->font = plot->points ? (look->font > 0 ? look->font : LB_FIGURE_FONT) : font;
  plot->untitled = look != NULL && look->no_title;
}

void
lb_plot_styles(LbPlot *plot, const LbStyles *styles)
{
  plot->styles = styles;
}

void
lb_plot_log_span(LbPlot *plot, double span)
{
  plot->log_span = span;
}

void
lb_plot_x_axis(LbPlot *plot, const char *label, LbPlotScale scale, const char *const *categories)
{
  g_free(plot->x_label);
  plot->x_label = g_strdup(label);
  plot->scale = scale;
  g_ptr_array_set_size(plot->categories, 0);
  for (guint i = 0; categories != NULL && categories[i] != NULL; i++)
    g_ptr_array_add(plot->categories, g_strdup(categories[i]));
}

void
lb_plot_value_axis(LbPlot *plot, const char *label, double floor, gboolean seconds)
{
  g_free(plot->value_label);
  plot->value_label = g_strdup(label);
  plot->floor = floor;
  plot->seconds = seconds;
}

void
lb_plot_value_scale(LbPlot *plot, LbPlotValueScale scale)
{
  plot->value_scale = scale;
}

gboolean
lb_plot_value_scale_parse(const char *text, LbPlotValueScale *scale)
{
  static const char *const names[] = {"auto", "linear", "log"};
  for (guint i = 0; i < G_N_ELEMENTS(names); i++)
    if (g_strcmp0(text, names[i]) == 0) {
      *scale = (LbPlotValueScale)i;
      return TRUE;
    }
  return FALSE;
}

void
lb_plot_style(LbPlot *plot, guint style, const char *label)
{
  if (plot->style_labels->len <= style)
    g_ptr_array_set_size(plot->style_labels, style + 1);
  g_free(plot->style_labels->pdata[style]);
  plot->style_labels->pdata[style] = g_strdup(label);
}

void
lb_plot_series(LbPlot *plot, const char *name)
{
  Series *s = g_new0(Series, 1);
  s->style = lb_styles_index(plot->styles, name);
  s->name = g_strdup(name);
  s->lines = g_ptr_array_new_with_free_func(line_free);
  s->segments = g_ptr_array_new();
  s->values = g_array_new(FALSE, FALSE, sizeof(double));
  s->mark = NAN;
  g_ptr_array_add(plot->series, s);
}

static Series *
current(const LbPlot *plot)
{
  g_return_val_if_fail(plot->series->len > 0, NULL);
  return plot->series->pdata[plot->series->len - 1];
}

void
lb_plot_series_note(LbPlot *plot, const char *note)
{
  Series *s = current(plot);
  g_free(s->note);
  s->note = g_strdup(note);
}

void
lb_plot_reference(LbPlot *plot, const char *label, guint n, const double *x, const double *y)
{
  g_return_if_fail(plot->kind == LB_PLOT_LINES);
  Reference *r = g_new0(Reference, 1);
  r->label = g_strdup(label);
  r->x = g_array_sized_new(FALSE, FALSE, sizeof(double), n);
  r->y = g_array_sized_new(FALSE, FALSE, sizeof(double), n);
  g_array_append_vals(r->x, x, n);
  g_array_append_vals(r->y, y, n);
  g_ptr_array_add(plot->references, r);
}

void
lb_plot_line(LbPlot *plot, guint style, guint n, const double *x, const double *y)
{
  g_return_if_fail(plot->kind == LB_PLOT_LINES);
  Line *l = g_new0(Line, 1);
  l->style = style;
  l->x = g_array_sized_new(FALSE, FALSE, sizeof(double), n);
  l->y = g_array_sized_new(FALSE, FALSE, sizeof(double), n);
  g_array_append_vals(l->x, x, n);
  g_array_append_vals(l->y, y, n);
  g_ptr_array_add(current(plot)->lines, l);
}

void
lb_plot_band(LbPlot *plot, LbPlotBand kind, guint n, const double *lo, const double *hi)
{
  Series *s = current(plot);
  g_return_if_fail(s->lines->len > 0);
  Line *l = s->lines->pdata[s->lines->len - 1];
  g_return_if_fail(n == l->x->len && l->nbands < MAX_BANDS);
  l->lo[l->nbands] = g_array_sized_new(FALSE, FALSE, sizeof(double), n);
  l->hi[l->nbands] = g_array_sized_new(FALSE, FALSE, sizeof(double), n);
  g_array_append_vals(l->lo[l->nbands], lo, n);
  g_array_append_vals(l->hi[l->nbands], hi, n);
  l->band_kind[l->nbands] = kind;
  l->nbands++;
}

void
lb_plot_segment(LbPlot *plot, const char *name, double value)
{
  g_return_if_fail(plot->kind == LB_PLOT_BARS);
  const char *known = NULL;
  for (guint i = 0; i < plot->segment_names->len && known == NULL; i++)
    if (strcmp(plot->segment_names->pdata[i], name) == 0)
      known = plot->segment_names->pdata[i];
  if (known == NULL) {
    known = g_strdup(name);
    g_ptr_array_add(plot->segment_names, (gpointer)known);
  }
  Series *s = current(plot);
  g_ptr_array_add(s->segments, (gpointer)known);
  g_array_append_val(s->values, value);
}

void
lb_plot_segment_keys(LbPlot *plot, const char *const *names)
{
  g_ptr_array_set_size(plot->segment_keys, 0);
  for (guint i = 0; names != NULL && names[i] != NULL; i++)
    g_ptr_array_add(plot->segment_keys, g_strdup(names[i]));
}

void
lb_plot_mark(LbPlot *plot, double value, const char *label)
{
  g_return_if_fail(plot->kind == LB_PLOT_BARS);
  current(plot)->mark = value;
  g_free(plot->mark_label);
  plot->mark_label = g_strdup(label);
}

/* ---- writing ---- */

/* Segments get colours of their own, apart from the series' (Tol's
 * colour-blind-safe "bright" and "muted" sets); past sixteen names the
 * same colours come hatched, then dotted. */
static const guint32 segment_colours[] = {
    0x4477aa, 0xee6677, 0x228833, 0xccbb44, 0x66ccee, 0xaa3377, 0xbbbbbb, 0x332288,
    0x88ccee, 0x44aa99, 0x117733, 0x999933, 0xddcc77, 0xcc6677, 0x882255, 0xaa4499};

/* A segment's fill, by the index of its name: the colours, then hatched,
 * then dotted (a pattern of the chart, see segment_patterns). */
#define SEGMENT_FILLS (3 * G_N_ELEMENTS(segment_colours))

static guint32
segment_colour(guint index)
{
  return segment_colours[index % G_N_ELEMENTS(segment_colours)];
}

static guint32
series_colour(guint index)
{
  return lb_style_at(index)->colour;
}

static LbMarker
series_marker(guint index)
{
  return lb_style_at(index)->marker;
}

static const char *
series_dash(guint index)
{
  return lb_style_at(index)->dash;
}

static const char *const dashes[] = {NULL, "7 4", "2 3", "9 3 2 3", "14 4"};
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

static void
svg_clear(Svg *s)
{
  g_free(s->value_label);
}

G_DEFINE_AUTO_CLEANUP_CLEAR_FUNC(Svg, svg_clear)

static double
text_width(cairo_t *cr, const char *text, double size, gboolean bold)
{
  cairo_select_font_face(cr, "sans-serif", CAIRO_FONT_SLANT_NORMAL,
                         bold ? CAIRO_FONT_WEIGHT_BOLD : CAIRO_FONT_WEIGHT_NORMAL);
  cairo_set_font_size(cr, size);
  cairo_text_extents_t e;
  cairo_text_extents(cr, text, &e);
  return e.x_advance;
}

/* A number in an attribute: every digit the JSON has (it prints ten). */
static void
put_number(GString *out, double v)
{
  char buf[G_ASCII_DTOSTR_BUF_SIZE];
  g_string_append(out, g_ascii_formatd(buf, sizeof buf, "%.10g", v));
}

/* A coordinate or a size, to a hundredth of a unit, without the zeros a
 * reader does not need (244.8, 12). */
static void
put_px(GString *out, double v)
{
  char buf[G_ASCII_DTOSTR_BUF_SIZE];
  g_ascii_formatd(buf, sizeof buf, "%.2f", fabs(v) < 0.005 ? 0.0 : v);
  gsize n = strlen(buf);
  while (n > 0 && buf[n - 1] == '0')
    n--;
  if (n > 0 && buf[n - 1] == '.')
    n--;
  g_string_append_len(out, buf, (gssize)n);
}

static void
put_text(Svg *s, double x, double y, const char *anchor, const char *extra, const char *text)
{
  g_autofree char *escaped = g_markup_escape_text(text, -1);
  g_string_append(s->out, "<text x=\"");
  put_px(s->out, x);
  g_string_append(s->out, "\" y=\"");
  put_px(s->out, y);
  g_string_append_printf(s->out, "\" text-anchor=\"%s\"%s%s>%s</text>\n", anchor,
                         extra != NULL ? " " : "", extra != NULL ? extra : "", escaped);
}

static void
put_segment(GString *out, double x0, double y0, double x1, double y1)
{
  g_string_append(out, "M");
  put_px(out, x0);
  g_string_append_c(out, ',');
  put_px(out, y0);
  g_string_append(out, " L");
  put_px(out, x1);
  g_string_append_c(out, ',');
  put_px(out, y1);
  g_string_append_c(out, ' ');
}

static void
put_colour(GString *out, guint32 rgb)
{
  g_string_append_printf(out, "#%06x", rgb & 0xffffff);
}

/* ---- the value axis ---- */

/* The nearest of 1, 2 and 5 times a power of ten below v (or above). */
static double
log_nice(double v, gboolean above)
{
  static const double steps[] = {1, 2, 5, 10};
  double magnitude = pow(10, floor(log10(v)));
  double best = above ? 10 * magnitude : magnitude;
  for (guint i = 0; i < G_N_ELEMENTS(steps); i++) {
    double t = steps[i] * magnitude;
    if (above ? t >= v * (1 - 1e-9) && t < best : t <= v * (1 + 1e-9) && t > best)
      best = t;
  }
  return best;
}

/* Where a drawn value lies along the value axis, from 0 (its start) to 1. */
static double
axis_at(const Svg *s, double v)
{
  if (!s->log)
    return (v - s->v_lo) / (s->v_hi - s->v_lo);
  if (!(v > 0))
    return 0;
  return (log10(v) - log10(s->v_lo)) / (log10(s->v_hi) - log10(s->v_lo));
}

static void
value_range(Svg *s, double lo, double hi)
{
  const LbPlot *p = s->plot;
  s->factor = 1;
  const char *unit = NULL;
  if (p->seconds) {
    double top = MAX(fabs(lo), fabs(hi));
    if (top >= 1 || top == 0) {
      unit = "s";
    } else if (top >= 1e-3) {
      s->factor = 1e3;
      unit = "ms";
    } else {
      s->factor = 1e6;
      unit = "\xc2\xb5s";
    }
  }
  s->unit = unit;
  s->value_label = g_strdup_printf("%s%s%s%s%s", p->value_label, unit != NULL ? " (" : "",
                                   unit != NULL ? unit : "", unit != NULL ? ")" : "",
                                   s->log   ? ", log scale"
                                   : s->cut ? "; the longest bar is cut"
                                            : "");
  lo *= s->factor;
  hi *= s->factor;
  double floor_v = p->floor * s->factor;
  if (s->log) {
    s->v_step = 0;
    s->v_lo = floor_v > 0 && lo >= floor_v ? floor_v : log_nice(lo, FALSE);
    s->v_hi = MAX(log_nice(hi, TRUE), s->v_lo * 2);
    return;
  }
  gboolean from_floor = lo >= floor_v;
  double base = from_floor ? floor_v : lo;
  double span = hi - base > 0 ? hi - base : fabs(hi) > 0 ? fabs(hi) : 1;
  s->v_step = lb_figure_nice_step(span, 6, FALSE);
  s->v_lo = from_floor ? floor_v : floor(lo / s->v_step + 1e-9) * s->v_step;
  s->v_hi = ceil(hi / s->v_step - 1e-9) * s->v_step;
  if (s->v_hi <= s->v_lo + s->v_step * 1e-6)
    s->v_hi = s->v_lo + s->v_step;
}

/* Every value the plot draws, in its units. */
static void
value_extent(const LbPlot *p, double *lo, double *hi)
{
  *lo = G_MAXDOUBLE;
  *hi = -G_MAXDOUBLE;
  for (guint i = 0; i < p->series->len; i++) {
    const Series *se = p->series->pdata[i];
    for (guint l = 0; l < se->lines->len; l++) {
      const Line *line = se->lines->pdata[l];
      for (guint k = 0; k < line->y->len; k++) {
        *lo = MIN(*lo, g_array_index(line->y, double, k));
        *hi = MAX(*hi, g_array_index(line->y, double, k));
      }
      for (guint b = 0; b < line->nbands; b++)
        for (guint k = 0; k < line->y->len; k++) {
          *lo = MIN(*lo, g_array_index(line->lo[b], double, k));
          *hi = MAX(*hi, g_array_index(line->hi[b], double, k));
        }
    }
    double sum = 0; /* a bar reaches the sum of its segments */
    for (guint k = 0; k < se->values->len; k++)
      sum += g_array_index(se->values, double, k);
    if (se->values->len > 0) {
      *lo = MIN(*lo, MIN(sum, 0));
      *hi = MAX(*hi, sum);
    }
    if (isfinite(se->mark)) {
      *lo = MIN(*lo, MIN(se->mark, 0));
      *hi = MAX(*hi, se->mark);
    }
  }
  if (*lo > *hi)
    *lo = *hi = p->floor;
}

/* Bars: the second longest (with its mark), or 0. */
static double
second_longest(const LbPlot *p)
{
  double first = 0, second = 0;
  for (guint i = 0; i < p->series->len; i++) {
    const Series *se = p->series->pdata[i];
    double sum = 0;
    for (guint k = 0; k < se->values->len; k++)
      sum += g_array_index(se->values, double, k);
    if (isfinite(se->mark))
      sum = MAX(sum, se->mark);
    if (sum > first) {
      second = first;
      first = sum;
    } else {
      second = MAX(second, sum);
    }
  }
  return second;
}

/* The smallest positive value of the lines, or infinity. */
static double
smallest_positive(const LbPlot *p)
{
  double v = INFINITY;
  for (guint i = 0; i < p->series->len; i++) {
    const Series *se = p->series->pdata[i];
    for (guint l = 0; l < se->lines->len; l++) {
      const Line *line = se->lines->pdata[l];
      for (guint k = 0; k < line->y->len; k++)
        if (g_array_index(line->y, double, k) > 0)
          v = MIN(v, g_array_index(line->y, double, k));
    }
  }
  return v;
}

/* A value axis has a few ticks; more means the numbers are beyond what
 * an axis can show. */
#define MAX_TICKS 64

/* A log axis' ticks: its start, then the powers of ten in it, or with
 * 2 and 5 times them, or finer still, the first of these with four ticks
 * or more. */
static GArray *
log_ticks(const Svg *s)
{
  static const double sets[][6] = {{1}, {1, 2, 5}, {1, 1.5, 2, 3, 5, 7}};
  static const guint sizes[] = {1, 3, 6};
  GArray *ticks = NULL;
  for (guint k = 0; k < G_N_ELEMENTS(sizes) && (ticks == NULL || ticks->len < 4); k++) {
    if (ticks != NULL)
      g_array_unref(ticks);
    ticks = g_array_new(FALSE, FALSE, sizeof(double));
    g_array_append_val(ticks, s->v_lo);
    for (int e = (int)floor(log10(s->v_lo)); e <= (int)ceil(log10(s->v_hi)); e++)
      for (guint m = 0; m < sizes[k] && ticks->len < MAX_TICKS; m++) {
        double v = sets[k][m] * pow(10, e);
        if (v > s->v_lo * (1 + 1e-9) && v <= s->v_hi * (1 + 1e-9))
          g_array_append_val(ticks, v);
      }
  }
  return ticks;
}

static char *
tick_label(const Svg *s, double v)
{
  if (!s->log)
    return lb_figure_format_tick(v, s->v_step);
  char buf[G_ASCII_DTOSTR_BUF_SIZE];
  return g_strdup(g_ascii_formatd(buf, sizeof buf, "%g", v));
}

/* The value axis' ticks: its start (the floor, 1 for an imbalance, is
 * worth a tick) and the multiples of the step above it. */
static GArray *
value_ticks(const Svg *s)
{
  if (s->log)
    return log_ticks(s);
  GArray *ticks = g_array_new(FALSE, FALSE, sizeof(double));
  g_array_append_val(ticks, s->v_lo);
  double v = ceil(s->v_lo / s->v_step - 1e-9) * s->v_step;
  if (v - s->v_lo < 0.4 * s->v_step)
    v += s->v_step;
  /* counted from the first tick, and at most MAX_TICKS: near the largest
   * doubles v + step is v again */
  for (guint i = 0; i < MAX_TICKS; i++) {
    double t = v + i * s->v_step;
    if (!(t <= s->v_hi + s->v_step * 1e-6))
      break;
    g_array_append_val(ticks, t);
  }
  return ticks;
}

/* The widest tick label of the value axis. */
static double
value_ticks_width(Svg *s)
{
  double w = 0;
  g_autoptr(GArray) ticks = value_ticks(s);
  for (guint i = 0; i < ticks->len; i++) {
    g_autofree char *label = tick_label(s, g_array_index(ticks, double, i));
    w = MAX(w, text_width(s->cr, label, s->tick, FALSE));
  }
  return w;
}

/* ---- lines ---- */

static double
x_axis_value(const Svg *s, double x)
{
  return s->plot->scale == LB_PLOT_LOG2 ? log2(x) : x;
}

static double
px_x(const Svg *s, double x)
{
  return s->left + (s->right - s->left) * (x_axis_value(s, x) - s->x_lo) / (s->x_hi - s->x_lo);
}

static double
px_y(const Svg *s, double v)
{
  return s->bottom - (s->bottom - s->top) * axis_at(s, v * s->factor);
}

static void
x_range(Svg *s)
{
  const LbPlot *p = s->plot;
  double lo = G_MAXDOUBLE, hi = -G_MAXDOUBLE;
  for (guint i = 0; i < p->series->len; i++) {
    const Series *se = p->series->pdata[i];
    for (guint l = 0; l < se->lines->len; l++) {
      const Line *line = se->lines->pdata[l];
      for (guint k = 0; k < line->x->len; k++) {
        double x = x_axis_value(s, g_array_index(line->x, double, k));
        lo = MIN(lo, x);
        hi = MAX(hi, x);
      }
    }
  }
  if (p->scale == LB_PLOT_CATEGORIES) {
    lo = -0.5;
    hi = MAX(p->categories->len, 1) - 0.5;
  } else if (lo > hi) {
    lo = 0;
    hi = 1;
  } else if (lo == hi) {
    lo -= 0.5;
    hi += 0.5;
  } else {
    double pad = (hi - lo) * 0.03;
    lo -= pad;
    hi += pad;
  }
  s->x_lo = lo;
  s->x_hi = hi;
}

/* The ticks of the x axis: where (pixels) and their labels. */
static void
x_ticks(Svg *s, GArray *at, GPtrArray *labels)
{
  const LbPlot *p = s->plot;
  if (p->scale == LB_PLOT_CATEGORIES) {
    for (guint i = 0; i < p->categories->len; i++) {
      double x = s->left + (s->right - s->left) * (i - s->x_lo) / (s->x_hi - s->x_lo);
      g_array_append_val(at, x);
      g_ptr_array_add(labels, g_strdup(p->categories->pdata[i]));
    }
  } else if (p->scale == LB_PLOT_LOG2) {
    double first = ceil(s->x_lo - 1e-9), last = floor(s->x_hi + 1e-9);
    double every = MAX(1, ceil((last - first + 1) / 9));
    for (double e = first; e <= last; e += every) {
      double v = exp2(e), x = px_x(s, v);
      g_array_append_val(at, x);
      g_ptr_array_add(labels, v >= 1 ? g_strdup_printf("%.0f", v) : g_strdup_printf("%g", v));
    }
  } else {
    /* about one tick per five labels' widths */
    guint count = (guint)CLAMP((s->right - s->left) / (5 * s->tick), 3, 9);
    double step = lb_figure_nice_step(s->x_hi - s->x_lo, count, p->scale == LB_PLOT_INTEGER);
    for (double v = ceil(s->x_lo / step - 1e-9) * step; v <= s->x_hi + 1e-9; v += step) {
      double x = px_x(s, v);
      g_array_append_val(at, x);
      g_ptr_array_add(labels, lb_figure_format_tick(v, step));
    }
  }
}

/* A marker of radius r centred on (x, y), as path data. */
static void
put_marker(GString *out, LbMarker marker, double x, double y, double r)
{
  switch (marker) {
  case LB_MARKER_SQUARE: /* square */
    g_string_append(out, "M");
    put_px(out, x - r);
    g_string_append_c(out, ',');
    put_px(out, y - r);
    g_string_append_printf(out, " h%.2f v%.2f h%.2f Z ", 2 * r, 2 * r, -2 * r);
    break;
  case LB_MARKER_TRIANGLE:      /* triangle, point up */
  case LB_MARKER_TRIANGLE_DOWN: /* point down */
  {
    double d = marker == LB_MARKER_TRIANGLE ? 1 : -1, h = r * 1.2;
    g_string_append(out, "M");
    put_px(out, x);
    g_string_append_c(out, ',');
    put_px(out, y - d * h);
    g_string_append(out, " L");
    put_px(out, x + h);
    g_string_append_c(out, ',');
    put_px(out, y + d * h * 0.8);
    g_string_append(out, " L");
    put_px(out, x - h);
    g_string_append_c(out, ',');
    put_px(out, y + d * h * 0.8);
    g_string_append(out, " Z ");
    break;
  }
  case LB_MARKER_DIAMOND: /* diamond */
    g_string_append(out, "M");
    put_px(out, x);
    g_string_append_c(out, ',');
    put_px(out, y - r * 1.3);
    g_string_append_printf(out, " l%.2f,%.2f l%.2f,%.2f l%.2f,%.2f Z ", r * 1.3, r * 1.3, -r * 1.3,
                           r * 1.3, -r * 1.3, -r * 1.3);
    break;
  case LB_MARKER_PLUS: /* plus */
  {
    double a = r * 1.3, b = r * 0.45;
    g_string_append(out, "M");
    put_px(out, x - b);
    g_string_append_c(out, ',');
    put_px(out, y - a);
    g_string_append_printf(
        out, " h%.2f v%.2f h%.2f v%.2f h%.2f v%.2f h%.2f v%.2f h%.2f v%.2f h%.2f Z ", 2 * b, a - b,
        a - b, 2 * b, b - a, a - b, -2 * b, b - a, b - a, -2 * b, a - b);
    break;
  }
  default: /* circle */
    g_string_append(out, "M");
    put_px(out, x - r);
    g_string_append_c(out, ',');
    put_px(out, y);
    g_string_append_printf(out, " a%.2f,%.2f 0 1,0 %.2f,0 a%.2f,%.2f 0 1,0 %.2f,0 Z ", r, r, 2 * r,
                           r, r, -2 * r);
  }
}

/* A dash array scaled by k. */
static void
put_dash_array(GString *out, const char *dash, double k)
{
  g_auto(GStrv) parts = g_strsplit(dash, " ", -1);
  g_string_append(out, " stroke-dasharray=\"");
  for (guint i = 0; parts[i] != NULL; i++) {
    if (i > 0)
      g_string_append_c(out, ' ');
    put_px(out, g_ascii_strtod(parts[i], NULL) * k);
  }
  g_string_append_c(out, '"');
}

/* A line's dash: its style's, the series' own for the solid style. */
static void
put_dash(GString *out, guint style, guint series, double k)
{
  const char *dash = style % NSTYLES == 0 ? series_dash(series) : dashes[style % NSTYLES];
  if (dash != NULL)
    put_dash_array(out, dash, k);
}

static void
put_numbers(GString *out, const char *attribute, const GArray *values)
{
  g_string_append_printf(out, " %s=\"", attribute);
  for (guint k = 0; k < values->len; k++) {
    if (k > 0)
      g_string_append_c(out, ' ');
    put_number(out, g_array_index(values, double, k));
  }
  g_string_append_c(out, '"');
}

/* A band: the area between its low and high values, translucent, or an
 * error bar with caps at each point. */
static void
draw_band(Svg *s, const Line *line, guint b, guint32 colour)
{
  GString *out = s->out;
  gboolean bars = line->band_kind[b] == LB_PLOT_BAND_BARS;
  g_string_append_printf(out, "<path class=\"%s\" data-band=\"%u\"", bars ? "bars" : "band", b);
  put_numbers(out, "data-x", line->x);
  put_numbers(out, "data-low", line->lo[b]);
  put_numbers(out, "data-high", line->hi[b]);
  g_string_append(out, " d=\"");
  guint n = line->x->len;
  if (bars) {
    double cap = 4 * s->k;
    for (guint k = 0; k < n; k++) {
      double x = px_x(s, g_array_index(line->x, double, k));
      double y0 = px_y(s, g_array_index(line->lo[b], double, k));
      double y1 = px_y(s, g_array_index(line->hi[b], double, k));
      put_segment(out, x, y0, x, y1);
      put_segment(out, x - cap, y0, x + cap, y0);
      put_segment(out, x - cap, y1, x + cap, y1);
    }
    g_string_append(out, "\" fill=\"none\" stroke=\"");
    put_colour(out, colour);
    g_string_append(out, "\" stroke-width=\"");
    put_px(out, 1.5 * s->k);
    g_string_append(out, "\"/>\n");
    return;
  }
  for (guint k = 0; k < 2 * n; k++) {
    guint i = k < n ? k : 2 * n - 1 - k;
    const GArray *v = k < n ? line->hi[b] : line->lo[b];
    g_string_append(out, k == 0 ? "M" : " L");
    put_px(out, px_x(s, g_array_index(line->x, double, i)));
    g_string_append_c(out, ',');
    put_px(out, px_y(s, g_array_index(v, double, i)));
  }
  g_string_append(out, " Z\" fill=\"");
  put_colour(out, colour);
  g_string_append(out, "\" fill-opacity=\"0.18\" stroke=\"none\"/>\n");
}

/* A polyline through the points as path data. */
static void
put_polyline(Svg *s, const GArray *x, const GArray *y)
{
  for (guint k = 0; k < x->len; k++) {
    g_string_append(s->out, k == 0 ? "M" : " L");
    put_px(s->out, px_x(s, g_array_index(x, double, k)));
    g_string_append_c(s->out, ',');
    put_px(s->out, px_y(s, g_array_index(y, double, k)));
  }
}

/* Markers on a line: on every point up to MARKERS_MAX, else on every
 * k-th, started apart from series to series, so that they name the
 * series without hiding the line. */
static void
draw_line(Svg *s, const Line *line, guint series)
{
  GString *out = s->out;
  guint32 colour = series_colour(series);
  for (guint b = 0; b < line->nbands; b++)
    if (line->band_kind[b] == LB_PLOT_BAND_AREA)
      draw_band(s, line, b, colour);
  g_string_append_printf(out, "<path class=\"line\" data-style=\"%u\"", line->style);
  put_numbers(out, "data-x", line->x);
  put_numbers(out, "data-y", line->y);
  g_string_append(out, " d=\"");
  put_polyline(s, line->x, line->y);
  g_string_append(out, "\" fill=\"none\" stroke=\"");
  put_colour(out, colour);
  g_string_append(out, "\" stroke-width=\"");
  put_px(out, LINE_WIDTH * s->k);
  g_string_append(out, "\" stroke-linejoin=\"round\"");
  put_dash(out, line->style, series, s->k);
  g_string_append(out, "/>\n");
  for (guint b = 0; b < line->nbands; b++)
    if (line->band_kind[b] == LB_PLOT_BAND_BARS)
      draw_band(s, line, b, colour);
  if (line->x->len == 0)
    return;
  guint every = (line->x->len + MARKERS_MAX - 1) / MARKERS_MAX;
  g_string_append(out, "<path class=\"markers\" d=\"");
  for (guint k = every > 1 ? series * 3 % every : 0; k < line->x->len; k += every)
    put_marker(out, series_marker(series), px_x(s, g_array_index(line->x, double, k)),
               px_y(s, g_array_index(line->y, double, k)), MARKER_R * s->k);
  g_string_append(out, "\" fill=\"");
  put_colour(out, colour);
  g_string_append(out, "\" stroke=\"#ffffff\" stroke-width=\"");
  put_px(out, s->k);
  g_string_append(out, "\"/>\n");
}

/* The references' look: thin, grey, dotted, under the series. */
#define REFERENCE_COLOUR 0x707070
#define REFERENCE_DASH "2 3"

static void
draw_references(Svg *s)
{
  const LbPlot *p = s->plot;
  for (guint i = 0; i < p->references->len; i++) {
    const Reference *r = p->references->pdata[i];
    g_autofree char *label = g_markup_escape_text(r->label, -1);
    g_autofree char *id = g_markup_escape_text(p->id, -1);
    g_string_append_printf(s->out,
                           "<g class=\"reference\" data-reference=\"%s\" "
                           "clip-path=\"url(#%s-clip)\">\n<path class=\"line\"",
                           label, id);
    put_numbers(s->out, "data-x", r->x);
    put_numbers(s->out, "data-y", r->y);
    g_string_append(s->out, " d=\"");
    put_polyline(s, r->x, r->y);
    g_string_append(s->out, "\" fill=\"none\" stroke=\"");
    put_colour(s->out, REFERENCE_COLOUR);
    g_string_append(s->out, "\" stroke-width=\"");
    put_px(s->out, 1.5 * s->k);
    g_string_append(s->out, "\"");
    put_dash_array(s->out, REFERENCE_DASH, s->k);
    g_string_append(s->out, "/>\n</g>\n");
  }
}

/* A series' style, for scripts: data-colour, data-marker, data-dash. */
static void
put_style(GString *out, guint series)
{
  g_string_append(out, " data-colour=\"");
  put_colour(out, series_colour(series));
  const char *dash = series_dash(series);
  g_string_append_printf(out, "\" data-marker=\"%s\" data-dash=\"%s\"",
                         lb_style_marker_name(series_marker(series)),
                         dash != NULL ? dash : "solid");
}

static void
tick_labels_start(Svg *s)
{
  g_string_append(s->out, "<g class=\"tick-labels\" font-size=\"");
  put_px(s->out, s->tick);
  g_string_append(s->out, "\" fill=\"#404040\">\n");
}

static void
value_grid(Svg *s, gboolean vertical)
{
  g_autoptr(GString) grid = g_string_new(NULL), ticks = g_string_new(NULL);
  g_autoptr(GArray) at = value_ticks(s);
  double tick = 5 * s->k;
  for (guint i = 0; i < at->len; i++) {
    double v = g_array_index(at, double, i);
    if (vertical) {
      double x = round(s->left + (s->right - s->left) * axis_at(s, v)) + 0.5;
      put_segment(grid, x, s->top, x, s->bottom);
      put_segment(ticks, x, s->bottom, x, s->bottom + tick);
    } else {
      double y = round(s->bottom - (s->bottom - s->top) * axis_at(s, v)) + 0.5;
      put_segment(grid, s->left, y, s->right, y);
      put_segment(ticks, s->left - tick, y, s->left, y);
    }
  }
  g_string_append_printf(s->out, "<path class=\"grid\" d=\"%s\" stroke=\"#e4e4e4\"", grid->str);
  g_string_append(s->out, " stroke-width=\"");
  put_px(s->out, MIN(s->k, 1));
  g_string_append(s->out, "\"/>\n");
  g_string_append_printf(s->out, "<path class=\"ticks\" d=\"%s\" stroke=\"#404040\"", ticks->str);
  g_string_append(s->out, " stroke-width=\"");
  put_px(s->out, MIN(s->k, 1));
  g_string_append(s->out, "\"/>\n");
  tick_labels_start(s);
  for (guint i = 0; i < at->len; i++) {
    double v = g_array_index(at, double, i);
    g_autofree char *label = tick_label(s, v);
    if (vertical)
      put_text(s, round(s->left + (s->right - s->left) * axis_at(s, v)),
               s->bottom + tick + 0.95 * s->tick, "middle", NULL, label);
    else
      put_text(s, s->left - tick - 3 * s->k,
               round(s->bottom - (s->bottom - s->top) * axis_at(s, v)) + 0.35 * s->tick, "end",
               NULL, label);
  }
  g_string_append(s->out, "</g>\n");
}

static void
frame(Svg *s)
{
  g_string_append(s->out, "<rect class=\"frame\" x=\"");
  put_px(s->out, s->left - 0.5);
  g_string_append(s->out, "\" y=\"");
  put_px(s->out, s->top - 0.5);
  g_string_append(s->out, "\" width=\"");
  put_px(s->out, s->right - s->left + 1);
  g_string_append(s->out, "\" height=\"");
  put_px(s->out, s->bottom - s->top + 1);
  g_string_append(s->out, "\" fill=\"none\" stroke=\"#404040\" stroke-width=\"");
  put_px(s->out, MIN(s->k, 1));
  g_string_append(s->out, "\"/>\n");
}

/* A series' name in the legend, its note after it. */
static char *
legend_text(const Series *se)
{
  return se->note != NULL ? g_strdup_printf("%s  %s", se->name, se->note) : g_strdup(se->name);
}

/* The legend's entries: each series, each reference, then each labelled
 * line style; their widths, swatch and gap included. */
typedef struct {
  guint kind; /* 0 a series, 1 a reference, 2 a line style */
  guint index;
  char *text;
  double width;
} Entry;

static void
entry_clear(gpointer data)
{
  g_free(((Entry *)data)->text);
}

static GArray *
legend_entries(Svg *s)
{
  const LbPlot *p = s->plot;
  GArray *entries = g_array_new(FALSE, FALSE, sizeof(Entry));
  g_array_set_clear_func(entries, entry_clear);
  double swatch = 36 * s->k;
  for (guint i = 0; i < p->series->len; i++) {
    Entry e = {0, i, legend_text(p->series->pdata[i]), 0};
    e.width = swatch + text_width(s->cr, e.text, s->font, TRUE);
    g_array_append_val(entries, e);
  }
  for (guint i = 0; i < p->references->len; i++) {
    Entry e = {1, i, g_strdup(((Reference *)p->references->pdata[i])->label), 0};
    e.width = swatch + text_width(s->cr, e.text, s->font, FALSE);
    g_array_append_val(entries, e);
  }
  for (guint i = 0; i < p->style_labels->len; i++) {
    if (p->style_labels->pdata[i] == NULL)
      continue;
    Entry e = {2, i, g_strdup(p->style_labels->pdata[i]), 0};
    e.width = swatch + text_width(s->cr, e.text, s->font, FALSE);
    g_array_append_val(entries, e);
  }
  return entries;
}

static double
legend_width(Svg *s)
{
  const LbPlot *p = s->plot;
  double w = 0;
  for (guint i = 0; i < p->series->len; i++) {
    g_autofree char *text = legend_text(p->series->pdata[i]);
    w = MAX(w, text_width(s->cr, text, s->font, TRUE));
  }
  for (guint i = 0; i < p->references->len; i++)
    w = MAX(w, text_width(s->cr, ((Reference *)p->references->pdata[i])->label, s->font, FALSE));
  for (guint i = 0; i < p->style_labels->len; i++)
    if (p->style_labels->pdata[i] != NULL)
      w = MAX(w, text_width(s->cr, p->style_labels->pdata[i], s->font, FALSE));
  for (guint i = 0; i < p->segment_names->len; i++)
    w = MAX(w, text_width(s->cr, p->segment_names->pdata[i], s->font, FALSE));
  return MIN(w + 44 * s->k, LEGEND_MAX * s->k);
}

/* The swatch of an entry, a line 28 long from (x, y). */
static void
entry_swatch(Svg *s, const Entry *e, double x, double y)
{
  GString *out = s->out;
  double k = s->k;
  g_string_append(out, "<path d=\"");
  put_segment(out, x, y, x + 28 * k, y);
  if (e->kind == 0) {
    const Series *se = s->plot->series->pdata[e->index];
    guint32 colour = series_colour(se->style);
    g_string_append(out, "\" stroke=\"");
    put_colour(out, colour);
    g_string_append(out, "\" stroke-width=\"");
    put_px(out, LINE_WIDTH * k);
    g_string_append(out, "\"");
    put_dash(out, 0, se->style, k);
    g_string_append(out, "/>\n<path d=\"");
    put_marker(out, series_marker(se->style), x + 14 * k, y, MARKER_R * k);
    g_string_append(out, "\" fill=\"");
    put_colour(out, colour);
    g_string_append(out, "\" stroke=\"#ffffff\" stroke-width=\"");
    put_px(out, k);
    g_string_append(out, "\"/>\n");
    return;
  }
  g_string_append(out, "\" stroke=\"");
  put_colour(out, e->kind == 1 ? REFERENCE_COLOUR : 0x505050);
  g_string_append(out, "\" stroke-width=\"");
  put_px(out, (e->kind == 1 ? 1.5 : 2) * k);
  g_string_append(out, "\"");
  if (e->kind == 1)
    put_dash_array(out, REFERENCE_DASH, k);
  else
    put_dash(out, e->index, 0, k);
  g_string_append(out, "/>\n");
}

/* The legend: right of the plot, an entry a row from (x, y), the line
 * styles after a gap; or under it, entries side by side in rows as wide
 * as the chart. Its height is returned. */
static double
lines_legend(Svg *s, double x, double y, gboolean draw)
{
  GString *out = s->out;
  double k = s->k, y0 = y, row = LEGEND_ROW * k, x0 = x;
  g_autoptr(GArray) entries = legend_entries(s);
  if (draw) {
    g_string_append(out, "<g class=\"legend\" font-size=\"");
    put_px(out, s->font);
    g_string_append(out, "\">\n");
  }
  guint last = 0;
  for (guint i = 0; i < entries->len; i++) {
    const Entry *e = &g_array_index(entries, Entry, i);
    if (s->legend_below) {
      if (x > x0 && x + e->width > s->width - 12 * k) {
        x = x0;
        y += row;
      }
    } else if (i > 0) {
      y += row + (e->kind == 2 && last != 2 ? 10 * k : 0);
    }
    last = e->kind;
    if (draw) {
      entry_swatch(s, e, x, y);
      put_text(s, x + 36 * k, y + 0.35 * s->font, "start",
               e->kind == 0 ? "font-weight=\"bold\" fill=\"#202020\"" : "fill=\"#404040\"",
               e->text);
    }
    if (s->legend_below)
      x += e->width + 16 * k;
  }
  if (draw)
    g_string_append(out, "</g>\n");
  return entries->len > 0 ? y - y0 + row : 0;
}

/* Lines: the layout (right of the plot the legend, or under it when it
 * would leave the plot too narrow), then the grid, the axes, the series
 * and the legend. */
static void
draw_lines(Svg *s)
{
  const LbPlot *p = s->plot;
  GString *out = s->out;
  double k = s->k;
  double legend = legend_width(s);
  s->left = 30 * k + value_ticks_width(s) + 14 * k;
  double beside = s->width - 24 * k - legend;
  s->legend_below = beside - s->left < PLOT_SHARE * (s->width - s->left);
  s->right = s->legend_below ? s->width - 16 * k : beside;
  double below = 56 * k; /* the tick labels and the x axis' name */
  double legend_height = 0;
  if (s->legend_below) {
    s->height = 0;
    legend_height = lines_legend(s, 12 * k, 0, FALSE) + 8 * k;
  }
  double frame_h = p->height > 0 ? p->height - s->top - below - legend_height
                                 : MIN(FRAME_HEIGHT * k, 0.62 * (s->right - s->left));
  s->bottom = s->top + MAX(frame_h, 6 * s->font);
  s->height = s->bottom + below + legend_height;
  if (!s->legend_below) /* a long legend makes the chart taller, never leaves it */
    s->height = MAX(s->height, s->top + 8 * k + lines_legend(s, 0, 0, FALSE) + 16 * k);
  x_range(s);

  value_grid(s, FALSE);
  g_autoptr(GArray) at = g_array_new(FALSE, FALSE, sizeof(double));
  g_autoptr(GPtrArray) labels = g_ptr_array_new_with_free_func(g_free);
  x_ticks(s, at, labels);
  double tick = 5 * k;
  g_string_append(out, "<path class=\"ticks\" d=\"");
  for (guint i = 0; i < at->len; i++) {
    double x = round(g_array_index(at, double, i)) + 0.5;
    put_segment(out, x, s->bottom, x, s->bottom + tick);
  }
  g_string_append(out, "\" stroke=\"#404040\" stroke-width=\"");
  put_px(out, MIN(k, 1));
  g_string_append(out, "\"/>\n");
  tick_labels_start(s);
  for (guint i = 0; i < at->len; i++)
    put_text(s, round(g_array_index(at, double, i)), s->bottom + tick + 0.95 * s->tick, "middle",
             NULL, labels->pdata[i]);
  g_string_append(out, "</g>\n");
  frame(s);
  put_text(s, (s->left + s->right) / 2, s->bottom + 42 * k, "middle",
           "font-weight=\"bold\" fill=\"#202020\"", p->x_label);
  double ax = 18 * k, ay = (s->top + s->bottom) / 2;
  g_autoptr(GString) rotate = g_string_new("font-weight=\"bold\" fill=\"#202020\" "
                                           "transform=\"rotate(-90 ");
  put_px(rotate, ax);
  g_string_append_c(rotate, ' ');
  put_px(rotate, ay);
  g_string_append(rotate, ")\"");
  put_text(s, ax, ay, "middle", rotate->str, s->value_label);

  g_string_append_printf(out, "<clipPath id=\"%s-clip\"><rect x=\"", p->id);
  put_px(out, s->left - 6 * k);
  g_string_append(out, "\" y=\"");
  put_px(out, s->top - 6 * k);
  g_string_append(out, "\" width=\"");
  put_px(out, s->right - s->left + 12 * k);
  g_string_append(out, "\" height=\"");
  put_px(out, s->bottom - s->top + 12 * k);
  g_string_append(out, "\"/></clipPath>\n");
  draw_references(s);
  for (guint i = 0; i < p->series->len; i++) {
    const Series *se = p->series->pdata[i];
    g_autofree char *name = g_markup_escape_text(se->name, -1);
    g_string_append_printf(out, "<g class=\"series\" data-series=\"%s\"", name);
    put_style(out, se->style);
    g_string_append_printf(out, " clip-path=\"url(#%s-clip)\">\n", p->id);
    for (guint l = 0; l < se->lines->len; l++)
      draw_line(s, se->lines->pdata[l], se->style);
    g_string_append(out, "</g>\n");
  }
  if (s->legend_below)
    lines_legend(s, 12 * k, s->bottom + below + 4 * k + 0.5 * s->font, TRUE);
  else
    lines_legend(s, s->right + 20 * k, s->top + 8 * k, TRUE);
}

/* ---- bars ---- */

/* The fill (index) of a segment name: its key's, or after the keys in
 * the order the names came. */
static guint
fill_of(const LbPlot *p, const char *name)
{
  guint k = 0;
  if (g_ptr_array_find_with_equal_func(p->segment_keys, name, g_str_equal, &k))
    return k;
  guint other = 0;
  for (guint c = 0; c < p->segment_names->len; c++) {
    const char *seen = p->segment_names->pdata[c];
    if (strcmp(seen, name) == 0)
      break;
    if (!g_ptr_array_find_with_equal_func(p->segment_keys, seen, g_str_equal, NULL))
      other++;
  }
  return p->segment_keys->len + other;
}

/* The fill of index c: a colour, or past the colours a pattern of one
 * defined by segment_patterns. */
static void
put_fill(GString *out, const LbPlot *p, guint c)
{
  c %= SEGMENT_FILLS;
  if (c < G_N_ELEMENTS(segment_colours)) {
    put_colour(out, segment_colour(c));
    return;
  }
  g_autofree char *id = g_markup_escape_text(p->id, -1);
  g_string_append_printf(out, "url(#%s-fill-%u)", id, c);
}

/* The hatched and dotted fills the chart's segment names need. */
static void
segment_patterns(Svg *s)
{
  const LbPlot *p = s->plot;
  gboolean used[SEGMENT_FILLS] = {FALSE}, any = FALSE;
  for (guint i = 0; i < p->segment_names->len; i++) {
    guint c = fill_of(p, p->segment_names->pdata[i]) % SEGMENT_FILLS;
    used[c] = TRUE;
    any = any || c >= G_N_ELEMENTS(segment_colours);
  }
  if (!any)
    return;
  g_autofree char *id = g_markup_escape_text(p->id, -1);
  g_string_append(s->out, "<defs>\n");
  for (guint c = G_N_ELEMENTS(segment_colours); c < SEGMENT_FILLS; c++) {
    if (!used[c])
      continue;
    gboolean hatched = c < 2 * G_N_ELEMENTS(segment_colours);
    g_string_append_printf(s->out,
                           "<pattern id=\"%s-fill-%u\" patternUnits=\"userSpaceOnUse\" "
                           "width=\"6\" height=\"6\"%s><rect width=\"6\" height=\"6\" fill=\"",
                           id, c, hatched ? " patternTransform=\"rotate(45)\"" : "");
    put_colour(s->out, segment_colour(c));
    g_string_append(s->out, hatched ? "\"/><rect width=\"2.5\" height=\"6\" fill=\"#ffffff\" "
                                      "fill-opacity=\"0.7\"/></pattern>\n"
                                    : "\"/><circle cx=\"3\" cy=\"3\" r=\"1.4\" fill=\"#ffffff\" "
                                      "fill-opacity=\"0.8\"/></pattern>\n");
  }
  g_string_append(s->out, "</defs>\n");
}

/* A bar's end at v; past the axis (the longest bar, cut) just right of
 * the frame. */
static double
bar_x(const Svg *s, double v)
{
  return s->left + (s->right - s->left) * MIN(axis_at(s, v * s->factor), 1.03);
}

static void
put_mark_line(Svg *s, double x, double y0, double y1)
{
  g_string_append(s->out, "<path class=\"mark\" d=\"");
  put_segment(s->out, x, y0, x, y1);
  g_string_append(s->out, "\" stroke=\"#202020\" stroke-width=\"");
  put_px(s->out, 2.5 * s->k);
  g_string_append_c(s->out, '"');
}

/* A value as the bars' ends write it: four digits, a time in the unit
 * that suits it (a cut bar's may be far beyond the axis' unit). */
static char *
amount(const Svg *s, double v)
{
  char buf[G_ASCII_DTOSTR_BUF_SIZE];
  if (!s->plot->seconds)
    return g_strdup(g_ascii_formatd(buf, sizeof buf, "%.4g", v));
  double factor = fabs(v) >= 1 || v == 0 ? 1 : fabs(v) >= 1e-3 ? 1e3 : 1e6;
  return g_strdup_printf("%s\xc2\xa0%s", g_ascii_formatd(buf, sizeof buf, "%.4g", v * factor),
                         factor == 1     ? "s"
                         : factor == 1e3 ? "ms"
                                         : "\xc2\xb5s");
}

static void
draw_bars(Svg *s)
{
  const LbPlot *p = s->plot;
  GString *out = s->out;
  double k = s->k, bar = BAR_HEIGHT * k, gap = BAR_GAP * k;
  double names = 0;
  for (guint i = 0; i < p->series->len; i++)
    names = MAX(names, text_width(s->cr, ((Series *)p->series->pdata[i])->name, s->font, TRUE));
  double legend = legend_width(s);
  if (p->mark_label != NULL)
    legend =
        MAX(legend, MIN(text_width(s->cr, p->mark_label, s->font, FALSE) + 44 * k, LEGEND_MAX * k));
  s->left = 16 * k + names + 28 * k; /* the name, then its series' marker */
  double totals = 70 * k;            /* room for the totals after the longest bar */
  double beside = s->width - 24 * k - legend - totals;
  s->legend_below = beside - s->left < PLOT_SHARE * (s->width - s->left);
  s->right = s->legend_below ? s->width - 12 * k - totals : beside;
  s->bottom = s->top + p->series->len * (bar + gap) + gap;

  segment_patterns(s);
  value_grid(s, TRUE);
  frame(s);
  put_text(s, (s->left + s->right) / 2, s->bottom + 42 * k, "middle",
           "font-weight=\"bold\" fill=\"#202020\"", s->value_label);
  for (guint i = 0; i < p->series->len; i++) {
    const Series *se = p->series->pdata[i];
    double y = s->top + gap + i * (bar + gap);
    put_text(s, s->left - 26 * k, y + bar / 2 + 0.35 * s->font, "end",
             "font-weight=\"bold\" fill=\"#202020\"", se->name);
    g_autofree char *name = g_markup_escape_text(se->name, -1);
    g_string_append_printf(out, "<g class=\"series\" data-series=\"%s\"", name);
    put_style(out, se->style);
    g_string_append(out, ">\n<path class=\"marker\" d=\"");
    put_marker(out, series_marker(se->style), s->left - 14 * k, y + bar / 2, MARKER_R * k);
    g_string_append(out, "\" fill=\"");
    put_colour(out, series_colour(se->style));
    g_string_append(out, "\"/>\n");
    double sum = 0;
    for (guint c = 0; c < se->values->len; c++) {
      double v = g_array_index(se->values, double, c);
      double x0 = bar_x(s, sum);
      sum += v;
      double x1 = bar_x(s, sum);
      guint colour = fill_of(p, se->segments->pdata[c]);
      g_autofree char *segment = g_markup_escape_text(se->segments->pdata[c], -1);
      g_string_append_printf(out, "<rect class=\"segment\" data-segment=\"%s\" data-value=\"",
                             segment);
      put_number(out, v);
      g_string_append(out, "\" x=\"");
      put_px(out, x0);
      g_string_append(out, "\" y=\"");
      put_px(out, y);
      g_string_append(out, "\" width=\"");
      put_px(out, x1 - x0);
      g_string_append(out, "\" height=\"");
      put_px(out, bar);
      g_string_append(out, "\" fill=\"");
      put_fill(out, p, colour);
      g_string_append(out, "\" stroke=\"#ffffff\" stroke-width=\"0.5\"><title>");
      g_autofree char *tip = g_strdup_printf(
          "%s %s: %.6g%s%s", se->name, (const char *)se->segments->pdata[c], v * s->factor,
          s->unit != NULL ? " " : "", s->unit != NULL ? s->unit : "");
      g_autofree char *escaped = g_markup_escape_text(tip, -1);
      g_string_append_printf(out, "%s</title></rect>\n", escaped);
      const char *label = se->segments->pdata[c];
      guint32 rgb = segment_colour(colour);
      double luma = 0.299 * (rgb >> 16) + 0.587 * (rgb >> 8 & 0xff) + 0.114 * (rgb & 0xff);
      /* a halo of the segment's colour keeps the name readable on a pattern */
      g_autoptr(GString) look = g_string_new("font-size=\"");
      put_px(look, s->tick);
      g_string_append_printf(look, "\" fill=\"#%s\" stroke=\"#%06x\" stroke-width=\"",
                             luma < 140 ? "ffffff" : "202020", rgb & 0xffffff);
      put_px(look, 3 * k);
      g_string_append(look, "\" paint-order=\"stroke\"");
      if (text_width(s->cr, label, s->tick, FALSE) + 8 * k <= x1 - x0)
        put_text(s, (x0 + x1) / 2, y + bar / 2 + 0.35 * s->tick, "middle", look->str, label);
    }
    double end = bar_x(s, sum);
    if (sum * s->factor > s->v_hi * (1 + 1e-9)) { /* the break, across the cut bar */
      double at = s->right - 14 * k;
      g_string_append(out, "<path class=\"break\" d=\"");
      for (guint c = 0; c < 2; c++)
        put_segment(out, at + 5 * k * c - 4 * k, y + bar + 3 * k, at + 5 * k * c + 4 * k,
                    y - 3 * k);
      g_string_append(out, "\" stroke=\"#ffffff\" stroke-width=\"");
      put_px(out, 2.5 * k);
      g_string_append(out, "\"/>\n");
    }
    if (isfinite(se->mark)) {
      double at = bar_x(s, se->mark);
      put_mark_line(s, at, y - 4 * k, y + bar + 4 * k);
      g_string_append(out, " data-value=\"");
      put_number(out, se->mark);
      g_autofree char *value = amount(s, se->mark);
      g_autofree char *tip =
          g_strdup_printf("%s %s: %s", se->name, p->mark_label != NULL ? p->mark_label : "", value);
      g_autofree char *escaped = g_markup_escape_text(tip, -1);
      g_string_append_printf(out, "\"><title>%s</title></path>\n", escaped);
      end = MAX(end, at);
    }
    g_autofree char *total = se->values->len == 0 ? g_strdup("no phases") : amount(s, sum);
    put_text(s, end + 6 * k, y + bar / 2 + 0.35 * s->font, "start", "fill=\"#404040\"", total);
    g_string_append(out, "</g>\n");
  }
  /* the segments' fills, then what the marks are: right of the bars, or
   * under them in rows */
  double x0 = s->legend_below ? 12 * k : s->right + 90 * k;
  double x = x0, y = s->legend_below ? s->bottom + 64 * k : s->top + 8 * k;
  double row = 20 * k;
  g_autofree char *id = g_markup_escape_text(p->id, -1);
  g_string_append_printf(out, "<g class=\"legend\" id=\"%s-legend\" font-size=\"", id);
  put_px(out, s->font);
  g_string_append(out, "\">\n");
  for (guint c = 0; c < p->segment_names->len; c++) {
    const char *name = p->segment_names->pdata[c];
    double w = 18 * k + text_width(s->cr, name, s->font, FALSE);
    if (s->legend_below && x > x0 && x + w > s->width - 12 * k) {
      x = x0;
      y += row;
    }
    g_string_append(out, "<rect x=\"");
    put_px(out, x);
    g_string_append(out, "\" y=\"");
    put_px(out, y - 6 * k);
    g_string_append(out, "\" width=\"");
    put_px(out, 12 * k);
    g_string_append(out, "\" height=\"");
    put_px(out, 12 * k);
    g_string_append(out, "\" fill=\"");
    put_fill(out, p, fill_of(p, name));
    g_string_append(out, "\"/>\n");
    put_text(s, x + 18 * k, y + 0.35 * s->font, "start", "fill=\"#202020\"", name);
    if (s->legend_below)
      x += w + 14 * k;
    else
      y += row;
  }
  if (s->legend_below && x > x0) {
    x = x0;
    y += row;
  }
  if (p->mark_label != NULL) {
    y += 6 * k;
    put_mark_line(s, x + 6 * k, y - 8 * k, y + 8 * k);
    g_string_append(out, "/>\n");
    put_text(s, x + 18 * k, y + 0.35 * s->font, "start", "fill=\"#202020\"", p->mark_label);
    y += row;
  }
  g_string_append(out, "</g>\n");
  s->height = MAX(s->bottom + 60 * k, y + 10 * k);
}

static int
compare_doubles(gconstpointer a, gconstpointer b)
{
  double x = *(const double *)a, y = *(const double *)b;
  return x < y ? -1 : x > y;
}

gboolean *
lb_plot_dwarfs(const double *excess, guint n)
{
  if (n < 3)
    return NULL;
  g_autofree double *sorted = g_memdup2(excess, n * sizeof(double));
  qsort(sorted, n, sizeof(double), compare_doubles);
  double median = n % 2 ? sorted[n / 2] : (sorted[n / 2 - 1] + sorted[n / 2]) / 2;
  if (!(median > 0))
    return NULL;
  gboolean *left_out = g_new0(gboolean, n);
  guint kept = n;
  for (guint i = 0; i < n; i++)
    if (excess[i] >= LB_PLOT_CLOSE_UP * median) {
      left_out[i] = TRUE;
      kept--;
    }
  if (kept == n || kept < 2)
    g_clear_pointer(&left_out, g_free);
  return left_out;
}

char *
lb_plot_swatch(guint style)
{
  GString *out = g_string_new("<svg class=\"swatch\" width=\"28\" height=\"12\" "
                              "viewBox=\"0 0 28 12\" aria-hidden=\"true\"><path d=\"");
  put_segment(out, 1, 6, 27, 6);
  g_string_append(out, "\" stroke=\"");
  put_colour(out, series_colour(style));
  g_string_append(out, "\" stroke-width=\"2.25\"");
  put_dash(out, 0, style, 1);
  g_string_append(out, "/><path d=\"");
  put_marker(out, series_marker(style), 14, 6, MARKER_R);
  g_string_append(out, "\" fill=\"");
  put_colour(out, series_colour(style));
  g_string_append(out, "\" stroke=\"#ffffff\"/></svg>");
  return g_string_free(out, FALSE);
}

/* Text as lines no wider than width, broken between words (a word wider
 * than that alone on its line). */
static GPtrArray *
wrap(cairo_t *cr, const char *text, double size, gboolean bold, double width)
{
  GPtrArray *lines = g_ptr_array_new_with_free_func(g_free);
  g_auto(GStrv) words = g_strsplit(text, " ", -1);
  g_autoptr(GString) line = g_string_new(NULL);
  for (guint i = 0; words[i] != NULL; i++) {
    g_autofree char *longer =
        line->len > 0 ? g_strdup_printf("%s %s", line->str, words[i]) : g_strdup(words[i]);
    if (line->len > 0 && text_width(cr, longer, size, bold) > width) {
      g_ptr_array_add(lines, g_strdup(line->str));
      g_string_assign(line, words[i]);
    } else {
      g_string_assign(line, longer);
    }
  }
  if (line->len > 0 || lines->len == 0)
    g_ptr_array_add(lines, g_strdup(line->str));
  return lines;
}

/* The title and subtitle, wrapped to the chart's width; where the plot
 * can start under them. */
static double
draw_titles(Svg *s)
{
  const LbPlot *p = s->plot;
  double k = s->k;
  if (p->untitled)
    return 14 * k;
  double y = 8 * k, room = s->width - 32 * k;
  g_autoptr(GPtrArray) title = wrap(s->cr, p->title, s->head, TRUE, room);
  for (guint i = 0; i < title->len; i++) {
    y += 1.25 * s->head;
    g_autoptr(GString) look = g_string_new("font-size=\"");
    put_px(look, s->head);
    g_string_append(look, "\" font-weight=\"bold\" fill=\"#202020\"");
    put_text(s, 16 * k, y, "start", look->str, title->pdata[i]);
  }
  if (p->subtitle != NULL) {
    g_autoptr(GPtrArray) sub = wrap(s->cr, p->subtitle, s->font, FALSE, room);
    for (guint i = 0; i < sub->len; i++) {
      y += 1.35 * s->font;
      put_text(s, 16 * k, y, "start", "fill=\"#505050\"", sub->pdata[i]);
    }
  }
  return y + 22 * k;
}

/* The chart's body (what its <svg> holds), and its size. */
static GString *
render(const LbPlot *plot, double *width, double *height, const char **value_scale)
{
  g_autoptr(cairo_surface_t) surface = cairo_image_surface_create(CAIRO_FORMAT_RGB24, 1, 1);
  g_autoptr(cairo_t) cr = cairo_create(surface);
  GString *body = g_string_new(NULL);
  g_auto(Svg) s = {.out = body, .cr = cr, .plot = plot, .width = plot->width};
  s.font = plot->font;
  s.k = plot->font / LB_PLOT_FONT;
  s.tick = lb_font_size(LB_FONT_TICK, plot->font);
  s.head = lb_font_size(LB_FONT_TITLE, plot->font);
  double lo, hi;
  value_extent(plot, &lo, &hi);
  double positive = smallest_positive(plot);
  if (plot->kind == LB_PLOT_LINES && isfinite(positive))
    s.log = plot->value_scale == LB_PLOT_VALUES_LOG ||
            (plot->value_scale == LB_PLOT_VALUES_AUTO && lo > 0 && hi >= plot->log_span * lo);
  double second = second_longest(plot);
  if (plot->kind == LB_PLOT_BARS && plot->value_scale != LB_PLOT_VALUES_LINEAR && second > 0 &&
      hi >= LB_PLOT_CUT_RATIO * second) {
    s.cut = TRUE;
    hi = second;
  }
  value_range(&s, s.log ? positive : lo, hi);
  s.top = draw_titles(&s);
  if (plot->kind == LB_PLOT_LINES)
    draw_lines(&s);
  else
    draw_bars(&s);
  *width = s.width;
  *height = ceil(s.height);
  *value_scale = s.log ? "log" : s.cut ? "cut" : "linear";
  return body;
}

/* The root's size: pixels, or points for print. */
static void
put_size(GString *out, const LbPlot *plot, double width, double height)
{
  const char *unit = plot->points ? "pt" : "";
  g_string_append(out, "width=\"");
  put_px(out, width);
  g_string_append_printf(out, "%s\" height=\"", unit);
  put_px(out, height);
  g_string_append_printf(out, "%s\" viewBox=\"0 0 ", unit);
}

char *
lb_plot_svg(const LbPlot *plot, gboolean standalone)
{
  double width = 0, height = 0;
  const char *scale = NULL;
  g_autoptr(GString) body = render(plot, &width, &height, &scale);
  GString *out = g_string_new(NULL);
  if (standalone)
    g_string_append(out, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n");
  g_autofree char *title = g_markup_escape_text(plot->title, -1);
  g_autofree char *id = g_markup_escape_text(plot->id, -1);
  g_string_append_printf(out, "<svg %sclass=\"plot\" id=\"%s\" data-value-scale=\"%s\" ",
                         standalone ? "xmlns=\"http://www.w3.org/2000/svg\" " : "", id, scale);
  put_size(out, plot, width, height);
  put_px(out, width);
  g_string_append_c(out, ' ');
  put_px(out, height);
  g_string_append_printf(out,
                         "\" role=\"img\" aria-labelledby=\"%s-title\" font-family=\"%s\" "
                         "font-size=\"",
                         id, LB_FONT_FAMILY);
  put_px(out, plot->font);
  g_string_append_printf(out, "\">\n<title id=\"%s-title\">%s</title>\n<rect width=\"", id, title);
  put_px(out, width);
  g_string_append(out, "\" height=\"");
  put_px(out, height);
  g_string_append(out, "\" fill=\"#ffffff\"/>\n");
  g_string_append_len(out, body->str, (gssize)body->len);
  g_string_append(out, "</svg>\n");
  return g_string_free(out, FALSE);
}

/* Charts one above the other as one standalone SVG, scaled to pixel
 * width (0: the first's own): each chart's <svg> in a group moved down. */
static char *
stack_svg(const LbPlot *const *plots, guint n, double pixel_width, double *width, double *height)
{
  g_autoptr(GString) bodies = g_string_new(NULL);
  double y = 0;
  *width = plots[0]->width;
  for (guint i = 0; i < n; i++) {
    double w = 0, h = 0;
    const char *scale = NULL;
    g_autoptr(GString) body = render(plots[i], &w, &h, &scale);
    g_autofree char *id = g_markup_escape_text(plots[i]->id, -1);
    g_string_append_printf(bodies,
                           "<g class=\"chart\" id=\"%s\" data-value-scale=\"%s\" "
                           "transform=\"translate(0 ",
                           id, scale);
    put_px(bodies, y);
    g_string_append_printf(bodies, ")\" font-size=\"");
    put_px(bodies, plots[i]->font);
    g_string_append(bodies, "\">\n");
    g_string_append_len(bodies, body->str, (gssize)body->len);
    g_string_append(bodies, "</g>\n");
    y += h;
  }
  *height = y;
  const LbPlot *first = plots[0];
  double scale = first->points || pixel_width <= 0 ? 1 : pixel_width / *width;
  GString *out = g_string_new("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n");
  g_autofree char *title = g_markup_escape_text(first->title, -1);
  g_string_append(out, "<svg xmlns=\"http://www.w3.org/2000/svg\" class=\"figure\" ");
  /* pixels are whole; a figure for print its size in points */
  put_size(out, first, first->points ? *width : ceil(*width * scale),
           first->points ? *height : ceil(*height * scale));
  put_px(out, *width);
  g_string_append_c(out, ' ');
  put_px(out, *height);
  g_string_append_printf(out, "\" font-family=\"%s\">\n<title>%s</title>\n<rect width=\"",
                         LB_FONT_FAMILY, title);
  put_px(out, *width);
  g_string_append(out, "\" height=\"");
  put_px(out, *height);
  g_string_append(out, "\" fill=\"#ffffff\"/>\n");
  g_string_append_len(out, bodies->str, (gssize)bodies->len);
  g_string_append(out, "</svg>\n");
  return g_string_free(out, FALSE);
}

/* The SVG drawn, on white to the last pixel (the SVG's own white ends at
 * its size, which pixels round up). */
static void
draw_svg_cb(cairo_t *cr, gconstpointer data)
{
  cairo_set_source_rgb(cr, 1, 1, 1);
  cairo_paint(cr);
  lb_svg_draw(cr, data, NULL);
}

GBytes *
lb_plot_figure(const LbPlot *const *plots, guint n, LbFigureFormat format, double pixel_width,
               const char *path, GError **error)
{
  g_return_val_if_fail(n > 0, NULL);
  double width = 0, height = 0;
  g_autofree char *svg = stack_svg(plots, n, pixel_width, &width, &height);
  if (format == LB_FIGURE_SVG) {
    gsize length = strlen(svg);
    return g_bytes_new_take(g_steal_pointer(&svg), length);
  }
  const LbPlot *first = plots[0];
  LbFigureTarget target = {1, first->points};
  if (first->points)
    target.scale = format == LB_FIGURE_PNG ? LB_FIGURE_PPI / 72 : 1;
  else if (pixel_width > 0)
    target.scale = pixel_width / width;
  return lb_figure_draw(format, &target, width, height, draw_svg_cb, svg, path, error);
}
