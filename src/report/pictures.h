/* Pictures of a run (--pictures DIR), drawn with cairo as PNG, SVG (with
 * its text as text) or PDF: the
 * final partition of one run over its work model (its grids, for a model of
 * grids; the curve through its tree's leaves, for a model of trees), and
 * the imbalance after each adaptation step of every run of a scenario. */
#pragma once

#include "lbsim/model.h"
#include "lbsim/run.h"
#include "geometry/curve.h"
#include "report/figure.h"

#define LB_PICTURES_NOBODY G_MAXUINT32

/* Every picture is drawn this wide, with the same font sizes, and scaled
 * to the options' width. */
#define LB_PICTURES_WIDTH 1280
/* From this many ranks on, pictures of curves and grids show loads with
 * the parts' boundaries over them: a colour per rank no longer tells
 * hundreds of ranks apart. */
#define LB_PICTURES_MANY_RANKS 256

#define LB_PICTURES_DEFAULT_FORMATS (LB_FIGURE_PNG | LB_FIGURE_SVG)
/* The pictures' imbalance chart: its body text (pixels of its
 * LB_PICTURES_WIDTH), large enough to read when a page shows the picture
 * half as wide, and the span of its values from which its axis is
 * logarithmic. */
#define LB_PICTURES_CHART_FONT 18
#define LB_PICTURES_LOG_SPAN 4.0

/* Where pictures go and how. */
typedef struct {
  const char *dir;
  guint formats;     /* LbFigureFormat bits; 0: LB_PICTURES_DEFAULT_FORMATS */
  guint width;       /* pixels (PDF: points); 0: LB_PICTURES_WIDTH */
  LbFigureLook look; /* for print: its width, in points, instead of width */
} LbPictureOptions;

/* DIR/SCENARIO.WHAT.EXT for each of the options' formats, added to names. */
void lb_pictures_add_files(GPtrArray *names, const LbPictureOptions *o, const char *dir,
                           const char *scenario, const char *what);

/* One run's final partition: who owns every cell and its load. */
typedef struct {
  const char *scenario, *balancer;
  const LbWork *work;
  guint ranks;
  guint adaptation, nadaptations; /* the step drawn (0-based, as in the JSON), of how many */
  double imbalance;               /* max/avg after balancing at that step */
  const guint32 *owner;           /* per cell id; LB_PICTURES_NOBODY: no unit */
  const guint64 *load;            /* per cell id */
  const guint64 *rank_load;       /* per rank */
} LbPartitionPicture;

/* Where the cells land in a partition picture. The drawn plane is nx x ny
 * cells (a field2d, field3d's slice z = NZ/2, or array1d as one row); it
 * is sampled into sx x sy blocks of cell_px x cell_px pixels, a block
 * showing the largest load of its cells and the owner of its first cell.
 * The map's top-left pixel is (map_x, map_y); y grows upwards in the
 * field, so cell row 0 is the map's bottom row. For array1d the map is the
 * bar chart of loads, one bar per block. */
typedef struct {
  guint dim;
  guint width, height;
  guint map_x, map_y, map_width, map_height;
  guint cell_px;
  guint64 nx, ny;
  guint sx, sy;
} LbPictureLayout;

void lb_pictures_layout(const LbWork *work, LbPictureLayout *layout);
/* The pixel at the centre of the block that shows cell (x, y) of the drawn
 * plane (array1d: the bottom of element x's bar). */
void lb_pictures_cell_pixel(const LbPictureLayout *layout, guint64 x, guint64 y, guint *px,
                            guint *py);

/* DIR/SCENARIO.BALANCER.partition.EXT (each format). */
gboolean lb_pictures_partition(const LbPictureOptions *o, const LbPartitionPicture *picture,
                               GError **error);

/* DIR/SCENARIO.imbalance.EXT (each format): the imbalance after balancing at
 * every adaptation step, one line per run (LbRunResult) in its balancer's
 * style, and under it, when some runs dwarf the rest (lb_plot_dwarfs),
 * the others close up. */
gboolean lb_pictures_imbalance(const LbPictureOptions *o, const char *scenario, GPtrArray *results,
                               GError **error);

/* Whether any run declares idle-procs (the SAMR balancers), and
 * DIR/SCENARIO.idle.EXT (each format): that metric at every adaptation step,
 * one line per run that has it, in its balancer's style. */
gboolean lb_pictures_has_idle(GPtrArray *results);
gboolean lb_pictures_idle(const LbPictureOptions *o, const char *scenario, GPtrArray *results,
                          GError **error);

/* One run's grids after balancing (models of grids): a 2D hierarchy, or
 * the slice of a 3D one through the middle of the root along z. */
typedef struct {
  const char *scenario, *balancer;
  guint dim, ranks, adaptation, nadaptations;
  guint64 root[3];                          /* root cells per axis */
  const GArray *grids;                      /* LbGridPart, after the last balancing */
  const GArray *before;                     /* LbGridPart, as that balancing found them, or NULL */
  double imbalance_before, imbalance_after; /* max/avg at that step */
  /* per rank, the run's loads before and after that balancing (what the
   * imbalances are of), or NULL: the sums of the grids' loads */
  const guint64 *rank_load_before, *rank_load_after;
} LbGridsPicture;

/* DIR/SCENARIO.BALANCER.grids.EXT (each format): every grid a rectangle
 * coloured by its owner (from LB_PICTURES_MANY_RANKS ranks: by its
 * owner's load over the average), finer levels drawn over coarser ones with stronger
 * outlines, axes in root cells, the most and the least loaded rank's
 * grids outlined; before balancing on the left, after on the right, each
 * with its imbalance. */
gboolean lb_pictures_grids(const LbPictureOptions *o, const LbGridsPicture *picture,
                           GError **error);

/* One run on a model of trees (htree): the curve through the leaves of
 * the last step's tree, in the curve's order, before and after that
 * step's balancing. */
typedef struct {
  const char *scenario, *balancer;
  const LbWork *work;
  LbCurveKind curve;
  guint ranks, adaptation, nadaptations;
  double imbalance_before, imbalance_after; /* max/avg at that step */
  const GArray *const *before; /* per rank: its LbUnit after the model's update at that step */
  const GArray *const *after;  /* per rank: its LbUnit after the balancing */
} LbCurvePicture;

/* Where the point (x, y) of the domain [0,1)^2 lands in a curve picture's
 * panel: 0 before balancing (left), 1 after (right). */
void lb_pictures_curve_point(guint panel, double x, double y, double *px, double *py);
/* The colour of a rank's part in the pictures of grids and of curves
 * (0xRRGGBB). */
guint32 lb_pictures_owner_colour(guint owner);

/* DIR/SCENARIO.BALANCER.curve.EXT (each format): every leaf's square outlined
 * (a 3D tree: the leaves that meet the plane z = 1/2, seen along z) and
 * the curve through their centres in the curve's order, each segment in
 * the colour of the owner of the leaf it leaves; before balancing on the
 * left, after on the right. */
gboolean lb_pictures_curve(const LbPictureOptions *o, const LbCurvePicture *picture,
                           GError **error);

/* One run of a balancer that owns the compute (dls): its chunks. */
typedef struct {
  const char *scenario, *balancer;
  guint ranks, nadaptations;
  const GArray *chunks; /* LbChunk */
} LbChunkPicture;

/* Where a chunks picture puts things: rank r's row is [top + r row,
 * top + (r + 1) row), simulated time t at left + (right - left) t / t_end. */
typedef struct {
  guint width, height, ranks;
  double left, right, top, bottom, row;
  double t_end;
} LbGanttLayout;

void lb_pictures_gantt_layout(guint ranks, double t_end, LbGanttLayout *layout);
/* A chunk's colour by its first iteration of n (0xRRGGBB). */
guint32 lb_pictures_chunk_colour(guint64 first, guint64 n);

/* DIR/SCENARIO.BALANCER.chunks.EXT (each format): a Gantt chart of the
 * chunks, a row per worker over simulated time, each bar coloured by its
 * first iteration, the chunks of another rank's data marked (and a line
 * from that rank's row) as migrations. */
gboolean lb_pictures_chunks(const LbPictureOptions *o, const LbChunkPicture *picture,
                            GError **error);

/* The picture a run draws, by its balancer and model: "chunks" (a
 * balancer that owns the compute), "grids", "curve", "partition", or
 * NULL (none). */
const char *lb_pictures_kind(const LbBalancerRun *run);

/* The pictures of a run's final partition, as the hook at the end of a
 * run (LbRunOptions.at_end, data the folder they go in): a partition of
 * cells, the grids of a hierarchy, or a curve through a tree's leaves
 * (which needs keep_before), by what the run's model has. */
gboolean lb_pictures_of_run(const LbRunEnd *end, gpointer options, GError **error);
