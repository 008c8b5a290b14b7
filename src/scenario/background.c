/* [scenario] background: "HOSTS:SHARE[@START-END], ...", the competing
 * load that slows some hosts for part of a run. Only the text is checked
 * here; whether the hosts exist is the platform's business (src/core). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "lbsim/scenario.h"

/* no more hosts in one range than ranks in a scenario */
#define MAX_RANGE_HOSTS (1u << 20)

static void
clear_load(gpointer data)
{
  LbBackground *load = data;
  g_free(load->host);
}

static gboolean fail(GError **error, const char *format, ...) G_GNUC_PRINTF(2, 3);

static gboolean
fail(GError **error, const char *format, ...)
{
  va_list args;
  va_start(args, format);
  g_autofree char *text = g_strdup_vprintf(format, args);
  va_end(args);
  g_set_error_literal(error, LB_SCENARIO_ERROR, LB_SCENARIO_ERROR_INVALID, text);
  return FALSE;
}

/* "PREFIX<digits>", the digits without a leading zero (so that the names a
 * range makes are the names written). */
static gboolean
split_number(const char *name, gsize len, gsize *prefix_len, guint64 *number)
{
  gsize digits = 0;
  while (digits < len && g_ascii_isdigit(name[len - 1 - digits]))
    digits++;
  if (digits == 0 || (digits > 1 && name[len - digits] == '0') || digits > 9)
    return FALSE;
  *prefix_len = len - digits;
  *number = g_ascii_strtoull(name + len - digits, NULL, 10);
  return TRUE;
}

/* A range "nA-nB" (one '-' whose sides share a prefix before their
 * numbers), else one host name. */
static gboolean
add_hosts(const char *hosts, const char *entry, LbBackground load, GArray *out, GError **error)
{
  gsize len = strlen(hosts);
  if (len == 0)
    return fail(error, "'%s': no host before ':'", entry);
  for (const char *dash = strchr(hosts, '-'); dash != NULL; dash = strchr(dash + 1, '-')) {
    gsize left = (gsize)(dash - hosts), right = len - left - 1;
    gsize left_prefix = 0, right_prefix = 0;
    guint64 first = 0, last = 0;
    if (!split_number(hosts, left, &left_prefix, &first) ||
        !split_number(dash + 1, right, &right_prefix, &last) || left_prefix != right_prefix ||
        strncmp(hosts, dash + 1, left_prefix) != 0)
      continue;
    if (last < first)
      return fail(error, "'%s': the range %s runs backwards", entry, hosts);
    if (last - first >= MAX_RANGE_HOSTS)
      return fail(error, "'%s': the range %s names more than %u hosts", entry, hosts,
                  MAX_RANGE_HOSTS);
    for (guint64 n = first; n <= last; n++) {
      load.host = g_strdup_printf("%.*s%" G_GUINT64_FORMAT, (int)left_prefix, hosts, n);
      g_array_append_val(out, load);
    }
    return TRUE;
  }
  load.host = g_strdup(hosts);
  g_array_append_val(out, load);
  return TRUE;
}

/* A number of seconds at the start of *text, which moves past it. */
static gboolean
parse_time(const char **text, double *value)
{
  if (!g_ascii_isdigit(**text) && **text != '.')
    return FALSE;
  gsize span = lb_decimal_span(*text);
  g_autofree char *number = g_strndup(*text, span);
  if (span == 0 || !lb_parse_decimal(number, value))
    return FALSE;
  *text += span;
  return TRUE;
}

static gboolean
parse_entry(const char *entry, guint index, GArray *out, GError **error)
{
  const char *colon = strchr(entry, ':');
  if (colon == NULL)
    return fail(error, "'%s': expected HOSTS:SHARE[@START-END]", entry);
  g_autofree char *hosts = g_strstrip(g_strndup(entry, (gsize)(colon - entry)));
  const char *at = strchr(colon + 1, '@');
  g_autofree char *share_text =
      g_strstrip(at != NULL ? g_strndup(colon + 1, (gsize)(at - colon - 1)) : g_strdup(colon + 1));
  double share = 0;
  if (!lb_parse_decimal(share_text, &share) || !(share > 0 && share <= 1))
    return fail(error, "'%s': the share '%s' is not a number in (0, 1]", entry, share_text);

  double start = 0, stop = INFINITY;
  if (at != NULL) {
    g_autofree char *times = g_strstrip(g_strdup(at + 1));
    const char *p = times;
    if (!parse_time(&p, &start) || *p != '-')
      return fail(error, "'%s': expected @START-END or @START- after the share, in seconds", entry);
    p++;
    if (*p != '\0' && (!parse_time(&p, &stop) || *p != '\0'))
      return fail(error, "'%s': expected @START-END or @START- after the share, in seconds", entry);
    if (!(stop > start))
      return fail(error, "'%s': the load must end after it starts (END > START)", entry);
  }
  LbBackground load = {NULL, share, start, stop, index};
  return add_hosts(hosts, entry, load, out, error);
}

static int
compare_loads(const void *a, const void *b)
{
  const LbBackground *x = *(const LbBackground *const *)a, *y = *(const LbBackground *const *)b;
  int c = strcmp(x->host, y->host);
  if (c != 0)
    return c;
  if (x->start != y->start)
    return x->start < y->start ? -1 : 1;
  return x->entry < y->entry ? -1 : x->entry > y->entry;
}

/* Two loads of one host at once would leave the rank a share that neither
 * entry says: refused. */
static gboolean
check_overlaps(const GArray *loads, char **entries, GError **error)
{
  g_autofree const LbBackground **sorted = g_new(const LbBackground *, loads->len);
  for (guint i = 0; i < loads->len; i++)
    sorted[i] = &g_array_index(loads, LbBackground, i);
  qsort(sorted, loads->len, sizeof *sorted, compare_loads);
  for (guint i = 1; i < loads->len; i++) {
    const LbBackground *a = sorted[i - 1], *b = sorted[i];
    if (strcmp(a->host, b->host) == 0 && b->start < a->end)
      return fail(error, "%s is loaded twice at once, by '%s' and by '%s'", a->host,
                  entries[MIN(a->entry, b->entry)], entries[MAX(a->entry, b->entry)]);
  }
  return TRUE;
}

GArray *
lb_background_parse(const char *text, GError **error)
{
  g_autoptr(GArray) loads = g_array_new(FALSE, FALSE, sizeof(LbBackground));
  g_array_set_clear_func(loads, clear_load);
  g_autofree char *stripped = g_strstrip(g_strdup(text));
  if (*stripped == '\0')
    return g_steal_pointer(&loads);
  g_auto(GStrv) entries = g_strsplit(stripped, ",", -1);
  for (guint i = 0; entries[i] != NULL; i++) {
    g_strstrip(entries[i]);
    if (*entries[i] == '\0') {
      fail(error, "entry %u of the list is empty", i + 1);
      return NULL;
    }
    if (!parse_entry(entries[i], i, loads, error))
      return NULL;
  }
  if (!check_overlaps(loads, entries, error))
    return NULL;
  return g_steal_pointer(&loads);
}
