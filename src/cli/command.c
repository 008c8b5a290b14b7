/* What every command shares: its option context and usage line made from
 * its row, and its one line of error. */
#include "cli/commands.h"

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
  return g_strdup_printf("Usage: lbsim %s %s", self->name, self->args);
}

void
lb_command_error(const GError *error)
{
  g_printerr("lbsim: %s\n", error->message);
}
