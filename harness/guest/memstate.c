// SPDX-License-Identifier: GPL-2.0
/*
 * The memory states the benchmark measures in and harness/fragmented
 * runs the selftests in (see bench.c's top comment): the children that
 * make and hold them (the fragmenter, the THP hog, the pressure loop).
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include "memstate.h"
#include "procfs.h"
#include "util.h"

#define FRAG_LEFT_MB	32	/* above the high watermarks */
#define FRAG_PIPE_MB	64
#define PRESSURE_MB	16

/*
 * THP for MADV_HUGEPAGE regions only, and without compaction: a fault
 * gets a huge page only if a free 2 MiB block is there.  Non-zero if this
 * kernel has no THP.
 */
int thp_free_blocks_only(void)
{
	return write_file("/sys/kernel/mm/transparent_hugepage/enabled", "madvise") ||
	       write_file("/sys/kernel/mm/transparent_hugepage/defrag", "never");
}

/* @len bytes of MADV_HUGEPAGE anonymous memory aligned to a THP, or NULL. */
char *thp_region(size_t len)
{
	char *m = mmap(NULL, len + pmd_size, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	char *a;

	if (m == MAP_FAILED)
		return NULL;
	a = (char *)(((unsigned long)m + pmd_size - 1) & ~(pmd_size - 1));
	madvise(a, len, MADV_HUGEPAGE);
	return a;
}

static pid_t spawn(void (*fn)(int), int ready_fd)
{
	pid_t pid = fork();

	if (pid < 0)
		die("fork");
	if (pid == 0) {
		/* The parent is exempt from the OOM killer; children are not. */
		write_file("/proc/self/oom_score_adj", "0");
		fn(ready_fd);
		_exit(0);
	}
	return pid;
}

/*
 * The pages a cell freed may wait on the per-CPU lists and merge into 2
 * MiB blocks only when those drain, after a top-up (a 2026-12-07 run had
 * a cell start with 14 MiB of them): each write to stat_refresh shrinks
 * every CPU's list by an eighth (decay_pcp_high()), and 16 leave about
 * its minimum.
 */
static void drain_pcp_lists(void)
{
	int i;

	for (i = 0; i < 16; i++)
		write_file("/proc/sys/vm/stat_refresh", "1");
}

/* Pages of which the fragmenter keeps one (by PFN): see the states. */
static unsigned long frag_keep = 4;

/* The fragmenter: see the top of the file. Signals ready_fd, then holds. */
static void fragmenter(int ready_fd)
{
	long left_kb, free_kb;
	int pm, pipes[FRAG_PIPE_MB][2], i;
	size_t len, npages, pg, freed = 0;
	uint64_t *pfns;
	char *mem, *buf;
	cpu_set_t one;

	/*
	 * On one CPU, with the per-CPU lists drained first: the fill's
	 * allocations refill the list of each CPU it runs on, and pages left
	 * on other CPUs' lists are free but out of its reach, counted in no
	 * MemFree; a run of 2026-12-07 had 42 MiB of them when the fill, 32
	 * MiB short of the watermark by MemFree, ended in the OOM killer.
	 */
	CPU_ZERO(&one);
	CPU_SET(0, &one);
	sched_setaffinity(0, sizeof(one), &one);
	drain_pcp_lists();
	left_kb = watermarks_kb("high") + FRAG_LEFT_MB * 1024L;
	free_kb = meminfo_kb("MemFree");

	/*
	 * Pipes first: sizing one allocates its (order-2) buffer array,
	 * which fragmented memory might only give after reclaim.
	 */
	for (i = 0; i < FRAG_PIPE_MB; i++)
		if (pipe(pipes[i]) || fcntl(pipes[i][1], F_SETPIPE_SZ, 1 << 20) < 0)
			die("fragmenter pipe");

	/* Take all but the left-over, then free 3 pages of every 4. */
	if (free_kb <= 4 * left_kb)
		die("too little memory to fragment");
	len = (size_t)(free_kb - left_kb) * 1024;
	npages = len / page_size;
	/* Before the fill, so that freeing it later frees no large block */
	pfns = calloc(npages, sizeof(*pfns));
	if (!pfns)
		die("fragmenter calloc");
	mem = mmap(NULL, len, PROT_READ | PROT_WRITE,
		   MAP_PRIVATE | MAP_ANONYMOUS | MAP_POPULATE, -1, 0);
	if (mem == MAP_FAILED)
		die("fragmenter mmap");
	for (pg = 0; pg < npages; pg++)
		mem[pg * page_size] = 1;

	pm = open("/proc/self/pagemap", O_RDONLY);
	if (pm < 0 ||
	    pread(pm, pfns, npages * sizeof(*pfns),
		  (uintptr_t)mem / page_size * sizeof(*pfns)) !=
	    (ssize_t)(npages * sizeof(*pfns)))
		die("reading pagemap");
	close(pm);
	for (pg = 0; pg < npages; pg++) {
		uint64_t pfn = pfns[pg] & ((1ULL << 55) - 1);

		/* keep one page in frag_keep, free the others */
		if ((pfns[pg] >> 63) && (pfn & (frag_keep - 1))) {
			madvise(mem + pg * page_size, page_size, MADV_DONTNEED);
			freed++;
		}
	}
	free(pfns);

	/* Unmovable pages: pipe buffers, one page per 4 KiB write. */
	buf = calloc(1, page_size);
	for (i = 0; i < FRAG_PIPE_MB; i++) {
		int k;

		for (k = 0; k < (1 << 20) / page_size; k++)
			if (write(pipes[i][1], buf, page_size) != page_size)
				die("filling a pipe");
	}
	printf("bench: fragmenter anon_mb=%zu freed_mb=%zu pipe_mb=%d left_mb=%ld keep_one_in=%lu\n",
	       len >> 20, freed * page_size >> 20, FRAG_PIPE_MB, left_kb >> 10,
	       frag_keep);
	fflush(stdout);
	if (write(ready_fd, "r", 1) != 1)
		die("signalling ready");
	for (;;)
		pause();
}

/*
 * Background allocations: 16 MiB of anonymous memory, taken and given
 * back in a loop. It is started before memory is fragmented (forking
 * then needs a high-order kernel stack) and waits for SIGUSR1.
 */
static void pressure(int ready_fd)
{
	size_t len = PRESSURE_MB << 20;
	sigset_t set;
	int sig;

	sigemptyset(&set);
	sigaddset(&set, SIGUSR1);
	if (write(ready_fd, "r", 1) != 1)
		die("signalling ready");
	sigwait(&set, &sig);
	for (;;) {
		char *m = mmap(NULL, len, PROT_READ | PROT_WRITE,
			       MAP_PRIVATE | MAP_ANONYMOUS | MAP_POPULATE, -1, 0);

		if (m != MAP_FAILED)
			munmap(m, len);
	}
}

/*
 * The left-over of the fragmenter (the memory it leaves free so that the
 * kernel keeps working) is in the largest free blocks: the fill takes the
 * smallest first. Take every free block of 2 MiB or more as a transparent
 * huge page of 2 MiB (with 4 KiB pages the PMD size; with 16 KiB pages a
 * multi-size THP, hugepages-2048kB, enabled here for the hog only) or of
 * the PMD size, with THP defrag "never": only blocks that are free, no
 * compaction: else the left-over keeps free 2 MiB blocks that the states
 * promise are not there. Signals ready_fd, then holds.
 */
#define MTHP_2M	"/sys/kernel/mm/transparent_hugepage/hugepages-2048kB/"

/* Anonymous 2 MiB THPs faulted in so far (mTHP statistics), -1 if none */
static long long mthp_2m_faults(void)
{
	long long n = -1;
	FILE *f = fopen(MTHP_2M "stats/anon_fault_alloc", "r");

	if (f) {
		if (fscanf(f, "%lld", &n) != 1)
			n = -1;
		fclose(f);
	}
	return n;
}

static void thp_hog(int ready_fd)
{
	long left = free_kb_from(high_order, NULL), now, taken = 0;
	char old[64] = "", *sel, *end;
	int i, stuck = 0;
	FILE *f;

	thp_free_blocks_only();
	/* 16 KiB pages: 2 MiB is a size of its own; keep its setting. */
	f = pmd_size != 2UL << 20 ? fopen(MTHP_2M "enabled", "r") : NULL;
	if (f) {
		if (fgets(old, sizeof(old), f)) {
			sel = strchr(old, '[');
			end = sel ? strchr(sel, ']') : NULL;
			if (end) {
				*end = '\0';
				memmove(old, sel + 1, strlen(sel + 1) + 1);
			} else {
				old[0] = '\0';
			}
		}
		fclose(f);
		write_file(MTHP_2M "enabled", "inherit");
	}
	/*
	 * Until 4 faults in a row got no huge page. Freed pages leave the
	 * per-CPU lists and merge into 2 MiB blocks while the hog runs, so
	 * the free blocks' count cannot say whether a fault took one (it
	 * stopped hogs that were taking blocks as fast as they formed: a
	 * run of 2026-12-07); the 2 MiB size's fault counter can (the PMD
	 * size's, or the mTHP size's with 16 KiB pages).
	 */
	for (i = 0; i < 1024 && left > 0 && stuck < 4; i++) {
		long long faults = mthp_2m_faults();
		char *a = thp_region(2UL << 20);
		int huge;

		if (!a)
			break;
		a[0] = 1;	/* one fault: a huge page if a block is free */
		now = free_kb_from(high_order, NULL);
		huge = faults >= 0 ? mthp_2m_faults() > faults : now < left;
		stuck = huge ? 0 : stuck + 1;
		taken += huge ? 2048 : 0;
		left = now;
	}
	if (old[0])
		write_file(MTHP_2M "enabled", old);
	printf("bench: hog took_mb=%ld left_kb_2m=%ld highatomic_kb=%ld faults=%d\n",
	       taken >> 10, left, left ? free_kb_highatomic(high_order) : 0, i);
	/* what kept the hog from the blocks left: their types */
	if (left)
		print_pagetypeinfo();
	fflush(stdout);
	if (write(ready_fd, "r", 1) != 1)
		_exit(1);
	for (;;)
		pause();
}

static pid_t start_child(void (*fn)(int))
{
	int p[2];
	char c;
	pid_t pid;

	if (pipe(p))
		die("pipe");
	fflush(stdout);
	pid = spawn(fn, p[1]);
	close(p[1]);
	if (read(p[0], &c, 1) != 1)
		die("child did not get ready");
	close(p[0]);
	return pid;
}

static void stop_child(pid_t pid)
{
	if (pid > 0) {
		kill(pid, SIGKILL);
		waitpid(pid, NULL, 0);
	}
}

/*
 * The memory state of the cells: its children (see the top of the file),
 * and more hogs for 2 MiB blocks that a cell's freed memory made.
 */
#define MAX_HOGS	32
static pid_t state_frag, state_press, state_hog, state_hogs[MAX_HOGS];
static int state_nhogs;

void state_leave(void)
{
	stop_child(state_press);
	while (state_nhogs)
		stop_child(state_hogs[--state_nhogs]);
	stop_child(state_hog);
	stop_child(state_frag);
	state_press = state_frag = state_hog = 0;
}

/* Are the state's children still there (the OOM killer may take them)? */
int state_alive(void)
{
	pid_t kids[] = { state_frag, state_hog, state_press };
	size_t i;

	for (i = 0; i < sizeof(kids) / sizeof(kids[0]); i++)
		if (kids[i] > 0 && waitpid(kids[i], NULL, WNOHANG) != 0)
			return 0;
	return 1;
}

void state_enter(const char *state)
{
	if (!strcmp(state, "pressure"))
		state_press = start_child(pressure);
	if (!strcmp(state, "partial"))
		frag_keep = 1UL << high_order;
	if (strcmp(state, "fresh")) {
		state_frag = start_child(fragmenter);
		state_hog = start_child(thp_hog);
	}
	if (state_press)
		kill(state_press, SIGUSR1);
}

void state_top_up(void)
{
	drain_pcp_lists();
	if (state_hog && state_nhogs < MAX_HOGS && free_kb_from(high_order, NULL) > 0)
		state_hogs[state_nhogs++] = start_child(thp_hog);
}

void memstate_init(void)
{
	sigset_t usr1;

	/*
	 * If fragmented memory brings the OOM killer, it takes a child (the
	 * fragmenter is the largest), not this program. SIGUSR1 starts the
	 * pressure child (blocked here, so that it waits for it in sigwait()).
	 */
	write_file("/proc/self/oom_score_adj", "-1000");
	sigemptyset(&usr1);
	sigaddset(&usr1, SIGUSR1);
	sigprocmask(SIG_BLOCK, &usr1, NULL);
	/*
	 * Keep the fragmented state as the fragmenter leaves it, so that the
	 * compaction a run counts is its policy's own: no proactive
	 * compaction; no watermark boost, whose kswapd run after an
	 * allocation falls back to another pageblock type wakes kcompactd
	 * for pageblock-sized blocks (seen on arm64: the "partial" state
	 * merged back into free 4 MiB blocks during a run; the extfrag
	 * column still counts those fallbacks); and no direct compaction by
	 * khugepaged in the THP probe's region (it counted as stalls).
	 */
	write_file("/proc/sys/vm/compaction_proactiveness", "0");
	write_file("/proc/sys/vm/watermark_boost_factor", "0");
	write_file("/sys/kernel/mm/transparent_hugepage/khugepaged/defrag", "0");
}
