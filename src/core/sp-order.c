/* The SP sequence's arithmetic: a snake through a torus, and the greedy
 * order by cost. */
#include "core/sp-order.h"

#include <string.h>

/* The reflected mixed-radix Gray code, counted like an odometer whose
 * digits turn back at their ends instead of wrapping: each step moves the
 * lowest dimension that can still go its way by one, and every lower
 * dimension (standing at an end) reverses. So consecutive nodes differ by
 * one in one coordinate, with no wrap-around: one link apart on the mesh
 * and therefore on the torus, whatever the sizes (odd ones too). The
 * digits, read back through the reversals, count 0 .. n-1 in mixed radix,
 * so every node comes exactly once: a boustrophedon that sweeps x along a
 * row, steps y, sweeps x back, and at the end of a plane steps z and runs
 * the plane's path backwards. On sizes 2,2,...,2 it is the binary Gray
 * code. */
void
lb_sp_snake(const guint *sizes, guint ndims, guint *order)
{
  g_return_if_fail(ndims >= 1 && ndims <= LB_SP_MAX_DIMS);
  guint x[LB_SP_MAX_DIMS] = {0}, stride[LB_SP_MAX_DIMS];
  gboolean back[LB_SP_MAX_DIMS] = {FALSE};
  guint n = 1;
  for (guint k = 0; k < ndims; k++) {
    g_return_if_fail(sizes[k] >= 1);
    stride[k] = n;
    n *= sizes[k];
  }
  guint host = 0;
  for (guint i = 0; i < n; i++) {
    order[i] = host;
    for (guint k = 0; k < ndims; k++) {
      if (back[k] ? x[k] > 0 : x[k] + 1 < sizes[k]) {
        x[k] = back[k] ? x[k] - 1 : x[k] + 1;
        host = back[k] ? host - stride[k] : host + stride[k];
        break;
      }
      back[k] = !back[k];
    }
  }
}

gboolean
lb_sp_parse_sizes(const char *text, guint *sizes, guint *ndims)
{
  if (text == NULL)
    return FALSE;
  g_auto(GStrv) parts = g_strsplit(text, ",", -1);
  guint n = g_strv_length(parts);
  if (n == 0 || n > LB_SP_MAX_DIMS)
    return FALSE;
  guint64 product = 1;
  for (guint k = 0; k < n; k++) {
    guint64 v = 0;
    if (!g_ascii_string_to_unsigned(g_strstrip(parts[k]), 10, 1, G_MAXUINT, &v, NULL))
      return FALSE;
    product *= v;
    if (product > G_MAXUINT)
      return FALSE;
    sizes[k] = (guint)v;
  }
  *ndims = n;
  return TRUE;
}

/* The hosts not yet placed stay in a list in ascending order, so that the
 * strict comparison keeps the lowest number among equal costs. Only the
 * last placed host's row of costs is ever asked for: no n x n table. */
void
lb_sp_greedy(guint n, guint count, LbSpCostFunc cost, gpointer data, guint *order)
{
  g_return_if_fail(count <= n);
  if (count == 0)
    return;
  g_autofree guint *left = g_new(guint, MAX(n, 1));
  guint nleft = n - 1;
  for (guint i = 0; i < nleft; i++)
    left[i] = i + 1;
  order[0] = 0;
  for (guint k = 1; k < count; k++) {
    guint from = order[k - 1], best = 0;
    double best_cost = cost(from, left[0], data);
    for (guint j = 1; j < nleft; j++) {
      double c = cost(from, left[j], data);
      if (c < best_cost) {
        best = j;
        best_cost = c;
      }
    }
    order[k] = left[best];
    nleft--;
    memmove(left + best, left + best + 1, (nleft - best) * sizeof *left);
  }
}
