#!/usr/bin/env bash
# The GPU tests spread over every GPU of a device host, one pytest per GPU (CUDA_VISIBLE_DEVICES), so the suite
# that takes 6 to 7 minutes on one GPU fits beside a benchmark in one call of a multi-GPU kind.
#   experiments/harness/gpu_tests_parallel.sh [TEST_FILE...]
# The test files are dealt to the GPUs longest first by their seconds in experiments/harness/gpu-test-seconds.txt
# ("SECONDS FILE" lines, written by the last run of this script into $OUT; files it does not list count 5 s).
# Prints one summary line per GPU and the totals; $OUT/gpu-tests.txt keeps every part's tail, and
# $OUT/gpu-test-seconds.txt the measured seconds per file for the next split. Exit status: 1 if any part failed.
set -uo pipefail
out=${OUT:-/tmp/out}
mkdir -p "$out"
gpus=$(nvidia-smi -L 2>/dev/null | grep -c '^GPU ')
[ "$gpus" -ge 1 ] || { echo "no GPU listed by nvidia-smi"; exit 1; }
files=("$@")
[ ${#files[@]} -gt 0 ] || mapfile -t files < <(ls tests/test_*.py)
parts=$(python3 - "$gpus" "${files[@]}" <<'EOF'
import sys
from pathlib import Path
gpus, files = int(sys.argv[1]), sys.argv[2:]
known = {}
table = Path("experiments/harness/gpu-test-seconds.txt")
if table.exists():
    for line in table.read_text().splitlines():
        seconds, _, name = line.partition(" ")
        known[name] = float(seconds)
loads, parts = [0.0] * gpus, [[] for _ in range(gpus)]
for name in sorted(files, key=lambda f: -known.get(f, 5.0)):
    target = loads.index(min(loads))
    loads[target] += known.get(name, 5.0)
    parts[target].append(name)
print("\n".join(" ".join(part) for part in parts))
EOF
)
work=$(mktemp -d)
index=0
while read -r part; do
  [ -n "$part" ] || { index=$((index + 1)); continue; }
  # shellcheck disable=SC2086
  CUDA_VISIBLE_DEVICES=$index python3 -m pytest -m gpu -q -p no:cacheprovider --durations=0 --durations-min=0.5 \
    $part > "$work/part-$index.txt" 2>&1 &
  index=$((index + 1))
done <<< "$parts"
wait
status=0
: > "$out/gpu-tests.txt"
for log in "$work"/part-*.txt; do
  summary=$(grep -E '(passed|failed|error|skipped|deselected)' "$log" | tail -1)
  echo "$(basename "$log" .txt): $summary"
  case "$summary" in *failed*|*error*) status=1;; esac
  case "$summary" in *passed*|*skipped*|*deselected*) ;; *) status=1;; esac
  { echo "== $(basename "$log")"; grep -E '^(FAILED|ERROR)' "$log"; tail -5 "$log"; } >> "$out/gpu-tests.txt"
done
# Seconds per test file, summed from --durations, for the next split.
cat "$work"/part-*.txt | python3 -c '
import re, sys, collections
seconds = collections.Counter()
for line in sys.stdin:
    match = re.match(r"\s*([0-9.]+)s (?:call|setup|teardown)\s+(tests/[^:]+\.py)::", line)
    if match:
        seconds[match.group(2)] += float(match.group(1))
for name, total in seconds.most_common():
    print(f"{total:.1f} {name}")
' > "$out/gpu-test-seconds.txt"
python3 - "$work" <<'EOF'
import re, sys, collections
from pathlib import Path
totals = collections.Counter()
for log in Path(sys.argv[1]).glob("part-*.txt"):
    lines = [l for l in log.read_text().splitlines() if re.search(r"\d+ (passed|failed|skipped|deselected)", l)]
    for count, word in re.findall(r"(\d+) (passed|failed|skipped|deselected|errors?)", lines[-1] if lines else ""):
        totals[word] += int(count)
print("all parts: " + ", ".join(f"{count} {word}" for word, count in sorted(totals.items())))
EOF
exit $status
