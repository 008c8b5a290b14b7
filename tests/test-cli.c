/* The lbsim command as a user meets it: help, list, run, check, errors,
 * determinism and the shipped scenarios. */
#include <glib.h>
#include <glib/gstdio.h>
#include <json-glib/json-glib.h>
#include <errno.h>
#include <math.h>
#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/wait.h>
#include <unistd.h>

#include "balancers/dls/chunks.h"
#include "geometry/curve.h"
#include "cli/commands.h"
#include "core/stack.h"
#include "lbsim-spawn.h"
#include "lbsim/scenario.h"

static char *tmp_dir;

static char *
tmp_path(const char *name)
{
  if (tmp_dir == NULL)
    tmp_dir = g_dir_make_tmp("lbsim-cli-XXXXXX", NULL);
  g_assert_nonnull(tmp_dir);
  return g_build_filename(tmp_dir, name, NULL);
}

/* A folder and everything in it, copied to dst (which must not exist). */
static void
copy_tree(const char *src, const char *dst)
{
  g_assert_cmpint(g_mkdir(dst, 0700), ==, 0);
  g_autoptr(GDir) d = g_dir_open(src, 0, NULL);
  g_assert_nonnull(d);
  const char *name;
  while ((name = g_dir_read_name(d)) != NULL) {
    g_autofree char *from = g_build_filename(src, name, NULL);
    g_autofree char *to = g_build_filename(dst, name, NULL);
    if (g_file_test(from, G_FILE_TEST_IS_DIR)) {
      copy_tree(from, to);
      continue;
    }
    g_autofree char *text = NULL;
    gsize len = 0;
    g_assert_true(g_file_get_contents(from, &text, &len, NULL));
    g_assert_true(g_file_set_contents(to, text, (gssize)len, NULL));
  }
}

static void
test_help(void)
{
  g_auto(Result) v = {0}, h = {0}, rh = {0}, bad = {0}, none = {0};
  lbsim(&v, "--version", NULL);
  g_assert_cmpint(v.status, ==, 0);
  g_assert_true(g_str_has_prefix(v.out, "lbsim "));
  lbsim(&h, "--help", NULL);
  g_assert_cmpint(h.status, ==, 0);
  /* every command a line of --help, its usage line made from the same
   * row (the command's name once, then its arguments) */
  const char *const commands[][2] = {
      {"run", "SCENARIO.ini"},
      {"check", "SCENARIO.ini [MORE.ini ...]"},
      {"report", "RESULT.json DIR"},
      {"list", "[BALANCER | --markdown | --scenarios]"},
      {"explain", "BALANCER [SCENARIO.ini]"},
      {"curve", "hilbert|morton"},
      {"chunks", "stat|ss|fsc|gss|tss|fac|frac|wf|awf|af"},
      {"sweep", "SCENARIO.ini"},
      {"merge", "STATE-DIR|RUN.result ..."},
      {"reproduce", "[KEY]"},
      {"run-job", "JOB.ini RESULT.json"},
  };
  for (guint i = 0; i < G_N_ELEMENTS(commands); i++) {
    g_autofree char *line = g_strdup_printf("\n  %s %s", commands[i][0], commands[i][1]);
    g_assert_nonnull(strstr(h.out, line));
    g_auto(Result) c = {0};
    lbsim(&c, commands[i][0], "--help", NULL);
    g_assert_cmpint(c.status, ==, 0);
    /* GOption's ellipsis is the locale's */
    g_autofree char *options = g_strdup_printf("lbsim %s [OPTION", commands[i][0]);
    g_autofree char *args = g_strdup_printf("] %s\n", commands[i][1]);
    g_autofree char *without =
        g_strdup_printf("Usage: lbsim %s %s\n", commands[i][0], commands[i][1]);
    const char *at = strstr(c.out, options);
    const char *end = at != NULL ? strchr(at, ']') : NULL;
    if ((end == NULL || !g_str_has_prefix(end, args)) && !g_str_has_prefix(c.out, without))
      g_error("lbsim %s --help:\n%s", commands[i][0], c.out);
  }
  lbsim(&none, "help", NULL);
  g_assert_cmpstr(none.out, ==, h.out);
  g_clear_pointer(&none.out, g_free);
  g_clear_pointer(&none.err, g_free);
  lbsim(&rh, "run", "--help", NULL);
  g_assert_cmpint(rh.status, ==, 0);
  g_assert_nonnull(strstr(rh.out, "--ranks"));
  g_assert_nonnull(strstr(rh.out, "--set"));
  g_assert_true(
      g_regex_match_simple("--paje=FILE .*several balancers: FILE.BALANCER", rh.out, 0, 0));
  g_assert_true(g_regex_match_simple("--message-trace=FILE .*several balancers: FILE.BALANCER",
                                     rh.out, 0, 0));
  g_auto(Result) ch = {0}, hc = {0};
  lbsim(&ch, "curve", "--help", NULL);
  g_assert_cmpint(ch.status, ==, 0);
  g_assert_nonnull(strstr(ch.out, "--order=K"));
  lbsim(&hc, "help", "curve", NULL);
  g_assert_cmpint(hc.status, ==, 0);
  g_assert_cmpstr(hc.out, ==, ch.out);
  g_auto(Result) kh = {0}, hk = {0};
  lbsim(&kh, "chunks", "--help", NULL);
  g_assert_cmpint(kh.status, ==, 0);
  g_assert_nonnull(strstr(kh.out, "--iterations=N"));
  g_assert_nonnull(strstr(kh.out, "--set=dls.KEY=VALUE"));
  lbsim(&hk, "help", "chunks", NULL);
  g_assert_cmpstr(hk.out, ==, kh.out);
  lbsim(&bad, "frobnicate", NULL);
  g_assert_cmpint(bad.status, ==, 2);
  g_assert_nonnull(strstr(bad.err, "unknown command 'frobnicate'"));
  g_assert_nonnull(strstr(bad.err, "Usage: lbsim COMMAND"));
  /* -q on every command: in its help, and taken */
  for (const LbCommand *c = lb_commands(); c->name != NULL; c++) {
    if (strcmp(c->name, "help") == 0 || strcmp(c->name, "version") == 0)
      continue;
    g_auto(Result) usage = {0};
    lbsim(&usage, c->name, "--help", NULL);
    g_assert_cmpint(usage.status, ==, 0);
    if (strstr(usage.out, "-q, --quiet") == NULL)
      g_error("lbsim %s --help names no -q, --quiet:\n%s", c->name, usage.out);
  }
  g_auto(Result) quiet_list = {0}, quiet_explain = {0};
  lbsim(&quiet_list, "list", "-q", "mlb", NULL);
  g_assert_cmpint(quiet_list.status, ==, 0);
  g_assert_true(g_str_has_prefix(quiet_list.out, "mlb: "));
  lbsim(&quiet_explain, "explain", "mlb", "-q", NULL);
  g_assert_cmpint(quiet_explain.status, ==, 0);
  g_assert_cmpstr(quiet_explain.err, ==, "");
  /* a mistyped command: the nearest named, not the whole help */
  static const char *const typos[][2] = {
      {"runn", "run"}, {"reprodcue", "reproduce"}, {"chekc", "check"}, {"repro", "reproduce"}};
  for (guint i = 0; i < G_N_ELEMENTS(typos); i++) {
    g_auto(Result) typo = {0};
    lbsim(&typo, typos[i][0], NULL);
    g_assert_cmpint(typo.status, ==, 2);
    g_autofree char *want = g_strdup_printf("lbsim: unknown command '%s': did you mean '%s'?",
                                            typos[i][0], typos[i][1]);
    g_assert_nonnull(strstr(typo.err, want));
    g_assert_null(strstr(typo.err, "Usage: lbsim COMMAND"));
    /* and asked for its help */
    g_auto(Result) help_typo = {0};
    lbsim(&help_typo, "help", typos[i][0], NULL);
    g_assert_cmpint(help_typo.status, ==, 2);
    g_assert_cmpstr(help_typo.out, ==, "");
    g_assert_nonnull(strstr(help_typo.err, want));
  }
  g_auto(Result) help_far = {0}, help_version = {0}, version_dirs = {0};
  lbsim(&help_far, "help", "frobnicate", NULL);
  g_assert_cmpint(help_far.status, ==, 2);
  g_assert_cmpstr(help_far.err, ==,
                  "lbsim: unknown command 'frobnicate' (lbsim --help lists them)\n");
  /* version's help is a help, not the version: the man page has no folder */
  lbsim(&help_version, "help", "version", NULL);
  g_assert_cmpint(help_version.status, ==, 0);
  g_assert_true(g_str_has_prefix(help_version.out, "Usage: lbsim version\n\n"));
  g_assert_null(strstr(help_version.out, source_root()));
  /* from the build tree: the data and the docs of the source tree */
  lbsim(&version_dirs, "version", NULL);
  g_autofree char *docs = g_strdup_printf("\ndocs: %s/docs\n", source_root());
  g_assert_nonnull(strstr(version_dirs.out, docs));
  lbsim(&none, "run", NULL);
  g_assert_cmpint(none.status, ==, 2);
}

static void
test_list(void)
{
  g_auto(Result) all = {0}, one = {0}, bad = {0};
  lbsim(&all, "list", NULL);
  g_assert_cmpint(all.status, ==, 0);
  g_assert_nonnull(strstr(all.out, "none: "));
  g_assert_nonnull(strstr(all.out, "mlb: "));
  g_assert_nonnull(strstr(all.out, "halving | even (default: halving)"));
  g_assert_nonnull(strstr(all.out, "[workload] keys"));
  lbsim(&one, "list", "mlb", NULL);
  g_assert_cmpint(one.status, ==, 0);
  g_assert_null(strstr(one.out, "none: "));
  g_assert_nonnull(strstr(one.out, "phases: accumulate, desired, amounts, migrate"));
  lbsim(&bad, "list", "nonesuch", NULL);
  g_assert_cmpint(bad.status, ==, 2);
}

#define SMALL                                                                                      \
  "--ranks", "16", "--platform", "platforms/hypercube-16.xml", "--set", "workload.size=5000"

/* Every family with guard pages and half the stack of a run of many ranks
 * (core/stack.h): a balancer whose calls grow deeper crashes here, where a
 * run past LB_GUARD_PAGES_MAX_RANKS, without guard pages, would overflow
 * silently. */
static void
test_run_stack_margin(void)
{
  static const char *const scenarios[][3] = {
      {"scenarios/all-families-1024.ini", "--ranks=64", "--platform=hypercube-64.xml"},
      {"scenarios/samr-amr64-32.ini", NULL, NULL},
      {"scenarios/htree-clusters-64.ini", NULL, NULL},
      {"scenarios/dls-aqr-hetero-32.ini", NULL, NULL},
  };
  if (g_getenv("LBSIM_SANITIZED") != NULL) {
    g_test_skip("the sanitizers' red zones make every frame larger");
    return;
  }
  g_autofree char *stack = g_strdup_printf("contexts/stack-size:%d", LB_SMALL_STACK_KIB / 2);
  for (guint i = 0; i < G_N_ELEMENTS(scenarios); i++) {
    g_autoptr(GPtrArray) argv = g_ptr_array_new();
    g_ptr_array_add(argv, "run");
    g_ptr_array_add(argv, "-q");
    g_ptr_array_add(argv, (gpointer)scenarios[i][0]);
    for (guint a = 1; a < 3 && scenarios[i][a] != NULL; a++)
      g_ptr_array_add(argv, (gpointer)scenarios[i][a]);
    g_ptr_array_add(argv, "--set");
    g_ptr_array_add(argv, "scenario.steps=2");
    g_ptr_array_add(argv, "--cfg");
    g_ptr_array_add(argv, stack);
    g_ptr_array_add(argv, NULL);
    g_auto(Result) r = {0};
    spawn_lbsim_argv(&r, NULL, (const char *const *)argv->pdata);
    if (r.status != 0)
      g_error("%s with %s: exit %d\n%s", scenarios[i][0], stack, r.status, r.err);
  }
}

static void
test_run_json(void)
{
  g_autofree char *json = tmp_path("run.json");
  g_autofree char *csv = tmp_path("run.csv");
  g_auto(Result) r = {0};
  lbsim(&r, "run", "-q", "scenarios/mlb-hypercube-1024.ini", SMALL, "--json", json, "--csv", csv,
        "--detail", NULL);
  g_assert_cmpint(r.status, ==, 0);
  g_assert_nonnull(strstr(r.out, "none "));
  g_assert_nonnull(strstr(r.out, "mlb "));
  g_autoptr(JsonNode) root = load_json(json);
  JsonObject *doc = json_node_get_object(root);
  g_assert_cmpint(json_object_get_int_member(doc, "ranks"), ==, 16);
  g_assert_cmpint(
      json_object_get_int_member(json_object_get_object_member(doc, "platform"), "hosts"), ==, 16);
  JsonArray *runs = json_object_get_array_member(doc, "runs");
  g_assert_cmpuint(json_array_get_length(runs), ==, 2);
  JsonObject *mlb = json_array_get_object_element(runs, 1);
  g_assert_cmpstr(json_object_get_string_member(mlb, "balancer"), ==, "mlb");
  g_assert_cmpstr(
      json_object_get_string_member(json_object_get_object_member(mlb, "params"), "desired"), ==,
      "halving");
  JsonObject *summary = json_object_get_object_member(mlb, "summary");
  g_assert_cmpfloat(json_object_get_double_member(summary, "imbalance_after"), <,
                    json_object_get_double_member(summary, "imbalance_before"));
  g_assert_cmpint(json_object_get_int_member(summary, "schedule_steps"), <=, 4);
  g_assert_cmpuint(json_array_get_length(json_object_get_array_member(mlb, "final_loads")), ==, 16);
  g_assert_cmpuint(json_array_get_length(json_object_get_array_member(mlb, "phases")), ==, 4);
  g_assert_true(json_object_has_member(mlb, "schedule"));
  g_assert_true(
      json_object_has_member(json_object_get_object_member(mlb, "measured"), "wall_seconds"));
  g_autofree char *csv_text = NULL;
  g_assert_true(g_file_get_contents(csv, &csv_text, NULL, NULL));
  g_assert_true(g_str_has_prefix(csv_text, "balancer,imbalance_before,"));
  g_assert_nonnull(strstr(csv_text, "\nmlb,"));
}

static void
assert_json_file(const char *path)
{
  g_autoptr(JsonNode) root = load_json(path);
  g_assert_true(JSON_NODE_HOLDS_OBJECT(root));
}

/* A symlink is written through to its target; a FIFO or a character
 * device is written in place: none of them is replaced by a new file. */
static void
test_output_special(void)
{
  g_autofree char *target = tmp_path("target.json");
  g_autofree char *link = tmp_path("link.json");
  g_assert_true(g_file_set_contents(target, "old", -1, NULL));
  g_unlink(link);
  g_assert_cmpint(symlink(target, link), ==, 0);
  g_auto(Result) r = {0};
  lbsim(&r, "run", "-q", "scenarios/mlb-teach-16.ini", "--json", link, NULL);
  g_assert_cmpint(r.status, ==, 0);
  g_assert_true(g_file_test(link, G_FILE_TEST_IS_SYMLINK));
  assert_json_file(target);

  /* The reader is opened first, so lbsim's open does not wait for one. */
  g_autofree char *fifo = tmp_path("fifo.json");
  g_unlink(fifo);
  g_assert_cmpint(mkfifo(fifo, 0600), ==, 0);
  int fd = open(fifo, O_RDONLY | O_NONBLOCK);
  g_assert_cmpint(fd, >=, 0);
  g_auto(Result) f = {0};
  lbsim(&f, "run", "-q", "scenarios/mlb-teach-16.ini", "--csv", fifo, NULL);
  g_assert_cmpint(f.status, ==, 0);
  char buf[4096];
  ssize_t n = read(fd, buf, sizeof buf - 1);
  close(fd);
  GStatBuf st;
  g_assert_cmpint(g_lstat(fifo, &st), ==, 0);
  g_assert_true(S_ISFIFO(st.st_mode));
  g_assert_cmpint(n, >, 0);
  buf[n] = '\0';
  g_assert_true(g_str_has_prefix(buf, "balancer,imbalance_before,"));

  /* A character device of our own (like /dev/null), where we may make one. */
  g_autofree char *device = tmp_path("null");
  g_unlink(device);
  if (mknod(device, S_IFCHR | 0666, makedev(1, 3)) != 0) {
    g_test_message("mknod: %s; the device case is not tried", g_strerror(errno));
    return;
  }
  g_auto(Result) d = {0};
  lbsim(&d, "run", "-q", "scenarios/mlb-teach-16.ini", "--json", device, NULL);
  g_assert_cmpint(d.status, ==, 0);
  g_assert_cmpint(g_lstat(device, &st), ==, 0);
  g_assert_true(S_ISCHR(st.st_mode));
}

/* Every output path is checked before anything runs: exit 2, one line that
 * names the option and the user's path, and no simulation started. */
static void
expect_output_error(const char *option, const char *path, const char *needle)
{
  g_auto(Result) r = {0};
  lbsim(&r, "run", "scenarios/mlb-teach-16.ini", option, path, NULL);
  g_test_message("%s %s: %s", option, path, r.err);
  g_assert_cmpint(r.status, ==, 2);
  g_assert_cmpstr(r.out, ==, "");
  g_autofree char *named = g_strdup_printf("lbsim: %s %s", option, path);
  g_assert_true(g_str_has_prefix(r.err, named));
  g_assert_nonnull(strstr(r.err, needle));
  g_assert_null(strstr(r.err, "running"));
  g_assert_cmpint(strchr(r.err, '\n') - r.err, ==, strlen(r.err) - 1);
}

static void
test_output_checks(void)
{
  const char *options[] = {"--json", "--csv", "--paje", "--message-trace"};
  for (guint i = 0; i < G_N_ELEMENTS(options); i++)
    expect_output_error(options[i], "/nonexistent/d/x.out",
                        ": the folder /nonexistent/d does not exist");
  g_autofree char *dir = tmp_path("");
  expect_output_error("--json", dir, "is a folder, not a file");
  expect_output_error("--csv", "", "an empty file name");
  /* with two balancers the traces are FILE.none.paje and FILE.mlb.paje */
  g_autofree char *taken = tmp_path("taken");
  g_autofree char *none = tmp_path("taken.none.paje");
  g_assert_cmpint(g_mkdir_with_parents(none, 0700), ==, 0);
  expect_output_error("--paje", taken, "taken.none.paje: is a folder, not a file");
  g_rmdir(none);

  g_auto(Result) both = {0}, same = {0};
  lbsim(&both, "run", "-q", "scenarios/mlb-teach-16.ini", "--json", "-", "--csv", "-", NULL);
  g_assert_cmpint(both.status, ==, 2);
  g_assert_cmpstr(both.out, ==, "");
  g_assert_nonnull(
      strstr(both.err, "--json standard output and --csv standard output are one file"));
  g_autofree char *out = tmp_path("same.out");
  lbsim(&same, "run", "-q", "scenarios/mlb-teach-16.ini", "--json", out, "--csv", out, NULL);
  g_assert_cmpint(same.status, ==, 2);
  g_assert_false(g_file_test(out, G_FILE_TEST_EXISTS));
}

static char *
without_measured(const char *path)
{
  g_autoptr(JsonNode) root = load_json(path);
  JsonArray *runs = json_object_get_array_member(json_node_get_object(root), "runs");
  for (guint i = 0; i < json_array_get_length(runs); i++)
    json_object_remove_member(json_array_get_object_element(runs, i), "measured");
  return json_to_string(root, TRUE);
}

static void
test_determinism(void)
{
  g_autofree char *a = tmp_path("a.json");
  g_autofree char *b = tmp_path("b.json");
  g_auto(Result) ra = {0}, rb = {0};
  lbsim(&ra, "run", "-q", "-j", "2", "scenarios/mlb-hypercube-1024.ini", SMALL, "--set",
        "scenario.steps=3", "--detail", "--json", a, NULL);
  lbsim(&rb, "run", "-q", "-j", "1", "scenarios/mlb-hypercube-1024.ini", SMALL, "--set",
        "scenario.steps=3", "--detail", "--json", b, NULL);
  g_assert_cmpint(ra.status, ==, 0);
  g_assert_cmpint(rb.status, ==, 0);
  g_autofree char *ta = without_measured(a);
  g_autofree char *tb = without_measured(b);
  g_assert_cmpstr(ta, ==, tb);
  /* The raw files differ at most inside "measured". */
  g_autofree char *raw_a = NULL, *raw_b = NULL;
  g_assert_true(g_file_get_contents(a, &raw_a, NULL, NULL));
  g_assert_true(g_file_get_contents(b, &raw_b, NULL, NULL));
  g_autofree char *cut_a = g_strndup(raw_a, (gsize)(strstr(raw_a, "\"measured\"") - raw_a));
  g_autofree char *cut_b = g_strndup(raw_b, (gsize)(strstr(raw_b, "\"measured\"") - raw_b));
  g_assert_cmpstr(cut_a, ==, cut_b);
  /* Another seed gives other loads. */
  g_autofree char *c = tmp_path("c.json");
  g_auto(Result) rc = {0};
  lbsim(&rc, "run", "-q", "scenarios/mlb-hypercube-1024.ini", SMALL, "--set", "scenario.steps=3",
        "--set", "scenario.seed=8", "--detail", "--json", c, NULL);
  g_autofree char *tc = without_measured(c);
  g_assert_cmpstr(ta, !=, tc);

  /* In one process (--no-fork) the mlb run is the same as forked. */
  g_autofree char *d = tmp_path("d.json");
  g_autofree char *e = tmp_path("e.json");
  g_auto(Result) rd = {0}, re = {0}, bad = {0};
  lbsim(&rd, "run", "-q", "scenarios/mlb-hypercube-1024.ini", SMALL, "--set", "scenario.steps=3",
        "--balancer", "mlb", "--detail", "--json", d, NULL);
  lbsim(&re, "run", "-q", "scenarios/mlb-hypercube-1024.ini", SMALL, "--set", "scenario.steps=3",
        "--balancer", "mlb", "--detail", "--no-fork", "--json", e, NULL);
  g_assert_cmpint(rd.status, ==, 0);
  g_assert_cmpint(re.status, ==, 0);
  g_autofree char *td = without_measured(d);
  g_autofree char *te = without_measured(e);
  g_assert_cmpstr(td, ==, te);
  /* ... and so is a run of every model, whose work the run changes in
   * this process (an H-tree refines: its elements were those after the
   * run; 2 of its 10 steps, one of them balanced, are enough to show it and
   * take a fifth of the time) */
  static const char *const of_model[][4] = {
      {"array1d", "mlb-teach-16", "mlb", "1"},
      {"field2d", "field2d-hypercube-64", "mlb-nd", "10"},
      {"field3d", "field3d-t3e-64", "lbd", "6"},
      {"samr", "samr-lock-in-8", "move-split", "1"},
      {"htree", "htree-clusters-64", "sfc-shift", "2"},
      {"loop", "loop-aqr-hetero-16", "dls", "1"},
  };
  for (guint m = 0; m < G_N_ELEMENTS(of_model); m++) {
    g_autofree char *forked = tmp_path("forked.json");
    g_autofree char *alone = tmp_path("alone.json");
    g_autofree char *steps = g_strdup_printf("scenario.steps=%s", of_model[m][3]);
    g_auto(Result) rf = {0}, ra1 = {0};
    lbsim(&rf, "run", "-q", of_model[m][1], "--balancer", of_model[m][2], "--set", steps,
          "--detail", "--json", forked, NULL);
    lbsim(&ra1, "run", "-q", of_model[m][1], "--balancer", of_model[m][2], "--set", steps,
          "--detail", "--no-fork", "--json", alone, NULL);
    g_assert_cmpint(rf.status, ==, 0);
    g_assert_cmpint(ra1.status, ==, 0);
    g_autofree char *tf = without_measured(forked);
    g_autofree char *tal = without_measured(alone);
    g_assert_nonnull(strstr(tf, of_model[m][0]));
    if (g_strcmp0(tf, tal) != 0)
      g_error("%s (%s): the JSON differs with --no-fork", of_model[m][1], of_model[m][0]);
  }
  lbsim(&bad, "run", "-q", "scenarios/mlb-hypercube-1024.ini", "--no-fork", NULL);
  g_assert_cmpint(bad.status, ==, 2);
  g_assert_nonnull(strstr(bad.err, "--no-fork runs one balancer"));
}

/* An input error: exit 2, one message naming what is wrong, no output. */
static void
expect_input_error(const char *const *extra, const char *needle)
{
  g_autofree char *json = tmp_path("error.json");
  g_unlink(json);
  g_autoptr(GPtrArray) argv = g_ptr_array_new();
  g_ptr_array_add(argv, (gpointer)g_getenv("LBSIM"));
  g_ptr_array_add(argv, "run");
  g_ptr_array_add(argv, "-q");
  g_ptr_array_add(argv, "scenarios/mlb-hypercube-1024.ini");
  for (guint i = 0; extra[i] != NULL; i++)
    g_ptr_array_add(argv, (gpointer)extra[i]);
  g_ptr_array_add(argv, "--json");
  g_ptr_array_add(argv, json);
  g_ptr_array_add(argv, NULL);
  g_autofree char *out = NULL, *err = NULL;
  int wait_status = 0;
  g_assert_true(g_spawn_sync(source_root(), (char **)argv->pdata, NULL, G_SPAWN_DEFAULT, NULL, NULL,
                             &out, &err, &wait_status, NULL));
  g_test_message("%s", err);
  g_assert_true(WIFEXITED(wait_status));
  g_assert_cmpint(WEXITSTATUS(wait_status), ==, 2);
  g_assert_nonnull(strstr(err, needle));
  g_assert_false(g_file_test(json, G_FILE_TEST_EXISTS));
  g_assert_cmpstr(out, ==, "");
  g_assert_cmpint(strchr(err, '\n') - err, ==, strlen(err) - 1); /* one line, no backtrace */
}

static void
test_input_errors(void)
{
  const char *unknown_key[] = {"--set", "scenario.bogus=1", NULL};
  expect_input_error(unknown_key, "mlb-hypercube-1024.ini: [scenario] bogus: unknown key");
  const char *unknown_group[] = {"--set", "bogus.x=1", NULL};
  expect_input_error(unknown_group, "[bogus]: unknown group");
  const char *bad_value[] = {"--set", "mlb.desired=sometimes", NULL};
  expect_input_error(bad_value, "[mlb] desired: 'sometimes' is not one of: halving, even");
  const char *range[] = {"--set", "scenario.steps=0", NULL};
  expect_input_error(range, "[scenario] steps: 0 is out of range");
  const char *too_many[] = {"--ranks", "64", "--platform", "platforms/hypercube-16.xml", NULL};
  expect_input_error(too_many, "[scenario] ranks: 64 ranks need 64 hosts, but platform");
  const char *not_pow2[] = {"--ranks", "12", NULL};
  expect_input_error(not_pow2, "[scenario] ranks: mlb runs on a hypercube of p = 2^d ranks; 12");
  const char *no_platform[] = {"--platform", "nowhere.xml", NULL};
  expect_input_error(no_platform, "[scenario] platform: --platform: 'nowhere.xml' not found");
  const char *no_balancer[] = {"--balancer", "teleport", NULL};
  expect_input_error(no_balancer, "unknown balancer 'teleport'");
  const char *bad_set[] = {"--set", "ranks", NULL};
  expect_input_error(bad_set, "expected GROUP.KEY=VALUE");
  const char *spaced_set[] = {"--set", "scenario. ranks=8", NULL};
  expect_input_error(spaced_set, "--set scenario. ranks=8: expected GROUP.KEY=VALUE");
  const char *bad_background[] = {"--set", "scenario.background=n0-n3:0", NULL};
  expect_input_error(bad_background, "[scenario] background: 'n0-n3:0': the share '0' is not");
  const char *no_host[] = {"--set", "scenario.background=n0:0.5,n1024:0.5", NULL};
  expect_input_error(no_host, "[scenario] background: no host 'n1024' on platform");
  const char *bracket_set[] = {"--set", "[scenario].ranks=8", NULL};
  expect_input_error(bracket_set, "--set [scenario].ranks=8: expected GROUP.KEY=VALUE");
  /* 0 is not "not given", and no count is negative */
  const char *no_ranks[] = {"--ranks", "0", NULL};
  expect_input_error(no_ranks, "--ranks '0': expected a whole number from 1");
  const char *negative_ranks[] = {"--ranks", "-16", NULL};
  expect_input_error(negative_ranks, "--ranks '-16': expected a whole number from 1");
  const char *no_jobs[] = {"-j", "0", NULL};
  expect_input_error(no_jobs, "--jobs '0': expected a whole number from 1");
  const char *negative_jobs[] = {"--jobs", "-1", NULL};
  expect_input_error(negative_jobs, "--jobs '-1': expected a whole number from 1");
}

#define PLATFORM_HEAD                                                                              \
  "<?xml version='1.0'?>\n<!DOCTYPE platform SYSTEM \"https://simgrid.org/simgrid.dtd\">\n"        \
  "<platform version=\"4.1\">\n"
#define FOUR_HOSTS                                                                                 \
  "<host id=\"n0\" speed=\"1Gf\"/><host id=\"n1\" speed=\"1Gf\"/>\n"                               \
  "<host id=\"n2\" speed=\"1Gf\"/><host id=\"n3\" speed=\"1Gf\"/>\n"
#define FOUR_ROUTES                                                                                \
  "<route src=\"n0\" dst=\"n1\"><link_ctn id=\"l\"/></route>\n"                                    \
  "<route src=\"n0\" dst=\"n2\"><link_ctn id=\"l\"/></route>\n"                                    \
  "<route src=\"n0\" dst=\"n3\"><link_ctn id=\"l\"/></route>\n"

/* Platforms SimGrid aborts on, while loading or in the middle of a run: each
 * is one line of input error naming the platform, before anything runs. */
static const struct {
  const char *name;
  const char *xml;
  const char *needle;
} bad_platforms[] = {
    {"broken",
     PLATFORM_HEAD "<zone id=\"a\" routing=\"Full\"><host id=\"n0\" speed=\"1Gf\"/>"
                   "</zon></platform>\n",
     "[scenario] platform: SimGrid could not load "},
    {"no-host", PLATFORM_HEAD "<zone id=\"a\" routing=\"Full\">\n</zone></platform>\n",
     "no-host.xml has no host"},
    {"no-route",
     PLATFORM_HEAD
     "<zone id=\"a\" routing=\"Full\">\n" FOUR_HOSTS
     "<link id=\"l\" bandwidth=\"1GBps\" latency=\"1us\"/>\n"
     "<route src=\"n0\" dst=\"n1\"><link_ctn id=\"l\"/></route>\n</zone></platform>\n",
     "no-route.xml: no route from host n0 to host n2"},
    {"no-route-floyd",
     PLATFORM_HEAD
     "<zone id=\"a\" routing=\"Floyd\">\n" FOUR_HOSTS
     "<link id=\"l\" bandwidth=\"1GBps\" latency=\"1us\"/>\n"
     "<route src=\"n0\" dst=\"n1\"><link_ctn id=\"l\"/></route>\n</zone></platform>\n",
     "no-route-floyd.xml: SimGrid failed looking up the routes between the ranks' hosts: No "
     "route from 'n0' to 'n2'"},
    {"no-zone-route",
     PLATFORM_HEAD "<zone id=\"w\" routing=\"Full\">\n"
                   "<zone id=\"a\" routing=\"Full\"><host id=\"n0\" speed=\"1Gf\"/>"
                   "<host id=\"n1\" speed=\"1Gf\"/></zone>\n"
                   "<zone id=\"b\" routing=\"Full\"><host id=\"n2\" speed=\"1Gf\"/>"
                   "<host id=\"n3\" speed=\"1Gf\"/></zone>\n</zone></platform>\n",
     "no-zone-route.xml: no route from host n0 to host n1"},
    {"speed-0",
     PLATFORM_HEAD "<zone id=\"a\" routing=\"Full\">\n"
                   "<host id=\"n0\" speed=\"1Gf\"/><host id=\"n1\" speed=\"1Gf\"/>\n"
                   "<host id=\"n2\" speed=\"0Gf\"/><host id=\"n3\" speed=\"1Gf\"/>\n"
                   "<link id=\"l\" bandwidth=\"1GBps\" latency=\"1us\"/>\n" FOUR_ROUTES
                   "</zone></platform>\n",
     "speed-0.xml:6: <host id=\"n2\"> speed=\"0Gf\": must be more than 0"},
    {"bandwidth-0",
     PLATFORM_HEAD "<zone id=\"a\" routing=\"Full\">\n" FOUR_HOSTS
                   "<link id=\"l\" bandwidth=\"0Bps\" latency=\"1us\"/>\n" FOUR_ROUTES
                   "</zone></platform>\n",
     "bandwidth-0.xml:7: <link id=\"l\"> bandwidth=\"0Bps\": must be more than 0"},
    {"cluster-bandwidth-0",
     PLATFORM_HEAD "<zone id=\"a\" routing=\"Full\">\n<cluster id=\"c\" prefix=\"n\" suffix=\"\" "
                   "radical=\"0-3\" speed=\"1Gf\" bw=\"0MBps\" lat=\"1us\"/>\n</zone></platform>\n",
     "cluster-bandwidth-0.xml:5: <cluster id=\"c\"> bw=\"0MBps\": must be more than 0"},
};

static void
test_bad_platforms(void)
{
  for (guint i = 0; i < G_N_ELEMENTS(bad_platforms); i++) {
    g_autofree char *name = g_strdup_printf("%s.xml", bad_platforms[i].name);
    g_autofree char *xml = tmp_path(name);
    g_assert_true(g_file_set_contents(xml, bad_platforms[i].xml, -1, NULL));
    const char *extra[] = {"--platform", xml, "--ranks", "4", "--balancer", "none", NULL};
    expect_input_error(extra, bad_platforms[i].needle);
  }
}

/* A setting SimGrid rejects: one line of input error, not a backtrace. */
static void
test_bad_settings(void)
{
  const char *key[] = {"--cfg", "bogus:1", NULL};
  expect_input_error(key, "SimGrid rejects --cfg bogus:1: Bad config key: bogus");
  const char *form[] = {"--cfg", "nocolon", NULL};
  expect_input_error(form, "SimGrid rejects --cfg nocolon: Option 'nocolon' badly formatted");
  const char *value[] = {"--cfg", "network/model:Nope", NULL};
  expect_input_error(value, "Model 'Nope' is invalid!");
  const char *boolean[] = {"--balancer", "none", "--cfg", "tracing:maybe", NULL};
  expect_input_error(boolean, "SimGrid rejects --cfg tracing:maybe: not a boolean");
  const char *level[] = {"--log", "lb.thres:loud", NULL};
  expect_input_error(level, "SimGrid rejects --log lb.thres:loud: Unknown priority name: loud");
  const char *control[] = {"--log", "garbage", NULL};
  expect_input_error(control, "SimGrid rejects --log garbage: Invalid control string 'garbage'");
}

static void
test_explain(void)
{
  g_auto(Result) r = {0}, bad = {0};
  lbsim(&r, "explain", "mlb", NULL);
  g_assert_cmpint(r.status, ==, 0);
  /* The default case: 24 elements of loads 9 (first 30%) and 1, total 80
   * over 8 ranks, so the root of the tree holds 80 and wants 80. */
  g_assert_nonnull(strstr(r.out, "level 0: 80(80)"));
  g_assert_nonnull(strstr(r.out, "level 3: 27(10) 27(10) 11(10) 3(10) 3(10) 3(10) 3(10) 3(10)"));
  g_assert_nonnull(strstr(r.out, "(gray codes of ranks 0 .. 7: 000 001 011 010 110 111 101 100)"));
  g_assert_nonnull(strstr(r.out, "accumulate t="));
  g_assert_nonnull(strstr(r.out, "; loan "));
  g_assert_nonnull(strstr(r.out, "  migrate step 0:\n    rank "));
  g_assert_nonnull(strstr(r.out, "Imbalance (max/avg): 2.7000 before"));
  lbsim(&bad, "explain", "mlb", "--ranks", "6", NULL);
  g_assert_cmpint(bad.status, ==, 2);
  g_assert_nonnull(strstr(bad.err, "not a power of two"));
  g_auto(Result) zero = {0};
  lbsim(&zero, "explain", "mlb", "--ranks", "0", NULL);
  g_assert_cmpint(zero.status, ==, 2);
  g_assert_nonnull(strstr(zero.err, "--ranks '0': expected a whole number from 1"));

  /* The built-in example fits the ranks, and its errors name it, not the
   * temporary file it is read from. */
  g_auto(Result) sixteen = {0}, set = {0}, twelve = {0}, huge = {0};
  lbsim(&sixteen, "explain", "mlb", "--ranks", "16", NULL);
  g_assert_cmpint(sixteen.status, ==, 0);
  g_assert_nonnull(strstr(sixteen.out, "mlb on 16 ranks ("));
  g_assert_nonnull(strstr(sixteen.out, "(hypercube-16.xml), array1d of 48 units"));
  lbsim(&set, "explain", "mlb", "--set", "scenario.ranks=32", NULL);
  g_assert_cmpint(set.status, ==, 0);
  g_assert_nonnull(strstr(set.out, "(hypercube-32.xml), array1d of 96 units"));
  lbsim(&twelve, "explain", "mlb", "--ranks", "12", NULL);
  g_assert_cmpint(twelve.status, ==, 2);
  g_assert_true(g_str_has_prefix(twelve.err, "lbsim: the built-in example: [scenario] ranks: "));
  lbsim(&huge, "explain", "none", "--ranks", "32768", "--set", "workload.size=64", NULL);
  g_assert_cmpint(huge.status, ==, 2);
  g_assert_nonnull(strstr(huge.err, "lbsim: the built-in example: [scenario] ranks: 32768 ranks"));
  g_assert_null(strstr(huge.err, "explain.ini"));

  /* --loads: one element per value, in blocks over the ranks; one rank
   * per value by default. 1 2 3 4 5 6 on 2 ranks: 6 and 15. */
  g_auto(Result) given = {0}, spread = {0};
  lbsim(&given, "explain", "mlb", "--loads", "5,1,7,3,0,8,2,6", NULL);
  g_assert_cmpint(given.status, ==, 0);
  g_assert_true(
      g_str_has_prefix(given.out, "mlb on 8 ranks (hypercube-8.xml), array1d of 8 units\n"));
  g_assert_nonnull(strstr(given.out, "  rank  4  units   4 ..   4  load     0  [ 0 ]\n"));
  lbsim(&spread, "explain", "mlb", "--loads", "1, 2,3,4,5,6", "--ranks", "2", NULL);
  g_assert_cmpint(spread.status, ==, 0);
  g_assert_nonnull(strstr(spread.out, "  rank  0  units   0 ..   2  load     6  [ 1 2 3 ]\n"
                                      "  rank  1  units   3 ..   5  load    15  [ 4 5 6 ]\n"));
  g_autofree char *many = g_strnfill(2 * 1025 - 1, '1');
  for (gsize i = 1; i < 2 * 1025 - 1; i += 2)
    many[i] = ',';
  const struct {
    const char *balancer, *loads, *more, *error;
  } bad_loads[] = {
      {"mlb", "", NULL, "--loads: no loads;"},
      {"mlb", "5,,1", NULL, "--loads: load 1 is empty"},
      {"mlb", "5,x,1,2", NULL, "--loads: load 1 is 'x', not a whole number from 0 to 4294967295"},
      {"mlb", "5,1.5", NULL, "--loads: load 1 is '1.5', not a whole number"},
      {"mlb", "5,-3", NULL, "--loads: load 1 is '-3': loads are not negative"},
      {"mlb", "4294967296,1", NULL, "--loads: load 0 is '4294967296', not a whole number"},
      {"mlb", many, NULL, "--loads: 1025 loads, more than the 1024 explain takes"},
      {"mlb", "1,2,3", NULL,
       "--loads: 3 loads: one rank per load is the default only for a "
       "power of two"},
      /* only counts it would take: powers of two, at most one per load */
      {"mlb", "1,2,3,4,5,6,7", NULL, "give --ranks R, R one of 1, 2, 4\n"},
      {"mlb", "1,2", "--ranks=4", "--loads: 2 loads for 4 ranks: give at least one load per rank"},
      {"lbd", "1,2", NULL,
       "--loads: the loads are those of the 1D array's elements, and lbd "
       "runs on field2d, field3d"},
      {"mlb", "1,2", "scenarios/mlb-teach-16.ini", "--loads: it makes the case itself"},
  };
  for (guint i = 0; i < G_N_ELEMENTS(bad_loads); i++) {
    g_auto(Result) b = {0};
    lbsim(&b, "explain", bad_loads[i].balancer, "--loads", bad_loads[i].loads, bad_loads[i].more,
          NULL);
    g_test_message("%s", b.err);
    g_assert_cmpint(b.status, ==, 2);
    g_assert_true(g_str_has_prefix(b.err, "lbsim: "));
    g_assert_nonnull(strstr(b.err, bad_loads[i].error));
    g_assert_cmpstr(b.out, ==, "");
  }

  /* a balancer that does not run on the 1D array gets a small 2D field */
  g_auto(Result) lbd = {0};
  lbsim(&lbd, "explain", "lbd", NULL);
  g_assert_cmpint(lbd.status, ==, 0);
  g_assert_nonnull(strstr(lbd.out, "lbd on 8 ranks ("));
  g_assert_nonnull(strstr(lbd.out, "field2d of 128 units"));
  g_assert_nonnull(strstr(lbd.out, "Initial distribution (blocks 4x2;"));
  g_assert_nonnull(strstr(lbd.out, "level 0 (x): metric"));
  g_assert_nonnull(
      strstr(lbd.out, "Final boxes (cells, half-open) and neighbours:\n  rank  0  [0, "));

  /* loop scheduling gets a loop; the narrated chunks (fac, 4 ranks, 24
   * iterations) tile [0, 24), the first batch of four chunks of
   * ceil(24 / 8) = 3 goes out unasked, each rank's from its own block */
  g_auto(Result) dls = {0};
  lbsim(&dls, "explain", "dls", "--ranks", "4", NULL);
  g_assert_cmpint(dls.status, ==, 0);
  g_assert_nonnull(strstr(dls.out, "loop of 24 units"));
  for (guint k = 0; k < 4; k++) {
    /* the master's own chunk is an order to itself, no message */
    g_autofree char *to = k == 0 ? g_strdup("itself (no message)") : g_strdup_printf("rank %u", k);
    g_autofree char *first = g_strdup_printf(
        "first chunk, unasked, for rank %u: chunk %u, 3 iterations [%u, %u) (fac, batch 1, "
        "R_b = 24: ceil(R_b / 2P) = ceil(24 / 8) = 3); its own data: WRK to %s; %u left "
        "unscheduled",
        k, k + 1, 6 * k, 6 * k + 3, to, 21 - 3 * k);
    g_assert_nonnull(strstr(dls.out, first));
  }
  guint8 covered[24] = {0};
  guint chunks = 0;
  g_autoptr(GRegex) chunk = g_regex_new(" iterations? \\[(\\d+), (\\d+)\\)", 0, 0, NULL);
  g_autoptr(GMatchInfo) match = NULL;
  for (g_regex_match(chunk, dls.out, 0, &match); g_match_info_matches(match);
       g_match_info_next(match, NULL), chunks++) {
    g_autofree char *lo_text = g_match_info_fetch(match, 1),
                    *hi_text = g_match_info_fetch(match, 2);
    guint64 lo = g_ascii_strtoull(lo_text, NULL, 10), hi = g_ascii_strtoull(hi_text, NULL, 10);
    g_assert_cmpuint(hi, <=, 24);
    for (guint64 i = lo; i < hi; i++)
      covered[i]++;
  }
  g_assert_cmpuint(chunks, >=, 4);
  for (guint i = 0; i < 24; i++)
    g_assert_cmpuint(covered[i], ==, 1);
}

/* The H-tree case, worked out by hand from the algorithm. Step 0's tree
 * has 37 hnodes of load 1 on 8 ranks: average 4.625, and the blocking cuts
 * at the boundaries nearest 4.625 k (ties to the earlier one): 5, 9, 14,
 * 18, 23, 28, 32, so loads 5 4 5 4 5 5 4 5, max_unbalance 0.625 under
 * T = 0.2 x 4.625. The Hilbert curve of the 16 x 16 finest grid visits the
 * level-1 squares (0,0) (0,1) (1,1) (1,0) at positions 0, 64, 128, 192, and
 * inside (0,0) the level-2 squares (0,0) (1,0) (1,1) (0,1): key = position
 * x 32 + level. */
static void
test_explain_sfc(void)
{
  g_auto(Result) r = {0};
  lbsim(&r, "explain", "sfc-shift", NULL);
  g_test_message("%s%s", r.out, r.err);
  g_assert_cmpint(r.status, ==, 0);
  const char *const expected[] = {
      "sfc-shift on 8 ranks (",
      "htree of 37 units",
      "Initial distribution (blocks of the hilbert curve's hnode sequence",
      "  rank  3    4 hnodes  load     4  [ 1 1 1 1 ]\n",
      "  step 0: 37 hnodes, load 37\n    #0       0 L0(0,0)    #1       1 L1(0,0)    #2       2 "
      "L2(0,0)*   #3     514 L2(1,0)*\n    #4    1026 L2(1,1)*   #5    1538 L2(0,1)*   #6    2049 "
      "L1(0,1)",
      "#19   4097 L1(1,1)",
      "#32   6145 L1(1,0)",
      "the blocking strategy's segments: P_0 #0-#4, P_1 #5-#8, P_2 #9-#13, P_3 #14-#17, P_4 "
      "#18-#22, P_5 #23-#27, P_6 #28-#31, P_7 #32-#36\n",
      "rank 1: step 0, segment before: 4 hnodes, load 4, keys 1538 .. 2051, L2(0,1) .. L3(0,4)",
      "rank 0: load 5, average 4.625: max_unbalance 0.625 <= T 0.925",
      /* P_1 holds L2(0,1) L1(0,1) L2(0,2) L3(0,4): the first and the second
       * have parents elsewhere */
      "rank 1: private roots (2): L2(0,1) L1(0,1)\n",
      "replicated tree: the segments start at keys P_0 0, P_1 1538, P_2 2052, P_3 2307, P_4 3586, "
      "P_5 5634, P_6 6020, P_7 6145\n",
      /* step 1 starts from loads 13 11 0 2 5 1 0 5: Unb(Pre_i) is the sum of
       * the loads before i less 4.625 i */
      "rank 0: step 1, segment before: 13 hnodes",
      "rank 1: step 1, segment before: 11 hnodes",
      "rank 2: step 1, segment before: empty",
      "rank 1: load 11, average 4.625: max_unbalance 8.375 > T 0.925",
      "rank 1: Unb(Pre) 8.375, Unb(Suc) -14.750 (T 0.925): receive from P_0, send 14.750 to P_2",
      "rank 2: Unb(Pre) 14.750, Unb(Suc) -10.125 (T 0.925): receive from P_1, send 10.125 to P_3",
      "rank 4: Unb(Pre) 7.500, Unb(Suc) -7.875 (T 0.925): receive from P_3, send 7.875 to P_5",
      "rank 6: Unb(Pre) 4.250, Unb(Suc) 0.375 (T 0.925): receive from P_5",
      "rank 7: Unb(Pre) -0.375, Unb(Suc) 0.000 (T 0.925): nothing to do",
      /* the piece nearest 8.375 */
      "rank 0: round 0: 8 hnodes (load 8 of 8.375 to send) to P_1: ",
      /* P_1 has 11 of the 14.75 to send, then passes on 4 of the 8 it got
       * (4 is nearer 3.75 than 3) */
      "rank 1: round 0: 11 hnodes (load 11 of 14.750 to send, all I had: stays open) to P_2: ",
      "rank 1: round 1: 4 hnodes (load 4 of 3.750 to send) to P_2: ",
      /* P_3 sent its 2 of 7.5, then 5 of the 5.5 left (ties: fewer) */
      "rank 3: round 0: 2 hnodes (load 2 of 7.500 to send, all I had: stays open) to P_4: ",
      "rank 3: round 2: 5 hnodes (load 5 of 5.500 to send) to P_4: ",
      /* P_4 sends 5 + 2 + 1 of 7.875 */
      "rank 4: round 3: 1 hnode (load 1 of 0.875 to send) to P_5: ",
      /* every hop counted: 5 + 2 + 1 */
      "rank 4: shift over after 4 rounds: I sent 8 hnodes on (a hop each)",
      "rank 0: step 1, segment after: 5 hnodes, load 5, keys 0 .. 1026, L0(0,0) .. L2(1,1)",
      "  adaptation step 1, round 0:\n    rank  0 -> rank  1  8 hnodes  load 8\n",
      "  adaptation step 1, round 3:\n    rank  4 -> rank  5  1 hnode  load 1\n",
      /* 13-8, 11+8-15, 0+15-10, 2+10-7, 5+7-8, 1+8-4, 0+4, 5 */
      "Final loads: 5 4 5 5 4 5 4 5\n",
  };
  for (guint i = 0; i < G_N_ELEMENTS(expected); i++) {
    g_test_message("expecting: %s", expected[i]);
    g_assert_nonnull(strstr(r.out, expected[i]));
  }
  /* nothing shifts at step 0 */
  g_assert_null(strstr(r.out, "step 0, segment after"));
  g_assert_null(strstr(r.out, "adaptation step 0, round"));
}

/* Messages follow the user's locale, numbers do not: SimGrid reads the platform's "1.266Gf", and
 * the table, the CSV and the message trace print with '.' under a locale that writes "1,5". */
static void
test_locale(void)
{
  g_auto(GStrv) utf8 = g_environ_setenv(g_get_environ(), "LC_ALL", "C.UTF-8", TRUE);
  g_auto(Result) missing = {0};
  lbsim_env(&missing, utf8, "run", "no/such/scenario.ini", NULL);
  g_assert_cmpint(missing.status, ==, 2);
  g_assert_nonnull(strstr(missing.err, "no/such/scenario.ini: cannot read"));

  g_autofree char *locales = tmp_path("locales");
  g_autofree char *german = tmp_path("locales/de_DE.UTF-8");
  g_assert_cmpint(g_mkdir_with_parents(locales, 0700), ==, 0);
  const char *localedef[] = {"localedef", "-i", "de_DE", "-f", "UTF-8", german, NULL};
  int wait_status = 0;
  if (!g_spawn_sync(NULL, (char **)localedef, NULL,
                    G_SPAWN_SEARCH_PATH | G_SPAWN_STDOUT_TO_DEV_NULL | G_SPAWN_STDERR_TO_DEV_NULL,
                    NULL, NULL, NULL, NULL, &wait_status, NULL) ||
      !g_spawn_check_wait_status(wait_status, NULL)) {
    g_test_skip("localedef could not make de_DE.UTF-8");
    return;
  }
  g_auto(GStrv) env = g_environ_setenv(g_get_environ(), "LC_ALL", "de_DE.UTF-8", TRUE);
  env = g_environ_setenv(env, "LOCPATH", locales, TRUE);
  g_autofree char *json = tmp_path("locale.json");
  g_autofree char *csv = tmp_path("locale.csv");
  g_autofree char *trace = tmp_path("locale.trace");
  g_auto(Result) r = {0};
  lbsim_env(&r, env, "run", "-q", "scenarios/mlb-teach-16.ini", "--platform",
            "platforms/hetero-cluster-16.xml", "--balancer", "mlb", "--set", "mlb.sum-flops=0.3",
            "--json", json, "--csv", csv, "--message-trace", trace, NULL);
  g_test_message("%s%s", r.out, r.err);
  g_assert_cmpint(r.status, ==, 0);
  g_assert_true(g_regex_match_simple("mlb +[0-9]+\\.[0-9]{4} +[0-9]+\\.[0-9]{4} ", r.out, 0, 0));
  assert_json_file(json);
  g_autofree char *csv_text = NULL, *trace_text = NULL;
  g_assert_true(g_file_get_contents(csv, &csv_text, NULL, NULL));
  g_assert_true(
      g_regex_match_simple("^mlb(,[-0-9.e+]+){9}(,[-0-9.e+]*)*$", csv_text, G_REGEX_MULTILINE, 0));
  g_assert_true(g_file_get_contents(trace, &trace_text, NULL, NULL));
  g_assert_true(
      g_regex_match_simple("^[0-9]+ X [0-9]+\\.[0-9]+$", trace_text, G_REGEX_MULTILINE, 0));
}

/* A file name is bytes: where it is not UTF-8 the JSON holds U+FFFD for each
 * stray byte and stays valid; UTF-8 text passes unchanged. */
static void
test_json_utf8(void)
{
  g_autofree char *ini = tmp_path("bytes-\xff\xfe.ini");
  g_assert_true(g_file_set_contents(ini,
                                    "[scenario]\nplatform = hypercube-16.xml\nranks = 16\n"
                                    "description = caf\xc3\xa9\n"
                                    "[workload]\nsize = 64\n[balancers]\nrun = none\n",
                                    -1, NULL));
  g_autofree char *json = tmp_path("utf8.json");
  g_auto(Result) r = {0}, named = {0};
  lbsim(&r, "run", "-q", ini, "--json", json, NULL);
  g_assert_cmpint(r.status, ==, 0);
  g_autofree char *text = NULL;
  g_assert_true(g_file_get_contents(json, &text, NULL, NULL));
  g_assert_true(g_utf8_validate(text, -1, NULL));
  g_assert_nonnull(strstr(text, "\"name\": \"bytes-\\ufffd\\ufffd\""));
  g_autoptr(JsonNode) root = load_json(json);
  JsonObject *scenario = json_object_get_object_member(json_node_get_object(root), "scenario");
  g_assert_true(g_str_has_suffix(json_object_get_string_member(scenario, "file"),
                                 "/bytes-\xef\xbf\xbd\xef\xbf\xbd.ini"));

  lbsim(&named, "run", "-q", ini, "--set", "scenario.name=\xce\xbb-\"q\"\\", "--json", json, NULL);
  g_assert_cmpint(named.status, ==, 0);
  g_autoptr(JsonNode) named_root = load_json(json);
  scenario = json_object_get_object_member(json_node_get_object(named_root), "scenario");
  g_assert_cmpstr(json_object_get_string_member(scenario, "name"), ==, "\xce\xbb-\"q\"\\");
}

/* --set workload.pattern on a file written for another pattern: the file's
 * keys of its own pattern no longer matter. */
static void
test_set_pattern(void)
{
  g_auto(Result) r = {0};
  lbsim(&r, "run", "-q", "scenarios/mlb-teach-16.ini", "--balancer", "mlb", "--set",
        "workload.pattern=hotspots", "--set", "mlb.desired=even", NULL);
  g_assert_cmpint(r.status, ==, 0);
  g_assert_nonnull(strstr(r.out, "mlb "));
}

/* With nothing to compute a rank races into the next step while rank 0
 * still checks this one: the check must not read the next step's loads. */
static void
test_no_compute(void)
{
  g_auto(Result) r = {0};
  lbsim(&r, "run", "-q", "scenarios/mlb-dynamic-hotspots-256.ini", "--set",
        "workload.flops-per-unit=0", "--set", "scenario.steps=5", NULL);
  g_test_message("%s", r.err);
  g_assert_cmpint(r.status, ==, 0);
}

/* Receives posted ahead (sfc-shift's collections, section 5.3's
 * MPI_Irecv) are traced as gets posted (G) before the receives that
 * harvest them (R), and the replay posts them too: it ends at lbsim's
 * simulated time (replayed as blocking gets in the order harvested, a
 * rank's get came after its wait for sends that needed it: deadlock). */
static void
test_traces_posted(void)
{
  g_autofree char *messages = tmp_path("posted.txt");
  g_autofree char *json = tmp_path("posted.json");
  g_auto(Result) r = {0};
  lbsim(&r, "run", "-q", "-p", "4", "-b", "sfc-shift:informed", "--message-trace", messages,
        "--json", json, "scenarios/papers/baiardi2001/problem1.ini", NULL);
  g_assert_cmpint(r.status, ==, 0);
  g_autofree char *pattern = NULL;
  g_assert_true(g_file_get_contents(messages, &pattern, NULL, NULL));
  g_assert_nonnull(strstr(pattern, " G\n"));
  g_autoptr(JsonNode) root = load_json(json);
  JsonObject *run = json_array_get_object_element(
      json_object_get_array_member(json_node_get_object(root), "runs"), 0);
  double total =
      json_object_get_double_member(json_object_get_object_member(run, "summary"), "total_time");
  const char *argv[] = {g_getenv("LBSIM_BARE_REPLAY"), messages, NULL};
  g_autofree char *out = NULL, *err = NULL;
  int wait_status = 0;
  g_assert_nonnull(argv[0]);
  g_assert_true(g_spawn_sync(NULL, (char **)argv, NULL, G_SPAWN_DEFAULT, NULL, NULL, &out, &err,
                             &wait_status, NULL));
  g_test_message("%s%s", out, err);
  g_assert_true(WIFEXITED(wait_status) && WEXITSTATUS(wait_status) == 0);
  const char *at = strstr(out, " sim_time=");
  g_assert_nonnull(at);
  double replayed = g_ascii_strtod(at + strlen(" sim_time="), NULL);
  g_assert_cmpfloat(fabs(replayed - total), <, 1e-9 * total);
}

static void
test_traces(void)
{
  g_autofree char *paje = tmp_path("run.trace");
  g_autofree char *messages = tmp_path("messages.txt");
  g_auto(Result) r = {0};
  lbsim(&r, "run", "-q", "scenarios/mlb-teach-16.ini", "--balancer", "mlb", "--paje", paje,
        "--message-trace", messages, NULL);
  g_assert_cmpint(r.status, ==, 0);
  g_autofree char *text = NULL;
  g_assert_true(g_file_get_contents(paje, &text, NULL, NULL));
  g_assert_true(g_str_has_prefix(text, "#This file was generated using SimGrid"));
  g_assert_nonnull(strstr(text, "%EventDef"));
  g_autofree char *pattern = NULL;
  g_assert_true(g_file_get_contents(messages, &pattern, NULL, NULL));
  g_assert_true(g_str_has_prefix(pattern, "# lbsim-message-trace 1 ranks=16 platform="));
  g_assert_nonnull(strstr(pattern, "placement=gray\n"));
  /* Every send has its receive: as many S lines as R lines. */
  guint sends = 0, receives = 0;
  g_auto(GStrv) lines = g_strsplit(pattern, "\n", -1);
  for (guint i = 0; lines[i] != NULL; i++) {
    sends += strstr(lines[i], " S ") != NULL;
    receives += strstr(lines[i], " R ") != NULL;
  }
  g_assert_cmpuint(sends, >, 0);
  g_assert_cmpuint(sends, ==, receives);

  /* tools/bench replays it on bare SimGrid: same messages, same end time. */
  const char *argv[] = {g_getenv("LBSIM_BARE_REPLAY"), messages, NULL};
  g_autofree char *out = NULL, *err = NULL;
  int wait_status = 0;
  g_assert_nonnull(argv[0]);
  g_assert_true(g_spawn_sync(NULL, (char **)argv, NULL, G_SPAWN_DEFAULT, NULL, NULL, &out, &err,
                             &wait_status, NULL));
  g_assert_true(WIFEXITED(wait_status) && WEXITSTATUS(wait_status) == 0);
  g_autofree char *count = g_strdup_printf(" messages=%u ", sends);
  g_assert_nonnull(strstr(out, count));
  /* and with lbsim's allocator settings (it restarts itself with them):
   * the same replay, to the simulated time */
  const char *tuned_argv[] = {argv[0], "--lbsim-allocator", messages, NULL};
  g_autofree char *tuned = NULL, *tuned_err = NULL;
  g_assert_true(g_spawn_sync(NULL, (char **)tuned_argv, NULL, G_SPAWN_DEFAULT, NULL, NULL, &tuned,
                             &tuned_err, &wait_status, NULL));
  g_assert_true(WIFEXITED(wait_status) && WEXITSTATUS(wait_status) == 0);
  g_assert_nonnull(strstr(tuned, count));
  g_autofree char *sim_time =
      g_strndup(strstr(out, " sim_time="), strcspn(strstr(out, " sim_time=") + 1, " ") + 1);
  g_assert_nonnull(strstr(tuned, sim_time));

  /* With several balancers each writes FILE.BALANCER (Paje: FILE.BALANCER.paje,
   * FILE's own .paje dropped first), and FILE is not written. */
  g_autofree char *both = tmp_path("both.trace");
  g_autofree char *both_messages = tmp_path("both.txt");
  g_autofree char *both_paje = tmp_path("both.paje");
  g_auto(Result) b = {0}, c = {0};
  lbsim(&b, "run", "-q", "scenarios/mlb-teach-16.ini", "--paje", both, "--message-trace",
        both_messages, NULL);
  g_assert_cmpint(b.status, ==, 0);
  lbsim(&c, "run", "-q", "scenarios/mlb-teach-16.ini", "--paje", both_paje, NULL);
  g_assert_cmpint(c.status, ==, 0);
  g_assert_false(g_file_test(both_paje, G_FILE_TEST_EXISTS));
  const char *const names[] = {"both.trace.none.paje", "both.trace.mlb.paje", "both.txt.none",
                               "both.txt.mlb",         "both.none.paje",      "both.mlb.paje"};
  for (guint i = 0; i < G_N_ELEMENTS(names); i++) {
    g_autofree char *path = tmp_path(names[i]);
    g_assert_true(g_file_test(path, G_FILE_TEST_IS_REGULAR));
  }
  g_assert_false(g_file_test(both, G_FILE_TEST_EXISTS));
  g_assert_false(g_file_test(both_messages, G_FILE_TEST_EXISTS));
}

/* placement = cost on the torus: the JSON names the construction, the
 * message trace lists the hosts, and the bare replay uses them. */
/* One host's "phase" states from pj_dump, in time order. */
typedef struct {
  double start, end;
  char *value;
} PajeState;

static void
paje_state_clear(gpointer data)
{
  g_free(((PajeState *)data)->value);
}

/* The --paje trace as pajeng reads it: every rank's host goes through
 * sync, balance, mlb's four phases, sync, application at every step, with
 * no gap, and the longest stay of any rank in a phase is the phase's time
 * in the JSON (the longest any rank spent there), the longest in
 * application the step's app_time. */
static void
test_paje_states(void)
{
  g_autofree char *pj_dump = g_find_program_in_path("pj_dump");
  if (pj_dump == NULL) {
    g_test_skip("pj_dump (Debian package pajeng, tools/install-deps) is not installed");
    return;
  }
  g_autofree char *paje = tmp_path("states.trace");
  g_autofree char *json = tmp_path("states.json");
  g_auto(Result) r = {0};
  lbsim(&r, "run", "-q", "scenarios/mlb-teach-16.ini", "--balancer", "mlb", "--set",
        "scenario.steps=3", "--set", "workload.pattern=hotspots", "--paje", paje, "--json", json,
        NULL);
  g_assert_cmpint(r.status, ==, 0);
  const char *argv[] = {pj_dump, "-l", "9", paje, NULL};
  g_autofree char *out = NULL, *err = NULL;
  int wait_status = 0;
  g_assert_true(g_spawn_sync(NULL, (char **)argv, NULL, G_SPAWN_DEFAULT, NULL, NULL, &out, &err,
                             &wait_status, NULL));
  g_test_message("%s", err);
  g_assert_true(WIFEXITED(wait_status) && WEXITSTATUS(wait_status) == 0);
  g_assert_cmpstr(err, ==, "");

  /* State, HOST, phase, START, END, DURATION, DEPTH, VALUE */
  g_autoptr(GHashTable) hosts =
      g_hash_table_new_full(g_str_hash, g_str_equal, g_free, (GDestroyNotify)g_array_unref);
  g_auto(GStrv) lines = g_strsplit(out, "\n", -1);
  for (guint i = 0; lines[i] != NULL; i++) {
    g_auto(GStrv) f = g_strsplit(lines[i], ", ", -1);
    if (g_strv_length(f) != 8 || strcmp(f[0], "State") != 0 || strcmp(f[2], "phase") != 0)
      continue;
    GArray *states = g_hash_table_lookup(hosts, f[1]);
    if (states == NULL) {
      states = g_array_new(FALSE, FALSE, sizeof(PajeState));
      g_array_set_clear_func(states, paje_state_clear);
      g_hash_table_insert(hosts, g_strdup(f[1]), states);
    }
    PajeState st = {g_ascii_strtod(f[3], NULL), g_ascii_strtod(f[4], NULL), g_strdup(f[7])};
    g_array_append_val(states, st);
  }
  g_assert_cmpuint(g_hash_table_size(hosts), ==, 16);

  g_autoptr(JsonNode) root = load_json(json);
  JsonObject *run = json_array_get_object_element(
      json_object_get_array_member(json_node_get_object(root), "runs"), 0);
  JsonArray *steps = json_object_get_array_member(run, "adaptations");
  g_assert_cmpuint(json_array_get_length(steps), ==, 3);
  static const char *const cycle[] = {"sync",    "balance", "accumulate", "desired",
                                      "amounts", "migrate", "sync",       "application"};
  const guint per_step = G_N_ELEMENTS(cycle);
  double longest[3][G_N_ELEMENTS(cycle)] = {{0}};
  GHashTableIter it;
  gpointer key, value;
  g_hash_table_iter_init(&it, hosts);
  while (g_hash_table_iter_next(&it, &key, &value)) {
    GArray *states = value;
    g_test_message("host %s: %u states", (const char *)key, states->len);
    /* the three steps, then the final sync */
    g_assert_cmpuint(states->len, ==, 3 * per_step + 1);
    const PajeState *s = (const PajeState *)states->data;
    g_assert_cmpfloat(s[0].start, ==, 0);
    for (guint i = 0; i < states->len; i++) {
      const char *expected = i < 3 * per_step ? cycle[i % per_step] : "sync";
      g_assert_cmpstr(s[i].value, ==, expected);
      g_assert_cmpfloat(s[i].end, >=, s[i].start);
      if (i > 0)
        g_assert_cmpfloat(s[i].start, ==, s[i - 1].end);
      if (i < 3 * per_step)
        longest[i / per_step][i % per_step] =
            MAX(longest[i / per_step][i % per_step], s[i].end - s[i].start);
    }
  }
  for (guint a = 0; a < 3; a++) {
    JsonObject *step = json_array_get_object_element(steps, a);
    JsonObject *metrics = json_object_get_object_member(step, "metrics");
    for (guint k = 2; k < 6; k++) {
      g_autofree char *name = g_strdup_printf("%s_time", cycle[k]);
      g_assert_cmpfloat_with_epsilon(longest[a][k], json_object_get_double_member(metrics, name),
                                     2e-9);
    }
    g_assert_cmpfloat(longest[a][2], >, 0);
    g_assert_cmpfloat_with_epsilon(longest[a][7], json_object_get_double_member(step, "app_time"),
                                   2e-9);
  }
}

static void
test_placement_cost(void)
{
  g_autofree char *json = tmp_path("cost.json");
  g_autofree char *messages = tmp_path("cost.txt");
  g_auto(Result) r = {0}, plain = {0};
  lbsim(&r, "run", "-q", "scenarios/field3d-t3e-64.ini", "--balancer", "none", "--set",
        "scenario.placement=cost", "--json", json, "--message-trace", messages, NULL);
  g_assert_cmpint(r.status, ==, 0);
  g_autoptr(JsonNode) root = load_json(json);
  JsonArray *runs = json_object_get_array_member(json_node_get_object(root), "runs");
  g_assert_cmpstr(
      json_object_get_string_member(json_array_get_object_element(runs, 0), "placement"), ==,
      "cost (snake)");

  g_autofree char *text = NULL;
  g_assert_true(g_file_get_contents(messages, &text, NULL, NULL));
  g_autofree char *header = g_strndup(text, strcspn(text, "\n"));
  g_assert_nonnull(strstr(header, " placement=cost hosts=n0,n1,n2,n3,n4,n5,n6,n7,n15,n14,"));
  g_auto(GStrv) hosts = g_strsplit(strstr(header, "hosts=") + strlen("hosts="), ",", -1);
  g_assert_cmpuint(g_strv_length(hosts), ==, 64);
  guint sends = 0;
  g_auto(GStrv) lines = g_strsplit(text, "\n", -1);
  for (guint i = 0; lines[i] != NULL; i++)
    sends += strstr(lines[i], " S ") != NULL;
  const char *argv[] = {g_getenv("LBSIM_BARE_REPLAY"), messages, NULL};
  g_autofree char *out = NULL, *err = NULL;
  int wait_status = 0;
  g_assert_nonnull(argv[0]);
  g_assert_true(g_spawn_sync(NULL, (char **)argv, NULL, G_SPAWN_DEFAULT, NULL, NULL, &out, &err,
                             &wait_status, NULL));
  g_assert_true(WIFEXITED(wait_status) && WEXITSTATUS(wait_status) == 0);
  g_autofree char *count = g_strdup_printf(" messages=%u ", sends);
  g_assert_nonnull(strstr(out, count));

  /* The torus without cost: rank r on host r, as before. */
  g_autofree char *plain_json = tmp_path("plain.json");
  lbsim(&plain, "run", "-q", "scenarios/field3d-t3e-64.ini", "--balancer", "none", "--json",
        plain_json, NULL);
  g_assert_cmpint(plain.status, ==, 0);
  g_autoptr(JsonNode) plain_root = load_json(plain_json);
  runs = json_object_get_array_member(json_node_get_object(plain_root), "runs");
  g_assert_cmpstr(
      json_object_get_string_member(json_array_get_object_element(runs, 0), "placement"), ==,
      "linear");
}

/* placement = queue on the paper's cluster: the run's hosts are whole
 * nodes of the draw (the trace's header lists them, and the bare replay
 * runs on them), the same seed gives the same JSON and hosts, another seed
 * other hosts and another loop, placement-seed other hosts and the same
 * loop. */
static char *
queue_run(const char *seed, const char *json, const char *messages)
{
  g_auto(Result) r = {0};
  g_autofree char *set_seed = g_strdup_printf("scenario.%s", seed);
  lbsim(&r, "run", "-q", "scenarios/loop-aqr-hetero-16.ini", "--platform",
        "platforms/dual-cluster-225-128.xml", "--balancer", "dls:fac", "--set",
        "scenario.placement=queue", "--set", set_seed, "--set", "workload.iterations=400", "--json",
        json, "--message-trace", messages, NULL);
  g_assert_cmpint(r.status, ==, 0);
  g_autofree char *text = NULL;
  g_assert_true(g_file_get_contents(messages, &text, NULL, NULL));
  return g_strndup(text, strcspn(text, "\n"));
}

static void
test_placement_queue(void)
{
  g_autofree char *json = tmp_path("queue.json"), *again_json = tmp_path("queue-again.json");
  g_autofree char *other_json = tmp_path("queue-other.json");
  g_autofree char *messages = tmp_path("queue.txt"), *again_messages = tmp_path("queue-again.txt");
  g_autofree char *other_messages = tmp_path("queue-other.txt");
  g_autofree char *drawn_json = tmp_path("queue-drawn.json");
  g_autofree char *drawn_messages = tmp_path("queue-drawn.txt");
  g_autofree char *header = queue_run("seed=1", json, messages);
  g_autofree char *again = queue_run("seed=1", again_json, again_messages);
  g_autofree char *other = queue_run("seed=2", other_json, other_messages);
  g_autofree char *drawn = queue_run("placement-seed=2", drawn_json, drawn_messages);

  g_assert_nonnull(strstr(header, " placement=queue hosts="));
  g_auto(GStrv) hosts = g_strsplit(strstr(header, "hosts=") + strlen("hosts="), ",", -1);
  g_assert_cmpuint(g_strv_length(hosts), ==, 16);
  for (guint r = 0; r < 16; r += 2) {
    guint64 even = g_ascii_strtoull(hosts[r] + 1, NULL, 10);
    g_assert_cmpuint(even % 2, ==, 0);
    g_assert_cmpuint(g_ascii_strtoull(hosts[r + 1] + 1, NULL, 10), ==, even + 1);
  }
  g_assert_cmpstr(header, ==, again);
  g_assert_cmpstr(header, !=, other);
  g_autofree char *a = without_measured(json), *b = without_measured(again_json);
  g_assert_cmpstr(a, ==, b);
  /* placement-seed 2 with seed 1: seed 2's nodes, seed 1's loop */
  g_assert_cmpstr(strstr(drawn, "hosts="), ==, strstr(other, "hosts="));
  double before[3];
  const char *const documents[] = {json, drawn_json, other_json};
  for (guint i = 0; i < 3; i++) {
    g_autoptr(JsonNode) doc = load_json(documents[i]);
    JsonObject *run = json_array_get_object_element(
        json_object_get_array_member(json_node_get_object(doc), "runs"), 0);
    before[i] = json_object_get_double_member(json_object_get_object_member(run, "summary"),
                                              "imbalance_before");
    JsonObject *scenario = json_object_get_object_member(json_node_get_object(doc), "scenario");
    g_assert_cmpint(json_object_has_member(scenario, "placement_seed"), ==, i == 1);
  }
  g_assert_cmpfloat(before[0], ==, before[1]);
  g_assert_cmpfloat(before[0], !=, before[2]);
  g_autoptr(JsonNode) root = load_json(json);
  JsonArray *runs = json_object_get_array_member(json_node_get_object(root), "runs");
  g_assert_cmpstr(
      json_object_get_string_member(json_array_get_object_element(runs, 0), "placement"), ==,
      "queue");

  const char *argv[] = {g_getenv("LBSIM_BARE_REPLAY"), messages, NULL};
  g_autofree char *out = NULL, *err = NULL;
  int wait_status = 0;
  g_assert_nonnull(argv[0]);
  g_assert_true(g_spawn_sync(NULL, (char **)argv, NULL, G_SPAWN_DEFAULT, NULL, NULL, &out, &err,
                             &wait_status, NULL));
  g_test_message("bare replay: %s%s", out, err);
  g_assert_true(WIFEXITED(wait_status) && WEXITSTATUS(wait_status) == 0);
}

static void
test_check(void)
{
  g_auto(Result) pass = {0}, fail = {0};
  lbsim(&pass, "check", "-q", "scenarios/mlb-hypercube-1024.ini", SMALL, "--set",
        "expect.mlb.amounts-steps=== 10", "--set", "expect.mlb.accumulate-steps=== 4", "--set",
        "expect.mlb.imbalance-after=<= 1.01", NULL);
  g_assert_cmpint(pass.status, ==, 0);
  g_assert_nonnull(strstr(pass.out, "PASS  mlb.schedule_steps <= 10"));
  lbsim(&fail, "check", "-q", "scenarios/mlb-hypercube-1024.ini", SMALL, "--set",
        "expect.mlb.schedule-steps=< 2", NULL);
  g_assert_cmpint(fail.status, ==, 1);
  g_assert_nonnull(strstr(fail.out, "FAIL  mlb.schedule_steps < 2 (actual 4)"));
  g_assert_nonnull(strstr(fail.out, " failed"));

  /* several scenarios: a header each, the highest exit status; an
   * expectation of a balancer one of them does not run is skipped there */
  g_auto(Result) two = {0}, one_fails = {0}, missing = {0}, written = {0};
  lbsim(&two, "check", "-q", "scenarios/mlb-teach-16.ini", "scenarios/loop-aqr-hetero-16.ini",
        NULL);
  g_assert_cmpint(two.status, ==, 0);
  g_assert_nonnull(strstr(two.out, "== scenarios/mlb-teach-16.ini\n"));
  g_assert_nonnull(strstr(two.out, "\n== scenarios/loop-aqr-hetero-16.ini\n"));
  lbsim(&one_fails, "check", "-q", "scenarios/mlb-teach-16.ini", "scenarios/loop-aqr-hetero-16.ini",
        "--set", "expect.mlb.imbalance-after=< 1", NULL);
  g_assert_cmpint(one_fails.status, ==, 1);
  g_assert_nonnull(strstr(one_fails.out, "FAIL  mlb.imbalance_after < 1"));
  g_assert_nonnull(strstr(one_fails.out, "SKIP  mlb.imbalance_after < 1"));
  g_assert_nonnull(strstr(one_fails.out, "0 failed, 1 skipped"));
  /* relations between runs: the bound is the other run's value times the
   * factor; a run not made skips the line */
  g_auto(Result) related = {0}, unrelated = {0}, alone = {0};
  lbsim(&related, "check", "-q", "scenarios/mlb-teach-16.ini", "--set",
        "expect.mlb.imbalance-after=<= 0.6 * none.imbalance-after", NULL);
  g_assert_cmpint(related.status, ==, 0);
  g_assert_nonnull(strstr(related.out, "PASS  mlb.imbalance_after <= 0.6 * none.imbalance_after "
                                       "(actual 1.538461538, bound 1.846153846)"));
  lbsim(&unrelated, "check", "-q", "scenarios/mlb-teach-16.ini", "--set",
        "expect.mlb.imbalance-after=>= none.imbalance-after", NULL);
  g_assert_cmpint(unrelated.status, ==, 1);
  g_assert_nonnull(strstr(unrelated.out, "FAIL  mlb.imbalance_after >= none.imbalance_after"));
  lbsim(&alone, "check", "-q", "scenarios/mlb-teach-16.ini", "-b", "mlb", "--set",
        "expect.mlb.imbalance-after=>= none.imbalance-after", NULL);
  g_assert_cmpint(alone.status, ==, 0);
  g_assert_nonnull(strstr(alone.out, "SKIP  mlb.imbalance_after >= none.imbalance_after "
                                     "(balancer none was not run)"));
  lbsim(&missing, "check", "-q", "scenarios/mlb-teach-16.ini", "nowhere.ini", NULL);
  /* every scenario is read before any runs */
  g_assert_cmpint(missing.status, ==, 2);
  g_assert_cmpstr(missing.out, ==, "");
  g_assert_nonnull(strstr(missing.err, "nowhere.ini"));
  lbsim(&written, "check", "-q", "--csv", "x.csv", "scenarios/mlb-teach-16.ini",
        "scenarios/loop-aqr-hetero-16.ini", NULL);
  g_assert_cmpint(written.status, ==, 2);
  g_assert_nonnull(strstr(written.err, "writes one file, --json"));
  g_assert_false(g_file_test("x.csv", G_FILE_TEST_EXISTS));

  /* --json holds every [expect] line with its outcome, actual value and
   * bound: one scenario's in its run document, several scenarios' in a
   * document of each one's */
  g_autofree char *one_json = tmp_path("check-one.json");
  g_autofree char *many_json = tmp_path("check-many.json");
  g_auto(Result) one = {0}, many = {0}, report = {0};
  lbsim(&one, "check", "-q", "scenarios/mlb-teach-16.ini", "--json", one_json, "--set",
        "expect.mlb.imbalance-after=<= 0.6 * none.imbalance-after", "--set",
        "expect.mlb.schedule-steps=< 2", NULL);
  g_assert_cmpint(one.status, ==, 1);
  g_autoptr(JsonNode) one_root = load_json(one_json);
  JsonArray *checks = json_object_get_array_member(json_node_get_object(one_root), "checks");
  g_assert_cmpuint(json_array_get_length(checks), ==, 6);
  guint fails = 0;
  for (guint i = 0; i < json_array_get_length(checks); i++) {
    JsonObject *c = json_array_get_object_element(checks, i);
    const char *expect = json_object_get_string_member(c, "expect");
    const char *outcome = json_object_get_string_member(c, "outcome");
    fails += strcmp(outcome, "fail") == 0;
    if (strcmp(expect, "mlb.imbalance_after <= 0.6 * none.imbalance_after") == 0) {
      g_assert_cmpstr(outcome, ==, "pass");
      g_assert_cmpfloat_with_epsilon(json_object_get_double_member(c, "bound"), 1.846153846, 1e-9);
    }
    if (strcmp(expect, "mlb.schedule_steps < 2") == 0) {
      g_assert_cmpstr(outcome, ==, "fail");
      g_assert_cmpint(json_object_get_int_member(c, "actual"), ==, 4);
      g_assert_cmpint(json_object_get_int_member(c, "bound"), ==, 2);
    }
  }
  g_assert_cmpuint(fails, ==, 1);
  lbsim(&many, "check", "-q", "scenarios/mlb-teach-16.ini", "scenarios/loop-aqr-hetero-16.ini",
        "--set", "expect.mlb.imbalance-after=< 1", "--json", many_json, NULL);
  g_assert_cmpint(many.status, ==, 1);
  g_autoptr(JsonNode) many_root = load_json(many_json);
  JsonArray *docs = json_object_get_array_member(json_node_get_object(many_root), "checks");
  g_assert_cmpuint(json_array_get_length(docs), ==, 2);
  JsonObject *loop = json_array_get_object_element(docs, 1);
  g_assert_cmpstr(
      json_object_get_string_member(json_object_get_object_member(loop, "scenario"), "name"), ==,
      "loop-aqr-hetero-16");
  JsonArray *loop_checks = json_object_get_array_member(loop, "checks");
  JsonObject *skipped =
      json_array_get_object_element(loop_checks, json_array_get_length(loop_checks) - 1);
  g_assert_cmpstr(json_object_get_string_member(skipped, "outcome"), ==, "skip");
  g_assert_cmpstr(json_object_get_string_member(skipped, "skipped"), ==, "mlb");
  g_assert_true(JSON_NODE_HOLDS_NULL(json_object_get_member(skipped, "actual")));
  /* lbsim report names that document and reads one scenario's */
  g_autofree char *page = tmp_path("check-many-page");
  lbsim(&report, "report", many_json, page, NULL);
  g_assert_cmpint(report.status, ==, 2);
  g_assert_nonnull(strstr(report.err, "the document of a check of several scenarios"));
}

/* The numbers a chart's line draws: data-style, data-x and data-y of
 * each <path class="line"> of a series' group. */
static GPtrArray *
figure_lines(const char *svg, const char *series)
{
  g_autofree char *quoted = g_regex_escape_string(series, -1);
  g_autofree char *pattern =
      g_strdup_printf("<g class=\"series\" data-series=\"%s\"[^>]*>(.*?)</g>", quoted);
  g_autoptr(GRegex) group = g_regex_new(pattern, G_REGEX_DOTALL, 0, NULL);
  g_autoptr(GMatchInfo) m = NULL;
  g_assert_true(g_regex_match(group, svg, 0, &m));
  g_autofree char *body = g_match_info_fetch(m, 1);
  g_autoptr(GRegex) line = g_regex_new(
      "<path class=\"line\" data-style=\"([0-9]+)\" data-x=\"([^\"]*)\" data-y=\"([^\"]*)\"", 0, 0,
      NULL);
  GPtrArray *out = g_ptr_array_new_with_free_func(g_free);
  g_autoptr(GMatchInfo) l = NULL;
  for (g_regex_match(line, body, 0, &l); g_match_info_matches(l); g_match_info_next(l, NULL)) {
    g_autofree char *style = g_match_info_fetch(l, 1), *x = g_match_info_fetch(l, 2);
    g_autofree char *y = g_match_info_fetch(l, 3);
    g_ptr_array_add(out, g_strdup_printf("%s|%s|%s", style, x, y));
  }
  return out;
}

/* Fig. 13's chart of lan2002, a claim of several points on it: a line
 * per run of the original's idle processors, lbsim's points as the
 * claim's JSON gives them ("amr64 on 32"), and the least and the most the
 * paper states (5.9 and 81.2 %) dashed at each of the claim's processor
 * counts. */
static void
check_spans_figure(const char *page, JsonArray *claims)
{
  g_autofree char *svg_path = g_build_filename(page, "lan2002.fig-13-and-section-5-3.svg", NULL);
  g_autofree char *svg = NULL;
  g_assert_true(g_file_get_contents(svg_path, &svg, NULL, NULL));
  JsonObject *claim = NULL;
  for (guint i = 0; i < json_array_get_length(claims); i++) {
    JsonObject *c = json_array_get_object_element(claims, i);
    if (strcmp(json_object_get_string_member(c, "id"), "fig13-original-spans") == 0)
      claim = c;
  }
  g_assert_nonnull(claim);
  JsonArray *points = json_object_get_array_member(claim, "points");
  const char *const runs[] = {"amr64", "amr128", "shockpool3d"};
  for (guint r = 0; r < G_N_ELEMENTS(runs); r++) {
    g_autofree char *series = g_strdup_printf("enzo-original (%s)", runs[r]);
    g_autoptr(GPtrArray) lines = figure_lines(svg, series);
    g_assert_cmpuint(lines->len, ==, 3);
    g_assert_cmpstr(lines->pdata[0], ==, "1|8 16 32 48 64|5.9 5.9 5.9 5.9 5.9");
    g_assert_cmpstr(lines->pdata[1], ==, "1|8 16 32 48 64|81.2 81.2 81.2 81.2 81.2");
    g_autoptr(GString) x = g_string_new(NULL), y = g_string_new(NULL);
    for (guint k = 0; k < json_array_get_length(points); k++) {
      JsonObject *pt = json_array_get_object_element(points, k);
      g_autofree char *prefix = g_strdup_printf("%s on ", runs[r]);
      const char *at = json_object_get_string_member(pt, "at");
      if (!g_str_has_prefix(at, prefix))
        continue;
      guint ranks = (guint)g_ascii_strtoull(at + strlen(prefix), NULL, 10);
      char buf[G_ASCII_DTOSTR_BUF_SIZE];
      g_string_append_printf(x, "%s%u", x->len ? " " : "", ranks);
      g_string_append_printf(
          y, "%s%s", y->len ? " " : "",
          g_ascii_formatd(buf, sizeof buf, "%.10g", json_object_get_double_member(pt, "lbsim")));
    }
    g_assert_cmpuint(x->len, >, 0);
    g_autofree char *lbsim_line = g_strdup_printf("0|%s|%s", x->str, y->str);
    g_assert_cmpstr(lines->pdata[2], ==, lbsim_line);
  }
}

/* A reproduction's chart of one figure (KEY.NAME.svg and .csv beside the
 * page): a series per quantity, each the claims whose id starts with its
 * prefix (their processor count after it), the paper's numbers dashed
 * (style 1) and lbsim's solid (style 0, where it ran), in the order of
 * the processors, and the CSV a row per claim. */
static void
check_figure(const char *page, const char *key, const char *name, JsonArray *claims,
             const char *const *series, const char *const *prefixes, guint n)
{
  g_autofree char *base = g_strdup_printf("%s.%s.svg", key, name);
  g_autofree char *svg_path = g_build_filename(page, base, NULL);
  g_autofree char *svg = NULL;
  g_assert_true(g_file_get_contents(svg_path, &svg, NULL, NULL));
  g_autofree char *csv_base = g_strdup_printf("%s.%s.csv", key, name);
  g_autofree char *csv_path = g_build_filename(page, csv_base, NULL);
  g_autofree char *csv = NULL;
  g_assert_true(g_file_get_contents(csv_path, &csv, NULL, NULL));
  g_assert_true(g_str_has_prefix(csv, "series,processors,paper,lbsim\n"));
  guint groups = 0;
  for (const char *at = svg; (at = strstr(at, "<g class=\"series\"")) != NULL; at++)
    groups++;
  g_assert_cmpuint(groups, ==, n);
  for (guint k = 0; k < n; k++) {
    g_autoptr(GString) px = g_string_new(NULL), py = g_string_new(NULL);
    g_autoptr(GString) lx = g_string_new(NULL), ly = g_string_new(NULL);
    for (guint r = 1; r <= 1024; r++) /* the processors in order */
      for (guint i = 0; i < json_array_get_length(claims); i++) {
        JsonObject *c = json_array_get_object_element(claims, i);
        const char *id = json_object_get_string_member(c, "id");
        g_autofree char *want = g_strdup_printf("%s%u", prefixes[k], r);
        if (strcmp(id, want) != 0)
          continue;
        char buf[G_ASCII_DTOSTR_BUF_SIZE];
        g_string_append_printf(px, "%s%u", px->len ? " " : "", r);
        g_string_append_printf(
            py, "%s%s", py->len ? " " : "",
            g_ascii_formatd(buf, sizeof buf, "%.10g", json_object_get_double_member(c, "paper")));
        g_autofree char *row = g_strdup_printf("\n%s,%u,", series[k], r);
        g_assert_nonnull(strstr(csv, row));
        if (JSON_NODE_HOLDS_NULL(json_object_get_member(c, "lbsim")))
          continue;
        g_string_append_printf(lx, "%s%u", lx->len ? " " : "", r);
        g_string_append_printf(
            ly, "%s%s", ly->len ? " " : "",
            g_ascii_formatd(buf, sizeof buf, "%.10g", json_object_get_double_member(c, "lbsim")));
      }
    g_autoptr(GPtrArray) lines = figure_lines(svg, series[k]);
    g_autofree char *paper = g_strdup_printf("1|%s|%s", px->str, py->str);
    g_assert_cmpuint(lines->len, ==, lx->len > 0 ? 2 : 1);
    g_assert_cmpstr(lines->pdata[0], ==, paper);
    if (lx->len > 0) {
      g_autofree char *lbsim_line = g_strdup_printf("0|%s|%s", lx->str, ly->str);
      g_assert_cmpstr(lines->pdata[1], ==, lbsim_line);
    }
  }
}

/* lbsim reproduce: the papers listed; lan2002's quick form through the
 * sweep machinery, every claim checked at the quick processor counts
 * beside the paper's number, the required ones agreeing (--check), the
 * runs kept and reused by the same command; a claims file that is not
 * right named by file and group before anything runs. The quick form
 * takes too long under the sanitizers: there only the listing and the
 * refusals run. */
static void
test_reproduce(void)
{
  g_auto(Result) list = {0}, unknown = {0};
  lbsim(&list, "reproduce", NULL);
  g_assert_cmpint(list.status, ==, 0);
  g_assert_nonnull(
      strstr(list.out, "  lan2002     46 claims (46 headline): Z. Lan, V. E. Taylor and G. Bryan"));
  lbsim(&unknown, "reproduce", "lan2003", NULL);
  g_assert_cmpint(unknown.status, ==, 2);
  g_assert_nonnull(strstr(unknown.err, "no paper 'lan2003'"));

  /* a paper of the test's own with a bad rule */
  g_autofree char *papers = tmp_path("papers");
  g_autofree char *bad = g_build_filename(papers, "bad", NULL);
  g_assert_cmpint(g_mkdir_with_parents(bad, 0700), ==, 0);
  g_autofree char *claims = g_build_filename(bad, "claims.ini", NULL);
  g_assert_true(g_file_set_contents(
      claims,
      "[paper]\ncite = A. Author, \"A title\", 2000\nsummary = s\n"
      "[run:r]\nscenario = s.ini\nranks = 4\nquick-ranks = 4\nquick-steps = 1\n"
      "[claim:c]\nclaim = c\nrun = r\nranks = 4\nmeasure = value mlb messages\npaper = 1\n"
      "rule = roughly\n",
      -1, NULL));
  g_auto(GStrv) env = g_environ_setenv(g_get_environ(), "LBSIM_PAPERS_DIR", papers, TRUE);
  g_auto(Result) refused = {0};
  lbsim_env(&refused, env, "reproduce", "bad", NULL);
  g_assert_cmpint(refused.status, ==, 2);
  g_assert_nonnull(strstr(refused.err, "claims.ini: [claim:c] rule: 'roughly' is not"));
  g_assert_cmpstr(refused.out, ==, "");
  /* a state folder that is a file: refused before anything runs */
  g_autofree char *file = tmp_path("not-a-folder");
  g_assert_true(g_file_set_contents(file, "x", -1, NULL));
  g_auto(Result) state_file = {0};
  lbsim(&state_file, "reproduce", "lan2002", "--quick", "--state", file, NULL);
  g_assert_cmpint(state_file.status, ==, 2);
  g_assert_nonnull(strstr(state_file.err, "exists and is not a folder"));
  g_assert_cmpstr(state_file.out, ==, "");
  /* --only names runs of the paper's, and is a paper's */
  g_auto(Result) no_run = {0}, only_all = {0};
  lbsim(&no_run, "reproduce", "lan2002", "--quick", "--only", "amr64,amr256", NULL);
  g_assert_cmpint(no_run.status, ==, 2);
  g_assert_nonnull(strstr(no_run.err, "--only amr64,amr256: lan2002 has no run 'amr256' (its "
                                      "runs: amr64, amr128, shockpool3d, "));
  g_assert_cmpstr(no_run.out, ==, "");
  lbsim(&only_all, "reproduce", "--all", "--only", "amr64", NULL);
  g_assert_cmpint(only_all.status, ==, 2);
  g_assert_nonnull(strstr(only_all.err, "--only is a paper's"));
  if (g_getenv("LBSIM_SANITIZED") != NULL)
    return;

  /* --only: one sweep runs, nothing of the others, and the JUnit report
   * and the page say why the rest was not evaluated */
  g_autofree char *only_state = tmp_path("lan2002-only");
  g_autofree char *only_xml = tmp_path("lan2002-only.xml");
  g_autofree char *only_page = tmp_path("lan2002-only-page");
  g_auto(Result) only = {0};
  lbsim(&only, "reproduce", "lan2002", "--quick", "--only", "no-dlb", "--check", "-q", "--state",
        only_state, "--junit", only_xml, "--report", only_page, NULL);
  g_assert_cmpint(only.status, ==, 0);
  g_assert_nonnull(strstr(only.out, "quick form: no-dlb on 4, 32 ranks, 127 adaptations\n"
                                    "only the runs no-dlb (--only): the claims on the others not "
                                    "evaluated\n"));
  g_autofree char *amr64_runs = g_build_filename(only_state, "amr64", NULL);
  g_assert_false(g_file_test(amr64_runs, G_FILE_TEST_EXISTS));
  g_autofree char *xml = NULL, *only_html = NULL;
  g_assert_true(g_file_get_contents(only_xml, &xml, NULL, NULL));
  g_assert_nonnull(strstr(xml, "not run (--only)"));
  g_autofree char *only_index = g_build_filename(only_page, "index.html", NULL);
  g_assert_true(g_file_get_contents(only_index, &only_html, NULL, NULL));
  g_assert_nonnull(strstr(only_html, "Only the runs no-dlb (--only)"));
  g_assert_nonnull(strstr(only_html, "not evaluated (quick form; --only)"));

  /* the state folder lbsim reproduce --all --state TMP would use */
  g_autofree char *state = tmp_path("lan2002");
  g_autofree char *json = tmp_path("lan2002.json");
  g_auto(Result) quick = {0}, again = {0};
  g_autofree char *page = tmp_path("lan2002-page");
  lbsim(&quick, "reproduce", "lan2002", "--quick", "--check", "--state", state, "--json", json,
        "--report", page, NULL);
  g_test_message("%s%s", quick.out, quick.err);
  g_assert_cmpint(quick.status, ==, 0);
  g_assert_nonnull(strstr(quick.out, "quick form: amr64 on 8, 32 ranks, 254 adaptations"));
  g_assert_nonnull(strstr(quick.out, "table2-amr64-16"));
  /* the scorecard first, the known disagreements with their reasons */
  g_assert_true(g_str_has_prefix(strstr(quick.out, "\n\n") + 2, "Scorecard: "));
  g_assert_nonnull(strstr(quick.out, "Known disagreements:\n  table2-amr64-8: paper 12.6 %"));
  g_autoptr(JsonNode) root = load_json(json);
  JsonObject *o = json_node_get_object(root);
  g_assert_cmpstr(json_object_get_string_member(o, "paper"), ==, "lan2002");
  g_assert_true(json_object_get_boolean_member(o, "quick"));
  JsonObject *card = json_object_get_object_member(o, "scorecard");
  JsonArray *cs = json_object_get_array_member(o, "claims");
  g_assert_cmpuint(json_array_get_length(cs), ==, 46);
  g_assert_cmpuint(json_object_get_int_member(card, "headline"), ==, 46);
  guint checked = 0, reproduced = 0, known = 0;
  for (guint i = 0; i < json_array_get_length(cs); i++) {
    JsonObject *c = json_array_get_object_element(cs, i);
    const char *status = json_object_get_string_member(c, "status");
    gboolean done = !JSON_NODE_HOLDS_NULL(json_object_get_member(c, "lbsim"));
    g_assert_true(done == (strcmp(status, "not-run") != 0));
    checked += done;
    reproduced += strcmp(status, "agrees") == 0;
    known += strcmp(status, "known") == 0;
    /* every disagreement is a known one, with its reason */
    g_assert_cmpstr(status, !=, "disagrees");
    if (strcmp(status, "known") == 0)
      g_assert_nonnull(json_object_get_string_member(c, "known"));
    /* a headline claim quotes the paper */
    g_assert_nonnull(json_object_get_string_member(c, "words"));
  }
  g_assert_cmpuint(checked, ==, 26);
  g_assert_cmpuint(reproduced, ==, json_object_get_int_member(card, "reproduced"));
  g_assert_cmpuint(known, ==, json_object_get_int_member(card, "known"));
  g_assert_cmpuint(known, >, 0);
  /* the preset's no-balancing imbalance on 4 ranks, as documented: within
   * a factor of two of Fig. 6's 2.02 */
  for (guint i = 0; i < json_array_get_length(cs); i++) {
    JsonObject *c = json_array_get_object_element(cs, i);
    if (strcmp(json_object_get_string_member(c, "id"), "fig6-amr64-4") == 0)
      g_assert_true(json_object_get_boolean_member(c, "agrees"));
  }
  /* the inputs the paper does not state, each with its source */
  JsonArray *cal = json_object_get_array_member(o, "calibration");
  g_assert_cmpuint(json_array_get_length(cal), >=, 4);
  for (guint i = 0; i < json_array_get_length(cal); i++)
    g_assert_cmpstr(json_object_get_string_member(json_array_get_object_element(cal, i), "source"),
                    !=, "");
  /* the page: the scorecard, the claims, a chart per figure, the JSON
   * beside them */
  g_autofree char *index = g_build_filename(page, "index.html", NULL);
  g_autofree char *html = NULL;
  g_assert_true(g_file_get_contents(index, &html, NULL, NULL));
  g_assert_nonnull(strstr(html, "<h1>lan2002: a reproduction</h1>"));
  g_assert_nonnull(strstr(html, "data-claim=\"table2-amr64-32\""));
  g_assert_true(strstr(html, "id=\"scorecard-section\"") < strstr(html, "id=\"claims-section\""));
  g_assert_nonnull(strstr(html, "<h3 class=\"known\">Known disagreements</h3>"));
  g_assert_nonnull(strstr(html, "id=\"calibration\""));
  guint charts = 0;
  for (const char *at = html; (at = strstr(at, "<figure>")) != NULL; at++)
    charts++;
  g_assert_cmpuint(charts, ==, 13);
  /* each chart's files named after its figure; Fig. 14's thresholds 1.10
   * and 1.25 two series of one chart, as the paper draws them */
  const char *const fig14[] = {"move-split:t110", "move-split:t125"};
  const char *const fig14_ids[] = {"fig14-amr64-1.10-", "fig14-amr64-1.25-"};
  check_figure(page, "lan2002", "fig-14-amr64", cs, fig14, fig14_ids, 2);
  const char *const table2[] = {"move-split"};
  const char *const table2_ids[] = {"table2-amr64-"};
  check_figure(page, "lan2002", "table-2-amr64", cs, table2, table2_ids, 1);
  check_spans_figure(page, cs);
  g_autofree char *figure1 = g_build_filename(page, "lan2002.figure-1.svg", NULL);
  g_assert_false(g_file_test(figure1, G_FILE_TEST_EXISTS));
  /* a claim's note wraps in its cell */
  g_assert_nonnull(strstr(html, "table.numbers td.text{text-align:left;white-space:normal"));
  g_assert_nonnull(strstr(html, "</td><td class=\"text\">(headline) "));
  g_autofree char *kept = g_build_filename(page, "lan2002.reproduction.json", NULL);
  g_autofree char *kept_text = NULL, *json_text = NULL;
  g_assert_true(g_file_get_contents(kept, &kept_text, NULL, NULL));
  g_assert_true(g_file_get_contents(json, &json_text, NULL, NULL));
  g_assert_cmpstr(kept_text, ==, json_text);
  /* a folder that holds another report is not this one's */
  g_auto(Result) other = {0};
  g_autofree char *run_page = tmp_path("run-page");
  lbsim(&other, "run", "-q", "scenarios/mlb-teach-16.ini", "--report", run_page, NULL);
  g_assert_cmpint(other.status, ==, 0);
  g_auto(Result) clash = {0};
  lbsim(&clash, "reproduce", "lan2002", "--quick", "--state", state, "--report", run_page, NULL);
  g_assert_cmpint(clash.status, ==, 2);
  g_assert_cmpstr(clash.out, ==, "");
  /* the same command again reuses every run */
  lbsim(&again, "reproduce", "lan2002", "--quick", "--state", state, NULL);
  g_assert_cmpint(again.status, ==, 0);
  g_assert_nonnull(strstr(again.err, "lbsim: 4 runs, 4 reused from"));
  g_assert_nonnull(strstr(again.err, "lbsim: 2 runs, 2 reused from"));
  g_assert_null(strstr(again.err, "runs done"));
  g_assert_cmpstr(again.out, ==, quick.out);
  /* -: the JSON on standard output in place of the table */
  g_auto(Result) piped = {0};
  lbsim(&piped, "reproduce", "lan2002", "--quick", "-q", "--state", state, "--json", "-", NULL);
  g_assert_cmpint(piped.status, ==, 0);
  g_autofree char *doc = NULL;
  g_assert_true(g_file_get_contents(json, &doc, NULL, NULL));
  g_assert_cmpstr(piped.out, ==, doc);
  /* lbsim report names a reproduction's document and what makes its page */
  g_auto(Result) report = {0};
  g_autofree char *report_dir = tmp_path("report-of-reproduction");
  lbsim(&report, "report", json, report_dir, NULL);
  g_assert_cmpint(report.status, ==, 2);
  g_assert_nonnull(strstr(report.err, "a reproduction's document (lbsim reproduce --json), not a "
                                      "run's or a sweep's: its page is lbsim reproduce lan2002 "
                                      "--report DIR"));
  g_assert_false(g_file_test(report_dir, G_FILE_TEST_EXISTS));
}

/* The claims lbsim reproduce computes itself (measure = check NAME):
 * quinlan1997's and lbd's quick forms, every claim named in the table and
 * computed (lbsim's number in the JSON), the required ones agreeing, the
 * worked examples printed; a check that does not exist, or gets the wrong
 * arguments, refused before anything runs. */
static void
test_reproduce_checks(void)
{
  g_auto(Result) list = {0};
  lbsim(&list, "reproduce", NULL);
  g_assert_cmpint(list.status, ==, 0);
  g_assert_nonnull(
      strstr(list.out, "  quinlan1997 18 claims (7 headline): D. J. Quinlan and M. Berndt"));
  g_assert_nonnull(
      strstr(list.out, "  lbd         6 claims (2 headline): \"Load Balancing by Dimension\""));

  g_autofree char *papers = tmp_path("check-papers");
  static const char *const bad_claims[][2] = {
      {"measure = check nope\n", "measure: 'nope' is not a check (gray-codes, "},
      {"measure = check steps accumulate-steps log3\nrun = r\n", "bound 'log3' is not log2p"},
      {"measure = check steps accumulate-steps\nrun = r\n", "check steps takes METRIC [<=]log2p"},
      {"measure = check loops count cap lbd\nrun = r\n", "'cap' is not tolerance or unchanged"},
      {"measure = check desired-floor-ceil\nrun = r\n",
       "run: check desired-floor-ceil reads no run"},
      {"measure = check bottleneck min mlb\n", "run: missing (check bottleneck reads a run's"},
      {"measure = check gray-codes 00 01 11\n", "3 codes of 2 bits"},
      {"measure = check efficiency sfc-shift:informed 1\nrun = r\n",
       "P '1' is not a processor count of 2 or more"},
      {"measure = check work-for-efficiency sfc-shift:informed 16 100\nrun = r\n",
       "'100' is not a percentage between 0 and 100"},
      {"measure = share ghost-messages sfc-shift:informed\nrun = r\nranks = 4\n",
       "'share METRIC A B'"},
  };
  for (guint i = 0; i < G_N_ELEMENTS(bad_claims); i++) {
    g_autofree char *name = g_strdup_printf("bad%u", i);
    g_autofree char *dir = g_build_filename(papers, name, NULL);
    g_assert_cmpint(g_mkdir_with_parents(dir, 0700), ==, 0);
    g_autofree char *claims = g_build_filename(dir, "claims.ini", NULL);
    g_autofree char *text =
        g_strdup_printf("[paper]\ncite = A. Author, \"A title\", 2000\nsummary = s\n"
                        "[run:r]\nscenario = s.ini\nranks = 4\nquick-ranks = 4\n"
                        "[claim:c]\nclaim = c\n%spaper = 0\nrule = exactly 0\nheadline = false\n",
                        bad_claims[i][0]);
    g_assert_true(g_file_set_contents(claims, text, -1, NULL));
    g_auto(GStrv) env = g_environ_setenv(g_get_environ(), "LBSIM_PAPERS_DIR", papers, TRUE);
    g_auto(Result) refused = {0};
    lbsim_env(&refused, env, "reproduce", name, NULL);
    g_test_message("%s", refused.err);
    g_assert_cmpint(refused.status, ==, 2);
    g_assert_nonnull(strstr(refused.err, "claims.ini: [claim:c] "));
    g_assert_nonnull(strstr(refused.err, bad_claims[i][1]));
    g_assert_cmpstr(refused.out, ==, "");
  }
  if (g_getenv("LBSIM_SANITIZED") != NULL)
    return;

  static const struct {
    const char *key;
    guint claims, headline, diagnostics;
    const char *const ids[8];
  } papers_run[] = {
      {"quinlan1997",
       18,
       7,
       6,
       {"gray-d2", "coarse-node-10010", "tree-sums", "schedule-desired", "schedule-steps",
        "desired-spread-16384", "bottleneck-excess", "loan-keeps-order"}},
      {"lbd",
       6,
       2,
       1,
       {"figure3-neighbours", "tdg-rectangles", "first-axis-shock", "first-axis-hotspots",
        "loops-tolerance", "loops-best-cuts"}},
  };
  for (guint i = 0; i < G_N_ELEMENTS(papers_run); i++) {
    const char *key = papers_run[i].key;
    g_autofree char *state = tmp_path(key);
    g_autofree char *json = g_strdup_printf("%s.json", state);
    g_autofree char *csv = g_strdup_printf("%s.csv", state);
    g_autofree char *page = g_strdup_printf("%s-page", state);
    g_auto(Result) quick = {0};
    gint64 start = g_get_monotonic_time();
    lbsim(&quick, "reproduce", key, "--quick", "--check", "-q", "--state", state, "--json", json,
          "--csv", csv, "--report", page, NULL);
    g_test_message("%s: %.1f s\n%s%s", key, (g_get_monotonic_time() - start) / 1e6, quick.out,
                   quick.err);
    g_assert_cmpint(quick.status, ==, 0);
    g_assert_nonnull(strstr(quick.out, "the checks on fewer cases"));
    g_assert_nonnull(strstr(quick.out, "Scorecard: "));
    g_assert_null(strstr(quick.out, "Not reproduced:"));
    g_assert_null(strstr(quick.out, "could not be evaluated"));
    for (guint k = 0; k < G_N_ELEMENTS(papers_run[i].ids) && papers_run[i].ids[k] != NULL; k++)
      g_assert_nonnull(strstr(quick.out, papers_run[i].ids[k]));
    g_autoptr(JsonNode) root = load_json(json);
    JsonObject *doc = json_node_get_object(root);
    JsonArray *cs = json_object_get_array_member(doc, "claims");
    g_assert_cmpuint(json_array_get_length(cs), ==, papers_run[i].claims);
    g_assert_cmpuint(json_array_get_length(json_object_get_array_member(doc, "diagnostics")), ==,
                     papers_run[i].diagnostics);
    guint headline = 0;
    for (guint k = 0; k < json_array_get_length(cs); k++) {
      JsonObject *c = json_array_get_object_element(cs, k);
      /* every claim of these two papers runs in the quick form */
      g_assert_false(JSON_NODE_HOLDS_NULL(json_object_get_member(c, "lbsim")));
      if (json_object_get_boolean_member(c, "headline")) {
        headline++;
        const char *status = json_object_get_string_member(c, "status");
        g_assert_true(strcmp(status, "agrees") == 0 || strcmp(status, "known") == 0);
      }
    }
    g_assert_cmpuint(headline, ==, papers_run[i].headline);
    g_autofree char *rows = NULL;
    g_assert_true(g_file_get_contents(csv, &rows, NULL, NULL));
    g_assert_nonnull(strstr(rows, papers_run[i].ids[0]));
    g_autofree char *index = g_build_filename(page, "index.html", NULL);
    g_autofree char *html = NULL;
    g_assert_true(g_file_get_contents(index, &html, NULL, NULL));
    g_autofree char *claim = g_strdup_printf("data-claim=\"%s\"", papers_run[i].ids[0]);
    g_assert_nonnull(strstr(html, claim));
    g_assert_nonnull(strstr(html, "<h2 id=\"examples-section\">As lbsim computes them</h2>"));
  }
  /* the worked examples as lbsim computes them */
  g_autofree char *quinlan = tmp_path("quinlan1997.json");
  g_autoptr(JsonNode) root = load_json(quinlan);
  JsonArray *cs = json_object_get_array_member(json_node_get_object(root), "claims");
  const char *gray = json_object_get_string_member(json_array_get_object_element(cs, 0), "detail");
  g_assert_nonnull(strstr(gray, "   3     10     10\n"));
  const char *tree = json_object_get_string_member(json_array_get_object_element(cs, 2), "detail");
  g_assert_nonnull(strstr(tree, "level 2:  14 (6) [00]  2 (6) [01]  4 (6) [11]  4 (6) [10]"));
}

/* A sweep's run of a label on p ranks, from the JSON lbsim reproduce
 * keeps in its state folder. */
static JsonObject *
sweep_result(JsonNode *sweep, const char *label, gint64 ranks)
{
  JsonArray *runs = json_object_get_array_member(json_node_get_object(sweep), "runs");
  for (guint i = 0; i < json_array_get_length(runs); i++) {
    JsonObject *r = json_array_get_object_element(runs, i);
    JsonObject *result = json_object_get_object_member(r, "result");
    if (strcmp(json_object_get_string_member(r, "balancer"), label) == 0 &&
        json_object_get_int_member(json_object_get_object_member(r, "point"), "ranks") == ranks)
      return result;
  }
  g_assert_not_reached();
}

static JsonObject *
member_named(JsonNode *root, const char *array, const char *id)
{
  JsonArray *cs = json_object_get_array_member(json_node_get_object(root), array);
  for (guint i = 0; i < json_array_get_length(cs); i++) {
    JsonObject *c = json_array_get_object_element(cs, i);
    if (strcmp(json_object_get_string_member(c, "id"), id) == 0)
      return c;
  }
  g_assert_not_reached();
}

static JsonObject *
claim_named(JsonNode *root, const char *id)
{
  return member_named(root, "claims", id);
}

static JsonObject *
diagnostic_named(JsonNode *root, const char *id)
{
  return member_named(root, "diagnostics", id);
}

/* lbsim reproduce baiardi2001's quick form: Fig. 1's shares are the runs'
 * messages over request/answer's (synchronisation messages among them),
 * Fig. 2's efficiency T(1) / (16 T(16)) of the runs the state folder
 * keeps, the work that makes 50% gives 50% when run (a diagnostic; none
 * does for problem 2), and every headline claim agrees or is a known
 * disagreement. */
static void
test_reproduce_baiardi(void)
{
  if (g_getenv("LBSIM_SANITIZED") != NULL)
    return;
  g_autofree char *state = tmp_path("baiardi2001");
  g_autofree char *json = tmp_path("baiardi2001.json");
  g_auto(Result) quick = {0};
  gint64 start = g_get_monotonic_time();
  lbsim(&quick, "reproduce", "baiardi2001", "--quick", "--check", "-q", "--state", state, "--json",
        json, NULL);
  g_test_message("%.1f s\n%s%s", (g_get_monotonic_time() - start) / 1e6, quick.out, quick.err);
  g_assert_cmpint(quick.status, ==, 0);
  g_assert_null(strstr(quick.out, "Not reproduced:"));
  g_autoptr(JsonNode) root = load_json(json);

  g_autofree char *fig1_path = g_build_filename(state, "fig1-problem2.json", NULL);
  g_autoptr(JsonNode) fig1 = load_json(fig1_path);
  double ra = json_object_get_double_member(
      json_object_get_object_member(sweep_result(fig1, "sfc-shift:request-answer", 16), "metrics"),
      "ghost_messages");
  double ifp = json_object_get_double_member(
      json_object_get_object_member(sweep_result(fig1, "sfc-shift:informed", 16), "metrics"),
      "ghost_messages");
  g_assert_cmpfloat(ifp, >, 0);
  g_assert_cmpfloat(ifp, <, ra);
  JsonObject *share = claim_named(root, "fig1-p2-ifp-messages-16");
  g_assert_cmpfloat_with_epsilon(json_object_get_double_member(share, "lbsim"), 100 * ifp / ra,
                                 1e-9);
  /* merged, each collection ended by np - 1 synchronisation messages from
   * every p-node: within the paper's range on 16 p-nodes in the quick
   * form (a known disagreement in the full form, just under it) */
  g_assert_true(json_object_get_boolean_member(share, "agrees"));
  g_assert_cmpstr(json_object_get_string_member(share, "status"), ==, "agrees");
  double sync = json_object_get_double_member(
      json_object_get_object_member(sweep_result(fig1, "sfc-shift:informed", 16), "metrics"),
      "collect_sync_messages");
  g_assert_cmpfloat(sync, >, 0);
  g_assert_cmpfloat(sync, <, ifp);

  g_autofree char *fig2_path = g_build_filename(state, "fig2-problem1.json", NULL);
  g_autoptr(JsonNode) fig2 = load_json(fig2_path);
  double t1 = json_object_get_double_member(
      json_object_get_object_member(sweep_result(fig2, "sfc-shift:informed", 1), "summary"),
      "total_time");
  double t16 = json_object_get_double_member(
      json_object_get_object_member(sweep_result(fig2, "sfc-shift:informed", 16), "summary"),
      "total_time");
  JsonObject *eff = claim_named(root, "fig2-p1-16");
  /* the times in the state's JSON are rounded to 10 significant digits */
  g_assert_cmpfloat_with_epsilon(json_object_get_double_member(eff, "lbsim"), 100 * t1 / (16 * t16),
                                 1e-6);
  g_assert_nonnull(strstr(json_object_get_string_member(eff, "detail"), "efficiency"));

  /* the work for 50%, run: its efficiency within a point of 50% */
  JsonObject *work = diagnostic_named(root, "fig2-p1-work");
  const char *note = json_object_get_string_member(work, "note");
  const char *at = strstr(note, "a run at them: ");
  g_assert_nonnull(at);
  double measured = g_ascii_strtod(at + strlen("a run at them: "), NULL);
  g_assert_cmpfloat(fabs(measured - 50), <, 1);
  g_assert_cmpfloat(json_object_get_double_member(work, "lbsim"), >, 0);
  /* problem 2's levels, each waited for: computation alone stays under
   * 50% on 16 p-nodes, whatever the work of a point */
  JsonObject *none = diagnostic_named(root, "fig2-p2-work");
  g_assert_true(JSON_NODE_HOLDS_NULL(json_object_get_member(none, "lbsim")));
  g_assert_nonnull(
      strstr(json_object_get_string_member(none, "note"), "out of reach: computation alone"));
  /* the comparison of the two problems is made over the same ranks, a
   * point each */
  JsonObject *lower = claim_named(root, "fig2-second-lower");
  g_assert_nonnull(strstr(json_object_get_string_member(lower, "detail"), "fig2-problem2"));
  JsonArray *points = json_object_get_array_member(lower, "points");
  g_assert_cmpuint(json_array_get_length(points), ==, 2);
  g_assert_cmpstr(json_object_get_string_member(json_array_get_object_element(points, 1), "at"), ==,
                  "p = 16");
}

/* lbsim reproduce chaube2003 --quick: the AQR loop of Fig. 3 on 8 and 32
 * processors, three runs each (three draws of nodes from the queue; its time
 * in the log, measured by no bound: a loaded machine takes minutes); the
 * required claims agree (--check); the checks' numbers
 * come from the averaged runs (each improvement's note names the three
 * runs, the table of every technique has a row per processor count, the
 * timeline a line per rank); the claims at 4, 16 and 24 processors are
 * not run; a copy of the state folder that lacks one sweep's runs (the
 * second draw of nodes) makes them again and gives the same JSON byte for
 * byte. */
static void
test_reproduce_chaube2003(void)
{
  if (g_getenv("LBSIM_SANITIZED") != NULL)
    return;
  g_autofree char *state = tmp_path("chaube2003");
  g_autofree char *again_state = tmp_path("chaube2003-again");
  g_autofree char *json = tmp_path("chaube2003.json");
  g_autofree char *again_json = tmp_path("chaube2003-again.json");
  g_autofree char *page = tmp_path("chaube2003-page");
  g_auto(Result) quick = {0}, again = {0};
  gint64 start = g_get_monotonic_time();
  lbsim(&quick, "reproduce", "chaube2003", "--quick", "--check", "-q", "--state", state, "--json",
        json, "--report", page, NULL);
  double seconds = (g_get_monotonic_time() - start) / 1e6;
  g_test_message("chaube2003: %.1f s\n%s%s", seconds, quick.out, quick.err);
  g_assert_cmpint(quick.status, ==, 0);
  g_assert_nonnull(strstr(quick.out,
                          "quick form: a on 8, 32 ranks x workload.iterations=1080,10400; "
                          "b on 8, 32 ranks"));
  g_assert_null(strstr(quick.out, "Not reproduced:"));
  g_assert_null(strstr(quick.out, "could not be evaluated"));
  g_autoptr(JsonNode) root = load_json(json);
  JsonArray *cs = json_object_get_array_member(json_node_get_object(root), "claims");
  guint run = 0;
  for (guint i = 0; i < json_array_get_length(cs); i++) {
    JsonObject *c = json_array_get_object_element(cs, i);
    const char *id = json_object_get_string_member(c, "id");
    gboolean quick_ranks =
        !g_str_has_suffix(id, "-4") && !g_str_has_suffix(id, "-16") && !g_str_has_suffix(id, "-24");
    g_assert_true(JSON_NODE_HOLDS_NULL(json_object_get_member(c, "lbsim")) != quick_ranks);
    run += quick_ranks;
    const char *note = json_object_get_string_member(c, "note");
    if (g_str_has_prefix(id, "fig3-awf-") && quick_ranks)
      g_assert_nonnull(strstr(note, "the means of 3 runs (each: a "));
    if (strcmp(id, "best-every-size") == 0) {
      const char *detail = json_object_get_string_member(c, "detail");
      g_assert_nonnull(strstr(detail, "  1080   8 "));
      g_assert_nonnull(strstr(detail, "  1080  32 "));
      g_assert_null(strstr(detail, "  1080  16 "));
    }
    /* Table 2: every configuration a point, against the technique's
     * order; its growth from 1080 to 10400 at 8 and 32 processors, and
     * from 8 to 32 at each N */
    if (strcmp(id, "table2-chunks-fac") == 0) {
      g_assert_cmpuint(json_array_get_length(json_object_get_array_member(c, "points")), ==, 4);
      g_assert_nonnull(strstr(json_object_get_string_member(c, "detail"), "PlogN"));
    }
    if (strcmp(id, "table2-growth-frac") == 0) {
      g_assert_cmpuint(json_array_get_length(json_object_get_array_member(c, "points")), ==, 4);
      const char *detail = json_object_get_string_member(c, "detail");
      g_assert_nonnull(strstr(detail, "P = 32, N 1080 -> 10400 "));
      g_assert_nonnull(strstr(detail, "N = 10400, P 8 -> 32 "));
    }
  }
  g_assert_cmpuint(run, ==, json_array_get_length(cs) - 9);
  /* lbsim's own findings are diagnostics: a timeline a line per rank, and
   * the master's account of the last chunk */
  JsonArray *ds = json_object_get_array_member(json_node_get_object(root), "diagnostics");
  guint timelines = 0;
  for (guint i = 0; i < json_array_get_length(ds); i++) {
    JsonObject *c = json_array_get_object_element(ds, i);
    const char *id = json_object_get_string_member(c, "id");
    if (!g_str_has_prefix(id, "timeline-"))
      continue;
    timelines++;
    const char *detail = json_object_get_string_member(c, "detail");
    gboolean p32 = g_str_has_suffix(id, "-32");
    g_assert_nonnull(strstr(detail, p32 ? "rank 31: " : "rank  7: "));
    g_assert_null(strstr(detail, p32 ? "rank 32: " : "rank  8: "));
    g_assert_nonnull(strstr(detail, "as the master chose it: t="));
  }
  g_assert_cmpuint(timelines, ==, 5);
  /* Fig. 3's chart: AF and AWF, a series each, against the processors */
  g_autofree char *index = g_build_filename(page, "index.html", NULL);
  g_autofree char *html = NULL;
  g_assert_true(g_file_get_contents(index, &html, NULL, NULL));
  guint charts = 0;
  for (const char *at = html; (at = strstr(at, "<figure>")) != NULL; at++)
    charts++;
  g_assert_cmpuint(charts, ==, 1);
  const char *const fig3[] = {"dls-improvement af 1080", "dls-improvement awf 1080"};
  const char *const fig3_ids[] = {"fig3-af-", "fig3-awf-"};
  check_figure(page, "chaube2003", "fig-3-family-6-n-1080", cs, fig3, fig3_ids, 2);
  /* --chart-scale sets the figures' value axis (the runs kept: no run) */
  static const char *const scales[] = {"log", "linear"};
  for (guint k = 0; k < G_N_ELEMENTS(scales); k++) {
    g_autofree char *dir = tmp_path(scales[k]);
    g_auto(Result) scaled = {0};
    lbsim(&scaled, "reproduce", "chaube2003", "--quick", "-q", "--state", state, "--report", dir,
          "--chart-scale", scales[k], NULL);
    g_assert_cmpint(scaled.status, ==, 0);
    g_autofree char *scaled_index = g_build_filename(dir, "index.html", NULL);
    g_autofree char *scaled_html = NULL;
    g_assert_true(g_file_get_contents(scaled_index, &scaled_html, NULL, NULL));
    g_autofree char *want = g_strdup_printf("data-value-scale=\"%s\"", scales[k]);
    g_assert_nonnull(strstr(scaled_html, want));
    g_assert_null(
        strstr(scaled_html, k == 0 ? "data-value-scale=\"linear\"" : "data-value-scale=\"log\""));
  }
  g_auto(Result) no_page = {0}, bad_scale = {0};
  lbsim(&no_page, "reproduce", "chaube2003", "--quick", "--chart-scale", "log", NULL);
  g_assert_cmpint(no_page.status, ==, 2);
  g_assert_nonnull(strstr(no_page.err, "--chart-scale is for the charts of --report DIR"));
  lbsim(&bad_scale, "reproduce", "chaube2003", "--quick", "--report", page, "--chart-scale", "ln",
        NULL);
  g_assert_cmpint(bad_scale.status, ==, 2);
  g_assert_nonnull(strstr(bad_scale.err, "--chart-scale ln: expected auto, linear or log"));
  copy_tree(state, again_state);
  g_autofree char *draw_b = g_build_filename(again_state, "b", NULL);
  g_autofree char *draw_b_json = g_build_filename(again_state, "b.json", NULL);
  remove_tree(draw_b);
  g_assert_cmpint(g_remove(draw_b_json), ==, 0);
  lbsim(&again, "reproduce", "chaube2003", "--quick", "--state", again_state, "--json", again_json,
        NULL);
  g_assert_cmpint(again.status, ==, 0);
  g_autofree char *remade = g_strdup_printf("lbsim: 40 runs, 0 reused from %s\n", draw_b);
  g_assert_nonnull(strstr(again.err, remade));
  g_autofree char *text = NULL, *again_text = NULL;
  g_assert_true(g_file_get_contents(json, &text, NULL, NULL));
  g_assert_true(g_file_get_contents(again_json, &again_text, NULL, NULL));
  g_assert_cmpstr(text, ==, again_text);
}

/* Shipped scenarios by name: listed (the regression suite's and the
 * papers' too), run by their names, and a name that is nowhere says where
 * lbsim looked. */
static void
test_scenario_names(void)
{
  g_auto(Result) list = {0}, paper = {0}, nowhere = {0};
  lbsim(&list, "list", "--scenarios", NULL);
  g_assert_cmpint(list.status, ==, 0);
  g_assert_nonnull(strstr(list.out, "\n  mlb-teach-16"));
  g_assert_nonnull(strstr(list.out, "\n  papers/lbd/axes-shock"));
  g_assert_null(strstr(list.out, "claims"));
  /* the regression suite's, with the description of files that hold
   * [expect] lines (no keys of GKeyFile's) */
  g_assert_nonnull(strstr(list.out, "\n  regression/mlb-steps  "));
  g_assert_nonnull(strstr(list.out, "  MLB's schedule: log2 p steps"));
  lbsim(&paper, "run", "-q", "papers/lbd/axes-shock", "--set", "scenario.steps=1", NULL);
  g_assert_cmpint(paper.status, ==, 0);
  g_assert_true(g_str_has_prefix(paper.out, "lbd-axes-shock: 16 ranks"));
  lbsim(&nowhere, "run", "-q", "mlb-teach-61", NULL);
  g_assert_cmpint(nowhere.status, ==, 2);
  g_assert_nonnull(strstr(nowhere.err, "mlb-teach-61: cannot read: "));
  g_assert_nonnull(strstr(nowhere.err, "; and no shipped scenario mlb-teach-61(.ini) in "));
  g_assert_nonnull(strstr(nowhere.err, "(lbsim list --scenarios lists them)"));
}

/* Ranks varied without --platform run on the scenario's one platform:
 * the sweep says so, a line a rank count; with --platform it does not.
 * Its JSON, balancer varied too, makes a report. */
static void
test_sweep_hosts(void)
{
  g_autofree char *json = tmp_path("hosts.json");
  g_autofree char *state = tmp_path("hosts.d");
  g_auto(Result) r = {0};
  lbsim(&r, "sweep", "scenarios/mlb-teach-16.ini", "--vary", "ranks=4,8", "--vary", "balancer=mlb",
        "-o", json, "--state", state, NULL);
  g_assert_cmpint(r.status, ==, 0);
  g_assert_nonnull(strstr(r.err, "lbsim: ranks=4 runs on 4 of the hosts of the scenario's "
                                 "platform, hypercube-16.xml"));
  g_assert_nonnull(strstr(r.err, "lbsim: ranks=8 runs on 8 of the hosts"));
  g_autofree char *json2 = tmp_path("hosts2.json");
  g_autofree char *state2 = tmp_path("hosts2.d");
  g_auto(Result) own = {0};
  lbsim(&own, "sweep", "scenarios/mlb-teach-16.ini", "--vary", "ranks=4,8", "--vary",
        "balancer=mlb", "--platform", "hypercube-{ranks}.xml", "-o", json2, "--state", state2,
        NULL);
  g_assert_cmpint(own.status, ==, 0);
  g_assert_null(strstr(own.err, "of the hosts of the scenario's platform"));
  /* a varied balancer is each run's label: the report reads it back, as
   * docs/reference/sweeps.md recommends the form */
  g_autofree char *page = tmp_path("hosts-page");
  g_auto(Result) report = {0};
  lbsim(&report, "report", json, page, NULL);
  g_test_message("%s", report.err);
  g_assert_cmpint(report.status, ==, 0);
  g_autofree char *index = g_build_filename(page, "index.html", NULL);
  g_assert_true(g_file_test(index, G_FILE_TEST_IS_REGULAR));
  g_autofree char *vs_balancer = g_build_filename(page, "mlb-teach-16.vs-balancer.time.svg", NULL);
  g_assert_false(g_file_test(vs_balancer, G_FILE_TEST_EXISTS));
}

/* A paper of the test's own (LBSIM_PAPERS_DIR) on the teaching scenario:
 * one run, and the claims given. */
static char **
own_paper(const char *name, const char *claims)
{
  g_autofree char *papers = tmp_path("verdict-papers");
  g_autofree char *dir = g_build_filename(papers, name, NULL);
  g_assert_cmpint(g_mkdir_with_parents(dir, 0700), ==, 0);
  g_autofree char *teach =
      g_build_filename(g_getenv("LBSIM_SOURCE_ROOT"), "scenarios", "mlb-teach-16.ini", NULL);
  g_autofree char *text = g_strdup_printf("[paper]\ncite = A. Author, \"A title\", 2000\n"
                                          "summary = s\n[run:teach]\nscenario = %s\n"
                                          "ranks = 16\nquick-ranks = 16\n%s",
                                          teach, claims);
  g_autofree char *file = g_build_filename(dir, "claims.ini", NULL);
  g_assert_true(g_file_set_contents(file, text, -1, NULL));
  return g_environ_setenv(g_get_environ(), "LBSIM_PAPERS_DIR", papers, TRUE);
}

/* --check's verdict: a headline claim that disagrees fails it unless
 * claims.ini lists it as known (and says why); a known one that agrees
 * fails it too, so the list stays true; a claim that names a balancer,
 * metric or processor count its run does not have is refused before
 * anything runs. */
static void
test_reproduce_verdicts(void)
{
#define VERDICT_CLAIM                                                                              \
  "[claim:steps]\nclaim = c\nwords = the paper's words\nrun = teach\nranks = 16\n"                 \
  "measure = value %s %s\npaper = 4\nrule = %s\nheadline = true\n%s"
  static const struct {
    const char *name, *label, *metric, *rule, *known;
    int status;
    const char *out, *err;
  } cases[] = {
      {"agrees", "mlb", "schedule-steps", "exactly 4", "", 0, "Scorecard: 1 of 1 headline", NULL},
      {"disagrees", "mlb", "schedule-steps", "exactly 3", "", 1,
       "Not reproduced:\n  steps: paper 4",
       "--check: steps (headline) disagrees and is not listed as known"},
      {"known", "mlb", "schedule-steps", "exactly 3", "known = both: why it differs\n", 0,
       "Known disagreements:\n  steps: paper 4", NULL},
      {"known-quick", "mlb", "schedule-steps", "exactly 3", "known = quick: why it differs\n", 1,
       NULL, "disagrees and is not listed as known"},
      {"stale", "mlb", "schedule-steps", "exactly 4", "known = both: why it differed\n", 1,
       "Listed as known but agreeing now", "steps agrees but claims.ini lists it as known"},
      {"label", "mbl", "schedule-steps", "exactly 4", "", 2, NULL,
       "[claim:steps] measure: [run:teach] runs no balancer 'mbl' (its labels: none, mlb)"},
      {"metric", "mlb", "schedule-stepz", "exactly 4", "", 2, NULL,
       "[claim:steps] measure: a run of 'mlb' has no metric 'schedule-stepz'"},
      {"reason", "mlb", "schedule-steps", "exactly 3", "known = sometimes\n", 2, NULL,
       "known: 'sometimes' is not 'full: REASON'"},
  };
  for (guint i = 0; i < G_N_ELEMENTS(cases); i++) {
    g_autofree char *claims = g_strdup_printf(VERDICT_CLAIM, cases[i].label, cases[i].metric,
                                              cases[i].rule, cases[i].known);
    g_auto(GStrv) env = own_paper(cases[i].name, claims);
    g_autofree char *state = tmp_path(cases[i].name);
    g_auto(Result) r = {0};
    lbsim_env(&r, env, "reproduce", cases[i].name, "--check", "-q", "--state", state, NULL);
    g_test_message("%s: %d\n%s%s", cases[i].name, r.status, r.out, r.err);
    g_assert_cmpint(r.status, ==, cases[i].status);
    if (cases[i].out != NULL)
      g_assert_nonnull(strstr(r.out, cases[i].out));
    if (cases[i].err != NULL)
      g_assert_nonnull(strstr(r.err, cases[i].err));
    /* refused: nothing ran, nothing was written */
    if (cases[i].status == 2) {
      g_assert_cmpstr(r.out, ==, "");
      g_assert_false(g_file_test(state, G_FILE_TEST_EXISTS));
    }
  }
  /* a headline claim that could not be evaluated (its check needs runs on
   * one rank, which the run does not have) */
  g_auto(GStrv) failing = own_paper(
      "failing",
      "[claim:eff]\nclaim = c\nwords = w\nrun = teach\nmeasure = check efficiency mlb 16\n"
      "paper = 50\nrule = range 50 100\nheadline = true\n");
  g_auto(Result) failed = {0};
  g_autofree char *failed_state = tmp_path("failing");
  lbsim_env(&failed, failing, "reproduce", "failing", "--check", "-q", "--state", failed_state,
            NULL);
  g_assert_cmpint(failed.status, ==, 1);
  g_assert_nonnull(strstr(failed.out, "Could not be evaluated:\n  eff: paper 50 (range 50 100)"));
  g_assert_nonnull(strstr(failed.err, "--check: eff (headline) could not be evaluated: failed: "));
  /* a claim an input was fitted to: shown, never counted as reproduced */
  g_auto(GStrv) fitted = own_paper(
      "fitted", "[claim:steps]\nclaim = c\nwords = w\nrun = teach\nranks = 16\n"
                "measure = value mlb schedule-steps\npaper = 4\nrule = exactly 4\nheadline = true\n"
                "calibrated = steps-knob\n[calibration]\nsteps-knob = 1; fitted to the claim\n");
  g_auto(Result) calibrated = {0};
  g_autofree char *fitted_state = tmp_path("fitted");
  lbsim_env(&calibrated, fitted, "reproduce", "fitted", "--check", "-q", "--state", fitted_state,
            NULL);
  g_assert_cmpint(calibrated.status, ==, 0);
  g_assert_nonnull(strstr(calibrated.out, "Scorecard: 0 of 1 headline findings reproduced, 0 not "
                                          "(0 known), 1 calibrated (not counted)"));
  g_assert_nonnull(strstr(calibrated.out, "Calibrated (shown, not counted):\n  steps: paper 4"));
  g_assert_nonnull(strstr(calibrated.out, "  steps-knob = 1\n    fitted to the claim\n"));
  g_auto(GStrv) unknown =
      own_paper("unknown-key",
                "[claim:steps]\nclaim = c\nrun = teach\nranks = 16\n"
                "measure = value mlb schedule-steps\npaper = 4\nrule = exactly 4\n"
                "headline = false\ncalibrated = knob\n[calibration]\nother = 1; chosen by lbsim\n");
  g_auto(Result) no_key = {0};
  lbsim_env(&no_key, unknown, "reproduce", "unknown-key", "-q", NULL);
  g_assert_cmpint(no_key.status, ==, 2);
  g_assert_nonnull(strstr(no_key.err, "calibrated: no key knob in [calibration]"));
  /* a processor count the run does not have, refused as the file is read */
  g_auto(GStrv) env = own_paper(
      "ranks",
      "[claim:steps]\nclaim = c\nrun = teach\nranks = 32\n"
      "measure = value mlb schedule-steps\npaper = 4\nrule = exactly 4\nheadline = false\n");
  g_auto(Result) ranks = {0};
  lbsim_env(&ranks, env, "reproduce", "ranks", "-q", NULL);
  g_assert_cmpint(ranks.status, ==, 2);
  g_assert_nonnull(
      strstr(ranks.err, "[claim:steps] ranks: [run:teach] does not run 32 processors"));
  /* same-sign alone, with no claim of the magnitude beside it */
  g_auto(GStrv) alone = own_paper(
      "alone",
      "[claim:sign]\nclaim = c\nrun = teach\nranks = 16\n"
      "measure = value mlb schedule-steps\npaper = 4\nrule = same-sign\nheadline = false\n");
  g_auto(Result) sign = {0};
  lbsim_env(&sign, alone, "reproduce", "alone", "-q", NULL);
  g_assert_cmpint(sign.status, ==, 2);
  g_assert_nonnull(strstr(sign.err, "same-sign only beside a claim"));
}

/* --deep: [deep]'s settings reach its runs (the teaching scenario's heavy
 * quarter made twice as heavy moves the imbalance a claim reads), the
 * output says the form, and a claim on a deep run is known only by its
 * known-deep; the full form is left as it was. A paper without [deep],
 * --all with --deep, a [deep] or known-deep that names nothing, and a
 * [deep] setting that --set would refuse are refused before anything
 * runs. */
static void
test_reproduce_deep(void)
{
#define DEEP_CLAIM                                                                                 \
  "[deep]\nsummary = the heavy quarter at the paper's weight\nruns = teach\n"                      \
  "set = workload.high=20; workload.low=1\n"                                                       \
  "[claim:before]\nclaim = c\nwords = w\nrun = teach\nranks = 16\n"                                \
  "measure = value none imbalance_before\npaper = 3.08\nrule = range 3 3.2\nheadline = true\n%s"
  static const struct {
    const char *name, *known;
    gboolean deep;
    int status;
    const char *out;
  } cases[] = {
      /* 40 / 13 = 3.08 on the teaching scenario; 80 / 23 = 3.48 made deep */
      {"full", "", FALSE, 0, "Scorecard: 1 of 1 headline findings reproduced"},
      {"full-known-deep", "known-deep = heavier at depth\n", FALSE, 0,
       "Scorecard: 1 of 1 headline findings reproduced"},
      {"deep", "", TRUE, 1, "Not reproduced:\n  before: paper 3.08, lbsim 3.478"},
      {"deep-known", "known-deep = heavier at depth\n", TRUE, 0,
       "Known disagreements:\n  before: paper 3.08, lbsim 3.478 (range 3 3.2)\n    why: heavier "
       "at depth"},
      /* a reason of the full form does not carry over to the deep one */
      {"deep-full-known", "known = both: lighter in full\n", TRUE, 1, "Not reproduced:"},
  };
  for (guint i = 0; i < G_N_ELEMENTS(cases); i++) {
    g_autofree char *claims = g_strdup_printf(DEEP_CLAIM, cases[i].known);
    g_auto(GStrv) env = own_paper(cases[i].name, claims);
    g_autofree char *state = tmp_path(cases[i].name);
    g_autofree char *json = g_strdup_printf("%s.json", state);
    g_auto(Result) r = {0};
    if (cases[i].deep)
      lbsim_env(&r, env, "reproduce", cases[i].name, "--deep", "--check", "-q", "--state", state,
                "--json", json, NULL);
    else
      lbsim_env(&r, env, "reproduce", cases[i].name, "--check", "-q", "--state", state, "--json",
                json, NULL);
    g_test_message("%s: %d\n%s%s", cases[i].name, r.status, r.out, r.err);
    g_assert_cmpint(r.status, ==, cases[i].status);
    g_assert_nonnull(strstr(r.out, cases[i].out));
    const char *form = "deep form: the heavy quarter at the paper's weight (teach, with "
                       "workload.high=20 workload.low=1)\n";
    g_assert_true((strstr(r.out, form) != NULL) == cases[i].deep);
    g_autoptr(JsonParser) parser = json_parser_new();
    g_assert_true(json_parser_load_from_file(parser, json, NULL));
    JsonObject *doc = json_node_get_object(json_parser_get_root(parser));
    g_assert_true(json_object_has_member(doc, "deep") == cases[i].deep);
    JsonObject *claim =
        json_array_get_object_element(json_object_get_array_member(doc, "claims"), 0);
    if (strcmp(cases[i].name, "deep-known") == 0)
      g_assert_cmpstr(json_object_get_string_member(claim, "known_in"), ==, "deep");
  }
  static const struct {
    const char *name, *claims, *err;
    gboolean deep;
  } refused[] = {
      {"no-deep",
       "[claim:s]\nclaim = c\nrun = teach\nranks = 16\nmeasure = value mlb "
       "schedule_steps\npaper = 4\nrule = exactly 4\nheadline = false\n",
       "--deep: no-deep has no deep form", TRUE},
      {"deep-run", "[deep]\nsummary = s\nruns = tech\nset = workload.high=20\n",
       "[deep] runs: no [run:tech]", FALSE},
      /* read as --set's are, before anything runs */
      {"deep-set", "[deep]\nsummary = s\nruns = teach\nset = high=20\n",
       "--set high=20: expected GROUP.KEY=VALUE", TRUE},
      {"known-deep-alone",
       "[claim:s]\nclaim = c\nrun = teach\nranks = 16\nmeasure = value mlb schedule_steps\n"
       "paper = 4\nrule = exactly 4\nheadline = false\nknown-deep = why\n",
       "[claim:s] known-deep: the paper has no [deep] form", FALSE},
  };
  for (guint i = 0; i < G_N_ELEMENTS(refused); i++) {
    g_auto(GStrv) env = own_paper(refused[i].name, refused[i].claims);
    g_autofree char *state = tmp_path(refused[i].name);
    g_auto(Result) r = {0};
    lbsim_env(&r, env, "reproduce", refused[i].name, refused[i].deep ? "--deep" : "-q", "--state",
              state, NULL);
    g_test_message("%s: %d\n%s", refused[i].name, r.status, r.err);
    g_assert_cmpint(r.status, ==, 2);
    g_assert_nonnull(strstr(r.err, refused[i].err));
    g_assert_cmpstr(r.out, ==, "");
    g_assert_false(g_file_test(state, G_FILE_TEST_EXISTS));
  }
  g_auto(Result) all = {0};
  lbsim(&all, "reproduce", "--all", "--deep", NULL);
  g_assert_cmpint(all.status, ==, 2);
  g_assert_nonnull(strstr(all.err, "--deep is a paper's"));
}

/* Each paper made wrong on purpose (--set on every run): a headline claim
 * turns (a reproduced one disagrees, or a known disagreement agrees and
 * the list is stale), and --check says so. Mutations of one paper that
 * touch different techniques share its run (chaube2003's three: AF, AWF
 * and FAC each turn only the claims about themselves), so that each paper
 * runs once, and only the runs its claims read (--only): the claims on
 * the others are not evaluated, and said to be. */
static void validate_schema(const char *json);

static void
test_reproduce_mutations(void)
{
  if (g_getenv("LBSIM_SANITIZED") != NULL)
    return;
  static const struct {
    const char *key, *only, *sets[4];
    const char *expect[6][2]; /* claim id, status */
  } cases[] = {
      /* no balancing: move+split's threshold never reached; the claims
       * on the other runs not run */
      {"lan2002",
       "amr64",
       {"move-split.threshold=100", NULL},
       {{"table2-amr64-32", "disagrees"},
        {"fig12-amr64-32", "disagrees"},
        {"table2-amr128-32", "not-run"},
        {"fig6-above-2", "not-run"}}},
      /* AF's master looks at its messages only between whole chunks: the
       * workers wait for it, and AF costs more than STAT (fig3-af-8);
       * AWF run as GSS: the largest cut of AF and AWF is GSS's 41.8 % at
       * 8, within 2x of 68, and the quick form's known shortfall (AWF's
       * 33.0 %) is gone (fig3-up-to-68), GSS still better than STAT at 8
       * (fig3-awf-8); fac's chunks one iteration each:
       * Table 2's order for fac fails, frac's still holds */
      {"chaube2003",
       "a,b,c",
       {"dls:af.break-after=100000", "dls:awf.technique=gss", "dls:fac.technique=ss", NULL},
       {{"fig3-af-8", "disagrees"},
        {"fig3-up-to-68", "known-agrees"},
        {"fig3-awf-8", "agrees"},
        {"table2-growth-fac", "disagrees"},
        {"table2-growth-frac", "agrees"}}},
      /* the paper's literal loan repaired: its known disagreement agrees */
      {"quinlan1997",
       NULL,
       {"mlb:literal.phase4=loan", NULL},
       {{"literal-loan-order", "known-agrees"}}},
      /* a tolerance every loop meets */
      {"lbd", NULL, {"lbd.tolerance=100", NULL}, {{"loops-tolerance", "known-agrees"}}},
      /* the work of a point ten thousand flops: Fig. 2's efficiency reached */
      {"baiardi2001",
       "fig2-problem1",
       {"workload.flops-per-unit=10000", NULL},
       {{"fig2-p1-efficiency-all", "known-agrees"}, {"fig2-p2-efficiency-all", "not-run"}}},
  };
  for (guint i = 0; i < G_N_ELEMENTS(cases); i++) {
    g_autofree char *state = g_strdup_printf("%s-mutated-%u", cases[i].key, i);
    g_autofree char *state_path = tmp_path(state);
    g_autofree char *json = g_strdup_printf("%s.json", state_path);
    g_autoptr(GPtrArray) argv = g_ptr_array_new();
    const char *fixed[] = {"reproduce", cases[i].key, "--quick", "--check", "-q",
                           "--state",   state_path,   "--json",  json};
    for (guint k = 0; k < G_N_ELEMENTS(fixed); k++)
      g_ptr_array_add(argv, (gpointer)fixed[k]);
    for (guint k = 0; cases[i].sets[k] != NULL; k++) {
      g_ptr_array_add(argv, (gpointer) "--set");
      g_ptr_array_add(argv, (gpointer)cases[i].sets[k]);
    }
    if (cases[i].only != NULL) {
      g_ptr_array_add(argv, (gpointer) "--only");
      g_ptr_array_add(argv, (gpointer)cases[i].only);
    }
    g_ptr_array_add(argv, NULL);
    g_auto(Result) r = {0};
    spawn_lbsim_argv(&r, NULL, (const char *const *)argv->pdata);
    g_test_message("%s %s: %d\n%s", cases[i].key, cases[i].sets[0], r.status, r.err);
    g_assert_cmpint(r.status, ==, 1);
    g_assert_nonnull(strstr(r.err, "--check: "));
    g_autoptr(JsonNode) root = load_json(json);
    JsonObject *doc = json_node_get_object(root);
    JsonArray *sets = json_object_get_array_member(doc, "sets");
    for (guint k = 0; cases[i].sets[k] != NULL; k++)
      g_assert_cmpstr(json_array_get_string_element(sets, k), ==, cases[i].sets[k]);
    if (cases[i].only != NULL) {
      g_auto(GStrv) names = g_strsplit(cases[i].only, ",", -1);
      g_autofree char *listed = g_strjoinv(", ", names);
      g_autofree char *only_line = g_strdup_printf("only the runs %s (--only)", listed);
      g_assert_nonnull(strstr(r.out, only_line));
      g_assert_nonnull(strstr(r.out, "not evaluated (quick form; --only)"));
      JsonArray *only = json_object_get_array_member(doc, "only");
      g_assert_cmpuint(json_array_get_length(only), ==, g_strv_length(names));
      for (guint k = 0; names[k] != NULL; k++)
        g_assert_cmpstr(json_array_get_string_element(only, k), ==, names[k]);
      validate_schema(json);
    } else {
      g_assert_false(json_object_has_member(doc, "only"));
    }
    for (guint k = 0; k < G_N_ELEMENTS(cases[i].expect) && cases[i].expect[k][0] != NULL; k++) {
      JsonObject *c = claim_named(root, cases[i].expect[k][0]);
      g_assert_cmpstr(json_object_get_string_member(c, "status"), ==, cases[i].expect[k][1]);
      if (strcmp(cases[i].expect[k][1], "not-run") == 0)
        g_assert_cmpstr(json_object_get_string_member(c, "note"), ==, "not run (--only)");
    }
  }
}

/* lbsim reproduce --all: one row per paper, from the state folders the
 * quick forms above left (nothing runs again), and the sum. */
static void
test_reproduce_all(void)
{
  if (g_getenv("LBSIM_SANITIZED") != NULL)
    return;
  g_auto(Result) all = {0};
  g_autofree char *states = tmp_path("");
  lbsim(&all, "reproduce", "--all", "--quick", "--check", "-q", "--state", states, NULL);
  g_test_message("%s%s", all.out, all.err);
  g_assert_cmpint(all.status, ==, 0);
  g_assert_true(g_str_has_prefix(all.out, "paper        headline reproduced  claims agreeing"));
  static const char *const rows[] = {"baiardi2001  9/22",  "chaube2003   20/33",
                                     "lan2002      15/46", "lbd          1/2",
                                     "quinlan1997  6/7",   "all          51/110"};
  for (guint i = 0; i < G_N_ELEMENTS(rows); i++)
    g_assert_nonnull(strstr(all.out, rows[i]));
  g_auto(Result) refused = {0};
  lbsim(&refused, "reproduce", "--all", "--json", "x.json", NULL);
  g_assert_cmpint(refused.status, ==, 2);
  g_assert_nonnull(strstr(refused.err, "--all prints one table"));
}

/* Shipped scenarios of 512 ranks and more: under the sanitizers (a debug
 * build, every access checked) they take minutes, and with --detail they
 * write hundreds of MB (sfc-t3e-512's 200 MB took 70 s to make): there
 * they run at 64 ranks on a hypercube with a smaller workload, which goes
 * through the same code and writes the same members, and their [expect]
 * lines are the normal build's to check in full. The first is heavy: its
 * check writes a report too. */
static const struct {
  const char *name, *smaller;
} shrunk[] = {
    {"all-families-1024.ini", "workload.size=64x64"},
    {"field2d-compare-t3e-512.ini", "workload.size=64x64"},
    {"field2d-fat-tree-1024.ini", "workload.size=64x64"},
    {"field3d-hypercube-1024.ini", "workload.size=16x16x16"},
    {"sfc-t3e-512.ini", "workload.elements=20000"},
};

/* The smaller workload of a scenario run shrunk, or NULL. */
static const char *
shrunk_by(const char *name)
{
  for (guint i = 0; i < G_N_ELEMENTS(shrunk); i++)
    if (strcmp(shrunk[i].name, name) == 0)
      return shrunk[i].smaller;
  return NULL;
}

/* The scenario's shrunk run (with --detail or not): its JSON, one run per
 * balancer of the file. */
static char *
run_shrunk(const char *path, const char *smaller, gboolean detail)
{
  char *json = tmp_path(detail ? "shrunk-detail.json" : "shrunk.json");
  g_auto(Result) r = {0};
  lbsim(&r, "run", "-q", path, "--ranks", "64", "--platform", "hypercube-64.xml", "--set", smaller,
        "--json", json, detail ? "--detail" : NULL, NULL);
  g_test_message("%s:\n%s%s", path, r.out, r.err);
  g_assert_cmpint(r.status, ==, 0);
  g_autoptr(JsonNode) root = load_json(json);
  JsonArray *runs = json_object_get_array_member(json_node_get_object(root), "runs");
  g_autofree char *full = g_build_filename(source_root(), path, NULL);
  g_autoptr(LbScenario) sc = lb_scenario_load(full, NULL, NULL);
  g_assert_nonnull(sc);
  g_assert_cmpuint(json_array_get_length(runs), ==, sc->runs->len);
  return json;
}

/* The JSON document follows docs/reference/lbsim-result.schema.json. */
static void
validate_schema(const char *json)
{
  g_autofree char *script = g_build_filename(source_root(), "tests", "schema", "validate.py", NULL);
  g_autofree char *schema =
      g_build_filename(source_root(), "docs", "reference", "lbsim-result.schema.json", NULL);
  const char *argv[] = {"python3", script, schema, json, NULL};
  g_autofree char *out = NULL, *err = NULL;
  int status = 0;
  g_autoptr(GError) error = NULL;
  g_assert_true(g_spawn_sync(NULL, (char **)argv, NULL, G_SPAWN_SEARCH_PATH, NULL, NULL, &out, &err,
                             &status, &error));
  g_assert_no_error(error);
  if (!g_spawn_check_wait_status(status, NULL))
    g_error("%s%s", out, err);
}

/* A shipped scenario runs, its [expect] holds and its JSON follows the
 * schema. */
static void
shipped_scenario(gconstpointer data)
{
  const char *name = data;
  g_autofree char *path = g_build_filename("scenarios", name, NULL);
  gboolean sanitized = g_getenv("LBSIM_SANITIZED") != NULL;
  const char *smaller = shrunk_by(name);
  gboolean heavy = smaller != NULL && strcmp(name, shrunk[0].name) == 0;
  if (sanitized && smaller != NULL) {
    g_autofree char *json = run_shrunk(path, smaller, FALSE);
    validate_schema(json);
    return;
  }
  g_auto(Result) r = {0};
  g_autofree char *json = tmp_path("shipped.json");
  /* the heavy one's report: every family at 1024 ranks, its pictures
   * megabytes (a curve through 83,000 leaves), its page small */
  g_autofree char *report = tmp_path("shipped-report");
  lbsim(&r, "check", "-q", path, "--json", json, heavy ? "--report" : NULL, report, NULL);
  g_test_message("%s:\n%s%s", name, r.out, r.err);
  g_assert_cmpint(r.status, ==, 0);
  g_assert_nonnull(strstr(r.out, " 0 failed"));
  g_assert_null(strstr(r.out, "SKIP"));
  validate_schema(json);
  if (heavy) {
    g_autofree char *page = g_build_filename(report, "index.html", NULL);
    g_autofree char *html = NULL;
    gsize size = 0;
    g_assert_true(g_file_get_contents(page, &html, &size, NULL));
    g_test_message("%s: the report's page is %" G_GSIZE_FORMAT " bytes", name, size);
    g_assert_cmpuint(size, <, 2 * 1024 * 1024);
    g_autoptr(JsonNode) root = load_json(json);
    guint runs =
        json_array_get_length(json_object_get_array_member(json_node_get_object(root), "runs"));
    guint figures = 0;
    for (const char *at = html; (at = strstr(at, "<figure class=\"picture\"")) != NULL; at++)
      figures++;
    g_assert_cmpuint(figures, ==, runs);
  }
  if (sanitized)
    return;
  /* --detail adds the schedule, partitions, grids, events: the schema has
   * them */
  g_autofree char *detail = NULL;
  if (smaller != NULL) {
    detail = run_shrunk(path, smaller, TRUE);
  } else {
    g_auto(Result) d = {0};
    detail = tmp_path("shipped-detail.json");
    lbsim(&d, "run", "-q", path, "--detail", "--json", detail, NULL);
    g_test_message("--detail:\n%s", d.err);
    g_assert_cmpint(d.status, ==, 0);
  }
  validate_schema(detail);
}

static void
test_shipped_scenario(gconstpointer data)
{
  gint64 start = g_get_monotonic_time();
  shipped_scenario(data);
  g_test_message("case took %.1f s", (double)(g_get_monotonic_time() - start) / 1e6);
}

/* Shipped scenarios too long for the test suite (4096 ranks): loaded here,
 * which checks their keys, platform and [expect] lines, and run by hand
 * with `lbsim check`. */
static const char *const run_by_hand[] = {"sfc-hypercube-4096.ini", NULL};

static void
test_shipped_scenario_loads(gconstpointer data)
{
  g_autofree char *path = g_build_filename(source_root(), "scenarios", (const char *)data, NULL);
  g_autoptr(GError) error = NULL;
  g_autoptr(LbScenario) sc = lb_scenario_load(path, NULL, &error);
  g_assert_no_error(error);
  g_assert_cmpuint(sc->expects->len, >, 0);
}

static int
compare_names(gconstpointer a, gconstpointer b)
{
  return g_strcmp0(*(char *const *)a, *(char *const *)b);
}

static void
add_shipped_scenarios(void)
{
  g_autofree char *dir = g_build_filename(source_root(), "scenarios", NULL);
  g_autoptr(GDir) d = g_dir_open(dir, 0, NULL);
  g_assert_nonnull(d);
  g_autoptr(GPtrArray) names = g_ptr_array_new();
  const char *name;
  while ((name = g_dir_read_name(d)) != NULL)
    if (g_str_has_suffix(name, ".ini"))
      g_ptr_array_add(names, g_strdup(name));
  g_assert_cmpuint(names->len, >=, 1);
  g_ptr_array_sort(names, compare_names);
  for (guint i = 0; i < names->len; i++) {
    const char *file = names->pdata[i];
    gboolean by_hand = g_strv_contains(run_by_hand, file);
    g_autofree char *test =
        g_strdup_printf(by_hand ? "/cli/scenario-loads/%s" : "/cli/scenario/%s", file);
    g_test_add_data_func_full(test, names->pdata[i],
                              by_hand ? test_shipped_scenario_loads : test_shipped_scenario,
                              g_free);
  }
}

/* The text of a source file between its lines <!-- NAME:begin --> and
 * <!-- NAME:end --> (what tools/update-readme writes there). */
static char *
marked_section(const char *file, const char *name)
{
  g_autofree char *path = g_build_filename(source_root(), file, NULL);
  g_autofree char *text = NULL;
  g_assert_true(g_file_get_contents(path, &text, NULL, NULL));
  g_autofree char *begin_mark = g_strdup_printf("\n<!-- %s:begin -->\n", name);
  g_autofree char *end_mark = g_strdup_printf("\n<!-- %s:end -->\n", name);
  const char *begin = strstr(text, begin_mark);
  g_assert_nonnull(begin);
  begin += strlen(begin_mark) - 1;
  const char *end = strstr(begin, end_mark);
  g_assert_nonnull(end);
  g_assert_null(strstr(end + 1, begin_mark));
  return g_strndup(begin + 1, (gsize)(end - begin));
}

/* A generated section against what it should hold, the first differing
 * line in the log. */
static void
assert_generated(const char *file, const char *name, const char *expected, const char *how)
{
  g_autofree char *section = marked_section(file, name);
  if (g_strcmp0(section, expected) == 0)
    return;
  g_auto(GStrv) got = g_strsplit(section, "\n", -1);
  g_auto(GStrv) want = g_strsplit(expected, "\n", -1);
  guint i = 0;
  while (got[i] != NULL && want[i] != NULL && g_strcmp0(got[i], want[i]) == 0)
    i++;
  g_test_message("%s's %s section differs from %s at its line %u: \"%s\", expected \"%s\"; run "
                 "tools/update-readme",
                 file, name, how, i + 1, got[i] != NULL ? got[i] : "(end)",
                 want[i] != NULL ? want[i] : "(end)");
  g_test_fail();
}

/* Every line of text indented by four spaces (a Markdown code block),
 * trailing spaces dropped, an empty line left empty. */
static void
append_indented(GString *s, const char *text)
{
  g_auto(GStrv) lines = g_strsplit(text, "\n", -1);
  guint n = g_strv_length(lines);
  if (n > 0 && lines[n - 1][0] == '\0')
    n--; /* the text's final newline */
  for (guint i = 0; i < n; i++) {
    g_strchomp(lines[i]);
    if (lines[i][0] != '\0')
      g_string_append(s, "    ");
    g_string_append_printf(s, "%s\n", lines[i]);
  }
}

/* The reference's key tables are `lbsim list --markdown`, word for word. */
static void
test_readme_tables(void)
{
  g_auto(Result) r = {0};
  lbsim(&r, "list", "--markdown", NULL);
  g_assert_cmpint(r.status, ==, 0);
  assert_generated("docs/reference/scenario-files.md", "params", r.out, "`lbsim list --markdown`");
}

/* The reference of the commands holds `lbsim --help` and every command's
 * --help, in the order of the list of commands. */
static void
test_docs_help(void)
{
  g_auto(GStrv) env = g_environ_setenv(g_get_environ(), "LC_ALL", "C.UTF-8", TRUE);
  g_auto(Result) top = {0};
  lbsim_env(&top, env, "--help", NULL);
  g_assert_cmpint(top.status, ==, 0);
  g_autoptr(GString) want = g_string_new("`lbsim --help`:\n\n");
  append_indented(want, top.out);
  const char *commands = strstr(top.out, "\nCommands:\n");
  g_assert_nonnull(commands);
  g_auto(GStrv) lines = g_strsplit(commands + strlen("\nCommands:\n"), "\n", -1);
  guint documented = 0;
  for (guint i = 0; lines[i] != NULL && lines[i][0] != '\0'; i++) {
    if (!g_str_has_prefix(lines[i], "  ") || !g_ascii_islower(lines[i][2]))
      continue; /* a summary's continuation */
    g_autofree char *name = g_strndup(lines[i] + 2, strcspn(lines[i] + 2, " "));
    if (g_str_equal(name, "help") || g_str_equal(name, "version"))
      continue;
    g_auto(Result) r = {0};
    lbsim_env(&r, env, name, "--help", NULL);
    g_assert_cmpint(r.status, ==, 0);
    g_string_append_printf(want, "\n### lbsim %s\n\n", name);
    append_indented(want, r.out);
    documented++;
  }
  g_string_append(want, "\n");
  g_assert_cmpuint(documented, >=, 10);
  assert_generated("docs/reference/cli.md", "help", want->str, "lbsim's --help texts");
}

/* The sample run of the README and the tutorial is today's output of the
 * command they show, paths relative to the source tree. */
static void
test_readme_sample(void)
{
  g_auto(Result) r = {0};
  lbsim(&r, "run", "-q", "scenarios/mlb-hypercube-1024.ini", NULL);
  g_assert_cmpint(r.status, ==, 0);
  g_autofree char *prefix = g_strconcat(source_root(), "/", NULL);
  g_auto(GStrv) parts = g_strsplit(r.out, prefix, -1);
  g_autofree char *out = g_strjoinv("", parts);
  g_autoptr(GString) want = g_string_new("\n");
  append_indented(want, out);
  g_string_append(want, "\n");
  g_assert_nonnull(strstr(want->str, "    mlb "));
  assert_generated("README.md", "sample", want->str,
                   "`lbsim run scenarios/mlb-hypercube-1024.ini`");
  assert_generated("docs/tutorial.md", "sample", want->str,
                   "`lbsim run scenarios/mlb-hypercube-1024.ini`");
}

/* The child side alone: a job file run by `lbsim run-job` gives the typed
 * result of the same run that `lbsim run` reports. */
static void
test_run_job(void)
{
  g_autofree char *job = tmp_path("job.ini");
  g_autofree char *result = tmp_path("job-result.json");
  g_autofree char *json = tmp_path("job-run.json");
  g_assert_true(
      g_file_set_contents(job,
                          "[job]\nscenario = scenarios/mlb-teach-16.ini\n"
                          "balancer = mlb\nranks = 8\nplatform = platforms/hypercube-8.xml\n"
                          "set1 = workload.size=40\nset2 = mlb.desired=even\n",
                          -1, NULL));
  g_auto(Result) r = {0}, run = {0}, bad = {0}, missing = {0};
  lbsim(&r, "run-job", job, result, NULL);
  g_assert_cmpint(r.status, ==, 0);
  lbsim(&run, "run", "-q", "scenarios/mlb-teach-16.ini", "--balancer", "mlb", "--ranks", "8",
        "--platform", "platforms/hypercube-8.xml", "--set", "workload.size=40", "--set",
        "mlb.desired=even", "--json", json, NULL);
  g_assert_cmpint(run.status, ==, 0);
  g_autoptr(JsonNode) typed = load_json(result);
  g_autoptr(JsonNode) doc = load_json(json);
  JsonObject *t = json_node_get_object(typed);
  JsonObject *d = json_array_get_object_element(
      json_object_get_array_member(json_node_get_object(doc), "runs"), 0);
  g_assert_cmpstr(json_object_get_string_member(t, "balancer"), ==, "mlb");
  g_assert_cmpint(json_object_get_int_member(t, "ranks"), ==, 8);
  JsonObject *params = json_object_get_object_member(t, "params");
  g_assert_cmpstr(json_object_get_string_member(params, "desired"), ==, "even");
  JsonArray *a = json_object_get_array_member(t, "final_loads");
  JsonArray *b = json_object_get_array_member(d, "final_loads");
  g_assert_cmpuint(json_array_get_length(a), ==, 8);
  for (guint i = 0; i < 8; i++)
    g_assert_cmpint(json_array_get_int_element(a, i), ==, json_array_get_int_element(b, i));
  g_assert_cmpint(
      json_object_get_int_member(json_object_get_object_member(t, "summary"), "simulated_messages"),
      ==,
      json_object_get_int_member(json_object_get_object_member(d, "summary"),
                                 "simulated_messages"));

  g_assert_true(g_file_set_contents(job, "[job]\nbalancer = mlb\n", -1, NULL));
  lbsim(&bad, "run-job", job, result, NULL);
  g_assert_cmpint(bad.status, ==, 2);
  g_assert_nonnull(strstr(bad.err, "scenario"));
  lbsim(&missing, "run-job", job, NULL);
  g_assert_cmpint(missing.status, ==, 2);
}

/* The cells that `lbsim curve` printed, as text: one line each, dim whole
 * numbers in [0, 2^order) each. */
static GArray *
curve_text_cells(const char *out, guint dim, guint order)
{
  GArray *cells = g_array_new(FALSE, FALSE, sizeof(guint32));
  g_auto(GStrv) lines = g_strsplit(out, "\n", -1);
  guint n = g_strv_length(lines);
  g_assert_cmpuint(n, >, 0);
  g_assert_cmpstr(lines[n - 1], ==, ""); /* a newline after the last line */
  for (guint i = 0; i + 1 < n; i++) {
    g_auto(GStrv) words = g_strsplit(lines[i], " ", -1);
    g_assert_cmpuint(g_strv_length(words), ==, dim);
    for (guint a = 0; a < dim; a++) {
      guint64 v = 0;
      g_assert_true(g_ascii_string_to_unsigned(words[a], 10, 0, (1u << order) - 1, &v, NULL));
      guint32 c = (guint32)v;
      g_array_append_val(cells, c);
    }
  }
  return cells;
}

static void
test_curve(void)
{
  const char *names[] = {"hilbert", "morton"};
  const guint shapes[][2] = {{2, 1}, {2, 3}, {3, 1}, {3, 2}, {2, 8}};
  for (guint k = 0; k < G_N_ELEMENTS(names); k++)
    for (guint s = 0; s < G_N_ELEMENTS(shapes); s++) {
      guint dim = shapes[s][0], order = shapes[s][1];
      g_autofree char *dim_text = g_strdup_printf("%u", dim);
      g_autofree char *order_text = g_strdup_printf("%u", order);
      g_auto(Result) text = {0}, json = {0};
      lbsim(&text, "curve", names[k], "--dim", dim_text, "--order", order_text, NULL);
      g_assert_cmpint(text.status, ==, 0);
      g_assert_cmpstr(text.err, ==, "");
      g_autoptr(GArray) cells = curve_text_cells(text.out, dim, order);
      guint64 ncells = (guint64)1 << (dim * order);
      g_assert_cmpuint(cells->len, ==, ncells * dim);

      /* every cell once, in the library's visit order */
      g_autofree guint8 *seen = g_new0(guint8, ncells);
      LbCurveKind kind;
      g_assert_true(lb_curve_parse(names[k], &kind));
      for (guint64 i = 0; i < ncells; i++) {
        const guint32 *c = &g_array_index(cells, guint32, i * dim);
        guint64 n = 0;
        for (guint a = 0; a < dim; a++)
          n = (n << order) | c[a];
        g_assert_cmpuint(seen[n], ==, 0);
        seen[n] = 1;
        g_assert_cmpuint(lb_curve_index(kind, dim, order, c), ==, i);
      }

      lbsim(&json, "curve", names[k], "--json", "-", "--order", order_text, "--dim", dim_text,
            NULL);
      g_assert_cmpint(json.status, ==, 0);
      g_autoptr(JsonParser) parser = json_parser_new();
      g_autoptr(GError) error = NULL;
      json_parser_load_from_data(parser, json.out, -1, &error);
      g_assert_no_error(error);
      JsonArray *visit = json_node_get_array(json_parser_get_root(parser));
      g_assert_cmpuint(json_array_get_length(visit), ==, ncells);
      for (guint i = 0; i < ncells; i++) {
        JsonArray *cell = json_array_get_array_element(visit, i);
        g_assert_cmpuint(json_array_get_length(cell), ==, dim);
        for (guint a = 0; a < dim; a++)
          g_assert_cmpint(json_array_get_int_element(cell, a), ==,
                          g_array_index(cells, guint32, i * dim + a));
      }
    }
  /* --json FILE: the lines on standard output and the JSON in FILE, the
   * same as --json -; the flag it once was names the file it would be */
  g_autofree char *file = tmp_path("curve.json");
  g_auto(Result) both = {0}, lines = {0}, array = {0}, old = {0};
  lbsim(&both, "curve", "morton", "--order", "2", "--json", file, NULL);
  lbsim(&lines, "curve", "morton", "--order", "2", NULL);
  lbsim(&array, "curve", "morton", "--order", "2", "--json", "-", NULL);
  g_assert_cmpint(both.status, ==, 0);
  g_assert_cmpstr(both.out, ==, lines.out);
  g_autofree char *written = NULL;
  g_assert_true(g_file_get_contents(file, &written, NULL, NULL));
  g_assert_cmpstr(written, ==, array.out);
  g_assert_true(g_str_has_prefix(array.out, "[\n  [0, 0],\n"));
  lbsim(&old, "curve", "--json", "hilbert", "--order", "2", NULL);
  g_assert_cmpint(old.status, ==, 2);
  g_assert_nonnull(strstr(old.err, "--json takes a FILE"));
  g_assert_false(g_file_test("hilbert", G_FILE_TEST_EXISTS));
  /* --dim is 2 unless given */
  g_auto(Result) two = {0}, plain = {0};
  lbsim(&two, "curve", "hilbert", "--dim", "2", "--order", "2", NULL);
  lbsim(&plain, "curve", "hilbert", "--order=2", NULL);
  g_assert_cmpint(plain.status, ==, 0);
  g_assert_cmpstr(plain.out, ==, two.out);
}

/* lbsim with these arguments (NULL-terminated) is bad input: exit 2,
 * nothing on stdout, one line on stderr that names lbsim. */
static void
assert_bad_input(const char *const *args)
{
  g_autoptr(GPtrArray) argv = g_ptr_array_new();
  g_ptr_array_add(argv, (gpointer)g_getenv("LBSIM"));
  for (guint j = 0; args[j] != NULL; j++)
    g_ptr_array_add(argv, (gpointer)args[j]);
  g_ptr_array_add(argv, NULL);
  g_autofree char *out = NULL, *err = NULL;
  int wait_status = 0;
  g_assert_true(g_spawn_sync(source_root(), (char **)argv->pdata, NULL, G_SPAWN_DEFAULT, NULL, NULL,
                             &out, &err, &wait_status, NULL));
  g_assert_true(WIFEXITED(wait_status));
  g_assert_cmpint(WEXITSTATUS(wait_status), ==, 2);
  g_assert_cmpstr(out, ==, "");
  g_assert_true(g_str_has_prefix(err, "lbsim: "));
  g_assert_nonnull(strchr(err, '\n'));
  g_assert_cmpstr(strchr(err, '\n'), ==, "\n");
}

static void
test_curve_errors(void)
{
  const char *cases[][7] = {
      {"curve", NULL},
      {"curve", "--order", "2", NULL},
      {"curve", "peano", "--order", "2", NULL},
      {"curve", "hilbert", "morton", "--order", "2", NULL},
      {"curve", "hilbert", NULL},
      {"curve", "hilbert", "--order", "0", NULL},
      {"curve", "hilbert", "--order", "13", NULL},
      {"curve", "morton", "--dim", "3", "--order", "9", NULL},
      {"curve", "morton", "--order", "-1", NULL},
      {"curve", "morton", "--order", "2x", NULL},
      {"curve", "hilbert", "--dim", "4", "--order", "2", NULL},
      {"curve", "hilbert", "--dim", "1", "--order", "2", NULL},
      {"curve", "hilbert", "--order", "2", "--bogus", NULL},
      {"curve", "hilbert", "--order", NULL},
  };
  for (guint i = 0; i < G_N_ELEMENTS(cases); i++)
    assert_bad_input(cases[i]);
  g_auto(Result) unknown = {0}, order = {0};
  lbsim(&unknown, "curve", "peano", "--order", "2", NULL);
  g_assert_nonnull(strstr(unknown.err, "'peano'"));
  lbsim(&order, "curve", "morton", "--dim", "3", "--order", "9", NULL);
  g_assert_nonnull(strstr(order.err, "--order '9'"));
}

/* The chunks `lbsim chunks` printed as text: a size a line, and the
 * worker after a space when by_worker. */
static GArray *
chunks_text(const char *out, gboolean by_worker, GArray *workers)
{
  GArray *sizes = g_array_new(FALSE, FALSE, sizeof(guint64));
  g_auto(GStrv) lines = g_strsplit(out, "\n", -1);
  guint n = g_strv_length(lines);
  g_assert_cmpuint(n, >, 1);
  g_assert_cmpstr(lines[n - 1], ==, "");
  for (guint i = 0; i + 1 < n; i++) {
    g_auto(GStrv) words = g_strsplit(lines[i], " ", -1);
    g_assert_cmpuint(g_strv_length(words), ==, by_worker ? 2 : 1);
    guint64 size = 0, worker = 0;
    g_assert_true(g_ascii_string_to_unsigned(words[0], 10, 1, G_MAXUINT64, &size, NULL));
    g_array_append_val(sizes, size);
    if (by_worker) {
      g_assert_true(g_ascii_string_to_unsigned(words[1], 10, 0, G_MAXUINT, &worker, NULL));
      guint w = (guint)worker;
      g_array_append_val(workers, w);
    }
  }
  return sizes;
}

static void
test_chunks(void)
{
  const char *names[] = {"stat", "ss", "fsc", "gss", "tss", "fac", "frac", "wf", "awf", "af"};
  const char *weights[] = {NULL, "1,2,3,1,1,0.5,4"};
  for (guint k = 0; k < G_N_ELEMENTS(names); k++)
    for (guint v = 0; v < G_N_ELEMENTS(weights); v++) {
      DlsTechnique t;
      g_assert_true(dls_technique_parse(names[k], &t));
      gboolean by_worker = dls_technique_by_worker(t);
      g_auto(Result) text = {0}, json = {0};
      const char *wopt = weights[v] != NULL ? "--weights" : NULL;
      lbsim(&text, "chunks", names[k], "--iterations", "1000", "--ranks", "7", "--set",
            "dls.min-chunk=2", wopt, weights[v], NULL);
      g_assert_cmpint(text.status, ==, 0);
      g_assert_cmpstr(text.err, ==, "");
      g_autoptr(GArray) workers = g_array_new(FALSE, FALSE, sizeof(guint));
      g_autoptr(GArray) sizes = chunks_text(text.out, by_worker, workers);

      lbsim(&json, "chunks", names[k], "--json", "-", "--iterations=1000", "--ranks=7",
            "--min-chunk=2", wopt, weights[v], NULL);
      g_assert_cmpint(json.status, ==, 0);
      g_autoptr(JsonParser) parser = json_parser_new();
      g_autoptr(GError) error = NULL;
      json_parser_load_from_data(parser, json.out, -1, &error);
      g_assert_no_error(error);
      JsonArray *chunks = json_node_get_array(json_parser_get_root(parser));
      g_assert_cmpuint(json_array_get_length(chunks), ==, sizes->len);

      /* round-robin requests, the library's chunks, reported at 1/w a
       * iteration for the adaptive ones, text and JSON alike */
      double w[7] = {1, 1, 1, 1, 1, 1, 1};
      if (weights[v] != NULL) {
        g_auto(GStrv) parts = g_strsplit(weights[v], ",", -1);
        for (guint i = 0; i < 7; i++)
          w[i] = g_ascii_strtod(parts[i], NULL);
      }
      DlsChunkParams p = {2, 1, 1, w};
      g_autoptr(DlsChunker) c = dls_chunker_new(t, 1000, 7, &p);
      guint64 sum = 0;
      for (guint i = 0; i < sizes->len; i++) {
        guint64 size = g_array_index(sizes, guint64, i);
        JsonObject *o = json_array_get_object_element(chunks, i);
        g_assert_cmpuint(json_object_get_size(o), ==, 2);
        g_assert_cmpint(json_object_get_int_member(o, "size"), ==, (gint64)size);
        g_assert_cmpint(json_object_get_int_member(o, "worker"), ==, i % 7);
        if (by_worker)
          g_assert_cmpuint(g_array_index(workers, guint, i), ==, i % 7);
        g_assert_cmpuint(dls_chunker_next(c, i % 7), ==, size);
        dls_chunker_report(c, i % 7, size, (double)size / w[i % 7]);
        sum += size;
      }
      g_assert_cmpuint(sum, ==, 1000);
      g_assert_cmpuint(dls_chunker_remaining(c), ==, 0);
    }

  /* --json FILE: the lines and the JSON in FILE, as --json - writes it;
   * --workers, --ranks's former name, still taken; -p as run's */
  g_autofree char *file = tmp_path("chunks.json");
  g_auto(Result) both = {0}, lines = {0}, array = {0}, old = {0}, former = {0}, twice = {0};
  lbsim(&both, "chunks", "fac", "--iterations", "100", "-p", "4", "--json", file, NULL);
  lbsim(&lines, "chunks", "fac", "--iterations", "100", "--workers", "4", NULL);
  lbsim(&array, "chunks", "fac", "--iterations", "100", "--ranks", "4", "--json", "-", NULL);
  g_assert_cmpint(both.status, ==, 0);
  g_assert_cmpstr(both.out, ==, lines.out);
  g_assert_true(g_str_has_prefix(lines.out, "13\n13\n13\n13\n"));
  g_autofree char *written = NULL;
  g_assert_true(g_file_get_contents(file, &written, NULL, NULL));
  g_assert_cmpstr(written, ==, array.out);
  lbsim(&old, "chunks", "--json", "fac", "--iterations", "100", "--ranks", "4", NULL);
  g_assert_cmpint(old.status, ==, 2);
  g_assert_nonnull(strstr(old.err, "--json takes a FILE"));
  lbsim(&twice, "chunks", "fac", "--iterations", "100", "--ranks", "4", "--workers", "4", NULL);
  g_assert_cmpint(twice.status, ==, 2);
  g_assert_nonnull(strstr(twice.err, "--workers is --ranks"));
  lbsim(&former, "chunks", "--help", NULL);
  g_assert_nonnull(strstr(former.out, "--ranks"));
  g_assert_null(strstr(former.out, "--workers"));

  /* frac: worker 2's and 3's tiles hold 2 iterations (10 on 4 ranks),
   * less than min-chunk 3: their chunks are cut to them (fac: 3, 3, 3, 1) */
  g_auto(Result) tiles = {0};
  lbsim(&tiles, "chunks", "frac", "--iterations", "10", "--ranks", "4", "--min-chunk", "3", NULL);
  g_assert_cmpint(tiles.status, ==, 0);
  g_assert_cmpstr(tiles.out, ==, "3 0\n3 1\n2 2\n2 3\n");

  /* by hand: gss from R = 100 on 4 workers, ceil(R/4) */
  g_auto(Result) gss = {0}, fsc = {0}, wf = {0};
  lbsim(&gss, "chunks", "gss", "--iterations", "100", "--ranks", "4", NULL);
  g_assert_cmpstr(gss.out, ==, "25\n19\n14\n11\n8\n6\n5\n3\n3\n2\n1\n1\n1\n1\n");
  /* fsc, N = 1000, P = 4, h = 0.5, sigma = 2: (707.107 / 9.41928)^(2/3) =
   * 17.80: 55 chunks of 18, then 10 */
  lbsim(&fsc, "chunks", "fsc", "--iterations", "1000", "--ranks", "4", "--set", "dls.fsc-h=0.5",
        "--set", "dls.fsc-sigma=2", NULL);
  g_autoptr(GString) want = g_string_new(NULL);
  for (guint i = 0; i < 55; i++)
    g_string_append(want, "18\n");
  g_string_append(want, "10\n");
  g_assert_cmpstr(fsc.out, ==, want->str);
  /* wf, weights 1, 1, 1, 3 (2/3, 2/3, 2/3, 2): ceil(2/3 * 12.5) = 9, 2 * 12.5 = 25 */
  lbsim(&wf, "chunks", "wf", "--iterations", "100", "--ranks", "4", "--weights", "1,1,1,3", NULL);
  g_assert_true(g_str_has_prefix(wf.out, "9 0\n9 1\n9 2\n25 3\n4 0\n"));
}

static void
test_chunks_errors(void)
{
  const char *cases[][12] = {
      {"chunks", NULL},
      {"chunks", "--iterations", "10", "--ranks", "2", NULL},
      {"chunks", "fac2", "--iterations", "10", "--ranks", "2", NULL},
      {"chunks", "fac", "gss", "--iterations", "10", "--ranks", "2", NULL},
      {"chunks", "fac", "--ranks", "2", NULL},
      {"chunks", "fac", "--iterations", "10", NULL},
      {"chunks", "fac", "--iterations", "0", "--ranks", "2", NULL},
      {"chunks", "fac", "--iterations", "-3", "--ranks", "2", NULL},
      {"chunks", "fac", "--iterations", "1e3", "--ranks", "2", NULL},
      {"chunks", "fac", "--iterations", "9007199254740993", "--ranks", "2", NULL},
      {"chunks", "fac", "--iterations", "10", "--ranks", "0", NULL},
      {"chunks", "fac", "--iterations", "10", "--ranks", "1048577", NULL},
      {"chunks", "wf", "--iterations", "10", "--ranks", "2", "--weights", "1,2,3", NULL},
      {"chunks", "wf", "--iterations", "10", "--ranks", "2", "--weights", "1,-2", NULL},
      {"chunks", "wf", "--iterations", "10", "--ranks", "2", "--weights", "1,x", NULL},
      {"chunks", "fac", "--iterations", "10", "--ranks", "2", "--min-chunk", "0", NULL},
      {"chunks", "fac", "--iterations", "10", "--ranks", "2", "--set", "dls.bogus=1", NULL},
      {"chunks", "fac", "--iterations", "10", "--ranks", "2", "--set", "mlb.desired=even", NULL},
      {"chunks", "fac", "--iterations", "10", "--ranks", "2", "--set", "dls.fsc-h=abc", NULL},
      {"chunks", "fac", "--iterations", "10", "--ranks", "2", "--set", "dls.technique=gss", NULL},
      {"chunks", "fac", "--iterations", "10", "--ranks", "2", "--set", "dls.min-chunk", NULL},
      {"chunks", "wf", "--iterations", "10", "--ranks", "2", "--set", "dls.weights=1,2",
       "--weights", "1,2", NULL},
      {"chunks", "fac", "--iterations", "10", "--ranks", "2", "--bogus", NULL},
  };
  for (guint i = 0; i < G_N_ELEMENTS(cases); i++)
    assert_bad_input(cases[i]);
  g_auto(Result) key = {0}, weights = {0}, value = {0}, name = {0};
  lbsim(&key, "chunks", "fac", "--iterations", "10", "--ranks", "2", "--set", "dls.bogus=1", NULL);
  g_assert_nonnull(strstr(key.err, "'bogus'"));
  g_assert_nonnull(strstr(key.err, "fsc-sigma"));
  lbsim(&weights, "chunks", "wf", "--iterations", "10", "--ranks", "2", "--weights", "1,2,3", NULL);
  g_assert_nonnull(strstr(weights.err, "weights"));
  lbsim(&value, "chunks", "fac", "--iterations", "10", "--ranks", "2", "--set", "dls.fsc-h=abc",
        NULL);
  g_assert_nonnull(strstr(value.err, "fsc-h"));
  g_assert_nonnull(strstr(value.err, "'abc'"));
  lbsim(&name, "chunks", "fac2", "--iterations", "10", "--ranks", "2", NULL);
  g_assert_nonnull(strstr(name.err, "'fac2'"));
}

/* pj_dump's lines of a trace: its exit status checked, its stderr empty. */
static char *
pj_dump_of(const char *pj_dump, const char *paje)
{
  const char *argv[] = {pj_dump, "-l", "9", paje, NULL};
  g_autofree char *out = NULL, *err = NULL;
  int wait_status = 0;
  g_assert_true(g_spawn_sync(NULL, (char **)argv, NULL, G_SPAWN_DEFAULT, NULL, NULL, &out, &err,
                             &wait_status, NULL));
  g_test_message("%s", err);
  g_assert_true(WIFEXITED(wait_status) && WEXITSTATUS(wait_status) == 0);
  g_assert_cmpstr(err, ==, "");
  return g_steal_pointer(&out);
}

/* pj_dump's records whose kind (Container, State, Variable) is kind and
 * whose third field is type (a container's type, a variable's name). */
static guint
pj_count(const char *dump, const char *kind, const char *const *types)
{
  guint n = 0;
  g_auto(GStrv) lines = g_strsplit(dump, "\n", -1);
  for (guint i = 0; lines[i] != NULL; i++) {
    g_auto(GStrv) f = g_strsplit(lines[i], ", ", -1);
    if (g_strv_length(f) >= 3 && strcmp(f[0], kind) == 0 && g_strv_contains(types, f[2]))
      n++;
  }
  return n;
}

/* --paje is lean: the ranks' hosts and their phases, an arrow per
 * message, no link container and no link variable; --paje-links adds the
 * links' bandwidth in use.
 * Both read by pj_dump with the same states. A --cfg that would make
 * SimGrid abort (no platform tracing: the hosts' containers missing) is
 * refused before anything runs. */
static void
test_paje_lean(void)
{
  g_autofree char *pj_dump = g_find_program_in_path("pj_dump");
  if (pj_dump == NULL) {
    g_test_skip("pj_dump (Debian package pajeng, tools/install-deps) is not installed");
    return;
  }
  g_autofree char *lean = tmp_path("lean.paje");
  g_autofree char *links = tmp_path("links.paje");
  g_auto(Result) l = {0}, k = {0};
  g_autofree char *json = tmp_path("lean.json");
  lbsim(&l, "run", "-q", "scenarios/mlb-teach-16.ini", "-b", "mlb", "--paje", lean, "-o", json,
        NULL);
  g_assert_cmpint(l.status, ==, 0);
  lbsim(&k, "run", "-q", "scenarios/mlb-teach-16.ini", "-b", "mlb", "--paje", links, "--paje-links",
        NULL);
  g_assert_cmpint(k.status, ==, 0);
  g_autofree char *lean_dump = pj_dump_of(pj_dump, lean);
  g_autofree char *links_dump = pj_dump_of(pj_dump, links);
  const char *const link_variables[] = {"bandwidth_used", "bandwidth", "latency", NULL};
  const char *const link_type[] = {"LINK", NULL};
  const char *const host_type[] = {"HOST", NULL};
  const char *const phase[] = {"phase", NULL};
  g_assert_cmpuint(pj_count(lean_dump, "Variable", link_variables), ==, 0);
  g_assert_cmpuint(pj_count(lean_dump, "Container", link_type), ==, 0);
  g_assert_cmpuint(pj_count(links_dump, "Variable", link_variables), >, 0);
  /* the 16-host hypercube: 4 links out of each host, each up and down, and a loopback */
  g_assert_cmpuint(pj_count(links_dump, "Container", link_type), ==, 16 * 9);
  g_assert_cmpuint(pj_count(lean_dump, "Container", host_type), ==, 16);
  g_assert_cmpuint(pj_count(links_dump, "Container", host_type), ==, 16);
  /* an arrow per message the run simulated, from one host to another,
   * never back in time */
  const char *const message[] = {"message", NULL};
  g_autoptr(JsonNode) root = load_json(json);
  JsonObject *run = json_array_get_object_element(
      json_object_get_array_member(json_node_get_object(root), "runs"), 0);
  gint64 simulated = json_object_get_int_member(json_object_get_object_member(run, "summary"),
                                                "simulated_messages");
  g_assert_cmpint(simulated, >, 0);
  g_assert_cmpuint(pj_count(lean_dump, "Link", message), ==, simulated);
  g_assert_cmpuint(pj_count(links_dump, "Link", message), ==, simulated);
  g_auto(GStrv) rows = g_strsplit(lean_dump, "\n", -1);
  for (guint i = 0; rows[i] != NULL; i++) {
    /* Link, CONTAINER, TYPE, START, END, DURATION, VALUE, FROM, TO, KEY */
    g_auto(GStrv) f = g_strsplit(rows[i], ", ", -1);
    if (g_strv_length(f) != 10 || strcmp(f[0], "Link") != 0)
      continue;
    g_assert_cmpfloat(g_ascii_strtod(f[3], NULL), <=, g_ascii_strtod(f[4], NULL));
    g_assert_true(f[7][0] == 'n' && f[8][0] == 'n');
    g_assert_cmpstr(f[7], !=, f[8]);
  }
  guint states = pj_count(lean_dump, "State", phase);
  g_assert_cmpuint(states, >, 16);
  g_assert_cmpuint(states, ==, pj_count(links_dump, "State", phase));
  /* the same run, the same bytes */
  g_autofree char *again = tmp_path("lean-again.paje");
  g_auto(Result) l2 = {0};
  lbsim(&l2, "run", "-q", "scenarios/mlb-teach-16.ini", "-b", "mlb", "--paje", again, NULL);
  g_assert_cmpint(l2.status, ==, 0);
  g_autofree char *first = NULL, *second = NULL;
  g_assert_true(g_file_get_contents(lean, &first, NULL, NULL));
  g_assert_true(g_file_get_contents(again, &second, NULL, NULL));
  g_auto(GStrv) first_parts = g_strsplit(first, lean, -1);
  g_auto(GStrv) second_parts = g_strsplit(second, again, -1);
  g_autofree char *first_text = g_strjoinv("FILE", first_parts);
  g_autofree char *second_text = g_strjoinv("FILE", second_parts);
  g_assert_cmpstr(first_text, ==, second_text);
  GStatBuf a, b;
  g_assert_cmpint(g_stat(lean, &a), ==, 0);
  g_assert_cmpint(g_stat(links, &b), ==, 0);
  g_test_message("lean %ld bytes, with links %ld", (long)a.st_size, (long)b.st_size);
  g_assert_cmpint(a.st_size, <, b.st_size);

  static const char *const refused[][2] = {
      {"tracing/platform:no", "--paje needs SimGrid's tracing/platform on"},
      {"tracing:off", "--paje needs SimGrid's tracing on"},
      {"tracing/filename:x.trace", "--paje names the trace file"},
  };
  g_autofree char *aborted = tmp_path("aborted.paje");
  for (guint i = 0; i < G_N_ELEMENTS(refused); i++) {
    g_auto(Result) r = {0};
    lbsim(&r, "run", "-q", "scenarios/mlb-teach-16.ini", "-b", "mlb", "--paje", aborted, "--cfg",
          refused[i][0], "--cfg", "tracing/uncategorized:no", NULL);
    g_assert_cmpint(r.status, ==, 2);
    if (strstr(r.err, refused[i][1]) == NULL)
      g_error("case %u: %s", i, r.err);
    g_assert_null(strstr(r.err, "crashed"));
    g_assert_false(g_file_test(aborted, G_FILE_TEST_EXISTS));
  }
  g_auto(Result) alone = {0};
  lbsim(&alone, "run", "-q", "scenarios/mlb-teach-16.ini", "--paje-links", NULL);
  g_assert_cmpint(alone.status, ==, 2);
  g_assert_nonnull(strstr(alone.err, "--paje-links is for --paje"));
}

/* LBSIM_CLI_PART runs a part of the cases (tests/meson.build makes three
 * meson tests of this program, each with its own time limit): reproduce
 * (the reproductions' quick forms and --all, which reads the state
 * folders they leave), mutations (the reproductions made wrong), rest (the
 * others); unset, every case. */
/* Runs a case and says in the log how long it took, so that what makes
 * the suite slow can be read off any run's TAP output. */
static void
timed_case(gconstpointer data)
{
  GTestFunc fn = (GTestFunc)data;
  gint64 start = g_get_monotonic_time();
  fn();
  g_test_message("case took %.1f s", (double)(g_get_monotonic_time() - start) / 1e6);
}

static void
add_case(const char *path, GTestFunc fn)
{
  const char *part = g_getenv("LBSIM_CLI_PART");
  gboolean mutations = strcmp(path, "/cli/reproduce-mutations") == 0;
  gboolean reproduce = !mutations && (strcmp(path, "/cli/reproduce") == 0 ||
                                      g_str_has_prefix(path, "/cli/reproduce-"));
  const char *mine = mutations ? "mutations" : reproduce ? "reproduce" : "rest";
  if (part == NULL || *part == '\0' || strcmp(part, mine) == 0)
    g_test_add_data_func(path, (gconstpointer)fn, timed_case);
}

int
main(int argc, char **argv)
{
  g_test_init(&argc, &argv, NULL);
  add_case("/cli/help", test_help);
  add_case("/cli/list", test_list);
  add_case("/cli/run-json", test_run_json);
  add_case("/cli/run/stack-margin", test_run_stack_margin);
  add_case("/cli/output-special", test_output_special);
  add_case("/cli/output-checks", test_output_checks);
  add_case("/cli/determinism", test_determinism);
  add_case("/cli/input-errors", test_input_errors);
  add_case("/cli/bad-platforms", test_bad_platforms);
  add_case("/cli/bad-settings", test_bad_settings);
  add_case("/cli/explain", test_explain);
  add_case("/cli/explain-sfc", test_explain_sfc);
  add_case("/cli/set-pattern", test_set_pattern);
  add_case("/cli/json-utf8", test_json_utf8);
  add_case("/cli/locale", test_locale);
  add_case("/cli/no-compute", test_no_compute);
  add_case("/cli/traces", test_traces);
  add_case("/cli/traces-posted", test_traces_posted);
  add_case("/cli/paje-states", test_paje_states);
  add_case("/cli/paje-lean", test_paje_lean);
  add_case("/cli/placement-cost", test_placement_cost);
  add_case("/cli/placement-queue", test_placement_queue);
  add_case("/cli/check", test_check);
  add_case("/cli/sweep-hosts", test_sweep_hosts);
  add_case("/cli/scenario-names", test_scenario_names);
  add_case("/cli/reproduce", test_reproduce);
  add_case("/cli/reproduce-checks", test_reproduce_checks);
  add_case("/cli/reproduce-baiardi2001", test_reproduce_baiardi);
  add_case("/cli/reproduce-chaube2003", test_reproduce_chaube2003);
  add_case("/cli/reproduce-verdicts", test_reproduce_verdicts);
  add_case("/cli/reproduce-deep", test_reproduce_deep);
  add_case("/cli/reproduce-mutations", test_reproduce_mutations);
  add_case("/cli/reproduce-all", test_reproduce_all);
  add_case("/cli/run-job", test_run_job);
  add_case("/cli/curve", test_curve);
  add_case("/cli/curve-errors", test_curve_errors);
  add_case("/cli/chunks", test_chunks);
  add_case("/cli/chunks-errors", test_chunks_errors);
  const char *part = g_getenv("LBSIM_CLI_PART");
  if (part == NULL || *part == '\0' || strcmp(part, "rest") == 0)
    add_shipped_scenarios(); /* each shipped scenario checked: the rest */
  add_case("/cli/readme-tables", test_readme_tables);
  add_case("/cli/docs-help", test_docs_help);
  add_case("/cli/readme-sample", test_readme_sample);
  int status = g_test_run();
  if (tmp_dir != NULL)
    remove_tree(tmp_dir);
  return status;
}
