#!/usr/bin/env python3
"""fakews: a fake Databricks workspace for libair's tests.

The entry script: `python3 fakews.py [--port 0] [--port-file F] ...` (see
README.md). The server is the fakews_server package next to this file; that
directory is put on sys.path explicitly (python3 -I or -P would leave it out).
"""

import os
import sys

sys.path.insert(0, os.path.dirname(os.path.realpath(__file__)))

from fakews_server import main  # noqa: E402

if __name__ == "__main__":
    main()
