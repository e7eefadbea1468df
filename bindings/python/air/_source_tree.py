"""The generated modules of a package imported from a libair source tree.

air.constants, air.enums and air._signatures are generated from the public
headers by bindings/gen_tables.py when the package is built (meson, setup.py,
a wheel). A source tree has none of them: imported from there, the package
generates them in memory from the tree's headers (include/air).
"""

import importlib.util
import os
import sys
import types

HERE = os.path.dirname(os.path.abspath(__file__))
GENERATED = ("constants", "_signatures", "enums")   # in the order they import each other


def _generate() -> None:
    root = os.path.normpath(os.path.join(HERE, "..", "..", ".."))
    script = os.path.join(root, "bindings", "gen_tables.py")
    headers = os.path.join(root, "include", "air")
    if not (os.path.isfile(script) and os.path.isdir(headers)):
        raise ImportError(
            "air: %s lacks its generated modules (%s) and is not in a libair source tree; "
            "install the package (pip install bindings/python, or meson install)"
            % (HERE, ", ".join(m + ".py" for m in GENERATED)))
    spec = importlib.util.spec_from_file_location("air_gen_tables", script)
    assert spec is not None and spec.loader is not None
    gen = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(gen)
    sources = gen.python_sources(gen.parse(headers))
    package = sys.modules[__package__]
    for name in GENERATED:
        module = types.ModuleType(__package__ + "." + name)
        module.__file__ = os.path.join(HERE, name + ".py")
        module.__package__ = __package__
        sys.modules[module.__name__] = module
        code = compile(sources[name + ".py"], "%s (generated from %s)" % (name, headers), "exec")
        exec(code, module.__dict__)
        setattr(package, name, module)


if not all(os.path.exists(os.path.join(HERE, m + ".py")) for m in GENERATED):
    _generate()
