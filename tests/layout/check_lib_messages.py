#!/usr/bin/env python3
"""The library's messages name options and fields, never the flags of a
front end: a binding user has no `--pull` to pass. Front ends add their own
flag hints (the CLI from the error's field, cli/output.c).

Every string of lib/ (adjacent literals joined, comments skipped) is
checked for command-line flag advice:

* a long flag ("--profile"),
* a short flag advised ("pass -f", "with -f") or on an air command line
  ("air run -h"),

except the arguments of other programs: a literal that is itself an
argument ("--format=tar", "--host "), or a flag after the name of another
program in the same clause and quoted command ("run `databricks auth login --profile NAME`",
"pip options such as \"--extra-index-url URL\"").

    check_lib_messages.py SRC_ROOT
    check_lib_messages.py --self-test     # the checks catch what they should
"""
import os
import re
import sys

# Programs whose own flags a message may quote.
OTHER_PROGRAMS = r"\b(databricks|docker|git|pip|nvidia-smi|tar)\b"
LONG_FLAG = re.compile(r"(?<![\w-])--[A-Za-z][\w-]*")
SHORT_ADVICE = re.compile(r"\b(?:pass|with|use|add)\s+(?:it\s+with\s+)?-[A-Za-z]\b"
                          r"|\bair(?:\s+[a-z][\w-]*)+\s+-[A-Za-z]\b")
CLAUSE_END = re.compile(r"[.;:(]\s")


def messages(text):
    """The strings of C source @text: (line, joined literal, literals)."""
    out, i, n = [], 0, len(text)
    current, start, last_end = None, 0, 0
    while i < n:
        c = text[i]
        if text.startswith("/*", i):
            i = text.find("*/", i + 2)
            i = n if i < 0 else i + 2
            continue
        if text.startswith("//", i):
            i = text.find("\n", i)
            i = n if i < 0 else i
            continue
        if c == "'":
            j = i + 1
            while j < n and text[j] != "'":
                j += 2 if text[j] == "\\" else 1
            i = j + 1
            continue
        if c == '"':
            j, buf = i + 1, []
            while j < n and text[j] != '"':
                if text[j] == "\\" and j + 1 < n:
                    buf.append(text[j:j + 2] if text[j + 1] not in '"\\' else text[j + 1])
                    j += 2
                else:
                    buf.append(text[j])
                    j += 1
            literal = "".join(buf)
            between = text[last_end:i]
            if current is not None and between.strip() == "":
                current[1].append(literal)
            else:
                if current is not None:
                    out.append(current)
                current = (text.count("\n", 0, i) + 1, [literal])
            i = last_end = j + 1
            continue
        i += 1
    if current is not None:
        out.append(current)
    return [(line, "".join(parts), parts) for line, parts in out]


def problems_in(text, where):
    found = []
    for line, msg, parts in messages(text):
        if len(parts) == 1 and parts[0].lstrip().startswith("-"):
            continue  # an argument of a program
        for m in list(LONG_FLAG.finditer(msg)) + list(SHORT_ADVICE.finditer(msg)):
            before = msg[:m.start()]
            clause = CLAUSE_END.split(before)[-1]
            programs = list(re.finditer(OTHER_PROGRAMS, clause))
            # The flag belongs to the program's command line: not after a
            # quoted command that ended, nor after an air command.
            if programs and "`" not in clause[programs[-1].end():] and \
                    not re.search(r"\bair\s", clause[programs[-1].end():]):
                continue
            found.append("%s:%d: flag advice %r in %r" % (where, line, m.group(0), msg[:120]))
    return found


def main():
    lib = os.path.join(sys.argv[1], "lib")
    problems, count = [], 0
    for root, _dirs, files in os.walk(lib):
        for name in sorted(files):
            if name.endswith((".c", ".h")):
                path = os.path.join(root, name)
                count += 1
                problems += problems_in(open(path, encoding="utf-8").read(),
                                        os.path.relpath(path, sys.argv[1]))
    for p in problems:
        print("messages: " + p)
    print("messages: %d files, %d problems" % (count, len(problems)))
    return 1 if problems else 0


def self_test():
    bad = [
        '"image is built for %s (pass --pull to fetch it)"',
        '"name it explicitly with --artifact NAME[:TAG]"',
        '"no default profile: pass --profile or "\n\t"create one"',
        '"The --idempotency-key flag overrides it."',
        '"it looks like a config file: pass it with -f"',
        '"run \\"air run -h %s\\" for the map itself"',
        '"a profile: run `databricks auth login` and pass --profile NAME"',
    ]
    good = [
        'const char *argv[] = {"docker", "pull", "--platform", "linux/amd64", NULL};',
        '"run `databricks auth login --profile NAME` and choose that profile"',
        '"Items may be pip options such as \\"--extra-index-url URL\\""',
        'x ? "--host " : "--profile "',
        '/* pass --pull */ "a comment is not a message"',
        '"range 1-9, a - b, x->y"',
    ]
    for text in bad:
        assert problems_in(text, "t"), "not caught: " + text
    for text in good:
        assert not problems_in(text, "t"), (text, problems_in(text, "t"))
    print("messages self-test: %d caught, %d allowed" % (len(bad), len(good)))
    return 0


if __name__ == "__main__":
    sys.exit(self_test() if sys.argv[1:] == ["--self-test"] else main())
