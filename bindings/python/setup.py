"""Build hook of the package (the other metadata is in pyproject.toml).

The version is libair's: project() in the meson.build of the libair sources
this folder lies in (../../meson.build), else the air/_version.py of a tree
that carries one (an sdist). Built packages get air/_version.py with it.

With AIR_BUNDLE_LIBRARY=/path/to/libair.so.1 (or the libair.so.1.x.y it
links to) at build time, the library is copied into the package as
air/_libs/libair.so.1, where ``import air`` looks first, and the wheel
carries the platform tag (py3-none-linux_x86_64) instead of py3-none-any.
The local workspace's supervisor program, air-local-supervisor, goes beside
it (where the library looks for it): $AIR_BUNDLE_SUPERVISOR, else the one
next to the bundled library when there is one (a build tree); with it the
program it extracts code snapshots with, air-local-extract, from beside the
supervisor (where the supervisor looks for it). The bundled
files still need their own dependencies (libcurl, jansson, libfyaml,
libarchive, zlib) from the system.

Without a bundle, a package built from the libair sources records the
library of that tree's build directory (build/, or $AIR_BUILD_DIR) in
air/_installed_from.py, so that ``import air`` loads that tree's libair with
nothing set; when the tree has no built library, the file says so and the
ImportError explains it.

The tables of the package (air/constants.py, air/enums.py, air/_signatures.py)
are generated from the public headers of the libair sources
(../../include/air, by ../gen_tables.py); an sdist carries them.
"""

import importlib.util
import os
import re
import shutil

from setuptools import setup
from setuptools.command.build_py import build_py
from setuptools.command.sdist import sdist
from setuptools.dist import Distribution

HERE = os.path.dirname(os.path.abspath(__file__))
BUNDLE = os.environ.get("AIR_BUNDLE_LIBRARY")
SUPERVISOR = "air-local-supervisor"
EXTRACTOR = "air-local-extract"
VERSION_PY = ('"""Version of the libair release this package was built from (setup.py)."""\n'
              '__version__ = "%s"\n')


def _read(path: str) -> str:
    with open(path, encoding="utf-8") as f:
        return f.read()


def package_version() -> str:
    """libair's version: from ../../meson.build, else air/_version.py."""
    meson = os.path.join(HERE, "..", "..", "meson.build")
    generated = os.path.join(HERE, "air", "_version.py")
    if os.path.isfile(meson):
        m = re.search(r"\bproject\(\s*'libair'[^)]*?\bversion\s*:\s*'([^']+)'", _read(meson), re.S)
        if not m:
            raise SystemExit("%s: no version in project()" % meson)
        return m.group(1)
    if os.path.isfile(generated):
        m = re.search(r"^__version__\s*=\s*\"([^\"]+)\"", _read(generated), re.M)
        if not m:
            raise SystemExit("%s: no __version__" % generated)
        return m.group(1)
    raise SystemExit("libair's version is unknown: %s is not in the libair sources "
                     "(no ../../meson.build) and has no air/_version.py" % HERE)


VERSION = package_version()
INSTALLED_FROM_PY = ('"""The libair source tree this package was built from (setup.py)."""\n'
                  'SOURCE = %r\n'
                  'LIBRARY = %r  # its build\'s libair.so.1 at install time, or None\n')


def write_version(package_dir: str) -> None:
    """Write <package_dir>/_version.py."""
    path = os.path.join(package_dir, "_version.py")
    if os.path.lexists(path):
        os.remove(path)  # may be a hard link to the source tree's copy
    with open(path, "w", encoding="utf-8") as f:
        f.write(VERSION_PY % VERSION)


GENERATED = ("constants.py", "enums.py", "_signatures.py")


def write_tables(package_dir: str) -> None:
    """Write the generated modules into <package_dir> from the headers of the
    libair sources; without them (an sdist) the tree must carry the modules."""
    script = os.path.join(HERE, "..", "gen_tables.py")
    headers = os.path.join(HERE, "..", "..", "include", "air")
    if os.path.isfile(script) and os.path.isdir(headers):
        spec = importlib.util.spec_from_file_location("air_gen_tables", script)
        gen = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(gen)
        for name, text in gen.python_sources(gen.parse(headers)).items():
            path = os.path.join(package_dir, name)
            if os.path.lexists(path):
                os.remove(path)  # may be a hard link to the source tree's copy
            with open(path, "w", encoding="utf-8") as f:
                f.write(text)
        return
    missing = [n for n in GENERATED if not os.path.isfile(os.path.join(HERE, "air", n))]
    if missing:
        raise SystemExit("the package's tables are missing (%s): %s is not in the libair "
                         "sources (no ../../include/air) and is not an sdist that carries them"
                         % (", ".join(missing), HERE))


def bundled_supervisor() -> "str | None":
    """The supervisor program to bundle with the library, or None."""
    path = os.environ.get("AIR_BUNDLE_SUPERVISOR")
    if path:
        if not os.path.isfile(path) or not os.access(path, os.X_OK):
            raise SystemExit("AIR_BUNDLE_SUPERVISOR=%s is not an executable file" % path)
        return path
    beside = os.path.join(os.path.dirname(os.path.abspath(BUNDLE or ".")), SUPERVISOR)
    return beside if os.path.isfile(beside) and os.access(beside, os.X_OK) else None


def write_installed_from(package_dir: str) -> None:
    """Write <package_dir>/_installed_from.py when built from the libair sources."""
    root = os.path.abspath(os.path.join(HERE, "..", ".."))
    path = os.path.join(package_dir, "_installed_from.py")
    if os.path.lexists(path):
        os.remove(path)
    if BUNDLE or not os.path.isfile(os.path.join(root, "meson.build")):
        return
    build = os.path.join(root, os.environ.get("AIR_BUILD_DIR") or "build")
    library = os.path.join(build, "lib", "libair.so.1")
    with open(path, "w", encoding="utf-8") as f:
        f.write(INSTALLED_FROM_PY % (root, library if os.path.exists(library) else None))


class BuildPy(build_py):
    """build_py that writes air/_version.py and air/_installed_from.py and adds
    (or, without a bundle, removes) air/_libs/ with libair.so.1 and the
    supervisor program."""

    def run(self) -> None:
        super().run()
        write_version(os.path.join(self.build_lib, "air"))
        write_installed_from(os.path.join(self.build_lib, "air"))
        write_tables(os.path.join(self.build_lib, "air"))
        libs = os.path.join(self.build_lib, "air", "_libs")
        shutil.rmtree(libs, ignore_errors=True)
        if BUNDLE:
            if not os.path.isfile(BUNDLE):
                raise SystemExit("AIR_BUNDLE_LIBRARY=%s is not a file" % BUNDLE)
            os.makedirs(libs)
            shutil.copyfile(BUNDLE, os.path.join(libs, "libair.so.1"))
            supervisor = bundled_supervisor()
            if supervisor:
                shutil.copy(supervisor, os.path.join(libs, SUPERVISOR))  # keeps the x bits
                extractor = os.path.join(os.path.dirname(os.path.realpath(supervisor)), EXTRACTOR)
                if not (os.path.isfile(extractor) and os.access(extractor, os.X_OK)):
                    raise SystemExit("%s has no %s beside it: the supervisor extracts code "
                                     "snapshots with it" % (supervisor, EXTRACTOR))
                shutil.copy(extractor, os.path.join(libs, EXTRACTOR))


class Sdist(sdist):
    """sdist whose tree carries air/_version.py and the generated tables: it
    builds without meson.build and the headers."""

    def make_release_tree(self, base_dir: str, files: "list[str]") -> None:
        super().make_release_tree(base_dir, files)
        write_version(os.path.join(base_dir, "air"))
        write_tables(os.path.join(base_dir, "air"))


class BinaryDistribution(Distribution):
    """A distribution installed into platlib: it holds a shared library."""

    def has_ext_modules(self) -> bool:
        return True


cmdclass = {"build_py": BuildPy, "sdist": Sdist}
options = {}

if BUNDLE:
    from wheel.bdist_wheel import bdist_wheel

    class PlatformWheel(bdist_wheel):
        """A wheel for this platform: it holds a shared library."""

        def finalize_options(self) -> None:
            super().finalize_options()
            self.root_is_pure = False

        def get_tag(self) -> "tuple[str, str, str]":
            return ("py3", "none", super().get_tag()[2])

    cmdclass["bdist_wheel"] = PlatformWheel
    options["distclass"] = BinaryDistribution

setup(version=VERSION, cmdclass=cmdclass, **options)
