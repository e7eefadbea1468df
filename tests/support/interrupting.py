"""Ctrl-C for tests of programs that follow runs: start a program, wait
until it is where the test wants it, send SIGINT, collect how it ended."""

import signal
import subprocess


def line_starting(prefix):
    """A readiness check for interrupt(): a stdout line starting with @prefix
    (the lines read up to it are not in the returned output)."""
    def ready(proc):
        for line in proc.stdout:
            if line.startswith(prefix):
                return
    return ready


def interrupt(argv, env, ready, timeout=60):
    """Run @argv with @env (text pipes), call ready(proc) until it returns,
    send SIGINT; (exit status, rest of stdout, stderr). The process is killed
    if it outlives @timeout after the signal (or the test fails first)."""
    proc = subprocess.Popen(argv, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            text=True)
    try:
        ready(proc)
        proc.send_signal(signal.SIGINT)
        out, err = proc.communicate(timeout=timeout)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.communicate()
    return proc.returncode, out, err
