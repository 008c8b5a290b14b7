#!/usr/bin/env python3
"""Writes lbsim(1) and lbsim-scenario(5) from lbsim itself: the commands'
help (lbsim --help, lbsim COMMAND --help, the text docs/reference/cli.md
holds) and the key tables (lbsim list --markdown, those of
docs/reference/scenario-files.md), so the pages cannot drift from them.
Usage: make-man.py LBSIM VERSION OUT1 OUT5"""
import re
import subprocess
import sys

LBSIM, VERSION, OUT1, OUT5 = sys.argv[1:5]
DATE = "2026"


def lbsim(*args):
    p = subprocess.run([LBSIM] + list(args), capture_output=True, text=True)
    return p.stdout


def esc(text):
    """Text as roff: backslashes and hyphens escaped, no line starting with
    a control character."""
    text = text.replace("\\", "\\e").replace("-", "\\-").replace("\u2026", "...")
    text = "".join(c if ord(c) < 128 else f"\\[u{ord(c):04X}]" for c in text)
    return re.sub(r"^([.'])", r"\\&\1", text, flags=re.M)


def verbatim(text):
    return ".nf\n.RS 4\n" + esc(text.rstrip("\n")) + "\n.RE\n.fi\n"


def commands():
    out = lbsim("--help")
    names = re.findall(r"^  ([a-z][a-z-]*)(?: |$)", out, flags=re.M)
    return out, names


def page1():
    usage, names = commands()
    parts = [f'.TH LBSIM 1 "{DATE}" "lbsim {VERSION}" "User Commands"\n',
             ".SH NAME\nlbsim \\- simulate parallel load balancers on modeled machines\n",
             ".SH SYNOPSIS\n.B lbsim\n.I COMMAND\n[\\fIOPTION\\fR...] "
             "[\\fIARGUMENT\\fR...]\n",
             ".SH DESCRIPTION\n",
             "lbsim runs load balancers as message-passing code on the virtual processors "
             "of a SimGrid platform and reports, side by side, how well and at what cost "
             "each one balanced: imbalance, schedule steps, messages, bytes moved, "
             "simulated time. A scenario file (see \\fBlbsim-scenario\\fR(5)) names the "
             "platform, the work model and the balancers.\n",
             ".PP\n", verbatim(usage)]
    parts.append(".SH COMMANDS\n")
    for name in names:
        if name == "help":
            text = "Usage: lbsim help [COMMAND]\n\nThis text, or a command's options.\n"
        elif name == "version":
            text = lbsim("help", "version") or "Usage: lbsim version\n"
        else:
            text = lbsim(name, "--help")
        parts.append(f".SS lbsim {name}\n")
        parts.append(verbatim(text))
    parts.append(""".SH ENVIRONMENT
.TP
.B LBSIM_PLUGIN_PATH
A colon\\-separated list of plugins (shared objects) and of folders whose
*.so files are loaded, before any \\-\\-plugin.
.TP
.B LBSIM_DATA_DIR
The folder of the shared platforms/ and scenarios/ (default: share/lbsim of
the prefix lbsim's library is installed in, then the source tree it was
built from).
.TP
.B LBSIM_PLATFORM_DIR\\fR, \\fBLBSIM_PAPERS_DIR
The platforms' folder, and the papers' experiments for lbsim reproduce.
.SH EXIT STATUS
0 done; 1 a run failed, or an output could not be written; 2 bad input
(before anything runs); 3 a run broke an invariant (a work unit lost or
duplicated).
.SH FILES
.TP
.I DATADIR/lbsim/platforms/
SimGrid platforms: hypercubes, a fat tree, Cray T3E\\-like tori, clusters.
.TP
.I DATADIR/lbsim/scenarios/
Shipped scenarios, which commands take by their name (mlb\\-teach\\-16), and
scenarios/papers/, the papers' experiments.
.SH SEE ALSO
\\fBlbsim\\-scenario\\fR(5); docs/ of lbsim's sources: the tutorial, the
reference of every command, file and JSON member, the families' pages.
""")
    return "".join(parts)


def tables(markdown):
    """(title, rows) for each table of lbsim list --markdown; rows of
    (key, values, default, meaning)."""
    out = []
    title = None
    rows = None
    for line in markdown.splitlines():
        if line.startswith("|"):
            cells = [c.strip() for c in re.split(r"(?<!\\)\|", line.strip())[1:-1]]
            if cells and cells[0] in ("key", "metric") or set(cells[0]) <= set("-"):
                continue
            rows.append([c.replace("\\|", "|").strip("`") for c in cells])
        elif line.strip() == "No parameters.":
            continue
        elif line.strip():
            if title is not None:
                out.append((title, rows))
            title, rows = line.strip(), []
    if title is not None:
        out.append((title, rows))
    return out


def page5():
    parts = [f'.TH LBSIM\\-SCENARIO 5 "{DATE}" "lbsim {VERSION}" "File Formats"\n',
             ".SH NAME\nlbsim\\-scenario \\- lbsim's scenario files\n",
             ".SH DESCRIPTION\n",
             "A scenario is an INI file: \\fB[scenario]\\fR (the platform, the ranks, the "
             "seed, the adaptation steps), \\fB[workload]\\fR (the work model and its keys), "
             "\\fB[balancers]\\fR (one key, \\fBrun\\fR, the balancers to run, "
             "NAME or NAME:VARIANT), one group per balancer with its parameters, and "
             "\\fB[expect]\\fR, lines BALANCER.METRIC OP NUMBER that \\fBlbsim check\\fR "
             "holds. Every group and key is checked; an error names the file, the group "
             "and the key. Any key can be overridden with \\-\\-set GROUP.KEY=VALUE.\n",
             ".PP\n", verbatim("[scenario]\nplatform = hypercube-16.xml\nranks = 16\nsteps = 1\n\n"
                              "[workload]\nmodel = array1d\nsize = 64\npattern = hotspots\n\n"
                              "[balancers]\nrun = none, mlb\n\n"
                              "[expect]\nmlb.imbalance_after < none.imbalance_after\n"),
             ".SH KEYS\n"]
    for title, rows in tables(lbsim("list", "--markdown")):
        plain = title.replace("`", "")
        if plain.startswith("Metrics of"):
            parts.append(f".SS {esc(plain.rstrip(':'))}\n")
            for metric, unit, over, meaning in rows:
                parts.append(f".TP\n.B {esc(metric)}\n{esc(unit)}, {esc(over)} over steps: "
                             f"{esc(meaning)}\n")
            continue
        parts.append(f".SS {esc(plain)}\n")
        if not rows:
            parts.append("No parameters.\n")
            continue
        for key, values, default, meaning in rows:
            parts.append(f".TP\n.B {esc(key)}\n{esc(values)}; default {esc(default)}.\n"
                         f"{esc(meaning)}\n")
    parts.append(".SH SEE ALSO\n\\fBlbsim\\fR(1); docs/reference/scenario-files.md of lbsim's "
                 "sources.\n")
    return "".join(parts)


with open(OUT1, "w") as f:
    f.write(page1())
with open(OUT5, "w") as f:
    f.write(page5())
