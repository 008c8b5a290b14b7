/* The shared way to move work units: their bytes as the model defines them,
 * into the receiver's unit set, recorded for the report. */
#include <string.h>

#include "core/core.h"

/* 16 bytes, so that the units after it stay aligned. */
typedef struct {
  guint32 n, runs;
  guint32 positions, word;
} UnitsHeader;

static guint
count_runs(const LbUnit *units, guint n)
{
  guint runs = n > 0;
  for (guint i = 1; i < n; i++)
    runs += units[i].id != units[i - 1].id + 1;
  return runs;
}

void
lb_record_event(LbRank *self, LbEventKind kind, guint64 unit, guint64 piece, guint from, guint to,
                guint64 load)
{
  LbCoreRun *run = self->run;
  if (!run->options->detail)
    return;
  LbEvent e = {self->adaptation, kind, unit, piece, from, to, load};
  g_array_append_val(run->events, e);
}

/* Transfers are recorded as runs of consecutive ids (units are read in
 * --detail runs only). */
static void
record_transfer(LbRank *self, guint round, int dst, const LbUnit *units, guint n, double bytes)
{
  LbCoreRun *run = self->run;
  run->adaptation_results[self->adaptation].bytes_moved += bytes;
  if (!run->options->detail)
    return;
  guint i = 0;
  while (i < n) {
    guint j = i;
    guint64 load = units[i].load;
    while (j + 1 < n && units[j + 1].id == units[j].id + 1)
      load += units[++j].load;
    LbTransfer t = {
        self->adaptation, round, (guint)self->id, (guint)dst,          units[i].id,
        j - i + 1ull,     load,  self->phase,     self->narrate_stage, self->narrate_step,
        lb_now()};
    g_array_append_val(run->transfers, t);
    i = j + 1;
  }
}

void
lb_send_units(LbRank *self, int dst, int tag, guint round, const LbUnit *units, guint n,
              const guint64 *positions)
{
  lb_send_units_word(self, dst, tag, round, units, n, positions, 0);
}

/* The header, the network's bytes and the report's record of a message
 * whose n units are already written after the header (and extra bytes of
 * the sender's after them). */
static void
send_written(LbRank *self, int dst, int tag, guint round, LbMsg *msg, guint n, guint runs,
             gboolean positions, guint32 word, gsize extra)
{
  UnitsHeader header = {n, runs, positions, word};
  memcpy(msg->data, &header, sizeof header);
  const LbUnit *units = (const LbUnit *)(msg->data + sizeof header);
  double bytes = lb_work_bytes(self->run->work, units, n);
  lb_core_send_msg(self, dst, tag, msg, LB_HEADER_BYTES + 16.0 * runs + bytes + (double)extra);
  if (n > 0)
    record_transfer(self, round, dst, units, n, bytes);
  if (self->run->sent != NULL && self->phase >= 0) {
    LbSent *sent = &g_array_index(self->run->sent, LbSent, self->last_sent);
    sent->units = n;
    for (guint i = 0; i < n; i++)
      sent->load += units[i].load;
  }
}

static void
send_units(LbRank *self, int dst, int tag, guint round, const LbUnit *units, guint n,
           const guint64 *positions, guint32 word, const void *extra, gsize extra_len)
{
  g_assert(tag >= 0 && tag <= LB_TAG_USER_MAX);
  guint runs = count_runs(units, n);
  gsize body =
      sizeof(UnitsHeader) + n * sizeof(LbUnit) + (positions != NULL ? runs * sizeof(guint64) : 0);
  gsize len = body + extra_len;
  /* written straight into the message, which the receiver gets as is */
  LbMsg *msg = lb_msg_alloc(len);
  guint8 *data = msg->data;
  if (n > 0)
    memcpy(data + sizeof(UnitsHeader), units, n * sizeof(LbUnit));
  if (positions != NULL) {
    guint64 *starts = (guint64 *)(data + sizeof(UnitsHeader) + n * sizeof(LbUnit));
    guint k = 0;
    for (guint i = 0; i < n; i++) {
      if (i == 0 || units[i].id != units[i - 1].id + 1)
        starts[k++] = positions[i];
      else
        g_assert(positions[i] == positions[i - 1] + units[i - 1].load);
    }
  }
  if (extra_len > 0)
    memcpy(data + body, extra, extra_len);
  send_written(self, dst, tag, round, msg, n, runs, positions != NULL, word, extra_len);
}

void
lb_send_units_word(LbRank *self, int dst, int tag, guint round, const LbUnit *units, guint n,
                   const guint64 *positions, guint32 word)
{
  send_units(self, dst, tag, round, units, n, positions, word, NULL, 0);
}

void
lb_send_units_extra(LbRank *self, int dst, int tag, guint round, const LbUnit *units, guint n,
                    const guint64 *positions, const void *extra, gsize extra_len)
{
  send_units(self, dst, tag, round, units, n, positions, 0, extra, extra_len);
}

/* A rank's old units, which messages carry by reference. */
struct _LbUnitShare {
  gatomicrefcount refs;
  GArray *units;
  /* units' data and length (unchanged while shared), here so that a send
   * reads this block only, not the array's header too */
  const LbUnit *data;
  guint len;
};

LbUnitShare *
lb_rank_share_units(LbRank *self, GArray *fresh)
{
  g_assert(fresh != self->units);
  g_array_set_size(fresh, 0);
  LbUnitShare *share = g_new(LbUnitShare, 1);
  g_atomic_ref_count_init(&share->refs);
  share->units = fresh;
  lb_rank_swap_units(self, &share->units);
  share->data = (const LbUnit *)share->units->data;
  share->len = share->units->len;
  return share;
}

const LbUnit *
lb_unit_share_units(const LbUnitShare *share, guint *n)
{
  if (n != NULL)
    *n = share->len;
  return share->data;
}

static void
share_unref(gpointer data)
{
  LbUnitShare *share = data;
  if (!g_atomic_ref_count_dec(&share->refs))
    return;
  g_array_unref(share->units);
  g_free(share);
}

GArray *
lb_unit_share_release(LbUnitShare *share)
{
  if (share == NULL)
    return NULL;
  if (!g_atomic_ref_count_compare(&share->refs, 1)) {
    share_unref(share); /* a message still holds it: its last holder frees it */
    return NULL;
  }
  GArray *units = share->units;
  g_free(share);
  return units;
}

/* What a message of lb_send_unit_spans holds; its spans follow. */
typedef struct {
  LbUnitShare *share;
  const LbUnit *units; /* the share's: the receiver need not read the share */
  guint64 n_spans;
} SpansHeader;

G_STATIC_ASSERT(sizeof(SpansHeader) % 8 == 0);

void
lb_send_unit_spans(LbRank *self, int dst, int tag, guint round, LbUnitShare *share,
                   const LbUnitSpan *spans, guint n_spans)
{
  g_assert(tag >= 0 && tag <= LB_TAG_USER_MAX);
  guint len;
  const LbUnit *units = lb_unit_share_units(share, &len);
  /* each span a run of consecutive ids, as the caller promises: the
   * message's runs are the spans, less those that go on where the one
   * before ended */
  gsize n = 0;
  guint runs = 0;
  guint64 next = G_MAXUINT64; /* the id that would continue the last run */
  for (guint i = 0; i < n_spans; i++) {
    if (spans[i].n == 0)
      continue;
    g_assert(spans[i].at + spans[i].n <= len);
    runs += spans[i].id != next;
    next = spans[i].id + spans[i].n;
    n += spans[i].n;
  }
  g_assert(n <= G_MAXUINT32);
  LbMsg *msg = lb_msg_alloc(sizeof(SpansHeader) + n_spans * sizeof(LbUnitSpan));
  SpansHeader header = {share, units, n_spans};
  memcpy(msg->data, &header, sizeof header);
  memcpy(msg->data + sizeof header, spans, n_spans * sizeof(LbUnitSpan));
  g_atomic_ref_count_inc(&share->refs);
  lb_msg_set_drop(msg, share_unref, share);
  /* the units one after another, as the receiver gets them, only where
   * they are read: a model's own bytes, or the record of a --detail run
   * (which checks each span's id) */
  const LbWork *work = self->run->work;
  g_autoptr(GArray) all = NULL;
  if (work->model->bytes != NULL || self->run->options->detail) {
    all = g_array_sized_new(FALSE, FALSE, sizeof(LbUnit), (guint)n);
    for (guint i = 0; i < n_spans; i++) {
      g_assert(spans[i].n == 0 || units[spans[i].at].id == spans[i].id);
      g_array_append_vals(all, units + spans[i].at, (guint)spans[i].n);
    }
  }
  const LbUnit *in_order = all != NULL ? (const LbUnit *)all->data : NULL;
  double bytes = lb_work_bytes(work, in_order, n);
  lb_core_send_msg(self, dst, tag, msg, LB_HEADER_BYTES + 16.0 * runs + bytes);
  record_transfer(self, round, dst, in_order, (guint)n, bytes);
}

LbMsg *
lb_recv_unit_spans(LbRank *self, int src, int tag, const LbUnit **units, const LbUnitSpan **spans,
                   guint *n_spans)
{
  LbMsg *msg = lb_recv(self, src, tag);
  SpansHeader header;
  g_assert(msg->len >= sizeof header);
  memcpy(&header, msg->data, sizeof header);
  g_assert(msg->len == sizeof header + header.n_spans * sizeof(LbUnitSpan));
  *units = header.units;
  *spans = (const LbUnitSpan *)(msg->data + sizeof header);
  *n_spans = (guint)header.n_spans;
  return msg;
}

gboolean
lb_rank_records_transfers(const LbRank *self)
{
  return self->run->options->detail;
}

/* What a message of lb_send_units_ref holds. */
typedef struct {
  gpointer ref;
  guint32 word;
} RefHeader;

void
lb_send_units_ref(LbRank *self, int dst, int tag, guint round, gpointer ref, GDestroyNotify drop,
                  guint n, guint runs, double bytes, guint32 word, const LbUnit *units)
{
  g_assert(tag >= 0 && tag <= LB_TAG_USER_MAX);
  g_assert(runs <= n && (runs > 0) == (n > 0));
  LbMsg *msg = lb_msg_alloc(sizeof(RefHeader));
  RefHeader header = {ref, word};
  memcpy(msg->data, &header, sizeof header);
  lb_msg_set_drop(msg, drop, ref);
  /* the sum in send_written's order, so that the bytes are its own */
  lb_core_send_msg(self, dst, tag, msg, LB_HEADER_BYTES + 16.0 * runs + bytes + 0.0);
  if (n > 0) {
    g_assert(units != NULL || !self->run->options->detail);
    record_transfer(self, round, dst, units, n, bytes);
  }
}

gpointer
lb_recv_units_ref(LbRank *self, int src, int tag, guint32 *word)
{
  LbMsg *msg = lb_recv(self, src, tag);
  RefHeader header;
  g_assert(msg->len == sizeof header);
  memcpy(&header, msg->data, sizeof header);
  lb_msg_set_drop(msg, NULL, NULL); /* the ref is the caller's now */
  lb_msg_free(msg);
  if (word != NULL)
    *word = header.word;
  return header.ref;
}

guint
lb_recv_units(LbRank *self, int src, int tag, GArray *into, GArray *positions)
{
  return lb_recv_units_word(self, src, tag, into, positions, NULL);
}

static guint
recv_units(LbRank *self, int src, int tag, GArray *into, GArray *positions, guint32 *word,
           void *extra, gsize extra_len)
{
  g_autoptr(LbMsg) msg = lb_recv(self, src, tag);
  UnitsHeader header;
  memcpy(&header, msg->data, sizeof header);
  if (word != NULL)
    *word = header.word;
  gsize body = sizeof header + header.n * sizeof(LbUnit) +
               (header.positions ? header.runs * sizeof(guint64) : 0);
  g_assert(msg->len == body + extra_len);
  if (extra_len > 0)
    memcpy(extra, msg->data + body, extra_len);
  const LbUnit *units = (const LbUnit *)(msg->data + sizeof header);
  g_array_append_vals(into, units, header.n);
  if (positions != NULL) {
    g_assert(header.positions);
    const guint64 *starts =
        (const guint64 *)(msg->data + sizeof header + header.n * sizeof(LbUnit));
    guint k = 0;
    guint64 pos = 0;
    for (guint i = 0; i < header.n; i++) {
      if (i == 0 || units[i].id != units[i - 1].id + 1)
        pos = starts[k++];
      else
        pos += units[i - 1].load;
      g_array_append_val(positions, pos);
    }
  }
  return header.n;
}

guint
lb_recv_units_word(LbRank *self, int src, int tag, GArray *into, GArray *positions, guint32 *word)
{
  return recv_units(self, src, tag, into, positions, word, NULL, 0);
}

guint
lb_recv_units_extra(LbRank *self, int src, int tag, GArray *into, GArray *positions, void *extra,
                    gsize extra_len)
{
  return recv_units(self, src, tag, into, positions, NULL, extra, extra_len);
}
