/*
 * url.c: workspace host normalisation and URL safety, over libcurl's URL API
 * (CURLU): parsing, IPv6 literals and percent-decoding are libcurl's.
 */
#include <arpa/inet.h>
#include <ctype.h>
#include <string.h>

#include "core/core_curl.h"

#include "transport/client_priv.h"

/* Parse @url into a new handle; NULL when it is not a URL libcurl accepts
 * (or libcurl cannot be loaded). */
static CURLU *parse(const char *url, CURLUcode *why)
{
	CURLU *u = air__curl_load(NULL) == AIR_OK ? air__curl.curl_url() : NULL;
	CURLUcode rc;

	if (!u) {
		*why = CURLUE_OUT_OF_MEMORY;
		return NULL;
	}
	/* Any scheme parses; callers decide which ones they accept. */
	rc = air__curl.curl_url_set(u, CURLUPART_URL, url, CURLU_NON_SUPPORT_SCHEME);
	if (rc != CURLUE_OK) {
		air__curl.curl_url_cleanup(u);
		*why = rc;
		return NULL;
	}
	return u;
}

/* Part @what of @u (libcurl's allocation copied into ours), or NULL. */
static char *part(CURLU *u, CURLUPart what, unsigned flags)
{
	char *v = NULL, *copy;

	if (air__curl.curl_url_get(u, what, &v, flags) != CURLUE_OK)
		return NULL;
	copy = air__strdup(v);
	air__curl.curl_free(v);
	return copy;
}

/* Host name without IPv6 brackets, lower-cased, in @out. */
static bool url_host(const char *url, char *out, size_t outlen)
{
	CURLUcode why;
	CURLU *u = parse(url, &why);
	char *h = u ? part(u, CURLUPART_HOST, 0) : NULL;
	const char *p = h;
	size_t n;

	if (u)
		air__curl.curl_url_cleanup(u);
	if (!h)
		return false;
	n = strlen(p);
	if (n >= 2 && p[0] == '[' && p[n - 1] == ']') {
		p++;
		n -= 2;
	}
	if (n == 0 || n >= outlen) {
		air__free(h);
		return false;
	}
	for (size_t i = 0; i < n; i++)
		out[i] = (char)tolower((unsigned char)p[i]);
	out[n] = '\0';
	air__free(h);
	return true;
}

bool air__url_is_loopback(const char *url)
{
	char host[256];
	struct in_addr a4;
	struct in6_addr a6;

	if (!url_host(url, host, sizeof(host)))
		return false;
	if (strcmp(host, "localhost") == 0)
		return true;
	if (inet_pton(AF_INET, host, &a4) == 1)
		return (ntohl(a4.s_addr) >> 24) == 127;
	if (inet_pton(AF_INET6, host, &a6) == 1)
		return IN6_IS_ADDR_LOOPBACK(&a6) ||
		       (IN6_IS_ADDR_V4MAPPED(&a6) && a6.s6_addr[12] == 127);
	return false;
}

int air__check_url_safe(const char *url, const char *what, air_error **err)
{
	char host[256];

	if (air__starts_with(url, "https://"))
		return AIR_OK;
	if (!air__starts_with(url, "http://"))
		return air__failf(err, AIR_EINVAL, 0, "%s must be an https:// URL", what);
	if (air__url_is_loopback(url))
		return AIR_OK;
	if (!url_host(url, host, sizeof(host)))
		snprintf(host, sizeof(host), "?");
	return air__failf(err, AIR_EINVAL, 0,
	                  "refusing to send credentials over plain http:// to %s (%s); use "
	                  "https:// (http:// is allowed only for loopback addresses)",
	                  host, what);
}

/* ---- host normalisation ------------------------------------------------------ */

/* Query keys promoted into ids, in precedence order. */
enum { Q_W, Q_O, Q_WORKSPACE_ID, Q_A, Q_ACCOUNT_ID, Q_COUNT };

/* Form-decode a query value ('+' is a space). */
static char *query_value(const char *s, size_t n)
{
	char *plus = air__strndup(s, n), *dec, *out;
	int len = 0;

	if (!plus)
		return NULL;
	for (char *p = plus; *p; p++)
		if (*p == '+')
			*p = ' ';
	dec = air__curl.curl_easy_unescape(NULL, plus, (int)n, &len);
	air__free(plus);
	if (!dec)
		return NULL;
	out = air__strndup(dec, (size_t)len);
	air__curl.curl_free(dec);
	return out;
}

static bool parse_query(const char *q, char *vals[Q_COUNT])
{
	static const char *const keys[Q_COUNT] = {"w", "o", "workspace_id", "a", "account_id"};

	while (q && *q) {
		size_t len = strcspn(q, "&"), klen = strcspn(q, "=");

		for (int k = 0; klen < len && k < Q_COUNT; k++) {
			if (vals[k] || strlen(keys[k]) != klen || memcmp(q, keys[k], klen) != 0)
				continue;
			if (!(vals[k] = query_value(q + klen + 1, len - klen - 1)))
				return false;
		}
		q += len + (q[len] == '&');
	}
	return true;
}

static bool all_digits(const char *s)
{
	if (!*s)
		return false;
	for (; *s; s++)
		if (*s < '0' || *s > '9')
			return false;
	return true;
}

static const char *first_nonempty(char *const *v, int a, int b, int c_)
{
	if (v[a] && *v[a])
		return v[a];
	if (v[b] && *v[b])
		return v[b];
	return c_ >= 0 && v[c_] && *v[c_] ? v[c_] : NULL;
}

static int mangled_scheme(air_error **err)
{
	return air__failf(err, AIR_EINVAL, 0,
	                  "the host URL is malformed: a scheme must be followed by \"://\" "
	                  "(for example https://<workspace>.cloud.databricks.com)");
}

/* Whether @t (@n bytes) starts with "http" or "https" followed by a
 * character that cannot follow a host name of that name: ':' (but not a
 * port), '/' or '\\' — "http//x", "https:/x", "http:\\\\x". */
static bool starts_with_web_scheme(const char *t, size_t n)
{
	size_t k = n >= 5 && !strncasecmp(t, "https", 5) ? 5 : n >= 4 && !strncasecmp(t, "http", 4) ? 4 : 0;

	if (k == 0 || k == n)
		return false;
	if (t[k] == ':')
		return k + 1 == n || !isdigit((unsigned char)t[k + 1]);
	return t[k] == '/' || t[k] == '\\';
}

/* A value without "://" gets https:// (docs/auth.md). A scheme-like start
 * with a mangled separator ("http:/x", "https:x", "http//x") is refused
 * rather than read as a host named "http", and so is a web scheme mangled
 * after "https://" or "user:password@" ("https://http//x"). Never echoes
 * the value: it may carry user:password@. */
static int with_scheme(const char *t, size_t n, char **out, air_error **err)
{
	const char *sep = memmem(t, n, "://", 3), *host;
	size_t word = 0;

	*out = NULL;
	if (sep) {
		host = sep + 3;
		/* skip user:password@ (the part before the host) */
		for (const char *p = host; p < t + n && !strchr("/?#", *p); p++)
			if (*p == '@')
				host = p + 1;
		if (starts_with_web_scheme(host, (size_t)(t + n - host)))
			return mangled_scheme(err);
		return (*out = air__strndup(t, n)) ? AIR_OK : air__oom(err);
	}
	for (const char *p = t; p < t + n && !strchr("/?#", *p); p++)
		if (*p == '@')
			word = (size_t)(p + 1 - t);
	if (starts_with_web_scheme(t + word, n - word))
		return mangled_scheme(err);
	word = 0;
	while (word < n && (isalnum((unsigned char)t[word]) || t[word] == '+' || t[word] == '-' ||
	                    t[word] == '.'))
		word++;
	if (word > 0 && word < n && t[word] == ':' && word + 1 < n &&
	    !isdigit((unsigned char)t[word + 1]))
		return mangled_scheme(err);
	return (*out = air__sprintf("https://%.*s", (int)n, t)) ? AIR_OK : air__oom(err);
}

static int url_error(CURLUcode why, air_error **err)
{
	switch (why) {
	case CURLUE_OUT_OF_MEMORY:
		return air__oom(err);
	case CURLUE_NO_HOST:
		return air__failf(err, AIR_EAUTH, 0, "no host configured (the host URL has no host name)");
	default:
		return air__failf(err, AIR_EINVAL, 0, "the host URL is malformed: %s",
		                  air__curl.curl_url_strerror(why));
	}
}

int air__host_normalize(const char *raw, char **out_host, char **out_ws, char **out_acct,
                        air_error **err)
{
	size_t n;
	const char *t = air__trim(raw ? raw : "", &n), *ws, *acct;
	char *url = NULL, *scheme = NULL, *host = NULL, *port = NULL, *query = NULL;
	char *vals[Q_COUNT] = {0};
	CURLUcode why = CURLUE_OK;
	CURLU *u = NULL;
	int rc;

	*out_host = *out_ws = *out_acct = NULL;
	if (n == 0)
		return air__failf(err, AIR_EAUTH, 0, "no host configured");
	if ((rc = air__curl_load(err)) != AIR_OK)
		return rc;
	if ((rc = with_scheme(t, n, &url, err)) != AIR_OK)
		return rc;
	/* libcurl reads "https:///x" as host "x": an empty authority is no host. */
	if (strchr("/?#", strstr(url, "://")[3])) {
		rc = url_error(CURLUE_NO_HOST, err);
		goto out;
	}
	if (!(u = parse(url, &why))) {
		rc = url_error(why, err);
		goto out;
	}
	scheme = part(u, CURLUPART_SCHEME, 0);
	host = part(u, CURLUPART_HOST, 0);
	port = part(u, CURLUPART_PORT, CURLU_NO_DEFAULT_PORT);
	query = part(u, CURLUPART_QUERY, 0);
	if (!scheme || !host) {
		rc = host ? air__oom(err) : url_error(CURLUE_NO_HOST, err);
		goto out;
	}
	for (char *p = scheme; *p; p++)
		*p = (char)tolower((unsigned char)*p);
	if (!parse_query(query, vals)) {
		rc = air__oom(err);
		goto out;
	}
	if (vals[Q_WORKSPACE_ID] && !all_digits(vals[Q_WORKSPACE_ID]))
		vals[Q_WORKSPACE_ID][0] = '\0';
	ws = first_nonempty(vals, Q_W, Q_O, Q_WORKSPACE_ID);
	acct = first_nonempty(vals, Q_A, Q_ACCOUNT_ID, -1);
	*out_host = air__sprintf("%s://%s%s%s", scheme, host, port ? ":" : "", port ? port : "");
	*out_ws = ws ? air__strdup(ws) : NULL;
	*out_acct = acct ? air__strdup(acct) : NULL;
	if (!*out_host || (ws && !*out_ws) || (acct && !*out_acct)) {
		air__free(*out_host);
		air__free(*out_ws);
		air__free(*out_acct);
		*out_host = *out_ws = *out_acct = NULL;
		rc = air__oom(err);
	}
out:
	for (int k = 0; k < Q_COUNT; k++)
		air__free(vals[k]);
	air__free(scheme);
	air__free(host);
	air__free(port);
	air__free(query);
	air__free_secret(url);
	air__curl.curl_url_cleanup(u);
	return rc;
}
