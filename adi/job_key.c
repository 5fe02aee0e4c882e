/* job_key.c: the job's secret: from our launcher, or drawn by rank 0 and shared through PMI. */
#include <errno.h>
#include <string.h>
#include <sys/random.h>
#include "adi_impl.h"
#include "pmi.h"
#include "pmi_wire.h"

/* Methods prove with it that a connection comes from a rank of this job
 * (doc/security.md).  Our mpiexec draws it and answers a PMI get of
 * PMIU_SECRET_KEY over the rank's own PMI connection, a socketpair or a
 * PMI_PORT connection that showed its token.  Other process managers (Hydra,
 * Slurm) know no such key: then rank 0 draws one at start-up and puts it
 * under PMIU_SECRET_KV_KEY, where the others fetch it when they first need
 * it (after MPI_Init's barriers, so the put is visible).  Then the key is as
 * private as that process manager's key-value space.
 *
 * Only rank 0 asks at start-up (it must know whether to draw and put).  The
 * others ask when a method first needs the key (tcp, verbs and ofi
 * connections): a job that uses only shm, as one on a single node does,
 * never asks, one PMI request per rank less. */

#define KEY_BYTES 32

static unsigned char key[KEY_BYTES];
static enum {
    KEY_NONE,
    KEY_READY,
    KEY_NOT_ASKED,  /* not a rank 0: the launcher's, else rank 0's, at first use */
    KEY_FROM_RANK0, /* the launcher has none: rank 0 put it */
} key_state;
static MPIDI_job_key_source_t source;

static int from_hex(const char *hex, unsigned char *out, size_t len)
{
    if (strlen(hex) != 2 * len)
        return -1;
    for (size_t i = 0; i < len; i++) {
        int v = 0;
        for (int j = 0; j < 2; j++) {
            char c = hex[2 * i + j];
            int d = c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1;
            if (d < 0)
                return -1;
            v = v * 16 + d;
        }
        out[i] = (unsigned char)v;
    }
    return 0;
}

static int draw(void)
{
    size_t got = 0;
    while (got < sizeof(key)) {
        ssize_t n = getrandom(key + got, sizeof(key) - got, 0);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            return MPIR_Err_create(MPI_ERR_OTHER, "getrandom for the job's secret: %s (errno %d)",
                                   strerror(errno), errno);
        got += (size_t)n;
    }
    return MPI_SUCCESS;
}

/* The launcher's key, if it has one (*found_p); an error only for a
 * malformed one. */
static int from_launcher(int *found_p)
{
    char hex[2 * KEY_BYTES + 8];
    *found_p = 0;
    if (PMI_KVS_Get(MPIDI_world.kvsname, PMIU_SECRET_KEY, hex, sizeof(hex)) != PMI_SUCCESS)
        return MPI_SUCCESS;
    int bad = from_hex(hex, key, sizeof(key));
    memset(hex, 0, sizeof(hex));
    if (bad)
        return MPIR_Err_create(MPI_ERR_OTHER, "PMI key %s does not hold %d hex bytes",
                               PMIU_SECRET_KEY, KEY_BYTES);
    *found_p = 1;
    key_state = KEY_READY;
    source = MPIDI_JOB_KEY_LAUNCHER;
    return MPI_SUCCESS;
}

int MPIDI_job_key_init(void)
{
    char hex[2 * KEY_BYTES + 8];
    if (MPIDI_world.rank != 0) {
        key_state = KEY_NOT_ASKED;
        return MPI_SUCCESS;
    }
    int found, err = from_launcher(&found);
    if (err || found)
        return err;
    source = MPIDI_JOB_KEY_KVS;
    err = draw();
    if (err)
        return err;
    static const char digits[] = "0123456789abcdef";
    for (size_t i = 0; i < sizeof(key); i++) {
        hex[2 * i] = digits[key[i] >> 4];
        hex[2 * i + 1] = digits[key[i] & 15];
    }
    hex[2 * sizeof(key)] = '\0';
    /* No commit here: MPIDI_methods_publish commits it with the cards, before
     * the fence.  Under PMIx a second commit of rank 0's keys can miss a
     * remote node whose server already took the first one (Slurm's pmix
     * plugin: P0-tcp then reads NOT-FOUND there). */
    int rc = PMI_KVS_Put(MPIDI_world.kvsname, PMIU_SECRET_KV_KEY, hex);
    memset(hex, 0, sizeof(hex));
    if (rc != PMI_SUCCESS)
        return MPIR_Err_create(MPI_ERR_OTHER, "PMI put of the job's secret failed: %s",
                               PMIU_last_error());
    key_state = KEY_READY;
    return MPI_SUCCESS;
}

int MPIDU_job_key(const unsigned char **key_p, size_t *len_p, MPIDI_job_key_source_t *source_p)
{
    if (key_state == KEY_NOT_ASKED) {
        int found, err = from_launcher(&found);
        if (err)
            return err;
        if (!found) {
            source = MPIDI_JOB_KEY_KVS;
            key_state = KEY_FROM_RANK0;
        }
    }
    if (key_state == KEY_FROM_RANK0) {
        char hex[2 * KEY_BYTES + 8];
        if (PMI_KVS_Get(MPIDI_world.kvsname, PMIU_SECRET_KV_KEY, hex, sizeof(hex)) != PMI_SUCCESS ||
            from_hex(hex, key, sizeof(key)) != 0) {
            memset(hex, 0, sizeof(hex));
            return MPIR_Err_create(MPI_ERR_OTHER,
                                   "rank %d cannot read the job's secret (PMI key %s, put by "
                                   "rank 0): %s",
                                   MPIDI_world.rank, PMIU_SECRET_KV_KEY, PMIU_last_error());
        }
        memset(hex, 0, sizeof(hex));
        key_state = KEY_READY;
    }
    if (key_state != KEY_READY)
        return MPIR_Err_create(MPI_ERR_INTERN, "the job's secret is asked for before MPI_Init");
    *key_p = key;
    *len_p = sizeof(key);
    if (source_p)
        *source_p = source;
    return MPI_SUCCESS;
}

void MPIDI_job_key_finalize(void)
{
    memset(key, 0, sizeof(key));
    key_state = KEY_NONE;
}
