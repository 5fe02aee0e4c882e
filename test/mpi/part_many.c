/* part_many.c: several partitioned pairs with the same peer, tag and communicator at once, and
 * ordinary messages with that tag beside them: nothing crosses.  Every rank makes NPAIR
 * partitioned sends toward every rank (itself included) and NPAIR partitioned receives from
 * every rank, all with one tag, each pair with its own size and partition counts; the k-th
 * MPI_Psend_init toward a peer must pair with that peer's k-th MPI_Precv_init, whatever the order
 * the rounds then start in.  Each round starts the requests in a shuffled order (different on
 * every rank), readies the partitions of all of them interleaved at random, and meanwhile
 * ordinary MPI_Isend messages with the same tag go to every rank, received by MPI_Irecv posted
 * before anything else, with the source and tag in even rounds and with MPI_ANY_SOURCE /
 * MPI_ANY_TAG in odd ones: they must receive only the ordinary messages, and each partitioned
 * receive only its own pair's data.  The pairs are then freed and made again (the second time the
 * receives are made before the sends), so the library's reuse of its own names for pairs is crossed
 * too. */
#include "mtest.h"

#include <stdlib.h>
#include <string.h>

#define NPAIR 4
#define ROUNDS 3
#define TAG 5
#define NORD 3 /* ordinary messages per peer per round */
#define ORD_LEN 6

/* Pair k: partitions and count of the send side, partitions of the receive side (the same
 * bytes); the last one's partitions are past every eager limit. */
static const int spart[NPAIR] = {1, 3, 4, 4};
static const int scount[NPAIR] = {7, 10, 9, 40000};
static const int rpart[NPAIR] = {7, 1, 2, 8};

static int total(int k)
{
    return spart[k] * scount[k];
}

static int value(int src, int dst, int k, int round, int phase, int j)
{
    return src * 1000003 + dst * 100003 + k * 10007 + round * 1009 + phase * 101 + j;
}

static unsigned rng_state;
static unsigned rng(void)
{
    rng_state = rng_state * 1103515245u + 12345u;
    return rng_state >> 8;
}

static void shuffle(int *a, int n)
{
    for (int i = n - 1; i > 0; i--) {
        int j = (int)(rng() % (unsigned)(i + 1)), t = a[i];
        a[i] = a[j];
        a[j] = t;
    }
}

static int run_phase(int phase)
{
    int errs = 0, size = mtest_size, rank = mtest_rank;
    int nreq = size * NPAIR;
    MPI_Request *sreq = mtest_malloc(sizeof(MPI_Request) * nreq);
    MPI_Request *rreq = mtest_malloc(sizeof(MPI_Request) * nreq);
    int **sbuf = mtest_malloc(sizeof(int *) * nreq), **rbuf = mtest_malloc(sizeof(int *) * nreq);
    /* Request index peer * NPAIR + k. */
    for (int i = 0; i < nreq; i++) {
        sbuf[i] = mtest_malloc(sizeof(int) * total(i % NPAIR));
        rbuf[i] = mtest_malloc(sizeof(int) * total(i % NPAIR));
    }
    for (int side = 0; side < 2; side++) {
        /* Phase 0 makes the sends first, phase 1 the receives. */
        int make_recv = (side == 0) == (phase == 1);
        for (int peer = 0; peer < size; peer++) {
            for (int k = 0; k < NPAIR; k++) {
                int i = peer * NPAIR + k;
                if (make_recv)
                    MTEST_CHECK_RC(errs,
                                   MPI_Precv_init(rbuf[i], rpart[k], total(k) / rpart[k], MPI_INT,
                                                  peer, TAG, MPI_COMM_WORLD, MPI_INFO_NULL,
                                                  &rreq[i]),
                                   "MPI_Precv_init from %d, pair %d", peer, k);
                else
                    MTEST_CHECK_RC(errs,
                                   MPI_Psend_init(sbuf[i], spart[k], scount[k], MPI_INT, peer, TAG,
                                                  MPI_COMM_WORLD, MPI_INFO_NULL, &sreq[i]),
                                   "MPI_Psend_init to %d, pair %d", peer, k);
            }
        }
    }
    int nord = size * NORD;
    int *ord_out = mtest_malloc(sizeof(int) * nord * ORD_LEN);
    int *ord_in = mtest_malloc(sizeof(int) * nord * ORD_LEN);
    MPI_Request *oreq = mtest_malloc(sizeof(MPI_Request) * 2 * nord);
    MPI_Status *ost = mtest_malloc(sizeof(MPI_Status) * 2 * nord);
    int *order = mtest_malloc(sizeof(int) * 2 * nreq);
    int nparts = 0;
    for (int i = 0; i < nreq; i++)
        nparts += spart[i % NPAIR];
    int *ready = mtest_malloc(sizeof(int) * nparts);

    for (int round = 0; round < ROUNDS; round++) {
        /* Ordinary receives first: the wildcards would take any message that reached them. */
        int any = round % 2 == 1;
        for (int m = 0; m < nord; m++)
            MPI_Irecv(ord_in + m * ORD_LEN, ORD_LEN, MPI_INT, any ? MPI_ANY_SOURCE : m / NORD,
                      any ? MPI_ANY_TAG : TAG, MPI_COMM_WORLD, &oreq[m]);
        for (int i = 0; i < nreq; i++) {
            int peer = i / NPAIR, k = i % NPAIR;
            for (int j = 0; j < total(k); j++) {
                sbuf[i][j] = value(rank, peer, k, round, phase, j);
                rbuf[i][j] = -1;
            }
        }
        /* Start the sends and receives in one shuffled order. */
        for (int i = 0; i < 2 * nreq; i++)
            order[i] = i;
        shuffle(order, 2 * nreq);
        for (int i = 0; i < 2 * nreq; i++)
            MPI_Start(order[i] < nreq ? &sreq[order[i]] : &rreq[order[i] - nreq]);
        /* Half the ordinary sends now, half after the partitions. */
        for (int m = 0; m < nord; m++) {
            int *msg = ord_out + m * ORD_LEN;
            for (int j = 0; j < ORD_LEN; j++)
                msg[j] = -value(rank, m / NORD, NPAIR + m % NORD, round, phase, j);
        }
        for (int m = 0; m < nord; m += 2)
            MPI_Isend(ord_out + m * ORD_LEN, ORD_LEN, MPI_INT, m / NORD, TAG, MPI_COMM_WORLD,
                      &oreq[nord + m]);
        int n = 0;
        for (int i = 0; i < nreq; i++)
            for (int p = 0; p < spart[i % NPAIR]; p++)
                ready[n++] = i * 1000 + p;
        shuffle(ready, n);
        for (int r = 0; r < n; r++)
            MPI_Pready(ready[r] % 1000, sreq[ready[r] / 1000]);
        for (int m = 1; m < nord; m += 2)
            MPI_Isend(ord_out + m * ORD_LEN, ORD_LEN, MPI_INT, m / NORD, TAG, MPI_COMM_WORLD,
                      &oreq[nord + m]);
        MPI_Waitall(nreq, rreq, MPI_STATUSES_IGNORE);
        MPI_Waitall(nreq, sreq, MPI_STATUSES_IGNORE);
        MPI_Waitall(2 * nord, oreq, ost);
        /* A peer already in the next round would send ordinary messages that the wildcards of
         * a slower rank may take (allowed); the rounds with wildcards end together. */
        if (any)
            MPI_Barrier(MPI_COMM_WORLD);

        for (int i = 0; i < nreq; i++) {
            int peer = i / NPAIR, k = i % NPAIR;
            for (int j = 0; j < total(k); j++) {
                int want = value(peer, rank, k, round, phase, j);
                if (rbuf[i][j] != want) {
                    MTEST_FAIL(errs,
                               "phase %d round %d: pair %d from %d, int %d: expected %d, saw %d",
                               phase, round, k, peer, j, want, rbuf[i][j]);
                    break;
                }
            }
        }
        /* The ordinary messages: from each peer, NORD with the ordinary marker (negative). */
        for (int m = 0; m < nord; m++) {
            const int *msg = ord_in + m * ORD_LEN;
            int cnt = -1, src = ost[m].MPI_SOURCE;
            MPI_Get_count(&ost[m], MPI_INT, &cnt);
            MTEST_CHECK_INT(errs, ORD_LEN, cnt, "ordinary receive %d: count", m);
            MTEST_CHECK_INT(errs, TAG, ost[m].MPI_TAG, "ordinary receive %d: tag", m);
            if (src < 0 || src >= size) {
                MTEST_FAIL(errs, "ordinary receive %d: source %d", m, src);
                continue;
            }
            int d = -msg[0] - value(src, rank, NPAIR, round, phase, 0), seq = d / 10007;
            if (d % 10007 || seq < 0 || seq >= NORD ||
                msg[1] != -value(src, rank, NPAIR + seq, round, phase, 1))
                MTEST_FAIL(errs,
                           "ordinary receive %d from %d: not an ordinary message of this "
                           "round (%d %d ...)",
                           m, src, msg[0], msg[1]);
        }
    }
    for (int i = 0; i < nreq; i++) {
        MPI_Request_free(&sreq[i]);
        MPI_Request_free(&rreq[i]);
        free(sbuf[i]);
        free(rbuf[i]);
    }
    free(sreq);
    free(rreq);
    free(sbuf);
    free(rbuf);
    free(ord_out);
    free(ord_in);
    free(oreq);
    free(ost);
    free(order);
    free(ready);
    return errs;
}

int main(int argc, char **argv)
{
    int errs = 0;
    MTest_Init(&argc, &argv);
    rng_state = 777u + 31u * (unsigned)mtest_rank;
    /* No barrier between the phases: a rank's second pairs may begin while its peers still
     * finish their first. */
    for (int phase = 0; phase < 2; phase++)
        errs += run_phase(phase);
    return MTest_Finalize(errs);
}
