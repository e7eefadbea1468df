/*
 * metrics.c: the MLflow metrics of local runs, read from the file store
 * (mlruns.c) as the MLflow REST API serves them: the latest value of each
 * metric for mlflow/runs/get (the last complete line of each metrics file,
 * keys with '/' being sub-folders), and mlflow/metrics/get-history in pages
 * whose token is the byte offset where the next page starts.
 *
 * A metrics file holds "<timestamp ms> <value> [<step>]" lines; a last line
 * without its newline is still being written and is left for later, as is
 * a line that is not of that form. Values are what Python prints ("0.5",
 * "nan", "inf", "-inf"); NaN and the infinities are served as the strings
 * "NaN", "Infinity" and "-Infinity".
 */
#include "local/endpoints.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* MLflow's limits: the largest get-history page, the longest key. */
#define PAGE_MAX 25000
#define KEY_MAX 250
/* Folders of keys with '/' are followed this deep. */
#define KEY_DEPTH 16
/* A line longer than this is not a point. */
#define LINE_MAX_BYTES 4096

/* "<timestamp> <value> [<step>]" (@len bytes, no newline). */
static bool parse_point(const char *line, size_t len, int64_t *ts, double *value, int64_t *step)
{
	char buf[LINE_MAX_BYTES], *f[4], *save = NULL, *end;
	int n = 0;

	if (len == 0 || len >= sizeof(buf))
		return false;
	memcpy(buf, line, len);
	buf[len] = '\0';
	for (char *t = strtok_r(buf, " ", &save); t; t = strtok_r(NULL, " ", &save)) {
		if (n == 3)
			return false;
		f[n++] = t;
	}
	*step = 0;
	if (n < 2 || !air__parse_int64(f[0], ts) || (n == 3 && !air__parse_int64(f[2], step)))
		return false;
	*value = strtod(f[1], &end);
	return *end == '\0';
}

/* A value as JSON: a number, or the strings MLflow uses for the others. */
static json_t *value_json(double v)
{
	if (isnan(v))
		return json_string("NaN");
	if (isinf(v))
		return json_string(v > 0 ? "Infinity" : "-Infinity");
	return json_real(v);
}

static json_t *point_json(const char *key, int64_t ts, double value, int64_t step)
{
	return json_pack("{s:s, s:o, s:I, s:I}", "key", key, "value", value_json(value), "timestamp",
	                 (json_int_t)ts, "step", (json_int_t)step);
}

/* The last complete point of the open metrics file @fd (size @size), read
 * from its end. */
static bool last_point(int fd, off_t size, int64_t *ts, double *value, int64_t *step)
{
	char buf[2 * LINE_MAX_BYTES];
	ssize_t got = 0;
	off_t from;
	bool ok = false;

	if (size > 0) {
		from = size > (off_t)sizeof(buf) ? size - (off_t)sizeof(buf) : 0;
		got = pread(fd, buf, sizeof(buf), from);
	}
	/* Back from the last newline (what follows it is being written). */
	while (!ok && got > 0) {
		char *nl = memrchr(buf, '\n', (size_t)got), *start;

		if (!nl)
			break;
		got = nl - buf;
		start = memrchr(buf, '\n', (size_t)got);
		start = start ? start + 1 : buf;
		ok = parse_point(start, (size_t)(buf + got - start), ts, value, step);
		got = start - buf;
		if (start == buf)
			break;
	}
	return ok;
}

/* The latest point of every metrics file under the open folder @dir (key
 * prefix @prefix; @dir is closed). Links are never followed and only
 * regular files are read (air__lopen_name()). */
static bool add_latest(int dir, const char *prefix, int depth, json_t *out)
{
	DIR *d = fdopendir(dir);
	struct dirent *e;
	bool ok = true;

	if (!d)
		close(dir);
	while (ok && d && (e = readdir(d)) != NULL) {
		char *key;
		struct stat st;
		int64_t ts, step;
		double value;
		int fd;

		if (e->d_name[0] == '.' && (!e->d_name[1] || !strcmp(e->d_name, "..")))
			continue;
		key = *prefix ? air__sprintf("%s/%s", prefix, e->d_name) : air__strdup(e->d_name);
		fd = key ? air__lopen_name(dirfd(d), e->d_name, depth < KEY_DEPTH, &st) : -1;
		if (!key)
			ok = false;
		else if (fd < 0)
			;
		else if (S_ISDIR(st.st_mode))
			ok = add_latest(fd, key, depth + 1, out); /* closes fd */
		else if (last_point(fd, st.st_size, &ts, &value, &step))
			ok = json_array_append_new(out, point_json(key, ts, value, step)) == 0;
		if (fd >= 0 && !S_ISDIR(st.st_mode))
			close(fd);
		air__free(key);
	}
	if (d)
		closedir(d);
	return ok;
}

int air__lmlflow_latest(const air__local *ws, const json_t *rec, json_t *data)
{
	char *run = air__lmlruns_run_dir(ws->dir, rec);
	struct stat st;
	int dir = run ? air__lopen_beneath(run, "metrics", true, &st) : -1;
	json_t *list = json_array();
	bool ok = list != NULL;

	if (ok && dir >= 0 && S_ISDIR(st.st_mode))
		ok = add_latest(dir, "", 0, list); /* closes dir */
	else if (dir >= 0)
		close(dir);
	/* Empty lists are left out, as the service does. */
	if (ok && json_array_size(list) > 0)
		ok = json_object_set(data, "metrics", list) == 0;
	json_decref(list);
	air__free(run);
	return ok ? AIR_OK : AIR_ENOMEM;
}

/* A metric key is a relative path inside the run's metrics folder: no
 * empty, "." or ".." segment, not absolute (MLflow refuses those too). */
static bool clean_key(const char *key)
{
	size_t n = strlen(key);

	if (n == 0 || n > KEY_MAX || key[0] == '/' || key[n - 1] == '/')
		return false;
	for (const char *p = key; *p;) {
		size_t seg = strcspn(p, "/");

		if (seg == 0 || (seg == 1 && p[0] == '.') || (seg == 2 && p[0] == '.' && p[1] == '.'))
			return false;
		p += seg;
		if (*p == '/')
			p++;
	}
	return true;
}

/* The lines of a metrics file through a fixed buffer: a line longer than
 * LINE_MAX_BYTES is passed over, never held whole. */
typedef struct line_reader {
	int fd;
	size_t at, end;
	char buf[4 * LINE_MAX_BYTES];
} line_reader;

/* The next complete line: 1 with *line and *len (without its newline;
 * *len is SIZE_MAX for a line too long to be a point) and *used (its bytes
 * with the newline); 0 at the end (an unfinished last line is left for
 * later); -1 on a read error. */
static int next_line(line_reader *r, const char **line, size_t *len, int64_t *used)
{
	int64_t skipped = 0;

	for (;;) {
		char *start = r->buf + r->at, *nl = memchr(start, '\n', r->end - r->at);
		ssize_t got;

		if (nl) {
			size_t n = (size_t)(nl - start);

			*line = start;
			*len = skipped ? SIZE_MAX : n;
			*used = skipped + (int64_t)n + 1;
			r->at += n + 1;
			return 1;
		}
		if (r->end - r->at > LINE_MAX_BYTES) {
			skipped += (int64_t)(r->end - r->at);
			r->at = r->end;
		}
		memmove(r->buf, start, r->end - r->at);
		r->end -= r->at;
		r->at = 0;
		do
			got = read(r->fd, r->buf + r->end, sizeof(r->buf) - r->end);
		while (got < 0 && errno == EINTR);
		if (got <= 0)
			return got == 0 ? 0 : -1;
		r->end += (size_t)got;
	}
}

/* Up to @max points of the metrics file @rel under @run_dir from byte @off:
 * *next is where the next page starts, or -1 when these are the last
 * complete lines. A file that is missing, reached through a link or not a
 * regular file has no point (air__lopen_beneath()). */
static bool read_page(const char *run_dir, const char *rel, const char *key, int64_t off,
                      int64_t max, json_t *out, int64_t *next, bool *bad_token)
{
	struct stat st;
	line_reader *r = NULL;
	const char *line;
	size_t len;
	int64_t n = 0, pos = off, used;
	char prev = '\n';
	int fd = air__lopen_beneath(run_dir, rel, false, &st), more = 0;
	bool ok = true;

	*next = -1;
	if (fd < 0)
		return errno == ENOENT; /* no point logged yet */
	if (!(r = air__malloc(sizeof(*r)))) {
		close(fd);
		errno = ENOMEM;
		return false;
	}
	r->fd = fd;
	r->at = r->end = 0;
	/* A page starts at the start of a line. */
	if (off > 0 && (pread(fd, &prev, 1, (off_t)off - 1) != 1 || prev != '\n' ||
	                lseek(fd, (off_t)off, SEEK_SET) < 0))
		*bad_token = true;
	while (ok && !*bad_token && (more = next_line(r, &line, &len, &used)) > 0) {
		int64_t ts, step;
		double value;

		if (n == max) {
			*next = pos;
			break;
		}
		pos += used;
		if (len == SIZE_MAX || !parse_point(line, len, &ts, &value, &step))
			continue;
		ok = json_array_append_new(out, point_json(key, ts, value, step)) == 0;
		n++;
	}
	if (more < 0)
		ok = false;
	air__free(r);
	close(fd);
	return ok;
}

int air__lmlflow_history(air__lcall *c)
{
	char *id = air__lquery(c, "run_id"), *key = air__lquery(c, "metric_key");
	char *token = air__lquery(c, "page_token"), *dir = NULL, *run = NULL, *path = NULL;
	json_t *rec = NULL, *status = NULL, *points = json_array(), *reply;
	int64_t max = PAGE_MAX, off = 0, next = -1;
	bool bad = false, bad_token = false;
	int rc;

	if (air__lquery_int(c, "max_results", &max, &bad) && (max < 1 || max > PAGE_MAX))
		bad = true;
	if (!points) {
		rc = air__oom(c->err);
	} else if (!key || !clean_key(key)) {
		rc = air__lreply_bad_request(c, "metric_key %s is not a metric key",
		                             key ? key : "(missing)");
	} else if (bad || (token && (!air__parse_int64(token, &off) || off < 0))) {
		rc = air__lreply_bad_request(c, bad ? "max_results must be between 1 and %d"
		                                    : "invalid page_token", PAGE_MAX);
	} else if (!(dir = air__lmlflow_run_dir(c, id, &rec, &status))) {
		rc = air__lreply_not_found(c, "MLflow run %s is not a run of this local workspace",
		                           id ? id : "(missing)");
	} else if (!(run = air__lmlruns_run_dir(c->ws->dir, rec)) ||
	           !(path = air__sprintf("metrics/%s", key))) {
		rc = run ? air__oom(c->err) : air__lreply_empty(c);
	} else if (!read_page(run, path, key, off, max, points, &next, &bad_token)) {
		rc = errno == ENOMEM ? air__oom(c->err) : air__lreply_io_error(c, "cannot read a metric");
	} else if (bad_token) {
		rc = air__lreply_bad_request(c, "invalid page_token");
	} else {
		reply = json_object();
		if (reply && json_array_size(points) > 0)
			json_object_set(reply, "metrics", points);
		if (reply && next >= 0) {
			char t[24];
			snprintf(t, sizeof(t), "%lld", (long long)next);
			air__json_set_str(reply, "next_page_token", t);
		}
		rc = reply ? air__lreply_json(c, 200, reply) : air__oom(c->err);
	}
	json_decref(points);
	json_decref(rec);
	json_decref(status);
	air__free(path);
	air__free(run);
	air__free(dir);
	air__free(token);
	air__free(key);
	air__free(id);
	return rc;
}
