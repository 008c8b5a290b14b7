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
# words, options and keys whole and spaced as lbsim prints them
PLAIN = ".nh\n.ad l\n"


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


def definitions(lines):
    """A block of GOption's options or of lbsim --help's commands (headers
    such as "Application Options:", entries "  TERM   DESCRIPTION", the
    descriptions in one column, continued below it) as .TP entries, so that
    roff fills each description within the page's width."""
    starts = [m.start(1) for m in (re.match(r"^  \S.*? {2,}(\S)", ln) for ln in lines) if m]
    col = max(set(starts), key=starts.count)
    parts = []
    for i, line in enumerate(lines):
        below = lines[i + 1] if i + 1 < len(lines) else ""
        if not line.startswith(" "):
            parts.append(f".PP\n{esc(line)}\n")
        elif not line[:col].strip():
            parts.append(esc(line.strip()) + "\n")
        else:
            term, desc = line[:col].strip(), line[col:].strip()
            if below.startswith(" ") and not below[:col].strip():  # a term past the column
                term, desc = line.strip(), ""
            parts.append(f".TP\n\\fB{esc(term)}\\fR\n" + (esc(desc) + "\n" if desc else ""))
    return "".join(parts)


def help_roff(text):
    """A help text as roff: the usage line as it is, prose filled (an "Exit
    status:" on a line of its own), options and commands as .TP entries,
    indented examples verbatim; no line of the page wider than it."""
    parts = []
    for block in re.split(r"\n\s*\n", text.strip("\n")):
        lines = block.split("\n")
        if lines[0].startswith("Usage:"):
            usage = " ".join(ln.strip() for ln in lines)
            parts.append(f".PP\n.nf\n{esc(usage)}\n.fi\n")
        elif any(re.match(r"^  \S.*? {2,}\S", ln) for ln in lines) and all(
                ln.startswith("  ") or ln.endswith(":") for ln in lines):
            parts.append(definitions(lines))
        elif all(ln.startswith(" ") for ln in lines):
            parts.append(".PP\n" + verbatim("\n".join(ln[2:] for ln in lines)))
        else:
            parts.append(".PP\n")
            for ln in lines:
                if ln.startswith("Exit status:"):
                    parts.append(".br\n")
                parts.append(esc(ln.strip()) + "\n")
    return "".join(parts)


def examples(cases):
    """EXAMPLES: what each does, then its commands, a shell script
    (tests/man/check-man.py runs them, in order, in an empty folder)."""
    parts = [".SH EXAMPLES\n"]
    for what, commands in cases:
        parts.append(f".PP\n{esc(what)}\n" + verbatim("\n".join(commands)))
    return "".join(parts)


EXAMPLES1 = [
    ("A shipped scenario by its name: its balancers side by side, then its "
     "[expect] lines held, then a report page of it in report/:",
     ["lbsim run mlb-teach-16", "lbsim check mlb-teach-16",
      "lbsim run mlb-teach-16 --report report"]),
    ("The shipped scenarios, and one balancer's parameters:",
     ["lbsim list --scenarios", "lbsim list mlb"]),
    ("MLB narrated step by step on eight ranks, one load each:",
     ["lbsim explain mlb --loads 5,1,7,3,0,8,2,6"]),
    ("A sweep over the rank count, each point on the hypercube of its size, "
     "and its report page:",
     ["lbsim sweep mlb-teach-16 --vary ranks=4,8,16 \\",
      "    --platform 'hypercube-{ranks}.xml' -o sweep.json",
      "lbsim report sweep.json sweep-report"]),
    ("A platform of another size made by lbsim-platgen, and a shipped "
     "scenario run on it:",
     ["lbsim-platgen fat-tree 64 > fat-tree-64.xml",
      "lbsim run field2d-hypercube-64 --platform fat-tree-64.xml"]),
    ("The papers whose experiments lbsim reproduces:", ["lbsim reproduce"]),
]

EXAMPLES5 = [
    ("A shipped scenario copied to change it (its platform is found in "
     "platforms/ when it is not beside the copy), then checked:",
     ["data=$(lbsim version | sed -n 's/^data: //p')",
      "cp \"$data/scenarios/mlb-teach-16.ini\" teach.ini",
      "lbsim check teach.ini"]),
    ("Keys overridden for one run, without editing the file:",
     ["lbsim run teach.ini --set workload.pattern=hotspots \\",
      "    --set workload.size=256"]),
    ("Every GROUP.KEY that --set takes, and one balancer's keys:",
     ["lbsim list --keys", "lbsim list mlb"]),
]


def commands():
    out = lbsim("--help")
    names = re.findall(r"^  ([a-z][a-z-]*)(?: |$)", out, flags=re.M)
    return out, names


def page1():
    usage, names = commands()
    parts = [f'.TH LBSIM 1 "{DATE}" "lbsim {VERSION}" "User Commands"\n', PLAIN,
             ".SH NAME\nlbsim \\- simulate parallel load balancers on modeled machines\n",
             ".SH SYNOPSIS\n.B lbsim\n.I COMMAND\n[\\fIOPTION\\fR...] "
             "[\\fIARGUMENT\\fR...]\n",
             ".SH DESCRIPTION\n",
             "lbsim runs load balancers as message-passing code on the virtual processors "
             "of a SimGrid platform and reports, side by side, how well and at what cost "
             "each one balanced: imbalance, schedule steps, messages, bytes moved, "
             "simulated time. A scenario file (see \\fBlbsim-scenario\\fR(5)) names the "
             "platform, the work model and the balancers.\n",
             help_roff(usage)]
    parts.append(".SH COMMANDS\n")
    for name in names:
        if name == "help":
            text = "Usage: lbsim help [COMMAND]\n\nThis text, or a command's options.\n"
        else:
            text = lbsim(name, "--help")
        parts.append(f".SS lbsim {name}\n")
        parts.append(help_roff(text))
    parts.append(examples(EXAMPLES1))
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
SimGrid platforms: hypercubes, a fat tree, Cray T3E\\-like tori, clusters;
\\fBlbsim\\-platgen\\fR (in BINDIR) writes these and others of any size.
.TP
.I DATADIR/lbsim/scenarios/
Shipped scenarios, which commands take by their name (mlb\\-teach\\-16), and
scenarios/papers/, the papers' experiments.
.TP
.I DATADIR/doc/lbsim/docs/
The documentation, which \\fBlbsim version\\fR names and the help's
"see docs/..." means: the tutorial, reference/ (every command, file and JSON
member; the JSON Schema of lbsim's results,
reference/lbsim\\-result.schema.json), the families' pages, the developers'.
.TP
.I DATADIR/doc/lbsim/examples/
pairwise/, a balancer of your own as a plugin, built against the installed
headers (its README.md walks through it).
.SH SEE ALSO
\\fBlbsim\\-scenario\\fR(5), \\fBlbsim\\-platgen \\-\\-help\\fR; DATADIR/doc/lbsim/README.md and
docs/tutorial.md beside it.
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
    parts = [f'.TH LBSIM\\-SCENARIO 5 "{DATE}" "lbsim {VERSION}" "File Formats"\n', PLAIN,
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
    parts.append(examples(EXAMPLES5))
    parts.append(".SH SEE ALSO\n\\fBlbsim\\fR(1); "
                 "DATADIR/doc/lbsim/docs/reference/scenario\\-files.md "
                 "(\\fBlbsim version\\fR names the docs' folder).\n")
    return "".join(parts)


with open(OUT1, "w") as f:
    f.write(page1())
with open(OUT5, "w") as f:
    f.write(page5())
