/* The charts' SVG drawn with cairo, for their PNG and PDF: the charts are
 * written as SVG text (plots.c), and their other formats are that text
 * drawn, so that they agree. Only what plots.c writes is understood:
 * <g> (translate), <rect>, <path> (M, L, H, V, A, Z and their relative
 * forms), <circle>, <text> (rotate, a halo by paint-order), <clipPath>
 * of a rectangle, <pattern> fills; presentation attributes inherited. */
#pragma once

#include <cairo.h>
#include <glib.h>

/* Draws svg in its own units on cr. FALSE (error set) for text that is
 * not XML. */
gboolean lb_svg_draw(cairo_t *cr, const char *svg, GError **error);
