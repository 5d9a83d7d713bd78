/* SPDX-License-Identifier: GPL-2.0 */
/* The memory states of the benchmark and harness/fragmented (memstate.c). */
#ifndef BENCH_MEMSTATE_H
#define BENCH_MEMSTATE_H

#include <stddef.h>
#include <sys/types.h>

/*
 * Exempt the caller from the OOM killer, block SIGUSR1 (the pressure
 * child's start signal) and turn off what would undo a state
 * (proactive compaction, watermark boost, khugepaged's defrag).
 */
void memstate_init(void);

/*
 * Make a state ("fresh", "partial", "fragmented" or "pressure") with
 * its children, check that they are still there (the OOM killer may take
 * them), and stop them.
 */
void state_enter(const char *state);
int state_alive(void);
void state_leave(void);
/* In a made state, a hog for 2 MiB blocks that freed memory merged into */
void state_top_up(void);

/* THP for MADV_HUGEPAGE regions only, without compaction; non-zero without THP */
int thp_free_blocks_only(void);
/* @len bytes of MADV_HUGEPAGE anonymous memory aligned to a THP, or NULL */
char *thp_region(size_t len);


#endif
