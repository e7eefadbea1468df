"""`air images push` end to end with recording fake `docker` and `databricks`
programs first on PATH (no Docker engine): exact argument vectors, output
shapes, and plain `Error:` failures (docs/submit.md#air-images-push)."""

import json
import os
import stat
import subprocess
import tempfile
import unittest

AIR = os.environ.get("AIR_CLI", "air")
HOST = "dbc-1234.container.cloud.databricks.com"

FAKE_DOCKER = r"""#!/bin/sh
here="$(dirname "$0")"
(IFS='|'; echo "docker|$*") >> "$here/calls.log"
case "$1" in
image) echo "${FAKE_PLATFORM:-linux/amd64}";;
push) if [ -n "$FAKE_PUSH_FAILS" ]; then echo 'unauthorized: authentication required' >&2; exit 1; fi;;
esac
exit 0
"""

FAKE_DATABRICKS = r"""#!/bin/sh
(IFS='|'; echo "databricks|$*") >> "$(dirname "$0")/calls.log"
echo "Docker credential helper configured for %s"
""" % HOST


class ImagesPush(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        self.addCleanup(self.tmp.cleanup)
        self.bin = os.path.join(self.tmp.name, "bin")
        os.mkdir(self.bin)
        for name, text in (("docker", FAKE_DOCKER), ("databricks", FAKE_DATABRICKS)):
            path = os.path.join(self.bin, name)
            with open(path, "w") as f:
                f.write(text)
            os.chmod(path, stat.S_IRWXU)
        self.env = {k: v for k, v in os.environ.items() if not k.startswith(("DATABRICKS_", "FAKE_"))}
        self.env.update(PATH=self.bin + os.pathsep + os.environ.get("PATH", ""), HOME=self.tmp.name)

    def air(self, *args, **env):
        e = dict(self.env, **env)
        p = subprocess.run([AIR, *args], env=e, capture_output=True, text=True, timeout=60,
                           stdin=subprocess.DEVNULL)
        return p.returncode, p.stdout, p.stderr

    def calls(self):
        try:
            with open(os.path.join(self.bin, "calls.log")) as f:
                return [line.rstrip("\n").split("|") for line in f]
        except FileNotFoundError:
            return []

    def test_push_text(self):
        rc, out, err = self.air("images", "push", "-s", "myimg:1.0", "--catalog", "main",
                                "--schema", "ml", "-p", "prof")
        self.assertEqual(rc, 0, err)
        self.assertIn("Preview", err)
        self.assertEqual(len(out.splitlines()), 1)
        self.assertIn("environment.unity_catalog_image", out)
        self.assertIn("main.ml.myimg:1.0", out)
        self.assertEqual(self.calls(), [
            ["databricks", "auth", "docker", "configure", "prof"],
            ["docker", "image", "inspect", "--format", "{{.Os}}/{{.Architecture}}", "myimg:1.0"],
            ["docker", "tag", "myimg:1.0", HOST + "/main.ml.myimg:1.0"],
            ["docker", "push", HOST + "/main.ml.myimg:1.0"],
        ])

    def test_push_json_pull_and_artifact(self):
        rc, out, err = self.air("images", "push", "--source", "team/base", "--catalog", "main",
                                "--schema", "ml", "--artifact", "trainer:v2", "--pull", "-o", "json",
                                DATABRICKS_CONFIG_PROFILE="envprof")
        self.assertEqual(rc, 0, err)
        env = json.loads(out)
        self.assertEqual(env["data"], {"unity_catalog_image": "main.ml.trainer:v2",
                                       "registry_image": HOST + "/main.ml.trainer:v2"})
        self.assertEqual(self.calls(), [
            ["databricks", "auth", "docker", "configure", "envprof"],
            ["docker", "pull", "--platform", "linux/amd64", "team/base"],
            ["docker", "image", "inspect", "--format", "{{.Os}}/{{.Architecture}}", "team/base"],
            ["docker", "tag", "team/base", HOST + "/main.ml.trainer:v2"],
            ["docker", "push", HOST + "/main.ml.trainer:v2"],
        ])

    def assert_plain_error(self, rc, out, err, *needles):
        self.assertEqual(rc, 1)
        self.assertEqual(out, "")
        self.assertIn("Error: ", err)
        for n in needles:
            self.assertIn(n, err)

    def test_missing_flag(self):
        rc, out, err = self.air("images", "push", "-s", "myimg", "--schema", "ml", "-p", "p", "-o", "json")
        self.assert_plain_error(rc, out, err, "--catalog")
        self.assertEqual(self.calls(), [])

    def test_invalid_names_and_no_profile(self):
        rc, out, err = self.air("images", "push", "-s", "myimg", "--catalog", "Main", "--schema", "ml",
                                "-p", "p", "-o", "json")
        self.assert_plain_error(rc, out, err, "Main")
        # The library names the option; the CLI adds its flag.
        rc, out, err = self.air("images", "push", "-s", "team/My_Img:v1", "--catalog", "main",
                                "--schema", "ml", "-p", "p")
        self.assert_plain_error(rc, out, err, "My_Img", "the artifact option",
                                "name it explicitly with --artifact NAME[:TAG]")
        rc, out, err = self.air("images", "push", "-s", "myimg", "--catalog", "main", "--schema", "ml")
        self.assert_plain_error(rc, out, err, "databricks auth login", "; pass --profile NAME")
        self.assertEqual(self.calls(), [])

    def test_docker_failures(self):
        rc, out, err = self.air("images", "push", "-s", "myimg", "--catalog", "main", "--schema", "ml",
                                "-p", "p", "-o", "json", FAKE_PUSH_FAILS="1")
        self.assert_plain_error(rc, out, err, "docker push", "unauthorized: authentication required")
        rc, out, err = self.air("images", "push", "-s", "myimg", "--catalog", "main", "--schema", "ml",
                                "-p", "p", FAKE_PLATFORM="linux/arm64")
        self.assert_plain_error(rc, out, err, "linux/arm64", "linux/amd64",
                                "pass --pull to fetch the linux/amd64 variant")

    def test_subcommand_required(self):
        rc, out, err = self.air("images")
        self.assert_plain_error(rc, out, err, "push")


if __name__ == "__main__":
    unittest.main()
