/* A work model as a plugin, built by tests/install/check-install.py
 * against an installed lbsim's headers alone: `ramp`, N elements in a row
 * whose loads rise along it (element i: 1 + slope x i / N, plus the step),
 * first held in equal blocks. It offers cells and a total order, so every
 * balancer of array1d runs on it. */
#include <lbsim/plugin.h>

static const LbParamSpec ramp_params[] = {
    {"size", LB_PARAM_INT, "4096", 1, 1e9, NULL, "ramp: number of elements N"},
    {"slope", LB_PARAM_INT, "100", 0, 1e6, NULL, "ramp: element i weighs 1 + slope x i / N"},
    {"flops-per-unit", LB_PARAM_DOUBLE, "1e4", 0, 1e15, NULL, "flops per unit of load"},
    {NULL},
};

static gboolean
ramp_load(LbWork *work, const char *file, const char *dir, GError **error)
{
  (void)file;
  (void)dir;
  (void)error;
  work->dim = 1;
  work->size[0] = work->cells = (guint64)lb_params_get_int(work->params, "size");
  work->size[1] = work->size[2] = 1;
  work->procs[0] = work->ranks;
  work->procs[1] = work->procs[2] = 1;
  work->bytes_per_unit = 8;
  work->flops_per_unit = lb_params_get_double(work->params, "flops-per-unit");
  work->ghost_depth = 0;
  return TRUE;
}

static void
ramp_initial_units(const LbWork *work, guint rank, LbStart start, GArray *units)
{
  (void)start;
  guint64 n = work->cells, lo = n * rank / work->ranks, hi = n * (rank + 1) / work->ranks;
  for (guint64 i = lo; i < hi; i++) {
    LbUnit u = {i, 0};
    g_array_append_val(units, u);
  }
}

static char *
ramp_describe_start(const LbWork *work, LbStart start)
{
  (void)work;
  (void)start;
  return g_strdup("equal blocks");
}

static void
ramp_update(const LbWork *work, guint rank, GArray *units, guint adaptation)
{
  (void)rank;
  guint64 slope = (guint64)lb_params_get_int(work->params, "slope");
  for (guint i = 0; i < units->len; i++) {
    LbUnit *u = &g_array_index(units, LbUnit, i);
    u->load = 1 + slope * u->id / work->cells + adaptation;
  }
}

static const LbModel ramp_model = {
    .name = "ramp",
    .summary = "N elements whose loads rise along the row (a plugin's model)",
    .params = ramp_params,
    .offers = LB_CAP_CELLS | LB_CAP_ORDER,
    .order = "array",
    .load = ramp_load,
    .initial_units = ramp_initial_units,
    .describe_start = ramp_describe_start,
    .update = ramp_update,
};

LB_PLUGIN(plugin, error)
{
  return lb_plugin_add_model(plugin, &ramp_model, error);
}
