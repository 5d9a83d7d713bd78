/* SPDX-License-Identifier: GPL-2.0 */
/* What the guest's static programs (init.c, auxfuzz.c, the benchmark's) share. */
#ifndef GUEST_UTIL_H
#define GUEST_UTIL_H

#include <fcntl.h>
#include <string.h>
#include <unistd.h>

/*
 * Write @s to the file @path, opened with O_WRONLY | @flags (O_TRUNC
 * empties a trace buffer): 0, or -1 if it could not be written whole
 */
static inline int write_file_flags(const char *path, const char *s, int flags)
{
	int fd = open(path, O_WRONLY | flags), ret;

	if (fd < 0)
		return -1;
	ret = write(fd, s, strlen(s)) == (ssize_t)strlen(s) ? 0 : -1;
	close(fd);
	return ret;
}

static inline int write_file(const char *path, const char *s)
{
	return write_file_flags(path, s, 0);
}

#endif
