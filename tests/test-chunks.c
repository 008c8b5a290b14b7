/* Chunk sizes of dynamic loop scheduling: every technique on cases worked
 * out by hand, and the properties every sequence has. */
#include <glib.h>
#include <math.h>
#include <string.h>

#include "balancers/dls/chunks.h"

static DlsChunkParams
params_min(guint64 min_chunk)
{
  DlsChunkParams p = {min_chunk, 1, 1, NULL};
  return p;
}

/* The sizes handed out to requests from worker 0, 1, ..., P-1, 0, ...
 * until nothing is left, with no reports. */
static GArray *
round_robin(DlsTechnique t, guint64 n, guint workers, const DlsChunkParams *p)
{
  g_autoptr(DlsChunker) c = dls_chunker_new(t, n, workers, p);
  GArray *sizes = g_array_new(FALSE, FALSE, sizeof(guint64));
  for (guint64 i = 0; dls_chunker_remaining(c) > 0; i++) {
    guint64 size = dls_chunker_next(c, (guint)(i % workers));
    g_assert_cmpuint(size, >, 0);
    g_array_append_val(sizes, size);
  }
  return sizes;
}

static void
assert_sizes(GArray *got, const guint64 *want, guint n)
{
  g_assert_cmpuint(got->len, ==, n);
  for (guint i = 0; i < n; i++)
    g_assert_cmpuint(g_array_index(got, guint64, i), ==, want[i]);
}

static void
test_names(void)
{
  const char *names[] = {"stat", "ss", "fsc", "gss", "tss", "fac", "frac", "wf", "awf", "af"};
  g_assert_cmpuint(G_N_ELEMENTS(names), ==, DLS_N_TECHNIQUES);
  for (guint i = 0; i < G_N_ELEMENTS(names); i++) {
    DlsTechnique t;
    g_assert_true(dls_technique_parse(names[i], &t));
    g_assert_cmpstr(dls_technique_name(t), ==, names[i]);
    g_assert_cmpint(dls_technique_by_worker(t), ==,
                    t == DLS_FRAC || t == DLS_WF || t == DLS_AWF || t == DLS_AF);
  }
  DlsTechnique t;
  g_assert_false(dls_technique_parse("FAC", &t));
  g_assert_false(dls_technique_parse("fac2", &t));
  g_assert_false(dls_technique_parse("", &t));
  g_assert_false(dls_technique_parse(NULL, &t));
}

static void
test_stat(void)
{
  DlsChunkParams p = params_min(1);
  /* N = 10, P = 4: 10 mod 4 = 2 blocks of ceil(10/4) = 3, then 2 of 2,
   * starting at 0, 3, 6, 8 */
  g_autoptr(DlsChunker) c = dls_chunker_new(DLS_STAT, 10, 4, &p);
  const guint64 size[] = {3, 3, 2, 2}, first[] = {0, 3, 6, 8};
  /* out of order: each worker gets its own block, once */
  const guint order[] = {2, 0, 3, 1};
  guint64 left = 10;
  for (guint i = 0; i < 4; i++) {
    guint w = order[i];
    guint64 at = G_MAXUINT64;
    g_assert_cmpuint(dls_chunker_next_at(c, w, &at), ==, size[w]);
    g_assert_cmpuint(at, ==, first[w]);
    left -= size[w];
    g_assert_cmpuint(dls_chunker_remaining(c), ==, left);
    g_assert_cmpuint(dls_chunker_next(c, w), ==, 0);
  }
  g_assert_cmpuint(dls_chunker_count(c), ==, 4);

  /* min-chunk 4: blocks 3, 3, 2, 2 raised to 4 and capped by what the
   * blocks before leave: 4, 4, 2, then nothing for worker 3 */
  DlsChunkParams m = params_min(4);
  g_autoptr(GArray) raised = round_robin(DLS_STAT, 10, 4, &m);
  assert_sizes(raised, (const guint64[]){4, 4, 2}, 3);
  /* N < P: blocks 1, 1, 0, 0 */
  g_autoptr(GArray) few = round_robin(DLS_STAT, 2, 4, &p);
  assert_sizes(few, (const guint64[]){1, 1}, 2);
  g_autoptr(DlsChunker) d = dls_chunker_new(DLS_STAT, 2, 4, &p);
  g_assert_cmpuint(dls_chunker_next(d, 3), ==, 0);
  g_assert_cmpuint(dls_chunker_remaining(d), ==, 2);
}

static void
test_ss(void)
{
  DlsChunkParams p = params_min(1), m = params_min(2);
  g_autoptr(GArray) ones = round_robin(DLS_SS, 5, 3, &p);
  assert_sizes(ones, (const guint64[]){1, 1, 1, 1, 1}, 5);
  /* min-chunk 2: 2, 2, then the 1 left */
  g_autoptr(GArray) twos = round_robin(DLS_SS, 5, 3, &m);
  assert_sizes(twos, (const guint64[]){2, 2, 1}, 3);
}

static void
test_fsc(void)
{
  /* N = 1000, P = 4, h = 0.5, sigma = 2:
   *   sqrt(2) * 1000 * 0.5 = 707.107, 2 * 4 * sqrt(ln 4) = 8 * 1.177410 = 9.419279,
   *   707.107 / 9.419279 = 75.070, 75.070^(2/3) = exp(2/3 * 4.31843) = 17.796:
   * chunks of 18, 55 of them (990), then the 10 left */
  DlsChunkParams p = {1, 0.5, 2, NULL};
  g_autoptr(GArray) s = round_robin(DLS_FSC, 1000, 4, &p);
  g_assert_cmpuint(s->len, ==, 56);
  for (guint i = 0; i < 55; i++)
    g_assert_cmpuint(g_array_index(s, guint64, i), ==, 18);
  g_assert_cmpuint(g_array_index(s, guint64, 55), ==, 10);

  /* h = sigma = 1: (1414.21 / 4.70964)^(2/3) = 300.28^(2/3) = 44.84: 45 */
  DlsChunkParams q = {1, 1, 1, NULL};
  g_autoptr(DlsChunker) c = dls_chunker_new(DLS_FSC, 1000, 4, &q);
  g_assert_cmpuint(dls_chunker_next(c, 0), ==, 45);
  /* one worker (ln 1 = 0) or no spread: one chunk; no overhead: min-chunk */
  g_autoptr(GArray) one = round_robin(DLS_FSC, 1000, 1, &q);
  assert_sizes(one, (const guint64[]){1000}, 1);
  DlsChunkParams flat = {1, 1, 0, NULL}, free_ = {3, 0, 1, NULL};
  g_autoptr(GArray) whole = round_robin(DLS_FSC, 1000, 4, &flat);
  assert_sizes(whole, (const guint64[]){1000}, 1);
  g_autoptr(GArray) threes = round_robin(DLS_FSC, 7, 4, &free_);
  assert_sizes(threes, (const guint64[]){3, 3, 1}, 3);
}

static void
test_gss(void)
{
  /* ceil(R/4) from R = 100: 25 (75 left), 19 (56), 14 (42), 11 (31),
   * 8 (23), 6 (17), 5 (12), 3 (9), 3 (6), 2 (4), 1, 1, 1, 1 */
  DlsChunkParams p = params_min(1), m = params_min(5);
  g_autoptr(GArray) s = round_robin(DLS_GSS, 100, 4, &p);
  assert_sizes(s, (const guint64[]){25, 19, 14, 11, 8, 6, 5, 3, 3, 2, 1, 1, 1, 1}, 14);
  /* min-chunk 5: ... 6 (17 left), 5 (12), ceil(12/4) = 3 -> 5 (7),
   * 2 -> 5 (2), then the 2 left */
  g_autoptr(GArray) t = round_robin(DLS_GSS, 100, 4, &m);
  assert_sizes(t, (const guint64[]){25, 19, 14, 11, 8, 6, 5, 5, 5, 2}, 10);

  /* the shape: never increasing, each ceil(R/P) of the R before it */
  g_autoptr(GArray) big = round_robin(DLS_GSS, 100000, 16, &p);
  guint64 r = 100000;
  for (guint i = 0; i < big->len; i++) {
    guint64 k = g_array_index(big, guint64, i);
    g_assert_cmpuint(k, ==, (r + 15) / 16);
    if (i > 0)
      g_assert_cmpuint(k, <=, g_array_index(big, guint64, i - 1));
    r -= k;
  }
}

static void
test_tss(void)
{
  DlsChunkParams p = params_min(1);
  /* N = 100, P = 2: F = ceil(100/4) = 25, n = ceil(200/26) = 8,
   * delta = floor(24/7) = 3: 25, 22, 19, 16, 13 (95), then the 5 left */
  g_autoptr(GArray) a = round_robin(DLS_TSS, 100, 2, &p);
  assert_sizes(a, (const guint64[]){25, 22, 19, 16, 13, 5}, 6);
  /* N = 1000, P = 4: F = 125, n = ceil(2000/126) = 16, delta =
   * floor(124/15) = 8: 125, 117, ..., 37 (12 chunks, 972), then 28 */
  g_autoptr(GArray) b = round_robin(DLS_TSS, 1000, 4, &p);
  g_assert_cmpuint(b->len, ==, 13);
  for (guint i = 0; i < 12; i++)
    g_assert_cmpuint(g_array_index(b, guint64, i), ==, 125 - 8 * i);
  g_assert_cmpuint(g_array_index(b, guint64, 12), ==, 28);

  /* N = 1000, P = 100: F = 5, n = ceil(2000/6) = 334, delta = floor(4/333)
   * = 0: every chunk is F, 200 of them */
  g_autoptr(GArray) c = round_robin(DLS_TSS, 1000, 100, &p);
  g_assert_cmpuint(c->len, ==, 200);
  for (guint i = 0; i < c->len; i++)
    g_assert_cmpuint(g_array_index(c, guint64, i), ==, 5);
  /* N = 1003, P = 100: F = 6, n = ceil(2006/7) = 287, delta = 0: 167
   * chunks of 6 (1002), then 1 */
  g_autoptr(GArray) d = round_robin(DLS_TSS, 1003, 100, &p);
  g_assert_cmpuint(d->len, ==, 168);
  g_assert_cmpuint(g_array_index(d, guint64, 166), ==, 6);
  g_assert_cmpuint(g_array_index(d, guint64, 167), ==, 1);

  /* N = 60, P = 1: F = 30, n = ceil(120/31) = 4, delta = floor(29/3) = 9:
   * 30, 21, then the 9 left */
  g_autoptr(GArray) e = round_robin(DLS_TSS, 60, 1, &p);
  assert_sizes(e, (const guint64[]){30, 21, 9}, 3);
  /* N = 10, P = 1: F = 5, n = ceil(20/6) = 4, delta = floor(4/3) = 1:
   * 5, 4, then 1 left */
  g_autoptr(GArray) g = round_robin(DLS_TSS, 10, 1, &p);
  assert_sizes(g, (const guint64[]){5, 4, 1}, 3);
  /* N = 40, P = 2: F = 10, n = ceil(80/11) = 8, delta = floor(9/7) = 1:
   * 10, 9, 8, 7, then 6 is capped at the 6 left */
  g_autoptr(GArray) h = round_robin(DLS_TSS, 40, 2, &p);
  assert_sizes(h, (const guint64[]){10, 9, 8, 7, 6}, 5);
  /* N = 1 */
  g_autoptr(GArray) f = round_robin(DLS_TSS, 1, 8, &p);
  assert_sizes(f, (const guint64[]){1}, 1);
}

/* FAC's sequence computed here from its definition: batches of P chunks of
 * ceil(R_b/2P), capped at R. */
static GArray *
fac_by_definition(guint64 n, guint workers)
{
  GArray *sizes = g_array_new(FALSE, FALSE, sizeof(guint64));
  guint64 r = n;
  while (r > 0) {
    guint64 k = (r + 2 * workers - 1) / (2 * workers);
    for (guint i = 0; i < workers && r > 0; i++) {
      guint64 size = MIN(k, r);
      g_array_append_val(sizes, size);
      r -= size;
    }
  }
  return sizes;
}

static void
assert_same(GArray *a, GArray *b)
{
  g_assert_cmpuint(a->len, ==, b->len);
  for (guint i = 0; i < a->len; i++)
    g_assert_cmpuint(g_array_index(a, guint64, i), ==, g_array_index(b, guint64, i));
}

static void
test_fac(void)
{
  DlsChunkParams p = params_min(1);
  /* N = 100, P = 4: R_b = 100: 4 x 13 (52); R_b = 48: 4 x 6; 24: 4 x 3;
   * 12: 4 x 2; 4: 4 x 1 */
  g_autoptr(GArray) s = round_robin(DLS_FAC, 100, 4, &p);
  assert_sizes(s, (const guint64[]){13, 13, 13, 13, 6, 6, 6, 6, 3, 3, 3, 3, 2, 2, 2, 2, 1, 1, 1, 1},
               20);
  /* N = 10, P = 3: R_b = 10: 2, 2, 2; R_b = 4: 1, 1, 1; R_b = 1: 1 */
  g_autoptr(GArray) t = round_robin(DLS_FAC, 10, 3, &p);
  assert_sizes(t, (const guint64[]){2, 2, 2, 1, 1, 1, 1}, 7);

  const guint64 ns[] = {1, 2, 5, 99, 1000, 4096, 12345, 1000003};
  const guint ps[] = {1, 2, 3, 4, 7, 16, 100, 1000};
  for (guint i = 0; i < G_N_ELEMENTS(ns); i++)
    for (guint j = 0; j < G_N_ELEMENTS(ps); j++) {
      g_autoptr(GArray) got = round_robin(DLS_FAC, ns[i], ps[j], &p);
      g_autoptr(GArray) want = fac_by_definition(ns[i], ps[j]);
      assert_same(got, want);
    }

  /* a batch is P chunks whoever asks: worker 0 asking twice in a row
   * takes two of the first batch's */
  g_autoptr(DlsChunker) c = dls_chunker_new(DLS_FAC, 100, 4, &p);
  const guint order[] = {0, 0, 1, 2, 3};
  const guint64 want[] = {13, 13, 13, 13, 6};
  for (guint i = 0; i < G_N_ELEMENTS(order); i++)
    g_assert_cmpuint(dls_chunker_next(c, order[i]), ==, want[i]);
  /* reports change nothing */
  g_autoptr(DlsChunker) d = dls_chunker_new(DLS_FAC, 100, 4, &p);
  dls_chunker_report(d, 0, 10, 1000);
  g_assert_cmpuint(dls_chunker_next(d, 0), ==, 13);
}

/* Requests from the workers in order, each chunk's size and first
 * iteration as wanted. */
static void
assert_placed(DlsChunker *c, const guint *workers, const guint64 *size, const guint64 *first,
              guint n)
{
  for (guint i = 0; i < n; i++) {
    guint64 at = G_MAXUINT64;
    g_assert_cmpuint(dls_chunker_next_at(c, workers[i], &at), ==, size[i]);
    g_assert_cmpuint(at, ==, first[i]);
  }
  g_assert_cmpuint(dls_chunker_remaining(c), ==, 0);
}

static void
test_frac(void)
{
  DlsChunkParams p = params_min(1);
  /* N = 10, P = 3: tiles [0, 4), [4, 7), [7, 10) (10 mod 3 = 1 tile of 4).
   * R_b = 10: ceil(10/6) = 2 from the front of each requester's tile,
   * at 0, 4, 7; R_b = 4: ceil(4/6) = 1 each, at 2, 6, 9; R_b = 1: 1, the
   * last of tile 0, at 3. fac's sizes, in tiles. */
  g_autoptr(DlsChunker) a = dls_chunker_new(DLS_FRAC, 10, 3, &p);
  assert_placed(a, (const guint[]){0, 1, 2, 0, 1, 2, 0}, (const guint64[]){2, 2, 2, 1, 1, 1, 1},
                (const guint64[]){0, 4, 7, 2, 6, 9, 3}, 7);
  g_autoptr(GArray) same = round_robin(DLS_FRAC, 100, 4, &p);
  g_autoptr(GArray) fac = round_robin(DLS_FAC, 100, 4, &p);
  assert_same(same, fac);

  /* N = 20, P = 2, worker 0 asking for everything after worker 1's first:
   * tiles [0, 10), [10, 20). R_b = 20: ceil(20/4) = 5: worker 0 [0, 5),
   * worker 1 [10, 15). R_b = 10: 3: [5, 8), then 3 cut to the 2 tile 0
   * has left, [8, 10). R_b = 5 (a new batch: the cut left R at 5):
   * ceil(5/4) = 2 twice, from the back of tile 1, [18, 20) and [16, 18);
   * R_b = 1: [15, 16). fac would give 5, 5, 3, 3, 1, 1, 1, 1. */
  g_autoptr(DlsChunker) b = dls_chunker_new(DLS_FRAC, 20, 2, &p);
  assert_placed(b, (const guint[]){0, 1, 0, 0, 0, 0, 0}, (const guint64[]){5, 5, 3, 2, 2, 2, 1},
                (const guint64[]){0, 10, 5, 8, 18, 16, 15}, 7);

  /* min-chunk 3, N = 10, P = 4: tiles of 3, 3, 2, 2. R_b = 10:
   * ceil(10/8) = 2, raised to 3: 3, 3, then 3 cut to the tiles' 2, 2
   * (fac: 3, 3, 3, 1) */
  DlsChunkParams m = params_min(3);
  g_autoptr(GArray) cut = round_robin(DLS_FRAC, 10, 4, &m);
  assert_sizes(cut, (const guint64[]){3, 3, 2, 2}, 4);

  /* capped: the rest stays in its tile. N = 40, P = 2: worker 0 takes
   * [0, 10) and [10, 20) (R_b = 40: 10 each); R_b = 20: 5 from the back
   * of tile 1, [35, 40), capped at 3 keeps [37, 40): tile 1 is [20, 37);
   * worker 1 gets 5 from its front, [20, 25); R_b = 12: ceil(12/4) = 3
   * from the back, [34, 37) */
  g_autoptr(DlsChunker) c = dls_chunker_new(DLS_FRAC, 40, 2, &p);
  g_assert_cmpuint(dls_chunker_next(c, 0), ==, 10);
  g_assert_cmpuint(dls_chunker_next(c, 0), ==, 10);
  g_assert_cmpuint(dls_chunker_next_capped(c, 0, 3), ==, 3);
  g_assert_cmpuint(dls_chunker_remaining(c), ==, 17);
  guint64 at = 0;
  g_assert_cmpuint(dls_chunker_next_at(c, 1, &at), ==, 5);
  g_assert_cmpuint(at, ==, 20);
  g_assert_cmpuint(dls_chunker_next_at(c, 0, &at), ==, 3);
  g_assert_cmpuint(at, ==, 34);
  g_autofree char *why = dls_chunker_describe_last(c);
  g_assert_cmpstr(why, ==,
                  "frac, batch 3, R_b = 12: ceil(R_b / 2P) = ceil(12 / 4) = 3, from the back of "
                  "tile 1, the one with most left (its own is done)");
}

static void
test_wf(void)
{
  /* weights 1, 1, 1, 3 normalised to sum to 4: 2/3, 2/3, 2/3, 2.
   * R_b = 100: ceil(2/3 * 100/8 = 8.33) = 9 three times, 2 * 12.5 = 25;
   * R_b = 48: 2/3 * 6 = 4 (exactly), 12; R_b = 24: 2, 2, 2, 6;
   * R_b = 12: 1, 1, 1, 3; R_b = 6: ceil(0.5) = 1, 1, 1, ceil(1.5) = 2;
   * R_b = 1: 1 */
  double w[] = {1, 1, 1, 3};
  DlsChunkParams p = {1, 1, 1, w};
  g_autoptr(GArray) s = round_robin(DLS_WF, 100, 4, &p);
  assert_sizes(
      s, (const guint64[]){9, 9, 9, 25, 4, 4, 4, 12, 2, 2, 2, 6, 1, 1, 1, 3, 1, 1, 1, 2, 1}, 21);
  g_autoptr(DlsChunker) c = dls_chunker_new(DLS_WF, 100, 4, &p);
  const double *n = dls_chunker_weights(c);
  g_assert_cmpfloat_with_epsilon(n[0], 2.0 / 3, 1e-12);
  g_assert_cmpfloat_with_epsilon(n[3], 2.0, 1e-12);
  /* the weight is the requester's: worker 3 asking first gets 25 */
  g_assert_cmpuint(dls_chunker_next(c, 3), ==, 25);
  g_assert_cmpuint(dls_chunker_next(c, 3), ==, 25);
  g_assert_cmpuint(dls_chunker_next(c, 0), ==, 9);

  /* equal weights of any scale: fac's chunks */
  const double scales[] = {1, 0.1, 3.7, 1e9};
  const guint64 ns[] = {1, 7, 100, 1000, 4096, 99991};
  const guint ps[] = {1, 3, 4, 10, 64, 300};
  for (guint k = 0; k < G_N_ELEMENTS(scales); k++)
    for (guint j = 0; j < G_N_ELEMENTS(ps); j++) {
      g_autofree double *eq = g_new(double, ps[j]);
      for (guint i = 0; i < ps[j]; i++)
        eq[i] = scales[k];
      DlsChunkParams e = {1, 1, 1, eq};
      DlsChunkParams f = params_min(1);
      for (guint i = 0; i < G_N_ELEMENTS(ns); i++) {
        g_autoptr(GArray) wf = round_robin(DLS_WF, ns[i], ps[j], &e);
        g_autoptr(GArray) fac = round_robin(DLS_FAC, ns[i], ps[j], &f);
        assert_same(wf, fac);
      }
    }
}

static void
test_awf(void)
{
  /* P = 2, N = 1000, the DLB tool's first chunk: N/P = 500, floor(0.55 +
   * 500 ln 2 / ln 500) = 56, half of it 28. Each worker's first request,
   * before it reported, gets 28 (outside the batches). Worker 0 then
   * reports 28 iterations in 28 s (pi_0 = 1), worker 1 in 112 s (pi_1 =
   * 4): pibar = 2.5, rho = 2.5, 0.625, w = 2 * 2.5 / 3.125 = 1.6 and 0.4.
   * Batch 1, R_b = 944: worker 0 ceil(1.6 * 944/4 = 377.6) = 378, worker 1
   * ceil(0.4 * 236 = 94.4) = 95. */
  DlsChunkParams p = params_min(1);
  g_assert_cmpuint(dls_default_first_chunk(1000, 2), ==, 28);
  g_autoptr(DlsChunker) c = dls_chunker_new(DLS_AWF, 1000, 2, &p);
  g_assert_cmpuint(dls_chunker_next(c, 0), ==, 28);
  g_assert_cmpuint(dls_chunker_next(c, 1), ==, 28);
  dls_chunker_report(c, 0, 28, 28);
  dls_chunker_report(c, 1, 28, 112);
  g_assert_cmpuint(dls_chunker_next(c, 0), ==, 378);
  g_assert_cmpfloat_with_epsilon(dls_chunker_weights(c)[0], 1.6, 1e-12);
  g_assert_cmpfloat_with_epsilon(dls_chunker_weights(c)[1], 0.4, 1e-12);
  g_assert_cmpuint(dls_chunker_next(c, 1), ==, 95);

  /* AWF-C: the same weights, updated at every chunk, w_i R / 2P:
   * ceil(1.6 * 1000/4) = 400, then R = 600: ceil(0.4 * 150) = 60 */
  DlsChunkParams pc = params_min(1);
  pc.awf_update = DLS_AWF_CHUNK;
  g_autoptr(DlsChunker) cc = dls_chunker_new(DLS_AWF, 1000, 2, &pc);
  dls_chunker_report(cc, 0, 28, 28);
  dls_chunker_report(cc, 1, 28, 112);
  g_assert_cmpuint(dls_chunker_next(cc, 0), ==, 400);
  g_assert_cmpuint(dls_chunker_next(cc, 1), ==, 60);

  /* later chunks weigh more: worker 1 ran 100 iterations in 100 s, then
   * 100 in 25 s: pi_1 = (1*100 + 2*25) / (1*100 + 2*100) = 0.5 (the
   * unweighted mean would be 0.625); worker 0: 100 in 100 s, pi_0 = 1.
   * pibar = 0.75, rho = 0.75, 1.5, w = 2 * 0.75 / 2.25 = 2/3 and 4/3;
   * R_b = 1000: ceil(2/3 * 250) = 167, ceil(4/3 * 250) = 334 */
  g_autoptr(DlsChunker) e = dls_chunker_new(DLS_AWF, 1000, 2, &p);
  dls_chunker_report(e, 0, 100, 100);
  dls_chunker_report(e, 1, 100, 100);
  dls_chunker_report(e, 1, 100, 25);
  g_assert_cmpuint(dls_chunker_next(e, 0), ==, 167);
  g_assert_cmpfloat_with_epsilon(dls_chunker_weights(e)[1], 4.0 / 3, 1e-12);
  g_assert_cmpuint(dls_chunker_next(e, 1), ==, 334);

  /* a worker without reports gets the first chunk (600 / 3 = 200: floor(0.55
   * + 200 ln 2 / ln 200) = 26, 13), and counts in the weights with the
   * mean pi of those with: pi_0 = 1, pi_1 = 3, pi_2 = 2; rho = 2, 2/3, 1
   * (pibar = 2), w = 3 rho / (11/3) = 18/11, 6/11, 9/11. R_b = 587:
   * worker 0 ceil(18/11 * 587/6 = 160.09) = 161 */
  g_autoptr(DlsChunker) f = dls_chunker_new(DLS_AWF, 600, 3, &p);
  dls_chunker_report(f, 0, 10, 10);
  dls_chunker_report(f, 1, 10, 30);
  g_assert_cmpuint(dls_chunker_next(f, 2), ==, 13);
  g_assert_cmpuint(dls_chunker_next(f, 0), ==, 161);
  g_assert_cmpfloat_with_epsilon(dls_chunker_weights(f)[2], 9.0 / 11, 1e-12);

  /* wf with weights = measured: the first report fixes the weight;
   * later reports change nothing */
  DlsChunkParams pm = params_min(1);
  pm.weights_from = DLS_WEIGHTS_MEASURED;
  g_autoptr(DlsChunker) m = dls_chunker_new(DLS_WF, 1000, 2, &pm);
  g_assert_cmpuint(dls_chunker_next(m, 0), ==, 28);
  dls_chunker_report(m, 0, 28, 28);
  dls_chunker_report(m, 1, 28, 112);
  dls_chunker_report(m, 1, 28, 1);
  /* R_b = 972: w = 1.6, 0.4: ceil(1.6 * 243 = 388.8) = 389 */
  g_assert_cmpuint(dls_chunker_next(m, 0), ==, 389);
}

static void
test_af(void)
{
  DlsChunkParams p = params_min(1);
  /* a worker's chunk before its first report is first-chunk (here 4) */
  p.first_chunk = 4;
  g_autoptr(DlsChunker) x = dls_chunker_new(DLS_AF, 108, 2, &p);
  g_assert_cmpuint(dls_chunker_next(x, 0), ==, 4);
  g_assert_cmpuint(dls_chunker_next(x, 1), ==, 4);
  /* R = 100. Worker 0 timed its four iterations at 1, 2, 3 and 4 s (sum
   * 10, squares 30): mu_0 = 2.5, sigma_0^2 = (30 - 100/4) / 3 = 5/3;
   * worker 1 at 1 s each: mu_1 = 1, sigma_1 = 0.
   * D = (5/3) / 2.5 = 2/3, T = 1 / (1/2.5 + 1) = 5/7:
   * K_0 = (2/3 + 1000/7 - sqrt(4/9 + 4 (2/3) (5/7) 100)) / (2 * 2.5)
   *     = (143.524 - 13.817) / 5 = 25.94: 26 (74 left), then
   * K_1 = (2/3 + 740/7 - sqrt(4/9 + 4 (2/3) (5/7) 74)) / 2 = 47.24: 48 */
  dls_chunker_report_iterations(x, 0, 4, 10, 30);
  dls_chunker_report_iterations(x, 1, 4, 4, 4);
  g_assert_cmpuint(dls_chunker_next(x, 0), ==, 26);
  g_assert_cmpuint(dls_chunker_next(x, 1), ==, 48);

  /* dls_chunker_report counts every iteration of a chunk at its mean:
   * worker 0, 15 iterations in 15 s, then 15 in 45 s: 15 at 1 s and 15 at
   * 3 s, mu_0 = 2, sigma_0^2 = (150 - 3600/30) / 29 = 30/29; worker 1, 15
   * in 30 s twice: mu_1 = 2, sigma_1 = 0. R = 60, D = 15/29, T = 1:
   * K = (15/29 + 120 - sqrt(225/841 + 4 (15/29) 60)) / 4 = 27.34: 28 (32
   * left), then (15/29 + 64 - sqrt(225/841 + 4 (15/29) 32)) / 4 = 14.09:
   * 15. (Estimated from the chunks' means alone, sigma_0^2 would be 30,
   * and the chunks 19 and 12.) */
  p.first_chunk = 30;
  g_autoptr(DlsChunker) c = dls_chunker_new(DLS_AF, 120, 2, &p);
  g_assert_cmpuint(dls_chunker_next(c, 0), ==, 30);
  g_assert_cmpuint(dls_chunker_next(c, 1), ==, 30);
  dls_chunker_report(c, 0, 15, 15);
  dls_chunker_report(c, 0, 15, 45);
  dls_chunker_report(c, 1, 15, 30);
  dls_chunker_report(c, 1, 15, 30);
  g_assert_cmpuint(dls_chunker_next(c, 0), ==, 28);
  g_assert_cmpuint(dls_chunker_next(c, 1), ==, 15);
  p.first_chunk = 0;

  /* af-estimate: worker 0 slows down from 1 s an iteration to 3 s in the
   * chunk after its first. Both first reports at 1 s, no spread: 490 and
   * 245 of R = 980. Then with R = 245, worker 1 still at 1 s:
   * latest (the papers' AF, the default): mu_0 = 3, sigma_0 = 0, T = 3/4,
   *   K_0 = 245 (3/4) / 3 = 61.25: 62;
   * all: mu_0 = 2, sigma_0^2 = (10 + 90 - 400/20) / 19 = 20/19, D = 10/19,
   *   T = 2/3, T R = 163.33, K_0 = (D + 2TR - sqrt(D^2 + 4 D T R)) / 4
   *   = (327.19 - 18.55) / 4 = 77.16: 78 */
  for (guint all = 0; all < 2; all++) {
    p.first_chunk = 10;
    p.af_estimate = all ? DLS_AF_ALL : DLS_AF_LATEST;
    g_autoptr(DlsChunker) s = dls_chunker_new(DLS_AF, 1000, 2, &p);
    g_assert_cmpuint(dls_chunker_next(s, 0), ==, 10);
    g_assert_cmpuint(dls_chunker_next(s, 1), ==, 10);
    dls_chunker_report(s, 0, 10, 10);
    dls_chunker_report(s, 1, 10, 10);
    g_assert_cmpuint(dls_chunker_next(s, 0), ==, 490);
    g_assert_cmpuint(dls_chunker_next(s, 1), ==, 245);
    dls_chunker_report(s, 0, 10, 30);
    dls_chunker_report(s, 1, 10, 10);
    g_assert_cmpuint(dls_chunker_next(s, 0), ==, all ? 78 : 62);
  }
  p.first_chunk = 0;
  p.af_estimate = DLS_AF_LATEST;

  /* no spread and equal speeds: K = R T / mu = R/P, gss's chunks */
  g_autoptr(DlsChunker) d = dls_chunker_new(DLS_AF, 1000, 4, &p);
  for (guint i = 0; i < 4; i++)
    dls_chunker_report(d, i, 10, 5);
  g_autoptr(GArray) gss = round_robin(DLS_GSS, 1000, 4, &p);
  for (guint i = 0; i < gss->len; i++)
    g_assert_cmpuint(dls_chunker_next(d, i % 4), ==, g_array_index(gss, guint64, i));
  g_assert_cmpuint(dls_chunker_remaining(d), ==, 0);

  /* no spread, worker 1 three times slower: T = 1 / (1 + 1/3) = 3/4,
   * K_0 = 1000 * 3/4 = 750, K_1 = 1000 * (3/4) / 3 = 250 */
  g_autoptr(DlsChunker) e0 = dls_chunker_new(DLS_AF, 1000, 2, &p);
  g_autoptr(DlsChunker) e1 = dls_chunker_new(DLS_AF, 1000, 2, &p);
  dls_chunker_report(e0, 0, 10, 10);
  dls_chunker_report(e0, 1, 10, 30);
  dls_chunker_report(e1, 0, 10, 10);
  dls_chunker_report(e1, 1, 10, 30);
  g_assert_cmpuint(dls_chunker_next(e0, 0), ==, 750);
  g_assert_cmpuint(dls_chunker_next(e1, 1), ==, 250);

  /* pooled estimates. Worker 0: 10 iterations in 10 s, then in 30 s:
   * mu_0 = 2, sigma_0^2 = (100 - 1600/20) / 19 = 20/19, sigma_0^2 / mu_0^2
   * = 5/19. Worker 1, one iteration in 4 s (fewer than two): mu_1 = 4,
   * sigma_1^2 = (5/19) 16 = 80/19. With P = 2, R = 100: D = 10/19 + 20/19
   * = 30/19, T = 1 / (1/2 + 1/4) = 4/3, sqrt(D^2 + 4 D T 100) = 29.062:
   *   K_0 = (30/19 + 800/3 - 29.062) / 4 = 59.80: 60, K_1 = 29.90: 30.
   * With P = 3, worker 2 without reports: mu_2 = (2 + 4) / 2 = 3,
   * sigma_2^2 = (5/19) 9 = 45/19; D = 10/19 + 20/19 + 15/19 = 45/19,
   * T = 1 / (13/12) = 12/13, sqrt(D^2 + 4 D T 100) = 29.667:
   *   K_0 = (45/19 + 2400/13 - 29.667) / 4 = 39.33: 40
   * (worker 2 itself, not having reported, gets the first chunk: 100/3,
   * floor(0.55 + 33.3 ln 2 / ln 33.3) = 7, 3) */
  for (guint w = 0; w < 3; w++) {
    const guint p_of[] = {2, 2, 3};
    g_autoptr(DlsChunker) f = dls_chunker_new(DLS_AF, 100, p_of[w], &p);
    dls_chunker_report(f, 0, 10, 10);
    dls_chunker_report(f, 0, 10, 30);
    dls_chunker_report(f, 1, 1, 4);
    const guint64 want[] = {60, 30, 40};
    g_assert_cmpuint(dls_chunker_next(f, w == 2 ? 0 : w), ==, want[w]);
    if (w == 2)
      g_assert_cmpuint(dls_chunker_next(f, 2), ==, 3);
  }
}

/* A slow worker reported slow gets smaller chunks than the others, with
 * the spread the same for both. */
static void
test_adaptive_slow(void)
{
  const DlsTechnique ts[] = {DLS_AWF, DLS_AF};
  DlsChunkParams p = params_min(1);
  for (guint k = 0; k < G_N_ELEMENTS(ts); k++) {
    guint64 size[4];
    for (guint w = 0; w < 4; w++) {
      g_autoptr(DlsChunker) c = dls_chunker_new(ts[k], 10000, 4, &p);
      guint64 first[4];
      for (guint i = 0; i < 4; i++)
        first[i] = dls_chunker_next(c, i);
      /* every first chunk alike (the small first-chunk: N/P = 2500,
       * floor(0.55 + 2500 ln 2 / ln 2500) = 222, 111), nothing learnt yet */
      g_assert_cmpuint(first[0], ==, 111);
      g_assert_cmpuint(first[3], ==, 111);
      for (guint i = 0; i < 4; i++) {
        double slow = i == 2 ? 4 : 1;
        dls_chunker_report(c, i, 500, 500 * slow);
        dls_chunker_report(c, i, 750, 900 * slow);
      }
      size[w] = dls_chunker_next(c, w);
    }
    g_assert_cmpuint(size[0], ==, size[1]);
    g_assert_cmpuint(size[0], ==, size[3]);
    g_assert_cmpuint(size[2], <, size[0]);
    /* four times slower, a quarter of the size up to rounding */
    g_assert_cmpuint(size[2], <=, size[0] / 4 + 1);
    g_assert_cmpuint(size[2], >=, size[0] / 4 - 1);
  }
}

/* A sequence's invariants, for requests in round-robin order or from a
 * fixed pseudo-random sequence of workers, reporting times from speeds. */
static void
check_sequence(DlsTechnique t, guint64 n, guint workers, const DlsChunkParams *p, gboolean shuffled)
{
  g_autoptr(DlsChunker) c = dls_chunker_new(t, n, workers, p);
  g_autoptr(GRand) rand = g_rand_new_with_seed(n * 31 + workers);
  g_autofree guint8 *served = g_new0(guint8, workers);
  /* stat's blocks by definition: ceil(N/P) for the first N mod P, floor
   * for the others, raised to min_chunk, capped at what is left of N */
  g_autofree guint64 *block = g_new(guint64, workers);
  g_autofree guint64 *block_at = g_new(guint64, workers);
  for (guint w = 0; w < workers; w++) {
    block_at[w] = w == 0 ? 0 : block_at[w - 1] + block[w - 1];
    block[w] = MIN(MAX(n / workers + (w < n % workers), p->min_chunk), n - block_at[w]);
  }
  /* frac's tiles: the blocks before min_chunk, what each has left
   * [lo, hi) */
  g_autofree guint64 *lo = g_new(guint64, workers), *hi = g_new(guint64, workers);
  for (guint w = 0; w < workers; w++) {
    lo[w] = w * (n / workers) + MIN(w, n % workers);
    hi[w] = (w + 1) * (n / workers) + MIN(w + 1, n % workers);
  }
  g_autofree guint8 *handed = g_new0(guint8, n);
  guint64 front = 0, sum = 0, chunks = 0, idle = 0;
  for (guint64 i = 0; dls_chunker_remaining(c) > 0; i++) {
    guint w = shuffled ? (guint)g_rand_int_range(rand, 0, (gint32)workers) : (guint)(i % workers);
    guint64 r = dls_chunker_remaining(c), first = G_MAXUINT64;
    guint64 size = dls_chunker_next_at(c, w, &first);
    if (size == 0) {
      /* only stat refuses while iterations are left: a served worker or
       * an empty block */
      g_assert_cmpint(t, ==, DLS_STAT);
      g_assert_true(served[w] || block[w] == 0);
      g_assert_cmpuint(++idle, <, 100000);
      continue;
    }
    chunks++;
    g_assert_cmpuint(size, <=, r);
    if ((t != DLS_STAT || !shuffled) && t != DLS_FRAC)
      g_assert_cmpuint(size, >=, MIN(p->min_chunk, r));
    for (guint64 k = first; k < first + size; k++) {
      g_assert_cmpuint(k, <, n);
      g_assert_cmpuint(handed[k], ==, 0);
      handed[k] = 1;
    }
    if (t == DLS_FRAC) {
      /* the front of the requester's tile while it has iterations, else
       * the back of the one with most left (the lowest on ties), never
       * across tiles; below min_chunk only when its tile has no more */
      guint tile = w;
      if (lo[w] == hi[w])
        for (guint k = 0; k < workers; k++)
          if (hi[k] - lo[k] > hi[tile] - lo[tile])
            tile = k;
      g_assert_cmpuint(size, <=, hi[tile] - lo[tile]);
      g_assert_cmpuint(size, >=, MIN(MIN(p->min_chunk, r), hi[tile] - lo[tile]));
      g_assert_cmpuint(first, ==, tile == w ? lo[tile] : hi[tile] - size);
      if (tile == w)
        lo[tile] += size;
      else
        hi[tile] -= size;
    } else if (t == DLS_STAT) {
      g_assert_false(served[w]);
      served[w] = 1;
      g_assert_cmpuint(size, ==, block[w]);
      g_assert_cmpuint(first, ==, block_at[w]);
    } else {
      g_assert_cmpuint(first, ==, front);
      front += size;
    }
    sum += size;
    g_assert_cmpuint(dls_chunker_remaining(c), ==, r - size);
    g_assert_cmpuint(dls_chunker_count(c), ==, chunks);
    double speed = p->weights != NULL ? p->weights[w] : 1.0;
    dls_chunker_report(c, w, size, (double)size / speed * (1 + (i % 3) * 0.25));
  }
  g_assert_cmpuint(sum, ==, n);
  for (guint w = 0; w < workers; w++)
    g_assert_cmpuint(dls_chunker_next(c, w), ==, 0);
}

static void
test_properties(void)
{
  const guint64 ns[] = {1, 2, 7, 100, 1000, 12345};
  const guint ps[] = {1, 2, 3, 4, 16, 100};
  const guint64 mins[] = {1, 3, 50};
  for (guint t = 0; t < DLS_N_TECHNIQUES; t++)
    for (guint i = 0; i < G_N_ELEMENTS(ns); i++)
      for (guint j = 0; j < G_N_ELEMENTS(ps); j++)
        for (guint m = 0; m < G_N_ELEMENTS(mins); m++)
          for (guint weighted = 0; weighted < 2; weighted++) {
            g_autofree double *w = g_new(double, ps[j]);
            for (guint k = 0; k < ps[j]; k++)
              w[k] = 1 + k % 4;
            DlsChunkParams p = {mins[m], 0.5, 2, weighted ? w : NULL};
            check_sequence((DlsTechnique)t, ns[i], ps[j], &p, FALSE);
            check_sequence((DlsTechnique)t, ns[i], ps[j], &p, TRUE);
          }
}

/* The same calls, the same chunks. */
static void
test_deterministic(void)
{
  double w[] = {1, 2, 0.5, 1};
  DlsChunkParams p = {1, 1, 1, w};
  for (guint t = 0; t < DLS_N_TECHNIQUES; t++) {
    g_autoptr(DlsChunker) a = dls_chunker_new((DlsTechnique)t, 5000, 4, &p);
    g_autoptr(DlsChunker) b = dls_chunker_new((DlsTechnique)t, 5000, 4, &p);
    for (guint i = 0; dls_chunker_remaining(a) > 0; i++) {
      guint64 x = dls_chunker_next(a, i % 4), y = dls_chunker_next(b, i % 4);
      g_assert_cmpuint(x, ==, y);
      if (x > 0) {
        dls_chunker_report(a, i % 4, x, x * (1.0 + (i % 7) / 10.0) / w[i % 4]);
        dls_chunker_report(b, i % 4, x, x * (1.0 + (i % 7) / 10.0) / w[i % 4]);
      }
    }
  }
}

/* The [dls] chunk keys: defaults, weights from the key or from speeds. */
static const LbParamSpec extended[] = {
    DLS_CHUNK_PARAM_ROWS,
    {"request-when", LB_PARAM_INT, "0", 0, 100, NULL, "a key of the balancer"},
    {NULL},
};

static void
test_params(void)
{
  g_autoptr(LbParams) params = lb_params_new(dls_chunk_params);
  g_assert_cmpstr(lb_params_get_string(params, "technique"), ==, "fac");
  g_auto(DlsChunkParams) p = {0};
  g_autoptr(GError) error = NULL;
  g_assert_true(dls_chunk_params_read(&p, params, 3, NULL, &error));
  g_assert_no_error(error);
  g_assert_cmpuint(p.min_chunk, ==, 1);
  g_assert_cmpfloat(p.fsc_h, ==, 1);
  g_assert_cmpfloat(p.fsc_sigma, ==, 1);
  /* weights = speeds by default: without speeds (lbsim chunks, the
   * scenario's check) all equal */
  g_assert_cmpstr(lb_params_get_string(params, "weights"), ==, "speeds");
  g_assert_cmpint(p.weights_from, ==, DLS_WEIGHTS_SPEEDS);
  g_assert_null(p.weights);
  dls_chunk_params_clear(&p);

  /* the hosts' nominal speeds by default, the processors' relative speeds */
  const double speeds[] = {1e9, 2e9, 1e9};
  g_assert_true(dls_chunk_params_read(&p, params, 3, speeds, &error));
  g_assert_nonnull(p.weights);
  g_assert_cmpfloat(p.weights[0], ==, 1e9);
  g_assert_cmpfloat(p.weights[1], ==, 2e9);
  g_assert_cmpint(p.weights_from, ==, DLS_WEIGHTS_SPEEDS);
  dls_chunk_params_clear(&p);
  /* measured: no weights now, the first reports give them */
  g_assert_true(lb_params_set(params, "weights", " measured", &error));
  g_assert_true(dls_chunk_params_read(&p, params, 3, speeds, &error));
  g_assert_null(p.weights);
  g_assert_cmpint(p.weights_from, ==, DLS_WEIGHTS_MEASURED);
  g_assert_cmpint(dls_weights_from(params), ==, DLS_WEIGHTS_MEASURED);
  dls_chunk_params_clear(&p);
  g_assert_false(lb_params_set(params, "weights-from", "given", NULL));

  g_assert_true(lb_params_set(params, "weights", " 1, 2.5 ,4", &error));
  g_assert_true(lb_params_set(params, "min-chunk", "7", &error));
  g_assert_true(lb_params_set(params, "fsc-sigma", "0.25", &error));
  /* given: they, not the speeds */
  g_assert_true(dls_chunk_params_read(&p, params, 3, speeds, &error));
  g_assert_cmpint(p.weights_from, ==, DLS_WEIGHTS_GIVEN);
  g_assert_cmpfloat(p.weights[0], ==, 1);
  g_assert_cmpfloat(p.weights[1], ==, 2.5);
  g_assert_cmpfloat(p.weights[2], ==, 4);
  g_assert_cmpuint(p.min_chunk, ==, 7);
  g_assert_cmpfloat(p.fsc_sigma, ==, 0.25);
  dls_chunk_params_clear(&p);

  g_assert_false(lb_params_set(params, "min-chunk", "0", NULL));
  g_assert_false(lb_params_set(params, "technique", "fac3", NULL));
  g_assert_false(lb_params_set(params, "fsc-h", "-1", NULL));
  const char *bad[] = {"1,2",  "1,2,3,4", "1,0,2", "1,-2,2", "1,x,2",
                       "1,,2", "1,inf,2", "1;2;3", "speed",  "hosts"};
  for (guint i = 0; i < G_N_ELEMENTS(bad); i++) {
    g_autoptr(GError) e = NULL;
    g_assert_true(lb_params_set(params, "weights", bad[i], NULL));
    g_assert_false(dls_chunk_params_read(&p, params, 3, NULL, &e));
    g_assert_error(e, LB_PARAM_ERROR, LB_PARAM_ERROR_INVALID);
    g_assert_true(g_str_has_prefix(e->message, "weights: "));
    /* a word that is no list names what the key takes */
    g_assert_true((strstr(e->message, "is not speeds, measured or w0,w1,...") != NULL) ==
                  g_ascii_isalpha(bad[i][0]));
    g_assert_null(p.weights);
  }

  /* a balancer's table that includes the rows */
  g_assert_nonnull(lb_param_spec_find(extended, "fsc-sigma"));
  g_assert_nonnull(lb_param_spec_find(extended, "request-when"));
  g_autoptr(LbParams) more = lb_params_new(extended);
  g_assert_true(dls_chunk_params_read(&p, more, 2, NULL, &error));
  g_assert_cmpuint(p.min_chunk, ==, 1);
}

int
main(int argc, char **argv)
{
  g_test_init(&argc, &argv, NULL);
  g_test_add_func("/chunks/names", test_names);
  g_test_add_func("/chunks/stat", test_stat);
  g_test_add_func("/chunks/ss", test_ss);
  g_test_add_func("/chunks/fsc", test_fsc);
  g_test_add_func("/chunks/gss", test_gss);
  g_test_add_func("/chunks/tss", test_tss);
  g_test_add_func("/chunks/fac", test_fac);
  g_test_add_func("/chunks/frac", test_frac);
  g_test_add_func("/chunks/wf", test_wf);
  g_test_add_func("/chunks/awf", test_awf);
  g_test_add_func("/chunks/af", test_af);
  g_test_add_func("/chunks/adaptive-slow", test_adaptive_slow);
  g_test_add_func("/chunks/properties", test_properties);
  g_test_add_func("/chunks/deterministic", test_deterministic);
  g_test_add_func("/chunks/params", test_params);
  return g_test_run();
}
