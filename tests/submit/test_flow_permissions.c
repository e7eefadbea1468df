/* test_flow_permissions.c: a workload's permissions granted on the MLflow
 * experiment its run writes to, after runs/submit
 * (docs/submit.md#the-experiments-permissions): the experiment found by name
 * or created, the levels mapped, and every failure a warning of the
 * submission, whose run stands. */
#include <stdio.h>
#include <string.h>

#include "submit_test.h"
#include "test.h"

AIR_TEST_HOOKS(flow_setup, NULL)

#define WORKLOAD "experiment_name: smoke-test\ncommand: python train.py\n" \
                 "compute: {accelerator_type: GPU_1xH100, num_accelerators: 1}\n"
#define GRANTS "permissions:\n  - {user_name: a@b.com, level: CAN_VIEW}\n" \
               "  - {group_name: ops, level: CAN_MANAGE_RUN}\n" \
               "  - {service_principal_name: sp-1, level: IS_OWNER}\n"
#define EXPERIMENT "/Users/tester@databricks.com/smoke-test"

static air_submission *submit(const char *yaml)
{
	air_config *cfg = load_yaml(air_test_tmpdir(), "w.yaml", yaml);
	air_client *c = fakews_client(flow_fw);
	air_submission *sub = NULL;
	air_error *err = NULL;

	ASSERT_OK(air_client_submit(c, cfg, NULL, &sub, &err), err);
	air_client_free(c);
	air_config_free(cfg);
	return sub;
}

/* The experiments of the fake workspace. */
static json_t *experiments(void)
{
	json_t *reply = fakews_call(flow_fw, "GET", "/__fakews/experiments", NULL);
	json_t *e = json_incref(json_object_get(reply, "experiments"));

	json_decref(reply);
	return e;
}

AIR_TEST(permissions__granted_on_the_experiment_too)
{
	air_submission *sub = submit(WORKLOAD GRANTS);
	json_t *exps = experiments(), *exp = json_object_get(exps, EXPERIMENT);

	ASSERT_EQ_INT(air_submission_warning_count(sub), 0);
	ASSERT_NOT_NULL(exp);
	assert_json_eq(json_incref(json_object_get(exp, "acl")),
	               "[{\"user_name\":\"a@b.com\",\"permission_level\":\"CAN_READ\"},"
	               "{\"group_name\":\"ops\",\"permission_level\":\"CAN_EDIT\"},"
	               "{\"service_principal_name\":\"sp-1\",\"permission_level\":\"CAN_MANAGE\"}]");
	/* after the run: get-by-name (missing), create, grant */
	ASSERT_CONTAINS(request_log(), "POST /api/2.2/jobs/runs/submit\n"
	                               "GET /api/2.0/mlflow/experiments/get-by-name\n"
	                               "POST /api/2.0/mlflow/experiments/create\n"
	                               "PATCH /api/2.0/permissions/experiments/");
	json_decref(exps);
	air_submission_free(sub);
}

AIR_TEST(permissions__an_existing_experiment_in_its_directory)
{
	air_submission *sub;
	json_t *exps;

	json_decref(fakews_call(flow_fw, "POST", "/__fakews/experiments",
	                        "{\"experiments\":{\"/Workspace/Shared/exps/smoke-test\":{}}}"));
	sub = submit(WORKLOAD "mlflow_experiment_directory: /Workspace/Shared/exps\n"
	             "permissions: [{user_name: a@b.com, level: CAN_MANAGE}]\n");
	ASSERT_EQ_INT(air_submission_warning_count(sub), 0);
	exps = experiments();
	assert_json_eq(json_incref(json_object_get(json_object_get(exps,
	               "/Workspace/Shared/exps/smoke-test"), "acl")),
	               "[{\"user_name\":\"a@b.com\",\"permission_level\":\"CAN_MANAGE\"}]");
	ASSERT_EQ_INT(fakews_count(flow_fw, "POST", "/api/2.0/mlflow/experiments/create"), 0);
	json_decref(exps);
	air_submission_free(sub);
}

AIR_TEST(permissions__failures_are_warnings_and_the_run_stands)
{
	air_submission *sub;

	fakews_configf(flow_fw, "{\"experiments\":{\"manage\":false}}");
	sub = submit(WORKLOAD GRANTS);
	ASSERT_EQ_INT(air_submission_run_id(sub), 555);
	ASSERT_EQ_INT(air_submission_warning_count(sub), 1);
	ASSERT_CONTAINS(air_submission_warning(sub, 0), "the permissions were not granted on the "
	                "MLflow experiment " EXPERIMENT);
	ASSERT_CONTAINS(air_submission_warning(sub, 0), "does not have permission");
	ASSERT_NULL(air_submission_warning(sub, 1));
	air_submission_free(sub);
	/* a level without an experiment counterpart: the others are granted */
	fakews_reset(flow_fw);
	sub = submit(WORKLOAD "permissions:\n  - {user_name: a@b.com, level: CAN_DANCE}\n"
	             "  - {user_name: c@d.com, level: CAN_VIEW}\n");
	ASSERT_EQ_INT(air_submission_warning_count(sub), 1);
	ASSERT_CONTAINS(air_submission_warning(sub, 0), "permission level CAN_DANCE has no MLflow "
	                "experiment counterpart");
	ASSERT_EQ_INT(fakews_count(flow_fw, "PATCH", "/api/2.0/permissions/experiments/*"), 1);
	air_submission_free(sub);
}

AIR_TEST(permissions__none_without_grants)
{
	air_submission *sub = submit(WORKLOAD);

	ASSERT_EQ_INT(air_submission_warning_count(sub), 0);
	ASSERT_NOT_CONTAINS(request_log(), "mlflow/experiments");
	air_submission_free(sub);
}

/* Records PERMISSIONS (P) and DONE (D), and asks to stop at them: after
 * runs/submit that is ignored. */
static int phases(const air_progress *ev, void *ud)
{
	char *seen = ud;
	int32_t phase = air_progress_phase(ev);

	if (phase == AIR_PHASE_PERMISSIONS)
		strcat(seen, "P");
	if (phase == AIR_PHASE_DONE)
		strcat(seen, "D");
	return phase == AIR_PHASE_PERMISSIONS || phase == AIR_PHASE_DONE;
}

AIR_TEST(permissions__phase_reported_after_the_run)
{
	air_config *cfg = load_yaml(air_test_tmpdir(), "w.yaml", WORKLOAD GRANTS);
	air_client *c = fakews_client(flow_fw);
	air_submit_options *o = NULL;
	air_submission *sub = NULL;
	air_error *err = NULL;
	char seen[8] = "";

	ASSERT_EQ_INT(air_submit_options_new(&o), AIR_OK);
	ASSERT_EQ_INT(air_submit_options_set_progress_cb(o, phases, seen), AIR_OK);
	ASSERT_OK(air_client_submit(c, cfg, o, &sub, &err), err);
	ASSERT_EQ_STR(seen, "PD");
	ASSERT_EQ_STR(air_phase_name(AIR_PHASE_PERMISSIONS), "PERMISSIONS");
	ASSERT_EQ_INT(fakews_count(flow_fw, "PATCH", "/api/2.0/permissions/experiments/*"), 1);
	air_submission_free(sub);
	air_submit_options_free(o);
	air_client_free(c);
	air_config_free(cfg);
}
