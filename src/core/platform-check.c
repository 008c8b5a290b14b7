#include "core/platform-check.h"

#include <string.h>
#include <simgrid/host.h>
#include <simgrid/link.h>
#include <xbt/dynar.h>

#include "lbsim/run.h"

/* Attributes of the platform DTD that hold a speed or a bandwidth. */
static const char *const rate_attributes[] = {
    "speed", "bandwidth", "bw", "bb_bw", "loopback_bw", "bw_in", "bw_out", "limiter_link", NULL,
};

static void
start_element_cb(GMarkupParseContext *ctx, const char *element, const char **names,
                 const char **values, gpointer data, GError **error)
{
  const char *id = NULL;
  for (guint i = 0; names[i] != NULL; i++)
    if (strcmp(names[i], "id") == 0)
      id = values[i];
  for (guint i = 0; names[i] != NULL; i++) {
    if (!g_strv_contains(rate_attributes, names[i]))
      continue;
    /* a host's speed may list one per power state */
    g_auto(GStrv) parts = g_strsplit(values[i], ",", -1);
    for (guint p = 0; parts[p] != NULL; p++) {
      char *end = NULL;
      double v = g_ascii_strtod(parts[p], &end);
      if (end == parts[p] || v > 0)
        continue; /* not a number: SimGrid's parser says why */
      int line = 0;
      g_markup_parse_context_get_position(ctx, &line, NULL);
      g_set_error(error, LB_RUN_ERROR, LB_RUN_ERROR_INPUT,
                  "%d: <%s%s%s%s> %s=\"%s\": must be more than 0", line, element,
                  id != NULL ? " id=\"" : "", id != NULL ? id : "", id != NULL ? "\"" : "",
                  names[i], values[i]);
      return;
    }
  }
}

gboolean
lb_platform_check_xml(const LbScenario *sc, GError **error)
{
  g_autofree char *text = NULL;
  gsize len = 0;
  if (!g_file_get_contents(sc->platform, &text, &len, NULL))
    return TRUE;
  GMarkupParser parser = {.start_element = start_element_cb};
  g_autoptr(GMarkupParseContext) ctx = g_markup_parse_context_new(&parser, 0, NULL, NULL);
  g_autoptr(GError) local = NULL;
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

/* Routes from rank 0 and back catch hosts left out of the routing (a zone
 * without a route to the others); a route table with a hole between two
 * other hosts would need all p^2 pairs. 2p routes take 0.07 s at p = 16384,
 * loading that platform 1.5 s. */
gboolean
lb_platform_check_hosts(const LbScenario *sc, const sg_host_t *hosts, GError **error)
{
  xbt_dynar_t links = xbt_dynar_new(sizeof(sg_link_t), NULL);
  gboolean ok = TRUE;
  for (guint r = 0; r < sc->ranks && ok; r++) {
    if (!(sg_host_get_speed(hosts[r]) > 0)) {
      g_set_error(error, LB_RUN_ERROR, LB_RUN_ERROR_INPUT,
                  "%s: [scenario] platform: %s: host %s (rank %u) has speed 0", sc->file,
                  sc->platform, sg_host_get_name(hosts[r]), r);
      ok = FALSE;
    } else if (r > 0) {
      ok = check_route(sc, hosts[0], hosts[r], links, error) &&
           check_route(sc, hosts[r], hosts[0], links, error);
    }
  }
  xbt_dynar_free(&links);
  return ok;
}
