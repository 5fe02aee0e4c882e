/* comm_idup.c: MPI_Comm_idup and MPI_Comm_idup_with_info are nonblocking (MPI-4.1 sec. 7.4.2):
 * - a member may start the duplication and then do point-to-point work that another member
 *   needs before that member starts its own duplication (a blocking dup would deadlock);
 * - several duplications of one communicator may be outstanding at once, completed in any
 *   order, by MPI_Test polling as well as MPI_Wait;
 * - duplications of overlapping communicators started in different orders on different members
 *   all complete (with a blocking dup this order is a deadlock);
 * - a blocking MPI_Comm_dup of the same communicator may come between start and completion;
 * - intercommunicators duplicate the same way;
 * - every result is a separate matching space with the original's group, holds the attributes
 *   of the original at the time of the call (later changes are not copied), and
 *   MPI_Comm_idup_with_info's hints;
 * - bad arguments give MPI_ERR_COMM / MPI_ERR_ARG.
 * Written from the standard's text. */
#include "mtest.h"

#include <stdlib.h>
#include <string.h>

#define NMANY 8

/* Each comm gets its own message around its ring (right neighbour, one tag for all); the
 * receives are posted last comm first with wildcards, so two comms sharing a matching space
 * would take each other's messages. */
static int check_separate(int n, MPI_Comm comms[], const char *what)
{
    int errs = 0;
    int *out = malloc(sizeof(int) * n), *in = malloc(sizeof(int) * n);
    MPI_Request *reqs = malloc(sizeof(MPI_Request) * 2 * n);
    for (int i = n - 1; i >= 0; i--) {
        in[i] = -1;
        MPI_Irecv(&in[i], 1, MPI_INT, MPI_ANY_SOURCE, MPI_ANY_TAG, comms[i], &reqs[n + i]);
    }
    for (int i = 0; i < n; i++) {
        int rank, size;
        MPI_Comm_rank(comms[i], &rank);
        MPI_Comm_size(comms[i], &size);
        out[i] = 1000 * i + rank;
        MPI_Isend(&out[i], 1, MPI_INT, (rank + 1) % size, 7, comms[i], &reqs[i]);
    }
    MPI_Waitall(2 * n, reqs, MPI_STATUSES_IGNORE);
    for (int i = 0; i < n; i++) {
        int rank, size;
        MPI_Comm_rank(comms[i], &rank);
        MPI_Comm_size(comms[i], &size);
        MTEST_CHECK_INT(errs, 1000 * i + (rank + size - 1) % size, in[i],
                        "%s: message received on communicator %d", what, i);
    }
    free(out);
    free(in);
    free(reqs);
    return errs;
}

static int check_congruent(MPI_Comm orig, MPI_Comm dup, const char *what)
{
    int errs = 0, result = -1;
    if (dup == MPI_COMM_NULL || dup == orig) {
        MTEST_FAIL(errs, "%s: handle %#x (original %#x)", what, (unsigned)dup, (unsigned)orig);
        return errs;
    }
    MPI_Comm_compare(orig, dup, &result);
    MTEST_CHECK_INT(errs, MPI_CONGRUENT, result, "%s: MPI_Comm_compare with the original", what);
    return errs;
}

/* Rank r starts its idup only after rank r-1 has started its own and told it so; the last rank
 * then tells rank 0, which waits for that before completing.  Rank 0's idup returned before
 * any other rank had called idup. */
static int chained_start(void)
{
    int errs = 0, token = 0;
    MPI_Comm dup = MPI_COMM_NULL;
    MPI_Request req = MPI_REQUEST_NULL;
    int right = (mtest_rank + 1) % mtest_size, left = (mtest_rank + mtest_size - 1) % mtest_size;
    if (mtest_rank != 0)
        MPI_Recv(&token, 1, MPI_INT, left, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    int rc = MPI_Comm_idup(MPI_COMM_WORLD, &dup, &req);
    MTEST_CHECK_RC(errs, rc, "MPI_Comm_idup(MPI_COMM_WORLD)");
    if (mtest_size > 1) {
        token++;
        MPI_Send(&token, 1, MPI_INT, right, 1, MPI_COMM_WORLD);
        if (mtest_rank == 0) {
            MPI_Recv(&token, 1, MPI_INT, left, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            MTEST_CHECK_INT(errs, mtest_size, token, "token after the chain of idup starts");
        }
    }
    MPI_Status st;
    rc = MPI_Wait(&req, &st);
    MTEST_CHECK_RC(errs, rc, "MPI_Wait on the idup request");
    MTEST_CHECK_INT(errs, MPI_REQUEST_NULL, req, "request after MPI_Wait");
    errs += check_congruent(MPI_COMM_WORLD, dup, "chained idup");
    MPI_Comm both[2] = {MPI_COMM_WORLD, dup};
    errs += check_separate(2, both, "chained idup and world");
    MPI_Comm_free(&dup);
    return errs;
}

/* NMANY duplications of one communicator outstanding together; the even ranks complete them
 * last first by MPI_Wait, the odd ones by polling MPI_Test in order. */
static int many_outstanding(MPI_Comm comm, const char *what)
{
    int errs = 0, rank;
    MPI_Comm dups[NMANY + 1];
    MPI_Request reqs[NMANY];
    MPI_Comm_rank(comm, &rank);
    for (int i = 0; i < NMANY; i++) {
        int rc = MPI_Comm_idup(comm, &dups[i], &reqs[i]);
        MTEST_CHECK_RC(errs, rc, "%s: MPI_Comm_idup %d", what, i);
    }
    if (rank % 2 == 0) {
        for (int i = NMANY - 1; i >= 0; i--)
            MPI_Wait(&reqs[i], MPI_STATUS_IGNORE);
    } else {
        int left = NMANY;
        while (left > 0) {
            for (int i = 0; i < NMANY; i++) {
                int flag = 0;
                if (reqs[i] == MPI_REQUEST_NULL)
                    continue;
                MPI_Test(&reqs[i], &flag, MPI_STATUS_IGNORE);
                left -= flag != 0;
            }
        }
    }
    for (int i = 0; i < NMANY; i++)
        errs += check_congruent(comm, dups[i], what);
    dups[NMANY] = comm;
    errs += check_separate(NMANY + 1, dups, what);
    for (int i = 0; i < NMANY; i++)
        MPI_Comm_free(&dups[i]);
    return errs;
}

/* Two overlapping communicators, pairs (0,1)(2,3)... and (1,2)(3,4)...(n-1,0): even ranks start
 * the first's duplication first, odd ranks the second's. */
static int overlapping_orders(void)
{
    int errs = 0;
    MPI_Comm a, b, da, db;
    MPI_Request reqs[2];
    int n = mtest_size - mtest_size % 2; /* ranks past an even count sit out */
    if (mtest_rank >= n) {
        MPI_Comm_split(MPI_COMM_WORLD, MPI_UNDEFINED, 0, &a);
        MPI_Comm_split(MPI_COMM_WORLD, MPI_UNDEFINED, 0, &b);
        return 0;
    }
    MPI_Comm_split(MPI_COMM_WORLD, mtest_rank / 2, mtest_rank, &a);
    /* in b the pair (n-1, 0) has 0 as its second member: key puts it in place */
    MPI_Comm_split(MPI_COMM_WORLD, ((mtest_rank + n - 1) % n) / 2, (mtest_rank + n - 1) % n, &b);
    if (mtest_rank % 2 == 0) {
        MPI_Comm_idup(a, &da, &reqs[0]);
        MPI_Comm_idup(b, &db, &reqs[1]);
    } else {
        MPI_Comm_idup(b, &db, &reqs[1]);
        MPI_Comm_idup(a, &da, &reqs[0]);
    }
    int rc = MPI_Waitall(2, reqs, MPI_STATUSES_IGNORE);
    MTEST_CHECK_RC(errs, rc, "MPI_Waitall on overlapping idups");
    errs += check_congruent(a, da, "idup of the first pair");
    errs += check_congruent(b, db, "idup of the second pair");
    MPI_Comm all[4] = {a, b, da, db};
    errs += check_separate(4, all, "overlapping pairs and their idups");
    MPI_Comm_free(&a);
    MPI_Comm_free(&b);
    MPI_Comm_free(&da);
    MPI_Comm_free(&db);
    return errs;
}

static int copy_calls;
static int count_copy(MPI_Comm comm, int keyval, void *extra, void *in, void *out, int *flag)
{
    (void)comm;
    (void)keyval;
    (void)extra;
    copy_calls++;
    *(void **)out = in;
    *flag = 1;
    return MPI_SUCCESS;
}

/* Attributes as at the call, hints of idup_with_info, and a blocking dup of the same
 * communicator between start and completion. */
static int attrs_info_and_blocking_dup(void)
{
    int errs = 0, keyval, flag = 0, rc;
    static int before = 1, after = 2;
    MPI_Comm orig, idup, dup;
    MPI_Request req;
    MPI_Info info;
    MPI_Comm_dup(MPI_COMM_WORLD, &orig);
    MPI_Comm_create_keyval(count_copy, MPI_COMM_NULL_DELETE_FN, &keyval, NULL);
    MPI_Comm_set_attr(orig, keyval, &before);
    MPI_Info_create(&info);
    MPI_Info_set(info, "mpi_assert_no_any_tag", "true");
    copy_calls = 0;
    rc = MPI_Comm_idup_with_info(orig, info, &idup, &req);
    MTEST_CHECK_RC(errs, rc, "MPI_Comm_idup_with_info");
    MPI_Info_free(&info);
    MPI_Comm_set_attr(orig, keyval, &after);
    rc = MPI_Comm_dup(orig, &dup);
    MTEST_CHECK_RC(errs, rc, "MPI_Comm_dup while an idup of the same communicator is pending");
    MPI_Wait(&req, MPI_STATUS_IGNORE);
    MTEST_CHECK_INT(errs, 2, copy_calls, "copy callbacks run (one per dup)");
    void *val = NULL;
    MPI_Comm_get_attr(idup, keyval, &val, &flag);
    MTEST_CHECK_INT(errs, 1, flag, "attribute present on the idup");
    if (flag && val != &before)
        MTEST_FAIL(errs, "idup's attribute is not the value at the time of the call");
    MPI_Comm_get_attr(dup, keyval, &val, &flag);
    if (!flag || val != &after)
        MTEST_FAIL(errs, "dup's attribute is not the value at the time of its call");
    MPI_Info used;
    char value[MPI_MAX_INFO_VAL + 1] = "";
    MPI_Comm_get_info(idup, &used);
    MPI_Info_get(used, "mpi_assert_no_any_tag", MPI_MAX_INFO_VAL, value, &flag);
    MTEST_CHECK_INT(errs, 1, flag, "hint given to MPI_Comm_idup_with_info is kept");
    if (flag && strcmp(value, "true") != 0)
        MTEST_FAIL(errs, "hint value \"%s\", expected \"true\"", value);
    MPI_Info_free(&used);
    MPI_Comm all[3] = {orig, idup, dup};
    errs += check_congruent(orig, idup, "idup_with_info");
    errs += check_separate(3, all, "original, idup and dup");
    MPI_Comm_free(&idup);
    MPI_Comm_free(&dup);
    MPI_Comm_free(&orig);
    MPI_Comm_free_keyval(&keyval);
    return errs;
}

/* An intercommunicator between the even and the odd ranks: its idup completes while the
 * leaders exchange point-to-point messages over it with MPI_ANY_SOURCE, and the duplicate has
 * the same groups and its own matching space. */
static int intercomm_idup(void)
{
    int errs = 0, lrank, rsize, rsize2 = -1, flag = 0;
    MPI_Comm local, inter, dup;
    MPI_Request req;
    if (mtest_size < 2)
        return 0;
    MPI_Comm_split(MPI_COMM_WORLD, mtest_rank % 2, mtest_rank, &local);
    MPI_Intercomm_create(local, 0, MPI_COMM_WORLD, mtest_rank % 2 ? 0 : 1, 5, &inter);
    MPI_Comm_rank(inter, &lrank);
    MPI_Comm_remote_size(inter, &rsize);
    /* The odd leader starts its idup only after the even leader's has started and said so. */
    if (mtest_rank == 1)
        MPI_Recv(NULL, 0, MPI_BYTE, MPI_ANY_SOURCE, 3, inter, MPI_STATUS_IGNORE);
    MPI_Comm_idup(inter, &dup, &req);
    if (mtest_rank == 0)
        MPI_Send(NULL, 0, MPI_BYTE, 0, 3, inter);
    MPI_Wait(&req, MPI_STATUS_IGNORE);
    MPI_Comm_test_inter(dup, &flag);
    MTEST_CHECK_INT(errs, 1, flag, "idup of an intercommunicator is one");
    MPI_Comm_remote_size(dup, &rsize2);
    MTEST_CHECK_INT(errs, rsize, rsize2, "remote size of the idup");
    errs += check_congruent(inter, dup, "idup of an intercommunicator");
    if (lrank == 0) { /* the leaders: a message on inter is not seen on dup */
        int v = -1, x = -1, w = 100 + mtest_rank, other = 100 + (mtest_rank == 0 ? 1 : 0);
        MPI_Request r;
        MPI_Irecv(&v, 1, MPI_INT, MPI_ANY_SOURCE, MPI_ANY_TAG, dup, &r);
        MPI_Sendrecv(&w, 1, MPI_INT, 0, 4, &x, 1, MPI_INT, 0, 4, inter, MPI_STATUS_IGNORE);
        MTEST_CHECK_INT(errs, other, x, "message on the intercommunicator");
        MPI_Send(&w, 1, MPI_INT, 0, 4, dup);
        MPI_Wait(&r, MPI_STATUS_IGNORE);
        MTEST_CHECK_INT(errs, other, v, "message on the idup");
    }
    MPI_Comm_free(&dup);
    MPI_Comm_free(&inter);
    MPI_Comm_free(&local);
    return errs;
}

static int bad_arguments(void)
{
    int errs = 0;
    MPI_Comm dup;
    MPI_Request req;
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    errs += mtest_check_class(MPI_Comm_idup(MPI_COMM_NULL, &dup, &req), MPI_ERR_COMM,
                              "MPI_Comm_idup(MPI_COMM_NULL)");
    errs += mtest_check_class(MPI_Comm_idup(MPI_COMM_WORLD, &dup, NULL), MPI_ERR_ARG,
                              "MPI_Comm_idup with request NULL");
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
    return errs;
}

int main(int argc, char **argv)
{
    int errs = 0;
    MTest_Init(&argc, &argv);
    errs += chained_start();
    errs += many_outstanding(MPI_COMM_WORLD, "idups of MPI_COMM_WORLD");
    errs += many_outstanding(MPI_COMM_SELF, "idups of MPI_COMM_SELF");
    errs += overlapping_orders();
    errs += attrs_info_and_blocking_dup();
    errs += intercomm_idup();
    errs += bad_arguments();
    return MTest_Finalize(errs);
}
