/*
 * test_local_unit.c: white-box tests of lib/local/ pieces that need no
 * running workload: local hosts, workspace paths, node log records (writing
 * and searching), the log endpoint's pages, snapshot extraction refusing
 * entries that leave their directory (in air-local-extract, run as the
 * supervisor runs it), and how a node's processes stop.
 */
#include <archive.h>
#include <archive_entry.h>
#include <dirent.h>
#include <errno.h>
#include <time.h>
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include "local/endpoints.h"
#include "local/supervisor.h"
#include "local_support.h"
#include "test.h"

/* ---- hosts and paths ------------------------------------------------------------- */

AIR_TEST(local_unit__state_directory_of_a_host)
{
	char *dir = NULL;
	air_error *err = NULL;

	ASSERT_OK(air__local_state_dir("local://", "/xdg", "/home/u", &dir, &err), err);
	ASSERT_EQ_STR(dir, "/xdg/air/local");
	air__free(dir);
	ASSERT_OK(air__local_state_dir("LOCAL://", "relative", "/home/u", &dir, &err), err);
	ASSERT_EQ_STR(dir, "/home/u/.local/state/air/local");
	air__free(dir);
	ASSERT_OK(air__local_state_dir("local:///srv/air//", NULL, NULL, &dir, &err), err);
	ASSERT_EQ_STR(dir, "/srv/air");
	air__free(dir);
	ASSERT_EQ_INT(air__local_state_dir("local://", NULL, NULL, &dir, &err), AIR_EINVAL);
	air_error_free(err);
	err = NULL;
	ASSERT_EQ_INT(air__local_state_dir("local://x/y", NULL, "/h", &dir, &err), AIR_EINVAL);
	air_error_free(err);
	err = NULL;
	ASSERT_EQ_INT(air__local_state_dir("local:///x?o=1", NULL, "/h", &dir, &err), AIR_EINVAL);
	air_error_free(err);
	err = NULL;
	ASSERT_OK(air__local_state_dir("local:///a/./b/../c/", NULL, NULL, &dir, &err), err);
	ASSERT_EQ_STR(dir, "/a/c");
	air__free(dir);
	/* The root directory, however it is written. */
	{
		static const char *const roots[] = {"local:///", "local:///.", "local:///tmp/..",
		                                    "local:////", "local:///tmp/../..", "local:///a/b/../../"};
		for (size_t i = 0; i < AIR__ARRAY_SIZE(roots); i++) {
			err = NULL;
			if (air__local_state_dir(roots[i], NULL, "/h", &dir, &err) != AIR_EINVAL)
				FAIL("%s is accepted as %s", roots[i], dir);
			ASSERT_CONTAINS(air_error_message(err), "the root directory cannot be");
			air_error_free(err);
		}
	}
	ASSERT_TRUE(air__local_is_host("Local://"));
	ASSERT_FALSE(air__local_is_host("https://local"));
}

AIR_TEST(local_unit__workspace_paths_stay_in_the_store)
{
	air__local ws = {.dir = (char *)"/s", .user = (char *)"u"};
	char *p;

	ASSERT_EQ_STR(p = air__lws_file(&ws, "//Workspace//Users/a@b.com/.air/x/"),
	              "/s/workspace/Workspace/Users/a@b.com/.air/x");
	air__free(p);
	ASSERT_NULL(air__lws_file(&ws, "/Workspace/../etc"));
	ASSERT_NULL(air__lws_file(&ws, "/Workspace/./x"));
	ASSERT_NULL(air__lws_file(&ws, "Workspace/x"));
	ASSERT_NULL(air__lws_file(&ws, NULL));
}

/* The status of @method @path?@query with @body (NULL: none) served by @ws,
 * the reply's body in *reply (free()). */
static int32_t serve_body(air__local *ws, const char *method, const char *path, const char *query,
                          const char *body, char **reply)
{
	air__local_req req = {method, path, query, body, body ? strlen(body) : 0, NULL, NULL};
	air__local_reply r = AIR__LOCAL_REPLY_INIT;
	air_error *err = NULL;
	int32_t status;

	ASSERT_OK(air__local_serve(ws, NULL, &req, &r, &err), err);
	status = r.status;
	*reply = strdup(r.body ? r.body : "");
	air__local_reply_clear(&r);
	return status;
}

/* The same without a body. */
static int32_t serve_raw(air__local *ws, const char *method, const char *path, const char *query,
                         char **reply)
{
	return serve_body(ws, method, path, query, NULL, reply);
}

AIR_TEST(local_unit__workspace_files_are_never_read_through_a_link)
{
	const char *state = air_test_tmpdir();
	char *home = air__sprintf("%s/workspace/Workspace/Users/u", state);
	char *out = air__sprintf("%s/outside", state), *p, *link, *body;
	air__local *ws = NULL;
	static const char *const refused[] = {"link.yaml", "linkdir/inner.yaml", "linkdir"};

	ASSERT_EQ_INT(air__lmkdirs(home, 0700), 0);
	ASSERT_EQ_INT(air__lmkdirs(out, 0700), 0);
	p = air__sprintf("%s/ok.yaml", home);
	air_test_write_file(p, "fine", 4);
	air__free(p);
	p = air__sprintf("%s/inner.yaml", out);
	air_test_write_file(p, "SECRET", 6);
	link = air__sprintf("%s/link.yaml", home);
	ASSERT_EQ_INT(symlink(p, link), 0);
	air__free(link);
	air__free(p);
	p = air__sprintf("%s/linkdir", home);
	ASSERT_EQ_INT(symlink(out, p), 0);
	air__free(p);
	ASSERT_OK(air__local_new(state, NULL, &ws, NULL), NULL);

	/* A regular file is served; a link, or a file under a linked folder, is
	 * missing, for export, get-status and the Files API alike. */
	ASSERT_EQ_INT(serve_raw(ws, "GET", "/api/2.0/workspace/export",
	                        "path=/Workspace/Users/u/ok.yaml", &body), 200);
	ASSERT_EQ_STR(body, "fine");
	free(body);
	ASSERT_EQ_INT(serve_raw(ws, "GET", "/api/2.0/workspace/get-status",
	                        "path=/Workspace/Users/u/ok.yaml", &body), 200);
	ASSERT_CONTAINS(body, "\"FILE\"");
	free(body);
	for (size_t i = 0; i < sizeof(refused) / sizeof(refused[0]); i++) {
		char query[128], fs[128];

		snprintf(query, sizeof(query), "path=/Workspace/Users/u/%s", refused[i]);
		snprintf(fs, sizeof(fs), "/api/2.0/fs/files/Workspace/Users/u/%s", refused[i]);
		ASSERT_EQ_INT(serve_raw(ws, "GET", "/api/2.0/workspace/export", query, &body), 404);
		ASSERT_CONTAINS(body, "RESOURCE_DOES_NOT_EXIST");
		ASSERT_NOT_CONTAINS(body, "SECRET");
		free(body);
		ASSERT_EQ_INT(serve_raw(ws, "GET", "/api/2.0/workspace/get-status", query, &body), 404);
		ASSERT_CONTAINS(body, "RESOURCE_DOES_NOT_EXIST");
		free(body);
		ASSERT_EQ_INT(serve_raw(ws, "GET", fs, NULL, &body), 404);
		ASSERT_NOT_CONTAINS(body, "SECRET");
		free(body);
		ASSERT_EQ_INT(serve_raw(ws, "HEAD", fs, NULL, &body), 404);
		free(body);
	}
	air__local_free(ws);
	air__free(out);
	air__free(home);
}

/* The entries of folder @dir (0 for a missing one). */
static int entries(const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	int n = 0;

	while (d && (e = readdir(d)) != NULL)
		n += strcmp(e->d_name, ".") && strcmp(e->d_name, "..");
	if (d)
		closedir(d);
	return n;
}

AIR_TEST(local_unit__workspace_files_are_never_written_through_a_link)
{
	const char *state = air_test_tmpdir();
	char *home = air__sprintf("%s/workspace/Workspace/Users/u", state);
	char *out = air__sprintf("%s/outside", state), *p, *body, *text;
	char *other = air__sprintf("%s/other", state), *out2 = air__sprintf("%s/outside2", state);
	air__local *ws = NULL;

	ASSERT_EQ_INT(air__lmkdirs(home, 0700), 0);
	ASSERT_EQ_INT(air__lmkdirs(out, 0700), 0);
	p = air__sprintf("%s/inner.yaml", out);
	air_test_write_file(p, "SECRET", 6);
	text = air__sprintf("%s/link.yaml", home);
	ASSERT_EQ_INT(symlink(p, text), 0);
	air__free(p);
	p = air__sprintf("%s/linkdir", home);
	ASSERT_EQ_INT(symlink(out, p), 0);
	air__free(p);
	ASSERT_OK(air__local_new(state, NULL, &ws, NULL), NULL);

	/* Through a linked folder: refused, naming the path, nothing written. */
	ASSERT_EQ_INT(serve_body(ws, "POST", "/api/2.0/workspace/mkdirs", NULL,
	                         "{\"path\": \"/Workspace/Users/u/linkdir/sub\"}", &body), 400);
	ASSERT_CONTAINS(body, "/Workspace/Users/u/linkdir/sub: a part of the path exists and is "
	                      "not a directory (a symbolic link is never followed)");
	free(body);
	ASSERT_EQ_INT(serve_body(ws, "POST",
	                         "/api/2.0/workspace-files/import-file/Workspace/Users/u/linkdir/x.yaml",
	                         "overwrite=true", "new", &body), 404);
	free(body);
	ASSERT_EQ_INT(serve_body(ws, "PUT", "/api/2.0/fs/files/Workspace/Users/u/linkdir/d/y.bin",
	                         NULL, "new", &body), 400);
	free(body);
	ASSERT_EQ_INT(entries(out), 1); /* inner.yaml alone */
	/* The workspace's root is a folder that is always there. */
	ASSERT_EQ_INT(serve_body(ws, "POST", "/api/2.0/workspace-files/import-file/",
	                         "overwrite=true", "new", &body), 409);
	free(body);
	ASSERT_EQ_INT(serve_body(ws, "PUT", "/api/2.0/fs/files/", NULL, "new", &body), 409);
	free(body);
	/* A link at the file's own name is replaced, its target untouched. */
	ASSERT_EQ_INT(serve_body(ws, "POST",
	                         "/api/2.0/workspace-files/import-file/Workspace/Users/u/link.yaml",
	                         "overwrite=true", "new", &body), 200);
	free(body);
	p = air__sprintf("%s/inner.yaml", out);
	ASSERT_EQ_STR(body = air_test_read_file(p, NULL), "SECRET");
	free(body);
	air__free(p);
	ASSERT_EQ_STR(body = air_test_read_file(text, NULL), "new");
	free(body);
	air__local_free(ws);

	/* The workspace folder itself a link: nothing written through it. */
	ASSERT_EQ_INT(air__lmkdirs(other, 0700), 0);
	ASSERT_EQ_INT(air__lmkdirs(out2, 0700), 0);
	p = air__sprintf("%s/workspace", other);
	ASSERT_EQ_INT(symlink(out2, p), 0);
	air__free(p);
	ASSERT_OK(air__local_new(other, NULL, &ws, NULL), NULL);
	ASSERT_EQ_INT(serve_body(ws, "POST", "/api/2.0/workspace/mkdirs", NULL,
	                         "{\"path\": \"/Workspace/Users/u/.air\"}", &body), 400);
	free(body);
	ASSERT_EQ_INT(serve_body(ws, "PUT", "/api/2.0/fs/files/Volumes/c/s/v/z.bin", NULL, "new",
	                         &body), 400);
	free(body);
	ASSERT_EQ_INT(entries(out2), 0);
	air__local_free(ws);
	air__free(text);
	air__free(out2);
	air__free(other);
	air__free(out);
	air__free(home);
}

/* ---- node log records -------------------------------------------------------------- */

typedef struct chunk {
	const char *data;
	size_t len;
} chunk;

static char *write_log(const char *dir, const air__lredact *redact, const chunk *chunks)
{
	char *path = air__sprintf("%s/node_0.log", dir);
	int fd = open(path, O_WRONLY | O_CREAT | O_APPEND, 0600);
	air__lwriter w;

	ASSERT_TRUE(fd >= 0);
	air__lwriter_init(&w, fd, redact);
	for (size_t i = 0; chunks[i].data; i++)
		air__lwriter_feed(&w, chunks[i].data, chunks[i].len);
	air__lwriter_flush(&w);
	air__lwriter_dispose(&w);
	close(fd);
	return path;
}

AIR_TEST(local_unit__records_are_lines_with_increasing_times)
{
	const char *dir = air_test_tmpdir();
#define C(s) {s, sizeof(s) - 1}
	static const chunk chunks[] = {C("first li"), C("ne\r\nsecond\n"), C("bad \xff byte\n"),
	                               C("nul \0 byte\n"), C("token hunter2 here\n"),
	                               C("no newline"), {NULL, 0}};
#undef C
	air__lredact *redact = NULL;
	json_t *secrets = json_pack("{s:s}", "TOKEN", "hunter2");
	air__llog l;
	char *path;
	size_t off = 0, len;
	const char *text;
	int64_t t, last = 0;
	const char *want[] = {"first line", "second", "bad \xEF\xBF\xBD byte",
	                      "nul \xEF\xBF\xBD byte", "token [REDACTED] here", "no newline"};
	int n = 0;

	ASSERT_OK(air__lredact_new(secrets, &redact), NULL);
	path = write_log(dir, redact, chunks);
	ASSERT_EQ_INT(air__llog_open(path, &l), 0);
	while (air__llog_next(&l, &off, &t, &text, &len)) {
		ASSERT_TRUE(n < 6);
		ASSERT_TRUE(t > last);
		last = t;
		ASSERT_EQ_INT(len, strlen(want[n]));
		ASSERT_TRUE(!memcmp(text, want[n], len));
		n++;
	}
	ASSERT_EQ_INT(n, 6);
	air__llog_close(&l);
	air__lredact_free(redact);
	json_decref(secrets);
	air__free(path);
}

/* The end of a run comes after every record of its logs: a reader bounds a
 * finished log by the end's second rounded up, so an end truncated to the
 * millisecond, falling on a second, cut the records of its last
 * millisecond (a traceback written just before the end went missing). */
AIR_TEST(local_unit__an_end_time_is_after_every_record)
{
	for (int i = 0; i < 1000; i++) {
		struct timespec ts;
		int64_t ns, end;

		clock_gettime(CLOCK_REALTIME, &ts);
		ns = (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
		end = air__lend_ms();
		ASSERT_TRUE(end * 1000000 > ns);
	}
}

/* A file written once is made whole when missing and never replaced: of
 * two writers (the submission and the supervisor making a run's MLflow
 * run), the first one's stays; no temporary file is left. */
AIR_TEST(local_unit__a_file_written_once_is_never_replaced)
{
	const char *dir = air_test_tmpdir();
	char *path = air__sprintf("%s/meta.yaml", dir), *text;
	DIR *d;
	struct dirent *e;
	int entries = 0;

	ASSERT_EQ_INT(air__lwrite_once(path, "first\n", 6, 0600), 0);
	ASSERT_EQ_INT(air__lwrite_once(path, "second\n", 7, 0600), 0);
	ASSERT_NOT_NULL(text = air_test_read_file(path, NULL));
	ASSERT_EQ_STR(text, "first\n");
	free(text);
	ASSERT_NOT_NULL(d = opendir(dir));
	while ((e = readdir(d)) != NULL)
		entries += e->d_name[0] != '.';
	closedir(d);
	ASSERT_EQ_INT(entries, 1);
	air__free(path);
}

/* A note is one record whatever its text holds: a line break in it (a
 * workload's dependency, say) never makes a record of its own. */
AIR_TEST(local_unit__a_note_with_line_breaks_is_one_record)
{
	const char *dir = air_test_tmpdir();
	char *path = air__sprintf("%s/node_0.log", dir), *text;
	int fd = open(path, O_WRONLY | O_CREAT | O_APPEND, 0600);
	size_t size = 0, lines = 0;
	air__lwriter w;

	ASSERT_TRUE(fd >= 0);
	air__lwriter_init(&w, fd, NULL);
	air__lwriter_feed(&w, "before\n", 7);
	air__lwriter_note(&w, "dependency %s", "numpy==1.0\n1 forged\r\nrecord");
	air__lwriter_feed(&w, "after\n", 6);
	air__lwriter_flush(&w);
	air__lwriter_dispose(&w);
	close(fd);
	ASSERT_NOT_NULL(text = air_test_read_file(path, &size));
	for (size_t i = 0; i < size; i++)
		lines += text[i] == '\n';
	ASSERT_EQ_INT(lines, 3);
	ASSERT_CONTAINS(text, " [air local] dependency numpy==1.0 1 forged  record\n");
	free(text);
	air__free(path);
}

/* The lines of one batch get times one nanosecond apart, written as the
 * previous time counted up: across a carry through eighteen digits too. */
AIR_TEST(local_unit__a_batch_has_consecutive_times)
{
	const char *dir = air_test_tmpdir();
	char *path = air__sprintf("%s/node_0.log", dir), *text, *line;
	int fd = open(path, O_WRONLY | O_CREAT | O_APPEND, 0600);
	air__lwriter w;
	/* Later than any clock this runs under (2255): counted on from the last. */
	int64_t want = 8999999999999999996LL;

	ASSERT_TRUE(fd >= 0);
	air__lwriter_init(&w, fd, NULL);
	w.last_t = want - 1;
	air__lwriter_feed(&w, "a\nb\nc\nd\ne\nf\ng\nh\n", 16);
	air__lwriter_flush(&w);
	air__lwriter_note(&w, "a note");
	air__lwriter_dispose(&w);
	close(fd);
	ASSERT_NOT_NULL(text = air_test_read_file(path, NULL));
	line = text;
	for (int i = 0; i < 9; i++, want++) {
		char expect[64];
		snprintf(expect, sizeof(expect), "%lld %s\n", (long long)want,
		         i < 8 ? (char[]){(char)('a' + i), 0} : "[air local] a note");
		ASSERT_TRUE(!strncmp(line, expect, strlen(expect)));
		line += strlen(expect);
	}
	ASSERT_EQ_STR(line, "");
	ASSERT_CONTAINS(text, "8999999999999999999 d\n9000000000000000000 e\n");
	free(text);
	air__free(path);
}

/* Lines are copied as they are up to the first byte that needs a look (a
 * NUL, a byte of a multibyte character, a bad byte), wherever it falls in
 * the eight bytes looked at together. */
AIR_TEST(local_unit__a_line_is_cleaned_wherever_its_odd_byte_falls)
{
	const char *dir = air_test_tmpdir();
	char *path = air__sprintf("%s/node_0.log", dir), *text;
	static const struct {
		const char *in, *out;
		size_t n;
	} odd[] = {{"\xff", "\xEF\xBF\xBD", 1}, {"\0", "\xEF\xBF\xBD", 1},
	           {"\xC3\xA9", "\xC3\xA9", 2}, {"\x7f", "\x7f", 1}};

	for (size_t k = 0; k < AIR__ARRAY_SIZE(odd); k++) {
		for (size_t at = 0; at < 18; at++) {
			char line[32], want[48];
			int fd;
			air__lwriter w;

			/* x * at, the odd byte(s), x * (17 - at), a newline */
			memset(line, 'x', sizeof(line));
			memcpy(line + at, odd[k].in, odd[k].n);
			line[17 + odd[k].n] = '\n';
			snprintf(want, sizeof(want), " %.*s%s%.*s\n", (int)at, "xxxxxxxxxxxxxxxxxx", odd[k].out,
			         (int)(17 - at), "xxxxxxxxxxxxxxxxxx");
			ASSERT_TRUE((fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600)) >= 0);
			air__lwriter_init(&w, fd, NULL);
			air__lwriter_feed(&w, line, 18 + odd[k].n);
			air__lwriter_flush(&w);
			air__lwriter_dispose(&w);
			close(fd);
			ASSERT_NOT_NULL(text = air_test_read_file(path, NULL));
			ASSERT_EQ_STR(strchr(text, ' '), want);
			free(text);
		}
	}
	air__free(path);
}

/* A complete log says how many records it holds (for its readers' tails);
 * a log the writer did not write whole, or that changed since, does not. */
AIR_TEST(local_unit__a_finished_log_counts_its_records)
{
	const char *dir = air_test_tmpdir();
	char *path = air__sprintf("%s/node_0.log", dir), *count = air__sprintf("%s.count", path);
	int fd = open(path, O_WRONLY | O_CREAT | O_APPEND, 0600);
	air__lwriter w;
	struct stat st;

	ASSERT_TRUE(fd >= 0);
	air__lwriter_init(&w, fd, NULL);
	for (int i = 0; i < 3000; i++)
		air__lwriter_feed(&w, "a line\n", 7);
	air__lwriter_feed(&w, "and one without a newline", 25);
	air__lwriter_note(&w, "a note is a record too");
	air__lwriter_flush(&w);
	air__lwriter_finish(&w, path);
	air__lwriter_dispose(&w);
	ASSERT_EQ_INT(fstat(fd, &st), 0);
	ASSERT_EQ_INT(air__llog_count(path, (size_t)st.st_size).records, 3002);
	/* Every time had nineteen digits: the writer vouches for where texts start. */
	ASSERT_EQ_INT(air__llog_count(path, (size_t)st.st_size).text_at, AIR__LOCAL_TEXT_AT);
	ASSERT_EQ_INT(air__llog_count(path, (size_t)st.st_size - 1).records, -1);
	ASSERT_EQ_INT(air__llog_count(path, (size_t)st.st_size - 1).text_at, 0);
	/* A count without the third field (a clock before September 2001, an earlier
	 * writer), or with another width, counts records only. */
	for (int k = 0; k < 3; k++) {
		static const char *const third[] = {"", " 19", " 21"};
		char text[64];
		air__llog_counted c;
		snprintf(text, sizeof(text), "%lld 3002%s\n", (long long)st.st_size, third[k]);
		air_test_write_file(count, text, strlen(text));
		c = air__llog_count(path, (size_t)st.st_size);
		ASSERT_EQ_INT(c.records, 3002);
		ASSERT_EQ_INT(c.text_at, 0);
	}
	/* Appended to by a second writer: no count of its own. */
	ASSERT_EQ_INT(unlink(count), 0);
	air__lwriter_init(&w, fd, NULL);
	air__lwriter_feed(&w, "more\n", 5);
	air__lwriter_flush(&w);
	air__lwriter_finish(&w, path);
	air__lwriter_dispose(&w);
	ASSERT_TRUE(access(count, F_OK) != 0);
	ASSERT_EQ_INT(air__llog_count(path, (size_t)st.st_size + 25).records, -1);
	close(fd);
	/* A log shorter than AIR__LOCAL_COUNTED_BYTES gets none: it is counted
	 * faster than the file is made. */
	ASSERT_EQ_INT(unlink(path), 0);
	ASSERT_TRUE((fd = open(path, O_WRONLY | O_CREAT | O_APPEND, 0600)) >= 0);
	air__lwriter_init(&w, fd, NULL);
	for (int i = 0; i < 100; i++)
		air__lwriter_feed(&w, "a line\n", 7);
	air__lwriter_flush(&w);
	air__lwriter_finish(&w, path);
	air__lwriter_dispose(&w);
	ASSERT_EQ_INT(fstat(fd, &st), 0);
	ASSERT_TRUE(st.st_size > 0 && st.st_size < AIR__LOCAL_COUNTED_BYTES);
	ASSERT_TRUE(access(count, F_OK) != 0);
	close(fd);
	air__free(count);
	air__free(path);
}

AIR_TEST(local_unit__long_lines_are_split_and_partial_records_unseen)
{
	const char *dir = air_test_tmpdir();
	size_t big = AIR__LOCAL_MAX_RECORD + 100;
	char *line = malloc(big + 2), *path;
	chunk chunks[2] = {{NULL, 0}, {NULL, 0}};
	air__llog l;
	size_t off = 0, len, total = 0;
	const char *text;
	int64_t t;
	int records = 0, fd;

	memset(line, 'x', big);
	line[big] = '\n';
	line[big + 1] = '\0';
	chunks[0] = (chunk){line, big + 1};
	path = write_log(dir, NULL, chunks);
	/* A record still being written (no newline yet) is not visible. */
	fd = open(path, O_WRONLY | O_APPEND);
	ASSERT_TRUE(write(fd, "123 half", 8) == 8);
	close(fd);
	ASSERT_EQ_INT(air__llog_open(path, &l), 0);
	while (air__llog_next(&l, &off, &t, &text, &len)) {
		records++;
		total += len;
		ASSERT_TRUE(len <= AIR__LOCAL_MAX_RECORD);
	}
	ASSERT_EQ_INT(records, 2);
	ASSERT_EQ_INT(total, big);
	air__llog_close(&l);
	free(line);
	air__free(path);
}

/* The texts of the records of @path, each followed by @sep (malloc()). */
static char *record_texts(const char *path, const char *sep)
{
	air__buf b = AIR__BUF_INIT;
	air__llog l;
	size_t off = 0, len;
	const char *rec;
	char *text;
	int64_t t, last = 0;

	ASSERT_EQ_INT(air__llog_open(path, &l), 0);
	while (air__llog_next(&l, &off, &t, &rec, &len)) {
		ASSERT_TRUE(t > last);
		ASSERT_TRUE(len <= AIR__LOCAL_MAX_RECORD);
		last = t;
		air__buf_put(&b, rec, len);
		air__buf_puts(&b, sep);
	}
	ASSERT_EQ_INT(l.size, l.map_len); /* nothing after the last complete record */
	air__llog_close(&l);
	text = strdup(air__buf_cstr(&b));
	air__buf_dispose(&b);
	return text;
}

/* The records of @n bytes of output fed in the pieces that @cuts (ascending
 * offsets, @ncuts of them) make, joined by @sep. */
static char *scrubbed(const air__lredact *r, const char *out, size_t n, const size_t *cuts,
                      size_t ncuts, const char *sep)
{
	static int k;
	char *path = air__sprintf("%s/scrub-%d.log", air_test_tmpdir(), k++), *text;
	int fd = open(path, O_WRONLY | O_CREAT | O_APPEND, 0600);
	air__lwriter w;
	size_t at = 0;

	ASSERT_TRUE(fd >= 0);
	air__lwriter_init(&w, fd, r);
	for (size_t i = 0; i <= ncuts; i++) {
		size_t to = i < ncuts ? cuts[i] : n;
		air__lwriter_feed(&w, out + at, to - at);
		at = to;
	}
	air__lwriter_flush(&w);
	ASSERT_EQ_INT(w.error, 0);
	air__lwriter_dispose(&w);
	close(fd);
	text = record_texts(path, sep);
	unlink(path);
	air__free(path);
	return text;
}

#define PEM "-----BEGIN PRIVATE KEY-----\nMIIEvQIBADANBgkqhkiG9w0BAQEFAASC\nq2Xr8b+0/ZtY==\n" \
	"-----END PRIVATE KEY-----\n"
#define SERVICE_ACCOUNT "{\n  \"type\": \"service_account\",\n  \"private_key_id\": \"4f2a\"\n}\n"
#define TOKEN "hf_Tok3nValue"

static air__lredact *test_secrets(void)
{
	json_t *v = json_pack("{s:s, s:s, s:s, s:s, s:s, s:s, s:s, s:s, s:s}", "PEM", PEM, "SA",
	                      SERVICE_ACCOUNT, "TOKEN", TOKEN, "UTF", "\xC3\xA9-secret-\xC3\xA9",
	                      "CRLF", "line one\r\nline two\r\n", "TRIMMED", "s3cr3t-value\n", "A",
	                      "abcdefgh", "B", "efghijkl", "CR", "cr one\rcr two\r");
	air__lredact *r = NULL;

	ASSERT_OK(air__lredact_new(v, &r), NULL);
	json_decref(v);
	return r;
}

/* A value is replaced whole (one [REDACTED]), however the output is cut
 * into reads: a multi-line value too, and a UTF-8 value cut inside a
 * character. */
AIR_TEST(local_unit__a_secret_is_replaced_whole_wherever_reads_cut_it)
{
	static const char *const values[] = {PEM, SERVICE_ACCOUNT, TOKEN, "\xC3\xA9-secret-\xC3\xA9"};
	air__lredact *r = test_secrets();

	for (size_t v = 0; v < AIR__ARRAY_SIZE(values); v++) {
		char *out = air__sprintf("before %s after\nnext\n", values[v]);
		size_t n = strlen(out), *every = malloc(n * sizeof(*every));

		for (size_t p = 0; p <= n; p++) {
			char *text = scrubbed(r, out, n, &p, 1, "\n");
			if (strcmp(text, "before [REDACTED] after\nnext\n"))
				FAIL("value %zu cut at %zu: %s", v, p, text);
			free(text);
		}
		for (size_t p = 0; p < n; p++)
			every[p] = p; /* one byte per read */
		{
			char *text = scrubbed(r, out, n, every, n, "\n");
			ASSERT_EQ_STR(text, "before [REDACTED] after\nnext\n");
			free(text);
		}
		free(every);
		air__free(out);
	}
	air__lredact_free(r);
}

/* The 64 KiB record split and the pipe's read size cut a long line inside
 * the value: it is still replaced whole. */
AIR_TEST(local_unit__a_secret_across_the_record_split_is_replaced_whole)
{
	static const char *const values[] = {TOKEN, PEM};
	air__lredact *r = test_secrets();

	for (size_t v = 0; v < AIR__ARRAY_SIZE(values); v++) {
		size_t vlen = strlen(values[v]);

		for (size_t k = 1; k < vlen; k++) {
			size_t lead = AIR__LOCAL_MAX_RECORD - k, cut = AIR__LOCAL_MAX_RECORD;
			char *out = malloc(lead + vlen + 8), *want = malloc(lead + 32), *text;

			memset(out, 'x', lead);
			memcpy(out + lead, values[v], vlen);
			memcpy(out + lead + vlen, "tail\n", 6);
			memcpy(want, out, lead);
			strcpy(want + lead, "[REDACTED]tail");
			/* Whole, and the split never cuts the replacement itself. */
			text = scrubbed(r, out, lead + vlen + 5, &cut, 1, "\n");
			if (!strstr(text, "[REDACTED]"))
				FAIL("value %zu with %zu bytes before the split: %.40s", v, k,
				     text + lead - 10);
			for (char *p = text, *q = text; ; p++)
				if (*p != '\n' && !(*q++ = *p))
					break;
			if (strcmp(text, want))
				FAIL("value %zu with %zu bytes before the split: %.40s...", v, k,
				     text + lead - 10);
			free(text);
			free(out);
			free(want);
		}
	}
	air__lredact_free(r);
}

/* Line endings and surrounding white space do not hide a value; occurrences
 * that overlap are replaced together; bytes that began a value and never
 * finished it are written at the end; UTF-8 repair happens after. */
AIR_TEST(local_unit__secrets_in_other_line_endings_and_overlaps)
{
	static const struct {
		const char *out, *want;
	} cases[] = {
		{"before -----BEGIN PRIVATE KEY-----\r\nMIIEvQIBADANBgkqhkiG9w0BAQEFAASC\r\n"
		 "q2Xr8b+0/ZtY==\r\n-----END PRIVATE KEY-----\r\n after\r\n", "before [REDACTED] after\n"},
		{"x line one\nline two\ny\n", "x [REDACTED]y\n"},
		{"x line one\rline two\ry\n", "x [REDACTED]y\n"},
		{"x cr one\ncr two\ny\n", "x [REDACTED]y\n"}, /* stored with CR, printed with LF */
		{"tok=s3cr3t-value!\n", "tok=[REDACTED]!\n"},
		{"xx abcdefghijkl yy\n", "xx [REDACTED] yy\n"},
		{"token: hf_Tok3", "token: hf_Tok3\n"},
		{"\xff" TOKEN "\xc3\n", "\xEF\xBF\xBD[REDACTED]\xEF\xBF\xBD\n"},
	};
	air__lredact *r = test_secrets();

	for (size_t i = 0; i < AIR__ARRAY_SIZE(cases); i++) {
		size_t n = strlen(cases[i].out), half = n / 2;
		char *text = scrubbed(r, cases[i].out, n, &half, 1, "\n");
		if (strcmp(text, cases[i].want))
			FAIL("case %zu: %s", i, text);
		free(text);
	}
	air__lredact_free(r);
}

/* A value that overlaps itself (0000, abab...) printed without end: the
 * output goes out as it comes, one [REDACTED] for the whole run, however
 * the reads cut it, and what waits for the next read stays shorter than the
 * value twice (it once held the whole run and scanned it again at every
 * read: quadratic time, unbounded memory). */
AIR_TEST(local_unit__a_value_that_overlaps_itself_is_replaced_as_it_comes)
{
	json_t *v = json_pack("{s:s, s:s}", "PIN", "0000", "AB", "abababab");
	static const struct {
		const char *out, *want;
	} cases[] = {
		{"x 00000000000 y\n", "x [REDACTED] y\n"},
		{"x ababababababababa y\n", "x [REDACTED]a y\n"},
		{"0000 000 0000\n", "[REDACTED] 000 [REDACTED]\n"},
		{"ababab0000abababab000\n", "ababab[REDACTED][REDACTED]000\n"}, /* adjacent: two */
	};
	air__lredact *r = NULL;
	air__lwriter w;
	char *path = air__sprintf("%s/zeros.log", air_test_tmpdir()), *text, zeros[4096];
	int fd;

	ASSERT_OK(air__lredact_new(v, &r), NULL);
	json_decref(v);
	for (size_t i = 0; i < AIR__ARRAY_SIZE(cases); i++) {
		size_t n = strlen(cases[i].out);
		for (size_t p = 0; p <= n; p++) {
			text = scrubbed(r, cases[i].out, n, &p, 1, "\n");
			if (strcmp(text, cases[i].want))
				FAIL("case %zu cut at %zu: %s", i, p, text);
			free(text);
		}
	}
	/* 16 MiB of zeros in 4 KiB reads: the wait stays bounded. */
	memset(zeros, '0', sizeof(zeros));
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_APPEND, 0600);
	ASSERT_TRUE(fd >= 0);
	air__lwriter_init(&w, fd, r);
	air__lwriter_feed(&w, "start ", 6);
	for (int i = 0; i < 4096; i++) {
		air__lwriter_feed(&w, zeros, sizeof(zeros));
		if (w.raw.len >= 2 * 8)
			FAIL("read %d: %zu bytes wait for the next read", i, w.raw.len);
	}
	air__lwriter_feed(&w, " end\n", 5);
	air__lwriter_flush(&w);
	ASSERT_EQ_INT(w.error, 0);
	air__lwriter_dispose(&w);
	close(fd);
	text = record_texts(path, "\n");
	ASSERT_EQ_STR(text, "start [REDACTED] end\n");
	free(text);
	unlink(path);
	air__free(path);
	air__lredact_free(r);
}

/* A write that fails part-way (here the file size limit; a full disk is the
 * same) leaves no torn record: the log is cut back to its last complete
 * record, a note says how many lines were lost once writing works again,
 * and the error is kept for the run's message. */
AIR_TEST(local_unit__a_failed_write_leaves_no_torn_record)
{
	char *path = air__sprintf("%s/limited.log", air_test_tmpdir()), *text, want[64];
	pid_t child;
	int st;

	child = fork();
	ASSERT_TRUE(child >= 0);
	if (child == 0) {
		struct rlimit lim, small;
		int fd = open(path, O_WRONLY | O_CREAT | O_APPEND, 0600);
		air__lwriter w;

		signal(SIGXFSZ, SIG_IGN);
		getrlimit(RLIMIT_FSIZE, &lim);
		small = lim;
		small.rlim_cur = 1000;
		air__lwriter_init(&w, fd, NULL);
		if (fd < 0 || setrlimit(RLIMIT_FSIZE, &small) != 0)
			_exit(2);
		for (int i = 0; i < 100; i++) {
			char line[32];
			int len = snprintf(line, sizeof(line), "line %03d\n", i);
			air__lwriter_feed(&w, line, (size_t)len);
		}
		setrlimit(RLIMIT_FSIZE, &lim);
		air__lwriter_feed(&w, "after\n", 6);
		air__lwriter_flush(&w);
		st = w.error == EFBIG && w.lost > 0 && w.lost == w.noted ? 0 : 3;
		air__lwriter_dispose(&w);
		air__free(path);
		_exit(st);
	}
	ASSERT_EQ_INT(waitpid(child, &st, 0), child);
	ASSERT_TRUE(WIFEXITED(st));
	ASSERT_EQ_INT(WEXITSTATUS(st), 0);
	text = record_texts(path, "\n");
	/* Whole records only: "line NNN" up to the limit, the note, the rest. */
	for (const char *p = text; *p;) {
		const char *nl = strchr(p, '\n');
		bool known = (nl - p == 8 && !strncmp(p, "line ", 5)) || !strncmp(p, "after\n", 6) ||
		             !strncmp(p, "[air local] ", 12);
		if (!known)
			FAIL("a torn record: %.*s", (int)(nl - p), p);
		p = nl + 1;
	}
	snprintf(want, sizeof(want), "lost here: %s\nafter\n", strerror(EFBIG));
	ASSERT_CONTAINS(text, want);
	ASSERT_CONTAINS(text, "line 000\n");
	free(text);
	air__free(path);
}

/* A log with records at times 10, 20, ..., 10 * n. */
static char *log_at_tens(const char *dir, int n)
{
	air__buf b = AIR__BUF_INIT;
	char *path = air__sprintf("%s/tens.log", dir);

	for (int i = 1; i <= n; i++)
		air__buf_printf(&b, "%d line %d\n", 10 * i, i);
	air_test_write_file(path, b.ptr, b.len);
	air__buf_dispose(&b);
	return path;
}

AIR_TEST(local_unit__lower_bound_finds_the_first_record_at_or_after_a_time)
{
	const char *dir = air_test_tmpdir();
	char *path = log_at_tens(dir, 1000);
	air__llog l;
	size_t off, len;
	const char *text;
	int64_t t;

	ASSERT_EQ_INT(air__llog_open(path, &l), 0);
	for (int64_t want = 0; want <= 10020; want += 7) {
		off = air__llog_lower_bound(&l, want);
		if (want > 10000) {
			ASSERT_EQ_INT(off, l.size);
			continue;
		}
		ASSERT_TRUE(air__llog_is_boundary(&l, off));
		ASSERT_TRUE(air__llog_next(&l, &off, &t, &text, &len));
		ASSERT_EQ_INT(t, want <= 10 ? 10 : ((want + 9) / 10) * 10);
	}
	off = l.size;
	ASSERT_TRUE(air__llog_prev(&l, &off, &t, &text, &len));
	ASSERT_EQ_INT(t, 10000);
	air__llog_close(&l);
	air__free(path);
}

/* ---- the log endpoint ------------------------------------------------------------------ */

static json_t *serve_json(air__local *ws, const char *path, const char *query)
{
	air__local_req req = {"GET", path, query, NULL, 0, NULL, NULL};
	air__local_reply r = AIR__LOCAL_REPLY_INIT;
	air_error *err = NULL;
	json_t *v;

	ASSERT_OK(air__local_serve(ws, NULL, &req, &r, &err), err);
	ASSERT_EQ_INT(r.status, 200);
	v = json_loads(r.body, 0, NULL);
	air__local_reply_clear(&r);
	ASSERT_NOT_NULL(v);
	return v;
}

AIR_TEST(local_unit__log_pages_chain_and_respect_bounds)
{
	const char *state = air_test_tmpdir();
	char *run = air__sprintf("%s/jobs/runs/3", state), *logs = air__sprintf("%s/logs/attempt_0", run);
	air__local *ws = NULL;
	air__buf b = AIR__BUF_INIT;
	const char *path = "/api/2.0/ai-training/workflows/by-run-id/3/logs";
	char query[256], *token = NULL;
	json_t *page;
	int64_t seen = 0, expect = 1;

	ASSERT_EQ_INT(air__lmkdirs(logs, 0700), 0);
	{
		static const char status[] =
			"{\"state\":\"TERMINATED\",\"result\":\"SUCCESS\",\"attempts\":[{}]}";
		char *sp = air__lpath(run, "status.json");
		air_test_write_file(sp, status, strlen(status));
		air__free(sp);
	}
	/* 2500 records, one per second from t = 1000 s. */
	for (int i = 1; i <= 2500; i++)
		air__buf_printf(&b, "%lld r%d\n", (long long)(1000 + i) * 1000000000, i);
	air__free(run);
	run = air__sprintf("%s/node_0.log", logs);
	air_test_write_file(run, b.ptr, b.len);
	ASSERT_OK(air__local_new(state, NULL, &ws, NULL), NULL);

	/* Ascending pages of 1000 from t >= 1101 s to t < 2101 s: r101 .. r1100. */
	expect = 101;
	do {
		size_t i;
		json_t *rec;

		snprintf(query, sizeof(query), "ascending=true&from=1101&to=2101&page_size=700%s%s",
		         token ? "&page_token=" : "", token ? token : "");
		page = serve_json(ws, path, query);
		json_array_foreach(json_object_get(page, "log_records"), i, rec) {
			char want[32];
			snprintf(want, sizeof(want), "r%lld", (long long)expect++);
			ASSERT_EQ_STR(json_string_value(json_object_get(rec, "body")), want);
			seen++;
		}
		air__free(token);
		token = air__strdup(air__json_str(page, "next_page_token"));
		json_decref(page);
	} while (token);
	ASSERT_EQ_INT(seen, 1000);

	/* Descending (a tail): the newest first, continued by the token. */
	page = serve_json(ws, path, "ascending=false&page_size=3");
	ASSERT_EQ_STR(json_string_value(air__json_at(page, "log_records.0.body")), "r2500");
	ASSERT_EQ_STR(json_string_value(air__json_at(page, "log_records.2.body")), "r2498");
	snprintf(query, sizeof(query), "ascending=false&page_size=2&page_token=%s",
	         air__json_str(page, "next_page_token"));
	json_decref(page);
	page = serve_json(ws, path, query);
	ASSERT_EQ_STR(json_string_value(air__json_at(page, "log_records.0.body")), "r2497");
	json_decref(page);
	/* Another node, another attempt: nothing (yet). */
	page = serve_json(ws, path, "filter.node_index=1");
	ASSERT_EQ_INT(json_array_size(json_object_get(page, "log_records")), 0);
	json_decref(page);

	air__local_free(ws);
	air__buf_dispose(&b);
	air__free(run);
	air__free(logs);
}

/* ---- extraction ------------------------------------------------------------------------ */

static void make_tar(const char *path, const char *const *names)
{
	struct archive *a = archive_write_new();
	struct archive_entry *e;

	archive_write_add_filter_gzip(a);
	archive_write_set_format_pax_restricted(a);
	ASSERT_EQ_INT(archive_write_open_filename(a, path), ARCHIVE_OK);
	for (size_t i = 0; names[i]; i++) {
		e = archive_entry_new();
		archive_entry_set_pathname(e, names[i]);
		archive_entry_set_filetype(e, AE_IFREG);
		archive_entry_set_perm(e, 0644);
		archive_entry_set_size(e, 3);
		archive_write_header(a, e);
		archive_write_data(a, "hi\n", 3);
		archive_entry_free(e);
	}
	archive_write_close(a);
	archive_write_free(a);
}

AIR_TEST(local_unit__extraction_keeps_entries_inside_the_snapshot)
{
	const char *dir = air_test_tmpdir();
	static const char *const good[] = {"proj/a.py", "proj/pkg/b.py", NULL};
	static const char *const evil[] = {"proj/a.py", "proj/../../outside", NULL};
	char *tar = air__sprintf("%s/good.tar.gz", dir), *dest = air__sprintf("%s/code", dir);
	char *top = NULL, *f;
	air__buf why = AIR__BUF_INIT;

	make_tar(tar, good);
	ASSERT_EQ_INT(air__lextract(tar, dest, &top, &why), AIR_OK);
	ASSERT_EQ_STR(top, "proj");
	f = air__sprintf("%s/proj/pkg/b.py", dest);
	ASSERT_TRUE(access(f, F_OK) == 0);
	air__free(f);
	air__free(top);
	make_tar(tar, evil);
	ASSERT_EQ_INT(air__lextract(tar, dest, &top, &why), AIR_ESNAPSHOT);
	ASSERT_CONTAINS(air__buf_cstr(&why), "leaves the snapshot");
	ASSERT_NULL(top);
	f = air__sprintf("%s/outside", dir);
	ASSERT_TRUE(access(f, F_OK) != 0);
	air__free(f);
	/* A "." segment too (a link named "proj/." would replace the folder). */
	{
		static const char *const dotted[] = {"./proj/a.py", "proj/./b.py", NULL};

		air__buf_clear(&why);
		make_tar(tar, dotted);
		ASSERT_EQ_INT(air__lextract(tar, dest, &top, &why), AIR_ESNAPSHOT);
		ASSERT_CONTAINS(air__buf_cstr(&why), "proj/./b.py leaves the snapshot");
	}
	/* A destination reached through a symbolic link (a state directory
	 * under a linked folder) is not a link written through. */
	{
		char *real = air__sprintf("%s/real", dir), *lnk = air__sprintf("%s/linked", dir);
		char *there = air__sprintf("%s/linked/code", dir), *cwd = getcwd(NULL, 0), *after;

		ASSERT_EQ_INT(mkdir(real, 0700), 0);
		ASSERT_EQ_INT(symlink(real, lnk), 0);
		make_tar(tar, good);
		ASSERT_EQ_INT(air__lextract(tar, there, &top, &why), AIR_OK);
		ASSERT_EQ_STR(top, "proj");
		air__free(top);
		f = air__sprintf("%s/real/code/proj/pkg/b.py", dir);
		ASSERT_TRUE(access(f, F_OK) == 0);
		air__free(f);
		ASSERT_NOT_NULL(after = getcwd(NULL, 0)); /* the caller's folder again */
		ASSERT_EQ_STR(after, cwd);
		free(after);
		free(cwd);
		air__free(real);
		air__free(lnk);
		air__free(there);
	}
	/* A cut archive: the reader's reason, not the writer's. */
	{
		static const char *const many[] = {"proj/a.py", "proj/b.py", "proj/c.py", NULL};
		char *text;
		size_t len;

		make_tar(tar, many);
		ASSERT_NOT_NULL(text = air_test_read_file(tar, &len));
		air_test_write_file(tar, text, len / 2);
		free(text);
		air__buf_clear(&why);
		ASSERT_NE_INT(air__lextract(tar, dest, &top, &why), AIR_OK);
		ASSERT_TRUE(strstr(air__buf_cstr(&why), "(null)") == NULL);
		ASSERT_TRUE(why.len > 0);
	}
	air__buf_dispose(&why);
	air__free(tar);
	air__free(dest);
}

/* An executable shell script at @dir/@name running @body. */
static char *script_in(const char *dir, const char *name, const char *body)
{
	char *path = air__sprintf("%s/%s", dir, name), *text = air__sprintf("#!/bin/sh\n%s\n", body);

	air_test_write_file(path, text, strlen(text));
	ASSERT_EQ_INT(chmod(path, 0700), 0);
	air__free(text);
	return path;
}

AIR_TEST(local_unit__the_supervisor_extracts_with_its_extractor_program)
{
	const char *dir = air_test_tmpdir(), *build = getenv("AIR_BUILD_ROOT");
	static const char *const good[] = {"proj/a.py", NULL};
	static const char *const evil[] = {"proj/../../outside", NULL};
	char *tar = air__sprintf("%s/code.tar.gz", dir), *dest = air__sprintf("%s/code", dir);
	char *sup = air__sprintf("%s/lib/air-local-supervisor", build ? build : ".");
	char *extractor = air__lextractor_beside(sup), *top = NULL;
	volatile sig_atomic_t stop = 0;
	air__buf why = AIR__BUF_INIT;
	int wake = -1; /* no self-pipe: a stop is seen as the extractor starts */

	ASSERT_NOT_NULL(build);
	ASSERT_TRUE(access(extractor, X_OK) == 0);
	make_tar(tar, good);
	ASSERT_EQ_INT(air__lextract_with(extractor, tar, dest, NULL, wake, &stop, &top, &why), AIR_OK);
	ASSERT_EQ_STR(top, "proj");
	air__free(top);
	make_tar(tar, evil);
	ASSERT_EQ_INT(air__lextract_with(extractor, tar, dest, NULL, wake, &stop, &top, &why),
	              AIR_ESNAPSHOT);
	ASSERT_CONTAINS(air__buf_cstr(&why), "leaves the snapshot");
	ASSERT_NULL(top);
	air__free(extractor);
	/* Found beside the supervisor's program, through a link to it. */
	{
		char *link = air__sprintf("%s/linked-supervisor", dir);

		ASSERT_EQ_INT(symlink(sup, link), 0);
		extractor = air__lextractor_beside(link);
		ASSERT_EQ_INT(access(extractor, X_OK), 0);
		air__free(extractor);
		air__free(link);
	}
	/* None there: the reason names it. */
	air__buf_clear(&why);
	extractor = air__sprintf("%s/missing/air-local-extract", dir);
	ASSERT_EQ_INT(air__lextract_with(extractor, tar, dest, NULL, wake, &stop, &top, &why), AIR_EIO);
	ASSERT_CONTAINS(air__buf_cstr(&why), "cannot run");
	air__free(extractor);
	/* One that never ends is ended by a stop signal. */
	air__buf_clear(&why);
	extractor = script_in(dir, "hangs", "exec sleep 300");
	stop = SIGTERM;
	ASSERT_EQ_INT(air__lextract_with(extractor, tar, dest, NULL, wake, &stop, &top, &why),
	              AIR_ESNAPSHOT);
	ASSERT_CONTAINS(air__buf_cstr(&why), "killed by signal 15");
	air__free(extractor);
	stop = 0;
	/* The run's cancellation ends it too. */
	air__buf_clear(&why);
	{
		char *cancel = air__sprintf("%s/cancel", dir);

		extractor = script_in(dir, "hangs-too", "exec sleep 300");
		air_test_write_file(cancel, "", 0);
		ASSERT_EQ_INT(air__lextract_with(extractor, tar, dest, cancel, wake, &stop, &top, &why),
		              AIR_ESNAPSHOT);
		ASSERT_CONTAINS(air__buf_cstr(&why), "killed by signal 15");
		air__free(extractor);
		air__free(cancel);
	}
	/* Started by a process that is not its parent: it does nothing. */
	{
		char *real = air__lextractor_beside(sup);
		char *cmd = air__sprintf("'%s' '%s' '%s/never' 1", real, tar, dir), *out = NULL;
		FILE *p = popen(cmd, "r");
		char line[256] = "";

		ASSERT_NOT_NULL(p);
		if (!fgets(line, sizeof(line), p))
			line[0] = '\0';
		ASSERT_EQ_INT(WEXITSTATUS(pclose(p)), 1);
		ASSERT_CONTAINS(line, "the supervisor that started the extraction is gone");
		out = air__sprintf("%s/never", dir);
		ASSERT_TRUE(access(out, F_OK) != 0);
		air__free(out);
		air__free(cmd);
		air__free(real);
	}
	/* What it says on stderr (a loader's warning) is not its answer. */
	air__buf_clear(&why);
	extractor = script_in(dir, "noisy", "echo 'ld.so: object ignored' >&2; printf proj");
	ASSERT_EQ_INT(air__lextract_with(extractor, tar, dest, NULL, wake, &stop, &top, &why), AIR_OK);
	ASSERT_EQ_STR(top, "proj");
	air__free(top);
	air__free(extractor);
	/* Whatever else ends it is said. */
	air__buf_clear(&why);
	extractor = script_in(dir, "crashes", "exit 5");
	ASSERT_EQ_INT(air__lextract_with(extractor, tar, dest, NULL, wake, &stop, &top, &why),
	              AIR_ESNAPSHOT);
	ASSERT_CONTAINS(air__buf_cstr(&why), "exited with status 5");
	air__free(extractor);
	air__buf_dispose(&why);
	air__free(sup);
	air__free(tar);
	air__free(dest);
}

/* ---- crash consistency -------------------------------------------------------------- */

AIR_TEST(local_unit__a_run_nobody_owns_is_reported_as_ended)
{
	const char *state = air_test_tmpdir();
	char *run = air__sprintf("%s/jobs/runs/5", state);
	char *rpath = air__lpath(run, "run.json");
	json_t *status = air__lstatus_new(), *rec = NULL, *seen;

	/* What a submitter that died before its supervisor took over leaves. */
	ASSERT_EQ_INT(air__lmkdirs(run, 0700), 0);
	air_test_write_file(rpath, "{\"run_id\": 5}", 13);
	ASSERT_EQ_INT(air__lstatus_write(run, status, false), 0);
	{
		char *reserve = air__lpath(run, "status.reserve");

		/* Its disk reserve, made with the folder, goes with the verdict. */
		ASSERT_EQ_INT(air__lreserve(reserve, 4096), 0);
		seen = air__lrun_load(run, &rec, NULL);
		ASSERT_TRUE(access(reserve, F_OK) != 0);
		air__free(reserve);
	}
	ASSERT_NOT_NULL(seen);
	ASSERT_EQ_STR(air__json_str(seen, "state"), AIR__L_INTERNAL_ERROR);
	ASSERT_EQ_STR(air__json_str(seen, "result"), "FAILED");
	ASSERT_CONTAINS(air__json_str(seen, "message"), "never started");
	ASSERT_CONTAINS(air__json_str(seen, "message"), "did not take it over");
	ASSERT_EQ_INT(air__json_int64_or(rec, "run_id", 0), 5);
	json_decref(seen);
	json_decref(rec);
	/* The verdict is recorded: the next reader sees it as it is. */
	seen = air__lrun_load(run, NULL, NULL);
	ASSERT_EQ_STR(air__json_str(seen, "state"), AIR__L_INTERNAL_ERROR);
	json_decref(seen);
	/* A run whose lock is held is left alone. */
	{
		char *lock = air__lpath(run, "supervisor.lock");
		int fd;
		ASSERT_EQ_INT(air__lstatus_write(run, status, false), 0);
		ASSERT_EQ_INT(air__llock(lock, false, NULL, &fd), 0);
		seen = air__lrun_load(run, NULL, NULL);
		ASSERT_EQ_STR(air__json_str(seen, "state"), AIR__L_PENDING);
		json_decref(seen);
		air__lunlock(fd);
		air__free(lock);
	}
	ASSERT_NULL(air__lrun_load(state, NULL, NULL));
	json_decref(status);
	air__free(rpath);
	air__free(run);
}

/* ---- node processes ------------------------------------------------------------------ */

/* Start a node running @body with /bin/sh; *@out is the read end of its
 * output. */
static pid_t start_node(const char *body, int *out)
{
	static char *env[] = {"PATH=/usr/bin:/bin", NULL};
	char script[4200];
	air__lnode_spec spec;
	int p[2];
	pid_t g;

	snprintf(script, sizeof(script), "%s/command.sh", air_test_tmpdir());
	air_test_write_file(script, body, strlen(body));
	ASSERT_EQ_INT(pipe(p), 0);
	spec = (air__lnode_spec){"/bin/sh", script, air_test_tmpdir(), env, p[1]};
	g = air__lnode_start(&spec);
	ASSERT_TRUE(g > 0);
	close(p[1]);
	*out = p[0];
	return g;
}

/* The guard's exit status, or -1 if it is still there after 60 s (then its
 * group is killed). */
static int guard_status(pid_t g)
{
	for (int i = 0; i < 6000; i++) {
		int st;
		pid_t r = waitpid(g, &st, WNOHANG);

		if (r == g)
			return WIFEXITED(st) ? WEXITSTATUS(st) : 1000 + WTERMSIG(st);
		usleep(10 * 1000);
	}
	kill(-g, SIGKILL);
	waitpid(g, NULL, 0);
	return -1;
}

static bool under_valgrind(void)
{
	const char *p = getenv("LD_PRELOAD");

	return p && strstr(p, "vgpreload");
}

/* Run test @name in this program again, outside valgrind (a program a
 * traced one executes is not traced), and fail when it fails. */
static void run_natively(const char *name)
{
	char self[4096], *out = air__sprintf("%s/native.tap", air_test_tmpdir()), *text;
	ssize_t n = readlink("/proc/self/exe", self, sizeof(self) - 1);
	pid_t child;
	int st = -1;

	ASSERT_TRUE(n > 0);
	self[n] = '\0';
	child = fork();
	ASSERT_TRUE(child >= 0);
	if (child == 0) {
		int fd = open(out, O_WRONLY | O_CREAT | O_TRUNC, 0600);
		char *argv[] = {self, (char *)name, NULL};

		if (fd < 0 || dup2(fd, 1) < 0)
			_exit(126);
		execv(self, argv);
		_exit(127);
	}
	ASSERT_EQ_INT(waitpid(child, &st, 0), child);
	if (!WIFEXITED(st) || WEXITSTATUS(st) != 0) {
		text = air_test_read_file(out, NULL);
		air_test_note("%s", text ? text : "(no output)");
		free(text);
		FAIL("%s failed when run natively", name);
	}
	air__free(out);
}

/* A stop sent the moment a node is started (before its guard has set its
 * handlers, or before the command exists) is held and reaches the command,
 * which ends on SIGTERM: 128 + 15, not the SIGKILL of the grace period.
 *
 * Under valgrind the rounds run natively: valgrind's emulation loses a
 * signal sent to a process it runs in the moments after that process was
 * forked. Measured under load: 4 of 480 rounds lost the stop, the guard's
 * handler never ran and no process of the node's group had a signal
 * pending; natively 0 of 3,200 rounds did (a blocked signal stays pending:
 * the kernel does not lose it). The guard blocks the stop signals from
 * before its fork until its command exists (node.c), so there is no window
 * of node.c's own in which a stop can be lost. */
AIR_TEST(local_unit__a_stop_as_a_node_starts_reaches_its_command)
{
	if (under_valgrind()) {
		run_natively("local_unit__a_stop_as_a_node_starts_reaches_its_command");
		return;
	}
	for (int round = 0; round < 20; round++) {
		int out;
		pid_t g = start_node("sleep 300\n", &out);
		int status;

		ASSERT_EQ_INT(kill(g, SIGTERM), 0);
		status = guard_status(g);
		kill(-g, SIGKILL); /* whatever the group has left */
		close(out);
		if (status != 128 + SIGTERM)
			FAIL("round %d: the node ended with %d, not %d", round, status, 128 + SIGTERM);
	}
}

/* A stop while the command runs ends the command and its children. */
AIR_TEST(local_unit__a_stop_ends_the_command_and_its_children)
{
	char pidfile[4200], body[8600];
	int out;
	pid_t g;
	long child;

	snprintf(pidfile, sizeof(pidfile), "%s/child.pid", air_test_tmpdir());
	snprintf(body, sizeof(body), "sleep 300 &\necho $! > '%s'\nwait\n", pidfile);
	g = start_node(body, &out);
	child = local_read_pid(pidfile);
	ASSERT_EQ_INT(kill(g, SIGTERM), 0);
	ASSERT_EQ_INT(guard_status(g), 128 + SIGTERM);
	local_wait_gone(child);
	kill(-g, SIGKILL);
	close(out);
}

/* ---- where nodes run ------------------------------------------------------------------ */

/* In a child: keep to @start (when given), take @list; 0 when the CPUs are
 * then @expected. */
static int takes(const cpu_set_t *start, const char *list, const cpu_set_t *expected)
{
	pid_t pid = fork();
	int st;

	if (pid == 0) {
		cpu_set_t now;

		if (!freopen("/dev/null", "w", stderr) ||
		    (start && sched_setaffinity(0, sizeof(*start), start) != 0))
			_exit(2);
		air__lnode_take_cpus(list);
		_exit(sched_getaffinity(0, sizeof(now), &now) == 0 && CPU_EQUAL(&now, expected) ? 0 : 1);
	}
	return pid > 0 && waitpid(pid, &st, 0) == pid && WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

AIR_TEST(local_unit__a_supervisor_takes_the_cpus_it_is_told)
{
	cpu_set_t mine, one, all, every;
	char list[64];
	int first = 0, second;

	/* every: what a process that asks for all CPUs gets (its cpuset's). */
	ASSERT_EQ_INT(sched_getaffinity(0, sizeof(mine), &mine), 0);
	CPU_ZERO(&all);
	for (int i = 0; i < CPU_SETSIZE; i++)
		CPU_SET(i, &all);
	ASSERT_EQ_INT(sched_setaffinity(0, sizeof(all), &all), 0);
	ASSERT_EQ_INT(sched_getaffinity(0, sizeof(every), &every), 0);
	ASSERT_EQ_INT(sched_setaffinity(0, sizeof(mine), &mine), 0);
	if (CPU_COUNT(&mine) < 2)
		air_test_skip("needs two CPUs");
	while (!CPU_ISSET(first, &mine))
		first++;
	for (second = first + 1; !CPU_ISSET(second, &mine); second++)
		;
	CPU_ZERO(&one);
	CPU_SET(first, &one);
	/* Started on one CPU, told all of them: all of them. */
	snprintf(list, sizeof(list), "%d,%d", first, second);
	if (CPU_COUNT(&every) == 2)
		ASSERT_EQ_INT(takes(&one, list, &every), 0);
	/* Told one: that one, even when started on all. */
	snprintf(list, sizeof(list), "%d", first);
	ASSERT_EQ_INT(takes(&mine, list, &one), 0);
	/* "-": as started. */
	ASSERT_EQ_INT(takes(&one, "-", &one), 0);
	/* Not a list, or CPUs that cannot be had: every CPU rather than the one
	 * it was started on. */
	ASSERT_EQ_INT(takes(&one, "0,,1", &every), 0);
	ASSERT_EQ_INT(takes(&one, "", &every), 0);
	ASSERT_EQ_INT(takes(&one, "1,x", &every), 0);
	ASSERT_EQ_INT(takes(&one, "99999", &every), 0);
	ASSERT_EQ_INT(takes(&one, "1023", &every), 0);
}
