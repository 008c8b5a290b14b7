/* Loading plugins: shared objects that register balancers and models
 * through the public API (include/lbsim/plugin.h). */
#include "lbsim/plugin.h"

#include <string.h>

#include "balancers/registry.h"
#include "workloads/models.h"

struct _LbPlugin {
  char *path; /* canonical */
};

/* The canonical paths loaded, in order, NULL-ended. */
static GPtrArray *loaded;

static gboolean G_GNUC_PRINTF(3, 4)
    refuse(GError **error, const char *path, const char *format, ...)
{
  va_list args;
  va_start(args, format);
  g_autofree char *why = g_strdup_vprintf(format, args);
  va_end(args);
  g_set_error(error, LB_PLUGIN_ERROR, 0, "plugin %s: %s", path, why);
  return FALSE;
}

gboolean
lb_plugin_add_balancer(LbPlugin *plugin, const LbBalancer *balancer, GError **error)
{
  return lb_balancer_register_from(balancer, plugin->path, error);
}

gboolean
lb_plugin_add_model(LbPlugin *plugin, const LbModel *model, GError **error)
{
  return lb_model_register_from(model, plugin->path, error);
}

const char *
lb_plugin_path(const LbPlugin *plugin)
{
  return plugin->path;
}

const char *const *
lb_plugins_loaded(void)
{
  if (loaded == NULL) {
    loaded = g_ptr_array_new();
    g_ptr_array_add(loaded, NULL);
  }
  return (const char *const *)loaded->pdata;
}

gboolean
lb_plugin_load(const char *path, GError **error)
{
  if (!g_module_supported())
    return refuse(error, path, "this build cannot load shared objects");
  if (!g_file_test(path, G_FILE_TEST_EXISTS))
    return refuse(error, path, "no such file");
  if (!g_file_test(path, G_FILE_TEST_IS_REGULAR))
    return refuse(error, path, "not a regular file");
  g_autofree char *canonical = g_canonicalize_filename(path, NULL);
  for (const char *const *p = lb_plugins_loaded(); *p != NULL; p++)
    if (strcmp(*p, canonical) == 0)
      return TRUE;
  /* BIND_LOCAL: two plugins may both define helpers of the same name */
  GModule *module = g_module_open(canonical, G_MODULE_BIND_LOCAL);
  if (module == NULL)
    return refuse(error, path, "cannot be loaded: %s", g_module_error());
  gpointer abi = NULL, init = NULL;
  if (!g_module_symbol(module, LB_PLUGIN_ABI_SYMBOL, &abi) || abi == NULL) {
    g_module_close(module);
    return refuse(error, path, "no %s: not an lbsim plugin (define it with LB_PLUGIN)",
                  LB_PLUGIN_ABI_SYMBOL);
  }
  guint version = *(const guint *)abi;
  if (version != LB_ABI_VERSION) {
    g_module_close(module);
    return refuse(error, path,
                  "built for lbsim's plugin ABI version %u, but this lbsim has version %u: "
                  "rebuild it against this lbsim's headers",
                  version, LB_ABI_VERSION);
  }
  if (!g_module_symbol(module, LB_PLUGIN_INIT_SYMBOL, &init) || init == NULL) {
    g_module_close(module);
    return refuse(error, path, "no entry point %s (define it with LB_PLUGIN)",
                  LB_PLUGIN_INIT_SYMBOL);
  }
  /* what it registers points into it: it stays loaded for good */
  g_module_make_resident(module);
  LbPlugin plugin = {canonical};
  g_autoptr(GError) local = NULL;
  if (!((LbPluginInit)init)(&plugin, &local))
    return refuse(error, path, "%s",
                  local != NULL ? local->message : "its entry point failed without saying why");
  lb_plugins_loaded();
  loaded->pdata[loaded->len - 1] = g_steal_pointer(&canonical);
  g_ptr_array_add(loaded, NULL);
  return TRUE;
}

static int
compare_names(gconstpointer a, gconstpointer b)
{
  return strcmp(*(char *const *)a, *(char *const *)b);
}

gboolean
lb_plugin_load_path(GError **error)
{
  const char *path = g_getenv("LBSIM_PLUGIN_PATH");
  if (path == NULL || *path == '\0')
    return TRUE;
  g_auto(GStrv) entries = g_strsplit(path, G_SEARCHPATH_SEPARATOR_S, -1);
  for (guint i = 0; entries[i] != NULL; i++) {
    const char *entry = entries[i];
    if (*entry == '\0')
      continue;
    if (!g_file_test(entry, G_FILE_TEST_IS_DIR)) {
      if (!lb_plugin_load(entry, error)) {
        g_prefix_error(error, "LBSIM_PLUGIN_PATH: ");
        return FALSE;
      }
      continue;
    }
    g_autoptr(GDir) dir = g_dir_open(entry, 0, error);
    if (dir == NULL)
      return FALSE;
    g_autoptr(GPtrArray) names = g_ptr_array_new_with_free_func(g_free);
    for (const char *name; (name = g_dir_read_name(dir)) != NULL;)
      if (g_str_has_suffix(name, "." G_MODULE_SUFFIX))
        g_ptr_array_add(names, g_build_filename(entry, name, NULL));
    g_ptr_array_sort(names, compare_names);
    for (guint k = 0; k < names->len; k++)
      if (!lb_plugin_load(names->pdata[k], error)) {
        g_prefix_error(error, "LBSIM_PLUGIN_PATH: ");
        return FALSE;
      }
  }
  return TRUE;
}
