/* Background traffic: other jobs' flows on the shared network of a cluster
 * (the LB_Migrate paper, section 5: "Other jobs are also running in the
 * cluster along with the test, thus network traffic volume may have
 * varied from test to test").
 *
 * Each flow is one message too large to end within a run, between nodes
 * the run did not take, on SimGrid's flow model: while it lasts it takes
 * its max-min share of every link on its route (its nodes' links, and the
 * uplinks of both edge switches when they differ), which is what it costs
 * the run's own messages that cross the same uplinks. SimGrid's CM02 has
 * no queues, so the traffic slows the run's transfers and not their
 * latency. */
#include "core/traffic.h"

#include <string.h>
#include <simgrid/actor.h>
#include <simgrid/host.h>
#include <simgrid/mailbox.h>
#include <xbt/sysdep.h>

#include "core/placement.h"
#include "lbsim/run.h"

/* 8e7 s at 100 Mb/s: longer than any run */
#define FLOW_BYTES 1000000000000000L

/* count of the candidates (n of them) drawn without replacement, in the
 * order drawn, to the front of the array */
static void
draw_front(GRand *rand, guint *candidates, guint n, guint count)
{
  for (guint j = 0; j < count && j < n; j++) {
    guint i = (guint)g_rand_int_range(rand, (gint32)j, (gint32)n);
    guint t = candidates[i];
    candidates[i] = candidates[j];
    candidates[j] = t;
  }
}

/* A node, not taken, off switch s, not yet busy (busy[k]: sending or
 * receiving, as the caller asks), drawn at random; G_MAXUINT if none. */
static guint
draw_elsewhere(GRand *rand, const guint *switch_of, const gboolean *taken, const gboolean *busy,
               guint nodes, guint s, guint *scratch)
{
  guint n = 0;
  for (guint k = 0; k < nodes; k++)
    if (!taken[k] && !busy[k] && switch_of[k] != s)
      scratch[n++] = k;
  if (n == 0)
    return G_MAXUINT;
  return scratch[g_rand_int_range(rand, 0, (gint32)n)];
}

GArray *
lb_traffic_plan(const guint *switch_of, const gboolean *taken, guint nodes, guint flows,
                guint64 seed)
{
  GArray *out = g_array_new(FALSE, FALSE, sizeof(LbTrafficFlow));
  if (flows == 0 || nodes == 0)
    return out;
  /* a stream of its own, apart from the work model's and the queue's */
  guint32 words[3] = {(guint32)seed, (guint32)(seed >> 32), 0x74726166 /* "traf" */};
  g_autoptr(GRand) rand = g_rand_new_with_seed_array(words, G_N_ELEMENTS(words));
  guint switches = 0;
  for (guint k = 0; k < nodes; k++)
    switches = MAX(switches, switch_of[k] + 1);
  g_autofree gboolean *used = g_new0(gboolean, switches);
  for (guint k = 0; k < nodes; k++)
    if (taken[k])
      used[switch_of[k]] = TRUE;
  g_autofree gboolean *sending = g_new0(gboolean, nodes);
  g_autofree gboolean *receiving = g_new0(gboolean, nodes);
  g_autofree guint *here = g_new(guint, nodes);
  g_autofree guint *scratch = g_new(guint, nodes);

  for (guint s = 0; s < switches; s++) {
    if (!used[s])
      continue;
    /* out of the switch, then into it */
    for (guint direction = 0; direction < 2; direction++) {
      gboolean *busy_here = direction == 0 ? sending : receiving;
      gboolean *busy_there = direction == 0 ? receiving : sending;
      guint n = 0;
      for (guint k = 0; k < nodes; k++)
        if (switch_of[k] == s && !taken[k] && !busy_here[k])
          here[n++] = k;
      draw_front(rand, here, n, flows);
      for (guint j = 0; j < flows && j < n; j++) {
        guint there = draw_elsewhere(rand, switch_of, taken, busy_there, nodes, s, scratch);
        if (there == G_MAXUINT)
          break;
        busy_here[here[j]] = TRUE;
        busy_there[there] = TRUE;
        LbTrafficFlow flow = {direction == 0 ? here[j] : there, direction == 0 ? there : here[j]};
        g_array_append_val(out, flow);
      }
    }
  }
  return out;
}

/* lbsim-switch-nodes, "0-15,16-31,...": the nodes of each switch in switch
 * order, every node once. */
static gboolean
parse_switches(const char *text, guint nodes, guint *switch_of)
{
  g_auto(GStrv) ranges = g_strsplit(text, ",", -1);
  g_autofree gboolean *seen = g_new0(gboolean, nodes);
  guint covered = 0;
  for (guint s = 0; ranges[s] != NULL; s++) {
    g_auto(GStrv) ends = g_strsplit(g_strstrip(ranges[s]), "-", 3);
    guint64 first = 0, last = 0;
    if (ends[0] == NULL || (ends[1] != NULL && ends[2] != NULL) ||
        !g_ascii_string_to_unsigned(ends[0], 10, 0, nodes - 1, &first, NULL) ||
        !g_ascii_string_to_unsigned(ends[1] != NULL ? ends[1] : ends[0], 10, first, nodes - 1,
                                    &last, NULL))
      return FALSE;
    for (guint64 k = first; k <= last; k++) {
      if (seen[k])
        return FALSE;
      seen[k] = TRUE;
      switch_of[k] = s;
      covered++;
    }
  }
  return covered == nodes;
}

gboolean
lb_traffic_hosts(const LbScenario *sc, const sg_host_t *placed, sg_host_t **hosts_out,
                 guint *nflows, GError **error)
{
  *hosts_out = NULL;
  *nflows = 0;
  if (sc->background_traffic == 0)
    return TRUE;
  size_t nhosts = 0;
  sg_host_t *hosts = lb_hosts_in_order(&nhosts);
  g_autoptr(GError) local = NULL;
  guint k = lb_node_hosts(sc, (guint)nhosts, &local);
  const char *text = lb_platform_property("lbsim-switch-nodes");
  guint nodes = k > 0 ? (guint)nhosts / k : 0;
  g_autofree guint *switch_of = g_new0(guint, MAX(nodes, 1));
  if (k == 0 || text == NULL || !parse_switches(text, nodes, switch_of)) {
    g_set_error(error, LB_RUN_ERROR, LB_RUN_ERROR_INPUT,
                "%s: [scenario] background-traffic: platform %s must say which nodes share each "
                "edge switch (its lbsim-switch-nodes property, 'A-B,C-D,...' covering every node "
                "once, and lbsim-node-hosts, hosts a node: see lbsim-platgen dual-cluster)%s%s",
                sc->file, sc->platform, text != NULL ? ", not " : "", text != NULL ? text : "");
    xbt_free(hosts);
    return FALSE;
  }
  g_autoptr(GHashTable) index = g_hash_table_new(NULL, NULL);
  for (size_t i = 0; i < nhosts; i++)
    g_hash_table_insert(index, hosts[i], GUINT_TO_POINTER(i));
  g_autofree gboolean *taken = g_new0(gboolean, nodes);
  for (guint r = 0; r < sc->ranks; r++)
    taken[GPOINTER_TO_UINT(g_hash_table_lookup(index, placed[r])) / k] = TRUE;
  g_autoptr(GArray) flows =
      lb_traffic_plan(switch_of, taken, nodes, sc->background_traffic, sc->placement_seed);
  sg_host_t *out = g_new(sg_host_t, 2 * MAX(flows->len, 1));
  for (guint i = 0; i < flows->len; i++) {
    const LbTrafficFlow *f = &g_array_index(flows, LbTrafficFlow, i);
    out[2 * i] = hosts[f->from * k];
    out[2 * i + 1] = hosts[f->to * k];
  }
  xbt_free(hosts);
  *hosts_out = out;
  *nflows = flows->len;
  return TRUE;
}

static int flow_payload;

static void
mailbox_name(char *name, gsize size, guint flow)
{
  g_snprintf(name, size, "lbsim-traffic-%u", flow);
}

static void
sender_main(int argc, char *argv[])
{
  char name[40];
  mailbox_name(name, sizeof name, GPOINTER_TO_UINT(sg_actor_self_get_data()));
  sg_mailbox_put(sg_mailbox_by_name(name), &flow_payload, FLOW_BYTES);
}

static void
receiver_main(int argc, char *argv[])
{
  char name[40];
  mailbox_name(name, sizeof name, GPOINTER_TO_UINT(sg_actor_self_get_data()));
  sg_mailbox_get(sg_mailbox_by_name(name));
}

void
lb_traffic_start(const sg_host_t *hosts, guint nflows)
{
  for (guint i = 0; i < nflows; i++) {
    char name[40];
    g_snprintf(name, sizeof name, "traffic-%u", i);
    for (guint end = 0; end < 2; end++) {
      sg_actor_t actor = sg_actor_init(name, hosts[2 * i + end]);
      sg_actor_set_data(actor, GUINT_TO_POINTER(i));
      sg_actor_start(actor, end == 0 ? sender_main : receiver_main, 0, NULL);
      /* the run ends when the ranks do, whatever the flows are doing */
      sg_actor_daemonize(actor);
    }
  }
}
