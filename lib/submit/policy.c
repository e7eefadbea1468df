/*
 * policy.c: usage policy name -> id. The server
 * filters by a partial, case-insensitive match; the client keeps the exact
 * (trimmed, case-insensitive) matches across all pages.
 */
#include "submit/submit.h"

#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "transport/transport.h"

#define POLICIES_PATH "/api/2.0/serverless-policies"
#define MAX_CANDIDATES 10

static bool same_name(const char *a, const char *b)
{
	size_t la, lb;
	const char *ta = air__trim(a, &la), *tb = air__trim(b, &lb);

	return la == lb && strncasecmp(ta, tb, la) == 0;
}

static bool contains_str(const json_t *arr, const char *s)
{
	size_t i;
	json_t *v;

	json_array_foreach(arr, i, v)
		if (json_is_string(v) && !strcmp(json_string_value(v), s))
			return true;
	return false;
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

static int not_found(const json_t *policies, const char *name, air_error **err)
{
	const char **names = air__calloc(json_array_size(policies) + 1, sizeof(*names));
	air__buf msg = AIR__BUF_INIT;
	size_t i, n = 0, shown;
	json_t *p;
	int rc;

	if (!names)
		return air__oom(err);
	json_array_foreach(policies, i, p) {
		const char *pn = air__json_nonempty(p, "policy_name");
		bool dup = false;
		for (size_t k = 0; pn && k < n && !dup; k++)
			dup = !strcmp(names[k], pn);
		if (pn && !dup)
			names[n++] = pn;
	}
	qsort(names, n, sizeof(*names), cmp_str);
	air__buf_printf(&msg, "usage policy \"%s\" was not found", name);
	if (n == 0)
		air__buf_puts(&msg, "; the workspace reported no policy with a similar name");
	else
		air__buf_puts(&msg, "; similar policies: ");
	shown = n < MAX_CANDIDATES ? n : MAX_CANDIDATES;
	for (size_t k = 0; k < shown; k++)
		air__buf_printf(&msg, "%s%s", k ? ", " : "", names[k]);
	if (n > shown)
		air__buf_puts(&msg, ", ...");
	air__free(names);
	if (air__buf_oom(&msg))
		rc = air__oom(err);
	else
		rc = air__fail(err, air__error_set_field(air__error_new(AIR_ENOTFOUND, 0, "%s",
		               air__buf_cstr(&msg)), "usage_policy_name"));
	air__buf_dispose(&msg);
	return rc;
}

int air__policy_match(const json_t *policies, const char *name, char **id, air_error **err)
{
	const json_t *match = NULL;
	air__buf ids = AIR__BUF_INIT;
	size_t i, n = 0;
	json_t *p;
	int rc;

	*id = NULL;
	json_array_foreach(policies, i, p) {
		const char *pn = air__json_str(p, "policy_name");
		if (pn && same_name(pn, name)) {
			match = p;
			air__buf_printf(&ids, "%s%s", n++ ? ", " : "",
			                air__json_str(p, "policy_id") ? air__json_str(p, "policy_id") : "?");
		}
	}
	if (n == 0)
		rc = not_found(policies, name, err);
	else if (n > 1)
		rc = air__fail(err, air__error_set_field(air__error_new(AIR_ECONFLICT, 0,
		               "usage policy name \"%s\" matches several policies (%s); ask a workspace "
		               "admin to disambiguate, or set usage_policy_id", name, air__buf_cstr(&ids)),
		               "usage_policy_name"));
	else if (!air__json_nonempty(match, "policy_id"))
		rc = air__fail(err, air__error_set_field(air__error_new(AIR_EPROTO, 0,
		               "usage policy \"%s\" was found without a policy id", name),
		               "usage_policy_name"));
	else
		rc = (*id = air__strdup(air__json_str(match, "policy_id"))) ? AIR_OK
		     : air__oom(err);
	air__buf_dispose(&ids);
	return rc;
}

/* Add the page's policies to @all, skipping ids already seen. */
static bool collect(json_t *all, const json_t *reply)
{
	json_t *page = json_object_get(reply, "policies"), *p, *known;
	size_t i, k;

	json_array_foreach(page, i, p) {
		const char *id = air__json_nonempty(p, "policy_id");
		bool dup = false;
		json_array_foreach(all, k, known)
			dup |= id && air__json_str(known, "policy_id") &&
			       !strcmp(id, air__json_str(known, "policy_id"));
		if (!dup && json_array_append(all, p) != 0)
			return false;
	}
	return true;
}

int air__policy_resolve(air_client *c, const air__ctx *ctx, const char *name, char **id,
                        air_error **err)
{
	char *trimmed = air__trim_dup(name), *token = NULL;
	json_t *all = json_array(), *seen = json_array();
	int rc = AIR_OK;

	*id = NULL;
	if (!trimmed || !all || !seen) {
		rc = air__oom(err);
		goto out;
	}
	for (;;) {
		air__buf q = AIR__BUF_INIT;
		json_t *reply = NULL;
		air_error *e = NULL;
		const char *next;

		air__buf_query(&q, "page_size", "1000");
		air__buf_query(&q, "filter_by.policy_name", trimmed);
		if (token)
			air__buf_query(&q, "page_token", token);
		rc = air__buf_oom(&q) ? air__oom(&e)
		     : air__api_json(c, ctx, "GET", POLICIES_PATH, air__buf_cstr(&q), NULL, &reply, NULL, &e);
		air__buf_dispose(&q);
		if (rc != AIR_OK) {
			rc = air__fail(err, air__error_prefix(e, "looking up usage policy \"%s\"", trimmed));
			goto out;
		}
		if (!collect(all, reply)) {
			json_decref(reply);
			rc = air__oom(err);
			goto out;
		}
		/* Stop at the last page, or when the server repeats a token. */
		next = air__json_nonempty(reply, "next_page_token");
		air__free(token);
		token = next && !contains_str(seen, next) ? air__strdup(next) : NULL;
		json_decref(reply);
		if (!token || json_array_append_new(seen, json_string(token)) != 0)
			break;
	}
	rc = air__policy_match(all, trimmed, id, err);
out:
	air__free(trimmed);
	air__free(token);
	json_decref(all);
	json_decref(seen);
	return rc;
}
