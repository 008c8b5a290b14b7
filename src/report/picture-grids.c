/* A SAMR hierarchy's grids: each level's boxes coloured by owner, the
 * ranks' loads beside them. */
#include "report/picture-draw.h"

/* ---- the grids of a hierarchy ---- */

#define GRIDS_WIDTH LB_PICTURES_WIDTH
#define GRIDS_HEIGHT 760
#define GRIDS_TOP 130
/* More grids than this in a panel are drawn as an image. */
#define GRIDS_VECTOR_MAX 1500

/* A colour per rank, spread round the hue circle by the golden angle. */
guint32
lb_pictures_owner_colour(guint owner)
{
  double h = fmod(owner * 0.381966, 1.0) * 6.0, s = 0.55, v = 0.92;
  int i = (int)h;
  double f = h - i, p = v * (1 - s), q = v * (1 - s * f), t = v * (1 - s * (1 - f));
  double rgb[6][3] = {{v, t, p}, {q, v, p}, {p, v, t}, {p, q, v}, {t, p, v}, {v, p, q}};
  const double *c = rgb[i % 6];
  return (guint32)(c[0] * 255) << 16 | (guint32)(c[1] * 255) << 8 | (guint32)(c[2] * 255);
}

/* Per-level outlines: a colour and a width each, finer levels stronger. */
static const guint32 level_colours[] = {0x505050, 0x000000, 0xcc79a7, 0x0072b2, 0xe69f00};

static guint32
level_colour(guint level)
{
  return level_colours[MIN(level, G_N_ELEMENTS(level_colours) - 1)];
}

static double
level_width(guint level)
{
  return 0.6 + 0.8 * level;
}

/* A grid's rectangle in a panel, or FALSE when it does not meet the
 * drawn plane (a 3D hierarchy: the root's mid-plane). */
static gboolean
grid_rect(const LbGridsPicture *p, const LbGridPart *g, double left, double top, double s, double h,
          double r[4])
{
  double k = (double)g->scale;
  if (p->dim == 3) { /* the mid-plane of the root, at this level's resolution */
    double z = (double)p->root[2] / 2.0 * k;
    if (z < (double)g->lo[2] || z >= (double)g->hi[2])
      return FALSE;
  }
  r[0] = left + s * (double)g->lo[0] / k;
  r[1] = top + h - s * (double)g->hi[1] / k;
  r[2] = s * (double)(g->hi[0] - g->lo[0]) / k;
  r[3] = s * (double)(g->hi[1] - g->lo[1]) / k;
  return TRUE;
}

/* Loads per rank: the run's (given), or the sums of a set of grids' loads;
 * and the most and the least loaded rank. */
static guint64 *
grid_loads(const LbGridsPicture *p, const GArray *grids, const guint64 *given, guint *most,
           guint *least)
{
  guint64 *load = g_new0(guint64, MAX(p->ranks, 1));
  if (given != NULL)
    memcpy(load, given, p->ranks * sizeof *load);
  for (guint i = 0; given == NULL && i < grids->len; i++) {
    const LbGridPart *g = &g_array_index(grids, LbGridPart, i);
    if (g->owner < p->ranks)
      load[g->owner] += g->load;
  }
  lb_pic_extreme_ranks(load, p->ranks, most, least);
  return load;
}

/* One panel: the grids of a hierarchy in a square of `side` pixels, with
 * axes in root cells; filled by owner (a colour each), or, with many
 * ranks, by their owner's load (viridis from the least to the most
 * loaded rank); the most and the least loaded rank's grids outlined. */
static void
draw_grid_panel(cairo_t *cr, const LbGridsPicture *p, const GArray *grids, const guint64 *loads,
                double left, double top, double side, const char *caption)
{
  double s = MIN(side / (double)p->root[0], side / (double)p->root[1]);
  double w = s * (double)p->root[0], h = s * (double)p->root[1];
  guint levels = 0;
  for (guint i = 0; i < grids->len; i++)
    levels = MAX(levels, g_array_index(grids, LbGridPart, i).level);
  guint most = 0, least = 0;
  g_autofree guint64 *load = grid_loads(p, grids, loads, &most, &least);
  double total = 0;
  for (guint r = 0; r < p->ranks; r++)
    total += (double)load[r];
  double avg = MAX(total / MAX(p->ranks, 1), 1e-300);
  gboolean heat = p->ranks >= LB_PICTURES_MANY_RANKS;
  /* Thousands of grids (a field seen as a hierarchy on 1024 ranks) are
   * drawn on an image at the output's resolution and pasted in: in SVG
   * and PDF they would be a path each (1.7 MB for 8000). */
  cairo_t *to = cr;
  cairo_surface_t *image = NULL;
  double dx = 1, dy = 0;
  cairo_user_to_device_distance(cr, &dx, &dy);
  double scale = hypot(dx, dy);
  if (grids->len > GRIDS_VECTOR_MAX) {
    image =
        cairo_image_surface_create(CAIRO_FORMAT_RGB24, (int)ceil(w * scale), (int)ceil(h * scale));
    to = cairo_create(image);
    cairo_scale(to, scale, scale);
    cairo_translate(to, -left, -top);
  }
  lb_pic_set_rgb(to, 0xeeeeee);
  cairo_rectangle(to, left, top, w, h);
  cairo_fill(to);
  for (guint level = 0; level <= levels; level++)
    for (guint i = 0; i < grids->len; i++) {
      const LbGridPart *g = &g_array_index(grids, LbGridPart, i);
      double r[4];
      if (g->level != level || !grid_rect(p, g, left, top, s, h, r))
        continue;
      guint32 fill = !heat                  ? lb_pictures_owner_colour(g->owner)
                     : g->owner >= p->ranks ? 0xcccccc
                                            : lb_pic_viridis(load[g->owner] / avg / 2);
      lb_pic_set_rgb(to, fill);
      cairo_rectangle(to, r[0], r[1], r[2], r[3]);
      cairo_fill_preserve(to);
      lb_pic_set_rgb(to, level_colour(level));
      /* a small grid's outline no wider than a quarter of it */
      cairo_set_line_width(to, MIN(level_width(level), MAX(0.3, MIN(r[2], r[3]) / 4)));
      cairo_stroke(to);
    }
  if (image != NULL) {
    cairo_destroy(to);
    cairo_surface_flush(image);
    cairo_save(cr);
    cairo_translate(cr, left, top);
    cairo_scale(cr, 1 / scale, 1 / scale);
    cairo_set_source_surface(cr, image, 0, 0);
    cairo_paint(cr);
    cairo_restore(cr);
    cairo_surface_destroy(image);
  }
  for (guint e = 0; e < (most == least ? 1u : 2u); e++) {
    guint rank = e == 0 ? most : least;
    for (guint i = 0; i < grids->len; i++) {
      const LbGridPart *g = &g_array_index(grids, LbGridPart, i);
      double r[4];
      if (g->owner == rank && grid_rect(p, g, left, top, s, h, r))
        cairo_rectangle(cr, r[0] + 1.5, r[1] + 1.5, MAX(r[2] - 3, 1), MAX(r[3] - 3, 1));
    }
    lb_pic_set_rgb(cr, e == 0 ? 0xd55e00 : 0x0072b2);
    cairo_set_line_width(cr, 3);
    cairo_stroke(cr);
  }
  lb_pic_set_rgb(cr, 0x404040);
  cairo_set_line_width(cr, 1);
  cairo_rectangle(cr, left - 0.5, top - 0.5, w + 1, h + 1);
  cairo_stroke(cr);
  lb_pic_draw_cell_ticks(cr, left, top + h, w, p->root[0], FALSE, caption);
  lb_pic_draw_cell_ticks(cr, top + h, left, h, p->root[1], TRUE, "y (root cells)");
  g_autofree char *most_load = lb_pic_format_load(load[most]);
  g_autofree char *least_load = lb_pic_format_load(load[least]);
  g_autofree char *max = g_strdup_printf("max r%u: %s", most, most_load);
  g_autofree char *min = g_strdup_printf("min r%u: %s", least, least_load);
  lb_pic_set_font(cr, 11, TRUE);
  lb_pic_set_rgb(cr, 0xd55e00);
  lb_pic_show_text(cr, left, top - 6, 0, 1, max);
  lb_pic_set_rgb(cr, 0x0072b2);
  lb_pic_show_text(cr, left + lb_pic_text_width(cr, max) + 16, top - 6, 0, 1, min);
}

static void
draw_grids(cairo_t *cr, gconstpointer data)
{
  const LbGridsPicture *p = data;
  cairo_set_source_rgb(cr, 1, 1, 1);
  cairo_paint(cr);
  g_autofree char *title = g_strdup_printf("%s \xc2\xb7 %s", p->scenario, p->balancer);
  g_autofree char *subtitle = g_strdup_printf(
      "grids at adaptation step %u (last of %u), %s%s", p->adaptation, p->nadaptations,
      p->ranks >= LB_PICTURES_MANY_RANKS ? "coloured by their owner's load over the average (dark: "
                                           "none, teal: 1, yellow: 2 or more)"
                                         : "coloured by owner",
      p->dim == 3 ? "; the slice z = NZ/2 of the root" : "");
  guint levels = 0;
  for (guint i = 0; i < p->grids->len; i++)
    levels = MAX(levels, g_array_index(p->grids, LbGridPart, i).level);
  g_autofree char *details = g_strdup_printf(
      "%u grids on %u ranks \xc2\xb7 %" G_GUINT64_FORMAT " \xc3\x97 %" G_GUINT64_FORMAT
      " root cells \xc2\xb7 outlines by level, finer stronger \xc2\xb7 the most loaded rank's "
      "grids outlined orange, the least loaded's blue",
      p->grids->len, p->ranks, p->root[0], p->root[1]);
  lb_pic_draw_titles(cr, GRIDS_WIDTH, title, subtitle, details);
  double side = GRIDS_HEIGHT - GRIDS_TOP - 150;
  g_autofree char *before =
      g_strdup_printf("before balancing: imbalance %.4f (max/avg)", p->imbalance_before);
  g_autofree char *after =
      g_strdup_printf("after balancing: imbalance %.4f (max/avg)", p->imbalance_after);
  if (p->before != NULL)
    draw_grid_panel(cr, p, p->before, p->rank_load_before, 100, GRIDS_TOP, side, before);
  draw_grid_panel(cr, p, p->grids, p->rank_load_after, GRIDS_WIDTH / 2 + 60, GRIDS_TOP, side,
                  after);
  /* the levels' key, under the panels */
  double x = 100, y = GRIDS_HEIGHT - 26;
  lb_pic_set_font(cr, 11, FALSE);
  for (guint level = 0; level <= levels; level++, x += 140) {
    lb_pic_set_rgb(cr, 0xdddddd);
    cairo_rectangle(cr, x, y, 26, 16);
    cairo_fill_preserve(cr);
    lb_pic_set_rgb(cr, level_colour(level));
    cairo_set_line_width(cr, level_width(level));
    cairo_stroke(cr);
    g_autofree char *name = g_strdup_printf("level %u", level);
    lb_pic_set_rgb(cr, 0x202020);
    lb_pic_show_text(cr, x + 34, y + 8, 0, 0.5, name);
  }
}

gboolean
lb_pictures_grids(const LbPictureOptions *o, const LbGridsPicture *picture, GError **error)
{
  g_autofree char *what = g_strdup_printf("%s.grids", picture->balancer);
  return lb_pic_write_picture(o, picture->scenario, what, GRIDS_WIDTH, GRIDS_HEIGHT, draw_grids,
                              picture, error);
}
