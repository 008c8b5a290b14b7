/* Matched point-to-point messages over one SimGrid mailbox per rank:
 * arrivals that do not match the receive in progress go to the oldest
 * outstanding request they match, or wait in a stash. */
#include <stdlib.h>
#include <string.h>
#include <simgrid/actor.h>
#include <simgrid/comm.h>
#include <simgrid/engine.h>
#include <simgrid/host.h>
#include <simgrid/mailbox.h>

#include "core/core.h"

/* Message buffers come from free lists, one per power-of-two size class,
 * kept for the whole process: millions of messages are each allocated by
 * one rank and freed by another, and through glibc they kept its bins busy
 * and fragmented for SimGrid's own small objects. A header before each
 * message carries its class and the link that puts it in a stash. Under
 * AddressSanitizer every buffer goes back to malloc, so that a use after
 * free is still caught. */
typedef struct {
  _Alignas(16) GList link; /* in the receiver's stash; next buffer of a free list */
  GList same;              /* in the stash's queue of its source and tag, when indexed */
  GDestroyNotify drop;     /* what freeing the message releases (a reference it carries) */
  gpointer drop_data;
  LbSendSlot *slot; /* its send, until the receiver takes it from the mailbox */
  guint size_class;
} MsgBlock;

G_STATIC_ASSERT(sizeof(MsgBlock) % 16 == 0);

#define MIN_CLASS_BYTES 64
#define POOL_CLASSES 15 /* 64 B .. 1 MiB of data */
#define UNPOOLED G_MAXUINT
#if defined(__SANITIZE_ADDRESS__)
#define POOLING FALSE
#else
#define POOLING TRUE
#endif

static GList *free_blocks[POOL_CLASSES];

static MsgBlock *
block_of(LbMsg *msg)
{
  return (MsgBlock *)msg - 1;
}

static guint
size_class(gsize len)
{
  guint c = 0;
  while (c < POOL_CLASSES && (gsize)MIN_CLASS_BYTES << c < len)
    c++;
  return c < POOL_CLASSES && POOLING ? c : UNPOOLED;
}

LbMsg *
lb_msg_alloc(gsize len)
{
  guint c = size_class(len);
  MsgBlock *block;
  if (c != UNPOOLED && free_blocks[c] != NULL) {
    block = (MsgBlock *)free_blocks[c]; /* the link is the header's first member */
    free_blocks[c] = free_blocks[c]->next;
  } else {
    gsize capacity = c != UNPOOLED ? (gsize)MIN_CLASS_BYTES << c : len;
    block = g_malloc(sizeof(MsgBlock) + sizeof(LbMsg) + capacity);
    block->size_class = c;
    block->link.data = block + 1;
  }
  block->link.next = block->link.prev = NULL;
  block->drop = NULL;
  block->slot = NULL;
  LbMsg *msg = (LbMsg *)(block + 1);
  msg->len = len;
  return msg;
}

void
lb_msg_free(LbMsg *msg)
{
  if (msg == NULL)
    return;
  MsgBlock *block = block_of(msg);
  if (block->drop != NULL)
    block->drop(block->drop_data);
  if (block->size_class == UNPOOLED) {
    g_free(block);
    return;
  }
  block->link.next = free_blocks[block->size_class];
  free_blocks[block->size_class] = &block->link;
}

void
lb_msg_set_drop(LbMsg *msg, GDestroyNotify drop, gpointer data)
{
  MsgBlock *block = block_of(msg);
  block->drop = drop;
  block->drop_data = data;
}

/* The stash holds messages by the link in their header: no list node to
 * allocate. A long stash is also indexed by source and tag (a queue of
 * each pair's messages in arrival order, by their `same` links), so that a
 * receive naming both finds its message without walking the others: the
 * original SAMR scheme's moves stash hundreds at a rank. The first message
 * of the whole stash that a receive with a wildcard matches is the first of
 * its pair's queue too, since every earlier one of that pair would match. */
#define STASH_INDEXED 32

typedef struct {
  guint64 key;
  GQueue queue;
} StashKey;

static guint64
stash_key(int src, int tag)
{
  return (guint64)(guint32)src << 32 | (guint32)tag;
}

static guint
stash_key_hash(gconstpointer k)
{
  return (guint)lb_hash64(((const StashKey *)k)->key);
}

static gboolean
stash_key_equal(gconstpointer a, gconstpointer b)
{
  return ((const StashKey *)a)->key == ((const StashKey *)b)->key;
}

static void
stash_index_add(LbRank *self, MsgBlock *block)
{
  const LbMsg *msg = (const LbMsg *)(block + 1);
  StashKey probe = {stash_key(msg->src, msg->tag), G_QUEUE_INIT};
  StashKey *k = g_hash_table_lookup(self->stash_index, &probe);
  if (k == NULL) {
    k = g_new(StashKey, 1);
    *k = probe;
    g_hash_table_add(self->stash_index, k);
  }
  block->same = (GList){block + 1, NULL, NULL};
  g_queue_push_tail_link(&k->queue, &block->same);
}

static void
stash_push(LbRank *self, LbMsg *msg)
{
  MsgBlock *block = block_of(msg);
  g_queue_push_tail_link(&self->stash, &block->link);
  if (self->stash_index != NULL) {
    stash_index_add(self, block);
  } else if (self->stash.length > STASH_INDEXED) {
    self->stash_index = g_hash_table_new_full(stash_key_hash, stash_key_equal, g_free, NULL);
    for (GList *l = self->stash.head; l != NULL; l = l->next)
      stash_index_add(self, block_of(l->data));
  }
}

/* Takes msg (in the stash; with an index, the first of its pair) out. */
static void
stash_take(LbRank *self, LbMsg *msg)
{
  MsgBlock *block = block_of(msg);
  g_queue_unlink(&self->stash, &block->link);
  if (self->stash_index == NULL)
    return;
  StashKey probe = {stash_key(msg->src, msg->tag), G_QUEUE_INIT};
  StashKey *k = g_hash_table_lookup(self->stash_index, &probe);
  g_assert(k != NULL && k->queue.head == &block->same);
  g_queue_unlink(&k->queue, &block->same);
  if (g_queue_is_empty(&k->queue))
    g_hash_table_remove(self->stash_index, k);
  if (g_queue_is_empty(&self->stash))
    g_clear_pointer(&self->stash_index, g_hash_table_unref);
}

void
lb_rank_clear_stash(LbRank *self)
{
  GList *l;
  g_clear_pointer(&self->stash_index, g_hash_table_unref);
  while ((l = g_queue_pop_head_link(&self->stash)) != NULL)
    lb_msg_free(l->data);
}

int
lb_rank_id(const LbRank *self)
{
  return self->id;
}

int
lb_rank_count(const LbRank *self)
{
  return (int)self->run->ranks;
}

const LbParams *
lb_rank_params(const LbRank *self)
{
  return self->run->brun->params;
}

guint
lb_rank_adaptation(const LbRank *self)
{
  return self->adaptation;
}

const LbWork *
lb_rank_work(const LbRank *self)
{
  return self->run->work;
}

GArray *
lb_rank_units(LbRank *self)
{
  return self->units;
}

guint64
lb_rank_step_load(const LbRank *self)
{
  return lb_loads_before(self->run, self->adaptation)[self->id];
}

void
lb_rank_swap_units(LbRank *self, GArray **units)
{
  g_assert(g_array_get_element_size(*units) == sizeof(LbUnit));
  GArray *old = self->units;
  self->units = *units;
  *units = old;
}

double
lb_now(void)
{
  return simgrid_get_clock();
}

/* The receiver has taken msg from its mailbox: its send is over. */
static void
delivered(LbMsg *msg)
{
  LbSendSlot *slot = g_steal_pointer(&block_of(msg)->slot);
  if (slot != NULL)
    lb_sends_taken(slot);
}

void
lb_core_send_msg(LbRank *self, int dst, int tag, LbMsg *msg, double sim_bytes)
{
  g_assert(dst >= 0 && (guint)dst < self->run->ranks && dst != self->id);
  g_assert(tag >= 0);
  msg->src = self->id;
  msg->tag = tag;
  msg->sim_bytes = sim_bytes;
  lb_sends_reap(&self->sends);
  LbSendSlot *slot = lb_sends_slot(&self->sends);
  block_of(msg)->slot = slot;
  lb_sends_started(slot, sg_mailbox_put_async(self->run->mailboxes[dst], msg, (long)sim_bytes));
  self->run->rank[dst].inbox_put++;
  self->run->messages_all++;
  self->sent_messages++;
  self->sent_bytes += sim_bytes;
  if (self->phase >= 0) {
    self->phase_messages++;
    self->phase_bytes += sim_bytes;
  }
  lb_trace_send(self, dst, sim_bytes);
  if (self->run->sent != NULL && self->phase >= 0) {
    LbSent sent = {self->adaptation,
                   self->narrate_stage,
                   self->narrate_step,
                   self->phase,
                   (guint)self->id,
                   (guint)dst,
                   sim_bytes,
                   lb_now(),
                   0,
                   0,
                   self->narrate_resize,
                   self->narrate_label != NULL ? self->narrate_label
                                               : g_strdup(self->narrate_labels)};
    self->narrate_label = NULL;
    self->narrate_resize = 0;
    self->last_sent = self->run->sent->len;
    g_array_append_val(self->run->sent, sent);
  }
}

void
lb_core_send(LbRank *self, int dst, int tag, const void *data, gsize len, double sim_bytes)
{
  LbMsg *msg = lb_msg_alloc(len);
  if (len > 0)
    memcpy(msg->data, data, len);
  lb_core_send_msg(self, dst, tag, msg, sim_bytes);
}

void
lb_send(LbRank *self, int dst, int tag, const void *data, gsize len, double sim_bytes)
{
  g_assert(tag >= 0 && tag <= LB_TAG_USER_MAX);
  lb_core_send(self, dst, tag, data, len, sim_bytes);
}

struct _LbRequest {
  LbRank *self;
  GList link; /* in self->requests while pending */
  int src, tag;
  LbMsg *msg;
  gboolean matched, taken;
};

static void
assert_user_match(const LbRank *self, int src, int tag)
{
  g_assert(src == LB_ANY_SOURCE || (src >= 0 && (guint)src < self->run->ranks));
  g_assert(tag == LB_ANY_TAG || (tag >= 0 && tag <= LB_TAG_USER_MAX));
}

static gboolean
matches(const LbMsg *msg, int src, int tag)
{
  if (src != LB_ANY_SOURCE && msg->src != src)
    return FALSE;
  return tag == LB_ANY_TAG ? msg->tag <= LB_TAG_USER_MAX : msg->tag == tag;
}

static LbMsg *
find_in_stash(LbRank *self, int src, int tag, gboolean take)
{
  LbMsg *found = NULL;
  if (self->stash_index != NULL && src != LB_ANY_SOURCE && tag != LB_ANY_TAG) {
    StashKey probe = {stash_key(src, tag), G_QUEUE_INIT};
    const StashKey *k = g_hash_table_lookup(self->stash_index, &probe);
    if (k != NULL)
      found = k->queue.head->data;
  } else {
    for (GList *l = self->stash.head; l != NULL && found == NULL; l = l->next)
      if (matches(l->data, src, tag))
        found = l->data;
  }
  if (found != NULL && take)
    stash_take(self, found);
  return found;
}

/* A get posted on the rank's mailbox ahead of the receive that will want
 * its message, so that the transfer runs meanwhile. */
typedef struct {
  sg_comm_t comm;
  void *payload;
} Inbound;

static void
post_get(LbRank *self)
{
  Inbound *in = g_new(Inbound, 1);
  in->payload = NULL;
  in->comm = sg_mailbox_get_async(self->mailbox, &in->payload);
  g_queue_push_tail(&self->inbound, in);
  lb_trace_post(self);
}

/* Gets are harvested in posting order, which is the senders' order.
 * Traced when taken from the mailbox (and when posted): that is what bare
 * SimGrid replays. */
static LbMsg *
take_inbound(LbRank *self)
{
  Inbound *in = g_queue_pop_head(&self->inbound);
  LbMsg *msg = in->payload;
  g_free(in);
  if (g_queue_is_empty(&self->inbound))
    self->spare_get = FALSE;
  self->inbox_taken++;
  delivered(msg);
  lb_trace_recv(self, msg->src);
  return msg;
}

/* Starts the transfer of every message waiting in the mailbox, each into a
 * get of its own, and leaves one spare get for the next arrival. A mailbox
 * holds either waiting senders or our unmatched gets, never both, so
 * sg_mailbox_listen tells whether senders wait, unless the spare may still
 * be unmatched: then nothing can be learnt until it completes. */
static void
listen_all(LbRank *self)
{
  const char *name = sg_mailbox_get_name(self->mailbox);
  if (self->spare_get) {
    if (sg_mailbox_listen(name))
      return;
    self->spare_get = FALSE;
  }
  while (sg_mailbox_listen(name))
    post_get(self);
  post_get(self);
  self->spare_get = TRUE;
}

/* The next message from the mailbox, or NULL once lb_now() reaches deadline
 * (< 0: none). With no get posted and no deadline this is one plain get, the
 * fast path. A timed wait goes through wait_all_for, which keeps the get
 * posted on timeout: sg_comm_wait_for would drop it and lose a message
 * already in transfer. The get left behind takes the late arrival. */
static LbMsg *
next_arrival(LbRank *self, double deadline)
{
  lb_sends_reap(&self->sends);
  if (self->inbound.head == NULL) {
    if (deadline < 0) {
      LbMsg *msg = sg_mailbox_get(self->mailbox);
      self->inbox_taken++;
      delivered(msg);
      lb_trace_recv(self, msg->src);
      return msg;
    }
    post_get(self);
    self->spare_get = TRUE;
  }
  Inbound *head = g_queue_peek_head(&self->inbound);
  if (deadline < 0) {
    sg_error_t err = sg_comm_wait(head->comm);
    g_assert(err == SG_OK);
  } else if (sg_comm_wait_all_for(&head->comm, 1, MAX(deadline - lb_now(), 0.0)) == 0) {
    return NULL;
  }
  return take_inbound(self);
}

/* A message whose transfer has completed, without blocking; otherwise the
 * rank listens for what is waiting and what comes. A wait with no time to
 * wait, not a test: a test would leave the finished receive on SimGrid's
 * list of the rank's activities, which every later completion scans (a
 * rank polling between slices of work receives thousands this way). */
static LbMsg *
poll_arrival(LbRank *self)
{
  /* Nothing was put that was not taken: nothing can have arrived, and the
   * spare get, once posted, waits for the next message as it is. A rank
   * polling between slices of work mostly finds itself here. */
  if (self->inbox_put == self->inbox_taken && self->spare_get)
    return NULL;
  Inbound *head = g_queue_peek_head(&self->inbound);
  if (head != NULL && sg_comm_wait_all_for(&head->comm, 1, 0.0) == 1)
    return take_inbound(self);
  listen_all(self);
  return NULL;
}

/* Gives msg to the first outstanding request it matches (they were all
 * posted before the receive now running); otherwise msg stays with the
 * caller. While requests wait, the rank keeps listening, so that their
 * messages travel while it computes. */
static gboolean
give_to_request(LbRank *self, LbMsg *msg)
{
  if (self->requests.head == NULL)
    return FALSE;
  gboolean given = FALSE;
  for (GList *l = self->requests.head; l != NULL; l = l->next) {
    LbRequest *req = l->data;
    if (matches(msg, req->src, req->tag)) {
      g_queue_unlink(&self->requests, l);
      req->msg = msg;
      req->matched = TRUE;
      given = TRUE;
      break;
    }
  }
  if (!g_queue_is_empty(&self->requests))
    listen_all(self);
  return given;
}

static LbMsg *
receive(LbRank *self, int src, int tag, double timeout)
{
  LbMsg *msg = find_in_stash(self, src, tag, TRUE);
  if (msg != NULL)
    return msg;
  double deadline = timeout >= 0 ? lb_now() + timeout : -1;
  for (;;) {
    msg = next_arrival(self, deadline);
    if (msg == NULL)
      return NULL;
    if (give_to_request(self, msg))
      continue;
    if (matches(msg, src, tag))
      return msg;
    stash_push(self, msg);
  }
}

LbMsg *
lb_core_recv(LbRank *self, int src, int tag)
{
  return receive(self, src, tag, -1);
}

LbMsg *
lb_recv(LbRank *self, int src, int tag)
{
  assert_user_match(self, src, tag);
  return receive(self, src, tag, -1);
}

LbMsg *
lb_recv_timeout(LbRank *self, int src, int tag, double timeout)
{
  assert_user_match(self, src, tag);
  g_assert(timeout >= 0);
  return receive(self, src, tag, timeout);
}

static void
fill_status(const LbMsg *msg, LbStatus *status)
{
  if (status == NULL)
    return;
  status->src = msg->src;
  status->tag = msg->tag;
  status->len = msg->len;
}

/* Moves arrived messages to requests or the stash until one matches. */
static const LbMsg *
stash_until_match(LbRank *self, int src, int tag, gboolean block)
{
  const LbMsg *found = find_in_stash(self, src, tag, FALSE);
  while (found == NULL) {
    LbMsg *msg = block ? next_arrival(self, -1) : poll_arrival(self);
    if (msg == NULL)
      break;
    if (give_to_request(self, msg))
      continue;
    stash_push(self, msg);
    if (matches(msg, src, tag))
      found = msg;
  }
  return found;
}

void
lb_probe(LbRank *self, int src, int tag, LbStatus *status)
{
  assert_user_match(self, src, tag);
  fill_status(stash_until_match(self, src, tag, TRUE), status);
}

gboolean
lb_iprobe(LbRank *self, int src, int tag, LbStatus *status)
{
  assert_user_match(self, src, tag);
  const LbMsg *msg = stash_until_match(self, src, tag, FALSE);
  if (msg == NULL)
    return FALSE;
  fill_status(msg, status);
  return TRUE;
}

LbRequest *
lb_irecv(LbRank *self, int src, int tag)
{
  assert_user_match(self, src, tag);
  LbRequest *req = g_new0(LbRequest, 1);
  req->self = self;
  req->src = src;
  req->tag = tag;
  req->msg = find_in_stash(self, src, tag, TRUE);
  req->matched = req->msg != NULL;
  if (!req->matched) {
    req->link.data = req;
    g_queue_push_tail_link(&self->requests, &req->link);
    listen_all(self);
  }
  return req;
}

static LbMsg *
take_request_msg(LbRequest *req)
{
  req->taken = TRUE;
  return g_steal_pointer(&req->msg);
}

gboolean
lb_test(LbRank *self, LbRequest *req, LbMsg **out)
{
  g_assert(req->self == self && !req->taken && out != NULL);
  while (!req->matched) {
    LbMsg *msg = poll_arrival(self);
    if (msg == NULL)
      return FALSE;
    if (!give_to_request(self, msg))
      stash_push(self, msg);
  }
  *out = take_request_msg(req);
  return TRUE;
}

LbMsg *
lb_wait(LbRank *self, LbRequest *req)
{
  g_assert(req->self == self && !req->taken);
  while (!req->matched) {
    LbMsg *msg = next_arrival(self, -1);
    if (!give_to_request(self, msg))
      stash_push(self, msg);
  }
  return take_request_msg(req);
}

int
lb_wait_any(LbRank *self, LbRequest **reqs, guint n, LbMsg **out)
{
  g_assert(out != NULL);
  gboolean active = FALSE;
  for (guint i = 0; i < n; i++) {
    g_assert(reqs[i] == NULL || reqs[i]->self == self);
    active |= reqs[i] != NULL && !reqs[i]->taken;
  }
  g_assert(active);
  for (;;) {
    for (guint i = 0; i < n; i++)
      if (reqs[i] != NULL && !reqs[i]->taken && reqs[i]->matched) {
        *out = take_request_msg(reqs[i]);
        return (int)i;
      }
    LbMsg *msg = next_arrival(self, -1);
    if (!give_to_request(self, msg))
      stash_push(self, msg);
  }
}

void
lb_request_free(LbRequest *req)
{
  if (req == NULL)
    return;
  if (!req->matched)
    g_queue_unlink(&req->self->requests, &req->link);
  lb_msg_free(req->msg);
  g_free(req);
}

void
lb_wait_sends(LbRank *self)
{
  lb_sends_wait_all(&self->sends);
  lb_trace_wait(self);
}

void
lb_execute(LbRank *self, double flops)
{
  if (flops <= 0)
    return;
  lb_trace_exec(self, flops);
  sg_actor_execute(flops);
}

void
lb_app_compute(LbRank *self, double flops)
{
  double start = lb_now();
  lb_execute(self, flops);
  self->app_flops += MAX(flops, 0);
  self->app_compute_time += lb_now() - start;
}

double
lb_execute_sliced(LbRank *self, double flops, double slice_flops,
                  gboolean (*between_cb)(LbRank *self, gpointer data), gpointer data)
{
  g_assert(slice_flops > 0);
  double done = 0;
  while (done < flops) {
    double slice = MIN(slice_flops, flops - done);
    lb_execute(self, slice);
    /* The last slice lands exactly on flops, whatever the rounding. */
    done = slice == flops - done ? flops : done + slice;
    if (between_cb != NULL && !between_cb(self, data))
      break;
  }
  return done;
}

void
lb_rank_flush_phase(LbRank *self)
{
  if (self->phase < 0)
    return;
  LbCoreRun *run = self->run;
  LbPhaseTotals *t = &run->phase_totals[self->adaptation * run->nphases + (guint)self->phase];
  t->messages += self->phase_messages;
  t->bytes += self->phase_bytes;
  t->time = MAX(t->time, lb_now() - self->phase_start);
  for (guint i = 0; i < G_N_ELEMENTS(t->rounds); i++)
    t->rounds[i] |= self->phase_rounds[i];
  t->rounds_beyond = MAX(t->rounds_beyond, self->phase_rounds_beyond);
  self->phase = -1;
  self->phase_messages = 0;
  self->phase_bytes = 0;
  memset(self->phase_rounds, 0, sizeof self->phase_rounds);
  self->phase_rounds_beyond = 0;
  self->phase_round_next = 0;
}

void
lb_phase_begin(LbRank *self, guint phase)
{
  g_assert(phase < self->run->nphases);
  lb_rank_flush_phase(self);
  self->phase = (int)phase;
  self->narrate_step = 0;
  g_clear_pointer(&self->narrate_labels, g_free);
  self->phase_start = lb_now();
  lb_trace_paje_state(self, self->run->brun->balancer->phases[phase]);
}

void
lb_phase_collective_rounds(LbRank *self, guint rounds)
{
  if (self->phase < 0) /* the core's own synchronisation */
    return;
  guint first = self->phase_round_next;
  for (guint k = 0; k < rounds; k++)
    lb_phase_round(self, first + k);
}

void
lb_phase_round(LbRank *self, guint round)
{
  g_assert(self->phase >= 0);
  if (round >= LB_MAX_ROUNDS)
    self->phase_rounds_beyond = MAX(self->phase_rounds_beyond, round + 1);
  else
    self->phase_rounds[round / 64] |= G_GUINT64_CONSTANT(1) << (round % 64);
  self->phase_round_next = MAX(self->phase_round_next, round + 1);
  self->narrate_step = round;
}

void
lb_executed(LbRank *self, const LbUnit *units, gsize n)
{
  LbConserved c = {0};
  lb_work_conserve(self->run->work, units, n, &c);
  self->executed.count += c.count;
  self->executed.load += c.load;
  self->executed.checksum += c.checksum;
}

void
lb_rank_fail(LbRank *self, const char *format, ...)
{
  if (self->run->failure != NULL)
    return;
  va_list args;
  va_start(args, format);
  self->run->failure = g_strdup_vprintf(format, args);
  va_end(args);
}

double
lb_rank_sent_bytes(const LbRank *self)
{
  return self->sent_bytes;
}

double
lb_rank_host_speed(const LbRank *self, int rank)
{
  g_assert(rank >= 0 && (guint)rank < self->run->ranks);
  return sg_host_get_speed(self->run->rank[rank].host);
}

void
lb_metric_record(LbRank *self, guint metric, double value)
{
  LbCoreRun *run = self->run;
  g_assert(metric < run->first_phase_def);
  const LbMetricDef *def = &g_array_index(run->metric_defs, LbMetricDef, metric);
  g_assert(def->rounds_of < 0 && def->derive == NULL);
  double *slot = lb_adaptation_metric(run, self->adaptation, metric);
  *slot = def->combine == LB_COMBINE_MAX ? MAX(*slot, value) : *slot + value;
}

void
lb_rank_note_chunk(LbRank *self, guint owner, guint64 first, const LbUnit *units, guint64 count,
                   double began)
{
  GArray *chunks = self->run->chunks;
  if (chunks == NULL)
    return;
  guint64 load = 0;
  for (guint64 i = 0; i < count; i++)
    load += units[i].load;
  LbChunk c = {self->adaptation, (guint)self->id, owner, first, count, load, began, lb_now()};
  g_array_append_val(chunks, c);
}

gboolean
lb_rank_narrating(const LbRank *self)
{
  return self->run->options->narrate;
}

void
lb_narrate(LbRank *self, const char *format, ...)
{
  if (!self->run->options->narrate)
    return;
  va_list args;
  va_start(args, format);
  g_autofree char *text = g_strdup_vprintf(format, args);
  va_end(args);
  const char *phase = self->phase >= 0 ? self->run->brun->balancer->phases[self->phase] : "-";
  LbNarrated *line = g_new(LbNarrated, 1);
  *line =
      (LbNarrated){self->adaptation,
                   self->narrate_stage,
                   (guint)self->id,
                   self->narrate_step,
                   self->phase,
                   lb_now(),
                   g_strdup_printf("%-10s t=%.6f s  rank %d: %s", phase, lb_now(), self->id, text)};
  g_ptr_array_add(self->run->narration, line);
}

void
lb_narrate_step(LbRank *self, guint step)
{
  self->narrate_step = step;
}

void
lb_narrate_label(LbRank *self, const char *format, ...)
{
  if (self->run->sent == NULL)
    return;
  va_list args;
  va_start(args, format);
  g_free(self->narrate_label);
  self->narrate_label = g_strdup_vprintf(format, args);
  va_end(args);
}

void
lb_narrate_labels(LbRank *self, const char *format, ...)
{
  if (self->run->sent == NULL)
    return;
  va_list args;
  va_start(args, format);
  g_free(self->narrate_labels);
  self->narrate_labels = g_strdup_vprintf(format, args);
  va_end(args);
}

void
lb_narrate_resize(LbRank *self, gint64 delta)
{
  self->narrate_resize += delta;
}

void
lb_sent_clear(gpointer data)
{
  LbSent *sent = data;
  g_clear_pointer(&sent->label, g_free);
}

void
lb_narrate_stage(LbRank *self, guint stage, const char *name)
{
  self->narrate_stage = stage;
  GPtrArray *names = self->run->stage_names;
  while (names->len <= stage)
    g_ptr_array_add(names, g_strdup(""));
  if (*(char *)names->pdata[stage] == '\0' && name != NULL) {
    g_free(names->pdata[stage]);
    names->pdata[stage] = g_strdup(name);
  }
}

void
lb_narrated_free(gpointer data)
{
  LbNarrated *line = data;
  g_free(line->text);
  g_free(line);
}

typedef struct {
  const LbNarrated *line;
  guint section, said; /* the order its (step, stage, phase) first spoke; its own */
} StoryLine;

static int
compare_story(gconstpointer a, gconstpointer b)
{
  const StoryLine *x = a, *y = b;
  if (x->section != y->section)
    return x->section < y->section ? -1 : 1;
  if (x->line->rank != y->line->rank)
    return x->line->rank < y->line->rank ? -1 : 1;
  return x->said < y->said ? -1 : x->said > y->said;
}

GPtrArray *
lb_narration_story(GPtrArray *narration, GArray **notes)
{
  guint n = narration->len;
  g_autofree StoryLine *lines = g_new(StoryLine, MAX(n, 1));
  /* sections numbered as they first speak */
  g_autoptr(GHashTable) sections = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, NULL);
  for (guint i = 0; i < n; i++) {
    const LbNarrated *line = narration->pdata[i];
    g_autofree char *key = g_strdup_printf("%u/%u/%d", line->adaptation, line->stage, line->phase);
    gpointer found = NULL;
    if (!g_hash_table_lookup_extended(sections, key, NULL, &found)) {
      found = GUINT_TO_POINTER(g_hash_table_size(sections));
      g_hash_table_insert(sections, g_steal_pointer(&key), found);
    }
    lines[i] = (StoryLine){line, GPOINTER_TO_UINT(found), i};
  }
  qsort(lines, n, sizeof *lines, compare_story);
  GPtrArray *story = g_ptr_array_new_full(n, g_free);
  *notes = g_array_sized_new(FALSE, FALSE, sizeof(LbNote), n);
  for (guint i = 0; i < n; i++) {
    const LbNarrated *line = lines[i].line;
    g_ptr_array_add(story, g_strdup(line->text));
    LbNote note = {line->adaptation, line->stage, line->step, line->rank, line->phase, line->time};
    g_array_append_val(*notes, note);
  }
  return story;
}
