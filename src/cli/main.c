/* lbsim: run load balancers on modeled machines and compare them. The
 * commands are the rows of cli/commands.c. */
#include <locale.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli/commands.h"
#include "cli/malloc-tune.h"
#include "io/output.h"

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
    g_autofree char *usage = lb_commands_usage();
    g_printerr("lbsim: unknown command '%s'\n\n%s", argv[1], usage);
    return LB_EXIT_INPUT;
  }
  if (c->simulates)
    lb_malloc_tune(argv);
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
