#!/usr/bin/python3
"""worstcase.py - writes the fuzz target's worst-case inputs (runner/fuzz/runner_fuzz.c) into DIR:
for each parser, the input of at most -max_len bytes that drives its slowest path (a long LIST of
new names, a metric regex with a back-reference or nested {m,n}, thousands of records appended
to one latency entry, a trace whose chunks claim 2^32 objects each, ...). fuzz.sh runs each of
them once under libFuzzer's -timeout; docs/measurements/fuzz-runner.md says what each took
before its fix.

Always holds: every input is deterministic and at most MAX_LEN bytes, its first byte selects
the parser as runner_fuzz.c does (byte % 11), and its name says which parser and which shape.
"""
import itertools
import os
import struct
import sys
import zlib

MAX_LEN = 65536  # fuzz.sh's -max_len


def names(n):
    """n distinct short names."""
    chars = 'abcdefghijklmnopqrstuvwxyz0123456789'
    out = []
    for length in itertools.count(1):
        for t in itertools.product(chars, repeat=length):
            out.append(''.join(t).encode())
            if len(out) == n:
                return out


def crc(b):
    return zlib.crc32(b) & 0xffffffff


def trace_header():
    """A valid 4096-byte trace header of an incomplete trace (contract/trace.h)."""
    text = b'complete\t0\n'
    h = bytearray(4096)
    h[0:8] = b'HBTRACE\0'
    h[8:12] = struct.pack('<I', 1)
    h[12:16] = struct.pack('<I', len(text))
    h[16:16 + len(text)] = text
    h[4092:4096] = struct.pack('<I', crc(bytes(h[:4092])))
    return bytes(h)


def trace_chunk(thread, payload, nops, nprod, first_op, first_seq):
    """One chunk with a valid header and checksum."""
    h = bytearray(48)
    struct.pack_into('<IHHIII', h, 0, 0x4b434248, thread, 0, len(payload), nops, nprod)
    struct.pack_into('<QQQ', h, 24, first_op, first_seq, 0)
    struct.pack_into('<I', h, 20, crc(bytes(h) + payload))
    return bytes(h) + payload


def traces():
    nprod, seq = trace_header(), 0
    while len(nprod) + 48 < MAX_LEN - 1:  # every chunk claims 2^32-1 objects and holds no event
        nprod += trace_chunk(0, b'', 0, 0xffffffff, 0, seq)
        seq += 0xffffffff
    threads = trace_header()
    for t in list(range(0, 4096, 5)) + [4095]:  # the most threads, one empty chunk each
        threads += trace_chunk(t, b'', 0, 0, 0, 0)
    n = (MAX_LEN - 1 - 4096 - 48) // 2  # the most events: 2-byte mallocs of the same size
    events = trace_header() + trace_chunk(0, bytes([0x81, 0]) * n, n, n, 0, 0)
    return {'trace-nprod': nprod, 'trace-threads': threads, 'trace-events': events}


def inputs():
    """name -> (selector, body)."""
    long_line = b'a' * 1023 + b'\n'
    runs_hdr = b'run,host,workload,allocator,threads,params,env,rep,records\n'
    cases = {
        'registry-many': (0, b''.join(b'%s|-||||default\n' % n for n in names(5000))),
        'registry-blank': (0, b'\n' * MAX_LEN),
        'registry-paths': (0, b'a|' + b':'.join([b'x'] * 30000) + b'||||default\n'),
        'list-many': (1, b''.join(b'%s|-|||\n' % n for n in names(8000))),
        'list-blank': (1, b'\n' * MAX_LEN),
        'list-threads': (1, b'a|' + b','.join([b'1'] * 30000) + b'|||\n'),
        'prog-blank': (2, b'\n' * MAX_LEN),
        'prog-requires': (2, b'command = x\nrequires = ' + b'sh ' * 21000),
        'prog-dollars': (2, b'command = ' + b'$HB_ROOT' * 8000 + b'\n'),
        'split-commas': (3, b',' * MAX_LEN),
        'split-colons': (3, b':' * MAX_LEN),
        'csv-commas': (4, b',' * MAX_LEN),
        'csv-quotes': (4, b'"' + b'""' * 32000),
        'json-deep': (5, b'[' * MAX_LEN),
        'json-keys': (5, b'{' + b'"a":1,' * 10000 + b'"argv":["x"]}'),
        'json-strings': (5, b'{"argv":[' + b'"",' * 21000 + b'""]}'),
        'phase-many': (6, b'phase\t\t\t\t\t\n' * 6000),
        'latency-many': (6, b''.join(b'latency\t%s\t\t0\t0\t0\n' % n for n in names(3500))),
        'latency-hist-unknown': (6, b''.join(b'latency\t%s\tx\t0\t0\t0\n' % n for n in names(1700))
                                 + b'latency_hist\tzz\tx\t\n' * 1800),
        'latency-hist-one': (6, b'latency\ta\tb\t0\t0\t0\n' + b'latency_hist\ta\tb\t1:1,2:1,3:1,4:1\n' * 2000),
        'metric-star': (7, b'x=a*b\n' + b'a' * MAX_LEN),
        'metric-alt': (7, b'x=(a|aa)*c\n' + b'a' * MAX_LEN),
        'metric-backref': (7, b'x=(a*)*\\1b\n' + b'a' * MAX_LEN),
        'metric-backref2': (7, b'x=(.*)(.*)\\2\\1c\n' + b'a' * MAX_LEN),
        'metric-nested-interval': (7, b'x=((a{1,100}){1,100}){1,100}\nb'),
        'metric-nested-interval2': (7, b'x=(((a{0,255}){0,255}){0,255}){0,255}\nb'),
        'metric-lines-alt': (7, b'x=((a|aa)*)*c\n' + long_line * 64),
        'metric-lines-groups': (7, b'x=(a*)(a*)(a*)(a*)c\n' + long_line * 64),
        'metric-lines-interval': (7, b'x=((a|aa)?){60}c\n' + long_line * 64),
        'results-dup': (8, runs_hdr + b''.join(b'%d,h,w,a,1,,,1,\n' % (i + 1) for i in range(3500))),
        'results-blank': (8, runs_hdr + b'\n' * MAX_LEN),
        'results-records': (8, runs_hdr + b'1,h,w,a,1,,,1,' + b'phases.csv ' * 5000 + b'\n'),
        'results-wide': (8, b'run' + b',' * 30000 + b'\n' + b'1' + b',' * 30000 + b'\n'),
        'describe-many': (9, b''.join(b'%s\t\t\t\n' % n for n in names(8000))),
        'describe-choices': (9, b'a\t\t\t' + b'|' * 30000 + b'\n' + b'b\t\t\t' + b'|' * 30000 + b'\n'),
    }
    cases.update({k: (10, v) for k, v in traces().items()})
    return cases


def main():
    if len(sys.argv) != 2:
        sys.exit('usage: worstcase.py DIR')
    os.makedirs(sys.argv[1], exist_ok=True)
    for name, (sel, body) in inputs().items():
        with open(os.path.join(sys.argv[1], 'worst-%d-%s' % (sel, name)), 'wb') as f:
            f.write((bytes([sel]) + body)[:MAX_LEN])


if __name__ == '__main__':
    main()
