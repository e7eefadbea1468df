"""Finding libair: which shared library ``import air`` loads.

In order: ``$AIR_LIBRARY_PATH`` when set (an explicit path; nothing else is
tried), the copy bundled in a wheel (``air/_libs/libair.so.1``), the build
of the libair source tree the package was installed from (recorded by
setup.py in ``air/_installed_from.py``), the system loader (``libair.so.1``
through the ld.so cache, ``LD_LIBRARY_PATH`` and the standard directories),
then the ``libdir`` that pkg-config reports for ``libair`` (a prefix outside
the loader's path, such as /opt/air).
"""

import ctypes
import os
import subprocess
from typing import List, Optional, Tuple

SONAME = "libair.so.1"
ENV_VAR = "AIR_LIBRARY_PATH"
BUNDLED = os.path.join(os.path.dirname(os.path.abspath(__file__)), "_libs", SONAME)


def _pkg_config_libdir() -> Tuple[Optional[str], str]:
    """(libdir, note): pkg-config's libdir of libair, or None and why not."""
    try:
        done = subprocess.run(["pkg-config", "--variable=libdir", "libair"],
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                              universal_newlines=True, timeout=10, check=False)
    except (OSError, subprocess.SubprocessError) as exc:
        return None, "pkg-config could not run (%s)" % exc
    libdir = done.stdout.strip()
    if done.returncode != 0 or not libdir:
        return None, "pkg-config does not know libair (PKG_CONFIG_PATH)"
    return libdir, ""


def _source_tree_library(tried: List[str]) -> Optional[str]:
    """The build library of the source tree the package was installed from;
    None (and why, in @tried) when there is none."""
    try:
        from . import _installed_from  # type: ignore[attr-defined]
    except ImportError:
        return None  # not installed from a source tree
    library: Optional[str] = _installed_from.LIBRARY
    if library is None:
        tried.append("the libair source tree this package was installed from (%s): it had no "
                     "built library at install time; build it (meson setup build && ninja -C "
                     "build), then install the package again" % _installed_from.SOURCE)
    elif not os.path.exists(library):
        tried.append("the build of the libair source tree this package was installed from "
                     "(%s): absent now; rebuild it" % library)
        library = None
    return library


def load() -> Tuple[ctypes.CDLL, str]:
    """The loaded library and what it was loaded from; ImportError listing
    every place tried when none works."""
    explicit = os.environ.get(ENV_VAR)
    if explicit:
        try:
            return ctypes.CDLL(explicit), explicit
        except OSError as exc:
            raise ImportError("air: %s=%s cannot be loaded: %s" % (ENV_VAR, explicit, exc)) from None
    tried: List[str] = []
    candidates: List[Tuple[str, str]] = []
    if os.path.exists(BUNDLED):
        candidates.append((BUNDLED, "the copy bundled with this package"))
    else:
        tried.append("the copy bundled with this package (%s): absent" % BUNDLED)
    built = _source_tree_library(tried)
    if built:
        candidates.append((built, "the build of the source tree this package was installed from"))
    candidates.append((SONAME, "the system loader"))
    for path, what in candidates:
        try:
            return ctypes.CDLL(path), path
        except OSError as exc:
            tried.append("%s (%s): %s" % (what, path, exc))
    libdir, note = _pkg_config_libdir()
    if libdir is None:
        tried.append("pkg-config's libdir: " + note)
    else:
        path = os.path.join(libdir, SONAME)
        try:
            return ctypes.CDLL(path), path
        except OSError as exc:
            tried.append("pkg-config's libdir (%s): %s" % (path, exc))
    raise ImportError(
        "air: libair (%s) was not found. Tried:\n  - %s\n"
        "Install libair (meson install; then ldconfig), install a wheel that bundles it, "
        "or set %s to the path of %s." % (SONAME, "\n  - ".join(tried), ENV_VAR, SONAME))
