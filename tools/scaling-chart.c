/* lbsim-scaling-chart: tools/bench --scaling's figure. Reads the rows
 * tools/bench writes (family, ranks, lbsim's wall and peak, the tuned
 * replay's wall and peak) and draws wall time and peak memory against
 * ranks on log-log axes with lbsim's own chart code: a line a family in
 * its balancer's style, the bare SimGrid floor of the same messages
 * dashed in the same colour. */
#include <errno.h>
#include <locale.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <glib.h>

#include "report/figure.h"
#include "report/plots.h"
#include "report/style.h"

#define EXIT_USAGE 2

typedef struct {
  char *family;
  GArray *ranks, *wall, *peak, *floor_wall, *floor_peak; /* double each */
} Family;

static void
family_free(Family *f)
{
  g_free(f->family);
  g_array_unref(f->ranks);
  g_array_unref(f->wall);
  g_array_unref(f->peak);
  g_array_unref(f->floor_wall);
  g_array_unref(f->floor_peak);
  g_free(f);
}

static Family *
family_of(GPtrArray *families, const char *name)
{
  for (guint i = 0; i < families->len; i++) {
    Family *f = families->pdata[i];
    if (strcmp(f->family, name) == 0)
      return f;
  }
  Family *f = g_new0(Family, 1);
  f->family = g_strdup(name);
  f->ranks = g_array_new(FALSE, FALSE, sizeof(double));
  f->wall = g_array_new(FALSE, FALSE, sizeof(double));
  f->peak = g_array_new(FALSE, FALSE, sizeof(double));
  f->floor_wall = g_array_new(FALSE, FALSE, sizeof(double));
  f->floor_peak = g_array_new(FALSE, FALSE, sizeof(double));
  g_ptr_array_add(families, f);
  return f;
}

/* "FAMILY RANKS WALL_S PEAK_MIB FLOOR_WALL_S FLOOR_PEAK_MIB" a line; '#'
 * starts a comment. */
static GPtrArray *
read_rows(const char *path, GError **error)
{
  g_autofree char *text = NULL;
  if (!g_file_get_contents(path, &text, NULL, error))
    return NULL;
  g_autoptr(GPtrArray) families = g_ptr_array_new_with_free_func((GDestroyNotify)family_free);
  g_auto(GStrv) lines = g_strsplit(text, "\n", -1);
  for (guint n = 0; lines[n] != NULL; n++) {
    g_strstrip(lines[n]);
    if (lines[n][0] == '\0' || lines[n][0] == '#')
      continue;
    g_auto(GStrv) words = g_strsplit_set(lines[n], " \t", -1);
    g_autoptr(GPtrArray) fields = g_ptr_array_new();
    for (guint w = 0; words[w] != NULL; w++)
      if (words[w][0] != '\0')
        g_ptr_array_add(fields, words[w]);
    double v[5];
    gboolean ok = fields->len == 6;
    for (guint i = 0; ok && i < 5; i++) {
      char *end = NULL;
      v[i] = g_ascii_strtod(fields->pdata[i + 1], &end);
      ok = end != fields->pdata[i + 1] && *end == '\0' && v[i] > 0;
    }
    if (!ok) {
      g_set_error(error, G_FILE_ERROR, G_FILE_ERROR_INVAL,
                  "%s:%u: expected FAMILY RANKS WALL PEAK FLOOR_WALL FLOOR_PEAK, all positive",
                  path, n + 1);
      return NULL;
    }
    Family *f = family_of(families, fields->pdata[0]);
    g_array_append_val(f->ranks, v[0]);
    g_array_append_val(f->wall, v[1]);
    g_array_append_val(f->peak, v[2]);
    g_array_append_val(f->floor_wall, v[3]);
    g_array_append_val(f->floor_peak, v[4]);
  }
  return g_steal_pointer(&families);
}

static LbPlot *
chart(GPtrArray *families, const LbStyles *styles, const char *id, const char *title,
      const char *axis, gboolean seconds, gboolean memory)
{
  LbPlot *plot = lb_plot_new(LB_PLOT_LINES, id, title);
  lb_plot_styles(plot, styles);
  lb_plot_x_axis(plot, "ranks", LB_PLOT_LOG2, NULL);
  lb_plot_value_axis(plot, axis, 0, seconds);
  lb_plot_value_scale(plot, LB_PLOT_VALUES_LOG);
  lb_plot_style(plot, 0, "lbsim");
  lb_plot_style(plot, 1, "bare SimGrid replay (floor)");
  for (guint i = 0; i < families->len; i++) {
    const Family *f = families->pdata[i];
    lb_plot_series(plot, f->family);
    const GArray *mine = memory ? f->peak : f->wall;
    const GArray *floor = memory ? f->floor_peak : f->floor_wall;
    lb_plot_line(plot, 0, f->ranks->len, (double *)f->ranks->data, (double *)mine->data);
    lb_plot_line(plot, 1, f->ranks->len, (double *)f->ranks->data, (double *)floor->data);
  }
  return plot;
}

int
main(int argc, char **argv)
{
  setlocale(LC_ALL, "");
  if (argc != 3) {
    fprintf(stderr, "usage: lbsim-scaling-chart ROWS OUT.svg|OUT.png|OUT.pdf\n");
    return EXIT_USAGE;
  }
  g_autoptr(GError) error = NULL;
  g_autoptr(GPtrArray) families = read_rows(argv[1], &error);
  if (families == NULL || families->len == 0) {
    fprintf(stderr, "lbsim-scaling-chart: %s\n", error != NULL ? error->message : "no rows");
    return 1;
  }
  LbFigureFormat format = g_str_has_suffix(argv[2], ".png")   ? LB_FIGURE_PNG
                          : g_str_has_suffix(argv[2], ".pdf") ? LB_FIGURE_PDF
                                                              : LB_FIGURE_SVG;
  g_autofree const char **names = g_new0(const char *, families->len);
  for (guint i = 0; i < families->len; i++)
    names[i] = ((const Family *)families->pdata[i])->family;
  g_autoptr(LbStyles) styles = lb_styles_new(names, families->len);
  g_autoptr(LbPlot) wall = chart(families, styles, "scaling-wall", "Wall time against ranks",
                                 "wall time (whole process)", TRUE, FALSE);
  g_autoptr(LbPlot) peak = chart(families, styles, "scaling-peak", "Peak memory against ranks",
                                 "peak RSS (MiB)", FALSE, TRUE);
  const LbPlot *plots[] = {wall, peak};
  g_autoptr(GBytes) bytes = lb_plot_figure(plots, 2, format, 0, argv[2], &error);
  if (bytes == NULL || !lb_figure_save(argv[2], bytes, &error)) {
    fprintf(stderr, "lbsim-scaling-chart: %s\n", error->message);
    return 1;
  }
  return 0;
}
