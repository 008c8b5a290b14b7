/* What the checks of every paper share: errors, points, small parsers, and
 * the runs a check makes itself. */
#include "reproduce/checks-common.h"

#include <glib/gstdio.h>
#include <string.h>

#include "lbsim/model.h"
#include "runner/runner.h"

/* clang-format off */
G_DEFINE_QUARK(lb-repro-check-error-quark, lb_repro_check_error)
/* clang-format on */

gboolean
lb_check_fail(GError **error, const char *format, ...)
{
  va_list args;
  va_start(args, format);
  g_autofree char *text = g_strdup_vprintf(format, args);
  va_end(args);
  g_set_error_literal(error, lb_repro_check_error_quark(), 0, text);
  return FALSE;
}

void
lb_check_output_point(LbCheckOutput *out, double value, const char *format, ...)
{
  if (out->points == NULL)
    out->points = g_array_new(FALSE, FALSE, sizeof(LbCheckPoint));
  va_list args;
  va_start(args, format);
  LbCheckPoint pt = {g_strdup_vprintf(format, args), value, 0, 0};
  va_end(args);
  g_array_append_val(out->points, pt);
}

guint
lb_check_log2_of(guint64 p)
{
  guint d = 0;
  while ((G_GUINT64_CONSTANT(1) << d) < p)
    d++;
  return d;
}

gboolean
lb_check_power_of_two(guint64 p)
{
  return p > 0 && (p & (p - 1)) == 0;
}

/* "0110" -> 6; at most 20 bits. */
gboolean
lb_check_binary(const char *text, guint *value)
{
  guint v = 0, n = 0;
  for (const char *c = text; *c != '\0'; c++, n++) {
    if ((*c != '0' && *c != '1') || n >= 20)
      return FALSE;
    v = v << 1 | (guint)(*c - '0');
  }
  *value = v;
  return n > 0;
}

char *
lb_check_bits_text(guint v, guint width)
{
  char *s = g_malloc(width + 1);
  for (guint b = 0; b < width; b++)
    s[b] = (v >> (width - 1 - b)) & 1u ? '1' : '0';
  s[width] = '\0';
  return s;
}

/* "5,1,7" -> its numbers. */
GArray *
lb_check_numbers(const char *text)
{
  g_auto(GStrv) items = g_strsplit(text, ",", -1);
  GArray *out = g_array_new(FALSE, FALSE, sizeof(guint64));
  for (guint i = 0; items[i] != NULL; i++) {
    guint64 v = 0;
    if (!g_ascii_string_to_unsigned(g_strstrip(items[i]), 10, 0, G_MAXUINT32, &v, NULL)) {
      g_array_unref(out);
      return NULL;
    }
    g_array_append_val(out, v);
  }
  return out;
}

guint
lb_check_processors(guint jobs)
{
  return jobs > 0 ? jobs : MAX(g_get_num_processors(), 1);
}

int
lb_check_compare_guint64(gconstpointer a, gconstpointer b)
{
  guint64 x = *(const guint64 *)a, y = *(const guint64 *)b;
  return x < y ? -1 : x > y;
}

/* ---- real runs the checks make themselves ---- */

LbRunResult *
lb_check_simulate(const LbScenario *sc, const LbScenarioOverrides *ov, LbCheckKeep keep, guint jobs,
                  GError **error)
{
  LbRunnerOptions ro = {.jobs = lb_check_processors(jobs),
                        .quiet = TRUE,
                        .run = {.detail = (keep & LB_CHECK_KEEP_DETAIL) != 0,
                                .narrate = (keep & LB_CHECK_KEEP_NARRATION) != 0}};
  g_autoptr(GPtrArray) results = NULL;
  int code = 0;
  if (!lb_runner_run(sc, ov, &ro, &results, &code, error))
    return NULL;
  g_assert(results->len == 1);
  return g_ptr_array_steal_index(results, 0);
}

/* MLB on a hypercube of p ranks over the given elements (in blocks of
 * equal counts over the ranks), narrated, its schedule kept. */
LbRunResult *
lb_check_simulate_mlb(guint p, const guint64 *elements, guint n, guint jobs, GError **error)
{
  g_autofree char *platforms = g_canonicalize_filename(lb_platform_dir(), NULL);
  g_autofree char *name = g_strdup_printf("hypercube-%u.xml", p);
  g_autofree char *platform = g_build_filename(platforms, name, NULL);
  g_autofree char *text = g_strdup_printf("[scenario]\nname = check\nplatform = %s\nranks = %u\n"
                                          "[workload]\npattern = file\nfile = loads.txt\n"
                                          "[balancers]\nrun = mlb\n",
                                          platform, p);
  g_autoptr(GString) loads = g_string_new(NULL);
  for (guint i = 0; i < n; i++)
    g_string_append_printf(loads, "%s%" G_GUINT64_FORMAT, i ? " " : "", elements[i]);
  g_string_append_c(loads, '\n');
  LbScenarioOverrides ov = {0};
  g_autoptr(LbScenario) sc = lb_scenario_load_text(text, loads->str, NULL, &ov, error);
  if (sc == NULL)
    return NULL;
  return lb_check_simulate(sc, &ov, LB_CHECK_KEEP_DETAIL | LB_CHECK_KEEP_NARRATION, jobs, error);
}
