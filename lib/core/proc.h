/*
 * proc.h: run a helper program (git for code snapshots, docker and
 * databricks for image pushes) from an argument vector — never through a
 * shell — capturing its output with size limits, a timeout and an interrupt.
 */
#ifndef AIR_CORE_PROC_H
#define AIR_CORE_PROC_H

#include "core/base.h"

typedef struct air__proc_opts {
	int64_t timeout_ms;         /* 0: no limit */
	size_t stdout_limit;        /* bytes of stdout kept; 0: 64 KiB */
	bool stdout_keep_tail;      /* keep the last bytes instead of killing the program on overflow */
	int stdout_fd;              /* >= 0: the program writes stdout there (no capture); -1: capture */
	size_t stderr_limit;        /* the last bytes of stderr kept; 0: 8 KiB */
	const char *const *env_add; /* "NAME=value" set for the program (NULL-terminated) or NULL */
	const air__ctx *ctx;        /* the call's interrupts (program killed, AIR_EINTERRUPTED)
	                               and deadline (killed, AIR_ETIMEOUT); may be NULL */
	const void *stdin_data;     /* written to the program's stdin, which is then closed;
	                               NULL: stdin is /dev/null */
	size_t stdin_len;
} air__proc_opts;

#define AIR__PROC_OPTS_INIT {0, 0, false, -1, 0, NULL, NULL, NULL, 0}

typedef struct air__proc_result {
	int exit_code;      /* exit status; -1 when killed by a signal */
	int term_signal;    /* the signal that ended the program, else 0 */
	bool timed_out;     /* killed after timeout_ms */
	bool overflow;      /* killed because stdout exceeded stdout_limit */
	air__buf out;       /* captured stdout (NUL-terminated) */
	air__buf err;       /* tail of stderr */
} air__proc_result;

/*
 * Run @argv[0] (looked up on PATH) with @argv and wait for it to exit; its
 * output is what it wrote until then (a process it left in the background
 * holding its pipes is not waited for). Returns AIR_OK
 * once the program ran, whatever its exit status (check r->exit_code,
 * r->timed_out, r->overflow); AIR_EIO naming the program when it could not be
 * started (r->exit_code is then 127); AIR_EINTERRUPTED; AIR_ETIMEOUT when the
 * call's deadline passed. @r is always
 * initialised; release it with air__proc_result_dispose().
 */
int air__proc_run(const char *const *argv, const air__proc_opts *opts, air__proc_result *r,
                  air_error **err);
void air__proc_result_dispose(air__proc_result *r);

/* True when air__proc_run() would find program @name (on PATH unless it
 * names a path). */
bool air__proc_found(const char *name);
/* True when the program ran to completion with status 0. */
bool air__proc_ok(const air__proc_result *r);
/* The last non-empty line of stderr (else of stdout), trimmed, for messages; never NULL. */
const char *air__proc_last_line(const air__proc_result *r, char *out, size_t n);

#endif /* AIR_CORE_PROC_H */
