/* An SVG reader for lbsim's own charts: a GMarkup parser that draws each
 * element as it ends, with the inherited attributes on a stack. */
#include "report/svg-draw.h"
#include "report/style.h"

#include <math.h>
#include <string.h>

typedef enum { PAINT_NONE, PAINT_COLOUR, PAINT_PATTERN } PaintKind;

typedef struct {
  PaintKind kind;
  guint32 rgb;
  cairo_pattern_t *pattern; /* the reader's */
} Paint;

#define MAX_DASHES 8

/* The attributes an element passes to its children. */
typedef struct {
  Paint fill, stroke;
  double fill_opacity, stroke_width;
  double dash[MAX_DASHES];
  guint ndash;
  double font_size;
  gboolean bold;
  double anchor; /* 0 start, 0.5 middle, 1 end */
  gboolean halo; /* paint-order: stroke first */
  gboolean round_join;
} State;

typedef struct {
  cairo_t *cr;          /* the drawing's */
  cairo_t *target;      /* where shapes go now: cr, or a pattern's */
  GArray *states;       /* State */
  GArray *saved;        /* gboolean per element: whether it saved cr */
  GHashTable *patterns; /* id -> cairo_pattern_t */
  GHashTable *clips;    /* id -> double[4] */
  /* inside a <clipPath> or <pattern>: its id and its content */
  char *clip_id, *pattern_id;
  double pattern_w, pattern_h, pattern_angle;
  cairo_surface_t *recording;
  /* inside a <text>: its attributes and its characters */
  GString *text;
  double text_x, text_y, text_angle, text_cx, text_cy;
  guint skip; /* depth inside a <title> */
} Reader;

static double
number(const char *text)
{
  return text != NULL ? g_ascii_strtod(text, NULL) : 0;
}

static const char *
attribute(const char **names, const char **values, const char *name)
{
  for (guint i = 0; names[i] != NULL; i++)
    if (strcmp(names[i], name) == 0)
      return values[i];
  return NULL;
}

static void
parse_paint(Reader *r, const char *text, Paint *paint)
{
  if (strcmp(text, "none") == 0) {
    paint->kind = PAINT_NONE;
  } else if (g_str_has_prefix(text, "url(#")) {
    g_autofree char *id = g_strndup(text + 5, strcspn(text + 5, ")"));
    paint->pattern = g_hash_table_lookup(r->patterns, id);
    paint->kind = paint->pattern != NULL ? PAINT_PATTERN : PAINT_NONE;
  } else if (text[0] == '#' && strlen(text) == 7) {
    paint->kind = PAINT_COLOUR;
    paint->rgb = (guint32)g_ascii_strtoull(text + 1, NULL, 16);
  }
}

/* The inherited attributes of an element, from its parent's. */
static void
apply(Reader *r, State *s, const char **names, const char **values)
{
  for (guint i = 0; names[i] != NULL; i++) {
    const char *n = names[i], *v = values[i];
    if (strcmp(n, "fill") == 0) {
      parse_paint(r, v, &s->fill);
    } else if (strcmp(n, "stroke") == 0) {
      parse_paint(r, v, &s->stroke);
    } else if (strcmp(n, "fill-opacity") == 0) {
      s->fill_opacity = number(v);
    } else if (strcmp(n, "stroke-width") == 0) {
      s->stroke_width = number(v);
    } else if (strcmp(n, "stroke-dasharray") == 0) {
      g_auto(GStrv) parts = g_strsplit_set(v, " ,", -1);
      s->ndash = 0;
      for (guint k = 0; parts[k] != NULL && s->ndash < MAX_DASHES; k++)
        if (*parts[k] != '\0')
          s->dash[s->ndash++] = number(parts[k]);
    } else if (strcmp(n, "font-size") == 0) {
      s->font_size = number(v);
    } else if (strcmp(n, "font-weight") == 0) {
      s->bold = strcmp(v, "bold") == 0;
    } else if (strcmp(n, "text-anchor") == 0) {
      s->anchor = strcmp(v, "middle") == 0 ? 0.5 : strcmp(v, "end") == 0 ? 1 : 0;
    } else if (strcmp(n, "paint-order") == 0) {
      s->halo = g_str_has_prefix(v, "stroke");
    } else if (strcmp(n, "stroke-linejoin") == 0) {
      s->round_join = strcmp(v, "round") == 0;
    }
  }
}

static void
set_paint(cairo_t *cr, const Paint *p, double opacity)
{
  if (p->kind == PAINT_PATTERN) {
    cairo_set_source(cr, p->pattern);
    return;
  }
  cairo_set_source_rgba(cr, (p->rgb >> 16) / 255.0, (p->rgb >> 8 & 0xff) / 255.0,
                        (p->rgb & 0xff) / 255.0, opacity);
}

/* Fills and strokes the current path as s says. */
static void
paint_path(cairo_t *cr, const State *s)
{
  if (s->fill.kind != PAINT_NONE) {
    set_paint(cr, &s->fill, s->fill_opacity);
    cairo_fill_preserve(cr);
  }
  if (s->stroke.kind != PAINT_NONE && s->stroke_width > 0) {
    set_paint(cr, &s->stroke, 1);
    cairo_set_line_width(cr, s->stroke_width);
    cairo_set_dash(cr, s->dash, (int)s->ndash, 0);
    cairo_set_line_join(cr, s->round_join ? CAIRO_LINE_JOIN_ROUND : CAIRO_LINE_JOIN_MITER);
    cairo_stroke_preserve(cr);
    cairo_set_dash(cr, NULL, 0, 0);
  }
  cairo_new_path(cr);
}

/* An arc of the path from (x0, y0) to (x1, y1) (SVG's endpoint form, the
 * ellipse's axes along x and y). */
static void
arc_to(cairo_t *cr, double x0, double y0, double rx, double ry, gboolean large, gboolean sweep,
       double x1, double y1)
{
  rx = fabs(rx);
  ry = fabs(ry);
  if (rx == 0 || ry == 0 || (x0 == x1 && y0 == y1)) {
    cairo_line_to(cr, x1, y1);
    return;
  }
  double dx = (x0 - x1) / 2, dy = (y0 - y1) / 2;
  double lambda = dx * dx / (rx * rx) + dy * dy / (ry * ry);
  if (lambda > 1) {
    rx *= sqrt(lambda);
    ry *= sqrt(lambda);
  }
  double num = rx * rx * ry * ry - rx * rx * dy * dy - ry * ry * dx * dx;
  double den = rx * rx * dy * dy + ry * ry * dx * dx;
  double k = sqrt(MAX(num / den, 0)) * (large == sweep ? -1 : 1);
  double cxp = k * rx * dy / ry, cyp = -k * ry * dx / rx;
  double cx = cxp + (x0 + x1) / 2, cy = cyp + (y0 + y1) / 2;
  double a0 = atan2((dy - cyp) / ry, (dx - cxp) / rx);
  double a1 = atan2((-dy - cyp) / ry, (-dx - cxp) / rx);
  cairo_save(cr);
  cairo_translate(cr, cx, cy);
  cairo_scale(cr, rx, ry);
  if (sweep)
    cairo_arc(cr, 0, 0, 1, a0, a1);
  else
    cairo_arc_negative(cr, 0, 0, 1, a0, a1);
  cairo_restore(cr);
}

/* The numbers after a path command, as many as it takes. */
static gboolean
read_numbers(const char **at, double *v, guint n)
{
  for (guint i = 0; i < n; i++) {
    while (**at == ' ' || **at == ',')
      (*at)++;
    char *end = NULL;
    v[i] = g_ascii_strtod(*at, &end);
    if (end == *at)
      return FALSE;
    *at = end;
  }
  return TRUE;
}

static void
path_data(cairo_t *cr, const char *d)
{
  double x = 0, y = 0, sx = 0, sy = 0, v[7];
  char cmd = 0;
  for (const char *at = d; *at != '\0';) {
    while (*at == ' ' || *at == ',')
      at++;
    if (*at == '\0')
      break;
    if (g_ascii_isalpha(*at))
      cmd = *at++;
    gboolean rel = g_ascii_islower(cmd);
    switch (g_ascii_toupper(cmd)) {
    case 'M':
    case 'L':
      if (!read_numbers(&at, v, 2))
        return;
      x = rel ? x + v[0] : v[0];
      y = rel ? y + v[1] : v[1];
      if (g_ascii_toupper(cmd) == 'M') {
        cairo_move_to(cr, x, y);
        sx = x;
        sy = y;
        cmd = rel ? 'l' : 'L'; /* numbers after a move are lines */
      } else {
        cairo_line_to(cr, x, y);
      }
      break;
    case 'H':
      if (!read_numbers(&at, v, 1))
        return;
      x = rel ? x + v[0] : v[0];
      cairo_line_to(cr, x, y);
      break;
    case 'V':
      if (!read_numbers(&at, v, 1))
        return;
      y = rel ? y + v[0] : v[0];
      cairo_line_to(cr, x, y);
      break;
    case 'A': {
      if (!read_numbers(&at, v, 7))
        return;
      double x1 = rel ? x + v[5] : v[5], y1 = rel ? y + v[6] : v[6];
      arc_to(cr, x, y, v[0], v[1], v[3] != 0, v[4] != 0, x1, y1);
      x = x1;
      y = y1;
      break;
    }
    case 'Z':
      cairo_close_path(cr);
      x = sx;
      y = sy;
      break;
    default:
      return;
    }
  }
}

static State *
top(Reader *r)
{
  return &g_array_index(r->states, State, r->states->len - 1);
}

/* "rotate(A X Y)" or "translate(X Y)" applied to cr; the angle of a
 * rotation and its centre. */
static void
transform(cairo_t *cr, const char *text, double *angle, double *cx, double *cy)
{
  double v[3] = {0, 0, 0};
  const char *open = strchr(text, '(');
  if (open == NULL)
    return;
  const char *at = open + 1;
  guint n = 0;
  while (n < 3 && read_numbers(&at, &v[n], 1))
    n++;
  if (g_str_has_prefix(text, "translate")) {
    cairo_translate(cr, v[0], v[1]);
  } else if (g_str_has_prefix(text, "rotate")) {
    *angle = v[0];
    *cx = v[1];
    *cy = v[2];
  }
}

static void
start_cb(GMarkupParseContext *context, const char *element, const char **names, const char **values,
         gpointer data, GError **error)
{
  Reader *r = data;
  State s = *top(r);
  gboolean saved = FALSE;
  if (r->skip > 0 || strcmp(element, "title") == 0) {
    r->skip++;
    g_array_append_val(r->states, s);
    g_array_append_val(r->saved, saved);
    return;
  }
  apply(r, &s, names, values);
  cairo_t *cr = r->target;
  const char *id = attribute(names, values, "id");
  if (strcmp(element, "g") == 0) {
    cairo_save(cr);
    saved = TRUE;
    const char *t = attribute(names, values, "transform");
    double angle = 0, cx = 0, cy = 0;
    if (t != NULL)
      transform(cr, t, &angle, &cx, &cy);
    const char *clip = attribute(names, values, "clip-path");
    if (clip != NULL && g_str_has_prefix(clip, "url(#")) {
      g_autofree char *cid = g_strndup(clip + 5, strcspn(clip + 5, ")"));
      const double *rect = g_hash_table_lookup(r->clips, cid);
      if (rect != NULL) {
        cairo_rectangle(cr, rect[0], rect[1], rect[2], rect[3]);
        cairo_clip(cr);
      }
    }
  } else if (strcmp(element, "clipPath") == 0) {
    r->clip_id = g_strdup(id);
  } else if (strcmp(element, "pattern") == 0 && id != NULL) {
    r->pattern_id = g_strdup(id);
    r->pattern_w = number(attribute(names, values, "width"));
    r->pattern_h = number(attribute(names, values, "height"));
    const char *t = attribute(names, values, "patternTransform");
    double cx = 0, cy = 0;
    r->pattern_angle = 0;
    if (t != NULL)
      transform(cr, t, &r->pattern_angle, &cx, &cy);
    cairo_rectangle_t extent = {0, 0, r->pattern_w, r->pattern_h};
    r->recording = cairo_recording_surface_create(CAIRO_CONTENT_COLOR_ALPHA, &extent);
    r->target = cairo_create(r->recording);
  } else if (strcmp(element, "rect") == 0) {
    double x = number(attribute(names, values, "x")), y = number(attribute(names, values, "y"));
    double w = number(attribute(names, values, "width"));
    double h = number(attribute(names, values, "height"));
    if (r->clip_id != NULL) {
      double *rect = g_new(double, 4);
      rect[0] = x;
      rect[1] = y;
      rect[2] = w;
      rect[3] = h;
      g_hash_table_insert(r->clips, g_strdup(r->clip_id), rect);
    } else {
      cairo_rectangle(cr, x, y, w, h);
      paint_path(cr, &s);
    }
  } else if (strcmp(element, "circle") == 0) {
    cairo_new_sub_path(cr);
    cairo_arc(cr, number(attribute(names, values, "cx")), number(attribute(names, values, "cy")),
              number(attribute(names, values, "r")), 0, 2 * G_PI);
    paint_path(cr, &s);
  } else if (strcmp(element, "path") == 0) {
    const char *d = attribute(names, values, "d");
    if (d != NULL) {
      path_data(cr, d);
      paint_path(cr, &s);
    }
  } else if (strcmp(element, "text") == 0) {
    r->text = g_string_new(NULL);
    r->text_x = number(attribute(names, values, "x"));
    r->text_y = number(attribute(names, values, "y"));
    r->text_angle = 0;
    const char *t = attribute(names, values, "transform");
    if (t != NULL)
      transform(cr, t, &r->text_angle, &r->text_cx, &r->text_cy);
  }
  g_array_append_val(r->states, s);
  g_array_append_val(r->saved, saved);
}

static void
draw_text(Reader *r, const State *s)
{
  cairo_t *cr = r->target;
  cairo_save(cr);
  if (r->text_angle != 0) {
    cairo_translate(cr, r->text_cx, r->text_cy);
    cairo_rotate(cr, r->text_angle * G_PI / 180);
    cairo_translate(cr, -r->text_cx, -r->text_cy);
  }
  cairo_select_font_face(cr, LB_FONT_FAMILY, CAIRO_FONT_SLANT_NORMAL,
                         s->bold ? CAIRO_FONT_WEIGHT_BOLD : CAIRO_FONT_WEIGHT_NORMAL);
  cairo_set_font_size(cr, s->font_size);
  cairo_text_extents_t e;
  cairo_text_extents(cr, r->text->str, &e);
  cairo_move_to(cr, r->text_x - s->anchor * e.x_advance, r->text_y);
  if (s->halo && s->stroke.kind != PAINT_NONE) {
    cairo_text_path(cr, r->text->str);
    set_paint(cr, &s->stroke, 1);
    cairo_set_line_width(cr, s->stroke_width);
    cairo_set_line_join(cr, CAIRO_LINE_JOIN_ROUND);
    cairo_stroke_preserve(cr);
    set_paint(cr, &s->fill, s->fill_opacity);
    cairo_fill(cr);
  } else if (s->fill.kind != PAINT_NONE) {
    set_paint(cr, &s->fill, s->fill_opacity);
    cairo_show_text(cr, r->text->str);
  }
  cairo_restore(cr);
}

static void
end_cb(GMarkupParseContext *context, const char *element, gpointer data, GError **error)
{
  Reader *r = data;
  State s = *top(r);
  gboolean saved = g_array_index(r->saved, gboolean, r->saved->len - 1);
  g_array_set_size(r->states, r->states->len - 1);
  g_array_set_size(r->saved, r->saved->len - 1);
  if (r->skip > 0) {
    r->skip--;
    return;
  }
  if (strcmp(element, "text") == 0 && r->text != NULL) {
    draw_text(r, &s);
    g_string_free(g_steal_pointer(&r->text), TRUE);
  } else if (strcmp(element, "clipPath") == 0) {
    g_clear_pointer(&r->clip_id, g_free);
  } else if (strcmp(element, "pattern") == 0 && r->recording != NULL) {
    cairo_destroy(r->target);
    r->target = r->cr;
    cairo_pattern_t *p = cairo_pattern_create_for_surface(r->recording);
    cairo_pattern_set_extend(p, CAIRO_EXTEND_REPEAT);
    cairo_matrix_t m;
    cairo_matrix_init_rotate(&m, r->pattern_angle * G_PI / 180);
    cairo_matrix_invert(&m);
    cairo_pattern_set_matrix(p, &m);
    g_hash_table_insert(r->patterns, g_steal_pointer(&r->pattern_id), p);
    g_clear_pointer(&r->recording, cairo_surface_destroy);
  }
  if (saved)
    cairo_restore(r->target);
}

static void
text_cb(GMarkupParseContext *context, const char *text, gsize length, gpointer data, GError **error)
{
  Reader *r = data;
  if (r->text != NULL && r->skip == 0)
    g_string_append_len(r->text, text, (gssize)length);
}

static void
reader_clear(Reader *r)
{
  g_array_unref(r->states);
  g_array_unref(r->saved);
  g_hash_table_unref(r->patterns);
  g_hash_table_unref(r->clips);
  g_free(r->clip_id);
  g_free(r->pattern_id);
  if (r->recording != NULL) {
    cairo_destroy(r->target);
    cairo_surface_destroy(r->recording);
  }
  if (r->text != NULL)
    g_string_free(r->text, TRUE);
}

static gboolean
read_svg(cairo_t *cr, const char *svg, GError **error)
{
  Reader r = {
      .cr = cr,
      .target = cr,
      .states = g_array_new(FALSE, FALSE, sizeof(State)),
      .saved = g_array_new(FALSE, FALSE, sizeof(gboolean)),
      .patterns = g_hash_table_new_full(g_str_hash, g_str_equal, g_free,
                                        (GDestroyNotify)cairo_pattern_destroy),
      .clips = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, g_free),
  };
  /* SVG's initial values */
  State initial = {.fill = {PAINT_COLOUR, 0, NULL},
                   .stroke = {PAINT_NONE, 0, NULL},
                   .fill_opacity = 1,
                   .stroke_width = 1,
                   .font_size = 16};
  g_array_append_val(r.states, initial);
  gboolean saved = FALSE;
  g_array_append_val(r.saved, saved);
  GMarkupParser parser = {start_cb, end_cb, text_cb, NULL, NULL};
  GMarkupParseContext *ctx = g_markup_parse_context_new(&parser, 0, &r, NULL);
  gboolean ok = g_markup_parse_context_parse(ctx, svg, -1, error) &&
                g_markup_parse_context_end_parse(ctx, error);
  g_markup_parse_context_free(ctx);
  reader_clear(&r);
  return ok;
}

gboolean
lb_svg_draw(cairo_t *cr, const char *svg, GError **error)
{
  cairo_save(cr);
  gboolean ok = read_svg(cr, svg, error);
  cairo_restore(cr);
  return ok;
}
