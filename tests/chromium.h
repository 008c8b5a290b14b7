/* Headless Chromium for the tests of lbsim's pages (report, explain
 * --html): where it is, its console messages, a page rendered (its DOM
 * after the scripts ran, its log, a screenshot) and a screenshot checked
 * for ink. Needs glib, cairo and a G_DEFINE_AUTOPTR_CLEANUP_FUNC for
 * cairo_surface_t before it. */
#ifndef LBSIM_TESTS_CHROMIUM_H
#define LBSIM_TESTS_CHROMIUM_H

#include <cairo.h>
#include <glib.h>
#include <string.h>

static char *
chromium_path(void)
{
  char *path = g_find_program_in_path("chromium");
  return path != NULL ? path : g_find_program_in_path("chromium-browser");
}

/* Chromium logs every console message of the page, whatever its level, as
 * a CONSOLE line: each is logged and counted. */
static guint
console_messages(const char *log)
{
  guint n = 0;
  g_auto(GStrv) lines = g_strsplit(log, "\n", -1);
  for (guint i = 0; lines[i] != NULL; i++)
    if (strstr(lines[i], ":CONSOLE") != NULL) {
      g_test_message("console: %s", lines[i]);
      n++;
    }
  return n;
}

/* Renders uri headless in a window of width x height, with its profile in
 * the folder profile: its DOM once loaded (and its scripts run), its log,
 * a screenshot. */
static void
chromium_render(const char *uri, const char *profile, int width, int height, const char *screenshot,
                char **dom, char **log)
{
  g_autofree char *chromium = chromium_path();
  g_autofree char *profile_arg = g_strconcat("--user-data-dir=", profile, NULL);
  g_autofree char *size_arg = g_strdup_printf("--window-size=%d,%d", width, height);
  g_autofree char *shot_arg = g_strconcat("--screenshot=", screenshot, NULL);
  const char *argv[] = {chromium,
                        "--headless",
                        "--no-sandbox",
                        "--disable-gpu",
                        "--disable-dev-shm-usage",
                        "--no-first-run",
                        "--hide-scrollbars",
                        "--enable-logging=stderr",
                        "--v=0",
                        profile_arg,
                        size_arg,
                        shot_arg,
                        "--dump-dom",
                        uri,
                        NULL};
  int status = 0;
  g_autoptr(GError) error = NULL;
  g_assert_true(g_spawn_sync(NULL, (char **)argv, NULL, G_SPAWN_DEFAULT, NULL, NULL, dom, log,
                             &status, &error));
  g_assert_no_error(error);
  if (!g_spawn_check_wait_status(status, NULL))
    g_error("chromium failed: %s", *log);
}

/* A screenshot of width x height that is not blank: at least colours
 * colours, and more than the share inked of its pixels none of the
 * page's own backgrounds (paper, npaper of them, RGB). */
static void
check_screenshot_inked(const char *path, int width, int height, guint colours_at_least,
                       double inked_share, const guint32 *paper, guint npaper)
{
  g_autoptr(cairo_surface_t) s = cairo_image_surface_create_from_png(path);
  g_assert_cmpint(cairo_surface_status(s), ==, CAIRO_STATUS_SUCCESS);
  int w = cairo_image_surface_get_width(s), h = cairo_image_surface_get_height(s);
  g_assert_cmpint(w, ==, width);
  g_assert_cmpint(h, ==, height);
  const guint8 *data = cairo_image_surface_get_data(s);
  int stride = cairo_image_surface_get_stride(s);
  g_autoptr(GHashTable) colours = g_hash_table_new(g_direct_hash, g_direct_equal);
  guint64 inked = 0;
  for (int y = 0; y < h; y++)
    for (int x = 0; x < w; x++) {
      guint32 px = ((const guint32 *)(gconstpointer)(data + (gsize)y * stride))[x] & 0xffffff;
      g_hash_table_add(colours, GUINT_TO_POINTER(px));
      gboolean background = FALSE;
      for (guint k = 0; k < npaper; k++)
        background = background || px == paper[k];
      inked += !background;
    }
  g_test_message("screenshot: %u colours, %.1f%% inked", g_hash_table_size(colours),
                 100.0 * inked / ((double)w * h));
  g_assert_cmpuint(g_hash_table_size(colours), >=, colours_at_least);
  g_assert_cmpfloat(inked, >, inked_share * w * h);
}

#endif
