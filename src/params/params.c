#include "lbsim/params.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* the quark's name is the macro's text, spaces and all */
/* clang-format off */
G_DEFINE_QUARK(lb-param-error-quark, lb_param_error)
/* clang-format on */

struct _LbParams {
  const LbParamSpec *spec;
  GHashTable *values; /* name -> canonical text */
  GHashTable *set;    /* names given explicitly */
};

const LbParamSpec *
lb_param_spec_find(const LbParamSpec *spec, const char *name)
{
  for (; spec != NULL && spec->name != NULL; spec++)
    if (strcmp(spec->name, name) == 0)
      return spec;
  return NULL;
}

static gboolean
choice_allowed(const char *choices, const char *value)
{
  g_auto(GStrv) options = g_strsplit(choices, "|", -1);
  return g_strv_contains((const char *const *)options, value);
}

gsize
lb_decimal_span(const char *text)
{
  const char *p = text;
  if (*p == '+' || *p == '-')
    p++;
  gsize before = strspn(p, "0123456789");
  p += before;
  gsize after = 0;
  if (*p == '.') {
    after = strspn(p + 1, "0123456789");
    if (before + after > 0)
      p += 1 + after;
  }
  if (before + after == 0)
    return 0;
  if (*p == 'e' || *p == 'E') {
    const char *e = p + 1;
    if (*e == '+' || *e == '-')
      e++;
    gsize digits = strspn(e, "0123456789");
    if (digits > 0)
      p = e + digits;
  }
  return (gsize)(p - text);
}

gboolean
lb_parse_decimal(const char *text, double *value)
{
  while (g_ascii_isspace(*text))
    text++;
  gsize span = lb_decimal_span(text);
  const char *rest = text + span;
  while (g_ascii_isspace(*rest))
    rest++;
  if (span == 0 || *rest != '\0')
    return FALSE;
  errno = 0;
  double v = g_ascii_strtod(text, NULL);
  if (errno != 0 || !isfinite(v))
    return FALSE;
  *value = v;
  return TRUE;
}

/* Parses and range-checks value; on success *canonical is the text to keep. */
static gboolean
parse_value(const LbParamSpec *spec, const char *value, char **canonical, GError **error)
{
  g_autofree char *text = g_strstrip(g_strdup(value));
  char *end = NULL;

  switch (spec->type) {
  case LB_PARAM_INT: {
    errno = 0;
    gint64 v = g_ascii_strtoll(text, &end, 10);
    if (*text == '\0' || *end != '\0' || errno != 0) {
      g_set_error(error, LB_PARAM_ERROR, LB_PARAM_ERROR_INVALID, "'%s' is not an integer", text);
      return FALSE;
    }
    /* the bounds are integers below 2^53, exact as doubles: compared as
     * integers, 2^53 + 1 is not taken for 2^53 */
    if (v < (gint64)spec->min || v > (gint64)spec->max) {
      g_set_error(error, LB_PARAM_ERROR, LB_PARAM_ERROR_INVALID, "%s is out of range %.0f .. %.0f",
                  text, spec->min, spec->max);
      return FALSE;
    }
    *canonical = g_strdup_printf("%" G_GINT64_FORMAT, v);
    return TRUE;
  }
  case LB_PARAM_DOUBLE: {
    double v = 0;
    if (!lb_parse_decimal(text, &v)) {
      g_set_error(error, LB_PARAM_ERROR, LB_PARAM_ERROR_INVALID,
                  "'%s' is not a number (a finite decimal: 2.5, 1e-3)", text);
      return FALSE;
    }
    if (v < spec->min || v > spec->max) {
      g_set_error(error, LB_PARAM_ERROR, LB_PARAM_ERROR_INVALID,
                  "%s is out of range %.15g .. %.15g", text, spec->min, spec->max);
      return FALSE;
    }
    *canonical = g_strdup(text);
    return TRUE;
  }
  case LB_PARAM_CHOICE:
    if (!choice_allowed(spec->choices, text)) {
      g_auto(GStrv) parts = g_strsplit(spec->choices, "|", -1);
      g_autofree char *options = g_strjoinv(", ", parts);
      g_set_error(error, LB_PARAM_ERROR, LB_PARAM_ERROR_INVALID, "'%s' is not one of: %s", text,
                  options);
      return FALSE;
    }
    *canonical = g_steal_pointer(&text);
    return TRUE;
  case LB_PARAM_BOOL:
    if (g_ascii_strcasecmp(text, "true") == 0 || g_ascii_strcasecmp(text, "yes") == 0 ||
        strcmp(text, "1") == 0) {
      *canonical = g_strdup("true");
      return TRUE;
    }
    if (g_ascii_strcasecmp(text, "false") == 0 || g_ascii_strcasecmp(text, "no") == 0 ||
        strcmp(text, "0") == 0) {
      *canonical = g_strdup("false");
      return TRUE;
    }
    g_set_error(error, LB_PARAM_ERROR, LB_PARAM_ERROR_INVALID, "'%s' is not true or false", text);
    return FALSE;
  case LB_PARAM_STRING:
    if (*text == '\0') {
      g_set_error(error, LB_PARAM_ERROR, LB_PARAM_ERROR_INVALID, "the value is empty");
      return FALSE;
    }
    *canonical = g_steal_pointer(&text);
    return TRUE;
  }
  g_assert_not_reached();
}

LbParams *
lb_params_new(const LbParamSpec *spec)
{
  LbParams *params = g_new0(LbParams, 1);
  params->spec = spec;
  params->values = g_hash_table_new_full(g_str_hash, g_str_equal, NULL, g_free);
  params->set = g_hash_table_new(g_str_hash, g_str_equal);
  for (const LbParamSpec *s = spec; s != NULL && s->name != NULL; s++) {
    if (s->default_value == NULL)
      continue;
    char *canonical = NULL;
    gboolean ok = parse_value(s, s->default_value, &canonical, NULL);
    g_assert(ok); /* a bad default is a programmer error */
    g_hash_table_insert(params->values, (gpointer)s->name, canonical);
  }
  return params;
}

void
lb_params_free(LbParams *params)
{
  if (params == NULL)
    return;
  g_hash_table_unref(params->values);
  g_hash_table_unref(params->set);
  g_free(params);
}

LbParams *
lb_params_copy(const LbParams *params)
{
  LbParams *copy = lb_params_new(params->spec);
  GHashTableIter iter;
  gpointer key, value;
  g_hash_table_iter_init(&iter, params->values);
  while (g_hash_table_iter_next(&iter, &key, &value))
    g_hash_table_insert(copy->values, key, g_strdup(value));
  g_hash_table_iter_init(&iter, params->set);
  while (g_hash_table_iter_next(&iter, &key, NULL))
    g_hash_table_add(copy->set, key);
  return copy;
}

const LbParamSpec *
lb_params_spec(const LbParams *params)
{
  return params->spec;
}

gboolean
lb_params_set(LbParams *params, const char *name, const char *value, GError **error)
{
  const LbParamSpec *spec = lb_param_spec_find(params->spec, name);
  if (spec == NULL) {
    g_set_error(error, LB_PARAM_ERROR, LB_PARAM_ERROR_UNKNOWN, "unknown key");
    return FALSE;
  }
  char *canonical = NULL;
  if (!parse_value(spec, value, &canonical, error))
    return FALSE;
  g_hash_table_insert(params->values, (gpointer)spec->name, canonical);
  g_hash_table_add(params->set, (gpointer)spec->name);
  return TRUE;
}

gboolean
lb_params_is_set(const LbParams *params, const char *name)
{
  return g_hash_table_contains(params->set, name);
}

static const char *
lookup(const LbParams *params, const char *name, LbParamType type)
{
  const LbParamSpec *spec = lb_param_spec_find(params->spec, name);
  g_assert(spec != NULL && spec->type == type);
  return g_hash_table_lookup(params->values, name);
}

gint64
lb_params_get_int(const LbParams *params, const char *name)
{
  return g_ascii_strtoll(lookup(params, name, LB_PARAM_INT), NULL, 10);
}

double
lb_params_get_double(const LbParams *params, const char *name)
{
  return g_ascii_strtod(lookup(params, name, LB_PARAM_DOUBLE), NULL);
}

gboolean
lb_params_get_bool(const LbParams *params, const char *name)
{
  return strcmp(lookup(params, name, LB_PARAM_BOOL), "true") == 0;
}

const char *
lb_params_get_string(const LbParams *params, const char *name)
{
  const LbParamSpec *spec = lb_param_spec_find(params->spec, name);
  g_assert(spec != NULL && (spec->type == LB_PARAM_STRING || spec->type == LB_PARAM_CHOICE));
  return g_hash_table_lookup(params->values, name);
}

char *
lb_param_spec_describe_type(const LbParamSpec *spec)
{
  switch (spec->type) {
  case LB_PARAM_INT:
    return g_strdup_printf("integer %.0f .. %.0f", spec->min, spec->max);
  case LB_PARAM_DOUBLE:
    return g_strdup_printf("number %.6g .. %.6g", spec->min, spec->max);
  case LB_PARAM_CHOICE: {
    g_auto(GStrv) options = g_strsplit(spec->choices, "|", -1);
    g_autofree char *joined = g_strjoinv(" | ", options);
    return g_strdup(joined);
  }
  case LB_PARAM_BOOL:
    return g_strdup("true | false");
  case LB_PARAM_STRING:
    return g_strdup("text");
  }
  g_assert_not_reached();
}

const char *
lb_params_get_text(const LbParams *params, const char *name)
{
  g_assert(lb_param_spec_find(params->spec, name) != NULL);
  return g_hash_table_lookup(params->values, name);
}
