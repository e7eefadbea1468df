/*
 * test_failure_scan.c: the excerpt of a failure report (lib/failure/scan.c)
 * and the node a platform message names (report.c): tracebacks plain,
 * chained, tagged by process and interleaved with other output, cut short
 * or too long; alert lines with their neighbours; the tail; a log of any
 * length in bounded memory.
 */
#include <stdlib.h>

#include "failure/failure.h"
#include "test.h"

typedef struct result {
	int32_t kind, pattern;
	int64_t omitted;
	air__lines lines;
} result;

/* Feed @log (lines separated by "\n") to a scanner of @max lines. */
static result scan(const char *log, size_t max)
{
	air__scan s;
	result r;
	const char *p = log;

	air__scan_init(&s, max);
	while (*p) {
		const char *nl = strchr(p, '\n');
		size_t n = nl ? (size_t)(nl - p) : strlen(p);

		ASSERT_EQ_INT(air__scan_line(&s, p, n), AIR_OK);
		p += n + (nl != NULL);
	}
	air__lines_init(&r.lines, max);
	r.kind = air__scan_result(&s, &r.lines, &r.omitted, &r.pattern);
	air__scan_dispose(&s);
	return r;
}

/* The excerpt's lines joined with "\n" (static). */
static const char *joined(const result *r)
{
	static char buf[65536];
	size_t at = 0;

	buf[0] = '\0';
	for (size_t i = 0; i < r->lines.n; i++) {
		size_t len;
		const char *t = air__lines_at(&r->lines, i, &len);
		at += (size_t)snprintf(buf + at, sizeof(buf) - at, "%s%.*s", i ? "\n" : "", (int)len, t);
	}
	return buf;
}

static void done(result *r) { air__lines_dispose(&r->lines); }

#define TB "Traceback (most recent call last):\n"

AIR_TEST(failure__a_traceback_from_its_first_line_to_its_exception)
{
	result r = scan("loading data\nstep 1\n" TB
	                "  File \"<string>\", line 1, in <module>\n"
	                "ZeroDivisionError: division by zero\n"
	                "[air local] the node exited with status 1\n",
	                40);

	ASSERT_EQ_INT(r.kind, AIR_EXCERPT_TRACEBACK);
	ASSERT_EQ_STR(joined(&r), "Traceback (most recent call last):\n"
	                          "  File \"<string>\", line 1, in <module>\n"
	                          "ZeroDivisionError: division by zero");
	ASSERT_EQ_INT(r.omitted, 0);
	ASSERT_EQ_INT(r.pattern, 0);
	done(&r);
}

AIR_TEST(failure__chained_exceptions_give_the_last_traceback)
{
	result r = scan(TB "  File \"a.py\", line 3, in load\n"
	                "    open(path)\n"
	                "FileNotFoundError: [Errno 2] No such file or directory: 'x'\n"
	                "\n"
	                "During handling of the above exception, another exception occurred:\n"
	                "\n" TB "  File \"a.py\", line 5, in <module>\n"
	                "    raise RuntimeError(\"no data\") from None\n"
	                "RuntimeError: no data\n",
	                40);

	ASSERT_EQ_INT(r.kind, AIR_EXCERPT_TRACEBACK);
	ASSERT_EQ_STR(joined(&r), "Traceback (most recent call last):\n"
	                          "  File \"a.py\", line 5, in <module>\n"
	                          "    raise RuntimeError(\"no data\") from None\n"
	                          "RuntimeError: no data");
	done(&r);
}

/* Two processes' output mixed: each line carries its process's tag. */
AIR_TEST(failure__a_tagged_traceback_among_other_processes_lines)
{
	result r = scan("[rank1]: step 7 loss 0.25\n"
	                "[rank0]: Traceback (most recent call last):\n"
	                "[rank1]: step 8 loss 0.24\n"
	                "[rank0]:   File \"train.py\", line 9, in <module>\n"
	                "[rank1]: Note: checkpoint saved\n"
	                "[rank0]:     main()\n"
	                "[rank0]: torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2 GiB\n"
	                "[rank1]: step 9 loss 0.23\n",
	                40);

	ASSERT_EQ_INT(r.kind, AIR_EXCERPT_TRACEBACK);
	ASSERT_EQ_STR(joined(&r), "[rank0]: Traceback (most recent call last):\n"
	                          "[rank0]:   File \"train.py\", line 9, in <module>\n"
	                          "[rank0]:     main()\n"
	                          "[rank0]: torch.OutOfMemoryError: CUDA out of memory. Tried to "
	                          "allocate 2 GiB");
	/* The exception line names the alert pattern that labels the excerpt. */
	ASSERT_EQ_INT(r.pattern, 1);
	ASSERT_EQ_STR(air_log_alert_label(r.pattern), "CUDA out of memory");
	done(&r);
}

/* Untagged output of another thread between frames is passed over. */
AIR_TEST(failure__interleaved_lines_are_left_out)
{
	result r = scan(TB "  File \"t.py\", line 2, in <module>\n"
	                "epoch 3 step 10\n"
	                "    run()\n"
	                "KeyError: 'lr'\n",
	                40);

	ASSERT_EQ_STR(joined(&r), "Traceback (most recent call last):\n"
	                          "  File \"t.py\", line 2, in <module>\n"
	                          "    run()\n"
	                          "KeyError: 'lr'");
	done(&r);
}

AIR_TEST(failure__the_last_of_several_tracebacks)
{
	result r = scan(TB "  File \"w.py\", line 1, in <module>\n"
	                "UserWarning: early\n"
	                "training goes on\n" TB "  File \"w.py\", line 9, in <module>\n"
	                "KeyboardInterrupt\n",
	                40);

	ASSERT_CONTAINS(joined(&r), "line 9");
	ASSERT_CONTAINS(joined(&r), "KeyboardInterrupt");
	ASSERT_NOT_CONTAINS(joined(&r), "UserWarning");
	done(&r);
}

/* A long traceback keeps its first line and its newest lines, so it always
 * ends with the exception; what was left out is counted. */
AIR_TEST(failure__a_long_traceback_keeps_its_head_and_its_end)
{
	char log[16384];
	size_t at = (size_t)snprintf(log, sizeof(log), TB);
	result r;

	for (int i = 0; i < 50; i++)
		at += (size_t)snprintf(log + at, sizeof(log) - at,
		                       "  File \"r.py\", line %d, in f\n    f()\n", i);
	snprintf(log + at, sizeof(log) - at, "RecursionError: maximum recursion depth exceeded\n");
	r = scan(log, 10);
	ASSERT_EQ_INT(r.kind, AIR_EXCERPT_TRACEBACK);
	ASSERT_EQ_INT(r.lines.n, 10);
	ASSERT_EQ_STR(air__lines_at(&r.lines, 0, NULL), "Traceback (most recent call last):");
	ASSERT_EQ_STR(air__lines_at(&r.lines, 9, NULL),
	              "RecursionError: maximum recursion depth exceeded");
	ASSERT_EQ_STR(air__lines_at(&r.lines, 1, NULL), "  File \"r.py\", line 46, in f");
	ASSERT_EQ_INT(r.omitted, 101 - 9);
	done(&r);
}

/* A traceback cut short (the process was killed while printing it) is
 * still the excerpt when no other completes. */
AIR_TEST(failure__a_traceback_cut_short_is_kept)
{
	result r = scan("x\n" TB "  File \"k.py\", line 4, in <module>\n    big()\n", 40);

	ASSERT_EQ_INT(r.kind, AIR_EXCERPT_TRACEBACK);
	ASSERT_EQ_INT(r.lines.n, 3);
	done(&r);
	/* A marker quoted inside a line is no traceback. */
	r = scan("print('Traceback (most recent call last): is how it starts')\nbye\n", 40);
	ASSERT_EQ_INT(r.kind, AIR_EXCERPT_TAIL);
	done(&r);
}

AIR_TEST(failure__without_a_traceback_the_first_alert_line_and_its_neighbours)
{
	result r = scan("a\nb\nc\nd\n"
	                "RuntimeError: CUDA error: an illegal memory access was encountered\n"
	                "e\nf\ng\nh\n"
	                "CUDA out of memory again\n",
	                40);

	ASSERT_EQ_INT(r.kind, AIR_EXCERPT_ALERT);
	ASSERT_EQ_STR(joined(&r), "b\nc\nd\n"
	                          "RuntimeError: CUDA error: an illegal memory access was encountered\n"
	                          "e\nf\ng");
	ASSERT_EQ_INT(r.pattern, 8);
	ASSERT_EQ_STR(air_log_alert_label(r.pattern), "CUDA error");
	done(&r);
	/* At the very start and end of the log: what there is. */
	r = scan("Killed\n", 40);
	ASSERT_EQ_INT(r.kind, AIR_EXCERPT_ALERT);
	ASSERT_EQ_STR(joined(&r), "Killed");
	done(&r);
}

AIR_TEST(failure__else_the_last_twenty_lines)
{
	char log[4096];
	size_t at = 0;
	result r;

	for (int i = 1; i <= 30; i++)
		at += (size_t)snprintf(log + at, sizeof(log) - at, "line %d\n", i);
	r = scan(log, 40);
	ASSERT_EQ_INT(r.kind, AIR_EXCERPT_TAIL);
	ASSERT_EQ_INT(r.lines.n, 20);
	ASSERT_EQ_STR(air__lines_at(&r.lines, 0, NULL), "line 11");
	ASSERT_EQ_STR(air__lines_at(&r.lines, 19, NULL), "line 30");
	ASSERT_EQ_INT(r.pattern, 0);
	done(&r);
	/* Fewer excerpt lines than that: the tail shrinks with them. */
	r = scan(log, 5);
	ASSERT_EQ_STR(joined(&r), "line 26\nline 27\nline 28\nline 29\nline 30");
	done(&r);
	r = scan("", 40);
	ASSERT_EQ_INT(r.kind, AIR_EXCERPT_NONE);
	done(&r);
}

/* A long log is read line by line; the scanner keeps a few lines, and a
 * line longer than the cap is cut there. */
AIR_TEST(failure__memory_is_bounded_by_the_excerpt)
{
	static char big[AIR__FAILURE_LINE_MAX * 2];
	air__scan s;
	air__lines out;
	int64_t omitted;
	int32_t pattern;
	size_t len;

	memset(big, 'x', sizeof(big));
	air__scan_init(&s, 40);
	for (int i = 0; i < 20000; i++) {
		char line[64];
		int n = snprintf(line, sizeof(line), "step %d loss 0.%d", i, i % 97);
		ASSERT_EQ_INT(air__scan_line(&s, line, (size_t)n), AIR_OK);
		ASSERT_TRUE(s.tail.n <= AIR__FAILURE_TAIL && s.before.n <= AIR__FAILURE_ALERT_CONTEXT);
	}
	ASSERT_EQ_INT(air__scan_line(&s, big, sizeof(big)), AIR_OK);
	ASSERT_EQ_INT(s.lines, 20001);
	air__lines_init(&out, 40);
	ASSERT_EQ_INT(air__scan_result(&s, &out, &omitted, &pattern), AIR_EXCERPT_TAIL);
	ASSERT_EQ_STR(air__lines_at(&out, 0, NULL), "step 19981 loss 0.96");
	air__lines_at(&out, out.n - 1, &len);
	ASSERT_EQ_INT(len, AIR__FAILURE_LINE_MAX);
	air__lines_dispose(&out);
	air__scan_dispose(&s);
}

AIR_TEST(failure__exception_lines)
{
	static const char *const yes[] = {
		"ValueError: bad", "torch.OutOfMemoryError: CUDA out of memory.",
		"subprocess.CalledProcessError: Command 'x' returned non-zero exit status 1.",
		"__main__.MyFault: x", "AssertionError", "KeyboardInterrupt", "SystemExit: 2",
		"StopIteration", "pkg.sub.ConfigException  ",
	};
	static const char *const no[] = {
		"epoch 3 step 10", "INFO:root:loss 0.1", "Done", "x.py: line 3", "1Error: x",
		"ValueError:bad", ".Error: x", "pkg..Error: x", "",
	};

	for (size_t i = 0; i < sizeof(yes) / sizeof(yes[0]); i++)
		if (!air__exception_line(yes[i], strlen(yes[i])))
			FAIL("not read as an exception line: \"%s\"", yes[i]);
	for (size_t i = 0; i < sizeof(no) / sizeof(no[0]); i++)
		if (air__exception_line(no[i], strlen(no[i])))
			FAIL("read as an exception line: \"%s\"", no[i]);
}

AIR_TEST(failure__the_node_a_message_names)
{
	ASSERT_EQ_INT(air__node_named("node 1 exited with status 1"), 1);
	ASSERT_EQ_INT(air__node_named("node 0 exited with status 1 (attempt 3)"), 0);
	ASSERT_EQ_INT(air__node_named("Workload failed on Node 12: exit code 137"), 12);
	ASSERT_EQ_INT(air__node_named("failure on node_3"), 3);
	ASSERT_EQ_INT(air__node_named("failure on node-4."), 4);
	ASSERT_EQ_INT(air__node_named("node #5 lost"), 5);
	ASSERT_EQ_INT(air__node_named("the run was canceled"), -1);
	ASSERT_EQ_INT(air__node_named("failed on 2 nodes"), -1);
	ASSERT_EQ_INT(air__node_named("subnode 3 failed"), -1);
	ASSERT_EQ_INT(air__node_named("node 3x failed, then node 2 did"), 2);
	ASSERT_EQ_INT(air__node_named("node 99999999999 failed"), -1);
	ASSERT_EQ_INT(air__node_named(NULL), -1);
}

/* A line longer than an excerpt keeps is cut between characters, never
 * inside one: the report's lines stay UTF-8. */
AIR_TEST(failure__a_long_line_is_cut_between_characters)
{
	static char big[AIR__FAILURE_LINE_MAX + 8];
	air__lines l;
	size_t len;
	const char *t;

	memset(big, 'x', sizeof(big));
	memcpy(big + AIR__FAILURE_LINE_MAX - 1, "\xC3\xA9", 2); /* é across the limit */
	air__lines_init(&l, 2);
	ASSERT_EQ_INT(air__lines_push(&l, big, sizeof(big)), AIR_OK);
	t = air__lines_at(&l, 0, &len);
	ASSERT_EQ_INT(len, AIR__FAILURE_LINE_MAX - 1);
	ASSERT_EQ_INT(t[len - 1], 'x');
	air__lines_dispose(&l);
}
