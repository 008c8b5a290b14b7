#include "runner/signals.h"

#include <errno.h>
#include <fcntl.h>
#include <glib/gstdio.h>
#include <pthread.h>
#include <signal.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "io/temporary.h"

/* the quark's name is the macro's text, spaces and all */
/* clang-format off */
G_DEFINE_QUARK(lb-signals-error-quark, lb_signals_error)
/* clang-format on */

typedef enum { ROLE_ALONE, ROLE_PARENT, ROLE_CHILD } Role;

/* Everything below is shared with the thread that takes the signals. */
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static gboolean started;
static Role role;
static int caught;
static pid_t *children;
static guint nchildren;
static pid_t parent_pid;
/* the taking thread is waiting for signals */
static pthread_mutex_t ready_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t ready_cond = PTHREAD_COND_INITIALIZER;
static gboolean ready;
static char *parent_dir;
/* A child ends by the signal itself, as a parent that kills it expects. */
static void
die_by(int sig)
{
  signal(sig, SIG_DFL);
  sigset_t one;
  sigemptyset(&one);
  sigaddset(&one, sig);
  pthread_sigmask(SIG_UNBLOCK, &one, NULL);
  raise(sig);
  _exit(128 + sig);
}

static void *
take_cb(void *data)
{
  const sigset_t *set = data;
  pthread_mutex_lock(&ready_lock);
  ready = TRUE;
  pthread_cond_signal(&ready_cond);
  pthread_mutex_unlock(&ready_lock);
  for (;;) {
    int sig = 0;
    if (sigwait(set, &sig) != 0)
      continue;
    pthread_mutex_lock(&lock);
    if (role == ROLE_PARENT) {
      if (caught == 0)
        caught = sig;
      for (guint k = 0; k < nchildren; k++)
        if (children[k] > 0)
          kill(children[k], SIGTERM);
      pthread_mutex_unlock(&lock);
      continue;
    }
    lb_temporary_remove_all();
    if (role == ROLE_CHILD) {
      if (parent_dir != NULL && getppid() != parent_pid) {
        /* the run's siblings die the same way at the same time: a file
         * one of them still writes may come back, so the folder is
         * removed until it is gone (a few seconds at most) */
        for (guint i = 0; i < 400 && g_file_test(parent_dir, G_FILE_TEST_EXISTS); i++) {
          lb_temporary_remove_tree(parent_dir);
          if (g_file_test(parent_dir, G_FILE_TEST_EXISTS))
            g_usleep(10000);
        }
      }
      die_by(sig);
    }
    static const char line[] = "lbsim: interrupted\n";
    if (write(STDERR_FILENO, line, sizeof line - 1) < 0) {
      /* nowhere left to say it */
    }
    _exit(128 + sig);
  }
  return NULL;
}

/* Blocks set in this thread (threads made later inherit that) and starts
 * the thread that takes them. */
static void
take(const sigset_t *set)
{
  static sigset_t taken;
  taken = *set;
  pthread_sigmask(SIG_BLOCK, &taken, NULL);
  /* the thread holds no lock once it waits for signals: a fork of this
   * process (a run's child) must not catch it starting, holding one of
   * the allocator's or GLib's, which the child would wait for forever */
  static const pthread_mutex_t fresh = PTHREAD_MUTEX_INITIALIZER;
  ready_lock = fresh;
  ready = FALSE;
  pthread_t thread;
  int failed = pthread_create(&thread, NULL, take_cb, &taken);
  g_assert(failed == 0);
  pthread_detach(thread);
  pthread_mutex_lock(&ready_lock);
  while (!ready)
    pthread_cond_wait(&ready_cond, &ready_lock);
  pthread_mutex_unlock(&ready_lock);
  started = TRUE;
}

static void
start(void)
{
  if (started)
    return;
  sigset_t set;
  sigemptyset(&set);
  sigaddset(&set, SIGINT);
  sigaddset(&set, SIGTERM);
  struct sigaction hup;
  if (sigaction(SIGHUP, NULL, &hup) != 0 || hup.sa_handler != SIG_IGN)
    sigaddset(&set, SIGHUP);
  take(&set);
}

void
lb_signals_alone(void)
{
  pthread_mutex_lock(&lock);
  if (role != ROLE_CHILD) {
    start();
    role = ROLE_ALONE;
  }
  pthread_mutex_unlock(&lock);
}

void
lb_signals_watch(pid_t *pids, guint n)
{
  pthread_mutex_lock(&lock);
  start();
  role = ROLE_PARENT;
  children = pids;
  nchildren = n;
  pthread_mutex_unlock(&lock);
}

int
lb_signals_unwatch(void)
{
  pthread_mutex_lock(&lock);
  role = ROLE_ALONE;
  children = NULL;
  nchildren = 0;
  int sig = caught;
  pthread_mutex_unlock(&lock);
  return sig;
}

int
lb_signals_caught(void)
{
  pthread_mutex_lock(&lock);
  int sig = caught;
  pthread_mutex_unlock(&lock);
  return sig;
}

void
lb_signals_child_started(pid_t *slot, pid_t pid)
{
  pthread_mutex_lock(&lock);
  *slot = pid;
  int sig = caught;
  pthread_mutex_unlock(&lock);
  if (sig != 0)
    kill(pid, SIGTERM);
}

void
lb_signals_child_ended(pid_t *slot)
{
  pthread_mutex_lock(&lock);
  *slot = 0;
  pthread_mutex_unlock(&lock);
}

void
lb_signals_in_child(pid_t parent, const char *dir)
{
  sigset_t stop;
  sigemptyset(&stop);
  sigaddset(&stop, SIGINT);
  sigaddset(&stop, SIGTERM);
  sigaddset(&stop, SIGHUP);
  pthread_sigmask(SIG_BLOCK, &stop, NULL);
  prctl(PR_SET_PDEATHSIG, SIGTERM);
  /* the parent may have died before the line above, its folder left */
  if (getppid() != parent) {
    lb_temporary_remove_tree(dir);
    _exit(128 + SIGTERM);
  }
  /* the fork may have caught the parent's taking thread holding the lock;
   * that thread is not here, and nor are its files */
  static const pthread_mutex_t fresh = PTHREAD_MUTEX_INITIALIZER;
  lock = fresh;
  lb_temporary_reset_in_child();
  role = ROLE_CHILD;
  caught = 0;
  children = NULL;
  nchildren = 0;
  parent_pid = parent;
  parent_dir = g_strdup(dir);
  sigset_t term;
  sigemptyset(&term);
  sigaddset(&term, SIGTERM);
  take(&term);
}

/* The janitor: a process of its own (not this one's child: a
 * grandchild, so that nothing waits for it or counts it) that reads a
 * pipe whose writing end only this process holds; at its end of file,
 * however this process ended, it removes dir until it stays gone. */
static G_GNUC_NORETURN void
janitor(int fd, const char *dir)
{
  if (chdir("/") != 0) {
    /* it works from dir's absolute path */
  }
  char byte;
  for (;;) {
    ssize_t n = read(fd, &byte, 1);
    if (n > 0 || (n < 0 && errno == EINTR))
      continue;
    break;
  }
  /* the runs, told by the kernel, may still be writing in it */
  for (guint gone = 0, i = 0; gone < 50 && i < 3000; i++) {
    lb_temporary_remove_tree(dir);
    gone = g_file_test(dir, G_FILE_TEST_EXISTS) ? 0 : gone + 1;
    g_usleep(10000);
  }
  _exit(0);
}

void
lb_signals_janitor(const char *dir)
{
  g_autofree char *path = g_canonicalize_filename(dir, NULL);
  int alive[2];
  if (pipe(alive) != 0)
    return;
  fcntl(alive[1], F_SETFD, FD_CLOEXEC);
  pid_t pid = fork();
  if (pid == 0) {
    close(alive[1]);
    /* its own session: no signal for this process's group reaches it */
    setsid();
    if (fork() == 0) {
      /* nothing of the parent's kept open: a reader of its output must
       * not wait for the janitor */
      long most = sysconf(_SC_OPEN_MAX);
      for (int fd = 0; fd < (most > 0 ? most : 1024); fd++)
        if (fd != alive[0])
          close(fd);
      janitor(alive[0], path);
    }
    _exit(0);
  }
  close(alive[0]);
  if (pid > 0)
    while (waitpid(pid, NULL, 0) < 0 && errno == EINTR)
      ;
  /* alive[1] stays open until this process ends; its children close
   * their copy as they exec or die */
}

int
lb_signals_error(int sig, GError **error)
{
  g_set_error_literal(error, LB_SIGNALS_ERROR, LB_SIGNALS_ERROR_INTERRUPTED, "interrupted");
  return 128 + sig;
}
