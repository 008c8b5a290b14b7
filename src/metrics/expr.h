/* The right side of an [expect] line and the values of [let]: arithmetic
 * on numbers, the run's `ranks` and `steps`, [let] names and any
 * balancer's metric (BALANCER.METRIC, BALANCER.phase.NAME.steps), with
 * log2, ceil, floor, min and max. */
#pragma once

#include <glib.h>

typedef struct _LbExpr LbExpr;

/* NULL with an error "column N: ..." (1-based, in text). */
LbExpr *lb_expr_parse(const char *text, GError **error);
void lb_expr_free(LbExpr *expr);
G_DEFINE_AUTOPTR_CLEANUP_FUNC(LbExpr, lb_expr_free)

/* A name's value: a metric (balancer non-NULL) or a plain name (ranks,
 * steps, a [let] name). FALSE when it has none (a balancer not run: the
 * line is skipped). */
typedef gboolean (*LbExprLookup)(const char *balancer, const char *name, double *value,
                                 gpointer data);

/* The value; FALSE when a name has none (*missing: its balancer, or the
 * name). */
gboolean lb_expr_eval(const LbExpr *expr, LbExprLookup lookup, gpointer data, double *value,
                      const char **missing);

/* Every name the expression reads, in order: (balancer or NULL, name). */
typedef void (*LbExprVisit)(const char *balancer, const char *name, gpointer data);
void lb_expr_names(const LbExpr *expr, LbExprVisit visit, gpointer data);
