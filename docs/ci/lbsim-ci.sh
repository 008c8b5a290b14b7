#!/bin/sh
# The lbsim job of a repository of scenarios, as lbsim's tutorial lays it
# out ("Regression tests in your CI"). Copy it to ci/lbsim-ci.sh beside
#   scenarios/NAME.ini   the scenarios, each with its [expect] lines
#   baselines/NAME.json  each scenario's accepted result, NAME its [scenario]
#                        name (ci/lbsim-ci.sh update writes them: commit them)
#   lbsim/               lbsim's sources, a git submodule at the release the
#                        baselines were made with (results move with lbsim)
# and run it from .github/workflows/lbsim.yml or .gitlab-ci.yml (lbsim's
# docs/ci/ has both):
#   sh ci/lbsim-ci.sh install  as root on Debian 12: the Debian packages lbsim
#                              builds with, then lbsim from lbsim/ into /usr/local
#   sh ci/lbsim-ci.sh check    every scenario once, held to its [expect] lines
#                              and its baseline (a value moved beyond
#                              LBSIM_TOLERANCE fails): a JUnit test case each in
#                              lbsim-results/report.xml, the new results in
#                              lbsim-results/NAME.json
#   sh ci/lbsim-ci.sh diff     after check, on a merge request: lbsim diff of
#                              each baseline against its new result, every value
#                              that differs (lbsim-results/NAME.diff.json)
#   sh ci/lbsim-ci.sh update   the scenarios' results as they run now become the
#                              baselines (see what moved with git diff, commit)
# Exit status, lbsim's: 0 all hold, 1 a line failed or a value moved, 2 bad
# input (a baseline missing: run update), 3 a run broke an invariant.
# Settings: LBSIM (the program, default lbsim), LBSIM_SOURCE (lbsim),
# LBSIM_TOLERANCE (1%), LBSIM_SCENARIOS (scenarios), LBSIM_BASELINES
# (baselines), LBSIM_RESULTS (lbsim-results).
set -eu

lbsim=${LBSIM:-lbsim}
source=${LBSIM_SOURCE:-lbsim}
tolerance=${LBSIM_TOLERANCE:-1%}
scenarios=${LBSIM_SCENARIOS:-scenarios}
baselines=${LBSIM_BASELINES:-baselines}
results=${LBSIM_RESULTS:-lbsim-results}
packages="libsimgrid-dev libglib2.0-dev libjson-glib-dev libcairo2-dev meson ninja-build pkg-config gcc python3"

case ${1:-} in
install)
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq
  # shellcheck disable=SC2086 # one word a package
  apt-get install -y -qq --no-install-recommends $packages
  build=${TMPDIR:-/tmp}/lbsim-build
  meson setup --buildtype=release "$build" "$source"
  meson install -C "$build"
  "$lbsim" version
  ;;
check)
  mkdir -p "$results"
  "$lbsim" check -q --junit "$results/report.xml" --json "$results/" \
    --baseline "$baselines/" --tolerance "$tolerance" "$scenarios"/*.ini
  ;;
diff)
  status=0
  for base in "$baselines"/*.json; do
    name=${base##*/}
    echo "== $name"
    code=0
    "$lbsim" diff --tolerance "$tolerance" --json "$results/${name%.json}.diff.json" \
      "$base" "$results/$name" || code=$?
    if [ "$code" -gt "$status" ]; then
      status=$code
    fi
  done
  exit "$status"
  ;;
update)
  mkdir -p "$baselines"
  "$lbsim" check -q --baseline "$baselines/" --update-baseline "$scenarios"/*.ini
  ;;
*)
  echo "usage: $0 install|check|diff|update" >&2
  exit 2
  ;;
esac
