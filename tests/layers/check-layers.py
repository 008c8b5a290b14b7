#!/usr/bin/env python3
"""The architecture as a test: each folder of src/ includes only the
folders below it (the rules its README states), and no two source files
call each other in a circle (from the symbols each object file of the
library defines and uses)."""
import os
import re
import subprocess
import sys

# folder -> the folders it may include (include/lbsim and its own always)
ALLOWED = {
    'io': set(),
    'params': set(),
    'geometry': set(),
    'metrics': set(),
    'core': {'io', 'metrics'},
    'workloads': {'io', 'geometry'},
    'balancers': {'geometry', 'workloads', 'io'},
    'report': {'io', 'metrics', 'geometry'},
    'scenario': {'io', 'workloads', 'metrics'},
    # the process pool: forks a simulation per job, the results' transport
    'runner': {'io', 'metrics', 'core'},
    # sweeps as a library: may use report/ and runner/, never cli/
    'sweep': {'io', 'metrics', 'report', 'runner'},
    # papers as data plus checks: sweeps run the claims' runs, a check may
    # compute a balancer's own plan (balancers/) to hold it against a run
    'reproduce': {'io', 'metrics', 'report', 'runner', 'sweep', 'balancers'},
    'cli': {'io', 'params', 'geometry', 'metrics', 'core', 'workloads', 'balancers', 'report',
            'scenario', 'runner', 'sweep', 'reproduce'},
}


def folder_of(path):
    return path.split('/')[0]


def check_includes(src):
    bad = []
    for d, _, files in os.walk(src):
        for f in files:
            if not f.endswith(('.c', '.h')):
                continue
            path = os.path.join(d, f)
            rel = os.path.relpath(path, src)
            me = folder_of(rel)
            for n, line in enumerate(open(path, encoding='utf-8'), 1):
                m = re.match(r'#include "([^"]+)"', line)
                if not m or '/' not in m.group(1):
                    continue
                to = folder_of(m.group(1))
                if to in ('lbsim', me):
                    continue
                if to not in ALLOWED.get(me, set()):
                    bad.append(f'src/{rel}:{n}: {me}/ includes {m.group(1)}')
    return bad


def symbols(lib):
    """object file -> (functions defined, symbols used): data (tables of
    rows that point at functions, as the registries are) makes no call"""
    out = subprocess.run(['nm', '-A', '--defined-only', '-g', lib], capture_output=True,
                         text=True, check=True).stdout
    undef = subprocess.run(['nm', '-A', '-u', lib], capture_output=True, text=True,
                           check=True).stdout
    objs = {}
    for text, kind in ((out, 0), (undef, 1)):
        for line in text.splitlines():
            m = re.match(r'[^:]+:([^:]+\.o):\s*(?:[0-9a-f]+)?\s*(\w)\s+(\S+)', line)
            if not m or (kind == 0 and m.group(2) not in 'TW'):
                continue
            objs.setdefault(m.group(1), (set(), set()))[kind].add(m.group(3))
    return objs


def check_circles(lib):
    objs = symbols(lib)
    where = {}
    for obj, (defined, _) in objs.items():
        for s in defined:
            where[s] = obj
    # a module's error domain (its quark) is a name every file of the
    # module uses, defined in one of them: no call between them
    calls = {obj: {where[s] for s in used
                   if s in where and where[s] != obj and not s.endswith('_error_quark')}
             for obj, (_, used) in objs.items()}
    bad = []
    # strongly connected components (Tarjan)
    index, low, stack, on, comps = {}, {}, [], set(), []
    counter = [0]

    def visit(v):
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on.add(v)
        for w in calls[v]:
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            comps.append(comp)

    sys.setrecursionlimit(10000)
    for v in sorted(calls):
        if v not in index:
            visit(v)
    for comp in comps:
        if len(comp) > 1:
            bad.append('files that call each other in a circle: ' + ', '.join(sorted(comp)))
    return bad, len(objs)


def main():
    src, lib = sys.argv[1], sys.argv[2]
    bad = check_includes(src)
    circles, nobjs = check_circles(lib)
    bad += circles
    # the check must have seen the library: a wrong path proves nothing
    if nobjs < 40:
        bad.append(f'{lib}: only {nobjs} object files read')
    for b in bad:
        print(b)
    print(f'1..1\n{"not ok" if bad else "ok"} 1 layers ({nobjs} object files)')
    return 1 if bad else 0


if __name__ == '__main__':
    sys.exit(main())
