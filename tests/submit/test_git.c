/* test_git.c: git-archive snapshots — commit/branch resolution, dirty-tree
 * and include-path checks, the archive itself (docs/submit.md#code-snapshot) —
 * and the provenance sidecars, against real temporary repositories. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "submit/git.h"
#include "core/core.h"
#include "submit/snapshot.h"
#include "submit_test.h"
#include "test.h"

static const char *const files[] = {"train.py=print(1)\n", "research/model.py=m\n",
                                    "configs/a.yaml=a: 1\n", "sub/inner.txt=inner\n", NULL};

/* A repository "repo" with the files above committed; returns its path. */
static const char *repo(char sha[41])
{
	static char dir[4096];

	snprintf(dir, sizeof(dir), "%s/repo", air_test_tmpdir());
	snprintf(sha, 41, "%s", git_repo(dir, files));
	return dir;
}

static int plan_in(const char *dir, const char *root_path, const char *commit, const char *branch,
                   const char *const *inc, size_t n, air__snapshot *s, air_error **err)
{
	air__snapshot_spec spec;

	memset(&spec, 0, sizeof(spec));
	spec.root_path = root_path;
	spec.base_dir = dir;
	spec.git_commit = commit;
	spec.git_branch = branch;
	spec.include_paths = inc;
	spec.n_include_paths = n;
	return air__snapshot_plan(&spec, s, err);
}

/* Read a packaged archive back from its file. */
static void tar_archive(const air__archive *a, tar_list *l)
{
	char *data = malloc((size_t)a->size + 1);
	int64_t off = 0;
	ssize_t got;

	ASSERT_NOT_NULL(data);
	while (off < a->size && (got = air__archive_read_at((void *)a, off, data + off,
	                                                    (size_t)(a->size - off))) > 0)
		off += got;
	ASSERT_EQ_INT(off, a->size);
	tar_read(data, (size_t)a->size, l);
	free(data);
}

static void expect_key(const air__snapshot *s, const char *material)
{
	char key[65], name[128];

	air__sha256_hex(material, strlen(material), key);
	ASSERT_EQ_STR(s->cache_key, key);
	snprintf(name, sizeof(name), "%s_%.16s.tar.gz", s->dirname, key);
	ASSERT_EQ_STR(s->archive_name, name);
}

AIR_TEST(git__pinned_commit_plan_and_archive)
{
	char sha[41], material[128];
	const char *dir = repo(sha);
	air__snapshot s;
	air_error *err = NULL;
	tar_list l;

	/* uncommitted edits do not matter for a pinned commit */
	sh("echo changed > '%s/train.py' && echo new > '%s/untracked.txt'", dir, dir);
	ASSERT_OK(plan_in(dir, ".", sha, NULL, NULL, 0, &s, &err), err);
	ASSERT_EQ_INT(s.mode, AIR__SNAPSHOT_GIT);
	ASSERT_TRUE(s.in_git);
	ASSERT_EQ_STR(s.sha, sha);
	snprintf(material, sizeof(material), "%s\n\nv1", sha);
	expect_key(&s, material);
	ASSERT_FALSE(s.packaged);
	ASSERT_OK(air__snapshot_package(&s, NULL, &err), err);
	tar_archive(&s.archive, &l);
	ASSERT_EQ_STR(tar_names(&l), "repo/,repo/configs/,repo/configs/a.yaml,repo/research/,"
	                             "repo/research/model.py,repo/sub/,repo/sub/inner.txt,repo/train.py");
	ASSERT_EQ_STR(tar_find(&l, "repo/train.py")->data, "print(1)\n");
	tar_free(&l);
	air__snapshot_dispose(&s);
}

AIR_TEST(git__abbreviated_commit_keys_as_written)
{
	char sha[41], abbrev[8], material[64];
	const char *dir = repo(sha);
	air__snapshot s;
	air_error *err = NULL;

	snprintf(abbrev, sizeof(abbrev), "%.7s", sha);
	ASSERT_OK(plan_in(dir, ".", abbrev, NULL, NULL, 0, &s, &err), err);
	ASSERT_EQ_STR(s.sha, sha);
	snprintf(material, sizeof(material), "%s\n\nv1", abbrev);
	expect_key(&s, material);
	air__snapshot_dispose(&s);
}

AIR_TEST(git__include_paths_and_subdirectory_root)
{
	char sha[41], material[128];
	const char *dir = repo(sha);
	const char *inc[] = {"research", "configs/a.yaml"};
	air__snapshot s;
	air_error *err = NULL;
	tar_list l;

	ASSERT_OK(plan_in(dir, ".", sha, NULL, inc, 2, &s, &err), err);
	snprintf(material, sizeof(material), "%s\nconfigs/a.yaml\nresearch\nv1", sha);
	expect_key(&s, material);
	ASSERT_OK(air__snapshot_package(&s, NULL, &err), err);
	tar_archive(&s.archive, &l);
	ASSERT_EQ_STR(tar_names(&l), "repo/,repo/configs/,repo/configs/a.yaml,repo/research/,"
	                             "repo/research/model.py");
	tar_free(&l);
	air__snapshot_dispose(&s);

	/* a subdirectory of the repository: only its subtree, under its own name */
	ASSERT_OK(plan_in(dir, "sub", sha, NULL, NULL, 0, &s, &err), err);
	ASSERT_EQ_STR(s.dirname, "sub");
	ASSERT_OK(air__snapshot_package(&s, NULL, &err), err);
	tar_archive(&s.archive, &l);
	ASSERT_EQ_STR(tar_names(&l), "sub/,sub/inner.txt");
	tar_free(&l);
	air__snapshot_dispose(&s);
}

AIR_TEST(git__missing_things_are_refused_locally)
{
	char sha[41];
	const char *dir = repo(sha);
	const char *inc[] = {"research", "nope", "configs/b.yaml"};
	air__snapshot s;
	air_error *err = NULL;

	ASSERT_EQ_INT(plan_in(dir, ".", "deadbeef", NULL, NULL, 0, &s, &err), AIR_ESNAPSHOT);
	ASSERT_CONTAINS(air_error_message(err), "deadbeef");
	ASSERT_EQ_STR(air_error_field(err), "code_source.git.commit");
	air_error_free(err);
	err = NULL;
	air__snapshot_dispose(&s);

	ASSERT_EQ_INT(plan_in(dir, ".", "--output=/tmp/x", NULL, NULL, 0, &s, &err), AIR_ESNAPSHOT);
	air_error_free(err);
	err = NULL;
	air__snapshot_dispose(&s);

	ASSERT_EQ_INT(plan_in(dir, ".", NULL, "nope", NULL, 0, &s, &err), AIR_ESNAPSHOT);
	ASSERT_CONTAINS(air_error_message(err), "nope");
	air_error_free(err);
	err = NULL;
	air__snapshot_dispose(&s);

	ASSERT_EQ_INT(plan_in(dir, ".", sha, NULL, inc, 3, &s, &err), AIR_ESNAPSHOT);
	ASSERT_CONTAINS(air_error_message(err), "nope, configs/b.yaml");
	air_error_free(err);
	air__snapshot_dispose(&s);
}

AIR_TEST(git__branch_resolves_and_refuses_a_dirty_tree)
{
	char sha[41], material[128];
	const char *dir = repo(sha);
	const char *inc[] = {"research/"};
	air__snapshot s;
	air_error *err = NULL;

	ASSERT_OK(plan_in(dir, ".", NULL, "main", NULL, 0, &s, &err), err);
	ASSERT_EQ_STR(s.sha, sha);
	snprintf(material, sizeof(material), "%s\n\nv1", sha); /* the branch's full SHA */
	expect_key(&s, material);
	air__snapshot_dispose(&s);

	sh("echo changed > '%s/train.py'", dir);
	ASSERT_EQ_INT(plan_in(dir, ".", NULL, "main", NULL, 0, &s, &err), AIR_ESNAPSHOT);
	ASSERT_CONTAINS(air_error_message(err), "uncommitted");
	ASSERT_CONTAINS(air_error_message(err), "main");
	ASSERT_CONTAINS(air_error_message(err), dir);
	air_error_free(err);
	err = NULL;
	air__snapshot_dispose(&s);

	/* the dirty check is scoped to the include paths */
	ASSERT_OK(plan_in(dir, ".", NULL, "main", inc, 1, &s, &err), err);
	air__snapshot_dispose(&s);
}

AIR_TEST(git__plain_tar_inside_a_repository)
{
	char sha[41];
	const char *dir = repo(sha);
	air__snapshot s;
	air_error *err = NULL;
	tar_list l;

	/* no git: block -> the working tree, uncommitted changes included */
	sh("echo changed > '%s/train.py'", dir);
	ASSERT_OK(plan_in(dir, ".", NULL, NULL, NULL, 0, &s, &err), err);
	ASSERT_EQ_INT(s.mode, AIR__SNAPSHOT_PLAIN);
	ASSERT_TRUE(s.in_git);
	ASSERT_OK(air__snapshot_package(&s, NULL, &err), err);
	tar_archive(&s.archive, &l);
	ASSERT_EQ_STR(tar_find(&l, "repo/train.py")->data, "changed\n");
	ASSERT_NULL(tar_find(&l, "repo/.git/"));
	tar_free(&l);
	air__snapshot_dispose(&s);
}

AIR_TEST(git__sidecars_of_a_dirty_pinned_snapshot)
{
	char sha[41];
	const char *dir = repo(sha);
	air__snapshot s;
	air__git_sidecars sc;
	air_error *err = NULL;
	json_t *st;
	json_error_t je;

	sh("git -C '%s' remote add origin https://user:s3cret@git.example.com/org/repo.git", dir);
	sh("echo changed > '%s/train.py'", dir);
	ASSERT_OK(plan_in(dir, ".", sha, NULL, NULL, 0, &s, &err), err);
	ASSERT_TRUE(air__git_sidecars_build(&s, "/Workspace/L", NULL, &sc));
	ASSERT_NOT_CONTAINS(sc.state_json, "s3cret");
	ASSERT_TRUE(strstr(sc.state_json, "\n  \"schema_version\": 1,") != NULL); /* 2-space indent */
	st = json_loads(sc.state_json, 0, &je);
	ASSERT_NOT_NULL(st);
	ASSERT_EQ_STR(json_string_value(json_object_get(st, "packaging_mode")), "git_archive");
	ASSERT_EQ_STR(json_string_value(json_object_get(st, "tip_commit")), sha);
	ASSERT_EQ_STR(json_string_value(json_object_get(st, "branch")), "main");
	ASSERT_EQ_STR(json_string_value(json_object_get(st, "repo_url")),
	              "https://git.example.com/org/repo.git");
	ASSERT_TRUE(json_is_null(json_object_get(st, "base_commit")));
	ASSERT_TRUE(json_is_true(json_object_get(st, "dirty")));
	ASSERT_EQ_STR(json_string_value(json_object_get(st, "diff_status")), "captured");
	ASSERT_EQ_STR(json_string_value(json_object_get(st, "diff_path")), "/Workspace/L/git_diff.patch");
	ASSERT_EQ_INT(strlen(json_string_value(json_object_get(st, "generated_at_utc"))),
	              strlen("2024-01-15T14:30:45.123456Z"));
	ASSERT_CONTAINS(sc.diff, "+changed");
	json_decref(st);
	air__git_sidecars_dispose(&sc);
	air__snapshot_dispose(&s);
}

AIR_TEST(git__sidecars_of_a_clean_detached_tree)
{
	char sha[41];
	const char *dir = repo(sha);
	air__snapshot s;
	air__git_sidecars sc;
	air_error *err = NULL;
	json_t *st;

	sh("git -C '%s' checkout -q --detach && git -C '%s' update-ref refs/remotes/origin/main HEAD", dir, dir);
	ASSERT_OK(plan_in(dir, ".", NULL, NULL, NULL, 0, &s, &err), err);
	ASSERT_TRUE(air__git_sidecars_build(&s, "/Workspace/L", NULL, &sc));
	ASSERT_NULL(sc.diff);
	st = json_loads(sc.state_json, 0, NULL);
	ASSERT_EQ_STR(json_string_value(json_object_get(st, "packaging_mode")), "plain_tar");
	ASSERT_EQ_STR(json_string_value(json_object_get(st, "tip_commit")), sha);
	ASSERT_EQ_STR(json_string_value(json_object_get(st, "base_commit")), sha);
	ASSERT_TRUE(json_is_null(json_object_get(st, "branch")));
	ASSERT_TRUE(json_is_null(json_object_get(st, "repo_url")));
	ASSERT_TRUE(json_is_false(json_object_get(st, "dirty")));
	ASSERT_EQ_STR(json_string_value(json_object_get(st, "diff_status")), "clean");
	ASSERT_TRUE(json_is_null(json_object_get(st, "diff_path")));
	json_decref(st);
	air__git_sidecars_dispose(&sc);
	air__snapshot_dispose(&s);
}

AIR_TEST(git__url_credentials_are_removed)
{
	static const char *const cases[][2] = {
		{"https://user:tok@github.com/o/r.git", "https://github.com/o/r.git"},
		{"https://tok@github.com/o/r.git", "https://github.com/o/r.git"},
		{"https://a@b:c@host/x", "https://host/x"},
		{"https://github.com/o/r.git", "https://github.com/o/r.git"},
		{"git@github.com:o/r.git", "git@github.com:o/r.git"},
		{"https://host/path@x", "https://host/path@x"},
	};

	for (size_t i = 0; i < AIR__ARRAY_SIZE(cases); i++) {
		char *u = air__git_url_without_credentials(cases[i][0]);
		ASSERT_EQ_STR(u, cases[i][1]);
		air__free(u);
	}
}
