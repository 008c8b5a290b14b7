/* SFC partitions of an H-tree with segment shifting: what the pictures,
 * the data collection and the tests share with the balancer. */
#pragma once

#include <glib.h>

#include "balancers/sfc/curve.h"

G_BEGIN_DECLS

/* The key of an hnode (its htree location code) in the curve's sequence:
 * the curve position of its first cell in the order-`order` curve, then
 * its level. A parent's key is just before its sub-spaces', and a subtree
 * is one run of keys. */
guint64 lb_sfc_key(LbCurveKind curve, guint dim, guint order, guint64 id);

/* The rank whose segment holds key, from where every rank's segment
 * starts (ascending; an empty rank has the next rank's start), or -1
 * before the first. */
int lb_sfc_owner(const guint64 *starts, guint p, guint64 key);

/* Whether the region of hnode a holds that of hnode b (a is b or one of
 * its ancestors). */
gboolean lb_sfc_region_holds(guint dim, guint64 a, guint64 b);

G_END_DECLS
