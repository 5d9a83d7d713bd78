// SPDX-License-Identifier: GPL-2.0
/*
 * auxfuzz: a fuzzer aimed at perf's AUX buffers, for the debug guests
 * (harness/debug; /init runs it after trinity, which never reaches
 * rb_alloc_aux(): it knows no PMU with an AUX area).
 *
 *   auxfuzz SECONDS SEED
 *
 * NPROC processes, each with its own seed (SEED + its index), loop until
 * SECONDS have passed: perf_event_open() on a random test AUX PMU (the
 * aux_test* PMUs of the module aux_test_pmu, which /init loaded) with
 * random config bits (its aux_alloc term and cs_etm-like sink among
 * them), flags, aux_watermark, inheritance and CPU, then mmap() of the
 * data and AUX areas with random sizes (powers of two and not), offsets,
 * protection and sharing, sometimes with fault injection on for the
 * task (fail_page_alloc and failslab, scoped by make-it-fail), AUX data
 * produced through the module's debugfs, a fork() that inherits the
 * event, and the mappings torn down in a random order. What the kernel
 * does wrong shows in its log (the harness's kernel-report check) and in
 * kmemleak and page_owner afterwards; here, every failed mmap() or open
 * must fail with an errno perf documents.
 *
 * Prints "auxfuzz: N cycles, M AUX buffers mapped, ..." and exits 1 if
 * no AUX buffer was mapped, or on an errno outside the expected ones.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/perf_event.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "util.h"

#define NPROC		4
#define MAX_PMUS	16
#define PMU_DIR		"/sys/bus/event_source/devices"
#define DBG		"/sys/kernel/debug"
#define TEST_DBG	DBG "/aux_test_pmu"

static struct { char name[256]; int type; } pmus[MAX_PMUS];
static int nr_pmus;
static unsigned long page;

/* Counts of one process, summed by the parent through a pipe */
struct counts {
	long cycles, opened, data, aux, produced, forks, injected;
	long unexpected;	/* errno outside the documented ones */
	int last_errno;
	char last_call[16];
};

static unsigned long long rnd_state;

static unsigned long long rnd(void)
{
	/* xorshift64* */
	rnd_state ^= rnd_state >> 12;
	rnd_state ^= rnd_state << 25;
	rnd_state ^= rnd_state >> 27;
	return rnd_state * 2685821657736338717ULL;
}

static unsigned long pick(unsigned long n)
{
	return n ? rnd() % n : 0;
}

static void find_pmus(void)
{
	DIR *d = opendir(PMU_DIR);
	struct dirent *e;
	char path[512];
	FILE *f;

	while (d && (e = readdir(d)) && nr_pmus < MAX_PMUS) {
		if (strncmp(e->d_name, "aux_test", 8))
			continue;
		snprintf(path, sizeof(path), PMU_DIR "/%s/type", e->d_name);
		f = fopen(path, "r");
		if (!f)
			continue;
		if (fscanf(f, "%d", &pmus[nr_pmus].type) == 1) {
			snprintf(pmus[nr_pmus].name, sizeof(pmus[0].name), "%s",
				 e->d_name);
			nr_pmus++;
		}
		fclose(f);
	}
	if (d)
		closedir(d);
}

/* errnos perf_event_open() and perf_mmap() document for bad input */
static int expected(int err)
{
	switch (err) {
	case EINVAL: case ENOMEM: case EPERM: case EACCES: case EBUSY:
	case E2BIG: case EOVERFLOW: case ENOENT: case ENODEV: case EOPNOTSUPP:
	case ENOSPC: case EMFILE: case EAGAIN:
		return 1;
	}
	return 0;
}

static void note(struct counts *c, const char *call)
{
	if (expected(errno))
		return;
	c->unexpected++;
	c->last_errno = errno;
	snprintf(c->last_call, sizeof(c->last_call), "%s", call);
}

/* A random AUX size in pages: mostly powers of two, sometimes not */
static unsigned long aux_pages(void)
{
	switch (pick(8)) {
	case 0:
		return pick(64) + 1;
	case 1:
		return 0;
	default:
		return 1UL << pick(12);	/* up to 16 MiB with 4 KiB pages */
	}
}

static void produce(int p)
{
	char path[256], bytes[32];

	snprintf(path, sizeof(path), TEST_DBG "/%s/produce", pmus[p].name);
	snprintf(bytes, sizeof(bytes), "%lu", pick(1UL << 20) + 1);
	write_file(path, bytes);
}

static void one_cycle(struct counts *c, int fail_fd)
{
	struct perf_event_attr attr;
	unsigned long data_pages, aux_n, aux_off;
	struct perf_event_mmap_page *pc = MAP_FAILED;
	void *aux = MAP_FAILED;
	int p = pick(nr_pmus), fd, cpu = -1, inject;
	pid_t pid = 0;

	memset(&attr, 0, sizeof(attr));
	attr.size = pick(16) ? sizeof(attr) : PERF_ATTR_SIZE_VER0 + 8 * pick(8);
	attr.type = pick(32) ? pmus[p].type : (int)pick(64);
	attr.config = pick(4) | (pick(2) << 8) | (pick(16) ? 0 : rnd());
	attr.disabled = pick(2);
	attr.inherit = pick(4) == 0;
	attr.exclude_kernel = pick(2);
	attr.exclude_hv = 1;
	attr.aux_watermark = pick(4) ? 0 : (unsigned int)pick(1U << 24);
	if (pick(4) == 0) {
		pid = -1;
		cpu = pick(sysconf(_SC_NPROCESSORS_ONLN));
	}
	inject = fail_fd >= 0 && pick(4) == 0;
	if (inject) {
		c->injected++;
		write(fail_fd, "1", 1);
	}
	fd = syscall(SYS_perf_event_open, &attr, pid, cpu, -1,
		     pick(2) ? PERF_FLAG_FD_CLOEXEC : 0);
	if (fd < 0) {
		note(c, "open");
		goto out;
	}
	c->opened++;
	data_pages = pick(8) ? 1 + (1UL << pick(4)) : pick(8);
	pc = mmap(NULL, data_pages * page, PROT_READ | PROT_WRITE,
		  pick(16) ? MAP_SHARED : MAP_PRIVATE, fd, 0);
	if (pc == MAP_FAILED) {
		note(c, "mmap data");
		goto close;
	}
	c->data++;
	aux_n = aux_pages();
	aux_off = pick(8) ? data_pages * page : pick(4) * page;
	pc->aux_offset = aux_off;
	pc->aux_size = pick(16) ? aux_n * page : rnd();
	aux = mmap(NULL, aux_n ? aux_n * page : page,
		   pick(2) ? PROT_READ : PROT_READ | PROT_WRITE,
		   pick(16) ? MAP_SHARED : MAP_PRIVATE, fd, aux_off);
	if (aux == MAP_FAILED) {
		note(c, "mmap aux");
	} else {
		c->aux++;
		if (pick(2)) {
			ioctl(fd, PERF_EVENT_IOC_ENABLE, 0);
			produce(p);
			c->produced++;
		}
	}
	if (inject) {
		write(fail_fd, "0", 1);
		inject = 0;
	}
	if (pick(8) == 0) {
		pid_t child = fork();

		if (child == 0) {
			ioctl(fd, PERF_EVENT_IOC_DISABLE, 0);
			ioctl(fd, PERF_EVENT_IOC_ENABLE, 0);
			_exit(0);
		}
		if (child > 0) {
			c->forks++;
			waitpid(child, NULL, 0);
		}
	}
	/* Torn down in a random order: the AUX area may outlive the data */
	if (pick(2)) {
		if (aux != MAP_FAILED)
			munmap(aux, aux_n ? aux_n * page : page);
		munmap(pc, data_pages * page);
	} else {
		munmap(pc, data_pages * page);
		if (aux != MAP_FAILED)
			munmap(aux, aux_n ? aux_n * page : page);
	}
close:
	close(fd);
out:
	if (inject)
		write(fail_fd, "0", 1);
	c->cycles++;
}

/* Fault injection for tasks that ask (make-it-fail), 10% of allocations */
static const char * const fail_knobs[][2] = {
	{ DBG "/failslab/task-filter", "Y" },
	{ DBG "/fail_page_alloc/task-filter", "Y" },
	{ DBG "/failslab/times", "-1" },
	{ DBG "/fail_page_alloc/times", "-1" },
	{ DBG "/failslab/verbose", "0" },
	{ DBG "/fail_page_alloc/verbose", "0" },
	{ DBG "/failslab/probability", "10" },
	{ DBG "/fail_page_alloc/probability", "10" },
};

int main(int argc, char **argv)
{
	struct counts total = { 0 }, c;
	int i, pipefd[2], status, injecting = 1;
	unsigned long long seed;
	time_t end;

	if (argc != 3) {
		fprintf(stderr, "usage: auxfuzz SECONDS SEED\n");
		return 2;
	}
	end = time(NULL) + atol(argv[1]);
	seed = strtoull(argv[2], NULL, 0);
	page = sysconf(_SC_PAGESIZE);
	find_pmus();
	if (!nr_pmus) {
		printf("auxfuzz: no aux_test PMU\n");
		return 1;
	}
	for (i = 0; i < (int)(sizeof(fail_knobs) / sizeof(fail_knobs[0])); i++)
		injecting &= !write_file(fail_knobs[i][0], fail_knobs[i][1]);
	if (pipe(pipefd))
		return 1;
	for (i = 0; i < NPROC; i++) {
		if (fork() == 0) {
			int fail_fd = injecting ?
				open("/proc/thread-self/make-it-fail", O_WRONLY) : -1;

			close(pipefd[0]);
			memset(&c, 0, sizeof(c));
			rnd_state = seed + i + 1;
			while (time(NULL) < end)
				one_cycle(&c, fail_fd);
			write(pipefd[1], &c, sizeof(c));
			_exit(0);
		}
	}
	close(pipefd[1]);
	while (read(pipefd[0], &c, sizeof(c)) == sizeof(c)) {
		total.cycles += c.cycles;
		total.opened += c.opened;
		total.data += c.data;
		total.aux += c.aux;
		total.produced += c.produced;
		total.forks += c.forks;
		total.injected += c.injected;
		total.unexpected += c.unexpected;
		if (c.unexpected) {
			total.last_errno = c.last_errno;
			memcpy(total.last_call, c.last_call, sizeof(c.last_call));
		}
	}
	while (wait(&status) > 0)
		;
	/* Probabilities first: no failure is injected while the rest change */
	write_file(DBG "/failslab/probability", "0");
	write_file(DBG "/fail_page_alloc/probability", "0");
	write_file(DBG "/failslab/task-filter", "N");
	write_file(DBG "/fail_page_alloc/task-filter", "N");

	printf("auxfuzz: seed %llu, %d PMUs, %ld cycles, %ld events, %ld data and %ld AUX buffers mapped, %ld with output, %ld forks, %ld cycles with fault injection%s\n",
	       seed, nr_pmus, total.cycles, total.opened, total.data, total.aux,
	       total.produced, total.forks, total.injected,
	       injecting ? "" : " (unavailable)");
	if (total.unexpected)
		printf("auxfuzz: %ld unexpected errors, the last %s: %s\n",
		       total.unexpected, total.last_call, strerror(total.last_errno));
	return !total.aux || total.unexpected;
}
