/* test_logs_waiting.c: the waiting message text of
 * docs/runs-and-logs.md#waiting-message (pure). */
#include <string.h>

#include "logs/logs.h"
#include "test.h"

/* The status text of @message, or "(none)". */
static void expect_status(const char *message, const char *want)
{
	char *got = air__logs_status_text(message);

	if (!want) {
		if (got)
			FAIL("\"%s\": expected nothing, got \"%s\"", message ? message : "(null)", got);
		return;
	}
	if (!got)
		FAIL("\"%s\": expected \"%s\", got nothing", message, want);
	if (strcmp(got, want) != 0) {
		char copy[256];
		snprintf(copy, sizeof(copy), "%s", got);
		air__free(got);
		FAIL("\"%s\": expected \"%s\", got \"%s\"", message, want, copy);
	}
	air__free(got);
}

AIR_TEST(waiting__status_payload_gets_one_ellipsis)
{
	expect_status("STATUS:Allocating nodes..", "Allocating nodes...");
	expect_status("STATUS:Allocating nodes", "Allocating nodes...");
	expect_status("STATUS:Allocating nodes...", "Allocating nodes...");
	expect_status("STATUS:Allocating nodes.....", "Allocating nodes...");
	expect_status("STATUS:Step 1.5 of 2.", "Step 1.5 of 2...");
	/* Only the first colon separates: the payload may hold more. */
	expect_status("STATUS:Pulling image: nvcr.io/x:1", "Pulling image: nvcr.io/x:1...");
}

AIR_TEST(waiting__type_is_trimmed_and_case_insensitive)
{
	expect_status("status:Allocating", "Allocating...");
	expect_status("Status:Allocating", "Allocating...");
	expect_status("  STATUS\t:Allocating", "Allocating...");
	expect_status("\nsTaTuS :x", "x...");
}

AIR_TEST(waiting__payload_is_trimmed)
{
	expect_status("STATUS:   Allocating nodes  ", "Allocating nodes...");
	expect_status("STATUS:\tAllocating nodes..\r\n", "Allocating nodes...");
	/* Trimmed first, then the dots: inner spaces stay. */
	expect_status("STATUS: Allocating nodes .. ", "Allocating nodes ...");
}

AIR_TEST(waiting__other_types_are_ignored)
{
	expect_status("INFO:Allocating nodes", NULL);
	expect_status("ERROR:boom", NULL);
	expect_status("STATUSES:x", NULL);
	expect_status("STATU:x", NULL);
	expect_status("MY STATUS:x", NULL);
	expect_status(":x", NULL);
	expect_status("Allocating nodes", NULL); /* no colon */
	expect_status("", NULL);
	expect_status(NULL, NULL);
}

AIR_TEST(waiting__blank_payload_shows_nothing)
{
	expect_status("STATUS:", NULL);
	expect_status("STATUS:   ", NULL);
	expect_status("STATUS: \t\n", NULL);
	expect_status("STATUS:...", NULL);
	expect_status("STATUS:  . ", NULL);
}

static air_run *run_in(const char *life_cycle)
{
	char text[128];
	json_t *obj;
	air_run *run = NULL;
	air_error *err = NULL;

	snprintf(text, sizeof(text), "{\"run_id\":7,\"state\":{\"life_cycle_state\":\"%s\"}}",
	         life_cycle);
	obj = json_loads(text, 0, NULL);
	ASSERT_NOT_NULL(obj);
	ASSERT_OK(air__run_from_json(obj, &run, &err), err);
	return run;
}

static void expect_waiting(const air_run *run, const char *message, int32_t node,
                           const char *want)
{
	char *got = air__logs_waiting_text(run, message, node);

	ASSERT_NOT_NULL(got);
	if (strcmp(got, want) != 0) {
		char copy[256];
		snprintf(copy, sizeof(copy), "%s", got);
		air__free(got);
		FAIL("expected \"%s\", got \"%s\"", want, copy);
	}
	air__free(got);
}

AIR_TEST(waiting__fallback_texts)
{
	air_run *pending = run_in("PENDING"), *running = run_in("RUNNING"), *queued = run_in("QUEUED");

	/* A usable status message wins in any state. */
	expect_waiting(pending, "STATUS:Allocating nodes..", 0, "Allocating nodes...");
	expect_waiting(running, "STATUS:Pulling image", 3, "Pulling image...");
	/* Otherwise: capacity while PENDING, the node start in any other state. */
	expect_waiting(pending, NULL, 0, "Waiting for accelerator capacity...");
	expect_waiting(pending, "INFO:x", 2, "Waiting for accelerator capacity...");
	expect_waiting(pending, "STATUS:  ", 0, "Waiting for accelerator capacity...");
	expect_waiting(running, NULL, 0, "Waiting for the run to start on node 0...");
	expect_waiting(running, "INFO:x", 5, "Waiting for the run to start on node 5...");
	expect_waiting(queued, NULL, 1, "Waiting for the run to start on node 1...");
	air_run_free(pending);
	air_run_free(running);
	air_run_free(queued);
}
