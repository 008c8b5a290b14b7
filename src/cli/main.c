/* lbsim: run load balancers on modeled machines and compare them. The
 * commands are the rows of cli/commands.c. */
#include <locale.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli/commands.h"
#include "runner/malloc-tune.h"
#include "io/output.h"
#include "lbsim/plugin.h"

/* Every command takes --plugin FILE (or --plugin=FILE), anywhere before
 * a "--": the plugins of $LBSIM_PLUGIN_PATH load first, then these, in
 * order, before the command reads its arguments; the options are taken
 * out of argv. FALSE (having said why) when one cannot be loaded. */
static gboolean
load_plugins(int *argc, char **argv)
{
  g_autoptr(GError) error = NULL;
  if (!lb_plugin_load_path(&error)) {
    g_printerr("lbsim: %s\n", error->message);
    return FALSE;
  }
  int kept = 2;
  gboolean options = TRUE;
  for (int i = 2; i < *argc; i++) {
    const char *arg = argv[i], *path = NULL;
    if (options && strcmp(arg, "--") == 0)
      options = FALSE;
    if (options && strcmp(arg, "--plugin") == 0) {
      if (i + 1 >= *argc) {
        g_printerr("lbsim: --plugin needs a file (a shared object)\n");
        return FALSE;
      }
      path = argv[++i];
    } else if (options && g_str_has_prefix(arg, "--plugin=")) {
      path = arg + strlen("--plugin=");
    }
    if (path == NULL) {
      argv[kept++] = argv[i];
      continue;
    }
    if (!lb_plugin_load(path, &error)) {
      g_printerr("lbsim: %s\n", error->message);
      return FALSE;
    }
  }
  argv[kept] = NULL;
  *argc = kept;
  return TRUE;
}

static int
dispatch(int argc, char **argv)
{
  if (argc < 2) {
    g_autofree char *usage = lb_commands_usage();
    g_printerr("%s", usage);
    return LB_EXIT_INPUT;
  }
  const char *name = argv[1];
  if (strcmp(name, "--version") == 0)
    name = "version";
  else if (strcmp(name, "--help") == 0 || strcmp(name, "-h") == 0)
    name = "help";
  const LbCommand *c = lb_command_lookup(name);
  if (c == NULL) {
    if (lb_command_suggest(name))
      return LB_EXIT_INPUT;
    g_autofree char *usage = lb_commands_usage();
    g_printerr("lbsim: unknown command '%s'\n\n%s", argv[1], usage);
    return LB_EXIT_INPUT;
  }
  /* may start lbsim anew with the same arguments, --plugin among them */
  if (c->simulates)
    lb_malloc_tune(argv);
  if (!load_plugins(&argc, argv))
    return LB_EXIT_INPUT;
  return c->run(c, argc - 1, argv + 1);
}

/* Everything lbsim prints on standard output goes through g_print, so
 * that a failed write (a full disk, a closed pipe) is remembered and the
 * command ends with status 1. */
static void
print_cb(const char *text)
{
  lb_output_stdout(text);
}

/* GOption prints --help and exits by itself: standard output is checked
 * at exit too, unless main has checked it. */
static gboolean stdout_checked;

static void
check_stdout_at_exit(void)
{
  if (!stdout_checked && lb_output_stdout_close() != 0)
    _exit(1);
}

int
main(int argc, char **argv)
{
  /* Messages in the user's language and charset; numbers always with '.':
   * SimGrid reads "1.5Gf" with strtod, and the table, the message trace and
   * SimGrid's Paje trace are printed with printf. */
  setlocale(LC_ALL, "");
  setlocale(LC_NUMERIC, "C");
  g_set_print_handler(print_cb);
  atexit(check_stdout_at_exit);
  int code = dispatch(argc, argv);
  stdout_checked = TRUE;
  /* a command that failed has said why already */
  return code != 0 ? code : lb_output_stdout_close();
}
