/* The frames of explain's lesson, from a narrated run's result: see
 * lesson.h. */
#include "report/lesson.h"

#include <gio/gio.h>
#include <string.h>

#include "io/output.h"
#include "lbsim/scenario.h"
#include "report/story.h"
#include "report/json-writer.h"

/* generated from report/lesson/ (lesson.js, lesson.css) */
GResource *lb_lesson_get_resource(void);

typedef struct {
  guint adaptation, stage;
  int phase;
  double first;  /* the earliest time of its events */
  guint seen;    /* the order it first appeared in */
  GArray *times; /* a balancer that owns the compute: its frames' times, ascending */
} Section;

typedef struct {
  guint section;
  guint step;                       /* by step, or */
  double at;                        /* by time (a balancer that owns the compute) */
  double time;                      /* its earliest event */
  double end;                       /* its latest */
  GArray *notes, *sent, *transfers; /* indices in the run's arrays */
} Frame;

typedef struct {
  const LbLesson *lesson;
  gboolean by_time; /* the balancer owns the compute: frames by time */
  GArray *sections; /* Section */
  GHashTable *section_of;
  GPtrArray *frames; /* Frame */
  GHashTable *frame_of;
} Cut;

static void
frame_free(gpointer data)
{
  Frame *f = data;
  g_array_unref(f->notes);
  g_array_unref(f->sent);
  g_array_unref(f->transfers);
  g_free(f);
}

static void
cut_clear(Cut *c)
{
  for (guint i = 0; c->sections != NULL && i < c->sections->len; i++)
    g_clear_pointer(&g_array_index(c->sections, Section, i).times, g_array_unref);
  g_clear_pointer(&c->sections, g_array_unref);
  g_clear_pointer(&c->section_of, g_hash_table_unref);
  g_clear_pointer(&c->frames, g_ptr_array_unref);
  g_clear_pointer(&c->frame_of, g_hash_table_unref);
}
G_DEFINE_AUTO_CLEANUP_CLEAR_FUNC(Cut, cut_clear)

static guint
section_at(Cut *c, guint adaptation, guint stage, int phase, double time)
{
  g_autofree char *key = g_strdup_printf("%u/%u/%d", adaptation, stage, phase);
  gpointer found;
  if (g_hash_table_lookup_extended(c->section_of, key, NULL, &found)) {
    Section *s = &g_array_index(c->sections, Section, GPOINTER_TO_UINT(found));
    s->first = MIN(s->first, time);
    return GPOINTER_TO_UINT(found);
  }
  Section s = {adaptation, stage, phase, time, c->sections->len, NULL};
  if (c->by_time)
    s.times = g_array_new(FALSE, FALSE, sizeof(double));
  g_array_append_val(c->sections, s);
  g_hash_table_insert(c->section_of, g_steal_pointer(&key), GUINT_TO_POINTER(s.seen));
  return s.seen;
}

/* By time: the frame of an event is the latest of its section's times
 * not after it (the first, before them all). */
static double
frame_time(const Section *s, double time)
{
  double at = g_array_index(s->times, double, 0);
  for (guint i = 0; i < s->times->len && g_array_index(s->times, double, i) <= time; i++)
    at = g_array_index(s->times, double, i);
  return at;
}

static Frame *
frame_at(Cut *c, guint section, guint step, double time)
{
  const Section *s = &g_array_index(c->sections, Section, section);
  double at = c->by_time ? frame_time(s, time) : 0;
  if (c->by_time)
    step = 0;
  g_autofree char *key = g_strdup_printf("%u/%u/%.9f", section, step, at);
  Frame *f = g_hash_table_lookup(c->frame_of, key);
  if (f == NULL) {
    f = g_new0(Frame, 1);
    *f = (Frame){section,
                 step,
                 at,
                 time,
                 time,
                 g_array_new(FALSE, FALSE, sizeof(guint)),
                 g_array_new(FALSE, FALSE, sizeof(guint)),
                 g_array_new(FALSE, FALSE, sizeof(guint))};
    g_ptr_array_add(c->frames, f);
    g_hash_table_insert(c->frame_of, g_steal_pointer(&key), f);
  }
  f->time = MIN(f->time, time);
  f->end = MAX(f->end, time);
  return f;
}

static int
compare_doubles(gconstpointer a, gconstpointer b)
{
  double x = *(const double *)a, y = *(const double *)b;
  return x < y ? -1 : x > y;
}

static GArray *section_rank; /* section -> its place in time order, while sorting */

static int
compare_sections(gconstpointer a, gconstpointer b)
{
  const Section *x = a, *y = b;
  if (x->adaptation != y->adaptation)
    return x->adaptation < y->adaptation ? -1 : 1;
  if (x->first != y->first)
    return x->first < y->first ? -1 : 1;
  return x->seen < y->seen ? -1 : x->seen > y->seen;
}

static int
compare_frames(gconstpointer a, gconstpointer b)
{
  const Frame *x = *(Frame *const *)a, *y = *(Frame *const *)b;
  guint sx = g_array_index(section_rank, guint, x->section);
  guint sy = g_array_index(section_rank, guint, y->section);
  if (sx != sy)
    return sx < sy ? -1 : 1;
  if (x->step != y->step)
    return x->step < y->step ? -1 : 1;
  return x->at < y->at ? -1 : x->at > y->at;
}

/* Every event into its section, then into its frame; the frames in story
 * order: the sections as they first happened, each section's steps (or
 * times) ascending. */
static void
cut_frames(Cut *c)
{
  const LbRunResult *run = c->lesson->run;
  c->sections = g_array_new(FALSE, FALSE, sizeof(Section));
  c->section_of = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, NULL);
  c->frames = g_ptr_array_new_with_free_func(frame_free);
  c->frame_of = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, NULL);
  guint nnotes = run->notes != NULL ? run->notes->len : 0;
  guint nsent = run->sent != NULL ? run->sent->len : 0;
  guint ntransfers = run->transfers != NULL ? run->transfers->len : 0;
  g_autofree guint *note_section = g_new(guint, MAX(nnotes, 1));
  g_autofree guint *sent_section = g_new(guint, MAX(nsent, 1));
  g_autofree guint *transfer_section = g_new(guint, MAX(ntransfers, 1));
  for (guint i = 0; i < nnotes; i++) {
    const LbNote *n = &g_array_index(run->notes, LbNote, i);
    note_section[i] = section_at(c, n->adaptation, n->stage, n->phase, n->time);
    if (c->by_time)
      g_array_append_val(g_array_index(c->sections, Section, note_section[i]).times, n->time);
  }
  for (guint i = 0; i < nsent; i++) {
    const LbSent *m = &g_array_index(run->sent, LbSent, i);
    sent_section[i] = section_at(c, m->adaptation, m->stage, m->phase, m->time);
  }
  for (guint i = 0; i < ntransfers; i++) {
    const LbTransfer *t = &g_array_index(run->transfers, LbTransfer, i);
    transfer_section[i] = section_at(c, t->adaptation, t->stage, t->phase, t->time);
  }
  for (guint i = 0; c->by_time && i < c->sections->len; i++) {
    Section *s = &g_array_index(c->sections, Section, i);
    if (s->times->len == 0)
      g_array_append_val(s->times, s->first);
    g_array_sort(s->times, compare_doubles);
  }
  for (guint i = 0; i < nnotes; i++) {
    const LbNote *n = &g_array_index(run->notes, LbNote, i);
    g_array_append_val(frame_at(c, note_section[i], n->step, n->time)->notes, i);
  }
  for (guint i = 0; i < nsent; i++) {
    const LbSent *m = &g_array_index(run->sent, LbSent, i);
    g_array_append_val(frame_at(c, sent_section[i], m->step, m->time)->sent, i);
  }
  for (guint i = 0; i < ntransfers; i++) {
    const LbTransfer *t = &g_array_index(run->transfers, LbTransfer, i);
    g_array_append_val(frame_at(c, transfer_section[i], t->step, t->time)->transfers, i);
  }
  g_autoptr(GArray) order = g_array_copy(c->sections);
  g_array_sort(order, compare_sections);
  section_rank = g_array_new(FALSE, TRUE, sizeof(guint));
  g_array_set_size(section_rank, c->sections->len);
  for (guint i = 0; i < order->len; i++)
    g_array_index(section_rank, guint, g_array_index(order, Section, i).seen) = i;
  g_ptr_array_sort(c->frames, compare_frames);
  g_clear_pointer(&section_rank, g_array_unref);
}

static const char *
unit_word(const char *model, guint64 n)
{
  static const char *const words[][3] = {
      {"array1d", "element", "elements"}, {"field2d", "cell", "cells"},
      {"field3d", "cell", "cells"},       {"htree", "hnode", "hnodes"},
      {"samr", "grid", "grids"},          {"loop", "iteration", "iterations"},
  };
  for (guint i = 0; i < G_N_ELEMENTS(words); i++)
    if (g_strcmp0(model, words[i][0]) == 0)
      return words[i][n == 1 ? 1 : 2];
  return n == 1 ? "unit" : "units";
}

static char *
frame_title(const LbLesson *l, const Section *s, const Frame *f)
{
  const LbRunResult *run = l->run;
  g_autoptr(GString) t = g_string_new(NULL);
  if (run->nadaptations > 1)
    g_string_append_printf(t, "adaptation step %u, ", s->adaptation);
  if (run->stages != NULL && s->stage < run->stages->len &&
      *(const char *)run->stages->pdata[s->stage] != '\0')
    g_string_append_printf(t, "%s, ", (const char *)run->stages->pdata[s->stage]);
  g_string_append(t, s->phase >= 0 && (guint)s->phase < run->nphases ? run->phases[s->phase].name
                                                                     : "-");
  if (f->at > 0 || l->run->chunks != NULL)
    g_string_append_printf(t, " at %.6f s", f->at);
  else
    g_string_append_printf(t, ", step %u", f->step);
  return g_string_free(g_steal_pointer(&t), FALSE);
}

static void
write_loads(LbJson *j, const char *key, const guint64 *loads, guint n)
{
  lb_json_begin_array(j, key, TRUE);
  for (guint r = 0; r < n; r++)
    lb_json_uint(j, NULL, loads[r]);
  lb_json_end_array(j);
}

/* The 1D array's pieces: every rank's first and last element and how
 * many it holds (-1, -1, 0: none). */
static void
write_ranges(LbJson *j, const guint32 *owner, guint64 nunits, guint ranks)
{
  g_autofree gint64 *lo = g_new(gint64, ranks), *hi = g_new(gint64, ranks);
  g_autofree guint64 *count = g_new0(guint64, ranks);
  for (guint r = 0; r < ranks; r++)
    lo[r] = hi[r] = -1;
  for (guint64 id = 0; id < nunits; id++) {
    guint r = owner[id];
    if (lo[r] < 0)
      lo[r] = (gint64)id;
    hi[r] = (gint64)id;
    count[r]++;
  }
  lb_json_begin_array(j, "ranges", TRUE);
  for (guint r = 0; r < ranks; r++) {
    lb_json_begin_array(j, NULL, TRUE);
    lb_json_int(j, NULL, lo[r]);
    lb_json_int(j, NULL, hi[r]);
    lb_json_uint(j, NULL, count[r]);
    lb_json_end_array(j);
  }
  lb_json_end_array(j);
}

static void
write_frame_events(LbJson *j, const LbLesson *l, const Frame *f)
{
  const LbRunResult *run = l->run;
  lb_json_begin_array(j, "messages", FALSE);
  for (guint i = 0; i < f->sent->len; i++) {
    const LbSent *m = &g_array_index(run->sent, LbSent, g_array_index(f->sent, guint, i));
    g_autofree char *label =
        m->label != NULL ? g_strdup(m->label)
        : m->units > 0
            ? g_strdup_printf("%" G_GUINT64_FORMAT " %s, load %" G_GUINT64_FORMAT, m->units,
                              unit_word(l->model, m->units), m->load)
            : g_strdup(m->phase >= 0 && (guint)m->phase < run->nphases ? run->phases[m->phase].name
                                                                       : "message");
    lb_json_begin_array(j, NULL, TRUE);
    lb_json_uint(j, NULL, m->src);
    lb_json_uint(j, NULL, m->dst);
    lb_json_double(j, NULL, m->bytes);
    lb_json_string(j, NULL, label);
    lb_json_uint(j, NULL, m->units);
    lb_json_uint(j, NULL, m->load);
    lb_json_double(j, NULL, m->time);
    lb_json_int(j, NULL, m->resized);
    lb_json_end_array(j);
  }
  lb_json_end_array(j);
  lb_json_begin_array(j, "moves", FALSE);
  for (guint i = 0; i < f->transfers->len; i++) {
    const LbTransfer *t =
        &g_array_index(run->transfers, LbTransfer, g_array_index(f->transfers, guint, i));
    lb_json_begin_array(j, NULL, TRUE);
    lb_json_uint(j, NULL, t->src);
    lb_json_uint(j, NULL, t->dst);
    lb_json_uint(j, NULL, t->first);
    lb_json_uint(j, NULL, t->count);
    lb_json_uint(j, NULL, t->load);
    lb_json_end_array(j);
  }
  lb_json_end_array(j);
  lb_json_begin_array(j, "lines", FALSE);
  for (guint i = 0; i < f->notes->len; i++)
    lb_json_string(j, NULL, run->narration->pdata[g_array_index(f->notes, guint, i)]);
  lb_json_end_array(j);
}

/* Every rank's load once the frame ends: what it held at the start of the
 * frame's step with the transfers so far applied, or, for a balancer that
 * owns the compute, the work of the chunks it finished by then. */
static void
frame_loads(const LbLesson *l, const Section *s, const Frame *f, guint *adaptation, guint64 *loads)
{
  const LbRunResult *run = l->run;
  guint p = run->ranks;
  if (run->chunks != NULL) {
    memset(loads, 0, sizeof(guint64) * p);
    for (guint i = 0; i < run->chunks->len; i++) {
      const LbChunk *ch = &g_array_index(run->chunks, LbChunk, i);
      if (ch->adaptation == s->adaptation && ch->ended <= f->end)
        loads[ch->rank] += ch->load;
    }
    return;
  }
  if (s->adaptation != *adaptation) {
    *adaptation = s->adaptation;
    memcpy(loads, run->loads_at_start + (gsize)s->adaptation * p, sizeof(guint64) * p);
  }
  for (guint i = 0; i < f->transfers->len; i++) {
    const LbTransfer *t =
        &g_array_index(run->transfers, LbTransfer, g_array_index(f->transfers, guint, i));
    loads[t->src] -= t->load;
    loads[t->dst] += t->load;
  }
  for (guint i = 0; i < f->sent->len; i++) {
    const LbSent *m = &g_array_index(run->sent, LbSent, g_array_index(f->sent, guint, i));
    loads[m->src] = (guint64)((gint64)loads[m->src] + m->resized);
  }
}

/* A 2D tree's leaves at every adaptation step, in the curve's order (leaves
 * do not overlap, so the position of their first finest cell orders them),
 * as the model rebuilds each step's tree. */
typedef struct {
  guint64 key;
  LbLeaf leaf;
} KeyedLeaf;

static int
compare_keyed(gconstpointer a, gconstpointer b)
{
  guint64 x = ((const KeyedLeaf *)a)->key, y = ((const KeyedLeaf *)b)->key;
  return x < y ? -1 : x > y;
}

/* a page draws a square of at most this many leaves a step, each frame
 * naming every leaf's owner: a bigger tree is no lesson */
#define MAX_LEAVES 1024

static GPtrArray *
tree_leaves(const LbLesson *l, guint *order)
{
  const LbRunResult *run = l->run;
  if (l->work == NULL || l->work->dim != 2 || run->units_at_start == NULL ||
      l->work->model->leaves == NULL)
    return NULL;
  *order = (guint)__builtin_ctzll(l->work->size[0]);
  GPtrArray *steps = g_ptr_array_new_with_free_func((GDestroyNotify)g_array_unref);
  for (guint a = 0; a < run->nadaptations; a++) {
    g_autoptr(GArray) none = g_array_new(FALSE, FALSE, sizeof(LbUnit));
    lb_work_update((LbWork *)l->work, 0, none, a); /* builds the tree of step a */
    g_autoptr(GArray) leaves = g_array_new(FALSE, FALSE, sizeof(LbLeaf));
    l->work->model->leaves(l->work, leaves);
    if (leaves->len > MAX_LEAVES) {
      g_ptr_array_unref(steps);
      return NULL;
    }
    GArray *keyed = g_array_sized_new(FALSE, FALSE, sizeof(KeyedLeaf), leaves->len);
    for (guint i = 0; i < leaves->len; i++) {
      const LbLeaf *f = &g_array_index(leaves, LbLeaf, i);
      KeyedLeaf k = {lb_curve_cube_start(l->curve, 2, *order, f->level, f->coords), *f};
      g_array_append_val(keyed, k);
    }
    g_array_sort(keyed, compare_keyed);
    g_ptr_array_add(steps, keyed);
  }
  return steps;
}

static void
write_tree(LbJson *j, const GPtrArray *steps, guint order)
{
  lb_json_begin_object(j, "tree");
  lb_json_uint(j, "order", order);
  lb_json_begin_array(j, "steps", FALSE);
  for (guint a = 0; a < steps->len; a++) {
    const GArray *keyed = steps->pdata[a];
    lb_json_begin_array(j, NULL, FALSE);
    for (guint i = 0; i < keyed->len; i++) {
      const LbLeaf *f = &g_array_index(keyed, KeyedLeaf, i).leaf;
      lb_json_begin_array(j, NULL, TRUE);
      guint64 v[] = {f->id, f->level, f->coords[0], f->coords[1]};
      for (guint k = 0; k < G_N_ELEMENTS(v); k++)
        lb_json_uint(j, NULL, v[k]);
      lb_json_end_array(j);
    }
    lb_json_end_array(j);
  }
  lb_json_end_array(j);
  lb_json_end_object(j);
}

/* Every leaf's owner once the frame ends: what held it as the frame's
 * step started, the frame's transfers so far applied. */
static void
write_leaf_owners(LbJson *j, const LbLesson *l, const GPtrArray *steps, guint adaptation,
                  GHashTable *owner)
{
  const GArray *keyed = steps->pdata[adaptation];
  lb_json_begin_array(j, "leaf_owners", TRUE);
  for (guint i = 0; i < keyed->len; i++) {
    guint64 id = g_array_index(keyed, KeyedLeaf, i).leaf.id;
    gpointer r = NULL;
    lb_json_int(j, NULL,
                g_hash_table_lookup_extended(owner, &id, NULL, &r) ? GPOINTER_TO_INT(r) : -1);
  }
  lb_json_end_array(j);
}

static void
owners_at_start(const LbLesson *l, guint adaptation, GHashTable *owner, GArray *ids)
{
  const LbRunResult *run = l->run;
  g_hash_table_remove_all(owner);
  g_array_set_size(ids, 0);
  for (guint r = 0; r < run->ranks; r++) {
    const GArray *units = run->units_at_start->pdata[adaptation * run->ranks + r];
    for (guint i = 0; units != NULL && i < units->len; i++)
      g_array_append_val(ids, g_array_index(units, LbUnit, i).id);
  }
  /* ids stays as it is from here on: the table keys point into it */
  guint at = 0;
  for (guint r = 0; r < run->ranks; r++) {
    const GArray *units = run->units_at_start->pdata[adaptation * run->ranks + r];
    for (guint i = 0; units != NULL && i < units->len; i++, at++)
      g_hash_table_insert(owner, &g_array_index(ids, guint64, at), GINT_TO_POINTER(r));
  }
}

static void
write_case(LbJson *j, const LbLesson *l)
{
  const LbRunResult *run = l->run;
  lb_json_string(j, "format", LB_LESSON_FORMAT);
  lb_json_uint(j, "version", LB_LESSON_VERSION);
  lb_json_string(j, "lbsim", l->version);
  lb_json_string(j, "balancer", l->balancer->name);
  lb_json_string(j, "label", l->label);
  lb_json_string(j, "summary", l->balancer->summary);
  lb_json_uint(j, "ranks", run->ranks);
  lb_json_string(j, "platform", l->platform);
  const LbMachine *m = &run->machine;
  lb_json_string(j, "topology",
                 m->topology != NULL                          ? m->topology
                 : g_str_has_prefix(l->platform, "hypercube") ? "hypercube"
                                                              : "ranks");
  if (m->ranks != NULL) {
    /* where every rank ran: its host, the host's speed, its switch */
    lb_json_begin_array(j, "dims", TRUE);
    for (guint k = 0; k < m->ndims; k++)
      lb_json_uint(j, NULL, m->dims[k]);
    lb_json_end_array(j);
    lb_json_begin_array(j, "hosts", FALSE);
    for (guint r = 0; r < run->ranks; r++) {
      lb_json_begin_array(j, NULL, TRUE);
      lb_json_uint(j, NULL, m->ranks[r].host);
      lb_json_double(j, NULL, m->ranks[r].speed);
      lb_json_uint(j, NULL, m->ranks[r].group);
      lb_json_end_array(j);
    }
    lb_json_end_array(j);
  }
  lb_json_string(j, "model", l->model);
  lb_json_string(j, "unit", unit_word(l->model, 2));
  lb_json_uint(j, "units", l->nunits);
  lb_json_uint(j, "nadaptations", run->nadaptations);
  if (l->dim > 0) {
    lb_json_begin_array(j, "size", TRUE);
    for (guint a = 0; a < l->dim; a++)
      lb_json_uint(j, NULL, l->size[a]);
    lb_json_end_array(j);
  }
  lb_json_begin_array(j, "phases", TRUE);
  for (guint p = 0; p < run->nphases; p++)
    lb_json_string(j, NULL, run->phases[p].name);
  lb_json_end_array(j);
  if (l->blocks != NULL) {
    lb_json_begin_array(j, "blocks", FALSE);
    for (guint i = 0; i < l->blocks->len; i++) {
      const LbExplainBlock *b = &g_array_index(l->blocks, LbExplainBlock, i);
      lb_json_begin_array(j, NULL, TRUE);
      guint64 v[] = {b->level, b->first, b->size, b->load, b->desired};
      for (guint k = 0; k < G_N_ELEMENTS(v); k++)
        lb_json_uint(j, NULL, v[k]);
      lb_json_end_array(j);
    }
    lb_json_end_array(j);
  }
  if (run->chunks != NULL) {
    lb_json_begin_array(j, "chunks", FALSE);
    for (guint i = 0; i < run->chunks->len; i++) {
      const LbChunk *ch = &g_array_index(run->chunks, LbChunk, i);
      lb_json_begin_array(j, NULL, TRUE);
      guint64 v[] = {ch->adaptation, ch->rank, ch->owner, ch->first, ch->count, ch->load};
      for (guint k = 0; k < G_N_ELEMENTS(v); k++)
        lb_json_uint(j, NULL, v[k]);
      lb_json_double(j, NULL, ch->began);
      lb_json_double(j, NULL, ch->ended);
      lb_json_end_array(j);
    }
    lb_json_end_array(j);
  }
  if (g_strcmp0(l->model, "samr") == 0 && l->initial != NULL) {
    /* every grid before balancing: its rank, id and load */
    lb_json_begin_array(j, "grids", FALSE);
    for (guint r = 0; r < run->ranks; r++)
      for (guint i = 0; i < l->initial[r]->len; i++) {
        const LbUnit *u = &g_array_index(l->initial[r], LbUnit, i);
        lb_json_begin_array(j, NULL, TRUE);
        lb_json_uint(j, NULL, r);
        lb_json_uint(j, NULL, u->id);
        lb_json_uint(j, NULL, u->load);
        lb_json_end_array(j);
      }
    lb_json_end_array(j);
  }
  lb_json_string(j, "intro", l->intro);
  lb_json_string(j, "story", l->story);
}

/* The owner of every unit id before the first balancing, for models whose
 * ids number 0 .. nunits - 1 and whose units never split (the 1D array,
 * a field's cells); NULL otherwise. */
static guint32 *
initial_owner(const LbLesson *l)
{
  gboolean dense = g_strcmp0(l->model, "array1d") == 0 || l->dim > 0;
  if (!dense || l->initial == NULL || l->nunits == 0 || l->nunits > (1u << 24))
    return NULL;
  guint32 *owner = g_new0(guint32, l->nunits);
  for (guint r = 0; r < l->run->ranks; r++)
    for (guint i = 0; i < l->initial[r]->len; i++) {
      guint64 id = g_array_index(l->initial[r], LbUnit, i).id;
      if (id >= l->nunits) {
        g_free(owner);
        return NULL;
      }
      owner[id] = r;
    }
  return owner;
}

char *
lb_lesson_json(const LbLesson *l)
{
  const LbRunResult *run = l->run;
  g_auto(Cut) c = {.lesson = l, .by_time = run->chunks != NULL};
  cut_frames(&c);
  g_autoptr(GString) out = g_string_new(NULL);
  LbJson j;
  lb_json_init(&j, out);
  lb_json_begin_object(&j, NULL);
  write_case(&j, l);
  guint p = run->ranks;
  g_autofree guint64 *loads = g_new0(guint64, p);
  if (run->chunks == NULL && run->loads_at_start != NULL)
    memcpy(loads, run->loads_at_start, sizeof(guint64) * p);
  g_autofree guint32 *owner = initial_owner(l);
  guint order = 0;
  g_autoptr(GPtrArray) tree = tree_leaves(l, &order);
  g_autoptr(GHashTable) leaf_owner = g_hash_table_new(g_int64_hash, g_int64_equal);
  g_autoptr(GArray) leaf_ids = g_array_new(FALSE, FALSE, sizeof(guint64));
  g_autoptr(GArray) moved_ids = g_array_new(FALSE, FALSE, sizeof(guint64));
  guint tree_adaptation = 0;
  if (tree != NULL) {
    write_tree(&j, tree, order);
    owners_at_start(l, 0, leaf_owner, leaf_ids);
    /* room enough that the ids moved never reallocate: keys point into it */
    guint64 moved = 0;
    for (guint i = 0; run->transfers != NULL && i < run->transfers->len; i++)
      moved += g_array_index(run->transfers, LbTransfer, i).count;
    g_array_set_size(moved_ids, (guint)moved);
    g_array_set_size(moved_ids, 0);
  }
  gboolean ranges = owner != NULL && l->dim == 0;
  if (owner != NULL && l->dim > 0) {
    lb_json_begin_array(&j, "owner", TRUE);
    for (guint64 id = 0; id < l->nunits; id++)
      lb_json_uint(&j, NULL, owner[id]);
    lb_json_end_array(&j);
  }

  /* the phases as the page jumps to them: a section's first frame */
  lb_json_begin_array(&j, "sections", FALSE);
  for (guint i = 0; i < c.frames->len; i++) {
    const Frame *f = c.frames->pdata[i];
    if (i > 0 && ((const Frame *)c.frames->pdata[i - 1])->section == f->section)
      continue;
    const Section *s = &g_array_index(c.sections, Section, f->section);
    g_autoptr(GString) name = g_string_new(NULL);
    if (run->nadaptations > 1)
      g_string_append_printf(name, "adaptation step %u, ", s->adaptation);
    if (run->stages != NULL && s->stage < run->stages->len &&
        *(const char *)run->stages->pdata[s->stage] != '\0')
      g_string_append_printf(name, "%s, ", (const char *)run->stages->pdata[s->stage]);
    g_string_append(
        name, s->phase >= 0 && (guint)s->phase < run->nphases ? run->phases[s->phase].name : "-");
    lb_json_begin_compact_object(&j, NULL);
    lb_json_string(&j, "name", name->str);
    lb_json_int(&j, "phase", s->phase);
    lb_json_uint(&j, "frame", i + 1);
    lb_json_end_object(&j);
  }
  lb_json_end_array(&j);

  lb_json_begin_array(&j, "frames", FALSE);
  /* frame 0: before anything happens */
  lb_json_begin_object(&j, NULL);
  lb_json_uint(&j, "index", 0);
  lb_json_string(&j, "title", "before balancing");
  lb_json_int(&j, "phase", -1);
  lb_json_uint(&j, "adaptation", 0);
  lb_json_uint(&j, "stage", 0);
  lb_json_uint(&j, "step", 0);
  lb_json_double(&j, "time", 0);
  lb_json_begin_array(&j, "messages", FALSE);
  lb_json_end_array(&j);
  lb_json_begin_array(&j, "moves", FALSE);
  lb_json_end_array(&j);
  lb_json_begin_array(&j, "lines", FALSE);
  lb_json_end_array(&j);
  write_loads(&j, "loads", loads, p);
  if (ranges)
    write_ranges(&j, owner, l->nunits, p);
  if (tree != NULL)
    write_leaf_owners(&j, l, tree, 0, leaf_owner);
  lb_json_end_object(&j);
  guint adaptation = 0;
  for (guint i = 0; i < c.frames->len; i++) {
    const Frame *f = c.frames->pdata[i];
    const Section *s = &g_array_index(c.sections, Section, f->section);
    frame_loads(l, s, f, &adaptation, loads);
    for (guint k = 0; owner != NULL && k < f->transfers->len; k++) {
      const LbTransfer *t =
          &g_array_index(run->transfers, LbTransfer, g_array_index(f->transfers, guint, k));
      for (guint64 id = t->first; id < t->first + t->count && id < l->nunits; id++)
        owner[id] = t->dst;
    }
    g_autofree char *title = frame_title(l, s, f);
    lb_json_begin_object(&j, NULL);
    lb_json_uint(&j, "index", i + 1);
    lb_json_string(&j, "title", title);
    lb_json_int(&j, "phase", s->phase);
    lb_json_uint(&j, "adaptation", s->adaptation);
    lb_json_uint(&j, "stage", s->stage);
    lb_json_uint(&j, "step", f->step);
    lb_json_double(&j, "time", f->time);
    lb_json_double(&j, "end", f->end);
    write_frame_events(&j, l, f);
    write_loads(&j, "loads", loads, p);
    if (ranges)
      write_ranges(&j, owner, l->nunits, p);
    if (tree != NULL) {
      if (s->adaptation != tree_adaptation) {
        tree_adaptation = s->adaptation;
        owners_at_start(l, tree_adaptation, leaf_owner, leaf_ids);
      }
      for (guint k = 0; k < f->transfers->len; k++) {
        const LbTransfer *t =
            &g_array_index(run->transfers, LbTransfer, g_array_index(f->transfers, guint, k));
        for (guint64 id = t->first; id < t->first + t->count; id++) {
          g_array_append_val(moved_ids, id);
          g_hash_table_insert(leaf_owner, &g_array_index(moved_ids, guint64, moved_ids->len - 1),
                              GUINT_TO_POINTER(t->dst));
        }
      }
      write_leaf_owners(&j, l, tree, tree_adaptation, leaf_owner);
    }
    lb_json_end_object(&j);
  }
  lb_json_end_array(&j);
  write_loads(&j, "final_loads", run->final_loads, p);
  lb_json_begin_array(&j, "imbalance", TRUE);
  lb_json_double(&j, NULL, run->imbalance_before);
  lb_json_double(&j, NULL, run->imbalance_after);
  lb_json_end_array(&j);
  lb_json_end_object(&j);
  return g_string_free(g_steal_pointer(&out), FALSE);
}

static char *
resource_text(const char *name)
{
  g_autofree char *path = g_strconcat("/lbsim/lesson/", name, NULL);
  g_autoptr(GBytes) bytes =
      g_resource_lookup_data(lb_lesson_get_resource(), path, G_RESOURCE_LOOKUP_FLAGS_NONE, NULL);
  g_assert(bytes != NULL);
  gsize n = 0;
  const char *data = g_bytes_get_data(bytes, &n);
  return g_strndup(data, n);
}

static void
escape_html(GString *out, const char *text)
{
  for (const char *c = text; *c != '\0'; c++) {
    if (*c == '<')
      g_string_append(out, "&lt;");
    else if (*c == '>')
      g_string_append(out, "&gt;");
    else if (*c == '&')
      g_string_append(out, "&amp;");
    else
      g_string_append_c(out, *c);
  }
}

gboolean
lb_lesson_write_page(const LbLesson *l, const char *dir, GError **error)
{
  gboolean make = FALSE;
  if (!lb_output_check_folder("--html", dir, &make, error) ||
      (make && !lb_output_make_folder("--html", dir, error)))
    return FALSE;
  g_autofree char *json = lb_lesson_json(l);
  g_autofree char *css = resource_text("lesson.css");
  g_autofree char *js = resource_text("lesson.js");
  g_autofree char *shell = resource_text("lesson.html");
  /* inside <script>, "</" would end it: JSON may write it as "<\/" */
  g_autoptr(GString) data = g_string_new(json);
  g_string_replace(data, "</", "<\\/", 0);
  g_autoptr(GString) title = g_string_new(NULL);
  g_autofree char *words =
      g_strdup_printf("%s on %u ranks: lbsim explain", l->label, l->run->ranks);
  escape_html(title, words);
  g_autoptr(GString) page = g_string_new(shell);
  g_string_replace(page, "@TITLE@", title->str, 0);
  g_string_replace(page, "@VERSION@", l->version, 0);
  /* the big parts last: nothing in them is taken for a placeholder */
  g_string_replace(page, "@CSS@", css, 1);
  g_string_replace(page, "@JS@", js, 1);
  g_string_replace(page, "@DATA@", data->str, 1);
  g_autofree char *path = g_build_filename(dir, "index.html", NULL);
  return lb_output_write(path, page->str, (gssize)page->len, error);
}

/* The units every rank starts with, in the balancer's starting
 * distribution, and their loads at the first adaptation step. Units of a
 * tree (location codes) are counted, not named by their first and last
 * id. */
static void
print_initial(GString *out, const LbScenario *sc, const LbBalancerRun *brun, guint64 *loads_by_rank,
              GPtrArray *initial)
{
  const LbBalancer *b = brun->balancer;
  LbStart start = lb_scenario_start(sc, b);
  g_autofree char *how = b->initial_units != NULL && b->describe_start != NULL
                             ? b->describe_start(brun->work, brun->params)
                             : lb_work_describe_start(brun->work, start);
  gboolean tree = brun->work->model->leaves != NULL;
  g_string_append_printf(out, "Initial distribution (%s; unit loads by rank):\n", how);
  g_autoptr(GArray) units = g_array_new(FALSE, FALSE, sizeof(LbUnit));
  for (guint r = 0; r < sc->ranks; r++) {
    lb_scenario_initial_units(sc, brun, r, units);
    lb_work_update(brun->work, r, units, 0);
    g_autoptr(GString) line = g_string_new(NULL);
    loads_by_rank[r] = 0;
    for (guint i = 0; i < units->len; i++) {
      const LbUnit *u = &g_array_index(units, LbUnit, i);
      loads_by_rank[r] += u->load;
      if (line->len < 60)
        g_string_append_printf(line, " %" G_GUINT64_FORMAT, u->load);
    }
    if (units->len == 0)
      g_string_append_printf(out, "  rank %2u  no units\n", r);
    else if (tree)
      g_string_append_printf(out, "  rank %2u  %3u hnodes  load %5" G_GUINT64_FORMAT "  [%s%s ]\n",
                             r, units->len, loads_by_rank[r], line->str,
                             line->len >= 60 ? " ..." : "");
    else
      g_string_append_printf(out,
                             "  rank %2u  units %3" G_GUINT64_FORMAT " .. %3" G_GUINT64_FORMAT
                             "  load %5" G_GUINT64_FORMAT "  [%s%s ]\n",
                             r, g_array_index(units, LbUnit, 0).id,
                             g_array_index(units, LbUnit, units->len - 1).id, loads_by_rank[r],
                             line->str, line->len >= 60 ? " ..." : "");
    if (initial != NULL)
      g_ptr_array_add(initial, g_array_copy(units));
  }
}

/* The header, the initial distribution and the balancer's own teaching
 * text; loads (ranks entries) and initial (each rank's units), if not
 * NULL, get what every rank starts with. */
static char *
case_text(const LbScenario *sc, const LbBalancerRun *brun, const char *platform, guint64 *loads,
          GPtrArray *initial)
{
  GString *out = g_string_new(NULL);
  g_string_append_printf(out, "%s on %u ranks (%s), %s of %" G_GUINT64_FORMAT " units\n%s\n\n",
                         brun->label, sc->ranks, platform, brun->work->model->name,
                         lb_work_total_units(brun->work), brun->balancer->summary);
  print_initial(out, sc, brun, loads, initial);
  LbExplainCase c = {sc->ranks, brun->params, loads, brun->work, sc->nadaptations};
  if (brun->balancer->explain != NULL)
    brun->balancer->explain(&c, out);
  return g_string_free(out, FALSE);
}

char *
lb_lesson_intro(const LbScenario *sc, const LbBalancerRun *brun, const char *platform,
                guint64 *loads)
{
  g_autofree guint64 *mine = loads == NULL ? g_new0(guint64, sc->ranks) : NULL;
  return case_text(sc, brun, platform, loads != NULL ? loads : mine, NULL);
}

gboolean
lb_lesson_write(const LbScenario *sc, const LbBalancerRun *brun, const LbRunResult *run,
                const char *platform, const char *json, const char *html, GError **error)
{
  g_autofree guint64 *loads = g_new0(guint64, sc->ranks);
  g_autoptr(GPtrArray) initial = g_ptr_array_new_with_free_func((GDestroyNotify)g_array_unref);
  g_autofree char *intro = case_text(sc, brun, platform, loads, initial);
  g_autofree char *story =
      lb_report_story(run, brun->balancer, brun->params, brun->work->model->leaves != NULL);
  g_autoptr(GArray) blocks = NULL;
  if (brun->balancer->explain_blocks != NULL) {
    LbExplainCase c = {sc->ranks, brun->params, loads, brun->work, sc->nadaptations};
    blocks = g_array_new(FALSE, FALSE, sizeof(LbExplainBlock));
    brun->balancer->explain_blocks(&c, blocks);
  }
  const LbWork *work = brun->work;
  gboolean field = g_str_has_prefix(work->model->name, "field");
  const char *slash = strrchr(platform, G_DIR_SEPARATOR);
  LbLesson lesson = {
      .run = run,
      .balancer = brun->balancer,
      .label = brun->label,
      .platform = slash != NULL ? slash + 1 : platform,
      .model = work->model->name,
      .version = LB_VERSION,
      .dim = field ? work->dim : 0,
      .size = {work->size[0], work->size[1], work->size[2]},
      .nunits = lb_work_total_units(work),
      .initial = (const GArray *const *)initial->pdata,
      .blocks = blocks,
      .intro = intro,
      .story = story,
  };
  LbCurveKind curve;
  if (work->model->leaves != NULL && brun->balancer->curve != NULL &&
      lb_curve_parse(brun->balancer->curve(brun->params), &curve)) {
    lesson.work = work;
    lesson.curve = curve;
  }
  if (json != NULL) {
    g_autofree char *text = lb_lesson_json(&lesson);
    if (!lb_output_text(json, text, error))
      return FALSE;
  }
  return html == NULL || lb_lesson_write_page(&lesson, html, error);
}
