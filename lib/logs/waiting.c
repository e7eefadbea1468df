/* waiting.c: what a followed run without log lines is waiting for
 *: the task's "STATUS:" message, else a fallback text. */
#include "logs/logs.h"

#include <string.h>

static bool is_space(char c) { return c == ' ' || (c >= '\t' && c <= '\r'); }
static char ascii_upper(char c) { return c >= 'a' && c <= 'z' ? (char)(c - 'a' + 'A') : c; }

static void trim(const char **b, const char **e)
{
	while (*b < *e && is_space(**b))
		(*b)++;
	while (*e > *b && is_space((*e)[-1]))
		(*e)--;
}

char *air__logs_status_text(const char *status_message)
{
	static const char type[] = "STATUS";
	const char *colon = status_message ? strchr(status_message, ':') : NULL;
	const char *b, *e;

	if (!colon)
		return NULL;
	b = status_message;
	e = colon;
	trim(&b, &e);
	if ((size_t)(e - b) != sizeof(type) - 1)
		return NULL;
	for (size_t i = 0; i < sizeof(type) - 1; i++)
		if (ascii_upper(b[i]) != type[i])
			return NULL;
	b = colon + 1;
	e = b + strlen(b);
	trim(&b, &e);
	while (e > b && e[-1] == '.')
		e--;
	if (e == b)
		return NULL;
	return air__sprintf("%.*s...", (int)(e - b), b);
}

char *air__logs_waiting_text(const air_run *run, const char *status_message, int32_t node)
{
	char *text = air__logs_status_text(status_message);

	if (text)
		return text;
	if (run->life_cycle && !strcmp(run->life_cycle, "PENDING"))
		return air__strdup("Waiting for accelerator capacity...");
	return air__sprintf("Waiting for the run to start on node %d...", (int)node);
}

int air__stream_show_waiting(air__stream *s, air_error **err)
{
	const air_log_waiting_cb cb = s->o.on_waiting;
	json_t *out;
	char *text;
	int stop;

	if (!cb)
		return AIR_OK;
	/* Best-effort: any failure reading the output means "no message". */
	out = air__run_fetch_output(s->c, &s->ctx, s->run->task_run_id);
	if (air__ctx_interrupted(&s->ctx)) {
		json_decref(out);
		return AIR_OK;
	}
	text = air__logs_waiting_text(
		s->run, air__json_str(json_object_get(out, "ai_runtime_task_output"), "status_message"),
		s->node);
	json_decref(out);
	if (!text)
		return AIR_OK; /* cosmetic: out of memory shows nothing */
	s->waiting_shown = true;
	stop = cb(text, s->o.waiting_ud);
	air__free(text);
	return stop ? air__failf(err, AIR_EABORTED, 0, "the waiting callback stopped the log stream")
	            : AIR_OK;
}

int air__stream_end_waiting(air__stream *s, air_error **err)
{
	if (!s->waiting_shown)
		return AIR_OK;
	s->waiting_shown = false;
	if (s->o.on_waiting(NULL, s->o.waiting_ud) != 0)
		return air__failf(err, AIR_EABORTED, 0, "the waiting callback stopped the log stream");
	return AIR_OK;
}
