/* session_reinit.c: sessions opened again after every session of the process was finalized
 * (MPI-4.0 sec. 11.3: the sessions model lets a process initialize MPI more than once).
 *   sessions    three rounds, each MPI_Session_init, a communicator from mpi://WORLD, a ring
 *               of messages (small and, with the argument's size, rendezvous-sized) and an
 *               allreduce on it, MPI_Comm_free, MPI_Session_finalize; between the rounds the
 *               odd ranks open and close one more session of their own (mpi://SELF), so the
 *               processes do not end the same number of sessions; the program ends without
 *               any MPI call after the last MPI_Session_finalize
 *   then-world  the same rounds, then MPI_Init and MPI_Finalize on the same device
 *               (MPI_Initialized/MPI_Finalized follow the world model only), then a
 *               MPI_Session_init after MPI_Finalize: MPI_ERR_OTHER, Ferry's device cannot start
 *               again (doc/api.md, Sessions)
 * The error counts are summed over the last round's communicator (over MPI_COMM_WORLD in
 * then-world); rank 0 prints " No Errors". */
#include "mtest.h"

#include <stdlib.h>
#include <string.h>

#define ROUNDS 3

static MPI_Comm open_round(MPI_Session *session, const char *pset, int *errs)
{
    MPI_Group g = MPI_GROUP_NULL;
    MPI_Comm comm = MPI_COMM_NULL;
    MTEST_CHECK_RC(*errs, MPI_Session_init(MPI_INFO_NULL, MPI_ERRORS_RETURN, session),
                   "Session_init (%s)", pset);
    if (*session == MPI_SESSION_NULL)
        return MPI_COMM_NULL;
    MTEST_CHECK_RC(*errs, MPI_Group_from_session_pset(*session, pset, &g), "group of %s", pset);
    MTEST_CHECK_RC(*errs,
                   MPI_Comm_create_from_group(g, "session_reinit", MPI_INFO_NULL,
                                              MPI_ERRORS_RETURN, &comm),
                   "Comm_create_from_group (%s)", pset);
    MPI_Group_free(&g);
    return comm;
}

/* A ring of one small and one long message (its length is count ints), then an allreduce. */
static int check_round(MPI_Comm comm, int round, int count)
{
    int errs = 0, rank, size, sum = -1, small_in = -1;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &size);
    int right = (rank + 1) % size, left = (rank + size - 1) % size;
    int small_out = 1000 * round + rank;
    int *out = malloc(sizeof(int) * (size_t)count), *in = malloc(sizeof(int) * (size_t)count);
    for (int i = 0; i < count; i++) {
        out[i] = round * 7 + rank + i;
        in[i] = -1;
    }
    MPI_Request r[4];
    MPI_Irecv(&small_in, 1, MPI_INT, left, round, comm, &r[0]);
    MPI_Irecv(in, count, MPI_INT, left, round + 100, comm, &r[1]);
    MPI_Isend(&small_out, 1, MPI_INT, right, round, comm, &r[2]);
    MPI_Isend(out, count, MPI_INT, right, round + 100, comm, &r[3]);
    MTEST_CHECK_RC(errs, MPI_Waitall(4, r, MPI_STATUSES_IGNORE), "round %d: waitall", round);
    MTEST_CHECK_INT(errs, 1000 * round + left, small_in, "round %d: small message", round);
    for (int i = 0; i < count; i++)
        if (in[i] != round * 7 + left + i) {
            MTEST_FAIL(errs, "round %d: long message int %d is %d, not %d", round, i, in[i],
                       round * 7 + left + i);
            break;
        }
    free(out);
    free(in);
    MTEST_CHECK_RC(errs, MPI_Allreduce(&rank, &sum, 1, MPI_INT, MPI_SUM, comm),
                   "round %d: allreduce", round);
    MTEST_CHECK_INT(errs, size * (size - 1) / 2, sum, "round %d: sum of ranks", round);
    return errs;
}

static int check_flags(int init, int fini, const char *when)
{
    int errs = 0, flag = -1;
    MPI_Initialized(&flag);
    MTEST_CHECK_INT(errs, init, flag, "MPI_Initialized %s", when);
    MPI_Finalized(&flag);
    MTEST_CHECK_INT(errs, fini, flag, "MPI_Finalized %s", when);
    return errs;
}

int main(int argc, char **argv)
{
    int errs = 0, total = -1, rank = -1;
    const char *mode = argc > 1 ? argv[1] : "sessions";
    int count = argc > 2 ? atoi(argv[2]) : 100000;
    int then_world = strcmp(mode, "then-world") == 0;
    if (!then_world && strcmp(mode, "sessions") != 0) {
        fprintf(stderr, "session_reinit: unknown mode %s\n", mode);
        return 2;
    }
    setvbuf(stdout, NULL, _IOLBF, 0);

    for (int round = 1; round <= ROUNDS; round++) {
        MPI_Session session = MPI_SESSION_NULL;
        MPI_Comm comm = open_round(&session, "mpi://WORLD", &errs);
        if (comm == MPI_COMM_NULL)
            break; /* (counted) */
        errs += check_flags(0, 0, "in a session");
        errs += check_round(comm, round, count);
        MPI_Comm_rank(comm, &rank);
        if (round == ROUNDS && !then_world)
            MPI_Allreduce(&errs, &total, 1, MPI_INT, MPI_SUM, comm);
        MPI_Comm_free(&comm);
        MTEST_CHECK_RC(errs, MPI_Session_finalize(&session), "round %d: Session_finalize",
                       round);
        if (rank % 2 == 1 && round < ROUNDS) {
            /* One more session of this process alone, opened and closed. */
            MPI_Session self = MPI_SESSION_NULL;
            MPI_Comm c = open_round(&self, "mpi://SELF", &errs);
            if (c != MPI_COMM_NULL) {
                int one = 0;
                MTEST_CHECK_RC(errs, MPI_Allreduce(MPI_IN_PLACE, &one, 1, MPI_INT, MPI_SUM, c),
                               "allreduce on mpi://SELF");
                MPI_Comm_free(&c);
                MTEST_CHECK_RC(errs, MPI_Session_finalize(&self), "Session_finalize (SELF)");
            }
        }
    }

    if (then_world) {
        errs += check_flags(0, 0, "after the sessions");
        MTEST_CHECK_RC(errs, MPI_Init(&argc, &argv), "MPI_Init after the sessions");
        errs += check_flags(1, 0, "after MPI_Init");
        errs += check_round(MPI_COMM_WORLD, ROUNDS + 1, count);
        MPI_Comm_rank(MPI_COMM_WORLD, &rank);
        MPI_Allreduce(&errs, &total, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
        if (MPI_Finalize() != MPI_SUCCESS)
            total++;
        if (check_flags(1, 1, "after MPI_Finalize"))
            total++;
        /* The documented limit: the device does not start again after MPI_Finalize. */
        MPI_Session late = MPI_SESSION_NULL;
        int rc = MPI_Session_init(MPI_INFO_NULL, MPI_ERRORS_RETURN, &late);
        int cls = -1;
        MPI_Error_class(rc, &cls);
        if (cls != MPI_ERR_OTHER || late != MPI_SESSION_NULL) {
            printf("[%d] MPI_Session_init after MPI_Finalize: class %d, handle %#x\n", rank, cls,
                   (unsigned)late);
            total++;
        }
    }
    if (rank == 0) {
        if (total == 0)
            printf(" No Errors\n");
        else
            printf(" Found %d errors\n", total);
    }
    return total != 0;
}
