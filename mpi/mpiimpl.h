/* mpiimpl.h: what the MPI-layer files share: argument checks and error-handler calls. */
#ifndef MPIIMPL_H_INCLUDED
#define MPIIMPL_H_INCLUDED

#include <limits.h>
#include "adi.h"
#include "datatype.h"
#include "err.h"

#define MPIR_TAG_UB INT_MAX

extern int MPIR_initialized; /* 0 before MPI_Init, 1 during, 2 after MPI_Finalize */

/* Calls comm's error handler (MPI_COMM_WORLD's when comm is NULL) for an
 * error found in function fname; returns the code under MPI_ERRORS_RETURN. */
int MPIR_Err_return(MPIR_Comm *comm, const char *fname, int code);
/* Reports use of MPI outside Init..Finalize and ends the process. */
int MPIR_Err_not_initialized(const char *fname) __attribute__((noreturn));

#define MPIR_CHECK_INIT(fname)                                                                 \
    do {                                                                                       \
        if (MPIR_initialized != 1)                                                             \
            MPIR_Err_not_initialized(fname);                                                   \
    } while (0)

/* Each check returns MPI_SUCCESS or an error code whose message names the
 * bad value. */
int MPIR_Check_comm(MPI_Comm comm, MPIR_Comm **comm_p);
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
/* All the checks of a send or receive buffer and envelope at once. */
int MPIR_Check_pt2pt(const void *buf, MPI_Aint count, MPI_Datatype type, int rank, int tag,
                     MPIR_Comm *comm, int is_recv);

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
enum { MPIR_PREQ_RECV = -1 }; /* else preq.op is an MPIR_Send_mode_t */

/* A send in any mode; the request exists unless an error is returned. */
int MPIR_Isend_mode(const void *buf, MPI_Aint count, MPI_Datatype type, int dest, int tag,
                    MPIR_Comm *comm, MPIR_Send_mode_t mode, MPIR_Request **req_p);
/* Buffered send (mpi/bsend.c): packs into the attached buffer and sends from
 * there; the returned request is complete at once. */
int MPIR_Bsend_isend(const void *buf, MPI_Aint count, MPI_Datatype type, int dest, int tag,
                     MPIR_Comm *comm, MPIR_Request **req_p);
int MPIR_Bsend_finalize(void);

/* Collectives over point-to-point on the communicator's collective context. */
int MPIR_Barrier_impl(MPIR_Comm *comm);
int MPIR_Bcast_impl(void *buf, MPI_Aint count, MPI_Datatype type, int root, MPIR_Comm *comm);
int MPIR_Allreduce_impl(const void *sendbuf, void *recvbuf, MPI_Aint count, MPI_Datatype type,
                        MPI_Op op, MPIR_Comm *comm);

#endif /* MPIIMPL_H_INCLUDED */
