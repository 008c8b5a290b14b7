/* Bar charts: a bar per series (stacked segments), the marks, the
 * legend of the segments. */
#include "report/plot-draw.h"

/* ---- bars ---- */

/* A bar's end at v; past the axis (the longest bar, cut) just right of
 * the frame. */
static double
bar_x(const Svg *s, double v)
{
  return s->left + (s->right - s->left) * MIN(lb_chart_axis_at(s, v * s->factor), 1.03);
}

static void
put_mark_line(Svg *s, double x, double y0, double y1)
{
  g_string_append(s->out, "<path class=\"mark\" d=\"");
  lb_chart_put_segment(s->out, x, y0, x, y1);
  g_string_append(s->out, "\" stroke=\"#202020\" stroke-width=\"");
  lb_chart_put_px(s->out, 2.5 * s->k);
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

void
lb_chart_draw_bars(Svg *s)
{
  const LbPlot *p = s->plot;
  GString *out = s->out;
  double k = s->k, bar = BAR_HEIGHT * k, gap = BAR_GAP * k;
  double names = 0;
  for (guint i = 0; i < p->series->len; i++)
    names = MAX(names,
                lb_chart_text_width(s->cr, ((Series *)p->series->pdata[i])->name, s->font, TRUE));
  double legend = lb_chart_legend_width(s);
  if (p->mark_label != NULL)
    legend = MAX(legend, MIN(lb_chart_text_width(s->cr, p->mark_label, s->font, FALSE) + 44 * k,
                             LEGEND_MAX * k));
  s->left = 16 * k + names + 28 * k; /* the name, then its series' marker */
  double totals = 70 * k;            /* room for the totals after the longest bar */
  double beside = s->width - 24 * k - legend - totals;
  s->legend_below = beside - s->left < PLOT_SHARE * (s->width - s->left);
  s->right = s->legend_below ? s->width - 12 * k - totals : beside;
  s->bottom = s->top + p->series->len * (bar + gap) + gap;

  lb_chart_segment_patterns(s);
  lb_chart_value_grid(s, TRUE);
  lb_chart_frame(s);
  lb_chart_put_text(s, (s->left + s->right) / 2, s->bottom + 42 * k, "middle",
                    "font-weight=\"bold\" fill=\"#202020\"", s->value_label);
  for (guint i = 0; i < p->series->len; i++) {
    const Series *se = p->series->pdata[i];
    double y = s->top + gap + i * (bar + gap);
    lb_chart_put_text(s, s->left - 26 * k, y + bar / 2 + 0.35 * s->font, "end",
                      "font-weight=\"bold\" fill=\"#202020\"", se->name);
    g_autofree char *name = g_markup_escape_text(se->name, -1);
    g_string_append_printf(out, "<g class=\"series\" data-series=\"%s\"", name);
    lb_chart_put_style(out, se->style);
    g_string_append(out, ">\n<path class=\"marker\" d=\"");
    lb_chart_put_marker(out, lb_chart_series_marker(se->style), s->left - 14 * k, y + bar / 2,
                        MARKER_R * k);
    g_string_append(out, "\" fill=\"");
    lb_chart_put_colour(out, lb_chart_series_colour(se->style));
    g_string_append(out, "\"/>\n");
    double sum = 0;
    for (guint c = 0; c < se->values->len; c++) {
      double v = g_array_index(se->values, double, c);
      double x0 = bar_x(s, sum);
      sum += v;
      double x1 = bar_x(s, sum);
      guint colour = lb_chart_fill_of(p, se->segments->pdata[c]);
      g_autofree char *segment = g_markup_escape_text(se->segments->pdata[c], -1);
      g_string_append_printf(out, "<rect class=\"segment\" data-segment=\"%s\" data-value=\"",
                             segment);
      lb_chart_put_number(out, v);
      g_string_append(out, "\" x=\"");
      lb_chart_put_px(out, x0);
      g_string_append(out, "\" y=\"");
      lb_chart_put_px(out, y);
      g_string_append(out, "\" width=\"");
      lb_chart_put_px(out, x1 - x0);
      g_string_append(out, "\" height=\"");
      lb_chart_put_px(out, bar);
      g_string_append(out, "\" fill=\"");
      lb_chart_put_fill(out, p, colour);
      g_string_append(out, "\" stroke=\"#ffffff\" stroke-width=\"0.5\"><title>");
      g_autofree char *tip = g_strdup_printf(
          "%s %s: %.6g%s%s", se->name, (const char *)se->segments->pdata[c], v * s->factor,
          s->unit != NULL ? " " : "", s->unit != NULL ? s->unit : "");
      g_autofree char *escaped = g_markup_escape_text(tip, -1);
      g_string_append_printf(out, "%s</title></rect>\n", escaped);
      const char *label = se->segments->pdata[c];
      guint32 rgb = lb_chart_segment_colour(colour);
      double luma = 0.299 * (rgb >> 16) + 0.587 * (rgb >> 8 & 0xff) + 0.114 * (rgb & 0xff);
      /* a halo of the segment's colour keeps the name readable on a pattern */
      g_autoptr(GString) look = g_string_new("font-size=\"");
      lb_chart_put_px(look, s->tick);
      g_string_append_printf(look, "\" fill=\"#%s\" stroke=\"#%06x\" stroke-width=\"",
                             luma < 140 ? "ffffff" : "202020", rgb & 0xffffff);
      lb_chart_put_px(look, 3 * k);
      g_string_append(look, "\" paint-order=\"stroke\"");
      if (lb_chart_text_width(s->cr, label, s->tick, FALSE) + 8 * k <= x1 - x0)
        lb_chart_put_text(s, (x0 + x1) / 2, y + bar / 2 + 0.35 * s->tick, "middle", look->str,
                          label);
    }
    double end = bar_x(s, sum);
    if (sum * s->factor > s->v_hi * (1 + 1e-9)) { /* the break, across the cut bar */
      double at = s->right - 14 * k;
      g_string_append(out, "<path class=\"break\" d=\"");
      for (guint c = 0; c < 2; c++)
        lb_chart_put_segment(out, at + 5 * k * c - 4 * k, y + bar + 3 * k, at + 5 * k * c + 4 * k,
                             y - 3 * k);
      g_string_append(out, "\" stroke=\"#ffffff\" stroke-width=\"");
      lb_chart_put_px(out, 2.5 * k);
      g_string_append(out, "\"/>\n");
    }
    if (isfinite(se->mark)) {
      double at = bar_x(s, se->mark);
      put_mark_line(s, at, y - 4 * k, y + bar + 4 * k);
      g_string_append(out, " data-value=\"");
      lb_chart_put_number(out, se->mark);
      g_autofree char *value = amount(s, se->mark);
      g_autofree char *tip =
          g_strdup_printf("%s %s: %s", se->name, p->mark_label != NULL ? p->mark_label : "", value);
      g_autofree char *escaped = g_markup_escape_text(tip, -1);
      g_string_append_printf(out, "\"><title>%s</title></path>\n", escaped);
      end = MAX(end, at);
    }
    g_autofree char *total = se->values->len == 0 ? g_strdup("no phases") : amount(s, sum);
    lb_chart_put_text(s, end + 6 * k, y + bar / 2 + 0.35 * s->font, "start", "fill=\"#404040\"",
                      total);
    g_string_append(out, "</g>\n");
  }
  /* the segments' fills, then what the marks are: right of the bars, or
   * under them in rows */
  double x0 = s->legend_below ? 12 * k : s->right + 90 * k;
  double x = x0, y = s->legend_below ? s->bottom + 64 * k : s->top + 8 * k;
  double row = 20 * k;
  g_autofree char *id = g_markup_escape_text(p->id, -1);
  g_string_append_printf(out, "<g class=\"legend\" id=\"%s-legend\" font-size=\"", id);
  lb_chart_put_px(out, s->font);
  g_string_append(out, "\">\n");
  for (guint c = 0; c < p->segment_names->len; c++) {
    const char *name = p->segment_names->pdata[c];
    double w = 18 * k + lb_chart_text_width(s->cr, name, s->font, FALSE);
    if (s->legend_below && x > x0 && x + w > s->width - 12 * k) {
      x = x0;
      y += row;
    }
    g_string_append(out, "<rect x=\"");
    lb_chart_put_px(out, x);
    g_string_append(out, "\" y=\"");
    lb_chart_put_px(out, y - 6 * k);
    g_string_append(out, "\" width=\"");
    lb_chart_put_px(out, 12 * k);
    g_string_append(out, "\" height=\"");
    lb_chart_put_px(out, 12 * k);
    g_string_append(out, "\" fill=\"");
    lb_chart_put_fill(out, p, lb_chart_fill_of(p, name));
    g_string_append(out, "\"/>\n");
    lb_chart_put_text(s, x + 18 * k, y + 0.35 * s->font, "start", "fill=\"#202020\"", name);
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
    lb_chart_put_text(s, x + 18 * k, y + 0.35 * s->font, "start", "fill=\"#202020\"",
                      p->mark_label);
    y += row;
  }
  g_string_append(out, "</g>\n");
  s->height = MAX(s->bottom + 60 * k, y + 10 * k);
}
