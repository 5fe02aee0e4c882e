/* mpit_threads.c: MPI_T from several threads at once under MPI_THREAD_MULTIPLE: each thread
 * initializes and finalizes MPI_T (nesting), makes its own sessions and handles, reads every
 * performance variable and every control variable bound to no object, while the main thread
 * exchanges messages with the other rank.  2 ranks (any even number). */
#include <pthread.h>
#include <stdlib.h>
#include "mpit_common.h"

#define NTHREADS 4
#define ROUNDS 20
#define EXCHANGES 200

static void *reader(void *arg)
{
    int provided, rc;
    (void)arg;
    for (int r = 0; r < ROUNDS; r++) {
        rc = MPI_T_init_thread(MPI_THREAD_MULTIPLE, &provided);
        CHECK(rc == MPI_SUCCESS, "MPI_T_init_thread in a thread: %s", mpit_errname(rc));
        MPI_T_pvar_session s;
        int n = 0, count;
        CHECK_RC(MPI_T_pvar_session_create(&s), MPI_SUCCESS, "MPI_T_pvar_session_create");
        MPI_T_pvar_get_num(&n);
#ifdef OPEN_MPI /* (Open MPI 4.1's psm2 variables crash MPI_T_pvar_handle_alloc here) */
        n = 0;
#endif
        for (int i = 0; i < n; i++) {
            int bind = -1;
            MPI_T_pvar_handle h;
            if (MPI_T_pvar_get_info(i, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, &bind, NULL,
                                    NULL, NULL) != MPI_SUCCESS ||
                bind != MPI_T_BIND_NO_OBJECT ||
                MPI_T_pvar_handle_alloc(s, i, NULL, &h, &count) != MPI_SUCCESS)
                continue;
            void *value = calloc((size_t)count, 16);
            rc = MPI_T_pvar_read(s, h, value);
            CHECK(rc == MPI_SUCCESS, "MPI_T_pvar_read(%d) in a thread: %s", i, mpit_errname(rc));
            free(value);
            MPI_T_pvar_handle_free(s, &h);
        }
        CHECK_RC(MPI_T_pvar_session_free(&s), MPI_SUCCESS, "MPI_T_pvar_session_free");
        MPI_T_cvar_get_num(&n);
        for (int i = 0; i < n; i++) {
            int bind = -1;
            MPI_T_cvar_handle h;
            if (MPI_T_cvar_get_info(i, NULL, NULL, NULL, NULL, NULL, NULL, NULL, &bind, NULL) !=
                    MPI_SUCCESS ||
                bind != MPI_T_BIND_NO_OBJECT ||
                MPI_T_cvar_handle_alloc(i, NULL, &h, &count) != MPI_SUCCESS)
                continue;
#ifndef OPEN_MPI /* (Open MPI 4.1 crashes reading some of its variables, mpit_cvars.c) */
            void *value = calloc((size_t)count, 16);
            rc = MPI_T_cvar_read(h, value);
            CHECK(rc == MPI_SUCCESS, "MPI_T_cvar_read(%d) in a thread: %s", i, mpit_errname(rc));
            free(value);
#endif
            MPI_T_cvar_handle_free(&h);
        }
        CHECK_RC(MPI_T_finalize(), MPI_SUCCESS, "MPI_T_finalize in a thread");
    }
    return NULL;
}

int main(int argc, char **argv)
{
    int provided, rank, size, tprovided;
    MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (provided < MPI_THREAD_MULTIPLE) {
        if (rank == 0)
            printf("MPI_THREAD_MULTIPLE not provided\n No Errors\n");
        MPI_Finalize();
        return 0;
    }
    /* Held by the main thread throughout, so the threads' finalizes only nest. */
    CHECK_RC(MPI_T_init_thread(MPI_THREAD_MULTIPLE, &tprovided), MPI_SUCCESS, "MPI_T_init_thread");
    pthread_t t[NTHREADS];
    for (int i = 0; i < NTHREADS; i++)
        pthread_create(&t[i], NULL, reader, NULL);
    int peer = rank ^ 1, out = rank, in = -1;
    for (int k = 0; k < EXCHANGES && peer < size; k++) {
        MPI_Sendrecv(&out, 1, MPI_INT, peer, k, &in, 1, MPI_INT, peer, k, MPI_COMM_WORLD,
                     MPI_STATUS_IGNORE);
        CHECK(in == peer, "exchange %d: got %d from %d", k, in, peer);
    }
    for (int i = 0; i < NTHREADS; i++)
        pthread_join(t[i], NULL);
    CHECK_RC(MPI_T_finalize(), MPI_SUCCESS, "MPI_T_finalize");
    int all = mpit_errs_before_finalize();
    MPI_Finalize();
    return mpit_report(rank, all);
}
