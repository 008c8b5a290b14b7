#include "cli/out-buffer.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

void
lb_out_flush(LbOutBuffer *b)
{
  errno = 0;
  if (b->failed == 0 && b->len > 0 && fwrite(b->data, 1, b->len, stdout) != b->len)
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
