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

void
lb_send_units_word(LbRank *self, int dst, int tag, guint round, const LbUnit *units, guint n,
                   const guint64 *positions, guint32 word)
{
  g_assert(tag >= 0 && tag <= LB_TAG_USER_MAX);
  guint runs = count_runs(units, n);
  UnitsHeader header = {n, runs, positions != NULL, word};
  gsize len = sizeof header + n * sizeof(LbUnit) + (positions != NULL ? runs * sizeof(guint64) : 0);
  /* written straight into the message, which the receiver gets as is */
  LbMsg *msg = lb_msg_alloc(len);
  guint8 *data = msg->data;
  memcpy(data, &header, sizeof header);
  if (n > 0)
    memcpy(data + sizeof header, units, n * sizeof(LbUnit));
  if (positions != NULL) {
    guint64 *starts = (guint64 *)(data + sizeof header + n * sizeof(LbUnit));
    guint k = 0;
    for (guint i = 0; i < n; i++) {
      if (i == 0 || units[i].id != units[i - 1].id + 1)
        starts[k++] = positions[i];
      else
        g_assert(positions[i] == positions[i - 1] + units[i - 1].load);
    }
  }
  double bytes = lb_work_bytes(self->run->work, units, n);
  lb_core_send_msg(self, dst, tag, msg, LB_HEADER_BYTES + 16.0 * runs + bytes);
  if (n > 0)
    record_transfer(self, round, dst, units, n, bytes);
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
