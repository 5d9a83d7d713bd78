// SPDX-License-Identifier: GPL-2.0
/*
 * /init of the selftest guest: mount what the tests need, load the test
 * AUX PMU module, run every test program under /tests with a deadline,
 * unload the module, check that it left nothing behind, reboot (which
 * ends QEMU, started with -no-reboot).
 *
 * The host reads the serial console: kselftest TAP output, the kernel's
 * own messages, and one line per program:
 *   guest: <program> exit <status>
 * and at the end:
 *   guest: done <failed programs>
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
#include <time.h>
#include <unistd.h>

#define MODULE_PATH	"/aux_test_pmu.ko"
#define MODULE_NAME	"aux_test_pmu"
#define TEST_DIR	"/tests"
#define DEADLINE_S	600

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

static void run(const char *dir, const char *name)
{
	char path[512];
	time_t start = time(NULL);
	int status = 0;
	pid_t pid;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	printf("guest: running %s\n", name);
	fflush(stdout);
	pid = fork();
	if (pid == 0) {
		char *argv[] = { path, NULL };
		char *envp[] = { "PATH=/tests", NULL };

		if (chdir(dir) == 0)
			execve(path, argv, envp);
		_exit(127);
	}
	while (waitpid(pid, &status, WNOHANG) == 0) {
		if (time(NULL) - start > DEADLINE_S) {
			kill(pid, SIGKILL);
			waitpid(pid, &status, 0);
			printf("guest: %s timed out\n", name);
			break;
		}
		usleep(100000);
	}
	printf("guest: %s exit %d\n", name,
	       WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status));
	if (!WIFEXITED(status) || WEXITSTATUS(status))
		failed++;
}

static int cmp(const struct dirent **a, const struct dirent **b)
{
	return strcmp((*a)->d_name, (*b)->d_name);
}

int main(void)
{
	struct dirent **names;
	int i, n, fd;

	mount("proc", "/proc", "proc", 0, NULL);
	mount("sysfs", "/sys", "sysfs", 0, NULL);
	mount("devtmpfs", "/dev", "devtmpfs", 0, NULL);
	mount("debugfs", "/sys/kernel/debug", "debugfs", 0, NULL);
	mount("tracefs", "/sys/kernel/tracing", "tracefs", 0, NULL);
	fd = open("/dev/console", O_RDWR);
	if (fd >= 0) {
		dup2(fd, 0);
		dup2(fd, 1);
		dup2(fd, 2);
	}
	setvbuf(stdout, NULL, _IOLBF, 0);

	if (exists(MODULE_PATH)) {
		fd = open(MODULE_PATH, O_RDONLY);
		check(fd >= 0 && syscall(SYS_finit_module, fd, "", 0) == 0,
		      "loading " MODULE_NAME);
		close(fd);
	}

	n = scandir(TEST_DIR, &names, NULL, cmp);
	for (i = 0; i < n; i++) {
		if (names[i]->d_name[0] != '.')
			run(TEST_DIR, names[i]->d_name);
		free(names[i]);
	}

	if (exists(MODULE_PATH)) {
		check(syscall(SYS_delete_module, MODULE_NAME, O_NONBLOCK) == 0,
		      "unloading " MODULE_NAME);
		errno = 0;
		check(!exists("/sys/bus/event_source/devices/aux_test"),
		      "PMU aux_test left registered");
		check(!exists("/sys/kernel/debug/" MODULE_NAME),
		      "debugfs directory left behind");
	}

	printf("guest: done %d\n", failed);
	fflush(stdout);
	sync();
	/* With -no-reboot, QEMU exits; x86 guests without ACPI cannot power off. */
	reboot(RB_AUTOBOOT);
	return 0;
}
