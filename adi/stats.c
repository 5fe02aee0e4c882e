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
    char *name; /* a copy */
    const unsigned long *counter;
    unsigned long (*level)(void); /* a level's value, read when asked (counter is NULL) */
    unsigned long final;          /* the value when the device ended, which counter then names */
    MPID_stat_kind_t kind;
} stat_entry_t;

static stat_entry_t *table;
static int nstats, capacity;
/* The table: the device's own counters [0, ncore), those methods registered in their init
 * [ncore, nmethod_end), then each method's protocol counters.  It stays after the device ends,
 * each entry with its final value, since MPI_T may still read it (MPID_Stat_read). */
static int ncore, nmethod_end;
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

/* Adds an entry that reads *counter_p or, for a level, calls level. */
static int add_entry(const char *name, const unsigned long *counter_p, unsigned long (*level)(void))
{
    if (!valid_name(name) || !(counter_p || level))
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
    if (!(table[nstats].name = strdup(name)))
        return MPIR_Err_create(MPI_ERR_NO_MEM, "out of memory registering counter %s", name);
    table[nstats].counter = counter_p;
    table[nstats].level = level;
    /* The naming rule of doc/method-api.md: a name ending in _max is a maximum. */
    size_t len = strlen(name);
    table[nstats].kind = level                                        ? MPID_STAT_LEVEL
                         : len > 4 && !strcmp(name + len - 4, "_max") ? MPID_STAT_HIGHWATER
                                                                      : MPID_STAT_COUNTER;
    nstats++;
    return MPI_SUCCESS;
}

int MPIDU_stat_register(const char *name, const unsigned long *counter_p)
{
    return add_entry(name, counter_p, NULL);
}

static unsigned long value_of(const stat_entry_t *e)
{
    return e->counter ? *e->counter : e->level();
}

/* The receive queues now, for MPI_T only: counted when read, so the message path pays
 * nothing. */
static unsigned long posted_now(void)
{
    size_t posted, unexp;
    MPIDI_recvq_lengths(&posted, &unexp);
    return posted;
}
static unsigned long unexpected_now(void)
{
    size_t posted, unexp;
    MPIDI_recvq_lengths(&posted, &unexp);
    return unexp;
}
static unsigned long unexpected_bytes_now(void)
{
    return MPIDI_recvq_unexp_bytes();
}

int MPIDU_stat_register_all(const MPIDU_stat_t *table_in, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        int err = MPIDU_stat_register(table_in[i].name, table_in[i].counter);
        if (err)
            return err;
    }
    return MPI_SUCCESS;
}

/* The protocol counters of one method, or their sums, as prefix + their name. */
static int register_proto(const char *prefix, MPIDI_proto_stats_t *s)
{
    const struct {
        const char *name;
        const unsigned long *counter;
    } proto[] = {
        {"eager_sent", &s->eager_sent},
        {"eager_bytes", &s->eager_bytes},
        {"eager_bytes_max", &s->eager_bytes_max},
        {"rndv_sent", &s->rndv_sent},
        {"rndv_read", &s->rndv_read},
        {"rndv_write", &s->rndv_write},
        {"rndv_pipeline", &s->rndv_pipeline},
        {"rndv_fallback", &s->rndv_fallback},
        {"rndv_refused", &s->rndv_refused},
    };
    char name[96];
    int err;
    for (size_t i = 0; i < sizeof(proto) / sizeof(proto[0]); i++) {
        snprintf(name, sizeof(name), "%s%s", prefix, proto[i].name);
        if ((err = MPIDU_stat_register(name, proto[i].counter)))
            return err;
    }
    return MPI_SUCCESS;
}

/* Every built method's, so that a condition on a method this run did not start reads zeros
 * (while a misspelt name is still missing). */
int MPIDI_stats_register_methods(void)
{
    static MPIDI_proto_stats_t not_started; /* stays zero */
    char prefix[64];
    int err;
    nmethod_end = nstats;
    for (int m = 0; MPIDI_methods_all[m]; m++) {
        MPIDI_proto_stats_t *s = &not_started;
        for (int i = 0; i < MPIDI_nactive; i++)
            if (MPIDI_active[i].ops == MPIDI_methods_all[m])
                s = &MPIDI_active[i].stats;
        snprintf(prefix, sizeof(prefix), "%s_", MPIDI_methods_all[m]->name);
        if ((err = register_proto(prefix, s)))
            return err;
    }
    return MPI_SUCCESS;
}

int MPIDI_stats_init(void)
{
    static const MPIDU_stat_t core[] = {
        {"deferred", &MPIDI_stats.deferred},
        {"unexpected", &MPIDI_stats.unexpected},
        {"unexpected_bytes_max", &MPIDI_stats.unexpected_bytes_max},
        {"progress_yields", &MPIDI_stats.progress_yields},
        {"progress_sleeps", &MPIDI_stats.progress_sleeps},
        {"rdma_parked", &MPIDI_stats.rdma_parked},
        {"unexp_pauses", &MPIDI_stats.unexp_pauses},
        {"unexp_resumes", &MPIDI_stats.unexp_resumes},
        {"eager_paused", &MPIDI_stats.eager_paused},
        {"eager_to_rndv", &MPIDI_stats.eager_to_rndv},
    };
    static const struct {
        const char *name;
        unsigned long (*level)(void);
    } levels[] = {
        {"recvq_posted", posted_now},
        {"recvq_unexpected", unexpected_now},
        {"recvq_unexpected_bytes", unexpected_bytes_now},
    };
    int err = register_proto("", &MPIDI_stats.proto);
    if (err)
        return err;
    if ((err = MPIDU_stat_register_all(core, sizeof(core) / sizeof(core[0]))))
        return err;
    for (size_t i = 0; i < sizeof(levels) / sizeof(levels[0]); i++)
        if ((err = add_entry(levels[i].name, NULL, levels[i].level)))
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

static void print_proto(const char *by, const MPIDI_proto_stats_t *p)
{
    fprintf(stderr,
            "ferry: rank %d: %s%seager %lu, rendezvous %lu (read %lu, write %lu, pipeline %lu, "
            "fall-backs %lu, refused %lu)",
            MPIDI_world.rank, by, *by ? ": " : "", p->eager_sent, p->rndv_sent, p->rndv_read,
            p->rndv_write, p->rndv_pipeline, p->rndv_fallback, p->rndv_refused);
}

static void print_verbose(void)
{
    const MPIDI_stats_t *s = &MPIDI_stats;
    print_proto("", &s->proto);
    fprintf(stderr, ", deferred %lu, unexpected %lu (peak %lu bytes held)\n", s->deferred,
            s->unexpected, s->unexpected_bytes_max);
    /* Per method, where there were messages, when more than one method runs. */
    for (int i = 0; i < MPIDI_nactive; i++) {
        const MPIDI_proto_stats_t *p = &MPIDI_active[i].stats;
        if (p->eager_sent + p->rndv_sent + p->rndv_read + p->rndv_write + p->rndv_pipeline) {
            print_proto(MPIDI_active[i].ops->name, p);
            fputc('\n', stderr);
        }
    }
    /* The counters methods registered themselves. */
    char line[1024];
    size_t n = 0;
    for (int i = ncore; i < nmethod_end; i++) {
        int w = snprintf(line + n, sizeof(line) - n, "%s%s %lu", n ? ", " : "", table[i].name,
                         value_of(&table[i]));
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
                fprintf(f, "%s %lu\n", table[i].name, value_of(&table[i]));
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
    /* The counters live in the methods, which end next: keep what they say. */
    for (int i = 0; i < nstats; i++) {
        table[i].final = value_of(&table[i]);
        table[i].counter = &table[i].final;
        table[i].level = NULL;
    }
}

int MPID_Stat_count(void)
{
    return nstats;
}

const char *MPID_Stat_name(int i)
{
    return table[i].name;
}

MPID_stat_kind_t MPID_Stat_kind(int i)
{
    return table[i].kind;
}

unsigned long MPID_Stat_read(int i)
{
    return value_of(&table[i]);
}
