/* test_images.c: air_client_push_image() drives `databricks` and `docker`;
 * fake programs written here record every argument vector, so the exact
 * commands are asserted without a Docker engine. The profile comes from the
 * client's configuration. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <air/air.h>

#include "submit_test.h"
#include "test.h"

#define HOST "dbc-1234.container.cloud.databricks.com"

static char dir[4096], logpath[4200], docker[4200], databricks[4200];

/* Each call appends one line: the arguments joined by '|'. */
static const char fake_docker[] =
	"#!/bin/sh\n"
	"log=\"$(dirname \"$0\")/calls.log\"\n"
	"(IFS='|'; echo \"docker|$*\") >> \"$log\"\n"
	"state=\"$(dirname \"$0\")/pulled\"\n"
	"case \"$1\" in\n"
	"image)\n"
	"  if [ -n \"$FAKE_ABSENT\" ] && [ ! -f \"$state\" ]; then echo 'Error: No such image' >&2; exit 1; fi\n"
	"  echo \"${FAKE_PLATFORM:-linux/amd64}\";;\n"
	"pull) echo 'pulling...'; touch \"$state\";;\n"
	"push)\n"
	"  if [ -n \"$FAKE_PUSH_FAILS\" ]; then echo 'The push refers to repository'; "
	"echo 'denied: requested access to the resource is denied' >&2; exit 1; fi\n"
	"  echo 'latest: digest: sha256:0123 size: 528';;\n"
	"esac\n"
	"exit 0\n";

static const char fake_databricks[] =
	"#!/bin/sh\n"
	"(IFS='|'; echo \"databricks|$*\") >> \"$(dirname \"$0\")/calls.log\"\n"
	"echo \"Configured the Docker credential helper for registry '" HOST "'.\"\n";

static void setup(void)
{
	snprintf(dir, sizeof(dir), "%s", air_test_tmpdir());
	snprintf(logpath, sizeof(logpath), "%s/calls.log", dir);
	snprintf(docker, sizeof(docker), "%s/docker", dir);
	snprintf(databricks, sizeof(databricks), "%s/databricks", dir);
	air_test_write_file(docker, fake_docker, strlen(fake_docker));
	air_test_write_file(databricks, fake_databricks, strlen(fake_databricks));
	sh("chmod +x '%s' '%s'", docker, databricks);
	unsetenv("FAKE_ABSENT");
	unsetenv("FAKE_PLATFORM");
	unsetenv("FAKE_PUSH_FAILS");
}

AIR_TEST_HOOKS(setup, NULL)

static const char *calls(void)
{
	static char buf[8192];
	char *s = air_test_read_file(logpath, NULL);

	snprintf(buf, sizeof(buf), "%s", s ? s : "");
	free(s);
	return buf;
}

static air_image_push_options *opts(const char *source, const char *catalog, const char *schema)
{
	air_image_push_options *o = NULL;

	ASSERT_EQ_INT(air_image_push_options_new(&o), AIR_OK);
	ASSERT_EQ_INT(air_image_push_options_set_str(o, AIR_IMAGE_SOURCE, source), AIR_OK);
	ASSERT_EQ_INT(air_image_push_options_set_str(o, AIR_IMAGE_CATALOG, catalog), AIR_OK);
	ASSERT_EQ_INT(air_image_push_options_set_str(o, AIR_IMAGE_SCHEMA, schema), AIR_OK);
	ASSERT_EQ_INT(air_image_push_options_set_str(o, AIR_IMAGE_DOCKER, docker), AIR_OK);
	ASSERT_EQ_INT(air_image_push_options_set_str(o, AIR_IMAGE_DATABRICKS_CLI, databricks), AIR_OK);
	return o;
}

/* A client whose configuration comes from profile @profile of a config
 * file (a PAT profile: resolving it contacts nobody), or from options alone
 * when @profile is NULL. */
static air_client *client_for(const char *profile)
{
	static const char cfg[] = "[p1]\nhost = https://p1.example\ntoken = dapi-p1-token\n";
	char path[4300];
	air_client_options *o = NULL;
	air_client *c = NULL;
	air_error *err = NULL;

	snprintf(path, sizeof(path), "%s/databrickscfg", dir);
	air_test_write_file(path, cfg, strlen(cfg));
	ASSERT_EQ_INT(air_client_options_new(&o), AIR_OK);
	ASSERT_EQ_INT(air_client_options_set_int(o, AIR_OPT_USE_ENVIRONMENT, 0), AIR_OK);
	ASSERT_EQ_INT(air_client_options_set_str(o, AIR_OPT_HOME_DIR, dir), AIR_OK);
	ASSERT_EQ_INT(air_client_options_set_str(o, AIR_OPT_CONFIG_FILE, path), AIR_OK);
	if (profile) {
		ASSERT_EQ_INT(air_client_options_set_str(o, AIR_OPT_PROFILE, profile), AIR_OK);
	} else {
		ASSERT_EQ_INT(air_client_options_set_str(o, AIR_OPT_HOST, "https://h.example"), AIR_OK);
		ASSERT_EQ_INT(air_client_options_set_str(o, AIR_OPT_TOKEN, "dapi-h"), AIR_OK);
	}
	ASSERT_OK(air_client_new(o, &c, &err), err);
	air_client_options_free(o);
	return c;
}

static int push_as(const char *profile, air_image_push_options *o, char **uc, char **remote,
                   air_error **err)
{
	air_client *c = client_for(profile);
	int rc = air_client_push_image(c, o, uc, remote, err);

	air_client_free(c);
	air_image_push_options_free(o);
	return rc;
}

static int push(air_image_push_options *o, char **uc, char **remote, air_error **err)
{
	return push_as("p1", o, uc, remote, err);
}

AIR_TEST(images__push_local_image)
{
	char *uc = NULL, *remote = NULL;
	air_error *err = NULL;

	ASSERT_OK(push(opts("myimg:1.0", "main", "ml"), &uc, &remote, &err), err);
	ASSERT_EQ_STR(uc, "main.ml.myimg:1.0");
	ASSERT_EQ_STR(remote, HOST "/main.ml.myimg:1.0");
	ASSERT_EQ_STR(calls(), "databricks|auth|docker|configure|p1\n"
	                       "docker|image|inspect|--format|{{.Os}}/{{.Architecture}}|myimg:1.0\n"
	                       "docker|tag|myimg:1.0|" HOST "/main.ml.myimg:1.0\n"
	                       "docker|push|" HOST "/main.ml.myimg:1.0\n");
	air_free(uc);
	air_free(remote);
}

AIR_TEST(images__absent_image_is_pulled_for_amd64)
{
	char *uc = NULL;
	air_error *err = NULL;

	setenv("FAKE_ABSENT", "1", 1);
	ASSERT_OK(push(opts("reg.io:5000/team/trainer", "main", "ml"), &uc, NULL, &err), err);
	ASSERT_EQ_STR(uc, "main.ml.trainer:latest");
	ASSERT_EQ_STR(calls(), "databricks|auth|docker|configure|p1\n"
	                       "docker|image|inspect|--format|{{.Os}}/{{.Architecture}}|reg.io:5000/team/trainer\n"
	                       "docker|pull|--platform|linux/amd64|reg.io:5000/team/trainer\n"
	                       "docker|image|inspect|--format|{{.Os}}/{{.Architecture}}|reg.io:5000/team/trainer\n"
	                       "docker|tag|reg.io:5000/team/trainer|" HOST "/main.ml.trainer:latest\n"
	                       "docker|push|" HOST "/main.ml.trainer:latest\n");
	air_free(uc);
}

AIR_TEST(images__pull_flag_artifact_and_registry_host)
{
	air_image_push_options *o = opts("img@sha256:abc", "main", "ml_team");
	char *uc = NULL, *remote = NULL;
	air_error *err = NULL;

	ASSERT_EQ_INT(air_image_push_options_set_int(o, AIR_IMAGE_PULL, 1), AIR_OK);
	ASSERT_EQ_INT(air_image_push_options_set_str(o, AIR_IMAGE_ARTIFACT, "trainer-x"), AIR_OK);
	ASSERT_EQ_INT(air_image_push_options_set_str(o, AIR_IMAGE_REGISTRY_HOST, "r.container.example"),
	              AIR_OK);
	ASSERT_OK(push(o, &uc, &remote, &err), err);
	ASSERT_EQ_STR(uc, "main.ml_team.trainer-x:latest");
	ASSERT_EQ_STR(remote, "r.container.example/main.ml_team.trainer-x:latest");
	/* no databricks call with a given host; --pull skips the first inspect */
	ASSERT_EQ_STR(calls(), "docker|pull|--platform|linux/amd64|img@sha256:abc\n"
	                       "docker|image|inspect|--format|{{.Os}}/{{.Architecture}}|img@sha256:abc\n"
	                       "docker|tag|img@sha256:abc|r.container.example/main.ml_team.trainer-x:latest\n"
	                       "docker|push|r.container.example/main.ml_team.trainer-x:latest\n");
	air_free(uc);
	air_free(remote);
}

AIR_TEST(images__wrong_platform_is_refused)
{
	char *uc = NULL;
	air_error *err = NULL;

	setenv("FAKE_PLATFORM", "linux/arm64", 1);
	ASSERT_EQ_INT(push(opts("myimg:1.0", "main", "ml"), &uc, NULL, &err), AIR_EINVAL);
	ASSERT_CONTAINS(air_error_message(err), "linux/arm64");
	ASSERT_CONTAINS(air_error_message(err), "linux/amd64");
	ASSERT_CONTAINS(air_error_message(err), "pull option");
	ASSERT_EQ_STR(air_error_field(err), "source");
	ASSERT_NULL(uc);
	ASSERT_NOT_CONTAINS(calls(), "docker|tag");
	air_error_free(err);
}

AIR_TEST(images__push_failure_reports_docker_output)
{
	char *uc = NULL;
	air_error *err = NULL;

	setenv("FAKE_PUSH_FAILS", "1", 1);
	ASSERT_EQ_INT(push(opts("myimg:1.0", "main", "ml"), &uc, NULL, &err), AIR_EIO);
	ASSERT_CONTAINS(air_error_message(err), "docker push");
	ASSERT_CONTAINS(air_error_message(err), "denied: requested access to the resource is denied");
	air_error_free(err);
}

static void expect_invalid(air_image_push_options *o, const char *field, const char *needle)
{
	char *uc = NULL;
	air_error *err = NULL;

	ASSERT_EQ_INT(push(o, &uc, NULL, &err), AIR_EINVAL);
	ASSERT_EQ_STR(air_error_field(err), field);
	ASSERT_CONTAINS(air_error_message(err), needle);
	ASSERT_EQ_STR(calls(), ""); /* nothing was run */
	air_error_free(err);
}

AIR_TEST(images__names_are_validated_first)
{
	char longname[300];
	air_image_push_options *o;

	expect_invalid(opts("myimg:1.0", "Main", "ml"), "catalog", "Main");
	expect_invalid(opts("myimg:1.0", "main", "ml___x"), "schema", "ml___x");
	expect_invalid(opts("myimg:1.0", "main", "-ml"), "schema", "-ml");
	expect_invalid(opts("team/My_Img:v1", "main", "ml"), "artifact", "the artifact option");
	expect_invalid(opts("myimg:.bad", "main", "ml"), "tag", ".bad");
	expect_invalid(opts("", "main", "ml"), "source", "source");
	o = opts("myimg", "main", "ml");
	ASSERT_EQ_INT(air_image_push_options_set_str(o, AIR_IMAGE_CATALOG, NULL), AIR_OK);
	expect_invalid(o, "catalog", "catalog");
	memset(longname, 'a', 250);
	longname[250] = '\0';
	expect_invalid(opts("myimg", longname, "ml"), "artifact", "255");
	o = opts("myimg", "main", "ml");
	ASSERT_EQ_INT(air_image_push_options_set_str(o, AIR_IMAGE_ARTIFACT, "ok:bad tag"), AIR_OK);
	expect_invalid(o, "tag", "bad tag");
}

AIR_TEST(images__profile_is_required_for_the_registry_host)
{
	air_image_push_options *o = opts("myimg:1.0", "main", "ml");
	char *uc = NULL;
	air_error *err = NULL;

	ASSERT_EQ_INT(push_as(NULL, o, &uc, NULL, &err), AIR_EAUTH);
	ASSERT_CONTAINS(air_error_message(err), "databricks auth login --profile");
	ASSERT_CONTAINS(air_error_message(err), "profile option");
	ASSERT_EQ_STR(air_error_field(err), "profile"); /* front ends name their flag */
	ASSERT_EQ_STR(calls(), "");
	air_error_free(err);
}

AIR_TEST(images__option_setters)
{
	air_image_push_options *o = NULL;
	char *uc = NULL;

	ASSERT_EQ_INT(air_image_push_options_new(&o), AIR_OK);
	ASSERT_EQ_INT(air_image_push_options_set_str(o, AIR_IMAGE_PULL, "1"), AIR_EINVAL);
	ASSERT_EQ_INT(air_image_push_options_set_str(o, 99, "x"), AIR_EUNSUPPORTED);
	ASSERT_EQ_INT(air_image_push_options_set_int(o, AIR_IMAGE_SOURCE, 1), AIR_EINVAL);
	ASSERT_EQ_INT(air_image_push_options_set_int(o, AIR_IMAGE_PULL, 2), AIR_EINVAL);
	ASSERT_EQ_INT(air_image_push_options_set_int(o, 199, 1), AIR_EUNSUPPORTED);
	ASSERT_EQ_INT(air_client_push_image(NULL, o, &uc, NULL, NULL), AIR_EINVAL);
	{
		air_client *c = client_for("p1");
		ASSERT_EQ_INT(air_client_push_image(c, o, NULL, NULL, NULL), AIR_EINVAL);
		ASSERT_EQ_INT(air_client_push_image(c, NULL, &uc, NULL, NULL), AIR_EINVAL);
		air_client_free(c);
	}
	ASSERT_EQ_INT(air_image_push_options_set_interrupt(NULL, NULL), AIR_EINVAL);
	ASSERT_EQ_INT(air_image_push_options_set_deadline_ms(o, -1), AIR_EINVAL);
	air_image_push_options_free(o);
	air_image_push_options_free(NULL);
}
