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

/* Transfers are recorded as runs of consecutive ids. */
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
    LbTransfer t = {self->adaptation, round, (guint)self->id, (guint)dst, units[i].id,
                    j - i + 1ull,     load};
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
 * whose n units are already written after the header. */
static void
send_written(LbRank *self, int dst, int tag, guint round, LbMsg *msg, guint n, guint runs,
             gboolean positions, guint32 word)
{
  UnitsHeader header = {n, runs, positions, word};
  memcpy(msg->data, &header, sizeof header);
  const LbUnit *units = (const LbUnit *)(msg->data + sizeof header);
  double bytes = lb_work_bytes(self->run->work, units, n);
  lb_core_send_msg(self, dst, tag, msg, LB_HEADER_BYTES + 16.0 * runs + bytes);
  if (n > 0)
    record_transfer(self, round, dst, units, n, bytes);
}

void
lb_send_unit_spans(LbRank *self, int dst, int tag, guint round, const LbUnit *units,
                   const LbUnitSpan *spans, guint n_spans)
{
  g_assert(tag >= 0 && tag <= LB_TAG_USER_MAX);
  gsize n = 0;
  for (guint i = 0; i < n_spans; i++)
    n += spans[i].n;
  g_assert(n <= G_MAXUINT32);
  LbMsg *msg = lb_msg_alloc(sizeof(UnitsHeader) + n * sizeof(LbUnit));
  LbUnit *out = (LbUnit *)(msg->data + sizeof(UnitsHeader));
  for (guint i = 0; i < n_spans; i++) {
    memcpy(out, units + spans[i].at, spans[i].n * sizeof(LbUnit));
    out += spans[i].n;
  }
  const LbUnit *written = (const LbUnit *)(msg->data + sizeof(UnitsHeader));
  send_written(self, dst, tag, round, msg, (guint)n, count_runs(written, (guint)n), FALSE, 0);
}

void
lb_send_units_word(LbRank *self, int dst, int tag, guint round, const LbUnit *units, guint n,
                   const guint64 *positions, guint32 word)
{
  g_assert(tag >= 0 && tag <= LB_TAG_USER_MAX);
  guint runs = count_runs(units, n);
  gsize len =
      sizeof(UnitsHeader) + n * sizeof(LbUnit) + (positions != NULL ? runs * sizeof(guint64) : 0);
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
  send_written(self, dst, tag, round, msg, n, runs, positions != NULL, word);
}

LbMsg *
lb_recv_units_in_place(LbRank *self, int src, int tag, const LbUnit **units, guint *n)
{
  LbMsg *msg = lb_recv(self, src, tag);
  UnitsHeader header;
  memcpy(&header, msg->data, sizeof header);
  g_assert(!header.positions);
  *units = (const LbUnit *)(msg->data + sizeof header);
  *n = header.n;
  return msg;
}

guint
lb_recv_units(LbRank *self, int src, int tag, GArray *into, GArray *positions)
{
  return lb_recv_units_word(self, src, tag, into, positions, NULL);
}

guint
lb_recv_units_word(LbRank *self, int src, int tag, GArray *into, GArray *positions, guint32 *word)
{
  g_autoptr(LbMsg) msg = lb_recv(self, src, tag);
  UnitsHeader header;
  memcpy(&header, msg->data, sizeof header);
  if (word != NULL)
    *word = header.word;
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
