/* Line charts: the frame, the value grid, a series' lines, markers and
 * bands, the reference lines, the legend. */
#include "report/plot-draw.h"

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
  return s->bottom - (s->bottom - s->top) * lb_chart_axis_at(s, v * s->factor);
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
void
lb_chart_put_marker(GString *out, LbMarker marker, double x, double y, double r)
{
  switch (marker) {
  case LB_MARKER_SQUARE: /* square */
    g_string_append(out, "M");
    lb_chart_put_px(out, x - r);
    g_string_append_c(out, ',');
    lb_chart_put_px(out, y - r);
    g_string_append_printf(out, " h%.2f v%.2f h%.2f Z ", 2 * r, 2 * r, -2 * r);
    break;
  case LB_MARKER_TRIANGLE:      /* triangle, point up */
  case LB_MARKER_TRIANGLE_DOWN: /* point down */
  {
    double d = marker == LB_MARKER_TRIANGLE ? 1 : -1, h = r * 1.2;
    g_string_append(out, "M");
    lb_chart_put_px(out, x);
    g_string_append_c(out, ',');
    lb_chart_put_px(out, y - d * h);
    g_string_append(out, " L");
    lb_chart_put_px(out, x + h);
    g_string_append_c(out, ',');
    lb_chart_put_px(out, y + d * h * 0.8);
    g_string_append(out, " L");
    lb_chart_put_px(out, x - h);
    g_string_append_c(out, ',');
    lb_chart_put_px(out, y + d * h * 0.8);
    g_string_append(out, " Z ");
    break;
  }
  case LB_MARKER_DIAMOND: /* diamond */
    g_string_append(out, "M");
    lb_chart_put_px(out, x);
    g_string_append_c(out, ',');
    lb_chart_put_px(out, y - r * 1.3);
    g_string_append_printf(out, " l%.2f,%.2f l%.2f,%.2f l%.2f,%.2f Z ", r * 1.3, r * 1.3, -r * 1.3,
                           r * 1.3, -r * 1.3, -r * 1.3);
    break;
  case LB_MARKER_PLUS: /* plus */
  {
    double a = r * 1.3, b = r * 0.45;
    g_string_append(out, "M");
    lb_chart_put_px(out, x - b);
    g_string_append_c(out, ',');
    lb_chart_put_px(out, y - a);
    g_string_append_printf(
        out, " h%.2f v%.2f h%.2f v%.2f h%.2f v%.2f h%.2f v%.2f h%.2f v%.2f h%.2f Z ", 2 * b, a - b,
        a - b, 2 * b, b - a, a - b, -2 * b, b - a, b - a, -2 * b, a - b);
    break;
  }
  default: /* circle */
    g_string_append(out, "M");
    lb_chart_put_px(out, x - r);
    g_string_append_c(out, ',');
    lb_chart_put_px(out, y);
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
    lb_chart_put_px(out, g_ascii_strtod(parts[i], NULL) * k);
  }
  g_string_append_c(out, '"');
}

/* A line's dash: its style's, the series' own for the solid style. */
void
lb_chart_put_dash(GString *out, guint style, guint series, double k)
{
  const char *dash =
      style % NSTYLES == 0 ? lb_chart_series_dash(series) : lb_chart_dashes[style % NSTYLES];
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
    lb_chart_put_number(out, g_array_index(values, double, k));
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
      lb_chart_put_segment(out, x, y0, x, y1);
      lb_chart_put_segment(out, x - cap, y0, x + cap, y0);
      lb_chart_put_segment(out, x - cap, y1, x + cap, y1);
    }
    g_string_append(out, "\" fill=\"none\" stroke=\"");
    lb_chart_put_colour(out, colour);
    g_string_append(out, "\" stroke-width=\"");
    lb_chart_put_px(out, 1.5 * s->k);
    g_string_append(out, "\"/>\n");
    return;
  }
  for (guint k = 0; k < 2 * n; k++) {
    guint i = k < n ? k : 2 * n - 1 - k;
    const GArray *v = k < n ? line->hi[b] : line->lo[b];
    g_string_append(out, k == 0 ? "M" : " L");
    lb_chart_put_px(out, px_x(s, g_array_index(line->x, double, i)));
    g_string_append_c(out, ',');
    lb_chart_put_px(out, px_y(s, g_array_index(v, double, i)));
  }
  g_string_append(out, " Z\" fill=\"");
  lb_chart_put_colour(out, colour);
  g_string_append(out, "\" fill-opacity=\"0.18\" stroke=\"none\"/>\n");
}

/* A polyline through the points as path data. */
static void
put_polyline(Svg *s, const GArray *x, const GArray *y)
{
  for (guint k = 0; k < x->len; k++) {
    g_string_append(s->out, k == 0 ? "M" : " L");
    lb_chart_put_px(s->out, px_x(s, g_array_index(x, double, k)));
    g_string_append_c(s->out, ',');
    lb_chart_put_px(s->out, px_y(s, g_array_index(y, double, k)));
  }
}

/* Markers on a line: on every point up to MARKERS_MAX, else on every
 * k-th, started apart from series to series, so that they name the
 * series without hiding the line. */
static void
draw_line(Svg *s, const Line *line, guint series)
{
  GString *out = s->out;
  guint32 colour = lb_chart_series_colour(series);
  for (guint b = 0; b < line->nbands; b++)
    if (line->band_kind[b] == LB_PLOT_BAND_AREA)
      draw_band(s, line, b, colour);
  g_string_append_printf(out, "<path class=\"line\" data-style=\"%u\"", line->style);
  put_numbers(out, "data-x", line->x);
  put_numbers(out, "data-y", line->y);
  g_string_append(out, " d=\"");
  put_polyline(s, line->x, line->y);
  g_string_append(out, "\" fill=\"none\" stroke=\"");
  lb_chart_put_colour(out, colour);
  g_string_append(out, "\" stroke-width=\"");
  lb_chart_put_px(out, LINE_WIDTH * s->k);
  g_string_append(out, "\" stroke-linejoin=\"round\"");
  lb_chart_put_dash(out, line->style, series, s->k);
  g_string_append(out, "/>\n");
  for (guint b = 0; b < line->nbands; b++)
    if (line->band_kind[b] == LB_PLOT_BAND_BARS)
      draw_band(s, line, b, colour);
  if (line->x->len == 0)
    return;
  guint every = (line->x->len + MARKERS_MAX - 1) / MARKERS_MAX;
  g_string_append(out, "<path class=\"markers\" d=\"");
  for (guint k = every > 1 ? series * 3 % every : 0; k < line->x->len; k += every)
    lb_chart_put_marker(out, lb_chart_series_marker(series),
                        px_x(s, g_array_index(line->x, double, k)),
                        px_y(s, g_array_index(line->y, double, k)), MARKER_R * s->k);
  g_string_append(out, "\" fill=\"");
  lb_chart_put_colour(out, colour);
  g_string_append(out, "\" stroke=\"#ffffff\" stroke-width=\"");
  lb_chart_put_px(out, s->k);
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
    lb_chart_put_colour(s->out, REFERENCE_COLOUR);
    g_string_append(s->out, "\" stroke-width=\"");
    lb_chart_put_px(s->out, 1.5 * s->k);
    g_string_append(s->out, "\"");
    put_dash_array(s->out, REFERENCE_DASH, s->k);
    g_string_append(s->out, "/>\n</g>\n");
  }
}

/* A series' style, for scripts: data-colour, data-marker, data-dash. */
void
lb_chart_put_style(GString *out, guint series)
{
  g_string_append(out, " data-colour=\"");
  lb_chart_put_colour(out, lb_chart_series_colour(series));
  const char *dash = lb_chart_series_dash(series);
  g_string_append_printf(out, "\" data-marker=\"%s\" data-dash=\"%s\"",
                         lb_style_marker_name(lb_chart_series_marker(series)),
                         dash != NULL ? dash : "solid");
}

static void
tick_labels_start(Svg *s)
{
  g_string_append(s->out, "<g class=\"tick-labels\" font-size=\"");
  lb_chart_put_px(s->out, s->tick);
  g_string_append(s->out, "\" fill=\"#404040\">\n");
}

void
lb_chart_value_grid(Svg *s, gboolean vertical)
{
  g_autoptr(GString) grid = g_string_new(NULL), ticks = g_string_new(NULL);
  g_autoptr(GArray) at = lb_chart_value_ticks(s);
  double tick = 5 * s->k;
  for (guint i = 0; i < at->len; i++) {
    double v = g_array_index(at, double, i);
    if (vertical) {
      double x = round(s->left + (s->right - s->left) * lb_chart_axis_at(s, v)) + 0.5;
      lb_chart_put_segment(grid, x, s->top, x, s->bottom);
      lb_chart_put_segment(ticks, x, s->bottom, x, s->bottom + tick);
    } else {
      double y = round(s->bottom - (s->bottom - s->top) * lb_chart_axis_at(s, v)) + 0.5;
      lb_chart_put_segment(grid, s->left, y, s->right, y);
      lb_chart_put_segment(ticks, s->left - tick, y, s->left, y);
    }
  }
  g_string_append_printf(s->out, "<path class=\"grid\" d=\"%s\" stroke=\"#e4e4e4\"", grid->str);
  g_string_append(s->out, " stroke-width=\"");
  lb_chart_put_px(s->out, MIN(s->k, 1));
  g_string_append(s->out, "\"/>\n");
  g_string_append_printf(s->out, "<path class=\"ticks\" d=\"%s\" stroke=\"#404040\"", ticks->str);
  g_string_append(s->out, " stroke-width=\"");
  lb_chart_put_px(s->out, MIN(s->k, 1));
  g_string_append(s->out, "\"/>\n");
  tick_labels_start(s);
  for (guint i = 0; i < at->len; i++) {
    double v = g_array_index(at, double, i);
    g_autofree char *label = lb_chart_tick_label(s, v);
    if (vertical)
      lb_chart_put_text(s, round(s->left + (s->right - s->left) * lb_chart_axis_at(s, v)),
                        s->bottom + tick + 0.95 * s->tick, "middle", NULL, label);
    else
      lb_chart_put_text(s, s->left - tick - 3 * s->k,
                        round(s->bottom - (s->bottom - s->top) * lb_chart_axis_at(s, v)) +
                            0.35 * s->tick,
                        "end", NULL, label);
  }
  g_string_append(s->out, "</g>\n");
}

void
lb_chart_frame(Svg *s)
{
  g_string_append(s->out, "<rect class=\"frame\" x=\"");
  lb_chart_put_px(s->out, s->left - 0.5);
  g_string_append(s->out, "\" y=\"");
  lb_chart_put_px(s->out, s->top - 0.5);
  g_string_append(s->out, "\" width=\"");
  lb_chart_put_px(s->out, s->right - s->left + 1);
  g_string_append(s->out, "\" height=\"");
  lb_chart_put_px(s->out, s->bottom - s->top + 1);
  g_string_append(s->out, "\" fill=\"none\" stroke=\"#404040\" stroke-width=\"");
  lb_chart_put_px(s->out, MIN(s->k, 1));
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
    e.width = swatch + lb_chart_text_width(s->cr, e.text, s->font, TRUE);
    g_array_append_val(entries, e);
  }
  for (guint i = 0; i < p->references->len; i++) {
    Entry e = {1, i, g_strdup(((Reference *)p->references->pdata[i])->label), 0};
    e.width = swatch + lb_chart_text_width(s->cr, e.text, s->font, FALSE);
    g_array_append_val(entries, e);
  }
  for (guint i = 0; i < p->style_labels->len; i++) {
    if (p->style_labels->pdata[i] == NULL)
      continue;
    Entry e = {2, i, g_strdup(p->style_labels->pdata[i]), 0};
    e.width = swatch + lb_chart_text_width(s->cr, e.text, s->font, FALSE);
    g_array_append_val(entries, e);
  }
  return entries;
}

double
lb_chart_legend_width(Svg *s)
{
  const LbPlot *p = s->plot;
  double w = 0;
  for (guint i = 0; i < p->series->len; i++) {
    g_autofree char *text = legend_text(p->series->pdata[i]);
    w = MAX(w, lb_chart_text_width(s->cr, text, s->font, TRUE));
  }
  for (guint i = 0; i < p->references->len; i++)
    w = MAX(w, lb_chart_text_width(s->cr, ((Reference *)p->references->pdata[i])->label, s->font,
                                   FALSE));
  for (guint i = 0; i < p->style_labels->len; i++)
    if (p->style_labels->pdata[i] != NULL)
      w = MAX(w, lb_chart_text_width(s->cr, p->style_labels->pdata[i], s->font, FALSE));
  for (guint i = 0; i < p->segment_names->len; i++)
    w = MAX(w, lb_chart_text_width(s->cr, p->segment_names->pdata[i], s->font, FALSE));
  return MIN(w + 44 * s->k, LEGEND_MAX * s->k);
}

/* The swatch of an entry, a line 28 long from (x, y). */
static void
entry_swatch(Svg *s, const Entry *e, double x, double y)
{
  GString *out = s->out;
  double k = s->k;
  g_string_append(out, "<path d=\"");
  lb_chart_put_segment(out, x, y, x + 28 * k, y);
  if (e->kind == 0) {
    const Series *se = s->plot->series->pdata[e->index];
    guint32 colour = lb_chart_series_colour(se->style);
    g_string_append(out, "\" stroke=\"");
    lb_chart_put_colour(out, colour);
    g_string_append(out, "\" stroke-width=\"");
    lb_chart_put_px(out, LINE_WIDTH * k);
    g_string_append(out, "\"");
    lb_chart_put_dash(out, 0, se->style, k);
    g_string_append(out, "/>\n<path d=\"");
    lb_chart_put_marker(out, lb_chart_series_marker(se->style), x + 14 * k, y, MARKER_R * k);
    g_string_append(out, "\" fill=\"");
    lb_chart_put_colour(out, colour);
    g_string_append(out, "\" stroke=\"#ffffff\" stroke-width=\"");
    lb_chart_put_px(out, k);
    g_string_append(out, "\"/>\n");
    return;
  }
  g_string_append(out, "\" stroke=\"");
  lb_chart_put_colour(out, e->kind == 1 ? REFERENCE_COLOUR : 0x505050);
  g_string_append(out, "\" stroke-width=\"");
  lb_chart_put_px(out, (e->kind == 1 ? 1.5 : 2) * k);
  g_string_append(out, "\"");
  if (e->kind == 1)
    put_dash_array(out, REFERENCE_DASH, k);
  else
    lb_chart_put_dash(out, e->index, 0, k);
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
    lb_chart_put_px(out, s->font);
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
      lb_chart_put_text(s, x + 36 * k, y + 0.35 * s->font, "start",
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
void
lb_chart_draw_lines(Svg *s)
{
  const LbPlot *p = s->plot;
  GString *out = s->out;
  double k = s->k;
  double legend = lb_chart_legend_width(s);
  s->left = 30 * k + lb_chart_value_ticks_width(s) + 14 * k;
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

  lb_chart_value_grid(s, FALSE);
  g_autoptr(GArray) at = g_array_new(FALSE, FALSE, sizeof(double));
  g_autoptr(GPtrArray) labels = g_ptr_array_new_with_free_func(g_free);
  x_ticks(s, at, labels);
  double tick = 5 * k;
  g_string_append(out, "<path class=\"ticks\" d=\"");
  for (guint i = 0; i < at->len; i++) {
    double x = round(g_array_index(at, double, i)) + 0.5;
    lb_chart_put_segment(out, x, s->bottom, x, s->bottom + tick);
  }
  g_string_append(out, "\" stroke=\"#404040\" stroke-width=\"");
  lb_chart_put_px(out, MIN(k, 1));
  g_string_append(out, "\"/>\n");
  tick_labels_start(s);
  for (guint i = 0; i < at->len; i++)
    lb_chart_put_text(s, round(g_array_index(at, double, i)), s->bottom + tick + 0.95 * s->tick,
                      "middle", NULL, labels->pdata[i]);
  g_string_append(out, "</g>\n");
  lb_chart_frame(s);
  lb_chart_put_text(s, (s->left + s->right) / 2, s->bottom + 42 * k, "middle",
                    "font-weight=\"bold\" fill=\"#202020\"", p->x_label);
  double ax = 18 * k, ay = (s->top + s->bottom) / 2;
  g_autoptr(GString) rotate = g_string_new("font-weight=\"bold\" fill=\"#202020\" "
                                           "transform=\"rotate(-90 ");
  lb_chart_put_px(rotate, ax);
  g_string_append_c(rotate, ' ');
  lb_chart_put_px(rotate, ay);
  g_string_append(rotate, ")\"");
  lb_chart_put_text(s, ax, ay, "middle", rotate->str, s->value_label);

  g_string_append_printf(out, "<clipPath id=\"%s-clip\"><rect x=\"", p->id);
  lb_chart_put_px(out, s->left - 6 * k);
  g_string_append(out, "\" y=\"");
  lb_chart_put_px(out, s->top - 6 * k);
  g_string_append(out, "\" width=\"");
  lb_chart_put_px(out, s->right - s->left + 12 * k);
  g_string_append(out, "\" height=\"");
  lb_chart_put_px(out, s->bottom - s->top + 12 * k);
  g_string_append(out, "\"/></clipPath>\n");
  draw_references(s);
  for (guint i = 0; i < p->series->len; i++) {
    const Series *se = p->series->pdata[i];
    g_autofree char *name = g_markup_escape_text(se->name, -1);
    g_string_append_printf(out, "<g class=\"series\" data-series=\"%s\"", name);
    lb_chart_put_style(out, se->style);
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
