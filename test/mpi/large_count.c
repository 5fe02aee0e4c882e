/* large_count.c: a message of more than 2 GiB (MPI-4.1 sec. 3.2.2 and 5.2: the _c forms with
 * MPI_Count counts). Rank 0 sends 2.5 GiB of MPI_BYTE with MPI_Send_c, rank 1 receives it with
 * MPI_Recv_c into a larger buffer; MPI_Get_count_c gives the exact count, MPI_Get_count gives
 * MPI_UNDEFINED (it does not fit an int), the data arrive intact (a word every 4 KiB and the
 * last bytes, each holding its own offset), and the byte after the message is untouched. Also
 * MPI_Isend_c/MPI_Irecv_c of a count above INT_MAX of a 2-byte type. Needs about 5.5 GiB; it
 * runs once (test/mpi/testlist.large), not under every variant. */
#include "mtest.h"

#include <limits.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define STEP 4096

static void stamp(char *buf, MPI_Count n)
{
    for (MPI_Count off = 0; off + 8 <= n; off += STEP)
        memcpy(buf + off, &off, 8);
    for (MPI_Count off = n - 8; off < n; off++)
        buf[off] = (char)(off * 7);
}

static int check(const char *buf, MPI_Count n, const char *what)
{
    int errs = 0;
    for (MPI_Count off = 0; off + 8 <= n && errs < 5; off += STEP) {
        MPI_Count v;
        memcpy(&v, buf + off, 8);
        if (v != off)
            MTEST_FAIL(errs, "%s: word at offset %lld holds %lld", what, (long long)off,
                       (long long)v);
    }
    for (MPI_Count off = n - 8; off < n; off++)
        if (buf[off] != (char)(off * 7))
            MTEST_FAIL(errs, "%s: byte at offset %lld", what, (long long)off);
    return errs;
}

int main(int argc, char **argv)
{
    int errs = 0, rank, size;
    MTest_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    const MPI_Count n = (MPI_Count)5 << 29; /* 2.5 GiB */
    if (size >= 2 && rank < 2) {
        char *buf = malloc((size_t)n + 16);
        if (!buf) {
            printf("cannot allocate %lld bytes\n", (long long)n);
            MPI_Abort(MPI_COMM_WORLD, 1);
        }
        if (rank == 0) {
            stamp(buf, n);
            MTEST_CHECK_RC(errs, MPI_Send_c(buf, n, MPI_BYTE, 1, 1, MPI_COMM_WORLD), "Send_c");
            /* A count above INT_MAX of a 2-byte type, nonblocking. */
            MPI_Request r;
            MPI_Isend_c(buf, n / 2, MPI_SHORT, 1, 2, MPI_COMM_WORLD, &r);
            MPI_Wait(&r, MPI_STATUS_IGNORE);
        } else {
            MPI_Status st;
            MPI_Count c = -1;
            int ci = -1;
            memset(buf + n, 0x5a, 16);
            MTEST_CHECK_RC(errs, MPI_Recv_c(buf, n + 16, MPI_BYTE, 0, 1, MPI_COMM_WORLD, &st),
                           "Recv_c");
            MPI_Get_count_c(&st, MPI_BYTE, &c);
            MTEST_CHECK_INT(errs, 1, c == n, "Get_count_c is %lld", (long long)c);
            MPI_Get_count(&st, MPI_BYTE, &ci);
            MTEST_CHECK_INT(errs, MPI_UNDEFINED, ci, "Get_count of more than INT_MAX");
            errs += check(buf, n, "2.5 GiB message");
            MTEST_CHECK_INT(errs, 0x5a, (unsigned char)buf[n], "byte after the message");
            memset(buf, 0, 1 << 20);
            MPI_Request r;
            MPI_Irecv_c(buf, n / 2, MPI_SHORT, 0, 2, MPI_COMM_WORLD, &r);
            MPI_Wait(&r, &st);
            MPI_Get_count_c(&st, MPI_SHORT, &c);
            MTEST_CHECK_INT(errs, 1, c == n / 2, "Get_count_c(MPI_SHORT) is %lld", (long long)c);
            errs += check(buf, n, "MPI_SHORT message");
        }
        free(buf);
    }
    return MTest_Finalize(errs);
}
