/* A run's result between the child that simulated it and the parent that
 * reports it: JSON written with json-glib, doubles with 17 digits, so that
 * nothing is rounded on the way; read back into the same typed structure.
 * The result files a sweep's state folder keeps are this form too. */
#pragma once

#include <glib.h>

#include "lbsim/run.h"

#define LB_TRANSPORT_ERROR (lb_transport_error_quark())
GQuark lb_transport_error_quark(void);

typedef enum {
  LB_TRANSPORT_ERROR_INPUT, /* not a result lbsim wrote, or not of this lbsim's balancers */
} LbTransportError;

/* 2: the summary an object keyed by the summary table's JSON names */
#define LB_TRANSPORT_VERSION 2

char *lb_result_to_transport(const LbRunResult *result);
LbRunResult *lb_result_from_transport(const char *text, GError **error);
