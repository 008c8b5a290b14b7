/* Every file lbsim reads comes through here: a regular file within the cap
 * of its kind, checked before a byte is read, so a device, a FIFO or a
 * file larger than anything lbsim could use is an input error, never a
 * read without end. */
#pragma once

#include <glib.h>
#include <json-glib/json-glib.h>

typedef enum {
  LB_INPUT_SCENARIO,    /* a scenario or job file */
  LB_INPUT_PLATFORM,    /* SimGrid's platform XML */
  LB_INPUT_LOADS,       /* whitespace-separated integers: loads or counts */
  LB_INPUT_HIERARCHY,   /* a SAMR grid hierarchy */
  LB_INPUT_COSTS,       /* a loop's iteration costs */
  LB_INPUT_RESULT,      /* lbsim's JSON: a run's, a sweep's, a child's */
  LB_INPUT_SWEEP_STATE, /* a sweep's definition, STATE/sweep.ini */
  LB_INPUT_KINDS,
} LbInputKind;

/* The cap of a kind, in bytes, and its name in messages ("a scenario"). */
guint64 lb_input_cap(LbInputKind kind);
const char *lb_input_kind_name(LbInputKind kind);

/* The deepest nesting of arrays and objects lbsim reads in JSON. */
#define LB_INPUT_JSON_DEPTH 64

/* Without reading it: path is a regular file (after symlinks) within the
 * cap of kind. The error names path (G_FILE_ERROR). */
gboolean lb_input_check(const char *path, LbInputKind kind, GError **error);

/* Reads the whole of path, checked as lb_input_check does; *text ends in
 * a NUL not counted in *length (length may be NULL). */
gboolean lb_input_read(const char *path, LbInputKind kind, char **text, gsize *length,
                       GError **error);

/* At most max bytes from the start of path, which must be a regular file
 * (any size); NULL terminated. FALSE with nothing set when path cannot
 * be read as such: for a look at what a file is before deciding. */
gboolean lb_input_read_prefix(const char *path, gsize max, char **text, gsize *length);

/* Every file this process has read through lb_input_read, in order
 * (kind, then path: what a command checks its outputs against). */
typedef struct {
  LbInputKind kind;
  char *path;
} LbInputFile;
const GArray *lb_input_files(void);

/* The deepest nesting of '[' and '{' in JSON text, outside strings: a
 * parser that recurses is given only text within LB_INPUT_JSON_DEPTH. */
guint lb_input_json_depth(const char *text, gsize length);

/* text (length bytes) as a JSON object, its nesting checked first: the
 * parser that owns *root, or NULL with error (domain, code) "arrays and
 * objects nested more than 64 deep", "not JSON: ..." or not_object. */
JsonParser *lb_input_json_object(const char *text, gsize length, const char *not_object,
                                 GQuark domain, gint code, JsonObject **root, GError **error);
