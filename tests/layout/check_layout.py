#!/usr/bin/env python3
"""The lib/ tree shows the architecture, and docs/design.md says how:

* every lib/<module>/ folder is a module of the table in docs/design.md
  ("| Module | Folder | Headers | Uses |");
* a file includes headers of its own folder, or the open headers of a
  module it may use (lib/<m>/<m>.h, and lib/<m>/<m>_<part>.h for what only
  some of its users need), always as "<folder>/<name>.h";
* what a module uses is exactly what the table says (no dependency the
  table does not list, and none it lists that the code does not have);
  a use followed by file names ("`local` (`backend_local.c`)") is open to
  those files of the module only;
* no include cycle, between folders or between files.

    check_layout.py SRC_ROOT
    check_layout.py --self-test     # the checks catch what they should
"""
import os
import re
import sys


def design_table(src):
    """{module: {used module: set of the files allowed to include it, or None
    for every file}}."""
    text = open(os.path.join(src, "docs", "design.md")).read()
    rows = {}
    for line in text.splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(cells) != 4 or not cells[1].startswith("`lib/"):
            continue
        module = cells[0].strip("`* ")
        uses = {}
        for u in re.findall(r"`([^`]+)`(?:\s*\(([^)]*)\))?", cells[3]):
            files = re.findall(r"`?([\w.]+)`?", u[1])
            uses[u[0]] = set(files) if files else None
        rows[module] = uses
    return rows


def includes(path):
    return re.findall(r'^\s*#\s*include\s+"([^"]+)"', open(path).read(), re.M)


def find_cycle(graph):
    state, stack = {}, []

    def visit(n):
        state[n] = 1
        stack.append(n)
        for m in sorted(graph.get(n, ())):
            if state.get(m) == 1:
                return stack[stack.index(m):] + [m]
            if m not in state:
                c = visit(m)
                if c:
                    return c
        stack.pop()
        state[n] = 2
        return None

    for n in sorted(graph):
        if n not in state:
            c = visit(n)
            if c:
                return c
    return None


def main():
    src = sys.argv[1]
    lib = os.path.join(src, "lib")
    table = design_table(src)
    problems = []
    folders = sorted(d for d in os.listdir(lib) if os.path.isdir(os.path.join(lib, d)))
    if set(folders) != set(table):
        problems.append("docs/design.md lists modules %s, lib/ has %s" %
                        (sorted(table), folders))
    file_graph, used = {}, {f: set() for f in folders}
    for folder in folders:
        for name in sorted(os.listdir(os.path.join(lib, folder))):
            if not name.endswith((".c", ".h")):
                continue
            me = "%s/%s" % (folder, name)
            file_graph.setdefault(me, set())
            for inc in includes(os.path.join(lib, folder, name)):
                if "/" not in inc:
                    problems.append('%s: include "%s" without its folder' % (me, inc))
                    continue
                other, hdr = inc.split("/", 1)
                if not os.path.exists(os.path.join(lib, inc)):
                    problems.append('%s: "%s" is not a header of lib/' % (me, inc))
                    continue
                file_graph[me].add(inc)
                if other == folder:
                    continue
                if hdr != other + ".h" and not hdr.startswith(other + "_"):
                    problems.append('%s: includes "%s"; only "%s/%s.h" is open to other modules '
                                    '(and "%s/%s_*.h")' % (me, inc, other, other, other, other))
                only = table.get(folder, {}).get(other)
                if only is not None and name not in only:
                    problems.append('%s: includes "%s", which docs/design.md opens to %s only'
                                    % (me, inc, ", ".join(sorted(only))))
                used[folder].add(other)
    for folder in folders:
        want = set(table.get(folder, {}))
        if used[folder] - want:
            problems.append("%s uses %s, which docs/design.md does not list" %
                            (folder, sorted(used[folder] - want)))
        if want - used[folder]:
            problems.append("docs/design.md says %s uses %s, which it does not" %
                            (folder, sorted(want - used[folder])))
    cycle = find_cycle(used)
    if cycle:
        problems.append("module cycle: " + " -> ".join(cycle))
    cycle = find_cycle(file_graph)
    if cycle:
        problems.append("include cycle: " + " -> ".join(cycle))
    for p in problems:
        print("layout: " + p)
    print("layout: %d modules, %d files, %d problems" % (len(folders), len(file_graph), len(problems)))
    return 1 if problems else 0


def self_test():
    """A small tree with each kind of problem: the checker must name them."""
    import contextlib
    import io
    import tempfile

    def tree(root, files, table):
        for path, text in files.items():
            os.makedirs(os.path.dirname(os.path.join(root, path)), exist_ok=True)
            open(os.path.join(root, path), "w").write(text)
        os.makedirs(os.path.join(root, "docs"), exist_ok=True)
        open(os.path.join(root, "docs", "design.md"), "w").write(
            "| Module | Folder | Headers | Uses |\n|---|---|---|---|\n" +
            "".join("| `%s` | `lib/%s` | x | %s |\n" % (m, m, u) for m, u in table))

    def run(files, table):
        with tempfile.TemporaryDirectory() as root:
            tree(root, files, table)
            out = io.StringIO()
            sys.argv = ["check_layout.py", root]
            with contextlib.redirect_stdout(out):
                rc = main()
            return rc, out.getvalue()

    good = {"lib/a/a.h": "", "lib/b/b.h": '#include "a/a.h"\n'}
    rc, out = run(good, [("a", "—"), ("b", "`a`")])
    assert rc == 0, out
    good = {"lib/a/a.h": "", "lib/b/b.h": "", "lib/b/x.c": '#include "a/a.h"\n'}
    rc, out = run(good, [("a", "—"), ("b", "`core`, `a` (`x.c`)")])
    assert rc == 1 and "says b uses ['core']" in out, out
    rc, out = run(good, [("a", "—"), ("b", "`a` (`x.c`)")])
    assert rc == 0, out
    good = {"lib/a/a.h": "", "lib/a/a_part.h": "", "lib/b/b.h": '#include "a/a_part.h"\n'}
    rc, out = run(good, [("a", "—"), ("b", "`a`")])
    assert rc == 0, out
    cases = [
        ({"lib/a/a.h": '#include "b/b.h"\n', "lib/b/b.h": '#include "a/a.h"\n'},
         [("a", "`b`"), ("b", "`a`")], "module cycle"),
        ({"lib/a/a.h": '#include "a/x.h"\n', "lib/a/x.h": '#include "a/a.h"\n'},
         [("a", "—")], "include cycle"),
        ({"lib/a/a.h": "", "lib/a/x.h": "", "lib/b/b.h": '#include "a/x.h"\n'},
         [("a", "—"), ("b", "`a`")], "only \"a/a.h\" is open"),
        ({"lib/a/a.h": "", "lib/b/b.h": '#include "a/a.h"\n'},
         [("a", "—"), ("b", "—")], "does not list"),
        ({"lib/a/a.h": "", "lib/b/b.h": ""}, [("a", "—"), ("b", "`a`")], "which it does not"),
        ({"lib/a/a.h": '#include "a.h"\n'}, [("a", "—")], "without its folder"),
        ({"lib/a/a.h": "", "lib/b/b.h": "", "lib/b/x.c": '#include "a/a.h"\n',
          "lib/b/y.c": '#include "a/a.h"\n'},
         [("a", "—"), ("b", "`a` (`x.c`)")], "opens to x.c only"),
    ]
    for files, table, want in cases:
        rc, out = run(files, table)
        assert rc == 1 and want in out, (want, out)
    print("layout self-test: %d cases caught" % len(cases))
    return 0


if __name__ == "__main__":
    sys.exit(self_test() if sys.argv[1:] == ["--self-test"] else main())
