"""tools/bench at a size small enough for the suite (16 ranks of dls:fac,
under a second a run): its table, its --rows lines and --no-plain; the
timings themselves are the benchmarks' job, not the suite's. Arguments:
the source root and the build directory."""

import os
import re
import shutil
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
from tap import done, ok  # noqa: E402

root, build = sys.argv[1], sys.argv[2]
bench = os.path.join(root, "tools", "bench")


def run(*args):
    return subprocess.run(["bash", bench, build, *args], capture_output=True, text=True,
                          timeout=300)


def table_row(out, p):
    """The figures of size p in the table, as words."""
    for line in out.splitlines():
        words = line.split()
        if words and words[0] == str(p):
            return words
    return None


if not os.path.exists("/usr/bin/time") and os.geteuid() != 0:
    print("1..0 # SKIP tools/bench needs GNU time as /usr/bin/time")
    sys.exit(0)

with tempfile.TemporaryDirectory() as tmp:
    rows = os.path.join(tmp, "rows.txt")
    r = run("--balancer", "dls:fac", "--sizes", "16", "--no-plain", "--rows", rows)
    ok(r.returncode == 0, "--no-plain at 16 ranks runs (no target at 16 ranks to miss)",
       r.stdout + r.stderr)
    words = table_row(r.stdout, 16)
    ok(words is not None and len(words) >= 13, "a row for p=16", r.stdout)
    if words is not None and len(words) >= 13:
        # p, lbsim s, lb run s, lb MiB, messages, msg/s, then the plain
        # replay's five columns, then bare* s and ratio*
        ok(words[6:11] == ["-"] * 5, "the plain replay's columns print as -", " ".join(words))
        ok(int(words[4]) > 0, "the row counts the simulated messages", " ".join(words))
        # each printed to 0.01: the ratio of the printed walls within
        # what their rounding allows
        bare, ratio, lbsim = float(words[11]), float(words[12]), float(words[1])
        h = 0.005
        ok(bare > h and (lbsim - h) / (bare + h) - h <= ratio <= (lbsim + h) / (bare - h) + h,
           "ratio* is lbsim's wall over the tuned replay's", " ".join(words))
    ok("bare replay of" in r.stderr and "plain bare replay" not in r.stderr,
       "only the tuned replay ran", r.stderr)
    lines = open(rows).read().splitlines() if os.path.exists(rows) else []
    ok(len(lines) == 1, "--rows appended one line a size", "\n".join(lines))
    if len(lines) == 1:
        f = lines[0].split()
        ok(len(f) == 6 and f[0] == "dls:fac" and f[1] == "16" and
           all(float(x) > 0 for x in f[2:]),
           "the line is family, ranks, wall, peak, floor wall, floor peak", lines[0])

    r = run("--balancer", "dls:fac", "--sizes", "16", "--rows", rows)
    words = table_row(r.stdout, 16)
    ok(r.returncode == 0 and words is not None and
       all(re.fullmatch(r"[0-9.]+", w) for w in words[6:13]),
       "without --no-plain the plain replay's columns are figures", r.stdout + r.stderr)
    lines = open(rows).read().splitlines()
    ok(len(lines) == 2, "a second run appends, keeping the first line", "\n".join(lines))

    r = run("--balancer", "dls:fac", "--sizes", "16", "--no-plain", "--repeat", "0")
    ok(r.returncode != 0 and "--repeat takes a positive number" in r.stderr,
       "a bad --repeat is refused by name", r.stderr)
    r = run("--balancer", "nothing", "--sizes", "16")
    ok(r.returncode != 0 and "--balancer takes" in r.stderr,
       "an unknown balancer is refused with the list", r.stderr)

# lbsim-scaling-chart: a line a family and style (lbsim solid, the floor
# dashed) in each chart, their points the rows' in order of ranks given
chart = os.path.join(build, "tools", "lbsim-scaling-chart")
with tempfile.TemporaryDirectory() as tmp:
    rows = os.path.join(tmp, "rows.txt")
    with open(rows, "w") as f:
        f.write("# family ranks wall peak floor-wall floor-peak\n"
                "mlb 1024 0.81 148.1 0.49 67.2\n"
                "dls:fac 1024 5.91 85.7 5.33 96.2\n"
                "mlb 4096 4.29 298.3 2.84 182.2\n")
    svg = os.path.join(tmp, "scaling.svg")
    r = subprocess.run([chart, rows, svg], capture_output=True, text=True, timeout=60)
    text = open(svg).read() if os.path.exists(svg) else ""
    ok(r.returncode == 0 and text.startswith("<?xml"), "the chart is drawn as SVG", r.stderr)
    # a <g class="series" data-series=...> holds its lines, <path
    # class="line" data-style data-x data-y>, the floor's dashed
    lines, series = [], None
    for tag in re.findall(r"<(?:g|path) [^>]*>", text):
        a = dict(re.findall(r'([a-z-]+)="([^"]*)"', tag))
        if a.get("class") == "series":
            series = a.get("data-series")
        elif a.get("class") == "line":
            lines.append((series, a.get("data-style"), a.get("data-x"), a.get("data-y")))
            ok(("stroke-dasharray" in a) == (a.get("data-style") == "1"),
               f"{series}: lbsim's line solid, the floor's dashed", tag)
    want = {("mlb", "0", "1024 4096", "0.81 4.29"), ("mlb", "1", "1024 4096", "0.49 2.84"),
            ("mlb", "0", "1024 4096", "148.1 298.3"), ("mlb", "1", "1024 4096", "67.2 182.2"),
            ("dls:fac", "0", "1024", "5.91"), ("dls:fac", "1", "1024", "5.33"),
            ("dls:fac", "0", "1024", "85.7"), ("dls:fac", "1", "1024", "96.2")}
    ok(want <= set(lines) and len(lines) == 8,
       "each family's wall and peak, lbsim's and the floor's, from the rows", lines)
    with open(rows, "a") as f:
        f.write("lbd 4096 12.0 -3 1 1\n")
    r = subprocess.run([chart, rows, svg], capture_output=True, text=True, timeout=60)
    ok(r.returncode == 1 and "rows.txt:5: expected FAMILY RANKS" in r.stderr,
       "a row with a negative peak is refused with its line", r.stderr)

sys.exit(done())
