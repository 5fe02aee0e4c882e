/* init.c: device start-up (PMI, node map, methods) and shutdown. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "adi_impl.h"
#include "mpidi_config.h"
#include "pmi.h"

MPIDI_world_t MPIDI_world = {.rank = -1}; /* -1 until PMI says (MPID_Abort names the pid) */
MPID_upcalls_t MPIDI_upcalls;
static int *node_of, *local_ranks;
void MPIDI_progress_init(void);

static int pmi_err(const char *what)
{
    return MPIR_Err_create(MPI_ERR_OTHER, "PMI %s failed: %s", what, PMIU_last_error());
}

/* Without a mapping from the launcher: every rank publishes its host name and
 * reads everyone's, and ranks with equal names share a node (numbered by first
 * rank).  That is size requests per rank, so it is only the fallback. */
static int node_map_from_hostnames(void)
{
    MPIDI_world_t *w = &MPIDI_world;
    char key[64], val[MPI_MAX_PROCESSOR_NAME];
    snprintf(key, sizeof(key), "P%d-host", w->rank);
    if (PMI_KVS_Put(w->kvsname, key, w->hostname) || PMI_KVS_Commit(w->kvsname))
        return pmi_err("put of the host name");
    if (PMI_Barrier())
        return pmi_err("barrier");
    char(*hosts)[MPI_MAX_PROCESSOR_NAME] = calloc(w->size, sizeof(*hosts));
    if (!hosts)
        return MPIR_Err_create(MPI_ERR_NO_MEM, "out of memory for the node map");
    int nnodes = 0;
    for (int r = 0; r < w->size; r++) {
        snprintf(key, sizeof(key), "P%d-host", r);
        if (r == w->rank)
            memcpy(val, w->hostname, sizeof(val)); /* same size: both MPI_MAX_PROCESSOR_NAME */
        else if (PMI_KVS_Get(w->kvsname, key, val, sizeof(val))) {
            free(hosts);
            return pmi_err("get of a host name");
        }
        snprintf(hosts[r], sizeof(hosts[r]), "%s", val);
        node_of[r] = -1;
        for (int q = 0; q < r; q++) {
            if (strcmp(hosts[q], hosts[r]) == 0) {
                node_of[r] = node_of[q];
                break;
            }
        }
        if (node_of[r] < 0)
            node_of[r] = nnodes++;
    }
    free(hosts);
    return MPI_SUCCESS;
}

/* Finds which ranks share this node.  The launcher's one locality value
 * (PMI_process_mapping, PMIx's node ids) gives it with no request per peer;
 * only a launcher without one costs the host-name exchange. */
static int build_node_map(MPIDI_job_t *job)
{
    MPIDI_world_t *w = &MPIDI_world;
    node_of = calloc(w->size, sizeof(int));
    local_ranks = calloc(w->size, sizeof(int));
    if (!node_of || !local_ranks)
        return MPIR_Err_create(MPI_ERR_NO_MEM, "out of memory for the node map");
    if (PMIU_get_node_map(node_of, w->size, NULL) != PMI_SUCCESS) {
        if (MPIDI_config_int("FERRY_VERBOSE"))
            fprintf(stderr,
                    "ferry: rank %d: no node map from the launcher (%s); exchanging "
                    "host names\n",
                    w->rank, PMIU_last_error());
        int err = node_map_from_hostnames();
        if (err)
            return err;
    }
    job->node_id = node_of[w->rank];
    job->nlocal = 0;
    for (int r = 0; r < w->size; r++) {
        if (node_of[r] == job->node_id) {
            if (r == w->rank)
                job->local_index = job->nlocal;
            local_ranks[job->nlocal++] = r;
        }
    }
    job->local_ranks = local_ranks;
    job->node_of = node_of;
    w->nlocal = job->nlocal;
    long ncpu = sysconf(_SC_NPROCESSORS_ONLN);
    w->oversubscribed = ncpu > 0 && job->nlocal > ncpu;
    job->oversubscribed = w->oversubscribed;
    return MPI_SUCCESS;
}

int MPIDI_node_of(int rank)
{
    return node_of[rank];
}

int MPID_Init(const MPID_upcalls_t *upcalls)
{
    MPIDI_world_t *w = &MPIDI_world;
    MPIDI_upcalls = *upcalls;
    int err = MPIDI_config_init();
    if (err)
        return MPIR_Err_create(MPI_ERR_ARG, "invalid FERRY_ environment variable (see the "
                                            "message above and doc/tuning.md)");
    int spawned;
    w->rank = -1; /* until PMI says: an error before that names the pid instead */
    if (PMI_Init(&spawned) || PMI_Get_rank(&w->rank) || PMI_Get_size(&w->size) ||
        PMI_KVS_Get_my_name(w->kvsname, sizeof(w->kvsname)))
        return pmi_err("initialisation");
    /* Hydra answers -1 when the user gave no universe size. */
    if (PMI_Get_universe_size(&w->universe_size) || w->universe_size < w->size)
        w->universe_size = w->size;
    if (PMI_Get_appnum(&w->appnum))
        w->appnum = 0;
    if (gethostname(w->hostname, sizeof(w->hostname)) != 0)
        snprintf(w->hostname, sizeof(w->hostname), "localhost");
    w->hostname[sizeof(w->hostname) - 1] = '\0';

    MPIDI_job_t job = {
        .rank = w->rank, .size = w->size, .kvsname = w->kvsname, .hostname = w->hostname};
    /* Before the fence: under another process manager rank 0 puts the secret
     * it draws, and the others read it when they first need it. */
    if ((err = MPIDI_job_key_init()))
        return err;
    if ((err = build_node_map(&job)))
        goto fn_fail;
    MPIDI_flow_init();
    if ((err = MPIDI_stats_init()))
        goto fn_fail;
    /* From here a failure finalizes the methods started (methods_init does
     * it for its own failures), so nothing outlives a failed start-up: no
     * shm segment name, no listening socket. */
    if ((err = MPIDI_methods_init(&job)))
        goto fn_fail;
    if ((err = MPIDI_stats_register_methods()))
        goto finalize_methods;
    if ((err = MPIDI_methods_publish()))
        goto finalize_methods;
    if (PMI_Barrier()) {
        err = pmi_err("barrier");
        goto finalize_methods;
    }
    if ((err = MPIDI_methods_post_init()))
        goto finalize_methods;
    MPIDI_progress_init();
    return MPI_SUCCESS;

finalize_methods:
    MPIDI_methods_finalize();
fn_fail:
    free(node_of);
    free(local_ranks);
    node_of = local_ranks = NULL;
    return err;
}

static int nothing_left(void *arg)
{
    return !MPIDI_deferred_pending();
}

int MPID_Finalize(void)
{
    /* Everything queued must leave before the methods close.  The MPI layer
     * has already run a barrier over the device, so no peer still needs us. */
    MPID_Progress_wait(nothing_left, NULL);
    MPIDI_stats_finalize();
    int err = MPIDI_methods_finalize();
    MPIDI_recvq_finalize();
    MPIDI_job_key_finalize();
    free(node_of);
    free(local_ranks);
    if (PMI_Finalize())
        return err ? err : pmi_err("finalize");
    return err;
}

void MPID_Abort(int exit_code, const char *msg)
{
    /* What the program printed before the error leaves first (stdout into mpiexec's pipe is
     * fully buffered, and _exit or the process manager's kill would drop it). */
    fflush(NULL);
    if (MPIDI_world.rank >= 0)
        fprintf(stderr, "ferry: rank %d: %s\n", MPIDI_world.rank, msg);
    else
        fprintf(stderr, "ferry: pid %ld (rank not known yet): %s\n", (long)getpid(), msg);
    fflush(stderr);
    PMI_Abort(exit_code, NULL); /* NULL: the message is printed once, here */
    /* Without a process manager (or if it did not kill us), end here. */
    _exit(exit_code ? exit_code : 1);
}
