#!/usr/bin/env python3
"""Self-tests of the fake workspace server (tests/fakews/fakews.py)."""
import os
import sys
import unittest

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "support"))
from fakews_client import FakeWS  # noqa: E402


class Smoke(unittest.TestCase):
    def test_me(self):
        with FakeWS() as fw:
            st, h, body = fw.api("GET", "/api/2.0/preview/scim/v2/Me")
            self.assertEqual(st, 200)
            self.assertEqual(body["userName"], "tester@databricks.com")


if __name__ == "__main__":
    unittest.main(verbosity=2)
