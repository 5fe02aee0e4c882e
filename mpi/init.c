/* init.c: MPI_Init/Finalize, Abort, version, processor name and the timers. */
#include <stdio.h>
#include <string.h>
#include <pthread.h>
#include <time.h>
#include "mpiimpl.h"

int MPIR_initialized;
/* What MPI_Init_thread provided; MPI_Init acts as MPI_Init_thread(MPI_THREAD_SINGLE). */
static int thread_level = MPI_THREAD_SINGLE;
/* The thread that initialized MPI (MPI_Is_thread_main). */
static pthread_t main_thread;

#pragma weak MPI_Init = PMPI_Init
int PMPI_Init(int *argc, char ***argv)
{
    /* A second call goes to MPI_COMM_WORLD's handler, fatal by default, as any
     * erroneous call does; after MPI_Finalize no handler is left to use. */
    if (MPIR_initialized == 1)
        return MPIR_Err_return(NULL, "MPI_Init",
                               MPIR_Err_create(MPI_ERR_OTHER,
                                               "MPI_Init or MPI_Init_thread called a second "
                                               "time (a process initializes MPI once)"));
    if (MPIR_initialized != 0) {
        fprintf(stderr, "ferry: MPI_Init called after MPI_Finalize\n");
        return MPI_ERR_OTHER;
    }
    static const MPID_upcalls_t upcalls = {.comm_release = MPIR_Comm_release};
    int err = MPID_Init(&upcalls);
    if (!err)
        err = MPIR_Comm_init_builtins(MPIDI_world.rank, MPIDI_world.size);
    if (err) {
        /* No communicator exists yet, so the only handler is "fatal". */
        char msg[MPI_MAX_ERROR_STRING + 64];
        snprintf(msg, sizeof(msg), "Fatal error in MPI_Init: %s", MPIR_Err_string(err));
        MPID_Abort(1, msg);
    }
    MPIR_initialized = 1;
    main_thread = pthread_self();
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
    /* A barrier over the device first: a peer may still need us to answer a
     * rendezvous or read our memory until it has finished its own sends. */
    /* MPI_COMM_SELF's attributes are deleted first, while MPI still works
     * for their callbacks (MPI-4.1 sec. 11.2.4). */
    int err = MPIR_Attr_delete_all(MPIR_ATTR_COMM, MPI_COMM_SELF);
    if (!err)
        err = MPIR_Bsend_finalize();
    if (!err)
        err = MPIR_Barrier_impl(MPIR_Comm_get(MPI_COMM_WORLD));
    if (!err)
        err = MPID_Finalize();
    /* Raised while the communicators and their handlers still exist: a
     * program that asked for errors to be returned gets this one too. */
    err = MPIR_Err_return(NULL, "MPI_Finalize", err);
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

#pragma weak MPI_Initialized = PMPI_Initialized
int PMPI_Initialized(int *flag)
{
    *flag = MPIR_initialized != 0;
    return MPI_SUCCESS;
}

#pragma weak MPI_Finalized = PMPI_Finalized
int PMPI_Finalized(int *flag)
{
    *flag = MPIR_initialized == 2;
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
