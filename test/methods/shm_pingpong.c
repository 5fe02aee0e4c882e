/* shm_pingpong.c: standalone test of the shm method: fork()ed ranks, pipe barrier, hand-made job.
 *
 * Checks 8-byte ping-pong latency, FIFO/content/header integrity under an
 * all-to-all flood and a many-to-one flood (with MPIDI_AGAIN retries),
 * argument errors, rdma_get/rdma_put through CMA (or its absence), and that
 * nothing is left in /dev/shm, also when ranks are killed after post_init.
 *
 * usage: shm_pingpong [-n nprocs] [-p roundtrips] [-m flood_msgs_per_rank]
 *                     [-o msgs_per_sender_to_rank0] [-r rdma_MiB] [-t max_flood_len]
 *                     [-a] [-x] [-d] [-k 1|2] [-g] [-w] [-c] [-s]
 *   -t  flood payloads of at most this many bytes (default: up to the eager limit)
 *   -a  require that some am_send returned MPIDI_AGAIN (use with a small pool)
 *   -w  require that the rings wrapped around and were found full (a small
 *       FERRY_SHM_RING_SIZE), and that messages went through both rings and cells
 *   -c  require that no message went through a ring (FERRY_SHM_RING_SIZE=0)
 *   -s  rdma_get with a cookie, as the core calls it: the read is shared with
 *       its peer (FERRY_SHM_CMA_SPLIT) and may complete through MPIDU_op_done;
 *       require that it was shared
 *   -x  expect CMA off (FERRY_SHM_CMA=0): caps without READ/WRITE, rdma_get fails
 *   -d  CMA denied at run time: the target is non-dumpable, the reader drops
 *       privileges; the first rdma_get must fail with EPERM, later ones too
 *   -k1 the last rank dies by SIGKILL after post_init; -k2 every rank does
 *   -g  the last rank uses another FERRY_SHM_NUM_CELLS: post_init must fail
 *   -b  bind the two ping-pong ranks to different cores
 *   -e  expect init to fail (bad tunables) and leave nothing behind
 * Prints " No Errors" and exits 0 on success. */
#include <dirent.h>
#include <errno.h>
#include <sched.h>
#include <signal.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "method.h"
#include "mpi.h"
#include "segment.h"

extern const MPIDI_method_ops_t MPIDI_shm_ops;

/* ---- options ---- */
static int nprocs = 2;
static long pp_iters = 100000;
static long flood_msgs = 3000;
static long m2o_msgs = 1000;
static long rdma_mib = 64;
static int bind_cpus;
static int expect_init_error;
static int want_again, expect_no_cma, cma_deny, kill_mode, geometry_mismatch;
static int want_ring_limits, want_no_ring;
static long max_flood_len = -1;

/* ---- per-rank state ---- */
static int me;
static int failures;
static int quiet_errors; /* expected errors: do not print them */
static int errors_created;
static char last_error[512];
static char kvsname[128];
static MPIDI_method_caps_t caps;
static unsigned char **pattern; /* pattern[s]: the bytes rank s sends from */
static size_t pattern_len;
static uint32_t *expect_seq; /* next flood sequence expected from each rank */
static long *received_from;
static long received_total;
static long pongs;
static uint64_t rdma_info[3];
static int rdma_info_seen, rdma_done_seen;

/* Statistics shared with the parent (an anonymous shared mapping made before fork). */
typedef struct {
    long again;
    long received;
    double latency_us;
    unsigned long ring_sent, ring_full, ring_wrap, cell_sent; /* the method's counters */
} stats_t;
static stats_t *stats;

#define FAIL(...)                                                                                  \
    do {                                                                                           \
        fprintf(stderr, "[rank %d] FAIL %s:%d: ", me, __FILE__, __LINE__);                         \
        fprintf(stderr, __VA_ARGS__);                                                              \
        fputc('\n', stderr);                                                                       \
        failures++;                                                                                \
    } while (0)

enum { H_PING = 1, H_PONG, H_FLOOD, H_RDMA_INFO, H_RDMA_DONE };

/* Flood header: fixed part then filler bytes derived from (src, seq). */
typedef struct {
    uint32_t magic, src, dst, seq, len, off, hdr_len, phase;
} test_hdr_t;
#define TEST_MAGIC 0x5e7f00d5u

static unsigned char filler(uint32_t src, uint32_t seq, size_t k)
{
    return (unsigned char)(src * 17 + seq * 3 + k * 101);
}

/* ---- upcalls the core would provide ---- */

void MPIDU_am_dispatch(int peer, int handler, const void *hdr, size_t hdr_len, const void *payload,
                       size_t payload_len)
{
    switch (handler) {
    case H_PING:
    case H_PONG:
        if (hdr_len != 32 || payload_len != 8)
            FAIL("ping-pong message from %d: hdr %zu payload %zu", peer, hdr_len, payload_len);
        pongs++;
        return;
    case H_RDMA_INFO:
        memcpy(rdma_info, payload, sizeof(rdma_info));
        rdma_info_seen = 1;
        return;
    case H_RDMA_DONE:
        rdma_done_seen = 1;
        return;
    case H_FLOOD:
        break;
    default:
        FAIL("unknown handler %d from rank %d", handler, peer);
        return;
    }

    test_hdr_t h;
    if (hdr_len < sizeof(h)) {
        FAIL("flood header from rank %d has %zu bytes", peer, hdr_len);
        return;
    }
    memcpy(&h, hdr, sizeof(h));
    if (h.magic != TEST_MAGIC || (int)h.src != peer || (int)h.dst != me || h.hdr_len != hdr_len ||
        h.len != payload_len) {
        FAIL("flood header from rank %d: magic %x src %u dst %u hdr_len %u/%zu len %u/%zu", peer,
             h.magic, h.src, h.dst, h.hdr_len, hdr_len, h.len, payload_len);
        return;
    }
    if (h.seq != expect_seq[peer])
        FAIL("FIFO broken: from rank %d got seq %u, expected %u", peer, h.seq, expect_seq[peer]);
    expect_seq[peer] = h.seq + 1;
    for (size_t k = sizeof(h); k < hdr_len; k++)
        if (((const unsigned char *)hdr)[k] != filler(h.src, h.seq, k)) {
            FAIL("header byte %zu of seq %u from rank %d is %u, expected %u", k, h.seq, peer,
                 ((const unsigned char *)hdr)[k], filler(h.src, h.seq, k));
            break;
        }
    if (payload_len && memcmp(payload, pattern[peer] + h.off, payload_len) != 0) {
        size_t k = 0;
        while (((const unsigned char *)payload)[k] == pattern[peer][h.off + k])
            k++;
        FAIL("payload of seq %u from rank %d (len %zu) differs at byte %zu: %u, expected %u", h.seq,
             peer, payload_len, k, ((const unsigned char *)payload)[k], pattern[peer][h.off + k]);
    }
    received_from[peer]++;
    received_total++;
}

/* -s: rdma_get passes &op_cookie and waits for op_done_calls. */
static int shared_read;
static int op_cookie, op_done_calls, op_done_err;

void MPIDU_op_done(void *cookie, int mpi_errno)
{
    if (!shared_read || cookie != &op_cookie)
        FAIL("MPIDU_op_done(%p, %d) called for no rdma_get in flight", cookie, mpi_errno);
    op_done_calls++;
    op_done_err = mpi_errno;
}

void MPIDU_peer_failed(int peer, int mpi_errno, const char *msg)
{
    FAIL("peer %d failed (%d): %s", peer, mpi_errno, msg);
}

int MPIDU_err_create(int errclass, const char *fmt, ...)
{
    va_list ap;
    errors_created++;
    va_start(ap, fmt);
    vsnprintf(last_error, sizeof(last_error), fmt, ap);
    va_end(ap);
    if (!quiet_errors) {
        fprintf(stderr, "[rank %d] error class %d: ", me, errclass);
        va_start(ap, fmt);
        vfprintf(stderr, fmt, ap);
        va_end(ap);
        fputc('\n', stderr);
    }
    return errclass;
}

long MPIDU_config_int(const char *name)
{
    long def;
    if (strcmp(name, "FERRY_SHM_CELL_SIZE") == 0)
        def = 65536;
    else if (strcmp(name, "FERRY_SHM_NUM_CELLS") == 0)
        def = 64;
    else if (strcmp(name, "FERRY_VERBOSE") == 0)
        def = 0;
    else if (strcmp(name, "FERRY_SHM_CMA") == 0 || strcmp(name, "FERRY_SHM_RING_PREFAULT") == 0)
        def = 1;
    else if (strcmp(name, "FERRY_SHM_RING_SIZE") == 0 || strcmp(name, "FERRY_SHM_RING_MAX") == 0 ||
             strcmp(name, "FERRY_SHM_CMA_SPLIT") == 0 || strcmp(name, "FERRY_SHM_EAGER_LIMIT") == 0)
        def = -1;
    else if (strcmp(name, "FERRY_SHM_LIVENESS_MS") == 0)
        def = 200;
    else {
        fprintf(stderr, "unknown config variable %s\n", name);
        abort();
    }
    const char *v = getenv(name);
    return v ? strtol(v, NULL, 0) : def;
}

const char *MPIDU_config_str(const char *name)
{
    return getenv(name);
}

int MPIDU_config_is_set(const char *name)
{
    return getenv(name) != NULL;
}

/* The counters the method registers (the core's table, reduced to what the
 * test reads). */
static struct {
    const char *name;
    const unsigned long *counter;
} counters[16];
static int ncounters;

int MPIDU_stat_register(const char *name, const unsigned long *counter_p)
{
    for (int i = 0; i < ncounters; i++)
        if (strcmp(counters[i].name, name) == 0)
            return MPIDU_err_create(MPI_ERR_INTERN, "counter %s registered twice", name);
    if (ncounters == (int)(sizeof(counters) / sizeof(counters[0])))
        return MPIDU_err_create(MPI_ERR_INTERN, "too many counters for the test (%s)", name);
    counters[ncounters].name = name;
    counters[ncounters].counter = counter_p;
    ncounters++;
    return MPI_SUCCESS;
}

static unsigned long counter(const char *name)
{
    for (int i = 0; i < ncounters; i++)
        if (strcmp(counters[i].name, name) == 0)
            return *counters[i].counter;
    FAIL("the method registered no counter %s", name);
    return 0;
}

/* ---- contiguous segment (segment.h) ---- */

/* segment.h sets up a segment of a contiguous predefined type inline, from
 * the table of predefined types: the one this test uses. */
MPIR_Datatype MPIR_Datatype_builtins[MPIR_DT_BUILTIN_COUNT] = {
    [MPI_BYTE & MPIR_DT_INDEX_MASK] = {.handle = MPI_BYTE,
                                       .kind = MPIR_DT_BUILTIN,
                                       .committed = 1,
                                       .size = 1,
                                       .ub = 1,
                                       .extent = 1,
                                       .true_ub = 1,
                                       .is_contig = 1},
};

int MPIR_Segment_init_any(MPIR_Segment *seg, const void *buf, MPI_Aint count, MPI_Datatype type)
{
    seg->buf = (char *)buf;
    seg->size = (size_t)count;
    seg->type = type;
    seg->count = count;
    seg->is_contig = 1;
    return MPI_SUCCESS;
}

size_t MPIR_Segment_pack_any(const MPIR_Segment *seg, size_t first, size_t last, void *dst)
{
    if (last > seg->size)
        last = seg->size;
    if (first >= last)
        return 0;
    memcpy(dst, seg->buf + first, last - first);
    return last - first;
}

size_t MPIR_Segment_unpack_any(const MPIR_Segment *seg, size_t first, size_t last,
                               const void *src)
{
    if (last > seg->size)
        last = seg->size;
    if (first >= last)
        return 0;
    memcpy(seg->buf + first, src, last - first);
    return last - first;
}

void *MPIR_Segment_contig_ptr(const MPIR_Segment *seg, size_t first)
{
    return seg->buf + first;
}

/* ---- helpers ---- */

static int up_fd, down_fd; /* this rank's ends of the barrier pipes */

static void barrier(void)
{
    char c = 'b';
    if (write(up_fd, &c, 1) != 1 || read(down_fd, &c, 1) != 1) {
        fprintf(stderr, "[rank %d] barrier pipe failed: %s\n", me, strerror(errno));
        _exit(3);
    }
}

static uint64_t rng_state;
static uint64_t rnd(void)
{
    rng_state ^= rng_state << 13;
    rng_state ^= rng_state >> 7;
    rng_state ^= rng_state << 17;
    return rng_state;
}

static double now_us(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1e6 + ts.tv_nsec / 1e3;
}

static int progress(void)
{
    int made = 0;
    int rc = MPIDI_shm_ops.progress(&made);
    if (rc != MPI_SUCCESS) {
        FAIL("progress returned %d", rc);
        _exit(4);
    }
    return made;
}

/* Sends, retrying on MPIDI_AGAIN while progressing (so two ranks that both
 * run out of cells still drain each other). */
static void send_retry(int peer, int handler, const void *hdr, size_t hdr_len,
                       const MPIR_Segment *seg, size_t first, size_t last)
{
    for (;;) {
        int rc = MPIDI_shm_ops.am_send(peer, handler, hdr, hdr_len, seg, first, last, 0, NULL);
        if (rc == MPI_SUCCESS)
            return;
        if (rc != MPIDI_AGAIN) {
            FAIL("am_send to %d (handler %d, %zu+%zu bytes) returned %d", peer, handler, hdr_len,
                 last - first, rc);
            _exit(4);
        }
        stats[me].again++;
        if (!progress())
            sched_yield();
    }
}

/* ---- test phases ---- */

static void pingpong(void)
{
    char hdr[32] = {0};
    uint64_t payload = 0x0123456789abcdefULL;
    MPIR_Segment seg;
    long warm = pp_iters / 10 + 100;
    double t0 = 0;

    MPIR_Segment_init(&seg, &payload, sizeof(payload), MPI_BYTE);
    if (me > 1)
        return;
    if (bind_cpus) {
        /* One core each, so the measurement does not include migrations. */
        cpu_set_t set;
        CPU_ZERO(&set);
        CPU_SET(me % sysconf(_SC_NPROCESSORS_ONLN), &set);
        if (sched_setaffinity(0, sizeof(set), &set) != 0)
            fprintf(stderr, "[rank %d] sched_setaffinity: %s\n", me, strerror(errno));
    }
    pongs = 0;
    for (long it = 0; it < warm + pp_iters; it++) {
        if (it == warm)
            t0 = now_us();
        if (me == 0) {
            send_retry(1, H_PING, hdr, sizeof(hdr), &seg, 0, sizeof(payload));
            while (pongs <= it)
                progress();
        } else {
            while (pongs <= it)
                progress();
            send_retry(0, H_PONG, hdr, sizeof(hdr), &seg, 0, sizeof(payload));
        }
    }
    double us = (now_us() - t0) / (2.0 * pp_iters);
    stats[me].latency_us = us;
    if (me == 0)
        printf("pingpong: %d ranks, 32 B header + 8 B payload, %ld round trips: %.3f us one-way\n",
               nprocs, pp_iters, us);
}

static test_hdr_t *make_flood_msg(unsigned char *hbuf, int dst, uint32_t seq, size_t *len_p,
                                  size_t *off_p)
{
    test_hdr_t *h = (test_hdr_t *)hbuf;
    size_t hdr_len = sizeof(*h) + rnd() % (caps.max_hdr - sizeof(*h) + 1);
    /* Half small (ring-sized), half anywhere up to max_send (or -t): what one am_send carries,
     * above the core's eager limit. */
    size_t max = max_flood_len >= 0 && (size_t)max_flood_len < caps.max_send
                     ? (size_t)max_flood_len
                     : caps.max_send;
    size_t len = (rnd() & 1) ? rnd() % 600 : rnd() % (max + 1);
    if (len > max)
        len = max;
    size_t off = (seq * 7u) % 256;

    h->magic = TEST_MAGIC;
    h->src = me;
    h->dst = dst;
    h->seq = seq;
    h->len = len;
    h->off = off;
    h->hdr_len = hdr_len;
    h->phase = 0;
    for (size_t k = sizeof(*h); k < hdr_len; k++)
        hbuf[k] = filler(me, seq, k);
    *len_p = len;
    *off_p = off;
    return h;
}

/* Every rank sends to_send[d] messages to each d and expects expect_from[s]
 * from each s; runs until both are done. */
static void flood(const char *name, const long *to_send, const long *expect_from)
{
    long total_send = 0, total_expect = 0, sent = 0;
    long *sent_to = calloc(nprocs, sizeof(long));
    uint32_t *seq_to = calloc(nprocs, sizeof(uint32_t));
    unsigned char hbuf[64];
    MPIR_Segment seg;
    double t0 = now_us();

    MPIR_Segment_init(&seg, pattern[me], pattern_len, MPI_BYTE);
    for (int r = 0; r < nprocs; r++) {
        total_send += to_send[r];
        total_expect += expect_from[r];
        received_from[r] = 0;
    }
    received_total = 0;
    memset(expect_seq, 0, sizeof(uint32_t) * nprocs); /* each flood numbers from 0 */

    while (sent < total_send || received_total < total_expect) {
        int did = 0;
        if (sent < total_send) {
            int d;
            do
                d = rnd() % nprocs;
            while (sent_to[d] >= to_send[d]);
            size_t len, off;
            test_hdr_t *h = make_flood_msg(hbuf, d, seq_to[d], &len, &off);
            int rc =
                MPIDI_shm_ops.am_send(d, H_FLOOD, hbuf, h->hdr_len, &seg, off, off + len, 0, NULL);
            if (rc == MPI_SUCCESS) {
                seq_to[d]++;
                sent_to[d]++;
                sent++;
                did = 1;
            } else if (rc == MPIDI_AGAIN) {
                stats[me].again++;
            } else {
                FAIL("%s: am_send to %d of %zu bytes returned %d", name, d, len, rc);
                _exit(4);
            }
        }
        if (progress())
            did = 1;
        if (!did)
            sched_yield(); /* more ranks than cores: let the others run */
    }
    for (int r = 0; r < nprocs; r++)
        if (received_from[r] != expect_from[r])
            FAIL("%s: received %ld messages from rank %d, expected %ld", name, received_from[r], r,
                 expect_from[r]);
    stats[me].received += received_total;
    if (me == 0)
        printf("%s: %d ranks, rank 0 sent %ld and received %ld messages in %.1f ms\n", name, nprocs,
               sent, received_total, (now_us() - t0) / 1e3);
    free(sent_to);
    free(seq_to);
}

static void check_arg_errors(void)
{
    unsigned char hdr[128] = {0};
    static unsigned char big[1 << 20];
    MPIR_Segment seg;
    int peer = (me + 1) % nprocs;

    MPIR_Segment_init(&seg, pattern[me], pattern_len, MPI_BYTE);
    quiet_errors = 1;
    int rc = MPIDI_shm_ops.am_send(peer, H_FLOOD, hdr, caps.max_hdr + 1, NULL, 0, 0, 0, NULL);
    if (rc == MPI_SUCCESS || rc == MPIDI_AGAIN)
        FAIL("am_send with a %zu-byte header returned %d, expected an error", caps.max_hdr + 1, rc);
    if (caps.max_send + 1 <= sizeof(big)) {
        MPIR_Segment_init(&seg, big, sizeof(big), MPI_BYTE);
        rc = MPIDI_shm_ops.am_send(peer, H_FLOOD, hdr, 32, &seg, 0, caps.max_send + 1, 0, NULL);
        if (rc == MPI_SUCCESS || rc == MPIDI_AGAIN)
            FAIL("am_send of max_send+1 = %zu bytes returned %d, expected an error",
                 caps.max_send + 1, rc);
    }
    rc = MPIDI_shm_ops.am_send(me, H_FLOOD, hdr, 32, NULL, 0, 0, 0, NULL);
    if (rc == MPI_SUCCESS || rc == MPIDI_AGAIN)
        FAIL("am_send to self returned %d, expected an error", rc);
    quiet_errors = 0;
}

static void rdma_test(void)
{
    size_t len = (size_t)rdma_mib << 20;
    int cma = (caps.rndv_modes & (MPIDI_RNDV_READ | MPIDI_RNDV_WRITE)) != 0;

    if (me > 1 || len == 0)
        return;
    if (me == 1) {
        unsigned char *a = malloc(len), *b = calloc(len, 1);
        for (size_t i = 0; i < len; i++)
            a[i] = (unsigned char)(i * 7 + (i >> 12));
        if (cma_deny && prctl(PR_SET_DUMPABLE, 0) != 0)
            FAIL("prctl(PR_SET_DUMPABLE, 0): %s", strerror(errno));
        uint64_t info[3] = {(uintptr_t)a, (uintptr_t)b, len};
        MPIR_Segment seg;
        MPIR_Segment_init(&seg, info, sizeof(info), MPI_BYTE);
        send_retry(0, H_RDMA_INFO, "info", 4, &seg, 0, sizeof(info));
        while (!rdma_done_seen)
            if (!progress())
                sched_yield();
        if (cma && !cma_deny)
            for (size_t i = 0; i < len; i++)
                if (b[i] != (unsigned char)(i * 13 + 1)) {
                    FAIL("rdma_put: byte %zu is %u, expected %u", i, b[i],
                         (unsigned char)(i * 13 + 1));
                    break;
                }
        free(a);
        free(b);
        return;
    }

    while (!rdma_info_seen)
        if (!progress())
            sched_yield();
    unsigned char *l = malloc(len);
    memset(l, 0xee, len);
    if (expect_no_cma || cma_deny) {
        if (cma_deny && geteuid() == 0 && setresuid(65534, 65534, 65534) != 0)
            FAIL("setresuid(nobody): %s", strerror(errno));
        quiet_errors = 1;
        int before = errors_created;
        int rc = MPIDI_shm_ops.rdma_get(1, l, len, NULL, rdma_info[0], 0, NULL);
        char first_error[512];
        snprintf(first_error, sizeof(first_error), "%s", last_error);
        int rc2 = MPIDI_shm_ops.rdma_put(1, l, len, NULL, rdma_info[1], 0, NULL);
        int rc3 = MPIDI_shm_ops.rdma_get(1, l, len, NULL, rdma_info[0], 0, NULL);
        quiet_errors = 0;
        if (rc == MPI_SUCCESS || rc == MPIDI_AGAIN || rc2 == MPI_SUCCESS || rc2 == MPIDI_AGAIN ||
            rc3 == MPI_SUCCESS || rc3 == MPIDI_AGAIN || errors_created != before + 3)
            FAIL("rdma without CMA returned %d %d %d (%d errors created), expected 3 errors", rc,
                 rc2, rc3, errors_created - before);
        else
            printf("rdma: CMA %s: rdma_get/rdma_put fail cleanly (class %d: %s)\n",
                   cma_deny ? "denied at run time" : "off", rc, first_error);
        if (cma_deny && geteuid() != 0 && !strstr(first_error, "errno 1)"))
            FAIL("the first refused rdma_get should report EPERM, got: %s", first_error);
    } else {
        double t0 = now_us();
        int rc = MPIDI_shm_ops.rdma_get(1, l, len, NULL, rdma_info[0], 0,
                                        shared_read ? &op_cookie : NULL);
        if (rc == MPIDI_INPROGRESS && shared_read) {
            while (!op_done_calls)
                progress();
            rc = op_done_err;
        }
        double t1 = now_us();
        if (rc != MPI_SUCCESS)
            FAIL("rdma_get of %zu bytes returned %d", len, rc);
        if (shared_read && counter("shm_cma_split") != 1)
            FAIL("rdma_get of %zu bytes with a cookie was not shared (shm_cma_split %lu)", len,
                 counter("shm_cma_split"));
        for (size_t i = 0; i < len; i++)
            if (l[i] != (unsigned char)(i * 7 + (i >> 12))) {
                FAIL("rdma_get: byte %zu is %u, expected %u", i, l[i],
                     (unsigned char)(i * 7 + (i >> 12)));
                break;
            }
        for (size_t i = 0; i < len; i++)
            l[i] = (unsigned char)(i * 13 + 1);
        double t2 = now_us();
        rc = MPIDI_shm_ops.rdma_put(1, l, len, NULL, rdma_info[1], 0, NULL);
        double t3 = now_us();
        if (rc != MPI_SUCCESS)
            FAIL("rdma_put of %zu bytes returned %d", len, rc);
        printf("rdma: %zu MiB get %.2f GB/s, put %.2f GB/s%s\n", len >> 20, len / (t1 - t0) / 1e3,
               len / (t3 - t2) / 1e3,
               !shared_read                    ? ""
               : counter("shm_cma_taken_back") ? " (shared; the peer did not join)"
                                               : " (shared with the peer)");
    }
    free(l);
    send_retry(1, H_RDMA_DONE, "done", 4, NULL, 0, 0);
}

static int leftovers_quiet(void);

static int rank_main(void)
{
    int *local_ranks = malloc(sizeof(int) * nprocs), *node_of = calloc(nprocs, sizeof(int));
    char host[64];
    gethostname(host, sizeof(host));
    for (int i = 0; i < nprocs; i++)
        local_ranks[i] = i;
    MPIDI_job_t job = {.rank = me,
                       .size = nprocs,
                       .kvsname = kvsname,
                       .hostname = host,
                       .node_id = 0,
                       .nlocal = nprocs,
                       .local_index = me,
                       .local_ranks = local_ranks,
                       .node_of = node_of};
    rng_state = 0x9e3779b97f4a7c15ULL * (me + 1);

    if (geometry_mismatch && me == nprocs - 1)
        setenv("FERRY_SHM_NUM_CELLS", "32", 1);

    memset(&caps, 0, sizeof(caps));
    quiet_errors = expect_init_error;
    int rc = MPIDI_shm_ops.init(&job, &caps);
    quiet_errors = 0;
    if (expect_init_error) {
        if (rc == MPI_SUCCESS || rc == MPIDI_AGAIN)
            FAIL("init returned %d, expected an error", rc);
        else if (me == 0)
            printf("init failed as expected (class %d: %s)\n", rc, last_error);
        barrier();
        goto free_job;
    }
    if (rc != MPI_SUCCESS) {
        FAIL("init returned %d", rc);
        barrier();
        goto free_job;
    }
    long cell = MPIDU_config_int("FERRY_SHM_CELL_SIZE");
    int cma_caps = (caps.rndv_modes & (MPIDI_RNDV_READ | MPIDI_RNDV_WRITE)) != 0;
    /* The eager limit: FERRY_SHM_EAGER_LIMIT capped by a cell's payload; by default 8 KiB with
     * CMA (a cell's payload on an oversubscribed node), a cell's payload without it. */
    long eager_set = MPIDU_config_int("FERRY_SHM_EAGER_LIMIT");
    int eager_ok = eager_set >= 0 ? caps.eager_limit == ((size_t)eager_set < caps.max_send
                                                             ? (size_t)eager_set
                                                             : caps.max_send)
                                  : caps.eager_limit == caps.max_send ||
                                        (cma_caps && caps.eager_limit == 8192);
    if (caps.size != sizeof(caps) || caps.max_hdr < 32 || caps.max_send + 128 < (size_t)cell ||
        !eager_ok || !(caps.rndv_modes & MPIDI_RNDV_PIPELINE) || caps.needs_reg != 0 ||
        cma_caps == expect_no_cma)
        FAIL("caps: size %zu max_hdr %zu eager %zu max_send %zu rndv %#x needs_reg %d excl %d",
             caps.size, caps.max_hdr, caps.eager_limit, caps.max_send, caps.rndv_modes,
             caps.needs_reg, caps.exclusivity);
    if (me == 0)
        printf("caps: max_hdr %zu eager_limit %zu max_send %zu rndv%s%s%s exclusivity %d\n",
               caps.max_hdr, caps.eager_limit, caps.max_send,
               caps.rndv_modes & MPIDI_RNDV_READ ? " read" : "",
               caps.rndv_modes & MPIDI_RNDV_WRITE ? " write" : "",
               caps.rndv_modes & MPIDI_RNDV_PIPELINE ? " pipeline" : "", caps.exclusivity);

    char card[256];
    if ((rc = MPIDI_shm_ops.get_business_card(card, sizeof(card))) != MPI_SUCCESS)
        FAIL("get_business_card returned %d", rc);
    for (int r = 0; r < nprocs; r++) {
        int want = (r != me);
        if (MPIDI_shm_ops.reachable(r, card) != want)
            FAIL("reachable(%d) != %d", r, want);
        if (want && (rc = MPIDI_shm_ops.connect(r, card)) != MPI_SUCCESS)
            FAIL("connect(%d) returned %d", r, rc);
    }

    barrier(); /* stands in for the core's PMI barrier */
    /* The segment is made after the barrier, in post_init: a start-up that
     * fails before it has nothing to leave behind. */
    if (me == 0 && leftovers_quiet() != 0)
        FAIL("before post_init, /dev/shm holds %d segments named after %s, expected none",
             leftovers_quiet(), kvsname);
    barrier();
    quiet_errors = geometry_mismatch;
    rc = MPIDI_shm_ops.post_init();
    quiet_errors = 0;
    if (geometry_mismatch) {
        /* Only local rank 0 sizes the segment: the rank with another
         * geometry finds it of the wrong size and removes the name, which
         * ends the others' wait for its region. */
        if (rc == MPI_SUCCESS)
            FAIL("post_init succeeded although rank %d uses another cell count", nprocs - 1);
        else if (me == nprocs - 1 && !strstr(last_error, "FERRY_SHM_NUM_CELLS"))
            FAIL("the mismatched rank's error does not name the variable: %s", last_error);
        barrier();
        MPIDI_shm_ops.finalize();
        goto free_job;
    }
    if (rc != MPI_SUCCESS)
        FAIL("post_init returned %d", rc);
    barrier();
    if (kill_mode == 2 || (kill_mode == 1 && me == nprocs - 1))
        raise(SIGKILL);
    if (kill_mode) {
        barrier();
        MPIDI_shm_ops.finalize();
        goto free_job;
    }

    /* Patterns every rank can rebuild for every sender. */
    pattern_len = caps.max_send + 256;
    pattern = malloc(sizeof(*pattern) * nprocs);
    expect_seq = calloc(nprocs, sizeof(uint32_t));
    received_from = calloc(nprocs, sizeof(long));
    for (int s = 0; s < nprocs; s++) {
        pattern[s] = malloc(pattern_len);
        for (size_t j = 0; j < pattern_len; j++)
            pattern[s][j] = (unsigned char)(j * 131 + s * 29 + (j >> 9));
    }

    if (pp_iters > 0) {
        pingpong();
        barrier();
    }
    check_arg_errors();
    barrier();

    long *to_send = calloc(nprocs, sizeof(long)), *expect_from = calloc(nprocs, sizeof(long));
    if (flood_msgs > 0) {
        long per_peer = flood_msgs / (nprocs - 1) > 0 ? flood_msgs / (nprocs - 1) : 1;
        for (int r = 0; r < nprocs; r++)
            to_send[r] = expect_from[r] = (r == me) ? 0 : per_peer;
        flood("all-to-all", to_send, expect_from);
        barrier();
    }
    if (m2o_msgs > 0) {
        for (int r = 0; r < nprocs; r++) {
            to_send[r] = (me != 0 && r == 0) ? m2o_msgs : 0;
            expect_from[r] = (me == 0 && r != 0) ? m2o_msgs : 0;
        }
        flood("many-to-one", to_send, expect_from);
        barrier();
    }
    rdma_test();
    barrier();

    stats[me].ring_sent = counter("shm_ring_sent");
    stats[me].ring_full = counter("shm_ring_full");
    stats[me].ring_wrap = counter("shm_ring_wrap");
    stats[me].cell_sent = counter("shm_cell_sent");
    if ((rc = MPIDI_shm_ops.finalize()) != MPI_SUCCESS)
        FAIL("finalize returned %d", rc);
    for (int s = 0; s < nprocs; s++)
        free(pattern[s]);
    free(pattern);
    free(expect_seq);
    free(received_from);
    free(to_send);
    free(expect_from);
free_job:
    free(local_ranks);
    free(node_of);
    return failures != 0;
}

/* ---- parent: fork, serve the barrier, check the results ---- */

static int count_segments(int report)
{
    DIR *d = opendir("/dev/shm");
    struct dirent *e;
    int n = 0;
    if (!d)
        return 0;
    while ((e = readdir(d)))
        if (strstr(e->d_name, kvsname)) {
            if (report)
                fprintf(stderr, "FAIL: /dev/shm/%s left behind\n", e->d_name);
            n++;
        }
    closedir(d);
    return n;
}

static int leftovers_quiet(void)
{
    return count_segments(0);
}

static int leftovers(void)
{
    return count_segments(1);
}

int main(int argc, char **argv)
{
    int opt;
    while ((opt = getopt(argc, argv, "n:p:m:o:r:t:axdk:gbewcs")) != -1) {
        switch (opt) {
        case 'n':
            nprocs = atoi(optarg);
            break;
        case 'p':
            pp_iters = atol(optarg);
            break;
        case 'm':
            flood_msgs = atol(optarg);
            break;
        case 'o':
            m2o_msgs = atol(optarg);
            break;
        case 'r':
            rdma_mib = atol(optarg);
            break;
        case 'a':
            want_again = 1;
            break;
        case 'x':
            expect_no_cma = 1;
            break;
        case 'd':
            cma_deny = 1;
            break;
        case 'k':
            kill_mode = atoi(optarg);
            break;
        case 'g':
            geometry_mismatch = 1;
            break;
        case 'b':
            bind_cpus = 1;
            break;
        case 'e':
            expect_init_error = 1;
            break;
        case 't':
            max_flood_len = atol(optarg);
            break;
        case 'w':
            want_ring_limits = 1;
            break;
        case 'c':
            want_no_ring = 1;
            break;
        case 's':
            shared_read = 1;
            break;
        default:
            fprintf(stderr, "usage: see the top of shm_pingpong.c\n");
            return 2;
        }
    }
    if (nprocs < 2 || nprocs > 1024) {
        fprintf(stderr, "need 2..1024 ranks, got %d\n", nprocs);
        return 2;
    }
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    snprintf(kvsname, sizeof(kvsname), "shmtest_%d_%ld", (int)getpid(), (long)ts.tv_nsec);
    stats = mmap(NULL, sizeof(stats_t) * nprocs, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS,
                 -1, 0);
    if (stats == MAP_FAILED) {
        perror("mmap");
        return 2;
    }
    signal(SIGPIPE, SIG_IGN);
    setvbuf(stdout, NULL, _IONBF, 0);

    int(*up)[2] = calloc(nprocs, sizeof(*up)), (*down)[2] = calloc(nprocs, sizeof(*down));
    pid_t *pids = calloc(nprocs, sizeof(pid_t));
    for (int i = 0; i < nprocs; i++) {
        if (pipe(up[i]) || pipe(down[i])) {
            perror("pipe");
            return 2;
        }
    }
    for (int i = 0; i < nprocs; i++) {
        pids[i] = fork();
        if (pids[i] < 0) {
            perror("fork");
            return 2;
        }
        if (pids[i] == 0) {
            me = i;
            for (int j = 0; j < nprocs; j++) {
                close(up[j][0]);
                close(down[j][1]);
                if (j != i) {
                    close(up[j][1]);
                    close(down[j][0]);
                }
            }
            up_fd = up[i][1];
            down_fd = down[i][0];
            int rc = rank_main();
            free(up);
            free(down);
            free(pids);
            _exit(rc);
        }
    }
    for (int i = 0; i < nprocs; i++) {
        close(up[i][1]);
        close(down[i][0]);
    }

    /* Barrier service: a round ends when every live rank has written a byte;
     * a rank whose pipe reads EOF has exited (or was killed) and is dropped. */
    int *live = malloc(sizeof(int) * nprocs), nlive = nprocs;
    for (int i = 0; i < nprocs; i++)
        live[i] = 1;
    while (nlive > 0) {
        for (int i = 0; i < nprocs; i++) {
            char c;
            if (live[i] && read(up[i][0], &c, 1) != 1) {
                live[i] = 0;
                nlive--;
            }
        }
        for (int i = 0; i < nprocs; i++) {
            char c = 'g';
            if (live[i] && write(down[i][1], &c, 1) != 1) {
                live[i] = 0;
                nlive--;
            }
        }
    }

    int bad = 0;
    for (int i = 0; i < nprocs; i++) {
        int status;
        waitpid(pids[i], &status, 0);
        int killed = (kill_mode == 2 || (kill_mode == 1 && i == nprocs - 1));
        if (killed) {
            if (!WIFSIGNALED(status) || WTERMSIG(status) != SIGKILL) {
                fprintf(stderr, "FAIL: rank %d should have died by SIGKILL, status %#x\n", i,
                        status);
                bad++;
            }
        } else if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
            fprintf(stderr, "FAIL: rank %d exited with status %#x\n", i, status);
            bad++;
        }
    }
    long again = 0, received = 0;
    unsigned long ring_sent = 0, ring_full = 0, ring_wrap = 0, cell_sent = 0;
    for (int i = 0; i < nprocs; i++) {
        again += stats[i].again;
        received += stats[i].received;
        ring_sent += stats[i].ring_sent;
        ring_full += stats[i].ring_full;
        ring_wrap += stats[i].ring_wrap;
        cell_sent += stats[i].cell_sent;
    }
    printf("messages received %ld, MPIDI_AGAIN returned %ld times\n", received, again);
    printf("paths: %lu through rings (%lu wrapped around), %lu in cells (a ring was found full "
           "%lu times)\n",
           ring_sent, ring_wrap, cell_sent, ring_full);
    if (want_ring_limits &&
        (ring_wrap == 0 || ring_full == 0 || ring_sent == 0 || cell_sent == 0)) {
        fprintf(stderr, "FAIL: -w given but the rings did not both wrap and fill, or one path "
                        "carried nothing\n");
        bad++;
    }
    if (want_no_ring && (ring_sent != 0 || cell_sent == 0)) {
        fprintf(stderr, "FAIL: -c given but %lu messages went through rings, %lu in cells\n",
                ring_sent, cell_sent);
        bad++;
    }
    if (want_again && again == 0) {
        fprintf(stderr, "FAIL: -a given but no am_send returned MPIDI_AGAIN\n");
        bad++;
    }
    bad += leftovers();
    free(up);
    free(down);
    free(pids);
    free(live);
    if (bad) {
        fprintf(stderr, "%d errors\n", bad);
        return 1;
    }
    printf(" No Errors\n");
    return 0;
}
