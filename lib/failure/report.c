/*
 * report.c: what the platform says about a failed run, read from runs/get:
 * the state message, the termination details (status.termination_details
 * of the run, else of its last task), the attempt, and the node a message
 * names; and the report's getters.
 */
#include "failure/failure.h"

#include <stdio.h>
#include <string.h>

static bool word_char(char c)
{
	return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9');
}

/* The platform's wording for the failing node is not documented: the
 * local workspace writes "node 1 exited with status 1", and "node 1",
 * "Node 1", "node_1", "node-1" and "node #1" are read alike. The first
 * such mention counts. */
int32_t air__node_named(const char *message)
{
	for (const char *p = message; p && (p = strcasestr(p, "node")) != NULL; p += 4) {
		const char *d = p + 4;
		int64_t v = 0;

		if (p > message && word_char(p[-1]))
			continue;
		if (*d == ' ' || *d == '_' || *d == '-')
			d++;
		if (*d == '#')
			d++;
		if (*d < '0' || *d > '9')
			continue;
		while (*d >= '0' && *d <= '9' && v <= INT32_MAX)
			v = v * 10 + (*d++ - '0');
		if (v <= INT32_MAX && !word_char(*d))
			return (int32_t)v;
	}
	return -1;
}

static const json_t *last_task(const air_run *run)
{
	const json_t *tasks = json_object_get(run->json, "tasks");
	size_t n = json_array_size(tasks);

	return n ? json_array_get(tasks, n - 1) : NULL;
}

/* status.termination_details of the run, else of its last task. */
static const json_t *termination(const air_run *run)
{
	const json_t *t = air__json_at(run->json, "status.termination_details");

	return json_is_object(t) ? t : air__json_at(last_task(run), "status.termination_details");
}

int32_t air__failure_reported_node(const air_run *run)
{
	const json_t *task = last_task(run);
	const char *texts[] = {
		air__json_nonempty(termination(run), "message"),
		run->state_message,
		air__json_nonempty(json_object_get(task, "state"), "state_message"),
		air__json_nonempty(air__json_at(task, "status.termination_details"), "message"),
	};
	int32_t node = -1;

	for (size_t i = 0; node < 0 && i < AIR__ARRAY_SIZE(texts); i++)
		node = air__node_named(texts[i]);
	return node;
}

static bool dup_or_null(char **to, const char *from)
{
	*to = from ? air__strdup(from) : NULL;
	return !from || *to;
}

int air__failure_from_run(const air_run *run, int32_t attempt, air_failure **out,
                          air_error **err)
{
	const json_t *term = termination(run);
	air_failure *f = air__calloc(1, sizeof(*f));

	*out = NULL;
	if (!f)
		return air__oom(err);
	f->run_id = run->id;
	f->state = air__state_from_name(run->state);
	f->node = -1;
	f->attempt = attempt;
	f->attempts_allowed = run->max_retries < 0 ? -1
	                      : run->max_retries >= INT32_MAX ? INT32_MAX : run->max_retries + 1;
	air__lines_init(&f->excerpt, 0);
	if (!dup_or_null(&f->state_name, run->state) ||
	    !dup_or_null(&f->state_message, run->state_message) ||
	    !dup_or_null(&f->term_code, air__json_nonempty(term, "code")) ||
	    !dup_or_null(&f->term_type, air__json_nonempty(term, "type")) ||
	    !dup_or_null(&f->term_message, air__json_nonempty(term, "message"))) {
		air_failure_free(f);
		return air__oom(err);
	}
	*out = f;
	return AIR_OK;
}

/* The length of @msg without a last " (attempt N)" (N: @attempt + 1), which
 * the summary's place says already (a local run's message ends so). */
static size_t without_attempt(const char *msg, int32_t attempt)
{
	char tail[40];
	size_t len = strlen(msg), t;

	snprintf(tail, sizeof(tail), " (attempt %lld)", (long long)attempt + 1);
	t = strlen(tail);
	return len > t && !strcmp(msg + len - t, tail) ? len - t : len;
}

int air__failure_summarize(air_failure *f, air_error **err)
{
	const char *msg = air_failure_message(f);
	air__buf b = AIR__BUF_INIT;

	air__buf_printf(&b, "Run %lld %s (attempt %lld", (long long)f->run_id,
	                air_failure_state_name(f), (long long)f->attempt + 1);
	if (f->attempts_allowed > 0)
		air__buf_printf(&b, " of %d", (int)f->attempts_allowed);
	if (f->node >= 0)
		air__buf_printf(&b, ", node %d", (int)f->node);
	air__buf_putc(&b, ')');
	if (msg && *msg) {
		air__buf_puts(&b, ": ");
		air__buf_put(&b, msg, without_attempt(msg, f->attempt));
	}
	air__free(f->summary);
	f->summary = air__buf_oom(&b) ? NULL : air__buf_detach(&b);
	air__buf_dispose(&b);
	return f->summary ? AIR_OK : air__oom(err);
}

/* ---- getters ---------------------------------------------------------------------- */

void air_failure_free(air_failure *f)
{
	if (!f)
		return;
	air__free(f->state_name);
	air__free(f->state_message);
	air__free(f->term_code);
	air__free(f->term_type);
	air__free(f->term_message);
	air__lines_dispose(&f->excerpt);
	air__free(f->problem);
	air__free(f->summary);
	air__free(f);
}

int64_t air_failure_run_id(const air_failure *f) { return f ? f->run_id : 0; }
int32_t air_failure_state(const air_failure *f) { return f ? f->state : AIR_STATE_UNKNOWN; }

const char *air_failure_state_name(const air_failure *f)
{
	return f && f->state_name ? f->state_name : "UNKNOWN";
}

const char *air_failure_message(const air_failure *f)
{
	if (!f)
		return NULL;
	return f->state_message ? f->state_message : f->term_message;
}

const char *air_failure_state_message(const air_failure *f) { return f ? f->state_message : NULL; }
const char *air_failure_termination_code(const air_failure *f) { return f ? f->term_code : NULL; }
const char *air_failure_termination_type(const air_failure *f) { return f ? f->term_type : NULL; }

const char *air_failure_termination_message(const air_failure *f)
{
	return f ? f->term_message : NULL;
}

int32_t air_failure_node(const air_failure *f) { return f ? f->node : -1; }

int32_t air_failure_node_source(const air_failure *f)
{
	return f ? f->node_source : AIR_NODE_SOURCE_NONE;
}

int32_t air_failure_attempt(const air_failure *f) { return f ? f->attempt : 0; }
int32_t air_failure_attempts_allowed(const air_failure *f) { return f ? f->attempts_allowed : 0; }
int32_t air_failure_excerpt_kind(const air_failure *f) { return f ? f->kind : AIR_EXCERPT_NONE; }
size_t air_failure_excerpt_count(const air_failure *f) { return f ? f->excerpt.n : 0; }

const char *air_failure_excerpt_line(const air_failure *f, size_t i, size_t *len_out)
{
	if (!f) {
		if (len_out)
			*len_out = 0;
		return NULL;
	}
	return air__lines_at(&f->excerpt, i, len_out);
}

int64_t air_failure_excerpt_omitted(const air_failure *f) { return f ? f->omitted : 0; }
const char *air_failure_excerpt_problem(const air_failure *f) { return f ? f->problem : NULL; }
int32_t air_failure_alert_pattern(const air_failure *f) { return f ? f->pattern : 0; }

const char *air_failure_summary(const air_failure *f) { return f ? f->summary : NULL; }

const char *air_failure_alert_label(const air_failure *f)
{
	return f ? air_log_alert_label(f->pattern) : NULL;
}
