#!/usr/bin/env bash
# run.sh: the core's protocols over the chaos method (AGAIN and INPROGRESS at random, completions
# out of order, registration required): eager, sync, read, write (virtual and offset addresses),
# pipeline, refused rdma, a tiny registration cache, FIN fenced behind the reads; 2 and 4 ranks, several seeds.
#
#   test/chaos/run.sh BUILD_DIR INSTALL_DIR      (CHAOS_SEEDS="1 2 3" to choose the seeds)
#
# Prints PASS/FAIL per run (a failure shows CHAOS_SEED and the output) and "N passed, N failed".
set -u
build=${1:?build directory}
inst=${2:?install directory}
prog=$build/test/chaos/chaos_traffic
seeds=${CHAOS_SEEDS:-"1 2"}
rounds=${CHAOS_ROUNDS:-20}
passed=0 failed=0
if [ ! -x "$prog" ]; then
    echo "FAIL chaos: $prog not built"
    echo "0 passed, 1 failed"
    exit 1
fi
# variant|expect|environment
variants=(
    "eager+read|rdma|"
    "rndv-read|rdma|FERRY_EAGER_LIMIT=0 FERRY_RNDV_PROTOCOL=read"
    "rndv-read-fin-fence|rdma|FERRY_EAGER_LIMIT=0 FERRY_RNDV_PROTOCOL=read FERRY_RNDV_FIN_FENCE=1"
    "rndv-write-offset|rdma|FERRY_EAGER_LIMIT=0 FERRY_RNDV_PROTOCOL=write CHAOS_OFFSET=1 CHAOS_AGAIN=40"
    "rndv-read-offset-tinycache|rdma|FERRY_EAGER_LIMIT=0 CHAOS_OFFSET=1 CHAOS_RCACHE_REGIONS=2 FERRY_RNDV_BOUNCE_CHUNK=4K FERRY_RNDV_BOUNCE_SLOTS=2"
    "pipeline|am|FERRY_EAGER_LIMIT=0 FERRY_RNDV_PROTOCOL=pipeline FERRY_PIPELINE_CHUNK=8K"
    "refused-rdma|rdma|FERRY_EAGER_LIMIT=0 CHAOS_REFUSE=10"
)
for np in 2 4; do
    for v in "${variants[@]}"; do
        IFS='|' read -r name expect envs <<<"$v"
        for seed in $seeds; do
            out=$(env $envs FERRY_METHODS=chaos CHAOS_SEED="$seed" timeout 180 \
                "$inst/bin/mpiexec" -n "$np" "$prog" "$rounds" "$expect" 2>&1)
            rc=$?
            if [ $rc -eq 0 ] && grep -q '^ No Errors' <<<"$out"; then
                echo "PASS chaos $name np=$np CHAOS_SEED=$seed"
                passed=$((passed + 1))
            else
                echo "FAIL chaos $name np=$np CHAOS_SEED=$seed (exit $rc; env: $envs)"
                tail -n 15 <<<"$out" | sed 's/^/    /'
                failed=$((failed + 1))
            fi
        done
    done
done
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
