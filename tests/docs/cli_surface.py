"""The command-line surface of `air`, read from its own help output:
commands (`air --help`, "Available Commands:"), subcommands (the "Usage:"
alternatives `air CMD WORD ...`) and flags ("Flags:" rows of
`air [CMD [SUB]] --help`). The documentation checks compare the man page, the
shell completion and the guides against this, so a new command or flag shows
up in them as missing."""
import re
import subprocess

FLAG_ROW = re.compile(r"^\s+(?:(-[A-Za-z0-9]),\s+)?(--[A-Za-z0-9][A-Za-z0-9-]*)(?:[ =]([^\s]+))?")


class Flag:
    def __init__(self, long, short, metavar):
        self.long, self.short, self.metavar = long, short, metavar

    def __repr__(self):
        return "Flag(%s)" % ", ".join(x for x in (self.short, self.long) if x)


class Command:
    def __init__(self, words, flags, subcommands):
        self.words = words              # ("images", "push")
        self.flags = flags              # [Flag] of "Flags:" (not the global ones)
        self.subcommands = subcommands  # ["push"]

    @property
    def name(self):
        return " ".join(self.words)


def help_text(air, *words):
    p = subprocess.run([air, *words, "--help"], capture_output=True, text=True, timeout=60)
    if p.returncode != 0:
        raise AssertionError("air %s --help: exit %d\n%s" % (" ".join(words), p.returncode,
                                                               p.stderr))
    return p.stdout


def section(text, title):
    """Lines of the block that starts with the line `title` (no indent)."""
    out, inside = [], False
    for line in text.splitlines():
        if inside:
            if not line.strip():
                break
            out.append(line)
        elif line.strip() == title and not line.startswith(" "):
            inside = True
    return out


def parse_flags(lines):
    flags = []
    for line in lines:
        m = FLAG_ROW.match(line)
        if m:
            metavar = m.group(3)
            flags.append(Flag(m.group(2), m.group(1), metavar))
    return flags


def usage_subcommands(text, words):
    """Words that follow `air WORDS` in the Usage: lines ("air list pools")."""
    subs = []
    for line in section(text, "Usage:"):
        for alt in line.split("|"):
            toks = alt.split()
            n = len(words)
            if len(toks) > n + 1 and toks[0] == "air" and tuple(toks[1:n + 1]) == tuple(words) \
                    and re.fullmatch(r"[a-z][a-z0-9-]*", toks[n + 1]) and toks[n + 1] not in subs:
                subs.append(toks[n + 1])
    return subs


def top_level(air):
    """(command names, global flags) from `air --help`; "help" is left out."""
    text = help_text(air)
    names = [l.split()[0] for l in section(text, "Available Commands:") if l.split()]
    return [n for n in names if n != "help"], parse_flags(section(text, "Flags:"))


def commands(air):
    """Every command and subcommand, each with its own flags."""
    names, _ = top_level(air)
    out = []
    for name in names:
        text = help_text(air, name)
        subs = usage_subcommands(text, (name,))
        out.append(Command((name,), parse_flags(section(text, "Flags:")), subs))
        for sub in subs:
            stext = help_text(air, name, sub)
            out.append(Command((name, sub), parse_flags(section(stext, "Flags:")), []))
    return out


def global_flags_of_commands(air, name):
    return parse_flags(section(help_text(air, name), "Global Flags:"))
