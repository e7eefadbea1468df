/* run_submit.c: the submission half of `air run` (docs/submit.md#sequence,
 * docs/submit.md#air-run-output). Every failure up to and including the
 * submission is a plain `Error:` line on stderr with exit 1, in JSON mode too. */
#include <inttypes.h>
#include <string.h>

#include "cli.h"

/* The MLflow links are looked up for about a second (3 reads 500 ms apart). */
#define MLFLOW_POLLS 3
#define MLFLOW_INTERVAL_MS 500

typedef struct progress_state {
	int32_t phase;      /* phase of the line being updated in place */
	bool tty;           /* stderr is a terminal: every phase, uploads updated in place */
	bool announced;     /* the "Uploading <archive>..." line was printed */
} progress_state;

/* The archive name of a code_source_path. */
static const char *archive_name(const char *path)
{
	const char *slash = path ? strrchr(path, '/') : NULL;
	return slash ? slash + 1 : path;
}

static const char *phase_label(int32_t phase)
{
	switch (phase) {
	case AIR_PHASE_IDENTITY:
		return "Looking up the current user";
	case AIR_PHASE_PREFLIGHT:
		return "Validating the configuration in the workspace";
	case AIR_PHASE_POLICY:
		return "Resolving usage policy";
	case AIR_PHASE_DIRECTORY:
		return "Preparing directory";
	case AIR_PHASE_IMAGE:
		return "Checking image";
	case AIR_PHASE_ARTIFACTS:
		return "Uploading launch files to";
	case AIR_PHASE_PACKAGING:
		return "Packaging code from";
	case AIR_PHASE_SNAPSHOT:
		return "Looking for the code snapshot";
	case AIR_PHASE_SUBMIT:
		return "Submitting the run of";
	case AIR_PHASE_PERMISSIONS:
		return "Granting the permissions on the MLflow experiment of";
	default:
		return NULL;
	}
}

/* Progress in text mode. Off a terminal only the code snapshot's upload is
 * announced ("Uploading <archive>..."); on one, a line per phase, uploads
 * updated in place with the bytes sent. */
static int on_progress(const air_progress *ev, void *userdata)
{
	progress_state *st = userdata;
	int32_t phase = air_progress_phase(ev);
	const char *label = phase_label(phase), *detail = air_progress_detail(ev);
	int64_t done = air_progress_bytes_done(ev), total = air_progress_bytes_total(ev);
	char upload[512];

	if (phase == AIR_PHASE_SNAPSHOT && total > 0) {
		/* the snapshot itself (not the look-up of an existing one) */
		snprintf(upload, sizeof(upload), "Uploading %s...", archive_name(detail));
		label = upload;
		detail = NULL;
		if (!st->tty) {
			if (!st->announced)
				fprintf(stderr, "%s\n", upload);
			st->announced = true;
			fflush(stderr);
			return 0;
		}
	}
	if (!label || !st->tty)
		return 0;
	if (phase != st->phase || done == 0) {
		if (st->phase)
			fputc('\n', stderr);
		fprintf(stderr, "%s%s%s", label, detail ? " " : "", detail ? detail : "");
		st->phase = phase;
	}
	if (total > 0 && (phase == AIR_PHASE_ARTIFACTS || phase == AIR_PHASE_SNAPSHOT))
		fprintf(stderr, "\r%s%s%s (%" PRId64 "/%" PRId64 " KiB)", label, detail ? " " : "",
		        detail ? detail : "", (done + 1023) / 1024, (total + 1023) / 1024);
	fflush(stderr);
	return 0;
}

static void print_submitted(const air_submission *sub)
{
	printf("Job Run ID: %" PRId64 "\n", air_submission_run_id(sub));
	printf("Dashboard: %s\n", air_submission_dashboard_url(sub));
	fflush(stdout);
}

void cli_print_mlflow_links(air_client *client, int64_t run_id)
{
	char *run_url = NULL, *exp_url = NULL;

	if (air_client_poll_mlflow_links(client, run_id, MLFLOW_POLLS, MLFLOW_INTERVAL_MS,
	                                 cli_call_options(), &run_url, &exp_url, NULL) == AIR_OK &&
	    run_url) {
		printf("MLflow run: %s\n", cli_clean(run_url));
		printf("MLflow experiment: %s\n", cli_clean(exp_url));
		fflush(stdout);
	}
	air_free(run_url);
	air_free(exp_url);
}

/* The options of the submission (and of its dry run). */
static int submit_options(const cli_globals *g, const cli_run_request *req, progress_state *st,
                          air_submit_options **out)
{
	int rc = air_submit_options_new(out);

	if (rc == AIR_OK)
		rc = air_submit_options_set_interrupt(*out, cli_interrupt());
	if (rc == AIR_OK && req->idempotency_key)
		rc = air_submit_options_set_str(*out, AIR_SUBMIT_IDEMPOTENCY_KEY, req->idempotency_key);
	if (rc == AIR_OK && !g->json)
		rc = air_submit_options_set_progress_cb(*out, on_progress, st);
	return rc;
}

/* Submit, or with req->dry_run only run the checks that need no workspace. */
static int submit(const cli_globals *g, air_client *client, const air_config *cfg,
                  const cli_run_request *req, air_submission **sub)
{
	air_submit_options *opts = NULL;
	progress_state st = {0, cli_isatty_stderr(), false};
	air_error *err = NULL;
	int rc = submit_options(g, req, &st, &opts);

	if (rc == AIR_OK)
		rc = req->dry_run ? air_config_check_submission(cfg, opts, &err)
		                  : air_client_submit(client, cfg, opts, sub, &err);
	if (st.phase)
		fputc('\n', stderr);
	air_submit_options_free(opts);
	if (rc != AIR_OK) {
		cli_error_air(err, rc);
		air_error_free(err);
		return 1;
	}
	return 0;
}

/* --check: the check before anything else (with --dry-run only its checks
 * that need no workspace); its failures and warnings on stderr. 0 to go on. */
static int pre_check(const cli_globals *g, air_client *client, const air_config *cfg,
                     const cli_run_request *req)
{
	cli_check_request creq = {req->idempotency_key, false, req->dry_run, false};
	air_check_report *report = NULL;
	size_t failed = 0;
	int rc;

	if (!req->check)
		return 0;
	if (cli_check(g, client, cfg, &creq, &report) != 0)
		return 1;
	for (size_t i = 0; i < air_check_report_count(report); i++) {
		const air_check *c = air_check_report_get(report, i);
		if (air_check_status(c) == AIR_CHECK_FAIL || air_check_status(c) == AIR_CHECK_WARN)
			cli_print_check(stderr, c);
		failed += air_check_status(c) == AIR_CHECK_FAIL;
	}
	rc = air_check_report_ok(report) ? 0 : cli_error("the check failed (%zu failed check%s): "
	                                                 "nothing was submitted", failed,
	                                                 failed == 1 ? "" : "s");
	air_check_report_free(report);
	return rc;
}

void cli_print_warnings(const air_submission *sub)
{
	for (size_t i = 0; i < air_submission_warning_count(sub); i++)
		fprintf(stderr, "Warning: %s\n", cli_clean(air_submission_warning(sub, i)));
}

/* --dry-run: what the submission checks offline; no credentials, no request. */
static int dry_run(const cli_globals *g, const air_config *cfg, const cli_run_request *req)
{
	air_client *client = NULL;
	air_error *err = NULL;
	json_t *data;
	int rc;

	if (req->check) {
		/* offline: the client is never resolved */
		if ((rc = cli_client_new(g, &client, &err)) != AIR_OK) {
			cli_error_air(err, rc);
			air_error_free(err);
			return 1;
		}
		rc = pre_check(g, client, cfg, req);
		cli_client_free(client);
		if (rc != 0)
			return 1;
	}
	if (submit(g, NULL, cfg, req, NULL) != 0)
		return 1;
	if (!g->json) {
		fprintf(stderr, "Configuration for experiment '%s' is valid; nothing was submitted (dry "
		        "run).\n", air_config_experiment_name(cfg));
		return 0;
	}
	data = json_object();
	json_object_set_new(data, "status", json_string("DRY_RUN_OK"));
	json_object_set_new(data, "dry_run", json_true());
	return cli_print_data(data);
}

int cli_run_submit(const cli_globals *g, const air_config *cfg, const cli_run_request *req)
{
	air_client *client = NULL;
	air_submission *sub = NULL;
	air_error *err = NULL;
	int rc;

	if (req->dry_run)
		return dry_run(g, cfg, req);
	rc = cli_client_new(g, &client, &err);

	if (rc != AIR_OK) {
		cli_error_air(err, rc);
		air_error_free(err);
		return 1;
	}
	if ((rc = pre_check(g, client, cfg, req)) != 0)
		goto out;
	if (!g->json)
		fprintf(stderr, "Submitting experiment '%s'...\n", air_config_experiment_name(cfg));
	rc = submit(g, client, cfg, req, &sub);
	if (rc != 0)
		goto out;
	cli_print_warnings(sub);
	if (req->watch) {
		/* JSON: cli_watch() starts with the SUBMITTED event. */
		if (!g->json)
			print_submitted(sub);
		rc = cli_watch(g, client, air_submission_run_id(sub), air_submission_dashboard_url(sub));
	} else if (g->json) {
		char id[24];
		json_t *data = json_object();
		snprintf(id, sizeof(id), "%" PRId64, air_submission_run_id(sub));
		json_object_set_new(data, "status", json_string("PENDING"));
		json_object_set_new(data, "run_id", json_string(id));
		json_object_set_new(data, "dashboard_url", json_string(air_submission_dashboard_url(sub)));
		rc = cli_print_data(data);
	} else {
		print_submitted(sub);
		cli_print_mlflow_links(client, air_submission_run_id(sub));
		fprintf(stderr, "Tip: add --watch to follow the logs until the run ends (or run: air logs%s %"
		        PRId64 ").\n", cli_target_flags(), air_submission_run_id(sub));
		rc = 0;
	}
out:
	air_submission_free(sub);
	cli_client_free(client);
	return rc;
}
