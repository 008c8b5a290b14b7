/* Views of a field for balancers that do not run on fields, so that every
 * family can be compared on one workload: the same pattern keys, seed and
 * domain, turned into the units the balancer's own model has. */
#include <math.h>
#include <string.h>

#include "lbsim/model.h"
#include "workloads/htree.h"
#include "workloads/models.h"

static const LbAdapter field_views[] = {
    {"htree", "as-htree",
     "an H-tree over the field's domain, refined where the field's load is: elements placed "
     "with the pattern's density (one per cell unless [as-htree] elements says otherwise), "
     "max-level the finest level whose squares are no larger than a cell, each hnode's load "
     "its elements times an element load that makes the step-0 total the field's"},
    {"samr", "as-samr",
     "a SAMR hierarchy whose root grid is the field's cells: cells flagged where the pattern's "
     "load reaches each level's refine value, clustered and refined ([as-samr] levels, factor, "
     "refine, efficiency as for model samr), its flops per unit making the step-0 work the "
     "field's"},
    {"loop", "as-loop",
     "a parallel loop of one iteration per cell, in the field's row-major order, each costing "
     "the cell's load at that adaptation step"},
};

static gboolean
is_field(const LbModel *model)
{
  return model == &lb_field2d_model || model == &lb_field3d_model;
}

const LbAdapter *
lb_adapter_for(const LbModel *from, guint needs)
{
  if (!is_field(from) || needs == 0)
    return NULL;
  for (guint i = 0; i < G_N_ELEMENTS(field_views); i++) {
    const LbModel *to = lb_model_lookup(field_views[i].to);
    if ((to->offers & needs) == needs)
      return &field_views[i];
  }
  return NULL;
}

const LbAdapter *
lb_adapter_by_group(const char *group)
{
  for (guint i = 0; i < G_N_ELEMENTS(field_views); i++)
    if (strcmp(group, field_views[i].group) == 0)
      return &field_views[i];
  return NULL;
}

guint
lb_adapters(const LbAdapter **out)
{
  *out = field_views;
  return G_N_ELEMENTS(field_views);
}

static gboolean view_fail(GError **error, const char *file, const LbAdapter *a, const char *key,
                          const char *format, ...) G_GNUC_PRINTF(5, 6);

static gboolean
view_fail(GError **error, const char *file, const LbAdapter *a, const char *key, const char *format,
          ...)
{
  va_list args;
  va_start(args, format);
  g_autofree char *text = g_strdup_vprintf(format, args);
  va_end(args);
  g_set_error(error, LB_PARAM_ERROR, LB_PARAM_ERROR_INVALID, "%s: [%s] %s: %s", file, a->group, key,
              text);
  return FALSE;
}

/* A key the view takes from the field (from_key) or sets itself (NULL):
 * the user may not give it. */
static gboolean
derive(LbParams *params, const LbAdapter *a, const char *file, const char *key, const char *value,
       const char *from_key, GError **error)
{
  if (lb_params_is_set(params, key) && from_key != NULL)
    return view_fail(error, file, a, key, "taken from the workload ([workload] %s); set it there",
                     from_key);
  if (lb_params_is_set(params, key))
    return view_fail(error, file, a, key, "the view sets it (%s)", value);
  g_autoptr(GError) local = NULL;
  if (!lb_params_set(params, key, value, &local))
    return view_fail(error, file, a, key, "'%s' from [workload] %s: %s", value,
                     from_key != NULL ? from_key : key, local->message);
  return TRUE;
}

static gboolean
derive_number(LbParams *params, const LbAdapter *a, const char *file, const char *key, double value,
              const char *from_key, GError **error)
{
  char text[G_ASCII_DTOSTR_BUF_SIZE];
  g_ascii_dtostr(text, sizeof text, value);
  return derive(params, a, file, key, text, from_key, error);
}

/* The field's size as NXxNY(xNZ). */
static char *
size_text(const LbWork *field)
{
  GString *s = g_string_new(NULL);
  for (guint a = 0; a < field->dim; a++)
    g_string_append_printf(s, "%s%" G_GUINT64_FORMAT, a ? "x" : "", field->size[a]);
  return g_string_free(s, FALSE);
}

/* A workload's total load at step 0, as its ranks would hold it. */
static guint64
work_total(const LbWork *view)
{
  g_autoptr(GArray) units = g_array_new(FALSE, FALSE, sizeof(LbUnit));
  guint64 total = 0;
  for (guint r = 0; r < view->ranks; r++) {
    g_array_set_size(units, 0);
    lb_work_initial_units(view, r, LB_START_NATIVE, units);
    lb_work_update(view, r, units, 0);
    for (guint i = 0; i < units->len; i++)
      total += g_array_index(units, LbUnit, i).load;
  }
  return total;
}

static gboolean
htree_keys(const LbWork *field, LbParams *params, const LbAdapter *a, const char *file,
           GError **error)
{
  guint64 longest = 0;
  for (guint d = 0; d < field->dim; d++)
    longest = MAX(longest, field->size[d]);
  guint level = 0;
  while (level < 31 && (G_GUINT64_CONSTANT(1) << level) < longest)
    level++;
  LbPatternKind k = field->pattern.kind;
  if (k != LB_PATTERN_HOTSPOTS && k != LB_PATTERN_CLUSTERS && k != LB_PATTERN_SHOCK &&
      k != LB_PATTERN_UNIFORM)
    return view_fail(error, file, a, "pattern",
                     "the H-tree places its elements as the field's load lies for the patterns "
                     "hotspots, clusters, shock and uniform, not %s",
                     lb_params_get_string(field->params, "pattern"));
  guint limit = field->dim == 2 ? LB_HTREE_MAX_LEVEL_2D : LB_HTREE_MAX_LEVEL_3D;
  if (!derive_number(params, a, file, "dim", field->dim, "model", error) ||
      !derive_number(params, a, file, "max-level", MIN(level, limit), "size", error) ||
      !derive(params, a, file, "refine", "elements", NULL, error) ||
      !derive(params, a, file, "load", "measured", NULL, error))
    return FALSE;
  if (!lb_params_is_set(params, "elements")) {
    if (field->cells > 1000000000)
      return view_fail(error, file, a, "elements",
                       "the field's %" G_GUINT64_FORMAT " cells are more than 10^9 elements: set "
                       "elements",
                       field->cells);
    g_autofree char *cells = g_strdup_printf("%" G_GUINT64_FORMAT, field->cells);
    g_autoptr(GError) local = NULL;
    lb_params_set(params, "elements", cells, &local);
    g_assert_no_error(local);
  }
  guint64 elements = (guint64)lb_params_get_int(params, "elements");
  guint64 total = work_total(field);
  guint64 per = MAX(1, (guint64)llround((double)total / (double)elements));
  if (!derive_number(params, a, file, "element-load", (double)per, NULL, error) ||
      !derive(params, a, file, "node-load", "0", NULL, error))
    return FALSE;
  return TRUE;
}

static gboolean
samr_keys(const LbWork *field, LbParams *params, const LbAdapter *a, const char *file,
          GError **error)
{
  g_autofree char *size = size_text(field);
  /* one adaptation per step of the field, as every other balancer sees it */
  return derive(params, a, file, "size", size, "size", error) &&
         derive_number(params, a, file, "ghost", field->ghost_depth, "ghost-depth", error) &&
         (lb_params_is_set(params, "adapt") ||
          derive(params, a, file, "adapt", "root", NULL, error));
}

static gboolean
loop_keys(const LbWork *field, LbParams *params, const LbAdapter *a, const char *file,
          GError **error)
{
  g_autofree char *size = size_text(field);
  return derive(params, a, file, "cost", "field", NULL, error) &&
         derive(params, a, file, "field-size", size, "size", error) &&
         derive_number(params, a, file, "bytes-per-iteration", field->bytes_per_unit,
                       "bytes-per-unit", error);
}

LbWork *
lb_adapter_build(const LbAdapter *a, const LbWork *field, LbParams *params, const char *file,
                 const char *dir, GError **error)
{
  g_autoptr(LbParams) p = params;
  const LbModel *to = lb_model_lookup(a->to);
  g_assert(to != NULL && is_field(field->model));
  if (!derive(p, a, file, "model", a->to, NULL, error))
    return NULL;
  /* the pattern, as the field has it */
  for (const LbParamSpec *s = lb_model_param_spec(field->model); s->name != NULL; s++) {
    gboolean pattern_key = strcmp(s->name, "pattern") == 0;
    if (!pattern_key)
      lb_pattern_key_applies(s->name, "", &pattern_key);
    if (pattern_key && lb_params_is_set(field->params, s->name) &&
        !derive(p, a, file, s->name, lb_params_get_text(field->params, s->name), s->name, error))
      return NULL;
  }
  if (!lb_params_is_set(field->params, "pattern") &&
      !derive(p, a, file, "pattern", lb_params_get_string(field->params, "pattern"), "pattern",
              error))
    return NULL;
  if (!derive_number(p, a, file, "flops-per-unit", field->flops_per_unit, "flops-per-unit", error))
    return NULL;
  if (to != &lb_loop_model &&
      !derive_number(p, a, file, "bytes-per-unit", field->bytes_per_unit, "bytes-per-unit", error))
    return NULL;
  gboolean ok = to == &lb_htree_model  ? htree_keys(field, p, a, file, error)
                : to == &lb_samr_model ? samr_keys(field, p, a, file, error)
                                       : loop_keys(field, p, a, file, error);
  if (!ok)
    return NULL;
  g_autoptr(GError) local = NULL;
  LbWork *view = lb_work_new(to, g_steal_pointer(&p), field->seed, field->ranks, field->steps, file,
                             dir, &local);
  if (view != NULL && to == &lb_samr_model) {
    /* a hierarchy's load is cells x substeps, not the pattern's load: its
     * flops per unit make the step-0 work the field's, so that times
     * compare */
    guint64 work = work_total(view), want = work_total(field);
    if (work > 0)
      view->flops_per_unit = field->flops_per_unit * (double)want / (double)work;
  }
  if (view == NULL) {
    /* the model names [workload]; the keys came from the view's group or
     * the field's */
    g_autofree char *prefix = g_strdup_printf("%s: [workload] ", file);
    const char *msg =
        g_str_has_prefix(local->message, prefix) ? local->message + strlen(prefix) : local->message;
    g_set_error(error, local->domain, local->code, "%s: [%s] %s (the workload seen as %s)", file,
                a->group, msg, a->to);
    return NULL;
  }
  return view;
}
