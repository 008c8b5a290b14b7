#include "core/sends.h"

#include <simgrid/comm.h>

struct _LbSendSlot {
  sg_comm_t comm;
  LbSends *sender;
  guint index;              /* in sender->pending, until waited for */
  gboolean waited;          /* by lb_sends_wait_all, before its message was taken */
  struct _LbSendSlot *next; /* in the sender's delivered list, or the free list */
};

/* Slots come from chunks kept for the whole process, which stay reachable
 * (a slot whose message is never taken is never freed). */
#define SLOT_CHUNK 4096
static LbSendSlot *free_slots;
static GPtrArray *slot_chunks;

void
lb_sends_init(LbSends *sends)
{
  sends->pending = g_ptr_array_new();
  sends->delivered = NULL;
}

void
lb_sends_clear(LbSends *sends)
{
  g_clear_pointer(&sends->pending, g_ptr_array_unref);
  sends->delivered = NULL;
}

LbSendSlot *
lb_sends_slot(LbSends *sends)
{
  if (free_slots == NULL) {
    LbSendSlot *chunk = g_new(LbSendSlot, SLOT_CHUNK);
    if (slot_chunks == NULL)
      slot_chunks = g_ptr_array_new();
    g_ptr_array_add(slot_chunks, chunk);
    for (guint i = 0; i < SLOT_CHUNK; i++) {
      chunk[i].next = free_slots;
      free_slots = &chunk[i];
    }
  }
  LbSendSlot *slot = free_slots;
  free_slots = slot->next;
  *slot = (LbSendSlot){NULL, sends, sends->pending->len, FALSE, NULL};
  g_ptr_array_add(sends->pending, slot);
  return slot;
}

void
lb_sends_started(LbSendSlot *slot, sg_comm_t comm)
{
  slot->comm = comm;
}

static void
slot_free(LbSendSlot *slot)
{
  slot->next = free_slots;
  free_slots = slot;
}

void
lb_sends_taken(LbSendSlot *slot)
{
  if (slot->waited) {
    slot_free(slot);
    return;
  }
  slot->next = slot->sender->delivered;
  slot->sender->delivered = slot;
}

void
lb_sends_reap(LbSends *sends)
{
  GPtrArray *p = sends->pending;
  while (sends->delivered != NULL) {
    LbSendSlot *slot = sends->delivered;
    sends->delivered = slot->next;
    sg_error_t err = sg_comm_wait(slot->comm);
    g_assert(err == SG_OK);
    /* off the pending array, whose last slot takes its place */
    LbSendSlot *last = p->pdata[p->len - 1];
    p->pdata[slot->index] = last;
    last->index = slot->index;
    g_ptr_array_set_size(p, p->len - 1);
    slot_free(slot);
  }
}

void
lb_sends_wait_all(LbSends *sends)
{
  for (guint i = 0; i < sends->pending->len; i++) {
    LbSendSlot *slot = sends->pending->pdata[i];
    sg_comm_wait(slot->comm);
    slot->waited = TRUE; /* freed when its receiver takes the message */
  }
  g_ptr_array_set_size(sends->pending, 0);
  /* messages taken before or while waiting: their sends are over too */
  while (sends->delivered != NULL) {
    LbSendSlot *slot = sends->delivered;
    sends->delivered = slot->next;
    slot_free(slot);
  }
}
