#!/usr/bin/env python3
"""The mutants of harness/mutants: small edits of the series' own code.

Each mutant replaces one exact piece of text in one file of the final
tree. A mutant that would hang the kernel (a loop that never ends) is not
listed: the suites would only time out.

Each is checked by the KUnit suites ('kunit'), or, where KUnit cannot see
it (sysfs, what user space reads), by the guest's AUX selftests
('guest:ARGS', ARGS the comma-separated kselftest harness filters, such
as -faux_sysfs). QUICK marks the subset the test command runs.

  mutants.py list [--quick]        NAME ARCH KARGS SUITE (one per line)
  mutants.py apply NAME TREE       edit TREE's file (fails if the text moved)
  mutants.py file NAME             the file the mutant edits
"""
import sys

RB = 'kernel/events/ring_buffer.c'
CORE = 'kernel/events/core.c'
CS = 'drivers/hwtracing/coresight/coresight-core.c'
ETM = 'drivers/hwtracing/coresight/coresight-etm-perf.c'
TP = 'include/trace/events/perf.h'
VM = 'mm/vmalloc.c'
ARM64_VM = 'arch/arm64/include/asm/vmalloc.h'
INTERNAL = 'kernel/events/internal.h'
QUICK = (
    'opp-no-zero', 'order0-opportunistic', 'nosg-no-direct-reclaim',
    'pt-as-vmap', 'vmap-no-pmd-cap', 'everyone-privileged', 'tp-no-misses',
    'sysfs-bad-value-ok', 'all-no-zero-guest', 'prefer-large-defaults-large',
    'array-gfp-kernel', 'sysfs-default-loses-driver',
)

# name, file, old text, new text, arch, extra kernel arguments[, suite]
MUTANTS = [
    # GFP bits of the opportunistic high-order attempt
    ('opp-no-zero', RB,
     '((PERF_AUX_GFP | __GFP_NOMEMALLOC) & ~__GFP_RECLAIM)',
     '((PERF_AUX_GFP | __GFP_NOMEMALLOC) & ~(__GFP_RECLAIM | __GFP_ZERO))',
     'x86_64', ''),
    ('opp-direct-reclaim', RB,
     '((PERF_AUX_GFP | __GFP_NOMEMALLOC) & ~__GFP_RECLAIM)',
     '((PERF_AUX_GFP | __GFP_NOMEMALLOC) & ~__GFP_KSWAPD_RECLAIM)',
     'x86_64', ''),
    ('opp-kswapd', RB,
     '((PERF_AUX_GFP | __GFP_NOMEMALLOC) & ~__GFP_RECLAIM)',
     '((PERF_AUX_GFP | __GFP_NOMEMALLOC) & ~__GFP_DIRECT_RECLAIM)',
     'x86_64', ''),
    ('opp-reserves', RB,
     '((PERF_AUX_GFP | __GFP_NOMEMALLOC) & ~__GFP_RECLAIM)',
     '(PERF_AUX_GFP & ~__GFP_RECLAIM)',
     'x86_64', ''),
    ('opp-high', RB,
     '((PERF_AUX_GFP | __GFP_NOMEMALLOC) & ~__GFP_RECLAIM)',
     '((PERF_AUX_GFP | __GFP_NOMEMALLOC | __GFP_HIGH) & ~__GFP_RECLAIM)',
     'x86_64', ''),
    # GFP bits of order-0 and NO_SG attempts
    ('all-no-zero', RB,
     '#define PERF_AUX_GFP\t(GFP_KERNEL | __GFP_ZERO | __GFP_NOWARN | __GFP_NORETRY)',
     '#define PERF_AUX_GFP\t(GFP_KERNEL | __GFP_NOWARN | __GFP_NORETRY)',
     'x86_64', ''),
    ('all-warn', RB,
     '#define PERF_AUX_GFP\t(GFP_KERNEL | __GFP_ZERO | __GFP_NOWARN | __GFP_NORETRY)',
     '#define PERF_AUX_GFP\t(GFP_KERNEL | __GFP_ZERO | __GFP_NORETRY)',
     'x86_64', ''),
    ('order0-opportunistic', RB,
     '\tif (opportunistic && order) {\n',
     '\tif (opportunistic) {\n',
     'x86_64', ''),
    ('compact-opportunistic', RB,
     '\tbool opportunistic = st->policy == PERF_AUX_ALLOC_LARGE;\n',
     '\tbool opportunistic = st->policy != PERF_AUX_ALLOC_SMALL;\n',
     'x86_64', ''),
    # what PREFER_LARGE means without a choice: 7.1's walk ("compact")
    ('prefer-large-defaults-large', INTERNAL,
     '\t       PERF_AUX_ALLOC_COMPACT : PERF_AUX_ALLOC_SMALL;\n',
     '\t       PERF_AUX_ALLOC_LARGE : PERF_AUX_ALLOC_SMALL;\n',
     'x86_64', ''),
    # the page-pointer array: its masks, its fallback, its unwinding
    ('array-gfp-kernel', RB,
     '\tarray = rb_aux_kmalloc(size, PERF_AUX_GFP_OPPORTUNISTIC, node);\n',
     '\tarray = rb_aux_kmalloc(size, GFP_KERNEL | __GFP_ZERO, node);\n',
     'x86_64', ''),
    ('array-small-no-zero', RB,
     '\t\treturn rb_aux_kmalloc(size, GFP_KERNEL | __GFP_ZERO, node);\n',
     '\t\treturn rb_aux_kmalloc(size, GFP_KERNEL, node);\n',
     'x86_64', ''),
    ('array-no-fallback', RB,
     '\treturn rb_vmap_aux_array(size, node);\n',
     '\treturn NULL;\n',
     'x86_64', ''),
    ('array-pages-opportunistic', RB,
     '\t\tpages[i] = rb_aux_get_pages(node, PERF_AUX_GFP, 0);\n',
     '\t\tpages[i] = rb_aux_get_pages(node, PERF_AUX_GFP_OPPORTUNISTIC, 0);\n',
     'x86_64', ''),
    ('array-fallback-leaks', RB,
     '\twhile (i--)\n\t\t__free_page(pages[i]);\n',
     '',
     'x86_64', ''),
    # perf_aux_vmap(): huge mappings exactly for PERF_PMU_CAP_AUX_VMAP
    ('vmap-helper-never-huge', RB,
     '\t\tflags |= VM_ALLOW_HUGE_VMAP;\n',
     '',
     'x86_64', ''),
    ('vmap-helper-always-huge', RB,
     '\tif (event->pmu->capabilities & PERF_PMU_CAP_AUX_VMAP)\n\t\tflags |= VM_ALLOW_HUGE_VMAP;\n',
     '\tflags |= VM_ALLOW_HUGE_VMAP;\n',
     'x86_64', ''),
    # after a miss, "large" leaves the orders slab lives on alone
    ('floor-off', RB,
     '\t\tif (missed && order <= PAGE_ALLOC_COSTLY_ORDER)\n\t\t\tbreak;\n',
     '',
     'x86_64', ''),
    ('floor-always', RB,
     '\t\tif (missed && order <= PAGE_ALLOC_COSTLY_ORDER)\n',
     '\t\tif (order <= PAGE_ALLOC_COSTLY_ORDER)\n',
     'x86_64', ''),
    # which orders are tried, and what a miss changes
    ('pt-as-vmap', RB,
     '\tbool vmap = event->pmu->capabilities & PERF_PMU_CAP_AUX_VMAP;\n',
     '\tbool vmap = true;\n',
     'x86_64', ''),
    ('vmap-as-pt', RB,
     '\tbool vmap = event->pmu->capabilities & PERF_PMU_CAP_AUX_VMAP;\n',
     '\tbool vmap = false;\n',
     'x86_64', ''),
    ('pmd-order-ignores-nohugevmalloc', RB,
     '\tif (vmap_huge_shift(PMD_SIZE, PAGE_KERNEL) == PMD_SHIFT &&\n\t    PMD_SHIFT - PAGE_SHIFT <= MAX_PAGE_ORDER)\n',
     '\tif (PMD_SHIFT - PAGE_SHIFT <= MAX_PAGE_ORDER)\n',
     'x86_64', 'nohugevmalloc'),
    # A PMD order taken from pageblock_order: the same on x86_64, not on
    # the arm64 KUnit kernel (CONFIG_PAGE_BLOCK_MAX_ORDER=7, harness/lib.sh)
    ('pmd-as-pageblock', RB,
     '\t    PMD_SHIFT - PAGE_SHIFT <= MAX_PAGE_ORDER)\n\t\treturn PMD_SHIFT - PAGE_SHIFT;\n',
     '\t    PMD_SHIFT - PAGE_SHIFT <= MAX_PAGE_ORDER)\n\t\treturn pageblock_order;\n',
     'arm64', ''),
    ('pt-walk-skips-one', RB,
     '\tfor (order = limit; order > 0; order--) {\n',
     '\tfor (order = limit - (limit > 1); order > 0; order--) {\n',
     'x86_64', ''),
    ('nosg-any-chunk', RB,
     '\t\tif (page_private(page) != max_order)\n\t\t\tgoto out;\n',
     '\t\tif (page_private(page) > max_order)\n\t\t\tgoto out;\n',
     'x86_64', ''),
    # the core's choice and the administrator's bound
    ('policy-accepts-nosg', CORE,
     '\tif (policy > PERF_AUX_ALLOC_COMPACT ||\n',
     '\tif (policy > PERF_AUX_ALLOC_COMPACT + 1 ||\n',
     'x86_64', ''),
    ('compact-for-anyone', CORE,
     '\t     !(event->pmu->capabilities & PERF_PMU_CAP_AUX_PREFER_LARGE)))\n',
     '\t     0))\n',
     'x86_64', ''),
    ('everyone-privileged', CORE,
     '\t\t\tns_capable_noaudit(&init_user_ns, CAP_PERFMON) ||\n',
     '\t\t\ttrue ||\n',
     'x86_64', ''),
    # sysfs, what user space reads: the guest's selftests
    ('sysfs-bad-value-ok', CORE,
     '\tpolicy = sysfs_match_string(perf_aux_alloc_names, buf);\n\tif (policy < 0)\n\t\treturn -EINVAL;\n',
     '\tpolicy = sysfs_match_string(perf_aux_alloc_names, buf);\n\tif (policy < 0)\n\t\treturn count;\n',
     'x86_64', '', 'guest:-faux_sysfs'),
    ('sysfs-compact-for-anyone', CORE,
     '\tif (policy == PERF_AUX_ALLOC_COMPACT &&\n\t    !(pmu->capabilities & PERF_PMU_CAP_AUX_PREFER_LARGE))\n\t\treturn -EINVAL;\n',
     '',
     'x86_64', '', 'guest:-faux_sysfs'),
    # "default" must return to the driver's choice, not the capabilities'
    ('sysfs-default-loses-driver', CORE,
     '\tWRITE_ONCE(pmu->aux_alloc_admin, policy);\n',
     '\tWRITE_ONCE(pmu->aux_alloc, policy);\n',
     'x86_64', '', 'guest:-faux_sysfs'),
    ('admin-not-over-driver', INTERNAL,
     '\tunsigned int policy = READ_ONCE(pmu->aux_alloc_admin);\n\n\tif (policy == PERF_AUX_ALLOC_DEFAULT)\n\t\tpolicy = pmu->aux_alloc;\n',
     '\tunsigned int policy = pmu->aux_alloc;\n\n\tif (policy == PERF_AUX_ALLOC_DEFAULT)\n\t\tpolicy = READ_ONCE(pmu->aux_alloc_admin);\n',
     'x86_64', ''),
    ('sysfs-store-no-cap', CORE,
     '\t/* It bounds what unprivileged events get: CAP_PERFMON sets it. */\n\tif (!perfmon_capable())\n\t\treturn -EPERM;\n',
     '',
     'x86_64', '', 'guest:-taux_alloc_sysfs_hostile'),
    ('all-no-zero-guest', RB,
     '#define PERF_AUX_GFP\t(GFP_KERNEL | __GFP_ZERO | __GFP_NOWARN | __GFP_NORETRY)',
     '#define PERF_AUX_GFP\t(GFP_KERNEL | __GFP_NOWARN | __GFP_NORETRY)',
     'x86_64', '', 'guest:-taux_fresh_zero'),
    ('tp-no-nr-chunks', RB,
     '\t\tst->min_order = st->nr_chunks++ ? min(st->min_order, got) : got;\n',
     '\t\tst->min_order = st->nr_chunks ? min(st->min_order, got) : got;\n',
     'x86_64', '', 'guest:-faux_trace'),
    # more GFP bits: order 0, NO_SG's walk, warnings
    ('order0-no-kswapd', RB,
     '\t\t\tpage = rb_aux_get_pages(node, PERF_AUX_GFP, order);\n',
     '\t\t\tpage = rb_aux_get_pages(node, order ? PERF_AUX_GFP :\n\t\t\t\t\t\t  PERF_AUX_GFP & ~__GFP_KSWAPD_RECLAIM, order);\n',
     'x86_64', ''),
    ('order0-no-direct-reclaim', RB,
     '\t\t\tpage = rb_aux_get_pages(node, PERF_AUX_GFP, order);\n',
     '\t\t\tpage = rb_aux_get_pages(node, order ? PERF_AUX_GFP :\n\t\t\t\t\t\t  PERF_AUX_GFP & ~__GFP_DIRECT_RECLAIM, order);\n',
     'x86_64', ''),
    ('nosg-no-direct-reclaim', RB,
     '\t\t\tpage = rb_aux_get_pages(node, PERF_AUX_GFP, order);\n',
     '\t\t\tpage = rb_aux_get_pages(node, order ? PERF_AUX_GFP & ~__GFP_DIRECT_RECLAIM :\n\t\t\t\t\t\t  PERF_AUX_GFP, order);\n',
     'x86_64', ''),
    ('nosg-nomemalloc', RB,
     '\t\t\tpage = rb_aux_get_pages(node, PERF_AUX_GFP, order);\n',
     '\t\t\tpage = rb_aux_get_pages(node, order ? PERF_AUX_GFP | __GFP_NOMEMALLOC :\n\t\t\t\t\t\t  PERF_AUX_GFP, order);\n',
     'x86_64', ''),
    ('opp-warn', RB,
     '((PERF_AUX_GFP | __GFP_NOMEMALLOC) & ~__GFP_RECLAIM)',
     '((PERF_AUX_GFP | __GFP_NOMEMALLOC) & ~(__GFP_RECLAIM | __GFP_NOWARN))',
     'x86_64', ''),
    # what a miss changes
    ('miss-skips-smaller', RB,
     '\t\t\tmissed |= BIT(order);\n',
     '\t\t\tmissed |= GENMASK(order, 1);\n',
     'x86_64', ''),
    ('vmap-cont-before-pmd', RB,
     '\t\torder = rb_aux_pmd_order();\n\t\tif (order > 0 && order <= limit && !(missed & BIT(order)))\n\t\t\treturn order;\n\n\t\torder = rb_aux_cont_order();\n',
     '\t\torder = rb_aux_cont_order();\n\t\tif (order > 0 && order <= limit && !(missed & BIT(order)))\n\t\t\treturn order;\n\n\t\torder = rb_aux_pmd_order();\n',
     'arm64', ''),
    ('vmap-no-pmd-cap', RB,
     '\t\tmax_order = min(max_order,\n\t\t\t\tmax(rb_aux_pmd_order(), rb_aux_cont_order()));\n',
     '\t\tmax_order = max_order;\n',
     'x86_64', ''),
    # unwinding
    ('unwind-keeps-first-page', RB,
     '\t\trb_free_aux_page(rb, pg);\n',
     '\t\tif (pg)\n\t\t\trb_free_aux_page(rb, pg);\n',
     'x86_64', ''),
    ('nosg-too-large-no-unwind', RB,
     '\t\tif (page_private(page) != max_order)\n\t\t\tgoto out;\n',
     '\t\tif (page_private(page) != max_order)\n\t\t\treturn -ENOMEM;\n',
     'x86_64', ''),
    # the tracepoint's fields
    ('tp-no-misses', RB,
     '\t\t\tmissed |= BIT(order);\n\t\t\tst->misses++;\n',
     '\t\t\tmissed |= BIT(order);\n',
     'x86_64', ''),
    ('tp-top-order-last', RB,
     '\t\tst->top_order = max(st->top_order, got);\n',
     '\t\tst->top_order = got;\n',
     'x86_64', ''),
    ('tp-array-got-pages', RB,
     '\tif (get_order((unsigned long)nr_pages * sizeof(void *)) > MAX_PAGE_ORDER) {\n\t\tst->got_pages = -1;\n',
     '\tif (get_order((unsigned long)nr_pages * sizeof(void *)) > MAX_PAGE_ORDER) {\n',
     'x86_64', ''),
    # the administrator's bound
    ('nobody-privileged', CORE,
     '\t\t\tns_capable_noaudit(&init_user_ns, CAP_PERFMON) ||\n\t\t\tns_capable_noaudit(&init_user_ns, CAP_SYS_ADMIN);\n',
     '\t\t\tfalse;\n',
     'x86_64', ''),
    ('inherit-asks-again', CORE,
     '\telse if (event->parent)\n',
     '\telse if (0)\n',
     'x86_64', ''),
    ('bound-binds-privileged', RB,
     '\t    (policy > pmu_policy && !event->aux_alloc_privileged))\n',
     '\t    (policy > pmu_policy))\n',
     'x86_64', ''),
    ('bound-ignored', RB,
     '\t    (policy > pmu_policy && !event->aux_alloc_privileged))\n',
     '\t    (policy > pmu_policy && false))\n',
     'x86_64', ''),
    # vmap()'s huge mappings (series mm-vmap)
    ('vmap-no-pmd-block', VM,
     '\treturn vmap_try_huge_pmd(pmd, addr, end, page_to_phys(pages[0]), prot,\n\t\t\t\t max_shift);\n',
     '\treturn 0;\n',
     'x86_64', ''),
    ('vmap-pmd-run-unchecked', VM,
     '\tif (vmap_pages_contig(pages, n) != n ||\n\t    !pfn_valid(page_to_pfn(pages[0])) ||\n',
     '\tif (vmap_pages_contig(pages, 1) != 1 ||\n\t    !pfn_valid(page_to_pfn(pages[0])) ||\n',
     'x86_64', ''),
    ('vmap-no-page-order', VM,
     '\tset_vm_area_page_order(area, shift - PAGE_SHIFT);\n',
     '',
     'x86_64', ''),
    ('vmap-no-cont-ptes', VM,
     '\t\tif (max_shift > PAGE_SHIFT)\n\t\t\tsize = vmap_pages_cont_size(',
     '\t\tif (0)\n\t\t\tsize = vmap_pages_cont_size(',
     'arm64', ''),
    ('vmap-cont-run-unchecked', VM,
     '\tif (n == 1 || vmap_pages_contig(pages, n) != n ||\n',
     '\tif (n == 1 ||\n',
     'arm64', ''),
    # huge vmap() is on exactly where huge vmalloc() is (the oracle is
    # vmalloc_huge()'s page table, not vmap_huge_shift())
    ('vmap-shift-never-huge', VM,
     '\treturn vmap_allow_huge ? vm_shift(pgprot_nx(prot), size) : PAGE_SHIFT;\n',
     '\treturn PAGE_SHIFT;\n',
     'x86_64', ''),
    ('vmap-shift-ignores-nohugevmalloc', VM,
     '\treturn vmap_allow_huge ? vm_shift(pgprot_nx(prot), size) : PAGE_SHIFT;\n',
     '\treturn vm_shift(pgprot_nx(prot), size);\n',
     'x86_64', 'nohugevmalloc'),
    # vmap() maps huge only on request (mm-vmap 1/4)
    ('vmap-huge-without-flag', VM,
     '\tif (vmap_allow_huge && (flags & VM_ALLOW_HUGE_VMAP) &&\n',
     '\tif (vmap_allow_huge &&\n',
     'x86_64', ''),
    # contiguous PTEs without HugeTLB: arm64's pte_set_huge() (the
    # stand-in), which vmap() and, for the tests' oracle, vmalloc() use
    ('arm64-pte-set-huge-noop', ARM64_VM,
     '\tif (size != CONT_PTE_SIZE)\n\t\treturn 0;\n\t__set_ptes(',
     '\tif (1)\n\t\treturn 0;\n\t__set_ptes(',
     'arm64', ''),
    # arm64 says it has no contiguous PTEs for vmap(): vmalloc() and
    # vmap() then agree on none, and only the documented size (the
    # vmap_huge suite's second oracle) tells
    ('arm64-no-cont-shift', ARM64_VM,
     '\tif (size >= CONT_PTE_SIZE)\n\t\treturn CONT_PTE_SHIFT;\n',
     '\tif (0)\n\t\treturn CONT_PTE_SHIFT;\n',
     'arm64', ''),
    # cs_etm's decision, through etm_event_aux_alloc() itself
    ('etm-percpu-inverted', ETM,
     '\tif (!etm_event_percpu_sink(event))\n',
     '\tif (etm_event_percpu_sink(event))\n',
     'arm64', ''),
    ('etm-inherited-recomputes', ETM,
     '\tif (event->parent)\n\t\treturn perf_event_set_aux_alloc(event, event->parent->aux_alloc);\n',
     '\tif (0)\n\t\treturn perf_event_set_aux_alloc(event, event->parent->aux_alloc);\n',
     'arm64', ''),
    ('etm-term-ignored', ETM,
     '\t\t\t\t       ATTR_CFG_GET_FLD(&event->attr, aux_alloc));\n',
     '\t\t\t\t       PERF_AUX_ALLOC_DEFAULT);\n',
     'arm64', ''),
    # cs_etm's sink answer
    ('cs-percpu-sink-only', CS,
     '\t\t\tsink = coresight_default_sink(source);\n',
     '\t\t\tsink = coresight_get_percpu_sink(source_ops(source)->cpu_id(source));\n',
     'arm64', ''),
    ('cs-caches', CS,
     '\t\t\tsink = coresight_default_sink(source);\n',
     '\t\t\tsink = coresight_find_default_sink(source);\n',
     'arm64', ''),
]


def find(name):
    for m in MUTANTS:
        if m[0] == name:
            return m
    sys.exit('no mutant ' + name)


def main():
    if sys.argv[1] == 'list':
        quick = sys.argv[2:] == ['--quick']
        for m in MUTANTS:
            if not quick or m[0] in QUICK:
                print(m[0], m[4], m[5] or '-', m[6] if len(m) > 6 else 'kunit')
    elif sys.argv[1] == 'file':
        print(find(sys.argv[2])[1])
    elif sys.argv[1] == 'apply':
        name, f, old, new = find(sys.argv[2])[:4]
        path = sys.argv[3] + '/' + f
        text = open(path).read()
        if text.count(old) != 1:
            sys.exit('mutant %s: its text is not (once) in %s' % (name, f))
        open(path, 'w').write(text.replace(old, new))
    else:
        sys.exit(__doc__)


if __name__ == '__main__':
    main()
