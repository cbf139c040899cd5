# Sourced by the bench scripts that run bench/fixedwork.jar with the agent: from $build (the
# build directory) it sets java (JAVA or the one on PATH), agent, stackscope and jar, checks
# they exist, and makes $tmp, removed on exit.
java=$(command -v "${JAVA:-java}")
agent=$(realpath "$build/lib/libstackscope.so")
stackscope=$build/bin/stackscope
jar=$build/bench/fixedwork.jar
for needed in "$agent" "$stackscope" "$jar"; do
  [[ -e $needed ]] || { echo "$(basename "$0"): $needed is missing (build first)" >&2; exit 1; }
done
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# Prints "TID NAME CPU_NS" for each thread of PID: the first field of its schedstat, the time
# it ran in ns (stat's utime and stime count 10 ms ticks, too coarse here); spaces in the name
# become '_'. Bash builtins only: polled every 0.1 s, it forks nothing.
thread_cpu() {
  local task name ran
  for task in /proc/"$1"/task/*; do
    { read -r name <"$task/comm" && read -r ran _ <"$task/schedstat"; } 2>/dev/null || continue
    echo "${task##*/} ${name// /_} $ran"
  done
}

# Waits for PID (a child of this shell) to end, polling its threads' CPU every 0.1 s; writes
# each thread's last figures (thread_cpu's lines) to FILE: a thread that ended before the
# process keeps those of the poll before its end, at most one poll period short. Returns
# PID's exit status.
poll_thread_cpu() {
  local pid=$1 out=$2 status=0
  : >"$out.polls"
  while kill -0 "$pid" 2>/dev/null; do
    thread_cpu "$pid" >>"$out.polls"
    sleep 0.1
  done
  wait "$pid" || status=$?
  awk '{last[$1] = $0} END{for (tid in last) print last[tid]}' "$out.polls" >"$out"
  return "$status"
}
