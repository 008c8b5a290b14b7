/* lbsim chunks: the chunks a loop scheduling technique hands out. */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "balancers/dls/chunks.h"
#include "cli/commands.h"
#include "io/out-buffer.h"

/* Output of `lbsim chunks` has P lines at least: P up to 2^20. */
#define CHUNKS_MAX_WORKERS (1u << 20)

/* --set dls.KEY=VALUE, for the chunk keys other than the technique. */
static gboolean
chunks_set(LbParams *params, const char *set, GError **error)
{
  const char *eq = strchr(set, '=');
  if (!g_str_has_prefix(set, "dls.") || eq == NULL || eq == set + strlen("dls.")) {
    g_set_error(error, LB_PARAM_ERROR, LB_PARAM_ERROR_INVALID, "--set %s: expected dls.KEY=VALUE",
                set);
    return FALSE;
  }
  g_autofree char *key = g_strstrip(g_strndup(set + strlen("dls."), eq - set - strlen("dls.")));
  if (strcmp(key, "technique") == 0) {
    g_set_error(error, LB_PARAM_ERROR, LB_PARAM_ERROR_INVALID,
                "--set %s: the technique is the command's argument", set);
    return FALSE;
  }
  g_autoptr(GError) local = NULL;
  if (lb_params_set(params, key, eq + 1, &local))
    return TRUE;
  if (g_error_matches(local, LB_PARAM_ERROR, LB_PARAM_ERROR_UNKNOWN)) {
    g_autoptr(GString) known = g_string_new(NULL);
    for (const LbParamSpec *s = dls_chunk_params; s->name != NULL; s++)
      if (strcmp(s->name, "technique") != 0)
        g_string_append_printf(known, "%s%s", known->len ? ", " : "", s->name);
    g_set_error(error, LB_PARAM_ERROR, LB_PARAM_ERROR_UNKNOWN,
                "--set %s: unknown [dls] key '%s' (known: %s)", set, key, known->str);
  } else {
    g_set_error(error, LB_PARAM_ERROR, LB_PARAM_ERROR_INVALID, "--set %s: [dls] %s: %s", set, key,
                local->message);
  }
  return FALSE;
}

/* --weights and --min-chunk: the keys by another name, given once. */
static gboolean
chunks_option(LbParams *params, const char *option, const char *key, const char *value,
              GError **error)
{
  g_autoptr(GError) local = NULL;
  if (value == NULL)
    return TRUE;
  if (lb_params_is_set(params, key)) {
    g_set_error(error, LB_PARAM_ERROR, LB_PARAM_ERROR_INVALID,
                "%s and --set dls.%s both given: give one", option, key);
    return FALSE;
  }
  if (!lb_params_set(params, key, value, &local)) {
    g_set_error(error, LB_PARAM_ERROR, LB_PARAM_ERROR_INVALID, "%s %s: %s", option, value,
                local->message);
    return FALSE;
  }
  return TRUE;
}

int
lb_cmd_chunks(const LbCommand *self, int argc, char **argv)
{
  g_autofree char *n_text = NULL, *p_text = NULL, *weights = NULL, *min_chunk = NULL;
  g_autofree char *workers = NULL, *json = NULL;
  g_auto(GStrv) sets = NULL;
  gboolean quiet = FALSE;
  GOptionEntry entries[] = {
      {"iterations", 0, 0, G_OPTION_ARG_STRING, &n_text, "The loop's iterations: 1 to 2^53", "N"},
      {"ranks", 'p', 0, G_OPTION_ARG_STRING, &p_text,
       "The ranks that run the loop (its workers): 1 to 1048576", "P"},
      /* its first name, kept for scripts that use it */
      {"workers", 0, G_OPTION_FLAG_HIDDEN, G_OPTION_ARG_STRING, &workers, NULL, "P"},
      {"weights", 0, 0, G_OPTION_ARG_STRING, &weights,
       "Relative speeds, one per worker (the [dls] weights key; its default, speeds, is all "
       "equal here: no platform)",
       "W0,W1,..."},
      {"min-chunk", 0, 0, G_OPTION_ARG_STRING, &min_chunk,
       "The smallest chunk but the last (frac: a tile's last; the [dls] min-chunk key; default 1)",
       "M"},
      {"set", 's', 0, G_OPTION_ARG_STRING_ARRAY, &sets,
       "Set a [dls] key: min-chunk, fsc-h, fsc-sigma, weights (repeatable)", "dls.KEY=VALUE"},
      {"json", 0, 0, G_OPTION_ARG_FILENAME, &json,
       "Also write the chunks to FILE as a JSON array of {\"size\", \"worker\"} objects in "
       "order (-: standard output, instead of the lines)",
       "FILE"},
      /* as every command takes it: the output is on standard output */
      {"quiet", 'q', 0, G_OPTION_ARG_NONE, &quiet, "No progress on stderr (prints none)", NULL},
      {NULL},
  };
  g_auto(GStrv) parsed = lb_command_parse(
      self, entries,
      "Prints the chunks a dynamic loop scheduling technique hands out for a loop of N\n"
      "iterations on P ranks when requests come round-robin (worker 0, 1, ..., P-1, 0, ...),\n"
      "one chunk a line: its size and, for frac, wf, awf and af, whose sizes depend on who\n"
      "asks, the requesting worker after a space (frac: the chunk is cut from its tile).\n"
      "Each technique's formula: docs/families/dls.md; the simulator's dls balancer uses\n"
      "the same code.\n"
      "awf and af adapt from measured chunk times. Here worker r runs an iteration in\n"
      "1/w_r seconds (w: the weights) and reports each chunk as soon as it gets it: awf\n"
      "then gives wf's chunks, and af, after one fac chunk, gives each requester its\n"
      "share of what is left by speed (no spread is measured).\n"
      "Exit status: 0 done, 1 stdout could not be written, 2 bad input.",
      argc, argv);
  if (parsed == NULL)
    return LB_EXIT_INPUT;
  g_autoptr(GError) error = NULL;
  argc = (int)g_strv_length(parsed);
  argv = parsed;
  DlsTechnique t;
  /* --json once was a flag: "--json fac" would name a file fac */
  if (argc == 1 && json != NULL && dls_technique_parse(json, &t)) {
    g_printerr("lbsim: --json takes a FILE (- for standard output): lbsim chunks %s "
               "--iterations N --ranks P --json FILE\n",
               json);
    return LB_EXIT_INPUT;
  }
  if (workers != NULL && p_text != NULL) {
    g_printerr("lbsim: --workers is --ranks by its former name: give one\n");
    return LB_EXIT_INPUT;
  }
  if (workers != NULL)
    p_text = g_steal_pointer(&workers);
  if (argc != 2) {
    g_printerr("lbsim: chunks needs one technique: stat, ss, fsc, gss, tss, fac, frac, wf, awf "
               "or af (see lbsim chunks --help)\n");
    return LB_EXIT_INPUT;
  }
  if (!dls_technique_parse(argv[1], &t)) {
    g_printerr(
        "lbsim: unknown technique '%s' (stat, ss, fsc, gss, tss, fac, frac, wf, awf or af)\n",
        argv[1]);
    return LB_EXIT_INPUT;
  }
  guint64 n = 0, p = 0;
  if (n_text == NULL || p_text == NULL) {
    g_printerr("lbsim: chunks needs --iterations N and --ranks P\n");
    return LB_EXIT_INPUT;
  }
  if (!g_ascii_string_to_unsigned(n_text, 10, 1, (guint64)DLS_MAX_ITERATIONS, &n, NULL)) {
    g_printerr("lbsim: --iterations '%s': expected a whole number from 1 to 2^53\n", n_text);
    return LB_EXIT_INPUT;
  }
  if (!g_ascii_string_to_unsigned(p_text, 10, 1, CHUNKS_MAX_WORKERS, &p, NULL)) {
    g_printerr("lbsim: --ranks '%s': expected a whole number from 1 to %u\n", p_text,
               CHUNKS_MAX_WORKERS);
    return LB_EXIT_INPUT;
  }
  g_autoptr(LbParams) params = lb_params_new(dls_chunk_params);
  for (guint i = 0; sets != NULL && sets[i] != NULL; i++)
    if (!chunks_set(params, sets[i], &error)) {
      lb_command_error(error);
      return LB_EXIT_INPUT;
    }
  g_auto(DlsChunkParams) cp = {0};
  if (!chunks_option(params, "--weights", "weights", weights, &error) ||
      !chunks_option(params, "--min-chunk", "min-chunk", min_chunk, &error)) {
    lb_command_error(error);
    return LB_EXIT_INPUT;
  }
  if (!dls_chunk_params_read(&cp, params, (guint)p, NULL, &error)) {
    g_printerr("lbsim: [dls] %s\n", error->message);
    return LB_EXIT_INPUT;
  }

  g_autoptr(DlsChunker) c = dls_chunker_new(t, n, (guint)p, &cp);
  gboolean by_worker = dls_technique_by_worker(t);
  /* the lines on standard output (unless the JSON is), the JSON to its
   * FILE or standard output */
  g_autofree LbOutBuffer *lines = g_new0(LbOutBuffer, 1);
  g_autofree LbOutBuffer *array = g_new0(LbOutBuffer, 1);
  int status = 0;
  LbOutput *file = lb_out_open_file(json, array, &status);
  if (status != 0)
    return status;
  gboolean text = g_strcmp0(json, "-") != 0;
  if (json != NULL)
    lb_out_text(array, "[");
  guint64 printed = 0, idle = 0;
  for (guint64 i = 0; dls_chunker_remaining(c) > 0; i++) {
    guint w = (guint)(i % p);
    guint64 size = dls_chunker_next(c, w);
    /* only stat's served workers get nothing while iterations are left */
    idle = size == 0 ? idle + 1 : 0;
    g_assert(idle < p);
    if (size == 0)
      continue;
    dls_chunker_report(c, w, size, (double)size / (cp.weights != NULL ? cp.weights[w] : 1.0));
    if (json != NULL) {
      lb_out_text(array, printed++ > 0 ? ",\n  {\"size\": " : "\n  {\"size\": ");
      lb_out_number(array, size);
      lb_out_text(array, ", \"worker\": ");
      lb_out_number(array, w);
      lb_out_text(array, "}");
    }
    if (text) {
      lb_out_number(lines, size);
      if (by_worker) {
        lb_out_text(lines, " ");
        lb_out_number(lines, w);
      }
      lb_out_text(lines, "\n");
    }
  }
  if (json != NULL)
    lb_out_text(array, "\n]\n");
  return lb_out_end(lines, array, file, json);
}
