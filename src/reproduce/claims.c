/* claims.ini: a paper's experiment and claims as data, read strictly
 * (every error names the file and the group), and the rules that judge
 * lbsim's numbers against the paper's. */
#include "reproduce/claims.h"

#include <math.h>
#include <string.h>

#include "io/datadir.h"
#include "io/input.h"
#include "lbsim/params.h"

/* ---- the rules ---- */

static const char *const rule_usage =
    "same-sign, within-2x, at-most X, at-least X, range LO HI, exactly X, spans LO HI, or every "
    "followed by one of the first six";

gboolean
lb_rule_parse(const char *text, LbRule *rule, GError **error)
{
  g_auto(GStrv) words = g_strsplit_set(text, " \t", -1);
  g_autoptr(GPtrArray) w = g_ptr_array_new();
  for (guint i = 0; words[i] != NULL; i++)
    if (*words[i] != '\0')
      g_ptr_array_add(w, words[i]);
  *rule = (LbRule){0};
  guint at = 0;
  if (w->len > 0 && strcmp(w->pdata[0], "every") == 0) {
    rule->every = TRUE;
    at = 1;
  }
  guint n = w->len - at;
  const char *name = n > 0 ? w->pdata[at] : "";
  const char *a = n > 1 ? w->pdata[at + 1] : NULL, *b = n > 2 ? w->pdata[at + 2] : NULL;
  gboolean ok = FALSE;
  if (n == 1 && strcmp(name, "same-sign") == 0) {
    rule->kind = LB_RULE_SAME_SIGN;
    ok = TRUE;
  } else if (n == 1 && strcmp(name, "within-2x") == 0) {
    rule->kind = LB_RULE_WITHIN_2X;
    ok = TRUE;
  } else if (n == 2 && strcmp(name, "at-most") == 0) {
    rule->kind = LB_RULE_AT_MOST;
    ok = lb_parse_decimal(a, &rule->hi);
  } else if (n == 2 && strcmp(name, "at-least") == 0) {
    rule->kind = LB_RULE_AT_LEAST;
    ok = lb_parse_decimal(a, &rule->lo);
  } else if (n == 2 && strcmp(name, "exactly") == 0) {
    rule->kind = LB_RULE_EXACTLY;
    ok = lb_parse_decimal(a, &rule->lo);
    rule->hi = rule->lo;
  } else if (n == 3 && (strcmp(name, "range") == 0 || strcmp(name, "spans") == 0)) {
    rule->kind = strcmp(name, "range") == 0 ? LB_RULE_RANGE : LB_RULE_SPANS;
    ok = lb_parse_decimal(a, &rule->lo) && lb_parse_decimal(b, &rule->hi) && rule->lo <= rule->hi;
    /* a family's ends are numbers the paper reports: positive, or 0 */
    ok = ok && (rule->kind == LB_RULE_RANGE || (rule->lo >= 0 && rule->hi > 0));
  }
  if (ok && rule->every && rule->kind == LB_RULE_SPANS)
    ok = FALSE;
  if (!ok) {
    g_set_error(error, G_KEY_FILE_ERROR, G_KEY_FILE_ERROR_INVALID_VALUE, "'%s' is not %s", text,
                rule_usage);
    return FALSE;
  }
  return TRUE;
}

static gboolean
within_2x(double paper, double x)
{
  if (paper == 0 || !isfinite(x))
    return FALSE;
  double r = x / paper;
  return r >= 0.5 && r <= 2;
}

gboolean
lb_rule_holds(const LbRule *rule, double paper, double x)
{
  if (isnan(x))
    return FALSE;
  switch (rule->kind) {
  case LB_RULE_SAME_SIGN:
    return (x > 0 && paper > 0) || (x < 0 && paper < 0) || (x == 0 && paper == 0);
  case LB_RULE_WITHIN_2X:
    return within_2x(paper, x);
  case LB_RULE_AT_MOST:
    return x <= rule->hi;
  case LB_RULE_AT_LEAST:
    return x >= rule->lo;
  case LB_RULE_RANGE:
    return x >= rule->lo && x <= rule->hi;
  case LB_RULE_EXACTLY:
    return fabs(x - rule->lo) <= 1e-9 * MAX(1.0, fabs(rule->lo));
  case LB_RULE_SPANS:
    return FALSE; /* a family's rule, never a point's */
  }
  return FALSE;
}

/* How far a point is from holding the rule (<= 0: it holds), so that
 * every's number is its worst point. */
static double
badness(const LbRule *rule, double paper, double x)
{
  if (isnan(x))
    return INFINITY;
  switch (rule->kind) {
  case LB_RULE_SAME_SIGN:
    return paper > 0 ? -x : paper < 0 ? x : fabs(x);
  case LB_RULE_WITHIN_2X:
    return paper == 0 || x / paper <= 0 ? INFINITY : fabs(log2(x / paper)) - 1;
  case LB_RULE_AT_MOST:
    return x - rule->hi;
  case LB_RULE_AT_LEAST:
    return rule->lo - x;
  case LB_RULE_RANGE:
    return MAX(rule->lo - x, x - rule->hi) / MAX(rule->hi - rule->lo, 1e-300);
  case LB_RULE_EXACTLY:
    return fabs(x - rule->lo);
  case LB_RULE_SPANS:
    break;
  }
  return 0;
}

/* A family's end the paper gives as 0 is read off its figure: a value
 * within 2 % of the other end's is on the zero line at the figure's
 * scale. */
static gboolean
end_matches(double paper_end, double x, double other_end)
{
  if (paper_end == 0)
    return fabs(x) <= 0.02 * other_end;
  return within_2x(paper_end, x);
}

gboolean
lb_rule_judge(const LbRule *rule, double paper, const double *values, guint n, double *shown,
              guint *at)
{
  *at = 0;
  *shown = n > 0 ? values[0] : NAN;
  if (n == 0)
    return FALSE;
  if (rule->kind == LB_RULE_SPANS) {
    guint lo = 0, hi = 0;
    for (guint i = 1; i < n; i++) {
      if (values[i] < values[lo])
        lo = i;
      if (values[i] > values[hi])
        hi = i;
    }
    *shown = values[hi];
    *at = hi;
    return n >= 2 && end_matches(rule->lo, values[lo], rule->hi) &&
           end_matches(rule->hi, values[hi], rule->hi);
  }
  if (!rule->every)
    return lb_rule_holds(rule, paper, values[0]);
  gboolean all = TRUE;
  double worst = -INFINITY;
  for (guint i = 0; i < n; i++) {
    all &= lb_rule_holds(rule, paper, values[i]);
    double b = badness(rule, paper, values[i]);
    if (b > worst) {
      worst = b;
      *at = i;
      *shown = values[i];
    }
  }
  return all;
}

/* ---- claims.ini ---- */

static void
run_free(gpointer data)
{
  LbPaperRun *r = data;
  g_free(r->name);
  g_free(r->scenario);
  g_free(r->ranks);
  g_free(r->quick_ranks);
  g_free(r->vary);
  g_free(r->quick_vary);
  g_free(r->platform);
  if (r->results != NULL)
    for (guint i = 0; i < r->sweep->runs->len; i++)
      lb_run_result_free(r->results[i]);
  g_free(r->results);
  lb_sweep_free(r->sweep);
  g_free(r);
}

static void
point_clear(gpointer data)
{
  g_free(((LbClaimPoint *)data)->label);
}

static void
claim_free(gpointer data)
{
  LbClaim *c = data;
  g_free(c->id);
  g_free(c->text);
  g_free(c->words);
  g_free(c->unit);
  g_free(c->rule_text);
  g_free(c->figure);
  g_free(c->measure_text);
  g_strfreev(c->runs);
  g_clear_pointer(&c->ranks, g_array_unref);
  g_free(c->metric);
  g_strfreev(c->labels);
  g_strfreev(c->args);
  g_free(c->known_reason);
  g_free(c->known_deep_reason);
  g_free(c->calibrated);
  g_clear_pointer(&c->points, g_array_unref);
  g_free(c->note);
  g_free(c->detail);
  g_free(c);
}

static void
calibration_free(gpointer data)
{
  LbCalibration *k = data;
  g_free(k->key);
  g_free(k->value);
  g_free(k->source);
  g_free(k);
}

void
lb_paper_free(LbPaper *p)
{
  if (p == NULL)
    return;
  g_free(p->key);
  g_free(p->dir);
  g_free(p->cite);
  g_free(p->summary);
  g_clear_pointer(&p->runs, g_ptr_array_unref);
  g_clear_pointer(&p->claims, g_ptr_array_unref);
  g_clear_pointer(&p->calibration, g_ptr_array_unref);
  g_free(p->deep_summary);
  g_strfreev(p->deep_runs);
  g_strfreev(p->deep_sets);
  g_strfreev(p->only);
  g_free(p);
}

const char *
lb_papers_dir(void)
{
  const char *env = g_getenv("LBSIM_PAPERS_DIR");
  if (env != NULL)
    return env;
  static char *dir;
  if (dir == NULL) {
    dir = lb_data_file("scenarios", "papers", NULL);
    if (dir == NULL)
      dir = g_strdup("scenarios/papers");
  }
  return dir;
}

static int
compare_names(gconstpointer a, gconstpointer b)
{
  return strcmp(*(char *const *)a, *(char *const *)b);
}

GPtrArray *
lb_paper_keys(void)
{
  g_autoptr(GDir) dir = g_dir_open(lb_papers_dir(), 0, NULL);
  GPtrArray *keys = g_ptr_array_new_with_free_func(g_free);
  for (const char *name; dir != NULL && (name = g_dir_read_name(dir)) != NULL;) {
    g_autofree char *claims = g_build_filename(lb_papers_dir(), name, "claims.ini", NULL);
    if (g_file_test(claims, G_FILE_TEST_IS_REGULAR))
      g_ptr_array_add(keys, g_strdup(name));
  }
  g_ptr_array_sort(keys, compare_names);
  return keys;
}

static gboolean G_GNUC_PRINTF(4, 5)
    bad(GError **error, const char *file, const char *group, const char *format, ...)
{
  va_list args;
  va_start(args, format);
  g_autofree char *what = g_strdup_vprintf(format, args);
  va_end(args);
  g_set_error(error, G_KEY_FILE_ERROR, G_KEY_FILE_ERROR_INVALID_VALUE, "%s: [%s] %s", file, group,
              what);
  return FALSE;
}

/* Every key of a group is one it knows. */
static gboolean
only_keys(GKeyFile *kf, const char *file, const char *group, const char *const *known,
          GError **error)
{
  g_auto(GStrv) keys = g_key_file_get_keys(kf, group, NULL, NULL);
  for (guint i = 0; keys != NULL && keys[i] != NULL; i++)
    if (!g_strv_contains(known, keys[i]))
      return bad(error, file, group, "%s: unknown key", keys[i]);
  return TRUE;
}

static char *
needed(GKeyFile *kf, const char *file, const char *group, const char *key, GError **error)
{
  char *v = g_key_file_get_string(kf, group, key, NULL);
  if (v == NULL || *g_strstrip(v) == '\0') {
    g_free(v);
    bad(error, file, group, "%s: missing", key);
    return NULL;
  }
  return v;
}

static char *
optional(GKeyFile *kf, const char *group, const char *key)
{
  char *v = g_key_file_get_string(kf, group, key, NULL);
  if (v != NULL && *g_strstrip(v) == '\0')
    g_clear_pointer(&v, g_free);
  return v;
}

/* A run's more axes: "NAME=LIST; NAME=LIST" (a sweep's --vary each). */
static gboolean
axes(const char *file, const char *group, const char *key, const char *text, GError **error)
{
  g_auto(GStrv) items = g_strsplit(text, ";", -1);
  for (guint i = 0; items[i] != NULL; i++) {
    const char *item = g_strstrip(items[i]);
    if (strchr(item, '=') == NULL)
      return bad(error, file, group, "%s: '%s' is not NAME=LIST", key, item);
    g_autofree char *name = g_strstrip(g_strndup(item, strcspn(item, "=")));
    if (strcmp(name, "ranks") == 0)
      return bad(error, file, group, "%s: the ranks are the run's ranks and quick-ranks", key);
  }
  return TRUE;
}

/* "8, 16, 32": whole numbers from 1, none twice. */
static GArray *
rank_list(const char *text, GError **error)
{
  GArray *out = g_array_new(FALSE, FALSE, sizeof(guint));
  g_auto(GStrv) items = g_strsplit(text, ",", -1);
  for (guint i = 0; items[i] != NULL; i++) {
    guint64 n = 0;
    const char *item = g_strstrip(items[i]);
    gboolean seen = FALSE;
    if (g_ascii_string_to_unsigned(item, 10, 1, G_MAXUINT32, &n, NULL))
      for (guint k = 0; k < out->len; k++)
        seen |= g_array_index(out, guint, k) == n;
    if (n == 0 || seen) {
      g_array_unref(out);
      g_set_error(error, G_KEY_FILE_ERROR, G_KEY_FILE_ERROR_INVALID_VALUE,
                  "'%s' is not a list of processor counts (whole numbers from 1, none twice)",
                  text);
      return NULL;
    }
    guint p = (guint)n;
    g_array_append_val(out, p);
  }
  return out;
}

GArray *
lb_paper_run_ranks(const LbPaperRun *run, gboolean quick)
{
  GArray *ranks = rank_list(quick ? run->quick_ranks : run->ranks, NULL);
  g_assert(ranks != NULL); /* checked when read */
  return ranks;
}

static gboolean
read_run(GKeyFile *kf, LbPaper *p, const char *file, const char *group, GError **error)
{
  static const char *const keys[] = {"scenario", "ranks",      "quick-ranks", "quick-steps",
                                     "vary",     "quick-vary", "platform",    NULL};
  if (!only_keys(kf, file, group, keys, error))
    return FALSE;
  LbPaperRun *r = g_new0(LbPaperRun, 1);
  g_ptr_array_add(p->runs, r);
  r->name = g_strdup(group + strlen("run:"));
  g_autofree char *scenario = needed(kf, file, group, "scenario", error);
  if (scenario == NULL || (r->ranks = needed(kf, file, group, "ranks", error)) == NULL ||
      (r->quick_ranks = needed(kf, file, group, "quick-ranks", error)) == NULL)
    return FALSE;
  g_autoptr(GError) local = NULL;
  g_autoptr(GArray) full = rank_list(r->ranks, &local);
  if (full == NULL)
    return bad(error, file, group, "ranks: %s", local->message);
  g_autoptr(GArray) quick = rank_list(r->quick_ranks, &local);
  if (quick == NULL)
    return bad(error, file, group, "quick-ranks: %s", local->message);
  for (guint i = 0; i < quick->len; i++) {
    gboolean in_full = FALSE;
    for (guint k = 0; k < full->len; k++)
      in_full |= g_array_index(full, guint, k) == g_array_index(quick, guint, i);
    if (!in_full)
      return bad(error, file, group, "quick-ranks: %u is not one of ranks",
                 g_array_index(quick, guint, i));
  }
  r->scenario =
      g_path_is_absolute(scenario) ? g_strdup(scenario) : g_build_filename(p->dir, scenario, NULL);
  if (g_key_file_has_key(kf, group, "quick-steps", NULL)) {
    g_autofree char *steps = needed(kf, file, group, "quick-steps", error);
    guint64 n = 0;
    if (steps == NULL)
      return FALSE;
    if (!g_ascii_string_to_unsigned(steps, 10, 1, 100000, &n, NULL))
      return bad(error, file, group, "quick-steps: '%s' is not a whole number from 1", steps);
    r->quick_steps = (guint)n;
  }
  if (g_key_file_has_key(kf, group, "vary", NULL) &&
      ((r->vary = needed(kf, file, group, "vary", error)) == NULL ||
       !axes(file, group, "vary", r->vary, error)))
    return FALSE;
  if (g_key_file_has_key(kf, group, "quick-vary", NULL) &&
      ((r->quick_vary = needed(kf, file, group, "quick-vary", error)) == NULL ||
       !axes(file, group, "quick-vary", r->quick_vary, error)))
    return FALSE;
  if (r->quick_vary != NULL && r->vary == NULL)
    return bad(error, file, group, "quick-vary: no vary for it to reduce");
  if (r->vary != NULL && r->quick_vary == NULL)
    r->quick_vary = g_strdup(r->vary);
  g_autofree char *platform = NULL;
  if (g_key_file_has_key(kf, group, "platform", NULL) &&
      (platform = needed(kf, file, group, "platform", error)) == NULL)
    return FALSE;
  if (platform != NULL && g_path_is_absolute(platform)) {
    r->platform = g_steal_pointer(&platform);
  } else if (platform != NULL) {
    /* in the paper's folder if it holds the file at the first rank count,
     * else in platforms/ */
    g_autofree char *first = g_strdup_printf("%u", g_array_index(full, guint, 0));
    g_auto(GStrv) parts = g_strsplit(platform, "{ranks}", -1);
    g_autofree char *example = g_strjoinv(first, parts);
    g_autofree char *own = g_build_filename(p->dir, example, NULL);
    r->platform = g_build_filename(
        g_file_test(own, G_FILE_TEST_IS_REGULAR) ? p->dir : lb_platform_dir(), platform, NULL);
  }
  return TRUE;
}

const LbPaperRun *
lb_paper_run(const LbPaper *p, const char *name)
{
  for (guint i = 0; i < p->runs->len; i++)
    if (strcmp(((LbPaperRun *)p->runs->pdata[i])->name, name) == 0)
      return p->runs->pdata[i];
  return NULL;
}

static gboolean
read_check(LbClaim *c, const LbPaper *p, const char *file, const char *group, GPtrArray *words,
           GError **error)
{
  c->measure = LB_MEASURE_CHECK;
  if (words->len < 2 || (c->check = lb_repro_check_lookup(words->pdata[1])) == NULL) {
    g_autofree char *names = lb_repro_check_names();
    return bad(error, file, group, "measure: '%s' is not a check (%s)",
               words->len < 2 ? "" : (char *)words->pdata[1], names);
  }
  guint nargs = words->len - 2;
  if (nargs < c->check->min_args || nargs > c->check->max_args)
    return bad(error, file, group, "measure: check %s takes %s", c->check->name, c->check->usage);
  c->args = g_new0(char *, nargs + 1);
  for (guint i = 0; i < nargs; i++)
    c->args[i] = g_strdup(words->pdata[i + 2]);
  if (c->check->needs_run && c->runs == NULL)
    return bad(error, file, group, "run: missing (check %s reads a run's results)", c->check->name);
  if (!c->check->needs_run && c->runs != NULL)
    return bad(error, file, group, "run: check %s reads no run", c->check->name);
  g_autoptr(GError) local = NULL;
  if (c->check->validate != NULL &&
      !c->check->validate((const char *const *)c->args, nargs, p->dir, &local))
    return bad(error, file, group, "measure: %s", local->message);
  return TRUE;
}

/* measure = value B M | improvement M A B | excess M A B | ratio M A B |
 * share M A B | gap M A B C | relative M A B ... | above M A B ... |
 * order M A B ... |
 * check NAME ARGS */
static gboolean
read_measure(LbClaim *c, const LbPaper *p, const char *file, const char *group, const char *measure,
             GError **error)
{
  g_auto(GStrv) m = g_strsplit_set(measure, " \t", -1);
  g_autoptr(GPtrArray) words = g_ptr_array_new();
  for (guint i = 0; m[i] != NULL; i++)
    if (*m[i] != '\0')
      g_ptr_array_add(words, m[i]);
  g_ptr_array_add(words, NULL);
  c->measure_text = g_strjoinv(" ", (char **)words->pdata);
  g_ptr_array_set_size(words, words->len - 1);
  const char *kind = words->len > 0 ? words->pdata[0] : "";
  if (strcmp(kind, "check") == 0)
    return read_check(c, p, file, group, words, error);
  static const struct {
    const char *name;
    LbMeasure measure;
    guint labels; /* 0: two or more */
  } kinds[] = {
      {"improvement", LB_MEASURE_IMPROVEMENT, 2},
      {"excess", LB_MEASURE_EXCESS, 2},
      {"ratio", LB_MEASURE_RATIO, 2},
      {"share", LB_MEASURE_SHARE, 2},
      {"gap", LB_MEASURE_GAP, 3},
      {"relative", LB_MEASURE_RELATIVE, 0},
      {"above", LB_MEASURE_ABOVE, 0},
      {"order", LB_MEASURE_ORDER, 0},
  };
  if (strcmp(kind, "value") == 0 && words->len == 3) {
    c->measure = LB_MEASURE_VALUE;
    c->metric = g_strdup(words->pdata[2]);
    c->labels = g_new0(char *, 2);
    c->labels[0] = g_strdup(words->pdata[1]);
    return TRUE;
  }
  for (guint k = 0; k < G_N_ELEMENTS(kinds); k++) {
    if (strcmp(kind, kinds[k].name) != 0)
      continue;
    guint n = words->len - 2;
    if (words->len < 2 || (kinds[k].labels > 0 ? n != kinds[k].labels : n < 2))
      break;
    c->measure = kinds[k].measure;
    c->metric = g_strdup(words->pdata[1]);
    c->labels = g_new0(char *, n + 1);
    for (guint i = 0; i < n; i++)
      c->labels[i] = g_strdup(words->pdata[i + 2]);
    return TRUE;
  }
  return bad(
      error, file, group,
      "measure: '%s' is not 'value BALANCER METRIC', 'improvement METRIC A B', 'excess "
      "METRIC A B', 'ratio METRIC A B', 'share METRIC A B', 'gap METRIC A B C', 'relative "
      "METRIC A B C ...', 'above METRIC A B C ...', 'order METRIC A B ...' or 'check NAME ARGS "
      "...'",
      measure);
}

/* known = full|quick|both: REASON */
static gboolean
read_known(LbClaim *c, const char *text, const char *file, const char *group, GError **error)
{
  static const struct {
    const char *word;
    LbForm form;
  } forms[] = {{"full", LB_FORM_FULL}, {"quick", LB_FORM_QUICK}, {"both", LB_FORM_BOTH}};
  const char *colon = strchr(text, ':');
  g_autofree char *word = g_strstrip(g_strndup(text, colon != NULL ? colon - text : 0));
  for (guint i = 0; colon != NULL && i < G_N_ELEMENTS(forms); i++) {
    if (strcmp(word, forms[i].word) != 0)
      continue;
    c->known = forms[i].form;
    c->known_reason = g_strstrip(g_strdup(colon + 1));
    if (*c->known_reason == '\0')
      break;
    return TRUE;
  }
  return bad(error, file, group,
             "known: '%s' is not 'full: REASON', 'quick: REASON' or 'both: REASON' (the forms in "
             "which the claim disagrees, and why)",
             text);
}

static gboolean
read_claim(GKeyFile *kf, LbPaper *p, const char *file, const char *group, gboolean diagnostic,
           GError **error)
{
  static const char *const claim_keys[] = {
      "claim", "words",  "run",   "ranks",      "measure",    "paper",    "unit", "rule",
      "note",  "figure", "known", "known-deep", "calibrated", "headline", NULL};
  static const char *const diagnostic_keys[] = {"what", "run", "ranks", "measure", "unit", NULL};
  if (!only_keys(kf, file, group, diagnostic ? diagnostic_keys : claim_keys, error))
    return FALSE;
  LbClaim *c = g_new0(LbClaim, 1);
  g_ptr_array_add(p->claims, c);
  c->diagnostic = diagnostic;
  c->id = g_strdup(strchr(group, ':') + 1);
  c->ranks = g_array_new(FALSE, FALSE, sizeof(guint));
  c->points = g_array_new(FALSE, FALSE, sizeof(LbClaimPoint));
  g_array_set_clear_func(c->points, point_clear);
  for (guint i = 0; i + 1 < p->claims->len; i++)
    if (strcmp(((LbClaim *)p->claims->pdata[i])->id, c->id) == 0)
      return bad(error, file, group, "the id of another claim or diagnostic");
  g_autofree char *measure = NULL, *paper = NULL, *run = NULL, *ranks = NULL;
  if ((c->text = needed(kf, file, group, diagnostic ? "what" : "claim", error)) == NULL ||
      (measure = needed(kf, file, group, "measure", error)) == NULL)
    return FALSE;
  run = optional(kf, group, "run");
  ranks = optional(kf, group, "ranks");
  if (run != NULL) {
    c->runs = g_strsplit(run, ",", -1);
    for (guint i = 0; c->runs[i] != NULL; i++)
      if (lb_paper_run(p, g_strstrip(c->runs[i])) == NULL)
        return bad(error, file, group, "run: no [run:%s] before it", c->runs[i]);
  }
  if (!read_measure(c, p, file, group, measure, error))
    return FALSE;
  gboolean check = c->measure == LB_MEASURE_CHECK;
  if (!check && run == NULL)
    return bad(error, file, group, "run: missing");
  if (!check && ranks == NULL)
    return bad(error, file, group, "ranks: missing");
  if (ranks != NULL && run == NULL)
    return bad(error, file, group, "ranks: the claim reads no run");
  g_autoptr(GError) local = NULL;
  if (ranks != NULL) {
    g_array_unref(c->ranks);
    if ((c->ranks = rank_list(ranks, &local)) == NULL)
      return bad(error, file, group, "ranks: %s", local->message);
    /* every count it names is one its runs have */
    for (guint k = 0; c->runs[k] != NULL; k++) {
      const LbPaperRun *r = lb_paper_run(p, c->runs[k]);
      g_autoptr(GArray) has = lb_paper_run_ranks(r, FALSE);
      for (guint i = 0; i < c->ranks->len; i++) {
        guint want = g_array_index(c->ranks, guint, i);
        gboolean found = FALSE;
        for (guint j = 0; j < has->len; j++)
          found |= g_array_index(has, guint, j) == want;
        if (!found)
          return bad(error, file, group,
                     "ranks: [run:%s] does not run %u processors (its ranks: "
                     "%s)",
                     r->name, want, r->ranks);
      }
    }
  }
  c->unit = optional(kf, group, "unit");
  if (c->unit == NULL)
    c->unit = g_strdup("");
  if (diagnostic)
    return TRUE;

  c->words = optional(kf, group, "words");
  c->figure = optional(kf, group, "figure");
  if ((paper = needed(kf, file, group, "paper", error)) == NULL ||
      (c->rule_text = needed(kf, file, group, "rule", error)) == NULL)
    return FALSE;
  if (!lb_parse_decimal(paper, &c->paper))
    return bad(error, file, group, "paper: '%s' is not a number", paper);
  if (!lb_rule_parse(c->rule_text, &c->rule, &local))
    return bad(error, file, group, "rule: %s", local->message);
  if (c->rule.kind == LB_RULE_WITHIN_2X && c->paper == 0)
    return bad(error, file, group,
               "rule: within-2x of 0 holds nothing: give the paper's bound as "
               "a range");
  if (!g_key_file_has_key(kf, group, "headline", NULL))
    return bad(error, file, group,
               "headline: missing (true when the paper's abstract, conclusions, a table or a "
               "figure states the claim, else false)");
  c->headline = g_key_file_get_boolean(kf, group, "headline", &local);
  if (local != NULL)
    return bad(error, file, group, "headline: true or false");
  if (c->headline && c->words == NULL)
    return bad(error, file, group, "words: missing (a headline claim quotes the paper)");
  g_autofree char *known = optional(kf, group, "known");
  if (known != NULL && !read_known(c, known, file, group, error))
    return FALSE;
  c->known_deep_reason = optional(kf, group, "known-deep");
  if (c->known_deep_reason != NULL && *g_strstrip(c->known_deep_reason) == '\0')
    return bad(error, file, group, "known-deep: empty (why the claim disagrees in the deep form)");
  c->calibrated = optional(kf, group, "calibrated");
  /* several points (runs x ranks, or a check's) need a rule of a family */
  guint npoints = check ? 0 : g_strv_length(c->runs) * c->ranks->len;
  if (npoints > 1 && !c->rule.every && c->rule.kind != LB_RULE_SPANS)
    return bad(error, file, group,
               "rule: the claim has %u points (runs x ranks): 'every RULE' or 'spans LO HI'",
               npoints);
  if (npoints == 1 && (c->rule.every || c->rule.kind == LB_RULE_SPANS))
    return bad(error, file, group, "rule: '%s' judges several points; the claim has one",
               c->rule_text);
  /* a figure draws a claim's numbers against the processors: one at one
   * count, or a measure's points (runs x ranks), not a check's own */
  gboolean family = c->rule.every || c->rule.kind == LB_RULE_SPANS;
  if (c->figure != NULL && (family ? check : c->ranks->len != 1))
    return bad(error, file, group,
               "figure: a figure draws a claim of one number at one processor count, or the "
               "points of a measure (runs x ranks), not a check's");
  return TRUE;
}

/* [deep]: summary, runs (names of [run:NAME] groups) and set (GROUP.KEY=VALUE
 * settings separated by ';', each as --set takes it). */
static gboolean
read_deep(GKeyFile *kf, LbPaper *p, const char *file, GError **error)
{
  static const char *const keys[] = {"summary", "runs", "set", NULL};
  g_autofree char *runs = NULL, *set = NULL;
  if (!only_keys(kf, file, "deep", keys, error) ||
      (p->deep_summary = needed(kf, file, "deep", "summary", error)) == NULL ||
      (runs = needed(kf, file, "deep", "runs", error)) == NULL ||
      (set = needed(kf, file, "deep", "set", error)) == NULL)
    return FALSE;
  p->deep_runs = g_strsplit(runs, ",", -1);
  for (guint i = 0; p->deep_runs[i] != NULL; i++)
    if (*g_strstrip(p->deep_runs[i]) == '\0')
      return bad(error, file, "deep", "runs: '%s' is not a list of run names", runs);
  /* each setting is read as --set's are, when the runs' scenarios are */
  p->deep_sets = g_strsplit(set, ";", -1);
  for (guint i = 0; p->deep_sets[i] != NULL; i++)
    g_strstrip(p->deep_sets[i]);
  return TRUE;
}

/* Whether a claim reads one of [deep]'s runs. */
static gboolean
reads_deep(const LbPaper *p, const LbClaim *c)
{
  for (guint k = 0; p->deep_runs != NULL && c->runs != NULL && c->runs[k] != NULL; k++)
    if (g_strv_contains((const char *const *)p->deep_runs, c->runs[k]))
      return TRUE;
  return FALSE;
}

/* [deep]'s runs exist; known-deep only on a claim that reads one of them. */
static gboolean
deep_check(const LbPaper *p, const char *file, GError **error)
{
  for (guint i = 0; p->deep_runs != NULL && p->deep_runs[i] != NULL; i++)
    if (lb_paper_run(p, p->deep_runs[i]) == NULL)
      return bad(error, file, "deep", "runs: no [run:%s]", p->deep_runs[i]);
  for (guint i = 0; i < p->claims->len; i++) {
    const LbClaim *c = p->claims->pdata[i];
    if (c->known_deep_reason != NULL && !reads_deep(p, c)) {
      g_autofree char *group = g_strdup_printf("claim:%s", c->id);
      return bad(error, file, group, "known-deep: %s",
                 p->deep_runs == NULL ? "the paper has no [deep] form"
                                      : "the claim reads none of [deep]'s runs");
    }
  }
  return TRUE;
}

gboolean
lb_paper_deepen(LbPaper *p, GError **error)
{
  if (p->deep_runs == NULL) {
    g_set_error(error, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE,
                "--deep: %s has no deep form (its full form runs it at the paper's scale)", p->key);
    return FALSE;
  }
  for (guint i = 0; i < p->runs->len; i++) {
    LbPaperRun *r = p->runs->pdata[i];
    r->deep = g_strv_contains((const char *const *)p->deep_runs, r->name);
  }
  for (guint i = 0; i < p->claims->len; i++) {
    LbClaim *c = p->claims->pdata[i];
    if (!reads_deep(p, c))
      continue;
    g_free(c->known_reason);
    c->known_reason = g_steal_pointer(&c->known_deep_reason);
    c->known = c->known_reason != NULL ? LB_FORM_DEEP : LB_FORM_NONE;
  }
  p->deep = TRUE;
  return TRUE;
}

gboolean
lb_paper_only(LbPaper *p, const char *const *names, GError **error)
{
  g_autoptr(GPtrArray) chosen = g_ptr_array_new_with_free_func(g_free);
  for (guint i = 0; names != NULL && names[i] != NULL; i++) {
    g_auto(GStrv) items = g_strsplit(names[i], ",", -1);
    for (guint k = 0; items[k] != NULL; k++) {
      const char *name = g_strstrip(items[k]);
      if (lb_paper_run(p, name) == NULL) {
        g_autoptr(GString) known = g_string_new(NULL);
        for (guint r = 0; r < p->runs->len; r++)
          g_string_append_printf(known, "%s%s", r ? ", " : "",
                                 ((const LbPaperRun *)p->runs->pdata[r])->name);
        g_set_error(error, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE,
                    "--only %s: %s has no run '%s' (its runs: %s)", names[i], p->key, name,
                    known->str);
        return FALSE;
      }
      if (!g_ptr_array_find_with_equal_func(chosen, name, g_str_equal, NULL))
        g_ptr_array_add(chosen, g_strdup(name));
    }
  }
  if (chosen->len == 0)
    return TRUE;
  for (guint i = 0; i < p->runs->len; i++) {
    LbPaperRun *r = p->runs->pdata[i];
    r->left_out = !g_ptr_array_find_with_equal_func(chosen, r->name, g_str_equal, NULL);
  }
  g_ptr_array_add(chosen, NULL);
  g_strfreev(p->only);
  p->only = (char **)g_ptr_array_free(g_steal_pointer(&chosen), FALSE);
  return TRUE;
}

char *
lb_paper_only_text(const LbPaper *p)
{
  return p->only != NULL ? g_strjoinv(", ", p->only) : NULL;
}

gboolean
lb_claim_left_out(const LbPaper *p, const LbClaim *c)
{
  if (p->only == NULL)
    return FALSE;
  if (c->runs == NULL || c->runs[0] == NULL)
    return TRUE;
  for (guint k = 0; c->runs[k] != NULL; k++)
    if (lb_paper_run(p, c->runs[k])->left_out)
      return TRUE;
  return FALSE;
}

char *
lb_paper_deep_text(const LbPaper *p)
{
  g_autofree char *runs = g_strjoinv(", ", p->deep_runs);
  g_autofree char *sets = g_strjoinv(" ", p->deep_sets);
  return g_strdup_printf("%s (%s, with %s)", p->deep_summary, runs, sets);
}

/* [calibration]: KEY = VALUE; SOURCE */
static gboolean
read_calibration(GKeyFile *kf, LbPaper *p, const char *file, GError **error)
{
  g_auto(GStrv) keys = g_key_file_get_keys(kf, "calibration", NULL, NULL);
  for (guint i = 0; keys != NULL && keys[i] != NULL; i++) {
    g_autofree char *text = needed(kf, file, "calibration", keys[i], error);
    if (text == NULL)
      return FALSE;
    const char *semi = strchr(text, ';');
    g_autofree char *value = g_strstrip(g_strndup(text, semi != NULL ? semi - text : 0));
    g_autofree char *source = semi != NULL ? g_strstrip(g_strdup(semi + 1)) : NULL;
    if (semi == NULL || *value == '\0' || *source == '\0')
      return bad(error, file, "calibration",
                 "%s: '%s' is not 'VALUE; SOURCE' (the value, and a published figure with its "
                 "citation or \"chosen by lbsim, not from the paper\")",
                 keys[i], text);
    LbCalibration *k = g_new0(LbCalibration, 1);
    k->key = g_strdup(keys[i]);
    k->value = g_steal_pointer(&value);
    k->source = g_steal_pointer(&source);
    g_ptr_array_add(p->calibration, k);
  }
  return TRUE;
}

/* What needs every claim read: same-sign beside a magnitude claim of the
 * same measure, calibrated naming a calibration. */
static gboolean
cross_check(const LbPaper *p, const char *file, GError **error)
{
  for (guint i = 0; i < p->claims->len; i++) {
    const LbClaim *c = p->claims->pdata[i];
    g_autofree char *group = g_strdup_printf("claim:%s", c->id);
    if (c->diagnostic)
      continue;
    if (c->calibrated != NULL) {
      gboolean found = FALSE;
      for (guint k = 0; k < p->calibration->len; k++)
        found |= strcmp(((LbCalibration *)p->calibration->pdata[k])->key, c->calibrated) == 0;
      if (!found)
        return bad(error, file, group, "calibrated: no key %s in [calibration]", c->calibrated);
    }
    if (c->rule.kind != LB_RULE_SAME_SIGN)
      continue;
    gboolean beside = FALSE;
    for (guint k = 0; k < p->claims->len; k++) {
      const LbClaim *o = p->claims->pdata[k];
      beside |= k != i && !o->diagnostic && o->rule.kind != LB_RULE_SAME_SIGN &&
                strcmp(o->measure_text, c->measure_text) == 0 &&
                g_strv_equal((const char *const *)o->runs, (const char *const *)c->runs) &&
                o->ranks->len == c->ranks->len &&
                memcmp(o->ranks->data, c->ranks->data, c->ranks->len * sizeof(guint)) == 0;
    }
    if (!beside)
      return bad(error, file, group,
                 "rule: same-sign only beside a claim of the same measure, runs and ranks that "
                 "holds its magnitude");
  }
  return TRUE;
}

LbPaper *
lb_paper_load(const char *key, GError **error)
{
  g_autoptr(LbPaper) p = g_new0(LbPaper, 1);
  p->key = g_strdup(key);
  p->dir = g_build_filename(lb_papers_dir(), key, NULL);
  p->runs = g_ptr_array_new_with_free_func(run_free);
  p->claims = g_ptr_array_new_with_free_func(claim_free);
  p->calibration = g_ptr_array_new_with_free_func(calibration_free);
  g_autofree char *file = g_build_filename(p->dir, "claims.ini", NULL);
  if (strchr(key, '/') != NULL || key[0] == '.' || !g_file_test(file, G_FILE_TEST_EXISTS)) {
    g_set_error(error, G_FILE_ERROR, G_FILE_ERROR_NOENT,
                "no paper '%s' (lbsim reproduce lists them)", key);
    return NULL;
  }
  g_autofree char *text = NULL;
  gsize length = 0;
  if (!lb_input_read(file, LB_INPUT_SCENARIO, &text, &length, error))
    return NULL;
  g_autoptr(GKeyFile) kf = g_key_file_new();
  if (!g_key_file_load_from_data(kf, text, length, G_KEY_FILE_NONE, error)) {
    g_prefix_error(error, "%s: ", file);
    return NULL;
  }
  static const char *const paper_keys[] = {"cite", "summary", NULL};
  if (!g_key_file_has_group(kf, "paper")) {
    bad(error, file, "paper", "missing");
    return NULL;
  }
  if (!only_keys(kf, file, "paper", paper_keys, error) ||
      (p->cite = needed(kf, file, "paper", "cite", error)) == NULL ||
      (p->summary = needed(kf, file, "paper", "summary", error)) == NULL)
    return NULL;
  g_auto(GStrv) groups = g_key_file_get_groups(kf, NULL);
  for (guint i = 0; groups[i] != NULL; i++) {
    const char *g = groups[i];
    gboolean ok = strcmp(g, "paper") == 0         ? TRUE
                  : strcmp(g, "calibration") == 0 ? read_calibration(kf, p, file, error)
                  : strcmp(g, "deep") == 0        ? read_deep(kf, p, file, error)
                  : g_str_has_prefix(g, "run:")   ? read_run(kf, p, file, g, error)
                  : g_str_has_prefix(g, "claim:") ? read_claim(kf, p, file, g, FALSE, error)
                  : g_str_has_prefix(g, "diagnostic:")
                      ? read_claim(kf, p, file, g, TRUE, error)
                      : bad(error, file, g,
                            "unknown group (paper, calibration, deep, run:NAME, claim:ID, "
                            "diagnostic:ID)");
    if (!ok)
      return NULL;
  }
  if (!cross_check(p, file, error) || !deep_check(p, file, error))
    return NULL;
  return g_steal_pointer(&p);
}
