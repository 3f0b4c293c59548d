#!/usr/bin/env python3
"""run_judges: judge the fabric with the repository's referee and, when it is there, an extra one.

The sim tests (tests/sim/lib.sh) and the benches (tests/bench/*) call this, as a command or as
a module, so that every route check goes through tests/referee/referee.py.  A second,
independent judge runs as well when EXTRA_JUDGE names a file that exists; EXTRA_JUDGE defaults
to fabric_judge.py of a shared/ directory beside the repository, where a development machine
may keep one.  It must take the referee's options (--json, --quick, --shifts, --vl,
--allow-credit-loops).  A plain clone has none: the referee alone decides then.

  run_judges.py [--out DIR] [--timeout SEC] [JUDGE_ARGS...]
  run_judges.py --extra     print the extra judge's path (nothing when there is none)

writes DIR/judge.json (the referee's report; "ok" only when every judge said ok, the extra
judge's report under "extra"), prints a one-line verdict and exits 0 when ok, 1 when not.
"""
import json
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
REFEREE = os.path.join(HERE, 'referee.py')


def extra_judge():
    """the extra judge's path, or None when there is none"""
    top = os.path.dirname(os.path.dirname(HERE))
    path = os.environ.get('EXTRA_JUDGE',
                          os.path.join(os.path.dirname(top), 'shared', 'judge', 'fabric_judge.py'))
    return path if path and os.path.isfile(path) else None


def run_one(path, args, out_json, env=None, cwd=None, timeout=None):
    """one judge -> its report ({'ok': False, 'error': ...} when it gave none)"""
    argv = [sys.executable, path, '--json', out_json] + list(args)
    try:
        r = subprocess.run(argv, env=env, cwd=cwd, capture_output=True, text=True,
                           timeout=timeout)
    except subprocess.TimeoutExpired:
        return {'ok': False, 'error': f"{os.path.basename(path)} timed out ({timeout} s)"}
    with open(out_json[:-len('.json')] + '.out', 'w') as f:
        f.write(r.stdout + r.stderr)
    try:
        with open(out_json) as f:
            rep = json.load(f)
    except (OSError, ValueError):
        return {'ok': False, 'error': f"{os.path.basename(path)} gave no report "
                                      f"(exit {r.returncode}): {r.stderr.strip()[-300:]}"}
    if r.returncode != 0:
        rep['ok'] = False
    return rep


def judge(args=(), out_dir='.', env=None, cwd=None, timeout=None):
    """the referee's report, "ok" only when the extra judge (if any) agrees"""
    rep = run_one(REFEREE, args, os.path.join(out_dir, 'referee.json'), env, cwd, timeout)
    extra = extra_judge()
    if extra:
        xrep = run_one(extra, args, os.path.join(out_dir, 'extra-judge.json'), env, cwd,
                       timeout)
        rep['extra'] = xrep
        if not xrep.get('ok'):
            rep['ok'] = False
    with open(os.path.join(out_dir, 'judge.json'), 'w') as f:
        json.dump(rep, f, indent=1, sort_keys=True)
    return rep


def verdict(rep):
    """'ok' or 'NOT ok' for a bench table, 'no report' when a judge failed to run"""
    if rep.get('error') or (rep.get('extra') or {}).get('error'):
        return 'no report'
    return 'ok' if rep.get('ok') else 'NOT ok'


def main(argv):
    out_dir, timeout = '.', None
    if argv == ['--extra']:
        print(extra_judge() or '')
        return 0
    while argv and argv[0] in ('--out', '--timeout'):
        if argv[0] == '--out':
            out_dir = argv[1]
        else:
            timeout = int(argv[1])
        argv = argv[2:]
    rep = judge(argv, out_dir, timeout=timeout)
    print(f"referee {verdict(rep)}" + (f", extra judge {verdict(rep['extra'])}"
                                        if 'extra' in rep else ", no extra judge"))
    return 0 if rep.get('ok') else 1


if __name__ == '__main__':
    sys.exit(main(sys.argv[1:]))
