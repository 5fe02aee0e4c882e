/* info.c: info objects (ordered key/value pairs) and the MPI_Info_ calls. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "mpiimpl.h"

typedef struct pair {
    struct pair *next;
    char *key, *value;
} pair_t;

typedef struct {
    int in_use;
    pair_t *head;
} info_t;

#define MAX_INFOS 4096
static info_t infos[MAX_INFOS]; /* index 0 is MPI_INFO_ENV */

static info_t *info_get(MPI_Info info)
{
    int i = info & 0x03ffffff;
    if ((info & 0xfc000000) != MPIR_HANDLE_KIND_INFO || i >= MAX_INFOS || !infos[i].in_use)
        return NULL;
    return &infos[i];
}

static int check_info(MPI_Info info, info_t **p)
{
    *p = info_get(info);
    if (*p)
        return MPI_SUCCESS;
    return MPIR_Err_create(MPI_ERR_INFO, "Invalid info object %#x%s", (unsigned)info,
                           info == MPI_INFO_NULL ? " (MPI_INFO_NULL)" : "");
}

int MPIR_Check_info_or_null(MPI_Info info)
{
    info_t *p;
    return info == MPI_INFO_NULL ? MPI_SUCCESS : check_info(info, &p);
}

static int check_key(const char *key)
{
    if (!key)
        return MPIR_Err_create(MPI_ERR_INFO_KEY, "key is NULL");
    size_t n = strlen(key);
    if (n == 0 || n > MPI_MAX_INFO_KEY)
        return MPIR_Err_create(MPI_ERR_INFO_KEY, "info key of %zu characters (1..%d allowed)", n,
                               MPI_MAX_INFO_KEY);
    return MPI_SUCCESS;
}

static pair_t **find(info_t *p, const char *key)
{
    for (pair_t **pp = &p->head; *pp; pp = &(*pp)->next)
        if (strcmp((*pp)->key, key) == 0)
            return pp;
    return NULL;
}

static int set(info_t *p, const char *key, const char *value)
{
    pair_t **pp = find(p, key);
    char *v = strdup(value);
    if (!v)
        return MPIR_Err_create(MPI_ERR_NO_MEM, "out of memory setting info key %s", key);
    if (pp) {
        free((*pp)->value);
        (*pp)->value = v;
        return MPI_SUCCESS;
    }
    pair_t *n = malloc(sizeof(*n));
    char *k = strdup(key);
    if (!n || !k) {
        free(n);
        free(k);
        free(v);
        return MPIR_Err_create(MPI_ERR_NO_MEM, "out of memory setting info key %s", key);
    }
    *n = (pair_t){.key = k, .value = v};
    pair_t **tail = &p->head;
    while (*tail)
        tail = &(*tail)->next;
    *tail = n;
    return MPI_SUCCESS;
}

static void clear(info_t *p)
{
    while (p->head) {
        pair_t *n = p->head;
        p->head = n->next;
        free(n->key);
        free(n->value);
        free(n);
    }
}

/* MPI_INFO_ENV: what the job was started with, as far as Ferry knows it.  Before MPI_Init
 * (an MPI_Info_ call may come first) the size is what the launcher said (PMI_SIZE, else 1) and
 * the host this one's name; from MPI_Init on, the job's own. */
static int env_from_job; /* built from the job, after MPI_Init: final */
static void env_init(void)
{
    if (infos[0].in_use && (env_from_job || MPIR_initialized == 0))
        return;
    if (infos[0].in_use)
        clear(&infos[0]);
    infos[0].in_use = 1;
    char size[32], host[MPI_MAX_PROCESSOR_NAME] = "";
    if (MPIR_initialized != 0) {
        snprintf(size, sizeof(size), "%d", MPIDI_world.size);
        snprintf(host, sizeof(host), "%s", MPIDI_world.hostname);
        env_from_job = 1;
    } else {
        const char *n = getenv("PMI_SIZE");
        snprintf(size, sizeof(size), "%d", n && atoi(n) > 0 ? atoi(n) : 1);
        gethostname(host, sizeof(host) - 1);
    }
    set(&infos[0], "maxprocs", size);
    set(&infos[0], "host", host);
    set(&infos[0], "thread_level", "MPI_THREAD_MULTIPLE"); /* the highest provided */
}

int MPIR_Info_create_impl(MPI_Info *info)
{
    env_init();
    for (int i = 1; i < MAX_INFOS; i++) {
        if (!infos[i].in_use) {
            infos[i] = (info_t){.in_use = 1};
            *info = MPIR_HANDLE_KIND_INFO | i;
            return MPI_SUCCESS;
        }
    }
    return MPIR_Err_create(MPI_ERR_NO_MEM, "out of info objects (%d at most)", MAX_INFOS - 1);
}

int MPIR_Info_dup_impl(MPI_Info info, MPI_Info *newinfo)
{
    *newinfo = MPI_INFO_NULL;
    if (info == MPI_INFO_NULL)
        return MPI_SUCCESS;
    env_init();
    info_t *p;
    int err = check_info(info, &p);
    if (!err)
        err = MPIR_Info_create_impl(newinfo);
    for (pair_t *n = p ? p->head : NULL; !err && n; n = n->next)
        err = set(info_get(*newinfo), n->key, n->value);
    return err;
}

void MPIR_Info_release(MPI_Info info)
{
    info_t *p = info == MPI_INFO_ENV ? NULL : info_get(info);
    if (p) {
        clear(p);
        p->in_use = 0;
    }
}

int MPIR_Info_get_impl(MPI_Info info, const char *key, int valuelen, char *value, int *flag)
{
    info_t *p = info_get(info);
    pair_t **pp = p ? find(p, key) : NULL;
    *flag = pp != NULL;
    if (pp)
        snprintf(value, valuelen, "%s", (*pp)->value);
    return MPI_SUCCESS;
}

int MPIR_Info_keep_only(MPI_Info info, const char *const keys[])
{
    info_t *p = info_get(info);
    pair_t **pp = p ? &p->head : NULL;
    while (pp && *pp) {
        int keep = 0;
        for (int i = 0; keys[i] && !keep; i++)
            keep = strcmp((*pp)->key, keys[i]) == 0;
        if (keep) {
            pp = &(*pp)->next;
            continue;
        }
        pair_t *n = *pp;
        *pp = n->next;
        free(n->key);
        free(n->value);
        free(n);
    }
    return MPI_SUCCESS;
}

#pragma weak MPI_Info_create = PMPI_Info_create
int PMPI_Info_create(MPI_Info *info)
{
    MPIR_CS_GUARD; /* (also outside MPI_Init..MPI_Finalize) */
    int err = info ? MPIR_Info_create_impl(info) : MPIR_Err_create(MPI_ERR_ARG, "info is NULL");
    return MPIR_Err_return(NULL, "MPI_Info_create", err);
}

#pragma weak MPI_Info_create_env = PMPI_Info_create_env
int PMPI_Info_create_env(int argc, char *argv[], MPI_Info *info)
{
    MPIR_CS_GUARD; /* (also outside MPI_Init..MPI_Finalize) */
    (void)argc;
    (void)argv;
    env_init();
    int err = info ? MPIR_Info_dup_impl(MPI_INFO_ENV, info)
                   : MPIR_Err_create(MPI_ERR_ARG, "info is NULL");
    return MPIR_Err_return(NULL, "MPI_Info_create_env", err);
}

/* MPI-4.1 leaves the keys to the implementation; Ferry knows of no hardware resource a
 * program could ask for by name (MPI_COMM_TYPE_HW_GUIDED takes mpi_shared_memory), so the info
 * is empty, as Open MPI's is.  Like the other info calls, it may be made at any time. */
#pragma weak MPI_Get_hw_resource_info = PMPI_Get_hw_resource_info
int PMPI_Get_hw_resource_info(MPI_Info *hw_info)
{
    MPIR_CS_GUARD;
    int err = hw_info ? MPIR_Info_create_impl(hw_info)
                      : MPIR_Err_create(MPI_ERR_ARG, "hw_info is NULL");
    return MPIR_Err_return(NULL, "MPI_Get_hw_resource_info", err);
}

#pragma weak MPI_Info_dup = PMPI_Info_dup
int PMPI_Info_dup(MPI_Info info, MPI_Info *newinfo)
{
    MPIR_CS_GUARD; /* (also outside MPI_Init..MPI_Finalize) */
    env_init();
    info_t *p;
    int err = check_info(info, &p);
    if (!err)
        err = newinfo ? MPIR_Info_dup_impl(info, newinfo)
                      : MPIR_Err_create(MPI_ERR_ARG, "newinfo is NULL");
    return MPIR_Err_return(NULL, "MPI_Info_dup", err);
}

#pragma weak MPI_Info_free = PMPI_Info_free
int PMPI_Info_free(MPI_Info *info)
{
    MPIR_CS_GUARD; /* (also outside MPI_Init..MPI_Finalize) */
    info_t *p = NULL;
    int err = info ? check_info(*info, &p) : MPIR_Err_create(MPI_ERR_ARG, "info is NULL");
    if (!err && *info == MPI_INFO_ENV)
        err = MPIR_Err_create(MPI_ERR_INFO, "MPI_INFO_ENV cannot be freed");
    if (err)
        return MPIR_Err_return(NULL, "MPI_Info_free", err);
    MPIR_Info_release(*info);
    *info = MPI_INFO_NULL;
    return MPI_SUCCESS;
}

int MPIR_Info_set_impl(MPI_Info info, const char *key, const char *value)
{
    info_t *p;
    int err = check_info(info, &p);
    return err ? err : set(p, key, value);
}

#pragma weak MPI_Info_set = PMPI_Info_set
int PMPI_Info_set(MPI_Info info, const char *key, const char *value)
{
    MPIR_CS_GUARD; /* (also outside MPI_Init..MPI_Finalize) */
    info_t *p;
    int err = check_info(info, &p);
    if (!err)
        err = check_key(key);
    if (!err && (!value || strlen(value) > MPI_MAX_INFO_VAL || !*value))
        err = MPIR_Err_create(MPI_ERR_INFO_VALUE,
                              "info value for key %s is NULL, empty or "
                              "longer than %d",
                              key, MPI_MAX_INFO_VAL);
    if (!err && info == MPI_INFO_ENV)
        err = MPIR_Err_create(MPI_ERR_INFO, "MPI_INFO_ENV cannot be changed");
    if (!err)
        err = set(p, key, value);
    return MPIR_Err_return(NULL, "MPI_Info_set", err);
}

#pragma weak MPI_Info_delete = PMPI_Info_delete
int PMPI_Info_delete(MPI_Info info, const char *key)
{
    MPIR_CS_GUARD; /* (also outside MPI_Init..MPI_Finalize) */
    info_t *p;
    int err = check_info(info, &p);
    if (!err)
        err = check_key(key);
    pair_t **pp = err ? NULL : find(p, key);
    if (!err && !pp)
        err = MPIR_Err_create(MPI_ERR_INFO_NOKEY, "info key %s is not set", key);
    if (err)
        return MPIR_Err_return(NULL, "MPI_Info_delete", err);
    pair_t *n = *pp;
    *pp = n->next;
    free(n->key);
    free(n->value);
    free(n);
    return MPI_SUCCESS;
}

#pragma weak MPI_Info_get = PMPI_Info_get
int PMPI_Info_get(MPI_Info info, const char *key, int valuelen, char *value, int *flag)
{
    MPIR_CS_GUARD; /* (also outside MPI_Init..MPI_Finalize) */
    env_init();
    info_t *p;
    int err = check_info(info, &p);
    if (!err)
        err = check_key(key);
    if (!err && (valuelen < 0 || !value || !flag))
        err = MPIR_Err_create(MPI_ERR_ARG, "negative valuelen, or value or flag is NULL");
    if (err)
        return MPIR_Err_return(NULL, "MPI_Info_get", err);
    /* valuelen leaves out the terminating null (MPI-4.1 sec. 10.2). */
    return MPIR_Info_get_impl(info, key, valuelen + 1, value, flag);
}

#pragma weak MPI_Info_get_string = PMPI_Info_get_string
int PMPI_Info_get_string(MPI_Info info, const char *key, int *buflen, char *value, int *flag)
{
    MPIR_CS_GUARD; /* (also outside MPI_Init..MPI_Finalize) */
    env_init();
    info_t *p;
    int err = check_info(info, &p);
    if (!err)
        err = check_key(key);
    if (!err && (!buflen || !flag || *buflen < 0))
        err = MPIR_Err_create(MPI_ERR_ARG, "buflen or flag is NULL, or *buflen negative");
    if (err)
        return MPIR_Err_return(NULL, "MPI_Info_get_string", err);
    pair_t **pp = find(p, key);
    *flag = pp != NULL;
    if (!pp)
        return MPI_SUCCESS;
    /* buflen is in and out: the space given, then the space needed. */
    int need = (int)strlen((*pp)->value) + 1;
    if (*buflen > 0 && value)
        snprintf(value, *buflen, "%s", (*pp)->value);
    *buflen = need;
    return MPI_SUCCESS;
}

#pragma weak MPI_Info_get_valuelen = PMPI_Info_get_valuelen
int PMPI_Info_get_valuelen(MPI_Info info, const char *key, int *valuelen, int *flag)
{
    MPIR_CS_GUARD; /* (also outside MPI_Init..MPI_Finalize) */
    env_init();
    info_t *p;
    int err = check_info(info, &p);
    if (!err)
        err = check_key(key);
    if (!err && (!valuelen || !flag))
        err = MPIR_Err_create(MPI_ERR_ARG, "valuelen or flag is NULL");
    if (err)
        return MPIR_Err_return(NULL, "MPI_Info_get_valuelen", err);
    pair_t **pp = find(p, key);
    *flag = pp != NULL;
    if (pp)
        *valuelen = (int)strlen((*pp)->value);
    return MPI_SUCCESS;
}

#pragma weak MPI_Info_get_nkeys = PMPI_Info_get_nkeys
int PMPI_Info_get_nkeys(MPI_Info info, int *nkeys)
{
    MPIR_CS_GUARD; /* (also outside MPI_Init..MPI_Finalize) */
    env_init();
    info_t *p;
    int err = check_info(info, &p);
    if (!err && !nkeys)
        err = MPIR_Err_create(MPI_ERR_ARG, "nkeys is NULL");
    if (err)
        return MPIR_Err_return(NULL, "MPI_Info_get_nkeys", err);
    int n = 0;
    for (pair_t *q = p->head; q; q = q->next)
        n++;
    *nkeys = n;
    return MPI_SUCCESS;
}

#pragma weak MPI_Info_get_nthkey = PMPI_Info_get_nthkey
int PMPI_Info_get_nthkey(MPI_Info info, int n, char *key)
{
    MPIR_CS_GUARD; /* (also outside MPI_Init..MPI_Finalize) */
    env_init();
    info_t *p;
    int err = check_info(info, &p);
    if (!err && !key)
        err = MPIR_Err_create(MPI_ERR_ARG, "key is NULL");
    pair_t *q = p ? p->head : NULL;
    for (int i = 0; !err && q && i < n; i++)
        q = q->next;
    if (!err && (n < 0 || !q))
        err = MPIR_Err_create(MPI_ERR_ARG, "Invalid key index %d", n);
    if (err)
        return MPIR_Err_return(NULL, "MPI_Info_get_nthkey", err);
    snprintf(key, MPI_MAX_INFO_KEY + 1, "%s", q->key);
    return MPI_SUCCESS;
}
