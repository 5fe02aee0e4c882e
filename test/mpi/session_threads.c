/* session_threads.c: a session asks for MPI_THREAD_MULTIPLE through its thread_level info key
 * (MPI-4.0 sec. 11.3.1), without MPI_Init, and gets it: MPI_Session_get_info reads it back, and
 * several threads of every rank then exchange rendezvous-sized and small messages around a ring
 * at once, each on a communicator of its own made from mpi://WORLD, and run an allreduce on it.
 * The finish is a reduction of the error counts over a session communicator and " No Errors"
 * from its rank 0. */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include "mtest.h"

#define NT 3      /* threads per rank */
#define BIG 20000 /* ints: a rendezvous-sized message */
#define ROUNDS 20

static MPI_Comm comms[NT];
static int errs_of[NT];

static void *ring(void *arg)
{
    int t = (int)(intptr_t)arg, rank, size, *errs = &errs_of[t];
    MPI_Comm comm = comms[t];
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &size);
    int right = (rank + 1) % size, left = (rank + size - 1) % size;
    int *out = malloc(sizeof(int) * BIG), *in = malloc(sizeof(int) * BIG);
    for (int r = 0; r < ROUNDS; r++) {
        int n = r % 2 ? BIG : 4;
        for (int i = 0; i < n; i++)
            out[i] = rank * 1000003 + t * 1009 + r * 7 + i;
        MTEST_CHECK_RC(*errs,
                       MPI_Sendrecv(out, n, MPI_INT, right, r, in, n, MPI_INT, left, r, comm,
                                    MPI_STATUS_IGNORE),
                       "thread %d round %d sendrecv", t, r);
        for (int i = 0; i < n; i++)
            if (in[i] != left * 1000003 + t * 1009 + r * 7 + i) {
                MTEST_FAIL(*errs, "thread %d round %d: element %d is %d", t, r, i, in[i]);
                break;
            }
    }
    int sum = -1;
    MTEST_CHECK_RC(*errs, MPI_Allreduce(&t, &sum, 1, MPI_INT, MPI_SUM, comm), "allreduce");
    MTEST_CHECK_INT(*errs, t * size, sum, "thread %d: allreduce", t);
    free(out);
    free(in);
    return NULL;
}

int main(int argc, char **argv)
{
    int errs = 0, flag = 0, rank = -1;
    setvbuf(stdout, NULL, _IOLBF, 0);
    MPI_Info info;
    MPI_Info_create(&info);
    MPI_Info_set(info, "thread_level", "MPI_THREAD_MULTIPLE");
    MPI_Session session = MPI_SESSION_NULL;
    MTEST_CHECK_RC(errs, MPI_Session_init(info, MPI_ERRORS_RETURN, &session), "Session_init");
    MPI_Info_free(&info);
    MPI_Info used = MPI_INFO_NULL;
    char level[MPI_MAX_INFO_VAL + 1] = "";
    MPI_Session_get_info(session, &used);
    if (used != MPI_INFO_NULL) {
        MPI_Info_get(used, "thread_level", MPI_MAX_INFO_VAL, level, &flag);
        MPI_Info_free(&used);
    }
    MPI_Group g;
    MPI_Group_from_session_pset(session, "mpi://WORLD", &g);
    MPI_Comm main_comm;
    MTEST_CHECK_RC(errs,
                   MPI_Comm_create_from_group(g, "session_threads.main", MPI_INFO_NULL,
                                              MPI_ERRORS_RETURN, &main_comm),
                   "Comm_create_from_group");
    MPI_Comm_rank(main_comm, &rank);
    mtest_rank = rank;
    if (!flag || strcmp(level, "MPI_THREAD_MULTIPLE") != 0) {
        /* Not provided: nothing more to check (the standard lets a library provide less). */
        printf("[%d] thread_level is \"%s\": not checked\n", rank, level);
    } else {
        for (int t = 0; t < NT; t++) {
            char tag[32];
            snprintf(tag, sizeof(tag), "session_threads.%d", t);
            MTEST_CHECK_RC(
                errs,
                MPI_Comm_create_from_group(g, tag, MPI_INFO_NULL, MPI_ERRORS_RETURN, &comms[t]),
                "Comm_create_from_group %d", t);
        }
        pthread_t th[NT];
        for (int t = 0; t < NT; t++)
            pthread_create(&th[t], NULL, ring, (void *)(intptr_t)t);
        for (int t = 0; t < NT; t++) {
            pthread_join(th[t], NULL);
            errs += errs_of[t];
            MPI_Comm_free(&comms[t]);
        }
    }
    MPI_Group_free(&g);
    int total = -1;
    MPI_Allreduce(&errs, &total, 1, MPI_INT, MPI_SUM, main_comm);
    MPI_Comm_free(&main_comm);
    if (MPI_Session_finalize(&session) != MPI_SUCCESS)
        total++;
    if (rank == 0)
        printf(total == 0 ? " No Errors\n" : " Found %d errors\n", total);
    return total != 0;
}
