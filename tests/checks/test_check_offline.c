/* test_check_offline.c: the checks of air_client_check() that look at the
 * workload and this machine only — the reproducibility checks (environment,
 * dependencies, image, code commit), the resource sanity checks
 * (accelerator count, rendezvous), the submission's local checks
 * (idempotency key, code paths, snapshot size and file count) — each
 * passing and failing, and the strict report. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check_test.h"
#include "submit_test.h"
#include "test.h"

AIR_TEST_HOOKS(flow_setup, NULL)

#define BASE "experiment_name: smoke-test\ncommand: python train.py\n"
#define COMPUTE "compute: {accelerator_type: GPU_1xH100, num_accelerators: 1}\n"

/* The reproducibility and sanity checks of @yaml (no request). */
static air_check_report *offline(const char *yaml, int strict)
{
	air_client *c = fakews_client(flow_fw);
	air_check_options *o = check_options(strict, 0, 1, 1);
	air_check_report *r = check_yaml(c, yaml, o);

	air_check_options_free(o);
	air_client_free(c);
	return r;
}

AIR_TEST(offline__environment_pinned)
{
	air_check_report *r;

	r = offline(BASE COMPUTE "environment: {version: '6', dependencies: [x==1]}\n", 0);
	expect_check(r, "environment_pinned", "environment.version", AIR_CHECK_PASS,
	             "pinned to environment version 6");
	air_check_report_free(r);
	r = offline(BASE COMPUTE, 0);
	expect_check(r, "environment_pinned", "environment.version", AIR_CHECK_WARN,
	             "environment.version is not set: the run gets the default environment "
	             "(CLIENT-GPU-6 now)");
	air_check_report_free(r);
	r = offline(BASE COMPUTE "environment: {unity_catalog_image: ml.img.train:latest}\n", 0);
	expect_check(r, "environment_pinned", "environment.unity_catalog_image", AIR_CHECK_WARN,
	             "the tag latest follows every push");
	air_check_report_free(r);
	r = offline(BASE COMPUTE "environment: {unity_catalog_image: ml.img.train:v3}\n", 0);
	expect_check(r, "environment_pinned", NULL, AIR_CHECK_PASS, "the environment is the image "
	             "ml.img.train:v3");
	air_check_report_free(r);
	r = offline(BASE COMPUTE "environment: {docker_image: {url: 'reg.io/t@sha256:0123'}}\n", 0);
	expect_check(r, "environment_pinned", "environment.docker_image.url", AIR_CHECK_PASS,
	             "reg.io/t@sha256:0123");
	air_check_report_free(r);
	r = offline(BASE COMPUTE "environment: {docker_image: {url: ubuntu}}\n", 0);
	expect_check(r, "environment_pinned", NULL, AIR_CHECK_WARN,
	             "image docker.io/library/ubuntu:latest: the tag latest");
	air_check_report_free(r);
	r = offline(BASE COMPUTE "environment: {docker_image: {url: reg.io/t:v3, tag_policy: latest}}\n",
	            0);
	expect_check(r, "environment_pinned", "environment.docker_image.tag_policy", AIR_CHECK_WARN,
	             "tag_policy latest registers reg.io/t:v3 again at every submission");
	air_check_report_free(r);
}

AIR_TEST(offline__dependencies_pinned)
{
	air_check_report *r;

	r = offline(BASE COMPUTE "environment:\n  version: '6'\n  dependencies:\n"
	            "    - --extra-index-url https://pypi.example.com/simple\n"
	            "    - numpy\n    - torch==2.3.0\n    - pandas>=2,<3\n    - 'x==1.*'\n"
	            "    - 'pkg @ https://h.example.com/pkg.tar.gz#sha256=abc'\n", 0);
	expect_check(r, "dependencies_pinned", "environment.dependencies[1]", AIR_CHECK_WARN,
	             "numpy is not pinned: \"numpy\" installs whatever version");
	expect_check(r, "dependencies_pinned", "environment.dependencies[3]", AIR_CHECK_WARN,
	             "pandas is not pinned");
	expect_check(r, "dependencies_pinned", "environment.dependencies[4]", AIR_CHECK_WARN,
	             "x is not pinned");
	ASSERT_EQ_INT(count_checks(r, "dependencies_pinned"), 3);
	ASSERT_EQ_INT(air_check_report_ok(r), 1);
	air_check_report_free(r);
	r = offline(BASE COMPUTE "environment: {version: '6', dependencies: ['torch==2.3.0', "
	            "'numpy===1.26.4', 'lib --hash=sha256:0a1b']}\n", 0);
	expect_check(r, "dependencies_pinned", "environment.dependencies", AIR_CHECK_PASS,
	             "every dependency is pinned (3)");
	air_check_report_free(r);
	r = offline(BASE COMPUTE, 0);
	ASSERT_NULL(find_check(r, "dependencies_pinned", NULL));
	air_check_report_free(r);
}

AIR_TEST(offline__image_used_alone)
{
	air_check_report *r;

	r = offline(BASE COMPUTE "environment: {unity_catalog_image: ml.img.train:v3}\n", 0);
	expect_check(r, "image_exclusive", "environment", AIR_CHECK_PASS,
	             "the image ml.img.train:v3 is used alone");
	air_check_report_free(r);
	r = offline(BASE COMPUTE, 0);
	ASSERT_NULL(find_check(r, "image_exclusive", NULL));
	air_check_report_free(r);
}

/* A workload whose code is @root, with @extra code_source keys ("" for none). */
static air_check_report *code_check(const char *root, const char *extra)
{
	char yaml[8192];

	snprintf(yaml, sizeof(yaml), BASE COMPUTE "environment: {version: '6', dependencies: [a==1]}\n"
	         "code_source: {root_path: '%s'%s}\n", root, extra);
	return offline(yaml, 0);
}

AIR_TEST(offline__code_commit)
{
	const char *files[] = {"train.py=print(1)", NULL};
	char root[4200], extra[256], sha[64];
	air_check_report *r;

	snprintf(root, sizeof(root), "%s/repo", air_test_tmpdir());
	sh("mkdir -p '%s'", root);
	r = code_check(root, "");
	expect_check(r, "code_commit", "code_source", AIR_CHECK_WARN,
	             "is not in a git repository: the code is at no known commit");
	air_check_report_free(r);
	snprintf(sha, sizeof(sha), "%s", git_repo(root, files));
	r = code_check(root, "");
	expect_check(r, "code_commit", "code_source", AIR_CHECK_PASS, "with nothing uncommitted");
	ASSERT_CONTAINS(air_check_message(find_check(r, "code_commit", NULL)), "is at commit ");
	air_check_report_free(r);
	/* seven changes: five shown */
	sh("cd '%s' && for f in a b c d e f g; do echo x > $f.txt; done", root);
	r = code_check(root, "");
	expect_check(r, "code_commit", NULL, AIR_CHECK_WARN, "has uncommitted changes (");
	expect_check(r, "code_commit", NULL, AIR_CHECK_WARN, " and 2 more)");
	air_check_report_free(r);
	snprintf(extra, sizeof(extra), ", git: {commit: '%s'}", sha);
	r = code_check(root, extra);
	expect_check(r, "code_commit", "code_source.git.commit", AIR_CHECK_PASS, sha);
	air_check_report_free(r);
	sh("cd '%s' && git add -A >/dev/null && git -c user.email=t@e -c user.name=t commit -qm more "
	   "&& git branch -f feature", root);
	r = code_check(root, ", git: {branch: feature}");
	expect_check(r, "code_commit", "code_source.git.branch", AIR_CHECK_WARN,
	             "the snapshot is the head of branch feature when submitted");
	air_check_report_free(r);
	r = code_check("/nonexistent/code", "");
	expect_check(r, "code_commit", "code_source", AIR_CHECK_SKIPPED, "the code cannot be looked at");
	air_check_report_free(r);
}

AIR_TEST(offline__sanity)
{
	air_check_report *r;

	r = offline(BASE COMPUTE, 0);
	expect_check(r, "num_accelerators", "compute.num_accelerators", AIR_CHECK_PASS,
	             "1 GPU: 1 node of GPU_1xH100");
	ASSERT_NULL(find_check(r, "rendezvous", NULL)); /* one node */
	air_check_report_free(r);
	r = offline(BASE "compute: {accelerator_type: GPU_8xH100, num_accelerators: 16}\n", 0);
	expect_check(r, "num_accelerators", NULL, AIR_CHECK_PASS, "16 GPUs: 2 nodes of GPU_8xH100");
	expect_check(r, "rendezvous", "command", AIR_CHECK_WARN, "runs on 2 nodes, but its command "
	             "uses none of the rendezvous variables");
	air_check_report_free(r);
	r = offline("experiment_name: smoke-test\ncommand: torchrun --nnodes 2 --nproc_per_node 8 train.py\n"
	            "compute: {accelerator_type: GPU_8xH100, num_accelerators: 16}\n", 0);
	expect_check(r, "rendezvous", "command", AIR_CHECK_PASS, "uses --nnodes");
	air_check_report_free(r);
}

AIR_TEST(offline__strict_fails_on_warnings)
{
	air_check_report *r;

	r = offline(BASE COMPUTE, 0);
	ASSERT_EQ_INT(air_check_report_ok(r), 1); /* a warning: environment.version */
	air_check_report_free(r);
	r = offline(BASE COMPUTE, 1);
	ASSERT_EQ_INT(air_check_report_ok(r), 0);
	air_check_report_free(r);
	r = offline(BASE COMPUTE "environment: {version: '6', dependencies: [a==1]}\n", 1);
	ASSERT_EQ_INT(air_check_report_ok(r), 1);
	air_check_report_free(r);
}

/* The submission's local checks (resources, no reproducibility): @yaml with
 * the idempotency key option @key. */
static air_check_report *submission_checks(const char *yaml, const char *key)
{
	air_client *c = fakews_client(flow_fw);
	air_check_options *o = check_options(0, 1, 0, 0);
	air_check_report *r;

	if (key)
		ASSERT_EQ_INT(air_check_options_set_str(o, AIR_CHECKS_IDEMPOTENCY_KEY, key), AIR_OK);
	r = check_yaml(c, yaml, o);
	air_check_options_free(o);
	air_client_free(c);
	return r;
}

AIR_TEST(offline__idempotency_key)
{
	char key[80];
	air_check_report *r;

	r = submission_checks(BASE COMPUTE, NULL);
	ASSERT_NULL(find_check(r, "idempotency_key", NULL));
	air_check_report_free(r);
	r = submission_checks(BASE COMPUTE "idempotency_token: sweep-1\n", NULL);
	expect_check(r, "idempotency_key", "idempotency_token", AIR_CHECK_PASS,
	             "the idempotency key is 7 bytes long");
	air_check_report_free(r);
	memset(key, 'k', 70);
	key[70] = '\0';
	r = submission_checks(BASE COMPUTE, key);
	expect_check(r, "idempotency_key", "idempotency_key", AIR_CHECK_FAIL,
	             "the idempotency key is 70 bytes long; at most 64 bytes are allowed");
	ASSERT_EQ_INT(air_check_report_ok(r), 0);
	air_check_report_free(r);
}

AIR_TEST(offline__code_paths_and_snapshot)
{
	char yaml[8192], root[4200];
	const air_check *s;
	air_check_report *r;

	snprintf(root, sizeof(root), "%s/code", air_test_tmpdir());
	sh("mkdir -p '%s/pkg' && printf 12345 > '%s/pkg/a.py' && printf 123 > '%s/b.py' && "
	   "printf 'x\\n' > '%s/.gitignore'", root, root, root, root);
	snprintf(yaml, sizeof(yaml), BASE COMPUTE "code_source: {root_path: '%s'}\n", root);
	r = submission_checks(yaml, NULL);
	expect_check(r, "code_paths", "code_source.root_path", AIR_CHECK_PASS, " exists");
	expect_check(r, "snapshot", "code_source", AIR_CHECK_PASS, "3 files, 10 bytes (");
	s = find_check(r, "snapshot", NULL);
	ASSERT_EQ_INT(air_check_files(s), 3);
	ASSERT_EQ_INT(air_check_bytes(s), 10);
	ASSERT_EQ_INT(air_check_bytes(find_check(r, "code_paths", NULL)), -1);
	air_check_report_free(r);
	snprintf(yaml, sizeof(yaml), BASE COMPUTE "code_source: {root_path: '%s', include_paths: "
	         "[pkg, missing]}\n", root);
	r = submission_checks(yaml, NULL);
	expect_check(r, "code_paths", "code_source.include_paths", AIR_CHECK_FAIL,
	             "include paths not found in ");
	expect_check(r, "snapshot", "code_source", AIR_CHECK_SKIPPED, "no snapshot");
	air_check_report_free(r);
	/* a link that leaves the root stops the packaging (also as root) */
	sh("ln -s /etc/hostname '%s/leak'", root);
	snprintf(yaml, sizeof(yaml), BASE COMPUTE "code_source: {root_path: '%s'}\n", root);
	r = submission_checks(yaml, NULL);
	expect_check(r, "code_paths", NULL, AIR_CHECK_PASS, " exists");
	expect_check(r, "snapshot", "code_source", AIR_CHECK_FAIL, "leak");
	ASSERT_EQ_INT(air_check_report_ok(r), 0);
	air_check_report_free(r);
	sh("rm '%s/leak'", root);
	if (!running_as_root()) {
		sh("chmod 000 '%s/b.py'", root);
		snprintf(yaml, sizeof(yaml), BASE COMPUTE "code_source: {root_path: '%s'}\n", root);
		r = submission_checks(yaml, NULL);
		expect_check(r, "snapshot", "code_source", AIR_CHECK_FAIL, "cannot read");
		air_check_report_free(r);
		sh("chmod 644 '%s/b.py'", root);
	}
}
