/*
 * test_resolve.c: client options and configuration resolution without a
 * server: the precedence matrix (options > environment > profile),
 * docs/auth.md#where-values-come-from (with and without a profile), host normalisation and the
 * checks that fail early.
 */
#include "support.h"

static const char *cfg_path(const char *text)
{
	return tc_write(air_test_tmpdir(), "databrickscfg", text);
}

/* Resolve with @env (plus DATABRICKS_CONFIG_FILE=@cfg when given) and @profile. */
static air_client *resolved(const char *cfg_text, const char *profile, const char *const *env)
{
	const char *list[32];
	char file_var[1300];
	size_t n = 0;
	air_client *c;
	air_error *err = NULL;

	if (cfg_text) {
		snprintf(file_var, sizeof(file_var), "DATABRICKS_CONFIG_FILE=%s", cfg_path(cfg_text));
		list[n++] = file_var;
	}
	for (const char *const *p = env; p && *p; p++)
		list[n++] = *p;
	list[n] = NULL;
	c = tc_client(list);
	if (profile)
		ASSERT_EQ_INT(tc_set_str(c, AIR_OPT_PROFILE, profile), AIR_OK);
	ASSERT_OK(tc_resolve(c, &err), err);
	return c;
}

static int resolve_fails(const char *cfg_text, const char *profile, const char *const *env,
                         air_error **err)
{
	const char *list[32];
	char file_var[1300];
	size_t n = 0;
	air_client *c;
	int rc;

	if (cfg_text) {
		snprintf(file_var, sizeof(file_var), "DATABRICKS_CONFIG_FILE=%s", cfg_path(cfg_text));
		list[n++] = file_var;
	}
	for (const char *const *p = env; p && *p; p++)
		list[n++] = *p;
	list[n] = NULL;
	c = tc_client(list);
	if (profile)
		ASSERT_EQ_INT(tc_set_str(c, AIR_OPT_PROFILE, profile), AIR_OK);
	rc = tc_resolve(c, err);
	ASSERT_NE_INT(rc, AIR_OK);
	ASSERT_NOT_NULL(*err);
	ASSERT_EQ_INT(air_error_code(*err), rc);
	/* The same outcome again: resolution is cached, also when it failed. */
	{
		air_error *again = NULL;
		ASSERT_EQ_INT(tc_resolve(c, &again), rc);
		ASSERT_EQ_STR(air_error_message(again), air_error_message(*err));
		air_error_free(again);
	}
	air_client_free(c);
	return rc;
}

static const char *const S30_CFG = "[DEFAULT]\n"
                                   "host = https://h.example\n"
                                   "token = file-default\n"
                                   "[p1]\n"
                                   "host = https://h.example\n"
                                   "token = file-p1\n";

/* ---- options -------------------------------------------------------------- */

AIR_TEST(options__typed_setters)
{
	air_client_options *o = NULL;
	air_client *c = NULL;
	air_error *err = NULL;

	ASSERT_EQ_INT(air_client_options_new(&o), AIR_OK);
	ASSERT_EQ_INT(air_client_options_set_str(o, AIR_OPT_HOST, "https://x"), AIR_OK);
	ASSERT_EQ_INT(air_client_options_set_str(o, AIR_OPT_TOKEN, "dapi-x"), AIR_OK);
	ASSERT_EQ_INT(air_client_options_set_int(o, AIR_OPT_RATE_LIMIT, 0), AIR_OK);
	ASSERT_EQ_INT(air_client_options_set_str(o, 99, "x"), AIR_EUNSUPPORTED);
	ASSERT_EQ_INT(air_client_options_set_int(o, AIR_OPT_HOST, 5), AIR_EINVAL);
	ASSERT_EQ_INT(air_client_options_set_str(NULL, AIR_OPT_HOST, "x"), AIR_EINVAL);
	ASSERT_EQ_INT(air_client_options_set_int(NULL, AIR_OPT_RATE_LIMIT, 1), AIR_EINVAL);
	ASSERT_EQ_INT(air_client_options_set_debug_cb(NULL, NULL, NULL), AIR_EINVAL);
	ASSERT_EQ_INT(air_client_options_set_interrupt(NULL, NULL), AIR_EINVAL);
	ASSERT_EQ_INT(air_client_options_new(NULL), AIR_EINVAL);
	ASSERT_EQ_INT(air_client_new(o, NULL, &err), AIR_EINVAL);
	air_error_free(err);
	err = NULL;
	ASSERT_OK(air_client_new(o, &c, &err), err);
	/* The client keeps a copy: the options may go, or change, right away. */
	ASSERT_EQ_INT(air_client_options_set_str(o, AIR_OPT_HOST, "https://changed"), AIR_OK);
	air_client_options_free(o);
	air_client_options_free(NULL);
	ASSERT_EQ_INT(air__client_opt_int(c, AIR_OPT_RATE_LIMIT), 0);
	ASSERT_EQ_STR(air__client_opt_str(c, AIR_OPT_HOST), "https://x");
	air_client_free(c);
	c = NULL;

	ASSERT_OK(air_client_new(NULL, &c, &err), err);
	ASSERT_EQ_INT(tc_set_str(c, AIR_OPT_HOST, "https://x"), AIR_OK);
	ASSERT_EQ_INT(tc_set_str(c, AIR_OPT_HOST, NULL), AIR_OK);
	ASSERT_EQ_INT(tc_set_str(c, AIR_OPT_RETRY_DEADLINE_MS, "5"), AIR_EINVAL);
	ASSERT_EQ_INT(tc_set_int(c, AIR_OPT_HOST, 5), AIR_EINVAL);
	ASSERT_EQ_INT(tc_set_str(c, 99, "x"), AIR_EUNSUPPORTED);
	ASSERT_EQ_INT(tc_set_int(c, 199, 1), AIR_EUNSUPPORTED);
	ASSERT_EQ_INT(tc_set_int(c, 0, 1), AIR_EUNSUPPORTED);
	ASSERT_EQ_INT(tc_set_str(c, -1, "x"), AIR_EUNSUPPORTED);
	ASSERT_EQ_INT(tc_set_str(c, AIR_OPT_AUTH_TYPE, "azure-cli"), AIR_EINVAL);
	ASSERT_EQ_INT(tc_set_str(c, AIR_OPT_AUTH_TYPE, "oauth-m2m"), AIR_OK);
	ASSERT_EQ_INT(tc_set_str(c, AIR_OPT_AUTH_STORAGE, "keyring"), AIR_EINVAL);
	ASSERT_EQ_INT(tc_set_int(c, AIR_OPT_USE_ENVIRONMENT, 2), AIR_EINVAL);
	ASSERT_EQ_INT(tc_set_int(c, AIR_OPT_MAX_PARALLEL, 0), AIR_EINVAL);
	ASSERT_EQ_INT(tc_set_int(c, AIR_OPT_RETRY_DEADLINE_MS, -1), AIR_EINVAL);
	ASSERT_EQ_INT(tc_set_int(c, AIR_OPT_RATE_LIMIT, 0), AIR_OK);
	ASSERT_EQ_INT(air__client_opt_int(c, AIR_OPT_RATE_LIMIT), 0);
	ASSERT_EQ_INT(air__client_opt_int(c, AIR_OPT_RETRY_DEADLINE_MS), 120000);
	ASSERT_EQ_INT(air__client_opt_int(c, AIR_OPT_MAX_PARALLEL), 8);
	ASSERT_NULL(air_client_host(c));
	ASSERT_NULL(air_client_auth_type(c));
	air_client_free(c);
	air_client_free(NULL);
}

AIR_TEST(options__strings_are_copied)
{
	air_client *c = NULL;
	air_error *err = NULL;
	char host[] = "https://copied.example", token[] = "dapi-copied";

	air_client_options *o = NULL;

	ASSERT_EQ_INT(air_client_options_new(&o), AIR_OK);
	ASSERT_EQ_INT(air_client_options_set_int(o, AIR_OPT_USE_ENVIRONMENT, 0), AIR_OK);
	ASSERT_EQ_INT(air_client_options_set_str(o, AIR_OPT_HOST, host), AIR_OK);
	ASSERT_EQ_INT(air_client_options_set_str(o, AIR_OPT_TOKEN, token), AIR_OK);
	memset(host, 'x', sizeof(host) - 1);
	memset(token, 'y', sizeof(token) - 1);
	ASSERT_OK(air_client_new(o, &c, &err), err);
	air_client_options_free(o);
	ASSERT_OK(air_client_resolve(c, NULL, &err), err);
	ASSERT_EQ_STR(air_client_host(c), "https://copied.example");
	ASSERT_EQ_STR(air_client_auth_type(c), "pat");
	ASSERT_EQ_STR(tc_attr(c, AIR__A_TOKEN), "dapi-copied");
	ASSERT_NULL(air_client_profile(c));
	air_client_free(c);
}

AIR_TEST(options__setting_an_option_resolves_again)
{
	const char *env[] = {"DATABRICKS_HOST=https://one.example", "DATABRICKS_TOKEN=t1", NULL};
	air_client *c = resolved(NULL, NULL, env);
	air_error *err = NULL;

	ASSERT_EQ_STR(air_client_host(c), "https://one.example");
	ASSERT_EQ_INT(tc_set_str(c, AIR_OPT_HOST, "two.example"), AIR_OK);
	ASSERT_NULL(air_client_host(c));
	ASSERT_OK(tc_resolve(c, &err), err);
	ASSERT_EQ_STR(air_client_host(c), "https://two.example");
	air_client_free(c);
}

AIR_TEST(options__use_environment_0_ignores_every_variable)
{
	const char *env[] = {"DATABRICKS_HOST=https://env.example", "DATABRICKS_TOKEN=env-tok",
	                     NULL};
	air_client *c = tc_client(env);
	air_error *err = NULL;

	ASSERT_EQ_INT(tc_set_int(c, AIR_OPT_USE_ENVIRONMENT, 0), AIR_OK);
	ASSERT_EQ_INT(tc_resolve(c, &err), AIR_EAUTH);
	ASSERT_CONTAINS(air_error_message(err), "no default profile");
	/* ... and the ways out: a profile, or a host (the local one included). */
	ASSERT_CONTAINS(air_error_message(err), "set DATABRICKS_HOST (local://");
	/* The profile option, named for front ends to spell as they do. */
	ASSERT_EQ_STR(air_error_field(err), "profile");
	ASSERT_NOT_CONTAINS(air_error_message(err), "--profile");
	air_error_free(err);
	/* Not even HOME: no default config file is found. */
	ASSERT_NULL(c->cfg.home);
	ASSERT_NULL(air__client_env(c, "DATABRICKS_HOST"));
	air_client_free(c);
}

AIR_TEST(options__home_dir_replaces_home)
{
	const char *dir = air_test_tmpdir();
	air_client *c = tc_client(NULL);
	air_error *err = NULL;

	tc_write(dir, ".databrickscfg", "[DEFAULT]\nhost = https://fromhome.example\ntoken = t\n");
	ASSERT_EQ_INT(tc_set_str(c, AIR_OPT_HOME_DIR, dir), AIR_OK);
	ASSERT_OK(tc_resolve(c, &err), err);
	ASSERT_EQ_STR(air_client_host(c), "https://fromhome.example");
	ASSERT_EQ_STR(air_client_profile(c), "DEFAULT");
	air_client_free(c);
}

AIR_TEST(options__config_file_tilde_expansion)
{
	const char *home = air_test_tmpdir();
	char var[1200];
	const char *env[] = {var, "DATABRICKS_CONFIG_FILE=~/conf/my.cfg", NULL};
	air_client *c;
	air_error *err = NULL;

	tc_write(home, "conf/my.cfg", "[DEFAULT]\nhost = https://tilde.example\ntoken = t\n");
	snprintf(var, sizeof(var), "HOME=%s", home);
	c = tc_client(env);
	ASSERT_OK(tc_resolve(c, &err), err);
	ASSERT_EQ_STR(air_client_host(c), "https://tilde.example");
	air_client_free(c);
}

/* ---- the precedence matrix (SCENARIOS S30) ------------------------------- */

AIR_TEST(resolve__default_profile_without_env)
{
	air_client *c = resolved(S30_CFG, NULL, NULL);

	ASSERT_EQ_STR(tc_attr(c, AIR__A_TOKEN), "file-default");
	ASSERT_EQ_STR(air_client_profile(c), "DEFAULT");
	ASSERT_TRUE(c->cfg.through_profile);
	air_client_free(c);
}

AIR_TEST(resolve__env_profile)
{
	const char *env[] = {"DATABRICKS_CONFIG_PROFILE=p1", NULL};
	air_client *c = resolved(S30_CFG, NULL, env);

	ASSERT_EQ_STR(tc_attr(c, AIR__A_TOKEN), "file-p1");
	ASSERT_EQ_STR(air_client_profile(c), "p1");
	air_client_free(c);
}

AIR_TEST(resolve__env_token_wins_without_flag)
{
	const char *env[] = {"DATABRICKS_CONFIG_PROFILE=p1", "DATABRICKS_TOKEN=env-tok", NULL};
	air_client *c = resolved(S30_CFG, NULL, env);

	ASSERT_EQ_STR(tc_attr(c, AIR__A_TOKEN), "env-tok");
	ASSERT_EQ_INT(c->cfg.src[AIR__A_TOKEN], AIR__SRC_ENV);
	ASSERT_EQ_STR(tc_attr(c, AIR__A_HOST), "https://h.example");
	air_client_free(c);
}

AIR_TEST(resolve__profile_flag_wins_over_env_token)
{
	const char *env[] = {"DATABRICKS_TOKEN=env-tok", "DATABRICKS_HOST=https://env.example",
	                     NULL};
	air_client *c = resolved(S30_CFG, "p1", env);

	ASSERT_EQ_STR(tc_attr(c, AIR__A_TOKEN), "file-p1");
	ASSERT_EQ_STR(tc_attr(c, AIR__A_HOST), "https://h.example");
	ASSERT_EQ_STR(air_client_profile(c), "p1");
	air_client_free(c);
}

AIR_TEST(resolve__profile_flag_gap_fills_auth_from_env_not_routing)
{
	const char *env[] = {"DATABRICKS_TOKEN=env-tok", "DATABRICKS_WORKSPACE_ID=77",
	                     "DATABRICKS_AUTH_TYPE=pat", NULL};
	air_client *c = resolved("[hostonly]\nhost = https://h.example\n", "hostonly", env);

	ASSERT_EQ_STR(tc_attr(c, AIR__A_TOKEN), "env-tok");
	ASSERT_NULL(tc_attr(c, AIR__A_WORKSPACE_ID));
	ASSERT_NULL(tc_attr(c, AIR__A_AUTH_TYPE));
	air_client_free(c);
}

AIR_TEST(resolve__env_host_alone_disables_the_config_file)
{
	const char *env[] = {"DATABRICKS_HOST=https://env.example", "DATABRICKS_TOKEN=env-tok",
	                     NULL};
	air_client *c = resolved(S30_CFG, NULL, env);

	ASSERT_EQ_STR(tc_attr(c, AIR__A_TOKEN), "env-tok");
	ASSERT_EQ_STR(air_client_host(c), "https://env.example");
	ASSERT_NULL(air_client_profile(c));
	ASSERT_FALSE(c->cfg.through_profile);
	air_client_free(c);
}

AIR_TEST(resolve__env_host_without_token_does_not_borrow_the_file)
{
	const char *env[] = {"DATABRICKS_HOST=https://env.example", NULL};
	air_error *err = NULL;

	ASSERT_EQ_INT(resolve_fails(S30_CFG, NULL, env, &err), AIR_EAUTH);
	ASSERT_CONTAINS(air_error_message(err), "no credentials");
	ASSERT_CONTAINS(air_error_message(err), "https://env.example");
	air_error_free(err);
}

AIR_TEST(resolve__settings_default_profile)
{
	char text[512];
	air_client *c;

	snprintf(text, sizeof(text), "%s[__settings__]\ndefault_profile = p1\n", S30_CFG);
	c = resolved(text, NULL, NULL);
	ASSERT_EQ_STR(tc_attr(c, AIR__A_TOKEN), "file-p1");
	ASSERT_EQ_STR(air_client_profile(c), "p1");
	air_client_free(c);
}

AIR_TEST(resolve__default_only_when_it_has_a_host)
{
	air_client *c;
	air_error *err = NULL;
	const char *env[] = {"DATABRICKS_HOST=https://env.example", NULL};

	/* DEFAULT without host is not pinned; its token still fills gaps when the
	 * environment brings nothing. */
	ASSERT_EQ_INT(resolve_fails("[DEFAULT]\ntoken = t\n", NULL, NULL, &err), AIR_EAUTH);
	ASSERT_CONTAINS(air_error_message(err), "no host");
	air_error_free(err);
	/* With DATABRICKS_HOST the file is not read at all. */
	err = NULL;
	ASSERT_EQ_INT(resolve_fails("[DEFAULT]\ntoken = t\n", NULL, env, &err), AIR_EAUTH);
	ASSERT_CONTAINS(air_error_message(err), "no credentials");
	air_error_free(err);
	c = resolved("[DEFAULT]\nhost = https://d.example\ntoken = t\n", NULL, NULL);
	ASSERT_TRUE(c->cfg.through_profile);
	air_client_free(c);
}

AIR_TEST(resolve__explicit_options_win_over_everything)
{
	const char *env[] = {"DATABRICKS_CONFIG_PROFILE=p1", "DATABRICKS_TOKEN=env-tok", NULL};
	const char *list[4];
	char var[1300];
	air_client *c;
	air_error *err = NULL;

	snprintf(var, sizeof(var), "DATABRICKS_CONFIG_FILE=%s", cfg_path(S30_CFG));
	list[0] = var;
	list[1] = env[0];
	list[2] = env[1];
	list[3] = NULL;
	c = tc_client(list);
	ASSERT_EQ_INT(tc_set_str(c, AIR_OPT_TOKEN, "opt-tok"), AIR_OK);
	ASSERT_EQ_INT(tc_set_str(c, AIR_OPT_PROFILE, "p1"), AIR_OK);
	ASSERT_OK(tc_resolve(c, &err), err);
	ASSERT_EQ_STR(tc_attr(c, AIR__A_TOKEN), "opt-tok");
	ASSERT_EQ_INT(c->cfg.src[AIR__A_TOKEN], AIR__SRC_OPTION);
	ASSERT_EQ_STR(tc_attr(c, AIR__A_HOST), "https://h.example");
	air_client_free(c);
}

AIR_TEST(resolve__option_config_file_wins_over_env)
{
	const char *dir = air_test_tmpdir();
	const char *env[] = {"DATABRICKS_CONFIG_FILE=/nonexistent/cfg", NULL};
	air_client *c = tc_client(env);
	air_error *err = NULL;

	ASSERT_EQ_INT(tc_set_str(c, AIR_OPT_CONFIG_FILE,
	                                 tc_write(dir, "opt.cfg", "[x]\nhost = https://x.example\ntoken = t\n")),
	              AIR_OK);
	ASSERT_EQ_INT(tc_set_str(c, AIR_OPT_PROFILE, "x"), AIR_OK);
	ASSERT_OK(tc_resolve(c, &err), err);
	ASSERT_EQ_STR(air_client_host(c), "https://x.example");
	air_client_free(c);
}

/* ---- failures ------------------------------------------------------------- */

AIR_TEST(resolve__unknown_profile_names_file_and_profile)
{
	air_error *err = NULL;

	ASSERT_EQ_INT(resolve_fails(S30_CFG, "missing", NULL, &err), AIR_EINVAL);
	ASSERT_CONTAINS(air_error_message(err), "missing");
	ASSERT_CONTAINS(air_error_message(err), "databrickscfg");
	air_error_free(err);
	err = NULL;
	{
		const char *env[] = {"DATABRICKS_CONFIG_PROFILE=nope", NULL};
		ASSERT_EQ_INT(resolve_fails(S30_CFG, NULL, env, &err), AIR_EINVAL);
		ASSERT_CONTAINS(air_error_message(err), "nope");
		air_error_free(err);
	}
	err = NULL;
	ASSERT_EQ_INT(resolve_fails("[empty]\n[other]\nhost = h\n", "empty", NULL, &err), AIR_EINVAL);
	ASSERT_CONTAINS(air_error_message(err), "empty");
	air_error_free(err);
}

AIR_TEST(resolve__settings_section_is_not_a_profile)
{
	air_error *err = NULL;

	ASSERT_EQ_INT(resolve_fails("[__settings__]\ndefault_profile = x\n", "__settings__", NULL, &err),
	              AIR_EINVAL);
	ASSERT_CONTAINS(air_error_message(err), "__settings__");
	air_error_free(err);
}

AIR_TEST(resolve__malformed_config_file_reports_path_and_line)
{
	air_error *err = NULL;

	ASSERT_EQ_INT(resolve_fails("[p]\nhost = h\noops\n", "p", NULL, &err), AIR_EIO);
	ASSERT_EQ_INT(air_error_line(err), 3);
	ASSERT_CONTAINS(air_error_file(err), "databrickscfg");
	ASSERT_CONTAINS(air_error_message(err), "line 3");
	air_error_free(err);
}

AIR_TEST(resolve__missing_config_file_with_profile)
{
	const char *env[] = {"DATABRICKS_CONFIG_FILE=/nonexistent/dir/cfg", NULL};
	air_error *err = NULL;

	ASSERT_EQ_INT(resolve_fails(NULL, "p1", env, &err), AIR_EAUTH);
	ASSERT_CONTAINS(air_error_message(err), "p1");
	ASSERT_CONTAINS(air_error_message(err), "/nonexistent/dir/cfg");
	air_error_free(err);
}

AIR_TEST(resolve__nothing_configured)
{
	air_error *err = NULL;

	ASSERT_EQ_INT(resolve_fails("", NULL, NULL, &err), AIR_EAUTH);
	ASSERT_EQ_INT(air_error_kind(err), AIR_KIND_PERMANENT);
	ASSERT_CONTAINS(air_error_message(err), "no default profile");
	ASSERT_CONTAINS(air_error_message(err), "the profile option");
	ASSERT_EQ_STR(air_error_field(err), "profile");
	air_error_free(err);
}

AIR_TEST(resolve__host_without_credentials)
{
	air_error *err = NULL;

	ASSERT_EQ_INT(resolve_fails("[DEFAULT]\nhost = https://h.example\n", NULL, NULL, &err),
	              AIR_EAUTH);
	ASSERT_CONTAINS(air_error_message(err), "no credentials");
	ASSERT_CONTAINS(air_error_message(err), "the profile option");
	ASSERT_EQ_STR(air_error_field(err), "profile");
	air_error_free(err);
}

AIR_TEST(resolve__conflicting_methods_name_both)
{
	const char *env[] = {"DATABRICKS_HOST=https://h.example", "DATABRICKS_TOKEN=t",
	                     "DATABRICKS_CLIENT_ID=c", "DATABRICKS_CLIENT_SECRET=s", NULL};
	const char *pinned[] = {"DATABRICKS_HOST=https://h.example", "DATABRICKS_TOKEN=t",
	                        "DATABRICKS_CLIENT_ID=c", "DATABRICKS_CLIENT_SECRET=s",
	                        "DATABRICKS_AUTH_TYPE=pat", NULL};
	air_error *err = NULL;
	air_client *c;

	ASSERT_EQ_INT(resolve_fails(NULL, NULL, env, &err), AIR_EAUTH);
	ASSERT_CONTAINS(air_error_message(err), "pat");
	ASSERT_CONTAINS(air_error_message(err), "oauth-m2m");
	ASSERT_NOT_CONTAINS(air_error_message(err), "=s");
	air_error_free(err);
	c = resolved(NULL, NULL, pinned);
	ASSERT_EQ_STR(air_client_auth_type(c), "pat");
	air_client_free(c);
}

AIR_TEST(resolve__unsupported_auth_type)
{
	const char *env[] = {"DATABRICKS_HOST=https://h.example", "DATABRICKS_TOKEN=t",
	                     "DATABRICKS_AUTH_TYPE=azure-cli", NULL};
	air_error *err = NULL;

	ASSERT_EQ_INT(resolve_fails(NULL, NULL, env, &err), AIR_EAUTH);
	ASSERT_CONTAINS(air_error_message(err), "azure-cli");
	air_error_free(err);
}

AIR_TEST(resolve__pinned_method_without_its_inputs)
{
	const char *env[] = {"DATABRICKS_HOST=https://h.example", "DATABRICKS_TOKEN=t",
	                     "DATABRICKS_AUTH_TYPE=oauth-m2m", NULL};
	air_error *err = NULL;

	ASSERT_EQ_INT(resolve_fails(NULL, NULL, env, &err), AIR_EAUTH);
	ASSERT_CONTAINS(air_error_message(err), "client_id");
	air_error_free(err);
}

AIR_TEST(resolve__account_hosts_are_rejected)
{
	const char *env[] = {"DATABRICKS_HOST=accounts.cloud.databricks.com", "DATABRICKS_TOKEN=t",
	                     NULL};
	const char *dod[] = {"DATABRICKS_HOST=https://accounts-dod.cloud.databricks.us",
	                     "DATABRICKS_TOKEN=t", NULL};
	air_error *err = NULL;

	ASSERT_EQ_INT(resolve_fails(NULL, NULL, env, &err), AIR_EINVAL);
	ASSERT_CONTAINS(air_error_message(err), "account");
	air_error_free(err);
	err = NULL;
	ASSERT_EQ_INT(resolve_fails(NULL, NULL, dod, &err), AIR_EINVAL);
	air_error_free(err);
}

AIR_TEST(resolve__account_profile_without_workspace_id)
{
	air_error *err = NULL;
	air_client *c;

	ASSERT_EQ_INT(resolve_fails("[acct]\nhost = https://h.example\ntoken = t\naccount_id = a1\n",
	                            "acct", NULL, &err),
	              AIR_EINVAL);
	ASSERT_CONTAINS(air_error_message(err), "acct");
	air_error_free(err);
	c = resolved("[ws]\nhost = https://h.example\ntoken = t\naccount_id = a1\nworkspace_id = 5\n",
	             "ws", NULL);
	ASSERT_EQ_INT(air__client_known_workspace_id(c), 5);
	air_client_free(c);
}

/* The host picks the backend once, with its properties: a local one sends
 * no credentials (none is checked, even conflicting ones) and polls faster. */
AIR_TEST(resolve__host_selects_its_backend)
{
	const char *remote[] = {"DATABRICKS_HOST=https://h.example", "DATABRICKS_TOKEN=t", NULL};
	const char *local[] = {"DATABRICKS_HOST=LOCAL:///tmp/air-backend-x/", "DATABRICKS_TOKEN=t",
	                       "DATABRICKS_CLIENT_ID=id", "DATABRICKS_CLIENT_SECRET=s", NULL};
	air_client *c;

	ASSERT_TRUE(air__backend_kind_of("local://") == &air__backend_local);
	ASSERT_TRUE(air__backend_kind_of("Local:///srv/x") == &air__backend_local);
	ASSERT_TRUE(air__backend_kind_of("https://local.example") == &air__backend_http);
	ASSERT_TRUE(air__backend_kind_of("localhost:8080") == &air__backend_http);
	/* Before resolution the defaults are the HTTP backend's. */
	c = tc_client(remote);
	ASSERT_TRUE(c->backend == NULL);
	ASSERT_EQ_INT(air__client_poll_ms(c), 3000);
	air_client_free(c);

	c = resolved(NULL, NULL, remote);
	ASSERT_TRUE(c->cfg.backend == &air__backend_http && c->backend != NULL);
	ASSERT_EQ_STR(air_client_auth_type(c), "pat");
	ASSERT_EQ_INT(air__client_poll_ms(c), 3000);
	air_client_free(c);

	c = resolved(NULL, NULL, local);
	ASSERT_TRUE(c->cfg.backend == &air__backend_local && c->backend != NULL);
	ASSERT_EQ_STR(air_client_host(c), "local:///tmp/air-backend-x");
	ASSERT_EQ_STR(air_client_auth_type(c), "local");
	ASSERT_EQ_INT(air__client_poll_ms(c), 1000);
	air_client_free(c);
}

AIR_TEST(resolve__plain_http_only_for_loopback)
{
	const char *remote[] = {"DATABRICKS_HOST=http://workspace.example", "DATABRICKS_TOKEN=t",
	                        NULL};
	const char *local[] = {"DATABRICKS_HOST=http://127.0.0.1:1234", "DATABRICKS_TOKEN=t", NULL};
	air_error *err = NULL;
	air_client *c;

	ASSERT_EQ_INT(resolve_fails(NULL, NULL, remote, &err), AIR_EINVAL);
	ASSERT_CONTAINS(air_error_message(err), "http://");
	ASSERT_CONTAINS(air_error_message(err), "workspace.example");
	air_error_free(err);
	c = resolved(NULL, NULL, local);
	ASSERT_EQ_STR(air_client_host(c), "http://127.0.0.1:1234");
	air_client_free(c);
}

/* Hosts with a mangled scheme: refused by air_client_resolve() with a
 * message that names the problem and quotes neither the host's user:password
 * nor the token. */
AIR_TEST(resolve__malformed_hosts_are_refused_before_any_request)
{
	static const char *const hosts[] = {
		"http:/example.invalid", "https:example.com", "http//x", "https//x.example/",
		"HTTPS:/x.example", "http:\\\\x.example", "https:x.example:443", "https://http//x.example",
		"https://https://x.example", "https:///x", "user:hunter22@http:/x.example",
		"https://user:hunter22@https//x.example",
	};

	for (size_t i = 0; i < sizeof(hosts) / sizeof(hosts[0]); i++) {
		air_client_options *o = NULL;
		air_client *c = NULL;
		air_error *err = NULL;
		char *user = NULL;
		int rc;

		ASSERT_EQ_INT(air_client_options_new(&o), AIR_OK);
		ASSERT_EQ_INT(air_client_options_set_int(o, AIR_OPT_USE_ENVIRONMENT, 0), AIR_OK);
		ASSERT_EQ_INT(air_client_options_set_str(o, AIR_OPT_HOME_DIR, air_test_tmpdir()), AIR_OK);
		ASSERT_EQ_INT(air_client_options_set_str(o, AIR_OPT_HOST, hosts[i]), AIR_OK);
		ASSERT_EQ_INT(air_client_options_set_str(o, AIR_OPT_TOKEN, "dapi-sekrit-4711"), AIR_OK);
		ASSERT_OK(air_client_new(o, &c, &err), err);
		air_client_options_free(o);
		rc = air_client_resolve(c, NULL, &err);
		air_test_note("%s -> %s", hosts[i], air_error_message(err));
		ASSERT_TRUE(rc == AIR_EINVAL || rc == AIR_EAUTH);
		ASSERT_TRUE(strstr(air_error_message(err), "malformed") ||
		            strstr(air_error_message(err), "no host"));
		ASSERT_NOT_CONTAINS(air_error_message(err), "hunter22");
		ASSERT_NOT_CONTAINS(air_error_message(err), "dapi-sekrit");
		air_error_free(err);
		err = NULL;
		/* every call fails alike, without a request */
		ASSERT_EQ_INT(air_client_current_user(c, NULL, &user, &err), rc);
		ASSERT_NULL(user);
		air_error_free(err);
		air_client_free(c);
	}
}

AIR_TEST(resolve__workspace_id_none_and_query)
{
	const char *none[] = {"DATABRICKS_HOST=https://h.example/?o=42", "DATABRICKS_TOKEN=t",
	                      "DATABRICKS_WORKSPACE_ID=none", NULL};
	const char *env_wins[] = {"DATABRICKS_HOST=https://h.example/?o=42", "DATABRICKS_TOKEN=t",
	                          "DATABRICKS_WORKSPACE_ID=7", NULL};
	air_client *c = resolved(NULL, NULL, none);

	/* "none" unsets the workspace id; the host query then fills it. */
	ASSERT_EQ_STR(tc_attr(c, AIR__A_WORKSPACE_ID), "42");
	ASSERT_EQ_INT(c->cfg.src[AIR__A_WORKSPACE_ID], AIR__SRC_HOST_QUERY);
	air_client_free(c);
	c = resolved(NULL, NULL, env_wins);
	ASSERT_EQ_STR(tc_attr(c, AIR__A_WORKSPACE_ID), "7");
	ASSERT_EQ_INT(air__client_known_workspace_id(c), 7);
	air_client_free(c);
}

AIR_TEST(resolve__transport_settings_from_env_and_profile)
{
	const char *env[] = {"DATABRICKS_RATE_LIMIT=3", NULL};
	air_client *c = resolved("[p]\nhost = https://h.example\ntoken = t\nrate_limit = 9\n"
	                         "http_timeout_seconds = 7\nretry_timeout_seconds = 11\n"
	                         "skip_verify = true\n",
	                         "p", env);
	air_error *err = NULL;

	ASSERT_EQ_INT(c->cfg.rate_limit, 3);
	ASSERT_EQ_INT(c->cfg.inactivity_ms, 7000);
	ASSERT_EQ_INT(c->cfg.retry_deadline_ms, 11000);
	ASSERT_TRUE(c->cfg.skip_verify);
	/* Explicit options win. */
	ASSERT_EQ_INT(tc_set_int(c, AIR_OPT_RATE_LIMIT, 0), AIR_OK);
	ASSERT_EQ_INT(tc_set_int(c, AIR_OPT_RETRY_DEADLINE_MS, 500), AIR_OK);
	ASSERT_EQ_INT(tc_set_str(c, AIR_OPT_PROFILE, "p"), AIR_OK);
	ASSERT_OK(tc_resolve(c, &err), err);
	ASSERT_EQ_INT(c->cfg.rate_limit, 0);
	ASSERT_EQ_INT(c->cfg.retry_deadline_ms, 500);
	air_client_free(c);
}

AIR_TEST(resolve__bad_numeric_setting)
{
	const char *env[] = {"DATABRICKS_HOST=https://h.example", "DATABRICKS_TOKEN=t",
	                     "DATABRICKS_RATE_LIMIT=fast", NULL};
	air_error *err = NULL;

	ASSERT_EQ_INT(resolve_fails(NULL, NULL, env, &err), AIR_EINVAL);
	ASSERT_CONTAINS(air_error_message(err), "DATABRICKS_RATE_LIMIT");
	air_error_free(err);
}

AIR_TEST(resolve__auth_storage)
{
	const char *env[] = {"DATABRICKS_AUTH_STORAGE=plaintext", NULL};
	const char *bad[] = {"DATABRICKS_HOST=https://h.example", "DATABRICKS_TOKEN=t",
	                     "DATABRICKS_AUTH_STORAGE=vault", NULL};
	air_client *c = resolved("[p]\nhost = https://h.example\ntoken = t\n", "p", env);
	air_error *err = NULL;

	ASSERT_EQ_STR(c->cfg.auth_storage, "plaintext");
	ASSERT_TRUE(c->cfg.auth_storage_explicit);
	air_client_free(c);
	c = resolved("[p]\nhost = https://h.example\ntoken = t\n[__settings__]\nauth_storage = secure\n",
	             "p", NULL);
	ASSERT_EQ_STR(c->cfg.auth_storage, "secure");
	air_client_free(c);
	c = resolved("[p]\nhost = https://h.example\ntoken = t\n", "p", NULL);
	ASSERT_NULL(c->cfg.auth_storage);
	ASSERT_FALSE(c->cfg.auth_storage_explicit);
	air_client_free(c);
	ASSERT_EQ_INT(resolve_fails(NULL, NULL, bad, &err), AIR_EINVAL);
	ASSERT_CONTAINS(air_error_message(err), "vault");
	air_error_free(err);
}

AIR_TEST(resolve__user_agent)
{
	const char *env[] = {"DATABRICKS_HOST=https://h.example", "DATABRICKS_TOKEN=t", NULL};
	air_client *c = tc_client(env);
	air_error *err = NULL;
	char want[128];

	ASSERT_EQ_INT(tc_set_str(c, AIR_OPT_USER_AGENT_SUFFIX, "myapp/1.2"), AIR_OK);
	ASSERT_OK(tc_resolve(c, &err), err);
	snprintf(want, sizeof(want), "libair/%s os/linux auth/pat myapp/1.2", air_version_string());
	ASSERT_EQ_STR(c->user_agent, want);
	air_client_free(c);
}

/* ---- host normalisation --------------------------------------------------- */

static void norm(const char *raw, const char *host, const char *ws, const char *acct)
{
	char *h = NULL, *w = NULL, *a = NULL;
	air_error *err = NULL;

	ASSERT_OK(air__host_normalize(raw, &h, &w, &a, &err), err);
	ASSERT_EQ_STR(h, host);
	if (ws)
		ASSERT_EQ_STR(w, ws);
	else
		ASSERT_NULL(w);
	if (acct)
		ASSERT_EQ_STR(a, acct);
	else
		ASSERT_NULL(a);
	air__free(h);
	air__free(w);
	air__free(a);
}

AIR_TEST(host__normalisation_table)
{
	norm("dbc-1.cloud.databricks.com", "https://dbc-1.cloud.databricks.com", NULL, NULL);
	norm("  https://dbc-1.cloud.databricks.com/  ", "https://dbc-1.cloud.databricks.com", NULL,
	     NULL);
	norm("https://acme.databricks.net/?o=12345", "https://acme.databricks.net", "12345", NULL);
	norm("HTTPS://H.example:8443/some/path?x=1#frag", "https://H.example:8443", NULL, NULL);
	norm("http://127.0.0.1:9/a/b?o=42", "http://127.0.0.1:9", "42", NULL);
	norm("https://h/?w=abc&o=1&workspace_id=2", "https://h", "abc", NULL);
	norm("https://h/?workspace_id=2&o=", "https://h", "2", NULL);
	norm("https://h/?workspace_id=notnum", "https://h", NULL, NULL);
	norm("https://h/?a=acc1&account_id=acc2", "https://h", NULL, "acc1");
	norm("https://h/?account_id=acc%202", "https://h", NULL, "acc 2");
	norm("https://user:pw@h.example/x", "https://h.example", NULL, NULL);
	norm("https://[::1]:8080/", "https://[::1]:8080", NULL, NULL);
}

AIR_TEST(host__invalid)
{
	char *h = NULL, *w = NULL, *a = NULL;
	air_error *err = NULL;

	ASSERT_EQ_INT(air__host_normalize("   ", &h, &w, &a, &err), AIR_EAUTH);
	air_error_free(err);
	err = NULL;
	ASSERT_EQ_INT(air__host_normalize("https:///path", &h, &w, &a, &err), AIR_EAUTH);
	ASSERT_CONTAINS(air_error_message(err), "no host");
	air_error_free(err);
	err = NULL;
	ASSERT_EQ_INT(air__host_normalize("https://bad host/", &h, &w, &a, &err), AIR_EINVAL);
	air_error_free(err);
	err = NULL;
	ASSERT_EQ_INT(air__host_normalize("ht tp://x", &h, &w, &a, &err), AIR_EINVAL);
	air_error_free(err);
	/* The password of a user:password@ host never reaches a message. */
	err = NULL;
	ASSERT_EQ_INT(air__host_normalize("https://me:hunter22@/", &h, &w, &a, &err), AIR_EAUTH);
	ASSERT_NOT_CONTAINS(air_error_message(err), "hunter22");
	air_error_free(err);
	ASSERT_NULL(h);
}

AIR_TEST(host__loopback)
{
	ASSERT_TRUE(air__url_is_loopback("http://127.0.0.1:8080/x"));
	ASSERT_TRUE(air__url_is_loopback("http://127.9.8.7"));
	ASSERT_TRUE(air__url_is_loopback("http://localhost:1"));
	ASSERT_TRUE(air__url_is_loopback("http://LOCALHOST"));
	ASSERT_TRUE(air__url_is_loopback("http://[::1]:9/"));
	ASSERT_TRUE(air__url_is_loopback("http://u:p@127.0.0.1/"));
	ASSERT_FALSE(air__url_is_loopback("http://128.0.0.1"));
	ASSERT_FALSE(air__url_is_loopback("http://localhost.example.com"));
	ASSERT_FALSE(air__url_is_loopback("http://127.0.0.1.example.com"));
	ASSERT_FALSE(air__url_is_loopback("http://[::2]"));
	ASSERT_FALSE(air__url_is_loopback("http://10.0.0.1"));
}

AIR_TEST(host__url_safety)
{
	air_error *err = NULL;

	ASSERT_EQ_INT(air__check_url_safe("https://x.example/t", "t", &err), AIR_OK);
	ASSERT_EQ_INT(air__check_url_safe("http://localhost:3/t", "t", &err), AIR_OK);
	ASSERT_EQ_INT(air__check_url_safe("http://x.example/t", "the token endpoint", &err), AIR_EINVAL);
	ASSERT_CONTAINS(air_error_message(err), "the token endpoint");
	air_error_free(err);
	err = NULL;
	ASSERT_EQ_INT(air__check_url_safe("ftp://x.example/t", "t", &err), AIR_EINVAL);
	air_error_free(err);
}
