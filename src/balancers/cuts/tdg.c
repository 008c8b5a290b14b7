/* BUILD_UNDIRECTED_TDG. The document's pseudocode walks the interior cuts
 * of each neighbouring column and registers, for a cut y' against the
 * subset's [ymin, ymax):
 *   y' < ymax and y' > ymin: both subsets that share y';
 *   y' < ymax and y' = ymin: the subset above y' (y' is its ymin);
 *   y' = ymax:               the subset below y' (y' is its ymax);
 *   y' > ymax:               the subset below y', if it is the first cut or
 *                            the cut before it lies below ymax.
 * Three cases it leaves open are closed here, so that the graph equals
 * rectangle adjacency (which the application's ghost exchange needs):
 *   - every cut of the neighbouring column lies below ymin: nothing above
 *     registers its top subset, which still overlaps; it is added;
 *   - equal cuts make empty subsets, which share no boundary: they are
 *     dropped (and an empty subset has no neighbours);
 *   - an empty column (equal x cuts) makes the columns on either side
 *     touch: the neighbouring column is the nearest non-empty one.
 * Subsets above and below in the same column are neighbours too (the
 * document takes them as known); again the nearest non-empty ones. */
#include "balancers/cuts/tdg.h"

static gboolean
column_empty(const LbColumns *p, guint c)
{
  return p->xcuts[c] == p->xcuts[c + 1];
}

static gboolean
subset_empty(const LbColumns *p, guint c, guint r)
{
  return column_empty(p, c) || lb_tdg_column_y(p, c, r) == lb_tdg_column_y(p, c, r + 1);
}

static void
add(const LbColumns *p, guint c, guint r, GArray *found)
{
  if (!subset_empty(p, c, r)) {
    guint id = c * p->nrows + r;
    g_array_append_val(found, id);
  }
}

/* The pseudocode's walk over the interior cuts of column c against
 * [ymin, ymax). */
static void
walk_column(const LbColumns *p, guint c, guint64 ymin, guint64 ymax, GArray *found)
{
  guint cuts = p->nrows - 1;
  for (guint i = 0; i < cuts; i++) {
    guint64 y = lb_tdg_column_y(p, c, i + 1); /* between subsets i and i + 1 */
    if (y < ymax) {
      if (y > ymin) {
        add(p, c, i, found);
        add(p, c, i + 1, found);
      } else if (y == ymin) {
        add(p, c, i + 1, found);
      }
    } else if (y == ymax) {
      add(p, c, i, found);
    } else if (i == 0 || lb_tdg_column_y(p, c, i) < ymax) {
      add(p, c, i, found);
    }
  }
  /* the case the pseudocode leaves out: every cut below ymin (or a single
   * row, with no cut at all) */
  if (cuts == 0 || lb_tdg_column_y(p, c, cuts) < ymin)
    add(p, c, p->nrows - 1, found);
}

static int
compare_guint(gconstpointer a, gconstpointer b)
{
  guint x = *(const guint *)a, y = *(const guint *)b;
  return x < y ? -1 : x > y;
}

/* Sorts and removes duplicates ("each subset cleans up its duplicates"). */
static void
clean(GArray *found, GArray *out)
{
  g_array_sort(found, compare_guint);
  for (guint i = 0; i < found->len; i++) {
    guint id = g_array_index(found, guint, i);
    if (i == 0 || id != g_array_index(found, guint, i - 1))
      g_array_append_val(out, id);
  }
}

void
lb_tdg_neighbours(const LbColumns *p, guint subset, GArray *out)
{
  guint c = subset / p->nrows, r = subset % p->nrows;
  if (subset_empty(p, c, r))
    return;
  g_autoptr(GArray) found = g_array_new(FALSE, FALSE, sizeof(guint));
  guint64 ymin = lb_tdg_column_y(p, c, r), ymax = lb_tdg_column_y(p, c, r + 1);
  /* above and below: the nearest non-empty subsets of the column */
  for (guint b = r; b-- > 0;)
    if (!subset_empty(p, c, b)) {
      add(p, c, b, found);
      break;
    }
  for (guint a = r + 1; a < p->nrows; a++)
    if (!subset_empty(p, c, a)) {
      add(p, c, a, found);
      break;
    }
  /* left and right: the nearest non-empty columns */
  for (guint l = c; l-- > 0;)
    if (!column_empty(p, l)) {
      walk_column(p, l, ymin, ymax, found);
      break;
    }
  for (guint rc = c + 1; rc < p->ncols; rc++)
    if (!column_empty(p, rc)) {
      walk_column(p, rc, ymin, ymax, found);
      break;
    }
  clean(found, out);
}

static guint64
overlap(guint64 a0, guint64 a1, guint64 b0, guint64 b1)
{
  guint64 lo = MAX(a0, b0), hi = MIN(a1, b1);
  return hi > lo ? hi - lo : 0;
}

void
lb_tdg_brute_force(const LbColumns *p, guint subset, GArray *out)
{
  guint c = subset / p->nrows, r = subset % p->nrows;
  if (subset_empty(p, c, r))
    return;
  guint64 x0 = p->xcuts[c], x1 = p->xcuts[c + 1];
  guint64 y0 = lb_tdg_column_y(p, c, r), y1 = lb_tdg_column_y(p, c, r + 1);
  for (guint oc = 0; oc < p->ncols; oc++)
    for (guint orow = 0; orow < p->nrows; orow++) {
      if ((oc == c && orow == r) || subset_empty(p, oc, orow))
        continue;
      guint64 u0 = p->xcuts[oc], u1 = p->xcuts[oc + 1];
      guint64 v0 = lb_tdg_column_y(p, oc, orow), v1 = lb_tdg_column_y(p, oc, orow + 1);
      gboolean side = (u0 == x1 || u1 == x0) && overlap(y0, y1, v0, v1) > 0;
      gboolean top = (v0 == y1 || v1 == y0) && overlap(x0, x1, u0, u1) > 0;
      if (side || top) {
        guint id = oc * p->nrows + orow;
        g_array_append_val(out, id);
      }
    }
}
