#!/bin/bash
# The code's shape that doc/ARCHITECTURE.md promises (tests/misc/layout.py):
# one name per file, no function over 100 lines, the include rules between
# lib/ subsystems, the sweep phases apart from the engine, no path outside
# the repository. Exit 0 pass, 1 fail, 77 skip (no python3).
set -u
top_srcdir=${top_srcdir:-$(cd "$(dirname "$0")/../.." && pwd)}
command -v python3 >/dev/null || { echo "SKIP: python3 not installed"; exit 77; }
exec python3 "$top_srcdir/tests/misc/layout.py" "$top_srcdir" --report
