/* The flagged cells of a parent grid and their clustering (samr.h). The
 * flags are kept as runs along the rows of the box's longest axis, not a
 * byte a cell: a pattern that knows where along a row its load reaches
 * the threshold (lb_pattern_rows_new: a shock's slab) gives each row's run
 * from a few evaluations; the others are evaluated cell by cell, one row
 * at a time. Berger and Rigoutsos' signatures come from the runs (a
 * difference array along the rows, the runs' lengths across them), so
 * time and memory go with the rows, not the cells; the boxes are the same
 * as from a byte a cell. */
#include <string.h>

#include "workloads/samr.h"

struct _SamrFlags {
  guint axis;          /* the rows' axis, the box's longest */
  guint u, v;          /* the two others, u the faster (v = 2 in 2D) */
  gint64 lo[3], hi[3]; /* the box, unused axes [0, 1) */
  guint64 *first;      /* rows + 1 offsets into runs, row (u - lo[u]) + nu (v - lo[v]) */
  GArray *runs;        /* gint64 pairs, [start, end) along axis, ascending in a row */
  guint64 count;       /* flagged cells */
};

SamrFlags *
lb_samr_flags_new(const LbPattern *pattern, const LbPatternAt *at, const LbPatternRows *rows,
                  guint dim, const guint64 *size, const gint64 *lo, const gint64 *hi,
                  guint64 threshold)
{
  SamrFlags *f = g_new0(SamrFlags, 1);
  memcpy(f->lo, lo, sizeof f->lo);
  memcpy(f->hi, hi, sizeof f->hi);
  f->axis = 0;
  for (guint a = 1; a < dim; a++)
    if (hi[a] - lo[a] > hi[f->axis] - lo[f->axis])
      f->axis = a;
  f->u = f->axis == 0 ? 1 : 0;
  f->v = f->axis == 2 ? 1 : 2;
  if (f->u > f->v) {
    guint t = f->u;
    f->u = f->v;
    f->v = t;
  }
  guint64 nu = (guint64)(hi[f->u] - lo[f->u]), nv = (guint64)(hi[f->v] - lo[f->v]);
  f->first = g_new(guint64, nu * nv + 1);
  f->runs = g_array_new(FALSE, FALSE, sizeof(gint64));
  guint64 index[3] = {0, 0, 0}, row = 0;
  for (gint64 cv = lo[f->v]; cv < hi[f->v]; cv++)
    for (gint64 cu = lo[f->u]; cu < hi[f->u]; cu++, row++) {
      f->first[row] = f->runs->len / 2;
      index[f->u] = (guint64)cu;
      index[f->v] = (guint64)cv;
      if (rows != NULL) {
        guint64 s = 0, e = 0;
        lb_pattern_rows_find(rows, index, f->axis, (guint64)lo[f->axis], (guint64)hi[f->axis], &s,
                             &e);
        if (s < e) {
          gint64 run[2] = {(gint64)s, (gint64)e};
          g_array_append_vals(f->runs, run, 2);
          f->count += e - s;
        }
        continue;
      }
      gint64 open = -1;
      for (gint64 c = lo[f->axis]; c <= hi[f->axis]; c++) {
        gboolean flag = FALSE;
        if (c < hi[f->axis]) {
          index[f->axis] = (guint64)c;
          guint64 id = index[0] + size[0] * (index[1] + size[1] * index[2]);
          flag = lb_pattern_load(pattern, at, dim, index, size, id) >= threshold;
        }
        if (flag && open < 0)
          open = c;
        if (!flag && open >= 0) {
          gint64 run[2] = {open, c};
          g_array_append_vals(f->runs, run, 2);
          f->count += (guint64)(c - open);
          open = -1;
        }
      }
    }
  f->first[row] = f->runs->len / 2;
  return f;
}

guint64
lb_samr_flags_count(const SamrFlags *f)
{
  return f->count;
}

gsize
lb_samr_flags_bytes(const SamrFlags *f)
{
  guint64 rows = (guint64)(f->hi[f->u] - f->lo[f->u]) * (guint64)(f->hi[f->v] - f->lo[f->v]);
  return (rows + 1) * sizeof(guint64) + f->runs->len * sizeof(gint64);
}

void
lb_samr_flags_free(SamrFlags *f)
{
  if (f == NULL)
    return;
  g_free(f->first);
  g_array_unref(f->runs);
  g_free(f);
}

/* Counts of flagged cells per plane of box [lo, hi) (inside the flags'
 * box) along each axis; returns the flagged cells of the box. Along the
 * rows' axis from the runs' ends (+1 where a run starts, -1 where it
 * ends, summed), across them from the runs' lengths. */
static guint64
signatures(const SamrFlags *f, const gint64 *lo, const gint64 *hi, guint64 *sig[3], gint64 *diff)
{
  for (guint a = 0; a < 3; a++)
    memset(sig[a], 0, sizeof(guint64) * (gsize)(hi[a] - lo[a]));
  guint r = f->axis;
  gint64 n = hi[r] - lo[r];
  memset(diff, 0, sizeof(gint64) * (gsize)(n + 1));
  const gint64 *runs = (const gint64 *)f->runs->data;
  guint64 nu = (guint64)(f->hi[f->u] - f->lo[f->u]), count = 0;
  for (gint64 cv = lo[f->v]; cv < hi[f->v]; cv++)
    for (gint64 cu = lo[f->u]; cu < hi[f->u]; cu++) {
      guint64 row = (guint64)(cu - f->lo[f->u]) + nu * (guint64)(cv - f->lo[f->v]);
      guint64 cells = 0;
      for (guint64 k = f->first[row]; k < f->first[row + 1]; k++) {
        gint64 s = MAX(runs[2 * k], lo[r]), e = MIN(runs[2 * k + 1], hi[r]);
        if (s >= e)
          continue;
        cells += (guint64)(e - s);
        diff[s - lo[r]]++;
        diff[e - lo[r]]--;
      }
      sig[f->u][cu - lo[f->u]] += cells;
      sig[f->v][cv - lo[f->v]] += cells;
      count += cells;
    }
  gint64 sum = 0;
  for (gint64 i = 0; i < n; i++) {
    sum += diff[i];
    sig[r][i] = (guint64)sum;
  }
  return count;
}

/* Clusters the flagged cells of box [lo, hi) into boxes (appended as
 * 6 gint64 each): shrink to the flags' bounding box; keep it if at least
 * `efficiency` of it is flagged; else cut at the hole (an empty plane)
 * nearest the middle, else at the strongest inflection of the signature
 * (the largest change of its second difference's sign), else in the
 * middle of the longest axis, and go on in both halves. */
static void
cluster(const SamrFlags *f, guint dim, double efficiency, gint64 *lo, gint64 *hi, GArray *out)
{
  gsize extents = (gsize)(hi[0] - lo[0] + hi[1] - lo[1] + hi[2] - lo[2]);
  g_autofree guint64 *buf = g_new(guint64, extents);
  g_autofree gint64 *diff = g_new(gint64, (gsize)(hi[f->axis] - lo[f->axis]) + 1);
  guint64 *sig[3] = {buf, buf + (hi[0] - lo[0]), buf + (hi[0] - lo[0]) + (hi[1] - lo[1])};
  guint64 count = signatures(f, lo, hi, sig, diff);
  if (count == 0)
    return;
  gint64 blo[3], bhi[3];
  for (guint a = 0; a < 3; a++) {
    gint64 n = hi[a] - lo[a], s = 0, e = n;
    while (sig[a][s] == 0)
      s++;
    while (sig[a][e - 1] == 0)
      e--;
    blo[a] = lo[a] + s;
    bhi[a] = lo[a] + e;
  }
  guint64 volume = 1;
  for (guint a = 0; a < 3; a++)
    volume *= (guint64)(bhi[a] - blo[a]);
  if ((double)count >= efficiency * (double)volume || volume == 1) {
    gint64 box[6] = {blo[0], blo[1], blo[2], bhi[0], bhi[1], bhi[2]};
    g_array_append_vals(out, box, 6);
    return;
  }
  /* signatures of the tight box are the same planes, offset */
  guint cut_axis = 0;
  gint64 cut = -1, best = -1;
  for (guint a = 0; a < dim; a++) { /* a hole nearest the middle */
    gint64 n = bhi[a] - blo[a], mid = n / 2;
    for (gint64 i = 1; i < n - 1; i++)
      if (sig[a][blo[a] - lo[a] + i] == 0) {
        gint64 d = i > mid ? i - mid : mid - i;
        if (best < 0 || d < best) {
          best = d;
          cut = blo[a] + i;
          cut_axis = a;
        }
      }
  }
  if (cut < 0) { /* the strongest inflection */
    gint64 strength = 0;
    for (guint a = 0; a < dim; a++) {
      gint64 n = bhi[a] - blo[a];
      const guint64 *s = sig[a] + (blo[a] - lo[a]);
      for (gint64 i = 1; i + 2 < n; i++) {
        gint64 d1 = (gint64)s[i - 1] - 2 * (gint64)s[i] + (gint64)s[i + 1];
        gint64 d2 = (gint64)s[i] - 2 * (gint64)s[i + 1] + (gint64)s[i + 2];
        if ((d1 < 0) != (d2 < 0)) {
          gint64 k = d1 > d2 ? d1 - d2 : d2 - d1;
          if (k > strength) {
            strength = k;
            cut = blo[a] + i + 1;
            cut_axis = a;
          }
        }
      }
    }
  }
  if (cut < 0) { /* the middle of the longest axis */
    for (guint a = 1; a < dim; a++)
      if (bhi[a] - blo[a] > bhi[cut_axis] - blo[cut_axis])
        cut_axis = a;
    cut = blo[cut_axis] + (bhi[cut_axis] - blo[cut_axis]) / 2;
  }
  gint64 l2[3], h1[3];
  memcpy(l2, blo, sizeof l2);
  memcpy(h1, bhi, sizeof h1);
  h1[cut_axis] = cut;
  l2[cut_axis] = cut;
  g_clear_pointer(&buf, g_free);
  g_clear_pointer(&diff, g_free);
  cluster(f, dim, efficiency, blo, h1, out);
  cluster(f, dim, efficiency, l2, bhi, out);
}

void
lb_samr_cluster(const SamrFlags *f, guint dim, double efficiency, GArray *boxes)
{
  if (f->count == 0)
    return;
  gint64 lo[3], hi[3];
  memcpy(lo, f->lo, sizeof lo);
  memcpy(hi, f->hi, sizeof hi);
  cluster(f, dim, efficiency, lo, hi, boxes);
}
