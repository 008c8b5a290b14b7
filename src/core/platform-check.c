#include "core/platform-check.h"

#include <math.h>
#include <string.h>
#include <simgrid/host.h>
#include <simgrid/link.h>
#include <simgrid/zone.h>
#include <xbt/dict.h>
#include <xbt/dynar.h>

#include "io/input.h"
#include "lbsim/run.h"

/* Attributes of the platform DTD that hold a speed or a bandwidth, and a
 * latency. */
static const char *const rate_attributes[] = {
    "speed", "bandwidth", "bw", "bb_bw", "loopback_bw", "bw_in", "bw_out", "limiter_link", NULL,
};
static const char *const latency_attributes[] = {"latency", "lat", "bb_lat", "loopback_lat", NULL};

/* Profiles change speeds, bandwidths and latencies, and state profiles
 * turn hosts and links off, in the middle of a run: lbsim's figures
 * (a step's time from its loads and its messages) assume neither, and a
 * rank whose host fails leaves the others waiting for its messages. */
static const char *const profile_attributes[] = {
    "speed_file", "bandwidth_file", "latency_file", "availability_file", "state_file", NULL,
};

/* SimGrid's models other than the flow models lbsim's platforms are
 * written for (CM02, LV08): the parallel-task host model and the network
 * models whose costs follow other rules. A name SimGrid does not know is
 * left to SimGrid's own message. */
static const char *
setting_refusal(const char *key, const char *value)
{
  static const char *const models[][2] = {
      {"host/model", "ptask_L07"}, {"network/model", "Constant"}, {"network/model", "SMPI"},
      {"network/model", "IB"},     {"network/model", "ns-3"},
  };
  for (guint i = 0; i < G_N_ELEMENTS(models); i++)
    if (strcmp(key, models[i][0]) == 0 && g_ascii_strcasecmp(value, models[i][1]) == 0)
      return "lbsim runs SimGrid's flow models only (host/model default or compound, "
             "network/model LV08 or CM02)";
  /* numbers out of range: a run that crashes, hangs or deadlocks midway,
   * or messages for free */
  static const struct {
    const char *key;
    double low, high; /* the value must be finite, in [low, high) or (low, high) */
    gboolean low_open;
    const char *why;
  } ranges[] = {
      {"network/bandwidth-factor", 0, INFINITY, TRUE, "must be a finite number more than 0"},
      {"network/latency-factor", 0, INFINITY, FALSE, "must be a finite number at least 0"},
      {"network/loopback-bw", 0, INFINITY, TRUE, "must be a finite number more than 0"},
      {"network/loopback-lat", 0, INFINITY, FALSE, "must be a finite number at least 0"},
      {"maxmin/precision", 0, 1, TRUE, "must be more than 0 and less than 1"},
      {"surf/precision", 0, 1, TRUE, "must be more than 0 and less than 1"},
  };
  char *end = NULL;
  double v = g_ascii_strtod(value, &end);
  if (end == value || *end != '\0')
    return NULL;
  if (strcmp(key, "maxmin/concurrency-limit") == 0 && v == 0)
    return "must be -1 (no limit) or more than 0";
  for (guint i = 0; i < G_N_ELEMENTS(ranges); i++)
    if (strcmp(key, ranges[i].key) == 0 &&
        !(isfinite(v) && v < ranges[i].high &&
          (ranges[i].low_open ? v > ranges[i].low : v >= ranges[i].low)))
      return ranges[i].why;
  return NULL;
}

gboolean
lb_platform_check_cfg(const char *const *cfg, GError **error)
{
  for (guint i = 0; cfg != NULL && cfg[i] != NULL; i++) {
    const char *colon = strchr(cfg[i], ':');
    if (colon == NULL)
      continue; /* SimGrid's parser says why */
    g_autofree char *key = g_strndup(cfg[i], (gsize)(colon - cfg[i]));
    const char *why = setting_refusal(key, colon + 1);
    if (why != NULL) {
      g_set_error(error, LB_RUN_ERROR, LB_RUN_ERROR_INPUT, "--cfg %s: %s", cfg[i], why);
      return FALSE;
    }
  }
  return TRUE;
}

typedef struct {
  guint config_depth;     /* inside <config>: its <prop>s are settings */
  GHashTable *full_zones; /* ids of zones routed by a table, or NULL */
} Scan;

static const char *
attribute(const char **names, const char **values, const char *name)
{
  for (guint i = 0; names[i] != NULL; i++)
    if (strcmp(names[i], name) == 0)
      return values[i];
  return NULL;
}

/* Why a speed, bandwidth (rate) or latency is refused, or NULL; a value
 * that is not a number is left to SimGrid's parser. */
static const char *
figure_refusal(const char *text, gboolean rate)
{
  char *end = NULL;
  double v = g_ascii_strtod(text, &end);
  if (end == text)
    return NULL;
  if (!isfinite(v))
    return "must be finite";
  if (rate && !(v > 0))
    return "must be more than 0";
  if (!rate && v < 0)
    return "must be at least 0";
  return NULL;
}

/* The first attribute of an element that lbsim refuses, and why. */
static const char *
element_refusal(const char *element, const char **names, const char **values, const Scan *scan,
                guint *which)
{
  for (guint i = 0; names[i] != NULL; i++) {
    *which = i;
    if (g_strv_contains(profile_attributes, names[i]))
      return strcmp(names[i], "state_file") == 0
                 ? "lbsim does not simulate hosts or links that fail (state profiles)"
                 : "lbsim does not simulate speeds, bandwidths or latencies that change "
                   "(profiles)";
    if (strcmp(element, "trace_connect") == 0 && strcmp(names[i], "kind") == 0)
      return "lbsim does not simulate speeds, bandwidths or latencies that change, or hosts "
             "and links that fail (profiles)";
    if (strcmp(names[i], "sharing_policy") == 0 && g_ascii_strcasecmp(values[i], "WIFI") == 0)
      return "lbsim does not simulate wifi links";
    if (strcmp(names[i], "routing") == 0 && g_ascii_strcasecmp(values[i], "Wifi") == 0)
      return "lbsim does not simulate wifi zones";
    if (strcmp(element, "prop") == 0 && scan->config_depth > 0 && strcmp(names[i], "value") == 0) {
      const char *key = attribute(names, values, "id");
      const char *why = key != NULL ? setting_refusal(key, values[i]) : NULL;
      if (why != NULL)
        return why;
    }
    gboolean rate = g_strv_contains(rate_attributes, names[i]);
    if (!rate && !g_strv_contains(latency_attributes, names[i]))
      continue;
    /* a host's speed may list one per power state: the state in use
     * (pstate, default 0) computes, the others need only be figures (a
     * state that is off has speed 0) */
    g_auto(GStrv) parts = g_strsplit(values[i], ",", -1);
    const char *pstate = attribute(names, values, "pstate");
    guint64 in_use = 0;
    gboolean states = strcmp(names[i], "speed") == 0 && parts[0] != NULL && parts[1] != NULL;
    if (states && pstate != NULL && !g_ascii_string_to_unsigned(pstate, 10, 0, 1000, &in_use, NULL))
      in_use = 0; /* SimGrid's parser refuses it */
    for (guint p = 0; parts[p] != NULL; p++) {
      const char *why = figure_refusal(parts[p], rate && (!states || p == in_use));
      if (why != NULL)
        return why;
    }
  }
  return NULL;
}

static void
start_element_cb(GMarkupParseContext *ctx, const char *element, const char **names,
                 const char **values, gpointer data, GError **error)
{
  Scan *scan = data;
  if (strcmp(element, "config") == 0)
    scan->config_depth++;
  const char *id = attribute(names, values, "id");
  const char *routing = attribute(names, values, "routing");
  if (scan->full_zones != NULL && id != NULL && routing != NULL && strcmp(routing, "Full") == 0 &&
      (strcmp(element, "zone") == 0 || strcmp(element, "AS") == 0))
    g_hash_table_add(scan->full_zones, g_strdup(id));
  guint i = 0;
  const char *why = element_refusal(element, names, values, scan, &i);
  if (why == NULL)
    return;
  int line = 0;
  g_markup_parse_context_get_position(ctx, &line, NULL);
  if (strcmp(element, "prop") == 0)
    g_set_error(error, LB_RUN_ERROR, LB_RUN_ERROR_INPUT,
                "%d: <config> <prop id=\"%s\"> value=\"%s\": %s", line, id, values[i], why);
  else
    g_set_error(error, LB_RUN_ERROR, LB_RUN_ERROR_INPUT, "%d: <%s%s%s%s> %s=\"%s\": %s", line,
                element, id != NULL ? " id=\"" : "", id != NULL ? id : "", id != NULL ? "\"" : "",
                names[i], values[i], why);
}

static void
end_element_cb(GMarkupParseContext *ctx, const char *element, gpointer data, GError **error)
{
  Scan *scan = data;
  if (strcmp(element, "config") == 0)
    scan->config_depth--;
}

static gboolean
scan_xml(const LbScenario *sc, Scan *scan, GError **error)
{
  g_autofree char *text = NULL;
  gsize len = 0;
  g_autoptr(GError) local = NULL;
  if (!lb_input_read(sc->platform, LB_INPUT_PLATFORM, &text, &len, &local)) {
    g_set_error(error, LB_RUN_ERROR, LB_RUN_ERROR_INPUT, "%s: [scenario] platform: %s", sc->file,
                local->message);
    return FALSE;
  }
  GMarkupParser parser = {.start_element = start_element_cb, .end_element = end_element_cb};
  g_autoptr(GMarkupParseContext) ctx = g_markup_parse_context_new(&parser, 0, scan, NULL);
  if (g_markup_parse_context_parse(ctx, text, (gssize)len, &local) &&
      g_markup_parse_context_end_parse(ctx, &local))
    return TRUE;
  /* XML that GMarkup does not read is left to SimGrid's parser */
  if (!g_error_matches(local, LB_RUN_ERROR, LB_RUN_ERROR_INPUT))
    return TRUE;
  g_set_error(error, LB_RUN_ERROR, LB_RUN_ERROR_INPUT, "%s: [scenario] platform: %s:%s", sc->file,
              sc->platform, local->message);
  return FALSE;
}

gboolean
lb_platform_check_xml(const LbScenario *sc, GError **error)
{
  Scan scan = {0};
  return scan_xml(sc, &scan, error);
}

/* CM02 aborts on a message between hosts with neither a link nor a latency
 * between them, and on a link of bandwidth 0. */
static gboolean
check_route(const LbScenario *sc, sg_host_t from, sg_host_t to, xbt_dynar_t links, GError **error)
{
  xbt_dynar_reset(links);
  sg_host_get_route(from, to, links);
  for (unsigned long i = 0; i < xbt_dynar_length(links); i++) {
    sg_link_t link = xbt_dynar_get_as(links, i, sg_link_t);
    if (sg_link_get_bandwidth(link) > 0)
      continue;
    g_set_error(error, LB_RUN_ERROR, LB_RUN_ERROR_INPUT,
                "%s: [scenario] platform: %s: link %s, on the route from host %s to host %s, "
                "has bandwidth 0",
                sc->file, sc->platform, sg_link_get_name(link), sg_host_get_name(from),
                sg_host_get_name(to));
    return FALSE;
  }
  if (xbt_dynar_length(links) > 0 || sg_host_get_route_latency(from, to) > 0)
    return TRUE;
  g_set_error(error, LB_RUN_ERROR, LB_RUN_ERROR_INPUT,
              "%s: [scenario] platform: %s: no route from host %s to host %s", sc->file,
              sc->platform, sg_host_get_name(from), sg_host_get_name(to));
  return FALSE;
}

/* Up to this many ranks every ordered pair of their hosts is looked up. */
#define ALL_PAIRS_RANKS 128

/* The zones routed by a table that hold ranks, in the order of their
 * first rank, each with its members holding ranks (a host of its own, or
 * one host standing for a zone inside it), in rank order. */
typedef struct {
  GPtrArray *zones;       /* sg_netzone_t */
  GHashTable *members_of; /* zone -> GPtrArray of sg_host_t */
} TableZones;

static void
table_zones_clear(TableZones *t)
{
  g_clear_pointer(&t->zones, g_ptr_array_unref);
  g_clear_pointer(&t->members_of, g_hash_table_unref);
}

G_DEFINE_AUTO_CLEANUP_CLEAR_FUNC(TableZones, table_zones_clear)

static void
find_table_zones(const LbScenario *sc, const sg_host_t *hosts, GHashTable *full_zones,
                 TableZones *t)
{
  /* every host's zone and every zone's parent, from the root down */
  g_autoptr(GHashTable) zone_of = g_hash_table_new(NULL, NULL);
  g_autoptr(GHashTable) parent = g_hash_table_new(NULL, NULL);
  g_autoptr(GPtrArray) todo = g_ptr_array_new();
  g_ptr_array_add(todo, sg_zone_get_root());
  xbt_dynar_t zone_hosts = xbt_dynar_new(sizeof(sg_host_t), NULL);
  while (todo->len > 0) {
    sg_netzone_t zone = g_ptr_array_steal_index(todo, todo->len - 1);
    xbt_dynar_reset(zone_hosts);
    sg_zone_get_hosts(zone, zone_hosts);
    for (unsigned long i = 0; i < xbt_dynar_length(zone_hosts); i++)
      g_hash_table_insert(zone_of, xbt_dynar_get_as(zone_hosts, i, sg_host_t), zone);
    xbt_dict_t sons = xbt_dict_new_homogeneous(NULL);
    sg_zone_get_sons(zone, sons);
    xbt_dict_cursor_t cursor = NULL;
    char *name;
    sg_netzone_t son;
    xbt_dict_foreach(sons, cursor, name, son)
    {
      g_hash_table_insert(parent, son, zone);
      g_ptr_array_add(todo, son);
    }
    xbt_dict_free(&sons);
  }
  xbt_dynar_free(&zone_hosts);

  t->zones = g_ptr_array_new();
  t->members_of = g_hash_table_new_full(NULL, NULL, NULL, (GDestroyNotify)g_ptr_array_unref);
  /* a member (host or zone) lies in one zone: seen once is seen there */
  g_autoptr(GHashTable) seen = g_hash_table_new(NULL, NULL);
  for (guint r = 0; r < sc->ranks; r++) {
    gpointer member = hosts[r];
    for (sg_netzone_t zone = g_hash_table_lookup(zone_of, hosts[r]); zone != NULL;
         member = zone, zone = g_hash_table_lookup(parent, zone)) {
      if (!g_hash_table_contains(full_zones, sg_zone_get_name(zone)) ||
          !g_hash_table_add(seen, member))
        continue;
      GPtrArray *list = g_hash_table_lookup(t->members_of, zone);
      if (list == NULL) {
        list = g_ptr_array_new();
        g_hash_table_insert(t->members_of, zone, list);
        g_ptr_array_add(t->zones, zone);
      }
      g_ptr_array_add(list, hosts[r]);
    }
  }
}

/* Which routes are looked up: SimGrid aborts the run on the first message
 * between two hosts without one. Up to ALL_PAIRS_RANKS ranks, every
 * ordered pair of their hosts (exact). Beyond, p^2 look-ups are too slow
 * (16384 ranks: 2.7e8), so: rank 0's host to and from every other rank's
 * (a host or a zone cut off from the rest); where routes are worked out
 * from a topology (a cluster, Vivaldi coordinates) or from a graph (Floyd,
 * Dijkstra: reaching one host and being reached from it is reaching every
 * host), that is every route. In a zone routed by a table (Full), whose
 * entries need not join up, every ordered pair of its members holding
 * ranks, one host standing for each zone inside it: the table is that
 * size in the XML. Missed beyond ALL_PAIRS_RANKS: a hole between a host
 * and a gateway inside a table zone that the standing host has a route
 * to. */
gboolean
lb_platform_check_hosts(const LbScenario *sc, const sg_host_t *hosts, GError **error)
{
  for (guint r = 0; r < sc->ranks; r++) {
    double speed = sg_host_get_speed(hosts[r]);
    if (!(speed > 0) || !isfinite(speed)) {
      g_set_error(error, LB_RUN_ERROR, LB_RUN_ERROR_INPUT,
                  "%s: [scenario] platform: %s: host %s (rank %u) has speed %g", sc->file,
                  sc->platform, sg_host_get_name(hosts[r]), r, speed);
      return FALSE;
    }
  }
  Scan scan = {.full_zones = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, NULL)};
  g_autoptr(GHashTable) full_zones = scan.full_zones;
  if (!scan_xml(sc, &scan, error))
    return FALSE;

  xbt_dynar_t links = xbt_dynar_new(sizeof(sg_link_t), NULL);
  gboolean ok = TRUE;
  if (sc->ranks <= ALL_PAIRS_RANKS) {
    for (guint r = 0; r < sc->ranks && ok; r++)
      for (guint s = 0; s < sc->ranks && ok; s++)
        ok = r == s || check_route(sc, hosts[r], hosts[s], links, error);
  } else {
    for (guint r = 1; r < sc->ranks && ok; r++)
      ok = check_route(sc, hosts[0], hosts[r], links, error) &&
           check_route(sc, hosts[r], hosts[0], links, error);
    g_auto(TableZones) tables = {0};
    if (ok && g_hash_table_size(full_zones) > 0)
      find_table_zones(sc, hosts, full_zones, &tables);
    for (guint z = 0; ok && tables.zones != NULL && z < tables.zones->len; z++) {
      const GPtrArray *m = g_hash_table_lookup(tables.members_of, tables.zones->pdata[z]);
      for (guint a = 0; a < m->len && ok; a++)
        for (guint b = 0; b < m->len && ok; b++)
          ok = a == b || check_route(sc, m->pdata[a], m->pdata[b], links, error);
    }
  }
  xbt_dynar_free(&links);
  return ok;
}
