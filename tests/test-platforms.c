/* Tests of platforms/ and of lbsim-platgen, which writes it.
 *
 * A SimGrid engine can be initialised once per process, so every load runs
 * in a subprocess (g_test_trap_subprocess); the parent only spawns. */
#include <string.h>
#include <glib.h>
#include <glib/gstdio.h>
#include <simgrid/actor.h>
#include <simgrid/engine.h>
#include <simgrid/host.h>
#include <simgrid/link.h>
#include <simgrid/mailbox.h>
#include <simgrid/zone.h>
#include <xbt/dynar.h>
#include <xbt/log.h>

#include "core/platform-check.h"
#include "lbsim/run.h"

#define EPSILON 1e-12
#define MESSAGE_BYTES 1e6
#define TIME_FILE_ENV "LBSIM_TEST_PLATFORMS_TIME_FILE"

/* The heterogeneous cluster (platforms/README.md): 16 hosts per Fast
 * Ethernet edge switch, a gigabit uplink from each switch to the core. */
#define SWITCH_HOSTS 16
#define HOST_LINK_LATENCY 45e-6
#define HOST_LINK_BANDWIDTH 12.5e6 /* 100 Mb/s */
#define EDGE_SWITCH_LATENCY 10e-6
#define UPLINK_LATENCY 2.5e-6
#define UPLINK_BANDWIDTH 125e6 /* 1 Gb/s */
#define CORE_LATENCY 5e-6

/* The dual-processor cluster (dual-cluster-225-128.xml): a processor's
 * link to its node, the node's Fast Ethernet link, the edge switch's
 * gigabit uplink. */
#define DUAL_FAST_NODES 225
#define DUAL_SLOW_NODES 128
#define DUAL_SWITCH_NODES 16
#define CPU_LINK_LATENCY 10e-6
#define CPU_LINK_BANDWIDTH 100e6
#define NODE_LINK_LATENCY 40e-6
#define DUAL_UPLINK_LATENCY 10e-6

typedef enum {
  TOPOLOGY_HYPERCUBE,
  TOPOLOGY_TORUS,
  TOPOLOGY_FAT_TREE,
  TOPOLOGY_CLUSTER,
  TOPOLOGY_FLAT, /* a homogeneous <cluster>: host link + backbone + host link */
  TOPOLOGY_DUAL, /* two processors a node on one node link */
} Topology;

/* The documented figures of each shipped file (platforms/README.md). */
typedef struct {
  const char *file;
  Topology topology;
  guint hosts;
  guint sizes[3];        /* hypercube: dimension; torus: X, Y, Z; fat tree: hosts per leaf */
  guint near_links;      /* links between n0 and n1 */
  double near_latency;   /* seconds, route n0 -> n1 */
  double near_bandwidth; /* bytes/s, route n0 -> n1 */
  /* lbsim-message-latency machines (0 elsewhere): a torus link's latency,
   * the cost paid once a message (on the two limiter links a route adds),
   * and a message to oneself (the loopback) */
  double hop_latency, message_latency, self_latency;
} PlatformCase;

static const PlatformCase cases[] = {
    {"hypercube-2.xml", TOPOLOGY_HYPERCUBE, 2, {1}, 1, 75e-6, 2.8e6},
    {"hypercube-4.xml", TOPOLOGY_HYPERCUBE, 4, {2}, 1, 75e-6, 2.8e6},
    {"hypercube-8.xml", TOPOLOGY_HYPERCUBE, 8, {3}, 1, 75e-6, 2.8e6},
    {"hypercube-16.xml", TOPOLOGY_HYPERCUBE, 16, {4}, 1, 75e-6, 2.8e6},
    {"hypercube-32.xml", TOPOLOGY_HYPERCUBE, 32, {5}, 1, 75e-6, 2.8e6},
    {"hypercube-64.xml", TOPOLOGY_HYPERCUBE, 64, {6}, 1, 75e-6, 2.8e6},
    {"hypercube-128.xml", TOPOLOGY_HYPERCUBE, 128, {7}, 1, 75e-6, 2.8e6},
    {"hypercube-256.xml", TOPOLOGY_HYPERCUBE, 256, {8}, 1, 75e-6, 2.8e6},
    {"hypercube-512.xml", TOPOLOGY_HYPERCUBE, 512, {9}, 1, 75e-6, 2.8e6},
    {"hypercube-1024.xml", TOPOLOGY_HYPERCUBE, 1024, {10}, 1, 75e-6, 2.8e6},
    {"hypercube-2048.xml", TOPOLOGY_HYPERCUBE, 2048, {11}, 1, 75e-6, 2.8e6},
    {"hypercube-4096.xml", TOPOLOGY_HYPERCUBE, 4096, {12}, 1, 75e-6, 2.8e6},
    {"hypercube-8192.xml", TOPOLOGY_HYPERCUBE, 8192, {13}, 1, 75e-6, 2.8e6},
    {"hypercube-16384.xml", TOPOLOGY_HYPERCUBE, 16384, {14}, 1, 75e-6, 2.8e6},
    {"t3e-512.xml", TOPOLOGY_TORUS, 512, {8, 8, 8}, 3, 10.05e-6, 300e6, 50e-9, 10e-6, 10e-6},
    {"t3e-1024.xml", TOPOLOGY_TORUS, 1024, {8, 8, 16}, 3, 10.05e-6, 300e6, 50e-9, 10e-6, 10e-6},
    {"fat-tree-1024.xml", TOPOLOGY_FAT_TREE, 1024, {32}, 2, 25e-6, 125e6},
    {"hetero-cluster-16.xml", TOPOLOGY_CLUSTER, 16, {0}, 3, 100e-6, 12.5e6},
    {"hetero-cluster-32.xml", TOPOLOGY_CLUSTER, 32, {0}, 3, 100e-6, 12.5e6},
    {"hetero-cluster-64.xml", TOPOLOGY_CLUSTER, 64, {0}, 3, 100e-6, 12.5e6},
    {"dual-cluster-225-128.xml", TOPOLOGY_DUAL, 706, {0}, 2, 20e-6, 100e6},
    {"origin2000-128.xml", TOPOLOGY_FLAT, 128, {0}, 3, 11e-6, 150e6},
};

static const char *const topology_names[] = {"hypercube", "torus",   "fat-tree",
                                             "cluster",   "cluster", "cluster"};

static char *
platforms_dir(void)
{
  const char *root = g_getenv("LBSIM_SOURCE_ROOT");

  if (root != NULL)
    return g_build_filename(root, "platforms", NULL);
  return g_build_filename(g_test_get_dir(G_TEST_DIST), "..", "platforms", NULL);
}

static char *
platform_path(const char *file)
{
  g_autofree char *dir = platforms_dir();
  return g_build_filename(dir, file, NULL);
}

/* NULL, after marking the test skipped, when the generator was not built. */
static const char *
platgen_path(void)
{
  const char *path = g_getenv("LBSIM_PLATGEN");

  if (path == NULL || !g_file_test(path, G_FILE_TEST_IS_EXECUTABLE)) {
    g_test_skip("LBSIM_PLATGEN does not name the built lbsim-platgen");
    return NULL;
  }
  return path;
}

/* Runs the generator with args; returns its exit status (-1 if killed). */
static int
run_platgen(const char *platgen, const char *const *args, char **out, char **err)
{
  g_autoptr(GPtrArray) argv = g_ptr_array_new();
  g_autoptr(GError) error = NULL;
  int wait_status = 0;

  g_ptr_array_add(argv, (char *)platgen);
  for (; *args != NULL; args++)
    g_ptr_array_add(argv, (char *)*args);
  g_ptr_array_add(argv, NULL);
  g_spawn_sync(NULL, (char **)argv->pdata, NULL, G_SPAWN_DEFAULT, NULL, NULL, out, err,
               &wait_status, &error);
  g_assert_no_error(error);
  if (g_spawn_check_wait_status(wait_status, &error))
    return 0;
  if (error->domain == G_SPAWN_EXIT_ERROR)
    return error->code;
  return -1;
}

static gint
compare_names(gconstpointer a, gconstpointer b)
{
  return g_strcmp0(*(char *const *)a, *(char *const *)b);
}

static GPtrArray *
list_xml(const char *dir)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(GDir) handle = g_dir_open(dir, 0, &error);
  GPtrArray *names = g_ptr_array_new_with_free_func(g_free);
  const char *name;

  g_assert_no_error(error);
  while ((name = g_dir_read_name(handle)) != NULL)
    if (g_str_has_suffix(name, ".xml"))
      g_ptr_array_add(names, g_strdup(name));
  g_ptr_array_sort(names, compare_names);
  return names;
}

/* Fails the test, naming the first differing line, if the texts differ. */
static void
assert_same_text(const char *what, const char *expected, const char *actual)
{
  if (g_strcmp0(expected, actual) == 0)
    return;

  g_auto(GStrv) want = g_strsplit(expected, "\n", -1);
  g_auto(GStrv) got = g_strsplit(actual, "\n", -1);
  guint line = 0;
  while (want[line] != NULL && got[line] != NULL && strcmp(want[line], got[line]) == 0)
    line++;
  g_test_fail_printf("%s differs from the generator's output at line %u: shipped '%s', "
                     "generated '%s' (regenerate with lbsim-platgen all platforms)",
                     what, line + 1, want[line] ? want[line] : "(end)",
                     got[line] ? got[line] : "(end)");
}

static void
test_generator_reproduces_shipped(void)
{
  const char *platgen = platgen_path();
  if (platgen == NULL)
    return;

  g_autoptr(GError) error = NULL;
  g_autofree char *tmp = g_dir_make_tmp("lbsim-platforms-XXXXXX", &error);
  g_assert_no_error(error);
  g_autofree char *out = NULL;
  g_autofree char *err = NULL;
  const char *args[] = {"all", tmp, NULL};
  g_assert_cmpint(run_platgen(platgen, args, &out, &err), ==, 0);

  g_autofree char *shipped_dir = platforms_dir();
  g_autoptr(GPtrArray) shipped = list_xml(shipped_dir);
  g_autoptr(GPtrArray) generated = list_xml(tmp);

  g_assert_cmpuint(shipped->len, ==, G_N_ELEMENTS(cases));
  g_assert_cmpuint(generated->len, ==, shipped->len);
  for (guint i = 0; i < shipped->len; i++) {
    const char *name = g_ptr_array_index(shipped, i);
    g_autofree char *shipped_path = g_build_filename(shipped_dir, name, NULL);
    g_autofree char *generated_path = g_build_filename(tmp, name, NULL);
    g_autofree char *expected = NULL;
    g_autofree char *actual = NULL;

    g_assert_cmpstr(name, ==, g_ptr_array_index(generated, i));
    g_file_get_contents(shipped_path, &expected, NULL, &error);
    g_assert_no_error(error);
    g_file_get_contents(generated_path, &actual, NULL, &error);
    g_assert_no_error(error);
    assert_same_text(name, expected, actual);
    g_assert_cmpint(g_remove(generated_path), ==, 0);
  }
  g_assert_cmpint(g_rmdir(tmp), ==, 0);
}

static void
test_generator_stdout(void)
{
  static const struct {
    const char *args[5];
    const char *file;
  } runs[] = {
      {{"hypercube", "4", NULL}, "hypercube-16.xml"},
      {{"hypercube", "14", NULL}, "hypercube-16384.xml"},
      {{"torus", "8", "8", "16", NULL}, "t3e-1024.xml"},
      {{"fat-tree", "1024", NULL}, "fat-tree-1024.xml"},
      {{"hetero-cluster", "64", NULL}, "hetero-cluster-64.xml"},
      {{"dual-cluster", "225", "128", NULL}, "dual-cluster-225-128.xml"},
      {{"origin2000", "128", NULL}, "origin2000-128.xml"},
  };
  const char *platgen = platgen_path();
  if (platgen == NULL)
    return;

  for (gsize i = 0; i < G_N_ELEMENTS(runs); i++) {
    g_autofree char *out = NULL;
    g_autofree char *err = NULL;
    g_autofree char *expected = NULL;
    g_autofree char *path = platform_path(runs[i].file);
    g_autoptr(GError) error = NULL;

    g_assert_cmpint(run_platgen(platgen, runs[i].args, &out, &err), ==, 0);
    g_assert_cmpstr(err, ==, "");
    g_file_get_contents(path, &expected, NULL, &error);
    g_assert_no_error(error);
    assert_same_text(runs[i].file, expected, out);
  }
}

static void
test_generator_help(void)
{
  const char *platgen = platgen_path();
  if (platgen == NULL)
    return;

  g_autofree char *out = NULL;
  g_autofree char *err = NULL;
  const char *args[] = {"--help", NULL};
  g_assert_cmpint(run_platgen(platgen, args, &out, &err), ==, 0);
  g_assert_nonnull(strstr(out, "hypercube D"));
  g_assert_nonnull(strstr(out, "all DIR"));
}

static void
test_generator_rejects(gconstpointer data)
{
  const char *const *args = data;
  const char *platgen = platgen_path();
  if (platgen == NULL)
    return;

  g_autofree char *out = NULL;
  g_autofree char *err = NULL;
  g_assert_cmpint(run_platgen(platgen, args, &out, &err), ==, 2);
  g_assert_cmpstr(out, ==, "");
  g_assert_true(g_str_has_prefix(err, "lbsim-platgen: "));
  g_test_message("stderr: %s", g_strchomp(err));
}

/* What follows runs in the subprocess, with SimGrid. */

static void
load_platform(const char *file)
{
  static char name[] = "test-platforms";
  char *argv[] = {name, NULL};
  int argc = 1;
  g_autofree char *path = platform_path(file);

  xbt_log_control_set("root.thres:warning");
  simgrid_init(&argc, argv);
  simgrid_load_platform(path);
  /* seals the platform: a Dijkstra zone (t3e-*.xml) works routes out then */
  simgrid_run();
}

static sg_host_t
host_number(guint i)
{
  char name[16];

  g_snprintf(name, sizeof name, "n%u", i);
  sg_host_t host = sg_host_by_name(name);
  g_assert_nonnull(host);
  return host;
}

static guint
route_links(guint from, guint to, double *latency)
{
  sg_host_t src = host_number(from);
  sg_host_t dst = host_number(to);
  xbt_dynar_t links = xbt_dynar_new(sizeof(sg_link_t), NULL);

  sg_host_get_route(src, dst, links);
  guint count = (guint)xbt_dynar_length(links);
  xbt_dynar_free(&links);
  *latency = sg_host_get_route_latency(src, dst);
  return count;
}

static GStrv
route_names(guint from, guint to)
{
  xbt_dynar_t links = xbt_dynar_new(sizeof(sg_link_t), NULL);
  g_autoptr(GStrvBuilder) names = g_strv_builder_new();

  sg_host_get_route(host_number(from), host_number(to), links);
  for (unsigned long i = 0; i < xbt_dynar_length(links); i++)
    g_strv_builder_add(names, sg_link_get_name(xbt_dynar_get_as(links, i, sg_link_t)));
  xbt_dynar_free(&links);
  return g_strv_builder_end(names);
}

static void
assert_route(guint from, guint to, guint links, double latency)
{
  double actual = 0;

  g_assert_cmpuint(route_links(from, to, &actual), ==, links);
  g_assert_cmpfloat_with_epsilon(actual, latency, EPSILON);
}

static void
check_hypercube(const PlatformCase *c)
{
  guint dimension = c->sizes[0];
  guint bits[32];
  g_autofree char *dimension_text = g_strdup_printf("%u", dimension);

  g_assert_cmpstr(sg_zone_get_property_value(sg_zone_get_root(), "lbsim-dimension"), ==,
                  dimension_text);
  for (guint b = 0; b < dimension; b++) {
    assert_route(0, 1u << b, 1, c->near_latency);
    assert_route(c->hosts - 1, (c->hosts - 1) ^ (1u << b), 1, c->near_latency);
  }
  for (guint k = 1; k <= dimension; k++)
    for (guint sample = 0; sample < 16; sample++) {
      guint from = (guint)g_test_rand_int_range(0, (gint32)c->hosts);
      guint mask = 0;

      for (guint b = 0; b < dimension; b++)
        bits[b] = b;
      for (guint i = 0; i < k; i++) {
        guint j = (guint)g_test_rand_int_range((gint32)i, (gint32)dimension);
        guint t = bits[i];
        bits[i] = bits[j];
        bits[j] = t;
        mask |= 1u << bits[i];
      }
      assert_route(from, from ^ mask, k, k * c->near_latency);
    }
}

static guint
torus_distance(const guint *sizes, guint from, guint to)
{
  guint distance = 0;

  for (guint d = 0; d < 3; d++) {
    guint a = from % sizes[d];
    guint b = to % sizes[d];
    guint delta = a > b ? a - b : b - a;
    distance += MIN(delta, sizes[d] - delta);
    from /= sizes[d];
    to /= sizes[d];
  }
  return distance;
}

/* A route `distance` torus links long: the links, and a limiter link at
 * each end where the machine pays its message latency on them. */
static guint
torus_links(const PlatformCase *c, guint distance)
{
  return distance + (c->message_latency > 0 ? 2 : 0);
}

static void
check_torus(const PlatformCase *c)
{
  const guint *sizes = c->sizes;
  guint stride[3] = {1, sizes[0], sizes[0] * sizes[1]};
  g_autofree char *dims = g_strdup_printf("%u,%u,%u", sizes[0], sizes[1], sizes[2]);

  g_assert_cmpstr(sg_zone_get_property_value(sg_zone_get_root(), "lbsim-torus-dims"), ==, dims);
  for (guint host = 0; host < c->hosts; host++)
    for (guint d = 0; d < 3; d++) {
      guint coordinate = host / stride[d] % sizes[d];
      guint base = host - coordinate * stride[d];
      guint next = base + (coordinate + 1) % sizes[d] * stride[d];
      guint previous = base + (coordinate + sizes[d] - 1) % sizes[d] * stride[d];

      assert_route(host, next, torus_links(c, 1), c->near_latency);
      assert_route(host, previous, torus_links(c, 1), c->near_latency);
    }
  /* Wrap-around in each dimension, spelled out. */
  assert_route(0, sizes[0] - 1, torus_links(c, 1), c->near_latency);
  assert_route(0, stride[1] * (sizes[1] - 1), torus_links(c, 1), c->near_latency);
  assert_route(0, stride[2] * (sizes[2] - 1), torus_links(c, 1), c->near_latency);
  for (guint sample = 0; sample < 256; sample++) {
    guint from = (guint)g_test_rand_int_range(0, (gint32)c->hosts);
    guint to = (guint)g_test_rand_int_range(0, (gint32)c->hosts);
    guint distance = torus_distance(sizes, from, to);

    if (from != to)
      assert_route(from, to, torus_links(c, distance),
                   c->message_latency + distance * c->hop_latency);
  }
}

static void
check_fat_tree(const PlatformCase *c)
{
  guint per_leaf = c->sizes[0];
  guint leaves = c->hosts / per_leaf;
  g_autofree sg_link_t *links = sg_link_list();
  guint tree_links = 0;

  /* Full bisection: one link per host plus one from every leaf to every
   * spine, each split in an UP and a DOWN link. */
  for (size_t i = 0; i < sg_link_count(); i++)
    if (g_str_has_prefix(sg_link_get_name(links[i]), "link_from_"))
      tree_links++;
  g_assert_cmpuint(tree_links, ==, 2 * (c->hosts + leaves * per_leaf));

  assert_route(0, per_leaf - 1, 2, c->near_latency);
  assert_route(0, per_leaf, 4, 2 * c->near_latency);
  assert_route(0, c->hosts - 1, 4, 2 * c->near_latency);
  for (guint sample = 0; sample < 256; sample++) {
    guint from = (guint)g_test_rand_int_range(0, (gint32)c->hosts);
    guint to = (guint)g_test_rand_int_range(0, (gint32)c->hosts);
    gboolean same_leaf = from / per_leaf == to / per_leaf;

    if (from != to)
      assert_route(from, to, same_leaf ? 2 : 4, (same_leaf ? 1 : 2) * c->near_latency);
  }
}

static void
assert_names(GStrv names, const char *const *expected)
{
  guint n = 0;

  while (expected[n] != NULL)
    n++;
  g_assert_cmpuint(g_strv_length(names), ==, n);
  for (guint i = 0; i < n; i++)
    g_assert_cmpstr(names[i], ==, expected[i]);
}

/* Every pair: within an edge switch host link, switch, host link; between
 * switches also both uplinks, the core and the other edge switch. */
static void
check_cluster(const PlatformCase *c)
{
  double near = 2 * HOST_LINK_LATENCY + EDGE_SWITCH_LATENCY;
  double far = near + 2 * UPLINK_LATENCY + CORE_LATENCY + EDGE_SWITCH_LATENCY;

  g_assert_cmpfloat_with_epsilon(near, c->near_latency, EPSILON);
  for (guint from = 0; from < c->hosts; from++) {
    double speed = from < c->hosts / 2 ? 1.0e9 : 1.266e9;
    guint s = from / SWITCH_HOSTS;
    g_autofree char *up = g_strdup_printf("n%u_link_UP", from);
    g_autofree char *edge_switch = g_strdup_printf("edge%u_switch", s);
    g_autofree char *uplink = g_strdup_printf("edge%u_uplink_UP", s);

    g_assert_cmpfloat_with_epsilon(sg_host_get_speed(host_number(from)), speed, 1.0);
    for (guint to = 0; to < c->hosts; to++) {
      guint t = to / SWITCH_HOSTS;
      g_autofree char *down = g_strdup_printf("n%u_link_DOWN", to);
      g_autofree char *other_switch = g_strdup_printf("edge%u_switch", t);
      g_autofree char *downlink = g_strdup_printf("edge%u_uplink_DOWN", t);
      g_auto(GStrv) names = route_names(from, to);
      const char *same[] = {up, edge_switch, down, NULL};
      const char *across[] = {up,       edge_switch,  uplink, "core_switch",
                              downlink, other_switch, down,   NULL};

      assert_names(names, s == t ? same : across);
      assert_route(from, to, s == t ? 3 : 7, s == t ? near : far);
    }
  }
}

/* The edge switch of node k: each kind of node on switches of its own. */
static guint
dual_switch(guint node)
{
  guint fast_switches = (DUAL_FAST_NODES + DUAL_SWITCH_NODES - 1) / DUAL_SWITCH_NODES;
  return node < DUAL_FAST_NODES ? node / DUAL_SWITCH_NODES
                                : fast_switches + (node - DUAL_FAST_NODES) / DUAL_SWITCH_NODES;
}

/* The route from processor `from` to `to`, link by link. */
static void
assert_dual_route(guint from, guint to)
{
  guint a = from / 2, b = to / 2, s = dual_switch(a), t = dual_switch(b);
  g_autofree char *cpu_up = g_strdup_printf("n%u_cpu_UP", from);
  g_autofree char *cpu_down = g_strdup_printf("n%u_cpu_DOWN", to);
  g_autofree char *node_up = g_strdup_printf("node%u_link_UP", a);
  g_autofree char *node_down = g_strdup_printf("node%u_link_DOWN", b);
  g_autofree char *uplink = g_strdup_printf("edge%u_uplink_UP", s);
  g_autofree char *downlink = g_strdup_printf("edge%u_uplink_DOWN", t);
  const char *same_node[] = {cpu_up, cpu_down, NULL};
  const char *same_switch[] = {cpu_up, node_up, node_down, cpu_down, NULL};
  const char *across[] = {cpu_up, node_up, uplink, downlink, node_down, cpu_down, NULL};
  g_auto(GStrv) names = route_names(from, to);
  double within_node = 2 * CPU_LINK_LATENCY;
  double within_switch = within_node + 2 * NODE_LINK_LATENCY;

  if (a == b) {
    assert_names(names, same_node);
    assert_route(from, to, 2, within_node);
  } else if (s == t) {
    assert_names(names, same_switch);
    assert_route(from, to, 4, within_switch);
  } else {
    assert_names(names, across);
    assert_route(from, to, 6, within_switch + 2 * DUAL_UPLINK_LATENCY);
  }
}

/* The paper's node mix, node by node, and its routes: 100 us within an
 * edge switch and 120 us between switches, as on hetero-cluster-N.xml;
 * 20 us between the two processors of a node, which never cross the
 * node's link. */
static void
check_dual(const PlatformCase *c)
{
  guint nodes = DUAL_FAST_NODES + DUAL_SLOW_NODES;
  sg_netzone_t root = sg_zone_get_root();
  g_autoptr(GString) switch_nodes = g_string_new(NULL);

  g_assert_cmpuint(c->hosts, ==, 2 * nodes);
  g_assert_cmpfloat_with_epsilon(c->near_latency, 2 * CPU_LINK_LATENCY, EPSILON);
  g_assert_cmpfloat_with_epsilon(c->near_bandwidth, CPU_LINK_BANDWIDTH, 1.0);
  g_assert_cmpfloat_with_epsilon(2 * (CPU_LINK_LATENCY + NODE_LINK_LATENCY),
                                 2 * HOST_LINK_LATENCY + EDGE_SWITCH_LATENCY, EPSILON);
  g_assert_cmpstr(sg_zone_get_property_value(root, "lbsim-node-hosts"), ==, "2");
  for (guint first = 0; first < nodes;) {
    guint last = first;
    while (last + 1 < nodes && dual_switch(last + 1) == dual_switch(first))
      last++;
    g_assert_cmpuint(last - first + 1, <=, DUAL_SWITCH_NODES);
    g_string_append_printf(switch_nodes, "%s%u", first > 0 ? "," : "", first);
    if (last > first)
      g_string_append_printf(switch_nodes, "-%u", last);
    first = last + 1;
  }
  g_assert_cmpstr(sg_zone_get_property_value(root, "lbsim-switch-nodes"), ==, switch_nodes->str);
  /* 15 switches of 1.266 GHz nodes (the last holds node 224 alone), 8 of 1.0 GHz */
  g_assert_cmpuint(dual_switch(nodes - 1), ==, 22);

  guint fast = 0, slow = 0;
  for (guint host = 0; host < c->hosts; host++) {
    double speed = sg_host_get_speed(host_number(host));
    gboolean is_fast = host / 2 < DUAL_FAST_NODES;
    g_assert_cmpfloat_with_epsilon(speed, is_fast ? 1.266e9 : 1.0e9, 1.0);
    g_assert_cmpint(sg_host_core_count(host_number(host)), ==, 1);
    fast += is_fast;
    slow += !is_fast;
  }
  g_assert_cmpuint(fast, ==, 2 * 225);
  g_assert_cmpuint(slow, ==, 2 * 128);

  static const guint sources[] = {0, 1, 31, 32, 448, 449, 450, 451, 705};
  for (gsize i = 0; i < G_N_ELEMENTS(sources); i++)
    for (guint to = 0; to < c->hosts; to++)
      if (to != sources[i])
        assert_dual_route(sources[i], to);
  for (guint sample = 0; sample < 1024; sample++) {
    guint from = (guint)g_test_rand_int_range(0, (gint32)c->hosts);
    guint to = (guint)g_test_rand_int_range(0, (gint32)c->hosts);
    if (from != to)
      assert_dual_route(from, to);
  }
}

/* The Origin2000: 100 MFLOPS everywhere, three links between any two. */
static void
check_flat(const PlatformCase *c)
{
  for (guint host = 0; host < c->hosts; host++)
    g_assert_cmpfloat_with_epsilon(sg_host_get_speed(host_number(host)), 1e8, 1.0);
  for (guint sample = 0; sample < 256; sample++) {
    guint from = (guint)g_test_rand_int_range(0, (gint32)c->hosts);
    guint to = (guint)g_test_rand_int_range(0, (gint32)c->hosts);
    if (from != to)
      assert_route(from, to, 3, c->near_latency);
  }
}

/* Two messages, of 0 and MESSAGE_BYTES bytes, through one mailbox. */
typedef struct {
  const char *mailbox;
  double arrivals[2];
} Exchange;

static void
sender_cb(int argc, char **argv)
{
  static int payload;
  Exchange *exchange = sg_actor_self_get_data();
  sg_mailbox_t mailbox = sg_mailbox_by_name(exchange->mailbox);

  sg_mailbox_put(mailbox, &payload, 0);
  sg_mailbox_put(mailbox, &payload, (long)MESSAGE_BYTES);
}

static void
receiver_cb(int argc, char **argv)
{
  Exchange *exchange = sg_actor_self_get_data();
  sg_mailbox_t mailbox = sg_mailbox_by_name(exchange->mailbox);

  for (guint i = 0; i < 2; i++) {
    sg_mailbox_get(mailbox);
    exchange->arrivals[i] = simgrid_get_clock();
  }
}

static void
start_exchange(Exchange *exchange, guint from, guint to)
{
  sg_actor_t sender = sg_actor_init("sender", host_number(from));
  sg_actor_t receiver = sg_actor_init("receiver", host_number(to));

  sg_actor_set_data(sender, exchange);
  sg_actor_set_data(receiver, exchange);
  sg_actor_start(sender, sender_cb, 0, NULL);
  sg_actor_start(receiver, receiver_cb, 0, NULL);
}

static void
assert_exchange(const Exchange *exchange, double latency, const PlatformCase *c)
{
  g_assert_cmpfloat_with_epsilon(exchange->arrivals[0], latency, EPSILON);
  g_assert_cmpfloat_with_epsilon(exchange->arrivals[1] - exchange->arrivals[0],
                                 latency + MESSAGE_BYTES / c->near_bandwidth, 1e-9);
}

static double
self_latency(const PlatformCase *c)
{
  return c->self_latency > 0 ? c->self_latency : c->near_latency;
}

/* Proves the network model is CM02 without cross-traffic (under LV08 the
 * latency would be multiplied by about 13 and the bandwidth by 0.97; with
 * cross-traffic the two directions of an exchange would each lose 5%), and
 * that a host can send to itself at the cost of one hop. */
static void
check_messages(const PlatformCase *c)
{
  Exchange forth = {"forth", {0, 0}};
  Exchange back = {"back", {0, 0}};
  Exchange self = {"self", {0, 0}};

  start_exchange(&forth, 0, 1);
  start_exchange(&back, 1, 0);
  start_exchange(&self, c->hosts - 1, c->hosts - 1);
  simgrid_run();
  assert_exchange(&forth, c->near_latency, c);
  assert_exchange(&back, c->near_latency, c);
  assert_exchange(&self, self_latency(c), c);
}

static void
check_platform(const PlatformCase *c)
{
  load_platform(c->file);

  g_assert_cmpuint(sg_host_count(), ==, c->hosts);
  for (guint host = 0; host < c->hosts; host++)
    host_number(host);
  g_assert_cmpstr(sg_zone_get_property_value(sg_zone_get_root(), "lbsim-topology"), ==,
                  topology_names[c->topology]);

  double latency = 0;
  g_assert_cmpuint(route_links(0, 1, &latency), ==, c->near_links);
  g_assert_cmpfloat_with_epsilon(latency, c->near_latency, EPSILON);
  g_assert_cmpfloat_with_epsilon(sg_host_get_route_bandwidth(host_number(0), host_number(1)),
                                 c->near_bandwidth, 1.0);
  g_assert_cmpuint(route_links(c->hosts - 1, c->hosts - 1, &latency), >=, 1);
  g_assert_cmpfloat_with_epsilon(latency, self_latency(c), EPSILON);

  switch (c->topology) {
  case TOPOLOGY_HYPERCUBE:
    check_hypercube(c);
    break;
  case TOPOLOGY_TORUS:
    check_torus(c);
    break;
  case TOPOLOGY_FAT_TREE:
    check_fat_tree(c);
    break;
  case TOPOLOGY_CLUSTER:
    check_cluster(c);
    break;
  case TOPOLOGY_FLAT:
    check_flat(c);
    break;
  case TOPOLOGY_DUAL:
    check_dual(c);
    break;
  }
  check_messages(c);
}

static void
test_load(gconstpointer data)
{
  const PlatformCase *c = data;

  if (g_test_subprocess()) {
    check_platform(c);
    return;
  }
  g_autofree char *path = platform_path(c->file);
  g_assert_true(g_file_test(path, G_FILE_TEST_IS_REGULAR));
  g_test_trap_subprocess(NULL, 120 * G_USEC_PER_SEC, G_TEST_SUBPROCESS_DEFAULT);
  g_test_trap_assert_passed();
}

/* One message of MESSAGE_BYTES; flows started together share links. */
typedef struct {
  char mailbox[32];
  double arrival;
} Flow;

static void
flow_sender_cb(int argc, char **argv)
{
  static int payload;
  const Flow *flow = sg_actor_self_get_data();

  sg_mailbox_put(sg_mailbox_by_name(flow->mailbox), &payload, (long)MESSAGE_BYTES);
}

static void
flow_receiver_cb(int argc, char **argv)
{
  Flow *flow = sg_actor_self_get_data();

  sg_mailbox_get(sg_mailbox_by_name(flow->mailbox));
  flow->arrival = simgrid_get_clock();
}

static void
start_flow(Flow *flow, guint from, guint to)
{
  sg_actor_t sender = sg_actor_init("sender", host_number(from));
  sg_actor_t receiver = sg_actor_init("receiver", host_number(to));

  g_snprintf(flow->mailbox, sizeof flow->mailbox, "flow-%u-%u", from, to);
  sg_actor_set_data(sender, flow);
  sg_actor_set_data(receiver, flow);
  sg_actor_start(sender, flow_sender_cb, 0, NULL);
  sg_actor_start(receiver, flow_receiver_cb, 0, NULL);
}

/* On hetero-cluster-64.xml, all at once: every host of edge switch 0 sends
 * to one of switch 1, so 16 flows share switch 0's uplink, 1 Gb/s, and
 * each gets 1/16 of it (7.8 MB/s, below its host link's 12.5 MB/s); one
 * host of switch 2 sends to one of switch 3 alone, limited by its host
 * link; four pairs within switch 2 likewise, without the uplink's
 * latency. */
static void
check_uplink(void)
{
  double near = 2 * HOST_LINK_LATENCY + EDGE_SWITCH_LATENCY;
  double far = near + 2 * UPLINK_LATENCY + CORE_LATENCY + EDGE_SWITCH_LATENCY;
  Flow shared[SWITCH_HOSTS], alone, within[4];

  load_platform("hetero-cluster-64.xml");
  for (guint s = 0; s < 4; s++) {
    g_autofree char *up = g_strdup_printf("edge%u_uplink_UP", s);
    g_autofree char *down = g_strdup_printf("edge%u_uplink_DOWN", s);
    g_assert_cmpfloat_with_epsilon(sg_link_get_bandwidth(sg_link_by_name(up)), UPLINK_BANDWIDTH,
                                   1.0);
    g_assert_cmpfloat_with_epsilon(sg_link_get_bandwidth(sg_link_by_name(down)), UPLINK_BANDWIDTH,
                                   1.0);
    g_assert_cmpfloat_with_epsilon(sg_link_get_latency(sg_link_by_name(up)), UPLINK_LATENCY,
                                   EPSILON);
  }
  for (guint i = 0; i < SWITCH_HOSTS; i++)
    start_flow(&shared[i], i, SWITCH_HOSTS + i);
  start_flow(&alone, 2 * SWITCH_HOSTS, 3 * SWITCH_HOSTS);
  for (guint i = 0; i < G_N_ELEMENTS(within); i++)
    start_flow(&within[i], 2 * SWITCH_HOSTS + 1 + i, 2 * SWITCH_HOSTS + 5 + i);
  simgrid_run();
  for (guint i = 0; i < SWITCH_HOSTS; i++)
    g_assert_cmpfloat_with_epsilon(shared[i].arrival,
                                   far + MESSAGE_BYTES / (UPLINK_BANDWIDTH / SWITCH_HOSTS), 1e-9);
  g_assert_cmpfloat_with_epsilon(alone.arrival, far + MESSAGE_BYTES / HOST_LINK_BANDWIDTH, 1e-9);
  for (guint i = 0; i < G_N_ELEMENTS(within); i++)
    g_assert_cmpfloat_with_epsilon(within[i].arrival, near + MESSAGE_BYTES / HOST_LINK_BANDWIDTH,
                                   1e-9);
}

/* On dual-cluster-225-128.xml: both processors of node 0 send to nodes 1
 * and 2 (same edge switch) at once, and share node 0's 100 Mb/s: 6.25 MB/s
 * each. At 10 ms, n1 sends to n0, the other processor of its node: that
 * message crosses n1's and n0's processor links and not node 0's, so it
 * gets what n1's processor link has left, 100 MB/s - 6.25 MB/s, and not a
 * third of 12.5 MB/s. A processor on node 3 sends to node 4 alone: 12.5
 * MB/s. */
typedef struct {
  Flow flow;
  double start;
} LateFlow;

static void
late_sender_cb(int argc, char **argv)
{
  static int payload;
  const LateFlow *late = sg_actor_self_get_data();

  sg_actor_sleep_until(late->start);
  sg_mailbox_put(sg_mailbox_by_name(late->flow.mailbox), &payload, (long)MESSAGE_BYTES);
}

static void
check_node_link(void)
{
  double within_switch = 2 * (CPU_LINK_LATENCY + NODE_LINK_LATENCY);
  Flow first, second, alone;
  LateFlow within = {.start = 0.01};

  load_platform("dual-cluster-225-128.xml");
  start_flow(&first, 0, 2);
  start_flow(&second, 1, 4);
  start_flow(&alone, 6, 8);
  g_snprintf(within.flow.mailbox, sizeof within.flow.mailbox, "within");
  sg_actor_t sender = sg_actor_init("sender", host_number(1));
  sg_actor_t receiver = sg_actor_init("receiver", host_number(0));
  sg_actor_set_data(sender, &within);
  sg_actor_set_data(receiver, &within.flow);
  sg_actor_start(sender, late_sender_cb, 0, NULL);
  sg_actor_start(receiver, flow_receiver_cb, 0, NULL);
  simgrid_run();
  g_assert_cmpfloat_with_epsilon(first.arrival,
                                 within_switch + MESSAGE_BYTES / (HOST_LINK_BANDWIDTH / 2), 1e-9);
  g_assert_cmpfloat_with_epsilon(second.arrival, first.arrival, 1e-9);
  g_assert_cmpfloat_with_epsilon(alone.arrival, within_switch + MESSAGE_BYTES / HOST_LINK_BANDWIDTH,
                                 1e-9);
  g_assert_cmpfloat_with_epsilon(within.flow.arrival,
                                 within.start + 2 * CPU_LINK_LATENCY +
                                     MESSAGE_BYTES / (CPU_LINK_BANDWIDTH - HOST_LINK_BANDWIDTH / 2),
                                 1e-9);
}

static void
test_node_link(void)
{
  if (g_test_subprocess()) {
    check_node_link();
    return;
  }
  g_test_trap_subprocess(NULL, 120 * G_USEC_PER_SEC, G_TEST_SUBPROCESS_DEFAULT);
  g_test_trap_assert_passed();
}

/* On t3e-512.xml, at once and on routes that share no link: a message to a
 * torus neighbour (n0 to n1) and one 4 links away (n200 to n204 + 8 + 64 +
 * 1: x 0 -> 1 ... each axis once, and x again) arrive 3 hops' latency
 * apart: the message latency is paid once, whatever the distance. */
static void
check_t3e_hops(void)
{
  const double hop = 50e-9, message = 10e-6, bandwidth = 300e6;
  Flow near, far;
  guint from = 200, to = 200 + 2 + 8 + 64; /* x + 2, y + 1, z + 1 */

  load_platform("t3e-512.xml");
  double latency = 0;
  g_assert_cmpuint(route_links(from, to, &latency), ==, 4 + 2);
  start_flow(&near, 0, 1);
  start_flow(&far, from, to);
  simgrid_run();
  g_assert_cmpfloat_with_epsilon(near.arrival, message + hop + MESSAGE_BYTES / bandwidth, 1e-12);
  g_assert_cmpfloat_with_epsilon(far.arrival - near.arrival, 3 * hop, 1e-12);
}

static void
test_t3e_hops(void)
{
  if (g_test_subprocess()) {
    check_t3e_hops();
    return;
  }
  g_test_trap_subprocess(NULL, 120 * G_USEC_PER_SEC, G_TEST_SUBPROCESS_DEFAULT);
  g_test_trap_assert_passed();
}

static void
test_uplink(void)
{
  if (g_test_subprocess()) {
    check_uplink();
    return;
  }
  g_test_trap_subprocess(NULL, 120 * G_USEC_PER_SEC, G_TEST_SUBPROCESS_DEFAULT);
  g_test_trap_assert_passed();
}

static void
test_load_time(void)
{
  const char *file = "hypercube-16384.xml";

  if (g_test_subprocess()) {
    gint64 start = g_get_monotonic_time();
    load_platform(file);
    double seconds = (double)(g_get_monotonic_time() - start) / G_USEC_PER_SEC;
    g_autofree char *text = g_strdup_printf("%.3f", seconds);
    g_autoptr(GError) error = NULL;

    g_assert_cmpuint(sg_host_count(), ==, 16384);
    g_file_set_contents(g_getenv(TIME_FILE_ENV), text, -1, &error);
    g_assert_no_error(error);
    return;
  }

  g_autoptr(GError) error = NULL;
  g_autofree char *tmp = g_dir_make_tmp("lbsim-load-time-XXXXXX", &error);
  g_assert_no_error(error);
  g_autofree char *time_file = g_build_filename(tmp, "seconds", NULL);
  g_setenv(TIME_FILE_ENV, time_file, TRUE);
  g_test_trap_subprocess(NULL, 120 * G_USEC_PER_SEC, G_TEST_SUBPROCESS_DEFAULT);
  g_unsetenv(TIME_FILE_ENV);
  g_test_trap_assert_passed();

  g_autofree char *text = NULL;
  g_file_get_contents(time_file, &text, NULL, &error);
  g_assert_no_error(error);
  g_remove(time_file);
  g_rmdir(tmp);
  double seconds = g_ascii_strtod(text, NULL);
  /* a figure for the log, not a bound: timing is the benchmarks' job, and
   * a busy machine (CI, the sanitizer build) made a bound fail at random */
  g_test_message("loading %s took %.3f s (simgrid_load_platform alone)", file, seconds);
  g_assert_cmpfloat(seconds, >, 0);
}

/* SimGrid settings: the flow models run, the others and factors that
 * make a message free or endless do not; names SimGrid does not know are
 * left to SimGrid. */
static void
test_check_cfg(void)
{
  static const char *const accepted[] = {
      "network/model:CM02",
      "network/model:LV08",
      "host/model:default",
      "host/model:compound",
      "cpu/model:Cas01",
      "network/crosstraffic:0",
      "network/model:Nope",
      "network/latency-factor:0",
      "network/loopback-lat:0",
      "network/TCP-gamma:0",
      "nocolon",
  };
  for (guint i = 0; i < G_N_ELEMENTS(accepted); i++) {
    const char *cfg[] = {accepted[i], NULL};
    g_autoptr(GError) error = NULL;
    if (!lb_platform_check_cfg(cfg, &error))
      g_error("%s refused: %s", accepted[i], error->message);
  }
  static const char *const refused[] = {
      "host/model:ptask_L07",       "network/model:SMPI",
      "network/model:IB",           "network/model:Constant",
      "network/bandwidth-factor:0", "network/latency-factor:-1",
      "network/loopback-lat:-1e-3", "network/bandwidth-factor:inf",
      "maxmin/precision:1",         "maxmin/precision:-1",
      "surf/precision:0",           "maxmin/concurrency-limit:0",
  };
  for (guint i = 0; i < G_N_ELEMENTS(refused); i++) {
    const char *cfg[] = {"network/model:CM02", refused[i], NULL};
    g_autoptr(GError) error = NULL;
    g_assert_false(lb_platform_check_cfg(cfg, &error));
    g_assert_error(error, LB_RUN_ERROR, LB_RUN_ERROR_INPUT);
    g_autofree char *named = g_strdup_printf("--cfg %s: ", refused[i]);
    g_assert_true(g_str_has_prefix(error->message, named));
  }
}

static gboolean
check_xml_file(const char *path, GError **error)
{
  LbScenario sc = {.file = (char *)"t.ini", .platform = (char *)path};
  return lb_platform_check_xml(&sc, error);
}

/* Every shipped platform and every test platform passes (network/model
 * CM02 in a <config>, power-state speed lists with states that are off at
 * speed 0, coordinates below 0). */
static void
test_check_xml_accepts(void)
{
  const char *root = g_getenv("LBSIM_SOURCE_ROOT");
  g_assert_nonnull(root);
  static const char *const dirs[] = {"platforms", "tests/platforms"};
  guint checked = 0;
  for (guint d = 0; d < G_N_ELEMENTS(dirs); d++) {
    g_autofree char *dir = g_build_filename(root, dirs[d], NULL);
    g_autoptr(GDir) listing = g_dir_open(dir, 0, NULL);
    g_assert_nonnull(listing);
    const char *name;
    while ((name = g_dir_read_name(listing)) != NULL) {
      if (!g_str_has_suffix(name, ".xml"))
        continue;
      g_autofree char *path = g_build_filename(dir, name, NULL);
      g_autoptr(GError) error = NULL;
      if (!check_xml_file(path, &error))
        g_error("%s refused: %s", path, error->message);
      checked++;
    }
  }
  g_assert_cmpuint(checked, >=, G_N_ELEMENTS(cases) + 4);
}

/* One line per refusal: the line, the element and the attribute. */
static void
test_check_xml_refuses(void)
{
  static const struct {
    const char *body;
    const char *needle;
  } bad[] = {
      /* the power state in use computes: speed 0 there is refused */
      {"<host id=\"a\" speed=\"1Gf,0f\" pstate=\"1\"/>",
       "t.xml:4: <host id=\"a\"> speed=\"1Gf,0f\": must be more than 0"},
      {"<host id=\"a\" speed=\"0f,1Gf\"/>",
       "t.xml:4: <host id=\"a\"> speed=\"0f,1Gf\": must be more than 0"},
      {"<host id=\"a\" speed=\"1Gf,-1f\"/>",
       "t.xml:4: <host id=\"a\"> speed=\"1Gf,-1f\": must be at least 0"},
      {"<host id=\"a\" speed=\"nanf\"/>",
       "t.xml:4: <host id=\"a\"> speed=\"nanf\": must be finite"},
      {"<link id=\"l\" bandwidth=\"1GBps\" latency=\"-2us\"/>",
       "t.xml:4: <link id=\"l\"> latency=\"-2us\": must be at least 0"},
      {"<cluster id=\"c\" prefix=\"n\" suffix=\"\" radical=\"0-3\" speed=\"1Gf\" bw=\"1GBps\" "
       "lat=\"1us\" bb_lat=\"-inf\"/>",
       "t.xml:4: <cluster id=\"c\"> bb_lat=\"-inf\": must be finite"},
      {"<link id=\"l\" bandwidth=\"1GBps\" latency=\"1us\" state_file=\"s\"/>",
       "t.xml:4: <link id=\"l\"> state_file=\"s\": lbsim does not simulate hosts or links that "
       "fail"},
      {"<zone id=\"w\" routing=\"WIFI\"></zone>", "t.xml:4: <zone id=\"w\"> routing=\"WIFI\""},
  };
  g_autoptr(GError) dir_error = NULL;
  g_autofree char *dir = g_dir_make_tmp("lbsim-check-xml-XXXXXX", &dir_error);
  g_assert_no_error(dir_error);
  g_autofree char *path = g_build_filename(dir, "t.xml", NULL);
  for (guint i = 0; i < G_N_ELEMENTS(bad); i++) {
    g_autofree char *xml = g_strdup_printf(
        "<?xml version='1.0'?>\n<!DOCTYPE platform SYSTEM \"https://simgrid.org/simgrid.dtd\">\n"
        "<platform version=\"4.1\"><zone id=\"z\" routing=\"Full\">\n%s\n</zone></platform>\n",
        bad[i].body);
    g_assert_true(g_file_set_contents(path, xml, -1, NULL));
    g_autoptr(GError) error = NULL;
    g_assert_false(check_xml_file(path, &error));
    g_assert_error(error, LB_RUN_ERROR, LB_RUN_ERROR_INPUT);
    g_assert_true(g_str_has_prefix(error->message, "t.ini: [scenario] platform: "));
    if (strstr(error->message, bad[i].needle) == NULL)
      g_error("expected '%s' in: %s", bad[i].needle, error->message);
  }
  g_remove(path);
  g_rmdir(dir);
}

/* The route check at 16384 ranks once SimGrid has sealed the platform
 * (from an actor at time 0): every rank's host reaches rank 0's and back.
 * Its cost goes to the log, next to the platform's load time. */
static void
route_check_cb(int argc, char **argv)
{
  LbScenario *sc = sg_actor_self_get_data();
  sg_host_t *hosts = g_new(sg_host_t, sc->ranks);
  for (guint r = 0; r < sc->ranks; r++)
    hosts[r] = host_number(r);
  gint64 start = g_get_monotonic_time();
  g_autoptr(GError) error = NULL;
  gboolean ok = lb_platform_check_hosts(sc, hosts, &error);
  double seconds = (double)(g_get_monotonic_time() - start) / G_USEC_PER_SEC;
  g_assert_no_error(error);
  g_assert_true(ok);
  g_autofree char *text = g_strdup_printf("%.3f", seconds);
  g_assert_true(g_file_set_contents(g_getenv(TIME_FILE_ENV), text, -1, NULL));
  g_free(hosts);
}

static void
test_route_check_time(void)
{
  const char *file = "hypercube-16384.xml";
  if (g_test_subprocess()) {
    load_platform(file);
    g_autofree char *path = platform_path(file);
    LbScenario sc = {.file = (char *)"t.ini", .platform = path, .ranks = 16384};
    sg_actor_t actor = sg_actor_init("check", host_number(0));
    sg_actor_set_data(actor, &sc);
    sg_actor_start(actor, route_check_cb, 0, NULL);
    simgrid_run();
    return;
  }
  g_autoptr(GError) error = NULL;
  g_autofree char *tmp = g_dir_make_tmp("lbsim-route-check-XXXXXX", &error);
  g_assert_no_error(error);
  g_autofree char *time_file = g_build_filename(tmp, "seconds", NULL);
  g_setenv(TIME_FILE_ENV, time_file, TRUE);
  g_test_trap_subprocess(NULL, 120 * G_USEC_PER_SEC, G_TEST_SUBPROCESS_DEFAULT);
  g_unsetenv(TIME_FILE_ENV);
  g_test_trap_assert_passed();
  g_autofree char *text = NULL;
  g_file_get_contents(time_file, &text, NULL, &error);
  g_assert_no_error(error);
  g_remove(time_file);
  g_rmdir(tmp);
  g_test_message("checking the routes of 16384 ranks on %s took %s s", file, text);
}

int
main(int argc, char **argv)
{
  static const char *const rejected[][5] = {
      {"hypercube", "0", NULL},
      {"hypercube", "18", NULL},
      {"torus", "0", "1", "1", NULL},
      {"torus", "1", "8", "8", NULL},
      {"mesh", "8", NULL},
      {"dual-cluster", "0", "0", NULL},
      {"dual-cluster", "2000", "49", NULL},
      {"dual-cluster", "16", NULL},
  };
  static const char *const rejected_paths[] = {
      "/platforms/generator/rejects/hypercube-0",
      "/platforms/generator/rejects/hypercube-18",
      "/platforms/generator/rejects/torus-0-1-1",
      "/platforms/generator/rejects/torus-1-8-8",
      "/platforms/generator/rejects/unknown-kind",
      "/platforms/generator/rejects/dual-cluster-0-0",
      "/platforms/generator/rejects/dual-cluster-2049",
      "/platforms/generator/rejects/dual-cluster-16",
  };

  g_test_init(&argc, &argv, NULL);

  g_test_add_func("/platforms/generator/reproduces-shipped", test_generator_reproduces_shipped);
  g_test_add_func("/platforms/generator/stdout", test_generator_stdout);
  g_test_add_func("/platforms/generator/help", test_generator_help);
  for (gsize i = 0; i < G_N_ELEMENTS(rejected); i++)
    g_test_add_data_func(rejected_paths[i], rejected[i], test_generator_rejects);
  for (gsize i = 0; i < G_N_ELEMENTS(cases); i++) {
    g_autofree char *stem = g_strndup(cases[i].file, strlen(cases[i].file) - strlen(".xml"));
    g_autofree char *path = g_strdup_printf("/platforms/load/%s", stem);
    g_test_add_data_func(path, &cases[i], test_load);
  }
  g_test_add_func("/platforms/uplink/hetero-cluster-64", test_uplink);
  g_test_add_func("/platforms/t3e-512/hops", test_t3e_hops);
  g_test_add_func("/platforms/dual-cluster/node-link", test_node_link);
  g_test_add_func("/platforms/load-time/hypercube-16384", test_load_time);
  g_test_add_func("/platforms/check/cfg", test_check_cfg);
  g_test_add_func("/platforms/check/xml-accepts", test_check_xml_accepts);
  g_test_add_func("/platforms/check/xml-refuses", test_check_xml_refuses);
  g_test_add_func("/platforms/check/route-time-16384", test_route_check_time);

  return g_test_run();
}
