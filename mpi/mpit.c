/* mpit.c: the tool information interface (MPI_T): initialization, the returned strings, control
 * variables (the FERRY_ registry of adi/config.c) with their enumerations, and the categories.
 * Performance variables are in mpit_pvar.c, events and sources in mpit_event.c. */
#include <stdlib.h>
#include <string.h>
#include "mpit.h"
#include "mpidi_config.h"

int MPIR_T_init_count;

void MPIR_T_string(const char *s, size_t n, char *buf, int *len)
{
    if (!len)
        return;
    if (buf && *len > 0) {
        size_t m = n < (size_t)*len - 1 ? n : (size_t)*len - 1;
        memcpy(buf, s, m);
        buf[m] = '\0';
    }
    *len = (int)n + 1;
}

/* ---- Categories ----
 * A variable belongs to the category of the longest prefix its name starts with, the device's
 * when none: FERRY_SHM_CELL_SIZE and shm_ring_sent to shm, FERRY_RING_SIZE and verbs_ring_msgs
 * to verbs_ring, which is verbs's one subcategory. */
static const struct category {
    const char *name;
    const char *desc;
    const char *cvar_prefix, *pvar_prefix;
    const char *parent; /* the category that lists it (NULL: none) */
    int verbosity;
} categories[] = {
    {"device",
     "the device: protocols (eager, rendezvous), matching, progress, and the choice of methods",
     NULL, NULL, NULL, MPI_T_VERBOSITY_TUNER_BASIC},
    {"self", "the self method: messages a process sends to itself", NULL, "self_", NULL,
     MPI_T_VERBOSITY_TUNER_DETAIL},
    {"shm", "the shm method: processes of one node (cells, rings, CMA)", "FERRY_SHM_", "shm_", NULL,
     MPI_T_VERBOSITY_TUNER_DETAIL},
    {"tcp", "the tcp method: sockets between nodes", "FERRY_TCP_", "tcp_", NULL,
     MPI_T_VERBOSITY_TUNER_DETAIL},
    {"verbs", "the verbs method: InfiniBand and RoCE (send-receive, RDMA, registration cache)",
     "FERRY_VERBS_", "verbs_", NULL, MPI_T_VERBOSITY_TUNER_DETAIL},
    {"verbs_ring", "the verbs method's ring eager protocol (FERRY_VERBS_EAGER=ring)", "FERRY_RING_",
     "verbs_ring_", "verbs", MPI_T_VERBOSITY_TUNER_DETAIL},
    {"ofi", "the ofi method: libfabric providers", "FERRY_OFI_", "ofi_", NULL,
     MPI_T_VERBOSITY_TUNER_DETAIL},
};
#define NCATEGORIES ((int)(sizeof(categories) / sizeof(categories[0])))

static int category_of(const char *name, int is_cvar)
{
    int best = 0;
    size_t best_len = 0;
    for (int c = 1; c < NCATEGORIES; c++) {
        const char *p = is_cvar ? categories[c].cvar_prefix : categories[c].pvar_prefix;
        if (!p)
            continue; /* no variables of this kind (self has no FERRY_ variable) */
        size_t n = strlen(p);
        if (n > best_len && strncmp(name, p, n) == 0) {
            best = c;
            best_len = n;
        }
    }
    return best;
}

int MPIR_T_pvar_category(const char *name)
{
    return category_of(name, 0);
}

int MPIR_T_category_verbosity(int cat)
{
    return categories[cat].verbosity;
}

static int valid_category(int cat)
{
    return cat >= 0 && cat < NCATEGORIES;
}

static int is_parent(int cat, int sub)
{
    return categories[sub].parent && strcmp(categories[sub].parent, categories[cat].name) == 0;
}

/* The members of category cat of one kind: cvars, pvars or subcategories (which). The first len
 * go to indices (when not NULL); returns how many there are. */
typedef enum { MEMBER_CVAR, MEMBER_PVAR, MEMBER_CATEGORY } member_t;
static int members(int cat, member_t which, int len, int indices[])
{
    int n = 0;
    int count = which == MEMBER_CVAR   ? MPIDI_config_count()
                : which == MEMBER_PVAR ? MPID_Stat_count()
                                       : NCATEGORIES;
    for (int i = 0; i < count; i++) {
        int in = which == MEMBER_CVAR   ? category_of(MPIDI_config_name(i), 1) == cat
                 : which == MEMBER_PVAR ? category_of(MPID_Stat_name(i), 0) == cat
                                        : is_parent(cat, i);
        if (!in)
            continue;
        if (indices && n < len)
            indices[n] = i;
        n++;
    }
    return n;
}

#pragma weak MPI_T_category_get_num = PMPI_T_category_get_num
int PMPI_T_category_get_num(int *num_cat)
{
    MPIR_T_ENTER;
    return MPIR_T_give_count(num_cat, NCATEGORIES);
}

#pragma weak MPI_T_category_get_info = PMPI_T_category_get_info
int PMPI_T_category_get_info(int cat_index, char *name, int *name_len, char *desc, int *desc_len,
                             int *num_cvars, int *num_pvars, int *num_categories)
{
    MPIR_T_ENTER;
    if (!valid_category(cat_index))
        return MPI_T_ERR_INVALID_INDEX;
    MPIR_T_cstring(categories[cat_index].name, name, name_len);
    MPIR_T_cstring(categories[cat_index].desc, desc, desc_len);
    MPIR_T_put(num_cvars, members(cat_index, MEMBER_CVAR, 0, NULL));
    MPIR_T_put(num_pvars, members(cat_index, MEMBER_PVAR, 0, NULL));
    MPIR_T_put(num_categories, members(cat_index, MEMBER_CATEGORY, 0, NULL));
    return MPI_SUCCESS;
}

#pragma weak MPI_T_category_get_index = PMPI_T_category_get_index
int PMPI_T_category_get_index(const char *name, int *cat_index)
{
    MPIR_T_ENTER;
    if (!name || !cat_index)
        return MPI_T_ERR_INVALID;
    int c = NCATEGORIES - 1;
    while (c >= 0 && strcmp(categories[c].name, name) != 0)
        c--;
    return MPIR_T_give_index(cat_index, c);
}

static int get_members(int cat, member_t which, int len, int indices[])
{
    if (!valid_category(cat))
        return MPI_T_ERR_INVALID_INDEX;
    if (len < 0 || (len > 0 && !indices))
        return MPI_T_ERR_INVALID;
    members(cat, which, len, indices);
    return MPI_SUCCESS;
}

#pragma weak MPI_T_category_get_cvars = PMPI_T_category_get_cvars
int PMPI_T_category_get_cvars(int cat_index, int len, int indices[])
{
    MPIR_T_ENTER;
    return get_members(cat_index, MEMBER_CVAR, len, indices);
}

#pragma weak MPI_T_category_get_pvars = PMPI_T_category_get_pvars
int PMPI_T_category_get_pvars(int cat_index, int len, int indices[])
{
    MPIR_T_ENTER;
    return get_members(cat_index, MEMBER_PVAR, len, indices);
}

#pragma weak MPI_T_category_get_categories = PMPI_T_category_get_categories
int PMPI_T_category_get_categories(int cat_index, int len, int indices[])
{
    MPIR_T_ENTER;
    return get_members(cat_index, MEMBER_CATEGORY, len, indices);
}

/* The categories change only when performance variables appear (the methods register theirs
 * at MPI_Init) and none ever goes: their number is the stamp. */
#pragma weak MPI_T_category_changed = PMPI_T_category_changed
int PMPI_T_category_changed(int *update_number)
{
    MPIR_T_ENTER;
    return MPIR_T_give_count(update_number, MPID_Stat_count());
}

/* ---- Enumerations: one per enum variable of the registry, its items the choices ---- */

struct MPIR_T_enum {
    int cvar;
};
static struct MPIR_T_enum *enums; /* entry i for variable i (used if it is an enum) */

static int check_enum(MPI_T_enum e)
{
    if (!e || !enums || e < enums || e >= enums + MPIDI_config_count() ||
        MPIDI_config_kind(e->cvar) != MPIDI_CONFIG_ENUM)
        return MPI_T_ERR_INVALID_HANDLE;
    return MPI_SUCCESS;
}

#pragma weak MPI_T_enum_get_info = PMPI_T_enum_get_info
int PMPI_T_enum_get_info(MPI_T_enum enumtype, int *num, char *name, int *name_len)
{
    MPIR_T_ENTER;
    int err = check_enum(enumtype);
    if (err)
        return err;
    if (num) {
        const char *item;
        int len;
        *num = 0;
        while (MPIDI_config_choice(enumtype->cvar, *num, &item, &len) == 0)
            ++*num;
    }
    MPIR_T_cstring(MPIDI_config_name(enumtype->cvar), name, name_len);
    return MPI_SUCCESS;
}

#pragma weak MPI_T_enum_get_item = PMPI_T_enum_get_item
int PMPI_T_enum_get_item(MPI_T_enum enumtype, int index, int *value, char *name, int *name_len)
{
    MPIR_T_ENTER;
    const char *item;
    int len, err = check_enum(enumtype);
    if (err)
        return err;
    /* MPI-4.0: an item out of range is MPI_T_ERR_INVALID_INDEX (before, _INVALID_ITEM). */
    if (MPIDI_config_choice(enumtype->cvar, index, &item, &len) != 0)
        return MPI_T_ERR_INVALID_INDEX;
    if (value)
        *value = index;
    MPIR_T_string(item, (size_t)len, name, name_len);
    return MPI_SUCCESS;
}

/* ---- Control variables ---- */

/* A string variable is read and written as MPI_CHAR[MPIR_T_STRING_MAX], terminator included. */
#define MPIR_T_STRING_MAX 256

/* Variables that only change what this process prints or how it waits, which processes may set
 * differently.  Ferry has not checked every other variable for mixed values across the
 * processes of a job, so they are MPI_T_SCOPE_ALL_EQ. */
static const char *const local_vars[] = {"FERRY_VERBOSE", "FERRY_STATS_FILE", "FERRY_POLL_SPINS"};

static int cvar_scope(const char *name)
{
    for (size_t i = 0; i < sizeof(local_vars) / sizeof(local_vars[0]); i++)
        if (strcmp(local_vars[i], name) == 0)
            return MPI_T_SCOPE_LOCAL;
    return MPI_T_SCOPE_ALL_EQ;
}

static MPI_Datatype cvar_type(MPIDI_config_kind_t kind)
{
    switch (kind) {
    case MPIDI_CONFIG_SIZE:
        return MPI_COUNT; /* signed (-1 means "the method's own") and beyond an int */
    case MPIDI_CONFIG_STR:
        return MPI_CHAR;
    default:
        return MPI_INT;
    }
}

static int valid_cvar(int i)
{
    return i >= 0 && i < MPIDI_config_count();
}

#pragma weak MPI_T_cvar_get_num = PMPI_T_cvar_get_num
int PMPI_T_cvar_get_num(int *num_cvar)
{
    MPIR_T_ENTER;
    return MPIR_T_give_count(num_cvar, MPIDI_config_count());
}

#pragma weak MPI_T_cvar_get_info = PMPI_T_cvar_get_info
int PMPI_T_cvar_get_info(int cvar_index, char *name, int *name_len, int *verbosity,
                         MPI_Datatype *datatype, MPI_T_enum *enumtype, char *desc, int *desc_len,
                         int *bind, int *scope)
{
    MPIR_T_ENTER;
    if (!valid_cvar(cvar_index))
        return MPI_T_ERR_INVALID_INDEX;
    MPIDI_config_desc_t d;
    MPIDI_config_describe(cvar_index, &d);
    MPIR_T_cstring(d.name, name, name_len);
    MPIR_T_cstring(d.doc, desc, desc_len);
    /* The variables "for tests" are the developers'. */
    MPIR_T_put(verbosity, strncmp(d.doc, "for tests", 9) == 0
                              ? MPI_T_VERBOSITY_MPIDEV_DETAIL
                              : categories[category_of(d.name, 1)].verbosity);
    if (datatype)
        *datatype = cvar_type(d.type);
    if (enumtype)
        *enumtype = d.type == MPIDI_CONFIG_ENUM ? &enums[cvar_index] : MPI_T_ENUM_NULL;
    MPIR_T_put(bind, MPI_T_BIND_NO_OBJECT);
    MPIR_T_put(scope, cvar_scope(d.name));
    return MPI_SUCCESS;
}

#pragma weak MPI_T_cvar_get_index = PMPI_T_cvar_get_index
int PMPI_T_cvar_get_index(const char *name, int *cvar_index)
{
    MPIR_T_ENTER;
    if (!name || !cvar_index)
        return MPI_T_ERR_INVALID;
    return MPIR_T_give_index(cvar_index, MPIDI_config_index(name));
}

struct MPIR_T_cvar_handle {
    int cvar;
    struct MPIR_T_cvar_handle *next;
};
static struct MPIR_T_cvar_handle *cvar_handles; /* the live ones */

static int check_cvar_handle(MPI_T_cvar_handle h)
{
    for (struct MPIR_T_cvar_handle *c = cvar_handles; c; c = c->next)
        if (c == h)
            return MPI_SUCCESS;
    return MPI_T_ERR_INVALID_HANDLE;
}

#pragma weak MPI_T_cvar_handle_alloc = PMPI_T_cvar_handle_alloc
int PMPI_T_cvar_handle_alloc(int cvar_index, void *obj_handle, MPI_T_cvar_handle *handle,
                             int *count)
{
    MPIR_T_ENTER;
    (void)obj_handle; /* every variable is bound to no object */
    if (!valid_cvar(cvar_index))
        return MPI_T_ERR_INVALID_INDEX;
    if (!handle || !count)
        return MPI_T_ERR_INVALID;
    struct MPIR_T_cvar_handle *h = malloc(sizeof(*h));
    if (!h)
        return MPI_T_ERR_MEMORY;
    h->cvar = cvar_index;
    h->next = cvar_handles;
    cvar_handles = h;
    *handle = h;
    *count = MPIDI_config_kind(cvar_index) == MPIDI_CONFIG_STR ? MPIR_T_STRING_MAX : 1;
    return MPI_SUCCESS;
}

static void cvar_handle_unlink(MPI_T_cvar_handle h)
{
    for (struct MPIR_T_cvar_handle **p = &cvar_handles; *p; p = &(*p)->next) {
        if (*p == h) {
            *p = h->next;
            free(h);
            return;
        }
    }
}

#pragma weak MPI_T_cvar_handle_free = PMPI_T_cvar_handle_free
int PMPI_T_cvar_handle_free(MPI_T_cvar_handle *handle)
{
    MPIR_T_ENTER;
    if (!handle || check_cvar_handle(*handle))
        return MPI_T_ERR_INVALID_HANDLE;
    cvar_handle_unlink(*handle);
    *handle = MPI_T_CVAR_HANDLE_NULL;
    return MPI_SUCCESS;
}

#pragma weak MPI_T_cvar_read = PMPI_T_cvar_read
int PMPI_T_cvar_read(MPI_T_cvar_handle handle, void *buf)
{
    MPIR_T_ENTER;
    int err = check_cvar_handle(handle);
    if (err)
        return err;
    if (!buf)
        return MPI_T_ERR_INVALID;
    long v = MPIDI_config_int_at(handle->cvar);
    switch (MPIDI_config_kind(handle->cvar)) {
    case MPIDI_CONFIG_STR: {
        int len = MPIR_T_STRING_MAX;
        MPIR_T_cstring(MPIDI_config_str_at(handle->cvar), buf, &len);
        break;
    }
    case MPIDI_CONFIG_SIZE:
        *(MPI_Count *)buf = v;
        break;
    default:
        *(int *)buf = (int)v;
        break;
    }
    return MPI_SUCCESS;
}

#pragma weak MPI_T_cvar_write = PMPI_T_cvar_write
int PMPI_T_cvar_write(MPI_T_cvar_handle handle, const void *buf)
{
    MPIR_T_ENTER;
    int err = check_cvar_handle(handle);
    if (err)
        return err;
    if (!buf)
        return MPI_T_ERR_INVALID;
    MPIDI_config_kind_t kind = MPIDI_config_kind(handle->cvar);
    MPIDI_config_write_t w;
    if (kind == MPIDI_CONFIG_STR)
        w = strnlen(buf, MPIR_T_STRING_MAX) < MPIR_T_STRING_MAX
                ? MPIDI_config_write_str(handle->cvar, buf)
                : MPIDI_CONFIG_REFUSED;
    else if (kind == MPIDI_CONFIG_SIZE)
        w = MPIDI_config_write_int(handle->cvar, (long)*(const MPI_Count *)buf);
    else
        w = MPIDI_config_write_int(handle->cvar, *(const int *)buf);
    switch (w) {
    case MPIDI_CONFIG_WRITTEN:
        return MPI_SUCCESS;
    case MPIDI_CONFIG_REFUSED:
        return MPI_T_ERR_INVALID;
    case MPIDI_CONFIG_IN_USE:
        /* The device reads the variables when it starts, and cannot start again once ended. */
        break;
    }
    return MPIR_initialized == 2 ? MPI_T_ERR_CVAR_SET_NEVER : MPI_T_ERR_CVAR_SET_NOT_NOW;
}

/* ---- Initialization ----
 * Initialization and finalization take the library's lock whatever the thread level: tools in
 * several threads may initialize the interface at once, before any asked for
 * MPI_THREAD_MULTIPLE. */

static void lock_leave(const int *held)
{
    (void)held;
    MPIR_Cs_exit_slow();
}
#define MPIR_T_LOCKED                                                                              \
    int mpit_locked_ __attribute__((cleanup(lock_leave), unused)) = MPIR_Cs_enter_slow()

#pragma weak MPI_T_init_thread = PMPI_T_init_thread
int PMPI_T_init_thread(int required, int *provided)
{
    if (required < MPI_THREAD_SINGLE || required > MPI_THREAD_MULTIPLE || !provided)
        return MPI_T_ERR_INVALID;
    /* As with MPI_Init_thread: the library's lock is on for the whole process from now. */
    if (required == MPI_THREAD_MULTIPLE)
        MPIR_Thread_multiple_start();
    MPIR_T_LOCKED;
    if (!enums) {
        enums = calloc((size_t)MPIDI_config_count(), sizeof(*enums));
        if (!enums)
            return MPI_T_ERR_MEMORY;
        for (int i = 0; i < MPIDI_config_count(); i++)
            enums[i].cvar = i;
    }
    /* The values before the device starts are the defaults and the environment's (a bad one
     * reads as the default and fails MPI_Init unless a good one is written). */
    MPIDI_config_load();
    MPIR_T_init_count++;
    *provided = required;
    return MPI_SUCCESS;
}

#pragma weak MPI_T_finalize = PMPI_T_finalize
int PMPI_T_finalize(void)
{
    MPIR_T_LOCKED;
    if (MPIR_T_init_count == 0)
        return MPI_T_ERR_NOT_INITIALIZED;
    if (--MPIR_T_init_count > 0)
        return MPI_SUCCESS;
    /* The handles and sessions die with the last finalize (the enumerations are the process's:
     * one per variable). */
    while (cvar_handles)
        cvar_handle_unlink(cvar_handles);
    MPIR_T_pvar_finalize();
    return MPI_SUCCESS;
}
