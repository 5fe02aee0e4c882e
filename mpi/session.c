/* session.c: the sessions model (MPI-4.0 sec. 11.3): MPI_Session_init/finalize, the process
 * sets a session offers (mpi://WORLD, mpi://SELF) and the groups made from them, a session's
 * info and its error handler.
 *
 * A session is a user of the device (mpi/init.c, MPIR_Device_acquire): the first user starts
 * it; when the last user to go is a session, the device stays up, idle, for the sessions a
 * process may open again, and ends at exit.  Its communicators are made by MPI_Comm_create_from_group from
 * groups of MPI_COMM_WORLD's processes, as the world model's are (mpi/comm_from_group.c), so a
 * session keeps nothing but its thread level, its error handler and its buffer for buffered
 * sends (MPI-4.1; mpi/bsend.c); its groups and communicators carry its handle. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include "mpiimpl.h"

/* Sessions live at once.  A program has one per library that uses MPI, a handful. */
#define MAX_SESSIONS 256

typedef struct {
    int in_use;
    int thread_level; /* asked for in the info of MPI_Session_init, else MPI_THREAD_SINGLE */
    MPI_Errhandler errhandler;
    struct bsend_buf *bsend; /* MPI_Session_attach_buffer's (mpi/bsend.c), or NULL */
} session_t;
static session_t sessions[MAX_SESSIONS];
/* The slot the next session looks at first: a freed slot is used again only after all the
 * others, so a finalized session's handle stays invalid (MPI_ERR_SESSION) for a long while. */
static int next_slot;
/* MPI_Session_init and MPI_Session_finalize may run in several threads at once whatever the
 * thread level (independent libraries each open their session, MPI-4.0 sec. 11.3), and the
 * library's lock is taken only at MPI_THREAD_MULTIPLE. */
static pthread_mutex_t table_lock = PTHREAD_MUTEX_INITIALIZER;

/* The process sets: every process is in both, so every process lists the same names in the
 * same order (MPI-4.0 sec. 11.3.2 asks for mpi://WORLD and mpi://SELF). */
enum { PSET_WORLD, PSET_SELF, NPSETS };
static const char *const pset_names[NPSETS] = {"mpi://WORLD", "mpi://SELF"};

static const char *const thread_level_names[] = {
    [MPI_THREAD_SINGLE] = "MPI_THREAD_SINGLE",
    [MPI_THREAD_FUNNELED] = "MPI_THREAD_FUNNELED",
    [MPI_THREAD_SERIALIZED] = "MPI_THREAD_SERIALIZED",
    [MPI_THREAD_MULTIPLE] = "MPI_THREAD_MULTIPLE",
};

static session_t *session_get(MPI_Session session)
{
    if ((session & 0xfc000000) != MPIR_HANDLE_KIND_SESSION)
        return NULL;
    int i = session & 0x03ffffff;
    return i < MAX_SESSIONS && sessions[i].in_use ? &sessions[i] : NULL;
}

static int check_session(MPI_Session session, session_t **s_p)
{
    *s_p = session_get(session);
    if (*s_p)
        return MPI_SUCCESS;
    if (session == MPI_SESSION_NULL)
        return MPIR_Err_create(MPI_ERR_SESSION, "Invalid session: MPI_SESSION_NULL");
    return MPIR_Err_create(MPI_ERR_SESSION,
                           "Invalid session %#x (finalized already, or not a session)",
                           (unsigned)session);
}

/* An error in a call on session goes to its handler; one with no valid session to the handler
 * of errors bound to no object (mpi/errhandler.c). */
static int raise_err(const session_t *s, MPI_Session session, const char *fname, int err)
{
    return s ? MPIR_Err_return_session(session, s->errhandler, fname, err)
             : MPIR_Err_return(NULL, fname, err);
}

int MPIR_Session_err_return(MPI_Session session, const char *fname, int err)
{
    return raise_err(session_get(session), session, fname, err);
}

int MPIR_Session_bsend(MPI_Session session, struct bsend_buf ***slot_p)
{
    session_t *s;
    int err = check_session(session, &s);
    if (!err)
        *slot_p = &s->bsend;
    return err;
}

/* The thread level asked for by the "thread_level" key (MPI-4.0 sec. 11.3.1); Open MPI's
 * "mpi_thread_support_level" is read too, so its sessions tests run unchanged. */
static int thread_level_of(MPI_Info info, int *level)
{
    static const char *const keys[] = {"thread_level", "mpi_thread_support_level"};
    *level = MPI_THREAD_SINGLE;
    if (info == MPI_INFO_NULL)
        return MPI_SUCCESS;
    for (int k = 0; k < 2; k++) {
        char value[MPI_MAX_INFO_VAL + 1];
        int flag = 0;
        int err = MPIR_Info_get_impl(info, keys[k], MPI_MAX_INFO_VAL, value, &flag);
        if (err || !flag)
            continue;
        for (int l = MPI_THREAD_SINGLE; l <= MPI_THREAD_MULTIPLE; l++) {
            if (strcasecmp(value, thread_level_names[l]) == 0) {
                *level = l;
                return MPI_SUCCESS;
            }
        }
        /* A hint could be ignored, but a misspelt level would leave a threaded program
         * unprotected without a word: say so. */
        return MPIR_Err_create(MPI_ERR_INFO_VALUE,
                               "info key %s: \"%s\" is not a thread level (MPI_THREAD_SINGLE, "
                               "_FUNNELED, _SERIALIZED or _MULTIPLE)",
                               keys[k], value);
    }
    return MPI_SUCCESS;
}

#pragma weak MPI_Session_init = PMPI_Session_init
int PMPI_Session_init(MPI_Info info, MPI_Errhandler errhandler, MPI_Session *session)
{
    static const char fname[] = "MPI_Session_init";
    MPIR_CS_GUARD; /* (also outside MPI_Init..MPI_Finalize) */
    int level, err = MPIR_Check_errhandler(errhandler, MPIR_EH_FOR_SESSION);
    if (err) /* no handler to raise it on but MPI_COMM_WORLD's (fatal before MPI starts) */
        return MPIR_Err_return(NULL, fname, err);
    /* Errors of this call go to the handler it was given (MPI-4.0 sec. 11.3.1). */
    err = MPIR_Check_info_or_null(info);
    if (!err && !session)
        err = MPIR_Err_create(MPI_ERR_ARG, "session is NULL");
    if (!err)
        err = thread_level_of(info, &level);
    if (!err)
        err = MPIR_Device_acquire(fname);
    if (err)
        return MPIR_Err_return_session(MPI_SESSION_NULL, errhandler, fname, err);

    pthread_mutex_lock(&table_lock);
    int slot = -1;
    for (int n = 0; n < MAX_SESSIONS && slot < 0; n++) {
        int i = (next_slot + n) % MAX_SESSIONS;
        if (!sessions[i].in_use)
            slot = i;
    }
    if (slot >= 0) {
        sessions[slot] = (session_t){.in_use = 1, .thread_level = level, .errhandler = errhandler};
        next_slot = (slot + 1) % MAX_SESSIONS;
    }
    pthread_mutex_unlock(&table_lock);
    if (slot < 0) {
        /* Not the device's last user (the full table holds others), so this ends nothing. */
        MPIR_Device_release(MPI_SUCCESS, fname, MPI_SESSION_NULL, errhandler);
        err = MPIR_Err_create(MPI_ERR_OTHER, "out of sessions (%d live at most)", MAX_SESSIONS);
        return MPIR_Err_return_session(MPI_SESSION_NULL, errhandler, fname, err);
    }
    MPIR_Errhandler_add_ref(errhandler);
    /* Every level is provided; MPI_THREAD_MULTIPLE by the library's lock (mpi/thread.c),
     * process-wide from here on.  It covers the calls begun after this one. */
    if (level == MPI_THREAD_MULTIPLE)
        MPIR_Thread_multiple_start();
    *session = MPIR_HANDLE_KIND_SESSION | slot;
    MPIR_Async_progress_start(); /* last: from here on the thread may poll */
    return MPI_SUCCESS;
}

/* Local: MPI-4.0 sec. 11.3.1 lets it synchronize with the processes of the session's
 * communicators but does not ask it to, and the program must have completed its operations
 * on them before.  The last session leaves the device idle (mpi/init.c): the wait for the
 * other processes comes at exit, or with MPI_Finalize.  Objects made from the session that the
 * program did not free stay until the device ends. */
#pragma weak MPI_Session_finalize = PMPI_Session_finalize
int PMPI_Session_finalize(MPI_Session *session)
{
    static const char fname[] = "MPI_Session_finalize";
    MPIR_CHECK_INIT(fname);
    session_t *s = NULL;
    int err =
        session ? check_session(*session, &s) : MPIR_Err_create(MPI_ERR_ARG, "session is NULL");
    if (err)
        return raise_err(s, session ? *session : MPI_SESSION_NULL, fname, err);
    MPI_Session h = *session;
    MPI_Errhandler eh = s->errhandler;
    /* Its buffered sends complete first, as MPI_Finalize's do (a buffer the program did not
     * detach is the program's again after this call). */
    MPIR_Bsend_session_end(s->bsend);
    s->bsend = NULL;
    pthread_mutex_lock(&table_lock);
    s->in_use = 0;
    pthread_mutex_unlock(&table_lock);
    *session = MPI_SESSION_NULL;
    err = MPIR_Device_release(MPI_SUCCESS, fname, h, eh);
    MPIR_Errhandler_release(eh);
    return err;
}

/* The checks of the calls that read a session's process sets. */
static int check_query(MPI_Session session, MPI_Info info, const void *out, session_t **s_p)
{
    int err = check_session(session, s_p);
    if (!err)
        err = MPIR_Check_info_or_null(info);
    if (!err && !out)
        err = MPIR_Err_create(MPI_ERR_ARG, "the output argument is NULL");
    return err;
}

#pragma weak MPI_Session_get_num_psets = PMPI_Session_get_num_psets
int PMPI_Session_get_num_psets(MPI_Session session, MPI_Info info, int *npset_names)
{
    static const char fname[] = "MPI_Session_get_num_psets";
    MPIR_CHECK_INIT(fname);
    session_t *s;
    int err = check_query(session, info, npset_names, &s);
    if (err)
        return raise_err(s, session, fname, err);
    *npset_names = NPSETS;
    return MPI_SUCCESS;
}

/* pset_len in: the size of pset_name (0: only the size is asked for, pset_name is not
 * touched); out: the size the whole name needs, with its terminating null.  A name longer
 * than the buffer is cut to fit, null-terminated (MPI-4.0 sec. 11.3.2). */
#pragma weak MPI_Session_get_nth_pset = PMPI_Session_get_nth_pset
int PMPI_Session_get_nth_pset(MPI_Session session, MPI_Info info, int n, int *pset_len,
                              char *pset_name)
{
    static const char fname[] = "MPI_Session_get_nth_pset";
    MPIR_CHECK_INIT(fname);
    session_t *s;
    int err = check_query(session, info, pset_len, &s);
    if (!err && (n < 0 || n >= NPSETS))
        err = MPIR_Err_create(MPI_ERR_ARG, "Invalid n %d (the session has %d process sets)", n,
                              NPSETS);
    if (!err && *pset_len < 0)
        err = MPIR_Err_create(MPI_ERR_ARG, "Negative pset_len %d", *pset_len);
    if (!err && *pset_len > 0 && !pset_name)
        err = MPIR_Err_create(MPI_ERR_ARG, "pset_name is NULL with pset_len %d", *pset_len);
    if (err)
        return raise_err(s, session, fname, err);
    int need = (int)strlen(pset_names[n]) + 1;
    if (*pset_len > 0)
        snprintf(pset_name, (size_t)*pset_len, "%s", pset_names[n]);
    *pset_len = need;
    return MPI_SUCCESS;
}

/* The process set named name, as MPI_Session_get_nth_pset gives it but in any case (MPI-4.0
 * asks MPI_Group_from_session_pset for one of those names; MPICH matches the reserved mpi://
 * names in any case, and its tests write mpi://world), else MPI_ERR_ARG. */
static int find_pset(const char *name, int *pset)
{
    if (!name)
        return MPIR_Err_create(MPI_ERR_ARG, "pset_name is NULL");
    for (int p = 0; p < NPSETS; p++) {
        if (strcasecmp(name, pset_names[p]) == 0) {
            *pset = p;
            return MPI_SUCCESS;
        }
    }
    return MPIR_Err_create(MPI_ERR_ARG,
                           "no process set is named \"%.*s\" (Ferry offers mpi://WORLD and "
                           "mpi://SELF)",
                           MPI_MAX_PSET_NAME_LEN, name);
}

#pragma weak MPI_Session_get_pset_info = PMPI_Session_get_pset_info
int PMPI_Session_get_pset_info(MPI_Session session, const char *pset_name, MPI_Info *info)
{
    static const char fname[] = "MPI_Session_get_pset_info";
    MPIR_CHECK_INIT(fname);
    session_t *s;
    int pset = 0;
    int err = check_query(session, MPI_INFO_NULL, info, &s);
    if (!err)
        err = find_pset(pset_name, &pset);
    MPI_Info n = MPI_INFO_NULL;
    if (!err)
        err = MPIR_Info_create_impl(&n);
    if (!err) {
        char size[16];
        snprintf(size, sizeof(size), "%d", pset == PSET_WORLD ? MPIDI_world.size : 1);
        err = MPIR_Info_set_impl(n, "mpi_size", size);
        if (err)
            MPIR_Info_release(n);
    }
    if (err)
        return raise_err(s, session, fname, err);
    *info = n;
    return MPI_SUCCESS;
}

#pragma weak MPI_Session_get_info = PMPI_Session_get_info
int PMPI_Session_get_info(MPI_Session session, MPI_Info *info_used)
{
    static const char fname[] = "MPI_Session_get_info";
    MPIR_CHECK_INIT(fname);
    session_t *s;
    int err = check_query(session, MPI_INFO_NULL, info_used, &s);
    MPI_Info n = MPI_INFO_NULL;
    if (!err)
        err = MPIR_Info_create_impl(&n);
    if (!err && (err = MPIR_Info_set_impl(n, "thread_level", thread_level_names[s->thread_level])))
        MPIR_Info_release(n);
    if (err)
        return raise_err(s, session, fname, err);
    *info_used = n;
    return MPI_SUCCESS;
}

#pragma weak MPI_Group_from_session_pset = PMPI_Group_from_session_pset
int PMPI_Group_from_session_pset(MPI_Session session, const char *pset_name, MPI_Group *newgroup)
{
    static const char fname[] = "MPI_Group_from_session_pset";
    MPIR_CHECK_INIT(fname);
    session_t *s;
    int pset = 0;
    int err = check_query(session, MPI_INFO_NULL, newgroup, &s);
    if (!err && (err = find_pset(pset_name, &pset)))
        *newgroup = MPI_GROUP_NULL;
    int n = pset == PSET_WORLD ? MPIDI_world.size : 1;
    int *ranks = err ? NULL : malloc(sizeof(int) * (size_t)n);
    if (!err && !ranks)
        err = MPIR_Err_create(MPI_ERR_NO_MEM, "out of memory for a group of %d", n);
    MPIR_Group *g = NULL;
    if (!err) {
        for (int i = 0; i < n; i++)
            ranks[i] = pset == PSET_WORLD ? i : MPIDI_world.rank;
        err = MPIR_Group_new(n, ranks, &g);
    }
    if (err)
        return raise_err(s, session, fname, err);
    g->session = session;
    *newgroup = g->handle;
    return MPI_SUCCESS;
}

#pragma weak MPI_Session_set_errhandler = PMPI_Session_set_errhandler
int PMPI_Session_set_errhandler(MPI_Session session, MPI_Errhandler errhandler)
{
    static const char fname[] = "MPI_Session_set_errhandler";
    MPIR_CHECK_INIT(fname);
    session_t *s;
    int err = check_session(session, &s);
    if (!err)
        err = MPIR_Check_errhandler(errhandler, MPIR_EH_FOR_SESSION);
    if (err)
        return raise_err(s, session, fname, err);
    MPIR_Errhandler_set(&s->errhandler, errhandler);
    return MPI_SUCCESS;
}

#pragma weak MPI_Session_get_errhandler = PMPI_Session_get_errhandler
int PMPI_Session_get_errhandler(MPI_Session session, MPI_Errhandler *errhandler)
{
    static const char fname[] = "MPI_Session_get_errhandler";
    MPIR_CHECK_INIT(fname);
    session_t *s;
    int err = check_query(session, MPI_INFO_NULL, errhandler, &s);
    if (err)
        return raise_err(s, session, fname, err);
    /* The caller gets a handle of its own, to free with MPI_Errhandler_free. */
    MPIR_Errhandler_add_ref(s->errhandler);
    *errhandler = s->errhandler;
    return MPI_SUCCESS;
}

/* The handler runs; the call itself succeeds (MPI-4.0 sec. 9.3).  It may be called at any
 * time (MPI-4.0 sec. 11.4.1, Table 11.1), but only a live session has a handler: any other
 * handle is an MPI_ERR_SESSION raised on MPI_COMM_WORLD's handler, fatal outside MPI. */
#pragma weak MPI_Session_call_errhandler = PMPI_Session_call_errhandler
int PMPI_Session_call_errhandler(MPI_Session session, int errorcode)
{
    static const char fname[] = "MPI_Session_call_errhandler";
    MPIR_CS_GUARD; /* (also outside MPI_Init..MPI_Finalize) */
    session_t *s;
    int err = check_session(session, &s);
    if (err)
        return raise_err(s, session, fname, err);
    MPIR_Err_return_session(session, s->errhandler, fname, errorcode);
    return MPI_SUCCESS;
}
