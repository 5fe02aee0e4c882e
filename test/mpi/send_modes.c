/* send_modes.c: buffered, ready and persistent sends, matched probes, the -some/-any completion
 * calls and generalized requests (MPI-4.1 ch. 3 and sec. 13.2). Bsend into an attached buffer
 * sized by the standard's rule (Pack_size + MPI_BSEND_OVERHEAD per message), MPI_ERR_BUFFER
 * for a message larger than it, Buffer_detach waiting for messages the receiver takes only later;
 * Rsend to a posted receive; Send_init/Recv_init with Startall, restarted, and Wait on inactive
 * requests; Mprobe+Mrecv and Improbe+Imrecv of small and large messages, MPI_MESSAGE_NO_PROC;
 * Testany/Testsome/Waitsome with null and inactive requests; Grequest callbacks. */
#include "mtest.h"

#include <stdlib.h>
#include <string.h>

#define GO_TAG 999
#define BIG (1 << 20)

static int check_bsend(int rank)
{
    int errs = 0, psize;
    MPI_Pack_size(100, MPI_INT, MPI_COMM_WORLD, &psize);
    int bsize = 3 * (psize + MPI_BSEND_OVERHEAD);
    char *bbuf = mtest_malloc(bsize);
    int data[100];
    if (rank == 0) {
        MPI_Errhandler_set(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
        MPI_Buffer_attach(bbuf, bsize);
        for (int m = 0; m < 3; m++) {
            for (int k = 0; k < 100; k++)
                data[k] = m * 1000 + k;
            MTEST_CHECK_RC(errs, MPI_Bsend(data, 100, MPI_INT, 1, 20 + m, MPI_COMM_WORLD),
                           "Bsend %d", m);
            data[0] = -1; /* the buffer is ours again at once */
        }
        /* Larger than the whole buffer: it cannot fit, however many blocks are free. */
        int *huge = mtest_malloc(sizeof(int) * 1000);
        int rc = MPI_Bsend(huge, 1000, MPI_INT, 1, 30, MPI_COMM_WORLD);
        errs += mtest_check_class(rc, MPI_ERR_BUFFER, "Bsend larger than the buffer");
        free(huge);
        MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
        MPI_Send(NULL, 0, MPI_BYTE, 1, GO_TAG, MPI_COMM_WORLD); /* now receive them */
        void *addr;
        int got;
        MPI_Buffer_detach(&addr, &got); /* returns once all three are out */
        MTEST_CHECK_INT(errs, 1, addr == bbuf, "Buffer_detach's address");
        MTEST_CHECK_INT(errs, bsize, got, "Buffer_detach's size");
    } else if (rank == 1) {
        MPI_Recv(NULL, 0, MPI_BYTE, 0, GO_TAG, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        for (int m = 2; m >= 0; m--) { /* in reverse: they were all buffered */
            MPI_Recv(data, 100, MPI_INT, 0, 20 + m, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            MTEST_CHECK_INT(errs, m * 1000 + 7, data[7], "buffered message %d", m);
        }
    }
    free(bbuf);
    return errs;
}

static int check_rsend_persistent(int rank)
{
    int errs = 0, v = -1;
    if (rank == 0) {
        int out[2] = {5, 6};
        MPI_Request r[3];
        MPI_Recv(NULL, 0, MPI_BYTE, 1, GO_TAG, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        MPI_Rsend(&out[0], 1, MPI_INT, 1, 40, MPI_COMM_WORLD);
        MPI_Send_init(&out[1], 1, MPI_INT, 1, 41, MPI_COMM_WORLD, &r[0]);
        MPI_Ssend_init(&out[1], 1, MPI_INT, 1, 42, MPI_COMM_WORLD, &r[1]);
        r[2] = MPI_REQUEST_NULL;
        MPI_Status st;
        MPI_Wait(&r[0], &st); /* inactive: returns at once, empty status */
        MTEST_CHECK_INT(errs, MPI_ANY_SOURCE, st.MPI_SOURCE, "Wait on an inactive request");
        for (int it = 0; it < 3; it++) {
            out[1] = 100 + it;
            MPI_Startall(2, r);
            MPI_Waitall(3, r, MPI_STATUSES_IGNORE);
            MTEST_CHECK_INT(errs, 1, r[0] != MPI_REQUEST_NULL, "persistent handle survives");
        }
        MPI_Request_free(&r[0]);
        MPI_Request_free(&r[1]);
    } else if (rank == 1) {
        MPI_Request r, p[2];
        int in[2];
        MPI_Irecv(&v, 1, MPI_INT, 0, 40, MPI_COMM_WORLD, &r);
        MPI_Send(NULL, 0, MPI_BYTE, 0, GO_TAG, MPI_COMM_WORLD);
        MPI_Wait(&r, MPI_STATUS_IGNORE);
        MTEST_CHECK_INT(errs, 5, v, "Rsend's value");
        MPI_Recv_init(&in[0], 1, MPI_INT, 0, 41, MPI_COMM_WORLD, &p[0]);
        MPI_Recv_init(&in[1], 1, MPI_INT, 0, 42, MPI_COMM_WORLD, &p[1]);
        for (int it = 0; it < 3; it++) {
            MPI_Status st[2];
            MPI_Startall(2, p);
            MPI_Waitall(2, p, st);
            MTEST_CHECK_INT(errs, 100 + it, in[0], "persistent receive %d", it);
            MTEST_CHECK_INT(errs, 42, st[1].MPI_TAG, "persistent receive status tag");
        }
        MPI_Request_free(&p[0]);
        MPI_Request_free(&p[1]);
    }
    return errs;
}

static int check_mprobe(int rank)
{
    int errs = 0;
    char *buf = mtest_malloc(BIG);
    if (rank == 0) {
        mtest_fill_bytes(buf, BIG, 3);
        MPI_Send(buf, 16, MPI_BYTE, 1, 50, MPI_COMM_WORLD);
        MPI_Send(buf, BIG, MPI_BYTE, 1, 51, MPI_COMM_WORLD);
    } else if (rank == 1) {
        MPI_Message m;
        MPI_Status st;
        int n, flag = 0;
        /* A receive posted after the probe must not take the probed message. */
        MPI_Mprobe(0, MPI_ANY_TAG, MPI_COMM_WORLD, &m, &st);
        MPI_Get_count(&st, MPI_BYTE, &n);
        MTEST_CHECK_INT(errs, 16, n, "Mprobe's count");
        MPI_Request r;
        MPI_Irecv(buf, BIG, MPI_BYTE, 0, MPI_ANY_TAG, MPI_COMM_WORLD, &r);
        char small[16];
        MPI_Mrecv(small, 16, MPI_BYTE, &m, &st);
        MTEST_CHECK_INT(errs, (int)MPI_MESSAGE_NULL, (int)m, "message after Mrecv");
        MTEST_CHECK_INT(errs, 50, st.MPI_TAG, "Mrecv's tag");
        errs += mtest_check_bytes(small, 16, 3, "Mrecv's data");
        MPI_Wait(&r, &st);
        MTEST_CHECK_INT(errs, 51, st.MPI_TAG, "the later receive got the large message");
        errs += mtest_check_bytes(buf, BIG, 3, "large message");
        MPI_Improbe(MPI_PROC_NULL, 0, MPI_COMM_WORLD, &flag, &m, &st);
        MTEST_CHECK_INT(errs, (int)MPI_MESSAGE_NO_PROC, (int)m, "Improbe from MPI_PROC_NULL");
        MPI_Mrecv(NULL, 0, MPI_BYTE, &m, &st);
        MTEST_CHECK_INT(errs, MPI_PROC_NULL, st.MPI_SOURCE, "Mrecv of MPI_MESSAGE_NO_PROC");
    }
    if (rank == 0) { /* a rendezvous-sized message through Improbe + Imrecv */
        MPI_Send(buf, BIG, MPI_BYTE, 1, 52, MPI_COMM_WORLD);
    } else if (rank == 1) {
        MPI_Message m;
        MPI_Request r;
        int flag = 0;
        memset(buf, 0, BIG);
        while (!flag)
            MPI_Improbe(0, 52, MPI_COMM_WORLD, &flag, &m, MPI_STATUS_IGNORE);
        MPI_Imrecv(buf, BIG, MPI_BYTE, &m, &r);
        MPI_Wait(&r, MPI_STATUS_IGNORE);
        errs += mtest_check_bytes(buf, BIG, 3, "Imrecv's data");
    }
    free(buf);
    return errs;
}

static int queried, freed;
static int q_fn(void *extra, MPI_Status *st)
{
    queried++;
    MPI_Status_set_elements(st, MPI_INT, 3);
    MPI_Status_set_cancelled(st, 0);
    st->MPI_SOURCE = MPI_UNDEFINED;
    st->MPI_TAG = MPI_UNDEFINED;
    return MPI_SUCCESS;
}
static int f_fn(void *extra)
{
    freed++;
    return MPI_SUCCESS;
}
static int c_fn(void *extra, int complete)
{
    return MPI_SUCCESS;
}

static int check_completion(void)
{
    int errs = 0, idx = -5, flag = -5, out = -5, ind[3];
    MPI_Request r[3] = {MPI_REQUEST_NULL, MPI_REQUEST_NULL, MPI_REQUEST_NULL};
    MPI_Status st[3];
    MPI_Testany(3, r, &idx, &flag, &st[0]);
    MTEST_CHECK_INT(errs, MPI_UNDEFINED, idx, "Testany of null requests: index");
    MTEST_CHECK_INT(errs, 1, flag, "Testany of null requests: flag");
    MPI_Waitsome(3, r, &out, ind, st);
    MTEST_CHECK_INT(errs, MPI_UNDEFINED, out, "Waitsome of null requests");
    MPI_Testsome(0, r, &out, ind, st);
    MTEST_CHECK_INT(errs, MPI_UNDEFINED, out, "Testsome of no requests");
    MPI_Grequest_start(q_fn, f_fn, c_fn, NULL, &r[1]);
    MPI_Testsome(3, r, &out, ind, st);
    MTEST_CHECK_INT(errs, 0, out, "Testsome before Grequest_complete");
    MPI_Grequest_complete(r[1]);
    MPI_Waitsome(3, r, &out, ind, st);
    MTEST_CHECK_INT(errs, 1, out, "Waitsome after Grequest_complete");
    MTEST_CHECK_INT(errs, 1, ind[0], "Waitsome's index");
    int n = -1;
    MPI_Get_count(&st[0], MPI_INT, &n);
    MTEST_CHECK_INT(errs, 3, n, "count set by the query function");
    MTEST_CHECK_INT(errs, 1, queried, "query function calls");
    MTEST_CHECK_INT(errs, 1, freed, "free function calls");
    MPI_Grequest_start(q_fn, f_fn, c_fn, NULL, &r[0]);
    MPI_Request_free(&r[0]); /* free_fn waits for Grequest_complete... */
    MTEST_CHECK_INT(errs, 1, freed, "free function before completion");
    return errs;
}

int main(int argc, char **argv)
{
    int errs = 0, rank, size;
    MTest_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (size >= 2) {
        errs += check_bsend(rank);
        errs += check_rsend_persistent(rank);
        errs += check_mprobe(rank);
    }
    errs += check_completion();
    return MTest_Finalize(errs);
}
