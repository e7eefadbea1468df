/*
 * node.c: a node of a local run — its guard process and its command
 * (supervisor.h explains the pair).
 */
#include "local/supervisor.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#ifdef __linux__
#  include <sys/prctl.h>
#endif
#include <unistd.h>

/* The supervisor died: the guard takes its whole group (itself included). */
static void on_supervisor_death(int sig)
{
	(void)sig;
	kill(0, SIGKILL);
}

/* A stop signal reached the guard: pass it on to the group once (the guard's
 * own copy comes back here and is dropped). It is blocked until the command
 * has been forked, so a stop that comes earlier is held, never lost. */
static volatile sig_atomic_t stop_passed_on;

static void on_stop(int sig)
{
	int saved = errno;

	if (!stop_passed_on) {
		stop_passed_on = 1;
		kill(0, sig);
	}
	errno = saved;
}

static void say(const char *a, const char *b, const char *c)
{
	char msg[1024];
	int n = snprintf(msg, sizeof(msg), "[air local] %s%s%s\n", a, b, c);

	if (n > 0 && write(2, msg, (size_t)n < sizeof(msg) ? (size_t)n : sizeof(msg) - 1) < 0)
		return;
}

static void close_from(int lowest)
{
	long max = sysconf(_SC_OPEN_MAX);

	if (max < 0 || max > 65536)
		max = 65536;
	for (int fd = lowest; fd < max; fd++)
		close(fd);
}

static void default_dispositions(void)
{
	for (int sig = 1; sig < NSIG; sig++)
		if (sig != SIGKILL && sig != SIGSTOP)
			signal(sig, SIG_DFL);
}

/* The signals held from the guard's fork until its command has been forked. */
static void stop_signals(sigset_t *set)
{
	sigemptyset(set);
	sigaddset(set, SIGTERM);
	sigaddset(set, SIGINT);
	sigaddset(set, SIGHUP);
}

static void default_signals(void)
{
	sigset_t none;

	default_dispositions();
	sigemptyset(&none);
	sigprocmask(SIG_SETMASK, &none, NULL);
}

/* In the command's process: never returns. */
static void run_command(const air__lnode_spec *s)
{
	char *argv[] = {(char *)s->shell, (char *)s->script, NULL};

	default_signals();
	if (chdir(s->cwd) != 0) {
		say("cannot enter the working directory ", s->cwd, "");
		_exit(127);
	}
	execve(s->shell, argv, s->env);
	say("cannot run ", s->shell, strerror(errno));
	_exit(127);
}

/* In the guard, which starts with the stop signals blocked: never returns. */
static void guard(const air__lnode_spec *s, pid_t supervisor)
{
	struct sigaction sa;
	sigset_t held;
	pid_t cmd;
	int st, nul = open("/dev/null", O_RDONLY);

	setpgid(0, 0);
	if (nul < 0 || dup2(nul, 0) < 0 || dup2(s->out_fd, 1) < 0 || dup2(s->out_fd, 2) < 0)
		_exit(126);
	/* Nothing of the supervisor's: not its lock, not the other nodes' pipes. */
	close_from(3);
	default_dispositions();
	memset(&sa, 0, sizeof(sa));
	sigemptyset(&sa.sa_mask);
	sa.sa_handler = on_supervisor_death;
	sigaction(SIGHUP, &sa, NULL);
	/* A stop is for the command and its children; the guard waits for them. */
	sa.sa_handler = on_stop;
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGINT, &sa, NULL);
#ifdef __linux__
	if (prctl(PR_SET_PDEATHSIG, SIGHUP) != 0)
		kill(0, SIGKILL);
#endif
	/* The supervisor may have died before the death signal was set up. */
	if (getppid() != supervisor)
		kill(0, SIGKILL);
	cmd = fork();
	if (cmd == 0)
		run_command(s);
	if (cmd < 0) {
		say("cannot start the node: ", strerror(errno), "");
		_exit(126);
	}
	/* The command exists (its copy of a held stop is delivered once it has
	 * restored the default actions): stops may be passed on now. */
	stop_signals(&held);
	sigprocmask(SIG_UNBLOCK, &held, NULL);
	while (waitpid(cmd, &st, 0) < 0)
		if (errno != EINTR)
			_exit(126);
	_exit(WIFEXITED(st) ? WEXITSTATUS(st) : 128 + (WIFSIGNALED(st) ? WTERMSIG(st) : 0));
}

pid_t air__lnode_start(const air__lnode_spec *spec)
{
	sigset_t held, before;
	pid_t me = getpid(), g;

	/* The guard starts with the stop signals blocked: one sent before it
	 * has set its handlers waits for them. */
	stop_signals(&held);
	sigprocmask(SIG_BLOCK, &held, &before);
	g = fork();
	if (g == 0)
		guard(spec, me);
	sigprocmask(SIG_SETMASK, &before, NULL);
	if (g > 0)
		setpgid(g, g); /* also done by the guard: whichever runs first */
	return g;
}
