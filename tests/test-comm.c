/* The messaging layer, collectives, counters and invariant checks, driven
 * by test balancers inside real simulations (one process per simulation). */
#include <glib.h>
#include <glib/gstdio.h>
#include <string.h>
#include <sys/prctl.h>

#include "lbsim/run.h"
#include "lbsim/scenario.h"

static const LbParamSpec no_params[] = {{NULL}};
static const char *const one_phase[] = {"probe", NULL};

#define TAG_A 1
#define TAG_B 2

static void
probe_balance(LbRank *self, gpointer state)
{
  int id = lb_rank_id(self), p = lb_rank_count(self);
  lb_phase_begin(self, 0);

  guint64 sums[2] = {(guint64)id + 1, 1};
  lb_allreduce_sum_u64(self, sums, 2);
  g_assert_cmpuint(sums[0], ==, (guint64)p * (p + 1) / 2);
  g_assert_cmpuint(sums[1], ==, (guint64)p);

  double max = id;
  lb_allreduce_max_double(self, &max, 1);
  g_assert_cmpfloat(max, ==, p - 1);

  int root = 2 % p;
  guint64 value = id == root ? 4242 : 0;
  lb_bcast(self, root, &value, sizeof value);
  g_assert_cmpuint(value, ==, 4242);

  guint32 mine = (guint32)id * 3;
  g_autofree guint32 *all = g_new0(guint32, p);
  lb_allgather(self, &mine, sizeof mine, all);
  for (int r = 0; r < p; r++)
    g_assert_cmpuint(all[r], ==, (guint32)r * 3);

  if (p > 1) {
    /* Sent B then A, received A then B: the stash must hold B meanwhile. */
    int next = (id + 1) % p, prev = (id + p - 1) % p;
    int b = 100 + id, a = 200 + id;
    double before = lb_now();
    lb_send(self, next, TAG_B, &b, sizeof b, 1000);
    lb_send(self, next, TAG_A, &a, sizeof a, 10);
    g_autoptr(LbMsg) got_a = lb_recv(self, prev, TAG_A);
    g_autoptr(LbMsg) got_b = lb_recv(self, LB_ANY_SOURCE, TAG_B);
    g_assert_cmpint(*(int *)got_a->data, ==, 200 + prev);
    g_assert_cmpint(*(int *)got_b->data, ==, 100 + prev);
    g_assert_cmpint(got_b->src, ==, prev);
    g_assert_cmpfloat(got_b->sim_bytes, ==, 1000);
    lb_wait_sends(self);
    g_assert_cmpfloat(lb_now(), >, before); /* messages take simulated time */
  }
  lb_barrier(self);
}

static void
lose_one_balance(LbRank *self, gpointer state)
{
  if (lb_rank_id(self) == 1)
    g_array_remove_index(lb_rank_units(self), 0);
}

static void
duplicate_one_balance(LbRank *self, gpointer state)
{
  GArray *units = lb_rank_units(self);
  if (lb_rank_id(self) == 0 && units->len > 0) {
    LbUnit u = g_array_index(units, LbUnit, 0);
    u.load = 0; /* same total load: only the count and ids can tell */
    g_array_append_val(units, u);
  }
}

/* Rank 3 waits for a message nobody sends; the others then wait for it in
 * the core's barrier. */
static void
deadlock_balance(LbRank *self, gpointer state)
{
  if (lb_rank_id(self) == 3)
    lb_msg_free(lb_recv(self, 0, 77));
}

/* Ranks 0 and 1 swap their units without a message: count, load and ids
 * are conserved, but the order is broken. */
static void
swap_balance(LbRank *self, gpointer state)
{
  static GArray *stolen;
  if (lb_rank_id(self) == 0) {
    stolen = g_array_copy(lb_rank_units(self));
    lb_send(self, 1, 9, NULL, 0, 0);
    g_autoptr(LbMsg) m = lb_recv(self, 1, 9);
    GArray *mine = lb_rank_units(self);
    g_array_set_size(mine, 0);
    g_array_append_vals(mine, stolen->data, stolen->len);
    g_clear_pointer(&stolen, g_array_unref);
  } else if (lb_rank_id(self) == 1) {
    g_autoptr(LbMsg) m = lb_recv(self, 0, 9);
    GArray *mine = lb_rank_units(self);
    g_autoptr(GArray) keep = g_array_copy(mine);
    g_array_set_size(mine, 0);
    g_array_append_vals(mine, stolen->data, stolen->len);
    g_array_set_size(stolen, 0);
    g_array_append_vals(stolen, keep->data, keep->len);
    lb_send(self, 0, 9, NULL, 0, 0);
  }
}

static LbBalancer test_balancer = {
    .name = "probe",
    .summary = "test",
    .params = no_params,
    .phases = one_phase,
    .keeps_order = TRUE,
};

static LbRunResult *
run_on_cfg(const char *platform, void (*balance)(LbRank *, gpointer), guint ranks, guint steps,
           const char *const *cfg, GError **error)
{
  g_autofree char *dir = g_dir_make_tmp("lbsim-comm-XXXXXX", NULL);
  g_autofree char *path = g_build_filename(dir, "s.ini", NULL);
  g_autofree char *ini =
      g_strdup_printf("[scenario]\nplatform = %s\nranks = %u\nsteps = %u\n"
                      "[workload]\nsize = 100\npattern = random\n[balancers]\nrun = none\n",
                      platform, ranks, steps);
  g_assert_true(g_file_set_contents(path, ini, -1, NULL));
  LbScenario *sc = lb_scenario_load(path, NULL, error);
  g_unlink(path);
  g_rmdir(dir);
  g_assert_nonnull(sc);
  test_balancer.balance = balance;
  ((LbBalancerRun *)sc->runs->pdata[0])->balancer = &test_balancer;
  LbRunOptions options = {.cfg = cfg};
  return lb_run_simulate(sc, 0, &options, error);
}

static LbRunResult *
run_on(const char *platform, void (*balance)(LbRank *, gpointer), guint ranks, guint steps,
       GError **error)
{
  return run_on_cfg(platform, balance, ranks, steps, NULL, error);
}

static LbRunResult *
run_with(void (*balance)(LbRank *, gpointer), guint ranks, guint steps, GError **error)
{
  return run_on("hypercube-16.xml", balance, ranks, steps, error);
}

/* Huge pages are held off while the ranks' stacks are made (they would
 * make whole stacks resident); a big run allows them again while its
 * ranks run, a small one holds them off throughout; after the run the
 * process has them as before (a process that had them off keeps them
 * off). */
static int thp_disabled_in_run;

static void
thp_probe_balance(LbRank *self, gpointer state)
{
  (void)state;
  if (lb_rank_id(self) == 0)
    thp_disabled_in_run = prctl(PR_GET_THP_DISABLE, 0, 0, 0, 0);
}

typedef struct {
  const char *name;
  int before;
  guint ranks;
  int in_run;
} HugePagesCase;

static const HugePagesCase huge_pages_cases[] = {
    {"small", 0, 4, 1},
    {"small-off", 1, 4, 1},
    {"big", 0, 4096, 0},
};

static void
test_huge_pages(void)
{
  /* one simulation a process */
  for (guint i = 0; i < G_N_ELEMENTS(huge_pages_cases); i++) {
    g_autofree char *path =
        g_strdup_printf("/comm/huge-pages/subprocess/%s", huge_pages_cases[i].name);
    g_test_trap_subprocess(path, 0, G_TEST_SUBPROCESS_DEFAULT);
    g_test_trap_assert_passed();
  }
}

static void
huge_pages_child(gconstpointer data)
{
  const HugePagesCase *c = data;
  g_assert_cmpint(prctl(PR_SET_THP_DISABLE, c->before, 0, 0, 0), ==, 0);
  thp_disabled_in_run = -1;
  g_autoptr(GError) error = NULL;
  g_autofree char *platform = g_strdup_printf("hypercube-%u.xml", MAX(c->ranks, 16));
  g_autoptr(LbRunResult) res = run_on(platform, thp_probe_balance, c->ranks, 1, &error);
  g_assert_no_error(error);
  g_assert_cmpint(thp_disabled_in_run, ==, c->in_run);
  g_assert_cmpint(prctl(PR_GET_THP_DISABLE, 0, 0, 0, 0), ==, c->before);
}

/* Stacks without guard pages cost the pages their ranks touch, not their
 * size (core/stack.c): runs of 2048 ranks whose stacks differ by 96 KiB
 * a rank (192 MiB in all, were they cleared) hold about as much once
 * every rank has started (not with MALLOC_PERTURB_, which has glibc fill
 * every block). Each run writes what it holds to the file that
 * LBSIM_TEST_RSS_FILE names. */
static guint64 rss_in_run_kib;

static guint64
current_rss_kib(void)
{
  g_autofree char *status = NULL;
  g_assert_true(g_file_get_contents("/proc/self/status", &status, NULL, NULL));
  const char *line = strstr(status, "VmRSS:");
  g_assert_nonnull(line);
  return g_ascii_strtoull(line + strlen("VmRSS:"), NULL, 10);
}

static void
rss_probe_balance(LbRank *self, gpointer state)
{
  (void)state;
  if (lb_rank_id(self) == 0)
    rss_in_run_kib = current_rss_kib();
}

static guint64
unzeroed_stacks_run(guint stack_kib)
{
  g_autofree char *dir = g_dir_make_tmp("lbsim-comm-XXXXXX", NULL);
  g_autofree char *file = g_build_filename(dir, "rss", NULL);
  g_setenv("LBSIM_TEST_RSS_FILE", file, TRUE);
  /* meson's: glibc would fill every block it hands out */
  g_unsetenv("MALLOC_PERTURB_");
  g_autofree char *path = g_strdup_printf("/comm/unzeroed-stacks/subprocess/%u", stack_kib);
  g_test_trap_subprocess(path, 0, G_TEST_SUBPROCESS_DEFAULT);
  g_test_trap_assert_passed();
  g_autofree char *text = NULL;
  g_assert_true(g_file_get_contents(file, &text, NULL, NULL));
  g_unlink(file);
  g_rmdir(dir);
  return g_ascii_strtoull(text, NULL, 10);
}

static void
test_unzeroed_stacks(void)
{
  if (g_getenv("LBSIM_SANITIZED") != NULL) {
    g_test_skip("a sanitizer's runtime keeps its own calloc, which lbsim leaves alone");
    return;
  }
  guint64 small = unzeroed_stacks_run(16), large = unzeroed_stacks_run(112);
  g_test_message("resident with 16 KiB stacks: %" G_GUINT64_FORMAT
                 " KiB, with 112 KiB: %" G_GUINT64_FORMAT " KiB",
                 small, large);
  g_assert_cmpuint(large, <, small + 24 * 1024);
}

static void
unzeroed_stacks_child(gconstpointer data)
{
  g_autofree char *stack = g_strdup_printf("contexts/stack-size:%u", GPOINTER_TO_UINT(data));
  const char *const cfg[] = {"contexts/guard-size:0", stack, NULL};
  g_autoptr(GError) error = NULL;
  g_autoptr(LbRunResult) res =
      run_on_cfg("hypercube-2048.xml", rss_probe_balance, 2048, 1, cfg, &error);
  g_assert_no_error(error);
  g_assert_cmpuint(rss_in_run_kib, >, 0);
  g_autofree char *text = g_strdup_printf("%" G_GUINT64_FORMAT, rss_in_run_kib);
  g_assert_true(g_file_set_contents(g_getenv("LBSIM_TEST_RSS_FILE"), text, -1, NULL));
}

static void
collectives_case(guint p)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(LbRunResult) res = run_with(probe_balance, p, 2, &error);
  g_assert_no_error(error);
  /* Per step: allreduce 2(p-1) twice, bcast p-1, allgather 2(p-1), the
   * ring 2p, barrier 2(p-1). */
  guint64 per_step = 9 * (guint64)(p - 1) + (p > 1 ? 2 * (guint64)p : 0);
  g_assert_cmpuint(res->phases[0].messages, ==, 2 * per_step);
  g_assert_cmpuint(res->messages, ==, 2 * per_step);
  g_assert_cmpfloat(res->total_time, >, 0);
}

static void
test_collectives(void)
{
  static const guint sizes[] = {1, 2, 5, 7, 16};
  for (guint i = 0; i < G_N_ELEMENTS(sizes); i++) {
    g_autofree char *path = g_strdup_printf("/comm/collectives/subprocess/%u", sizes[i]);
    g_test_trap_subprocess(path, 0, G_TEST_SUBPROCESS_DEFAULT);
    g_test_trap_assert_passed();
  }
}

static void
collectives_child(gconstpointer data)
{
  collectives_case(GPOINTER_TO_UINT(data));
}

static void
invariant_child(gconstpointer data)
{
  void (*balance)(LbRank *, gpointer) = (void (*)(LbRank *, gpointer))data;
  g_autoptr(GError) error = NULL;
  g_autoptr(LbRunResult) res = run_with(balance, 4, 3, &error);
  g_assert_null(res);
  g_assert_error(error, LB_RUN_ERROR, LB_RUN_ERROR_INVARIANT);
  g_print("%s\n", error->message);
}

/* A balancer that keeps an order of its own (here: ids backwards) and
 * moves nothing breaks the range property on blocks in id order; with the
 * ids' own order, nothing is wrong. */
static guint64
backwards_key(const LbWork *work, const LbParams *params, guint64 id)
{
  return 1000 - id;
}

static guint64
forward_key(const LbWork *work, const LbParams *params, guint64 id)
{
  return 7 * id;
}

static void
idle_balance(LbRank *self, gpointer state)
{
}

static void
range_child(gconstpointer data)
{
  test_balancer.keeps_order = FALSE;
  test_balancer.order_key = data;
  g_autoptr(GError) error = NULL;
  g_autoptr(LbRunResult) res = run_with(idle_balance, 4, 2, &error);
  if (data == (gconstpointer)forward_key) {
    g_assert_no_error(error);
    g_print("range kept\n");
    return;
  }
  g_assert_null(res);
  g_assert_error(error, LB_RUN_ERROR, LB_RUN_ERROR_INVARIANT);
  g_print("%s\n", error->message);
}

static void
test_invariants(void)
{
  g_test_trap_subprocess("/comm/invariants/subprocess/range-broken", 0, G_TEST_SUBPROCESS_DEFAULT);
  g_test_trap_assert_passed();
  g_test_trap_assert_stdout("*range property violated by 'probe' at adaptation step 0: rank 1's "
                            "segment starts at key 951, not after rank 0's, which ends at 1000*");
  g_test_trap_subprocess("/comm/invariants/subprocess/range-kept", 0, G_TEST_SUBPROCESS_DEFAULT);
  g_test_trap_assert_passed();
  g_test_trap_assert_stdout("*range kept*");
  g_test_trap_subprocess("/comm/invariants/subprocess/lose", 0, G_TEST_SUBPROCESS_DEFAULT);
  g_test_trap_assert_passed();
  g_test_trap_assert_stdout("*conservation violated by 'probe' at adaptation step 0: 99 units "
                            "(expected 100)*");
  g_test_trap_subprocess("/comm/invariants/subprocess/duplicate", 0, G_TEST_SUBPROCESS_DEFAULT);
  g_test_trap_assert_passed();
  g_test_trap_assert_stdout("*conservation violated*101 units (expected 100)*");
  g_test_trap_subprocess("/comm/invariants/subprocess/swap", 0, G_TEST_SUBPROCESS_DEFAULT);
  g_test_trap_assert_passed();
  g_test_trap_assert_stdout("*order violated by 'probe' at adaptation step 0: rank 0 holds ids 25 "
                            ".. 49*");
  g_test_trap_subprocess("/comm/invariants/subprocess/deadlock", 0, G_TEST_SUBPROCESS_DEFAULT);
  g_test_trap_assert_passed();
  g_test_trap_assert_stdout("*'probe' deadlocked: 4 of 4 ranks never finished*");
}

/* The hypercube platforms' nodes run 10 Mflop/s; their messages cost 75 us
 * per hop plus size / 2.8 MB/s (CM02), so a second of computation dwarfs any
 * latency and orders events without doubt. */
#define SPEED 1e7
#define LATE 0.01 /* more than any small message takes on these platforms */

static void
assert_msg(const LbMsg *msg, int src, int tag, const char *text)
{
  g_assert_nonnull(msg);
  g_assert_cmpint(msg->src, ==, src);
  g_assert_cmpint(msg->tag, ==, tag);
  g_assert_cmpmem(msg->data, msg->len, text, strlen(text) + 1);
}

static void
send_text(LbRank *self, int dst, int tag, const char *text)
{
  lb_send(self, dst, tag, text, strlen(text) + 1, 64);
}

static void
assert_time(double t, double from, double to)
{
  g_assert_cmpfloat(t, >=, from);
  g_assert_cmpfloat(t, <=, to);
}

/* Rank 1 is in an allreduce, whose message to rank 0 comes first; rank 3
 * and then rank 2 send user messages later. Wildcard receives must take
 * those, in arrival order, and leave the collective's message alone. */
static void
any_tag_balance(LbRank *self, gpointer state)
{
  int id = lb_rank_id(self);
  double t0 = lb_now();
  if (id == 0) {
    g_autoptr(LbMsg) first = lb_recv(self, 2, LB_ANY_TAG);
    assert_msg(first, 2, 7, "seven");
    g_assert_cmpfloat(lb_now() - t0, >=, 1.0);
    g_autoptr(LbMsg) second = lb_recv(self, LB_ANY_SOURCE, LB_ANY_TAG);
    assert_msg(second, 3, 9, "nine");
    g_autoptr(LbMsg) third = lb_recv(self, LB_ANY_SOURCE, LB_ANY_TAG);
    assert_msg(third, 2, 5, "five");
  } else if (id == 2) {
    lb_execute(self, 1.0 * SPEED);
    send_text(self, 0, 7, "seven");
    send_text(self, 0, 5, "five");
  } else if (id == 3) {
    lb_execute(self, 0.5 * SPEED);
    send_text(self, 0, 9, "nine");
  }
  guint64 sum = (guint64)id + 1;
  lb_allreduce_sum_u64(self, &sum, 1);
  g_assert_cmpuint(sum, ==, 10);
}

/* A long stash (indexed past 32 messages): ranks 1 to 3 send 40 messages
 * each to rank 0, tags cycling 1, 2, 3, then rank 3 one of tag 99, which
 * rank 0 receives first, after a long computation, so that the others wait
 * in the stash. Then every kind of receive in turn: each must take the
 * first message it matches in arrival order, which for one sender is its
 * sending order: the next of that sender (and tag) not yet received. */
#define STASHED_EACH 40

static void
long_stash_balance(LbRank *self, gpointer state)
{
  int id = lb_rank_id(self);
  if (id == 0) {
    lb_execute(self, 10.0 * SPEED);
    g_autoptr(LbMsg) last = lb_recv(self, 3, 99);
    guint next[4] = {0}, next_tag[4][4] = {{0}}, received = 0;
    gboolean taken[4][STASHED_EACH] = {{FALSE}};
    for (guint k = 0; received < 3 * STASHED_EACH; k++) {
      int src = 1 + (int)(k % 3), tag = 1 + (int)(k / 3 % 3);
      int want_src = k % 4 == 0 || k % 4 == 1 ? src : LB_ANY_SOURCE;
      int want_tag = k % 4 == 0 || k % 4 == 2 ? tag : LB_ANY_TAG;
      /* a receive that nothing left matches would wait for ever: ask
       * with a wildcard then */
      if (want_src != LB_ANY_SOURCE && want_tag != LB_ANY_TAG &&
          next_tag[src][tag] * 3 + (guint)tag - 1 >= STASHED_EACH)
        want_tag = LB_ANY_TAG;
      if (want_src != LB_ANY_SOURCE && next[want_src] >= STASHED_EACH)
        want_src = LB_ANY_SOURCE;
      gboolean left = FALSE; /* of that tag, from any sender */
      for (guint r = 1; r <= 3 && want_tag != LB_ANY_TAG; r++)
        left |= next_tag[r][want_tag] * 3 + (guint)want_tag - 1 < STASHED_EACH;
      if (want_tag != LB_ANY_TAG && !left)
        want_tag = LB_ANY_TAG;
      g_autoptr(LbMsg) m = lb_recv(self, want_src, want_tag);
      g_assert_cmpint(m->len, ==, sizeof(guint));
      guint i = *(const guint *)m->data;
      int from = m->src;
      g_assert_cmpint(m->tag, ==, 1 + (int)(i % 3));
      g_assert_false(taken[from][i]);
      taken[from][i] = TRUE;
      /* the first of its sender's not yet taken that the receive matches */
      for (guint j = 0; j < i; j++)
        if (!taken[from][j])
          g_assert_true(want_tag != LB_ANY_TAG && (int)(j % 3) + 1 != want_tag);
      while (next[from] < STASHED_EACH && taken[from][next[from]])
        next[from]++;
      while (next_tag[from][m->tag] * 3 + (guint)m->tag - 1 < STASHED_EACH &&
             taken[from][next_tag[from][m->tag] * 3 + (guint)m->tag - 1])
        next_tag[from][m->tag]++;
      received++;
    }
  } else {
    for (guint i = 0; i < STASHED_EACH; i++)
      lb_send(self, 0, 1 + (int)(i % 3), &i, sizeof i, 64);
    if (id == 3)
      lb_send(self, 0, 99, NULL, 0, 64);
    lb_wait_sends(self);
  }
}

/* Probes report without taking; iprobe neither blocks nor advances time. */
static void
probe_msg_balance(LbRank *self, gpointer state)
{
  int id = lb_rank_id(self);
  double t0 = lb_now();
  LbStatus st = {-2, -2, 0};
  if (id == 0) {
    g_assert_false(lb_iprobe(self, LB_ANY_SOURCE, LB_ANY_TAG, &st));
    g_assert_cmpfloat(lb_now(), ==, t0);
    lb_probe(self, 1, 6, &st);
    g_assert_cmpint(st.src, ==, 1);
    g_assert_cmpint(st.tag, ==, 6);
    g_assert_cmpuint(st.len, ==, 4);
    g_assert_cmpfloat(lb_now() - t0, >=, 1.0);
    double t1 = lb_now();
    /* The tag 4 message came first and is still there, and so is tag 6. */
    g_assert_true(lb_iprobe(self, LB_ANY_SOURCE, LB_ANY_TAG, &st));
    g_assert_cmpint(st.tag, ==, 4);
    g_assert_cmpuint(st.len, ==, 12);
    g_assert_true(lb_iprobe(self, 1, 6, NULL));
    g_assert_cmpfloat(lb_now(), ==, t1);
    g_autoptr(LbMsg) four = lb_recv(self, LB_ANY_SOURCE, LB_ANY_TAG);
    assert_msg(four, 1, 4, "hello probe");
    g_autoptr(LbMsg) six = lb_recv(self, 1, 6);
    assert_msg(six, 1, 6, "six");
    g_assert_false(lb_iprobe(self, LB_ANY_SOURCE, LB_ANY_TAG, &st));

    /* A reply that arrives while rank 0 computes is there at once after. */
    send_text(self, 1, 8, "ping");
    g_assert_false(lb_iprobe(self, 1, 10, &st));
    lb_execute(self, 0.5 * SPEED);
    double t2 = lb_now();
    g_assert_true(lb_iprobe(self, 1, 10, &st));
    g_assert_cmpfloat(lb_now(), ==, t2);
    g_assert_cmpuint(st.len, ==, 5);
    g_autoptr(LbMsg) pong = lb_recv(self, 1, 10);
    assert_msg(pong, 1, 10, "pong");
    g_assert_cmpfloat(lb_now(), ==, t2);
  } else if (id == 1) {
    lb_execute(self, 1.0 * SPEED);
    send_text(self, 0, 4, "hello probe");
    send_text(self, 0, 6, "six");
    g_autoptr(LbMsg) ping = lb_recv(self, 0, 8);
    send_text(self, 0, 10, "pong");
  }
  lb_barrier(self);

  /* Three messages of 10 ms each wait while rank 0 computes; the probe
   * after starts all three transfers, so 0.1 s later all are there. */
  if (id == 0) {
    lb_execute(self, 0.5 * SPEED);
    g_assert_false(lb_iprobe(self, LB_ANY_SOURCE, 30, &st));
    lb_execute(self, 0.1 * SPEED);
    double t3 = lb_now();
    int seen = 0;
    while (lb_iprobe(self, LB_ANY_SOURCE, 30, &st)) {
      g_autoptr(LbMsg) burst = lb_recv(self, st.src, 30);
      seen |= 1 << burst->src;
    }
    g_assert_cmpint(seen, ==, 2 | 4 | 8);
    g_assert_cmpfloat(lb_now(), ==, t3);
  } else {
    lb_send(self, 0, 30, NULL, 0, 28000);
  }
  lb_wait_sends(self);
  lb_barrier(self);

  /* A message of about 0.5 s in flight is not there 0.1 s in, and is
   * there, whole, 0.6 s later: a probe with a message under way still
   * looks, and its transfer ran while rank 0 computed. */
  if (id == 0) {
    lb_execute(self, 0.1 * SPEED);
    g_assert_false(lb_iprobe(self, LB_ANY_SOURCE, LB_ANY_TAG, &st));
    lb_execute(self, 0.6 * SPEED);
    double t4 = lb_now();
    g_assert_true(lb_iprobe(self, 2, 31, &st));
    g_assert_cmpfloat(lb_now(), ==, t4);
    g_autoptr(LbMsg) late = lb_recv(self, 2, 31);
    g_assert_cmpfloat(lb_now(), ==, t4);
    g_assert_false(lb_iprobe(self, LB_ANY_SOURCE, LB_ANY_TAG, &st));
  } else if (id == 2) {
    lb_send(self, 0, 31, NULL, 0, 28000 * 50);
  }
  lb_wait_sends(self);
  lb_barrier(self);
}

/* Five messages reach rank 0 at 1, 2, 3, 4 and 5 s while it holds four
 * requests: each goes to the first request posted that matches it. */
static void
irecv_balance(LbRank *self, gpointer state)
{
  int id = lb_rank_id(self);
  double t0 = lb_now();
  if (id == 0) {
    LbRequest *r1 = lb_irecv(self, LB_ANY_SOURCE, 1);
    LbRequest *r2 = lb_irecv(self, 2, LB_ANY_TAG);
    LbRequest *r3 = lb_irecv(self, LB_ANY_SOURCE, LB_ANY_TAG);
    LbRequest *r4 = lb_irecv(self, 1, 1);
    LbMsg *msg = NULL;
    g_assert_false(lb_test(self, r1, &msg));
    g_assert_null(msg);
    LbRequest *reqs[] = {r4, r3, r2, r1};
    g_assert_cmpint(lb_wait_any(self, reqs, 4, &msg), ==, 3);
    assert_msg(msg, 1, 1, "1a");
    assert_time(lb_now() - t0, 1.0, 1.0 + LATE);
    g_clear_pointer(&msg, lb_msg_free);
    g_clear_pointer(&reqs[3], lb_request_free);

    g_autoptr(LbMsg) b = lb_wait(self, r2);
    assert_msg(b, 2, 5, "2b");
    assert_time(lb_now() - t0, 2.0, 2.0 + LATE);
    /* r2 was waited for: wait_any skips it as it skips NULL. */
    g_assert_cmpint(lb_wait_any(self, reqs, 4, &msg), ==, 1);
    assert_msg(msg, 1, 1, "1c");
    assert_time(lb_now() - t0, 3.0, 3.0 + LATE);
    g_clear_pointer(&msg, lb_msg_free);

    /* "3d" (4 s) matches no request and waits in the stash, where a
     * request posted later finds it at once. */
    lb_execute(self, 6.0 * SPEED - (lb_now() - t0) * SPEED);
    g_assert_false(lb_test(self, r4, &msg));
    g_autoptr(LbRequest) r5 = lb_irecv(self, 3, 7);
    double t6 = lb_now();
    g_assert_true(lb_test(self, r5, &msg));
    g_assert_cmpfloat(lb_now(), ==, t6);
    assert_msg(msg, 3, 7, "3d");
    g_clear_pointer(&msg, lb_msg_free);
    g_autoptr(LbMsg) e = lb_wait(self, r4);
    assert_msg(e, 1, 1, "1e");
    assert_time(lb_now() - t0, 6.0, 6.0 + LATE);

    /* Freeing a pending request cancels it: "3f" (7 s) goes elsewhere. */
    LbRequest *dropped = lb_irecv(self, 3, 12);
    lb_request_free(dropped);
    g_autoptr(LbMsg) f = lb_recv(self, 3, 12);
    assert_msg(f, 3, 12, "3f");
    assert_time(lb_now() - t0, 7.0, 7.0 + LATE);
    lb_request_free(r2);
    lb_request_free(r3);
    lb_request_free(r4);
  } else if (id == 1) {
    lb_execute(self, 1.0 * SPEED);
    send_text(self, 0, 1, "1a");
    lb_execute(self, 2.0 * SPEED);
    send_text(self, 0, 1, "1c");
    lb_execute(self, 2.0 * SPEED);
    send_text(self, 0, 1, "1e");
  } else if (id == 2) {
    lb_execute(self, 2.0 * SPEED);
    send_text(self, 0, 5, "2b");
  } else if (id == 3) {
    lb_execute(self, 4.0 * SPEED);
    send_text(self, 0, 7, "3d");
    lb_execute(self, 3.0 * SPEED);
    send_text(self, 0, 12, "3f");
  }
  lb_barrier(self);
}

#define BIG_BYTES 2.8e6 /* one second on a hypercube channel */

static void
timeout_balance(LbRank *self, gpointer state)
{
  int id = lb_rank_id(self);
  double t0 = lb_now();
  if (id == 0) {
    g_assert_null(lb_recv_timeout(self, 1, 3, 1.0));
    assert_time(lb_now() - t0, 1.0 - 1e-9, 1.0 + 1e-9);
    g_autoptr(LbMsg) in_time = lb_recv_timeout(self, 1, 3, 5.0);
    assert_msg(in_time, 1, 3, "in time");
    assert_time(lb_now() - t0, 2.0, 2.0 + LATE);

    /* Sent at 4 s, after this receive gave up: the next receive has it,
     * and without waiting since it arrived during the computation. */
    double t1 = lb_now();
    g_assert_null(lb_recv_timeout(self, 1, 4, 0.5));
    assert_time(lb_now() - t1, 0.5 - 1e-9, 0.5 + 1e-9);
    lb_execute(self, (5.0 - (lb_now() - t0)) * SPEED);
    double t5 = lb_now();
    g_autoptr(LbMsg) late = lb_recv(self, 1, 4);
    assert_msg(late, 1, 4, "late");
    g_assert_cmpfloat(lb_now(), ==, t5);

    /* Sent at 7 s and one second on the wire: the timeout at 7.5 s fires
     * in the middle of its transfer, which must go on. */
    g_assert_null(lb_recv_timeout(self, 1, 5, 7.5 - (lb_now() - t0)));
    assert_time(lb_now() - t0, 7.5 - 1e-9, 7.5 + 1e-9);
    g_autoptr(LbMsg) big = lb_recv(self, 1, 5);
    assert_msg(big, 1, 5, "big");
    g_assert_cmpfloat(big->sim_bytes, ==, BIG_BYTES);
    assert_time(lb_now() - t0, 8.0, 8.0 + LATE);

    /* A message that arrives but does not match does not end the wait. */
    double t8 = lb_now();
    g_assert_null(lb_recv_timeout(self, 2, 12, 2.0));
    assert_time(lb_now() - t8, 2.0 - 1e-9, 2.0 + 1e-9);
    double t10 = lb_now();
    g_autoptr(LbMsg) eleven = lb_recv_timeout(self, LB_ANY_SOURCE, LB_ANY_TAG, 0);
    assert_msg(eleven, 2, 11, "eleven");
    g_assert_null(lb_recv_timeout(self, LB_ANY_SOURCE, LB_ANY_TAG, 0));
    g_assert_cmpfloat(lb_now(), ==, t10);
  } else if (id == 1) {
    lb_execute(self, 2.0 * SPEED);
    send_text(self, 0, 3, "in time");
    lb_execute(self, 2.0 * SPEED);
    send_text(self, 0, 4, "late");
    lb_execute(self, 3.0 * SPEED);
    lb_send(self, 0, 5, "big", 4, BIG_BYTES);
  } else if (id == 2) {
    lb_execute(self, 9.0 * SPEED);
    send_text(self, 0, 11, "eleven");
  }
  lb_wait_sends(self);
  lb_barrier(self);
}

#define TAG_REQUEST 20
#define TAG_REPLY 21

typedef struct {
  guint calls, answered, stop_after;
} SliceState;

static gboolean
answer_between_cb(LbRank *self, gpointer data)
{
  SliceState *state = data;
  state->calls++;
  if (lb_iprobe(self, 1, TAG_REQUEST, NULL)) {
    g_autoptr(LbMsg) req = lb_recv(self, 1, TAG_REQUEST);
    double now = lb_now();
    lb_send(self, 1, TAG_REPLY, &now, sizeof now, 64);
    state->answered++;
  }
  return state->stop_after == 0 || state->calls < state->stop_after;
}

/* Rank 0 computes 1 s in slices of 0.1 s and answers between slices: the
 * request sent at 0.25 s is answered at 0.3 s, not after the 1 s. */
static void
sliced_balance(LbRank *self, gpointer unused)
{
  int id = lb_rank_id(self);
  double t0 = lb_now();
  if (id == 0) {
    SliceState state = {0};
    double done = lb_execute_sliced(self, 1.0 * SPEED, 0.1 * SPEED, answer_between_cb, &state);
    g_assert_cmpfloat(done, ==, 1.0 * SPEED);
    g_assert_cmpuint(state.calls, ==, 10);
    g_assert_cmpuint(state.answered, ==, 1);
    assert_time(lb_now() - t0, 1.0 - 1e-9, 1.0 + 1e-9);

    /* Stopped by the callback after the third slice; an uneven end. */
    SliceState stop = {.stop_after = 3};
    double t1 = lb_now();
    done = lb_execute_sliced(self, 1.0 * SPEED, 0.1 * SPEED, answer_between_cb, &stop);
    g_assert_cmpfloat(done, ==, 0.3 * SPEED);
    g_assert_cmpuint(stop.calls, ==, 3);
    assert_time(lb_now() - t1, 0.3 - 1e-9, 0.3 + 1e-9);
    done = lb_execute_sliced(self, 0.25 * SPEED, 0.1 * SPEED, NULL, NULL);
    g_assert_cmpfloat(done, ==, 0.25 * SPEED);
    assert_time(lb_now() - t1, 0.55 - 1e-9, 0.55 + 1e-9);
    g_assert_cmpfloat(lb_execute_sliced(self, 0, 0.1 * SPEED, answer_between_cb, &stop), ==, 0);
    g_assert_cmpuint(stop.calls, ==, 3);
  } else if (id == 1) {
    lb_execute(self, 0.25 * SPEED);
    lb_send(self, 0, TAG_REQUEST, NULL, 0, 64);
    g_autoptr(LbMsg) reply = lb_recv(self, 0, TAG_REPLY);
    double answered;
    memcpy(&answered, reply->data, sizeof answered);
    assert_time(answered - t0, 0.3 - LATE, 0.3 + LATE);
    assert_time(lb_now() - t0, 0.3, 0.3 + LATE);
  }
  lb_wait_sends(self);
  lb_barrier(self);
}

static guint8
pattern_byte(int r, gsize i)
{
  return (guint8)(r * 31 + (int)i * 7 + 3);
}

static gsize
uneven_len(int r)
{
  return r == 0 || r == 4 ? 0 : (gsize)r * 100 + 1;
}

static void
bcastv_allgatherv_balance(LbRank *self, gpointer state)
{
  int id = lb_rank_id(self), p = lb_rank_count(self);
  lb_phase_begin(self, 0);

  g_autofree guint8 *big = g_malloc(5000);
  for (gsize i = 0; i < 5000; i++)
    big[i] = pattern_byte(3, i);
  gsize len = 1;
  g_autofree guint8 *got = lb_bcastv(self, 3, id == 3 ? big : NULL, id == 3 ? 5000 : 0, &len);
  g_assert_cmpmem(got, len, big, 5000);
  g_autofree guint8 *none = lb_bcastv(self, p - 2, NULL, 0, &len);
  g_assert_nonnull(none);
  g_assert_cmpuint(len, ==, 0);

  g_autofree guint8 *mine = g_malloc(uneven_len(id) + 1);
  for (gsize i = 0; i < uneven_len(id); i++)
    mine[i] = pattern_byte(id, i);
  g_autofree gsize *offsets = g_new(gsize, p + 1);
  g_autofree guint8 *all = lb_allgatherv(self, mine, uneven_len(id), offsets);
  g_assert_cmpuint(offsets[0], ==, 0);
  for (int r = 0; r < p; r++) {
    g_assert_cmpuint(offsets[r + 1] - offsets[r], ==, uneven_len(r));
    for (gsize i = 0; i < uneven_len(r); i++)
      g_assert_cmpuint(all[offsets[r] + i], ==, pattern_byte(r, i));
  }
  g_autofree guint8 *empty = lb_allgatherv(self, NULL, 0, offsets);
  for (int r = 0; r <= p; r++)
    g_assert_cmpuint(offsets[r], ==, 0);
}

/* What the binomial trees must send for the above: every message carries
 * its real size (allgatherv: a guint64 length per block, then the blocks). */
static double
bcastv_allgatherv_bytes(int p)
{
  double bytes = (p - 1) * 5000.0, total = 0;
  for (int r = 0; r < p; r++)
    total += (double)uneven_len(r);
  for (int v = 1; v < p; v++) {
    int low = v & -v;
    for (int r = v; r < MIN(v + low, p); r++)
      bytes += 8.0 + (double)uneven_len(r) + 8.0; /* twice: the empty round too */
  }
  return bytes + (p - 1) * (8.0 * p + total) + (p - 1) * 8.0 * p;
}

/* The bytes of one allgatherv of uneven_len(r) from each rank r (or of
 * none): up the tree, each message the lengths of its blocks and their
 * bytes; down, p - 1 messages of the p lengths and every block. */
static double
allgatherv_bytes(int p, gboolean empty)
{
  double bytes = 0, total = 0;
  for (int r = 0; r < p && !empty; r++)
    total += (double)uneven_len(r);
  for (int v = 1; v < p; v++) {
    int low = v & -v;
    for (int r = v; r < MIN(v + low, p); r++)
      bytes += 8.0 + (empty ? 0.0 : (double)uneven_len(r));
  }
  return bytes + (p - 1) * (8.0 * p + total);
}

/* The shared allgatherv: the same blocks as lb_allgatherv, one block of
 * memory for all ranks, and the same messages and bytes on the network. */
static const guint8 *shared_seen;
static const gsize *shared_offsets_seen;

static void
allgatherv_shared_balance(LbRank *self, gpointer state)
{
  int id = lb_rank_id(self), p = lb_rank_count(self);
  lb_phase_begin(self, 0);
  g_autofree guint8 *mine = g_malloc(uneven_len(id) + 1);
  for (gsize i = 0; i < uneven_len(id); i++)
    mine[i] = pattern_byte(id, i);
  g_autofree gsize *offsets = g_new(gsize, p + 1);
  g_autoptr(GBytes) all = lb_allgatherv_shared(self, mine, uneven_len(id), offsets);
  gsize size = 0;
  const guint8 *data = g_bytes_get_data(all, &size);
  g_assert_cmpuint(size, ==, offsets[p]);
  for (int r = 0; r < p; r++) {
    g_assert_cmpuint(offsets[r + 1] - offsets[r], ==, uneven_len(r));
    for (gsize i = 0; i < uneven_len(r); i++)
      g_assert_cmpuint(data[offsets[r] + i], ==, pattern_byte(r, i));
  }
  if (shared_seen == NULL)
    shared_seen = data;
  g_assert_true(data == shared_seen);
  g_autoptr(GBytes) empty = lb_allgatherv_shared(self, NULL, 0, offsets);
  g_assert_cmpuint(g_bytes_get_size(empty), ==, 0);
  for (int r = 0; r <= p; r++)
    g_assert_cmpuint(offsets[r], ==, 0);
  /* the offsets held once: the same numbers, one array for all ranks */
  const gsize *held = NULL;
  g_autoptr(GBytes) again = lb_allgatherv_shared_offsets(self, mine, uneven_len(id), &held);
  data = g_bytes_get_data(again, &size);
  g_assert_cmpuint(size, ==, held[p]);
  for (int r = 0; r < p; r++) {
    g_assert_cmpuint(held[r + 1] - held[r], ==, uneven_len(r));
    for (gsize i = 0; i < uneven_len(r); i++)
      g_assert_cmpuint(data[held[r] + i], ==, pattern_byte(r, i));
  }
  if (shared_offsets_seen == NULL)
    shared_offsets_seen = held;
  g_assert_true(held == shared_offsets_seen);
}

static void
check_allgatherv_shared(const LbRunResult *res)
{
  /* three allgathers of p - 1 messages up and p - 1 down; the bytes of the
   * bcastv test less its two broadcasts of 5000 and 0 bytes, and the first
   * allgather's again (the offsets held once are not charged) */
  g_assert_cmpuint(res->phases[0].messages, ==, 6 * (7 - 1));
  g_assert_cmpfloat(bcastv_allgatherv_bytes(7) - 6 * 5000.0, ==,
                    allgatherv_bytes(7, FALSE) + allgatherv_bytes(7, TRUE));
  g_assert_cmpfloat(res->phases[0].bytes, ==,
                    2 * allgatherv_bytes(7, FALSE) + allgatherv_bytes(7, TRUE));
}

/* The shared allgather: the same bytes as lb_allgather, one block of
 * memory for all ranks, and the same messages and bytes on the network. */
static const guint8 *gathered_seen;

static void
allgather_shared_balance(LbRank *self, gpointer state)
{
  int id = lb_rank_id(self), p = lb_rank_count(self);
  lb_phase_begin(self, 0);
  guint32 mine[3] = {(guint32)id, (guint32)(id * id), 7};
  g_autofree guint32 *plain = g_new(guint32, 3 * (gsize)p);
  lb_allgather(self, mine, sizeof mine, plain);
  for (int r = 0; r < p; r++)
    g_assert_cmpuint(plain[3 * r + 1], ==, (guint32)(r * r));
  g_autoptr(GBytes) shared = lb_allgather_shared(self, mine, sizeof mine);
  gsize size = 0;
  const guint8 *data = g_bytes_get_data(shared, &size);
  g_assert_cmpmem(data, size, plain, 3 * (gsize)p * sizeof(guint32));
  if (gathered_seen == NULL)
    gathered_seen = data;
  g_assert_true(data == gathered_seen);
}

/* Each of the two allgathers: p - 1 messages up the binomial tree, each
 * member's subtree's blocks, and p - 1 of all p blocks down. */
static void
check_allgather_shared(const LbRunResult *res)
{
  int p = 7;
  double block = 3 * sizeof(guint32), up = 0;
  for (int v = 1; v < p; v++)
    up += MIN(v & -v, p - v) * block;
  g_assert_cmpuint(res->phases[0].messages, ==, 2 * 2 * (p - 1));
  g_assert_cmpfloat(res->phases[0].bytes, ==, 2 * (up + (p - 1) * p * block));
}

/* A group whose members are a shared block: the odd ranks of 16, with
 * the block made once for all, give the same sums in the same messages as
 * the group that copies its members; each is told its place by a search
 * of the block. */
static GBytes *odd_ranks;

static void
group_shared_balance(LbRank *self, gpointer state)
{
  int id = lb_rank_id(self);
  lb_phase_begin(self, 0);
  if (id % 2 == 0)
    return;
  int members[8];
  for (int i = 0; i < 8; i++)
    members[i] = 2 * i + 1;
  if (odd_ranks == NULL)
    odd_ranks = g_bytes_new(members, sizeof members);
  g_autoptr(LbGroup) copied = lb_group_new(self, 1, members, 8);
  g_autoptr(LbGroup) shared = lb_group_new_shared(self, 2, odd_ranks);
  g_assert_cmpint(lb_group_rank(shared), ==, id / 2);
  g_assert_cmpint(lb_group_rank(shared), ==, lb_group_rank(copied));
  guint64 a[2] = {(guint64)id, 1}, b[2] = {(guint64)id, 1};
  lb_group_allreduce_sum_u64(copied, a, 2);
  lb_group_allreduce_sum_u64(shared, b, 2);
  g_assert_cmpuint(a[0], ==, 64); /* 1 + 3 + ... + 15 */
  g_assert_cmpuint(a[1], ==, 8);
  g_assert_cmpmem(a, sizeof a, b, sizeof b);
}

static void
check_group_shared(const LbRunResult *res)
{
  g_assert_cmpuint(res->phases[0].messages, ==, 2 * 2 * (8 - 1));
  g_clear_pointer(&odd_ranks, g_bytes_unref);
}

/* Reduce-scatter: rank j gives j * 100 + r for every rank r; rank r gets
 * the sum over j, 100 p (p - 1) / 2 + p r; twice, the second time with
 * zeros except one rank's. */
static void
reduce_scatter_balance(LbRank *self, gpointer state)
{
  int id = lb_rank_id(self), p = lb_rank_count(self);
  lb_phase_begin(self, 0);
  g_autofree guint64 *v = g_new(guint64, p);
  for (int r = 0; r < p; r++)
    v[r] = (guint64)id * 100 + (guint64)r;
  guint64 expect = 100 * (guint64)p * (guint64)(p - 1) / 2 + (guint64)p * (guint64)id;
  g_assert_cmpuint(lb_reduce_scatter_sum_u64(self, v), ==, expect);
  for (int r = 0; r < p; r++)
    v[r] = id == 2 ? (guint64)r + 1 : 0;
  g_assert_cmpuint(lb_reduce_scatter_sum_u64(self, v), ==, (guint64)id + 1);
  /* the sparse form, a rank named twice in one rank's entries */
  guint ranks[3] = {(guint)(id * 3 % p), (guint)(id * 3 % p), (guint)((id + 5) % p)};
  guint64 values[3] = {(guint64)id + 1, 2, 7};
  guint64 sparse = 0;
  for (int other = 0; other < p; other++) {
    if (other * 3 % p == id)
      sparse += (guint64)other + 1 + 2;
    if ((other + 5) % p == id)
      sparse += 7;
  }
  g_assert_cmpuint(lb_reduce_scatter_sum_u64_sparse(self, ranks, values, 3), ==, sparse);
}

static void
check_reduce_scatter_16(const LbRunResult *res)
{
  /* recursive halving: log2 16 = 4 messages per rank per call */
  g_assert_cmpuint(res->phases[0].messages, ==, 3 * 16 * 4);
  /* each rank is charged 8 + 4 + 2 + 1 values per call, sparse or not */
  g_assert_cmpfloat(res->phases[0].bytes, ==, 3 * 16 * 15 * 8.0);
}

/* ENZO-style: the most and least loaded rank; ties go to the lowest rank. */
static void
minloc_balance(LbRank *self, gpointer state)
{
  int id = lb_rank_id(self);
  LbValueRank v[3] = {
      {(double)(id % 3), id},
      {-(double)(id / 2), id},
      {1.5, id},
  };
  LbValueRank min[3], max[3];
  memcpy(min, v, sizeof v);
  memcpy(max, v, sizeof v);
  lb_allreduce_minloc(self, min, 3);
  lb_allreduce_maxloc(self, max, 3);
  /* p = 7: id % 3 is 0 at 0, 3, 6 and 2 at 2, 5; -(id / 2) is -3 at 6
   * and 0 at 0, 1. */
  g_assert_cmpfloat(min[0].value, ==, 0);
  g_assert_cmpint(min[0].rank, ==, 0);
  g_assert_cmpfloat(max[0].value, ==, 2);
  g_assert_cmpint(max[0].rank, ==, 2);
  g_assert_cmpfloat(min[1].value, ==, -3);
  g_assert_cmpint(min[1].rank, ==, 6);
  g_assert_cmpfloat(max[1].value, ==, 0);
  g_assert_cmpint(max[1].rank, ==, 0);
  g_assert_cmpint(min[2].rank, ==, 0);
  g_assert_cmpint(max[2].rank, ==, 0);

  /* Ties go to the lowest rank field, even when the tree combines it last. */
  int p = lb_rank_count(self);
  LbValueRank reversed = {1.5, p - 1 - id};
  lb_allreduce_minloc(self, &reversed, 1);
  g_assert_cmpint(reversed.rank, ==, 0);
  reversed = (LbValueRank){id == 0 || id == p - 1 ? 9.0 : 1.0, p - 1 - id};
  lb_allreduce_maxloc(self, &reversed, 1);
  g_assert_cmpfloat(reversed.value, ==, 9.0);
  g_assert_cmpint(reversed.rank, ==, 0);
}

/* 16 ranks as a 4 x 4 grid: rows (ids 0-3), columns (4-7), the two halves
 * of the hypercube (8, 9) and a group of everyone (10). */
static void
groups_balance(LbRank *self, gpointer state)
{
  int id = lb_rank_id(self);
  int row = id / 4, col = id % 4, half = id / 8;
  lb_phase_begin(self, 0);
  int row_members[4], col_members[4], half_members[8], all_members[16];
  for (int i = 0; i < 4; i++) {
    row_members[i] = row * 4 + i;
    col_members[i] = i * 4 + col;
  }
  for (int i = 0; i < 8; i++)
    half_members[i] = half * 8 + i;
  for (int i = 0; i < 16; i++)
    all_members[i] = i;
  g_autoptr(LbGroup) rows = lb_group_new(self, (guint)row, row_members, 4);
  g_autoptr(LbGroup) cols = lb_group_new(self, 4 + (guint)col, col_members, 4);
  g_autoptr(LbGroup) cube = lb_group_new(self, 8 + (guint)half, half_members, 8);
  g_autoptr(LbGroup) all = lb_group_new(self, 10, all_members, 16);
  g_assert_cmpint(lb_group_rank(rows), ==, col);
  g_assert_cmpint(lb_group_rank(cols), ==, row);
  g_assert_cmpint(lb_group_rank(cube), ==, id % 8);
  g_assert_cmpint(lb_group_size(cube), ==, 8);

  /* Even ranks broadcast in their row first, odd ranks in their half of the
   * cube. Both trees are rooted at rank 8 * half, so in rows 0 and 2 they
   * share edges: rank 1 waits for the cube's value from rank 0 while the
   * row's comes first. Should the tags of the groups collide, it would take
   * one for the other. */
  guint64 in_row = col == 0 ? 1000 + (guint64)row : 0;
  guint64 in_cube = id % 8 == 0 ? 2000 + (guint64)half : 0;
  if (id % 2 == 0) {
    lb_group_bcast(rows, 0, &in_row, sizeof in_row);
    lb_group_bcast(cube, 0, &in_cube, sizeof in_cube);
  } else {
    lb_group_bcast(cube, 0, &in_cube, sizeof in_cube);
    lb_group_bcast(rows, 0, &in_row, sizeof in_row);
  }
  g_assert_cmpuint(in_row, ==, 1000 + (guint64)row);
  g_assert_cmpuint(in_cube, ==, 2000 + (guint64)half);

  /* Rows start apart in time, so that rows, columns and halves overlap. */
  lb_execute(self, 0.1 * SPEED * (3 - row));
  guint64 sum = (guint64)id;
  lb_group_allreduce_sum_u64(rows, &sum, 1);
  g_assert_cmpuint(sum, ==, (guint64)(16 * row + 6));

  g_autofree char *mine = g_strnfill((gsize)row, 'a' + (char)col);
  gsize offsets[5];
  g_autofree char *column = lb_group_allgatherv(cols, mine, (gsize)row, offsets);
  for (int r = 0; r < 4; r++) {
    g_assert_cmpuint(offsets[r + 1] - offsets[r], ==, (gsize)r);
    for (gsize i = offsets[r]; i < offsets[r + 1]; i++)
      g_assert_cmpint(column[i], ==, 'a' + col);
  }

  double load = id * 1.5;
  lb_group_allreduce_max_double(cube, &load, 1);
  g_assert_cmpfloat(load, ==, (half * 8 + 7) * 1.5);

  guint64 world = (guint64)id, group = (guint64)id * 2;
  lb_allreduce_sum_u64(self, &world, 1);
  lb_group_allreduce_sum_u64(all, &group, 1);
  g_assert_cmpuint(world, ==, 120);
  g_assert_cmpuint(group, ==, 240);

  gint32 cell = id, cells[4];
  lb_group_allgather(rows, &cell, sizeof cell, cells);
  for (int i = 0; i < 4; i++)
    g_assert_cmpint(cells[i], ==, row * 4 + i);
  gint32 from_bottom = id;
  lb_group_bcast(cols, 3, &from_bottom, sizeof from_bottom);
  g_assert_cmpint(from_bottom, ==, 12 + col);
  guint64 column_sum[2] = {(guint64)id, 1};
  lb_group_reduce_sum_u64(cols, 2, column_sum, 2);
  if (lb_group_rank(cols) == 2) {
    g_assert_cmpuint(column_sum[0], ==, (guint64)(24 + 4 * col));
    g_assert_cmpuint(column_sum[1], ==, 4);
  }
  lb_group_barrier(cube);
}

/* Messages of groups_balance: broadcasts and reduces n - 1, the others
 * 2 (n - 1): rows 4 x (3 + 6 + 6), halves 2 x (7 + 14 + 14), columns
 * 4 x (6 + 3 + 3), all ranks and the group of everyone 2 x 30. */
#define GROUPS_MESSAGES (4 * 15 + 2 * 35 + 4 * 12 + 2 * 30)

/* Units sent by reference, as spans of the sender's old units: the same
 * network bytes, runs and record as lb_send_units of the gathered units,
 * and the receiver reads them after the sender has let its share go (the
 * message's reference keeps them). Rank 0 of 2 shares its units, sends its
 * last five as two spans out of order (two runs), once each way, keeps the
 * others, and lets the share go at once: a message holds it, so it does
 * not come back. A share that no message holds comes back to be reused. */
static void
unit_spans_balance(LbRank *self, gpointer state)
{
  lb_phase_begin(self, 0);
  if (lb_rank_id(self) == 0) {
    GArray *before = lb_rank_units(self);
    guint n = before->len, shared = 0;
    g_assert_cmpuint(n, >=, 8);
    LbUnitShare *share = lb_rank_share_units(self, g_array_new(FALSE, FALSE, sizeof(LbUnit)));
    const LbUnit *u = lb_unit_share_units(share, &shared);
    g_assert_true(u == (const LbUnit *)before->data);
    g_assert_cmpuint(shared, ==, n);
    g_assert_cmpuint(lb_rank_units(self)->len, ==, 0);
    const LbUnitSpan spans[] = {
        {n - 2, 2, u[n - 2].id}, {n, 0, G_MAXUINT64}, {n - 5, 3, u[n - 5].id}};
    lb_send_unit_spans(self, 1, 5, 0, share, spans, G_N_ELEMENTS(spans));
    g_autoptr(GArray) gathered = g_array_new(FALSE, FALSE, sizeof(LbUnit));
    g_array_append_vals(gathered, u + n - 2, 2);
    g_array_append_vals(gathered, u + n - 5, 3);
    lb_send_units(self, 1, 6, 0, (const LbUnit *)gathered->data, gathered->len, NULL);
    g_array_append_vals(lb_rank_units(self), u, n - 5);
    g_assert_null(lb_unit_share_release(share)); /* the first message holds it */
    lb_wait_sends(self);
    GArray *kept = lb_rank_units(self);
    LbUnitShare *again = lb_rank_share_units(self, g_array_new(FALSE, FALSE, sizeof(LbUnit)));
    GArray *back = lb_unit_share_release(again);
    g_assert_true(back == kept);
    lb_rank_swap_units(self, &back);
    g_assert_cmpuint(lb_rank_units(self)->len, ==, n - 5);
    g_assert_cmpuint(back->len, ==, 0);
    g_array_unref(back);
  } else {
    GArray *units = lb_rank_units(self);
    const LbUnit *in;
    const LbUnitSpan *runs;
    guint n_runs;
    g_autoptr(LbMsg) first = lb_recv_unit_spans(self, 0, 5, &in, &runs, &n_runs);
    g_autoptr(GArray) second = g_array_new(FALSE, FALSE, sizeof(LbUnit));
    lb_recv_units(self, 0, 6, second, NULL);
    g_assert_cmpuint(n_runs, ==, 3);
    g_assert_cmpuint(first->len, ==, 24 + 3 * sizeof(LbUnitSpan)); /* a header, the spans */
    g_autoptr(GArray) got = g_array_new(FALSE, FALSE, sizeof(LbUnit));
    for (guint i = 0; i < n_runs; i++) {
      if (runs[i].n > 0)
        g_assert_cmpuint(in[runs[i].at].id, ==, runs[i].id);
      g_array_append_vals(got, in + runs[i].at, (guint)runs[i].n);
    }
    g_assert_cmpuint(got->len, ==, 5);
    g_assert_cmpuint(second->len, ==, 5);
    g_assert_cmpmem(got->data, got->len * sizeof(LbUnit), second->data,
                    second->len * sizeof(LbUnit));
    const LbUnit *g = (const LbUnit *)got->data;
    g_assert_cmpuint(g[0].id + 1, ==, g[1].id);
    g_assert_cmpuint(g[2].id + 3, ==, g[0].id); /* two runs, the later first */
    /* rank 0's ids are below mine: they go first, in order */
    g_autoptr(GArray) now = g_array_new(FALSE, FALSE, sizeof(LbUnit));
    g_array_append_vals(now, g + 2, 3);
    g_array_append_vals(now, g, 2);
    g_array_append_vals(now, units->data, units->len);
    GArray *mine = g_steal_pointer(&now);
    lb_rank_swap_units(self, &mine);
    g_array_unref(mine);
  }
}

/* Both unit messages carry the same network bytes. */
static void
check_unit_spans(const LbRunResult *res)
{
  g_assert_cmpuint(res->phases[0].messages, ==, 2);
  g_assert_cmpfloat(res->phases[0].bytes, >, 0);
  g_assert_cmpfloat(res->bytes_moved, ==, res->phases[0].bytes - 2 * (LB_HEADER_BYTES + 32.0));
}

/* Master and workers on 1024 ranks: rank 0 hands out chunks and computes
 * some itself, answering requests between slices; workers ask with a
 * request and wait for CHUNK or END with wildcard receives, in three ways. */
#define CHUNKS_PER_RANK 4
#define TAG_CHUNK 22
#define TAG_END 23

typedef struct {
  guint chunks, next, ends, served_between, master_chunks;
  guint8 *done;
  guint per_flavour[3];
  double total_flops;
} MasterWorker;

static MasterWorker mw;

static double
chunk_flops(guint c)
{
  return (1 + (c * 7919u) % 13) * 1e4; /* 1 to 13 ms */
}

static void
do_chunk(LbRank *self, guint c)
{
  lb_execute(self, chunk_flops(c));
  mw.done[c]++;
}

static void
answer(LbRank *self, int worker)
{
  if (mw.next < mw.chunks) {
    guint c = mw.next++;
    lb_send(self, worker, TAG_CHUNK, &c, sizeof c, sizeof c);
  } else {
    lb_send(self, worker, TAG_END, NULL, 0, 8);
    mw.ends++;
  }
}

static gboolean
serve_between_cb(LbRank *self, gpointer data)
{
  LbStatus st;
  while (lb_iprobe(self, LB_ANY_SOURCE, TAG_REQUEST, &st)) {
    g_autoptr(LbMsg) req = lb_recv(self, st.src, TAG_REQUEST);
    answer(self, st.src);
    mw.served_between++;
  }
  return TRUE;
}

static void
master(LbRank *self)
{
  int p = lb_rank_count(self);
  while (mw.next < mw.chunks) {
    guint c = mw.next++;
    double done = lb_execute_sliced(self, chunk_flops(c), 2e4, serve_between_cb, NULL);
    g_assert_cmpfloat(done, ==, chunk_flops(c));
    mw.done[c]++;
    mw.master_chunks++;
  }
  while (mw.ends < (guint)p - 1) {
    g_autoptr(LbMsg) req = lb_recv(self, LB_ANY_SOURCE, TAG_REQUEST);
    answer(self, req->src);
  }
}

static guint
chunk_of(const LbMsg *msg)
{
  guint c;
  g_assert_cmpuint(msg->len, ==, sizeof c);
  memcpy(&c, msg->data, sizeof c);
  return c;
}

typedef struct {
  LbRequest *next;
  LbMsg *got;
} Prefetch;

static gboolean
test_between_cb(LbRank *self, gpointer data)
{
  Prefetch *pf = data;
  if (pf->got == NULL)
    lb_test(self, pf->next, &pf->got);
  return TRUE;
}

/* Asks for the next chunk before computing this one; tests the request
 * between slices. */
static void
worker_prefetch(LbRank *self)
{
  lb_send(self, 0, TAG_REQUEST, NULL, 0, 8);
  g_autoptr(LbRequest) first = lb_irecv(self, 0, LB_ANY_TAG);
  LbMsg *msg = lb_wait(self, first);
  while (msg->tag == TAG_CHUNK) {
    guint c = chunk_of(msg);
    g_clear_pointer(&msg, lb_msg_free);
    lb_send(self, 0, TAG_REQUEST, NULL, 0, 8);
    Prefetch pf = {lb_irecv(self, 0, LB_ANY_TAG), NULL};
    lb_execute_sliced(self, chunk_flops(c), 2e4, test_between_cb, &pf);
    mw.done[c]++;
    mw.per_flavour[0]++;
    msg = pf.got != NULL ? pf.got : lb_wait(self, pf.next);
    lb_request_free(pf.next);
  }
  g_assert_cmpint(msg->tag, ==, TAG_END);
  lb_msg_free(msg);
}

static void
worker_probe(LbRank *self)
{
  for (;;) {
    lb_send(self, 0, TAG_REQUEST, NULL, 0, 8);
    LbStatus st;
    lb_probe(self, 0, LB_ANY_TAG, &st);
    g_autoptr(LbMsg) msg = lb_recv(self, st.src, st.tag);
    g_assert_cmpuint(msg->len, ==, st.len);
    if (msg->tag == TAG_END)
      return;
    do_chunk(self, chunk_of(msg));
    mw.per_flavour[1]++;
  }
}

/* Keeps a request for END outstanding throughout, one for a chunk per
 * round, and waits for whichever comes. */
static void
worker_wait_any(LbRank *self)
{
  LbRequest *reqs[2] = {NULL, lb_irecv(self, 0, TAG_END)};
  for (;;) {
    lb_send(self, 0, TAG_REQUEST, NULL, 0, 8);
    reqs[0] = lb_irecv(self, 0, TAG_CHUNK);
    g_autoptr(LbMsg) msg = NULL;
    int i = lb_wait_any(self, reqs, 2, &msg);
    g_clear_pointer(&reqs[0], lb_request_free);
    if (i == 1)
      break;
    do_chunk(self, chunk_of(msg));
    mw.per_flavour[2]++;
  }
  g_clear_pointer(&reqs[1], lb_request_free);
}

static void
master_worker_balance(LbRank *self, gpointer state)
{
  int id = lb_rank_id(self), p = lb_rank_count(self);
  double t0 = lb_now();
  if (id == 0) {
    mw.chunks = CHUNKS_PER_RANK * (guint)p;
    mw.done = g_new0(guint8, mw.chunks);
    for (guint c = 0; c < mw.chunks; c++)
      mw.total_flops += chunk_flops(c);
  }
  lb_barrier(self);
  if (id == 0)
    master(self);
  else if (id % 3 == 0)
    worker_prefetch(self);
  else if (id % 3 == 1)
    worker_probe(self);
  else
    worker_wait_any(self);
  lb_wait_sends(self);
  lb_barrier(self);
  if (id == 0) {
    for (guint c = 0; c < mw.chunks; c++)
      g_assert_cmpuint(mw.done[c], ==, 1);
    g_assert_cmpuint(mw.ends, ==, (guint)p - 1);
    g_assert_cmpuint(mw.master_chunks, >, 0);
    g_assert_cmpuint(mw.served_between, >, 0);
    for (int f = 0; f < 3; f++)
      g_assert_cmpuint(mw.per_flavour[f], >, 0);
    g_assert_cmpuint(mw.master_chunks + mw.per_flavour[0] + mw.per_flavour[1] + mw.per_flavour[2],
                     ==, mw.chunks);
    /* Above the ideal, but not by the 6 s that answering one request per
     * slice (arrivals one at a time) takes. */
    assert_time(lb_now() - t0, mw.total_flops / (p * SPEED), 0.5);
    g_print("master-worker: %u chunks, %u by the master, %u requests answered between "
            "slices, %.4f s\n",
            mw.chunks, mw.master_chunks, mw.served_between, lb_now() - t0);
    g_clear_pointer(&mw.done, g_free);
  }
}

/* A collect that computes part of the work between its exchanges
 * (lb_app_compute): rank 0 computes 1 s and sends rank 1 a message; rank 1
 * computes 2 s and then receives it, which only then travels. Each rank's
 * work W (its load x 1e6 flops, 10 Mflop/s) is computed once: what the
 * collect computed counts as computation, W / speed on both ranks; the
 * collection's time is the rest of the collect, at most rank 0's wait for
 * its send, 1 s and the message's latency. */
static void
collect_compute_collect(LbRank *self, gpointer state)
{
  if (lb_rank_id(self) == 0) {
    lb_app_compute(self, 1.0 * SPEED);
    lb_send(self, 1, 3, NULL, 0, 64);
    lb_wait_sends(self);
  } else {
    lb_app_compute(self, 2.0 * SPEED);
    lb_msg_free(lb_recv(self, 0, 3));
  }
}

static void
test_collect_compute(void)
{
  g_autofree char *dir = g_dir_make_tmp("lbsim-comm-XXXXXX", NULL);
  g_autofree char *path = g_build_filename(dir, "s.ini", NULL);
  const char *ini = "[scenario]\nplatform = hypercube-16.xml\nranks = 2\nsteps = 1\n"
                    "[workload]\nsize = 100\npattern = uniform\nflops-per-unit = 1e6\n"
                    "[balancers]\nrun = none\n";
  g_assert_true(g_file_set_contents(path, ini, -1, NULL));
  g_autoptr(GError) error = NULL;
  g_autoptr(LbScenario) sc = lb_scenario_load(path, NULL, &error);
  g_unlink(path);
  g_rmdir(dir);
  g_assert_no_error(error);
  LbBalancer collecting = test_balancer;
  collecting.balance = idle_balance;
  collecting.collect = collect_compute_collect;
  ((LbBalancerRun *)sc->runs->pdata[0])->balancer = &collecting;
  LbRunOptions options = {0};
  g_autoptr(LbRunResult) res = lb_run_simulate(sc, 0, &options, &error);
  g_assert_no_error(error);
  double work = (double)MAX(res->final_loads[0], res->final_loads[1]) * 1e6 / SPEED;
  g_assert_cmpfloat(work, >, 2.0);
  double compute = 0, ghost = 0;
  g_assert_true(lb_run_result_metric(res, "compute-time", &compute));
  g_assert_true(lb_run_result_metric(res, "ghost-time", &ghost));
  assert_time(compute, work - 1e-9, work + 1e-9);
  assert_time(ghost, 1.0, 1.0 + LATE);
}

/* SimGrid reports a deadlock and ends the run as if it had finished: count
 * the ranks that come back from the test balancer. */
static void (*counted)(LbRank *, gpointer);
static guint returned;

static void
counted_balance(LbRank *self, gpointer state)
{
  counted(self, state);
  returned++;
}

static LbRunResult *
run_counted(const char *platform, void (*balance)(LbRank *, gpointer), guint ranks, GError **error)
{
  counted = balance;
  returned = 0;
  LbRunResult *res = run_on(platform, counted_balance, ranks, 1, error);
  g_assert_cmpuint(returned, ==, ranks);
  return res;
}

static void
check_bcastv(const LbRunResult *res)
{
  g_assert_cmpuint(res->phases[0].messages, ==, 6 * (7 - 1));
  g_assert_cmpfloat(res->phases[0].bytes, ==, bcastv_allgatherv_bytes(7));
}

static void
check_groups(const LbRunResult *res)
{
  g_assert_cmpuint(res->phases[0].messages, ==, GROUPS_MESSAGES);
}

typedef struct {
  const char *name;
  const char *platform;
  guint ranks;
  void (*balance)(LbRank *, gpointer);
  void (*check)(const LbRunResult *res); /* or NULL */
} SimCase;

static const SimCase sim_cases[] = {
    {"any-tag", "hypercube-16.xml", 4, any_tag_balance, NULL},
    {"long-stash", "hypercube-16.xml", 4, long_stash_balance, NULL},
    {"probe", "hypercube-16.xml", 4, probe_msg_balance, NULL},
    {"irecv", "hypercube-16.xml", 4, irecv_balance, NULL},
    {"timeout", "hypercube-16.xml", 4, timeout_balance, NULL},
    {"sliced", "hypercube-16.xml", 2, sliced_balance, NULL},
    {"bcastv", "hypercube-16.xml", 7, bcastv_allgatherv_balance, check_bcastv},
    {"allgatherv-shared", "hypercube-16.xml", 7, allgatherv_shared_balance,
     check_allgatherv_shared},
    {"allgather-shared", "hypercube-16.xml", 7, allgather_shared_balance, check_allgather_shared},
    {"minloc", "hypercube-16.xml", 7, minloc_balance, NULL},
    {"reduce-scatter", "hypercube-16.xml", 16, reduce_scatter_balance, check_reduce_scatter_16},
    {"reduce-scatter-7", "hypercube-16.xml", 7, reduce_scatter_balance, NULL},
    {"groups", "hypercube-16.xml", 16, groups_balance, check_groups},
    {"group-shared", "hypercube-16.xml", 16, group_shared_balance, check_group_shared},
    {"unit-spans", "hypercube-16.xml", 2, unit_spans_balance, check_unit_spans},
    {"master-worker", "hypercube-1024.xml", 1024, master_worker_balance, NULL},
};

static void
sim_case_child(gconstpointer data)
{
  const SimCase *c = data;
  g_autoptr(GError) error = NULL;
  g_autoptr(LbRunResult) res = run_counted(c->platform, c->balance, c->ranks, &error);
  g_assert_no_error(error);
  g_assert_nonnull(res);
  if (c->check != NULL)
    c->check(res);
  g_print("%s done\n", c->name);
}

static void
test_sim_case(gconstpointer data)
{
  const SimCase *c = data;
  g_autofree char *path = g_strdup_printf("/comm/%s/subprocess", c->name);
  g_test_trap_subprocess(path, 0, G_TEST_SUBPROCESS_DEFAULT);
  g_test_trap_assert_passed();
  g_autofree char *done = g_strdup_printf("*%s done*", c->name);
  g_test_trap_assert_stdout(done);
}

int
main(int argc, char **argv)
{
  g_test_init(&argc, &argv, NULL);
  g_test_add_func("/comm/collectives", test_collectives);
  g_test_add_func("/comm/collect-compute", test_collect_compute);
  static const guint sizes[] = {1, 2, 5, 7, 16};
  for (guint i = 0; i < G_N_ELEMENTS(sizes); i++) {
    g_autofree char *path = g_strdup_printf("/comm/collectives/subprocess/%u", sizes[i]);
    g_test_add_data_func(path, GUINT_TO_POINTER(sizes[i]), collectives_child);
  }
  g_test_add_func("/comm/huge-pages", test_huge_pages);
  for (guint i = 0; i < G_N_ELEMENTS(huge_pages_cases); i++) {
    g_autofree char *path =
        g_strdup_printf("/comm/huge-pages/subprocess/%s", huge_pages_cases[i].name);
    g_test_add_data_func(path, &huge_pages_cases[i], huge_pages_child);
  }
  g_test_add_func("/comm/unzeroed-stacks", test_unzeroed_stacks);
  g_test_add_data_func("/comm/unzeroed-stacks/subprocess/16", GUINT_TO_POINTER(16),
                       unzeroed_stacks_child);
  g_test_add_data_func("/comm/unzeroed-stacks/subprocess/112", GUINT_TO_POINTER(112),
                       unzeroed_stacks_child);
  g_test_add_func("/comm/invariants", test_invariants);
  g_test_add_data_func("/comm/invariants/subprocess/lose", (gconstpointer)lose_one_balance,
                       invariant_child);
  g_test_add_data_func("/comm/invariants/subprocess/duplicate",
                       (gconstpointer)duplicate_one_balance, invariant_child);
  g_test_add_data_func("/comm/invariants/subprocess/swap", (gconstpointer)swap_balance,
                       invariant_child);
  g_test_add_data_func("/comm/invariants/subprocess/deadlock", (gconstpointer)deadlock_balance,
                       invariant_child);
  g_test_add_data_func("/comm/invariants/subprocess/range-broken", (gconstpointer)backwards_key,
                       range_child);
  g_test_add_data_func("/comm/invariants/subprocess/range-kept", (gconstpointer)forward_key,
                       range_child);
  for (guint i = 0; i < G_N_ELEMENTS(sim_cases); i++) {
    g_autofree char *path = g_strdup_printf("/comm/%s", sim_cases[i].name);
    g_autofree char *child = g_strdup_printf("/comm/%s/subprocess", sim_cases[i].name);
    g_test_add_data_func(path, &sim_cases[i], test_sim_case);
    g_test_add_data_func(child, &sim_cases[i], sim_case_child);
  }
  return g_test_run();
}
