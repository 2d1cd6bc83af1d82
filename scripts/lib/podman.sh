# shellcheck shell=bash
# Podman on a machine without a Docker engine or an image registry (CI, or any
# Debian 12 host): the settings this machine needs, and the three public base
# images the compose file names, made locally (source this file; needs root).
#
#   podman_setup            checks podman, runc and debootstrap are installed; writes the
#                           settings below into /etc/containers/containers.conf, keeping
#                           the file's other settings. Idempotent.
#   podman_base_images      makes, unless present, docker.io/library/debian:bookworm-slim
#                           (debootstrap --variant=minbase from the machine's Debian mirror),
#                           swift:6.3-bookworm (that base, the packages Swift needs and the
#                           machine's toolchain at /opt/swift) and postgres:15-bookworm
#                           (Debian's postgresql-15, the official image's entrypoint contract),
#                           so FROM and image: lines resolve without a registry.
#   podman_service_start    podman's Docker-compatible API on unix:///run/podman/podman.sock
#                           (for docker-compose); stopped by the EXIT cleanups when this
#                           call started it. Exports DOCKER_HOST.
#   podman_health_pump LABEL_FILTER
#                           runs `podman healthcheck run` every 2 s for each running
#                           container matching the filter (podman runs healthchecks from
#                           systemd timers, which containers here lack: without this,
#                           `condition: service_healthy` never passes). Stopped by the EXIT
#                           cleanups.
#
# Settings: `[containers] default_ulimits = []` (the defaults exceed this
# machine's hard limits), `[engine] cgroup_manager = "cgroupfs"` (no systemd
# PID 1) and `runtime = "runc"` (crun refuses the machine's hybrid cgroups).

PODMAN_LIB_DIR="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
PODMAN_ROOT="$(cd "$PODMAN_LIB_DIR/../.." && pwd)"
PODMAN_CACHE="$PODMAN_ROOT/.build/podman"
PODMAN_SOCKET=/run/podman/podman.sock
PODMAN_SWIFT_TOOLCHAIN="${PODMAN_SWIFT_TOOLCHAIN:-/opt/swift}"

podman_setup() {
  local tool missing=()
  for tool in podman runc debootstrap; do
    command -v "$tool" >/dev/null 2>&1 || missing+=("$tool")
  done
  if [ "${#missing[@]}" -gt 0 ]; then
    echo "podman: missing ${missing[*]} (apt-get install podman runc debootstrap containernetworking-plugins golang-github-containernetworking-plugin-dnsname)" >&2
    return 1
  fi
  [ "$(id -u)" -eq 0 ] || { echo "podman: rootful podman needs root" >&2; return 1; }
  mkdir -p /etc/containers
  python3 - /etc/containers/containers.conf <<'PY'
import os, re, sys
path = sys.argv[1]
want = {"containers": {"default_ulimits": "[]"}, "engine": {"cgroup_manager": '"cgroupfs"', "runtime": '"runc"'}}
lines = open(path).read().splitlines() if os.path.exists(path) else []
out, section, seen = [], None, set()
def flush(sec):
    for key, value in want.get(sec, {}).items():
        if (sec, key) not in seen:
            out.append(f"{key} = {value}")
            seen.add((sec, key))
for line in lines:
    header = re.match(r"^\s*\[([A-Za-z0-9_.]+)\]\s*$", line)
    if header:
        flush(section)
        section = header.group(1)
        out.append(line)
        continue
    key = re.match(r"^\s*([A-Za-z0-9_]+)\s*=", line)
    if key and key.group(1) in want.get(section, {}):
        if (section, key.group(1)) not in seen:
            out.append(f"{key.group(1)} = {want[section][key.group(1)]}")
            seen.add((section, key.group(1)))
        continue
    out.append(line)
flush(section)
for sec in want:
    if any((sec, k) not in seen for k in want[sec]):
        out.append(f"[{sec}]")
        flush(sec)
text = "\n".join(out) + "\n"
if not os.path.exists(path) or open(path).read() != text:
    open(path + ".tmp", "w").write(text)
    os.replace(path + ".tmp", path)
    print(f"podman: wrote {path}")
PY
  echo "podman: $(podman --version), runtime $(podman info --format '{{.Host.OCIRuntime.Name}}'), cgroups $(podman info --format '{{.Host.CgroupManager}}'), network $(podman info --format '{{.Host.NetworkBackend}}')"
}

# The first Debian mirror apt uses on this machine (deb822 or one-line sources).
podman_debian_mirror() {
  local uri
  uri="$(awk '/^URIs:/ {print $2; exit}' /etc/apt/sources.list.d/debian.sources 2>/dev/null || true)"
  [ -n "$uri" ] || uri="$(awk '$1 == "deb" && $0 !~ /security/ {for (i = 2; i <= NF; i++) if ($i ~ /^https?:/) {print $i; exit}}' /etc/apt/sources.list 2>/dev/null || true)"
  echo "${uri:-http://deb.debian.org/debian}"
}

podman_image_exists() { podman image exists "$1"; }

podman_timed() {  # NAME COMMAND...: runs COMMAND, prints how long it took
  local name="$1" t0 status
  shift
  t0="$(date +%s)"
  "$@" && status=0 || status=$?
  echo "podman: $name: $(( $(date +%s) - t0 )) s"
  return "$status"
}

podman_make_debian() {
  local mirror rootfs tarball="$PODMAN_CACHE/debian-bookworm-minbase.tar"
  mkdir -p "$PODMAN_CACHE"
  if [ ! -s "$tarball" ]; then
    mirror="$(podman_debian_mirror)"
    rootfs="$(mktemp -d "$PODMAN_CACHE/rootfs.XXXXXX")"
    echo "podman: debootstrap --variant=minbase bookworm from $mirror"
    if ! debootstrap --variant=minbase bookworm "$rootfs" "$mirror" > "$PODMAN_CACHE/debootstrap.log" 2>&1; then
      tail -n 20 "$PODMAN_CACHE/debootstrap.log" >&2
      rm -rf "$rootfs"
      return 1
    fi
    # What the official slim image has: deb822 sources with updates and security,
    # no downloaded package lists or archives, apt cleaning up after itself, no docs.
    rm -f "$rootfs/etc/apt/sources.list"
    cat > "$rootfs/etc/apt/sources.list.d/debian.sources" <<EOF
Types: deb
URIs: $mirror
Suites: bookworm bookworm-updates
Components: main
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg

Types: deb
URIs: ${mirror%/debian}/debian-security
Suites: bookworm-security
Components: main
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg
EOF
    cat > "$rootfs/etc/apt/apt.conf.d/docker-clean" <<'EOF'
DPkg::Post-Invoke { "rm -f /var/cache/apt/archives/*.deb /var/cache/apt/archives/partial/*.deb /var/cache/apt/*.bin || true"; };
APT::Update::Post-Invoke { "rm -f /var/cache/apt/archives/*.deb /var/cache/apt/archives/partial/*.deb /var/cache/apt/*.bin || true"; };
Dir::Cache::pkgcache ""; Dir::Cache::srcpkgcache "";
EOF
    cat > "$rootfs/etc/dpkg/dpkg.cfg.d/docker" <<'EOF'
path-exclude /usr/share/doc/*
path-include /usr/share/doc/*/copyright
path-exclude /usr/share/man/*
path-exclude /usr/share/info/*
path-exclude /usr/share/locale/*
EOF
    rm -rf "$rootfs"/var/cache/apt/archives/*.deb "$rootfs"/var/lib/apt/lists/* "$rootfs"/var/log/*.log "$rootfs"/usr/share/doc/* "$rootfs"/usr/share/man/*
    : > "$rootfs/etc/machine-id"
    tar --numeric-owner -C "$rootfs" -cf "$tarball.tmp" .
    mv "$tarball.tmp" "$tarball"
    rm -rf "$rootfs"
  fi
  podman import --change 'CMD ["bash"]' --change 'ENV PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin' \
    "$tarball" docker.io/library/debian:bookworm-slim >/dev/null 2>&1
}

podman_build_quiet() {  # CONTAINERFILE TAG CONTEXT: the build's output only when it fails
  local log="$PODMAN_CACHE/build-${2##*/}.log"
  mkdir -p "$PODMAN_CACHE"
  podman build --pull=never -f "$1" -t "$2" "$3" > "$log" 2>&1 || { tail -n 30 "$log" >&2; return 1; }
}

podman_base_images() {
  local images="$PODMAN_LIB_DIR/../../deploy/images" version
  if podman_image_exists docker.io/library/debian:bookworm-slim; then
    echo "podman: debian:bookworm-slim exists"
  else
    podman_timed "debian:bookworm-slim (debootstrap, import)" podman_make_debian || return 1
  fi
  if podman_image_exists docker.io/library/swift:6.3-bookworm; then
    echo "podman: swift:6.3-bookworm exists"
  else
    version="$("$PODMAN_SWIFT_TOOLCHAIN/usr/bin/swift" --version 2>&1 | grep -o 'Swift version [0-9.]*' | head -n 1)"
    case "$version" in
      "Swift version 6.3"*) ;;
      *) echo "podman: $PODMAN_SWIFT_TOOLCHAIN is '$version', not Swift 6.3: cannot make swift:6.3-bookworm" >&2; return 1 ;;
    esac
    podman_timed "swift:6.3-bookworm ($version from $PODMAN_SWIFT_TOOLCHAIN)" \
      podman_build_quiet "$images/swift.Containerfile" docker.io/library/swift:6.3-bookworm "$PODMAN_SWIFT_TOOLCHAIN" || return 1
    podman_check_swift || return 1
  fi
  if podman_image_exists docker.io/library/postgres:15-bookworm; then
    echo "podman: postgres:15-bookworm exists"
  else
    podman_timed "postgres:15-bookworm (Debian's postgresql-15)" \
      podman_build_quiet "$images/postgres.Containerfile" docker.io/library/postgres:15-bookworm "$images" || return 1
  fi
}

# The toolchain image starts `swift` and builds a package.
podman_check_swift() {
  podman run --rm --pull=never docker.io/library/swift:6.3-bookworm bash -ec '
    swift --version 2>&1 | head -n 1
    mkdir -p /tmp/hello/Sources/hello && cd /tmp/hello
    printf "// swift-tools-version:6.0\nimport PackageDescription\nlet package = Package(name: \"hello\", targets: [.executableTarget(name: \"hello\")])\n" > Package.swift
    echo "print(\"hello from swift build\")" > Sources/hello/main.swift
    swift build -q --static-swift-stdlib 2>&1 | tail -n 3
    .build/debug/hello' | sed 's/^/podman: swift image: /'
  [ "${PIPESTATUS[0]}" -eq 0 ]
}

podman_service_start() {
  export DOCKER_HOST="unix://$PODMAN_SOCKET"
  if curl -sf --unix-socket "$PODMAN_SOCKET" http://d/_ping >/dev/null 2>&1; then
    echo "podman: API already answers on $PODMAN_SOCKET"
    return 0
  fi
  mkdir -p "$(dirname "$PODMAN_SOCKET")" "$PODMAN_CACHE"
  # Only fds 0-2 for the service; its log goes to a file.
  podman system service --time=0 "unix://$PODMAN_SOCKET" </dev/null > "$PODMAN_CACHE/service.log" 2>&1 &
  PODMAN_SERVICE_PID=$!
  mw_on_exit "kill $PODMAN_SERVICE_PID 2>/dev/null; wait $PODMAN_SERVICE_PID 2>/dev/null || true"
  mw_wait_until 30 "podman's API on $PODMAN_SOCKET" curl -sf --unix-socket "$PODMAN_SOCKET" http://d/_ping
  echo "podman: API on $PODMAN_SOCKET (pid $PODMAN_SERVICE_PID)"
}

podman_health_pump() {
  local filter="$1"
  (
    set +e
    trap "exit 0" TERM
    while :; do
      for c in $(podman ps --filter "$filter" --format '{{.ID}}' 2>/dev/null); do
        podman healthcheck run "$c" >/dev/null 2>&1 || true
      done
      sleep 2 & wait $!
    done
  ) </dev/null >/dev/null 2>&1 &
  PODMAN_HEALTH_PUMP_PID=$!
  mw_on_exit "kill $PODMAN_HEALTH_PUMP_PID 2>/dev/null; wait $PODMAN_HEALTH_PUMP_PID 2>/dev/null || true"
  echo "podman: running healthchecks every 2 s for containers with $filter (pid $PODMAN_HEALTH_PUMP_PID)"
}
