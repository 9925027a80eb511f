#!/usr/bin/env bash
# The recipe tests (docs/test/recipes/) run the hand-written verifiers of docs/recipes/ in Python, Go, Ruby,
# PHP and Java against test-vectors/. This installs whichever of those toolchains is missing, from Debian's
# packages, like ensure-chromium.sh does for the browser. Idempotent: does nothing when all are there.
set -euo pipefail

# command on PATH -> Debian package that provides it
declare -A PACKAGE_OF=(
  [python3]=python3
  [go]=golang-go
  [ruby]=ruby
  [php]=php-cli
  [java]=default-jdk-headless
)

missing=()
for command in python3 go ruby php java; do
  if ! command -v "$command" >/dev/null 2>&1; then
    missing+=("${PACKAGE_OF[$command]}")
  fi
done

if [ "${#missing[@]}" -eq 0 ]; then
  exit 0
fi

if [ "$(id -u)" -eq 0 ] && command -v apt-get >/dev/null 2>&1; then
  echo "ensure-toolchains: installing the Debian packages ${missing[*]}" >&2
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq
  apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
  for command in python3 go ruby php java; do
    if ! command -v "$command" >/dev/null 2>&1; then
      echo "ensure-toolchains: apt-get finished but '$command' is still not on PATH" >&2
      exit 1
    fi
  done
  exit 0
fi

cat >&2 <<MSG
ensure-toolchains: missing ${missing[*]}, and they cannot be installed from here
(installing needs root and apt-get). Install them first:

  sudo apt-get update && sudo apt-get install -y ${missing[*]}

The docs recipe tests run the verification recipes in each of these languages against test-vectors/.
MSG
exit 1
