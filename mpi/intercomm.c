/* intercomm.c: intercommunicators: create, merge, split, create from a group, and queries.
 *
 * An intercommunicator's point-to-point ranks name the remote group
 * (world_ranks); a message carries the sender's rank in its own group,
 * which is the receiver's remote rank, so matching (MPI_ANY_SOURCE
 * included) needs nothing new.  Both groups agree on one context block; the
 * local-group intracommunicator used by collectives takes its upper half. */
#include <stdlib.h>
#include <string.h>
#include "mpiimpl.h"

/* The leaders (local rank 0) swap n_mine ints for the other group's ints,
 * which the leader then broadcasts in its group.  *theirs_p is malloc'ed;
 * *n_theirs_p is their count. */
static int swap_with_remote(MPIR_Comm *inter, const int *mine, int n_mine, int **theirs_p,
                            int *n_theirs_p)
{
    MPIR_Comm *lc = inter->local_comm;
    int n = 0, err = MPI_SUCCESS;
    if (lc->rank == 0)
        err =
            MPIR_Coll_sendrecv(&n_mine, sizeof(int), &n, sizeof(int), 0, MPIR_TAG_INTERCOMM, inter);
    if (!err)
        err = MPIR_Bcast_impl(&n, 1, MPI_INT, 0, lc);
    int *theirs = err ? NULL : malloc(sizeof(int) * (n > 0 ? n : 1));
    if (!err && !theirs)
        err = MPIR_Err_create(MPI_ERR_NO_MEM, "out of memory exchanging groups");
    if (!err && lc->rank == 0)
        err = MPIR_Coll_sendrecv(mine, sizeof(int) * n_mine, theirs, sizeof(int) * n, 0,
                                 MPIR_TAG_INTERCOMM, inter);
    if (!err)
        err = MPIR_Bcast_impl(theirs, n, MPI_INT, 0, lc);
    if (err) {
        free(theirs);
        return err;
    }
    *theirs_p = theirs;
    *n_theirs_p = n;
    return MPI_SUCCESS;
}

/* An intercommunicator from its parts, derived from session (0: the world model); local, remote
 * and the agreed context are owned (given back on failure). */
static int inter_new(int ctx, int rank, int nlocal, int *local, int nremote, int *remote,
                     MPI_Session session, MPIR_Comm **newcomm_p)
{
    MPIR_Comm *c;
    int err = MPIR_Comm_new(ctx, rank, nlocal, remote, &c);
    if (err) {
        free(local);
        MPIR_Context_release(ctx);
        return err;
    }
    c->is_inter = 1;
    c->session = session;
    c->remote_size = nremote;
    c->local_world_ranks = local;
    if ((err = MPIR_Comm_make_local(c))) {
        MPIR_Comm_release(c);
        return err;
    }
    *newcomm_p = c;
    return MPI_SUCCESS;
}

#pragma weak MPI_Intercomm_create = PMPI_Intercomm_create
int PMPI_Intercomm_create(MPI_Comm local_comm, int local_leader, MPI_Comm peer_comm,
                          int remote_leader, int tag, MPI_Comm *newintercomm)
{
    MPIR_CHECK_INIT("MPI_Intercomm_create");
    MPIR_Comm *lc, *pc = NULL;
    int err = MPIR_Check_comm(local_comm, &lc);
    if (!err && lc->is_inter)
        err = MPIR_Err_create(MPI_ERR_COMM, "local_comm must be an intracommunicator");
    if (!err && (local_leader < 0 || local_leader >= lc->size))
        err = MPIR_Err_create(MPI_ERR_RANK, "Invalid local_leader %d (local_comm size %d)",
                              local_leader, lc->size);
    if (!err && !newintercomm)
        err = MPIR_Err_create(MPI_ERR_ARG, "newintercomm is NULL");
    /* Only the leader uses peer_comm, remote_leader and tag. */
    int leader = !err && lc->rank == local_leader;
    if (leader && !(err = MPIR_Check_comm(peer_comm, &pc)) &&
        (remote_leader < 0 || remote_leader >= MPIR_Comm_peer_size(pc) ||
         remote_leader == pc->rank))
        err = MPIR_Err_create(MPI_ERR_RANK, "Invalid remote_leader %d (peer_comm size %d)",
                              remote_leader, MPIR_Comm_peer_size(pc));
    if (leader && !err)
        err = MPIR_Check_send_tag(tag);
    MPIR_Comm *n = NULL;
    if (!err)
        err = MPIR_Intercomm_create_impl(lc, local_leader, pc, remote_leader,
                                         MPIR_TAG_FROM_USER(tag), &n);
    if (err)
        return MPIR_Err_return(lc, "MPI_Intercomm_create", err);
    MPIR_Comm_inherit_errhandler(n, lc);
    *newintercomm = n->handle;
    return MPI_SUCCESS;
}

int MPIR_Intercomm_create_impl(MPIR_Comm *lc, int local_leader, MPIR_Comm *pc, int remote_leader,
                               int tag_base, MPIR_Comm **newcomm_p)
{
    int err = MPI_SUCCESS, leader = lc->rank == local_leader;
    /* The leaders talk on peer_comm's collective context with tags made
     * from the caller's tag (a subset communicator that borrows it). */
    MPIR_Comm peer = {0};
    if (leader) {
        peer = *pc;
        peer.coll_tag_base = tag_base;
    }
    int *local = MPIR_Comm_local_ranks(lc), *remote = NULL, nremote = 0;
    if (!local)
        err = MPIR_Err_create(MPI_ERR_NO_MEM, "out of memory in MPI_Intercomm_create");
    if (!err && leader)
        err = MPIR_Coll_sendrecv(&lc->size, sizeof(int), &nremote, sizeof(int), remote_leader,
                                 MPIR_TAG_INTERCOMM, &peer);
    if (!err)
        err = MPIR_Bcast_impl(&nremote, 1, MPI_INT, local_leader, lc);
    if (!err && !(remote = malloc(sizeof(int) * (nremote > 0 ? nremote : 1))))
        err = MPIR_Err_create(MPI_ERR_NO_MEM, "out of memory in MPI_Intercomm_create");
    if (!err && leader)
        err = MPIR_Coll_sendrecv(local, sizeof(int) * lc->size, remote, sizeof(int) * nremote,
                                 remote_leader, MPIR_TAG_INTERCOMM, &peer);
    if (!err)
        err = MPIR_Bcast_impl(remote, nremote, MPI_INT, local_leader, lc);
    for (int i = 0; !err && i < nremote; i++)
        for (int j = 0; j < lc->size && !err; j++)
            if (remote[i] == local[j])
                err = MPIR_Err_create(MPI_ERR_COMM,
                                      "the two groups overlap (world rank %d is "
                                      "in both)",
                                      remote[i]);
    int ctx;
    if (!err)
        err =
            MPIR_Context_agree_masks(lc, local_leader, leader ? &peer : NULL, remote_leader, &ctx);
    MPIR_Comm *n = NULL;
    if (!err) {
        err = inter_new(ctx, lc->rank, lc->size, local, nremote, remote, lc->session, &n);
        local = remote = NULL;
    }
    free(local);
    free(remote);
    if (!err)
        *newcomm_p = n;
    return err;
}

#pragma weak MPI_Intercomm_merge = PMPI_Intercomm_merge
int PMPI_Intercomm_merge(MPI_Comm intercomm, int high, MPI_Comm *newintracomm)
{
    MPIR_CHECK_INIT("MPI_Intercomm_merge");
    MPIR_Comm *c;
    int err = MPIR_Check_comm(intercomm, &c);
    if (!err && !c->is_inter)
        err = MPIR_Err_create(MPI_ERR_COMM, "MPI_Intercomm_merge needs an intercommunicator");
    if (!err && !newintracomm)
        err = MPIR_Err_create(MPI_ERR_ARG, "newintracomm is NULL");
    if (err)
        return MPIR_Err_return(c, "MPI_Intercomm_merge", err);
    /* The group that said high goes second; when both said the same, the
     * group whose leader has the lower world rank goes first. */
    int mine[2] = {high != 0, c->local_world_ranks[0]}, *theirs = NULL, n;
    err = swap_with_remote(c, mine, 2, &theirs, &n);
    int ctx;
    if (!err)
        err = MPIR_Context_agree(c, &ctx);
    MPIR_Comm *nc = NULL;
    if (!err) {
        int first = mine[0] != theirs[0] ? mine[0] < theirs[0] : mine[1] < theirs[1];
        int total = c->size + c->remote_size;
        int *ranks = malloc(sizeof(int) * total);
        if (!ranks)
            err = MPIR_Err_create(MPI_ERR_NO_MEM, "out of memory in MPI_Intercomm_merge");
        else {
            int off_local = first ? 0 : c->remote_size, off_remote = first ? c->size : 0;
            for (int i = 0; i < c->size; i++)
                ranks[off_local + i] = c->local_world_ranks[i];
            for (int i = 0; i < c->remote_size; i++)
                ranks[off_remote + i] = c->world_ranks[i];
            err = MPIR_Comm_new(ctx, off_local + c->rank, total, ranks, &nc);
        }
        if (err)
            MPIR_Context_release(ctx);
    }
    free(theirs);
    if (err)
        return MPIR_Err_return(c, "MPI_Intercomm_merge", err);
    MPIR_Comm_inherit_errhandler(nc, c);
    nc->session = c->session;
    *newintracomm = nc->handle;
    return MPI_SUCCESS;
}

/* MPI_Comm_split on an intercommunicator: each group splits by color, and
 * the pieces of one color on the two sides form a new intercommunicator
 * (MPI_COMM_NULL where the other side has no process of that color). */
typedef struct {
    int key, rank, world;
} member_t;

static int by_key(const void *a, const void *b)
{
    const member_t *x = a, *y = b;
    return x->key != y->key ? (x->key < y->key ? -1 : 1) : x->rank - y->rank;
}

/* The world ranks of color's members of a group given (color, key, world)
 * triples, in key order; *my_rank is the caller's place if it is there. */
static int *members(const int *triples, int n, int color, int *count_p, int *my_rank)
{
    member_t *m = malloc(sizeof(*m) * (n > 0 ? n : 1));
    int *ranks = malloc(sizeof(int) * (n > 0 ? n : 1)), k = 0;
    if (!m || !ranks) {
        free(m);
        free(ranks);
        return NULL;
    }
    for (int i = 0; i < n; i++)
        if (triples[3 * i] == color)
            m[k++] = (member_t){triples[3 * i + 1], i, triples[3 * i + 2]};
    qsort(m, k, sizeof(*m), by_key);
    for (int i = 0; i < k; i++) {
        ranks[i] = m[i].world;
        if (my_rank && m[i].world == MPIDI_world.rank)
            *my_rank = i;
    }
    free(m);
    *count_p = k;
    return ranks;
}

int MPIR_Intercomm_split_impl(MPIR_Comm *c, int color, int key, MPIR_Comm **newcomm_p)
{
    *newcomm_p = NULL;
    int mine[3] = {color, key, MPIDI_world.rank};
    int *local = malloc(sizeof(int) * 3 * c->size), *remote = NULL, nr = 0;
    if (!local)
        return MPIR_Err_create(MPI_ERR_NO_MEM, "out of memory splitting a communicator");
    int err = MPIR_Allgather_impl(mine, 3, MPI_INT, local, 3, MPI_INT, c->local_comm);
    if (!err)
        err = swap_with_remote(c, local, 3 * c->size, &remote, &nr);
    int ctx;
    if (!err)
        err = MPIR_Context_agree(c, &ctx);
    if (!err && color == MPI_UNDEFINED)
        MPIR_Context_release(ctx);
    else if (!err) {
        int nl, nrm, rank = 0;
        int *l = members(local, c->size, color, &nl, &rank);
        int *r = members(remote, nr / 3, color, &nrm, NULL);
        if (!l || !r || nrm == 0) {
            free(l);
            free(r);
            MPIR_Context_release(ctx);
            if (!l || !r)
                err = MPIR_Err_create(MPI_ERR_NO_MEM, "out of memory splitting a communicator");
        } else
            err = inter_new(ctx, rank, nl, l, nrm, r, c->session, newcomm_p);
    }
    free(local);
    free(remote);
    return err;
}

/* MPI_Comm_create on an intercommunicator: the group is part of the local
 * group; the result joins it with the part the other side chose. */
int MPIR_Intercomm_create_from_group(MPIR_Comm *c, const MPIR_Group *g, MPIR_Comm **newcomm_p)
{
    *newcomm_p = NULL;
    int *remote = NULL, nr = 0;
    int err = swap_with_remote(c, g->world_ranks, g->size, &remote, &nr);
    int ctx;
    if (!err)
        err = MPIR_Context_agree(c, &ctx);
    if (!err && (g->rank == MPI_UNDEFINED || nr == 0))
        MPIR_Context_release(ctx);
    else if (!err) {
        int *local = malloc(sizeof(int) * g->size);
        if (!local) {
            MPIR_Context_release(ctx);
            err = MPIR_Err_create(MPI_ERR_NO_MEM, "out of memory in MPI_Comm_create");
        } else {
            memcpy(local, g->world_ranks, sizeof(int) * g->size);
            err = inter_new(ctx, g->rank, g->size, local, nr, remote, c->session, newcomm_p);
            remote = NULL;
        }
    }
    free(remote);
    return err;
}

#pragma weak MPI_Comm_test_inter = PMPI_Comm_test_inter
int PMPI_Comm_test_inter(MPI_Comm comm, int *flag)
{
    MPIR_CHECK_INIT("MPI_Comm_test_inter");
    MPIR_Comm *c;
    int err = MPIR_Check_comm(comm, &c);
    if (!err && !flag)
        err = MPIR_Err_create(MPI_ERR_ARG, "flag is NULL");
    if (err)
        return MPIR_Err_return(c, "MPI_Comm_test_inter", err);
    *flag = c->is_inter;
    return MPI_SUCCESS;
}

#pragma weak MPI_Comm_remote_size = PMPI_Comm_remote_size
int PMPI_Comm_remote_size(MPI_Comm comm, int *size)
{
    MPIR_CHECK_INIT("MPI_Comm_remote_size");
    MPIR_Comm *c;
    int err = MPIR_Check_comm(comm, &c);
    if (!err && !c->is_inter)
        err = MPIR_Err_create(MPI_ERR_COMM, "MPI_Comm_remote_size needs an intercommunicator");
    if (!err && !size)
        err = MPIR_Err_create(MPI_ERR_ARG, "size is NULL");
    if (err)
        return MPIR_Err_return(c, "MPI_Comm_remote_size", err);
    *size = c->remote_size;
    return MPI_SUCCESS;
}
