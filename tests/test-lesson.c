/* `lbsim explain --html` and `--json`: the page of every family, played
 * in headless Chromium. The frames of the JSON are the narration's: the
 * last frame's loads are the text's final loads; pressing the right arrow
 * k times shows frame k, whose loads in the DOM are that frame's in the
 * JSON of the same case; the slider and #frame= agree; the page loads with
 * no console message, is small, and its screenshot is not blank; every
 * message says what it carries. The machine's layouts (a torus, a fat
 * tree's switches, a heterogeneous cluster's speeds), SAMR's grids and
 * the curve over sfc-shift's tree are checked in the DOM against the
 * frames. */
#include <glib.h>
#include <glib/gstdio.h>
#include <cairo.h>
#include <json-glib/json-glib.h>
#include <math.h>
#include <string.h>

#include "lbsim-spawn.h"

G_DEFINE_AUTOPTR_CLEANUP_FUNC(cairo_surface_t, cairo_surface_destroy)

#include "chromium.h"

static char *tmp_dir;

static char *
tmp_path(const char *name)
{
  return g_build_filename(tmp_dir, name, NULL);
}

static char *
read_text(const char *path)
{
  char *text = NULL;
  g_assert_true(g_file_get_contents(path, &text, NULL, NULL));
  return text;
}

/* Renders uri headless: its DOM once loaded (and its scripts run), its
 * log, a screenshot. */
static void
render(const char *uri, const char *screenshot, char **dom, char **log)
{
  g_autofree char *profile = tmp_path("chromium-profile");
  chromium_render(uri, profile, 1400, 1100, screenshot, dom, log);
}

/* Not blank: many colours, and much of it neither white nor the page's
 * greys. */
static void
check_screenshot(const char *path)
{
  static const guint32 paper[] = {0xffffff, 0xf6f6f4, 0xfbfbf8};
  check_screenshot_inked(path, 1400, 1100, 100, 0.04, paper, G_N_ELEMENTS(paper));
}

/* The text of the element with this id (an <output>), or NULL. */
static char *
element_text(const char *dom, const char *id)
{
  g_autofree char *pattern = g_strdup_printf("id=\"%s\"[^>]*>([^<]*)<", id);
  g_autoptr(GRegex) re = g_regex_new(pattern, 0, 0, NULL);
  g_autoptr(GMatchInfo) m = NULL;
  if (!g_regex_match(re, dom, 0, &m))
    return NULL;
  return g_match_info_fetch(m, 1);
}

static char *
attribute_of(const char *dom, const char *id, const char *attribute)
{
  g_autofree char *pattern = g_strdup_printf("<[^>]*id=\"%s\"[^>]*>", id);
  g_autoptr(GRegex) re = g_regex_new(pattern, 0, 0, NULL);
  g_autoptr(GMatchInfo) m = NULL;
  if (!g_regex_match(re, dom, 0, &m))
    return NULL;
  g_autofree char *tag = g_match_info_fetch(m, 0);
  g_autofree char *apattern = g_strdup_printf(" %s=\"([^\"]*)\"", attribute);
  g_autoptr(GRegex) are = g_regex_new(apattern, 0, 0, NULL);
  g_autoptr(GMatchInfo) am = NULL;
  if (!g_regex_match(are, tag, 0, &am))
    return NULL;
  return g_match_info_fetch(am, 1);
}

/* "5 1 7" from a JSON array of loads */
static char *
loads_text(JsonArray *loads)
{
  GString *out = g_string_new(NULL);
  for (guint i = 0; i < json_array_get_length(loads); i++)
    g_string_append_printf(out, "%s%" G_GINT64_FORMAT, i ? " " : "",
                           json_array_get_int_element(loads, i));
  return g_string_free(out, FALSE);
}

/* Every rank's box on the machine carries its load: data-load, rank by
 * rank. */
static char *
drawn_loads(const char *page)
{
  const char *start = strstr(page, "<svg id=\"machine\"");
  g_assert_nonnull(start);
  const char *end = strstr(start, "</svg>");
  g_assert_nonnull(end);
  g_autofree char *dom = g_strndup(start, end - start);
  g_autoptr(GRegex) re =
      g_regex_new("<g class=\"rank\" data-rank=\"(\\d+)\" data-load=\"(\\d+)\"", 0, 0, NULL);
  g_autoptr(GMatchInfo) m = NULL;
  GString *out = g_string_new(NULL);
  g_regex_match(re, dom, 0, &m);
  for (guint r = 0; g_match_info_matches(m); r++) {
    g_autofree char *rank = g_match_info_fetch(m, 1), *load = g_match_info_fetch(m, 2);
    g_assert_cmpuint(g_ascii_strtoull(rank, NULL, 10), ==, r);
    g_string_append_printf(out, "%s%s", r ? " " : "", load);
    g_match_info_next(m, NULL);
  }
  return g_string_free(out, FALSE);
}

static const char *
final_loads_line(const char *text)
{
  const char *at = strstr(text, "\nFinal loads: ");
  g_assert_nonnull(at);
  return at + strlen("\nFinal loads: ");
}

typedef struct {
  const char *name;          /* the test's */
  const char *args[6];       /* explain's, before --html and --json */
  const char *family_marker; /* what the balancer's own view draws */
  gsize max_bytes;
  gboolean labelled; /* every message says what it carries, not its phase's name */
} Case;

static const Case cases[] = {
    {"mlb", {"mlb", NULL}, "class=\"block lit", 500 * 1024, TRUE},
    {"mlb-nd", {"mlb-nd", NULL}, "class=\"cut\"", 500 * 1024, TRUE},
    {"lbd", {"lbd", NULL}, "class=\"cut\"", 500 * 1024, TRUE},
    {"move-split", {"move-split", NULL}, "class=\"grid-rank\"", 500 * 1024, TRUE},
    {"enzo-original", {"enzo-original", NULL}, "class=\"grid-rank\"", 500 * 1024, TRUE},
    {"sfc-shift", {"sfc-shift", NULL}, "class=\"leaf", 500 * 1024, TRUE},
    {"dls", {"dls", NULL}, "class=\"chunk\"", 500 * 1024, TRUE},
    {"mlb-64", {"mlb", "--ranks", "64", NULL}, "class=\"block lit", 2 * 1024 * 1024, TRUE},
};

/* explain's text, its page and its JSON for the case. */
static void
explain(const Case *c, const char *dir, const char *json, Result *r)
{
  g_autoptr(GPtrArray) args = g_ptr_array_new();
  g_ptr_array_add(args, "explain");
  for (guint i = 0; c->args[i] != NULL; i++)
    g_ptr_array_add(args, (gpointer)c->args[i]);
  const char *more[] = {"--html", dir, "--json", json, NULL};
  for (guint i = 0; more[i] != NULL; i++)
    g_ptr_array_add(args, (gpointer)more[i]);
  g_ptr_array_add(args, NULL);
  spawn_lbsim_argv(r, NULL, (const char *const *)args->pdata);
  g_test_message("%s", r->err);
  g_assert_cmpint(r->status, ==, 0);
}

static void
test_family(gconstpointer data)
{
  const Case *c = data;
  g_autofree char *dir = tmp_path(c->name);
  g_autofree char *json_name = g_strconcat(c->name, ".json", NULL);
  g_autofree char *json_path = tmp_path(json_name);
  g_auto(Result) r = {0};
  explain(c, dir, json_path, &r);

  /* the text is explain's own, whatever else it writes */
  g_auto(Result) plain = {0};
  lbsim(&plain, "explain", c->args[0], c->args[1], c->args[2], NULL);
  g_assert_cmpstr(r.out, ==, plain.out);

  g_autoptr(JsonNode) root = load_json(json_path);
  JsonObject *doc = json_node_get_object(root);
  g_assert_cmpstr(json_object_get_string_member(doc, "format"), ==, "lbsim-explain");
  g_assert_cmpint(json_object_get_int_member(doc, "version"), ==, 1);
  JsonArray *frames = json_object_get_array_member(doc, "frames");
  guint n = json_array_get_length(frames);
  g_assert_cmpuint(n, >=, 3);
  /* the frames end where the text ends */
  JsonObject *last = json_array_get_object_element(frames, n - 1);
  g_autofree char *last_loads = loads_text(json_object_get_array_member(last, "loads"));
  const char *final = final_loads_line(r.out);
  g_assert_cmpint(strncmp(final, last_loads, strlen(last_loads)), ==, 0);
  g_assert_cmpint(final[strlen(last_loads)], ==, '\n');
  /* every line of the narration is in exactly one frame */
  const char *from = strstr(r.out, "What every rank did, in simulated time:\n");
  const char *to = strstr(r.out, "\nThe schedule (transfers of units):");
  g_assert_nonnull(from);
  g_assert_nonnull(to);
  from += strlen("What every rank did, in simulated time:\n");
  g_autofree char *narration = g_strndup(from, to - from);
  g_autoptr(GHashTable) told = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, NULL);
  g_auto(GStrv) text_lines = g_strsplit(narration, "\n", -1);
  guint ntext = 0;
  for (guint i = 0; text_lines[i] != NULL; i++) {
    if (*text_lines[i] == '\0')
      continue;
    g_assert_true(g_str_has_prefix(text_lines[i], "  "));
    guint seen = GPOINTER_TO_UINT(g_hash_table_lookup(told, text_lines[i] + 2));
    g_hash_table_insert(told, g_strdup(text_lines[i] + 2), GUINT_TO_POINTER(seen + 1));
    ntext++;
  }
  guint nframed = 0, messages = 0;
  for (guint i = 0; i < n; i++) {
    JsonObject *f = json_array_get_object_element(frames, i);
    JsonArray *said = json_object_get_array_member(f, "lines");
    messages += json_array_get_length(json_object_get_array_member(f, "messages"));
    g_assert_cmpint(json_object_get_int_member(f, "index"), ==, i);
    for (guint k = 0; k < json_array_get_length(said); k++) {
      const char *line = json_array_get_string_element(said, k);
      guint seen = GPOINTER_TO_UINT(g_hash_table_lookup(told, line));
      g_assert_cmpuint(seen, >, 0);
      g_hash_table_insert(told, g_strdup(line), GUINT_TO_POINTER(seen - 1));
      nframed++;
    }
  }
  g_assert_cmpuint(nframed, ==, ntext);
  g_assert_cmpuint(messages, >, 0);
  /* the arrows' words: what each message carries, from the balancer */
  JsonArray *phases = json_object_get_array_member(doc, "phases");
  for (guint i = 0; c->labelled && i < n; i++) {
    JsonArray *ms =
        json_object_get_array_member(json_array_get_object_element(frames, i), "messages");
    for (guint k = 0; k < json_array_get_length(ms); k++) {
      const char *label = json_array_get_string_element(json_array_get_array_element(ms, k), 3);
      g_assert_cmpstr(label, !=, "message");
      for (guint p = 0; p < json_array_get_length(phases); p++)
        g_assert_cmpstr(label, !=, json_array_get_string_element(phases, p));
    }
  }

  g_autofree char *page = g_build_filename(dir, "index.html", NULL);
  GStatBuf st;
  g_assert_cmpint(g_stat(page, &st), ==, 0);
  g_test_message("%s: the page is %lld bytes, %u frames", c->name, (long long)st.st_size, n);
  g_assert_cmpint(st.st_size, <, (goffset)c->max_bytes);
  g_autofree char *html = read_text(page);
  /* self-contained: nothing fetched */
  g_assert_null(strstr(html, "src=\"http"));
  g_assert_null(strstr(html, "href=\"http"));
  g_assert_null(strstr(html, "<link"));
  g_assert_null(strstr(html, "@import"));

  g_autofree char *chromium = chromium_path();
  if (chromium == NULL) {
    g_test_skip("chromium is not installed (tools/install-deps installs it): the page is not "
                "played");
    return;
  }
  /* the right arrow pressed k times, as a reader would */
  guint k = n / 2 + 1 < n ? n / 2 + 1 : n - 1;
  g_autoptr(GString) pressed = g_string_new(html);
  g_autofree char *keys = g_strdup_printf(
      "<script>for (var i = 0; i < %u; i++) document.dispatchEvent(new KeyboardEvent('keydown', "
      "{key: 'ArrowRight'}));</script></body>",
      k);
  g_assert_cmpuint(g_string_replace(pressed, "</body>", keys, 1), ==, 1);
  g_autofree char *pressed_page = g_build_filename(dir, "pressed.html", NULL);
  g_assert_true(g_file_set_contents(pressed_page, pressed->str, -1, NULL));
  g_autofree char *uri = g_filename_to_uri(pressed_page, NULL, NULL);
  g_autofree char *shot_name = g_strconcat(c->name, ".png", NULL);
  g_autofree char *shot = tmp_path(shot_name);
  g_autofree char *dom = NULL, *log = NULL;
  render(uri, shot, &dom, &log);
  g_unlink(pressed_page);
  g_assert_cmpuint(console_messages(log), ==, 0);
  g_autofree char *shown = element_text(dom, "frame-index");
  g_autofree char *want_index = g_strdup_printf("%u", k);
  g_assert_cmpstr(shown, ==, want_index);
  JsonObject *fk = json_array_get_object_element(frames, k);
  g_autofree char *want = loads_text(json_object_get_array_member(fk, "loads"));
  g_autofree char *dom_loads = element_text(dom, "frame-loads");
  g_assert_cmpstr(dom_loads, ==, want);
  g_autofree char *drawn = drawn_loads(dom);
  g_assert_cmpstr(drawn, ==, want);
  g_autofree char *slider = attribute_of(dom, "slider", "value");
  g_assert_cmpstr(slider, ==, want_index);
  g_assert_nonnull(strstr(dom, c->family_marker));
  /* the frame's messages listed with their words */
  JsonArray *kms = json_object_get_array_member(fk, "messages");
  for (guint i = 0; i < json_array_get_length(kms); i++) {
    const char *label = json_array_get_string_element(json_array_get_array_element(kms, i), 3);
    g_autofree char *listed = g_strdup_printf(": %s (", label);
    g_assert_nonnull(strstr(dom, listed));
  }
  /* the print view: one small picture per phase */
  guint nsections = json_array_get_length(json_object_get_array_member(doc, "sections"));
  guint multiples = 0;
  for (const char *at = dom; (at = strstr(at, "<figure class=\"multiple\"")) != NULL; at++)
    multiples++;
  g_assert_cmpuint(multiples, ==, nsections);
  check_screenshot(shot);
  g_autofree char *kept_name = g_strconcat("lesson-", c->name, ".png", NULL);
  g_autofree char *kept = g_build_filename(g_get_current_dir(), kept_name, NULL);
  g_autofree char *bytes = NULL;
  gsize length = 0;
  g_assert_true(g_file_get_contents(shot, &bytes, &length, NULL));
  if (g_file_set_contents(kept, bytes, (gssize)length, NULL))
    g_test_message("screenshot: %s", kept);

  /* a link to a moment: #frame=j opens frame j, the slider there too */
  guint j = n - 1;
  g_autofree char *page_uri = g_filename_to_uri(page, NULL, NULL);
  g_autofree char *linked = g_strdup_printf("%s#frame=%u", page_uri, j);
  g_autofree char *dom2 = NULL, *log2 = NULL;
  g_autofree char *shot2 = tmp_path("linked.png");
  render(linked, shot2, &dom2, &log2);
  g_assert_cmpuint(console_messages(log2), ==, 0);
  g_autofree char *shown2 = element_text(dom2, "frame-index");
  g_autofree char *want2 = g_strdup_printf("%u", j);
  g_assert_cmpstr(shown2, ==, want2);
  g_autofree char *slider2 = attribute_of(dom2, "slider", "value");
  g_assert_cmpstr(slider2, ==, want2);
  g_autofree char *loads2 = element_text(dom2, "frame-loads");
  g_assert_cmpstr(loads2, ==, last_loads);
}

/* Every rank drawn on the machine: its attributes, and where its box is. */
typedef struct {
  guint host, group;
  double speed, x, y;
  const char *at; /* its tag in the DOM */
} Drawn;

static guint64
tag_number(const char *tag, const char *attribute)
{
  g_autofree char *pattern = g_strdup_printf(" %s=\"([0-9.e+-]+)\"", attribute);
  g_autoptr(GRegex) re = g_regex_new(pattern, 0, 0, NULL);
  g_autoptr(GMatchInfo) m = NULL;
  g_assert_true(g_regex_match(re, tag, 0, &m));
  g_autofree char *v = g_match_info_fetch(m, 1);
  return (guint64)g_ascii_strtod(v, NULL);
}

static GArray *
drawn_ranks(const char *dom, guint ranks)
{
  const char *start = strstr(dom, "<svg id=\"machine\"");
  g_assert_nonnull(start);
  g_autoptr(GArray) out = g_array_new(FALSE, TRUE, sizeof(Drawn));
  g_array_set_size(out, ranks);
  g_autoptr(GRegex) re = g_regex_new("<g class=\"rank\"[^>]*>", 0, 0, NULL);
  g_autoptr(GRegex) at = g_regex_new("translate\\(([0-9.]+),([0-9.]+)\\)", 0, 0, NULL);
  g_autoptr(GMatchInfo) m = NULL;
  guint seen = 0;
  g_regex_match(re, start, 0, &m);
  for (; g_match_info_matches(m) && seen < ranks; g_match_info_next(m, NULL), seen++) {
    g_autofree char *tag = g_match_info_fetch(m, 0);
    gint from = 0;
    g_match_info_fetch_pos(m, 0, &from, NULL);
    guint r = (guint)tag_number(tag, "data-rank");
    g_assert_cmpuint(r, <, ranks);
    Drawn *d = &g_array_index(out, Drawn, r);
    d->host = (guint)tag_number(tag, "data-host");
    g_autofree char *speed = NULL;
    g_autoptr(GRegex) sre = g_regex_new(" data-speed=\"([0-9.e+]+)\"", 0, 0, NULL);
    g_autoptr(GMatchInfo) sm = NULL;
    g_assert_true(g_regex_match(sre, tag, 0, &sm));
    speed = g_match_info_fetch(sm, 1);
    d->speed = g_ascii_strtod(speed, NULL);
    d->group = strstr(tag, "data-switch") != NULL ? (guint)tag_number(tag, "data-switch") : 0;
    g_autoptr(GMatchInfo) am = NULL;
    g_assert_true(g_regex_match(at, tag, 0, &am));
    g_autofree char *x = g_match_info_fetch(am, 1), *y = g_match_info_fetch(am, 2);
    d->x = g_ascii_strtod(x, NULL);
    d->y = g_ascii_strtod(y, NULL);
    d->at = start + from;
  }
  g_assert_cmpuint(seen, ==, ranks);
  return g_steal_pointer(&out);
}

/* explain lbd on a platform, played to its first frame: the DOM */
static char *
machine_dom(const char *name, const char *ranks, const char *platform)
{
  g_autofree char *dir = tmp_path(name);
  g_autofree char *set = g_strconcat("scenario.platform=", platform, NULL);
  g_auto(Result) r = {0};
  lbsim(&r, "explain", "lbd", "--ranks", ranks, "--set", set, "--html", dir, NULL);
  g_test_message("%s", r.err);
  g_assert_cmpint(r.status, ==, 0);
  g_autofree char *page = g_build_filename(dir, "index.html", NULL);
  g_autofree char *uri = g_filename_to_uri(page, NULL, NULL);
  g_autofree char *shot_name = g_strconcat(name, ".png", NULL);
  g_autofree char *shot = tmp_path(shot_name);
  char *dom = NULL;
  g_autofree char *log = NULL;
  render(uri, shot, &dom, &log);
  g_assert_cmpuint(console_messages(log), ==, 0);
  check_screenshot(shot);
  return dom;
}

/* The T3E's 8 x 8 x 8 torus (host x + 8 y + 64 z): the ranks that sit
 * closest on the page are exactly the torus neighbours, not wrapping
 * round. */
static void
test_torus(void)
{
  if (chromium_path() == NULL) {
    g_test_skip("chromium is not installed");
    return;
  }
  g_autofree char *dom = machine_dom("torus", "16", "t3e-512.xml");
  g_assert_nonnull(strstr(dom, "class=\"edge torus-link"));
  g_autoptr(GArray) d = drawn_ranks(dom, 16);
  double pitch = G_MAXDOUBLE;
  for (guint a = 0; a < 16; a++)
    for (guint b = a + 1; b < 16; b++) {
      const Drawn *x = &g_array_index(d, Drawn, a), *y = &g_array_index(d, Drawn, b);
      pitch = MIN(pitch, hypot(x->x - y->x, x->y - y->y));
    }
  guint adjacent = 0;
  for (guint a = 0; a < 16; a++)
    for (guint b = a + 1; b < 16; b++) {
      const Drawn *x = &g_array_index(d, Drawn, a), *y = &g_array_index(d, Drawn, b);
      guint steps = 0;
      for (guint k = 0, hx = x->host, hy = y->host; k < 3; k++, hx /= 8, hy /= 8)
        steps += (guint)ABS((int)(hx % 8) - (int)(hy % 8));
      gboolean close = fabs(hypot(x->x - y->x, x->y - y->y) - pitch) < 0.5;
      g_assert_cmpint(close, ==, steps == 1);
      adjacent += close;
    }
  /* 16 ranks on hosts 0..15: two rows of 8 */
  g_assert_cmpuint(adjacent, ==, 2 * 7 + 8);
}

/* The fat tree's 32 hosts a leaf switch: 64 ranks in two boxes, each rank
 * drawn inside the box of its host's switch. */
static void
test_fat_tree(void)
{
  if (chromium_path() == NULL) {
    g_test_skip("chromium is not installed");
    return;
  }
  g_autofree char *dom = machine_dom("fat-tree", "64", "fat-tree-1024.xml");
  g_autoptr(GArray) d = drawn_ranks(dom, 64);
  const char *machine = strstr(dom, "<svg id=\"machine\"");
  g_autofree char *svg = g_strndup(machine, strstr(machine, "</svg>") - machine);
  g_autoptr(GRegex) re =
      g_regex_new("<g class=\"switch\" data-switch=\"(\\d+)\"><rect x=\"([0-9.]+)\" "
                  "y=\"([0-9.]+)\" width=\"([0-9.]+)\" height=\"([0-9.]+)\"",
                  0, 0, NULL);
  g_autoptr(GMatchInfo) m = NULL;
  double box[2][4];
  const char *opens[3] = {NULL, NULL, strstr(machine, "</svg>")};
  guint n = 0;
  g_regex_match(re, svg, 0, &m);
  for (; g_match_info_matches(m); g_match_info_next(m, NULL), n++) {
    g_assert_cmpuint(n, <, 2);
    g_autofree char *id = g_match_info_fetch(m, 1);
    g_assert_cmpuint(g_ascii_strtoull(id, NULL, 10), ==, n);
    for (guint k = 0; k < 4; k++) {
      g_autofree char *v = g_match_info_fetch(m, k + 2);
      box[n][k] = g_ascii_strtod(v, NULL);
    }
    gint from = 0;
    g_match_info_fetch_pos(m, 0, &from, NULL);
    opens[n] = machine + from;
  }
  g_assert_cmpuint(n, ==, 2);
  for (guint r = 0; r < 64; r++) {
    const Drawn *x = &g_array_index(d, Drawn, r);
    guint s = x->host / 32;
    g_assert_cmpuint(x->host, ==, r);
    g_assert_cmpuint(x->group, ==, s);
    g_assert_cmpfloat(x->x, >=, box[s][0]);
    g_assert_cmpfloat(x->x, <, box[s][0] + box[s][2]);
    g_assert_cmpfloat(x->y, >=, box[s][1]);
    g_assert_cmpfloat(x->y, <, box[s][1] + box[s][3]);
    /* and inside its element */
    g_assert_true(x->at > opens[s] && x->at < opens[s + 1]);
  }
}

/* hetero-cluster-16: hosts n0..n7 at 1 GFLOPS, n8..n15 at 1.266, one
 * switch; every rank shows its host's speed. */
static void
test_hetero(void)
{
  if (chromium_path() == NULL) {
    g_test_skip("chromium is not installed");
    return;
  }
  g_autofree char *dom = machine_dom("hetero", "16", "hetero-cluster-16.xml");
  g_autoptr(GArray) d = drawn_ranks(dom, 16);
  for (guint r = 0; r < 16; r++) {
    const Drawn *x = &g_array_index(d, Drawn, r);
    g_assert_cmpfloat(x->speed, ==, x->host < 8 ? 1e9 : 1.266e9);
    g_assert_cmpuint(x->group, ==, 0);
    const char *end = strstr(x->at, "</g>");
    g_autofree char *box = g_strndup(x->at, end - x->at);
    g_assert_nonnull(strstr(box, x->host < 8 ? ">1 GF/s<" : ">1.266 GF/s<"));
  }
  g_assert_nonnull(strstr(dom, "The hosts differ in speed"));
}

/* The element of a rank's grids in the SAMR view: from its tag to the
 * next rank's. */
static char *
grid_row(const char *dom, guint rank)
{
  const char *family = strstr(dom, "<svg id=\"family\"");
  g_assert_nonnull(family);
  g_autofree char *open = g_strdup_printf("<g class=\"grid-rank\" data-rank=\"%u\">", rank);
  const char *at = strstr(family, open);
  if (at == NULL)
    g_error("no grids of rank %u in the SAMR view", rank);
  const char *next = strstr(at + strlen(open), "<g class=\"grid-rank\"");
  const char *end = strstr(at, "</svg>");
  return g_strndup(at, (next != NULL && next < end ? next : end) - at);
}

static gboolean
holds_grid(const char *row, guint64 id)
{
  g_autofree char *pattern =
      g_strdup_printf("<g class=\"grid[^\"]*\" data-grid=\"%" G_GUINT64_FORMAT "\"", id);
  return g_regex_match_simple(pattern, row, 0, 0);
}

/* move-split's grids: in the frame of every transfer, the grid's element
 * is under the receiving rank's and no longer under the sender's (a move),
 * or, for a new grid (a split's piece), under the receiver's while the
 * sender keeps the grid it was cut from. */
static void
test_samr_grids(void)
{
  if (chromium_path() == NULL) {
    g_test_skip("chromium is not installed");
    return;
  }
  g_autofree char *dir = tmp_path("samr-grids");
  g_autofree char *json = tmp_path("samr-grids.json");
  g_auto(Result) r = {0};
  lbsim(&r, "explain", "move-split", "--html", dir, "--json", json, NULL);
  g_assert_cmpint(r.status, ==, 0);
  g_autoptr(JsonNode) root = load_json(json);
  JsonObject *doc = json_node_get_object(root);
  JsonArray *grids = json_object_get_array_member(doc, "grids");
  g_autoptr(GHashTable) known = g_hash_table_new(g_int64_hash, g_int64_equal);
  g_autoptr(GArray) ids = g_array_new(FALSE, FALSE, sizeof(gint64));
  g_array_set_size(ids, json_array_get_length(grids));
  for (guint i = 0; i < json_array_get_length(grids); i++) {
    g_array_index(ids, gint64, i) =
        json_array_get_int_element(json_array_get_array_element(grids, i), 1);
    g_hash_table_add(known, &g_array_index(ids, gint64, i));
  }
  JsonArray *frames = json_object_get_array_member(doc, "frames");
  g_autofree char *page = g_build_filename(dir, "index.html", NULL);
  g_autofree char *uri = g_filename_to_uri(page, NULL, NULL);
  guint moves = 0, splits = 0;
  for (guint k = 0; k < json_array_get_length(frames); k++) {
    JsonObject *f = json_array_get_object_element(frames, k);
    JsonArray *m = json_object_get_array_member(f, "moves");
    if (json_array_get_length(m) == 0)
      continue;
    g_autofree char *at = g_strdup_printf("%s#frame=%u", uri, k);
    g_autofree char *shot = tmp_path("samr.png");
    g_autofree char *dom = NULL, *log = NULL;
    render(at, shot, &dom, &log);
    g_assert_cmpuint(console_messages(log), ==, 0);
    for (guint i = 0; i < json_array_get_length(m); i++) {
      JsonArray *move = json_array_get_array_element(m, i);
      guint src = (guint)json_array_get_int_element(move, 0);
      guint dst = (guint)json_array_get_int_element(move, 1);
      gint64 id = json_array_get_int_element(move, 2);
      g_autofree char *to = grid_row(dom, dst), *from = grid_row(dom, src);
      g_assert_true(holds_grid(to, id));
      if (g_hash_table_contains(known, &id)) {
        g_assert_false(holds_grid(from, id));
        moves++;
      } else {
        /* the piece's parent is the grid the message names, still the sender's */
        g_autofree char *of = g_strdup_printf("a piece of grid ");
        const char *said = strstr(dom, of);
        g_assert_nonnull(said);
        guint64 parent = g_ascii_strtoull(said + strlen(of), NULL, 10);
        g_assert_true(holds_grid(from, parent));
        g_assert_nonnull(strstr(from, "class=\"grid cut\""));
        splits++;
      }
    }
  }
  g_test_message("%u moves, %u splits checked", moves, splits);
  g_assert_cmpuint(moves, >, 0);
  g_assert_cmpuint(splits, >, 0);
}

/* sfc-shift's curve over the H-tree: in the frame of every shift, each
 * leaf drawn carries the owner the frame's JSON gives it, and a leaf the
 * frame's transfers move is drawn at the receiver's. */
static void
test_sfc_leaves(void)
{
  if (chromium_path() == NULL) {
    g_test_skip("chromium is not installed");
    return;
  }
  g_autofree char *dir = tmp_path("sfc-leaves");
  g_autofree char *json = tmp_path("sfc-leaves.json");
  g_auto(Result) r = {0};
  lbsim(&r, "explain", "sfc-shift", "--html", dir, "--json", json, NULL);
  g_assert_cmpint(r.status, ==, 0);
  g_autoptr(JsonNode) root = load_json(json);
  JsonObject *doc = json_node_get_object(root);
  JsonArray *steps =
      json_object_get_array_member(json_object_get_object_member(doc, "tree"), "steps");
  JsonArray *frames = json_object_get_array_member(doc, "frames");
  g_autofree char *page = g_build_filename(dir, "index.html", NULL);
  g_autofree char *uri = g_filename_to_uri(page, NULL, NULL);
  g_autoptr(GRegex) re = g_regex_new(
      "<g class=\"leaf[^\"]*\" data-leaf=\"(\\d+)\" data-owner=\"(-?\\d+)\"", 0, 0, NULL);
  guint shifts = 0, moved = 0;
  for (guint k = 0; k < json_array_get_length(frames); k++) {
    JsonObject *f = json_array_get_object_element(frames, k);
    JsonArray *moves = json_object_get_array_member(f, "moves");
    if (json_array_get_length(moves) == 0)
      continue;
    g_autofree char *at = g_strdup_printf("%s#frame=%u", uri, k);
    g_autofree char *shot = tmp_path("sfc.png");
    g_autofree char *dom = NULL, *log = NULL;
    render(at, shot, &dom, &log);
    g_assert_cmpuint(console_messages(log), ==, 0);
    JsonArray *leaves =
        json_array_get_array_element(steps, (guint)json_object_get_int_member(f, "adaptation"));
    JsonArray *owners = json_object_get_array_member(f, "leaf_owners");
    g_autoptr(GHashTable) drawn = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, g_free);
    g_autoptr(GMatchInfo) m = NULL;
    g_regex_match(re, strstr(dom, "<svg id=\"family\""), 0, &m);
    for (; g_match_info_matches(m); g_match_info_next(m, NULL))
      g_hash_table_insert(drawn, g_match_info_fetch(m, 1), g_match_info_fetch(m, 2));
    g_assert_cmpuint(g_hash_table_size(drawn), ==, json_array_get_length(leaves));
    for (guint i = 0; i < json_array_get_length(leaves); i++) {
      g_autofree char *id =
          g_strdup_printf("%" G_GINT64_FORMAT,
                          json_array_get_int_element(json_array_get_array_element(leaves, i), 0));
      g_autofree char *want =
          g_strdup_printf("%" G_GINT64_FORMAT, json_array_get_int_element(owners, i));
      g_assert_cmpstr(g_hash_table_lookup(drawn, id), ==, want);
    }
    for (guint i = 0; i < json_array_get_length(moves); i++) {
      JsonArray *mv = json_array_get_array_element(moves, i);
      for (gint64 id = json_array_get_int_element(mv, 2);
           id < json_array_get_int_element(mv, 2) + json_array_get_int_element(mv, 3); id++) {
        g_autofree char *key = g_strdup_printf("%" G_GINT64_FORMAT, id);
        const char *owner = g_hash_table_lookup(drawn, key);
        if (owner == NULL)
          continue; /* an hnode that is not a leaf */
        /* its last move in the frame */
        gint64 dst = json_array_get_int_element(mv, 1);
        for (guint j = i + 1; j < json_array_get_length(moves); j++) {
          JsonArray *later = json_array_get_array_element(moves, j);
          if (id >= json_array_get_int_element(later, 2) &&
              id < json_array_get_int_element(later, 2) + json_array_get_int_element(later, 3))
            dst = json_array_get_int_element(later, 1);
        }
        g_assert_cmpint(g_ascii_strtoll(owner, NULL, 10), ==, dst);
        moved++;
      }
    }
    shifts++;
  }
  g_test_message("%u shift frames, %u moved leaves checked", shifts, moved);
  g_assert_cmpuint(shifts, >, 0);
  g_assert_cmpuint(moved, >, 0);
}

static void
test_bad_options(void)
{
  g_autofree char *file = tmp_path("a-file");
  g_assert_true(g_file_set_contents(file, "x", -1, NULL));
  g_autofree char *inside = g_build_filename(file, "dir", NULL);
  g_auto(Result) r = {0};
  lbsim(&r, "explain", "mlb", "--html", inside, NULL);
  g_assert_cmpint(r.status, ==, 2);
  g_assert_nonnull(strstr(r.err, "--html"));
  g_assert_cmpstr(r.out, ==, "");
  /* --json - : standard output holds the JSON alone */
  g_auto(Result) j = {0};
  lbsim(&j, "explain", "mlb", "--json", "-", NULL);
  g_assert_cmpint(j.status, ==, 0);
  g_autoptr(JsonParser) parser = json_parser_new();
  g_autoptr(GError) error = NULL;
  g_assert_true(json_parser_load_from_data(parser, j.out, -1, &error));
  g_assert_no_error(error);
}

/* lbsim run --explain-html: the page of one balancer of a scenario */
static void
test_run(void)
{
  g_autofree char *dir = tmp_path("run-lesson");
  g_auto(Result) r = {0};
  lbsim(&r, "run", "-q", "scenarios/mlb-teach-16.ini", "--balancer", "mlb", "--explain-html", dir,
        NULL);
  g_test_message("%s", r.err);
  g_assert_cmpint(r.status, ==, 0);
  g_autofree char *page = g_build_filename(dir, "index.html", NULL);
  g_autofree char *html = read_text(page);
  g_assert_nonnull(strstr(html, "\"format\": \"lbsim-explain\""));
  g_assert_nonnull(strstr(html, "\"ranks\": 16"));
  g_auto(Result) two = {0};
  g_autofree char *other = tmp_path("run-lesson-2");
  lbsim(&two, "run", "-q", "scenarios/mlb-teach-16.ini", "--explain-html", other, NULL);
  g_assert_cmpint(two.status, ==, 2);
  g_assert_nonnull(strstr(two.err, "add --balancer NAME"));
  g_assert_false(g_file_test(other, G_FILE_TEST_EXISTS));
}

int
main(int argc, char **argv)
{
  g_test_init(&argc, &argv, NULL);
  g_autoptr(GError) error = NULL;
  tmp_dir = g_dir_make_tmp("lbsim-lesson-XXXXXX", &error);
  g_assert_no_error(error);
  for (guint i = 0; i < G_N_ELEMENTS(cases); i++) {
    g_autofree char *path = g_strdup_printf("/lesson/%s", cases[i].name);
    g_test_add_data_func(path, &cases[i], test_family);
  }
  g_test_add_func("/lesson/machine/torus", test_torus);
  g_test_add_func("/lesson/machine/fat-tree", test_fat_tree);
  g_test_add_func("/lesson/machine/hetero-cluster", test_hetero);
  g_test_add_func("/lesson/samr-grids", test_samr_grids);
  g_test_add_func("/lesson/sfc-leaves", test_sfc_leaves);
  g_test_add_func("/lesson/bad-options", test_bad_options);
  g_test_add_func("/lesson/run", test_run);
  int status = g_test_run();
  remove_tree(tmp_dir);
  g_free(tmp_dir);
  return status;
}
