/* Chunks over time: a balancer that owns the compute (dls), each rank's
 * chunks as bars on a time axis (a Gantt chart). */
#include "report/picture-draw.h"

/* ---- chunks over time (a balancer that owns the compute) ---- */

#define GANTT_LEFT 110
#define GANTT_RIGHT (LB_PICTURES_WIDTH - 150)
#define GANTT_TOP 120
#define GANTT_BOTTOM 90
/* Migrations drawn as lines from the owner's row up to this many;
 * beyond, only the marks at the chunks' starts. */
#define GANTT_LINES_MAX 300

void
lb_pictures_gantt_layout(guint ranks, double t_end, LbGanttLayout *l)
{
  l->ranks = MAX(ranks, 1);
  l->left = GANTT_LEFT;
  l->right = GANTT_RIGHT;
  l->top = GANTT_TOP;
  l->row = CLAMP(900.0 / l->ranks, 0.5, 24.0);
  double plot = MAX(l->row * l->ranks, 240.0);
  l->row = plot / l->ranks;
  l->bottom = l->top + plot;
  l->width = LB_PICTURES_WIDTH;
  l->height = (guint)ceil(l->bottom + GANTT_BOTTOM);
  l->t_end = t_end > 0 ? t_end : 1;
}

guint32
lb_pictures_chunk_colour(guint64 first, guint64 n)
{
  return lb_pic_viridis(n > 1 ? 0.1 + 0.9 * (double)first / (double)(n - 1) : 0.5);
}

typedef struct {
  const LbChunkPicture *picture;
  LbGanttLayout layout;
  guint64 migrated;
  guint64 iterations; /* the loop's: the last chunk's end, at most */
  char *title, *subtitle, *details;
} Gantt;

static void
gantt_clear(Gantt *g)
{
  g_free(g->title);
  g_free(g->subtitle);
  g_free(g->details);
}

G_DEFINE_AUTO_CLEANUP_CLEAR_FUNC(Gantt, gantt_clear)

static double
gantt_x(const LbGanttLayout *l, double t)
{
  return l->left + (l->right - l->left) * t / l->t_end;
}

static void
draw_gantt(cairo_t *cr, gconstpointer data)
{
  const Gantt *g = data;
  const LbChunkPicture *pic = g->picture;
  const LbGanttLayout *l = &g->layout;
  cairo_set_source_rgb(cr, 1, 1, 1);
  cairo_paint(cr);
  lb_pic_draw_titles(cr, l->width, g->title, g->subtitle, g->details);
  double w = l->right - l->left, h = l->bottom - l->top;
  /* idle time grey, the bars over it: a raster of the plot, so that
   * thousands of chunks cost pixels, not paths */
  guint pw = (guint)ceil(w), ph = (guint)ceil(h);
  g_autoptr(cairo_surface_t) bars =
      cairo_image_surface_create(CAIRO_FORMAT_RGB24, (int)pw, (int)ph);
  cairo_surface_flush(bars);
  guint8 *px = cairo_image_surface_get_data(bars);
  int stride = cairo_image_surface_get_stride(bars);
  for (guint y = 0; y < ph; y++)
    for (guint x = 0; x < pw; x++)
      ((guint32 *)(gpointer)(px + (gsize)y * stride))[x] = 0xf0f0f0;
  const LbChunk *chunk = (const LbChunk *)pic->chunks->data;
  for (guint i = 0; i < pic->chunks->len; i++) {
    const LbChunk *c = &chunk[i];
    if (c->rank >= l->ranks)
      continue;
    guint x0 = (guint)CLAMP(lround(gantt_x(l, c->began) - l->left), 0, (long)pw - 1);
    guint x1 = (guint)CLAMP(lround(gantt_x(l, c->ended) - l->left), (long)x0 + 1, (long)pw);
    guint y0 = (guint)lround(c->rank * l->row);
    guint y1 = (guint)MAX(lround((c->rank + 1) * l->row), (long)y0 + 1);
    /* a gap of a pixel between rows that have room for it */
    if (l->row >= 6)
      y1--;
    guint32 colour = lb_pictures_chunk_colour(c->first, g->iterations);
    for (guint y = y0; y < MIN(y1, ph); y++)
      for (guint x = x0; x < x1; x++)
        ((guint32 *)(gpointer)(px + (gsize)y * stride))[x] = colour;
    /* a chunk's start: a white line, so that chunks in a row stay apart;
     * orange and two pixels wide when it migrated */
    gboolean migrated = c->owner != c->rank;
    guint mark = migrated ? MIN(2u, x1 - x0) : x1 - x0 >= 3 ? 1 : 0;
    for (guint y = y0; y < MIN(y1, ph); y++)
      for (guint x = x0; x < x0 + mark; x++)
        ((guint32 *)(gpointer)(px + (gsize)y * stride))[x] = migrated ? 0xd55e00 : 0xffffff;
  }
  cairo_surface_mark_dirty(bars);
  cairo_set_source_surface(cr, bars, l->left, l->top);
  cairo_pattern_set_filter(cairo_get_source(cr), CAIRO_FILTER_NEAREST);
  cairo_paint(cr);

  /* migrations, when few: from the owner's row to the worker's at the
   * chunk's start */
  cairo_set_line_width(cr, 1);
  for (guint i = 0; g->migrated <= GANTT_LINES_MAX && i < pic->chunks->len; i++) {
    const LbChunk *c = &chunk[i];
    if (c->owner == c->rank || c->rank >= l->ranks || c->owner >= l->ranks)
      continue;
    double x = round(gantt_x(l, c->began)) + 0.5;
    cairo_move_to(cr, x, l->top + (c->owner + 0.5) * l->row);
    cairo_line_to(cr, x, l->top + (c->rank + 0.5) * l->row);
  }
  cairo_set_source_rgba(cr, 0.84, 0.37, 0, 0.6);
  cairo_stroke(cr);

  /* adaptation steps: where each one's first chunk starts */
  guint step = G_MAXUINT;
  lb_pic_set_font(cr, 10, FALSE);
  for (guint i = 0; i < pic->chunks->len; i++) {
    const LbChunk *c = &chunk[i];
    if (c->adaptation == step)
      continue;
    step = c->adaptation;
    double start = c->began;
    for (guint k = i; k < pic->chunks->len && chunk[k].adaptation == step; k++)
      start = MIN(start, chunk[k].began);
    double x = round(gantt_x(l, start)) + 0.5;
    lb_pic_set_rgb(cr, 0x404040);
    cairo_move_to(cr, x, l->top - 6);
    cairo_line_to(cr, x, l->bottom);
    cairo_stroke(cr);
    if (pic->nadaptations > 1) {
      g_autofree char *name = g_strdup_printf("step %u", step);
      lb_pic_show_text(cr, x + 3, l->top - 4, 0, 1, name);
    }
  }

  lb_pic_set_rgb(cr, 0x404040);
  cairo_rectangle(cr, l->left - 0.5, l->top - 0.5, w + 1, h + 1);
  cairo_stroke(cr);
  /* the axes: simulated time, ranks downwards */
  lb_pic_set_font(cr, 11, FALSE);
  double t_step = lb_figure_nice_step(l->t_end, 8, FALSE);
  for (double t = 0; t <= l->t_end + t_step * 1e-6; t += t_step) {
    double x = round(gantt_x(l, t)) + 0.5;
    cairo_move_to(cr, x, l->bottom);
    cairo_line_to(cr, x, l->bottom + 5);
    cairo_stroke(cr);
    g_autofree char *label = lb_figure_format_tick(t, t_step);
    lb_pic_show_text(cr, x, l->bottom + 8, 0.5, 0, label);
  }
  double r_step = lb_figure_nice_step(l->ranks, MIN(l->ranks, 16u), TRUE);
  for (double r = 0; r < l->ranks; r += r_step) {
    double y = l->top + (r + 0.5) * l->row;
    cairo_move_to(cr, l->left - 5, y);
    cairo_line_to(cr, l->left, y);
    cairo_stroke(cr);
    g_autofree char *label = g_strdup_printf("r%.0f", r);
    lb_pic_show_text(cr, l->left - 8, y, 1, 0.5, label);
  }
  lb_pic_set_font(cr, 12, TRUE);
  lb_pic_show_text(cr, (l->left + l->right) / 2, l->bottom + 36, 0.5, 0, "simulated time (s)");
  lb_pic_show_rotated(cr, l->left - 80, (l->top + l->bottom) / 2, "worker (rank)");

  /* the colour key: the iterations' position in the loop */
  double x = l->right + 28, bar = MIN(h, 360.0);
  cairo_pattern_t *ramp = cairo_pattern_create_linear(0, l->top + bar, 0, l->top);
  for (guint i = 0; i < 10; i++) {
    guint32 c = lb_pic_viridis(0.1 + 0.1 * i);
    cairo_pattern_add_color_stop_rgb(ramp, i / 9.0, (c >> 16) / 255.0, (c >> 8 & 0xff) / 255.0,
                                     (c & 0xff) / 255.0);
  }
  cairo_rectangle(cr, x, l->top, COLOUR_BAR_WIDTH, bar);
  cairo_set_source(cr, ramp);
  cairo_fill(cr);
  cairo_pattern_destroy(ramp);
  lb_pic_set_rgb(cr, 0x404040);
  lb_pic_set_font(cr, 11, FALSE);
  g_autofree char *last = lb_pic_format_load(g->iterations > 0 ? g->iterations - 1 : 0);
  lb_pic_show_text(cr, x + COLOUR_BAR_WIDTH + 6, l->top, 0, 0, last);
  lb_pic_show_text(cr, x + COLOUR_BAR_WIDTH + 6, l->top + bar, 0, 1, "0");
  lb_pic_show_rotated(cr, x + COLOUR_BAR_WIDTH + 24, l->top + bar / 2, "first iteration");
  if (g->migrated > 0) {
    lb_pic_set_rgb(cr, 0xd55e00);
    cairo_rectangle(cr, x, l->top + bar + 24, 3, 12);
    cairo_fill(cr);
    lb_pic_set_rgb(cr, 0x404040);
    lb_pic_show_text(cr, x + 8, l->top + bar + 30, 0, 0.5, "migrated");
  }
}

gboolean
lb_pictures_chunks(const LbPictureOptions *o, const LbChunkPicture *picture, GError **error)
{
  g_auto(Gantt) g = {.picture = picture};
  double t_end = 0;
  guint64 iterations = 0, work = 0;
  g_autofree guint64 *count = g_new0(guint64, MAX(picture->ranks, 1));
  const LbChunk *chunk = (const LbChunk *)picture->chunks->data;
  for (guint i = 0; i < picture->chunks->len; i++) {
    const LbChunk *c = &chunk[i];
    t_end = MAX(t_end, c->ended);
    iterations = MAX(iterations, c->first + c->count);
    work += c->count;
    g.migrated += c->owner != c->rank;
    if (c->rank < picture->ranks)
      count[c->rank]++;
  }
  g.iterations = iterations;
  lb_pictures_gantt_layout(picture->ranks, t_end, &g.layout);
  g.title = g_strdup_printf("%s \xc2\xb7 %s", picture->scenario, picture->balancer);
  g.subtitle = g_strdup_printf("the chunks each worker computed over simulated time, %u adaptation "
                               "step%s, coloured by their first iteration",
                               picture->nadaptations, picture->nadaptations == 1 ? "" : "s");
  guint busiest = 0;
  for (guint r = 1; r < picture->ranks; r++)
    if (count[r] > count[busiest])
      busiest = r;
  g.details = g_strdup_printf(
      "%u chunks, %" G_GUINT64_FORMAT " migrated (an orange start%s) \xc2\xb7 %" G_GUINT64_FORMAT
      " iterations \xc2\xb7 %u worker%s, r%u computed the most chunks (%" G_GUINT64_FORMAT
      ") \xc2\xb7 T_p %.4g s",
      picture->chunks->len, g.migrated,
      g.migrated <= GANTT_LINES_MAX && g.migrated > 0 ? ", a line from the data's owner" : "", work,
      picture->ranks, picture->ranks == 1 ? "" : "s", busiest, count[busiest], t_end);
  g_autofree char *what = g_strdup_printf("%s.chunks", picture->balancer);
  return lb_pic_write_picture(o, picture->scenario, what, g.layout.width, g.layout.height,
                              draw_gantt, &g, error);
}
