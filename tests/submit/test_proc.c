/* test_proc.c: the helper-program runner (argument vectors, limits, timeout,
 * interrupt) that git snapshots and image pushes rely on. */
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/core.h"
#include "test.h"

AIR_TEST(proc__captures_stdout_stderr_and_status)
{
	const char *argv[] = {"sh", "-c", "printf 'out\\n'; printf 'err1\\nerr2\\n' >&2; exit 3", NULL};
	air__proc_result r;
	char line[64];

	ASSERT_EQ_INT(air__proc_run(argv, NULL, &r, NULL), AIR_OK);
	ASSERT_EQ_INT(r.exit_code, 3);
	ASSERT_FALSE(air__proc_ok(&r));
	ASSERT_EQ_STR(air__buf_cstr(&r.out), "out\n");
	ASSERT_EQ_STR(air__buf_cstr(&r.err), "err1\nerr2\n");
	ASSERT_EQ_STR(air__proc_last_line(&r, line, sizeof(line)), "err2");
	air__proc_result_dispose(&r);
}

AIR_TEST(proc__arguments_are_not_shell_parsed)
{
	const char *argv[] = {"printf", "%s|", "a b", "$HOME", "'q'", ";rm -rf /", NULL};
	air__proc_result r;

	ASSERT_EQ_INT(air__proc_run(argv, NULL, &r, NULL), AIR_OK);
	ASSERT_EQ_STR(air__buf_cstr(&r.out), "a b|$HOME|'q'|;rm -rf /|");
	air__proc_result_dispose(&r);
}

AIR_TEST(proc__environment_additions)
{
	const char *env[] = {"AIR_PROC_TEST=added", "HOME=/replaced", NULL};
	const char *argv[] = {"sh", "-c", "echo \"$AIR_PROC_TEST $HOME\"", NULL};
	air__proc_opts o = AIR__PROC_OPTS_INIT;
	air__proc_result r;

	o.env_add = env;
	ASSERT_EQ_INT(air__proc_run(argv, &o, &r, NULL), AIR_OK);
	ASSERT_EQ_STR(air__buf_cstr(&r.out), "added /replaced\n");
	air__proc_result_dispose(&r);
}

AIR_TEST(proc__missing_program)
{
	const char *argv[] = {"air-no-such-program-xyz", NULL};
	air__proc_result r;
	air_error *err = NULL;

	ASSERT_EQ_INT(air__proc_run(argv, NULL, &r, &err), AIR_EIO);
	ASSERT_CONTAINS(air_error_message(err), "air-no-such-program-xyz");
	ASSERT_EQ_INT(r.exit_code, 127);
	air_error_free(err);
	air__proc_result_dispose(&r);
}

AIR_TEST(proc__timeout_kills)
{
	const char *argv[] = {"sleep", "30", NULL};
	air__proc_opts o = AIR__PROC_OPTS_INIT;
	air__proc_result r;
	int64_t t0 = air__mono_ms();

	o.timeout_ms = 200;
	ASSERT_EQ_INT(air__proc_run(argv, &o, &r, NULL), AIR_OK);
	ASSERT_TRUE(r.timed_out);
	ASSERT_FALSE(air__proc_ok(&r));
	ASSERT_TRUE(air__mono_ms() - t0 < 5000);
	air__proc_result_dispose(&r);
}

AIR_TEST(proc__stdout_overflow_kills_or_keeps_tail)
{
	const char *argv[] = {"sh", "-c", "i=0; while [ $i -lt 2000 ]; do echo line$i; i=$((i+1)); done", NULL};
	air__proc_opts o = AIR__PROC_OPTS_INIT;
	air__proc_result r;

	o.stdout_limit = 1000;
	ASSERT_EQ_INT(air__proc_run(argv, &o, &r, NULL), AIR_OK);
	ASSERT_TRUE(r.overflow);
	ASSERT_TRUE(r.out.len <= 1000);
	air__proc_result_dispose(&r);

	o.stdout_keep_tail = true;
	ASSERT_EQ_INT(air__proc_run(argv, &o, &r, NULL), AIR_OK);
	ASSERT_FALSE(r.overflow);
	ASSERT_TRUE(air__proc_ok(&r));
	ASSERT_EQ_INT(r.out.len, 1000);
	ASSERT_TRUE(air__ends_with(air__buf_cstr(&r.out), "line1999\n"));
	air__proc_result_dispose(&r);
}

static void *raise_later(void *intr)
{
	usleep(100 * 1000);
	air_interrupt_trigger(intr);
	return NULL;
}

AIR_TEST(proc__interrupt)
{
	const char *argv[] = {"sleep", "30", NULL};
	air__proc_opts o = AIR__PROC_OPTS_INIT;
	air__proc_result r;
	air_interrupt *intr = NULL;
	air_error *err = NULL;
	air__call_opts call = AIR__CALL_OPTS_INIT;
	air__ctx ctx;
	pthread_t t;

	ASSERT_EQ_INT(air_interrupt_new(&intr), AIR_OK);
	call.intr = intr;
	air__ctx_init(&ctx, &call, NULL);
	o.ctx = &ctx;
	pthread_create(&t, NULL, raise_later, intr);
	ASSERT_EQ_INT(air__proc_run(argv, &o, &r, &err), AIR_EINTERRUPTED);
	pthread_join(t, NULL);
	air_error_free(err);
	air__proc_result_dispose(&r);
	air_interrupt_free(intr);
}

AIR_TEST(proc__deadline_kills_the_program)
{
	const char *argv[] = {"sleep", "30", NULL};
	air__proc_opts o = AIR__PROC_OPTS_INIT;
	air__proc_result r;
	air_error *err = NULL;
	air__call_opts call = AIR__CALL_OPTS_INIT;
	air__ctx ctx;

	call.deadline_ms = 200;
	air__ctx_init(&ctx, &call, NULL);
	o.ctx = &ctx;
	/* The program would sleep 30 s; the deadline ends the call, not the clock. */
	ASSERT_EQ_INT(air__proc_run(argv, &o, &r, &err), AIR_ETIMEOUT);
	ASSERT_EQ_INT(air_error_kind(err), AIR_KIND_TRANSIENT);
	ASSERT_CONTAINS(air_error_message(err), "deadline");
	ASSERT_FALSE(r.timed_out);
	air_error_free(err);
	air__proc_result_dispose(&r);
}

AIR_TEST(proc__stdin_data_is_written_then_closed)
{
	const char *argv[] = {"sh", "-c", "read line; echo \"got:$line\"; cat | wc -c", NULL};
	static const char input[] = "registry.example.com\nrest";
	air__proc_opts o = AIR__PROC_OPTS_INIT;
	air__proc_result r;

	o.stdin_data = input;
	o.stdin_len = strlen(input);
	ASSERT_EQ_INT(air__proc_run(argv, &o, &r, NULL), AIR_OK);
	ASSERT_TRUE(air__proc_ok(&r));
	ASSERT_CONTAINS(air__buf_cstr(&r.out), "got:registry.example.com\n");
	ASSERT_CONTAINS(air__buf_cstr(&r.out), "4");
	air__proc_result_dispose(&r);
}

/* A program that never reads a large input neither blocks the runner nor
 * kills it with SIGPIPE. */
AIR_TEST(proc__unread_stdin_is_harmless)
{
	const char *argv[] = {"sh", "-c", "exec 0<&-; echo done", NULL};
	size_t n = 1 << 20;
	char *big = malloc(n);
	air__proc_opts o = AIR__PROC_OPTS_INIT;
	air__proc_result r;

	ASSERT_NOT_NULL(big);
	memset(big, 'x', n);
	o.stdin_data = big;
	o.stdin_len = n;
	ASSERT_EQ_INT(air__proc_run(argv, &o, &r, NULL), AIR_OK);
	ASSERT_EQ_STR(air__buf_cstr(&r.out), "done\n");
	ASSERT_EQ_INT(r.exit_code, 0);
	air__proc_result_dispose(&r);
	free(big);
}

/* A program that leaves a background process holding its output pipes is
 * done when it exits: what it wrote until then is kept, nothing waits for
 * the pipes' end (the background process would hold them for 10 minutes). */
AIR_TEST(proc__done_when_the_program_exits)
{
	const char *argv[] = {"sh", "-c", "sleep 600 & echo $! >&2; "
	                      "head -c 200000 /dev/zero | tr '\\000' x; exit 4", NULL};
	air__proc_opts o = AIR__PROC_OPTS_INIT;
	air__proc_result r;
	long pid;

	o.timeout_ms = 20000;
	o.stdout_limit = 256 * 1024;
	ASSERT_EQ_INT(air__proc_run(argv, &o, &r, NULL), AIR_OK);
	pid = atol(air__buf_cstr(&r.err));
	if (pid > 0)
		kill((pid_t)pid, SIGKILL);
	ASSERT_TRUE(pid > 0);
	ASSERT_FALSE(r.timed_out);
	ASSERT_EQ_INT(r.exit_code, 4);
	ASSERT_EQ_INT(r.out.len, 200000);
	ASSERT_EQ_INT(strspn(air__buf_cstr(&r.out), "x"), 200000);
	air__proc_result_dispose(&r);
}

/* A program ended by a signal reports it. */
AIR_TEST(proc__signal_that_ended_the_program)
{
	const char *argv[] = {"sh", "-c", "kill -TERM $$", NULL};
	air__proc_result r;

	ASSERT_EQ_INT(air__proc_run(argv, NULL, &r, NULL), AIR_OK);
	ASSERT_EQ_INT(r.exit_code, -1);
	ASSERT_EQ_INT(r.term_signal, SIGTERM);
	ASSERT_FALSE(air__proc_ok(&r));
	air__proc_result_dispose(&r);
}
