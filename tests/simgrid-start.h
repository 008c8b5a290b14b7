/* What the tests that drive SimGrid themselves share: the shipped
 * platforms' paths and an engine started on one of them. */
#pragma once

#include <glib.h>
#include <simgrid/engine.h>
#include <xbt/log.h>

static inline char *
platform_path(const char *file)
{
  const char *root = g_getenv("LBSIM_SOURCE_ROOT");
  if (root != NULL)
    return g_build_filename(root, "platforms", file, NULL);
  return g_build_filename(g_test_get_dir(G_TEST_DIST), "..", "platforms", file, NULL);
}

/* One engine per process: call it once, in the test's own child. */
static inline void
start_simgrid(const char *path)
{
  static char name[] = "lbsim-test";
  char *argv[] = {name, NULL};
  int argc = 1;
  xbt_log_control_set("root.thres:warning");
  simgrid_init(&argc, argv);
  simgrid_load_platform(path);
  /* seals the platform, as a run does before its first actor: a Dijkstra
   * zone (t3e-*.xml) works its routes out then */
  simgrid_run();
}
