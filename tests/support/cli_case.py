"""What the command-line tests share: a fake workspace for a test class, the
`air` program run against it with an environment of its own, and `air` run
with some of its standard streams on a pseudo-terminal.

    from cli_case import AIR, WorkspaceCase, run_on_terminal

Standard library only.
"""

import fcntl
import os
import pty
import struct
import subprocess
import tempfile
import termios
import threading

from fakews_client import FakeWSCase

__all__ = ["AIR", "WorkspaceCase", "run_on_terminal"]

AIR = os.environ.get("AIR_CLI", "air")


class WorkspaceCase(FakeWSCase):
    """Tests of `air` against the fake workspace (self.fw, one for the class,
    reset before each test) in an environment of their own (self.env): the caller's,
    without the variables whose names start with one of DROP_ENV, with HOME a
    fresh temporary directory (self.tmp; self.home is its path), an empty
    config file there, DATABRICKS_HOST (the fake workspace) and a token, and
    EXTRA_ENV. TMP_DIR is where the temporary directory is made (None: the
    default)."""

    DROP_ENV = ("DATABRICKS_",)
    EXTRA_ENV = {}
    TMP_DIR = None

    def setUp(self):
        super().setUp()
        self.tmp = tempfile.TemporaryDirectory(dir=self.TMP_DIR)
        self.addCleanup(self.tmp.cleanup)
        self.home = self.tmp.name
        cfg = os.path.join(self.home, "databrickscfg")
        open(cfg, "w").close()
        self.env = {k: v for k, v in os.environ.items()
                    if not k.startswith(self.DROP_ENV) and k not in self.EXTRA_ENV}
        self.env.update(HOME=self.home, DATABRICKS_HOST=self.fw.url, DATABRICKS_TOKEN="dapi-test",
                        DATABRICKS_CONFIG_FILE=cfg, **self.EXTRA_ENV)

    def air(self, *args, stdin=None, env=None, cwd=None, timeout=60):
        """Run `air ARGS` to its end: (exit status, stdout, stderr). @stdin is
        its input (none when None), @env variables added to self.env."""
        p = subprocess.run([AIR, *args], input=stdin, env=dict(self.env, **(env or {})), cwd=cwd,
                           stdin=subprocess.DEVNULL if stdin is None else None,
                           capture_output=True, text=True, timeout=timeout)
        return p.returncode, p.stdout, p.stderr


def run_on_terminal(argv, env, terminal=("stdout",), columns=200, timeout=60):
    """Run @argv with the streams named in @terminal ("stdin", "stdout",
    "stderr") on a pseudo-terminal of @columns columns, stdout on a pipe
    otherwise and stderr, when not on the terminal, on another pipe:
    (exit status, stdout or "" when it is on the terminal, stderr or "" when
    it is on the terminal, everything written to the terminal)."""
    master, slave = pty.openpty()
    fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", 24, columns, 0, 0))
    streams = {name: slave if name in terminal else subprocess.PIPE
               for name in ("stdout", "stderr")}
    try:
        p = subprocess.Popen(argv, env=env, stdin=slave if "stdin" in terminal else subprocess.DEVNULL,
                             **streams)
    finally:
        os.close(slave)
    chunks = []

    def drain():
        while True:
            try:
                data = os.read(master, 65536)
            except OSError:  # EIO: the last descriptor of the terminal is closed
                return
            if not data:
                return
            chunks.append(data)

    reader = threading.Thread(target=drain, daemon=True)
    reader.start()
    try:
        out, err = p.communicate(timeout=timeout)
    finally:
        if p.poll() is None:
            p.kill()
            p.wait()
        reader.join(10)
        os.close(master)
    return (p.returncode, (out or b"").decode("utf-8", "replace"),
            (err or b"").decode("utf-8", "replace"), b"".join(chunks).decode("utf-8", "replace"))
