/* What the checks of every paper share: errors, points, small parsers, and
 * the runs a check makes itself. */
#include "reproduce/checks-common.h"

#include <glib/gstdio.h>
#include <string.h>

#include "lbsim/model.h"
#include "runner/runner.h"
#include "runner/transport.h"

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

/* A kept run: DIR/ID.key, the whole text it was kept under (read back
 * only when it is the same), and DIR/ID.result, its transport; each
 * written whole or not at all, the key last. */
#define KEPT_ID_CHARS 24

static LbRunResult *
kept_read(const char *key_path, const char *result_path, const char *key)
{
  g_autofree char *kept_key = NULL, *text = NULL;
  if (!g_file_get_contents(key_path, &kept_key, NULL, NULL) || strcmp(kept_key, key) != 0 ||
      !g_file_get_contents(result_path, &text, NULL, NULL))
    return NULL;
  return lb_result_from_transport(text, NULL);
}

LbRunResult *
lb_check_simulate(const LbScenario *sc, const LbScenarioOverrides *ov, LbCheckKeep keep,
                  const LbCheckSims *sims, const char *key, GError **error)
{
  g_autofree char *whole = NULL, *key_path = NULL, *result_path = NULL;
  if (key != NULL && sims->keep_dir != NULL) {
    whole = g_strdup_printf("%s\nkeep %d\n", key, (int)keep);
    g_autofree char *hex = g_compute_checksum_for_string(G_CHECKSUM_SHA256, whole, -1);
    hex[KEPT_ID_CHARS] = '\0';
    g_autofree char *key_name = g_strdup_printf("%s.key", hex);
    g_autofree char *result_name = g_strdup_printf("%s.result", hex);
    key_path = g_build_filename(sims->keep_dir, key_name, NULL);
    result_path = g_build_filename(sims->keep_dir, result_name, NULL);
    LbRunResult *kept = kept_read(key_path, result_path, whole);
    if (kept != NULL)
      return kept;
  }
  LbRunnerOptions ro = {.jobs = lb_check_processors(sims->jobs),
                        .quiet = TRUE,
                        .run = {.detail = (keep & LB_CHECK_KEEP_DETAIL) != 0,
                                .narrate = (keep & LB_CHECK_KEEP_NARRATION) != 0}};
  g_autoptr(GPtrArray) results = NULL;
  int code = 0;
  if (!lb_runner_run(sc, ov, &ro, &results, &code, error))
    return NULL;
  g_assert(results->len == 1);
  LbRunResult *res = g_ptr_array_steal_index(results, 0);
  /* kept when the folder can take it; a run that could not be kept only
   * runs again the next time */
  if (key_path != NULL && g_mkdir_with_parents(sims->keep_dir, 0777) == 0) {
    g_autofree char *text = lb_result_to_transport(res);
    if (g_file_set_contents(result_path, text, -1, NULL))
      g_file_set_contents(key_path, whole, -1, NULL);
  }
  return res;
}

/* MLB on a hypercube of p ranks over the given elements (in blocks of
 * equal counts over the ranks), narrated, its schedule kept. */
LbRunResult *
lb_check_simulate_mlb(guint p, const guint64 *elements, guint n, const LbCheckSims *sims,
                      GError **error)
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
  /* the scenario's text and its loads are the whole run */
  g_autofree char *key = g_strdup_printf("mlb\n%s\nloads.txt\n%s", text, loads->str);
  return lb_check_simulate(sc, &ov, LB_CHECK_KEEP_DETAIL | LB_CHECK_KEEP_NARRATION, sims, key,
                           error);
}
