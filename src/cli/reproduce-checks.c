/* The checks of lbsim reproduce. Each takes lbsim's answer from lbsim's
 * own code (a balancer's plan functions, or real runs: the claim's sweep,
 * or a run it makes itself as lbsim explain does) and holds it against
 * the paper's words and against a computation written here, apart from
 * the balancer's (a brute force, an exact optimum). The papers:
 *   D. J. Quinlan and M. Berndt, "MLB: Multilevel Load Balancing for
 *   Structured Grid Applications", SIAM PP, 1997 (quinlan1997);
 *   "Load Balancing by Dimension", a design note of the PDT code (lbd). */
#include "cli/reproduce-checks.h"

#include <math.h>
#include <stdio.h>
#include <string.h>
#include <glib/gstdio.h>

#include "balancers/cuts/tdg.h"
#include "balancers/mlb/mlb-plan.h"
#include "cli/runner.h"
#include "lbsim/balancer.h"
#include "lbsim/model.h"
#include "lbsim/scenario.h"

/* clang-format off */
G_DEFINE_QUARK(lb-repro-check-error-quark, lb_repro_check_error)
/* clang-format on */
#define CHECK_ERROR (lb_repro_check_error_quark())

static gboolean G_GNUC_PRINTF(2, 3) fail(GError **error, const char *format, ...)
{
  va_list args;
  va_start(args, format);
  g_autofree char *text = g_strdup_vprintf(format, args);
  va_end(args);
  g_set_error_literal(error, CHECK_ERROR, 0, text);
  return FALSE;
}

void
lb_check_output_point(LbCheckOutput *out, double value, const char *format, ...)
{
  if (out->points == NULL)
    out->points = g_array_new(FALSE, FALSE, sizeof(LbCheckPoint));
  va_list args;
  va_start(args, format);
  LbCheckPoint pt = {g_strdup_vprintf(format, args), value, 0, 0};
  va_end(args);
  g_array_append_val(out->points, pt);
}

static guint
log2_of(guint64 p)
{
  guint d = 0;
  while ((G_GUINT64_CONSTANT(1) << d) < p)
    d++;
  return d;
}

static gboolean
power_of_two(guint64 p)
{
  return p > 0 && (p & (p - 1)) == 0;
}

/* "0110" -> 6; at most 20 bits. */
static gboolean
binary(const char *text, guint *value)
{
  guint v = 0, n = 0;
  for (const char *c = text; *c != '\0'; c++, n++) {
    if ((*c != '0' && *c != '1') || n >= 20)
      return FALSE;
    v = v << 1 | (guint)(*c - '0');
  }
  *value = v;
  return n > 0;
}

static char *
bits_text(guint v, guint width)
{
  char *s = g_malloc(width + 1);
  for (guint b = 0; b < width; b++)
    s[b] = (v >> (width - 1 - b)) & 1u ? '1' : '0';
  s[width] = '\0';
  return s;
}

/* "5,1,7" -> its numbers. */
static GArray *
numbers(const char *text)
{
  g_auto(GStrv) items = g_strsplit(text, ",", -1);
  GArray *out = g_array_new(FALSE, FALSE, sizeof(guint64));
  for (guint i = 0; items[i] != NULL; i++) {
    guint64 v = 0;
    if (!g_ascii_string_to_unsigned(g_strstrip(items[i]), 10, 0, G_MAXUINT32, &v, NULL)) {
      g_array_unref(out);
      return NULL;
    }
    g_array_append_val(out, v);
  }
  return out;
}

static guint
processors(guint jobs)
{
  return jobs > 0 ? jobs : MAX(g_get_num_processors(), 1);
}

/* ---- real runs the checks make themselves ---- */

/* A scenario of the check's own (and the loads file it names, loads.txt
 * beside it), loaded from a temporary folder as lbsim explain loads its
 * cases. */
static LbScenario *
load_text(const char *text, const char *loads, GError **error)
{
  g_autofree char *dir = g_dir_make_tmp("lbsim-reproduce-XXXXXX", error);
  if (dir == NULL)
    return NULL;
  g_autofree char *path = g_build_filename(dir, "case.ini", NULL);
  g_autofree char *loads_path = g_build_filename(dir, "loads.txt", NULL);
  LbScenarioOverrides ov = {0};
  LbScenario *sc = NULL;
  if (g_file_set_contents(path, text, -1, error) &&
      (loads == NULL || g_file_set_contents(loads_path, loads, -1, error)))
    sc = lb_scenario_load(path, &ov, error);
  g_unlink(path);
  g_unlink(loads_path);
  g_rmdir(dir);
  return sc;
}

/* The scenario's one balancer run, simulated in a child; the schedule and
 * (with narrate) the ranks' narration kept. */
static LbRunResult *
simulate(const LbScenario *sc, const LbScenarioOverrides *ov, gboolean narrate, guint jobs,
         GError **error)
{
  LbRunnerOptions ro = {
      .jobs = processors(jobs), .quiet = TRUE, .run = {.detail = TRUE, .narrate = narrate}};
  g_autoptr(GPtrArray) results = NULL;
  int code = 0;
  if (!lb_runner_run(sc, ov, &ro, &results, &code, error))
    return NULL;
  g_assert(results->len == 1);
  return g_ptr_array_steal_index(results, 0);
}

/* MLB on a hypercube of p ranks over the given elements (in blocks of
 * equal counts over the ranks), narrated. */
static LbRunResult *
simulate_mlb(guint p, const guint64 *elements, guint n, guint jobs, GError **error)
{
  g_autofree char *platforms = g_canonicalize_filename(lb_platform_dir(), NULL);
  g_autofree char *name = g_strdup_printf("hypercube-%u.xml", p);
  g_autofree char *platform = g_build_filename(platforms, name, NULL);
  g_autofree char *text = g_strdup_printf("[scenario]\nname = check\nplatform = %s\nranks = %u\n"
                                          "[workload]\npattern = file\nfile = loads.txt\n"
                                          "[balancers]\nrun = mlb\n",
                                          platform, p);
  g_autoptr(GString) loads = g_string_new(NULL);
  for (guint i = 0; i < n; i++)
    g_string_append_printf(loads, "%s%" G_GUINT64_FORMAT, i ? " " : "", elements[i]);
  g_string_append_c(loads, '\n');
  g_autoptr(LbScenario) sc = load_text(text, loads->str, error);
  if (sc == NULL)
    return NULL;
  LbScenarioOverrides ov = {0};
  return simulate(sc, &ov, TRUE, jobs, error);
}

/* ---- quinlan1997: the Gray code and the tree ---- */

static gboolean
gray_codes_validate(const char *const *args, guint nargs, const char *dir, GError **error)
{
  guint width = (guint)strlen(args[0]), v = 0;
  if (width > 10 || nargs != 1u << width)
    return fail(error, "check gray-codes: %u codes of %u bits; the table of d bits has 2^d rows",
                nargs, width);
  for (guint i = 0; i < nargs; i++)
    if (strlen(args[i]) != width || !binary(args[i], &v))
      return fail(error, "check gray-codes: '%s' is not a code of %u bits", args[i], width);
  return TRUE;
}

/* Section 3's table: rank r's Gray code, as lbsim numbers the hypercube's
 * nodes (mlb_gray), row by row against the paper's. */
static gboolean
gray_codes(const LbCheckInput *in, LbCheckOutput *out, GError **error)
{
  guint d = (guint)strlen(in->args[0]), same = 0, one_bit = 0;
  g_autoptr(GString) codes = g_string_new(NULL);
  g_autoptr(GString) detail = g_string_new("rank  paper  lbsim\n");
  for (guint r = 0; r < in->nargs; r++) {
    g_autofree char *code = bits_text(mlb_gray(r), d);
    same += strcmp(code, in->args[r]) == 0;
    guint diff = r > 0 ? mlb_gray(r) ^ mlb_gray(r - 1) : 1;
    one_bit += power_of_two(diff);
    g_string_append_printf(codes, "%s%s", r ? " " : "", code);
    g_string_append_printf(detail, "%4u  %5s  %5s\n", r, in->args[r], code);
  }
  out->value = same;
  out->note = g_strdup_printf("lbsim: %s; successive ranks differ in one bit%s", codes->str,
                              one_bit == in->nargs ? "" : " (NOT everywhere)");
  out->detail = g_string_free(g_steal_pointer(&detail), FALSE);
  return TRUE;
}

static gboolean
coarse_children_validate(const char *const *args, guint nargs, const char *dir, GError **error)
{
  guint v = 0, width = (guint)strlen(args[0]);
  for (guint i = 0; i < 3; i++)
    if (!binary(args[i], &v) || strlen(args[i]) != width + (i > 0))
      return fail(error,
                  "check coarse-children: '%s' is not a code of %u bits (the node has one bit "
                  "fewer than its children)",
                  args[i], width + (i > 0));
  return TRUE;
}

/* The rank the paper's mapping gives a code: "rank 0 to the zero
 * graycode, changing bits starting with the least significant one", the
 * reflected Gray code, inverted here by its prefix parity (apart from
 * MLB's mlb_gray). */
static guint
paper_rank_of(guint code)
{
  guint rank = 0, parity = 0;
  for (guint bit = 32; bit-- > 0;) {
    parity ^= (code >> bit) & 1u;
    rank |= parity << bit;
  }
  return rank;
}

/* Section 3.1's example: node NODE of the level above the ranks sums the
 * ranks of codes CHILD and CHILD. The ranks are the paper's (its mapping,
 * inverted here); lbsim's tree must pair them along their 0-edge
 * (mlb_partner, phase 1's first exchange) into a node whose code (what
 * their codes as MLB numbers them, mlb_gray, share above bit 0) is NODE.
 * lbsim's number: the paper's children in lbsim's node NODE. */
static gboolean
coarse_children(const LbCheckInput *in, LbCheckOutput *out, GError **error)
{
  guint node = 0, want[2] = {0, 0};
  binary(in->args[0], &node);
  binary(in->args[1], &want[0]);
  binary(in->args[2], &want[1]);
  guint d = (guint)strlen(in->args[1]);
  guint ranks[2] = {paper_rank_of(want[0]), paper_rank_of(want[1])};
  guint in_node = 0;
  g_autoptr(GString) how = g_string_new(NULL);
  for (guint i = 0; i < 2; i++) {
    guint r = ranks[i], partner = mlb_partner(r, 0);
    gboolean paired = partner == ranks[1 - i];
    gboolean coded = mlb_gray(r) >> 1 == node && mlb_gray(r) == want[i];
    in_node += paired && coded;
    g_autofree char *code = bits_text(mlb_gray(r), d), *parent = bits_text(mlb_gray(r) >> 1, d - 1);
    g_string_append_printf(how, "%s%s: rank %u (lbsim's code %s), 0-edge partner %u, node %s",
                           i ? "; " : "", in->args[1 + i], r, code, partner, parent);
  }
  out->value = in_node;
  out->note = g_strdup_printf("in a %u-cube: %s; the paper's \"d = %u\" is that level, d - 1 of a "
                              "%u-cube",
                              d, how->str, d - 1, d);
  return TRUE;
}

/* ---- quinlan1997: the four-processor example (sections 3.1 to 3.3) ---- */

/* What one rank's narration says of phase 1 at each edge: the load of
 * its block, its partner's, and their sum (lbsim's tree, as the ranks
 * computed it). */
typedef struct {
  guint64 mine, other, sum;
  gboolean seen;
} Accumulated;

/* Reads phase 1 out of the run's narration: "rank R: edge E: my block of
 * S has load A, rank Q's has B -> block of 2S: C", each load perhaps
 * followed by its element count in parentheses. */
static gboolean
read_accumulation(const LbRunResult *run, guint d, Accumulated *acc, GError **error)
{
  g_autoptr(GRegex) line = g_regex_new(
      "  rank (\\d+): edge (\\d+): my block of (\\d+) has load (\\d+)(?: \\([^)]*\\))?, "
      "rank (\\d+)'s has (\\d+)(?: \\([^)]*\\))? -> block of (\\d+): (\\d+)",
      G_REGEX_OPTIMIZE, 0, NULL);
  guint found = 0;
  for (guint i = 0; run->narration != NULL && i < run->narration->len; i++) {
    const char *text = run->narration->pdata[i];
    g_autoptr(GMatchInfo) match = NULL;
    if (!g_regex_match(line, text, 0, &match))
      continue;
    guint64 v[8];
    for (guint k = 0; k < 8; k++) {
      g_autofree char *word = g_match_info_fetch(match, (gint)k + 1);
      v[k] = g_ascii_strtoull(word, NULL, 10);
    }
    guint r = (guint)v[0], e = (guint)v[1];
    if (r >= run->ranks || e >= d || v[2] != 1u << e || v[6] != 2 * v[2] ||
        v[4] != mlb_partner(r, e) || acc[r * d + e].seen)
      return fail(error, "phase 1's narration is not as this check reads it: '%s'", text);
    acc[r * d + e] = (Accumulated){v[3], v[5], v[7], TRUE};
    found++;
  }
  if (found != run->ranks * d)
    return fail(error, "phase 1's narration tells %u of the %u exchanges (its form changed?)",
                found, run->ranks * d);
  return TRUE;
}

/* A block's load, summed here from the rank loads. */
static guint64
block_sum(const guint64 *loads, guint first, guint size)
{
  guint64 s = 0;
  for (guint r = first; r < first + size; r++)
    s += loads[r];
  return s;
}

/* The tree's nodes whose accumulated load (as the ranks' narration tells
 * it) is not the sum of its children's, or not the sum of its block here,
 * or not the same on every rank of the block. */
static guint
tree_mismatches(const Accumulated *acc, const guint64 *loads, guint p, guint d, guint64 **tree)
{
  guint bad = 0;
  for (guint k = 0; k <= d; k++) {
    guint size = 1u << k;
    for (guint first = 0; first < p; first += size) {
      guint64 node = 0;
      gboolean wrong = FALSE;
      for (guint r = first; r < first + size; r++) {
        /* k = 0: the rank's own load; else the sum it learnt at edge k - 1 */
        guint64 v = k == 0 ? acc[r * d].mine : acc[r * d + k - 1].sum;
        if (k > 0) {
          const Accumulated *x = &acc[r * d + k - 1];
          wrong |= x->mine + x->other != x->sum;
          guint half = size / 2, mine = r / half * half, other = mine ^ half;
          wrong |=
              x->mine != block_sum(loads, mine, half) || x->other != block_sum(loads, other, half);
        }
        wrong |= r > first && v != node;
        node = v;
      }
      wrong |= node != block_sum(loads, first, size);
      tree[d - k][first / size] = node;
      bad += wrong;
    }
  }
  return bad;
}

/* Phase 3 level by level (section 3.3) for every rank of a constant load
 * function at once: the ranks hold starts[r] .. starts[r + 1] of unit
 * elements. The exchanges the ranks make with messages (the splits of
 * what crossed each coarser edge, the new edge from the sibling) are
 * played here between the ranks' MlbLevels. Returns the finest level;
 * level_out[l][first] gets what the block of level l starting at rank
 * `first` sends and receives along each edge. */
typedef struct {
  guint64 sent[MLB_MAX_D], received[MLB_MAX_D];
} NodeSchedule;

static guint64
pieces_load(const GArray *pieces)
{
  guint64 s = 0;
  for (guint i = 0; i < pieces->len; i++) {
    const MlbPiece *x = &g_array_index(pieces, MlbPiece, i);
    s += x->span.hi.load - x->span.lo.load;
  }
  return s;
}

/* What a rank sends along an edge and what its partner expects from it
 * are the same pieces (the ranks' messages assume it): pieces that are
 * not. */
static guint
unmatched(const GArray *out, const GArray *in)
{
  guint bad = out->len > in->len ? out->len - in->len : in->len - out->len;
  for (guint i = 0; i < out->len && i < in->len; i++) {
    const MlbPiece *a = &g_array_index(out, MlbPiece, i), *b = &g_array_index(in, MlbPiece, i);
    bad += a->origin != b->origin || mlb_key_cmp(a->span.lo, b->span.lo) != 0 ||
           mlb_key_cmp(a->span.hi, b->span.hi) != 0;
  }
  return bad;
}

static MlbLevel *
levels_plan(guint d, const guint64 *starts, NodeSchedule **level_out, guint *mismatched)
{
  guint p = 1u << d;
  MlbKey total = {starts[p], starts[p]};
  MlbLevel *node = g_new(MlbLevel, p);
  for (guint r = 0; r < p; r++)
    mlb_level_init(&node[r], d, d, r);
  for (guint k = d; k >= 1; k--) {
    /* along each coarser edge, the splits of the pieces that crossed it */
    for (guint e = d; e-- > k;)
      for (guint r = 0; r < p; r++) {
        GArray *out = node[r].sent[e], *in = node[mlb_partner(r, e)].received[e];
        *mismatched += unmatched(out, in);
        guint first = r >> k << k;
        MlbKey own = {starts[first + (1u << (k - 1))], starts[first + (1u << (k - 1))]};
        for (guint i = 0; i < out->len && i < in->len; i++)
          g_array_index(in, MlbPiece, i).split =
              mlb_level_split_of(&node[r], e, &g_array_index(out, MlbPiece, i), own);
      }
    MlbLevel *half = g_new(MlbLevel, p);
    for (guint r = 0; r < p; r++) {
      guint mine = r >> (k - 1) << (k - 1);
      MlbKey lo = {starts[mine], starts[mine]};
      MlbKey hi = {starts[mine + (1u << (k - 1))], starts[mine + (1u << (k - 1))]};
      mlb_level_begin(&half[r], &node[r], r, lo, hi);
      for (guint e = d; e-- > k;)
        mlb_level_cross(&half[r], &node[r], e, total, MLB_DESIRED_HALVING);
      mlb_level_sibling(&half[r], total, MLB_DESIRED_HALVING);
    }
    for (guint r = 0; r < p; r++) {
      const GArray *from = half[mlb_partner(r, k - 1)].sent[k - 1];
      mlb_level_take_sibling(&half[r], (const MlbPiece *)from->data, from->len, total,
                             MLB_DESIRED_HALVING);
    }
    for (guint r = 0; level_out != NULL && r < p; r += 1u << (k - 1)) {
      NodeSchedule *s = &level_out[d - k + 1][r >> (k - 1)];
      for (guint e = k - 1; e < d; e++) {
        s->sent[e] = pieces_load(half[r].sent[e]);
        s->received[e] = pieces_load(half[r].received[e]);
      }
    }
    for (guint r = 0; r < p; r++)
      mlb_level_clear(&node[r]);
    g_free(node);
    node = half;
  }
  for (guint e = 0; e < d; e++)
    for (guint r = 0; r < p; r++)
      *mismatched += unmatched(node[r].sent[e], node[mlb_partner(r, e)].received[e]);
  return node;
}

static void
levels_free(MlbLevel *levels, guint p)
{
  for (guint r = 0; r < p; r++)
    mlb_level_clear(&levels[r]);
  g_free(levels);
}

/* Plays the finest level's schedule on the unit elements, coarsest edge
 * first, as section 3.3 says it is read. Counts what goes wrong:
 *   *short_of: a rank sends keys it does not hold at that point;
 *   *missed:   a rank that ends without exactly its desired keys;
 *   *returned: a rank sends along an edge keys it receives along it, or
 *              a key comes back to a rank it has left.
 * *passed counts keys handed on along a finer edge. */
typedef struct {
  guint short_of, missed, returned;
  guint unmatched; /* pieces a partner does not expect (levels_plan) */
  guint64 passed;
} PlayResult;

static void
play(guint d, const guint64 *starts, const MlbLevel *finest, PlayResult *res)
{
  guint p = 1u << d;
  guint64 total = starts[p];
  g_autofree guint *holder = g_new(guint, MAX(total, 1));
  g_autofree guint64 *visited = g_new0(guint64, MAX(total, 1)); /* ranks, p <= 64 */
  g_autofree guint *arrived = g_new(guint, MAX(total, 1));      /* edge it came along, or d */
  for (guint r = 0; r < p; r++)
    for (guint64 x = starts[r]; x < starts[r + 1]; x++) {
      holder[x] = r;
      visited[x] = G_GUINT64_CONSTANT(1) << r;
      arrived[x] = d;
    }
  for (guint e = d; e-- > 0;) {
    /* the exchange along e is simultaneous: what each rank sends is what
     * it held before it */
    g_autofree guint *to = g_new(guint, MAX(total, 1));
    for (guint64 x = 0; x < total; x++)
      to[x] = holder[x];
    for (guint r = 0; r < p; r++) {
      const GArray *out = finest[r].sent[e], *in = finest[r].received[e];
      guint q = mlb_partner(r, e);
      for (guint i = 0; i < out->len; i++) {
        const MlbPiece *x = &g_array_index(out, MlbPiece, i);
        for (guint64 k = x->span.lo.load; k < x->span.hi.load; k++) {
          res->short_of += holder[k] != r;
          res->returned += (visited[k] >> q) & 1u;
          res->passed += arrived[k] < d && arrived[k] > e;
          to[k] = q;
        }
      }
      for (guint i = 0; i < in->len; i++) {
        const MlbPiece *x = &g_array_index(in, MlbPiece, i);
        for (guint j = 0; j < out->len; j++) {
          const MlbPiece *y = &g_array_index(out, MlbPiece, j);
          res->returned +=
              MAX(x->span.lo.load, y->span.lo.load) < MIN(x->span.hi.load, y->span.hi.load);
        }
      }
    }
    for (guint64 x = 0; x < total; x++) {
      if (to[x] != holder[x]) {
        visited[x] |= G_GUINT64_CONSTANT(1) << to[x];
        arrived[x] = e;
      }
      holder[x] = to[x];
    }
  }
  for (guint r = 0; r < p; r++) {
    guint64 lo = mlb_desired_prefix(total, d, r, MLB_DESIRED_HALVING);
    guint64 hi = mlb_desired_prefix(total, d, r + 1, MLB_DESIRED_HALVING);
    gboolean ok = TRUE;
    for (guint64 x = 0; x < total; x++)
      ok &= (holder[x] == r) == (x >= lo && x < hi);
    res->missed += !ok;
  }
}

static gboolean
tree_schedule_validate(const char *const *args, guint nargs, const char *dir, GError **error)
{
  static const char *const what[] = {"tree", "schedule", "no-return", NULL};
  if (!g_strv_contains(what, args[0]))
    return fail(error, "check tree-schedule: '%s' is not tree, schedule or no-return", args[0]);
  g_autoptr(GArray) loads = numbers(args[1]);
  if (loads == NULL || loads->len < 2 || loads->len > 64 || !power_of_two(loads->len))
    return fail(error,
                "check tree-schedule: '%s' is not the loads of 2 to 64 ranks (a power of "
                "two of them), whole numbers separated by commas",
                args[1]);
  for (guint i = 0; i < loads->len; i++)
    if (g_array_index(loads, guint64, i) > 10000)
      return fail(error, "check tree-schedule: loads up to 10000 (a worked example)");
  return TRUE;
}

static void
append_schedule(GString *t, const NodeSchedule *s, guint from_edge, guint d)
{
  gboolean any = FALSE;
  for (guint e = d; e-- > from_edge;) {
    if (s->sent[e] == 0 && s->received[e] == 0)
      continue;
    g_string_append_printf(t, "%s edge %u:", any ? ";" : "", e);
    if (s->sent[e] > 0)
      g_string_append_printf(t, " send %" G_GUINT64_FORMAT, s->sent[e]);
    if (s->received[e] > 0)
      g_string_append_printf(t, "%s receive %" G_GUINT64_FORMAT, s->sent[e] > 0 ? "," : "",
                             s->received[e]);
    any = TRUE;
  }
  if (!any)
    g_string_append(t, " nothing moves");
}

/* The example's tree and schedules, as the paper's figures lay them out
 * (their numbers are images, not in the text). */
static char *
example_text(guint d, const guint64 *loads, guint64 **tree, NodeSchedule **levels,
             const PlayResult *played, const LbRunResult *run, const guint64 *elements,
             guint per_rank, const char *what)
{
  guint p = 1u << d;
  guint64 total = block_sum(loads, 0, p);
  GString *t = g_string_new(NULL);
  if (strcmp(what, "tree") == 0) {
    g_string_append(t, "the tree after phase 1, as the ranks computed it: accumulated load "
                       "(desired load) [gray code]\n");
    for (guint l = 0; l <= d; l++) {
      guint size = p >> l;
      g_string_append_printf(t, "level %u:", l);
      for (guint first = 0; first < p; first += size) {
        guint64 want = mlb_desired_prefix(total, d, first + size, MLB_DESIRED_HALVING) -
                       mlb_desired_prefix(total, d, first, MLB_DESIRED_HALVING);
        g_autofree char *code = bits_text(mlb_gray(first) >> (d - l), l);
        g_string_append_printf(t, "  %" G_GUINT64_FORMAT " (%" G_GUINT64_FORMAT ")%s%s%s",
                               tree[l][first / size], want, l > 0 ? " [" : "", code,
                               l > 0 ? "]" : "");
      }
      g_string_append_c(t, '\n');
    }
    return g_string_free(t, FALSE);
  }
  if (strcmp(what, "schedule") == 0) {
    g_string_append(t, "phase 3 for a constant load function (one unit element per unit of "
                       "load), level by level from the root:\n");
    for (guint l = 1; l <= d; l++) {
      guint size = p >> l;
      g_string_append_printf(t, "level %u (%s, edges %u .. %u):\n", l,
                             size > 1 ? "blocks" : "ranks", d - 1, d - l);
      for (guint first = 0; first < p; first += size) {
        guint64 want = mlb_desired_prefix(total, d, first + size, MLB_DESIRED_HALVING) -
                       mlb_desired_prefix(total, d, first, MLB_DESIRED_HALVING);
        g_autofree char *code = bits_text(mlb_gray(first) >> (d - l), l);
        if (size > 1)
          g_string_append_printf(
              t, "  ranks %u .. %u [%s] %" G_GUINT64_FORMAT " (%" G_GUINT64_FORMAT "):", first,
              first + size - 1, code, block_sum(loads, first, size), want);
        else
          g_string_append_printf(t, "  rank %u [%s] %" G_GUINT64_FORMAT " (%" G_GUINT64_FORMAT "):",
                                 first, code, loads[first], want);
        append_schedule(t, &levels[l][first / size], d - l, d);
        g_string_append_c(t, '\n');
      }
    }
    g_string_append_printf(t,
                           "played along the edges coarsest first: %severy rank ends with its "
                           "desired load; %" G_GUINT64_FORMAT " units passed through a rank\n",
                           played->missed == 0 ? "" : "NOT ", played->passed);
  }
  g_string_append(t, "the real run of mlb on elements");
  for (guint r = 0; r < p; r++)
    for (guint i = 0; i < per_rank; i++)
      g_string_append_printf(t, "%s%" G_GUINT64_FORMAT, i == 0 && r > 0 ? " | " : " ",
                             elements[r * per_rank + i]);
  g_string_append(t, " (indivisible: the loan moves the cuts to element boundaries):\n");
  for (guint i = 0; run->transfers != NULL && i < run->transfers->len; i++) {
    const LbTransfer *x = &g_array_index(run->transfers, LbTransfer, i);
    g_string_append_printf(t,
                           "  step %u (edge %u): rank %u -> rank %u  units %" G_GUINT64_FORMAT
                           " .. %" G_GUINT64_FORMAT "  load %" G_GUINT64_FORMAT "\n",
                           x->round, d - 1 - x->round, x->src, x->dst, x->first,
                           x->first + x->count - 1, x->load);
  }
  g_string_append(t, "  final loads:");
  for (guint r = 0; r < p; r++)
    g_string_append_printf(t, " %" G_GUINT64_FORMAT, run->final_loads[r]);
  g_string_append_c(t, '\n');
  return g_string_free(t, FALSE);
}

/* The phase 1 tree of a real run (the example's loads, as PER_RANK
 * elements a rank, as even as whole numbers make them); its nodes that do
 * not add up. */
#define PER_RANK 4

static gboolean
example_run(guint d, const guint64 *loads, guint jobs, guint64 **tree, guint *bad,
            guint64 *elements, LbRunResult **run, GError **error)
{
  guint p = 1u << d;
  for (guint r = 0; r < p; r++)
    for (guint i = 0; i < PER_RANK; i++)
      elements[PER_RANK * r + i] = loads[r] / PER_RANK + (i < loads[r] % PER_RANK);
  *run = simulate_mlb(p, elements, PER_RANK * p, jobs, error);
  if (*run == NULL)
    return FALSE;
  if (tree == NULL)
    return TRUE;
  g_autofree Accumulated *acc = g_new0(Accumulated, p * d);
  if (!read_accumulation(*run, d, acc, error))
    return FALSE;
  *bad = tree_mismatches(acc, loads, p, d, tree);
  return TRUE;
}

/* Recursive halving of a total over a block of ranks, remainder to the
 * first half (section 3.2, as DESIGN.md fixes the remainder's side),
 * written here apart from MLB's mlb_desired_prefix. */
static void
halve(guint64 total, guint first, guint count, guint64 *desired)
{
  if (count == 1) {
    desired[first] = total;
    return;
  }
  halve(total - total / 2, first, count / 2, desired);
  halve(total / 2, first + count / 2, count / 2, desired);
}

/* A constant load function in a real run: each rank's load as that many
 * elements of weight 1, padded with elements of weight 0 to the same
 * count on every rank (the workload hands out equal counts). lbsim's MLB
 * must end with every rank at its desired load exactly: the ranks that do
 * not. */
static gboolean
constant_run(guint p, const guint64 *loads, guint jobs, guint *off, GError **error)
{
  guint64 most = 1, total = 0;
  for (guint r = 0; r < p; r++) {
    most = MAX(most, loads[r]);
    total += loads[r];
  }
  g_autofree guint64 *elements = g_new0(guint64, most * p);
  for (guint r = 0; r < p; r++)
    for (guint64 i = 0; i < loads[r]; i++)
      elements[most * r + i] = 1;
  g_autoptr(LbRunResult) run = simulate_mlb(p, elements, (guint)(most * p), jobs, error);
  if (run == NULL)
    return FALSE;
  g_autofree guint64 *desired = g_new0(guint64, p);
  halve(total, 0, p, desired);
  for (guint r = 0; r < p; r++)
    *off += run->final_loads[r] != desired[r];
  return TRUE;
}

/* Sections 3.1 and 3.3 on an example (the paper's figures' numbers are
 * images, not in the text): WHAT tree, the tree the ranks accumulate in
 * phase 1 against sums of its children (a real run, and one on 64 ranks);
 * schedule, phase 3 level by level for a constant load function, played
 * along the edges coarsest first, against the desired loads; no-return,
 * that no load goes back where it came from. schedule and no-return also
 * hold on random cases (p = 2 .. 64). */
static gboolean
tree_schedule(const LbCheckInput *in, LbCheckOutput *out, GError **error)
{
  const char *what = in->args[0];
  g_autoptr(GArray) example = numbers(in->args[1]);
  guint p = example->len, d = log2_of(p);
  const guint64 *loads = (const guint64 *)example->data;
  guint64 **tree = g_new(guint64 *, d + 1);
  for (guint l = 0; l <= d; l++)
    tree[l] = g_new0(guint64, 1u << l);
  g_autofree guint64 *elements = g_new(guint64, PER_RANK * p);
  g_autoptr(LbRunResult) run = NULL;
  guint tree_bad = 0;
  gboolean is_tree = strcmp(what, "tree") == 0;
  gboolean ok =
      example_run(d, loads, in->jobs, is_tree ? tree : NULL, &tree_bad, elements, &run, error);

  g_autofree guint64 *starts = g_new0(guint64, p + 1);
  for (guint r = 0; r < p; r++)
    starts[r + 1] = starts[r] + loads[r];
  NodeSchedule **levels = g_new(NodeSchedule *, d + 1);
  for (guint l = 0; l <= d; l++)
    levels[l] = g_new0(NodeSchedule, 1u << l);
  PlayResult played = {0};
  if (ok) {
    MlbLevel *finest = levels_plan(d, starts, levels, &played.unmatched);
    play(d, starts, finest, &played);
    levels_free(finest, p);
  }
  if (ok && is_tree) {
    /* and a larger tree, on 64 ranks of random loads */
    g_autoptr(GRand) rand = g_rand_new_with_seed(1997);
    guint64 big[64];
    for (guint r = 0; r < 64; r++)
      big[r] = (guint64)g_rand_int_range(rand, 0, 100);
    guint64 **big_tree = g_new(guint64 *, 7);
    for (guint l = 0; l <= 6; l++)
      big_tree[l] = g_new0(guint64, 1u << l);
    g_autofree guint64 *big_elements = g_new(guint64, PER_RANK * 64);
    g_autoptr(LbRunResult) big_run = NULL;
    guint big_bad = 0;
    ok = example_run(6, big, in->jobs, big_tree, &big_bad, big_elements, &big_run, error);
    for (guint l = 0; l <= 6; l++)
      g_free(big_tree[l]);
    g_free(big_tree);
    out->value = tree_bad + big_bad;
    out->note = g_strdup_printf("%u of the %u nodes of the example's tree and %u of the 127 of a "
                                "64-rank one (real runs) are not the sums of their children",
                                tree_bad, 2 * p - 1, big_bad);
  } else if (ok) {
    guint cases = in->quick ? 200 : 2000;
    PlayResult all = played;
    g_autoptr(GRand) rand = g_rand_new_with_seed(1997);
    for (guint c = 0; c < cases; c++) {
      guint cd = 1 + c % 6, cp = 1u << cd;
      g_autofree guint64 *s = g_new0(guint64, cp + 1);
      for (guint r = 0; r < cp; r++)
        s[r + 1] = s[r] + (guint64)g_rand_int_range(rand, 0, 13);
      PlayResult one = {0};
      MlbLevel *finest = levels_plan(cd, s, NULL, &one.unmatched);
      play(cd, s, finest, &one);
      levels_free(finest, cp);
      all.short_of += one.short_of;
      all.missed += one.missed;
      all.returned += one.returned;
      all.passed += one.passed;
      all.unmatched += one.unmatched;
    }
    if (strcmp(what, "schedule") == 0) {
      /* and the real runs: the example and two random loads, each load a
       * count of unit elements */
      guint off = 0;
      ok = constant_run(p, loads, in->jobs, &off, error);
      g_autoptr(GRand) more = g_rand_new_with_seed(3);
      for (guint k = 0; ok && k < 2; k++) {
        guint rp = k == 0 ? 16 : 64;
        g_autofree guint64 *rl = g_new(guint64, rp);
        for (guint r = 0; r < rp; r++)
          rl[r] = (guint64)g_rand_int_range(more, 0, 12);
        ok = constant_run(rp, rl, in->jobs, &off, error);
      }
      out->value = all.missed + all.short_of + all.unmatched + off;
      out->note = g_strdup_printf(
          "the example and %u random cases (p = 2 .. 64): %u ranks end without their desired "
          "load, %u units sent that were not held, %u pieces the partner did not expect; real "
          "runs of MLB on unit elements (the example, 16 and 64 random ranks): %u ranks end "
          "without their desired load",
          cases, all.missed, all.short_of, all.unmatched, off);
    } else {
      out->value = all.returned;
      out->note = g_strdup_printf(
          "the example and %u random cases (p = 2 .. 64): %u units go back along the edge they "
          "came by or to a rank they left; %" G_GUINT64_FORMAT " passed through",
          cases, all.returned, all.passed);
    }
  }
  if (ok && strcmp(what, "no-return") != 0)
    out->detail = example_text(d, loads, tree, levels, &played, run, elements, PER_RANK, what);
  for (guint l = 0; l <= d; l++) {
    g_free(tree[l]);
    g_free(levels[l]);
  }
  g_free(tree);
  g_free(levels);
  return ok;
}

/* ---- quinlan1997: step counts of real runs ---- */

static const char *const bounds[] = {"log2p", "d(d+1)/2", "d(d-1)/2", NULL};

static guint
bound_of(const char *bound, guint d)
{
  return strcmp(bound, "log2p") == 0      ? d
         : strcmp(bound, "d(d+1)/2") == 0 ? d * (d + 1) / 2
                                          : d * (d - 1) / 2;
}

/* "log2p": exactly; "<=log2p": at most. */
static const char *
bound_name(const char *arg)
{
  return g_str_has_prefix(arg, "<=") ? arg + 2 : arg;
}

static gboolean
steps_validate(const char *const *args, guint nargs, const char *dir, GError **error)
{
  if (!g_strv_contains(bounds, bound_name(args[1])))
    return fail(error,
                "check steps: bound '%s' is not log2p, d(d+1)/2 or d(d-1)/2 (exactly), or one "
                "of them after <= (at most)",
                args[1]);
  return TRUE;
}

static gboolean
among_labels(const LbCheckInput *in, guint from, const char *label)
{
  if (in->nargs <= from)
    return TRUE;
  for (guint i = from; i < in->nargs; i++)
    if (strcmp(in->args[i], label) == 0)
      return TRUE;
  return FALSE;
}

static int
compare_guint(gconstpointer a, gconstpointer b)
{
  guint x = *(const guint *)a, y = *(const guint *)b;
  return x < y ? -1 : x > y;
}

/* A metric of every run of the claim's sweep (of the labels given) against
 * a count in d = log2 p the paper states exactly (or at most, "<="):
 * lbsim's number is the runs that do not take it. */
static gboolean
steps(const LbCheckInput *in, LbCheckOutput *out, GError **error)
{
  const char *metric = in->args[0], *bound = bound_name(in->args[1]);
  gboolean at_most = bound != in->args[1];
  g_autoptr(GPtrArray) labels = g_ptr_array_new();
  g_autoptr(GArray) ps = g_array_new(FALSE, FALSE, sizeof(guint));
  guint at = 0, below = 0, above = 0, runs = 0;
  for (guint i = 0; i < in->nruns; i++) {
    const LbRunResult *res = in->runs[i].result;
    if (!among_labels(in, 2, res->balancer))
      continue;
    double v = 0;
    if (!power_of_two(res->ranks))
      return fail(error, "%s: %u ranks, not a hypercube's", in->runs[i].point, res->ranks);
    if (!lb_run_result_lookup(res, metric, &v))
      return fail(error, "%s: no metric %s", in->runs[i].point, metric);
    double excess = v - bound_of(bound, log2_of(res->ranks));
    at += excess == 0;
    below += excess < 0;
    above += excess > 0;
    runs++;
    gboolean known = FALSE;
    for (guint k = 0; k < labels->len; k++)
      known |= strcmp(labels->pdata[k], res->balancer) == 0;
    if (!known)
      g_ptr_array_add(labels, res->balancer);
    gboolean seen = FALSE;
    for (guint k = 0; k < ps->len; k++)
      seen |= g_array_index(ps, guint, k) == res->ranks;
    if (!seen)
      g_array_append_val(ps, res->ranks);
  }
  if (runs == 0)
    return fail(error, "no runs of %s", in->nargs > 2 ? in->args[2] : "any balancer");
  g_array_sort(ps, compare_guint);
  /* a table: p, the bound, each label's steps */
  g_autoptr(GString) t = g_string_new(NULL);
  g_string_append_printf(t, "%8s %8s", "p", bound);
  for (guint k = 0; k < labels->len; k++)
    g_string_append_printf(t, " %12s", (char *)labels->pdata[k]);
  g_string_append_c(t, '\n');
  for (guint j = 0; j < ps->len; j++) {
    guint p = g_array_index(ps, guint, j);
    g_string_append_printf(t, "%8u %8u", p, bound_of(bound, log2_of(p)));
    for (guint k = 0; k < labels->len; k++) {
      double v = NAN;
      for (guint i = 0; i < in->nruns; i++) {
        const LbRunResult *res = in->runs[i].result;
        if (res->ranks == p && strcmp(res->balancer, labels->pdata[k]) == 0)
          lb_run_result_lookup(res, metric, &v);
      }
      g_string_append_printf(t, " %12.0f", v);
    }
    g_string_append_c(t, '\n');
  }
  out->value = at_most ? above : below + above;
  out->note =
      g_strdup_printf("%s of %u runs (p = %u .. %u): %u at %s, %u below, %u above (%s)", metric,
                      runs, g_array_index(ps, guint, 0), g_array_index(ps, guint, ps->len - 1), at,
                      bound, below, above, at_most ? "at most" : "exactly");
  out->detail = g_string_free(g_steal_pointer(&t), FALSE);
  return TRUE;
}

/* ---- quinlan1997: desired loads (section 3.2) ---- */

/* Recursive halving's desired loads (mlb_desired_prefix) for totals T on
 * p = 2^d ranks: 0 .. small, and `random` large totals. Calls back with
 * each case's smallest and largest desired load. */
typedef void (*DesiredFunc)(guint64 total, guint d, guint64 lo, guint64 hi, gpointer data);

static void
desired_cases(guint d, guint64 small, guint random, GRand *rand, DesiredFunc f, gpointer data)
{
  guint p = 1u << d;
  for (guint64 c = 0; c <= small + random; c++) {
    guint64 total = c <= small ? c
                               : ((guint64)g_rand_int(rand) << 8 | (g_rand_int(rand) & 0xff)) %
                                     (G_GUINT64_CONSTANT(1) << 40);
    guint64 lo = G_MAXUINT64, hi = 0, before = 0;
    for (guint j = 1; j <= p; j++) {
      guint64 at = mlb_desired_prefix(total, d, j, MLB_DESIRED_HALVING);
      lo = MIN(lo, at - before);
      hi = MAX(hi, at - before);
      before = at;
    }
    f(total, d, lo, hi, data);
  }
}

typedef struct {
  guint64 cases, outside, loads;
} FloorCeil;

static void
floor_ceil_case(guint64 total, guint d, guint64 lo, guint64 hi, gpointer data)
{
  FloorCeil *fc = data;
  guint64 p = G_GUINT64_CONSTANT(1) << d, q = total / p;
  guint64 ceil = q + (total % p != 0);
  fc->cases++;
  fc->loads += p;
  /* every load is in [lo, hi]: both ends within floor .. ceil is all of them */
  fc->outside += lo < q || hi > ceil;
}

/* Every desired load is floor(T/p) or ceil(T/p): exhaustively for small
 * T on p up to 1024, on random large T up to 16384 ranks. */
static gboolean
desired_floor_ceil(const LbCheckInput *in, LbCheckOutput *out, GError **error)
{
  FloorCeil fc = {0};
  g_autoptr(GRand) rand = g_rand_new_with_seed(32);
  guint64 small = in->quick ? 1000 : 5000;
  for (guint d = 0; d <= 10; d++)
    desired_cases(d, small, 0, rand, floor_ceil_case, &fc);
  for (guint d = 11; d <= 14; d++)
    desired_cases(d, 0, in->quick ? 10 : 100, rand, floor_ceil_case, &fc);
  out->value = (double)fc.outside;
  out->note = g_strdup_printf("%" G_GUINT64_FORMAT " cases (%" G_GUINT64_FORMAT
                              " desired loads): T = 0 .. %" G_GUINT64_FORMAT
                              " on p = 1 .. 1024, %u random T below 2^40 on p = 2048 .. 16384; "
                              "%" G_GUINT64_FORMAT " outside floor(T/p) .. ceil(T/p)",
                              fc.cases, fc.loads, small, in->quick ? 10 : 100, fc.outside);
  return TRUE;
}

static void
spread_case(guint64 total, guint d, guint64 lo, guint64 hi, gpointer data)
{
  guint64 *spread = data;
  *spread = MAX(*spread, hi - lo);
}

static gboolean
spread_validate(const char *const *args, guint nargs, const char *dir, GError **error)
{
  guint64 p = 0;
  if (!g_ascii_string_to_unsigned(args[0], 10, 2, 16384, &p, NULL) || !power_of_two(p))
    return fail(error, "check desired-spread: '%s' is not a power of two from 2 to 16384", args[0]);
  return TRUE;
}

/* The paper's bound: on p ranks the desired loads differ by at most
 * log(p). lbsim's number is the largest difference at that p. */
static gboolean
desired_spread(const LbCheckInput *in, LbCheckOutput *out, GError **error)
{
  guint64 p = g_ascii_strtoull(in->args[0], NULL, 10), spread = 0;
  guint d = log2_of(p);
  guint64 small = in->quick ? 100 : 1000;
  guint random = in->quick ? 10 : 100;
  g_autoptr(GRand) rand = g_rand_new_with_seed(64);
  desired_cases(d, small, random, rand, spread_case, &spread);
  out->value = (double)spread;
  out->note = g_strdup_printf("on p = %" G_GUINT64_FORMAT ", T = 0 .. %" G_GUINT64_FORMAT
                              " and %u random T below 2^40: "
                              "the desired loads differ by at most %" G_GUINT64_FORMAT
                              " (log2 p = %u: the paper's bound is loose)",
                              p, small, random, spread, d);
  return TRUE;
}

/* ---- quinlan1997: the real schedule's transfers ---- */

static gboolean
transfers_validate(const char *const *args, guint nargs, const char *dir, GError **error)
{
  static const char *const what[] = {"count", "returns", NULL};
  if (!g_strv_contains(what, args[0]))
    return fail(error, "check pass-through: '%s' is not count or returns", args[0]);
  g_autofree char *path = g_build_filename(dir, args[1], NULL);
  if (!g_file_test(path, G_FILE_TEST_IS_REGULAR))
    return fail(error, "check pass-through: no scenario %s", path);
  return TRUE;
}

/* Runs of consecutive ids that two transfers share. */
static guint64
shared(const LbTransfer *a, const LbTransfer *b)
{
  guint64 lo = MAX(a->first, b->first), hi = MIN(a->first + a->count, b->first + b->count);
  return hi > lo ? hi - lo : 0;
}

/* One real run of a scenario's balancer with its schedule kept, made once
 * for every claim that reads it. */
static const LbRunResult *
scenario_run(const char *path, const char *balancer, guint jobs, GError **error)
{
  static GHashTable *made = NULL; /* "path\nbalancer" -> LbRunResult, for the process's life */
  if (made == NULL)
    made =
        g_hash_table_new_full(g_str_hash, g_str_equal, g_free, (GDestroyNotify)lb_run_result_free);
  g_autofree char *key = g_strdup_printf("%s\n%s", path, balancer);
  LbRunResult *res = g_hash_table_lookup(made, key);
  if (res != NULL)
    return res;
  LbScenarioOverrides ov = {0, NULL, balancer, NULL};
  g_autoptr(LbScenario) sc = lb_scenario_load(path, &ov, error);
  if (sc == NULL || (res = simulate(sc, &ov, FALSE, jobs, error)) == NULL)
    return NULL;
  g_hash_table_insert(made, g_steal_pointer(&key), res);
  return res;
}

/* Section 3.4's pass-through, in a real run's schedule (its transfers):
 * count, elements a rank received in one step and sent on in a later one
 * (along a finer edge); returns, elements a rank sent back to the rank
 * they came from (which would be along the edge they came by). */
static gboolean
pass_through(const LbCheckInput *in, LbCheckOutput *out, GError **error)
{
  g_autofree char *path = g_build_filename(in->dir, in->args[1], NULL);
  const char *balancer = in->nargs > 2 ? in->args[2] : "mlb";
  const LbRunResult *run = scenario_run(path, balancer, in->jobs, error);
  if (run == NULL)
    return FALSE;
  const GArray *t = run->transfers;
  guint n = t != NULL ? t->len : 0;
  guint64 passed = 0, returned = 0;
  g_autofree gboolean *hands_on = g_new0(gboolean, run->ranks);
  guint example = G_MAXUINT, example_next = 0;
  for (guint i = 0; i < n; i++) {
    const LbTransfer *x = &g_array_index(t, LbTransfer, i);
    for (guint j = 0; j < n; j++) {
      const LbTransfer *y = &g_array_index(t, LbTransfer, j);
      if (y->adaptation != x->adaptation || y->src != x->dst)
        continue;
      guint64 both = shared(x, y);
      if (y->round > x->round && both > 0) {
        passed += both;
        hands_on[x->dst] = TRUE;
        if (example == G_MAXUINT) {
          example = i;
          example_next = j;
        }
      }
      if (y->dst == x->src)
        returned += both;
    }
  }
  guint ranks = 0;
  for (guint r = 0; r < run->ranks; r++)
    ranks += hands_on[r];
  g_autofree char *base = g_path_get_basename(in->args[1]);
  if (strcmp(in->args[0], "count") == 0) {
    out->value = (double)passed;
    if (example == G_MAXUINT) {
      out->note = g_strdup_printf("%s (%s, %u ranks): no element passes through", base, balancer,
                                  run->ranks);
    } else {
      const LbTransfer *x = &g_array_index(t, LbTransfer, example);
      const LbTransfer *y = &g_array_index(t, LbTransfer, example_next);
      guint64 lo = MAX(x->first, y->first);
      out->note = g_strdup_printf(
          "%s (%s, %u ranks): %" G_GUINT64_FORMAT " elements passed on by %u ranks, e.g. rank %u "
          "received units from %" G_GUINT64_FORMAT " from rank %u in step %u and sent them on "
          "to rank %u in step %u",
          base, balancer, run->ranks, passed, ranks, x->dst, lo, x->src, x->round, y->dst,
          y->round);
    }
  } else {
    out->value = (double)returned;
    out->note = g_strdup_printf("%s (%s, %u ranks, %u transfers): %" G_GUINT64_FORMAT
                                " elements sent back to the rank they came from",
                                base, balancer, run->ranks, n, returned);
  }
  return TRUE;
}

/* ---- quinlan1997: the final bottleneck against the optimum ---- */

/* Also orders (key, value) pairs by key. */
static int
compare_guint64(gconstpointer a, gconstpointer b)
{
  guint64 x = *(const guint64 *)a, y = *(const guint64 *)b;
  return x < y ? -1 : x > y;
}

/* The loads of a run's elements in the order the balancer keeps, from the
 * run's scenario as the ranks saw it at step 0. */
static GArray *
ordered_loads(const LbJob *job, GError **error)
{
  g_autoptr(LbScenario) sc = lb_job_load(job, error);
  if (sc == NULL)
    return NULL;
  const LbBalancerRun *brun = sc->runs->pdata[0];
  const LbBalancer *b = brun->balancer;
  g_autoptr(GArray) units = g_array_new(FALSE, FALSE, sizeof(LbUnit));
  g_autoptr(GArray) all = g_array_new(FALSE, FALSE, sizeof(guint64) * 2); /* key, load */
  for (guint r = 0; r < sc->ranks; r++) {
    lb_scenario_initial_units(sc, brun, r, units);
    lb_work_update(brun->work, r, units, 0);
    for (guint i = 0; i < units->len; i++) {
      const LbUnit *u = &g_array_index(units, LbUnit, i);
      guint64 pair[2] = {
          b->order_key != NULL ? b->order_key(brun->work, brun->params, u->id) : u->id, u->load};
      g_array_append_vals(all, pair, 1);
    }
  }
  g_array_sort(all, compare_guint64);
  GArray *loads = g_array_sized_new(FALSE, FALSE, sizeof(guint64), all->len);
  for (guint i = 0; i < all->len; i++)
    g_array_append_val(loads, ((guint64 *)all->data)[2 * i + 1]);
  return loads;
}

/* Whether loads split into at most `parts` contiguous pieces of at most
 * `cap` each: greedy, each piece as long as it fits. */
static gboolean
fits(const guint64 *loads, guint n, guint parts, guint64 cap)
{
  guint used = 1;
  guint64 piece = 0;
  for (guint i = 0; i < n; i++) {
    if (loads[i] > cap)
      return FALSE;
    if (piece + loads[i] > cap) {
      if (++used > parts)
        return FALSE;
      piece = 0;
    }
    piece += loads[i];
  }
  return TRUE;
}

/* The least bottleneck of any partition of loads into `parts` contiguous
 * pieces in order (chains on chains), exactly: the least whole cap the
 * greedy packing meets, by bisection between the largest load and the
 * total. Written here, apart from scratch-remap's and MLB's code. */
static guint64
optimal_bottleneck(const guint64 *loads, guint n, guint parts)
{
  guint64 lo = 0, hi = 0;
  for (guint i = 0; i < n; i++) {
    lo = MAX(lo, loads[i]);
    hi += loads[i];
  }
  while (lo < hi) {
    guint64 mid = lo + (hi - lo) / 2;
    if (fits(loads, n, parts, mid))
      hi = mid;
    else
      lo = mid + 1;
  }
  return lo;
}

static gboolean
bottleneck_validate(const char *const *args, guint nargs, const char *dir, GError **error)
{
  static const char *const stats[] = {"min", "median", "max", "excess", NULL};
  if (!g_strv_contains(stats, args[0]))
    return fail(error, "check bottleneck: '%s' is not min, median, max or excess", args[0]);
  return TRUE;
}

static int
compare_double(gconstpointer a, gconstpointer b)
{
  double x = *(const double *)a, y = *(const double *)b;
  return x < y ? -1 : x > y;
}

/* The run's final bottleneck (its most loaded rank) over the optimal
 * contiguous partition's, for every run of BALANCER in the claim's sweep:
 * the least, median or largest ratio; excess: the cases whose bottleneck
 * is more than the largest element above the optimum (a piece sent "as
 * close as possible to the optimal load", section 3.4, moves each cut by
 * less than an element). */
static gboolean
bottleneck(const LbCheckInput *in, LbCheckOutput *out, GError **error)
{
  const char *balancer = in->args[1];
  g_autoptr(GArray) ratios = g_array_new(FALSE, FALSE, sizeof(double));
  guint optimal = 0, beyond = 0, pmin = G_MAXUINT, pmax = 0;
  for (guint i = 0; i < in->nruns; i++) {
    const LbRunResult *res = in->runs[i].result;
    if (strcmp(res->balancer, balancer) != 0)
      continue;
    g_autoptr(GError) local = NULL;
    g_autoptr(GArray) loads = ordered_loads(in->runs[i].job, &local);
    if (loads == NULL)
      return fail(error, "%s: %s", in->runs[i].point, local->message);
    const guint64 *l = (const guint64 *)loads->data;
    guint64 best = optimal_bottleneck(l, loads->len, res->ranks), largest = 0;
    for (guint k = 0; k < loads->len; k++)
      largest = MAX(largest, l[k]);
    guint64 got = 0;
    for (guint r = 0; r < res->ranks; r++)
      got = MAX(got, res->final_loads[r]);
    double ratio = best > 0 ? (double)got / (double)best : got > 0 ? INFINITY : 1.0;
    g_array_append_val(ratios, ratio);
    optimal += got == best;
    beyond += got > best + largest;
    pmin = MIN(pmin, res->ranks);
    pmax = MAX(pmax, res->ranks);
  }
  if (ratios->len == 0)
    return fail(error, "no runs of %s", balancer);
  g_array_sort(ratios, compare_double);
  const double *r = (const double *)ratios->data;
  guint n = ratios->len;
  double median = n % 2 ? r[n / 2] : (r[n / 2 - 1] + r[n / 2]) / 2;
  out->value = strcmp(in->args[0], "min") == 0      ? r[0]
               : strcmp(in->args[0], "max") == 0    ? r[n - 1]
               : strcmp(in->args[0], "excess") == 0 ? beyond
                                                    : median;
  out->note = g_strdup_printf("%u cases, p = %u .. %u: %s's bottleneck over the optimum from "
                              "%.4f (median %.4f) to %.4f; optimal in %u, more than an element "
                              "above it in %u",
                              n, pmin, pmax, balancer, r[0], median, r[n - 1], optimal, beyond);
  return TRUE;
}

/* ---- quinlan1997: the loan and array order (section 3.4) ---- */

/* The runs of BALANCER in the claim's sweep whose elements ended out of
 * array order (its order-breaks metric, which the core counts), as a
 * percentage. */
static gboolean
order_breaks(const LbCheckInput *in, LbCheckOutput *out, GError **error)
{
  const char *balancer = in->args[0];
  guint runs = 0, broken = 0, pmin = G_MAXUINT, pmax = 0;
  double elements = 0, most = 0;
  for (guint i = 0; i < in->nruns; i++) {
    const LbRunResult *res = in->runs[i].result;
    if (strcmp(res->balancer, balancer) != 0)
      continue;
    double v = 0;
    if (!lb_run_result_lookup(res, "order-breaks", &v))
      return fail(error, "%s: no metric order-breaks", in->runs[i].point);
    runs++;
    broken += v > 0;
    elements += v;
    most = MAX(most, v);
    pmin = MIN(pmin, res->ranks);
    pmax = MAX(pmax, res->ranks);
  }
  if (runs == 0)
    return fail(error, "no runs of %s", balancer);
  out->value = 100.0 * broken / runs;
  out->note = g_strdup_printf("%u of %u cases (p = %u .. %u) end out of array order with %s; "
                              "%.0f elements out of order in all, at most %.0f in one",
                              broken, runs, pmin, pmax, balancer, elements, most);
  return TRUE;
}

/* ---- lbd: BUILD_UNDIRECTED_TDG ---- */

/* Figure 3's partition as the walk-through tells it: three columns of
 * three subsets, numbered up each column (0 .. 2, 3 .. 5, 6 .. 8), the
 * columns' y cuts c[column][1..2] (c[.][0] = 0, c[.][3] = the height).
 * The walk-through compares cuts with subsets' bounds; each comparison it
 * states is one condition here. */
static gboolean
walkthrough_holds(guint64 c[3][4])
{
  /* subset 0 = column 0's [0, c0_1); column 1's first cut is below its
   * ymax and above its ymin: 3 and 4 */
  gboolean ok = c[1][1] < c[0][1] && c[1][1] > c[0][0];
  /* column 1's second cut is above subset 0's ymax, the one before below
   * it: 4 again */
  ok &= c[1][2] > c[0][1] && c[1][1] < c[0][1];
  /* subset 4 = column 1's [c1_1, c1_2); column 0's first cut is below its
   * ymax and above its ymin: 0 and 1; the second too: 1 and 2 */
  ok &= c[0][1] < c[1][2] && c[0][1] > c[1][1];
  ok &= c[0][2] < c[1][2] && c[0][2] > c[1][1];
  /* column 2's first cut is below subset 4's ymax and below its ymin:
   * nothing */
  ok &= c[2][1] < c[1][2] && c[2][1] < c[1][1];
  /* its second cut is above subset 4's ymax, the one before below it: 7 */
  ok &= c[2][2] > c[1][2] && c[2][1] < c[1][2];
  return ok;
}

static gboolean
figure3_validate(const char *const *args, guint nargs, const char *dir, GError **error)
{
  for (guint i = 0; i < nargs; i++) {
    g_auto(GStrv) parts = g_strsplit(args[i], ":", 2);
    guint64 s = 0;
    g_autoptr(GArray) list = parts[1] != NULL ? numbers(parts[1]) : NULL;
    if (!g_ascii_string_to_unsigned(parts[0], 10, 0, 8, &s, NULL) || list == NULL)
      return fail(error, "check tdg-figure3: '%s' is not SUBSET:N,N,... (subsets 0 .. 8)", args[i]);
  }
  return TRUE;
}

static char *
ids_text(const GArray *ids)
{
  GString *t = g_string_new(NULL);
  for (guint i = 0; i < ids->len; i++)
    g_string_append_printf(t, "%s%u", i ? ", " : "", g_array_index(ids, guint, i));
  return g_string_free(t, FALSE);
}

static char *
ids_text_of(const GArray *numbers64)
{
  GString *t = g_string_new(NULL);
  for (guint i = 0; i < numbers64->len; i++)
    g_string_append_printf(t, "%s%" G_GUINT64_FORMAT, i ? ", " : "",
                           g_array_index(numbers64, guint64, i));
  return g_string_free(t, FALSE);
}

/* The walk-through of Figure 3 (its picture is not in the text): every
 * partition of a 12 x 8 grid into three columns of three subsets that
 * meets the walk-through's comparisons, and on each the neighbours
 * lbsim's BUILD_UNDIRECTED_TDG gives the subsets named (those to the
 * right and left: the document takes above and below as known). lbsim's
 * number: the lists that differ from the document's. */
static gboolean
tdg_figure3(const LbCheckInput *in, LbCheckOutput *out, GError **error)
{
  const guint64 height = 8;
  const guint64 xcuts[4] = {0, 4, 8, 12};
  guint fits = 0, differ = 0;
  g_autoptr(GString) detail = g_string_new(NULL);
  guint64 c[3][4];
  for (guint col = 0; col < 3; col++) {
    c[col][0] = 0;
    c[col][3] = height;
  }
  /* every pair of interior cuts in every column */
  for (guint64 a = 1; a < height; a++)
    for (guint64 b = a + 1; b < height; b++)
      for (guint64 e = 1; e < height; e++)
        for (guint64 f = e + 1; f < height; f++)
          for (guint64 g = 1; g < height; g++)
            for (guint64 h = g + 1; h < height; h++) {
              c[0][1] = a, c[0][2] = b, c[1][1] = e, c[1][2] = f, c[2][1] = g, c[2][2] = h;
              if (!walkthrough_holds(c))
                continue;
              fits++;
              LbColumns cols = {3, 3, xcuts, &c[0][0]};
              for (guint i = 0; i < in->nargs; i++) {
                g_auto(GStrv) parts = g_strsplit(in->args[i], ":", 2);
                guint s = (guint)g_ascii_strtoull(parts[0], NULL, 10);
                g_autoptr(GArray) want = numbers(parts[1]);
                g_autoptr(GArray) all = g_array_new(FALSE, FALSE, sizeof(guint));
                lb_tdg_neighbours(&cols, s, all);
                g_autoptr(GArray) sideways = g_array_new(FALSE, FALSE, sizeof(guint));
                for (guint k = 0; k < all->len; k++)
                  if (g_array_index(all, guint, k) / 3 != s / 3)
                    g_array_append_val(sideways, g_array_index(all, guint, k));
                gboolean same = sideways->len == want->len;
                for (guint k = 0; same && k < want->len; k++)
                  same = g_array_index(sideways, guint, k) == g_array_index(want, guint64, k);
                differ += !same;
                if (fits == 1) {
                  g_autofree char *side = ids_text(sideways), *every = ids_text(all);
                  g_autofree char *doc = ids_text_of(want);
                  g_string_append_printf(detail,
                                         "subset %u: right and left %s (the document: %s); with "
                                         "above and below %s\n",
                                         s, side, doc, every);
                }
              }
              if (fits == 1) {
                g_autoptr(GString) cuts =
                    g_string_new("one such partition (x cuts 0 4 8 12, y cuts of each column):\n");
                for (guint col = 0; col < 3; col++)
                  g_string_append_printf(
                      cuts,
                      "column %u: %" G_GUINT64_FORMAT " %" G_GUINT64_FORMAT " %" G_GUINT64_FORMAT
                      " %" G_GUINT64_FORMAT " (subsets %u .. %u, bottom up)\n",
                      col, c[col][0], c[col][1], c[col][2], c[col][3], 3 * col, 3 * col + 2);
                g_string_prepend(detail, cuts->str);
              }
            }
  if (fits == 0)
    return fail(error, "no partition meets the walk-through's comparisons");
  out->value = differ;
  out->note = g_strdup_printf("%u partitions of a 12 x 8 grid meet the walk-through's "
                              "comparisons; on them %u of %u lists differ from the document's",
                              fits, differ, fits * in->nargs);
  out->detail = g_string_free(g_steal_pointer(&detail), FALSE);
  return TRUE;
}

/* Rectangle adjacency by painting the cells: two subsets are neighbours
 * when a cell of one shares a side with a cell of the other (cuts are
 * whole cells, so that is an edge of positive length). adj is n x n. */
static void
painted_adjacency(const LbColumns *p, guint64 width, guint64 height, gboolean *adj)
{
  guint n = p->ncols * p->nrows;
  g_autofree guint *owner = g_new(guint, width * height);
  for (guint c = 0; c < p->ncols; c++)
    for (guint r = 0; r < p->nrows; r++)
      for (guint64 x = p->xcuts[c]; x < p->xcuts[c + 1]; x++)
        for (guint64 y = lb_tdg_column_y(p, c, r); y < lb_tdg_column_y(p, c, r + 1); y++)
          owner[y * width + x] = c * p->nrows + r;
  for (guint64 y = 0; y < height; y++)
    for (guint64 x = 0; x < width; x++) {
      guint a = owner[y * width + x];
      if (x + 1 < width && owner[y * width + x + 1] != a)
        adj[a * n + owner[y * width + x + 1]] = adj[owner[y * width + x + 1] * n + a] = TRUE;
      if (y + 1 < height && owner[(y + 1) * width + x] != a)
        adj[a * n + owner[(y + 1) * width + x]] = adj[owner[(y + 1) * width + x] * n + a] = TRUE;
    }
}

static void
random_cuts(GRand *rand, guint64 *cuts, guint n, guint64 extent)
{
  cuts[0] = 0;
  cuts[n] = extent;
  for (guint i = 1; i < n; i++)
    cuts[i] = (guint64)g_rand_int_range(rand, 0, (gint32)extent + 1);
  qsort(cuts + 1, n - 1, sizeof *cuts, compare_guint64);
}

/* BUILD_UNDIRECTED_TDG (lb_tdg_neighbours) against painted rectangle
 * adjacency on random partitions: up to 6 x 6 subsets on grids up to
 * 24 x 24 cells, equal cuts (empty subsets and columns, cuts level with
 * the neighbour column's) included. lbsim's number: the partitions where
 * any subset's list differs. */
static gboolean
tdg_random(const LbCheckInput *in, LbCheckOutput *out, GError **error)
{
  guint partitions = in->quick ? 2000 : 20000, differ = 0, ties = 0;
  guint64 subsets = 0, empty = 0;
  g_autoptr(GRand) rand = g_rand_new_with_seed(2024);
  for (guint t = 0; t < partitions; t++) {
    guint ncols = (guint)g_rand_int_range(rand, 1, 7), nrows = (guint)g_rand_int_range(rand, 1, 7);
    guint64 width = (guint64)g_rand_int_range(rand, 1, 25);
    guint64 height = (guint64)g_rand_int_range(rand, 1, 25);
    g_autofree guint64 *xcuts = g_new(guint64, ncols + 1);
    g_autofree guint64 *ycuts = g_new(guint64, ncols * (nrows + 1));
    random_cuts(rand, xcuts, ncols, width);
    for (guint c = 0; c < ncols; c++)
      random_cuts(rand, ycuts + c * (nrows + 1), nrows, height);
    LbColumns cols = {ncols, nrows, xcuts, ycuts};
    guint n = ncols * nrows;
    g_autofree gboolean *adj = g_new0(gboolean, n * n);
    painted_adjacency(&cols, width, height, adj);
    gboolean same = TRUE, tie = FALSE;
    for (guint s = 0; s < n; s++) {
      g_autoptr(GArray) got = g_array_new(FALSE, FALSE, sizeof(guint));
      lb_tdg_neighbours(&cols, s, got);
      guint want = 0;
      for (guint o = 0; o < n; o++)
        want += adj[s * n + o];
      same &= got->len == want;
      for (guint k = 0; k < got->len; k++)
        same &= adj[s * n + g_array_index(got, guint, k)];
      subsets++;
      guint c = s / nrows, r = s % nrows;
      empty +=
          xcuts[c] == xcuts[c + 1] || ycuts[c * (nrows + 1) + r] == ycuts[c * (nrows + 1) + r + 1];
      for (guint k = 1; c + 1 < ncols && r + 1 < nrows && k < nrows; k++)
        tie |= ycuts[c * (nrows + 1) + r + 1] == ycuts[(c + 1) * (nrows + 1) + k];
    }
    differ += !same;
    ties += tie;
  }
  out->value = differ;
  out->note =
      g_strdup_printf("%u random partitions (%" G_GUINT64_FORMAT " subsets, %" G_GUINT64_FORMAT
                      " empty; %u with a cut level with the next column's): %u differ "
                      "from painted rectangle adjacency",
                      partitions, subsets, empty, ties, differ);
  return TRUE;
}

/* ---- lbd: which axis goes first ---- */

/* max / mean - 1 of the slabs' loads, as the exact fraction max * n /
 * total (compared without rounding). */
typedef struct {
  guint64 max, total;
  guint n;
} Metric;

static Metric
slab_metric(GHashTable *slabs)
{
  Metric m = {0, 0, g_hash_table_size(slabs)};
  GHashTableIter it;
  gpointer key, value;
  g_hash_table_iter_init(&it, slabs);
  while (g_hash_table_iter_next(&it, &key, &value)) {
    guint64 load = *(guint64 *)value;
    m.max = MAX(m.max, load);
    m.total += load;
  }
  return m;
}

/* f_a <= f_b, exactly: max_a n_a / T <= max_b n_b / T. */
static gboolean
metric_le(Metric a, Metric b)
{
  return (unsigned __int128)a.max * a.n <= (unsigned __int128)b.max * b.n;
}

static double
metric_value(Metric m)
{
  return m.total > 0 ? (double)m.max * m.n / (double)m.total - 1.0 : 0.0;
}

/* f_I and f_J of a field run's starting partition at step 0, computed
 * here: the ranks' loads summed over the ranks whose boxes start at the
 * same x (a column of the processor grid) and the same y (a row). */
static gboolean
start_metrics(const LbJob *job, Metric *fx, Metric *fy, GError **error)
{
  g_autoptr(LbScenario) sc = lb_job_load(job, error);
  if (sc == NULL)
    return FALSE;
  const LbBalancerRun *brun = sc->runs->pdata[0];
  const LbWork *work = brun->work;
  if (work->dim != 2)
    return fail(error, "a field of %u dimensions: the check reads 2D fields", work->dim);
  LbStart start = lb_scenario_start(sc, brun->balancer);
  g_autoptr(GHashTable) columns =
      g_hash_table_new_full(g_int64_hash, g_int64_equal, g_free, g_free);
  g_autoptr(GHashTable) rows = g_hash_table_new_full(g_int64_hash, g_int64_equal, g_free, g_free);
  g_autoptr(GArray) units = g_array_new(FALSE, FALSE, sizeof(LbUnit));
  for (guint r = 0; r < sc->ranks; r++) {
    g_array_set_size(units, 0);
    lb_work_initial_units(work, r, start, units);
    lb_work_update(work, r, units, 0);
    gint64 x0 = G_MAXINT64, y0 = G_MAXINT64;
    guint64 load = 0;
    for (guint i = 0; i < units->len; i++) {
      const LbUnit *u = &g_array_index(units, LbUnit, i);
      x0 = MIN(x0, (gint64)(u->id % work->size[0]));
      y0 = MIN(y0, (gint64)(u->id / work->size[0]));
      load += u->load;
    }
    GHashTable *tables[2] = {columns, rows};
    gint64 keys[2] = {x0, y0};
    for (guint a = 0; a < 2; a++) {
      guint64 *sum = g_hash_table_lookup(tables[a], &keys[a]);
      if (sum == NULL) {
        sum = g_new0(guint64, 1);
        g_hash_table_insert(tables[a], g_memdup2(&keys[a], sizeof keys[a]), sum);
      }
      *sum += load;
    }
  }
  *fx = slab_metric(columns);
  *fy = slab_metric(rows);
  return TRUE;
}

/* LOAD_BALANCE_BY_DIMENSION's first choice: x first when f_I <= f_J.
 * lbsim's number: the runs of BALANCER whose first-axis metric at step 0
 * is not the axis of the smaller metric computed here. */
static gboolean
first_axis(const LbCheckInput *in, LbCheckOutput *out, GError **error)
{
  const char *balancer = in->args[0];
  guint differ = 0, first[2] = {0, 0}, runs = 0;
  double spread[2][2] = {{G_MAXDOUBLE, -G_MAXDOUBLE}, {G_MAXDOUBLE, -G_MAXDOUBLE}};
  for (guint i = 0; i < in->nruns; i++) {
    const LbRunResult *res = in->runs[i].result;
    if (strcmp(res->balancer, balancer) != 0)
      continue;
    int k = lb_metric_defs_find(res->metric_defs, "first-axis");
    if (k < 0 || res->adaptation_metrics == NULL || res->nadaptations == 0)
      return fail(error, "%s: no first-axis metric", in->runs[i].point);
    double axis = res->adaptation_metrics[k]; /* step 0 */
    Metric fx, fy;
    g_autoptr(GError) local = NULL;
    if (!start_metrics(in->runs[i].job, &fx, &fy, &local))
      return fail(error, "%s: %s", in->runs[i].point, local->message);
    guint want = metric_le(fx, fy) ? 0 : 1;
    differ += axis != want;
    first[want]++;
    runs++;
    double ratio = metric_value(fy) - metric_value(fx);
    spread[want][0] = MIN(spread[want][0], ratio);
    spread[want][1] = MAX(spread[want][1], ratio);
  }
  if (runs == 0)
    return fail(error, "no runs of %s", balancer);
  if (first[0] == 0 || first[1] == 0)
    return fail(error,
                "in all %u runs %s has the smaller metric: the runs cannot test the "
                "choice (vary the load so that each axis leads somewhere)",
                runs, first[0] == 0 ? "y" : "x");
  out->value = differ;
  out->note = g_strdup_printf("%u runs: f_x <= f_y in %u (f_y - f_x %.3f .. %.3f), f_x > f_y in "
                              "%u (%.3f .. %.3f); %u first axes differ from the smaller metric's",
                              runs, first[0], spread[0][0], spread[0][1], first[1], spread[1][0],
                              spread[1][1], differ);
  return TRUE;
}

/* ---- lbd: how the loops end ---- */

static const char *const loop_ends[] = {"tolerance", "unchanged", "cap", "worse", NULL};

static gboolean
loops_validate(const char *const *args, guint nargs, const char *dir, GError **error)
{
  if (strcmp(args[0], "count") != 0 && strcmp(args[0], "share") != 0)
    return fail(error, "check loops: '%s' is not count or share", args[0]);
  /* the cap and a worse metric cannot end a loop of lbd's Redistribute
   * (the profile move never makes the metric worse and converges well
   * within the cap): a claim of them could not fail */
  if (strcmp(args[1], "tolerance") != 0 && strcmp(args[1], "unchanged") != 0)
    return fail(error, "check loops: '%s' is not tolerance or unchanged", args[1]);
  return TRUE;
}

/* How BALANCER's Redistribute loops ended, over every run the claim reads
 * (its loops-* metrics: within the tolerance, no better cuts, at the cap,
 * sent back after a worse metric): the loops that ended so, or their
 * share of all loops in percent. */
static gboolean
loops(const LbCheckInput *in, LbCheckOutput *out, GError **error)
{
  const char *balancer = in->args[2];
  double count[G_N_ELEMENTS(loop_ends) - 1] = {0};
  guint runs = 0, want = 0;
  g_autoptr(GString) per_run = g_string_new(NULL);
  for (guint i = 0; i < in->nruns; i++) {
    const LbRunResult *res = in->runs[i].result;
    if (strcmp(res->balancer, balancer) != 0)
      continue;
    runs++;
    g_string_append_printf(per_run, "%s:", in->runs[i].point);
    for (guint k = 0; loop_ends[k] != NULL; k++) {
      g_autofree char *metric = g_strdup_printf("loops-%s", loop_ends[k]);
      double v = 0;
      if (!lb_run_result_lookup(res, metric, &v))
        return fail(error, "%s: no metric %s", in->runs[i].point, metric);
      count[k] += v;
      g_string_append_printf(per_run, " %s %.0f", loop_ends[k], v);
      if (strcmp(loop_ends[k], in->args[1]) == 0)
        want = k;
    }
    g_string_append_c(per_run, '\n');
  }
  if (runs == 0)
    return fail(error, "no runs of %s", balancer);
  double all = 0;
  for (guint k = 0; loop_ends[k] != NULL; k++)
    all += count[k];
  out->value = strcmp(in->args[0], "count") == 0 ? count[want]
               : all > 0                         ? 100.0 * count[want] / all
                                                 : 0;
  out->note = g_strdup_printf("%.0f loops in %u runs: %.0f within the tolerance, %.0f no better "
                              "cuts, %.0f at the cap, %.0f after a worse metric",
                              all, runs, count[0], count[1], count[2], count[3]);
  /* the table once, with the share */
  if (strcmp(in->args[0], "share") == 0)
    out->detail = g_string_free(g_steal_pointer(&per_run), FALSE);
  return TRUE;
}

/* ---- baiardi2001: efficiency (Fig. 2) ---- */

/* The name of the [run:NAME] a run of the claim belongs to: its point
 * reads "NAME: ranks=16 ...". */
static char *
run_name_of(const LbCheckRun *run)
{
  const char *colon = strchr(run->point, ':');
  return colon != NULL ? g_strndup(run->point, (gsize)(colon - run->point)) : g_strdup(run->point);
}

static gboolean
efficiency_validate(const char *const *args, guint nargs, const char *dir, GError **error)
{
  guint64 p = 0;
  if (!g_ascii_string_to_unsigned(args[1], 10, 2, 1 << 20, &p, NULL))
    return fail(error, "check efficiency: P '%s' is not a processor count of 2 or more", args[1]);
  return TRUE;
}

/* One [run:]'s efficiencies: T(1) / (p T(p)) over the total simulated
 * time (balancing and the application: computation and collection) of
 * LABEL's runs, in %; ps its processor counts, ascending. */
typedef struct {
  char *name;
  GArray *ps;    /* guint */
  GArray *times; /* double, T(p) */
} EfficiencyRun;

static void
efficiency_run_clear(gpointer data)
{
  EfficiencyRun *e = data;
  g_free(e->name);
  g_array_unref(e->ps);
  g_array_unref(e->times);
}

static double
efficiency_at(const EfficiencyRun *e, guint p)
{
  double one = NAN, at = NAN;
  for (guint k = 0; k < e->ps->len; k++) {
    if (g_array_index(e->ps, guint, k) == 1)
      one = g_array_index(e->times, double, k);
    if (g_array_index(e->ps, guint, k) == p)
      at = g_array_index(e->times, double, k);
  }
  return 100.0 * one / (p * at);
}

/* Fig. 2: lbsim's efficiency T(1) / (p T(p)), T the run's total simulated
 * time. With one run: its efficiency on P p-nodes. With two (the claim's
 * `run = A, B`): the least difference E_A(p) - E_B(p) over p = 2 .. P
 * (the paper: B's, the irregular hierarchy's, is lower at every p). */
static gboolean
efficiency(const LbCheckInput *in, LbCheckOutput *out, GError **error)
{
  const char *label = in->args[0];
  guint P = (guint)g_ascii_strtoull(in->args[1], NULL, 10);
  g_autoptr(GArray) groups = g_array_new(FALSE, TRUE, sizeof(EfficiencyRun));
  g_array_set_clear_func(groups, efficiency_run_clear);
  for (guint i = 0; i < in->nruns; i++) {
    const LbRunResult *res = in->runs[i].result;
    if (strcmp(res->balancer, label) != 0)
      continue;
    g_autofree char *name = run_name_of(&in->runs[i]);
    EfficiencyRun *e = NULL;
    for (guint k = 0; k < groups->len && e == NULL; k++)
      if (strcmp(g_array_index(groups, EfficiencyRun, k).name, name) == 0)
        e = &g_array_index(groups, EfficiencyRun, k);
    if (e == NULL) {
      EfficiencyRun fresh = {g_strdup(name), g_array_new(FALSE, FALSE, sizeof(guint)),
                             g_array_new(FALSE, FALSE, sizeof(double))};
      g_array_append_val(groups, fresh);
      e = &g_array_index(groups, EfficiencyRun, groups->len - 1);
    }
    for (guint k = 0; k < e->ps->len; k++)
      if (g_array_index(e->ps, guint, k) == res->ranks)
        return fail(error, "%s: two runs of %s on %u ranks (vary only the ranks)", name, label,
                    res->ranks);
    guint at = 0;
    while (at < e->ps->len && g_array_index(e->ps, guint, at) < res->ranks)
      at++;
    g_array_insert_val(e->ps, at, res->ranks);
    g_array_insert_val(e->times, at, res->total_time);
  }
  if (groups->len == 0 || groups->len > 2)
    return fail(error, "efficiency reads one run or two, each with %s's runs; it has %u", label,
                groups->len);
  for (guint k = 0; k < groups->len; k++) {
    const EfficiencyRun *e = &g_array_index(groups, EfficiencyRun, k);
    if (g_array_index(e->ps, guint, 0) != 1 || !isfinite(efficiency_at(e, P)))
      return fail(error, "%s: efficiency needs %s's runs on 1 and on %u ranks", e->name, label, P);
  }
  g_autoptr(GString) t = g_string_new(NULL);
  g_string_append_printf(t, "%8s", "p-nodes");
  for (guint k = 0; k < groups->len; k++)
    g_string_append_printf(t, "  %28s", g_array_index(groups, EfficiencyRun, k).name);
  g_string_append_printf(t, "\n%8s", "");
  for (guint k = 0; k < groups->len; k++)
    g_string_append_printf(t, "  %14s %13s", "time (s)", "efficiency");
  g_string_append_c(t, '\n');
  const EfficiencyRun *first = &g_array_index(groups, EfficiencyRun, 0);
  double least = G_MAXDOUBLE;
  guint least_p = 0;
  for (guint j = 0; j < first->ps->len; j++) {
    guint p = g_array_index(first->ps, guint, j);
    g_string_append_printf(t, "%8u", p);
    double e[2] = {NAN, NAN};
    for (guint k = 0; k < groups->len; k++) {
      const EfficiencyRun *g = &g_array_index(groups, EfficiencyRun, k);
      double time = NAN;
      for (guint i = 0; i < g->ps->len; i++)
        if (g_array_index(g->ps, guint, i) == p)
          time = g_array_index(g->times, double, i);
      e[k] = efficiency_at(g, p);
      g_string_append_printf(t, "  %14.6f %12.1f%%", time, e[k]);
    }
    g_string_append_c(t, '\n');
    if (groups->len == 2 && p >= 2 && p <= P && isfinite(e[1]) && e[0] - e[1] < least) {
      least = e[0] - e[1];
      least_p = p;
    }
    /* the points: each p from 2 to P, its efficiency or the difference */
    if (p >= 2 && p <= P && (groups->len == 1 || isfinite(e[1])))
      lb_check_output_point(out, groups->len == 1 ? e[0] : e[0] - e[1], "p = %u", p);
  }
  if (groups->len == 1) {
    out->value = efficiency_at(first, P);
    out->note = g_strdup_printf("%s on %u p-nodes: T(1) / (%u T(%u)), total simulated time", label,
                                P, P, P);
  } else {
    const EfficiencyRun *second = &g_array_index(groups, EfficiencyRun, 1);
    if (least_p == 0)
      return fail(error, "%s and %s share no processor count from 2 to %u", first->name,
                  second->name, P);
    out->value = least;
    out->note = g_strdup_printf("least E(%s) - E(%s) over p = 2 .. %u: %.1f points at p = %u",
                                first->name, second->name, P, least, least_p);
  }
  out->detail = g_string_free(g_steal_pointer(&t), FALSE);
  return TRUE;
}

/* ---- baiardi2001: the work an hnode needs for an efficiency ---- */

static gboolean
work_validate(const char *const *args, guint nargs, const char *dir, GError **error)
{
  if (!efficiency_validate(args, nargs, dir, error))
    return FALSE;
  char *end = NULL;
  double e = g_ascii_strtod(args[2], &end);
  if (end == args[2] || *end != '\0' || !(e > 0 && e < 100))
    return fail(error, "check work-for-efficiency: '%s' is not a percentage between 0 and 100",
                args[2]);
  return TRUE;
}

/* The claim's run's scenario (its file and --set lines) run as LABEL on
 * `ranks` ranks with every hnode's flops set: its total simulated time. */
static gboolean
time_with_work(const LbCheckRun *run, const char *label, guint ranks, double flops, guint jobs,
               double *time, GError **error)
{
  g_autoptr(GPtrArray) sets = g_ptr_array_new_with_free_func(g_free);
  for (guint i = 0; run->job->sets != NULL && run->job->sets[i] != NULL; i++)
    if (!g_str_has_prefix(run->job->sets[i], "workload.flops-per-unit="))
      g_ptr_array_add(sets, g_strdup(run->job->sets[i]));
  g_ptr_array_add(sets, g_strdup_printf("workload.flops-per-unit=%.17g", flops));
  g_ptr_array_add(sets, NULL);
  LbScenarioOverrides ov = {(gint)ranks, run->job->platform, label,
                            (const char *const *)sets->pdata};
  g_autoptr(LbScenario) sc = lb_scenario_load(run->job->scenario, &ov, error);
  if (sc == NULL)
    return FALSE;
  g_autoptr(LbRunResult) res = simulate(sc, &ov, FALSE, jobs, error);
  if (res == NULL)
    return FALSE;
  *time = res->total_time;
  return TRUE;
}

/* Fig. 2's efficiency depends on the work of an hnode, which the paper
 * does not give: the least flops per hnode and step at which LABEL's
 * efficiency on P p-nodes reaches PERCENT. A run's time is its fixed cost
 * (balancing, collection) plus its slowest rank's computation, linear in
 * the flops: two runs at each processor count (the scenario's flops, and
 * 100 times them) give both parts, the equation gives the flops, and a
 * third run at those flops says what efficiency they really give. */
static gboolean
work_for_efficiency(const LbCheckInput *in, LbCheckOutput *out, GError **error)
{
  const char *label = in->args[0];
  guint P = (guint)g_ascii_strtoull(in->args[1], NULL, 10);
  double e = g_ascii_strtod(in->args[2], NULL) / 100;
  const LbCheckRun *run = NULL;
  for (guint i = 0; i < in->nruns && run == NULL; i++)
    if (strcmp(in->runs[i].result->balancer, label) == 0)
      run = &in->runs[i];
  if (run == NULL)
    return fail(error, "no run of %s", label);
  LbScenarioOverrides none = {0, run->job->platform, label, (const char *const *)run->job->sets};
  g_autoptr(LbScenario) sc = lb_scenario_load(run->job->scenario, &none, error);
  if (sc == NULL)
    return FALSE;
  double fa = sc->work->flops_per_unit, fb = 100 * fa;
  if (!(fa > 0))
    return fail(error, "%s: the scenario's flops-per-unit is 0", run->point);
  double one[2], many[2];
  if (!time_with_work(run, label, 1, fa, in->jobs, &one[0], error) ||
      !time_with_work(run, label, 1, fb, in->jobs, &one[1], error) ||
      !time_with_work(run, label, P, fa, in->jobs, &many[0], error) ||
      !time_with_work(run, label, P, fb, in->jobs, &many[1], error))
    return FALSE;
  /* T(f) = fixed + per_flop f, at 1 and at P ranks */
  double c1 = (one[1] - one[0]) / (fb - fa), o1 = one[0] - c1 * fa;
  double cp = (many[1] - many[0]) / (fb - fa), op = many[0] - cp * fa;
  double limit = 100 * c1 / (P * cp); /* the efficiency of computation alone */
  g_autoptr(GString) t = g_string_new(NULL);
  if (fabs(o1) < 1e-12)
    o1 = 0; /* one p-node communicates nothing: rounding of the subtraction */
  g_autofree char *name = run_name_of(run);
  g_string_append_printf(t,
                         "%s, %s: T(f) = fixed + per-flop x f, f the flops of an hnode a step\n"
                         "  on 1 p-node:   %.4g s + %.6g s x f (runs at f = %g and %g)\n"
                         "  on %u p-nodes: %.4g s + %.6g s x f\n"
                         "  efficiency as f grows: at most %.1f%% (computation alone)\n",
                         name, label, o1, c1, fa, fb, P, op, cp, limit);
  if (limit <= 100 * e) {
    out->value = INFINITY;
    out->note = g_strdup_printf("%.0f%% on %u p-nodes is out of reach: computation alone gives "
                                "%.1f%%",
                                100 * e, P, limit);
    out->detail = g_string_free(g_steal_pointer(&t), FALSE);
    return TRUE;
  }
  double f = MAX((e * P * op - o1) / (c1 - e * P * cp), 0);
  double at1 = 0, atp = 0;
  if (!time_with_work(run, label, 1, f, in->jobs, &at1, error) ||
      !time_with_work(run, label, P, f, in->jobs, &atp, error))
    return FALSE;
  double measured = 100 * at1 / (P * atp);
  g_string_append_printf(t, "  %.0f%% needs f = %.1f flops; a run at them: %.2f%%\n", 100 * e, f,
                         measured);
  out->value = f;
  out->note = g_strdup_printf("%.0f%% on %u p-nodes needs %.1f flops an hnode a step (a run at "
                              "them: %.2f%%; the scenario has %g)",
                              100 * e, P, f, measured, fa);
  out->detail = g_string_free(g_steal_pointer(&t), FALSE);
  return TRUE;
}

/* ---- chaube2003: loop scheduling's cost against STAT ---- */

static const char *const dls_names[] = {"stat", "ss", "fsc", "gss", "tss",
                                        "fac",  "wf", "awf", "af",  NULL};
#define DLS_NAMES (G_N_ELEMENTS(dls_names) - 1)
#define MAX_PLACES 8

static gboolean
dls_adaptive(guint t)
{
  return strcmp(dls_names[t], "awf") == 0 || strcmp(dls_names[t], "af") == 0;
}

static int
dls_index(const char *technique)
{
  for (guint t = 0; t < DLS_NAMES; t++)
    if (strcmp(dls_names[t], technique) == 0)
      return (int)t;
  return -1;
}

/* One configuration (P, N): every technique's cost P T_p in each run of
 * the claim (the paper's runs, one per background placement). */
typedef struct {
  guint ranks;
  guint64 n;
  double cost[MAX_PLACES][DLS_NAMES];
  gboolean have[MAX_PLACES][DLS_NAMES];
} DlsPoint;

typedef struct {
  GArray *points; /* DlsPoint, in the runs' order */
  char *places[MAX_PLACES];
  guint nplaces;
} DlsTable;

static void
dls_table_clear(DlsTable *t)
{
  g_clear_pointer(&t->points, g_array_unref);
  for (guint i = 0; i < t->nplaces; i++)
    g_free(t->places[i]);
}

G_DEFINE_AUTO_CLEANUP_CLEAR_FUNC(DlsTable, dls_table_clear)

/* The runs of the claim as (P, N) points; a run's placement is its [run:]
 * (the point's name before ':'). */
static gboolean
dls_table(const LbCheckInput *in, DlsTable *t, GError **error)
{
  t->points = g_array_new(FALSE, TRUE, sizeof(DlsPoint));
  for (guint i = 0; i < in->nruns; i++) {
    const LbRunResult *res = in->runs[i].result;
    if (!g_str_has_prefix(res->balancer, "dls:"))
      continue;
    int k = dls_index(res->balancer + strlen("dls:"));
    double n = 0, cost = 0;
    if (k < 0 || !lb_run_result_lookup(res, "iterations", &n) ||
        !lb_run_result_lookup(res, "cost", &cost))
      return fail(error, "%s: not a run of a dls technique with its cost", in->runs[i].point);
    const char *point = in->runs[i].point;
    g_autofree char *place = g_strndup(point, strcspn(point, ":"));
    guint pl = 0;
    while (pl < t->nplaces && strcmp(t->places[pl], place) != 0)
      pl++;
    if (pl == t->nplaces) {
      if (t->nplaces == MAX_PLACES)
        return fail(error, "more than %u runs (placements) to average", MAX_PLACES);
      t->places[t->nplaces++] = g_strdup(place);
    }
    guint j = 0;
    DlsPoint *pt = NULL;
    for (; j < t->points->len; j++) {
      pt = &g_array_index(t->points, DlsPoint, j);
      if (pt->ranks == res->ranks && pt->n == (guint64)n)
        break;
    }
    if (j == t->points->len) {
      g_array_set_size(t->points, j + 1);
      pt = &g_array_index(t->points, DlsPoint, j);
      pt->ranks = res->ranks;
      pt->n = (guint64)n;
    }
    pt->cost[pl][k] = cost;
    pt->have[pl][k] = TRUE;
  }
  if (t->points->len == 0)
    return fail(error, "no runs of dls");
  return TRUE;
}

/* The technique's cost averaged over the placements, as the paper
 * averaged its three runs; FALSE when a placement lacks it. */
static gboolean
dls_mean_cost(const DlsTable *t, const DlsPoint *pt, guint k, double *mean)
{
  double sum = 0;
  for (guint pl = 0; pl < t->nplaces; pl++) {
    if (!pt->have[pl][k])
      return FALSE;
    sum += pt->cost[pl][k];
  }
  *mean = sum / t->nplaces;
  return TRUE;
}

/* The seed's percent improvement in cost over STAT, of the mean costs. */
static gboolean
dls_improvement(const DlsTable *t, const DlsPoint *pt, guint k, double *value)
{
  double stat = 0, cost = 0;
  if (!dls_mean_cost(t, pt, 0, &stat) || !dls_mean_cost(t, pt, k, &cost) || stat <= 0)
    return FALSE;
  *value = 100 * (stat - cost) / stat;
  return TRUE;
}

static const DlsPoint *
dls_point(const DlsTable *t, guint64 n, guint ranks)
{
  for (guint j = 0; j < t->points->len; j++) {
    const DlsPoint *pt = &g_array_index(t->points, DlsPoint, j);
    if (pt->n == n && (ranks == 0 || pt->ranks == ranks))
      return pt;
  }
  return NULL;
}

/* The rank counts of the table, ascending, each once. */
static GArray *
dls_ranks(const DlsTable *t)
{
  GArray *r = g_array_new(FALSE, FALSE, sizeof(guint));
  for (guint j = 0; j < t->points->len; j++) {
    guint p = g_array_index(t->points, DlsPoint, j).ranks, k = 0;
    while (k < r->len && g_array_index(r, guint, k) < p)
      k++;
    if (k == r->len || g_array_index(r, guint, k) != p)
      g_array_insert_val(r, k, p);
  }
  return r;
}

static gboolean
dls_technique_validate(const char *const *args, guint nargs, const char *dir, GError **error)
{
  for (guint i = 0; i < nargs; i++) {
    guint64 n = 0;
    if (i == 1 && !g_ascii_string_to_unsigned(args[i], 10, 1, G_MAXUINT32, &n, NULL))
      return fail(error, "'%s' is not a loop size N", args[i]);
    if (i != 1 && dls_index(args[i]) < 0)
      return fail(error, "'%s' is not a dls technique (stat, ss, fsc, gss, tss, fac, wf, awf, af)",
                  args[i]);
  }
  return TRUE;
}

/* TECHNIQUE N: its percent improvement in cost over STAT at the claim's
 * processors and N iterations, of the costs averaged over the claim's
 * runs (the placements). */
static gboolean
dls_improvement_check(const LbCheckInput *in, LbCheckOutput *out, GError **error)
{
  g_auto(DlsTable) t = {0};
  if (!dls_table(in, &t, error))
    return FALSE;
  guint k = (guint)dls_index(in->args[0]);
  guint64 n = g_ascii_strtoull(in->args[1], NULL, 10);
  g_autoptr(GArray) ranks = dls_ranks(&t);
  if (ranks->len != 1)
    return fail(error, "the runs have %u processor counts: give the claim its ranks", ranks->len);
  const DlsPoint *pt = dls_point(&t, n, 0);
  if (pt == NULL || !dls_improvement(&t, pt, k, &out->value))
    return fail(error, "no runs of dls:stat and dls:%s at N = %" G_GUINT64_FORMAT " in every run",
                in->args[0], n);
  double stat = 0, cost = 0;
  dls_mean_cost(&t, pt, 0, &stat);
  dls_mean_cost(&t, pt, k, &cost);
  g_autoptr(GString) each = g_string_new(NULL);
  for (guint pl = 0; pl < t.nplaces; pl++)
    g_string_append_printf(each, "%s%s %.1f", pl ? ", " : "", t.places[pl],
                           100 * (pt->cost[pl][0] - pt->cost[pl][k]) / pt->cost[pl][0]);
  out->note = g_strdup_printf("cost %.4g s against STAT's %.4g s, the means of %u runs (each: %s)",
                              cost, stat, t.nplaces, each->str);
  return TRUE;
}

static gboolean
dls_size_validate(const char *const *args, guint nargs, const char *dir, GError **error)
{
  guint64 n = 0;
  if (strcmp(args[0], "all") != 0 &&
      !g_ascii_string_to_unsigned(args[0], 10, 1, G_MAXUINT32, &n, NULL))
    return fail(error, "'%s' is not a loop size N or all", args[0]);
  return TRUE;
}

/* N|all: the configurations (P, N) where a technique other than awf and
 * af has the least mean cost; the table of every technique's improvement
 * as the detail. */
static gboolean
dls_best(const LbCheckInput *in, LbCheckOutput *out, GError **error)
{
  g_auto(DlsTable) t = {0};
  if (!dls_table(in, &t, error))
    return FALSE;
  gboolean all = strcmp(in->args[0], "all") == 0;
  guint64 only = all ? 0 : g_ascii_strtoull(in->args[0], NULL, 10);
  g_autoptr(GString) detail = g_string_new(NULL);
  g_autoptr(GString) losses = g_string_new(NULL);
  g_string_append_printf(
      detail, "improvement in cost over STAT (%%), the costs averaged over %u runs:\n", t.nplaces);
  g_string_append_printf(detail, "%6s %3s %9s", "N", "P", "STAT (s)");
  for (guint k = 1; k < DLS_NAMES; k++)
    g_string_append_printf(detail, " %6s", dls_names[k]);
  g_string_append(detail, "  best\n");
  guint points = 0, lost = 0;
  g_autoptr(GArray) ranks = dls_ranks(&t);
  g_autoptr(GArray) sizes = g_array_new(FALSE, FALSE, sizeof(guint64));
  for (guint j = 0; j < t.points->len; j++) {
    guint64 n = g_array_index(t.points, DlsPoint, j).n;
    gboolean seen = FALSE;
    for (guint k = 0; k < sizes->len; k++)
      seen |= g_array_index(sizes, guint64, k) == n;
    if (!seen && (all || n == only))
      g_array_append_val(sizes, n);
  }
  for (guint a = 0; a < sizes->len; a++)
    for (guint b = 0; b < ranks->len; b++) {
      guint64 n = g_array_index(sizes, guint64, a);
      const DlsPoint *pt = dls_point(&t, n, g_array_index(ranks, guint, b));
      double stat = 0;
      if (pt == NULL || !dls_mean_cost(&t, pt, 0, &stat))
        continue;
      g_string_append_printf(detail, "%6" G_GUINT64_FORMAT " %3u %9.3f", n, pt->ranks, stat);
      /* STAT, at 0 % over itself, wins when every other loses to it */
      guint best = 0, best_adaptive = 0, others = 0;
      double top = 0, top_adaptive = -G_MAXDOUBLE;
      for (guint k = 1; k < DLS_NAMES; k++) {
        double v = 0;
        if (!dls_improvement(&t, pt, k, &v)) {
          g_string_append_printf(detail, " %6s", "-");
          continue;
        }
        others++;
        g_string_append_printf(detail, " %6.1f", v);
        if (v > top) {
          best = k;
          top = v;
        }
        if (dls_adaptive(k) && v > top_adaptive) {
          best_adaptive = k;
          top_adaptive = v;
        }
      }
      if (others == 0)
        return fail(error, "N = %" G_GUINT64_FORMAT ", P = %u: no technique besides STAT", n,
                    pt->ranks);
      points++;
      g_string_append_printf(detail, "  %s\n", dls_names[best]);
      lb_check_output_point(out, !dls_adaptive(best), "N = %" G_GUINT64_FORMAT ", P = %u", n,
                            pt->ranks);
      if (!dls_adaptive(best)) {
        lost++;
        g_string_append_printf(losses, "%sP = %u, N = %" G_GUINT64_FORMAT ": %s %.1f",
                               losses->len ? "; " : "", pt->ranks, n, dls_names[best], top);
        if (best_adaptive > 0)
          g_string_append_printf(losses, " (%s %.1f)", dls_names[best_adaptive], top_adaptive);
      }
    }
  if (points == 0)
    return fail(error, "no runs at N = %s", in->args[0]);
  out->value = lost;
  out->note = lost == 0 ? g_strdup_printf("awf or af best at all %u configurations", points)
                        : g_strdup_printf("%u of %u configurations best without adaptation: %s",
                                          lost, points, losses->str);
  out->detail = g_string_free(g_steal_pointer(&detail), FALSE);
  return TRUE;
}

/* N TECHNIQUE ...: the largest improvement of those techniques over the
 * runs' processor counts at N. */
static gboolean
dls_max_improvement(const LbCheckInput *in, LbCheckOutput *out, GError **error)
{
  g_auto(DlsTable) t = {0};
  if (!dls_table(in, &t, error))
    return FALSE;
  guint64 n = g_ascii_strtoull(in->args[0], NULL, 10);
  double top = -G_MAXDOUBLE;
  const char *which = NULL;
  guint at = 0;
  for (guint j = 0; j < t.points->len; j++) {
    const DlsPoint *pt = &g_array_index(t.points, DlsPoint, j);
    for (guint i = 1; i < in->nargs && pt->n == n; i++) {
      double v = 0;
      if (dls_improvement(&t, pt, (guint)dls_index(in->args[i]), &v) && v > top) {
        top = v;
        which = in->args[i];
        at = pt->ranks;
      }
    }
  }
  if (which == NULL)
    return fail(error, "no runs of those techniques and STAT at N = %s", in->args[0]);
  out->value = top;
  out->note = g_strdup_printf("%s on %u processors", which, at);
  return TRUE;
}

static gboolean
dls_max_validate(const char *const *args, guint nargs, const char *dir, GError **error)
{
  guint64 n = 0;
  if (!g_ascii_string_to_unsigned(args[0], 10, 1, G_MAXUINT32, &n, NULL))
    return fail(error, "'%s' is not a loop size N", args[0]);
  for (guint i = 1; i < nargs; i++)
    if (dls_index(args[i]) < 0)
      return fail(error, "'%s' is not a dls technique", args[i]);
  return TRUE;
}

/* N: how much of STAT's cost its ranks spent not computing, 100 (1 -
 * T_1 / (P T_p)), averaged over the runs, the largest over the processor
 * counts: what a schedule that kept every rank computing to the end, at
 * no cost, would save (exactly so on hosts of equal speed). */
static gboolean
dls_headroom(const LbCheckInput *in, LbCheckOutput *out, GError **error)
{
  double n = g_ascii_strtod(in->args[0], NULL);
  g_autoptr(GArray) ranks = g_array_new(FALSE, FALSE, sizeof(guint));
  g_autoptr(GArray) sums = g_array_new(FALSE, TRUE, sizeof(double));
  g_autoptr(GArray) counts = g_array_new(FALSE, TRUE, sizeof(guint));
  for (guint i = 0; i < in->nruns; i++) {
    const LbRunResult *res = in->runs[i].result;
    double iterations = 0, efficiency = 0;
    if (strcmp(res->balancer, "dls:stat") != 0 ||
        !lb_run_result_lookup(res, "iterations", &iterations) || iterations != n)
      continue;
    if (!lb_run_result_lookup(res, "efficiency", &efficiency))
      return fail(error, "%s: no efficiency", in->runs[i].point);
    guint k = 0;
    while (k < ranks->len && g_array_index(ranks, guint, k) != res->ranks)
      k++;
    if (k == ranks->len) {
      g_array_append_val(ranks, res->ranks);
      g_array_set_size(sums, k + 1);
      g_array_set_size(counts, k + 1);
    }
    g_array_index(sums, double, k) += 100 * (1 - efficiency);
    g_array_index(counts, guint, k)++;
  }
  if (ranks->len == 0)
    return fail(error, "no runs of dls:stat at N = %s", in->args[0]);
  g_autoptr(GString) each = g_string_new(NULL);
  guint at = 0;
  out->value = -G_MAXDOUBLE;
  for (guint k = 0; k < ranks->len; k++) {
    double v = g_array_index(sums, double, k) / g_array_index(counts, guint, k);
    g_string_append_printf(each, "%sP = %u: %.1f", k ? ", " : "", g_array_index(ranks, guint, k),
                           v);
    if (v > out->value) {
      out->value = v;
      at = g_array_index(ranks, guint, k);
    }
  }
  out->note = g_strdup_printf("largest on %u processors (%s %%)", at, each->str);
  return TRUE;
}

/* A chunk as a rank's narration tells it (dls's "computed chunk" lines). */
typedef struct {
  guint64 first, end, size, cost;
  int rank, owner;
  double began, computing, ended;
} DlsChunkLine;

static gboolean
dls_chunk_line(const char *line, DlsChunkLine *c)
{
  const char *at = strstr(line, " t="), *rest = strstr(line, " iteration");
  return at != NULL && rest != NULL &&
         sscanf(at,
                " t=%lf s rank %d: computed chunk [%" G_GUINT64_FORMAT ", %" G_GUINT64_FORMAT
                ") of rank %d: %" G_GUINT64_FORMAT,
                &c->ended, &c->rank, &c->first, &c->end, &c->owner, &c->size) == 6 &&
         (rest = strstr(rest, ", cost ")) != NULL &&
         sscanf(rest, ", cost %" G_GUINT64_FORMAT ", began at %lf s, %lf s computing", &c->cost,
                &c->began, &c->computing) == 3;
}

/* TECHNIQUE N: the run of TECHNIQUE at the claim's processors and N
 * iterations (the claim's first run), made again with narration: every
 * rank's chunks in time. lbsim's number: the share (%) of T_p in which one
 * rank computed alone, from the second-last rank's last chunk to the
 * last's; the detail is the timeline, and the master's account of the
 * chunk that ended last. */
static gboolean
dls_timeline(const LbCheckInput *in, LbCheckOutput *out, GError **error)
{
  g_autofree char *label = g_strdup_printf("dls:%s", in->args[0]);
  double n = g_ascii_strtod(in->args[1], NULL), iterations = 0;
  const LbCheckRun *run = NULL;
  for (guint i = 0; i < in->nruns && run == NULL; i++)
    if (strcmp(in->runs[i].result->balancer, label) == 0 &&
        lb_run_result_lookup(in->runs[i].result, "iterations", &iterations) && iterations == n)
      run = &in->runs[i];
  if (run == NULL)
    return fail(error, "no run of %s at N = %s", label, in->args[1]);
  g_autoptr(LbScenario) sc = lb_job_load(run->job, error);
  if (sc == NULL)
    return FALSE;
  LbScenarioOverrides ov = {0};
  g_autoptr(LbRunResult) res = simulate(sc, &ov, TRUE, in->jobs, error);
  if (res == NULL)
    return FALSE;
  guint p = res->ranks;
  g_autofree double *last = g_new0(double, p);
  g_autofree guint *chunks = g_new0(guint, p);
  g_autofree guint64 *iters = g_new0(guint64, p), *cost = g_new0(guint64, p);
  g_autofree double *computing = g_new0(double, p);
  g_autoptr(GArray) lines = g_array_new(FALSE, FALSE, sizeof(DlsChunkLine));
  for (guint i = 0; res->narration != NULL && i < res->narration->len; i++) {
    DlsChunkLine c;
    if (!dls_chunk_line(res->narration->pdata[i], &c) || c.rank < 0 || (guint)c.rank >= p)
      continue;
    g_array_append_val(lines, c);
    last[c.rank] = MAX(last[c.rank], c.ended);
    chunks[c.rank]++;
    iters[c.rank] += c.size;
    cost[c.rank] += c.cost;
    computing[c.rank] += c.computing;
  }
  if (lines->len == 0)
    return fail(error, "%s: its narration holds no computed chunks", run->point);
  guint slowest = 0, second = G_MAXUINT;
  for (guint r = 1; r < p; r++)
    if (last[r] > last[slowest])
      slowest = r;
  for (guint r = 0; r < p; r++)
    if (r != slowest && (second == G_MAXUINT || last[r] > last[second]))
      second = r;
  double tail = second == G_MAXUINT ? 0 : last[slowest] - last[second];
  out->value = last[slowest] > 0 ? 100 * tail / last[slowest] : 0;
  g_autoptr(GString) d = g_string_new(NULL);
  g_string_append_printf(d,
                         "%s: the chunks by rank (first iteration, size, owner when not itself, "
                         "start and end in s); the last three of each:\n",
                         run->point);
  for (guint r = 0; r < p; r++) {
    g_string_append_printf(d,
                           "rank %2u: %3u chunks, %5" G_GUINT64_FORMAT
                           " iterations, cost %8" G_GUINT64_FORMAT
                           ", %7.3f s computing, done %7.3f s:",
                           r, chunks[r], iters[r], cost[r], computing[r], last[r]);
    guint shown = MIN(chunks[r], 3);
    for (guint i = 0, seen = 0; i < lines->len; i++) {
      const DlsChunkLine *c = &g_array_index(lines, DlsChunkLine, i);
      if ((guint)c->rank != r || ++seen <= chunks[r] - shown)
        continue;
      g_string_append_printf(d, " [%" G_GUINT64_FORMAT " +%" G_GUINT64_FORMAT, c->first, c->size);
      if (c->owner != c->rank)
        g_string_append_printf(d, " of %d", c->owner);
      g_string_append_printf(d, " %.3f-%.3f]", c->began, c->ended);
    }
    g_string_append_c(d, '\n');
  }
  /* the master's account of the chunk that ended last */
  const DlsChunkLine *final = NULL;
  for (guint i = 0; i < lines->len; i++) {
    const DlsChunkLine *c = &g_array_index(lines, DlsChunkLine, i);
    if ((guint)c->rank == slowest && c->ended == last[slowest])
      final = c;
  }
  g_assert(final != NULL); /* the slowest rank's last line set last[slowest] */
  g_autofree char *range =
      g_strdup_printf("[%" G_GUINT64_FORMAT ", %" G_GUINT64_FORMAT ")", final->first, final->end);
  for (guint i = 0; i < res->narration->len; i++) {
    const char *line = res->narration->pdata[i];
    if (strstr(line, range) != NULL && strstr(line, "computed chunk") == NULL)
      g_string_append_printf(d, "the chunk that ended last, as the master chose it: %s\n",
                             strstr(line, "t=") != NULL ? strstr(line, "t=") : line);
  }
  out->note = g_strdup_printf(
      "rank %u ends at %.3f s, %.3f s after rank %u: its last chunk, %" G_GUINT64_FORMAT
      " iteration%s from %" G_GUINT64_FORMAT " (cost %" G_GUINT64_FORMAT "), ran %.3f-%.3f s",
      slowest, last[slowest], tail, second, final->size, final->size == 1 ? "" : "s", final->first,
      final->cost, final->began, final->ended);
  out->detail = g_string_free(g_steal_pointer(&d), FALSE);
  return TRUE;
}

/* ---- the table ---- */

/* ---- chaube2003: Table 2, chunks against their order ---- */

static const char *const chunk_orders[] = {"P", "N", "N/Kopt", "Plog(N/P)", "PlogN", NULL};

/* Table 2's order of a technique's chunk count on N iterations and P
 * processors, constants aside: FSC's N / K_opt with K_opt = (sqrt(2) N h
 * / (sigma P sqrt(ln P)))^(2/3) is N^(1/3) (P sqrt(ln P))^(2/3) times a
 * constant of h and sigma. */
static double
chunk_order(const char *order, double n, double p)
{
  if (strcmp(order, "P") == 0)
    return p;
  if (strcmp(order, "N") == 0)
    return n;
  if (strcmp(order, "N/Kopt") == 0)
    return cbrt(n) * pow(p * sqrt(log(p)), 2.0 / 3.0);
  if (strcmp(order, "Plog(N/P)") == 0)
    return p * log2(n / p);
  return p * log2(n);
}

static gboolean
dls_chunks_validate(const char *const *args, guint nargs, const char *dir, GError **error)
{
  if (dls_index(args[0]) < 0)
    return fail(error, "'%s' is not a dls technique (stat, ss, fsc, gss, tss, fac, wf, awf, af)",
                args[0]);
  if (!g_strv_contains(chunk_orders, args[1]))
    return fail(error, "'%s' is not an order of Table 2 (P, N, N/Kopt, Plog(N/P), PlogN)", args[1]);
  return TRUE;
}

/* TECHNIQUE ORDER: the technique's chunks (averaged over the claim's
 * runs, the placements) in every configuration (N, P) over its order: a
 * count of that order is a constant times it, so each configuration's
 * ratio is a point, over the ratios' geometric mean (1 for a count
 * exactly of the order); lbsim's number is the largest ratio over the
 * least. */
static gboolean
dls_chunks(const LbCheckInput *in, LbCheckOutput *out, GError **error)
{
  g_autofree char *label = g_strdup_printf("dls:%s", in->args[0]);
  const char *order = in->args[1];
  /* (P, N) -> the sum of chunks and the runs summed */
  g_autoptr(GArray) keys = g_array_new(FALSE, FALSE, sizeof(guint64) * 2);
  g_autoptr(GArray) sums = g_array_new(FALSE, TRUE, sizeof(double) * 2);
  for (guint i = 0; i < in->nruns; i++) {
    const LbRunResult *res = in->runs[i].result;
    if (strcmp(res->balancer, label) != 0)
      continue;
    double n = 0, chunks = 0;
    if (!lb_run_result_lookup(res, "iterations", &n) ||
        !lb_run_result_lookup(res, "chunks", &chunks))
      return fail(error, "%s: no iterations or chunks", in->runs[i].point);
    guint64 key[2] = {res->ranks, (guint64)n};
    guint j = 0;
    while (j < keys->len && memcmp(&g_array_index(keys, guint64, 2 * j), key, sizeof key) != 0)
      j++;
    if (j == keys->len) {
      g_array_append_vals(keys, key, 1);
      g_array_set_size(sums, j + 1);
    }
    double *sum = &g_array_index(sums, double, 2 * j);
    sum[0] += chunks;
    sum[1] += 1;
  }
  if (keys->len < 2)
    return fail(error, "%s: %u configurations (N, P); an order needs two or more", label,
                keys->len);
  g_autofree double *ratio = g_new(double, keys->len);
  double log_mean = 0, lo = INFINITY, hi = 0;
  g_autoptr(GString) t = g_string_new(NULL);
  g_string_append_printf(t, "%6s %3s %10s %12s %10s\n", "N", "P", "chunks", order, "ratio");
  for (guint j = 0; j < keys->len; j++) {
    const guint64 *key = &g_array_index(keys, guint64, 2 * j);
    const double *sum = &g_array_index(sums, double, 2 * j);
    double chunks = sum[0] / sum[1], f = chunk_order(order, (double)key[1], (double)key[0]);
    ratio[j] = chunks / f;
    log_mean += log(ratio[j]) / keys->len;
    lo = MIN(lo, ratio[j]);
    hi = MAX(hi, ratio[j]);
    g_string_append_printf(t,
                           "%6" G_GUINT64_FORMAT " %3" G_GUINT64_FORMAT " %10.1f %12.1f %10.4f\n",
                           key[1], key[0], chunks, f, ratio[j]);
  }
  double mean = exp(log_mean);
  for (guint j = 0; j < keys->len; j++) {
    const guint64 *key = &g_array_index(keys, guint64, 2 * j);
    lb_check_output_point(out, ratio[j] / mean, "N = %" G_GUINT64_FORMAT ", P = %" G_GUINT64_FORMAT,
                          key[1], key[0]);
  }
  out->value = hi / lo;
  out->note = g_strdup_printf("%s's chunks over %s in %u configurations: from %.3g to %.3g "
                              "(largest over least %.2f)",
                              label, order, keys->len, lo, hi, hi / lo);
  out->detail = g_string_free(g_steal_pointer(&t), FALSE);
  return TRUE;
}

/* name, usage, arguments, reads a run, validate, compute; then what the
 * arguments name: labels (first, last, prefix), a metric, a label the
 * runs must have */
#define NO_LABELS -1, -1, NULL, -1, NULL
static const LbReproCheck checks[] = {
    {"gray-codes", "the paper's codes of ranks 0, 1, ... (2^d of them)", 2, 1024, FALSE,
     gray_codes_validate, gray_codes, NO_LABELS},
    {"coarse-children", "NODE CHILD CHILD (binary codes)", 3, 3, FALSE, coarse_children_validate,
     coarse_children, NO_LABELS},
    {"tree-schedule", "tree|schedule|no-return LOADS (comma separated, a power of two of them)", 2,
     2, FALSE, tree_schedule_validate, tree_schedule, NO_LABELS},
    {"steps", "METRIC [<=]log2p|d(d+1)/2|d(d-1)/2 [LABEL ...]", 2, 16, TRUE, steps_validate, steps,
     2, G_MAXINT, NULL, 0, NULL},
    {"desired-floor-ceil", "no arguments", 0, 0, FALSE, NULL, desired_floor_ceil, NO_LABELS},
    {"desired-spread", "P (a power of two)", 1, 1, FALSE, spread_validate, desired_spread,
     NO_LABELS},
    {"pass-through", "count|returns SCENARIO [BALANCER]", 2, 3, FALSE, transfers_validate,
     pass_through, NO_LABELS},
    {"bottleneck", "min|median|max|excess BALANCER", 2, 2, TRUE, bottleneck_validate, bottleneck, 1,
     1, NULL, -1, NULL},
    {"tdg-figure3", "SUBSET:N,N,... (the document's lists)", 1, 9, FALSE, figure3_validate,
     tdg_figure3, NO_LABELS},
    {"tdg-random", "no arguments", 0, 0, FALSE, NULL, tdg_random, NO_LABELS},
    {"first-axis", "BALANCER", 1, 1, TRUE, NULL, first_axis, 0, 0, NULL, -1, NULL},
    {"order-breaks", "BALANCER", 1, 1, TRUE, NULL, order_breaks, 0, 0, NULL, -1, NULL},
    {"loops", "count|share tolerance|unchanged BALANCER", 3, 3, TRUE, loops_validate, loops, 2, 2,
     NULL, -1, NULL},
    {"efficiency", "LABEL P", 2, 2, TRUE, efficiency_validate, efficiency, 0, 0, NULL, -1, NULL},
    {"work-for-efficiency", "LABEL P PERCENT", 3, 3, TRUE, work_validate, work_for_efficiency, 0, 0,
     NULL, -1, NULL},
    {"dls-improvement", "TECHNIQUE N", 2, 2, TRUE, dls_technique_validate, dls_improvement_check, 0,
     0, "dls:", -1, "dls:stat"},
    {"dls-best", "N|all", 1, 1, TRUE, dls_size_validate, dls_best, -1, -1, NULL, -1, "dls:stat"},
    {"dls-max-improvement", "N TECHNIQUE ...", 2, 10, TRUE, dls_max_validate, dls_max_improvement,
     1, G_MAXINT, "dls:", -1, "dls:stat"},
    {"dls-headroom", "N", 1, 1, TRUE, dls_max_validate, dls_headroom, -1, -1, NULL, -1, "dls:stat"},
    {"dls-timeline", "TECHNIQUE N", 2, 2, TRUE, dls_technique_validate, dls_timeline, 0, 0,
     "dls:", -1, NULL},
    {"dls-chunks", "TECHNIQUE ORDER", 2, 2, TRUE, dls_chunks_validate, dls_chunks, 0, 0, "dls:", -1,
     NULL},
};
#undef NO_LABELS

const LbReproCheck *
lb_repro_check_lookup(const char *name)
{
  for (guint i = 0; i < G_N_ELEMENTS(checks); i++)
    if (strcmp(checks[i].name, name) == 0)
      return &checks[i];
  return NULL;
}

char *
lb_repro_check_names(void)
{
  GString *t = g_string_new(NULL);
  for (guint i = 0; i < G_N_ELEMENTS(checks); i++)
    g_string_append_printf(t, "%s%s", i ? ", " : "", checks[i].name);
  return g_string_free(t, FALSE);
}
