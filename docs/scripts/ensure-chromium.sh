#!/usr/bin/env bash
# The docs browser test drives Debian's Chromium through playwright-core (no browser download).
# Idempotent: does nothing when the browser is already there.
set -euo pipefail

CHROMIUM=/usr/bin/chromium

if [ -x "$CHROMIUM" ]; then
  exit 0
fi

if [ "$(id -u)" -eq 0 ] && command -v apt-get >/dev/null 2>&1; then
  echo "ensure-chromium: $CHROMIUM is missing; installing the Debian 'chromium' package" >&2
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq
  apt-get install -y -qq chromium >/dev/null
  if [ -x "$CHROMIUM" ]; then
    exit 0
  fi
  echo "ensure-chromium: apt-get finished but $CHROMIUM is still missing" >&2
  exit 1
fi

cat >&2 <<MSG
ensure-chromium: $CHROMIUM is missing and cannot be installed from here
(installing needs root and apt-get). Install Debian's Chromium first:

  sudo apt-get update && sudo apt-get install -y chromium

The docs tests drive that browser with playwright-core; they never download one.
MSG
exit 1
