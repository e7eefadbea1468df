/*
 * sweep_mark.c: how a sweep's runs and its stop mark are named in the
 * workspace (docs/submit.md#sweeps), shared by the listing filter, the
 * sweep, its stop and the local workspace's runs/submit.
 *
 * A sweep writes variant i of one submission to
 * "<user base>/.air/cli_launch/<experiment>/<tag>/<16 hex>/v<i>/command.sh",
 * and air_client_stop_sweep() writes "stopped ..." into
 * "<user base>/.air/sweeps/<tag>/stopped", which a sweep that is going
 * reads between its submissions; a new submission of the sweep overwrites
 * it with "resumed ...".
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

bool air__sweep_mark_stopped(const char *text, size_t len)
{
	return text && len >= 7 && !memcmp(text, "stopped", 7) &&
	       (len == 7 || isspace((unsigned char)text[7]));
}
