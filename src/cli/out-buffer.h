/* Standard output in large blocks, for commands that print millions of
 * short lines (lbsim curve, lbsim chunks). */
#pragma once

#include <glib.h>

typedef struct {
  char data[1 << 16];
  gsize len;
  int failed; /* the errno of the first failed write, or 0 */
} LbOutBuffer;

void lb_out_text(LbOutBuffer *b, const char *text);
void lb_out_number(LbOutBuffer *b, guint64 v);
/* Writes what is held; a failure is kept in b->failed. */
void lb_out_flush(LbOutBuffer *b);
/* Writes the rest and flushes standard output: the command's exit
 * status, 0, or 1 after one line saying why a write failed. */
int lb_out_finish(LbOutBuffer *b);
