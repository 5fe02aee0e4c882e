#!/usr/bin/env bash
# run-all.sh: the whole test suite: the runner's self-test, build, unit tests, launcher, shm
# method, the MPI test list with its protocol variants, Hydra, the list over tcp, tcp end to
# end (network namespaces), the attacks of doc/security.md, libFuzzer on the parsers a stranger
# can reach, Slurm (a two-node cluster of namespaces), AddressSanitizer+UBSan and valgrind; one
# summary line.
#
#   test/run-all.sh                 everything: each test list once per method, its protocol
#                                   variants on the lines marked "variants" (test/README.md)
#   TEST_QUICK=1 test/run-all.sh    no variants, no Slurm, sanitizer or valgrind parts
#   TEST_FULL=1 test/run-all.sh     the protocol variants on every line of the lists (slow)
#
# Installs missing Debian packages first (test/debian-packages) as root or with sudo.  Builds in
# _build (installed to _inst) and _build-asan (_inst-asan) at the top of the tree; each part's
# log is in _test-logs/.  Ends with "N passed, N failed, N skipped"; exits 1 if anything failed.
# How parts are counted, and how to add one: test/README.md and test/parts.sh.
set -u
top=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$top" || exit 2
quick=${TEST_QUICK:-0}
export JOBS=${JOBS:-2}
logs=$top/_test-logs
rm -rf "$logs"
mkdir -p "$logs"
# shellcheck source=test/parts.sh
. test/parts.sh

test/install-packages.sh || exit 1

# The accounting itself first: fake parts that lie must be caught.
part runner-selftest 120 test/runner_selftest.sh

echo "== build (_build, installed in _inst)"
if ! check build 1800 test/build.sh "$top/_build" "$top/_inst"; then
    summary
    exit 1
fi
inst=$top/_inst
mpi_env=(env MPICC="$inst/bin/mpicc" MPIEXEC="$inst/bin/mpiexec")
# Parts that run a test list with its variants get vlimit seconds (the full coverage needs hours).
variants=-variants vlimit=2400
[ "${TEST_FULL:-0}" = 1 ] && variants=-all-variants vlimit=14400
[ "$quick" = 1 ] && variants=

# Each part: part NAME TIME-LIMIT-SECONDS COMMAND [ARGS...] (a program printing PASS/FAIL/SKIP
# lines and a summary; see test/parts.sh).
part unit 900 test/unit/run.sh "$top/_build"
part launcher 600 bash test/launcher/run.sh _build/mpiexec _build/test/launcher/pmi_hello
part shm-method 1200 env SHM_RUN_SLOW=$((1 - quick)) sh test/methods/shm_run.sh "$top/_build/shm-method"
check install 300 test/install_check.sh "$inst"
# bench/: the programs build against Ferry, MPICH and Open MPI; run.sh makes its tables and plot.
part bench 600 bash test/bench/run.sh "$inst"
part errors 300 bash test/errors/run.sh "$inst"
# The profiling interface from outside: an LD_PRELOAD tool and a statically linked one.
part profiling 300 bash test/profiling/run.sh "$inst"
# The Fortran programs (fixed form with mpif.h, free form with use mpi) built with mpifort; one
# SKIP line when Ferry was built without Fortran (no gfortran).
part fortran 300 bash test/fortran/run.sh "$inst"
part variables 300 test/variables/run.sh "$inst"
# The MPI test list over our mpiexec: defaults, then the variants of test/variants.
part mpi $vlimit "${mpi_env[@]}" TESTDIR="$top/_build/mpitests" VARIANTS_FILE=test/variants \
    test/mpi/runtests ${variants:-}
# The later runs of the same list (Hydra, tcp, ofi) reuse its binaries (built by the same mpicc;
# building them again took 1.5 minutes each) and keep their logs apart.
list_built=(TESTDIR="$top/_build/mpitests" REUSE_BUILT=1)
# Every protocol of the core against a fake method that answers AGAIN and INPROGRESS at random,
# completes out of order and needs registration (test/chaos/).
part chaos 600 bash test/chaos/run.sh "$top/_build" "$inst"
# Messages beyond 2 GiB (MPI_Send_c ...): once, on shm, not under the variants.
if [ "$quick" != 1 ]; then
    part mpi-large 1200 "${mpi_env[@]}" TESTDIR="$top/_build/mpitests-large" \
        test/mpi/runtests -list test/mpi/testlist.large
fi
# The same library under MPICH's Hydra (PMI over PMI_FD from another launcher).
if command -v mpiexec.hydra >/dev/null; then
    part hydra 1200 "${mpi_env[@]}" MPIEXEC=mpiexec.hydra "${list_built[@]}" \
        LOGDIR="$top/_build/mpitests-hydra" test/mpi/runtests
else
    skip_part hydra "mpiexec.hydra not installed"
fi
# The MPI test list over tcp alone, on loopback: defaults, then tcp's variants.
part mpi-tcp $vlimit "${mpi_env[@]}" FERRY_METHODS=tcp FERRY_TCP_IF=lo "${list_built[@]}" \
    LOGDIR="$top/_build/mpitests-tcp" VARIANTS_FILE=test/tcp/variants test/mpi/runtests ${variants:-}
# tcp end to end: loopback, 16 ranks, a killed rank, refused/unreachable connections, port
# range, and two hosts made of network namespaces under our mpiexec and Hydra.
part tcp 900 bash test/tcp/run.sh "$inst"
# Hardening: failed start-ups leave nothing in /dev/shm, a dead rank gives errors (shm, tcp),
# descriptor exhaustion, and the attacks of doc/security.md, on this host only.
part harden 900 bash test/harden/run.sh "$inst"
# libFuzzer on the parsers a stranger can reach (PMI wire, tcp handshake and frames, cards):
# the regression inputs, then FUZZ_SECONDS (30) per target from the seed corpus.
part fuzz 1200 bash test/fuzz/run.sh "$top/_build-fuzz"
# verbs on a real (software) device: one Soft-RoCE VM runs test/verbs/testlist over verbs (with
# test/verbs/variants unless TEST_QUICK), two hosts mixing shm and verbs, failures and errors;
# here, a job without a device.  Skipped, with the reason, without the VM runner or libibverbs.
part verbs 2700 env VERBS_QUICK="$quick" bash test/verbs/run.sh "$inst"
# shm's CMA under each of Yama's ptrace scopes, root and an ordinary user, in a throwaway VM
# (the scope is the host's to set).  Skipped, with the reason, without the VM runner.
part shm-ptrace 600 bash test/methods/ptrace_run.sh "$inst"
# libfabric (the ofi method), within CI's budget (test/README.md "ofi"): the test list whole over
# FI_PROVIDER=tcp (tcp;ofi_rxm here, with rxm's defaults), then (not in quick runs) nine of its
# marked lines again under test/ofi/variants (read, write, pipeline with single receive
# buffers): 2 and 4 ranks, every size and pieces past 64 KiB, noncontiguous both sides,
# wildcards with rendezvous, many sends waiting for buffers, synchronous sends, cancel, order
# past rxm's eager size, collectives (155 s of CPU here; about 1 min in CI); over FI_PROVIDER=shm its marked lines,
# plain and under the variants; TEST_FULL=1 runs both lists whole under every variant.
# Then the method end to end: no provider, shm and ofi in one job, a completion error, lost
# peers, a stranger, order past rxm's eager size, a stale shm region, sleeping on the CQ's
# descriptor, and a small list over verbs;ofi_rxm on Soft-RoCE in the VM
# (test/ofi/run.sh, test/ofi/vm.sh).  The shm list reuses the tcp list's programs.  The lists
# are skipped, with the reason, when configure found no libfabric.
if "$inst/bin/ferry_info" --parsable 2>/dev/null | grep -q '^method	ofi	'; then
    ofi_tcp_variants= ofi_shm_filter=(-filter variants)
    [ "${TEST_FULL:-0}" = 1 ] && ofi_tcp_variants=$variants ofi_shm_filter=()
    part ofi-tcp $vlimit "${mpi_env[@]}" FERRY_METHODS=ofi FI_PROVIDER=tcp \
        "${list_built[@]}" LOGDIR="$top/_build/mpitests-ofi" \
        VARIANTS_FILE=test/ofi/variants test/mpi/runtests $ofi_tcp_variants
    if [ -z "$ofi_tcp_variants" ] && [ -n "${variants:-}" ]; then
        ofi_tcp_subset='^(sendrecv_sizes [24] |type_noncontig 2 variants|probe_any_source 4 |many_irecv_waitall 4 |ssend_sync 2 |order_nonovertaking 2 arg=dense|cancel_send_either 2 |coll_data 4 )'
        part ofi-tcp-variants $vlimit "${mpi_env[@]}" FERRY_METHODS=ofi FI_PROVIDER=tcp \
            "${list_built[@]}" LOGDIR="$top/_build/mpitests-ofi-variants" VARIANTS_FILE=test/ofi/variants \
            test/mpi/runtests -variants -filter "$ofi_tcp_subset"
    fi
    part ofi-shm $vlimit "${mpi_env[@]}" FERRY_METHODS=ofi FI_PROVIDER=shm "${list_built[@]}" \
        LOGDIR="$top/_build/mpitests-ofi-shm" VARIANTS_FILE=test/ofi/variants test/mpi/runtests \
        "${ofi_shm_filter[@]}" ${variants:-}
else
    skip_part ofi-tcp "Ferry was built without libfabric (configure: ofi method no)"
    skip_part ofi-shm "Ferry was built without libfabric (configure: ofi method no)"
fi
part ofi 1800 env OFI_VM_FULL="${TEST_FULL:-0}" bash test/ofi/run.sh "$inst"

if [ "$quick" != 1 ]; then
    # Slurm: a private two-node cluster on this machine (slurm-up), srun --mpi=pmi2 and
    # --mpi=pmix across both nodes, world size, methods, core programs and failures (about
    # 1.5 minutes).  Not in quick runs: the cluster is one per machine, and the full suite runs
    # under the suite lock.
    part slurm 900 bash test/slurm/run.sh "$inst"

    # AddressSanitizer + UBSan: library and tests instrumented, default and four variants
    # (the last over tcp); FERRY_CHECK_REQUESTS: every request creation checks that the free
    # request's tail is clean (adi/request.c).  Configured as if libibverbs-dev and libfabric-dev were not installed
    # (their headers "not found" through autoconf's cache variables): this is also the check
    # that Ferry builds and runs without rdma-core and without libfabric and that configure says
    # so (neither the verbs code, on a host without a device, nor the ofi code, which only
    # FERRY_METHODS=ofi or FI_PROVIDER starts, runs in this list anyway).
    san="-fsanitize=address,undefined -fno-sanitize-recover=undefined -fno-omit-frame-pointer"
    echo "== build-asan (_build-asan, installed in _inst-asan)"
    if check build-asan 1800 test/build.sh "$top/_build-asan" "$top/_inst-asan" \
        CFLAGS="-O1 -g $san -DFERRY_CHECK_REQUESTS" LDFLAGS="$san" ac_cv_header_infiniband_verbs_h=no \
        ac_cv_header_rdma_fabric_h=no; then
        check build-asan-says-verbs-off 10 grep -q \
            'verbs method (rdma-core): no: no infiniband/verbs.h (install libibverbs-dev' \
            "$logs/build-asan.log"
        check build-asan-says-ofi-off 10 grep -q \
            'ofi method (libfabric): no: no rdma/fabric.h (install libfabric-dev' \
            "$logs/build-asan.log"
        part asan $vlimit env ASAN_OPTIONS=detect_leaks=1:abort_on_error=0:exitcode=86 \
            UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 VARIANTS_FILE=test/asan-variants \
            MPICC="$top/_inst-asan/bin/mpicc $san" MPIEXEC="$top/_inst-asan/bin/mpiexec" \
            TESTDIR="$top/_build-asan/mpitests" test/mpi/runtests ${variants:-}
    fi
    # valgrind (memcheck): a few programs of the list, each rank under valgrind.
    part valgrind 2400 "${mpi_env[@]}" MPIEXEC="$top/test/valgrind-mpiexec" \
        REAL_MPIEXEC="$inst/bin/mpiexec" TESTDIR="$top/_build/mpitests-vg" TIMEOUT=300 \
        test/mpi/runtests -list test/valgrind-testlist
fi

summary
