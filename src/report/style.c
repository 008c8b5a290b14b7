/* One palette for every figure, keyed by the balancer a line shows. */
#include "report/style.h"

#include <math.h>
#include <string.h>

/* Okabe and Ito's colours: black fifth, before orange, which a few lines
 * would set beside vermillion; wine for their yellow. */
static const guint32 colours[] = {0x0072b2, 0xd55e00, 0x009e73, 0xcc79a7,
                                  0x000000, 0x56b4e9, 0xe69f00, 0x882255};
static const char *const marker_names[] = {"circle",  "square",        "triangle",
                                           "diamond", "triangle-down", "plus"};
static const char *const dashes[] = {NULL, "12 3 2 3", "12 3 2 3 2 3"};

G_STATIC_ASSERT(G_N_ELEMENTS(marker_names) == LB_MARKERS);
G_STATIC_ASSERT(G_N_ELEMENTS(colours) * G_N_ELEMENTS(dashes) == LB_STYLES);

static LbStyle palette[LB_STYLES];

const LbStyle *
lb_style_at(guint index)
{
  static gsize made = 0;
  if (g_once_init_enter(&made)) {
    for (guint n = 0; n < LB_STYLES; n++)
      palette[n] = (LbStyle){colours[n % G_N_ELEMENTS(colours)], (LbMarker)(n % LB_MARKERS),
                             dashes[n / G_N_ELEMENTS(colours) % G_N_ELEMENTS(dashes)]};
    g_once_init_leave(&made, 1);
  }
  return &palette[index % LB_STYLES];
}

const char *
lb_style_marker_name(LbMarker marker)
{
  return marker_names[marker % LB_MARKERS];
}

/* The balancers lbsim ships, each with its palette entry: the ones seen
 * together (a field's none, mlb, mlb-nd and lbd; a hierarchy's none,
 * enzo-original and move-split) in colours far apart and markers of
 * their own, none in black; the ninth and tenth dashed. */
static const struct {
  const char *name;
  guint style;
} shipped[] = {
    {"mlb", 0},           {"move-split", 1},    {"sfc-shift", 2}, {"lbd", 3},
    {"none", 4},          {"enzo-original", 5}, {"dls", 6},       {"mlb-nd", 7},
    {"scratch-remap", 8}, {"diffusion", 9},
};

static gboolean
shipped_style(const char *name, guint *style)
{
  for (guint i = 0; i < G_N_ELEMENTS(shipped); i++)
    if (strcmp(shipped[i].name, name) == 0) {
      *style = shipped[i].style;
      return TRUE;
    }
  return FALSE;
}

/* FNV-1a: the same number for the same bytes on every machine. */
static guint32
hash_name(const char *name)
{
  guint32 h = 2166136261u;
  for (const guchar *c = (const guchar *)name; *c != '\0'; c++)
    h = (h ^ *c) * 16777619u;
  return h;
}

/* The palette's solid styles, one per colour. */
#define SOLID G_N_ELEMENTS(colours)

guint
lb_style_index_of(const char *name)
{
  guint style = 0;
  if (shipped_style(name, &style))
    return style;
  return hash_name(name) % SOLID;
}

/* The k-th style to try for a name whose own style is own: the solid
 * ones from its own on, then the dashed ones. */
static guint
probe(guint own, guint k)
{
  if (own >= SOLID) /* a shipped balancer's dashed style: from there on */
    return (own + k) % LB_STYLES;
  return k < SOLID ? (own + k) % SOLID : k;
}

struct _LbStyles {
  GHashTable *index; /* name -> style + 1 */
};

static int
compare_names(gconstpointer a, gconstpointer b)
{
  const char *x = *(const char *const *)a, *y = *(const char *const *)b;
  guint sx = 0, sy = 0;
  gboolean fx = shipped_style(x, &sx), fy = shipped_style(y, &sy);
  if (fx != fy)
    return fx ? -1 : 1;
  return strcmp(x, y);
}

LbStyles *
lb_styles_new(const char *const *names, guint n)
{
  LbStyles *s = g_new0(LbStyles, 1);
  s->index = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, NULL);
  g_autoptr(GPtrArray) sorted = g_ptr_array_new();
  for (guint i = 0; i < n; i++)
    if (!g_ptr_array_find_with_equal_func(sorted, names[i], g_str_equal, NULL))
      g_ptr_array_add(sorted, (gpointer)names[i]);
  g_ptr_array_sort(sorted, compare_names);
  gboolean taken[LB_STYLES] = {FALSE};
  for (guint i = 0; i < sorted->len; i++) {
    guint own = lb_style_index_of(sorted->pdata[i]), k = own;
    for (guint tries = 1; taken[k] && tries < LB_STYLES; tries++)
      k = probe(own, tries);
    if (taken[k]) /* more names than styles: they repeat */
      k = own;
    taken[k] = TRUE;
    g_hash_table_insert(s->index, g_strdup(sorted->pdata[i]), GUINT_TO_POINTER(k + 1));
  }
  return s;
}

void
lb_styles_free(LbStyles *styles)
{
  if (styles == NULL)
    return;
  g_hash_table_unref(styles->index);
  g_free(styles);
}

guint
lb_styles_index(const LbStyles *styles, const char *name)
{
  gpointer k = styles != NULL ? g_hash_table_lookup(styles->index, name) : NULL;
  return k != NULL ? GPOINTER_TO_UINT(k) - 1 : lb_style_index_of(name);
}

double
lb_font_size(LbFontRole role, double body)
{
  return role == LB_FONT_TITLE ? body * 1.25 : body;
}

/* ---- sizes for print ---- */

static const struct {
  const char *unit;
  double points;
} units[] = {{"in", 72}, {"mm", 72 / 25.4}, {"cm", 72 / 2.54}, {"pt", 1}};

/* One length with its unit, in points, from 1 in to 100 in. */
static gboolean
parse_length(const char *text, double *points)
{
  char *end = NULL;
  double v = g_ascii_strtod(text, &end);
  if (end == text || !isfinite(v))
    return FALSE;
  for (guint u = 0; u < G_N_ELEMENTS(units); u++)
    if (strcmp(end, units[u].unit) == 0) {
      *points = v * units[u].points;
      return *points >= 72 && *points <= 7200;
    }
  return FALSE;
}

gboolean
lb_figure_parse_size(const char *text, double *width, double *height, GError **error)
{
  g_autofree char *lower = g_ascii_strdown(text, -1);
  const char *x = strchr(lower, 'x');
  g_autofree char *first = g_strndup(lower, x != NULL ? (gsize)(x - lower) : strlen(lower));
  *height = 0;
  if (!parse_length(first, width) || (x != NULL && !parse_length(x + 1, height))) {
    g_set_error(error, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE,
                "--figure-size %s: not a width such as 3.4in, 86mm, 8.6cm or 245pt (or "
                "WIDTHxHEIGHT), from 1 to 100 inches",
                text);
    return FALSE;
  }
  return TRUE;
}

gboolean
lb_figure_parse_font(const char *text, double *points, GError **error)
{
  char *end = NULL;
  double v = g_ascii_strtod(text, &end);
  if (end == text || (*end != '\0' && strcmp(end, "pt") != 0) || !(v >= 4 && v <= 36)) {
    g_set_error(error, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE,
                "--figure-font %s: not a size from 4 to 36 points", text);
    return FALSE;
  }
  *points = v;
  return TRUE;
}
