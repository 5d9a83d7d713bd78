/* SPDX-License-Identifier: GPL-2.0 */
/* The kernel mappings of AUX buffers, from the page-table dump (ptdump.c). */
#ifndef BENCH_PTDUMP_H
#define BENCH_PTDUMP_H

struct range {
	unsigned long start, end;
};

/* The vmap() areas of the test PMU's live AUX buffers, at most @max */
int aux_mappings(struct range *r, int max);
/*
 * Leaf entries of the kernel page tables that cover the @n ranges; the
 * pages of the ranges that are not mapped in @unmapped.
 */
long translations(const struct range *r, int n, long *unmapped);

#endif
