/* latbw.c: point-to-point latency, bandwidth and message rate between two MPI ranks.
 *
 * For each message size (powers of two from -m to -M) it measures
 *   latency_us      half the round trip of a blocking ping-pong
 *                   (MPI_Send then MPI_Recv), in microseconds;
 *   bandwidth_MBps  rank 0 posts a window of 64 MPI_Isend to rank 1, which
 *                   receives them with 64 MPI_Irecv into distinct buffers and
 *                   answers each window with a small ack; 10^6 bytes per second;
 *   bibw_MBps       both ranks at once: each posts a window of 64 MPI_Irecv and
 *                   64 MPI_Isend and waits for all 128; bytes of both
 *                   directions, 10^6 per second;
 *   rate_Mmsgs, birate_Mmsgs  the same two windows as messages per second
 *                   (10^6), the message rate of small sizes.
 * -t picks the tests (lat, bw, bibw; all by default); a test left out prints
 * "-".  Each measurement runs untimed warm-up iterations first; the iteration
 * counts shrink for big messages so every size takes a similar time.  Buffers
 * are page-aligned and touched before use, and the received data is checked
 * after every size (outside the timed loops).
 *
 * -s (ranks on one host): the sender of a message tells its receiver,
 * through a shared page and outside MPI, that the call sending it has returned
 * (for a window: its 64 MPI_Isend), and the receiver sleeps until then before
 * it calls MPI to wait for the message (ping-pong receives, the receiver's
 * Waitall, the sender's ack).  The message is then there when the MPI call
 * starts, so an instruction count (bench/budget.py) holds the work of a
 * message and not the polls of a waiting rank, whichever library it is.
 * Timings taken with -s mean nothing.
 */
#define _POSIX_C_SOURCE 200809L

#include <mpi.h>

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <stdatomic.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#define WINDOW 64          /* Isends in flight per bandwidth window */
#define LAT_FULL_UPTO 8192 /* latency: full iteration count up to this size */
#define BW_FULL_UPTO 16384 /* bandwidth: full window count up to this size */
#define TAG_LAT 1
#define TAG_BW 2
#define TAG_ACK 3

/* The tests -t can select. */
enum { TEST_LAT = 1, TEST_BW = 2, TEST_BIBW = 4, TEST_ALL = 7 };

struct options {
    size_t min_size, max_size;
    long iters; /* latency iterations for small messages */
    int quick;
    int tests; /* TEST_* bits */
    int side;  /* -s: receivers wait outside MPI until their message was sent */
};

/* -s: the shared page, sent[r] counting the messages sent to rank r; NULL
 * without -s. */
static _Atomic long *sent;
static long awaited; /* messages this rank has waited for on the page */

/* -s: rank 0 makes the page (a new POSIX shm object, removed once both ranks
 * have it mapped) and tells rank 1 its name.  Exits on failure. */
static void side_open(int rank)
{
    char name[64] = "";
    int ok = 1, all_ok = 0, fd = -1;
    if (rank == 0) {
        snprintf(name, sizeof name, "/latbw-%ld-%ld", (long)getpid(), (long)time(NULL));
        fd = shm_open(name, O_CREAT | O_EXCL | O_RDWR, 0600);
        if (fd < 0 || ftruncate(fd, 4096) != 0)
            ok = 0;
    }
    MPI_Bcast(name, sizeof name, MPI_CHAR, 0, MPI_COMM_WORLD);
    if (rank != 0 && (fd = shm_open(name, O_RDWR, 0600)) < 0)
        ok = 0;
    if (ok) {
        void *p = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
        ok = p != MAP_FAILED;
        if (ok)
            sent = p;
    }
    if (fd >= 0)
        close(fd);
    MPI_Allreduce(&ok, &all_ok, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
    if (rank == 0)
        shm_unlink(name);
    if (!all_ok) {
        fprintf(stderr, "latbw: rank %d: -s: shared page %s: %s\n", rank, name, strerror(errno));
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
}

/* -s: the call that sent a message to rank `to` has returned. */
static void side_sent(int to)
{
    if (sent)
        atomic_fetch_add_explicit(&sent[to], 1, memory_order_release);
}

/* -s: sleeps until the next message to rank `me` has been sent, for at most
 * about a second: a library whose send waits for the receiver's progress
 * then gets it from the MPI call (and the count shows the polls). */
static void side_wait(int me)
{
    if (!sent)
        return;
    awaited++;
    for (int naps = 0; naps < 50000; naps++) {
        if (atomic_load_explicit(&sent[me], memory_order_acquire) >= awaited)
            return;
        struct timespec ts = {0, 20000};
        nanosleep(&ts, NULL);
    }
}

static void usage(FILE *f, const char *prog)
{
    fprintf(f,
            "usage: mpiexec -n 2 %s [-m MIN] [-M MAX] [-i ITERS] [-t TESTS] [-s] [-q] [-h]\n"
            "  -m MIN    smallest message size in bytes (default 8; K, M suffixes allowed)\n"
            "  -M MAX    largest message size in bytes (default 4M)\n"
            "  -i ITERS  ping-pong iterations for sizes up to %d bytes (default 10000,\n"
            "            1000 with -q); bandwidth uses ITERS/10 windows of %d messages\n"
            "  -t TESTS  comma list of lat, bw, bibw (default all three)\n"
            "  -s        a receiver waits outside MPI until its message was sent, so that\n"
            "            no MPI call waits (ranks on one host; instruction counts,\n"
            "            bench/budget.py; not timings)\n"
            "  -q        quick run: fewer iterations\n"
            "Sizes are MIN, 2*MIN, 4*MIN ... up to MAX.\n",
            prog, LAT_FULL_UPTO, WINDOW);
}

/* "4096", "64K", "4M", "1G" (binary multiples). Returns 0 on success. */
static int parse_size(const char *s, size_t *out)
{
    char *end;
    errno = 0;
    unsigned long long v = strtoull(s, &end, 10);
    if (errno || end == s || s[0] == '-')
        return -1;
    switch (*end) {
    case 'k':
    case 'K':
        v <<= 10;
        end++;
        break;
    case 'm':
    case 'M':
        v <<= 20;
        end++;
        break;
    case 'g':
    case 'G':
        v <<= 30;
        end++;
        break;
    default:
        break;
    }
    if (*end != '\0' || v > (unsigned long long)INT_MAX)
        return -1;
    *out = (size_t)v;
    return 0;
}

/* "lat,bibw" -> TEST_LAT | TEST_BIBW.  Returns 0 on success. */
static int parse_tests(const char *s, int *out)
{
    static const struct {
        const char *name;
        int bit;
    } names[] = {{"lat", TEST_LAT}, {"bw", TEST_BW}, {"bibw", TEST_BIBW}};
    *out = 0;
    while (*s) {
        size_t len = strcspn(s, ",");
        int found = 0;
        for (size_t k = 0; k < sizeof(names) / sizeof(names[0]); k++) {
            if (strlen(names[k].name) == len && strncmp(s, names[k].name, len) == 0) {
                *out |= names[k].bit;
                found = 1;
            }
        }
        if (!found)
            return -1;
        s += len;
        if (*s == ',')
            s++;
    }
    return *out ? 0 : -1;
}

/* Returns 0 to run, 1 to exit successfully (-h), -1 on a usage error. */
static int parse_args(int argc, char **argv, struct options *o, int verbose)
{
    int c;
    o->min_size = 8;
    o->max_size = 4 << 20;
    o->iters = 0;
    o->quick = 0;
    o->tests = TEST_ALL;
    o->side = 0;
    opterr = 0;
    while ((c = getopt(argc, argv, "m:M:i:t:sqh")) != -1) {
        switch (c) {
        case 'm':
        case 'M':
            if (parse_size(optarg, c == 'm' ? &o->min_size : &o->max_size)) {
                if (verbose)
                    fprintf(stderr, "latbw: bad size '%s' for -%c (at most %d bytes)\n", optarg, c,
                            INT_MAX);
                return -1;
            }
            break;
        case 'i': {
            char *end;
            errno = 0;
            o->iters = strtol(optarg, &end, 10);
            if (errno || *end != '\0' || o->iters < 1 || o->iters > 100000000) {
                if (verbose)
                    fprintf(stderr, "latbw: bad iteration count '%s'\n", optarg);
                return -1;
            }
            break;
        }
        case 's':
            o->side = 1;
            break;
        case 't':
            if (parse_tests(optarg, &o->tests)) {
                if (verbose)
                    fprintf(stderr, "latbw: bad test list '%s' (lat, bw, bibw)\n", optarg);
                return -1;
            }
            break;
        case 'q':
            o->quick = 1;
            break;
        case 'h':
            if (verbose)
                usage(stdout, argv[0]);
            return 1;
        default:
            if (verbose)
                fprintf(stderr, "latbw: unknown option or missing argument: -%c\n", optopt);
            return -1;
        }
    }
    if (optind < argc) {
        if (verbose)
            fprintf(stderr, "latbw: unexpected argument '%s'\n", argv[optind]);
        return -1;
    }
    if (o->min_size > o->max_size) {
        if (verbose)
            fprintf(stderr, "latbw: -m %zu is larger than -M %zu\n", o->min_size, o->max_size);
        return -1;
    }
    if (o->iters == 0)
        o->iters = o->quick ? 1000 : 10000;
    return 0;
}

/* The library we were compiled against, from the macros of its mpi.h. */
static void library_name(char *buf, size_t len)
{
#if defined(FERRY_VERSION)
    snprintf(buf, len, "Ferry %s", FERRY_VERSION);
#elif defined(OMPI_MAJOR_VERSION)
    snprintf(buf, len, "Open MPI %d.%d.%d", OMPI_MAJOR_VERSION, OMPI_MINOR_VERSION,
             OMPI_RELEASE_VERSION);
#elif defined(I_MPI_VERSION)
    snprintf(buf, len, "Intel MPI %s", I_MPI_VERSION);
#elif defined(MVAPICH2_VERSION)
    snprintf(buf, len, "MVAPICH2 %s", MVAPICH2_VERSION);
#elif defined(MPICH_VERSION)
    snprintf(buf, len, "MPICH %s", MPICH_VERSION);
#else
    snprintf(buf, len, "unknown MPI library");
#endif
}

/* Iteration count: `full` up to size `upto`, then inversely proportional to
 * the size (so the bytes moved stay constant), but never below `floor`. */
static long scaled(long full, size_t size, size_t upto, long floor)
{
    if (size <= upto)
        return full;
    long n = (long)((double)full * (double)upto / (double)size);
    return n < floor ? floor : n;
}

static long max_long(long a, long b)
{
    return a > b ? a : b;
}

/* Byte j of every message of size `size`: differs between sizes, so data
 * left over from a previous size is never mistaken for a new message. */
static unsigned char pattern(size_t j, size_t size)
{
    return (unsigned char)(j * 131 + (j >> 8) + size * 7 + 1);
}

static void fill(unsigned char *buf, size_t n, size_t size, int complement)
{
    for (size_t j = 0; j < n; j++)
        buf[j] = complement ? (unsigned char)~pattern(j, size) : pattern(j, size);
}

/* Number of wrong bytes in buf[0..n) for messages of size `size`. */
static long verify(const unsigned char *buf, size_t n, size_t size)
{
    long bad = 0;
    for (size_t j = 0; j < n; j++)
        bad += buf[j] != pattern(j, size);
    return bad;
}

static void *alloc_touched(size_t bytes, size_t page)
{
    void *p = NULL;
    if (posix_memalign(&p, page, bytes) != 0)
        return NULL;
    memset(p, 0, bytes);
    return p;
}

/* Ping-pong: returns the one-way latency in microseconds (rank 0; 0 on rank 1). */
static double run_latency(int rank, unsigned char *sbuf, unsigned char *rbuf, size_t size,
                          long iters, long warmup)
{
    const int count = (int)size;
    double t0 = 0.0, t1;
    MPI_Barrier(MPI_COMM_WORLD);
    for (long i = 0; i < warmup + iters; i++) {
        if (i == warmup)
            t0 = MPI_Wtime();
        if (rank == 0) {
            MPI_Send(sbuf, count, MPI_BYTE, 1, TAG_LAT, MPI_COMM_WORLD);
            side_sent(1);
            side_wait(0);
            MPI_Recv(rbuf, count, MPI_BYTE, 1, TAG_LAT, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        } else {
            side_wait(1);
            MPI_Recv(rbuf, count, MPI_BYTE, 0, TAG_LAT, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            MPI_Send(sbuf, count, MPI_BYTE, 0, TAG_LAT, MPI_COMM_WORLD);
            side_sent(0);
        }
    }
    t1 = MPI_Wtime();
    return rank == 0 ? (t1 - t0) * 1e6 / (2.0 * (double)iters) : 0.0;
}

/* Streaming: returns the bandwidth in MB/s (rank 0; 0 on rank 1).  Rank 1
 * receives message w of each window into rbuf + w * stride. */
static double run_bandwidth(int rank, unsigned char *sbuf, unsigned char *rbuf, size_t stride,
                            size_t size, long loops, long warmup)
{
    const int count = (int)size;
    MPI_Request req[WINDOW];
    /* Real statuses rather than MPI_STATUSES_IGNORE: gcc 12 warns
     * (-Wstringop-overflow) about that constant against MPICH's prototype. */
    static MPI_Status status[WINDOW];
    int ack = 0;
    double t0 = 0.0, t1;
    MPI_Barrier(MPI_COMM_WORLD);
    for (long l = 0; l < warmup + loops; l++) {
        if (l == warmup)
            t0 = MPI_Wtime();
        if (rank == 0) {
            for (int w = 0; w < WINDOW; w++)
                MPI_Isend(sbuf, count, MPI_BYTE, 1, TAG_BW, MPI_COMM_WORLD, &req[w]);
            side_sent(1); /* before the Waitall: a send may need the receiver to complete */
            MPI_Waitall(WINDOW, req, status);
            side_wait(0);
            MPI_Recv(&ack, 1, MPI_INT, 1, TAG_ACK, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        } else {
            for (int w = 0; w < WINDOW; w++)
                MPI_Irecv(rbuf + (size_t)w * stride, count, MPI_BYTE, 0, TAG_BW, MPI_COMM_WORLD,
                          &req[w]);
            side_wait(1);
            MPI_Waitall(WINDOW, req, status);
            MPI_Send(&ack, 1, MPI_INT, 0, TAG_ACK, MPI_COMM_WORLD);
            side_sent(0);
        }
    }
    t1 = MPI_Wtime();
    if (rank != 0)
        return 0.0;
    return (double)size * WINDOW * (double)loops / (t1 - t0) / 1e6;
}

/* Both directions at once: returns the bytes of both directions per second
 * in MB/s (rank 0; 0 on rank 1).  Each rank receives message w of a window
 * into rbuf + w * stride. */
static double run_bibw(int rank, unsigned char *sbuf, unsigned char *rbuf, size_t stride,
                       size_t size, long loops, long warmup)
{
    const int count = (int)size, peer = 1 - rank;
    MPI_Request req[2 * WINDOW];
    static MPI_Status status[2 * WINDOW];
    double t0 = 0.0, t1;
    MPI_Barrier(MPI_COMM_WORLD);
    for (long l = 0; l < warmup + loops; l++) {
        if (l == warmup)
            t0 = MPI_Wtime();
        for (int w = 0; w < WINDOW; w++)
            MPI_Irecv(rbuf + (size_t)w * stride, count, MPI_BYTE, peer, TAG_BW, MPI_COMM_WORLD,
                      &req[w]);
        for (int w = 0; w < WINDOW; w++)
            MPI_Isend(sbuf, count, MPI_BYTE, peer, TAG_BW, MPI_COMM_WORLD, &req[WINDOW + w]);
        MPI_Waitall(2 * WINDOW, req, status);
    }
    t1 = MPI_Wtime();
    if (rank != 0)
        return 0.0;
    return 2.0 * (double)size * WINDOW * (double)loops / (t1 - t0) / 1e6;
}

/* One column of the table: "-" when the test was not run. */
static void print_col(int width, double v, int ran)
{
    if (ran)
        printf(" %*.*f", width, v < 10 ? 3 : 2, v);
    else
        printf(" %*s", width, "-");
}

int main(int argc, char **argv)
{
    int rank, nranks, version, subversion;
    struct options opt;
    char libname[128];

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &nranks);

    /* Every rank parses the same argv, so all take the same decision. */
    int parsed = parse_args(argc, argv, &opt, rank == 0);
    if (parsed != 0) {
        if (parsed < 0 && rank == 0)
            usage(stderr, argv[0]);
        MPI_Finalize();
        return parsed < 0 ? 2 : 0;
    }
    if (opt.side)
        side_open(rank);
    if (nranks != 2) {
        if (rank == 0)
            fprintf(stderr, "latbw: run with exactly 2 ranks (mpiexec -n 2), not %d\n", nranks);
        MPI_Finalize();
        return 2;
    }

    const size_t page = (size_t)sysconf(_SC_PAGESIZE);
    const size_t stride = ((opt.max_size ? opt.max_size : 1) + page - 1) / page * page;
    /* Each rank: a send buffer and WINDOW receive slots (slot 0 also serves
     * the ping-pong); rank 0 needs the slots only for bibw. */
    const size_t rbytes = rank == 1 || (opt.tests & TEST_BIBW) ? WINDOW * stride : stride;
    unsigned char *sbuf = alloc_touched(stride, page);
    unsigned char *rbuf = alloc_touched(rbytes, page);
    int failed = sbuf == NULL || rbuf == NULL, any_failed = 0;
    MPI_Allreduce(&failed, &any_failed, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    if (any_failed) {
        if (failed)
            fprintf(stderr, "latbw: rank %d cannot allocate %zu bytes of buffers\n", rank,
                    stride + rbytes);
        MPI_Finalize();
        return 1;
    }

    const long lat_full = opt.iters;
    const long lat_floor = max_long(opt.iters / 100, 10);
    const long bw_full = max_long(opt.iters / 10, 4);
    const long bw_floor = max_long(bw_full / 50, 3);

    if (rank == 0) {
        MPI_Get_version(&version, &subversion);
        library_name(libname, sizeof libname);
        printf("# latbw: MPI point-to-point latency, bandwidth and message rate between 2 ranks\n");
        printf("# MPI library: %s (MPI standard %d.%d)\n", libname, version, subversion);
        printf("# latency_us: half the round trip of a blocking ping-pong, in microseconds;\n"
               "#   %ld iterations up to %d bytes, fewer above (at least %ld)\n",
               lat_full, LAT_FULL_UPTO, lat_floor);
        printf(
            "# bandwidth_MBps: windows of %d MPI_Isend from rank 0, each window acked by\n"
            "#   rank 1, in 10^6 bytes/s; %ld windows up to %d bytes, fewer above (at least %ld)\n",
            WINDOW, bw_full, BW_FULL_UPTO, bw_floor);
        printf("# bibw_MBps: both ranks post %d MPI_Irecv and %d MPI_Isend at once, bytes of\n"
               "#   both directions; rate_Mmsgs and birate_Mmsgs: the same windows in 10^6\n"
               "#   messages/s; '-': test not selected (-t)\n",
               WINDOW, WINDOW);
        printf("# untimed warm-up before each measurement; page-aligned buffers; data checked\n");
        printf("%-9s %11s %15s %12s %11s %13s\n", "size", "latency_us", "bandwidth_MBps",
               "bibw_MBps", "rate_Mmsgs", "birate_Mmsgs");
        fflush(stdout);
    }

    long data_errors = 0;
    for (size_t size = opt.min_size; size <= opt.max_size; size = size ? size * 2 : 1) {
        const long lat_iters = scaled(lat_full, size, LAT_FULL_UPTO, lat_floor);
        const long bw_loops = scaled(bw_full, size, BW_FULL_UPTO, bw_floor);

        /* Both ranks send the same pattern; receive buffers start as its
         * complement, so every byte a transfer misses is caught. */
        fill(sbuf, size, size, 0);
        fill(rbuf, size, size, 1);
        long bad = 0;
        double lat = 0.0, bw = 0.0, bibw = 0.0;
        if (opt.tests & TEST_LAT) {
            lat = run_latency(rank, sbuf, rbuf, size, lat_iters, max_long(lat_iters / 10, 2));
            bad += verify(rbuf, size, size);
        }
        if (opt.tests & TEST_BW) {
            if (rank == 1)
                for (int w = 0; w < WINDOW; w++)
                    fill(rbuf + (size_t)w * stride, size, size, 1);
            bw =
                run_bandwidth(rank, sbuf, rbuf, stride, size, bw_loops, max_long(bw_loops / 10, 1));
            if (rank == 1)
                for (int w = 0; w < WINDOW; w++)
                    bad += verify(rbuf + (size_t)w * stride, size, size);
        }
        if (opt.tests & TEST_BIBW) {
            for (int w = 0; w < WINDOW; w++)
                fill(rbuf + (size_t)w * stride, size, size, 1);
            bibw = run_bibw(rank, sbuf, rbuf, stride, size, bw_loops, max_long(bw_loops / 10, 1));
            for (int w = 0; w < WINDOW; w++)
                bad += verify(rbuf + (size_t)w * stride, size, size);
        }

        long all_bad = 0;
        MPI_Allreduce(&bad, &all_bad, 1, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
        if (rank == 0) {
            printf("%-9zu", size);
            print_col(11, lat, opt.tests & TEST_LAT);
            print_col(15, bw, opt.tests & TEST_BW);
            print_col(12, bibw, opt.tests & TEST_BIBW);
            /* MB/s over bytes per message: 10^6 messages per second. */
            print_col(11, size ? bw / (double)size : 0.0, size && (opt.tests & TEST_BW));
            print_col(13, size ? bibw / (double)size : 0.0, size && (opt.tests & TEST_BIBW));
            printf("%s\n", all_bad ? "  DATA ERROR" : "");
            fflush(stdout);
            if (all_bad)
                fprintf(stderr, "latbw: %ld wrong bytes received at size %zu\n", all_bad, size);
        }
        data_errors += all_bad;
    }

    free(sbuf);
    free(rbuf);
    MPI_Finalize();
    return data_errors ? 1 : 0;
}
