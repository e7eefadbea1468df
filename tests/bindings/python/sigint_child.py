"""Child process of test_sigint.py: makes one blocking call of the kind
named on the command line, which the parent interrupts with SIGINT, and
prints how it ended as its last line:

    <outcome> <threads still alive> <wakeup fd left behind (-1)>

    python3 sigint_child.py KIND URL ARG
"""

import os
import signal
import sys
import tempfile
import threading
import time
from concurrent.futures import ThreadPoolExecutor

from bindtest import MINIMAL_YAML, TOKEN, air

KIND, URL, ARG = sys.argv[1], sys.argv[2], sys.argv[3]


class Boom(Exception):
    """Raised by the user's SIGINT handler."""


def report(outcome):
    print(outcome, threading.active_count(), signal.set_wakeup_fd(-1), flush=True)


def call(client, kind):
    """The blocking call of @kind."""
    if kind in ("get", "user_raises", "user_returns"):
        client.get_run(int(ARG))
    elif kind == "submit":
        client.submit(air.Config.loads(MINIMAL_YAML), idempotency_key="sigint-submit")
    elif kind == "wait":
        client.wait(int(ARG), poll_interval=60)
    elif kind in ("logs", "logs_resume"):
        for rec in client.logs(int(ARG), poll_interval=0.05):
            print("record", rec.line, flush=True)
    elif kind == "list":
        for run in client.list_runs(limit=5):
            print("run", run.run_id, flush=True)
    elif kind == "cancel":
        client.cancel_run(int(ARG))
    elif kind == "download":
        with tempfile.TemporaryDirectory() as d:
            client.download_logs(int(ARG), d)
    elif kind == "pools":
        client.list_pools()
    elif kind == "push":
        client.push_image("example/img:1", "main", "images", registry_host="r.container.example",
                          docker=ARG)
    elif kind == "register":
        client.register_image(ARG, poll_interval=60, discover=False)
    elif kind == "nested":
        client.submit(air.Config.loads(MINIMAL_YAML), idempotency_key="sigint-nested",
                      progress=lambda p: client.get_run(555) if p.phase is air.Phase.SUBMIT
                      else None)
    elif kind == "callback":
        client.wait(int(ARG), poll_interval=60, on_state=lambda run: time.sleep(60))
    else:
        raise SystemExit("unknown kind " + kind)


def main():
    client = air.Client(URL, TOKEN, use_environment=False, retry_backoff=0.01)
    handled = []
    if KIND == "user_raises":
        def handler(signum, frame):
            raise Boom("handler ran")
        signal.signal(signal.SIGINT, handler)
    elif KIND in ("user_returns", "logs_resume"):
        signal.signal(signal.SIGINT, lambda signum, frame: handled.append(signum))
    if KIND == "thread":  # the pattern of docs/python.md, "Threads"
        stop = air.Interrupt()
        client = air.Client(URL, TOKEN, use_environment=False, interrupt=stop)
        pool = ThreadPoolExecutor(2)
        futures = [pool.submit(client.get_run, int(ARG)) for _ in range(2)]
        try:
            try:
                [f.result() for f in futures]
            except KeyboardInterrupt:
                stop.trigger()
                raise
            finally:
                pool.shutdown()
        except KeyboardInterrupt:
            report("KeyboardInterrupt+" + ",".join(type(f.exception()).__name__ for f in futures))
        return
    try:
        call(client, KIND)
        report("returned handled=%d" % len(handled))
    except KeyboardInterrupt:
        report("KeyboardInterrupt")
    except Boom:
        report("Boom")
    except air.AirError as exc:
        report("%s:%s" % (type(exc).__name__, exc))
    client.close()


if __name__ == "__main__":
    main()
