/* SPDX-License-Identifier: GPL-2.0 */
/* What the benchmark's guest programs read of the kernel (procfs.c). */
#ifndef BENCH_PROCFS_H
#define BENCH_PROCFS_H

#include <stddef.h>

#define TRACEFS		"/sys/kernel/tracing"
#define EXTFRAG		TRACEFS "/events/kmem/mm_page_alloc_extfrag/enable"
#define MAX_CPUS	64
#define MAX_ORDER_NR	16	/* > MAX_PAGE_ORDER on every arch we boot */

/* The page geometry, set by geometry_init() */
extern long page_size;
extern int ncpus;
/*
 * Orders of a 2 MiB block (4 KiB pages: a PMD mapping, a pageblock; 16 KiB
 * and 64 KiB pages: an arm64 contiguous-PTE range) and of a 64 KiB one
 * (4 KiB pages: an arm64 contiguous-PTE range), from the page size.
 */
extern int high_order, mid_order;
extern size_t pmd_size;		/* a PMD mapping, a THP */
void geometry_init(void);

/* Print "bench: error WHAT: strerror(errno)" and exit 1 */
void die(const char *what);

/* bench.NAME= of the kernel command line: its value, NULL if absent */
const char *cmdline_value(const char *name);
long param(const char *name, long def);
/* bench.state=, "fresh" by default */
const char *state_param(void);

/*
 * The /proc/vmstat counters whose deltas are reported: the first
 * NR_VM_STATE say a cell changed the memory state the next one starts
 * from (compaction, reclaim, the OOM killer), the others are the
 * background work a cell woke.
 */
extern const char * const vm_keys[];
#define NR_VM		17
#define NR_VM_STATE	11
int vmstat_scan(const char * const *keys, size_t n, long long *v);
void read_vmstat(long long *v);
long long vmstat_value(const char *name);

/* The free blocks of each order, summed over the zones, at one moment */
struct free_blocks {
	long n[MAX_ORDER_NR];
	int orders;		/* the highest order listed + 1 */
};

void free_blocks_read(struct free_blocks *b, const char *print);
long free_blocks_kb(const struct free_blocks *b, int min_order, int max_order);
long free_kb_from(int min_order, const char *when);
long free_kb_highatomic(int min_order);
int kswapd_hopeless(void);
void print_pagetypeinfo(void);
void print_orders(const char *key, const long *n, int orders);
long slab_fallbacks(void);
void psi_memory(long long *some, long long *full);
long unmovable_blocks(void);
long extfrag_events(int reset);

/*
 * kswapd and kcompactd wake-ups (vmscan:mm_vmscan_wakeup_kswapd,
 * compaction:mm_compaction_wakeup_kcompactd) in a trace instance of their
 * own, with the waker's stack: who woke them, not only how often. A wake
 * whose stack has perf_mmap() is the AUX mmap()'s own (its buffer or its
 * page array); kcompactd is also woken by kswapd going to sleep.
 */
struct wakes {
	long kswapd, kswapd_mmap;	/* -1: the events are missing */
	long kcompactd, kcompactd_mmap, kcompactd_kswapd;
	int max_order;			/* of the kswapd wakes, -1: none */
	char gfp[160], stack[256];	/* of the first at max_order */
};

void wakes_start(void);
void wakes_read(struct wakes *w);
long meminfo_kb_of(const char *path, const char *key);
long meminfo_kb(const char *key);
long watermarks_kb(const char *which);

#endif
