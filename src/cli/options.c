#include "cli/options.h"

#include <string.h>

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
