#!/usr/bin/env python3
"""lbsim(1) and lbsim-scenario(5) as built: readable with man -l, without
a warning of groff's, a section for every command lbsim --help lists with
that command's help in it, every key and balancer lbsim list knows; and the
bash completion: commands, options, balancer names, --set keys and papers
as lbsim gives them. TAP on stdout.
Usage: check-man.py LBSIM MAN1 MAN5 COMPLETION"""
import os
import re
import shutil
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from tap import done, ok  # noqa: E402

LBSIM, MAN1, MAN5, COMPLETION = sys.argv[1:5]


def out(*args, env=None):
    return subprocess.run(list(args), capture_output=True, text=True, env=env)


def rendered(page):
    env = dict(os.environ, MANWIDTH="100", MAN_KEEP_FORMATTING="0")
    if shutil.which("man"):
        p = out("man", "-l", page, env=env)
    else:  # groff alone renders the same text
        p = out("groff", "-man", "-Tutf8", page, env=env)
    return p.returncode, re.sub(r".\x08", "", p.stdout), p.stderr


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
    # each command's help, word for word (the first option line of each)
    differ = []
    for c in commands:
        if c in ("help", "version"):
            continue
        first = [ln.strip() for ln in out(LBSIM, c, "--help").stdout.splitlines()
                 if ln.strip().startswith("-")][:1]
        if first and first[0].replace("\u2026", "...") not in re.sub(r" +", " ", text1):
            # rendering may justify spaces: compare with runs of spaces made one
            if re.sub(r" +", " ", first[0]) not in re.sub(r" +", " ", text1):
                differ.append((c, first[0]))
    ok(not differ, "each command's options are in lbsim(1) as --help gives them", differ)
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
    return done()


sys.exit(main())
