#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""Pick objects out of "rdma -j ..." output for the shell tests.

  rdma_json.py get PREFIX [KEY=VALUE...] -- RDMA-ARGS...
      the one object matching every KEY=VALUE, as shell assignments
      PREFIXkey=value (a '-' in a key becomes '_'); exit 1 unless exactly
      one object matches
  rdma_json.py values FIELD [KEY=VALUE...] -- RDMA-ARGS...
      FIELD of every matching object, sorted, on one line
  rdma_json.py count [KEY=VALUE...] -- RDMA-ARGS...
      how many objects match

Nested tables (driver attributes, counters) are merged into their
object. A KEY=VALUE matches a list (the QPs of a counter) that holds
VALUE, and a range string such as "17-19,23" that covers it.
"""
import json
import re
import subprocess
import sys


def merge(obj, out):
    for k, v in obj.items():
        if isinstance(v, dict):
            merge(v, out)
        elif isinstance(v, list) and v and all(isinstance(x, dict) for x in v):
            for x in v:
                merge(x, out)
        else:
            out[k] = v
    return out


def objects(doc):
    if isinstance(doc, dict):
        doc = [doc]
    return [merge(o, {}) for o in doc if isinstance(o, dict)]


def in_ranges(text, want):
    for part in str(text).split(','):
        m = re.fullmatch(r'\s*(\d+)(?:-(\d+))?\s*', part)
        if m and int(m.group(1)) <= want <= int(m.group(2) or m.group(1)):
            return True
    return False


def matches(o, filters):
    for k, want in filters:
        if k not in o:
            return False
        v = o[k]
        if isinstance(v, list):
            if want not in [str(x) for x in v]:
                return False
        elif str(v) != want:
            if not (want.isdigit() and isinstance(v, str) and
                    in_ranges(v, int(want))):
                return False
    return True


def main(argv):
    if '--' not in argv or len(argv) < 2:
        sys.exit(__doc__)
    sep = argv.index('--')
    head, rdma_args = argv[1:sep], argv[sep + 1:]
    mode, head = head[0], head[1:]
    arg = None
    if mode in ('get', 'values'):
        arg, head = head[0], head[1:]
    filters = [tuple(f.split('=', 1)) for f in head]
    out = subprocess.run(['rdma', '-j'] + rdma_args, capture_output=True,
                         text=True)
    if out.returncode:
        sys.exit(f"rdma -j {' '.join(rdma_args)}: {out.stderr.strip()}")
    text = out.stdout.strip()
    found = [o for o in objects(json.loads(text) if text else [])
             if matches(o, filters)]
    if mode == 'count':
        print(len(found))
    elif mode == 'values':
        print(' '.join(sorted(str(o.get(arg, '-')) for o in found)))
    elif mode == 'get':
        if len(found) != 1:
            sys.stderr.write(f'{len(found)} objects match {filters} in: '
                             f'{text}\n')
            sys.exit(1)
        for k, v in sorted(found[0].items()):
            if isinstance(v, list):
                v = ','.join(str(x) for x in v)
            k = re.sub(r'[^A-Za-z0-9_]', '_', k)
            print(f"{arg}{k}='{v}'")
    else:
        sys.exit(__doc__)


if __name__ == '__main__':
    main(sys.argv)
