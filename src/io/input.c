#include "io/input.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define KIB ((guint64)1 << 10)
#define MIB ((guint64)1 << 20)

/* Each cap is far above what the largest shipped or generated file of
 * its kind holds, and below what would exhaust memory once parsed. */
static const struct {
  const char *name;
  guint64 cap;
} kinds[LB_INPUT_KINDS] = {
    [LB_INPUT_SCENARIO] = {"a scenario", 1 * MIB},
    [LB_INPUT_PLATFORM] = {"a platform", 256 * MIB},
    [LB_INPUT_LOADS] = {"a file of integers", 256 * MIB},
    [LB_INPUT_HIERARCHY] = {"a grid hierarchy", 64 * MIB},
    [LB_INPUT_COSTS] = {"a file of iteration costs", 256 * MIB},
    [LB_INPUT_RESULT] = {"a result", 1024 * MIB},
    /* a million runs' definition is about 40 MiB */
    [LB_INPUT_SWEEP_STATE] = {"a sweep's definition", 256 * MIB},
};

guint64
lb_input_cap(LbInputKind kind)
{
  g_return_val_if_fail(kind < LB_INPUT_KINDS, 0);
  return kinds[kind].cap;
}

const char *
lb_input_kind_name(LbInputKind kind)
{
  g_return_val_if_fail(kind < LB_INPUT_KINDS, NULL);
  return kinds[kind].name;
}

static const char *
file_type(mode_t mode)
{
  return S_ISDIR(mode)    ? "a folder"
         : S_ISCHR(mode)  ? "a character device"
         : S_ISBLK(mode)  ? "a block device"
         : S_ISFIFO(mode) ? "a FIFO"
         : S_ISSOCK(mode) ? "a socket"
                          : "not a regular file";
}

static gboolean
fail_errno(GError **error, const char *path, int errsv)
{
  g_set_error(error, G_FILE_ERROR, g_file_error_from_errno(errsv), "%s: cannot read: %s", path,
              g_strerror(errsv));
  return FALSE;
}

static gboolean
check_stat(const char *path, const struct stat *st, LbInputKind kind, GError **error)
{
  if (!S_ISREG(st->st_mode)) {
    g_set_error(error, G_FILE_ERROR, G_FILE_ERROR_INVAL,
                "%s: %s, not a regular file (%s is read from a file)", path, file_type(st->st_mode),
                kinds[kind].name);
    return FALSE;
  }
  if ((guint64)st->st_size > kinds[kind].cap) {
    guint64 cap = kinds[kind].cap;
    g_set_error(error, G_FILE_ERROR, G_FILE_ERROR_FAILED,
                "%s: %" G_GUINT64_FORMAT " bytes, more than the %" G_GUINT64_FORMAT
                " %s lbsim reads of %s",
                path, (guint64)st->st_size, cap >= MIB ? cap / MIB : cap / KIB,
                cap >= MIB ? "MiB" : "KiB", kinds[kind].name);
    return FALSE;
  }
  return TRUE;
}

gboolean
lb_input_check(const char *path, LbInputKind kind, GError **error)
{
  g_return_val_if_fail(kind < LB_INPUT_KINDS, FALSE);
  struct stat st;
  if (stat(path, &st) != 0)
    return fail_errno(error, path, errno);
  return check_stat(path, &st, kind, error);
}

/* Opens path without blocking on a FIFO, and only if it is a regular
 * file: the check and the read see the same file. */
static int
open_regular(const char *path, struct stat *st, int *errsv)
{
  int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);
  if (fd < 0) {
    *errsv = errno;
    return -1;
  }
  if (fstat(fd, st) != 0) {
    *errsv = errno;
    close(fd);
    return -1;
  }
  return fd;
}

/* Up to max bytes; *length says how many came. */
static gboolean
read_bounded(int fd, gsize max, char **text, gsize *length, int *errsv)
{
  gsize size = MIN(max, (gsize)MIB), len = 0;
  char *buf = g_malloc(size + 1);
  while (len < max) {
    if (len == size) {
      size = MIN(max, size * 2);
      buf = g_realloc(buf, size + 1);
    }
    ssize_t n = read(fd, buf + len, size - len);
    if (n < 0 && errno == EINTR)
      continue;
    if (n < 0) {
      *errsv = errno;
      g_free(buf);
      return FALSE;
    }
    if (n == 0)
      break;
    len += (gsize)n;
  }
  buf[len] = '\0';
  *text = buf;
  *length = len;
  return TRUE;
}

static GArray *files_read;

const GArray *
lb_input_files(void)
{
  if (files_read == NULL)
    files_read = g_array_new(FALSE, FALSE, sizeof(LbInputFile));
  return files_read;
}

static void
remember(const char *path, LbInputKind kind)
{
  LbInputFile f = {kind, g_strdup(path)};
  g_array_append_val((GArray *)lb_input_files(), f);
}

gboolean
lb_input_read(const char *path, LbInputKind kind, char **text, gsize *length, GError **error)
{
  g_return_val_if_fail(kind < LB_INPUT_KINDS, FALSE);
  struct stat st;
  int errsv = 0;
  int fd = open_regular(path, &st, &errsv);
  if (fd < 0)
    return fail_errno(error, path, errsv);
  if (!check_stat(path, &st, kind, error)) {
    close(fd);
    return FALSE;
  }
  /* one byte more than the cap tells a file that grew since fstat */
  gsize len = 0;
  gboolean ok = read_bounded(fd, (gsize)kinds[kind].cap + 1, text, &len, &errsv);
  close(fd);
  if (!ok)
    return fail_errno(error, path, errsv);
  if (len > kinds[kind].cap) {
    g_clear_pointer(text, g_free);
    st.st_size = (off_t)len;
    return check_stat(path, &st, kind, error);
  }
  if (length != NULL)
    *length = len;
  remember(path, kind);
  return TRUE;
}

gboolean
lb_input_read_prefix(const char *path, gsize max, char **text, gsize *length)
{
  struct stat st;
  int errsv = 0;
  int fd = open_regular(path, &st, &errsv);
  if (fd < 0)
    return FALSE;
  gsize len = 0;
  gboolean ok = S_ISREG(st.st_mode) && read_bounded(fd, max, text, &len, &errsv);
  close(fd);
  if (ok && length != NULL)
    *length = len;
  return ok;
}

guint
lb_input_json_depth(const char *text, gsize length)
{
  guint depth = 0, deepest = 0;
  gboolean in_string = FALSE;
  for (gsize i = 0; i < length; i++) {
    char c = text[i];
    if (in_string) {
      if (c == '\\')
        i++;
      else if (c == '"')
        in_string = FALSE;
    } else if (c == '"') {
      in_string = TRUE;
    } else if (c == '[' || c == '{') {
      depth++;
      deepest = MAX(deepest, depth);
    } else if ((c == ']' || c == '}') && depth > 0) {
      depth--;
    }
  }
  return deepest;
}

JsonParser *
lb_input_json_object(const char *text, gsize length, const char *not_object, GQuark domain,
                     gint code, JsonObject **root, GError **error)
{
  if (lb_input_json_depth(text, length) > LB_INPUT_JSON_DEPTH) {
    g_set_error(error, domain, code, "arrays and objects nested more than %d deep",
                LB_INPUT_JSON_DEPTH);
    return NULL;
  }
  g_autoptr(JsonParser) parser = json_parser_new_immutable();
  g_autoptr(GError) local = NULL;
  if (!json_parser_load_from_data(parser, text, (gssize)length, &local)) {
    g_set_error(error, domain, code, "not JSON: %s", local->message);
    return NULL;
  }
  JsonNode *node = json_parser_get_root(parser);
  if (node == NULL || !JSON_NODE_HOLDS_OBJECT(node)) {
    g_set_error_literal(error, domain, code, not_object);
    return NULL;
  }
  *root = json_node_get_object(node);
  return g_steal_pointer(&parser);
}
