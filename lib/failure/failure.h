/*
 * failure.h: the failure module (docs/design.md): why a run failed, from
 * runs/get (runs) and the tail of the failing node's log (logs). The log
 * scanner and the message rules are pure, for the unit tests. It is the
 * only header of lib/failure/; no module above uses it. Never installed.
 */
#ifndef AIR_FAILURE_FAILURE_H
#define AIR_FAILURE_FAILURE_H

#include "core/core.h"
#include "runs/runs.h"

/* Defaults and bounds of the options (failure.h documents them). */
#define AIR__FAILURE_EXCERPT_LINES 40
#define AIR__FAILURE_MAX_EXCERPT_LINES 1000
#define AIR__FAILURE_SCAN_LINES 5000
#define AIR__FAILURE_MAX_SCAN_LINES 100000
#define AIR__FAILURE_SCAN_NODES 8
#define AIR__FAILURE_MAX_SCAN_NODES 256
/* The tail excerpt, and the neighbours of an alert line on each side. */
#define AIR__FAILURE_TAIL 20
#define AIR__FAILURE_ALERT_CONTEXT 3
/* A line of an excerpt is cut at this many bytes. */
#define AIR__FAILURE_LINE_MAX 8192
/* Lines that do not belong to an open traceback (another process's
 * output) before it is given up. */
#define AIR__FAILURE_MAX_STRAY 200

struct air_failure_options {
	air__call_opts call;
	int32_t excerpt_lines;
	int32_t node;            /* -1: the failing node */
	int32_t attempt;         /* -1: the latest */
	int32_t scan_lines;
	int32_t scan_nodes;
};

/* ---- lines (lines.c): the newest @cap lines, each a copy ---------------------- */

typedef struct air__lines {
	char **text;
	size_t *len;
	size_t cap, head, n;
	int64_t dropped;         /* lines pushed out at the front */
} air__lines;

/* Empty, keeping up to @cap lines (allocated on the first push). */
void air__lines_init(air__lines *l, size_t cap);
/* Append a copy of @s (cut at AIR__FAILURE_LINE_MAX), dropping the oldest
 * line when full. AIR_OK or AIR_ENOMEM. */
int air__lines_push(air__lines *l, const char *s, size_t len);
/* Line @i, oldest first; NULL when out of range. */
const char *air__lines_at(const air__lines *l, size_t i, size_t *len);
/* Append every line of @from to @to. AIR_OK or AIR_ENOMEM. */
int air__lines_append(air__lines *to, const air__lines *from);
/* Empty again (same capacity). */
void air__lines_clear(air__lines *l);
void air__lines_dispose(air__lines *l);

/* ---- the log scanner (scan.c) ------------------------------------------------------ */

/* A traceback being read: its first line, the prefix every line of it
 * carries (a process tag such as "[rank0]: ", or nothing), and its newest
 * lines after the first. */
typedef struct air__traceback {
	air__lines head;         /* the "Traceback ..." line (capacity 1) */
	char *prefix;
	size_t prefix_len;
	air__lines body;
	bool frame;              /* a "File ..." line was read */
	bool complete;           /* ended with its exception line */
	size_t stray;            /* lines since its last one that were not of it */
} air__traceback;

/* What the scanner keeps while a log goes by, oldest line first: bounded
 * by the excerpt size whatever the log's length. */
typedef struct air__scan {
	size_t max;              /* lines of an excerpt */
	air__lines tail;         /* the last lines */
	air__lines before;       /* the lines before the current one (an alert's) */
	air__lines alert;        /* the first alert line and its neighbours */
	int32_t alert_pattern;   /* of that line; 0 until one is found */
	size_t alert_after;      /* neighbours still to come after it */
	air__traceback cur;      /* the traceback being read */
	bool open;               /* cur still takes lines */
	air__traceback last;     /* the last complete traceback */
	int64_t lines;           /* lines read */
} air__scan;

void air__scan_init(air__scan *s, size_t max_lines);
/* One line of the log. AIR_OK or AIR_ENOMEM. */
int air__scan_line(air__scan *s, const char *line, size_t len);
/* The excerpt (an air_excerpt_kind): its lines appended to @out (which holds
 * max_lines), the traceback lines left out in *omitted, the alert pattern
 * that labels it in *pattern. AIR_EXCERPT_NONE after no line. Negative:
 * AIR_ENOMEM. */
int32_t air__scan_result(const air__scan *s, air__lines *out, int64_t *omitted,
                         int32_t *pattern);
void air__scan_dispose(air__scan *s);

/* Whether @s (@n bytes, after a traceback's prefix) is a Python exception
 * line: "Name: message", "pkg.Name: message", or a bare name ending in
 * Error, Exception, Interrupt, Exit or Iteration. */
bool air__exception_line(const char *s, size_t n);

/* ---- what the platform says (report.c) -------------------------------------------- */

/* The node a message names ("node 1 exited with status 1", "Node 3",
 * "node_2"), or -1. */
int32_t air__node_named(const char *message);

struct air_failure {
	int64_t run_id;
	int32_t state;           /* air_state */
	char *state_name, *state_message, *term_code, *term_type, *term_message;
	int32_t node, node_source, attempt, attempts_allowed;
	int32_t kind, pattern;
	air__lines excerpt;
	int64_t omitted;
	char *problem;           /* why there is no excerpt */
	char *summary;           /* air_failure_summary(), made once the report is whole */
};

/* A report of what @run (terminal, not succeeded) says, without an excerpt. */
int air__failure_from_run(const air_run *run, int32_t attempt, air_failure **out,
                          air_error **err);
/* Make @f's summary from what it holds (its node and attempt known). AIR_OK
 * or AIR_ENOMEM. */
int air__failure_summarize(air_failure *f, air_error **err);
/* The node named by the termination message, the state message or the
 * last task's, or -1. */
int32_t air__failure_reported_node(const air_run *run);

#endif /* AIR_FAILURE_FAILURE_H */
