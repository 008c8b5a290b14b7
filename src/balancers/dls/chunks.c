/* Chunk sizes of dynamic loop scheduling (chunks.h). */
#include "balancers/dls/chunks.h"

#include <errno.h>
#include <math.h>
#include <string.h>

static const char *const technique_names[DLS_N_TECHNIQUES] = {
    "stat", "ss", "fsc", "gss", "tss", "fac", "frac", "wf", "awf", "af",
};

const LbParamSpec dls_chunk_params[] = {
    DLS_CHUNK_PARAM_ROWS,
    {NULL},
};

gboolean
dls_technique_parse(const char *name, DlsTechnique *out)
{
  for (guint t = 0; t < DLS_N_TECHNIQUES; t++)
    if (g_strcmp0(name, technique_names[t]) == 0) {
      *out = (DlsTechnique)t;
      return TRUE;
    }
  return FALSE;
}

const char *
dls_technique_name(DlsTechnique t)
{
  g_return_val_if_fail((guint)t < DLS_N_TECHNIQUES, NULL);
  return technique_names[t];
}

gboolean
dls_technique_by_worker(DlsTechnique t)
{
  return t == DLS_FRAC || t == DLS_WF || t == DLS_AWF || t == DLS_AF;
}

static gboolean
parse_weights(const char *text, guint workers, double **out, GError **error)
{
  g_auto(GStrv) parts = g_strsplit(text, ",", -1);
  guint n = g_strv_length(parts);
  g_autofree char *word = g_strstrip(g_strdup(text));
  if (n == 1 && *word != '\0' && !g_ascii_isdigit(*word) && strchr("+-.", *word) == NULL) {
    g_set_error(error, LB_PARAM_ERROR, LB_PARAM_ERROR_INVALID,
                "weights: '%s' is not speeds, measured or w0,w1,... (one per worker)", word);
    return FALSE;
  }
  if (n != workers) {
    g_set_error(error, LB_PARAM_ERROR, LB_PARAM_ERROR_INVALID,
                "weights: %u value%s for %u worker%s (give one per worker)", n, n == 1 ? "" : "s",
                workers, workers == 1 ? "" : "s");
    return FALSE;
  }
  g_autofree double *w = g_new(double, workers);
  for (guint i = 0; i < n; i++) {
    char *value = g_strstrip(parts[i]);
    char *end = NULL;
    errno = 0;
    w[i] = g_ascii_strtod(value, &end);
    if (*value == '\0' || *end != '\0' || errno != 0 || !isfinite(w[i]) || w[i] <= 0) {
      g_set_error(error, LB_PARAM_ERROR, LB_PARAM_ERROR_INVALID,
                  "weights: '%s' (worker %u) is not a positive number", value, i);
      return FALSE;
    }
  }
  *out = g_steal_pointer(&w);
  return TRUE;
}

DlsWeightsFrom
dls_weights_from(const LbParams *params)
{
  g_autofree char *text = g_strstrip(g_strdup(lb_params_get_string(params, "weights")));
  if (strcmp(text, "speeds") == 0)
    return DLS_WEIGHTS_SPEEDS;
  if (strcmp(text, "measured") == 0)
    return DLS_WEIGHTS_MEASURED;
  return DLS_WEIGHTS_GIVEN;
}

gboolean
dls_chunk_params_read(DlsChunkParams *p, const LbParams *params, guint workers,
                      const double *speeds, GError **error)
{
  memset(p, 0, sizeof *p);
  p->min_chunk = (guint64)lb_params_get_int(params, "min-chunk");
  p->fsc_h = lb_params_get_double(params, "fsc-h");
  p->fsc_sigma = lb_params_get_double(params, "fsc-sigma");
  p->first_chunk = (guint64)lb_params_get_int(params, "first-chunk");
  p->awf_update = strcmp(lb_params_get_string(params, "awf-update"), "chunk") == 0 ? DLS_AWF_CHUNK
                                                                                   : DLS_AWF_BATCH;
  p->af_estimate =
      strcmp(lb_params_get_string(params, "af-estimate"), "all") == 0 ? DLS_AF_ALL : DLS_AF_LATEST;
  p->weights_from = dls_weights_from(params);
  if (p->weights_from == DLS_WEIGHTS_GIVEN)
    return parse_weights(lb_params_get_string(params, "weights"), workers, &p->weights, error);
  if (p->weights_from == DLS_WEIGHTS_SPEEDS && speeds != NULL)
    p->weights = g_memdup2(speeds, workers * sizeof *speeds);
  return TRUE;
}

void
dls_chunk_params_clear(DlsChunkParams *p)
{
  g_clear_pointer(&p->weights, g_free);
}

guint64
dls_default_first_chunk(guint64 n, guint workers)
{
  double per = (double)n / workers;
  if (per < 3)
    return 1;
  guint64 f = (guint64)floor(0.55 + per * G_LN2 / log(per));
  return MAX(f / 2, 1);
}

/* What awf, af and measured wf keep of one worker's reports. */
typedef struct {
  double first_pi;   /* wf measured: time per iteration of its first report */
  guint count;       /* reports */
  double time;       /* sum of t */
  double iterations; /* sum of k */
  double late_time;  /* awf: sum of j t_j over its j-th report */
  double late_iterations;
  double squares; /* af: sum of the squares of its iterations' times */
  /* af: the iterations its mean and spread come from (af-estimate: all of
   * them, or those since it was last handed a chunk), their seconds and
   * the sum of their squares; and whether the next report starts anew */
  double af_time, af_iterations, af_squares;
  gboolean af_restart;
  double past_time;       /* awf: over earlier steps s, s x its seconds in step s */
  double past_iterations; /* and s x its iterations */
  /* af: what the worker adds to the chunker's sums (AfSums), kept so that
   * a new report takes off exactly what the last one added */
  double af_mu, af_inv, af_cv, af_var_over_mu, af_small_mu;
} Reports;

/* af: the sums over the workers that K_i needs, kept as reports come (a
 * request then costs O(1), not two passes over every worker): over the
 * measured workers (time > 0), mu_i and 1 / mu_i; over those of two
 * iterations or more, sigma_i / mu_i and sigma_i^2 / mu_i; over the other
 * measured ones, mu_i (their variance is the pooled coefficient of
 * variation's). */
typedef struct {
  double mu, inv, cv, var_over_mu, small_mu;
  guint measured, with_sigma;
} AfSums;

struct _DlsChunker {
  DlsTechnique technique;
  guint workers;
  guint64 n, min_chunk;
  guint64 remaining, front, count;
  double *weights;                   /* normalised to sum to workers */
  guint64 *block_first, *block_size; /* stat; a block's size is 0 once handed out */
  guint64 *tile_lo, *tile_hi;        /* frac: what each tile has left, [lo, hi) */
  guint64 fixed;                     /* fsc */
  guint64 tss_first, tss_delta;
  guint64 batch_r; /* R at the current batch's start */
  guint batch_left;
  Reports *reports;    /* awf, af: [workers] */
  AfSums af;           /* af: over the reports */
  guint reported;      /* workers with reports whose time is positive */
  guint batches;       /* fac, wf, awf, af: batches begun */
  guint64 first_chunk; /* awf, af, measured wf: before a worker's first report */
  DlsAwfUpdate awf_update;
  DlsAfEstimate af_estimate;
  gboolean measured; /* wf: weights from the first reports */
  guint step;        /* awf: the loop's time step, from 1 */
  /* how the last chunk's size came about, for dls_chunker_describe_last */
  struct {
    guint worker;
    guint64 r;         /* R when it was asked for */
    guint64 wanted;    /* the technique's size */
    double exact;      /* af's K_i, wf's and awf's w_i R_b / 2P, before ceil */
    guint64 batch_r;   /* batched: R_b */
    guint batch;       /* batched: which batch, from 1 */
    guint64 index;     /* tss: the chunk's index i */
    guint tile;        /* frac: the tile it was cut from */
    gboolean tile_cut; /* frac: cut to what its tile had left */
    gboolean adapted;  /* af: from the reports */
    gboolean probe;    /* awf, af, measured wf: the worker had not reported yet */
    guint64 size;      /* after min_chunk and R */
    guint64 cap;       /* dls_chunker_next_capped's cap when it cut, else 0 */
  } last;
};

/* ceil(x) for a size computed in doubles, where x within a relative 1e-9
 * of a whole number is that number: normalised weights of equal workers
 * are 1 only up to rounding, and wf must then give fac's chunks. */
static guint64
ceil_count(double x)
{
  if (!(x > 0))
    return 0;
  if (x >= DLS_MAX_ITERATIONS)
    return G_MAXUINT64;
  double r = round(x);
  if (r > 0 && fabs(x - r) <= 1e-9 * r)
    return (guint64)r;
  return (guint64)ceil(x);
}

static void
normalise(double *w, guint n)
{
  double sum = 0;
  for (guint i = 0; i < n; i++)
    sum += w[i];
  for (guint i = 0; i < n; i++)
    w[i] = w[i] * n / sum;
}

static void
init_stat(DlsChunker *c)
{
  guint64 p = c->workers, left = c->n;
  c->block_first = g_new(guint64, p);
  c->block_size = g_new(guint64, p);
  for (guint64 w = 0; w < p; w++) {
    guint64 size = c->n / p + (w < c->n % p);
    c->block_first[w] = c->n - left;
    c->block_size[w] = MIN(MAX(size, c->min_chunk), left);
    left -= c->block_size[w];
  }
}

/* frac's tiles: the data's blocks as the loop model lays them out. */
static void
init_tiles(DlsChunker *c)
{
  guint64 p = c->workers;
  c->tile_lo = g_new(guint64, p);
  c->tile_hi = g_new(guint64, p);
  for (guint64 w = 0; w < p; w++) {
    c->tile_lo[w] = w * (c->n / p) + MIN(w, c->n % p);
    c->tile_hi[w] = (w + 1) * (c->n / p) + MIN(w + 1, c->n % p);
  }
}

/* frac: the requester's own tile while it has iterations, then the one
 * with most left (the lowest on ties), as dls's master takes another
 * owner's data. */
static guint
pick_tile(const DlsChunker *c, guint worker)
{
  guint t = worker;
  if (c->tile_hi[t] == c->tile_lo[t])
    for (guint k = 0; k < c->workers; k++)
      if (c->tile_hi[k] - c->tile_lo[k] > c->tile_hi[t] - c->tile_lo[t])
        t = k;
  return t;
}

static guint64
fsc_size(guint64 n, guint workers, double h, double sigma)
{
  double num = G_SQRT2 * (double)n * h;
  double den = sigma * workers * sqrt(log(workers));
  if (num == 0)
    return 0;
  if (den == 0)
    return G_MAXUINT64;
  return ceil_count(pow(num / den, 2.0 / 3.0));
}

static void
init_tss(DlsChunker *c)
{
  guint64 p2 = 2 * (guint64)c->workers;
  c->tss_first = (c->n + p2 - 1) / p2;
  guint64 last = 1;
  guint64 steps = (2 * c->n + c->tss_first + last - 1) / (c->tss_first + last);
  c->tss_delta = steps > 1 && c->tss_first > last ? (c->tss_first - last) / (steps - 1) : 0;
}

DlsChunker *
dls_chunker_new(DlsTechnique t, guint64 n, guint workers, const DlsChunkParams *params)
{
  g_return_val_if_fail((guint)t < DLS_N_TECHNIQUES, NULL);
  g_return_val_if_fail(workers >= 1, NULL);
  g_return_val_if_fail((double)n <= DLS_MAX_ITERATIONS, NULL);
  g_return_val_if_fail(params != NULL, NULL);
  for (guint i = 0; params->weights != NULL && i < workers; i++)
    g_return_val_if_fail(params->weights[i] > 0 && isfinite(params->weights[i]), NULL);
  DlsChunker *c = g_new0(DlsChunker, 1);
  c->technique = t;
  c->workers = workers;
  c->n = c->remaining = n;
  c->min_chunk = MAX(params->min_chunk, 1);
  c->weights = g_new(double, workers);
  for (guint i = 0; i < workers; i++)
    c->weights[i] = params->weights != NULL ? params->weights[i] : 1.0;
  normalise(c->weights, workers);
  c->first_chunk =
      params->first_chunk > 0 ? params->first_chunk : dls_default_first_chunk(n, workers);
  c->awf_update = params->awf_update;
  c->af_estimate = params->af_estimate;
  c->measured = t == DLS_WF && params->weights_from == DLS_WEIGHTS_MEASURED;
  c->step = MAX(params->step, 1);
  switch (t) {
  case DLS_STAT:
    init_stat(c);
    break;
  case DLS_FSC:
    c->fixed = fsc_size(n, workers, params->fsc_h, params->fsc_sigma);
    break;
  case DLS_TSS:
    init_tss(c);
    break;
  case DLS_FRAC:
    init_tiles(c);
    break;
  case DLS_AWF:
  case DLS_AF:
    c->reports = g_new0(Reports, workers);
    break;
  case DLS_WF:
    if (c->measured)
      c->reports = g_new0(Reports, workers);
    break;
  default:
    break;
  }
  for (guint i = 0; t == DLS_AWF && params->past_time != NULL && i < workers; i++) {
    c->reports[i].past_time = MAX(params->past_time[i], 0);
    c->reports[i].past_iterations = MAX(params->past_iterations[i], 0);
    c->reported += c->reports[i].past_time > 0 && c->reports[i].past_iterations > 0;
  }
  return c;
}

void
dls_chunker_free(DlsChunker *c)
{
  if (c == NULL)
    return;
  g_free(c->weights);
  g_free(c->block_first);
  g_free(c->block_size);
  g_free(c->tile_lo);
  g_free(c->tile_hi);
  g_free(c->reports);
  g_free(c);
}

/* Whether a worker has a time to learn from: reports in this loop, or
 * (awf) in earlier steps. */
static gboolean
known(const Reports *r)
{
  return r->time > 0 || (r->past_time > 0 && r->past_iterations > 0);
}

/* A worker's time per iteration as awf weighs it (each report by its
 * rank, each earlier step by its number), or as measured wf takes it (its
 * first report). */
static double
reported_pi(const DlsChunker *c, const Reports *r)
{
  if (c->measured)
    return r->first_pi;
  if (!(r->past_time > 0 && r->past_iterations > 0))
    return r->late_time / r->late_iterations;
  double now = r->time > 0 ? r->iterations : 0;
  double pi_now = r->time > 0 ? r->late_time / r->late_iterations : 0;
  return (r->past_time + c->step * now * pi_now) / (r->past_iterations + c->step * now);
}

/* awf (at a batch's start, or a chunk's) and measured wf: the weights from
 * the reports so far. */
static void
awf_weights(DlsChunker *c)
{
  if (c->reported == 0)
    return;
  double measured = 0;
  for (guint i = 0; i < c->workers; i++)
    if (known(&c->reports[i]))
      measured += reported_pi(c, &c->reports[i]);
  double unmeasured = measured / c->reported;
  g_autofree double *pi = g_new(double, c->workers);
  double pibar = 0;
  for (guint i = 0; i < c->workers; i++) {
    const Reports *r = &c->reports[i];
    pi[i] = known(r) ? reported_pi(c, r) : unmeasured;
    pibar += pi[i];
  }
  pibar /= c->workers;
  for (guint i = 0; i < c->workers; i++)
    c->weights[i] = pibar / pi[i];
  normalise(c->weights, c->workers);
}

static double
af_mu(const Reports *r)
{
  return r->af_time / r->af_iterations;
}

/* The sample variance of a worker's iteration times, from their sum and
 * the sum of their squares (at least two iterations). */
static double
af_variance(const Reports *r)
{
  double v = (r->af_squares - r->af_time * r->af_time / r->af_iterations) / (r->af_iterations - 1);
  return MAX(v, 0);
}

/* af: a worker's report changed: its terms of the sums, anew. */
static void
af_account(DlsChunker *c, Reports *r)
{
  AfSums *a = &c->af;
  if (r->af_mu > 0) {
    a->mu -= r->af_mu;
    a->inv -= r->af_inv;
    a->measured--;
    if (r->af_small_mu > 0) {
      a->small_mu -= r->af_small_mu;
    } else {
      a->cv -= r->af_cv;
      a->var_over_mu -= r->af_var_over_mu;
      a->with_sigma--;
    }
  }
  r->af_mu = r->af_inv = r->af_cv = r->af_var_over_mu = r->af_small_mu = 0;
  if (r->af_time <= 0)
    return;
  double mu = af_mu(r);
  r->af_mu = mu;
  r->af_inv = 1 / mu;
  a->mu += r->af_mu;
  a->inv += r->af_inv;
  a->measured++;
  if (r->af_iterations >= 2) {
    double var = af_variance(r);
    r->af_cv = sqrt(var) / mu;
    r->af_var_over_mu = var / mu;
    a->cv += r->af_cv;
    a->var_over_mu += r->af_var_over_mu;
    a->with_sigma++;
  } else {
    r->af_small_mu = mu;
    a->small_mu += r->af_small_mu;
  }
}

/* af: K_i written as 2 T^2 R^2 / (mu_i (D + 2 T R + sqrt(D^2 + 4 D T R))),
 * equal to the published form (multiply it by its conjugate) without its
 * cancellation when D is much larger than T R. A worker not measured yet
 * counts with the pooled mean (over the measured workers) and the pooled
 * coefficient of variation (over those of two iterations or more): D adds
 * cv^2 mu for it, 1 / T adds 1 / mu. */
static double
af_size(const DlsChunker *c, guint worker)
{
  const AfSums *a = &c->af;
  if (a->measured == 0) /* only untimed iterations so far: equal workers */
    return (double)c->remaining / c->workers;
  double mu_pool = a->mu / a->measured;
  double cv_pool = a->with_sigma > 0 ? a->cv / a->with_sigma : 0;
  double unmeasured = (double)(c->workers - a->measured);
  double cv2 = cv_pool * cv_pool;
  double d = a->var_over_mu + cv2 * a->small_mu + unmeasured * cv2 * mu_pool;
  double inv_t = a->inv + unmeasured / mu_pool;
  const Reports *r = &c->reports[worker];
  double mu_i = r->af_time > 0 ? af_mu(r) : mu_pool;
  double tr = (double)c->remaining / inv_t;
  return 2 * tr * tr / (mu_i * (d + 2 * tr + sqrt(d * d + 4 * d * tr)));
}

/* The technique's size for this request, before min_chunk and R. */
static guint64
wanted(DlsChunker *c, guint worker)
{
  guint64 p = c->workers;
  c->last.index = c->count;
  c->last.adapted = FALSE;
  c->last.probe = FALSE;
  switch (c->technique) {
  case DLS_SS:
    return 1;
  case DLS_FSC:
    return c->fixed;
  case DLS_GSS:
    return (c->remaining + p - 1) / p;
  case DLS_TSS: {
    guint64 i = c->count;
    if (c->tss_delta == 0)
      return c->tss_first;
    return i <= (c->tss_first - 1) / c->tss_delta ? c->tss_first - i * c->tss_delta : 1;
  }
  case DLS_AF:
  case DLS_AWF:
  case DLS_WF:
    /* a worker that has not reported yet gets a small chunk to measure
     * with, as the DLB tool gives it its minimum chunk; probes stay out
     * of the batches */
    c->last.probe = c->reports != NULL && !known(&c->reports[worker]);
    if (c->last.probe)
      return c->first_chunk;
    if (c->technique == DLS_AF) {
      c->last.adapted = TRUE;
      c->last.exact = af_size(c, worker);
      return ceil_count(c->last.exact);
    }
    if (c->technique == DLS_AWF && c->awf_update == DLS_AWF_CHUNK) {
      awf_weights(c);
      c->last.batch_r = c->remaining;
      c->last.batch = 0;
      c->last.exact = c->weights[worker] * (double)c->remaining / (2.0 * p);
      return ceil_count(c->last.exact);
    }
    G_GNUC_FALLTHROUGH;
  case DLS_FAC:
  case DLS_FRAC:
    if (c->batch_left == 0) {
      c->batch_r = c->remaining;
      c->batch_left = c->workers;
      c->batches++;
      if (c->technique == DLS_AWF || c->measured)
        awf_weights(c);
    }
    c->batch_left--;
    c->last.batch_r = c->batch_r;
    c->last.batch = c->batches;
    if (c->technique == DLS_FAC || c->technique == DLS_FRAC)
      return (c->batch_r + 2 * p - 1) / (2 * p);
    c->last.exact = c->weights[worker] * (double)c->batch_r / (2.0 * p);
    return ceil_count(c->last.exact);
  case DLS_STAT:
    break;
  }
  g_assert_not_reached();
}

guint64
dls_chunker_next_at(DlsChunker *c, guint worker, guint64 *first)
{
  g_return_val_if_fail(worker < c->workers, 0);
  guint64 size = 0;
  c->last.worker = worker;
  c->last.r = c->remaining;
  c->last.cap = 0;
  c->last.wanted = c->last.size = 0;
  if (c->remaining == 0)
    return 0;
  if (c->technique == DLS_STAT) {
    size = c->block_size[worker];
    if (size == 0)
      return 0;
    c->block_size[worker] = 0;
    if (first != NULL)
      *first = c->block_first[worker];
  } else if (c->technique == DLS_FRAC) {
    size = wanted(c, worker);
    c->last.wanted = size;
    guint t = pick_tile(c, worker);
    guint64 left = c->tile_hi[t] - c->tile_lo[t];
    size = MIN(MAX(size, c->min_chunk), c->remaining);
    c->last.tile = t;
    c->last.tile_cut = size > left;
    size = MIN(size, left);
    if (t == worker) {
      if (first != NULL)
        *first = c->tile_lo[t];
      c->tile_lo[t] += size;
    } else {
      c->tile_hi[t] -= size;
      if (first != NULL)
        *first = c->tile_hi[t];
    }
  } else {
    size = wanted(c, worker); /* not inside MIN: it advances the batch */
    c->last.wanted = size;
    size = MIN(MAX(size, c->min_chunk), c->remaining);
    if (first != NULL)
      *first = c->front;
    c->front += size;
  }
  if (c->technique == DLS_STAT)
    c->last.wanted = size;
  c->last.size = size;
  c->remaining -= size;
  c->count++;
  /* af-estimate = latest: what the worker reports from now on is its
   * latest chunk's */
  if (c->technique == DLS_AF && c->af_estimate == DLS_AF_LATEST && size > 0)
    c->reports[worker].af_restart = TRUE;
  return size;
}

guint64
dls_chunker_next(DlsChunker *c, guint worker)
{
  return dls_chunker_next_at(c, worker, NULL);
}

guint64
dls_chunker_next_capped(DlsChunker *c, guint worker, guint64 cap)
{
  g_return_val_if_fail(cap >= 1, 0);
  guint64 first = 0, size = dls_chunker_next_at(c, worker, &first);
  if (size <= cap)
    return size;
  /* the rest goes back: R grows again, and front-of-loop placement (which
   * the caller does not use) would be off by it */
  c->remaining += size - cap;
  c->last.cap = cap;
  if (c->technique == DLS_STAT) {
    c->block_size[worker] = size - cap;
    c->block_first[worker] = first + cap;
  } else if (c->technique == DLS_FRAC && c->last.tile == worker) {
    c->tile_lo[worker] -= size - cap;
  } else if (c->technique == DLS_FRAC) {
    c->tile_hi[c->last.tile] += size - cap; /* it keeps the tile's back end */
  } else {
    c->front -= size - cap;
  }
  return cap;
}

void
dls_chunker_report_iterations(DlsChunker *c, guint worker, guint64 size, double seconds,
                              double squares)
{
  g_return_if_fail(worker < c->workers);
  g_return_if_fail(size >= 1 && seconds >= 0 && isfinite(seconds));
  g_return_if_fail(squares >= 0 && isfinite(squares));
  if (c->reports == NULL)
    return;
  Reports *r = &c->reports[worker];
  double k = (double)size;
  gboolean had_time = known(r);
  if (r->count == 0)
    r->first_pi = seconds / k;
  r->count++;
  r->time += seconds;
  r->iterations += k;
  r->squares += squares;
  if (r->af_restart) {
    r->af_time = r->af_iterations = r->af_squares = 0;
    r->af_restart = FALSE;
  }
  r->af_time += seconds;
  r->af_iterations += k;
  r->af_squares += squares;
  r->late_time += r->count * seconds;
  r->late_iterations += r->count * k;
  if (!had_time && known(r)) {
    c->reported++;
    r->first_pi = r->time / r->iterations; /* the first with a time */
  }
  if (c->technique == DLS_AF)
    af_account(c, r);
}

void
dls_chunker_report(DlsChunker *c, guint worker, guint64 size, double seconds)
{
  g_return_if_fail(size >= 1);
  dls_chunker_report_iterations(c, worker, size, seconds, seconds * seconds / (double)size);
}

gboolean
dls_chunker_measured(const DlsChunker *c, guint worker, double *seconds, double *iterations)
{
  g_return_val_if_fail(worker < c->workers, FALSE);
  if (c->reports == NULL || c->reports[worker].count == 0)
    return FALSE;
  *seconds = c->reports[worker].time;
  *iterations = c->reports[worker].iterations;
  return TRUE;
}

guint64
dls_chunker_remaining(const DlsChunker *c)
{
  return c->remaining;
}

guint64
dls_chunker_count(const DlsChunker *c)
{
  return c->count;
}

const double *
dls_chunker_weights(const DlsChunker *c)
{
  return c->weights;
}

char *
dls_chunker_describe_last(const DlsChunker *c)
{
  GString *out = g_string_new(technique_names[c->technique]);
  guint64 p = c->workers, r = c->last.r;
  if (c->last.size == 0) {
    g_string_append(out, r == 0 ? ": nothing is left" : ": this worker's block went out already");
    return g_string_free(out, FALSE);
  }
  switch (c->technique) {
  case DLS_STAT:
    g_string_append_printf(out, ": worker %u's block", c->last.worker);
    break;
  case DLS_SS:
    g_string_append(out, ": 1");
    break;
  case DLS_FSC:
    g_string_append_printf(out, ": the fixed size %" G_GUINT64_FORMAT, c->last.wanted);
    break;
  case DLS_GSS:
    g_string_append_printf(out,
                           ": ceil(R / P) = ceil(%" G_GUINT64_FORMAT " / %" G_GUINT64_FORMAT
                           ") = %" G_GUINT64_FORMAT,
                           r, p, c->last.wanted);
    break;
  case DLS_TSS:
    g_string_append_printf(out,
                           ": chunk i = %" G_GUINT64_FORMAT
                           ", max(1, F - i delta), F = %" G_GUINT64_FORMAT
                           ", delta = %" G_GUINT64_FORMAT ": %" G_GUINT64_FORMAT,
                           c->last.index, c->tss_first, c->tss_delta, c->last.wanted);
    break;
  case DLS_FAC:
  case DLS_FRAC:
    g_string_append_printf(out,
                           ", batch %u, R_b = %" G_GUINT64_FORMAT
                           ": ceil(R_b / 2P) = ceil(%" G_GUINT64_FORMAT " / %" G_GUINT64_FORMAT
                           ") = %" G_GUINT64_FORMAT,
                           c->last.batch, c->last.batch_r, c->last.batch_r, 2 * p, c->last.wanted);
    if (c->technique == DLS_FRAC && c->last.tile == c->last.worker)
      g_string_append_printf(out, ", from the front of its own tile");
    else if (c->technique == DLS_FRAC)
      g_string_append_printf(out,
                             ", from the back of tile %u, the one with most left (its own is done)",
                             c->last.tile);
    break;
  case DLS_AF:
  case DLS_WF:
  case DLS_AWF:
    if (c->last.probe) {
      g_string_append_printf(out,
                             ": worker %u has reported no time yet: first-chunk %" G_GUINT64_FORMAT,
                             c->last.worker, c->last.wanted);
      break;
    }
    if (c->technique == DLS_AF) {
      g_string_append_printf(
          out, ": K_%u = %.3f from the reports, R = %" G_GUINT64_FORMAT ": %" G_GUINT64_FORMAT,
          c->last.worker, c->last.exact, r, c->last.wanted);
      break;
    }
    if (c->last.batch == 0) {
      g_string_append_printf(out,
                             ", per chunk, R = %" G_GUINT64_FORMAT
                             ": ceil(w_%u R / 2P) = ceil(%.3f) = %" G_GUINT64_FORMAT,
                             r, c->last.worker, c->last.exact, c->last.wanted);
      break;
    }
    g_string_append_printf(out,
                           ", batch %u, R_b = %" G_GUINT64_FORMAT
                           ": ceil(w_%u R_b / 2P) = ceil(%.3f) = %" G_GUINT64_FORMAT,
                           c->last.batch, c->last.batch_r, c->last.worker, c->last.exact,
                           c->last.wanted);
    break;
  }
  guint64 raised = MAX(c->last.wanted, c->min_chunk);
  if (raised > c->last.wanted)
    g_string_append_printf(out, ", raised to min-chunk %" G_GUINT64_FORMAT, c->min_chunk);
  if (c->last.tile_cut)
    g_string_append_printf(out, ", cut to the %" G_GUINT64_FORMAT " its tile has left",
                           c->last.size);
  else if (c->last.size < raised)
    g_string_append_printf(out, ", cut to the %" G_GUINT64_FORMAT " left (R)", c->last.size);
  if (c->last.cap > 0)
    g_string_append_printf(out, ", cut to %" G_GUINT64_FORMAT ", all its source has left",
                           c->last.cap);
  return g_string_free(out, FALSE);
}
