/* session_with_world.c: a session beside the world model (MPI-4.0 sec. 11.3), in the order
 * the argument names:
 *   session-first  MPI_Session_init, MPI_Init, ..., MPI_Session_finalize, MPI_Finalize
 *   world-first    MPI_Init, MPI_Session_init, ..., MPI_Finalize, (the session still
 *                  communicates), MPI_Session_finalize
 *   nested         MPI_Init, MPI_Session_init, ..., MPI_Session_finalize, MPI_Finalize
 * MPI_Initialized and MPI_Finalized follow the world model only; a message on MPI_COMM_WORLD
 * and one on the session's communicator with the same tag, received in the other order, each
 * land where they were sent; collectives on both work.  The error counts are summed over the
 * session's communicator while it lives; rank 0 prints " No Errors" at the very end. */
#include "mtest.h"

#include <string.h>

static int check_flags(int init, int fini, const char *when)
{
    int errs = 0, flag = -1;
    MPI_Initialized(&flag);
    MTEST_CHECK_INT(errs, init, flag, "MPI_Initialized %s", when);
    MPI_Finalized(&flag);
    MTEST_CHECK_INT(errs, fini, flag, "MPI_Finalized %s", when);
    return errs;
}

static MPI_Comm session_comm(MPI_Session *session, int *errs)
{
    MPI_Group g = MPI_GROUP_NULL;
    MPI_Comm comm = MPI_COMM_NULL;
    MTEST_CHECK_RC(*errs, MPI_Session_init(MPI_INFO_NULL, MPI_ERRORS_RETURN, session),
                   "Session_init");
    MTEST_CHECK_RC(*errs, MPI_Group_from_session_pset(*session, "mpi://WORLD", &g),
                   "group of mpi://WORLD");
    MTEST_CHECK_RC(*errs,
                   MPI_Comm_create_from_group(g, "session_with_world", MPI_INFO_NULL,
                                              MPI_ERRORS_RETURN, &comm),
                   "Comm_create_from_group");
    MPI_Group_free(&g);
    return comm;
}

static int check_comm(MPI_Comm comm, const char *what)
{
    int errs = 0, rank, size, sum = -1;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &size);
    MTEST_CHECK_RC(errs, MPI_Allreduce(&rank, &sum, 1, MPI_INT, MPI_SUM, comm), "%s allreduce",
                   what);
    MTEST_CHECK_INT(errs, size * (size - 1) / 2, sum, "%s: sum of ranks", what);
    return errs;
}

/* The same tag on both communicators, received in the other order. */
static int check_apart(MPI_Comm world, MPI_Comm sess)
{
    int errs = 0, rank, size;
    MPI_Comm_rank(world, &rank);
    MPI_Comm_size(world, &size);
    int right = (rank + 1) % size, left = (rank + size - 1) % size;
    int ow = 100 + rank, os = 200 + rank, iw = -1, is = -1;
    MPI_Request r[4];
    MPI_Irecv(&is, 1, MPI_INT, left, 5, sess, &r[0]);
    MPI_Irecv(&iw, 1, MPI_INT, left, 5, world, &r[1]);
    MPI_Isend(&ow, 1, MPI_INT, right, 5, world, &r[2]);
    MPI_Isend(&os, 1, MPI_INT, right, 5, sess, &r[3]);
    MTEST_CHECK_RC(errs, MPI_Waitall(4, r, MPI_STATUSES_IGNORE), "waitall over both models");
    MTEST_CHECK_INT(errs, 100 + left, iw, "message on MPI_COMM_WORLD");
    MTEST_CHECK_INT(errs, 200 + left, is, "message on the session's communicator");
    return errs;
}

int main(int argc, char **argv)
{
    int errs = 0, total = -1, rank = -1;
    const char *order = argc > 1 ? argv[1] : "session-first";
    MPI_Session session = MPI_SESSION_NULL;
    MPI_Comm comm = MPI_COMM_NULL;
    setvbuf(stdout, NULL, _IOLBF, 0);

    if (strcmp(order, "session-first") == 0) {
        errs += check_flags(0, 0, "before anything");
        comm = session_comm(&session, &errs);
        errs += check_flags(0, 0, "with a session only");
        MPI_Init(&argc, &argv);
        errs += check_flags(1, 0, "after MPI_Init");
        errs += check_comm(MPI_COMM_WORLD, "MPI_COMM_WORLD");
        errs += check_comm(comm, "the session's");
        errs += check_apart(MPI_COMM_WORLD, comm);
        MPI_Comm_rank(comm, &rank);
        MPI_Allreduce(&errs, &total, 1, MPI_INT, MPI_SUM, comm);
        MPI_Comm_free(&comm);
        if (MPI_Session_finalize(&session) != MPI_SUCCESS)
            total++;
        if (check_flags(1, 0, "after MPI_Session_finalize, before MPI_Finalize"))
            total++;
        if (MPI_Finalize() != MPI_SUCCESS)
            total++;
        if (check_flags(1, 1, "after MPI_Finalize"))
            total++;
    } else if (strcmp(order, "world-first") == 0 || strcmp(order, "nested") == 0) {
        MPI_Init(&argc, &argv);
        errs += check_flags(1, 0, "after MPI_Init");
        comm = session_comm(&session, &errs);
        errs += check_flags(1, 0, "with MPI_Init and a session");
        errs += check_comm(MPI_COMM_WORLD, "MPI_COMM_WORLD");
        errs += check_comm(comm, "the session's");
        errs += check_apart(MPI_COMM_WORLD, comm);
        MPI_Comm_rank(comm, &rank);
        if (strcmp(order, "nested") == 0) {
            MPI_Allreduce(&errs, &total, 1, MPI_INT, MPI_SUM, comm);
            MPI_Comm_free(&comm);
            if (MPI_Session_finalize(&session) != MPI_SUCCESS)
                total++;
            if (check_flags(1, 0, "after MPI_Session_finalize"))
                total++;
            /* The world model still communicates. */
            if (check_comm(MPI_COMM_WORLD, "MPI_COMM_WORLD after the session ended"))
                total++;
            if (MPI_Finalize() != MPI_SUCCESS)
                total++;
            if (check_flags(1, 1, "after MPI_Finalize"))
                total++;
        } else {
            if (MPI_Finalize() != MPI_SUCCESS)
                MTEST_FAIL(errs, "MPI_Finalize with a session live failed");
            errs += check_flags(1, 1, "after MPI_Finalize, with the session live");
            /* The session outlives the world model. */
            errs += check_comm(comm, "the session's, after MPI_Finalize");
            MPI_Allreduce(&errs, &total, 1, MPI_INT, MPI_SUM, comm);
            MPI_Comm_free(&comm);
            if (MPI_Session_finalize(&session) != MPI_SUCCESS)
                total++;
            if (check_flags(1, 1, "after MPI_Session_finalize"))
                total++;
        }
    } else {
        fprintf(stderr, "session_with_world: unknown order %s\n", order);
        return 2;
    }
    if (rank == 0) {
        if (total == 0)
            printf(" No Errors\n");
        else
            printf(" Found %d errors\n", total);
    }
    return total != 0;
}
