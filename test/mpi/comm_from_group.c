/* comm_from_group.c: MPI_Comm_create_from_group and MPI_Intercomm_create_from_groups (MPI-4.1
 * secs. 7.4.2 and 7.6.2) with groups taken from MPI_COMM_WORLD.  Both are collective over the
 * group(s) only: the even and the odd world ranks create their communicators at the same time
 * with different string tags.  The result has the group's processes in the group's order, the
 * error handler given, and carries messages; the intercommunicator's ranks are the remote
 * group's, with MPI_ANY_SOURCE.  Bad arguments give their error class. */
#include "mtest.h"

#include <stdlib.h>

/* The world ranks of one parity, in descending order when reversed (the group's order, not
 * the world's, must decide the new ranks). */
static MPI_Group parity_group(int parity, int reversed, int *n_p)
{
    MPI_Group world, g;
    int *ranks = malloc(sizeof(int) * (size_t)mtest_size), n = 0;
    for (int r = 0; r < mtest_size; r++)
        if (r % 2 == parity)
            ranks[n++] = r;
    if (reversed)
        for (int i = 0; i < n / 2; i++) {
            int t = ranks[i];
            ranks[i] = ranks[n - 1 - i];
            ranks[n - 1 - i] = t;
        }
    MPI_Comm_group(MPI_COMM_WORLD, &world);
    MPI_Group_incl(world, n, ranks, &g);
    MPI_Group_free(&world);
    free(ranks);
    *n_p = n;
    return g;
}

/* The world rank of rank r of group g. */
static int world_rank_of(MPI_Group g, int r)
{
    MPI_Group world;
    int w = -1;
    MPI_Comm_group(MPI_COMM_WORLD, &world);
    MPI_Group_translate_ranks(g, 1, &r, world, &w);
    MPI_Group_free(&world);
    return w;
}

static int check_intra(int reversed)
{
    int errs = 0, n, size = -1, rank = -1, sum = -1, expect = 0;
    int parity = mtest_rank % 2;
    MPI_Group g = parity_group(parity, reversed, &n);
    MPI_Comm comm = MPI_COMM_NULL;
    MPI_Errhandler eh = MPI_ERRHANDLER_NULL;
    int err = MPI_Comm_create_from_group(g, parity ? "org.ferry.test.odd" : "org.ferry.test.even",
                                         MPI_INFO_NULL, MPI_ERRORS_RETURN, &comm);
    MTEST_CHECK_INT(errs, MPI_SUCCESS, err, "MPI_Comm_create_from_group");
    if (comm == MPI_COMM_NULL) {
        MTEST_FAIL(errs, "MPI_Comm_create_from_group gave MPI_COMM_NULL");
        MPI_Group_free(&g);
        return errs;
    }
    MPI_Comm_size(comm, &size);
    MPI_Comm_rank(comm, &rank);
    MTEST_CHECK_INT(errs, n, size, "size of the parity-%d communicator", parity);
    MTEST_CHECK_INT(errs, mtest_rank, world_rank_of(g, rank), "my rank %d in the group order",
                    rank);
    MPI_Comm_get_errhandler(comm, &eh);
    if (eh != MPI_ERRORS_RETURN)
        MTEST_FAIL(errs, "the new communicator's error handler is not the one given");
    MPI_Errhandler_free(&eh);
    MPI_Allreduce(&mtest_rank, &sum, 1, MPI_INT, MPI_SUM, comm);
    for (int r = parity; r < mtest_size; r += 2)
        expect += r;
    MTEST_CHECK_INT(errs, expect, sum, "sum of the world ranks over the new communicator");
    MPI_Comm_free(&comm);
    MPI_Group_free(&g);
    return errs;
}

/* The two parities meet; leaders are the first (or, reversed, the last) of each group. */
static int check_inter(int reversed)
{
    int errs = 0, nl, nr, parity = mtest_rank % 2;
    MPI_Group lg = parity_group(parity, reversed, &nl), rg = parity_group(!parity, reversed, &nr);
    MPI_Comm inter = MPI_COMM_NULL;
    int err = MPI_Intercomm_create_from_groups(lg, reversed ? nl - 1 : 0, rg, reversed ? nr - 1 : 0,
                                               reversed ? "org.ferry.test.rev" : "org.ferry.test",
                                               MPI_INFO_NULL, MPI_ERRORS_RETURN, &inter);
    MTEST_CHECK_INT(errs, MPI_SUCCESS, err, "MPI_Intercomm_create_from_groups");
    if (inter == MPI_COMM_NULL) {
        MTEST_FAIL(errs, "MPI_Intercomm_create_from_groups gave MPI_COMM_NULL");
        MPI_Group_free(&lg);
        MPI_Group_free(&rg);
        return errs;
    }
    int flag = 0, size = -1, rsize = -1, rank = -1;
    MPI_Comm_test_inter(inter, &flag);
    MTEST_CHECK_INT(errs, 1, flag, "MPI_Comm_test_inter");
    MPI_Comm_size(inter, &size);
    MPI_Comm_remote_size(inter, &rsize);
    MPI_Comm_rank(inter, &rank);
    MTEST_CHECK_INT(errs, nl, size, "local size");
    MTEST_CHECK_INT(errs, nr, rsize, "remote size");
    MTEST_CHECK_INT(errs, mtest_rank, world_rank_of(lg, rank), "my rank %d in the group order",
                    rank);
    /* Every process sends its world rank to every remote rank, and takes the remote group's
     * messages with MPI_ANY_SOURCE: the source is a remote rank whose world rank came along. */
    MPI_Request *reqs = malloc(sizeof(MPI_Request) * (size_t)rsize);
    for (int r = 0; r < rsize; r++)
        MPI_Isend(&mtest_rank, 1, MPI_INT, r, 5, inter, &reqs[r]);
    MPI_Group remote;
    MPI_Comm_remote_group(inter, &remote);
    for (int i = 0; i < rsize; i++) {
        int v = -1;
        MPI_Status st;
        MPI_Recv(&v, 1, MPI_INT, MPI_ANY_SOURCE, 5, inter, &st);
        if (st.MPI_SOURCE < 0 || st.MPI_SOURCE >= rsize)
            MTEST_FAIL(errs, "source %d is not a remote rank (remote size %d)", st.MPI_SOURCE,
                       rsize);
        else
            MTEST_CHECK_INT(errs, world_rank_of(remote, st.MPI_SOURCE), v,
                            "the world rank sent by remote rank %d", st.MPI_SOURCE);
    }
    MPI_Waitall(rsize, reqs, MPI_STATUSES_IGNORE);
    free(reqs);
    int cmp = MPI_UNEQUAL;
    MPI_Group_compare(remote, rg, &cmp);
    MTEST_CHECK_INT(errs, MPI_IDENT, cmp, "remote group compared with the group given");
    MPI_Group_free(&remote);
    MPI_Comm_free(&inter);
    MPI_Group_free(&lg);
    MPI_Group_free(&rg);
    return errs;
}

static int check_class(int err, int expected_class, const char *what)
{
    int errs = 0, cls = MPI_SUCCESS;
    MPI_Error_class(err, &cls);
    MTEST_CHECK_INT(errs, expected_class, cls, "error class of %s", what);
    return errs;
}

static int check_errors(void)
{
    int errs = 0, n;
    MPI_Comm comm = MPI_COMM_NULL;
    MPI_Group mine = parity_group(mtest_rank % 2, 0, &n), other;
    /* The calls report through MPI_COMM_WORLD's handler: nothing else exists yet. */
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    errs +=
        check_class(MPI_Comm_create_from_group(mine, NULL, MPI_INFO_NULL, MPI_ERRORS_RETURN, &comm),
                    MPI_ERR_ARG, "a NULL string tag");
    if (mtest_size > 1) {
        other = parity_group(!(mtest_rank % 2), 0, &n);
        errs += check_class(
            MPI_Comm_create_from_group(other, "x", MPI_INFO_NULL, MPI_ERRORS_RETURN, &comm),
            MPI_ERR_GROUP, "a group without the caller");
        errs += check_class(MPI_Intercomm_create_from_groups(mine, 0, other, n, "x", MPI_INFO_NULL,
                                                             MPI_ERRORS_RETURN, &comm),
                            MPI_ERR_RANK, "remote_leader = remote group size");
        MPI_Group_free(&other);
    }
    MTEST_CHECK_INT(errs, MPI_COMM_NULL, comm, "output after failed calls");
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
    MPI_Group_free(&mine);
    return errs;
}

int main(int argc, char **argv)
{
    int errs = 0;
    MTest_Init(&argc, &argv);
    errs += check_intra(0);
    errs += check_intra(1);
    if (mtest_size > 1) {
        errs += check_inter(0);
        errs += check_inter(1);
    }
    errs += check_errors();
    return MTest_Finalize(errs);
}
