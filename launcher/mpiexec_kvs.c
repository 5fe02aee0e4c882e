/* mpiexec_kvs.c: mpiexec's PMI key-value space: one hash table of the keys ranks put. */
#include "mpiexec.h"

#include <stdlib.h>
#include <string.h>

#define KVS_BUCKETS 1024

typedef struct kv_entry {
    struct kv_entry *next;
    char *key;
    char *value;
} kv_entry_t;

static kv_entry_t *kvs[KVS_BUCKETS];

static unsigned kvs_hash(const char *s)
{
    /* FNV-1a: short keys like "P12-shm", spread well enough for a table this size. */
    unsigned h = 2166136261u;
    for (; *s; s++)
        h = (h ^ (unsigned char)*s) * 16777619u;
    return h % KVS_BUCKETS;
}

static kv_entry_t *kvs_find(const char *key)
{
    for (kv_entry_t *e = kvs[kvs_hash(key)]; e; e = e->next)
        if (strcmp(e->key, key) == 0)
            return e;
    return NULL;
}

const char *MPIEXEC_kvs_get(const char *key)
{
    kv_entry_t *e = kvs_find(key);
    return e ? e->value : NULL;
}

int MPIEXEC_kvs_put(const char *key, const char *value)
{
    kv_entry_t *e = kvs_find(key);
    char *v = strdup(value);

    if (v == NULL)
        return -1;
    if (e) {
        /* Last put wins, as in Hydra; MPICH re-puts cards after a restart of a method. */
        free(e->value);
        e->value = v;
        return 0;
    }
    e = malloc(sizeof(*e));
    if (e == NULL || (e->key = strdup(key)) == NULL) {
        free(e);
        free(v);
        return -1;
    }
    e->value = v;
    unsigned h = kvs_hash(key);
    e->next = kvs[h];
    kvs[h] = e;
    return 0;
}
