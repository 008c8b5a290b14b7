/* Rank placement on loaded platforms, above all `placement = cost`: the
 * SP order of Baiardi et al. (2001) on the shipped torus, hypercube, fat
 * tree and flat clusters, and on platforms written here without lbsim's
 * properties; and `placement = queue`, whole nodes drawn with the seed.
 *
 * A SimGrid engine can be initialised once per process, so every case runs
 * in a subprocess (g_test_trap_subprocess); the parent only spawns. */
#include <string.h>
#include <glib.h>
#include <glib/gstdio.h>
#include <simgrid/engine.h>
#include <simgrid/host.h>
#include <xbt/dynar.h>
#include <xbt/log.h>
#include <xbt/sysdep.h>

#include "core/placement.h"
#include "lbsim/run.h"
#include "simgrid-start.h"

/* The nodes seed 1 draws for 8 ranks on dual-cluster-225-128.xml. */
#define QUEUE_SEED1_NODES "11 137 62 133"

typedef enum {
  EXPECT_GRAY,    /* P_r = n<gray(r)> */
  EXPECT_SNAKE,   /* consecutive hosts one link apart */
  EXPECT_LINEAR,  /* P_r = n<r> */
  EXPECT_WRITTEN, /* P_r = the hosts listed in want */
} Expect;

typedef struct {
  const char *name;     /* test path */
  const char *platform; /* a shipped file, or NULL for line_xml() */
  guint ranks;
  guint hosts;
  const char *placement; /* the name lbsim reports */
  Expect expect;
  guint want[8];
} Case;

/* Five hosts on a line, numbered out of order: n0 - n3 - n1 - n4 - n2,
 * links of 3, 1, 2 and 1 us, Full routing with every route written out.
 * The latency order walks the line: 0 3 1 4 2 (from n0, n3 at 3 us is
 * nearer than n1 at 4 us). */
static char *
line_xml(void)
{
  static const guint at[] = {0, 3, 1, 4, 2};
  static const char *const latency[] = {"3us", "1us", "2us", "1us"};
  GString *xml = g_string_new("<?xml version='1.0'?>\n"
                              "<!DOCTYPE platform SYSTEM \"https://simgrid.org/simgrid.dtd\">\n"
                              "<platform version=\"4.1\">\n"
                              "  <zone id=\"line\" routing=\"Full\">\n");
  for (guint i = 0; i < G_N_ELEMENTS(at); i++)
    g_string_append_printf(xml, "    <host id=\"n%u\" speed=\"1Gf\"/>\n", i);
  for (guint i = 0; i < G_N_ELEMENTS(latency); i++)
    g_string_append_printf(xml, "    <link id=\"l%u\" bandwidth=\"1GBps\" latency=\"%s\"/>\n", i,
                           latency[i]);
  for (guint i = 0; i < G_N_ELEMENTS(at); i++)
    for (guint j = i + 1; j < G_N_ELEMENTS(at); j++) {
      g_string_append_printf(xml, "    <route src=\"n%u\" dst=\"n%u\">", at[i], at[j]);
      for (guint l = i; l < j; l++)
        g_string_append_printf(xml, "<link_ctn id=\"l%u\"/>", l);
      g_string_append(xml, "</route>\n");
    }
  g_string_append(xml, "  </zone>\n</platform>\n");
  return g_string_free(xml, FALSE);
}

static const Case cases[] = {
    {"t3e-512", "t3e-512.xml", 512, 512, "cost (snake)", EXPECT_SNAKE, {0}},
    {"t3e-1024", "t3e-1024.xml", 1024, 1024, "cost (snake)", EXPECT_SNAKE, {0}},
    {"t3e-512-100-ranks", "t3e-512.xml", 100, 512, "cost (snake)", EXPECT_SNAKE, {0}},
    {"hypercube-64", "hypercube-64.xml", 64, 64, "cost (gray)", EXPECT_GRAY, {0}},
    {"hypercube-64-20-ranks", "hypercube-64.xml", 20, 64, "cost (gray)", EXPECT_GRAY, {0}},
    {"fat-tree-1024", "fat-tree-1024.xml", 1024, 1024, "cost (leaf order)", EXPECT_LINEAR, {0}},
    {"origin2000-128", "origin2000-128.xml", 128, 128, "cost (latency)", EXPECT_LINEAR, {0}},
    {"hetero-cluster-16", "hetero-cluster-16.xml", 16, 16, "cost (latency)", EXPECT_LINEAR, {0}},
    {"hetero-cluster-64", "hetero-cluster-64.xml", 64, 64, "cost (latency)", EXPECT_LINEAR, {0}},
    {"dual-cluster-64-ranks",
     "dual-cluster-225-128.xml",
     64,
     706,
     "cost (latency)",
     EXPECT_LINEAR,
     {0}},
    {"line", NULL, 5, 5, "cost (latency)", EXPECT_WRITTEN, {0, 3, 1, 4, 2}},
    {"line-3-ranks", NULL, 3, 5, "cost (latency)", EXPECT_WRITTEN, {0, 3, 1}},
};

/* Written in the subprocess's own folder, removed after loading. */
static char *
load_xml(const char *xml)
{
  g_autoptr(GError) error = NULL;
  g_autofree char *dir = g_dir_make_tmp("lbsim-placement-XXXXXX", &error);
  g_assert_no_error(error);
  char *path = g_build_filename(dir, "platform.xml", NULL);
  g_file_set_contents(path, xml, -1, &error);
  g_assert_no_error(error);
  start_simgrid(path);
  g_remove(path);
  g_rmdir(dir);
  return path;
}

static guint
host_number(sg_host_t host)
{
  const char *name = sg_host_get_name(host);
  g_assert_true(name[0] == 'n');
  return (guint)g_ascii_strtoull(name + 1, NULL, 10);
}

static guint
route_links(sg_host_t from, sg_host_t to)
{
  xbt_dynar_t links = xbt_dynar_new(sizeof(void *), NULL);
  sg_host_get_route(from, to, links);
  guint n = (guint)xbt_dynar_length(links);
  xbt_dynar_free(&links);
  return n;
}

/* The SP definition on SimGrid's latencies: P_k+1 costs no more from
 * P_k than any host after it, placed or not. */
static void
assert_definition(const sg_host_t *placed, guint ranks, sg_host_t *all, guint hosts)
{
  g_autofree gboolean *before = g_new0(gboolean, hosts);
  for (guint k = 0; k + 1 < ranks; k++) {
    before[host_number(placed[k])] = TRUE;
    double next = sg_host_get_route_latency(placed[k], placed[k + 1]);
    for (guint h = 0; h < hosts; h++)
      if (!before[host_number(all[h])])
        g_assert_cmpfloat(next, <=, sg_host_get_route_latency(placed[k], all[h]));
  }
}

static void
check_case(const Case *c)
{
  g_autofree char *xml = c->platform != NULL ? NULL : line_xml();
  g_autofree char *path = c->platform != NULL ? platform_path(c->platform) : load_xml(xml);
  if (c->platform != NULL)
    start_simgrid(path);
  g_assert_cmpuint(sg_host_count(), ==, c->hosts);
  LbScenario sc = {
      .file = "cost.ini", .platform = path, .ranks = c->ranks, .placement = LB_PLACEMENT_COST};
  g_autofree sg_host_t *placed = NULL;
  g_autofree char *name = NULL;
  g_autoptr(GError) error = NULL;
  g_assert_true(lb_place_ranks(&sc, &placed, &name, &error));
  g_assert_no_error(error);
  g_assert_cmpstr(name, ==, c->placement);

  g_autofree gboolean *seen = g_new0(gboolean, c->hosts);
  for (guint r = 0; r < c->ranks; r++) {
    guint h = host_number(placed[r]);
    g_assert_cmpuint(h, <, c->hosts);
    g_assert_false(seen[h]);
    seen[h] = TRUE;
    switch (c->expect) {
    case EXPECT_GRAY:
      g_assert_cmpuint(h, ==, r ^ (r >> 1));
      break;
    case EXPECT_LINEAR:
      g_assert_cmpuint(h, ==, r);
      break;
    case EXPECT_WRITTEN:
      g_assert_cmpuint(h, ==, c->want[r]);
      break;
    case EXPECT_SNAKE:
      if (r == 0)
        g_assert_cmpuint(h, ==, 0);
      break;
    }
    /* one hop: as many links as n0 to its neighbour n1 (the tori add a
     * host link at each end) */
    if (r > 0 && (c->expect == EXPECT_SNAKE || c->expect == EXPECT_GRAY))
      g_assert_cmpuint(route_links(placed[r - 1], placed[r]), ==,
                       route_links(sg_host_by_name("n0"), sg_host_by_name("n1")));
  }
  sg_host_t *all = sg_host_list();
  assert_definition(placed, c->ranks, all, c->hosts);
  xbt_free(all);
}

static void
test_cost(gconstpointer data)
{
  if (g_test_subprocess()) {
    check_case(data);
    return;
  }
  g_test_trap_subprocess(NULL, 120 * G_USEC_PER_SEC, G_TEST_SUBPROCESS_DEFAULT);
  g_test_trap_assert_passed();
}

/* A platform that says it is a torus must say its sizes right. */
static void
test_bad_torus(void)
{
  if (g_test_subprocess()) {
    g_autofree char *path = load_xml(
        "<?xml version='1.0'?>\n"
        "<!DOCTYPE platform SYSTEM \"https://simgrid.org/simgrid.dtd\">\n"
        "<platform version=\"4.1\">\n"
        "  <zone id=\"world\" routing=\"Full\">\n"
        "    <prop id=\"lbsim-topology\" value=\"torus\"/>\n"
        "    <prop id=\"lbsim-torus-dims\" value=\"4,4\"/>\n"
        "    <cluster id=\"torus\" prefix=\"n\" suffix=\"\" radical=\"0-11\" speed=\"1Gf\"\n"
        "             bw=\"1GBps\" lat=\"1us\" topology=\"TORUS\" topo_parameters=\"4,3\"/>\n"
        "  </zone>\n"
        "</platform>\n");
    LbScenario sc = {
        .file = "cost.ini", .platform = path, .ranks = 12, .placement = LB_PLACEMENT_COST};
    g_autofree sg_host_t *placed = NULL;
    g_autofree char *name = NULL;
    g_autoptr(GError) error = NULL;
    g_assert_false(lb_place_ranks(&sc, &placed, &name, &error));
    g_assert_error(error, LB_RUN_ERROR, LB_RUN_ERROR_INPUT);
    g_assert_true(g_str_has_prefix(error->message, "cost.ini: [scenario] placement: "));
    g_assert_nonnull(strstr(error->message, "'4,4'"));
    g_assert_null(placed);
    return;
  }
  g_test_trap_subprocess(NULL, 60 * G_USEC_PER_SEC, G_TEST_SUBPROCESS_DEFAULT);
  g_test_trap_assert_passed();
}

/* The placements that were there before cost keep their names and hosts. */
static void
test_existing(void)
{
  if (g_test_subprocess()) {
    g_autofree char *path = platform_path("t3e-512.xml");
    start_simgrid(path);
    const LbPlacement kinds[] = {LB_PLACEMENT_AUTO, LB_PLACEMENT_LINEAR, LB_PLACEMENT_GRAY};
    const char *const names[] = {"linear", "linear", "gray"};
    for (guint i = 0; i < G_N_ELEMENTS(kinds); i++) {
      LbScenario sc = {.file = "x.ini", .platform = path, .ranks = 64, .placement = kinds[i]};
      g_autofree sg_host_t *placed = NULL;
      g_autofree char *name = NULL;
      g_autoptr(GError) error = NULL;
      g_assert_true(lb_place_ranks(&sc, &placed, &name, &error));
      g_assert_cmpstr(name, ==, names[i]);
      for (guint r = 0; r < 64; r++)
        g_assert_cmpuint(host_number(placed[r]), ==,
                         kinds[i] == LB_PLACEMENT_GRAY ? r ^ (r >> 1) : r);
    }
    return;
  }
  g_test_trap_subprocess(NULL, 60 * G_USEC_PER_SEC, G_TEST_SUBPROCESS_DEFAULT);
  g_test_trap_assert_passed();
}

/* ---- placement = queue ---- */

static sg_host_t *
place_queue(const char *path, guint ranks, guint64 seed)
{
  LbScenario sc = {.file = "queue.ini",
                   .platform = (char *)path,
                   .ranks = ranks,
                   .seed = seed,
                   .placement_seed = seed,
                   .placement = LB_PLACEMENT_QUEUE};
  sg_host_t *placed = NULL;
  g_autofree char *name = NULL;
  g_autoptr(GError) error = NULL;
  g_assert_true(lb_place_ranks(&sc, &placed, &name, &error));
  g_assert_no_error(error);
  g_assert_cmpstr(name, ==, "queue");
  return placed;
}

/* Ranks 2j and 2j + 1 on the two processors of one node, each node once;
 * the nodes as drawn. */
static GArray *
nodes_of(const sg_host_t *placed, guint ranks)
{
  GArray *nodes = g_array_new(FALSE, FALSE, sizeof(guint));
  g_autoptr(GHashTable) seen = g_hash_table_new(NULL, NULL);
  for (guint r = 0; r < ranks; r++) {
    guint h = host_number(placed[r]);
    g_assert_cmpuint(h % 2, ==, r % 2);
    if (r % 2 == 1) {
      g_assert_cmpuint(h, ==, host_number(placed[r - 1]) + 1);
      continue;
    }
    g_assert_false(g_hash_table_contains(seen, GUINT_TO_POINTER(h / 2 + 1)));
    g_hash_table_add(seen, GUINT_TO_POINTER(h / 2 + 1));
    guint node = h / 2;
    g_array_append_val(nodes, node);
  }
  return nodes;
}

static gboolean
same_nodes(const GArray *a, const GArray *b)
{
  return a->len == b->len && memcmp(a->data, b->data, a->len * sizeof(guint)) == 0;
}

/* On the paper's cluster: whole nodes, both processors of each used (7
 * ranks: the fourth node's second processor idle), the same nodes for the
 * same seed, others for another; seed 1's eight ranks on the nodes written
 * here, so that a change of the draw shows. */
static void
check_queue(void)
{
  g_autofree char *path = platform_path("dual-cluster-225-128.xml");
  start_simgrid(path);
  g_autofree sg_host_t *one = place_queue(path, 32, 1);
  g_autofree sg_host_t *again = place_queue(path, 32, 1);
  g_autofree sg_host_t *two = place_queue(path, 32, 2);
  g_autofree sg_host_t *three = place_queue(path, 32, 3);
  g_autoptr(GArray) n1 = nodes_of(one, 32);
  g_autoptr(GArray) n1_again = nodes_of(again, 32);
  g_autoptr(GArray) n2 = nodes_of(two, 32);
  g_autoptr(GArray) n3 = nodes_of(three, 32);
  g_assert_cmpuint(n1->len, ==, 16);
  g_assert_true(same_nodes(n1, n1_again));
  g_assert_false(same_nodes(n1, n2));
  g_assert_false(same_nodes(n1, n3));
  g_assert_false(same_nodes(n2, n3));

  g_autofree sg_host_t *odd = place_queue(path, 7, 1);
  g_autoptr(GArray) n_odd = nodes_of(odd, 7);
  g_assert_cmpuint(n_odd->len, ==, 4);
  /* fewer ranks, the same seed: the first nodes of the same draw */
  for (guint j = 0; j < n_odd->len; j++)
    g_assert_cmpuint(g_array_index(n_odd, guint, j), ==, g_array_index(n1, guint, j));

  g_autofree sg_host_t *eight = place_queue(path, 8, 1);
  g_autoptr(GArray) n8 = nodes_of(eight, 8);
  GString *text = g_string_new(NULL);
  for (guint j = 0; j < n8->len; j++)
    g_string_append_printf(text, "%s%u", j > 0 ? " " : "", g_array_index(n8, guint, j));
  g_test_message("seed 1, 8 ranks: nodes %s", text->str);
  g_assert_cmpstr(text->str, ==, QUEUE_SEED1_NODES);
  g_string_free(text, TRUE);
}

static void
test_queue(void)
{
  if (g_test_subprocess()) {
    check_queue();
    return;
  }
  g_test_trap_subprocess(NULL, 60 * G_USEC_PER_SEC, G_TEST_SUBPROCESS_DEFAULT);
  g_test_trap_assert_passed();
}

/* A platform without lbsim-node-hosts: a node is a host, so the ranks get
 * distinct hosts at random; one whose property does not divide its hosts
 * is refused, naming the key. */
static void
check_queue_single(void)
{
  g_autofree char *path = platform_path("hetero-cluster-16.xml");
  start_simgrid(path);
  g_autofree sg_host_t *placed = place_queue(path, 16, 5);
  guint seen = 0, moved = 0;
  for (guint r = 0; r < 16; r++) {
    guint h = host_number(placed[r]);
    g_assert_false(seen & (1u << h));
    seen |= 1u << h;
    moved += h != r;
  }
  g_assert_cmpuint(seen, ==, 0xffff);
  g_assert_cmpuint(moved, >, 0);
}

static void
test_queue_single(void)
{
  if (g_test_subprocess()) {
    check_queue_single();
    return;
  }
  g_test_trap_subprocess(NULL, 60 * G_USEC_PER_SEC, G_TEST_SUBPROCESS_DEFAULT);
  g_test_trap_assert_passed();
}

static void
test_queue_bad_nodes(void)
{
  if (g_test_subprocess()) {
    g_autofree char *path =
        load_xml("<?xml version='1.0'?>\n"
                 "<!DOCTYPE platform SYSTEM \"https://simgrid.org/simgrid.dtd\">\n"
                 "<platform version=\"4.1\">\n"
                 "  <zone id=\"world\" routing=\"Full\">\n"
                 "    <prop id=\"lbsim-node-hosts\" value=\"3\"/>\n"
                 "    <cluster id=\"c\" prefix=\"n\" suffix=\"\" radical=\"0-7\" speed=\"1Gf\"\n"
                 "             bw=\"1GBps\" lat=\"1us\"/>\n"
                 "  </zone>\n"
                 "</platform>\n");
    LbScenario sc = {
        .file = "queue.ini", .platform = path, .ranks = 4, .placement = LB_PLACEMENT_QUEUE};
    g_autofree sg_host_t *placed = NULL;
    g_autofree char *name = NULL;
    g_autoptr(GError) error = NULL;
    g_assert_false(lb_place_ranks(&sc, &placed, &name, &error));
    g_assert_error(error, LB_RUN_ERROR, LB_RUN_ERROR_INPUT);
    g_assert_true(g_str_has_prefix(error->message, "queue.ini: [scenario] placement: "));
    g_assert_nonnull(strstr(error->message, "lbsim-node-hosts"));
    g_assert_nonnull(strstr(error->message, "'3'"));
    g_assert_null(placed);
    return;
  }
  g_test_trap_subprocess(NULL, 60 * G_USEC_PER_SEC, G_TEST_SUBPROCESS_DEFAULT);
  g_test_trap_assert_passed();
}

/* The draw alone, over 4000 seeds of 16 of the paper's 353 nodes: every
 * node drawn, in about its share (a node 16/353 of the draws, within a
 * third of it), and the 1.266 GHz nodes (0 .. 224) about 225/353 of all. */
static void
test_queue_draw(void)
{
  enum { NODES = 353, FAST = 225, COUNT = 16, SEEDS = 4000 };
  guint counts[NODES] = {0}, drawn[COUNT];
  guint fast = 0;
  for (guint64 seed = 1; seed <= SEEDS; seed++) {
    lb_queue_draw(NODES, COUNT, seed, drawn);
    for (guint j = 0; j < COUNT; j++) {
      g_assert_cmpuint(drawn[j], <, NODES);
      for (guint i = 0; i < j; i++)
        g_assert_cmpuint(drawn[i], !=, drawn[j]);
      counts[drawn[j]]++;
      fast += drawn[j] < FAST;
    }
  }
  double each = (double)SEEDS * COUNT / NODES;
  for (guint k = 0; k < NODES; k++) {
    g_assert_cmpfloat(counts[k], >, each * 2 / 3);
    g_assert_cmpfloat(counts[k], <, each * 4 / 3);
  }
  g_assert_cmpfloat_with_epsilon((double)fast / (SEEDS * COUNT), (double)FAST / NODES, 0.01);
}

int
main(int argc, char **argv)
{
  g_test_init(&argc, &argv, NULL);
  for (guint i = 0; i < G_N_ELEMENTS(cases); i++) {
    g_autofree char *path = g_strdup_printf("/placement/cost/%s", cases[i].name);
    g_test_add_data_func(path, &cases[i], test_cost);
  }
  g_test_add_func("/placement/cost/bad-torus-dims", test_bad_torus);
  g_test_add_func("/placement/existing", test_existing);
  g_test_add_func("/placement/queue/dual-cluster", test_queue);
  g_test_add_func("/placement/queue/one-host-nodes", test_queue_single);
  g_test_add_func("/placement/queue/bad-node-hosts", test_queue_bad_nodes);
  g_test_add_func("/placement/queue/draw", test_queue_draw);
  return g_test_run();
}
