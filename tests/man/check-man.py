#!/usr/bin/env python3
"""lbsim(1) and lbsim-scenario(5) as built: readable with man -l, without
a warning of groff's, no line wider than 80 columns, no path of the source
or build tree, a section for every command lbsim --help lists with every
option of that command's help in it, every key and balancer lbsim list
knows, and EXAMPLES whose commands run (each page's in an empty folder, the
built lbsim and lbsim-platgen first on PATH); and the bash completion:
commands, options, balancer names, --set keys and papers as lbsim gives
them. TAP on stdout.
Usage: check-man.py LBSIM MAN1 MAN5 COMPLETION PLATGEN SOURCE_ROOT BUILD_ROOT"""
import os
import re
import shutil
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from tap import done, ok  # noqa: E402

LBSIM, MAN1, MAN5, COMPLETION, PLATGEN, SOURCE, BUILD = sys.argv[1:8]
COMPLETION = os.path.abspath(COMPLETION)


def out(*args, env=None, cwd=None):
    return subprocess.run(list(args), capture_output=True, text=True, env=env, cwd=cwd)


def rendered(page, width=100):
    env = dict(os.environ, MANWIDTH=str(width), MAN_KEEP_FORMATTING="0")
    if shutil.which("man"):
        p = out("man", "-l", page, env=env)
    else:  # groff alone renders the same text
        p = out("groff", "-man", "-Tutf8", page, env=env)
    return p.returncode, re.sub(r".\x08", "", p.stdout), p.stderr


def section(text, heading, indent=""):
    """The lines under a heading of a rendered page, to the next heading of
    the same level or above."""
    m = re.search(rf"^{indent}{re.escape(heading)}\n(.*?)(?=^ {{0,{len(indent)}}}\S|\Z)", text,
                  flags=re.M | re.S)
    return m.group(1) if m else ""


def examples(text):
    """The EXAMPLES of a rendered page: for each, its commands (the lines
    indented deeper than its text) as one shell script."""
    scripts = []
    for block in re.split(r"\n\s*\n", section(text, "EXAMPLES")):
        commands = [ln[11:] for ln in block.splitlines() if ln.startswith(" " * 11)]
        if commands:
            scripts.append("\n".join(commands))
    return scripts


def run_examples(page, text):
    scripts = examples(text)
    ok(len(scripts) >= 3, f"{page} has EXAMPLES ({len(scripts)})", text[-2000:])
    path = os.pathsep.join([os.path.dirname(os.path.abspath(LBSIM)),
                            os.path.dirname(os.path.abspath(PLATGEN)), os.environ["PATH"]])
    env = {k: v for k, v in os.environ.items() if not k.startswith("LBSIM")}
    env["PATH"] = path
    with tempfile.TemporaryDirectory(prefix="lbsim-man-") as work:
        for script in scripts:
            p = out("bash", "-e", "-c", script, env=env, cwd=work)
            ok(p.returncode == 0, f"{page} EXAMPLES: {script.splitlines()[0]}",
               f"exit {p.returncode}\n{p.stderr[-2000:]}")


def complete(*words):
    """COMPREPLY of the completion for the command line `words` (the last
    being the word under the cursor), with the built lbsim first on PATH."""
    path = os.path.dirname(os.path.abspath(LBSIM)) + os.pathsep + os.environ.get("PATH", "")
    line = " ".join(f"'{w}'" for w in words)
    script = (f"source '{COMPLETION}'; COMP_WORDS=(lbsim {line}); "
              f"COMP_CWORD={len(words)}; _lbsim; printf '%s\\n' \"${{COMPREPLY[@]}}\"")
    p = out("bash", "-c", script, env=dict(os.environ, PATH=path))
    return [w for w in p.stdout.splitlines() if w], p.stderr


def main():
    help_text = out(LBSIM, "--help").stdout
    commands = re.findall(r"^  ([a-z][a-z-]*)(?: |$)", help_text, flags=re.M)
    ok(len(commands) >= 10, f"lbsim --help lists its commands ({len(commands)})", help_text)

    code, text1, err = rendered(MAN1)
    ok(code == 0 and "LBSIM(1)" in text1, "lbsim(1) renders with man -l", err)
    warn = out("groff", "-man", "-ww", "-z", MAN1, MAN5)
    ok(warn.returncode == 0 and warn.stderr == "", "groff has no warning for either page",
       warn.stderr)
    missing = [c for c in commands if not re.search(rf"^ {{3}}lbsim {c}$", text1, flags=re.M)]
    ok(not missing, "lbsim(1) has a section for every command", missing)
    # each command's options, word for word in its section (the page fills
    # a description over lines: compare with any run of white space as one)
    differ = []
    options = 0
    for c in commands:
        if c == "help":
            continue
        words = re.sub(r"\s+", " ", section(text1, f"lbsim {c}", "   "))
        for ln in out(LBSIM, c, "--help").stdout.splitlines():
            m = re.match(r"^\s+(-\S.*?)\s{2,}(\S.*)$", ln)
            if not m:
                continue
            options += 1
            want = re.sub(r"\s+", " ", f"{m.group(1)} {m.group(2)}").replace("\u2026", "...")
            if want not in words:
                differ.append((c, want))
    ok(options >= 50 and not differ,
       f"each command's options ({options}) are in its section of lbsim(1) as --help gives them",
       differ)
    version = section(text1, "lbsim version", "   ")
    ok("Usage: lbsim version" in version and "data:" not in version,
       "lbsim(1)'s version section is its help, not the version of the build", version)
    for word in ("LBSIM_PLUGIN_PATH", "LBSIM_DATA_DIR", "EXIT STATUS", "lbsim-scenario(5)"):
        ok(word in text1, f"lbsim(1) has {word}")

    code, text5, err = rendered(MAN5)
    ok(code == 0 and "LBSIM-SCENARIO(5)" in text5, "lbsim-scenario(5) renders with man -l", err)
    keys = out(LBSIM, "list", "--keys").stdout.split()
    absent = [k for k in keys
              if not re.search(rf"^ {{7}}{re.escape(k.split('.', 1)[1])}(\s|$)", text5, flags=re.M)]
    ok(keys and not absent, f"lbsim-scenario(5) has every key --set takes ({len(keys)})", absent)
    names = [n for n in out(LBSIM, "list", "--names").stdout.split() if ":" not in n]
    nosec = [n for n in names if not re.search(rf"^   \[{re.escape(n)}\]", text5, flags=re.M)]
    ok(names and not nosec, "lbsim-scenario(5) has a section for every balancer", nosec)

    # the installed pages read at 80 columns, and name no folder of the build
    for page in (MAN1, MAN5):
        code, text, err = rendered(page, 80)
        wide = [ln for ln in text.splitlines() if len(ln) > 80]
        ok(code == 0 and text and not wide, f"{os.path.basename(page)}: no line wider than 80 "
           "at MANWIDTH=80", wide[:5])
        source = open(page, encoding="utf-8").read().replace("\\-", "-")
        leaks = [d for d in {SOURCE, BUILD, os.path.realpath(SOURCE), os.path.realpath(BUILD)}
                 if d in source or d in text]
        ok(not leaks, f"{os.path.basename(page)} names no source or build folder", leaks)
        run_examples(os.path.basename(page), rendered(page)[1])

    got, err = complete("re")
    ok(set(got) == {"report", "reproduce"}, "completion: commands", f"{got} {err}")
    got, err = complete("run", "--b")
    ok(got == ["--balancer"], "completion: a command's options", f"{got} {err}")
    for command in ("run", "check", "report", "reproduce"):
        got, err = complete(command, "--fig")
        ok(sorted(got) == ["--figure-font", "--figure-size"],
           f"completion: {command}'s figure options", f"{got} {err}")
    got, err = complete("run", "-b", "mlb")
    ok(set(got) == {"mlb", "mlb-nd"}, "completion: balancer names", f"{got} {err}")
    got, err = complete("run", "-b", "dls:a")
    ok(set(got) == {"dls:af", "dls:awf"}, "completion: variant labels", f"{got} {err}")
    got, err = complete("run", "--set", "workload.tolerance-")
    ok(got == ["workload.tolerance-decay="], "completion: --set keys", f"{got} {err}")
    got, err = complete("reproduce", "ba")
    ok(got == ["baiardi2001"], "completion: papers", f"{got} {err}")
    got, err = complete("help", "sw")
    ok(got == ["sweep"], "completion: help's commands", f"{got} {err}")
    got, err = complete("run", "mlb-te")
    ok("mlb-teach-16" in got, "completion: shipped scenarios by name after run", f"{got} {err}")
    got, err = complete("check", "papers/lbd/ax")
    ok(sorted(got) == ["papers/lbd/axes-hotspots", "papers/lbd/axes-shock"],
       "completion: the papers' scenarios by name", f"{got} {err}")
    for option, word, want in (("--picture-format", "p", ["pdf", "png"]),
                               ("--chart-scale", "l", ["linear", "log"]),
                               ("--figure-size", "3", ["3.4in"]),
                               ("--figure-font", "", ["10", "7", "8", "9"]),
                               ("--scheduler", "s", ["slurm"])):
        got, err = complete("run" if option != "--scheduler" else "sweep", option, word)
        ok(sorted(got) == want, f"completion: {option}'s values", f"{got} {err}")
    got, err = complete("sweep", "x.ini", "--vary", "mlb.des")
    ok(got == ["mlb.desired="], "completion: --vary's GROUP.KEY", f"{got} {err}")
    got, err = complete("sweep", "x.ini", "--vary", "ran")
    ok(got == ["ranks="], "completion: --vary's axes", f"{got} {err}")
    got, err = complete("sweep", "x.ini", "--vary", "balancer=dls:a")
    ok(sorted(got) == ["balancer=dls:af", "balancer=dls:awf"], "completion: --vary balancer=",
       f"{got} {err}")
    got, err = complete("chunks", "f")
    ok(sorted(got) == ["fac", "frac", "fsc"], "completion: chunks's techniques", f"{got} {err}")
    got, err = complete("curve", "")
    ok(sorted(got) == ["hilbert", "morton"], "completion: curve's curves", f"{got} {err}")
    # --trace is gone from lbsim: the completion names it nowhere (an option
    # arm of its own would still complete a file after it)
    script = open(COMPLETION).read()
    ok("--trace" not in script, "completion: no --trace (gone)",
       [ln for ln in script.splitlines() if "--trace" in ln])
    # files of the kind each option takes, in a folder of each kind
    with tempfile.TemporaryDirectory() as tmp:
        for name in ("a.json", "a.csv", "a.ini", "a.paje"):
            open(os.path.join(tmp, name), "w").close()
        os.mkdir(os.path.join(tmp, "sub"))
        for option, want in (("--long-csv", ["a.csv", "sub"]), ("--json", ["a.json", "sub"]),
                             ("--report", ["sub"]), ("--paje", ["a.paje", "sub"])):
            cwd = os.getcwd()
            os.chdir(tmp)
            try:
                got, err = complete("run", option, "")
            finally:
                os.chdir(cwd)
            ok(sorted(got) == want, f"completion: {option} offers {want}", f"{got} {err}")
    return done()


sys.exit(main())
