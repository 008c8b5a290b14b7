/* A small streaming JSON writer with fixed number formatting, so that the
 * same results always print the same bytes. */
#pragma once

#include <glib.h>

typedef struct _LbJson {
  GString *out;
  guint depth;
  gboolean first[32];
  gboolean inline_array[32];
} LbJson;

void lb_json_init(LbJson *j, GString *out);
void lb_json_begin_object(LbJson *j, const char *key);
/* An object on one line (a row of a table). */
void lb_json_begin_compact_object(LbJson *j, const char *key);
void lb_json_end_object(LbJson *j);
/* A compact array prints on one line (for long lists of numbers). */
void lb_json_begin_array(LbJson *j, const char *key, gboolean compact);
void lb_json_end_array(LbJson *j);
void lb_json_string(LbJson *j, const char *key, const char *value);
void lb_json_uint(LbJson *j, const char *key, guint64 value);
void lb_json_int(LbJson *j, const char *key, gint64 value);
void lb_json_double(LbJson *j, const char *key, double value);
void lb_json_bool(LbJson *j, const char *key, gboolean value);
/* Inserts already formatted JSON text as a value. */
void lb_json_raw(LbJson *j, const char *key, const char *text);
