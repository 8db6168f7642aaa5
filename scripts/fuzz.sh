#!/usr/bin/env bash
# Builds the libFuzzer targets of tests/fuzz/ (clang, ASan + UBSan) in build-fuzz/ and runs each for
# SECONDS_PER_TARGET seconds (default 60), one after another, one job each.
#   scripts/fuzz.sh [SECONDS_PER_TARGET] [TARGET...]
# Corpora grow in build-fuzz/corpus/<target>/ (kept between runs), seeds are rebuilt in
# build-fuzz/seeds/<target>/ from tests/data and the seed generator, crashes land in
# build-fuzz/crashes/<target>/, logs in build-fuzz/logs/<target>.log. The closing table lists executions
# and seconds per target. A crashing input belongs in tests/data/fuzz_regressions/<target>/ once fixed.
set -euo pipefail
cd "$(dirname "$0")/.."
seconds="${1:-60}"
shift || true
all=(model_load npy npz tensor_proto config calibration_table rewrite)
targets=("$@")
[ ${#targets[@]} -gt 0 ] || targets=("${all[@]}")
dir=build-fuzz
jobs="${PTQ_FUZZ_BUILD_JOBS:-2}"

if ! ls /usr/lib/llvm-*/lib/clang/*/lib/linux/libclang_rt.fuzzer-x86_64.a > /dev/null 2>&1; then
  apt-get update -qq && apt-get install -y -qq clang-14 libclang-rt-14-dev
fi
cmake -S . -B "$dir" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCMAKE_CXX_COMPILER=clang++ -DPTQ_FUZZ=ON > /dev/null
cmake --build "$dir" -j"$jobs" --target ptq_fuzz_make_seeds $(printf 'fuzz_%s ' "${targets[@]}")

# Seeds: generated ones, plus the test data each target reads (small files only: libFuzzer's -max_len).
rm -rf "$dir/seeds"
"$dir/tests/fuzz/ptq_fuzz_make_seeds" "$dir/seeds"
seed() {  # seed TARGET FILE...
  mkdir -p "$dir/seeds/$1"
  local t="$1"
  shift
  for f in "$@"; do
    [ -f "$f" ] && [ "$(stat -c %s "$f")" -le 65536 ] && cp "$f" "$dir/seeds/$t/$(echo "$f" | tr '/' '_')"
  done
  return 0
}
seed npy $(find tests/data -name '*.npy')
seed npz tests/data/npz/*.npz
seed model_load $(find tests/data -name '*.onnx')
seed config configs/*.json
seed calibration_table $(find tests/data out -name '*.calib.json' 2> /dev/null)
onnx_data=/usr/share/libonnx-testdata/data/node
if [ -d "$onnx_data" ]; then  # a sample of the ONNX backend tests' models and tensors
  seed model_load $(ls -d "$onnx_data"/test_* | awk 'NR % 8 == 0' | sed 's|$|/model.onnx|')
  seed tensor_proto $(ls -d "$onnx_data"/test_* | awk 'NR % 16 == 0' | sed 's|$|/test_data_set_0/input_0.pb|')
fi
for f in tests/data/fuzz_regressions/*/*; do  # earlier crashes seed their target too
  [ -f "$f" ] && seed "$(basename "$(dirname "$f")")" "$f"
done

export ASAN_OPTIONS="detect_leaks=1:allocator_may_return_null=0"
export UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1"
export OMP_NUM_THREADS=1
mkdir -p "$dir/logs"
summary=""
for t in "${targets[@]}"; do
  mkdir -p "$dir/corpus/$t" "$dir/crashes/$t"
  echo "== fuzz_$t: ${seconds}s" >&2
  case "$t" in
    npy | npz) dict=npy ;;
    config | calibration_table) dict="$t" ;;
    *) dict=onnx ;;
  esac
  rc=0
  start=$(date +%s)
  "$dir/tests/fuzz/fuzz_$t" "$dir/corpus/$t" "$dir/seeds/$t" -max_total_time="$seconds" -rss_limit_mb=2048 -timeout=10 \
    -max_len=65536 -dict="tests/fuzz/dict/$dict.dict" -print_final_stats=1 -artifact_prefix="$dir/crashes/$t/" > "$dir/logs/$t.log" 2>&1 || rc=$?
  execs=$(grep -o 'stat::number_of_executed_units: *[0-9]*' "$dir/logs/$t.log" | grep -o '[0-9]*$' || echo "?")
  summary+=$(printf '%-18s executions %-10s seconds %-6s exit %s' "$t" "$execs" "$(($(date +%s) - start))" "$rc")$'\n'
  if [ "$rc" -ne 0 ]; then
    echo "fuzz_$t stopped with exit code $rc: see $dir/logs/$t.log and $dir/crashes/$t/" >&2
  fi
done
printf '%s' "$summary"
