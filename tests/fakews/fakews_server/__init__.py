"""fakews_server: a fake Databricks workspace for libair's tests.

A stateful HTTP/1.1 server on 127.0.0.1 (standard library only) implementing
the workspace endpoints that libair uses, plus a control API
under /__fakews/. ../README.md is the contract; ../fakews.py starts it.
"""

from .cli import main

__all__ = ["main"]
