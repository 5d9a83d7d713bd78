#!/usr/bin/env python3
"""Compare struct layouts as pahole prints them (harness/kmi-layout).

usage: layoutdiff.py BASE.txt SERIES.txt STRUCT[,STRUCT...]

Prints, per struct, its size before and after, the base members whose
offset, bit offset, size or bit width changed or that are gone, and the
members added; exits 1 if a struct is missing, its size changed, or a
base member moved, and 2 on a usage or parse error.

Members of a nested struct or union that pahole prints inline are keyed
by their path ("x.a" for a member a of a nested "struct { ... } x"; an
anonymous one's members by their own names, which C keeps unique), at
the outer struct's offsets. A member whose type is a named struct is
one member: its own layout is that struct's, compare it by naming it.
"""
import re
import sys

MEMBER = re.compile(r'^(.*);\s*/\*\s*(\d+)(?::\s*(\d+))?\s+(\d+)\s*\*/')


class ParseError(Exception):
    pass


def member_name(decl):
    """The name a member declaration declares, with its bit width"""
    decl = re.sub(r'\s*__attribute__\(\(.*\)\)\s*$', '', decl)
    f = re.search(r'\(\*\s*(\w+)\)\s*\(', decl)
    if f:
        return f.group(1), 0
    m = re.search(r'(\w+)\s*(\[[^\]]*\])*\s*(?::\s*(\d+))?\s*$', decl)
    if not m:
        raise ParseError('no member name in %r' % decl)
    return m.group(1), int(m.group(3) or 0)


def parse(path):
    """struct -> (size, {member path: (offset, bit offset, size, bits)})
    of the first definition pahole prints of each struct (every object
    prints the same)"""
    out, cur, size = {}, None, None
    stack = []  # the members of each open block, outermost first
    for n, line in enumerate(open(path), 1):
        if cur is None:
            m = re.match(r'^struct (\w+) \{', line)
            if m:
                cur, size, stack = m.group(1), None, [{}]
            continue
        s = line.strip()
        m = re.search(r'/\* size: (\d+)', s)
        if m and len(stack) == 1:
            size = int(m.group(1))
            continue
        if s.startswith('/*') or not s:
            continue
        if s.endswith('{'):  # a nested struct or union printed inline
            stack.append({})
            continue
        if s.startswith('}'):
            if len(stack) == 1:  # the struct's end
                if size is None:
                    raise ParseError('%s:%d: struct %s has no size' % (path, n, cur))
                out.setdefault(cur, (size, stack[0]))
                cur = None
                continue
            inner = stack.pop()
            m = MEMBER.match(s)
            if not m:
                raise ParseError('%s:%d: cannot read %r' % (path, n, s))
            name = re.sub(r'^\}\s*', '', m.group(1))
            prefix = member_name(name)[0] + '.' if name.strip() else ''
            for k, v in inner.items():
                stack[-1][prefix + k] = v
            continue
        m = MEMBER.match(s)
        if not m:
            raise ParseError('%s:%d: cannot read %r' % (path, n, s))
        name, bits = member_name(m.group(1))
        stack[-1][name] = (int(m.group(2)), int(m.group(3) or 0), int(m.group(4)), bits)
    if cur is not None:
        raise ParseError('%s: struct %s does not end' % (path, cur))
    return out


def main(argv):
    if len(argv) != 4:
        print(__doc__.split('\n\n')[1], file=sys.stderr)
        return 2
    try:
        base, series = parse(argv[1]), parse(argv[2])
    except (OSError, ParseError) as e:
        print('layoutdiff.py: %s' % e, file=sys.stderr)
        return 2
    bad = 0
    for name in argv[3].split(','):
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
    return bad


if __name__ == '__main__':
    sys.exit(main(sys.argv))
