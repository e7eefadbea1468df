/*
 * fakews.c: C driver for the fake workspace server tests/fakews/fakews.py
 * (see fakews.h and tests/fakews/README.md).
 *
 * The server runs as a child process ($PYTHON $FAKEWS_PY --port-file F
 * --parent-pid P); it exits by itself when this process goes away, so a
 * crashed test leaves nothing behind. Control calls use their own libcurl
 * easy handle (never a proxy) under a mutex.
 */
#include "fakews.h"

#include <curl/curl.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <signal.h>
#include <spawn.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "test.h"

extern char **environ;

#define START_TIMEOUT_MS 60000 /* a wait, not a measure: ~0.5 s idle */
#define STOP_TIMEOUT_MS  3000
#define CALL_TIMEOUT_MS  60000

struct fakews {
	pid_t pid;
	int port;
	char url[64];
	char dir[PATH_MAX];
	char port_file[PATH_MAX + 16];
	CURL *curl;
	pthread_mutex_t lock;
};

struct membuf {
	char *data;
	size_t len, cap;
};

static size_t membuf_write(char *ptr, size_t size, size_t nmemb, void *ud)
{
	struct membuf *b = ud;
	size_t n = size * nmemb;

	if (b->len + n + 1 > b->cap) {
		size_t cap = b->cap ? b->cap * 2 : 4096;
		while (cap < b->len + n + 1)
			cap *= 2;
		char *p = realloc(b->data, cap);
		if (!p)
			return 0;
		b->data = p;
		b->cap = cap;
	}
	memcpy(b->data + b->len, ptr, n);
	b->len += n;
	b->data[b->len] = '\0';
	return n;
}

static void sleep_ms(long ms)
{
	struct timespec ts = {ms / 1000, (ms % 1000) * 1000000L};

	while (nanosleep(&ts, &ts) != 0 && errno == EINTR)
		;
}

static long long mono_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* ---- interpreter ------------------------------------------------------ */

/* Full path of @name, searching PATH when it has no '/'. */
static int find_in_path(const char *name, char *out, size_t outsz)
{
	const char *path = getenv("PATH");

	if (strchr(name, '/')) {
		snprintf(out, outsz, "%s", name);
		return access(out, X_OK) == 0;
	}
	while (path && *path) {
		const char *end = strchr(path, ':');
		size_t n = end ? (size_t)(end - path) : strlen(path);
		snprintf(out, outsz, "%.*s/%s", (int)n, n ? path : ".", name);
		if (access(out, X_OK) == 0)
			return 1;
		path = end ? end + 1 : NULL;
	}
	return 0;
}

static int is_script(const char *path)
{
	char magic[2] = {0, 0};
	FILE *f = fopen(path, "rb");

	if (!f)
		return 0;
	size_t n = fread(magic, 1, 2, f);
	fclose(f);
	return n == 2 && magic[0] == '#' && magic[1] == '!';
}

/*
 * The interpreter to run: $PYTHON, else python3. A launcher script (such as
 * a pyenv shim, which costs most of a second per start) is resolved once to
 * the interpreter it runs.
 */
static const char *python_exe(void)
{
	static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
	static char exe[PATH_MAX];
	const char *py = getenv("PYTHON");
	char full[PATH_MAX];

	if (!py || !*py)
		py = "python3";
	pthread_mutex_lock(&mu);
	if (exe[0])
		goto out;
	snprintf(exe, sizeof(exe), "%s", py);
	if (!find_in_path(py, full, sizeof(full)) || !is_script(full))
		goto out;

	int fds[2];
	if (pipe(fds) != 0)
		goto out;
	posix_spawn_file_actions_t fa;
	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_adddup2(&fa, fds[1], 1);
	posix_spawn_file_actions_addclose(&fa, fds[0]);
	posix_spawn_file_actions_addclose(&fa, fds[1]);
	char *argv[] = {(char *)py, "-S", "-c", "import sys; sys.stdout.write(sys.executable)", NULL};
	pid_t pid;
	int rc = posix_spawnp(&pid, py, &fa, NULL, argv, environ);
	posix_spawn_file_actions_destroy(&fa);
	close(fds[1]);
	if (rc == 0) {
		char buf[PATH_MAX];
		size_t n = 0;
		ssize_t r;
		while (n < sizeof(buf) - 1 && ((r = read(fds[0], buf + n, sizeof(buf) - 1 - n)) > 0 ||
		                               (r < 0 && errno == EINTR)))
			if (r > 0)
				n += (size_t)r;
		buf[n] = '\0';
		int status;
		while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
			;
		if (WIFEXITED(status) && WEXITSTATUS(status) == 0 && n > 0 && buf[0] == '/' &&
		    access(buf, X_OK) == 0)
			snprintf(exe, sizeof(exe), "%s", buf);
	}
	close(fds[0]);
out:
	pthread_mutex_unlock(&mu);
	return exe;
}

static const char *script_path(char *buf, size_t bufsz)
{
	const char *s = getenv("FAKEWS_PY");

	if (s && *s)
		return s;
	snprintf(buf, bufsz, "%s/tests/fakews/fakews.py", air_test_source_root());
	return buf;
}

/* ---- start / stop ----------------------------------------------------- */

static int read_port(const char *file)
{
	char *data = air_test_read_file(file, NULL);
	int port = 0;

	if (data) {
		char *end;
		long v = strtol(data, &end, 10);
		if (end != data && *end == '\n' && v > 0 && v < 65536)
			port = (int)v;
		free(data);
	}
	return port;
}

static void reap(fakews *fw, long timeout_ms)
{
	long long deadline = mono_ms() + timeout_ms;
	int status;

	if (fw->pid <= 0)
		return;
	kill(fw->pid, SIGTERM);
	for (;;) {
		pid_t r = waitpid(fw->pid, &status, WNOHANG);
		if (r == fw->pid || (r < 0 && errno != EINTR))
			break;
		if (mono_ms() >= deadline) {
			kill(fw->pid, SIGKILL);
			while (waitpid(fw->pid, &status, 0) < 0 && errno == EINTR)
				;
			break;
		}
		sleep_ms(5);
	}
	fw->pid = 0;
}

static void cleanup(fakews *fw)
{
	if (fw->curl)
		curl_easy_cleanup(fw->curl);
	if (fw->port_file[0])
		unlink(fw->port_file);
	if (fw->dir[0])
		rmdir(fw->dir);
	pthread_mutex_destroy(&fw->lock);
	free(fw);
}

fakews *fakews_start(void)
{
	char script_buf[PATH_MAX], pidarg[32], why[3 * PATH_MAX];
	const char *tmp = getenv("TMPDIR");
	fakews *fw = calloc(1, sizeof(*fw));

	if (!fw)
		FAIL("fakews_start: out of memory");
	pthread_mutex_init(&fw->lock, NULL);
	snprintf(fw->dir, sizeof(fw->dir), "%s/fakews.XXXXXX", tmp && *tmp ? tmp : "/tmp");
	if (!mkdtemp(fw->dir)) {
		snprintf(why, sizeof(why), "mkdtemp %.1000s: %s", fw->dir, strerror(errno));
		fw->dir[0] = '\0';
		cleanup(fw);
		FAIL("fakews_start: %s", why);
	}
	snprintf(fw->port_file, sizeof(fw->port_file), "%s/port", fw->dir);
	snprintf(pidarg, sizeof(pidarg), "%ld", (long)getpid());

	const char *py = python_exe();
	const char *script = script_path(script_buf, sizeof(script_buf));
	char *argv[] = {(char *)py, "-S", (char *)script, "--port-file", fw->port_file,
	                "--parent-pid", pidarg, "--quiet", NULL};
	posix_spawn_file_actions_t fa;
	posix_spawnattr_t attr;
	sigset_t none, deflt;

	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
	posix_spawn_file_actions_addopen(&fa, 1, "/dev/null", O_WRONLY, 0);
	posix_spawnattr_init(&attr);
	sigemptyset(&none);
	sigemptyset(&deflt);
	sigaddset(&deflt, SIGTERM);
	sigaddset(&deflt, SIGINT);
	sigaddset(&deflt, SIGPIPE);
	posix_spawnattr_setsigmask(&attr, &none);
	posix_spawnattr_setsigdefault(&attr, &deflt);
	posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF);
	int rc = posix_spawnp(&fw->pid, py, &fa, &attr, argv, environ);
	posix_spawn_file_actions_destroy(&fa);
	posix_spawnattr_destroy(&attr);
	if (rc != 0) {
		snprintf(why, sizeof(why), "cannot run %.1000s %.1000s: %s", py, script, strerror(rc));
		fw->pid = 0;
		cleanup(fw);
		FAIL("fakews_start: %s", why);
	}

	long long deadline = mono_ms() + START_TIMEOUT_MS;
	for (;;) {
		int status;
		fw->port = read_port(fw->port_file);
		if (fw->port)
			break;
		pid_t r = waitpid(fw->pid, &status, WNOHANG);
		if (r == fw->pid) {
			snprintf(why, sizeof(why), "%.1000s %.1000s exited (status %d) before listening", py, script,
			         WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status));
			fw->pid = 0;
			cleanup(fw);
			FAIL("fakews_start: %s", why);
		}
		if (mono_ms() >= deadline) {
			snprintf(why, sizeof(why), "%.1000s %.1000s did not write %.1000s within %d ms", py, script,
			         fw->port_file, START_TIMEOUT_MS);
			reap(fw, 0);
			cleanup(fw);
			FAIL("fakews_start: %s", why);
		}
		sleep_ms(5);
	}
	snprintf(fw->url, sizeof(fw->url), "http://127.0.0.1:%d", fw->port);
	fw->curl = curl_easy_init();
	if (!fw->curl) {
		reap(fw, STOP_TIMEOUT_MS);
		cleanup(fw);
		FAIL("fakews_start: curl_easy_init failed");
	}
	return fw;
}

void fakews_stop(fakews *fw)
{
	if (!fw)
		return;
	reap(fw, STOP_TIMEOUT_MS);
	cleanup(fw);
}

const char *fakews_url(const fakews *fw)
{
	return fw->url;
}

int fakews_port(const fakews *fw)
{
	return fw->port;
}

/* ---- control calls ---------------------------------------------------- */

/*
 * One request to the server. Returns the HTTP status, or 0 with a message
 * in @why on a transport failure. The reply body goes to @out (caller frees
 * out->data). Never FAILs (the caller does, after releasing everything).
 */
static long request(fakews *fw, const char *method, const char *path, const char *body,
                    struct membuf *out, char *why, size_t whysz)
{
	char url[4096];
	struct curl_slist *hdrs = NULL;
	char errbuf[CURL_ERROR_SIZE] = "";
	long status = 0;

	snprintf(url, sizeof(url), "%s%s", fw->url, path);
	pthread_mutex_lock(&fw->lock);
	CURL *c = fw->curl;
	curl_easy_reset(c);
	curl_easy_setopt(c, CURLOPT_URL, url);
	curl_easy_setopt(c, CURLOPT_NOPROXY, "*");
	curl_easy_setopt(c, CURLOPT_NOSIGNAL, 1L);
	curl_easy_setopt(c, CURLOPT_TIMEOUT_MS, (long)CALL_TIMEOUT_MS);
	curl_easy_setopt(c, CURLOPT_ERRORBUFFER, errbuf);
	curl_easy_setopt(c, CURLOPT_WRITEFUNCTION, membuf_write);
	curl_easy_setopt(c, CURLOPT_WRITEDATA, out);
	hdrs = curl_slist_append(hdrs, "Content-Type: application/json");
	hdrs = curl_slist_append(hdrs, "Expect:");
	curl_easy_setopt(c, CURLOPT_HTTPHEADER, hdrs);
	if (strcmp(method, "GET") != 0)
		curl_easy_setopt(c, CURLOPT_CUSTOMREQUEST, method);
	if (body) {
		curl_easy_setopt(c, CURLOPT_POSTFIELDS, body);
		curl_easy_setopt(c, CURLOPT_POSTFIELDSIZE, (long)strlen(body));
	} else if (strcmp(method, "POST") == 0) {
		curl_easy_setopt(c, CURLOPT_POSTFIELDS, "");
		curl_easy_setopt(c, CURLOPT_POSTFIELDSIZE, 0L);
	}
	CURLcode rc = curl_easy_perform(c);
	if (rc == CURLE_OK)
		curl_easy_getinfo(c, CURLINFO_RESPONSE_CODE, &status);
	else
		snprintf(why, whysz, "%s", errbuf[0] ? errbuf : curl_easy_strerror(rc));
	curl_easy_setopt(c, CURLOPT_ERRORBUFFER, NULL);
	curl_easy_setopt(c, CURLOPT_HTTPHEADER, NULL);
	pthread_mutex_unlock(&fw->lock);
	curl_slist_free_all(hdrs);
	return status;
}

/* A control call; NULL with a diagnostic in @msg on any failure. */
static json_t *call(fakews *fw, const char *method, const char *path, const char *body, char *msg,
                    size_t msgsz)
{
	struct membuf out = {0};
	char why[512] = "";
	json_t *j = NULL;
	json_error_t jerr;
	long status;

	if (!fw) {
		snprintf(msg, msgsz, "fakews %s %s: no server (NULL fakews)", method, path);
		return NULL;
	}
	status = request(fw, method, path, body, &out, why, sizeof(why));
	if (status == 0) {
		snprintf(msg, msgsz, "fakews %s %s%s: %s", method, fw->url, path, why);
	} else if (status < 200 || status > 299) {
		snprintf(msg, msgsz, "fakews %s %s: HTTP %ld: %.600s", method, path, status,
		         out.data ? out.data : "");
	} else {
		j = out.len ? json_loadb(out.data, out.len, 0, &jerr) : json_object();
		if (!j)
			snprintf(msg, msgsz, "fakews %s %s: reply is not JSON (%s): %.300s", method, path,
			         jerr.text, out.data);
	}
	free(out.data);
	return j;
}

json_t *fakews_call(fakews *fw, const char *method, const char *path, const char *json_body)
{
	char msg[1024];
	json_t *j = call(fw, method, path, json_body, msg, sizeof(msg));

	if (!j)
		FAIL("%s", msg);
	return j;
}

static json_t *vcallf(fakews *fw, const char *method, const char *path, const char *fmt, va_list ap)
{
	char *body = NULL, msg[1024];

	if (vasprintf(&body, fmt, ap) < 0)
		FAIL("fakews %s %s: out of memory", method, path);
	json_t *j = call(fw, method, path, body, msg, sizeof(msg));
	free(body);
	if (!j)
		FAIL("%s", msg);
	return j;
}

json_t *fakews_callf(fakews *fw, const char *method, const char *path, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	json_t *j = vcallf(fw, method, path, fmt, ap);
	va_end(ap);
	return j;
}

void fakews_reset(fakews *fw)
{
	json_decref(fakews_call(fw, "POST", "/__fakews/reset", NULL));
}

void fakews_configf(fakews *fw, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	json_t *r = vcallf(fw, "POST", "/__fakews/config", fmt, ap);
	va_end(ap);
	json_decref(r);
}

int fakews_faultf(fakews *fw, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	json_t *r = vcallf(fw, "POST", "/__fakews/faults", fmt, ap);
	va_end(ap);
	int id = (int)json_integer_value(json_object_get(r, "id"));
	json_decref(r);
	return id;
}

void fakews_clear_faults(fakews *fw)
{
	json_decref(fakews_call(fw, "DELETE", "/__fakews/faults", NULL));
}

int64_t fakews_create_runf(fakews *fw, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	json_t *r = vcallf(fw, "POST", "/__fakews/runs", fmt, ap);
	va_end(ap);
	json_t *id = json_object_get(r, "run_id");
	int64_t v = json_is_integer(id) ? (int64_t)json_integer_value(id) : 0;
	json_decref(r);
	if (v <= 0)
		FAIL("fakews_create_runf: reply has no run_id");
	return v;
}

json_t *fakews_run(fakews *fw, int64_t run_id)
{
	char path[64];

	snprintf(path, sizeof(path), "/__fakews/runs/%lld", (long long)run_id);
	return fakews_call(fw, "GET", path, NULL);
}

json_t *fakews_requests(fakews *fw)
{
	json_t *r = fakews_call(fw, "GET", "/__fakews/requests", NULL);
	json_t *a = json_object_get(r, "requests");

	if (!json_is_array(a)) {
		json_decref(r);
		FAIL("fakews_requests: reply has no \"requests\" array");
	}
	json_incref(a);
	json_decref(r);
	return a;
}

void fakews_clear_requests(fakews *fw)
{
	json_decref(fakews_call(fw, "DELETE", "/__fakews/requests", NULL));
}

static int request_matches(json_t *req, const char *method, const char *path)
{
	const char *m = json_string_value(json_object_get(req, "method"));
	const char *p = json_string_value(json_object_get(req, "path"));
	size_t n = strlen(path);

	if (!m || !p)
		return 0;
	if (method && strcmp(method, "*") != 0 && strcmp(method, m) != 0)
		return 0;
	if (n && path[n - 1] == '*')
		return strncmp(p, path, n - 1) == 0;
	return strcmp(p, path) == 0;
}

/* Recorded requests filtered by the server (and again here, to be exact). */
static json_t *matching(fakews *fw, const char *method, const char *path, int bodies)
{
	char q[4200];
	char *m = curl_easy_escape(NULL, method && strcmp(method, "*") ? method : "", 0);
	char *p = curl_easy_escape(NULL, path, 0);

	if (!m || !p) {
		curl_free(m);
		curl_free(p);
		FAIL("fakews: out of memory");
	}
	snprintf(q, sizeof(q), "/__fakews/requests?method=%s&path=%.4000s%s", m, p,
	         bodies ? "" : "&bodies=false");
	curl_free(m);
	curl_free(p);
	json_t *r = fakews_call(fw, "GET", q, NULL);
	json_t *a = json_object_get(r, "requests");
	if (!json_is_array(a)) {
		json_decref(r);
		FAIL("fakews GET /__fakews/requests: reply has no \"requests\" array");
	}
	json_incref(a);
	json_decref(r);
	return a;
}

int fakews_count(fakews *fw, const char *method, const char *path)
{
	json_t *a = matching(fw, method, path, 0), *req;
	size_t i;
	int n = 0;

	json_array_foreach(a, i, req) {
		if (request_matches(req, method, path))
			n++;
	}
	json_decref(a);
	return n;
}

json_t *fakews_last_request(fakews *fw, const char *method, const char *path)
{
	json_t *a = matching(fw, method, path, 1), *found = NULL;

	for (size_t i = json_array_size(a); i-- > 0;) {
		json_t *req = json_array_get(a, i);
		if (request_matches(req, method, path)) {
			found = json_incref(req);
			break;
		}
	}
	json_decref(a);
	return found;
}

char *fakews_file(fakews *fw, const char *path, size_t *len)
{
	char url[4096], why[512] = "", msg[1024];
	struct membuf out = {0};
	char *esc = curl_easy_escape(NULL, path, 0);

	if (!esc)
		FAIL("fakews_file: out of memory");
	snprintf(url, sizeof(url), "/__fakews/file?path=%s", esc);
	curl_free(esc);
	long status = request(fw, "GET", url, NULL, &out, why, sizeof(why));
	if (status == 200) {
		if (!out.data) {
			out.data = malloc(1);
			if (!out.data)
				FAIL("fakews_file: out of memory");
			out.data[0] = '\0';
		}
		if (len)
			*len = out.len;
		return out.data;
	}
	if (status == 404) {
		free(out.data);
		if (len)
			*len = 0;
		return NULL;
	}
	if (status == 0)
		snprintf(msg, sizeof(msg), "fakews GET %.400s: %.400s", url, why);
	else
		snprintf(msg, sizeof(msg), "fakews GET %.400s: HTTP %ld: %.300s", url, status,
		         out.data ? out.data : "");
	free(out.data);
	FAIL("%s", msg);
}

/* ---- client ----------------------------------------------------------- */

air_client_options *fakews_client_options(fakews *fw)
{
	air_client_options *o = NULL;
	struct {
		int32_t opt;
		const char *name;
		const char *s;
		int64_t i;
	} opts[] = {
		{AIR_OPT_USE_ENVIRONMENT, "AIR_OPT_USE_ENVIRONMENT", NULL, 0},
		{AIR_OPT_HOST, "AIR_OPT_HOST", fw->url, 0},
		{AIR_OPT_TOKEN, "AIR_OPT_TOKEN", "dapi-test", 0},
		{AIR_OPT_RETRY_BACKOFF_MS, "AIR_OPT_RETRY_BACKOFF_MS", NULL, 10},
		{AIR_OPT_RATE_LIMIT, "AIR_OPT_RATE_LIMIT", NULL, 0},
	};
	int rc = air_client_options_new(&o);

	if (rc != AIR_OK)
		FAIL("fakews_client_options: %s (%d)", air_status_name(rc), rc);
	for (size_t k = 0; k < sizeof(opts) / sizeof(opts[0]); k++) {
		rc = opts[k].s ? air_client_options_set_str(o, opts[k].opt, opts[k].s)
		               : air_client_options_set_int(o, opts[k].opt, opts[k].i);
		if (rc != AIR_OK) {
			air_client_options_free(o);
			FAIL("fakews_client: setting %s failed: %s (%d)", opts[k].name, air_status_name(rc), rc);
		}
	}
	return o;
}

air_client *fakews_client_from(air_client_options *opts)
{
	air_client *c = NULL;
	air_error *err = NULL;
	char msg[512];
	int rc = air_client_new(opts, &c, &err);

	air_client_options_free(opts);
	if (rc != AIR_OK) {
		snprintf(msg, sizeof(msg), "%s (%d)%s%s", air_status_name(rc), rc, err ? ": " : "",
		         err ? air_error_message(err) : "");
		air_error_free(err);
		FAIL("fakews_client: air_client_new failed: %s", msg);
	}
	return c;
}

air_client *fakews_client(fakews *fw) { return fakews_client_from(fakews_client_options(fw)); }
