/* Typed, range-checked parameters declared in static tables. */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

#define LB_PARAM_ERROR (lb_param_error_quark())
GQuark lb_param_error_quark(void);

typedef enum {
  LB_PARAM_ERROR_UNKNOWN,
  LB_PARAM_ERROR_INVALID,
  LB_PARAM_ERROR_MISSING,
} LbParamError;

typedef enum {
  LB_PARAM_INT,
  LB_PARAM_DOUBLE,
  LB_PARAM_CHOICE,
  LB_PARAM_BOOL,
  LB_PARAM_STRING,
} LbParamType;

/* One row of a parameter table; tables end with a row whose name is NULL. */
typedef struct {
  const char *name;
  LbParamType type;
  const char *default_value; /* text form; NULL means "required" for strings */
  double min, max;           /* inclusive range for INT and DOUBLE */
  const char *choices;       /* "a|b|c" for CHOICE */
  const char *help;
} LbParamSpec;

typedef struct _LbParams LbParams;

LbParams *lb_params_new(const LbParamSpec *spec);
void lb_params_free(LbParams *params);
LbParams *lb_params_copy(const LbParams *params);
G_DEFINE_AUTOPTR_CLEANUP_FUNC(LbParams, lb_params_free)

const LbParamSpec *lb_params_spec(const LbParams *params);
const LbParamSpec *lb_param_spec_find(const LbParamSpec *spec, const char *name);
gboolean lb_params_set(LbParams *params, const char *name, const char *value, GError **error);
gboolean lb_params_is_set(const LbParams *params, const char *name);

gint64 lb_params_get_int(const LbParams *params, const char *name);
double lb_params_get_double(const LbParams *params, const char *name);
gboolean lb_params_get_bool(const LbParams *params, const char *name);
const char *lb_params_get_string(const LbParams *params, const char *name);
/* Any parameter's value in its canonical text form (NULL if unset and
 * without default). */
const char *lb_params_get_text(const LbParams *params, const char *name);

/* The length of the decimal number at the start of text: [+-] digits
 * [. digits] [e [+-] digits], digits on at least one side of the point;
 * 0 when there is none. What else g_ascii_strtod reads (hex floats, inf,
 * nan) is no number in a scenario. */
gsize lb_decimal_span(const char *text);
/* text, blanks around it allowed, is one finite decimal number. */
gboolean lb_parse_decimal(const char *text, double *value);

/* "int", "0 .. 100", "halving | even" and friends, for help and README tables. */
char *lb_param_spec_describe_type(const LbParamSpec *spec);

G_END_DECLS
