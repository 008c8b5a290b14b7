/* A reproduction's outputs, each beginning with the paper's scorecard:
 * the text of the terminal, the JSON of --json, the CSV of --csv and the
 * page of --report. */
#pragma once

#include "report/plots.h"
#include "report/style.h"
#include "reproduce/evaluate.h"

typedef struct {
  gboolean quick;
  const char *const *sets; /* --set overrides of every run (not the paper's), or NULL */
  gboolean color;          /* the known disagreements in red (a terminal) */
} LbPaperOutput;

char *lb_paper_text(const LbPaper *paper, const LbPaperOutput *how);
char *lb_paper_json(const LbPaper *paper, const LbPaperOutput *how);
char *lb_paper_csv(const LbPaper *paper, const LbPaperOutput *how);
/* The page's charts' files: their formats besides SVG, their look. */
typedef struct {
  guint formats;
  LbFigureLook look;
  LbPlotValueScale scale; /* the value axes (--chart-scale) */
} LbPaperCharts;

/* The page in dir (made when make), the JSON beside it. */
gboolean lb_paper_write_report(const LbPaper *paper, const LbPaperOutput *how,
                               const LbPaperCharts *charts, const char *dir, gboolean make,
                               GError **error);
/* What the quick form runs, one line. */
char *lb_paper_quick_text(const LbPaper *paper);
/* lbsim reproduce without a paper: every shipped paper, its claims
 * (headline ones) and what it is. */
char *lb_papers_text(void);
/* lbsim reproduce --all's table: each paper's scorecard in a row, then
 * the sums. */
char *lb_papers_scorecards(const LbPaper *const *papers, guint n, gboolean quick);
/* A claim's status as the outputs name it: "agrees", "disagrees",
 * "known", "known-agrees", "failed", "not-run"; "diagnostic". */
const char *lb_claim_status_name(const LbClaim *claim);
