#include "lbsim/balancer.h"
#include "balancers/registry.h"

#include <string.h>

#include "lbsim/model.h"
#include "lbsim/plugin.h"
#include "workloads/models.h"

static const LbBalancer *const registry[] = {
    &lb_none_balancer,
    &lb_mlb_balancer,
    &lb_mlb_nd_balancer,
    &lb_lbd_balancer,
    &lb_enzo_original_balancer,
    &lb_move_split_balancer,
    &lb_sfc_shift_balancer,
    &lb_dls_balancer,
    &lb_scratch_remap_balancer,
    &lb_diffusion_balancer,
    NULL,
};

/* The table above plus balancers registered at run time (tests, programs
 * that link the library with balancers of their own, and plugins). */
static GPtrArray *all;

static void
ensure_all(void)
{
  if (all != NULL)
    return;
  all = g_ptr_array_new();
  for (guint i = 0; registry[i] != NULL; i++)
    g_ptr_array_add(all, (gpointer)registry[i]);
  g_ptr_array_add(all, NULL);
}

void
lb_balancer_register(const LbBalancer *balancer)
{
  gboolean registered = lb_balancer_register_from(balancer, NULL, NULL);
  g_assert(registered);
}

gboolean
lb_balancer_register_from(const LbBalancer *balancer, const char *origin, GError **error)
{
  ensure_all();
  if (balancer->name == NULL || *balancer->name == '\0' || strchr(balancer->name, ':') != NULL ||
      strchr(balancer->name, '.') != NULL) {
    g_set_error(error, LB_PLUGIN_ERROR, 0,
                "a balancer's name must be a non-empty word without ':' or '.', not '%s'",
                balancer->name != NULL ? balancer->name : "(null)");
    return FALSE;
  }
  const LbBalancer *taken = lb_balancer_lookup(balancer->name);
  if (taken != NULL) {
    const char *from = lb_balancer_origin(taken);
    g_set_error(error, LB_PLUGIN_ERROR, 0, "a balancer named '%s' exists already (%s)",
                balancer->name, from != NULL ? from : "built in");
    return FALSE;
  }
  all->pdata[all->len - 1] = (gpointer)balancer;
  g_ptr_array_add(all, NULL);
  lb_registry_set_origin(balancer, origin);
  return TRUE;
}

const char *
lb_balancer_origin(const LbBalancer *balancer)
{
  return lb_registry_origin(balancer);
}

const LbBalancer *const *
lb_balancers(void)
{
  ensure_all();
  return (const LbBalancer *const *)all->pdata;
}

const LbBalancer *
lb_balancer_lookup(const char *name)
{
  for (const LbBalancer *const *b = lb_balancers(); *b != NULL; b++)
    if (g_strcmp0((*b)->name, name) == 0)
      return *b;
  return NULL;
}

gboolean
lb_balancer_supports(const LbBalancer *balancer, const LbModel *model)
{
  return (model->offers & balancer->needs) == balancer->needs;
}

char *
lb_balancer_models_text(const LbBalancer *balancer)
{
  GString *out = g_string_new(NULL);
  for (const LbModel *const *m = lb_models(); *m != NULL; m++)
    if (lb_balancer_supports(balancer, *m))
      g_string_append_printf(out, "%s%s", out->len > 0 ? ", " : "", (*m)->name);
  return g_string_free(out, FALSE);
}

char *
lb_balancer_refuses_model(const LbBalancer *b, const LbModel *model)
{
  if (lb_balancer_supports(b, model))
    return NULL;
  g_autofree char *missing = lb_capabilities_describe(b->needs & ~model->offers);
  g_autofree char *models = lb_balancer_models_text(b);
  return g_strdup_printf("%s does not run on model %s, which does not offer %s (it runs on: %s)",
                         b->name, model->name, missing, *models != '\0' ? models : "none");
}
