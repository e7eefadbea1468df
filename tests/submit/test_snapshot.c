/* test_snapshot.c: root resolution, the .gitignore translation and plain-tar
 * packaging with its safety rules (docs/submit.md#code-snapshot). */
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "submit/snapshot.h"
#include "submit_test.h"
#include "test.h"

static const char *fake_env(const char *name, void *ud)
{
	(void)ud;
	if (!strcmp(name, "PROJ"))
		return "/srv/proj";
	if (!strcmp(name, "SUB"))
		return "code";
	return NULL;
}

static void assert_root(const char *root_path, const char *base, const char *want)
{
	char *got = air__snapshot_resolve_root(root_path, base, "/home/me", fake_env, NULL);

	if (!got || strcmp(got, want) != 0)
		FAIL("resolve(%s, %s) = %s, want %s", root_path, base ? base : "(null)", got ? got : "(null)", want);
	air__free(got);
}

AIR_TEST(snapshot__root_resolution)
{
	char cwd[4096], want[4200];

	assert_root(".", "/work/exp", "/work/exp");
	assert_root("./src/", "/work/exp", "/work/exp/src");
	assert_root("../shared", "/work/exp", "/work/shared");
	assert_root("/abs/path", "/work/exp", "/abs/path");
	assert_root("$PROJ/train", "/work/exp", "/srv/proj/train");
	assert_root("${PROJ}/${SUB}", "/work/exp", "/srv/proj/code");
	assert_root("$UNSET_VAR/x", "/work/exp", "/x"); /* unset expands to "" */
	assert_root("${UNSET_VAR}x", "/work/exp", "/work/exp/x");
	assert_root("~", "/work/exp", "/home/me");
	assert_root("~/repo", "/work/exp", "/home/me/repo");
	assert_root("project_root/src", "/work/exp", "/work/exp/src");
	assert_root("a$/b", "/w", "/w/a$/b");
	ASSERT_NOT_NULL(getcwd(cwd, sizeof(cwd)));
	snprintf(want, sizeof(want), "%s/rel/src", cwd);
	assert_root("src", "rel", want);
}

AIR_TEST(snapshot__upload_dir)
{
	char *d = air__snapshot_upload_dir(NULL, "/Workspace/Users/tester@databricks.com");

	ASSERT_EQ_STR(d, "/Workspace/Users/tester@databricks.com/.air/repo_snapshots/.internal");
	air__free(d);
	d = air__snapshot_upload_dir("/Volumes/main/default/code", "/ignored");
	ASSERT_EQ_STR(d, "/Volumes/main/default/code/.internal");
	air__free(d);
	/* DATABRICKS_INTERNAL_USER_WORKSPACE_DIR outside /Workspace gets the prefix */
	d = air__snapshot_upload_dir(NULL, "/Users/me/");
	ASSERT_EQ_STR(d, "/Workspace/Users/me/.air/repo_snapshots/.internal");
	air__free(d);
}

static bool excluded(const air__ignore *ig, const char *rel)
{
	return air__ignore_excludes(ig, "src", rel);
}

AIR_TEST(snapshot__gitignore_translation)
{
	static const char text[] = "# comment\n\n  data/  \n*.log\n!keep.log\n**/cache\nbuild/**\n"
	                           "/docs/out\nnotes/*.md\na/**/b\n";
	air__ignore ig;

	ASSERT_EQ_INT(air__ignore_parse(text, strlen(text), "src", &ig), AIR_OK);
	ASSERT_EQ_INT(ig.n_component, 4); /* data, *.log, cache, build */
	ASSERT_EQ_INT(ig.n_anchored, 2);  /* src/docs/out and src/notes/<*.md> */
	ASSERT_EQ_STR(ig.anchored[0], "src/docs/out");
	ASSERT_TRUE(excluded(&ig, "data"));
	ASSERT_TRUE(excluded(&ig, "deep/data"));
	ASSERT_TRUE(excluded(&ig, "x.log"));
	ASSERT_TRUE(excluded(&ig, "keep.log")); /* negations are skipped */
	ASSERT_TRUE(excluded(&ig, "a/cache"));
	ASSERT_TRUE(excluded(&ig, "build"));
	ASSERT_TRUE(excluded(&ig, "docs/out"));
	ASSERT_FALSE(excluded(&ig, "other/docs/out"));
	ASSERT_TRUE(excluded(&ig, "notes/x.md"));
	ASSERT_TRUE(excluded(&ig, "notes/deeper/x.md")); /* '*' crosses '/' like Python's fnmatch */
	ASSERT_FALSE(excluded(&ig, "a/x/b"));            /* a middle "**" pattern is dropped */
	ASSERT_FALSE(excluded(&ig, "train.py"));
	ASSERT_FALSE(excluded(&ig, "database"));
	/* always excluded */
	ASSERT_TRUE(excluded(&ig, ".git"));
	ASSERT_TRUE(excluded(&ig, "sub/.git"));
	ASSERT_TRUE(excluded(&ig, "._train.py"));
	ASSERT_FALSE(excluded(&ig, ".github"));
	air__ignore_dispose(&ig);
}

static void put(const char *dir, const char *rel, const char *data)
{
	char path[8192];

	snprintf(path, sizeof(path), "%s/%s", dir, rel);
	air_test_write_file(path, data, strlen(data));
}

/* The S20 tree: src/ with train.py, data/big.bin, .gitignore, x.log. */
static const char *s20_tree(void)
{
	static char root[4096];
	const char *tmp = air_test_tmpdir();

	snprintf(root, sizeof(root), "%s/src", tmp);
	put(root, "train.py", "print('hi')\n");
	put(root, "data/big.bin", "0123456789");
	put(root, ".gitignore", "data/\n*.log\n");
	put(root, "x.log", "log");
	put(root, "sub/keep.txt", "keep");
	put(root, "sub/a.log", "log");
	put(root, ".git/config", "[core]");
	put(root, "._train.py", "appledouble");
	sh("chmod 755 '%s/train.py'", root);
	return root;
}

static int package(const char *root, char *const *include, size_t n, air__buf *out, air_error **err)
{
	air__archive a = AIR__ARCHIVE_INIT;
	air__ignore ig;
	char *text = NULL, path[4096];
	size_t len = 0;
	int rc;

	snprintf(path, sizeof(path), "%s/.gitignore", root);
	text = air_test_read_file(path, &len);
	ASSERT_EQ_INT(air__ignore_parse(text ? text : "", len, "src", &ig), AIR_OK);
	free(text);
	air__buf_init(out);
	rc = air__snapshot_tar_plain(root, "src", &ig, include, n, NULL, &a, err);
	air__ignore_dispose(&ig);
	if (rc == AIR_OK) {
		/* The archive is a file: read it back whole, and check its size. */
		char chunk[65536];
		ssize_t got;
		struct stat st;

		ASSERT_EQ_INT(fstat(a.fd, &st), 0);
		ASSERT_EQ_INT(st.st_size, a.size);
		while ((got = air__archive_read_at(&a, (int64_t)out->len, chunk, sizeof(chunk))) > 0)
			air__buf_put(out, chunk, (size_t)got);
		ASSERT_EQ_INT(out->len, a.size);
		ASSERT_EQ_INT(strlen(a.sha256), 64);
	}
	air__archive_dispose(&a);
	return rc;
}

AIR_TEST(snapshot__plain_tar_honours_rules)
{
	const char *root = s20_tree();
	air__buf out;
	air_error *err = NULL;
	tar_list l;

	sh("ln -s train.py '%s/link_in' && ln -s ../train.py '%s/sub/up_and_back' && "
	   "ln -s dangling '%s/sub/nowhere' && mkfifo '%s/pipe'", root, root, root, root);
	ASSERT_OK(package(root, NULL, 0, &out, &err), err);
	tar_read(out.ptr, out.len, &l);
	ASSERT_EQ_STR(tar_names(&l), "src/,src/.gitignore,src/link_in,src/sub/,src/sub/keep.txt,"
	                             "src/sub/nowhere,src/sub/up_and_back,src/train.py");
	ASSERT_EQ_STR(tar_find(&l, "src/train.py")->data, "print('hi')\n");
	ASSERT_EQ_INT(tar_find(&l, "src/train.py")->mode, 0755);
	ASSERT_EQ_INT(tar_find(&l, "src/link_in")->type, 'l');
	ASSERT_EQ_STR(tar_find(&l, "src/link_in")->data, "train.py");
	tar_free(&l);
	air__buf_dispose(&out);
}

AIR_TEST(snapshot__plain_tar_of_empty_directories)
{
	const char *root = air_test_tmpdir();
	air__buf out;
	air_error *err = NULL;
	tar_list l;

	ASSERT_OK(package(root, NULL, 0, &out, &err), err);
	tar_read(out.ptr, out.len, &l);
	ASSERT_EQ_STR(tar_names(&l), "src/");
	tar_free(&l);
	air__buf_dispose(&out);
	sh("mkdir -p '%s/a/b'", root);
	ASSERT_OK(package(root, NULL, 0, &out, &err), err);
	tar_read(out.ptr, out.len, &l);
	ASSERT_EQ_STR(tar_names(&l), "src/,src/a/,src/a/b/");
	tar_free(&l);
	air__buf_dispose(&out);
}

AIR_TEST(snapshot__plain_tar_include_paths)
{
	const char *root = s20_tree();
	char *inc[] = {"sub", "train.py"}, *nested[] = {"sub/keep.txt"};
	air__buf out;
	air_error *err = NULL;
	tar_list l;

	ASSERT_OK(package(root, inc, 2, &out, &err), err);
	tar_read(out.ptr, out.len, &l);
	ASSERT_EQ_STR(tar_names(&l), "src/,src/sub/,src/sub/keep.txt,src/train.py");
	tar_free(&l);
	air__buf_dispose(&out);
	ASSERT_OK(package(root, nested, 1, &out, &err), err);
	tar_read(out.ptr, out.len, &l);
	ASSERT_EQ_STR(tar_names(&l), "src/,src/sub/,src/sub/keep.txt");
	tar_free(&l);
	air__buf_dispose(&out);
}

static void assert_refused(const char *root, const char *needle)
{
	air__buf out;
	air_error *err = NULL;

	ASSERT_EQ_INT(package(root, NULL, 0, &out, &err), AIR_ESNAPSHOT);
	ASSERT_CONTAINS(air_error_message(err), needle);
	ASSERT_NULL(out.ptr);
	air_error_free(err);
}

AIR_TEST(snapshot__symlink_escaping_root_is_refused)
{
	const char *root = s20_tree();

	sh("ln -s ../../outside '%s/sub/escape'", root);
	assert_refused(root, "sub/escape");
	sh("rm '%s/sub/escape' && ln -s /etc/passwd '%s/abs'", root, root);
	assert_refused(root, "abs");
}

AIR_TEST(snapshot__symlink_escaping_through_another_link_is_refused)
{
	const char *root = s20_tree();
	char outside[4200];

	/* "esc" (ignored) points outside; "ok" looks inside but resolves through it. */
	snprintf(outside, sizeof(outside), "%s/../outside", root);
	put(outside, "x", "secret");
	sh("ln -s '%s' '%s/data/esc' && ln -s data/esc/x '%s/ok'", outside, root, root);
	assert_refused(root, "ok");
}

AIR_TEST(snapshot__unreadable_file_is_refused)
{
	const char *root = s20_tree();
	pid_t pid;
	int status = 0;

	sh("chmod 000 '%s/train.py'", root);
	if (!running_as_root()) {
		assert_refused(root, "train.py");
		return;
	}
	/* root reads anything: package as an unprivileged user in a child. */
	sh("chmod -R a+rX '%s/..' && chmod 755 '%s/../..' && chmod 000 '%s/train.py'", root, root, root);
	/* Its own temporary folder: $TMPDIR may be root's alone. */
	sh("mkdir -m 1777 '%s/../tmp'", root);
	pid = fork();
	if (pid == 0) {
		char tmp[4200];
		air__buf out;
		air_error *err = NULL;
		int rc;
		if (setgid(65534) != 0 || setuid(65534) != 0)
			_exit(77);
		snprintf(tmp, sizeof(tmp), "%s/../tmp", root);
		setenv("TMPDIR", tmp, 1);
		rc = package(root, NULL, 0, &out, &err);
		_exit(rc == AIR_ESNAPSHOT && strstr(air_error_message(err), "train.py") ? 0 : 1);
	}
	ASSERT_TRUE(waitpid(pid, &status, 0) == pid);
	if (WIFEXITED(status) && WEXITSTATUS(status) == 77)
		air_test_skip("cannot drop privileges to test an unreadable file");
	ASSERT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0);
}

static int plan(const char *root_path, const char *base, const char *commit, const char *branch,
                const char *const *inc, size_t n, air__snapshot *s, air_error **err)
{
	air__snapshot_spec spec;

	memset(&spec, 0, sizeof(spec));
	spec.root_path = root_path;
	spec.base_dir = base;
	spec.git_commit = commit;
	spec.git_branch = branch;
	spec.include_paths = inc;
	spec.n_include_paths = n;
	return air__snapshot_plan(&spec, s, err);
}

AIR_TEST(snapshot__plan_plain_names_archive_by_utc_time)
{
	const char *root = s20_tree();
	air__snapshot s;
	air_error *err = NULL;
	char base[4096];

	snprintf(base, sizeof(base), "%s/..", root);
	ASSERT_OK(plan("./src", base, NULL, NULL, NULL, 0, &s, &err), err);
	ASSERT_EQ_INT(s.mode, AIR__SNAPSHOT_PLAIN);
	ASSERT_EQ_STR(s.dirname, "src");
	ASSERT_FALSE(s.in_git);
	ASSERT_EQ_INT(strlen(s.archive_name), strlen("src_YYYYMMDD_HHMMSS.tar.gz"));
	ASSERT_TRUE(air__starts_with(s.archive_name, "src_20"));
	ASSERT_TRUE(air__ends_with(s.archive_name, ".tar.gz"));
	ASSERT_EQ_INT(s.archive_name[12], '_');
	ASSERT_OK(air__snapshot_package(&s, NULL, &err), err);
	ASSERT_TRUE(s.archive.size > 0);
	air__snapshot_dispose(&s);
}

AIR_TEST(snapshot__plan_local_errors)
{
	const char *root = s20_tree();
	const char *abs_inc[] = {"/etc"}, *up_inc[] = {"../x"}, *missing[] = {"sub", "nope", "gone/x"};
	air__snapshot s;
	air_error *err = NULL;
	char base[4096];

	snprintf(base, sizeof(base), "%s/..", root);
	ASSERT_EQ_INT(plan("./nothere", base, NULL, NULL, NULL, 0, &s, &err), AIR_ESNAPSHOT);
	ASSERT_CONTAINS(air_error_message(err), "nothere");
	ASSERT_EQ_STR(air_error_field(err), "code_source.root_path");
	air_error_free(err);
	err = NULL;
	air__snapshot_dispose(&s);

	ASSERT_EQ_INT(plan("./src/train.py", base, NULL, NULL, NULL, 0, &s, &err), AIR_ESNAPSHOT);
	ASSERT_CONTAINS(air_error_message(err), "not a directory");
	air_error_free(err);
	err = NULL;
	air__snapshot_dispose(&s);

	ASSERT_EQ_INT(plan("./src", base, NULL, NULL, abs_inc, 1, &s, &err), AIR_ESNAPSHOT);
	ASSERT_CONTAINS(air_error_message(err), "/etc");
	air_error_free(err);
	err = NULL;
	air__snapshot_dispose(&s);

	ASSERT_EQ_INT(plan("./src", base, NULL, NULL, up_inc, 1, &s, &err), AIR_ESNAPSHOT);
	ASSERT_CONTAINS(air_error_message(err), "../x");
	air_error_free(err);
	err = NULL;
	air__snapshot_dispose(&s);

	ASSERT_EQ_INT(plan("./src", base, NULL, NULL, missing, 3, &s, &err), AIR_ESNAPSHOT);
	ASSERT_CONTAINS(air_error_message(err), "nope, gone/x");
	air_error_free(err);
	err = NULL;
	air__snapshot_dispose(&s);

	/* git: on a directory outside any repository */
	ASSERT_EQ_INT(plan("./src", base, "abc", NULL, NULL, 0, &s, &err), AIR_ESNAPSHOT);
	ASSERT_CONTAINS(air_error_message(err), "not inside a git work tree");
	air_error_free(err);
	air__snapshot_dispose(&s);
}

AIR_TEST(snapshot__a_big_tree_streams_to_a_file_not_to_memory)
{
	char root[4096];
	air__snapshot s;
	air_error *err = NULL;
	struct stat st;
	long before, after;

	if (under_valgrind())
		air_test_skip("resident size under valgrind says nothing about the program");
	/* 64 MiB that gzip cannot shrink: an archive held in memory would add
	 * at least that much to the peak resident size. */
	snprintf(root, sizeof(root), "%s/big/src", air_test_tmpdir());
	big_tree(root, 64, 1);
	ASSERT_OK(plan(root, NULL, NULL, NULL, NULL, 0, &s, &err), err);
	before = peak_rss_kib();
	ASSERT_OK(air__snapshot_package(&s, NULL, &err), err);
	after = peak_rss_kib();
	air_test_note("archive %lld bytes; peak resident size %ld KiB -> %ld KiB", (long long)s.archive.size,
	              before, after);
	ASSERT_TRUE(s.archive.size > 64 << 20);
	ASSERT_EQ_INT(fstat(s.archive.fd, &st), 0);
	ASSERT_EQ_INT(st.st_size, s.archive.size);
	ASSERT_TRUE(after - before < 24 * 1024);
	air__snapshot_dispose(&s);
}
