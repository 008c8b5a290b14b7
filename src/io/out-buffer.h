/* Standard output in large blocks, for commands that print millions of
 * short lines (lbsim curve, lbsim chunks). */
#pragma once

#include <glib.h>
#include <stdio.h>

#include "io/output.h"

typedef struct {
  char data[1 << 16];
  gsize len;
  int failed;   /* the errno of the first failed write, or 0 */
  FILE *stream; /* where it goes: NULL for standard output */
} LbOutBuffer;

void lb_out_text(LbOutBuffer *b, const char *text);
void lb_out_number(LbOutBuffer *b, guint64 v);
/* Writes what is held; a failure is kept in b->failed. */
void lb_out_flush(LbOutBuffer *b);
/* Writes the rest and flushes standard output: the command's exit
 * status, 0, or 1 after one line saying why a write failed. */
int lb_out_finish(LbOutBuffer *b);

/* A --json FILE of lbsim curve and chunks: NULL when not asked for or
 * "-" (then the JSON is standard output's buffer), else the file opened
 * by the output rules, which lb_out_close_file puts in place: 0, or 1
 * after one line saying why. */
LbOutput *lb_out_open_file(const char *path, LbOutBuffer *b, int *status);
int lb_out_close_file(LbOutput *file, LbOutBuffer *b, const char *path);
/* The end of a command that writes lines on standard output and, with
 * --json FILE, an array to FILE (file, from lb_out_open_file) or, with
 * --json -, to standard output instead of the lines: the exit status. */
int lb_out_end(LbOutBuffer *lines, LbOutBuffer *array, LbOutput *file, const char *json);
