#!/usr/bin/env python3
"""notify_listen.py: systemd's side of sd_notify(3), for tests/sim/test_systemd.sh.

Binds a datagram socket at PATH (what NOTIFY_SOCKET names) and appends every line of every
message it receives to LOG as "SECONDS.MICROS LINE" (READY=1, STATUS=..., WATCHDOG=1,
STOPPING=1), flushed at once so that the test can read it while the daemon runs. Runs until
SIGTERM, or for --max-seconds (a test that forgets it does not leave it behind).
"""
import argparse
import os
import signal
import socket
import sys
import time


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("path")
    ap.add_argument("log")
    ap.add_argument("--max-seconds", type=float, default=600)
    a = ap.parse_args()
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(0))
    try:
        os.unlink(a.path)
    except FileNotFoundError:
        pass
    s = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
    s.bind(a.path)
    end = time.monotonic() + a.max_seconds
    with open(a.log, "a", buffering=1) as log:
        print("%.6f LISTENING" % time.time(), file=log)
        while time.monotonic() < end:
            s.settimeout(max(0.1, end - time.monotonic()))
            try:
                data = s.recv(65536)
            except socket.timeout:
                continue
            for line in data.decode("utf-8", "replace").splitlines():
                print("%.6f %s" % (time.time(), line), file=log)
    return 0


if __name__ == "__main__":
    sys.exit(main())
