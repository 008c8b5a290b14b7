/* Dynamic loop scheduling as R. Chaube, R. L. Cariño and I. Banicescu
 * describe LB_Migrate ("LB_Migrate: a dynamic load balancing library",
 * 2003): a foreman (the master) that also computes hands out chunks of a
 * parallel loop's iterations, sized by a technique (chunks.c), to workers
 * that ask for more before they run dry, and moves the data of iterations
 * to whoever computes them. The balancer owns the compute: the iterations
 * run inside the protocol, in slices of break-after iterations with a look
 * at the messages between slices. Messages (the seed's names):
 *   WRK  master -> worker: compute [start, start + size) (size 0: nothing
 *        is left for you); from the worker's own data, or any data when
 *        it is replicated;
 *   REQ  worker -> master: more work please (or, once told nothing is
 *        left, only a report), with the time of every chunk finished
 *        since the last REQ (the adaptive techniques learn from them; af's
 *        also carry the sum of the squares of the iterations' times);
 *   GET  master -> worker (GET strategy): fetch [start, start + size)
 *        from rank src;
 *   HLP  -> the data's owner: send [start, start + size) to rank dest
 *        (from the worker in GET, from the master in GIVE);
 *   GIV  owner -> worker: the iterations' data (their ids and costs);
 *   RES  worker -> owner (distributed) or master (replicated): results;
 *   END  master -> all: every iteration is computed. With replicated
 *        data it carries every result, down a binomial tree (each rank
 *        forwards it to its children), as the seed's final broadcast. */
#include <string.h>
#include <xbt/log.h>

#include "balancers/dls/chunks.h"
#include "balancers/registry.h"
#include "lbsim/model.h"
#include "lbsim/run.h"
#include "lbsim/scenario.h"

XBT_LOG_EXTERNAL_CATEGORY(lb);
XBT_LOG_NEW_DEFAULT_SUBCATEGORY(lb_dls, lb, "Dynamic loop scheduling: LB_Migrate's protocol");

enum { TAG_WRK = 1, TAG_REQ, TAG_GET, TAG_HLP, TAG_GIV, TAG_RES, TAG_END, NKINDS };

static const char *const kind_names[] = {"", "WRK", "REQ", "GET", "HLP", "GIV", "RES", "END"};

static const LbParamSpec dls_params[] = {
    DLS_CHUNK_PARAM_ROWS,
    {"strategy", LB_PARAM_CHOICE, "get", 0, 0, "get|give",
     "distributed data: how a chunk of another rank's iterations reaches its worker: get (the "
     "master tells the worker, which asks the owner) or give (the master tells the owner, which "
     "sends)"},
    {"data", LB_PARAM_CHOICE, "distributed", 0, 0, "distributed|replicated",
     "distributed: each rank holds its block of iterations, results go back to the owner; "
     "replicated: every rank holds all, results go to the master, which broadcasts them at the "
     "end"},
    {"foreman", LB_PARAM_INT, "0", 0, 1e7, NULL, "the master rank (it computes too)"},
    {"request-when", LB_PARAM_INT, "0", 0, DLS_MAX_ITERATIONS, NULL,
     "ask for the next chunk once fewer than this many iterations of the current one remain "
     "(0: once only the last slice of break-after iterations remains)"},
    {"break-after", LB_PARAM_INT, "0", 0, DLS_MAX_ITERATIONS, NULL,
     "iterations between two looks at the messages (0: the seed's default, P looks per chunk, "
     "2P on the master)"},
    {"result-bytes", LB_PARAM_DOUBLE, "8", 0, 1e12, NULL, "bytes of one iteration's result"},
    {"debug", LB_PARAM_INT, "0", 0, 4, NULL,
     "trace on stderr, the seed's Table 1: 0 nothing, 1 sends, 2 receives, 3 sends, receives "
     "and data migration, 4 also every call of the work routine"},
    {NULL},
};

static const char *const dls_phases[] = {"loop", NULL};

enum {
  M_PARALLEL_TIME,
  M_USEFUL_TIME,
  M_ITERATIONS,
  M_COST,
  M_PERFORMANCE,
  M_EFFECTIVENESS,
  M_SPEEDUP,
  M_EFFICIENCY,
  M_OVERHEAD,
  M_CHUNKS,
  M_WRK,
  M_REQ,
  M_GET,
  M_HLP,
  M_GIV,
  M_RES,
  M_END,
  M_MIGRATED,
  M_MIGRATED_BYTES,
  M_RESULT_BYTES,
  M_COST_IMPROVEMENT,
};

static double
derive_cost(const double *m, guint p)
{
  return p * m[M_PARALLEL_TIME];
}

static double
derive_performance(const double *m, guint p)
{
  return m[M_PARALLEL_TIME] > 0 ? m[M_ITERATIONS] / m[M_PARALLEL_TIME] : 0;
}

static double
derive_effectiveness(const double *m, guint p)
{
  double cost = p * m[M_PARALLEL_TIME];
  return cost > 0 ? derive_performance(m, p) / cost : 0;
}

static double
derive_speedup(const double *m, guint p)
{
  return m[M_PARALLEL_TIME] > 0 ? m[M_USEFUL_TIME] / m[M_PARALLEL_TIME] : 0;
}

static double
derive_efficiency(const double *m, guint p)
{
  return derive_speedup(m, p) / p;
}

static double
derive_overhead(const double *m, guint p)
{
  return p * m[M_PARALLEL_TIME] - m[M_USEFUL_TIME];
}

/* clang-format off */
#define COUNT(name, what) \
  {name, "messages", LB_AGGREGATE_SUM, LB_COMBINE_SUM, NULL, what, NULL}
/* clang-format on */

static const LbMetricSpec dls_metrics[] = {
    {"parallel-time", "s", LB_AGGREGATE_MEAN, LB_COMBINE_MAX, NULL,
     "T_p = max t_r, t_r rank r's time in the loop (scheduling, migration, compute, results)",
     NULL},
    {"useful-time", "s", LB_AGGREGATE_MEAN, LB_COMBINE_SUM, NULL,
     "T_1 = sum u_r, u_r rank r's time computing iterations", NULL},
    {"iterations", "iterations", LB_AGGREGATE_MEAN, LB_COMBINE_SUM, NULL, "W = N, the loop's size",
     NULL},
    {"cost", "s", LB_AGGREGATE_MEAN, LB_COMBINE_MAX, NULL, "P x T_p", derive_cost},
    {"performance", "iterations/s", LB_AGGREGATE_MEAN, LB_COMBINE_MAX, NULL, "W / T_p",
     derive_performance},
    {"effectiveness", "1/s^2", LB_AGGREGATE_MEAN, LB_COMBINE_MAX, NULL,
     "(W / T_p) / (P x T_p): performance per cost", derive_effectiveness},
    {"speedup", "ratio", LB_AGGREGATE_MEAN, LB_COMBINE_MAX, NULL, "T_1 / T_p", derive_speedup},
    {"efficiency", "ratio", LB_AGGREGATE_MEAN, LB_COMBINE_MAX, NULL, "T_1 / T_p / P",
     derive_efficiency},
    {"overhead", "s", LB_AGGREGATE_MEAN, LB_COMBINE_MAX, NULL,
     "T_o = P x T_p - T_1: time the P ranks spent other than computing", derive_overhead},
    {"chunks", "chunks", LB_AGGREGATE_SUM, LB_COMBINE_SUM, NULL, "chunks handed out", NULL},
    COUNT("wrk-messages",
          "WRK: chunks of the worker's own (or replicated) data, and 'nothing left'"),
    COUNT("req-messages", "REQ: requests and reports to the master"),
    COUNT("get-messages", "GET: the master tells a worker where to fetch a chunk"),
    COUNT("hlp-messages", "HLP: an owner is asked to send a chunk's data"),
    COUNT("giv-messages", "GIV: a chunk's data to its worker"),
    COUNT("res-messages", "RES: results back to the owner or the master"),
    COUNT("end-messages", "END: the loop is over"),
    {"migrated-iterations", "iterations", LB_AGGREGATE_SUM, LB_COMBINE_SUM, NULL,
     "iterations computed away from the rank that holds their data", NULL},
    {"migrated-bytes", "bytes", LB_AGGREGATE_SUM, LB_COMBINE_SUM, NULL,
     "bytes of the GIV messages (the iterations' data)", NULL},
    {"result-bytes", "bytes", LB_AGGREGATE_SUM, LB_COMBINE_SUM, NULL,
     "bytes of results sent: RES messages and the final broadcast (replicated)", NULL},
    {"cost-improvement", "%", LB_AGGREGATE_MEAN, LB_COMBINE_MAX, NULL,
     "the seed's percent improvement in cost over STAT, 100 (cost_STAT - cost) / cost_STAT, "
     "against the scenario's dls run with technique = stat (0 when it runs none)",
     NULL},
    {"data-imbalance", "ratio", LB_AGGREGATE_LAST, LB_COMBINE_MAX, NULL,
     "max / mean of the iterations' loads each rank holds after the loop (who owns the data, "
     "with its migrations; the summary's imbalance after is the work each rank executed)",
     NULL},
    {NULL},
};

typedef struct {
  guint64 start, size, done;
  int owner;             /* whose data: results go back there (distributed) */
  LbUnit *units;         /* size units: ids and costs */
  gboolean owned;        /* units allocated here (migrated or replicated) */
  double computed;       /* seconds spent computing it so far */
  double began;          /* when its first slice began */
  guint64 reported_done; /* iterations the master has heard of */
  double reported_time;  /* and their seconds */
  double squares;        /* af: the sum of the squares of its iterations' times */
  double reported_squares;
} Chunk;

typedef struct {
  guint64 start, size;
  gint32 peer; /* GET: the owner to fetch from; HLP: whom to send to */
  gint32 pad;
} Order;

typedef struct {
  guint64 size;
  double seconds;
  double squares; /* af: of the iterations' own times */
} Report;

typedef struct {
  guint32 want; /* 1: more work; 0: a report only */
  guint32 nreports;
  Report reports[];
} Request;

typedef struct {
  guint64 count, checksum;
} Delivery;

typedef struct {
  LbRank *self;
  int me, master;
  guint p;
  gboolean replicated, give;
  guint64 request_when, break_after;
  double result_bytes, fpu;
  int debug;
  gboolean learns;      /* awf, af, measured wf: a REQ reports the chunk under way too */
  gboolean elapsed;     /* awf-time = elapsed: report elapsed, not compute, seconds */
  gboolean timed;       /* af: every iteration timed, its square reported */
  const guint64 *costs; /* replicated: every iteration's */
  guint64 own_lo, own_hi;
  guint8 *result; /* own iterations (replicated master: all): results held */
  guint64 results, results_needed;
  GQueue chunks;      /* Chunk *, the first being computed */
  guint incoming;     /* chunks promised (GET) whose data has not come */
  gboolean requested; /* a REQ unanswered */
  gboolean no_more;   /* the master said nothing is left */
  gboolean ended;     /* END received (the master: sent) */
  GArray *reports;    /* Report: finished chunks the master has not heard of */
  guint64 sent[NKINDS];
  guint64 migrated;
  double migrated_bytes, sent_result_bytes, useful;
  /* the master */
  DlsChunker *chunker;
  guint64 *lo, *hi; /* distributed: every owner's unscheduled range */
  guint64 n, completed;
  gboolean first_round; /* handing out the first chunks, unasked */
} Dls;

/* What a rank keeps from one loop to the next: the master's awf history,
 * as the AWF paper's master keeps it across an application's time steps
 * (from workers' reports only). */
typedef struct {
  guint steps;                         /* loops run so far */
  double *past_time, *past_iterations; /* per worker: sums over steps s of s x its reported sums */
} DlsState;

static gpointer
dls_state_new(LbRank *self)
{
  return g_new0(DlsState, 1);
}

static void
dls_state_free(gpointer data)
{
  DlsState *st = data;
  if (st == NULL)
    return;
  g_free(st->past_time);
  g_free(st->past_iterations);
  g_free(st);
}

static void handle(Dls *d, int src, int tag, gconstpointer data, GArray *units);
static void forward_results(Dls *d, gconstpointer data);

static void trace(Dls *d, gboolean show, const char *format, ...) G_GNUC_PRINTF(3, 4);

/* A line of the protocol's trace (its debug levels), through the lb_dls
 * category: SimGrid stamps it with the host, the rank and the simulated
 * time. */
static void
trace(Dls *d, gboolean show, const char *format, ...)
{
  if (!show)
    return;
  va_list args;
  va_start(args, format);
  g_autofree char *text = g_strdup_vprintf(format, args);
  va_end(args);
  XBT_INFO("%s", text);
}

/* Table 1's levels */
#define SHOW_SEND(d) ((d)->debug == 1 || (d)->debug >= 3)
#define SHOW_RECV(d) ((d)->debug >= 2)
#define SHOW_DATA(d) ((d)->debug >= 3)
#define SHOW_WORK(d) ((d)->debug >= 4)

/* What a message carries, for explain's arrows: a chunk's range, or a
 * request and its reports. */
static void
label(Dls *d, int tag, gconstpointer data, gsize len)
{
  if (tag == TAG_REQ) {
    const Request *r = data;
    lb_narrate_label(d->self, "REQ: %s%u report%s", r->want ? "more work, " : "", r->nreports,
                     r->nreports == 1 ? "" : "s");
    return;
  }
  if (tag == TAG_END || len != sizeof(Order)) {
    lb_narrate_label(d->self, "%s", kind_names[tag]);
    return;
  }
  const Order *o = data;
  g_autofree char *range = g_strdup_printf(
      "iterations [%" G_GUINT64_FORMAT ", %" G_GUINT64_FORMAT ")", o->start, o->start + o->size);
  if (tag == TAG_WRK)
    lb_narrate_label(d->self, "WRK: compute %s", range);
  else if (tag == TAG_GET)
    lb_narrate_label(d->self, "GET: fetch %s from rank %d", range, o->peer);
  else if (tag == TAG_HLP)
    lb_narrate_label(d->self, "HLP: send %s to rank %d", range, o->peer);
  else if (tag == TAG_RES)
    lb_narrate_label(d->self, "RES: the results of %s", range);
  else
    lb_narrate_label(d->self, "%s: %s", kind_names[tag], range);
}

/* A message to dst, or to this rank's own handler when dst is this rank
 * (the master's orders to itself travel no network). */
static void
deliver(Dls *d, int dst, int tag, gconstpointer data, gsize len, double sim_bytes)
{
  if (dst == d->me) {
    trace(d, SHOW_SEND(d), "%s to itself", kind_names[tag]);
    handle(d, dst, tag, data, NULL);
    return;
  }
  trace(d, SHOW_SEND(d), "SEND %s to %d (%.0f bytes)", kind_names[tag], dst, sim_bytes);
  if (lb_rank_narrating(d->self))
    label(d, tag, data, len);
  lb_send(d->self, dst, tag, data, len, sim_bytes);
  d->sent[tag]++;
}

static void
send_order(Dls *d, int dst, int tag, guint64 start, guint64 size, int peer)
{
  Order o = {start, size, peer, 0};
  deliver(d, dst, tag, &o, sizeof o, LB_HEADER_BYTES);
}

static guint64
slice_of(const Dls *d, const Chunk *c)
{
  if (d->break_after > 0)
    return d->break_after;
  guint64 checks = d->me == d->master ? 2 * (guint64)d->p : d->p;
  return MAX((c->size + checks - 1) / checks, 1);
}

/* "WRK to rank 3", or "WRK to itself (no message)" when the master is the
 * receiver. */
static char *
order_to(const Dls *d, const char *kind, int from, int to)
{
  if (from == to)
    return g_strdup_printf("%s to itself (no message)", kind);
  if (from == d->me)
    return g_strdup_printf("%s to rank %d", kind, to);
  return g_strdup_printf("%s rank %d -> rank %d", kind, from, to);
}

/* The master's story of one chunk: its number and size, why that size,
 * the iterations, whose data, and the messages that carry it. */
static void
narrate_chunk(Dls *d, int w, int src, guint64 start, guint64 size)
{
  const char *who = d->first_round ? "first chunk, unasked, for"
                    : w == d->me   ? "the master's own request,"
                                   : "REQ from";
  if (size == 0) {
    g_autofree char *wrk = order_to(d, "WRK", d->me, w);
    lb_narrate(d->self, "%s rank %d: nothing left for it, %s of size 0", who, w, wrk);
    return;
  }
  g_autofree char *why = dls_chunker_describe_last(d->chunker);
  g_autofree char *how = NULL;
  if (d->replicated) {
    g_autofree char *wrk = order_to(d, "WRK", d->me, w);
    g_autofree char *res = order_to(d, "RES", w, d->me);
    how = g_strdup_printf("every rank holds the data: %s, then %s", wrk, res);
  } else if (src == w) {
    g_autofree char *wrk = order_to(d, "WRK", d->me, w);
    how = g_strdup_printf("its own data: %s", wrk);
  } else if (d->give) {
    g_autofree char *hlp = order_to(d, "HLP", d->me, src);
    g_autofree char *giv = order_to(d, "GIV", src, w);
    g_autofree char *res = order_to(d, "RES", w, src);
    how = g_strdup_printf("rank %d's data: %s, %s (the data), %s", src, hlp, giv, res);
  } else {
    g_autofree char *get = order_to(d, "GET", d->me, w);
    g_autofree char *hlp = order_to(d, "HLP", w, src);
    g_autofree char *giv = order_to(d, "GIV", src, w);
    g_autofree char *res = order_to(d, "RES", w, src);
    how = g_strdup_printf("rank %d's data: %s, %s, %s (the data), %s", src, get, hlp, giv, res);
  }
  lb_narrate(d->self,
             "%s rank %d: chunk %" G_GUINT64_FORMAT ", %" G_GUINT64_FORMAT
             " iteration%s [%" G_GUINT64_FORMAT ", %" G_GUINT64_FORMAT
             ") (%s); %s; %" G_GUINT64_FORMAT " left unscheduled",
             who, w, dls_chunker_count(d->chunker), size, size == 1 ? "" : "s", start, start + size,
             why, how, dls_chunker_remaining(d->chunker));
}

/* The master: the next chunk for worker w, sent as WRK, GET or HLP. */
static void
schedule(Dls *d, int w)
{
  guint64 size = 0, start = 0;
  int src = w;
  if (d->replicated) {
    size = dls_chunker_next_at(d->chunker, (guint)w, &start);
  } else if (dls_chunker_remaining(d->chunker) > 0) {
    /* the worker's own iterations first, then the owner with most left */
    if (d->hi[w] == d->lo[w])
      for (guint r = 0; r < d->p; r++)
        if (d->hi[r] - d->lo[r] > d->hi[src] - d->lo[src])
          src = (int)r;
    if (d->hi[src] > d->lo[src])
      size = dls_chunker_next_capped(d->chunker, (guint)w, d->hi[src] - d->lo[src]);
    if (size > 0 && src == w) {
      start = d->lo[w];
      d->lo[w] += size;
    } else if (size > 0) {
      d->hi[src] -= size;
      start = d->hi[src];
    }
  }
  if (lb_rank_narrating(d->self))
    narrate_chunk(d, w, src, start, size);
  if (size == 0 || src == w) {
    send_order(d, w, TAG_WRK, start, size, src);
    return;
  }
  if (d->give)
    send_order(d, src, TAG_HLP, start, size, w);
  else
    send_order(d, w, TAG_GET, start, size, src);
}

/* The master hears of finished chunks (its own, or a REQ's). */
static void
master_note(Dls *d, int w, const Report *reports, guint n)
{
  for (guint i = 0; i < n; i++) {
    if (d->timed)
      dls_chunker_report_iterations(d->chunker, (guint)w, reports[i].size, reports[i].seconds,
                                    reports[i].squares);
    else
      dls_chunker_report(d->chunker, (guint)w, reports[i].size, reports[i].seconds);
    d->completed += reports[i].size;
  }
}

static void
enqueue(Dls *d, guint64 start, guint64 size, int owner, LbUnit *units, gboolean owned)
{
  Chunk *c = g_new0(Chunk, 1);
  *c = (Chunk){start, size, 0, owner, units, owned, 0, 0, 0, 0, 0, 0};
  g_queue_push_tail(&d->chunks, c);
}

/* Units of [start, start + size) from what this rank holds. */
static LbUnit *
held_units(Dls *d, guint64 start, guint64 size, gboolean *owned)
{
  if (d->replicated) {
    LbUnit *u = g_new(LbUnit, size);
    for (guint64 i = 0; i < size; i++)
      u[i] = (LbUnit){start + i, d->costs[start + i]};
    *owned = TRUE;
    return u;
  }
  g_assert(start >= d->own_lo && start + size <= d->own_hi);
  *owned = FALSE;
  return &g_array_index(lb_rank_units(d->self), LbUnit, start - d->own_lo);
}

static void
mark_results(Dls *d, guint64 start, guint64 size, int from)
{
  guint64 base = d->replicated ? 0 : d->own_lo;
  for (guint64 i = start; i < start + size; i++) {
    if (i < base || i - base >= d->results_needed || d->result[i - base]) {
      lb_rank_fail(d->self,
                   "dls: rank %d got a result for iteration %" G_GUINT64_FORMAT
                   " from rank %d that it %s",
                   d->me, i, from, d->result[i - base] ? "already had" : "does not own");
      return;
    }
    d->result[i - base] = 1;
  }
  d->results += size;
}

static void
handle(Dls *d, int src, int tag, gconstpointer data, GArray *units)
{
  const Order *o = data;
  switch (tag) {
  case TAG_WRK: {
    d->requested = FALSE;
    if (o->size == 0) {
      d->no_more = TRUE;
      break;
    }
    gboolean owned;
    LbUnit *u = held_units(d, o->start, o->size, &owned);
    enqueue(d, o->start, o->size, d->me, u, owned);
    break;
  }
  case TAG_REQ: {
    const Request *r = data;
    master_note(d, src, r->reports, r->nreports);
    if (r->want)
      schedule(d, src);
    break;
  }
  case TAG_GET:
    d->requested = FALSE;
    d->incoming++;
    trace(d, SHOW_DATA(d),
          "fetches %" G_GUINT64_FORMAT " iterations from %" G_GUINT64_FORMAT " of rank %d", o->size,
          o->start, o->peer);
    send_order(d, o->peer, TAG_HLP, o->start, o->size, d->me);
    break;
  case TAG_HLP: {
    gboolean owned;
    const LbUnit *u = held_units(d, o->start, o->size, &owned);
    g_assert(!owned);
    trace(d, SHOW_DATA(d) || SHOW_SEND(d),
          "SEND GIV to %d: %" G_GUINT64_FORMAT " iterations from %" G_GUINT64_FORMAT, o->peer,
          o->size, o->start);
    double before = lb_rank_sent_bytes(d->self);
    lb_narrate_label(d->self, "GIV: iterations [%" G_GUINT64_FORMAT ", %" G_GUINT64_FORMAT ")",
                     o->start, o->start + o->size);
    lb_send_units(d->self, o->peer, TAG_GIV, 0, u, (guint)o->size, NULL);
    d->migrated_bytes += lb_rank_sent_bytes(d->self) - before;
    d->migrated += o->size;
    d->sent[TAG_GIV]++;
    break;
  }
  case TAG_GIV: {
    if (d->incoming > 0)
      d->incoming--;
    else
      d->requested = FALSE;
    const LbUnit *u = (const LbUnit *)units->data;
    trace(d, SHOW_DATA(d), "holds %u iterations from %" G_GUINT64_FORMAT " of rank %d", units->len,
          u[0].id, src);
    enqueue(d, u[0].id, units->len, src, g_memdup2(u, units->len * sizeof(LbUnit)), TRUE);
    break;
  }
  case TAG_RES:
    mark_results(d, o->start, o->size, src);
    break;
  case TAG_END:
    d->ended = TRUE;
    if (d->replicated)
      forward_results(d, data);
    break;
  default:
    g_assert_not_reached();
  }
}

/* Takes one message that a probe saw. */
static void
receive(Dls *d, const LbStatus *st)
{
  LbRank *self = d->self;
  if (st->tag == TAG_GIV) {
    g_autoptr(GArray) units = g_array_new(FALSE, FALSE, sizeof(LbUnit));
    lb_recv_units(self, st->src, TAG_GIV, units, NULL);
    trace(d, SHOW_RECV(d), "RECV GIV from %d", st->src);
    handle(d, st->src, TAG_GIV, NULL, units);
    return;
  }
  g_autoptr(LbMsg) m = lb_recv(self, st->src, st->tag);
  trace(d, SHOW_RECV(d), "RECV %s from %d", kind_names[m->tag], m->src);
  handle(d, m->src, m->tag, m->data, NULL);
}

static void
serve_arrived(Dls *d)
{
  LbStatus st;
  while (lb_iprobe(d->self, LB_ANY_SOURCE, LB_ANY_TAG, &st))
    receive(d, &st);
}

/* Reports the part of chunk c done since its last report: to the
 * scheduler directly on the master, else with the next REQ. */
static void
report_progress(Dls *d, Chunk *c)
{
  guint64 k = c->done - c->reported_done;
  if (k == 0)
    return;
  double upto = d->elapsed ? lb_now() - c->began : c->computed;
  Report rep = {k, upto - c->reported_time, c->squares - c->reported_squares};
  c->reported_done = c->done;
  c->reported_time = upto;
  c->reported_squares = c->squares;
  if (d->me == d->master)
    master_note(d, d->me, &rep, 1);
  else
    g_array_append_val(d->reports, rep);
}

/* Asks for more (or only reports) when the rules say so. */
static void
maybe_request(Dls *d)
{
  const Chunk *c = g_queue_peek_head(&d->chunks);
  gboolean want = FALSE;
  if (!d->requested && !d->no_more && d->incoming == 0 && g_queue_get_length(&d->chunks) <= 1) {
    if (c == NULL)
      want = TRUE;
    else {
      guint64 left = c->size - c->done;
      want = d->request_when > 0 ? left < d->request_when : left <= slice_of(d, c);
    }
  }
  gboolean report_only =
      !want && d->no_more && c == NULL && d->incoming == 0 && d->reports->len > 0;
  if (!want && !report_only)
    return;
  /* the adaptive techniques learn from the chunk under way as well, as
   * the DLB tool's request carries it: a worker's first (small) chunk
   * is measured by the time it asks for its second */
  if (want && d->learns && c != NULL)
    report_progress(d, (Chunk *)c);
  if (d->me == d->master) {
    /* the master's reports went to the scheduler as its chunks ended */
    if (want) {
      d->requested = TRUE;
      schedule(d, d->me);
    }
    return;
  }
  gsize len = sizeof(Request) + d->reports->len * sizeof(Report);
  g_autofree Request *r = g_malloc(len);
  r->want = want;
  r->nreports = d->reports->len;
  if (d->reports->len > 0)
    memcpy(r->reports, d->reports->data, d->reports->len * sizeof(Report));
  g_array_set_size(d->reports, 0);
  d->requested = want;
  /* a report is its size and seconds, and af's sum of squares */
  double report_bytes = d->timed ? 24.0 : 16.0;
  deliver(d, d->master, TAG_REQ, r, len, LB_HEADER_BYTES + report_bytes * r->nreports);
}

static void
finish_chunk(Dls *d, Chunk *c)
{
  lb_executed(d->self, c->units, c->size);
  lb_rank_note_chunk(d->self, (guint)c->owner, c->start, c->units, c->size, c->began);
  if (lb_rank_narrating(d->self)) {
    guint64 cost = 0;
    for (guint64 i = 0; i < c->size; i++)
      cost += c->units[i].load;
    /* one line a chunk: lbsim reproduce's timelines read them back */
    lb_narrate(d->self,
               "computed chunk [%" G_GUINT64_FORMAT ", %" G_GUINT64_FORMAT
               ") of rank %d: %" G_GUINT64_FORMAT " iteration%s, cost %" G_GUINT64_FORMAT
               ", began at %.6f s, %.6f s computing",
               c->start, c->start + c->size, c->owner, c->size, c->size == 1 ? "" : "s", cost,
               c->began, c->computed);
  }
  report_progress(d, c);
  int to = d->replicated ? d->master : c->owner;
  if (to == d->me) {
    mark_results(d, c->start, c->size, d->me);
  } else {
    Order o = {c->start, c->size, d->me, 0};
    double bytes = LB_HEADER_BYTES + c->size * d->result_bytes;
    d->sent_result_bytes += bytes;
    deliver(d, to, TAG_RES, &o, sizeof o, bytes);
  }
  if (c->owned)
    g_free(c->units);
  g_free(c);
}

/* Computes the next slice of the first chunk, then looks at the messages. */
static void
compute_slice(Dls *d)
{
  Chunk *c = g_queue_peek_head(&d->chunks);
  if (c->done == 0) {
    c->began = lb_now();
    maybe_request(d);
  }
  guint64 n = MIN(slice_of(d, c), c->size - c->done);
  guint64 load = 0;
  for (guint64 i = 0; i < n; i++)
    load += c->units[c->done + i].load;
  trace(d, SHOW_WORK(d), "work routine: %" G_GUINT64_FORMAT " iterations from %" G_GUINT64_FORMAT,
        n, c->start + c->done);
  double t0 = lb_now();
  if (d->timed) {
    /* af times every iteration, as the DLB tool's workers do: the spread
     * of their times is what it adapts to */
    for (guint64 i = 0; i < n; i++) {
      double at = lb_now();
      lb_execute(d->self, lb_work_flops(lb_rank_work(d->self), c->units[c->done + i].load));
      double one = lb_now() - at;
      c->squares += one * one;
    }
  } else {
    lb_execute(d->self, lb_work_flops(lb_rank_work(d->self), load));
  }
  double spent = lb_now() - t0;
  c->computed += spent;
  d->useful += spent;
  c->done += n;
  if (c->done == c->size) {
    g_queue_pop_head(&d->chunks);
    finish_chunk(d, c);
  }
  maybe_request(d);
  serve_arrived(d);
}

static gboolean
finished(Dls *d)
{
  if (d->me == d->master && !d->ended && d->completed == d->n &&
      (!d->replicated || d->results == d->n)) {
    d->ended = TRUE;
    if (d->replicated)
      forward_results(d, NULL);
    else
      for (guint r = 0; r < d->p; r++)
        if ((int)r != d->me)
          send_order(d, (int)r, TAG_END, 0, 0, d->me);
  }
  /* a request is always answered, even when the loop is over */
  return d->ended && g_queue_is_empty(&d->chunks) && !d->requested && d->incoming == 0 &&
         d->results == d->results_needed;
}

static guint64
delivery_checksum(guint64 id)
{
  return id * G_GUINT64_CONSTANT(0x9E3779B97F4A7C15);
}

/* Replicated data: END carries every result from the master down a
 * binomial tree; each rank checks that they are all there and forwards
 * them to its children (data NULL: the master starts it). */
static void
forward_results(Dls *d, gconstpointer data)
{
  guint v = (guint)((d->me - d->master + (int)d->p) % (int)d->p);
  Delivery got = {0};
  if (data != NULL) {
    memcpy(&got, data, sizeof got);
  } else {
    for (guint64 i = 0; i < d->n; i++)
      if (d->result[i]) {
        got.count++;
        got.checksum += delivery_checksum(i);
      }
  }
  /* the checksum of ids 0 .. N - 1, K N (N - 1) / 2, in closed form: a
   * loop here would cost every rank N steps */
  guint64 n = d->n, pairs = n % 2 == 0 ? (n / 2) * (n - 1) : n * ((n - 1) / 2);
  guint64 want = delivery_checksum(pairs);
  if (got.count != d->n || got.checksum != want)
    lb_rank_fail(d->self,
                 "dls: rank %d has %" G_GUINT64_FORMAT " of the loop's %" G_GUINT64_FORMAT
                 " results at the end",
                 d->me, got.count, d->n);
  guint mask = 1;
  while (mask < d->p && !(v & mask))
    mask <<= 1;
  double bytes = LB_HEADER_BYTES + d->n * d->result_bytes;
  for (mask >>= 1; mask > 0; mask >>= 1)
    if (v + mask < d->p) {
      d->sent_result_bytes += bytes;
      deliver(d, (int)((v + mask + (guint)d->master) % d->p), TAG_END, &got, sizeof got, bytes);
    }
}

static void
dls_balance(LbRank *self, gpointer state)
{
  DlsState *history = state;
  const LbParams *params = lb_rank_params(self);
  const LbWork *work = lb_rank_work(self);
  GArray *mine = lb_rank_units(self);
  Dls dd = {0}, *d = &dd;
  d->self = self;
  d->me = lb_rank_id(self);
  d->p = (guint)lb_rank_count(self);
  d->master = (int)lb_params_get_int(params, "foreman");
  d->replicated = strcmp(lb_params_get_string(params, "data"), "replicated") == 0;
  d->give = strcmp(lb_params_get_string(params, "strategy"), "give") == 0;
  d->request_when = (guint64)lb_params_get_int(params, "request-when");
  d->break_after = (guint64)lb_params_get_int(params, "break-after");
  d->result_bytes = lb_params_get_double(params, "result-bytes");
  d->debug = (int)lb_params_get_int(params, "debug");
  const char *technique = lb_params_get_string(params, "technique");
  d->learns = strcmp(technique, "awf") == 0 || strcmp(technique, "af") == 0 ||
              (strcmp(technique, "wf") == 0 && dls_weights_from(params) == DLS_WEIGHTS_MEASURED);
  d->timed = strcmp(technique, "af") == 0;
  d->elapsed = strcmp(technique, "awf") == 0 &&
               strcmp(lb_params_get_string(params, "awf-time"), "elapsed") == 0;
  /* a debug level asks for the trace: the category shows its lines */
  if (d->debug > 0 && !XBT_LOG_ISENABLED(lb_dls, xbt_log_priority_info))
    xbt_log_control_set("lb_dls.thres:info");
  d->costs = lb_loop_costs(work, lb_rank_adaptation(self));
  d->n = lb_work_total_units(work);
  d->reports = g_array_new(FALSE, FALSE, sizeof(Report));
  g_queue_init(&d->chunks);
  d->own_lo = mine->len > 0 ? g_array_index(mine, LbUnit, 0).id : 0;
  d->own_hi = d->own_lo + mine->len;
  d->results_needed = d->replicated ? (d->me == d->master ? d->n : 0) : mine->len;
  d->result = g_new0(guint8, MAX(d->results_needed, 1));
  lb_phase_begin(self, 0);
  double start = lb_now();

  if (d->me == d->master) {
    g_auto(DlsChunkParams) cp = {0};
    g_autofree double *speeds = g_new(double, d->p);
    for (guint r = 0; r < d->p; r++)
      speeds[r] = lb_rank_host_speed(self, (int)r);
    g_autoptr(GError) error = NULL;
    gboolean ok = dls_chunk_params_read(&cp, params, d->p, speeds, &error);
    g_assert(ok); /* the scenario's check read them already */
    DlsTechnique t;
    dls_technique_parse(lb_params_get_string(params, "technique"), &t);
    cp.step = history->steps + 1;
    if (history->past_time != NULL) {
      cp.past_time = history->past_time;
      cp.past_iterations = history->past_iterations;
    }
    d->chunker = dls_chunker_new(t, d->n, d->p, &cp);
    /* every owner's block, as the loop model lays them out: the master
     * knows the initial distribution, as LB_Migrate's caller gives it */
    d->lo = g_new(guint64, d->p);
    d->hi = g_new(guint64, d->p);
    for (guint r = 0; r < d->p; r++) {
      d->lo[r] = r * (d->n / d->p) + MIN((guint64)r, d->n % d->p);
      d->hi[r] = (r + 1) * (d->n / d->p) + MIN((guint64)r + 1, d->n % d->p);
    }
    /* a master without iterations (P > N) has own_lo 0; its empty block
     * starts at N */
    g_assert(d->replicated || (d->hi[d->me] - d->lo[d->me] == mine->len &&
                               (mine->len == 0 || d->lo[d->me] == d->own_lo)));
    /* the first chunks go out unasked, in rank order */
    d->first_round = TRUE;
    for (guint r = 0; r < d->p; r++) {
      if ((int)r == d->me)
        d->requested = TRUE;
      schedule(d, (int)r);
    }
    d->first_round = FALSE;
  } else {
    d->requested = TRUE; /* the master's first chunk is on its way */
  }

  while (!finished(d)) {
    if (!g_queue_is_empty(&d->chunks)) {
      compute_slice(d);
      continue;
    }
    maybe_request(d);
    if (finished(d))
      break;
    LbStatus st;
    lb_probe(self, LB_ANY_SOURCE, LB_ANY_TAG, &st);
    receive(d, &st);
  }
  lb_wait_sends(self);

  lb_metric_record(self, M_PARALLEL_TIME, lb_now() - start);
  lb_metric_record(self, M_USEFUL_TIME, d->useful);
  for (guint k = TAG_WRK; k <= TAG_END; k++)
    lb_metric_record(self, M_WRK + k - TAG_WRK, (double)d->sent[k]);
  lb_metric_record(self, M_MIGRATED, (double)d->migrated);
  lb_metric_record(self, M_MIGRATED_BYTES, d->migrated_bytes);
  lb_metric_record(self, M_RESULT_BYTES, d->sent_result_bytes);
  if (d->me == d->master) {
    lb_metric_record(self, M_ITERATIONS, (double)d->n);
    lb_metric_record(self, M_CHUNKS, (double)dls_chunker_count(d->chunker));
    /* this step's reports, weighted by its number, for the next steps */
    if (history->past_time == NULL) {
      history->past_time = g_new0(double, d->p);
      history->past_iterations = g_new0(double, d->p);
    }
    history->steps++;
    for (guint r = 0; r < d->p; r++) {
      double seconds = 0, iterations = 0;
      if (dls_chunker_measured(d->chunker, r, &seconds, &iterations)) {
        history->past_time[r] += history->steps * seconds;
        history->past_iterations[r] += history->steps * iterations;
      }
    }
    dls_chunker_free(d->chunker);
    g_free(d->lo);
    g_free(d->hi);
  }
  g_free(d->result);
  g_array_unref(d->reports);
}

static gboolean
dls_check(guint ranks, const LbWork *work, const LbParams *params, GError **error)
{
  if ((guint64)lb_params_get_int(params, "foreman") >= ranks) {
    g_set_error(error, LB_PARAM_ERROR, LB_PARAM_ERROR_INVALID,
                "[dls] foreman: rank %" G_GINT64_FORMAT " does not exist (%u ranks)",
                lb_params_get_int(params, "foreman"), ranks);
    return FALSE;
  }
  if ((double)lb_work_total_units(work) > DLS_MAX_ITERATIONS) {
    g_set_error(error, LB_PARAM_ERROR, LB_PARAM_ERROR_INVALID,
                "[dls] the loop has more than 2^53 iterations");
    return FALSE;
  }
  g_auto(DlsChunkParams) cp = {0};
  if (!dls_chunk_params_read(&cp, params, ranks, NULL, error)) {
    g_prefix_error(error, "[dls] "); /* the chunk keys' errors name the key only */
    return FALSE;
  }
  return TRUE;
}

/* Improvement in cost over the scenario's STAT run (the first dls run with
 * technique = stat), per step and over the run. */
static void
dls_relate(LbRunResult *r, LbRunResult *const *all, guint n)
{
  const LbRunResult *stat = NULL;
  for (guint i = 0; i < n && stat == NULL; i++)
    if (lb_balancer_of_label(all[i]->balancer) == &lb_dls_balancer &&
        strcmp(lb_params_get_string(all[i]->params, "technique"), "stat") == 0 &&
        all[i]->nadaptations == r->nadaptations)
      stat = all[i];
  if (stat == NULL)
    return;
  guint ndefs = r->metric_defs->len;
  for (guint s = 0; s < r->nadaptations; s++) {
    double base = stat->adaptation_metrics[(gsize)s * ndefs + M_COST];
    double cost = r->adaptation_metrics[(gsize)s * ndefs + M_COST];
    r->adaptation_metrics[(gsize)s * ndefs + M_COST_IMPROVEMENT] =
        base > 0 ? 100 * (base - cost) / base : 0;
  }
  double base = stat->metrics[M_COST];
  r->metrics[M_COST_IMPROVEMENT] = base > 0 ? 100 * (base - r->metrics[M_COST]) / base : 0;
}

const LbBalancer lb_dls_balancer = {
    .name = "dls",
    .summary = "dynamic loop scheduling: LB_Migrate's master/worker protocol with chunk-size "
               "techniques, GET or GIVE migration, distributed or replicated data",
    .cite = "R. Chaube, R. L. Cari\xc3\xb1o and I. Banicescu, \"LB_Migrate: a dynamic load "
            "balancing library\", 2003",
    .params = dls_params,
    .phases = dls_phases,
    .metrics = dls_metrics,
    .needs = LB_CAP_ITERATIONS,
    .keeps_order = FALSE,
    .owns_compute = TRUE,
    .variant_key = "technique",
    .state_new = dls_state_new,
    .state_free = dls_state_free,
    .check = dls_check,
    .balance = dls_balance,
    .relate = dls_relate,
};
