#!/usr/bin/env python3
"""Compare struct layouts as pahole prints them (harness/kmi-layout).

usage: layoutdiff.py BASE.txt SERIES.txt STRUCT[,STRUCT...]

Prints, per struct, its size before and after, the base members whose
offset or size changed or that are gone, and the members added; exits 1
if a struct is missing, its size changed, or a base member moved.
"""
import re, sys

def parse(path):
    """struct -> (size, {member: (offset, bit offset, size)}) of the first
    definition pahole prints of each struct (every object prints the
    same); members of nested anonymous structs and unions by their own
    names, at the outer struct's offsets"""
    out, cur, depth, members, size = {}, None, 0, None, None
    for line in open(path):
        m = re.match(r'^struct (\w+) \{', line)
        if m and depth == 0:
            cur, members, size, depth = m.group(1), {}, None, 1
            continue
        if cur is None:
            continue
        depth += line.count('{') - line.count('}')
        m = re.search(r'^(.*);\s*/\*\s*(\d+)(?::\s*(\d+))?\s+(\d+)\s*\*/', line)
        if m:
            decl = re.sub(r'\s*__attribute__\(\(.*\)\)\s*$', '', m.group(1))
            f = re.search(r'\(\*\s*(\w+)\)\s*\(', decl)
            name = f.group(1) if f else re.search(r'(\w+)\s*(\[[^\]]*\])*\s*(:\s*\d+)?\s*$', decl).group(1)
            members[name] = (int(m.group(2)), int(m.group(3) or 0), int(m.group(4)))
        m = re.search(r'/\* size: (\d+)', line)
        if m:
            size = int(m.group(1))
        if depth == 0:
            if cur not in out and size is not None:
                out[cur] = (size, members)
            cur = None
    return out

base, series = parse(sys.argv[1]), parse(sys.argv[2])
bad = 0
for name in sys.argv[3].split(','):
    if name not in base or name not in series:
        print('struct %s: not found (%s)' % (name, 'base' if name not in base else 'series'))
        bad = 1
        continue
    (bsize, bm), (ssize, sm) = base[name], series[name]
    moved = ['%s: %s -> %s' % (k, bm[k], sm.get(k)) for k in bm if sm.get(k) != bm[k]]
    added = sorted(k for k in sm if k not in bm)
    print('struct %s: size %d -> %d, %d members, %d moved or gone, added: %s' % (
        name, bsize, ssize, len(bm), len(moved), ', '.join(
            '%s (offset %d)' % (k, sm[k][0]) for k in added) or 'none'))
    for m in moved:
        print('  moved: ' + m)
    if bsize != ssize or moved:
        bad = 1
print('KMI layout: ' + ('CHANGED' if bad else 'every base member in its place'))
sys.exit(bad)
