#!/usr/bin/env python3
"""Tidy data: the long CSVs of a sweep (with replicates) and of a run of
another scenario concatenate into one table whose columns each hold one
type, and their values are the JSON's; a sweep's JSON keeps its varied
values' types and no key of a point holds a dot, so that joining nested
names with dots (as pandas' json_normalize does) gives the varied names
back; a metric is spelt as in the JSON everywhere, the dashed spelling
of older scenario files accepted. TAP on stdout.
Usage: check-tidy.py SOURCE_ROOT LBSIM"""
import csv
import json
import math
import os
import shutil
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from tap import done, ok  # noqa: E402

SOURCE, LBSIM = sys.argv[1:3]
FIXED = ["scenario", "balancer", "label", "ranks", "seed"]
TAIL = ["metric", "value", "unit", "lbsim"]


def lbsim(*args, cwd):
    return subprocess.run([LBSIM] + list(args), cwd=cwd, capture_output=True, text=True)


def read_csv(path):
    with open(path, newline="") as f:
        reader = csv.DictReader(f)
        return reader.fieldnames, list(reader)


def concat(*tables):
    """One frame from several CSVs: the union of their columns, in
    first-seen order, a missing cell None (pandas.concat does the same)."""
    columns = []
    for header, _ in tables:
        columns += [c for c in header if c not in columns]
    return columns, [{c: row.get(c) for c in columns} for _, rows in tables for row in rows]


def flatten(obj, prefix=""):
    """pandas.json_normalize's names: nested keys joined with dots."""
    out = {}
    for k, v in obj.items():
        if isinstance(v, dict):
            out.update(flatten(v, prefix + k + "."))
        else:
            out[prefix + k] = v
    return out


def keys(obj):
    """Every key of obj, at any depth."""
    for k, v in obj.items():
        yield k
        if isinstance(v, dict):
            yield from keys(v)


def close(a, b):
    return abs(a - b) <= max(abs(b) * 1e-9, 1e-12)


def json_value(result, metric):
    for group in ("summary", "metrics"):
        if metric in result[group]:
            return result[group][metric]
    return None


def check_rows(rows, runs, key, what):
    """Every row's value is its run's in the JSON; every run has rows."""
    by_run = {}
    for row in rows:
        by_run.setdefault(key(row), []).append(row)
    bad = []
    for k, result in runs.items():
        got = by_run.get(k, [])
        if not got:
            bad.append(f"{k}: no rows")
        for row in got:
            want = json_value(result, row["metric"])
            if want is None or not close(float(row["value"]), want):
                bad.append(f"{k} {row['metric']}: {row['value']} against {want}")
    ok(not bad and len(by_run) == len(runs), f"{what}: the long CSV's values are the JSON's",
       "\n".join(bad[:30]))


def main():
    tmp = tempfile.mkdtemp(prefix="lbsim-tidy-")
    teach = os.path.join(SOURCE, "scenarios", "mlb-teach-16.ini")
    dls = os.path.join(SOURCE, "scenarios", "dls-aqr-hetero-32.ini")
    p = lbsim("sweep", teach, "--set", "workload.pattern=random", "--vary", "ranks=4,8",
              "--platform", "hypercube-{ranks}.xml", "--vary", "workload.size=64,128",
              "--repeat", "2", "-o", "a.json", "--long-csv", "a.csv", "-j", "2", "-q", cwd=tmp)
    ok(p.returncode == 0, "a sweep writes its long CSV", p.stderr)
    p2 = lbsim("run", dls, "-q", "-o", "b.json", "--long-csv", "b.csv", cwd=tmp)
    ok(p2.returncode == 0, "a run writes its long CSV", p2.stderr)
    if p.returncode != 0 or p2.returncode != 0:
        return done()
    a_doc = json.load(open(os.path.join(tmp, "a.json")))
    b_doc = json.load(open(os.path.join(tmp, "b.json")))
    a = read_csv(os.path.join(tmp, "a.csv"))
    b = read_csv(os.path.join(tmp, "b.csv"))

    # the header rules
    ok(a[0] == FIXED + ["workload.size"] + TAIL,
       "the sweep's columns: the fixed ones, its varied key, metric, value, unit, lbsim", a[0])
    ok(b[0] == FIXED + TAIL, "the run's columns: the same without a varied key", b[0])

    # one frame, a type per column
    columns, frame = concat(a, b)
    ok(len(frame) == len(a[1]) + len(b[1]) and columns == FIXED + ["workload.size"] + TAIL,
       "the two concatenate into one frame", columns)
    typed = {"ranks": int, "seed": int, "value": float, "workload.size": int}
    bad = []
    for i, row in enumerate(frame):
        for column, kind in typed.items():
            cell = row[column]
            if column == "workload.size" and i >= len(a[1]):
                if cell is not None:
                    bad.append(f"row {i}: the run has a workload.size ({cell})")
                continue
            try:
                v = kind(cell)
                if kind is float and not math.isfinite(v):
                    bad.append(f"row {i}: {column} {cell}")
            except (TypeError, ValueError):
                bad.append(f"row {i}: {column} {cell!r} is not {kind.__name__}")
        if not row["unit"] or not row["metric"] or row["lbsim"] != a_doc["lbsim"]:
            bad.append(f"row {i}: unit, metric or version missing: {row}")
    ok(not bad, "every column holds one type: whole ranks, seeds and sizes, numbers as values",
       "\n".join(bad[:30]))
    ok({r["scenario"] for r in frame} == {"mlb-teach-16", "dls-aqr-hetero-32"}
       and {r["seed"] for r in frame if r["scenario"] == "mlb-teach-16"} == {"1", "2"},
       "the frame tells the scenarios and the replicates' seeds apart")
    ok({r["balancer"] for r in b[1]} == {"dls"} and "dls:fac" in {r["label"] for r in b[1]},
       "balancer is the family, label the run's label")
    pairs = [(r["label"], r["metric"]) for r in b[1]]
    ok(len(pairs) == len(set(pairs)), "a run names each metric once")

    # the values are the JSON's
    a_runs = {}
    for run in a_doc["runs"]:
        pt = run["point"]
        a_runs[(pt["ranks"], pt["workload"]["size"], pt["seed"], run["balancer"])] = run["result"]
    check_rows(a[1], a_runs, lambda r: (int(r["ranks"]), int(r["workload.size"]), int(r["seed"]),
                                        r["label"]), "the sweep")
    b_runs = {run["balancer"]: run for run in b_doc["runs"]}
    check_rows(b[1], b_runs, lambda r: r["label"], "the run")

    # the sweep's JSON: typed values, no dotted key
    vary = {v["name"]: v["values"] for v in a_doc["sweep"]["vary"]}
    ok(all(isinstance(x, int) for n in ("ranks", "workload.size", "seed") for x in vary[n]),
       "vary's values are numbers where they are numbers", json.dumps(vary))
    names = {n for n in vary if n != "balancer"}
    points = [run["point"] for run in a_doc["runs"]]
    dotted = [p for p in points if any("." in k for k in keys(p))]
    ok(not dotted, "no key of a point holds a dot", json.dumps(dotted[:3]))
    ok(all(set(flatten(p)) == names for p in points)
       and all(isinstance(v, int) for p in points for v in flatten(p).values()),
       "a point's names joined with dots are the varied names, its values typed",
       json.dumps(points[:3]))
    stats = a_doc.get("statistics", [])
    ok(len(stats) == 2 * 2 * 1 * 2 and all(set(flatten(s["point"])) == names - {"seed"}
                                           for s in stats),
       "statistics per point (the seed aside) and balancer", json.dumps(stats[:1])[:2000])

    # one spelling: lbsim list writes the JSON's, [expect] takes both
    p = lbsim("list", "mlb", cwd=tmp)
    ok("schedule_steps" in p.stdout and "schedule-steps" not in p.stdout,
       "lbsim list names metrics as the JSON does", p.stdout[-2000:])
    shutil.copy(teach, os.path.join(tmp, "teach.ini"))
    with open(os.path.join(tmp, "teach.ini")) as f:
        text = f.read()
    text = text[:text.index("[expect]")] + (
        "[expect]\nmlb.schedule_steps <= 4\nmlb.accumulate_steps == 4\n"
        "mlb.imbalance-after <= 1.6\nmlb.imbalance_after < none.imbalance-after\n")
    with open(os.path.join(tmp, "teach.ini"), "w") as f:
        f.write(text)
    p = lbsim("check", "teach.ini", cwd=tmp)
    ok(p.returncode == 0 and p.stdout.count("PASS") == 4,
       "[expect] takes the JSON's spelling and the dashed one", p.stdout + p.stderr)
    with open(os.path.join(tmp, "teach.ini"), "a") as f:
        f.write("mlb.schedule_stepz <= 4\n")
    p = lbsim("check", "teach.ini", cwd=tmp)
    ok(p.returncode == 2 and "schedule_stepz" in p.stderr
       and "(known: imbalance_before, imbalance_after, " in p.stderr
       and "accumulate_steps" in p.stderr and "-steps" not in p.stderr,
       "[expect] refuses a metric under no spelling, naming the known ones as the JSON does",
       p.stderr)
    shutil.rmtree(tmp)
    return done()


sys.exit(main())
