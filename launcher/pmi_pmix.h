/* pmi_pmix.h: the PMIx back end of the PMI client, for processes started by a PMIx server
 * (srun --mpi=pmix, Open MPI's mpirun).  Built only with libpmix (FERRY_HAVE_PMIX), as a module
 * (pmi_pmix.c, installed as PKGLIBDIR/ferry_pmix.so) that pmi_pmix_load.c opens at the first
 * call of a process a PMIx server started: other jobs never load libpmix and what it pulls in. */
#ifndef PMI_PMIX_H_INCLUDED
#define PMI_PMIX_H_INCLUDED

#include <stddef.h>

/* Whether the environment names a PMIx server to connect to. */
int PMIU_pmix_launched(void);
/* Every function returns PMI_SUCCESS or PMI_FAIL with PMIU_last_error() set. */
int PMIU_pmix_init(int *rank_p, int *size_p, int *spawned_p, char *kvsname, size_t len);
int PMIU_pmix_finalize(void);
int PMIU_pmix_universe_size(int *size_p);
int PMIU_pmix_appnum(int *appnum_p);
int PMIU_pmix_put(const char *key, const char *value);
int PMIU_pmix_commit(void);
/* The fence, without collecting data: a peer's key is fetched when first asked
 * for (PMIx's direct modex), so start-up moves no card a rank never needs. */
int PMIU_pmix_fence(void);
/* key must be Ferry's "P<rank>-..." form: PMIx needs the rank that put it. */
int PMIU_pmix_get(const char *key, char *value, int length);
int PMIU_pmix_node_map(int *node_of, int size, int *nnodes_p);
/* Asks the server to end the job; returns only if it could not ask. */
void PMIU_pmix_abort(int exit_code, const char *msg);

/* The module's side: one exported entry point returning the calls above
 * (PMIU_pmix_launched stays in the library: it only reads the environment).
 * The version changes whenever the table does, so a stale module installed
 * beside a newer library is refused with a message, not called. */
#define PMIU_PMIX_MODULE_NAME "ferry_pmix.so"
#define PMIU_PMIX_MODULE_ENTRY "PMIU_pmix_module"
#define PMIU_PMIX_MODULE_VERSION 1
typedef void (*PMIU_pmix_set_error_fn)(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
typedef struct PMIU_pmix_ops {
    int version;
    int (*init)(int *rank_p, int *size_p, int *spawned_p, char *kvsname, size_t len);
    int (*finalize)(void);
    int (*universe_size)(int *size_p);
    int (*appnum)(int *appnum_p);
    int (*put)(const char *key, const char *value);
    int (*commit)(void);
    int (*fence)(void);
    int (*get)(const char *key, char *value, int length);
    int (*node_map)(int *node_of, int size, int *nnodes_p);
    void (*abort)(int exit_code, const char *msg);
} PMIU_pmix_ops_t;
const PMIU_pmix_ops_t *PMIU_pmix_module(PMIU_pmix_set_error_fn set_error);

#endif /* PMI_PMIX_H_INCLUDED */
