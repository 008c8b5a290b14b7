/* The looks every figure shares, keyed by what they show: a balancer's
 * colour, marker and dash by its run label (the same on the pictures, the
 * report's charts, a sweep's and a reproduction's), and the sizes of a
 * figure and of its text. */
#pragma once

#include <glib.h>

typedef enum {
  LB_MARKER_CIRCLE,
  LB_MARKER_SQUARE,
  LB_MARKER_TRIANGLE,
  LB_MARKER_DIAMOND,
  LB_MARKER_TRIANGLE_DOWN,
  LB_MARKER_PLUS,
  LB_MARKERS,
} LbMarker;

typedef struct {
  guint32 colour; /* 0xRRGGBB */
  LbMarker marker;
  const char *dash; /* an SVG dash array, or NULL: solid */
} LbStyle;

/* The palette: style n is colour n % 8 (Okabe and Ito's colour-blind-safe
 * eight, wine for their yellow, which white paper hides), marker n % 6
 * and, from the ninth on, a dash of its own, so that its LB_STYLES
 * styles differ pairwise in colour or marker and in one of them from the
 * eighth on. */
#define LB_STYLES 24
const LbStyle *lb_style_at(guint index);
const char *lb_style_marker_name(LbMarker marker);

/* The style a name has on its own: the fixed one of a balancer lbsim
 * ships (by its bare name), else a stable hash of the whole name (a
 * variant, NAME:VARIANT, or a plugin's balancer) into the palette's eight
 * solid styles. */
guint lb_style_index_of(const char *name);

/* The styles of the names one document shows (a run's balancers, a
 * sweep's, the lines of a reproduction): each its own (lb_style_index_of)
 * unless a name before it holds that one, then the next free one (the
 * solid ones first, then the dashed). The
 * shipped balancers' names come first, then the others in byte order, so
 * that a name's style depends on which names the document has, never on
 * their order or on the chart. */
typedef struct _LbStyles LbStyles;
LbStyles *lb_styles_new(const char *const *names, guint n);
void lb_styles_free(LbStyles *styles);
G_DEFINE_AUTOPTR_CLEANUP_FUNC(LbStyles, lb_styles_free)
/* A name's index in the palette; a name the document did not give takes
 * its own. */
guint lb_styles_index(const LbStyles *styles, const char *name);

/* Text: every figure sets its text in one family, in sizes relative to
 * its body text (tick labels, legends, axis names). */
#define LB_FONT_FAMILY "sans-serif"
typedef enum {
  LB_FONT_BODY,  /* legends, axis names, captions */
  LB_FONT_TICK,  /* tick labels */
  LB_FONT_TITLE, /* a figure's title */
} LbFontRole;
/* The size of a role's text when the body text is body. */
double lb_font_size(LbFontRole role, double body);

/* How a figure is drawn for print (--figure-size, --figure-font,
 * --no-title): a width (and a height) in points, its text in points, its
 * title dropped. Zero: the figure's own size, in pixels. */
typedef struct {
  double width, height; /* points; 0: not given */
  double font;          /* points, the body text; 0: LB_FIGURE_FONT with a size */
  gboolean no_title;
} LbFigureLook;

/* The body text of a figure given a size, in points (ticks as large). */
#define LB_FIGURE_FONT 8.0
/* A PNG of a figure given a size: pixels per inch. */
#define LB_FIGURE_PPI 300.0

/* "3.4in", "86mm", "8.5cm", "244.8pt", or WIDTHxHEIGHT ("3.4inx2.5in"):
 * points (1/72 in); height 0 when not given. */
gboolean lb_figure_parse_size(const char *text, double *width, double *height, GError **error);
/* "8", "8pt", from 4 to 36 points. */
gboolean lb_figure_parse_font(const char *text, double *points, GError **error);
