#include "cli/signals.h"

#include <errno.h>
#include <glib/gstdio.h>
#include <pthread.h>
#include <signal.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
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
/* A child's thread that simulates, parked before its parent's folder is
 * removed (else a file it makes meanwhile would keep the folder). */
static pthread_t simulating;
static volatile sig_atomic_t parked;

static void
park_cb(int sig)
{
  parked = 1;
  for (;;)
    pause();
}

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
        pthread_kill(simulating, SIGUSR2);
        for (guint i = 0; i < 2000 && !parked; i++)
          g_usleep(500);
        lb_temporary_remove_tree(parent_dir);
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
  /* the parent may have died before the line above */
  if (getppid() != parent)
    _exit(128 + SIGTERM);
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
  simulating = pthread_self();
  struct sigaction park = {.sa_handler = park_cb};
  sigemptyset(&park.sa_mask);
  sigaction(SIGUSR2, &park, NULL);
  sigset_t term;
  sigemptyset(&term);
  sigaddset(&term, SIGTERM);
  take(&term);
}

int
lb_signals_error(int sig, GError **error)
{
  g_set_error_literal(error, LB_SIGNALS_ERROR, LB_SIGNALS_ERROR_INTERRUPTED, "interrupted");
  return 128 + sig;
}
