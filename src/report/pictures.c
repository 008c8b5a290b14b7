/* Pictures with cairo: every picture is drawn by one function in each
 * format (figure.c), so that they agree. Here, what a run draws at its end
 * (lbsim run --pictures); each kind has a file of its own: the partition
 * (picture-partition.c), the charts of the steps (picture-charts.c, the
 * report's plots), a hierarchy's grids (picture-grids.c), a curve through
 * a tree's leaves (picture-curve.c) and chunks over time
 * (picture-gantt.c); what they share is picture-draw.c's. */
#include "report/picture-draw.h"

/* ---- a run's final partition, at its end ---- */

static gboolean
chunks_of_run(const LbRunEnd *end, const LbPictureOptions *o, GError **error)
{
  LbChunkPicture picture = {
      .scenario = end->scenario->name,
      .balancer = end->brun->label,
      .ranks = end->ranks,
      .nadaptations = end->nadaptations,
      .chunks = end->chunks,
  };
  return lb_pictures_chunks(o, &picture, error);
}

static gboolean
partition_of_run(const LbRunEnd *end, const LbPictureOptions *o, GError **error)
{
  const LbWork *work = end->work;
  g_autofree guint64 *load = g_new0(guint64, work->cells);
  for (guint r = 0; r < end->ranks; r++) {
    const GArray *units = end->units[r];
    for (guint i = 0; i < units->len; i++)
      load[g_array_index(units, LbUnit, i).id] = g_array_index(units, LbUnit, i).load;
  }
  LbPartitionPicture picture = {
      .scenario = end->scenario->name,
      .balancer = end->brun->label,
      .work = work,
      .ranks = end->ranks,
      .adaptation = end->nadaptations - 1,
      .nadaptations = end->nadaptations,
      .imbalance = end->imbalance_after,
      .owner = end->owner,
      .load = load,
      .rank_load = end->rank_load,
  };
  return lb_pictures_partition(o, &picture, error);
}

static gboolean
grids_of_run(const LbRunEnd *end, const LbPictureOptions *o, GError **error)
{
  const LbWork *work = end->work;
  g_autoptr(GArray) grids = g_array_new(FALSE, FALSE, sizeof(LbGridPart));
  work->model->grids(work, grids);
  LbGridsPicture picture = {
      .scenario = end->scenario->name,
      .balancer = end->brun->label,
      .dim = work->dim,
      .ranks = end->ranks,
      .adaptation = end->nadaptations - 1,
      .nadaptations = end->nadaptations,
      .root = {work->size[0], work->size[1], work->size[2]},
      .imbalance_before = end->imbalance_before,
      .imbalance_after = end->imbalance_after,
      .rank_load_before = end->rank_load_before,
      .rank_load_after = end->rank_load,
      .grids = grids,
      .before = end->grids_before,
  };
  return lb_pictures_grids(o, &picture, error);
}

/* The curve the run's balancer keeps, as it says; Hilbert's for one
 * that keeps none. */
static gboolean
curve_of_run(const LbRunEnd *end, const LbPictureOptions *o, GError **error)
{
  LbCurveKind kind = LB_CURVE_HILBERT;
  const LbBalancer *b = end->brun->balancer;
  if (b->curve != NULL && !lb_curve_parse(b->curve(end->brun->params), &kind))
    kind = LB_CURVE_HILBERT;
  LbCurvePicture picture = {
      .scenario = end->scenario->name,
      .balancer = end->brun->label,
      .work = end->work,
      .curve = kind,
      .ranks = end->ranks,
      .adaptation = end->nadaptations - 1,
      .nadaptations = end->nadaptations,
      .imbalance_before = end->imbalance_before,
      .imbalance_after = end->imbalance_after,
      .before = end->units_before,
      .after = end->units,
  };
  return lb_pictures_curve(o, &picture, error);
}

const char *
lb_pictures_kind(const LbBalancerRun *run)
{
  const LbModel *model = run->work->model;
  if (run->balancer->owns_compute)
    return "chunks";
  if (model->grids != NULL)
    return "grids";
  if (model->leaves != NULL)
    return "curve";
  return model->total_units == NULL ? "partition" : NULL;
}

gboolean
lb_pictures_of_run(const LbRunEnd *end, gpointer options, GError **error)
{
  const LbPictureOptions *o = options;
  if (end->brun->balancer->owns_compute)
    return end->chunks == NULL || chunks_of_run(end, o, error);
  const LbModel *model = end->work->model;
  /* of models whose units are cells, of grids, of trees */
  if (model->total_units == NULL && !partition_of_run(end, o, error))
    return FALSE;
  if (model->grids != NULL && !grids_of_run(end, o, error))
    return FALSE;
  if (model->leaves != NULL && end->units_before != NULL && !curve_of_run(end, o, error))
    return FALSE;
  return TRUE;
}
