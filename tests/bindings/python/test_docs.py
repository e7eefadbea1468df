"""docs/python.md names only what the package has: every ``air.X`` chain
resolves, and every method, attribute and keyword argument it shows on the
usual receivers (``client.``, ``cfg.``, ``sub.``, ``reg.``, ...) exists.
help() of the public names reads as Python documentation: types rather than
ForwardRef(...), no @param-style markup, and Client's says how to reach the
local workspace."""

import inspect
import json
import os
import pydoc
import re
import subprocess
import sys
import tempfile
import time
import unittest

from bindtest import PACKAGE_DIR, SOURCE_ROOT, air

PAGE = os.path.join(SOURCE_ROOT, "docs", "python.md")

# The variable names the page uses, and what they hold.
RECEIVERS = {
    "client": air.Client, "cfg": air.Config, "trial": air.Config, "sub": air.Submission,
    "submission": air.Submission, "run": air.Run, "stream": air.LogStream,
    "rec": air.LogRecord, "reg": air.ImageRegistration, "bundle": air.Bundle,
    "stop": air.Interrupt, "error": air.AirError,
}


def read_page():
    with open(PAGE, encoding="utf-8") as f:
        return f.read()


def has(cls, name):
    """@cls has @name: a class attribute, a dataclass field or an attribute
    its methods assign (self.name = ...)."""
    if hasattr(cls, name) or name in getattr(cls, "__dataclass_fields__", {}):
        return True
    return re.search(r"\bself\.%s\s*[:=]" % re.escape(name), inspect.getsource(cls)) is not None


def call_arguments(text, start):
    """The text between the parenthesis at @start and its match."""
    depth = 0
    for i in range(start, len(text)):
        if text[i] in "([{":
            depth += 1
        elif text[i] in ")]}":
            depth -= 1
            if depth == 0:
                return text[start + 1:i]
    return text[start + 1:]


class PythonPageTest(unittest.TestCase):
    def test_air_names_resolve(self):
        unknown = []
        for m in re.finditer(r"(?<![\w/.])air((?:\.\w+)+)", read_page()):
            obj = air
            for part in m.group(1).split(".")[1:]:
                if isinstance(obj, type) and part in getattr(obj, "__dataclass_fields__", {}):
                    break
                if not hasattr(obj, part):
                    unknown.append("air" + m.group(1))
                    break
                obj = getattr(obj, part)
        self.assertEqual(sorted(set(unknown)), [])

    def test_methods_attributes_and_keywords_exist(self):
        text = read_page()
        problems = []
        pattern = r"(?<![\w.])(%s)\.(\w+)(\()?" % "|".join(RECEIVERS)
        for m in re.finditer(pattern, text):
            cls, name = RECEIVERS[m.group(1)], m.group(2)
            if not has(cls, name):
                problems.append("%s.%s" % (cls.__name__, name))
                continue
            if not m.group(3):
                continue
            params = inspect.signature(getattr(cls, name)).parameters
            if any(p.kind is p.VAR_KEYWORD for p in params.values()):
                continue
            for kw in re.findall(r"(?<![\w.=])(\w+)\s*=(?!=)", call_arguments(text, m.end() - 1)):
                if kw not in params:
                    problems.append("%s.%s(%s=)" % (cls.__name__, name, kw))
        self.assertEqual(sorted(set(problems)), [])

    def test_every_public_client_call_is_documented(self):
        text = read_page()
        for name, _ in inspect.getmembers(air.Client, inspect.isfunction):
            if not name.startswith("_"):
                self.assertIn(name, text, "docs/python.md does not mention Client.%s" % name)
        self.assertIn("write_bundle", text)


class HelpTest(unittest.TestCase):
    def test_help_reads_as_python(self):
        problems = []
        for name in air.__all__:
            text = pydoc.render_doc(getattr(air, name), renderer=pydoc.plaintext)
            if "ForwardRef" in text:
                problems.append("%s: ForwardRef in a signature" % name)
            markup = sorted(set(re.findall(r"(?<![\w.@])@[a-z_]\w*", text)))
            if markup:
                problems.append("%s: %s" % (name, ", ".join(markup)))
        self.assertEqual(problems, [])

    def test_client_says_how_to_reach_the_local_workspace(self):
        self.assertIn("local://", inspect.getdoc(air.Client))
        self.assertIn("Args:", inspect.getdoc(air.Client.logs))


TRAIN_YAML = """experiment_name: docs-example
compute:
  accelerator_type: GPU_8xH100
  num_accelerators: 8
command: echo "training on node $NODE_RANK of $NUM_NODES"
max_retries: 0
"""


class RunnableBlocksTest(unittest.TestCase):
    """The Python blocks of docs/python.md marked <!-- run: ... --> run as
    written (with ``import air`` added when the block leaves it out) on the
    local workspace, with a train.yaml in the current directory."""

    def test_marked_blocks_run(self):
        blocks = re.findall(r"<!-- run: [^\n]*-->\n```python\n(.*?)\n```", read_page(), re.S)
        self.assertGreaterEqual(len(blocks), 2)
        for block in blocks:
            with tempfile.TemporaryDirectory(prefix="air-docs-") as tmp:
                with open(os.path.join(tmp, "train.yaml"), "w") as f:
                    f.write(TRAIN_YAML)
                env = {k: v for k, v in os.environ.items() if not k.startswith("DATABRICKS_")}
                env.update(HOME=tmp, DATABRICKS_HOST="local://", PYTHONPATH=PACKAGE_DIR,
                           DATABRICKS_CONFIG_FILE=os.path.join(tmp, "none"))
                code = block if "import air" in block else "import air\n" + block
                done = subprocess.run([sys.executable, "-c", code], cwd=tmp, env=env,
                                      stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                                      universal_newlines=True, timeout=300)
                self.assertEqual(done.returncode, 0, block + "\n" + done.stdout)
                self.assertIn("training on node 0 of", done.stdout)
                self.assertEqual(done.stdout.splitlines()[-1].split()[0], "State.SUCCESS",
                                 done.stdout)
                wait_supervisors(os.path.join(tmp, ".local", "state", "air", "local"))


def wait_supervisors(state):
    """Until the supervisors of the runs in @state are gone (they end once the
    run's files are final), before the directory is removed."""
    runs = os.path.join(state, "jobs", "runs")
    deadline = time.monotonic() + 120
    for run_id in os.listdir(runs) if os.path.isdir(runs) else ():
        with open(os.path.join(runs, run_id, "status.json")) as f:
            pid = json.load(f).get("supervisor_pid")
        while pid and os.path.exists("/proc/%d" % pid) and time.monotonic() < deadline:
            time.sleep(0.05)


if __name__ == "__main__":
    unittest.main()
