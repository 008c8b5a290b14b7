/* The commands of lbsim: one row each in lb_commands(), each in a file of
 * its own (cmd-NAME.c). `lbsim --help`, `lbsim help NAME` and each
 * command's usage line are made from the rows. */
#pragma once

#include <glib.h>

/* The exit status of bad input, for every command. */
#define LB_EXIT_INPUT 2

typedef struct LbCommand LbCommand;
struct LbCommand {
  const char *name;
  const char *args;    /* what follows the name and the options: "SCENARIO.ini" */
  const char *summary; /* one line of lbsim --help */
  /* self its row; argv[0] is the command's name; returns the exit status */
  int (*run)(const LbCommand *self, int argc, char **argv);
  gboolean simulates; /* runs SimGrid in this process or its children */
};

/* The rows, in the order of lbsim --help; the last has a NULL name. */
const LbCommand *lb_commands(void);
const LbCommand *lb_command_lookup(const char *name);
/* The command a mistyped name most likely meant (two edits away at
 * most, or a name it begins), or NULL. */
const LbCommand *lb_command_nearest(const char *name);
/* Says on stderr which command `typed` most likely meant; FALSE, having
 * said nothing, when none is near. */
gboolean lb_command_suggest(const char *typed);
/* lbsim --help's text. */
char *lb_commands_usage(void);
/* A command's option context, its usage line made from its row:
 * "lbsim NAME [OPTION…] ARGS" (cli/command.c, as the two below). */
GOptionContext *lb_command_context(const LbCommand *self);
/* "Usage: lbsim NAME ARGS", for the commands that take no options. */
char *lb_command_usage_line(const LbCommand *self);
/* For a command that parses its own few arguments: -q and --quiet, which
 * every command takes, dropped (it prints nothing on stderr but errors);
 * the new argc. */
int lb_command_drop_quiet(int argc, char **argv);

/* One line on stderr: "lbsim: MESSAGE". */
void lb_command_error(const GError *error);
/* A command's options read by its entries (summary: --help's text above
 * them): the arguments left, argv[0] first (free with g_strfreev), or NULL
 * once it has said why on stderr; the command then exits LB_EXIT_INPUT. */
char **lb_command_parse(const LbCommand *self, GOptionEntry *entries, const char *summary, int argc,
                        char **argv);

int lb_cmd_run(const LbCommand *self, int argc, char **argv);
int lb_cmd_check(const LbCommand *self, int argc, char **argv);
int lb_cmd_report(const LbCommand *self, int argc, char **argv);
int lb_cmd_list(const LbCommand *self, int argc, char **argv);
int lb_cmd_explain(const LbCommand *self, int argc, char **argv);
int lb_cmd_curve(const LbCommand *self, int argc, char **argv);
int lb_cmd_chunks(const LbCommand *self, int argc, char **argv);
int lb_cmd_sweep(const LbCommand *self, int argc, char **argv);
int lb_cmd_merge(const LbCommand *self, int argc, char **argv);
int lb_cmd_diff(const LbCommand *self, int argc, char **argv);
int lb_cmd_reproduce(const LbCommand *self, int argc, char **argv);
int lb_cmd_run_job(const LbCommand *self, int argc, char **argv);
int lb_cmd_help(const LbCommand *self, int argc, char **argv);
int lb_cmd_version(const LbCommand *self, int argc, char **argv);
