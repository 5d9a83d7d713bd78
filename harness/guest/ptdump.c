// SPDX-License-Identifier: GPL-2.0
/*
 * The kernel mappings of the test PMU's AUX buffers and the translations
 * that cover them, from /proc/vmallocinfo and the kernel's page-table
 * dump (CONFIG_PTDUMP_DEBUGFS), whose format is each architecture's own:
 * x86 and arm64 here.
 */
#define _GNU_SOURCE
#include <ctype.h>
#include <stdio.h>
#include <string.h>

#include "procfs.h"
#include "ptdump.h"

/*
 * The kernel mappings (vmap) of the test PMU's live AUX buffers; each
 * vmallocinfo range ends with a guard page.
 */
int aux_mappings(struct range *r, int max)
{
	char line[512];
	unsigned long s, e;
	int n = 0;
	FILE *f = fopen("/proc/vmallocinfo", "r");

	if (!f)
		die("opening /proc/vmallocinfo");
	while (fgets(line, sizeof(line), f) && n < max) {
		if (!strstr(line, "perf_aux_vmap") || !strstr(line, " vmap") ||
		    sscanf(line, "0x%lx-0x%lx", &s, &e) != 2)
			continue;
		r[n].start = s;
		r[n].end = e - page_size;
		n++;
	}
	fclose(f);
	return n;
}

static int arm64_level(const char *s)
{
	return !strcmp(s, "PGD") || !strcmp(s, "P4D") || !strcmp(s, "PUD") ||
	       !strcmp(s, "PMD") || !strcmp(s, "PTE");
}

/*
 * What one arm64 contiguous-PTE run maps: CONT_PTE_SHIFT of
 * arch/arm64/include/asm/pgtable-hwdef.h, 16 PTEs with 4 KiB pages, 128
 * with 16 KiB, 32 with 64 KiB (64 KiB, 2 MiB, 2 MiB).
 */
static unsigned long cont_pte_size(void)
{
	switch (page_size) {
	case 16384:
		return 128 * page_size;
	case 65536:
		return 32 * page_size;
	default:
		return 16 * page_size;
	}
}

/*
 * Translations that cover the ranges, from the kernel's page-table dump:
 * a PTE maps a page, a contiguous-PTE run (arm64 "CON") 64 KiB, a PMD
 * block 2 MiB, a PUD block 1 GiB; each counts as one entry (what the
 * hardware's TLB has to hold to cover the buffer).
 */
long translations(const struct range *r, int n, long *unmapped)
{
	const char *paths[] = { "/sys/kernel/debug/page_tables/kernel",
				"/sys/kernel/debug/kernel_page_tables" };
	char line[512], lvl[16];
	unsigned long s, e, lo, hi, unit;
	long entries = 0;
	FILE *f = NULL;
	size_t i;
	int k;

	*unmapped = 0;
	for (i = 0; i < 2 && !f; i++)
		f = fopen(paths[i], "r");
	if (!f)
		die("opening the kernel page-table dump (CONFIG_PTDUMP_DEBUGFS)");
	while (fgets(line, sizeof(line), f)) {
		char *tok[32], *save = NULL, *t;
		int ntok = 0, present = 0, cont = 0;

		if (sscanf(line, "0x%lx-0x%lx", &s, &e) != 2)
			continue;
		for (t = strtok_r(line, " \t\n", &save); t && ntok < 32;
		     t = strtok_r(NULL, " \t\n", &save))
			tok[ntok++] = t;
		if (ntok < 3)
			continue;
		/*
		 * arm64: "range size LEVEL flags...", "F" when not valid;
		 * x86: "range size flags... level", "RW" or "ro" when present.
		 */
		if (arm64_level(tok[2])) {
			snprintf(lvl, sizeof(lvl), "%s", tok[2]);
			present = 1;
			for (k = 3; k < ntok; k++) {
				if (!strcmp(tok[k], "F"))
					present = 0;
				if (!strcmp(tok[k], "CON"))
					cont = 1;
			}
		} else {
			snprintf(lvl, sizeof(lvl), "%s", tok[ntok - 1]);
			for (k = 2; k < ntok - 1; k++)
				if (!strcmp(tok[k], "RW") || !strcmp(tok[k], "ro"))
					present = 1;
		}
		for (k = 0; lvl[k]; k++)
			lvl[k] = tolower((unsigned char)lvl[k]);
		if (!strcmp(lvl, "pte"))
			unit = cont ? cont_pte_size() : (unsigned long)page_size;
		else if (!strcmp(lvl, "pmd"))
			unit = pmd_size;
		else if (!strcmp(lvl, "pud"))
			unit = pmd_size / sizeof(long) * page_size;
		else
			continue;
		for (k = 0; k < n; k++) {
			lo = s > r[k].start ? s : r[k].start;
			hi = e < r[k].end ? e : r[k].end;
			if (lo >= hi)
				continue;
			if (present)
				entries += (hi - lo + unit - 1) / unit;
			else
				*unmapped += (hi - lo) / page_size;
		}
	}
	fclose(f);
	return entries;
}
