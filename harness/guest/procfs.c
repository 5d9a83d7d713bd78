// SPDX-License-Identifier: GPL-2.0
/*
 * What the benchmark's guest programs read of the kernel: the bench.*
 * parameters of its command line, /proc/vmstat, buddyinfo, PSI,
 * pagetypeinfo, meminfo, zoneinfo and the extfrag trace events; and the
 * machine's page geometry.
 */
#define _GNU_SOURCE
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "procfs.h"
#include "util.h"

long page_size;
int ncpus;
int high_order, mid_order;
size_t pmd_size;

/*
 * /proc/vmstat counters whose deltas are reported: first those that say a
 * cell changed the memory state the next one starts from (compaction,
 * reclaim, the OOM killer; NR_VM_STATE of them), then the background work
 * a cell woke that need not change it.
 */
const char * const vm_keys[] = {
	"compact_stall", "compact_fail", "compact_success",
	"compact_migrate_scanned", "compact_free_scanned",
	"pgscan_direct", "pgsteal_direct", "pgscan_kswapd", "oom_kill",
	"compact_daemon_wake", "allocstall",	/* sum of allocstall_* */
	"pgsteal_kswapd", "pageoutrun", "compact_daemon_migrate_scanned",
	"compact_daemon_free_scanned", "kswapd_low_wmark_hit_quickly",
	"kswapd_high_wmark_hit_quickly",
};
_Static_assert(sizeof(vm_keys) / sizeof(vm_keys[0]) == NR_VM,
	       "NR_VM in procfs.h counts vm_keys");

void geometry_init(void)
{
	page_size = sysconf(_SC_PAGESIZE);
	high_order = __builtin_ctzl((2UL << 20) / page_size);
	mid_order = page_size < 65536 ? __builtin_ctzl(65536 / page_size) : 0;
	pmd_size = (size_t)page_size / sizeof(long) * page_size;
	ncpus = sysconf(_SC_NPROCESSORS_ONLN);
	if (ncpus > MAX_CPUS)
		ncpus = MAX_CPUS;
}

void die(const char *what)
{
	printf("bench: error %s: %s\n", what, strerror(errno));
	exit(1);
}

/* The value of bench.<name>= on the kernel command line, or NULL */
const char *cmdline_value(const char *name)
{
	static char buf[4096];
	char key[64], *p;
	FILE *f = fopen("/proc/cmdline", "r");

	if (!f || !fgets(buf, sizeof(buf), f))
		die("reading /proc/cmdline");
	fclose(f);
	snprintf(key, sizeof(key), "bench.%s=", name);
	p = strstr(buf, key);
	return p ? p + strlen(key) : NULL;
}

long param(const char *name, long def)
{
	const char *v = cmdline_value(name);

	return v ? strtol(v, NULL, 0) : def;
}

const char *state_param(void)
{
	static char state[32] = "fresh";
	const char *v = cmdline_value("state");

	if (v)
		sscanf(v, "%31[a-z]", state);
	return state;
}

/*
 * Sums, per key, the /proc/vmstat counters named @keys[0..@n) into @v
 * ("allocstall" sums every allocstall_* zone counter); returns how many
 * lines matched.
 */
int vmstat_scan(const char * const *keys, size_t n, long long *v)
{
	char key[64];
	long long val;
	FILE *f = fopen("/proc/vmstat", "r");
	int found = 0;
	size_t i;

	if (!f)
		die("opening /proc/vmstat");
	memset(v, 0, n * sizeof(*v));
	while (fscanf(f, "%63s %lld", key, &val) == 2)
		for (i = 0; i < n; i++)
			if (!strcmp(key, keys[i]) ||
			    (!strcmp(keys[i], "allocstall") &&
			     !strncmp(key, "allocstall_", 11))) {
				v[i] += val;
				found++;
			}
	fclose(f);
	return found;
}

void read_vmstat(long long *v)
{
	vmstat_scan(vm_keys, NR_VM, v);
}

/* One /proc/vmstat counter, -1 if this kernel has none of that name. */
long long vmstat_value(const char *name)
{
	long long v;

	return vmstat_scan(&name, 1, &v) ? v : -1;
}

/*
 * Read /proc/buddyinfo into @b. With @print, each of its lines is printed
 * too, as "bench: buddyinfo PRINT ...".
 */
void free_blocks_read(struct free_blocks *b, const char *print)
{
	char line[512], *p;
	int order, off;
	long v;
	FILE *f = fopen("/proc/buddyinfo", "r");

	if (!f)
		die("opening /proc/buddyinfo");
	memset(b, 0, sizeof(*b));
	while (fgets(line, sizeof(line), f)) {
		if (print)
			printf("bench: buddyinfo %s %s", print, line);
		p = strstr(line, "zone");
		if (!p)
			continue;
		p += 4;
		while (*p == ' ')
			p++;
		while (*p && !isspace((unsigned char)*p))
			p++;
		for (order = 0; order < MAX_ORDER_NR &&
		     sscanf(p, "%ld%n", &v, &off) == 1; order++) {
			b->n[order] += v;
			p += off;
		}
		if (order > b->orders)
			b->orders = order;
	}
	fclose(f);
}

/* Free KiB in @b's blocks of order min_order to max_order (-1: any) */
long free_blocks_kb(const struct free_blocks *b, int min_order, int max_order)
{
	long total = 0;
	int order;

	for (order = min_order; order < b->orders &&
	     (max_order < 0 || order <= max_order); order++)
		total += b->n[order] << order;
	return total * (page_size / 1024);
}

/*
 * Free memory in blocks of order >= min_order, in KiB, from buddyinfo;
 * its lines printed as "bench: buddyinfo WHEN ..." unless @when is NULL.
 */
long free_kb_from(int min_order, const char *when)
{
	struct free_blocks b;

	free_blocks_read(&b, when);
	return free_blocks_kb(&b, min_order, -1);
}

/* Print " key=n0:n1:..." for @orders counts */
void print_orders(const char *key, const long *n, int orders)
{
	int i;

	printf(" %s=", key);
	for (i = 0; i < orders; i++)
		printf("%s%ld", i ? ":" : "", n[i]);
}

/*
 * Slab allocations that fell back from their cache's order to its
 * smallest (SLUB's order_fallback, CONFIG_SLUB_STATS), summed over the
 * caches; -1 without the statistics.
 */
long slab_fallbacks(void)
{
	char path[512];
	struct dirent *d;
	long total = 0, v;
	int found = 0;
	DIR *dir = opendir("/sys/kernel/slab");
	FILE *f;

	if (!dir)
		return -1;
	while ((d = readdir(dir))) {
		/* merged caches' other names are symlinks: count each once */
		if (d->d_name[0] == '.' || d->d_type != DT_DIR)
			continue;
		snprintf(path, sizeof(path), "/sys/kernel/slab/%s/order_fallback",
			 d->d_name);
		f = fopen(path, "r");
		if (!f)
			continue;
		/* the total first, then per-CPU counts */
		if (fscanf(f, "%ld", &v) == 1) {
			total += v;
			found = 1;
		}
		fclose(f);
	}
	closedir(dir);
	return found ? total : -1;
}

/*
 * The total stall times of /proc/pressure/memory, "some" and "full", in
 * microseconds; -1 without PSI.
 */
void psi_memory(long long *some, long long *full)
{
	char line[256];
	long long t;
	FILE *f = fopen("/proc/pressure/memory", "r");

	*some = *full = -1;
	if (!f)
		return;
	while (fgets(line, sizeof(line), f)) {
		char *p = strstr(line, "total=");

		if (!p || sscanf(p, "total=%lld", &t) != 1)
			continue;
		if (!strncmp(line, "some", 4))
			*some = t;
		else if (!strncmp(line, "full", 4))
			*full = t;
	}
	fclose(f);
}

/*
 * Free KiB in blocks of order >= min_order on the HighAtomic free lists,
 * from pagetypeinfo: the reserve the page allocator keeps for high-order
 * atomic allocations (up to 1% of a zone, in whole pageblocks), which no
 * other allocation takes, a THP fault or an AUX chunk included.
 */
long free_kb_highatomic(int min_order)
{
	char line[512], *p;
	long v, total = 0;
	int order, off;
	FILE *f = fopen("/proc/pagetypeinfo", "r");

	if (!f)
		die("opening /proc/pagetypeinfo");
	while (fgets(line, sizeof(line), f)) {
		if (!strncmp(line, "Number of blocks type", 21))
			break;
		p = strstr(line, "type");
		if (!p || !strstr(line, "HighAtomic"))
			continue;
		p = strstr(p, "HighAtomic") + strlen("HighAtomic");
		for (order = 0; sscanf(p, "%ld%n", &v, &off) == 1; order++) {
			if (order >= min_order)
				total += v << order;
			p += off;
		}
	}
	fclose(f);
	return total * (page_size / 1024);
}

/* /proc/pagetypeinfo, each line printed as "bench: pagetypeinfo ..." */
void print_pagetypeinfo(void)
{
	char line[512];
	FILE *f = fopen("/proc/pagetypeinfo", "r");

	if (!f)
		return;
	while (fgets(line, sizeof(line), f))
		printf("bench: pagetypeinfo %s", line);
	fclose(f);
}

/* Pageblocks of the Unmovable and Reclaimable types, from pagetypeinfo. */
long unmovable_blocks(void)
{
	char line[512], zone[32];
	long unmov, mov, recl, total = 0;
	int in_blocks = 0, node;
	FILE *f = fopen("/proc/pagetypeinfo", "r");

	if (!f)
		die("opening /proc/pagetypeinfo");
	while (fgets(line, sizeof(line), f)) {
		if (!strncmp(line, "Number of blocks type", 21)) {
			in_blocks = 1;
			continue;
		}
		if (in_blocks &&
		    sscanf(line, "Node %d, zone %31s %ld %ld %ld", &node, zone,
			   &unmov, &mov, &recl) == 5)
			total += unmov + recl;
	}
	fclose(f);
	return total;
}

/* kmem:mm_page_alloc_extfrag events since the last reset */
long extfrag_events(int reset)
{
	char path[128], line[128];
	long n, total = 0;
	int cpu;
	FILE *f;

	if (reset) {
		if (write_file_flags(TRACEFS "/trace", "", O_TRUNC) ||
		    write_file(EXTFRAG, "1"))
			die("enabling kmem:mm_page_alloc_extfrag");
		return 0;
	}
	for (cpu = 0; cpu < ncpus; cpu++) {
		snprintf(path, sizeof(path), TRACEFS "/per_cpu/cpu%d/stats", cpu);
		f = fopen(path, "r");
		if (!f)
			die("reading the trace stats");
		while (fgets(line, sizeof(line), f))
			if (sscanf(line, "entries: %ld", &n) == 1 ||
			    sscanf(line, "overrun: %ld", &n) == 1)
				total += n;
		fclose(f);
	}
	return total;
}

#define WAKES		TRACEFS "/instances/bench_wakes"
#define KSWAPD_EV	"mm_vmscan_wakeup_kswapd"
#define KCOMPACTD_EV	"mm_compaction_wakeup_kcompactd"

/* Start counting the wake-ups, with an empty buffer (once per cell) */
void wakes_start(void)
{
	/* mkdir makes the instance; EEXIST: an earlier cell's, reused */
	if (mkdir(WAKES, 0755) && errno != EEXIST)
		return;
	write_file(WAKES "/buffer_size_kb", "256");
	write_file(WAKES "/options/stacktrace", "1");
	write_file(WAKES "/events/vmscan/" KSWAPD_EV "/enable", "1");
	write_file(WAKES "/events/compaction/" KCOMPACTD_EV "/enable", "1");
	write_file_flags(WAKES "/trace", "", O_TRUNC);
}

/* The function of a stack line (" => name" or " => name+0x1/0x2"), or 0 */
static int frame_name(const char *line, char *fn, size_t len)
{
	char fmt[32];

	snprintf(fmt, sizeof(fmt), " => %%%zu[^+ \n]", len - 1);
	return sscanf(line, fmt, fn) == 1;
}

/*
 * The frames of a waker's stack below the allocator, as "a<b<c": the
 * first frames are the wake and the page allocator's slow path, the same
 * for every waker.
 */
static void add_frame(char *stack, size_t len, const char *fn)
{
	static const char * const skip[] = {
		"wakeup_kswapd", "wake_all_kswapds", "__alloc_pages",
		"__alloc_frozen_pages", "alloc_pages", "get_page_from_freelist",
		"wakeup_kcompactd", "trace_", "__traceiter", "stack_trace",
		"ftrace", "__ftrace",
	};
	size_t i, used = strlen(stack);

	for (i = 0; i < sizeof(skip) / sizeof(skip[0]); i++)
		if (!strncmp(fn, skip[i], strlen(skip[i])))
			return;
	if (used + strlen(fn) + 2 < len)
		snprintf(stack + used, len - used, "%s%s", used ? "<" : "", fn);
}

/* One traced wake-up: its event, order, mask, and what its stack holds */
struct wake {
	int kswapd, order, mmap, from_kswapd;
	char gfp[160], stack[256];
};

static void wake_count(struct wakes *w, const struct wake *e)
{
	if (!e->kswapd) {
		w->kcompactd++;
		w->kcompactd_mmap += e->mmap;
		w->kcompactd_kswapd += e->from_kswapd;
		return;
	}
	w->kswapd++;
	w->kswapd_mmap += e->mmap;
	if (e->order > w->max_order) {
		w->max_order = e->order;
		memcpy(w->gfp, e->gfp, sizeof(w->gfp));
		memcpy(w->stack, e->stack, sizeof(w->stack));
	}
}

/* The wake-ups since wakes_start() */
void wakes_read(struct wakes *w)
{
	char line[512], fn[96], *p;
	struct wake e;
	int in = 0;
	FILE *f = fopen(WAKES "/trace", "r");

	memset(w, 0, sizeof(*w));
	w->max_order = -1;
	if (!f) {
		w->kswapd = w->kswapd_mmap = -1;
		w->kcompactd = w->kcompactd_mmap = w->kcompactd_kswapd = -1;
		return;
	}
	while (fgets(line, sizeof(line), f)) {
		if (line[0] == '#' || strstr(line, "<stack trace>"))
			continue;
		if (strstr(line, " => ")) {
			if (!in || !frame_name(line, fn, sizeof(fn)))
				continue;
			e.mmap |= !strcmp(fn, "perf_mmap");
			e.from_kswapd |= !strcmp(fn, "kswapd");
			add_frame(e.stack, sizeof(e.stack), fn);
			continue;
		}
		p = strstr(line, KSWAPD_EV ":");
		if (!p && !strstr(line, KCOMPACTD_EV ":"))
			continue;
		if (in)
			wake_count(w, &e);
		memset(&e, 0, sizeof(e));
		in = 1;
		e.kswapd = !!p;
		p = strstr(line, " order=");
		if (!p || sscanf(p, " order=%d", &e.order) != 1)
			e.order = -1;
		p = strstr(line, "gfp_flags=");
		if (p && sscanf(p, "gfp_flags=%159s", e.gfp) != 1)
			e.gfp[0] = 0;
	}
	if (in)
		wake_count(w, &e);
	fclose(f);
}

/* The "key: N kB" value of a meminfo-like file, or -1 */
long meminfo_kb_of(const char *path, const char *key)
{
	char line[256];
	long v = -1;
	size_t len = strlen(key);
	FILE *f = fopen(path, "r");

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		if (!strncmp(line, key, len) && line[len] == ':')
			v = strtol(line + len + 1, NULL, 10);
	fclose(f);
	return v;
}

long meminfo_kb(const char *key)
{
	return meminfo_kb_of("/proc/meminfo", key);
}

/* Sum over /proc/zoneinfo's lines of the number " KEY %ld" reads */
static long zoneinfo_sum(const char *key)
{
	char line[256], fmt[48];
	long v, total = 0;
	FILE *f = fopen("/proc/zoneinfo", "r");

	if (!f)
		die("opening /proc/zoneinfo");
	snprintf(fmt, sizeof(fmt), " %s %%ld", key);
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, fmt, &v) == 1)
			total += v;
	fclose(f);
	return total;
}

/*
 * Whether kswapd has given up on a node: 16 balancing runs that
 * reclaimed nothing (MAX_RECLAIM_RETRIES) make wakeup_kswapd() return
 * before its trace event until a reclaim leaves the node balanced, so
 * an allocation then wakes no kswapd whatever its policy.
 */
int kswapd_hopeless(void)
{
	return zoneinfo_sum("node_unreclaimable:") > 0;
}

/* Sum of the zones' @which ("min", "low", "high") watermarks, in KiB */
long watermarks_kb(const char *which)
{
	return zoneinfo_sum(which) * (page_size / 1024);
}
