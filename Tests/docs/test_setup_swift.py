#!/usr/bin/env python3
""".ci/setup finds a Swift toolchain, refuses one older than 6.0, and prints the steps to install it
when there is none (issue 53: `.ci/demo` stopped at "setup: swift not found" with no word on which
Swift or how to get it).

- a fake `swift` reporting 5.10 in RECIPE_SWIFT_DIRS, nothing on PATH: exit 1, "needs 6.0";
- a fake `swift` reporting 6.3.1 there: exit 0;
- no toolchain at all (as root, in a private mount namespace with an empty /opt/swift): exit 1,
  and the printed steps are docs/install.md's (the same tarball URL).
Exit 0 when all hold, 1 naming each failure. Run as root (CI is); otherwise the third check fails.
"""
import os
import re
import shutil
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
failures = []
work = tempfile.mkdtemp(prefix="setup-swift-")


def setup(env_dirs, extra=None):
    env = {"PATH": "/usr/bin:/bin", "HOME": work, "RECIPE_SWIFT_DIRS": env_dirs}
    cmd = ["bash", os.path.join(ROOT, ".ci/setup")]
    if extra:
        cmd = extra + cmd
    return subprocess.run(cmd, env=env, capture_output=True, text=True, cwd=ROOT, timeout=300)


def fake(version):
    d = os.path.join(work, "swift-" + version, "bin")
    os.makedirs(d, exist_ok=True)
    with open(os.path.join(d, "swift"), "w") as f:
        f.write(f"#!/bin/sh\necho 'Swift version {version} (swift-{version}-RELEASE)'\necho 'Target: x86_64-unknown-linux-gnu'\n")
    os.chmod(os.path.join(d, "swift"), 0o755)
    return d


# /opt/swift would be found first on this machine only when the fake is not: RECIPE_SWIFT_DIRS comes first.
old = setup(fake("5.10"))
if old.returncode != 1 or "needs 6.0 or newer" not in old.stderr:
    failures.append(f"Swift 5.10: exit {old.returncode}, {old.stderr.strip()[-200:]!r}")
new = setup(fake("6.3.1"))
if new.returncode != 0:
    failures.append(f"Swift 6.3.1: exit {new.returncode}, {new.stderr.strip()[-200:]!r}")

install = open(os.path.join(ROOT, "docs/install.md"), encoding="utf-8").read()
url = re.search(r"https://download\.swift\.org/\S+\.tar\.gz", install)
if url is None:
    failures.append("docs/install.md: no Swift tarball URL")
if os.geteuid() != 0 or shutil.which("unshare") is None:
    failures.append("no toolchain: needs root and unshare(1) to hide /opt/swift (CI runs as root)")
else:
    hidden = setup("", ["unshare", "--mount", "sh", "-c", 'for d in /opt/swift /usr/local/swift; do [ -d "$d" ] && mount -t tmpfs none "$d"; done; exec "$@"', "sh"])
    if hidden.returncode != 1 or "no Swift toolchain found" not in hidden.stderr:
        failures.append(f"no toolchain: exit {hidden.returncode}, {hidden.stderr.strip()[-300:]!r}")
    elif url and url.group(0) not in hidden.stderr:
        failures.append("no toolchain: the steps printed are not docs/install.md's (tarball URL differs)")

shutil.rmtree(work, ignore_errors=True)
for f in failures:
    print("setup-swift:", f, file=sys.stderr)
print(f"setup-swift: {'FAILED' if failures else 'ok'} ({len(failures)} problems)")
sys.exit(1 if failures else 0)
