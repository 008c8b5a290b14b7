/* One simulation: SimGrid set-up, one actor per rank, the adaptation loop
 * (update loads, balance, check, compute) and the gathering of results. */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <simgrid/actor.h>
#include <simgrid/engine.h>
#include <simgrid/host.h>
#include <simgrid/mailbox.h>
#include <xbt/log.h>
#include <xbt/sysdep.h>

#include "core/background.h"
#include "core/core.h"
#include "core/huge-pages.h"
#include "core/placement.h"
#include "core/platform-check.h"
#include "core/record.h"
#include "core/stack.h"
#include "core/traffic.h"
#include "metrics/metrics.h"

XBT_LOG_NEW_CATEGORY(lb, "lbsim");
XBT_LOG_NEW_DEFAULT_SUBCATEGORY(lb_core, lb, "lbsim core: engine and rank actors");

/* the quark's name is the macro's text, spaces and all */
/* clang-format off */
G_DEFINE_QUARK(lb-run-error-quark, lb_run_error)
/* clang-format on */

/* What a rank's units conserve and where they lie in the model's order;
 * with brun, also in the order its balancer keeps. */
typedef guint64 (*LbOrderKey)(const LbWork *work, const LbParams *params, guint64 id);

/* The common case, no order of the balancer's own: one pass that the
 * compiler specialises for whether the default conserved sums are taken
 * on the way (by_unit is a constant at each call). */
static inline void
digest_plain(const LbUnit *u, guint n, gboolean by_unit, LbDigest *digest)
{
  guint64 load = 0;
  LbConserved conserved = {0};
  gboolean contiguous = TRUE;
  for (guint i = 0; i < n; i++) {
    load += u[i].load;
    if (by_unit)
      lb_conserve_unit(&conserved, u + i);
    contiguous &= i == 0 || u[i].id == u[i - 1].id + 1;
  }
  digest->load = load;
  digest->contiguous = contiguous;
  if (n > 0) {
    digest->first_id = u[0].id;
    digest->last_id = u[n - 1].id;
  }
  if (by_unit)
    digest->conserved = conserved;
}

/* keys[0 .. n): the balancer's order keys of units[0 .. n) */
static void
order_keys(const LbBalancer *b, const LbWork *work, const LbParams *params, const LbUnit *units,
           gsize n, guint64 *keys)
{
  if (b->order_keys != NULL) {
    b->order_keys(work, params, units, n, keys);
    return;
  }
  for (gsize i = 0; i < n; i++)
    keys[i] = b->order_key != NULL ? b->order_key(work, params, units[i].id) : units[i].id;
}

#define KEY_BATCH 512

static void
digest_units(const LbWork *work, const LbBalancerRun *brun, const GArray *units, LbDigest *digest)
{
  memset(digest, 0, sizeof *digest);
  digest->contiguous = TRUE;
  const LbUnit *u = (const LbUnit *)units->data;
  /* what the units conserve: the default's in the pass below */
  gboolean by_unit = lb_work_conserves_units(work);
  if (!by_unit)
    lb_work_conserve(work, u, units->len, &digest->conserved);
  /* a balancer's own order: the range property on its keys, and for one
   * that keeps its order, the positions are its keys */
  LbOrderKey key = brun != NULL ? brun->balancer->order_key : NULL;
  if (key == NULL) {
    if (by_unit)
      digest_plain(u, units->len, TRUE, digest);
    else
      digest_plain(u, units->len, FALSE, digest);
    return;
  }
  gboolean keyed = brun->balancer->keeps_order;
  digest->key_min = G_MAXUINT64;
  guint64 keys[KEY_BATCH];
  for (guint i = 0; i < units->len; i++) {
    digest->load += u[i].load;
    if (by_unit)
      lb_conserve_unit(&digest->conserved, u + i);
    if (i % KEY_BATCH == 0)
      order_keys(brun->balancer, work, brun->params, u + i, MIN(units->len - i, KEY_BATCH), keys);
    guint64 k = keys[i % KEY_BATCH];
    digest->key_min = MIN(digest->key_min, k);
    digest->key_max = MAX(digest->key_max, k);
    guint64 at = keyed ? k : u[i].id;
    if (i == 0)
      digest->first_id = at;
    else if (at != digest->last_id + 1)
      digest->contiguous = FALSE;
    digest->last_id = at;
  }
}

typedef struct {
  guint64 key;
  guint owner;
} KeyOwner;

static int
compare_key_owner(gconstpointer a, gconstpointer b)
{
  const KeyOwner *x = a, *y = b;
  return x->key < y->key ? -1 : x->key > y->key;
}

/* The units out of the order a balancer keeps: all of them less the
 * longest run, along the order, whose owners never decrease (those can
 * stay; the rest must move for the ranks to hold contiguous runs in rank
 * order). Rank 0 reads every rank's units: the others wait at the
 * barrier. */
static guint64
order_breaks(const LbCoreRun *run)
{
  const LbBalancer *b = run->brun->balancer;
  g_autoptr(GArray) all = g_array_new(FALSE, FALSE, sizeof(KeyOwner));
  guint64 keys[KEY_BATCH];
  for (guint r = 0; r < run->ranks; r++) {
    const GArray *units = run->rank[r].units;
    const LbUnit *u = (const LbUnit *)units->data;
    for (guint i = 0; i < units->len; i++) {
      if (i % KEY_BATCH == 0)
        order_keys(b, run->work, run->brun->params, u + i, MIN(units->len - i, KEY_BATCH), keys);
      KeyOwner k = {keys[i % KEY_BATCH], r};
      g_array_append_val(all, k);
    }
  }
  g_array_sort(all, compare_key_owner);
  /* patience: tail[j] is the least last owner of a non-decreasing run of
   * length j + 1 */
  g_autofree guint *tail = g_new(guint, MAX(all->len, 1));
  guint longest = 0;
  for (guint i = 0; i < all->len; i++) {
    guint owner = g_array_index(all, KeyOwner, i).owner, lo = 0, hi = longest;
    while (lo < hi) {
      guint mid = lo + (hi - lo) / 2;
      if (tail[mid] <= owner)
        lo = mid + 1;
      else
        hi = mid;
    }
    tail[lo] = owner;
    longest = MAX(longest, lo + 1);
  }
  return all->len - longest;
}

/* Rank 0, once every rank has finished balancing: did the step keep what
 * the units held just before it, and the order where the balancer promises
 * it? */
static void
check_step(LbCoreRun *run, guint adaptation)
{
  if (run->failure != NULL)
    return;
  LbConserved after = {0}, before = {0};
  const LbConserved *held = lb_conserved_before(run, adaptation);
  for (guint r = 0; r < run->ranks; r++) {
    after.count += run->digests[r].conserved.count;
    after.load += run->digests[r].conserved.load;
    after.checksum += run->digests[r].conserved.checksum;
    before.count += held[r].count;
    before.load += held[r].load;
    before.checksum += held[r].checksum;
  }
  if (after.count != before.count || after.checksum != before.checksum ||
      after.load != before.load) {
    run->failure =
        g_strdup_printf("conservation violated by '%s' at adaptation step %u: %" G_GUINT64_FORMAT
                        " units (expected %" G_GUINT64_FORMAT "), total load %" G_GUINT64_FORMAT
                        " (expected %" G_GUINT64_FORMAT "), id checksum %016" G_GINT64_MODIFIER
                        "x (expected %016" G_GINT64_MODIFIER "x)",
                        run->brun->balancer->name, adaptation, after.count, before.count,
                        after.load, before.load, after.checksum, before.checksum);
    return;
  }
  if (run->brun->balancer->owns_compute) {
    LbConserved done = {0};
    for (guint r = 0; r < run->ranks; r++) {
      done.count += run->rank[r].executed.count;
      done.load += run->rank[r].executed.load;
      done.checksum += run->rank[r].executed.checksum;
    }
    if (done.count != before.count || done.checksum != before.checksum ||
        done.load != before.load) {
      run->failure = g_strdup_printf(
          "'%s' at adaptation step %u computed %" G_GUINT64_FORMAT
          " units (expected each of %" G_GUINT64_FORMAT " once), total load %" G_GUINT64_FORMAT
          " (expected %" G_GUINT64_FORMAT "), id checksum %016" G_GINT64_MODIFIER
          "x (expected %016" G_GINT64_MODIFIER "x)",
          run->brun->balancer->name, adaptation, done.count, before.count, done.load, before.load,
          done.checksum, before.checksum);
      return;
    }
  }
  if (run->order_breaks_def >= 0) {
    /* a rule that may break the order: count, do not fail */
    *lb_adaptation_metric(run, adaptation, (guint)run->order_breaks_def) = order_breaks(run);
    return;
  }
  if (run->brun->balancer->order_key != NULL) {
    /* the range property: each rank's units are the keys from its least to
     * its greatest, since no other rank's key falls in between (units
     * are conserved, so every unit is on exactly one rank) */
    gboolean any = FALSE;
    guint64 last_max = 0;
    guint last = 0;
    for (guint r = 0; r < run->ranks; r++) {
      const LbDigest *d = &run->digests[r];
      if (d->conserved.count == 0)
        continue;
      if (any && d->key_min <= last_max) {
        run->failure = g_strdup_printf(
            "range property violated by '%s' at adaptation step %u: rank %u's segment starts at "
            "key %" G_GUINT64_FORMAT ", not after rank %u's, which ends at %" G_GUINT64_FORMAT,
            run->brun->balancer->name, adaptation, r, d->key_min, last, last_max);
        return;
      }
      any = TRUE;
      last_max = d->key_max;
      last = r;
    }
  }
  if (!run->brun->balancer->keeps_order)
    return;
  guint64 next = 0;
  for (guint r = 0; r < run->ranks; r++) {
    const LbDigest *d = &run->digests[r];
    if (d->conserved.count == 0)
      continue;
    if (!d->contiguous || d->first_id != next) {
      run->failure = g_strdup_printf(
          "order violated by '%s' at adaptation step %u: rank %u holds ids %" G_GUINT64_FORMAT
          " .. %" G_GUINT64_FORMAT "%s, expected to start at %" G_GUINT64_FORMAT,
          run->brun->balancer->name, adaptation, r, d->first_id, d->last_id,
          d->contiguous ? "" : " with gaps", next);
      return;
    }
    next = d->last_id + 1;
  }
}

static int
compare_guint(gconstpointer a, gconstpointer b)
{
  guint x = *(const guint *)a, y = *(const guint *)b;
  return x < y ? -1 : x > y;
}

/* The application's ghost exchange: every rank sends every rank whose units
 * touch its own the shared boundary x ghost-depth x bytes-per-unit, then
 * receives as much from each. Who owns what is the application's own
 * knowledge of its partition, not the balancer's. */
void
lb_rank_set_neighbours(LbRank *self, const LbNeighbour *neighbours, guint n)
{
  if (self->graph == NULL)
    self->graph = g_array_new(FALSE, FALSE, sizeof(LbNeighbour));
  g_array_set_size(self->graph, 0);
  g_array_append_vals(self->graph, neighbours, n);
  for (guint i = 1; i < n; i++)
    g_return_if_fail(neighbours[i - 1].rank < neighbours[i].rank);
}

/* The ranks whose cells touch this rank's, with the faces they share, in
 * rank order: from the owner of every cell. */
static void
cell_neighbours(const LbWork *work, const guint32 *owner, guint r, const GArray *units,
                guint64 *counts, GArray *out)
{
  g_autoptr(GArray) touched = g_array_new(FALSE, FALSE, sizeof(guint));
  work->model->boundary(work, owner, r, (const LbUnit *)units->data, units->len, counts, touched);
  g_array_sort(touched, compare_guint);
  g_array_set_size(out, 0);
  for (guint i = 0; i < touched->len; i++) {
    guint q = g_array_index(touched, guint, i);
    LbNeighbour n = {q, counts[q]};
    g_array_append_val(out, n);
    counts[q] = 0;
  }
}

/* A model's whole application step (a grid hierarchy's boundary
 * exchange, grid by grid): its messages go out in order, as many come back
 * from each rank, its local copies take their bytes at the copy bandwidth.
 * Returns the flops to compute beyond the units' loads. */
static double
exchange_step(LbRank *self, const LbAppStep *step)
{
  LbCoreRun *run = self->run;
  double *messages =
      lb_adaptation_metric(run, self->adaptation, run->first_app_def + LB_APP_GHOST_MESSAGES);
  double *bytes =
      lb_adaptation_metric(run, self->adaptation, run->first_app_def + LB_APP_GHOST_BYTES);
  const LbAppMessage *m = (const LbAppMessage *)step->messages->data;
  for (guint i = 0; i < step->messages->len; i++) {
    guint8 token = 0;
    lb_core_send(self, (int)m[i].rank, LB_TAG_GHOST, &token, 1, m[i].bytes);
    *messages += 1;
    *bytes += m[i].bytes;
  }
  for (guint i = 0; i < step->receives; i++)
    lb_msg_free(lb_core_recv(self, LB_ANY_SOURCE, LB_TAG_GHOST));
  if (step->copy_bytes > 0 && step->copy_bandwidth > 0)
    sg_actor_sleep_for(step->copy_bytes / step->copy_bandwidth);
  lb_wait_sends(self);
  return step->flops;
}

/* The application's ghost exchange: every neighbour gets the faces it
 * shares with this rank x ghost-depth x bytes-per-unit, then as much comes
 * back from each. The neighbours are the balancer's graph when it built
 * one, else the ranks whose cells touch this rank's: the application's own
 * knowledge of its partition; or a model's own step (app_step). Returns
 * the flops to compute beyond the units' loads. */
static double
exchange_ghosts(LbRank *self)
{
  LbCoreRun *run = self->run;
  const LbWork *work = run->work;
  g_autoptr(GArray) found = NULL;
  const GArray *graph = self->graph;
  if (graph == NULL && work->model->app_step != NULL) {
    g_autoptr(GArray) sends = g_array_new(FALSE, FALSE, sizeof(LbAppMessage));
    LbAppStep step = {sends, 0, 0, 0, 0};
    if (work->model->app_step(work, (guint)self->id, (const LbUnit *)self->units->data,
                              self->units->len, &step))
      return exchange_step(self, &step);
  }
  if (work->ghost_depth == 0)
    return 0;
  if (graph == NULL) {
    found = g_array_new(FALSE, FALSE, sizeof(LbNeighbour));
    if (work->model->neighbours != NULL)
      work->model->neighbours(work, (guint)self->id, (const LbUnit *)self->units->data,
                              self->units->len, found);
    else {
      /* Actors do not interleave between blocking calls: the scratch
       * counts are one rank's at a time. */
      g_assert(run->owner != NULL); /* a balancer that sets_neighbours set none */
      cell_neighbours(work, run->owner, (guint)self->id, self->units, run->ghost_counts, found);
    }
    graph = found;
  }
  const LbNeighbour *n = (const LbNeighbour *)graph->data;
  double *messages =
      lb_adaptation_metric(run, self->adaptation, run->first_app_def + LB_APP_GHOST_MESSAGES);
  double *bytes =
      lb_adaptation_metric(run, self->adaptation, run->first_app_def + LB_APP_GHOST_BYTES);
  /* in rank order, so that the messages go out in the same order every run */
  for (guint i = 0; i < graph->len; i++) {
    double size = (double)n[i].faces * work->ghost_depth * work->bytes_per_unit;
    guint8 token = 0;
    lb_core_send(self, (int)n[i].rank, LB_TAG_GHOST, &token, 1, size);
    *messages += 1;
    *bytes += size;
  }
  for (guint i = 0; i < graph->len; i++)
    lb_msg_free(lb_core_recv(self, (int)n[i].rank, LB_TAG_GHOST));
  lb_wait_sends(self);
  return 0;
}

static void
note_owner(LbRank *self)
{
  guint32 *owner = self->run->owner;
  const LbUnit *u = (const LbUnit *)self->units->data;
  for (guint i = 0; i < self->units->len; i++)
    owner[u[i].id] = (guint32)self->id;
}

static void
application(LbRank *self, gpointer state)
{
  LbCoreRun *run = self->run;
  guint a = self->adaptation;
  double start = lb_now(), extra = 0;
  lb_trace_paje_state(self, LB_PAJE_APPLICATION);
  self->app_flops = 0;
  self->app_compute_time = 0;
  if (run->brun->balancer->collect != NULL) {
    guint64 messages = self->sent_messages;
    double bytes = self->sent_bytes;
    run->brun->balancer->collect(self, state);
    lb_wait_sends(self);
    *lb_adaptation_metric(run, a, run->first_app_def + LB_APP_GHOST_MESSAGES) +=
        (double)(self->sent_messages - messages);
    *lb_adaptation_metric(run, a, run->first_app_def + LB_APP_GHOST_BYTES) +=
        self->sent_bytes - bytes;
    /* what the collect computed between its exchanges is computation */
    double *ghost = lb_adaptation_metric(run, a, run->first_app_def + LB_APP_GHOST_TIME);
    *ghost = MAX(*ghost, lb_now() - start - self->app_compute_time);
  } else if (lb_work_has_ghosts(run->work)) {
    extra = exchange_ghosts(self);
    double *ghost = lb_adaptation_metric(run, a, run->first_app_def + LB_APP_GHOST_TIME);
    *ghost = MAX(*ghost, lb_now() - start);
  }
  if (!run->brun->balancer->owns_compute) {
    double compute_start = lb_now();
    /* the rank's work less what its collect computed already (rounding
     * left over from splitting it is not work) */
    double flops = lb_work_flops(run->work, run->load_after[self->id]) + extra;
    if (flops - self->app_flops > 1e-9 * flops)
      lb_execute(self, flops - self->app_flops);
    double *compute = lb_adaptation_metric(run, a, run->first_app_def + LB_APP_COMPUTE_TIME);
    *compute = MAX(*compute, lb_now() - compute_start + self->app_compute_time);
  }
  run->app_max[a] = MAX(run->app_max[a], lb_now() - start);
}

static void
rank_main(int argc, char *argv[])
{
  LbRank *self = sg_actor_self_get_data();
  LbCoreRun *run = self->run;
  const LbBalancer *balancer = run->brun->balancer;
  gpointer state = balancer->state_new != NULL ? balancer->state_new(self) : NULL;

  for (guint a = 0; a < run->nadaptations; a++) {
    self->adaptation = a;
    self->narrate_stage = 0;
    lb_trace_paje_state(self, LB_PAJE_SYNC);
    /* A model that rebuilds what every rank shares (a grid hierarchy)
     * does so once all ranks are done with the last step: regridding is
     * collective. */
    if (run->work->model->update != NULL && a > 0)
      lb_barrier(self);
    lb_work_update(run->work, (guint)self->id, self->units, a);
    LbDigest before;
    digest_units(run->work, NULL, self->units, &before);
    lb_conserved_before(run, a)[self->id] = before.conserved;
    /* the grids as the last step's balancing finds them (rebuilt at the
     * first rank's update), for the pictures */
    if (a + 1 == run->nadaptations && run->options->keep_before &&
        run->work->model->grids != NULL && run->grids_before == NULL) {
      run->grids_before = g_array_new(FALSE, FALSE, sizeof(LbGridPart));
      run->work->model->grids(run->work, run->grids_before);
    }
    /* every rank's units as the last step's balancing finds them, for the
     * picture of the curve through a tree's leaves */
    if (a + 1 == run->nadaptations && run->units_before != NULL)
      run->units_before[self->id] = g_array_copy(self->units);
    lb_loads_before(run, a)[self->id] = before.load;
    if (run->loads_at_start != NULL)
      run->loads_at_start[(gsize)a * run->ranks + (guint)self->id] = before.load;
    if (run->units_at_start != NULL)
      run->units_at_start->pdata[a * run->ranks + (guint)self->id] = g_array_copy(self->units);
    lb_barrier(self);
    if (run->failure != NULL)
      break;

    double start = lb_now();
    g_clear_pointer(&self->graph, g_array_unref);
    self->executed = (LbConserved){0};
    lb_trace_paje_state(self, LB_PAJE_BALANCE);
    balancer->balance(self, state);
    lb_wait_sends(self);
    lb_rank_flush_phase(self);
    lb_trace_paje_state(self, LB_PAJE_SYNC);
    run->balance_max[a] = MAX(run->balance_max[a], lb_now() - start);
    digest_units(run->work, run->brun, self->units, &run->digests[self->id]);
    run->load_after[self->id] = run->digests[self->id].load;
    if (balancer->owns_compute) {
      /* the work, not the data: what each rank computed this step */
      run->owned_after[self->id] = run->digests[self->id].load;
      run->load_after[self->id] = self->executed.load;
    }
    if (run->owner != NULL)
      note_owner(self);

    lb_barrier(self);
    if (self->id == 0) {
      check_step(run, a);
      lb_record_step(run, a);
      XBT_VERB("adaptation step %u: imbalance %.4f -> %.4f", a,
               run->adaptation_results[a].imbalance_before,
               run->adaptation_results[a].imbalance_after);
      if (run->options->progress && run->nadaptations > 1)
        g_printerr("\r\033[K  %s: adaptation step %u/%u%s", balancer->name, a + 1,
                   run->nadaptations, a + 1 == run->nadaptations ? "\n" : "");
    }
    application(self, state);
  }
  lb_trace_paje_state(self, LB_PAJE_SYNC);
  lb_barrier(self);
  if (balancer->state_free != NULL)
    balancer->state_free(state);
  run->finished++;
}

/* After the run: the owner of every unit id, read from all ranks' units
 * (reports may read all of memory). */
static guint32 *
final_owner(const LbCoreRun *run)
{
  guint32 *owner = g_new(guint32, lb_work_total_units(run->work));
  for (guint r = 0; r < run->ranks; r++) {
    const GArray *units = run->rank[r].units;
    for (guint i = 0; i < units->len; i++)
      owner[g_array_index(units, LbUnit, i).id] = r;
  }
  return owner;
}

static gboolean
neighbours_equal(const GArray *a, const GArray *b)
{
  if (a->len != b->len)
    return FALSE;
  for (guint i = 0; i < a->len; i++) {
    const LbNeighbour *x = &g_array_index(a, LbNeighbour, i),
                      *y = &g_array_index(b, LbNeighbour, i);
    if (x->rank != y->rank || x->faces != y->faces)
      return FALSE;
  }
  return TRUE;
}

/* The first neighbour the two lists disagree on. */
static char *
describe_difference(const GArray *built, const GArray *cells)
{
  const LbNeighbour *x = (const LbNeighbour *)built->data, *y = (const LbNeighbour *)cells->data;
  guint i = 0, j = 0;
  while (i < built->len && j < cells->len && x[i].rank == y[j].rank && x[i].faces == y[j].faces)
    i++, j++;
  if (i < built->len && (j == cells->len || x[i].rank < y[j].rank))
    return g_strdup_printf("rank %u is in the graph but shares no cell face", x[i].rank);
  if (j < cells->len && (i == built->len || y[j].rank < x[i].rank))
    return g_strdup_printf("rank %u shares %" G_GUINT64_FORMAT
                           " cell faces but is not in the graph",
                           y[j].rank, y[j].faces);
  return g_strdup_printf("rank %u: %" G_GUINT64_FORMAT " faces in the graph, %" G_GUINT64_FORMAT
                         " shared",
                         x[i].rank, x[i].faces, y[j].faces);
}

/* Every rank's box, load and neighbours after the run; a message if a
 * balancer's neighbour graph is not the cells' adjacency. */
static char *
describe_partition(const LbCoreRun *run, const guint32 *owner, LbRunResult *result)
{
  const LbWork *work = run->work;
  guint p = run->ranks;
  g_autofree guint64 *counts = g_new0(guint64, p);
  g_autoptr(GArray) touched = g_array_new(FALSE, FALSE, sizeof(LbNeighbour));
  result->dim = work->dim;
  result->partition = g_new0(LbRankPart, p);
  guint64 stride[3] = {1, work->size[0], work->size[0] * work->size[1]};
  for (guint r = 0; r < p; r++) {
    LbRankPart *part = &result->partition[r];
    const GArray *units = run->rank[r].units;
    for (guint a = 0; a < work->dim; a++)
      part->lo[a] = units->len > 0 ? G_MAXUINT64 : 0;
    for (guint i = 0; i < units->len; i++) {
      const LbUnit *u = &g_array_index(units, LbUnit, i);
      part->load += u->load;
      for (guint a = 0; a < work->dim; a++) {
        guint64 x = (u->id / stride[a]) % work->size[a];
        part->lo[a] = MIN(part->lo[a], x);
        part->hi[a] = MAX(part->hi[a], x + 1);
      }
    }
    if (work->model->boundary == NULL)
      continue;
    cell_neighbours(work, owner, r, units, counts, touched);
    part->nneighbours = touched->len;
    part->neighbours = g_new(guint, MAX(touched->len, 1));
    for (guint i = 0; i < touched->len; i++)
      part->neighbours[i] = g_array_index(touched, LbNeighbour, i).rank;
    const GArray *graph = run->rank[r].graph;
    if (graph != NULL && !neighbours_equal(graph, touched))
      return g_strdup_printf("the neighbour graph '%s' built differs from the cells' adjacency "
                             "at rank %u: %s",
                             run->brun->balancer->name, r, describe_difference(graph, touched));
  }
  return NULL;
}

static guint64
peak_rss_kib(void)
{
  g_autofree char *status = NULL;
  if (!g_file_get_contents("/proc/self/status", &status, NULL, NULL))
    return 0;
  const char *line = strstr(status, "VmHWM:");
  return line != NULL ? g_ascii_strtoull(line + 6, NULL, 10) : 0;
}

static void
init_simgrid(const LbScenario *scenario, const LbRunOptions *options)
{
  g_autoptr(GPtrArray) args = g_ptr_array_new_with_free_func(g_free);
  g_ptr_array_add(args, g_strdup("lbsim"));
  /* core/stack.h says why the stacks lose their guard pages and shrink */
  gboolean many = scenario->ranks > LB_GUARD_PAGES_MAX_RANKS;
  g_ptr_array_add(args, g_strdup_printf("--cfg=contexts/stack-size:%d",
                                        many ? LB_SMALL_STACK_KIB : LB_STACK_KIB));
  if (many)
    g_ptr_array_add(args, g_strdup("--cfg=contexts/guard-size:0"));
  if (options->paje_trace != NULL) {
    g_ptr_array_add(args, g_strdup("--cfg=tracing:yes"));
    g_ptr_array_add(args, g_strdup_printf("--cfg=tracing/filename:%s", options->paje_trace));
    /* lean unless asked: the links' bandwidth in use is most of the
     * events, and their bandwidth and latency a variable each */
    g_ptr_array_add(args, g_strdup_printf("--cfg=tracing/uncategorized:%s",
                                          options->paje_links ? "yes" : "no"));
    g_ptr_array_add(
        args, g_strdup_printf("--cfg=tracing/disable_link:%s", options->paje_links ? "no" : "yes"));
    g_ptr_array_add(args, g_strdup("--cfg=tracing/platform:yes"));
    g_ptr_array_add(args, g_strdup("--cfg=tracing/platform/topology:no"));
    g_ptr_array_add(args, g_strdup("--cfg=tracing/precision:9"));
  }
  for (guint i = 0; options->cfg != NULL && options->cfg[i] != NULL; i++)
    g_ptr_array_add(args, g_strdup_printf("--cfg=%s", options->cfg[i]));
  for (guint i = 0; options->log != NULL && options->log[i] != NULL; i++)
    g_ptr_array_add(args, g_strdup_printf("--log=%s", options->log[i]));
  if (!options->verbose)
    xbt_log_control_set("root.thres:warning");
  else
    xbt_log_control_set("lb.thres:verbose");
  int argc = (int)args->len;
  g_ptr_array_add(args, NULL);
  /* SimGrid keeps pointers into argv: leak the vector on purpose. */
  char **argv = (char **)g_ptr_array_free(g_steal_pointer(&args), FALSE);
  simgrid_init(&argc, argv);
}

static void
free_rank(LbRank *rank)
{
  g_clear_pointer(&rank->units, g_array_unref);
  g_clear_pointer(&rank->graph, g_array_unref);
  lb_rank_clear_stash(rank);
  lb_sends_clear(&rank->sends);
  g_clear_pointer(&rank->narrate_label, g_free);
  g_clear_pointer(&rank->narrate_labels, g_free);
}

static void
free_core_run(LbCoreRun *run)
{
  lb_huge_pages_release(run->huge_pages_held);
  for (guint r = 0; r < run->ranks && run->rank != NULL; r++)
    free_rank(&run->rank[r]);
  g_free(run->rank);
  g_free(run->mailboxes);
  g_free(run->phase_totals);
  g_free(run->adaptation_results);
  g_free(run->balance_max);
  g_free(run->app_max);
  g_free(run->load_before);
  g_free(run->load_after);
  g_free(run->owned_after);
  g_free(run->conserved_before);
  g_free(run->digests);
  g_free(run->owner);
  g_free(run->ghost_counts);
  g_free(run->machine_offsets);
  g_free(run->machine_adj);
  g_free(run->adaptation_metrics);
  g_clear_pointer(&run->metric_defs, g_array_unref);
  if (run->trace != NULL)
    fclose(run->trace);
  if (run->paje_messages != NULL)
    g_array_unref(run->paje_messages);
  g_clear_pointer(&run->paje_counts, g_hash_table_unref);
  g_clear_pointer(&run->transfers, g_array_unref);
  g_clear_pointer(&run->events, g_array_unref);
  g_clear_pointer(&run->grids_before, g_array_unref);
  for (guint r = 0; r < run->ranks && run->units_before != NULL; r++)
    g_clear_pointer(&run->units_before[r], g_array_unref);
  g_free(run->units_before);
  g_clear_pointer(&run->narration, g_ptr_array_unref);
  g_clear_pointer(&run->chunks, g_array_unref);
  g_clear_pointer(&run->sent, g_array_unref);
  g_free(run->loads_at_start);
  g_clear_pointer(&run->units_at_start, g_ptr_array_unref);
  g_clear_pointer(&run->stage_names, g_ptr_array_unref);
  g_free(run->failure);
  g_free(run);
}

G_DEFINE_AUTOPTR_CLEANUP_FUNC(LbCoreRun, free_core_run)

static void
set_stage(const LbRunOptions *options, const char *stage)
{
  if (options->stage_file != NULL)
    g_file_set_contents(options->stage_file, stage, -1, NULL);
}

/* SimGrid rejects a bad setting or platform by aborting the process: until
 * the simulation starts its messages go to STAGE_FILE.log, for the runner to
 * quote in one line, and are copied to stderr if all went well. */
static int
capture_stderr(const LbRunOptions *options)
{
  if (options->stage_file == NULL)
    return -1;
  g_autofree char *path = g_strconcat(options->stage_file, ".log", NULL);
  int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
  if (fd < 0)
    return -1;
  fflush(stderr);
  int saved = dup(STDERR_FILENO);
  if (saved >= 0)
    dup2(fd, STDERR_FILENO);
  close(fd);
  return saved;
}

/* Back to the real stderr, the log kept for the runner to quote: a set-up
 * that failed ends the run, and what comes after it (a sanitizer's notes
 * on the last actor switches) is not for the user. */
static void
restore_stderr(int saved)
{
  if (saved < 0)
    return;
  fflush(stderr);
  dup2(saved, STDERR_FILENO);
  close(saved);
}

static void
release_stderr(const LbRunOptions *options, int saved)
{
  if (saved < 0)
    return;
  fflush(stderr);
  dup2(saved, STDERR_FILENO);
  close(saved);
  g_autofree char *path = g_strconcat(options->stage_file, ".log", NULL);
  g_autofree char *text = NULL;
  gsize len = 0;
  if (g_file_get_contents(path, &text, &len, NULL))
    fwrite(text, 1, len, stderr);
}

/* The caller's hook, once every rank has passed the last barrier (the
 * units are where the last balancing step left them). */
static gboolean
call_at_end(const LbCoreRun *run, const guint32 *owner, GError **error)
{
  g_autofree const GArray **after = g_new(const GArray *, run->ranks);
  for (guint r = 0; r < run->ranks; r++)
    after[r] = run->rank[r].units;
  guint last = run->nadaptations - 1;
  LbRunEnd end = {
      .scenario = run->scenario,
      .brun = run->brun,
      .work = run->work,
      .ranks = run->ranks,
      .nadaptations = run->nadaptations,
      .imbalance_before = run->adaptation_results[last].imbalance_before,
      .imbalance_after = run->adaptation_results[last].imbalance_after,
      .rank_load = run->load_after,
      .rank_load_before = lb_loads_before((LbCoreRun *)run, last),
      .owner = owner,
      .units = (const GArray *const *)after,
      .units_before = (const GArray *const *)run->units_before,
      .grids_before = run->grids_before,
      .chunks = run->options->keep_chunks ? run->chunks : NULL,
  };
  g_autoptr(GError) local = NULL;
  if (run->options->at_end(&end, run->options->at_end_data, &local))
    return TRUE;
  g_set_error_literal(error, LB_RUN_ERROR, LB_RUN_ERROR_AT_END, local->message);
  return FALSE;
}

/* SimGrid works a platform's routes out when it seals it, as the
 * simulation starts: until then some zones (Vivaldi, a cluster inside a
 * zone, bypass routes) have none to look up. An actor alone at time 0
 * places the ranks and checks their hosts, and only then starts them. */
typedef struct {
  LbCoreRun *run; /* run->rank NULL: a check alone */
  int saved_stderr;
  char *placement;
  GError *error;
} SetUp;

static void
set_up_clear(SetUp *setup)
{
  g_free(setup->placement);
  g_clear_error(&setup->error);
}

G_DEFINE_AUTO_CLEANUP_CLEAR_FUNC(SetUp, set_up_clear)

static void
start_ranks(LbCoreRun *run, const sg_host_t *hosts, const char *placement, const sg_host_t *traffic,
            guint nflows)
{
  const LbScenario *sc = run->scenario;
  if (run->trace != NULL) {
    /* A replay cannot work out the cost order or the draw: it gets the hosts. */
    fprintf(run->trace, "# lbsim-message-trace 1 ranks=%u platform=%s placement=%.*s", run->ranks,
            sc->platform, (int)strcspn(placement, " "), placement);
    gboolean listed = sc->placement == LB_PLACEMENT_COST || sc->placement == LB_PLACEMENT_QUEUE;
    for (guint r = 0; listed && r < run->ranks; r++)
      fprintf(run->trace, "%s%s", r == 0 ? " hosts=" : ",", sg_host_get_name(hosts[r]));
    fputc('\n', run->trace);
  }
  gboolean held = !run->huge_pages_held && lb_huge_pages_hold();
  gboolean unzeroed = lb_stacks_unzeroed_begin();
  for (guint r = 0; r < run->ranks; r++) {
    LbRank *rank = &run->rank[r];
    rank->host = hosts[r];
    char name[32];
    g_snprintf(name, sizeof name, "rank-%u", r);
    sg_actor_t actor = sg_actor_init(name, hosts[r]);
    sg_actor_set_data(actor, rank);
    sg_actor_start(actor, rank_main, 0, NULL);
  }
  lb_stacks_unzeroed_end(unzeroed);
  lb_huge_pages_release(held);
  lb_background_start(sc);
  lb_traffic_start(traffic, nflows);
}

static void
set_up_main(int argc, char *argv[])
{
  SetUp *setup = sg_actor_self_get_data();
  LbCoreRun *run = setup->run;
  g_autofree sg_host_t *hosts = NULL;
  g_autofree sg_host_t *traffic = NULL;
  guint nflows = 0;
  gboolean placed = lb_place_ranks(run->scenario, &hosts, &setup->placement, &setup->error) &&
                    lb_platform_check_hosts(run->scenario, hosts, &setup->error) &&
                    lb_background_check(run->scenario, &setup->error) &&
                    lb_traffic_hosts(run->scenario, hosts, &traffic, &nflows, &setup->error);
  if (placed) {
    release_stderr(run->options, setup->saved_stderr);
    setup->saved_stderr = -1;
  }
  set_stage(run->options, "simulation");
  if (placed && run->options->at_start != NULL)
    run->options->at_start(run->options->at_start_data);
  if (placed && run->rank != NULL)
    start_ranks(run, hosts, setup->placement, traffic, nflows);
}

/* Starts SimGrid with the run's settings and platform, and the set-up
 * actor, which runs when simgrid_run() is called. */
static void
load_platform(SetUp *setup)
{
  const LbScenario *sc = setup->run->scenario;
  const LbRunOptions *options = setup->run->options;
  set_stage(options, "settings");
  init_simgrid(sc, options);
  set_stage(options, "platform");
  simgrid_load_platform(sc->platform);
  set_stage(options, "routes");
  /* no host to start the actor on */
  if (sg_host_count() == 0) {
    g_set_error(&setup->error, LB_RUN_ERROR, LB_RUN_ERROR_INPUT,
                "%s: [scenario] platform: %s has no host", sc->file, sc->platform);
    release_stderr(options, setup->saved_stderr);
    setup->saved_stderr = -1;
    set_stage(options, "simulation");
    return;
  }
  sg_host_t *all = sg_host_list();
  sg_actor_t actor = sg_actor_init("lbsim-set-up", all[0]);
  xbt_free(all);
  sg_actor_set_data(actor, setup);
  sg_actor_start(actor, set_up_main, 0, NULL);
}

gboolean
lb_run_check_platform(const LbScenario *scenario, const LbRunOptions *options, GError **error)
{
  LbCoreRun run = {.scenario = scenario, .options = options, .ranks = scenario->ranks};
  g_auto(SetUp) setup = {.run = &run, .saved_stderr = capture_stderr(options)};
  load_platform(&setup);
  simgrid_run();
  restore_stderr(setup.saved_stderr);
  if (setup.error == NULL)
    return TRUE;
  g_propagate_error(error, g_steal_pointer(&setup.error));
  return FALSE;
}

LbRunResult *
lb_run_simulate(const LbScenario *scenario, guint index, const LbRunOptions *options,
                GError **error)
{
  g_return_val_if_fail(index < scenario->runs->len, NULL);
  gint64 wall_start = g_get_monotonic_time();
  const LbBalancerRun *brun = scenario->runs->pdata[index];

  if (brun->balancer->check != NULL &&
      !brun->balancer->check(scenario->ranks, brun->work, brun->params, error))
    return NULL;

  g_autoptr(LbCoreRun) run = g_new0(LbCoreRun, 1);
  run->scenario = scenario;
  run->brun = brun;
  run->options = options;
  run->ranks = scenario->ranks;
  run->nadaptations = scenario->nadaptations;
  run->nphases = lb_balancer_phase_count(brun->balancer);
  run->work = brun->work;
  run->start = lb_scenario_start(scenario, brun->balancer);
  run->metric_defs = lb_balancer_metric_defs(brun->balancer);
  run->ndefs = run->metric_defs->len;
  /* declared metrics, then four per phase, then the application's */
  run->first_app_def = run->ndefs - LB_APP_METRICS;
  run->first_phase_def = run->first_app_def - 4 * run->nphases;
  run->order_breaks_def = -1;
  run->data_imbalance_def =
      brun->balancer->owns_compute ? lb_metric_defs_find(run->metric_defs, "data-imbalance") : -1;
  if (brun->balancer->breaks_order != NULL && brun->balancer->breaks_order(brun->params)) {
    run->order_breaks_def = lb_metric_defs_find(run->metric_defs, "order-breaks");
    g_return_val_if_fail(run->order_breaks_def >= 0, NULL); /* the hook needs the metric */
  }

  if (options->message_trace != NULL) {
    run->trace = fopen(options->message_trace, "w");
    if (run->trace != NULL)
      setvbuf(run->trace, NULL, _IOFBF, 1 << 20);
    if (run->trace == NULL) {
      g_set_error(error, LB_RUN_ERROR, LB_RUN_ERROR_INPUT, "cannot write %s: %s",
                  options->message_trace, g_strerror(errno));
      return NULL;
    }
  }

  if (run->ranks < LB_HUGE_PAGES_MIN_RANKS) {
    run->huge_pages_held = lb_huge_pages_hold();
    lb_heap_keep_large_blocks();
  }
  g_auto(SetUp) setup = {.run = run, .saved_stderr = capture_stderr(options)};
  load_platform(&setup);

  lb_trace_paje_declare(run);
  guint p = run->ranks;
  run->mailboxes = g_new(sg_mailbox_t, p);
  run->rank = g_new0(LbRank, p);
  run->phase_totals = g_new0(LbPhaseTotals, (gsize)run->nadaptations * MAX(run->nphases, 1));
  run->adaptation_results = g_new0(LbAdaptationResult, run->nadaptations);
  run->balance_max = g_new0(double, run->nadaptations);
  run->app_max = g_new0(double, run->nadaptations);
  run->load_before = g_new0(guint64, 2 * (gsize)p);
  run->load_after = g_new0(guint64, p);
  if (brun->balancer->owns_compute)
    run->owned_after = g_new0(guint64, p);
  run->conserved_before = g_new0(LbConserved, 2 * (gsize)p);
  run->digests = g_new0(LbDigest, p);
  run->transfers = g_array_new(FALSE, FALSE, sizeof(LbTransfer));
  run->events = g_array_new(FALSE, FALSE, sizeof(LbEvent));
  run->narration = g_ptr_array_new_with_free_func(lb_narrated_free);
  if ((options->keep_chunks || options->narrate) && brun->balancer->owns_compute)
    run->chunks = g_array_new(FALSE, FALSE, sizeof(LbChunk));
  if (options->narrate) {
    run->sent = g_array_new(FALSE, FALSE, sizeof(LbSent));
    g_array_set_clear_func(run->sent, lb_sent_clear);
    run->loads_at_start = g_new0(guint64, (gsize)run->nadaptations * p);
    /* the hnodes every rank holds as each step starts: explain's curve */
    if (run->work->model->leaves != NULL) {
      run->units_at_start = g_ptr_array_new_with_free_func((GDestroyNotify)g_array_unref);
      g_ptr_array_set_size(run->units_at_start, (guint)(run->nadaptations * p));
    }
  }
  run->stage_names = g_ptr_array_new_with_free_func(g_free);
  run->adaptation_metrics = g_new0(double, (gsize)run->nadaptations * run->ndefs);
  if (lb_work_has_ghosts(run->work)) {
    /* the owner map of the cells' adjacency (a model with neighbours of
     * its own, whose units may split, needs none) */
    if (run->work->model->boundary != NULL && !brun->balancer->sets_neighbours)
      run->owner = g_new0(guint32, lb_work_total_units(run->work));
    run->ghost_counts = g_new0(guint64, p);
  }

  if (options->keep_before && run->work->model->leaves != NULL)
    run->units_before = g_new0(GArray *, p);
  for (guint r = 0; r < p; r++) {
    char name[32];
    g_snprintf(name, sizeof name, "rank-%u", r);
    run->mailboxes[r] = sg_mailbox_by_name(name);
  }
  for (guint r = 0; r < p; r++) {
    LbRank *rank = &run->rank[r];
    rank->run = run;
    rank->id = (int)r;
    rank->mailbox = run->mailboxes[r];
    rank->phase = -1;
    lb_sends_init(&rank->sends);
    g_queue_init(&rank->stash);
    rank->units = g_array_new(FALSE, FALSE, sizeof(LbUnit));
    lb_scenario_initial_units(scenario, brun, r, rank->units);
  }

  gint64 run_start = g_get_monotonic_time();
  simgrid_run();
  gint64 run_end = g_get_monotonic_time();
  restore_stderr(setup.saved_stderr);
  setup.saved_stderr = -1;
  if (setup.error != NULL) {
    g_propagate_error(error, g_steal_pointer(&setup.error));
    return NULL;
  }

  if (run->failure != NULL) {
    g_set_error(error, LB_RUN_ERROR, LB_RUN_ERROR_INVARIANT, "%s", run->failure);
    return NULL;
  }
  /* SimGrid ends a deadlocked simulation as if it had finished. */
  if (run->finished != run->ranks) {
    g_set_error(error, LB_RUN_ERROR, LB_RUN_ERROR_INVARIANT,
                "'%s' deadlocked: %u of %u ranks never finished (each waits for a message "
                "nobody sends)",
                brun->balancer->name, run->ranks - run->finished, run->ranks);
    return NULL;
  }
  if (!lb_trace_paje_write_messages(run, error))
    return NULL;
  /* the owner of every cell: only models whose units are cells index by id */
  g_autofree guint32 *owner =
      (options->at_end != NULL || options->detail) && brun->work->model->total_units == NULL
          ? final_owner(run)
          : NULL;
  if (options->at_end != NULL && !call_at_end(run, owner, error))
    return NULL;

  LbRunResult *result = lb_record_collect(run);
  /* boxes of cells: for models whose units are cells */
  g_autofree char *wrong = options->detail && brun->work->model->total_units == NULL
                               ? describe_partition(run, owner, result)
                               : NULL;
  if (options->detail && brun->work->model->grids != NULL) {
    result->dim = brun->work->dim;
    result->grids = g_array_new(FALSE, FALSE, sizeof(LbGridPart));
    brun->work->model->grids(brun->work, result->grids);
  }
  if (wrong != NULL) {
    lb_run_result_free(result);
    g_set_error(error, LB_RUN_ERROR, LB_RUN_ERROR_INVARIANT, "%s", wrong);
    return NULL;
  }
  result->model = g_strdup(brun->work->model->name);
  if (brun->adapter != NULL)
    result->view = g_strdup_printf("%s seen as %s", scenario->work->model->name, brun->adapter->to);
  result->start = brun->balancer->describe_start != NULL
                      ? brun->balancer->describe_start(brun->work, brun->params)
                      : lb_work_describe_start(brun->work, run->start);
  result->hosts = (guint)sg_host_count();
  result->placement = g_steal_pointer(&setup.placement);
  if (options->narrate)
    lb_machine_describe(run, &result->machine);
  result->total_time = simgrid_get_clock();
  result->simulated_messages = run->messages_all;
  result->sim_wall_seconds = (double)(run_end - run_start) / 1e6;
  result->wall_seconds = (double)(g_get_monotonic_time() - wall_start) / 1e6;
  result->peak_rss_kib = peak_rss_kib();
  return result;
}
