#include "cli/options.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

static const GOptionEntry *
short_entry(const GOptionEntry *entries, char c)
{
  for (const GOptionEntry *e = entries; e->long_name != NULL; e++)
    if (e->short_name == c)
      return e;
  return NULL;
}

/* "-qj2" as "-q", "-j", "2"; an argument it cannot read that way stays
 * whole, for GOption to name. */
static void
split_short(GPtrArray *out, const GOptionEntry *entries, const char *arg)
{
  gsize len = strlen(arg);
  g_autoptr(GPtrArray) parts = g_ptr_array_new_with_free_func(g_free);
  for (gsize i = 1; i < len; i++) {
    const GOptionEntry *e = short_entry(entries, arg[i]);
    if (e == NULL) {
      g_ptr_array_add(out, g_strdup(arg));
      return;
    }
    g_ptr_array_add(parts, g_strdup_printf("-%c", arg[i]));
    if (e->arg != G_OPTION_ARG_NONE) {
      if (i + 1 < len)
        g_ptr_array_add(parts, g_strdup(arg + i + 1));
      break;
    }
  }
  for (guint i = 0; i < parts->len; i++)
    g_ptr_array_add(out, g_steal_pointer(&parts->pdata[i]));
}

char **
lb_cli_parse(GOptionContext *ctx, const GOptionEntry *entries, int argc, char **argv,
             GError **error)
{
  GPtrArray *args = g_ptr_array_new();
  gboolean options = TRUE;
  for (int i = 0; i < argc; i++) {
    const char *a = argv[i];
    if (i > 0 && options && strcmp(a, "--") == 0)
      options = FALSE;
    if (i > 0 && options && a[0] == '-' && a[1] != '-' && a[1] != '\0' && a[2] != '\0')
      split_short(args, entries, a);
    else
      g_ptr_array_add(args, g_strdup(a));
  }
  g_ptr_array_add(args, NULL);
  char **strv = (char **)g_ptr_array_free(args, FALSE);
  if (!g_option_context_parse_strv(ctx, &strv, error)) {
    g_strfreev(strv);
    return NULL;
  }
  return strv;
}

void
lb_figure_args_clear(LbFigureArgs *a)
{
  g_free(a->size);
  g_free(a->font);
}

void
lb_figure_entries(LbFigureArgs *a, GOptionEntry *out)
{
  const GOptionEntry entries[] = {
      {"figure-size", 0, 0, G_OPTION_ARG_STRING, &a->size,
       "Figures for print: this wide (3.4in, 86mm, 8.6cm, 245pt) or WIDTHxHEIGHT; PDF and SVG "
       "in points, PNG at 300 pixels an inch, the charts' text at --figure-font",
       "SIZE"},
      {"figure-font", 0, 0, G_OPTION_ARG_STRING, &a->font,
       "With --figure-size: the charts' text (ticks, legend, axes) in points, 4 to 36 (default "
       "8)",
       "PT"},
      {"no-title", 0, 0, G_OPTION_ARG_NONE, &a->no_title,
       "Figures without their title lines (a paper's caption says it)", NULL},
  };
  G_STATIC_ASSERT(G_N_ELEMENTS(entries) == LB_FIGURE_ENTRIES);
  memcpy(out, entries, sizeof entries);
}

const char *
lb_figure_args_given(const LbFigureArgs *a)
{
  return a->size != NULL   ? "--figure-size"
         : a->font != NULL ? "--figure-font"
         : a->no_title     ? "--no-title"
                           : NULL;
}

gboolean
lb_figure_args_look(const LbFigureArgs *a, LbFigureLook *look, GError **error)
{
  *look = (LbFigureLook){0};
  look->no_title = a->no_title;
  if (a->font != NULL && a->size == NULL) {
    g_set_error_literal(error, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE,
                        "--figure-font is for --figure-size: give the figures' size too");
    return FALSE;
  }
  return (a->size == NULL || lb_figure_parse_size(a->size, &look->width, &look->height, error)) &&
         (a->font == NULL || lb_figure_parse_font(a->font, &look->font, error));
}

int
lb_cli_tap_begin(void)
{
  fflush(stdout);
  int fd = dup(STDOUT_FILENO);
  if (fd < 0 || dup2(STDERR_FILENO, STDOUT_FILENO) < 0) {
    g_printerr("lbsim: --tap: %s\n", g_strerror(errno));
    if (fd >= 0)
      close(fd);
    return -1;
  }
  return fd;
}

void
lb_cli_tap_end(int fd, const char *tap)
{
  fflush(stdout);
  gsize done = 0, length = strlen(tap);
  while (done < length) {
    gssize n = write(fd, tap + done, length - done);
    if (n < 0 && errno == EINTR)
      continue;
    if (n <= 0)
      break;
    done += (gsize)n;
  }
  close(fd);
}
