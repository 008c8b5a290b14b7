/* Chunk sizes of dynamic loop scheduling, as pure arithmetic: one scheduler
 * object per loop hands out the next chunk of iterations to each request
 * and, for the adaptive techniques, learns from the chunk times workers
 * report. The balancer dls and `lbsim chunks` both use it. The techniques
 * are those of R. Chaube, R. L. Cariño and I. Banicescu, "LB_Migrate: a
 * dynamic load balancing library" (section 3.1), sized as DESIGN.md says.
 *
 * N iterations, P workers, R the iterations not yet scheduled. Every chunk
 * is the technique's size below raised to min_chunk and then capped at R
 * (so only a last chunk is ever below min_chunk), and the sizes sum to N.
 *   stat  P blocks in worker order, the first N mod P of ceil(N/P)
 *         iterations, the others of floor(N/P) (each raised to min_chunk,
 *         capped at what the blocks before it leave); worker w gets block w
 *         on its first request and nothing after.
 *   ss    1.
 *   fsc   ceil((sqrt(2) N h / (sigma P sqrt(ln P)))^(2/3)) for the whole
 *         loop (C. P. Kruskal and A. Weiss, 1985); h = fsc_h, sigma =
 *         fsc_sigma. P = 1 or sigma = 0 make it infinite: one chunk of R.
 *   gss   ceil(R/P).
 *   tss   F = ceil(N/2P), L = 1, n = ceil(2N/(F+L)), delta =
 *         floor((F-L)/(n-1)) (0 when n = 1); chunk i (counting every chunk
 *         from 0) is max(1, F - i delta). At large P, F - L < n - 1 and
 *         delta is 0: every chunk is F.
 *   fac   batches of P chunks (whoever asks); every chunk of a batch is
 *         ceil(R_b/2P), R_b the R at the batch's start.
 *   frac  fractiling (I. Banicescu and S. F. Hummel, "Balancing processor
 *         loads and exploiting data locality in N-body simulations",
 *         Supercomputing '95): fac's batches and sizes, each chunk cut
 *         from a tile. The tiles are stat's blocks before min_chunk (worker
 *         w's: the first N mod P of ceil(N/P), the others of floor(N/P));
 *         worker w's chunk is the front of what its own tile has left, or,
 *         once that is empty, the back of the tile with most left (the
 *         lowest on ties), and is capped at what that tile has left (so a
 *         tile's last chunk may be below min_chunk). The tiles on a
 *         space-filling curve of the paper are the loop's own order here.
 *   wf    fac's batches; requester r gets ceil(w_r R_b/2P), the weights w
 *         normalised to sum to P: the processors' relative speeds (the
 *         hosts' nominal speeds, by default), given, or measured (each
 *         worker's time per iteration in its first report, then fixed).
 *   awf   wf whose weights are measured: I. Banicescu, V. Velusamy and
 *         J. Devaprasad, "On the scalability of dynamic scheduling
 *         scientific applications with adaptive weighted factoring",
 *         Cluster Computing 6, 2003. Worker i's weighted average time per
 *         iteration, its j-th reported chunk (k_ij iterations in t_ij
 *         seconds) weighing j, so that recent chunks count more:
 *           pi_i = sum_j j t_ij / sum_j j k_ij,
 *           pibar = (1/P) sum_i pi_i, rho_i = pibar / pi_i,
 *           w_i = P rho_i / sum_k rho_k.
 *         The paper updates the weights between the time steps of an
 *         application; inside one loop they are updated from every report
 *         so far at the start of every batch (AWF-B) or at every request
 *         (AWF-C: ceil(w_i R / 2P)), as R. L. Cariño and I. Banicescu,
 *         "Dynamic load balancing with adaptive factoring methods in
 *         scientific applications", The Journal of Supercomputing 44,
 *         2008, describe. A worker without reports counts with the mean pi
 *         of those with. Over the time steps of an application (the
 *         paper's rule), step s's seconds T_is and iterations N_is weigh s:
 *         in step S, with n_i iterations reported so far in it,
 *           pi_i = (sum_{s<S} s T_is + S n_i pi_iS) / (sum_{s<S} s N_is + S n_i),
 *         pi_iS the step's own weighted time per iteration above; a worker
 *         measured in an earlier step is measured from the start.
 *   af    I. Banicescu and Z. Liu, "Adaptive factoring: a dynamic
 *         scheduling method tuned to the rate of weight changes", High
 *         Performance Computing Symposium 2000; I. Banicescu and
 *         V. Velusamy, "Load balancing highly irregular computations with
 *         the adaptive factoring", IPDPS 2002 (Heterogeneous Computing
 *         Workshop). A request from worker i gets, with R now,
 *           K_i = (D + 2 T R - sqrt(D^2 + 4 D T R)) / (2 mu_i),
 *           D = sum_j sigma_j^2 / mu_j,  T = 1 / sum_j (1 / mu_j),
 *         mu_j and sigma_j the mean and standard deviation of worker j's
 *         time per iteration, the sample mean and standard deviation of
 *         the times of every iteration j reported (a report carries the
 *         sum of its iterations' times and the sum of their squares, as
 *         the DLB tool's workers time each iteration):
 *           mu_j = S_j / K_j,
 *           sigma_j^2 = (Q_j - S_j^2 / K_j) / (K_j - 1),
 *         K_j iterations, S_j the sum of their times, Q_j of the squares.
 *         A worker without reports counts with the mean mu of those with;
 *         one with fewer than two iterations with sigma = mu times the
 *         mean sigma/mu of those with two or more (0 if none has). With
 *         sigma = 0 everywhere K_i = R (1/mu_i) T: the worker's share of R
 *         by speed.
 * awf, af and wf with measured weights hand a worker that has reported no
 * time yet first_chunk iterations (outside the batches), as Cariño and
 * Banicescu's DLB tool hands it its minimum chunk.
 * A worker whose reported times sum to 0 counts as without reports.
 * Everything is deterministic: the same calls give the same chunks. */
#pragma once

#include <glib.h>

#include "lbsim/params.h"

G_BEGIN_DECLS

typedef enum {
  DLS_STAT,
  DLS_SS,
  DLS_FSC,
  DLS_GSS,
  DLS_TSS,
  DLS_FAC,
  DLS_FRAC,
  DLS_WF,
  DLS_AWF,
  DLS_AF,
} DlsTechnique;

#define DLS_N_TECHNIQUES 10

/* Loops up to 2^53 iterations: every size computed in doubles is exact. */
#define DLS_MAX_ITERATIONS 9007199254740992.0

/* "stat", "ss", ...; FALSE for any other name. */
gboolean dls_technique_parse(const char *name, DlsTechnique *out);
const char *dls_technique_name(DlsTechnique t);
/* TRUE when the size depends on who asks besides when (frac: the tile it
 * is cut from; wf, awf, af). */
gboolean dls_technique_by_worker(DlsTechnique t);

/* Where wf's weights come from (the key weights). */
typedef enum {
  DLS_WEIGHTS_GIVEN,    /* w0,w1,..., as LB_Migrate's caller gives them (NULL: equal) */
  DLS_WEIGHTS_SPEEDS,   /* the hosts' nominal speeds (speeds[]), the processors' relative speeds */
  DLS_WEIGHTS_MEASURED, /* each worker's first (probe) chunk, its time per iteration */
} DlsWeightsFrom;

/* When awf updates its weights (the key awf-update). */
typedef enum {
  DLS_AWF_BATCH, /* AWF-B: at the start of every batch */
  DLS_AWF_CHUNK, /* AWF-C: at every request, the chunk w_i R / 2P */
} DlsAwfUpdate;

/* Which iterations af estimates a worker's mean and spread from (the key
 * af-estimate). */
typedef enum {
  DLS_AF_LATEST, /* those it reported since it was last handed a chunk: its latest chunk */
  DLS_AF_ALL,    /* every iteration it reported in the loop */
} DlsAfEstimate;

typedef struct {
  guint64 min_chunk;   /* 0 counts as 1 */
  double fsc_h;        /* fsc: scheduling overhead of a chunk */
  double fsc_sigma;    /* fsc: standard deviation of an iteration's time, same unit */
  double *weights;     /* wf: [workers], positive, any scale; NULL: all equal */
  guint64 first_chunk; /* awf, af, measured wf: a worker's chunk before its first
                        * report; 0: dls_default_first_chunk */
  DlsAwfUpdate awf_update;
  DlsAfEstimate af_estimate;
  DlsWeightsFrom weights_from;
  /* awf in a time-stepping application: this loop is time step `step`
   * (from 1; 0 counts as 1), and past_time and past_iterations ([workers],
   * borrowed, or NULL before the second step) hold, for each worker, the
   * sums over the earlier steps s of s times the seconds and the
   * iterations it reported in step s (dls_chunker_measured) */
  guint step;
  const double *past_time, *past_iterations;
} DlsChunkParams;

/* The DLB tool's default minimum chunk, which its adaptive techniques hand
 * a worker that has not reported yet: max(1, floor(F / 2)), F =
 * floor(0.55 + (N/P) ln 2 / ln(N/P)) the size for about P log2(N/P)
 * chunks (1 when N/P < 3). */
guint64 dls_default_first_chunk(guint64 n, guint workers);

/* The [dls] keys of the chunk sizes. A table of the balancer includes them
 * as its first rows: { DLS_CHUNK_PARAM_ROWS, {"other", ...}, {NULL} }.
 * (clang-format cannot lay out a table in a macro.) */
/* clang-format off */
#define DLS_CHUNK_PARAM_ROWS                                                                       \
    {"technique", LB_PARAM_CHOICE, "fac", 0, 0, "stat|ss|fsc|gss|tss|fac|frac|wf|awf|af",          \
     "the loop scheduling technique (its chunk sizes: docs/families/dls.md)"},                   \
    {"min-chunk", LB_PARAM_INT, "1", 1, DLS_MAX_ITERATIONS, NULL,                                  \
     "every chunk has at least this many iterations (but the last, if fewer are left; frac: a "    \
     "tile's last)"},                                                                              \
    {"fsc-h", LB_PARAM_DOUBLE, "1", 0, 1e12, NULL,                                                 \
     "fsc: h, the overhead of scheduling one chunk (any time unit, the one of fsc-sigma)"},        \
    {"fsc-sigma", LB_PARAM_DOUBLE, "1", 0, 1e12, NULL,                                             \
     "fsc: sigma, the standard deviation of an iteration's time (the unit of fsc-h)"},             \
    {"weights", LB_PARAM_STRING, "speeds", 0, 0, NULL,                                             \
     "wf's weights, the processors' relative speeds: speeds (the hosts' nominal speeds; all "      \
     "equal in lbsim chunks), measured (each worker's time per iteration in its first chunk, "     \
     "then fixed) or w0,w1,... one per worker, positive, as LB_Migrate's caller gives them; "      \
     "normalised to sum to the number of workers"},                                                \
    {"first-chunk", LB_PARAM_INT, "0", 0, DLS_MAX_ITERATIONS, NULL,                                \
     "awf, af, wf measured: the chunk of a worker that has not reported a time yet (0: the DLB "   \
     "tool's default minimum chunk, about half of N / (P log2(N/P)))"},                            \
    {"awf-update", LB_PARAM_CHOICE, "batch", 0, 0, "batch|chunk",                                  \
     "awf: weights updated at every batch (AWF-B) or at every chunk (AWF-C)"},                     \
    {"af-estimate", LB_PARAM_CHOICE, "latest", 0, 0, "latest|all",                                \
     "af: a worker's mean and spread from the iterations of its latest chunk (what it reported "  \
     "since it last got a chunk), or from every iteration it reported"},                          \
    {"awf-time", LB_PARAM_CHOICE, "compute", 0, 0, "compute|elapsed",                              \
     "awf: a worker reports its chunks' compute time (AWF-B, AWF-C) or their elapsed time, "       \
     "messages and waits included (AWF-D, AWF-E)"}
/* clang-format on */

/* The rows above and the end row. */
extern const LbParamSpec dls_chunk_params[];

/* What the weights key of params (a table holding DLS_CHUNK_PARAM_ROWS)
 * says: speeds, measured, or given (a list, checked when read). */
DlsWeightsFrom dls_weights_from(const LbParams *params);

/* Fills p from the chunk keys of params (a table holding
 * DLS_CHUNK_PARAM_ROWS): the weights given, or with weights = speeds
 * speeds[workers] if not NULL, else NULL (awf-time is the workers'
 * business, not read here). The technique is not read here. Bad weights
 * are an LB_PARAM_ERROR naming the key. */
gboolean dls_chunk_params_read(DlsChunkParams *p, const LbParams *params, guint workers,
                               const double *speeds, GError **error);
/* Frees the weights dls_chunk_params_read made. */
void dls_chunk_params_clear(DlsChunkParams *p);
G_DEFINE_AUTO_CLEANUP_CLEAR_FUNC(DlsChunkParams, dls_chunk_params_clear)

typedef struct _DlsChunker DlsChunker;

/* A scheduler of n iterations (at most DLS_MAX_ITERATIONS) for workers >= 1
 * workers; params (not NULL) is copied. */
DlsChunker *dls_chunker_new(DlsTechnique t, guint64 n, guint workers, const DlsChunkParams *params);
void dls_chunker_free(DlsChunker *c);
G_DEFINE_AUTOPTR_CLEANUP_FUNC(DlsChunker, dls_chunker_free)

/* The next chunk for a request from worker: its size, 0 when nothing is
 * left for it (stat: also once it had its block). */
guint64 dls_chunker_next(DlsChunker *c, guint worker);
/* The same, and the chunk's first iteration in *first: chunks are ranges
 * of consecutive iterations handed out from the front of the loop, except
 * stat's blocks, which lie in worker order, and frac's, cut from tiles. */
guint64 dls_chunker_next_at(DlsChunker *c, guint worker, guint64 *first);
/* As dls_chunker_next, capped at cap >= 1 iterations (what the place the
 * chunk comes from holds): what the cap cuts off stays unscheduled (frac:
 * in its tile, whose other end the chunk keeps when it was borrowed from
 * the back). */
guint64 dls_chunker_next_capped(DlsChunker *c, guint worker, guint64 cap);
/* Worker's measured time for a finished chunk of size iterations (size >=
 * 1, seconds >= 0). awf and af adapt from it; the others ignore it. af
 * counts every iteration at the chunk's mean time (no spread inside it). */
void dls_chunker_report(DlsChunker *c, guint worker, guint64 size, double seconds);
/* The same with the sum of the squares of the iterations' own times
 * (seconds^2), from which af estimates the spread. */
void dls_chunker_report_iterations(DlsChunker *c, guint worker, guint64 size, double seconds,
                                   double squares);

/* The sums of the seconds and the iterations worker reported in this
 * loop (awf, af, measured wf; FALSE for the others, and for a worker that
 * reported nothing). */
gboolean dls_chunker_measured(const DlsChunker *c, guint worker, double *seconds,
                              double *iterations);
/* R: the iterations not yet handed out. */
guint64 dls_chunker_remaining(const DlsChunker *c);
/* The chunks handed out so far. */
guint64 dls_chunker_count(const DlsChunker *c);
/* The weights in use, normalised to sum to the number of workers (awf:
 * those of the current batch). */
const double *dls_chunker_weights(const DlsChunker *c);
/* How the size of the last chunk asked for came about, from the values the
 * technique used ("fac, batch 2, R_b = 24: ceil(R_b / 2P) = ceil(24 / 16) =
 * 2, cut to 1, all its source has left"), for narration. */
char *dls_chunker_describe_last(const DlsChunker *c);

G_END_DECLS
