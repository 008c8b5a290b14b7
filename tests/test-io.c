/* The files lbsim reads and writes: src/io's rules, one by one. */
#include <errno.h>
#include <fcntl.h>
#include <glib.h>
#include <glib/gstdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "io/input.h"
#include "io/output.h"

typedef struct {
  char *dir;
} Fixture;

static void
setup(Fixture *f, gconstpointer data)
{
  f->dir = g_dir_make_tmp("lbsim-test-io-XXXXXX", NULL);
  g_assert_nonnull(f->dir);
}

static void
teardown(Fixture *f, gconstpointer data)
{
  g_autoptr(GDir) d = g_dir_open(f->dir, 0, NULL);
  const char *name;
  while ((name = g_dir_read_name(d)) != NULL) {
    g_autofree char *path = g_build_filename(f->dir, name, NULL);
    if (g_file_test(path, G_FILE_TEST_IS_DIR) && !g_file_test(path, G_FILE_TEST_IS_SYMLINK))
      g_rmdir(path);
    else
      g_unlink(path);
  }
  g_rmdir(f->dir);
  g_free(f->dir);
}

static char *
at(const Fixture *f, const char *name)
{
  return g_build_filename(f->dir, name, NULL);
}

static void
put(const Fixture *f, const char *name, const char *text)
{
  g_autofree char *path = at(f, name);
  g_assert_true(g_file_set_contents(path, text, -1, NULL));
}

static char *
get(const Fixture *f, const char *name)
{
  g_autofree char *path = at(f, name);
  char *text = NULL;
  g_assert_true(g_file_get_contents(path, &text, NULL, NULL));
  return text;
}

static guint
count_files(const Fixture *f)
{
  g_autoptr(GDir) d = g_dir_open(f->dir, 0, NULL);
  guint n = 0;
  while (g_dir_read_name(d) != NULL)
    n++;
  return n;
}

/* ---- input ---- */

static void
test_input_regular(Fixture *f, gconstpointer data)
{
  put(f, "a.ini", "[scenario]\n");
  g_autofree char *path = at(f, "a.ini");
  g_autofree char *text = NULL;
  gsize len = 0;
  g_autoptr(GError) error = NULL;
  guint before = lb_input_files()->len;
  g_assert_true(lb_input_read(path, LB_INPUT_SCENARIO, &text, &len, &error));
  g_assert_no_error(error);
  g_assert_cmpstr(text, ==, "[scenario]\n");
  g_assert_cmpuint(len, ==, 11);
  /* remembered, for the commands' check of outputs against inputs */
  const GArray *files = lb_input_files();
  g_assert_cmpuint(files->len, ==, before + 1);
  const LbInputFile *last = &g_array_index(files, LbInputFile, files->len - 1);
  g_assert_cmpstr(last->path, ==, path);
  g_assert_cmpint(last->kind, ==, LB_INPUT_SCENARIO);
}

static void
test_input_not_regular(Fixture *f, gconstpointer data)
{
  g_autofree char *fifo = at(f, "fifo");
  g_assert_cmpint(mkfifo(fifo, 0600), ==, 0);
  g_autofree char *folder = at(f, "folder");
  g_assert_cmpint(g_mkdir(folder, 0700), ==, 0);
  const char *const paths[][2] = {{fifo, "a FIFO"}, {folder, "a folder"}, {"/dev/zero", NULL}};
  for (guint i = 0; i < G_N_ELEMENTS(paths); i++) {
    g_autofree char *text = NULL;
    g_autoptr(GError) error = NULL;
    /* a FIFO with no writer would block a plain open: this returns */
    g_assert_false(lb_input_read(paths[i][0], LB_INPUT_LOADS, &text, NULL, &error));
    g_assert_nonnull(error);
    g_assert_nonnull(strstr(error->message, paths[i][0]));
    g_assert_nonnull(strstr(error->message, "not a regular file"));
    if (paths[i][1] != NULL)
      g_assert_nonnull(strstr(error->message, paths[i][1]));
    g_assert_null(text);
  }
}

static void
test_input_cap(Fixture *f, gconstpointer data)
{
  /* a sparse file one byte over the cap of a sweep's definition */
  g_autofree char *path = at(f, "big");
  int fd = open(path, O_WRONLY | O_CREAT, 0600);
  g_assert_cmpint(fd, >=, 0);
  guint64 cap = lb_input_cap(LB_INPUT_SWEEP_STATE);
  g_assert_cmpuint(cap, ==, 256u << 20);
  g_assert_cmpint(ftruncate(fd, (off_t)cap + 1), ==, 0);
  close(fd);
  g_autofree char *text = NULL;
  g_autoptr(GError) error = NULL;
  g_assert_false(lb_input_check(path, LB_INPUT_SWEEP_STATE, &error));
  g_assert_nonnull(strstr(error->message, "268435457 bytes"));
  g_clear_error(&error);
  g_assert_false(lb_input_read(path, LB_INPUT_SWEEP_STATE, &text, NULL, &error));
  g_assert_nonnull(strstr(error->message, "more than the 256 MiB"));
  g_clear_error(&error);
  /* at the cap exactly: read whole */
  g_assert_cmpint(truncate(path, (off_t)cap), ==, 0);
  gsize len = 0;
  g_assert_true(lb_input_read(path, LB_INPUT_SWEEP_STATE, &text, &len, &error));
  g_assert_cmpuint(len, ==, cap);
}

static void
test_input_prefix(Fixture *f, gconstpointer data)
{
  put(f, "p", "0123456789");
  g_autofree char *path = at(f, "p");
  g_autofree char *text = NULL;
  gsize len = 0;
  g_assert_true(lb_input_read_prefix(path, 4, &text, &len));
  g_assert_cmpstr(text, ==, "0123");
  g_assert_cmpuint(len, ==, 4);
  g_free(g_steal_pointer(&text));
  g_assert_false(lb_input_read_prefix("/dev/zero", 4, &text, &len));
  g_assert_false(lb_input_read_prefix(f->dir, 4, &text, &len));
}

static void
test_input_json_depth(void)
{
  g_assert_cmpuint(lb_input_json_depth("{}", 2), ==, 1);
  const char *nested = "{\"a\": [[1], {\"b\": []}]}";
  g_assert_cmpuint(lb_input_json_depth(nested, strlen(nested)), ==, 4);
  /* brackets inside strings, escaped quotes included, do not count */
  const char *s = "[\"[[[\\\"[[\", [\"]]]\"]]";
  g_assert_cmpuint(lb_input_json_depth(s, strlen(s)), ==, 2);
  g_autofree char *deep = g_strnfill(100000, '[');
  g_assert_cmpuint(lb_input_json_depth(deep, 100000), ==, 100000);
}

/* The table of caps in docs/reference/files.md is the code's. */
static void
test_input_caps_documented(void)
{
  g_autofree char *readme =
      g_build_filename(g_getenv("LBSIM_SOURCE_ROOT"), "docs", "reference", "files.md", NULL);
  g_autofree char *text = NULL;
  g_assert_true(g_file_get_contents(readme, &text, NULL, NULL));
  const struct {
    LbInputKind kind;
    const char *row;
  } rows[] = {
      {LB_INPUT_SCENARIO, "| scenario and job files | 1 MiB |"},
      {LB_INPUT_PLATFORM, "| platform XML | 256 MiB |"},
      {LB_INPUT_LOADS, "counts) | 256 MiB |"},
      {LB_INPUT_HIERARCHY, "| SAMR grid hierarchies | 64 MiB |"},
      {LB_INPUT_COSTS, "| loop iteration costs | 256 MiB |"},
      {LB_INPUT_RESULT, "result) | 1 GiB, nested at most 64 deep |"},
      {LB_INPUT_SWEEP_STATE, "| a sweep's definition (`STATE/sweep.ini`) | 256 MiB |"},
  };
  G_STATIC_ASSERT(G_N_ELEMENTS(rows) == LB_INPUT_KINDS);
  const guint64 caps[] = {1 << 20,    256u << 20,  256u << 20, 64u << 20,
                          256u << 20, 1024u << 20, 256u << 20};
  for (guint i = 0; i < G_N_ELEMENTS(rows); i++) {
    g_assert_nonnull(strstr(text, rows[i].row));
    g_assert_cmpuint(lb_input_cap(rows[i].kind), ==, caps[i]);
  }
  g_assert_cmpuint(LB_INPUT_JSON_DEPTH, ==, 64);
}

/* ---- output ---- */

static void
test_output_replace(Fixture *f, gconstpointer data)
{
  put(f, "out.json", "old");
  g_autofree char *path = at(f, "out.json");
  g_assert_cmpint(g_chmod(path, 0640), ==, 0);
  GStatBuf before;
  g_assert_cmpint(g_stat(path, &before), ==, 0);
  g_autoptr(GError) error = NULL;
  g_assert_true(lb_output_write(path, "new", -1, &error));
  g_assert_no_error(error);
  g_autofree char *text = get(f, "out.json");
  g_assert_cmpstr(text, ==, "new");
  GStatBuf after;
  g_assert_cmpint(g_stat(path, &after), ==, 0);
  /* a new file (renamed over the old), with the old one's mode */
  g_assert_cmpuint(after.st_ino, !=, before.st_ino);
  g_assert_cmpuint(after.st_mode & 07777, ==, 0640);
  g_assert_cmpuint(count_files(f), ==, 1);
}

static void
test_output_symlink(Fixture *f, gconstpointer data)
{
  put(f, "real", "old");
  g_autofree char *link = at(f, "link");
  g_assert_cmpint(symlink("real", link), ==, 0);
  g_autoptr(GError) error = NULL;
  g_assert_true(lb_output_write(link, "new", -1, &error));
  /* the link stays a link; the file it names is replaced */
  g_assert_true(g_file_test(link, G_FILE_TEST_IS_SYMLINK));
  g_autofree char *text = get(f, "real");
  g_assert_cmpstr(text, ==, "new");
  /* a dangling link into an existing folder: the file is made there */
  g_autofree char *dangling = at(f, "dangling");
  g_assert_cmpint(symlink("made", dangling), ==, 0);
  g_assert_true(lb_output_check("--json", dangling, &error));
  g_assert_true(lb_output_write(dangling, "made", -1, &error));
  g_autofree char *made = get(f, "made");
  g_assert_cmpstr(made, ==, "made");
  g_assert_true(g_file_test(dangling, G_FILE_TEST_IS_SYMLINK));
}

static gpointer
read_fifo(gpointer path)
{
  char *text = NULL;
  g_assert_true(g_file_get_contents(path, &text, NULL, NULL));
  return text;
}

static void
test_output_fifo_in_place(Fixture *f, gconstpointer data)
{
  g_autofree char *fifo = at(f, "fifo");
  g_assert_cmpint(mkfifo(fifo, 0600), ==, 0);
  GThread *reader = g_thread_new("reader", read_fifo, fifo);
  g_autoptr(GError) error = NULL;
  g_assert_true(lb_output_check("--json", fifo, &error));
  g_assert_true(lb_output_write(fifo, "through the pipe", -1, &error));
  g_autofree char *got = g_thread_join(reader);
  g_assert_cmpstr(got, ==, "through the pipe");
  GStatBuf st;
  g_assert_cmpint(g_lstat(fifo, &st), ==, 0);
  g_assert_true(S_ISFIFO(st.st_mode));
  g_assert_cmpuint(count_files(f), ==, 1);
}

static void
test_output_refused(Fixture *f, gconstpointer data)
{
  g_autofree char *folder = at(f, "folder");
  g_assert_cmpint(g_mkdir(folder, 0700), ==, 0);
  g_autofree char *missing = at(f, "missing/x.json");
  g_autofree char *dangling = at(f, "dangling");
  g_assert_cmpint(symlink("nowhere/x", dangling), ==, 0);
  const char *const refused[][2] = {
      {folder, "is a folder"},
      {missing, "does not exist"},
      {dangling, "does not exist"},
      {"/proc/version", "/proc or /sys"},
      {"/proc/self/x.json", "/proc or /sys"},
      {"/sys/kernel/x", "/proc or /sys"},
      {"", "empty"},
  };
  for (guint i = 0; i < G_N_ELEMENTS(refused); i++) {
    g_autoptr(GError) error = NULL;
    g_assert_false(lb_output_check("--json", refused[i][0], &error));
    g_assert_nonnull(strstr(error->message, "--json"));
    g_assert_nonnull(strstr(error->message, refused[i][1]));
    g_clear_error(&error);
    /* and a write that was not checked fails the same way, writing nothing */
    g_assert_false(lb_output_write(refused[i][0], "x", -1, &error));
    g_assert_nonnull(error);
  }
  g_assert_cmpuint(count_files(f), ==, 2);
}

static void
test_output_stream_abort(Fixture *f, gconstpointer data)
{
  put(f, "t", "old");
  g_autofree char *path = at(f, "t");
  g_autoptr(GError) error = NULL;
  LbOutput *out = lb_output_open(path, &error);
  g_assert_nonnull(out);
  fputs("half of it", lb_output_stream(out));
  /* the temporary file is there, beside the old one, until abort */
  g_assert_cmpuint(count_files(f), ==, 2);
  lb_output_abort(out);
  g_autofree char *text = get(f, "t");
  g_assert_cmpstr(text, ==, "old");
  g_assert_cmpuint(count_files(f), ==, 1);
}

static void
test_output_move(Fixture *f, gconstpointer data)
{
  put(f, "staged", "moved");
  put(f, "target", "old");
  g_autofree char *from = at(f, "staged");
  g_autofree char *to = at(f, "target");
  g_autoptr(GError) error = NULL;
  g_assert_true(lb_output_move(from, to, &error));
  g_autofree char *text = get(f, "target");
  g_assert_cmpstr(text, ==, "moved");
  g_assert_false(g_file_test(from, G_FILE_TEST_EXISTS));
  /* into a device: copied, and the staged file removed */
  put(f, "staged", "discarded");
  g_assert_true(lb_output_move(from, "/dev/null", &error));
  g_assert_false(g_file_test(from, G_FILE_TEST_EXISTS));
  /* a device that refuses the bytes: the error names it */
  put(f, "staged", "too much");
  g_assert_false(lb_output_move(from, "/dev/full", &error));
  g_assert_nonnull(strstr(error->message, "/dev/full"));
  g_assert_false(g_file_test(from, G_FILE_TEST_EXISTS));
}

/* ---- one command's files ---- */

static void
test_file_set(Fixture *f, gconstpointer data)
{
  put(f, "s.ini", "x");
  g_autofree char *scenario = at(f, "s.ini");
  g_autofree char *hard = at(f, "hard.ini");
  g_assert_cmpint(link(scenario, hard), ==, 0);
  g_autofree char *sym = at(f, "sym.ini");
  g_assert_cmpint(symlink("s.ini", sym), ==, 0);
  g_autofree char *dotted = g_strdup_printf("%s/./s.ini", f->dir);
  g_autofree char *out = at(f, "out.json");
  g_autofree char *out_dotted = g_strdup_printf("%s/sub/../out.json", f->dir);
  g_autofree char *sub = at(f, "sub");
  g_assert_cmpint(g_mkdir(sub, 0700), ==, 0);
  g_autofree char *to_new = at(f, "to-new");
  g_assert_cmpint(symlink("out.json", to_new), ==, 0);

  const char *const as_input[] = {scenario, hard, sym, dotted};
  for (guint i = 0; i < G_N_ELEMENTS(as_input); i++) {
    g_autoptr(LbFileSet) set = lb_file_set_new();
    lb_file_set_input(set, "the scenario", scenario);
    g_autoptr(GError) error = NULL;
    g_assert_false(lb_file_set_output(set, "--json", as_input[i], &error));
    g_assert_nonnull(strstr(error->message, "the scenario"));
    g_assert_nonnull(strstr(error->message, "does not write over its inputs"));
  }
  /* outputs that do not exist yet: the same name by other paths */
  const char *const same_new[] = {out_dotted, to_new};
  for (guint i = 0; i < G_N_ELEMENTS(same_new); i++) {
    g_autoptr(LbFileSet) set = lb_file_set_new();
    g_autoptr(GError) error = NULL;
    g_assert_true(lb_file_set_output(set, "--json", out, &error));
    g_assert_false(lb_file_set_output(set, "--csv", same_new[i], &error));
    g_assert_nonnull(strstr(error->message, "are one file"));
  }
  g_autoptr(LbFileSet) set = lb_file_set_new();
  g_autoptr(GError) error = NULL;
  lb_file_set_input(set, "the scenario", scenario);
  g_assert_true(lb_file_set_output(set, "--json", out, &error));
  g_assert_true(lb_file_set_output(set, "--csv", "other.csv", &error));
  /* a character device takes several outputs */
  g_assert_true(lb_file_set_output(set, "--paje", "/dev/null", &error));
  g_assert_true(lb_file_set_output(set, "--message-trace", "/dev/null", &error));
  g_assert_no_error(error);
}

int
main(int argc, char **argv)
{
  g_test_init(&argc, &argv, NULL);
#define FIXTURE(path, fn) g_test_add(path, Fixture, NULL, setup, fn, teardown)
  FIXTURE("/io/input/regular", test_input_regular);
  FIXTURE("/io/input/not-regular", test_input_not_regular);
  FIXTURE("/io/input/cap", test_input_cap);
  FIXTURE("/io/input/prefix", test_input_prefix);
  g_test_add_func("/io/input/json-depth", test_input_json_depth);
  g_test_add_func("/io/input/caps-documented", test_input_caps_documented);
  FIXTURE("/io/output/replace", test_output_replace);
  FIXTURE("/io/output/symlink", test_output_symlink);
  FIXTURE("/io/output/fifo-in-place", test_output_fifo_in_place);
  FIXTURE("/io/output/refused", test_output_refused);
  FIXTURE("/io/output/stream-abort", test_output_stream_abort);
  FIXTURE("/io/output/move", test_output_move);
  FIXTURE("/io/file-set", test_file_set);
  return g_test_run();
}
