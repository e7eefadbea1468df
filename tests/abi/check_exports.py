#!/usr/bin/env python3
"""Check that three lists agree: the AIR_EXTERN declarations in the public
headers, the version script lib/libair.map, and the dynamic symbols that
libair.so actually exports (nm -D). Also checks that nothing but air_*
symbols is exported and that every exported function has a doc comment,
which lists the status codes (`@return`) when the function returns one
(an `int`)."""
import os
import re
import subprocess
import sys

src, lib = sys.argv[1], sys.argv[2]
hdr_dir = os.path.join(src, 'include', 'air')
problems = []

declared = {}
for name in sorted(os.listdir(hdr_dir)):
    if not (name.endswith('.h') or name.endswith('.h.in')):
        continue
    text = open(os.path.join(hdr_dir, name)).read()
    for m in re.finditer(r'AIR_EXTERN\s+([^;(]*?)\b(air_\w+)\s*\(', text):
        fn = m.group(2)
        declared[fn] = name
        # The declaration must be preceded by a /** ... */ doc comment.
        before = text[:m.start()].rstrip()
        if not before.endswith('*/') or '/**' not in before[before.rfind('/*'):before.rfind('/*') + 3]:
            problems.append(f'{fn} in {name} has no /** */ doc comment')
        # A status-returning function lists its codes.
        elif ' '.join(m.group(1).split()) == 'int' and '@return' not in before[before.rfind('/**'):]:
            problems.append(f'{fn} in {name} returns a status but its doc comment has no @return')

mapped = set()
in_global = False
for line in open(os.path.join(src, 'lib', 'libair.map')):
    line = line.split('#')[0].strip()
    if line.startswith('global:'):
        in_global = True
        continue
    if line.startswith('local:'):
        in_global = False
        continue
    m = re.match(r'(air_\w+);', line)
    if m and in_global:
        mapped.add(m.group(1))

out = subprocess.run(['nm', '-D', '--defined-only', lib], check=True,
                     capture_output=True, text=True).stdout
exported = set()
for line in out.splitlines():
    parts = line.split()
    if len(parts) >= 3 and parts[1] in 'TtDdBbRrVvWw':
        sym = parts[2].split('@')[0]
        if sym.startswith('LIBAIR_'):
            continue
        exported.add(sym)

for s in sorted(exported - set(declared)):
    problems.append(f'exported but not declared with AIR_EXTERN: {s}')
for s in sorted(set(declared) - exported):
    problems.append(f'declared but not exported: {s} ({declared[s]})')
for s in sorted(set(declared) - mapped):
    problems.append(f'declared but missing from lib/libair.map: {s}')
for s in sorted(mapped - set(declared)):
    problems.append(f'in lib/libair.map but not declared: {s}')
for s in sorted(exported):
    if not s.startswith('air_'):
        problems.append(f'non-air_ symbol exported: {s}')

if problems:
    print('\n'.join(problems))
    sys.exit(1)
print(f'{len(declared)} symbols: headers, map and exports agree')
