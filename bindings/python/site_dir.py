"""Print where this interpreter imports packages installed under PREFIX,
relative to PREFIX (used by bindings/meson.build).

Debian's python3 reads /usr/local/lib/python3.X/dist-packages (scheme
posix_local) and /usr/lib/python3/dist-packages (deb_system), whereas
meson's get_install_dir() answers lib/python3/dist-packages for every
prefix, a directory that prefix /usr/local never puts on sys.path. Other
prefixes and interpreters use the standard posix_prefix layout.

    python3 site_dir.py PREFIX
"""

import os
import sys
import sysconfig


def site_dir(prefix: str) -> str:
    """The purelib directory for @prefix, relative to it."""
    prefix = os.path.normpath(prefix)
    schemes = sysconfig.get_scheme_names()
    if prefix == "/usr" and "deb_system" in schemes:
        path = sysconfig.get_path("purelib", "deb_system", vars={"base": "/usr"})
    elif prefix == "/usr/local" and "posix_local" in schemes:
        path = sysconfig.get_path("purelib", "posix_local", vars={"base": "/usr"})
    else:
        path = sysconfig.get_path("purelib", "posix_prefix",
                                  vars={"base": prefix, "platbase": prefix,
                                        "installed_base": prefix, "installed_platbase": prefix})
    return os.path.relpath(path, prefix)


if __name__ == "__main__":
    print(site_dir(sys.argv[1]))
