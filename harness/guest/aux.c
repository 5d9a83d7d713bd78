// SPDX-License-Identifier: GPL-2.0
/* The test AUX PMU's events and their AUX buffers, for the benchmark. */
#define _GNU_SOURCE
#include <errno.h>
#include <linux/perf_event.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "aux.h"
#include "procfs.h"

long long now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

static int pmu_type(const char *pmu)
{
	char path[256];
	int type = -1;
	FILE *f;

	snprintf(path, sizeof(path), PMU_DIR "/%s/type", pmu);
	f = fopen(path, "r");
	if (f) {
		if (fscanf(f, "%d", &type) != 1)
			type = -1;
		fclose(f);
	}
	return type;
}

int entry_pmu(const char *entry, char *pmu, size_t len, __u64 *config)
{
	char *colon;

	snprintf(pmu, len, "%s", entry);
	*config = 0;
	colon = strchr(pmu, ':');
	if (colon) {
		*config = !strcmp(colon, ":etr") ? 1ULL << 8 : 2;
		*colon = '\0';
	}
	return pmu_type(pmu);
}

int aux_open(struct cpu_buf *cb, int type, __u64 config, int cpu,
	     size_t aux_size, int prot, long long *lat_ns, long long cost[4])
{
	static const char * const stall_keys[] = { "compact_stall", "allocstall" };
	long long st0[2] = { 0, 0 }, st1[2] = { 0, 0 };
	struct perf_event_attr attr = {
		.type = type, .size = sizeof(attr), .disabled = 1,
		.config = config,
	};
	size_t rb_size = 2 * page_size;	/* user page + one data page */
	struct perf_event_mmap_page *pc;
	long long t0, s0, f0, s1, f1;
	int err;

	cb->aux = MAP_FAILED;
	cb->fd = syscall(SYS_perf_event_open, &attr, -1, cpu, -1, 0);
	if (cb->fd < 0)
		die("perf_event_open");
	cb->rb = mmap(NULL, rb_size, PROT_READ | PROT_WRITE, MAP_SHARED,
		      cb->fd, 0);
	if (cb->rb == MAP_FAILED)
		die("mmap of the ring buffer");
	pc = cb->rb;
	pc->aux_offset = rb_size;
	pc->aux_size = aux_size;
	psi_memory(&s0, &f0);
	if (cost)
		vmstat_scan(stall_keys, 2, st0);
	t0 = now_ns();
	cb->aux = mmap(NULL, aux_size, prot, MAP_SHARED, cb->fd, rb_size);
	*lat_ns = now_ns() - t0;
	err = errno;
	if (cost)
		vmstat_scan(stall_keys, 2, st1);
	psi_memory(&s1, &f1);
	if (cost) {
		if (s0 >= 0) {
			cost[0] += s1 - s0;
			cost[1] += f1 - f0;
		}
		cost[2] += st1[0] - st0[0];
		cost[3] += st1[1] - st0[1];
	}
	errno = err;
	return cb->aux == MAP_FAILED ? -1 : 0;
}

void aux_close(struct cpu_buf *cb, size_t aux_size)
{
	if (cb->fd < 0)		/* not opened (a cut cell's cycle) */
		return;
	if (cb->aux != MAP_FAILED)
		munmap(cb->aux, aux_size);
	munmap(cb->rb, 2 * page_size);
	close(cb->fd);
}
