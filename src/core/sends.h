/* A rank's sends until it lets go of them, shared by lbsim's ranks
 * (core/comm.c) and tools/bare-replay.c, so that the floor makes the same
 * SimGrid calls. SimGrid 3.32 keeps each send on a list of its actor's
 * activities until the actor waits for it, and every completion the actor
 * waits for walks that whole list (std::list::remove), as does every
 * computation's end. So a send is let go of as soon as it is known to be
 * over: the receiver that takes the message from its mailbox hands the
 * send's slot back (lb_sends_taken), and the sender waits for those, at
 * once since they are done, at its next send or receive (lb_sends_reap).
 * Waiting with no time to wait on every pending send once 8 were pending
 * left sfc-shift at 4096 ranks 724,482 such waits on sends still in flight
 * for 3.1 million sends, each a sleep action that took nothing off the list
 * (docs/developer/performance.md). */
#pragma once

#include <glib.h>
#include <simgrid/forward.h>

typedef struct _LbSendSlot LbSendSlot;

typedef struct {
  GPtrArray *pending;    /* its slots not yet waited for */
  LbSendSlot *delivered; /* those whose messages their receivers took */
} LbSends;

void lb_sends_init(LbSends *sends);
void lb_sends_clear(LbSends *sends);
/* A slot for a send about to start, to attach to its message before the
 * put (which lets the receiver run, and take the message, before it
 * returns); then lb_sends_started with the put's comm. */
LbSendSlot *lb_sends_slot(LbSends *sends);
void lb_sends_started(LbSendSlot *slot, sg_comm_t comm);
/* The receiver took the slot's message from its mailbox. */
void lb_sends_taken(LbSendSlot *slot);
/* Waits for the sends whose messages were taken (done: no time passes). */
void lb_sends_reap(LbSends *sends);
/* Waits for every pending send. */
void lb_sends_wait_all(LbSends *sends);
