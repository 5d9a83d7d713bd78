#!/usr/bin/env python3
"""The mutants of harness/mutants: small edits of the series' own code.

Each mutant replaces one exact piece of text in one file of the final
tree. A mutant that would hang the kernel (a loop that never ends) is not
listed: the suites would only time out.

Each is checked by the KUnit suites ('kunit'), or, where KUnit cannot see
it (sysfs, what user space reads), by the guest's AUX selftests
('guest:ARGS', ARGS the comma-separated kselftest harness filters, such
as -faux_sysfs). quick=True marks the subset the test command runs.

  mutants.py [--base B] list [--quick]
                                   NAME ARCH KARGS SUITE FILE, one mutant a
                                   line, tab-separated (KARGS: - for none)
  mutants.py [--base B] apply NAME TREE
                                   edit TREE's file (fails if the text moved)
  mutants.py [--base B] file NAME  the file the mutant edits
  mutants.py [--base B] check TREE the table applies to TREE: every text is
                                   in its file once, names are unique

--base B picks the table of base B: mainline (the default) or 6.12, whose
own mutants are those of the code the backport does not share with
mainline (its KMI-neutral state of the AUX policies).
"""
import sys
from typing import NamedTuple


class Mutant(NamedTuple):
    """In FILE of the final tree, OLD (which must be there once) becomes
    NEW; the mutant runs on ARCH, booted with the kernel arguments KARGS,
    and SUITE must kill it: 'kunit', or 'guest:FILTERS' for the AUX
    selftests with those kselftest harness filters."""
    name: str
    file: str
    old: str
    new: str
    arch: str
    kargs: str = ''
    suite: str = 'kunit'
    quick: bool = False
    base: str = 'mainline'


RB = 'kernel/events/ring_buffer.c'
CORE = 'kernel/events/core.c'
CS = 'drivers/hwtracing/coresight/coresight-core.c'
ETM = 'drivers/hwtracing/coresight/coresight-etm-perf.c'
TP = 'include/trace/events/perf.h'
VM = 'mm/vmalloc.c'
ARM64_VM = 'arch/arm64/include/asm/vmalloc.h'
INTERNAL = 'kernel/events/internal.h'

MUTANTS = [
    # GFP bits of the opportunistic high-order attempt
    Mutant(name='opp-no-zero', file=RB,
           old='((PERF_AUX_GFP | __GFP_NOMEMALLOC) & ~__GFP_RECLAIM)',
           new='((PERF_AUX_GFP | __GFP_NOMEMALLOC) & ~(__GFP_RECLAIM | __GFP_ZERO))',
           arch='x86_64', kargs='', quick=True),
    Mutant(name='opp-direct-reclaim', file=RB,
           old='((PERF_AUX_GFP | __GFP_NOMEMALLOC) & ~__GFP_RECLAIM)',
           new='((PERF_AUX_GFP | __GFP_NOMEMALLOC) & ~__GFP_KSWAPD_RECLAIM)',
           arch='x86_64', kargs=''),
    Mutant(name='opp-kswapd', file=RB,
           old='((PERF_AUX_GFP | __GFP_NOMEMALLOC) & ~__GFP_RECLAIM)',
           new='((PERF_AUX_GFP | __GFP_NOMEMALLOC) & ~__GFP_DIRECT_RECLAIM)',
           arch='x86_64', kargs=''),
    Mutant(name='opp-reserves', file=RB,
           old='((PERF_AUX_GFP | __GFP_NOMEMALLOC) & ~__GFP_RECLAIM)',
           new='(PERF_AUX_GFP & ~__GFP_RECLAIM)',
           arch='x86_64', kargs=''),
    Mutant(name='opp-high', file=RB,
           old='((PERF_AUX_GFP | __GFP_NOMEMALLOC) & ~__GFP_RECLAIM)',
           new='((PERF_AUX_GFP | __GFP_NOMEMALLOC | __GFP_HIGH) & ~__GFP_RECLAIM)',
           arch='x86_64', kargs=''),
    # GFP bits of order-0 and NO_SG attempts
    Mutant(name='all-no-zero', file=RB,
           old='#define PERF_AUX_GFP\t(GFP_KERNEL | __GFP_ZERO | __GFP_NOWARN | __GFP_NORETRY)',
           new='#define PERF_AUX_GFP\t(GFP_KERNEL | __GFP_NOWARN | __GFP_NORETRY)',
           arch='x86_64', kargs=''),
    Mutant(name='all-warn', file=RB,
           old='#define PERF_AUX_GFP\t(GFP_KERNEL | __GFP_ZERO | __GFP_NOWARN | __GFP_NORETRY)',
           new='#define PERF_AUX_GFP\t(GFP_KERNEL | __GFP_ZERO | __GFP_NORETRY)',
           arch='x86_64', kargs=''),
    Mutant(name='order0-opportunistic', file=RB,
           old='\tif (opportunistic && order) {\n',
           new='\tif (opportunistic) {\n',
           arch='x86_64', kargs='', quick=True),
    Mutant(name='compact-opportunistic', file=RB,
           old='\tbool opportunistic = st->policy == PERF_AUX_ALLOC_LARGE;\n',
           new='\tbool opportunistic = st->policy != PERF_AUX_ALLOC_SMALL;\n',
           arch='x86_64', kargs=''),
    # what PREFER_LARGE means without a choice: 7.1's walk ("compact")
    Mutant(name='prefer-large-defaults-large', file=INTERNAL,
           old='\t       PERF_AUX_ALLOC_COMPACT : PERF_AUX_ALLOC_SMALL;\n',
           new='\t       PERF_AUX_ALLOC_LARGE : PERF_AUX_ALLOC_SMALL;\n',
           arch='x86_64', kargs='', quick=True),
    # the page-pointer array: its masks, its fallback, its unwinding
    Mutant(name='array-gfp-kernel', file=RB,
           old='\tarray = rb_aux_kmalloc(size, PERF_AUX_GFP_OPPORTUNISTIC, node);\n',
           new='\tarray = rb_aux_kmalloc(size, GFP_KERNEL | __GFP_ZERO, node);\n',
           arch='x86_64', kargs='', quick=True),
    Mutant(name='array-small-no-zero', file=RB,
           old='\t\treturn rb_aux_kmalloc(size, GFP_KERNEL | __GFP_ZERO, node);\n',
           new='\t\treturn rb_aux_kmalloc(size, GFP_KERNEL, node);\n',
           arch='x86_64', kargs=''),
    Mutant(name='array-no-fallback', file=RB,
           old='\treturn rb_vmap_aux_array(size, node);\n',
           new='\treturn NULL;\n',
           arch='x86_64', kargs=''),
    Mutant(name='array-pages-opportunistic', file=RB,
           old='\t\tpages[i] = rb_aux_get_pages(node, PERF_AUX_GFP, 0);\n',
           new='\t\tpages[i] = rb_aux_get_pages(node, PERF_AUX_GFP_OPPORTUNISTIC, 0);\n',
           arch='x86_64', kargs=''),
    Mutant(name='array-fallback-leaks', file=RB,
           old='\twhile (i--)\n\t\t__free_page(pages[i]);\n',
           new='',
           arch='x86_64', kargs=''),
    # perf_aux_vmap(): huge mappings exactly for PERF_PMU_CAP_AUX_VMAP
    Mutant(name='vmap-helper-never-huge', file=RB,
           old='\t\tflags |= VM_ALLOW_HUGE_VMAP;\n',
           new='',
           arch='x86_64', kargs=''),
    Mutant(name='vmap-helper-always-huge', file=RB,
           old='\tif (event->pmu->capabilities & PERF_PMU_CAP_AUX_VMAP)\n\t\tflags |= VM_ALLOW_HUGE_VMAP;\n',
           new='\tflags |= VM_ALLOW_HUGE_VMAP;\n',
           arch='x86_64', kargs=''),
    # after a miss, "large" leaves the orders slab lives on alone
    Mutant(name='floor-off', file=RB,
           old='\t\tif (missed && order <= PAGE_ALLOC_COSTLY_ORDER)\n\t\t\tbreak;\n',
           new='',
           arch='x86_64', kargs=''),
    Mutant(name='floor-always', file=RB,
           old='\t\tif (missed && order <= PAGE_ALLOC_COSTLY_ORDER)\n',
           new='\t\tif (order <= PAGE_ALLOC_COSTLY_ORDER)\n',
           arch='x86_64', kargs=''),
    # which orders are tried, and what a miss changes
    Mutant(name='pt-as-vmap', file=RB,
           old='\tbool vmap = event->pmu->capabilities & PERF_PMU_CAP_AUX_VMAP;\n',
           new='\tbool vmap = true;\n',
           arch='x86_64', kargs='', quick=True),
    Mutant(name='vmap-as-pt', file=RB,
           old='\tbool vmap = event->pmu->capabilities & PERF_PMU_CAP_AUX_VMAP;\n',
           new='\tbool vmap = false;\n',
           arch='x86_64', kargs=''),
    Mutant(name='pmd-order-ignores-nohugevmalloc', file=RB,
           old='\tif (vmap_huge_shift(PMD_SIZE, PAGE_KERNEL) == PMD_SHIFT &&\n\t    PMD_SHIFT - PAGE_SHIFT <= MAX_PAGE_ORDER)\n',
           new='\tif (PMD_SHIFT - PAGE_SHIFT <= MAX_PAGE_ORDER)\n',
           arch='x86_64', kargs='nohugevmalloc'),
    # A PMD order taken from pageblock_order: the same on x86_64, not on
    # the arm64 KUnit kernel (CONFIG_PAGE_BLOCK_MAX_ORDER=7, harness/lib.sh)
    Mutant(name='pmd-as-pageblock', file=RB,
           old='\t    PMD_SHIFT - PAGE_SHIFT <= MAX_PAGE_ORDER)\n\t\treturn PMD_SHIFT - PAGE_SHIFT;\n',
           new='\t    PMD_SHIFT - PAGE_SHIFT <= MAX_PAGE_ORDER)\n\t\treturn pageblock_order;\n',
           arch='arm64', kargs=''),
    Mutant(name='pt-walk-skips-one', file=RB,
           old='\tfor (order = limit; order > 0; order--) {\n',
           new='\tfor (order = limit - (limit > 1); order > 0; order--) {\n',
           arch='x86_64', kargs=''),
    Mutant(name='nosg-any-chunk', file=RB,
           old='\t\tif (page_private(page) != max_order)\n\t\t\tgoto out;\n',
           new='\t\tif (page_private(page) > max_order)\n\t\t\tgoto out;\n',
           arch='x86_64', kargs=''),
    # the core's choice and the administrator's bound
    Mutant(name='policy-accepts-nosg', file=CORE,
           old='\tif (policy > PERF_AUX_ALLOC_COMPACT ||\n',
           new='\tif (policy > PERF_AUX_ALLOC_COMPACT + 1 ||\n',
           arch='x86_64', kargs=''),
    Mutant(name='compact-for-anyone', file=CORE,
           old='\t     !(event->pmu->capabilities & PERF_PMU_CAP_AUX_PREFER_LARGE)))\n',
           new='\t     0))\n',
           arch='x86_64', kargs=''),
    Mutant(name='everyone-privileged', file=CORE,
           old='\t\t\tns_capable_noaudit(&init_user_ns, CAP_PERFMON) ||\n',
           new='\t\t\ttrue ||\n',
           arch='x86_64', kargs='', quick=True),
    # sysfs, what user space reads: the guest's selftests
    Mutant(name='sysfs-bad-value-ok', file=CORE,
           old='\tpolicy = sysfs_match_string(perf_aux_alloc_names, buf);\n\tif (policy < 0)\n\t\treturn -EINVAL;\n',
           new='\tpolicy = sysfs_match_string(perf_aux_alloc_names, buf);\n\tif (policy < 0)\n\t\treturn count;\n',
           arch='x86_64', kargs='', suite='guest:-faux_sysfs', quick=True),
    Mutant(name='sysfs-compact-for-anyone', file=CORE,
           old='\tif (policy == PERF_AUX_ALLOC_COMPACT &&\n\t    !(pmu->capabilities & PERF_PMU_CAP_AUX_PREFER_LARGE))\n\t\treturn -EINVAL;\n',
           new='',
           arch='x86_64', kargs='', suite='guest:-faux_sysfs'),
    # "default" must return to the driver's choice, not the capabilities'
    Mutant(name='sysfs-default-loses-driver', file=CORE,
           old='\tWRITE_ONCE(pmu->aux_alloc_admin, policy);\n',
           new='\tWRITE_ONCE(pmu->aux_alloc, policy);\n',
           arch='x86_64', kargs='', suite='guest:-faux_sysfs', quick=True),
    Mutant(name='admin-not-over-driver', file=INTERNAL,
           old='\tunsigned int policy = READ_ONCE(pmu->aux_alloc_admin);\n\n\tif (policy == PERF_AUX_ALLOC_DEFAULT)\n\t\tpolicy = pmu->aux_alloc;\n',
           new='\tunsigned int policy = pmu->aux_alloc;\n\n\tif (policy == PERF_AUX_ALLOC_DEFAULT)\n\t\tpolicy = READ_ONCE(pmu->aux_alloc_admin);\n',
           arch='x86_64', kargs=''),
    Mutant(name='sysfs-store-no-cap', file=CORE,
           old='\t/* It bounds what unprivileged events get: CAP_PERFMON sets it. */\n\tif (!perfmon_capable())\n\t\treturn -EPERM;\n',
           new='',
           arch='x86_64', kargs='', suite='guest:-taux_alloc_sysfs_hostile'),
    Mutant(name='all-no-zero-guest', file=RB,
           old='#define PERF_AUX_GFP\t(GFP_KERNEL | __GFP_ZERO | __GFP_NOWARN | __GFP_NORETRY)',
           new='#define PERF_AUX_GFP\t(GFP_KERNEL | __GFP_NOWARN | __GFP_NORETRY)',
           arch='x86_64', kargs='', suite='guest:-taux_fresh_zero', quick=True),
    Mutant(name='tp-no-nr-chunks', file=RB,
           old='\t\tst->min_order = st->nr_chunks++ ? min(st->min_order, got) : got;\n',
           new='\t\tst->min_order = st->nr_chunks ? min(st->min_order, got) : got;\n',
           arch='x86_64', kargs='', suite='guest:-faux_trace'),
    # more GFP bits: order 0, NO_SG's walk, warnings
    Mutant(name='order0-no-kswapd', file=RB,
           old='\t\t\tpage = rb_aux_get_pages(node, PERF_AUX_GFP, order);\n',
           new='\t\t\tpage = rb_aux_get_pages(node, order ? PERF_AUX_GFP :\n\t\t\t\t\t\t  PERF_AUX_GFP & ~__GFP_KSWAPD_RECLAIM, order);\n',
           arch='x86_64', kargs=''),
    Mutant(name='order0-no-direct-reclaim', file=RB,
           old='\t\t\tpage = rb_aux_get_pages(node, PERF_AUX_GFP, order);\n',
           new='\t\t\tpage = rb_aux_get_pages(node, order ? PERF_AUX_GFP :\n\t\t\t\t\t\t  PERF_AUX_GFP & ~__GFP_DIRECT_RECLAIM, order);\n',
           arch='x86_64', kargs=''),
    Mutant(name='nosg-no-direct-reclaim', file=RB,
           old='\t\t\tpage = rb_aux_get_pages(node, PERF_AUX_GFP, order);\n',
           new='\t\t\tpage = rb_aux_get_pages(node, order ? PERF_AUX_GFP & ~__GFP_DIRECT_RECLAIM :\n\t\t\t\t\t\t  PERF_AUX_GFP, order);\n',
           arch='x86_64', kargs='', quick=True),
    Mutant(name='nosg-nomemalloc', file=RB,
           old='\t\t\tpage = rb_aux_get_pages(node, PERF_AUX_GFP, order);\n',
           new='\t\t\tpage = rb_aux_get_pages(node, order ? PERF_AUX_GFP | __GFP_NOMEMALLOC :\n\t\t\t\t\t\t  PERF_AUX_GFP, order);\n',
           arch='x86_64', kargs=''),
    Mutant(name='opp-warn', file=RB,
           old='((PERF_AUX_GFP | __GFP_NOMEMALLOC) & ~__GFP_RECLAIM)',
           new='((PERF_AUX_GFP | __GFP_NOMEMALLOC) & ~(__GFP_RECLAIM | __GFP_NOWARN))',
           arch='x86_64', kargs=''),
    # what a miss changes
    Mutant(name='miss-skips-smaller', file=RB,
           old='\t\t\tmissed |= BIT(order);\n',
           new='\t\t\tmissed |= GENMASK(order, 1);\n',
           arch='x86_64', kargs=''),
    Mutant(name='vmap-cont-before-pmd', file=RB,
           old='\t\torder = rb_aux_pmd_order();\n\t\tif (order > 0 && order <= limit && !(missed & BIT(order)))\n\t\t\treturn order;\n\n\t\torder = rb_aux_cont_order();\n',
           new='\t\torder = rb_aux_cont_order();\n\t\tif (order > 0 && order <= limit && !(missed & BIT(order)))\n\t\t\treturn order;\n\n\t\torder = rb_aux_pmd_order();\n',
           arch='arm64', kargs=''),
    Mutant(name='vmap-no-pmd-cap', file=RB,
           old='\t\tmax_order = min(max_order,\n\t\t\t\tmax(rb_aux_pmd_order(), rb_aux_cont_order()));\n',
           new='\t\tmax_order = max_order;\n',
           arch='x86_64', kargs='', quick=True),
    # unwinding
    Mutant(name='unwind-keeps-first-page', file=RB,
           old='\t\trb_free_aux_page(rb, pg);\n',
           new='\t\tif (pg)\n\t\t\trb_free_aux_page(rb, pg);\n',
           arch='x86_64', kargs=''),
    Mutant(name='nosg-too-large-no-unwind', file=RB,
           old='\t\tif (page_private(page) != max_order)\n\t\t\tgoto out;\n',
           new='\t\tif (page_private(page) != max_order)\n\t\t\treturn -ENOMEM;\n',
           arch='x86_64', kargs=''),
    # the tracepoint's fields
    Mutant(name='tp-no-misses', file=RB,
           old='\t\t\tmissed |= BIT(order);\n\t\t\tst->misses++;\n',
           new='\t\t\tmissed |= BIT(order);\n',
           arch='x86_64', kargs='', quick=True),
    Mutant(name='tp-top-order-last', file=RB,
           old='\t\tst->top_order = max(st->top_order, got);\n',
           new='\t\tst->top_order = got;\n',
           arch='x86_64', kargs=''),
    Mutant(name='tp-array-got-pages', file=RB,
           old='\tif (get_order((unsigned long)nr_pages * sizeof(void *)) > MAX_PAGE_ORDER) {\n\t\tst->got_pages = -1;\n',
           new='\tif (get_order((unsigned long)nr_pages * sizeof(void *)) > MAX_PAGE_ORDER) {\n',
           arch='x86_64', kargs=''),
    # the administrator's bound
    Mutant(name='nobody-privileged', file=CORE,
           old='\t\t\tns_capable_noaudit(&init_user_ns, CAP_PERFMON) ||\n\t\t\tns_capable_noaudit(&init_user_ns, CAP_SYS_ADMIN);\n',
           new='\t\t\tfalse;\n',
           arch='x86_64', kargs=''),
    Mutant(name='inherit-asks-again', file=CORE,
           old='\telse if (event->parent)\n',
           new='\telse if (0)\n',
           arch='x86_64', kargs=''),
    Mutant(name='bound-binds-privileged', file=RB,
           old='\t    (policy > pmu_policy && !event->aux_alloc_privileged))\n',
           new='\t    (policy > pmu_policy))\n',
           arch='x86_64', kargs=''),
    Mutant(name='bound-ignored', file=RB,
           old='\t    (policy > pmu_policy && !event->aux_alloc_privileged))\n',
           new='\t    (policy > pmu_policy && false))\n',
           arch='x86_64', kargs=''),
    # vmap()'s huge mappings (series mm-vmap)
    Mutant(name='vmap-no-pmd-block', file=VM,
           old='\treturn vmap_try_huge_pmd(pmd, addr, end, page_to_phys(pages[0]), prot,\n\t\t\t\t max_shift);\n',
           new='\treturn 0;\n',
           arch='x86_64', kargs=''),
    Mutant(name='vmap-pmd-run-unchecked', file=VM,
           old='\tif (vmap_pages_contig(pages, n) != n ||\n\t    !pfn_valid(page_to_pfn(pages[0])) ||\n',
           new='\tif (vmap_pages_contig(pages, 1) != 1 ||\n\t    !pfn_valid(page_to_pfn(pages[0])) ||\n',
           arch='x86_64', kargs=''),
    Mutant(name='vmap-no-page-order', file=VM,
           old='\tset_vm_area_page_order(area, shift - PAGE_SHIFT);\n',
           new='',
           arch='x86_64', kargs=''),
    Mutant(name='vmap-no-cont-ptes', file=VM,
           old='\t\tif (max_shift > PAGE_SHIFT)\n\t\t\tsize = vmap_pages_cont_size(',
           new='\t\tif (0)\n\t\t\tsize = vmap_pages_cont_size(',
           arch='arm64', kargs=''),
    Mutant(name='vmap-cont-run-unchecked', file=VM,
           old='\tif (n == 1 || vmap_pages_contig(pages, n) != n ||\n',
           new='\tif (n == 1 ||\n',
           arch='arm64', kargs=''),
    # huge vmap() is on exactly where huge vmalloc() is (the oracle is
    # vmalloc_huge()'s page table, not vmap_huge_shift())
    Mutant(name='vmap-shift-never-huge', file=VM,
           old='\treturn vmap_allow_huge ? vm_shift(pgprot_nx(prot), size) : PAGE_SHIFT;\n',
           new='\treturn PAGE_SHIFT;\n',
           arch='x86_64', kargs=''),
    Mutant(name='vmap-shift-ignores-nohugevmalloc', file=VM,
           old='\treturn vmap_allow_huge ? vm_shift(pgprot_nx(prot), size) : PAGE_SHIFT;\n',
           new='\treturn vm_shift(pgprot_nx(prot), size);\n',
           arch='x86_64', kargs='nohugevmalloc'),
    # vmap() maps huge only on request (mm-vmap 1/4)
    Mutant(name='vmap-huge-without-flag', file=VM,
           old='\tif (vmap_allow_huge && (flags & VM_ALLOW_HUGE_VMAP) &&\n',
           new='\tif (vmap_allow_huge &&\n',
           arch='x86_64', kargs=''),
    # the tests' page-table walk (vmalloc_leaf_size(), mm's, exported to
    # KUnit's namespace): an oracle that misses PMD blocks must fail them
    Mutant(name='leaf-size-no-pmd', file=VM,
           old='\tif (pmd_leaf(*pmd))\n\t\treturn PMD_SIZE;\n',
           new='',
           arch='x86_64', kargs=''),
    # contiguous PTEs without HugeTLB: arm64's pte_set_huge() (the
    # stand-in), which vmap() and, for the tests' oracle, vmalloc() use
    Mutant(name='arm64-pte-set-huge-noop', file=ARM64_VM,
           old='\tif (size != CONT_PTE_SIZE)\n\t\treturn 0;\n\t__set_ptes(',
           new='\tif (1)\n\t\treturn 0;\n\t__set_ptes(',
           arch='arm64', kargs=''),
    # arm64 says it has no contiguous PTEs for vmap(): vmalloc() and
    # vmap() then agree on none, and only the documented size (the
    # vmap_huge suite's second oracle) tells
    Mutant(name='arm64-no-cont-shift', file=ARM64_VM,
           old='\tif (size >= CONT_PTE_SIZE)\n\t\treturn CONT_PTE_SHIFT;\n',
           new='\tif (0)\n\t\treturn CONT_PTE_SHIFT;\n',
           arch='arm64', kargs=''),
    # cs_etm's decision, through etm_event_aux_alloc() itself
    Mutant(name='etm-percpu-inverted', file=ETM,
           old='\tif (!etm_event_percpu_sink(event))\n',
           new='\tif (etm_event_percpu_sink(event))\n',
           arch='arm64', kargs=''),
    Mutant(name='etm-inherited-recomputes', file=ETM,
           old='\tif (event->parent)\n\t\treturn perf_event_set_aux_alloc(event, event->parent->aux_alloc);\n',
           new='\tif (0)\n\t\treturn perf_event_set_aux_alloc(event, event->parent->aux_alloc);\n',
           arch='arm64', kargs=''),
    Mutant(name='etm-term-ignored', file=ETM,
           old='\t\t\t\t       ATTR_CFG_GET_FLD(&event->attr, aux_alloc));\n',
           new='\t\t\t\t       PERF_AUX_ALLOC_DEFAULT);\n',
           arch='arm64', kargs=''),
    # cs_etm's sink answer
    Mutant(name='cs-percpu-sink-only', file=CS,
           old='\t\t\tsink = coresight_default_sink(source);\n',
           new='\t\t\tsink = coresight_get_percpu_sink(source_ops(source)->cpu_id(source));\n',
           arch='arm64', kargs=''),
    Mutant(name='cs-caches', file=CS,
           old='\t\t\tsink = coresight_default_sink(source);\n',
           new='\t\t\tsink = coresight_find_default_sink(source);\n',
           arch='arm64', kargs=''),
    # 6.12 only: the KMI-neutral state of the AUX policies (the
    # administrator's choice in an xarray by PMU type, the driver's a
    # capability bit, the event's bits of event_caps)
    Mutant(name='612-admin-default-kept', file=CORE,
           old='\tif (policy == PERF_AUX_ALLOC_DEFAULT) {\n\t\txa_erase(&perf_aux_alloc_admin_xa, (u32)pmu->type);\n',
           new='\tif (policy == PERF_AUX_ALLOC_DEFAULT) {\n',
           arch='x86_64', kargs='', quick=True, base='6.12'),
    Mutant(name='612-admin-store-ignored', file=CORE,
           old='\tret = registered ? perf_pmu_set_aux_alloc_admin(pmu, policy) : -ENODEV;\n',
           new='\tret = registered ? 0 : -ENODEV;\n',
           arch='x86_64', kargs='', suite='guest:-faux_sysfs', base='6.12'),
    Mutant(name='612-admin-unregister-kept', file=CORE,
           old='\tmutex_lock(&perf_aux_alloc_admin_lock);\n\tperf_pmu_set_aux_alloc_admin(pmu, PERF_AUX_ALLOC_DEFAULT);\n',
           new='\tmutex_lock(&perf_aux_alloc_admin_lock);\n',
           arch='x86_64', kargs='', base='6.12'),
    Mutant(name='612-driver-cap-ignored', file=INTERNAL,
           old='\tif (pmu->capabilities & PERF_PMU_CAP_AUX_ALLOC_LARGE)\n',
           new='\tif (0)\n',
           arch='x86_64', kargs='', base='6.12'),
    Mutant(name='612-event-policy-lost', file=CORE,
           old='\tevent->event_caps |= FIELD_PREP(PERF_EV_CAP_AUX_ALLOC, policy);\n',
           new='',
           arch='x86_64', kargs='', quick=True, base='6.12'),
    Mutant(name='612-leaf-size-no-pmd', file=VM,
           old='\tif (pmd_leaf(*pmd))\n\t\treturn PMD_SIZE;\n',
           new='',
           arch='x86_64', kargs='', base='6.12'),
    Mutant(name='612-event-privilege-lost', file=CORE,
           old='\t\tevent->event_caps |= PERF_EV_CAP_AUX_PRIVILEGED;\n',
           new='\t\tevent->event_caps |= 0;\n',
           arch='x86_64', kargs='', base='6.12'),
]


def find(name, table):
    for m in table:
        if m.name == name:
            return m
    sys.exit('no mutant ' + name)


def check(tree, table):
    """Problems that would make TABLE not apply to TREE"""
    bad = []
    names = [m.name for m in MUTANTS]
    bad += ['%s: listed twice' % n for n in sorted(set(names)) if names.count(n) > 1]
    for m in table:
        try:
            n = open(tree + '/' + m.file).read().count(m.old)
        except OSError as e:
            n = e.strerror
        if n != 1:
            bad.append('%s: its text is in %s %s times' % (m.name, m.file, n))
    return bad


def main():
    args = sys.argv[1:]
    base = 'mainline'
    if args[:1] == ['--base']:
        if len(args) < 2 or args[1] not in ('mainline', '6.12'):
            sys.exit('mutants.py: --base takes mainline or 6.12')
        base, args = args[1], args[2:]
    table = [m for m in MUTANTS if m.base == base]
    cmd = args[0] if args else '--help'
    want = {'list': (1, 2), 'file': (2, 2), 'apply': (3, 3), 'check': (2, 2)}
    if cmd in want and not want[cmd][0] <= len(args) <= want[cmd][1]:
        sys.exit('mutants.py %s: wrong number of arguments\n%s' % (cmd, __doc__))
    if cmd == 'list' and args[1:] not in ([], ['--quick']):
        sys.exit('mutants.py list: only --quick may follow')
    if cmd == 'list':
        quick = args[1:] == ['--quick']
        for m in table:
            if not quick or m.quick:
                print('\t'.join((m.name, m.arch, m.kargs or '-', m.suite, m.file)))
    elif cmd == 'file':
        print(find(args[1], table).file)
    elif cmd == 'apply':
        m = find(args[1], table)
        path = args[2] + '/' + m.file
        text = open(path).read()
        if text.count(m.old) != 1:
            sys.exit('mutant %s: its text is not (once) in %s' % (m.name, m.file))
        open(path, 'w').write(text.replace(m.old, m.new))
    elif cmd == 'check':
        bad = check(args[1], table)
        for b in bad:
            print('mutants.py check: ' + b, file=sys.stderr)
        print('mutants.py check: %s: %d mutants, %d of them quick, %s' %
              (base, len(table), sum(m.quick for m in table),
               'apply' if not bad else 'STALE'))
        sys.exit(1 if bad else 0)
    elif cmd in ('-h', '--help'):
        print(__doc__)
    else:
        sys.exit(__doc__)


if __name__ == '__main__':
    main()
