/* mpit_common.h: what the MPI_T programs (mpit_*.c) share: a check that counts and prints,
 * and the names of the MPI_T error classes.  They do not use mtest's init and finalize: MPI_T
 * is used before MPI_Init and after MPI_Finalize. */
#ifndef MPIT_COMMON_H_INCLUDED
#define MPIT_COMMON_H_INCLUDED

#include <mpi.h>
#include <stdio.h>
#include <string.h>

static int errs;

#ifdef OPEN_MPI
#define MPIT_OPEN_MPI 1
#else
#define MPIT_OPEN_MPI 0
#endif

#define CHECK(cond, ...)                                                                           \
    do {                                                                                           \
        if (!(cond)) {                                                                             \
            errs++;                                                                                \
            fprintf(stderr, "%s:%d: ", __FILE__, __LINE__);                                        \
            fprintf(stderr, __VA_ARGS__);                                                          \
            fprintf(stderr, "\n");                                                                 \
        }                                                                                          \
    } while (0)

static const struct {
    int code;
    const char *name;
} mpit_classes[] = {
    {MPI_SUCCESS, "MPI_SUCCESS"},
    {MPI_T_ERR_MEMORY, "MPI_T_ERR_MEMORY"},
    {MPI_T_ERR_NOT_INITIALIZED, "MPI_T_ERR_NOT_INITIALIZED"},
    {MPI_T_ERR_CANNOT_INIT, "MPI_T_ERR_CANNOT_INIT"},
    {MPI_T_ERR_INVALID_INDEX, "MPI_T_ERR_INVALID_INDEX"},
    {MPI_T_ERR_INVALID_ITEM, "MPI_T_ERR_INVALID_ITEM"},
    {MPI_T_ERR_INVALID_HANDLE, "MPI_T_ERR_INVALID_HANDLE"},
    {MPI_T_ERR_OUT_OF_HANDLES, "MPI_T_ERR_OUT_OF_HANDLES"},
    {MPI_T_ERR_OUT_OF_SESSIONS, "MPI_T_ERR_OUT_OF_SESSIONS"},
    {MPI_T_ERR_INVALID_SESSION, "MPI_T_ERR_INVALID_SESSION"},
    {MPI_T_ERR_CVAR_SET_NOT_NOW, "MPI_T_ERR_CVAR_SET_NOT_NOW"},
    {MPI_T_ERR_CVAR_SET_NEVER, "MPI_T_ERR_CVAR_SET_NEVER"},
    {MPI_T_ERR_PVAR_NO_STARTSTOP, "MPI_T_ERR_PVAR_NO_STARTSTOP"},
    {MPI_T_ERR_PVAR_NO_WRITE, "MPI_T_ERR_PVAR_NO_WRITE"},
    {MPI_T_ERR_PVAR_NO_ATOMIC, "MPI_T_ERR_PVAR_NO_ATOMIC"},
    {MPI_T_ERR_INVALID_NAME, "MPI_T_ERR_INVALID_NAME"},
    {MPI_T_ERR_INVALID, "MPI_T_ERR_INVALID"},
};

static const char *mpit_errname(int code)
{
    static char other[32];
    for (size_t i = 0; i < sizeof(mpit_classes) / sizeof(mpit_classes[0]); i++)
        if (mpit_classes[i].code == code)
            return mpit_classes[i].name;
    snprintf(other, sizeof(other), "code %d", code);
    return other;
}

/* A call that must return the class expected. */
#define CHECK_RC(rc, expected, what)                                                               \
    do {                                                                                           \
        int rc_ = (rc);                                                                            \
        CHECK(rc_ == (expected), "%s returned %s, expected %s", what, mpit_errname(rc_),           \
              mpit_errname(expected));                                                             \
    } while (0)

/* Open MPI 4.1 returns MPI_T_ERR_INVALID for an index out of range (MPI-4.1:
 * MPI_T_ERR_INVALID_INDEX): accepted there, with a note. */
#ifdef OPEN_MPI
#define CHECK_INDEX_RC(rc, what)                                                                   \
    do {                                                                                           \
        int rci_ = (rc);                                                                           \
        if (rci_ == MPI_T_ERR_INVALID)                                                             \
            fprintf(stderr, "note: %s: MPI_T_ERR_INVALID (Open MPI)\n", what);                     \
        else                                                                                       \
            CHECK_RC(rci_, MPI_T_ERR_INVALID_INDEX, what);                                         \
    } while (0)
#else
#define CHECK_INDEX_RC(rc, what) CHECK_RC(rc, MPI_T_ERR_INVALID_INDEX, what)
#endif

/* An index below the count that another library reports as "invalid or has been deleted"
 * (Open MPI 4.1 has such, and says MPI_T_ERR_INVALID for some): skipped there.  Ferry deletes
 * none. */
#ifdef FERRY_VERSION
#define MPIT_DELETED(rc) 0
#else
#define MPIT_DELETED(rc)                                                                           \
    ((rc) == MPI_T_ERR_INVALID_INDEX || (MPIT_OPEN_MPI && (rc) == MPI_T_ERR_INVALID))
#endif

/* Ferry's counter name (an MPI_UNSIGNED_LONG performance variable of class var_class) read
 * through a handle of session; -1 when it cannot be read. */
static inline long mpit_ferry_counter(MPI_T_pvar_session session, const char *name, int var_class)
{
    int index, count, rc;
    unsigned long value = 0;
    MPI_T_pvar_handle h;
    if ((rc = MPI_T_pvar_get_index(name, var_class, &index)) != MPI_SUCCESS) {
        CHECK(0, "MPI_T_pvar_get_index(%s): %s", name, mpit_errname(rc));
        return -1;
    }
    if ((rc = MPI_T_pvar_handle_alloc(session, index, NULL, &h, &count)) != MPI_SUCCESS) {
        CHECK(0, "MPI_T_pvar_handle_alloc(%s): %s", name, mpit_errname(rc));
        return -1;
    }
    rc = MPI_T_pvar_read(session, h, &value);
    CHECK(rc == MPI_SUCCESS, "MPI_T_pvar_read(%s): %s", name, mpit_errname(rc));
    MPI_T_pvar_handle_free(session, &h);
    return rc == MPI_SUCCESS ? (long)value : -1;
}

/* The end of every program: rank 0 says " No Errors" when no rank found any (the count over
 * the ranks is taken before MPI_Finalize; each rank's later checks fail its exit code). */
static int errs_counted; /* this rank's, in the count over the ranks */
static int mpit_errs_before_finalize(void)
{
    int all = 0;
    MPI_Allreduce(&errs, &all, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    errs_counted = errs;
    return all;
}
static int mpit_report(int rank, int all_before)
{
    int n = all_before + errs - errs_counted;
    if (rank == 0) {
        if (n)
            printf(" Found %d errors\n", n);
        else
            printf(" No Errors\n");
    }
    return errs != 0;
}

#endif /* MPIT_COMMON_H_INCLUDED */
