/* pmi_pmix_load.c: opens the PMIx module (pmi_pmix.c, PKGLIBDIR/ferry_pmix.so) when a PMIx
 * server started the process, and forwards the PMI client's PMIx calls to it.
 *
 * Why a module: libpmix brings libevent, hwloc, libudev and libmunge with it.  Linked into
 * libmpi, every process of every job paid for loading and relocating them (about 3 ms a
 * process here, 0.5 s of a 256-rank start on two cores), although only srun --mpi=pmix and
 * Open MPI's mpirun need them. */
#include <dlfcn.h>
#include <limits.h>
#include <stdlib.h>

#include "module_open.h"
#include "pmi.h"
#include "pmi_pmix.h"
#include "pmi_wire.h"

static const PMIU_pmix_ops_t *ops;

int PMIU_pmix_launched(void)
{
    return getenv("PMIX_NAMESPACE") != NULL && getenv("PMIX_RANK") != NULL;
}

int PMIU_pmix_init(int *rank_p, int *size_p, int *spawned_p, char *kvsname, size_t len)
{
    char tried[2 * PATH_MAX];
    void *h = MPIDU_module_open(PMIU_PMIX_MODULE_NAME, tried, sizeof(tried));
    if (h == NULL) {
        PMIU_set_error("started by a PMIx launcher, but Ferry's PMIx module could not be loaded: "
                       "tried %s",
                       tried);
        return PMI_FAIL;
    }
    const PMIU_pmix_ops_t *(*entry)(PMIU_pmix_set_error_fn) =
        (const PMIU_pmix_ops_t *(*)(PMIU_pmix_set_error_fn))dlsym(h, PMIU_PMIX_MODULE_ENTRY);
    const PMIU_pmix_ops_t *o = entry ? entry(PMIU_set_error) : NULL;
    if (o == NULL || o->version != PMIU_PMIX_MODULE_VERSION) {
        PMIU_set_error("Ferry's PMIx module (%s) does not match this library (%s): reinstall Ferry",
                       PMIU_PMIX_MODULE_NAME, o ? "another version" : "no entry point");
        dlclose(h);
        return PMI_FAIL;
    }
    ops = o; /* never closed: libpmix keeps threads of its own */
    return ops->init(rank_p, size_p, spawned_p, kvsname, len);
}

int PMIU_pmix_finalize(void)
{
    return ops->finalize();
}

int PMIU_pmix_universe_size(int *size_p)
{
    return ops->universe_size(size_p);
}

int PMIU_pmix_appnum(int *appnum_p)
{
    return ops->appnum(appnum_p);
}

int PMIU_pmix_put(const char *key, const char *value)
{
    return ops->put(key, value);
}

int PMIU_pmix_commit(void)
{
    return ops->commit();
}

int PMIU_pmix_fence(void)
{
    return ops->fence();
}

int PMIU_pmix_get(const char *key, char *value, int length)
{
    return ops->get(key, value, length);
}

int PMIU_pmix_node_map(int *node_of, int size, int *nnodes_p)
{
    return ops->node_map(node_of, size, nnodes_p);
}

void PMIU_pmix_abort(int exit_code, const char *msg)
{
    ops->abort(exit_code, msg);
}
