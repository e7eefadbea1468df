"""CLI tests of `air metrics` and the Metrics panel of `air get` against the
fake workspace: charts at a fixed width, the table of many metrics, JSON,
runs without metrics, --metric, --watch of a finished and of an active run."""

import json
import os
import subprocess
import sys
import time
import unittest

ROOT = os.environ.get("AIR_SOURCE_ROOT", os.path.join(os.path.dirname(__file__), "..", ".."))
sys.path.insert(0, os.path.join(ROOT, "tests", "support"))
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from cli_case import AIR, WorkspaceCase, run_on_terminal  # noqa: E402
from test_cli_runs import std_run  # noqa: E402

HISTORY = "/api/2.0/mlflow/metrics/get-history"


def points(values, start_step=0):
    return [{"value": v, "step": start_step + i, "timestamp": 1700000000000 + i * 1000}
            for i, v in enumerate(values)]


class MetricsTest(WorkspaceCase):
    EXTRA_ENV = {"AIR_LOGS_POLL_MS": "20", "COLUMNS": "60", "LINES": ""}

    def run_with_metrics(self, rid=123, result="SUCCESS", **metrics):
        self.fw.create_run(std_run(rid, result))
        mlflow = self.fw.mlflow_run_of(rid)
        if metrics:
            self.fw.add_metrics(mlflow, {k.replace("__", "/"): points(v) for k, v in metrics.items()})
        return mlflow

    def test_a_line_chart_at_the_terminal_width(self):
        self.run_with_metrics(loss=[4, 2, 1, 0.5, 0.25])
        rc, out, err = self.air("metrics", "123")
        self.assertEqual((rc, err), (0, ""))
        self.assertEqual(out, (
            "loss  last 0.25 (step 4)  min 0.25  max 4\n"
            "   4 ┤⠑⠢⣀⠀⠀⠀⠀⠀⠀⠀⠀⠀⠀⠀⠀⠀⠀⠀⠀⠀⠀⠀⠀⠀⠀⠀⠀⠀⠀⠀⠀⠀⠀⠀⠀⠀⠀⠀⠀⠀⠀⠀⠀⠀⠀⠀⠀⠀⠀⠀⠀⠀⠀⠀\n"
            "     │⠀⠀⠀⠉⠢⢄⠀⠀⠀⠀⠀⠀⠀⠀⠀⠀⠀⠀⠀⠀⠀⠀⠀⠀⠀⠀⠀⠀⠀⠀⠀⠀⠀⠀⠀⠀⠀⠀⠀⠀⠀⠀⠀⠀⠀⠀⠀⠀⠀⠀⠀⠀⠀⠀\n"
            "     │⠀⠀⠀⠀⠀⠀⠉⠒⢄⡀⠀⠀⠀⠀⠀⠀⠀⠀⠀⠀⠀⠀⠀⠀⠀⠀⠀⠀⠀⠀⠀⠀⠀⠀⠀⠀⠀⠀⠀⠀⠀⠀⠀⠀⠀⠀⠀⠀⠀⠀⠀⠀⠀⠀\n"
            "     │⠀⠀⠀⠀⠀⠀⠀⠀⠀⠈⠒⠤⡀⠀⠀⠀⠀⠀⠀⠀⠀⠀⠀⠀⠀⠀⠀⠀⠀⠀⠀⠀⠀⠀⠀⠀⠀⠀⠀⠀⠀⠀⠀⠀⠀⠀⠀⠀⠀⠀⠀⠀⠀⠀\n"
            "     │⠀⠀⠀⠀⠀⠀⠀⠀⠀⠀⠀⠀⠈⠑⠢⠤⢄⣀⠀⠀⠀⠀⠀⠀⠀⠀⠀⠀⠀⠀⠀⠀⠀⠀⠀⠀⠀⠀⠀⠀⠀⠀⠀⠀⠀⠀⠀⠀⠀⠀⠀⠀⠀⠀\n"
            "     │⠀⠀⠀⠀⠀⠀⠀⠀⠀⠀⠀⠀⠀⠀⠀⠀⠀⠀⠉⠑⠒⠢⠤⣀⡀⠀⠀⠀⠀⠀⠀⠀⠀⠀⠀⠀⠀⠀⠀⠀⠀⠀⠀⠀⠀⠀⠀⠀⠀⠀⠀⠀⠀⠀\n"
            "     │⠀⠀⠀⠀⠀⠀⠀⠀⠀⠀⠀⠀⠀⠀⠀⠀⠀⠀⠀⠀⠀⠀⠀⠀⠈⠉⠑⠒⠒⠤⠤⠤⣀⣀⣀⡀⠀⠀⠀⠀⠀⠀⠀⠀⠀⠀⠀⠀⠀⠀⠀⠀⠀⠀\n"
            "0.25 ┤⠀⠀⠀⠀⠀⠀⠀⠀⠀⠀⠀⠀⠀⠀⠀⠀⠀⠀⠀⠀⠀⠀⠀⠀⠀⠀⠀⠀⠀⠀⠀⠀⠀⠀⠀⠈⠉⠉⠑⠒⠒⠒⠒⠢⠤⠤⠤⠤⠤⠤⢄⣀⣀⣀\n"
            "     └──────────────────────────────────────────────────────\n"
            "      0                                                    4  step\n"))
        # Every row of the chart is as wide as the terminal.
        rows = out.splitlines()[1:9]
        self.assertTrue(all(len(r) == 60 for r in rows), [len(r) for r in rows])
        rc, out, _ = self.air("metrics", "123", env={"COLUMNS": "100"})
        self.assertTrue(all(len(r) == 100 for r in out.splitlines()[1:9]))

    def test_many_metrics_are_a_table_with_sparklines(self):
        self.run_with_metrics(a=[1, 2, 3], b=[3, 2, 1], c=[5], d=[0.5, "NaN", 1.5], e=[1, 1],
                              system__gpu_0_utilization_percentage=[50, 100])
        rc, out, err = self.air("metrics", "123")
        self.assertEqual((rc, err), (0, ""))
        lines = out.splitlines()
        self.assertEqual(lines[0].split(), ["METRIC", "LAST", "MIN", "MAX", "POINTS", "TREND"])
        self.assertEqual(len(lines), 7)
        self.assertEqual(lines[1].split(), ["a", "3", "1", "3", "3", "▁▅█"])
        self.assertEqual(lines[2].split(), ["b", "1", "1", "3", "3", "█▅▁"])
        self.assertEqual(lines[4].split(), ["d", "1.5", "0.5", "1.5", "3", "▁", "█"])
        self.assertEqual(lines[6].split(), ["system/gpu_0_utilization_percentage", "100", "50",
                                            "100", "2", "▁█"])

    def test_json_has_every_point(self):
        self.run_with_metrics(loss=[2.5, "NaN", "Infinity", 0.5],
                              system__gpu_0_utilization_percentage=[87])
        rc, out, err = self.air("metrics", "123", "-o", "json")
        self.assertEqual((rc, err), (0, ""))
        doc = json.loads(out)
        self.assertEqual(doc["v"], 1)
        self.assertEqual(doc["data"], {"run_id": "123", "metrics": {
            "loss": [{"step": 0, "value": 2.5, "timestamp": 1700000000000},
                     {"step": 1, "value": "NaN", "timestamp": 1700000001000},
                     {"step": 2, "value": "Infinity", "timestamp": 1700000002000},
                     {"step": 3, "value": 0.5, "timestamp": 1700000003000}],
            "system/gpu_0_utilization_percentage": [
                {"step": 0, "value": 87.0, "timestamp": 1700000000000}]}})
        self.assertEqual(list(doc["data"].keys()), ["run_id", "metrics"])

    def test_metric_selects_and_orders(self):
        self.run_with_metrics(acc=[0.5, 0.75], loss=[2, 1], lr=[0.1])
        rc, out, err = self.air("metrics", "123", "--metric", "loss", "--metric", "acc",
                                "--metric", "nope", "-o", "json")
        self.assertEqual(rc, 0, err)
        metrics = json.loads(out)["data"]["metrics"]
        self.assertEqual(list(metrics.keys()), ["loss", "acc", "nope"])
        self.assertEqual(metrics["nope"], [])
        self.assertEqual(err, 'Note: run 123 has no metric "nope"; its metrics: acc, loss, lr.\n')
        # Only the named histories are read.
        keys = {r["query"]["metric_key"][0] for r in self.fw.requests("GET", HISTORY, bodies=False)}
        self.assertEqual(keys, {"loss", "acc", "nope"})
        # a name the ended run never logged: said on stderr with what it has (a typo?)
        rc, out, err = self.air("metrics", "123", "--metric", "nope")
        self.assertEqual((rc, out), (0, "nope  (no points)\n"))
        self.assertEqual(err, 'Note: run 123 has no metric "nope"; its metrics: acc, loss, lr.\n')
        rc, out, err = self.air("metrics", "123", "--metric", "loss")
        self.assertEqual((rc, err), (0, ""))
        self.run_with_metrics(rid=124)
        rc, out, err = self.air("metrics", "124", "--metric", "loss")
        self.assertEqual((rc, err), (0, 'Note: run 124 has no metric "loss"; it has none.\n'))

    def test_a_run_without_metrics_says_so_and_exits_0(self):
        self.run_with_metrics()
        rc, out, err = self.air("metrics", "123")
        self.assertEqual((rc, err), (0, ""))
        self.assertEqual(out, "Run 123 has no metrics: nothing was logged to its MLflow run.\n")
        self.fw.create_run({"run_id": 200, "state": {"life_cycle_state": "PENDING"},
                            "tasks": [{"ai_runtime_task": {"experiment": "x"}}]})
        rc, out, err = self.air("metrics", "200")
        self.assertEqual((rc, err), (0, ""))
        self.assertEqual(out, "Run 200 has no metrics: it has no MLflow run yet (PENDING).\n")
        rc, out, err = self.air("metrics", "200", "-o", "json")
        self.assertEqual(json.loads(out)["data"], {"run_id": "200", "metrics": {}})

    def test_errors(self):
        rc, out, err = self.air("metrics", "5", "-o", "json")
        self.assertEqual(rc, 1)
        self.assertEqual(json.loads(out)["error"]["code"], "NOT_FOUND")
        rc, out, err = self.air("metrics", "abc")
        self.assertEqual(rc, 1)
        self.assertIn("invalid run ID", err)
        rc, out, err = self.air("metrics")
        self.assertEqual(rc, 1)
        self.assertIn("accepts 1 arg(s), received 0", err)
        rc, out, err = self.air("metrics", "123", "--metric", "")
        self.assertEqual(rc, 1)
        self.assertIn("--metric needs a metric name", err)

    def test_watch_of_a_finished_run_draws_once_with_its_outcome(self):
        self.run_with_metrics(loss=[2, 1])
        rc, out, err = self.air("metrics", "123", "--watch")
        self.assertEqual((rc, err), (0, ""))
        self.assertTrue(out.startswith("loss  last 1 (step 1)  min 1  max 2\n"), out)
        self.assertTrue(out.endswith("Run 123 ended: SUCCESS.\n"), out)
        self.run_with_metrics(300, "FAILED", loss=[2, 1])
        rc, out, err = self.air("metrics", "300", "--watch")
        self.assertEqual(rc, 1)
        self.assertTrue(out.endswith("Run 300 ended: FAILED.\n"), out)

    def wait_for_reads(self, n, proc):
        """Until @n get-history requests were made (the CLI polls)."""
        deadline = time.monotonic() + 120   # ends a hang only
        while self.fw.count("GET", HISTORY) < n:
            self.assertIsNone(proc.poll(), "air metrics ended early")
            self.assertLess(time.monotonic(), deadline)
            time.sleep(0.02)

    def test_watch_follows_an_active_run_to_its_end(self):
        self.fw.create_run({"run_id": 400, "start_time": 1700000000000,
                            "state": {"life_cycle_state": "RUNNING"},
                            "tasks": [{"ai_runtime_task": {"experiment": "w"}}]})
        mlflow = self.fw.mlflow_run_of(400)
        self.fw.add_metrics(mlflow, {"loss": points([3])})
        p = subprocess.Popen([AIR, "metrics", "400", "--watch", "-o", "json"], env=self.env,
                             stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                             stderr=subprocess.PIPE, text=True)
        try:
            self.wait_for_reads(1, p)
            self.fw.add_metrics(mlflow, {"loss": points([2, 1], start_step=1),
                                         "acc": points([0.5])})
            seen = self.fw.count("GET", HISTORY)
            self.wait_for_reads(seen + 2, p)
            self.fw.add_metrics(mlflow, {"loss": points([0.5], start_step=3)})
            self.fw.update_run(400, {"state": {"life_cycle_state": "TERMINATED",
                                               "result_state": "SUCCESS"}})
            out, err = p.communicate(timeout=120)
        finally:
            if p.poll() is None:
                p.kill()
                p.wait()
        self.assertEqual((p.returncode, err), (0, ""))
        metrics = json.loads(out)["data"]["metrics"]
        self.assertEqual([x["value"] for x in metrics["loss"]], [3, 2, 1, 0.5])
        self.assertEqual([x["step"] for x in metrics["loss"]], [0, 1, 2, 3])
        self.assertEqual([x["value"] for x in metrics["acc"]], [0.5])

    def test_watch_redraws_on_a_terminal(self):
        self.fw.create_run({"run_id": 500, "start_time": 1700000000000,
                            "state": {"life_cycle_state": "RUNNING"},
                            "tasks": [{"ai_runtime_task": {"experiment": "w"}}],
                            "sequence": [{}, {}, {"state": {"life_cycle_state": "TERMINATED",
                                                            "result_state": "SUCCESS"}}]})
        self.fw.add_metrics(self.fw.mlflow_run_of(500), {"loss": points([2, 1])})
        env = dict(self.env, TERM="xterm", COLUMNS="", LINES="")
        rc, out, err, screen = run_on_terminal([AIR, "metrics", "500", "--watch"], env,
                                               columns=70)
        self.assertEqual((rc, err), (0, ""))
        self.assertIn("Run 500 is RUNNING: watching its metrics (Ctrl-C stops watching).", screen)
        self.assertIn("\x1b[H\x1b[2J", screen)   # xterm's clear
        self.assertTrue(screen.rstrip().endswith("Run 500 ended: SUCCESS."), screen[-200:])
        # Sized to the terminal: 70 columns.
        rows = [r for r in screen.replace("\x1b[H\x1b[2J", "\n").splitlines() if "┤" in r]
        self.assertTrue(rows and all(len(r.rstrip("\r")) == 70 for r in rows), rows)


class GetPanelTest(WorkspaceCase):
    def test_the_latest_values_of_up_to_eight_metrics(self):
        self.fw.create_run(std_run(123))
        mlflow = self.fw.mlflow_run_of(123)
        self.fw.add_metrics(mlflow, {"loss": points([2, 0.25]), "acc": points([0.5, 0.875]),
                                     "system/gpu_0_utilization_percentage": points([90])})
        rc, out, err = self.air("get", "123")
        self.assertEqual(rc, 0, err)
        panel = out[out.index("╭─ Metrics"):].splitlines()
        self.assertEqual([l.strip("│ ").rstrip() for l in panel[1:-1]], [
            "acc                                  0.875 (step 1)",
            "loss                                 0.25 (step 1)",
            "system/gpu_0_utilization_percentage  90 (step 0)"])
        # Beyond eight: the workload's first, the system metrics last, a count.
        self.fw.add_metrics(mlflow, {"m%d" % i: points([i]) for i in range(8)})
        rc, out, err = self.air("get", "123")
        panel = out[out.index("╭─ Metrics"):].splitlines()
        self.assertEqual(len(panel), 11)
        self.assertIn("(3 more: air metrics 123)", panel[-2])
        self.assertNotIn("system/", out[out.index("╭─ Metrics"):])
        # JSON is unchanged.
        rc, out, err = self.air("get", "123", "-o", "json")
        self.assertNotIn("metrics", json.loads(out)["data"])

    def test_no_panel_without_metrics(self):
        self.fw.create_run(std_run(123))
        rc, out, err = self.air("get", "123")
        self.assertEqual(rc, 0, err)
        self.assertNotIn("Metrics", out)


if __name__ == "__main__":
    unittest.main(verbosity=2)
