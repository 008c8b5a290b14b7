/* Rank placement, and the SP sequence of Baiardi, Chiti, Mori and Ricci
 * ("Integrating load balancing and locality in the parallelization of
 * irregular problems", 2001, section 3) on the platform at hand. */
#include "core/placement.h"

#include <stdlib.h>
#include <string.h>
#include <simgrid/host.h>
#include <simgrid/zone.h>
#include <xbt/dict.h>
#include <xbt/sysdep.h>

#include "core/sp-order.h"
#include "lbsim/run.h"

static int
natural_host_cmp(const void *a, const void *b)
{
  const char *x = sg_host_get_name(*(sg_host_t const *)a);
  const char *y = sg_host_get_name(*(sg_host_t const *)b);
  size_t lx = strcspn(x, "0123456789"), ly = strcspn(y, "0123456789");
  int c = strncmp(x, y, MIN(lx, ly));
  if (c != 0 || lx != ly)
    return c != 0 ? c : (lx < ly ? -1 : 1);
  long nx = strtol(x + lx, NULL, 10), ny = strtol(y + ly, NULL, 10);
  if (nx != ny)
    return nx < ny ? -1 : 1;
  return strcmp(x, y);
}

sg_host_t *
lb_hosts_in_order(size_t *count)
{
  *count = sg_host_count();
  sg_host_t *hosts = sg_host_list();
  qsort(hosts, *count, sizeof(sg_host_t), natural_host_cmp);
  return hosts;
}

/* lbsim-platgen puts its properties on the root zone or on the zone that
 * wraps the cluster; *zone is where key was found. */
static const char *
zone_property(const char *key, sg_netzone_t *zone)
{
  sg_netzone_t root = sg_zone_get_root();
  const char *value = sg_zone_get_property_value(root, key);
  *zone = root;
  if (value != NULL)
    return value;
  xbt_dict_t sons = xbt_dict_new_homogeneous(NULL);
  sg_zone_get_sons(root, sons);
  xbt_dict_cursor_t cursor = NULL;
  char *name;
  sg_netzone_t son;
  xbt_dict_foreach(sons, cursor, name, son)
  {
    value = sg_zone_get_property_value(son, key);
    if (value != NULL) {
      *zone = son;
      break;
    }
  }
  xbt_dict_free(&sons);
  return value;
}

const char *
lb_platform_property(const char *key)
{
  sg_netzone_t zone = NULL;
  return zone_property(key, &zone);
}

static double
route_latency_cb(guint a, guint b, gpointer data)
{
  const sg_host_t *hosts = data;
  return sg_host_get_route_latency(hosts[a], hosts[b]);
}

/* The paper's SP sequence, by the construction that fits the platform:
 * *construction names it. Gray order on a hypercube and the snake on a
 * torus put every p-node next to one a single link away, the cheapest any
 * other p-node can be; on a fat tree host order fills one leaf switch
 * after another; elsewhere the definition is applied to SimGrid's route
 * latencies. order gets count host indices. */
static gboolean
cost_order(const LbScenario *sc, const sg_host_t *hosts, guint nhosts, guint count, guint *order,
           const char **construction, GError **error)
{
  sg_netzone_t zone = NULL;
  const char *topology = zone_property("lbsim-topology", &zone);
  if (g_strcmp0(topology, "hypercube") == 0) {
    *construction = "gray";
    for (guint r = 0; r < count; r++)
      order[r] = r ^ (r >> 1);
  } else if (g_strcmp0(topology, "torus") == 0) {
    const char *text = sg_zone_get_property_value(zone, "lbsim-torus-dims");
    guint sizes[LB_SP_MAX_DIMS], ndims = 0;
    guint64 product = 0;
    if (lb_sp_parse_sizes(text, sizes, &ndims)) {
      product = 1;
      for (guint k = 0; k < ndims; k++)
        product *= sizes[k];
    }
    if (product != nhosts) {
      g_set_error(error, LB_RUN_ERROR, LB_RUN_ERROR_INPUT,
                  "%s: [scenario] placement: cost placement on the torus %s needs its "
                  "lbsim-torus-dims property to give sizes whose product is its %u hosts, not '%s'",
                  sc->file, sc->platform, nhosts, text != NULL ? text : "(none)");
      return FALSE;
    }
    *construction = "snake";
    g_autofree guint *path = g_new(guint, nhosts);
    lb_sp_snake(sizes, ndims, path);
    memcpy(order, path, count * sizeof *order);
  } else if (g_strcmp0(topology, "fat-tree") == 0) {
    *construction = "leaf order";
    for (guint r = 0; r < count; r++)
      order[r] = r;
  } else {
    *construction = "latency";
    lb_sp_greedy(nhosts, count, route_latency_cb, (gpointer)hosts, order);
  }
  return TRUE;
}

guint
lb_node_hosts(const LbScenario *sc, guint nhosts, GError **error)
{
  sg_netzone_t zone = NULL;
  const char *text = zone_property("lbsim-node-hosts", &zone);
  if (text == NULL)
    return 1;
  guint64 k = 0;
  if (!g_ascii_string_to_unsigned(text, 10, 1, G_MAXUINT, &k, NULL) || nhosts % k != 0) {
    g_set_error(error, LB_RUN_ERROR, LB_RUN_ERROR_INPUT,
                "%s: [scenario] placement: the lbsim-node-hosts property of platform %s must be a "
                "number of hosts a node that divides its %u hosts, not '%s'",
                sc->file, sc->platform, nhosts, text);
    return 0;
  }
  return (guint)k;
}

void
lb_queue_draw(guint nodes, guint count, guint64 seed, guint *drawn)
{
  /* the seed's own stream, apart from the work model's */
  guint32 words[3] = {(guint32)seed, (guint32)(seed >> 32), 0x71756575 /* "queu" */};
  g_autoptr(GRand) rand = g_rand_new_with_seed_array(words, G_N_ELEMENTS(words));
  g_autofree guint *pool = g_new(guint, nodes);
  for (guint k = 0; k < nodes; k++)
    pool[k] = k;
  /* the first count steps of a Fisher-Yates shuffle */
  for (guint j = 0; j < count; j++) {
    guint i = (guint)g_rand_int_range(rand, (gint32)j, (gint32)nodes);
    guint t = pool[i];
    pool[i] = pool[j];
    pool[j] = t;
    drawn[j] = pool[j];
  }
}

/* Whole nodes in the order drawn; a node's hosts in their order. */
static gboolean
queue_order(const LbScenario *sc, guint nhosts, guint *order, GError **error)
{
  guint k = lb_node_hosts(sc, nhosts, error);
  if (k == 0)
    return FALSE;
  guint count = (sc->ranks + k - 1) / k;
  g_autofree guint *drawn = g_new(guint, count);
  lb_queue_draw(nhosts / k, count, sc->placement_seed, drawn);
  for (guint r = 0; r < sc->ranks; r++)
    order[r] = drawn[r / k] * k + r % k;
  return TRUE;
}

gboolean
lb_place_ranks(const LbScenario *sc, sg_host_t **placed, char **placement_name, GError **error)
{
  size_t nhosts = sg_host_count();
  if (nhosts == 0) {
    g_set_error(error, LB_RUN_ERROR, LB_RUN_ERROR_INPUT, "%s: [scenario] platform: %s has no host",
                sc->file, sc->platform);
    return FALSE;
  }
  if (nhosts < sc->ranks) {
    g_set_error(error, LB_RUN_ERROR, LB_RUN_ERROR_INPUT,
                "%s: [scenario] ranks: %u ranks need %u hosts, but platform %s has %zu", sc->file,
                sc->ranks, sc->ranks, sc->platform, nhosts);
    return FALSE;
  }
  sg_host_t *hosts = lb_hosts_in_order(&nhosts);

  LbPlacement placement = sc->placement;
  if (placement == LB_PLACEMENT_AUTO) {
    sg_netzone_t zone = NULL;
    const char *topology = zone_property("lbsim-topology", &zone);
    placement = g_strcmp0(topology, "hypercube") == 0 ? LB_PLACEMENT_GRAY : LB_PLACEMENT_LINEAR;
  }
  g_autofree guint *order = g_new(guint, sc->ranks);
  g_autofree char *name = NULL;
  gboolean gray = placement == LB_PLACEMENT_GRAY;
  if (placement == LB_PLACEMENT_COST) {
    const char *construction = NULL;
    if (!cost_order(sc, hosts, (guint)nhosts, sc->ranks, order, &construction, error)) {
      xbt_free(hosts);
      return FALSE;
    }
    name = g_strdup_printf("cost (%s)", construction);
    gray = strcmp(construction, "gray") == 0;
  } else if (placement == LB_PLACEMENT_QUEUE) {
    if (!queue_order(sc, (guint)nhosts, order, error)) {
      xbt_free(hosts);
      return FALSE;
    }
    name = g_strdup("queue");
  } else {
    for (guint r = 0; r < sc->ranks; r++)
      order[r] = gray ? (r ^ (r >> 1)) : r;
    name = g_strdup(gray ? "gray" : "linear");
  }
  /* Gray codes of ranks below 2^k fill the first 2^k hosts. */
  if (gray) {
    guint needed = 1;
    while (needed < sc->ranks)
      needed <<= 1;
    if (nhosts < needed) {
      g_set_error(error, LB_RUN_ERROR, LB_RUN_ERROR_INPUT,
                  "%s: [scenario] placement: %s placement of %u ranks needs %u hosts, platform %s "
                  "has %zu",
                  sc->file, name, sc->ranks, needed, sc->platform, nhosts);
      xbt_free(hosts);
      return FALSE;
    }
  }
  sg_host_t *out = g_new(sg_host_t, sc->ranks);
  for (guint r = 0; r < sc->ranks; r++)
    out[r] = hosts[order[r]];
  xbt_free(hosts);
  *placed = out;
  *placement_name = g_steal_pointer(&name);
  return TRUE;
}
