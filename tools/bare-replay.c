/* lbsim-bare-replay: replay an lbsim message trace on bare SimGrid.
 *
 * The replay performs the messages and computations of the trace and nothing
 * else, so its wall time is the floor against which lbsim's own overhead per
 * simulated message is measured (see tools/bench). With --lbsim-allocator
 * it runs with lbsim's settings of the C library's allocator (deep thread
 * caches, huge pages for the heap, large blocks kept on the heap below
 * LB_HUGE_PAGES_MIN_RANKS ranks), which make SimGrid faster too. Its
 * actors get the stacks lbsim's ranks get (core/stack.h). */

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <glib.h>
#include <simgrid/actor.h>
#include <simgrid/comm.h>
#include <simgrid/engine.h>
#include <simgrid/host.h>
#include <simgrid/mailbox.h>
#include <xbt/config.h>
#include <xbt/log.h>

#include "runner/malloc-tune.h"
#include "core/huge-pages.h"
#include "core/sends.h"
#include "core/stack.h"

#define TRACE_MAGIC "# lbsim-message-trace "

typedef enum { BARE_ERROR_TRACE } BareError;
#define BARE_ERROR (bare_error_quark())
GQuark bare_error_quark(void);
G_DEFINE_QUARK(lbsim_bare_replay_error, bare_error)

typedef struct {
  double value; /* bytes for 'S', flops for 'X' */
  gint32 peer;  /* destination for 'S', source for 'R' */
  char kind;    /* 'S', 'R', 'W', 'X' or 'G' (a get posted ahead) */
} Op;

typedef struct {
  Op *ops;
  guint id;
  guint n_ops;
  guint cap;
  LbSends sends; /* not yet waited for, while it runs */
  guint n_recvs;
  guint n_sent_to;
  gboolean done;
} Rank;

typedef struct {
  guint n_ranks;
  char *platform;
  gboolean gray;
  GStrv hosts; /* rank r's host, when the trace names them */
  Rank *ranks;
  guint64 n_messages;
  double n_bytes;
} Trace;

static sg_mailbox_t *mailboxes;

static void
trace_free(Trace *t)
{
  if (t == NULL)
    return;
  for (guint r = 0; r < t->n_ranks && t->ranks != NULL; r++)
    g_free(t->ranks[r].ops);
  g_free(t->ranks);
  g_free(t->platform);
  g_strfreev(t->hosts);
  g_free(t);
}
G_DEFINE_AUTOPTR_CLEANUP_FUNC(Trace, trace_free)

static gboolean
parse_header(const char *path, const char *line, Trace *t, GError **error)
{
  if (!g_str_has_prefix(line, TRACE_MAGIC)) {
    g_set_error(error, BARE_ERROR, BARE_ERROR_TRACE,
                "%s:1: not an lbsim message trace (expected '%s1 ...')", path, TRACE_MAGIC);
    return FALSE;
  }
  g_auto(GStrv) words = g_strsplit_set(line + strlen(TRACE_MAGIC), " \t\r", -1);
  if (g_strcmp0(words[0], "1") != 0) {
    g_set_error(error, BARE_ERROR, BARE_ERROR_TRACE, "%s:1: unsupported trace version '%s'", path,
                words[0] != NULL ? words[0] : "");
    return FALSE;
  }
  const char *ranks = NULL, *placement = NULL, *hosts = NULL;
  for (guint i = 1; words[i] != NULL; i++) {
    /* Unknown keys are skipped so that later versions can add some. */
    if (g_str_has_prefix(words[i], "ranks="))
      ranks = words[i] + strlen("ranks=");
    else if (g_str_has_prefix(words[i], "platform="))
      t->platform = g_strdup(words[i] + strlen("platform="));
    else if (g_str_has_prefix(words[i], "placement="))
      placement = words[i] + strlen("placement=");
    else if (g_str_has_prefix(words[i], "hosts="))
      hosts = words[i] + strlen("hosts=");
  }
  char *end = NULL;
  errno = 0;
  long n = ranks != NULL ? strtol(ranks, &end, 10) : 0;
  if (ranks == NULL || end == ranks || *end != '\0' || errno != 0 || n < 1 || n > G_MAXINT32) {
    g_set_error(error, BARE_ERROR, BARE_ERROR_TRACE, "%s:1: missing or bad ranks=", path);
    return FALSE;
  }
  if (t->platform == NULL || t->platform[0] == '\0') {
    g_set_error(error, BARE_ERROR, BARE_ERROR_TRACE, "%s:1: missing platform=", path);
    return FALSE;
  }
  /* The cost order depends on the platform's routes, and the queue's draw
   * on the scenario's seed: lbsim lists their hosts. */
  gboolean listed = g_strcmp0(placement, "cost") == 0 || g_strcmp0(placement, "queue") == 0;
  if (!listed && g_strcmp0(placement, "gray") != 0 && g_strcmp0(placement, "linear") != 0) {
    g_set_error(error, BARE_ERROR, BARE_ERROR_TRACE,
                "%s:1: placement= must be gray, linear, cost or queue, not '%s'", path,
                placement != NULL ? placement : "");
    return FALSE;
  }
  if (listed) {
    t->hosts = g_strsplit(hosts != NULL ? hosts : "", ",", -1);
    if (g_strv_length(t->hosts) != (guint)n) {
      g_set_error(error, BARE_ERROR, BARE_ERROR_TRACE,
                  "%s:1: placement=%s needs hosts= with one host name per rank (%ld), got %u", path,
                  placement, n, g_strv_length(t->hosts));
      return FALSE;
    }
  }
  t->n_ranks = (guint)n;
  t->gray = g_str_equal(placement, "gray");
  return TRUE;
}

/* Moves *p past the blanks before a field; FALSE if the line ends first.
 * strtol and strtod would skip a newline and read the next line. */
static gboolean
next_field(char **p)
{
  if (**p != ' ' && **p != '\t')
    return FALSE;
  while (**p == ' ' || **p == '\t')
    (*p)++;
  return **p != '\n' && **p != '\r' && **p != '\0';
}

static gboolean
parse_rank(char **p, guint n_ranks, long *out)
{
  if (!next_field(p))
    return FALSE;
  char *end;
  long v = strtol(*p, &end, 10);
  if (end == *p || v < 0 || v >= (long)n_ranks)
    return FALSE;
  *p = end;
  *out = v;
  return TRUE;
}

static gboolean
parse_amount(char **p, double *out)
{
  if (!next_field(p))
    return FALSE;
  char *end;
  double v = strtod(*p, &end);
  if (end == *p || !isfinite(v) || v < 0)
    return FALSE;
  *p = end;
  *out = v;
  return TRUE;
}

static void
rank_push(Rank *rank, char kind, gint32 peer, double value)
{
  if (rank->n_ops == rank->cap) {
    rank->cap = rank->cap == 0 ? 16 : 2 * rank->cap;
    rank->ops = g_renew(Op, rank->ops, rank->cap);
  }
  rank->ops[rank->n_ops++] = (Op){.value = value, .peer = peer, .kind = kind};
}

/* Parses the op at *p up to its end of line, which it leaves *p on. */
static gboolean
parse_op(char **p, Trace *t)
{
  char *end;
  long r = strtol(*p, &end, 10);
  if (end == *p || r < 0 || r >= (long)t->n_ranks || !next_field(&end))
    return FALSE;
  *p = end;
  Rank *rank = &t->ranks[r];
  char kind = *(*p)++;
  long peer = -1;
  double value = 0;
  switch (kind) {
  case 'S':
    if (!parse_rank(p, t->n_ranks, &peer) || !parse_amount(p, &value))
      return FALSE;
    break;
  case 'R':
    if (!parse_rank(p, t->n_ranks, &peer))
      return FALSE;
    break;
  case 'W':
  case 'G':
    break;
  case 'X':
    if (!parse_amount(p, &value))
      return FALSE;
    break;
  default:
    return FALSE;
  }
  while (**p == ' ' || **p == '\t' || **p == '\r')
    (*p)++;
  if (**p != '\n' && **p != '\0')
    return FALSE;

  if (kind == 'S') {
    t->ranks[peer].n_sent_to++;
    t->n_messages++;
    t->n_bytes += value;
  } else if (kind == 'R') {
    rank->n_recvs++;
  }
  rank_push(rank, kind, (gint32)peer, value);
  return TRUE;
}

static gboolean
parse_ops(const char *path, char *p, Trace *t, GError **error)
{
  for (guint64 line = 2; *p != '\0'; line++) {
    char *start = p;
    gboolean blank = *p == '\n' || *p == '#' || (p[0] == '\r' && p[1] == '\n');
    if (blank) {
      p = strchr(p, '\n');
      if (p == NULL)
        break;
    } else if (!parse_op(&p, t)) {
      p = strchr(start, '\n');
      if (p != NULL)
        *p = '\0';
      g_set_error(error, BARE_ERROR, BARE_ERROR_TRACE,
                  "%s:%" G_GUINT64_FORMAT ": bad op '%s' (expected 'RANK S DST BYTES', "
                  "'RANK R SRC', 'RANK W', 'RANK X FLOPS' or 'RANK G' with ranks below %u)",
                  path, line, start, t->n_ranks);
      return FALSE;
    }
    if (*p == '\n')
      p++;
  }
  return TRUE;
}

static Trace *
trace_load(const char *path, GError **error)
{
  g_autofree char *text = NULL;
  if (!g_file_get_contents(path, &text, NULL, error))
    return NULL;
  char *body = strchr(text, '\n');
  if (body != NULL)
    *body++ = '\0';
  else
    body = text + strlen(text);

  g_autoptr(Trace) t = g_new0(Trace, 1);
  if (!parse_header(path, text, t, error))
    return NULL;
  t->ranks = g_new0(Rank, t->n_ranks);
  if (!parse_ops(path, body, t, error))
    return NULL;

  for (guint r = 0; r < t->n_ranks; r++) {
    Rank *rank = &t->ranks[r];
    /* A count mismatch would leave a receiver or a waiting sender blocked. */
    if (rank->n_recvs != rank->n_sent_to) {
      g_set_error(error, BARE_ERROR, BARE_ERROR_TRACE,
                  "%s: rank %u receives %u messages but %u are sent to it", path, r, rank->n_recvs,
                  rank->n_sent_to);
      return NULL;
    }
    rank->ops = g_renew(Op, rank->ops, rank->n_ops);
    rank->cap = rank->n_ops;
  }
  return g_steal_pointer(&t);
}

static void
rank_actor(int argc, char *argv[])
{
  Rank *rank = sg_actor_self_get_data();
  sg_mailbox_t own = mailboxes[rank->id];
  lb_sends_init(&rank->sends);
  /* gets posted ahead ('G'), oldest first, each with its payload's slot:
   * a receive ('R') harvests the oldest, as lbsim does, else gets */
  GQueue posted = G_QUEUE_INIT;

  for (const Op *op = rank->ops; op < rank->ops + rank->n_ops; op++) {
    switch (op->kind) {
    case 'S': {
      /* sends let go of as lbsim lets go of its own (core/sends.h); the
       * message's payload is its slot */
      lb_sends_reap(&rank->sends);
      LbSendSlot *slot = lb_sends_slot(&rank->sends);
      lb_sends_started(slot,
                       sg_mailbox_put_async(mailboxes[op->peer], slot, (long)(op->value + 0.5)));
      break;
    }
    case 'G': {
      void **slot = g_new(void *, 1);
      g_queue_push_tail(&posted, sg_mailbox_get_async(own, slot));
      g_queue_push_tail(&posted, slot);
      break;
    }
    case 'R':
      lb_sends_reap(&rank->sends);
      if (g_queue_is_empty(&posted)) {
        lb_sends_taken(sg_mailbox_get(own));
      } else {
        sg_comm_wait(g_queue_pop_head(&posted));
        void **slot = g_queue_pop_head(&posted);
        lb_sends_taken(*slot);
        g_free(slot);
      }
      break;
    case 'W':
      lb_sends_wait_all(&rank->sends);
      break;
    case 'X':
      sg_actor_execute(op->value);
      break;
    default:
      g_assert_not_reached();
    }
  }
  lb_sends_wait_all(&rank->sends);
  lb_sends_clear(&rank->sends);
  /* gets posted and never harvested (lbsim's spare ones) match nothing */
  while (!g_queue_is_empty(&posted)) {
    g_queue_pop_head(&posted);
    g_free(g_queue_pop_head(&posted));
  }
  rank->done = TRUE;
}

static guint
host_of_rank(guint r, gboolean gray)
{
  return gray ? r ^ (r >> 1) : r;
}

static gboolean
has_cfg(int argc, char *argv[], const char *name)
{
  g_autofree char *prefix = g_strconcat("--cfg=", name, ":", NULL);
  for (int i = 1; i < argc; i++)
    if (g_str_has_prefix(argv[i], prefix))
      return TRUE;
  return FALSE;
}

int
main(int argc, char *argv[])
{
  /* --lbsim-allocator: restart with lbsim's allocator settings (the
   * restarted process has them and goes on), for a floor that differs from
   * lbsim by SimGrid's work alone */
  gboolean tuned = FALSE;
  for (int i = 1; i < argc; i++) {
    if (strcmp(argv[i], "--lbsim-allocator") != 0)
      continue;
    tuned = TRUE;
    lb_malloc_tune(argv);
    memmove(argv + i, argv + i + 1, (size_t)(argc - i) * sizeof *argv);
    argc--;
    break;
  }
  gboolean guard_size_given = has_cfg(argc, argv, "contexts/guard-size");
  gboolean stack_size_given = has_cfg(argc, argv, "contexts/stack-size");
  xbt_log_control_set("root.thres:warning");
  simgrid_init(&argc, argv);
  if (argc != 2 || argv[1][0] == '-') {
    fprintf(stderr, "usage: %s [--lbsim-allocator] TRACE [--cfg=NAME:VALUE ...]\n", argv[0]);
    return 2;
  }

  gint64 t0 = g_get_monotonic_time();
  g_autoptr(GError) error = NULL;
  g_autoptr(Trace) trace = trace_load(argv[1], &error);
  if (trace == NULL) {
    fprintf(stderr, "lbsim-bare-replay: %s\n", error->message);
    return 2;
  }
  gint64 t1 = g_get_monotonic_time();

  if (!g_file_test(trace->platform, G_FILE_TEST_IS_REGULAR)) {
    fprintf(stderr, "lbsim-bare-replay: %s: platform file '%s' does not exist\n", argv[1],
            trace->platform);
    return 2;
  }
  /* the stacks lbsim gives its ranks (core/stack.h) */
  gboolean many = trace->n_ranks > LB_GUARD_PAGES_MAX_RANKS;
  if (!stack_size_given)
    sg_cfg_set_int("contexts/stack-size", many ? LB_SMALL_STACK_KIB : LB_STACK_KIB);
  if (many && !guard_size_given)
    sg_cfg_set_int("contexts/guard-size", 0);
  simgrid_load_platform(trace->platform);

  /* All hosts are checked before the first actor exists: leaving main with
   * actors alive makes SimGrid complain. */
  g_autofree sg_host_t *hosts = g_new(sg_host_t, trace->n_ranks);
  for (guint r = 0; r < trace->n_ranks; r++) {
    char number[32];
    g_snprintf(number, sizeof number, "n%u", host_of_rank(r, trace->gray));
    const char *name = trace->hosts != NULL ? trace->hosts[r] : number;
    hosts[r] = sg_host_by_name(name);
    if (hosts[r] == NULL) {
      fprintf(stderr, "lbsim-bare-replay: %s: platform %s has no host %s for rank %u\n", argv[1],
              trace->platform, name, r);
      return 2;
    }
  }
  mailboxes = g_new(sg_mailbox_t, trace->n_ranks);
  /* huge pages as lbsim has them: off while the stacks are made, and
   * throughout below LB_HUGE_PAGES_MIN_RANKS, where with lbsim's allocator
   * large blocks stay on the heap */
  gboolean held = lb_huge_pages_hold();
  if (tuned && trace->n_ranks < LB_HUGE_PAGES_MIN_RANKS)
    lb_heap_keep_large_blocks();
  gboolean unzeroed = lb_stacks_unzeroed_begin();
  for (guint r = 0; r < trace->n_ranks; r++) {
    char name[32];
    g_snprintf(name, sizeof name, "rank-%u", r);
    trace->ranks[r].id = r;
    mailboxes[r] = sg_mailbox_by_name(name);
    sg_actor_t actor = sg_actor_init(name, hosts[r]);
    sg_actor_set_data(actor, &trace->ranks[r]);
    sg_actor_start(actor, rank_actor, 0, NULL);
  }
  lb_stacks_unzeroed_end(unzeroed);
  if (trace->n_ranks >= LB_HUGE_PAGES_MIN_RANKS) {
    lb_huge_pages_release(held);
    held = FALSE;
  }
  gint64 t2 = g_get_monotonic_time();
  simgrid_run();
  gint64 t3 = g_get_monotonic_time();
  lb_huge_pages_release(held);

  guint n_done = 0;
  for (guint r = 0; r < trace->n_ranks; r++)
    n_done += trace->ranks[r].done;
  if (n_done != trace->n_ranks) {
    fprintf(stderr, "lbsim-bare-replay: %s: replay deadlocked, %u of %u ranks did not finish\n",
            argv[1], trace->n_ranks - n_done, trace->n_ranks);
    return 1;
  }

  printf("bare ranks=%u messages=%" G_GUINT64_FORMAT " bytes=%.0f sim_time=%.9g parse_wall=%.3f "
         "run_wall=%.3f setup_wall=%.3f\n",
         trace->n_ranks, trace->n_messages, trace->n_bytes, simgrid_get_clock(), (t1 - t0) / 1e6,
         (t3 - t2) / 1e6, (t2 - t1) / 1e6);
  g_free(mailboxes);
  return 0;
}
