/* The story lbsim explain tells of a run: what every rank did (its
 * narration), the schedule's transfers, the final boxes, loads and
 * imbalance. */
#include "report/story.h"

static int
compare_transfers(gconstpointer a, gconstpointer b)
{
  const LbTransfer *x = a, *y = b;
  if (x->adaptation != y->adaptation)
    return x->adaptation < y->adaptation ? -1 : 1;
  if (x->round != y->round)
    return x->round < y->round ? -1 : 1;
  if (x->src != y->src)
    return x->src < y->src ? -1 : 1;
  return x->dst < y->dst ? -1 : x->dst > y->dst;
}

/* The units of a tree move as many runs of ids as they have gaps: the
 * schedule sums them per round and pair of ranks. */
static void
tree_schedule(GString *out, GArray *transfers)
{
  g_autoptr(GArray) t = g_array_copy(transfers);
  g_array_sort(t, compare_transfers);
  for (guint i = 0; i < t->len;) {
    const LbTransfer *x = &g_array_index(t, LbTransfer, i);
    if (i == 0 || x->round != g_array_index(t, LbTransfer, i - 1).round ||
        x->adaptation != g_array_index(t, LbTransfer, i - 1).adaptation)
      g_string_append_printf(out, "  adaptation step %u, round %u:\n", x->adaptation, x->round);
    guint64 count = 0, load = 0;
    guint j = i;
    for (; j < t->len && compare_transfers(x, &g_array_index(t, LbTransfer, j)) == 0; j++) {
      count += g_array_index(t, LbTransfer, j).count;
      load += g_array_index(t, LbTransfer, j).load;
    }
    g_string_append_printf(out,
                           "    rank %2u -> rank %2u  %" G_GUINT64_FORMAT
                           " hnode%s  load %" G_GUINT64_FORMAT "\n",
                           x->src, x->dst, count, count == 1 ? "" : "s", load);
    i = j;
  }
}

char *
lb_report_story(const LbRunResult *run, const LbBalancer *balancer, const LbParams *params,
                gboolean tree)
{
  GString *out = g_string_new(NULL);
  g_string_append_printf(out, "\nWhat every rank did, in simulated time:\n");
  for (guint i = 0; run->narration != NULL && i < run->narration->len; i++)
    g_string_append_printf(out, "  %s\n", (char *)run->narration->pdata[i]);

  g_string_append_printf(out, "\nThe schedule (transfers of units):\n");
  GArray *t = run->transfers;
  if (t == NULL || t->len == 0)
    g_string_append_printf(out, "  nothing moves\n");
  else if (tree)
    tree_schedule(out, t);
  for (guint i = 0; !tree && t != NULL && i < t->len; i++) {
    const LbTransfer *x = &g_array_index(t, LbTransfer, i), *last = x - 1;
    /* the steps of each stage's phases (an axis' slabs, a level's
     * iterations), numbered within them */
    if (i == 0 || x->round != last->round || x->adaptation != last->adaptation ||
        x->phase != last->phase || x->stage != last->stage) {
      g_autoptr(GString) head = g_string_new(NULL);
      if (run->nadaptations > 1)
        g_string_append_printf(head, "adaptation step %u, ", x->adaptation);
      if (run->stages != NULL && x->stage < run->stages->len &&
          *(const char *)run->stages->pdata[x->stage] != '\0')
        g_string_append_printf(head, "%s, ", (const char *)run->stages->pdata[x->stage]);
      if (x->phase >= 0 && (guint)x->phase < run->nphases)
        g_string_append_printf(head, "%s ", run->phases[x->phase].name);
      g_string_append_printf(out, "  %sstep %u:\n", head->str, x->round);
    }
    g_string_append_printf(out,
                           "    rank %2u -> rank %2u  units %" G_GUINT64_FORMAT
                           " .. %" G_GUINT64_FORMAT "  load %" G_GUINT64_FORMAT "\n",
                           x->src, x->dst, x->first, x->first + x->count - 1, x->load);
  }
  if (run->partition != NULL && run->dim >= 2) {
    g_string_append_printf(out, "\nFinal boxes (cells, half-open) and neighbours:\n");
    for (guint r = 0; r < run->ranks; r++) {
      const LbRankPart *part = &run->partition[r];
      g_autoptr(GString) box = g_string_new(NULL);
      for (guint a = 0; a < run->dim; a++)
        g_string_append_printf(box, "%s[%" G_GUINT64_FORMAT ", %" G_GUINT64_FORMAT ")",
                               a ? " x " : "", part->lo[a], part->hi[a]);
      g_autoptr(GString) near = g_string_new(NULL);
      for (guint i = 0; i < part->nneighbours; i++)
        g_string_append_printf(near, " %u", part->neighbours[i]);
      g_string_append_printf(out, "  rank %2u  %s  load %5" G_GUINT64_FORMAT "  neighbours%s\n", r,
                             box->str, part->load, near->str);
    }
  }
  g_string_append_printf(out, "\nFinal loads:");
  for (guint r = 0; r < run->ranks; r++)
    g_string_append_printf(out, " %" G_GUINT64_FORMAT, run->final_loads[r]);
  double steps = 0;
  gboolean has_steps = lb_run_result_metric(run, "schedule-steps", &steps);
  g_string_append_printf(out, "\nImbalance (max/avg): %.4f before, %.4f after; ",
                         run->imbalance_before, run->imbalance_after);
  if (has_steps)
    g_string_append_printf(out, "%.0f schedule steps, ", steps);
  g_string_append_printf(out, "%" G_GUINT64_FORMAT " messages\n", run->messages);
  double breaks = 0;
  if (balancer->breaks_order != NULL && balancer->breaks_order(params) &&
      lb_run_result_metric(run, "order-breaks", &breaks))
    g_string_append_printf(
        out,
        "Order breaks: %.0f element%s out of array order (the fewest that must move for the "
        "ranks to hold contiguous pieces in rank order)\n",
        breaks, breaks == 1 ? "" : "s");
  return g_string_free(out, FALSE);
}
