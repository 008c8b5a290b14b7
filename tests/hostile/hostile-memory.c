/* Scenarios too large for the machine, numbers that are no numbers, lists
 * with holes, and workload files that are not files: each refused when
 * the scenario is read, before anything is built or run. */
#include "hostile.h"

#include <stdarg.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>

#if defined(__SANITIZE_ADDRESS__)
#define UNDER_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define UNDER_ASAN 1
#endif
#endif

#define SCENARIO_HEAD "[scenario]\nname = hostile\nplatform = p.xml\nranks = 16\nseed = 1\n"

/* s.ini: the small scenario's head, then text. */
static void
write_scenario(const HostileCase *hc, const char *text)
{
  hostile_copy(hc, "platforms/hypercube-16.xml", "p.xml");
  g_autofree char *all = g_strconcat(SCENARIO_HEAD, text, NULL);
  hostile_write(hc, "s.ini", all);
}

/* lbsim run s.ini [extra], asserting exit 2, one line holding each needle
 * (NULL-terminated) and the folder as it was. */
static void
run_refused(HostileCase *hc, const char *extra, ...)
{
  hostile_snapshot(hc);
  g_auto(HostileResult) r = {0};
  if (extra != NULL)
    hostile_run(hc, &r, "run", "s.ini", "--set", extra, NULL);
  else
    hostile_run(hc, &r, "run", "s.ini", NULL);
  g_test_message("%s", r.err);
  hostile_assert_refused(&r, 2, "s.ini", NULL);
  va_list args;
  va_start(args, extra);
  const char *needle;
  while ((needle = va_arg(args, const char *)) != NULL)
    if (strstr(r.err, needle) == NULL)
      g_error("stderr does not name '%s':\n%s", needle, r.err);
  va_end(args);
  hostile_assert_unchanged(hc);
}

/* ---- memory ---- */

static void
htree_elements(void)
{
  g_autoptr(HostileCase) hc = hostile_case_new();
  /* 10^9 elements, each its own leaf down to level 24: a tree of up to
   * 3.7 x 10^10 hnodes, terabytes */
  write_scenario(hc, "[workload]\nmodel = htree\nelements = 1000000000\nleaf-elements = 0\n"
                     "max-level = 24\npattern = uniform\n[balancers]\nrun = none\n");
  run_refused(hc, NULL, "[workload] elements: 1000000000 elements", "GiB, more than this machine's",
              NULL);
}

static void
htree_min_level(void)
{
  g_autoptr(HostileCase) hc = hostile_case_new();
  write_scenario(hc, "[workload]\nmodel = htree\nrefine = poisson\nmin-level = 24\n"
                     "max-level = 24\n[balancers]\nrun = none\n");
  run_refused(hc, NULL, "[workload] min-level: 24 makes", "more than this machine's", NULL);
}

static void
samr_levels(void)
{
  g_autoptr(HostileCase) hc = hostile_case_new();
  write_scenario(hc, "[workload]\nmodel = samr\nsize = 64x64x64\nlevels = 7\nfactor = 16\n"
                     "pattern = hotspots\n[balancers]\nrun = none\n");
  run_refused(hc, NULL, "[workload] levels: 7 levels refined by 16", "more than this machine's",
              NULL);
}

/* The loop's and the steps' doors open only past the machine's memory,
 * which here is a limit on the address space that lbsim inherits (not
 * with AddressSanitizer, whose shadow memory needs terabytes of it). */
static gboolean
limit_memory(guint64 bytes, struct rlimit *was)
{
#ifdef UNDER_ASAN
  g_test_skip("AddressSanitizer needs an unlimited address space");
  return FALSE;
#else
  g_assert_cmpint(getrlimit(RLIMIT_AS, was), ==, 0);
  struct rlimit now = *was;
  now.rlim_cur = bytes;
  if (was->rlim_max != RLIM_INFINITY && was->rlim_max < bytes) {
    g_test_skip("the address space is limited already");
    return FALSE;
  }
  g_assert_cmpint(setrlimit(RLIMIT_AS, &now), ==, 0);
  return TRUE;
#endif
}

static void
loop_iterations(void)
{
  g_autoptr(HostileCase) hc = hostile_case_new();
  /* 10^8 iterations (the most) need about 4.5 GiB */
  write_scenario(hc, "[workload]\nmodel = loop\niterations = 100000000\n[balancers]\nrun = none\n");
  struct rlimit was;
  if (!limit_memory((guint64)2 << 30, &was))
    return;
  hostile_snapshot(hc);
  g_auto(HostileResult) r = {0};
  hostile_run(hc, &r, "run", "s.ini", NULL);
  g_assert_cmpint(setrlimit(RLIMIT_AS, &was), ==, 0);
  hostile_assert_refused(&r, 2, "s.ini: [workload] iterations: 100000000 iterations need about",
                         "GiB, more than this machine's", NULL);
  hostile_assert_unchanged(hc);
}

static void
steps(void)
{
  g_autoptr(HostileCase) hc = hostile_case_new();
  /* 5 x 10^7 units (1.9 GiB) fit in 2 GiB, not with 10^5 steps of two
   * runs (0.2 GiB) on top */
  write_scenario(hc, "steps = 100000\n[workload]\nsize = 50000000\n[balancers]\nrun = none, mlb\n");
  struct rlimit was;
  if (!limit_memory((guint64)2 << 30, &was))
    return;
  hostile_snapshot(hc);
  g_auto(HostileResult) r = {0};
  hostile_run(hc, &r, "run", "s.ini", NULL);
  g_assert_cmpint(setrlimit(RLIMIT_AS, &was), ==, 0);
  hostile_assert_refused(&r, 2, "s.ini: [scenario] steps: 100000 steps of 2 balancer runs",
                         "GiB, more than this machine's", NULL);
  hostile_assert_unchanged(hc);
}

/* ---- numbers, seeds, lists, the byte-order mark ---- */

static void
expect_nan(void)
{
  g_autoptr(HostileCase) hc = hostile_case_new();
  write_scenario(hc, "[balancers]\nrun = none\n[expect]\nnone.messages <= nan\n");
  run_refused(hc, NULL, "[expect] none.messages: 'none.messages <= nan' does not compare", NULL);
}

static void
expect_inf(void)
{
  g_autoptr(HostileCase) hc = hostile_case_new();
  write_scenario(hc, "[balancers]\nrun = none\n[expect]\nnone.imbalance-after < inf\n");
  run_refused(hc, NULL, "[expect] none.imbalance-after:", "does not compare with a number", NULL);
}

static void
expect_hex(void)
{
  g_autoptr(HostileCase) hc = hostile_case_new();
  write_scenario(hc, "[balancers]\nrun = none\n[expect]\nnone.messages == 0x1p3\n");
  run_refused(hc, NULL, "[expect] none.messages:", "0x1p3", "does not compare with a number", NULL);
}

static void
set_expect_nan(void)
{
  g_autoptr(HostileCase) hc = hostile_case_new();
  hostile_scenario(hc);
  run_refused(hc, "expect.mlb.messages=<= nan",
              "[expect] mlb.messages:", "does not compare with a number", NULL);
}

static void
set_inf(void)
{
  g_autoptr(HostileCase) hc = hostile_case_new();
  hostile_scenario(hc);
  run_refused(hc, "workload.at=inf", "[workload] at: 'inf' is not a number", NULL);
}

static void
set_hex(void)
{
  g_autoptr(HostileCase) hc = hostile_case_new();
  hostile_scenario(hc);
  run_refused(hc, "workload.at=0x1p-2", "[workload] at: '0x1p-2' is not a number", NULL);
}

static void
seed_past_2_53(void)
{
  g_autoptr(HostileCase) hc = hostile_case_new();
  hostile_copy(hc, "platforms/hypercube-16.xml", "p.xml");
  hostile_write(hc, "s.ini",
                "[scenario]\nplatform = p.xml\nranks = 16\nseed = 9007199254740993\n"
                "[balancers]\nrun = none\n");
  run_refused(hc, NULL, "[scenario] seed: 9007199254740993 is out of range 0 .. 9007199254740992",
              NULL);
}

static void
run_empty_item(void)
{
  g_autoptr(HostileCase) hc = hostile_case_new();
  write_scenario(hc, "[balancers]\nrun = none,,mlb\n");
  run_refused(hc, NULL, "[balancers] run: item 2 of the list is empty", NULL);
}

/* A scenario saved with a byte-order mark runs as without it. */
static void
bom(void)
{
  g_autoptr(HostileCase) hc = hostile_case_new();
  hostile_scenario(hc);
  g_autofree char *path = hostile_path(hc, "s.ini");
  g_autofree char *text = NULL;
  g_assert_true(g_file_get_contents(path, &text, NULL, NULL));
  g_autofree char *marked = g_strconcat("\xef\xbb\xbf", text, NULL);
  hostile_write(hc, "s.ini", marked);
  hostile_snapshot(hc);
  g_auto(HostileResult) r = {0};
  hostile_run(hc, &r, "run", "-q", "s.ini", NULL);
  g_test_message("%s", r.err);
  g_assert_cmpint(r.status, ==, 0);
  g_assert_cmpstr(r.err, ==, "");
  g_assert_nonnull(strstr(r.out, "hostile: 16 ranks"));
  g_assert_nonnull(strstr(r.out, "\nmlb "));
  hostile_assert_unchanged(hc);
}

/* ---- workload files that are not files ---- */

static void
file_device(void)
{
  g_autoptr(HostileCase) hc = hostile_case_new();
  if (!hostile_mknod_null(hc, "zero")) {
    g_test_skip("no private device node");
    return;
  }
  write_scenario(hc, "[workload]\npattern = file\nfile = zero\n[balancers]\nrun = none\n");
  run_refused(hc, NULL, "[workload] file: ", "zero: a character device, not a regular file", NULL);
}

static void
file_fifo(void)
{
  g_autoptr(HostileCase) hc = hostile_case_new();
  g_autofree char *pipe = hostile_path(hc, "costs");
  g_assert_cmpint(mkfifo(pipe, 0600), ==, 0);
  write_scenario(
      hc, "[workload]\nmodel = loop\ncost = file\ncost-file = costs\n[balancers]\nrun = none\n");
  run_refused(hc, NULL, "[workload] cost-file: ", "costs: a FIFO, not a regular file", NULL);
}

static void
file_folder(void)
{
  g_autoptr(HostileCase) hc = hostile_case_new();
  g_autofree char *folder = hostile_path(hc, "grids");
  g_assert_cmpint(g_mkdir(folder, 0700), ==, 0);
  write_scenario(hc, "[workload]\nmodel = samr\nsize = 16x16\nhierarchy = grids\n"
                     "[balancers]\nrun = none\n");
  run_refused(hc, NULL, "[workload] hierarchy: ", "grids: a folder, not a regular file", NULL);
}

void
hostile_register_memory(void)
{
  g_test_add_func("/hostile/memory/htree-elements", htree_elements);
  g_test_add_func("/hostile/memory/htree-min-level", htree_min_level);
  g_test_add_func("/hostile/memory/samr-levels", samr_levels);
  g_test_add_func("/hostile/memory/loop-iterations", loop_iterations);
  g_test_add_func("/hostile/memory/steps", steps);
  g_test_add_func("/hostile/scenario/expect-nan", expect_nan);
  g_test_add_func("/hostile/scenario/expect-inf", expect_inf);
  g_test_add_func("/hostile/scenario/expect-hex", expect_hex);
  g_test_add_func("/hostile/scenario/set-expect-nan", set_expect_nan);
  g_test_add_func("/hostile/scenario/set-inf", set_inf);
  g_test_add_func("/hostile/scenario/set-hex", set_hex);
  g_test_add_func("/hostile/scenario/seed-2^53+1", seed_past_2_53);
  g_test_add_func("/hostile/scenario/run-empty-item", run_empty_item);
  g_test_add_func("/hostile/scenario/bom", bom);
  g_test_add_func("/hostile/scenario/file-device", file_device);
  g_test_add_func("/hostile/scenario/file-fifo", file_fifo);
  g_test_add_func("/hostile/scenario/file-folder", file_folder);
}
