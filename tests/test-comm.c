/* The messaging layer, collectives, counters and invariant checks, driven
 * by test balancers inside real simulations (one process per simulation). */
#include <glib.h>
#include <glib/gstdio.h>
#include <string.h>

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
run_with(void (*balance)(LbRank *, gpointer), guint ranks, guint steps, GError **error)
{
  g_autofree char *dir = g_dir_make_tmp("lbsim-comm-XXXXXX", NULL);
  g_autofree char *path = g_build_filename(dir, "s.ini", NULL);
  g_autofree char *ini = g_strdup_printf(
      "[scenario]\nplatform = hypercube-16.xml\nranks = %u\nsteps = %u\n"
      "[workload]\nsize = 100\npattern = random\n[balancers]\nrun = none\n",
      ranks, steps);
  g_assert_true(g_file_set_contents(path, ini, -1, NULL));
  LbScenario *sc = lb_scenario_load(path, NULL, error);
  g_unlink(path);
  g_rmdir(dir);
  g_assert_nonnull(sc);
  test_balancer.balance = balance;
  ((LbBalancerRun *)sc->runs->pdata[0])->balancer = &test_balancer;
  LbRunOptions options = {0};
  return lb_run_simulate(sc, 0, &options, error);
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

static void
test_invariants(void)
{
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
}

int
main(int argc, char **argv)
{
  g_test_init(&argc, &argv, NULL);
  g_test_add_func("/comm/collectives", test_collectives);
  static const guint sizes[] = {1, 2, 5, 7, 16};
  for (guint i = 0; i < G_N_ELEMENTS(sizes); i++) {
    g_autofree char *path = g_strdup_printf("/comm/collectives/subprocess/%u", sizes[i]);
    g_test_add_data_func(path, GUINT_TO_POINTER(sizes[i]), collectives_child);
  }
  g_test_add_func("/comm/invariants", test_invariants);
  g_test_add_data_func("/comm/invariants/subprocess/lose", (gconstpointer)lose_one_balance,
                       invariant_child);
  g_test_add_data_func("/comm/invariants/subprocess/duplicate",
                       (gconstpointer)duplicate_one_balance, invariant_child);
  g_test_add_data_func("/comm/invariants/subprocess/swap", (gconstpointer)swap_balance,
                       invariant_child);
  return g_test_run();
}
