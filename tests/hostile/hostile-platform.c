/* Platforms: what lbsim cannot simulate faithfully refused by name (the
 * element and attribute, or the two hosts without a route) before any run
 * starts or prints a line; platforms SimGrid routes only once it seals
 * them run. */
#include <string.h>

#include "hostile.h"

/* 16 hosts n0 .. n15 around a router in a Floyd zone, host n3 and link l3
 * with the attributes given, extra elements inside the zone and before it
 * (a <config>). */
static char *
star_platform(const char *before, const char *host_extra, const char *link_extra,
              const char *inside)
{
  g_autoptr(GString) xml = g_string_new("<?xml version='1.0'?>\n"
                                        "<!DOCTYPE platform SYSTEM "
                                        "\"https://simgrid.org/simgrid.dtd\">\n"
                                        "<platform version=\"4.1\">\n");
  g_string_append(xml, before);
  g_string_append(xml, "<zone id=\"star\" routing=\"Floyd\">\n<router id=\"hub\"/>\n");
  for (guint i = 0; i < 16; i++)
    g_string_append_printf(xml,
                           "<host id=\"n%u\" speed=\"1Gf\"%s/>\n"
                           "<link id=\"l%u\" bandwidth=\"125MBps\" latency=\"50us\"%s/>\n"
                           "<route src=\"n%u\" dst=\"hub\"><link_ctn id=\"l%u\"/></route>\n",
                           i, i == 3 ? host_extra : "", i, i == 3 ? link_extra : "", i, i);
  g_string_append(xml, inside);
  g_string_append(xml, "</zone>\n</platform>\n");
  return g_string_free(g_steal_pointer(&xml), FALSE);
}

/* The small scenario on the platform p.xml given, lbsim run with the
 * extra arguments (NULL-terminated, at most 4): refused with status 2 and
 * one line holding p.xml and each needle, nothing written. */
static void
assert_platform_refused(const char *xml, const char *const *args, const char *needle1,
                        const char *needle2)
{
  g_autoptr(HostileCase) hc = hostile_case_new();
  hostile_scenario(hc);
  hostile_write(hc, "p.xml", xml);
  hostile_write(hc, "speeds.txt", "0 1.0\n1 0.5\nLOOPAFTER 2\n");
  hostile_snapshot(hc);
  const char *a[4] = {NULL};
  for (guint i = 0; args != NULL && args[i] != NULL; i++) {
    g_assert_cmpuint(i, <, G_N_ELEMENTS(a) - 1);
    a[i] = args[i];
  }
  /* a message trace would be the first file a run writes */
  g_auto(HostileResult) r = {0};
  hostile_run(hc, &r, "run", "s.ini", "--message-trace", "t.txt", a[0], a[1], a[2], NULL);
  hostile_assert_refused(&r, 2, needle1, needle2, NULL);
  g_assert_null(strstr(r.err, "running"));
  g_assert_cmpstr(r.out, ==, "");
  hostile_assert_unchanged(hc);
}

static void
refused_xml(const char *before, const char *host_extra, const char *link_extra, const char *inside,
            const char *needle1, const char *needle2)
{
  g_autofree char *xml = star_platform(before, host_extra, link_extra, inside);
  assert_platform_refused(xml, NULL, needle1, needle2);
}

static void
speed_profile(void)
{
  refused_xml("", " speed_file=\"speeds.txt\"", "", "", "p.xml:", "<host id=\"n3\"> speed_file=");
}

static void
availability_file(void)
{
  refused_xml("", " availability_file=\"speeds.txt\"", "", "",
              "p.xml:", "<host id=\"n3\"> availability_file=");
}

static void
bandwidth_profile(void)
{
  refused_xml("", "", " bandwidth_file=\"speeds.txt\"", "",
              "p.xml:", "<link id=\"l3\"> bandwidth_file=");
}

static void
latency_profile(void)
{
  refused_xml("", "", " latency_file=\"speeds.txt\"", "",
              "p.xml:", "<link id=\"l3\"> latency_file=");
}

static void
host_failures(void)
{
  refused_xml("", " state_file=\"speeds.txt\"", "", "", "<host id=\"n3\"> state_file=", "fail");
}

static void
link_failures(void)
{
  refused_xml("", "", " state_file=\"speeds.txt\"", "", "<link id=\"l3\"> state_file=", "fail");
}

static void
inline_profile(void)
{
  refused_xml("", "", "",
              "<trace id=\"slow\" periodicity=\"1\">0 1.0\n0.5 0.25\n</trace>\n"
              "<trace_connect kind=\"SPEED\" trace=\"slow\" element=\"n3\"/>\n",
              "<trace_connect> kind=\"SPEED\"", "profiles");
}

static void
wifi_link(void)
{
  refused_xml("", "", " sharing_policy=\"WIFI\"", "", "<link id=\"l3\"> sharing_policy=\"WIFI\"",
              "wifi");
}

static void
wifi_zone(void)
{
  g_autofree char *xml = g_strdup(
      "<?xml version='1.0'?>\n<!DOCTYPE platform SYSTEM \"https://simgrid.org/simgrid.dtd\">\n"
      "<platform version=\"4.1\">\n<zone id=\"cell\" routing=\"Wifi\">\n"
      "<prop id=\"access_point\" value=\"ap\"/>\n<host id=\"n0\" speed=\"1Gf\"/>\n"
      "<host id=\"n1\" speed=\"1Gf\"/>\n<router id=\"ap\"/>\n"
      "<link id=\"radio\" sharing_policy=\"WIFI\" bandwidth=\"50MBps\" latency=\"0ms\"/>\n"
      "</zone>\n</platform>\n");
  assert_platform_refused(xml, NULL, "<zone id=\"cell\"> routing=\"Wifi\"", "wifi");
}

static void
ptask_model_in_platform(void)
{
  refused_xml("<config><prop id=\"host/model\" value=\"ptask_L07\"/></config>\n", "", "", "",
              "p.xml:4: <config> <prop id=\"host/model\"> value=\"ptask_L07\"", "flow models");
}

static void
network_model_in_platform(void)
{
  refused_xml("<config><prop id=\"network/model\" value=\"IB\"/></config>\n", "", "", "",
              "<config> <prop id=\"network/model\"> value=\"IB\"", "flow models");
}

static void
ptask_model_by_cfg(void)
{
  g_autofree char *xml = star_platform("", "", "", "");
  const char *args[] = {"--cfg", "host/model:ptask_L07", NULL};
  assert_platform_refused(xml, args, "--cfg host/model:ptask_L07", "flow models");
}

static void
network_model_by_cfg(void)
{
  g_autofree char *xml = star_platform("", "", "", "");
  const char *args[] = {"--cfg", "network/model:SMPI", NULL};
  assert_platform_refused(xml, args, "--cfg network/model:SMPI", "flow models");
}

static void
bandwidth_factor_0(void)
{
  g_autofree char *xml = star_platform("", "", "", "");
  const char *args[] = {"--cfg", "network/bandwidth-factor:0", NULL};
  assert_platform_refused(xml, args, "--cfg network/bandwidth-factor:0", "more than 0");
}

/* A run SimGrid aborts midway (precision of a whole second) and one that
 * deadlocks (no flow may share a resource). */
static void
precision_1(void)
{
  g_autofree char *xml = star_platform("", "", "", "");
  const char *args[] = {"--cfg", "maxmin/precision:1", NULL};
  assert_platform_refused(xml, args, "--cfg maxmin/precision:1", "less than 1");
}

static void
concurrency_limit_0(void)
{
  refused_xml("<config><prop id=\"maxmin/concurrency-limit\" value=\"0\"/></config>\n", "", "", "",
              "<config> <prop id=\"maxmin/concurrency-limit\"> value=\"0\"", "-1 (no limit)");
}

static void
negative_latency(void)
{
  refused_xml("", "", " latency=\"-1s\"", "", "<link id=\"l3\"> latency=\"-1s\"",
              "must be at least 0");
}

static void
infinite_speed(void)
{
  refused_xml("", " speed=\"inff\"", "", "", "<host id=\"n3\"> speed=\"inff\"", "must be finite");
}

static void
infinite_bandwidth(void)
{
  g_autofree char *xml = g_strdup(
      "<?xml version='1.0'?>\n<!DOCTYPE platform SYSTEM \"https://simgrid.org/simgrid.dtd\">\n"
      "<platform version=\"4.1\">\n<zone id=\"z\" routing=\"Full\">\n"
      "<cluster id=\"c\" prefix=\"n\" suffix=\"\" radical=\"0-15\" speed=\"1Gf\" "
      "bw=\"infBps\" lat=\"50us\"/>\n</zone>\n</platform>\n");
  assert_platform_refused(xml, NULL, "p.xml:5: <cluster id=\"c\"> bw=\"infBps\"", "must be finite");
}

/* n hosts in a Full zone whose only routes join n0 to each of the others:
 * from rank 0's host every route is there, between n1 and n2 none. */
static char *
routes_from_one_host(guint n)
{
  g_autoptr(GString) xml = g_string_new(
      "<?xml version='1.0'?>\n<!DOCTYPE platform SYSTEM \"https://simgrid.org/simgrid.dtd\">\n"
      "<platform version=\"4.1\">\n<zone id=\"table\" routing=\"Full\">\n"
      "<link id=\"l\" bandwidth=\"125MBps\" latency=\"50us\"/>\n");
  for (guint i = 0; i < n; i++)
    g_string_append_printf(xml, "<host id=\"n%u\" speed=\"1Gf\"/>\n", i);
  for (guint i = 1; i < n; i++)
    g_string_append_printf(xml, "<route src=\"n0\" dst=\"n%u\"><link_ctn id=\"l\"/></route>\n", i);
  g_string_append(xml, "</zone>\n</platform>\n");
  return g_string_free(g_steal_pointer(&xml), FALSE);
}

static void
no_route_between_two_hosts(void)
{
  g_autofree char *xml = routes_from_one_host(16);
  assert_platform_refused(xml, NULL, "p.xml: no route from host n1 to host n2", NULL);
}

/* Beyond the ranks whose every pair is looked up: the pairs of a zone
 * routed by a table still are. */
static void
no_route_many_ranks(void)
{
  g_autofree char *xml = routes_from_one_host(300);
  const char *args[] = {"--ranks", "300", "--balancer", "none"};
  g_autoptr(HostileCase) hc = hostile_case_new();
  hostile_scenario(hc);
  hostile_write(hc, "p.xml", xml);
  hostile_snapshot(hc);
  g_auto(HostileResult) r = {0};
  hostile_run(hc, &r, "run", "s.ini", args[0], args[1], args[2], args[3], NULL);
  hostile_assert_refused(&r, 2, "p.xml: no route from host n1 to host n2", NULL);
  hostile_assert_unchanged(hc);
}

/* A sweep checks every point's platform, loaded and sealed, before its
 * first run: the good platform's point would have run first. */
static void
sweep_no_route(void)
{
  g_autoptr(HostileCase) hc = hostile_case_new();
  hostile_scenario(hc);
  g_autofree char *xml = routes_from_one_host(16);
  hostile_write(hc, "bad.xml", xml);
  hostile_snapshot(hc);
  g_auto(HostileResult) r = {0};
  hostile_run(hc, &r, "sweep", "s.ini", "--vary", "platform=p.xml,bad.xml", NULL);
  hostile_assert_refused(
      &r, 2, "at platform=bad.xml: ", "bad.xml: no route from host n1 to host n2", NULL);
  hostile_assert_unchanged(hc);
}

/* The small scenario on a platform of tests/platforms: both its runs
 * finish, and nothing is written. */
static void
runs_on(gconstpointer data)
{
  const char *file = data;
  g_autoptr(HostileCase) hc = hostile_case_new();
  hostile_scenario(hc);
  g_autofree char *source = g_strdup_printf("tests/platforms/%s", file);
  hostile_copy(hc, source, "p.xml");
  hostile_snapshot(hc);
  g_auto(HostileResult) r = {0};
  hostile_run(hc, &r, "run", "s.ini", "-q", NULL);
  if (r.status != 0)
    g_error("%s: exit status %d; stderr:\n%s", file, r.status, r.err);
  g_assert_cmpstr(r.err, ==, "");
  g_assert_nonnull(strstr(r.out, "mlb "));
  g_assert_nonnull(strstr(r.out, "none "));
  hostile_assert_unchanged(hc);
}

void
hostile_register_platform(void)
{
  g_test_add_func("/hostile/platform/speed-profile", speed_profile);
  g_test_add_func("/hostile/platform/availability-file", availability_file);
  g_test_add_func("/hostile/platform/bandwidth-profile", bandwidth_profile);
  g_test_add_func("/hostile/platform/latency-profile", latency_profile);
  g_test_add_func("/hostile/platform/host-failures", host_failures);
  g_test_add_func("/hostile/platform/link-failures", link_failures);
  g_test_add_func("/hostile/platform/inline-profile", inline_profile);
  g_test_add_func("/hostile/platform/wifi-link", wifi_link);
  g_test_add_func("/hostile/platform/wifi-zone", wifi_zone);
  g_test_add_func("/hostile/platform/ptask-model-in-platform", ptask_model_in_platform);
  g_test_add_func("/hostile/platform/network-model-in-platform", network_model_in_platform);
  g_test_add_func("/hostile/platform/ptask-model-by-cfg", ptask_model_by_cfg);
  g_test_add_func("/hostile/platform/network-model-by-cfg", network_model_by_cfg);
  g_test_add_func("/hostile/platform/bandwidth-factor-0", bandwidth_factor_0);
  g_test_add_func("/hostile/platform/precision-1", precision_1);
  g_test_add_func("/hostile/platform/concurrency-limit-0", concurrency_limit_0);
  g_test_add_func("/hostile/platform/negative-latency", negative_latency);
  g_test_add_func("/hostile/platform/infinite-speed", infinite_speed);
  g_test_add_func("/hostile/platform/infinite-bandwidth", infinite_bandwidth);
  g_test_add_func("/hostile/platform/no-route-between-two-hosts", no_route_between_two_hosts);
  g_test_add_func("/hostile/platform/no-route-many-ranks", no_route_many_ranks);
  g_test_add_func("/hostile/platform/sweep-no-route", sweep_no_route);
  static const char *const valid[] = {"vivaldi.xml", "cluster-in-dijkstra.xml", "meta-cluster.xml",
                                      "bypass-route.xml"};
  for (guint i = 0; i < G_N_ELEMENTS(valid); i++) {
    g_autofree char *path =
        g_strdup_printf("/hostile/platform/runs/%.*s", (int)(strlen(valid[i]) - 4), valid[i]);
    g_test_add_data_func(path, valid[i], runs_on);
  }
}
