#!/usr/bin/env python3
"""abuser.py: misbehaving clients of ibsmd's status socket, for tests/sim/test_abuse.sh and
tests/bench/socket (python3 stdlib only).

  abuser.py abuse SOCK [--seconds S] [--mix idle=500,slow=200,...] [--json FILE]
      Keep a population of bad clients connected for S seconds, each kind reconnecting when
      the daemon drops it:
        idle     connect and say nothing (dropped after socket_idle_timeout)
        slow     a request one byte a second (slowloris: a "timeout" error, then closed)
        garbage  binary, invalid UTF-8, deep nesting, huge numbers, lines over 64 KiB; reads
                 every reply: each must be a JSON error
        types    every command with arguments of the wrong types; each reply must be a JSON
                 object, and never an "internal" error
        subs     subscribe and never read (dropped once the events overflow their buffer)
        flood    subscribe, never read, and ask bursts of reroutes and heavy sweeps, each of
                 which publishes an event to every subscriber
        churn    connect, ask, close without reading the reply
      Prints a summary (and with --json the counts); SIGTERM ends it early. Exit 1 when a
      reply broke the protocol.
  abuser.py types SOCK
      The wrong-types sweep once, on one connection, as the user running it.
  abuser.py probe SOCK [--n N] [--interval MS] [--json FILE]
      A well-behaved client: N times connect, {"cmd":"status"}, read the reply, close;
      prints the reply times (p50, p99, max) in ms.
"""
import argparse
import errno
import json
import os
import random
import resource
import select
import signal
import socket
import sys
import time

# the arguments ibsmd's commands read, and values of every wrong type for them
ARGS = ['type', 'name', 'guid', 'lid', 'node', 'switch', 'from', 'to', 'src', 'dst', 'key', 'n',
        'kind', 'level', 'id']
WRONG = ['null', 'true', 'false', '-1', '0', '-0.0', '0.5', '1e308', '-1e308',
         '18446744073709551615', '-9223372036854775808', '9223372036854775807', '""',
         '"\\u00e9\\u2603\\ud83d\\ude00"', '"' + 'x' * 2000 + '"', '[]', '{}', '[[[[[[]]]]]]',
         '{"a":{"b":[1,2,{"c":null}]}}', '"0x"', '"0xffffffffffffffffff"', '"-5"',
         '"\\u001b[2J"', '"../../etc/passwd"']
# these change state: sent once each, not once per wrong value
ONCE = {'reroute', 'reload'}
OK_CODES = {'bad_request', 'not_found', 'unknown_command', 'permission_denied', 'too_large',
            'reload_failed', 'busy', 'timeout', 'not_ready', 'unavailable', 'no_such_node'}


def die(msg):
    print(f"abuser: {msg}", file=sys.stderr)
    sys.exit(1)


def raise_nofile():
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if soft < hard:
        resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))


def garbage_lines(rng):
    """one-line bad requests (no LF inside, never blank)"""
    out = [
        b'\x00\x01\x02\xff\xfe\xfd binary',
        b'\xef\xbb\xbf{"cmd":"status"}',
        b'{"cmd":"status","x":"\xc3\x28"}',
        b'{"cmd":"status","x":"\xc0\xaf"}',
        b'{"cmd":"status","x":"\xed\xa0\x80"}',
        b'{"cmd":"stat\xf4\x90\x80\x80us"}',
        b'{"cmd":"status","x":"\\ud800"}',
        b'{"cmd":"status\\u0000"}',
        b'{"cmd":"status","id":1e999999}',
        b'{"cmd":"status","id":123456789012345678901234567890}',
        b'{"cmd":"status","id":NaN}',
        b'{"cmd":"status","cmd":"sweep"}',
        b'{"cmd":' + b'[' * 3000 + b']' * 3000 + b'}',
        b'[' * 60000,
        b'{"a":' * 12000,
        b'{"cmd":"status","pad":"' + b'x' * (70 * 1024) + b'"}',   # over 64 KiB
        b'z' * (200 * 1024),                                        # far over, no JSON
        b'{"cmd":"' + b'y' * 60000 + b'"}',
        b'{"cmd":"\\u001b]0;pwned\\u0007"}',
        b'\x80',
        b'}',
        b'{"cmd":"status"} trailing',
    ]
    for _ in range(30):
        n = rng.randrange(1, 400)
        b = bytes([0x80 | rng.randrange(128)]) + bytes(rng.randrange(256) for _ in range(n))
        out.append(b.replace(b'\n', b' '))
    return out


def types_requests():
    """(request line, state-changing) for every command x argument x wrong value"""
    cmds = ['status', 'nodes', 'node', 'ports', 'links', 'switches', 'lft', 'route', 'lids',
            'routing', 'config', 'counters', 'events', 'multicast', 'partitions', 'help',
            'sweep', 'loglevel', 'reroute', 'reload', 'subscribe-not', 'subscribe']
    reqs = []
    for c in cmds:
        if c == 'subscribe':
            continue  # it would turn the connection into a stream
        if c in ONCE:
            args = ','.join(f'"{a}":{WRONG[i % len(WRONG)]}' for i, a in enumerate(ARGS))
            reqs.append(f'{{"cmd":"{c}",{args}}}'.encode())
            continue
        for a in ARGS:
            for v in WRONG:
                if (c == 'loglevel' and a != 'level') or (c == 'sweep' and a != 'kind'):
                    continue  # without a valid level or kind, they only say no
                reqs.append(f'{{"cmd":"{c}","{a}":{v}}}'.encode())
    # the command itself of every wrong type
    for v in WRONG:
        reqs.append(f'{{"cmd":{v}}}'.encode())
    return reqs


def check_reply(line, what, violations, codes, want_error=False):
    try:
        r = json.loads(line)
    except ValueError as e:
        violations.append(f"{what}: reply is not JSON ({e}): {line[:120]!r}")
        return None
    if not isinstance(r, dict) or not isinstance(r.get('ok'), bool):
        violations.append(f"{what}: reply without ok: {line[:120]!r}")
        return None
    if r['ok']:
        if want_error:
            violations.append(f"{what}: accepted: {line[:120]!r}")
        elif 'result' not in r:
            violations.append(f"{what}: ok without result: {line[:120]!r}")
        return r
    e = r.get('error')
    if not isinstance(e, dict) or not isinstance(e.get('code'), str) or \
            not isinstance(e.get('message'), str):
        violations.append(f"{what}: error without code and message: {line[:160]!r}")
        return r
    codes[e['code']] = codes.get(e['code'], 0) + 1
    if e['code'] not in OK_CODES:
        violations.append(f"{what}: error code {e['code']}: {line[:160]!r}")
    return r


class Client:
    """one connection of one kind; the Abuse loop drives it"""

    def __init__(self, ab, kind):
        self.ab, self.kind = ab, kind
        self.s = None
        self.inbuf = b''
        self.out = b''
        self.next_at = 0.0      # when to act next
        self.pos = 0            # slow: bytes sent; garbage/types: index
        self.waiting = 0        # replies expected
        self.connect()

    def connect(self):
        ab = self.ab
        self.s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self.s.setblocking(False)
        try:
            self.s.connect(ab.path)
        except OSError as e:
            # EAGAIN: the listen backlog is full (a Unix socket does not connect later)
            ab.stats['connect_failed'] += 1
            self.s.close()
            self.s = None
            self.next_at = time.monotonic() + 0.2
            if e.errno not in (errno.EAGAIN, errno.ECONNREFUSED):
                ab.violations.append(f"connect: {e}")
            return
        ab.stats['connects'] += 1
        ab.fds[self.s.fileno()] = self
        self.inbuf, self.out, self.pos, self.waiting = b'', b'', 0, 0
        self.opened = time.monotonic()
        self.next_at = self.opened
        if self.kind in ('subs', 'flood'):
            self.send(b'{"cmd":"subscribe"}\n')
        ab.watch(self)

    def reading(self):
        return self.kind not in ('subs', 'flood', 'churn')

    def close(self, why):
        ab = self.ab
        if self.s is None:
            return
        ab.stats[why] = ab.stats.get(why, 0) + 1
        ab.unwatch(self)
        del ab.fds[self.s.fileno()]
        self.s.close()
        self.s = None
        self.next_at = time.monotonic() + (0.1 if why != 'busy' else 0.5)

    def send(self, data):
        self.out += data
        self.flush()

    def flush(self):
        while self.out and self.s is not None:
            try:
                n = self.s.send(self.out[:1 << 20])
            except (BlockingIOError, InterruptedError):
                break
            except OSError:
                self.close('dropped_on_send')
                return
            self.out = self.out[n:]
        if self.s is not None:
            self.ab.watch(self)

    def on_readable(self):
        try:
            chunk = self.s.recv(1 << 20)
        except (BlockingIOError, InterruptedError):
            return
        except OSError:
            chunk = b''
        if not chunk:
            self.on_eof()
            return
        self.inbuf += chunk
        while b'\n' in self.inbuf:
            line, self.inbuf = self.inbuf.split(b'\n', 1)
            self.on_line(line)
            if self.s is None:
                return

    def on_line(self, line):
        ab = self.ab
        if b'"busy"' in line and self.waiting == 0 and self.kind != 'types':
            ab.stats['busy_replies'] += 1
            return
        if self.kind == 'slow':
            r = check_reply(line, 'slow', ab.violations, ab.codes)
            if r and not r['ok'] and r['error']['code'] == 'timeout':
                ab.stats['slow_timeouts'] += 1
            return
        if self.kind == 'garbage':
            check_reply(line, f'garbage #{self.pos}', ab.violations, ab.codes, want_error=True)
            ab.stats['garbage_answered'] += 1
        elif self.kind == 'types':
            check_reply(line, 'types', ab.violations, ab.codes)
            ab.stats['types_answered'] += 1
        elif self.kind == 'idle':
            check_reply(line, 'idle', ab.violations, ab.codes)
        self.waiting = max(0, self.waiting - 1)
        if self.waiting == 0:
            self.next_at = time.monotonic() + ab.pause

    def on_eof(self):
        why = {'idle': 'idle_closed', 'slow': 'slow_closed', 'subs': 'subs_dropped',
               'flood': 'flood_dropped'}.get(self.kind, 'closed_by_sm')
        if self.kind in ('garbage', 'types') and self.waiting:
            self.ab.violations.append(f"{self.kind}: closed with {self.waiting} replies due")
        self.close(why)

    def tick(self, now):
        ab = self.ab
        if self.s is None:
            if now >= self.next_at:
                self.connect()
            return
        if now < self.next_at:
            return
        k = self.kind
        if k == 'slow':
            req = b'{"cmd":"status","id":"slowly"}\n'
            if self.pos < len(req):
                self.send(req[self.pos:self.pos + 1])
                self.pos += 1
            self.next_at = now + 1.0
        elif k in ('garbage', 'types') and self.waiting == 0:
            lst = ab.garbage if k == 'garbage' else ab.types
            self.send(lst[self.pos % len(lst)] + b'\n')
            self.pos += 1
            self.waiting = 1
            self.next_at = now + 3600
        elif k == 'flood':
            burst = b'{"cmd":"reroute"}\n' * 150 + b'{"cmd":"sweep","kind":"heavy"}\n' * 50
            self.send(burst)
            ab.stats['flood_requests'] += 200
            self.next_at = now + ab.flood_every
        elif k == 'churn':
            self.send(b'{"cmd":"status"}\n')
            self.close('churned')


class Abuse:
    def __init__(self, path, mix, pause, flood_every):
        self.path = path
        self.pause = pause
        self.flood_every = flood_every
        self.poll = select.poll()
        self.fds = {}
        self.masks = {}
        self.stats = {k: 0 for k in ('connects', 'connect_failed', 'busy_replies',
                                     'slow_timeouts', 'garbage_answered', 'types_answered',
                                     'flood_requests')}
        self.codes = {}
        self.violations = []
        rng = random.Random(6)
        self.garbage = garbage_lines(rng)
        self.types = types_requests()
        self.stop = False
        self.clients = []
        for kind, n in mix:
            for _ in range(n):
                self.clients.append(Client(self, kind))

    def watch(self, c):
        fd = c.s.fileno()
        m = (select.POLLIN if c.reading() else 0) | (select.POLLOUT if c.out else 0)
        m |= select.POLLRDHUP if not c.reading() else 0
        if self.masks.get(fd) != m:
            if fd in self.masks:
                self.poll.modify(fd, m)
            else:
                self.poll.register(fd, m)
            self.masks[fd] = m

    def unwatch(self, c):
        fd = c.s.fileno()
        if fd in self.masks:
            self.poll.unregister(fd)
            del self.masks[fd]

    def run(self, seconds):
        end = time.monotonic() + seconds
        peak = 0
        while True:
            now = time.monotonic()
            if now >= end or self.stop:
                break
            for fd, ev in self.poll.poll(50):
                c = self.fds.get(fd)
                if c is None or c.s is None:
                    continue
                if ev & select.POLLOUT:
                    c.flush()
                if c.s is None:
                    continue
                if c.reading() and ev & (select.POLLIN | select.POLLHUP | select.POLLERR):
                    c.on_readable()
                elif not c.reading() and ev & (select.POLLHUP | select.POLLRDHUP |
                                               select.POLLERR):
                    c.on_eof()
            now = time.monotonic()
            for c in self.clients:
                c.tick(now)
            peak = max(peak, len(self.fds))
        for c in self.clients:
            if c.s is not None:
                c.s.close()
        self.stats['peak_connections'] = peak
        return {'stats': self.stats, 'codes': self.codes,
                'violations': self.violations[:20], 'nviolations': len(self.violations)}


def parse_mix(s):
    mix = []
    for part in s.split(','):
        k, _, n = part.partition('=')
        if k not in ('idle', 'slow', 'garbage', 'types', 'subs', 'flood', 'churn'):
            die(f"unknown kind {k}")
        mix.append((k, int(n)))
    return mix


def cmd_abuse(a):
    raise_nofile()
    ab = Abuse(a.sock, parse_mix(a.mix), a.pause / 1000.0, a.flood_every)
    signal.signal(signal.SIGTERM, lambda *_: setattr(ab, 'stop', True))
    rep = ab.run(a.seconds)
    txt = json.dumps(rep, indent=1, sort_keys=True)
    if a.json:
        with open(a.json, 'w') as f:
            f.write(txt + '\n')
    st = rep['stats']
    print(f"abuse: {st['peak_connections']} connections at peak, {st['connects']} made; "
          f"{st.get('idle_closed', 0)} idle and {st['slow_timeouts']} slowloris closed, "
          f"{st['garbage_answered']} garbage and {st['types_answered']} wrong-type requests "
          f"answered, {st.get('subs_dropped', 0) + st.get('flood_dropped', 0)} non-reading "
          f"subscribers dropped, {st['flood_requests']} flood requests, "
          f"{st['busy_replies']} busy; {rep['nviolations']} violations")
    for v in rep['violations']:
        print(f"  violation: {v}", file=sys.stderr)
    return 1 if rep['nviolations'] else 0


def cmd_types(a):
    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    s.settimeout(20)
    s.connect(a.sock)
    violations, codes, n = [], {}, 0
    buf = b''
    for req in types_requests():
        s.sendall(req + b'\n')
        while b'\n' not in buf:
            chunk = s.recv(1 << 20)
            if not chunk:
                die(f"closed after {req[:80]!r}")
            buf += chunk
        line, buf = buf.split(b'\n', 1)
        check_reply(line, req[:80].decode('utf-8', 'replace'), violations, codes)
        n += 1
    s.close()
    for v in violations[:20]:
        print(f"  violation: {v}", file=sys.stderr)
    print(f"types: {n} requests with wrong argument types, all answered; codes "
          f"{json.dumps(codes, sort_keys=True)}; {len(violations)} violations")
    if a.json:
        with open(a.json, 'w') as f:
            json.dump({'n': n, 'codes': codes, 'violations': violations[:50]}, f)
    return 1 if violations else 0


def pct(xs, p):
    xs = sorted(xs)
    return xs[min(len(xs) - 1, int(round(p / 100.0 * (len(xs) - 1))))]


def cmd_probe(a):
    times, errors, kinds = [], 0, {}
    for _ in range(a.n):
        t0 = time.monotonic()
        try:
            s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
            s.settimeout(10)
            s.connect(a.sock)
            s.sendall(b'{"cmd":"status"}\n')
            buf = b''
            while b'\n' not in buf:
                chunk = s.recv(1 << 20)
                if not chunk:
                    break
                buf += chunk
            s.close()
            r = json.loads(buf.split(b'\n', 1)[0])
            if r.get('ok') is not True:
                errors += 1
                k = (r.get('error') or {}).get('code', 'no code')
                kinds[k] = kinds.get(k, 0) + 1
            else:
                times.append((time.monotonic() - t0) * 1000.0)
        except (OSError, ValueError) as e:
            errors += 1
            k = type(e).__name__ + (f" {errno.errorcode.get(e.errno, '')}"
                                    if isinstance(e, OSError) and e.errno else '')
            kinds[k] = kinds.get(k, 0) + 1
        time.sleep(a.interval / 1000.0)
    rep = {'n': a.n, 'answered': len(times), 'errors': errors, 'error_kinds': kinds}
    if times:
        rep.update(p50_ms=round(pct(times, 50), 3), p99_ms=round(pct(times, 99), 3),
                   max_ms=round(max(times), 3))
    if a.json:
        with open(a.json, 'w') as f:
            json.dump(rep, f)
    print(f"probe: {len(times)}/{a.n} status replies" +
          (f", p50 {rep['p50_ms']} ms, p99 {rep['p99_ms']} ms, max {rep['max_ms']} ms"
           if times else "") + f", {errors} errors" + (f" {kinds}" if kinds else ""))
    return 0 if not errors else 1


def main():
    ap = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    sub = ap.add_subparsers(dest='cmd', required=True)
    p = sub.add_parser('abuse')
    p.add_argument('sock')
    p.add_argument('--seconds', type=float, default=15)
    p.add_argument('--mix', default='idle=500,slow=200,garbage=80,types=80,subs=80,flood=10,'
                   'churn=50')
    p.add_argument('--pause', type=float, default=20, help='ms between a reply and the next')
    p.add_argument('--flood-every', type=float, default=2.0, help='s between flood bursts')
    p.add_argument('--json')
    p = sub.add_parser('types')
    p.add_argument('sock')
    p.add_argument('--json')
    p = sub.add_parser('probe')
    p.add_argument('sock')
    p.add_argument('--n', type=int, default=200)
    p.add_argument('--interval', type=float, default=20, help='ms between requests')
    p.add_argument('--json')
    a = ap.parse_args()
    return {'abuse': cmd_abuse, 'types': cmd_types, 'probe': cmd_probe}[a.cmd](a)


if __name__ == '__main__':
    sys.exit(main())
