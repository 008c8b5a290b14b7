/* The report page of a run or a sweep (lbsim run --report, lbsim report):
 * it renders the results read back from lbsim's JSON (report/results.h),
 * never those a run holds, so that lbsim run --report and lbsim report
 * FILE.json make the same page out of the same numbers. The pages' parts
 * are html-page.c's, each kind's body html-run.c's and html-sweep.c's. */
#include "report/html-page.h"

#include <errno.h>
#include <math.h>
#include <string.h>
#include <glib/gstdio.h>
#include <unistd.h>

#include "io/output.h"
#include "lbsim/balancer.h"
#include "lbsim/scenario.h"
#include "report/pictures.h"
#include "report/plots.h"
#include "metrics/summary.h"
#include "report/report.h"
#include "report/results.h"

gboolean
lb_html_write(const LbResults *doc, const LbHtmlOptions *options, GError **error)
{
  g_autoptr(GPtrArray) files = g_ptr_array_new_with_free_func(g_free);
  g_auto(Out) o = {.doc = doc,
                   .kind = doc->kind,
                   .name = doc->name,
                   .version = doc->version,
                   .json = options->json,
                   .length = options->length,
                   .dir = options->dir,
                   .files = files,
                   .chart_scale = options->chart_scale,
                   .chart_formats = options->chart_formats,
                   .look = &options->look};
  /* a balancer's style: by its name, among the names of the page */
  g_autoptr(GPtrArray) names = g_ptr_array_new();
  if (strcmp(doc->kind, "sweep") == 0) {
    g_autoptr(GPtrArray) balancers = lb_page_sweep_balancers(doc);
    g_ptr_array_extend(names, balancers, NULL, NULL);
  } else {
    for (guint i = 0; i < doc->runs->len; i++)
      g_ptr_array_add(names, ((LbRunResult *)doc->runs->pdata[i])->balancer);
  }
  o.styles = lb_styles_new((const char *const *)names->pdata, names->len);
  g_auto(Manifest) old = {0};
  gboolean had = lb_page_manifest_load(options->dir, &old);
  g_autofree char *sha = g_compute_checksum_for_data(
      G_CHECKSUM_SHA256, (const guchar *)options->json, options->length);
  /* lbsim run --report has just drawn the pictures (source NULL); a
   * report made again from the same JSON text in the same folder finds
   * them there */
  const char *pictures = options->pictures_dir;
  gboolean drawn = pictures != NULL && options->source == NULL;
  if (pictures == NULL && had && old.pictures_drawn && strcmp(old.kind, doc->kind) == 0 &&
      strcmp(old.name, doc->name) == 0 && g_strcmp0(old.json_sha256, sha) == 0) {
    pictures = options->dir;
    drawn = TRUE;
  }
  gboolean local = pictures != NULL && lb_page_same_file(pictures, options->dir);

  g_autofree char *json_base = lb_page_file_name(doc->name, doc->kind, "json");
  g_autofree char *json_path = g_build_filename(options->dir, json_base, NULL);
  if (options->source == NULL || !lb_page_same_file(options->source, json_path)) {
    if (!lb_page_put_file(&o, json_base, options->json, options->length, error))
      return FALSE;
  } else {
    g_ptr_array_add(files, g_strdup(json_base));
  }
  g_autoptr(GString) page = g_string_new(NULL);
  if (strcmp(doc->kind, "sweep") == 0
          ? !lb_page_sweep_page(&o, page, json_base, error)
          : !lb_page_run_page(&o, page, pictures, drawn, local, json_base, error))
    return FALSE;
  if (!lb_page_put_file(&o, PAGE, page->str, page->len, error) ||
      !lb_page_write_manifest(&o, json_base, drawn && local, error))
    return FALSE;
  if (had)
    lb_page_remove_stale(&o, &old, options->source);
  return TRUE;
}
