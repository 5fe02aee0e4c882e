/* mpiexec_bind.c: -bind-to core: one core (all its hardware threads) per rank started here. */
#include "mpiexec.h"

#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static cpu_set_t *cores; /* the CPUs of each core in mpiexec's own CPU set */
static int ncores;
static int *core_of; /* rank -> index in cores, -1: not bound */

/* Reads one integer from a sysfs topology file; -1 if it is not there. */
static long topology_value(int cpu, const char *what)
{
    char path[128];
    long v = -1;
    snprintf(path, sizeof(path), "/sys/devices/system/cpu/cpu%d/topology/%s", cpu, what);
    FILE *f = fopen(path, "r");
    if (f) {
        if (fscanf(f, "%ld", &v) != 1)
            v = -1;
        fclose(f);
    }
    return v;
}

/* Groups the CPUs we may run on into cores: hardware threads with the same
 * package and core id share a core.  Without topology (some containers) each
 * CPU counts as a core. */
static int find_cores(void)
{
    cpu_set_t allowed;
    long *key = NULL;

    if (sched_getaffinity(0, sizeof(allowed), &allowed) != 0) {
        perror("mpiexec: -bind-to core: sched_getaffinity");
        return -1;
    }
    int ncpu = CPU_COUNT(&allowed);
    cores = calloc((size_t)ncpu, sizeof(*cores));
    key = calloc((size_t)ncpu, sizeof(*key));
    if (!cores || !key) {
        fprintf(stderr, "mpiexec: -bind-to core: out of memory\n");
        free(key);
        return -1;
    }
    for (int cpu = 0; cpu < CPU_SETSIZE; cpu++) {
        if (!CPU_ISSET(cpu, &allowed))
            continue;
        long pkg = topology_value(cpu, "physical_package_id");
        long core = topology_value(cpu, "core_id");
        long k = pkg < 0 || core < 0 ? -1 - cpu : pkg * 65536 + core;
        int c = 0;
        while (c < ncores && key[c] != k)
            c++;
        if (c == ncores) {
            key[ncores++] = k;
            CPU_ZERO(&cores[c]);
        }
        CPU_SET(cpu, &cores[c]);
    }
    free(key);
    return 0;
}

int MPIEXEC_bind_plan(const opts_t *o)
{
    if (o->bind == MPIEXEC_BIND_NONE)
        return 0;
    if (find_cores() != 0)
        return -1;
    core_of = malloc((size_t)job.size * sizeof(int));
    if (!core_of) {
        fprintf(stderr, "mpiexec: -bind-to core: out of memory\n");
        return -1;
    }
    int here = job.size - job.nremote;
    if (here > ncores) {
        /* Two ranks pinned to one core take turns there even while another
         * core idles; unbound, the kernel spreads and migrates them, which is
         * what an oversubscribed node needs (and Ferry then yields the CPU in
         * its waits, see FERRY_POLL_SPINS). */
        fprintf(stderr,
                "mpiexec: -bind-to core: %d ranks on this node but %d cores to bind them to; "
                "not binding\n",
                here, ncores);
        for (int i = 0; i < job.size; i++)
            core_of[i] = -1;
        return 0;
    }
    int next = 0;
    for (int i = 0; i < job.size; i++)
        core_of[i] = job.ranks[i].remote ? -1 : next++;
    return 0;
}

/* posix_spawn cannot set the child's CPUs, but a child inherits ours: so
 * mpiexec binds itself to the rank's core for the spawn, and afterwards
 * goes back to the CPUs it had (read once, before the first rank). */
static cpu_set_t own_cpus;
static int own_cpus_read;

void MPIEXEC_bind_before_spawn(int rank)
{
    if (core_of == NULL || core_of[rank] < 0)
        return;
    if (!own_cpus_read && sched_getaffinity(0, sizeof(own_cpus), &own_cpus) == 0)
        own_cpus_read = 1;
    if (sched_setaffinity(0, sizeof(cpu_set_t), &cores[core_of[rank]]) != 0)
        fprintf(stderr, "mpiexec: rank %d: binding to core %d: sched_setaffinity failed\n", rank,
                core_of[rank]);
}

void MPIEXEC_bind_after_spawn(int rank)
{
    if (core_of == NULL || core_of[rank] < 0 || !own_cpus_read)
        return;
    if (sched_setaffinity(0, sizeof(own_cpus), &own_cpus) != 0)
        fprintf(stderr, "mpiexec: unbinding after rank %d: sched_setaffinity failed\n", rank);
}
