/*
 * sweep_mark.c: how a sweep's runs and its stop mark are named in the
 * workspace (docs/submit.md#sweeps), shared by the listing filter, the
 * sweep, its stop and the local workspace's runs/submit.
 *
 * A sweep writes variant i of one submission to
 * "<user base>/.air/cli_launch/<experiment>/<tag>/<16 hex>/v<i>/command.sh"
 * and submits it with the key "<base key, cut>-<16 hex>" (sweeps/canon.c);
 * air_client_stop_sweep() writes "stopped <time>" into
 * "<user base>/.air/sweeps/<tag>/stopped", which a sweep that is going
 * reads between its submissions. The stop stays.
 */
#include "core/base.h"
#include "core/core.h"
#include "core/sha256.h"

#include <ctype.h>
#include <string.h>

#define LAUNCH_ROOT "/.air/cli_launch/"
#define LAUNCH_LEAF "/command.sh"

char *air__sweep_tag(const char *base_key)
{
	char hex[2 * AIR__SHA256_LEN + 1], clean[33];
	size_t n = 0;

	air__sha256_hex(base_key, strlen(base_key), hex);
	for (const char *p = base_key; *p && n < sizeof(clean) - 1; p++)
		clean[n++] = isalnum((unsigned char)*p) || strchr("._-", *p) ? *p : '_';
	clean[n] = '\0';
	return air__sprintf("sweep-%s-%.8s", clean, hex);
}

/* Whether the @n bytes at @s are lowercase hex digits. */
static bool lower_hex(const char *s, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (!isxdigit((unsigned char)s[i]) || isupper((unsigned char)s[i]))
			return false;
	return true;
}

/* The start of the segment that ends just before @end (at a '/' that is
 * after @floor), or NULL. */
static const char *segment_before(const char *floor, const char *end)
{
	const char *p = end;

	while (p > floor && p[-1] != '/')
		p--;
	return p > floor && p < end ? p : NULL;
}

bool air__sweep_launch_split(const char *command_path, size_t *base_len, const char **tag,
                            size_t *tag_len)
{
	const char *root, *exp, *end, *v, *hex, *t;
	size_t len;

	if (!command_path || !(root = strstr(command_path, LAUNCH_ROOT)))
		return false;
	exp = root + strlen(LAUNCH_ROOT);
	len = strlen(command_path);
	if (len < strlen(LAUNCH_LEAF) || strcmp(command_path + len - strlen(LAUNCH_LEAF), LAUNCH_LEAF))
		return false;
	end = command_path + len - strlen(LAUNCH_LEAF);
	/* "v<index>", "<16 hex>", then the tag, after "<experiment>/" */
	if (!(v = segment_before(exp, end)) || v[0] != 'v' || v + 1 == end)
		return false;
	for (const char *d = v + 1; d < end; d++)
		if (!isdigit((unsigned char)*d))
			return false;
	if (!(hex = segment_before(exp, v - 1)) || v - 1 - hex != 16 || !lower_hex(hex, 16))
		return false;
	if (!(t = segment_before(exp, hex - 1)) || t - exp < 2 || strncmp(t, "sweep-", 6) != 0)
		return false;
	*base_len = (size_t)(root - command_path);
	*tag = t;
	*tag_len = (size_t)(hex - 1 - t);
	return true;
}

char *air__sweep_mark_path(const char *user_base, const char *tag)
{
	return air__sprintf("%s/.air/sweeps/%s/stopped", user_base, tag);
}

/* The readable part of a tag: "sweep-<this>-<8 hex>". */
static bool tag_words(const char *tag, size_t tag_len, const char **words, size_t *n)
{
	if (tag_len < 6 + 9 || strncmp(tag, "sweep-", 6) || tag[tag_len - 9] != '-')
		return false;
	*words = tag + 6;
	*n = tag_len - 6 - 9;
	return true;
}

bool air__sweep_token_in(const char *token, const char *tag, size_t tag_len)
{
	size_t n = token ? strlen(token) : 0, base_len, words_len, k;
	const char *words;
	char *base, *own;
	bool in;

	if (n < 18 || token[n - 17] != '-' || !lower_hex(token + n - 16, 16) ||
	    !tag_words(tag, tag_len, &words, &words_len))
		return false;
	base_len = n - 17;
	if (!(base = air__strndup(token, base_len)))
		return false;
	own = air__sweep_tag(base);
	in = own && strlen(own) == tag_len && !memcmp(own, tag, tag_len);
	/* A base cut in the key (47 bytes at most, whole UTF-8 sequences): its
	 * first 32 bytes, as the tag keeps them, must be the tag's. */
	if (!in && own && base_len >= AIR__SWEEP_CUT_BASE_MIN) {
		const char *own_words;
		size_t own_len;
		in = tag_words(own, strlen(own), &own_words, &own_len) && own_len == words_len;
		for (k = 0; in && k < words_len; k++)
			in = own_words[k] == words[k];
	}
	air__free(own);
	air__free(base);
	return in;
}

bool air__sweep_mark_stopped(const char *text, size_t len)
{
	return text && len >= 7 && !memcmp(text, "stopped", 7) &&
	       (len == 7 || isspace((unsigned char)text[7]));
}

int64_t air__sweep_mark_resumed_ms(const char *text, size_t len)
{
	char when[40];
	size_t n;
	int64_t secs;
	int32_t nanos;

	if (!text || len < 9 || memcmp(text, "resumed ", 8) != 0)
		return 0;
	for (n = 0; n < sizeof(when) - 1 && 8 + n < len && !isspace((unsigned char)text[8 + n]); n++)
		when[n] = text[8 + n];
	when[n] = '\0';
	return air__parse_rfc3339(when, &secs, &nanos) && secs > 0 ? secs * 1000 + nanos / 1000000
	                                                           : 0;
}
