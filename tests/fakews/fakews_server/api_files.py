"""Workspace files: the Workspace API (get-status, mkdirs, export), the
workspace-files import and the Files API (/api/2.0/fs/files, fs/directories)."""

import base64
import hashlib
from urllib.parse import unquote

from .paths import canonical_path, check_path, parent_of
from .replies import ApiError, Resp, bad, error_resp, json_resp
from .values import http_date

IMPORT_PREFIX = "/api/2.0/workspace-files/import-file/"
FS_FILES_PREFIX = "/api/2.0/fs/files/"
FS_DIRS_PREFIX = "/api/2.0/fs/directories/"


def ws_path(req, name="path"):
    p = req.q(name)
    if p is None or p == "":
        raise bad("%s is required" % name)
    check_path(p, name)
    return p


def ws_get_status(st, req):
    p = ws_path(req)
    req.q_bool("return_export_info")
    cp = canonical_path(p)
    with st.lock:
        if cp in st.dirs:
            return json_resp({"object_type": "DIRECTORY", "path": p,
                              "object_id": int(hashlib.sha256(cp.encode()).hexdigest()[:12], 16)})
        f = st.files.get(cp)
        if f is None:
            raise ApiError(404, "RESOURCE_DOES_NOT_EXIST", "Path (%s) doesn't exist." % p)
        return json_resp({"object_type": "FILE", "path": p, "object_id": f["id"],
                          "size": len(f["data"]), "created_at": f["mtime"],
                          "modified_at": f["mtime"]})


def ws_mkdirs(st, req):
    body = req.json()
    p = body.get("path")
    check_path(p)
    cp = canonical_path(p)
    if cp.startswith("/Volumes"):
        raise bad("Path (%s) is not a workspace path." % p)
    with st.lock:
        st.make_dirs(cp)
    return json_resp({})


def ws_import(st, req):
    """The path follows the prefix as one percent-encoded segment or with literal slashes."""
    rest = req.raw_path[len(IMPORT_PREFIX):]
    p = "/" + unquote(rest)
    check_path(p)
    overwrite = req.q_bool("overwrite")
    cp = canonical_path(p)
    if cp.startswith("/Volumes"):
        raise bad("Path (%s) is not a workspace path; use the Files API." % p)
    with st.lock:
        par = parent_of(cp)
        if par not in st.dirs:
            raise ApiError(404, "RESOURCE_DOES_NOT_EXIST",
                           "The parent folder (%s) does not exist." % parent_of(p))
        if cp in st.dirs:
            raise ApiError(400, "RESOURCE_ALREADY_EXISTS",
                           "Path (%s) already exists as a directory." % p)
        if cp in st.files and not overwrite:
            raise ApiError(409, "RESOURCE_ALREADY_EXISTS", "Path (%s) already exists." % p)
        st.put_file(cp, req.body)
    return json_resp({})


def ws_export(st, req):
    p = ws_path(req)
    direct = req.q_bool("direct_download")
    cp = canonical_path(p)
    with st.lock:
        if cp in st.dirs:
            raise bad("Path (%s) is a directory." % p)
        f = st.files.get(cp)
        if f is None:
            raise ApiError(404, "RESOURCE_DOES_NOT_EXIST", "Path (%s) doesn't exist." % p)
        data = f["data"]
    if direct:
        return Resp(200, data, content_type="application/octet-stream")
    return json_resp({"content": base64.b64encode(data).decode(), "file_type": p.rsplit(".", 1)[-1]})


def fs_target(req, prefix):
    """The decoded path after a Files API prefix (each segment percent-encoded)."""
    rest = req.raw_path[len(prefix) - 1:]
    p = unquote(rest)
    check_path(p)
    if not (p.startswith("/Volumes/") or p.startswith("/Workspace/")):
        raise bad("Files API paths start with /Volumes/ or /Workspace/: %r" % p)
    return p


def fs_files(st, req):
    p = fs_target(req, FS_FILES_PREFIX)
    with st.lock:
        if req.method in ("HEAD", "GET"):
            f = st.files.get(p)
            if f is None:
                raise ApiError(404, "NOT_FOUND", "The file %s does not exist." % p)
            return Resp(200, f["data"], [("Last-Modified", http_date(f["mtime"]))],
                        "application/octet-stream")
        if req.method == "PUT":
            overwrite = req.q_bool("overwrite")
            if p in st.dirs:
                raise ApiError(409, "ALREADY_EXISTS", "%s is a directory." % p)
            if p in st.files and not overwrite:
                raise ApiError(409, "ALREADY_EXISTS", "The file %s already exists." % p)
            st.make_dirs(parent_of(p))
            st.put_file(p, req.body)
            return Resp(204)
        if req.method == "DELETE":
            if st.files.pop(p, None) is None:
                raise ApiError(404, "NOT_FOUND", "The file %s does not exist." % p)
            return Resp(204)
    return error_resp(404, "ENDPOINT_NOT_FOUND", "no route")


def fs_dirs(st, req):
    p = fs_target(req, FS_DIRS_PREFIX)
    with st.lock:
        if req.method in ("HEAD", "GET"):
            if p not in st.dirs:
                raise ApiError(404, "NOT_FOUND", "The directory %s does not exist." % p)
            if req.method == "HEAD":
                return Resp(200)
            pre = p + "/"
            contents = [{"path": d, "is_directory": True, "name": d[len(pre):]}
                        for d in sorted(st.dirs) if d.startswith(pre) and "/" not in d[len(pre):]]
            contents += [{"path": f, "is_directory": False, "name": f[len(pre):],
                          "file_size": len(v["data"]), "last_modified": v["mtime"]}
                         for f, v in sorted(st.files.items())
                         if f.startswith(pre) and "/" not in f[len(pre):]]
            return json_resp({"contents": contents} if contents else {})
        if req.method == "PUT":
            st.make_dirs(p)
            return Resp(204)
    return error_resp(404, "ENDPOINT_NOT_FOUND", "no route")
