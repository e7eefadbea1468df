"""Packaging of the Python binding: where ``import air`` finds libair
without environment variables (the wheel's bundled copy, the system loader,
pkg-config's libdir), the ImportError when nothing is found, ``pip install``
of the source folder into fresh virtual environments, a wheel that bundles
libair.so.1 (then the example runs with nothing but host and token), the
package version taken from meson.build (or an sdist's air/_version.py), and
``meson install`` into the directory the interpreter imports from."""

import glob
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
import unittest
import zipfile

from bindtest import BUILD_ROOT, PACKAGE_DIR, SOURCE_ROOT, TOKEN
from fakews_client import FakeWS

PY = sys.executable
LIBRARY = os.environ["AIR_LIBRARY_PATH"]
EXAMPLE = os.path.join(SOURCE_ROOT, "examples", "python", "sweep.py")
GENERATOR = os.path.join(SOURCE_ROOT, "bindings", "gen_tables.py")
HEADERS = os.path.join(SOURCE_ROOT, "include", "air")
GENERATED = ["_signatures.py", "constants.py", "enums.py"]
PRINT_PATH = ("import air; print(air.library_path()); print(air.__file__); "
              "print(air.__version__)")

# Submits a one-line workload to local://$AIR_STATE and prints its state and
# log lines (the supervisor's "[air local]" notes left out).
LOCAL_RUN = """
import os, air
c = air.Client("local://" + os.environ["AIR_STATE"], use_environment=False)
cfg = air.Config.loads("experiment_name: w\\ncommand: echo from the wheel\\n"
                       "compute: {accelerator_type: GPU_1xA10, num_accelerators: 1}\\n")
sub = c.submit(cfg)
run = sub.wait(120, poll_interval=0.05)
print(run.state, [r.line for r in c.logs(sub.run_id) if not r.line.startswith("[air local]")])
"""


def project_version():
    """The version in project() of meson.build."""
    with open(os.path.join(SOURCE_ROOT, "meson.build")) as f:
        return re.search(r"\bproject\([^)]*?\bversion\s*:\s*'([^']+)'", f.read()).group(1)


VERSION = project_version()


def run(cmd, env=None, cwd=None, check=True):
    """Run @cmd; on failure the test fails with its output."""
    done = subprocess.run(cmd, env=env, cwd=cwd, stdout=subprocess.PIPE,
                          stderr=subprocess.STDOUT, universal_newlines=True, timeout=300)
    if check and done.returncode != 0:
        raise AssertionError("%s failed (%d):\n%s" % (" ".join(cmd), done.returncode, done.stdout))
    return done


def clean_env(**extra):
    """The environment without anything that points at libair or the sources."""
    env = {k: v for k, v in os.environ.items()
           if k not in ("AIR_LIBRARY_PATH", "LD_LIBRARY_PATH", "PYTHONPATH", "PKG_CONFIG_PATH")}
    env.update(extra)
    return env


def have_build_tools():
    probe = run([PY, "-c", "import setuptools, wheel, pip, venv"], check=False)
    return probe.returncode == 0


def system_has_libair():
    probe = run([PY, "-c", "import ctypes; ctypes.CDLL('libair.so.1')"], env=clean_env(),
                check=False)
    return probe.returncode == 0


def wait_supervisor(state):
    """Until the supervisor of run 1 in @state is gone (it ends once the run's
    files are final), before the directory is removed."""
    with open(os.path.join(state, "jobs", "runs", "1", "status.json")) as f:
        supervisor = json.load(f)["supervisor_pid"]
    deadline = time.monotonic() + 120
    while os.path.exists("/proc/%d" % supervisor) and time.monotonic() < deadline:
        time.sleep(0.05)


class PackagingCase(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.mkdtemp(prefix="air-pkg.")
        self.addCleanup(shutil.rmtree, self.tmp, True)

    def package_copy(self, name="src", meson_build=True, version_py=None):
        """A copy of bindings/python (builds write into the source folder) at
        <name>/bindings/python, with copies of meson.build, the public headers
        and bindings/gen_tables.py under <name>/ (as in the libair sources)
        unless @meson_build is False; @version_py: the text of air/_version.py
        to add, with the generated tables (as in an sdist)."""
        root = os.path.join(self.tmp, name)
        dst = os.path.join(root, "bindings", "python")
        shutil.copytree(PACKAGE_DIR, dst, ignore=shutil.ignore_patterns(
            "build", "dist", "*.egg-info", "_libs", "__pycache__", "_version.py"))
        if meson_build:
            shutil.copyfile(os.path.join(SOURCE_ROOT, "meson.build"),
                            os.path.join(root, "meson.build"))
            shutil.copyfile(GENERATOR, os.path.join(root, "bindings", "gen_tables.py"))
            shutil.copytree(HEADERS, os.path.join(root, "include", "air"))
        if version_py is not None:
            with open(os.path.join(dst, "air", "_version.py"), "w") as f:
                f.write(version_py)
            run([PY, GENERATOR, "--headers", HEADERS, "--python", os.path.join(dst, "air")])
        return dst

    def venv(self, name):
        """A fresh virtual environment (system site packages give it pip,
        setuptools and wheel from Debian: no index is reachable)."""
        d = os.path.join(self.tmp, name)
        run([PY, "-m", "venv", "--system-site-packages", "--without-pip", d])
        return os.path.join(d, "bin", "python")

    def pip(self, py, *args, env=None, cwd=None):
        return run([py, "-m", "pip", "--disable-pip-version-check", "--no-input", "--quiet"]
                   + list(args), env=env, cwd=cwd)

    def lib_dir(self, name):
        """A directory holding libair.so.1 (a link to the built library)."""
        d = os.path.join(self.tmp, name)
        os.makedirs(d)
        os.symlink(LIBRARY, os.path.join(d, "libair.so.1"))
        return d


class DiscoveryTest(PackagingCase):
    def import_air(self, env):
        return run([PY, "-c", PRINT_PATH], env=dict(env, PYTHONPATH=PACKAGE_DIR), check=False)

    def no_pkg_config(self):
        empty = os.path.join(self.tmp, "no-pc")
        os.makedirs(empty, exist_ok=True)
        return {"PKG_CONFIG_LIBDIR": empty}

    def test_explicit_path_wins_and_fails_clearly(self):
        done = self.import_air(clean_env(AIR_LIBRARY_PATH="/nonexistent/libair.so.1"))
        self.assertNotEqual(done.returncode, 0)
        self.assertIn("ImportError: air: AIR_LIBRARY_PATH=/nonexistent/libair.so.1", done.stdout)

    def test_nothing_found_says_what_was_tried(self):
        if system_has_libair():
            self.skipTest("libair.so.1 is installed on this system")
        done = self.import_air(clean_env(**self.no_pkg_config()))
        self.assertNotEqual(done.returncode, 0)
        for what in ("ImportError", "bundled", "system loader", "pkg-config",
                     "set AIR_LIBRARY_PATH"):
            self.assertIn(what, done.stdout)

    def test_system_loader(self):
        env = clean_env(LD_LIBRARY_PATH=self.lib_dir("ld"), **self.no_pkg_config())
        done = self.import_air(env)
        self.assertEqual(done.returncode, 0, done.stdout)
        self.assertEqual(done.stdout.splitlines()[0], "libair.so.1")

    def test_pkg_config_libdir(self):
        if shutil.which("pkg-config") is None:
            self.skipTest("no pkg-config")
        if system_has_libair():
            self.skipTest("libair.so.1 is installed on this system")
        libdir = self.lib_dir("prefix-lib")
        pcdir = os.path.join(self.tmp, "pc")
        os.makedirs(pcdir)
        with open(os.path.join(pcdir, "libair.pc"), "w") as f:
            f.write("libdir=%s\nName: libair\nDescription: test\nVersion: 1.0.0\n"
                    "Libs: -L${libdir} -lair\n" % libdir)
        done = self.import_air(clean_env(PKG_CONFIG_LIBDIR=pcdir))
        self.assertEqual(done.returncode, 0, done.stdout)
        self.assertEqual(done.stdout.splitlines()[0], os.path.join(libdir, "libair.so.1"))


# CI installs them (.ci/install-deps): there a missing tool fails the tests.
@unittest.skipUnless(have_build_tools() or os.environ.get("AIR_TEST_CI"),
                     "needs pip, setuptools, wheel and venv (Debian: python3-pip "
                     "python3-setuptools python3-wheel python3-venv)")
class PipTest(PackagingCase):
    def test_pip_install_source_folder(self):
        py = self.venv("venv-src")
        self.pip(py, "install", "--no-build-isolation", "--no-index", self.package_copy())
        done = run([py, "-c", PRINT_PATH], env=clean_env(AIR_LIBRARY_PATH=LIBRARY), cwd=self.tmp)
        path, module, version = done.stdout.splitlines()
        self.assertEqual(path, LIBRARY)
        self.assertTrue(module.startswith(os.path.join(self.tmp, "venv-src")), module)
        self.assertTrue(os.path.exists(os.path.join(os.path.dirname(module), "py.typed")))
        self.assertTrue(os.path.exists(os.path.join(os.path.dirname(module), "_version.py")))
        for name in GENERATED:  # from the copied headers
            self.assertTrue(os.path.exists(os.path.join(os.path.dirname(module), name)), name)
        self.assertEqual(version, VERSION)
        meta = run([py, "-c", "import importlib.metadata as m; print(m.version('libair'))"],
                   env=clean_env(), cwd=self.tmp)
        self.assertEqual(meta.stdout.strip(), VERSION)

    def test_version_of_a_tree_without_meson_build(self):
        py = self.venv("venv-sdist")
        self.pip(py, "install", "--no-build-isolation", "--no-index", self.package_copy(
            "sdist", meson_build=False, version_py='__version__ = "7.8.9"\n'))
        done = run([py, "-c", PRINT_PATH], env=clean_env(AIR_LIBRARY_PATH=LIBRARY), cwd=self.tmp)
        self.assertEqual(done.stdout.splitlines()[2], "7.8.9")
        done = run([py, "-m", "pip", "--disable-pip-version-check", "--no-input", "install",
                    "--no-build-isolation", "--no-index",
                    self.package_copy("orphan", meson_build=False)], check=False)
        self.assertNotEqual(done.returncode, 0)
        self.assertIn("libair's version is unknown", done.stdout)

    def test_wheels(self):
        src = self.package_copy("plain")
        self.pip(PY, "wheel", "--no-build-isolation", "--no-index", "--no-deps",
                 "-w", os.path.join(self.tmp, "dist-plain"), src)
        self.assertEqual([os.path.basename(p) for p in glob.glob(self.tmp + "/dist-plain/*.whl")],
                         ["libair-%s-py3-none-any.whl" % VERSION])
        src = self.package_copy("bundled")
        self.pip(PY, "wheel", "--no-build-isolation", "--no-index", "--no-deps", "-w",
                 os.path.join(self.tmp, "dist"), src, env=clean_env(AIR_BUNDLE_LIBRARY=LIBRARY))
        wheels = glob.glob(os.path.join(self.tmp, "dist", "*.whl"))
        self.assertEqual(len(wheels), 1)
        self.assertRegex(os.path.basename(wheels[0]),
                         r"^libair-%s-py3-none-linux_\w+\.whl$" % re.escape(VERSION))
        with zipfile.ZipFile(wheels[0]) as z:
            names = z.namelist()
        self.assertIn("air/_libs/libair.so.1", names)
        self.assertIn("air/_libs/air-local-supervisor", names)  # beside LIBRARY in the build
        self.assertIn("air/_libs/air-local-extract", names)  # and the program it runs
        self.assertIn("air/py.typed", names)
        self.assertIn("air/_version.py", names)
        for name in GENERATED:
            self.assertIn("air/" + name, names)
        py = self.venv("venv-wheel")
        self.pip(py, "install", "--no-index", wheels[0])
        done = run([py, "-c", PRINT_PATH], env=clean_env(), cwd=self.tmp)
        self.assertTrue(done.stdout.splitlines()[0].endswith("/air/_libs/libair.so.1"))
        # the bundled supervisor runs a local workload
        env = clean_env(AIR_STATE=os.path.join(self.tmp, "state"))
        env.pop("AIR_LOCAL_SUPERVISOR", None)
        done = run([py, "-c", LOCAL_RUN], env=env, cwd=self.tmp)
        self.assertEqual(done.stdout.splitlines()[-1], "State.SUCCESS ['from the wheel']")
        wait_supervisor(os.path.join(self.tmp, "state"))

    def test_fresh_venv_runs_the_example_with_host_and_token_only(self):
        src = self.package_copy()
        py = self.venv("venv-example")
        self.pip(py, "install", "--no-build-isolation", "--no-index", ".", cwd=src,
                 env=clean_env(AIR_BUNDLE_LIBRARY=LIBRARY))
        with FakeWS() as fw:
            fw.config(auto_logs=3)
            env = {"DATABRICKS_HOST": fw.url, "DATABRICKS_TOKEN": TOKEN}
            if os.environ.get("LD_PRELOAD"):  # sanitizer runtime of an instrumented build
                env["LD_PRELOAD"] = os.environ["LD_PRELOAD"]
            done = run([py, EXAMPLE], env=env, cwd=self.tmp)
        self.assertIn("4 of 4 runs succeeded", done.stdout)


def install_block(path):
    """The shell block under the <!-- python-install --> mark of @path."""
    with open(path, encoding="utf-8") as f:
        text = f.read()
    m = re.search(r"<!-- python-install:[^\n]*-->\n```sh\n(.*?)\n```", text, re.S)
    if not m:
        raise AssertionError("%s: no python-install block" % path)
    return m.group(1)


@unittest.skipUnless(have_build_tools() or os.environ.get("AIR_TEST_CI"),
                     "needs pip, setuptools, wheel and venv (Debian: python3-pip "
                     "python3-setuptools python3-wheel python3-venv)")
@unittest.skipUnless(BUILD_ROOT and os.path.exists("/usr/bin/python3"),
                     "needs the build directory and Debian's interpreter")
class DocumentedInstallTest(PackagingCase):
    """The install story of bindings/python/README.md and docs/python.md (one
    block, the same in both) run as written, offline, in a directory laid out
    like a libair source tree after the set-up: `import air` then loads that
    tree's build without AIR_LIBRARY_PATH."""

    BLOCK = install_block(os.path.join(PACKAGE_DIR, "README.md"))

    def test_same_story_in_both_places(self):
        self.assertEqual(install_block(os.path.join(SOURCE_ROOT, "docs", "python.md")), self.BLOCK)

    def clone(self, with_build):
        tree = os.path.join(self.tmp, "libair")
        self.package_copy("libair")
        if with_build:
            os.symlink(BUILD_ROOT, os.path.join(tree, "build"))
        return tree

    def run_block(self, tree):
        home = os.path.join(self.tmp, "home")
        os.makedirs(home, exist_ok=True)
        # PIP_NO_INDEX: nothing may be downloaded.
        env = clean_env(HOME=home, PIP_NO_INDEX="1", PIP_DISABLE_PIP_VERSION_CHECK="1")
        env.pop("AIR_LOCAL_SUPERVISOR", None)
        return subprocess.run(["bash", "-e", "-c", self.BLOCK], cwd=tree, env=env,
                              stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                              universal_newlines=True, timeout=300)

    def test_as_written_loads_the_trees_build(self):
        tree = self.clone(with_build=True)
        done = self.run_block(tree)
        self.assertEqual(done.returncode, 0, done.stdout)
        version, path = done.stdout.splitlines()[-1].split()
        self.assertEqual(version, VERSION)
        self.assertEqual(path, os.path.join(tree, "build", "lib", "libair.so.1"))
        # The package went into the virtual environment, and runs a workload
        # on the local workspace (the supervisor is found beside the library).
        py = os.path.join(self.tmp, "home", "venv", "bin", "python3")
        env = clean_env(AIR_STATE=os.path.join(self.tmp, "state"))
        env.pop("AIR_LOCAL_SUPERVISOR", None)
        done = run([py, "-c", LOCAL_RUN.replace("from the wheel", "from the tree")], env=env,
                   cwd=self.tmp)
        self.assertEqual(done.stdout.splitlines()[-1], "State.SUCCESS ['from the tree']")
        wait_supervisor(os.path.join(self.tmp, "state"))

    def test_a_tree_without_build_says_why(self):
        if system_has_libair():
            self.skipTest("libair.so.1 is installed on this system")
        tree = self.clone(with_build=False)
        done = self.run_block(tree)
        self.assertNotEqual(done.returncode, 0)
        self.assertIn("ImportError", done.stdout)
        self.assertIn("the libair source tree this package was installed from (%s): it had no "
                      "built library at install time" % tree, done.stdout)
        self.assertIn("ninja -C build", done.stdout)


@unittest.skipUnless(BUILD_ROOT and shutil.which("meson"), "needs the meson build directory")
class MesonInstallTest(PackagingCase):
    def test_installed_where_python_imports(self):
        intro = json.loads(run(["meson", "introspect", BUILD_ROOT, "--installed"]).stdout)
        installed = {os.path.basename(src): dst for src, dst in intro.items()
                     if os.path.dirname(src) == os.path.join(PACKAGE_DIR, "air")}
        sources = {os.path.basename(p) for p in glob.glob(os.path.join(PACKAGE_DIR, "air", "*.py"))}
        self.assertEqual(set(installed), sources | {"py.typed"}, "bindings/meson.build lists")
        generated = {os.path.basename(src) for src in intro
                     if os.path.dirname(src) == os.path.join(BUILD_ROOT, "bindings")}
        self.assertTrue(set(GENERATED) <= generated, "the tables generated from the headers")
        site = os.path.dirname(os.path.dirname(installed["__init__.py"]))
        options = json.loads(run(["meson", "introspect", BUILD_ROOT, "--buildoptions"]).stdout)
        prefix = [o["value"] for o in options if o["name"] == "prefix"][0]
        if prefix in ("/usr", "/usr/local"):
            path = run([PY, "-c", "import sys, json; print(json.dumps(sys.path))"],
                       env=clean_env()).stdout
            self.assertIn(site, json.loads(path))
        dest = os.path.join(self.tmp, "destdir")
        run(["meson", "install", "-C", BUILD_ROOT, "--no-rebuild", "--quiet",
             "--destdir", dest, "--tags", "python-runtime"])
        done = run([PY, "-c", PRINT_PATH],
                   env=clean_env(PYTHONPATH=dest + site, AIR_LIBRARY_PATH=LIBRARY), cwd=self.tmp)
        self.assertEqual(done.stdout.splitlines()[1], dest + installed["__init__.py"])
        self.assertEqual(done.stdout.splitlines()[2], VERSION)


if __name__ == "__main__":
    unittest.main()
