/* config_test.c: the FERRY_ variable registry: defaults, sizes with suffixes, range errors. */
#include <stdio.h>
#include <stdlib.h>
#include "mpi.h"
#include "mpidi_config.h"

static int errors;

static void expect_int(const char *name, long want)
{
    long got = MPIDI_config_int(name);
    if (got != want) {
        fprintf(stderr, "FAIL %s = %ld, expected %ld\n", name, got, want);
        errors++;
    }
}

static void expect_rc(const char *what, int rc, int want)
{
    if (rc != want) {
        fprintf(stderr, "FAIL %s: config_init returned %d, expected %d\n", what, rc, want);
        errors++;
    }
}

int main(void)
{
    unsetenv("FERRY_EAGER_LIMIT");
    unsetenv("FERRY_RNDV_PROTOCOL");
    unsetenv("FERRY_SHM_CMA");
    expect_rc("defaults", MPIDI_config_init(), MPI_SUCCESS);
    expect_int("FERRY_EAGER_LIMIT", -1);
    expect_int("FERRY_RNDV_PROTOCOL", 0);
    expect_int("FERRY_SHM_CMA", 1);

    setenv("FERRY_EAGER_LIMIT", "64K", 1);
    setenv("FERRY_RNDV_PROTOCOL", "PIPELINE", 1);
    setenv("FERRY_SHM_CMA", "no", 1);
    expect_rc("valid values", MPIDI_config_init(), MPI_SUCCESS);
    expect_int("FERRY_EAGER_LIMIT", 65536);
    expect_int("FERRY_RNDV_PROTOCOL", 3);
    expect_int("FERRY_SHM_CMA", 0);
    if (!MPIDI_config_is_set("FERRY_EAGER_LIMIT")) {
        fprintf(stderr, "FAIL FERRY_EAGER_LIMIT should count as set\n");
        errors++;
    }

    const char *bad[][2] = {{"FERRY_EAGER_LIMIT", "lots"},  {"FERRY_EAGER_LIMIT", "-5"},
                            {"FERRY_EAGER_LIMIT", "12Q"},   {"FERRY_RNDV_PROTOCOL", "fast"},
                            {"FERRY_SHM_CMA", "maybe"},     {"FERRY_SHM_NUM_CELLS", "1"},
                            {"FERRY_POLL_SPINS", "10x"}};
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        setenv(bad[i][0], bad[i][1], 1);
        char what[128];
        snprintf(what, sizeof(what), "%s=%s", bad[i][0], bad[i][1]);
        fprintf(stderr, "(expecting a message about %s:) ", what);
        expect_rc(what, MPIDI_config_init(), MPI_ERR_ARG);
        unsetenv(bad[i][0]);
    }
    if (errors)
        return 1;
    printf(" No Errors\n");
    return 0;
}
