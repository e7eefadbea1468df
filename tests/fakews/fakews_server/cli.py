"""The command line: options, the default configuration they change, start-up
(port file written atomically once listening), the --parent-pid watch, and
stopping on SIGTERM/SIGINT or the control API's shutdown."""

import argparse
import copy
import json
import os
import signal
import sys
import threading
import time

from .config import default_config
from .replies import ApiError
from .server import Server
from .state import State


def parse_args(argv):
    ap = argparse.ArgumentParser(description="fake Databricks workspace (see README.md)")
    ap.add_argument("--port", type=int, default=0)
    ap.add_argument("--port-file")
    ap.add_argument("--token", action="append", help="accepted bearer token (repeatable)")
    ap.add_argument("--user")
    ap.add_argument("--config", help="JSON object merged into the default configuration")
    ap.add_argument("--log", help="append one line per request to this file")
    ap.add_argument("--parent-pid", type=int, help="exit when this process is gone")
    ap.add_argument("--quiet", action="store_true")
    return ap, ap.parse_args(argv)


def configured_defaults(ap, args):
    """The defaults (what a reset returns to) as changed by --token, --user and --config."""
    defaults = default_config()
    if args.token:
        defaults["tokens"] = args.token
    if args.user:
        defaults["user"] = args.user
    if args.config:
        probe = State(copy.deepcopy(defaults))
        try:
            probe.set_config(json.loads(args.config))
        except (ApiError, ValueError) as e:
            ap.error("--config: %s" % e)
        defaults = probe.config_view()
    return defaults


def watch_parent(pid):
    """Exit as soon as process @pid is gone (checked every 0.2 s)."""
    # When the watched process is our parent, being reparented means it is
    # gone (even while it is an unreaped zombie, which kill(pid, 0) still sees).
    direct = os.getppid() == pid

    def watch():
        while True:
            time.sleep(0.2)
            if direct and os.getppid() != pid:
                os._exit(0)
            try:
                os.kill(pid, 0)
            except ProcessLookupError:
                os._exit(0)
            except PermissionError:
                pass
    threading.Thread(target=watch, daemon=True).start()


def main(argv=None):
    ap, args = parse_args(argv)
    state = State(configured_defaults(ap, args))
    log_file = open(args.log, "a", buffering=1) if args.log else None
    server = Server(("127.0.0.1", args.port), state, log_file)
    port = server.server_address[1]

    def stop(signum, frame):
        raise KeyboardInterrupt

    signal.signal(signal.SIGTERM, stop)
    signal.signal(signal.SIGINT, stop)

    if args.parent_pid:
        watch_parent(args.parent_pid)

    try:
        # Inside the try: a signal may arrive as soon as the port is announced.
        if args.port_file:
            tmp = "%s.tmp.%d" % (args.port_file, os.getpid())
            with open(tmp, "w") as f:
                f.write("%d\n" % port)
            os.replace(tmp, args.port_file)
        if not args.quiet:
            print("fakews listening on http://127.0.0.1:%d" % port, flush=True)
        server.serve_forever(poll_interval=0.1)
    except KeyboardInterrupt:
        pass
    finally:
        try:
            server.socket.close()
        except OSError:
            pass
        if log_file:
            log_file.flush()
        sys.stdout.flush()
        os._exit(0)
