// SPDX-License-Identifier: GPL-2.0
/*
 * /init of the selftest guest: mount what the tests need, load the test
 * AUX PMU module, run every test program under /tests with a deadline,
 * unload the module, check that it left nothing behind, reboot (which
 * ends QEMU, started with -no-reboot). With the kselftest runner
 * installed (/kselftest/run_kselftest.sh), it runs the perf_events
 * collection through the runner instead, which loads and unloads the
 * module itself (aux_run.sh), then /kill-check.sh if there is one.
 *
 * On a debug kernel (harness/configs/debug.config) it also asks kmemleak
 * for the objects leaked while the tests ran, and page_owner (booted with
 * page_owner=on) for pages still held by the AUX allocation path when
 * every buffer is gone; either being non-zero fails the run.
 *
 * Kernel command-line parameters the kernel does not know (NAME=value)
 * reach the tests as environment variables, e.g. AUX_STRESS_CYCLES;
 * TEST_DEADLINE (seconds, default 600) bounds each program, and
 * TEST_ARGS, comma-separated, are every program's arguments (such as
 * "-faux_sysfs", a kselftest harness filter).
 *
 * With /trinity/trinity in the initramfs and TRINITY_SECS set, it then
 * runs the trinity fuzzer (as root, on perf_event_open, mmap, munmap,
 * mremap, madvise and ioctl, with perf file descriptors only) for that
 * many seconds, while the test PMU is loaded, and stops it with SIGINT
 * (SIGKILL 30 s later): trinity prints "Ran N syscalls". Trinity knows
 * no PMU with an AUX area, so half of that time goes to /auxfuzz
 * (guest/auxfuzz.c), which maps AUX buffers of the test PMUs with random
 * attributes, sizes and fault injection; it fails when it mapped none,
 * and the test PMUs' count of buffers set up is printed after it.
 *
 * With /kunit/order in the initramfs (harness/kunit --variant modules), it
 * runs the KUnit suites built as modules instead: it loads each module
 * /kunit/order lists, in that order (KUnit first), each running its
 * suites as it loads and writing their KTAP to the kernel log, then
 * unloads them in reverse.
 *
 * The host reads the serial console: kselftest TAP output, the kernel's
 * own messages, and one line per program:
 *   guest: <program> exit <status>
 *   guest: trinity exit <status>
 *   guest: auxfuzz: <n> AUX buffers set up by the test PMUs
 * on a debug kernel:
 *   guest: kmemleak: <n> unreferenced objects
 *   guest: page_owner: <n> pages allocated by rb_alloc_aux
 * and at the end:
 *   guest: done <failures>
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/reboot.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <termios.h>
#include <time.h>
#include <unistd.h>

#include "util.h"

#define MODULE_PATH	"/aux_test_pmu.ko"
#define RUNNER_DIR	"/kselftest"
#define RUNNER		RUNNER_DIR "/run_kselftest.sh"
#define KILL_CHECK	"/kill-check.sh"
#define MODULE_NAME	"aux_test_pmu"
#define TEST_DIR	"/tests"
#define KUNIT_DIR	"/kunit"
#define MAX_KUNIT	8	/* modules /kunit/order may list */
#define DEADLINE_S	600
#define MAX_PROGS	32	/* perf_events programs run_kselftest() runs */
#define KMEMLEAK	"/sys/kernel/debug/kmemleak"
#define PAGE_OWNER_STACKS "/sys/kernel/debug/page_owner_stacks/show_stacks"

extern char **environ;
static int failed;

static void check(int ok, const char *what)
{
	if (!ok) {
		printf("guest: FAIL %s (%s)\n", what, strerror(errno));
		failed++;
	}
}

static int exists(const char *path)
{
	struct stat st;

	return stat(path, &st) == 0;
}

/* Run @argv in @dir as @name, killed after @deadline seconds. */
static void run_argv(const char *name, const char *dir, char *const argv[],
		     long deadline)
{
	time_t start = time(NULL);
	int status = 0;
	pid_t pid;

	printf("guest: running %s\n", name);
	fflush(stdout);
	pid = fork();
	if (pid == 0) {
		/* A group of its own, so that a timeout kills its children too. */
		setpgid(0, 0);
		if (chdir(dir) == 0)
			execve(argv[0], argv, environ);
		_exit(127);
	}
	while (waitpid(pid, &status, WNOHANG) == 0) {
		if (time(NULL) - start > deadline) {
			/* SIGTERM first, so that aux_run.sh cleans up */
			printf("guest: %s timed out\n", name);
			kill(-pid, SIGTERM);
			sleep(10);
			kill(-pid, SIGKILL);
			waitpid(pid, &status, 0);
			break;
		}
		usleep(100000);
	}
	/* As PID 1, reap the orphans the program left */
	while (waitpid(-1, NULL, WNOHANG) > 0)
		;
	printf("guest: %s exit %d (%ld s)\n", name,
	       WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status),
	       (long)(time(NULL) - start));
	if (!WIFEXITED(status) || WEXITSTATUS(status))
		failed++;
}

/* A test program of TEST_DIR, with TEST_ARGS (comma-separated) */
static void run(const char *dir, const char *name, long deadline)
{
	char path[512], *argv[16] = { path }, *args = getenv("TEST_ARGS"), *save;
	int n = 1;

	/* strtok_r() writes into its string: not into the environment */
	args = args ? strdup(args) : NULL;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	for (args = args ? strtok_r(args, ",", &save) : NULL;
	     args && n < 15; args = strtok_r(NULL, ",", &save))
		argv[n++] = args;
	run_argv(name, dir, argv, deadline);
}

/*
 * The perf_events kselftests as CI runs them: the kselftest runner, with
 * the programs in KSFT_SKIP (comma-separated) left out. The runner's own
 * --skip is newer than 6.12's: name the others instead (-t), from its
 * list. aux_run.sh loads the test PMU's module itself and must unload
 * it again.
 */
static void run_kselftest(long deadline)
{
	/* "-t" and a name per program: room for MAX_PROGS of them */
	char *argv[2 + 2 * MAX_PROGS + 1] = { "/bin/sh", RUNNER };
	char *skip = getenv("KSFT_SKIP");
	static char names[MAX_PROGS][128];
	char line[128], *test, *t, *save;
	int n = 2, i = 0, skipped;
	FILE *fp;

	skip = skip ? strdup(skip) : NULL;
	fp = fopen(RUNNER_DIR "/kselftest-list.txt", "r");
	check(fp != NULL, "reading kselftest-list.txt");
	while (fp && fgets(line, sizeof(line), fp)) {
		line[strcspn(line, "\n")] = '\0';
		if (strncmp(line, "perf_events:", 12))
			continue;
		test = line + 12;
		skipped = 0;
		if (skip) {
			char *list = strdup(skip);

			for (t = strtok_r(list, ",", &save); t;
			     t = strtok_r(NULL, ",", &save))
				skipped |= !strcmp(t, test);
			free(list);
		}
		if (skipped)
			continue;
		if (i == MAX_PROGS) {
			errno = 0;
			check(0, "more perf_events programs than MAX_PROGS");
			break;
		}
		snprintf(names[i], sizeof(names[i]), "%s", line);
		argv[n++] = "-t";
		argv[n++] = names[i++];
	}
	if (fp)
		fclose(fp);
	run_argv("run_kselftest.sh", RUNNER_DIR, argv, deadline);
	errno = 0;
	check(!exists("/sys/module/" MODULE_NAME), MODULE_NAME " left loaded");
}

/* guest/kill-check.sh: kill aux_fault.sh mid-test, find nothing left. */
static void kill_check(void)
{
	char *argv[] = { "/bin/sh", KILL_CHECK, NULL };

	run_argv("kill-check.sh", "/", argv, 120);
}

/* Load the test PMU's module; whether it is loaded */
static int load_module(void)
{
	int fd = open(MODULE_PATH, O_RDONLY), ok;

	ok = fd >= 0 && syscall(SYS_finit_module, fd, "", 0) == 0;
	check(ok, "loading " MODULE_NAME);
	if (fd >= 0)
		close(fd);
	return ok;
}

/*
 * Load the modules /kunit/order lists (file names in /kunit, one a line)
 * in order, then unload them in reverse: KUnit's suites built as modules
 * run as they load.
 */
static void kunit_modules(void)
{
	char line[128], path[256], names[MAX_KUNIT][128];
	FILE *f = fopen(KUNIT_DIR "/order", "r");
	int n = 0, fd, ok;

	check(f != NULL, "opening " KUNIT_DIR "/order");
	while (f && n < MAX_KUNIT && fgets(line, sizeof(line), f)) {
		line[strcspn(line, "\n")] = '\0';
		if (!line[0])
			continue;
		snprintf(path, sizeof(path), "%s/%s", KUNIT_DIR, line);
		printf("guest: loading %s\n", line);
		fd = open(path, O_RDONLY);
		ok = fd >= 0 && syscall(SYS_finit_module, fd, "", 0) == 0;
		check(ok, path);
		if (fd >= 0)
			close(fd);
		if (!ok)
			break;
		/* the module's name: its file's, "-" read as "_" */
		line[strcspn(line, ".")] = '\0';
		for (char *c = line; *c; c++)
			*c = *c == '-' ? '_' : *c;
		snprintf(names[n++], sizeof(names[0]), "%s", line);
	}
	if (f)
		fclose(f);
	while (n-- > 0)
		check(syscall(SYS_delete_module, names[n], O_NONBLOCK) == 0, names[n]);
}

#define TRINITY		"/trinity/trinity"
#define AUX_TEST_DEBUGFS	"/sys/kernel/debug/" MODULE_NAME

/* Buffers set up so far by all test PMUs (their layout files' setups). */
static long aux_test_setups(void)
{
	char path[512], key[32];
	long total = 0, v;
	struct dirent *d;
	DIR *dir = opendir(AUX_TEST_DEBUGFS);
	FILE *f;

	while (dir && (d = readdir(dir))) {
		snprintf(path, sizeof(path), "%s/%s/layout", AUX_TEST_DEBUGFS, d->d_name);
		f = fopen(path, "r");
		if (!f)
			continue;
		while (fscanf(f, "%31s", key) == 1)
			if (!strcmp(key, "setups") && fscanf(f, "%ld", &v) == 1)
				total += v;
		fclose(f);
	}
	if (dir)
		closedir(dir);
	return total;
}

/* The fuzzer, aimed at the AUX paths, for @secs seconds. */
static void trinity(long secs, char *seed)
{
	char *argv[] = {
		TRINITY, "--dangerous", "-q", "-l", "off", "-C", "4", "-s", seed,
		"--disable-fds=sockets,pipes,epoll,eventfd,pseudo,timerfd,testfile,memfd,drm",
		"-c", "perf_event_open", "-c", "mmap", "-c", "munmap",
		"-c", "mremap", "-c", "madvise", "-c", "ioctl", NULL,
	};
	long setups = aux_test_setups();
	time_t start = time(NULL);
	int status = 0, stopping = 0;
	pid_t pid;

	printf("guest: running trinity for %ld s, seed %s (TRINITY_SEED)\n",
	       secs, seed);
	fflush(stdout);
	pid = fork();
	if (pid == 0) {
		setpgid(0, 0);
		mkdir("/tmp", 0777);
		if (chdir("/tmp") == 0)
			execve(TRINITY, argv, environ);
		_exit(127);
	}
	while (waitpid(pid, &status, WNOHANG) == 0) {
		long t = time(NULL) - start;

		if (t > secs + 30) {
			kill(-pid, SIGKILL);
			waitpid(pid, &status, 0);
			break;
		}
		if (t > secs && !stopping) {
			kill(-pid, SIGINT);
			stopping = 1;
		}
		usleep(100000);
	}
	/* Its children may outlive it: none may stay. */
	kill(-pid, SIGKILL);
	while (waitpid(-pid, NULL, 0) > 0)
		;
	/* on a line of its own, whatever trinity printed last */
	printf("\nguest: trinity exit %d\n",
	       WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status));
	printf("guest: trinity: %ld AUX buffers set up by the test PMUs\n",
	       aux_test_setups() - setups);
}

#define AUXFUZZ		"/auxfuzz"

/*
 * The fuzzers, for @secs seconds in all: trinity for the first half,
 * auxfuzz (which reaches the AUX buffers) for the second, both with one
 * seed per run, printed so that a run can be replayed.
 */
static void fuzz(long secs)
{
	const char *seed_env = getenv("TRINITY_SEED");
	char seed[32], arg[32], *argv[] = { AUXFUZZ, arg, seed, NULL };
	long setups;

	snprintf(seed, sizeof(seed), "%lu", seed_env ? strtoul(seed_env, NULL, 0) :
		 (unsigned long)time(NULL));
	if (!exists(AUXFUZZ)) {
		trinity(secs, seed);
		return;
	}
	trinity(secs - secs / 2, seed);
	snprintf(arg, sizeof(arg), "%ld", secs / 2);
	setups = aux_test_setups();
	run_argv("auxfuzz", "/", argv, secs / 2 + 120);
	printf("guest: auxfuzz: %ld AUX buffers set up by the test PMUs\n",
	       aux_test_setups() - setups);
}

/*
 * kmemleak: report what the tests leaked. At start, a scan and a clear
 * set aside what boot left. At the end, an object is reported only when
 * it is older than kmemleak's minimum age (5 s), hence the wait, and
 * when its contents did not change since the scan before, hence two.
 */
static void kmemleak(int start)
{
	char line[512];
	FILE *fp;
	int n = 0;

	if (!exists(KMEMLEAK))
		return;
	if (start) {
		check(write_file(KMEMLEAK, "scan") == 0 &&
		      write_file(KMEMLEAK, "clear") == 0, "kmemleak clear");
		return;
	}
	sleep(6);
	check(write_file(KMEMLEAK, "scan") == 0 &&
	      write_file(KMEMLEAK, "scan") == 0, "kmemleak scan");
	fp = fopen(KMEMLEAK, "r");
	check(fp != NULL, "reading " KMEMLEAK);
	while (fp && fgets(line, sizeof(line), fp)) {
		n += strncmp(line, "unreferenced object", 19) == 0;
		printf("kmemleak: %s", line);
	}
	if (fp)
		fclose(fp);
	printf("guest: kmemleak: %d unreferenced objects\n", n);
	failed += n > 0;
}

/* Frames of the page allocator itself, at the top of every stack. */
static int allocator_frame(const char *frame)
{
	static const char * const names[] = {
		"post_alloc_hook", "prep_new_page", "get_page_from_freelist",
		"alloc_pages", "alloc_frozen_pages", "folio_alloc",
	};
	unsigned int i;

	for (i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (strstr(frame, names[i]))
			return 1;
	return 0;
}

/*
 * page_owner: pages still allocated whose allocation stack has the AUX
 * allocation path (__rb_alloc_aux(), rb_alloc_aux_page()) as the page
 * allocator's caller, summed over the stacks. Pages that path got
 * indirectly (a slab page for its page array, page tables for a PMU's
 * vmap()) belong to caches and stay; they are not counted.
 */
static void page_owner(void)
{
	char line[512], first[512] = "";
	int caller = 0, aux = 0;
	long pages = 0, n;
	FILE *fp;

	if (!exists(PAGE_OWNER_STACKS))
		return;
	fp = fopen(PAGE_OWNER_STACKS, "r");
	check(fp != NULL, "reading " PAGE_OWNER_STACKS);
	while (fp && fgets(line, sizeof(line), fp)) {
		if (sscanf(line, "nr_base_pages: %ld", &n) == 1) {
			if (aux) {
				printf("page_owner: %ld pages from %s", n, first);
				pages += n;
			}
			caller = aux = 0;
			continue;
		}
		if (caller || line[0] != ' ' || allocator_frame(line))
			continue;
		caller = 1;
		aux = strstr(line, "rb_alloc_aux") != NULL;
		snprintf(first, sizeof(first), "%s", line);
	}
	if (fp)
		fclose(fp);
	printf("guest: page_owner: %ld pages allocated by rb_alloc_aux\n", pages);
	failed += pages > 0;
}

static int cmp(const struct dirent **a, const struct dirent **b)
{
	return strcmp((*a)->d_name, (*b)->d_name);
}

int main(void)
{
	const char *deadline = getenv("TEST_DEADLINE");
	struct dirent **names;
	int i, n, fd, loaded = 0;

	mount("proc", "/proc", "proc", 0, NULL);
	mount("sysfs", "/sys", "sysfs", 0, NULL);
	mount("devtmpfs", "/dev", "devtmpfs", 0, NULL);
	/* What udev would add: the runner writes to /dev/stdout */
	symlink("/proc/self/fd", "/dev/fd");
	symlink("/proc/self/fd/0", "/dev/stdin");
	symlink("/proc/self/fd/1", "/dev/stdout");
	symlink("/proc/self/fd/2", "/dev/stderr");
	mount("debugfs", "/sys/kernel/debug", "debugfs", 0, NULL);
	mount("tracefs", "/sys/kernel/tracing", "tracefs", 0, NULL);
	fd = open("/dev/console", O_RDWR);
	if (fd >= 0) {
		dup2(fd, 0);
		dup2(fd, 1);
		dup2(fd, 2);
	}
	setvbuf(stdout, NULL, _IOLBF, 0);
	setenv("PATH", TEST_DIR ":/bin:/sbin:/usr/bin:/usr/sbin", 1);
	kmemleak(1);

	if (exists(KUNIT_DIR "/order")) {
		kunit_modules();
	} else if (exists(RUNNER)) {
		/* As CI runs them; the module for trinity only, afterwards */
		run_kselftest(deadline ? atol(deadline) : DEADLINE_S);
		if (exists(KILL_CHECK))
			kill_check();
		if (exists(TRINITY) && getenv("TRINITY_SECS") && exists(MODULE_PATH)) {
			loaded = load_module();
			fuzz(atol(getenv("TRINITY_SECS")));
		}
	} else {
		if (exists(MODULE_PATH))
			loaded = load_module();
		n = scandir(TEST_DIR, &names, NULL, cmp);
		for (i = 0; i < n; i++) {
			if (names[i]->d_name[0] != '.')
				run(TEST_DIR, names[i]->d_name,
				    deadline ? atol(deadline) : DEADLINE_S);
			free(names[i]);
		}
		if (exists(TRINITY) && getenv("TRINITY_SECS"))
			fuzz(atol(getenv("TRINITY_SECS")));
	}

	if (loaded) {
		check(syscall(SYS_delete_module, MODULE_NAME, O_NONBLOCK) == 0,
		      "unloading " MODULE_NAME);
		errno = 0;
		check(!exists("/sys/bus/event_source/devices/aux_test"),
		      "PMU aux_test left registered");
		check(!exists("/sys/kernel/debug/" MODULE_NAME),
		      "debugfs directory left behind");
	}

	/* After the module is gone, so are all of its buffers. */
	page_owner();
	kmemleak(0);

	printf("guest: done %d\n", failed);
	fflush(stdout);
	/*
	 * Wait for the serial port to send the line: else the kernel's
	 * "reboot: Restarting system" can cut it, and the host sees an
	 * unfinished guest.
	 */
	tcdrain(STDOUT_FILENO);
	sync();
	/* With -no-reboot, QEMU exits; x86 guests without ACPI cannot power off. */
	reboot(RB_AUTOBOOT);
	return 0;
}
