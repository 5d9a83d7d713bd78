// SPDX-License-Identifier: GPL-2.0
/*
 * The benchmark's guest program (run by guest/init.c as /tests/bench):
 * for every AUX PMU of the test AUX PMU module (aux_test*), put memory in
 * the requested state, then run the field workload of seed 000 (on every
 * CPU, mmap a per-CPU AUX buffer, hold all of them, unmap them; repeat)
 * and print what it cost and what it got, one line per PMU and cell (a
 * buffer size and mode):
 *
 *   bench: result pmu=<name> state=<state> size_kb=<N> mode=<mode>
 *          headline=<0|1> key=value ...
 *
 * Parameters come from the kernel command line:
 *   bench.state=fresh|partial|fragmented|pressure
 *   bench.pmu=N        run only the Nth PMU in name order, so that each one
 *                      gets a fresh boot ("bench: start" says how many
 *                      there are)
 *   bench.skip=NAME,.. leave these PMUs out (not run, not counted): the
 *                      policies no PMU of the guest's architecture has
 *   bench.size_kb=N    the headline cell: N KiB per CPU, writable,
 *                      bench.cycles=N cycles (default 4096 and 10), with
 *                      the floor and the THP probe; first in every boot
 *   bench.sizes=A,B..  more sizes in KiB per CPU, each writable ("write":
 *                      the default watermark, half the buffer) and in
 *                      snapshot mode ("snapshot": mapped read-only, the
 *                      overwrite mode of perf record --snapshot), with
 *                      bench.size_cycles=N cycles (default 3), for the
 *                      PMUs named in bench.grid=NAME,NAME.. only
 *   bench.big_kb=N     in the fragmented state, one more writable cell of
 *                      N KiB per CPU for every PMU but NO_SG's, with
 *                      bench.big_cycles=N cycles (default: size_cycles)
 *   bench.cell_secs=N  once a cell's mmap()s have taken N seconds, it
 *                      maps no more buffers and stops after that cycle
 *                      (default 15; at least one mmap()): the line says
 *                      the cycles that ran, and cut=1
 *   bench.repeats=N    the headline cell of the PMUs named in
 *                      bench.repeat_pmus=NAME,NAME.. N times (default
 *                      1), each pass on the memory state made anew,
 *                      before the larger cells; result lines say
 *                      repeat=R
 * Cells of one boot share the memory state: the fragmenter is started
 * once, and again after a cell that compacted or reclaimed (which would
 * leave the next cell less fragmented memory than the state promises).
 *
 * States:
 *   fresh       as booted.
 *   fragmented  a child process fills memory with anonymous pages until
 *               only FRAG_LEFT_MB above the zones' high watermarks is
 *               free, then frees every page whose PFN is not a multiple of
 *               4: plenty of free memory, but no free block above order 1
 *               beyond the left-over (order 1 stays possible, as the
 *               kernel's own small allocations, e.g. an 8 KiB kmalloc, need
 *               it: with none, even order-0 AUX mmaps end in the OOM
 *               killer), then pins FRAG_PIPE_MB of unmovable pipe pages in
 *               the holes and the left-over. It
 *               holds all this until the PMU's run ends. A second child
 *               (thp_hog()) then takes the left-over's free blocks of 2
 *               MiB and more as huge pages, so that none is free.
 *   partial     as fragmented, but only one page of every 2^high_order
 *               (2 MiB with 4 KiB pages) is kept: no free 2 MiB block,
 *               but free blocks of every order below,
 *               64 KiB to 1 MiB included, as on a phone that has run for
 *               days. Contiguous-PTE chunks can pay here, PMD blocks not.
 *   pressure    fragmented, plus a child allocating and freeing 16 MiB of
 *               anonymous memory in a loop during the run.
 *
 * Per PMU it also measures two references in the same guest and state:
 * the floor (the AUX buffer's size faulted in as anonymous memory with
 * MAP_POPULATE, per CPU, timed like the AUX mmap(): the cost of allocating
 * and zeroing the pages), and, while the first set of AUX buffers is held,
 * the THP cost probe (a child faults in THP_PROBE_MB of MADV_HUGEPAGE
 * anonymous memory with THP enabled=madvise and defrag=never, so that
 * only 2 MiB blocks that are free count; the share it got as huge pages
 * is what the held buffers left to THP).
 *
 * The benchmark itself is exempt from the OOM killer; if fragmentation
 * brings it, it kills a child and the result line counts it (oom_kill).
 */
#define _GNU_SOURCE
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/perf_event.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/klog.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "aux.h"
#include "memstate.h"
#include "periodic.h"
#include "procfs.h"
#include "ptdump.h"
#include "util.h"

#define LAYOUT_FMT	"/sys/kernel/debug/aux_test_pmu/%s/layout"
#define MAX_PMUS	16
#define THP_PROBE_MB	64	/* the THP cost probe's region */
#define MAX_CELLS	32
#define TOPA_ENTRIES	507	/* ToPA entries Intel PT's driver puts in a table */
#define COSTLY_ORDER	3	/* PAGE_ALLOC_COSTLY_ORDER: 8 to 32 KiB above 0 */

#define MAX_RUNS	64	/* the test PMU's AUX_TEST_MAX_RUNS */

static int repeat;	/* the pass of run_cells() */

/* What the test PMU's layout says of its last buffer and its allocations */
struct layout {
	long chunks;
	int nr_runs, runs_cut;		/* its chunks' orders, in order */
	int run_order[MAX_RUNS];
	long run_count[MAX_RUNS];
	long allocs, misses, errors, ns;	/* -1 without the tracepoint */
	int pmd_order, cont_order;	/* vmap()'s large orders; -1: not said */
};

/* Read the PMU's layout; add the chunks of its last buffer to hist[]. */
static void read_layout(const char *pmu, long *hist, struct layout *l)
{
	char path[256], line[2048], *p;
	int order = 0, off, o;
	long n;
	FILE *f;

	memset(l, 0, sizeof(*l));
	l->allocs = l->misses = l->errors = l->ns = -1;
	l->pmd_order = l->cont_order = -1;
	snprintf(path, sizeof(path), LAYOUT_FMT, pmu);
	f = fopen(path, "r");
	if (!f)
		die("opening the test PMU's layout");
	while (fgets(line, sizeof(line), f)) {
		if (!strncmp(line, "chunks_by_order", 15)) {
			for (p = line + 15; sscanf(p, "%ld%n", &n, &off) == 1;
			     p += off) {
				if (order < MAX_ORDER_NR)
					hist[order] += n;
				l->chunks += n;
				order++;
			}
		} else if (!strncmp(line, "runs ", 5) || !strcmp(line, "runs\n")) {
			for (p = line + 4; l->nr_runs < MAX_RUNS &&
			     sscanf(p, " %d:%ld%n", &o, &n, &off) == 2; p += off) {
				l->run_order[l->nr_runs] = o;
				l->run_count[l->nr_runs++] = n;
			}
		} else {
			sscanf(line, "runs_cut %d", &l->runs_cut);
			sscanf(line, "allocs %ld", &l->allocs);
			sscanf(line, "alloc_misses %ld", &l->misses);
			sscanf(line, "alloc_errors %ld", &l->errors);
			sscanf(line, "alloc_ns %ld", &l->ns);
			sscanf(line, "pmd_order %d", &l->pmd_order);
			sscanf(line, "cont_order %d", &l->cont_order);
		}
	}
	fclose(f);
}

/*
 * Intel PT's ToPA for a buffer whose chunks come in @l's runs, filled as
 * its driver fills it (topa_insert_entry()): TOPA_ENTRIES entries a
 * table, in the buffer's order. Counts the tables and those that mix
 * entry sizes, and what a lookup of a page walks in
 * pt_topa_entry_for_page() (on every PMI and every start and stop): the
 * tables before the page's own, then, unless the page is in the table's
 * leading run of entries of the first entry's size (z_count), each entry
 * after that run up to the page's; on average over the buffer's pages and
 * at most. Returns 0, or -1 if the runs were cut short.
 */
static int topa_cost(const struct layout *l, long *tables, long *mixed,
		     double *avg_walk, long *max_walk)
{
	long idx = 0, table = 0, lead = 0, first = -1, pages = 0, walk, k;
	double sum = 0;
	int r, in_lead = 1, is_mixed = 0;

	*tables = *mixed = *max_walk = 0;
	*avg_walk = 0;
	if (l->runs_cut || !l->nr_runs)
		return -1;
	for (r = 0; r < l->nr_runs; r++) {
		for (k = 0; k < l->run_count[r]; k++) {
			int o = l->run_order[r];

			if (idx == TOPA_ENTRIES) {	/* the next table */
				*mixed += is_mixed;
				table++;
				idx = 0;
			}
			if (!idx) {
				first = o;
				lead = 0;
				in_lead = 1;
				is_mixed = 0;
			}
			if (in_lead && o == first)
				lead++;
			else
				in_lead = 0;
			is_mixed |= o != first;
			walk = table + (idx < lead ? 0 : idx - lead + 1);
			sum += (double)walk * (1L << o);
			pages += 1L << o;
			if (walk > *max_walk)
				*max_walk = walk;
			idx++;
		}
	}
	*mixed += is_mixed;
	*tables = table + 1;
	*avg_walk = pages ? sum / pages : 0;
	return 0;
}

static int cmp_ll(const void *a, const void *b)
{
	long long x = *(const long long *)a, y = *(const long long *)b;

	return x < y ? -1 : x > y;
}

/*
 * The THP cost probe: a child faults in THP_PROBE_MB of MADV_HUGEPAGE
 * anonymous memory (THP enabled=madvise, defrag=never: no compaction, only
 * free 2 MiB blocks become huge pages) and reports its AnonHugePages; the
 * caller gets the thp_fault_alloc and thp_fault_fallback deltas too.
 */
static void thp_probe(long *alloc, long *fallback, long *anon_huge_kb)
{
	const size_t len = (size_t)THP_PROBE_MB << 20;
	long long a0 = vmstat_value("thp_fault_alloc");
	long long f0 = vmstat_value("thp_fault_fallback");
	int p[2];
	pid_t pid;

	*alloc = *fallback = *anon_huge_kb = -1;
	if (a0 < 0 || f0 < 0 || thp_free_blocks_only() || pipe(p))
		return;		/* no THP in this kernel */
	fflush(stdout);
	pid = fork();
	if (pid < 0)
		die("fork");
	if (pid == 0) {
		char *a;
		long kb = -1;
		size_t o;

		write_file("/proc/self/oom_score_adj", "0");
		a = thp_region(len);
		if (a) {
			for (o = 0; o < len; o += page_size)
				a[o] = 1;
			kb = meminfo_kb_of("/proc/self/smaps_rollup", "AnonHugePages");
		}
		if (write(p[1], &kb, sizeof(kb)) != sizeof(kb))
			_exit(1);
		_exit(0);
	}
	close(p[1]);
	if (read(p[0], anon_huge_kb, sizeof(*anon_huge_kb)) != sizeof(*anon_huge_kb))
		*anon_huge_kb = -1;
	close(p[0]);
	waitpid(pid, NULL, 0);
	*alloc = vmstat_value("thp_fault_alloc") - a0;
	*fallback = vmstat_value("thp_fault_fallback") - f0;
}

/*
 * The slab probe, as an app starting up: a child forks SLAB_PROBE_N
 * children that wait, and makes SLAB_PROBE_N pipes, all held at once,
 * then lets them go. Their slab allocations of order 1 to 3 (task_struct,
 * mm_struct, signal and file tables, pipe buffers) fall back to a smaller
 * order when no free block of their order is there (SLUB's
 * order_fallback, counted over the probe: -1 without CONFIG_SLUB_STATS);
 * forks and pipes that failed are counted too. (Pipes, not sockets: the
 * guest kernel has no networking.)
 */
#define SLAB_PROBE_N	64

static void slab_probe(long *fallbacks, long *failed)
{
	long f0 = slab_fallbacks();
	long *res = mmap(NULL, sizeof(long), PROT_READ | PROT_WRITE,
			 MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	pid_t pid;

	*fallbacks = *failed = -1;
	if (res == MAP_FAILED)
		return;
	*res = 0;
	fflush(stdout);
	pid = fork();
	if (pid < 0)
		die("fork");
	if (pid == 0) {
		pid_t kids[SLAB_PROBE_N];
		int sv[SLAB_PROBE_N][2], i;

		write_file("/proc/self/oom_score_adj", "0");
		for (i = 0; i < SLAB_PROBE_N; i++) {
			kids[i] = fork();
			if (kids[i] == 0) {
				pause();
				_exit(0);
			}
			*res += kids[i] < 0;
			if (pipe(sv[i])) {
				sv[i][0] = sv[i][1] = -1;
				(*res)++;
			}
		}
		for (i = 0; i < SLAB_PROBE_N; i++) {
			if (kids[i] > 0) {
				kill(kids[i], SIGKILL);
				waitpid(kids[i], NULL, 0);
			}
			if (sv[i][0] >= 0) {
				close(sv[i][0]);
				close(sv[i][1]);
			}
		}
		_exit(0);
	}
	waitpid(pid, NULL, 0);
	*failed = *res;
	munmap(res, sizeof(long));
	if (f0 >= 0)
		*fallbacks = slab_fallbacks() - f0;
}

/* Does the entry's policy take large chunks (the PT-like and vmap() ones)? */
static int takes_large(const char *entry)
{
	return !strcmp(entry, "aux_test_large") || !strcmp(entry, "aux_test_pt") ||
	       !strcmp(entry, "aux_test_vmap") || !strcmp(entry, "aux_test_etm:large");
}

/*
 * The floor: @n times, the AUX buffer's size of anonymous memory faulted
 * in with MAP_POPULATE (allocated and zeroed) and unmapped; latencies in ns.
 */
static void floor_latencies(long long *lat, int n, size_t size)
{
	int i;

	for (i = 0; i < n; i++) {
		long long t0 = now_ns();
		void *m = mmap(NULL, size, PROT_READ | PROT_WRITE,
			       MAP_PRIVATE | MAP_ANONYMOUS | MAP_POPULATE, -1, 0);

		lat[i] = now_ns() - t0;
		if (m == MAP_FAILED)
			die("the floor's mmap");
		munmap(m, size);
	}
}

/* One cell of a run entry (aux.h's entry_pmu()) */
static int run_pmu(const char *entry, const char *state, int cycles,
		   size_t aux_size, int snapshot, int headline)
{
	char pmu[64];
	__u64 config = 0;
	struct layout l0, l1, l;
	long topa_mixed = 0, topa_max_walk = 0, topa_bufs = 0, t, m, w;
	double topa_walk = 0, aw;
	long long psi_some0, psi_full0, psi_some1, psi_full1;
	/* over the mmap() calls: PSI some and full, compaction and reclaim stalls */
	long long mmap_cost[4] = { 0, 0, 0, 0 };
	struct free_blocks before, held = { .orders = 0 }, after;
	long slab_fb = -1, slab_failed = -1;
	/*
	 * What a large-chunk policy takes from THP and slab, on used memory;
	 * order-0 runs the same probes, as their reference: what the probes
	 * do (their forks' stacks wake kswapd) is theirs, not the policy's.
	 */
	int walk = (takes_large(entry) || !strcmp(entry, "aux_test")) &&
		   strcmp(state, "fresh");
	long small_before, small_held = -1;
	long long v0[NR_VM], v1[NR_VM], vp0[NR_VM], vp1[NR_VM], *lat;
	long long vprobe[NR_VM] = { 0 };	/* the probes' share of v1 - v0 */
	struct cpu_buf cb[MAX_CPUS];
	struct range ranges[MAX_CPUS];
	long hist[MAX_ORDER_NR] = { 0 }, scratch[MAX_ORDER_NR];
	long chunks = 0, bufs = 0, fails = 0, entries = -1, unmapped = 0;
	long topa_tables = 0;
	long held_high = -1, held_mid = -1, ub0, ub1, before_high, before_mid;
	long before_atomic;
	int hopeless;
	long extfrag, after_high;
	long thp_alloc = -1, thp_fallback = -1, thp_huge_kb = -1;
	long long *floor_lat;
	int type, c, cpu, nlat = 0, nr = 0, i, last_errno = 0, n;
	int prot = snapshot ? PROT_READ : PROT_READ | PROT_WRITE;
	long long t_cell, cell_ns = param("cell_secs", 15) * 1000000000LL;
	int cut = 0, nfloor = cycles * ncpus;	/* the floor's, not cut */
	/* each cycle's free blocks at its start, and the chunks it took */
	char *cyc_free = NULL, *cyc_chunks = NULL;
	size_t cyc_free_len, cyc_chunks_len;
	FILE *cf, *cc;
	struct free_blocks now;
	struct wakes wk;
	long chunks0;
	size_t k;

	type = entry_pmu(entry, pmu, sizeof(pmu), &config);
	if (type < 0)
		die("finding the PMU type");

	lat = calloc(cycles * ncpus, sizeof(*lat));
	floor_lat = calloc(cycles * ncpus, sizeof(*floor_lat));
	if (!lat || !floor_lat)
		die("calloc");
	/* The floor, in the same state, before the AUX buffers */
	if (headline) {
		floor_latencies(floor_lat, cycles * ncpus, aux_size);
		qsort(floor_lat, cycles * ncpus, sizeof(*floor_lat), cmp_ll);
	} else {
		for (i = 0; i < cycles * ncpus; i++)
			floor_lat[i] = -1000;
	}
	/*
	 * The floor's memory, freed, may have merged into 2 MiB blocks that
	 * the state says are not there: a hog takes them first.
	 */
	if (headline)
		state_top_up();
	free_blocks_read(&before, pmu);
	before_high = free_blocks_kb(&before, high_order, -1);
	before_atomic = free_kb_highatomic(high_order);
	hopeless = kswapd_hopeless();
	before_mid = free_blocks_kb(&before, mid_order, -1);
	small_before = free_blocks_kb(&before, 1, COSTLY_ORDER);
	ub0 = unmovable_blocks();
	extfrag_events(1);
	wakes_start();
	read_layout(pmu, scratch, &l0);
	psi_memory(&psi_some0, &psi_full0);
	read_vmstat(v0);

	cf = open_memstream(&cyc_free, &cyc_free_len);
	cc = open_memstream(&cyc_chunks, &cyc_chunks_len);
	if (!cf || !cc)
		die("open_memstream");
	t_cell = now_ns();
	for (c = 0; c < cycles; c++) {
		/*
		 * What the free lists hold as this cycle starts: the pages
		 * the last cycle freed wait on the per-CPU lists, outside
		 * the buddy's blocks, so the report's oracle is per cycle.
		 * Read right before the mmap()s, the first cycle's too: the
		 * cell's own setup since "before" (the wake-up trace, the
		 * layout and /proc reads) allocates too.
		 */
		free_blocks_read(&now, NULL);
		for (i = 0; i < now.orders; i++)
			fprintf(cf, "%s%ld", i ? ":" : (c ? "/" : ""), now.n[i]);
		chunks0 = chunks;
		for (cpu = 0; cpu < ncpus; cpu++) {
			cb[cpu].fd = -1;
			if (nlat && now_ns() - t_cell > cell_ns) {
				cut = 1;	/* no more buffers: see below */
				continue;
			}
			aux_open(&cb[cpu], type, config, cpu, aux_size, prot,
				 &lat[nlat++], mmap_cost);
			if (cb[cpu].aux == MAP_FAILED) {
				fails++;
				last_errno = errno;
				continue;
			}
			read_layout(pmu, hist, &l);
			n = l.chunks;
			chunks += n;
			topa_tables += (n + TOPA_ENTRIES - 1) / TOPA_ENTRIES;
			bufs++;
			if (!topa_cost(&l, &t, &m, &aw, &w)) {
				topa_mixed += m;
				topa_walk += aw;
				topa_bufs++;
				if (w > topa_max_walk)
					topa_max_walk = w;
			}
		}
		fprintf(cc, "%s%ld", c ? ":" : "", chunks - chunks0);
		if (c == 0) {
			/* While the first set of buffers is held */
			free_blocks_read(&held, "held");
			held_high = free_blocks_kb(&held, high_order, -1);
			held_mid = free_blocks_kb(&held, mid_order, -1);
			small_held = free_blocks_kb(&held, 1, COSTLY_ORDER);
			/*
			 * What the probes' own allocations cost (their forks
			 * compact for order-1 to -3 blocks that the walk took)
			 * is the probes', not this cell's workload's: it is
			 * taken out of the cell's counters and said apart.
			 */
			read_vmstat(vp0);
			if (headline || walk)
				thp_probe(&thp_alloc, &thp_fallback, &thp_huge_kb);
			if (walk)
				slab_probe(&slab_fb, &slab_failed);
			read_vmstat(vp1);
			for (k = 0; k < NR_VM; k++)
				vprobe[k] = vp1[k] - vp0[k];
		}
		/*
		 * A cell past bench.cell_secs maps no more buffers and stops
		 * after this cycle (the policies that compact took up to a
		 * minute per mmap() on arm64's fragmented memory): its
		 * figures are per mmap() (or per buffer), and the line says
		 * how many cycles ran (cut=1).
		 */
		cut = cut || (c + 1 < cycles && now_ns() - t_cell > cell_ns);
		if (c == cycles - 1 || cut) {
			/*
			 * While the last set is held: reading arm64's page
			 * table dump can let the fragmenter's blocks merge
			 * (seen on "partial" memory), which would change what
			 * later cycles find.
			 */
			nr = aux_mappings(ranges, MAX_CPUS);
			if (nr)
				entries = translations(ranges, nr, &unmapped);
		}
		for (cpu = 0; cpu < ncpus; cpu++)
			aux_close(&cb[cpu], aux_size);
		if (cut) {
			cycles = c + 1;
			break;
		}
	}

	read_vmstat(v1);
	fclose(cf);
	fclose(cc);
	psi_memory(&psi_some1, &psi_full1);
	read_layout(pmu, scratch, &l1);
	extfrag = extfrag_events(0);
	wakes_read(&wk);
	ub1 = unmovable_blocks();
	free_blocks_read(&after, "after");
	after_high = free_blocks_kb(&after, high_order, -1);
	qsort(lat, nlat, sizeof(*lat), cmp_ll);

	printf("bench: result pmu=%s state=%s cpus=%d cycles=%d cut=%d size_kb=%zu mode=%s headline=%d repeat=%d",
	       entry, state, ncpus, cycles, cut, aux_size >> 10,
	       snapshot ? "snapshot" : "write", headline, repeat);
	for (k = 0; k < NR_VM; k++)
		printf(" %s=%lld", vm_keys[k], v1[k] - v0[k] - vprobe[k]);
	for (k = 0; k < NR_VM; k++)
		printf(" probe_%s=%lld", vm_keys[k], vprobe[k]);
	printf(" mmaps=%d failed=%ld errno=%d lat_p50_us=%.1f lat_p99_us=%.1f",
	       nlat, fails, last_errno, lat[nlat / 2] / 1000.0,
	       lat[(nlat * 99) / 100 < nlat ? (nlat * 99) / 100 : nlat - 1] /
	       1000.0);
	printf(" chunks_per_buf=%.2f topa_tables_per_buf=%.2f",
	       bufs ? (double)chunks / bufs : -1.0,
	       bufs ? (double)topa_tables / bufs : -1.0);
	printf(" order_hist=");
	for (i = 0; i < MAX_ORDER_NR; i++)
		printf("%s%ld", i ? ":" : "", hist[i]);
	printf(" translations=%ld translations_per_mb=%.2f unmapped_pages=%ld",
	       entries, entries < 0 ? -1.0 :
	       (double)entries * 1024 / ((double)nr * (aux_size >> 10)),
	       unmapped);
	printf(" page_kb=%ld free_kb_2m_before=%ld free_kb_2m_held=%ld free_kb_2m_after=%ld",
	       page_size >> 10, before_high, held_high, after_high);
	printf(" free_kb_64k_before=%ld free_kb_64k_held=%ld",
	       before_mid, held_mid);
	/* of free_kb_2m_before, in the high-order atomic reserve */
	printf(" free_kb_2m_highatomic_before=%ld", before_atomic);
	/* kswapd had given up on the node: no policy could wake it */
	printf(" kswapd_hopeless_before=%d", hopeless);
	printf(" extfrag=%ld unmovable_blocks_delta=%ld", extfrag, ub1 - ub0);
	printf(" floor_p50_us=%.1f thp_fault_alloc=%ld thp_fault_fallback=%ld thp_anon_huge_kb=%ld thp_probe_kb=%d thp_kb=%zu",
	       floor_lat[nfloor / 2] / 1000.0, thp_alloc, thp_fallback,
	       thp_huge_kb, THP_PROBE_MB << 10, pmd_size >> 10);
	printf(" free_kb_costly_before=%ld free_kb_costly_held=%ld",
	       small_before, small_held);
	printf(" psi_some_us=%lld psi_full_us=%lld",
	       psi_some0 < 0 ? -1 : psi_some1 - psi_some0,
	       psi_full0 < 0 ? -1 : psi_full1 - psi_full0);
	printf(" psi_some_mmap_us=%lld psi_full_mmap_us=%lld",
	       psi_some0 < 0 ? -1 : mmap_cost[0],
	       psi_full0 < 0 ? -1 : mmap_cost[1]);
	printf(" compact_stall_mmap=%lld allocstall_mmap=%lld",
	       mmap_cost[2], mmap_cost[3]);
	print_orders("free_blocks_before", before.n, before.orders);
	print_orders("free_blocks_held", held.n, held.orders);
	printf(" cycle_chunks=%s cycle_free_blocks=%s", cyc_chunks, cyc_free);
	printf(" kswapd_wakes=%ld kswapd_wakes_mmap=%ld kswapd_wake_order=%d",
	       wk.kswapd, wk.kswapd_mmap, wk.max_order);
	printf(" kcompactd_wakes=%ld kcompactd_wakes_mmap=%ld kcompactd_wakes_kswapd=%ld",
	       wk.kcompactd, wk.kcompactd_mmap, wk.kcompactd_kswapd);
	printf(" walk=%d slab_fallbacks=%ld slab_probe_failed=%ld",
	       walk, slab_fb, slab_failed);
	printf(" vmap_pmd_order=%d vmap_cont_order=%d", l1.pmd_order, l1.cont_order);
	printf(" topa_bufs=%ld topa_mixed_per_buf=%.2f topa_walk_avg=%.2f topa_walk_max=%ld",
	       topa_bufs, topa_bufs ? (double)topa_mixed / topa_bufs : -1.0,
	       topa_bufs ? topa_walk / topa_bufs : -1.0,
	       topa_bufs ? topa_max_walk : -1);
	if (l0.allocs < 0)	/* no tracepoint: the base kernel */
		printf(" tp_allocs=-1 tp_misses=-1 tp_errors=-1 tp_alloc_us=-1.0\n");
	else
		printf(" tp_allocs=%ld tp_misses=%ld tp_errors=%ld tp_alloc_us=%.1f\n",
		       l1.allocs - l0.allocs, l1.misses - l0.misses,
		       l1.errors - l0.errors,
		       l1.allocs > l0.allocs ?
		       (l1.ns - l0.ns) / 1000.0 / (l1.allocs - l0.allocs) : -1.0);
	/* Who woke kswapd at the highest order: its mask and stack */
	if (wk.max_order >= 0)
		printf("bench: waker pmu=%s size_kb=%zu mode=%s repeat=%d order=%d gfp=%s stack=%s\n",
		       entry, aux_size >> 10, snapshot ? "snapshot" : "write",
		       repeat, wk.max_order, wk.gfp[0] ? wk.gfp : "?",
		       wk.stack[0] ? wk.stack : "?");
	fflush(stdout);
	free(lat);
	free(floor_lat);
	free(cyc_free);
	free(cyc_chunks);
	/*
	 * Did this cell change the memory state the next one starts from
	 * (compaction, reclaim, or the OOM killer, whose victim is the
	 * fragmenter or the hog)?
	 */
	for (k = 0; k < NR_VM_STATE; k++)
		if (v1[k] != v0[k])
			return 1;
	return 0;
}

struct cell {
	size_t size_kb;
	int snapshot, cycles, headline;
};

/* Is @pmu in @list, a comma-separated list ended by a space or the end? */
static int in_list(const char *list, const char *pmu)
{
	size_t len = strlen(pmu);
	const char *p = list;

	while (p && *p && !isspace((unsigned char)*p)) {
		if (!strncmp(p, pmu, len) &&
		    (p[len] == ',' || !p[len] || isspace((unsigned char)p[len])))
			return 1;
		p += strcspn(p, ", \n");
		if (*p != ',')
			break;
		p++;
	}
	return 0;
}

/* The cells of one PMU, headline first; returns how many. */
static int cells_of(const char *entry, const char *state, size_t size_kb,
		    int cycles, struct cell *cells)
{
	const char *sizes = cmdline_value("sizes"), *grid = cmdline_value("grid");
	int size_cycles = param("size_cycles", 3), n = 0, snap;
	int big_cycles = param("big_cycles", size_cycles);
	long big_kb = param("big_kb", 0), kb;
	const char *p;
	char *end;

	cells[n++] = (struct cell){ size_kb, 0, cycles, 1 };
	if (sizes && grid && in_list(grid, entry)) {
		for (p = sizes; n < MAX_CELLS - 3; p = end + 1) {
			kb = strtol(p, &end, 10);
			if (end == p || kb <= 0)
				break;
			for (snap = 0; snap < 2; snap++)
				if ((size_t)kb != size_kb || snap)
					cells[n++] = (struct cell){ kb, snap,
								    size_cycles, 0 };
			if (*end != ',')
				break;
		}
	}
	if (big_kb > 0 && !strcmp(state, "fragmented") &&
	    !strstr(entry, "nosg"))
		cells[n++] = (struct cell){ big_kb, 0, big_cycles, 0 };
	return n;
}

/*
 * Every cell of one PMU, in the state: the headline bench.repeats times
 * for the PMUs of bench.repeat_pmus (once for the others) and the other
 * cells up to its size once, then the larger ones once. The state is
 * made anew for each pass and after a cell that changed it. The larger
 * cells come last because the state made again after them is not the
 * state made at boot: the fragmenter, started again after 256 MiB of
 * single pages were freed, left 28 to 40 free 1 MiB blocks where it had
 * left 0 to 3 (a run of 2026-12-07), and the repeats measured that other
 * state.
 */
static void run_cells(const char *entry, const char *state, size_t size_kb,
		      int cycles)
{
	struct cell cells[MAX_CELLS];
	int n = cells_of(entry, state, size_kb, cycles, cells), i, changed, pass;
	const char *rep_pmus = cmdline_value("repeat_pmus");
	int reps = rep_pmus && in_list(rep_pmus, entry) ? param("repeats", 1) : 1;

	for (pass = 0; pass <= reps; pass++) {
		int large = pass == reps;	/* the larger cells, once */

		repeat = large ? 0 : pass;
		changed = 1;
		for (i = 0; i < n; i++) {
			if ((cells[i].size_kb > size_kb) != large ||
			    (pass && !large && !cells[i].headline))
				continue;
			if (changed || !state_alive()) {
				if (i || pass)
					printf("bench: state %s made again\n", state);
				state_leave();
				state_enter(state);
			}
			/*
			 * Freed memory may have merged into 2 MiB blocks, and
			 * more merge as the per-CPU lists drain (26 MiB once,
			 * right after the state was made)
			 */
			state_top_up();
			changed = run_pmu(entry, state, cells[i].cycles,
					  cells[i].size_kb << 10, cells[i].snapshot,
					  cells[i].headline);
		}
	}
	state_leave();
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char * const *)a, *(char * const *)b);
}

int main(void)
{
	const char *state = state_param();
	int cycles = param("cycles", 10), only = param("pmu", -1);
	const char *skip = cmdline_value("skip");
	size_t size_kb = param("size_kb", 4096);
	char *pmus[MAX_PMUS];
	struct dirent *d;
	int n = 0, i;
	DIR *dir;

	geometry_init();
	setvbuf(stdout, NULL, _IOLBF, 0);
	/*
	 * The console is this program's stdout too: keep the kernel's info
	 * messages (e.g. a late "tsc: Refined TSC clocksource calibration")
	 * from landing inside a result line; warnings and worse still print.
	 */
	klogctl(8 /* SYSLOG_ACTION_CONSOLE_LEVEL */, NULL, 5);
	if (strcmp(state, "fresh") && strcmp(state, "fragmented") &&
	    strcmp(state, "partial") && strcmp(state, "pressure")) {
		errno = EINVAL;
		die("bench.state");
	}
	memstate_init();
	/* Real addresses in /proc/vmallocinfo (%pK) for root */
	write_file("/proc/sys/kernel/kptr_restrict", "1");
	/* Room for every extfrag event of a run (stats count overruns too) */
	write_file(TRACEFS "/buffer_size_kb", "1024");
	if (cmdline_value("periodic"))
		return run_periodic();

	dir = opendir(PMU_DIR);
	if (!dir)
		die("opening " PMU_DIR);
	/*
	 * aux_test_etm allocates as aux_test (its TRBE-like and ETR-like
	 * sinks get single pages by default) or as aux_test_vmap (asked for
	 * large chunks): its sink rule is the selftests', not a cost.
	 */
	while ((d = readdir(dir)) && n < MAX_PMUS) {
		if (strncmp(d->d_name, "aux_test", 8) ||
		    !strcmp(d->d_name, "aux_test_etm") ||
		    (skip && in_list(skip, d->d_name)))
			continue;
		pmus[n++] = strdup(d->d_name);
	}
	closedir(dir);
	if (!n) {
		errno = ENOENT;
		die("finding the test AUX PMUs");
	}
	qsort(pmus, n, sizeof(*pmus), cmp_str);

	printf("bench: start state=%s cycles=%d size_kb=%zu cpus=%d pmus=%d\n",
	       state, cycles, size_kb, ncpus, n);
	for (i = 0; i < n; i++)
		if (only < 0 || only == i)
			run_cells(pmus[i], state, size_kb, cycles);
	printf("bench: end\n");
	return 0;
}
