/*
 * node.c: a node of a local run — its guard process and its command
 * (supervisor.h explains the pair) — and the processes nodes leave behind
 * outside their process groups, which the supervisor adopts and ends.
 */
#include "local/supervisor.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <sched.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#ifdef __linux__
#  include <sys/prctl.h>
#  include <sys/syscall.h>
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

/* "[air local] <a><b>", then ": <why>" unless @why is empty, on stderr. */
static void say(const char *a, const char *b, const char *why)
{
	char msg[1024];
	int n = snprintf(msg, sizeof(msg), "[air local] %s%s%s%s\n", a, b, *why ? ": " : "", why);

	if (n > 0 && write(2, msg, (size_t)n < sizeof(msg) ? (size_t)n : sizeof(msg) - 1) < 0)
		return;
}

void air__lclose_from(int lowest)
{
	long max;

#if defined(__linux__) && defined(SYS_close_range)
	/* One call, however high the open-file limit (Linux 5.9). */
	if (syscall(SYS_close_range, (unsigned)lowest, ~0U, 0) == 0)
		return;
#endif
	max = sysconf(_SC_OPEN_MAX);
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

/* Start the command (bash command.sh) in the node's working directory, with
 * default signal actions and nothing blocked: posix_spawn() (no copy of the
 * guard's memory, as a fork would make). Its pid, or -1 with errno. */
static pid_t spawn_command(const air__lnode_spec *s)
{
	char *argv[] = {(char *)s->shell, (char *)s->script, NULL};
	posix_spawnattr_t attr;
	sigset_t none, all;
	pid_t pid = -1;
	int e;

	if (chdir(s->cwd) != 0) {
		say("cannot enter the working directory ", s->cwd, "");
		errno = ENOENT;
		return -1;
	}
	if ((e = posix_spawnattr_init(&attr)) != 0) {
		errno = e;
		return -1;
	}
	sigemptyset(&none);
	sigfillset(&all);
	sigdelset(&all, SIGKILL);
	sigdelset(&all, SIGSTOP);
	posix_spawnattr_setsigmask(&attr, &none);
	posix_spawnattr_setsigdefault(&attr, &all);
	posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF);
	e = posix_spawn(&pid, s->shell, NULL, &attr, argv, s->env);
	posix_spawnattr_destroy(&attr);
	if (e != 0) {
		say("cannot run ", s->shell, strerror(e));
		errno = e;
		return -1;
	}
	return pid;
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
	air__lclose_from(3);
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
	if ((cmd = spawn_command(s)) < 0)
		_exit(127);
	/* The command exists (a stop held until now reaches it with the default
	 * actions): stops may be passed on now. */
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

/* ---- where nodes run ------------------------------------------------------------------- */

/* Every CPU: the kernel keeps those of this process's cpuset, and the
 * process follows the cpuset when it changes. */
static void all_cpus(cpu_set_t *cpus)
{
	CPU_ZERO(cpus);
	for (int i = 0; i < CPU_SETSIZE; i++)
		CPU_SET(i, cpus);
}

/* @list ("0,1,3") as a set; false when it is not such a list. */
static bool parse_cpus(const char *list, cpu_set_t *cpus)
{
	const char *p = list;

	CPU_ZERO(cpus);
	for (;;) {
		char *end;
		long cpu;

		errno = 0;
		cpu = strtol(p, &end, 10);
		if (end == p || errno || cpu < 0 || cpu >= CPU_SETSIZE || (*end && *end != ','))
			return false;
		CPU_SET((int)cpu, cpus);
		if (!*end)
			return true;
		p = end + 1;
	}
}

void air__lnode_take_cpus(const char *list)
{
	cpu_set_t want, all, allowed;

	if (!strcmp(list, "-"))
		return;
	all_cpus(&all);
	if (!parse_cpus(list, &want)) {
		fprintf(stderr, "air-local-supervisor: CPUS is not a list of CPU numbers: %s\n", list);
		sched_setaffinity(0, sizeof(all), &all);
		return;
	}
	/* All that this process may have: as if nobody had chosen. */
	if (sched_setaffinity(0, sizeof(all), &all) == 0 &&
	    sched_getaffinity(0, sizeof(allowed), &allowed) == 0 && CPU_EQUAL(&allowed, &want))
		return;
	if (sched_setaffinity(0, sizeof(want), &want) != 0)
		fprintf(stderr, "air-local-supervisor: cannot run on CPUs %s (%s): on every CPU\n",
		        list, strerror(errno));
}

/* ---- processes left behind ------------------------------------------------------------ */

bool air__lnode_adopt_orphans(void)
{
#ifdef PR_SET_CHILD_SUBREAPER
	return prctl(PR_SET_CHILD_SUBREAPER, 1) == 0;
#else
	return false;
#endif
}

/* The parent of process @pid from /proc/<pid>/stat ("pid (comm) state ppid ..."),
 * or 0. */
static pid_t parent_of(const char *pid)
{
	char path[64], text[512];
	const char *paren;
	int fd, ppid = 0;
	ssize_t n;

	snprintf(path, sizeof(path), "/proc/%s/stat", pid);
	if ((fd = open(path, O_RDONLY | O_CLOEXEC)) < 0)
		return 0;
	n = read(fd, text, sizeof(text) - 1);
	close(fd);
	if (n <= 0)
		return 0;
	text[n] = '\0';
	/* The command name may hold anything, ")" included: the last one ends it. */
	if (!(paren = strrchr(text, ')')) || sscanf(paren + 1, " %*c %d", &ppid) != 1)
		return 0;
	return (pid_t)ppid;
}

/* Signal every child of this process (its group when it leads one); the
 * number signalled. */
static size_t signal_children(int sig)
{
	DIR *d = opendir("/proc");
	struct dirent *e;
	pid_t me = getpid();
	size_t n = 0;

	while (d && (e = readdir(d)) != NULL) {
		char *end;
		long pid = strtol(e->d_name, &end, 10);

		if (pid <= 0 || *end || parent_of(e->d_name) != me)
			continue;
		kill(getpgid((pid_t)pid) == (pid_t)pid ? (pid_t)-pid : (pid_t)pid, sig);
		n++;
	}
	if (d)
		closedir(d);
	return n;
}

/* Reap the children that have exited; false when none is left. */
static bool reap_children(void)
{
	for (;;) {
		pid_t r = waitpid(-1, NULL, WNOHANG);

		if (r > 0)
			continue;
		return !(r < 0 && errno == ECHILD);
	}
}

void air__lwake_drain(int wake)
{
	char drain[256];

	while (read(wake, drain, sizeof(drain)) > 0)
		;
}

void air__lnode_end_strays(int wake, int64_t grace_ms)
{
	int64_t end = air__mono_ms() + grace_ms;

	/* Nothing left behind (the common case), or nothing /proc shows. */
	if (!reap_children() || signal_children(SIGTERM) == 0)
		return;
	while (reap_children()) {
		struct pollfd p = {wake, POLLIN, 0};
		int64_t left = end - air__mono_ms();

		if (left <= 0)
			break;
		/* SIGCHLD writes to @wake. */
		if (poll(&p, 1, (int)(left < 200 ? left : 200)) > 0)
			air__lwake_drain(wake);
	}
	/* What is left, and what its children become as they are orphaned. */
	while (reap_children() && signal_children(SIGKILL) > 0)
		if (waitpid(-1, NULL, 0) < 0 && errno == ECHILD)
			break;
}
