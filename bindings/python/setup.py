"""Build hook of the package (the metadata is in pyproject.toml).

With AIR_BUNDLE_LIBRARY=/path/to/libair.so.1 (or the libair.so.1.0.0 it
links to) at build time, the library is copied into the package as
air/_libs/libair.so.1, where ``import air`` looks first, and the wheel
carries the platform tag (py3-none-linux_x86_64) instead of py3-none-any.
The bundled library still needs its own dependencies (libcurl, jansson,
libfyaml, libarchive, zlib) from the system.
"""

import os
import shutil

from setuptools import setup
from setuptools.command.build_py import build_py
from setuptools.dist import Distribution

BUNDLE = os.environ.get("AIR_BUNDLE_LIBRARY")


class BuildPy(build_py):
    """build_py that adds (or, without a bundle, removes) air/_libs/libair.so.1."""

    def run(self) -> None:
        super().run()
        libs = os.path.join(self.build_lib, "air", "_libs")
        shutil.rmtree(libs, ignore_errors=True)
        if BUNDLE:
            if not os.path.isfile(BUNDLE):
                raise SystemExit("AIR_BUNDLE_LIBRARY=%s is not a file" % BUNDLE)
            os.makedirs(libs)
            shutil.copyfile(BUNDLE, os.path.join(libs, "libair.so.1"))


class BinaryDistribution(Distribution):
    """A distribution installed into platlib: it holds a shared library."""

    def has_ext_modules(self) -> bool:
        return True


cmdclass = {"build_py": BuildPy}
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

setup(cmdclass=cmdclass, **options)
