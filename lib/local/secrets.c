/*
 * secrets.c: the values of a local run's secrets. A secret NAME: scope/key
 * takes the value of the environment variable NAME (of the client's
 * environment) when it is set, else the entry "scope" -> "key" of the
 * secrets file ($AIR_LOCAL_SECRETS_FILE, or <state>/secrets.json):
 *
 *     {"ml-team": {"huggingface-token": "hf_..."}}
 *
 * Values are never written anywhere and never appear in messages. A value
 * shorter than AIR__LOCAL_MIN_SECRET bytes (not counting surrounding white
 * space) is refused: it could not be told apart from ordinary output, so
 * the node logs could not be scrubbed of it (redact.c).
 */
#include "local/endpoints.h"

#include <errno.h>
#include <string.h>

#define MAX_SECRETS_FILE (1u << 20)

char *air__lsecrets_file(const air__local *ws)
{
	const char *f = ws->env.getenv ? ws->env.getenv(ws->env.getenv_ud, AIR__LOCAL_SECRETS_ENV)
	                               : NULL;

	return f ? air__strdup(f) : air__lpath(ws->dir, "secrets.json");
}

/* The secrets file as an object, an empty one when it does not exist; NULL
 * (with @why) when it cannot be read or is not an object of objects. */
static json_t *load_file(const char *path, air__buf *why)
{
	air__buf b = AIR__BUF_INIT;
	json_t *v = NULL, *scope;
	const char *name;
	bool ok;

	if (air__lread_file(path, MAX_SECRETS_FILE, &b) != 0) {
		if (errno == ENOENT)
			v = json_object();
		else if (errno == EINVAL)
			air__buf_printf(why, "cannot read the secrets file %s: not a regular file", path);
		else
			air__buf_printf(why, "cannot read the secrets file %s: %s", path, strerror(errno));
		air__buf_dispose(&b);
		return v;
	}
	/* jansson's messages may quote the text: only the position is reported. */
	v = json_loadb(b.ptr, b.len, JSON_REJECT_DUPLICATES, NULL);
	explicit_bzero(b.ptr, b.len);
	air__buf_dispose(&b);
	ok = json_is_object(v);
	json_object_foreach(v, name, scope)
		ok = ok && json_is_object(scope);
	if (!ok) {
		json_decref(v);
		air__buf_printf(why, "the secrets file %s is not a JSON object of scopes "
		                "({\"scope\": {\"key\": \"value\"}})", path);
		return NULL;
	}
	return v;
}

/* Names of @spec in sorted order (messages name the first missing one). */
static int sorted_names(const json_t *spec, const char ***out, size_t *n)
{
	const char *name;
	json_t *v;
	size_t k = 0;

	*n = json_object_size(spec);
	if (!(*out = air__calloc(*n + 1, sizeof(**out))))
		return AIR_ENOMEM;
	json_object_foreach((json_t *)spec, name, v)
		(*out)[k++] = name;
	for (size_t i = 1; i < k; i++)
		for (size_t j = i; j > 0 && strcmp((*out)[j - 1], (*out)[j]) > 0; j--) {
			const char *t = (*out)[j];
			(*out)[j] = (*out)[j - 1];
			(*out)[j - 1] = t;
		}
	return AIR_OK;
}

/* AIR_OK when @value of secret @name (@ref its "scope/key") can be used; else
 * AIR_EINVAL with the reason in @why (never the value). */
static int usable(const char *name, const char *ref, const char *value, air__buf *why)
{
	size_t n = strlen(value), len = air__lredact_shortest(value, n);
	size_t entry = strlen(name) + 1 + n + 1; /* NAME=value and its NUL */
	/* Printed with other line endings, a value with CRLF is shorter. */
	bool crlf = len < air__lredact_significant(value, n, NULL);
	json_t *s;

	if (entry > AIR__LOCAL_MAX_ENV_ENTRY) {
		air__buf_printf(why, "secret %s (%s) is too long for a node's environment: %s=<value> "
		                "takes %zu bytes, and a local run can give a node at most %d",
		                name, ref, name, entry, AIR__LOCAL_MAX_ENV_ENTRY);
		return AIR_EINVAL;
	}
	if (len < AIR__LOCAL_MIN_SECRET) {
		air__buf_printf(why, "secret %s (%s) is too short to be redacted reliably: its value "
		                "has %zu byte%s%s (not counting surrounding white space), and a local "
		                "run needs at least %d to tell it apart in the node logs",
		                name, ref, len, len == 1 ? "" : "s",
		                crlf ? " with LF line endings" : "", AIR__LOCAL_MIN_SECRET);
		return AIR_EINVAL;
	}
	if (!(s = json_string(value))) {
		air__buf_printf(why, "the value of secret %s is not valid UTF-8", name);
		return AIR_EINVAL;
	}
	json_decref(s);
	return AIR_OK;
}

bool air__lvariable_name_ok(const char *name)
{
	return *name && !strchr(name, '=');
}

static int check_name(const char *name, air__buf *why)
{
	if (air__lvariable_name_ok(name))
		return AIR_OK;
	air__buf_printf(why, "secret \"%s\": a node's environment cannot have a variable of that "
	                "name (it is empty or holds '=')", name);
	return AIR_EINVAL;
}

/* @ref is "scope/key" (a scope has no '/'): the hint shows the file's entry
 * for this very secret. */
static void no_value(air__buf *why, const char *name, const char *ref, const char *fpath)
{
	const char *slash = strchr(ref, '/');
	int scope_len = slash ? (int)(slash - ref) : (int)strlen(ref);

	air__buf_printf(why, "secret %s (%s) has no local value: export %s, or add it to the "
	                "secrets file %s as {\"%.*s\": {\"%s\": \"<value>\"}}", name, ref, name,
	                fpath, scope_len, ref, slash ? slash + 1 : "key");
}

/* Remember @value of secret @name (@ref its "scope/key"): in @vals for the
 * run, in the client's secret set for its messages. */
static int add_value(const air__local *ws, json_t *vals, const char *name, const char *ref,
                     const char *value, air__buf *why)
{
	json_t *s;

	if (usable(name, ref, value, why) != AIR_OK)
		return AIR_EINVAL;
	if (!(s = json_string(value)))
		return AIR_ENOMEM;
	if (json_object_set_new(vals, name, s) != 0)
		return AIR_ENOMEM;
	if (ws->env.secrets && air__secrets_add(ws->env.secrets, value) != AIR_OK)
		return AIR_ENOMEM;
	return AIR_OK;
}

/* The file's value of "scope/key", or NULL. */
static const char *file_value(const json_t *file, const char *ref)
{
	const char *slash = strchr(ref, '/');
	char *scope = slash ? air__strndup(ref, (size_t)(slash - ref)) : NULL;
	const char *v = scope ? air__json_str(json_object_get(file, scope), slash + 1) : NULL;

	air__free(scope);
	return v;
}

int air__lsecrets_resolve(const air__local *ws, const json_t *spec, json_t **out,
                          const char **missing, air__buf *why)
{
	const char **names = NULL;
	json_t *file = NULL, *vals = json_object();
	char *fpath = NULL;
	size_t n = 0, size;
	int rc = vals ? sorted_names(spec, &names, &n) : AIR_ENOMEM;

	*out = NULL;
	*missing = NULL;
	for (size_t i = 0; rc == AIR_OK && i < n; i++) {
		const char *name = names[i], *ref = air__json_str(spec, name);
		const char *v;

		if ((rc = check_name(name, why)) != AIR_OK) {
			*missing = name;
			break;
		}
		v = ws->env.getenv ? ws->env.getenv(ws->env.getenv_ud, name) : NULL;
		if (!v && !file) {
			if (!(fpath = air__lsecrets_file(ws))) {
				rc = AIR_ENOMEM;
				break;
			}
			if (!(file = load_file(fpath, why))) {
				*missing = name;
				rc = AIR_EINVAL;
				break;
			}
		}
		if (!v)
			v = file_value(file, ref ? ref : "");
		if (!v) {
			*missing = name;
			no_value(why, name, ref ? ref : "?", fpath);
			rc = AIR_ENOTFOUND;
			break;
		}
		rc = add_value(ws, vals, name, ref ? ref : "?", v, why);
		if (rc == AIR_EINVAL)
			*missing = name;
	}
	air__free(names);
	air__free(fpath);
	json_decref(file);
	if (rc == AIR_OK && (size = json_dumpb(vals, NULL, 0, JSON_COMPACT)) > AIR__LOCAL_MAX_SECRETS) {
		/* what the supervisor reads at most (docs/local.md#secrets) */
		air__buf_printf(why, "the secrets take %zu bytes, and a local run can be given at "
		                "most %u", size, AIR__LOCAL_MAX_SECRETS);
		rc = AIR_EINVAL;
	}
	if (rc != AIR_OK) {
		json_decref(vals);
		return rc;
	}
	*out = vals;
	return AIR_OK;
}

int air__lsecrets_locate(const air__local *ws, const char *name, const char *ref, air__buf *where,
                         air__buf *why)
{
	const char *v = ws->env.getenv ? ws->env.getenv(ws->env.getenv_ud, name) : NULL;
	char *fpath = NULL;
	json_t *file = NULL;
	int rc = check_name(name, why);

	if (rc != AIR_OK)
		return rc;
	if (v) {
		air__buf_printf(where, "the environment variable %s", name);
	} else if (!(fpath = air__lsecrets_file(ws))) {
		return AIR_ENOMEM;
	} else if (!(file = load_file(fpath, why))) {
		rc = AIR_EINVAL;
	} else if (!(v = file_value(file, ref))) {
		no_value(why, name, ref, fpath);
		rc = AIR_ENOTFOUND;
	} else {
		air__buf_printf(where, "the secrets file %s", fpath);
	}
	if (v && (rc = usable(name, ref, v, why)) == AIR_OK && ws->env.secrets &&
	    air__secrets_add(ws->env.secrets, v) != AIR_OK)
		rc = AIR_ENOMEM;
	json_decref(file);
	air__free(fpath);
	return rc;
}
