"""The benchmark's results: the guests' "bench: result" lines as rows
(one dict per line, keyed by its own key=value fields, plus what is
derived from them), and the lookups the goals and the renderers share."""
import math
import os
import re
import statistics
import sys

POLICIES = {
    'aux_test': 'order-0 (default)',
    'aux_test_large': 'PREFER_LARGE, "compact" (Intel PT today)',
    'aux_test_pt': 'PREFER_LARGE, "large" (Intel PT with its patch)',
    'aux_test_vmap': 'vmap(), "large" (SPE, TRBE opting in)',
    'aux_test_nosg': 'NO_SG',
    'aux_test_etm': 'cs_etm-like, TRBE-like sink (default)',
    'aux_test_etm:large': 'cs_etm-like, TRBE-like sink, aux_alloc=2',
    'aux_test_etm:etr': 'cs_etm-like, ETR-like sink',
}
# Short names for the plot
SHORT = {
    'aux_test': 'order-0',
    'aux_test_large': 'PT today',
    'aux_test_pt': 'PT large',
    'aux_test_vmap': 'SPE-like large',
    'aux_test_nosg': 'NO_SG',
    'aux_test_etm': 'TRBE-like',
    'aux_test_etm:large': 'TRBE-like, aux_alloc=2',
    'aux_test_etm:etr': 'ETR-like',
}
STATES = ['fresh', 'partial', 'fragmented', 'pressure']
ARCH_TITLES = {
    'x86_64': 'x86_64, 4 KiB pages',
    'arm64': 'arm64, 4 KiB pages',
    'arm64_16k': 'arm64, 16 KiB pages',
}
# States whose buddyinfo is printed before any AUX run (all but pressure,
# which adds load)
BUDDYINFO = STATES[:-1]


# The PMUs whose policy compacts by design: NO_SG, and PREFER_LARGE's
# "compact" (Intel PT without its patch, and the base's PREFER_LARGE)
COMPACTING = ('aux_test_nosg', 'aux_test_large')

# Intel PT's rows: today (the base), without its patch (the series'
# "compact", which must equal the base) and with it (the series' "large")
PT_ROWS = (('base', 'aux_test_large'), ('series', 'aux_test_large'),
           ('series', 'aux_test_pt'))

# Entries of one ToPA table, as harness/guest/bench.c counts them (its
# TOPA_ENTRIES: Intel PT's TENTS_PER_PAGE less the END entry)
TOPA_ENTRIES = 507


def label(kernel, pmu):
    return '{}: {}'.format(kernel, POLICIES.get(pmu, pmu))


def short(kernel, pmu):
    return '{}: {}'.format(kernel, SHORT.get(pmu, pmu))


def raw_lines(results, name_re, kind):
    """(match of name_re, the line's fields as a dict) for every
    "bench: KIND key=value..." line of the run's raw/ logs whose names
    match name_re, in name order ("bench: KIND word ...", as "bench:
    periodic start ...", is another message). A line whose other words
    are not all key=value (a kernel message printed into it on the
    console) is skipped, and said."""
    raw = os.path.join(results, 'raw')
    prefix = 'bench: {} '.format(kind)
    for name in sorted(os.listdir(raw)):
        m = re.fullmatch(name_re, name)
        if not m:
            continue
        with open(os.path.join(raw, name), errors='replace') as f:
            for line in f:
                kvs = line[len(prefix):].split()
                if not line.startswith(prefix) or not kvs or '=' not in kvs[0]:
                    continue
                if not all('=' in kv for kv in kvs):
                    print(f'bench-report: {name}: skipping a garbled line',
                          file=sys.stderr)
                    continue
                yield m, dict(kv.split('=', 1) for kv in kvs)


def parse(results):
    rows = []
    # ARCH is x86_64, arm64 or arm64_16k (16 KiB pages)
    # ARCH-KERNEL-STATE-PMU.log (recorded runs before 2026-12-07 also
    # have a boot repeat, always 0, before the PMU's index)
    for m, r in raw_lines(results, r'(\w+)-(base|series)-(\w+)-(?:0-)?\d+\.log',
                          'result'):
        arch, kernel, state = m.groups()
        r.setdefault('mode', 'write')
        # repeats: passes in one boot (harness/bench's --repeats)
        r.update(arch=arch, kernel=kernel, state=state,
                 repeat=int(r.get('repeat', 0)),
                 policy=label(kernel, r['pmu']),
                 headline=r['headline'] == '1')
        rows.append(r)
    derive(rows)
    return rows


def derive(rows):
    """The figures computed from each row's own fields, and its ratios to
    the order-0 row (aux_test) of the same arch, kernel, state, repeat,
    size and mode (of the first repeat where order-0 has no more: the
    repeats are for the PMUs whose figures are noisy, harness/bench's
    --repeat-pmus)."""
    def cell_key(r):
        return tuple(r[k] for k in ('arch', 'kernel', 'state', 'repeat',
                                    'size_kb', 'mode'))
    order0 = {}
    for r in rows:
        if r['pmu'] == 'aux_test':
            order0.setdefault(cell_key(r), r)
    for r in rows:
        mb = int(r['cpus']) * int(r['size_kb']) / 1024
        hist = [int(x) for x in r['order_hist'].split(':')]
        bufs = int(r['mmaps']) - int(r['failed'])
        r['chunks_per_mb'] = (sum(hist) / bufs / (mb / int(r['cpus']))
                              if bufs else float('nan'))
        r['max_order'] = max((o for o, n in enumerate(hist) if n), default=-1)
        r['topa_tables'] = num(r.get('topa_tables_per_buf'))
        if r['topa_tables'] < 0:
            r['topa_tables'] = float('nan')
        if num(r.get('tp_allocs')) < 0:  # kernel without the tracepoint
            r['tp_misses'] = float('nan')
        for k in ('some', 'full'):
            v = num(r.get('psi_{}_us'.format(k)))
            r['psi_{}_per_mmap'.format(k)] = (v / int(r['mmaps']) if v >= 0 and
                                              int(r['mmaps']) else float('nan'))
        for k in ('topa_mixed_per_buf', 'topa_walk_avg', 'topa_walk_max'):
            if num(r.get(k)) < 0:
                r[k] = float('nan')
        r['high_order_free_mb_held'] = num(r.get('free_kb_2m_held')) / 1024
        # The floor: the same size faulted in as anonymous memory
        r['lat_p50_floor'] = (float(r['lat_p50_us']) / num(r.get('floor_p50_us'))
                              if num(r.get('floor_p50_us')) > 0 else float('nan'))
        # The THP probe's huge pages, as a share of its region
        huge_kb = num(r.get('thp_fault_alloc')) * num(r.get('thp_kb'))
        r['thp_share'] = (100.0 * huge_kb / num(r['thp_probe_kb'])
                          if huge_kb >= 0 and num(r.get('thp_probe_kb')) > 0
                          else float('nan'))
        key = cell_key(r)
        ref = order0.get(key) or order0.get(key[:3] + (0,) + key[4:])
        for p in ('p50', 'p99'):
            lat = 'lat_{}_us'.format(p)
            r['lat_{}_ratio'.format(p)] = (
                float(r[lat]) / float(ref[lat])
                if ref and float(ref[lat]) > 0 else float('nan'))
        # PSI over the mmap() calls only, per mmap() (-1 or absent: none)
        for k in ('some', 'full'):
            v = num(r.get('psi_{}_mmap_us'.format(k)))
            r['psi_{}_mmap_per'.format(k)] = (v / int(r['mmaps']) if v >= 0 and
                                              int(r['mmaps']) else float('nan'))
        for k in ('free_blocks_before', 'free_blocks_held'):
            r[k + '_list'] = ([int(x) for x in r[k].split(':')] if r.get(k)
                              else [])
        for k in ('slab_fallbacks', 'slab_probe_failed'):
            if num(r.get(k)) < 0:
                r[k] = float('nan')
        # kswapd and kcompactd woken by the AUX mmap()s themselves (their
        # stacks have perf_mmap()), with kcompactd woken by kswapd when
        # the mmap()s woke kswapd; nan for a line without the wake trace
        ks, kc = num(r.get('kswapd_wakes_mmap')), num(r.get('kcompactd_wakes_mmap'))
        r['wakes_mmap'] = (ks + kc + (num(r['kcompactd_wakes_kswapd']) if ks > 0 else 0)
                           if ks >= 0 and kc >= 0 else float('nan'))
        # the oracle's chunks and translations of a buffer, per MiB
        chunks, transl = oracle_of(r)
        r['chunks_oracle'] = chunks / (mb / int(r['cpus']))
        r['translations_oracle'] = transl / (mb / int(r['cpus']))
        r['chunks_vs_oracle'] = (r['chunks_per_mb'] / r['chunks_oracle']
                                 if r['chunks_oracle'] > 0 else float('nan'))
        r['translations_vs_oracle'] = (
            num(r.get('translations_per_mb')) / r['translations_oracle']
            if r['translations_oracle'] > 0 and num(r.get('translations_per_mb')) >= 0
            else float('nan'))


# The orders the policies of the oracle take (rb_alloc_aux(),
# rb_aux_next_order()): Intel PT's "large" walk, and a vmap() PMU's
ORACLE_PMUS = ('aux_test_pt', 'aux_test_vmap')
COSTLY_ORDER = 3	# PAGE_ALLOC_COSTLY_ORDER


def oracle(free, nbufs, pages, max_order, vmap_orders=None):
    """The fewest chunks (and translations) in which NBUFS buffers of PAGES
    pages each can be made from the free blocks FREE (count per order)
    without compaction, by the policy's own rules: each chunk the largest
    order up to MAX_ORDER and the pages left whose block is free (the
    smallest such block, split, as the buddy allocator does), with
    VMAP_ORDERS (pmd, cont) only those orders and single pages, and
    without them no order of COSTLY_ORDER or less once a larger one was
    not free (the "large" walk leaves those blocks to slab). Returns
    (chunks, translations), translations counted for VMAP_ORDERS only;
    (nan, nan) when the free blocks do not hold the buffers."""
    free = list(free) + [0] * 2
    chunks = transl = 0
    pmd, cont = vmap_orders or (0, 0)

    def have(o):
        return any(free[k] for k in range(o, len(free)))

    def mapping(o):
        if pmd and o >= pmd:
            return 1 << (o - pmd)
        if cont and o >= cont:
            return 1 << (o - cont)
        return 1 << o

    for _ in range(nbufs):
        left, missed = pages, False
        while left:
            cap = min(max_order, left.bit_length() - 1)
            if vmap_orders:
                want = [o for o in (pmd, cont) if 0 < o <= cap]
            else:
                want = [o for o in range(cap, 0, -1)
                        if not (missed and o <= COSTLY_ORDER)]
            order = next((o for o in want if have(o)), 0)
            if not vmap_orders and want and order != want[0]:
                missed = True
                if order <= COSTLY_ORDER:
                    order = 0
            if not have(order):
                return float('nan'), float('nan')
            k = min(k for k in range(order, len(free)) if free[k])
            free[k] -= 1
            for j in range(order, k):
                free[j] += 1
            chunks += 1
            transl += mapping(order)
            left -= 1 << order
    return chunks, transl if vmap_orders else float('nan')


def oracle_of(r):
    """The oracle of a row of ORACLE_PMUS: chunks and translations per
    buffer (a cycle maps one buffer per CPU), else nan. Each cycle's
    chunks against what was free as that cycle started (cycle_free_blocks:
    the pages a cycle frees wait on the per-CPU lists, outside the buddy's
    blocks, when the next one starts), averaged over the cycles; the
    translations, read in the last cycle, against that cycle's. A line
    without the per-cycle figures (before 2026-12-07): every cycle against
    the cell's start."""
    if r['pmu'] not in ORACLE_PMUS or not r['free_blocks_before_list']:
        return float('nan'), float('nan')
    pages = int(r['size_kb']) // int(r['page_kb'])
    # writable: chunks of at most the watermark, half the buffer
    # (get_order()); snapshot: ilog2() of the buffer
    max_order = ((pages // 2 - 1).bit_length() if r['mode'] == 'write'
                 else pages.bit_length() - 1)
    vmap = None
    if r['pmu'] == 'aux_test_vmap':
        pmd, cont = int(r.get('vmap_pmd_order', -1)), int(r.get('vmap_cont_order', -1))
        if pmd < 0:
            return float('nan'), float('nan')
        vmap = (pmd, cont)
        max_order = min(max_order, max(pmd, cont))
    bufs = int(r['cpus'])
    frees = ([[int(x) for x in c.split(':')]
              for c in r['cycle_free_blocks'].split('/')]
             if r.get('cycle_free_blocks') else [r['free_blocks_before_list']])
    per = [oracle(free, bufs, pages, max_order, vmap) for free in frees]
    chunks = [c for c, _ in per]
    if any(math.isnan(c) for c in chunks):
        return float('nan'), float('nan')
    return sum(chunks) / len(chunks) / bufs, per[-1][1] / bufs


# The functions of the AUX allocation (rb_alloc_aux() and what it calls
# for the buffer and its page array) in an OOM report's call trace
AUX_ALLOC_FRAMES = ('rb_alloc_aux', 'rb_alloc_aux_page', 'perf_aux_alloc_array')


def oom_invokers(path):
    """The OOM kills of a guest's console, by what invoked them: (kills
    whose call trace has the AUX allocation, others, the others' first
    frame below the page allocator)"""
    aux, other, callers, trace = 0, 0, [], None
    with open(path, errors='replace') as f:
        for line in f:
            if 'invoked oom-killer' in line:
                trace = []
                continue
            if trace is None:
                continue
            m = re.search(r'\s([A-Za-z_][\w.]*)\+0x', line)
            if m and 'Call trace' not in line:
                trace.append(m.group(1).split('.')[0])
            if 'Mem-Info' in line or 'Tasks state' in line:
                if any(fn in AUX_ALLOC_FRAMES for fn in trace):
                    aux += 1
                else:
                    other += 1
                    below = [fn for fn in trace if not re.match(
                        r'(show_stack|dump_|oom_|out_of_memory|__alloc|alloc_pages|'
                        r'__folio_alloc|folio_alloc)', fn)]
                    callers.append(below[0] if below else '?')
                trace = None
    return aux, other, callers


def parse_periodic(results):
    """The periodic scenario's lines: raw/periodic-ARCH-KERNEL-ENTRY.log,
    with the OOM kills by what invoked them (oom_aux, oom_other,
    oom_callers)"""
    out = []
    for m, r in raw_lines(results, r'periodic-(\w+)-(base|series)-.*\.log',
                          'periodic'):
        r.update(arch=m.group(1), kernel=m.group(2))
        aux, other, callers = oom_invokers(os.path.join(results, 'raw', m.group(0)))
        r.update(oom_aux=aux, oom_other=other, oom_callers=','.join(callers) or '-')
        out.append(r)
    return out


def read_run_info(results):
    """run.txt of a run, as a dict (harness/bench writes "key: value")"""
    info = {}
    path = os.path.join(results, 'run.txt')
    if os.path.exists(path):
        with open(path) as f:
            for line in f:
                k, _, v = line.partition(':')
                info[k.strip()] = v.strip()
    return info


def run_params(run_info, rows):
    """From run.txt's "big_kb" and "grid" (harness/bench writes them): the
    big cell's size in KiB per CPU (None: not run), and the size grid's
    policies, base and series, in the order of the tables."""
    big = int(run_info['big_kb']) if run_info.get('big_kb') else None
    pmus = run_info.get('grid', '').split()
    grid = [(k, p) for k in ('base', 'series') for p in pmus
            if any(r['kernel'] == k and r['pmu'] == p for r in rows)]
    return big, grid


def mark_big(rows, big):
    """Mark the rows of the big cell (r['big'])"""
    for r in rows:
        r['big'] = bool(big and r['state'] == 'fragmented' and
                        int(r['size_kb']) == big and not r['headline'])


def num(v):
    try:
        return float(v)
    except (TypeError, ValueError):
        return float('nan')


def finite(values):
    """The values that are numbers (NaN dropped)."""
    return [v for v in values if v == v]


def policies_of(rows):
    order = []
    for kernel in ('base', 'series'):
        for pmu in sorted({r['pmu'] for r in rows if r['kernel'] == kernel},
                          key=lambda p: (p not in POLICIES, p)):
            order.append((kernel, pmu))
    return order


def buddyinfo(results, arch, state):
    """The buddyinfo lines before the first PMU's run of one boot."""
    path = os.path.join(results, 'raw', '{}-series-{}-0.log'.format(arch, state))
    if not os.path.exists(path):	# a run recorded before 2026-12-07
        path = os.path.join(results, 'raw', '{}-series-{}-0-0.log'.format(arch, state))
    if not os.path.exists(path):
        return []
    out, frag, first = [], [], None
    with open(path, errors='replace') as f:
        for line in f:
            if line.startswith('bench: fragmenter') and not frag:
                frag.append(line.split(' ', 1)[1].strip())
            m = re.match(r'bench: buddyinfo (\S+) (Node.*)', line)
            if m:
                first = first or m.group(1)
                if m.group(1) == first:
                    out.append(m.group(2).rstrip())
                elif out:
                    break
    return frag + out


def size_label(kb):
    kb = int(kb)
    return '{} MiB'.format(kb // 1024) if kb >= 1024 else '{} KiB'.format(kb)


def select(rows, **kw):
    return [r for r in rows if all(r[k] == v for k, v in kw.items())]


def med_of(vals):
    """The median of the finite values, NaN if there are none."""
    vals = finite(vals)
    return statistics.median(vals) if vals else float('nan')


def med(rows, key):
    return med_of(num(r.get(key)) for r in rows)


def size_cells(rows, arch):
    """Rows of the size grid: every cell but the big one."""
    return [r for r in rows if r['arch'] == arch and not r['big']]


def pt_cells(rows, arch):
    """The Intel PT comparison's cells: (state, size in KiB, mode) of every
    cell of the series' PT-like PMU but the big one, in table order."""
    return [(STATES[si], kb, mode) for si, kb, mode in sorted(
        {(STATES.index(r['state']), int(r['size_kb']), r['mode'])
         for r in size_cells(rows, arch) if r['kernel'] == 'series' and
         r['pmu'] == 'aux_test_pt'})]


def pt_pair(rows, arch, state, kb, mode):
    """PT_ROWS' rows of one cell."""
    return tuple(select(rows, arch=arch, state=state, kernel=kernel, pmu=pmu,
                        size_kb=str(kb), mode=mode)
                 for kernel, pmu in PT_ROWS)


def stalls(rs):
    """Direct compaction stalls + direct reclaim runs (medians)."""
    return med(rs, 'compact_stall') + med(rs, 'allocstall')
