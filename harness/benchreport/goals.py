"""The benchmark's goals, checked on a run's rows.

GOALS is the table: (name, check, needs_big). A check takes the rows and
the big cell's size (KiB per CPU) and returns what missed the goal, one
string each; the name may say {big}, the big cell's size. Goals that
need the big cell are left out of a run without it.
"""
from .data import COMPACTING, med, num, select, size_label


def pair(rows, r, kernel, pmu):
    """The rows of another policy in r's cell"""
    return select(rows, arch=r['arch'], state=r['state'], size_kb=r['size_kb'],
                  mode=r['mode'], kernel=kernel, pmu=pmu)


def where(r):
    return '{} {} {} {}'.format(r['arch'], r['state'], size_label(r['size_kb']),
                                r['mode'])


def pt_rows(rows):
    return [r for r in rows if r['kernel'] == 'series' and r['pmu'] == 'aux_test_pt']


def pt_result_everywhere(rows, big):
    # Every cell of the base's PREFER_LARGE needs its PT-like cell (the
    # series kernel's arches), and a number in it
    misses = []
    for b in rows:
        if b['kernel'] != 'base' or b['pmu'] != 'aux_test_large' or \
           not select(rows, arch=b['arch'], kernel='series'):
            continue
        t = pair(rows, b, 'series', 'aux_test_pt')
        if not t or med(t, 'chunks_per_mb') != med(t, 'chunks_per_mb'):
            misses.append('{}: no PT-like result'.format(where(b)))
    return misses


def pt_fresh_chunks(rows, big):
    misses = []
    for r in pt_rows(rows):
        b = pair(rows, r, 'base', 'aux_test_large')
        if r['state'] == 'fresh' and b and \
           num(r['chunks_per_mb']) > med(b, 'chunks_per_mb') + 1e-9:
            misses.append('{}: {:.2f} > base {:.2f}'.format(
                where(r), num(r['chunks_per_mb']), med(b, 'chunks_per_mb')))
    return misses


def pt_no_stalls(rows, big):
    misses = []
    for r in pt_rows(rows):
        if r['state'] == 'fresh':
            continue
        for k in ('compact_stall', 'allocstall', 'pgscan_direct'):
            if num(r[k]) > 0:
                misses.append('{}: {} {}'.format(where(r), k, r[k]))
    return misses


def pt_partial_chunks(rows, big):
    misses = []
    for r in pt_rows(rows):
        b = pair(rows, r, 'base', 'aux_test_large')
        if r['state'] == 'partial' and b and \
           num(r['chunks_per_mb']) > 4 * med(b, 'chunks_per_mb') + 1e-9:
            misses.append('{}: {:.1f} > 4 x base {:.1f}'.format(
                where(r), num(r['chunks_per_mb']), med(b, 'chunks_per_mb')))
    return misses


def compact_as_base(rows, big):
    misses = []
    for r in rows:
        if r['kernel'] != 'series' or r['pmu'] != 'aux_test_large' or \
           r['state'] != 'fresh':
            continue
        b = pair(rows, r, 'base', 'aux_test_large')
        # arm64_16k runs the series kernel only
        if not select(rows, arch=r['arch'], kernel='base'):
            continue
        if not b or med([r], 'chunks_per_mb') != med(b, 'chunks_per_mb') or \
           med([r], 'compact_stall') != med(b, 'compact_stall'):
            misses.append('{}: {} chunks per MiB, {} stalls (base: {}, {})'.format(
                where(r), r['chunks_per_mb'], r['compact_stall'],
                med(b, 'chunks_per_mb') if b else 'no row',
                med(b, 'compact_stall') if b else 'no row'))
    return misses


def vmap_translations(rows, big):
    misses = []
    for r in rows:
        if r['kernel'] != 'series' or r['pmu'] != 'aux_test_vmap':
            continue
        o = pair(rows, r, 'series', 'aux_test')
        b = pair(rows, r, 'base', 'aux_test_large')
        t = num(r['translations_per_mb'])
        # -1: not counted (a PMU that does not vmap())
        ref = [v for v in (med(x, 'translations_per_mb') for x in (o, b) if x)
               if v >= 0]
        if t == t and any(t > x + 1e-9 for x in ref):
            misses.append('{} {}: {:.1f} translations per MiB > order-0 or base {}'.format(
                where(r), r['pmu'], t, ref))
    return misses


def no_new_failures(rows, big):
    misses = []
    for r in rows:
        if r['kernel'] != 'series' or num(r['failed']) <= 0:
            continue
        b = pair(rows, r, 'base', {'aux_test_pt': 'aux_test_large',
                                   'aux_test_vmap': 'aux_test'}.get(r['pmu'], r['pmu']))
        if not b or num(r['failed']) > med(b, 'failed'):
            misses.append('{} {}: {} failed (base: {})'.format(
                where(r), r['pmu'], r['failed'], med(b, 'failed') if b else 'no row'))
    return misses


def no_oom_kill(rows, big):
    return ['{} {} {}'.format(where(r), r['kernel'], r['pmu'])
            for r in rows if num(r['oom_kill']) > 0]


def big_succeeds(rows, big):
    misses = []
    for h in rows:
        # every series PMU but those that compact by design (NO_SG's,
        # and "compact", Intel PT's without its patch) that ran in the
        # fragmented state on an arch with the big cell
        if not h['headline'] or h['kernel'] != 'series' or \
           h['state'] != 'fragmented' or h['pmu'] in COMPACTING or \
           not select(rows, arch=h['arch'], big=True):
            continue
        rs = select(rows, arch=h['arch'], kernel='series', pmu=h['pmu'], big=True)
        if not rs:
            misses.append('{} {}: no result'.format(h['arch'], h['pmu']))
        for r in rs:
            if num(r['failed']) > 0 or num(r['compact_stall']) > 0:
                misses.append('{} {}: failed {}, compaction stalls {}'.format(
                    where(r), r['pmu'], r['failed'], r['compact_stall']))
    return misses


def big_wakes_no_more(rows, big):
    misses = []
    for r in rows:
        if not r['big'] or r['kernel'] != 'series' or r['pmu'] == 'aux_test_large':
            continue
        o = select(rows, arch=r['arch'], kernel='series', pmu='aux_test', big=True)
        for k in ('pageoutrun', 'compact_daemon_wake'):
            if o and num(r[k]) > med(o, k):
                misses.append('{} {}: {} {} (order-0: {})'.format(
                    where(r), r['pmu'], k, r[k], med(o, k)))
    return misses


def big_page_array(rows, big):
    # The page array of a 64 MiB buffer (128 KiB of pointers): the base's
    # kcalloc() may compact and wake kswapd and kcompactd for it; the
    # series' wakes no one for a block
    misses = []
    for r in select(rows, kernel='series', pmu='aux_test', big=True):
        b = select(rows, arch=r['arch'], kernel='base', pmu='aux_test', big=True)
        for k in ('compact_stall', 'pageoutrun', 'compact_daemon_wake'):
            if num(r[k]) > 0 and (not b or num(r[k]) > med(b, k)):
                misses.append('{}: {} {} (base: {})'.format(
                    where(r), k, r[k], med(b, k) if b else 'no row'))
    return misses


def states_hold(rows, big):
    # A policy that compacts makes 2 MiB blocks for its own later cells
    return ['{} {} {}: {} KiB'.format(where(r), r['kernel'], r['pmu'],
                                      r['free_kb_2m_before'])
            for r in rows if r['state'] != 'fresh' and
            r['pmu'] not in COMPACTING and
            num(r.get('free_kb_2m_before')) > 0]


GOALS = [
    ('PT-like: a result for every cell of the base PREFER_LARGE',
     pt_result_everywhere, False),
    ('PT-like, fresh: chunks per MiB no more than the base PREFER_LARGE',
     pt_fresh_chunks, False),
    ('PT-like, partial and fragmented: 0 compaction stalls, 0 reclaim',
     pt_no_stalls, False),
    ('PT-like, partial: at most 4 times the base\'s chunks per MiB',
     pt_partial_chunks, False),
    ('PT without its patch (series "compact"), fresh: the base\'s chunks and '
     'stalls at every size and mode', compact_as_base, False),
    ('vmap() users (SPE/TRBE-like): no more translations per MiB than order-0 '
     'or the base at any size', vmap_translations, False),
    ('no mmap() fails that the base\'s same policy did not fail',
     no_new_failures, False),
    ('no OOM kill', no_oom_kill, False),
    ('{big} per CPU, fragmented: every mmap() succeeds, 0 compaction stalls '
     '(series, every policy but NO_SG and "compact")', big_succeeds, True),
    ('{big} per CPU, fragmented: no more kswapd runs or kcompactd wakes than '
     'order-0 (series, "large" and order-0 policies: the page arrays '
     'included)', big_wakes_no_more, True),
    ('{big} per CPU, fragmented, order-0: 0 compaction stalls, kswapd runs '
     'and kcompactd wakes, or no more than the base\'s (the page '
     'array)', big_page_array, True),
    ('partial and fragmented: no free 2 MiB block when a cell starts '
     '(but after the policy\'s own compaction: NO_SG, "compact")',
     states_hold, False),
]


def goals(rows, big):
    """The benchmark's goals, each as (PASS or MISS, goal, what missed it)."""
    out = []
    for name, check, needs_big in GOALS:
        if needs_big and not big:
            continue
        misses = check(rows, big)
        out.append(('PASS' if not misses else 'MISS',
                    name.format(big=size_label(big) if big else ''), misses))
    return out
