#!/usr/bin/env bash
# Measures where `.ci/run`'s time goes, phase by phase, without running `.ci/run` itself
# (docs/benchmarks/ci.md, "Fifth pass"). Run from a checkout that is installed and built
# (`npx -y pnpm@12.4.2 install --frozen-lockfile && npx -y pnpm@12.4.2 run build`), ideally a fresh
# clone. CPU seconds (user + sys of the step and every child it waited for, `/usr/bin/time`) are
# the comparable figure on a shared machine; wall seconds move with the others' load.
#
#   bash scripts/ci-profile.sh OUT_DIR [phase ...]
#
# Phases (all when none is named): build check docs pack matrix vitest. Writes OUT_DIR/phases.tsv
# (phase, user s, sys s, wall s), OUT_DIR/<project>.json (vitest's JSON report per project) and
# OUT_DIR/file-cpu.jsonl (each test file's CPU seconds, tooling/vitest/temp-dirs-file.ts).
# Summarise with `node scripts/ci-profile-summary.mjs OUT_DIR`.
set -euo pipefail
cd "$(dirname "$0")/.."
out="$(mkdir -p "$1" && cd "$1" && pwd)"
shift
phases=("$@")
[ ${#phases[@]} -eq 0 ] && phases=(build check docs pack matrix vitest)
export PATH="$PWD/node_modules/.bin:$PATH" NO_COLOR=1
touch "$out/phases.tsv"
t() {
  local name="$1"
  shift
  echo "== $name: $*" >&2
  /usr/bin/time -a -o "$out/phases.tsv" -f "$name	%U	%S	%e" "$@" >"$out/$name.log" 2>&1 ||
    echo "$name FAILED (see $out/$name.log)" | tee -a "$out/phases.tsv" >&2
}
for phase in "${phases[@]}"; do
  case "$phase" in
  build) t build turbo run build --force ;;
  check)
    t biome biome check .
    t function-length node scripts/function-length.mjs
    t api-snapshot node scripts/api-snapshot.mjs --check
    t tsc tsc -p tsconfig.typecheck.json
    t typedoc typedoc
    ;;
  # as in `check`: docs-check keeps the README block's tarballs, pack-check checks them (when the
  # docs phase ran before it; else pack-check packs them itself)
  docs) CHI_DOCS_CHECK_BUILT=1 t docs-check node scripts/docs-check.mjs --share-tarballs "$out/tarballs" ;;
  pack)
    if [ -d "$out/tarballs" ]; then
      t pack-check node scripts/pack-check.mjs --tarballs-from "$out/tarballs"
    else
      t pack-check node scripts/pack-check.mjs
    fi
    t release-from-copy node scripts/release-from-copy.mjs
    ;;
  matrix)
    t matrix-pilots env CHI_NODE_MATRIX_STEPS=pilot node scripts/node-matrix.mjs
    t matrix-unit24 env CHI_NODE_MATRIX_PART=unit CHI_NODE_MATRIX_STEPS=unit node scripts/node-matrix.mjs
    ;;
  vitest)
    rm -f "$out/file-cpu.jsonl"
    for project in spec worlds scoring stats openrouter chis experiment run analysis experiments \
      figures 'pilot*' report integration; do
      name="vitest-${project%\*}"
      CHI_FILE_CPU="$out/file-cpu.jsonl" t "$name" vitest run --project "$project" \
        --reporter=dot --reporter=json --outputFile.json="$out/$name.json"
    done
    ;;
  *) echo "unknown phase $phase" >&2 && exit 2 ;;
  esac
done
