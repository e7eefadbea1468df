/*
 * wait_runs.c: one client shared by several threads. Waits for every run
 * given on the command line at once, one thread per run, and prints each
 * run's final state as it ends. Ctrl-C stops every wait: one interrupt is in
 * the options of every call.
 *
 *     wait_runs RUN_ID...
 *
 * Exit status 0 when every run succeeded, 1 otherwise.
 */
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>

#include <air/air.h>

#define MAX_RUNS 64

static air_interrupt *stop;

static void on_sigint(int sig)
{
	(void)sig;
	air_interrupt_trigger(stop); /* async-signal-safe */
}

struct waiter {
	air_client *client; /* shared: an air_client may be used by many threads */
	int64_t run_id;
	int succeeded;
};

static void *wait_one(void *arg)
{
	struct waiter *w = arg;
	air_wait_options *opts = NULL; /* every other handle belongs to one thread */
	air_run *run = NULL;
	air_error *err = NULL;
	int rc = air_wait_options_new(&opts);

	if (rc == AIR_OK)
		rc = air_wait_options_set_interrupt(opts, stop);
	if (rc == AIR_OK)
		rc = air_wait_options_set_int(opts, AIR_WAIT_POLL_INTERVAL_MS, 500);
	if (rc == AIR_OK)
		rc = air_client_wait_run(w->client, w->run_id, opts, &run, &err);
	if (rc == AIR_OK) {
		printf("run %lld: %s\n", (long long)w->run_id, air_run_state_name(run));
		w->succeeded = air_run_succeeded(run);
	} else {
		printf("run %lld: %s\n", (long long)w->run_id,
		       err ? air_error_message(err) : air_strerror(rc));
	}
	fflush(stdout);
	air_run_free(run);
	air_error_free(err);
	air_wait_options_free(opts);
	return NULL;
}

int main(int argc, char **argv)
{
	struct waiter waiters[MAX_RUNS];
	pthread_t threads[MAX_RUNS];
	air_client *client = NULL;
	air_error *err = NULL;
	int n = argc - 1, started = 0, status = 0;

	if (n < 1 || n > MAX_RUNS) {
		fprintf(stderr, "usage: %s RUN_ID... (at most %d)\n", argv[0], MAX_RUNS);
		return 2;
	}
	if (air_interrupt_new(&stop) != AIR_OK || air_client_new(NULL, &client, &err) != AIR_OK) {
		fprintf(stderr, "%s\n", err ? air_error_message(err) : "out of resources");
		air_error_free(err);
		air_interrupt_free(stop);
		return 1;
	}
	signal(SIGINT, on_sigint);
	for (int i = 0; i < n; i++) {
		waiters[i] = (struct waiter){client, strtoll(argv[i + 1], NULL, 10), 0};
		if (pthread_create(&threads[i], NULL, wait_one, &waiters[i]) != 0)
			break;
		started++;
	}
	for (int i = 0; i < started; i++) {
		pthread_join(threads[i], NULL);
		if (!waiters[i].succeeded)
			status = 1;
	}
	if (started < n)
		status = 1;
	air_client_free(client); /* after every thread is done with it */
	signal(SIGINT, SIG_DFL);
	air_interrupt_free(stop);
	return status;
}
