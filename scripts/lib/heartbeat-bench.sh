# shellcheck shell=bash
# mw_heartbeat_bench_smoke: a short run of mailwake-heartbeat-bench (200 outposts
# paired through the relay, one saturated round, 2 s at the real cadence) against
# $MAILWAKE_TEST_POSTGRES_URL; prints one summary line. Numbers are informative,
# never asserted; the run fails if any heartbeat is refused or a silence-watch
# pass marks a live outpost silent. Needs common.sh sourced.
mw_heartbeat_bench_smoke() {
  local bin out
  swift build -c release --product mailwake-heartbeat-bench
  swift build -c release --product mailwake-relay
  swift build -c release --product mailwake-apns-simulator
  bin="$(swift build -c release --show-bin-path)"
  out=.build/heartbeat-bench-smoke.json
  "$bin/mailwake-heartbeat-bench" --outposts 200 --rounds 1 --seconds 2 --interval 10 --settle 0 > "$out" \
    || { mw_fail "mailwake-heartbeat-bench"; return 1; }
  "${PYTHON:-python3}" -c 'import json,sys; d=json.load(open(sys.argv[1])); r=d["rounds"][0]; print("heartbeats/s", r["per_second"], "relay CPU us/heartbeat", r["relay_cpu_us_per_heartbeat"], "p99 ms", r["latency_ms"]["p99"], "silence pass p50 ms", d["silence_watch_pass_ms"]["p50"])' "$out"
}
