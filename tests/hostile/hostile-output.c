/* Outputs: no device replaced, no input overwritten, no two outputs one
 * file, paths that cannot be written refused before anything runs, and
 * failed writes named with status 1. */
#include <errno.h>
#include <signal.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/wait.h>
#include <unistd.h>

#include "hostile.h"

/* A job file for run-job: the small scenario's mlb. */
static void
write_job(const HostileCase *hc, const char *name)
{
  g_autofree char *scenario = hostile_path(hc, "s.ini");
  g_autofree char *text = g_strdup_printf("[job]\nscenario = %s\nbalancer = mlb\n", scenario);
  hostile_write(hc, name, text);
}

/* A private character device with the numbers of /dev/null (1, 3) or
 * /dev/full (1, 7): FALSE, and the case skipped, where none can be made. */
static gboolean
device(const HostileCase *hc, const char *name, guint minor_number)
{
  if (!hostile_mknod_null(hc, name)) {
    g_test_skip("no private device nodes here (not root, or a nodev file system)");
    return FALSE;
  }
  if (minor_number == 3)
    return TRUE;
  g_autofree char *path = hostile_path(hc, name);
  g_unlink(path);
  g_assert_cmpint(mknod(path, S_IFCHR | 0666, makedev(1, minor_number)), ==, 0);
  return TRUE;
}

/* Runs a shell command line in the case's folder ($LBSIM set): for
 * redirections of lbsim's own standard output. */
static void
run_shell(const HostileCase *hc, HostileResult *r, const char *line)
{
  const char *argv[] = {"/bin/bash", "-c", line, NULL};
  int status = 0;
  g_autoptr(GError) error = NULL;
  g_assert_true(g_spawn_sync(hc->dir, (char **)argv, NULL, G_SPAWN_DEFAULT, NULL, NULL, &r->out,
                             &r->err, &status, &error));
  g_assert_no_error(error);
  hostile_strip_asan_notes(r->err);
  r->status = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

/* ---- devices are written in place ---- */

static void
device_outputs(void)
{
  g_autoptr(HostileCase) hc = hostile_case_new();
  hostile_scenario(hc);
  if (!device(hc, "null", 3))
    return;
  write_job(hc, "job.ini");
  hostile_snapshot(hc);
  const char *const commands[][12] = {
      {"run", "s.ini", "-q", "--json", "null", NULL},
      {"run", "s.ini", "-q", "--csv", "null", NULL},
      {"run", "s.ini", "-q", "-b", "mlb", "--paje", "null", NULL},
      {"run", "s.ini", "-q", "-b", "mlb", "--message-trace", "null", NULL},
      {"run-job", "job.ini", "null", NULL},
      {"sweep", "s.ini", "-q", "--vary", "seed=1,2", "-o", "null", "--state", "st", NULL},
      {"sweep", "s.ini", "-q", "--vary", "seed=1,2", "-o", "j.json", "--csv", "null", "--state",
       "st", NULL},
      {"sweep", "s.ini", "-q", "--vary", "seed=1,2", "--emit-jobs", "null", "--state", "st", NULL},
  };
  for (guint i = 0; i < G_N_ELEMENTS(commands); i++) {
    const char *const *c = commands[i];
    g_auto(HostileResult) r = {0};
    hostile_run(hc, &r, c[0], c[1], c[2], c[3], c[4], c[5], c[6], c[7], c[8], c[9], c[10], c[11],
                NULL);
    if (r.status != 0)
      g_error("%s ... %s: exit %d:\n%s", c[0], c[4], r.status, r.err);
    /* the sweep's own files are made; the device stays a device */
    g_autofree char *null = hostile_path(hc, "null");
    GStatBuf st;
    g_assert_cmpint(g_lstat(null, &st), ==, 0);
    g_assert_true(S_ISCHR(st.st_mode));
    g_assert_cmpuint(major(st.st_rdev), ==, 1);
    g_assert_cmpuint(minor(st.st_rdev), ==, 3);
  }
  /* merge -o of the sweep above into the device */
  g_auto(HostileResult) r = {0};
  hostile_run(hc, &r, "merge", "-q", "-o", "null", "st", NULL);
  g_assert_cmpint(r.status, ==, 0);
  g_autofree char *null = hostile_path(hc, "null");
  g_assert_true(g_file_test(null, G_FILE_TEST_EXISTS) &&
                !g_file_test(null, G_FILE_TEST_IS_REGULAR));
  /* nothing but the sweeps' own files besides */
  g_autofree char *st = hostile_path(hc, "st");
  g_assert_true(g_file_test(st, G_FILE_TEST_IS_DIR));
  g_autoptr(GDir) d = g_dir_open(hc->dir, 0, NULL);
  const char *name;
  while ((name = g_dir_read_name(d)) != NULL)
    g_assert_true(strcmp(name, "s.ini") == 0 || strcmp(name, "p.xml") == 0 ||
                  strcmp(name, "job.ini") == 0 || strcmp(name, "null") == 0 ||
                  strcmp(name, "st") == 0 || strcmp(name, "j.json") == 0);
}

/* A device that refuses every write (/dev/full's numbers): status 1 and
 * one line, for each writer; the device is still a device. */
static void
full_device(void)
{
  g_autoptr(HostileCase) hc = hostile_case_new();
  hostile_scenario(hc);
  if (!device(hc, "full", 7))
    return;
  write_job(hc, "job.ini");
  hostile_snapshot(hc);
  const char *const options[][4] = {
      {"--json", "full"}, {"--csv", "full"}, {"--paje", "full"}, {"--message-trace", "full"}};
  for (guint i = 0; i < G_N_ELEMENTS(options); i++) {
    g_auto(HostileResult) r = {0};
    hostile_run(hc, &r, "run", "s.ini", "-q", "-b", "mlb", options[i][0], options[i][1], NULL);
    hostile_assert_refused(&r, 1, "full", "No space left on device", NULL);
    hostile_assert_unchanged(hc);
  }
  g_auto(HostileResult) r = {0};
  hostile_run(hc, &r, "run-job", "job.ini", "full", NULL);
  hostile_assert_refused(&r, 1, "full", "No space left on device", NULL);
  hostile_assert_unchanged(hc);
}

/* ---- standard output that cannot be written ---- */

static void
stdout_full(void)
{
  g_autoptr(HostileCase) hc = hostile_case_new();
  hostile_scenario(hc);
  if (!device(hc, "full", 7))
    return;
  hostile_snapshot(hc);
  const char *const lines[] = {
      "exec \"$LBSIM\" run s.ini -q > full",
      "exec \"$LBSIM\" list > full",
      "exec \"$LBSIM\" explain mlb > full",
      "exec \"$LBSIM\" --help > full",
      "exec \"$LBSIM\" --version > full",
      "exec \"$LBSIM\" run --help > full",
      "exec \"$LBSIM\" check s.ini -q > full",
      "exec \"$LBSIM\" curve hilbert --order 2 > full",
      "exec \"$LBSIM\" run s.ini -q --json - > full",
  };
  for (guint i = 0; i < G_N_ELEMENTS(lines); i++) {
    g_auto(HostileResult) r = {0};
    run_shell(hc, &r, lines[i]);
    if (r.status != 1 || strchr(r.err, '\n') == NULL || strchr(r.err, '\n')[1] != '\0' ||
        strstr(r.err, "No space left on device") == NULL)
      g_error("%s: exit %d, stderr:\n%s", lines[i], r.status, r.err);
  }
  hostile_assert_unchanged(hc);
}

/* A reader that has gone, with SIGPIPE ignored: EPIPE, status 1. */
static void
stdout_closed_pipe(void)
{
  g_autoptr(HostileCase) hc = hostile_case_new();
  hostile_scenario(hc);
  hostile_snapshot(hc);
  g_auto(HostileResult) r = {0};
  run_shell(hc, &r,
            "trap '' PIPE; \"$LBSIM\" list | (exec 0<&-; sleep 0.2); exit ${PIPESTATUS[0]}");
  if (r.status != 1 || strstr(r.err, "Broken pipe") == NULL)
    g_error("exit %d, stderr:\n%s", r.status, r.err);
  hostile_assert_unchanged(hc);
}

/* ---- an output that is an input ---- */

static void
output_is_input(void)
{
  g_autoptr(HostileCase) hc = hostile_case_new();
  hostile_scenario(hc);
  write_job(hc, "job.ini");
  hostile_snapshot(hc);
  const char *const cases[][8] = {
      {"run", "s.ini", "-q", "--json", "s.ini", NULL, "the scenario"},
      {"run", "s.ini", "-q", "--csv", "./s.ini", NULL, "the scenario"},
      {"run", "s.ini", "-q", "--json", "p.xml", NULL, "the platform"},
      {"run", "s.ini", "-q", "-b", "mlb", "--paje", "s.ini", "the scenario"},
      {"run", "s.ini", "-q", "-b", "mlb", "--message-trace", "p.xml", "the platform"},
      {"run-job", "job.ini", "job.ini", NULL, NULL, NULL, NULL, "the job"},
      {"run-job", "job.ini", "s.ini", NULL, NULL, NULL, NULL, "the scenario"},
      {"sweep", "s.ini", "-q", "--vary", "seed=1,2", "--emit-jobs", "s.ini", "the scenario"},
      {"sweep", "s.ini", "-q", "--vary", "seed=1,2", "-o", "p.xml", "the platform"},
      {"run", "s.ini", "-q", "--long-csv", "p.xml", NULL, "the platform"},
      {"sweep", "s.ini", "-q", "--repeat", "2", "--long-csv", "s.ini", "the scenario"},
      {"sweep", "s.ini", "-q", "--repeat", "2", "--stats-csv", "./s.ini", "the scenario"},
  };
  for (guint i = 0; i < G_N_ELEMENTS(cases); i++) {
    const char *const *c = cases[i];
    g_auto(HostileResult) r = {0};
    hostile_run(hc, &r, c[0], c[1], c[2], c[3], c[4], c[5], c[6], NULL);
    hostile_assert_refused(&r, 2, c[7], "does not write over its inputs", NULL);
    hostile_assert_unchanged(hc);
  }
}

/* A workload file read by the scenario is an input too. */
static void
output_is_workload_file(void)
{
  g_autoptr(HostileCase) hc = hostile_case_new();
  hostile_copy(hc, "platforms/hypercube-16.xml", "p.xml");
  hostile_write(hc, "loads.txt", "5 1 7 3 0 8 2 6 4 4 4 4 1 1 1 1\n");
  hostile_write(hc, "s.ini",
                "[scenario]\nname = f\nplatform = p.xml\nranks = 16\n\n[workload]\n"
                "pattern = file\nfile = loads.txt\n\n[balancers]\nrun = mlb\n");
  hostile_snapshot(hc);
  g_auto(HostileResult) r = {0};
  hostile_run(hc, &r, "run", "s.ini", "-q", "--csv", "loads.txt", NULL);
  hostile_assert_refused(&r, 2, "loads.txt", "does not write over its inputs", NULL);
  hostile_assert_unchanged(hc);
}

/* ---- two outputs that are one file ---- */

static void
outputs_one_file(void)
{
  g_autoptr(HostileCase) hc = hostile_case_new();
  hostile_scenario(hc);
  hostile_write(hc, "old.json", "old\n");
  g_autofree char *old = hostile_path(hc, "old.json");
  g_autofree char *sym = hostile_path(hc, "sym.json");
  g_autofree char *hard = hostile_path(hc, "hard.json");
  g_assert_cmpint(symlink("old.json", sym), ==, 0);
  g_assert_cmpint(link(old, hard), ==, 0);
  hostile_snapshot(hc);
  const char *const cases[][10] = {
      {"run", "s.ini", "-q", "--json", "x.out", "--csv", "./x.out", NULL, NULL, "x.out"},
      {"run", "s.ini", "-q", "--json", "old.json", "--csv", "sym.json", NULL, NULL, "sym.json"},
      {"run", "s.ini", "-q", "--json", "old.json", "--csv", "hard.json", NULL, NULL, "hard.json"},
      {"run", "s.ini", "-q", "-b", "mlb", "--json", "x", "--paje", "x", "--paje x"},
      {"run", "s.ini", "-q", "-b", "mlb", "--message-trace", "t", "--paje", "./t", "--paje ./t"},
      {"run", "s.ini", "-q", "--paje", "t", "--json", "t.mlb.paje", NULL, NULL, "t.mlb.paje"},
      {"sweep", "s.ini", "-q", "--vary", "seed=1,2", "-o", "x.out", "--csv", "./x.out", "x.out"},
      {"run", "s.ini", "-q", "--csv", "x.csv", "--long-csv", "./x.csv", NULL, NULL, "x.csv"},
      {"sweep", "s.ini", "-q", "--repeat", "2", "--long-csv", "x.out", "--stats-csv", "./x.out",
       "x.out"},
  };
  for (guint i = 0; i < G_N_ELEMENTS(cases); i++) {
    const char *const *c = cases[i];
    g_auto(HostileResult) r = {0};
    hostile_run(hc, &r, c[0], c[1], c[2], c[3], c[4], c[5], c[6], c[7], c[8], NULL);
    hostile_assert_refused(&r, 2, c[9], "are one file", NULL);
    hostile_assert_unchanged(hc);
  }
}

/* ---- paths that cannot be written, refused before anything runs ---- */

static void
unwritable_paths(void)
{
  g_autoptr(HostileCase) hc = hostile_case_new();
  hostile_scenario(hc);
  write_job(hc, "job.ini");
  g_autofree char *folder = hostile_path(hc, "folder");
  g_assert_cmpint(g_mkdir(folder, 0777), ==, 0);
  g_autofree char *dangling = hostile_path(hc, "dangling");
  g_assert_cmpint(symlink("nowhere/x.json", dangling), ==, 0);
  hostile_snapshot(hc);
  const struct {
    const char *argv[8];
    const char *needle;
  } cases[] = {
      {{"run", "s.ini", "-q", "--json", "folder"}, "folder"},
      {{"run", "s.ini", "-q", "--json", "nowhere/res.json"}, "nowhere"},
      {{"run", "s.ini", "-q", "--csv", "/proc/version"}, "/proc/version"},
      {{"run", "s.ini", "-q", "--json", "/proc/self/new.json"}, "/proc/self/new.json"},
      {{"run", "s.ini", "-q", "--json", "dangling"}, "dangling"},
      {{"run", "s.ini", "-q", "--pictures", "nowhere/pics"}, "nowhere"},
      {{"run", "s.ini", "-q", "--report", "s.ini"}, "s.ini"},
      {{"run-job", "job.ini", "nowhere/r.json"}, "nowhere"},
      {{"run-job", "job.ini", "folder"}, "folder"},
      {{"sweep", "s.ini", "-q", "--vary", "seed=1,2", "--emit-jobs", "nowhere/x"}, "nowhere"},
      {{"sweep", "s.ini", "-q", "--vary", "seed=1,2", "--emit-jobs", "nowhere/x",
        "--scheduler=slurm"},
       "nowhere"},
      {{"sweep", "s.ini", "-q", "--vary", "seed=1,2", "--emit-jobs", "s.ini", "--scheduler=slurm"},
       "s.ini"},
      {{"sweep", "s.ini", "-q", "--vary", "seed=1,2", "-o", "folder"}, "folder"},
      {{"run", "s.ini", "-q", "--long-csv", "/proc/version"}, "/proc/version"},
      {{"sweep", "s.ini", "-q", "--repeat", "2", "--stats-csv", "folder"}, "folder"},
      {{"sweep", "s.ini", "-q", "--repeat", "2", "--long-csv", "nowhere/l.csv"}, "nowhere"},
  };
  for (guint i = 0; i < G_N_ELEMENTS(cases); i++) {
    const char *const *c = cases[i].argv;
    g_auto(HostileResult) r = {0};
    hostile_run(hc, &r, c[0], c[1], c[2], c[3], c[4], c[5], c[6], c[7], NULL);
    hostile_assert_refused(&r, 2, cases[i].needle, NULL);
    /* refused before the simulation: nothing on stdout */
    g_assert_cmpstr(r.out, ==, "");
    hostile_assert_unchanged(hc);
  }
}

/* ---- a write that fails midway leaves the old file ---- */

static void
limit_file_size(gpointer data)
{
  struct rlimit rl = {GPOINTER_TO_UINT(data), GPOINTER_TO_UINT(data)};
  setrlimit(RLIMIT_FSIZE, &rl);
  signal(SIGXFSZ, SIG_IGN);
}

static void
failed_write_keeps_old(void)
{
  g_autoptr(HostileCase) hc = hostile_case_new();
  hostile_scenario(hc);
  hostile_write(hc, "out.json", "the previous results\n");
  hostile_snapshot(hc);
  const char *argv[] = {g_getenv("LBSIM"), "run",    "s.ini",    "-q", "-b", "mlb",
                        "--no-fork",       "--json", "out.json", NULL};
  int status = 0;
  g_autofree char *out = NULL, *err = NULL;
  g_autoptr(GError) error = NULL;
  /* the JSON is a few KiB: its writing fails after the first 1000 bytes */
  g_assert_true(g_spawn_sync(hc->dir, (char **)argv, NULL, G_SPAWN_DEFAULT, limit_file_size,
                             GUINT_TO_POINTER(1000), &out, &err, &status, &error));
  g_assert_no_error(error);
  g_assert_true(WIFEXITED(status));
  g_assert_cmpint(WEXITSTATUS(status), ==, 1);
  g_assert_nonnull(strstr(err, "out.json"));
  g_assert_nonnull(strstr(err, "too large"));
  hostile_assert_unchanged(hc);
}

void
hostile_register_output(void)
{
  g_test_add_func("/hostile/output/devices-in-place", device_outputs);
  g_test_add_func("/hostile/output/full-device", full_device);
  g_test_add_func("/hostile/output/stdout-full", stdout_full);
  g_test_add_func("/hostile/output/stdout-closed-pipe", stdout_closed_pipe);
  g_test_add_func("/hostile/output/is-input", output_is_input);
  g_test_add_func("/hostile/output/is-workload-file", output_is_workload_file);
  g_test_add_func("/hostile/output/two-are-one", outputs_one_file);
  g_test_add_func("/hostile/output/unwritable", unwritable_paths);
  g_test_add_func("/hostile/output/failed-write-keeps-old", failed_write_keeps_old);
}
