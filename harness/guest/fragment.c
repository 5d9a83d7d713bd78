// SPDX-License-Identifier: GPL-2.0
/*
 * harness/fragmented's guest program (run by guest/init.c as
 * /tests/fragment): put memory in the state of bench.state= (the
 * benchmark's states, memstate.c), run each program of
 * bench.then=PATH[,PATH...] in turn while the state holds, and exit with
 * the status of the first that fails. Prints
 *
 *   bench: then <paths> state=<state> free kB in blocks of ...
 *   bench: then <path> exit <status>
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/klog.h>
#include <sys/wait.h>
#include <unistd.h>

#include "memstate.h"
#include "procfs.h"

int main(void)
{
	const char *state = state_param(), *then = cmdline_value("then");
	char list[1024] = "", *path, *save;
	int status = 0, st;
	pid_t pid;

	geometry_init();
	setvbuf(stdout, NULL, _IOLBF, 0);
	/* Keep the kernel's info messages out of the lines harness/fragmented reads */
	klogctl(8 /* SYSLOG_ACTION_CONSOLE_LEVEL */, NULL, 5);
	if (!then || (strcmp(state, "fresh") && strcmp(state, "fragmented") &&
		      strcmp(state, "partial") && strcmp(state, "pressure"))) {
		errno = EINVAL;
		die("bench.then= and bench.state=");
	}
	sscanf(then, "%1023[^ \n]", list);
	memstate_init();
	state_enter(state);
	printf("bench: then %s state=%s free kB in blocks of order>=%d %ld, >=%d %ld\n",
	       list, state, high_order, free_kb_from(high_order, "then"),
	       mid_order, free_kb_from(mid_order, NULL));
	for (path = strtok_r(list, ",", &save); path;
	     path = strtok_r(NULL, ",", &save)) {
		fflush(stdout);
		pid = fork();
		if (pid < 0)
			die("fork");
		if (pid == 0) {
			char *argv[] = { path, NULL };

			execv(path, argv);
			_exit(127);
		}
		waitpid(pid, &st, 0);
		st = WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
		printf("bench: then %s exit %d\n", path, st);
		if (!status)
			status = st;
	}
	state_leave();
	return status;
}
