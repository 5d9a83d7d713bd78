/* SPDX-License-Identifier: GPL-2.0 */
/* The test AUX PMU's events and their AUX buffers (aux.c). */
#ifndef BENCH_AUX_H
#define BENCH_AUX_H

#include <linux/types.h>
#include <stddef.h>

#define PMU_DIR		"/sys/bus/event_source/devices"

/* One CPU's event: its fd, ring buffer (a user page, a data page), AUX area */
struct cpu_buf {
	int fd;
	void *rb, *aux;
};

/*
 * The PMU of a run entry: a PMU name, or "aux_test_etm:etr" for the
 * cs_etm-like PMU with its ETR-like sink (format term sink=1, config:8),
 * or "aux_test_etm:large" for its TRBE-like sink with large chunks asked
 * for (format term aux_alloc=2, config:0-1), as SPE and TRBE users opt
 * in. Sets @pmu (@len bytes) and @config; returns the PMU's type, -1 if
 * it is not there.
 */
int entry_pmu(const char *entry, char *pmu, size_t len, __u64 *config);

/*
 * Open the event on @cpu and map its ring buffer, then @aux_size bytes of
 * AUX area with @prot. @lat_ns gets how long the AUX mmap() took; @cost,
 * if not NULL, is added the PSI memory stall it saw (some, full: as lmkd
 * would see it) and its compaction stalls and reclaim runs (/proc/vmstat
 * read right before and after it). Returns 0, or -1 with errno if the
 * AUX mmap() failed (cb->aux is MAP_FAILED; aux_close() still closes the
 * rest).
 */
int aux_open(struct cpu_buf *cb, int type, __u64 config, int cpu,
	     size_t aux_size, int prot, long long *lat_ns, long long cost[4]);
void aux_close(struct cpu_buf *cb, size_t aux_size);

long long now_ns(void);

#endif
