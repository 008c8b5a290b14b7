/* A lean Paje trace: SimGrid makes a container for every link of the
 * platform (a 64-rank hypercube: 144 rows beside 64 hosts) even when it
 * traces none of their variables. The copy leaves out the links'
 * PajeCreateContainer and PajeDestroyContainer events; the field order of
 * each event is read from the file's own %EventDef header. */
#include <errno.h>
#include <glib/gstdio.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "io/output.h"
#include "report/paje.h"

typedef struct {
  char *name; /* PajeCreateContainer, ... */
  int id;
  GPtrArray *fields; /* char *, in order */
} EventDef;

static void
event_def_free(EventDef *d)
{
  g_free(d->name);
  g_ptr_array_unref(d->fields);
  g_free(d);
}

static int
field_index(const EventDef *d, const char *name)
{
  for (guint i = 0; d != NULL && i < d->fields->len; i++)
    if (strcmp(d->fields->pdata[i], name) == 0)
      return (int)i;
  return -1;
}

/* The whitespace-separated field k of an event line after its id
 * (quoted fields hold spaces), or NULL. */
static char *
field(const char *line, int k)
{
  const char *p = line + strspn(line, " \t");
  p += strcspn(p, " \t"); /* the event's id */
  for (int i = 0; k >= 0 && *p != '\0'; i++) {
    p += strspn(p, " \t\r\n");
    if (*p == '\0')
      break;
    const char *end = *p == '"' ? strchr(p + 1, '"') : p + strcspn(p, " \t\r\n");
    if (end == NULL)
      return NULL;
    if (*p == '"')
      end++;
    if (i == k)
      return *p == '"' ? g_strndup(p + 1, end - p - 2) : g_strndup(p, end - p);
    p = end;
  }
  return NULL;
}

static const EventDef *
def_named(GPtrArray *defs, const char *name)
{
  for (guint i = 0; i < defs->len; i++)
    if (strcmp(((EventDef *)defs->pdata[i])->name, name) == 0)
      return defs->pdata[i];
  return NULL;
}

gboolean
lb_paje_write_lean(const char *from, const char *path, GError **error)
{
  FILE *in = g_fopen(from, "r");
  if (in == NULL) {
    int errsv = errno;
    g_set_error(error, G_FILE_ERROR, g_file_error_from_errno(errsv), "cannot read %s: %s", from,
                g_strerror(errsv));
    return FALSE;
  }
  g_autoptr(LbOutput) out = lb_output_open(path, error);
  if (out == NULL) {
    fclose(in);
    return FALSE;
  }
  FILE *o = lb_output_stream(out);
  g_autoptr(GPtrArray) defs = g_ptr_array_new_with_free_func((GDestroyNotify)event_def_free);
  EventDef *open = NULL;
  const EventDef *type_def = NULL, *create = NULL, *destroy = NULL;
  int create_type = -1, destroy_type = -1, type_alias = -1, type_name = -1;
  g_autofree char *link_type = NULL; /* the alias of the LINK container type */
  char *line = NULL;
  size_t cap = 0;
  while (getline(&line, &cap, in) > 0) {
    if (line[0] == '%') {
      g_auto(GStrv) w = g_strsplit_set(line + 1, " \t\r\n", -1);
      g_autoptr(GPtrArray) words = g_ptr_array_new();
      for (guint i = 0; w[i] != NULL; i++)
        if (*w[i] != '\0')
          g_ptr_array_add(words, w[i]);
      if (words->len == 3 && strcmp(words->pdata[0], "EventDef") == 0) {
        open = g_new0(EventDef, 1);
        open->name = g_strdup(words->pdata[1]);
        open->id = atoi(words->pdata[2]);
        open->fields = g_ptr_array_new_with_free_func(g_free);
        g_ptr_array_add(defs, open);
      } else if (words->len >= 1 && strcmp(words->pdata[0], "EndEventDef") == 0) {
        open = NULL;
        type_def = def_named(defs, "PajeDefineContainerType");
        create = def_named(defs, "PajeCreateContainer");
        destroy = def_named(defs, "PajeDestroyContainer");
        type_alias = field_index(type_def, "Alias");
        type_name = field_index(type_def, "Name");
        create_type = field_index(create, "Type");
        destroy_type = field_index(destroy, "Type");
      } else if (open != NULL && words->len >= 1) {
        g_ptr_array_add(open->fields, g_strdup(words->pdata[0]));
      }
      fputs(line, o);
      continue;
    }
    int id = g_ascii_isdigit(line[0]) ? atoi(line) : -1;
    if (type_def != NULL && id == type_def->id && link_type == NULL) {
      g_autofree char *name = field(line, type_name);
      if (g_strcmp0(name, "LINK") == 0)
        link_type = field(line, type_alias);
    } else if (link_type != NULL && create != NULL && id == create->id) {
      g_autofree char *type = field(line, create_type);
      if (g_strcmp0(type, link_type) == 0)
        continue;
    } else if (link_type != NULL && destroy != NULL && id == destroy->id) {
      g_autofree char *type = field(line, destroy_type);
      if (g_strcmp0(type, link_type) == 0)
        continue;
    }
    fputs(line, o);
  }
  free(line);
  gboolean read_ok = !ferror(in);
  fclose(in);
  if (!read_ok) {
    g_set_error(error, G_FILE_ERROR, G_FILE_ERROR_IO, "cannot read %s", from);
    return FALSE;
  }
  if (!lb_output_commit(g_steal_pointer(&out), error))
    return FALSE;
  g_unlink(from);
  return TRUE;
}
