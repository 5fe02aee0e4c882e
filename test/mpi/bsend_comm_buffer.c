/* bsend_comm_buffer.c: MPI-4.1's buffers for buffered sends beyond the process's one:
 *   - MPI_Comm_attach_buffer: a communicator's buffered sends use its own buffer, while the
 *     process has none (MPI_COMM_WORLD's Bsend fails with MPI_ERR_BUFFER meanwhile); a message
 *     too large for it is MPI_ERR_BUFFER; detach gives the buffer back, after which the
 *     communicator's sends fall back to the process's buffer; attaching twice, or detaching
 *     from a communicator without one, is MPI_ERR_BUFFER;
 *   - MPI_BUFFER_AUTOMATIC for the process: many rendezvous-sized Bsends before the receiver
 *     posts anything all succeed; detach returns MPI_BUFFER_AUTOMATIC and size 0;
 *   - MPI_Comm_iflush_buffer completes once the receiver took the messages,
 *     MPI_Comm_flush_buffer returns then;
 *   - a communicator freed while its buffered send is still under way: the message arrives.
 * Ranks 0 and 1 exchange; others take part in the collective calls only. */
#include "mtest.h"

#include <stdlib.h>
#include <string.h>

#define BIG 40000 /* ints: rendezvous-sized on every method's default limits */
#define NBIG 12

static int check_big(const int *v, int seed)
{
    for (int i = 0; i < BIG; i++)
        if (v[i] != seed + i)
            return 1;
    return 0;
}

static void fill_big(int *v, int seed)
{
    for (int i = 0; i < BIG; i++)
        v[i] = seed + i;
}

int main(int argc, char **argv)
{
    int errs = 0, rank, size;
    MTest_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    MPI_Comm dup;
    MPI_Comm_dup(MPI_COMM_WORLD, &dup);
    MPI_Comm_set_errhandler(dup, MPI_ERRORS_RETURN);
    int *big = malloc(sizeof(int) * BIG * NBIG);
    int small = 0;

    /* A communicator's own buffer. */
    int bufsize = 4 * (int)sizeof(int) + MPI_BSEND_OVERHEAD;
    char *cbuf = malloc((size_t)bufsize);
    MTEST_CHECK_RC(errs, MPI_Comm_attach_buffer(dup, cbuf, bufsize), "Comm_attach_buffer");
    errs += mtest_check_class(MPI_Comm_attach_buffer(dup, cbuf, bufsize), MPI_ERR_BUFFER,
                              "a second Comm_attach_buffer");
    if (rank == 0) {
        int v[4] = {1, 2, 3, 4};
        MTEST_CHECK_RC(errs, MPI_Bsend(v, 4, MPI_INT, 1, 5, dup),
                       "Bsend on the communicator with its buffer");
        errs += mtest_check_class(MPI_Bsend(v, 1, MPI_INT, 1, 6, MPI_COMM_WORLD), MPI_ERR_BUFFER,
                                  "Bsend on MPI_COMM_WORLD, the process having no buffer");
        errs += mtest_check_class(MPI_Bsend(big, 100, MPI_INT, 1, 7, dup), MPI_ERR_BUFFER,
                                  "Bsend larger than the communicator's buffer");
    } else if (rank == 1) {
        int v[4] = {0};
        MPI_Recv(v, 4, MPI_INT, 0, 5, dup, MPI_STATUS_IGNORE);
        MTEST_CHECK_INT(errs, 4, v[3], "message through the communicator's buffer");
    }
    void *back = NULL;
    int backsize = -1;
    MTEST_CHECK_RC(errs, MPI_Comm_detach_buffer(dup, &back, &backsize), "Comm_detach_buffer");
    if (back != cbuf || backsize != bufsize)
        MTEST_FAIL(errs, "Comm_detach_buffer gave %p/%d, attached %p/%d", back, backsize,
                   (void *)cbuf, bufsize);
    errs += mtest_check_class(MPI_Comm_detach_buffer(dup, &back, &backsize), MPI_ERR_BUFFER,
                              "Comm_detach_buffer with none attached");
    if (rank == 0)
        errs += mtest_check_class(MPI_Bsend(&small, 1, MPI_INT, 1, 8, dup), MPI_ERR_BUFFER,
                                  "Bsend on the communicator after its detach, no process "
                                  "buffer");
    MPI_Barrier(MPI_COMM_WORLD);

    /* The process's automatic buffer. */
    MTEST_CHECK_RC(errs, MPI_Buffer_attach(MPI_BUFFER_AUTOMATIC, 0), "Buffer_attach automatic");
    if (rank == 0) {
        for (int k = 0; k < NBIG; k++) {
            fill_big(big + (size_t)k * BIG, 1000 * k);
            MTEST_CHECK_RC(errs, MPI_Bsend(big + (size_t)k * BIG, BIG, MPI_INT, 1, 20 + k, dup),
                           "automatic Bsend %d", k);
        }
        memset(big, 0, sizeof(int) * BIG * NBIG); /* the sends no longer need the data */
    }
    MPI_Barrier(MPI_COMM_WORLD); /* every Bsend returned before a receive is posted */
    if (rank == 1)
        for (int k = NBIG - 1; k >= 0; k--) {
            MPI_Recv(big, BIG, MPI_INT, 0, 20 + k, dup, MPI_STATUS_IGNORE);
            if (check_big(big, 1000 * k))
                MTEST_FAIL(errs, "automatic buffer: message %d is wrong", k);
        }
    MTEST_CHECK_RC(errs, MPI_Buffer_detach(&back, &backsize), "Buffer_detach automatic");
    if (back != MPI_BUFFER_AUTOMATIC || backsize != 0)
        MTEST_FAIL(errs, "Buffer_detach gave %p/%d, expected MPI_BUFFER_AUTOMATIC/0", back,
                   backsize);

    /* Flushes of a communicator's buffer (an automatic one). */
    MTEST_CHECK_RC(errs, MPI_Comm_attach_buffer(dup, MPI_BUFFER_AUTOMATIC, 0),
                   "Comm_attach_buffer automatic");
    if (rank == 0) {
        fill_big(big, 7);
        MPI_Bsend(big, BIG, MPI_INT, 1, 40, dup);
        MPI_Request fr;
        MTEST_CHECK_RC(errs, MPI_Comm_iflush_buffer(dup, &fr), "Comm_iflush_buffer");
        MPI_Barrier(MPI_COMM_WORLD);
        MTEST_CHECK_RC(errs, MPI_Wait(&fr, MPI_STATUS_IGNORE), "Wait for the iflush");
        MPI_Bsend(big, BIG, MPI_INT, 1, 41, dup);
        MTEST_CHECK_RC(errs, MPI_Comm_flush_buffer(dup), "Comm_flush_buffer");
    } else {
        MPI_Barrier(MPI_COMM_WORLD);
        if (rank == 1) {
            MPI_Recv(big, BIG, MPI_INT, 0, 40, dup, MPI_STATUS_IGNORE);
            errs += check_big(big, 7);
            MPI_Recv(big, BIG, MPI_INT, 0, 41, dup, MPI_STATUS_IGNORE);
            errs += check_big(big, 7);
        }
    }
    MTEST_CHECK_RC(errs, MPI_Comm_detach_buffer(dup, &back, &backsize),
                   "Comm_detach_buffer automatic");

    /* A communicator freed while its buffered send is under way: the receive was posted
     * before the free (pending operations of a freed communicator complete); its buffer stays
     * until the send is over. */
    MPI_Comm gone;
    MPI_Comm_dup(MPI_COMM_WORLD, &gone);
    size_t gsize = (size_t)BIG * sizeof(int) + MPI_BSEND_OVERHEAD;
    char *gbuf = malloc(gsize);
    MPI_Comm_attach_buffer(gone, gbuf, (int)gsize);
    MPI_Request gr = MPI_REQUEST_NULL;
    if (rank == 1)
        MPI_Irecv(big, BIG, MPI_INT, 0, 50, gone, &gr);
    if (rank == 0) {
        fill_big(big, 99);
        MTEST_CHECK_RC(errs, MPI_Bsend(big, BIG, MPI_INT, 1, 50, gone), "Bsend before the free");
    }
    MPI_Comm_free(&gone);
    MPI_Barrier(MPI_COMM_WORLD);
    MTEST_CHECK_RC(errs, MPI_Wait(&gr, MPI_STATUS_IGNORE), "receive on the freed communicator");
    if (rank == 1 && check_big(big, 99))
        MTEST_FAIL(errs, "the message of the freed communicator is wrong");

    free(big);
    free(cbuf);
    MPI_Comm_free(&dup);
    int rc = MTest_Finalize(errs);
    free(gbuf); /* the freed communicator's send is over after MPI_Finalize */
    return rc;
}
