/* snapshot_paths.c: root resolution, cache key and destination of the code
 * snapshot. Pure functions. */
#include "submit/snapshot.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/core.h"

static bool is_name_char(char c)
{
	return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_';
}

/* $NAME and ${NAME} from the environment; unset variables expand to "". A
 * '$' not followed by a name is kept. */
static void expand_vars(air__buf *b, const char *s, air__getenv_fn getenv_fn, void *ud)
{
	while (*s) {
		const char *name = NULL, *end = NULL, *next = NULL;

		if (s[0] == '$' && s[1] == '{' && (end = strchr(s + 2, '}')) && end > s + 2) {
			name = s + 2;
			next = end + 1;
		} else if (s[0] == '$' && is_name_char(s[1])) {
			name = s + 1;
			for (end = name; is_name_char(*end); end++)
				;
			next = end;
		}
		if (name) {
			char *key = air__strndup(name, (size_t)(end - name));
			const char *v = key ? getenv_fn(key, ud) : NULL;
			if (v)
				air__buf_puts(b, v);
			air__free(key);
			s = next;
		} else {
			air__buf_putc(b, *s++);
		}
	}
}

char *air__snapshot_resolve_root(const char *root_path, const char *base_dir, const char *home,
                                 air__getenv_fn getenv_fn, void *ud)
{
	air__buf exp = AIR__BUF_INIT, full = AIR__BUF_INIT;
	const char *p;
	char *out = NULL, cwd[4096];

	expand_vars(&exp, root_path, getenv_fn, ud);
	p = air__buf_cstr(&exp);
	if (home && (!strcmp(p, "~") || air__starts_with(p, "~/"))) {
		air__buf_puts(&full, home);
		air__buf_puts(&full, p + 1);
	} else if (air__starts_with(p, "project_root/") || p[0] != '/') {
		if (air__starts_with(p, "project_root/"))
			p += strlen("project_root/");
		if (!base_dir || base_dir[0] != '/') {
			if (!getcwd(cwd, sizeof(cwd)))
				goto out;
			air__buf_puts(&full, cwd);
			air__buf_putc(&full, '/');
		}
		if (base_dir && *base_dir) {
			air__buf_puts(&full, base_dir);
			air__buf_putc(&full, '/');
		}
		air__buf_puts(&full, p);
	} else {
		air__buf_puts(&full, p);
	}
	if (!air__buf_oom(&exp) && !air__buf_oom(&full))
		out = air__path_clean(air__buf_cstr(&full));
out:
	air__buf_dispose(&exp);
	air__buf_dispose(&full);
	return out;
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

char *air__snapshot_cache_key(const char *commit, const char *const *paths, size_t n)
{
	char **sorted = air__calloc(n ? n : 1, sizeof(*sorted));
	air__buf b = AIR__BUF_INIT;
	char *hex = NULL;
	size_t i;

	if (!sorted)
		return NULL;
	for (i = 0; i < n; i++)
		if (!(sorted[i] = air__trim_dup(paths[i])))
			goto out;
	qsort(sorted, n, sizeof(*sorted), cmp_str);
	air__buf_puts(&b, commit);
	air__buf_putc(&b, '\n');
	for (size_t j = 0; j < n; j++) {
		if (j)
			air__buf_putc(&b, '\n');
		air__buf_puts(&b, sorted[j]);
	}
	air__buf_puts(&b, "\nv1");
	if (!air__buf_oom(&b) && (hex = air__malloc(2 * AIR__SHA256_LEN + 1)))
		air__sha256_hex(air__buf_cstr(&b), b.len, hex);
out:
	while (i > 0)
		air__free(sorted[--i]);
	air__free(sorted);
	air__buf_dispose(&b);
	return hex;
}

char *air__snapshot_upload_dir(const char *remote_volume, const char *user_base)
{
	char *raw, *dir;

	if (remote_volume)
		raw = air__sprintf("%s/.internal", remote_volume);
	else
		raw = air__sprintf("%s/.air/repo_snapshots/.internal", user_base);
	if (!raw)
		return NULL;
	dir = air__path_clean(raw);
	air__free(raw);
	if (dir && !air__starts_with(dir, "/Workspace") && !air__starts_with(dir, "/Volumes")) {
		char *prefixed = air__sprintf("/Workspace%s%s", dir[0] == '/' ? "" : "/", dir);
		air__free(dir);
		dir = prefixed;
	}
	return dir;
}
