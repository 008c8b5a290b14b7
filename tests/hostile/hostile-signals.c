/* Signals: SIGINT, SIGTERM and SIGHUP sent to a simulating command mid-run
 * (to lbsim alone, or as a Ctrl-C to its whole process group) stop every
 * simulation, print one line and exit with 128 + the signal, leaving no
 * process, no temporary folder and the case folder as it was; SIGKILL to
 * lbsim takes its children with it. Every wait polls: the sanitizer build
 * is several times slower. */
#include "hostile.h"

#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

/* long enough never to finish while a case waits on it */
#define SLOW_STEPS "2000"
/* CPU time a simulation has used before it counts as under way */
#define UNDER_WAY_TICKS 25
#define POLL_US (20 * 1000)
#define PATIENCE_US (300 * G_USEC_PER_SEC)
/* how long children may outlive a lbsim killed outright */
#define ORPHAN_US (30 * G_USEC_PER_SEC)

typedef struct {
  pid_t pid;
  guint64 start; /* since boot: tells the process from a later one with its pid */
} Proc;

typedef struct {
  HostileCase *logs; /* stdout and stderr, outside the case's folder */
  pid_t pid;
  gboolean group;
} Spawned;

typedef enum {
  SPAWN_GROUP = 1 << 0,      /* in a process group of its own, as a terminal's job */
  SPAWN_NOHUP = 1 << 1,      /* SIGHUP ignored, as nohup starts it */
  SPAWN_BACKGROUND = 1 << 2, /* SIGINT ignored, as a script starts `lbsim ... &` */
} SpawnFlags;

/* A field2d scenario of two balancers (none, mlb) that runs for minutes,
 * with an empty tmp folder as lbsim's TMPDIR. */
static void
slow_scenario(const HostileCase *hc)
{
  hostile_copy(hc, "platforms/hypercube-64.xml", "p.xml");
  hostile_write(
      hc, "s.ini",
      "[scenario]\nname = slow\nplatform = p.xml\nranks = 64\nseed = 11\nsteps = " SLOW_STEPS
      "\n\n[workload]\nmodel = field2d\nsize = 256x256\npattern = hotspots\n"
      "hotspots = 3\nwidth = 0.08\namplitude = 400\nbase = 10\ndrift = 0.03\n\n"
      "[balancers]\nrun = none, mlb\n");
  g_autofree char *tmp = hostile_path(hc, "tmp");
  g_assert_cmpint(g_mkdir(tmp, 0700), ==, 0);
}

/* The fields of /proc/PID/stat from the third on (FIELD numbers them as
 * proc(5) does); FALSE when the process is gone. */
static gboolean
stat_fields(pid_t pid, char ***fields)
{
  g_autofree char *path = g_strdup_printf("/proc/%d/stat", (int)pid);
  g_autofree char *text = NULL;
  if (!g_file_get_contents(path, &text, NULL, NULL))
    return FALSE;
  /* the command name (field 2) may hold spaces: the rest follows its ')' */
  const char *rest = strrchr(text, ')');
  g_assert_nonnull(rest);
  *fields = g_strsplit(rest + 2, " ", -1);
  return TRUE;
}

#define FIELD(fields, n) ((fields)[(n)-3])

static gboolean
proc_alive(const Proc *p)
{
  g_auto(GStrv) fields = NULL;
  return stat_fields(p->pid, &fields) && strcmp(FIELD(fields, 3), "Z") != 0 &&
         g_ascii_strtoull(FIELD(fields, 22), NULL, 10) == p->start;
}

/* The live children of pid, with the CPU time (clock ticks) the least
 * busy of them has used. */
static GArray *
children_of(pid_t pid, guint64 *least_cpu)
{
  GArray *found = g_array_new(FALSE, FALSE, sizeof(Proc));
  *least_cpu = G_MAXUINT64;
  g_autoptr(GDir) d = g_dir_open("/proc", 0, NULL);
  g_assert_nonnull(d);
  const char *name;
  while ((name = g_dir_read_name(d)) != NULL) {
    guint64 id = 0;
    if (!g_ascii_string_to_unsigned(name, 10, 1, G_MAXINT, &id, NULL))
      continue;
    g_auto(GStrv) fields = NULL;
    if (!stat_fields((pid_t)id, &fields) || atoi(FIELD(fields, 4)) != pid ||
        strcmp(FIELD(fields, 3), "Z") == 0)
      continue;
    Proc p = {(pid_t)id, g_ascii_strtoull(FIELD(fields, 22), NULL, 10)};
    g_array_append_val(found, p);
    guint64 cpu = g_ascii_strtoull(FIELD(fields, 14), NULL, 10) +
                  g_ascii_strtoull(FIELD(fields, 15), NULL, 10);
    *least_cpu = MIN(*least_cpu, cpu);
  }
  return found;
}

static guint64
cpu_of(pid_t pid)
{
  g_auto(GStrv) fields = NULL;
  if (!stat_fields(pid, &fields))
    return 0;
  return g_ascii_strtoull(FIELD(fields, 14), NULL, 10) +
         g_ascii_strtoull(FIELD(fields, 15), NULL, 10);
}

/* The processes working in dir: lbsim and every simulation it forked. */
static guint
processes_in(const char *dir)
{
  g_autofree char *real = realpath(dir, NULL);
  g_assert_nonnull(real);
  guint n = 0;
  g_autoptr(GDir) d = g_dir_open("/proc", 0, NULL);
  const char *name;
  while ((name = g_dir_read_name(d)) != NULL) {
    if (!g_ascii_isdigit(name[0]))
      continue;
    g_autofree char *link = g_strdup_printf("/proc/%s/cwd", name);
    g_autofree char *cwd = g_file_read_link(link, NULL);
    n += cwd != NULL && strcmp(cwd, real) == 0;
  }
  return n;
}

/* Starts $LBSIM with args in the case's folder, its tmp folder as TMPDIR
 * and the stop signals at their defaults (as a shell's foreground job has
 * them) unless flags say otherwise. */
static void
spawn(const HostileCase *hc, Spawned *s, SpawnFlags flags, const char *const *args)
{
  g_autoptr(GPtrArray) argv = g_ptr_array_new();
  g_ptr_array_add(argv, (gpointer)g_getenv("LBSIM"));
  g_assert_nonnull(argv->pdata[0]);
  for (guint i = 0; args[i] != NULL; i++)
    g_ptr_array_add(argv, (gpointer)args[i]);
  g_ptr_array_add(argv, NULL);
  g_autofree char *tmp = hostile_path(hc, "tmp");
  g_auto(GStrv) envp = g_environ_setenv(g_get_environ(), "TMPDIR", tmp, TRUE);
  s->logs = hostile_case_new();
  s->group = (flags & SPAWN_GROUP) != 0;
  g_autofree char *out = hostile_path(s->logs, "out");
  g_autofree char *err = hostile_path(s->logs, "err");
  fflush(NULL);
  s->pid = fork();
  g_assert_cmpint(s->pid, >=, 0);
  if (s->pid == 0) {
    /* a case that fails leaves no simulation running */
    prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (s->group)
      setpgid(0, 0);
    sigset_t none;
    sigemptyset(&none);
    sigprocmask(SIG_SETMASK, &none, NULL);
    signal(SIGINT, (flags & SPAWN_BACKGROUND) != 0 ? SIG_IGN : SIG_DFL);
    signal(SIGTERM, SIG_DFL);
    signal(SIGHUP, (flags & SPAWN_NOHUP) != 0 ? SIG_IGN : SIG_DFL);
    if (chdir(hc->dir) != 0 || freopen(out, "w", stdout) == NULL ||
        freopen(err, "w", stderr) == NULL)
      _exit(127);
    execve(argv->pdata[0], (char **)argv->pdata, envp);
    _exit(127);
  }
  if (s->group)
    setpgid(s->pid, s->pid);
}

static void
spawned_clear(Spawned *s)
{
  hostile_case_free(s->logs);
}

G_DEFINE_AUTO_CLEANUP_CLEAR_FUNC(Spawned, spawned_clear)

/* Waits until lbsim has n simulations under way (n = 0: lbsim simulates
 * itself) and returns them. */
static GArray *
wait_under_way(const Spawned *s, guint n)
{
  gint64 until = g_get_monotonic_time() + PATIENCE_US;
  for (;;) {
    g_assert_cmpint(waitpid(s->pid, NULL, WNOHANG), ==, 0);
    guint64 least = 0;
    GArray *found = children_of(s->pid, &least);
    if (n == 0 ? cpu_of(s->pid) >= UNDER_WAY_TICKS : found->len == n && least >= UNDER_WAY_TICKS)
      return found;
    g_array_unref(found);
    g_assert_cmpint(g_get_monotonic_time(), <, until);
    g_usleep(POLL_US);
  }
}

/* lbsim's wait status once it has ended. */
static int
wait_end(const Spawned *s)
{
  gint64 until = g_get_monotonic_time() + PATIENCE_US;
  for (;;) {
    int status = 0;
    pid_t got = waitpid(s->pid, &status, WNOHANG);
    g_assert_cmpint(got, >=, 0);
    if (got == s->pid)
      return status;
    if (g_get_monotonic_time() > until) {
      kill(s->group ? -s->pid : s->pid, SIGKILL);
      g_error("lbsim did not end after the signal");
    }
    g_usleep(POLL_US);
  }
}

/* What lbsim printed on stderr, without AddressSanitizer's notes on
 * SimGrid's stack switches. */
static char *
read_err(const Spawned *s)
{
  static const char *const notes[] = {"ASan is ignoring requested __asan_handle_no_return",
                                      "False positive error reports may follow",
                                      "For details see https://github.com/google/sanitizers"};
  g_autofree char *path = hostile_path(s->logs, "err");
  g_autofree char *text = NULL;
  g_assert_true(g_file_get_contents(path, &text, NULL, NULL));
  g_auto(GStrv) lines = g_strsplit(text, "\n", -1);
  GString *kept = g_string_new(NULL);
  for (guint i = 0; lines[i] != NULL; i++) {
    gboolean note = FALSE;
    for (guint k = 0; k < G_N_ELEMENTS(notes); k++)
      note |= strstr(lines[i], notes[k]) != NULL;
    if (!note)
      g_string_append_printf(kept, "%s%s", lines[i], lines[i + 1] != NULL ? "\n" : "");
  }
  return g_string_free(kept, FALSE);
}

/* Sends sig (to the group: a Ctrl-C) once n simulations are under way,
 * then asserts what every stop must leave: exit status 128 + sig, one
 * line, no simulation left. */
static void
stop_mid_run(const HostileCase *hc, Spawned *s, guint n, int sig)
{
  g_autoptr(GArray) sims = wait_under_way(s, n);
  g_assert_cmpint(kill(s->group ? -s->pid : s->pid, sig), ==, 0);
  int status = wait_end(s);
  g_autofree char *err = read_err(s);
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 128 + sig)
    g_error("wait status %#x, expected exit status %d; stderr:\n%s", status, 128 + sig, err);
  g_assert_cmpstr(err, ==, "lbsim: interrupted\n");
  for (guint i = 0; i < sims->len; i++)
    g_assert_false(proc_alive(&g_array_index(sims, Proc, i)));
  g_assert_cmpuint(processes_in(hc->dir), ==, 0);
}

/* run and check: an old JSON output keeps its content, the tmp folder is
 * left empty. */
static void
stop_run(const char *command, int sig, SpawnFlags flags)
{
  g_autoptr(HostileCase) hc = hostile_case_new();
  slow_scenario(hc);
  hostile_write(hc, "old.json", "{\"kept\": true}\n");
  hostile_snapshot(hc);
  g_auto(Spawned) s = {0};
  const char *const args[] = {command, "-q", "-j", "2", "-o", "old.json", "s.ini", NULL};
  spawn(hc, &s, flags, args);
  stop_mid_run(hc, &s, 2, sig);
  hostile_assert_unchanged(hc);
}

static void
run_sigterm(void)
{
  stop_run("run", SIGTERM, 0);
}

static void
run_sighup(void)
{
  stop_run("run", SIGHUP, 0);
}

/* SIGINT to lbsim alone, not through a terminal, and started with SIGINT
 * ignored as a script's background job: kill -INT is still a stop. */
static void
check_sigint(void)
{
  stop_run("check", SIGINT, SPAWN_BACKGROUND);
}

/* The children see the Ctrl-C too, and SimGrid would answer it: they must
 * stay silent and be ended by lbsim. */
static void
run_ctrl_c(void)
{
  stop_run("run", SIGINT, SPAWN_GROUP);
}

/* Progress lines go before the one line the stop prints. */
static void
run_ctrl_c_progress(void)
{
  g_autoptr(HostileCase) hc = hostile_case_new();
  slow_scenario(hc);
  hostile_snapshot(hc);
  g_auto(Spawned) s = {0};
  const char *const args[] = {"run", "-j", "2", "s.ini", NULL};
  spawn(hc, &s, SPAWN_GROUP, args);
  g_autoptr(GArray) sims = wait_under_way(&s, 2);
  kill(-s.pid, SIGINT);
  int status = wait_end(&s);
  g_assert_true(WIFEXITED(status));
  g_assert_cmpint(WEXITSTATUS(status), ==, 128 + SIGINT);
  g_autofree char *err = read_err(&s);
  g_auto(GStrv) lines = g_strsplit(err, "\n", -1);
  guint n = g_strv_length(lines);
  g_assert_cmpuint(n, ==, 4); /* two progress lines, the stop, and after its newline nothing */
  g_assert_true(g_str_has_suffix(lines[0], "none: running"));
  g_assert_true(g_str_has_suffix(lines[1], "mlb: running"));
  g_assert_cmpstr(lines[2], ==, "lbsim: interrupted");
  g_assert_cmpstr(lines[3], ==, "");
  g_assert_cmpuint(processes_in(hc->dir), ==, 0);
  hostile_assert_unchanged(hc);
}

/* A sweep writes its JSON and state folder from the start; the stop
 * leaves them (with no temporary file) and nothing else. */
static void
sweep_sighup(void)
{
  g_autoptr(HostileCase) hc = hostile_case_new();
  slow_scenario(hc);
  hostile_snapshot(hc);
  g_auto(Spawned) s = {0};
  const char *const args[] = {"sweep",    "-q", "-j",         "2",     "--vary",
                              "seed=1,2", "-o", "sweep.json", "s.ini", NULL};
  spawn(hc, &s, 0, args);
  stop_mid_run(hc, &s, 2, SIGHUP);
  g_autofree char *json = hostile_path(hc, "sweep.json");
  g_autofree char *doc = NULL;
  g_assert_true(g_file_get_contents(json, &doc, NULL, NULL));
  g_assert_nonnull(strstr(doc, "\"definition\""));
  g_autofree char *state = hostile_path(hc, "sweep.d");
  g_autoptr(GDir) d = g_dir_open(state, 0, NULL);
  g_assert_nonnull(d);
  const char *name;
  guint jobs = 0;
  while ((name = g_dir_read_name(d)) != NULL) {
    g_autofree char *path = g_build_filename(state, name, NULL);
    if (g_str_has_suffix(name, ".job"))
      jobs++;
    else if (strcmp(name, "sweep.ini") != 0)
      g_error("%s: left in the state folder", name);
    g_unlink(path);
  }
  g_assert_cmpuint(jobs, ==, 2);
  g_rmdir(state);
  g_unlink(json);
  hostile_assert_unchanged(hc);
}

/* run-job simulates in its own process: an old result stays as it was,
 * with no temporary file beside it. */
static void
stop_alone(const char *const *args, int sig, gboolean group)
{
  g_autoptr(HostileCase) hc = hostile_case_new();
  slow_scenario(hc);
  hostile_write(hc, "mlb.job", "[job]\nscenario = s.ini\nbalancer = mlb\n");
  hostile_write(hc, "old.result", "an old result\n");
  hostile_snapshot(hc);
  g_auto(Spawned) s = {0};
  spawn(hc, &s, group ? SPAWN_GROUP : 0, args);
  stop_mid_run(hc, &s, 0, sig);
  hostile_assert_unchanged(hc);
}

static void
run_job_sigterm(void)
{
  const char *const args[] = {"run-job", "mlb.job", "old.result", NULL};
  stop_alone(args, SIGTERM, FALSE);
}

/* SimGrid's own SIGINT handler is in this process. */
static void
run_job_ctrl_c(void)
{
  const char *const args[] = {"run-job", "mlb.job", "old.result", NULL};
  stop_alone(args, SIGINT, TRUE);
}

static void
no_fork_sighup(void)
{
  const char *const args[] = {"run", "-q", "--no-fork", "-b", "mlb", "s.ini", NULL};
  stop_alone(args, SIGHUP, FALSE);
}

/* Whether n runs' stage files in lbsim's scratch folder (the only
 * lbsim-* folder in tmp) say "simulation". */
static gboolean
runs_simulating(const char *tmp, guint n)
{
  g_autoptr(GDir) d = g_dir_open(tmp, 0, NULL);
  const char *name;
  while (d != NULL && (name = g_dir_read_name(d)) != NULL) {
    guint found = 0;
    for (guint r = 0; r < n; r++) {
      g_autofree char *stage = g_strdup_printf("%s/%s/run-%u.stage", tmp, name, r);
      g_autofree char *text = NULL;
      found += g_file_get_contents(stage, &text, NULL, NULL) && strcmp(text, "simulation") == 0;
    }
    if (found == n)
      return TRUE;
  }
  return FALSE;
}

static gboolean
folder_empty(const char *dir)
{
  g_autoptr(GDir) d = g_dir_open(dir, 0, NULL);
  return d == NULL || g_dir_read_name(d) == NULL;
}

/* Killed outright, lbsim cannot clean up: its children end with it (the
 * kernel tells them) and remove its temporary folder. */
static void
run_sigkill(void)
{
  g_autoptr(HostileCase) hc = hostile_case_new();
  slow_scenario(hc);
  hostile_snapshot(hc);
  g_auto(Spawned) s = {0};
  const char *const args[] = {"run", "-q", "-j", "2", "s.ini", NULL};
  spawn(hc, &s, 0, args);
  g_autoptr(GArray) sims = wait_under_way(&s, 2);
  /* both runs simulating (their stage files say so): the children are
   * the runs, not the platform's check that comes first */
  g_autofree char *tmp = g_build_filename(hc->dir, "tmp", NULL);
  gint64 patience = g_get_monotonic_time() + PATIENCE_US;
  while (!runs_simulating(tmp, 2)) {
    g_assert_cmpint(g_get_monotonic_time(), <, patience);
    g_usleep(POLL_US);
  }
  g_array_unref(sims);
  sims = wait_under_way(&s, 2);
  kill(s.pid, SIGKILL);
  int status = wait_end(&s);
  g_assert_true(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL);
  gint64 until = g_get_monotonic_time() + ORPHAN_US;
  while (processes_in(hc->dir) > 0) {
    g_assert_cmpint(g_get_monotonic_time(), <, until);
    g_usleep(POLL_US);
  }
  /* a child on its way out may already have no working folder in /proc
   * while it still runs: wait for each to be gone */
  for (guint i = 0; i < sims->len; i++)
    while (proc_alive(&g_array_index(sims, Proc, i))) {
      g_assert_cmpint(g_get_monotonic_time(), <, until);
      g_usleep(POLL_US);
    }
  /* the last child to end removes the folder on its way out */
  while (!folder_empty(tmp)) {
    g_assert_cmpint(g_get_monotonic_time(), <, until);
    g_usleep(POLL_US);
  }
  hostile_assert_unchanged(hc);
}

/* Under nohup SIGHUP is ignored from the start: lbsim keeps it so. */
static void
nohup(void)
{
  g_autoptr(HostileCase) hc = hostile_case_new();
  slow_scenario(hc);
  hostile_snapshot(hc);
  g_auto(Spawned) s = {0};
  const char *const args[] = {"run", "-q", "-j", "2", "s.ini", NULL};
  spawn(hc, &s, SPAWN_NOHUP, args);
  g_autoptr(GArray) sims = wait_under_way(&s, 2);
  kill(s.pid, SIGHUP);
  /* it goes on until the simulations have worked as long again */
  guint64 least = 0, now = 0;
  g_autoptr(GArray) before = children_of(s.pid, &least);
  gint64 until = g_get_monotonic_time() + PATIENCE_US;
  do {
    g_assert_cmpint(waitpid(s.pid, NULL, WNOHANG), ==, 0);
    g_autoptr(GArray) later = children_of(s.pid, &now);
    g_assert_cmpuint(later->len, ==, 2);
    g_assert_cmpint(g_get_monotonic_time(), <, until);
    g_usleep(POLL_US);
  } while (now < least + UNDER_WAY_TICKS);
  stop_mid_run(hc, &s, 2, SIGTERM);
  hostile_assert_unchanged(hc);
}

void
hostile_register_signals(void)
{
  g_test_add_func("/hostile/signals/run-sigterm", run_sigterm);
  g_test_add_func("/hostile/signals/run-sighup", run_sighup);
  g_test_add_func("/hostile/signals/check-sigint", check_sigint);
  g_test_add_func("/hostile/signals/run-ctrl-c", run_ctrl_c);
  g_test_add_func("/hostile/signals/run-ctrl-c-progress", run_ctrl_c_progress);
  g_test_add_func("/hostile/signals/sweep-sighup", sweep_sighup);
  g_test_add_func("/hostile/signals/run-job-sigterm", run_job_sigterm);
  g_test_add_func("/hostile/signals/run-job-ctrl-c", run_job_ctrl_c);
  g_test_add_func("/hostile/signals/no-fork-sighup", no_fork_sighup);
  g_test_add_func("/hostile/signals/run-sigkill", run_sigkill);
  g_test_add_func("/hostile/signals/nohup", nohup);
}
