/* Figures in three formats from one drawing: PNG, SVG and PDF are drawn
 * by the same function, so that they agree. */
#include "report/figure.h"
#include "io/output.h"

#include <math.h>
#include <string.h>
#include <cairo-pdf.h>
#include <cairo-svg.h>

G_DEFINE_AUTOPTR_CLEANUP_FUNC(cairo_t, cairo_destroy)
G_DEFINE_AUTOPTR_CLEANUP_FUNC(cairo_surface_t, cairo_surface_destroy)

static const char *const format_names[] = {"png", "svg", "pdf"};
G_STATIC_ASSERT(G_N_ELEMENTS(format_names) == LB_FIGURE_FORMATS);

const char *
lb_figure_format_ext(LbFigureFormat format)
{
  for (guint f = 0; f < G_N_ELEMENTS(format_names); f++)
    if (format == 1u << f)
      return format_names[f];
  g_return_val_if_reached(NULL);
}

gboolean
lb_figure_parse_formats(const char *const *values, guint *formats, GError **error)
{
  *formats = 0;
  for (guint v = 0; values != NULL && values[v] != NULL; v++) {
    g_auto(GStrv) names = g_strsplit(values[v], ",", -1);
    for (guint n = 0; names[n] != NULL; n++) {
      const char *name = g_strstrip(names[n]);
      guint f = 0;
      while (f < G_N_ELEMENTS(format_names) && g_ascii_strcasecmp(name, format_names[f]) != 0)
        f++;
      if (f == G_N_ELEMENTS(format_names)) {
        g_set_error(error, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE,
                    "--picture-format %s: not png, svg or pdf", name);
        return FALSE;
      }
      *formats |= 1u << f;
    }
  }
  return TRUE;
}

char *
lb_figure_file(const char *dir, const char *scenario, const char *what, const char *ext)
{
  g_autofree char *name = g_strdup_printf("%s.%s.%s", scenario, what, ext);
  g_autofree char *part = lb_output_file_part(name);
  return g_build_filename(dir, part, NULL);
}

double
lb_figure_nice_step(double span, guint count, gboolean integral)
{
  double raw = span > 0 ? span / count : 1;
  double magnitude = pow(10, floor(log10(raw)));
  double f = raw / magnitude;
  double step = (f <= 1 ? 1 : f <= 2 ? 2 : f <= 2.5 ? 2.5 : f <= 5 ? 5 : 10) * magnitude;
  if (integral)
    step = MAX(1, round(step));
  return step;
}

char *
lb_figure_format_tick(double v, double step)
{
  int decimals = 0;
  while (decimals < 6 && fabs(step * pow(10, decimals) - round(step * pow(10, decimals))) > 1e-6)
    decimals++;
  return g_strdup_printf("%.*f", decimals, fabs(v) < step * 1e-9 ? 0.0 : v);
}

/* ---- text on SVG surfaces ---- */

static const cairo_user_data_key_t svg_text_key;

/* A <text> element in device units, with its colour, size, weight,
 * anchor and rotation. */
static void
svg_text(cairo_t *cr, GString *out, double x, double y, double anchor, const char *text)
{
  double bx = x, by = y;
  cairo_user_to_device(cr, &bx, &by);
  cairo_matrix_t m;
  cairo_get_matrix(cr, &m);
  double scale = sqrt(fabs(m.xx * m.yy - m.xy * m.yx));
  double angle = atan2(m.yx, m.xx) * 180 / G_PI;
  cairo_matrix_t fm;
  cairo_get_font_matrix(cr, &fm);
  double r = 0, g = 0, b = 0, a = 1;
  cairo_pattern_get_rgba(cairo_get_source(cr), &r, &g, &b, &a);
  gboolean bold = cairo_toy_font_face_get_weight(cairo_get_font_face(cr)) == CAIRO_FONT_WEIGHT_BOLD;
  g_autofree char *escaped = g_markup_escape_text(text, -1);
  char num[6][G_ASCII_DTOSTR_BUF_SIZE];
  g_string_append_printf(out, "<text x=\"%s\" y=\"%s\" font-size=\"%s\"",
                         g_ascii_formatd(num[0], sizeof num[0], "%.2f", bx),
                         g_ascii_formatd(num[1], sizeof num[1], "%.2f", by),
                         g_ascii_formatd(num[2], sizeof num[2], "%.2f", fm.xx * scale));
  if (bold)
    g_string_append(out, " font-weight=\"bold\"");
  if (anchor > 0)
    g_string_append_printf(out, " text-anchor=\"%s\"", anchor < 1 ? "middle" : "end");
  g_string_append_printf(out, " fill=\"#%02x%02x%02x\"", (guint)lround(r * 255),
                         (guint)lround(g * 255), (guint)lround(b * 255));
  if (a < 1)
    g_string_append_printf(out, " fill-opacity=\"%s\"",
                           g_ascii_formatd(num[3], sizeof num[3], "%.2f", a));
  if (fabs(angle) > 1e-6)
    g_string_append_printf(out, " transform=\"rotate(%s %s %s)\"",
                           g_ascii_formatd(num[3], sizeof num[3], "%.1f", angle), num[0], num[1]);
  g_string_append_printf(out, ">%s</text>\n", escaped);
}

void
lb_figure_show_text(cairo_t *cr, double x, double y, double anchor, const char *text)
{
  GString *svg = cairo_get_user_data(cr, &svg_text_key);
  if (svg != NULL) {
    svg_text(cr, svg, x, y, anchor, text);
    return;
  }
  cairo_text_extents_t e;
  cairo_text_extents(cr, text, &e);
  cairo_move_to(cr, x - anchor * e.x_advance, y);
  cairo_show_text(cr, text);
}

/* ---- writing ---- */

static cairo_status_t
append_cb(void *closure, const unsigned char *data, unsigned int length)
{
  g_byte_array_append(closure, data, length);
  return CAIRO_STATUS_SUCCESS;
}

static gboolean
cairo_failed(cairo_status_t status, const char *path, GError **error)
{
  if (status == CAIRO_STATUS_SUCCESS)
    return FALSE;
  g_set_error(error, G_FILE_ERROR, G_FILE_ERROR_FAILED, "cannot draw %s: %s", path,
              cairo_status_to_string(status));
  return TRUE;
}

/* The SVG's text after the drawing, inside its root element. */
static void
svg_add_text(GByteArray *bytes, const GString *text)
{
  const char *end = g_strrstr_len((const char *)bytes->data, bytes->len, "</svg>");
  g_assert(end != NULL); /* cairo's own SVG */
  gsize at = (gsize)(end - (const char *)bytes->data);
  g_autoptr(GString) group = g_string_new("<g font-family=\"" LB_FONT_FAMILY "\">\n");
  g_string_append_len(group, text->str, (gssize)text->len);
  g_string_append(group, "</g>\n");
  g_byte_array_remove_range(bytes, (guint)at, bytes->len - (guint)at);
  g_byte_array_append(bytes, (const guint8 *)group->str, (guint)group->len);
  g_byte_array_append(bytes, (const guint8 *)"</svg>\n", 7);
}

/* The SVG's ids come from cairo's counters, which the same drawing in the
 * same order makes the same in every run. */
GBytes *
lb_figure_draw(LbFigureFormat format, const LbFigureTarget *target, double width, double height,
               LbDrawFunc draw, gconstpointer data, const char *path, GError **error)
{
  g_autoptr(GByteArray) bytes = g_byte_array_new();
  double scale = target->scale;
  /* pixels are whole; a figure for print is its size in points exactly */
  double w = width * scale, h = height * scale;
  if (format == LB_FIGURE_PNG || !target->points) {
    w = ceil(w);
    h = ceil(h);
  }
  if (format == LB_FIGURE_PNG) {
    g_autoptr(cairo_surface_t) image =
        cairo_image_surface_create(CAIRO_FORMAT_RGB24, (int)w, (int)h);
    g_autoptr(cairo_t) cr = cairo_create(image);
    cairo_scale(cr, scale, scale);
    draw(cr, data);
    if (cairo_failed(cairo_status(cr), path, error) ||
        cairo_failed(cairo_surface_write_to_png_stream(image, append_cb, bytes), path, error))
      return NULL;
    return g_byte_array_free_to_bytes(g_steal_pointer(&bytes));
  }
  g_autoptr(GString) text = g_string_new(NULL);
  g_autoptr(cairo_surface_t) vector = NULL;
  if (format == LB_FIGURE_SVG) {
    vector = cairo_svg_surface_create_for_stream(append_cb, bytes, w, h);
    cairo_svg_surface_set_document_unit(vector,
                                        target->points ? CAIRO_SVG_UNIT_PT : CAIRO_SVG_UNIT_USER);
  } else {
    vector = cairo_pdf_surface_create_for_stream(append_cb, bytes, w, h);
    cairo_pdf_surface_set_metadata(vector, CAIRO_PDF_METADATA_CREATOR, "lbsim");
    cairo_pdf_surface_set_metadata(vector, CAIRO_PDF_METADATA_CREATE_DATE, "");
  }
  g_autoptr(cairo_t) cr = cairo_create(vector);
  if (format == LB_FIGURE_SVG)
    cairo_set_user_data(cr, &svg_text_key, text, NULL);
  cairo_scale(cr, scale, scale);
  draw(cr, data);
  cairo_status_t status = cairo_status(cr);
  g_clear_pointer(&cr, cairo_destroy);
  cairo_surface_finish(vector);
  if (cairo_failed(status, path, error) || cairo_failed(cairo_surface_status(vector), path, error))
    return NULL;
  if (format == LB_FIGURE_SVG)
    svg_add_text(bytes, text);
  return g_byte_array_free_to_bytes(g_steal_pointer(&bytes));
}

gboolean
lb_figure_save(const char *path, GBytes *bytes, GError **error)
{
  g_autoptr(GError) local = NULL;
  gsize length = 0;
  const char *data = g_bytes_get_data(bytes, &length);
  if (lb_output_write(path, data, (gssize)length, &local))
    return TRUE;
  g_set_error(error, G_FILE_ERROR, local->code, "cannot write %s: %s", path, local->message);
  return FALSE;
}
