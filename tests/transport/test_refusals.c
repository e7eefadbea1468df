/*
 * test_refusals.c: a client whose configuration does not resolve fails every
 * later call, of every module, with the same error and without a request;
 * and no request ever goes over plain http:// to a host that is not
 * loopback (workspace host, pre-signed URLs, OAuth discovery, host metadata).
 */
#include "transport/http_priv.h"
#include "support.h"

#define ME "/api/2.0/preview/scim/v2/Me"

static const char workload[] = "experiment_name: refusals\n"
                               "compute:\n"
                               "  accelerator_type: GPU_1xA10\n"
                               "  num_accelerators: 1\n"
                               "command: python train.py\n";


/* Call number @i of the public calls that talk to the workspace;
 * returns its status and error, or -1 after the last one. */
static int public_call(air_client *c, int i, const char **name, air_error **err)
{
	static const char *const names[] = {
		"air_client_resolve",   "air_client_current_user", "air_client_workspace_id",
		"air_client_get_run",   "air_client_list_runs",    "air_client_cancel_run",
		"air_client_cancel_all", "air_client_list_pools",  "air_client_get_pool",
		"air_client_stream_logs", "air_client_download_logs", "air_client_poll_mlflow_links",
		"air_client_submit",
	};
	char *s1 = NULL, *s2 = NULL;
	int64_t id = 0;
	int rc = -1;

	if (i >= (int)AIR__ARRAY_SIZE(names))
		return -1;
	*name = names[i];
	*err = NULL;
	switch (i) {
	case 0:
		rc = air_client_resolve(c, NULL, err);
		break;
	case 1:
		rc = air_client_current_user(c, NULL, &s1, err);
		break;
	case 2:
		rc = air_client_workspace_id(c, NULL, &id, err);
		break;
	case 3: {
		air_run *run = NULL;
		rc = air_client_get_run(c, 555, NULL, &run, err);
		air_run_free(run);
		break;
	}
	case 4: {
		air_run_iter *it = NULL;
		rc = air_client_list_runs(c, NULL, &it, err);
		air_run_iter_free(it);
		break;
	}
	case 5:
		rc = air_client_cancel_run(c, 555, NULL, err);
		break;
	case 6: {
		air_cancel_report *rep = NULL;
		rc = air_client_cancel_all(c, NULL, &rep, err);
		air_cancel_report_free(rep);
		break;
	}
	case 7: {
		air_pool_list *pools = NULL;
		rc = air_client_list_pools(c, NULL, &pools, err);
		air_pool_list_free(pools);
		break;
	}
	case 8: {
		air_pool *pool = NULL;
		rc = air_client_get_pool(c, "p1", NULL, &pool, err);
		air_pool_free(pool);
		break;
	}
	case 9:
		rc = air_client_stream_logs(c, 555, NULL, NULL, err);
		break;
	case 10: {
		air_download_report *rep = NULL;
		rc = air_client_download_logs(c, 555, air_test_tmpdir(), NULL, &rep, err);
		air_download_report_free(rep);
		break;
	}
	case 11:
		rc = air_client_poll_mlflow_links(c, 555, 1, 10, NULL, &s1, &s2, err);
		break;
	case 12: {
		air_config *cfg = NULL;
		air_submission *sub = NULL;
		air_error *perr = NULL;
		ASSERT_OK(air_config_load_buffer(workload, strlen(workload), "w.yaml", NULL, &cfg,
		                                 &perr),
		          perr);
		rc = air_client_submit(c, cfg, NULL, &sub, err);
		air_submission_free(sub);
		air_config_free(cfg);
		break;
	}
	}
	air_free(s1);
	air_free(s2);
	return rc;
}

/* Every public call fails like the first one did, and nothing is sent. */
static void expect_same_failure_everywhere(air_client *c, int code, const char *part)
{
	air_error *first = NULL, *err = NULL;
	const char *name;
	int64_t requests = -1, connects = -1;
	int rc;

	ASSERT_EQ_INT(air_client_resolve(c, NULL, &first), code);
	ASSERT_CONTAINS(air_error_message(first), part);
	for (int i = 0; (rc = public_call(c, i, &name, &err)) != -1; i++) {
		air_test_note("%s: %d %s", name, rc, err ? air_error_message(err) : "(no error)");
		ASSERT_EQ_INT(rc, code);
		ASSERT_NOT_NULL(err);
		ASSERT_EQ_STR(air_error_message(err), air_error_message(first));
		ASSERT_EQ_INT(air_error_kind(err), air_error_kind(first));
		air_error_free(err);
	}
	ASSERT_NULL(air_client_host(c));
	ASSERT_NULL(air_client_auth_type(c));
	air__http_stats(c, &requests, &connects);
	ASSERT_EQ_INT(requests, 0);
	ASSERT_EQ_INT(connects, 0);
	air_error_free(first);
}

AIR_TEST(refusals__unresolvable_configurations_fail_every_call_alike)
{
	static const struct {
		const char *cfg;     /* config file text, or NULL for none */
		const char *profile; /* AIR_OPT_PROFILE, or NULL */
		const char *host;    /* AIR_OPT_HOST, or NULL */
		const char *token;   /* AIR_OPT_TOKEN, or NULL */
		int code;
		const char *part;
	} cases[] = {
		{NULL, NULL, NULL, NULL, AIR_EAUTH, "no default profile"},
		{"[a]\nhost = https://a.example\nthis line is broken\n", "a", NULL, NULL, AIR_EIO,
		 "line 3"},
		{"[a]\nhost = https://a.example\ntoken = t\n", "missing", NULL, NULL, AIR_EINVAL,
		 "profile \"missing\" not found"},
		{NULL, NULL, "https://h.example", NULL, AIR_EAUTH, "no credentials configured"},
		{NULL, NULL, "http://10.255.255.1:9", "dapi-not-sent", AIR_EINVAL, "plain http://"},
		{NULL, NULL, "http://example.com", "dapi-not-sent", AIR_EINVAL, "example.com"},
	};

	for (size_t i = 0; i < AIR__ARRAY_SIZE(cases); i++) {
		air_client *c = tc_client(NULL);

		air_test_note("case %zu", i);
		if (cases[i].cfg)
			ASSERT_EQ_INT(tc_set_str(c, AIR_OPT_CONFIG_FILE,
			                                 tc_write(tc_home(), "cfg", cases[i].cfg)),
			              AIR_OK);
		else
			ASSERT_EQ_INT(tc_set_str(c, AIR_OPT_CONFIG_FILE, "/nonexistent/cfg"),
			              AIR_OK);
		ASSERT_EQ_INT(tc_set_str(c, AIR_OPT_PROFILE, cases[i].profile), AIR_OK);
		ASSERT_EQ_INT(tc_set_str(c, AIR_OPT_HOST, cases[i].host), AIR_OK);
		ASSERT_EQ_INT(tc_set_str(c, AIR_OPT_TOKEN, cases[i].token), AIR_OK);
		expect_same_failure_everywhere(c, cases[i].code, cases[i].part);
		air_client_free(c);
	}
}

AIR_TEST(refusals__presigned_urls_over_plain_http_stay_on_loopback)
{
	fakews *fw = tc_fakews();
	air_client *c = tc_fakews_client(fw);
	air__http_req req = {.method = "GET",
	                     .path = "http://10.255.255.1:9/presigned/run1/x?sig=SECRETSIG",
	                     .flags = AIR__HTTP_ABSOLUTE_URL | AIR__HTTP_NO_AUTH |
	                              AIR__HTTP_NO_WORKSPACE};
	air_error *err = NULL;
	int64_t requests = -1, connects = -1;

	ASSERT_OK(air_client_resolve(c, NULL, &err), err);
	ASSERT_EQ_INT(air__http_do(c, NULL, &req, NULL, &err), AIR_EINVAL);
	ASSERT_CONTAINS(air_error_message(err), "plain http://");
	ASSERT_CONTAINS(air_error_message(err), "10.255.255.1");
	ASSERT_NOT_CONTAINS(air_error_message(err), "SECRETSIG");
	air_error_free(err);
	err = NULL;
	/* Many at once: none is sent, not even the safe one. */
	{
		air__http_req two[2] = {{.method = "GET", .path = ME}, req};
		air__http_resp resps[2] = {AIR__HTTP_RESP_INIT, AIR__HTTP_RESP_INIT};
		ASSERT_EQ_INT(air__http_do_many(c, NULL, two, 2, resps, &err), AIR_EINVAL);
		air_error_free(err);
		err = NULL;
		air__http_resp_clear(&resps[0]);
		air__http_resp_clear(&resps[1]);
	}
	air__http_stats(c, &requests, &connects);
	ASSERT_EQ_INT(requests, 0);
	ASSERT_EQ_INT(connects, 0);

	/* https:// and loopback http:// are fine. */
	json_decref(fakews_call(fw, "POST", "/__fakews/mlflow",
	                        "{\"runs\":{\"run1\":{\"artifacts\":{\"x\":\"data\"}}}}"));
	{
		char url[256];
		snprintf(url, sizeof(url), "%s/presigned/run1/x?sig=bad", fakews_url(fw));
		req.path = url;
		/* fakews refuses the signature, but the request was sent */
		ASSERT_NE_INT(air__http_do(c, NULL, &req, NULL, &err), AIR_EINVAL);
		ASSERT_TRUE(air_error_http_status(err) >= 400);
		ASSERT_EQ_INT(fakews_count(fw, "GET", "/presigned/run1/x"), 1);
		air_error_free(err);
	}
	air_client_free(c);
}

static air_client *m2m_client(fakews *fw, const char *discovery_url)
{
	air_client *c = tc_client(NULL);

	ASSERT_EQ_INT(tc_set_str(c, AIR_OPT_HOST, fakews_url(fw)), AIR_OK);
	ASSERT_EQ_INT(tc_set_str(c, AIR_OPT_CLIENT_ID, "cid"), AIR_OK);
	ASSERT_EQ_INT(tc_set_str(c, AIR_OPT_CLIENT_SECRET, "csecret-not-sent"), AIR_OK);
	ASSERT_EQ_INT(tc_set_str(c, AIR_OPT_DISCOVERY_URL, discovery_url), AIR_OK);
	ASSERT_EQ_INT(tc_set_int(c, AIR_OPT_RATE_LIMIT, 0), AIR_OK);
	return c;
}

/* The discovery document names where the client secret goes: its URL must
 * not be plain http:// to another host, whether configured or announced by
 * the host metadata. */
AIR_TEST(refusals__oauth_discovery_over_plain_http_stays_on_loopback)
{
	fakews *fw = tc_fakews();
	air_client *c;
	air_error *err = NULL;
	int64_t requests = -1, connects = -1;

	fakews_configf(fw, "{\"oauth\":{\"clients\":{\"cid\":\"csecret-not-sent\"}}}");
	c = m2m_client(fw, "http://10.255.255.1:9/oidc/.well-known/oauth-authorization-server");
	ASSERT_EQ_INT(air_client_resolve(c, NULL, &err), AIR_EINVAL);
	ASSERT_CONTAINS(air_error_message(err), "OAuth discovery URL");
	ASSERT_CONTAINS(air_error_message(err), "10.255.255.1");
	ASSERT_NOT_CONTAINS(air_error_message(err), "csecret-not-sent");
	air_error_free(err);
	err = NULL;
	air__http_stats(c, &requests, &connects);
	ASSERT_EQ_INT(requests, 1); /* the host metadata, on loopback */
	ASSERT_EQ_INT(fakews_count(fw, "GET", "/.well-known/databricks-config"), 1);
	air_client_free(c);

	fakews_configf(fw, "{\"host_metadata\":{\"oidc_endpoint\":\"http://example.com/oidc\"}}");
	c = m2m_client(fw, NULL);
	ASSERT_EQ_INT(air_client_resolve(c, NULL, &err), AIR_EINVAL);
	ASSERT_CONTAINS(air_error_message(err), "example.com");
	air_error_free(err);
	air__http_stats(c, &requests, &connects);
	ASSERT_EQ_INT(requests, 1);
	ASSERT_EQ_INT(fakews_count(fw, "POST", "/oidc/v1/token"), 0);
	air_client_free(c);
}
