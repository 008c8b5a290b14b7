/* The small doors of the command line: short options with attached
 * values, every scenario of check read before any runs, SimGrid settings
 * checked before anything runs, and a progress line that is cleared
 * before it is drawn again. */
#include <string.h>

#include "hostile.h"

/* "-j2" is "-j 2": in run, check, sweep and explain. */
static void
attached_values(void)
{
  g_autoptr(HostileCase) hc = hostile_case_new();
  hostile_scenario(hc);
  g_auto(HostileResult) r = {0};
  hostile_run(hc, &r, "run", "s.ini", "-qj2", "-p16", "-bmlb", NULL);
  g_assert_cmpint(r.status, ==, 0);
  g_assert_nonnull(strstr(r.out, "\nmlb "));
  g_assert_null(strstr(r.out, "\nnone "));
  g_auto(HostileResult) e = {0};
  hostile_run(hc, &e, "explain", "mlb", "-p4", NULL);
  g_assert_cmpint(e.status, ==, 0);
  g_assert_nonnull(strstr(e.out, "4 ranks"));
  /* an option without a value keeps its name in the error */
  g_auto(HostileResult) bad = {0};
  hostile_snapshot(hc);
  hostile_run(hc, &bad, "run", "s.ini", "-qx", NULL);
  hostile_assert_refused(&bad, 2, "Unknown option -qx", NULL);
  hostile_assert_unchanged(hc);
}

/* check A B: B's error comes before A runs. */
static void
check_reads_all_first(void)
{
  g_autoptr(HostileCase) hc = hostile_case_new();
  hostile_scenario(hc);
  hostile_write(hc, "bad.ini", "[scenario]\nranks = 16\nplatform = p.xml\nbogus = 1\n");
  hostile_snapshot(hc);
  const char *const second[][2] = {{"missing.ini", "missing.ini"}, {"bad.ini", "bogus"}};
  for (guint i = 0; i < G_N_ELEMENTS(second); i++) {
    g_auto(HostileResult) r = {0};
    hostile_run(hc, &r, "check", "s.ini", second[i][0], NULL);
    hostile_assert_refused(&r, 2, second[i][1], NULL);
    /* s.ini did not run: no header, no table */
    g_assert_cmpstr(r.out, ==, "");
    hostile_assert_unchanged(hc);
  }
}

/* --cfg and --log: SimGrid's verdict before the first run starts. */
static void
settings_first(void)
{
  g_autoptr(HostileCase) hc = hostile_case_new();
  hostile_scenario(hc);
  hostile_snapshot(hc);
  const char *const cases[][3] = {
      {"--cfg", "bogus:1", "bogus"},
      {"--cfg", "network/model:nope", "nope"},
      {"--log", "lb.thres:nope", "nope"},
      {"--log", "nonsense", "nonsense"},
  };
  for (guint i = 0; i < G_N_ELEMENTS(cases); i++) {
    g_auto(HostileResult) r = {0};
    /* without -q: no "running" line may come before the error */
    hostile_run(hc, &r, "run", "s.ini", cases[i][0], cases[i][1], "--json", "out.json", NULL);
    hostile_assert_refused(&r, 2, cases[i][0], cases[i][2], NULL);
    g_assert_cmpstr(r.out, ==, "");
    hostile_assert_unchanged(hc);
  }
}

/* On a terminal (script(1) gives one), every progress line that does not
 * end a line is cleared before it is drawn: a shorter one over a longer
 * one leaves nothing behind. */
static void
progress_cleared(void)
{
  g_autofree char *script = g_find_program_in_path("script");
  if (script == NULL) {
    g_test_skip("no script(1) to give lbsim a terminal");
    return;
  }
  g_autoptr(HostileCase) hc = hostile_case_new();
  hostile_scenario(hc);
  /* two runs at once, each with 12 steps: their progress lines and the
   * parent's lines share the terminal */
  g_autofree char *line =
      g_strdup_printf("cd '%s' && exec \"$LBSIM\" run s.ini -j2 --set scenario.steps=12", hc->dir);
  const char *argv[] = {script, "-qec", line, "/dev/null", NULL};
  g_autofree char *out = NULL, *err = NULL;
  int status = 0;
  g_autoptr(GError) error = NULL;
  g_assert_true(g_spawn_sync(hc->dir, (char **)argv, NULL, G_SPAWN_DEFAULT, NULL, NULL, &out, &err,
                             &status, &error));
  g_assert_no_error(error);
  g_assert_true(g_spawn_check_wait_status(status, NULL));
  g_assert_nonnull(strstr(out, "adaptation step 12/12"));
  guint redrawn = 0;
  for (const char *c = strchr(out, '\r'); c != NULL; c = strchr(c + 1, '\r')) {
    if (c[1] == '\n')
      continue;
    if (strncmp(c + 1, "\033[K", 3) != 0)
      g_error("a line drawn over another without clearing it: ...%.40s", c + 1);
    redrawn++;
  }
  g_assert_cmpuint(redrawn, >=, 12);
  /* the parent's lines start a line of their own, never after a
   * progress line drawn without its end */
  for (const char *c = strstr(out, "lbsim: ["); c != NULL; c = strstr(c + 1, "lbsim: [")) {
    if (c != out && c[-1] != '\n' && !(c - out >= 3 && strncmp(c - 3, "\033[K", 3) == 0))
      g_error("a line written after a progress line: ...%.60s", c > out + 30 ? c - 30 : out);
  }
}

void
hostile_register_small(void)
{
  g_test_add_func("/hostile/small/attached-values", attached_values);
  g_test_add_func("/hostile/small/check-reads-all-first", check_reads_all_first);
  g_test_add_func("/hostile/small/settings-first", settings_first);
  g_test_add_func("/hostile/small/progress-cleared", progress_cleared);
}
