/* What every command shares: its option context and usage line made from
 * its row, and its one line of error. */
#include <string.h>

#include "cli/commands.h"
#include "cli/options.h"

GOptionContext *
lb_command_context(const LbCommand *self)
{
  g_autofree char *prgname = g_strdup_printf("lbsim %s", self->name);
  g_set_prgname(prgname);
  return g_option_context_new(self->args);
}

char *
lb_command_usage_line(const LbCommand *self)
{
  return g_strdup_printf("Usage: lbsim %s%s%s", self->name, *self->args != '\0' ? " " : "",
                         self->args);
}

void
lb_command_error(const GError *error)
{
  g_printerr("lbsim: %s\n", error->message);
}

char **
lb_command_parse(const LbCommand *self, GOptionEntry *entries, const char *summary, int argc,
                 char **argv)
{
  g_autoptr(GOptionContext) ctx = lb_command_context(self);
  g_option_context_add_main_entries(ctx, entries, NULL);
  g_option_context_set_summary(ctx, summary);
  g_autoptr(GError) error = NULL;
  char **args = lb_cli_parse(ctx, entries, argc, argv, &error);
  if (args == NULL)
    lb_command_error(error);
  return args;
}

int
lb_command_drop_quiet(int argc, char **argv)
{
  int kept = 0;
  for (int i = 0; i < argc; i++)
    if (i == 0 || (strcmp(argv[i], "-q") != 0 && strcmp(argv[i], "--quiet") != 0))
      argv[kept++] = argv[i];
  argv[kept] = NULL;
  return kept;
}
