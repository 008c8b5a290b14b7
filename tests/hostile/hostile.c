#include "hostile.h"
#include "lbsim-spawn.h"

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/wait.h>
#include <unistd.h>

static const char *
env_or_fail(const char *name)
{
  const char *value = g_getenv(name);
  g_assert_nonnull(value);
  return value;
}

HostileCase *
hostile_case_new(void)
{
  HostileCase *hc = g_new0(HostileCase, 1);
  g_autoptr(GError) error = NULL;
  hc->dir = g_dir_make_tmp("lbsim-hostile-XXXXXX", &error);
  g_assert_no_error(error);
  hc->was = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, g_free);
  return hc;
}

static void
remove_case_tree(const char *path)
{
  GStatBuf st;
  if (g_lstat(path, &st) != 0)
    return;
  if (S_ISDIR(st.st_mode)) {
    g_chmod(path, 0700);
    g_autoptr(GDir) d = g_dir_open(path, 0, NULL);
    const char *name;
    while (d != NULL && (name = g_dir_read_name(d)) != NULL) {
      g_autofree char *child = g_build_filename(path, name, NULL);
      remove_case_tree(child);
    }
    g_rmdir(path);
  } else {
    g_unlink(path);
  }
}

void
hostile_case_free(HostileCase *hc)
{
  if (hc == NULL)
    return;
  remove_case_tree(hc->dir);
  g_free(hc->dir);
  g_hash_table_unref(hc->was);
  g_free(hc);
}

void
hostile_result_clear(HostileResult *r)
{
  g_free(r->out);
  g_free(r->err);
}

char *
hostile_path(const HostileCase *hc, const char *name)
{
  return g_build_filename(hc->dir, name, NULL);
}

void
hostile_write(const HostileCase *hc, const char *name, const char *text)
{
  g_autofree char *path = hostile_path(hc, name);
  g_autoptr(GError) error = NULL;
  g_file_set_contents(path, text, -1, &error);
  g_assert_no_error(error);
}

void
hostile_copy(const HostileCase *hc, const char *source, const char *name)
{
  g_autofree char *from = g_build_filename(env_or_fail("LBSIM_SOURCE_ROOT"), source, NULL);
  g_autofree char *text = NULL;
  gsize len = 0;
  g_autoptr(GError) error = NULL;
  g_file_get_contents(from, &text, &len, &error);
  g_assert_no_error(error);
  g_autofree char *to = hostile_path(hc, name);
  g_file_set_contents(to, text, (gssize)len, &error);
  g_assert_no_error(error);
}

void
hostile_scenario(const HostileCase *hc)
{
  hostile_copy(hc, "platforms/hypercube-16.xml", "p.xml");
  hostile_write(hc, "s.ini",
                "[scenario]\nname = hostile\nplatform = p.xml\nranks = 16\nseed = 1\n\n"
                "[workload]\nsize = 64\npattern = step\nhigh = 10\nlow = 1\nat = 0.25\n"
                "drift = 0\n\n[balancers]\nrun = none, mlb\n");
}

gboolean
hostile_mknod_null(const HostileCase *hc, const char *name)
{
  g_autofree char *path = hostile_path(hc, name);
  if (geteuid() != 0 || mknod(path, S_IFCHR | 0666, makedev(1, 3)) != 0) {
    g_test_message("no private device node %s: %s", name,
                   geteuid() != 0 ? "not root" : g_strerror(errno));
    return FALSE;
  }
  int fd = open(path, O_WRONLY);
  if (fd < 0) {
    /* a file system mounted nodev */
    g_test_message("device node %s cannot be opened: %s", name, g_strerror(errno));
    g_unlink(path);
    return FALSE;
  }
  close(fd);
  return TRUE;
}

static char *
describe(const char *path, const GStatBuf *st)
{
  if (S_ISREG(st->st_mode)) {
    g_autofree char *text = NULL;
    gsize len = 0;
    g_assert_true(g_file_get_contents(path, &text, &len, NULL));
    g_autofree char *sum = g_compute_checksum_for_data(G_CHECKSUM_SHA256, (guchar *)text, len);
    return g_strdup_printf("file %s", sum);
  }
  if (S_ISLNK(st->st_mode)) {
    g_autofree char *target = g_file_read_link(path, NULL);
    return g_strdup_printf("link %s", target);
  }
  if (S_ISCHR(st->st_mode) || S_ISBLK(st->st_mode))
    return g_strdup_printf("%s %u:%u", S_ISCHR(st->st_mode) ? "chr" : "blk", major(st->st_rdev),
                           minor(st->st_rdev));
  return g_strdup_printf("%s", S_ISDIR(st->st_mode)    ? "dir"
                               : S_ISFIFO(st->st_mode) ? "fifo"
                                                       : "other");
}

static void
scan(const char *root, const char *rel, GHashTable *into)
{
  g_autofree char *path = rel[0] != '\0' ? g_build_filename(root, rel, NULL) : g_strdup(root);
  g_autoptr(GDir) d = g_dir_open(path, 0, NULL);
  g_assert_nonnull(d);
  const char *name;
  while ((name = g_dir_read_name(d)) != NULL) {
    g_autofree char *child_rel =
        rel[0] != '\0' ? g_build_filename(rel, name, NULL) : g_strdup(name);
    g_autofree char *child = g_build_filename(root, child_rel, NULL);
    GStatBuf st;
    g_assert_cmpint(g_lstat(child, &st), ==, 0);
    g_hash_table_insert(into, g_strdup(child_rel), describe(child, &st));
    if (S_ISDIR(st.st_mode) && (st.st_mode & S_IRUSR) != 0)
      scan(root, child_rel, into);
  }
}

void
hostile_snapshot(HostileCase *hc)
{
  g_hash_table_remove_all(hc->was);
  scan(hc->dir, "", hc->was);
}

void
hostile_assert_unchanged(const HostileCase *hc)
{
  g_autoptr(GHashTable) now = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, g_free);
  scan(hc->dir, "", now);
  GHashTableIter it;
  gpointer key, value;
  g_hash_table_iter_init(&it, hc->was);
  while (g_hash_table_iter_next(&it, &key, &value)) {
    const char *is = g_hash_table_lookup(now, key);
    if (is == NULL)
      g_error("%s: gone (was %s)", (char *)key, (char *)value);
    if (strcmp(is, value) != 0)
      g_error("%s: changed: was %s, is %s", (char *)key, (char *)value, is);
  }
  g_hash_table_iter_init(&it, now);
  while (g_hash_table_iter_next(&it, &key, &value))
    if (!g_hash_table_contains(hc->was, key))
      g_error("%s: new (%s)", (char *)key, (char *)value);
}

void
hostile_strip_asan_notes(char *err)
{
  strip_asan_notes(err);
}

static void
run_va(const HostileCase *hc, const char *const *env, HostileResult *r, va_list args)
{
  g_autoptr(GPtrArray) argv = g_ptr_array_new();
  g_ptr_array_add(argv, (gpointer)env_or_fail("LBSIM"));
  const char *a;
  while ((a = va_arg(args, const char *)) != NULL)
    g_ptr_array_add(argv, (gpointer)a);
  g_ptr_array_add(argv, NULL);
  g_auto(GStrv) envp = g_get_environ();
  for (guint i = 0; env != NULL && env[i] != NULL; i++) {
    const char *eq = strchr(env[i], '=');
    g_assert_nonnull(eq);
    g_autofree char *name = g_strndup(env[i], (gsize)(eq - env[i]));
    envp = g_environ_setenv(envp, name, eq + 1, TRUE);
  }
  int wait_status = 0;
  g_autoptr(GError) error = NULL;
  g_assert_true(g_spawn_sync(hc->dir, (char **)argv->pdata, envp, G_SPAWN_DEFAULT, NULL, NULL,
                             &r->out, &r->err, &wait_status, &error));
  g_assert_no_error(error);
  hostile_strip_asan_notes(r->err);
  r->status = WIFEXITED(wait_status) ? WEXITSTATUS(wait_status) : 128 + WTERMSIG(wait_status);
}

void
hostile_run(const HostileCase *hc, HostileResult *r, ...)
{
  va_list args;
  va_start(args, r);
  run_va(hc, NULL, r, args);
  va_end(args);
}

void
hostile_run_env(const HostileCase *hc, const char *const *env, HostileResult *r, ...)
{
  va_list args;
  va_start(args, r);
  run_va(hc, env, r, args);
  va_end(args);
}

void
hostile_assert_refused(const HostileResult *r, int status, ...)
{
  if (r->status != status)
    g_error("exit status %d, expected %d; stderr:\n%s", r->status, status, r->err);
  const char *nl = strchr(r->err, '\n');
  if (nl == NULL || nl[1] != '\0')
    g_error("expected exactly one line on stderr, got:\n%s", r->err);
  va_list args;
  va_start(args, status);
  const char *needle;
  while ((needle = va_arg(args, const char *)) != NULL)
    if (strstr(r->err, needle) == NULL)
      g_error("stderr does not name '%s':\n%s", needle, r->err);
  va_end(args);
}

int
main(int argc, char **argv)
{
  g_test_init(&argc, &argv, NULL);
  hostile_register_output();
  hostile_register_platform();
  hostile_register_signals();
  hostile_register_jobs_and_results();
  hostile_register_memory();
  hostile_register_small();
  return g_test_run();
}
