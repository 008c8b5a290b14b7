#include "cli/commands.h"
#include "io/datadir.h"
#include "lbsim/plugin.h"

#include <string.h>

static const LbCommand commands[] = {
    {"run", "SCENARIO.ini", "run a scenario's balancers side by side", lb_cmd_run, TRUE},
    {"check", "SCENARIO.ini [MORE.ini ...]", "run, then hold the scenarios' [expect] lines",
     lb_cmd_check, TRUE},
    {"report", "RESULT.json DIR", "an HTML page of a run's or a sweep's JSON", lb_cmd_report,
     FALSE},
    {"list", "[BALANCER | --markdown | --scenarios]", "the balancers and models, their parameters",
     lb_cmd_list, FALSE},
    {"explain", "BALANCER [SCENARIO.ini]", "narrate a balancer on a small case, step by step",
     lb_cmd_explain, TRUE},
    {"curve", "hilbert|morton", "a space-filling curve's cells, in order", lb_cmd_curve, FALSE},
    {"chunks", "stat|ss|fsc|gss|tss|fac|frac|wf|awf|af",
     "the chunks a loop scheduling technique hands out", lb_cmd_chunks, FALSE},
    {"sweep", "SCENARIO.ini", "a scenario over a cross product of values", lb_cmd_sweep, TRUE},
    {"merge", "STATE-DIR|RUN.result ...", "gather the results of a sweep run elsewhere",
     lb_cmd_merge, FALSE},
    {"reproduce", "[KEY]", "a source paper's experiment, its claims beside lbsim's numbers",
     lb_cmd_reproduce, TRUE},
    {"diff", "A.json B.json", "two results of one scenario (or paper), value by value", lb_cmd_diff,
     FALSE},
    {"run-job", "JOB.ini RESULT.json", "one job of a sweep (the child side, for clusters)",
     lb_cmd_run_job, TRUE},
    {"help", "[COMMAND]", "this text, or a command's options", lb_cmd_help, FALSE},
    {"version", "", "lbsim's version", lb_cmd_version, FALSE},
    {NULL},
};

const LbCommand *
lb_commands(void)
{
  return commands;
}

const LbCommand *
lb_command_lookup(const char *name)
{
  for (const LbCommand *c = commands; c->name != NULL; c++)
    if (strcmp(c->name, name) == 0)
      return c;
  return NULL;
}

/* Edits (insert, delete, substitute, swap two neighbours) from a to b. */
static guint
distance(const char *a, const char *b)
{
  gsize n = strlen(a), m = strlen(b);
  g_autofree guint *d = g_new(guint, (n + 1) * (m + 1));
#define D(i, j) d[(i) * (m + 1) + (j)]
  for (gsize i = 0; i <= n; i++)
    D(i, 0) = (guint)i;
  for (gsize j = 0; j <= m; j++)
    D(0, j) = (guint)j;
  for (gsize i = 1; i <= n; i++)
    for (gsize j = 1; j <= m; j++) {
      guint best = MIN(D(i - 1, j) + 1, D(i, j - 1) + 1);
      best = MIN(best, D(i - 1, j - 1) + (a[i - 1] != b[j - 1]));
      if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1])
        best = MIN(best, D(i - 2, j - 2) + 1);
      D(i, j) = best;
    }
  guint result = D(n, m);
#undef D
  return result;
}

const LbCommand *
lb_command_nearest(const char *name)
{
  const LbCommand *best = NULL;
  guint least = G_MAXUINT;
  for (const LbCommand *c = commands; c->name != NULL; c++) {
    guint e = distance(name, c->name);
    /* a prefix of a command ("repro") is near it too */
    if (strlen(name) >= 3 && g_str_has_prefix(c->name, name))
      e = 1;
    if (e < least) {
      least = e;
      best = c;
    }
  }
  return least <= 2 ? best : NULL;
}

gboolean
lb_command_suggest(const char *typed)
{
  const LbCommand *near = lb_command_nearest(typed);
  if (near == NULL)
    return FALSE;
  g_printerr("lbsim: unknown command '%s': did you mean '%s'? (lbsim help lists the commands)\n",
             typed, near->name);
  return TRUE;
}

char *
lb_commands_usage(void)
{
  GString *out = g_string_new("Usage: lbsim COMMAND [OPTION...] [ARGUMENT...]\n\n"
                              "Simulates parallel load balancers as message-passing code on a "
                              "SimGrid\nplatform and reports how well and at what cost each one "
                              "balanced.\n\nCommands:\n");
  for (const LbCommand *c = commands; c->name != NULL; c++) {
    g_autofree char *head = g_strdup_printf("%s %s", c->name, c->args);
    if (strlen(head) <= 27)
      g_string_append_printf(out, "  %-28s%s\n", head, c->summary);
    else
      g_string_append_printf(out, "  %s\n  %-28s%s\n", head, "", c->summary);
  }
  g_string_append(out,
                  "\nEvery command also takes --plugin FILE (a shared object of balancers or\n"
                  "models of your own; also $LBSIM_PLUGIN_PATH, a colon-separated list of\n"
                  "files and folders). A scenario is a file, or the name of a shipped one\n"
                  "(mlb-teach-16).\n"
                  "\nlbsim help COMMAND (or lbsim COMMAND --help) shows a command's options;\n"
                  "lbsim --version its version and where its data and docs are; docs/reference/\n"
                  "has the scenario files and the JSON format.\n");
  return g_string_free(out, FALSE);
}

int
lb_cmd_help(const LbCommand *self, int argc, char **argv)
{
  if (argc > 2) {
    g_printerr("lbsim: help takes at most one command\n");
    return LB_EXIT_INPUT;
  }
  if (argc == 2 && strcmp(argv[1], "--help") != 0 && strcmp(argv[1], "-h") != 0) {
    const LbCommand *c = lb_command_lookup(argv[1]);
    if (c == NULL) {
      if (!lb_command_suggest(argv[1]))
        g_printerr("lbsim: unknown command '%s' (lbsim --help lists them)\n", argv[1]);
      return LB_EXIT_INPUT;
    }
    char *args[] = {argv[1], "--help", NULL};
    return c->run(c, 2, args);
  }
  g_autofree char *usage = lb_commands_usage();
  g_print("%s", usage);
  return 0;
}

int
lb_cmd_version(const LbCommand *self, int argc, char **argv)
{
  if (argc == 2 && (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0)) {
    g_autofree char *usage = lb_command_usage_line(self);
    g_print("%s\n\n"
            "Prints lbsim's version; where its data are (platforms/ and scenarios/;\n"
            "$LBSIM_DATA_DIR if set) and its docs (reference/, the tutorial, the\n"
            "families' pages); its plugin ABI version; and the plugins loaded, one a line.\n",
            usage);
    return 0;
  }
  g_print("lbsim %s\n", LB_VERSION);
  const char *data = lb_data_dir();
  g_print("data: %s\n", data != NULL ? data : "none found (set LBSIM_DATA_DIR)");
  const char *docs = lb_doc_dir();
  g_print("docs: %s\n", docs != NULL ? docs : "none found");
  g_print("plugin ABI: %d\n", LB_ABI_VERSION);
  for (const char *const *p = lb_plugins_loaded(); *p != NULL; p++)
    g_print("plugin: %s\n", *p);
  return 0;
}
