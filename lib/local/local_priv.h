/*
 * local_priv.h: the pieces of lib/local/ shared by the in-process workspace
 * (serve.c and the endpoint files) and the supervisor program
 * (supervisor_main.c, supervisor.c, node.c): the state directory's files,
 * run records, task ids and the node log format.
 *
 * State directory (docs/local.md):
 *
 *   .lock                          flock: run ids and idempotency records
 *   last_run_id                    the last run id given out
 *   secrets.json                   optional {"scope": {"key": "value"}}
 *   workspace/<abs path>           workspace and volume files (/Workspace/..., /Volumes/...)
 *   idempotency/<sha256(token)>    the run id a token created
 *   jobs/runs/<id>/                one folder per run:
 *     run.json                     the submission (never rewritten)
 *     status.json                  the run's state (atomically rewritten)
 *     supervisor.lock              flock held by the run's supervisor while it lives
 *     supervisor.log               the supervisor's own messages
 *     cancel                       present once a cancellation was requested
 *     launch/                      the launch directory (command.sh, sidecars)
 *     code/<dir>/                  the extracted code snapshot ($CODE_SOURCE_PATH)
 *     work/node_<n>/               each node's working directory
 *     logs/attempt_<a>/node_<n>.log  node output, one record per line
 *   mlruns/                        the MLflow file store of the runs (mlruns.c)
 */
#ifndef AIR_LOCAL_LOCAL_PRIV_H
#define AIR_LOCAL_LOCAL_PRIV_H

#include <pthread.h>
#include <sys/stat.h>
#include <sys/types.h>

#include "local/local.h"

/* The supervisor program, its environment override and the time unit knob. */
#define AIR__LOCAL_SUPERVISOR "air-local-supervisor"
#define AIR__LOCAL_SUPERVISOR_ENV "AIR_LOCAL_SUPERVISOR"
#define AIR__LOCAL_MINUTE_ENV "AIR_LOCAL_MINUTE_MS"
#define AIR__LOCAL_SECRETS_ENV "AIR_LOCAL_SECRETS_FILE"
/* File descriptors the supervisor starts with: its run's lock (held) and
 * the resolved secrets ({"NAME": "value"}, read to the end). */
#define AIR__LOCAL_LOCK_FD 3
#define AIR__LOCAL_SECRETS_FD 4
/* The most the secrets may take on fd 4. */
#define AIR__LOCAL_MAX_SECRETS (1u << 20)
/* The supervisor's fourth argument (STATE_DIR RUN_ID LIBAIR_VERSION
 * go-ahead-cpus SUBMITTER_PID CPUS): how it is started (the secrets are its
 * go-ahead, awaited while the submitter lives; CPUS are those it runs on once
 * loaded). One that speaks another way refuses to start. */
#define AIR__LOCAL_PROTOCOL "go-ahead-cpus"
/* The program that extracts a run's code snapshot, beside the supervisor's. */
#define AIR__LOCAL_EXTRACTOR "air-local-extract"
/* The absolute path of air-local-extract beside @program (the supervisor's,
 * as started: found through symbolic links), or NULL when out of memory
 * (beside.c). */
char *air__lextractor_beside(const char *program);

/* inotify instances kept for the next watch (watch.c). */
#define AIR__LOCAL_IDLE_WATCHES 4
/* Launchers left unreaped that a workspace keeps track of; older ones are
 * left to the process's end. */
#define AIR__LOCAL_LEFT_LAUNCHERS 8

struct air__local {
	char *dir;            /* the state directory */
	air__local_env env;
	char *user;           /* the local user name (SCIM userName) */
	/* inotify instances of ended watches, for the next ones: closing one
	 * waits for the kernel (an RCU grace period, about 10 ms). */
	pthread_mutex_t watch_lock;
	int idle_watch_fds[AIR__LOCAL_IDLE_WATCHES];
	int n_idle_watch_fds;
	/* pidfds of supervisor launchers an interrupted submission left
	 * unreaped (spawn.c): reaped once they end, at the next submission or
	 * when the workspace is freed. */
	pthread_mutex_t left_lock;
	int left_launchers[AIR__LOCAL_LEFT_LAUNCHERS];
	int n_left_launchers;
};

/* Close the inotify instances @ws keeps for its next watches (watch.c). */
void air__local_watch_close_idle(air__local *ws);

/* ---- files (store.c) ------------------------------------------------------------- */

/* @dir + "/" + the formatted rest; NULL on OOM. */
char *air__lpath(const char *dir, const char *fmt, ...) AIR__PRINTF(2, 3);
/* mkdir -p with @mode for the directories it creates: 0, or -1 with errno. */
int air__lmkdirs(const char *path, mode_t mode);
/* Mark the folder @dir so that the folders made in it are spread over the
 * disk (spread.c); nothing when it cannot be (errno kept). */
void air__lspread_below(const char *dir);
/* air__lspread_below() of the open folder @dir. */
void air__lspread_at(int dir);
/* Write @path through a temporary file and rename(): readers, and a
 * process that dies half-way, see the old or the new content, never a part.
 * @durable: the content is also on disk (fsync) before the rename and the
 * new name after it (the directory synced), so that it survives a crash of
 * the machine (docs/local.md, "Crashes and durability"). 0, or -1 with errno. */
int air__lwrite_atomic(const char *path, const void *data, size_t len, mode_t mode,
                       bool durable);
/* The same, not @durable, for @name in the folder @dir (a descriptor): a
 * link named @name is replaced, never written through. */
int air__lwrite_atomic_at(int dir, const char *name, const void *data, size_t len, mode_t mode);
/* Write @path over its old content, made when missing (a regular file; one
 * with other names, hard links, is replaced instead: air__lwrite_atomic()).
 * For a small record under the state lock, read by no one else while
 * written: nothing made or deleted, unlike a rename. 0, or -1 with errno. */
int air__lwrite_in_place(const char *path, const void *data, size_t len);
/* The same for a JSON value (compact, one line). */
int air__lwrite_json(const char *path, const json_t *v, bool durable);
/* Write @path through a temporary file unless it exists: made whole or left
 * as it is, never replaced (two writers: the first one's stays). 0 (written
 * or already there), or -1 with errno. */
int air__lwrite_once(const char *path, const void *data, size_t len, mode_t mode);
/* Write @path, which must not exist yet, in a folder that no reader sees
 * (one built under a temporary name, then renamed into place): no temporary
 * file of its own. 0, or -1 with errno (a part written is removed). */
int air__lwrite_fresh(const char *path, const void *data, size_t len, mode_t mode);
/* The same for a JSON value (compact, one line). */
int air__lwrite_json_fresh(const char *path, const json_t *v);
/* Space kept for a run's last status.json, should the disk fill up (it
 * holds at most AIR__LOCAL_KEPT_ATTEMPTS attempts: a few KiB). */
#define AIR__LOCAL_RESERVE_BYTES (256 * 1024)
/* The file @path holding @bytes of disk space (made when missing, never
 * truncated): 0, or -1 with errno (a file this call made is removed;
 * EFBIG, without trying, beyond the file size limit). */
int air__lreserve(const char *path, off_t bytes);
/* Remove <run_dir>/status.reserve, once the run's last status is written or
 * will never be. */
void air__lreserve_drop(const char *run_dir);
/* fsync() of each of the @n @paths (files and folders, NULL ones skipped),
 * the writeback of them all started first (Linux), so that their data goes
 * to the disk together and fewer journal commits wait for it. Best effort. */
void air__lsync_all(const char *const *paths, size_t n);
/* Read a whole regular file of at most @max bytes into @out: 0, or -1 with
 * errno (EFBIG when larger, EISDIR for a folder, EINVAL for any other kind
 * of file: a FIFO is never waited on). */
int air__lread_file(const char *path, size_t max, air__buf *out);
/* Open @rel ('/'-separated names) under the folder @root without following
 * a symbolic link anywhere in @rel: each folder with O_NOFOLLOW |
 * O_DIRECTORY, the last name with O_NOFOLLOW | O_NONBLOCK (a FIFO never
 * blocks), and only if it is a regular file or, with @dir_ok, a folder.
 * The descriptor (O_RDONLY, close-on-exec) with its fstat() in *st, or -1
 * with errno: ENOENT for anything missing or not of those kinds (a link, a
 * FIFO, a device...), another errno for a real failure. */
int air__lopen_beneath(const char *root, const char *rel, bool dir_ok, struct stat *st);
/* The folder @rel under @root, opened as air__lopen_beneath() opens its
 * folders (no link followed), each made first (0700) with @make: the
 * descriptor, or -1 with errno (ENOENT: missing, or not a folder; with
 * @make, ENOTDIR: a link or a file in the way). */
int air__lfolder_beneath(const char *root, const char *rel, bool make);
/* The same for one @name in the open folder @dir. */
int air__lopen_name(int dir, const char *name, bool dir_ok, struct stat *st);
/* air__lread_file() of an open descriptor (left open). */
int air__lread_fd(int fd, size_t max, air__buf *out);
/* The largest JSON file of a state directory. */
#define AIR__LOCAL_MAX_JSON ((size_t)16 << 20)
/* A JSON file (at most AIR__LOCAL_MAX_JSON); NULL when missing or malformed. */
json_t *air__lread_json(const char *path);
/* flock(LOCK_EX) on @path (created 0600): 0 with *fd, or -1 with errno
 * (EWOULDBLOCK when !@wait and someone holds it; EINTR when @ctx is
 * interrupted or its deadline passes while waiting). */
int air__llock(const char *path, bool wait, const air__ctx *ctx, int *fd);
/* Release and close. Only for a lock no other process shares: unlocking
 * releases it for every descriptor of the same open file. */
void air__lunlock(int fd);
/* rm -rf; 0, or -1 with errno. */
int air__lremove_tree(const char *path);
/* Copy every regular file of @from into @to, a new folder (created) of a
 * folder being built (air__lwrite_fresh()): 0, or -1 with errno. */
int air__lcopy_dir_files(const char *from, const char *to);
bool air__lexists(const char *path);

/* ---- runs (run_state.c) ------------------------------------------------------------ */

/* <state>/jobs/runs/<id> */
char *air__lrun_dir(const char *state_dir, int64_t run_id);

/* Task run ids: one per attempt, in a range run ids never reach. */
int64_t air__ltask_id(int64_t run_id, int32_t attempt);
bool air__ltask_decode(int64_t task_id, int64_t *run_id, int32_t *attempt);
/* Attempts are numbered 0..AIR__LOCAL_MAX_ATTEMPT. */
#define AIR__LOCAL_MAX_ATTEMPT 65535

/* Life-cycle and result states of status.json (the Jobs names). */
#define AIR__L_PENDING "PENDING"
#define AIR__L_RUNNING "RUNNING"
#define AIR__L_TERMINATING "TERMINATING"
#define AIR__L_TERMINATED "TERMINATED"
#define AIR__L_INTERNAL_ERROR "INTERNAL_ERROR"

/*
 * status.json: {"state", "result" (absent until the end), "message",
 * "status_message", "start_time", "end_time", "supervisor_pid",
 * "attempts": [{"attempt", "start_time", "end_time", "state", "result",
 * "message", "exit_codes": [..]}]}. "attempts" holds the first attempt and
 * the latest ones, at most AIR__LOCAL_KEPT_ATTEMPTS, so that an attempt
 * costs the same however many came before it ("attempt" is the entry's
 * number; entries without it are numbered by their index).
 */
#define AIR__LOCAL_KEPT_ATTEMPTS 20
/* A new status: PENDING, no attempts. */
json_t *air__lstatus_new(void);
/* True once the run has ended (TERMINATED or INTERNAL_ERROR). */
bool air__lstatus_terminal(const json_t *status);
/* Now as the end of an attempt or a run, in ms: the millisecond after
 * this one, so that it comes after every record its logs hold (their times
 * are in ns). A reader bounds a finished run's log by its end's second
 * rounded up; an end truncated to the ms could fall on a second and cut the
 * records of its last partial millisecond. */
int64_t air__lend_ms(void);
/* End the run: @state (TERMINATED or INTERNAL_ERROR), @result, @message,
 * end_time now (air__lend_ms()); the running attempt (if any) ends with the
 * same result. */
int air__lstatus_finish(json_t *status, const char *state, const char *result,
                        const char *message);
/* The number of entry @i of "attempts". */
int32_t air__lstatus_attempt_at(const json_t *status, size_t i);
/* The number of the latest attempt; -1 before the first. */
int32_t air__lstatus_latest_attempt(const json_t *status);
/* The attempt a log request names: @requested when it is one (0 to
 * AIR__LOCAL_MAX_ATTEMPT), else the latest (0 before the first). */
int32_t air__lstatus_pick_attempt(const json_t *status, int64_t requested);
/* Append @entry (stolen) as attempt @number, dropping the oldest entries
 * (never the first) beyond AIR__LOCAL_KEPT_ATTEMPTS. AIR_OK or AIR_ENOMEM. */
int air__lstatus_add_attempt(json_t *status, json_t *entry, int32_t number);
/* Write status.json of @run_dir atomically (@durable: air__lwrite_atomic). 0,
 * or -1 with errno. */
int air__lstatus_write(const char *run_dir, const json_t *status, bool durable);

/*
 * The run's status as another process sees it: status.json, and when the run
 * is not over, a check that its supervisor is alive (it holds
 * supervisor.lock). A run whose supervisor is gone is recorded as ended
 * (INTERNAL_ERROR, FAILED, with a message saying so) before it is returned.
 * *run_json (may be NULL) gets run.json. NULL when the run does not exist
 * or is damaged: for a run whose folder is there but whose status.json (or
 * run.json, when asked for) is missing, unreadable or not a JSON object,
 * *damage (may be NULL) gets what is wrong, naming the file (air__free());
 * else NULL.
 */
json_t *air__lrun_load(const char *run_dir, json_t **run_json, char **damage);

/* ---- the MLflow file store (mlruns.c) --------------------------------------------- */

/* <state>/mlruns */
char *air__lmlruns_dir(const char *state_dir);
/* file://<state>/mlruns, percent-encoded: the nodes' MLFLOW_TRACKING_URI. */
char *air__lmlruns_uri(const char *state_dir);
/* <state>/mlruns/<experiment id>/<run id> of run record @rec, or NULL when
 * it has no MLflow ids (or ids that could name another folder). */
char *air__lmlruns_run_dir(const char *state_dir, const json_t *rec);
/* The name of the MLflow run of run record @rec: the workload's
 * mlflow_run_name, else the Jobs run name (a sweep's variant or a rerun is
 * named after its overrides), else the experiment. */
const char *air__lmlruns_run_name(const json_t *rec);
/* Create the experiment (when new) and the MLflow run of the run in
 * @run_folder (<state>/jobs/runs/<id>), status RUNNING, unless they exist:
 * the submission makes it while the supervisor starts, and the supervisor
 * before the nodes start, should the submission not have (either may come
 * first; neither replaces what the other made). 0, or -1 with errno. */
int air__lmlruns_create(const char *run_folder);
/* The run in @run_folder ended with Jobs result @result: its status
 * (FINISHED, FAILED, KILLED) and end time in its meta.yaml. Best effort. */
void air__lmlruns_finish(const char *run_folder, const char *result);

/* ---- secrets in node output (redact.c) ------------------------------------------- */

/* The shortest secret value a local run accepts (not counting surrounding
 * white space): shorter ones would match ordinary text and could not be
 * told apart in the logs. */
#define AIR__LOCAL_MIN_SECRET 4
/* The longest NAME=value a node's environment can hold (Linux's
 * MAX_ARG_STRLEN, its NUL included): a longer secret would make every
 * start of the node fail (E2BIG). */
#define AIR__LOCAL_MAX_ENV_ENTRY 131072
/* Room the nodes' environment leaves for the variables libair sets and the
 * command line. */
#define AIR__LOCAL_ENV_MARGIN (16 * 1024)
/* AIR_OK when the nodes can be started with this process's environment
 * (which the supervisor passes on), @env_vars and @secrets (objects of
 * name: value; NULL for none); else AIR_EINVAL with the field at fault in
 * *path (free it) and the reason in @why (names and sizes, never a value):
 * a variable of env_variables longer than a node's environment takes, or
 * all of them together more than a program may be started with
 * (sysconf(_SC_ARG_MAX)). limits.c. */
int air__local_check_env(const json_t *env_vars, const json_t *secrets, char **path,
                         air__buf *why);

/* The secret values of a run, as the forms looked for in its output. */
typedef struct air__lredact air__lredact;

/* The forms of the values of @secrets ({"NAME": "value"}). AIR_OK or AIR_ENOMEM. */
int air__lredact_new(const json_t *secrets, air__lredact **out);
void air__lredact_free(air__lredact *r);
/* Overwrite the secret values of @secrets ({"NAME": "value"}), then release
 * it (NULL: nothing). For the library and the supervisor alike. */
void air__lsecrets_wipe(json_t *secrets);
/* Length of @v (@n bytes) without surrounding white space; *start (may be
 * NULL) gets where that part begins. */
size_t air__lredact_significant(const char *v, size_t n, const char **start);
/* Length of the shortest form of @v that redaction looks for: without
 * surrounding white space, each CRLF one byte (its LF and lone-CR forms). */
size_t air__lredact_shortest(const char *v, size_t n);
/* Move the bytes of @raw that can no longer be part of a value to @out,
 * every occurrence replaced by "[REDACTED]"; the bytes that could still
 * begin one stay in @raw, unless @final (the end of the stream). The first
 * *@redacted bytes of @raw belong to an occurrence already replaced: they
 * are matched again, never written (occurrences that overlap without end,
 * as in 000... for a value 0000, go out as they are found, and @raw stays
 * shorter than twice the longest value). @r may be NULL (nothing to
 * replace). */
void air__lredact_step(const air__lredact *r, air__buf *raw, size_t *redacted, air__buf *out,
                       bool final);

/* ---- node logs (records.c) -------------------------------------------------------- *
 * A node log holds one record per line: "<time_unix_nano> <text>\n". Times
 * strictly increase within a file; the text is valid UTF-8 without NUL or
 * newline. A line without its "\n" is still being written and is skipped. */

/* <run_dir>/logs/attempt_<attempt>/node_<node>.log; NULL on OOM. */
char *air__lnode_log(const char *run_dir, int32_t attempt, int64_t node);
/* <run_dir>/work/node_<node>, the node's working directory; NULL on OOM. */
char *air__lnode_work(const char *run_dir, int64_t node);

/* Longest text of one record; longer output lines are split. */
#define AIR__LOCAL_MAX_RECORD (64 * 1024)

typedef struct air__lwriter {
	int fd;                    /* the node log, O_APPEND; -1 once it cannot be written */
	int64_t last_t;            /* time of the last record made */
	int64_t batch_t;           /* when the batch of records being made arrived */
	char time_text[19];        /* last_t in decimal (time_len digits; 0: none yet) */
	size_t time_len;
	air__buf raw;              /* output not scrubbed yet (it may end with the start of a secret) */
	size_t raw_redacted;       /* its first bytes already replaced (air__lredact_step()) */
	air__buf line;             /* scrubbed output since the last newline */
	const air__lredact *redact;/* values replaced by [REDACTED], or NULL */
	off_t size;                /* bytes of the complete records in the log */
	int error;                 /* errno of the first write that failed; 0 when none did */
	uint64_t lost, noted;      /* lines lost to failed writes; those a note in the log reports */
	uint64_t records;          /* records written by this writer */
	bool started_empty;        /* the log was empty when the writer began */
	bool short_time;           /* a time had fewer than 19 digits (a clock before 9/2001) */
} air__lwriter;

void air__lwriter_init(air__lwriter *w, int fd, const air__lredact *redact);
/* Output bytes of the node: complete lines become records. */
void air__lwriter_feed(air__lwriter *w, const char *data, size_t len);
/* The end of the output: what is left (an unfinished last line) becomes records. */
void air__lwriter_flush(air__lwriter *w);
/* A line of the local runtime itself ("[air local] ..."): one record, its
 * line breaks made spaces. */
void air__lwriter_note(air__lwriter *w, const char *fmt, ...) AIR__PRINTF(2, 3);
/* The node log complete (flushed, its node ended): beside it, how many
 * records it holds (<log>.count: "<size> <records>[ 20]\n"), so that a reader of
 * its tail need not count them; the third field, when every record's time
 * had nineteen digits, says that each record's text starts AIR__LOCAL_TEXT_AT
 * bytes after the record, so that a reader of the text need not check its
 * time. Written only when the writer wrote the whole log (it started empty
 * and lost nothing), and only for a log of at least AIR__LOCAL_COUNTED_BYTES:
 * a shorter one is counted faster than the file is made. */
void air__lwriter_finish(air__lwriter *w, const char *log_path);
#define AIR__LOCAL_COUNTED_BYTES (64 * 1024)
/* Bytes before a record's text when its time has nineteen digits (the times
 * from September 2001 on, as far as int64 nanoseconds go, 2262): the digits and
 * a space. */
#define AIR__LOCAL_TEXT_AT 20
/* What the count file of a complete log says. */
typedef struct air__llog_counted {
	int64_t records;           /* -1: no count file for the log's size */
	size_t text_at;            /* AIR__LOCAL_TEXT_AT when the writer vouches for every
	                            * record's time width, else 0 */
} air__llog_counted;
/* The count file of the complete log @log_path of @size bytes. */
air__llog_counted air__llog_count(const char *log_path, size_t size);
void air__lwriter_dispose(air__lwriter *w);

/* A node log mapped for reading (the complete records present when opened). */
typedef struct air__llog {
	const char *base;
	size_t size;               /* bytes up to the end of the last complete record */
	void *map;
	size_t map_len;
} air__llog;

/* Open @path; a missing file is an empty log. 0, or -1 with errno. */
int air__llog_open(const char *path, air__llog *l);
void air__llog_close(air__llog *l);
/* Offset of the first record with time >= @t (l->size when none). */
size_t air__llog_lower_bound(const air__llog *l, int64_t t);
/* The record at *@off; advances *@off past it. False at the end. */
bool air__llog_next(const air__llog *l, size_t *off, int64_t *t, const char **text,
                    size_t *len);
/* The record ending at *@end; moves *@end back to its start. False at the start. */
bool air__llog_prev(const air__llog *l, size_t *end, int64_t *t, const char **text,
                    size_t *len);
/* True when @off is 0, l->size or the start of a record. */
bool air__llog_is_boundary(const air__llog *l, size_t off);

/* ---- the code snapshot (extract.c, in air-local-extract) ------------------------ */

/* Extract the tar.gz @archive into @dest (created; the working directory
 * meanwhile, the caller's again after) refusing absolute paths, "." and
 * ".." segments, and writing through symbolic links. *top gets the
 * archive's top-level directory (air__free(); NULL when it has none). 0, or
 * an AIR_E* code with the reason in @why. */
int air__lextract(const char *archive, const char *dest, char **top, air__buf *why);

/* ---- GPUs (gpus.c) ------------------------------------------------------------------ */

/* Indexes of the GPUs nvidia-smi reports (none when it is missing or
 * fails, or when @ctx, which may be NULL, stops it); *n gets their number.
 * air__free() the array. */
int32_t *air__lgpus(const air__ctx *ctx, size_t *n);
/* True when air__lgpus() runs a program (nvidia-smi is there), which can
 * take seconds; false when it returns at once. */
bool air__lgpus_slow(void);

#endif /* AIR_LOCAL_LOCAL_PRIV_H */
