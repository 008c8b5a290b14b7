/* What the tests of lbsim's JUnit reports share: xmllint's verdict on a
 * report against tests/junit.xsd. */
#pragma once

#include <glib.h>
#include <sys/wait.h>

#include "lbsim-spawn.h"

/* xmllint --schema tests/junit.xsd FILE: its exit status. */
static inline int
validate(const char *file)
{
  g_autofree char *schema = g_build_filename(source_root(), "tests", "junit.xsd", NULL);
  const char *argv[] = {"xmllint", "--noout", "--schema", schema, file, NULL};
  int status = 0;
  g_autoptr(GError) error = NULL;
  g_autofree char *out = NULL, *err = NULL;
  g_assert_true(g_spawn_sync(NULL, (char **)argv, NULL, G_SPAWN_SEARCH_PATH, NULL, NULL, &out, &err,
                             &status, &error));
  g_assert_no_error(error);
  if (!WIFEXITED(status))
    return -1;
  if (WEXITSTATUS(status) != 0)
    g_test_message("xmllint: %s", err);
  return WEXITSTATUS(status);
}
