/* The frames of `lbsim explain`'s lesson: the narration's events (each
 * line's place, the balancer's messages, the transfers, the chunks) cut
 * into frames, one per step of a stage's phase (a collective round, a
 * transfer wave; a decision or a finished chunk for a balancer that owns
 * the compute), in simulated-time order, each with its messages, its
 * lines of the narration and every rank's load once it ends. The JSON
 * (lbsim explain --json) and the page (--html) are made from it, from the
 * same result as the text. */
#pragma once

#include <glib.h>

#include "lbsim/balancer.h"
#include "lbsim/run.h"
#include "lbsim/scenario.h"
#include "geometry/curve.h"

#define LB_LESSON_FORMAT "lbsim-explain"
#define LB_LESSON_VERSION 1

typedef struct {
  const LbRunResult *run;
  const LbBalancer *balancer;
  const char *label;    /* the balancer as the scenario names it (mlb:loan) */
  const char *platform; /* its file name */
  const char *model;    /* the units' model (array1d, field2d, samr, htree, loop) */
  const char *version;  /* lbsim's */
  guint dim;            /* of a field's cells, 0: none */
  guint64 size[3];      /* a field's cells per axis, first axis fastest */
  guint64 nunits;
  /* every rank's units before the first balancing (LbUnit), ranks entries */
  const GArray *const *initial;
  const GArray *blocks; /* the balancer's tree (LbExplainBlock), or NULL */
  const char *intro;    /* the text before the narration */
  const char *story;    /* the text from the narration on */
  /* a 2D tree's balancer that keeps a curve: the model (whose tree of
   * each step is rebuilt) and the curve; work NULL otherwise */
  const LbWork *work;
  LbCurveKind curve;
} LbLesson;

/* The frames as JSON (format LB_LESSON_FORMAT, version LB_LESSON_VERSION). */
char *lb_lesson_json(const LbLesson *lesson);
/* DIR/index.html: one self-contained page that plays them; dir exists or
 * is made. */
gboolean lb_lesson_write_page(const LbLesson *lesson, const char *dir, GError **error);

/* What explain prints before the narration: the case, every rank's
 * units before the first balancing, the balancer's teaching text; loads
 * (ranks entries, or NULL) gets every rank's load then. */
char *lb_lesson_intro(const LbScenario *sc, const LbBalancerRun *brun, const char *platform,
                      guint64 *loads);
/* The lesson of brun's narrated run (run with narrate and detail) as JSON
 * (json: a file, "-" standard output, or NULL) and as a page (html: a
 * folder, or NULL); platform as the text names it. */
gboolean lb_lesson_write(const LbScenario *sc, const LbBalancerRun *brun, const LbRunResult *run,
                         const char *platform, const char *json, const char *html, GError **error);
