/* floor.c: the hardware's floor for shared-memory latency: two processes ping-pong a flag.
 *
 * Two processes (a fork) share one anonymous mapping holding two flags on
 * separate cache lines (128 bytes apart, so the adjacent-line prefetcher does
 * not pair them).  The parent writes i to its flag and spins until the child
 * has echoed i in the other; the child spins on the parent's flag and echoes.
 * Half a round trip is one cache line moving from one core to the other and
 * being seen: no MPI library can deliver a message between two processes
 * faster, so bench/run.sh divides shm latencies by it.
 *
 * No MPI: build with any C compiler (cc -O2 -o floor floor.c).  By default the
 * two processes are pinned to the first two CPUs this process may use (as
 * bench/run.sh binds MPI ranks), -c A,B picks the CPUs, -n leaves them unpinned.
 *
 * Output: one comment block, then "floor_oneway_us MEDIAN MIN" over -r repetitions.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE /* sched_setaffinity, CPU_SET */
#endif
#include <errno.h>
#include <limits.h>
#include <sched.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define FLAG_GAP 128 /* bytes between the flags: two cache lines, no adjacent-line pairing */

struct shared {
    _Alignas(FLAG_GAP) _Atomic uint64_t ping; /* written by the parent */
    _Alignas(FLAG_GAP) _Atomic uint64_t pong; /* written by the child */
};

static double now_us(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e6 + (double)ts.tv_nsec / 1e3;
}

static int pin(int cpu)
{
    cpu_set_t set;
    CPU_ZERO(&set);
    CPU_SET(cpu, &set);
    return sched_setaffinity(0, sizeof(set), &set);
}

/* The first two CPUs of our affinity mask; -1 when there are fewer. */
static void first_two_cpus(int *a, int *b)
{
    cpu_set_t set;
    *a = *b = -1;
    if (sched_getaffinity(0, sizeof(set), &set) != 0)
        return;
    for (int c = 0; c < CPU_SETSIZE; c++) {
        if (!CPU_ISSET(c, &set))
            continue;
        if (*a < 0)
            *a = c;
        else {
            *b = c;
            return;
        }
    }
    *a = -1;
}

static long parse_long(const char *s, long min, long max, const char *what)
{
    char *end;
    errno = 0;
    long v = strtol(s, &end, 10);
    if (errno || end == s || *end != '\0' || v < min || v > max) {
        fprintf(stderr, "floor: bad %s '%s' (%ld .. %ld)\n", what, s, min, max);
        exit(2);
    }
    return v;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static void usage(FILE *f)
{
    fprintf(f, "usage: floor [-i ITERS] [-r REPS] [-c CPU_A,CPU_B | -n] [-h]\n"
               "  -i ITERS  round trips per repetition (default 10000)\n"
               "  -r REPS   repetitions; the median and the minimum are printed (default 21)\n"
               "  -c A,B    pin the two processes to CPUs A and B (default: the first two\n"
               "            CPUs allowed)\n"
               "  -n        do not pin\n");
}

int main(int argc, char **argv)
{
    long iters = 10000, reps = 21;
    int cpu_a = -2, cpu_b = -2, c; /* -2: default, -1: no pinning */

    while ((c = getopt(argc, argv, "i:r:c:nh")) != -1) {
        switch (c) {
        case 'i':
            iters = parse_long(optarg, 1, 1000000000L, "iteration count");
            break;
        case 'r':
            reps = parse_long(optarg, 1, 1000, "repetition count");
            break;
        case 'c':
            if (sscanf(optarg, "%d,%d", &cpu_a, &cpu_b) != 2 || cpu_a < 0 || cpu_b < 0) {
                fprintf(stderr, "floor: -c wants two CPU numbers, e.g. -c 0,1\n");
                return 2;
            }
            break;
        case 'n':
            cpu_a = cpu_b = -1;
            break;
        case 'h':
            usage(stdout);
            return 0;
        default:
            usage(stderr);
            return 2;
        }
    }
    if (optind < argc) {
        usage(stderr);
        return 2;
    }
    if (cpu_a == -2)
        first_two_cpus(&cpu_a, &cpu_b);

    struct shared *sh =
        mmap(NULL, sizeof(*sh), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    if (sh == MAP_FAILED) {
        perror("floor: mmap");
        return 1;
    }
    atomic_store(&sh->ping, 0);
    atomic_store(&sh->pong, 0);
    const uint64_t total = (uint64_t)iters * (uint64_t)reps + (uint64_t)iters / 10;

    pid_t child = fork();
    if (child < 0) {
        perror("floor: fork");
        return 1;
    }
    if (child == 0) {
        if (cpu_b >= 0 && pin(cpu_b) != 0)
            perror("floor: pinning the child");
        /* Echo every value the parent writes; acquire/release so the
         * exchange is the one an MPI library's flag would need. */
        for (uint64_t i = 1; i <= total; i++) {
            while (atomic_load_explicit(&sh->ping, memory_order_acquire) != i)
                ;
            atomic_store_explicit(&sh->pong, i, memory_order_release);
        }
        _exit(0);
    }
    if (cpu_a >= 0 && pin(cpu_a) != 0)
        perror("floor: pinning the parent");

    double *oneway = calloc((size_t)reps, sizeof(*oneway));
    if (!oneway) {
        kill(child, SIGKILL);
        return 1;
    }
    uint64_t i = 0;
    /* Warm-up: faults the page in on both sides and settles the clocks. */
    for (long k = 0; k < iters / 10; k++) {
        i++;
        atomic_store_explicit(&sh->ping, i, memory_order_release);
        while (atomic_load_explicit(&sh->pong, memory_order_acquire) != i)
            ;
    }
    for (long r = 0; r < reps; r++) {
        double t0 = now_us();
        for (long k = 0; k < iters; k++) {
            i++;
            atomic_store_explicit(&sh->ping, i, memory_order_release);
            while (atomic_load_explicit(&sh->pong, memory_order_acquire) != i)
                ;
        }
        oneway[r] = (now_us() - t0) / (2.0 * (double)iters);
    }
    int status;
    if (waitpid(child, &status, 0) != child || !WIFEXITED(status) || WEXITSTATUS(status) != 0) {
        fprintf(stderr, "floor: the child process failed\n");
        return 1;
    }
    qsort(oneway, (size_t)reps, sizeof(*oneway), cmp_double);
    printf("# floor: two processes ping-pong a flag in shared memory (no MPI)\n");
    printf("# %ld round trips x %ld repetitions; CPUs %s\n", iters, reps,
           cpu_a >= 0 ? "pinned" : "not pinned");
    if (cpu_a >= 0)
        printf("# parent on CPU %d, child on CPU %d\n", cpu_a, cpu_b);
    printf("# floor_oneway_us: half a round trip in microseconds, median and minimum\n");
    printf("floor_oneway_us %.4f %.4f\n", oneway[reps / 2], oneway[0]);
    free(oneway);
    return 0;
}
