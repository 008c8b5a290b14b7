/* MLB over successive axes: the strips' hypercube arithmetic, and runs
 * whose cuts are checked against 1D MLB's answer (mlb_owner) on the column
 * sums and then on each strip's row sums, worked out here from the field's
 * loads. */
#include <glib.h>
#include <glib/gstdio.h>

#include "balancers/mlb/mlb-plan.h"
#include "runner/runner.h"
#include "lbsim/scenario.h"
#include "sim-result.h"

static guint
gray(guint r)
{
  return r ^ (r >> 1);
}

static gboolean
one_bit(guint x)
{
  return x != 0 && (x & (x - 1)) == 0;
}

/* A block of consecutive ranks is a sub-hypercube: its reduction tree uses
 * hypercube edges only, its leader sits on the node whose low bits are 0,
 * and the leaders of blocks that are MLB partners are neighbours. */
static void
test_blocks(void)
{
  for (guint k = 0; k <= 6; k++) {
    guint size = 1u << k;
    for (guint first = 0; first < 512; first += size) {
      MlbBlock b = mlb_block_of(first, size);
      for (guint r = first; r < first + size; r++) {
        guint node = mlb_block_node(&b, r);
        g_assert_cmpuint(node, <, size);
        g_assert_cmpuint(mlb_block_rank(&b, node), ==, r);
        /* the block's nodes share the high bits of the first's */
        g_assert_cmpuint(gray(r) >> k, ==, gray(first) >> k);
        g_assert_cmpuint(gray(r) & (size - 1), ==, node);
        for (guint e = 0; e < k; e++) {
          guint peer = mlb_block_rank(&b, node ^ (1u << e));
          g_assert_true(one_bit(gray(r) ^ gray(peer)));
        }
      }
      guint leader = mlb_block_rank(&b, 0);
      g_assert_cmpuint(gray(leader) & (size - 1), ==, 0);
    }
    /* a group of 8 blocks: the leaders' MLB partners (indices mirrored
     * inside blocks of 2^(e+1)) are one hop apart */
    for (guint t = 0; t < 8; t++)
      for (guint e = 0; e < 3; e++) {
        guint u = mlb_partner(t, e);
        MlbBlock bt = mlb_block_of(t * size, size), bu = mlb_block_of(u * size, size);
        guint lt = mlb_block_rank(&bt, 0), lu = mlb_block_rank(&bu, 0);
        g_assert_true(one_bit(gray(lt) ^ gray(lu)));
      }
  }
}

static GPtrArray *
run_text(const char *text, LbScenario **scenario)
{
  g_autofree char *dir = g_dir_make_tmp("lbsim-mlb-nd-XXXXXX", NULL);
  g_autofree char *path = g_build_filename(dir, "s.ini", NULL);
  g_assert_true(g_file_set_contents(path, text, -1, NULL));
  g_autoptr(GError) error = NULL;
  LbScenario *sc = lb_scenario_load(path, NULL, &error);
  g_assert_no_error(error);
  LbRunnerOptions options = {.jobs = 2, .quiet = TRUE, .run = {.detail = TRUE}};
  GPtrArray *results = NULL;
  int code = -1;
  gboolean ok = lb_runner_run(sc, NULL, &options, &results, &code, &error);
  g_unlink(path);
  g_rmdir(dir);
  g_assert_no_error(error);
  g_assert_true(ok);
  *scenario = sc;
  return results;
}

/* Cuts of n slices of the given loads into 2^d pieces, as 1D MLB with
 * recursive halving leaves them: cuts[i] is the first slice of piece i. */
static void
mlb_cuts(const guint64 *loads, guint n, guint d, guint64 *cuts)
{
  MlbKey total = {0, n};
  for (guint i = 0; i < n; i++)
    total.load += loads[i];
  guint pieces = 1u << d, next = 0;
  guint64 pos = 0;
  for (guint i = 0; i < n; i++) {
    MlbItem item = {i, loads[i], pos};
    guint owner = mlb_owner(total, d, MLB_DESIRED_HALVING, &item);
    while (next <= owner)
      cuts[next++] = i;
    pos += loads[i];
  }
  while (next <= pieces)
    cuts[next++] = n;
}

typedef struct {
  const char *platform, *size, *procs, *phase4;
  guint ranks;
} Case2d;

/* After one step, strip i spans the columns 1D MLB gives it from the
 * column sums, and rank j of strip i the rows 1D MLB gives it from the
 * strip's row sums; the ranks of a strip are consecutive. */
static void
test_cuts_2d(gconstpointer data)
{
  const Case2d *c = data;
  g_autofree char *text = g_strdup_printf(
      "[scenario]\nplatform = %s\nranks = %u\nsteps = 1\nseed = 7\n"
      "[workload]\nmodel = field2d\nsize = %s\nprocs = %s\npattern = hotspots\nhotspots = 4\n"
      "width = 0.08\namplitude = 500\nbase = 3\n"
      "[balancers]\nrun = none, mlb-nd\n[mlb-nd]\nphase4 = %s\n",
      c->platform, c->ranks, c->size, c->procs, c->phase4);
  LbScenario *sc = NULL;
  g_autoptr(GPtrArray) results = run_text(text, &sc);
  const LbRunResult *none = results->pdata[0], *nd = results->pdata[1];
  g_assert_cmpfloat(nd->imbalance_after, <, none->imbalance_after);
  g_assert_nonnull(g_strstr_len(nd->start, -1, "ranks along the last axis first"));

  const LbWork *w = sc->work;
  guint nx = (guint)w->size[0], ny = (guint)w->size[1];
  guint px = (guint)w->procs[0], py = (guint)w->procs[1];
  g_autoptr(GArray) cells = g_array_new(FALSE, FALSE, sizeof(LbUnit));
  for (guint64 id = 0; id < w->cells; id++) {
    LbUnit u = {id, 0};
    g_array_append_val(cells, u);
  }
  lb_work_update(w, 0, cells, 0);
  const LbUnit *u = (const LbUnit *)cells->data;
  g_autofree guint64 *columns = g_new0(guint64, nx);
  for (guint64 id = 0; id < w->cells; id++)
    columns[id % nx] += u[id].load;
  g_autofree guint64 *xcuts = g_new(guint64, px + 1);
  guint dx = 0, dy = 0;
  while ((1u << dx) < px)
    dx++;
  while ((1u << dy) < py)
    dy++;
  mlb_cuts(columns, nx, dx, xcuts);
  g_autofree guint64 *rows = g_new(guint64, ny);
  g_autofree guint64 *ycuts = g_new(guint64, py + 1);
  guint64 load = 0;
  for (guint i = 0; i < px; i++) {
    for (guint y = 0; y < ny; y++) {
      rows[y] = 0;
      for (guint64 x = xcuts[i]; x < xcuts[i + 1]; x++)
        rows[y] += u[(guint64)y * nx + x].load;
    }
    mlb_cuts(rows, ny, dy, ycuts);
    for (guint j = 0; j < py; j++) {
      const LbRankPart *part = &nd->partition[i * py + j];
      guint64 want = 0;
      for (guint64 y = ycuts[j]; y < ycuts[j + 1]; y++)
        for (guint64 x = xcuts[i]; x < xcuts[i + 1]; x++)
          want += u[y * nx + x].load;
      g_assert_cmpuint(part->load, ==, want);
      load += part->load;
      if (xcuts[i] == xcuts[i + 1] || ycuts[j] == ycuts[j + 1])
        continue; /* an empty box */
      g_assert_cmpuint(part->lo[0], ==, xcuts[i]);
      g_assert_cmpuint(part->hi[0], ==, xcuts[i + 1]);
      g_assert_cmpuint(part->lo[1], ==, ycuts[j]);
      g_assert_cmpuint(part->hi[1], ==, ycuts[j + 1]);
    }
  }
  g_assert_cmpuint(load, ==, nd->adaptations[0].total_load);
  /* MLB moves at most log2 P steps along each axis */
  double steps = -1;
  g_assert_true(lb_run_result_metric(nd, "schedule-steps-x", &steps));
  g_assert_cmpfloat(steps, <=, dx);
  g_assert_true(lb_run_result_metric(nd, "schedule-steps-y", &steps));
  g_assert_cmpfloat(steps, <=, dy);
  lb_scenario_free(sc);
}

/* 3D: straight cuts along x across the field, along y inside each strip,
 * along z inside each column; the boxes tile the field. */
static void
test_boxes_3d(void)
{
  const char *text = "[scenario]\nplatform = t3e-512.xml\nranks = 64\nsteps = 3\nseed = 2\n"
                     "[workload]\nmodel = field3d\nsize = 24x16x20\npattern = hotspots\n"
                     "hotspots = 3\nwidth = 0.1\namplitude = 300\nbase = 5\ndrift = 0.05\n"
                     "[balancers]\nrun = none, mlb-nd\n";
  LbScenario *sc = NULL;
  g_autoptr(GPtrArray) results = run_text(text, &sc);
  const LbRunResult *none = results->pdata[0], *nd = results->pdata[1];
  g_assert_cmpfloat(nd->imbalance_after, <, none->imbalance_after);
  const LbWork *w = sc->work;
  guint px = (guint)w->procs[0], py = (guint)w->procs[1], pz = (guint)w->procs[2];
  guint64 volume = 0;
  for (guint r = 0; r < 64; r++) {
    const LbRankPart *a = &nd->partition[r];
    guint64 v = (a->hi[0] - a->lo[0]) * (a->hi[1] - a->lo[1]) * (a->hi[2] - a->lo[2]);
    volume += a->load > 0 ? v : 0;
    if (a->load == 0)
      continue;
    for (guint q = 0; q < 64; q++) {
      const LbRankPart *b = &nd->partition[q];
      if (b->load == 0)
        continue;
      if (q / (py * pz) == r / (py * pz)) { /* same strip: same x range */
        g_assert_cmpuint(a->lo[0], ==, b->lo[0]);
        g_assert_cmpuint(a->hi[0], ==, b->hi[0]);
        if (q / pz == r / pz) { /* same column: same y range */
          g_assert_cmpuint(a->lo[1], ==, b->lo[1]);
          g_assert_cmpuint(a->hi[1], ==, b->hi[1]);
        }
      }
    }
  }
  g_assert_cmpuint(volume, ==, w->cells);
  g_assert_cmpuint(px * py * pz, ==, 64);
  lb_scenario_free(sc);
}

/* LBD's loops on random fields (2D and 3D, hot spots and clusters at
 * seeded places, several steps): within each loop (a piece's first rank
 * tells it) the metric never rises from one iteration to the next and no
 * row of cuts comes back; every loop stops on the tolerance or at the best
 * cuts of the profile, never at the cap; and lbd ends within 5 % of
 * mlb-nd's imbalance, the same family of partitions. */
static void
test_lbd_converges(void)
{
  static const char *const fields[] = {
      "model = field2d\nsize = 64x48\npattern = hotspots\nhotspots = 3\nwidth = 0.1\n"
      "amplitude = 80\nbase = 1\ndrift = 0.05",
      "model = field2d\nsize = 40x64\npattern = clusters\nclusters = 5",
      "model = field3d\nsize = 16x16x12\npattern = hotspots\nhotspots = 2\nwidth = 0.15\n"
      "amplitude = 50\nbase = 1\ndrift = 0.05",
  };
  g_autoptr(GRegex) metric =
      g_regex_new("rank (\\d+): level (\\d) \\((.)\\): metric ([0-9.]+)", 0, 0, NULL);
  g_autoptr(GRegex) cuts = g_regex_new(
      "rank (\\d+): level (\\d) \\((.)\\): .*cuts([0-9 ]+) ->([0-9 ]+) \\(", 0, 0, NULL);
  for (guint f = 0; f < G_N_ELEMENTS(fields); f++)
    for (guint seed = 1; seed <= 3; seed++) {
      guint p = f == 2 ? 8 : 16;
      g_autofree char *ini = g_strdup_printf(
          "[scenario]\nplatform = hypercube-%u.xml\nranks = %u\nseed = %u\nsteps = 3\n"
          "[workload]\n%s\n[balancers]\nrun = mlb-nd, lbd\n",
          p, p, seed, fields[f]);
      g_auto(SimResult) res = {0};
      simulate_with(ini, NULL, TRUE, &res);
      JsonArray *story = json_object_get_array_member(res.run, "narration");
      /* per loop: the last metric and the rows seen; a loop is a teller's
       * level, and restarts when its iterations count from 0 again */
      g_autoptr(GHashTable) last = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, g_free);
      g_autoptr(GHashTable) seen = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, NULL);
      guint loops = 0;
      for (guint i = 0; i < json_array_get_length(story); i++) {
        const char *line = json_array_get_string_element(story, i);
        g_autoptr(GMatchInfo) m = NULL;
        if (g_regex_match(metric, line, 0, &m)) {
          g_autofree char *rank = g_match_info_fetch(m, 1), *level = g_match_info_fetch(m, 2),
                          *value = g_match_info_fetch(m, 4);
          char *key = g_strdup_printf("%s/%s", rank, level);
          double v = g_ascii_strtod(value, NULL);
          gboolean first = strstr(line, "after 0 redistributions") != NULL;
          double *prev = g_hash_table_lookup(last, key);
          if (first) {
            loops++;
            /* a new loop: forget the rows of the last one */
            GHashTableIter it;
            gpointer k;
            g_hash_table_iter_init(&it, seen);
            while (g_hash_table_iter_next(&it, &k, NULL))
              if (g_str_has_prefix(k, key) && ((char *)k)[strlen(key)] == ':')
                g_hash_table_iter_remove(&it);
          } else {
            g_assert_nonnull(prev);
            g_assert_cmpfloat(v, <=, *prev + 1e-9);
          }
          double *store = g_new(double, 1);
          *store = v;
          g_hash_table_replace(last, key, store);
          continue;
        }
        g_autoptr(GMatchInfo) c = NULL;
        if (g_regex_match(cuts, line, 0, &c)) {
          g_autofree char *rank = g_match_info_fetch(c, 1), *level = g_match_info_fetch(c, 2),
                          *from = g_match_info_fetch(c, 4), *to = g_match_info_fetch(c, 5);
          g_autofree char *from_key = g_strdup_printf("%s/%s:%s", rank, level, from);
          char *to_key = g_strdup_printf("%s/%s:%s", rank, level, to);
          g_hash_table_add(seen, g_strdup(from_key));
          g_assert_false(g_hash_table_contains(seen, to_key)); /* no row comes back */
          g_hash_table_add(seen, to_key);
        }
      }
      g_assert_cmpuint(loops, >, 0);
      double tolerance = -1, unchanged = -1, cap = -1, worse = -1;
      JsonObject *metrics = json_object_get_object_member(res.run, "metrics");
      tolerance = json_object_get_double_member(metrics, "loops_tolerance");
      unchanged = json_object_get_double_member(metrics, "loops_unchanged");
      cap = json_object_get_double_member(metrics, "loops_cap");
      worse = json_object_get_double_member(metrics, "loops_worse");
      g_assert_cmpfloat(cap, ==, 0);
      g_assert_cmpfloat(worse, ==, 0);
      g_assert_cmpfloat(tolerance + unchanged, ==, loops); /* every loop told once */
      JsonArray *runs = json_object_get_array_member(
          json_node_get_object(json_parser_get_root(res.parser)), "runs");
      JsonObject *nd = json_array_get_object_element(runs, 0);
      double lbd_imb = json_object_get_double_member(
                 json_object_get_object_member(res.run, "summary"), "imbalance_after"),
             nd_imb = json_object_get_double_member(json_object_get_object_member(nd, "summary"),
                                                    "imbalance_after");
      g_test_message("field %u seed %u: %u loops (%.0f tolerance, %.0f unchanged); imbalance "
                     "lbd %.4f mlb-nd %.4f",
                     f, seed, loops, tolerance, unchanged, lbd_imb, nd_imb);
      g_assert_cmpfloat(lbd_imb, <=, 1.05 * nd_imb);
    }
}

int
main(int argc, char **argv)
{
  g_test_init(&argc, &argv, NULL);
  g_test_add_func("/mlb-nd/blocks", test_blocks);
  g_test_add_func("/mlb-nd/lbd-converges", test_lbd_converges);
  static const Case2d cases[] = {
      {"hypercube-64.xml", "96x64", "8x8", "loan", 64},
      {"hypercube-64.xml", "96x64", "8x8", "midpoint", 64},
      {"fat-tree-1024.xml", "50x70", "4x16", "loan", 64},
      {"t3e-512.xml", "128x32", "16x8", "loan", 128},
      {"hypercube-16.xml", "40x40", "1x16", "loan", 16},
  };
  for (guint i = 0; i < G_N_ELEMENTS(cases); i++) {
    g_autofree char *name = g_strdup_printf("/mlb-nd/cuts/%s/%s/%s", cases[i].platform,
                                            cases[i].procs, cases[i].phase4);
    g_test_add_data_func(name, &cases[i], test_cuts_2d);
  }
  g_test_add_func("/mlb-nd/boxes-3d", test_boxes_3d);
  return g_test_run();
}
