#!/usr/bin/env python3
"""The mutants of harness/mutants: small edits of the series' own code.

Each mutant replaces one exact piece of text in one file of the final
tree. A mutant that would hang the kernel (a loop that never ends) is not
listed: the suites would only time out.

  mutants.py list                  NAME ARCH KARGS (one per line)
  mutants.py apply NAME TREE       edit TREE's file (fails if the text moved)
  mutants.py file NAME             the file the mutant edits
"""
import sys

RB = 'kernel/events/ring_buffer.c'
CORE = 'kernel/events/core.c'
CS = 'drivers/hwtracing/coresight/coresight-core.c'

# name, file, old text, new text, arch, extra kernel arguments
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
    ('nosg-opportunistic', RB,
     '\tbool opportunistic = st->policy != PERF_AUX_ALLOC_NOSG;\n',
     '\tbool opportunistic = true;\n',
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
    # Not listed, equivalent for the chunks: the cap of a vmap() PMU's
    # max_order at the PMD order (the tiers of rb_aux_next_order() never
    # pick more); only the tracepoint's max_order shows it (issue 25, K6).
    ('pmd-order-ignores-nohugevmalloc', RB,
     '\tif (vmap_huge_shift(PMD_SIZE, PAGE_KERNEL) == PMD_SHIFT &&\n\t    PMD_SHIFT - PAGE_SHIFT <= MAX_PAGE_ORDER)\n',
     '\tif (PMD_SHIFT - PAGE_SHIFT <= MAX_PAGE_ORDER)\n',
     'x86_64', 'nohugevmalloc'),
    ('pt-walk-skips-one', RB,
     '\t\tfor (order = limit; order > 0; order--) {\n',
     '\t\tfor (order = limit - (limit > 1); order > 0; order--) {\n',
     'x86_64', ''),
    ('nosg-any-chunk', RB,
     '\t\tif (page_private(page) != max_order)\n\t\t\tgoto out;\n',
     '\t\tif (page_private(page) > max_order)\n\t\t\tgoto out;\n',
     'x86_64', ''),
    # the core's choice and the administrator's bound
    ('policy-accepts-3', CORE,
     '\tif (policy > PERF_AUX_ALLOC_LARGE)\n\t\treturn -EINVAL;\n',
     '\tif (policy > PERF_AUX_ALLOC_LARGE + 1)\n\t\treturn -EINVAL;\n',
     'x86_64', ''),
    ('everyone-privileged', CORE,
     '\t\t\tns_capable_noaudit(&init_user_ns, CAP_PERFMON) ||\n',
     '\t\t\ttrue ||\n',
     'x86_64', ''),
    ('sysfs-bad-value-ok', CORE,
     '\tif (policy < 0)\n\t\treturn -EINVAL;\n\n\tWRITE_ONCE(pmu->aux_alloc, policy);\n',
     '\tif (policy < 0)\n\t\treturn count;\n\n\tWRITE_ONCE(pmu->aux_alloc, policy);\n',
     'x86_64', ''),
    # the page-pointer array
    ('array-reclaims', RB,
     '\tarray = kmalloc_node(size, PERF_AUX_GFP_OPPORTUNISTIC | __GFP_ZERO, node);\n',
     '\tarray = kmalloc_node(size, PERF_AUX_GFP, node);\n',
     'x86_64', ''),
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
        for m in MUTANTS:
            print(m[0], m[4], m[5] or '-')
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
