/*
 * bench_support.h: what the benchmarks share: wall and CPU clocks, and the
 * peak resident size of a phase.
 */
#ifndef AIR_BENCH_SUPPORT_H
#define AIR_BENCH_SUPPORT_H

#include <stdbool.h>

/* Monotonic wall time, seconds. */
double bench_now_s(void);
/* CPU time of this process (user + system), seconds. */
double bench_cpu_s(void);
/* Reset the peak RSS (VmHWM) so that each phase reports its own; false when
 * the kernel does not allow it (/proc/self/clear_refs). */
bool bench_reset_peak(void);
/* The peak RSS in KiB: VmHWM when @per_phase (since the last reset), else
 * ru_maxrss (the whole process). */
long bench_peak_kib(bool per_phase);

#endif /* AIR_BENCH_SUPPORT_H */
