"""`air register-image IMAGE_URL` end to end against the fake workspace
(docs/cli.md#register-a-legacy-docker-image-air-register-image-image_url,
docs/submit.md#legacy-environmentdocker_image): output shapes, argument
errors, the REGISTRATION_FAILED kinds, local Docker credentials stored and
never printed, Ctrl-C, and the legacy docker_image path followed to a
submitted run."""

import json
import os
import signal
import stat
import subprocess
import sys
import time
import unittest

sys.path.insert(0, os.path.join(os.environ.get("AIR_SOURCE_ROOT", "."), "tests", "support"))
from cli_case import AIR, WorkspaceCase  # noqa: E402

IMAGE = "myreg.io/team/train:v3"
SCOPE = "docker-credentials-tester@databricks.com"
PASSWORD = "s3cret-Pa55word"
AUTH_B64 = "YWxpY2U6czNjcmV0LVBhNTV3b3Jk"  # alice:s3cret-Pa55word
WORKLOAD = ("experiment_name: legacy\n"
            "command: python train.py\n"
            "compute: {accelerator_type: GPU_1xA10, num_accelerators: 1}\n"
            "environment: {docker_image: {url: %s}}\n" % IMAGE)


class RegisterImage(WorkspaceCase):
    DROP_ENV = ("DATABRICKS_", "DOCKER_")
    EXTRA_ENV = {"AIR_REGISTER_POLL_MS": "10"}

    def setUp(self):
        super().setUp()
        self.docker = os.path.join(self.tmp.name, "docker")
        os.mkdir(self.docker)
        self.env["DOCKER_CONFIG"] = self.docker

    def docker_config(self, obj):
        with open(os.path.join(self.docker, "config.json"), "w") as f:
            json.dump(obj, f)

    def envelope_error(self, out):
        env = json.loads(out)
        self.assertEqual(list(env), ["v", "ts", "error"])
        self.assertEqual(list(env["error"]), ["code", "kind", "message", "retryable"])
        return env["error"]

    def test_text(self):
        rc, out, err = self.air("register-image", "ubuntu")
        self.assertEqual(rc, 0, err)
        lines = out.splitlines()
        self.assertEqual(lines[0], "Image docker.io/library/ubuntu:latest is AVAILABLE.")
        self.assertRegex(lines[1], r"^Manifest: [0-9a-f]{64}$")
        self.assertIn("now runs this image", lines[2])
        self.assertIn("Registering ubuntu", err)
        self.assertIn("60 minutes", err)

    def test_json(self):
        self.fw.images({IMAGE: {"state": "AVAILABLE", "manifest_sha256": "old",
                                "on_register": {"state": "IMPORTING", "states": [
                                    "IMPORTING", {"state": "AVAILABLE", "manifest_sha256": "new"}]}}})
        rc, out, err = self.air("register-image", IMAGE, "-o", "json", "--timeout-minutes", "5")
        self.assertEqual(rc, 0, err)
        env = json.loads(out)
        self.assertEqual(list(env), ["v", "ts", "data"])
        self.assertEqual(list(env["data"].items()), [
            ("docker_image_url", IMAGE), ("manifest_sha256", "new"), ("status", "AVAILABLE"),
            ("image_updated", True), ("cached", False)])
        self.assertEqual(err, "")
        # the same image again: cached, unchanged
        self.fw.images({IMAGE: {"state": "AVAILABLE", "manifest_sha256": "new"}})
        rc, out, err = self.air("register-image", IMAGE, "-o", "json")
        data = json.loads(out)["data"]
        self.assertEqual((data["image_updated"], data["cached"]), (False, True))

    def test_failed_re_read_after_available_is_ignored(self):
        # The POST already says AVAILABLE: the final read only looks for a
        # newer digest, and a failure of it (here a 404) does not fail the
        # command (the official tool ignores it too).
        self.fw.fault(method="GET", path="/api/2.0/ai-compute-manager/images:get", status=404,
                      times=-1, body={"error_code": "RESOURCE_DOES_NOT_EXIST", "message": "no"})
        rc, out, err = self.air("register-image", IMAGE, "-o", "json")
        self.assertEqual(rc, 0, out + err)
        data = json.loads(out)["data"]
        self.assertEqual((data["status"], data["image_updated"]), ("AVAILABLE", True))
        self.assertRegex(data["manifest_sha256"], r"^[0-9a-f]{64}$")
        self.assertEqual(self.fw.count("GET", "/api/2.0/ai-compute-manager/images:get"), 2)

    def test_argument_errors(self):
        for args, needle in ((["  "], "empty"), ([IMAGE, "--timeout-minutes", "0"], "--timeout-minutes"),
                             ([IMAGE, "--timeout-minutes", "-3"], "--timeout-minutes"),
                             ([IMAGE, "--tag-policy", "auto"], "auto"),
                             ([IMAGE, "--tag-policy", "nightly"], "nightly")):
            rc, out, err = self.air("register-image", *args, "-o", "json")
            self.assertEqual(rc, 1, args)
            e = self.envelope_error(out)
            self.assertEqual((e["code"], e["kind"], e["retryable"]), ("INVALID_ARGS", "PERMANENT", False))
            self.assertIn(needle, e["message"])
            self.assertEqual(err, "")
            rc, out, err = self.air("register-image", *args)
            self.assertEqual((rc, out), (1, ""))
            self.assertIn("Error: ", err)
        self.assertEqual(self.fw.count(), 0)
        # usage errors stay plain, also under -o json
        for args in ([], [IMAGE, IMAGE], [IMAGE, "--nope"]):
            rc, out, err = self.air("register-image", *args, "-o", "json")
            self.assertEqual((rc, out), (1, ""))
            self.assertIn("Usage:", err)
        # the hidden flag works and is not listed
        rc, out, err = self.air("register-image", IMAGE, "--tag-policy", "latest")
        self.assertEqual(rc, 0, err)
        rc, out, _ = self.air("register-image", "--help")
        self.assertEqual(rc, 0)
        self.assertIn("--timeout-minutes", out)
        self.assertNotIn("tag-policy", out)

    def test_failures(self):
        self.fw.images({IMAGE: {"registered": False, "on_register": {
            "state": "IMPORTING", "states": [{"state": "FAILED", "status_message": "manifest unknown"}]}}})
        rc, out, err = self.air("register-image", IMAGE, "-o", "json")
        self.assertEqual(rc, 1)
        e = self.envelope_error(out)
        self.assertEqual((e["code"], e["kind"], e["retryable"]), ("REGISTRATION_FAILED", "PERMANENT", False))
        self.assertIn("manifest unknown", e["message"])
        self.fw.fault(method="POST", path="/api/2.0/ai-compute-manager/images", status=504, times=-1,
                      body={"error_code": "DEADLINE_EXCEEDED", "message": "gateway timeout"})
        rc, out, err = self.air("register-image", IMAGE, "-o", "json")
        self.assertEqual(rc, 1)
        e = self.envelope_error(out)
        self.assertEqual((e["code"], e["kind"], e["retryable"]), ("REGISTRATION_FAILED", "TRANSIENT", True))
        rc, out, err = self.air("register-image", IMAGE)
        self.assertEqual((rc, out), (1, ""))
        self.assertIn("Error: ", err)
        self.assertIn("gateway timeout", err)

    def test_unauthenticated(self):
        rc, out, err = self.air("register-image", IMAGE, "-o", "json",
                                 env={"DATABRICKS_TOKEN": "dapi-wrong"})
        self.assertEqual(rc, 1)
        e = self.envelope_error(out)
        self.assertEqual((e["code"], e["kind"]), ("UNAUTHENTICATED", "PERMANENT"))
        self.assertEqual(self.fw.count("POST", "/api/2.0/ai-compute-manager/images"), 0)

    def test_private_registry_credentials_are_stored_not_printed(self):
        self.fw.images({IMAGE: {"registered": False, "requires_credentials": True}})
        self.docker_config({"auths": {"myreg.io": {"auth": AUTH_B64}}})
        rc, out, err = self.air("register-image", IMAGE, "--debug")
        self.assertEqual(rc, 0, err)
        self.assertIn("stored as secret %s/myreg.io-alice-local" % SCOPE, err)
        for text in (out, err):
            self.assertNotIn(PASSWORD, text)
            self.assertNotIn(AUTH_B64, text)
        self.assertEqual(self.fw.call("GET", "/__fakews/secrets")["scopes"][SCOPE]["myreg.io-alice-local"],
                         AUTH_B64)
        reg = json.loads(self.fw.last("POST", "/api/2.0/ai-compute-manager/images")["body"])
        self.assertEqual(reg, {"docker_image_url": IMAGE, "credentials_scope": SCOPE,
                               "credentials_key": "myreg.io-alice-local"})

    def test_credential_helper_on_path(self):
        bindir = os.path.join(self.tmp.name, "bin")
        os.mkdir(bindir)
        helper = os.path.join(bindir, "docker-credential-team")
        with open(helper, "w") as f:
            f.write('#!/bin/sh\nread reg\n[ "$1" = get ] && [ "$reg" = myreg.io ] || exit 1\n'
                    'echo \'{"Username":"bob","Secret":"%s"}\'\n' % PASSWORD)
        os.chmod(helper, stat.S_IRWXU)
        self.fw.images({IMAGE: {"registered": False, "requires_credentials": True}})
        self.docker_config({"credHelpers": {"myreg.io": "team"}})
        rc, out, err = self.air("register-image", IMAGE, "-o", "json",
                                env={"PATH": bindir + os.pathsep + self.env["PATH"]})
        self.assertEqual(rc, 0, err)
        self.assertNotIn(PASSWORD, out + err)
        self.assertIn("myreg.io-bob-local", self.fw.call("GET", "/__fakews/secrets")["scopes"][SCOPE])

    def test_failing_helpers_are_never_quoted(self):
        """A helper that prints a credential and fails, on stdout or stderr:
        --debug says which helper failed and how, never what it printed."""
        leaked = "leaked-Cr3dential"
        bindir = os.path.join(self.tmp.name, "bin")
        os.mkdir(bindir)
        for name, body in (("out", 'echo \'{"Username":"bob","Secret":"%s"}\'; exit 3' % leaked),
                           ("err", "echo 'token %s refused' >&2; exit 1" % leaked)):
            helper = os.path.join(bindir, "docker-credential-" + name)
            with open(helper, "w") as f:
                f.write("#!/bin/sh\ncat >/dev/null\n%s\n" % body)
            os.chmod(helper, stat.S_IRWXU)
        self.fw.images({IMAGE: {"registered": False, "requires_credentials": True}})
        self.docker_config({"credHelpers": {"myreg.io": "out"}, "credsStore": "err"})
        for args in (("--debug",), ("--debug", "-o", "json")):
            rc, out, err = self.air("register-image", IMAGE, *args,
                                    env={"PATH": bindir + os.pathsep + self.env["PATH"]})
            self.assertEqual(rc, 1)
            self.assertIn("docker-credential-out exited with status 3", err)
            self.assertIn("docker-credential-err exited with status 1", err)
            self.assertNotIn(leaked, out + err)

    def test_secret_scope_not_writable(self):
        self.fw.config(secrets={"can_create_scope": False})
        self.fw.images({IMAGE: {"registered": False, "requires_credentials": True}})
        self.docker_config({"auths": {"myreg.io": {"auth": AUTH_B64}}})
        rc, out, err = self.air("register-image", IMAGE, "-o", "json")
        self.assertEqual(rc, 1)
        e = self.envelope_error(out)
        self.assertEqual((e["code"], e["kind"]), ("REGISTRATION_FAILED", "PERMANENT"))
        self.assertIn("may not create secret scope " + SCOPE, e["message"])
        self.assertNotIn(PASSWORD, out + err)

    def test_ctrl_c_stops_the_wait(self):
        self.fw.images({IMAGE: {"registered": False, "on_register": {"state": "PENDING"}}})
        env = dict(self.env, AIR_REGISTER_POLL_MS="60000")
        p = subprocess.Popen([AIR, "register-image", IMAGE, "-o", "json"], env=env,
                             stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        try:
            deadline = time.monotonic() + 60
            while self.fw.count("POST", "/api/2.0/ai-compute-manager/images") == 0:
                self.assertLess(time.monotonic(), deadline, "the registration was never sent")
                self.assertIsNone(p.poll())
                time.sleep(0.05)
            t0 = time.monotonic()
            p.send_signal(signal.SIGINT)
            out, err = p.communicate(timeout=10)  # a 60 s poll interval is cut short
            took = time.monotonic() - t0
        finally:
            if p.poll() is None:
                p.kill()
                p.communicate()
        self.assertEqual(p.returncode, 1)
        self.assertEqual(out, b"")
        self.assertIn(b"Error: interrupted", err)
        self.assertLess(took, 10)

    def test_docker_image_followed_to_a_run(self):
        self.fw.images({IMAGE: {"registered": False, "requires_credentials": True}})
        self.docker_config({"auths": {"myreg.io": {"auth": AUTH_B64}}})
        yaml = os.path.join(self.tmp.name, "legacy.yaml")
        with open(yaml, "w") as f:
            f.write(WORKLOAD)
        rc, out, err = self.air("run", "-f", yaml, "-o", "json")
        self.assertEqual((rc, out), (1, ""))
        self.assertIn("air register-image %s" % IMAGE, err)
        rc, out, err = self.air("register-image", IMAGE)
        self.assertEqual(rc, 0, err)
        rc, out, err = self.air("run", "-f", yaml, "-o", "json")
        self.assertEqual(rc, 0, err)
        run_id = json.loads(out)["data"]["run_id"]
        self.assertEqual(self.fw.run(int(run_id))["run"]["run_name"], "legacy")


if __name__ == "__main__":
    unittest.main(verbosity=2)
