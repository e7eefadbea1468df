"""Workspace path rules: /Users/x means /Workspace/Users/x; paths must be
absolute and normalised."""

from .replies import bad


def canonical_path(p):
    """Workspace paths: /Users/x -> /Workspace/Users/x; /Volumes and /Workspace kept."""
    if p == "/Workspace" or p.startswith("/Workspace/") or p == "/Volumes" or p.startswith("/Volumes/"):
        return p
    if p == "/":
        return "/Workspace"
    return "/Workspace" + p


def check_path(p, name="path"):
    if not isinstance(p, str) or not p.startswith("/"):
        raise bad("%s must be an absolute path, got %r" % (name, p))
    if p != "/" and (p.endswith("/") or "//" in p or "/./" in p or "/../" in p
                     or p.endswith("/.") or p.endswith("/..")):
        raise bad("%s is not a normalised path: %r" % (name, p))
    return p


def parent_of(p):
    return p.rsplit("/", 1)[0] or "/"
