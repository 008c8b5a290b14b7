/* The charts' SVG primitives: text measured with cairo, numbers, the
 * styles of series, the value axis and its ticks, the fills of segments. */
#include "report/plot-draw.h"

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

guint32
lb_chart_segment_colour(guint index)
{
  return segment_colours[index % G_N_ELEMENTS(segment_colours)];
}

guint32
lb_chart_series_colour(guint index)
{
  return lb_style_at(index)->colour;
}

LbMarker
lb_chart_series_marker(guint index)
{
  return lb_style_at(index)->marker;
}

const char *
lb_chart_series_dash(guint index)
{
  return lb_style_at(index)->dash;
}

const char *const lb_chart_dashes[] = {NULL, "7 4", "2 3", "9 3 2 3", "14 4"};

double
lb_chart_text_width(cairo_t *cr, const char *text, double size, gboolean bold)
{
  cairo_select_font_face(cr, "sans-serif", CAIRO_FONT_SLANT_NORMAL,
                         bold ? CAIRO_FONT_WEIGHT_BOLD : CAIRO_FONT_WEIGHT_NORMAL);
  cairo_set_font_size(cr, size);
  cairo_text_extents_t e;
  cairo_text_extents(cr, text, &e);
  return e.x_advance;
}

/* A number in an attribute: every digit the JSON has (it prints ten). */
void
lb_chart_put_number(GString *out, double v)
{
  char buf[G_ASCII_DTOSTR_BUF_SIZE];
  g_string_append(out, g_ascii_formatd(buf, sizeof buf, "%.10g", v));
}

/* A coordinate or a size, to a hundredth of a unit, without the zeros a
 * reader does not need (244.8, 12). */
void
lb_chart_put_px(GString *out, double v)
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

void
lb_chart_put_text(Svg *s, double x, double y, const char *anchor, const char *extra,
                  const char *text)
{
  g_autofree char *escaped = g_markup_escape_text(text, -1);
  g_string_append(s->out, "<text x=\"");
  lb_chart_put_px(s->out, x);
  g_string_append(s->out, "\" y=\"");
  lb_chart_put_px(s->out, y);
  g_string_append_printf(s->out, "\" text-anchor=\"%s\"%s%s>%s</text>\n", anchor,
                         extra != NULL ? " " : "", extra != NULL ? extra : "", escaped);
}

void
lb_chart_put_segment(GString *out, double x0, double y0, double x1, double y1)
{
  g_string_append(out, "M");
  lb_chart_put_px(out, x0);
  g_string_append_c(out, ',');
  lb_chart_put_px(out, y0);
  g_string_append(out, " L");
  lb_chart_put_px(out, x1);
  g_string_append_c(out, ',');
  lb_chart_put_px(out, y1);
  g_string_append_c(out, ' ');
}

void
lb_chart_put_colour(GString *out, guint32 rgb)
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
double
lb_chart_axis_at(const Svg *s, double v)
{
  if (!s->log)
    return (v - s->v_lo) / (s->v_hi - s->v_lo);
  if (!(v > 0))
    return 0;
  return (log10(v) - log10(s->v_lo)) / (log10(s->v_hi) - log10(s->v_lo));
}

void
lb_chart_value_range(Svg *s, double lo, double hi)
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
void
lb_chart_value_extent(const LbPlot *p, double *lo, double *hi)
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
double
lb_chart_second_longest(const LbPlot *p)
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
double
lb_chart_smallest_positive(const LbPlot *p)
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

char *
lb_chart_tick_label(const Svg *s, double v)
{
  if (!s->log)
    return lb_figure_format_tick(v, s->v_step);
  char buf[G_ASCII_DTOSTR_BUF_SIZE];
  return g_strdup(g_ascii_formatd(buf, sizeof buf, "%g", v));
}

/* The value axis' ticks: its start (the floor, 1 for an imbalance, is
 * worth a tick) and the multiples of the step above it. */
GArray *
lb_chart_value_ticks(const Svg *s)
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
double
lb_chart_value_ticks_width(Svg *s)
{
  double w = 0;
  g_autoptr(GArray) ticks = lb_chart_value_ticks(s);
  for (guint i = 0; i < ticks->len; i++) {
    g_autofree char *label = lb_chart_tick_label(s, g_array_index(ticks, double, i));
    w = MAX(w, lb_chart_text_width(s->cr, label, s->tick, FALSE));
  }
  return w;
}

/* ---- fills of segments ---- */

/* The fill (index) of a segment name: its key's, or after the keys in
 * the order the names came. */
guint
lb_chart_fill_of(const LbPlot *p, const char *name)
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
void
lb_chart_put_fill(GString *out, const LbPlot *p, guint c)
{
  c %= SEGMENT_FILLS;
  if (c < G_N_ELEMENTS(segment_colours)) {
    lb_chart_put_colour(out, lb_chart_segment_colour(c));
    return;
  }
  g_autofree char *id = g_markup_escape_text(p->id, -1);
  g_string_append_printf(out, "url(#%s-fill-%u)", id, c);
}

/* The hatched and dotted fills the chart's segment names need. */
void
lb_chart_segment_patterns(Svg *s)
{
  const LbPlot *p = s->plot;
  gboolean used[SEGMENT_FILLS] = {FALSE}, any = FALSE;
  for (guint i = 0; i < p->segment_names->len; i++) {
    guint c = lb_chart_fill_of(p, p->segment_names->pdata[i]) % SEGMENT_FILLS;
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
    lb_chart_put_colour(s->out, lb_chart_segment_colour(c));
    g_string_append(s->out, hatched ? "\"/><rect width=\"2.5\" height=\"6\" fill=\"#ffffff\" "
                                      "fill-opacity=\"0.7\"/></pattern>\n"
                                    : "\"/><circle cx=\"3\" cy=\"3\" r=\"1.4\" fill=\"#ffffff\" "
                                      "fill-opacity=\"0.8\"/></pattern>\n");
  }
  g_string_append(s->out, "</defs>\n");
}
