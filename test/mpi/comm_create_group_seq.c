/* comm_create_group_seq.c: successive MPI_Comm_create_group calls with the same tag over
 * different, overlapping groups stay apart (MPI-4.1 sec. 7.4.2: the calls are collective over
 * the group only, so a member may already be in its next creation while another member is
 * still in an earlier one).  Rank 0 first creates a communicator with rank 2, then one with
 * rank 1; rank 1 starts its creation (with rank 0) before rank 2 starts the first one, so rank
 * 1's messages for the second creation reach rank 0 while rank 0 is in the first.  Every
 * result must have the right group, its own context and be usable.  Then a loop of creations over
 * groups that change each time, with the same tag, members racing ahead of each other. */
#include "mtest.h"

#include <stdlib.h>

/* A communicator over the world ranks listed (the caller among them), made with tag 9. */
static MPI_Comm create(int n, const int *world_ranks)
{
    MPI_Group world, g;
    MPI_Comm comm = MPI_COMM_NULL;
    MPI_Comm_group(MPI_COMM_WORLD, &world);
    MPI_Group_incl(world, n, world_ranks, &g);
    MPI_Comm_create_group(MPI_COMM_WORLD, g, 9, &comm);
    MPI_Group_free(&g);
    MPI_Group_free(&world);
    return comm;
}

/* The communicator holds exactly these world ranks in this order and carries messages. */
static int check_comm(MPI_Comm comm, int n, const int *world_ranks, const char *what)
{
    int errs = 0, size = -1, rank = -1, sum = 0, expect = 0;
    if (comm == MPI_COMM_NULL) {
        MTEST_FAIL(errs, "%s: MPI_COMM_NULL", what);
        return errs;
    }
    MPI_Comm_size(comm, &size);
    MPI_Comm_rank(comm, &rank);
    MTEST_CHECK_INT(errs, n, size, "%s: size", what);
    if (rank >= 0 && rank < n)
        MTEST_CHECK_INT(errs, world_ranks[rank], mtest_rank, "%s: world rank of my rank %d", what,
                        rank);
    MPI_Allreduce(&mtest_rank, &sum, 1, MPI_INT, MPI_SUM, comm);
    for (int i = 0; i < n; i++)
        expect += world_ranks[i];
    MTEST_CHECK_INT(errs, expect, sum, "%s: sum of the members' world ranks", what);
    return errs;
}

static int racing_pair(void)
{
    int errs = 0;
    const int first[2] = {0, 2}, second[2] = {0, 1};
    MPI_Comm a = MPI_COMM_NULL, b = MPI_COMM_NULL, priv = MPI_COMM_NULL;
    /* Rank 2 alone holds a communicator: its free context ids differ from ranks 0 and 1, so
     * an agreement that heard rank 1 in place of rank 2 would pick rank 2's id. */
    MPI_Comm_split(MPI_COMM_WORLD, mtest_rank == 2 ? 0 : MPI_UNDEFINED, 0, &priv);
    if (mtest_rank == 0) {
        /* Rank 1 is in the second creation before rank 0 enters the first.  The pause only
         * makes it likely that its messages are already here; a correct library passes
         * whatever the timing. */
        MPI_Recv(NULL, 0, MPI_BYTE, 1, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        mtest_sleep(0.2);
        MPI_Send(NULL, 0, MPI_BYTE, 2, 2, MPI_COMM_WORLD);
        a = create(2, first);
        b = create(2, second);
        errs += check_comm(a, 2, first, "first creation (ranks 0, 2)");
        errs += check_comm(b, 2, second, "second creation (ranks 0, 1)");
        int v = 111;
        MPI_Recv(NULL, 0, MPI_BYTE, 2, 3, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        MPI_Send(&v, 1, MPI_INT, 1, 3, a);
    } else if (mtest_rank == 1) {
        MPI_Send(NULL, 0, MPI_BYTE, 0, 1, MPI_COMM_WORLD);
        b = create(2, second);
        errs += check_comm(b, 2, second, "second creation (ranks 0, 1)");
    } else if (mtest_rank == 2) {
        MPI_Recv(NULL, 0, MPI_BYTE, 0, 2, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        a = create(2, first);
        errs += check_comm(a, 2, first, "first creation (ranks 0, 2)");
        /* a and priv are separate matching spaces: the wildcard receive on a takes rank 0's
         * message, not the one rank 2 sends itself on priv (same source rank 0, same tag). */
        int v = -1, x = 222, y = -1;
        MPI_Request r, s;
        MPI_Irecv(&v, 1, MPI_INT, MPI_ANY_SOURCE, MPI_ANY_TAG, a, &r);
        MPI_Isend(&x, 1, MPI_INT, 0, 3, priv, &s);
        MPI_Send(NULL, 0, MPI_BYTE, 0, 3, MPI_COMM_WORLD);
        MPI_Recv(&y, 1, MPI_INT, 0, 3, priv, MPI_STATUS_IGNORE);
        MPI_Wait(&s, MPI_STATUS_IGNORE);
        MPI_Wait(&r, MPI_STATUS_IGNORE);
        MTEST_CHECK_INT(errs, 111, v, "message on the first creation's communicator");
        MTEST_CHECK_INT(errs, 222, y, "message on rank 2's own communicator");
    }
    if (a != MPI_COMM_NULL)
        MPI_Comm_free(&a);
    if (b != MPI_COMM_NULL)
        MPI_Comm_free(&b);
    if (priv != MPI_COMM_NULL)
        MPI_Comm_free(&priv);
    return errs;
}

/* Round j's group: the ranks a fixed hash of (j, rank) picks; every rank computes every group,
 * the members create it, and nobody waits for the others between rounds. */
static int changing_groups(void)
{
    int errs = 0;
    int *ranks = malloc(sizeof(int) * mtest_size);
    for (int j = 0; j < 40; j++) {
        int n = 0, in = 0;
        for (int r = 0; r < mtest_size; r++) {
            if (((unsigned)(j * 7 + r * 13) * 2654435761u >> 28) & 1) {
                in |= r == mtest_rank;
                ranks[n++] = r;
            }
        }
        if (!in)
            continue;
        char what[64];
        snprintf(what, sizeof what, "round %d", j);
        MPI_Comm c = create(n, ranks);
        errs += check_comm(c, n, ranks, what);
        MPI_Comm_free(&c);
    }
    free(ranks);
    return errs;
}

int main(int argc, char **argv)
{
    int errs = 0;
    MTest_Init(&argc, &argv);
    if (mtest_size >= 3)
        errs += racing_pair();
    errs += changing_groups();
    return MTest_Finalize(errs);
}
