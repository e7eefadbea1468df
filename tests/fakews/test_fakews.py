#!/usr/bin/env python3
"""Self-tests of the fake workspace server (tests/fakews/fakews.py).

Every endpoint, state transitions, paging, idempotency, fault actions, auth
checks and start-up time, through the Python driver and raw sockets.
"""
import base64
import http.client
import json
import math
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
import unittest
import urllib.parse

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "support"))
from fakews_client import FakeWS, FakeWSCase, FakeWSError, python_exe, script_path  # noqa: E402

USER = "tester@databricks.com"
HOME = "/Workspace/Users/" + USER
SUBMIT = "/api/2.2/jobs/runs/submit"
GET = "/api/2.2/jobs/runs/get"
OUTPUT = "/api/2.2/jobs/runs/get-output"
LIST = "/api/2.2/jobs/runs/list"
CANCEL = "/api/2.2/jobs/runs/cancel"
ME = "/api/2.0/preview/scim/v2/Me"
NS = 1000000000


def submit_body(token=None, name="smoke-test", accel="GPU_1xH100", count=1, **extra):
    b = {
        "run_name": name,
        "tasks": [{
            "task_key": name,
            "run_if": "ALL_SUCCESS",
            "environment_key": "default",
            "max_retries": 3,
            "retry_on_timeout": True,
            "ai_runtime_task": {
                "experiment": name,
                "deployments": [{"command_path": HOME + "/.air/cli_launch/x/command.sh",
                                 "compute": {"accelerator_type": accel, "accelerator_count": count}}],
            },
        }],
        "environments": [{"environment_key": "default", "spec": {"environment_version": "6"}}],
    }
    if token is not None:
        b["idempotency_token"] = token
    b.update(extra)
    return b


def RUN(rid, result, **kw):
    """The standard terminal run object (tests/runs/fixture.h)."""
    r = {"run_id": rid, "run_name": "smoke-test", "creator_user_name": USER,
         "start_time": 1700000000000, "end_time": 1700000012000,
         "state": {"life_cycle_state": "TERMINATED", "result_state": result},
         "tasks": [{"run_id": rid + 1, "attempt_number": 0, "max_retries": 3,
                    "ai_runtime_task": {"experiment": "smoke-test", "deployments": [
                        {"command_path": HOME + "/c.sh",
                         "compute": {"accelerator_type": "GPU_1xH100", "accelerator_count": 1}}]}}]}
    r.update(kw)
    return r


class Base(FakeWSCase):
    """One server per class, reset before every test."""

    def api(self, method, path, body=None, token="dapi-test", headers=None, query=None):
        if query:
            path += "?" + urllib.parse.urlencode(query)
        return self.fw.api(method, path, body, token, headers)

    def ok(self, method, path, body=None, query=None, status=200, **kw):
        st, _h, data = self.api(method, path, body, query=query, **kw)
        self.assertEqual(st, status, "%s %s -> %s %s" % (method, path, st, data))
        return data

    def err(self, method, path, body=None, query=None, status=400, code="INVALID_PARAMETER_VALUE", **kw):
        st, _h, data = self.api(method, path, body, query=query, **kw)
        self.assertEqual(st, status, "%s %s -> %s %s" % (method, path, st, data))
        if code is not None:
            self.assertEqual(data.get("error_code"), code, data)
        return data

    def submit(self, token=None, **kw):
        return self.ok("POST", SUBMIT, submit_body(token, **kw))["run_id"]

    def get(self, rid, **q):
        q["run_id"] = rid
        return self.ok("GET", GET, query=q)


def raw_exchange(port, data, read_until_close=True, timeout=5):
    s = socket.create_connection(("127.0.0.1", port), timeout=timeout)
    s.sendall(data)
    out = b""
    try:
        while True:
            chunk = s.recv(65536)
            if not chunk:
                break
            out += chunk
            if not read_until_close:
                break
    except socket.timeout:
        pass
    s.close()
    return out


# ---------------------------------------------------------------------------


class StartStop(unittest.TestCase):
    def start_raw(self, *args, stdout=subprocess.DEVNULL):
        d = tempfile.mkdtemp()
        self.addCleanup(shutil.rmtree, d, True)
        pf = os.path.join(d, "port")
        t0 = time.monotonic()
        p = subprocess.Popen([python_exe(), "-S", script_path(), "--port-file", pf] + list(args),
                             stdout=stdout)
        self.addCleanup(self.cleanup_proc, p)
        while not os.path.exists(pf):
            # a wait, not a measure (~0.5 s idle)
            if time.monotonic() - t0 > 60 or p.poll() is not None:
                self.fail("fakews did not start")
            time.sleep(0.002)
        with open(pf) as f:
            port = int(f.read())
        return p, port

    @staticmethod
    def cleanup_proc(p):
        if p.poll() is None:
            p.kill()
        p.wait()
        if p.stdout:
            p.stdout.close()

    def test_port_file_appears_once_the_socket_listens(self):
        # How fast it starts is measured by bench/, not asserted here.
        for _ in range(3):
            p, port = self.start_raw()
            s = socket.create_connection(("127.0.0.1", port), timeout=5)
            s.close()
            p.send_signal(signal.SIGTERM)
            self.assertEqual(p.wait(10), 0)

    def test_prints_url_and_stops_on_sigterm_and_sigint(self):
        for sig in (signal.SIGTERM, signal.SIGINT):
            p, port = self.start_raw(stdout=subprocess.PIPE)
            line = p.stdout.readline().decode()
            self.assertEqual(line.strip(), "fakews listening on http://127.0.0.1:%d" % port)
            p.send_signal(sig)
            self.assertEqual(p.wait(10), 0)

    def test_shutdown_endpoint(self):
        p, port = self.start_raw("--quiet")
        c = http.client.HTTPConnection("127.0.0.1", port, timeout=5)
        c.request("POST", "/__fakews/shutdown")
        self.assertEqual(c.getresponse().status, 200)
        c.close()
        self.assertEqual(p.wait(5), 0)

    def test_exits_when_parent_is_gone(self):
        parent = subprocess.Popen(["sleep", "0.3"])
        p, _port = self.start_raw("--quiet", "--parent-pid", str(parent.pid))
        parent.wait()
        self.assertEqual(p.wait(5), 0)

    def test_options_token_user_config_and_log(self):
        d = tempfile.mkdtemp()
        self.addCleanup(shutil.rmtree, d, True)
        log = os.path.join(d, "log")
        p, port = self.start_raw("--quiet", "--token", "t1", "--token", "t2", "--user", "u@x.com",
                                    "--config", '{"latency_ms": 1, "features": {"logs": false}}',
                                    "--log", log)
        try:
            c = http.client.HTTPConnection("127.0.0.1", port, timeout=5)
            c.request("GET", ME, headers={"Authorization": "Bearer t2"})
            r = c.getresponse()
            self.assertEqual(json.loads(r.read())["userName"], "u@x.com")
            c.request("POST", "/__fakews/reset")
            c.getresponse().read()
            c.request("GET", "/__fakews/config")
            cfg = json.loads(c.getresponse().read())
            self.assertEqual(cfg["tokens"], ["t1", "t2"])
            self.assertEqual(cfg["latency_ms"], 1)
            self.assertEqual(cfg["features"], {"logs": False, "preflight": True,
                                               "workflows_index": True, "pools": True})
            c.close()
            with open(log) as f:
                self.assertIn("GET /api/2.0/preview/scim/v2/Me -> 200", f.read())
        finally:
            p.terminate()
            p.wait(5)

    def test_driver_context_manager(self):
        with FakeWS() as fw:
            pid = fw.call("GET", "/__fakews/health")["pid"]
            self.assertTrue(fw.url.startswith("http://127.0.0.1:"))
        with self.assertRaises(ProcessLookupError):
            for _ in range(100):
                os.kill(pid, 0)
                time.sleep(0.01)


class Http(Base):
    def test_keep_alive_reuses_the_connection(self):
        c = http.client.HTTPConnection("127.0.0.1", self.fw.port, timeout=5)
        socks = set()
        for path in (ME, "/nope", ME):
            c.request("GET", path, headers={"Authorization": "Bearer dapi-test"})
            r = c.getresponse()
            r.read()
            self.assertIsNone(r.getheader("Connection"))
            socks.add(id(c.sock))
        self.assertEqual(len(socks), 1)
        c.close()

    def test_content_length_everywhere(self):
        raw = raw_exchange(self.fw.port, b"GET /nope HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
        head, _, body = raw.partition(b"\r\n\r\n")
        self.assertIn(b"HTTP/1.1 404", head)
        self.assertIn(b"Content-Length: %d" % len(body), head)
        self.assertIn(b"Connection: close", head)
        self.assertEqual(json.loads(body), {"error_code": "ENDPOINT_NOT_FOUND", "message": "no route"})
        raw = raw_exchange(self.fw.port, b"HEAD / HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
        self.assertTrue(raw.startswith(b"HTTP/1.1 200"))
        self.assertIn(b"Content-Length: 0\r\n", raw)
        self.assertTrue(raw.endswith(b"\r\n\r\n"))

    def test_head_has_headers_but_no_body(self):
        self.fw.put_file("/Volumes/main/default/v/a.bin", b"12345")
        s = socket.create_connection(("127.0.0.1", self.fw.port), timeout=5)
        s.sendall(b"HEAD /api/2.0/fs/files/Volumes/main/default/v/a.bin HTTP/1.1\r\nHost: x\r\n"
                  b"Authorization: Bearer dapi-test\r\n\r\n"
                  b"GET /nope HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
        out = b""
        while True:
            d = s.recv(65536)
            if not d:
                break
            out += d
        s.close()
        first, _, rest = out.partition(b"\r\n\r\n")
        self.assertIn(b"HTTP/1.1 200", first)
        self.assertIn(b"Content-Length: 5", first)
        self.assertTrue(rest.startswith(b"HTTP/1.1 404"), rest[:40])

    def test_chunked_request_body(self):
        s = socket.create_connection(("127.0.0.1", self.fw.port), timeout=5)
        s.sendall(b"PUT /api/2.0/fs/files/Volumes/c/s/v/x.txt?overwrite=true HTTP/1.1\r\nHost: x\r\n"
                  b"Authorization: Bearer dapi-test\r\nTransfer-Encoding: chunked\r\nConnection: close\r\n\r\n"
                  b"5\r\nhello\r\n6\r\n world\r\n0\r\n\r\n")
        out = s.recv(65536)
        s.close()
        self.assertTrue(out.startswith(b"HTTP/1.1 204"), out)
        self.assertEqual(self.fw.file("/Volumes/c/s/v/x.txt"), b"hello world")

    def test_expect_100_continue(self):
        s = socket.create_connection(("127.0.0.1", self.fw.port), timeout=5)
        body = json.dumps({"path": HOME + "/e"}).encode()
        s.sendall(b"POST /api/2.0/workspace/mkdirs HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer dapi-test\r\n"
                  b"Content-Length: %d\r\nExpect: 100-continue\r\n\r\n" % len(body))
        self.assertTrue(s.recv(100).startswith(b"HTTP/1.1 100"))
        s.sendall(body)
        self.assertTrue(s.recv(1000).startswith(b"HTTP/1.1 200"))
        s.close()

    def test_fixed_routes(self):
        self.err("GET", "/.well-known/databricks-config", token=None, status=404, code="ENDPOINT_NOT_FOUND")
        self.fw.config(host_metadata={"workspace_id": "42", "host_type": "workspace"})
        self.assertEqual(self.ok("GET", "/.well-known/databricks-config", token=None)["workspace_id"], "42")
        st, h, body = self.api("HEAD", "/", token=None)
        self.assertEqual((st, body), (200, b""))
        self.err("GET", "/api/2.0/nothing/here", status=404, code="ENDPOINT_NOT_FOUND")
        self.err("DELETE", SUBMIT, status=404, code="ENDPOINT_NOT_FOUND")
        self.err("GET", "/", status=404, code="ENDPOINT_NOT_FOUND")

    def test_request_ids(self):
        st, h, _ = self.api("GET", ME)
        self.assertTrue(h["x-request-id"].startswith("fakews-"))


class Control(Base):
    def test_reset_restores_everything(self):
        self.fw.config(user="a@b.com", latency_ms=1, features={"logs": False})
        self.fw.fault(path="/x")
        self.submit("t")
        self.ok("POST", "/api/2.0/workspace/mkdirs", {"path": "/Workspace/Shared/d"})
        self.fw.mlflow({"r": {"artifacts": {"a": "b"}}})
        self.fw.reset()
        cfg = self.fw.call("GET", "/__fakews/config")
        self.assertEqual(cfg["user"], USER)
        self.assertEqual(cfg["latency_ms"], 0)
        self.assertTrue(cfg["features"]["logs"])
        self.assertEqual(cfg["next_run_id"], 555)
        self.assertEqual(self.fw.faults(), [])
        self.assertEqual(self.fw.requests(), [])
        self.assertEqual(self.fw.runs(), [])
        self.assertNotIn("/Workspace/Shared/d", self.fw.files()["dirs"])
        self.assertEqual(self.fw.call("GET", "/__fakews/mlflow")["runs"], {})
        self.assertEqual(self.submit("t"), 555)

    def test_connections_are_counted_per_reset(self):
        """A connection open at a reset counts again only once it makes a
        request after it: one that stays idle, or is closed, never counts
        against what comes next, even before the server has seen it end."""
        def used():
            c = http.client.HTTPConnection("127.0.0.1", self.fw.port, timeout=5)
            c.request("GET", ME, headers={"Authorization": "Bearer dapi-test"})
            c.getresponse().read()
            return c

        idle, kept = used(), used()
        before = self.fw.call("GET", "/__fakews/connections")
        self.assertEqual((before["open"], before["max_open"], before["accepted"]), (2, 2, 2))
        self.fw.reset()
        self.assertEqual(self.fw.call("GET", "/__fakews/connections"),
                         {"open": 0, "max_open": 0, "accepted": 0})
        kept.request("GET", ME, headers={"Authorization": "Bearer dapi-test"})
        kept.getresponse().read()
        fresh = used()
        now = self.fw.call("GET", "/__fakews/connections")
        self.assertEqual((now["open"], now["max_open"], now["accepted"]), (2, 2, 2))
        for c in (idle, kept, fresh):
            c.close()

    def test_config_merges_and_rejects_unknown_keys(self):
        cfg = self.fw.config(features={"logs": False}, lifecycle={"running_ms": 5})
        self.assertEqual(cfg["features"], {"logs": False, "preflight": True, "workflows_index": True,
                                           "pools": True})
        self.assertEqual(cfg["lifecycle"]["running_ms"], 5)
        self.assertEqual(cfg["lifecycle"]["result"], "SUCCESS")
        cfg = self.fw.config(preflight={})
        self.assertEqual(cfg["preflight"], {})
        with self.assertRaises(FakeWSError) as cm:
            self.fw.config(latency=3)
        self.assertEqual(cm.exception.status, 400)
        self.assertEqual(self.fw.config(next_run_id=334747067049496)["next_run_id"], 334747067049496)
        self.assertEqual(self.submit(), 334747067049496)

    def test_requests_are_recorded(self):
        body = b"\xff\xfe binary"
        self.api("POST", "/api/2.0/workspace-files/import-file/Workspace%2FUsers%2Ftester%40databricks.com%2Fb.bin",
                 body, query=None, headers={"X-Extra": "1"})
        self.api("GET", GET + "?run_id=1&run_id=2&flag")
        self.fw.call("GET", "/__fakews/config")  # control calls are not recorded
        reqs = self.fw.requests()
        self.assertEqual(len(reqs), 2)
        r = reqs[0]
        self.assertEqual(r["seq"], 1)
        self.assertEqual(r["method"], "POST")
        self.assertEqual(r["path"], "/api/2.0/workspace-files/import-file/Workspace/Users/tester@databricks.com/b.bin")
        self.assertEqual(r["raw_path"],
                         "/api/2.0/workspace-files/import-file/Workspace%2FUsers%2Ftester%40databricks.com%2Fb.bin")
        self.assertIsNone(r["body"])
        self.assertEqual(base64.b64decode(r["body_b64"]), body)
        self.assertEqual(r["headers"]["authorization"], "Bearer dapi-test")
        self.assertEqual(r["headers"]["x-extra"], "1")
        self.assertEqual(r["status"], 200)
        self.assertLess(abs(r["time_ms"] - time.time() * 1000), 10000)
        self.assertEqual(reqs[1]["query"], {"run_id": ["1", "2"], "flag": [""]})
        self.assertEqual(reqs[1]["body"], "")
        self.assertEqual(reqs[1]["status"], 400)
        self.assertEqual([x["seq"] for x in self.fw.requests(since=1)], [2])
        lean = self.fw.call("GET", "/__fakews/requests?method=POST&path=/api/2.0/workspace-files/*&bodies=false")
        self.assertEqual([x["seq"] for x in lean["requests"]], [1])
        self.assertNotIn("body_b64", lean["requests"][0])
        self.assertEqual(self.fw.requests("GET", GET)[0]["seq"], 2)
        self.assertEqual(self.fw.requests("*", "/api/2.2/jobs/runs/ge")[:], [])
        self.assertEqual(self.fw.count("GET", GET), 1)
        self.assertEqual(self.fw.count(None, "/api/2.0/*"), 1)
        self.fw.clear_requests()
        self.assertEqual(self.fw.requests(), [])
        self.fw.config(record_requests=False)
        self.api("GET", ME)
        self.assertEqual(self.fw.requests(), [])

    def test_unknown_control_route(self):
        with self.assertRaises(FakeWSError) as cm:
            self.fw.call("GET", "/__fakews/nothing")
        self.assertEqual(cm.exception.status, 404)

    def test_put_file_and_files_listing(self):
        self.fw.put_file(HOME + "/x/y.txt", "hi")
        self.fw.put_file("/Volumes/c/s/v/z", b"\x00")
        files = self.fw.files()
        self.assertEqual([(f["path"], f["size"], f["kind"]) for f in files["files"]],
                         [("/Volumes/c/s/v/z", 1, "volume"), (HOME + "/x/y.txt", 2, "workspace")])
        self.assertEqual(files["files"][1]["sha256"],
                         "8f434346648f6b96df89dda901c5176b10a6d83961dd3c1ac88b59b2dc327aa4")
        self.assertIn(HOME + "/x", files["dirs"])
        self.assertEqual(self.fw.file(HOME + "/x/y.txt"), b"hi")
        self.assertEqual(self.fw.file("/Users/%s/x/y.txt" % USER), b"hi")
        self.assertIsNone(self.fw.file(HOME + "/none"))


class Auth(Base):
    def test_bearer_tokens(self):
        self.err("GET", ME, token=None, status=401, code="UNAUTHENTICATED")
        self.err("GET", ME, token="nope", status=401, code="UNAUTHENTICATED")
        self.err("GET", "/api/2.0/anything", token="nope", status=401, code="UNAUTHENTICATED")
        self.ok("GET", ME)
        self.fw.config(tokens=["a", "b"])
        self.ok("GET", ME, token="b")
        self.err("GET", ME, status=401, code="UNAUTHENTICATED")
        self.fw.config(tokens=[])
        self.ok("GET", ME, token="whatever")
        self.ok("GET", ME, token=None)

    def test_basic_auth(self):
        self.fw.config(basic_auth={"u": "p w"})
        cred = base64.b64encode(b"u:p w").decode()
        self.ok("GET", ME, token=None, headers={"Authorization": "Basic " + cred})
        bad = base64.b64encode(b"u:x").decode()
        self.err("GET", ME, token=None, headers={"Authorization": "Basic " + bad}, status=401,
                 code="UNAUTHENTICATED")

    def test_unauthenticated_routes(self):
        self.ok("GET", "/oidc/.well-known/oauth-authorization-server", token=None)
        st, _h, _b = self.api("HEAD", "/", token=None)
        self.assertEqual(st, 200)


class Oidc(Base):
    def token(self, form, headers=None):
        h = {"Content-Type": "application/x-www-form-urlencoded"}
        h.update(headers or {})
        return self.api("POST", "/oidc/v1/token", urllib.parse.urlencode(form), token=None, headers=h)

    def test_discovery(self):
        d = self.ok("GET", "/oidc/.well-known/oauth-authorization-server", token=None)
        self.assertEqual(d["token_endpoint"], "%s/oidc/v1/token" % self.fw.url)
        self.assertEqual(d["authorization_endpoint"], "%s/oidc/v1/authorize" % self.fw.url)

    def test_client_credentials(self):
        self.fw.config(oauth={"clients": {"cid": "s3cr t"}, "expires_in": 3600})
        basic = base64.b64encode(b"cid:s3cr+t").decode()
        st, _h, body = self.token({"grant_type": "client_credentials", "scope": "all-apis"},
                                  {"Authorization": "Basic " + basic})
        self.assertEqual(st, 200, body)
        self.assertEqual(body, {"access_token": "at-1", "token_type": "Bearer", "expires_in": 3600,
                                "scope": "all-apis"})
        self.ok("GET", ME, token="at-1")
        req = self.fw.last("POST", "/oidc/v1/token")
        self.assertEqual(req["body"], "grant_type=client_credentials&scope=all-apis")
        # client_secret_post works too
        st, _h, body = self.token({"grant_type": "client_credentials", "client_id": "cid",
                                   "client_secret": "s3cr t"})
        self.assertEqual((st, body["access_token"]), (200, "at-2"))
        wrong = base64.b64encode(b"cid:nope").decode()
        st, _h, body = self.token({"grant_type": "client_credentials"}, {"Authorization": "Basic " + wrong})
        self.assertEqual((st, body["error"]), (401, "invalid_client"))

    def test_issued_tokens_expire(self):
        self.fw.config(oauth={"clients": {"c": "s"}, "expires_in": 1})
        st, _h, body = self.token({"grant_type": "client_credentials"},
                                  {"Authorization": "Basic " + base64.b64encode(b"c:s").decode()})
        self.assertEqual(body["expires_in"], 1)
        self.ok("GET", ME, token=body["access_token"])
        time.sleep(1.1)
        self.err("GET", ME, token=body["access_token"], status=401, code="UNAUTHENTICATED")

    def test_refresh_token(self):
        self.fw.config(oauth={"refresh_tokens": {"rt": {"access_token": "new", "refresh_token": "rt2"},
                                                 "plain": {}}})
        st, _h, body = self.token({"grant_type": "refresh_token", "refresh_token": "rt",
                                   "client_id": "databricks-cli"})
        self.assertEqual(st, 200, body)
        self.assertEqual((body["access_token"], body["refresh_token"], body["token_type"]),
                         ("new", "rt2", "Bearer"))
        self.ok("GET", ME, token="new")
        # the new refresh token is valid; a generated one is issued for it
        st, _h, body = self.token({"grant_type": "refresh_token", "refresh_token": "rt2",
                                   "client_id": "databricks-cli"})
        self.assertEqual(st, 200)
        self.assertTrue(body["access_token"].startswith("at-"))
        self.ok("GET", ME, token=body["access_token"])
        st, _h, body = self.token({"grant_type": "refresh_token", "refresh_token": "bogus",
                                   "client_id": "databricks-cli"})
        self.assertEqual((st, body["error"]), (400, "invalid_grant"))
        st, _h, body = self.token({"grant_type": "refresh_token", "refresh_token": "plain",
                                   "client_id": "other"})
        self.assertEqual((st, body["error"]), (401, "invalid_client"))
        st, _h, body = self.token({"grant_type": "password"})
        self.assertEqual((st, body["error"]), (400, "unsupported_grant_type"))


class Faults(Base):
    def test_status_fault_with_times_and_after(self):
        self.fw.fault(method="POST", path=SUBMIT, action="status", status=503,
                      body={"error_code": "TEMPORARILY_UNAVAILABLE", "message": "busy"},
                      headers={"Retry-After": "2"}, times=2, after=1)
        self.assertEqual(self.submit(), 555)
        for _ in range(2):
            st, h, body = self.api("POST", SUBMIT, submit_body())
            self.assertEqual(st, 503)
            self.assertEqual(h["retry-after"], "2")
            self.assertEqual(body["error_code"], "TEMPORARILY_UNAVAILABLE")
        self.assertEqual(self.submit(), 557)
        self.assertEqual(len(self.fw.runs()), 2)
        f = self.fw.faults()[0]
        self.assertEqual((f["seen"], f["applied"]), (4, 2))
        self.assertEqual([r["fault"] for r in self.fw.requests()], [None, 1, 1, None])

    def test_fault_headers_replace_the_request_id(self):
        self.fw.fault(path=GET, status=403, body={"error_code": "PERMISSION_DENIED"},
                      headers={"x-request-id": "req-403"})
        raw = raw_exchange(self.fw.port, b"GET /api/2.2/jobs/runs/get?run_id=1 HTTP/1.1\r\nHost: x\r\n"
                           b"Connection: close\r\n\r\n")
        self.assertEqual(raw.lower().count(b"x-request-id:"), 1)
        self.assertIn(b"x-request-id: req-403", raw)

    def test_text_body_prefix_and_any_method(self):
        self.fw.fault(method="*", path="/api/2.0/workspace-files/import-file/*", status=500,
                      body="INTERNAL_ERROR: oops", times=-1)
        for _ in range(3):
            st, h, body = self.api("POST", "/api/2.0/workspace-files/import-file/Workspace%2Fx")
            self.assertEqual((st, body), (500, b"INTERNAL_ERROR: oops"))
            self.assertTrue(h["content-type"].startswith("text/plain"))
        self.fw.clear_faults()
        self.err("POST", "/api/2.0/workspace-files/import-file/Workspace%2Fx%2Fy", status=404,
                 code="RESOURCE_DOES_NOT_EXIST")

    def test_query_and_body_filters(self):
        self.fw.fault(path=GET, query={"run_id": "7"}, status=404,
                      body={"error_code": "RESOURCE_DOES_NOT_EXIST", "message": "gone"}, times=-1)
        self.fw.fault(path=CANCEL, body_contains='"run_id": 8', status=500, times=-1)
        self.fw.create_run(RUN(7, "SUCCESS"))
        self.fw.create_run(RUN(10, "SUCCESS"))
        self.err("GET", GET, query={"run_id": 7}, status=404, code="RESOURCE_DOES_NOT_EXIST")
        self.get(10)
        st, _h, _b = self.api("POST", CANCEL, '{"run_id": 8}')
        self.assertEqual(st, 500)
        self.ok("POST", CANCEL, {"run_id": 10})

    def test_reset_before_has_no_side_effects(self):
        self.fw.fault(method="POST", path=SUBMIT, action="reset_before")
        with self.assertRaises(FakeWSError) as cm:
            self.api("POST", SUBMIT, submit_body("tok"))
        self.assertIn("reset", str(cm.exception).lower())
        self.assertEqual(self.fw.runs(), [])
        r = self.fw.requests()[0]
        self.assertIsNone(r["status"])
        self.assertEqual(r["fault"], 1)
        self.assertEqual(self.submit("tok"), 555)

    def test_reset_after_keeps_side_effects(self):
        self.fw.fault(method="POST", path=SUBMIT, action="reset_after")
        with self.assertRaises(FakeWSError):
            self.api("POST", SUBMIT, submit_body("tok"))
        self.assertEqual(len(self.fw.runs()), 1)
        self.assertEqual(self.fw.requests()[0]["status"], 200)
        # the client's retry with the same token gets the same run
        self.assertEqual(self.submit("tok"), 555)
        self.assertEqual(len(self.fw.runs()), 1)
        self.assertEqual(self.fw.run(555)["submits"], 2)

    def test_reset_is_a_tcp_rst(self):
        self.fw.fault(path=ME, action="reset_after")
        s = socket.create_connection(("127.0.0.1", self.fw.port), timeout=5)
        s.sendall(b"GET %s HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer dapi-test\r\n\r\n" % ME.encode())
        with self.assertRaises(ConnectionResetError):
            s.recv(100)
        s.close()

    def test_delay(self):
        self.fw.fault(path=ME, action="delay", delay_ms=800)
        t0 = time.monotonic()
        self.ok("GET", ME)
        self.assertGreaterEqual(time.monotonic() - t0, 0.8)
        self.ok("GET", ME)  # the fault was for one request only
        rules = self.fw.faults()
        self.assertEqual([(r["seen"], r["applied"]) for r in rules], [(2, 1)])

    def test_endless_body_goes_on_until_the_client_leaves(self):
        self.fw.fault(path=ME, action="endless", chunk_bytes=1000)
        s = socket.create_connection(("127.0.0.1", self.fw.port), timeout=10)
        s.sendall(b"GET %s HTTP/1.1\r\nHost: x\r\n\r\n" % ME.encode())
        got = b""
        while len(got) < 200000:  # far more than any reply of the endpoint
            chunk = s.recv(65536)
            self.assertTrue(chunk, "the endless body ended after %d bytes" % len(got))
            got += chunk
        s.close()
        head = got.split(b"\r\n\r\n", 1)[0].lower()
        self.assertTrue(head.startswith(b"http/1.1 200"))
        self.assertIn(b"transfer-encoding: chunked", head)
        self.assertNotIn(b"content-length", head)
        self.assertTrue(b'{"filler": "' in got and b"x" * 1000 in got)
        # the request was not handled; the server still answers others
        self.ok("GET", ME)

    def test_endless_body_stops_at_its_limit(self):
        self.fw.fault(path=ME, action="endless", body="[", chunk_bytes=100, limit_bytes=1000,
                      status=503)
        raw = raw_exchange(self.fw.port, b"GET %s HTTP/1.1\r\nHost: x\r\n\r\n" % ME.encode())
        self.assertTrue(raw.startswith(b"HTTP/1.1 503"))
        self.assertTrue(raw.endswith(b"0\r\n\r\n"))
        self.assertEqual(raw.count(b"x" * 100), 10)

    def test_trickle_sends_the_real_reply_slowly(self):
        self.fw.fault(path=SUBMIT, action="trickle", chunk_bytes=4, interval_ms=50)
        t0 = time.monotonic()
        st, _h, data = self.api("POST", SUBMIT, submit_body("tok"))
        took = time.monotonic() - t0
        self.assertEqual((st, data), (200, {"run_id": 555}))  # handled: the run exists
        # '{"run_id":555}' is 14 bytes: four chunks, three pauses of 50 ms
        self.assertGreaterEqual(took, 0.15)
        self.assertEqual(len(self.fw.runs()), 1)
        self.fw.fault(path=ME, action="trickle", chunk_bytes=100, interval_ms=0)
        raw = raw_exchange(self.fw.port, b"GET %s HTTP/1.1\r\nHost: x\r\nConnection: close\r\n"
                           b"Authorization: Bearer dapi-test\r\n\r\n" % ME.encode())
        self.assertIn(b"transfer-encoding: chunked", raw.lower())
        self.assertIn(b"\r\n64\r\n", raw)  # 100-byte chunks

    def test_trickle_with_its_own_body(self):
        self.fw.fault(path=ME, action="trickle", status=503, body={"error_code": "X"},
                      chunk_bytes=100, interval_ms=0)
        st, _h, data = self.api("GET", ME)
        self.assertEqual((st, data), (503, {"error_code": "X"}))

    def test_truncate_declares_more_than_it_sends(self):
        self.fw.fault(method="POST", path=SUBMIT, action="truncate")
        body = json.dumps(submit_body("tok")).encode()
        raw = raw_exchange(self.fw.port, b"POST %s HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer "
                           b"dapi-test\r\nContent-Length: %d\r\n\r\n%s" % (SUBMIT.encode(), len(body), body))
        head, _, rest = raw.partition(b"\r\n\r\n")
        declared = int([ln.split(b":")[1] for ln in head.lower().split(b"\r\n")
                        if ln.startswith(b"content-length:")][0])
        self.assertEqual(declared, len(b'{"run_id":555}') + 1024)
        self.assertEqual(rest, b'{"run_i')  # half of the body, then the connection closed
        self.assertEqual(len(self.fw.runs()), 1)  # the request was handled
        with self.assertRaises(http.client.IncompleteRead):
            self.fw.fault(path=ME, action="truncate", keep_bytes=3)
            c = http.client.HTTPConnection("127.0.0.1", self.fw.port, timeout=10)
            c.request("GET", ME, headers={"Authorization": "Bearer dapi-test"})
            c.getresponse().read()

    def test_echo_quotes_the_credentials_it_received(self):
        self.fw.fault(method="POST", path="/oidc/v1/token", action="echo", status=401)
        st, _h, data = self.api("POST", "/oidc/v1/token", "grant_type=client_credentials",
                                token=None, headers={"Authorization": "Basic c2VjcmV0"})
        self.assertEqual(st, 401)
        self.assertEqual(data["error"], "invalid_client")
        self.assertIn("Basic c2VjcmV0", data["error_description"])
        self.assertIn("grant_type=client_credentials", data["error_description"])
        self.fw.fault(path=ME, action="echo", body="got {authorization} and {body}!")
        st, h, data = self.api("GET", ME)
        self.assertEqual((st, data), (500, b"got Bearer dapi-test and !"))
        self.assertTrue(h["content-type"].startswith("text/plain"))

    def test_repeat_serves_the_previous_reply_of_the_path(self):
        self.fw.create_run(RUN(7, "SUCCESS"))
        self.fw.create_run(RUN(10, "FAILED"))
        self.fw.fault(path=GET, action="repeat", after=1, times=1)
        self.assertEqual(self.get(7)["state"]["result_state"], "SUCCESS")
        self.fw.update_run(7, {"state": {"life_cycle_state": "TERMINATED", "result_state": "FAILED"}})
        # the second request gets the first one's reply: the stale state
        self.assertEqual(self.get(7)["state"]["result_state"], "SUCCESS")
        self.assertEqual(self.get(7)["state"]["result_state"], "FAILED")
        self.assertEqual(self.fw.faults()[0]["applied"], 1)

    def test_repeat_is_kept_per_path(self):
        self.fw.fault(path="/api/2.0/ai-training/workflows/by-run-id/*", action="repeat",
                      after=2, times=1)
        a = self.fw.create_run(RUN(7, "SUCCESS"))
        b = self.fw.create_run(RUN(10, "SUCCESS"))
        self.fw.add_logs(a, records=[{"time_unix_nano": NS, "body": "a"}])
        self.fw.add_logs(b, records=[{"time_unix_nano": NS, "body": "b"}])
        logs = "/api/2.0/ai-training/workflows/by-run-id/%d/logs"
        self.assertEqual(self.ok("GET", logs % a)["log_records"][0]["body"], "a")
        self.assertEqual(self.ok("GET", logs % b)["log_records"][0]["body"], "b")
        self.fw.add_logs(a, records=[{"time_unix_nano": 2 * NS, "body": "a2"}])
        self.assertEqual(len(self.ok("GET", logs % a)["log_records"]), 1)  # repeated: a's own
        self.assertEqual(len(self.ok("GET", logs % a)["log_records"]), 2)

    def test_probability_applies_a_rule_to_a_share_of_requests(self):
        self.fw.fault(path=ME, status=503, times=-1, probability=0.25, seed=7)
        codes = [self.api("GET", ME)[0] for _ in range(400)]
        failed = codes.count(503)
        self.assertTrue(50 <= failed <= 150, failed)  # 100 expected
        self.assertEqual(codes.count(200) + failed, 400)
        self.assertEqual(self.fw.faults()[0]["applied"], failed)
        # the same seed gives the same sequence
        self.fw.clear_faults()
        self.fw.fault(path=ME, status=503, times=-1, probability=0.25, seed=7)
        self.assertEqual([self.api("GET", ME)[0] for _ in range(400)], codes)

    def test_bad_rules_are_rejected(self):
        for rule in ({"path": "/x", "action": "explode"}, {"action": "status"}, {"path": "/x", "times": "a"},
                     {"path": "/x", "probability": 2}, {"path": "/x", "action": "echo", "body": {}}):
            with self.assertRaises(FakeWSError) as cm:
                self.fw.fault(**rule)
            self.assertEqual(cm.exception.status, 400)

    def test_latency_is_concurrent(self):
        # Each submission is held 3 s: one at a time, 16 would take 48 s;
        # served concurrently about 3 s. The bound is ten times that.
        self.fw.fault(path=SUBMIT, action="delay", delay_ms=3000, times=-1)
        n_threads, per = 16, 1
        errors = []

        def worker():
            c = http.client.HTTPConnection("127.0.0.1", self.fw.port, timeout=60)
            for i in range(per):
                c.request("POST", SUBMIT, json.dumps(submit_body()),
                          {"Authorization": "Bearer dapi-test", "Content-Type": "application/json"})
                r = c.getresponse()
                r.read()
                if r.status != 200:
                    errors.append(r.status)
            c.close()
        t0 = time.monotonic()
        ts = [threading.Thread(target=worker) for _ in range(n_threads)]
        for t in ts:
            t.start()
        for t in ts:
            t.join()
        took = time.monotonic() - t0
        self.assertEqual(errors, [])
        self.assertLess(took, 30, "one at a time: >= 48 s")
        runs = self.fw.runs()
        self.assertEqual(len(runs), n_threads * per)
        ids = {r["run"]["run_id"] for r in runs}
        self.assertEqual(len(ids), n_threads * per)


class Identity(Base):
    def test_scim_me(self):
        st, h, body = self.api("GET", ME)
        self.assertEqual(body["userName"], USER)
        self.assertEqual(h["x-databricks-org-id"], "900800700600500")
        self.assertIn("entitlements", body)
        st, h, body = self.api("GET", ME + "?excludedAttributes=entitlements")
        self.assertNotIn("entitlements", body)
        self.fw.config(org_id=None, user="sp-1234")
        st, h, body = self.api("GET", ME)
        self.assertNotIn("x-databricks-org-id", h)
        self.assertEqual(body["userName"], "sp-1234")
        self.assertEqual(self.ok("GET", "/api/2.0/workspace/get-status",
                                 query={"path": "/Workspace/Users/sp-1234"})["object_type"], "DIRECTORY")


class Preflight(Base):
    PATH = "/api/2.0/ai-training/config:validate"
    BODY = {"task": {"experiment": "e", "deployments": [{"command_path": "/c.sh"}]}}

    def test_reply_and_feature_switch(self):
        self.assertEqual(self.ok("POST", self.PATH, self.BODY), {"errors": []})
        errs = {"errors": [{"path": "experiment", "message": "bad", "code": "DISALLOWED_CHARACTERS"}]}
        self.fw.config(preflight=errs)
        self.assertEqual(self.ok("POST", self.PATH, self.BODY), errs)
        self.err("POST", self.PATH, "{not json")
        self.err("POST", self.PATH, {"run_options": {}})
        self.fw.config(features={"preflight": False})
        self.err("POST", self.PATH, self.BODY, status=400, code="FEATURE_DISABLED")
        self.fw.config(features={"preflight": "ENDPOINT_NOT_FOUND"})
        self.err("POST", self.PATH, self.BODY, status=404, code="ENDPOINT_NOT_FOUND")


class Workspace(Base):
    def import_file(self, path, data, literal=False, overwrite=True):
        enc = path.lstrip("/") if literal else urllib.parse.quote(path.lstrip("/"), safe="@")
        q = "?overwrite=true" if overwrite else ""
        return self.api("POST", "/api/2.0/workspace-files/import-file/" + enc + q, data)

    def status(self, path):
        return self.api("GET", "/api/2.0/workspace/get-status", query={"path": path})

    def test_initial_tree(self):
        for d in ("/Workspace", "/Workspace/Users", HOME, "/Workspace/Shared", "/Volumes", "/Users/" + USER):
            st, _h, body = self.status(d)
            self.assertEqual((st, body["object_type"], body["path"]), (200, "DIRECTORY", d))
        st, _h, body = self.status(HOME + "/.air")
        self.assertEqual((st, body["error_code"]), (404, "RESOURCE_DOES_NOT_EXIST"))

    def test_mkdirs_import_export(self):
        launch = HOME + "/.air/cli_launch/smoke-test/smoke-test_0123456789abcdef"
        st, _h, body = self.import_file(launch + "/command.sh", b"python train.py")
        self.assertEqual((st, body["error_code"]), (404, "RESOURCE_DOES_NOT_EXIST"))
        self.ok("POST", "/api/2.0/workspace/mkdirs", {"path": launch})
        self.ok("POST", "/api/2.0/workspace/mkdirs", {"path": launch})  # idempotent
        self.assertEqual(self.status(HOME + "/.air/cli_launch")[2]["object_type"], "DIRECTORY")
        st, _h, body = self.import_file(launch + "/command.sh", b"python train.py")
        self.assertEqual((st, body), (200, {}))
        st, _h, body = self.import_file(launch + "/training_config.yaml", b"a: 1\n", literal=True)
        self.assertEqual((st, body), (200, {}))
        self.assertEqual(self.fw.file(launch + "/command.sh"), b"python train.py")
        self.assertEqual(self.fw.file(launch + "/training_config.yaml"), b"a: 1\n")
        st, _h, body = self.status(launch + "/command.sh")
        self.assertEqual((body["object_type"], body["path"], body["size"]), ("FILE", launch + "/command.sh", 15))
        st, _h, body = self.api("GET", "/api/2.0/workspace/get-status",
                                query={"path": launch + "/command.sh", "return_export_info": "true"})
        self.assertEqual(st, 200)
        # overwrite
        self.import_file(launch + "/command.sh", b"v2")
        self.assertEqual(self.fw.file(launch + "/command.sh"), b"v2")
        st, _h, body = self.import_file(launch + "/command.sh", b"v3", overwrite=False)
        self.assertEqual(st, 409)
        self.assertIn("already exists.", body["message"])
        # export
        st, h, body = self.api("GET", "/api/2.0/workspace/export",
                               query={"path": launch + "/training_config.yaml", "direct_download": "true"})
        self.assertEqual((st, body), (200, b"a: 1\n"))
        body = self.ok("GET", "/api/2.0/workspace/export", query={"path": launch + "/training_config.yaml"})
        self.assertEqual(base64.b64decode(body["content"]), b"a: 1\n")
        self.err("GET", "/api/2.0/workspace/export", query={"path": launch + "/nope"}, status=404,
                 code="RESOURCE_DOES_NOT_EXIST")
        # /Users/... and /Workspace/Users/... are the same place
        self.assertEqual(self.status("/Users/%s/.air" % USER)[2]["object_type"], "DIRECTORY")
        kinds = {f["path"]: f["kind"] for f in self.fw.files()["files"]}
        self.assertEqual(kinds, {launch + "/command.sh": "workspace", launch + "/training_config.yaml": "workspace"})

    def test_bad_paths(self):
        self.err("POST", "/api/2.0/workspace/mkdirs", {"path": "relative"})
        self.err("POST", "/api/2.0/workspace/mkdirs", {"path": HOME + "//x"})
        self.err("POST", "/api/2.0/workspace/mkdirs", {"path": HOME + "/x/"})
        self.err("POST", "/api/2.0/workspace/mkdirs", {})
        self.err("GET", "/api/2.0/workspace/get-status")
        st, _h, body = self.import_file("/Volumes/c/s/v/x", b"x")
        self.assertEqual(st, 400)
        self.fw.put_file(HOME + "/f", "x")
        self.err("POST", "/api/2.0/workspace/mkdirs", {"path": HOME + "/f/sub"}, code="RESOURCE_ALREADY_EXISTS")
        st, _h, body = self.import_file(HOME, b"x")
        self.assertEqual((st, body["error_code"]), (400, "RESOURCE_ALREADY_EXISTS"))


class FilesApi(Base):
    def test_volume_upload(self):
        path = "/Volumes/main/default/code/.internal/src_20240101_000000.tar.gz"
        st, _h, _b = self.api("HEAD", "/api/2.0/fs/directories" + path)
        self.assertEqual(st, 404)
        st, _h, _b = self.api("HEAD", "/api/2.0/fs/files" + path)
        self.assertEqual(st, 404)
        st, _h, body = self.api("PUT", "/api/2.0/fs/files" + path + "?overwrite=true", b"\x1f\x8bdata",
                                headers={"Content-Type": "application/octet-stream"})
        self.assertEqual((st, body), (204, b""))
        st, h, body = self.api("HEAD", "/api/2.0/fs/files" + path)
        self.assertEqual((st, h["content-length"], body), (200, "6", b""))
        self.assertIn("last-modified", h)
        st, _h, _b = self.api("HEAD", "/api/2.0/fs/directories/Volumes/main/default/code/.internal")
        self.assertEqual(st, 200)
        self.assertEqual(self.fw.file(path), b"\x1f\x8bdata")
        st, _h, body = self.api("GET", "/api/2.0/fs/files" + path)
        self.assertEqual(body, b"\x1f\x8bdata")
        st, _h, body = self.api("PUT", "/api/2.0/fs/files" + path, b"x")
        self.assertEqual((st, body["error_code"]), (409, "ALREADY_EXISTS"))
        # percent-encoded segments
        st, _h, _b = self.api("PUT", "/api/2.0/fs/files/Volumes/c/s/v/a%20b.txt?overwrite=true", b"s")
        self.assertEqual(st, 204)
        self.assertEqual(self.fw.file("/Volumes/c/s/v/a b.txt"), b"s")
        self.assertEqual([f["kind"] for f in self.fw.files()["files"]], ["volume", "volume"])
        st, _h, _b = self.api("PUT", "/api/2.0/fs/directories/Volumes/c/s/v/newdir")
        self.assertEqual(st, 204)
        listing = self.ok("GET", "/api/2.0/fs/directories/Volumes/c/s/v")
        self.assertEqual(sorted(e["name"] for e in listing["contents"]), ["a b.txt", "newdir"])
        st, _h, _b = self.api("PUT", "/api/2.0/fs/files/elsewhere/x", b"x")
        self.assertEqual(st, 400)


class Jobs(Base):
    def test_submit_validation(self):
        bad = [
            "not json",
            "[1]",
            {},
            dict(submit_body(), run_name=""),
            dict(submit_body(), tasks=[]),
            dict(submit_body(), tasks="x"),
            dict(submit_body(), idempotency_token="x" * 65),
            dict(submit_body(), environments=[{"spec": {}}]),
        ]
        b = submit_body()
        del b["tasks"][0]["task_key"]
        bad.append(b)
        b = submit_body()
        del b["tasks"][0]["ai_runtime_task"]
        bad.append(b)
        b = submit_body()
        b["tasks"][0]["environment_key"] = "other"
        bad.append(b)
        b = submit_body()
        b["tasks"][0]["ai_runtime_task"]["deployments"] = []
        bad.append(b)
        b = submit_body()
        del b["tasks"][0]["ai_runtime_task"]["deployments"][0]["command_path"]
        bad.append(b)
        b = submit_body()
        b["tasks"][0]["ai_runtime_task"]["deployments"][0]["compute"]["accelerator_count"] = 0
        bad.append(b)
        for body in bad:
            self.err("POST", SUBMIT, body)
        self.assertEqual(self.fw.runs(), [])
        self.assertEqual(self.fw.count("POST", SUBMIT), len(bad))

    def test_submit_and_get(self):
        body = submit_body("tok-1", timeout_seconds=1800)
        rid = self.ok("POST", SUBMIT, body)["run_id"]
        self.assertEqual(rid, 555)
        run = self.get(rid)
        self.assertEqual(run["run_id"], 555)
        self.assertEqual(run["run_name"], "smoke-test")
        self.assertEqual(run["creator_user_name"], USER)
        self.assertEqual(run["run_type"], "SUBMIT_RUN")
        self.assertEqual(run["state"]["life_cycle_state"], "TERMINATED")
        self.assertEqual(run["state"]["result_state"], "SUCCESS")
        self.assertGreater(run["start_time"], 0)
        self.assertGreaterEqual(run["end_time"], run["start_time"])
        self.assertEqual(run["environments"], body["environments"])
        self.assertEqual(run["timeout_seconds"], 1800)
        [t] = run["tasks"]
        self.assertEqual(t["run_id"], 556)
        self.assertEqual(t["task_key"], "smoke-test")
        self.assertEqual(t["attempt_number"], 0)
        self.assertEqual(t["max_retries"], 3)
        self.assertEqual(t["environment_key"], "default")
        self.assertEqual(t["ai_runtime_task"], body["tasks"][0]["ai_runtime_task"])
        self.assertEqual((t["start_time"], t["end_time"]), (run["start_time"], run["end_time"]))
        info = self.fw.run(rid)
        self.assertEqual(info["submitted"], body)
        self.assertEqual(info["idempotency_token"], "tok-1")
        self.assertEqual(info["task_run_ids"], [556])
        self.assertEqual(self.submit(), 557)

    def test_idempotency(self):
        a = self.submit("key-1")
        b = self.submit("key-1", name="other")
        c = self.submit("key-2")
        d = self.submit()
        e = self.submit()
        self.assertEqual(a, b)
        self.assertEqual(len({a, c, d, e}), 4)
        self.assertEqual(len(self.fw.runs()), 4)
        self.assertEqual(self.fw.run(a)["submits"], 2)
        self.assertEqual(self.fw.run(a)["submitted"]["run_name"], "smoke-test")
        self.fw.delete_run(a)
        self.err("POST", SUBMIT, submit_body("key-1"))

    def test_lifecycle_over_time(self):
        self.fw.config(lifecycle={"pending_ms": 400, "running_ms": 400, "result": "FAILED",
                                  "state_message": "boom"})
        rid = self.submit()
        task = rid + 1
        r = self.get(rid)
        self.assertEqual(r["state"]["life_cycle_state"], "PENDING")
        self.assertNotIn("result_state", r["state"])
        self.assertEqual((r["start_time"], r["end_time"]), (0, 0))
        self.assertEqual(r["status"], {"state": "PENDING"})
        out = self.ok("GET", OUTPUT, query={"run_id": task})
        self.assertNotIn("mlflow_run_id", out["ai_runtime_task_output"])
        self.assertTrue(out["ai_runtime_task_output"]["status_message"].startswith("STATUS:"))
        self.assertEqual(self.ok("GET", LIST, query={"active_only": "true"})["runs"][0]["run_id"], rid)
        time.sleep(0.5)
        r = self.get(rid)
        self.assertEqual(r["state"]["life_cycle_state"], "RUNNING")
        self.assertGreater(r["start_time"], 0)
        self.assertEqual(r["end_time"], 0)
        self.assertEqual(r["tasks"][0]["state"]["life_cycle_state"], "RUNNING")
        out = self.ok("GET", OUTPUT, query={"run_id": task})["ai_runtime_task_output"]
        self.assertRegex(out["mlflow_run_id"], "^[0-9a-f]{32}$")
        self.assertTrue(out["mlflow_experiment_id"])
        self.assertEqual(out["status_message"], "STATUS:Workload is running")
        time.sleep(0.4)
        r = self.get(rid)
        self.assertEqual(r["state"], {"life_cycle_state": "TERMINATED", "result_state": "FAILED",
                                      "state_message": "boom", "user_cancelled_or_timedout": False})
        # the Jobs API's status, with the termination details of the result
        details = {"code": "RUN_EXECUTION_ERROR", "type": "CLIENT_ERROR", "message": "boom"}
        self.assertEqual(r["status"], {"state": "TERMINATED", "termination_details": details})
        self.assertEqual(r["tasks"][0]["status"]["termination_details"], details)
        self.assertEqual(r["end_time"] - r["start_time"], 400)
        self.assertNotIn("runs", self.ok("GET", LIST, query={"active_only": "true"}))
        # the MLflow run behind the ids exists
        m = self.ok("GET", "/api/2.0/mlflow/runs/get", query={"run_id": out["mlflow_run_id"]})
        self.assertEqual(m["run"]["info"]["run_name"], "smoke-test")

    def test_cancel(self):
        self.fw.config(lifecycle={"pending_ms": 300, "running_ms": 60000})
        rid = self.submit()
        time.sleep(0.35)
        self.assertEqual(self.get(rid)["state"]["life_cycle_state"], "RUNNING")
        self.assertEqual(self.ok("POST", CANCEL, {"run_id": rid}), {})
        r = self.get(rid)
        self.assertEqual(r["state"]["life_cycle_state"], "TERMINATED")
        self.assertEqual(r["state"]["result_state"], "CANCELED")
        self.assertEqual(r["status"]["termination_details"]["code"], "USER_CANCELED")
        self.assertGreater(r["end_time"], 0)
        self.assertGreater(r["start_time"], 0)
        # cancelling again, or a finished run, is a no-op
        self.ok("POST", CANCEL, {"run_id": str(rid)})
        self.assertEqual(self.fw.run(rid)["cancels"], 2)
        pending = self.submit()
        self.ok("POST", CANCEL, {"run_id": pending})
        r = self.get(pending)
        self.assertEqual((r["state"]["result_state"], r["start_time"]), ("CANCELED", 0))
        done = self.fw.create_run(RUN(900, "SUCCESS"))
        self.ok("POST", CANCEL, {"run_id": done})
        self.assertEqual(self.get(done)["state"]["result_state"], "SUCCESS")
        static = self.fw.create_run({"state": {"life_cycle_state": "RUNNING"}, "tasks": [{"task_key": "t"}]})
        self.ok("POST", CANCEL, {"run_id": static})
        self.assertEqual(self.get(static)["tasks"][0]["state"]["result_state"], "CANCELED")
        e = self.err("POST", CANCEL, {"run_id": 5})
        self.assertEqual(e["message"], "Run 5 does not exist.")
        self.err("POST", CANCEL, {})
        self.err("POST", CANCEL, {"run_id": "abc"})

    def test_get_errors(self):
        e = self.err("GET", GET, query={"run_id": 5})
        self.assertEqual(e["message"], "Run 5 does not exist.")
        self.err("GET", GET)
        self.err("GET", GET, query={"run_id": "x"})
        self.err("GET", OUTPUT, query={"run_id": 5})

    def test_created_runs_and_big_ids(self):
        rid = self.fw.create_run(RUN(334747067049496, "SUCCESS"))
        self.assertEqual(rid, 334747067049496)
        st, _h, raw = self.fw.raw("GET", GET + "?run_id=334747067049496",
                                  headers={"Authorization": "Bearer dapi-test"})
        self.assertIn(b'"run_id":334747067049496', raw)
        self.assertIn(b'"run_id":334747067049497', raw)
        sid = self.fw.create_run({"run_id": "566001814929041", "run_name": "s"})
        self.assertEqual(sid, 566001814929041)
        self.assertEqual(self.get(566001814929041)["run_id"], "566001814929041")
        # defaults
        d = self.get(self.fw.create_run({"tasks": [{"task_key": "a"}, {"task_key": "b"}]}))
        self.assertEqual(d["run_id"], 555)
        self.assertEqual([t["run_id"] for t in d["tasks"]], [556, 557])
        self.assertEqual(d["state"]["result_state"], "SUCCESS")
        self.assertEqual(d["creator_user_name"], USER)
        with self.assertRaises(FakeWSError):
            self.fw.create_run({"run_id": 334747067049496})

    def test_update_run_and_sequence(self):
        self.fw.config(lifecycle={"pending_ms": 60000})
        rid = self.submit()
        self.fw.update_run(rid, state={"life_cycle_state": "RUNNING"}, start_time=1700000000000)
        r = self.get(rid)
        self.assertEqual((r["state"], r["start_time"]), ({"life_cycle_state": "RUNNING"}, 1700000000000))
        self.assertEqual(r["tasks"][0]["task_key"], "smoke-test")
        self.assertIsNone(self.fw.run(rid)["lifecycle"])
        self.fw.update_run(rid, sequence=[
            {"state": {"life_cycle_state": "RUNNING"}},
            {"state": {"life_cycle_state": "TERMINATED", "result_state": "FAILED"}, "end_time": 1700000030000},
        ])
        self.assertEqual(self.get(rid)["state"]["life_cycle_state"], "RUNNING")
        self.assertEqual(self.get(rid)["state"]["result_state"], "FAILED")
        self.assertEqual(self.get(rid)["end_time"], 1700000030000)
        # the lifecycle can be restarted
        self.fw.update_run(rid, lifecycle={"pending_ms": 0, "running_ms": 0, "result": "TIMEDOUT"})
        self.assertEqual(self.get(rid)["state"]["result_state"], "TIMEDOUT")
        lc = self.fw.create_run({"tasks": [{"task_key": "x", "ai_runtime_task": {"experiment": "e"}}],
                                 "lifecycle": {"pending_ms": 60000}})
        self.assertEqual(self.get(lc)["state"]["life_cycle_state"], "PENDING")

    def test_paginated_get(self):
        self.fw.config(get_page_size=100)
        tasks = [{"task_key": "t%d" % i} for i in range(250)]
        rid = self.fw.create_run({"tasks": tasks})
        p1 = self.get(rid)
        self.assertEqual(len(p1["tasks"]), 100)
        p2 = self.get(rid, page_token=p1["next_page_token"])
        p3 = self.get(rid, page_token=p2["next_page_token"])
        self.assertNotIn("next_page_token", p3)
        keys = [t["task_key"] for t in p1["tasks"] + p2["tasks"] + p3["tasks"]]
        self.assertEqual(keys, ["t%d" % i for i in range(250)])
        self.err("GET", GET, query={"run_id": rid, "page_token": "garbage"})
        # iterations page instead of tasks
        it = self.fw.create_run({"tasks": [{"task_key": "fe"}],
                                 "iterations": [{"task_key": "i%d" % i, "run_id": 10000 + i} for i in range(150)]})
        p1 = self.get(it)
        self.assertEqual((len(p1["iterations"]), len(p1["tasks"])), (100, 1))
        p2 = self.get(it, page_token=p1["next_page_token"])
        self.assertEqual(len(p2["iterations"]), 50)
        self.assertNotIn("next_page_token", p2)
        small = self.get(self.submit())
        self.assertNotIn("next_page_token", small)

    def test_get_output(self):
        rid = self.fw.create_run(RUN(123, "SUCCESS"))
        out = self.ok("GET", OUTPUT, query={"run_id": 124})
        self.assertEqual(out["metadata"]["run_id"], 124)
        self.assertIn("mlflow_run_id", out["ai_runtime_task_output"])
        e = self.err("GET", OUTPUT, query={"run_id": rid})
        self.assertIn("multiple tasks", e["message"])
        self.fw.set_output(rid, {"ai_runtime_task_output": {"mlflow_experiment_id": "exp1",
                                                            "mlflow_run_id": "run1"}})
        self.assertEqual(self.ok("GET", OUTPUT, query={"run_id": 124}),
                         {"ai_runtime_task_output": {"mlflow_experiment_id": "exp1", "mlflow_run_id": "run1"}})
        self.fw.set_output(rid, {})
        self.assertEqual(self.ok("GET", OUTPUT, query={"run_id": 124}), {})
        unstarted = self.fw.create_run(RUN(200, "SUCCESS", start_time=0))
        out = self.ok("GET", OUTPUT, query={"run_id": unstarted + 1})
        self.assertNotIn("mlflow_run_id", out["ai_runtime_task_output"])

    def test_list(self):
        self.assertEqual(self.ok("GET", LIST), {"has_more": False})
        self.fw.config(list_page_size=2)
        old = self.fw.create_run(RUN(100, "SUCCESS"))
        nb = self.fw.create_run({"run_name": "nb", "run_type": "JOB_RUN", "start_time": 1700000005000,
                                 "tasks": [{"task_key": "n", "notebook_task": {}}]})
        self.fw.config(lifecycle={"pending_ms": 60000})
        a = self.submit()
        time.sleep(0.01)
        b = self.submit()
        rows = []
        q = {"expand_tasks": "true"}
        page = self.ok("GET", LIST, query=q)
        while True:
            self.assertLessEqual(len(page["runs"]), 2)
            rows += page["runs"]
            if not page["has_more"]:
                self.assertNotIn("next_page_token", page)
                break
            page = self.ok("GET", LIST, query=dict(q, page_token=page["next_page_token"]))
        self.assertEqual([r["run_id"] for r in rows], [b, a, nb, old])
        self.assertIn("tasks", rows[0])
        self.assertNotIn("tasks", self.ok("GET", LIST)["runs"][0])
        act = self.ok("GET", LIST, query={"active_only": "true", "limit": 25})
        self.assertEqual([r["run_id"] for r in act["runs"]], [b, a])
        sub = self.ok("GET", LIST, query={"run_type": "SUBMIT_RUN", "limit": 25, "page_token": ""})
        self.assertEqual([r["run_id"] for r in sub["runs"]], [b, a])
        self.assertEqual(len(self.ok("GET", LIST, query={"limit": 1})["runs"]), 1)
        done = self.ok("GET", LIST, query={"completed_only": "true"})
        self.assertEqual([r["run_id"] for r in done["runs"]], [nb, old])
        self.err("GET", LIST, query={"limit": 26})
        self.err("GET", LIST, query={"active_only": "yes"})
        self.err("GET", LIST, query={"run_type": "NOPE"})
        self.err("GET", LIST, query={"page_token": "zzz"})

    def test_list_truncates_big_task_lists(self):
        self.fw.config(get_page_size=3)
        self.fw.create_run({"tasks": [{"task_key": "t%d" % i} for i in range(5)]})
        r = self.ok("GET", LIST, query={"expand_tasks": "true"})["runs"][0]
        self.assertEqual((len(r["tasks"]), r["has_more"]), (3, True))

    def test_workflows_index(self):
        W = "/api/2.0/ai-training/workflows"
        self.fw.config(workflows_page_size=2)
        self.fw.create_run(RUN(100, "SUCCESS", creator_user_name="other@x"))
        self.fw.create_run({"run_name": "nb", "tasks": [{"task_key": "n", "notebook_task": {}}]})
        old = self.fw.create_run(RUN(200, "SUCCESS"))
        self.fw.config(lifecycle={"pending_ms": 60000})
        a = self.submit()
        time.sleep(0.01)
        b = self.submit()
        page = self.ok("GET", W)
        self.assertEqual([w["job_run_id"] for w in page["training_workflows"]], [b, a])
        self.assertRegex(page["training_workflows"][0]["submit_time"], r"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$")
        p2 = self.ok("GET", W, query={"page_token": page["next_page_token"]})
        self.assertEqual([w["job_run_id"] for w in p2["training_workflows"]], [old])
        self.assertEqual(p2["training_workflows"][0]["submit_time"], "2023-11-14T22:13:20.000Z")
        self.assertNotIn("next_page_token", p2)
        act = self.ok("GET", W, query={"active_only": "true"})
        self.assertEqual(len(act["training_workflows"]), 2)
        self.fw.config(features={"workflows_index": False})
        self.err("GET", W, status=404, code="ENDPOINT_NOT_FOUND")


class Logs(Base):
    def path(self, rid):
        return "/api/2.0/ai-training/workflows/by-run-id/%s/logs" % rid

    def fetch(self, rid, **q):
        for k in list(q):
            if isinstance(q[k], bool):
                q[k] = "true" if q[k] else "false"
        return self.ok("GET", self.path(rid), query=q)

    def all_pages(self, rid, **q):
        out, tokens = [], set()
        page = self.fetch(rid, **q)
        while True:
            out += page["log_records"]
            tok = page.get("next_page_token")
            if not tok:
                return out
            self.assertNotIn(tok, tokens)
            tokens.add(tok)
            page = self.fetch(rid, page_token=tok, **q)

    def test_s45_tail(self):
        rid = self.fw.create_run(RUN(123, "SUCCESS"))
        self.fw.add_logs(rid, records=[
            {"time_unix_nano": 1700000001000000000, "body": "step 1"},
            {"time_unix_nano": "1700000002000000000", "body": "step 2", "node_index": 0},
            {"time_unix_nano": 1700000003000000000, "body": "CUDA out of memory"},
            {"time_unix_nano": 1700000004000000000, "body": "other node", "node_index": 1},
        ])
        page = self.fetch(rid, ascending=False, **{"from": 1700000000, "to": 1700000012, "page_size": 10000,
                                                   "filter.node_index": 0})
        self.assertEqual(page, {"log_records": [
            {"time_unix_nano": 1700000003000000000, "body": "CUDA out of memory", "node_index": 0},
            {"time_unix_nano": "1700000002000000000", "body": "step 2", "node_index": 0},
            {"time_unix_nano": 1700000001000000000, "body": "step 1", "node_index": 0}]})
        page = self.fetch(rid, ascending=False, page_size=1)
        self.assertEqual([r["body"] for r in page["log_records"]], ["CUDA out of memory"])
        self.assertIn("next_page_token", page)
        self.assertEqual([r["body"] for r in self.fetch(rid, **{"filter.node_index": 1})["log_records"]],
                         ["other node"])
        # the default is ascending, node 0
        self.assertEqual([r["body"] for r in self.fetch(rid)["log_records"]],
                         ["step 1", "step 2", "CUDA out of memory"])

    def test_time_bounds(self):
        rid = self.fw.create_run(RUN(1, "SUCCESS"))
        recs = [{"time_unix_nano": s * NS + frac, "body": "%d.%d" % (s, frac)}
                for s in (100, 101, 102) for frac in (0, 999999999)]
        self.fw.add_logs(rid, records=recs)
        got = [r["body"] for r in self.fetch(rid, **{"from": 101, "to": 102})["log_records"]]
        self.assertEqual(got, ["101.0", "101.999999999"])
        got = [r["body"] for r in self.fetch(rid, **{"from": 101})["log_records"]]
        self.assertEqual(got, ["101.0", "101.999999999", "102.0", "102.999999999"])
        got = [r["body"] for r in self.fetch(rid, **{"to": 101})["log_records"]]
        self.assertEqual(got, ["100.0", "100.999999999"])
        # without "to", records stamped in the future are not served yet
        future = time.time_ns() + 3600 * NS
        self.fw.add_logs(rid, records=[{"time_unix_nano": future, "body": "later"}])
        self.assertNotIn("later", [r["body"] for r in self.fetch(rid)["log_records"]])
        self.assertIn("later", [r["body"] for r in
                                self.fetch(rid, to=future // NS + 1)["log_records"]])

    def test_paging_is_exact_in_both_directions(self):
        rid = self.fw.create_run(RUN(1, "SUCCESS"))
        # explicit records and two synthetic blocks, with equal timestamps across them
        self.fw.add_logs(rid, records=[{"time_unix_nano": (1000 + i) * NS, "body": "e%d" % i} for i in range(7)])
        self.fw.add_logs(rid, synthetic={"count": 10, "start_ns": 1000 * NS, "step_ns": NS // 2, "text": "a{i}"})
        self.fw.add_logs(rid, synthetic=[{"count": 5, "start_ns": 1002 * NS, "step_ns": 0, "text": "b{i}"}])
        self.fw.add_logs(rid, synthetic={"count": 5, "start_ns": 1000 * NS, "node_index": 1, "text": "n1"})
        full = self.fetch(rid, page_size=1000)["log_records"]
        self.assertEqual(len(full), 22)
        times = [int(r["time_unix_nano"]) for r in full]
        self.assertEqual(times, sorted(times))
        for size in (1, 3, 7, 22, 50):
            asc = self.all_pages(rid, page_size=size)
            self.assertEqual(asc, full)
            desc = self.all_pages(rid, page_size=size, ascending=False)
            self.assertEqual(desc, list(reversed(full)))
        self.assertEqual([r["body"] for r in self.fetch(rid, page_size=3, **{"from": 1002})["log_records"]],
                         ["e2", "a4", "b0"])
        self.err("GET", self.path(rid), query={"page_token": "nope"})
        tok = self.fetch(rid, page_size=2)["next_page_token"]
        self.err("GET", self.path(rid), query={"page_token": tok, "ascending": "false"})

    def test_page_size_default_and_cap(self):
        rid = self.fw.create_run(RUN(1, "SUCCESS"))
        self.fw.add_logs(rid, synthetic={"count": 30000, "start_ns": 1700000000 * NS, "step_ns": 1000})
        self.assertEqual(len(self.fetch(rid)["log_records"]), 1000)
        self.fw.config(logs_page_size=7)
        self.assertEqual(len(self.fetch(rid)["log_records"]), 7)
        self.assertEqual(len(self.fetch(rid, page_size=20000)["log_records"]), 10000)
        self.fw.config(logs_max_page_size=50000, logs_time_as_string=True)
        page = self.fetch(rid, page_size=20000)["log_records"]
        self.assertEqual(len(page), 20000)
        self.assertEqual(page[1], {"time_unix_nano": str(1700000000 * NS + 1000), "body": "step 1",
                                   "node_index": 0})

    def test_a_million_synthetic_records_page_without_being_materialised(self):
        rid = self.fw.create_run(RUN(1, "SUCCESS"))
        self.fw.add_logs(rid, synthetic={"count": 1000000, "start_ns": 1700000000 * NS, "step_ns": 1000000,
                                         "text": "line {i} of node {node}"})
        first = self.fetch(rid, page_size=100)
        last = self.fetch(rid, ascending=False, page_size=10000)
        mid = self.fetch(rid, page_size=10, **{"from": 1700000500})
        self.assertEqual(first["log_records"][0]["body"], "line 0 of node 0")
        self.assertEqual(last["log_records"][0]["body"], "line 999999 of node 0")
        self.assertEqual(len(last["log_records"]), 10000)
        self.assertEqual(mid["log_records"][0]["body"], "line 500000 of node 0")
        # follow tokens deep into the block
        page = self.fetch(rid, page_size=10000, **{"from": 1700000990})
        n = len(page["log_records"])
        while page.get("next_page_token"):
            page = self.fetch(rid, page_size=10000, page_token=page["next_page_token"], **{"from": 1700000990})
            n += len(page["log_records"])
        self.assertEqual(n, 10000)
        info = self.fw.run(rid)["logs"]
        self.assertEqual((info["records"], info["synthetic"][0]["count"]), (0, 1000000))

    def test_attempts(self):
        rid = self.fw.create_run(RUN(1, "SUCCESS", tasks=[
            {"task_key": "t", "run_id": 2, "attempt_number": 0},
            {"task_key": "t", "run_id": 3, "attempt_number": 1}]))
        self.fw.add_logs(rid, records=[{"time_unix_nano": 100 * NS, "body": "a0", "attempt": 0},
                                       {"time_unix_nano": 101 * NS, "body": "a1", "attempt": 1}])
        self.assertEqual([r["body"] for r in self.fetch(rid)["log_records"]], ["a1"])
        self.assertEqual([r["body"] for r in self.fetch(rid, **{"ref.attempt_number": 0})["log_records"]], ["a0"])
        self.assertEqual(self.fetch(rid, **{"ref.attempt_number": 5}), {"log_records": []})

    def test_errors_and_feature_switch(self):
        self.err("GET", self.path(77), status=404, code="RESOURCE_DOES_NOT_EXIST")
        self.err("GET", self.path("abc"))
        rid = self.fw.create_run(RUN(1, "SUCCESS"))
        self.assertEqual(self.fetch(rid), {"log_records": []})
        self.err("GET", self.path(rid), query={"from": "x"})
        self.err("GET", self.path(rid), query={"ascending": "maybe"})
        self.fw.config(features={"logs": False})
        self.err("GET", self.path(rid), status=403, code="FEATURE_DISABLED")
        self.fw.config(features={"logs": "ENDPOINT_NOT_FOUND"})
        self.err("GET", self.path(rid), status=404, code="ENDPOINT_NOT_FOUND")
        with self.assertRaises(FakeWSError):
            self.fw.add_logs(rid, synthetic={"count": -1})

    def test_auto_logs(self):
        self.fw.config(auto_logs=5, lifecycle={"pending_ms": 0, "running_ms": 500})
        rid = self.submit(accel="GPU_8xH100", count=16)
        time.sleep(0.6)
        n0 = self.fetch(rid)["log_records"]
        n1 = self.fetch(rid, **{"filter.node_index": 1})["log_records"]
        self.assertEqual([r["body"] for r in n0], ["node 0 step %d" % i for i in range(5)])
        self.assertEqual(len(n1), 5)
        self.assertEqual(self.fetch(rid, **{"filter.node_index": 2}), {"log_records": []})
        run = self.get(rid)
        self.assertGreaterEqual(n0[0]["time_unix_nano"], run["start_time"] * 1000000)
        self.assertLess(n0[-1]["time_unix_nano"], run["end_time"] * 1000000)
        # records appear while the run is running
        self.fw.config(auto_logs={"count": 100, "text": "tick {i}"}, lifecycle={"running_ms": 2000})
        rid = self.submit()
        time.sleep(0.3)
        seen = len(self.fetch(rid)["log_records"])
        self.assertGreater(seen, 0)
        self.assertLess(seen, 100)

    def test_a_run_seen_ended_shows_all_its_lines(self):
        """Lines stamped up to a run's end show once it is seen ended, even
        when that end is still ahead of the clock; a running run's future
        lines do not show yet."""
        end = int(time.time() * 1000) + 60000
        rid = self.fw.create_run({"run_id": 31, "start_time": end - 1000, "end_time": end,
                                  "state": {"life_cycle_state": "TERMINATED",
                                            "result_state": "FAILED"}})
        self.fw.add_logs(rid, records=[{"time_unix_nano": (end - 1) * 1000000, "body": "last"}])
        self.assertEqual([r["body"] for r in self.fetch(rid)["log_records"]], ["last"])
        self.fw.update_run(rid, state={"life_cycle_state": "RUNNING"}, end_time=0)
        self.assertEqual(self.fetch(rid)["log_records"], [])

    def test_auto_logs_last_lines(self):
        """The lines a failed workload ends with, on one node, after the others."""
        self.fw.config(auto_logs={"count": 2, "text": "s{i}", "last": ["Traceback", "E: x"],
                                  "last_node": 1},
                       lifecycle={"running_ms": 0, "result": "FAILED"})
        rid = self.submit(accel="GPU_8xH100", count=16)
        self.assertEqual([r["body"] for r in self.fetch(rid)["log_records"]], ["s0", "s1"])
        n1 = self.fetch(rid, **{"filter.node_index": 1})["log_records"]
        self.assertEqual(sorted(r["body"] for r in n1), ["E: x", "Traceback", "s0", "s1"])
        self.assertEqual([r["body"] for r in n1 if r["body"] in ("E: x", "Traceback")],
                         ["Traceback", "E: x"])
        end_ns = self.get(rid)["end_time"] * 1000000
        self.assertTrue(all(r["time_unix_nano"] < end_ns for r in n1 if r["body"] != "s0"
                            and r["body"] != "s1"))


class MLflow(Base):
    def setUp(self):
        super().setUp()
        self.fw.mlflow({"run1": {"experiment_id": "exp1", "run_name": "my-run", "artifacts": {
            "logs/attempt_0/node_0/logs-0.chunk.txt": "line 1\nline 2\n",
            "logs/attempt_0/node_0/logs-1.chunk.txt": "line 3\nline 4\n",
            "logs/attempt_0/node_1/logs-0.chunk.txt": {"b64": base64.b64encode(b"\x00\r\n").decode()},
            "model.pt": "weights",
        }}})

    def test_runs_get(self):
        r = self.ok("GET", "/api/2.0/mlflow/runs/get", query={"run_id": "run1"})
        self.assertEqual(r["run"]["info"]["run_name"], "my-run")
        self.assertEqual(r["run"]["info"]["experiment_id"], "exp1")
        self.err("GET", "/api/2.0/mlflow/runs/get", query={"run_id": "nope"}, status=404,
                 code="RESOURCE_DOES_NOT_EXIST")

    def test_artifacts_list(self):
        L = "/api/2.0/mlflow/artifacts/list"
        top = self.ok("GET", L, query={"run_id": "run1"})
        self.assertEqual(top["files"], [{"path": "logs", "is_dir": True},
                                        {"path": "model.pt", "is_dir": False, "file_size": 7}])
        self.assertIn("root_uri", top)
        self.assertEqual(self.ok("GET", L, query={"run_id": "run1", "path": "logs"})["files"],
                         [{"path": "logs/attempt_0", "is_dir": True}])
        files = self.ok("GET", L, query={"run_id": "run1", "path": "logs/attempt_0/node_0"})["files"]
        self.assertEqual([f["path"] for f in files], ["logs/attempt_0/node_0/logs-0.chunk.txt",
                                                      "logs/attempt_0/node_0/logs-1.chunk.txt"])
        self.assertNotIn("files", self.ok("GET", L, query={"run_id": "run1", "path": "logs/none"}))
        self.fw.config(artifacts_page_size=1)
        p1 = self.ok("GET", L, query={"run_id": "run1", "path": "logs/attempt_0/node_0"})
        p2 = self.ok("GET", L, query={"run_id": "run1", "path": "logs/attempt_0/node_0",
                                      "page_token": p1["next_page_token"]})
        self.assertEqual([f["path"] for f in p1["files"] + p2["files"]], [f["path"] for f in files])
        self.assertNotIn("next_page_token", p2)
        self.err("GET", L, query={"run_id": "nope"}, status=404, code="RESOURCE_DOES_NOT_EXIST")

    def test_presigned_downloads(self):
        C = "/api/2.0/mlflow/artifacts/credentials-for-read"
        chunk = "logs/attempt_0/node_0/logs-1.chunk.txt"
        infos = self.ok("GET", C, query={"run_id": "run1", "path": chunk})["credential_infos"]
        [info] = infos
        self.assertTrue(info["signed_uri"].startswith(self.fw.url + "/presigned/"))
        self.assertEqual(info["headers"], [{"name": "x-ms-blob-type", "value": "BlockBlob"}])
        uri = info["signed_uri"][len(self.fw.url):]
        st, _h, body = self.fw.raw("GET", uri, headers={"x-ms-blob-type": "BlockBlob"})
        self.assertEqual((st, body), (200, b"line 3\nline 4\n"))
        st, _h, body = self.fw.raw("GET", uri, headers={"x-ms-blob-type": "BlockBlob",
                                                         "Authorization": "Bearer dapi-test"})
        self.assertEqual(st, 400)
        st, _h, body = self.fw.raw("GET", uri)
        self.assertEqual(st, 400)
        self.assertIn(b"x-ms-blob-type", body)
        st, _h, body = self.fw.raw("GET", uri.replace("sig=", "sig=0"), headers={"x-ms-blob-type": "BlockBlob"})
        self.assertEqual(st, 403)
        # binary content, unknown artifact
        infos = self.ok("GET", C + "?run_id=run1&path=logs/attempt_0/node_1/logs-0.chunk.txt&path=missing")
        [a, b] = infos["credential_infos"]
        st, _h, body = self.fw.raw("GET", a["signed_uri"][len(self.fw.url):],
                                   headers={"x-ms-blob-type": "BlockBlob"})
        self.assertEqual(body, b"\x00\r\n")
        st, _h, body = self.fw.raw("GET", b["signed_uri"][len(self.fw.url):],
                                   headers={"x-ms-blob-type": "BlockBlob"})
        self.assertEqual(st, 404)
        # without required headers
        self.fw.config(presigned_headers=[])
        info = self.ok("GET", C, query={"run_id": "run1", "path": "model.pt"})["credential_infos"][0]
        self.assertNotIn("headers", info)
        st, _h, body = self.fw.raw("GET", info["signed_uri"][len(self.fw.url):])
        self.assertEqual((st, body), (200, b"weights"))
        # the presigned path can be targeted by fault rules
        self.fw.fault(path="/presigned/run1/model.pt", status=500)
        st, _h, body = self.fw.raw("GET", info["signed_uri"][len(self.fw.url):])
        self.assertEqual(st, 500)
        self.err("GET", C, query={"run_id": "run1"})
        self.err("GET", C, query={"run_id": "zz", "path": "a"}, status=404, code="RESOURCE_DOES_NOT_EXIST")


class MLflowMetrics(Base):
    H = "/api/2.0/mlflow/metrics/get-history"

    def setUp(self):
        super().setUp()
        self.fw.add_metrics("run1", {"loss": [{"value": 2, "step": 0, "timestamp": 10},
                                              {"value": "NaN", "step": 1, "timestamp": 11},
                                              {"value": 1, "step": 2, "timestamp": 12}],
                                     "system/gpu_0_utilization_percentage": [
                                         {"value": 50, "step": 5, "timestamp": 20},
                                         {"value": 60, "step": 4, "timestamp": 30}]})

    def test_latest_values_in_runs_get(self):
        m = self.ok("GET", "/api/2.0/mlflow/runs/get", query={"run_id": "run1"})["run"]["data"]["metrics"]
        self.assertEqual([(x["key"], x["value"], x["step"]) for x in m],
                         [("loss", 1, 2), ("system/gpu_0_utilization_percentage", 50, 5)])

    def test_history_pages_and_nonfinite_values(self):
        whole = self.ok("GET", self.H, query={"run_id": "run1", "metric_key": "loss"})
        self.assertEqual([x["step"] for x in whole["metrics"]], [0, 1, 2])
        self.assertTrue(math.isnan(whole["metrics"][1]["value"]))   # a bare NaN token
        st, _h, body = self.fw.raw("GET", self.H + "?run_id=run1&metric_key=loss",
                                   headers={"Authorization": "Bearer dapi-test"})
        self.assertIn(b'"value":NaN', body)
        self.fw.config(mlflow_nonfinite="string")
        st, _h, body = self.fw.raw("GET", self.H + "?run_id=run1&metric_key=loss",
                                   headers={"Authorization": "Bearer dapi-test"})
        self.assertIn(b'"value":"NaN"', body)
        p1 = self.ok("GET", self.H, query={"run_id": "run1", "metric_key": "loss", "max_results": 2})
        p2 = self.ok("GET", self.H, query={"run_id": "run1", "metric_key": "loss", "max_results": 2,
                                           "page_token": p1["next_page_token"]})
        self.assertEqual([x["step"] for x in p1["metrics"] + p2["metrics"]], [0, 1, 2])
        self.assertNotIn("next_page_token", p2)
        self.assertEqual(self.ok("GET", self.H, query={"run_id": "run1", "metric_key": "none"}), {})
        # A stale token generation is refused; bad parameters too.
        self.fw.add_metrics("run1", token_generation=1)
        self.err("GET", self.H, query={"run_id": "run1", "metric_key": "loss",
                                       "page_token": p1["next_page_token"]})
        self.err("GET", self.H, query={"run_id": "run1", "metric_key": "loss", "max_results": 0})
        self.err("GET", self.H, query={"run_id": "run1"})
        self.err("GET", self.H, query={"run_id": "zz", "metric_key": "loss"}, status=404,
                 code="RESOURCE_DOES_NOT_EXIST")

    def test_synthetic_histories_and_the_control_view(self):
        self.fw.add_metrics("run1", synthetic={"key": "big", "count": 1000000, "start_step": 7})
        page = self.ok("GET", self.H, query={"run_id": "run1", "metric_key": "big",
                                             "max_results": 3})
        self.assertEqual([(x["step"], x["value"]) for x in page["metrics"]],
                         [(7, 1.0), (8, 0.5), (9, 1 / 3)])
        m = self.ok("GET", "/api/2.0/mlflow/runs/get", query={"run_id": "run1"})["run"]["data"]["metrics"]
        self.assertIn({"key": "big", "value": 1e-06, "timestamp": 1700000000000 + 999999,
                       "step": 1000006}, m)
        view = self.fw.call("GET", "/__fakews/mlflow/run1/metrics")
        self.assertEqual(view["metrics"]["big"], 1000000)
        self.assertEqual(self.fw.call("GET", "/__fakews/mlflow")["runs"]["run1"]["metric_history"]
                         ["metrics"]["loss"], 3)


class Policies(Base):
    P = "/api/2.0/serverless-policies"

    def test_filter_and_paging(self):
        self.fw.policies([{"policy_id": "id-%d" % i, "policy_name": n} for i, n in
                          enumerate(["team-alpha", "Team-A", "team-b", "other"])], page_size=2)
        page = self.ok("GET", self.P, query={"page_size": 1000, "filter_by.policy_name": "TEAM"})
        self.assertEqual([p["policy_name"] for p in page["policies"]], ["team-alpha", "Team-A"])
        page = self.ok("GET", self.P, query={"page_size": 1000, "filter_by.policy_name": "TEAM",
                                             "page_token": page["next_page_token"]})
        self.assertEqual([p["policy_name"] for p in page["policies"]], ["team-b"])
        self.assertNotIn("next_page_token", page)
        self.assertEqual(len(self.ok("GET", self.P, query={"page_size": 1})["policies"]), 1)
        self.assertEqual(self.ok("GET", self.P, query={"filter_by.policy_name": "zzz"}), {})
        self.err("GET", self.P, query={"page_size": 1001})


class Pools(Base):
    P = "/api/2.0/ai-training/provisioned-capacities"

    def test_list_get_and_switch(self):
        self.assertEqual(self.ok("GET", self.P), {})
        self.fw.pools([{"id": "p%d" % i, "accelerator_type": "GPU_8xH100", "accelerator_count": 16,
                        "used": 8, "idle": "8"} for i in range(3)], page_size=2)
        p1 = self.ok("GET", self.P, query={"page_size": 100})
        self.assertEqual(p1["provisioned_capacities"][0], {
            "name": "provisioned-capacities/p0",
            "spec": {"accelerator_type": "GPU_8xH100", "accelerator_count": 16},
            "status": {"usage": {"used_accelerator_count": 8, "idle_accelerator_count": "8"}}})
        p2 = self.ok("GET", self.P, query={"page_token": p1["next_page_token"]})
        self.assertEqual([p["name"] for p in p2["provisioned_capacities"]], ["provisioned-capacities/p2"])
        self.assertEqual(self.ok("GET", self.P + "/p1")["name"], "provisioned-capacities/p1")
        self.err("GET", self.P + "/nope", status=404, code="RESOURCE_DOES_NOT_EXIST")
        self.fw.config(features={"pools": False})
        self.err("GET", self.P, status=403, code="FEATURE_DISABLED")
        self.err("GET", self.P + "/p1", status=403, code="FEATURE_DISABLED")


class Images(Base):
    G = "/api/2.0/ai-compute-manager/images:get"

    def test_states_and_registration(self):
        url = "myreg.io/team/train:v3"
        self.err("GET", self.G, query={"docker_image_url": url}, status=404, code="RESOURCE_DOES_NOT_EXIST")
        self.fw.images({url: {"states": ["IMPORTING", {"state": "AVAILABLE", "manifest_sha256": "abc"}]}})
        self.assertEqual(self.ok("GET", self.G, query={"docker_image_url": url})["state"], "IMPORTING")
        r = self.ok("GET", self.G, query={"docker_image_url": url})
        self.assertEqual((r["state"], r["manifest_sha256"], r["docker_image_url"]), ("AVAILABLE", "abc", url))
        self.assertEqual(self.ok("GET", self.G, query={"docker_image_url": url})["state"], "AVAILABLE")
        self.fw.images({"x.io/a:1": {"state": "FAILED", "status_message": "pull denied"},
                        "x.io/b:1": {"registered": False, "state": "AVAILABLE", "public": True}})
        self.assertEqual(self.ok("GET", self.G, query={"docker_image_url": "x.io/a:1"})["status_message"],
                         "pull denied")
        self.err("GET", self.G, query={"docker_image_url": "x.io/b:1"}, status=404, code="RESOURCE_DOES_NOT_EXIST")
        reg = self.ok("POST", "/api/2.0/ai-compute-manager/images", {"docker_image_url": "x.io/b:1"})
        self.assertEqual(reg["image"]["state"], "AVAILABLE")
        self.ok("GET", self.G, query={"docker_image_url": "x.io/b:1"})
        new = self.ok("POST", "/api/2.0/ai-compute-manager/images", {"docker_image_url": "x.io/new:2"})
        self.assertEqual(new["image"]["state"], "AVAILABLE")
        self.assertRegex(new["image"]["manifest_sha256"], "^[0-9a-f]{64}$")
        acc = "/api/2.0/ai-compute-manager/images:checkImageAccess"
        self.assertEqual(self.ok("GET", acc, query={"docker_image_url": "x.io/b:1"}), {"publicly_accessible": True})
        self.assertEqual(self.ok("GET", acc, query={"docker_image_url": url}), {"publicly_accessible": False})
        self.err("GET", self.G)

    def test_scripted_registration(self):
        R = "/api/2.0/ai-compute-manager/images"
        self.fw.images({
            "x.io/moving:latest": {"state": "AVAILABLE", "manifest_sha256": "old",
                                   "on_register": {"manifest_sha256": "new"}},
            "x.io/slow:1": {"registered": False, "on_register": {"state": "PENDING"}},
            "x.io/bad:1": {"registered": False, "on_register": {
                "state": "IMPORTING", "states": [{"state": "FAILED", "status_message": "manifest unknown"}]}},
            "x.io/private:1": {"registered": False, "requires_credentials": True},
            "x.io/wrongpw:1": {"registered": False, "rejects_credentials": True},
        })
        self.assertEqual(self.ok("GET", self.G, query={"docker_image_url": "x.io/moving:latest"})
                         ["manifest_sha256"], "old")
        self.assertEqual(self.ok("POST", R, {"docker_image_url": "x.io/moving:latest"})["image"]
                         ["manifest_sha256"], "new")
        self.assertEqual(self.ok("POST", R, {"docker_image_url": "x.io/slow:1"})["image"]["state"], "PENDING")
        for _ in range(3):
            self.assertEqual(self.ok("GET", self.G, query={"docker_image_url": "x.io/slow:1"})["state"], "PENDING")
        self.assertEqual(self.ok("POST", R, {"docker_image_url": "x.io/bad:1"})["image"]["state"], "IMPORTING")
        r = self.ok("GET", self.G, query={"docker_image_url": "x.io/bad:1"})
        self.assertEqual((r["state"], r["status_message"]), ("FAILED", "manifest unknown"))
        # a private registry refuses anonymous pulls; credentials must be stored secrets
        self.err("POST", R, {"docker_image_url": "x.io/private:1"}, status=403, code="PERMISSION_DENIED")
        self.err("POST", R, {"docker_image_url": "x.io/private:1", "credentials_scope": "s",
                             "credentials_key": "k"}, status=400, code="INVALID_PARAMETER_VALUE")
        self.err("POST", R, {"docker_image_url": "x.io/private:1", "credentials_scope": "s"},
                 status=400, code="INVALID_PARAMETER_VALUE")
        self.ok("POST", "/api/2.0/secrets/scopes/create", {"scope": "s"})
        self.ok("POST", "/api/2.0/secrets/put", {"scope": "s", "key": "k", "string_value": "dTpw"})
        self.ok("POST", R, {"docker_image_url": "x.io/private:1", "credentials_scope": "s", "credentials_key": "k"})
        self.err("POST", R, {"docker_image_url": "x.io/wrongpw:1", "credentials_scope": "s",
                             "credentials_key": "k"}, status=401, code="UNAUTHENTICATED")
        self.ok("POST", R, {"docker_image_url": "x.io/wrongpw:1"})
        imgs = self.fw.call("GET", "/__fakews/images")["images"]
        self.assertEqual((imgs["x.io/private:1"]["credentials_scope"], imgs["x.io/private:1"]["registrations"]),
                         ("s", 2))
        self.assertNotIn("credentials_scope", imgs["x.io/wrongpw:1"])


class Misc(Base):
    def test_compute_options(self):
        r = self.ok("GET", "/api/2.0/ai-compute-manager/compute-options")
        self.assertEqual([o["hardware_accelerator"] for o in r["compute_options"]],
                         ["GPU_1xA10", "GPU_1xH100", "GPU_8xH100"])

    def test_secrets(self):
        self.assertEqual(self.ok("GET", "/api/2.0/secrets/scopes/list"), {})
        self.ok("POST", "/api/2.0/secrets/scopes/create", {"scope": "docker-credentials-x"})
        self.err("POST", "/api/2.0/secrets/scopes/create", {"scope": "docker-credentials-x"},
                 code="RESOURCE_ALREADY_EXISTS")
        self.ok("POST", "/api/2.0/secrets/put", {"scope": "docker-credentials-x", "key": "k", "string_value": "v"})
        self.err("POST", "/api/2.0/secrets/put", {"scope": "nope", "key": "k"}, status=404,
                 code="RESOURCE_DOES_NOT_EXIST")
        self.assertEqual(self.fw.call("GET", "/__fakews/secrets")["scopes"], {"docker-credentials-x": {"k": "v"}})
        self.assertEqual(self.ok("GET", "/api/2.0/secrets/scopes/list")["scopes"][0]["name"],
                         "docker-credentials-x")

    def test_secret_failure_modes(self):
        self.fw.config(secrets={"max_scopes": 1})
        self.ok("POST", "/api/2.0/secrets/scopes/create", {"scope": "a"})
        self.err("POST", "/api/2.0/secrets/scopes/create", {"scope": "b"}, code="RESOURCE_LIMIT_EXCEEDED")
        self.err("POST", "/api/2.0/secrets/scopes/create", {"scope": "a"}, code="RESOURCE_ALREADY_EXISTS")
        self.fw.config(secrets={"can_put": False})
        self.assertEqual(self.fw.call("GET", "/__fakews/config")["secrets"]["max_scopes"], 1)  # merged
        self.err("POST", "/api/2.0/secrets/put", {"scope": "a", "key": "k", "string_value": "v"},
                 status=403, code="PERMISSION_DENIED")
        self.fw.config(secrets={"can_create_scope": False, "can_put": True})
        self.err("POST", "/api/2.0/secrets/scopes/create", {"scope": "c"}, status=403, code="PERMISSION_DENIED")
        self.ok("POST", "/api/2.0/secrets/put", {"scope": "a", "key": "k", "string_value": "v"})
        self.fw.reset()
        self.ok("POST", "/api/2.0/secrets/scopes/create", {"scope": "c"})
        seeded = self.fw.call("POST", "/__fakews/secrets", {"scopes": {"c": {"k": "v"}, "d": {}}})
        self.assertEqual(seeded["scopes"], {"c": {"k": "v"}, "d": {}})


    def test_secret_keys_listed_never_read(self):
        self.fw.call("POST", "/__fakews/secrets", {"scopes": {"ml": {"hf": "v1", "a": "v2"},
                                                              "empty": {}, "locked": {"k": "v"}}})
        r = self.ok("GET", "/api/2.0/secrets/list", query={"scope": "ml"})
        self.assertEqual([e["key"] for e in r["secrets"]], ["a", "hf"])
        self.assertNotIn("v1", json.dumps(r))
        self.assertEqual(self.ok("GET", "/api/2.0/secrets/list", query={"scope": "empty"}), {})
        self.err("GET", "/api/2.0/secrets/list", query={"scope": "nope"}, status=404,
                 code="RESOURCE_DOES_NOT_EXIST")
        self.fw.config(secrets={"unreadable": ["locked"]})
        self.err("GET", "/api/2.0/secrets/list", query={"scope": "locked"}, status=403,
                 code="PERMISSION_DENIED")


class Experiments(Base):
    NAME = "/Users/%s/exp" % USER

    def test_by_name_create_and_grants(self):
        self.err("GET", "/api/2.0/mlflow/experiments/get-by-name",
                 query={"experiment_name": self.NAME}, status=404, code="RESOURCE_DOES_NOT_EXIST")
        eid = self.ok("POST", "/api/2.0/mlflow/experiments/create", {"name": self.NAME})["experiment_id"]
        self.err("POST", "/api/2.0/mlflow/experiments/create", {"name": self.NAME},
                 code="RESOURCE_ALREADY_EXISTS")
        got = self.ok("GET", "/api/2.0/mlflow/experiments/get-by-name",
                      query={"experiment_name": self.NAME})
        self.assertEqual(got["experiment"]["experiment_id"], eid)
        levels = self.ok("GET", "/api/2.0/permissions/experiments/%s/permissionLevels" % eid)
        self.assertEqual([lv["permission_level"] for lv in levels["permission_levels"]],
                         ["CAN_READ", "CAN_EDIT", "CAN_MANAGE"])
        acl = [{"user_name": "a@b.com", "permission_level": "CAN_READ"}]
        self.ok("PATCH", "/api/2.0/permissions/experiments/" + eid, {"access_control_list": acl})
        self.err("PATCH", "/api/2.0/permissions/experiments/" + eid, {"access_control_list": [
            {"user_name": "a@b.com", "permission_level": "CAN_VIEW"}]})
        self.assertEqual(self.ok("GET", "/api/2.0/permissions/experiments/" + eid)
                         ["access_control_list"], acl)
        self.assertEqual(self.fw.call("GET", "/__fakews/experiments")["experiments"][self.NAME]
                         ["acl"], acl)
        self.fw.config(experiments={"manage": False})
        self.err("GET", "/api/2.0/permissions/experiments/%s/permissionLevels" % eid, status=403,
                 code="PERMISSION_DENIED")
        self.err("GET", "/api/2.0/permissions/experiments/999", status=404,
                 code="RESOURCE_DOES_NOT_EXIST")


class Registry(Base):
    def head(self, path, auth=None):
        h = {"Authorization": auth} if auth else {}
        st, rh, _ = self.fw.raw("HEAD", path, None, h)
        return st, rh

    def basic(self, user, password):
        return "Basic " + base64.b64encode(("%s:%s" % (user, password)).encode()).decode()

    def test_basic_credentials(self):
        self.fw.call("POST", "/__fakews/registry", {
            "users": {"alice": "pw", "bob": "pw2"},
            "repositories": {"c.s.a": {"tags": ["v1"], "readers": ["alice"]}}})
        st, rh = self.head("/v2/c.s.a/manifests/v1")
        self.assertEqual(st, 401)
        self.assertEqual(rh.get("www-authenticate"), 'Basic realm="fakews"')
        st, rh = self.head("/v2/c.s.a/manifests/v1", self.basic("alice", "pw"))
        self.assertEqual(st, 200)
        self.assertTrue(rh["docker-content-digest"].startswith("sha256:"))
        self.assertEqual(self.head("/v2/c.s.a/manifests/v2", self.basic("alice", "pw"))[0], 404)
        self.assertEqual(self.head("/v2/c.s.a/manifests/v1", self.basic("bob", "pw2"))[0], 403)
        self.assertEqual(self.head("/v2/c.s.a/manifests/v1", self.basic("alice", "no"))[0], 401)

    def test_token_service(self):
        self.fw.call("POST", "/__fakews/registry", {
            "token_auth": True, "users": {"alice": "pw"},
            "repositories": {"c.s.a": {"tags": ["v1"]}}})
        st, rh = self.head("/v2/c.s.a/manifests/v1", self.basic("alice", "pw"))
        self.assertEqual(st, 401)
        self.assertIn('scope="repository:c.s.a:pull"', rh["www-authenticate"])
        st, _h, data = self.fw.raw("GET", "/v2/token?service=fakews", None,
                                   {"Authorization": self.basic("alice", "pw")})
        self.assertEqual(st, 200)
        tok = json.loads(data)["token"]
        self.assertEqual(self.head("/v2/c.s.a/manifests/v1", "Bearer " + tok)[0], 200)
        st, _h, _d = self.fw.raw("GET", "/v2/token", None,
                                 {"Authorization": self.basic("alice", "bad")})
        self.assertEqual(st, 401)


if __name__ == "__main__":
    unittest.main(verbosity=2)
