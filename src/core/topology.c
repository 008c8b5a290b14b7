/* The machine graph balancers see (lb_rank_machine_neighbours): ranks
 * joined by routes of the fewest links that still connect them all. */
#include <simgrid/host.h>
#include <xbt/dynar.h>

#include "core/core.h"

static guint
topology_find(guint *parent, guint x)
{
  while (parent[x] != x)
    x = parent[x] = parent[parent[x]];
  return x;
}

/* Whether the pairs at most `limit` links apart join every rank. */
static gboolean
topology_connected(const guint16 *hops, guint p, guint16 limit)
{
  g_autofree guint *parent = g_new(guint, p);
  for (guint r = 0; r < p; r++)
    parent[r] = r;
  guint parts = p;
  for (guint a = 0; a < p; a++)
    for (guint b = a + 1; b < p; b++)
      if (hops[(gsize)a * p + b] <= limit) {
        guint x = topology_find(parent, a), y = topology_find(parent, b);
        if (x != y) {
          parent[x] = y;
          parts--;
        }
      }
  return parts <= 1;
}

static void
topology_build(LbCoreRun *run)
{
  guint p = run->ranks;
  g_autofree guint16 *hops = g_new0(guint16, (gsize)p * p);
  g_autofree gboolean *seen = g_new0(gboolean, G_MAXUINT16 + 1);
  xbt_dynar_t links = xbt_dynar_new(sizeof(sg_link_t), NULL);
  for (guint a = 0; a < p; a++)
    for (guint b = a + 1; b < p; b++) {
      xbt_dynar_reset(links);
      sg_host_get_route(run->rank[a].host, run->rank[b].host, links);
      guint16 h = (guint16)MIN(xbt_dynar_length(links), G_MAXUINT16);
      hops[(gsize)a * p + b] = h;
      seen[h] = TRUE;
    }
  xbt_dynar_free(&links);
  guint16 limit = 0;
  for (guint h = 0; h <= G_MAXUINT16; h++)
    if (seen[h]) {
      limit = (guint16)h;
      if (topology_connected(hops, p, limit))
        break;
    }
  run->machine_offsets = g_new0(guint, p + 1);
  g_autoptr(GArray) adj = g_array_new(FALSE, FALSE, sizeof(guint));
  for (guint a = 0; a < p; a++) {
    for (guint b = 0; b < p; b++)
      if (b != a && hops[(gsize)MIN(a, b) * p + MAX(a, b)] <= limit)
        g_array_append_val(adj, b);
    run->machine_offsets[a + 1] = adj->len;
  }
  run->machine_adj = (guint *)g_array_free(g_steal_pointer(&adj), FALSE);
}

guint
lb_rank_machine_neighbours(LbRank *self, int rank, const guint **neighbours)
{
  LbCoreRun *run = self->run;
  g_assert(rank >= 0 && (guint)rank < run->ranks);
  if (run->machine_offsets == NULL)
    topology_build(run);
  *neighbours = run->machine_adj + run->machine_offsets[rank];
  return run->machine_offsets[rank + 1] - run->machine_offsets[rank];
}
