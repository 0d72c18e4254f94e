#!/usr/bin/env bash
# End-to-end: seam record --otlp (OTLP/HTTP and gRPC) → a real
# OpenTelemetry Collector (OTLP receiver, file exporter) → files, checked
# against seam inspect --json. Builds seam and the Collector first (the
# Collector's first build takes a few minutes on two cores).
set -euo pipefail
cd "$(dirname "$0")"
go vet .
go test -count=1 -v -run TestCollector .
