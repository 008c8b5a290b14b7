#include "io/output.h"

#include <errno.h>
#include <fcntl.h>
#include <glib/gstdio.h>
#include <limits.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/vfs.h>
#include <unistd.h>

#include "io/temporary.h"

#define PROC_MAGIC 0x9fa0
#define SYSFS_MAGIC 0x62656572

static gboolean G_GNUC_PRINTF(3, 4) fail(GError **error, int errsv, const char *format, ...)
{
  va_list args;
  va_start(args, format);
  g_autofree char *text = g_strdup_vprintf(format, args);
  va_end(args);
  g_set_error_literal(error, G_FILE_ERROR, g_file_error_from_errno(errsv), text);
  return FALSE;
}

static gboolean
in_place_type(mode_t mode)
{
  return S_ISCHR(mode) || S_ISBLK(mode) || S_ISFIFO(mode);
}

/* /proc and /sys hold the kernel's files: a file there is no output. */
static gboolean
kernel_files(const char *path)
{
  struct statfs fs;
  return statfs(path, &fs) == 0 && (fs.f_type == PROC_MAGIC || fs.f_type == SYSFS_MAGIC);
}

/* The folder a new file at path would go in ("." for a bare name), with
 * trailing slashes of path ignored. */
static char *
parent_of(const char *path)
{
  g_autofree char *trimmed = g_strdup(path);
  for (gsize n = strlen(trimmed); n > 1 && trimmed[n - 1] == '/'; n--)
    trimmed[n - 1] = '\0';
  return g_path_get_dirname(trimmed);
}

/* Follows a chain of symlinks from path to a name that does not exist
 * (a dangling link's target): NULL when the chain loops or is too long. */
static char *
follow_dangling(const char *path)
{
  g_autofree char *at = g_strdup(path);
  for (guint hops = 0; hops < 40; hops++) {
    GStatBuf st;
    if (g_lstat(at, &st) != 0 || !S_ISLNK(st.st_mode))
      return g_steal_pointer(&at);
    g_autofree char *target = g_file_read_link(at, NULL);
    if (target == NULL)
      return NULL;
    if (!g_path_is_absolute(target)) {
      g_autofree char *dir = g_path_get_dirname(at);
      g_autofree char *joined = g_build_filename(dir, target, NULL);
      g_free(at);
      at = g_steal_pointer(&joined);
    } else {
      g_free(at);
      at = g_steal_pointer(&target);
    }
  }
  return NULL;
}

typedef enum { TARGET_NEW, TARGET_REPLACE, TARGET_IN_PLACE } TargetKind;

/* Where the bytes for path go: the file to replace (symlinks resolved),
 * the new file to make, or the device to write in place. */
static gboolean
resolve_target(const char *option, const char *path, TargetKind *kind, char **target,
               GError **error)
{
  GStatBuf st;
  if (*path == '\0')
    return fail(error, ENOENT, "%s \"\": an empty file name", option);
  if (g_stat(path, &st) == 0) {
    if (S_ISDIR(st.st_mode))
      return fail(error, EISDIR, "%s %s: is a folder, not a file", option, path);
    if (S_ISSOCK(st.st_mode))
      return fail(error, EINVAL, "%s %s: is a socket, which lbsim cannot write to", option, path);
    if (in_place_type(st.st_mode)) {
      *kind = TARGET_IN_PLACE;
      *target = g_strdup(path);
      return TRUE;
    }
    if (!S_ISREG(st.st_mode))
      return fail(error, EINVAL, "%s %s: not a regular file, a device or a FIFO", option, path);
    if (kernel_files(path))
      return fail(error, EPERM, "%s %s: a file of the kernel's (/proc or /sys), not an output",
                  option, path);
    *kind = TARGET_REPLACE;
    *target = realpath(path, NULL);
    if (*target == NULL)
      return fail(error, errno, "%s %s: %s", option, path, g_strerror(errno));
    return TRUE;
  }
  int errsv = errno;
  if (errsv != ENOENT)
    return fail(error, errsv, "%s %s: cannot write: %s", option, path, g_strerror(errsv));
  g_autofree char *end = follow_dangling(path);
  if (end == NULL)
    return fail(error, ELOOP, "%s %s: a loop of symbolic links", option, path);
  g_autofree char *dir = parent_of(end);
  errsv = g_stat(dir, &st) != 0 ? errno : !S_ISDIR(st.st_mode) ? ENOTDIR : 0;
  if (errsv != 0) {
    if (strcmp(end, path) != 0)
      return fail(error, errsv, "%s %s: a symbolic link to %s, whose folder %s does not exist",
                  option, path, end, dir);
    return fail(error, errsv, "%s %s: the folder %s does not exist", option, path, dir);
  }
  if (kernel_files(dir))
    return fail(error, EPERM, "%s %s: in a folder of the kernel's (/proc or /sys), not an output",
                option, path);
  *kind = TARGET_NEW;
  *target = g_steal_pointer(&end);
  return TRUE;
}

/* The folder of target must take a new file (the temporary one). */
static gboolean
check_folder_writable(const char *option, const char *path, const char *target, GError **error)
{
  g_autofree char *dir = parent_of(target);
  if (g_access(dir, W_OK | X_OK) == 0)
    return TRUE;
  int errsv = errno;
  return fail(error, errsv, "%s %s: cannot write in the folder %s: %s", option, path, dir,
              g_strerror(errsv));
}

gboolean
lb_output_check(const char *option, const char *path, GError **error)
{
  if (strcmp(path, "-") == 0)
    return TRUE;
  TargetKind kind;
  g_autofree char *target = NULL;
  if (!resolve_target(option, path, &kind, &target, error))
    return FALSE;
  if (kind != TARGET_IN_PLACE)
    return check_folder_writable(option, path, target, error);
  if (g_access(path, W_OK) == 0)
    return TRUE;
  int errsv = errno;
  return fail(error, errsv, "%s %s: cannot write: %s", option, path, g_strerror(errsv));
}

gboolean
lb_output_check_folder(const char *option, const char *dir, gboolean *make, GError **error)
{
  GStatBuf st;
  *make = FALSE;
  if (*dir == '\0')
    return fail(error, ENOENT, "%s \"\": an empty folder name", option);
  if (g_stat(dir, &st) == 0) {
    if (!S_ISDIR(st.st_mode))
      return fail(error, ENOTDIR, "%s %s: exists and is not a folder", option, dir);
    if (kernel_files(dir))
      return fail(error, EPERM, "%s %s: a folder of the kernel's (/proc or /sys)", option, dir);
    if (g_access(dir, W_OK | X_OK) != 0) {
      int errsv = errno;
      return fail(error, errsv, "%s %s: cannot write: %s", option, dir, g_strerror(errsv));
    }
    return TRUE;
  }
  int errsv = errno;
  if (errsv != ENOENT)
    return fail(error, errsv, "%s %s: cannot write: %s", option, dir, g_strerror(errsv));
  GStatBuf lst;
  if (g_lstat(dir, &lst) == 0)
    return fail(error, ENOENT, "%s %s: a symbolic link to a folder that does not exist", option,
                dir);
  g_autofree char *parent = parent_of(dir);
  if (g_stat(parent, &st) != 0 || !S_ISDIR(st.st_mode))
    return fail(error, ENOENT, "%s %s: the folder %s does not exist", option, dir, parent);
  if (kernel_files(parent))
    return fail(error, EPERM, "%s %s: in a folder of the kernel's (/proc or /sys)", option, dir);
  if (g_access(parent, W_OK | X_OK) != 0) {
    errsv = errno;
    return fail(error, errsv, "%s %s: cannot make it in %s: %s", option, dir, parent,
                g_strerror(errsv));
  }
  *make = TRUE;
  return TRUE;
}

gboolean
lb_output_make_folder(const char *option, const char *dir, GError **error)
{
  if (g_mkdir(dir, 0777) == 0 || errno == EEXIST)
    return TRUE;
  int errsv = errno;
  return fail(error, errsv, "%s %s: cannot make the folder: %s", option, dir, g_strerror(errsv));
}

/* ---- streams ---- */

struct LbOutput {
  char *path;   /* as the user gave it, for messages */
  char *target; /* the file put in place at commit */
  char *tmp;    /* the temporary file beside it, or NULL (in place) */
  FILE *stream;
};

static void
output_free(LbOutput *out)
{
  if (out->stream != NULL)
    fclose(out->stream);
  if (out->tmp != NULL) {
    g_unlink(out->tmp);
    lb_temporary_forget(out->tmp);
  }
  g_free(out->path);
  g_free(out->target);
  g_free(out->tmp);
  g_free(out);
}

void
lb_output_abort(LbOutput *out)
{
  if (out != NULL)
    output_free(out);
}

/* A temporary file beside target, with the mode target has (when it
 * exists) so a replaced file keeps its permissions. */
static int
make_temporary(const char *target, char **tmp)
{
  g_autofree char *dir = parent_of(target);
  g_autofree char *base = g_path_get_basename(target);
  *tmp = g_strdup_printf("%s/.%s.lbsim-XXXXXX", dir, base);
  int fd = lb_temporary_mkstemp(*tmp, O_WRONLY | O_CLOEXEC, 0600);
  if (fd < 0) {
    int errsv = errno;
    g_clear_pointer(tmp, g_free);
    errno = errsv;
    return -1;
  }
  GStatBuf st;
  mode_t mode = 0666;
  if (g_stat(target, &st) == 0)
    mode = st.st_mode & 07777;
  else {
    mode_t mask = umask(0);
    umask(mask);
    mode &= ~mask;
  }
  if (fchmod(fd, mode) != 0) {
    /* the file is still written; its mode is the temporary file's */
  }
  return fd;
}

LbOutput *
lb_output_open(const char *path, GError **error)
{
  TargetKind kind;
  g_autofree char *target = NULL;
  if (!resolve_target("", path, &kind, &target, error)) {
    g_prefix_error(error, "cannot write %s: ", path);
    return NULL;
  }
  LbOutput *out = g_new0(LbOutput, 1);
  out->path = g_strdup(path);
  out->target = g_steal_pointer(&target);
  if (kind == TARGET_IN_PLACE) {
    out->stream = fopen(out->target, "w");
    if (out->stream == NULL) {
      int errsv = errno;
      output_free(out);
      fail(error, errsv, "cannot write %s: %s", path, g_strerror(errsv));
      return NULL;
    }
    return out;
  }
  int fd = make_temporary(out->target, &out->tmp);
  if (fd < 0) {
    int errsv = errno;
    output_free(out);
    fail(error, errsv, "cannot write %s: %s", path, g_strerror(errsv));
    return NULL;
  }
  out->stream = fdopen(fd, "w");
  g_assert(out->stream != NULL);
  return out;
}

FILE *
lb_output_stream(LbOutput *out)
{
  return out->stream;
}

gboolean
lb_output_commit(LbOutput *out, GError **error)
{
  int errsv = 0;
  if (out->stream != NULL) {
    if (fflush(out->stream) != 0 || ferror(out->stream))
      errsv = errno != 0 ? errno : EIO;
    if (errsv == 0 && out->tmp != NULL && fsync(fileno(out->stream)) != 0)
      errsv = errno;
    if (fclose(out->stream) != 0 && errsv == 0)
      errsv = errno;
    out->stream = NULL;
  }
  if (errsv == 0 && out->tmp != NULL) {
    if (g_rename(out->tmp, out->target) != 0) {
      errsv = errno;
    } else {
      lb_temporary_forget(out->tmp);
      g_clear_pointer(&out->tmp, g_free);
    }
  }
  if (errsv == 0) {
    output_free(out);
    return TRUE;
  }
  fail(error, errsv, "cannot write %s: %s", out->path, g_strerror(errsv));
  output_free(out);
  return FALSE;
}

static gboolean
write_all(FILE *stream, const char *text, gsize length)
{
  return length == 0 || fwrite(text, 1, length, stream) == length;
}

char *
lb_output_file_part(const char *name)
{
  char *part = g_strdup(name);
  g_strdelimit(part, "/", '_');
  g_strdelimit(part, ":", LB_OUTPUT_LABEL_SEPARATOR);
  return part;
}

gboolean
lb_output_write(const char *path, const char *text, gssize length, GError **error)
{
  gsize len = length < 0 ? strlen(text) : (gsize)length;
  LbOutput *out = lb_output_open(path, error);
  if (out == NULL)
    return FALSE;
  if (!write_all(out->stream, text, len)) {
    int errsv = errno != 0 ? errno : EIO;
    fail(error, errsv, "cannot write %s: %s", path, g_strerror(errsv));
    output_free(out);
    return FALSE;
  }
  return lb_output_commit(out, error);
}

static gboolean
copy_into(const char *from, FILE *to, int *errsv)
{
  FILE *in = fopen(from, "r");
  if (in == NULL) {
    *errsv = errno;
    return FALSE;
  }
  char buf[1 << 16];
  size_t n;
  gboolean ok = TRUE;
  while (ok && (n = fread(buf, 1, sizeof buf, in)) > 0)
    ok = fwrite(buf, 1, n, to) == n;
  if (!ok || ferror(in))
    *errsv = errno != 0 ? errno : EIO;
  ok = ok && !ferror(in);
  fclose(in);
  return ok;
}

gboolean
lb_output_move(const char *from, const char *path, GError **error)
{
  TargetKind kind;
  g_autofree char *target = NULL;
  if (!resolve_target("", path, &kind, &target, error)) {
    g_prefix_error(error, "cannot write %s: ", path);
    g_unlink(from);
    return FALSE;
  }
  if (kind != TARGET_IN_PLACE && g_rename(from, target) == 0)
    return TRUE;
  /* another file system, or a device: the bytes are copied */
  LbOutput *out = lb_output_open(path, error);
  if (out == NULL) {
    g_unlink(from);
    return FALSE;
  }
  int errsv = 0;
  gboolean ok = copy_into(from, out->stream, &errsv);
  g_unlink(from);
  if (!ok) {
    fail(error, errsv, "cannot write %s: %s", path, g_strerror(errsv));
    output_free(out);
    return FALSE;
  }
  return lb_output_commit(out, error);
}

/* ---- standard output ---- */

static int stdout_errno;

gboolean
lb_output_stdout(const char *text)
{
  gsize len = strlen(text);
  errno = 0;
  if (len > 0 && fwrite(text, 1, len, stdout) != len) {
    if (stdout_errno == 0)
      stdout_errno = errno != 0 ? errno : EIO;
    return FALSE;
  }
  return TRUE;
}

gboolean
lb_output_text(const char *path, const char *text, GError **error)
{
  if (strcmp(path, "-") == 0) {
    if (lb_output_stdout(text) && fflush(stdout) == 0)
      return TRUE;
    g_set_error(error, G_FILE_ERROR, g_file_error_from_errno(errno),
                "cannot write standard output: %s", g_strerror(errno));
    return FALSE;
  }
  return lb_output_write(path, text, -1, error);
}

int
lb_output_stdout_close(void)
{
  errno = 0;
  if (fflush(stdout) != 0 && stdout_errno == 0)
    stdout_errno = errno != 0 ? errno : EIO;
  if (ferror(stdout) && stdout_errno == 0)
    stdout_errno = EIO;
  if (stdout_errno == 0)
    return 0;
  g_printerr("lbsim: cannot write standard output: %s\n", g_strerror(stdout_errno));
  return 1;
}

/* ---- inputs and outputs of one command ---- */

typedef struct {
  char *what;
  char *path;
  gboolean output;
  gboolean exists;
  gboolean device; /* a character device: outputs may share it */
  dev_t dev;
  ino_t ino;
  char *resolved; /* when it does not exist */
} Entry;

struct LbFileSet {
  GArray *entries;
};

static void
entry_clear(gpointer p)
{
  Entry *e = p;
  g_free(e->what);
  g_free(e->path);
  g_free(e->resolved);
}

LbFileSet *
lb_file_set_new(void)
{
  LbFileSet *set = g_new0(LbFileSet, 1);
  set->entries = g_array_new(FALSE, TRUE, sizeof(Entry));
  g_array_set_clear_func(set->entries, entry_clear);
  return set;
}

void
lb_file_set_free(LbFileSet *set)
{
  if (set == NULL)
    return;
  g_array_unref(set->entries);
  g_free(set);
}

/* A path that does not exist yet, as it will be named once made: its
 * symlinks followed and its folder resolved. */
static char *
resolve_new(const char *path)
{
  g_autofree char *end = follow_dangling(path);
  if (end == NULL)
    return g_strdup(path);
  g_autofree char *dir = parent_of(end);
  g_autofree char *base = g_path_get_basename(end);
  g_autofree char *real = realpath(dir, NULL);
  return g_build_filename(real != NULL ? real : dir, base, NULL);
}

static void
identify(Entry *e)
{
  struct stat st;
  gboolean is_stdout = strcmp(e->path, "-") == 0 && e->output;
  if (is_stdout ? fstat(STDOUT_FILENO, &st) == 0 : stat(e->path, &st) == 0) {
    e->exists = TRUE;
    e->dev = st.st_dev;
    e->ino = st.st_ino;
    e->device = S_ISCHR(st.st_mode);
  } else if (!is_stdout) {
    e->resolved = resolve_new(e->path);
  }
}

static gboolean
same_file(const Entry *a, const Entry *b)
{
  if (a->output && b->output && strcmp(a->path, "-") == 0 && strcmp(b->path, "-") == 0)
    return TRUE;
  if (a->exists && b->exists)
    return a->dev == b->dev && a->ino == b->ino;
  if (a->resolved != NULL && b->resolved != NULL)
    return strcmp(a->resolved, b->resolved) == 0;
  return FALSE;
}

void
lb_file_set_input(LbFileSet *set, const char *what, const char *path)
{
  Entry e = {.what = g_strdup(what), .path = g_strdup(path)};
  identify(&e);
  g_array_append_val(set->entries, e);
}

static const char *
shown(const char *path)
{
  return strcmp(path, "-") == 0 ? "standard output" : path;
}

gboolean
lb_file_set_output(LbFileSet *set, const char *what, const char *path, GError **error)
{
  Entry e = {.what = g_strdup(what), .path = g_strdup(path), .output = TRUE};
  identify(&e);
  for (guint i = 0; i < set->entries->len; i++) {
    const Entry *o = &g_array_index(set->entries, Entry, i);
    if (!same_file(&e, o) || (o->output && e.device && o->device))
      continue;
    if (o->output)
      fail(error, EINVAL, "%s %s and %s %s are one file: give them different files", o->what,
           shown(o->path), what, shown(path));
    else
      fail(error, EINVAL, "%s %s is %s %s: lbsim does not write over its inputs", what, shown(path),
           o->what, o->path);
    entry_clear(&e);
    return FALSE;
  }
  g_array_append_val(set->entries, e);
  return TRUE;
}
