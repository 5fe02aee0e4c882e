/* thread_multiple.c: MPI_THREAD_MULTIPLE: several threads of every rank call MPI at once.
 * Each phase starts all threads together and joins them:
 *   ring:      every thread exchanges with the same thread of the neighbour ranks, blocking
 *              Sendrecv on its own tag, small and rendezvous-sized messages alternating;
 *   coll:      every thread runs Allreduce, Bcast and Barrier on a communicator of its own;
 *   self:      one thread blocks in MPI_Recv from its own rank while another thread sends it
 *              (synchronous send, so each waits for the other), both orders;
 *   anysource: every thread sends K messages to the right neighbour and receives K with
 *              MPI_ANY_SOURCE on one shared tag: each message arrives once, and what one
 *              receiving thread gets from one sending thread comes in that sender's order;
 *   mprobe:    the same with MPI_Mprobe + MPI_Mrecv, where no thread may take another's message;
 *   dup:       every thread duplicates, splits and frees its own communicator, at once (the
 *              context-id agreements overlap), and is not the main thread for
 *              MPI_Is_thread_main.
 * Built against an MPI that does not provide MPI_THREAD_MULTIPLE it says so and checks
 * nothing more. */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include "mtest.h"

#define NT 4      /* threads per rank */
#define K 40      /* messages per thread in the any-source phases */
#define BIG 20000 /* ints: a rendezvous-sized message */

static MPI_Comm comms[NT];
static int errs[NT];
static int left, right;

typedef void (*phase_fn)(int t);

static void *run_thread(void *arg)
{
    void **a = arg;
    ((phase_fn)a[0])((int)(intptr_t)a[1]);
    return NULL;
}

/* Runs fn(t) on NT threads at once and waits for them. */
static void run_phase(phase_fn fn)
{
    pthread_t th[NT];
    void *args[NT][2];
    for (int t = 0; t < NT; t++) {
        args[t][0] = (void *)fn;
        args[t][1] = (void *)(intptr_t)t;
        pthread_create(&th[t], NULL, run_thread, args[t]);
    }
    for (int t = 0; t < NT; t++)
        pthread_join(th[t], NULL);
}

static void ring(int t)
{
    int *out = malloc(sizeof(int) * BIG), *in = malloc(sizeof(int) * BIG);
    for (int i = 0; i < 20; i++) {
        int n = i % 2 ? BIG : 2;
        for (int j = 0; j < n; j++)
            out[j] = mtest_rank * 100000 + t * 1000 + i + j;
        MPI_Status st;
        int rc =
            MPI_Sendrecv(out, n, MPI_INT, right, t, in, n, MPI_INT, left, t, MPI_COMM_WORLD, &st);
        MTEST_CHECK_RC(errs[t], rc, "thread %d: MPI_Sendrecv %d", t, i);
        for (int j = 0; j < n; j++)
            if (in[j] != left * 100000 + t * 1000 + i + j) {
                MTEST_FAIL(errs[t], "thread %d: message %d element %d is %d, expected %d", t, i, j,
                           in[j], left * 100000 + t * 1000 + i + j);
                break;
            }
    }
    free(out);
    free(in);
}

static void coll(int t)
{
    for (int i = 0; i < 20; i++) {
        int v = mtest_rank + t + i, sum = -1;
        MPI_Allreduce(&v, &sum, 1, MPI_INT, MPI_SUM, comms[t]);
        MTEST_CHECK_INT(errs[t], mtest_size * (mtest_size - 1) / 2 + mtest_size * (t + i), sum,
                        "thread %d: Allreduce %d", t, i);
        int root = (i + t) % mtest_size, b = mtest_rank == root ? 1000 * t + i : -1;
        MPI_Bcast(&b, 1, MPI_INT, root, comms[t]);
        MTEST_CHECK_INT(errs[t], 1000 * t + i, b, "thread %d: Bcast %d from %d", t, i, root);
        MPI_Barrier(comms[t]);
    }
}

/* Thread 0 receives from its own rank what thread 1 sends; in the second round thread 1 is
 * late by a few calls. */
static void self(int t)
{
    if (t > 1)
        return;
    for (int round = 0; round < 2; round++) {
        int v = 77 + round, got = -1;
        if (t == 0) {
            MPI_Status st;
            MPI_Recv(&got, 1, MPI_INT, mtest_rank, 500 + round, MPI_COMM_WORLD, &st);
            MTEST_CHECK_INT(errs[t], 77 + round, got, "thread 0: message from thread 1");
        } else {
            for (int i = 0; round == 1 && i < 1000; i++) {
                int flag;
                MPI_Iprobe(MPI_ANY_SOURCE, 999, MPI_COMM_WORLD, &flag, MPI_STATUS_IGNORE);
            }
            MPI_Ssend(&v, 1, MPI_INT, mtest_rank, 500 + round, MPI_COMM_WORLD);
        }
    }
}

/* counts[t][s]: messages of left's thread s that thread t received; last[t][s] its last seq. */
static int counts[NT][NT], last[NT][NT];
static pthread_mutex_t count_lock = PTHREAD_MUTEX_INITIALIZER;
static int total[NT][K];

static void account(int t, const int msg[3])
{
    int src_rank = msg[0], s = msg[1], seq = msg[2];
    if (src_rank != left || s < 0 || s >= NT || seq < 0 || seq >= K) {
        MTEST_FAIL(errs[t], "thread %d: message (%d, %d, %d) from nowhere", t, src_rank, s, seq);
        return;
    }
    if (counts[t][s] > 0 && seq <= last[t][s])
        MTEST_FAIL(errs[t], "thread %d: message %d of thread %d after its message %d", t, seq, s,
                   last[t][s]);
    counts[t][s]++;
    last[t][s] = seq;
    pthread_mutex_lock(&count_lock);
    total[s][seq]++;
    pthread_mutex_unlock(&count_lock);
}

static void send_k(int t, int tag, MPI_Request *reqs, int msgs[][3])
{
    for (int i = 0; i < K; i++) {
        msgs[i][0] = mtest_rank;
        msgs[i][1] = t;
        msgs[i][2] = i;
        MPI_Isend(msgs[i], 3, MPI_INT, right, tag, MPI_COMM_WORLD, &reqs[i]);
    }
}

static void anysource(int t)
{
    MPI_Request reqs[K];
    int msgs[K][3];
    send_k(t, 600, reqs, msgs);
    for (int i = 0; i < K; i++) {
        int msg[3];
        MPI_Status st;
        MPI_Recv(msg, 3, MPI_INT, MPI_ANY_SOURCE, 600, MPI_COMM_WORLD, &st);
        MTEST_CHECK_INT(errs[t], left, st.MPI_SOURCE, "thread %d: source", t);
        account(t, msg);
    }
    MPI_Waitall(K, reqs, MPI_STATUSES_IGNORE);
}

static void mprobe(int t)
{
    MPI_Request reqs[K];
    int msgs[K][3];
    send_k(t, 700, reqs, msgs);
    for (int i = 0; i < K; i++) {
        int msg[3], count = -1;
        MPI_Message m;
        MPI_Status st;
        MPI_Mprobe(MPI_ANY_SOURCE, 700, MPI_COMM_WORLD, &m, &st);
        MPI_Get_count(&st, MPI_INT, &count);
        MTEST_CHECK_INT(errs[t], 3, count, "thread %d: probed count", t);
        MPI_Mrecv(msg, 3, MPI_INT, &m, &st);
        account(t, msg);
    }
    MPI_Waitall(K, reqs, MPI_STATUSES_IGNORE);
}

static void dup(int t)
{
    int flag = 1;
    MPI_Is_thread_main(&flag);
    MTEST_CHECK_INT(errs[t], 0, flag, "thread %d: MPI_Is_thread_main", t);
    for (int i = 0; i < 5; i++) {
        MPI_Comm d, s;
        MPI_Comm_dup(comms[t], &d);
        MPI_Comm_split(d, mtest_rank % 2, -mtest_rank, &s);
        int v = 1, sum = 0, ssize;
        MPI_Comm_size(s, &ssize);
        MPI_Allreduce(&v, &sum, 1, MPI_INT, MPI_SUM, s);
        MTEST_CHECK_INT(errs[t], ssize, sum, "thread %d: Allreduce on a split of a duplicate", t);
        MPI_Comm_free(&s);
        MPI_Comm_free(&d);
    }
}

/* After an any-source phase: every message of the left rank came exactly once. */
static void check_totals(const char *phase)
{
    for (int s = 0; s < NT; s++)
        for (int i = 0; i < K; i++) {
            if (total[s][i] != 1)
                MTEST_FAIL(errs[0], "%s: message %d of the left rank's thread %d arrived %d times",
                           phase, i, s, total[s][i]);
            total[s][i] = 0;
        }
    memset(counts, 0, sizeof(counts));
}

int main(int argc, char **argv)
{
    int provided = -1;
    MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
    MPI_Comm_rank(MPI_COMM_WORLD, &mtest_rank);
    MPI_Comm_size(MPI_COMM_WORLD, &mtest_size);
    setvbuf(stdout, NULL, _IOLBF, 0);
    if (provided != MPI_THREAD_MULTIPLE) {
#ifdef FERRY_VERSION
        MTEST_FAIL(errs[0], "MPI_THREAD_MULTIPLE asked, %d provided", provided);
#else
        if (mtest_rank == 0)
            printf("note: this MPI provides thread level %d; nothing checked\n", provided);
#endif
        return MTest_Finalize(errs[0]);
    }
    left = (mtest_rank + mtest_size - 1) % mtest_size;
    right = (mtest_rank + 1) % mtest_size;
    for (int t = 0; t < NT; t++)
        MPI_Comm_dup(MPI_COMM_WORLD, &comms[t]);
    int flag = 0;
    MPI_Is_thread_main(&flag);
    MTEST_CHECK_INT(errs[0], 1, flag, "MPI_Is_thread_main on the main thread");

    run_phase(ring);
    run_phase(coll);
    run_phase(self);
    MPI_Barrier(MPI_COMM_WORLD);
    run_phase(anysource);
    check_totals("anysource");
    MPI_Barrier(MPI_COMM_WORLD);
    run_phase(mprobe);
    check_totals("mprobe");
    run_phase(dup);

    for (int t = 0; t < NT; t++)
        MPI_Comm_free(&comms[t]);
    int sum = 0;
    for (int t = 0; t < NT; t++)
        sum += errs[t];
    return MTest_Finalize(sum);
}
