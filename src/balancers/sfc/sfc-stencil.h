/* What a rank of an SFC partition of an H-tree needs across its hnodes'
 * faces and who holds it (Baiardi, Chiti, Mori, Ricci 2001, section 5.2's
 * stencil): the squares across faces, the hnode that covers a square, the
 * owner of a key from the replicated tree, and the check that what a rank
 * received covers what it needed (sfc-stencil.c). The collection's
 * strategies (sfc-collect.c) build on it. */
#pragma once

#include <glib.h>

#include "balancers/sfc/sfc-collect.h"

G_BEGIN_DECLS

/* A pushed or answered hnode: its id, bit 63 set when it is a leaf. */
#define SFC_LEAF_BIT (G_GUINT64_CONSTANT(1) << 63)

/* A square (or a received hnode: its id with the leaf bit) and its key. */
typedef struct {
  guint64 id, key;
} SfcSquare;

/* Sorts by key, then id. */
void sfc_sort_squares(SfcSquare *s, gsize n);

/* The squares of the same level across each face of an hnode (at most
 * 2 x dim); returns how many. */
guint sfc_face_squares(guint dim, guint64 id, guint64 *out);
/* The index of the hnode of my segment that covers a square whose key is
 * in it: the last with a key not after the square's. */
guint sfc_covering(const SfcView *v, guint64 key);
/* Whether the hnode at index i of my segment is a leaf. */
gboolean sfc_is_leaf(const SfcView *v, guint i);
/* The hnode at index i of my segment as sent: its id with its leaf bit. */
guint64 sfc_tagged(const SfcView *v, guint i);

/* My hnodes by id, to find at once the squares across faces that are
 * hnodes of mine (most are; remote faces, pushes): open addressing, at
 * most half full. An index lives between two waits, so one rank at a time
 * holds one: up to 1 MiB, every rank's is the same buffer, kept
 * for the process and warm in the cache, with no allocation and no page
 * to fault in (a fresh one per rank per collection missed on every slot). */
typedef struct {
  guint64 id; /* 0: an empty slot (ids are > 0) */
  guint at;   /* the hnode's index in my segment */
} SfcSlot;

typedef struct {
  guint shift; /* a slot is the top 64 - shift bits of a multiplicative hash */
  SfcSlot slot[];
} SfcIndex;

#define SFC_HASH_FACTOR G_GUINT64_CONSTANT(0x9e3779b97f4a7c15)

SfcIndex *sfc_index_new(const SfcView *v);
void sfc_index_free(SfcIndex *x);
G_DEFINE_AUTOPTR_CLEANUP_FUNC(SfcIndex, sfc_index_free)

/* The index in my segment of hnode id, or -1 when it is not mine. */
static inline int
sfc_index_at(const SfcIndex *x, guint64 id)
{
  gsize mask = ((gsize)1 << (64 - x->shift)) - 1;
  for (gsize s = (gsize)((id * SFC_HASH_FACTOR) >> x->shift);; s = (s + 1) & mask) {
    if (x->slot[s].id == id)
      return (int)x->slot[s].at;
    if (x->slot[s].id == 0)
      return -1;
  }
}

/* A square across a face of one of my hnodes that another rank holds or
 * covers: the hnode whose face it is, the square, its key and owner. */
typedef struct {
  guint64 hnode, square, key;
  guint owner;
} SfcFace;

/* The owner of a key (sfc_owner), looked for first near my segment. */
int sfc_owner_near(const SfcView *v, guint64 key);
/* Every face square of my hnodes that my own hnodes do not cover
 * (SfcFace), once a collection. */
GArray *sfc_remote_faces(const SfcView *v);
/* The squares this rank needs from others (SfcSquare), sorted by key, and
 * their owners (guint) in owners. */
GArray *sfc_remote_needs(const SfcView *v, const GArray *faces, GArray *owners);
/* Appends to got (SfcSquare) the n hnodes of a message, as sent. */
void sfc_keep_received(const SfcView *v, GArray *got, const guint8 *data, guint n);
/* Asserts that the received hnodes got cover every needed square (each by
 * the square's own hnode, or a leaf holding it); sorts got; returns how
 * many distinct received hnodes covered nothing. */
guint64 sfc_check_coverage(const SfcView *v, const GArray *needs, GArray *got);

G_END_DECLS
