/* comm.h: communicator objects as the device sees them (context ids, rank maps). */
#ifndef COMM_H_INCLUDED
#define COMM_H_INCLUDED

#include "mpi.h"

/* Each communicator owns two context ids: ctx for user point-to-point and
 * ctx + 1 for collectives, so collective traffic never matches a user
 * receive, wildcards included. */
typedef struct MPIR_Comm {
    MPI_Comm handle;
    int ref;
    int context_id;
    int rank;
    int size;
    int *world_ranks; /* comm rank -> world rank; NULL means identity */
    MPI_Errhandler errhandler;
    char name[MPI_MAX_OBJECT_NAME];
} MPIR_Comm;

#define MPIR_CONTEXT_COLL_OFFSET 1

MPIR_Comm *MPIR_Comm_get(MPI_Comm comm);
static inline int MPIR_Comm_world_rank(const MPIR_Comm *c, int rank)
{
    return c->world_ranks ? c->world_ranks[rank] : rank;
}
int MPIR_Comm_init_builtins(int world_rank, int world_size);
void MPIR_Comm_finalize_all(void);
int MPIR_Comm_dup_impl(MPIR_Comm *comm, MPIR_Comm **newcomm_p);
void MPIR_Comm_release(MPIR_Comm *comm);

#endif /* COMM_H_INCLUDED */
