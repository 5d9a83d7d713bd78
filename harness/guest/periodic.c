// SPDX-License-Identifier: GPL-2.0
/*
 * The benchmark's periodic-collection scenario (bench.periodic=N), the
 * field report behind the series: phones that collected traces every few
 * seconds, 4 MiB per CPU, had apps killed to satisfy the allocation.
 *
 * Background "apps" (children) fill memory: each faults in APP_MB of
 * anonymous memory, until one more would leave less than
 * PERIODIC_FLOOR_MB above the zones' low watermarks; then they give back
 * pages of odd PFN until PERIODIC_LEFT_MB above the low watermarks and
 * the AUX buffers' size are free, so that most of what is free is in
 * single pages, between movable pages that compaction could move. (Each
 * app giving back its half at once would not do: the next app's memory
 * would be the pages just given back.) A killer acts as Android's lmkd does: a PSI
 * trigger on /proc/pressure/memory (a "some" stall of PERIODIC_STALL_MS in
 * a second, lmkd's default for its first level) and, when it fires,
 * SIGKILL to the largest app. Then N times, every bench.period_ms (default
 * 2000), one bench.size_kb (4096) buffer per CPU of the entry's PMU
 * (bench.entry=, aux.h's entry_pmu()) is mapped, held bench.hold_ms (500)
 * and unmapped; before the next collection, killed apps are started
 * again, so that every collection meets the same pressure. Prints
 *
 *   bench: periodic entry=<entry> collections=<N> cpus=<C> size_kb=<K>
 *          apps=<n> kills=<n> oom_kill=<n> failed=<n> psi_some_us=<us>
 *          psi_full_us=<us> coll_p50_ms=<ms> coll_max_ms=<ms> key=value...
 *
 * with the /proc/vmstat deltas of the whole scenario.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include "aux.h"
#include "periodic.h"
#include "procfs.h"
#include "util.h"

#define APP_MB			16
#define MAX_APPS		128
#define PERIODIC_LEFT_MB	8
#define PERIODIC_FLOOR_MB	4
#define PERIODIC_STALL_MS	70

/* What the killer and the collections share (MAP_SHARED) */
struct apps {
	pid_t pid[MAX_APPS];
	int n;
	long kills;
};

/* The collections' side of each app: its command and reply pipes */
static int app_cmd[MAX_APPS], app_reply[MAX_APPS];

/*
 * An app: faults in APP_MB of anonymous memory and says so; then, told
 * how many pages to give back, gives back up to that many of its pages of
 * odd PFN (whose buddies it keeps, so that they stay single free pages,
 * as the fragmenter does, memstate.c), says so, and holds the rest.
 */
static void app(int cmd_fd, int reply_fd)
{
	size_t len = (size_t)APP_MB << 20, npages = len / page_size, pg;
	uint64_t *pfns = calloc(npages, sizeof(*pfns));
	long give = 0, given = 0;
	char *m;
	int pm;

	write_file("/proc/self/oom_score_adj", "0");
	m = mmap(NULL, len, PROT_READ | PROT_WRITE,
		 MAP_PRIVATE | MAP_ANONYMOUS | MAP_POPULATE, -1, 0);
	if (m == MAP_FAILED || !pfns)
		_exit(1);
	for (pg = 0; pg < npages; pg++)
		m[pg * page_size] = 1;
	pm = open("/proc/self/pagemap", O_RDONLY);
	if (pm < 0 || pread(pm, pfns, npages * sizeof(*pfns),
			    (uintptr_t)m / page_size * sizeof(*pfns)) !=
		      (ssize_t)(npages * sizeof(*pfns)))
		_exit(1);
	close(pm);
	if (write(reply_fd, &given, sizeof(given)) != sizeof(given) ||
	    read(cmd_fd, &give, sizeof(give)) != sizeof(give))
		_exit(1);
	for (pg = 0; pg < npages && given < give; pg++)
		if ((pfns[pg] >> 63) && (pfns[pg] & 1)) {
			madvise(m + pg * page_size, page_size, MADV_DONTNEED);
			given++;
		}
	free(pfns);
	if (write(reply_fd, &given, sizeof(given)) != sizeof(given))
		_exit(1);
	for (;;)
		pause();
}

/* Start an app in slot @i; back when its memory is in (0), or -1 */
static int start_app(struct apps *a, int i)
{
	int cmd[2], reply[2];
	long got;

	if (pipe(cmd) || pipe(reply))
		die("pipe");
	fflush(stdout);
	a->pid[i] = fork();
	if (a->pid[i] < 0)
		die("fork");
	if (a->pid[i] == 0) {
		close(cmd[1]);
		close(reply[0]);
		app(cmd[0], reply[1]);
	}
	close(cmd[0]);
	close(reply[1]);
	app_cmd[i] = cmd[1];
	app_reply[i] = reply[0];
	if (i >= a->n)
		a->n = i + 1;
	return read(reply[0], &got, sizeof(got)) == sizeof(got) ? 0 : -1;
}

/*
 * Fill the empty slots: apps until one more would leave less than
 * PERIODIC_FLOOR_MB above the low watermarks, then the new ones give back
 * pages, in single pages, until @left_kb is free.
 */
static void fill(struct apps *a, long left_kb)
{
	long floor_kb = watermarks_kb("low") + PERIODIC_FLOOR_MB * 1024L;
	long give, given;
	int i, fresh[MAX_APPS], n = 0;

	for (i = 0; i < MAX_APPS &&
	     meminfo_kb("MemFree") - APP_MB * 1024L > floor_kb; i++)
		if (a->pid[i] <= 0 && !start_app(a, i))
			fresh[n++] = i;
	give = (left_kb - meminfo_kb("MemFree")) / (page_size / 1024);
	for (i = 0; i < n; i++) {
		given = give > 0 ? give / (n - i) : 0;
		if (write(app_cmd[fresh[i]], &given, sizeof(given)) != sizeof(given) ||
		    read(app_reply[fresh[i]], &given, sizeof(given)) != sizeof(given))
			given = 0;	/* it died: the slot is reaped later */
		give -= given;
	}
}

/* Reap the killed apps: their slots are empty again */
static void reap(struct apps *a)
{
	int i;

	for (i = 0; i < a->n; i++)
		if (a->pid[i] > 0 && waitpid(a->pid[i], NULL, WNOHANG) == a->pid[i]) {
			a->pid[i] = 0;
			close(app_cmd[i]);
			close(app_reply[i]);
		}
}

/* An app's resident pages, 0 if it is gone */
static long rss_of(pid_t pid)
{
	char path[64];
	long size, rss = 0;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/statm", pid);
	f = fopen(path, "r");
	if (!f)
		return 0;
	if (fscanf(f, "%ld %ld", &size, &rss) != 2)
		rss = 0;
	fclose(f);
	return rss;
}

/* The killer: on each PSI event, SIGKILL to the largest app */
static void killer(struct apps *a, int ready_fd)
{
	char trigger[64];
	struct pollfd pfd;
	int i, victim;
	long rss, most;

	write_file("/proc/self/oom_score_adj", "-1000");
	pfd.fd = open("/proc/pressure/memory", O_RDWR | O_NONBLOCK);
	pfd.events = POLLPRI;
	snprintf(trigger, sizeof(trigger), "some %d 1000000",
		 PERIODIC_STALL_MS * 1000);
	if (pfd.fd < 0 || write(pfd.fd, trigger, strlen(trigger) + 1) < 0)
		die("setting the PSI trigger");
	if (write(ready_fd, "r", 1) != 1)
		die("signalling ready");
	for (;;) {
		if (poll(&pfd, 1, -1) < 0) {
			if (errno == EINTR)
				continue;
			die("polling the PSI trigger");
		}
		if (pfd.revents & POLLERR)
			die("the PSI trigger went away");
		if (!(pfd.revents & POLLPRI))
			continue;
		victim = -1;
		most = 0;
		for (i = 0; i < a->n; i++) {
			rss = a->pid[i] > 0 ? rss_of(a->pid[i]) : 0;
			if (rss > most) {
				most = rss;
				victim = i;
			}
		}
		if (victim >= 0 && !kill(a->pid[victim], SIGKILL))
			__atomic_add_fetch(&a->kills, 1, __ATOMIC_RELAXED);
	}
}

static int cmp_ll(const void *x, const void *y)
{
	long long a = *(const long long *)x, b = *(const long long *)y;

	return a < b ? -1 : a > b;
}

int run_periodic(void)
{
	const char *v = cmdline_value("entry");
	int n = param("periodic", 20), period_ms = param("period_ms", 2000);
	int hold_ms = param("hold_ms", 500), type, c, cpu, fails = 0, p[2];
	char ready;
	size_t size = (size_t)param("size_kb", 4096) << 10;
	long long v0[NR_VM], v1[NR_VM], s0, f0, s1, f1, *coll, t0, lat;
	char entry[64] = "", pmu[64];
	struct cpu_buf cb[MAX_CPUS];
	struct apps *a;
	long left_kb;
	__u64 config;
	pid_t kill_pid;
	size_t k;

	if (v)
		sscanf(v, "%63[^ \n]", entry);
	type = entry_pmu(entry, pmu, sizeof(pmu), &config);
	if (type < 0 || n <= 0) {
		errno = EINVAL;
		die("bench.entry= and bench.periodic=");
	}
	a = mmap(NULL, sizeof(*a), PROT_READ | PROT_WRITE,
		 MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	coll = calloc(n, sizeof(*coll));
	if (a == MAP_FAILED || !coll)
		die("allocating the scenario's state");
	memset(a, 0, sizeof(*a));

	/* Above the low watermarks: the buffers, and a little more */
	left_kb = watermarks_kb("low") + PERIODIC_LEFT_MB * 1024L +
		  (long)(size >> 10) * ncpus;
	fill(a, left_kb);
	if (pipe(p))
		die("pipe");
	fflush(stdout);
	kill_pid = fork();
	if (kill_pid < 0)
		die("fork");
	if (kill_pid == 0)
		killer(a, p[1]);
	close(p[1]);
	if (read(p[0], &ready, 1) != 1)
		die("the killer did not get ready");
	close(p[0]);
	printf("bench: periodic start entry=%s apps=%d free_kb=%ld left_kb=%ld\n",
	       entry, a->n, meminfo_kb("MemFree"), left_kb);

	read_vmstat(v0);
	psi_memory(&s0, &f0);
	for (c = 0; c < n; c++) {
		t0 = now_ns();
		for (cpu = 0; cpu < ncpus; cpu++)
			if (aux_open(&cb[cpu], type, config, cpu, size,
				     PROT_READ | PROT_WRITE, &lat, NULL))
				fails++;
		coll[c] = now_ns() - t0;
		usleep(hold_ms * 1000);
		for (cpu = 0; cpu < ncpus; cpu++)
			aux_close(&cb[cpu], size);
		reap(a);
		fill(a, left_kb);
		t0 = (now_ns() - t0) / 1000000;
		if (t0 < period_ms)
			usleep((period_ms - t0) * 1000);
	}
	psi_memory(&s1, &f1);
	read_vmstat(v1);
	kill(kill_pid, SIGKILL);
	waitpid(kill_pid, NULL, 0);

	qsort(coll, n, sizeof(*coll), cmp_ll);
	printf("bench: periodic entry=%s collections=%d cpus=%d size_kb=%zu apps=%d kills=%ld failed=%d",
	       entry, n, ncpus, size >> 10, a->n,
	       __atomic_load_n(&a->kills, __ATOMIC_RELAXED), fails);
	printf(" psi_some_us=%lld psi_full_us=%lld coll_p50_ms=%.1f coll_max_ms=%.1f",
	       s0 < 0 ? -1 : s1 - s0, f0 < 0 ? -1 : f1 - f0,
	       coll[n / 2] / 1e6, coll[n - 1] / 1e6);
	for (k = 0; k < NR_VM; k++)
		printf(" %s=%lld", vm_keys[k], v1[k] - v0[k]);
	printf("\n");
	for (c = 0; c < a->n; c++)
		if (a->pid[c] > 0) {
			kill(a->pid[c], SIGKILL);
			waitpid(a->pid[c], NULL, 0);
		}
	return 0;
}
