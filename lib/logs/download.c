/* download.c: air_client_download_logs(): the MLflow log chunks of every
 * node appended to <dir>/logs/node_<n>.log.
 *
 * Each node is written to a temporary file next to its log file and renamed
 * over it only once every chunk arrived: a failed or interrupted download
 * leaves an earlier file as it was. Chunks stream from the connection to
 * the file (never whole in memory); a chunk cut short is fetched again from
 * its start. <dir>/logs is opened once, never through a symbolic link, and
 * every file is made, renamed and removed relative to it. */
#include "logs/logs.h"
#include "core/core_fsize.h"

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define PARALLEL_NODES 8

/* The logs folder is only a place to make files in: no read permission needed. */
#ifdef O_PATH
#define LOGS_DIR_OPEN O_PATH
#else
#define LOGS_DIR_OPEN O_RDONLY
#endif

typedef struct dl_node {
	int32_t node;
	char *path;           /* file written; NULL when nothing was */
	int64_t bytes;
	bool complete;
	char *error;
	/* while downloading */
	char *final;          /* <dir>/logs/node_<n>.log */
	char *tmp;            /* the temporary file renamed to @final at the end */
	int at;               /* the logs folder (borrowed), where both are */
	air__chunk *chunks;
	size_t nchunks;
	FILE *fp;
	int write_errno;      /* a write to @tmp failed */
} dl_node;

struct air_download_report {
	dl_node *nodes;
	size_t count;
	char *no_logs;
	char *state;          /* the run's display state */
	bool terminal, succeeded;
};

/* mkdir -p */
static int make_dirs(const char *dir, air_error **err)
{
	char *p = air__strdup(dir);
	size_t n = p ? strlen(p) : 0;
	struct stat st;
	int rc = p ? AIR_OK : air__oom(err);

	for (size_t i = 1; rc == AIR_OK && i <= n; i++) {
		char saved = p[i];

		if (saved != '/' && saved != '\0')
			continue;
		p[i] = '\0';
		if (mkdir(p, 0777) != 0 && errno != EEXIST)
			rc = air__failf(err, AIR_EIO, 0, "cannot create directory %s: %s", p, strerror(errno));
		p[i] = saved;
	}
	if (rc == AIR_OK && (stat(p, &st) != 0 || !S_ISDIR(st.st_mode)))
		rc = air__failf(err, AIR_EIO, 0, "%s is not a directory", p);
	air__free(p);
	return rc;
}

/* <dir>/logs opened once into *fd, never through a symbolic link
 * (whatever it points to, and whoever made the folder first): every node
 * file is then made, renamed and removed in that folder. */
static int open_logs_dir(const char *logs_dir, int *fd, air_error **err)
{
	struct stat st;
	int rc;

	*fd = -1;
	if (lstat(logs_dir, &st) == 0 && S_ISLNK(st.st_mode))
		goto link;
	if ((rc = make_dirs(logs_dir, err)) != AIR_OK)
		return rc;
	if ((*fd = open(logs_dir, LOGS_DIR_OPEN | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)) >= 0)
		return AIR_OK;
	if ((errno == ELOOP || errno == ENOTDIR) && lstat(logs_dir, &st) == 0 && S_ISLNK(st.st_mode))
		goto link;
	return air__failf(err, AIR_EIO, AIR_KIND_IO, "cannot open %s: %s", logs_dir,
	                  strerror(errno));
link:
	return air__failf(err, AIR_EINVAL, AIR_KIND_INVALID_ARGUMENT,
	                  "%s is a symbolic link: libair writes the logs into a folder of its own "
	                  "there, never through a link (replace the link with a directory)", logs_dir);
}

/* The last component of @path. */
static const char *base_name(const char *path)
{
	const char *slash = strrchr(path, '/');

	return slash ? slash + 1 : path;
}

/* Record a failure of node @n ("; "-separated after the first). */
static void note_error(dl_node *n, const char *fmt, ...) AIR__PRINTF(2, 3);
static void note_error(dl_node *n, const char *fmt, ...)
{
	va_list ap;
	char *msg, *joined;

	n->complete = false;
	va_start(ap, fmt);
	msg = air__vsprintf(fmt, ap);
	va_end(ap);
	if (!msg)
		return;
	if (!n->error) {
		n->error = msg;
		return;
	}
	joined = air__sprintf("%s; %s", n->error, msg);
	air__free(msg);
	if (joined) {
		air__free(n->error);
		n->error = joined;
	}
}

int air__logs_node_count(const air_run *run, int64_t *out, air_error **err)
{
	int32_t per = air_accelerator_gpus_per_node(run->accel_type);

	if (!run->accel_type || run->accel_count <= 0)
		return air__failf(err, AIR_EPROTO, 0,
		                  "run %lld reports no compute; cannot tell how many nodes it used",
		                  (long long)run->id);
	if (per <= 0)
		return air__failf(err, AIR_EPROTO, 0,
		                  "run %lld uses accelerator type %s; its GPUs per node are unknown",
		                  (long long)run->id, run->accel_type);
	if (run->accel_count % per)
		return air__failf(err, AIR_EPROTO, 0,
		                  "run %lld has %lld accelerators, not a multiple of %d per node of %s",
		                  (long long)run->id, (long long)run->accel_count, per, run->accel_type);
	*out = run->accel_count / per;
	return AIR_OK;
}

/* Give up on node @n: its temporary file goes, its log file stays as it was. */
static void drop_node(dl_node *n)
{
	if (n->fp)
		fclose(n->fp);
	n->fp = NULL;
	if (n->tmp && n->at >= 0)
		unlinkat(n->at, base_name(n->tmp), 0);
	air__free(n->tmp);
	n->tmp = NULL;
}

/* A chunk in flight: where its bytes go. */
typedef struct dl_chunk {
	dl_node *n;
	long start;   /* offset of the chunk in the node's file */
} dl_chunk;

static int chunk_write(const void *data, size_t len, void *ud)
{
	dl_chunk *ch = ud;

	if (fwrite(data, 1, len, ch->n->fp) == len)
		return 0;
	ch->n->write_errno = errno ? errno : EIO;
	return -1;
}

/* The connection broke in the middle of the chunk: forget what it wrote. */
static int chunk_restart(void *ud)
{
	dl_chunk *ch = ud;
	FILE *fp = ch->n->fp;

	if (fflush(fp) != 0 || ftruncate(fileno(fp), ch->start) != 0 ||
	    fseek(fp, ch->start, SEEK_SET) != 0)
		return -1;
	return 0;
}

/* Download round @k for the nodes of a group that have a chunk k: sign each,
 * stream them in parallel into the nodes' files. A chunk that fails is a
 * failure of its node: no later chunk is fetched for it. */
static int download_round(air_client *c, const air__ctx *ctx, const char *mlflow_run,
                          dl_node **group, size_t ngroup, size_t k, air_error **err)
{
	air__signed sg[PARALLEL_NODES];
	air__http_req reqs[PARALLEL_NODES] = {{0}};
	air__http_resp resps[PARALLEL_NODES];
	dl_chunk chunks[PARALLEL_NODES];
	air_error *e = NULL;
	size_t m = 0;
	int rc = AIR_OK;
	bool first_failure = true;

	for (size_t g = 0; g < ngroup; g++) {
		dl_node *n = group[g];
		const char *path;

		if (!n->fp || k >= n->nchunks)
			continue;
		path = n->chunks[k].path;
		rc = air__mlflow_sign(c, ctx, mlflow_run, path, &sg[m], &e);
		if (rc == AIR_EINTERRUPTED || rc == AIR_ENOMEM)
			break;
		if (rc != AIR_OK) {
			note_error(n, "chunk %s: %s", path, e ? air_error_message(e) : air_strerror(rc));
			drop_node(n);
			air_error_free(e);
			e = NULL;
			rc = AIR_OK;
			continue;
		}
		chunks[m] = (dl_chunk){n, ftell(n->fp)};
		air__signed_request(&sg[m], &reqs[m]);
		reqs[m].sink = chunk_write;
		reqs[m].sink_reset = chunk_restart;
		reqs[m].sink_ud = &chunks[m];
		reqs[m].max_reply = AIR__LOGS_DOWNLOAD_CHUNK_MAX;
		resps[m] = (air__http_resp)AIR__HTTP_RESP_INIT;
		m++;
	}
	if (rc == AIR_OK && m) {
		rc = air__http_do_many(c, ctx, reqs, m, resps, &e);
		if (rc != AIR_EINTERRUPTED)
			rc = AIR_OK; /* per-chunk outcomes are read below */
	}
	for (size_t i = 0; i < m; i++) {
		dl_node *n = chunks[i].n;
		const char *path = n->chunks[k].path;
		long end = n->fp ? ftell(n->fp) : -1;

		if (rc == AIR_OK && resps[i].status >= 200 && resps[i].status < 300 && end >= 0) {
			n->bytes += end - chunks[i].start;
		} else if (rc == AIR_OK) {
			/* The batch's error is that of its first failed request. */
			const char *why = first_failure && e ? air_error_message(e) : NULL;

			first_failure = false;
			if (n->write_errno)
				note_error(n, "writing %s: %s", n->tmp, strerror(n->write_errno));
			else if (why)
				note_error(n, "chunk %s: %s", path, why);
			else if (resps[i].status)
				note_error(n, "chunk %s: HTTP %d", path, resps[i].status);
			else
				note_error(n, "chunk %s: the download failed", path);
			drop_node(n);
		}
		air__http_resp_clear(&resps[i]);
		air__signed_dispose(&sg[i]);
	}
	if (rc != AIR_OK)
		return e ? air__fail(err, e) : air__failf(err, rc, 0, "%s", air_strerror(rc));
	air_error_free(e);
	return AIR_OK;
}

/* A temporary file in the log file's directory, with the permissions a new
 * log file gets (0666 less the umask). */
static FILE *open_tmp(dl_node *n, air_error **err)
{
	for (int tries = 0; tries < 8; tries++) {
		char id[37];
		int fd;

		if (air__uuid4(id) != AIR_OK)
			return air__failf(err, AIR_EIO, 0, "no random bytes for a temporary file"), NULL;
		air__free(n->tmp);
		if (!(n->tmp = air__sprintf("%s.%.8s.part", n->final, id)))
			return air__oom(err), NULL;
		fd = openat(n->at, base_name(n->tmp), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC,
		            0666);
		if (fd >= 0) {
			FILE *fp = fdopen(fd, "wb");
			if (!fp) {
				close(fd);
				unlinkat(n->at, base_name(n->tmp), 0);
			}
			return fp;
		}
		if (errno != EEXIST)
			break;
	}
	air__free(n->tmp);
	n->tmp = NULL;
	return NULL;
}

/* Node @n is done (@ok: its group was not stopped): a complete download
 * replaces its log file; anything else leaves the log file as it was (and a
 * node without bytes writes none). */
static void finish_node(dl_node *n, bool ok)
{
	struct stat st;
	bool had_file = n->final && fstatat(n->at, base_name(n->final), &st, AT_SYMLINK_NOFOLLOW) == 0;

	if (n->fp && ok) {
		if (fflush(n->fp) != 0 || fsync(fileno(n->fp)) != 0)
			note_error(n, "writing %s: %s", n->tmp, strerror(errno));
		if (fclose(n->fp) != 0 && !n->error)
			note_error(n, "writing %s: %s", n->tmp, strerror(errno));
		n->fp = NULL;
		if (!n->error && n->bytes > 0) {
			if (renameat(n->at, base_name(n->tmp), n->at, base_name(n->final)) == 0) {
				n->path = n->final;
				n->final = NULL;
			} else {
				note_error(n, "cannot rename %s to %s: %s", n->tmp, n->final, strerror(errno));
			}
		}
	}
	drop_node(n);
	if (n->error && had_file)
		note_error(n, "%s was left as it was", n->final);
	air__free(n->final);
	n->final = NULL;
	air__mlflow_chunks_free(n->chunks, n->nchunks);
	n->chunks = NULL;
	n->nchunks = 0;
}

static int download_group(air_client *c, const air__ctx *ctx, const char *mlflow_run,
                          const char *dir, bool layout, int32_t attempt, dl_node **group,
                          size_t ngroup, air_error **err)
{
	size_t rounds = 0;
	int rc = AIR_OK;

	for (size_t g = 0; g < ngroup && rc == AIR_OK; g++) {
		dl_node *n = group[g];
		char *adir = air__mlflow_log_dir(layout, attempt, n->node);
		air_error *e = NULL;

		n->complete = true;
		if (!adir || !(n->final = air__sprintf("%s/logs/node_%d.log", dir, n->node))) {
			air__free(adir);
			rc = air__oom(err);
			break;
		}
		rc = air__mlflow_list_chunks(c, ctx, mlflow_run, adir, &n->chunks, &n->nchunks, &e);
		air__free(adir);
		if (rc == AIR_EINTERRUPTED || rc == AIR_ENOMEM) {
			rc = e ? air__fail(err, e) : air__failf(err, rc, 0, "%s", air_strerror(rc));
			break;
		}
		if (rc != AIR_OK) {
			note_error(n, "listing its chunks: %s", e ? air_error_message(e) : air_strerror(rc));
			air_error_free(e);
			rc = AIR_OK;
			continue;
		}
		if (!(n->fp = open_tmp(n, &e))) {
			if (e && air_error_code(e) == AIR_ENOMEM) {
				rc = air__fail(err, e);
				break;
			}
			note_error(n, "cannot create a temporary file next to %s: %s", n->final,
			           e ? air_error_message(e) : strerror(errno));
			air_error_free(e);
			e = NULL;
			continue;
		}
		rounds = n->nchunks > rounds ? n->nchunks : rounds;
	}
	/* Chunks of one node in ascending order, nodes of the group in parallel. */
	for (size_t k = 0; rc == AIR_OK && k < rounds; k++)
		rc = download_round(c, ctx, mlflow_run, group, ngroup, k, err);
	for (size_t g = 0; g < ngroup; g++)
		finish_node(group[g], rc == AIR_OK);
	return rc;
}

/* Every node failed and nothing was written: one error naming each failure. */
static int all_failed(const air_download_report *rep, air_error **err)
{
	air__buf b = AIR__BUF_INIT;
	int rc;

	air__buf_puts(&b, "no log file could be downloaded");
	for (size_t i = 0; i < rep->count; i++)
		if (rep->nodes[i].error)
			air__buf_printf(&b, "; node %d: %s", rep->nodes[i].node, rep->nodes[i].error);
	rc = air__failf(err, AIR_ESERVER, AIR_KIND_TRANSIENT, "%s", air__buf_cstr(&b));
	air__buf_dispose(&b);
	return rc;
}

static int run_download(air_client *c, const air__ctx *ctx, int64_t run_id, const char *dir,
                        const air_logs_options *o, air_download_report *rep, air_error **err)
{
	air_run *run = NULL;
	char *me = NULL, *logs_dir = NULL;
	int64_t nodes = 0;
	int at = -1;
	int32_t attempt = o->attempt < 0 ? 0 : o->attempt;
	bool any_file = false, any_error = false, layout;
	json_t *output;
	int rc = air__client_ensure_resolved(c, ctx, err);

	if (rc == AIR_OK)
		rc = air__client_user_name(c, ctx, &me, err);
	air__free(me);
	if (rc == AIR_OK)
		rc = air__run_fetch(c, ctx, run_id, &run, err);
	/* docs/runs-and-logs.md#downloads: the attempt is checked before the download starts. */
	if (rc == AIR_OK)
		rc = air__logs_check_attempt(run, o->attempt, err);
	if (rc == AIR_OK)
		rc = air__logs_node_count(run, &nodes, err);
	if (rc == AIR_OK)
		rc = air__logs_check_node(run, o->node, err);
	if (rc == AIR_OK) {
		rep->count = o->node >= 0 ? 1 : (size_t)nodes;
		rep->nodes = air__calloc(rep->count, sizeof(*rep->nodes));
		if (!rep->nodes)
			rc = air__oom(err);
		for (size_t i = 0; rc == AIR_OK && i < rep->count; i++) {
			rep->nodes[i].node = o->node >= 0 ? o->node : (int32_t)i;
			rep->nodes[i].at = -1;
		}
	}
	if (rc != AIR_OK) {
		air_run_free(run);
		return rc;
	}
	rep->terminal = run->terminal;
	rep->succeeded = run->succeeded;
	if (!(rep->state = air__strdup(run->state))) {
		air_run_free(run);
		return air__oom(err);
	}
	output = air__run_fetch_output(c, ctx, run->task_run_id);
	rc = air__run_set_output(run, output, air__client_host(c)) == AIR_OK ? AIR_OK : air__oom(err);
	json_decref(output);
	if (rc == AIR_OK && !run->mlflow_run_id) {
		rep->no_logs = air__no_logs_message(run);
		rc = rep->no_logs ? AIR_OK : air__oom(err);
		air_run_free(run);
		return rc;
	}
	logs_dir = air__sprintf("%s/logs", dir);
	if (rc == AIR_OK && !logs_dir)
		rc = air__oom(err);
	if (rc == AIR_OK)
		rc = open_logs_dir(logs_dir, &at, err);
	for (size_t i = 0; rc == AIR_OK && i < rep->count; i++)
		rep->nodes[i].at = at;
	if (rc == AIR_OK) {
		layout = air__mlflow_attempt_layout(c, ctx, run->mlflow_run_id, attempt);
		for (size_t i = 0; rc == AIR_OK && i < rep->count; i += PARALLEL_NODES) {
			dl_node *group[PARALLEL_NODES];
			size_t ng = rep->count - i < PARALLEL_NODES ? rep->count - i : PARALLEL_NODES;

			for (size_t g = 0; g < ng; g++)
				group[g] = &rep->nodes[i + g];
			rc = download_group(c, ctx, run->mlflow_run_id, dir, layout, attempt, group, ng,
			                    err);
		}
	}
	for (size_t i = 0; rc == AIR_OK && i < rep->count; i++) {
		any_file = any_file || rep->nodes[i].path;
		any_error = any_error || rep->nodes[i].error;
	}
	if (rc == AIR_OK && !any_file && any_error)
		rc = all_failed(rep, err);
	else if (rc == AIR_OK && !any_file)
		rc = (rep->no_logs = air__no_logs_message(run)) ? AIR_OK : air__oom(err);
	if (at >= 0)
		close(at);
	for (size_t i = 0; i < rep->count; i++)
		rep->nodes[i].at = -1; /* closed: nothing more is made there */
	air__free(logs_dir);
	air_run_free(run);
	return rc;
}

int air_client_download_logs(air_client *client, int64_t run_id, const char *dir,
                             const air_logs_options *opts, air_download_report **out,
                             air_error **err)
{
	air__fsize_guard_t fsize;
	air_logs_options o;
	air__ctx ctx;
	air_download_report *rep;
	int rc;

	if (!out)
		return air__failf(err, AIR_EINVAL, 0, "air_client_download_logs: out is NULL");
	*out = NULL;
	if (!client)
		return air__failf(err, AIR_EINVAL, 0, "air_client_download_logs: client is NULL");
	if ((rc = air__check_run_id(run_id, err)) != AIR_OK)
		return rc;
	if (air__is_blank(dir))
		return air__fail(err, air__error_set_field(
			air__error_new(AIR_EINVAL, 0, "the download directory is empty"), "dir"));
	if (opts)
		o = *opts;
	else
		air__logs_options_defaults(&o);
	air__client_ctx(client, &o.call, &ctx);
	rep = air__calloc(1, sizeof(*rep));
	if (!rep)
		return air__oom(err);
	air__fsize_guard(&fsize); /* a log past the file size limit: EFBIG, not SIGXFSZ */
	rc = run_download(client, &ctx, run_id, dir, &o, rep, err);
	air__fsize_unguard(&fsize);
	if (rc != AIR_OK) {
		air_download_report_free(rep);
		return rc;
	}
	*out = rep;
	return AIR_OK;
}

size_t air_download_report_count(const air_download_report *rep) { return rep ? rep->count : 0; }

static const dl_node *dl_entry(const air_download_report *rep, size_t i)
{
	return rep && i < rep->count ? &rep->nodes[i] : NULL;
}

int32_t air_download_report_node(const air_download_report *rep, size_t i)
{
	const dl_node *n = dl_entry(rep, i);
	return n ? n->node : -1;
}

const char *air_download_report_path(const air_download_report *rep, size_t i)
{
	const dl_node *n = dl_entry(rep, i);
	return n ? n->path : NULL;
}

int64_t air_download_report_bytes(const air_download_report *rep, size_t i)
{
	const dl_node *n = dl_entry(rep, i);
	return n ? n->bytes : 0;
}

int32_t air_download_report_complete(const air_download_report *rep, size_t i)
{
	const dl_node *n = dl_entry(rep, i);
	return n && n->complete;
}

const char *air_download_report_error(const air_download_report *rep, size_t i)
{
	const dl_node *n = dl_entry(rep, i);
	return n ? n->error : NULL;
}

const char *air_download_report_no_logs_message(const air_download_report *rep)
{
	return rep ? rep->no_logs : NULL;
}

const char *air_download_report_state_name(const air_download_report *rep)
{
	return rep ? rep->state : NULL;
}

int32_t air_download_report_terminal(const air_download_report *rep)
{
	return rep && rep->terminal;
}

int32_t air_download_report_succeeded(const air_download_report *rep)
{
	return rep && rep->succeeded;
}

int32_t air_download_report_state(const air_download_report *rep)
{
	return rep ? air__state_from_name(rep->state) : AIR_STATE_UNKNOWN;
}

void air_download_report_free(air_download_report *rep)
{
	if (!rep)
		return;
	air__free(rep->state);
	for (size_t i = 0; i < rep->count; i++) {
		dl_node *n = &rep->nodes[i];
		drop_node(n);
		air__mlflow_chunks_free(n->chunks, n->nchunks);
		air__free(n->final);
		air__free(n->path);
		air__free(n->error);
	}
	air__free(rep->nodes);
	air__free(rep->no_logs);
	air__free(rep);
}
