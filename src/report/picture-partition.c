/* The partition picture: a map of a field's (or the 1D array's) cells by
 * rank, the ranks' loads as a heat map with the boundaries between ranks,
 * the most and least loaded outlined, a colour bar; a strip for 1D. */
#include "report/picture-draw.h"

/* The map's longest side: a field up to this many cells gets a pixel (or
 * more) per cell; a larger one is sampled. Small fields are blown up to
 * about MAP_SMALL pixels. */
#define MAP_MAX 1024
#define MAP_SMALL 896
#define CELL_PX_MAX 48
#define MARGIN_LEFT 100
#define MARGIN_TOP 120
#define MARGIN_BOTTOM 84
#define COLOUR_BAR_GAP 24
#define MARGIN_RIGHT_BAR 144 /* gap, colour bar, its labels */
#define MARGIN_RIGHT_1D 28
#define MIN_MAP_HEIGHT 260
#define BARS_HEIGHT 320
#define RANK_BAND_GAP 8
#define RANK_BAND_HEIGHT 44

/* ---- the partition ---- */

/* Sample i of m over n cells covers cells [lo(i), lo(i + 1)). */
static guint64
sample_lo(guint i, guint m, guint64 n)
{
  return (guint64)(((unsigned __int128)n * i) / m);
}

/* The sample holding cell c: the last i with lo(i) <= c. */
static guint
sample_of(guint64 c, guint m, guint64 n)
{
  return (guint)((((unsigned __int128)c + 1) * m - 1) / n);
}

void
lb_pictures_layout(const LbWork *work, LbPictureLayout *layout)
{
  memset(layout, 0, sizeof *layout);
  layout->dim = work->dim;
  gboolean strip = work->dim == 1;
  layout->nx = work->size[0];
  layout->ny = strip ? 1 : work->size[1];
  guint64 longest = MAX(layout->nx, layout->ny);
  if (longest <= MAP_MAX) {
    layout->sx = (guint)layout->nx;
    layout->sy = (guint)layout->ny;
    /* the nearest whole blow-up to MAP_SMALL that stays within MAP_MAX */
    guint64 k = (2 * MAP_SMALL / longest + 1) / 2;
    layout->cell_px = (guint)CLAMP(MIN(k, MAP_MAX / longest), 1, CELL_PX_MAX);
  } else {
    layout->sx = (guint)MAX(1, layout->nx * MAP_MAX / longest);
    layout->sy = (guint)MAX(1, layout->ny * MAP_MAX / longest);
    layout->cell_px = 1;
  }
  layout->map_width = layout->sx * layout->cell_px;
  layout->map_height = strip ? BARS_HEIGHT : layout->sy * layout->cell_px;
  guint right = strip ? MARGIN_RIGHT_1D : MARGIN_RIGHT_BAR;
  guint natural = MARGIN_LEFT + layout->map_width + right;
  layout->width = LB_PICTURES_WIDTH;
  layout->map_x = MARGIN_LEFT + (layout->width - natural) / 2;
  layout->map_y = MARGIN_TOP;
  layout->height = MARGIN_TOP + MARGIN_BOTTOM +
                   (strip ? BARS_HEIGHT + RANK_BAND_GAP + RANK_BAND_HEIGHT
                          : MAX(layout->map_height, MIN_MAP_HEIGHT));
}

void
lb_pictures_cell_pixel(const LbPictureLayout *layout, guint64 x, guint64 y, guint *px, guint *py)
{
  guint i = sample_of(x, layout->sx, layout->nx);
  *px = layout->map_x + i * layout->cell_px + layout->cell_px / 2;
  if (layout->dim == 1) {
    *py = layout->map_y + layout->map_height - 1;
    return;
  }
  guint j = sample_of(y, layout->sy, layout->ny);
  *py = layout->map_y + (layout->sy - 1 - j) * layout->cell_px + layout->cell_px / 2;
}

typedef struct {
  guint64 count;
  double sum_x, sum_y;
} RankArea;

/* The picture's data: the drawn plane sampled, and what its ranks hold. */
typedef struct {
  const LbPartitionPicture *picture;
  LbPictureLayout layout;
  guint32 *owner; /* sx * sy samples, sample row 0 = cell row 0 */
  guint64 *load;  /* the largest load of the sample's cells */
  guint64 lo, hi; /* heat scale */
  RankArea *areas;
  guint most, least; /* the most and the least loaded rank (the first of equals) */
  char *title, *subtitle, *details;
} Plane;

static void
plane_clear(Plane *p)
{
  g_free(p->owner);
  g_free(p->load);
  g_free(p->areas);
  g_free(p->title);
  g_free(p->subtitle);
  g_free(p->details);
}

G_DEFINE_AUTO_CLEANUP_CLEAR_FUNC(Plane, plane_clear)

static void
sample_plane(Plane *p)
{
  const LbPartitionPicture *pic = p->picture;
  const LbWork *work = pic->work;
  const LbPictureLayout *l = &p->layout;
  guint64 plane = work->dim == 3 ? work->size[2] / 2 * work->size[0] * work->size[1] : 0;
  p->owner = g_new(guint32, (gsize)l->sx * l->sy);
  p->load = g_new0(guint64, (gsize)l->sx * l->sy);
  p->lo = G_MAXUINT64;
  p->hi = 0;
  for (guint j = 0; j < l->sy; j++) {
    guint64 y0 = sample_lo(j, l->sy, l->ny), y1 = sample_lo(j + 1, l->sy, l->ny);
    for (guint i = 0; i < l->sx; i++) {
      guint64 x0 = sample_lo(i, l->sx, l->nx), x1 = sample_lo(i + 1, l->sx, l->nx);
      guint64 top = 0;
      for (guint64 y = y0; y < y1; y++)
        for (guint64 x = x0; x < x1; x++)
          top = MAX(top, pic->load[plane + y * l->nx + x]);
      gsize s = (gsize)j * l->sx + i;
      p->owner[s] = pic->owner[plane + y0 * l->nx + x0];
      p->load[s] = top;
      p->lo = MIN(p->lo, top);
      p->hi = MAX(p->hi, top);
    }
  }
  if (p->hi == p->lo)
    p->hi = p->lo + 1;
  p->areas = g_new0(RankArea, pic->ranks);
  for (guint j = 0; j < l->sy; j++)
    for (guint i = 0; i < l->sx; i++) {
      guint32 r = p->owner[(gsize)j * l->sx + i];
      if (r >= pic->ranks)
        continue;
      RankArea *a = &p->areas[r];
      a->count++;
      a->sum_x += i + 0.5;
      a->sum_y += j + 0.5;
    }
}

static void
describe_plane(Plane *p)
{
  const LbPartitionPicture *pic = p->picture;
  const LbWork *work = pic->work;
  const LbPictureLayout *l = &p->layout;
  p->title = g_strdup_printf("%s \xc2\xb7 %s", pic->scenario, pic->balancer);
  g_autofree char *where = work->dim == 3
                               ? g_strdup_printf(" in the mid-plane slice z = %" G_GUINT64_FORMAT
                                                 " (of 0\xe2\x80\x93%" G_GUINT64_FORMAT ")",
                                                 work->size[2] / 2, work->size[2] - 1)
                               : g_strdup("");
  p->subtitle = g_strdup_printf("final partition%s after adaptation step %u (last of %u) \xc2\xb7 "
                                "imbalance %.4f (max/avg)",
                                where, pic->adaptation, pic->nadaptations, pic->imbalance);
  g_autoptr(GString) d = g_string_new(work->model->name);
  if (work->dim == 1)
    g_string_append_printf(d, " of %" G_GUINT64_FORMAT " elements", work->size[0]);
  else
    for (guint a = 0; a < work->dim; a++)
      g_string_append_printf(d, "%s%" G_GUINT64_FORMAT, a ? " \xc3\x97 " : " ", work->size[a]);
  g_string_append_printf(d, "%s \xc2\xb7 %u rank%s", work->dim == 1 ? "" : " cells", pic->ranks,
                         pic->ranks == 1 ? "" : "s");
  lb_pic_extreme_ranks(pic->rank_load, pic->ranks, &p->most, &p->least);
  g_autofree char *most = lb_pic_format_load(pic->rank_load[p->most]);
  g_autofree char *least = lb_pic_format_load(pic->rank_load[p->least]);
  g_string_append_printf(d, " \xc2\xb7 most loaded r%u (%s), least loaded r%u (%s)", p->most, most,
                         p->least, least);
  guint64 per_x = (l->nx + l->sx - 1) / l->sx, per_y = (l->ny + l->sy - 1) / l->sy;
  if (work->dim == 1 && per_x > 1)
    g_string_append_printf(
        d, " \xc2\xb7 a column shows the largest load of up to %" G_GUINT64_FORMAT " elements",
        per_x);
  else if (per_x > 1 || per_y > 1)
    g_string_append_printf(d,
                           " \xc2\xb7 a pixel shows the largest load of up to %" G_GUINT64_FORMAT
                           " \xc3\x97 %" G_GUINT64_FORMAT " cells",
                           per_x, per_y);
  p->details = g_string_free(g_steal_pointer(&d), FALSE);
}

static void
draw_colour_bar(cairo_t *cr, const Plane *p)
{
  const LbPictureLayout *l = &p->layout;
  double x = l->map_x + l->map_width + COLOUR_BAR_GAP;
  double height = MAX(l->map_height, MIN_MAP_HEIGHT);
  double top = l->map_y, bottom = top + height;
  cairo_pattern_t *ramp = cairo_pattern_create_linear(0, bottom, 0, top);
  for (guint i = 0; i < G_N_ELEMENTS(lb_pic_viridis_stops); i++)
    cairo_pattern_add_color_stop_rgb(ramp, i / 9.0, lb_pic_viridis_stops[i][0] / 255.0,
                                     lb_pic_viridis_stops[i][1] / 255.0,
                                     lb_pic_viridis_stops[i][2] / 255.0);
  cairo_rectangle(cr, x, top, COLOUR_BAR_WIDTH, height);
  cairo_set_source(cr, ramp);
  cairo_fill(cr);
  cairo_pattern_destroy(ramp);
  lb_pic_set_rgb(cr, 0x404040);
  cairo_set_line_width(cr, 1);
  cairo_rectangle(cr, x - 0.5, top - 0.5, COLOUR_BAR_WIDTH + 1, height + 1);
  cairo_stroke(cr);

  lb_pic_set_font(cr, 11, FALSE);
  double span = (double)(p->hi - p->lo);
  double step = lb_figure_nice_step(span, 6, TRUE);
  double first = ceil(p->lo / step) * step, last = floor(p->hi / step) * step;
  for (double v = first; v <= last + 1e-9; v += step) {
    double y = round(bottom - height * (v - p->lo) / span) + 0.5;
    cairo_move_to(cr, x + COLOUR_BAR_WIDTH, y);
    cairo_line_to(cr, x + COLOUR_BAR_WIDTH + 5, y);
    cairo_stroke(cr);
    g_autofree char *label = lb_figure_format_tick(v, step);
    lb_pic_show_text(cr, x + COLOUR_BAR_WIDTH + 8, y, 0, 0.5, label);
  }
  /* the ends, the smallest and largest load shown, unless a tick is there */
  double tick_px = height * step / span;
  const guint64 ends[2] = {p->lo, p->hi};
  const double gaps[2] = {first - p->lo, p->hi - last};
  for (guint e = 0; e < 2; e++) {
    if (gaps[e] * height / span < 14 && tick_px >= 14)
      continue;
    double y = e == 0 ? bottom : top;
    g_autofree char *label = lb_pic_format_load(ends[e]);
    lb_pic_show_text(cr, x + COLOUR_BAR_WIDTH + 8, y, 0, e == 0 ? 1 : 0, label);
  }
  lb_pic_set_font(cr, 12, TRUE);
  lb_pic_show_text(cr, x + COLOUR_BAR_WIDTH / 2.0, top - 8, 0.5, 1, "cell load");
}

static guint32
sample_colour(const Plane *p, gsize s)
{
  if (p->owner[s] == LB_PICTURES_NOBODY)
    return 0xcccccc;
  return lb_pic_viridis((double)(p->load[s] - p->lo) / (double)(p->hi - p->lo));
}

static void
draw_heat(cairo_t *cr, const Plane *p)
{
  const LbPictureLayout *l = &p->layout;
  guint k = l->cell_px;
  g_autoptr(cairo_surface_t) heat =
      cairo_image_surface_create(CAIRO_FORMAT_RGB24, (int)l->map_width, (int)l->map_height);
  cairo_surface_flush(heat);
  guint8 *data = cairo_image_surface_get_data(heat);
  int stride = cairo_image_surface_get_stride(heat);
  for (guint row = 0; row < l->map_height; row++) {
    guint32 *px = (guint32 *)(gpointer)(data + (gsize)row * stride);
    guint j = l->sy - 1 - row / k;
    for (guint i = 0; i < l->sx; i++) {
      guint32 colour = sample_colour(p, (gsize)j * l->sx + i);
      for (guint c = 0; c < k; c++)
        px[i * k + c] = colour;
    }
  }
  cairo_surface_mark_dirty(heat);
  cairo_set_source_surface(cr, heat, l->map_x, l->map_y);
  cairo_paint(cr);
}

/* The boundaries of one direction (edges of them, each covering `share`
 * of the map). Where they would cover much of the map (thin pieces,
 * hundreds of ranks: MLB's rows), they are dark and faint, so that the
 * loads show through rather than a white wash; the other direction's (the
 * cuts along the rows) keep their white. */
static void
stroke_boundaries(cairo_t *cr, guint64 edges, double share)
{
  double covered = edges * share;
  if (covered > 0.15)
    cairo_set_source_rgba(cr, 0, 0, 0, CLAMP(0.9 * 0.04 / covered, 0.12, 0.35));
  else
    cairo_set_source_rgba(cr, 1, 1, 1, CLAMP(0.9 * 0.06 / MAX(covered, 1e-9), 0.35, 0.9));
  cairo_stroke(cr);
}

/* Owner boundaries: a line along every edge between samples of different
 * owners, edges in a row merged into one segment, each direction drawn
 * by itself. */
static void
draw_boundaries(cairo_t *cr, const Plane *p)
{
  const LbPictureLayout *l = &p->layout;
  guint k = l->cell_px;
  double width = k >= 12 ? 2 : 1, shift = k >= 12 ? 0 : 0.5;
  const guint32 *o = p->owner;
  guint64 edges = 0;
  cairo_set_line_width(cr, width);
  cairo_set_line_cap(cr, CAIRO_LINE_CAP_SQUARE);
  /* vertical edges: left of sample column i */
  for (guint i = 1; i < l->sx; i++)
    for (guint j = 0; j < l->sy;) {
      if (o[(gsize)j * l->sx + i] == o[(gsize)j * l->sx + i - 1]) {
        j++;
        continue;
      }
      guint j0 = j;
      while (j < l->sy && o[(gsize)j * l->sx + i] != o[(gsize)j * l->sx + i - 1])
        j++;
      edges += j - j0;
      double x = l->map_x + i * k + shift;
      cairo_move_to(cr, x, l->map_y + (l->sy - j) * k);
      cairo_line_to(cr, x, l->map_y + (l->sy - j0) * k);
    }
  stroke_boundaries(cr, edges, k * width / ((double)l->map_width * l->map_height));
  edges = 0;
  /* horizontal edges: below sample row j */
  for (guint j = 1; j < l->sy; j++)
    for (guint i = 0; i < l->sx;) {
      const guint32 *row = o + (gsize)j * l->sx, *below = row - l->sx;
      if (row[i] == below[i]) {
        i++;
        continue;
      }
      guint i0 = i;
      while (i < l->sx && row[i] != below[i])
        i++;
      edges += i - i0;
      double y = l->map_y + (l->sy - j) * k + shift;
      cairo_move_to(cr, l->map_x + i0 * k, y);
      cairo_line_to(cr, l->map_x + i * k, y);
    }
  stroke_boundaries(cr, edges, k * width / ((double)l->map_width * l->map_height));
  cairo_set_line_cap(cr, CAIRO_LINE_CAP_BUTT);
}

/* Is the box of width w and height h centred on pixel (x, y) inside rank
 * r's region? Its corners, the middles of its sides and its centre are. */
static gboolean
label_fits(const Plane *p, guint32 r, double x, double y, double w, double h)
{
  const LbPictureLayout *l = &p->layout;
  for (int dx = -1; dx <= 1; dx++)
    for (int dy = -1; dy <= 1; dy++) {
      /* a box exactly as large as the region still fits */
      double px = (x + dx * (w / 2 - 0.01) - l->map_x) / l->cell_px;
      double py = (y + dy * (h / 2 - 0.01) - l->map_y) / l->cell_px;
      if (px < 0 || py < 0 || px >= l->sx || py >= l->sy)
        return FALSE;
      if (p->owner[(gsize)(l->sy - 1 - (guint)py) * l->sx + (guint)px] != r)
        return FALSE;
    }
  return TRUE;
}

/* "r12" over its load at the centroid of the rank's cells, or both on one
 * line, where the region holds the label; nothing otherwise. */
static void
draw_labels(cairo_t *cr, const Plane *p)
{
  const LbPictureLayout *l = &p->layout;
  double k = l->cell_px;
  lb_pic_set_font(cr, 11, TRUE);
  double line = lb_pic_text_height(cr);
  for (guint r = 0; r < p->picture->ranks; r++) {
    const RankArea *a = &p->areas[r];
    if (a->count == 0 || r == p->most || r == p->least)
      continue;
    double x = l->map_x + a->sum_x / a->count * k;
    double y = l->map_y + (l->sy - a->sum_y / a->count) * k;
    g_autofree char *rank = g_strdup_printf("r%u", r);
    g_autofree char *load = lb_pic_format_load(p->picture->rank_load[r]);
    g_autofree char *both = g_strdup_printf("%s: %s", rank, load);
    double w2 = MAX(lb_pic_text_width(cr, rank), lb_pic_text_width(cr, load)) + 8,
           h2 = 2 * line + 2;
    double w1 = lb_pic_text_width(cr, both) + 8, h1 = line + 2;
    if (label_fits(p, r, x, y, w2 + 4, h2 + 4)) {
      const char *lines[] = {rank, load};
      lb_pic_show_label(cr, x, y, lines, 2, w2);
    } else if (label_fits(p, r, x, y, w1 + 4, h1)) {
      const char *lines[] = {both};
      lb_pic_show_label(cr, x, y, lines, 1, w1);
    }
  }
}

/* The outline of rank r's region: every sample edge with r on one side
 * only. */
static void
outline_rank(cairo_t *cr, const Plane *p, guint32 r)
{
  const LbPictureLayout *l = &p->layout;
  guint k = l->cell_px;
  const guint32 *o = p->owner;
  for (guint j = 0; j < l->sy; j++)
    for (guint i = 0; i < l->sx; i++) {
      if (o[(gsize)j * l->sx + i] != r)
        continue;
      double x = l->map_x + (double)i * k, y = l->map_y + (double)(l->sy - 1 - j) * k;
      if (i == 0 || o[(gsize)j * l->sx + i - 1] != r) {
        cairo_move_to(cr, x, y);
        cairo_line_to(cr, x, y + k);
      }
      if (i + 1 == l->sx || o[(gsize)j * l->sx + i + 1] != r) {
        cairo_move_to(cr, x + k, y);
        cairo_line_to(cr, x + k, y + k);
      }
      if (j == 0 || o[(gsize)(j - 1) * l->sx + i] != r) {
        cairo_move_to(cr, x, y + k);
        cairo_line_to(cr, x + k, y + k);
      }
      if (j + 1 == l->sy || o[(gsize)(j + 1) * l->sx + i] != r) {
        cairo_move_to(cr, x, y);
        cairo_line_to(cr, x + k, y);
      }
    }
  cairo_set_line_width(cr, 2);
  cairo_set_line_cap(cr, CAIRO_LINE_CAP_SQUARE);
  cairo_stroke(cr);
  cairo_set_line_cap(cr, CAIRO_LINE_CAP_BUTT);
}

/* "max r9: 2.17k" and "min r3: 1.90k" on the most and the least loaded
 * rank's region (at its centroid), whether or not they fit: what a reader
 * looks for first. A rank with no cells in the plane is named in the
 * details only. */
static void
draw_extremes(cairo_t *cr, const Plane *p)
{
  const LbPictureLayout *l = &p->layout;
  double k = l->cell_px;
  lb_pic_set_font(cr, 11, TRUE);
  double line = lb_pic_text_height(cr), last_y = -1e9;
  const guint ranks[2] = {p->most, p->least};
  const char *const names[2] = {"max", "min"};
  const guint32 colours[2] = {0xd55e00, 0x0072b2};
  for (guint e = 0; e < (p->most == p->least ? 1u : 2u); e++) {
    const RankArea *a = &p->areas[ranks[e]];
    if (a->count == 0)
      continue;
    lb_pic_set_rgb(cr, colours[e]);
    outline_rank(cr, p, ranks[e]);
    double x = l->map_x + a->sum_x / a->count * k;
    double y = l->map_y + (l->sy - a->sum_y / a->count) * k;
    if (fabs(y - last_y) < line + 4)
      y = last_y + line + 4;
    last_y = y;
    g_autofree char *load = lb_pic_format_load(p->picture->rank_load[ranks[e]]);
    g_autofree char *text = g_strdup_printf("%s r%u: %s", names[e], ranks[e], load);
    double w = lb_pic_text_width(cr, text) + 10;
    x = CLAMP(x, l->map_x + w / 2, l->map_x + l->map_width - w / 2);
    lb_pic_rounded_rectangle(cr, x - w / 2, y - line / 2 - 2, w, line + 4, 4);
    lb_pic_set_rgb(cr, colours[e]);
    cairo_fill_preserve(cr);
    cairo_set_source_rgb(cr, 1, 1, 1);
    cairo_set_line_width(cr, 1.5);
    cairo_stroke(cr);
    lb_pic_show_text(cr, x, y, 0.5, 0.5, text);
  }
}

/* array1d: the most and the least loaded rank named over their bars. */
static void
draw_strip_extremes(cairo_t *cr, const Plane *p)
{
  const LbPictureLayout *l = &p->layout;
  lb_pic_set_font(cr, 11, TRUE);
  const guint ranks[2] = {p->most, p->least};
  const char *const names[2] = {"max", "min"};
  const guint32 colours[2] = {0xd55e00, 0x0072b2};
  for (guint e = 0; e < (p->most == p->least ? 1u : 2u); e++) {
    guint first = G_MAXUINT, last = 0;
    for (guint i = 0; i < l->sx; i++)
      if (p->owner[i] == ranks[e]) {
        first = MIN(first, i);
        last = i;
      }
    if (first == G_MAXUINT)
      continue;
    g_autofree char *load = lb_pic_format_load(p->picture->rank_load[ranks[e]]);
    g_autofree char *text = g_strdup_printf("%s r%u: %s", names[e], ranks[e], load);
    double w = lb_pic_text_width(cr, text) + 10, line = lb_pic_text_height(cr);
    double x = l->map_x + (first + last + 1) / 2.0 * l->cell_px;
    x = CLAMP(x, l->map_x + w / 2, l->map_x + l->map_width - w / 2);
    double y = l->map_y + 4 + e * (line + 8) + line / 2;
    lb_pic_rounded_rectangle(cr, x - w / 2, y - line / 2 - 2, w, line + 4, 4);
    lb_pic_set_rgb(cr, colours[e]);
    cairo_fill(cr);
    cairo_set_source_rgb(cr, 1, 1, 1);
    lb_pic_show_text(cr, x, y, 0.5, 0.5, text);
  }
}

/* array1d: the loads as bars coloured like the heat map, and under them a
 * band of ranks. */
static void
draw_strip(cairo_t *cr, const Plane *p)
{
  const LbPictureLayout *l = &p->layout;
  guint k = l->cell_px;
  double x0 = l->map_x, top = l->map_y, bottom = top + BARS_HEIGHT;
  double step = lb_figure_nice_step((double)p->hi, 5, TRUE);
  double y_max = ceil((double)p->hi / step) * step;
  lb_pic_set_font(cr, 11, FALSE);
  cairo_set_line_width(cr, 1);
  for (double v = 0; v <= y_max + 1e-9; v += step) {
    double y = round(bottom - BARS_HEIGHT * v / y_max) + 0.5;
    lb_pic_set_rgb(cr, 0xe4e4e4);
    cairo_move_to(cr, x0, y);
    cairo_line_to(cr, x0 + l->map_width, y);
    cairo_stroke(cr);
    lb_pic_set_rgb(cr, 0x404040);
    cairo_move_to(cr, x0 - 5, y);
    cairo_line_to(cr, x0, y);
    cairo_stroke(cr);
    g_autofree char *label = lb_figure_format_tick(v, step);
    lb_pic_show_text(cr, x0 - 8, y, 1, 0.5, label);
  }
  lb_pic_set_font(cr, 12, TRUE);
  lb_pic_show_rotated(cr, x0 - 76, top + BARS_HEIGHT / 2.0, "load");

  g_autoptr(cairo_surface_t) bars =
      cairo_image_surface_create(CAIRO_FORMAT_ARGB32, (int)l->map_width, BARS_HEIGHT);
  cairo_surface_flush(bars);
  guint8 *data = cairo_image_surface_get_data(bars);
  int stride = cairo_image_surface_get_stride(bars);
  for (guint i = 0; i < l->sx; i++) {
    guint h = (guint)lround(BARS_HEIGHT * (double)p->load[i] / y_max);
    guint32 colour = 0xff000000u | sample_colour(p, i);
    for (guint row = BARS_HEIGHT - MIN(h, BARS_HEIGHT); row < BARS_HEIGHT; row++) {
      guint32 *px = (guint32 *)(gpointer)(data + (gsize)row * stride);
      for (guint c = 0; c < k; c++)
        px[i * k + c] = colour;
    }
  }
  cairo_surface_mark_dirty(bars);
  cairo_set_source_surface(cr, bars, x0, top);
  cairo_paint(cr);

  /* the band: runs of samples of one owner, labelled where they fit */
  double band = bottom + RANK_BAND_GAP;
  guint runs = 0;
  lb_pic_set_font(cr, 11, TRUE);
  for (guint i = 0; i < l->sx;) {
    guint i0 = i;
    while (i < l->sx && p->owner[i] == p->owner[i0])
      i++;
    double left = x0 + i0 * k, width = (i - i0) * (double)k;
    lb_pic_set_rgb(cr, runs++ % 2 ? 0xd4d4d4 : 0xeeeeee);
    cairo_rectangle(cr, left, band, width, RANK_BAND_HEIGHT);
    cairo_fill(cr);
    guint32 r = p->owner[i0];
    if (r == LB_PICTURES_NOBODY)
      continue;
    g_autofree char *rank = g_strdup_printf("r%u", r);
    g_autofree char *load = lb_pic_format_load(p->picture->rank_load[r]);
    double middle = left + width / 2, line = lb_pic_text_height(cr);
    lb_pic_set_rgb(cr, 0x202020);
    if (MAX(lb_pic_text_width(cr, rank), lb_pic_text_width(cr, load)) + 6 <= width) {
      lb_pic_show_text(cr, middle, band + RANK_BAND_HEIGHT / 2.0 - line / 2, 0.5, 0.5, rank);
      lb_pic_show_text(cr, middle, band + RANK_BAND_HEIGHT / 2.0 + line / 2, 0.5, 0.5, load);
    } else if (lb_pic_text_width(cr, rank) + 6 <= width) {
      lb_pic_show_text(cr, middle, band + RANK_BAND_HEIGHT / 2.0, 0.5, 0.5, rank);
    }
  }
  /* rank boundaries across the bars, unless they would hide them */
  gboolean across = runs > 0 && l->map_width / runs >= 4;
  for (guint i = 1; i < l->sx; i++) {
    if (p->owner[i] == p->owner[i - 1])
      continue;
    double x = x0 + i * k + 0.5;
    cairo_move_to(cr, x, across ? top : band);
    cairo_line_to(cr, x, band + RANK_BAND_HEIGHT);
  }
  cairo_set_source_rgba(cr, 0.15, 0.15, 0.15, 0.6);
  cairo_set_line_width(cr, 1);
  cairo_stroke(cr);
  lb_pic_set_rgb(cr, 0x404040);
  cairo_rectangle(cr, x0 - 0.5, top - 0.5, l->map_width + 1, BARS_HEIGHT + 1);
  cairo_rectangle(cr, x0 - 0.5, band - 0.5, l->map_width + 1, RANK_BAND_HEIGHT + 1);
  cairo_stroke(cr);
  lb_pic_draw_cell_ticks(cr, x0, band + RANK_BAND_HEIGHT, l->map_width, l->nx, FALSE, "element");
}

static void
draw_partition(cairo_t *cr, gconstpointer data)
{
  const Plane *p = data;
  const LbPictureLayout *l = &p->layout;
  cairo_set_source_rgb(cr, 1, 1, 1);
  cairo_paint(cr);
  lb_pic_draw_titles(cr, l->width, p->title, p->subtitle, p->details);
  if (p->picture->work->dim == 1) {
    draw_strip(cr, p);
    draw_strip_extremes(cr, p);
    return;
  }
  draw_heat(cr, p);
  draw_boundaries(cr, p);
  lb_pic_set_rgb(cr, 0x404040);
  cairo_set_line_width(cr, 1);
  cairo_rectangle(cr, l->map_x - 0.5, l->map_y - 0.5, l->map_width + 1, l->map_height + 1);
  cairo_stroke(cr);
  draw_labels(cr, p);
  draw_extremes(cr, p);
  lb_pic_draw_cell_ticks(cr, l->map_x, l->map_y + l->map_height, l->map_width, l->nx, FALSE, "x");
  lb_pic_draw_cell_ticks(cr, l->map_y + l->map_height, l->map_x, l->map_height, l->ny, TRUE, "y");
  draw_colour_bar(cr, p);
}

gboolean
lb_pictures_partition(const LbPictureOptions *o, const LbPartitionPicture *picture, GError **error)
{
  g_auto(Plane) p = {.picture = picture};
  lb_pictures_layout(picture->work, &p.layout);
  sample_plane(&p);
  describe_plane(&p);
  g_autofree char *what = g_strdup_printf("%s.partition", picture->balancer);
  return lb_pic_write_picture(o, picture->scenario, what, p.layout.width, p.layout.height,
                              draw_partition, &p, error);
}
