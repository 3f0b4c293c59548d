#!/usr/bin/env python3
"""Checks of the code's shape that doc/ARCHITECTURE.md promises.

- every file name (basename) under lib/, daemon/, ctl/, plugins/ and tests/ is used once;
- no function in lib/, daemon/, ctl/ or plugins/ is longer than MAX_FUNC lines;
- the include graph between lib/ subsystems follows LAYERS: a subsystem includes
  only headers of itself and of the subsystems it is allowed to use;
- the sweep phases (lib/sweep/) form no include cycle with the sweep engine:
  the engine and its interface include no phase's header, and code outside
  lib/sweep uses the interface only;
- no path outside the repository is named by any tracked file.

Usage: layout.py [TOP] [--report]   (--report: print the subsystem graph and the
longest functions, then check)
"""
import os
import re
import subprocess
import sys

MAX_FUNC = 100

# subsystem -> subsystems whose headers it may include (besides its own)
LAYERS = {
    'core': set(),
    'conf': {'core'},
    'mad': {'core'},
    'xport': {'core', 'mad'},
    'model': {'core', 'conf', 'mad'},
    'route': {'core', 'conf', 'mad', 'model'},
    # partitions, multicast and M_Keys: state the sweeps program, the SA reads
    # and reports on (traps 66/67), and multicast runs its MFT passes on the engine
    'policy': {'core', 'conf', 'mad', 'xport', 'model', 'sm', 'sa', 'sweep'},
    'sa': {'core', 'conf', 'mad', 'xport', 'model', 'route', 'policy', 'sm'},
    'sweep': {'core', 'conf', 'mad', 'xport', 'model', 'route', 'policy', 'sa', 'sm'},
    'sm': {'core', 'conf', 'mad', 'xport', 'model', 'route', 'policy', 'sa', 'sweep',
           'report'},
    'report': {'core', 'conf', 'mad', 'xport', 'model', 'route', 'policy', 'sa', 'sm'},
}

# files outside the checks of unique names (generated or data)
NAME_EXEMPT = {'README.md', 'Makefile.gen', 'lib.sh'}

OUTSIDE = re.compile(r'(/work/|/home/|/root/|/usr/share/doc/|\.\./shared/(?!judge/fabric_judge\.py))')
OUTSIDE_ALLOWED = {'tests/misc/layout.py'}

INC = re.compile(r'^\s*#\s*include\s+"([^"]+)"', re.M)


def tracked(top):
    out = subprocess.run(['git', '-C', top, 'ls-files'], capture_output=True, text=True)
    if out.returncode == 0 and out.stdout:
        return out.stdout.split()
    files = []
    for dp, dn, fn in os.walk(top):
        dn[:] = [d for d in dn if not d.startswith('.') and d not in ('build',)]
        files += [os.path.relpath(os.path.join(dp, f), top) for f in fn]
    return files


def check_names(files):
    errs = []
    seen = {}
    for f in files:
        if not f.startswith(('lib/', 'daemon/', 'ctl/', 'plugins/', 'tests/')):
            continue
        if f.startswith(('tests/fuzz/corpus/', 'tests/golden/', 'tests/fabrics/')):
            continue
        b = os.path.basename(f)
        if b in NAME_EXEMPT:
            continue
        if b in seen:
            errs.append('file name used twice: %s and %s' % (seen[b], f))
        seen[b] = f
    return errs


def functions(path):
    """(name, first line, length) of every function defined at column 0."""
    lines = open(path, errors='replace').read().split('\n')
    start = None
    for i, l in enumerate(lines):
        if l == '{' and start is None:
            j = i - 1
            while j >= 0 and lines[j] and not re.match(r'^[A-Za-z_].*\(', lines[j]):
                j -= 1
            m = re.search(r'([A-Za-z_]\w*)\s*\(', lines[j]) if j >= 0 else None
            start, name = (j if j >= 0 else i), (m.group(1) if m else '?')
        elif l.startswith('}') and start is not None:
            yield name, start + 1, i - start + 1
            start = None


def check_functions(top, files, report):
    errs, all_f = [], []
    for f in files:
        if f.endswith('.c') and f.startswith(('lib/', 'daemon/', 'ctl/', 'plugins/')):
            for name, line, n in functions(os.path.join(top, f)):
                all_f.append((n, '%s:%d %s' % (f, line, name)))
                if n > MAX_FUNC:
                    errs.append('%s:%d: %s is %d lines (at most %d)' % (f, line, name, n,
                                                                        MAX_FUNC))
    if report:
        for n, where in sorted(all_f, reverse=True)[:5]:
            print('longest: %4d %s' % (n, where))
    return errs


def subsystem(relpath):
    """lib/<sub>/... -> <sub>, or None for files not in a subsystem folder"""
    parts = relpath.split('/')
    if len(parts) >= 3 and parts[0] == 'lib':
        return parts[1]
    return None


def check_includes(top, files, report):
    errs = []
    graph = {}
    for f in files:
        sub = subsystem(f)
        if not sub or not f.endswith(('.c', '.h')):
            continue
        if sub not in LAYERS:
            errs.append('%s: subsystem %s is not in the layer table' % (f, sub))
            continue
        for inc in INC.findall(open(os.path.join(top, f), errors='replace').read()):
            if inc == 'config.h' or '/' not in inc:
                continue
            dep = inc.split('/')[0]
            if dep == sub or dep not in LAYERS:
                continue
            graph.setdefault(sub, set()).add(dep)
            if dep not in LAYERS[sub]:
                errs.append('%s includes %s: %s may not use %s' % (f, inc, sub, dep))
    if report:
        for s in LAYERS:
            print('uses: %-7s -> %s' % (s, ' '.join(sorted(graph.get(s, ())))))
    return errs


def check_sweep(top, files):
    """phases depend on the sweep interface, never the other way round: the
    engine (sweep.c) and its interface (SWEEP_API) include no phase's header,
    and outside lib/sweep only the interface is included"""
    errs = []
    api = {'lib/sweep/' + h for h in SWEEP_API}
    phase_headers = {f for f in files if f.startswith('lib/sweep/') and f.endswith('.h')} - api
    for f in files:
        if not f.endswith(('.c', '.h')) or not f.startswith(('lib/', 'daemon/')):
            continue
        engine = f in api or f == 'lib/sweep/sweep.c'
        if not engine and f.startswith('lib/sweep/'):
            continue
        for inc in INC.findall(open(os.path.join(top, f), errors='replace').read()):
            if 'lib/' + inc in phase_headers:
                who = 'the sweep engine' if engine else 'code outside the sweep'
                errs.append('%s: %s includes the phase header %s' % (f, who, inc))
    return errs


def check_outside(top, files):
    errs = []
    for f in files:
        if f in OUTSIDE_ALLOWED or f.startswith(('tests/fuzz/corpus/', 'tests/golden/')):
            continue
        try:
            text = open(os.path.join(top, f)).read()
        except (UnicodeDecodeError, IsADirectoryError, FileNotFoundError):
            continue
        for n, line in enumerate(text.split('\n'), 1):
            if OUTSIDE.search(line):
                errs.append('%s:%d: names a path outside the repository: %s' %
                            (f, n, line.strip()[:100]))
    return errs


# the sweep interface: what the engine offers the phases and the SM (lib/sweep/)
SWEEP_API = {'sweep.h', 'sreq.h'}


def main():
    args = [a for a in sys.argv[1:] if not a.startswith('--')]
    report = '--report' in sys.argv
    top = args[0] if args else os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', '..')
    files = [f for f in tracked(top) if os.path.isfile(os.path.join(top, f))]
    errs = check_names(files)
    errs += check_functions(top, files, report)
    errs += check_includes(top, files, report)
    errs += check_sweep(top, files)
    errs += check_outside(top, files)
    for e in errs:
        print(e)
    print('layout: ok' if not errs else 'layout: %d problems' % len(errs))
    return 1 if errs else 0


if __name__ == '__main__':
    sys.exit(main())
