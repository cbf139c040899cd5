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
