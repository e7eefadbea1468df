"""Python driver for the fake workspace server (tests/fakews/fakews.py).

    from fakews_client import FakeWS

    with FakeWS() as fw:
        fw.config(lifecycle={"pending_ms": 100, "running_ms": 500})
        fw.fault(method="POST", path="/api/2.2/jobs/runs/submit", status=503)
        ... run the CLI against fw.url ...
        assert fw.count("POST", "/api/2.2/jobs/runs/submit") == 2

Standard library only. The interpreter is $PYTHON (else the running one) and
the server script $FAKEWS_PY (else the copy in this source tree). Control
calls raise FakeWSError when the server rejects them. See
tests/fakews/README.md for the control API.
"""

import http.client
import json
import os
import shutil
import subprocess
import sys
import tempfile
import threading
import time
import unittest
import urllib.parse

__all__ = ["FakeWS", "FakeWSCase", "FakeWSError", "python_exe", "script_path"]

_HERE = os.path.dirname(os.path.abspath(__file__))
_resolved = {}
_resolved_lock = threading.Lock()


class FakeWSError(RuntimeError):
    """A control call failed (transport error or non-2xx reply)."""

    def __init__(self, message, status=None, body=None):
        super().__init__(message)
        self.status = status
        self.body = body


def _is_script(path):
    try:
        with open(path, "rb") as f:
            return f.read(2) == b"#!"
    except OSError:
        return False


def python_exe():
    """$PYTHON, else this interpreter; a launcher script (pyenv shim) is resolved once."""
    py = os.environ.get("PYTHON") or sys.executable or "python3"
    with _resolved_lock:
        if py in _resolved:
            return _resolved[py]
        exe = py
        full = py if os.sep in py else shutil.which(py)
        if full and _is_script(full):
            try:
                out = subprocess.run([py, "-S", "-c", "import sys; sys.stdout.write(sys.executable)"],
                                     stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                                     timeout=30, check=True).stdout.decode().strip()
                if out and os.access(out, os.X_OK):
                    exe = out
            except (OSError, subprocess.SubprocessError):
                pass
        _resolved[py] = exe
        return exe


def script_path():
    return os.environ.get("FAKEWS_PY") or os.path.join(os.path.dirname(_HERE), "fakews", "fakews.py")


class FakeWS:
    """A fakews server process and its control API."""

    START_TIMEOUT = 60.0  # a wait, not a measure: ~0.5 s idle

    def __init__(self, log=None, args=()):
        self.proc = None
        self.port = None
        self.url = None
        self.host = "127.0.0.1"
        self._log = log
        self._args = list(args)
        self._dir = None
        self._conn = None
        self._lock = threading.Lock()

    # -- lifecycle -------------------------------------------------------
    def start(self):
        if self.proc is not None:
            return self
        self._dir = tempfile.mkdtemp(prefix="fakews.")
        port_file = os.path.join(self._dir, "port")
        cmd = [python_exe(), "-S", script_path(), "--port-file", port_file,
               "--parent-pid", str(os.getpid()), "--quiet"] + self._args
        if self._log:
            cmd += ["--log", self._log]
        self.proc = subprocess.Popen(cmd, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL)
        deadline = time.monotonic() + self.START_TIMEOUT
        while True:
            try:
                with open(port_file) as f:
                    text = f.read()
                if text.endswith("\n"):
                    self.port = int(text)
                    break
            except (OSError, ValueError):
                pass
            rc = self.proc.poll()
            if rc is not None:
                self.proc = None
                self._cleanup_dir()
                raise FakeWSError("fakews exited with status %d before listening (%s)" % (rc, cmd))
            if time.monotonic() > deadline:
                self.stop()
                raise FakeWSError("fakews did not start within %.0f s (%s)" % (self.START_TIMEOUT, cmd))
            time.sleep(0.005)
        self.url = "http://%s:%d" % (self.host, self.port)
        return self

    def stop(self):
        with self._lock:
            if self._conn is not None:
                self._conn.close()
                self._conn = None
        if self.proc is not None:
            self.proc.terminate()
            try:
                self.proc.wait(3)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
            self.proc = None
        self._cleanup_dir()

    def _cleanup_dir(self):
        if self._dir:
            shutil.rmtree(self._dir, ignore_errors=True)
            self._dir = None

    def __enter__(self):
        return self.start()

    def __exit__(self, *exc):
        self.stop()
        return False

    def __del__(self):
        try:
            if self.proc is not None:
                self.stop()
        except Exception:
            pass

    # -- raw calls -------------------------------------------------------
    def raw(self, method, path, body=None, headers=None):
        """One request to the server (control or API): (status, headers dict, body bytes)."""
        if self.port is None:
            raise FakeWSError("fakews is not running")
        if isinstance(body, (dict, list)):
            body = json.dumps(body).encode()
        elif isinstance(body, str):
            body = body.encode()
        hdrs = {"Content-Type": "application/json"}
        hdrs.update(headers or {})
        control = path.startswith("/__fakews/")
        with self._lock:
            for attempt in (0, 1):
                reused = self._conn is not None
                if self._conn is None:
                    self._conn = http.client.HTTPConnection(self.host, self.port, timeout=30)
                try:
                    self._conn.request(method, path, body=body, headers=hdrs)
                    r = self._conn.getresponse()
                    data = r.read()
                    rh = {k.lower(): v for k, v in r.getheaders()}
                    if r.getheader("Connection", "").lower() == "close":
                        self._conn.close()
                        self._conn = None
                    return r.status, rh, data
                except (OSError, http.client.HTTPException) as e:
                    self._conn.close()
                    self._conn = None
                    # Only a control call on a stale kept-alive connection is retried:
                    # an API call must never be replayed behind the caller's back.
                    if attempt or not (control and reused):
                        raise FakeWSError("fakews %s %s: %s" % (method, path, e))

    def call(self, method, path, body=None):
        """Control call: JSON in, JSON out; non-2xx raises FakeWSError."""
        status, _h, data = self.raw(method, path, body)
        if not 200 <= status <= 299:
            raise FakeWSError("fakews %s %s: HTTP %d: %s" % (method, path, status,
                                                             data.decode("utf-8", "replace")[:600]),
                              status, data)
        return json.loads(data) if data else {}

    # -- control API -----------------------------------------------------
    def reset(self):
        self.call("POST", "/__fakews/reset")

    def shutdown(self):
        self.call("POST", "/__fakews/shutdown")

    def config(self, **kw):
        """Merge keys into the configuration; returns the whole configuration."""
        return self.call("POST", "/__fakews/config", kw)

    def fault(self, **kw):
        """Add a fault rule (method, path, action, status, body, headers, times, after,
        delay_ms, query, body_contains); returns its id."""
        return self.call("POST", "/__fakews/faults", kw)["id"]

    def clear_faults(self):
        self.call("DELETE", "/__fakews/faults")

    def faults(self):
        return self.call("GET", "/__fakews/faults")["faults"]

    def requests(self, method=None, path=None, since=0, bodies=True):
        """Recorded API requests, oldest first; @path matches exactly or as a prefix
        when it ends with '*'; @method None or '*' matches any; bodies=False leaves
        out "body" and "body_b64"."""
        q = {"since": since}
        if method not in (None, "*"):
            q["method"] = method
        if path is not None:
            q["path"] = path
        if not bodies:
            q["bodies"] = "false"
        return self.call("GET", "/__fakews/requests?" + urllib.parse.urlencode(q))["requests"]

    def clear_requests(self):
        self.call("DELETE", "/__fakews/requests")

    def count(self, method=None, path=None):
        return len(self.requests(method, path, bodies=False))

    def last(self, method=None, path=None):
        reqs = self.requests(method, path)
        return reqs[-1] if reqs else None

    def files(self):
        """{"files": [{"path","size","sha256","kind"}], "dirs": [...]}"""
        return self.call("GET", "/__fakews/files")

    def file(self, path):
        """Raw bytes of an uploaded file, or None."""
        status, _h, data = self.raw("GET", "/__fakews/file?path=" + urllib.parse.quote(path, safe=""))
        if status == 404:
            return None
        if status != 200:
            raise FakeWSError("fakews file %s: HTTP %d" % (path, status), status, data)
        return data

    def put_file(self, path, data):
        """Store a workspace or volume file directly (parents created)."""
        if isinstance(data, str):
            data = data.encode()
        status, _h, body = self.raw("POST", "/__fakews/file?path=" + urllib.parse.quote(path, safe=""),
                                    data, {"Content-Type": "application/octet-stream"})
        if status != 200:
            raise FakeWSError("fakews put_file %s: HTTP %d: %s" % (path, status, body), status, body)

    def create_run(self, obj=None, **kw):
        """Create a run from a (partial) run object; returns its run id."""
        body = dict(obj or {})
        body.update(kw)
        return self.call("POST", "/__fakews/runs", body)["run_id"]

    def run(self, run_id):
        """Stored run with bookkeeping: {"run", "submitted", "submits", "cancels", ...}."""
        return self.call("GET", "/__fakews/runs/%s" % run_id)

    def runs(self):
        return self.call("GET", "/__fakews/runs")["runs"]

    def update_run(self, run_id, obj=None, **kw):
        body = dict(obj or {})
        body.update(kw)
        return self.call("POST", "/__fakews/runs/%s" % run_id, body)

    def delete_run(self, run_id):
        self.call("DELETE", "/__fakews/runs/%s" % run_id)

    def add_logs(self, run_id, records=None, synthetic=None):
        body = {}
        if records is not None:
            body["records"] = records
        if synthetic is not None:
            body["synthetic"] = synthetic
        return self.call("POST", "/__fakews/runs/%s/logs" % run_id, body)

    def set_output(self, run_id, obj):
        self.call("POST", "/__fakews/runs/%s/output" % run_id, obj)

    def mlflow(self, runs):
        return self.call("POST", "/__fakews/mlflow", {"runs": runs})

    def add_metrics(self, mlflow_run, metrics=None, synthetic=None, token_generation=None):
        """Append points to the metric histories of MLflow run @mlflow_run:
        metrics={"loss": [{"value", "step", "timestamp"}, ...]}."""
        body = {}
        if metrics is not None:
            body["metrics"] = metrics
        if synthetic is not None:
            body["synthetic"] = synthetic
        if token_generation is not None:
            body["token_generation"] = token_generation
        return self.call("POST", "/__fakews/mlflow/%s/metrics" % mlflow_run, body)

    def mlflow_run_of(self, run_id):
        """The MLflow run id the fake workspace gave run @run_id."""
        return self.run(run_id)["mlflow"]["run_id"]

    def policies(self, policies, page_size=None):
        body = {"policies": policies}
        if page_size is not None:
            body["page_size"] = page_size
        self.call("POST", "/__fakews/policies", body)

    def pools(self, pools, page_size=None):
        body = {"pools": pools}
        if page_size is not None:
            body["page_size"] = page_size
        self.call("POST", "/__fakews/pools", body)

    def images(self, images):
        return self.call("POST", "/__fakews/images", {"images": images})

    def api(self, method, path, body=None, token="dapi-test", headers=None):
        """Call a workspace API route as a client would: (status, headers, parsed JSON or bytes)."""
        h = dict(headers or {})
        if token is not None:
            h["Authorization"] = "Bearer " + token
        status, rh, data = self.raw(method, path, body, h)
        if rh.get("content-type", "").startswith("application/json") and data:
            return status, rh, json.loads(data)
        return status, rh, data


class FakeWSCase(unittest.TestCase):
    """Tests against one fake workspace (self.fw) for the whole class, reset
    before each test."""

    fw = None

    @classmethod
    def setUpClass(cls):
        cls.fw = FakeWS().start()

    @classmethod
    def tearDownClass(cls):
        cls.fw.stop()

    def setUp(self):
        self.fw.reset()
