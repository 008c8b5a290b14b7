/* `lbsim explain` of every family against its golden text in
 * tests/golden/explain-*.txt, byte for byte: the story is deterministic
 * (simulated time, no addresses, no hash order, no absolute paths), and
 * each text was checked by hand against the algorithm when it was
 * accepted (docs/developer/testing.md). LBSIM_UPDATE_GOLDEN=1 writes the texts
 * anew instead of comparing: review the difference before committing it. */
#include <glib.h>
#include <glib/gstdio.h>

#include "lbsim-spawn.h"

typedef struct {
  const char *name; /* the golden file is explain-NAME.txt */
  const char *args[8];
} Case;

static const Case cases[] = {
    {"mlb", {"mlb", "--loads", "5,1,7,3,0,8,2,6", NULL}},
    /* section 3.4's single loan read literally, on a case where it breaks
     * the order (test-mlb-sim.c works it out by hand) */
    {"mlb-literal",
     {"mlb", "--loads", "6,9,2,3,2,3,2,1,2", "--ranks", "8", "--set", "mlb.phase4=literal", NULL}},
    {"mlb-nd", {"mlb-nd", NULL}},
    {"lbd", {"lbd", NULL}},
    {"enzo-original", {"enzo-original", NULL}},
    {"move-split", {"move-split", NULL}},
    {"sfc-shift", {"sfc-shift", NULL}},
    {"dls", {"dls", NULL}},
};

static void
run_explain(const Case *c, Result *r)
{
  lbsim(r, "explain", c->args[0], c->args[1], c->args[2], c->args[3], c->args[4], c->args[5],
        c->args[6], c->args[7], NULL);
}

/* The first line that differs, for the log. */
static void
show_difference(const char *want, const char *got)
{
  g_auto(GStrv) a = g_strsplit(want, "\n", -1), b = g_strsplit(got, "\n", -1);
  for (guint i = 0; a[i] != NULL || b[i] != NULL; i++) {
    if (a[i] != NULL && b[i] != NULL && g_strcmp0(a[i], b[i]) == 0)
      continue;
    g_test_message("line %u differs:\n  golden: %s\n  now:    %s", i + 1,
                   a[i] != NULL ? a[i] : "(end)", b[i] != NULL ? b[i] : "(end)");
    return;
  }
}

static void
test_golden(gconstpointer data)
{
  const Case *c = data;
  g_auto(Result) r = {0};
  run_explain(c, &r);
  g_test_message("%s", r.err);
  g_assert_cmpint(r.status, ==, 0);
  g_assert_cmpstr(r.err, ==, "");
  g_autofree char *name = g_strdup_printf("explain-%s.txt", c->name);
  g_autofree char *path = g_build_filename(source_root(), "tests", "golden", name, NULL);
  if (g_strcmp0(g_getenv("LBSIM_UPDATE_GOLDEN"), "1") == 0) {
    g_autoptr(GError) error = NULL;
    g_assert_true(g_file_set_contents(path, r.out, -1, &error));
    g_assert_no_error(error);
    g_test_message("wrote %s", path);
    return;
  }
  g_autofree char *want = NULL;
  g_autoptr(GError) error = NULL;
  g_assert_true(g_file_get_contents(path, &want, NULL, &error));
  g_assert_no_error(error);
  if (g_strcmp0(want, r.out) != 0)
    show_difference(want, r.out);
  g_assert_cmpstr(r.out, ==, want);
  /* kept small enough to read, and check, by hand */
  guint lines = 0;
  for (const char *p = r.out; *p != '\0'; p++)
    lines += *p == '\n';
  g_assert_cmpuint(lines, <=, 200);
}

/* A second run tells the same story, byte for byte. */
static void
test_deterministic(void)
{
  for (guint i = 0; i < G_N_ELEMENTS(cases); i += 3) {
    g_auto(Result) a = {0}, b = {0};
    run_explain(&cases[i], &a);
    run_explain(&cases[i], &b);
    g_assert_cmpint(a.status, ==, 0);
    g_assert_cmpstr(a.out, ==, b.out);
  }
}

int
main(int argc, char **argv)
{
  g_test_init(&argc, &argv, NULL);
  for (guint i = 0; i < G_N_ELEMENTS(cases); i++) {
    g_autofree char *path = g_strdup_printf("/explain/golden/%s", cases[i].name);
    g_test_add_data_func(path, &cases[i], test_golden);
  }
  g_test_add_func("/explain/deterministic", test_deterministic);
  return g_test_run();
}
