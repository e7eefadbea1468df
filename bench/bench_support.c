/* bench_support.c: see bench_support.h. */
#include "bench_support.h"

#include <stdio.h>
#include <sys/resource.h>
#include <time.h>

double bench_now_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

double bench_cpu_s(void)
{
	struct rusage ru;
	getrusage(RUSAGE_SELF, &ru);
	return (double)ru.ru_utime.tv_sec + (double)ru.ru_utime.tv_usec / 1e6 +
	       (double)ru.ru_stime.tv_sec + (double)ru.ru_stime.tv_usec / 1e6;
}

bool bench_reset_peak(void)
{
	FILE *f = fopen("/proc/self/clear_refs", "w");
	bool ok = f && fputs("5", f) >= 0;

	if (f)
		ok = fclose(f) == 0 && ok;
	return ok;
}

long bench_peak_kib(bool per_phase)
{
	char line[256];
	long kib = -1;
	FILE *f = per_phase ? fopen("/proc/self/status", "r") : NULL;

	while (f && fgets(line, sizeof(line), f))
		if (sscanf(line, "VmHWM: %ld kB", &kib) == 1)
			break;
	if (f)
		fclose(f);
	if (kib < 0) {
		struct rusage ru;
		getrusage(RUSAGE_SELF, &ru);
		kib = ru.ru_maxrss;
	}
	return kib;
}
