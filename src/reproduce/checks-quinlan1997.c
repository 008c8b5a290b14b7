/* The checks of D. J. Quinlan and M. Berndt, "MLB: Multilevel Load
 * Balancing for Structured Grid Applications", SIAM PP, 1997: the Gray
 * code and the tree, the four-processor example, step counts of real runs,
 * the desired loads, the schedule's transfers, the final bottleneck against
 * the optimum and the array order. */
#include <math.h>
#include <string.h>

#include "balancers/mlb/mlb-plan.h"
#include "lbsim/balancer.h"
#include "reproduce/chains.h"
#include "reproduce/checks-common.h"

/* ---- quinlan1997: the Gray code and the tree ---- */

static gboolean
gray_codes_validate(const char *const *args, guint nargs, const char *dir, GError **error)
{
  guint width = (guint)strlen(args[0]), v = 0;
  if (width > 10 || nargs != 1u << width)
    return lb_check_fail(error,
                         "check gray-codes: %u codes of %u bits; the table of d bits has 2^d rows",
                         nargs, width);
  for (guint i = 0; i < nargs; i++)
    if (strlen(args[i]) != width || !lb_check_binary(args[i], &v))
      return lb_check_fail(error, "check gray-codes: '%s' is not a code of %u bits", args[i],
                           width);
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
    g_autofree char *code = lb_check_bits_text(mlb_gray(r), d);
    same += strcmp(code, in->args[r]) == 0;
    guint diff = r > 0 ? mlb_gray(r) ^ mlb_gray(r - 1) : 1;
    one_bit += lb_check_power_of_two(diff);
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
    if (!lb_check_binary(args[i], &v) || strlen(args[i]) != width + (i > 0))
      return lb_check_fail(
          error,
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
  lb_check_binary(in->args[0], &node);
  lb_check_binary(in->args[1], &want[0]);
  lb_check_binary(in->args[2], &want[1]);
  guint d = (guint)strlen(in->args[1]);
  guint ranks[2] = {paper_rank_of(want[0]), paper_rank_of(want[1])};
  guint in_node = 0;
  g_autoptr(GString) how = g_string_new(NULL);
  for (guint i = 0; i < 2; i++) {
    guint r = ranks[i], partner = mlb_partner(r, 0);
    gboolean paired = partner == ranks[1 - i];
    gboolean coded = mlb_gray(r) >> 1 == node && mlb_gray(r) == want[i];
    in_node += paired && coded;
    g_autofree char *code = lb_check_bits_text(mlb_gray(r), d),
                    *parent = lb_check_bits_text(mlb_gray(r) >> 1, d - 1);
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
      return lb_check_fail(error, "phase 1's narration is not as this check reads it: '%s'", text);
    acc[r * d + e] = (Accumulated){v[3], v[5], v[7], TRUE};
    found++;
  }
  if (found != run->ranks * d)
    return lb_check_fail(error,
                         "phase 1's narration tells %u of the %u exchanges (its form changed?)",
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
    return lb_check_fail(error, "check tree-schedule: '%s' is not tree, schedule or no-return",
                         args[0]);
  g_autoptr(GArray) loads = lb_check_numbers(args[1]);
  if (loads == NULL || loads->len < 2 || loads->len > 64 || !lb_check_power_of_two(loads->len))
    return lb_check_fail(error,
                         "check tree-schedule: '%s' is not the loads of 2 to 64 ranks (a power of "
                         "two of them), whole numbers separated by commas",
                         args[1]);
  for (guint i = 0; i < loads->len; i++)
    if (g_array_index(loads, guint64, i) > 10000)
      return lb_check_fail(error, "check tree-schedule: loads up to 10000 (a worked example)");
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
        g_autofree char *code = lb_check_bits_text(mlb_gray(first) >> (d - l), l);
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
        g_autofree char *code = lb_check_bits_text(mlb_gray(first) >> (d - l), l);
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
example_run(guint d, const guint64 *loads, const LbCheckSims *sims, guint64 **tree, guint *bad,
            guint64 *elements, LbRunResult **run, GError **error)
{
  guint p = 1u << d;
  for (guint r = 0; r < p; r++)
    for (guint i = 0; i < PER_RANK; i++)
      elements[PER_RANK * r + i] = loads[r] / PER_RANK + (i < loads[r] % PER_RANK);
  *run = lb_check_simulate_mlb(p, elements, PER_RANK * p, sims, error);
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
constant_run(guint p, const guint64 *loads, const LbCheckSims *sims, guint *off, GError **error)
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
  g_autoptr(LbRunResult) run = lb_check_simulate_mlb(p, elements, (guint)(most * p), sims, error);
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
  g_autoptr(GArray) example = lb_check_numbers(in->args[1]);
  guint p = example->len, d = lb_check_log2_of(p);
  const guint64 *loads = (const guint64 *)example->data;
  guint64 **tree = g_new(guint64 *, d + 1);
  for (guint l = 0; l <= d; l++)
    tree[l] = g_new0(guint64, 1u << l);
  g_autofree guint64 *elements = g_new(guint64, PER_RANK * p);
  g_autoptr(LbRunResult) run = NULL;
  guint tree_bad = 0;
  gboolean is_tree = strcmp(what, "tree") == 0;
  gboolean ok =
      example_run(d, loads, in->sims, is_tree ? tree : NULL, &tree_bad, elements, &run, error);

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
    ok = example_run(6, big, in->sims, big_tree, &big_bad, big_elements, &big_run, error);
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
      ok = constant_run(p, loads, in->sims, &off, error);
      g_autoptr(GRand) more = g_rand_new_with_seed(3);
      for (guint k = 0; ok && k < 2; k++) {
        guint rp = k == 0 ? 16 : 64;
        g_autofree guint64 *rl = g_new(guint64, rp);
        for (guint r = 0; r < rp; r++)
          rl[r] = (guint64)g_rand_int_range(more, 0, 12);
        ok = constant_run(rp, rl, in->sims, &off, error);
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
    return lb_check_fail(
        error,
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
    if (!lb_check_power_of_two(res->ranks))
      return lb_check_fail(error, "%s: %u ranks, not a hypercube's", in->runs[i].point, res->ranks);
    if (!lb_run_result_lookup(res, metric, &v))
      return lb_check_fail(error, "%s: no metric %s", in->runs[i].point, metric);
    double excess = v - bound_of(bound, lb_check_log2_of(res->ranks));
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
    return lb_check_fail(error, "no runs of %s", in->nargs > 2 ? in->args[2] : "any balancer");
  g_array_sort(ps, compare_guint);
  /* a table: p, the bound, each label's steps */
  g_autoptr(GString) t = g_string_new(NULL);
  g_string_append_printf(t, "%8s %8s", "p", bound);
  for (guint k = 0; k < labels->len; k++)
    g_string_append_printf(t, " %12s", (char *)labels->pdata[k]);
  g_string_append_c(t, '\n');
  for (guint j = 0; j < ps->len; j++) {
    guint p = g_array_index(ps, guint, j);
    g_string_append_printf(t, "%8u %8u", p, bound_of(bound, lb_check_log2_of(p)));
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
  if (!g_ascii_string_to_unsigned(args[0], 10, 2, 16384, &p, NULL) || !lb_check_power_of_two(p))
    return lb_check_fail(error, "check desired-spread: '%s' is not a power of two from 2 to 16384",
                         args[0]);
  return TRUE;
}

/* The paper's bound: on p ranks the desired loads differ by at most
 * log(p). lbsim's number is the largest difference at that p. */
static gboolean
desired_spread(const LbCheckInput *in, LbCheckOutput *out, GError **error)
{
  guint64 p = g_ascii_strtoull(in->args[0], NULL, 10), spread = 0;
  guint d = lb_check_log2_of(p);
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
    return lb_check_fail(error, "check pass-through: '%s' is not count or returns", args[0]);
  g_autofree char *path = g_build_filename(dir, args[1], NULL);
  if (!g_file_test(path, G_FILE_TEST_IS_REGULAR))
    return lb_check_fail(error, "check pass-through: no scenario %s", path);
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
scenario_run(const char *path, const char *balancer, const LbCheckSims *sims, GError **error)
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
  if (sc == NULL)
    return NULL;
  /* kept under the scenario file's bytes, as a sweep keeps its runs */
  g_autofree char *bytes = NULL;
  gsize len = 0;
  g_autofree char *digest =
      g_file_get_contents(path, &bytes, &len, NULL)
          ? g_compute_checksum_for_data(G_CHECKSUM_SHA256, (const guchar *)bytes, len)
          : NULL;
  g_autofree char *kept = digest != NULL ? g_strdup_printf("scenario-sha256 %s\n%s\nbalancer %s",
                                                           digest, path, balancer)
                                         : NULL;
  if ((res = lb_check_simulate(sc, &ov, LB_CHECK_KEEP_DETAIL, sims, kept, error)) == NULL)
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
  const LbRunResult *run = scenario_run(path, balancer, in->sims, error);
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
  g_array_sort(all, lb_check_compare_guint64);
  GArray *loads = g_array_sized_new(FALSE, FALSE, sizeof(guint64), all->len);
  for (guint i = 0; i < all->len; i++)
    g_array_append_val(loads, ((guint64 *)all->data)[2 * i + 1]);
  return loads;
}

static gboolean
bottleneck_validate(const char *const *args, guint nargs, const char *dir, GError **error)
{
  static const char *const stats[] = {"min", "median", "max", "excess", NULL};
  if (!g_strv_contains(stats, args[0]))
    return lb_check_fail(error, "check bottleneck: '%s' is not min, median, max or excess",
                         args[0]);
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
      return lb_check_fail(error, "%s: %s", in->runs[i].point, local->message);
    const guint64 *l = (const guint64 *)loads->data;
    guint64 best = lb_chains_best_bottleneck(l, loads->len, res->ranks, NULL), largest = 0;
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
    return lb_check_fail(error, "no runs of %s", balancer);
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
      return lb_check_fail(error, "%s: no metric order-breaks", in->runs[i].point);
    runs++;
    broken += v > 0;
    elements += v;
    most = MAX(most, v);
    pmin = MIN(pmin, res->ranks);
    pmax = MAX(pmax, res->ranks);
  }
  if (runs == 0)
    return lb_check_fail(error, "no runs of %s", balancer);
  out->value = 100.0 * broken / runs;
  out->note = g_strdup_printf("%u of %u cases (p = %u .. %u) end out of array order with %s; "
                              "%.0f elements out of order in all, at most %.0f in one",
                              broken, runs, pmin, pmax, balancer, elements, most);
  return TRUE;
}

const LbReproCheck lb_checks_quinlan1997[] = {
    {"gray-codes", "the paper's codes of ranks 0, 1, ... (2^d of them)", 2, 1024, FALSE,
     gray_codes_validate, gray_codes, LB_CHECK_NO_LABELS},
    {"coarse-children", "NODE CHILD CHILD (binary codes)", 3, 3, FALSE, coarse_children_validate,
     coarse_children, LB_CHECK_NO_LABELS},
    {"tree-schedule", "tree|schedule|no-return LOADS (comma separated, a power of two of them)", 2,
     2, FALSE, tree_schedule_validate, tree_schedule, LB_CHECK_NO_LABELS},
    {"steps", "METRIC [<=]log2p|d(d+1)/2|d(d-1)/2 [LABEL ...]", 2, 16, TRUE, steps_validate, steps,
     2, G_MAXINT, NULL, 0, NULL},
    {"desired-floor-ceil", "no arguments", 0, 0, FALSE, NULL, desired_floor_ceil,
     LB_CHECK_NO_LABELS},
    {"desired-spread", "P (a power of two)", 1, 1, FALSE, spread_validate, desired_spread,
     LB_CHECK_NO_LABELS},
    {"pass-through", "count|returns SCENARIO [BALANCER]", 2, 3, FALSE, transfers_validate,
     pass_through, LB_CHECK_NO_LABELS},
    {"bottleneck", "min|median|max|excess BALANCER", 2, 2, TRUE, bottleneck_validate, bottleneck, 1,
     1, NULL, -1, NULL},
    {"order-breaks", "BALANCER", 1, 1, TRUE, NULL, order_breaks, 0, 0, NULL, -1, NULL},
    {NULL},
};
