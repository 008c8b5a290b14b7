#include "report/json-writer.h"

#include <math.h>
#include <string.h>

void
lb_json_init(LbJson *j, GString *out)
{
  j->out = out;
  j->depth = 0;
  j->first[0] = TRUE;
  j->inline_array[0] = FALSE;
}

static void
indent(LbJson *j)
{
  g_string_append_c(j->out, '\n');
  for (guint i = 0; i < j->depth; i++)
    g_string_append(j->out, "  ");
}

/* Text that is not UTF-8 (a file name is bytes) has each stray byte
 * written as U+FFFD, so the document is always valid JSON. */
static void
escape(GString *out, const char *s)
{
  g_string_append_c(out, '"');
  const char *end = s + strlen(s);
  for (const char *c = s; c < end;) {
    gunichar u = g_utf8_get_char_validated(c, end - c);
    if (u == (gunichar)-1 || u == (gunichar)-2) {
      g_string_append(out, "\\ufffd");
      c++;
      continue;
    }
    const char *next = g_utf8_next_char(c);
    switch (u) {
    case '"':
      g_string_append(out, "\\\"");
      break;
    case '\\':
      g_string_append(out, "\\\\");
      break;
    case '\n':
      g_string_append(out, "\\n");
      break;
    case '\t':
      g_string_append(out, "\\t");
      break;
    default:
      if (u < 0x20)
        g_string_append_printf(out, "\\u%04x", u);
      else
        g_string_append_len(out, c, next - c);
    }
    c = next;
  }
  g_string_append_c(out, '"');
}

static void
member(LbJson *j, const char *key)
{
  if (!j->first[j->depth])
    g_string_append_c(j->out, ',');
  j->first[j->depth] = FALSE;
  if (j->inline_array[j->depth]) {
    if (j->out->str[j->out->len - 1] == ',')
      g_string_append_c(j->out, ' ');
  } else if (j->depth > 0) {
    indent(j);
  }
  if (key != NULL) {
    escape(j->out, key);
    g_string_append(j->out, ": ");
  }
}

static void
open_scope(LbJson *j, const char *key, char c, gboolean compact)
{
  member(j, key);
  g_string_append_c(j->out, c);
  g_assert(j->depth + 1 < G_N_ELEMENTS(j->first));
  j->depth++;
  j->first[j->depth] = TRUE;
  j->inline_array[j->depth] = compact || j->inline_array[j->depth - 1];
}

static void
close_scope(LbJson *j, char c)
{
  gboolean empty = j->first[j->depth];
  gboolean compact = j->inline_array[j->depth];
  j->depth--;
  if (!empty && !compact)
    indent(j);
  g_string_append_c(j->out, c);
  if (j->depth == 0)
    g_string_append_c(j->out, '\n');
}

void
lb_json_begin_object(LbJson *j, const char *key)
{
  open_scope(j, key, '{', FALSE);
}

void
lb_json_begin_compact_object(LbJson *j, const char *key)
{
  open_scope(j, key, '{', TRUE);
}

void
lb_json_end_object(LbJson *j)
{
  close_scope(j, '}');
}

void
lb_json_begin_array(LbJson *j, const char *key, gboolean compact)
{
  open_scope(j, key, '[', compact);
}

void
lb_json_end_array(LbJson *j)
{
  close_scope(j, ']');
}

void
lb_json_string(LbJson *j, const char *key, const char *value)
{
  member(j, key);
  if (value == NULL)
    g_string_append(j->out, "null");
  else
    escape(j->out, value);
}

void
lb_json_uint(LbJson *j, const char *key, guint64 value)
{
  member(j, key);
  g_string_append_printf(j->out, "%" G_GUINT64_FORMAT, value);
}

void
lb_json_int(LbJson *j, const char *key, gint64 value)
{
  member(j, key);
  g_string_append_printf(j->out, "%" G_GINT64_FORMAT, value);
}

void
lb_json_double(LbJson *j, const char *key, double value)
{
  member(j, key);
  if (!isfinite(value)) {
    g_string_append(j->out, "null");
    return;
  }
  char buf[G_ASCII_DTOSTR_BUF_SIZE];
  g_ascii_formatd(buf, sizeof buf, "%.10g", value);
  g_string_append(j->out, buf);
}

void
lb_json_bool(LbJson *j, const char *key, gboolean value)
{
  member(j, key);
  g_string_append(j->out, value ? "true" : "false");
}

void
lb_json_raw(LbJson *j, const char *key, const char *text)
{
  member(j, key);
  gsize len = strlen(text);
  while (len > 0 && text[len - 1] == '\n')
    len--;
  /* Re-indent nested text so the document stays readable. */
  for (gsize i = 0; i < len; i++) {
    g_string_append_c(j->out, text[i]);
    if (text[i] == '\n')
      for (guint d = 0; d < j->depth; d++)
        g_string_append(j->out, "  ");
  }
}
