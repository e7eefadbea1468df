"""The HTTP/1.1 server: one thread per keep-alive connection, request parsing
(chunked bodies included), recording, fault application, dispatch to the
workspace API or the control API, and reply framing."""

import itertools
import socket
import socketserver
import sys
import threading
import time
import traceback
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import parse_qs, unquote

from .control import SHUTDOWN_REPLY, handle_control
from .faults import (echo_reply, pause, reset_connection, send_endless, send_trickle,
                     send_truncated, status_reply)
from .replies import error_resp
from .request import Req
from .routing import dispatch


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    server_version = "fakews/1.0"
    sys_version = ""
    timeout = 600

    def setup(self):
        super().setup()
        # The reset epoch this connection is counted in, once it made an API
        # request (control connections are not counted); None: not counted.
        self.epoch = None
        try:
            self.connection.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        except OSError:
            pass

    def finish(self):
        try:
            super().finish()
        finally:
            self.uncount()

    def uncount(self):
        """The connection is closed, or about to be (called before the reset
        that tells the client): no longer open, even before this handler's
        thread ends."""
        if self.epoch is not None:
            self.server.state.connection_closed(self.epoch)
            self.epoch = None

    def log_request(self, code="-", size="-"):
        pass

    def log_message(self, fmt, *args):
        self.server.log("%s %s" % (self.address_string(), fmt % args))

    def do_any(self):
        srv = self.server
        st = srv.state
        raw = self.path
        if raw.startswith("http://") or raw.startswith("https://"):
            raw = "/" + raw.split("://", 1)[1].partition("/")[2]
        raw_path, _, raw_query = raw.partition("?")
        body = self.read_body()
        if body is None:
            self.close_connection = True
            self.send(error_resp(400, "MALFORMED_REQUEST", "unreadable request body"))
            return
        headers = {}
        for k, v in self.headers.items():
            k = k.lower()
            headers[k] = headers[k] + ", " + v if k in headers else v
        host = headers.get("host") or "%s:%d" % srv.server_address[:2]
        req = Req(self.command, unquote(raw_path), raw_path,
                  parse_qs(raw_query, keep_blank_values=True), headers, body, host)
        t0 = time.monotonic()
        if req.path.startswith("/__fakews/") or req.path == "/__fakews":
            self.control(req)
            return
        self.epoch = st.connection_used(self.epoch)
        with st.lock:
            entry = st.record(req)
            rule, watchers = st.faults.match(req)
            latency = int(st.config.get("latency_ms") or 0)
        if entry is not None and rule is not None:
            entry["fault"] = rule["id"]
        pause(latency, rule)
        action = rule["action"] if rule else None
        if action == "reset_before":
            self.finish_entry(entry, None, req, t0)
            self.uncount()
            reset_connection(self)
            return
        if action == "endless":
            self.finish_entry(entry, rule["status"], req, t0)
            send_endless(self, rule)
            return
        if action == "status" or (action == "trickle" and rule["body"] is not None):
            resp = status_reply(rule)
        elif action == "echo":
            resp = echo_reply(rule, req)
        else:
            try:
                resp = dispatch(st, req)
            except Exception as e:
                traceback.print_exc()
                resp = error_resp(500, "INTERNAL_ERROR", "fakews: %s: %s" % (type(e).__name__, e))
        if watchers:
            with st.lock:
                earlier = st.faults.previous(rule["id"], req) if action == "repeat" else None
                st.faults.remember(watchers, req, resp)
            resp = earlier or resp
        self.finish_entry(entry, resp.status, req, t0)
        if action == "reset_after":
            self.uncount()
            reset_connection(self)
        elif action == "trickle":
            send_trickle(self, resp, rule)
        elif action == "truncate":
            self.uncount()
            send_truncated(self, resp, rule)
        else:
            self.send(resp)

    do_GET = do_POST = do_PUT = do_DELETE = do_PATCH = do_HEAD = do_OPTIONS = do_any

    def control(self, req):
        srv = self.server
        try:
            resp = handle_control(srv.state, req)
        except Exception:
            traceback.print_exc()
            resp = error_resp(500, "INTERNAL_ERROR", "fakews control failure")
        self.send(resp)
        if resp is SHUTDOWN_REPLY:
            # Only once the reply is out: stopping ends the process.
            self.wfile.flush()
            threading.Thread(target=srv.shutdown, daemon=True).start()

    def finish_entry(self, entry, status, req, t0):
        """Store the reply status in the request record and log the request."""
        if entry is not None:
            with self.server.state.lock:
                entry["status"] = status
        self.server.log("%s %s -> %s (%.1f ms)" % (req.method, req.raw_path,
                                                   status if status is not None else "RESET",
                                                   (time.monotonic() - t0) * 1000))

    def read_body(self):
        """The request body (Content-Length or chunked); None when unreadable."""
        try:
            te = self.headers.get("Transfer-Encoding", "")
            if "chunked" in te.lower():
                parts = []
                while True:
                    line = self.rfile.readline(65537)
                    if not line:
                        return None
                    size = int(line.split(b";", 1)[0].strip() or b"0", 16)
                    if size == 0:
                        while True:
                            t = self.rfile.readline(65537)
                            if t in (b"\r\n", b"\n", b""):
                                break
                        break
                    data = self.rfile.read(size)
                    if len(data) != size:
                        return None
                    parts.append(data)
                    self.rfile.readline(65537)
                return b"".join(parts)
            n = self.headers.get("Content-Length")
            if n:
                n = int(n)
                data = self.rfile.read(n) if n > 0 else b""
                return data if len(data) == n else None
            return b""
        except (ValueError, OSError):
            return None

    def send(self, resp):
        """Status line, headers and body in one write (no body for HEAD and 204)."""
        head = self.command == "HEAD"
        self.send_response(resp.status)
        for k, v in resp.headers:
            self.send_header(k, v)
        if resp.status != 204 and resp.status >= 200:
            if resp.content_type:
                self.send_header("Content-Type", resp.content_type)
            self.send_header("Content-Length", str(len(resp.body)))
        if not any(k.lower() == "x-request-id" for k, _v in resp.headers):
            self.send_header("X-Request-Id", "fakews-%d" % next(self.server.request_ids))
        if self.close_connection:
            self.send_header("Connection", "close")
        self._headers_buffer.append(b"\r\n")
        if not head and resp.body and resp.status != 204:
            self._headers_buffer.append(resp.body)
        try:
            self.flush_headers()
        except OSError:
            self.close_connection = True


class Server(ThreadingHTTPServer):
    daemon_threads = True
    allow_reuse_address = True
    request_queue_size = 256

    def __init__(self, addr, state, log_file=None):
        self.state = state
        self.log_file = log_file
        self.log_lock = threading.Lock()
        self.request_ids = itertools.count(1)
        super().__init__(addr, Handler)

    def server_bind(self):
        # Skip HTTPServer.server_bind: its getfqdn() may do a slow reverse lookup.
        socketserver.TCPServer.server_bind(self)
        self.server_name, self.server_port = self.server_address[:2]

    def log(self, line):
        if self.log_file is not None:
            with self.log_lock:
                self.log_file.write("%s %s\n" % (time.strftime("%H:%M:%S"), line))
                self.log_file.flush()

    def handle_error(self, request, client_address):
        exc = sys.exc_info()[1]
        if isinstance(exc, (ConnectionError, TimeoutError, OSError)):
            return
        super().handle_error(request, client_address)
