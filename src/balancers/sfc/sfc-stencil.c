/* What a rank needs across its hnodes' faces and who holds it (Baiardi,
 * Chiti, Mori, Ricci 2001, section 5.2): every hnode computes (the seed's
 * multigrid case), and needs across each of its faces the hnode that
 * covers the neighbouring square of its own level: that square's hnode
 * when the tree has it, else the leaf whose region holds it, which is the
 * hnode with the greatest key not after the square's (no hnode's key falls
 * between a leaf's and the keys of squares inside it). The owner of that
 * hnode is the rank whose segment holds the square's key: the replicated
 * tree tells every rank where the segments start. */
#include <string.h>

#include "balancers/sfc/sfc-stencil.h"
#include "balancers/sort.h"
#include "balancers/sfc/sfc-plan.h"
#include "lbsim/model.h"
#include "workloads/htree.h"

static inline gboolean
square_before(const SfcSquare *x, const SfcSquare *y)
{
  return x->key != y->key ? x->key < y->key : x->id < y->id;
}

LB_DEFINE_SORT(sort_squares, SfcSquare, square_before)

void
sfc_sort_squares(SfcSquare *s, gsize n)
{
  sort_squares(s, n);
}

/* The squares of the same level across each face of an hnode. Its id
 * holds its coordinates interleaved below the level bit, axis a in bits a,
 * a + dim, ...: a neighbour's id is one step along one axis's bits, the
 * other bits kept (arithmetic on dilated integers, with no decoding). */
guint
sfc_face_squares(guint dim, guint64 id, guint64 *out)
{
  guint64 level_bit = G_GUINT64_CONSTANT(1) << (63 - __builtin_clzll(id));
  guint64 code = id ^ level_bit;
  guint64 axis0 = lb_bits_spread(dim, G_MAXUINT64) & (level_bit - 1); /* axis 0's bits */
  guint n = 0;
  for (guint a = 0; a < dim; a++) {
    guint64 axis = axis0 << a, c = code & axis, rest = level_bit | (code & ~axis);
    if (c != 0) /* not on the low side of the space */
      out[n++] = rest | ((c - 1) & axis);
    if (c != axis) /* not on the high side */
      out[n++] = rest | (((c | ~axis) + 1) & axis);
  }
  return n;
}

/* The index of the hnode of my segment that covers a square whose key is
 * in it: the last with a key not after the square's. */
guint
sfc_covering(const SfcView *v, guint64 key)
{
  const SfcHnode *h = (const SfcHnode *)v->seq->data;
  guint lo = 0, hi = v->seq->len;
  while (hi - lo > 1) {
    guint mid = lo + (hi - lo) / 2;
    if (h[mid].key <= key)
      lo = mid;
    else
      hi = mid;
  }
  g_assert(v->seq->len > 0 && h[lo].key <= key);
  return lo;
}

/* Whether the hnode at index i of my segment is a leaf: the next hnode in
 * the sequence (mine or not) is not inside it. */
gboolean
sfc_is_leaf(const SfcView *v, guint i)
{
  const SfcHnode *h = (const SfcHnode *)v->seq->data;
  if (i + 1 < v->seq->len)
    return !sfc_region_holds(v->dim, h[i].id, h[i + 1].id);
  return v->last_is_leaf;
}

#define INDEX_KEPT_BYTES ((gsize)1 << 20)

static SfcIndex *kept_index;
static gboolean kept_index_held;

SfcIndex *
sfc_index_new(const SfcView *v)
{
  guint bits = 1;
  while ((G_GUINT64_CONSTANT(1) << bits) < 2 * (guint64)v->seq->len)
    bits++;
  gsize size = (gsize)1 << bits, bytes = sizeof(SfcIndex) + size * sizeof(SfcSlot);
  SfcIndex *x;
  if (bytes <= INDEX_KEPT_BYTES) {
    g_assert(!kept_index_held);
    if (kept_index == NULL)
      kept_index = g_malloc(INDEX_KEPT_BYTES);
    kept_index_held = TRUE;
    x = kept_index;
    memset(x, 0, bytes);
  } else
    x = g_malloc0(bytes);
  x->shift = 64 - bits;
  const SfcHnode *h = (const SfcHnode *)v->seq->data;
  for (guint i = 0; i < v->seq->len; i++) {
    gsize s = (gsize)((h[i].id * SFC_HASH_FACTOR) >> x->shift);
    while (x->slot[s].id != 0)
      s = (s + 1) & (size - 1);
    x->slot[s] = (SfcSlot){h[i].id, i};
  }
  return x;
}

void
sfc_index_free(SfcIndex *x)
{
  if (x == NULL)
    return;
  if (x == kept_index)
    kept_index_held = FALSE;
  else
    g_free(x);
}

/* sfc_owner of a key, looked for first among my segment and my two
 * neighbours', which hold most of the squares across my faces: where the
 * starts ascend, rank r owns exactly the keys from its start to the next
 * rank's, so the answer is the same as the full search's. */
int
sfc_owner_near(const SfcView *v, guint64 key)
{
  for (int d = 0; d < 3; d++) {
    int r = v->me + (d == 0 ? 0 : d == 1 ? 1 : -1);
    if (r < 0 || (guint)r >= v->p)
      continue;
    if (v->starts[r] <= key && ((guint)r + 1 == v->p || v->starts[r + 1] > key))
      return r;
  }
  return sfc_owner(v->starts, v->p, key);
}

/* Every face square of my hnodes that my own hnodes do not cover, once a
 * collection (the announcements and the needs both read it). Most
 * squares are hnodes of mine: found by id, they need no key. A square
 * whose key is in my segment is covered by my own hnodes, and so is one
 * past my last hnode that the next segment does not reach yet (my last
 * hnode, a leaf, holds it). */
GArray *
sfc_remote_faces(const SfcView *v)
{
  GArray *out = g_array_new(FALSE, FALSE, sizeof(SfcFace));
  if (v->seq->len == 0)
    return out;
  g_autoptr(SfcIndex) mine = sfc_index_new(v);
  const SfcHnode *h = (const SfcHnode *)v->seq->data;
  guint n = v->seq->len;
  guint64 first = h[0].key, last = h[n - 1].key;
  guint64 faces[6];
  for (guint i = 0; i < n; i++) {
    guint nf = sfc_face_squares(v->dim, h[i].id, faces);
    for (guint k = 0; k < nf; k++) {
      if (sfc_index_at(mine, faces[k]) >= 0)
        continue;
      guint64 key = sfc_key(v->curve, v->dim, v->order, faces[k]);
      if (key >= first && key <= last)
        continue;
      int owner = sfc_owner_near(v, key);
      g_assert(owner >= 0);
      if (owner == v->me)
        continue;
      SfcFace f = {h[i].id, faces[k], key, (guint)owner};
      g_array_append_val(out, f);
    }
  }
  return out;
}

/* The squares this rank needs from others, sorted by key, with their
 * owners. */
GArray *
sfc_remote_needs(const SfcView *v, const GArray *faces, GArray *owners)
{
  GArray *needs = g_array_sized_new(FALSE, FALSE, sizeof(SfcSquare), faces->len);
  g_array_set_size(needs, faces->len);
  SfcSquare *n = (SfcSquare *)needs->data;
  for (guint i = 0; i < faces->len; i++) {
    const SfcFace *f = &g_array_index(faces, SfcFace, i);
    n[i] = (SfcSquare){f->square, f->key};
  }
  sort_squares(n, needs->len);
  g_array_set_size(owners, needs->len);
  guint w = 0;
  for (guint i = 0; i < needs->len; i++) {
    if (w > 0 && n[w - 1].id == n[i].id)
      continue;
    int owner = sfc_owner_near(v, n[i].key);
    g_assert(owner >= 0 && owner != v->me);
    n[w] = n[i];
    g_array_index(owners, guint, w++) = (guint)owner;
  }
  g_array_set_size(needs, w);
  g_array_set_size(owners, w);
  return needs;
}

/* A received hnode for the coverage check: its id with the leaf bit (a
 * SfcSquare's id) and its key. */
static SfcSquare
received(const SfcView *v, guint64 raw)
{
  return (SfcSquare){raw, sfc_key(v->curve, v->dim, v->order, raw & ~SFC_LEAF_BIT)};
}

/* What arrived: n hnodes as sent, at data. */
void
sfc_keep_received(const SfcView *v, GArray *got, const guint8 *data, guint n)
{
  guint from = got->len;
  g_array_set_size(got, from + n);
  for (guint i = 0; i < n; i++) {
    guint64 raw;
    memcpy(&raw, data + i * sizeof raw, sizeof raw);
    g_array_index(got, SfcSquare, from + i) = received(v, raw);
  }
}

/* Every needed square is covered by a received hnode (the square's own, or
 * a leaf holding it); returns how many received hnodes covered nothing.
 * Both sorted by key, the last received hnode with a key not after a
 * square's only moves on from one square to the next. */
guint64
sfc_check_coverage(const SfcView *v, const GArray *needs, GArray *got)
{
  sort_squares((SfcSquare *)got->data, got->len);
  g_autofree gboolean *used = g_new0(gboolean, MAX(got->len, 1));
  const SfcSquare *r = (const SfcSquare *)got->data;
  guint next = 0; /* the first received hnode with a key after the square's */
  for (guint i = 0; i < needs->len; i++) {
    const SfcSquare *s = &g_array_index(needs, SfcSquare, i);
    while (next < got->len && r[next].key <= s->key)
      next++;
    g_assert(next > 0);
    guint at = next - 1;
    guint64 id = r[at].id & ~SFC_LEAF_BIT;
    gboolean leaf = (r[at].id & SFC_LEAF_BIT) != 0;
    g_assert(sfc_region_holds(v->dim, id, s->id) && (id == s->id || leaf));
    used[at] = TRUE;
  }
  /* copies of one hnode (answers to squares it covers alike) count once */
  guint64 useless = 0;
  for (guint i = 0; i < got->len;) {
    guint j = i;
    gboolean any = FALSE;
    while (j < got->len && r[j].id == r[i].id)
      any |= used[j++];
    useless += !any;
    i = j;
  }
  return useless;
}

/* The hnode at index i of my segment as sent: its id with its leaf bit. */
guint64
sfc_tagged(const SfcView *v, guint i)
{
  return g_array_index(v->seq, SfcHnode, i).id | (sfc_is_leaf(v, i) ? SFC_LEAF_BIT : 0);
}