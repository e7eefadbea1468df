/* test_docker_config.c: the Docker client configuration reader and the names
 * registry credentials are stored under (lib/images/docker_config.c,
 * credentials.c): registry keys, host matching, helper names, inline auths. */
#include <string.h>

#include "images/credentials.h"
#include "images/docker_config.h"
#include "images/images.h"
#include "test.h"

static air__docker_config *parse(const char *json)
{
	air__docker_config *c = NULL;
	air_error *err = NULL;

	ASSERT_OK(air__docker_config_parse("config.json", json, strlen(json), &c, &err), err);
	return c;
}

AIR_TEST(docker_config__registry_keys)
{
	static const char *const cases[][2] = {
		{"docker.io/library/ubuntu:latest", "https://index.docker.io/v1/"},
		{"index.docker.io/a/b:1", "https://index.docker.io/v1/"},
		{"registry-1.docker.io/a/b:1", "https://index.docker.io/v1/"},
		{"myreg.io/team/train:v3", "myreg.io"},
		{"localhost:5000/x:1", "localhost:5000"},
		{"ghcr.io/o/r@sha256:abc", "ghcr.io"},
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char *k = air__docker_registry_key(cases[i][0]);
		ASSERT_EQ_STR(k, cases[i][1]);
		air__free(k);
	}
}

AIR_TEST(docker_config__hosts)
{
	static const char *const cases[][2] = {
		{"https://index.docker.io/v1/", "index.docker.io"},
		{"docker.io", "index.docker.io"},
		{"HTTPS://MyReg.IO/v2/", "myreg.io"},
		{"http://localhost:5000", "localhost:5000"},
		{"myreg.io", "myreg.io"},
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char *h = air__docker_registry_host(cases[i][0]);
		ASSERT_EQ_STR(h, cases[i][1]);
		air__free(h);
	}
}

AIR_TEST(docker_config__helpers)
{
	air__docker_config *c = parse("{\"credHelpers\":{\"https://gcr.io\":\"gcloud\",\"bad.io\":"
	                              "\"../../bin/sh\",\"opt.io\":\"-x\"},\"credsStore\":\"desktop\"}");
	bool per = false;

	ASSERT_EQ_STR(air__docker_config_helper(c, "gcr.io", &per), "gcloud");
	ASSERT_TRUE(per);
	ASSERT_EQ_STR(air__docker_config_helper(c, "other.io", &per), "desktop");
	ASSERT_FALSE(per);
	/* names that are paths or options are not run */
	ASSERT_EQ_STR(air__docker_config_helper(c, "bad.io", &per), "desktop");
	ASSERT_EQ_STR(air__docker_config_helper(c, "opt.io", NULL), "desktop");
	ASSERT_EQ_STR(air__docker_config_store(c), "desktop");
	air__docker_config_free(c);
	c = parse("{\"credsStore\":\"a/b\",\"credHelpers\":[1,2]}");
	ASSERT_NULL(air__docker_config_helper(c, "gcr.io", NULL));
	ASSERT_NULL(air__docker_config_store(c));
	air__docker_config_free(c);
}

AIR_TEST(docker_config__inline_auths)
{
	/* dXNlcjpwYTpzcw== = "user:pa:ss"; OnB3 = ":pw"; dXNlcg== = "user"; dXNlcjo= = "user:" */
	air__docker_config *c = parse(
		"{\"auths\":{\"https://index.docker.io/v1/\":{\"auth\":\"dXNlcjpwYTpzcw==\"},"
		"\"noUser.io\":{\"auth\":\"OnB3\"},\"nocolon.io\":{\"auth\":\"dXNlcg==\"},"
		"\"nopw.io\":{\"auth\":\"dXNlcjo=\"},\"garbage.io\":{\"auth\":\"!!!\"},"
		"\"token.io\":{\"auth\":\"\",\"identitytoken\":\"t\"},\"num.io\":{\"auth\":5}}}");
	char *user = NULL, *secret = NULL;

	ASSERT_EQ_INT(air__docker_config_inline(c, "https://index.docker.io/v1/", &user, &secret),
	              AIR_OK);
	ASSERT_EQ_STR(user, "user");
	ASSERT_EQ_STR(secret, "pa:ss");
	air__free_secret(user);
	air__free_secret(secret);
	/* matched by host: the hub alias */
	ASSERT_EQ_INT(air__docker_config_inline(c, "docker.io", &user, &secret), AIR_OK);
	air__free_secret(user);
	air__free_secret(secret);
	static const char *const unusable[] = {"noUser.io", "nocolon.io", "nopw.io", "garbage.io",
	                                       "token.io", "num.io", "absent.io"};
	for (size_t i = 0; i < sizeof(unusable) / sizeof(unusable[0]); i++) {
		ASSERT_EQ_INT(air__docker_config_inline(c, unusable[i], &user, &secret), AIR_ENOTFOUND);
		ASSERT_NULL(user);
		ASSERT_NULL(secret);
	}
	air__docker_config_free(c);
}

AIR_TEST(docker_config__malformed_files_never_quote_their_text)
{
	static const char *const bad[] = {"[]", "\"x\"", "{\"auths\": {\"a\": {\"auth\": \"c2VjcmV0\"",
	                                  "", "{} trailing"};

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		air__docker_config *c = NULL;
		air_error *err = NULL;
		ASSERT_EQ_INT(air__docker_config_parse("/home/u/.docker/config.json", bad[i],
		                                       strlen(bad[i]), &c, &err), AIR_EIO);
		ASSERT_NULL(c);
		ASSERT_CONTAINS(air_error_message(err), "/home/u/.docker/config.json");
		ASSERT_NOT_CONTAINS(air_error_message(err), "c2VjcmV0");
		ASSERT_EQ_INT(air_error_kind(err), AIR_KIND_IO);
		air_error_free(err);
	}
}

AIR_TEST(docker_config__secret_names)
{
	char *s = air__registry_scope_name("first.last+x@example.com");
	char *k = air__registry_key_name(AIR__DOCKER_HUB_KEY, "me@example.com");
	char *k2 = air__registry_key_name("localhost:5000", "robot$1");

	ASSERT_EQ_STR(s, "docker-credentials-first.last_x@example.com");
	ASSERT_EQ_STR(k, "index.docker.io-me_example.com-local");
	ASSERT_EQ_STR(k2, "localhost_5000-robot_1-local");
	air__free(s);
	air__free(k);
	air__free(k2);
}
