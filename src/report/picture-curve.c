/* A space-filling curve through the leaves of a tree, coloured by rank,
 * with the loads of its segments. */
#include "report/picture-draw.h"

/* ---- a curve through the leaves of a tree ---- */

#define CURVE_WIDTH LB_PICTURES_WIDTH
#define CURVE_HEIGHT 750
#define CURVE_TOP 120
#define CURVE_SIDE 550
/* Leaves narrower than this get no outline: it would cover them. */
#define OUTLINE_MIN_PX 2.0
/* Centres closer than this to the last one drawn are passed over. */
#define SKIP_PX 2.0

/* A sort key and what it sorts. */
typedef struct {
  guint64 key, value;
} Pair;

/* A leaf drawn: the square [x, x + 1) x [y, y + 1) x 2^-level. */
typedef struct {
  guint32 x, y, level;
  guint32 owner[2]; /* before, after */
  guint64 load;
} CurveLeaf;

typedef struct {
  const LbCurvePicture *picture;
  CurveLeaf *leaves;       /* those drawn, in the curve's order */
  gsize n, total;          /* drawn, and all the tree's leaves */
  gboolean heat;           /* many ranks: loads and boundaries, not a curve of colours */
  guint most[2], least[2]; /* before, after */
  char *title, *subtitle, *details;
} Curve;

static void
curve_clear(Curve *c)
{
  g_free(c->leaves);
  g_free(c->title);
  g_free(c->subtitle);
  g_free(c->details);
}

G_DEFINE_AUTO_CLEANUP_CLEAR_FUNC(Curve, curve_clear)

#define DIGIT_BITS 11

/* Least significant digit first, DIGIT_BITS a pass (the buckets' write
 * fronts stay in cache), as many passes as the largest key needs;
 * returns the buffer that holds the sorted pairs (a or spare). Stable. */
static Pair *
sort_pairs(Pair *a, Pair *spare, gsize n)
{
  guint64 top = 0;
  for (gsize i = 0; i < n; i++)
    top |= a[i].key;
  gsize start[1u << DIGIT_BITS];
  guint64 mask = (1u << DIGIT_BITS) - 1;
  Pair *from = a, *to = spare;
  for (guint shift = 0; shift < 64 && top >> shift != 0; shift += DIGIT_BITS) {
    memset(start, 0, sizeof start);
    for (gsize i = 0; i < n; i++)
      start[(from[i].key >> shift) & mask]++;
    gsize sum = 0;
    for (guint d = 0; d <= mask; d++) {
      gsize count = start[d];
      start[d] = sum;
      sum += count;
    }
    for (gsize i = 0; i < n; i++)
      to[start[(from[i].key >> shift) & mask]++] = from[i];
    Pair *swap = from;
    from = to;
    to = swap;
  }
  return from;
}

/* owner[leaf] for the leaves (sorted by id, value: their index): the
 * rank that holds the unit of that id, from every rank's units sorted
 * once and walked along with the leaves. held and spare have room for
 * every unit. */
static void
owners_of(const Pair *leaves, gsize n, const GArray *const *units, guint ranks, Pair *held,
          Pair *spare, guint32 *owner)
{
  gsize m = 0;
  for (guint r = 0; r < ranks; r++)
    for (guint i = 0; i < units[r]->len; i++)
      held[m++] = (Pair){g_array_index(units[r], LbUnit, i).id, r};
  const Pair *sorted = sort_pairs(held, spare, m);
  gsize j = 0;
  for (gsize i = 0; i < n; i++) {
    while (j < m && sorted[j].key < leaves[i].key)
      j++;
    owner[leaves[i].value] =
        j < m && sorted[j].key == leaves[i].key ? (guint32)sorted[j].value : LB_PICTURES_NOBODY;
  }
}

/* load[leaf] as owners_of finds owner[leaf] (0: no unit). */
static void
loads_of(const Pair *leaves, gsize n, const GArray *const *units, guint ranks, Pair *held,
         Pair *spare, guint64 *load)
{
  gsize m = 0;
  for (guint r = 0; r < ranks; r++)
    for (guint i = 0; i < units[r]->len; i++)
      held[m++] =
          (Pair){g_array_index(units[r], LbUnit, i).id, g_array_index(units[r], LbUnit, i).load};
  const Pair *sorted = sort_pairs(held, spare, m);
  gsize j = 0;
  for (gsize i = 0; i < n; i++) {
    while (j < m && sorted[j].key < leaves[i].key)
      j++;
    load[leaves[i].value] = j < m && sorted[j].key == leaves[i].key ? sorted[j].value : 0;
  }
}

/* The most and the least loaded rank of units. */
static void
extreme_units(const GArray *const *units, guint ranks, guint *most, guint *least)
{
  g_autofree guint64 *load = g_new0(guint64, MAX(ranks, 1));
  for (guint r = 0; r < ranks; r++)
    for (guint i = 0; i < units[r]->len; i++)
      load[r] += g_array_index(units[r], LbUnit, i).load;
  lb_pic_extreme_ranks(load, ranks, most, least);
}

static gsize
count_units(const GArray *const *units, guint ranks)
{
  gsize m = 0;
  for (guint r = 0; r < ranks; r++)
    m += units[r]->len;
  return m;
}

/* The leaves drawn (3D: those whose cube meets z = 1/2 from above, as the
 * grids' slice), with their owners, in the order of their curve
 * positions: leaves do not overlap, so the position of their first finest
 * cell alone orders them as the curve's sequence of hnodes does. */
static void
collect_leaves(Curve *c)
{
  const LbCurvePicture *pic = c->picture;
  const LbWork *work = pic->work;
  guint dim = work->dim;
  guint order = (guint)__builtin_ctzll(work->size[0]); /* the finest level */
  g_autoptr(GArray) leaves = g_array_new(FALSE, FALSE, sizeof(LbLeaf));
  work->model->leaves(work, leaves);
  gsize n = c->total = leaves->len;
  const LbLeaf *leaf = (const LbLeaf *)leaves->data;
  gsize room = MAX(MAX(count_units(pic->before, pic->ranks), count_units(pic->after, pic->ranks)),
                   MAX(n, 1));
  g_autofree Pair *pairs = g_new(Pair, room);
  g_autofree Pair *spare = g_new(Pair, room);
  g_autofree Pair *by_id = g_new(Pair, MAX(n, 1));
  for (gsize i = 0; i < n; i++)
    pairs[i] = (Pair){leaf[i].id, i};
  memcpy(by_id, sort_pairs(pairs, spare, n), n * sizeof(Pair));
  g_autofree guint32 *before = g_new(guint32, MAX(n, 1));
  g_autofree guint32 *after = g_new(guint32, MAX(n, 1));
  owners_of(by_id, n, pic->before, pic->ranks, pairs, spare, before);
  owners_of(by_id, n, pic->after, pic->ranks, pairs, spare, after);
  g_autofree guint64 *load = g_new(guint64, MAX(n, 1));
  loads_of(by_id, n, pic->after, pic->ranks, pairs, spare, load);

  gsize drawn = 0;
  for (gsize i = 0; i < n; i++) {
    const LbLeaf *l = &leaf[i];
    if (dim == 3 && l->level > 0 && l->coords[2] != 1u << (l->level - 1))
      continue;
    pairs[drawn++] = (Pair){lb_curve_cube_start(pic->curve, dim, order, l->level, l->coords), i};
  }
  const Pair *by_key = sort_pairs(pairs, spare, drawn);
  c->leaves = g_new(CurveLeaf, MAX(drawn, 1));
  c->n = drawn;
  for (gsize k = 0; k < drawn; k++) {
    const LbLeaf *l = &leaf[by_key[k].value];
    c->leaves[k] = (CurveLeaf){
        .x = l->coords[0],
        .y = l->coords[1],
        .level = l->level,
        .owner = {before[by_key[k].value], after[by_key[k].value]},
        .load = load[by_key[k].value],
    };
  }
}

static void
describe_curve(Curve *c)
{
  const LbCurvePicture *pic = c->picture;
  const LbWork *work = pic->work;
  c->title = g_strdup_printf("%s \xc2\xb7 %s", pic->scenario, pic->balancer);
  g_autofree char *which =
      work->dim == 3 ? g_strdup_printf("the %zu leaves (of %zu) that meet the plane z = 1/2, seen "
                                       "along z",
                                       c->n, c->total)
                     : g_strdup_printf("the %zu leaves", c->n);
  c->heat = pic->ranks >= LB_PICTURES_MANY_RANKS;
  extreme_units(pic->before, pic->ranks, &c->most[0], &c->least[0]);
  extreme_units(pic->after, pic->ranks, &c->most[1], &c->least[1]);
  if (c->heat)
    c->subtitle = g_strdup_printf(
        "%s of adaptation step %u (last of %u), by load per area (log scale, dark to light), "
        "the ranks' parts of the %s curve outlined",
        which, pic->adaptation, pic->nadaptations, lb_curve_name(pic->curve));
  else
    c->subtitle =
        g_strdup_printf("the %s curve through %s of adaptation step %u (last of %u), "
                        "each segment coloured by the owner of the leaf it leaves",
                        lb_curve_name(pic->curve), which, pic->adaptation, pic->nadaptations);
  c->details = g_strdup_printf(
      "%s, %uD, %" G_GUINT64_FORMAT " finest cells per axis \xc2\xb7 %" G_GUINT64_FORMAT
      " hnodes \xc2\xb7 %u rank%s \xc2\xb7 after balancing: most loaded r%u, least "
      "loaded r%u%s",
      work->model->name, work->dim, work->size[0], lb_work_total_units(work), pic->ranks,
      pic->ranks == 1 ? "" : "s", c->most[1], c->least[1],
      c->heat ? "" : " \xc2\xb7 small leaves not outlined");
}

void
lb_pictures_curve_point(guint panel, double x, double y, double *px, double *py)
{
  double left = panel == 0 ? 40 : CURVE_WIDTH / 2 + 20;
  *px = left + CURVE_SIDE * x;
  *py = CURVE_TOP + CURVE_SIDE * (1 - y);
}

static void
leaf_centre(const CurveLeaf *leaf, guint panel, double *px, double *py)
{
  double side = ldexp(1.0, -(int)leaf->level);
  lb_pictures_curve_point(panel, (leaf->x + 0.5) * side, (leaf->y + 0.5) * side, px, py);
}

/* The curve in runs of one owner, a stroke each: from the run's first
 * centre through its others to the next run's first. Centres closer than
 * SKIP_PX to the last one drawn are passed over (the run's last is always
 * drawn), so that a finely refined region costs its pixels, not its
 * leaves. */
static void
draw_curve_line(cairo_t *cr, const Curve *c, guint panel)
{
  double mean_px = CURVE_SIDE / sqrt((double)MAX(c->n, 1));
  cairo_set_line_width(cr, CLAMP(0.12 * mean_px, 1.0, 3.0));
  cairo_set_line_join(cr, CAIRO_LINE_JOIN_ROUND);
  cairo_set_line_cap(cr, CAIRO_LINE_CAP_ROUND);
  for (gsize i = 0; i < c->n;) {
    guint32 owner = c->leaves[i].owner[panel];
    gsize end = i + 1;
    while (end < c->n && c->leaves[end].owner[panel] == owner)
      end++;
    double x, y, last_x, last_y;
    leaf_centre(&c->leaves[i], panel, &last_x, &last_y);
    cairo_move_to(cr, last_x, last_y);
    for (gsize k = i + 1; k <= end && k < c->n; k++) {
      leaf_centre(&c->leaves[k], panel, &x, &y);
      if (k + 1 < end && fabs(x - last_x) < SKIP_PX && fabs(y - last_y) < SKIP_PX)
        continue;
      cairo_line_to(cr, x, y);
      last_x = x;
      last_y = y;
    }
    if (end - i == 1 && end == c->n) /* a lone last leaf: a dot */
      cairo_line_to(cr, last_x, last_y);
    lb_pic_set_rgb(cr, owner == LB_PICTURES_NOBODY ? 0x909090 : lb_pictures_owner_colour(owner));
    cairo_stroke(cr);
    i = end;
  }
  cairo_set_line_cap(cr, CAIRO_LINE_CAP_BUTT);
}

static void draw_rings(cairo_t *cr, const Curve *c, guint panel, double sum[2][3]);

/* Many ranks: every leaf's square filled by its load per area (log
 * scale), a pixel wide line where owners meet, the most and the least
 * loaded rank's lines in orange and blue; a raster of the panel. */
static void
draw_curve_heat(cairo_t *cr, const Curve *c, guint panel)
{
  guint side = CURVE_SIDE;
  g_autofree guint32 *owner = g_new(guint32, (gsize)side * side);
  g_autofree double *density = g_new0(double, (gsize)side *side);
  for (gsize i = 0; i < (gsize)side * side; i++)
    owner[i] = LB_PICTURES_NOBODY;
  double lo = G_MAXDOUBLE, hi = 0;
  for (gsize i = 0; i < c->n; i++) {
    const CurveLeaf *leaf = &c->leaves[i];
    double size = ldexp(1.0, -(int)leaf->level);
    double d = leaf->load > 0 ? log((double)leaf->load / (size * size)) : 0;
    if (leaf->load > 0) {
      lo = MIN(lo, d);
      hi = MAX(hi, d);
    }
    guint x0 = (guint)floor(leaf->x * size * side), y0 = (guint)floor(leaf->y * size * side);
    guint x1 = MAX((guint)floor((leaf->x + 1) * size * side), x0 + 1);
    guint y1 = MAX((guint)floor((leaf->y + 1) * size * side), y0 + 1);
    for (guint y = y0; y < MIN(y1, side); y++)
      for (guint x = x0; x < MIN(x1, side); x++) {
        gsize at = (gsize)(side - 1 - y) * side + x;
        owner[at] = leaf->owner[panel];
        density[at] = MAX(density[at], d);
      }
  }
  if (hi <= lo)
    hi = lo + 1;
  double sum[2][3] = {{0}};
  g_autoptr(cairo_surface_t) image =
      cairo_image_surface_create(CAIRO_FORMAT_RGB24, (int)side, (int)side);
  cairo_surface_flush(image);
  guint8 *data = cairo_image_surface_get_data(image);
  int stride = cairo_image_surface_get_stride(image);
  for (guint y = 0; y < side; y++) {
    guint32 *px = (guint32 *)(gpointer)(data + (gsize)y * stride);
    for (guint x = 0; x < side; x++) {
      gsize at = (gsize)y * side + x;
      guint32 o = owner[at];
      for (guint e = 0; e < 2; e++)
        if (o == (e == 0 ? c->most[panel] : c->least[panel])) {
          sum[e][0] += x;
          sum[e][1] += y;
          sum[e][2]++;
        }
      guint32 colour =
          o == LB_PICTURES_NOBODY ? 0xcccccc : lb_pic_viridis((density[at] - lo) / (hi - lo));
      gboolean edge =
          (x + 1 < side && owner[at + 1] != o) || (y + 1 < side && owner[at + side] != o);
      if (edge || ((o == c->most[panel] || o == c->least[panel]) &&
                   ((x > 0 && owner[at - 1] != o) || (y > 0 && owner[at - side] != o)))) {
        if (o == c->most[panel])
          colour = 0xd55e00;
        else if (o == c->least[panel])
          colour = 0x0072b2;
        else /* white at 60 % */
          colour = ((((colour >> 16) & 0xff) * 2 / 5 + 153) << 16) |
                   ((((colour >> 8) & 0xff) * 2 / 5 + 153) << 8) | ((colour & 0xff) * 2 / 5 + 153);
      }
      px[x] = colour;
    }
  }
  cairo_surface_mark_dirty(image);
  double left, top;
  lb_pictures_curve_point(panel, 0, 1, &left, &top);
  cairo_set_source_surface(cr, image, left, top);
  cairo_paint(cr);
  draw_rings(cr, c, panel, sum);
}

/* A ring round the most and the least loaded rank's part (at the centre
 * of its pixels: sum[e] holds their x, y and count, e 0 the most loaded,
 * 1 the least, in the panel's pixels), and its name. */
static void
draw_rings(cairo_t *cr, const Curve *c, guint panel, double sum[2][3])
{
  double left, top, side = CURVE_SIDE;
  lb_pictures_curve_point(panel, 0, 1, &left, &top);
  lb_pic_set_font(cr, 11, TRUE);
  for (guint e = 0; e < 2; e++) {
    if (sum[e][2] == 0 || (e == 1 && c->least[panel] == c->most[panel]))
      continue;
    double x = left + sum[e][0] / sum[e][2], y = top + sum[e][1] / sum[e][2];
    lb_pic_set_rgb(cr, e == 0 ? 0xd55e00 : 0x0072b2);
    cairo_new_sub_path(cr);
    cairo_arc(cr, x, y, 16, 0, 2 * G_PI);
    cairo_set_line_width(cr, 3);
    cairo_stroke(cr);
    g_autofree char *name = g_strdup_printf("%s r%u", e == 0 ? "max" : "min",
                                            e == 0 ? c->most[panel] : c->least[panel]);
    double w = lb_pic_text_width(cr, name) + 10, line = lb_pic_text_height(cr);
    double lx = CLAMP(x, left + w / 2, left + side - w / 2);
    /* the most loaded's name under its ring, the least loaded's over it,
     * so that two rings close together keep both names */
    double below = y + 20 + line / 2 + 2, above = y - 20 - line / 2 - 2;
    double ly = e == 0 ? (below + line / 2 > top + side ? above : below)
                       : (above - line / 2 < top ? below : above);
    lb_pic_rounded_rectangle(cr, lx - w / 2, ly - line / 2 - 2, w, line + 4, 4);
    cairo_fill(cr);
    cairo_set_source_rgb(cr, 1, 1, 1);
    lb_pic_show_text(cr, lx, ly, 0.5, 0.5, name);
  }
}

/* A panel's caption under it, centred, within the panel's width and a
 * little more (the left panel is 40 from the picture's edge). */
static void
show_caption(cairo_t *cr, double left, double top, const char *caption)
{
  lb_pic_set_rgb(cr, 0x404040);
  lb_pic_show_fitted_at(cr, left + CURVE_SIDE / 2.0, top + CURVE_SIDE + 10, 0.5, CURVE_SIDE + 60,
                        12, TRUE, caption);
}

static void
draw_curve_panel(cairo_t *cr, const Curve *c, guint panel, const char *caption)
{
  double left, top;
  lb_pictures_curve_point(panel, 0, 1, &left, &top);
  if (c->heat) {
    draw_curve_heat(cr, c, panel);
    lb_pic_set_rgb(cr, 0x404040);
    cairo_set_line_width(cr, 1);
    cairo_rectangle(cr, left - 0.5, top - 0.5, CURVE_SIDE + 1, CURVE_SIDE + 1);
    cairo_stroke(cr);
    show_caption(cr, left, top, caption);
    return;
  }
  cairo_save(cr);
  cairo_rectangle(cr, left, top, CURVE_SIDE, CURVE_SIDE);
  cairo_clip(cr);
  for (gsize i = 0; i < c->n; i++) {
    const CurveLeaf *leaf = &c->leaves[i];
    double side = ldexp(1.0, -(int)leaf->level), w = side * CURVE_SIDE, x, y;
    if (w < OUTLINE_MIN_PX)
      continue;
    lb_pictures_curve_point(panel, leaf->x * side, (leaf->y + 1) * side, &x, &y);
    cairo_rectangle(cr, x, y, w, w);
  }
  lb_pic_set_rgb(cr, 0xb8b8b8);
  cairo_set_line_width(cr, 0.5);
  cairo_stroke(cr);
  draw_curve_line(cr, c, panel);
  if (c->n > 0) { /* where the curve starts */
    double x, y;
    leaf_centre(&c->leaves[0], panel, &x, &y);
    cairo_arc(cr, x, y, 4, 0, 2 * G_PI);
    lb_pic_set_rgb(cr, 0x202020);
    cairo_fill(cr);
  }
  cairo_restore(cr);
  lb_pic_set_rgb(cr, 0x404040);
  cairo_set_line_width(cr, 1);
  cairo_rectangle(cr, left - 0.5, top - 0.5, CURVE_SIDE + 1, CURVE_SIDE + 1);
  cairo_stroke(cr);
  show_caption(cr, left, top, caption);
  /* the most and the least loaded rank, named by their colours (a ring
   * in the panel would hide the leaves under it) */
  lb_pic_set_font(cr, 11, TRUE);
  double y = top + CURVE_SIDE + 42, x = left + CURVE_SIDE / 2.0 - 120;
  for (guint e = 0; e < (c->most[panel] == c->least[panel] ? 1u : 2u); e++) {
    guint rank = e == 0 ? c->most[panel] : c->least[panel];
    g_autofree char *name = g_strdup_printf("%s r%u", e == 0 ? "max" : "min", rank);
    lb_pic_set_rgb(cr, lb_pictures_owner_colour(rank));
    cairo_rectangle(cr, x, y - 8, 16, 16);
    cairo_fill(cr);
    lb_pic_set_rgb(cr, e == 0 ? 0xd55e00 : 0x0072b2);
    lb_pic_show_text(cr, x + 22, y, 0, 0.5, name);
    x += 140;
  }
}

static void
draw_curve(cairo_t *cr, gconstpointer data)
{
  const Curve *c = data;
  const LbCurvePicture *pic = c->picture;
  cairo_set_source_rgb(cr, 1, 1, 1);
  cairo_paint(cr);
  lb_pic_draw_titles(cr, CURVE_WIDTH, c->title, c->subtitle, c->details);
  g_autofree char *before = g_strdup_printf(
      "before balancing (after the tree's update): imbalance %.4f", pic->imbalance_before);
  g_autofree char *after = g_strdup_printf("after balancing: imbalance %.4f", pic->imbalance_after);
  draw_curve_panel(cr, c, 0, before);
  draw_curve_panel(cr, c, 1, after);
}

gboolean
lb_pictures_curve(const LbPictureOptions *o, const LbCurvePicture *picture, GError **error)
{
  g_return_val_if_fail(picture->work->model->leaves != NULL, FALSE);
  g_auto(Curve) c = {.picture = picture};
  collect_leaves(&c);
  describe_curve(&c);
  g_autofree char *what = g_strdup_printf("%s.curve", picture->balancer);
  return lb_pic_write_picture(o, picture->scenario, what, CURVE_WIDTH, CURVE_HEIGHT, draw_curve, &c,
                              error);
}
