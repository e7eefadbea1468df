"""The Python binding mirrors the C ABI exactly: constants equal the
headers' values, every exported function has a declared signature, and each
declared signature matches the header prototype. (The tables are generated
from the headers by bindings/gen_tables.py; these checks read the headers
their own way.)"""

import ast
import ctypes as C
import glob
import os
import re
import subprocess
import unittest

from bindtest import SOURCE_ROOT, BUILD_ROOT, air
from air import _lib, _signatures, constants, enums

HEADER_DIR = os.path.join(SOURCE_ROOT, "include", "air")


def _headers():
    text = {}
    for path in sorted(glob.glob(os.path.join(HEADER_DIR, "*.h")) + glob.glob(os.path.join(HEADER_DIR, "*.h.in"))):
        with open(path) as f:
            text[os.path.basename(path)] = f.read()
    return text


def _strip_comments(src):
    src = re.sub(r"/\*.*?\*/", " ", src, flags=re.S)
    return re.sub(r"//[^\n]*", " ", src)


_ALLOWED = (ast.Expression, ast.BinOp, ast.UnaryOp, ast.Constant, ast.LShift, ast.RShift,
            ast.Mult, ast.Add, ast.Sub, ast.BitOr, ast.USub)


def _eval(expr):
    """Value of a C integer constant expression (1u << 3, 1024 * 1024, -12), or None."""
    expr = re.sub(r"\b(0x[0-9a-fA-F]+|\d+)[uUlL]+\b", r"\1", expr.strip())
    try:
        tree = ast.parse(expr, mode="eval")
    except SyntaxError:
        return None
    if not all(isinstance(n, _ALLOWED) for n in ast.walk(tree)):
        return None
    if any(isinstance(n, ast.Constant) and not isinstance(n.value, int) for n in ast.walk(tree)):
        return None
    return eval(compile(tree, "<header>", "eval"))  # only integer arithmetic remains


def header_constants():
    """{C name: value} of every enum member and numeric #define of the public headers
    (version macros excluded: bindings check the run-time version)."""
    out = {}
    for name, src in _headers().items():
        code = _strip_comments(src)
        for body in re.findall(r"enum\s+\w*\s*\{(.*?)\}", code, flags=re.S):
            for item in body.split(","):
                item = item.strip()
                if not item:
                    continue
                m = re.match(r"(AIR_\w+)\s*=\s*(.+)$", item, flags=re.S)
                assert m, "enum member without an explicit value in %s: %r" % (name, item)
                out[m.group(1)] = _eval(m.group(2))
        if name == "version.h.in":
            continue
        for m in re.finditer(r"^\s*#\s*define\s+(AIR_\w+)[ \t]+([^\n]+)$", code, flags=re.M):
            value = _eval(m.group(2))
            if value is not None:
                out[m.group(1)] = value
    return out


def header_prototypes():
    """{function name: (return type, [argument types])} from AIR_EXTERN declarations."""
    protos = {}
    for src in _headers().values():
        code = _strip_comments(src)
        for m in re.finditer(r"AIR_EXTERN\s+([^;(]+?)\b(air_\w+)\s*\(([^)]*)\)\s*;", code, flags=re.S):
            ret = " ".join(m.group(1).split())
            args = []
            raw = " ".join(m.group(3).split())
            if raw and raw != "void":
                for a in raw.split(","):
                    a = a.strip()
                    # drop the parameter name: the last identifier, unless the type is bare
                    t = re.sub(r"\s*\b\w+$", "", a) if re.search(r"[\w*]\s+\**\w+$", a) else a
                    t = t.replace(" *", "*").replace("* ", "*")
                    args.append(" ".join(t.split()))
            protos[m.group(2)] = (ret.replace(" *", "*").strip(), args)
    return protos


def header_callbacks():
    """{typedef name: number of arguments} of the callback typedefs."""
    code = _strip_comments("".join(_headers().values()))
    return {m.group(1): len(m.group(2).split(","))
            for m in re.finditer(r"typedef\s+int\s*\(\s*\*\s*(air_\w+)\s*\)\s*\(([^)]*)\)", code)}


# Each callback typedef air_x_cb is the ctypes type X_CB of air._signatures.
CALLBACKS = {name: getattr(_signatures, name[len("air_"):].upper()) for name in header_callbacks()}
SCALARS = {"int": C.c_int, "int32_t": C.c_int32, "int64_t": C.c_int64, "uint32_t": C.c_uint32,
           "uint64_t": C.c_uint64, "size_t": C.c_size_t, "double": C.c_double}


def expected_types(ctype, is_result):
    """The ctypes types acceptable for a C type."""
    ctype = ctype.replace("const ", "").strip()
    if ctype == "void":
        return {None}
    if ctype in SCALARS:
        return {SCALARS[ctype]}
    if ctype in CALLBACKS:
        return {CALLBACKS[ctype]}
    if ctype == "char*":
        # strings: c_char_p, or void * where a length accompanies them
        return {C.c_char_p, C.c_void_p}
    if ctype == "void*" or re.fullmatch(r"air_\w+\*", ctype):
        return {C.c_void_p}
    if ctype in ("char**", "char*const*") or re.fullmatch(r"air_\w+\*\*", ctype):
        return {C.POINTER(C.c_void_p)}
    if ctype == "size_t*":
        return {C.POINTER(C.c_size_t)}
    if ctype == "int64_t*":
        return {C.POINTER(C.c_int64)}
    raise AssertionError("no ctypes mapping for C type %r" % ctype)


def exported_symbols(path):
    out = subprocess.run(["nm", "-D", "--defined-only", path], stdout=subprocess.PIPE,
                         universal_newlines=True, check=True).stdout
    return {line.split()[-1].split("@")[0] for line in out.splitlines()
            if line.split() and line.split()[-1].startswith("air_")}


def map_symbols():
    with open(os.path.join(SOURCE_ROOT, "lib", "libair.map")) as f:
        text = _strip_comments(f.read())
    return set(re.findall(r"\b(air_\w+)\s*;", text))


class ConstantsTest(unittest.TestCase):
    def test_every_header_constant_is_mirrored_with_its_value(self):
        hdr = header_constants()
        self.assertGreater(len(hdr), 120, "header parsing found too few constants")
        py = constants.names()
        for name, value in sorted(hdr.items()):
            self.assertIsNotNone(value, "cannot evaluate %s" % name)
            short = name[len("AIR_"):]
            self.assertTrue(short in py, "air.constants lacks %s" % name)
            self.assertEqual(py[short], value, "air.%s = %r but %s = %r in the headers"
                             % (short, py[short], name, value))

    def test_no_python_constant_without_header_counterpart(self):
        hdr = header_constants()
        for short in constants.names():
            self.assertTrue("AIR_" + short in hdr, "air.%s has no counterpart in the headers" % short)

    def test_every_enum_member_matches_the_header(self):
        hdr = header_constants()
        for cls, prefix in enums.C_PREFIXES.items():
            want = {n[len("AIR_" + prefix):]: v for n, v in hdr.items()
                    if n.startswith("AIR_" + prefix)}
            have = {m.name: m.value for m in cls}
            self.assertEqual(have, want, "air.%s differs from AIR_%s*" % (cls.__name__, prefix))

    def test_typed_callbacks_match_the_headers(self):
        self.assertGreaterEqual(len(CALLBACKS), 6)
        for name, nargs in header_callbacks().items():
            cbtype = CALLBACKS[name]
            self.assertEqual(cbtype._restype_, C.c_int)
            self.assertEqual(len(cbtype._argtypes_), nargs, name)

    def test_exception_class_for_every_status(self):
        for name, value in header_constants().items():
            if re.fullmatch(r"AIR_E[A-Z]+", name) and name != "AIR_EDONE":
                cls = air.error_class(value)
                self.assertIsNot(cls, air.AirError, "no exception class for %s" % name)
                self.assertEqual(cls.CODE, value)
                self.assertEqual(air.status_name(value), name)
        self.assertIs(air.error_class(-999), air.AirError)


class SymbolsTest(unittest.TestCase):
    def test_every_exported_function_is_declared(self):
        exported = exported_symbols(os.environ["AIR_LIBRARY_PATH"])
        self.assertGreater(len(exported), 200)
        missing = sorted(exported - set(_lib.SIGNATURES))
        self.assertEqual(missing, [], "exported but not declared in air._signatures")

    def test_every_map_entry_is_declared(self):
        missing = sorted(map_symbols() - set(_lib.SIGNATURES))
        self.assertEqual(missing, [], "in lib/libair.map but not declared in air._signatures")

    def test_loaded_library_has_every_declared_function(self):
        self.assertEqual(_lib.lib.missing, [], "declared in air._signatures but not exported")

    def test_declared_signatures_match_the_headers(self):
        protos = header_prototypes()
        self.assertGreater(len(protos), 200)
        for name, (restype, argtypes) in _lib.SIGNATURES.items():
            self.assertTrue(name in protos, "%s is declared but not in the headers" % name)
            ret, args = protos[name]
            self.assertIn(restype, expected_types(ret, True), "%s returns %s" % (name, ret))
            self.assertEqual(len(argtypes), len(args), "%s takes %d arguments" % (name, len(args)))
            for i, (have, want) in enumerate(zip(argtypes, args)):
                self.assertIn(have, expected_types(want, False),
                              "%s argument %d is %s, declared %r" % (name, i + 1, want, have))

    def test_ctypes_functions_carry_the_declared_types(self):
        fn = _lib.lib.dll.air_client_open_logs
        self.assertEqual(fn.restype, C.c_int)
        self.assertEqual(len(fn.argtypes), 5)
        self.assertIs(_lib.lib.dll.air_config_num_accelerators.restype, C.c_int64)


class VersionTest(unittest.TestCase):
    def test_runtime_version_matches_the_build(self):
        self.assertRegex(air.version(), r"^\d+\.\d+\.\d+$")
        major, minor, patch = (int(x) for x in air.version().split("."))
        self.assertEqual(air.version_number(), (major << 16) | (minor << 8) | patch)
        if BUILD_ROOT:
            with open(os.path.join(BUILD_ROOT, "include", "air", "version.h")) as f:
                m = re.search(r'#define AIR_VERSION_STRING "([^"]+)"', f.read())
            self.assertEqual(m.group(1), air.version())

    def test_features(self):
        self.assertIsInstance(air.features(), air.Feature)
        self.assertIn(air.Feature.THREADSAFE, air.features())

    def test_library_path_is_the_built_one(self):
        self.assertEqual(air.library_path(), os.environ["AIR_LIBRARY_PATH"])


class ErrorsTest(unittest.TestCase):
    def test_names(self):
        self.assertEqual(air.status_name(constants.ENOTFOUND), "AIR_ENOTFOUND")
        self.assertTrue(air.strerror(constants.EINVAL))

    def test_error_from_status_only(self):
        e = air.errors.from_error(constants.ENET, None)
        self.assertIsInstance(e, air.NetworkError)
        self.assertIsInstance(e, ConnectionError)
        self.assertEqual((e.code, e.kind), (constants.ENET, air.ErrorKind.TRANSIENT))
        self.assertIsNone(e.retry_after)
        self.assertEqual(e.code_name, "AIR_ENET")

    def test_python_bases(self):
        self.assertTrue(issubclass(air.ConfigError, ValueError))
        self.assertTrue(issubclass(air.TimedOutError, TimeoutError))
        self.assertTrue(issubclass(air.NotFoundError, LookupError))
        self.assertTrue(issubclass(air.LocalIOError, OSError))
        self.assertTrue(issubclass(air.AirFileNotFoundError, FileNotFoundError))
        self.assertTrue(issubclass(air.AirFilePermissionError, PermissionError))
        for cls in (air.ConfigError, air.TimedOutError, air.AirFileNotFoundError):
            self.assertTrue(issubclass(cls, air.AirError))

    def test_errors_pickle_with_their_details(self):
        import pickle
        e = air.ConfigError("x.yaml:1:2: f: bad", field="f", file="x.yaml", line=1, column=2)
        again = pickle.loads(pickle.dumps(e))
        self.assertEqual((type(again), str(again), again.field, again.line, again.kind),
                         (air.ConfigError, "x.yaml:1:2: f: bad", "f", 1, air.ErrorKind.INVALID_CONFIG))


class InterruptTest(unittest.TestCase):
    def test_trigger_reset(self):
        intr = air.Interrupt()
        self.assertFalse(intr.is_triggered)
        intr.trigger()
        self.assertTrue(intr.is_triggered)
        intr.reset()
        self.assertFalse(intr.is_triggered)

    def test_linked_call_interrupt_follows_the_flag(self):
        from air._call import Call
        intr = air.Interrupt()
        intr.trigger()
        with Call(intr) as call:  # started while triggered: raised at once
            self.assertEqual(_lib.lib.air_interrupt_is_triggered(call.interrupt), 1)
        intr.reset()
        with Call(intr, None) as call:
            self.assertEqual(_lib.lib.air_interrupt_is_triggered(call.interrupt), 0)
            intr.trigger()
            self.assertEqual(_lib.lib.air_interrupt_is_triggered(call.interrupt), 1)
        self.assertEqual(intr._calls, set())


if __name__ == "__main__":
    unittest.main()
