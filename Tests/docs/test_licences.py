#!/usr/bin/env python3
"""The project states its licence, and every bundled photo and LUT states its own.

- LICENSE at the top is the Apache License 2.0, word for word as Debian ships it
  (/usr/share/common-licenses/Apache-2.0, from base-files: the independent copy);
- the package's machine-readable copyright file licenses `Files: *` under Apache-2.0 (not
  "unstated") and names a licence for every stanza;
- the README says so;
- every photo in Recipes/photos and every LUT in Recipes/luts is named in the LICENSES.md beside it,
  with a licence column that is not empty.
Exit 0 when all hold; 1 naming each failure.
"""
import os
import re
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
failures = []


def check(ok, what):
    if not ok:
        failures.append(what)


def read(path):
    with open(os.path.join(ROOT, path), encoding="utf-8") as f:
        return f.read()


debian = "/usr/share/common-licenses/Apache-2.0"
check(os.path.exists(os.path.join(ROOT, "LICENSE")), "LICENSE: missing")
if os.path.exists(debian) and os.path.exists(os.path.join(ROOT, "LICENSE")):
    with open(debian, encoding="utf-8") as f:
        check(read("LICENSE") == f.read(), "LICENSE: not the Apache License 2.0 as Debian ships it")
elif not os.path.exists(debian):
    failures.append(f"{debian}: missing (base-files), cannot compare LICENSE")

copyright = read(".ci/deb/copyright")
stanzas = [s for s in copyright.split("\n\n") if s.startswith("Files:")]
star = [s for s in stanzas if s.startswith("Files: *\n")]
check(len(star) == 1 and "\nLicense: Apache-2.0\n" in star[0], ".ci/deb/copyright: `Files: *` is not under Apache-2.0")
check("unstated" not in copyright.lower(), ".ci/deb/copyright: still says the licence is unstated")
for s in stanzas:
    check(re.search(r"^License: \S", s, re.M) is not None, f".ci/deb/copyright: no licence in stanza {s.splitlines()[0]}")
check("[Apache License 2.0](LICENSE)" in read("README.md"), "README.md: no line naming the licence")

for folder, pattern in [("Recipes/photos", r"\.(jpg|png|dng)$"), ("Recipes/luts", r"\.cube$")]:
    notes = read(f"{folder}/LICENSES.md")
    rows = [line for line in notes.splitlines() if line.startswith("|")]
    for name in sorted(os.listdir(os.path.join(ROOT, folder))):
        if not re.search(pattern, name, re.I):
            continue
        row = next((r for r in rows if name in r), None)
        check(row is not None, f"{folder}/{name}: not in {folder}/LICENSES.md")
        if row:
            licence = row.strip().strip("|").split("|")[-1].strip()
            check(len(licence) > 2, f"{folder}/{name}: no licence in its row")

for f in failures:
    print("licences:", f, file=sys.stderr)
print(f"licences: {'FAILED' if failures else 'ok'} ({len(failures)} problems)")
sys.exit(1 if failures else 0)
