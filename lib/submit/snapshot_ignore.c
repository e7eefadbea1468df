/*
 * snapshot_ignore.c: the root .gitignore of a plain-tar snapshot, translated
 * the way the reference client does it — deliberately
 * lossy rather than full gitignore semantics: blank lines, comments and
 * negations are skipped; a trailing '/' is dropped; "**" only survives as a
 * leading "**" + "/" or a trailing "/" + "**"; a pattern with a '/' is anchored at
 * "<dirname>/<pattern>", any other pattern matches any path component.
 * Patterns are fnmatch() globs where '*' also matches '/' (like Python's
 * fnmatch, which the reference uses).
 */
#include "submit/snapshot.h"

#include <fnmatch.h>
#include <string.h>

static bool push(char ***list, size_t *n, char *s)
{
	char **grown;

	if (!s)
		return false;
	grown = air__realloc(*list, (*n + 1) * sizeof(**list));
	if (!grown) {
		air__free(s);
		return false;
	}
	grown[(*n)++] = s;
	*list = grown;
	return true;
}

/* One line -> at most one pattern; returns false on allocation failure. */
static bool translate(air__ignore *ig, const char *line, size_t len, const char *dirname)
{
	char *p;
	bool ok;

	while (len && (line[0] == ' ' || line[0] == '\t')) {
		line++;
		len--;
	}
	while (len && (line[len - 1] == ' ' || line[len - 1] == '\t' || line[len - 1] == '\r'))
		len--;
	if (!len || line[0] == '#' || line[0] == '!')
		return true;
	while (len && line[len - 1] == '/')
		len--;
	if (len >= 3 && !strncmp(line, "**/", 3)) {
		line += 3;
		len -= 3;
	} else if (len >= 3 && !strncmp(line + len - 3, "/**", 3)) {
		len -= 3;
	}
	if (!len)
		return true;
	if (!(p = air__strndup(line, len)))
		return false;
	if (strstr(p, "**")) {
		air__free(p);
		return true;
	}
	if (!strchr(p, '/'))
		return push(&ig->component, &ig->n_component, p);
	ok = push(&ig->anchored, &ig->n_anchored,
	          air__sprintf("%s/%s", dirname, p + (p[0] == '/' ? 1 : 0)));
	air__free(p);
	return ok;
}

int air__ignore_parse(const char *text, size_t len, const char *dirname, air__ignore *ig)
{
	size_t start = 0;

	memset(ig, 0, sizeof(*ig));
	for (size_t i = 0; i <= len; i++) {
		if (i < len && text[i] != '\n')
			continue;
		if (!translate(ig, text + start, i - start, dirname)) {
			air__ignore_dispose(ig);
			return AIR_ENOMEM;
		}
		start = i + 1;
	}
	return AIR_OK;
}

bool air__ignore_excludes(const air__ignore *ig, const char *dirname, const char *rel)
{
	air__buf member = AIR__BUF_INIT;
	bool excluded = false;
	const char *p = rel;

	/* Every component below the root: .git, AppleDouble files, patterns. */
	while (*p && !excluded) {
		const char *end = strchr(p, '/');
		size_t n = end ? (size_t)(end - p) : strlen(p);
		char comp[256]; /* NAME_MAX + 1 */

		if (n < sizeof(comp)) {
			memcpy(comp, p, n);
			comp[n] = '\0';
			excluded = !strcmp(comp, ".git") || air__starts_with(comp, "._");
			for (size_t i = 0; i < ig->n_component && !excluded; i++)
				excluded = fnmatch(ig->component[i], comp, 0) == 0;
		}
		p += n;
		while (*p == '/')
			p++;
	}
	if (excluded || ig->n_anchored == 0)
		return excluded;
	air__buf_puts(&member, dirname);
	air__buf_putc(&member, '/');
	air__buf_puts(&member, rel);
	for (size_t i = 0; i < ig->n_anchored && !excluded; i++)
		excluded = fnmatch(ig->anchored[i], air__buf_cstr(&member), 0) == 0;
	air__buf_dispose(&member);
	return excluded;
}

void air__ignore_dispose(air__ignore *ig)
{
	for (size_t i = 0; i < ig->n_anchored; i++)
		air__free(ig->anchored[i]);
	for (size_t i = 0; i < ig->n_component; i++)
		air__free(ig->component[i]);
	air__free(ig->anchored);
	air__free(ig->component);
	memset(ig, 0, sizeof(*ig));
}
