/*
 * alerts.c: the fatal-pattern ALERT detection of docs/runs-and-logs.md#alert-patterns.
 *
 * The patterns are RE2 syntax, which PCRE2 reads as it is for these 21
 * (\d, \s and \b are ASCII without PCRE2_UCP; "(?i)" inside a group applies
 * to that group only). They are compiled once per process: one alternation
 * of all of them, each wrapped in a group of its own, JIT-compiled when the
 * platform has a JIT, so a line is scanned once whatever it contains; and
 * each pattern alone (interpreted), used only on the rare line that
 * matches, to find the first pattern in table order (the alternation
 * reports the leftmost match).
 * Lines are matched as bytes (no UTF-8 check: a log line may be anything)
 * with their length (they may contain NUL bytes), and "$" matches only at
 * the very end, as in RE2.
 */
#include "core/core.h"

#define PCRE2_CODE_UNIT_WIDTH 8
#include <pcre2.h>
#include <pthread.h>
#include <string.h>
#if defined(__has_include)
#  if __has_include(<valgrind/valgrind.h>)
#    include <valgrind/valgrind.h>
#  endif
#endif
#ifndef RUNNING_ON_VALGRIND
#  define RUNNING_ON_VALGRIND 0
#endif

/* The patterns of the protocol, in its order, each with a short label that
 * names what it detects (the label of a failure excerpt). */
static const struct {
	const char *re, *label;
} patterns[] = {
	{"(?i)CUDA out of memory", "CUDA out of memory"},
	{"(?i)Out of memory: Kill(ed)? process", "Out of memory: process killed"},
	{"(?i)signal\\s+(9|SIGKILL|SIGTERM)", "Killed by a signal"},
	{"Watchdog caught collective operation timeout", "NCCL watchdog timeout"},
	{"(?i)NCCL WARN .*(Conn|Net|IB|timeout|unhandled)", "NCCL network warning"},
	{"Got async error event", "Async error event"},
	{"transport/net_ib\\.cc:\\d+.*WARN", "InfiniBand transport warning"},
	{"(?i)CUDA(?: runtime)? error", "CUDA error"},
	{"(?i)an illegal memory access was encountered", "Illegal memory access"},
	{"CUDA kernel errors might be asynchronously reported", "CUDA kernel error"},
	{"(?i)segmentation fault", "Segmentation fault"},
	{"composer\\.utils\\..*Error", "Composer error"},
	{"(?i)composer.*OutOfMemory", "Composer out of memory"},
	{"torch\\.distributed\\..*(?:Error|Exception)", "torch.distributed error"},
	{"(?i)(?:TCPStore|Store).*timed?\\s*out", "Store timeout"},
	{"Xid.*\\b(48|63|64|79|94|95)\\b", "GPU Xid error"},
	{"streaming\\.base\\..*(?:Error|Exception)", "Streaming dataset error"},
	{"^\\s*Killed\\s*$", "Killed"},
	{"\\[MLflow Logger\\]\\[Warning\\] No new logs have been emitted",
	 "No new logs (MLflow logger)"},
	{"ERROR: Script failed with exit code [1-9]\\d* after \\d+s", "Script failed"},
	{"(?i)command not found", "Command not found"},
};

#define NPATTERNS ((int32_t)AIR__ARRAY_SIZE(patterns))
#define COMPILE_FLAGS PCRE2_DOLLAR_ENDONLY

static struct {
	pcre2_code *any;                  /* every pattern, as one alternation */
	uint32_t group[AIR__ARRAY_SIZE(patterns)]; /* the group of pattern i in @any */
	pcre2_code *one[AIR__ARRAY_SIZE(patterns)];
	uint32_t ovector_pairs;           /* enough for @any and every one[i] */
	bool ok;
} re;
static pthread_once_t compile_once = PTHREAD_ONCE_INIT;

/* @jit: JIT-compiled where the platform can (else interpreted). The
 * patterns alone are only used on a line that matched: interpreted, they
 * read nothing past the line's end (the JIT's vector search may read the
 * rest of an aligned block, which memory checkers report when the line
 * ends a buffer). */
static pcre2_code *compile(const char *text, size_t len, bool jit)
{
	int code;
	PCRE2_SIZE at;
	pcre2_code *c = pcre2_compile((PCRE2_SPTR)text, len, COMPILE_FLAGS, &code, &at, NULL);

	/* Nor under valgrind, whose memcheck takes the JIT's reads past the end
	 * of a line (harmless, and needed for its speed) for uses of
	 * uninitialised memory. */
	if (c && jit && !RUNNING_ON_VALGRIND)
		pcre2_jit_compile(c, PCRE2_JIT_COMPLETE); /* no JIT on this platform: interpreted */
	return c;
}

/* Compiled once per process and never freed (like a static table). */
static void compile_all(void)
{
	air__buf all = AIR__BUF_INIT;
	uint32_t next_group = 1, caps;

	re.ok = true;
	for (int32_t i = 0; i < NPATTERNS; i++) {
		if (!(re.one[i] = compile(patterns[i].re, PCRE2_ZERO_TERMINATED, false)) ||
		    pcre2_pattern_info(re.one[i], PCRE2_INFO_CAPTURECOUNT, &caps) != 0) {
			re.ok = false;
			break;
		}
		air__buf_printf(&all, "%s(%s)", i ? "|" : "", patterns[i].re);
		re.group[i] = next_group;
		next_group += 1 + caps;
	}
	re.ovector_pairs = next_group;
	if (re.ok && !air__buf_oom(&all))
		re.any = compile(all.ptr, all.len, true);
	re.ok = re.ok && re.any;
	air__buf_dispose(&all);
}

int32_t air_log_alert_pattern_count(void) { return NPATTERNS; }

const char *air_log_alert_pattern(int32_t pattern)
{
	return pattern >= 1 && pattern <= NPATTERNS ? patterns[pattern - 1].re : NULL;
}

const char *air_log_alert_label(int32_t pattern)
{
	return pattern >= 1 && pattern <= NPATTERNS ? patterns[pattern - 1].label : NULL;
}

static bool matches(const pcre2_code *c, const char *line, size_t len, pcre2_match_data *md)
{
	return pcre2_match(c, (PCRE2_SPTR)line, len, 0, 0, md, NULL) >= 0;
}

int32_t air_log_match_alert(const char *line, size_t len)
{
	pcre2_match_data *md;
	int32_t found = 0;

	if (!line)
		return 0;
	pthread_once(&compile_once, compile_all);
	if (!re.ok || !(md = pcre2_match_data_create(re.ovector_pairs, NULL)))
		return 0;
	if (matches(re.any, line, len, md)) {
		const PCRE2_SIZE *ov = pcre2_get_ovector_pointer(md);

		/* The leftmost match is pattern k; an earlier pattern may match
		 * further right, and wins. */
		for (int32_t i = 0; i < NPATTERNS && !found; i++)
			if (ov[2 * re.group[i]] != PCRE2_UNSET)
				found = i + 1;
		for (int32_t i = 0; i + 1 < found; i++)
			if (matches(re.one[i], line, len, md)) {
				found = i + 1;
				break;
			}
	}
	pcre2_match_data_free(md);
	return found;
}
