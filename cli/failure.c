/*
 * failure.c: why a run failed, as the run commands show it
 * (docs/cli.md#why-a-run-failed): one text block — used on stderr by
 * `air run --watch` and a followed `air logs`, and as the Failure panel of
 * `air get` — the FAILURE event of `air run --watch -o json`, and the
 * failure object of `air get -o json`.
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "runs_cli.h"

int cli_failure_read(air_client *c, int64_t run_id, air_failure **out, air_error **err)
{
	air_failure_options *o = NULL;
	int rc = air_failure_options_new(&o);

	*out = NULL;
	if (rc == AIR_OK)
		rc = air_failure_options_set_interrupt(o, cli_interrupt());
	if (rc == AIR_OK)
		rc = air_client_get_failure(c, run_id, o, out, err);
	air_failure_options_free(o);
	return rc;
}

/* What the excerpt is, as the line that introduces it. */
static void excerpt_title(const air_failure *f, char *out, size_t n)
{
	static const char *const what[] = {"Lines of", "Last traceback in", "First alert line in",
	                                   "Last lines of"};
	int32_t kind = air_failure_excerpt_kind(f);
	const char *label = air_failure_alert_label(f);

	if (kind < 0 || kind >= (int32_t)(sizeof(what) / sizeof(what[0])))
		kind = 0; /* a kind of a newer library */
	snprintf(out, n, "%s the log of node %d%s%s%s:", what[kind], (int)air_failure_node(f),
	         label ? " (" : "", label ? label : "", label ? ")" : "");
}

/* An excerpt line for the terminal: tabs as spaces, then cleaned. */
static char *shown(const char *s, size_t len)
{
	char *tabs = strndup(s, len), *out;

	for (char *p = tabs; p && *p; p++)
		if (*p == '\t')
			*p = ' ';
	out = tabs ? cli_clean_dup(tabs, strlen(tabs), false) : NULL;
	free(tabs);
	return out;
}

void cli_failure_lines(const air_failure *f, void (*emit)(const char *line, void *ud), void *ud)
{
	const char *problem = air_failure_excerpt_problem(f), *summary = air_failure_summary(f);
	size_t n = air_failure_excerpt_count(f);
	char *line = NULL;

	if (summary)
		emit(cli_clean(summary), ud);
	if (n > 0) {
		char title[160];

		excerpt_title(f, title, sizeof(title));
		emit(title, ud);
	} else if (problem) {
		if (asprintf(&line, "No log excerpt: %s", cli_clean(problem)) >= 0)
			emit(line, ud);
		free(line);
	}
	for (size_t i = 0; i < n; i++) {
		size_t len;
		const char *text = air_failure_excerpt_line(f, i, &len);
		char *clean = shown(text, len);

		line = NULL;
		if (clean && asprintf(&line, "  %s", clean) >= 0)
			emit(line, ud);
		free(line);
		free(clean);
		line = NULL;
		if (i == 0 && air_failure_excerpt_omitted(f) > 0 &&
		    asprintf(&line, "  ... (%" PRId64 " lines left out)",
		             air_failure_excerpt_omitted(f)) >= 0)
			emit(line, ud);
		free(line);
	}
	line = NULL;
	if (air_failure_node(f) >= 0 &&
	    asprintf(&line, "The whole log: air logs%s %" PRId64 " --node %d --retry %d",
	             cli_target_flags(), air_failure_run_id(f), (int)air_failure_node(f),
	             (int)air_failure_attempt(f)) >= 0)
		emit(line, ud);
	free(line);
}

static void to_stderr(const char *line, void *ud)
{
	(void)ud;
	fprintf(stderr, "%s\n", line);
}

int cli_failure_print_block(air_client *c, int64_t run_id)
{
	air_failure *f = NULL;
	air_error *err = NULL;
	int rc = cli_failure_read(c, run_id, &f, &err);

	fflush(stdout); /* the log lines before it, also through a pipe */
	if (rc == AIR_EINTERRUPTED || cli_interrupted()) {
		cli_report_interrupted();
	} else if (rc != AIR_OK) {
		char *msg = cli_air_message(err, rc, NULL);
		fprintf(stderr, "The failure of run %" PRId64 " could not be read: %s\n", run_id,
		        msg ? cli_clean_lines(msg) : air_strerror(rc));
		free(msg);
	} else if (f) {
		cli_failure_lines(f, to_stderr, NULL);
	}
	fflush(stderr);
	air_error_free(err);
	air_failure_free(f);
	return rc;
}

json_t *cli_failure_json(const air_failure *f)
{
	json_t *o = json_object(), *lines = json_array();
	const char *msg = air_failure_message(f);

	json_object_set_new(o, "message", msg ? json_string(msg) : json_null());
	json_object_set_new(o, "node", air_failure_node(f) >= 0 ? json_integer(air_failure_node(f))
	                                                         : json_null());
	json_object_set_new(o, "attempt", json_integer(air_failure_attempt(f)));
	for (size_t i = 0; i < air_failure_excerpt_count(f); i++) {
		size_t len;
		const char *text = air_failure_excerpt_line(f, i, &len);
		json_array_append_new(lines, cli_json_text(text, len));
	}
	json_object_set_new(o, "excerpt", lines);
	return o;
}

int cli_failure_print_event(air_client *c, int64_t run_id)
{
	air_failure *f = NULL;
	int rc = cli_failure_read(c, run_id, &f, NULL);

	if (rc == AIR_EINTERRUPTED || cli_interrupted())
		cli_report_interrupted();
	if (rc == AIR_OK && f) {
		json_t *e = cli_run_event("FAILURE", run_id), *body = cli_failure_json(f);

		json_object_set_new(e, "status", json_string(air_failure_state_name(f)));
		json_object_update(e, body);
		json_decref(body);
		cli_print_jsonl(e);
	}
	air_failure_free(f);
	return rc;
}
