#!/usr/bin/env python3
"""lbsim's JSON documents follow docs/reference/lbsim-result.schema.json:
a sweep's, a merge's and a reproduction's, as lbsim writes them (the runs
of every shipped scenario, plain and --detail, are validated by test-cli);
the schema refuses what is not one (a document without its format, of
another version, with a member misspelt), and lbsim report refuses a
format_version it does not know. TAP on stdout.
Usage: check-schema.py SOURCE_ROOT LBSIM"""
import copy
import json
import os
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import validate  # noqa: E402

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from tap import done, ok  # noqa: E402

SOURCE, LBSIM = sys.argv[1:3]
SCHEMA = os.path.join(SOURCE, "docs", "reference", "lbsim-result.schema.json")


def lbsim(*args, cwd):
    return subprocess.run([LBSIM] + list(args), cwd=cwd, capture_output=True, text=True)


def main():
    v = validate.validator(SCHEMA)
    ok(True, "the schema is a valid draft 2020-12 schema")
    tmp = tempfile.mkdtemp(prefix="lbsim-schema-")
    teach = os.path.join(SOURCE, "scenarios", "mlb-teach-16.ini")
    p = lbsim("sweep", teach, "--vary", "seed=1,2", "--vary", "balancer=none,mlb", "-o",
              "sweep.json", "-q", cwd=tmp)
    docs = {}
    if p.returncode == 0:
        docs["sweep"] = json.load(open(os.path.join(tmp, "sweep.json")))
    p5 = lbsim("sweep", teach, "--vary", "workload.high=3,10", "--vary", "balancer=mlb",
               "--repeat", "2", "-o", "replicates.json", "-q", cwd=tmp)
    if p5.returncode == 0:
        docs["replicates"] = json.load(open(os.path.join(tmp, "replicates.json")))
    p2 = lbsim("merge", "sweep.d", "-o", "merged.json", "-q", cwd=tmp)
    if p2.returncode == 0:
        docs["merge"] = json.load(open(os.path.join(tmp, "merged.json")))
    # (minutes under the sanitizers: the normal build's to check)
    sanitized = os.environ.get("LBSIM_SANITIZED") is not None
    p3 = lbsim("reproduce", "lbd" if sanitized else "quinlan1997", "--quick", "-q", "--json",
               "repro.json", "--state", "repro.d", cwd=tmp) if not sanitized else p
    if os.path.exists(os.path.join(tmp, "repro.json")):
        docs["reproduce"] = json.load(open(os.path.join(tmp, "repro.json")))
    p4 = lbsim("run", teach, "-q", "--json", "run.json", cwd=tmp)
    if p4.returncode == 0:
        docs["run"] = json.load(open(os.path.join(tmp, "run.json")))
    # lbsim check: one scenario's run document with its checks, and several
    # scenarios' in one document
    loop = os.path.join(SOURCE, "scenarios", "loop-aqr-hetero-16.ini")
    if lbsim("check", teach, "-q", "--json", "check.json", cwd=tmp).returncode == 0:
        docs["check"] = json.load(open(os.path.join(tmp, "check.json")))
    if lbsim("check", teach, loop, "-q", "--json", "checks.json", cwd=tmp).returncode == 0:
        docs["checks"] = json.load(open(os.path.join(tmp, "checks.json")))
    kinds = ("sweep", "merge", "run", "replicates", "check", "checks")
    if not sanitized:
        kinds += ("reproduce",)
    for kind in kinds:
        doc = docs.get(kind)
        ok(doc is not None and doc.get("format") == "lbsim-result"
           and doc.get("format_version") == 3,
           f"{kind}: written with its format and version", (p.stderr + p2.stderr + p3.stderr)[-2000:])
        if doc is not None:
            errs = validate.errors(v, doc)
            ok(not errs, f"{kind}: follows the schema", "\n".join(errs))
    rep = docs.get("replicates")
    if rep is not None:
        point = rep["runs"][0]["point"]
        ok(point == {"workload": {"high": 3}, "seed": 1},
           "a sweep's point keeps its values' types, GROUP.KEY nested", json.dumps(point))
        stats = rep.get("statistics", [])
        ok(len(stats) == 2 and [s["point"] for s in stats] == [{"workload": {"high": 3}},
                                                               {"workload": {"high": 10}}]
           and all(s["replicates"] == [1, 2] for s in stats),
           "statistics: one per point, the replicates' axis aside", json.dumps(stats)[:2000])
    if "run" in docs:
        run = docs["run"]
        broken = {
            "without its format": {k: x for k, x in run.items() if k != "format"},
            "of version 4": dict(run, format_version=4),
            "of version 1": dict(run, format_version=1),
            "with a member misspelt": dict(run, runz=run["runs"]),
        }
        # a measure that does not apply is null, never 0: none declares no
        # schedule steps, mlb does
        steps = {r["balancer"]: (r["summary"]["schedule_steps"],
                                 [a["schedule_steps"] for a in r.get("adaptations", [])])
                 for r in run["runs"]}
        ok(steps.get("none", (0, [0]))[0] is None and set(steps["none"][1]) <= {None}
           and isinstance(steps.get("mlb", (None,))[0], int)
           and all(isinstance(x, int) for x in steps["mlb"][1]),
           "schedule_steps: null for none (run and steps), a count for mlb", json.dumps(steps))
        r0 = copy.deepcopy(run)
        r0["runs"][0]["summary"]["schedule_steps"] = -1
        broken["with negative schedule steps"] = r0
        # a version-2 document wrote 0 where the measure did not apply: read
        v2 = copy.deepcopy(run)
        v2["format_version"] = 2
        for r in v2["runs"]:
            if r["summary"]["schedule_steps"] is None:
                r["summary"]["schedule_steps"] = 0
                for a in r.get("adaptations", []):
                    a["schedule_steps"] = 0
        json.dump(v2, open(os.path.join(tmp, "v2.json"), "w"))
        p = lbsim("report", "v2.json", "page-v2", cwd=tmp)
        ok(p.returncode == 0, "lbsim report reads a version-2 document (0 where now null)",
           p.stderr)
        r0 = copy.deepcopy(run)
        r0["runs"][0]["summary"]["messages"] = -1
        broken["with a negative message count"] = r0
        for what, doc in broken.items():
            ok(validate.errors(v, doc), f"the schema refuses a document {what}")
        # lbsim's own reader: a newer version is refused, an older file read
        newer = os.path.join(tmp, "newer.json")
        json.dump(dict(run, format_version=4), open(newer, "w"))
        p = lbsim("report", "newer.json", "page-newer", cwd=tmp)
        ok(p.returncode == 2 and "format_version: 4: this lbsim reads versions 1 to 3"
           in p.stderr, "lbsim report refuses a format_version it does not know", p.stderr)
        older = os.path.join(tmp, "older.json")
        json.dump({k: x for k, x in run.items() if k not in ("format", "format_version")},
                  open(older, "w"))
        p = lbsim("report", "older.json", "page-older", cwd=tmp)
        ok(p.returncode == 0, "lbsim report reads a document written before the format",
           p.stderr)
    return done()


sys.exit(main())
