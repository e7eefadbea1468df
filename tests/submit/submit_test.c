/* submit_test.c: see submit_test.h. */
#include "submit_test.h"

#include <archive.h>
#include <archive_entry.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/resource.h>
#include <unistd.h>

#include "test.h"

void tar_read(const void *data, size_t len, tar_list *out)
{
	struct archive *a = archive_read_new();
	struct archive_entry *e;
	int r;

	memset(out, 0, sizeof(*out));
	archive_read_support_filter_gzip(a);
	archive_read_support_format_tar(a);
	if (archive_read_open_memory(a, data, len) != ARCHIVE_OK)
		FAIL("not a readable archive: %s", archive_error_string(a));
	while ((r = archive_read_next_header(a, &e)) == ARCHIVE_OK) {
		tar_item *it;
		out->items = realloc(out->items, (out->n + 1) * sizeof(*out->items));
		it = &out->items[out->n++];
		memset(it, 0, sizeof(*it));
		it->name = strdup(archive_entry_pathname(e));
		it->mode = archive_entry_perm(e);
		switch (archive_entry_filetype(e)) {
		case AE_IFDIR:
			it->type = 'd';
			break;
		case AE_IFLNK:
			it->type = 'l';
			it->data = strdup(archive_entry_symlink(e));
			it->len = strlen(it->data);
			break;
		default: {
			int64_t size = archive_entry_size(e);
			it->type = 'f';
			it->data = malloc((size_t)size + 1);
			it->len = (size_t)archive_read_data(a, it->data, (size_t)size);
			it->data[it->len] = '\0';
		}
		}
	}
	if (r != ARCHIVE_EOF)
		FAIL("archive read error: %s", archive_error_string(a));
	if (archive_filter_code(a, 0) != ARCHIVE_FILTER_GZIP)
		FAIL("archive is not gzip-compressed");
	archive_read_free(a);
}

void tar_free(tar_list *l)
{
	for (size_t i = 0; i < l->n; i++) {
		free(l->items[i].name);
		free(l->items[i].data);
	}
	free(l->items);
	memset(l, 0, sizeof(*l));
}

const char *tar_names(const tar_list *l)
{
	static char buf[8192];
	size_t off = 0;

	buf[0] = '\0';
	for (size_t i = 0; i < l->n && off < sizeof(buf); i++)
		off += (size_t)snprintf(buf + off, sizeof(buf) - off, "%s%s", i ? "," : "", l->items[i].name);
	return buf;
}

const tar_item *tar_find(const tar_list *l, const char *name)
{
	for (size_t i = 0; i < l->n; i++)
		if (!strcmp(l->items[i].name, name))
			return &l->items[i];
	return NULL;
}

void sh(const char *fmt, ...)
{
	char cmd[8192];
	va_list ap;
	int st;

	va_start(ap, fmt);
	vsnprintf(cmd, sizeof(cmd), fmt, ap);
	va_end(ap);
	st = system(cmd);
	if (st != 0)
		FAIL("command failed (%d): %s", st, cmd);
}

const char *sh_out(const char *fmt, ...)
{
	static char out[4096];
	char cmd[8192];
	va_list ap;
	FILE *p;
	size_t n;

	va_start(ap, fmt);
	vsnprintf(cmd, sizeof(cmd), fmt, ap);
	va_end(ap);
	if (!(p = popen(cmd, "r")))
		FAIL("cannot run: %s", cmd);
	n = fread(out, 1, sizeof(out) - 1, p);
	out[n] = '\0';
	if (pclose(p) != 0)
		FAIL("command failed: %s", cmd);
	while (n && (out[n - 1] == '\n' || out[n - 1] == ' '))
		out[--n] = '\0';
	return out;
}

#define GIT "git -c user.name=t -c user.email=t@example.com -c init.defaultBranch=main " \
            "-c commit.gpgsign=false"

const char *git_repo(const char *dir, const char *const *files)
{
	sh("mkdir -p '%s' && cd '%s' && git init -q -b main . && git config user.name t && "
	   "git config user.email t@example.com", dir, dir);
	for (size_t i = 0; files && files[i]; i++) {
		const char *eq = strchr(files[i], '=');
		char path[4096], name[1024];
		snprintf(name, sizeof(name), "%.*s", (int)(eq - files[i]), files[i]);
		snprintf(path, sizeof(path), "%s/%s", dir, name);
		air_test_write_file(path, eq + 1, strlen(eq + 1));
	}
	sh("cd '%s' && git add -A && " GIT " commit -q -m initial", dir);
	return sh_out("git -C '%s' rev-parse HEAD", dir);
}

static char bin_dir[4096], bin_path[4200], saved_path[8192];

void test_bin_begin(const char **dir, const char **bin)
{
	const char *path = getenv("PATH");

	if (!saved_path[0])
		snprintf(saved_path, sizeof(saved_path), "%s", path ? path : "/usr/bin:/bin");
	setenv("PATH", saved_path, 1);
	snprintf(bin_dir, sizeof(bin_dir), "%s", air_test_tmpdir());
	snprintf(bin_path, sizeof(bin_path), "%s/bin", bin_dir);
	sh("mkdir -p '%s'", bin_path);
	*dir = bin_dir;
	*bin = bin_path;
}

void test_bin_program(const char *name, const char *script)
{
	char path[4400], p[12500];

	snprintf(path, sizeof(path), "%s/%s", bin_path, name);
	air_test_write_file(path, script, strlen(script));
	sh("chmod +x '%s'", path);
	snprintf(p, sizeof(p), "%s:%s", bin_path, saved_path);
	setenv("PATH", p, 1);
}

bool running_as_root(void)
{
	return geteuid() == 0;
}

bool under_valgrind(void)
{
	const char *p = getenv("LD_PRELOAD");
	return p && strstr(p, "vgpreload");
}

void big_tree(const char *dir, int files, int mib_each)
{
	static unsigned char chunk[1 << 16];
	uint64_t x = 0x9E3779B97F4A7C15u;
	char path[4096];

	for (int f = 0; f < files; f++) {
		FILE *fp;

		snprintf(path, sizeof(path), "%s/part%02d/blob%03d.bin", dir, f % 8, f);
		air_test_write_file(path, "", 0); /* creates the directories */
		fp = fopen(path, "wb");
		ASSERT_NOT_NULL(fp);
		for (int k = 0; k < mib_each * 16; k++) {
			/* xorshift64: cheap bytes that gzip cannot shrink */
			for (size_t i = 0; i < sizeof(chunk); i += 8) {
				x ^= x << 13;
				x ^= x >> 7;
				x ^= x << 17;
				memcpy(chunk + i, &x, 8);
			}
			ASSERT_EQ_INT(fwrite(chunk, 1, sizeof(chunk), fp), sizeof(chunk));
		}
		ASSERT_EQ_INT(fclose(fp), 0);
	}
}

long peak_rss_kib(void)
{
	struct rusage ru;

	return getrusage(RUSAGE_SELF, &ru) == 0 ? ru.ru_maxrss : -1;
}

/* ---- the fake workspace ---- */

fakews *flow_fw;

static void stop_server(void)
{
	fakews_stop(flow_fw);
	flow_fw = NULL;
}

void flow_setup(void)
{
	if (!flow_fw) {
		flow_fw = fakews_start();
		atexit(stop_server);
	}
	fakews_reset(flow_fw);
	unsetenv("AIR_IMAGE_POLL_MS");
}

air_config *load_yaml(const char *dir, const char *name, const char *yaml)
{
	char path[4200];
	air_config *cfg = NULL;
	air_error *err = NULL;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	air_test_write_file(path, yaml, strlen(yaml));
	if (air_config_load_file(path, &cfg, &err) != AIR_OK)
		FAIL("cannot load %s: %s", path, err ? air_error_message(err) : "?");
	return cfg;
}

const char *request_log(void)
{
	static char buf[16384];
	json_t *reqs = fakews_requests(flow_fw), *r;
	size_t i, off = 0;

	buf[0] = '\0';
	json_array_foreach(reqs, i, r) {
		off += (size_t)snprintf(buf + off, sizeof(buf) - off, "%s %s\n",
		                        json_string_value(json_object_get(r, "method")),
		                        json_string_value(json_object_get(r, "path")));
		if (off >= sizeof(buf))
			break;
	}
	json_decref(reqs);
	return buf;
}

int count_prefix(const char *method, const char *prefix)
{
	char pattern[4200];

	snprintf(pattern, sizeof(pattern), "%s*", prefix);
	return fakews_count(flow_fw, method, pattern);
}

json_t *last_body(const char *method, const char *path)
{
	json_t *req = fakews_last_request(flow_fw, method, path), *body;
	json_error_t e;
	const char *text;

	if (!req)
		FAIL("no %s %s request was made", method, path);
	text = json_string_value(json_object_get(req, "body"));
	body = text ? json_loads(text, 0, &e) : NULL;
	json_decref(req);
	if (!body)
		FAIL("the %s %s body is not JSON", method, path);
	return body;
}

void assert_json_eq(json_t *got, const char *want_text)
{
	json_error_t e;
	json_t *want = json_loads(want_text, 0, &e);

	if (!want)
		FAIL("bad expected JSON (%s): %s", e.text, want_text);
	if (!json_equal(got, want)) {
		char *g = json_dumps(got, JSON_SORT_KEYS | JSON_COMPACT);
		char *w = json_dumps(want, JSON_SORT_KEYS | JSON_COMPACT);
		air_test_note("got  %s", g ? g : "(null)");
		air_test_note("want %s", w ? w : "(null)");
		free(g);
		free(w);
		json_decref(want);
		json_decref(got);
		FAIL("JSON documents differ");
	}
	json_decref(want);
	json_decref(got);
}

bool is_uuid4(const char *s)
{
	if (strlen(s) != 36 || s[14] != '4' || !strchr("89ab", s[19]))
		return false;
	for (int i = 0; i < 36; i++) {
		bool dash = i == 8 || i == 13 || i == 18 || i == 23;
		if (dash ? s[i] != '-' : !strchr("0123456789abcdef", s[i]))
			return false;
	}
	return true;
}

bool has_prefix(const char *s, const char *prefix)
{
	return s && !strncmp(s, prefix, strlen(prefix));
}

bool has_suffix(const char *s, const char *suffix)
{
	size_t n = s ? strlen(s) : 0, m = strlen(suffix);
	return n >= m && !strcmp(s + n - m, suffix);
}

json_t *last_body_member(const char *method, const char *path, const char *key)
{
	json_t *body = last_body(method, path), *v = json_incref(json_object_get(body, key));

	json_decref(body);
	return v;
}
