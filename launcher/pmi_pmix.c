/* pmi_pmix.c: the PMI client's PMIx back end: rank, size, key-value space, fence, locality and
 * abort through libpmix, for srun --mpi=pmix and Open MPI's mpirun.  Built as a module
 * (ferry_pmix.so) that pmi_pmix_load.c opens only when a PMIx server started the process, so no
 * other job loads libpmix with libevent and hwloc (a few milliseconds of every process's start). */
#include "pmi.h"
#include "pmi_pmix.h"

#include <pmix.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A get that no fence can satisfy (a peer that never put the key: another
 * FERRY_METHODS) must not hang the job: the server gives up after this. */
#define GET_TIMEOUT_SEC 60

static pmix_proc_t me;
/* PMI_DEBUG: each call that may message the PMIx server is printed like the
 * PMI-1 client's lines ("send:"), so requests can be counted the same way;
 * the job-level gets are answered from the client's own copy and are not. */
static int debug;
/* The PMI client's error setter, handed over when the module is opened. */
static PMIU_pmix_set_error_fn set_error;

static void trace(const char *call, const char *arg)
{
    if (debug)
        fprintf(stderr, "[pmix rank %d] send: %s %s\n", (int)me.rank, call, arg ? arg : "");
}

static int pmix_fail(const char *what, pmix_status_t rc)
{
    set_error("%s: %s (PMIx status %d)", what, PMIx_Error_string(rc), (int)rc);
    return PMI_FAIL;
}

/* A job-level number (size, universe size) of our namespace. */
static int get_job_u32(const char *key, const char *what, int *out)
{
    pmix_proc_t job;
    pmix_value_t *val = NULL;

    PMIX_LOAD_PROCID(&job, me.nspace, PMIX_RANK_WILDCARD);
    pmix_status_t rc = PMIx_Get(&job, key, NULL, 0, &val);
    if (rc != PMIX_SUCCESS)
        return pmix_fail(what, rc);
    int type = (int)val->type;
    if (type == PMIX_UINT32)
        *out = (int)val->data.uint32;
    PMIX_VALUE_RELEASE(val);
    if (type != PMIX_UINT32) {
        set_error("%s: PMIx value of type %d, expected uint32", what, type);
        return PMI_FAIL;
    }
    return PMI_SUCCESS;
}

static int pmix_init(int *rank_p, int *size_p, int *spawned_p, char *kvsname, size_t len)
{
    const char *d = getenv("PMI_DEBUG");
    debug = d && atoi(d) != 0;
    pmix_status_t rc = PMIx_Init(&me, NULL, 0);
    if (rc != PMIX_SUCCESS)
        return pmix_fail("PMIx_Init", rc);
    trace("PMIx_Init", NULL);
    if (get_job_u32(PMIX_JOB_SIZE, "PMIx_Get of the job size", size_p) != PMI_SUCCESS)
        goto fn_fail;
    *rank_p = (int)me.rank;
    *spawned_p = 0;
    if (strlen(me.nspace) >= len) {
        set_error("PMIx namespace %s is longer than %zu bytes", me.nspace, len - 1);
        goto fn_fail;
    }
    strcpy(kvsname, me.nspace);
    return PMI_SUCCESS;

fn_fail:
    PMIx_Finalize(NULL, 0);
    return PMI_FAIL;
}

static int pmix_finalize(void)
{
    trace("PMIx_Finalize", NULL);
    pmix_status_t rc = PMIx_Finalize(NULL, 0);
    return rc == PMIX_SUCCESS ? PMI_SUCCESS : pmix_fail("PMIx_Finalize", rc);
}

static int pmix_universe_size(int *size_p)
{
    return get_job_u32(PMIX_UNIV_SIZE, "PMIx_Get of the universe size", size_p);
}

static int pmix_appnum(int *appnum_p)
{
    pmix_value_t *val = NULL;
    pmix_status_t rc = PMIx_Get(&me, PMIX_APPNUM, NULL, 0, &val);
    if (rc != PMIX_SUCCESS)
        return pmix_fail("PMIx_Get of the appnum", rc);
    *appnum_p = val->type == PMIX_UINT32 ? (int)val->data.uint32 : 0;
    PMIX_VALUE_RELEASE(val);
    return PMI_SUCCESS;
}

static int pmix_put(const char *key, const char *value)
{
    pmix_value_t v;
    PMIX_VALUE_LOAD(&v, value, PMIX_STRING);
    pmix_status_t rc = PMIx_Put(PMIX_GLOBAL, key, &v);
    PMIX_VALUE_DESTRUCT(&v);
    if (rc != PMIX_SUCCESS) {
        char what[128];
        snprintf(what, sizeof(what), "PMIx_Put of %.80s", key);
        return pmix_fail(what, rc);
    }
    return PMI_SUCCESS;
}

static int pmix_commit(void)
{
    trace("PMIx_Commit", NULL);
    pmix_status_t rc = PMIx_Commit();
    return rc == PMIX_SUCCESS ? PMI_SUCCESS : pmix_fail("PMIx_Commit", rc);
}

static int pmix_fence(void)
{
    pmix_proc_t all;
    pmix_info_t info;
    bool collect = false;

    PMIX_LOAD_PROCID(&all, me.nspace, PMIX_RANK_WILDCARD);
    PMIX_INFO_LOAD(&info, PMIX_COLLECT_DATA, &collect, PMIX_BOOL);
    trace("PMIx_Fence", NULL);
    pmix_status_t rc = PMIx_Fence(&all, 1, &info, 1);
    PMIX_INFO_DESTRUCT(&info);
    return rc == PMIX_SUCCESS ? PMI_SUCCESS : pmix_fail("PMIx_Fence", rc);
}

static int pmix_get(const char *key, char *value, int length)
{
    pmix_proc_t owner;
    pmix_value_t *val = NULL;
    pmix_info_t info;
    int timeout = GET_TIMEOUT_SEC;
    char *end;
    char what[128];

    /* PMIx keeps each rank's keys apart: Ferry's keys name their owner. */
    long rank = key[0] == 'P' ? strtol(key + 1, &end, 10) : -1;
    if (rank < 0 || end == key + 1 || *end != '-') {
        set_error("PMI_KVS_Get key=%s: under PMIx a key must be P<rank>-<name>", key);
        return PMI_FAIL;
    }
    PMIX_LOAD_PROCID(&owner, me.nspace, (pmix_rank_t)rank);
    PMIX_INFO_LOAD(&info, PMIX_TIMEOUT, &timeout, PMIX_INT);
    trace("PMIx_Get", key);
    pmix_status_t rc = PMIx_Get(&owner, key, &info, 1, &val);
    PMIX_INFO_DESTRUCT(&info);
    snprintf(what, sizeof(what), "PMIx_Get of %.80s", key);
    if (rc != PMIX_SUCCESS)
        return pmix_fail(what, rc);
    int ok =
        val->type == PMIX_STRING && val->data.string && strlen(val->data.string) < (size_t)length;
    if (ok)
        strcpy(value, val->data.string);
    else
        set_error("%s: not a string that fits %d bytes", what, length);
    PMIX_VALUE_RELEASE(val);
    return ok ? PMI_SUCCESS : PMI_FAIL;
}

/* The job's nodes in the server's order, and the ranks on each: data every
 * client holds from PMIx_Init, so no request per rank. */
static int pmix_node_map(int *node_of, int size, int *nnodes_p)
{
    char *nodes = NULL, *save = NULL;
    int nnodes = 0, placed = 0;

    pmix_status_t rc = PMIx_Resolve_nodes(me.nspace, &nodes);
    if (rc != PMIX_SUCCESS || nodes == NULL)
        return pmix_fail("PMIx_Resolve_nodes", rc);
    for (int r = 0; r < size; r++)
        node_of[r] = -1;
    for (char *node = strtok_r(nodes, ",", &save); node; node = strtok_r(NULL, ",", &save)) {
        pmix_proc_t *procs = NULL;
        size_t nprocs = 0;
        rc = PMIx_Resolve_peers(node, me.nspace, &procs, &nprocs);
        if (rc != PMIX_SUCCESS) {
            free(nodes);
            return pmix_fail("PMIx_Resolve_peers", rc);
        }
        for (size_t i = 0; i < nprocs; i++)
            if (procs[i].rank < (pmix_rank_t)size && node_of[procs[i].rank] < 0) {
                node_of[procs[i].rank] = nnodes;
                placed++;
            }
        if (nprocs)
            nnodes++;
        PMIX_PROC_FREE(procs, nprocs);
    }
    free(nodes);
    if (placed != size) {
        set_error("PMIx places %d of the job's %d ranks on its %d nodes", placed, size, nnodes);
        return PMI_FAIL;
    }
    if (nnodes_p)
        *nnodes_p = nnodes;
    return PMI_SUCCESS;
}

static void pmix_abort(int exit_code, const char *msg)
{
    /* NULL procs: the whole namespace, as PMI's abort. */
    PMIx_Abort(exit_code, msg && msg[0] ? msg : "MPI_Abort", NULL, 0);
}

const PMIU_pmix_ops_t *PMIU_pmix_module(PMIU_pmix_set_error_fn set_error_fn)
{
    static const PMIU_pmix_ops_t ops = {
        .version = PMIU_PMIX_MODULE_VERSION,
        .init = pmix_init,
        .finalize = pmix_finalize,
        .universe_size = pmix_universe_size,
        .appnum = pmix_appnum,
        .put = pmix_put,
        .commit = pmix_commit,
        .fence = pmix_fence,
        .get = pmix_get,
        .node_map = pmix_node_map,
        .abort = pmix_abort,
    };
    set_error = set_error_fn;
    return &ops;
}
