#include "io/out-buffer.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

void
lb_out_flush(LbOutBuffer *b)
{
  errno = 0;
  if (b->failed == 0 && b->len > 0 &&
      fwrite(b->data, 1, b->len, b->stream != NULL ? b->stream : stdout) != b->len)
    b->failed = errno != 0 ? errno : EIO;
  b->len = 0;
}

void
lb_out_text(LbOutBuffer *b, const char *text)
{
  gsize n = strlen(text);
  if (b->len + n > sizeof b->data)
    lb_out_flush(b);
  memcpy(b->data + b->len, text, n);
  b->len += n;
}

void
lb_out_number(LbOutBuffer *b, guint64 v)
{
  char digits[20];
  guint n = 0;
  do {
    digits[n++] = (char)('0' + v % 10);
    v /= 10;
  } while (v > 0);
  if (b->len + n > sizeof b->data)
    lb_out_flush(b);
  while (n > 0)
    b->data[b->len++] = digits[--n];
}

int
lb_out_finish(LbOutBuffer *b)
{
  lb_out_flush(b);
  if (b->failed == 0 && fflush(stdout) != 0)
    b->failed = errno;
  if (b->failed == 0)
    return 0;
  g_printerr("lbsim: cannot write standard output: %s\n", g_strerror(b->failed));
  return 1;
}

LbOutput *
lb_out_open_file(const char *path, LbOutBuffer *b, int *status)
{
  g_autoptr(GError) error = NULL;
  *status = 0;
  if (path == NULL || strcmp(path, "-") == 0)
    return NULL;
  LbOutput *file = NULL;
  if (!lb_output_check("--json", path, &error) || (file = lb_output_open(path, &error)) == NULL) {
    g_printerr("lbsim: %s\n", error->message);
    *status = 2;
    return NULL;
  }
  b->stream = lb_output_stream(file);
  return file;
}

int
lb_out_close_file(LbOutput *file, LbOutBuffer *b, const char *path)
{
  g_autoptr(GError) error = NULL;
  lb_out_flush(b);
  if (b->failed != 0) {
    lb_output_abort(file);
    g_printerr("lbsim: cannot write %s: %s\n", path, g_strerror(b->failed));
    return 1;
  }
  if (!lb_output_commit(file, &error)) {
    g_printerr("lbsim: %s\n", error->message);
    return 1;
  }
  return 0;
}

int
lb_out_end(LbOutBuffer *lines, LbOutBuffer *array, LbOutput *file, const char *json)
{
  int status = 0;
  if (file != NULL)
    status = lb_out_close_file(file, array, json);
  else if (json != NULL)
    return lb_out_finish(array);
  int written = lb_out_finish(lines);
  return MAX(status, written);
}
