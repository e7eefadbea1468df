/*
 * alerts.c: the fatal-pattern ALERT detection of docs/runs-and-logs.md#alert-patterns.
 *
 * The patterns are RE2 syntax; POSIX regcomp() has no \d, \s, \b or (?:...),
 * so each one carries a hand translation to ERE (REG_ICASE for "(?i)"), with
 * ASCII classes spelt out so that the locale cannot change them. Most lines
 * match nothing: a lower-cased literal every match must contain is checked
 * first, so regexec() only runs on candidates.
 */
#include "core/core.h"

#include <pthread.h>
#include <regex.h>
#include <string.h>

#define SP "[ \t\n\r\f\v]"
#define WORD "A-Za-z0-9_"

static const struct alert_pattern {
	const char *re2;       /* as specified (air_log_alert_pattern) */
	const char *ere;       /* POSIX extended translation */
	bool icase;
	const char *literal;   /* lower-case substring every match contains */
} patterns[] = {
	{"(?i)CUDA out of memory", "CUDA out of memory", true, "cuda out of memory"},
	{"(?i)Out of memory: Kill(ed)? process", "Out of memory: Kill(ed)? process", true,
	 "out of memory: kill"},
	{"(?i)signal\\s+(9|SIGKILL|SIGTERM)", "signal" SP "+(9|SIGKILL|SIGTERM)", true, "signal"},
	{"Watchdog caught collective operation timeout",
	 "Watchdog caught collective operation timeout", false, "watchdog caught collective"},
	{"(?i)NCCL WARN .*(Conn|Net|IB|timeout|unhandled)",
	 "NCCL WARN .*(Conn|Net|IB|timeout|unhandled)", true, "nccl warn "},
	{"Got async error event", "Got async error event", false, "got async error event"},
	{"transport/net_ib\\.cc:\\d+.*WARN", "transport/net_ib\\.cc:[0-9]+.*WARN", false,
	 "transport/net_ib.cc:"},
	{"(?i)CUDA(?: runtime)? error", "CUDA( runtime)? error", true, "cuda"},
	{"(?i)an illegal memory access was encountered", "an illegal memory access was encountered",
	 true, "an illegal memory access was encountered"},
	{"CUDA kernel errors might be asynchronously reported",
	 "CUDA kernel errors might be asynchronously reported", false,
	 "cuda kernel errors might be asynchronously reported"},
	{"(?i)segmentation fault", "segmentation fault", true, "segmentation fault"},
	{"composer\\.utils\\..*Error", "composer\\.utils\\..*Error", false, "composer.utils."},
	{"(?i)composer.*OutOfMemory", "composer.*OutOfMemory", true, "composer"},
	{"torch\\.distributed\\..*(?:Error|Exception)", "torch\\.distributed\\..*(Error|Exception)",
	 false, "torch.distributed."},
	{"(?i)(?:TCPStore|Store).*timed?\\s*out", "(TCPStore|Store).*timed?" SP "*out", true,
	 "store"},
	/* \b before the number: "Xid" precedes it, so a non-word character must. */
	{"Xid.*\\b(48|63|64|79|94|95)\\b",
	 "Xid.*[^" WORD "](48|63|64|79|94|95)([^" WORD "]|$)", false, "xid"},
	{"streaming\\.base\\..*(?:Error|Exception)", "streaming\\.base\\..*(Error|Exception)", false,
	 "streaming.base."},
	{"^\\s*Killed\\s*$", "^" SP "*Killed" SP "*$", false, "killed"},
	{"\\[MLflow Logger\\]\\[Warning\\] No new logs have been emitted",
	 "\\[MLflow Logger\\]\\[Warning\\] No new logs have been emitted", false,
	 "[mlflow logger][warning] no new logs have been emitted"},
	{"ERROR: Script failed with exit code [1-9]\\d* after \\d+s",
	 "ERROR: Script failed with exit code [1-9][0-9]* after [0-9]+s", false,
	 "error: script failed with exit code "},
	{"(?i)command not found", "command not found", true, "command not found"},
};

#define NPATTERNS ((int32_t)AIR__ARRAY_SIZE(patterns))

static regex_t compiled[AIR__ARRAY_SIZE(patterns)];
static bool compiled_ok[AIR__ARRAY_SIZE(patterns)];
static pthread_once_t compile_once = PTHREAD_ONCE_INIT;

/* Compiled once per process and never freed (like a static table). */
static void compile_all(void)
{
	for (int32_t i = 0; i < NPATTERNS; i++)
		compiled_ok[i] = regcomp(&compiled[i], patterns[i].ere,
		                         REG_EXTENDED | REG_NOSUB |
		                                 (patterns[i].icase ? REG_ICASE : 0)) == 0;
}

int32_t air_log_alert_pattern_count(void) { return NPATTERNS; }

const char *air_log_alert_pattern(int32_t pattern)
{
	return pattern >= 1 && pattern <= NPATTERNS ? patterns[pattern - 1].re2 : NULL;
}

static bool has_literal(const char *lower, size_t len, const char *lit)
{
	return memmem(lower, len, lit, strlen(lit)) != NULL;
}

int32_t air_log_match_alert(const char *line, size_t len)
{
	char stack[512], *lower;
	int32_t found = 0;

	if (!line)
		return 0;
	pthread_once(&compile_once, compile_all);
	lower = len < sizeof(stack) ? stack : air__malloc(len);
	if (!lower)
		return 0;
	for (size_t i = 0; i < len; i++) {
		unsigned char c = (unsigned char)line[i];
		lower[i] = (char)(c >= 'A' && c <= 'Z' ? c + 32 : c);
	}
	for (int32_t i = 0; i < NPATTERNS && !found; i++) {
		regmatch_t m[1];

		if (!compiled_ok[i] || !has_literal(lower, len, patterns[i].literal))
			continue;
		/* REG_STARTEND: the line is not NUL-terminated and may contain NULs. */
		m[0].rm_so = 0;
		m[0].rm_eo = (regoff_t)len;
		if (regexec(&compiled[i], line, 1, m, REG_STARTEND) == 0)
			found = i + 1;
	}
	if (lower != stack)
		air__free(lower);
	return found;
}
