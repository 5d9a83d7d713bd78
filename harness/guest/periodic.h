/* SPDX-License-Identifier: GPL-2.0 */
/* The periodic-collection scenario of the benchmark (periodic.c). */
#ifndef BENCH_PERIODIC_H
#define BENCH_PERIODIC_H

/* bench.periodic=N: run the scenario, print its "bench: periodic" line */
int run_periodic(void);

#endif
