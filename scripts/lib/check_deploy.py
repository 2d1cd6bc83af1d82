#!/usr/bin/python3
"""Checks the deployment files against what was built (scripts/test):

1. docker-compose.yml is valid Compose (`docker-compose config`, no engine needed).
2. Every MAILWAKE_<SERVICE>_* variable a compose service sets is a setting the
   service's binary knows (`<binary> settings`), or one the outpost image's
   entrypoint consumes: a typo would otherwise fall back to a default.
3. Each image's runtime package list (deploy/Dockerfile, between the
   `runtime libraries` markers) is exactly the Debian packages of the shared
   libraries its binary needs (ELF NEEDED, resolved like `ldd`), minus the
   Swift runtime (linked statically in the images) and what bookworm-slim has.

Usage: check_deploy.py BIN_DIR
"""
import json
import os
import re
import subprocess
import sys

import yaml

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
SWIFT_RUNTIME = re.compile(r"^(libswift|libFoundation|lib_Foundation|libdispatch|libBlocksRuntime|lib_Testing|libXCTest)")
IN_SLIM_BASE = {"libc6", "libgcc-s1", "libstdc++6", "zlib1g"}
failures = []


def fail(message: str) -> None:
    failures.append(message)
    print("check-deploy: FAIL: " + message, file=sys.stderr)


def run(args) -> str:
    return subprocess.run(args, check=True, capture_output=True, text=True, cwd=ROOT).stdout


def package_of(library: str) -> str:
    for line in run(["ldconfig", "-p"]).splitlines():
        parts = line.strip().split(" => ")
        if len(parts) == 2 and parts[0].split(" ")[0] == library:
            path = parts[1]
            for candidate in (path, os.path.realpath(path), "/usr" + path if not path.startswith("/usr") else path[4:]):
                result = subprocess.run(["dpkg", "-S", candidate], capture_output=True, text=True)
                if result.returncode == 0:
                    return result.stdout.split(":")[0].strip()
    fail(f"no Debian package ships {library}")
    return "?"


def needed_packages(binary: str) -> set:
    ldd = run(["ldd", binary])
    if "not found" in ldd:
        fail(f"{binary}: ldd finds unresolved libraries:\n{ldd}")
    needed = re.findall(r"\(NEEDED\)\s+Shared library: \[([^\]]+)\]", run(["readelf", "-d", binary]))
    return {package_of(lib) for lib in needed if not SWIFT_RUNTIME.match(lib)} - IN_SLIM_BASE


def main() -> int:
    bin_dir = sys.argv[1]
    compose = subprocess.run(["docker-compose", "-f", "docker-compose.yml", "config"], capture_output=True, text=True, cwd=ROOT)
    if compose.returncode != 0:
        fail("docker-compose config: " + compose.stderr.strip())
        return 1
    services = yaml.safe_load(compose.stdout)["services"]
    print(f"check-deploy: docker-compose.yml is valid ({len(services)} services)")

    entrypoint = open(os.path.join(ROOT, "deploy/outpost/entrypoint.sh")).read()
    entrypoint_keys = set(re.findall(r"MAILWAKE_OUTPOST_[A-Z_]+", entrypoint.split("unset", 1)[1]))
    for name, service in services.items():
        build = service.get("build") or {}
        m = re.fullmatch(r"(accounts|relay|outpost)", build.get("target", "")) if build.get("dockerfile") == "deploy/Dockerfile" else None
        if not m:
            continue
        binary = os.path.join(bin_dir, "mailwake-" + m.group(1))
        known = set(re.findall(r"`(MAILWAKE_[A-Z_]+)`", run([binary, "settings"])))
        prefix = "MAILWAKE_" + m.group(1).upper() + "_"
        for key in (service.get("environment") or {}):
            if key.startswith(prefix) and key not in known and key not in entrypoint_keys:
                fail(f"compose service {name} sets {key}, which mailwake-{m.group(1)} does not know")
    print("check-deploy: every MAILWAKE_* variable in docker-compose.yml is a known setting")

    for service in ("accounts", "relay", "outpost"):
        known = set(re.findall(r"`(MAILWAKE_[A-Z_]+)`", run([os.path.join(bin_dir, "mailwake-" + service), "settings"])))
        template = open(os.path.join(ROOT, f"deploy/systemd/{service}.env.example")).read()
        for key in re.findall(r"^\s*#?\s*(MAILWAKE_[A-Z_]+)=", template, re.M):
            if key not in known:
                fail(f"deploy/systemd/{service}.env.example sets {key}, which mailwake-{service} does not know")
    print("check-deploy: every setting in the systemd env templates is known")

    # The units: systemd-analyze verify on copies whose ExecStart points at the built binaries.
    for unit in sorted(f for f in os.listdir(os.path.join(ROOT, "deploy/systemd")) if f.endswith(".service")):
        text = open(os.path.join(ROOT, "deploy/systemd", unit)).read()
        text = re.sub(r"ExecStart=/usr/local/bin/(\S+)", lambda m: "ExecStart=" + os.path.join(bin_dir, m.group(1)), text)
        for key in ("ProtectSystem=strict", "NoNewPrivileges=yes", "PrivateTmp=yes", "CapabilityBoundingSet=", "EnvironmentFile="):
            if key not in text:
                fail(f"deploy/systemd/{unit} lacks {key}")
        if "DynamicUser=yes" not in text and "User=" not in text:
            fail(f"deploy/systemd/{unit} runs as root")
        staging = "/tmp/mailwake-unit-check"
        os.makedirs(staging, exist_ok=True)
        path = os.path.join(staging, unit)
        open(path, "w").write(text)
        verify = subprocess.run(["systemd-analyze", "verify", path], capture_output=True, text=True)
        problems = [l for l in verify.stderr.splitlines() if unit in l and "Failed to" not in l or "Unknown" in l]
        if verify.returncode != 0 or problems:
            fail(f"systemd-analyze verify {unit}: {verify.stderr.strip()}")
    print("check-deploy: the systemd units verify (systemd-analyze) and are sandboxed")

    text = open(os.path.join(ROOT, "deploy", "Dockerfile")).read()
    blocks = re.findall(r"# runtime libraries of (\S+) begin\n(.*?)# runtime libraries of \1 end", text, re.S)
    targets = set(re.findall(r"^FROM runtime AS (\S+)$", text, re.M))
    if {product for product, _ in blocks} != {"mailwake-" + t for t in targets} or not blocks:
        fail(f"deploy/Dockerfile: targets {sorted(targets)} and runtime library lists {sorted(p for p, _ in blocks)} differ")
    for product, block in blocks:
        listed = set(block.replace("\\", " ").split())
        needed = needed_packages(os.path.join(bin_dir, product))
        if listed != needed:
            fail(f"deploy/Dockerfile lists {sorted(listed)} for {product}, which needs {sorted(needed)}")
        else:
            print(f"check-deploy: deploy/Dockerfile runtime libraries match {product}: {' '.join(sorted(needed))}")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
