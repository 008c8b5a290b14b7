#!/usr/bin/env python3
"""The install round trip, as a user makes it: lbsim installed into a
temporary prefix (meson install with DESTDIR), the prefix moved elsewhere;
the prefix holds the docs, the JSON schema and the examples as in the
sources, and lbsim-platgen, and no installed text file names the source,
build or staging folder; lbsim run from it by a shipped scenario's short
name with its data found beside it, the docs its help names found where
lbsim version says, lbsim-platgen writing the shipped platforms and one
lbsim runs on, the installed example plugin (examples/pairwise) built
against the moved prefix with pkg-config alone and run with --plugin,
[scenario] plugins, LBSIM_PLUGIN_PATH, explain, a sweep's jobs, merge and
report, and every way a plugin is refused. TAP on stdout.
Usage: check-install.py SOURCE_ROOT BUILD_ROOT PREFIX LIBDIR"""

import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from tap import done, ok  # noqa: E402

SOURCE, BUILD, PREFIX, LIBDIR = sys.argv[1:5]


def clean_env(**extra):
    """The user's environment: no LBSIM_* variable of the test harness and
    not its LD_LIBRARY_PATH (meson test's, to the build tree's library), so
    that nothing points back into the source or build tree."""
    env = {k: v for k, v in os.environ.items()
           if not k.startswith("LBSIM") and k != "LD_LIBRARY_PATH"}
    env.update(extra)
    return env


def run(args, cwd, env=None):
    p = subprocess.run(args, cwd=cwd, env=env or clean_env(), capture_output=True, text=True)
    return p


def text_of(path):
    """A file's text, or None for a binary file (a NUL byte, or not UTF-8)."""
    with open(path, "rb") as f:
        data = f.read()
    if b"\0" in data:
        return None
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        return None


def same_tree(source, installed):
    """The files of `source` missing from `installed` or different there."""
    bad = []
    for d, _, fs in os.walk(source):
        for f in fs:
            rel = os.path.relpath(os.path.join(d, f), source)
            there = os.path.join(installed, rel)
            if not os.path.isfile(there) or open(there, "rb").read() != \
                    open(os.path.join(d, f), "rb").read():
                bad.append(rel)
    return bad


def cc_plugin(tmp, name, body, cflags):
    src = os.path.join(tmp, name + ".c")
    with open(src, "w") as f:
        f.write(body)
    out = os.path.join(tmp, "lib" + name + ".so")
    p = subprocess.run(["cc", "-shared", "-fPIC", "-o", out, src] + cflags, capture_output=True,
                       text=True)
    return out, p


def main():
    tmp = tempfile.mkdtemp(prefix="lbsim-install-")
    try:
        stage = os.path.join(tmp, "stage")
        p = subprocess.run(["meson", "install", "-C", BUILD, "--no-rebuild", "--quiet",
                            "--destdir", stage], capture_output=True, text=True)
        ok(p.returncode == 0, "meson install into a staging folder", p.stdout + p.stderr)
        # the prefix, moved: nothing of it may depend on where it was made
        moved = os.path.join(tmp, "moved", "lbsim-prefix")
        os.makedirs(os.path.dirname(moved))
        shutil.move(stage + PREFIX, moved)
        lbsim = os.path.join(moved, "bin", "lbsim")
        files = []
        for d, _, fs in os.walk(moved):
            files += [os.path.relpath(os.path.join(d, f), moved) for f in fs]
        print(f"# installed: {len(files)} files")
        for f in sorted(files):
            if "/scenarios/" not in f and "/platforms/" not in f:
                print(f"#   {f}")
        wanted = ["bin/lbsim", f"{LIBDIR}/liblbsim.so", f"{LIBDIR}/pkgconfig/lbsim.pc",
                  "include/lbsim/plugin.h", "include/lbsim/rank.h",
                  "share/lbsim/platforms/hypercube-16.xml", "share/lbsim/scenarios/mlb-teach-16.ini",
                  "share/lbsim/scenarios/papers/lan2002/claims.ini",
                  "share/lbsim/scenarios/regression/mlb-steps.ini", "share/doc/lbsim/LICENSE",
                  "share/doc/lbsim/CITATION.cff", "share/man/man1/lbsim.1",
                  "share/man/man5/lbsim-scenario.5", "share/bash-completion/completions/lbsim",
                  "bin/lbsim-platgen", "share/doc/lbsim/README.md",
                  "share/doc/lbsim/docs/tutorial.md", "share/doc/lbsim/docs/reference/cli.md",
                  "share/doc/lbsim/docs/reference/lbsim-result.schema.json",
                  "share/doc/lbsim/examples/pairwise/README.md",
                  "share/doc/lbsim/examples/pairwise/pairwise.c"]
        missing = [w for w in wanted if w not in files]
        ok(not missing, "the prefix holds the program, lbsim-platgen, library, headers, "
           "pkg-config file, data, docs, schema and examples", missing)
        doc = os.path.join(moved, "share", "doc", "lbsim")
        for folder in ("docs", "examples"):
            bad = same_tree(os.path.join(SOURCE, folder), os.path.join(doc, folder))
            ok(not bad, f"share/doc/lbsim/{folder} holds every file of {folder}/ as it is", bad)
        with open(os.path.join(doc, "docs", "reference", "lbsim-result.schema.json")) as f:
            schema = json.load(f)
        ok("lbsim-result" in json.dumps(schema.get("properties", {}).get("format", {})),
           "the installed schema is lbsim-result's JSON Schema", str(schema)[:300])

        # no build path: neither the source's nor the build's folder (which
        # may sit inside it) nor the staging one, as such or as roff writes
        # it (a man page's "\-"), in any text file; the binaries keep the
        # source tree as their last place to look for data
        roots = {SOURCE, BUILD, os.path.realpath(SOURCE), os.path.realpath(BUILD), stage}
        needles = roots | {r.replace("-", "\\-") for r in roots}
        texts, leaks = 0, []
        for f in files:
            text = text_of(os.path.join(moved, f))
            if text is None:
                continue
            texts += 1
            leaks += [(f, n) for n in needles if n in text]
        ok(texts > 100 and not leaks,
           f"no installed text file ({texts}) names the source, build or staging folder", leaks)

        work = os.path.join(tmp, "user")
        os.makedirs(work)
        p = run([lbsim, "version"], work)
        data = os.path.join(moved, "share", "lbsim")
        docs = os.path.join(doc, "docs")
        ok(p.returncode == 0 and f"data: {data}\n" in p.stdout,
           "the moved lbsim finds its data in its own prefix", p.stdout + p.stderr)
        ok(f"docs: {docs}\n" in p.stdout, "the moved lbsim says where its docs are",
           p.stdout + p.stderr)
        # every docs/... that a help names, found beside that folder
        helps = run([lbsim, "--help"], work).stdout
        for c in re.findall(r"^  ([a-z][a-z-]*)(?: |$)", helps, flags=re.M):
            helps += run([lbsim, c, "--help"], work).stdout
        named = sorted(set(re.findall(r"docs/[\w./-]*\w", helps)))
        absent = [n for n in named if not os.path.exists(os.path.join(doc, n))]
        ok(len(named) >= 4 and not absent,
           f"every docs/ path the help names is in the prefix ({', '.join(named)})", absent)

        # lbsim-platgen, moved with the prefix: the shipped platforms, and
        # one of another size that lbsim runs on
        platgen = os.path.join(moved, "bin", "lbsim-platgen")
        p = run([platgen, "--help"], work)
        ok(p.returncode == 0 and all(k in p.stdout for k in ("torus X Y Z", "fat-tree N",
                                                             "origin2000 N", "Examples:")),
           "lbsim-platgen --help names its kinds and has examples", p.stdout + p.stderr)
        p = run([platgen, "all", "platforms"], work)
        shipped = os.path.join(data, "platforms")
        bad = same_tree(os.path.join(work, "platforms"), shipped) if p.returncode == 0 else ["?"]
        xml = [f for f in os.listdir(shipped) if f.endswith(".xml")]
        ok(not bad and len(os.listdir(os.path.join(work, "platforms"))) == len(xml),
           f"the installed lbsim-platgen writes the installed platforms ({len(xml)})",
           f"{bad}{p.stderr}")
        p = run([platgen, "fat-tree", "16"], work)
        with open(os.path.join(work, "fat-tree-16.xml"), "w") as f:
            f.write(p.stdout)
        p = run([lbsim, "run", "-q", "mlb-teach-16", "--platform", "fat-tree-16.xml", "--json",
                 "fat-tree.json"], work)
        ok(p.returncode == 0 and "fat-tree-16.xml" in open(os.path.join(work, "fat-tree.json"))
           .read(), "lbsim runs a shipped scenario on a fat tree that lbsim-platgen made",
           p.stderr)
        p = run([lbsim, "run", "-q", "mlb-teach-16", "--json", "teach.json"], work)
        ok(p.returncode == 0 and os.path.exists(os.path.join(work, "teach.json")),
           "a shipped scenario runs by its short name from the moved prefix", p.stderr)
        p = run([lbsim, "check", "-q", "regression/dls-steps", "--ranks", "4", "--platform",
                 "hypercube-4.xml"], work)
        listed = run([lbsim, "list", "--scenarios"], work)
        ok(p.returncode == 0 and "\n  regression/dls-steps  " in listed.stdout,
           "the regression suite is installed, listed and held by name", p.stdout + p.stderr)

        # the installed example, built against the moved prefix only
        example = os.path.join(work, "pairwise")
        shutil.copytree(os.path.join(doc, "examples", "pairwise"), example)
        env = clean_env(PKG_CONFIG_PATH=os.path.join(moved, LIBDIR, "pkgconfig"))
        start = time.monotonic()
        p = run(["meson", "setup", "build", "-Dwerror=true"], example, env)
        if p.returncode == 0:
            p = run(["ninja", "-C", "build"], example, env)
        took = time.monotonic() - start
        plugin = os.path.join(example, "build", "libpairwise.so")
        ok(p.returncode == 0 and os.path.exists(plugin),
           f"the example plugin builds against the prefix with pkg-config ({took:.1f} s)",
           p.stdout + p.stderr)
        p = run([lbsim, "list", "--plugin", plugin, "pairwise"], example)
        ok(p.returncode == 0 and p.stdout.startswith("pairwise: random pairwise averaging")
           and f"  from: {plugin}\n" in p.stdout, "lbsim list shows the plugin's balancer and "
           "its file", p.stdout + p.stderr)
        print("# " + "\n# ".join(p.stdout.splitlines()[:3]))
        # [scenario] plugins, [expect] on the plugin's results
        p = run([lbsim, "check", "compare.ini"], example)
        ok(p.returncode == 0 and "3 passed, 0 failed" in p.stdout,
           "[scenario] plugins: compare.ini's [expect] lines hold on pairwise's results",
           p.stdout + p.stderr)
        solo = os.path.join(example, "solo.ini")
        with open(solo, "w") as f:
            f.write("[scenario]\nplatform = hypercube-16.xml\nranks = 16\nsteps = 2\n"
                    "[workload]\nmodel = field2d\nsize = 64x64\npattern = hotspots\n"
                    "[balancers]\nrun = none, pairwise\n"
                    "[expect]\npairwise.imbalance_after < none.imbalance_after\n")
        p = run([lbsim, "check", "--plugin", plugin, "solo.ini"], example)
        ok(p.returncode == 0 and "1 passed, 0 failed" in p.stdout, "--plugin: check",
           p.stdout + p.stderr)
        p = run([lbsim, "check", "solo.ini"], example,
                clean_env(LBSIM_PLUGIN_PATH=os.path.join(example, "build")))
        ok(p.returncode == 0 and "1 passed, 0 failed" in p.stdout,
           "LBSIM_PLUGIN_PATH (a folder): check", p.stdout + p.stderr)
        # the README's case: two elements a rank, so half a difference moves,
        # and the plugin's rounds narrated
        p = run([lbsim, "explain", "pairwise", "--plugin", plugin, "--loads", "4,4,0,0,0,0,2,2",
                 "--ranks", "4"], example)
        ok(p.returncode == 0 and "Final loads: 4 4 2 2" in p.stdout
           and "round 0: paired with rank" in p.stdout and "round 0: sends rank" in p.stdout
           and "nothing moves" not in p.stdout,
           "explain runs the plugin's balancer and narrates its rounds", p.stdout + p.stderr)
        # a sweep's jobs carry the plugin: run without --plugin, merged, reported
        p = run([lbsim, "sweep", "--plugin", plugin, "solo.ini", "--vary", "seed=1,2",
                 "--emit-jobs", "jobs.txt", "-o", "sweep.json", "-q"], example)
        jobs = open(os.path.join(example, "jobs.txt")).read().splitlines() if p.returncode == 0 \
            else []
        ok(len(jobs) == 4, "sweep --emit-jobs writes a job per run", p.stdout + p.stderr)
        results = [run(j.split(" "), example) for j in jobs]
        ok(all(r.returncode == 0 for r in results), "run-job runs each job, plugin and all, "
           "without --plugin", "".join(r.stderr for r in results))
        p = run([lbsim, "merge", "sweep.d", "-o", "merged.json"], example)
        ok(p.returncode == 0, "merge reads the sweep, its plugin named in its state", p.stderr)
        p = run([lbsim, "run", "-q", "solo.ini", "--plugin", plugin, "--json", "solo.json"],
                example)
        p2 = run([lbsim, "report", "solo.json", "page"], example) if p.returncode == 0 else p
        ok(p2.returncode == 0 and os.path.exists(os.path.join(example, "page", "index.html")),
           "report reads a plugin's results, loading the plugin the JSON names", p2.stderr)

        # the installed man page and completion, a plugin's balancer completed
        man = os.path.join(moved, "share", "man", "man1", "lbsim.1")
        p = run(["man", "-l", man], work) if shutil.which("man") else \
            run(["groff", "-man", "-Tutf8", man], work)
        ok(p.returncode == 0 and "lbsim run" in p.stdout, "the installed lbsim(1) reads with man -l",
           p.stderr)
        completion = os.path.join(moved, "share", "bash-completion", "completions", "lbsim")
        script = (f"source '{completion}'; COMP_WORDS=(lbsim run -b pa); COMP_CWORD=3; _lbsim; "
                  "printf '%s\\n' \"${COMPREPLY[@]}\"")
        p = run(["bash", "-c", script], work,
                clean_env(PATH=os.path.join(moved, "bin") + os.pathsep + os.environ["PATH"],
                          LBSIM_PLUGIN_PATH=plugin))
        ok(p.stdout.split() == ["pairwise"], "the installed completion knows a plugin's balancer",
           p.stdout + p.stderr)

        # a work model as a plugin, from the installed headers alone
        cflags = run(["pkg-config", "--cflags", "lbsim"], work, env).stdout.split()
        ramp, cp = cc_plugin(tmp, "ramp", open(os.path.join(SOURCE, "tests", "install",
                                                           "ramp-model.c")).read(),
                             ["-Wall", "-Wextra", "-Werror"] + cflags)
        ok(cp.returncode == 0, "a model plugin builds against the prefix's headers alone",
           cp.stderr)
        with open(os.path.join(example, "ramp.ini"), "w") as f:
            f.write("[scenario]\nplatform = hypercube-16.xml\nranks = 16\nsteps = 2\n"
                    "[workload]\nmodel = ramp\nsize = 4096\nslope = 100\n"
                    "[balancers]\nrun = none, mlb, pairwise\n"
                    "[expect]\nmlb.imbalance_after < none.imbalance_after\n"
                    "mlb.imbalance_after <= 1.01\n"
                    "pairwise.imbalance_after < none.imbalance_after\n")
        p = run([lbsim, "check", "--plugin", ramp, "--plugin", plugin, "ramp.ini"], example)
        ok(p.returncode == 0 and "3 passed, 0 failed" in p.stdout,
           "a plugin's model runs mlb and a plugin's balancer, [expect] holding",
           p.stdout + p.stderr)
        p = run([lbsim, "list", "--plugin", ramp], example)
        ok(f"[workload] keys with model = ramp (" in p.stdout and f"from {ramp})" in p.stdout,
           "lbsim list shows the plugin's model and its file", p.stdout[-500:])

        # refusals: exit 2, the file and the reason, nothing on stdout
        bodies = {
            "old-abi": ("#include <lbsim/plugin.h>\n"
                        "G_MODULE_EXPORT const guint lb_plugin_abi_version = LB_ABI_VERSION + 1;\n"
                        "G_MODULE_EXPORT gboolean lb_plugin_init(LbPlugin *p, GError **e);\n"
                        "G_MODULE_EXPORT gboolean lb_plugin_init(LbPlugin *p, GError **e)"
                        " { return TRUE; }\n", "built for lbsim's plugin ABI version"),
            "no-init": ("#include <lbsim/plugin.h>\n"
                        "G_MODULE_EXPORT const guint lb_plugin_abi_version = LB_ABI_VERSION;\n",
                        "no entry point lb_plugin_init"),
            "not-lbsim": ("int not_a_plugin(void);\nint not_a_plugin(void) { return 1; }\n",
                          "not an lbsim plugin"),
            "taken": ("#include <lbsim/plugin.h>\n"
                      "static const LbBalancer again = {.name = \"mlb\"};\n"
                      "LB_PLUGIN(plugin, error) { return lb_plugin_add_balancer(plugin, &again,"
                      " error); }\n", "a balancer named 'mlb' exists already (built in)"),
        }
        for name, (body, why) in bodies.items():
            so, cp = cc_plugin(tmp, name, body, cflags)
            if cp.returncode != 0:
                ok(False, f"refused plugin {name}: builds", cp.stderr)
                continue
            p = run([lbsim, "run", "--plugin", so, "solo.ini"], example)
            ok(p.returncode == 2 and p.stdout == "" and so in p.stderr and why in p.stderr,
               f"a plugin refused ({name}): exit 2 naming the file and the reason",
               f"{p.returncode}\n{p.stdout}{p.stderr}")
        p = run([lbsim, "run", "--plugin", "nowhere.so", "solo.ini"], example)
        ok(p.returncode == 2 and "plugin nowhere.so: no such file" in p.stderr,
           "a missing plugin: exit 2", p.stderr)
        with open(os.path.join(example, "bad.ini"), "w") as f:
            f.write(open(solo).read().replace("[scenario]\n",
                                              "[scenario]\nplugins = build/missing.so\n"))
        p = run([lbsim, "run", "bad.ini"], example)
        ok(p.returncode == 2 and "bad.ini: [scenario] plugins:" in p.stderr
           and "no such file" in p.stderr, "[scenario] plugins naming a missing file: exit 2",
           p.stderr)
        p = run([lbsim, "run", "solo.ini"], example,
                clean_env(LBSIM_PLUGIN_PATH=os.path.join(tmp, "libno-init.so")))
        ok(p.returncode == 2 and "LBSIM_PLUGIN_PATH: plugin" in p.stderr,
           "LBSIM_PLUGIN_PATH naming a bad plugin: exit 2", p.stderr)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    return done()


sys.exit(main())
