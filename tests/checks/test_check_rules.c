/* test_check_rules.c: the pure rules of the checks — which pip requirements
 * pin their version, and which commands rendezvous across nodes. */
#include "checks/checks.h"
#include "test.h"

static void pinned(const char *req, bool want, const char *name)
{
	char *got = NULL;

	if (air__requirement_pinned(req, &got) != want)
		FAIL("%s: pinned should be %d", req, (int)want);
	if (name)
		ASSERT_EQ_STR(got, name);
	else
		ASSERT_NULL(got);
	air__free(got);
}

AIR_TEST(rules__pinned_requirements)
{
	pinned("torch==2.3.0", true, "torch");
	pinned("  torch == 2.3.0 ", true, "torch");
	pinned("numpy===1.26.4", true, "numpy");
	pinned("requests[socks]==2.31.0", true, "requests");
	pinned("torch==2.3.0; python_version >= '3.10'", true, "torch");
	pinned("lib --hash=sha256:0a1b2c", true, "lib");
	pinned("pkg @ https://example.com/pkg.tar.gz#sha256=00ff", true, "pkg");
	pinned("git+https://github.com/o/r.git@0123456789abcdef0123456789abcdef01234567", true,
	       "git+https://github.com/o/r.git@0123456789abcdef0123456789abcdef01234567");
	pinned("/Volumes/c/s/v/pkg-1.0-py3-none-any.whl", true,
	       "/Volumes/c/s/v/pkg-1.0-py3-none-any.whl");
	pinned("-e git+https://github.com/o/r.git@0123456789abcdef0123456789abcdef01234567#egg=r",
	       true, "git+https://github.com/o/r.git@0123456789abcdef0123456789abcdef01234567#egg=r");
}

AIR_TEST(rules__unpinned_requirements)
{
	pinned("numpy", false, "numpy");
	pinned("pandas>=2", false, "pandas");
	pinned("pandas>=2,<3", false, "pandas");
	pinned("torch==2.*", false, "torch");
	pinned("torch==2.3,!=2.3.1", false, "torch");
	pinned("torch~=2.3", false, "torch");
	pinned("pkg @ https://example.com/pkg.tar.gz", false, "pkg");
	pinned("git+https://github.com/o/r.git@main", false, "git+https://github.com/o/r.git@main");
	pinned("-e .", false, ".");
	/* options are not packages */
	pinned("--extra-index-url https://pypi.example.com/simple", false, NULL);
	pinned("-r requirements.txt", false, NULL);
	pinned("", false, NULL);
}

AIR_TEST(rules__rendezvous)
{
	const char *found = NULL;

	ASSERT_TRUE(air__command_rendezvous("python -m torch.distributed.run --nnodes 2 t.py", &found));
	ASSERT_EQ_STR(found, "--nnodes");
	ASSERT_TRUE(air__command_rendezvous("python t.py --addr $MASTER_ADDR", &found));
	ASSERT_EQ_STR(found, "MASTER_ADDR");
	ASSERT_TRUE(air__command_rendezvous("deepspeed --num_nodes=2 t.py", NULL));
	ASSERT_TRUE(air__command_rendezvous("accelerate launch --num_machines 2 t.py", NULL));
	ASSERT_TRUE(air__command_rendezvous("echo ${NODE_RANK}", NULL));
	ASSERT_FALSE(air__command_rendezvous("python train.py", &found));
	ASSERT_FALSE(air__command_rendezvous(NULL, NULL));
}
