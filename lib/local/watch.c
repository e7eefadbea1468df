/*
 * watch.c: waiting for a local run to change instead of polling its files.
 *
 * A reader of a run (a wait for its end, a log stream following it) pauses
 * between reads of its state. On Linux the pause is an inotify watch on the
 * run's folder: the supervisor replaces status.json by a rename at every
 * change of state, so the pause ends as soon as the run moves on — the end
 * of a run is seen at once, not up to a poll interval later. Following the
 * logs, writes to the node logs of the latest attempt end it too, gathered
 * for LOG_GATHER_MS so that a chatty node does not make its reader poll at
 * every line. The pause still ends after the caller's interval (a
 * supervisor that was killed writes nothing; its reader finds out when it
 * reads again), at once on an interrupt, and at the deadline.
 */
#include "local/local_priv.h"

#include <dirent.h>
#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#ifdef __linux__
#  include <sys/inotify.h>
#endif

/* How long the output of a node is gathered before its reader wakes. */
#define LOG_GATHER_MS 50

struct air__local_watch {
	air__local *ws;
	int fd;             /* inotify; -1 where there is none (the pause is a sleep) */
	char *run_dir;
	bool logs;
	int run_wd, logs_wd, attempt_wd;
	int64_t attempt;    /* the attempt folder watched, -1 none */
};

#ifdef __linux__

/* An inotify instance: an idle one of @ws, else a new one (-1 on failure). */
static int take_fd(air__local *ws)
{
	int fd = -1;

	pthread_mutex_lock(&ws->watch_lock);
	if (ws->n_idle_watch_fds > 0)
		fd = ws->idle_watch_fds[--ws->n_idle_watch_fds];
	pthread_mutex_unlock(&ws->watch_lock);
	return fd >= 0 ? fd : inotify_init1(IN_NONBLOCK | IN_CLOEXEC);
}

/* Give @fd (its watches removed) back to @ws for the next watch; closed
 * when enough are kept. */
static void give_fd(air__local *ws, int fd)
{
	_Alignas(struct inotify_event) char buf[4096];

	while (read(fd, buf, sizeof(buf)) > 0)
		; /* what the removed watches queued: IN_IGNORED, late events */
	pthread_mutex_lock(&ws->watch_lock);
	if (ws->n_idle_watch_fds < AIR__LOCAL_IDLE_WATCHES) {
		ws->idle_watch_fds[ws->n_idle_watch_fds++] = fd;
		fd = -1;
	}
	pthread_mutex_unlock(&ws->watch_lock);
	if (fd >= 0)
		close(fd);
}

/* Watch the newest attempt folder of logs/ (a new attempt replaces the
 * previous one: only the latest is ever followed). */
static void watch_latest_attempt(air__local_watch *w)
{
	char *logs = air__lpath(w->run_dir, "logs"), *path;
	DIR *d = logs ? opendir(logs) : NULL;
	struct dirent *e;
	int64_t best = -1, a;

	while (d && (e = readdir(d)) != NULL)
		if (air__starts_with(e->d_name, "attempt_") &&
		    air__parse_int64(e->d_name + strlen("attempt_"), &a) && a > best)
			best = a;
	if (d)
		closedir(d);
	if (best > w->attempt && (path = air__lpath(logs, "attempt_%lld", (long long)best))) {
		int wd = inotify_add_watch(w->fd, path, IN_MODIFY | IN_CREATE | IN_ONLYDIR);
		if (wd >= 0) {
			if (w->attempt_wd >= 0 && w->attempt_wd != wd)
				inotify_rm_watch(w->fd, w->attempt_wd);
			w->attempt_wd = wd;
			w->attempt = best;
		}
		air__free(path);
	}
	air__free(logs);
}

static void watch_logs(air__local_watch *w)
{
	char *logs;

	if (w->logs_wd < 0 && (logs = air__lpath(w->run_dir, "logs")) != NULL) {
		w->logs_wd = inotify_add_watch(w->fd, logs, IN_CREATE | IN_MOVED_TO | IN_ONLYDIR);
		air__free(logs);
	}
	if (w->logs_wd >= 0)
		watch_latest_attempt(w);
}

int air__local_watch_run(air__local *ws, int64_t run_id, bool logs, air__local_watch **out)
{
	air__local_watch *w = air__calloc(1, sizeof(*w));

	*out = NULL;
	if (!w || !(w->run_dir = air__lrun_dir(ws->dir, run_id))) {
		air__free(w);
		return AIR_ENOMEM;
	}
	w->ws = ws;
	w->logs = logs;
	w->logs_wd = w->attempt_wd = -1;
	w->attempt = -1;
	w->fd = take_fd(ws);
	w->run_wd = w->fd >= 0 ? inotify_add_watch(w->fd, w->run_dir,
	                                           IN_MOVED_TO | IN_CREATE | IN_DELETE_SELF |
	                                               IN_MOVE_SELF | IN_ONLYDIR)
	                       : -1;
	if (w->run_wd < 0 && w->fd >= 0) {
		give_fd(ws, w->fd); /* no such run (yet): its reader polls */
		w->fd = -1;
	}
	if (w->fd >= 0 && logs)
		watch_logs(w);
	*out = w;
	return AIR_OK;
}

enum { NOTHING, LOGS, STATE };

/* Read the pending events: STATE when the run's state may have changed (or
 * the watch was lost), LOGS for node output, else NOTHING. */
static int read_events(air__local_watch *w)
{
	_Alignas(struct inotify_event) char buf[4096];
	int seen = NOTHING;
	ssize_t n;

	while ((n = read(w->fd, buf, sizeof(buf))) > 0) {
		for (char *p = buf; p < buf + n;) {
			const struct inotify_event *ev = (const struct inotify_event *)p;
			const char *name = ev->len ? ev->name : "";

			p += sizeof(*ev) + ev->len;
			if ((ev->mask & IN_Q_OVERFLOW) ||
			    (ev->wd == w->run_wd && (ev->mask & (IN_IGNORED | IN_DELETE_SELF | IN_MOVE_SELF)))) {
				seen = STATE; /* events lost, or the run's folder gone */
			} else if (ev->mask & IN_IGNORED) {
				continue; /* the watch of an attempt folder, replaced */
			} else if (ev->wd == w->run_wd) {
				if (!strcmp(name, "status.json"))
					seen = STATE;
				else if (w->logs && !strcmp(name, "logs") && seen < LOGS)
					seen = LOGS;
			} else if (w->logs && seen < LOGS &&
			           (ev->wd == w->logs_wd || ev->wd == w->attempt_wd)) {
				seen = LOGS; /* an attempt folder, a node log written */
			}
		}
	}
	if (w->logs && seen >= LOGS)
		watch_logs(w); /* a new logs/ or attempt folder, perhaps */
	return seen;
}

int air__local_watch_wait(air__local_watch *w, const air__ctx *ctx, int64_t ms, const char *what,
                          air_error **err)
{
	int64_t end, gather_end = INT64_MAX;

	if (!w || w->fd < 0)
		return air__ctx_sleep(ctx, ms, what, err);
	end = air__mono_after(ms);
	for (;;) {
		int64_t now = air__mono_ms(), stop = end < gather_end ? end : gather_end;
		bool ready;
		int rc, seen;

		if (now >= stop)
			return AIR_OK;
		if ((rc = air__ctx_wait_fd(ctx, w->fd, POLLIN, stop - now, &ready, what, err)) != AIR_OK ||
		    !ready)
			return rc;
		if ((seen = read_events(w)) == STATE)
			return AIR_OK;
		if (seen == LOGS && gather_end == INT64_MAX)
			gather_end = air__mono_ms() + LOG_GATHER_MS;
	}
}

void air__local_watch_free(air__local_watch *w)
{
	if (!w)
		return;
	if (w->fd >= 0) {
		/* Removing watches does not wait for the kernel; closing would. */
		int wds[] = {w->run_wd, w->logs_wd, w->attempt_wd};
		for (size_t i = 0; i < AIR__ARRAY_SIZE(wds); i++)
			if (wds[i] >= 0)
				inotify_rm_watch(w->fd, wds[i]);
		give_fd(w->ws, w->fd);
	}
	air__free(w->run_dir);
	air__free(w);
}

void air__local_watch_close_idle(air__local *ws)
{
	for (int i = 0; i < ws->n_idle_watch_fds; i++)
		close(ws->idle_watch_fds[i]);
	ws->n_idle_watch_fds = 0;
}

#else /* no inotify: the pause is a sleep */

int air__local_watch_run(air__local *ws, int64_t run_id, bool logs, air__local_watch **out)
{
	(void)ws;
	(void)run_id;
	(void)logs;
	*out = air__calloc(1, sizeof(**out));
	if (!*out)
		return AIR_ENOMEM;
	(*out)->fd = -1;
	return AIR_OK;
}

int air__local_watch_wait(air__local_watch *w, const air__ctx *ctx, int64_t ms, const char *what,
                          air_error **err)
{
	(void)w;
	return air__ctx_sleep(ctx, ms, what, err);
}

void air__local_watch_free(air__local_watch *w)
{
	air__free(w);
}

void air__local_watch_close_idle(air__local *ws)
{
	(void)ws;
}

#endif
