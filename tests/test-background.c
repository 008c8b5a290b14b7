/* Background load ([scenario] background): SimGrid's sharing of a CPU by
 * priority, which it rests on; a computation's time on loaded hosts against
 * a model of the load written here; the platform checks; and whole runs.
 * Background traffic ([scenario] background-traffic): the flows drawn, and
 * a message's arrival behind them against a computation by hand.
 *
 * A SimGrid engine starts once per process, so every simulation here runs
 * in a subprocess (g_test_trap_subprocess), apart from the whole runs, which
 * lbsim's runner forks itself. */
#include <glib.h>
#include <glib/gstdio.h>
#include <math.h>
#include <string.h>
#include <simgrid/actor.h>
#include <simgrid/engine.h>
#include <simgrid/host.h>
#include <simgrid/mailbox.h>
#include <xbt/log.h>

#include "runner/runner.h"
#include "core/background.h"
#include "core/placement.h"
#include "core/traffic.h"
#include "lbsim/run.h"
#include "lbsim/scenario.h"
#include "report/report.h"
#include "simgrid-start.h"

#define FLOPS 1e9
#define EPSILON 1e-9
#define SLOW 1.0e9   /* n0..n7 of hetero-cluster-16.xml */
#define FAST 1.266e9 /* n8..n15 */

static void
in_subprocess(void (*body)(void))
{
  if (g_test_subprocess()) {
    body();
    return;
  }
  g_test_trap_subprocess(NULL, 120 * G_USEC_PER_SEC, G_TEST_SUBPROCESS_DEFAULT);
  g_test_trap_assert_passed();
}

/* ---- SimGrid: a CPU shared in proportion to priorities ---- */

typedef struct {
  double flops, priority;
  double end;
} Job;

static void
job_main(int argc, char *argv[])
{
  Job *job = sg_actor_self_get_data();
  sg_actor_execute_with_priority(job->flops, job->priority);
  job->end = simgrid_get_clock();
}

/* Two jobs of FLOPS at priorities 1 and 2 on one host of speed v: the
 * second runs at 2v/3 and ends first; the first has then done a third as
 * much and finishes the rest alone at v. */
static void
check_priority_sharing(void)
{
  g_autofree char *path = platform_path("hetero-cluster-16.xml");
  start_simgrid(path);
  Job low = {FLOPS, 1, 0}, high = {FLOPS, 2, 0};
  Job *jobs[] = {&low, &high};
  for (guint i = 0; i < G_N_ELEMENTS(jobs); i++) {
    sg_actor_t actor = sg_actor_init("job", sg_host_by_name("n0"));
    sg_actor_set_data(actor, jobs[i]);
    sg_actor_start(actor, job_main, 0, NULL);
  }
  simgrid_run();
  double first = FLOPS / (SLOW * 2 / 3);
  double rest = FLOPS - SLOW / 3 * first;
  g_assert_cmpfloat_with_epsilon(high.end, first, EPSILON);
  g_assert_cmpfloat_with_epsilon(low.end, first + rest / SLOW, EPSILON);
}

static void
test_priority_sharing(void)
{
  in_subprocess(check_priority_sharing);
}

/* ---- loads against a model of them ---- */

/* A computation that stands for a rank: flops from time start on host. */
typedef struct {
  const char *host;
  double start;
  double flops[2]; /* a second computation, if any, starts at restart */
  double restart;
  double end;
} Probe;

static void
probe_main(int argc, char *argv[])
{
  Probe *probe = sg_actor_self_get_data();
  sg_actor_sleep_until(probe->start);
  sg_actor_execute(probe->flops[0]);
  if (probe->flops[1] > 0) {
    sg_actor_sleep_until(probe->restart);
    sg_actor_execute(probe->flops[1]);
  }
  probe->end = simgrid_get_clock();
}

/* The rank's speed at time t: the host's, times the share of a load that
 * runs then. */
static double
rate_at(const GArray *loads, const char *host, double speed, double t)
{
  for (guint i = 0; i < loads->len; i++) {
    const LbBackground *l = &g_array_index(loads, LbBackground, i);
    if (strcmp(l->host, host) == 0 && l->start <= t && t < l->end)
      return speed * l->share;
  }
  return speed;
}

/* When flops started at t end: the rate is constant between the loads'
 * starts and ends. */
static double
model_finish(const GArray *loads, const char *host, double speed, double t, double flops)
{
  for (;;) {
    double next = INFINITY;
    for (guint i = 0; i < loads->len; i++) {
      const LbBackground *l = &g_array_index(loads, LbBackground, i);
      if (strcmp(l->host, host) != 0)
        continue;
      if (l->start > t)
        next = MIN(next, l->start);
      if (l->end > t)
        next = MIN(next, l->end);
    }
    double rate = rate_at(loads, host, speed, t);
    if (flops <= rate * (next - t))
      return t + flops / rate;
    flops -= rate * (next - t);
    t = next;
  }
}

static const char *const LOADS = "n0:0.5,"           /* the whole run */
                                 "n2:0.25@0.5-1.5,"  /* starts and ends mid-computation */
                                 "n3:0.5@0-1,"       /* over before the computation */
                                 "n4:0.5@0.5-,"      /* starts mid-computation, never ends */
                                 "n5:0.5@0-0.5,"     /* one load after another */
                                 "n5:0.25@0.5-1,"    /*   on the same host */
                                 "n6:1,"             /* leaves all: no load */
                                 "n7:0.5@0-100,"     /* ends long after the run */
                                 "n8:0.3,"           /* a fast host */
                                 "n9:0.5@0.25-0.75," /* running when the computation starts */
                                 "n10:0.5@1-2, n11-n12:0.2"; /* two computations; a range */

static Probe probes[] = {
    {"n0", 0, {FLOPS}},
    {"n1", 0, {FLOPS}},
    {"n2", 0, {FLOPS}},
    {"n3", 2, {FLOPS}},
    {"n4", 0, {FLOPS}},
    {"n5", 0, {FLOPS}},
    {"n6", 0, {FLOPS}},
    {"n7", 0, {FLOPS}},
    {"n8", 0, {FLOPS}},
    {"n9", 0.5, {FLOPS}},
    {"n10", 0, {FLOPS / 2, FLOPS / 2}, 1.2},
    {"n12", 0.1, {FLOPS}},
};

static void
check_loads(void)
{
  g_autofree char *path = platform_path("hetero-cluster-16.xml");
  g_autoptr(GError) error = NULL;
  g_autoptr(GArray) loads = lb_background_parse(LOADS, &error);
  g_assert_no_error(error);
  LbScenario sc = {.file = "loads.ini", .platform = path, .loads = loads};

  start_simgrid(path);
  g_assert_true(lb_background_check(&sc, &error));
  g_assert_no_error(error);
  for (guint i = 0; i < G_N_ELEMENTS(probes); i++) {
    sg_actor_t actor = sg_actor_init("probe", sg_host_by_name(probes[i].host));
    sg_actor_set_data(actor, &probes[i]);
    sg_actor_start(actor, probe_main, 0, NULL);
  }
  lb_background_start(&sc);
  simgrid_run();

  double last = 0;
  for (guint i = 0; i < G_N_ELEMENTS(probes); i++) {
    const Probe *p = &probes[i];
    double speed = g_ascii_strtoull(p->host + 1, NULL, 10) < 8 ? SLOW : FAST;
    double expected = model_finish(loads, p->host, speed, p->start, p->flops[0]);
    if (p->flops[1] > 0)
      expected = model_finish(loads, p->host, speed, MAX(expected, p->restart), p->flops[1]);
    g_test_message("%s: %.9f s, expected %.9f s", p->host, p->end, expected);
    g_assert_cmpfloat_with_epsilon(p->end, expected, EPSILON);
    last = MAX(last, p->end);
  }
  /* the model's figures spelled out where they are simple: 1/SHARE as long
   * under a load for the whole computation, as long as without it when
   * the load is over */
  g_assert_cmpfloat_with_epsilon(probes[0].end, FLOPS / (SLOW * 0.5), EPSILON);
  g_assert_cmpfloat_with_epsilon(probes[1].end, FLOPS / SLOW, EPSILON);
  g_assert_cmpfloat_with_epsilon(probes[2].end, 0.5 + 1 + (FLOPS - 0.5 * SLOW - 0.25 * SLOW) / SLOW,
                                 EPSILON);
  g_assert_cmpfloat_with_epsilon(probes[3].end - probes[3].start, FLOPS / SLOW, EPSILON);
  g_assert_cmpfloat_with_epsilon(probes[8].end, FLOPS / (FAST * 0.3), EPSILON);
  /* the loads are daemons: the run ends with the last computation, not
   * with n7's load at 100 s nor with the never-ending ones */
  g_assert_cmpfloat_with_epsilon(simgrid_get_clock(), last, EPSILON);
}

static void
test_loads(void)
{
  in_subprocess(check_loads);
}

/* ---- what the platform refuses ---- */

static void
check_refusals(void)
{
  g_autoptr(GError) error = NULL;
  g_autofree char *dir = g_dir_make_tmp("lbsim-background-XXXXXX", &error);
  g_assert_no_error(error);
  g_autofree char *path = g_build_filename(dir, "cores.xml", NULL);
  g_assert_true(
      g_file_set_contents(path,
                          "<?xml version='1.0'?>\n"
                          "<!DOCTYPE platform SYSTEM \"https://simgrid.org/simgrid.dtd\">\n"
                          "<platform version=\"4.1\">\n"
                          "  <zone id=\"world\" routing=\"Full\">\n"
                          "    <host id=\"m0\" speed=\"1Gf\"/>\n"
                          "    <host id=\"m1\" speed=\"1Gf\" core=\"2\"/>\n"
                          "  </zone>\n"
                          "</platform>\n",
                          -1, NULL));
  start_simgrid(path);
  g_remove(path);
  g_rmdir(dir);

  static const struct {
    const char *background, *message;
  } cases[] = {
      {"m0:0.5", NULL},
      {"m0-m1:1", "[scenario] background: host m1 has 2 cores"},
      {"m0:0.5,m2:0.5@1-2", "[scenario] background: no host 'm2' on platform"},
      {"n0:0.5", "[scenario] background: no host 'n0' on platform"},
  };
  for (guint i = 0; i < G_N_ELEMENTS(cases); i++) {
    g_autoptr(GError) local = NULL;
    g_autoptr(GArray) loads = lb_background_parse(cases[i].background, &local);
    g_assert_no_error(local);
    LbScenario sc = {.file = "refused.ini", .platform = path, .loads = loads};
    gboolean ok = lb_background_check(&sc, &local);
    if (cases[i].message == NULL) {
      g_assert_no_error(local);
      g_assert_true(ok);
      continue;
    }
    g_assert_false(ok);
    g_assert_error(local, LB_RUN_ERROR, LB_RUN_ERROR_INPUT);
    g_test_message("%s", local->message);
    g_assert_true(g_str_has_prefix(local->message, "refused.ini: "));
    g_assert_nonnull(strstr(local->message, cases[i].message));
  }
}

static void
test_refusals(void)
{
  in_subprocess(check_refusals);
}

/* ---- background traffic: the flows ---- */

/* The paper's cluster: 225 nodes on switches 0..14, 128 on 15..22. */
enum { PAPER_NODES = 353, PAPER_FAST = 225, SWITCH_NODES = 16 };

static void
paper_switches(guint *switch_of)
{
  for (guint k = 0; k < PAPER_NODES; k++)
    switch_of[k] = k < PAPER_FAST ? k / SWITCH_NODES : 15 + (k - PAPER_FAST) / SWITCH_NODES;
}

static gboolean
same_flows(const GArray *a, const GArray *b)
{
  return a->len == b->len && memcmp(a->data, b->data, a->len * sizeof(LbTrafficFlow)) == 0;
}

/* Sixteen nodes taken at random on the paper's cluster, 8 flows: every
 * switch the run uses has at least 8 flows out and 8 in (some drawn for
 * another switch may count: a node sends at most one flow and receives at
 * most one), but edge14, which holds node 224 alone; every flow joins two
 * switches and two nodes the run did not take; the same seed the same
 * flows, another seed others. */
static void
test_traffic_plan(void)
{
  guint switch_of[PAPER_NODES];
  paper_switches(switch_of);
  for (guint64 seed = 1; seed <= 50; seed++) {
    gboolean taken[PAPER_NODES] = {FALSE};
    guint drawn[16];
    lb_queue_draw(PAPER_NODES, 16, seed, drawn);
    for (guint j = 0; j < 16; j++)
      taken[drawn[j]] = TRUE;
    g_autoptr(GArray) flows = lb_traffic_plan(switch_of, taken, PAPER_NODES, 8, seed);
    g_autoptr(GArray) again = lb_traffic_plan(switch_of, taken, PAPER_NODES, 8, seed);
    g_autoptr(GArray) other = lb_traffic_plan(switch_of, taken, PAPER_NODES, 8, seed + 1000);
    g_assert_true(same_flows(flows, again));
    g_assert_false(same_flows(flows, other));
    guint out[23] = {0}, in[23] = {0}, sends[PAPER_NODES] = {0}, receives[PAPER_NODES] = {0};
    for (guint i = 0; i < flows->len; i++) {
      const LbTrafficFlow *f = &g_array_index(flows, LbTrafficFlow, i);
      g_assert_false(taken[f->from]);
      g_assert_false(taken[f->to]);
      g_assert_cmpuint(switch_of[f->from], !=, switch_of[f->to]);
      out[switch_of[f->from]]++;
      in[switch_of[f->to]]++;
      sends[f->from]++;
      receives[f->to]++;
    }
    guint used = 0;
    for (guint s = 0; s < 23; s++) {
      guint held = 0, free = 0;
      for (guint k = 0; k < PAPER_NODES; k++)
        if (switch_of[k] == s) {
          held += taken[k];
          free += !taken[k];
        }
      used += held > 0;
      if (held > 0) {
        /* fewer only on edge14, node 224's alone */
        g_assert_cmpuint(out[s], >=, MIN(8, free));
        g_assert_cmpuint(in[s], >=, MIN(8, free));
        if (s != 14) {
          g_assert_cmpuint(out[s], >=, 8);
          g_assert_cmpuint(in[s], >=, 8);
        }
      }
    }
    /* at most 8 out and 8 in drawn for each switch the run uses */
    g_assert_cmpuint(flows->len, <=, 16 * used);
    g_assert_cmpuint(flows->len, >=, 8);
    for (guint k = 0; k < PAPER_NODES; k++) {
      g_assert_cmpuint(sends[k], <=, 1);
      g_assert_cmpuint(receives[k], <=, 1);
    }
  }
}

/* Two switches of four nodes, the run on one node of each: three nodes
 * free on each side, so of 8 flows asked each way only three can leave
 * and three arrive, all between the two switches; none asked, none. */
static void
test_traffic_few_nodes(void)
{
  const guint switch_of[8] = {0, 0, 0, 0, 1, 1, 1, 1};
  const gboolean taken[8] = {TRUE, FALSE, FALSE, FALSE, FALSE, TRUE, FALSE, FALSE};
  g_autoptr(GArray) flows = lb_traffic_plan(switch_of, taken, 8, 8, 1);
  guint forth = 0, back = 0;
  for (guint i = 0; i < flows->len; i++) {
    const LbTrafficFlow *f = &g_array_index(flows, LbTrafficFlow, i);
    g_assert_false(taken[f->from] || taken[f->to]);
    forth += switch_of[f->from] == 0;
    back += switch_of[f->from] == 1;
  }
  g_assert_cmpuint(forth, ==, 3);
  g_assert_cmpuint(back, ==, 3);
  g_autoptr(GArray) none = lb_traffic_plan(switch_of, taken, 8, 0, 1);
  g_assert_cmpuint(none->len, ==, 0);
}

/* ---- background traffic: a message behind it ---- */

#define MESSAGE_BYTES 1e6
#define NODE_BW 12.5e6  /* 100 Mb/s */
#define UPLINK_BW 125e6 /* 1 Gb/s */
#define NEAR 100e-6     /* within an edge switch */
#define FAR 120e-6      /* between switches */
#define SENT_AT 1.0

typedef struct {
  const char *from, *to;
  double arrival;
} Message;

static void
message_sender(int argc, char *argv[])
{
  static int payload;
  const Message *m = sg_actor_self_get_data();
  sg_actor_sleep_until(SENT_AT);
  sg_mailbox_put(sg_mailbox_by_name(m->to), &payload, (long)MESSAGE_BYTES);
}

static void
message_receiver(int argc, char *argv[])
{
  Message *m = sg_actor_self_get_data();
  sg_mailbox_get(sg_mailbox_by_name(m->to));
  m->arrival = simgrid_get_clock();
}

/* `lbsim-platgen dual-cluster 16 16`: two edge switches of 16 nodes. The
 * run holds nodes 0 and 1 (n0 .. n3) on switch 0 and node 16 (n32, n33)
 * on switch 1; 5 flows asked. Switch 0: 5 of its free nodes send to switch
 * 1 and 5 receive from it; switch 1 likewise, from nodes not yet sending or
 * receiving: 10 flows each way across the two uplinks, each held by its
 * nodes' 100 Mb/s links, which fill a 1 Gb/s uplink exactly. A message of
 * the run from n0 to n32 then shares each uplink with 10 flows: 1 Gb/s /
 * 11 each, less than a node link, so it arrives after 120 us + S / (125
 * MB/s / 11) instead of S / 12.5 MB/s. One from n2 to n0, within switch 0,
 * touches no uplink and no node link of the flows: 100 us + S / 12.5 MB/s.
 * Without traffic (flows = 0) the first arrives after 120 us + S / 12.5
 * MB/s. */
static void
check_traffic_delay(guint flows)
{
  const char *platgen = g_getenv("LBSIM_PLATGEN");
  g_assert_nonnull(platgen);
  g_autoptr(GError) error = NULL;
  g_autofree char *dir = g_dir_make_tmp("lbsim-traffic-XXXXXX", &error);
  g_assert_no_error(error);
  g_autofree char *path = g_build_filename(dir, "dual.xml", NULL);
  const char *argv[] = {platgen, "dual-cluster", "16", "16", NULL};
  g_autofree char *xml = NULL;
  int status = 0;
  g_assert_true(g_spawn_sync(NULL, (char **)argv, NULL, G_SPAWN_DEFAULT, NULL, NULL, &xml, NULL,
                             &status, &error));
  g_assert_no_error(error);
  g_assert_true(g_spawn_check_wait_status(status, NULL));
  g_assert_true(g_file_set_contents(path, xml, -1, NULL));
  start_simgrid(path);
  g_remove(path);
  g_rmdir(dir);

  sg_host_t placed[] = {sg_host_by_name("n0"), sg_host_by_name("n2"), sg_host_by_name("n32")};
  LbScenario sc = {.file = "traffic.ini",
                   .platform = path,
                   .ranks = G_N_ELEMENTS(placed),
                   .placement_seed = 3,
                   .background_traffic = flows};
  g_autofree sg_host_t *ends = NULL;
  guint nflows = 0;
  g_assert_true(lb_traffic_hosts(&sc, placed, &ends, &nflows, &error));
  g_assert_no_error(error);
  g_assert_cmpuint(nflows, ==, 4 * flows);
  guint across[2] = {0, 0};
  for (guint i = 0; i < nflows; i++) {
    guint from = (guint)g_ascii_strtoull(sg_host_get_name(ends[2 * i]) + 1, NULL, 10);
    guint to = (guint)g_ascii_strtoull(sg_host_get_name(ends[2 * i + 1]) + 1, NULL, 10);
    /* the first processor of a node the run did not take, on the other switch */
    g_assert_cmpuint(from % 2, ==, 0);
    g_assert_cmpuint(to % 2, ==, 0);
    g_assert_cmpuint(from / 32, !=, to / 32);
    g_assert_true(from >= 4 && from != 32 && to >= 4 && to != 32);
    across[from / 32]++;
  }
  g_assert_cmpuint(across[0], ==, 2 * flows);
  g_assert_cmpuint(across[1], ==, 2 * flows);

  Message far = {"n0", "n32", 0}, near = {"n2", "n0", 0};
  Message *messages[] = {&far, &near};
  for (guint i = 0; i < G_N_ELEMENTS(messages); i++) {
    sg_actor_t sender = sg_actor_init("sender", sg_host_by_name(messages[i]->from));
    sg_actor_t receiver = sg_actor_init("receiver", sg_host_by_name(messages[i]->to));
    sg_actor_set_data(sender, messages[i]);
    sg_actor_set_data(receiver, messages[i]);
    sg_actor_start(sender, message_sender, 0, NULL);
    sg_actor_start(receiver, message_receiver, 0, NULL);
  }
  lb_traffic_start(ends, nflows);
  simgrid_run();
  double share = flows > 0 ? UPLINK_BW / (2 * flows + 1) : NODE_BW;
  g_test_message("%u flows each way: n0 -> n32 at %.9f s, n2 -> n0 at %.9f s", 2 * flows,
                 far.arrival, near.arrival);
  g_assert_cmpfloat_with_epsilon(far.arrival, SENT_AT + FAR + MESSAGE_BYTES / share, 1e-9);
  g_assert_cmpfloat_with_epsilon(near.arrival, SENT_AT + NEAR + MESSAGE_BYTES / NODE_BW, 1e-9);
  /* the flows are daemons: the simulation ends with the last message */
  g_assert_cmpfloat_with_epsilon(simgrid_get_clock(), far.arrival, 1e-9);
}

static void
check_traffic_five(void)
{
  check_traffic_delay(5);
}

static void
check_traffic_none(void)
{
  check_traffic_delay(0);
}

static void
test_traffic_delay(void)
{
  in_subprocess(check_traffic_five);
}

static void
test_traffic_none(void)
{
  in_subprocess(check_traffic_none);
}

/* ---- whole runs ---- */

/* 16 ranks, one unit of FLOPS each, no balancing: each step's compute time
 * is the slowest rank's. */
#define RUN_INI                                                                                    \
  "[scenario]\nplatform = hetero-cluster-16.xml\nranks = %u\nsteps = 2\n%s"                        \
  "[workload]\nsize = %u\npattern = uniform\nvalue = 1\nflops-per-unit = 1e9\n"                    \
  "[balancers]\nrun = none\n"

/* document, if not NULL, gets the JSON document of the run. */
static LbRunResult *
run(guint ranks, const char *background, const char *const *sets, int *code, char **message,
    char **document)
{
  g_autofree char *dir = g_dir_make_tmp("lbsim-background-XXXXXX", NULL);
  g_autofree char *path = g_build_filename(dir, "run.ini", NULL);
  g_autofree char *key =
      background != NULL ? g_strdup_printf("background = %s\n", background) : g_strdup("");
  g_autofree char *ini = g_strdup_printf(RUN_INI, ranks, key, ranks);
  g_assert_true(g_file_set_contents(path, ini, -1, NULL));
  g_autoptr(GError) error = NULL;
  LbScenarioOverrides ov = {.sets = sets};
  g_autoptr(LbScenario) sc = lb_scenario_load(path, &ov, &error);
  g_assert_no_error(error);
  LbRunnerOptions options = {.jobs = 1, .quiet = TRUE};
  g_autoptr(GPtrArray) results = NULL;
  gboolean ok = lb_runner_run(sc, NULL, &options, &results, code, &error);
  g_unlink(path);
  g_rmdir(dir);
  if (!ok) {
    *message = g_strdup(error->message);
    return NULL;
  }
  g_assert_no_error(error);
  g_assert_cmpuint(results->len, ==, 1);
  if (document != NULL)
    *document = lb_report_document(sc, results);
  return g_ptr_array_steal_index(results, 0);
}

static double
compute_time(const LbRunResult *r)
{
  double value = NAN;
  g_assert_true(lb_run_result_lookup(r, "compute-time", &value));
  return value;
}

static void
test_runs(void)
{
  int code = -1;
  g_autofree char *message = NULL, *plain_json = NULL, *loaded_json = NULL;

  g_autoptr(LbRunResult) plain = run(16, NULL, NULL, &code, &message, &plain_json);
  g_assert_cmpfloat_with_epsilon(compute_time(plain), 2 * FLOPS / SLOW, EPSILON);

  /* n0 keeps half its speed, the fast n9 a quarter of its own: the slowest */
  g_autoptr(LbRunResult) loaded = run(16, "n0:0.5, n9:0.25", NULL, &code, &message, &loaded_json);
  double slowest = MAX(FLOPS / (SLOW * 0.5), FLOPS / (FAST * 0.25));
  g_assert_cmpfloat_with_epsilon(compute_time(loaded), 2 * slowest, EPSILON);
  g_assert_cmpfloat(loaded->total_time, >, 2 * slowest);
  g_assert_cmpfloat(loaded->total_time, <, 2 * slowest + 0.1);
  /* the JSON names the load only when there is one */
  g_assert_nonnull(strstr(loaded_json, "\"background\": \"n0:0.5, n9:0.25\""));
  g_assert_null(strstr(plain_json, "\"background\":"));

  /* same scenario, same numbers */
  g_autoptr(LbRunResult) again = run(16, "n0:0.5, n9:0.25", NULL, &code, &message, NULL);
  g_assert_cmpfloat(again->total_time, ==, loaded->total_time);
  g_assert_cmpuint(again->simulated_messages, ==, loaded->simulated_messages);

  /* a load that is over before the first compute step changes nothing */
  g_autoptr(LbRunResult) early = run(16, "n0:0.01@0-1e-6", NULL, &code, &message, NULL);
  g_assert_cmpfloat(early->total_time, ==, plain->total_time);

  /* a host without a rank may be loaded; one not on the platform may not */
  g_autoptr(LbRunResult) idle = run(8, "n12:0.1", NULL, &code, &message, NULL);
  g_autoptr(LbRunResult) idle_plain = run(8, NULL, NULL, &code, &message, NULL);
  g_assert_cmpfloat(idle->total_time, ==, idle_plain->total_time);
  const char *const unknown[] = {"scenario.background=n3:0.5,n16:0.5", NULL};
  g_autoptr(LbRunResult) refused = run(16, NULL, unknown, &code, &message, NULL);
  g_assert_null(refused);
  g_assert_cmpint(code, ==, 2);
  g_test_message("%s", message);
  g_assert_nonnull(strstr(message, "run.ini: [scenario] background: no host 'n16' on platform"));

  /* traffic needs a platform that says its switches; the JSON names it */
  const char *const traffic[] = {"scenario.background-traffic=2", NULL};
  g_autoptr(LbRunResult) no_switches = run(16, NULL, traffic, &code, &message, NULL);
  g_assert_null(no_switches);
  g_assert_cmpint(code, ==, 2);
  g_test_message("%s", message);
  g_assert_nonnull(strstr(message, "run.ini: [scenario] background-traffic: platform "));
  g_assert_nonnull(strstr(message, "lbsim-switch-nodes"));
  const char *const dual[] = {"scenario.platform=dual-cluster-225-128.xml",
                              "scenario.background-traffic=2", NULL};
  g_autofree char *dual_json = NULL;
  g_autoptr(LbRunResult) on_dual = run(16, NULL, dual, &code, &message, &dual_json);
  g_assert_nonnull(on_dual);
  g_assert_nonnull(strstr(dual_json, "\"background_traffic\": 2"));
  g_assert_null(strstr(plain_json, "\"background_traffic\":"));
}

int
main(int argc, char *argv[])
{
  g_test_init(&argc, &argv, NULL);
  g_test_add_func("/background/simgrid/priority-sharing", test_priority_sharing);
  g_test_add_func("/background/loads", test_loads);
  g_test_add_func("/background/refusals", test_refusals);
  g_test_add_func("/background/runs", test_runs);
  g_test_add_func("/background/traffic/plan", test_traffic_plan);
  g_test_add_func("/background/traffic/few-nodes", test_traffic_few_nodes);
  g_test_add_func("/background/traffic/delay", test_traffic_delay);
  g_test_add_func("/background/traffic/none", test_traffic_none);
  return g_test_run();
}
