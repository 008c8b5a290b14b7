/* The Paje trace as the user gets it, from SimGrid's: lean (SimGrid makes
 * a container for every link of the platform, a 64-rank hypercube's 832
 * rows beside 64 hosts, even when it traces none of their variables) and
 * with the messages' arrows, which SimGrid 3.32 draws for SMPI and MSG
 * but not for S4U. The field order of each event comes from the file's
 * own %EventDef header. */
#include <errno.h>
#include <glib/gstdio.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "io/output.h"
#include "report/paje.h"

/* the arrows' type and value, named apart from SimGrid's numbered aliases */
#define MESSAGE_TYPE "lbsim_message"
#define MESSAGE_VALUE "lbsim_message_value"

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

/* The field k of an event line after its id (a quoted field may hold
 * spaces), or NULL. */
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

/* One event of def with its fields given by name (NULL-terminated pairs);
 * a field not given is written as 0. */
static void
write_event(FILE *o, const EventDef *def, const char *const *pairs)
{
  fprintf(o, "%d", def->id);
  for (guint f = 0; f < def->fields->len; f++) {
    const char *value = "0";
    for (guint i = 0; pairs[i] != NULL; i += 2)
      if (strcmp(pairs[i], def->fields->pdata[f]) == 0)
        value = pairs[i + 1];
    fprintf(o, strpbrk(value, " \t") != NULL ? " \"%s\"" : " %s", value);
  }
  fputc('\n', o);
}

/* ---- the messages lbsim wrote beside the trace ---- */

typedef struct {
  double time;
  char *text; /* the time as written */
  guint src, dst, k;
  gboolean arrival;
} Message;

typedef struct {
  GPtrArray *hosts;  /* char *, by rank */
  GArray *messages;  /* Message, in time order; only those with both ends */
  guint next;        /* the first not written yet */
  GHashTable *alias; /* host name -> its container's alias */
  const char *type;  /* the HOST container type's alias, once known */
  gboolean declared; /* the arrows' type written */
} Messages;

static void
messages_clear(Messages *m)
{
  for (guint i = 0; m->messages != NULL && i < m->messages->len; i++)
    g_free(g_array_index(m->messages, Message, i).text);
  g_clear_pointer(&m->messages, g_array_unref);
  g_clear_pointer(&m->hosts, g_ptr_array_unref);
  g_clear_pointer(&m->alias, g_hash_table_unref);
}

static char *
message_key(guint src, guint dst, guint k)
{
  return g_strdup_printf("%u_%u_%u", src, dst, k);
}

/* The file lbsim's core wrote (src/core/trace.c), if any: an arrow needs
 * both ends (a message still in flight at the end has none). */
static gboolean
messages_read(const char *path, Messages *m, GError **error)
{
  m->hosts = g_ptr_array_new_with_free_func(g_free);
  m->messages = g_array_new(FALSE, FALSE, sizeof(Message));
  m->alias = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, g_free);
  if (!g_file_test(path, G_FILE_TEST_EXISTS))
    return TRUE;
  g_autofree char *text = NULL;
  if (!g_file_get_contents(path, &text, NULL, error))
    return FALSE;
  g_auto(GStrv) lines = g_strsplit(text, "\n", -1);
  g_autoptr(GHashTable) ends = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, NULL);
  for (guint i = 0; lines[i] != NULL; i++) {
    g_auto(GStrv) f = g_strsplit(lines[i], " ", -1);
    if (g_strv_length(f) == 3 && strcmp(f[0], "H") == 0)
      g_ptr_array_add(m->hosts, g_strdup(f[2]));
    if (g_strv_length(f) != 5 || (strcmp(f[0], "S") != 0 && strcmp(f[0], "E") != 0))
      continue;
    Message msg = {g_ascii_strtod(f[1], NULL),
                   g_strdup(f[1]),
                   (guint)g_ascii_strtoull(f[2], NULL, 10),
                   (guint)g_ascii_strtoull(f[3], NULL, 10),
                   (guint)g_ascii_strtoull(f[4], NULL, 10),
                   f[0][0] == 'E'};
    if (msg.src >= m->hosts->len || msg.dst >= m->hosts->len) {
      g_free(msg.text);
      continue;
    }
    if (msg.arrival)
      g_hash_table_add(ends, message_key(msg.src, msg.dst, msg.k));
    g_array_append_val(m->messages, msg);
  }
  guint kept = 0;
  for (guint i = 0; i < m->messages->len; i++) {
    Message *msg = &g_array_index(m->messages, Message, i);
    g_autofree char *key = message_key(msg->src, msg->dst, msg->k);
    if (msg->arrival || g_hash_table_contains(ends, key))
      g_array_index(m->messages, Message, kept++) = *msg;
    else
      g_free(msg->text);
  }
  g_array_set_size(m->messages, kept);
  return TRUE;
}

/* The arrows up to time (all of them, or those before it): from the
 * root container, between the ranks' hosts. */
static void
messages_write(FILE *o, Messages *m, const EventDef *start, const EventDef *end, double time,
               gboolean up_to)
{
  for (; m->next < m->messages->len; m->next++) {
    const Message *msg = &g_array_index(m->messages, Message, m->next);
    if (msg->time > time || (!up_to && msg->time == time))
      return;
    const char *host =
        g_hash_table_lookup(m->alias, m->hosts->pdata[msg->arrival ? msg->dst : msg->src]);
    if (host == NULL || !m->declared)
      continue;
    g_autofree char *key = message_key(msg->src, msg->dst, msg->k);
    const char *pairs[] = {
        "Time",       msg->text,     "Type",
        MESSAGE_TYPE, "Container",   "0",
        "Value",      MESSAGE_VALUE, msg->arrival ? "EndContainer" : "StartContainer",
        host,         "Key",         key,
        NULL};
    write_event(o, msg->arrival ? end : start, pairs);
  }
}

static const EventDef *
def_named(GPtrArray *defs, const char *name)
{
  for (guint i = 0; i < defs->len; i++)
    if (strcmp(((EventDef *)defs->pdata[i])->name, name) == 0)
      return defs->pdata[i];
  return NULL;
}

/* The header's definitions, as the copy reads them. */
typedef struct {
  const EventDef *type, *create, *destroy, *link_type, *value, *start, *end;
  int type_alias, type_name, create_alias, create_type, create_name, destroy_type;
} Header;

static void
header_read(GPtrArray *defs, Header *h)
{
  h->type = def_named(defs, "PajeDefineContainerType");
  h->create = def_named(defs, "PajeCreateContainer");
  h->destroy = def_named(defs, "PajeDestroyContainer");
  h->link_type = def_named(defs, "PajeDefineLinkType");
  h->value = def_named(defs, "PajeDefineEntityValue");
  h->start = def_named(defs, "PajeStartLink");
  h->end = def_named(defs, "PajeEndLink");
  h->type_alias = field_index(h->type, "Alias");
  h->type_name = field_index(h->type, "Name");
  h->create_alias = field_index(h->create, "Alias");
  h->create_type = field_index(h->create, "Type");
  h->create_name = field_index(h->create, "Name");
  h->destroy_type = field_index(h->destroy, "Type");
}

/* The time of an event line, when its event has one. */
static gboolean
event_time(GPtrArray *defs, int id, const char *line, double *time)
{
  for (guint i = 0; i < defs->len; i++) {
    const EventDef *d = defs->pdata[i];
    if (d->id != id)
      continue;
    int k = field_index(d, "Time");
    g_autofree char *text = k >= 0 ? field(line, k) : NULL;
    if (text == NULL)
      return FALSE;
    *time = g_ascii_strtod(text, NULL);
    return TRUE;
  }
  return FALSE;
}

gboolean
lb_paje_write(const char *from, gboolean lean, const char *path, GError **error)
{
  g_autofree char *messages_path = g_strconcat(from, ".messages", NULL);
  Messages m = {0};
  if (!messages_read(messages_path, &m, error)) {
    messages_clear(&m);
    return FALSE;
  }
  FILE *in = g_fopen(from, "r");
  if (in == NULL) {
    int errsv = errno;
    messages_clear(&m);
    g_set_error(error, G_FILE_ERROR, g_file_error_from_errno(errsv), "cannot read %s: %s", from,
                g_strerror(errsv));
    return FALSE;
  }
  g_autoptr(LbOutput) out = lb_output_open(path, error);
  if (out == NULL) {
    fclose(in);
    messages_clear(&m);
    return FALSE;
  }
  FILE *o = lb_output_stream(out);
  g_autoptr(GPtrArray) defs = g_ptr_array_new_with_free_func((GDestroyNotify)event_def_free);
  EventDef *open = NULL;
  Header h = {0};
  g_autofree char *link_type = NULL; /* the LINK container type's alias */
  g_autofree char *host_type = NULL; /* the HOST container type's alias */
  char *line = NULL;
  size_t cap = 0;
  while (getline(&line, &cap, in) > 0) {
    if (line[0] == '#' && strstr(line, from) != NULL) {
      /* SimGrid's command line names the private file: the user's instead,
       * so that the same run gives the same bytes */
      g_auto(GStrv) parts = g_strsplit(line, from, -1);
      g_autofree char *named = g_strjoinv(path, parts);
      fputs(named, o);
      continue;
    }
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
        header_read(defs, &h);
      } else if (open != NULL && words->len >= 1) {
        g_ptr_array_add(open->fields, g_strdup(words->pdata[0]));
      }
      fputs(line, o);
      continue;
    }
    int id = g_ascii_isdigit(line[0]) ? atoi(line) : -1;
    double time = 0;
    if (id >= 0 && event_time(defs, id, line, &time))
      messages_write(o, &m, h.start, h.end, time, h.destroy != NULL && id == h.destroy->id);
    if (h.type != NULL && id == h.type->id) {
      g_autofree char *name = field(line, h.type_name);
      if (g_strcmp0(name, "LINK") == 0 && link_type == NULL)
        link_type = field(line, h.type_alias);
      if (g_strcmp0(name, "HOST") == 0 && host_type == NULL) {
        host_type = field(line, h.type_alias);
        fputs(line, o);
        if (h.link_type != NULL && h.value != NULL && h.start != NULL && h.end != NULL &&
            m.messages->len > 0) {
          const char *type[] = {
              "Alias",   MESSAGE_TYPE,       "Type",    "0",    "StartContainerType",
              host_type, "EndContainerType", host_type, "Name", "message",
              NULL};
          const char *value[] = {"Alias",   MESSAGE_VALUE, "Type",  MESSAGE_TYPE, "Name",
                                 "message", "Color",       "1 1 1", NULL};
          write_event(o, h.link_type, type);
          write_event(o, h.value, value);
          m.declared = TRUE;
        }
        continue;
      }
    } else if (h.create != NULL && id == h.create->id) {
      g_autofree char *type = field(line, h.create_type);
      if (lean && link_type != NULL && g_strcmp0(type, link_type) == 0)
        continue;
      if (host_type != NULL && g_strcmp0(type, host_type) == 0)
        g_hash_table_insert(m.alias, field(line, h.create_name), field(line, h.create_alias));
    } else if (lean && link_type != NULL && h.destroy != NULL && id == h.destroy->id) {
      g_autofree char *type = field(line, h.destroy_type);
      if (g_strcmp0(type, link_type) == 0)
        continue;
    }
    fputs(line, o);
  }
  free(line);
  messages_write(o, &m, h.start, h.end, G_MAXDOUBLE, TRUE);
  messages_clear(&m);
  gboolean read_ok = !ferror(in);
  fclose(in);
  if (!read_ok) {
    g_set_error(error, G_FILE_ERROR, G_FILE_ERROR_IO, "cannot read %s", from);
    return FALSE;
  }
  if (!lb_output_commit(g_steal_pointer(&out), error))
    return FALSE;
  g_unlink(from);
  g_unlink(messages_path);
  return TRUE;
}
