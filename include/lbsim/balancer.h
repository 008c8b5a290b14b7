/* The balancer interface: one entry signature, one registry table. */
#pragma once

#include <glib.h>
#include "lbsim/params.h"
#include "lbsim/rank.h"

G_BEGIN_DECLS

typedef struct {
  const char *name;
  const char *summary;
  const char *seed; /* the source document behind it */
  const LbParamSpec *params;
  const char *const *phases; /* NULL-terminated; may be empty */
  int schedule_phase;        /* the phase that moves data, -1 if none */
  gboolean keeps_order;      /* result: contiguous ranges in rank order */
  /* Checks what the parameters cannot check alone (e.g. p = 2^d). */
  gboolean (*check)(guint ranks, const LbParams *params, GError **error);
  /* Called on every rank at every adaptation step. */
  void (*balance)(LbRank *self);
} LbBalancer;

const LbBalancer *lb_balancer_lookup(const char *name);
/* NULL-terminated, in registry order. */
const LbBalancer *const *lb_balancers(void);

G_END_DECLS
