"""The benchmark's report: results.md, cover.txt (the tables the cover
letters and commit messages quote), results.csv and results.png."""
import csv
import os
import statistics

from .data import (ARCH_TITLES, BUDDYINFO, STATES, TOPA_ENTRIES, buddyinfo,
                   finite, label, med, num, policies_of, pt_cells, pt_pair,
                   select, short, size_cells, size_label, stalls)
from .goals import goals, where

# Summary columns: (key, header, format)
COLUMNS = [
    ('compact_stall', 'compact stalls', '{:.0f}'),
    ('compact_fail', 'compact fails', '{:.0f}'),
    ('allocstall', 'alloc stalls', '{:.0f}'),
    ('pgscan_direct', 'direct reclaim scans', '{:.0f}'),
    ('oom_kill', 'OOM kills', '{:.0f}'),
    ('failed', 'failed mmaps', '{:.0f}'),
    ('lat_p50_ratio', 'mmap p50 / order-0', '{:.2f}'),
    ('lat_p99_ratio', 'mmap p99 / order-0', '{:.2f}'),
    ('lat_p50_floor', 'mmap p50 / floor', '{:.2f}'),
    ('thp_share', 'THP share of 64 MiB, held (%)', '{:.0f}'),
    ('free_kb_costly_held', 'free KiB in 8-32 KiB blocks, held', '{:.0f}'),
    ('pageoutrun', 'kswapd runs', '{:.0f}'),
    ('compact_daemon_wake', 'kcompactd wakes', '{:.0f}'),
    ('psi_some_mmap_per', 'PSI some us / mmap', '{:.0f}'),
    ('psi_full_mmap_per', 'PSI full us / mmap', '{:.0f}'),
    ('chunks_per_mb', 'chunks per MiB', '{:.1f}'),
    ('translations_per_mb', 'translations per MiB', '{:.1f}'),
    ('high_order_free_mb_held', 'free MiB in >=2 MiB blocks, held', '{:.0f}'),
    ('extfrag', 'extfrag events', '{:.0f}'),
    ('unmovable_blocks_delta', 'unmovable pageblocks +', '{:.0f}'),
    ('tp_misses', 'aux_alloc misses (tracepoint)', '{:.0f}'),
]

# Per-size tables: (key, title, format)
SIZE_TABLES = [
    ('chunks_per_mb', 'chunks per MiB', '{:.1f}'),
    ('compact_stall', 'direct compaction stalls', '{:.0f}'),
    ('allocstall', 'direct reclaim runs (allocstall)', '{:.0f}'),
    ('translations_per_mb', 'translations per MiB of the vmap()', '{:.1f}'),
    ('lat_p50_ratio', 'mmap p50 / order-0', '{:.2f}'),
]


def cell(values, fmt):
    vals = finite(values)
    if not vals:
        return 'n/a'
    med = fmt.format(statistics.median(vals))
    lo, hi = fmt.format(min(vals)), fmt.format(max(vals))
    return med if lo == hi else '{} [{}-{}]'.format(med, lo, hi)


def fmt(v, f='{:.1f}'):
    return 'n/a' if v != v else f.format(v)


def short_num(v):
    """Chunks and translations per MiB: 0.5, 14.1, 256."""
    return fmt(v, '{:.0f}' if v >= 100 else '{:.1f}')


def heading(arch, what):
    """A section's heading: ## ARCH TITLE: WHAT, and its blank line"""
    return ['## {}: {}'.format(ARCH_TITLES.get(arch, arch), what), '']


def md_sizes(rows, arch, grid):
    lines = []
    sel = size_cells(rows, arch)
    sizes = sorted({int(r['size_kb']) for r in sel if not r['headline']})
    if not sizes:
        return lines
    sizes = sorted(set(sizes) | {int(r['size_kb']) for r in sel if r['headline']})
    lines += heading(arch, 'by buffer size') + [
              'Per CPU; "write": writable, the default watermark; "snapshot": '
              'mapped read-only (overwrite mode). The 4 MiB writable cells are '
              'the headline runs ({} cycles), the others {} cycles.'.format(
                  next((r['cycles'] for r in sel if r['headline']), '?'),
                  next((r['cycles'] for r in sel if not r['headline']), '?')), '']
    for key, title, f in SIZE_TABLES:
        lines += ['{}, {}:'.format(ARCH_TITLES.get(arch, arch), title), '',
                  '| state | mode | policy | ' +
                  ' | '.join(size_label(k) for k in sizes) + ' |',
                  '|---' * (len(sizes) + 3) + '|']
        for state in [s for s in STATES if select(sel, state=s)]:
            for mode in ('write', 'snapshot'):
                for kernel, pmu in grid:
                    cells = [cell([num(r.get(key)) for r in
                                   select(sel, state=state, mode=mode, kernel=kernel,
                                          pmu=pmu, size_kb=str(k))], f)
                             for k in sizes]
                    if all(c == 'n/a' for c in cells):
                        continue
                    lines.append('| {} | {} | {} | '.format(state, mode, label(kernel, pmu)) +
                                 ' | '.join(cells) + ' |')
        lines.append('')
    return lines


def md_pt(rows, arch):
    """Intel PT: today, without its patch and with it."""
    cells = pt_cells(rows, arch)
    if not cells:
        return []
    lines = heading(arch, 'Intel PT') + [
             'today: `aux_test_large` of the base kernel (PREFER_LARGE as Intel PT '
             'has it); without: the series\' `aux_test_large` ("compact", Intel PT '
             'without "perf/x86/intel/pt: Take large AUX chunks only when they are '
             'free"); with: `aux_test_pt` ("large", PT with that patch). Chunks per '
             'MiB are ToPA entries per MiB; ToPA tables: entries / {} rounded up, '
             'mixed: those whose entries are not all one size; walk: the table '
             'hops and entries a page lookup walks in pt_topa_entry_for_page(), '
             'on average over the pages (the most in parentheses). Stalls: direct '
             'compaction stalls + direct reclaim runs; kswapd: its runs; free '
             '8-32 KiB: KiB free in blocks of order 1 to 3 while the first buffers '
             'are held.'.format(TOPA_ENTRIES), '',
             '| state | size | mode | policy | chunks/MiB | ToPA tables | mixed '
             '| walk | stalls | kswapd | free 8-32 KiB | THP % | p50 / order-0 | failed |',
             '|---' * 14 + '|']
    names = ('today', 'without', 'with')
    for state, kb, mode in cells:
        for name, rs in zip(names, pt_pair(rows, arch, state, kb, mode)):
            if not rs:
                continue
            lines.append('| {} | {} | {} | {} | {} | {} | {} | {} ({}) | {} | {} | {} | {} | {} | {} |'.format(
                state, size_label(kb), mode, name, fmt(med(rs, 'chunks_per_mb')),
                fmt(med(rs, 'topa_tables'), '{:.2f}'),
                fmt(med(rs, 'topa_mixed_per_buf'), '{:.2f}'),
                fmt(med(rs, 'topa_walk_avg'), '{:.1f}'),
                fmt(med(rs, 'topa_walk_max'), '{:.0f}'),
                fmt(stalls(rs), '{:.0f}'), fmt(med(rs, 'pageoutrun'), '{:.0f}'),
                fmt(med(rs, 'free_kb_costly_held'), '{:.0f}'),
                fmt(med(rs, 'thp_share'), '{:.0f}'),
                fmt(med(rs, 'lat_p50_ratio'), '{:.2f}'), fmt(med(rs, 'failed'), '{:.0f}')))
    return lines + ['']


def md_big(rows, arch, big):
    sel = [r for r in rows if r['arch'] == arch and r['big']]
    if not sel:
        return []
    lines = heading(arch, '{} per CPU on fragmented memory'.format(size_label(big))) + [
        'The page array of such a buffer is larger than a page, and the '
        'drivers\' arrays too.', '',
        '| policy | mmaps | failed | errno | compact stalls | alloc stalls '
        '| OOM kills | chunks per MiB | kswapd runs | kswapd scans '
        '| kcompactd wakes | PSI some us / mmap |', '|---' * 12 + '|']
    for kernel, pmu in policies_of(sel):
        rs = select(sel, kernel=kernel, pmu=pmu)
        lines.append('| {} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {} |'.format(
            label(kernel, pmu), fmt(med(rs, 'mmaps'), '{:.0f}'),
            fmt(med(rs, 'failed'), '{:.0f}'),
            ','.join(sorted({r['errno'] for r in rs})),
            fmt(med(rs, 'compact_stall'), '{:.0f}'), fmt(med(rs, 'allocstall'), '{:.0f}'),
            fmt(med(rs, 'oom_kill'), '{:.0f}'), fmt(med(rs, 'chunks_per_mb')),
            fmt(med(rs, 'pageoutrun'), '{:.0f}'), fmt(med(rs, 'pgscan_kswapd'), '{:.0f}'),
            fmt(med(rs, 'compact_daemon_wake'), '{:.0f}'),
            fmt(med(rs, 'psi_some_per_mmap'), '{:.0f}')))
    return lines + ['']


# The background work a cell woke: (key, header)
BACKGROUND = [
    ('pageoutrun', 'kswapd runs'), ('pgscan_kswapd', 'kswapd scans'),
    ('pgsteal_kswapd', 'kswapd reclaimed'),
    ('kswapd_low_wmark_hit_quickly', 'kswapd low wmark quick'),
    ('kswapd_high_wmark_hit_quickly', 'kswapd high wmark quick'),
    ('compact_daemon_wake', 'kcompactd wakes'),
    ('compact_daemon_migrate_scanned', 'kcompactd migrate scanned'),
    ('compact_daemon_free_scanned', 'kcompactd free scanned'),
    ('kswapd_wakes', 'kswapd wakes'), ('kcompactd_wakes', 'kcompactd wakes (traced)'),
    ('wakes_mmap', 'wakes by the mmap()s'),
    ('kswapd_hopeless_before', 'kswapd had given up'),
]


def md_background(rows, arch):
    """What each policy's allocations woke, 4 MiB and the big cell"""
    sel = [r for r in rows if r['arch'] == arch and (r['headline'] or r['big'])]
    if not sel:
        return []
    lines = heading(arch, 'background work woken') + [
             'kswapd and kcompactd work during the cell (all its cycles), '
             'median [min-max] over repeats: what the allocations woke, '
             'besides the stalls they took themselves. The traced wakes '
             '(vmscan:mm_vmscan_wakeup_kswapd, '
             'compaction:mm_compaction_wakeup_kcompactd) are every waker\'s; '
             '"by the mmap()s": those whose stack has perf_mmap(), and '
             'kcompactd woken by kswapd then. The probes of the walk '
             'table run in order-0\'s cells too. "kswapd had given up": 1 '
             'when kswapd had given up on the node as the repeat began (16 kswapd '
             'runs that reclaimed nothing): then no allocation wakes '
             'kswapd.', '',
             '| state | size | policy | ' + ' | '.join(h for _, h in BACKGROUND) + ' |',
             '|---' * (len(BACKGROUND) + 3) + '|']
    for state in [s for s in STATES if select(sel, state=s)]:
        for kb in sorted({int(r['size_kb']) for r in select(sel, state=state)}):
            cs = select(sel, state=state, size_kb=str(kb))
            for kernel, pmu in policies_of(cs):
                rs = select(cs, kernel=kernel, pmu=pmu)
                lines.append('| {} | {} | {} | '.format(state, size_label(kb),
                                                       label(kernel, pmu)) +
                             ' | '.join(cell([num(r.get(k)) for r in rs], '{:.0f}')
                                        for k, _ in BACKGROUND) + ' |')
    return lines + ['']


def nonneg(v):
    """A figure the guest prints as -1 when it has none: nan then"""
    v = num(v)
    return v if v >= 0 else float('nan')


def free_groups(blocks, page_kb):
    """Free KiB in blocks of orders 1-3, 4-8 and 9 and more"""
    def kib(lo, hi):
        return sum(n << o for o, n in enumerate(blocks) if lo <= o <= hi) * page_kb
    return kib(1, 3), kib(4, 8), kib(9, 99)


def md_walk(rows, arch):
    """What the large-chunk policies take on used memory, and the limit"""
    sel = [r for r in rows if r['arch'] == arch and r.get('walk') == '1']
    if not sel:
        return []
    lines = heading(arch, 'what the large-chunk walk takes') + [
             'Cells of the policies that take large chunks on partial and '
             'fragmented memory, with their first buffers held: the THP '
             'probe\'s share, the slab allocations of the slab probe (forks '
             'and pipes) that fell back to a smaller order, the compaction '
             'stalls + reclaim runs and kswapd runs of the probes\' own '
             'allocations (taken out of the cell\'s other figures), the free '
             'KiB in blocks of order 1-3 / 4-8 / 9+ before the cell and while '
             'held, and chunks and translations per MiB against the oracle '
             '(the fewest the free blocks at the cell\'s start allowed by the '
             'policy\'s own rules).', '',
             '| state | size | mode | policy | THP % | slab fallbacks | probe stalls '
             '| probe kswapd | free before '
             '| free held | chunks/MiB | oracle | ratio | transl./MiB | oracle | ratio |',
             '|---' * 16 + '|']
    for r in sorted(sel, key=lambda r: (STATES.index(r['state']), int(r['size_kb']),
                                        r['mode'], r['kernel'], r['pmu'])):
        pk = int(r['page_kb'])
        lines.append('| {} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {} |'.format(
            r['state'], size_label(r['size_kb']), r['mode'], label(r['kernel'], r['pmu']),
            fmt(num(r.get('thp_share')), '{:.0f}'), fmt(num(r.get('slab_fallbacks')), '{:.0f}'),
            fmt(num(r.get('probe_compact_stall')) + num(r.get('probe_allocstall')), '{:.0f}'),
            fmt(num(r.get('probe_pageoutrun')), '{:.0f}'),
            '/'.join(str(x) for x in free_groups(r['free_blocks_before_list'], pk)),
            '/'.join(str(x) for x in free_groups(r['free_blocks_held_list'], pk)),
            fmt(r['chunks_per_mb']), fmt(r['chunks_oracle']),
            fmt(r['chunks_vs_oracle'], '{:.2f}'),
            fmt(nonneg(r.get('translations_per_mb'))), fmt(r['translations_oracle']),
            fmt(r['translations_vs_oracle'], '{:.2f}')))
    return lines + ['']


# The periodic scenario's policies, in the table's order
PERIODIC = [('base', 'aux_test', 'order-0 (base)'),
            ('base', 'aux_test_large', 'PREFER_LARGE (base)'),
            ('series', 'aux_test_vmap', 'large, vmap() (series)'),
            ('series', 'aux_test_etm:large', 'TRBE-like, opted in (series)'),
            ('series', 'aux_test_etm:etr', 'ETR-like (series)')]


def md_periodic(periodic):
    if not periodic:
        return []
    lines = ['## Periodic collection under pressure (Android\'s case)', '',
             'Apps fill memory to just above the low watermarks and the '
             'buffers; a killer acts as lmkd on a PSI trigger (some 70 ms in '
             '1 s) and kills the largest app; every 2 s a 4 MiB per CPU buffer '
             'is mapped, held 0.5 s and unmapped, and killed apps start '
             'again. Per policy, one boot each. OOM kills: all of them, and '
             '"by AUX" those whose call trace has the AUX allocation; the '
             'others\' invokers, as the console\'s OOM reports name them.', '',
             '| arch | policy | collections | kills | OOM kills | by AUX | invoked by | failed mmaps '
             '| PSI some ms | PSI full ms | collection p50 ms | max ms '
             '| compaction stalls | reclaim runs | kswapd runs |',
             '|---' * 15 + '|']
    for arch in sorted({r['arch'] for r in periodic}):
        for kernel, entry, name in PERIODIC:
            for r in [x for x in periodic if x['arch'] == arch and
                      x['kernel'] == kernel and x['entry'] == entry]:
                lines.append('| {} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {} |'.format(
                    arch, name, r['collections'], r['kills'], r['oom_kill'],
                    r['oom_aux'], r['oom_callers'], r['failed'],
                    fmt(num(r['psi_some_us']) / 1000, '{:.0f}'),
                    fmt(num(r['psi_full_us']) / 1000, '{:.0f}'),
                    r['coll_p50_ms'], r['coll_max_ms'], r['compact_stall'],
                    r['allocstall'], r['pageoutrun']))
    return lines + ['']


def md_goals(verdicts):
    lines = ['## Goals', '']
    for verdict, name, misses in verdicts:
        lines.append('- {}: {}'.format(verdict, name))
        lines += ['  - ' + m for m in misses[:12]]
        if len(misses) > 12:
            lines.append('  - ... {} more'.format(len(misses) - 12))
    return lines + ['']


def write_md(results, rows, run_info, big, grid, periodic=()):
    lines = ['# AUX allocation policies: cost and benefit', '']
    lines += ['Command: `{}` (arches: {})'.format(
        run_info.get('command', 'harness/bench'), run_info.get('arches', '')), '']
    for k in ('date', 'base', 'kernel base', 'kernel series', 'sizes'):
        if k in run_info:
            lines.append('- {}: {}'.format(k, run_info[k]))
    lines += [''] + md_goals(goals(rows, big, periodic))
    cut = [r for r in rows if r.get('cut') == '1']
    if cut:
        lines += ['Cells cut short (their mmap()s took more than the guest\'s '
                  'bench.cell_secs; figures per mmap() over the cycles that ran): ' +
                  '; '.join('{} {} {} {} cycles'.format(where(r), r['kernel'], r['pmu'],
                                                       r['cycles']) for r in cut), '']
    lines += ['## The 4 MiB cells', '',
              'Cells: median [min-max] over repeats; counters are deltas '
              'over the whole workload (all cycles, all CPUs); latencies are '
              'ratios to order-0 of the same kernel, state and repeat, and to the '
              'floor (the same size per CPU faulted in as anonymous memory with '
              'MAP_POPULATE in the same guest); the THP share is what a child '
              'faulting in 64 MiB of MADV_HUGEPAGE memory (defrag=never) got as '
              'huge pages (thp_fault_alloc) while the first set of AUX buffers was '
              'held. Each run of a PMU is a freshly booted guest.', '']
    head = [r for r in rows if r['headline']]
    for arch in sorted({r['arch'] for r in rows}):
        for state in [s for s in STATES if any(r['state'] == s for r in head)]:
            sel = [r for r in head if r['arch'] == arch and r['state'] == state]
            if not sel:
                continue
            lines += ['### {}, {}'.format(ARCH_TITLES.get(arch, arch), state), '']
            lines.append('| policy | ' + ' | '.join(c[1] for c in COLUMNS) + ' |')
            lines.append('|---' * (len(COLUMNS) + 1) + '|')
            for kernel, pmu in policies_of(sel):
                rs = [r for r in sel if r['kernel'] == kernel and r['pmu'] == pmu]
                lines.append('| {} | '.format(label(kernel, pmu)) + ' | '.join(
                    cell([num(r.get(c[0])) for r in rs], c[2]) for c in COLUMNS) + ' |')
            lines.append('')
        for state in BUDDYINFO:
            bi = buddyinfo(results, arch, state)
            if bi:
                lines += ['{} /proc/buddyinfo, {} (before the first run):'.format(
                    arch, state), '', '```'] + bi + ['```', '']
    for arch in sorted({r['arch'] for r in rows}):
        lines += md_pt(rows, arch) + md_sizes(rows, arch, grid) + md_big(rows, arch, big)
        lines += md_background(rows, arch) + md_walk(rows, arch)
    lines += md_periodic(periodic)
    with open(os.path.join(results, 'results.md'), 'w') as f:
        f.write('\n'.join(lines))


def write_cover(results, rows, run_info, big, periodic=()):
    """cover.txt: the tables the cover letters and commit messages quote,
    plain text, from this run only."""
    out = ['From harness/bench run of {} ({}; {}).'.format(
        run_info.get('date', '?'), run_info.get('command', 'harness/bench'),
        run_info.get('arches', '')), '']
    head = [r for r in rows if r['headline']]
    # 1. The whole 4 MiB table
    names = [('base', 'aux_test', 'order-0'),
             ('base', 'aux_test_large', 'PT today, base'),
             ('base', 'aux_test_nosg', 'NO_SG, base'),
             ('series', 'aux_test_large', 'PT without patch'),
             ('series', 'aux_test_pt', 'PT with patch'),
             ('series', 'aux_test_vmap', 'SPE/TRBE large'),
             ('series', 'aux_test_nosg', 'NO_SG, series')]
    out += ['4 MiB per CPU, writable, {} cycles:'.format(
        next((r['cycles'] for r in head), '?')), '',
        '                          compaction reclaim  chunks   transl.  THP',
        '                          stalls     runs     per MiB  per MiB  share']
    for arch in [a for a in ARCH_TITLES if any(r['arch'] == a for r in head)]:
        for state in [s for s in STATES if select(head, arch=arch, state=s)]:
            out.append(' {}, {}'.format(ARCH_TITLES[arch].replace(', 4 KiB pages', '')
                                        .replace(', 16 KiB pages', ' 16 KiB pages'), state))
            for kernel, pmu, name in names:
                rs = select(head, arch=arch, state=state, kernel=kernel, pmu=pmu)
                if not rs and kernel == 'base' and pmu == 'aux_test':
                    rs = select(head, arch=arch, state=state, kernel='series', pmu=pmu)
                if not rs:
                    continue
                thp = med(rs, 'thp_share')
                out.append('   {:<22} {:>6} {:>8} {:>9} {:>8} {:>5}'.format(
                    name, fmt(med(rs, 'compact_stall'), '{:.0f}'),
                    fmt(med(rs, 'allocstall'), '{:.0f}'),
                    short_num(med(rs, 'chunks_per_mb')),
                    short_num(med(rs, 'translations_per_mb')),
                    'n/a' if thp != thp else '{:.{}f}%'.format(thp, 0 if thp >= 10 or thp == 0 else 1)))
    out.append('')
    # 2. Intel PT: base PREFER_LARGE and the series' PT-like PMU per size
    pt = {arch: pt_cells(rows, arch) for arch in ARCH_TITLES}
    if any(pt.values()):
        out += ['Intel PT (old: PREFER_LARGE of the base, as PT has it today, and the',
                'series without the PT patch, "compact", in parentheses; new: with the',
                'PT patch, "large"): chunks per MiB = ToPA entries per MiB, ToPA tables',
                'per buffer ({} entries each), mixed tables, the entries a page lookup'.format(
                    TOPA_ENTRIES),
                'walks on average, compaction stalls + reclaim runs:', '',
                '                             chunks/MiB          ToPA tables    mixed     walk        stalls',
                '                             old (without) new   old    new     old new   old   new   old (without) new']
        for arch in [a for a in ARCH_TITLES if pt[a]]:
            last = None
            for state, kb, mode in pt[arch]:
                if state != last:
                    out.append(' {}, {}'.format(arch, state))
                    last = state
                b, w, t = pt_pair(rows, arch, state, kb, mode)
                out.append('   {:>7} {:<9} {:>6} ({:>6}) {:>6} {:>6} {:>6} {:>4} {:>3} {:>5} {:>5} {:>7} ({:>7}) {:>5}'.format(
                    size_label(kb), mode, short_num(med(b, 'chunks_per_mb')),
                    short_num(med(w, 'chunks_per_mb')),
                    short_num(med(t, 'chunks_per_mb')),
                    fmt(med(b, 'topa_tables'), '{:.2f}'), fmt(med(t, 'topa_tables'), '{:.2f}'),
                    fmt(med(b, 'topa_mixed_per_buf'), '{:.1f}'),
                    fmt(med(t, 'topa_mixed_per_buf'), '{:.1f}'),
                    fmt(med(b, 'topa_walk_avg'), '{:.1f}'),
                    fmt(med(t, 'topa_walk_avg'), '{:.1f}'),
                    fmt(stalls(b), '{:.0f}'), fmt(stalls(w), '{:.0f}'),
                    fmt(stalls(t), '{:.0f}')))
        out.append('')
    # 3. The big cell
    cells = [r for r in rows if r['big']]
    if cells:
        out += ['{} per CPU on fragmented memory, writable (failed of mmaps,'.format(
            size_label(big)),
            'compaction stalls, reclaim runs, mmap p50 in ms):', '']
        for arch in [a for a in ARCH_TITLES if any(r['arch'] == a for r in cells)]:
            out.append(' {}'.format(arch))
            for kernel, pmu in policies_of(select(cells, arch=arch)):
                rs = select(cells, arch=arch, kernel=kernel, pmu=pmu)
                out.append('   {:<30} {:>3}/{:<3} {:>6} {:>6} {:>9}'.format(
                    short(kernel, pmu), fmt(med(rs, 'failed'), '{:.0f}'),
                    fmt(med(rs, 'mmaps'), '{:.0f}'), fmt(med(rs, 'compact_stall'), '{:.0f}'),
                    fmt(med(rs, 'allocstall'), '{:.0f}'),
                    fmt(med(rs, 'lat_p50_us') / 1000, '{:.1f}')))
        out.append('')
    # 4. PSI and background work at 4 MiB
    if any(num(r.get('psi_some_mmap_per')) >= 0 for r in head):
        out += ['4 MiB per CPU: PSI memory stall over the mmap()s, us per mmap() (some,',
                'full), kswapd runs and kcompactd wakes:', '']
        for arch in [a for a in ARCH_TITLES if any(r['arch'] == a for r in head)]:
            for state in [s for s in STATES if select(head, arch=arch, state=s)]:
                out.append(' {}, {}'.format(arch, state))
                for kernel, pmu in policies_of(select(head, arch=arch, state=state)):
                    rs = select(head, arch=arch, state=state, kernel=kernel, pmu=pmu)
                    out.append('   {:<30} {:>7} {:>7} {:>5} {:>5}'.format(
                        short(kernel, pmu), fmt(med(rs, 'psi_some_mmap_per'), '{:.0f}'),
                        fmt(med(rs, 'psi_full_mmap_per'), '{:.0f}'),
                        fmt(med(rs, 'pageoutrun'), '{:.0f}'),
                        fmt(med(rs, 'compact_daemon_wake'), '{:.0f}')))
        out.append('')
    # 5. The oracle
    walk = [r for r in rows if r['kernel'] == 'series' and
            num(r.get('chunks_vs_oracle')) > 0]
    if walk:
        out += ['Series / oracle (the fewest chunks and translations the free blocks',
                'at the cell\'s start allowed, by the policy\'s own rules), and',
                'series / base PREFER_LARGE chunks:', '']
        for r in sorted(walk, key=lambda r: (r['arch'], STATES.index(r['state']),
                                             r['pmu'], int(r['size_kb']), r['mode'])):
            b = select(rows, arch=r['arch'], state=r['state'], kernel='base',
                       pmu='aux_test_large', size_kb=r['size_kb'], mode=r['mode'])
            out.append('   {:<9} {:<10} {:<14} {:>7} {:<8} {:>5} {:>5} {:>5}'.format(
                r['arch'], r['state'], r['pmu'], size_label(r['size_kb']), r['mode'],
                fmt(r['chunks_vs_oracle'], '{:.2f}'),
                fmt(r['translations_vs_oracle'], '{:.2f}'),
                fmt(r['chunks_per_mb'] / med(b, 'chunks_per_mb'), '{:.2f}')
                if b and med(b, 'chunks_per_mb') > 0 else 'n/a'))
        out.append('')
    # 6. The periodic scenario
    if periodic:
        out += ['Periodic collection under pressure ({} collections, 4 MiB per CPU;'.format(
            periodic[0]['collections']),
            'apps killed by the PSI killer, OOM kills, failed mmaps, PSI some ms):', '']
        for arch in sorted({r['arch'] for r in periodic}):
            out.append(' {}'.format(arch))
            for kernel, entry, name in PERIODIC:
                for r in [x for x in periodic if x['arch'] == arch and
                          x['kernel'] == kernel and x['entry'] == entry]:
                    out.append('   {:<30} {:>4} {:>4} {:>4} {:>7}'.format(
                        name, r['kills'], r['oom_kill'], r['failed'],
                        fmt(num(r['psi_some_us']) / 1000, '{:.0f}')))
        out.append('')
    with open(os.path.join(results, 'cover.txt'), 'w') as f:
        f.write('\n'.join(out))


def write_csv(results, rows):
    keys = ['arch', 'kernel', 'state', 'repeat', 'pmu', 'policy']
    extra = sorted({k for r in rows for k in r} - set(keys))
    with open(os.path.join(results, 'results.csv'), 'w', newline='') as f:
        w = csv.DictWriter(f, fieldnames=keys + extra)
        w.writeheader()
        for r in rows:
            w.writerow(r)


def plot(results, rows, grid):
    """One row of panels per architecture, five columns: chunks per MiB
    against the buffer size (writable) on fresh and on partial memory, and
    at 4 MiB the compaction stalls, the translations per MiB and the PSI
    "some" stall per mmap() by state.
    Log scales where values span orders of magnitude."""
    import matplotlib
    matplotlib.use('Agg')
    import matplotlib.pyplot as plt

    arches = [a for a in ARCH_TITLES if any(r['arch'] == a for r in rows)]
    fig, axes = plt.subplots(len(arches), 5, squeeze=False,
                             figsize=(21, 3.8 * len(arches)))
    styles = {'base': '--', 'series': '-'}
    # one colour per policy in every panel
    palette = plt.get_cmap('tab10').colors
    colour = {p: palette[k % len(palette)] for k, p in enumerate(policies_of(rows))}
    for i, arch in enumerate(arches):
        sel = size_cells(rows, arch)
        for j, state in enumerate(('fresh', 'partial')):
            ax = axes[i][j]
            drawn, ticks = 0, set()
            for kernel, pmu in policies_of(sel):
                pts = sorted({int(r['size_kb']) for r in
                              select(sel, kernel=kernel, pmu=pmu, state=state,
                                     mode='write')})
                ys = [med(select(sel, kernel=kernel, pmu=pmu, state=state, mode='write',
                                 size_kb=str(k)), 'chunks_per_mb') for k in pts]
                if len(pts) < 2 and (kernel, pmu) not in grid or \
                   not any(y > 0 for y in ys):
                    continue
                drawn += 1
                # base: hollow squares, dashed; series: dots (lines that
                # coincide stay visible)
                ax.plot([k / 1024 for k in pts], ys, styles[kernel],
                        marker='s' if kernel == 'base' else 'o',
                        markersize=9 if kernel == 'base' else 4,
                        markerfacecolor='none' if kernel == 'base' else None,
                        color=colour[(kernel, pmu)], label=short(kernel, pmu))
                ticks |= set(pts)
            ax.set_title('{}, {}: chunks per MiB, writable'.format(
                arch, state), fontsize=10)
            if not drawn:
                ax.text(0.5, 0.5, 'not run', ha='center', transform=ax.transAxes)
                ax.set_axis_off()
                continue
            ax.set_xscale('log', base=2)
            ax.set_yscale('log')
            ax.set_xticks([k / 1024 for k in sorted(ticks)])
            ax.set_xticklabels([size_label(k).replace(' MiB', 'M').replace(' KiB', 'K')
                                for k in sorted(ticks)])
            ax.minorticks_off()
            ax.set_xlabel('AUX buffer per CPU (MiB)')
            ax.set_ylabel('chunks per MiB (log)')
            ax.grid(True, which='both', alpha=0.3)
            ax.legend(fontsize=7)
        head = [r for r in rows if r['arch'] == arch and r['headline']]
        pols = policies_of(head)
        for j, (key, title, log) in enumerate((
                ('compact_stall', 'compaction stalls at 4 MiB', False),
                ('translations_per_mb', 'translations per MiB at 4 MiB', True),
                ('psi_some_mmap_per', 'PSI some us per mmap() at 4 MiB', False))):
            ax = axes[i][j + 2]
            states = [s for s in STATES if any(r['state'] == s for r in head)]
            h = 0.8 / max(len(states), 1)
            for k, state in enumerate(states):
                vals = [med(select(head, kernel=kn, pmu=pm, state=state), key)
                        for kn, pm in pols]
                vals = [v if v == v and (v > 0 or not log) else 0 for v in vals]
                ys = [y + k * h for y in range(len(pols))]
                bars = ax.barh(ys, vals, h, label=state)
                ax.bar_label(bars, labels=[('{:.0f}' if not log or v >= 10 else '{:.1f}')
                                           .format(v) if v else '' for v in vals],
                             fontsize=6, padding=2)
            ax.set_yticks([y + h * (len(states) - 1) / 2 for y in range(len(pols))])
            ax.set_yticklabels([short(*p) for p in pols], fontsize=7)
            ax.invert_yaxis()
            if log and any(b.get_width() > 0 for c in ax.containers for b in c):
                ax.set_xscale('log')
            else:
                ax.set_xscale('symlog', linthresh=1)
            ax.set_title('{}: {}'.format(arch, title), fontsize=10)
            ax.grid(True, axis='x', which='major', alpha=0.3)
            ax.legend(fontsize=7, ncol=len(states), loc='upper center',
                      bbox_to_anchor=(0.5, -0.1), frameon=False)
    fig.tight_layout()
    fig.savefig(os.path.join(results, 'results.png'), dpi=80)
