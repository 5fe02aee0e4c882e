/* errors_return.c: with MPI_ERRORS_RETURN, invalid arguments are reported by return code with
 * the right error class: invalid rank (MPI_ERR_RANK), tag (MPI_ERR_TAG), count (MPI_ERR_COUNT),
 * datatype (MPI_ERR_TYPE), communicator (MPI_ERR_COMM), null buffer with a positive count
 * (MPI_ERR_BUFFER), root (MPI_ERR_ROOT) and op (MPI_ERR_OP), for blocking, nonblocking and probe
 * calls. Every error code has a non-empty MPI_Error_string and maps to its class. The error
 * handler get/set round-trips, starts as MPI_ERRORS_ARE_FATAL and is inherited by Comm_dup.
 * Communication still works afterwards. */
#include "mtest.h"

#include <limits.h>
#include <string.h>

static int check_string(int code, const char *what)
{
    int errs = 0;
    char s[MPI_MAX_ERROR_STRING];
    int len = -1;
    memset(s, 0, sizeof s);
    int rc = MPI_Error_string(code, s, &len);
    MTEST_CHECK_RC(errs, rc, "%s: MPI_Error_string(%d)", what, code);
    if (len <= 0 || len >= MPI_MAX_ERROR_STRING || s[0] == '\0')
        MTEST_FAIL(errs, "%s: MPI_Error_string(%d) gave length %d, string \"%s\"", what, code, len,
                   s);
    else
        MTEST_CHECK_INT(errs, (int)strlen(s), len, "%s: resultlen of MPI_Error_string(%d)", what,
                        code);
    return errs;
}

/* The error class of rc must be `cls`, and its string must be non-empty. */
static int expect(int rc, int cls, const char *what)
{
    int errs = mtest_check_class(rc, cls, what);
    if (rc != MPI_SUCCESS)
        errs += check_string(rc, what);
    return errs;
}

#define EXPECT(call, cls) errs += expect((call), (cls), #call)

int main(int argc, char **argv)
{
    int errs = 0, rc;
    MTest_Init(&argc, &argv);
    MPI_Comm w = MPI_COMM_WORLD;
    int size = mtest_size, rank = mtest_rank;
    int buf[16] = {0}, flag;
    MPI_Request req = MPI_REQUEST_NULL;
    MPI_Status st;
    MPI_Errhandler eh = MPI_ERRHANDLER_NULL;

    /* error handlers: the default, set/get, inheritance by Comm_dup */
    rc = MPI_Comm_get_errhandler(w, &eh);
    MTEST_CHECK_RC(errs, rc, "MPI_Comm_get_errhandler(MPI_COMM_WORLD)");
    if (eh != MPI_ERRORS_ARE_FATAL)
        MTEST_FAIL(errs,
                   "initial error handler of MPI_COMM_WORLD is %#x, not MPI_ERRORS_ARE_FATAL "
                   "(%#x)",
                   (unsigned)eh, (unsigned)MPI_ERRORS_ARE_FATAL);
    rc = MPI_Comm_set_errhandler(w, MPI_ERRORS_RETURN);
    MTEST_CHECK_RC(errs, rc, "MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN)");
    /* errors on an invalid communicator are raised on MPI_COMM_WORLD (MPI-3) or on
     * MPI_COMM_SELF (MPI-4): make both return */
    rc = MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN);
    MTEST_CHECK_RC(errs, rc, "MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN)");
    eh = MPI_ERRHANDLER_NULL;
    MPI_Comm_get_errhandler(w, &eh);
    if (eh != MPI_ERRORS_RETURN)
        MTEST_FAIL(errs, "MPI_Comm_get_errhandler after setting MPI_ERRORS_RETURN gave %#x",
                   (unsigned)eh);
    {
        MPI_Comm dup = MPI_COMM_NULL;
        MPI_Comm_dup(w, &dup);
        eh = MPI_ERRHANDLER_NULL;
        MPI_Comm_get_errhandler(dup, &eh);
        if (eh != MPI_ERRORS_RETURN)
            MTEST_FAIL(errs, "Comm_dup did not inherit MPI_ERRORS_RETURN: handler %#x",
                       (unsigned)eh);
        MPI_Comm_set_errhandler(dup, MPI_ERRORS_ARE_FATAL);
        MPI_Comm_get_errhandler(dup, &eh);
        if (eh != MPI_ERRORS_ARE_FATAL)
            MTEST_FAIL(errs, "get after set MPI_ERRORS_ARE_FATAL on a dup gave %#x", (unsigned)eh);
        /* the dup's handler is its own */
        MPI_Comm_get_errhandler(w, &eh);
        if (eh != MPI_ERRORS_RETURN)
            MTEST_FAIL(errs, "setting the dup's handler changed MPI_COMM_WORLD's to %#x",
                       (unsigned)eh);
        MPI_Comm_free(&dup);
    }

    /* invalid ranks */
    EXPECT(MPI_Send(buf, 1, MPI_INT, size, 0, w), MPI_ERR_RANK);
    EXPECT(MPI_Send(buf, 1, MPI_INT, -5, 0, w), MPI_ERR_RANK);
    EXPECT(MPI_Send(buf, 1, MPI_INT, MPI_ANY_SOURCE, 0, w), MPI_ERR_RANK);
    EXPECT(MPI_Ssend(buf, 1, MPI_INT, size + 7, 0, w), MPI_ERR_RANK);
    EXPECT(MPI_Recv(buf, 1, MPI_INT, size, 0, w, &st), MPI_ERR_RANK);
    EXPECT(MPI_Recv(buf, 1, MPI_INT, -5, 0, w, &st), MPI_ERR_RANK);
    EXPECT(MPI_Isend(buf, 1, MPI_INT, size, 0, w, &req), MPI_ERR_RANK);
    EXPECT(MPI_Issend(buf, 1, MPI_INT, -9, 0, w, &req), MPI_ERR_RANK);
    EXPECT(MPI_Irecv(buf, 1, MPI_INT, size, 0, w, &req), MPI_ERR_RANK);
    EXPECT(MPI_Probe(size, 0, w, &st), MPI_ERR_RANK);
    EXPECT(MPI_Iprobe(size, 0, w, &flag, &st), MPI_ERR_RANK);
    EXPECT(MPI_Sendrecv(buf, 1, MPI_INT, size, 0, buf + 1, 1, MPI_INT, rank, 0, w, &st),
           MPI_ERR_RANK);
    EXPECT(MPI_Send(buf, 1, MPI_INT, 1, 0, MPI_COMM_SELF), MPI_ERR_RANK);

    /* invalid tags (MPI_ANY_TAG is not a valid tag for a send) */
    EXPECT(MPI_Send(buf, 1, MPI_INT, rank, -3, w), MPI_ERR_TAG);
    EXPECT(MPI_Send(buf, 1, MPI_INT, rank, MPI_ANY_TAG, w), MPI_ERR_TAG);
    EXPECT(MPI_Ssend(buf, 1, MPI_INT, rank, -100, w), MPI_ERR_TAG);
    EXPECT(MPI_Recv(buf, 1, MPI_INT, rank, -5, w, &st), MPI_ERR_TAG);
    EXPECT(MPI_Isend(buf, 1, MPI_INT, rank, -2, w, &req), MPI_ERR_TAG);
    EXPECT(MPI_Irecv(buf, 1, MPI_INT, rank, -7, w, &req), MPI_ERR_TAG);
    EXPECT(MPI_Probe(rank, -5, w, &st), MPI_ERR_TAG);
    EXPECT(MPI_Iprobe(rank, -5, w, &flag, &st), MPI_ERR_TAG);
    {
        int *ub = NULL;
        flag = 0;
        MPI_Comm_get_attr(w, MPI_TAG_UB, &ub, &flag);
        if (flag && ub && *ub < INT_MAX) {
            char what[64];
            snprintf(what, sizeof what, "MPI_Send with tag MPI_TAG_UB+1 = %d", *ub + 1);
            errs += expect(MPI_Send(buf, 1, MPI_INT, rank, *ub + 1, w), MPI_ERR_TAG, what);
        }
    }

    /* invalid counts */
    EXPECT(MPI_Send(buf, -1, MPI_INT, rank, 0, w), MPI_ERR_COUNT);
    EXPECT(MPI_Recv(buf, -1, MPI_INT, rank, 0, w, &st), MPI_ERR_COUNT);
    EXPECT(MPI_Isend(buf, -5, MPI_INT, rank, 0, w, &req), MPI_ERR_COUNT);
    EXPECT(MPI_Irecv(buf, -5, MPI_INT, rank, 0, w, &req), MPI_ERR_COUNT);
    EXPECT(MPI_Bcast(buf, -1, MPI_INT, 0, w), MPI_ERR_COUNT);

    /* invalid datatype */
    EXPECT(MPI_Send(buf, 1, MPI_DATATYPE_NULL, rank, 0, w), MPI_ERR_TYPE);
    EXPECT(MPI_Recv(buf, 1, MPI_DATATYPE_NULL, rank, 0, w, &st), MPI_ERR_TYPE);
    EXPECT(MPI_Isend(buf, 1, MPI_DATATYPE_NULL, rank, 0, w, &req), MPI_ERR_TYPE);
    EXPECT(MPI_Irecv(buf, 1, MPI_DATATYPE_NULL, rank, 0, w, &req), MPI_ERR_TYPE);
    {
        int sz;
        EXPECT(MPI_Type_size(MPI_DATATYPE_NULL, &sz), MPI_ERR_TYPE);
    }
    {
        /* a reduction can also see this as "MPI_SUM is not defined on that type" (MPICH does):
         * accept MPI_ERR_OP as well */
        rc = MPI_Allreduce(buf, buf + 4, 1, MPI_DATATYPE_NULL, MPI_SUM, w);
        int cls = -1;
        MPI_Error_class(rc, &cls);
        if (cls != MPI_ERR_OP)
            errs += expect(rc, MPI_ERR_TYPE, "MPI_Allreduce with MPI_DATATYPE_NULL");
    }

    /* invalid communicator */
    EXPECT(MPI_Send(buf, 1, MPI_INT, 0, 0, MPI_COMM_NULL), MPI_ERR_COMM);
    EXPECT(MPI_Recv(buf, 1, MPI_INT, 0, 0, MPI_COMM_NULL, &st), MPI_ERR_COMM);
    EXPECT(MPI_Isend(buf, 1, MPI_INT, 0, 0, MPI_COMM_NULL, &req), MPI_ERR_COMM);
    EXPECT(MPI_Irecv(buf, 1, MPI_INT, 0, 0, MPI_COMM_NULL, &req), MPI_ERR_COMM);
    EXPECT(MPI_Probe(0, 0, MPI_COMM_NULL, &st), MPI_ERR_COMM);
    EXPECT(MPI_Iprobe(0, 0, MPI_COMM_NULL, &flag, &st), MPI_ERR_COMM);
    {
        int r, s;
        MPI_Comm c;
        EXPECT(MPI_Comm_rank(MPI_COMM_NULL, &r), MPI_ERR_COMM);
        EXPECT(MPI_Comm_size(MPI_COMM_NULL, &s), MPI_ERR_COMM);
        EXPECT(MPI_Comm_dup(MPI_COMM_NULL, &c), MPI_ERR_COMM);
#if defined(FERRY_VERSION) || defined(MPICH_VERSION)
        /* An invalid second communicator is an error of no communicator: raised on the
         * handler of unbound errors (MPI_COMM_SELF's in MPI-4.0, MPI_COMM_WORLD's before; both
         * return here), not on the valid first one's, which is fatal for the moment (Intel's
         * MPI_Comm_compare_null_c). */
        MPI_Comm fatal;
        MPI_Comm_dup(MPI_COMM_SELF, &fatal);
        MPI_Comm_set_errhandler(fatal, MPI_ERRORS_ARE_FATAL);
        EXPECT(MPI_Comm_compare(fatal, MPI_COMM_NULL, &r), MPI_ERR_COMM);
        EXPECT(MPI_Comm_compare(MPI_COMM_NULL, fatal, &r), MPI_ERR_COMM);
        MPI_Comm_free(&fatal);
#endif
    }
    EXPECT(MPI_Barrier(MPI_COMM_NULL), MPI_ERR_COMM);
    EXPECT(MPI_Bcast(buf, 1, MPI_INT, 0, MPI_COMM_NULL), MPI_ERR_COMM);
    EXPECT(MPI_Allreduce(buf, buf + 4, 1, MPI_INT, MPI_SUM, MPI_COMM_NULL), MPI_ERR_COMM);

    /* null buffer with a positive count */
    EXPECT(MPI_Send(NULL, 10, MPI_INT, rank, 0, w), MPI_ERR_BUFFER);
    EXPECT(MPI_Recv(NULL, 10, MPI_INT, rank, 0, w, &st), MPI_ERR_BUFFER);
    EXPECT(MPI_Isend(NULL, 10, MPI_INT, rank, 0, w, &req), MPI_ERR_BUFFER);
    EXPECT(MPI_Irecv(NULL, 10, MPI_INT, rank, 0, w, &req), MPI_ERR_BUFFER);

    /* collectives: invalid root and op (every rank sees the same invalid argument) */
    EXPECT(MPI_Bcast(buf, 1, MPI_INT, size, w), MPI_ERR_ROOT);
    EXPECT(MPI_Bcast(buf, 1, MPI_INT, -1, w), MPI_ERR_ROOT);
    EXPECT(MPI_Reduce(buf, buf + 4, 1, MPI_INT, MPI_SUM, size, w), MPI_ERR_ROOT);
    EXPECT(MPI_Reduce(buf, buf + 4, 1, MPI_INT, MPI_OP_NULL, 0, w), MPI_ERR_OP);
    EXPECT(MPI_Allreduce(buf, buf + 4, 1, MPI_INT, MPI_OP_NULL, w), MPI_ERR_OP);

    /* every error class has a string and is its own class */
    {
        const int classes[] = {MPI_SUCCESS,    MPI_ERR_BUFFER, MPI_ERR_COUNT,     MPI_ERR_TYPE,
                               MPI_ERR_TAG,    MPI_ERR_COMM,   MPI_ERR_RANK,      MPI_ERR_ROOT,
                               MPI_ERR_OP,     MPI_ERR_ARG,    MPI_ERR_UNKNOWN,   MPI_ERR_TRUNCATE,
                               MPI_ERR_OTHER,  MPI_ERR_INTERN, MPI_ERR_IN_STATUS, MPI_ERR_PENDING,
                               MPI_ERR_REQUEST};
        for (size_t i = 0; i < sizeof classes / sizeof classes[0]; i++) {
            int cls = -1;
            char what[64];
            snprintf(what, sizeof what, "error class %s", mtest_classname(classes[i]));
            rc = MPI_Error_class(classes[i], &cls);
            MTEST_CHECK_RC(errs, rc, "MPI_Error_class(%s)", mtest_classname(classes[i]));
            MTEST_CHECK_INT(errs, classes[i], cls, "MPI_Error_class(%s)",
                            mtest_classname(classes[i]));
            errs += check_string(classes[i], what);
        }
    }

    /* the library still works: a ring exchange */
    {
        int right = (rank + 1) % size, left = (rank + size - 1) % size;
        int out = 1000 + rank, in = -1;
        rc = MPI_Sendrecv(&out, 1, MPI_INT, right, 77, &in, 1, MPI_INT, left, 77, w, &st);
        MTEST_CHECK_RC(errs, rc, "ring MPI_Sendrecv after the errors");
        MTEST_CHECK_INT(errs, 1000 + left, in, "ring MPI_Sendrecv after the errors: data");
        errs += mtest_check_status(&st, left, 77, MPI_INT, 1, "ring after the errors");
        /* nothing stray was left queued by the failed calls */
        MPI_Barrier(w);
        flag = 1;
        MPI_Iprobe(MPI_ANY_SOURCE, MPI_ANY_TAG, w, &flag, &st);
        MTEST_CHECK_INT(errs, 0, flag, "a message pending after the failed calls (tag %d from %d)",
                        st.MPI_TAG, st.MPI_SOURCE);
    }

    return MTest_Finalize(errs);
}
