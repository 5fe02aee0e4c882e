/* stats.c: named counters of what the device and each method did, printed at MPI_Finalize with
 * FERRY_VERBOSE=1 and written to FERRY_STATS_FILE.<rank> so tests can check which path ran. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "adi_impl.h"
#include "mpidi_config.h"

MPIDI_stats_t MPIDI_stats;

typedef struct stat_entry {
    const char *name;
    const unsigned long *counter;
} stat_entry_t;

static stat_entry_t *table;
static int nstats, capacity;
static int ncore; /* the first ncore entries are the device's own (MPIDI_stats) */
static int stats_fd = -1;
static char *stats_path;

/* Names are what variant files and tests write (test/README.md): lower-case words joined by
 * '_', so they survive any shell and awk unquoted. */
static int valid_name(const char *name)
{
    if (!name || !*name || strlen(name) > 64)
        return 0;
    for (const char *c = name; *c; c++)
        if (!((*c >= 'a' && *c <= 'z') || (*c >= '0' && *c <= '9') || *c == '_'))
            return 0;
    return 1;
}

int MPIDU_stat_register(const char *name, const unsigned long *counter_p)
{
    if (!valid_name(name) || !counter_p)
        return MPIR_Err_create(MPI_ERR_INTERN,
                               "counter name \"%s\" is not lower-case letters, digits and '_'",
                               name ? name : "(null)");
    for (int i = 0; i < nstats; i++)
        if (strcmp(table[i].name, name) == 0)
            return MPIR_Err_create(MPI_ERR_INTERN, "counter \"%s\" is registered twice", name);
    if (nstats == capacity) {
        int cap = capacity ? 2 * capacity : 32;
        stat_entry_t *t = realloc(table, cap * sizeof(*t));
        if (!t)
            return MPIR_Err_create(MPI_ERR_NO_MEM, "out of memory registering counter %s", name);
        table = t;
        capacity = cap;
    }
    table[nstats].name = name;
    table[nstats].counter = counter_p;
    nstats++;
    return MPI_SUCCESS;
}

int MPIDI_stats_init(void)
{
    static const struct {
        const char *name;
        const unsigned long *counter;
    } core[] = {
        {"eager_sent", &MPIDI_stats.eager_sent},
        {"eager_bytes", &MPIDI_stats.eager_bytes},
        {"eager_bytes_max", &MPIDI_stats.eager_bytes_max},
        {"rndv_sent", &MPIDI_stats.rndv_sent},
        {"rndv_read", &MPIDI_stats.rndv_read},
        {"rndv_write", &MPIDI_stats.rndv_write},
        {"rndv_pipeline", &MPIDI_stats.rndv_pipeline},
        {"rndv_fallback", &MPIDI_stats.rndv_fallback},
        {"rndv_refused", &MPIDI_stats.rndv_refused},
        {"deferred", &MPIDI_stats.deferred},
        {"unexpected", &MPIDI_stats.unexpected},
        {"unexpected_bytes_max", &MPIDI_stats.unexpected_bytes_max},
        {"progress_yields", &MPIDI_stats.progress_yields},
    };
    int err;
    for (size_t i = 0; i < sizeof(core) / sizeof(core[0]); i++)
        if ((err = MPIDU_stat_register(core[i].name, core[i].counter)))
            return err;
    ncore = nstats;

    /* Opened now so that a path that cannot be written stops MPI_Init with a clear error,
     * instead of a test finding no counters after the run. */
    const char *base = MPIDI_config_str("FERRY_STATS_FILE");
    if (!base || !*base)
        return MPI_SUCCESS;
    size_t len = strlen(base) + 16;
    stats_path = malloc(len);
    if (!stats_path)
        return MPIR_Err_create(MPI_ERR_NO_MEM, "out of memory for FERRY_STATS_FILE");
    snprintf(stats_path, len, "%s.%d", base, MPIDI_world.rank);
    stats_fd = open(stats_path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (stats_fd < 0)
        return MPIR_Err_create(MPI_ERR_ARG, "FERRY_STATS_FILE: cannot create %s: %s (errno %d)",
                               stats_path, strerror(errno), errno);
    return MPI_SUCCESS;
}

static void print_verbose(void)
{
    const MPIDI_stats_t *s = &MPIDI_stats;
    fprintf(stderr,
            "ferry: rank %d: eager %lu, rendezvous %lu (read %lu, write %lu, pipeline %lu, "
            "fall-backs %lu, refused %lu), deferred %lu, unexpected %lu (peak %lu bytes held)\n",
            MPIDI_world.rank, s->eager_sent, s->rndv_sent, s->rndv_read, s->rndv_write,
            s->rndv_pipeline, s->rndv_fallback, s->rndv_refused, s->deferred, s->unexpected,
            s->unexpected_bytes_max);
    /* The counters methods registered, after the core's own (printed above). */
    char line[1024];
    size_t n = 0;
    for (int i = ncore; i < nstats; i++) {
        int w = snprintf(line + n, sizeof(line) - n, "%s%s %lu", n ? ", " : "", table[i].name,
                         *table[i].counter);
        if (w < 0 || (size_t)w >= sizeof(line) - n)
            break;
        n += (size_t)w;
    }
    if (n)
        fprintf(stderr, "ferry: rank %d: %s\n", MPIDI_world.rank, line);
}

void MPIDI_stats_finalize(void)
{
    if (MPIDI_config_int("FERRY_VERBOSE"))
        print_verbose();
    if (stats_fd >= 0) {
        FILE *f = fdopen(stats_fd, "w");
        int bad = !f;
        if (f) {
            fprintf(f, "# ferry counters of rank %d of %d\n", MPIDI_world.rank, MPIDI_world.size);
            for (int i = 0; i < nstats; i++)
                fprintf(f, "%s %lu\n", table[i].name, *table[i].counter);
            bad = ferror(f) | (fclose(f) != 0);
        } else {
            close(stats_fd);
        }
        if (bad)
            fprintf(stderr, "ferry: rank %d: could not write the counters to %s\n",
                    MPIDI_world.rank, stats_path);
        stats_fd = -1;
    }
    free(stats_path);
    stats_path = NULL;
    free(table);
    table = NULL;
    nstats = capacity = ncore = 0;
}
