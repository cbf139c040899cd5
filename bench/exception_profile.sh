#!/usr/bin/env bash
# Where the exception trace's cost goes: `perf record` of one JVM running Throws N 3 with the
# agent's exception trace alone (event=exception, exception=$SOURCE), then the share of the process's CPU samples
# under each part of a throw. bench/traces.sh gives the ratios against no agent and JFR; this
# says which part of the trace they come from. Not a test; one run, so shares are indicative.
# Parts (perf's inclusive "children" share of the symbols named; they overlap where one part
# calls another, so they do not add up to 100):
#   deoptimization   Deoptimization::uncommon_trap + unpack_frames: HotSpot deoptimizes the
#                    throwing compiled frame so the interpreter can post the JVMTI event
#   deopt log        Events::log_deopt_message, plus libc's printf internals (self time: perf
#                    cannot unwind their callers; HotSpot formats a line per deoptimization)
#   jvmti post       JvmtiExport::post_exception_throw (finds the catch site, calls the agent)
#   agent callback   ExceptionTrace::onException (thrown) or onCreated (created): GetStackTrace,
#                    GetClassSignature, the queue
#   agent writer     the stackscope-writer thread (names methods, interns stacks, writes)
#   fillInStackTrace the program's own cost of creating each exception (also without agent)
# The deoptimization parts are the thrown source's (JVMTI's Exception event); with the created
# source (the default) they should be near 0.
# Usage: bench/exception_profile.sh [BUILD_DIR]   (env: THROWS=200000, JAVA=java, SOURCE=created|thrown)
set -euo pipefail

build=${1:-build}
throws=${THROWS:-200000}
source=${SOURCE:-created}
java=$(command -v "${JAVA:-java}")
agent=$(realpath "$build/lib/libstackscope.so")
jar=$build/tests/java/stackscope_workloads.jar
command -v perf >/dev/null || { echo "exception_profile.sh: perf is not installed" >&2; exit 1; }
for needed in "$agent" "$jar"; do
  [[ -e $needed ]] || { echo "exception_profile.sh: $needed is missing (build first)" >&2; exit 1; }
done
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

perf record -q -o "$tmp/perf.data" -F 999 -g -- "$java" -Xmx64m -XX:+UseSerialGC \
  "-agentpath:$agent=event=exception,exception=$source,file=$tmp/exceptions.ssr" \
  -cp "$jar" io.stackscope.workloads.Throws "$throws" 3 >/dev/null 2>"$tmp/err" ||
  { cat "$tmp/err" >&2; exit 1; }

children() { perf report -i "$tmp/perf.data" --children --sort sym -g none 2>/dev/null | grep '%'; }
self() { perf report -i "$tmp/perf.data" --no-children --sort sym -g none 2>/dev/null | grep '%'; }
# The inclusive share of the first line whose symbol matches PATTERN exactly.
share() { children | awk -v p="$1" '$NF ~ p || $(NF-1) ~ p {gsub("%", "", $1); print $1; exit}'; }
self_share() { self | awk -v p="$1" '$0 ~ p {gsub("%", "", $1); s += $1} END {printf "%.2f\n", s}'; }

samples=$(perf report -i "$tmp/perf.data" --no-children --sort comm -g none 2>/dev/null | awk '/^# Samples:/ {print $3; exit}')
echo "java: $("$java" -version 2>&1 | head -1); Throws $throws 3, event=exception,exception=$source; $samples CPU samples at 999 Hz"
printf '%-18s %6s %%\n' \
  deoptimization "$(awk -v a="$(share 'Deoptimization::uncommon_trap$')" -v b="$(share 'Deoptimization::unpack_frames$')" 'BEGIN {print a + b}')" \
  "deopt log" "$(awk -v a="$(share 'Events::log_deopt_message$')" -v b="$(self_share '__vfprintf_internal|_IO_default_xsputn')" 'BEGIN {print a + b}')" \
  "jvmti post" "$(share 'JvmtiExport::post_exception_throw$')" \
  "agent callback" "$(share 'ExceptionTrace::on(Exception|Created)$')" \
  "agent writer" "$(perf report -i "$tmp/perf.data" --no-children --sort comm -g none 2>/dev/null | awk '/stackscope-wri/ {gsub("%", "", $1); print $1}')" \
  fillInStackTrace "$(share 'JVM_FillInStackTrace$')"
