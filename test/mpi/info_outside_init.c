/* info_outside_init.c: the MPI_Info_ calls before MPI_Init and after MPI_Finalize (MPI-4.0 sec.
 * 11.4.1 allows them at any time), on objects that live across both: infos made and filled
 * before MPI_Init are read, changed and duplicated during and after it, freed after
 * MPI_Finalize; MPI_INFO_ENV holds the job's size from MPI_Init on; MPI_Errhandler_free works
 * after MPI_Finalize.  Not built on mtest (its finalize is MPI_Finalize).  Any number of ranks;
 * rank 0 prints " No Errors". */
#include <mpi.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NINFO 40

static int errs;

#define CHECK(cond, ...)                                                                           \
    do {                                                                                           \
        if (!(cond)) {                                                                             \
            errs++;                                                                                \
            fprintf(stderr, "info_outside_init.c:%d: ", __LINE__);                                 \
            fprintf(stderr, __VA_ARGS__);                                                          \
            fprintf(stderr, "\n");                                                                 \
        }                                                                                          \
    } while (0)

/* Info i holds key "k<j>" = "v<i>.<j>" for j < nkeys, in that order. */
static void check_info(MPI_Info info, int i, int nkeys, const char *when)
{
    int n = -1, flag = 0, len = 0;
    char key[MPI_MAX_INFO_KEY + 1], want[64], value[64];
    MPI_Info_get_nkeys(info, &n);
    CHECK(n == nkeys, "%s: info %d has %d keys, expected %d", when, i, n, nkeys);
    for (int j = 0; j < nkeys && j < n; j++) {
        MPI_Info_get_nthkey(info, j, key);
        snprintf(want, sizeof want, "k%d", j);
        CHECK(strcmp(key, want) == 0, "%s: info %d key %d is '%s'", when, i, j, key);
        int buflen = sizeof value;
        MPI_Info_get_string(info, want, &buflen, value, &flag);
        snprintf(want, sizeof want, "v%d.%d", i, j);
        CHECK(flag && strcmp(value, want) == 0 && buflen == (int)strlen(want) + 1,
              "%s: info %d value %d is '%s' (flag %d, buflen %d)", when, i, j, value, flag, buflen);
        snprintf(key, sizeof key, "k%d", j);
        MPI_Info_get_valuelen(info, key, &len, &flag);
        CHECK(flag && len == (int)strlen(want), "%s: valuelen %d", when, len);
    }
}

static void add_key(MPI_Info *infos, int nkeys)
{
    char key[32], value[64];
    for (int i = 0; i < NINFO; i++) {
        snprintf(key, sizeof key, "k%d", nkeys);
        snprintf(value, sizeof value, "v%d.%d", i, nkeys);
        MPI_Info_set(infos[i], key, value);
    }
}

/* Every other info replaced by its duplicate, the original freed. */
static void dup_half(MPI_Info *infos)
{
    for (int i = 0; i < NINFO; i += 2) {
        MPI_Info d;
        MPI_Info_dup(infos[i], &d);
        MPI_Info_free(&infos[i]);
        CHECK(infos[i] == MPI_INFO_NULL, "MPI_Info_free did not set MPI_INFO_NULL");
        infos[i] = d;
    }
}

int main(int argc, char **argv)
{
    MPI_Info infos[NINFO], env;
    int nkeys = 0, flag, rank = 0, size = 0, buflen;
    char value[MPI_MAX_INFO_VAL + 1];

    /* Before MPI_Init. */
    for (int i = 0; i < NINFO; i++)
        MPI_Info_create(&infos[i]);
    add_key(infos, nkeys++);
    add_key(infos, nkeys++);
    dup_half(infos);
    check_info(infos[3], 3, nkeys, "before MPI_Init");
    MPI_Info_set(infos[5], "gone", "soon");
    MPI_Info_delete(infos[5], "gone");
    buflen = sizeof value;
    MPI_Info_get_string(infos[5], "gone", &buflen, value, &flag);
    CHECK(!flag, "before MPI_Init: a deleted key is still there");
    MPI_Info_create_env(argc, argv, &env);
    buflen = sizeof value;
    MPI_Info_get_string(env, "maxprocs", &buflen, value, &flag);
    const char *pmi_size = getenv("PMI_SIZE");
    CHECK(flag && (!pmi_size || strcmp(value, pmi_size) == 0),
          "before MPI_Init: MPI_Info_create_env's maxprocs is '%s' (PMI_SIZE %s)",
          flag ? value : "", pmi_size ? pmi_size : "unset");
    MPI_Info_free(&env);

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    for (int i = 0; i < NINFO; i++)
        check_info(infos[i], i, nkeys, "after MPI_Init");
    add_key(infos, nkeys++);
    dup_half(infos);
    buflen = sizeof value;
    MPI_Info_get_string(MPI_INFO_ENV, "maxprocs", &buflen, value, &flag);
    CHECK(flag && atoi(value) == size, "MPI_INFO_ENV maxprocs '%s', world size %d",
          flag ? value : "", size);
    MPI_Errhandler eh;
    MPI_Comm_get_errhandler(MPI_COMM_WORLD, &eh);
    MPI_Finalize();

    /* After MPI_Finalize. */
    for (int i = 0; i < NINFO; i++)
        check_info(infos[i], i, nkeys, "after MPI_Finalize");
    add_key(infos, nkeys++);
    dup_half(infos);
    for (int i = 0; i < NINFO; i++)
        check_info(infos[i], i, nkeys, "after MPI_Finalize, changed");
    buflen = sizeof value;
    MPI_Info_get_string(MPI_INFO_ENV, "maxprocs", &buflen, value, &flag);
    CHECK(flag && atoi(value) == size, "after MPI_Finalize: MPI_INFO_ENV maxprocs '%s'",
          flag ? value : "");
    for (int i = 0; i < NINFO; i++)
        MPI_Info_free(&infos[i]);
    for (int i = 0; i < NINFO; i++)
        MPI_Info_create(&infos[i]);
    for (int i = 0; i < NINFO; i++)
        MPI_Info_free(&infos[i]);
    MPI_Errhandler_free(&eh);
    CHECK(eh == MPI_ERRHANDLER_NULL, "after MPI_Finalize: MPI_Errhandler_free");

    if (rank == 0) {
        if (errs)
            printf(" Found %d errors\n", errs);
        else
            printf(" No Errors\n");
    }
    return errs != 0;
}
