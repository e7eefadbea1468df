#!/usr/bin/env python3
"""The release artefacts, made the way a release is made:

1. `meson dist --no-tests` turns the checkout (HEAD) into
   libair-VERSION.tar.xz: only tracked files, with debian/ and LICENSE.
2. `dpkg-buildpackage -us -uc -b` builds the Debian packages from the
   extracted tarball. The build runs the tarball's own tests (the suites of
   debian/rules: unit, config, headers, abi), so this is also the tarball's
   test run; the tarball holds exactly the checkout's tracked files, whose
   whole suite the other steps of tests/run-all.sh run. Without
   dpkg-buildpackage the tarball is built and tested with meson directly.
3. lintian reports no error (warnings are printed).
4. The .debs are unpacked (dpkg -x) into a scratch root: every file lands
   where the guides say, the programs run from there, a C program builds
   against libair-dev with pkg-config (shared, and static with
   `pkg-config --static`), the completion completes.

Slow (a full build): skipped unless AIR_PACKAGE_TESTS=1, which tests/run-all.sh
sets for its packaging step. Needs AIR_SOURCE_ROOT (a git checkout) and
AIR_BUILD_ROOT (a configured build of it).
"""
import glob
import os
import re
import shutil
import subprocess
import sys
import tarfile
import tempfile
import unittest

SRC = os.environ.get("AIR_SOURCE_ROOT", "")
BUILD = os.environ.get("AIR_BUILD_ROOT", "")
HERE = os.path.dirname(os.path.abspath(__file__))


def run(cmd, timeout=1800, **kw):
    p = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout, **kw)
    if p.returncode != 0:
        raise AssertionError("%s failed (%d):\n%s\n%s" % (" ".join(cmd), p.returncode,
                                                          p.stdout[-6000:], p.stderr[-6000:]))
    return p.stdout


def project_version():
    with open(os.path.join(SRC, "meson.build")) as f:
        return re.search(r"version:\s*'([^']+)'", f.read()).group(1)


def multiarch():
    return run(["dpkg-architecture", "-qDEB_HOST_MULTIARCH"]).strip()


class Package(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        if os.environ.get("AIR_PACKAGE_TESTS") != "1":
            raise unittest.SkipTest("set AIR_PACKAGE_TESTS=1 (a full build; tests/run-all.sh does)")
        if not os.path.isdir(os.path.join(SRC, ".git")) and \
                not os.path.isfile(os.path.join(SRC, ".git")):
            raise unittest.SkipTest("not a git checkout: meson dist needs one")
        cls.version = project_version()
        cls.tmp = tempfile.mkdtemp(prefix="air-package-")
        cls.make_dist()
        cls.debs = {}
        if shutil.which("dpkg-buildpackage") and shutil.which("dh"):
            cls.build_debs()
        else:
            cls.build_with_meson()

    @classmethod
    def tearDownClass(cls):
        if hasattr(cls, "tmp"):
            shutil.rmtree(cls.tmp, ignore_errors=True)

    # ---- building ----------------------------------------------------------
    @classmethod
    def make_dist(cls):
        dirty = subprocess.run(["git", "-C", SRC, "status", "--porcelain", "--untracked-files=no"],
                               capture_output=True, text=True).stdout.strip()
        if dirty:
            print("note: uncommitted changes are not in the tarball (it is HEAD)")
        out_dir = os.path.join(BUILD, "meson-dist")
        tarball = os.path.join(out_dir, "libair-%s.tar.xz" % cls.version)
        if os.path.exists(tarball):
            os.remove(tarball)
        run(["meson", "dist", "-C", BUILD, "--no-tests", "--allow-dirty", "--formats", "xztar"])
        cls.tarball = tarball
        with tarfile.open(tarball) as tf:
            cls.dist_names = tf.getnames()
            tf.extractall(cls.tmp)
        cls.tree = os.path.join(cls.tmp, "libair-%s" % cls.version)

    @classmethod
    def build_debs(cls):
        env = dict(os.environ, DEB_BUILD_OPTIONS="noddebs parallel=%d" % (os.cpu_count() or 2))
        for k in ("AIR_SOURCE_ROOT", "AIR_BUILD_ROOT", "AIR_CLI", "AIR_LIBRARY_PATH",
                  "AIR_PACKAGE_TESTS", "MESON_TEST_ITERATION", "LD_LIBRARY_PATH"):
            env.pop(k, None)
        p = subprocess.run(["dpkg-buildpackage", "-us", "-uc", "-b"], cwd=cls.tree, env=env,
                           capture_output=True, text=True, timeout=3600)
        cls.build_log = p.stdout + p.stderr
        if p.returncode != 0:
            raise AssertionError("dpkg-buildpackage failed (%d):\n%s" % (p.returncode,
                                                                         cls.build_log[-8000:]))
        for deb in glob.glob(os.path.join(cls.tmp, "*.deb")):
            name = os.path.basename(deb).split("_")[0]
            cls.debs[name] = deb
        cls.root = os.path.join(cls.tmp, "root")
        for name, deb in cls.debs.items():
            if not name.endswith("-dbgsym"):
                run(["dpkg", "-x", deb, cls.root])

    @classmethod
    def build_with_meson(cls):
        build = os.path.join(cls.tmp, "build")
        run(["meson", "setup", build, cls.tree, "-Dbindings=disabled", "-Dgo_tests=disabled"])
        run(["ninja", "-C", build])
        run(["meson", "test", "-C", build, "--suite", "unit", "--suite", "config",
             "--suite", "headers", "--suite", "abi"])

    def need_debs(self):
        if not self.debs:
            self.skipTest("dpkg-buildpackage/debhelper are not installed")

    def path(self, rel):
        return os.path.join(self.root, rel.lstrip("/"))

    # ---- the tarball -------------------------------------------------------
    def test_tarball_holds_the_release(self):
        top = "libair-%s/" % self.version
        names = {n[len(top):] for n in self.dist_names if n.startswith(top)}
        for f in ("meson.build", "meson_options.txt", "LICENSE", "README.md", "lib/libair.map",
                  "include/air/air.h", "debian/control", "debian/rules", "docs/man/air.1.scd",
                  "completion/air.bash", "docs/NEWS.md", "abi/libair.abi", "tests/meson.build"):
            self.assertIn(f, names)
        self.assertFalse([n for n in names if n.startswith(("build", ".git/"))], names)

    def test_tarball_tests_ran(self):
        if not self.debs:
            return  # build_with_meson raised already if they failed
        self.assertRegex(self.build_log, r"Ok:\s+[1-9]")
        self.assertRegex(self.build_log, r"Fail:\s+0")

    # ---- the packages ------------------------------------------------------
    def test_four_packages(self):
        self.need_debs()
        for name in ("libair1", "libair-dev", "air", "python3-air"):
            self.assertIn(name, self.debs)
            self.assertEqual(run(["dpkg-deb", "-f", self.debs[name], "Version"]).strip(),
                             self.version)

    def test_dependencies(self):
        self.need_debs()
        field = lambda pkg, f: run(["dpkg-deb", "-f", self.debs[pkg], f])
        self.assertIn("libair1 (= %s)" % self.version, field("air", "Depends"))
        self.assertIn("libair1 (= %s)" % self.version, field("libair-dev", "Depends"))
        self.assertIn("libair1 (>= %s)" % self.version, field("python3-air", "Depends"))
        self.assertIn("python3", field("python3-air", "Depends"))
        self.assertEqual(field("python3-air", "Architecture").strip(), "all")
        ctrl = os.path.join(self.tmp, "ctrl-libair1")
        run(["dpkg-deb", "-e", self.debs["libair1"], ctrl])
        with open(os.path.join(ctrl, "symbols")) as f:
            self.assertIn(" air_client_new@LIBAIR_1.0 1.0.0", f.read())
        with open(os.path.join(ctrl, "shlibs")) as f:
            self.assertIn("libair 1 libair1", f.read())

    def test_files_land_where_the_docs_say(self):
        self.need_debs()
        ma = multiarch()
        for rel in ("usr/lib/%s/libair.so.1" % ma, "usr/lib/%s/libair.so.%s" % (ma, self.version),
                    "usr/lib/%s/libair.so" % ma, "usr/lib/%s/libair.a" % ma,
                    "usr/lib/%s/pkgconfig/libair.pc" % ma,
                    "usr/lib/%s/cmake/libair/libairConfig.cmake" % ma,
                    "usr/include/air/air.h", "usr/include/air/version.h",
                    "usr/bin/air", "usr/share/man/man1/air.1.gz",
                    "usr/lib/%s/libair/air-local-supervisor" % ma,
                    "usr/lib/%s/libair/air-local-extract" % ma,
                    "usr/share/bash-completion/completions/air",
                    "usr/lib/python3/dist-packages/air/__init__.py",
                    "usr/lib/python3/dist-packages/air/_version.py",
                    # generated from the headers at build time
                    "usr/lib/python3/dist-packages/air/_signatures.py",
                    "usr/lib/python3/dist-packages/air/constants.py",
                    "usr/lib/python3/dist-packages/air/enums.py"):
            self.assertTrue(os.path.lexists(self.path(rel)), rel)
        # Every /usr/share/doc path the guides name is in a package
        # (Markdown documents may be compressed).
        for guide in ("c.md", "cli.md"):
            with open(os.path.join(SRC, "docs", guide)) as f:
                for rel in set(re.findall(r"/usr/share/doc/[\w./-]*\w", f.read())):
                    found = os.path.exists(self.path(rel)) or os.path.exists(self.path(rel + ".gz"))
                    self.assertTrue(found, "%s names %s" % (guide, rel))

    def test_python_package_version(self):
        self.need_debs()
        with open(self.path("usr/lib/python3/dist-packages/air/_version.py")) as f:
            self.assertIn('__version__ = "%s"' % self.version, f.read())
        # Debian's python3 imports the package and loads libair1's library.
        env = dict(self.env(), PYTHONPATH=self.path("usr/lib/python3/dist-packages"),
                   PYTHONDONTWRITEBYTECODE="1")
        env.pop("AIR_LIBRARY_PATH", None)
        out = run(["/usr/bin/python3", "-c",
                   "import air, air._version; print(air.__version__, air._version.__version__, "
                   "air.version(), air.__file__)"], env=env)
        self.assertEqual(out.split()[:3], [self.version] * 3)
        self.assertTrue(out.split()[3].startswith(self.root), out)

    def env(self):
        return dict(os.environ, LD_LIBRARY_PATH=self.path("usr/lib/%s" % multiarch()))

    def test_installed_air_runs(self):
        self.need_debs()
        air = self.path("usr/bin/air")
        out = run([air, "--version"], env=self.env())
        self.assertEqual(out.strip(), "air version %s (libair %s)" % (self.version, self.version))
        out = run([air, "run", "-h", "config.compute.pool_id"], env=self.env())
        self.assertIn("Type:     string", out)
        man = run(["man", "-l", self.path("usr/share/man/man1/air.1.gz")],
                  env=dict(os.environ, MANWIDTH="80")) if shutil.which("man") else "air run"
        self.assertIn("air run", man)
        # A local run, supervised by the packaged supervisor (the unpacked
        # root is not /usr, so its path is given), its code snapshot
        # extracted by the packaged extractor beside it.
        yaml = os.path.join(self.tmp, "local.yaml")
        code = os.path.join(self.tmp, "code")
        os.makedirs(code, exist_ok=True)
        with open(os.path.join(code, "hello.txt"), "w") as f:
            f.write("from the snapshot\n")
        with open(yaml, "w") as f:
            f.write("experiment_name: pkg\ncompute:\n  accelerator_type: GPU_1xA10\n"
                    "  num_accelerators: 1\ncode_source: {root_path: %s}\n"
                    "command: echo packaged $NODE_RANK/$NUM_NODES "
                    "$(cat \"$CODE_SOURCE_PATH/hello.txt\")\n" % code)
        sup = self.path("usr/lib/%s/libair/air-local-supervisor" % multiarch())
        env = dict(self.env(), AIR_LOCAL_SUPERVISOR=sup,
                   DATABRICKS_HOST="local://" + os.path.join(self.tmp, "local-state"))
        out = run([air, "run", "-f", yaml, "--watch"], env=env)
        self.assertIn("packaged 0/1 from the snapshot", out)

    def test_installed_completion(self):
        self.need_debs()
        script = ('source "$1"; COMP_WORDS=("$2" l); COMP_CWORD=1; _air; '
                  'printf "%s\\n" "${COMPREPLY[@]}"')
        p = subprocess.run(["bash", "--norc", "--noprofile", "-c", script, "x",
                            self.path("usr/share/bash-completion/completions/air"),
                            self.path("usr/bin/air")],
                           capture_output=True, text=True, env=self.env(), timeout=60)
        self.assertEqual(p.stdout.split(), ["list", "logs"], p.stderr)

    def pkg_config(self, *args):
        ma = multiarch()
        env = dict(os.environ, PKG_CONFIG_SYSROOT_DIR=self.root,
                   PKG_CONFIG_PATH=self.path("usr/lib/%s/pkgconfig" % ma))
        return run(["pkg-config", *args, "libair"], env=env).split()

    def test_dev_package_builds_programs(self):
        self.need_debs()
        consumer = os.path.join(SRC, "tests", "embed", "consumer.c")
        exe = os.path.join(self.tmp, "consumer")
        run(["cc", "-std=c99", "-Wall", "-Werror", consumer, "-o", exe]
            + self.pkg_config("--cflags", "--libs"))
        out = run([exe], env=self.env())
        self.assertIn("libair %s (header %s)" % (self.version, self.version), out)
        flags = [f.replace("-lair", "-l:libair.a") for f in self.pkg_config("--static", "--cflags",
                                                                            "--libs")]
        self.assertIn("-pthread", flags)
        exe_static = os.path.join(self.tmp, "consumer-static")
        run(["cc", "-std=c99", "-Wall", "-Werror", consumer, "-o", exe_static] + flags)
        self.assertNotIn("libair.so", run(["readelf", "-d", exe_static]))
        self.assertIn("libair %s" % self.version, run([exe_static]))

    def test_lintian_reports_no_error(self):
        self.need_debs()
        if not shutil.which("lintian"):
            self.skipTest("lintian is not installed")
        changes = glob.glob(os.path.join(self.tmp, "*.changes"))
        p = subprocess.run(["lintian", "--allow-root", "--tag-display-limit", "0", *changes],
                           capture_output=True, text=True, timeout=900)
        tags = [l for l in p.stdout.splitlines() if re.match(r"^[EWX]: ", l)]
        if tags:
            print("lintian:\n" + "\n".join(tags))
        self.assertEqual([t for t in tags if t.startswith("E: ")], [])
        self.assertIn(p.returncode, (0, 2), p.stderr)


if __name__ == "__main__":
    if os.environ.get("AIR_PACKAGE_TESTS") != "1":
        print("1..0 # SKIP set AIR_PACKAGE_TESTS=1 (a full build; tests/run-all.sh does)")
        sys.exit(77)
    unittest.main(verbosity=2)
