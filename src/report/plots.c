/* Charts as SVG text: axes with round ticks, a legend, series as groups
 * that carry their numbers. Text is measured with cairo's toy font API in
 * the same sans-serif a browser picks, to lay out margins and legends. */
#include "report/plots.h"
#include "report/pictures.h"

#include <math.h>
#include <string.h>
#include <cairo.h>

G_DEFINE_AUTOPTR_CLEANUP_FUNC(cairo_t, cairo_destroy)
G_DEFINE_AUTOPTR_CLEANUP_FUNC(cairo_surface_t, cairo_surface_destroy)

#define WIDTH 1000
#define LINES_HEIGHT 440
#define TOP 48
#define FONT_SIZE 12
#define TICK_SIZE 11
#define TITLE_SIZE 15
#define BAR_HEIGHT 24
#define BAR_GAP 14
#define LEGEND_MAX 300
#define MARKERS_MAX 30 /* markers per line beyond which they would hide it */

#define MAX_BANDS 2

typedef struct {
  guint style;
  GArray *x, *y;
  guint nbands;
  GArray *lo[MAX_BANDS], *hi[MAX_BANDS]; /* lb_plot_band */
  LbPlotBand band_kind[MAX_BANDS];
} Line;

typedef struct {
  char *name;
  GPtrArray *lines;    /* Line */
  GPtrArray *segments; /* names, owned by the plot's segment list */
  GArray *values;      /* double per segment */
  double mark;         /* bars: NAN for none */
  guint style;         /* of the palette */
} Series;

struct _LbPlot {
  LbPlotKind kind;
  char *id, *title, *x_label, *value_label;
  LbPlotScale scale;
  LbPlotValueScale value_scale;
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
series_free(gpointer data)
{
  Series *s = data;
  g_free(s->name);
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
  lb_plot_series_styled(plot, name, plot->series->len);
}

void
lb_plot_series_styled(LbPlot *plot, const char *name, guint style)
{
  Series *s = g_new0(Series, 1);
  s->style = style;
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

/* The series' palette: Okabe and Ito's colours (the --pictures charts'
 * seven; black before orange, which a few series would set beside
 * vermillion), wine for their yellow, which white paper hides. */
static const guint32 series_colours[] = {0x0072b2, 0xd55e00, 0x009e73, 0xcc79a7,
                                         0x000000, 0x56b4e9, 0xe69f00, 0x882255};
static const char *const marker_names[] = {"circle",  "square",        "triangle",
                                           "diamond", "triangle-down", "plus"};
/* a series' own dash, from the ninth on (its solid lines drawn so) */
static const char *const series_dashes[] = {NULL, "12 3 2 3", "12 3 2 3 2 3"};

G_STATIC_ASSERT(G_N_ELEMENTS(series_colours) * G_N_ELEMENTS(marker_names) / 2 == LB_PLOT_STYLES);

static guint32
series_colour(guint index)
{
  return series_colours[index % G_N_ELEMENTS(series_colours)];
}

static guint
series_marker(guint index)
{
  return index % G_N_ELEMENTS(marker_names);
}

static const char *
series_dash(guint index)
{
  return series_dashes[index / G_N_ELEMENTS(series_colours) % G_N_ELEMENTS(series_dashes)];
}

static const char *const dashes[] = {NULL, "7 4", "2 3", "9 3 2 3", "14 4"};
#define NSTYLES 5

typedef struct {
  GString *out;
  cairo_t *cr; /* for text widths only */
  const LbPlot *plot;
  gboolean log;     /* the value axis */
  gboolean cut;     /* bars: the longest is cut at a break */
  double factor;    /* value units per drawn unit */
  const char *unit; /* of the drawn values, or NULL */
  char *value_label;
  double v_lo, v_hi, v_step; /* the value axis */
  double x_lo, x_hi;         /* lines: the x axis, in axis units (log2 for LOG2) */
  double left, right, top, bottom;
  guint width, height;
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

/* A coordinate, to a hundredth of a pixel. */
static void
put_px(GString *out, double v)
{
  char buf[G_ASCII_DTOSTR_BUF_SIZE];
  g_ascii_formatd(buf, sizeof buf, "%.2f", fabs(v) < 0.005 ? 0.0 : v);
  g_string_append(out, buf);
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
  s->v_step = lb_pictures_nice_step(span, 6, FALSE);
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
    return lb_pictures_format_tick(v, s->v_step);
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
    w = MAX(w, text_width(s->cr, label, TICK_SIZE, FALSE));
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
    double step = lb_pictures_nice_step(s->x_hi - s->x_lo, 9, p->scale == LB_PLOT_INTEGER);
    for (double v = ceil(s->x_lo / step - 1e-9) * step; v <= s->x_hi + 1e-9; v += step) {
      double x = px_x(s, v);
      g_array_append_val(at, x);
      g_ptr_array_add(labels, lb_pictures_format_tick(v, step));
    }
  }
}

/* A marker (marker_names) centred on (x, y), as path data. */
static void
put_marker(GString *out, guint marker, double x, double y)
{
  double r = 3.5;
  switch (marker % G_N_ELEMENTS(marker_names)) {
  case 1: /* square */
    g_string_append(out, "M");
    put_px(out, x - r);
    g_string_append_c(out, ',');
    put_px(out, y - r);
    g_string_append_printf(out, " h%.1f v%.1f h%.1f Z ", 2 * r, 2 * r, -2 * r);
    break;
  case 2: /* triangle, point up */
  case 4: /* point down */
  {
    double d = marker % G_N_ELEMENTS(marker_names) == 2 ? 1 : -1, h = r * 1.2;
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
  case 3: /* diamond */
    g_string_append(out, "M");
    put_px(out, x);
    g_string_append_c(out, ',');
    put_px(out, y - r * 1.3);
    g_string_append_printf(out, " l%.2f,%.2f l%.2f,%.2f l%.2f,%.2f Z ", r * 1.3, r * 1.3, -r * 1.3,
                           r * 1.3, -r * 1.3, -r * 1.3);
    break;
  case 5: /* plus */
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
    g_string_append_printf(out, " a%.1f,%.1f 0 1,0 %.1f,0 a%.1f,%.1f 0 1,0 %.1f,0 Z ", r, r, 2 * r,
                           r, r, -2 * r);
  }
}

/* A line's dash: its style's, the series' own for the solid style. */
static void
put_dash(GString *out, guint style, guint series)
{
  const char *dash = style % NSTYLES == 0 ? series_dash(series) : dashes[style % NSTYLES];
  if (dash != NULL)
    g_string_append_printf(out, " stroke-dasharray=\"%s\"", dash);
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
    for (guint k = 0; k < n; k++) {
      double x = px_x(s, g_array_index(line->x, double, k));
      double y0 = px_y(s, g_array_index(line->lo[b], double, k));
      double y1 = px_y(s, g_array_index(line->hi[b], double, k));
      put_segment(out, x, y0, x, y1);
      put_segment(out, x - 4, y0, x + 4, y0);
      put_segment(out, x - 4, y1, x + 4, y1);
    }
    g_string_append(out, "\" fill=\"none\" stroke=\"");
    put_colour(out, colour);
    g_string_append(out, "\" stroke-width=\"1.5\"/>\n");
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
  for (guint k = 0; k < line->x->len; k++) {
    g_string_append(out, k == 0 ? "M" : " L");
    put_px(out, px_x(s, g_array_index(line->x, double, k)));
    g_string_append_c(out, ',');
    put_px(out, px_y(s, g_array_index(line->y, double, k)));
  }
  g_string_append(out, "\" fill=\"none\" stroke=\"");
  put_colour(out, colour);
  g_string_append(out, "\" stroke-width=\"2.25\" stroke-linejoin=\"round\"");
  put_dash(out, line->style, series);
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
               px_y(s, g_array_index(line->y, double, k)));
  g_string_append(out, "\" fill=\"");
  put_colour(out, colour);
  g_string_append(out, "\" stroke=\"#ffffff\" stroke-width=\"1\"/>\n");
}

/* A series' style, for scripts: data-colour, data-marker, data-dash. */
static void
put_style(GString *out, guint series)
{
  g_string_append(out, " data-colour=\"");
  put_colour(out, series_colour(series));
  const char *dash = series_dash(series);
  g_string_append_printf(out, "\" data-marker=\"%s\" data-dash=\"%s\"",
                         marker_names[series_marker(series)], dash != NULL ? dash : "solid");
}

static void
value_grid(Svg *s, gboolean vertical)
{
  g_autoptr(GString) grid = g_string_new(NULL), ticks = g_string_new(NULL);
  g_autoptr(GArray) at = value_ticks(s);
  for (guint i = 0; i < at->len; i++) {
    double v = g_array_index(at, double, i);
    if (vertical) {
      double x = round(s->left + (s->right - s->left) * axis_at(s, v)) + 0.5;
      put_segment(grid, x, s->top, x, s->bottom);
      put_segment(ticks, x, s->bottom, x, s->bottom + 5);
    } else {
      double y = round(s->bottom - (s->bottom - s->top) * axis_at(s, v)) + 0.5;
      put_segment(grid, s->left, y, s->right, y);
      put_segment(ticks, s->left - 5, y, s->left, y);
    }
  }
  g_string_append_printf(s->out, "<path class=\"grid\" d=\"%s\" stroke=\"#e4e4e4\"/>\n", grid->str);
  g_string_append_printf(s->out, "<path class=\"ticks\" d=\"%s\" stroke=\"#404040\"/>\n",
                         ticks->str);
  g_string_append_printf(s->out, "<g class=\"tick-labels\" font-size=\"%d\" fill=\"#404040\">\n",
                         TICK_SIZE);
  for (guint i = 0; i < at->len; i++) {
    double v = g_array_index(at, double, i);
    g_autofree char *label = tick_label(s, v);
    if (vertical)
      put_text(s, round(s->left + (s->right - s->left) * axis_at(s, v)), s->bottom + 19, "middle",
               NULL, label);
    else
      put_text(s, s->left - 8, round(s->bottom - (s->bottom - s->top) * axis_at(s, v)) + 4, "end",
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
  g_string_append(s->out, "\" fill=\"none\" stroke=\"#404040\"/>\n");
}

static double
legend_width(Svg *s)
{
  const LbPlot *p = s->plot;
  double w = 0;
  for (guint i = 0; i < p->series->len; i++)
    w = MAX(w, text_width(s->cr, ((Series *)p->series->pdata[i])->name, FONT_SIZE, TRUE));
  for (guint i = 0; i < p->style_labels->len; i++)
    if (p->style_labels->pdata[i] != NULL)
      w = MAX(w, text_width(s->cr, p->style_labels->pdata[i], FONT_SIZE, FALSE));
  for (guint i = 0; i < p->segment_names->len; i++)
    w = MAX(w, text_width(s->cr, p->segment_names->pdata[i], FONT_SIZE, FALSE));
  return MIN(w + 44, LEGEND_MAX);
}

/* The legend, right of the plot: the series' colours, then what each
 * labelled line style means. Its height is returned. */
static double
lines_legend(Svg *s, double x, double y)
{
  const LbPlot *p = s->plot;
  GString *out = s->out;
  double y0 = y;
  g_string_append_printf(out, "<g class=\"legend\" font-size=\"%d\">\n", FONT_SIZE);
  for (guint i = 0; i < p->series->len; i++, y += 22) {
    const Series *se = p->series->pdata[i];
    guint32 colour = series_colour(se->style);
    g_string_append(out, "<path d=\"");
    put_segment(out, x, y, x + 28, y);
    g_string_append(out, "\" stroke=\"");
    put_colour(out, colour);
    g_string_append(out, "\" stroke-width=\"2.25\"");
    put_dash(out, 0, se->style);
    g_string_append(out, "/>\n<path d=\"");
    put_marker(out, series_marker(se->style), x + 14, y);
    g_string_append(out, "\" fill=\"");
    put_colour(out, colour);
    g_string_append(out, "\" stroke=\"#ffffff\"/>\n");
    put_text(s, x + 36, y + 4, "start", "font-weight=\"bold\" fill=\"#202020\"", se->name);
  }
  gboolean gap = FALSE;
  for (guint i = 0; i < p->style_labels->len; i++) {
    if (p->style_labels->pdata[i] == NULL)
      continue;
    if (!gap)
      y += 10;
    gap = TRUE;
    g_string_append(out, "<path d=\"");
    put_segment(out, x, y, x + 28, y);
    g_string_append(out, "\" stroke=\"#505050\" stroke-width=\"2\"");
    put_dash(out, i, 0);
    g_string_append(out, "/>\n");
    put_text(s, x + 36, y + 4, "start", "fill=\"#404040\"", p->style_labels->pdata[i]);
    y += 22;
  }
  g_string_append(out, "</g>\n");
  return y - y0;
}

static void
draw_lines(Svg *s)
{
  const LbPlot *p = s->plot;
  GString *out = s->out;
  double legend = legend_width(s);
  guint entries = p->series->len, styles = 0;
  for (guint i = 0; i < p->style_labels->len; i++)
    styles += p->style_labels->pdata[i] != NULL;
  /* a long legend makes the chart taller, never leaves it */
  s->height = (guint)MAX(LINES_HEIGHT, TOP + 8 + 22 * (entries + styles) + (styles ? 10 : 0) + 16);
  s->top = TOP;
  s->left = 30 + value_ticks_width(s) + 14;
  s->right = s->width - 24 - legend;
  s->bottom = s->height - 56;
  x_range(s);

  value_grid(s, FALSE);
  g_autoptr(GArray) at = g_array_new(FALSE, FALSE, sizeof(double));
  g_autoptr(GPtrArray) labels = g_ptr_array_new_with_free_func(g_free);
  x_ticks(s, at, labels);
  g_string_append(out, "<path class=\"ticks\" d=\"");
  for (guint i = 0; i < at->len; i++) {
    double x = round(g_array_index(at, double, i)) + 0.5;
    put_segment(out, x, s->bottom, x, s->bottom + 5);
  }
  g_string_append(out, "\" stroke=\"#404040\"/>\n");
  g_string_append_printf(out, "<g class=\"tick-labels\" font-size=\"%d\" fill=\"#404040\">\n",
                         TICK_SIZE);
  for (guint i = 0; i < at->len; i++)
    put_text(s, round(g_array_index(at, double, i)), s->bottom + 19, "middle", NULL,
             labels->pdata[i]);
  g_string_append(out, "</g>\n");
  frame(s);
  put_text(s, (s->left + s->right) / 2, s->bottom + 42, "middle",
           "font-weight=\"bold\" fill=\"#202020\"", p->x_label);
  g_autofree char *rotate =
      g_strdup_printf("font-weight=\"bold\" fill=\"#202020\" transform=\"rotate(-90 %d %d)\"", 18,
                      (int)((s->top + s->bottom) / 2));
  put_text(s, 18, (s->top + s->bottom) / 2, "middle", rotate, s->value_label);

  g_string_append_printf(out, "<clipPath id=\"%s-clip\"><rect x=\"", p->id);
  put_px(out, s->left - 6);
  g_string_append(out, "\" y=\"");
  put_px(out, s->top - 6);
  g_string_append(out, "\" width=\"");
  put_px(out, s->right - s->left + 12);
  g_string_append(out, "\" height=\"");
  put_px(out, s->bottom - s->top + 12);
  g_string_append(out, "\"/></clipPath>\n");
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
  lines_legend(s, s->right + 20, s->top + 8);
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
put_mark_line(GString *out, double x, double y0, double y1)
{
  g_string_append(out, "<path class=\"mark\" d=\"");
  put_segment(out, x, y0, x, y1);
  g_string_append(out, "\" stroke=\"#202020\" stroke-width=\"2.5\"");
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
  double names = 0;
  for (guint i = 0; i < p->series->len; i++)
    names = MAX(names, text_width(s->cr, ((Series *)p->series->pdata[i])->name, FONT_SIZE, TRUE));
  double legend = legend_width(s);
  if (p->mark_label != NULL)
    legend = MAX(legend, MIN(text_width(s->cr, p->mark_label, FONT_SIZE, FALSE) + 44, LEGEND_MAX));
  s->top = TOP;
  s->left = 16 + names + 12 + 16;         /* the name, then its series' marker */
  s->right = s->width - 24 - legend - 70; /* room for the totals after the longest bar */
  s->bottom = s->top + p->series->len * (BAR_HEIGHT + BAR_GAP) + BAR_GAP;

  segment_patterns(s);
  value_grid(s, TRUE);
  frame(s);
  put_text(s, (s->left + s->right) / 2, s->bottom + 42, "middle",
           "font-weight=\"bold\" fill=\"#202020\"", s->value_label);
  for (guint i = 0; i < p->series->len; i++) {
    const Series *se = p->series->pdata[i];
    double y = s->top + BAR_GAP + i * (BAR_HEIGHT + BAR_GAP);
    put_text(s, s->left - 26, y + BAR_HEIGHT / 2.0 + 4, "end",
             "font-weight=\"bold\" fill=\"#202020\"", se->name);
    g_autofree char *name = g_markup_escape_text(se->name, -1);
    g_string_append_printf(out, "<g class=\"series\" data-series=\"%s\"", name);
    put_style(out, se->style);
    g_string_append(out, ">\n<path class=\"marker\" d=\"");
    put_marker(out, series_marker(se->style), s->left - 14, y + BAR_HEIGHT / 2.0);
    g_string_append(out, "\" fill=\"");
    put_colour(out, series_colour(se->style));
    g_string_append(out, "\"/>\n");
    double sum = 0;
    for (guint k = 0; k < se->values->len; k++) {
      double v = g_array_index(se->values, double, k);
      double x0 = bar_x(s, sum);
      sum += v;
      double x1 = bar_x(s, sum);
      guint colour = fill_of(p, se->segments->pdata[k]);
      g_autofree char *segment = g_markup_escape_text(se->segments->pdata[k], -1);
      g_string_append_printf(out, "<rect class=\"segment\" data-segment=\"%s\" data-value=\"",
                             segment);
      put_number(out, v);
      g_string_append(out, "\" x=\"");
      put_px(out, x0);
      g_string_append(out, "\" y=\"");
      put_px(out, y);
      g_string_append(out, "\" width=\"");
      put_px(out, x1 - x0);
      g_string_append_printf(out, "\" height=\"%d\" fill=\"", BAR_HEIGHT);
      put_fill(out, p, colour);
      g_string_append(out, "\" stroke=\"#ffffff\" stroke-width=\"0.5\"><title>");
      g_autofree char *tip = g_strdup_printf(
          "%s %s: %.6g%s%s", se->name, (const char *)se->segments->pdata[k], v * s->factor,
          s->unit != NULL ? " " : "", s->unit != NULL ? s->unit : "");
      g_autofree char *escaped = g_markup_escape_text(tip, -1);
      g_string_append_printf(out, "%s</title></rect>\n", escaped);
      const char *label = se->segments->pdata[k];
      guint32 rgb = segment_colour(colour);
      double luma = 0.299 * (rgb >> 16) + 0.587 * (rgb >> 8 & 0xff) + 0.114 * (rgb & 0xff);
      /* a halo of the segment's colour keeps the name readable on a pattern */
      g_autofree char *look =
          g_strdup_printf("font-size=\"11\" fill=\"#%s\" stroke=\"#%06x\" stroke-width=\"3\" "
                          "paint-order=\"stroke\"",
                          luma < 140 ? "ffffff" : "202020", rgb & 0xffffff);
      if (text_width(s->cr, label, TICK_SIZE, FALSE) + 8 <= x1 - x0)
        put_text(s, (x0 + x1) / 2, y + BAR_HEIGHT / 2.0 + 4, "middle", look, label);
    }
    double end = bar_x(s, sum);
    if (sum * s->factor > s->v_hi * (1 + 1e-9)) { /* the break, across the cut bar */
      double at = s->right - 14;
      g_string_append(out, "<path class=\"break\" d=\"");
      for (guint k = 0; k < 2; k++)
        put_segment(out, at + 5 * k - 4, y + BAR_HEIGHT + 3, at + 5 * k + 4, y - 3);
      g_string_append(out, "\" stroke=\"#ffffff\" stroke-width=\"2.5\"/>\n");
    }
    if (isfinite(se->mark)) {
      double at = bar_x(s, se->mark);
      put_mark_line(out, at, y - 4, y + BAR_HEIGHT + 4);
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
    put_text(s, end + 6, y + BAR_HEIGHT / 2.0 + 4, "start", "fill=\"#404040\"", total);
    g_string_append(out, "</g>\n");
  }
  /* the segments' fills, then what the marks are */
  double x = s->right + 90, y = s->top + 8;
  g_autofree char *id = g_markup_escape_text(p->id, -1);
  g_string_append_printf(out, "<g class=\"legend\" id=\"%s-legend\" font-size=\"%d\">\n", id,
                         FONT_SIZE);
  for (guint c = 0; c < p->segment_names->len; c++, y += 20) {
    g_string_append(out, "<rect x=\"");
    put_px(out, x);
    g_string_append(out, "\" y=\"");
    put_px(out, y - 6);
    g_string_append(out, "\" width=\"12\" height=\"12\" fill=\"");
    put_fill(out, p, fill_of(p, p->segment_names->pdata[c]));
    g_string_append(out, "\"/>\n");
    put_text(s, x + 18, y + 4, "start", "fill=\"#202020\"", p->segment_names->pdata[c]);
  }
  if (p->mark_label != NULL) {
    y += 6;
    put_mark_line(out, x + 6, y - 8, y + 8);
    g_string_append(out, "/>\n");
    put_text(s, x + 18, y + 4, "start", "fill=\"#202020\"", p->mark_label);
    y += 20;
  }
  g_string_append(out, "</g>\n");
  s->height = (guint)MAX(s->bottom + 60, y + 10);
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
  put_dash(out, 0, style);
  g_string_append(out, "/><path d=\"");
  put_marker(out, series_marker(style), 14, 6);
  g_string_append(out, "\" fill=\"");
  put_colour(out, series_colour(style));
  g_string_append(out, "\" stroke=\"#ffffff\"/></svg>");
  return g_string_free(out, FALSE);
}

char *
lb_plot_svg(const LbPlot *plot, gboolean standalone)
{
  g_autoptr(cairo_surface_t) surface = cairo_image_surface_create(CAIRO_FORMAT_RGB24, 1, 1);
  g_autoptr(cairo_t) cr = cairo_create(surface);
  g_autoptr(GString) body = g_string_new(NULL);
  g_auto(Svg) s = {.out = body, .cr = cr, .plot = plot, .width = WIDTH, .height = LINES_HEIGHT};
  double lo, hi;
  value_extent(plot, &lo, &hi);
  double positive = smallest_positive(plot);
  if (plot->kind == LB_PLOT_LINES && isfinite(positive))
    s.log = plot->value_scale == LB_PLOT_VALUES_LOG ||
            (plot->value_scale == LB_PLOT_VALUES_AUTO && lo > 0 && hi >= LB_PLOT_LOG_SPAN * lo);
  double second = second_longest(plot);
  if (plot->kind == LB_PLOT_BARS && plot->value_scale != LB_PLOT_VALUES_LINEAR && second > 0 &&
      hi >= LB_PLOT_CUT_RATIO * second) {
    s.cut = TRUE;
    hi = second;
  }
  value_range(&s, s.log ? positive : lo, hi);
  if (plot->kind == LB_PLOT_LINES)
    draw_lines(&s);
  else
    draw_bars(&s);

  GString *out = g_string_new(NULL);
  if (standalone)
    g_string_append(out, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n");
  g_autofree char *title = g_markup_escape_text(plot->title, -1);
  g_autofree char *id = g_markup_escape_text(plot->id, -1);
  g_string_append_printf(out,
                         "<svg %sclass=\"plot\" id=\"%s\" data-value-scale=\"%s\" "
                         "width=\"%u\" height=\"%u\" "
                         "viewBox=\"0 0 %u %u\" role=\"img\" aria-labelledby=\"%s-title\" "
                         "font-family=\"sans-serif\" font-size=\"%d\">\n"
                         "<title id=\"%s-title\">%s</title>\n"
                         "<rect width=\"%u\" height=\"%u\" fill=\"#ffffff\"/>\n",
                         standalone ? "xmlns=\"http://www.w3.org/2000/svg\" " : "", id,
                         s.log   ? "log"
                         : s.cut ? "cut"
                                 : "linear",
                         s.width, s.height, s.width, s.height, id, FONT_SIZE, id, title, s.width,
                         s.height);
  g_string_append_printf(out,
                         "<text x=\"16\" y=\"26\" font-size=\"%d\" font-weight=\"bold\" "
                         "fill=\"#202020\">%s</text>\n",
                         TITLE_SIZE, title);
  g_string_append(out, body->str);
  g_string_append(out, "</svg>\n");
  return g_string_free(out, FALSE);
}
