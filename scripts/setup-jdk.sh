#!/usr/bin/env bash
# Installs what the code-intelligence tests measure against: the JDK 17 (javap) and its own
# sources (src.zip, ~15,000 Java files), plus unzip. Idempotent; apt runs only when something is missing.
set -euo pipefail
export DEBIAN_FRONTEND=noninteractive
missing=()
command -v javap >/dev/null 2>&1 || missing+=(openjdk-17-jdk-headless)
dpkg -s openjdk-17-source >/dev/null 2>&1 || missing+=(openjdk-17-source)
command -v unzip >/dev/null 2>&1 || missing+=(unzip)
if [ ${#missing[@]} -gt 0 ]; then
  echo "setup-jdk: installing ${missing[*]}" >&2
  apt-get update -qq
  apt-get install -y -qq "${missing[@]}" >/dev/null
fi
echo "setup-jdk: $(javap -version 2>&1 | head -1), sources at $(dpkg -L openjdk-17-source | grep 'src.zip$' | head -1)" >&2
