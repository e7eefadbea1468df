/*
 * supervisor.c: one local run from PENDING to its end, as the platform
 * runs it: the code snapshot extracted, then attempts until one succeeds,
 * is canceled, or the retries are used up. An attempt starts every node
 * (bash command.sh with the platform's environment contract), writes their
 * output to the node logs, and ends when all nodes have exited: a node
 * that fails stops the others (the attempt failed), as do a cancel request
 * (the "cancel" file), a stop signal and the attempt's timeout. Then what the
 * nodes left behind outside their process groups is ended too (the
 * supervisor is their subreaper: node.c). A failed attempt is retried after
 * a back-off (1 s, doubling, at most a minute). Every change is written to
 * status.json at once (the last one synced to disk, the others only
 * renamed into place); a file that cannot be written (a full disk) is named
 * in the run's final message, which the space kept in status.reserve lets
 * the supervisor write.
 */
#include "local/supervisor.h"

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

extern char **environ;

#define POLL_MS 200
#define READ_CHUNK 65536
/* The most a node's output is read in one turn of the wait: a node that
 * writes faster than its log is written still leaves the other nodes, the
 * exits, a cancel and the timeout their turn. */
#define READ_TURN_CHUNKS 16
#define READ_LAST_CHUNKS 1024
/* The longest back-off between attempts, in (local) seconds. */
#define BACKOFF_CAP_S 60

/* O_UNRECORDED: the run's state could not be recorded, no node started. */
typedef enum outcome { O_SUCCESS, O_FAILED, O_TIMEDOUT, O_CANCELED, O_UNRECORDED } outcome;

#define UNRECORDED "the local supervisor did not start the run: it cannot record its state"

static const char *const result_name[] = {"SUCCESS", "FAILED", "TIMEDOUT", "CANCELED"};

/* Variables of the platform's contract: never inherited from this machine. */
static const char *const contract[] = {
	"CODE_SOURCE_PATH", "HYPERPARAMETERS_PATH", "MASTER_ADDR", "MASTER_PORT", "NUM_NODES",
	"NODE_RANK", "WORLD_SIZE", "LOCAL_WORLD_SIZE", "MLFLOW_RUN_ID", "CUDA_VISIBLE_DEVICES",
	"MLFLOW_TRACKING_URI", "MLFLOW_EXPERIMENT_ID",
};

/* What the submitter's environment holds that a node never gets: its
 * Databricks credentials, and the file of every local secret. */
static const char *const withheld[] = {
	"DATABRICKS_TOKEN", "DATABRICKS_PASSWORD", "DATABRICKS_CLIENT_SECRET",
	AIR__LOCAL_SECRETS_ENV,
};

typedef struct node_rt {
	pid_t guard;         /* the node's process group; 0 once reaped */
	int out;             /* read end of its output, -1 once closed */
	int log;             /* its log file */
	char *log_path;
	char **env, *cwd;    /* until its guard is forked */
	int err;             /* why it cannot be started (errno; 0: it can), once made ready */
	air__lwriter w;
	int code;            /* exit status once reaped */
} node_rt;

typedef struct sup {
	int64_t id;
	char *dir;           /* the run's folder */
	char *tracking_uri;  /* file://<state>/mlruns */
	json_t *rec, *status;
	const json_t *secrets;
	air__lredact *redact;
	bool reserve;        /* status.reserve is kept */
	bool recorded;       /* a status.json of this supervisor was saved */
	air__buf trouble;    /* the first file that could not be written, for the final message */
	int wake;
	volatile sig_atomic_t *stop_signal;
	int64_t nodes, per_node, accel_count, max_retries, timeout_ms;
	bool retry_on_timeout;
	const char *extractor; /* air-local-extract */
	char *code_path;     /* $CODE_SOURCE_PATH, or NULL */
	char *hyper;         /* $HYPERPARAMETERS_PATH, or NULL */
	char *script;
	const char *shell;
	json_t *env_vars;    /* [{"name", "value"}] */
	bool look_for_gpus;  /* nvidia-smi is there: air__lgpus_slow() */
	int32_t *gpus;
	size_t ngpus;
} sup;

/* ---- status ------------------------------------------------------------------------- */

static void set_str(json_t *o, const char *key, const char *fmt, ...) AIR__PRINTF(3, 4);
static void set_str(json_t *o, const char *key, const char *fmt, ...)
{
	va_list ap;
	char *v;

	va_start(ap, fmt);
	v = air__vsprintf(fmt, ap);
	va_end(ap);
	if (v)
		air__json_set_str(o, key, v);
	air__free(v);
}

/* Remember a storage problem for the run's final message (the first one). */
static void trouble(sup *s, const char *fmt, ...) AIR__PRINTF(2, 3);
static void trouble(sup *s, const char *fmt, ...)
{
	va_list ap;

	if (s->trouble.len > 0)
		return;
	va_start(ap, fmt);
	air__buf_vprintf(&s->trouble, fmt, ap);
	va_end(ap);
}

/* Write status.json. Only the last one is @durable: one written during the
 * run is replaced by the next, and a machine that crashed has ended the run
 * anyway (docs/local.md, "Crashes and durability"). */
static bool save(sup *s, bool durable)
{
	int e;

	if (air__lstatus_write(s->dir, s->status, durable) == 0) {
		s->recorded = true;
		return true;
	}
	e = errno;
	trouble(s, "cannot write %s/status.json: %s", s->dir, strerror(e));
	fprintf(stderr, "air-local-supervisor: run %lld: cannot write status.json: %s\n",
	        (long long)s->id, strerror(e));
	errno = e;
	return false;
}

/* Keep some space for the last status.json, should the disk fill up: the
 * reserve the submission made with the run's folder (made here when it is
 * missing). */
static void keep_reserve(sup *s)
{
	char *path = air__lpath(s->dir, "status.reserve");

	s->reserve = path && air__lreserve(path, AIR__LOCAL_RESERVE_BYTES) == 0;
	air__free(path);
}

/* Give the reserve back (also one that was not kept: the run had ended). */
static void release_reserve(sup *s)
{
	air__lreserve_drop(s->dir);
	s->reserve = false;
}

/* End the run. Its message also names a file that could not be written; a
 * full disk gets the reserved space back for this last write. */
static void finish(sup *s, const char *state, const char *result, const char *message)
{
	/* The MLflow run first: whoever sees the run ended sees it there too.
	 * Made first if it is not there yet (a run that ends before its nodes
	 * start): the submission's, made later, cannot replace it. */
	air__lmlruns_create(s->dir);
	air__lmlruns_finish(s->dir, result);
	for (int tries = 0; tries < 2; tries++) {
		const char *m = message ? message : "";
		char *full = NULL;

		if (s->trouble.len > 0 && !strstr(m, air__buf_cstr(&s->trouble)))
			full = *m ? air__sprintf("%s; %s", m, air__buf_cstr(&s->trouble))
			          : air__strdup(air__buf_cstr(&s->trouble));
		air__lstatus_finish(s->status, state, result, full ? full : m);
		air__free(full);
		if (save(s, true) || !s->reserve || (errno != ENOSPC && errno != EDQUOT))
			break;
		release_reserve(s);
	}
}

static bool cancel_requested(const sup *s)
{
	char *flag = air__lpath(s->dir, "cancel");
	bool yes = flag && air__lexists(flag);

	air__free(flag);
	return yes;
}

/* ---- preparation --------------------------------------------------------------------- */

static int64_t minute_ms(void)
{
	const char *v = getenv(AIR__LOCAL_MINUTE_ENV);
	int64_t ms;

	return v && air__parse_int64(v, &ms) && ms > 0 ? ms : 60000;
}

/* Extract the code snapshot; false (the run has failed) when it cannot be. */
static bool prepare_code(sup *s)
{
	const char *archive = air__json_str(s->rec, "code_archive");
	char *dest, *top = NULL, *cancel;
	air__buf why = AIR__BUF_INIT;
	int rc;

	if (!archive)
		return true;
	if (!(dest = air__lpath(s->dir, "code")))
		return false;
	cancel = air__lpath(s->dir, "cancel");
	rc = cancel ? air__lextract_with(s->extractor, archive, dest, cancel, s->wake,
	                                 s->stop_signal, &top, &why)
	            : AIR_ENOMEM;
	if (rc == AIR_OK)
		s->code_path = top ? air__lpath(dest, "%s", top) : air__strdup(dest);
	else if (*s->stop_signal)
		finish(s, AIR__L_TERMINATED, "CANCELED", "the local supervisor was stopped by a signal");
	else if (cancel_requested(s))
		finish(s, AIR__L_TERMINATED, "CANCELED", "the run was canceled");
	else
		finish(s, AIR__L_TERMINATED, "FAILED",
		       *air__buf_cstr(&why) ? air__buf_cstr(&why) : "cannot extract the code snapshot");
	air__free(top);
	air__free(cancel);
	air__free(dest);
	air__buf_dispose(&why);
	return rc == AIR_OK;
}

static bool prepare(sup *s)
{
	char *hyper = air__lpath(s->dir, "launch/hyperparameters.yaml");
	char *vars = air__lpath(s->dir, "launch/env_vars.json");

	s->nodes = air__json_int64_or(s->rec, "nodes", 1);
	s->per_node = air__json_int64_or(s->rec, "gpus_per_node", 1);
	s->accel_count = air__json_int64_or(s->rec, "accelerator_count", s->nodes * s->per_node);
	s->max_retries = air__json_int64_or(s->rec, "max_retries", 0);
	s->retry_on_timeout = json_is_true(json_object_get(s->rec, "retry_on_timeout"));
	s->timeout_ms = air__json_int64_or(s->rec, "timeout_seconds", 0) * minute_ms() / 60;
	s->script = air__lpath(s->dir, "launch/command.sh");
	s->shell = access("/bin/bash", X_OK) == 0 ? "/bin/bash" : "/bin/sh";
	if (hyper && air__lexists(hyper)) {
		s->hyper = hyper;
		hyper = NULL;
	}
	s->env_vars = vars ? air__lread_json(vars) : NULL;
	air__free(hyper);
	air__free(vars);
	if (!s->script)
		return false;
	for (int64_t n = 0; n < s->nodes; n++) {
		char *work = air__lnode_work(s->dir, n);
		int rc = work ? air__lmkdirs(work, 0700) : -1;
		air__free(work);
		if (rc != 0) {
			finish(s, AIR__L_INTERNAL_ERROR, "FAILED", "cannot create the nodes' working directories");
			return false;
		}
	}
	s->gpus = s->look_for_gpus ? air__lgpus(NULL, &s->ngpus) : NULL;
	return prepare_code(s);
}

/* ---- a node's environment ------------------------------------------------------------- */

static bool named(const char *assignment, const char *name)
{
	size_t n = strlen(name);

	return !strncmp(assignment, name, n) && assignment[n] == '=';
}

static bool dropped(const sup *s, const char *assignment)
{
	const json_t *v;
	const char *name;
	size_t i;

	for (i = 0; i < AIR__ARRAY_SIZE(contract); i++)
		if (named(assignment, contract[i]))
			return true;
	for (i = 0; i < AIR__ARRAY_SIZE(withheld); i++)
		if (named(assignment, withheld[i]))
			return true;
	json_array_foreach(s->env_vars, i, v)
		if ((name = air__json_str(v, "name")) && named(assignment, name))
			return true;
	json_object_foreach((json_t *)s->secrets, name, v)
		if (named(assignment, name))
			return true;
	return false;
}

static void push(char ***env, size_t *n, char *entry)
{
	char **more = entry ? air__realloc(*env, (*n + 2) * sizeof(**env)) : NULL;

	if (!more) {
		air__free(entry);
		return;
	}
	*env = more;
	(*env)[(*n)++] = entry;
	(*env)[*n] = NULL;
}

static void free_env(char **env)
{
	for (char **p = env; p && *p; p++) {
		explicit_bzero(*p, strlen(*p));
		air__free(*p);
	}
	air__free(env);
}

/* This machine's environment, then the contract, env_variables and secrets. */
static char **node_env(const sup *s, int64_t rank, int port, const char *cuda)
{
	char **env = air__calloc(1, sizeof(*env));
	size_t n = 0, i;
	const char *name;
	const json_t *v;

	for (char **e = environ; env && e && *e; e++)
		if (!dropped(s, *e))
			push(&env, &n, air__strdup(*e));
	if (s->code_path)
		push(&env, &n, air__sprintf("CODE_SOURCE_PATH=%s", s->code_path));
	if (s->hyper)
		push(&env, &n, air__sprintf("HYPERPARAMETERS_PATH=%s", s->hyper));
	push(&env, &n, air__strdup("MASTER_ADDR=127.0.0.1"));
	push(&env, &n, air__sprintf("MASTER_PORT=%d", port));
	push(&env, &n, air__sprintf("NUM_NODES=%lld", (long long)s->nodes));
	push(&env, &n, air__sprintf("NODE_RANK=%lld", (long long)rank));
	push(&env, &n, air__sprintf("WORLD_SIZE=%lld", (long long)s->accel_count));
	push(&env, &n, air__sprintf("LOCAL_WORLD_SIZE=%lld", (long long)s->per_node));
	push(&env, &n, air__sprintf("MLFLOW_RUN_ID=%s", air__json_str(s->rec, "mlflow_run_id")));
	push(&env, &n, air__sprintf("MLFLOW_EXPERIMENT_ID=%s",
	                            air__json_str(s->rec, "mlflow_experiment_id")));
	push(&env, &n, air__sprintf("MLFLOW_TRACKING_URI=%s", s->tracking_uri));
	push(&env, &n, air__sprintf("CUDA_VISIBLE_DEVICES=%s", cuda));
	json_array_foreach(s->env_vars, i, v)
		if (air__json_nonempty(v, "name") && air__json_str(v, "value"))
			push(&env, &n, air__sprintf("%s=%s", air__json_str(v, "name"),
			                            air__json_str(v, "value")));
	json_object_foreach((json_t *)s->secrets, name, v)
		push(&env, &n, air__sprintf("%s=%s", name, json_string_value(v)));
	return env;
}

/* The GPUs of node @rank: its share of this machine's, "" when none is left. */
static void node_gpus(const sup *s, int64_t rank, air__buf *out)
{
	for (int64_t k = 0; k < s->per_node; k++) {
		int64_t i = rank * s->per_node + k;
		if (i < (int64_t)s->ngpus)
			air__buf_printf(out, "%s%d", out->len ? "," : "", (int)s->gpus[i]);
	}
}

/* What the platform would have and this machine does not, in the node's log. */
static void notes(const sup *s, node_rt *nd, const char *cuda)
{
	const json_t *deps = json_object_get(s->rec, "dependencies"), *d;
	const char *image = air__json_str(s->rec, "image");
	air__buf list = AIR__BUF_INIT;
	size_t i;

	if ((int64_t)s->ngpus < s->nodes * s->per_node)
		air__lwriter_note(&nd->w, "warning: the workload asks for %lld GPU(s) (%lld node(s) of %s); "
		                  "this machine has %zu: CUDA_VISIBLE_DEVICES=\"%s\" on this node",
		                  (long long)(s->nodes * s->per_node), (long long)s->nodes,
		                  air__json_str(s->rec, "accelerator_type"), s->ngpus, cuda);
	json_array_foreach(deps, i, d)
		if (json_is_string(d))
			air__buf_printf(&list, "%s%s", i ? ", " : "", json_string_value(d));
	if (list.len)
		air__lwriter_note(&nd->w, "environment.dependencies are not installed on a local run "
		                  "(the command uses this machine's environment): %s", list.ptr);
	if (image)
		air__lwriter_note(&nd->w, "environment.unity_catalog_image %s is not used on a local run",
		                  image);
	air__buf_dispose(&list);
}

/* ---- an attempt ------------------------------------------------------------------------ */

/* A TCP port free on the loopback interface now (the rendezvous port). */
static int free_port(void)
{
	struct sockaddr_in a;
	socklen_t len = sizeof(a);
	int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0), port = 29500;

	memset(&a, 0, sizeof(a));
	a.sin_family = AF_INET;
	a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	if (fd >= 0 && bind(fd, (struct sockaddr *)&a, sizeof(a)) == 0 &&
	    getsockname(fd, (struct sockaddr *)&a, &len) == 0)
		port = ntohs(a.sin_port);
	if (fd >= 0)
		close(fd);
	return port;
}

typedef struct attempt {
	sup *s;
	node_rt *nd;
	int64_t alive;
	outcome result;
	bool stopping, hard;
	int64_t kill_at, deadline;
	air__buf msg;
} attempt;

/* SIGKILL goes to each node's group; any other signal to its guard, which
 * passes it on to the group once the command runs (node.c). */
static void signal_nodes(attempt *t, int sig)
{
	for (int64_t n = 0; n < t->s->nodes; n++)
		if (t->nd[n].guard > 0)
			kill(sig == SIGKILL ? -t->nd[n].guard : t->nd[n].guard, sig);
}

/* Stop every node (SIGTERM now, SIGKILL after the grace period). */
static void stop(attempt *t, outcome why, bool terminating, const char *fmt, ...)
	AIR__PRINTF(4, 5);
static void stop(attempt *t, outcome why, bool terminating, const char *fmt, ...)
{
	va_list ap;

	t->stopping = true;
	t->result = why;
	va_start(ap, fmt);
	air__buf_vprintf(&t->msg, fmt, ap);
	va_end(ap);
	t->kill_at = air__mono_ms() + AIR__LOCAL_KILL_GRACE_MS;
	signal_nodes(t, SIGTERM);
	if (terminating) {
		air__json_set_str(t->s->status, "state", AIR__L_TERMINATING);
		save(t->s, false);
	}
}

/* Read what a node wrote, until nothing is waiting or at most @chunks
 * reads; the end of its output closes it. */
static void read_output(node_rt *nd, size_t chunks)
{
	char buf[READ_CHUNK];
	ssize_t r;

	if (nd->out < 0)
		return;
	while ((r = read(nd->out, buf, sizeof(buf))) != 0) {
		if (r < 0) {
			if (errno == EINTR)
				continue;
			if (errno == EAGAIN)
				return;
			break;
		}
		air__lwriter_feed(&nd->w, buf, (size_t)r);
		if ((size_t)r < sizeof(buf) || --chunks == 0)
			return;
	}
	close(nd->out); /* end of the output (or a read error) */
	nd->out = -1;
}

/* Reap the guards that have exited; a failed node fails the attempt. */
static void reap(attempt *t)
{
	siginfo_t si;

	for (;;) {
		int st, code;
		pid_t pid;

		memset(&si, 0, sizeof(si));
		if (waitid(P_ALL, 0, &si, WEXITED | WNOHANG | WNOWAIT) != 0 || si.si_pid == 0)
			return;
		pid = si.si_pid;
		code = si.si_code == CLD_EXITED ? si.si_status : 128 + si.si_status;
		for (int64_t n = 0; n < t->s->nodes; n++) {
			node_rt *nd = &t->nd[n];
			if (nd->guard != pid)
				continue;
			/* The guard is a zombie: its group id cannot be reused yet. */
			kill(-pid, SIGKILL);
			nd->guard = 0;
			nd->code = code;
			t->alive--;
			if (code != 0 && !t->stopping)
				stop(t, O_FAILED, false, "node %lld exited with status %d", (long long)n, code);
		}
		/* A guard, or a process a node left behind (ended with the attempt). */
		while (waitpid(pid, &st, 0) < 0 && errno == EINTR)
			;
	}
}

/* A stop signal or a cancel: checked before the nodes that exited are
 * reaped, so that one asked for as a node fails ends the run CANCELED. */
static void check_cancel(attempt *t)
{
	if (t->stopping)
		return;
	if (*t->s->stop_signal)
		stop(t, O_CANCELED, true, "the local supervisor was stopped by signal %d",
		     (int)*t->s->stop_signal);
	else if (cancel_requested(t->s))
		stop(t, O_CANCELED, true, "the run was canceled");
}

/* The timeout, after the reaping: an attempt whose nodes have all exited
 * has ended however late; and the SIGKILL after the grace period. */
static void check_time(attempt *t)
{
	int64_t now = air__mono_ms();

	if (!t->stopping && t->alive > 0 && t->deadline && now >= t->deadline)
		stop(t, O_TIMEDOUT, true, "the attempt ran longer than timeout_minutes (%lld min)",
		     (long long)(air__json_int64_or(t->s->rec, "timeout_seconds", 0) / 60));
	if (t->stopping && !t->hard && now >= t->kill_at) {
		signal_nodes(t, SIGKILL);
		t->hard = true;
	}
}

static int poll_timeout(const attempt *t)
{
	int64_t now = air__mono_ms(), ms = POLL_MS;

	if (!t->stopping && t->deadline && t->deadline - now < ms)
		ms = t->deadline - now;
	if (t->stopping && !t->hard && t->kill_at - now < ms)
		ms = t->kill_at - now;
	return ms > 0 ? (int)ms : 0;
}

static void wait_nodes(attempt *t)
{
	struct pollfd *fds = air__calloc((size_t)t->s->nodes + 1, sizeof(*fds));

	while (fds && t->alive > 0) {
		size_t k = 0;

		fds[k++] = (struct pollfd){t->s->wake, POLLIN, 0};
		for (int64_t n = 0; n < t->s->nodes; n++)
			if (t->nd[n].out >= 0)
				fds[k++] = (struct pollfd){t->nd[n].out, POLLIN, 0};
		if (poll(fds, k, poll_timeout(t)) > 0) {
			air__lwake_drain(t->s->wake);
			for (int64_t n = 0; n < t->s->nodes; n++)
				read_output(&t->nd[n], READ_TURN_CHUNKS);
		}
		check_cancel(t);
		reap(t);
		check_time(t);
	}
	air__free(fds);
}

/* Everything node @n of attempt @a needs before its guard is forked: its
 * log (with the notes about this machine) and environment. All nodes are
 * made ready first and then started one right after the other, so that
 * none waits for the files of the next. */
static void ready_node(attempt *t, int64_t n, int32_t a, int port)
{
	sup *s = t->s;
	node_rt *nd = &t->nd[n];
	air__buf cuda = AIR__BUF_INIT;

	nd->log_path = air__lnode_log(s->dir, a, n);
	nd->log = nd->log_path ? open(nd->log_path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0600)
	                       : -1;
	nd->err = nd->log >= 0 ? 0 : nd->log_path ? errno : ENOMEM;
	air__lwriter_init(&nd->w, nd->log, s->redact);
	node_gpus(s, n, &cuda);
	notes(s, nd, air__buf_cstr(&cuda));
	nd->env = node_env(s, n, port, air__buf_cstr(&cuda));
	nd->cwd = air__lnode_work(s->dir, n);
	if (nd->err == 0 && (!nd->env || !nd->cwd))
		nd->err = ENOMEM;
	air__buf_dispose(&cuda);
}

/* Fork the guard of node @n, made ready by ready_node(), with its output
 * pipe (made here: a node holds two descriptors, limits.c); false when it
 * could not be started. Once the attempt is stopping (an earlier node
 * could not be started) it is not started, and its log says so. */
static bool start_node(attempt *t, int64_t n)
{
	node_rt *nd = &t->nd[n];
	int p[2], e = nd->err;

	if (t->stopping) {
		nd->code = 255;
		air__lwriter_note(&nd->w, "node %lld was not started: an earlier node failed to start",
		                  (long long)n);
	} else {
		if (e == 0 && pipe2(p, O_CLOEXEC) != 0) {
			e = errno;
		} else if (e == 0) {
			air__lnode_spec spec = {t->s->shell, t->s->script, nd->cwd, nd->env, p[1]};

			nd->guard = air__lnode_start(&spec);
			e = nd->guard > 0 ? 0 : errno;
			close(p[1]);
			nd->out = p[0];
			fcntl(p[0], F_SETFL, O_NONBLOCK);
		}
		if (e == 0) {
			t->alive++;
		} else {
			nd->guard = 0;
			nd->code = 255;
			air__lwriter_note(&nd->w, "cannot start node %lld: %s", (long long)n, strerror(e));
		}
	}
	free_env(nd->env);
	nd->env = NULL;
	air__free(nd->cwd);
	nd->cwd = NULL;
	return t->stopping || e == 0;
}

/* After the nodes: what they left behind is ended, the rest of their
 * output read, their logs completed; a log that lost output says so in the
 * attempt's message (and the run's). */
static void end_nodes(attempt *t)
{
	sup *s = t->s;
	bool told = false;

	air__lnode_end_strays(s->wake, AIR__LOCAL_KILL_GRACE_MS);
	for (int64_t n = 0; n < s->nodes; n++) {
		node_rt *nd = &t->nd[n];

		/* What the pipe holds (a pipe holds at most a few MiB): a writer
		 * still going on past that is not one of ours. */
		read_output(nd, READ_LAST_CHUNKS);
		if (nd->out >= 0)
			close(nd->out); /* held open by a process that is not ours any more */
		air__lwriter_flush(&nd->w);
		air__lwriter_finish(&nd->w, nd->log_path);
		if (nd->w.error && !told) {
			air__buf_printf(&t->msg, "%soutput of node %lld was lost: cannot write %s: %s",
			                t->msg.len ? "; " : "", (long long)n, nd->log_path,
			                strerror(nd->w.error));
			trouble(s, "output of node %lld was lost: cannot write %s: %s", (long long)n,
			        nd->log_path, strerror(nd->w.error));
			told = true;
		}
		air__lwriter_dispose(&nd->w);
		if (nd->log >= 0)
			close(nd->log);
		air__free(nd->log_path);
	}
}

static outcome run_attempt(sup *s, int32_t a, air__buf *msg)
{
	attempt t = {s, air__calloc((size_t)s->nodes, sizeof(node_rt)), 0, O_SUCCESS, false, false,
	             0, 0, AIR__BUF_INIT};
	json_t *entry = json_pack("{s:I, s:I, s:s, s:s, s:[]}", "start_time",
	                          (json_int_t)air__now_ms(), "end_time", (json_int_t)0, "state",
	                          AIR__L_RUNNING, "message", "", "exit_codes");
	char *logs = air__sprintf("%s/logs/attempt_%d", s->dir, (int)a);
	int port = free_port();
	bool no_logs = logs && air__lmkdirs(logs, 0700) != 0;
	/* The state as it was, should this first one not be recorded. */
	json_t *unrecorded = s->recorded ? NULL : json_deep_copy(s->status);

	if (no_logs)
		trouble(s, "cannot create %s: %s", logs, strerror(errno));
	if (!t.nd || !entry || !logs || no_logs ||
	    air__lstatus_add_attempt(s->status, json_incref(entry), a) != AIR_OK) {
		air__buf_puts(msg, "the local runtime could not start the attempt");
		air__free(t.nd);
		json_decref(entry);
		json_decref(unrecorded);
		air__free(logs);
		return O_FAILED;
	}
	air__json_set_str(s->status, "state", AIR__L_RUNNING);
	if (air__json_int64_or(s->status, "start_time", 0) == 0)
		air__json_set_int(s->status, "start_time", air__now_ms());
	set_str(s->status, "status_message", "STATUS:Running on %lld node(s), attempt %d",
	        (long long)s->nodes, (int)a + 1);
	/* No node starts in a run whose state was never recorded: it ends
	 * without an attempt. */
	if (!save(s, false) && !s->recorded) {
		if (unrecorded) {
			json_decref(s->status);
			s->status = unrecorded;
		}
		air__buf_puts(msg, UNRECORDED);
		air__free(t.nd);
		json_decref(entry);
		air__free(logs);
		return O_UNRECORDED;
	}
	json_decref(unrecorded);
	/* The workload logs into the run's MLflow run: made by the submission
	 * while this program loaded, else now. */
	air__lmlruns_create(s->dir);
	for (int64_t n = 0; n < s->nodes; n++)
		t.nd[n].out = -1;
	for (int64_t n = 0; n < s->nodes; n++)
		ready_node(&t, n, a, port);
	for (int64_t n = 0; n < s->nodes; n++)
		if (!start_node(&t, n))
			stop(&t, O_FAILED, false, "node %lld could not be started", (long long)n);
	t.deadline = s->timeout_ms > 0 ? air__mono_ms() + s->timeout_ms : 0;
	wait_nodes(&t);
	end_nodes(&t);
	for (int64_t n = 0; n < s->nodes; n++)
		json_array_append_new(json_object_get(entry, "exit_codes"), json_integer(t.nd[n].code));
	air__json_set_int(entry, "end_time", air__lend_ms());
	air__json_set_str(entry, "state", AIR__L_TERMINATED);
	air__json_set_str(entry, "result", result_name[t.result]);
	air__json_set_str(entry, "message", air__buf_cstr(&t.msg));
	air__buf_puts(msg, air__buf_cstr(&t.msg));
	json_decref(entry);
	air__buf_dispose(&t.msg);
	air__free(t.nd);
	air__free(logs);
	return t.result;
}

/* ---- the run ------------------------------------------------------------------------------ */

/* The back-off before attempt @a (>= 1), in seconds: 1, 2, 4, ..., at most
 * BACKOFF_CAP_S. */
static int64_t backoff_s(int32_t a)
{
	int64_t s = a > 6 ? BACKOFF_CAP_S : (int64_t)1 << (a - 1);

	return s < BACKOFF_CAP_S ? s : BACKOFF_CAP_S;
}

/* Wait @ms before the next attempt; false when the run is stopped meanwhile. */
static bool pause_before_retry(sup *s, int64_t ms)
{
	int64_t end = air__mono_ms() + ms;

	for (;;) {
		struct pollfd p = {s->wake, POLLIN, 0};
		int64_t left = end - air__mono_ms();

		if (*s->stop_signal || cancel_requested(s))
			return false;
		if (left <= 0)
			return true;
		if (poll(&p, 1, (int)(left < POLL_MS ? left : POLL_MS)) > 0)
			air__lwake_drain(s->wake);
	}
}

static void run_attempts(sup *s)
{
	for (int32_t a = 0;; a++) {
		air__buf msg = AIR__BUF_INIT;
		outcome o;
		bool retry;

		if (*s->stop_signal || cancel_requested(s)) {
			finish(s, AIR__L_TERMINATED, "CANCELED", *s->stop_signal
			       ? "the local supervisor was stopped by a signal" : "the run was canceled");
			return;
		}
		o = run_attempt(s, a, &msg);
		if (o == O_UNRECORDED) {
			finish(s, AIR__L_INTERNAL_ERROR, "FAILED", air__buf_cstr(&msg));
			air__buf_dispose(&msg);
			return;
		}
		retry = (o == O_FAILED || (o == O_TIMEDOUT && s->retry_on_timeout)) &&
		        (s->max_retries < 0 || a < s->max_retries) && a < AIR__LOCAL_MAX_ATTEMPT;
		if (o == O_SUCCESS) {
			finish(s, AIR__L_TERMINATED, "SUCCESS", air__buf_cstr(&msg));
		} else if (retry) {
			int64_t wait = backoff_s(a + 1);

			air__json_set_str(s->status, "state", AIR__L_RUNNING);
			set_str(s->status, "message", "attempt %d of %lld: %s; retrying in %lld s",
			        (int)a + 1, (long long)(s->max_retries < 0 ? -1 : s->max_retries + 1),
			        air__buf_cstr(&msg), (long long)wait);
			set_str(s->status, "status_message", "STATUS:Attempt %d failed; retrying in %lld s",
			        (int)a + 1, (long long)wait);
			save(s, false);
			pause_before_retry(s, wait * minute_ms() / 60);
		} else {
			char *m = a > 0 ? air__sprintf("%s (attempt %d)", air__buf_cstr(&msg), (int)a + 1)
			                : air__strdup(air__buf_cstr(&msg));
			finish(s, AIR__L_TERMINATED, result_name[o], m ? m : air__buf_cstr(&msg));
			air__free(m);
		}
		air__buf_dispose(&msg);
		if (!retry)
			return;
	}
}

int air__lsupervise(const char *state_dir, int64_t run_id, const json_t *secrets,
                    const char *extractor, int wake, volatile sig_atomic_t *stop_signal)
{
	sup s;
	char *rpath, *spath;
	int rc = 0;

	memset(&s, 0, sizeof(s));
	s.id = run_id;
	s.secrets = secrets;
	s.extractor = extractor;
	s.wake = wake;
	s.stop_signal = stop_signal;
	s.dir = air__lrun_dir(state_dir, run_id);
	s.tracking_uri = air__lmlruns_uri(state_dir);
	rpath = s.dir ? air__lpath(s.dir, "run.json") : NULL;
	spath = s.dir ? air__lpath(s.dir, "status.json") : NULL;
	s.rec = rpath ? air__lread_json(rpath) : NULL;
	s.status = spath ? air__lread_json(spath) : NULL;
	if (!s.rec || !s.status || !s.tracking_uri || air__lredact_new(secrets, &s.redact) != AIR_OK) {
		fprintf(stderr, "air-local-supervisor: run %lld: cannot read run.json and status.json\n",
		        (long long)run_id);
		if (s.status && s.dir) {
			finish(&s, AIR__L_INTERNAL_ERROR, "FAILED", "the run's record is unreadable");
		}
		rc = 1;
	} else if (!air__lstatus_terminal(s.status)) {
		keep_reserve(&s);
		air__json_set_int(s.status, "supervisor_pid", (int64_t)getpid());
		air__json_set_str(s.status, "status_message", "STATUS:Preparing the run");
		/* Said when preparing can take long (GPUs to look for, a code
		 * snapshot to extract): otherwise the first state saved is RUNNING.
		 * A run whose state cannot be recorded is not started: it ends at
		 * once, with the reserve given back for that. */
		s.look_for_gpus = air__lgpus_slow();
		if ((air__json_str(s.rec, "code_archive") || s.look_for_gpus) && !save(&s, false))
			finish(&s, AIR__L_INTERNAL_ERROR, "FAILED", UNRECORDED);
		else if (prepare(&s))
			run_attempts(&s);
	}
	if (s.dir)
		release_reserve(&s);
	json_decref(s.rec);
	json_decref(s.status);
	json_decref(s.env_vars);
	air__lredact_free(s.redact);
	air__buf_dispose(&s.trouble);
	air__free(s.gpus);
	air__free(s.code_path);
	air__free(s.hyper);
	air__free(s.script);
	air__free(s.dir);
	air__free(s.tracking_uri);
	air__free(rpath);
	air__free(spath);
	return rc;
}
