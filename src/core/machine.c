/* The machine as explain's page draws it (LbMachine): where every rank
 * ran, read from the platform once the run is over. */
#include <stdlib.h>
#include <string.h>
#include <simgrid/host.h>
#include <xbt/dynar.h>
#include <xbt/sysdep.h>

#include "core/core.h"
#include "core/placement.h"
#include "core/sp-order.h"

static guint
find_root(guint *parent, guint x)
{
  while (parent[x] != x)
    x = parent[x] = parent[parent[x]];
  return x;
}

/* lbsim-switch-nodes ("0-15,16-31,..."), nodes of lbsim-node-hosts hosts:
 * the switch of every host, or FALSE when the platform does not say. */
static gboolean
switches_of_hosts(guint nhosts, guint *switch_of)
{
  const char *text = lb_platform_property("lbsim-switch-nodes");
  const char *per = lb_platform_property("lbsim-node-hosts");
  guint64 k = 1;
  if (text == NULL ||
      (per != NULL && (!g_ascii_string_to_unsigned(per, 10, 1, nhosts, &k, NULL) || nhosts % k)))
    return FALSE;
  g_autofree gboolean *seen = g_new0(gboolean, nhosts);
  g_auto(GStrv) ranges = g_strsplit(text, ",", -1);
  for (guint s = 0; ranges[s] != NULL; s++) {
    g_auto(GStrv) ends = g_strsplit(g_strstrip(ranges[s]), "-", 2);
    guint64 first = 0, last = 0;
    if (!g_ascii_string_to_unsigned(ends[0], 10, 0, nhosts / k - 1, &first, NULL) ||
        !g_ascii_string_to_unsigned(ends[1] != NULL ? ends[1] : ends[0], 10, first, nhosts / k - 1,
                                    &last, NULL))
      return FALSE;
    for (guint64 node = first; node <= last; node++)
      for (guint64 h = node * k; h < (node + 1) * k; h++) {
        switch_of[h] = s;
        seen[h] = TRUE;
      }
  }
  for (guint h = 0; h < nhosts; h++)
    if (!seen[h])
      return FALSE;
  return TRUE;
}

/* Without the property: ranks joined by the routes of the fewest links
 * any two of them have (one leaf switch of a fat tree, one edge switch of
 * a cluster), numbered in rank order. */
static void
groups_by_routes(const LbCoreRun *run, guint *group)
{
  guint p = run->ranks;
  g_autofree guint *hops = g_new0(guint, (gsize)p * p);
  guint fewest = G_MAXUINT;
  xbt_dynar_t links = xbt_dynar_new(sizeof(sg_link_t), NULL);
  for (guint a = 0; a < p; a++)
    for (guint b = a + 1; b < p; b++) {
      if (run->rank[a].host == run->rank[b].host)
        continue;
      xbt_dynar_reset(links);
      sg_host_get_route(run->rank[a].host, run->rank[b].host, links);
      hops[(gsize)a * p + b] = (guint)xbt_dynar_length(links);
      fewest = MIN(fewest, hops[(gsize)a * p + b]);
    }
  xbt_dynar_free(&links);
  g_autofree guint *parent = g_new(guint, p);
  for (guint r = 0; r < p; r++)
    parent[r] = r;
  for (guint a = 0; a < p; a++)
    for (guint b = a + 1; b < p; b++)
      if (run->rank[a].host == run->rank[b].host || hops[(gsize)a * p + b] == fewest)
        parent[find_root(parent, b)] = find_root(parent, a);
  g_autofree guint *number = g_new(guint, p);
  guint groups = 0;
  for (guint r = 0; r < p; r++) {
    guint root = find_root(parent, r);
    if (root == r)
      number[r] = groups++;
    group[r] = number[root];
  }
}

void
lb_machine_describe(const LbCoreRun *run, LbMachine *machine)
{
  guint p = run->ranks;
  size_t nhosts = 0;
  sg_host_t *hosts = lb_hosts_in_order(&nhosts);
  g_autoptr(GHashTable) index = g_hash_table_new(NULL, NULL);
  for (size_t i = 0; i < nhosts; i++)
    g_hash_table_insert(index, hosts[i], GUINT_TO_POINTER(i));
  xbt_free(hosts);
  machine->topology = g_strdup(lb_platform_property("lbsim-topology"));
  guint sizes[LB_SP_MAX_DIMS], ndims = 0;
  guint64 product = 1;
  if (g_strcmp0(machine->topology, "torus") == 0 &&
      lb_sp_parse_sizes(lb_platform_property("lbsim-torus-dims"), sizes, &ndims) &&
      ndims <= G_N_ELEMENTS(machine->dims)) {
    for (guint k = 0; k < ndims; k++)
      product *= sizes[k];
    if (product == nhosts) {
      machine->ndims = ndims;
      memcpy(machine->dims, sizes, ndims * sizeof *sizes);
    }
  }
  machine->ranks = g_new0(LbRankHost, p);
  g_autofree guint *switch_of = g_new0(guint, MAX(nhosts, 1));
  gboolean said = switches_of_hosts((guint)nhosts, switch_of);
  g_autofree guint *group = g_new0(guint, p);
  if (!said)
    groups_by_routes(run, group);
  for (guint r = 0; r < p; r++) {
    guint h = GPOINTER_TO_UINT(g_hash_table_lookup(index, run->rank[r].host));
    machine->ranks[r] =
        (LbRankHost){h, sg_host_get_speed(run->rank[r].host), said ? switch_of[h] : group[r]};
  }
}
