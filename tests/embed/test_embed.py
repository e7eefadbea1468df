#!/usr/bin/env python3
"""libair as other projects take it:

* installed (`meson install` into a scratch root): a C program builds with
  pkg-config's flags, and a CMake project with find_package(libair) and the
  libair::libair target; both run and see the version they were built with;
  with a static libair (-Ddefault_library=both or static) a program links
  libair.a with `pkg-config --static` flags alone; the CLI's man page and
  completion and the Python package are installed too;
* as a meson subproject: only the library is built (no CLI, no tests, no
  Python needed), and the host project links it through dependency();
* from the build tree, not installed: a program built with the uninstalled
  .pc alone runs without LD_LIBRARY_PATH and keeps its own "config.h"; a
  CMake project finds the tree's libairConfig.cmake (-Dlibair_DIR);
* installed under a prefix the loader does not search: the installed air
  starts (its run path) and runs a workload on the local workspace with the
  installed supervisor.

Needs AIR_BUILD_ROOT (a configured build) and AIR_SOURCE_ROOT.
"""
import glob
import os
import re
import shutil
import subprocess
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
SRC = os.environ.get("AIR_SOURCE_ROOT") or os.path.dirname(os.path.dirname(HERE))
BUILD = os.environ.get("AIR_BUILD_ROOT")
VERSION = None


def run(cmd, **kw):
    p = subprocess.run(cmd, capture_output=True, text=True, **kw)
    if p.returncode != 0:
        raise AssertionError("%s failed (%d):\n%s\n%s" % (" ".join(cmd), p.returncode,
                                                          p.stdout[-3000:], p.stderr[-3000:]))
    return p.stdout


def project_version():
    for line in open(os.path.join(SRC, "meson.build")):
        line = line.strip()
        if line.startswith("version:"):
            return line.split("'")[1]
    raise AssertionError("no version in meson.build")


class ScratchCase(unittest.TestCase):
    """Tests of the configured build (AIR_BUILD_ROOT) with a scratch directory."""

    @classmethod
    def setUpClass(cls):
        if not BUILD:
            raise unittest.SkipTest("AIR_BUILD_ROOT is not set")
        cls.tmp = tempfile.mkdtemp(prefix="air-embed-")

    @classmethod
    def tearDownClass(cls):
        shutil.rmtree(cls.tmp, ignore_errors=True)


class Installed(ScratchCase):
    """What `meson install` puts in a prefix is enough to build against."""

    @classmethod
    def setUpClass(cls):
        super().setUpClass()
        cls.root = os.path.join(cls.tmp, "root")
        run(["meson", "install", "-C", BUILD, "--no-rebuild", "--quiet", "--destdir", cls.root])
        pcs = glob.glob(os.path.join(cls.root, "**", "pkgconfig", "libair.pc"), recursive=True)
        if len(pcs) != 1:
            raise AssertionError("libair.pc installed %d times" % len(pcs))
        cls.pcdir = os.path.dirname(pcs[0])
        cls.libdir = os.path.dirname(cls.pcdir)
        cls.prefix = os.path.normpath(os.path.join(cls.root, "usr", "local"))
        if not os.path.isdir(cls.prefix):
            cls.prefix = os.path.commonpath([cls.libdir, glob.glob(
                os.path.join(cls.root, "**", "include", "air"), recursive=True)[0]])

    def check_consumer(self, exe):
        env = dict(os.environ, LD_LIBRARY_PATH=self.libdir)
        out = run([exe], env=env)
        self.assertIn("libair %s (header %s): embed string" % (VERSION, VERSION), out)

    def test_installed_files(self):
        libs = sorted(os.path.basename(p) for p in glob.glob(os.path.join(self.libdir, "libair*")))
        self.assertIn("libair.so.1", libs)
        self.assertIn("libair.so.%s" % VERSION, libs)
        for h in ("air.h", "client.h", "options.h", "version.h", "logs.h", "run.h"):
            self.assertTrue(glob.glob(os.path.join(self.root, "**", "include", "air", h),
                                      recursive=True), h)
        # The supervisor of local runs, which the library starts from there.
        sup = glob.glob(os.path.join(self.root, "**", "libexec", "libair", "air-local-supervisor"),
                        recursive=True)
        self.assertEqual(len(sup), 1, sup)
        self.assertTrue(os.access(sup[0], os.X_OK))
        # ... and the program it extracts code snapshots with, beside it.
        self.assertTrue(os.access(os.path.join(os.path.dirname(sup[0]), "air-local-extract"),
                                  os.X_OK))
        cm = os.path.join(self.libdir, "cmake", "libair")
        self.assertTrue(os.path.exists(os.path.join(cm, "libairConfig.cmake")))
        self.assertTrue(os.path.exists(os.path.join(cm, "libairConfigVersion.cmake")))

    def test_installed_front_ends(self):
        if not glob.glob(os.path.join(self.root, "**", "bin", "air"), recursive=True):
            self.skipTest("the CLI is not installed (-Dcli)")
        share = glob.glob(os.path.join(self.root, "**", "share"), recursive=True)
        found = lambda rel: any(os.path.exists(os.path.join(d, rel)) for d in share)
        self.assertTrue(found("bash-completion/completions/air"))
        if os.path.exists(os.path.join(BUILD, "docs", "man", "air.1")):
            self.assertTrue(found("man/man1/air.1"))
        if os.path.exists(os.path.join(BUILD, "bindings", "_version.py")):
            versions = glob.glob(os.path.join(self.root, "**", "air", "_version.py"),
                                 recursive=True)
            self.assertEqual(len(versions), 1, versions)
            with open(versions[0]) as f:
                self.assertIn('__version__ = "%s"' % VERSION, f.read())
            pkg = os.path.dirname(versions[0])
            self.assertTrue(os.path.exists(os.path.join(pkg, "__init__.py")))

    def pkg_config(self, *args):
        # The .pc names the final prefix; the sysroot maps it into the scratch root.
        env = dict(os.environ, PKG_CONFIG_PATH=self.pcdir, PKG_CONFIG_SYSROOT_DIR=self.root)
        return run(["pkg-config", *args, "libair"], env=env).split()

    def test_pkg_config_private_deps(self):
        self.assertEqual([f for f in self.pkg_config("--libs") if f.startswith("-l")], ["-lair"])
        flags = self.pkg_config("--static", "--libs")
        for lib in ("-lair", "-pthread", "-lcurl", "-ljansson", "-lfyaml", "-larchive", "-lz"):
            self.assertIn(lib, flags)

    def test_static_pkg_config_consumer(self):
        if not os.path.exists(os.path.join(self.libdir, "libair.a")):
            self.skipTest("no libair.a: built with -Ddefault_library=shared")
        # -l:libair.a: the archive even where libair.so is installed beside it.
        flags = [f.replace("-lair", "-l:libair.a")
                 for f in self.pkg_config("--static", "--cflags", "--libs")]
        exe = os.path.join(self.tmp, "consumer-static")
        p = subprocess.run(["cc", "-std=c99", "-Wall", "-Werror",
                            os.path.join(HERE, "consumer.c"), "-o", exe] + flags,
                           capture_output=True, text=True)
        missing = re.findall(r"cannot find -l(\S+)", p.stderr)
        if p.returncode != 0 and missing and "air" not in missing:
            self.skipTest("development files of libcurl's or libarchive's own dependencies "
                          "are not installed: %s" % " ".join(sorted(set(missing))))
        self.assertEqual(p.returncode, 0, p.stderr[-3000:])
        needed = run(["readelf", "-d", exe])
        self.assertNotIn("libair.so", needed)
        out = run([exe])
        self.assertIn("libair %s (header %s): embed string" % (VERSION, VERSION), out)

    def test_pkg_config_consumer(self):
        # The .pc names the final prefix; the sysroot maps it into the scratch root.
        env = dict(os.environ, PKG_CONFIG_PATH=self.pcdir, PKG_CONFIG_SYSROOT_DIR=self.root)
        flags = run(["pkg-config", "--cflags", "--libs", "libair"], env=env).split()
        self.assertIn("-lair", flags)
        exe = os.path.join(self.tmp, "consumer-pc")
        run(["cc", "-std=c99", "-Wall", "-Werror", os.path.join(HERE, "consumer.c"), "-o", exe]
            + flags)
        self.check_consumer(exe)

    def test_cmake_consumer(self):
        if not shutil.which("cmake"):
            self.skipTest("cmake is not installed")
        build = os.path.join(self.tmp, "cmake-build")
        src = os.path.join(self.tmp, "cmake-src")
        os.makedirs(src)
        shutil.copy(os.path.join(HERE, "CMakeLists.txt"), src)
        shutil.copy(os.path.join(HERE, "consumer.c"), src)
        run(["cmake", "-S", src, "-B", build, "-DCMAKE_PREFIX_PATH=" + self.prefix])
        run(["cmake", "--build", build])
        self.check_consumer(os.path.join(build, "consumer"))

    def test_cmake_refuses_another_major_version(self):
        if not shutil.which("cmake"):
            self.skipTest("cmake is not installed")
        src = os.path.join(self.tmp, "cmake-src-2")
        os.makedirs(src)
        text = open(os.path.join(HERE, "CMakeLists.txt")).read()
        open(os.path.join(src, "CMakeLists.txt"), "w").write(
            text.replace("find_package(libair 1.0 REQUIRED)", "find_package(libair 2.0 REQUIRED)"))
        shutil.copy(os.path.join(HERE, "consumer.c"), src)
        p = subprocess.run(["cmake", "-S", src, "-B", os.path.join(self.tmp, "cmake-build-2"),
                            "-DCMAKE_PREFIX_PATH=" + self.prefix], capture_output=True, text=True)
        self.assertNotEqual(p.returncode, 0)
        self.assertIn("libair", p.stdout + p.stderr)


def clean_env(**extra):
    """The environment without a library path: what finds libair must be the
    program's own run path."""
    env = {k: v for k, v in os.environ.items()
           if k not in ("LD_LIBRARY_PATH", "PKG_CONFIG_PATH", "AIR_LOCAL_SUPERVISOR")}
    env.update(extra)
    return env


class BuildTree(ScratchCase):
    """Programs built against the build tree, as docs/c.md and README.md say."""

    def test_uninstalled_pc_exposes_include_only(self):
        # A program with a config.h of its own in another directory, reached
        # through -I after libair's flags.
        prog = os.path.join(self.tmp, "src", "prog.c")
        os.makedirs(os.path.dirname(prog))
        os.makedirs(os.path.join(self.tmp, "gen"))
        with open(os.path.join(self.tmp, "gen", "config.h"), "w") as f:
            f.write("#define MY_OWN_CONFIG 1\n")
        with open(prog, "w") as f:
            f.write('#include <stdio.h>\n#include <air/air.h>\n#include "config.h"\n'
                    "int main(void) { printf(\"%d %s\\n\", MY_OWN_CONFIG, air_version_string());"
                    " return 0; }\n")
        env = clean_env(PKG_CONFIG_PATH=os.path.join(BUILD, "meson-uninstalled"))
        # (-I flags of the dependencies may follow: libcurl's, say)
        ours = [f for f in run(["pkg-config", "--cflags", "libair"], env=env).split()
                if f.startswith(("-I" + os.path.realpath(BUILD), "-I" + os.path.realpath(SRC)))]
        self.assertEqual(sorted(ours), sorted(["-I" + os.path.realpath(os.path.join(BUILD, "include")),
                                               "-I" + os.path.realpath(os.path.join(SRC, "include"))]))
        exe = os.path.join(self.tmp, "prog")
        run(["cc", "-std=c99", "-Wall", "-Werror", prog, "-o", exe]
            + run(["pkg-config", "--cflags", "--libs", "libair"], env=env).split()
            + ["-I", os.path.join(self.tmp, "gen")])
        self.assertEqual(run([exe], env=clean_env()), "1 %s\n" % VERSION)

    def test_cmake_package_of_the_build_tree(self):
        if not shutil.which("cmake"):
            self.skipTest("cmake is not installed")
        src = os.path.join(self.tmp, "cmake-src")
        os.makedirs(src)
        shutil.copy(os.path.join(HERE, "CMakeLists.txt"), src)
        shutil.copy(os.path.join(HERE, "consumer.c"), src)
        build = os.path.join(self.tmp, "cmake-build")
        run(["cmake", "-S", src, "-B", build, "-Dlibair_DIR=" + os.path.join(BUILD, "lib")],
            env=clean_env())
        run(["cmake", "--build", build], env=clean_env())
        out = run([os.path.join(build, "consumer")], env=clean_env())
        self.assertIn("libair %s (header %s): embed string" % (VERSION, VERSION), out)


class NonSystemPrefix(unittest.TestCase):
    """`meson setup --prefix=$HOME/.local`, then `meson install`: the air it
    installs starts without LD_LIBRARY_PATH (an install run path)."""

    def test_installed_air_starts_and_runs_locally(self):
        if not BUILD or not os.path.exists(os.path.join(BUILD, "cli", "air")):
            self.skipTest("needs a configured build with the CLI")
        with tempfile.TemporaryDirectory(prefix="air-prefix-") as tmp:
            prefix, build = os.path.join(tmp, "prefix"), os.path.join(tmp, "build")
            # The library and the CLI only, unoptimised: what the test needs.
            run(["meson", "setup", build, SRC, "--prefix=" + prefix, "-Dbuildtype=plain",
                 "-Dcli=enabled", "-Dtests=disabled", "-Dbindings=disabled", "-Dman=disabled",
                 "-Ddocs=disabled", "-Dfuzzers=disabled"])
            run(["ninja", "-C", build])
            run(["meson", "install", "-C", build, "--quiet"])
            air = os.path.join(prefix, "bin", "air")
            home = os.path.join(tmp, "home")
            os.makedirs(home)
            env = clean_env(HOME=home, DATABRICKS_CONFIG_FILE=os.path.join(home, "none"))
            self.assertEqual(run([air, "--version"], env=env),
                             "air version %s (libair %s)\n" % (VERSION, VERSION))
            workload = os.path.join(tmp, "hello.yaml")
            with open(workload, "w") as f:
                f.write("experiment_name: hello\ncommand: echo hello from the prefix\n"
                        "compute: {accelerator_type: GPU_1xA10, num_accelerators: 1}\n")
            out = run([air, "--local", "run", "-f", workload, "--watch"], env=env)
            self.assertIn("hello from the prefix\n", out)


class Subproject(unittest.TestCase):
    """libair in subprojects/ of another meson project: the library only."""

    def test_subproject_builds_only_the_library(self):
        with tempfile.TemporaryDirectory(prefix="air-subproject-") as tmp:
            host = os.path.join(tmp, "host")
            os.makedirs(os.path.join(host, "subprojects"))
            shutil.copy(os.path.join(HERE, "subproject.meson.build"),
                        os.path.join(host, "meson.build"))
            shutil.copy(os.path.join(HERE, "consumer.c"), host)
            os.symlink(SRC, os.path.join(host, "subprojects", "libair"))
            build = os.path.join(tmp, "build")
            env = dict(os.environ)
            out = run(["meson", "setup", build, host, "-Dbuildtype=plain"], env=env)
            # The library needs no Python: it is not even looked for.
            self.assertNotIn("python3", out)
            self.assertRegex(out, r"cli\s*: False")
            self.assertRegex(out, r"tests\s*: False")
            self.assertRegex(out, r"bindings\s*: False")
            targets = run(["ninja", "-C", build, "-t", "targets", "all"], env=env)
            self.assertIn("libair.so", targets)
            self.assertNotIn("cli/air", targets)
            self.assertNotIn("test_", targets)
            run(["ninja", "-C", build, "consumer"], env=env)
            out = run([os.path.join(build, "consumer")])
            self.assertIn("libair %s (header %s)" % (VERSION, VERSION), out)


if __name__ == "__main__":
    VERSION = project_version()
    unittest.main(verbosity=2)
