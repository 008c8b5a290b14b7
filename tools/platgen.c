/* lbsim-platgen: writes the SimGrid platforms of platforms/. The shipped XML
 * is this program's output, and tests/test-platforms.c checks that they agree,
 * so change a figure here and regenerate with `lbsim-platgen all platforms`. */
#include <errno.h>
#include <locale.h>
#include <stdio.h>
#include <string.h>
#include <glib.h>
#include <glib/gstdio.h>

#define EXIT_USAGE 2
/* platforms/ ships the cubes up to 16384 hosts; larger ones (tools/bench
 * runs MLB at 131072 ranks) are made on demand. */
#define SHIPPED_MAX_DIMENSION 14
#define MAX_DIMENSION 17
#define MAX_HOSTS 131072

#define PLATGEN_ERROR (platgen_error_quark())

typedef enum {
  PLATGEN_ERROR_USAGE,
  PLATGEN_ERROR_IO,
} PlatgenError;

typedef struct {
  const char *name;
  const char *synopsis;
  guint n_args;
  gboolean (*parse)(char **args, guint *values, GError **error);
  GString *(*generate)(const guint *values);
  char *(*file_name)(const guint *values);
} Kind;

/* Intel iPSC/860 node and channel (Dunigan 1991). */
#define HYPERCUBE_SPEED "10Mf"
#define HYPERCUBE_BW "2.8MBps"
#define HYPERCUBE_LAT "75us"

/* Cray T3E-900 node, torus link, and MPI's latency of a message, half on
 * each end's host link. */
#define T3E_SPEED "100Mf"
#define T3E_BW "300MBps"
#define T3E_HOP_LAT "50ns"
#define T3E_HOST_LAT "5us"

/* Commodity gigabit cluster; a route crosses 2 (same leaf) or 4 links. */
#define FAT_TREE_SPEED "4Gf"
#define FAT_TREE_BW "1Gbps"
#define FAT_TREE_LAT "12.5us"

/* SGI Origin2000 (250 MHz R10000) seen by MPI: host link + router network +
 * host link. */
#define ORIGIN_SPEED "100Mf"
#define ORIGIN_BW "150MBps"
#define ORIGIN_LAT "5us"
#define ORIGIN_BB_LAT "1us"

/* Fast Ethernet edge switches with gigabit uplinks to a core switch: host
 * link + edge switch + host link within a switch, and uplink + core +
 * uplink + the other edge switch more between switches. */
#define HETERO_SLOW_SPEED "1Gf"
#define HETERO_FAST_SPEED "1.266Gf"
#define HETERO_BW "100Mbps"
#define HETERO_LAT "45us"
#define HETERO_SWITCH_LAT "10us"
#define HETERO_UPLINK_BW "1Gbps"
#define HETERO_UPLINK_LAT "2.5us"
#define HETERO_CORE_LAT "5us"
#define HETERO_SWITCH_HOSTS 16
/* Every route is written out (SimGrid 3.32 computes no route through a
 * router before the simulation starts, and lbsim asks for routes before
 * it): (N/16)^2 between switches and 16^2 + 32 in each. */
#define HETERO_MAX_HOSTS 1024

/* Dual-processor nodes on the same Fast Ethernet: a processor's link to its
 * node (the TCP/IP stack's share of a message, paid between the two
 * processors of a node too), the node's link to its edge switch (NIC,
 * cable and half the switch), an edge switch's uplink to the core (the
 * uplink, half the core and half the other edge switch). 10 + 40 + 40 + 10
 * = 100 us within a switch, as the hetero-cluster's 45 + 10 + 45; 20 us
 * more between switches, as its 2.5 + 5 + 2.5 + 10; 20 us within a node. */
#define DUAL_FAST_SPEED "1.266Gf"
#define DUAL_SLOW_SPEED "1Gf"
#define DUAL_CPU_BW "100MBps"
#define DUAL_CPU_LAT "10us"
#define DUAL_NODE_BW "100Mbps"
#define DUAL_NODE_LAT "40us"
#define DUAL_UPLINK_BW "1Gbps"
#define DUAL_UPLINK_LAT "10us"
#define DUAL_SWITCH_NODES 16
#define DUAL_MAX_NODES 2048

static GQuark
platgen_error_quark(void)
{
  return g_quark_from_static_string("lbsim-platgen-error-quark");
}

static gboolean
parse_number(const char *text, const char *what, guint min, guint max, guint *out, GError **error)
{
  guint64 value = 0;
  g_autoptr(GError) local = NULL;

  if (!g_ascii_string_to_unsigned(text, 10, min, max, &value, &local)) {
    g_set_error(error, PLATGEN_ERROR, PLATGEN_ERROR_USAGE,
                "%s must be an integer in %u..%u, not '%s'", what, min, max, text);
    return FALSE;
  }
  *out = (guint)value;
  return TRUE;
}

/* The exact integer k with k^levels == n, or 0. */
static guint
integer_root(guint n, guint levels)
{
  for (guint k = 1;; k++) {
    guint64 power = 1;
    for (guint i = 0; i < levels; i++)
      power *= k;
    if (power == n)
      return k;
    if (power > n)
      return 0;
  }
}

/* A k-ary n-tree (full bisection): two levels when n is a square, else three. */
static guint
fat_tree_levels(guint hosts, guint *arity)
{
  for (guint levels = 2; levels <= 3; levels++) {
    guint k = integer_root(hosts, levels);
    if (k >= 2) {
      *arity = k;
      return levels;
    }
  }
  return 0;
}

static void
append_header(GString *xml)
{
  g_string_append(xml, "<?xml version='1.0'?>\n"
                       "<!DOCTYPE platform SYSTEM \"https://simgrid.org/simgrid.dtd\">\n"
                       "<platform version=\"4.1\">\n");
}

/* CM02 has no TCP correction factors, so a message of S bytes over a route
 * costs the sum of its link latencies plus S over its narrowest bandwidth:
 * the figures below mean what the papers they come from say. Cross-traffic
 * (a TCP acknowledgement flow of 5% in the reverse direction) is off for the
 * same reason: with it, two neighbours exchanging at once each lose 5%. */
static void
append_config_with(GString *xml, const char *extra)
{
  g_string_append_printf(xml,
                         "  <config>\n"
                         "    <prop id=\"network/model\" value=\"CM02\"/>\n"
                         "    <prop id=\"network/crosstraffic\" value=\"0\"/>\n"
                         "%s"
                         "  </config>\n",
                         extra);
}

static void
append_config(GString *xml)
{
  append_config_with(xml, "");
}

static void
append_prop(GString *xml, const char *indent, const char *id, const char *value)
{
  g_string_append_printf(xml, "%s<prop id=\"%s\" value=\"%s\"/>\n", indent, id, value);
}

static void
append_footer(GString *xml)
{
  g_string_append(xml, "</platform>\n");
}

static gboolean
parse_hypercube(char **args, guint *values, GError **error)
{
  return parse_number(args[0], "hypercube dimension D", 1, MAX_DIMENSION, &values[0], error);
}

static GString *
generate_hypercube(const guint *values)
{
  guint dimension = values[0];
  guint hosts = 1u << dimension;
  GString *xml = g_string_new(NULL);
  g_autoptr(GString) sizes = g_string_new("2");

  for (guint i = 1; i < dimension; i++)
    g_string_append(sizes, ",2");

  append_header(xml);
  g_string_append_printf(
      xml,
      "  <!-- Binary hypercube of dimension %u (%u nodes) with the node and channel\n"
      "       figures of the Intel iPSC/860.\n"
      "       Channels: T. H. Dunigan, \"Performance of the Intel iPSC/860 and Ncube 6400\n"
      "       hypercubes\", ORNL/TM-11790, Oak Ridge National Laboratory, 1991: about\n"
      "       75 us for a short message and 2.8 MB/s per channel. Each cube edge is one\n"
      "       SimGrid link with these figures, so under CM02 a message of S bytes between\n"
      "       neighbours costs exactly 75 us + S / 2.8 MB/s, and one across k dimensions\n"
      "       k times the latency (the real machine's circuit-switched routing made\n"
      "       distance cheaper: only neighbour messages are exact).\n"
      "       Nodes: 40 MHz Intel i860 XR, 80 MFLOPS single / 60 MFLOPS double precision\n"
      "       peak. We use 10 MFLOPS: compiled code sustained a small fraction of peak,\n"
      "       and this is the order of its sustained rate, an assumption rather than a\n"
      "       measurement.\n"
      "       Real iPSC/860s had at most 128 nodes (dimension 7); larger cubes keep\n"
      "       the same node and channel.\n"
      "       The cube is a TORUS cluster with every dimension of size 2; host nI is\n"
      "       node I, and hosts whose numbers differ in k bits are k links apart.\n"
      "       A message from a host to itself crosses a loopback link with the same\n"
      "       figures, like one to a neighbour (without it SimGrid aborts on such a\n"
      "       message).\n"
      "       Written by lbsim-platgen; do not edit by hand. -->\n",
      dimension, hosts);
  append_config(xml);
  g_string_append(xml, "  <zone id=\"world\" routing=\"Full\">\n");
  append_prop(xml, "    ", "lbsim-topology", "hypercube");
  g_autofree char *dimension_text = g_strdup_printf("%u", dimension);
  append_prop(xml, "    ", "lbsim-dimension", dimension_text);
  g_string_append_printf(xml,
                         "    <cluster id=\"hypercube\" prefix=\"n\" suffix=\"\" radical=\"0-%u\"\n"
                         "             speed=\"" HYPERCUBE_SPEED "\" bw=\"" HYPERCUBE_BW
                         "\" lat=\"" HYPERCUBE_LAT "\"\n"
                         "             loopback_bw=\"" HYPERCUBE_BW
                         "\" loopback_lat=\"" HYPERCUBE_LAT "\"\n"
                         "             topology=\"TORUS\" topo_parameters=\"%s\"/>\n",
                         hosts - 1, sizes->str);
  g_string_append(xml, "  </zone>\n");
  append_footer(xml);
  return xml;
}

static char *
hypercube_file_name(const guint *values)
{
  return g_strdup_printf("hypercube-%u.xml", 1u << values[0]);
}

/* SimGrid cannot build a torus dimension of size 1 (its link would join a
 * node to itself twice). */
static gboolean
parse_torus(char **args, guint *values, GError **error)
{
  static const char *const what[] = {"torus size X", "torus size Y", "torus size Z"};

  for (guint i = 0; i < 3; i++)
    if (!parse_number(args[i], what[i], 2, MAX_HOSTS / 4, &values[i], error))
      return FALSE;
  if ((guint64)values[0] * values[1] * values[2] > MAX_HOSTS) {
    g_set_error(error, PLATGEN_ERROR, PLATGEN_ERROR_USAGE,
                "a torus of %u x %u x %u has more than %u hosts", values[0], values[1], values[2],
                MAX_HOSTS);
    return FALSE;
  }
  return TRUE;
}

static GString *
generate_torus(const guint *values)
{
  guint hosts = values[0] * values[1] * values[2];
  GString *xml = g_string_new(NULL);
  g_autofree char *sizes = g_strdup_printf("%u,%u,%u", values[0], values[1], values[2]);

  append_header(xml);
  g_string_append_printf(
      xml,
      "  <!-- %u x %u x %u three-dimensional torus (%u nodes) with the figures of the\n"
      "       Cray T3E-900.\n"
      "       Nodes: 450 MHz DEC Alpha 21164A, 900 MFLOPS peak (A. J. van der Steen and\n"
      "       J. J. Dongarra, \"Overview of Recent Supercomputers\", netlib, 1997 ff.).\n"
      "       We use 100 MFLOPS, about a ninth of peak: the 21164 has 8 KB + 96 KB of\n"
      "       on-chip cache and the T3E no board cache, so scientific codes sustained a\n"
      "       small fraction of peak (the same order of ratio as the iPSC/860 figure).\n"
      "       Links: 300 MB/s each way, the point-to-point bandwidth van der Steen and\n"
      "       Dongarra give and that Cray MPI delivered (85-90%% of SHMEM's 340 MB/s in\n"
      "       the Ames Laboratory MP_Lite measurements, D. Turner). The raw torus link\n"
      "       rate of about 600 MB/s per direction (S. L. Scott, \"Synchronization and\n"
      "       Communication in the T3E Multiprocessor\", ASPLOS VII, 1996) is not used:\n"
      "       under CM02 one message gets the whole link, and no message got 600 MB/s.\n"
      "       Latency: 10 us a message, paid once whatever the distance. Cray MPI's\n"
      "       one-way latency is commonly quoted as 10-20 us for early releases and\n"
      "       was about 5 us in later ones (Ames Laboratory); 10 us lies between. It is\n"
      "       the software's cost, not the network's: each node reaches its router\n"
      "       through a host link of 5 us, so a message pays 10 us on its two host\n"
      "       links. A torus link adds 50 ns: our assumption, of the order of a router\n"
      "       hop in the machines of its time (tens of nanoseconds in the Origin2000's,\n"
      "       J. Laudon and D. Lenoski, ISCA 1997), not a T3E measurement (the T3E's\n"
      "       hop was well under 1 us). So a message h links away costs 10 us + h x 50\n"
      "       ns + S / 300 MB/s.\n"
      "       Host nI and its router rI sit at x + %u y + %u z = I; every router has\n"
      "       links to its x, y and z neighbours, wrapping around, and routes follow\n"
      "       the fewest links (SimGrid's Dijkstra routing; the real network routed\n"
      "       adaptively). A message from a host to itself crosses SimGrid's loopback\n"
      "       link, set to 10 us and 300 MB/s.\n"
      "       Written by lbsim-platgen; do not edit by hand. -->\n",
      values[0], values[1], values[2], hosts, values[0], values[0] * values[1]);
  /* in seconds and bytes a second: the keys take no units */
  append_config_with(xml, "    <prop id=\"network/loopback-lat\" value=\"1e-05\"/>\n"
                          "    <prop id=\"network/loopback-bw\" value=\"3e+08\"/>\n");
  g_string_append(xml, "  <zone id=\"world\" routing=\"DijkstraCache\">\n");
  append_prop(xml, "    ", "lbsim-topology", "torus");
  append_prop(xml, "    ", "lbsim-torus-dims", sizes);
  for (guint i = 0; i < hosts; i++)
    g_string_append_printf(xml, "    <host id=\"n%u\" speed=\"" T3E_SPEED "\"/>\n", i);
  for (guint i = 0; i < hosts; i++)
    g_string_append_printf(xml, "    <router id=\"r%u\"/>\n", i);
  for (guint i = 0; i < hosts; i++)
    g_string_append_printf(xml,
                           "    <link id=\"n%u_host\" bandwidth=\"" T3E_BW
                           "\" latency=\"" T3E_HOST_LAT "\" sharing_policy=\"SPLITDUPLEX\"/>\n",
                           i);
  /* the link from router i to its next neighbour along each axis (a
   * dimension of 2 has one link between its two routers) */
  guint stride[3] = {1, values[0], values[0] * values[1]};
  for (guint i = 0; i < hosts; i++)
    for (guint d = 0; d < 3; d++)
      if (values[d] > 2 || i / stride[d] % values[d] == 0)
        g_string_append_printf(xml,
                               "    <link id=\"r%u_%c\" bandwidth=\"" T3E_BW
                               "\" latency=\"" T3E_HOP_LAT "\" sharing_policy=\"SPLITDUPLEX\"/>\n",
                               i, "xyz"[d]);
  for (guint i = 0; i < hosts; i++)
    g_string_append_printf(xml,
                           "    <route src=\"n%u\" dst=\"r%u\"><link_ctn id=\"n%u_host\" "
                           "direction=\"UP\"/></route>\n",
                           i, i, i);
  for (guint i = 0; i < hosts; i++)
    for (guint d = 0; d < 3; d++) {
      guint coordinate = i / stride[d] % values[d];
      if (values[d] == 2 && coordinate != 0)
        continue;
      guint next = i - coordinate * stride[d] + (coordinate + 1) % values[d] * stride[d];
      g_string_append_printf(xml,
                             "    <route src=\"r%u\" dst=\"r%u\"><link_ctn id=\"r%u_%c\" "
                             "direction=\"UP\"/></route>\n",
                             i, next, i, "xyz"[d]);
    }
  g_string_append(xml, "  </zone>\n");
  append_footer(xml);
  return xml;
}

static char *
torus_file_name(const guint *values)
{
  return g_strdup_printf("t3e-%u.xml", values[0] * values[1] * values[2]);
}

static gboolean
parse_fat_tree(char **args, guint *values, GError **error)
{
  guint arity = 0;

  if (!parse_number(args[0], "fat-tree host count N", 4, MAX_HOSTS, &values[0], error))
    return FALSE;
  if (fat_tree_levels(values[0], &arity) == 0) {
    g_set_error(error, PLATGEN_ERROR, PLATGEN_ERROR_USAGE,
                "fat-tree host count N must be k^2 or k^3 for an integer k >= 2 "
                "(a two- or three-level k-ary tree), not %u",
                values[0]);
    return FALSE;
  }
  return TRUE;
}

static GString *
generate_fat_tree(const guint *values)
{
  guint hosts = values[0];
  guint k = 0;
  guint levels = fat_tree_levels(hosts, &k);
  GString *xml = g_string_new(NULL);
  g_autofree char *parameters = NULL;

  if (levels == 2)
    parameters = g_strdup_printf("2;%u,%u;1,%u;1,1", k, k, k);
  else
    parameters = g_strdup_printf("3;%u,%u,%u;1,%u,%u;1,1,1", k, k, k, k, k);

  append_header(xml);
  g_string_append_printf(
      xml,
      "  <!-- Commodity cluster of %u nodes on gigabit Ethernet switches wired as a\n"
      "       %u-level %u-ary fat tree (full bisection bandwidth, %u hosts per leaf\n"
      "       switch).\n"
      "       Representative figures of the class, not of one machine:\n"
      "       Nodes: 4 GFLOPS sustained (a few GFLOPS per node, about a tenth of the\n"
      "       peak of a multi-core x86 node of the late 2000s).\n"
      "       Links: 1 Gb/s, the Ethernet line rate.\n"
      "       Latency: MPI over TCP on gigabit Ethernet costs about 50 us one way\n"
      "       (NetPIPE-style measurements of the period, e.g. D. Turner and X. Chen,\n"
      "       \"Protocol-Dependent Message-Passing Performance on Linux Clusters\",\n"
      "       IEEE Cluster 2002). SimGrid gives every fat-tree link one latency, so\n"
      "       we use 12.5 us per link: a message between hosts on different leaf\n"
      "       switches (most pairs) crosses 4 links and costs 50 us + S / 1 Gb/s; one\n"
      "       within a leaf switch crosses 2 links and costs 25 us.\n"
      "       Hosts n0..n%u; consecutive numbers share leaf switches.\n"
      "       Written by lbsim-platgen; do not edit by hand. -->\n",
      hosts, levels, k, k, hosts - 1);
  append_config(xml);
  g_string_append(xml, "  <zone id=\"world\" routing=\"Full\">\n");
  append_prop(xml, "    ", "lbsim-topology", "fat-tree");
  g_string_append_printf(xml,
                         "    <cluster id=\"fat-tree\" prefix=\"n\" suffix=\"\" radical=\"0-%u\"\n"
                         "             speed=\"" FAT_TREE_SPEED "\" bw=\"" FAT_TREE_BW
                         "\" lat=\"" FAT_TREE_LAT "\"\n"
                         "             topology=\"FAT_TREE\" topo_parameters=\"%s\"/>\n",
                         hosts - 1, parameters);
  g_string_append(xml, "  </zone>\n");
  append_footer(xml);
  return xml;
}

static char *
fat_tree_file_name(const guint *values)
{
  return g_strdup_printf("fat-tree-%u.xml", values[0]);
}

static gboolean
parse_hetero_cluster(char **args, guint *values, GError **error)
{
  if (!parse_number(args[0], "hetero-cluster host count N", 2, HETERO_MAX_HOSTS, &values[0], error))
    return FALSE;
  if (values[0] % 2 != 0) {
    g_set_error(error, PLATGEN_ERROR, PLATGEN_ERROR_USAGE,
                "hetero-cluster host count N must be even (half slow, half fast nodes), not %u",
                values[0]);
    return FALSE;
  }
  return TRUE;
}

static void
append_route(GString *xml, const char *indent, const char *element, const char *src,
             const char *dst, const char *gateways, const char *const *links)
{
  g_string_append_printf(xml, "%s<%s src=\"%s\" dst=\"%s\"%s symmetrical=\"NO\">", indent, element,
                         src, dst, gateways);
  for (; *links != NULL; links++) {
    gsize len = strlen(*links);
    /* a split-duplex link is named with its direction, as SimGrid names its halves */
    if (g_str_has_suffix(*links, "_UP") || g_str_has_suffix(*links, "_DOWN")) {
      gsize stem = len - (g_str_has_suffix(*links, "_UP") ? 3 : 5);
      g_string_append_printf(xml, "<link_ctn id=\"%.*s\" direction=\"%s\"/>", (int)stem, *links,
                             *links + stem + 1);
    } else {
      g_string_append_printf(xml, "<link_ctn id=\"%s\"/>", *links);
    }
  }
  g_string_append_printf(xml, "</%s>\n", element);
}

/* One edge switch: its hosts, their links, and every route among them and
 * to and from the switch's gateway router. */
static void
append_edge_switch(GString *xml, guint hosts, guint edge, guint switches)
{
  guint first = edge * HETERO_SWITCH_HOSTS;
  guint last = MIN(hosts, first + HETERO_SWITCH_HOSTS) - 1;
  g_autofree char *gateway = g_strdup_printf("edge%u_gw", edge);
  g_autofree char *edge_switch = g_strdup_printf("edge%u_switch", edge);

  g_string_append_printf(xml, "    <zone id=\"edge%u\" routing=\"Full\">\n", edge);
  for (guint i = first; i <= last; i++)
    g_string_append_printf(xml, "      <host id=\"n%u\" speed=\"%s\"/>\n", i,
                           i < hosts / 2 ? HETERO_SLOW_SPEED : HETERO_FAST_SPEED);
  if (switches > 1)
    g_string_append_printf(xml, "      <router id=\"%s\"/>\n", gateway);
  for (guint i = first; i <= last; i++)
    g_string_append_printf(xml,
                           "      <link id=\"n%u_link\" bandwidth=\"" HETERO_BW
                           "\" latency=\"" HETERO_LAT "\" sharing_policy=\"SPLITDUPLEX\"/>\n",
                           i);
  /* non-blocking: as fast as all its ports together */
  g_string_append_printf(
      xml, "      <link id=\"%s\" bandwidth=\"%uMbps\" latency=\"" HETERO_SWITCH_LAT "\"/>\n",
      edge_switch, (last - first + 1) * 100 + (switches > 1 ? 1000 : 0));
  for (guint i = first; i <= last; i++) {
    g_autofree char *host = g_strdup_printf("n%u", i);
    g_autofree char *up = g_strdup_printf("n%u_link_UP", i);
    for (guint j = first; j <= last; j++) {
      g_autofree char *peer = g_strdup_printf("n%u", j);
      g_autofree char *down = g_strdup_printf("n%u_link_DOWN", j);
      const char *links[] = {up, edge_switch, down, NULL};
      append_route(xml, "      ", "route", host, peer, "", links);
    }
  }
  for (guint i = first; i <= last && switches > 1; i++) {
    g_autofree char *host = g_strdup_printf("n%u", i);
    g_autofree char *up = g_strdup_printf("n%u_link_UP", i);
    g_autofree char *down = g_strdup_printf("n%u_link_DOWN", i);
    const char *out[] = {up, edge_switch, NULL};
    const char *in[] = {edge_switch, down, NULL};
    append_route(xml, "      ", "route", host, gateway, "", out);
    append_route(xml, "      ", "route", gateway, host, "", in);
  }
  g_string_append(xml, "    </zone>\n");
}

/* Explicit hosts, since one <cluster> has one speed, in one zone per edge
 * switch under a zone that joins the switches through their uplinks and
 * the core switch. */
static GString *
generate_hetero_cluster(const guint *values)
{
  guint hosts = values[0];
  guint switches = (hosts + HETERO_SWITCH_HOSTS - 1) / HETERO_SWITCH_HOSTS;
  GString *xml = g_string_new(NULL);

  append_header(xml);
  g_string_append_printf(
      xml,
      "  <!-- Heterogeneous cluster of %u PCs: n0..n%u run at 1.0 GHz and n%u..n%u at\n"
      "       1.266 GHz (Pentium III class), on Fast Ethernet edge switches with\n"
      "       gigabit uplinks to a core switch: the kind of Linux cluster of\n"
      "       R. Chaube, R. L. Cariño and I. Banicescu, \"LB_Migrate: a dynamic load\n"
      "       balancing library\" (nodes of 1.0 and 1.266 GHz Pentium III, \"fast\n"
      "       Ethernet switched with gigabit Ethernet uplinks\").\n"
      "       Representative figures of the class, not of one machine:\n"
      "       Nodes: one flop per cycle, the Pentium III's x87 double-precision peak,\n"
      "       so 1 and 1.266 GFLOPS; what matters to load balancing is their ratio.\n"
      "       Edge switches: %u hosts each, in host order (edge switch e holds\n"
      "       n%ue..n%ue+%u). A switch of the period had 24 or 48 Fast Ethernet ports\n"
      "       and one or two gigabit uplinks; %u, a power of two, fills whole\n"
      "       switches at the shipped sizes. Each host has 100 Mb/s full duplex to\n"
      "       its switch, the Fast Ethernet line rate.\n"
      "       Uplinks: 1 Gb/s full duplex from each edge switch to the core switch,\n"
      "       shared by the switch's hosts: the only links where traffic between\n"
      "       switches can queue (switches are non-blocking: an edge switch carries\n"
      "       the sum of its port rates, the core switch 1 Gb/s per uplink).\n"
      "       Latency: MPI over TCP on switched Fast Ethernet costs about 100 us one\n"
      "       way: 45 us per host link (the TCP/IP stack and NIC of one end) and\n"
      "       10 us for the edge switch, so 100 us + S / 100 Mb/s within a switch.\n"
      "       Between switches a message also crosses two uplinks (2.5 us each), the\n"
      "       gigabit core switch (5 us) and the other edge switch (10 us): 120 us.\n"
      "       A message from a host to itself goes to its switch and back (100 us).\n",
      hosts, hosts / 2 - 1, hosts / 2, hosts - 1, HETERO_SWITCH_HOSTS, HETERO_SWITCH_HOSTS,
      HETERO_SWITCH_HOSTS, HETERO_SWITCH_HOSTS - 1, HETERO_SWITCH_HOSTS);
  if (switches == 1)
    g_string_append(xml, "       This cluster fits on one edge switch: no message crosses an "
                         "uplink.\n");
  else
    g_string_append_printf(xml, "       This cluster has %u edge switches.\n", switches);
  g_string_append(xml, "       Written by lbsim-platgen; do not edit by hand. -->\n");
  append_config(xml);
  g_string_append(xml, "  <zone id=\"world\" routing=\"Full\">\n");
  append_prop(xml, "    ", "lbsim-topology", "cluster");
  for (guint e = 0; e < switches; e++)
    append_edge_switch(xml, hosts, e, switches);
  if (switches > 1) {
    for (guint e = 0; e < switches; e++)
      g_string_append_printf(xml,
                             "    <link id=\"edge%u_uplink\" bandwidth=\"" HETERO_UPLINK_BW
                             "\" latency=\"" HETERO_UPLINK_LAT
                             "\" sharing_policy=\"SPLITDUPLEX\"/>\n",
                             e);
    g_string_append_printf(
        xml,
        "    <link id=\"core_switch\" bandwidth=\"%uGbps\" latency=\"" HETERO_CORE_LAT "\"/>\n",
        switches);
  }
  for (guint a = 0; a < switches; a++)
    for (guint b = 0; b < switches; b++) {
      if (a == b)
        continue;
      g_autofree char *src = g_strdup_printf("edge%u", a);
      g_autofree char *dst = g_strdup_printf("edge%u", b);
      g_autofree char *gateways =
          g_strdup_printf(" gw_src=\"edge%u_gw\" gw_dst=\"edge%u_gw\"", a, b);
      g_autofree char *up = g_strdup_printf("edge%u_uplink_UP", a);
      g_autofree char *down = g_strdup_printf("edge%u_uplink_DOWN", b);
      const char *links[] = {up, "core_switch", down, NULL};
      append_route(xml, "    ", "zoneRoute", src, dst, gateways, links);
    }
  g_string_append(xml, "  </zone>\n");
  append_footer(xml);
  return xml;
}

static char *
hetero_cluster_file_name(const guint *values)
{
  return g_strdup_printf("hetero-cluster-%u.xml", values[0]);
}

static gboolean
parse_dual_cluster(char **args, guint *values, GError **error)
{
  if (!parse_number(args[0], "dual-cluster fast node count", 0, DUAL_MAX_NODES, &values[0],
                    error) ||
      !parse_number(args[1], "dual-cluster slow node count", 0, DUAL_MAX_NODES, &values[1], error))
    return FALSE;
  if (values[0] + values[1] == 0 || values[0] + values[1] > DUAL_MAX_NODES) {
    g_set_error(error, PLATGEN_ERROR, PLATGEN_ERROR_USAGE,
                "a dual-cluster has 1 to %u nodes, not %u + %u", DUAL_MAX_NODES, values[0],
                values[1]);
    return FALSE;
  }
  return TRUE;
}

static guint
switches_for(guint nodes)
{
  return (nodes + DUAL_SWITCH_NODES - 1) / DUAL_SWITCH_NODES;
}

/* Each kind of node fills edge switches of its own, in node order. */
static guint
dual_switch_of(guint node, guint fast)
{
  return node < fast ? node / DUAL_SWITCH_NODES
                     : switches_for(fast) + (node - fast) / DUAL_SWITCH_NODES;
}

/* "0-15,16-31,...": the nodes of each edge switch, for lbsim's background
 * traffic. */
static char *
dual_switch_nodes(guint fast, guint slow)
{
  GString *text = g_string_new(NULL);
  guint nodes = fast + slow;
  for (guint first = 0; first < nodes;) {
    guint s = dual_switch_of(first, fast), last = first;
    while (last + 1 < nodes && dual_switch_of(last + 1, fast) == s)
      last++;
    g_string_append_printf(text, "%s%u", text->len > 0 ? "," : "", first);
    if (last > first)
      g_string_append_printf(text, "-%u", last);
    first = last + 1;
  }
  return g_string_free(text, FALSE);
}

/* One DijkstraCache zone: a processor's link to its node's router, the
 * node's link to its edge switch's router, the switch's uplink to the
 * core's. The network is a tree, so every route is the one path, worked
 * out when the simulation starts (as the tori's are). */
static GString *
generate_dual_cluster(const guint *values)
{
  guint fast = values[0], slow = values[1], nodes = fast + slow;
  guint switches = switches_for(fast) + switches_for(slow);
  GString *xml = g_string_new(NULL);
  g_autofree char *switch_nodes = dual_switch_nodes(fast, slow);

  append_header(xml);
  g_string_append_printf(
      xml,
      "  <!-- Cluster of %u dual-processor PCs (%u processors) on Fast Ethernet\n"
      "       edge switches with gigabit uplinks to a core switch.\n",
      nodes, 2 * nodes);
  if (fast > 0)
    g_string_append_printf(xml, "       Nodes 0..%u: two 1.266 GHz Pentium III processors each.\n",
                           fast - 1);
  if (slow > 0)
    g_string_append_printf(xml, "       Nodes %u..%u: two 1.0 GHz Pentium III processors each.\n",
                           fast, nodes - 1);
  if (fast == 225 && slow == 128)
    g_string_append(
        xml, "       The Linux cluster of the Mississippi State University Engineering\n"
             "       Research Center in R. Chaube, R. L. Cariño and I. Banicescu, \"LB_Migrate: a\n"
             "       dynamic load balancing library\" (2003), section 5: \"225 IBM x330 compute\n"
             "       nodes, each with dual 1.266 GHz Intel Pentium III processors [...]; 128 IBM\n"
             "       x330 compute nodes, each with dual 1 GHz Intel Pentium III processors\n"
             "       [...] connected via fast Ethernet switched with gigabit Ethernet\n"
             "       uplinks\". The paper says 1038 processors, but its nodes add up to 706\n"
             "       (708 with the dual 800 MHz SGI 1200 head node, which runs no job and is\n"
             "       left out); the nodes are what is modelled.\n");
  g_string_append_printf(
      xml,
      "       Host nI is processor I mod 2 of node I / 2 (n0, n1: node 0). Figures of\n"
      "       the class, as hetero-cluster-N.xml's:\n"
      "       Processors: one flop per cycle, the Pentium III's x87 double-precision\n"
      "       peak, so 1.266 and 1 GFLOPS.\n"
      "       Node link: 100 Mb/s full duplex to the edge switch, the Fast Ethernet\n"
      "       line rate, shared by the node's two processors: each reaches its node\n"
      "       through a link of its own (nI_cpu), and a message between the two\n"
      "       processors of a node crosses those two links and not the Ethernet.\n"
      "       Edge switches: %u nodes each, in node order, each kind of node on\n"
      "       switches of its own (lbsim-switch-nodes lists each switch's nodes), as\n"
      "       hetero-cluster-N.xml's 16 hosts: a switch of the period had 24 or 48\n"
      "       Fast Ethernet ports and one or two gigabit uplinks, and the paper gives\n"
      "       no figure.\n"
      "       Uplinks: 1 Gb/s full duplex from each edge switch to the core switch,\n"
      "       shared by the switch's nodes (1.6 Gb/s of node links): the only links\n"
      "       where traffic between switches queues. Switches are non-blocking and\n"
      "       have no link of their own.\n"
      "       Latency: MPI over TCP on switched Fast Ethernet costs about 100 us one\n"
      "       way within a switch and 120 us between switches (hetero-cluster-N.xml's\n"
      "       figures), split here as 10 us on each processor link (the TCP/IP stack),\n"
      "       40 us on each node link (the NIC, the cable and half the edge switch) and\n"
      "       10 us on each uplink crossed (the uplink, half the core switch and half\n"
      "       the other edge switch). Between the two processors of a node, 20 us and\n"
      "       100 MB/s: our assumption of the order of MPICH's ch_p4 device, the usual\n"
      "       MPI of Linux clusters then, which talks within a node through TCP over\n"
      "       the loopback interface (the stack of both ends, no NIC, no cable); not a\n"
      "       measurement. A message from a host to itself costs the same (SimGrid's\n"
      "       loopback).\n"
      "       This cluster has %u edge switch%s.\n"
      "       Written by lbsim-platgen; do not edit by hand. -->\n",
      DUAL_SWITCH_NODES, switches, switches == 1 ? "" : "es");
  /* in seconds and bytes a second: the keys take no units */
  append_config_with(xml, "    <prop id=\"network/loopback-lat\" value=\"2e-05\"/>\n"
                          "    <prop id=\"network/loopback-bw\" value=\"1e+08\"/>\n");
  g_string_append(xml, "  <zone id=\"world\" routing=\"DijkstraCache\">\n");
  append_prop(xml, "    ", "lbsim-topology", "cluster");
  append_prop(xml, "    ", "lbsim-node-hosts", "2");
  append_prop(xml, "    ", "lbsim-switch-nodes", switch_nodes);
  for (guint i = 0; i < 2 * nodes; i++)
    g_string_append_printf(xml, "    <host id=\"n%u\" speed=\"%s\"/>\n", i,
                           i / 2 < fast ? DUAL_FAST_SPEED : DUAL_SLOW_SPEED);
  for (guint k = 0; k < nodes; k++)
    g_string_append_printf(xml, "    <router id=\"node%u\"/>\n", k);
  for (guint s = 0; s < switches; s++)
    g_string_append_printf(xml, "    <router id=\"edge%u\"/>\n", s);
  if (switches > 1)
    g_string_append(xml, "    <router id=\"core\"/>\n");
  for (guint i = 0; i < 2 * nodes; i++)
    g_string_append_printf(xml,
                           "    <link id=\"n%u_cpu\" bandwidth=\"" DUAL_CPU_BW
                           "\" latency=\"" DUAL_CPU_LAT "\" sharing_policy=\"SPLITDUPLEX\"/>\n",
                           i);
  for (guint k = 0; k < nodes; k++)
    g_string_append_printf(xml,
                           "    <link id=\"node%u_link\" bandwidth=\"" DUAL_NODE_BW
                           "\" latency=\"" DUAL_NODE_LAT "\" sharing_policy=\"SPLITDUPLEX\"/>\n",
                           k);
  for (guint s = 0; s < switches && switches > 1; s++)
    g_string_append_printf(xml,
                           "    <link id=\"edge%u_uplink\" bandwidth=\"" DUAL_UPLINK_BW
                           "\" latency=\"" DUAL_UPLINK_LAT "\" sharing_policy=\"SPLITDUPLEX\"/>\n",
                           s);
  for (guint i = 0; i < 2 * nodes; i++)
    g_string_append_printf(xml,
                           "    <route src=\"n%u\" dst=\"node%u\"><link_ctn id=\"n%u_cpu\" "
                           "direction=\"UP\"/></route>\n",
                           i, i / 2, i);
  for (guint k = 0; k < nodes; k++)
    g_string_append_printf(xml,
                           "    <route src=\"node%u\" dst=\"edge%u\"><link_ctn id=\"node%u_link\" "
                           "direction=\"UP\"/></route>\n",
                           k, dual_switch_of(k, fast), k);
  for (guint s = 0; s < switches && switches > 1; s++)
    g_string_append_printf(xml,
                           "    <route src=\"edge%u\" dst=\"core\"><link_ctn id=\"edge%u_uplink\" "
                           "direction=\"UP\"/></route>\n",
                           s, s);
  g_string_append(xml, "  </zone>\n");
  append_footer(xml);
  return xml;
}

static char *
dual_cluster_file_name(const guint *values)
{
  return g_strdup_printf("dual-cluster-%u-%u.xml", values[0], values[1]);
}

static gboolean
parse_origin(char **args, guint *values, GError **error)
{
  return parse_number(args[0], "origin2000 processor count N", 2, 512, &values[0], error);
}

/* A flat cluster: the Origin's router network made distance nearly free
 * (a router hop is tens of nanoseconds against microseconds of MPI), so
 * every pair of processors costs the same. */
static GString *
generate_origin(const guint *values)
{
  guint hosts = values[0];
  GString *xml = g_string_new(NULL);

  append_header(xml);
  g_string_append_printf(
      xml,
      "  <!-- SGI Origin2000-like machine of %u processors, the machine of Z. Lan,\n"
      "       V. E. Taylor and G. Bryan's experiments (250 MHz R10000 nodes at NCSA).\n"
      "       Nodes: the R10000 at 250 MHz issues two floating-point operations per\n"
      "       cycle, 500 MFLOPS peak; we use 100 MFLOPS, a fifth of peak, as the\n"
      "       sustained rate of an AMR code (our assumption, the same order of ratio\n"
      "       as the other shipped machines, not a measurement).\n"
      "       Network: two processors share a Hub, Hubs meet at routers joined in a\n"
      "       (bristled) hypercube of CrayLink links of about 800 MB/s per direction\n"
      "       (J. Laudon and D. Lenoski, \"The SGI Origin: A ccNUMA Highly Scalable\n"
      "       Server\", ISCA 1997), where a router hop costs tens of nanoseconds. What\n"
      "       a message sees is MPI's cost, about 10 us and 150 MB/s point to point\n"
      "       (the order of figures reported for SGI's MPI on the Origin2000; our\n"
      "       assumption), nearly independent of distance. So: a flat cluster, host\n"
      "       link (5 us) + router network (1 us, non-blocking backbone %u x 150 MB/s)\n"
      "       + host link (5 us): 11 us + S / 150 MB/s between any two processors.\n"
      "       Written by lbsim-platgen; do not edit by hand. -->\n",
      hosts, hosts);
  append_config(xml);
  g_string_append(xml, "  <zone id=\"world\" routing=\"Full\">\n");
  append_prop(xml, "    ", "lbsim-topology", "cluster");
  g_string_append_printf(
      xml,
      "    <cluster id=\"origin2000\" prefix=\"n\" suffix=\"\" radical=\"0-%u\"\n"
      "             speed=\"" ORIGIN_SPEED "\" bw=\"" ORIGIN_BW "\" lat=\"" ORIGIN_LAT "\"\n"
      "             bb_bw=\"%uMBps\" bb_lat=\"" ORIGIN_BB_LAT "\"\n"
      "             sharing_policy=\"SPLITDUPLEX\"/>\n",
      hosts - 1, hosts * 150);
  g_string_append(xml, "  </zone>\n");
  append_footer(xml);
  return xml;
}

static char *
origin_file_name(const guint *values)
{
  return g_strdup_printf("origin2000-%u.xml", values[0]);
}

static const Kind kinds[] = {
    {"hypercube", "D", 1, parse_hypercube, generate_hypercube, hypercube_file_name},
    {"torus", "X Y Z", 3, parse_torus, generate_torus, torus_file_name},
    {"fat-tree", "N", 1, parse_fat_tree, generate_fat_tree, fat_tree_file_name},
    {"hetero-cluster", "N", 1, parse_hetero_cluster, generate_hetero_cluster,
     hetero_cluster_file_name},
    {"dual-cluster", "FAST SLOW", 2, parse_dual_cluster, generate_dual_cluster,
     dual_cluster_file_name},
    {"origin2000", "N", 1, parse_origin, generate_origin, origin_file_name},
};

/* What `all` writes besides every hypercube: the other files of platforms/. */
static const struct {
  const char *kind;
  guint values[3];
} shipped[] = {
    {"torus", {8, 8, 8}},         {"torus", {8, 8, 16}},    {"fat-tree", {1024}},
    {"hetero-cluster", {16}},     {"hetero-cluster", {32}}, {"hetero-cluster", {64}},
    {"dual-cluster", {225, 128}}, {"origin2000", {128}},
};

static const Kind *
find_kind(const char *name)
{
  for (gsize i = 0; i < G_N_ELEMENTS(kinds); i++)
    if (strcmp(kinds[i].name, name) == 0)
      return &kinds[i];
  return NULL;
}

static gboolean
write_platform(const char *dir, const Kind *kind, const guint *values, GError **error)
{
  g_autoptr(GString) xml = kind->generate(values);
  g_autofree char *name = kind->file_name(values);
  g_autofree char *path = g_build_filename(dir, name, NULL);
  g_autoptr(GError) local = NULL;

  if (!g_file_set_contents(path, xml->str, (gssize)xml->len, &local)) {
    g_set_error(error, PLATGEN_ERROR, PLATGEN_ERROR_IO, "%s", local->message);
    return FALSE;
  }
  return TRUE;
}

static gboolean
write_all(const char *dir, GError **error)
{
  if (g_mkdir_with_parents(dir, 0755) != 0) {
    int saved = errno;
    g_set_error(error, PLATGEN_ERROR, PLATGEN_ERROR_IO, "cannot create %s: %s", dir,
                g_strerror(saved));
    return FALSE;
  }
  for (guint dimension = 1; dimension <= SHIPPED_MAX_DIMENSION; dimension++)
    if (!write_platform(dir, find_kind("hypercube"), &dimension, error))
      return FALSE;
  for (gsize i = 0; i < G_N_ELEMENTS(shipped); i++)
    if (!write_platform(dir, find_kind(shipped[i].kind), shipped[i].values, error))
      return FALSE;
  return TRUE;
}

static gboolean
run(int argc, char **argv, GError **error)
{
  if (argc < 2) {
    g_set_error(error, PLATGEN_ERROR, PLATGEN_ERROR_USAGE, "no platform kind given");
    return FALSE;
  }
  if (strcmp(argv[1], "all") == 0) {
    if (argc != 3) {
      g_set_error(error, PLATGEN_ERROR, PLATGEN_ERROR_USAGE, "usage: all DIR");
      return FALSE;
    }
    return write_all(argv[2], error);
  }

  const Kind *kind = find_kind(argv[1]);
  if (kind == NULL) {
    g_set_error(error, PLATGEN_ERROR, PLATGEN_ERROR_USAGE, "unknown platform kind '%s'", argv[1]);
    return FALSE;
  }
  if ((guint)argc - 2 != kind->n_args) {
    g_set_error(error, PLATGEN_ERROR, PLATGEN_ERROR_USAGE, "usage: %s %s", kind->name,
                kind->synopsis);
    return FALSE;
  }

  guint values[3] = {0};
  if (!kind->parse(argv + 2, values, error))
    return FALSE;
  g_autoptr(GString) xml = kind->generate(values);
  if (fwrite(xml->str, 1, xml->len, stdout) != xml->len || fflush(stdout) != 0) {
    g_set_error(error, PLATGEN_ERROR, PLATGEN_ERROR_IO, "cannot write the platform to stdout");
    return FALSE;
  }
  return TRUE;
}

int
main(int argc, char **argv)
{
  g_autoptr(GOptionContext) context =
      g_option_context_new("KIND ARGS... - write a SimGrid platform");
  g_autoptr(GError) error = NULL;

  setlocale(LC_ALL, "");
  g_option_context_set_summary(
      context, "Writes a SimGrid 3.32 platform (DTD 4.1, CM02 network model) to stdout.");
  g_option_context_set_description(
      context, "Kinds:\n"
               "  hypercube D        binary D-cube, D = 1..17 (2^D hosts), iPSC/860 figures\n"
               "  torus X Y Z        X x Y x Z 3D torus (each size >= 2), Cray T3E-900 figures\n"
               "  fat-tree N         gigabit Ethernet fat tree, N = k^2 (two levels) or k^3\n"
               "                     (three levels), e.g. 1024\n"
               "  hetero-cluster N   Fast Ethernet cluster, 16 hosts per edge switch, gigabit\n"
               "                     uplinks to a core switch; N even, at most 1024: half\n"
               "                     1.0 GHz and half 1.266 GHz nodes\n"
               "  dual-cluster FAST SLOW\n"
               "                     FAST nodes of two 1.266 GHz and SLOW of two 1.0 GHz\n"
               "                     processors, each processor a host, each node's two on\n"
               "                     one Fast Ethernet link; 16 nodes per edge switch,\n"
               "                     gigabit uplinks (dual-cluster 225 128: the LB_Migrate\n"
               "                     paper's cluster)\n"
               "  origin2000 N       SGI Origin2000-like machine of N = 2..512 processors: a\n"
               "                     flat cluster of MPI figures\n"
               "  all DIR            write every platform lbsim ships (its platforms/) into DIR\n"
               "\n"
               "Hosts are named n0..n(p-1). Each file says in a comment at its top what it\n"
               "models and where its figures come from; platforms/README.md, beside the\n"
               "shipped platforms (lbsim version says where), has the table.\n"
               "\n"
               "Examples:\n"
               "  lbsim-platgen torus 8 8 8 > t3e-512.xml   (the shipped t3e-512.xml)\n"
               "  lbsim-platgen fat-tree 64 > fat-tree-64.xml\n"
               "  lbsim run field2d-hypercube-64 --platform fat-tree-64.xml\n"
               "A scenario's platform key names such a file relative to the scenario's\n"
               "folder, then platforms/.\n"
               "\n"
               "Exit status: 0 on success, 1 if writing failed, 2 on bad arguments.");
  if (!g_option_context_parse(context, &argc, &argv, &error) || !run(argc, argv, &error)) {
    g_printerr("lbsim-platgen: %s\n", error->message);
    if (g_error_matches(error, PLATGEN_ERROR, PLATGEN_ERROR_IO))
      return 1;
    g_printerr("Try lbsim-platgen --help.\n");
    return EXIT_USAGE;
  }
  return 0;
}
