#!/usr/bin/env python3
"""Compare two Module.symvers files (harness/kmi-layout --vmlinux).

usage: symversdiff.py BASE SERIES

Each line of a Module.symvers is "CRC<TAB>SYMBOL<TAB>MODULE<TAB>KIND"
with a fifth field, the namespace, where the export has one. Prints the
exports of BASE that SERIES removed or whose CRC, namespace or kind
(EXPORT_SYMBOL or _GPL) changed, then the exports SERIES added, and a
count of each; exits 1 if any base export was removed or changed, 2 on
a usage or parse error. An export that moved to another module is
listed, not failed: a module finds its symbol wherever it is exported.
"""
import sys


def read(path):
    """{symbol: (crc, module, kind, namespace)} of a Module.symvers"""
    exports = {}
    with open(path, encoding='utf-8') as f:
        for n, line in enumerate(f, 1):
            fields = line.rstrip('\n').split('\t')
            if len(fields) not in (4, 5) or not fields[1]:
                raise ValueError(f'{path}:{n}: not a Module.symvers line')
            ns = fields[4] if len(fields) == 5 else ''
            exports[fields[1]] = (fields[0], fields[2], fields[3], ns)
    return exports


def describe(sym, e):
    crc, module, kind, ns = e
    where = module if module else 'vmlinux'
    return f'{sym} ({kind}{", namespace " + ns if ns else ""}, {where}, CRC {crc})'


def main(argv):
    if len(argv) != 3:
        print(__doc__.split('\n\n')[1], file=sys.stderr)
        return 2
    try:
        base, series = read(argv[1]), read(argv[2])
    except (OSError, ValueError) as e:
        print(f'symversdiff: {e}', file=sys.stderr)
        return 2
    bad = 0
    for sym in sorted(base):
        b = base[sym]
        s = series.get(sym)
        if s is None:
            print(f'removed: {describe(sym, b)}')
            bad += 1
            continue
        changes = [f'{what} {x} -> {y}' for what, x, y in
                   (('CRC', b[0], s[0]), ('kind', b[2], s[2]),
                    ('namespace', b[3] or '(none)', s[3] or '(none)'))
                   if x != y]
        if changes:
            print(f'changed: {sym}: {"; ".join(changes)}')
            bad += 1
        elif b[1] != s[1]:
            print(f'moved: {sym}: {b[1] or "vmlinux"} -> {s[1] or "vmlinux"}')
    added = sorted(set(series) - set(base))
    for sym in added:
        print(f'added: {describe(sym, series[sym])}')
    print(f'CRCs: {len(base)} exports at the base, {bad} removed or changed, '
          f'{len(added)} added')
    return 1 if bad else 0


if __name__ == '__main__':
    sys.exit(main(sys.argv))
