/* What the tests that run the lbsim binary share: running it from the
 * source root and collecting its exit status and output, and removing the
 * folders they made. */
#pragma once

#include <glib.h>
#include <glib/gstdio.h>
#include <json-glib/json-glib.h>
#include <stdarg.h>
#include <string.h>
#include <sys/wait.h>

typedef struct {
  int status;
  char *out;
  char *err;
} Result;

static inline void
result_clear(Result *r)
{
  g_free(r->out);
  g_free(r->err);
}

G_DEFINE_AUTO_CLEANUP_CLEAR_FUNC(Result, result_clear)

static inline const char *
source_root(void)
{
  const char *root = g_getenv("LBSIM_SOURCE_ROOT");
  g_assert_nonnull(root);
  return root;
}

/* Drops what AddressSanitizer says about SimGrid's stack switches (three
 * lines, once per process) from captured stderr: the sanitizer build runs
 * every test, and those lines are no output of lbsim's. */
static inline void
strip_asan_notes(char *err)
{
  static const char *const notes[] = {"ASan is ignoring requested __asan_handle_no_return",
                                      "False positive error reports may follow",
                                      "For details see https://github.com/google/sanitizers"};
  char *out = err;
  for (char *line = err; *line != '\0';) {
    char *end = strchr(line, '\n');
    gsize len = end != NULL ? (gsize)(end - line + 1) : strlen(line);
    gboolean note = FALSE;
    for (guint i = 0; i < G_N_ELEMENTS(notes); i++)
      note |= g_strstr_len(line, (gssize)len, notes[i]) != NULL;
    if (!note) {
      memmove(out, line, len);
      out += len;
    }
    line += len;
  }
  *out = '\0';
}

/* Runs $LBSIM with the NULL-terminated arguments, in envp (NULL: this
 * process's environment). */
static inline void
spawn_lbsim_argv(Result *r, char **envp, const char *const *args)
{
  g_autoptr(GPtrArray) argv = g_ptr_array_new();
  g_ptr_array_add(argv, (gpointer)g_getenv("LBSIM"));
  for (guint i = 0; args[i] != NULL; i++)
    g_ptr_array_add(argv, (gpointer)args[i]);
  g_ptr_array_add(argv, NULL);
  int wait_status = 0;
  g_autoptr(GError) error = NULL;
  g_assert_true(g_spawn_sync(source_root(), (char **)argv->pdata, envp, G_SPAWN_DEFAULT, NULL, NULL,
                             &r->out, &r->err, &wait_status, &error));
  g_assert_no_error(error);
  strip_asan_notes(r->err);
  g_assert_true(WIFEXITED(wait_status));
  r->status = WEXITSTATUS(wait_status);
}

/* The same with the arguments in args. */
static inline void
spawn_lbsim(Result *r, char **envp, va_list args)
{
  g_autoptr(GPtrArray) argv = g_ptr_array_new();
  const char *a;
  while ((a = va_arg(args, const char *)) != NULL)
    g_ptr_array_add(argv, (gpointer)a);
  g_ptr_array_add(argv, NULL);
  spawn_lbsim_argv(r, envp, (const char *const *)argv->pdata);
}

/* $LBSIM with an environment of its own (envp), the arguments NULL
 * terminated. */
static inline void
lbsim_env(Result *r, char **envp, ...)
{
  va_list args;
  va_start(args, envp);
  spawn_lbsim(r, envp, args);
  va_end(args);
}

/* A JSON file's document (a copy the caller frees). */
static inline JsonNode *
load_json(const char *path)
{
  g_autoptr(JsonParser) parser = json_parser_new();
  g_autoptr(GError) error = NULL;
  json_parser_load_from_file(parser, path, &error);
  g_assert_no_error(error);
  return json_node_copy(json_parser_get_root(parser));
}

/* Runs lbsim with NULL-terminated arguments from the source root. */
static inline void
lbsim(Result *r, ...)
{
  va_list args;
  va_start(args, r);
  spawn_lbsim(r, NULL, args);
  va_end(args);
}

static inline void
remove_tree(const char *path)
{
  if (g_file_test(path, G_FILE_TEST_IS_DIR) && !g_file_test(path, G_FILE_TEST_IS_SYMLINK)) {
    g_autoptr(GDir) dir = g_dir_open(path, 0, NULL);
    const char *name;
    while (dir != NULL && (name = g_dir_read_name(dir)) != NULL) {
      g_autofree char *child = g_build_filename(path, name, NULL);
      remove_tree(child);
    }
    g_rmdir(path);
  } else {
    g_unlink(path);
  }
}

/* lbsim's JSON text without its `measured` objects, the wall-clock
 * figures: what must be the same from one run to the next. */
static inline char *
json_without_measured(const char *json)
{
  GString *out = g_string_new(NULL);
  const char *at = json, *m;
  while ((m = strstr(at, "\"measured\": {")) != NULL) {
    g_string_append_len(out, at, m - at);
    const char *end = strchr(m, '}');
    g_assert_nonnull(end);
    at = end + 1;
  }
  g_string_append(out, at);
  return g_string_free(out, FALSE);
}
