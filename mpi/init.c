/* init.c: MPI_Init/Finalize, Abort, version, processor name and the timers. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <pthread.h>
#include <time.h>
#include "mpiimpl.h"

int MPIR_initialized;
/* The world model: 0 before MPI_Init, 1 during, 2 after MPI_Finalize (MPIR_World_state). */
static int world_state;
/* The device's users: the world model and each live session (MPIR_Device_acquire). */
static int device_users;
/* Device start and end: MPI_Session_init and MPI_Session_finalize may be called from several
 * threads at once whatever the thread level (independent libraries each open their session,
 * MPI-4.0 sec. 11.3), so the count and the start are kept under a lock of their own, not the
 * library's lock, which is taken only at MPI_THREAD_MULTIPLE. */
static pthread_mutex_t device_lock = PTHREAD_MUTEX_INITIALIZER;
/* The device is ending, by MPI_Finalize or at the process's exit.  The end (a barrier) runs
 * without device_lock: a wait lets the library's lock go between polls, and a thread that got
 * in meanwhile must not block on device_lock while holding the library's lock. */
static int device_ending;
/* When the last user to go is a session, the device stays up with no user ("idle") and ends at
 * the process's exit (end_idle_device): MPI-4.0 lets a process open sessions again after it
 * closed them all, and Ferry's device cannot start twice.  A later MPI_Session_init or MPI_Init
 * uses it again; MPI_Finalize, when the world model is the last user, ends it at once. */
static int end_at_exit_registered;
/* What MPI_Init_thread provided; MPI_Init acts as MPI_Init_thread(MPI_THREAD_SINGLE). */
static int thread_level = MPI_THREAD_SINGLE;
/* The thread that initialized MPI (MPI_Is_thread_main). */
static pthread_t main_thread;

int MPIR_World_state(void)
{
    return world_state;
}

int MPIR_Device_acquire(const char *fname)
{
    pthread_mutex_lock(&device_lock);
    int err = MPI_SUCCESS;
    if (MPIR_initialized == 2 || device_ending) {
        err = MPIR_Err_create(MPI_ERR_OTHER,
                              "MPI has finished in this process (MPI_Finalize ended the device) "
                              "and Ferry cannot start it again (doc/api.md, Sessions)");
    } else if (MPIR_initialized == 0) {
        static const MPID_upcalls_t upcalls = {.comm_release = MPIR_Comm_release};
        err = MPID_Init(&upcalls);
        if (!err)
            err = MPIR_Comm_init_builtins(MPIDI_world.rank, MPIDI_world.size);
        if (err) {
            /* No communicator exists yet, so the only handler is "fatal". */
            char msg[MPI_MAX_ERROR_STRING + 64];
            snprintf(msg, sizeof(msg), "Fatal error in %s: %s", fname, MPIR_Err_string(err));
            MPID_Abort(1, msg);
        }
        MPIR_initialized = 1;
    }
    if (!err)
        device_users++;
    pthread_mutex_unlock(&device_lock);
    return err;
}

static int raise_on(int err, const char *fname, MPI_Session session, MPI_Errhandler eh)
{
    return session == MPI_SESSION_NULL ? MPIR_Err_return(NULL, fname, err)
                                       : MPIR_Err_return_session(session, eh, fname, err);
}

/* The device's end, by its last user or at exit: every process of the job ends its device once
 * (by MPI_Finalize, or at exit after its last MPI_Session_finalize), so the barriers pair up
 * whatever model each process used.  Raises err, or the end's own failure, as raise_on does. */
static int end_device(int err, const char *fname, MPI_Session session, MPI_Errhandler eh)
{
    /* The process-wide buffer's sends complete first (MPI_Finalize did this already when the
     * world model was a user; a session's communicators may have used it since). */
    int end_err = MPIR_Bsend_finalize();
    /* FERRY_ASYNC_PROGRESS's thread stops before the device's last barrier and its end: no
     * poll of its may come after (it never waits for the lock this thread holds, so it stops
     * within one of its gaps). */
    MPIR_Async_progress_stop();
    /* A barrier over the device first: a peer may still need us to answer a rendezvous or
     * read our memory until it has finished its own sends. */
    if (!end_err)
        end_err = MPIR_Barrier_impl(MPIR_Comm_get(MPI_COMM_WORLD));
    if (!end_err)
        end_err = MPID_Finalize();
    /* Raised while the communicators and their handlers still exist: a program that asked
     * for errors to be returned gets this one too. */
    err = raise_on(err ? err : end_err, fname, session, eh);
    MPIR_Comm_finalize_all();
    MPIR_Attr_finalize();
    MPIR_Group_finalize_all();
    /* Info objects outlive MPI_Finalize: the MPI_Info_ calls may be made at any time, before
     * MPI_Init and after MPI_Finalize too (MPI-4.0 sec. 11.4.1), on objects made earlier. */
    MPIR_Op_finalize();
    MPIR_Sched_finalize();
    MPIR_initialized = 2;
    return err;
}

/* atexit: an idle device (its last user was a session) ends as MPI_Finalize would end it. */
static void end_idle_device(void)
{
    pthread_mutex_lock(&device_lock);
    int idle = MPIR_initialized == 1 && device_users == 0 && !device_ending;
    device_ending = idle;
    pthread_mutex_unlock(&device_lock);
    if (idle) {
        MPIR_CS_GUARD;
        end_device(MPI_SUCCESS, "exit (the device's end after the last MPI_Session_finalize)",
                   MPI_SESSION_NULL, MPI_ERRHANDLER_NULL);
    }
}

int MPIR_Device_release(int err, const char *fname, MPI_Session session, MPI_Errhandler eh)
{
    pthread_mutex_lock(&device_lock);
    int last = --device_users == 0;
    /* A session (not the world model) leaves the device idle, to end at exit. */
    int idle = last && session != MPI_SESSION_NULL;
    device_ending = last && !idle;
    if (idle && !end_at_exit_registered)
        end_at_exit_registered = atexit(end_idle_device) == 0;
    pthread_mutex_unlock(&device_lock);
    if (idle) /* its buffered sends still complete now, as MPI-4.1 sec. 3.6 asks */
        return raise_on(err ? err : MPIR_Bsend_finalize(), fname, session, eh);
    if (!last)
        return raise_on(err, fname, session, eh);
    return end_device(err, fname, session, eh);
}

#pragma weak MPI_Init = PMPI_Init
int PMPI_Init(int *argc, char ***argv)
{
    MPIR_CS_GUARD; /* (a session's thread may be in the library) */
    /* A second call goes to MPI_COMM_WORLD's handler, fatal by default, as any
     * erroneous call does; after MPI_Finalize no handler may be left to use. */
    if (world_state == 1)
        return MPIR_Err_return(NULL, "MPI_Init",
                               MPIR_Err_create(MPI_ERR_OTHER,
                                               "MPI_Init or MPI_Init_thread called a second "
                                               "time (a process initializes MPI once)"));
    if (world_state != 0) {
        /* Erroneous (MPI-4.0 sec. 11.2.1: the world model is initialized once). */
        fprintf(stderr, "ferry: MPI_Init called after MPI_Finalize\n");
        return MPI_ERR_OTHER;
    }
    int err = MPIR_Device_acquire("MPI_Init");
    if (err) {
        /* The device finished with the last session: no handler is left to use. */
        fprintf(stderr, "ferry: MPI_Init: %s\n", MPIR_Err_string(err));
        return err;
    }
    world_state = 1;
    main_thread = pthread_self();
    MPIR_Async_progress_start(); /* last: from here on the thread may poll */
    return MPI_SUCCESS;
}

int MPIR_Is_thread_main(void)
{
    return pthread_equal(main_thread, pthread_self());
}

#pragma weak MPI_Init_thread = PMPI_Init_thread
int PMPI_Init_thread(int *argc, char ***argv, int required, int *provided)
{
    int err = PMPI_Init(argc, argv);
    if (err)
        return err;
    if (required < MPI_THREAD_SINGLE || required > MPI_THREAD_MULTIPLE || !provided)
        return MPIR_Err_return(NULL, "MPI_Init_thread",
                               MPIR_Err_create(MPI_ERR_ARG,
                                               provided ? "required=%d is not a thread level"
                                                        : "provided is NULL (required=%d)",
                                               required));
    /* Every level is provided; MPI_THREAD_MULTIPLE by one lock around the library
     * (mpi/thread.c), which the lower levels do not take. */
    thread_level = required;
    if (required == MPI_THREAD_MULTIPLE)
        MPIR_Thread_multiple_start();
    *provided = thread_level;
    return MPI_SUCCESS;
}

#pragma weak MPI_Query_thread = PMPI_Query_thread
int PMPI_Query_thread(int *provided)
{
    MPIR_CHECK_INIT("MPI_Query_thread");
    if (!provided)
        return MPIR_Err_return(NULL, "MPI_Query_thread",
                               MPIR_Err_create(MPI_ERR_ARG, "provided is NULL"));
    *provided = thread_level;
    return MPI_SUCCESS;
}

#pragma weak MPI_Finalize = PMPI_Finalize
int PMPI_Finalize(void)
{
    MPIR_CHECK_INIT("MPI_Finalize");
    if (world_state != 1)
        return MPIR_Err_return(NULL, "MPI_Finalize",
                               MPIR_Err_create(MPI_ERR_OTHER,
                                               "MPI_Finalize without MPI_Init (the sessions "
                                               "end with MPI_Session_finalize)"));
    /* MPI_COMM_SELF's attributes are deleted first, while MPI still works
     * for their callbacks (MPI-4.1 sec. 11.2.4). */
    int err = MPIR_Attr_delete_all(MPIR_ATTR_COMM, MPI_COMM_SELF);
    if (!err)
        err = MPIR_Bsend_finalize();
    world_state = 2;
    /* The device ends here unless a session still uses it (then with the last one). */
    return MPIR_Device_release(err, "MPI_Finalize", MPI_SESSION_NULL, MPI_ERRHANDLER_NULL);
}

#pragma weak MPI_Initialized = PMPI_Initialized
int PMPI_Initialized(int *flag)
{
    *flag = world_state != 0;
    return MPI_SUCCESS;
}

#pragma weak MPI_Finalized = PMPI_Finalized
int PMPI_Finalized(int *flag)
{
    *flag = world_state == 2;
    return MPI_SUCCESS;
}

#pragma weak MPI_Abort = PMPI_Abort
int PMPI_Abort(MPI_Comm comm, int errorcode)
{
    MPIR_CHECK_INIT("MPI_Abort");
    char msg[128];
    snprintf(msg, sizeof(msg), "MPI_Abort(comm=%#x, errorcode=%d) called", (unsigned)comm,
             errorcode);
    MPID_Abort(errorcode, msg);
}

#pragma weak MPI_Get_version = PMPI_Get_version
int PMPI_Get_version(int *version, int *subversion)
{
    *version = MPI_VERSION;
    *subversion = MPI_SUBVERSION;
    return MPI_SUCCESS;
}

#pragma weak MPI_Get_processor_name = PMPI_Get_processor_name
int PMPI_Get_processor_name(char *name, int *resultlen)
{
    MPIR_CHECK_INIT("MPI_Get_processor_name");
    if (!name || !resultlen)
        return MPIR_Err_return(NULL, "MPI_Get_processor_name",
                               MPIR_Err_create(MPI_ERR_ARG, "name or resultlen is NULL"));
    snprintf(name, MPI_MAX_PROCESSOR_NAME, "%s", MPIDI_world.hostname);
    *resultlen = (int)strlen(name);
    return MPI_SUCCESS;
}

#pragma weak MPI_Wtime = PMPI_Wtime
double PMPI_Wtime(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

#pragma weak MPI_Wtick = PMPI_Wtick
double PMPI_Wtick(void)
{
    struct timespec ts;
    clock_getres(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}
