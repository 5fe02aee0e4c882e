/* mpiimpl.h: what the MPI-layer files share: argument checks and error-handler calls. */
#ifndef MPIIMPL_H_INCLUDED
#define MPIIMPL_H_INCLUDED

#include <limits.h>
#include "adi.h"
#include "datatype.h"
#include "err.h"

#define MPIR_TAG_UB INT_MAX

/* Whether MPI may be used: 0 before the device starts, 1 while it runs, 2 after it finished.
 * The device has users, the world model (MPI_Init..MPI_Finalize) and each live session
 * (mpi/session.c); it starts with the first.  It finishes with MPI_Finalize when the world model
 * is the last user to go; when a session is, it stays up, idle, until a new user comes or the
 * process exits (mpi/init.c).  So one load and a compare (MPIR_CHECK_INIT) still tell every call
 * whether it may go on. */
extern int MPIR_initialized;
/* The device gets a user: started on the first (MPI_Init, MPI_Session_init); MPI_ERR_OTHER
 * once MPI_Finalize has finished it, since Ferry's device cannot start again.  fname names the
 * caller in the fatal message of a failed start. */
int MPIR_Device_acquire(const char *fname);
/* A user goes.  When it is the last: a session leaves the device idle, to end at exit, after
 * the process-wide buffer's sends completed; the world model finishes it as MPI_Finalize always
 * has (a barrier over every process of the job, then MPID_Finalize, then every MPI object is
 * freed).  err (the caller's own failure so far) and that end's failure are raised in fname on
 * the session's handler eh, or on MPI_COMM_WORLD's for the world model (session
 * MPI_SESSION_NULL), while the objects still exist; returns what the handler returned. */
int MPIR_Device_release(int err, const char *fname, MPI_Session session, MPI_Errhandler eh);
/* The world model's state, which MPI_Initialized and MPI_Finalized report (MPI-4.0 sec. 11.3:
 * the sessions do not count): 0 before MPI_Init, 1 during, 2 after MPI_Finalize. */
int MPIR_World_state(void);

/* Calls comm's error handler (MPI_COMM_WORLD's when comm is NULL) for an
 * error found in function fname; returns the code under MPI_ERRORS_RETURN. */
int MPIR_Err_return(MPIR_Comm *comm, const char *fname, int code);
int MPIR_Err_return_in_status(MPIR_Comm *comm, const char *fname, int first_err);
/* Reports use of MPI outside Init..Finalize and ends the process. */
int MPIR_Err_not_initialized(const char *fname) __attribute__((noreturn));

/* MPI_THREAD_MULTIPLE (mpi/thread.c): one lock around the library, taken at the entry of every
 * call and let go when the call returns, by whichever return (the guard variable's cleanup).
 * A call made from inside a call on the same thread (a user function Ferry calls: a reduction,
 * an attribute callback, an error handler) nests without taking it again.  Waits let it go
 * between polls (MPID_Progress_set_yield).  At the lower levels the cost is a test and a
 * branch at entry and one at exit. */
extern int MPIR_thread_multiple __attribute__((visibility("hidden"))); /* (read without the GOT) */
void MPIR_Thread_multiple_start(void); /* MPI_Init_thread, for MPI_THREAD_MULTIPLE */
/* FERRY_ASYNC_PROGRESS's thread (mpi/thread.c): started at the end of MPI_Init and
 * MPI_Session_init (once), stopped when the device ends. */
void MPIR_Async_progress_start(void);
void MPIR_Async_progress_stop(void);
int MPIR_Is_thread_main(void);         /* whether the calling thread initialized MPI */
int MPIR_Cs_enter_slow(void);
void MPIR_Cs_exit_slow(void);
static inline int MPIR_Cs_enter(void)
{
    return __builtin_expect(MPIR_thread_multiple, 0) ? MPIR_Cs_enter_slow() : 0;
}
static inline void MPIR_Cs_exit(const int *held)
{
    if (__builtin_expect(*held, 0))
        MPIR_Cs_exit_slow();
}
#define MPIR_CS_GUARD                                                                              \
    int mpir_cs_held_ __attribute__((cleanup(MPIR_Cs_exit), unused)) = MPIR_Cs_enter()

/* Every call begins with it (or with MPIR_CS_GUARD alone where it may be made outside
 * MPI_Init..MPI_Finalize): the lock, then the check. */
#define MPIR_CHECK_INIT(fname)                                                                     \
    MPIR_CS_GUARD;                                                                                 \
    if (MPIR_initialized != 1)                                                                     \
    MPIR_Err_not_initialized(fname)

/* Each check returns MPI_SUCCESS or an error code whose message names the
 * bad value. */
int MPIR_Check_comm_slow(MPI_Comm comm);
/* Inline: every call checks its communicator; the slow part says what is wrong. */
static inline int MPIR_Check_comm(MPI_Comm comm, MPIR_Comm **comm_p)
{
    *comm_p = MPIR_Comm_get(comm);
    return *comm_p ? MPI_SUCCESS : MPIR_Check_comm_slow(comm);
}
int MPIR_Check_count(MPI_Aint count);
int MPIR_Check_type(MPI_Datatype type);
int MPIR_Check_buf(const void *buf, MPI_Aint count);
/* For communication and packing: the type is also committed, and a NULL
 * buffer (MPI_BOTTOM) is allowed with derived types (absolute addresses). */
int MPIR_Check_comm_type(MPI_Datatype type);
int MPIR_Check_typed_buf(const void *buf, MPI_Aint count, MPI_Datatype type);
int MPIR_Check_send_rank(const MPIR_Comm *comm, int rank);
int MPIR_Check_recv_rank(const MPIR_Comm *comm, int rank);
int MPIR_Check_send_tag(int tag);
int MPIR_Check_recv_tag(int tag);
/* All the checks of a send or receive buffer and envelope at once.  The
 * common case is a few comparisons inline, without a call (a call's register
 * saves cost as much as the comparisons): a predefined type (always
 * committed), a valid rank and tag.  Anything else takes the checks of
 * MPIR_Check_pt2pt_slow, which say what is wrong. */
int MPIR_Check_pt2pt_slow(const void *buf, MPI_Aint count, MPI_Datatype type, int rank, int tag,
                          MPIR_Comm *comm, int is_recv);
static inline int MPIR_Check_pt2pt(const void *buf, MPI_Aint count, MPI_Datatype type, int rank,
                                   int tag, MPIR_Comm *comm, int is_recv)
{
    /* buf + 1 > 1: neither NULL nor MPI_IN_PLACE ((void *)-1), in one comparison. */
    if (MPIR_Datatype_is_builtin(type) && count >= 0 && ((uintptr_t)buf + 1 > 1 || count == 0) &&
        ((unsigned)rank < (unsigned)MPIR_Comm_peer_size(comm) || rank == MPI_PROC_NULL ||
         (is_recv && rank == MPI_ANY_SOURCE)) &&
        (tag >= 0 || (is_recv && tag == MPI_ANY_TAG)))
        return MPI_SUCCESS;
    return MPIR_Check_pt2pt_slow(buf, count, type, rank, tag, comm, is_recv);
}

/* A status argument: MPI_STATUS_IGNORE or a status to fill.  NULL is the program's error
 * (MPI_ERR_ARG, as in MPICH), which would otherwise crash where the status is written. */
static inline int MPIR_Check_status(const MPI_Status *status)
{
    return status ? MPI_SUCCESS
                  : MPIR_Err_create(MPI_ERR_ARG, "status is NULL (MPI_STATUS_IGNORE ignores it)");
}

/* Context agreements and collective schedules under way: the agent calls the
 * MPI layer's progress hook only while this is not 0 (mpi/comm.c). */
extern int MPIR_upper_work;

/* Fills status from a completed request (if status is not STATUS_IGNORE). */
void MPIR_Status_set(MPI_Status *status, const MPIR_Request *req);
/* The status of a null or inactive request (source ANY_SOURCE, tag ANY_TAG, count 0). */
void MPIR_Status_empty(MPI_Status *status);
/* Completes a request the user asked about: fills status, frees the request
 * (a persistent one becomes inactive), sets *handle to MPI_REQUEST_NULL;
 * returns the request's error. */
int MPIR_Request_finish(MPI_Request *handle, MPIR_Request *req, MPI_Status *status);
/* Runs the agent until req is complete. */
void MPIR_Request_wait(MPIR_Request *req);
int MPIR_Request_cancel(MPIR_Request *req);
/* Makes child one of parent's events (parent->cc counts it already); the
 * parent takes over the child's handle reference. */
void MPIR_Request_adopt(MPIR_Request *parent, MPIR_Request *child);

/* Send modes (MPI-4.1 sec. 3.4) and what a persistent request starts. */
typedef enum {
    MPIR_MODE_STANDARD,
    MPIR_MODE_SYNC,
    MPIR_MODE_READY,
    MPIR_MODE_BUFFERED,
} MPIR_Send_mode_t;
/* else preq.op is an MPIR_Send_mode_t */
enum { MPIR_PREQ_RECV = -1, MPIR_PREQ_COLL = -2 /* a persistent collective (mpi/sched.c) */ };

/* ---- Partitioned communication (mpi/part.c) ----
 * A partitioned request (MPIR_REQ_PART) keeps its buffer in the request's segment (all
 * partitions * count elements), its peer and tag in rank and tag, and the rest here.  Each side
 * has fields of its own; a round is MPI_Start to the completion call that ends it. */
typedef struct MPIR_Part {
    struct MPIR_Request *req;
    int is_recv;
    int active; /* started and not yet completed by a completion call */
    int partitions;
    MPI_Aint count; /* elements per partition */
    MPI_Datatype type;
    size_t part_bytes; /* bytes per partition */
    /* The pairing message: sent from here (send side), received into here (receive side). */
    struct {
        int64_t tag_base, partitions, part_bytes;
    } init;
    int outstanding; /* events left in this round; it completes at 0 */
    int queued;      /* on the agent's list (MPIR_Part_progress) */
    struct MPIR_Part *next_queued;
    /* Send side. */
    int send_base;             /* its range of data tags [send_base, send_base + partitions) */
    unsigned char *send_state; /* per partition, this round: MPIR_PART_* */
    int ready_in;              /* the receiver's ready message of this round is in */
    int ready_waiting;         /* partitions marked ready, not yet sent */
    /* Receive side. */
    int init_in;            /* the pairing message is in (init holds the sender's numbers) */
    int init_err;           /* it failed: every round fails with this */
    int post_waiting;       /* started before init_in: the agent posts the round */
    unsigned char *arrived; /* per *sender* partition, this round */
    size_t bytes_in;        /* bytes received this round */
} MPIR_Part;
/* Starts a round of an inactive partitioned request (MPI_Start, MPI_Startall). */
void MPIR_Part_start(MPIR_Request *req);
/* Advances rounds waiting for the pairing or the ready message (the agent's hook); returns 1 if
 * anything happened. */
int MPIR_Part_progress(void);

/* Buffered send (mpi/bsend.c): packs into the attached buffer and sends from
 * there; the returned request is complete at once. */
int MPIR_Bsend_isend(const void *buf, MPI_Aint count, MPI_Datatype type, int dest, int tag,
                     MPIR_Comm *comm, MPIR_Request **req_p);
/* A communicator is destroyed: its attached buffer goes (with its last buffered send). */
void MPIR_Bsend_comm_destroy(MPIR_Comm *comm);
/* A session is finalized: its buffer's sends complete, then the buffer goes (buf may be NULL). */
struct bsend_buf;
void MPIR_Bsend_session_end(struct bsend_buf *buf);
/* For mpi/bsend.c (mpi/session.c): *slot_p, where a live session keeps its buffer (or NULL), else
 * MPI_ERR_SESSION; and an error of a call on session raised on the session's handler (or, when
 * session is not a live one, on the handler of errors bound to no object). */
int MPIR_Session_bsend(MPI_Session session, struct bsend_buf ***slot_p);
int MPIR_Session_err_return(MPI_Session session, const char *fname, int err);
/* A send in any mode of the program's (MPI_Isend ..., MPI_Start); the request exists unless an
 * error is returned.  Inline: every MPI_Isend takes it. */
static inline int MPIR_Isend_mode(const void *buf, MPI_Aint count, MPI_Datatype type, int dest,
                                  int tag, MPIR_Comm *comm, MPIR_Send_mode_t mode,
                                  MPIR_Request **req_p)
{
    *req_p = NULL;
    int buffered = mode == MPIR_MODE_BUFFERED;
    /* A ready send may be a standard one: the receive is posted already, so
     * the standard protocol finds it (MPI-4.1 sec. 3.4). */
    int err = buffered ? MPIR_Bsend_isend(buf, count, type, dest, tag, comm, req_p)
                       : MPID_Isend(buf, count, type, dest, tag, comm, 0,
                                    mode == MPIR_MODE_SYNC, req_p);
    MPID_Send_poll();
    /* A failure after the request exists is reported by the wait (a buffered send's at once). */
    return *req_p && !buffered ? MPI_SUCCESS : err;
}
int MPIR_Bsend_finalize(void);
/* An internal buffered send is over: its block returns to the buffer. */
void MPIR_Bsend_block_done(MPIR_Request *sreq);

/* ---- Collectives over point-to-point on the communicator's collective context ---- */

/* Tags on a collective context.  Collectives use the small positive kinds;
 * internal subset communicators (MPI_Comm_create_group) and the leaders of
 * MPI_Intercomm_create add a negative base made from the user's tag, so
 * concurrent ones with different tags stay apart (and away from
 * MPI_ANY_TAG). */
enum {
    MPIR_TAG_BARRIER = 1,
    MPIR_TAG_BCAST,
    MPIR_TAG_REDUCE,
    MPIR_TAG_GATHER,
    MPIR_TAG_SCATTER,
    MPIR_TAG_ALLGATHER,
    MPIR_TAG_ALLTOALL,
    MPIR_TAG_CONTEXT,   /* leaders agreeing on a context id */
    MPIR_TAG_INTERCOMM, /* leaders exchanging their groups */
    MPIR_TAG_SCAN,
    MPIR_TAG_NEIGHBOR, /* the neighbourhood collectives */
    MPIR_TAG_KINDS = 16
};
#define MPIR_TAG_FROM_USER(tag) (-MPIR_TAG_KINDS * (2 + ((tag)&0x03ffffff)))
/* Below those, a base made from the hash of an MPI-4.0 string tag (Comm_create_from_group,
 * Intercomm_create_from_groups), which cannot meet a user's integer tag. */
#define MPIR_TAG_FROM_STRING(hash) (-MPIR_TAG_KINDS * (2 + (1 << 26) + (int)((hash)&0x01ffffff)))

/* A nonblocking or persistent collective's own tag, from the communicator's sequence: above
 * every kind and every MPI_Comm_idup tag (MPIR_IDUP_TAGS), below MPIR_TAG_UB. */
#define MPIR_TAG_NBC(seq) ((1 << 30) + MPIR_TAG_KINDS + (int)((seq) % (1u << 29)))

/* ---- Collective schedules (mpi/sched.c) ----
 * A collective is built as a schedule of steps, then run to its end (blocking), started
 * under a request (nonblocking), or kept in an inactive persistent request that MPI_Start
 * runs again.  The builders add steps; the first failure sticks in the schedule, so a builder
 * checks MPIR_Sched_error once at its end.  Buffers named by steps must stay valid while the
 * schedule may run (MPI's rule for the user's buffers; MPIR_Sched_tmp for the collective's
 * own). */
typedef struct MPIR_Sched MPIR_Sched_t;
typedef enum { MPIR_COLL_BLOCKING, MPIR_COLL_NONBLOCKING, MPIR_COLL_PERSISTENT } MPIR_Coll_mode_t;
/* kind (MPIR_TAG_*) is the tag of a blocking schedule; the others take MPIR_TAG_NBC. */
int MPIR_Sched_create(MPIR_Comm *comm, MPIR_Coll_mode_t mode, int kind, MPIR_Sched_t **s_p);
/* Frees what the cached blocking schedule keeps between calls (MPI_Finalize). */
void MPIR_Sched_finalize(void);
void MPIR_Sched_send(MPIR_Sched_t *s, const void *buf, MPI_Aint count, MPI_Datatype type, int peer);
void MPIR_Sched_recv(MPIR_Sched_t *s, void *buf, MPI_Aint count, MPI_Datatype type, int peer);
void MPIR_Sched_copy(MPIR_Sched_t *s, const void *src, MPI_Aint scount, MPI_Datatype stype,
                     void *dst, MPI_Aint dcount, MPI_Datatype dtype);
/* inout = in op inout */
void MPIR_Sched_reduce(MPIR_Sched_t *s, const void *in, void *inout, MPI_Aint count,
                       MPI_Datatype type, MPI_Op op);
/* The sends and receives added next go on comm: the schedule's communicator or, for an
 * intercommunicator's, its local group (local_comm). */
void MPIR_Sched_use_comm(MPIR_Sched_t *s, MPIR_Comm *comm);
/* The steps after it start when every step before it is complete. */
void MPIR_Sched_fence(MPIR_Sched_t *s);
/* A buffer for count elements of type, freed with the schedule (NULL after a failure). */
void *MPIR_Sched_tmp(MPIR_Sched_t *s, MPI_Aint count, MPI_Datatype type);
int MPIR_Sched_error(const MPIR_Sched_t *s);
void MPIR_Sched_fail(MPIR_Sched_t *s, int err);
/* Runs, starts or parks s by its mode and hands it over (request: the user's handle, unused
 * when blocking); returns the blocking collective's result or a failure to begin. */
int MPIR_Sched_finish(MPIR_Sched_t *s, MPI_Request *request);
/* The checks every collective call begins with: comm, and for the nonblocking and persistent
 * forms the request pointer and info (persistent).  Each collective refuses intercommunicators
 * itself if it has no intercommunicator form (doc/api.md). */
int MPIR_Coll_begin(const char *fname, MPI_Comm comm, MPIR_Coll_mode_t mode, MPI_Info info,
                    MPI_Request *request, MPIR_Comm **c_p);
/* The three forms of a collective: PMPI_NAME(params), PMPI_INAME(params, request) and
 * PMPI_NAME_init(params, info, request).  Each checks that MPI is initialized and hands its
 * arguments (ARGS, a parenthesized initializer of an ARGS_T) to
 * CALL(fname, KIND, &args, comm, mode, info, request).  MPIR_COLL_FORMS_C makes the large-count
 * forms PMPI_NAME_c, PMPI_INAME_c and PMPI_NAME_init_c (MPI-4.1 sec. 6: the same calls with
 * MPI_Count counts and MPI_Aint displacements); one ARGS serves both, as MPIR_ARRAY takes either
 * kind of array.  The #pragma weak lines for the MPI_ names stay beside each use. */
#define MPIR_UNPAREN(...) __VA_ARGS__
#define MPIR_COLL_FORM(FNAME, CALL, KIND, ARGS_T, ARGS, MODE, INFO, REQ)                           \
    {                                                                                              \
        MPIR_CHECK_INIT(FNAME);                                                                    \
        ARGS_T a = {MPIR_UNPAREN ARGS};                                                            \
        return CALL(FNAME, KIND, &a, comm, MODE, INFO, REQ);                                       \
    }
#define MPIR_COLL_FORMS_SFX(NAME, INAME, SFX, CALL, KIND, ARGS_T, ARGS, ...)                       \
    int PMPI_##NAME##SFX(__VA_ARGS__) MPIR_COLL_FORM(                                              \
        "MPI_" #NAME #SFX, CALL, KIND, ARGS_T, ARGS, MPIR_COLL_BLOCKING, MPI_INFO_NULL,            \
        NULL) int PMPI_##INAME##SFX(__VA_ARGS__, MPI_Request *request)                             \
        MPIR_COLL_FORM(                                                                            \
            "MPI_" #INAME #SFX, CALL, KIND, ARGS_T, ARGS, MPIR_COLL_NONBLOCKING, MPI_INFO_NULL,    \
            request) int PMPI_##NAME##_init##SFX(__VA_ARGS__, MPI_Info info, MPI_Request *request) \
            MPIR_COLL_FORM("MPI_" #NAME "_init" #SFX, CALL, KIND, ARGS_T, ARGS,                    \
                           MPIR_COLL_PERSISTENT, info, request)
#define MPIR_COLL_FORMS(NAME, INAME, CALL, KIND, ARGS_T, ARGS, ...)                                \
    MPIR_COLL_FORMS_SFX(NAME, INAME, , CALL, KIND, ARGS_T, ARGS, __VA_ARGS__)
#define MPIR_COLL_FORMS_C(NAME, INAME, CALL, KIND, ARGS_T, ARGS, ...)                              \
    MPIR_COLL_FORMS_SFX(NAME, INAME, _c, CALL, KIND, ARGS_T, ARGS, __VA_ARGS__)

/* A count or displacement array of a collective as its caller gave it: int in the classic
 * forms, MPI_Count (counts) or MPI_Aint (displacements) in the _c forms and in the byte
 * displacements of Neighbor_alltoallw.  Keeping the caller's array, rather than a converted
 * copy, lets the int and _c forms share every check and builder; MPIR_Array_at reads one entry
 * as the MPI_Aint the builders take. */
typedef enum { MPIR_ARRAY_INT, MPIR_ARRAY_AINT, MPIR_ARRAY_COUNT } MPIR_Array_elem_t;
typedef struct {
    const void *base; /* NULL when the caller passed NULL */
    MPIR_Array_elem_t elem;
} MPIR_Array_t;
#define MPIR_ARRAY(a)                                                                              \
    ((MPIR_Array_t){(a), _Generic((a), const int *: MPIR_ARRAY_INT,                              \
                                  const MPI_Aint *: MPIR_ARRAY_AINT,                             \
                                  const MPI_Count *: MPIR_ARRAY_COUNT)})
_Static_assert(sizeof(MPI_Count) <= sizeof(MPI_Aint),
               "an MPI_Count count is an MPI_Aint unchanged");
static inline MPI_Aint MPIR_Array_at(MPIR_Array_t a, int i)
{
    switch (a.elem) {
    case MPIR_ARRAY_INT:
        return ((const int *)a.base)[i];
    case MPIR_ARRAY_AINT:
        return ((const MPI_Aint *)a.base)[i];
    case MPIR_ARRAY_COUNT:
        return (MPI_Aint)((const MPI_Count *)a.base)[i];
    }
    return 0;
}

/* MPI_Start of a persistent collective. */
void MPIR_Sched_start(MPIR_Sched_t *s, MPIR_Request *req);
void MPIR_Sched_free(MPIR_Sched_t *s);
/* Advances the running schedules (the agent's hook); returns 1 if anything happened. */
int MPIR_Sched_progress(void);

int MPIR_Coll_send(const void *buf, MPI_Aint count, MPI_Datatype type, int dst, int tag,
                   MPIR_Comm *comm);
int MPIR_Coll_recv(void *buf, MPI_Aint count, MPI_Datatype type, int src, int tag, MPIR_Comm *comm);
int MPIR_Coll_sendrecv(const void *sendbuf, MPI_Aint sendbytes, void *recvbuf, MPI_Aint recvbytes,
                       int peer, int tag, MPIR_Comm *comm);
/* A valid root: a rank, or on an intercommunicator MPI_ROOT, MPI_PROC_NULL or a rank of the
 * remote group; else MPI_ERR_ROOT saying which values were allowed. */
int MPIR_Check_root(const MPIR_Comm *comm, int root);
int MPIR_Allgather_impl(const void *sendbuf, MPI_Aint sendcount, MPI_Datatype sendtype,
                        void *recvbuf, MPI_Aint recvcount, MPI_Datatype recvtype, MPIR_Comm *comm);
int MPIR_Barrier_impl(MPIR_Comm *comm);
int MPIR_Bcast_impl(void *buf, MPI_Aint count, MPI_Datatype type, int root, MPIR_Comm *comm);
/* Intracommunicators only. */
void MPIR_Bcast_build(MPIR_Sched_t *s, void *buf, MPI_Aint count, MPI_Datatype type, int root,
                      const MPIR_Comm *comm);
int MPIR_Allreduce_impl(const void *sendbuf, void *recvbuf, MPI_Aint count, MPI_Datatype type,
                        MPI_Op op, MPIR_Comm *comm);
/* Block r (counts[r] elements at displs[r], or sendcount at r * sendcount when counts is NULL)
 * of root's sendbuf goes to rank r's recvbuf. */
void MPIR_Scatterv_build(MPIR_Sched_t *s, const void *sendbuf, const MPI_Aint *counts,
                         const MPI_Aint *displs, MPI_Aint sendcount, MPI_Datatype sendtype,
                         void *recvbuf, MPI_Aint recvcount, MPI_Datatype recvtype, int root,
                         const MPIR_Comm *comm);
/* Copies count elements of one typed buffer into another (through a packed copy when the
 * layouts differ); MPI_ERR_TRUNCATE if they do not fit. */
int MPIR_Local_copy(const void *src, MPI_Aint scount, MPI_Datatype stype, void *dst,
                    MPI_Aint rcount, MPI_Datatype rtype);

/* ---- Reduction operations (mpi/op_user.c) ---- */
/* op is defined on type: a user-defined op on any committed type, a predefined op on the
 * predefined types its table lists. */
int MPIR_Op_check_reduce(MPI_Op op, MPI_Datatype type);
int MPIR_Op_commutes(MPI_Op op);
/* A user-defined op stays usable while a collective holds it, even after MPI_Op_free. */
void MPIR_Op_add_ref(MPI_Op op);
void MPIR_Op_release(MPI_Op op);
/* inout = in op inout, elementwise over count elements of type. */
void MPIR_Reduce_apply(MPI_Op op, MPI_Datatype type, const void *in, void *inout, MPI_Aint count);
void MPIR_Op_finalize(void);

/* ---- Communicators (mpi/comm.c, mpi/intercomm.c) ---- */

/* A new communicator in the table; world_ranks is owned from now on. */
int MPIR_Comm_new(int context_id, int rank, int size, int *world_ranks, MPIR_Comm **comm_p);
/* A malloc'ed copy of the world ranks of comm's local group. */
int *MPIR_Comm_local_ranks(const MPIR_Comm *comm);
void MPIR_Comm_inherit_errhandler(MPIR_Comm *n, const MPIR_Comm *parent);
/* ---- Context ids (mpi/contextid.c) ---- */
void MPIR_Context_init(void);
/* Marks ctx's block used (by a new communicator) or free again; ids that do not start a
 * block (a local-group communicator's) and -1 (none yet) are ignored. */
void MPIR_Context_take(int ctx);
void MPIR_Context_release(int ctx);
/* Collective over comm (both groups of an intercommunicator): the first context id of a block
 * free on every member.  The block is held for the caller: a communicator made with it owns it,
 * else the caller gives it back with MPIR_Context_release. */
int MPIR_Context_agree(MPIR_Comm *comm, int *ctx_p);
/* MPI_Comm_create_group's: over the members of comm listed (comm ranks, in group order; the
 * caller is members[index]) on comm's collective context with its coll_tag_base.  The messages
 * carry comm ranks, so agreements over different groups on one context never mix. */
int MPIR_Context_agree_group(MPIR_Comm *comm, const int *members, int n, int index, int *ctx_p);
/* Intercomm_create's agreement: over local, with the leader (peer != NULL on
 * it) combining with the remote leader through peer. */
int MPIR_Context_agree_masks(MPIR_Comm *local, int local_leader, MPIR_Comm *peer, int remote_leader,
                             int *ctx_p);
/* The same agreement without waiting: the agent advances it and calls on_done(arg, err, ctx)
 * at its end.  tag (a collective tag on comm) must differ from every other agreement on comm
 * that may be under way at the same time. */
int MPIR_Context_agree_start(MPIR_Comm *comm, int tag, void (*on_done)(void *arg, int err, int ctx),
                             void *arg);
/* Advances the agreements under way (the agent's hook); returns 1 if anything happened. */
int MPIR_Context_progress(void);
/* Distinct tags for MPI_Comm_idup's agreements on one communicator. */
#define MPIR_IDUP_TAGS (1 << 26)

int MPIR_Comm_make_local(MPIR_Comm *inter);
/* MPI_Intercomm_create's body: the leaders meet on peer's collective context (pc, used on the
 * leader only) with tag_base added to its tags. */
int MPIR_Intercomm_create_impl(MPIR_Comm *lc, int local_leader, MPIR_Comm *pc, int remote_leader,
                               int tag_base, MPIR_Comm **newcomm_p);
/* Keeps info's communicator assertions as comm's hints (MPI_Comm_set_info). */
int MPIR_Comm_set_hints(MPIR_Comm *comm, MPI_Info info);
int MPIR_Comm_split_impl(MPIR_Comm *comm, int color, int key, MPIR_Comm **newcomm_p);
int MPIR_Intercomm_split_impl(MPIR_Comm *comm, int color, int key, MPIR_Comm **newcomm_p);

/* ---- Process topologies (mpi/topo.c) ----
 * A communicator's topology, copied by MPI_Comm_dup and freed with the communicator.  One
 * allocation: every array points into data, so a copy is one memcpy and a rebase. */
typedef struct MPIR_Topo {
    int kind; /* MPI_CART, MPI_GRAPH or MPI_DIST_GRAPH */
    struct {
        int ndims, nnodes;
        int *dims, *periods, *coords; /* periods 0 or 1; coords: the caller's */
    } cart;
    struct {
        int nnodes, nedges;
        int *index, *edges; /* as given to MPI_Graph_create */
    } graph;
    struct {
        int weighted;
        int *sweights, *dweights; /* of the in- and out-edges (1 each when unweighted) */
    } dist;
    /* What the neighbourhood collectives follow, in the standard's order (MPI-4.1 sec. 8.6):
     * the in-neighbours (a receive buffer's blocks) and out-neighbours (a send buffer's), with
     * MPI_PROC_NULL at a non-periodic Cartesian edge.  Cartesian and graph topologies have
     * in == out. */
    int indegree, outdegree;
    int *in, *out;
    size_t nints;
    int data[];
} MPIR_Topo;
/* A copy of t (NULL when out of memory). */
MPIR_Topo *MPIR_Topo_dup(const MPIR_Topo *t);

/* ---- Groups (mpi/group.c) ---- */
typedef struct MPIR_Group {
    MPI_Group handle;
    int ref;
    int size;
    int rank; /* the caller's, or MPI_UNDEFINED */
    int *world_ranks;
    int *rank_of_world; /* world rank -> rank here (-1: none); built at first need, or NULL */
    MPI_Session session; /* the session it derives from (MPIR_Comm's session), or 0 */
} MPIR_Group;
MPIR_Group *MPIR_Group_get(MPI_Group group);
int MPIR_Check_group(MPI_Group group, MPIR_Group **group_p);
int MPIR_Group_new(int n, int *ranks, MPIR_Group **group_p);
void MPIR_Group_finalize_all(void);
int MPIR_Intercomm_create_from_group(MPIR_Comm *comm, const MPIR_Group *group,
                                     MPIR_Comm **newcomm_p);
/* MPI_Comm_create_group's body: collective over g's members, on comm's collective context
 * with tag_base added to its tags. */
int MPIR_Comm_create_group_impl(MPIR_Comm *comm, const MPIR_Group *g, int tag_base,
                                MPIR_Comm **newcomm_p);

/* ---- Attributes (mpi/attr.c): keyed on the object's handle ---- */
typedef enum { MPIR_ATTR_COMM, MPIR_ATTR_TYPE, MPIR_ATTR_WIN } MPIR_Attr_kind_t;
/* Runs the copy callbacks of old's attributes onto new (MPI_Comm_dup, MPI_Type_dup). */
int MPIR_Attr_copy_all(MPIR_Attr_kind_t kind, int old_handle, int new_handle);
/* Runs the delete callbacks and drops the attributes (MPI_Comm_free ...). */
int MPIR_Attr_delete_all(MPIR_Attr_kind_t kind, int handle);
void MPIR_Attr_finalize(void);
/* The form an attribute value was set in (MPI-4.1 sec. 19.3.7): C's void *, Fortran's
 * INTEGER(KIND=MPI_ADDRESS_KIND) (MPI_COMM_SET_ATTR ...) or MPI-1 Fortran's INTEGER
 * (MPI_ATTR_PUT, sign-extended).  C reading a Fortran value gets a pointer to it. */
typedef enum { MPIR_ATTR_VOID_PTR, MPIR_ATTR_AINT, MPIR_ATTR_INT } MPIR_Attr_form_t;
/* The Fortran bindings' set and get of communicator and datatype attributes (kind COMM or
 * TYPE): Fortran gets any value as an address-sized integer (a C pointer's address, a
 * predefined attribute's value); errors go to the object's handler under fname. */
int MPIR_Attr_set_fortran(const char *fname, MPIR_Attr_kind_t kind, int handle, int keyval,
                          MPI_Aint value, MPIR_Attr_form_t form);
int MPIR_Attr_get_fortran(const char *fname, MPIR_Attr_kind_t kind, int handle, int keyval,
                          MPI_Aint *value, int *flag);

/* ---- Info objects (mpi/info.c) ---- */
int MPIR_Info_create_impl(MPI_Info *info);
/* A copy (MPI_INFO_NULL stays MPI_INFO_NULL). */
int MPIR_Info_dup_impl(MPI_Info info, MPI_Info *newinfo);
void MPIR_Info_release(MPI_Info info);
/* MPI_INFO_NULL or a valid info object (the *_init collectives' info argument). */
int MPIR_Check_info_or_null(MPI_Info info);
int MPIR_Info_get_impl(MPI_Info info, const char *key, int valuelen, char *value, int *flag);
/* Sets a key of an info object the library made (key and value known to be valid). */
int MPIR_Info_set_impl(MPI_Info info, const char *key, const char *value);
/* Drops every key of info not in the NULL-terminated list keys. */
int MPIR_Info_keep_only(MPI_Info info, const char *const keys[]);

/* ---- Error handlers (mpi/errhandler.c) ---- */
/* What a user's handler was made for: it may be attached to that kind of object only. */
typedef enum { MPIR_EH_FOR_COMM, MPIR_EH_FOR_SESSION } MPIR_Eh_kind_t;
/* A predefined handler or a user's made for kind; else MPI_ERR_ARG saying what it is. */
int MPIR_Check_errhandler(MPI_Errhandler eh, MPIR_Eh_kind_t kind);
/* Calls handler eh (of the session named handle) for an error found in fname; returns the
 * code unless the handler is fatal. */
int MPIR_Err_return_session(MPI_Session handle, MPI_Errhandler eh, const char *fname, int code);
/* MPI_FILE_NULL's handler (MPI_ERRORS_RETURN at first), which the refused I/O calls raise their
 * errors on (mpi/refused.c); only the predefined handlers can be set (else MPI_ERR_ARG). */
MPI_Errhandler MPIR_File_null_errhandler(void);
int MPIR_File_null_set_errhandler(MPI_Errhandler eh);
int MPIR_Err_return_file_null(const char *fname, int code);
void MPIR_Errhandler_add_ref(MPI_Errhandler eh);
void MPIR_Errhandler_release(MPI_Errhandler eh);
void MPIR_Errhandler_set(MPI_Errhandler *slot, MPI_Errhandler eh);

#endif /* MPIIMPL_H_INCLUDED */
