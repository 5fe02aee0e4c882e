/* mtest.h: helpers shared by the MPI conformance tests: error reporting, the collective finish
 * that prints " No Errors", byte and typed buffer patterns, guard bytes and status checks. */
#ifndef MTEST_H_INCLUDED
#define MTEST_H_INCLUDED

#include <mpi.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* Rank and size in MPI_COMM_WORLD, set by MTest_Init. */
extern int mtest_rank;
extern int mtest_size;

/* MPI_Init plus the rank/size globals. Also switches stdout to line buffering so that the
 * messages of different ranks do not interleave inside a line. */
void MTest_Init(int *argc, char ***argv);

/* Sums errs over MPI_COMM_WORLD; rank 0 prints " No Errors" when the sum is zero, otherwise
 * " Found N errors". Calls MPI_Finalize. Returns the exit status for main (0 only when the whole
 * job found no error), so a test ends with `return MTest_Finalize(errs);`. */
int MTest_Finalize(int errs);

/* Prints one failure line prefixed with the rank and source location. Prints at most a few
 * hundred lines per process so a broken implementation cannot flood the log. */
void mtest_report(const char *file, int line, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* Counts one error in `errs` and reports it with printf-style text. */
#define MTEST_FAIL(errs, ...)                                                                      \
    do {                                                                                           \
        (errs)++;                                                                                  \
        mtest_report(__FILE__, __LINE__, __VA_ARGS__);                                             \
    } while (0)

/* Integer comparison: one error if seen != expected, reported with both values. */
#define MTEST_CHECK_INT(errs, expected, seen, ...)                                                 \
    do {                                                                                           \
        long long mtest_e_ = (long long)(expected), mtest_s_ = (long long)(seen);                  \
        if (mtest_e_ != mtest_s_) {                                                                \
            char mtest_what_[256];                                                                 \
            snprintf(mtest_what_, sizeof mtest_what_, __VA_ARGS__);                                \
            MTEST_FAIL(errs, "%s: expected %lld, saw %lld", mtest_what_, mtest_e_, mtest_s_);      \
        }                                                                                          \
    } while (0)

/* MPI return code check: one error if rc != MPI_SUCCESS, reported with the error string. */
#define MTEST_CHECK_RC(errs, rc, ...)                                                              \
    do {                                                                                           \
        int mtest_rc_ = (rc);                                                                      \
        if (mtest_rc_ != MPI_SUCCESS) {                                                            \
            char mtest_what_[256];                                                                 \
            snprintf(mtest_what_, sizeof mtest_what_, __VA_ARGS__);                                \
            MTEST_FAIL(errs, "%s: returned %d (%s), expected MPI_SUCCESS", mtest_what_, mtest_rc_, \
                       mtest_errstr(mtest_rc_));                                                   \
        }                                                                                          \
    } while (0)

/* The text of an MPI error code (from MPI_Error_string, in a static buffer). */
const char *mtest_errstr(int code);

/* The name of an error class such as "MPI_ERR_TRUNCATE" (or "class N"). */
const char *mtest_classname(int errclass);

/* Checks the error class of rc: one error if it differs from `expected_class`. */
int mtest_check_class(int rc, int expected_class, const char *what);

/* Checks a predefined named type: size and extent `size`, lb 0, the name `name`, combiner
 * MPI_COMBINER_NAMED.  Returns the number of errors found (each reported). */
int mtest_check_named_type(MPI_Datatype t, const char *name, int size);

/* ---- byte patterns ---- */

/* The byte at offset i of the pattern with the given seed. The pattern is not periodic on
 * powers of two, so data copied to the wrong offset or from the wrong message is detected. One
 * 64-bit hash yields 8 consecutive bytes, which keeps filling and checking gigabytes cheap. */
static inline uint64_t mtest_pattern_word(size_t w, int seed)
{
    uint64_t h =
        (uint64_t)w * 0x9E3779B97F4A7C15ull + (uint64_t)(uint32_t)seed * 0xC2B2AE3D27D4EB4Full;
    h ^= h >> 29;
    h *= 0xBF58476D1CE4E5B9ull;
    h ^= h >> 32;
    return h;
}

static inline unsigned char mtest_pattern_byte(size_t i, int seed)
{
    return (unsigned char)(mtest_pattern_word(i >> 3, seed) >> ((i & 7) * 8));
}

void mtest_fill_bytes(void *buf, size_t n, int seed);

/* Returns 1 (and reports the first mismatches with offsets and values) if buf differs from the
 * pattern, 0 otherwise. */
int mtest_check_bytes(const void *buf, size_t n, int seed, const char *what);

/* Guard bytes: a pattern that no message uses. Fill the whole receive buffer with it before the
 * receive; afterwards check that bytes [from, to) of the buffer (those past the message) still
 * hold it. */
#define MTEST_GUARD_SEED (-77)
void mtest_fill_guard(void *buf, size_t n);
/* Fills only bytes [from, to) with the guard pattern (for big buffers where only the tail past
 * the message needs watching). */
void mtest_fill_guard_range(void *buf, size_t from, size_t to);
int mtest_check_guard(const void *buf, size_t from, size_t to, const char *what);

/* Checks MPI_SOURCE, MPI_TAG and MPI_Get_count(dt) of a status. Returns the number of errors. */
int mtest_check_status(const MPI_Status *st, int source, int tag, MPI_Datatype dt, int count,
                       const char *what);

/* malloc that aborts the job with a message when memory is short (tests use big buffers). */
void *mtest_malloc(size_t n);

/* ---- typed patterns over the predefined datatypes ---- */

struct mtest_type {
    MPI_Datatype dt;
    const char *name;
    size_t extent; /* sizeof the C element (includes padding of pair types) */
    int size;      /* what MPI_Type_size must return */
    void (*fill)(void *buf, size_t count, int seed);
    /* returns 1 on mismatch (reported with index and values), 0 if equal */
    int (*check)(const void *buf, size_t count, int seed, const char *what);
};

/* Every predefined C datatype the library provides, with its fill/check. */
extern const struct mtest_type mtest_types[];
extern const int mtest_ntypes;

/* Sleeps for `seconds` without calling MPI (used to make a peer wait, never to make a test
 * depend on timing for its verdict in the direction that a slow machine could break). */
void mtest_sleep(double seconds);

#endif /* MTEST_H_INCLUDED */
