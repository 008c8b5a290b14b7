/* What the tests of figure files share: a PDF's page size. */
#pragma once

#include <glib.h>
#include <string.h>

/* Where a PDF's first page ends: its MediaBox's width and height. */
static inline void
pdf_size(const char *path, double *width, double *height)
{
  g_autofree char *text = NULL;
  gsize length = 0;
  g_assert_true(g_file_get_contents(path, &text, &length, NULL));
  g_assert_true(g_str_has_prefix(text, "%PDF"));
  static const char key[] = "/MediaBox [ 0 0 ";
  const char *box = NULL;
  for (gsize i = 0; box == NULL && i + strlen(key) < length; i++) /* past binary streams */
    if (memcmp(text + i, key, strlen(key)) == 0)
      box = text + i;
  g_assert_nonnull(box);
  char *end = NULL;
  *width = g_ascii_strtod(box + strlen(key), &end);
  *height = g_ascii_strtod(end, NULL);
}
