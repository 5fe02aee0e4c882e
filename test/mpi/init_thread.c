/* init_thread.c: MPI_Init_thread and MPI_Query_thread (MPI-4.1 11.6).  The level asked for is
 * the argument: single, funneled, serialized, multiple, or "init" for a plain MPI_Init.
 * Checked: the levels are ordered, provided is one of them, MPI_Query_thread returns exactly
 * what MPI_Init_thread provided (after MPI_Init, some level), and the promise is kept: at
 * SERIALIZED or above a second thread makes MPI calls (one thread at a time), at MULTIPLE two
 * threads communicate at once.  Which level is provided for which request is the
 * implementation's choice within the standard's rule (equal if supported, else the least
 * supported above, else the highest), so it is only printed. */
#include "mtest.h"

#include <pthread.h>
#include <string.h>

static const char *level_name(int level)
{
    switch (level) {
    case MPI_THREAD_SINGLE:
        return "MPI_THREAD_SINGLE";
    case MPI_THREAD_FUNNELED:
        return "MPI_THREAD_FUNNELED";
    case MPI_THREAD_SERIALIZED:
        return "MPI_THREAD_SERIALIZED";
    case MPI_THREAD_MULTIPLE:
        return "MPI_THREAD_MULTIPLE";
    default:
        return "not a thread level";
    }
}

/* A ping-pong of n messages with the neighbours in a ring, on tag; returns the errors. */
static int ring_exchange(int tag, int n)
{
    int errs = 0, right = (mtest_rank + 1) % mtest_size;
    int left = (mtest_rank + mtest_size - 1) % mtest_size;
    for (int i = 0; i < n; i++) {
        int out = mtest_rank * 1000 + i, in = -1;
        MPI_Status st;
        int rc = MPI_Sendrecv(&out, 1, MPI_INT, right, tag, &in, 1, MPI_INT, left, tag,
                              MPI_COMM_WORLD, &st);
        MTEST_CHECK_RC(errs, rc, "MPI_Sendrecv on tag %d", tag);
        MTEST_CHECK_INT(errs, left * 1000 + i, in, "message %d from rank %d on tag %d", i, left,
                        tag);
    }
    return errs;
}

struct job {
    int tag, errs;
};

static void *thread_body(void *arg)
{
    struct job *j = arg;
    j->errs += ring_exchange(j->tag, 50);
    return NULL;
}

int main(int argc, char **argv)
{
    static const struct {
        const char *name;
        int level;
    } levels[] = {{"single", MPI_THREAD_SINGLE},
                  {"funneled", MPI_THREAD_FUNNELED},
                  {"serialized", MPI_THREAD_SERIALIZED},
                  {"multiple", MPI_THREAD_MULTIPLE}};
    const char *want = argc > 1 ? argv[1] : "init";
    int required = -1, provided = -1, errs = 0, rc;

    for (size_t i = 0; i < sizeof levels / sizeof levels[0]; i++)
        if (strcmp(want, levels[i].name) == 0)
            required = levels[i].level;
    int plain = strcmp(want, "init") == 0;
    if (plain) {
        rc = MPI_Init(&argc, &argv);
        if (rc == MPI_SUCCESS)
            rc = MPI_Query_thread(&provided);
    } else if (required < 0) {
        fprintf(stderr, "usage: init_thread [init|single|funneled|serialized|multiple]\n");
        return 2;
    } else {
        rc = MPI_Init_thread(&argc, &argv, required, &provided);
    }
    if (rc != MPI_SUCCESS) {
        fprintf(stderr, "MPI_Init%s failed with %d\n", plain ? "" : "_thread", rc);
        return 1;
    }
    setvbuf(stdout, NULL, _IOLBF, 0);
    MPI_Comm_rank(MPI_COMM_WORLD, &mtest_rank);
    MPI_Comm_size(MPI_COMM_WORLD, &mtest_size);

    /* The constants are ordered (MPI-4.1 11.6.3: SINGLE < FUNNELED < SERIALIZED < MULTIPLE). */
    if (!(MPI_THREAD_SINGLE < MPI_THREAD_FUNNELED && MPI_THREAD_FUNNELED < MPI_THREAD_SERIALIZED &&
          MPI_THREAD_SERIALIZED < MPI_THREAD_MULTIPLE))
        MTEST_FAIL(errs, "the thread level constants are not ordered");
    if (provided < MPI_THREAD_SINGLE || provided > MPI_THREAD_MULTIPLE)
        MTEST_FAIL(errs, "provided %d is not a thread level", provided);

    int queried = -1;
    rc = MPI_Query_thread(&queried);
    MTEST_CHECK_RC(errs, rc, "MPI_Query_thread");
    if (queried != provided)
        MTEST_FAIL(errs, "MPI_Query_thread says %s, MPI_Init_thread provided %s (%s asked)",
                   level_name(queried), level_name(provided), level_name(required));
    if (mtest_rank == 0)
        printf("%s asked, %s provided\n", plain ? "MPI_Init" : level_name(required),
               level_name(provided));

    errs += ring_exchange(1, 20);
    if (provided >= MPI_THREAD_SERIALIZED) {
        /* One thread at a time: the main thread waits while the second one communicates. */
        struct job j = {.tag = 2};
        pthread_t t;
        if (pthread_create(&t, NULL, thread_body, &j) != 0)
            MTEST_FAIL(errs, "pthread_create failed");
        else {
            pthread_join(t, NULL);
            errs += j.errs;
        }
    }
    if (provided == MPI_THREAD_MULTIPLE) {
        /* Two threads at once, each on its own tag. */
        struct job j = {.tag = 3};
        pthread_t t;
        if (pthread_create(&t, NULL, thread_body, &j) != 0)
            MTEST_FAIL(errs, "pthread_create failed");
        else {
            errs += ring_exchange(4, 50);
            pthread_join(t, NULL);
            errs += j.errs;
        }
    }
    errs += ring_exchange(5, 20);
    return MTest_Finalize(errs);
}
