/* interrupt.c: Ctrl-C. SIGINT and SIGTERM raise the process's air_interrupt,
 * which every blocking call carries in its options: a wait wakes at once, a
 * transfer is abandoned, a docker command is killed, and the command reports
 * "Error: interrupted" on stderr (no JSON envelope: an interruption is not a
 * result) and exits 1. The exit status is only ever 0 or 1
 * (docs/cli.md#in-ci-json-output-and-exit-codes), so not the shell's 128 +
 * SIGINT. Nothing more is sent to the workspace: a watched or followed run
 * keeps going. Three cases differ: Ctrl-C at a confirmation prompt declines
 * it; during the optional MLflow-link lookup after a submission it only ends
 * that lookup (the run is submitted: exit 0); and during `air cancel
 * --sweep`'s looks for runs started meanwhile it only ends the looks (the
 * runs found are cancelled and reported). Only the first signal of each
 * kind is caught: a second one while stopping ends the process the default way. */
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"

static air_interrupt *intr;
static air_call_options *call_opts;
/* Read by the handler: set before the handlers are installed, cleared after
 * they are removed. */
static air_interrupt *volatile handler_intr;

static void on_signal(int sig)
{
	air_interrupt *i = handler_intr;

	(void)sig;
	if (i)
		air_interrupt_trigger(i); /* async-signal-safe */
}

/* @once: back to the default action after the first signal. */
static void set_handler(int sig, void (*fn)(int), bool once)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = fn;
	/* No SA_RESTART: a read() blocked at a prompt returns at once. */
	sa.sa_flags = once ? (int)SA_RESETHAND : 0;
	sigemptyset(&sa.sa_mask);
	sigaction(sig, &sa, NULL);
}

bool cli_interrupt_install(void)
{
	int rc = air_interrupt_new(&intr);

	if (rc == AIR_OK)
		rc = air_call_options_new(&call_opts);
	if (rc == AIR_OK)
		rc = air_call_options_set_interrupt(call_opts, intr);
	if (rc != AIR_OK) {
		cli_error("cannot prepare Ctrl-C handling: %s", air_strerror(rc));
		cli_interrupt_uninstall();
		return false;
	}
	handler_intr = intr;
	set_handler(SIGINT, on_signal, true);
	set_handler(SIGTERM, on_signal, true);
	return true;
}

void cli_interrupt_uninstall(void)
{
	if (handler_intr) {
		set_handler(SIGINT, SIG_DFL, false);
		set_handler(SIGTERM, SIG_DFL, false);
		handler_intr = NULL;
	}
	air_call_options_free(call_opts);
	call_opts = NULL;
	air_interrupt_free(intr);
	intr = NULL;
}

air_interrupt *cli_interrupt(void) { return intr; }

const air_call_options *cli_call_options(void) { return call_opts; }

bool cli_interrupted(void) { return intr && air_interrupt_is_triggered(intr); }

int cli_report_interrupted(void) { return cli_error("interrupted"); }

bool cli_wait_stdin(void)
{
	struct pollfd p = {STDIN_FILENO, POLLIN, 0};

	/* Short slices: a signal that arrives just before poll() is seen within
	 * one slice instead of leaving the prompt blocked. */
	while (!cli_interrupted()) {
		int r = poll(&p, 1, 100);
		if (r > 0 || (r < 0 && errno != EINTR))
			break;
	}
	return !cli_interrupted();
}
