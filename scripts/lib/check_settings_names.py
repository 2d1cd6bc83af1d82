#!/usr/bin/python3
"""Checks that every MAILWAKE_* name the repository tells people about is real.

The known names come from the built binaries themselves
(`mailwake-<service> settings --keys`: each setting's key, and `<KEY>_FILE`
for secrets), never from a copy of the list, so a setting added in code is
known here at once, and a doc naming a removed or misspelt one fails.

Scanned: docs/**/*.md, README.md, docker-compose.yml, everything under deploy/
and scripts/ (env templates, units, Dockerfiles, entrypoints, shell and
Python), and the Swift sources of Services/ and Shared/ (error messages that
tell the user which key to set).

A name is accepted when
  - a service binary knows it, or
  - it is in NOT_SETTINGS below (variables that are not service settings,
    each with the file that reads it; that file must still mention it, so the
    list cannot keep dead entries), or
  - it ends with `_` and is the start of an accepted name (`MAILWAKE_RELAY_*`,
    `MAILWAKE_<SERVICE>_`).

Usage: check_settings_names.py BIN_DIR [ROOT]
Exit 0 when every name is accepted, 1 otherwise (one line per bad mention).
"""
import difflib
import os
import re
import subprocess
import sys

SERVICES = ("accounts", "relay", "outpost")

# MAILWAKE_* variables that are not settings of a service binary, with the
# file that reads them and why they exist.
NOT_SETTINGS = {
    # The test harness: scripts/lib/postgres.sh starts a PostgreSQL for the
    # Swift tests and exports its URL; PostgresTestServer uses it.
    "MAILWAKE_TEST_POSTGRES_URL": ("Tests/Support/PostgresTestServer.swift", "test harness: the tests' PostgreSQL"),
    # The HTTP server suite's engine (scripts/test runs it once per engine).
    "MAILWAKE_TEST_HTTP_ENGINE": ("Tests/HTTPServerTests/ServerFixture.swift", "test harness: the HTTP server engine under test"),
    # The APNs simulator binary the tests start (default: next to the test binary).
    "MAILWAKE_APNS_SIMULATOR": ("Tests/Support/APNsSimulatorProcess.swift", "test harness: path of mailwake-apns-simulator"),
    # Opt-in benchmark suites: seconds to run; unset skips them.
    "MAILWAKE_APNS_SIMULATOR_BENCH": ("Tests/APNsSimulatorTests/BenchmarkTests.swift", "opt-in benchmark test"),
    "MAILWAKE_HTTP_CLIENT_BENCH": ("Tests/HTTPClientTests/BenchmarkTests.swift", "opt-in benchmark test"),
    # The Python interoperability tests call the Swift protocol CLI named here.
    "MAILWAKE_PROTOCOL_CLI": ("Tests/Interop/test_interop.py", "test harness: path of mailwake-protocol"),
    # The demo's verification code (e2e sets it to know what to expect).
    "MAILWAKE_DEMO_CODE": ("scripts/demo", "the demo's code, for the end-to-end suite"),
    # The fault suite's knobs.
    "MAILWAKE_FAULT_MAILS": ("scripts/lib/faults.sh", "fault suite: mails appended"),
    "MAILWAKE_FAULT_APNS_SECONDS": ("scripts/lib/faults.sh", "fault suite: length of the APNs outage"),
    # The systemd suite's knobs (units booted in a podman container).
    "MAILWAKE_SYSTEMD_BINARIES": ("scripts/lib/systemd-units.sh", "systemd suite: directory of prebuilt binaries"),
    "MAILWAKE_SYSTEMD_KEEP": ("scripts/lib/systemd-units.sh", "systemd suite: leave the container running"),
    # The compose suite and its demo (scripts/lib/compose.sh, scripts/compose-demo).
    "MAILWAKE_COMPOSE_DEMO_CODE": ("scripts/compose-demo", "compose demo: the verification code its mail carries"),
    "MAILWAKE_COMPOSE_KEEP_IMAGES": ("scripts/lib/compose.sh", "compose suite: keep the images it built"),
    "MAILWAKE_COMPOSE_NO_CACHE": ("scripts/lib/compose.sh", "compose suite: build without the layer cache (timings)"),
    "MAILWAKE_SYSTEMD_BASE": ("scripts/lib/systemd-units.sh", "systemd suite: base image"),
    "MAILWAKE_SYSTEMD_SYSCALL_LOG": ("scripts/lib/systemd-units.sh", "systemd suite: log refused system calls"),
    # Schemathesis examples per operation against the outpost API.
    "MAILWAKE_SCHEMATHESIS_EXAMPLES": ("scripts/lib/schemathesis-outpost.sh", "Schemathesis run size"),
    # The outpost image's entrypoint (deploy/outpost/entrypoint.sh) reads
    # these to set up the relay and one mailbox with `mailwake-outpost relay
    # set` / `mailbox add`, then unsets them before `exec mailwake-outpost
    # serve`: they are the image's variables, not the daemon's settings.
    "MAILWAKE_OUTPOST_RELAY_URL": ("deploy/outpost/entrypoint.sh", "outpost image entrypoint: relay set --url"),
    "MAILWAKE_OUTPOST_RELAY_ENV": ("deploy/outpost/entrypoint.sh", "outpost image entrypoint: relay set --env"),
    "MAILWAKE_OUTPOST_RELAY_CA_FILE": ("deploy/outpost/entrypoint.sh", "outpost image entrypoint: relay set --ca-file"),
    "MAILWAKE_OUTPOST_MAILBOX_HOST": ("deploy/outpost/entrypoint.sh", "outpost image entrypoint: mailbox add --host"),
    "MAILWAKE_OUTPOST_MAILBOX_PORT": ("deploy/outpost/entrypoint.sh", "outpost image entrypoint: mailbox add --port"),
    "MAILWAKE_OUTPOST_MAILBOX_USER": ("deploy/outpost/entrypoint.sh", "outpost image entrypoint: mailbox add --user"),
    "MAILWAKE_OUTPOST_MAILBOX_PASSWORD_FILE": ("deploy/outpost/entrypoint.sh", "outpost image entrypoint: mailbox add --password-stdin"),
    "MAILWAKE_OUTPOST_MAILBOX_CA_FILE": ("deploy/outpost/entrypoint.sh", "outpost image entrypoint: mailbox add --ca-file"),
}

NAME = re.compile(r"(?<![A-Za-z0-9_])MAILWAKE_[A-Z0-9_]*")
SELF = os.path.abspath(__file__)


def known_settings(bin_dir: str) -> dict:
    """{name: service} from each binary's `settings --keys`."""
    known = {}
    for service in SERVICES:
        binary = os.path.join(bin_dir, "mailwake-" + service)
        result = subprocess.run([binary, "settings", "--keys"], capture_output=True, text=True)
        keys = result.stdout.split()
        if result.returncode != 0 or not keys or not all(k.startswith("MAILWAKE_" + service.upper() + "_") for k in keys):
            sys.exit(f"check-settings-names: `{binary} settings --keys` failed or printed something else: {result.stderr.strip()}")
        for k in keys:
            known[k] = service
    return known


def scanned_files(root: str):
    def walk(top, keep):
        for directory, dirs, files in os.walk(os.path.join(root, top)):
            dirs[:] = sorted(d for d in dirs if not d.startswith(".") and d != "__pycache__")
            for f in sorted(files):
                path = os.path.join(directory, f)
                if keep(f) and os.path.abspath(path) != SELF:
                    yield path

    yield from walk("docs", lambda f: f.endswith(".md"))
    for f in ("README.md", "docker-compose.yml"):
        if os.path.exists(os.path.join(root, f)):
            yield os.path.join(root, f)
    yield from walk("deploy", lambda f: True)
    yield from walk("scripts", lambda f: True)
    yield from walk("Services", lambda f: f.endswith(".swift"))
    yield from walk("Shared", lambda f: f.endswith(".swift"))


def main() -> int:
    bin_dir = sys.argv[1]
    root = os.path.abspath(sys.argv[2]) if len(sys.argv) > 2 else os.path.dirname(os.path.dirname(os.path.dirname(SELF)))
    known = known_settings(bin_dir)
    failures = []

    for name, (consumer, why) in sorted(NOT_SETTINGS.items()):
        path = os.path.join(root, consumer)
        if name in known:
            failures.append(f"{name} is a setting of mailwake-{known[name]} now; drop it from NOT_SETTINGS ({why})")
        elif not os.path.exists(path) or name not in open(path, encoding="utf-8", errors="replace").read():
            failures.append(f"{name} is allowed as read by {consumer} ({why}), but {consumer} does not mention it: drop it from NOT_SETTINGS")

    accepted = set(known) | set(NOT_SETTINGS)
    mentions = files = 0
    for path in scanned_files(root):
        try:
            text = open(path, encoding="utf-8").read()
        except UnicodeDecodeError:
            continue
        files += 1
        for number, line in enumerate(text.splitlines(), 1):
            for m in NAME.finditer(line):
                name = m.group(0)
                mentions += 1
                if name in accepted:
                    continue
                if name.endswith("_") and any(a.startswith(name) for a in accepted):
                    continue
                where = os.path.relpath(path, root)
                service = next((s for s in SERVICES if name.startswith("MAILWAKE_" + s.upper() + "_")), None)
                close = difflib.get_close_matches(name, sorted(known), n=1, cutoff=0.75)
                hint = f"; did you mean {close[0]}?" if close else ""
                whose = f"mailwake-{service} has no such setting (`mailwake-{service} settings`)" if service else "no binary reads it"
                failures.append(f"{where}:{number}: {name}: {whose}{hint}")

    for f in failures:
        print("check-settings-names: FAIL: " + f, file=sys.stderr)
    if failures:
        return 1
    print(f"check-settings-names: {mentions} MAILWAKE_* mentions in {files} files name settings the binaries know "
          f"({len(known)} keys from {', '.join('mailwake-' + s for s in SERVICES)} settings --keys) or one of {len(NOT_SETTINGS)} listed non-settings")
    return 0


if __name__ == "__main__":
    sys.exit(main())
