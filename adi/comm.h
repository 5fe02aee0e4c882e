/* comm.h: communicator objects as the device sees them (context ids, rank maps). */
#ifndef COMM_H_INCLUDED
#define COMM_H_INCLUDED

#include "mpi.h"

/* Each communicator owns a block of MPIR_CONTEXT_BLOCK context ids: ctx for
 * user point-to-point and ctx + 1 for collectives, so collective traffic
 * never matches a user receive, wildcards included; an intercommunicator's
 * local group communicator (local_comm) takes ctx + 2 and ctx + 3. */
typedef struct MPIR_Comm {
    MPI_Comm handle;
    int ref;
    int context_id;
    int rank; /* in the local group */
    int size; /* of the local group */
    /* The group that point-to-point ranks name, rank -> world rank: the
     * local group of an intracommunicator, the remote group of an
     * intercommunicator.  NULL means the identity. */
    int *world_ranks;
    int is_inter;
    int remote_size;             /* intercommunicator: size of the remote group */
    int *local_world_ranks;      /* intercommunicator: the local group */
    struct MPIR_Comm *local_comm; /* intercommunicator: an intracommunicator over the local
                                   * group, for the local steps of collectives */
    int coll_tag_base; /* added to collective tags (non-zero on internal subset communicators) */
    unsigned idup_seq; /* MPI_Comm_idup calls on it: each agreement gets its own tag */
    unsigned nbc_seq;  /* nonblocking and persistent collectives begun on it (their tags) */
    MPI_Errhandler errhandler;
    MPI_Info info; /* hints given with MPI_Comm_set_info (kept, not acted on) */
    char name[MPI_MAX_OBJECT_NAME];
    struct MPIR_Topo *topo; /* a process topology (mpi/topo.c), or NULL */
    struct bsend_buf *bsend; /* MPI_Comm_attach_buffer's buffer (mpi/bsend.c), or NULL */
    /* The session it derives from (MPI_Comm_create_from_group on a session's group, and every
     * communicator made from that one), whose buffer its buffered sends use when it has none
     * of its own; 0 for the world model's. */
    MPI_Session session;
} MPIR_Comm;

#define MPIR_CONTEXT_COLL_OFFSET 1
#define MPIR_CONTEXT_LOCAL_OFFSET 2
#define MPIR_CONTEXT_BLOCK 4
/* Every block lies below MPIR_CONTEXT_MAX (mpi/contextid.c hands out that many ids).
 * Partitioned communication (mpi/part.c) takes three offsets past all of them, one per kind of
 * its messages, so its traffic never meets a user's or a collective's receive, wildcards
 * included, and its tags are free for its own use. */
#define MPIR_CONTEXT_MAX 4096
#define MPIR_CONTEXT_PART_INIT MPIR_CONTEXT_MAX        /* pairing: the user's tag */
#define MPIR_CONTEXT_PART_DATA (2 * MPIR_CONTEXT_MAX)  /* partitions: the pair's tags */
#define MPIR_CONTEXT_PART_READY (3 * MPIR_CONTEXT_MAX) /* receiver started a round */
_Static_assert(4 * MPIR_CONTEXT_MAX <= 65536, "every context id fits the match header's 16 bits");

/* The communicator table (mpi/comm.c): a handle's low bits index it. */
#define MPIR_COMM_MAX 4096
extern MPIR_Comm *MPIR_Comm_table[MPIR_COMM_MAX];
/* Looks up a communicator by handle (NULL if it is not one).  Inline: every
 * point-to-point call does it. */
static inline MPIR_Comm *MPIR_Comm_get(MPI_Comm comm)
{
    if ((comm & 0xfc000000) != MPIR_HANDLE_KIND_COMM)
        return NULL;
    unsigned idx = comm & 0x03ffffff;
    return idx < MPIR_COMM_MAX ? MPIR_Comm_table[idx] : NULL;
}
static inline int MPIR_Comm_world_rank(const MPIR_Comm *c, int rank)
{
    return c->world_ranks ? c->world_ranks[rank] : rank;
}
/* The world rank of local-group rank `rank`. */
static inline int MPIR_Comm_local_world_rank(const MPIR_Comm *c, int rank)
{
    if (c->is_inter)
        return c->local_world_ranks[rank];
    return c->world_ranks ? c->world_ranks[rank] : rank;
}
/* How many ranks point-to-point may name. */
static inline int MPIR_Comm_peer_size(const MPIR_Comm *c)
{
    return c->is_inter ? c->remote_size : c->size;
}
int MPIR_Comm_init_builtins(int world_rank, int world_size);
void MPIR_Comm_finalize_all(void);
int MPIR_Comm_dup_impl(MPIR_Comm *comm, MPIR_Comm **newcomm_p);
void MPIR_Comm_release(MPIR_Comm *comm);

#endif /* COMM_H_INCLUDED */
