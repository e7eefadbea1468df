"""The air command line against a hostile or careless server and bad local
settings: server-supplied text never reaches the terminal with escape
sequences in it (get panels, list tables, cancel messages, pools, errors, the
no-logs message), log lines stay verbatim unless `air logs --sanitize` runs
on a terminal, and a malformed host or a credential with a line break stops
the command before anything is sent, without quoting the credential."""

import os
import sys
import unittest

ROOT = os.environ.get("AIR_SOURCE_ROOT", os.path.join(os.path.dirname(__file__), "..", ".."))
sys.path.insert(0, os.path.join(ROOT, "tests", "runs"))
# Only helpers: importing a TestCase subclass would run its tests here too.
from test_cli_runs import AIR, LOGS, CliCase, air_task, std_run  # noqa: E402
from cli_case import run_on_terminal  # noqa: E402

# OSC title change, clear screen, the 8-bit CSI (U+009B), a right-to-left
# override and a bell: each one drives a terminal rather than being shown.
EVIL = "\x1b]0;pwned\x07\x1b[2J\x9b31m\u202eevil\rX\n"
CONTROLS = ("\x1b", "\x07", "\x9b", "\u202e", "\r")


class TerminalText(CliCase):
    def assert_clean(self, text):
        for c in CONTROLS:
            self.assertNotIn(c, text, repr(text))

    def evil_run(self, rid=123):
        run = std_run(rid, run_name=EVIL, creator_user_name="u" + EVIL,
                      environments=[{"environment_key": "default",
                                     "spec": {"environment_version": "6" + EVIL}}])
        run["tasks"][0]["ai_runtime_task"]["experiment"] = "exp" + EVIL
        run["state"]["state_message"] = EVIL
        self.fw.create_run(run)
        self.fw.set_output(rid, {"ai_runtime_task_output": {"mlflow_experiment_id": "exp1",
                                                            "mlflow_run_id": "run1"}})
        self.fw.mlflow({"run1": {"experiment_id": "exp1", "run_name": "m" + EVIL}})

    def test_get_panels(self):
        self.evil_run()
        rc, out, err = self.air("get", "123")
        self.assertEqual(rc, 0, err)
        self.assert_clean(out)
        self.assertIn("exp?]0;pwned??[2J?31m?evil?X?", out)
        self.assertIn("User:         u?]0;pwned", out)
        # JSON keeps the server's text (escaped by JSON itself).
        rc, out, err = self.air("get", "123", "-o", "json")
        self.assertEqual(rc, 0, err)
        self.assertIn("\\u001B]0;pwned", out)

    def test_get_shows_the_uploaded_yaml_cleaned(self):
        self.evil_run()
        run = self.fw.run(123)["run"]
        path = run["tasks"][0]["ai_runtime_task"]["deployments"][0]["command_path"]
        self.fw.put_file(path.rsplit("/", 1)[0] + "/training_config.yaml",
                         ("experiment_name: x\ncommand: echo " + EVIL + "\n").encode())
        rc, out, err = self.air("get", "123")
        self.assertEqual(rc, 0, err)
        self.assert_clean(out)
        self.assertIn("command: echo ?]0;pwned", out)

    def test_list_table(self):
        self.evil_run(123)
        rc, out, err = self.air("list", "--all-status", "--all-users")
        self.assertEqual(rc, 0, err)
        self.assert_clean(out)
        self.assertIn("exp?]0;pwned", out)

    def test_cancel_messages(self):
        self.fw.fault(method="POST", path="/api/2.2/jobs/runs/cancel", status=500, times=-1,
                      body={"error_code": "INTERNAL_ERROR", "message": "no" + EVIL})
        rc, out, err = self.air("cancel", "77")
        self.assertEqual(rc, 1)
        self.assert_clean(err)
        self.assertIn("no?]0;pwned", err)

    def test_pools(self):
        self.fw.pools([{"name": "provisioned-capacities/p" + EVIL,
                        "spec": {"accelerator_type": "GPU" + EVIL, "accelerator_count": 8}}])
        rc, out, err = self.air("list", "pools")
        self.assertEqual(rc, 0, err)
        self.assert_clean(out)
        self.assertIn("p?]0;pwned", out)

    def test_errors(self):
        self.fw.fault(path="/api/2.2/jobs/runs/get", status=400, times=-1,
                      body={"error_code": "INVALID_PARAMETER_VALUE", "message": "bad" + EVIL})
        rc, out, err = self.air("get", "7")
        self.assertEqual(rc, 1)
        self.assert_clean(err)
        self.assertIn("bad?]0;pwned", err)

    def test_error_messages_stay_on_one_line(self):
        """A server cannot print lines of its own on stderr: the line breaks
        of its message are shown escaped, on the error's line."""
        self.fw.fault(path="/api/2.2/jobs/runs/get", status=400, times=-1,
                      body={"error_code": "INVALID_PARAMETER_VALUE",
                            "message": "bad\r\nError: forged\nline"})
        for args in (("get", "7"), ("logs", "7")):
            rc, out, err = self.air(*args)
            self.assertEqual(rc, 1)
            self.assertEqual(len(err.splitlines()), 1, err)
            self.assertIn("bad\\r\\nError: forged\\nline", err)

    def test_no_logs_message(self):
        self.fw.create_run({"run_id": 9, "state": {"life_cycle_state": "TERMINATED",
                                                    "result_state": "FAILED", "state_message": EVIL},
                            "tasks": [{"ai_runtime_task": {}}], "output": {}})
        rc, out, err = self.air("logs", "9")
        self.assertEqual(rc, 1, err)
        self.assert_clean(out)


class LogLines(CliCase):
    LINE = "step \x1b[1mbold\x1b[0m \x9b\u202e done"

    def setUp(self):
        super().setUp()
        self.fw.create_run(std_run(123))
        self.fw.add_logs(123, records=[{"time_unix_nano": 1700000001000000000, "body": self.LINE}])

    def air_pty(self, *args, timeout=60):
        """Run air with stdout on a pseudo-terminal: (exit code, terminal output)."""
        rc, _, _, tty = run_on_terminal([AIR, *args], self.env, ("stdout",), timeout=timeout)
        return rc, tty

    def test_verbatim_into_a_pipe_even_with_sanitize(self):
        for flags in ([], ["--sanitize"]):
            rc, out, err = self.air("logs", "123", *flags)
            self.assertEqual((rc, out), (0, self.LINE + "\n"), err)

    def test_verbatim_on_a_terminal_by_default(self):
        rc, tty = self.air_pty("logs", "123")
        self.assertEqual(rc, 0)
        self.assertIn("\x1b[1mbold", tty)

    def test_sanitized_on_a_terminal_when_asked(self):
        rc, tty = self.air_pty("logs", "123", "--sanitize")
        self.assertEqual(rc, 0)
        self.assertIn("step ?[1mbold?[0m ?? done", tty)
        self.assertNotIn("\x1b", tty)


class BadSettings(CliCase):
    def test_malformed_host_stops_before_any_request(self):
        for host in ("http:/example.invalid", "https:example.com", "http//x",
                     "https://http//x.example", "https://me:hunter22@https//x"):
            rc, out, err = self.air("get", "1", env={"DATABRICKS_HOST": host,
                                                     "DATABRICKS_TOKEN": "dapi-sekrit"})
            self.assertEqual(rc, 1, err)
            self.assertIn("the host URL is malformed", err)
            self.assertNotIn("hunter22", err)
            self.assertNotIn("sekrit", err)
        self.assertEqual(self.fw.requests(), [])

    def test_line_break_in_a_token_stops_before_any_request(self):
        rc, out, err = self.air("get", "1", env={"DATABRICKS_TOKEN": "dapi-sekrit\r\nX-Injected: 1"})
        self.assertEqual(rc, 1, err)
        self.assertIn("environment variable DATABRICKS_TOKEN", err)
        self.assertIn("control character", err)
        self.assertNotIn("sekrit", err)
        self.assertNotIn("Injected", err)
        self.assertEqual(self.fw.requests(), [])


if __name__ == "__main__":
    unittest.main()
