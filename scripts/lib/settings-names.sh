# shellcheck shell=bash
# Every MAILWAKE_* name in docs/, README.md, docker-compose.yml, deploy/,
# scripts/ and the service sources is a setting the built binaries know
# (`mailwake-<service> settings --keys`) or a listed non-setting
# (scripts/lib/check_settings_names.py). Source this file, then:
#
#   settings_names_check BIN_DIR

settings_names_check() {
  /usr/bin/python3 "$(dirname "${BASH_SOURCE[0]}")/check_settings_names.py" "$1"
}
