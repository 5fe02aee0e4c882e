/* mpit_pvar.c: MPI_T performance variables: the device's named counters (adi/stats.c), their
 * sessions and handles.
 *
 * Every variable is read-only and continuous, of type MPI_UNSIGNED_LONG, bound to no object:
 * a counter (MPI_T_PVAR_CLASS_COUNTER) counts events since MPI_Init, a name ending in _max is a
 * high-water mark (the largest value seen since MPI_Init), and recvq_posted, recvq_unexpected
 * and recvq_unexpected_bytes are levels (the receive queues now).  A handle reads the value the
 * process has, the same in every session; the variables cannot be started, stopped, written or
 * reset (MPI-4.1 sec. 15.3.7: start and stop of a continuous variable return
 * MPI_T_ERR_PVAR_NO_STARTSTOP, write, reset and readreset of a read-only one
 * MPI_T_ERR_PVAR_NO_WRITE; with MPI_T_PVAR_ALL_HANDLES those variables are skipped, so the call
 * succeeds).  They exist from MPI_Init on and keep their final values after the device ends. */
#include <stdlib.h>
#include <string.h>
#include "mpit.h"

struct MPIR_T_pvar_handle {
    int pvar;
    struct MPIR_T_pvar_handle *next;
};
struct MPIR_T_pvar_session {
    struct MPIR_T_pvar_handle *handles;
    struct MPIR_T_pvar_session *next;
};
static struct MPIR_T_pvar_session *sessions; /* the live ones */

static int valid_pvar(int i)
{
    return i >= 0 && i < MPID_Stat_count();
}

static int pvar_class(int i)
{
    static const int classes[] = {[MPID_STAT_COUNTER] = MPI_T_PVAR_CLASS_COUNTER,
                                  [MPID_STAT_HIGHWATER] = MPI_T_PVAR_CLASS_HIGHWATERMARK,
                                  [MPID_STAT_LEVEL] = MPI_T_PVAR_CLASS_LEVEL};
    return classes[MPID_Stat_kind(i)];
}

static const char *pvar_desc(int i)
{
    static const char *const desc[] = {
        [MPID_STAT_COUNTER] = "events counted since MPI_Init (doc/method-api.md, counters)",
        [MPID_STAT_HIGHWATER] = "the largest value seen since MPI_Init (doc/method-api.md)",
        [MPID_STAT_LEVEL] = "the receive queues of the device now (doc/api.md, MPI_T)"};
    return desc[MPID_Stat_kind(i)];
}

#pragma weak MPI_T_pvar_get_num = PMPI_T_pvar_get_num
int PMPI_T_pvar_get_num(int *num_pvar)
{
    MPIR_T_ENTER;
    return MPIR_T_give_count(num_pvar, MPID_Stat_count());
}

#pragma weak MPI_T_pvar_get_info = PMPI_T_pvar_get_info
int PMPI_T_pvar_get_info(int pvar_index, char *name, int *name_len, int *verbosity, int *var_class,
                         MPI_Datatype *datatype, MPI_T_enum *enumtype, char *desc, int *desc_len,
                         int *bind, int *readonly, int *continuous, int *atomic)
{
    MPIR_T_ENTER;
    if (!valid_pvar(pvar_index))
        return MPI_T_ERR_INVALID_INDEX;
    const char *n = MPID_Stat_name(pvar_index);
    MPIR_T_cstring(n, name, name_len);
    MPIR_T_cstring(pvar_desc(pvar_index), desc, desc_len);
    MPIR_T_put(verbosity, MPIR_T_category_verbosity(MPIR_T_pvar_category(n)));
    MPIR_T_put(var_class, pvar_class(pvar_index));
    if (datatype)
        *datatype = MPI_UNSIGNED_LONG;
    if (enumtype)
        *enumtype = MPI_T_ENUM_NULL;
    MPIR_T_put(bind, MPI_T_BIND_NO_OBJECT);
    MPIR_T_put(readonly, 1);
    MPIR_T_put(continuous, 1);
    MPIR_T_put(atomic, 0);
    return MPI_SUCCESS;
}

#pragma weak MPI_T_pvar_get_index = PMPI_T_pvar_get_index
int PMPI_T_pvar_get_index(const char *name, int var_class, int *pvar_index)
{
    MPIR_T_ENTER;
    if (!name || !pvar_index)
        return MPI_T_ERR_INVALID;
    int i = MPID_Stat_count() - 1;
    while (i >= 0 && (pvar_class(i) != var_class || strcmp(MPID_Stat_name(i), name) != 0))
        i--;
    return MPIR_T_give_index(pvar_index, i);
}

static struct MPIR_T_pvar_session *find_session(MPI_T_pvar_session s)
{
    for (struct MPIR_T_pvar_session *p = sessions; p; p = p->next)
        if (p == s)
            return p;
    return NULL;
}

#pragma weak MPI_T_pvar_session_create = PMPI_T_pvar_session_create
int PMPI_T_pvar_session_create(MPI_T_pvar_session *session)
{
    MPIR_T_ENTER;
    if (!session)
        return MPI_T_ERR_INVALID;
    struct MPIR_T_pvar_session *s = calloc(1, sizeof(*s));
    if (!s)
        return MPI_T_ERR_MEMORY;
    s->next = sessions;
    sessions = s;
    *session = s;
    return MPI_SUCCESS;
}

static void session_free(struct MPIR_T_pvar_session *s)
{
    while (s->handles) {
        struct MPIR_T_pvar_handle *h = s->handles;
        s->handles = h->next;
        free(h);
    }
    for (struct MPIR_T_pvar_session **p = &sessions; *p; p = &(*p)->next) {
        if (*p == s) {
            *p = s->next;
            break;
        }
    }
    free(s);
}

#pragma weak MPI_T_pvar_session_free = PMPI_T_pvar_session_free
int PMPI_T_pvar_session_free(MPI_T_pvar_session *session)
{
    MPIR_T_ENTER;
    if (!session || !find_session(*session))
        return MPI_T_ERR_INVALID_SESSION;
    session_free(*session);
    *session = MPI_T_PVAR_SESSION_NULL;
    return MPI_SUCCESS;
}

void MPIR_T_pvar_finalize(void)
{
    while (sessions)
        session_free(sessions);
}

#pragma weak MPI_T_pvar_handle_alloc = PMPI_T_pvar_handle_alloc
int PMPI_T_pvar_handle_alloc(MPI_T_pvar_session session, int pvar_index, void *obj_handle,
                             MPI_T_pvar_handle *handle, int *count)
{
    MPIR_T_ENTER;
    (void)obj_handle; /* every variable is bound to no object */
    struct MPIR_T_pvar_session *s = find_session(session);
    if (!s)
        return MPI_T_ERR_INVALID_SESSION;
    if (!valid_pvar(pvar_index))
        return MPI_T_ERR_INVALID_INDEX;
    if (!handle || !count)
        return MPI_T_ERR_INVALID;
    struct MPIR_T_pvar_handle *h = malloc(sizeof(*h));
    if (!h)
        return MPI_T_ERR_MEMORY;
    h->pvar = pvar_index;
    h->next = s->handles;
    s->handles = h;
    *handle = h;
    *count = 1;
    return MPI_SUCCESS;
}

/* Checks session and a handle of it; all says whether MPI_T_PVAR_ALL_HANDLES is allowed. */
static int check_handle(MPI_T_pvar_session session, MPI_T_pvar_handle handle, int all)
{
    struct MPIR_T_pvar_session *s = find_session(session);
    if (!s)
        return MPI_T_ERR_INVALID_SESSION;
    /* ("cannot be used" with read, write, readreset: the interface's misuse, as in MPICH) */
    if (handle == MPI_T_PVAR_ALL_HANDLES)
        return all ? MPI_SUCCESS : MPI_T_ERR_INVALID;
    for (struct MPIR_T_pvar_handle *h = s->handles; h; h = h->next)
        if (h == handle)
            return MPI_SUCCESS;
    return MPI_T_ERR_INVALID_HANDLE;
}

#pragma weak MPI_T_pvar_handle_free = PMPI_T_pvar_handle_free
int PMPI_T_pvar_handle_free(MPI_T_pvar_session session, MPI_T_pvar_handle *handle)
{
    MPIR_T_ENTER;
    int err = handle ? check_handle(session, *handle, 0) : MPI_T_ERR_INVALID_HANDLE;
    if (err)
        return err;
    for (struct MPIR_T_pvar_handle **p = &session->handles; *p; p = &(*p)->next) {
        if (*p == *handle) {
            *p = (*handle)->next;
            free(*handle);
            break;
        }
    }
    *handle = MPI_T_PVAR_HANDLE_NULL;
    return MPI_SUCCESS;
}

/* Start, stop and reset: refused for one handle (every variable is continuous and read-only),
 * nothing to do for all of them. */
static int refuse_one(MPI_T_pvar_session session, MPI_T_pvar_handle handle, int refusal)
{
    int err = check_handle(session, handle, 1);
    return err ? err : handle == MPI_T_PVAR_ALL_HANDLES ? MPI_SUCCESS : refusal;
}

#pragma weak MPI_T_pvar_start = PMPI_T_pvar_start
int PMPI_T_pvar_start(MPI_T_pvar_session session, MPI_T_pvar_handle handle)
{
    MPIR_T_ENTER;
    return refuse_one(session, handle, MPI_T_ERR_PVAR_NO_STARTSTOP);
}

#pragma weak MPI_T_pvar_stop = PMPI_T_pvar_stop
int PMPI_T_pvar_stop(MPI_T_pvar_session session, MPI_T_pvar_handle handle)
{
    MPIR_T_ENTER;
    return refuse_one(session, handle, MPI_T_ERR_PVAR_NO_STARTSTOP);
}

#pragma weak MPI_T_pvar_reset = PMPI_T_pvar_reset
int PMPI_T_pvar_reset(MPI_T_pvar_session session, MPI_T_pvar_handle handle)
{
    MPIR_T_ENTER;
    return refuse_one(session, handle, MPI_T_ERR_PVAR_NO_WRITE);
}

#pragma weak MPI_T_pvar_read = PMPI_T_pvar_read
int PMPI_T_pvar_read(MPI_T_pvar_session session, MPI_T_pvar_handle handle, void *buf)
{
    MPIR_T_ENTER;
    int err = check_handle(session, handle, 0);
    if (err)
        return err;
    if (!buf)
        return MPI_T_ERR_INVALID;
    *(unsigned long *)buf = MPID_Stat_read(handle->pvar);
    return MPI_SUCCESS;
}

#pragma weak MPI_T_pvar_write = PMPI_T_pvar_write
int PMPI_T_pvar_write(MPI_T_pvar_session session, MPI_T_pvar_handle handle, const void *buf)
{
    MPIR_T_ENTER;
    int err = check_handle(session, handle, 0);
    return err ? err : MPI_T_ERR_PVAR_NO_WRITE;
}

#pragma weak MPI_T_pvar_readreset = PMPI_T_pvar_readreset
int PMPI_T_pvar_readreset(MPI_T_pvar_session session, MPI_T_pvar_handle handle, void *buf)
{
    MPIR_T_ENTER;
    int err = check_handle(session, handle, 0);
    return err ? err : MPI_T_ERR_PVAR_NO_WRITE;
}
