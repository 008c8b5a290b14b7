/* Plugins: a user's balancers and work models, compiled against these
 * headers (pkg-config lbsim) into a shared object that lbsim loads with
 * `--plugin FILE`, `[scenario] plugins = FILE, ...` or $LBSIM_PLUGIN_PATH.
 *
 *     #include <lbsim/plugin.h>
 *
 *     static const LbBalancer steal = {.name = "steal", ...};
 *
 *     LB_PLUGIN(plugin, error)
 *     {
 *       return lb_plugin_add_balancer(plugin, &steal, error);
 *     }
 *
 * A plugin registers what it brings from its entry point; lbsim refuses a
 * plugin built against another ABI version, one without the entry point,
 * and a name that is already registered, naming the file and the reason.
 * What a plugin registers must live as long as the process (static
 * tables, as the built-in balancers are). */
#pragma once

#include <glib.h>
#include <gmodule.h>

#include "lbsim/balancer.h"
#include "lbsim/model.h"

G_BEGIN_DECLS

/* Raised whenever a public structure or function changes incompatibly: a
 * plugin built against another version is refused. */
#define LB_ABI_VERSION 2

typedef struct _LbPlugin LbPlugin;

/* Errors of loading and registering (their messages say why). */
#define LB_PLUGIN_ERROR (lb_plugin_error_quark())
GQuark lb_plugin_error_quark(void);

/* Adds a balancer (a model) to lbsim's registry; FALSE with an error when
 * its name is taken (or, for a model, when scenarios have been read
 * already: give such a plugin with --plugin or $LBSIM_PLUGIN_PATH). */
gboolean lb_plugin_add_balancer(LbPlugin *plugin, const LbBalancer *balancer, GError **error);
gboolean lb_plugin_add_model(LbPlugin *plugin, const LbModel *model, GError **error);
/* The plugin's file, as lbsim loaded it. */
const char *lb_plugin_path(const LbPlugin *plugin);

/* The symbols lbsim looks up in a plugin. */
#define LB_PLUGIN_ABI_SYMBOL "lb_plugin_abi_version"
#define LB_PLUGIN_INIT_SYMBOL "lb_plugin_init"
typedef gboolean (*LbPluginInit)(LbPlugin *plugin, GError **error);

/* Defines a plugin's ABI version and its entry point, whose body follows:
 * it registers what the plugin brings and returns TRUE, or sets error and
 * returns FALSE. */
#define LB_PLUGIN(plugin, error)                                                                   \
  G_MODULE_EXPORT const guint lb_plugin_abi_version = LB_ABI_VERSION;                              \
  G_MODULE_EXPORT gboolean lb_plugin_init(LbPlugin *plugin, GError **error);                       \
  G_MODULE_EXPORT gboolean lb_plugin_init(LbPlugin *plugin, GError **error)

/* Where a registered balancer or model came from: NULL when built in,
 * else its plugin's file. */
const char *lb_balancer_origin(const LbBalancer *balancer);
const char *lb_model_origin(const LbModel *model);

/* Loads a plugin (a shared object): FALSE with an error naming the file
 * and the reason when it cannot be opened, has another ABI version, lacks
 * the entry point, or its entry point fails. Loading a file again does
 * nothing. */
gboolean lb_plugin_load(const char *path, GError **error);
/* Every file of $LBSIM_PLUGIN_PATH (a colon-separated list of shared
 * objects and of folders, whose *.so files are loaded in name order). */
gboolean lb_plugin_load_path(GError **error);
/* The plugins loaded so far, in order (their canonical paths):
 * NULL-terminated, owned by lbsim. */
const char *const *lb_plugins_loaded(void);

G_END_DECLS
