"""The benchmark's goals, checked on a run's rows.

GOALS is the table: (name, check, needs). A check takes the rows, the
big cell's size (KiB per CPU) and the periodic scenario's rows, and
returns what missed the goal, one string each; the name may say {big},
the big cell's size. A goal whose data the run does not have (needs:
'big', 'psi', 'oracle', 'periodic') misses, saying so.
"""
import math

from .data import COMPACTING, ORACLE_PMUS, med, med_of, num, select, size_label


def pair(rows, r, kernel, pmu):
    """The rows of another policy in r's cell"""
    return select(rows, arch=r['arch'], state=r['state'], size_kb=r['size_kb'],
                  mode=r['mode'], kernel=kernel, pmu=pmu)


def where(r):
    return '{} {} {} {}'.format(r['arch'], r['state'], size_label(r['size_kb']),
                                r['mode'])


def pt_rows(rows):
    return [r for r in rows if r['kernel'] == 'series' and r['pmu'] == 'aux_test_pt']


def pt_result_everywhere(rows, big, periodic):
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


def pt_fresh_chunks(rows, big, periodic):
    misses = []
    for r in pt_rows(rows):
        b = pair(rows, r, 'base', 'aux_test_large')
        if r['state'] == 'fresh' and b and \
           num(r['chunks_per_mb']) > med(b, 'chunks_per_mb') + 1e-9:
            misses.append('{}: {:.2f} > base {:.2f}'.format(
                where(r), num(r['chunks_per_mb']), med(b, 'chunks_per_mb')))
    return misses


def stalls(r, key):
    """compact_stall or allocstall of a cell's mmap() calls (bench.c reads
    them around each), else of the whole cell (runs before 2026-12-07
    03:40, whose cells' reads between the mmap()s could stall too)"""
    v = num(r.get(key + '_mmap'))
    return v if v >= 0 else num(r[key])


def pt_no_stalls(rows, big, periodic):
    misses = []
    for r in pt_rows(rows):
        if r['state'] == 'fresh':
            continue
        for k in ('compact_stall', 'allocstall'):
            if stalls(r, k) > 0:
                misses.append('{}: {} {:.0f}'.format(where(r), k, stalls(r, k)))
    return misses


def pt_partial_chunks(rows, big, periodic):
    misses = []
    for r in pt_rows(rows):
        b = pair(rows, r, 'base', 'aux_test_large')
        if r['state'] == 'partial' and b and \
           num(r['chunks_per_mb']) > 4 * med(b, 'chunks_per_mb') + 1e-9:
            misses.append('{}: {:.1f} > 4 x base {:.1f}'.format(
                where(r), num(r['chunks_per_mb']), med(b, 'chunks_per_mb')))
    return misses


def compact_as_base(rows, big, periodic):
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


def vmap_translations(rows, big, periodic):
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


def no_new_failures(rows, big, periodic):
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


def no_oom_kill(rows, big, periodic):
    # the series' cells, the probes run while their buffers are held
    # included (probe_oom_kill); the base's are reported, not judged:
    # its PREFER_LARGE OOM-killing is the field report's case
    return ['{} {} {}'.format(where(r), r['kernel'], r['pmu'])
            for r in rows if r['kernel'] == 'series' and
            num(r['oom_kill']) + max(num(r.get('probe_oom_kill')), 0) > 0]


def big_succeeds(rows, big, periodic):
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
            if num(r['failed']) > 0 or stalls(r, 'compact_stall') > 0:
                misses.append('{} {}: failed {}, compaction stalls {}'.format(
                    where(r), r['pmu'], r['failed'], r['compact_stall']))
    return misses


def big_wakes_no_more(rows, big, periodic):
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


def big_page_array(rows, big, periodic):
    # The page array of a 64 MiB buffer (128 KiB of pointers): the base's
    # kcalloc() may compact and wake kswapd and kcompactd for it; the
    # series' wakes no one for a block. Its mmap()s' own: the cell's
    # /proc and debugfs reads grow seq_file buffers with kvmalloc(), which
    # wakes kswapd for them (order 3, in a run of 2026-12-07 06:36). A
    # run without the per-mmap() figures: the cell's.
    misses = []
    for r in select(rows, kernel='series', pmu='aux_test', big=True):
        b = select(rows, arch=r['arch'], kernel='base', pmu='aux_test', big=True)
        per_mmap = num(r.get('wakes_mmap')) >= 0
        for k in (('compact_stall', 'wakes_mmap') if per_mmap else
                  ('compact_stall', 'pageoutrun', 'compact_daemon_wake')):
            get = (lambda x: stalls(x, k)) if k == 'compact_stall' else \
                (lambda x: num(x[k]))
            v = get(r)
            base = med_of(get(x) for x in b)
            if v > 0 and not v <= base:
                misses.append('{}: {} {:.0f} (base: {})'.format(
                    where(r), k, v, 'no row' if math.isnan(base) else '{:.0f}'.format(base)))
    return misses


def free_2m_usable(r):
    """free_kb_2m_before less the high-order atomic reserve's blocks,
    which no AUX policy (nor the THP hog) can take (runs before
    2026-12-07 06:00 did not report them)"""
    atomic = num(r.get('free_kb_2m_highatomic_before'))
    return num(r.get('free_kb_2m_before')) - (atomic if atomic > 0 else 0)


def states_hold(rows, big, periodic):
    # A policy that compacts makes 2 MiB blocks for its own later cells
    return ['{} {} {}: {} KiB{}'.format(
                where(r), r['kernel'], r['pmu'], r['free_kb_2m_before'],
                ' ({} in the atomic reserve)'.format(r['free_kb_2m_highatomic_before'])
                if num(r.get('free_kb_2m_highatomic_before')) > 0 else '')
            for r in rows if r['state'] != 'fresh' and
            r['pmu'] not in COMPACTING and free_2m_usable(r) > 0]


def series_cells(rows):
    """The series' rows of the policies meant not to compact or reclaim:
    all but NO_SG and "compact" (Intel PT without its patch)"""
    return [r for r in rows if r['kernel'] == 'series' and r['pmu'] not in COMPACTING]


def psi_no_more(rows, big, periodic):
    # PSI over the mmap()s of a cell, per mmap: no "full" stall, and no
    # more "some" than order-0 in the same cell, within 100 us (a tick of
    # the emulated guest)
    misses = []
    for r in series_cells(rows):
        if r['pmu'] == 'aux_test':
            continue
        full, some = num(r.get('psi_full_mmap_per')), num(r.get('psi_some_mmap_per'))
        o = pair(rows, r, 'series', 'aux_test')
        if full > 0:
            misses.append('{} {}: PSI full {:.0f} us / mmap'.format(where(r), r['pmu'], full))
        if o and some > med(o, 'psi_some_mmap_per') + 100:
            misses.append('{} {}: PSI some {:.0f} us / mmap (order-0: {:.0f})'.format(
                where(r), r['pmu'], some, med(o, 'psi_some_mmap_per')))
    return misses


def background_no_more(rows, big, periodic):
    # kswapd and kcompactd woken by the AUX mmap()s (data.py's wakes_mmap,
    # from the wakers' stacks): no more than order-0's in the same cell.
    # Forks of the slab probe, which runs in order-0's cells too, wake
    # kswapd for their order-2 stacks: that is what the walk takes from
    # others (md_walk), not what the mmap() woke. A run without the wake
    # trace: kswapd runs and kcompactd wakes, whoever woke them. A row
    # taken when kswapd had given up on the node (16 runs that reclaimed
    # nothing: wakeup_kswapd() then returns before its trace event) is no
    # evidence, and a cell with no other row misses.
    misses = []
    judged = set()
    cells = set()
    for r in series_cells(rows):
        o = pair(rows, r, 'series', 'aux_test')
        if r['pmu'] == 'aux_test' or not o:
            continue
        cell = (where(r), r['pmu'])
        cells.add(cell)
        if num(r.get('kswapd_hopeless_before')) > 0:
            continue
        judged.add(cell)
        keys = (('wakes_mmap',) if num(r.get('wakes_mmap')) >= 0
                else ('pageoutrun', 'compact_daemon_wake'))
        for k in keys:
            if num(r[k]) > med(o, k):
                misses.append('{} {}: {} {:.0f} (order-0: {:.0f})'.format(
                    where(r), r['pmu'], k, num(r[k]), med(o, k)))
    return misses + ['{} {}: kswapd had given up on the node in every repeat'.format(*c)
                     for c in sorted(cells - judged)]


def near_oracle(rows, big, periodic):
    # what the free blocks allowed at the cell's start, by the policy's
    # own rules (data.oracle()); and no stall to get it
    misses = []
    for r in rows:
        if r['kernel'] != 'series' or r['pmu'] not in ORACLE_PMUS or \
           r['state'] == 'fresh':
            continue
        for k in ('chunks_vs_oracle', 'translations_vs_oracle'):
            if num(r.get(k)) > 1.1:
                misses.append('{} {}: {} {:.2f}'.format(where(r), r['pmu'], k, r[k]))
        if stalls(r, 'compact_stall') > 0 or stalls(r, 'allocstall') > 0:
            misses.append('{} {}: {:.0f} compaction stalls, {:.0f} reclaim runs'.format(
                where(r), r['pmu'], stalls(r, 'compact_stall'), stalls(r, 'allocstall')))
    return misses


def periodic_kills(rows, big, periodic):
    # Android's case: the series' "large" (SPE-like) and the TRBE-like
    # opt-in kill no more apps than the base's order-0, on each arch: the
    # killer's kills and the OOM kills that the AUX allocation invoked
    # (data.oom_invokers(); those that perf_mmap()'s ring buffer or page
    # tables invoked, the same in every policy, are in the table)
    misses = []
    for r in periodic:
        if r['kernel'] != 'series' or r['entry'] not in ('aux_test_vmap',
                                                          'aux_test_etm:large'):
            continue
        o = [x for x in periodic if x['arch'] == r['arch'] and
             x['kernel'] == 'base' and x['entry'] == 'aux_test']
        if not o:
            misses.append('{} {}: no base order-0 run'.format(r['arch'], r['entry']))
        elif num(r['kills']) + r['oom_aux'] > num(o[0]['kills']) + o[0]['oom_aux']:
            misses.append('{} {}: {} kills, {} OOM kills by the AUX allocation '
                          '(order-0: {}, {})'.format(
                              r['arch'], r['entry'], r['kills'], r['oom_aux'],
                              o[0]['kills'], o[0]['oom_aux']))
    return misses


GOALS = [
    ('PT-like: a result for every cell of the base PREFER_LARGE',
     pt_result_everywhere, 'base'),
    ('PT-like, fresh: chunks per MiB no more than the base PREFER_LARGE',
     pt_fresh_chunks, 'base'),
    ('PT-like, partial and fragmented: 0 compaction stalls, 0 reclaim runs in its mmap()s',
     pt_no_stalls, None),
    ('PT-like, partial: at most 4 times the base\'s chunks per MiB',
     pt_partial_chunks, 'base'),
    ('PT without its patch (series "compact"), fresh: the base\'s chunks and '
     'stalls at every size and mode', compact_as_base, 'base'),
    ('vmap() users (SPE/TRBE-like): no more translations per MiB than order-0 '
     'or the base at any size', vmap_translations, 'base'),
    ('no mmap() fails that the base\'s same policy did not fail',
     no_new_failures, 'base'),
    ('series: no OOM kill (the base\'s are in the tables)', no_oom_kill, None),
    ('{big} per CPU, fragmented: every mmap() succeeds, 0 compaction stalls '
     '(series, every policy but NO_SG and "compact")', big_succeeds, 'big'),
    ('{big} per CPU, fragmented: no more kswapd runs or kcompactd wakes than '
     'order-0 (series, "large" and order-0 policies: the page arrays '
     'included)', big_wakes_no_more, 'big'),
    ('{big} per CPU, fragmented, order-0: its mmap()s take no compaction '
     'stall and wake no kswapd or kcompactd, or no more than the base\'s '
     '(the page array)', big_page_array, 'big'),
    ('partial and fragmented: no free 2 MiB block when a cell starts '
     '(but the high-order atomic reserve\'s, and after the policy\'s own '
     'compaction: NO_SG, "compact")',
     states_hold, None),
    ('series, every policy but NO_SG and "compact": no PSI full stall and no '
     'more PSI some per mmap() than order-0 (+100 us) in every cell',
     psi_no_more, 'psi'),
    ('series, every policy but NO_SG and "compact": its AUX mmap()s wake '
     'kswapd and kcompactd no more often than order-0\'s in every cell (the '
     'wakes whose stack has perf_mmap(), and kcompactd woken by kswapd '
     'then)', background_no_more, None),
    ('PT-like and vmap(), partial and fragmented: within 1.1 times the '
     'oracle\'s chunks and translations, with 0 stalls', near_oracle, 'oracle'),
    ('periodic collection: the series\' "large" and the TRBE-like opt-in kill '
     'no more apps than order-0 (the killer\'s, and the OOM killer\'s when '
     'the AUX allocation invoked it)', periodic_kills, 'periodic'),
]


def has(rows, periodic, needs):
    """Whether the run has the data a goal needs"""
    if needs == 'psi':
        return any(num(r.get('psi_some_mmap_per')) >= 0 for r in rows)
    if needs == 'oracle':
        return any(num(r.get('chunks_oracle')) > 0 for r in rows)
    if needs == 'periodic':
        return bool(periodic)
    if needs == 'base':
        return any(r['kernel'] == 'base' for r in rows)
    return True


def goals(rows, big, periodic=()):
    """The benchmark's goals, each as (PASS or MISS, goal, what missed it)."""
    out = []
    for name, check, needs in GOALS:
        if needs == 'big' and not big:
            continue
        if not has(rows, periodic, needs):
            misses = ['no data: the run has no {} figures'.format(needs)]
        else:
            misses = check(rows, big, periodic)
        out.append(('PASS' if not misses else 'MISS',
                    name.format(big=size_label(big) if big else ''), misses))
    return out
