/* Charts as SVG text: axes with round ticks, a legend, series as groups
 * that carry their numbers. Text is measured with cairo's toy font API in
 * the same sans-serif a browser picks, to lay out margins and legends.
 * Every length is made for body text of LB_PLOT_FONT and scaled with the
 * chart's (k), so that a chart for print, 8 points on 3.4 inches, is laid
 * out as the page's. */
#include "report/plot-draw.h"

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
  lb_chart_put_segment(out, 1, 6, 27, 6);
  g_string_append(out, "\" stroke=\"");
  lb_chart_put_colour(out, lb_chart_series_colour(style));
  g_string_append(out, "\" stroke-width=\"2.25\"");
  lb_chart_put_dash(out, 0, style, 1);
  g_string_append(out, "/><path d=\"");
  lb_chart_put_marker(out, lb_chart_series_marker(style), 14, 6, MARKER_R);
  g_string_append(out, "\" fill=\"");
  lb_chart_put_colour(out, lb_chart_series_colour(style));
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
    if (line->len > 0 && lb_chart_text_width(cr, longer, size, bold) > width) {
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
    lb_chart_put_px(look, s->head);
    g_string_append(look, "\" font-weight=\"bold\" fill=\"#202020\"");
    lb_chart_put_text(s, 16 * k, y, "start", look->str, title->pdata[i]);
  }
  if (p->subtitle != NULL) {
    g_autoptr(GPtrArray) sub = wrap(s->cr, p->subtitle, s->font, FALSE, room);
    for (guint i = 0; i < sub->len; i++) {
      y += 1.35 * s->font;
      lb_chart_put_text(s, 16 * k, y, "start", "fill=\"#505050\"", sub->pdata[i]);
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
  lb_chart_value_extent(plot, &lo, &hi);
  double positive = lb_chart_smallest_positive(plot);
  if (plot->kind == LB_PLOT_LINES && isfinite(positive))
    s.log = plot->value_scale == LB_PLOT_VALUES_LOG ||
            (plot->value_scale == LB_PLOT_VALUES_AUTO && lo > 0 && hi >= plot->log_span * lo);
  double second = lb_chart_second_longest(plot);
  if (plot->kind == LB_PLOT_BARS && plot->value_scale != LB_PLOT_VALUES_LINEAR && second > 0 &&
      hi >= LB_PLOT_CUT_RATIO * second) {
    s.cut = TRUE;
    hi = second;
  }
  lb_chart_value_range(&s, s.log ? positive : lo, hi);
  s.top = draw_titles(&s);
  if (plot->kind == LB_PLOT_LINES)
    lb_chart_draw_lines(&s);
  else
    lb_chart_draw_bars(&s);
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
  lb_chart_put_px(out, width);
  g_string_append_printf(out, "%s\" height=\"", unit);
  lb_chart_put_px(out, height);
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
  lb_chart_put_px(out, width);
  g_string_append_c(out, ' ');
  lb_chart_put_px(out, height);
  g_string_append_printf(out,
                         "\" role=\"img\" aria-labelledby=\"%s-title\" font-family=\"%s\" "
                         "font-size=\"",
                         id, LB_FONT_FAMILY);
  lb_chart_put_px(out, plot->font);
  g_string_append_printf(out, "\">\n<title id=\"%s-title\">%s</title>\n<rect width=\"", id, title);
  lb_chart_put_px(out, width);
  g_string_append(out, "\" height=\"");
  lb_chart_put_px(out, height);
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
    lb_chart_put_px(bodies, y);
    g_string_append_printf(bodies, ")\" font-size=\"");
    lb_chart_put_px(bodies, plots[i]->font);
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
  lb_chart_put_px(out, *width);
  g_string_append_c(out, ' ');
  lb_chart_put_px(out, *height);
  g_string_append_printf(out, "\" font-family=\"%s\">\n<title>%s</title>\n<rect width=\"",
                         LB_FONT_FAMILY, title);
  lb_chart_put_px(out, *width);
  g_string_append(out, "\" height=\"");
  lb_chart_put_px(out, *height);
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
