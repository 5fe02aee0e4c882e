/* comm.c: communicator objects, context-id agreement, and the intracommunicator constructors
 * (dup, split, split_type, create, create_group) with their queries. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "mpiimpl.h"
#include "op.h"

MPIR_Comm *MPIR_Comm_table[MPIR_COMM_MAX];
/* One past the highest slot ever used: finalize reads no further (reading the
 * untouched rest of the table faults in its pages in every process at exit). */
static int comms_used = 2;
static MPIR_Comm world_obj, self_obj;
static int self_rank_map[1];

int MPIR_upper_work;

/* The MPI layer's share of the agent's work: context agreements, collective schedules and
 * partitioned rounds.  The agent calls it only while MPIR_upper_work is not 0. */
static int upper_progress(void)
{
    int made = MPIR_Context_progress();
    made |= MPIR_Part_progress();
    return MPIR_Sched_progress() | made;
}

int MPIR_Comm_init_builtins(int world_rank, int world_size)
{
    MPIR_Context_init();
    world_obj = (MPIR_Comm){.handle = MPI_COMM_WORLD,
                            .ref = 1,
                            .context_id = 0,
                            .rank = world_rank,
                            .size = world_size,
                            .errhandler = MPI_ERRORS_ARE_FATAL,
                            .info = MPI_INFO_NULL,
                            .name = "MPI_COMM_WORLD"};
    self_rank_map[0] = world_rank;
    self_obj = (MPIR_Comm){.handle = MPI_COMM_SELF,
                           .ref = 1,
                           .context_id = MPIR_CONTEXT_BLOCK,
                           .rank = 0,
                           .size = 1,
                           .world_ranks = self_rank_map,
                           .errhandler = MPI_ERRORS_ARE_FATAL,
                           .info = MPI_INFO_NULL,
                           .name = "MPI_COMM_SELF"};
    MPIR_Context_take(world_obj.context_id);
    MPIR_Context_take(self_obj.context_id);
    MPIR_Comm_table[0] = &world_obj;
    MPIR_Comm_table[1] = &self_obj;
    /* Nonblocking constructors and collectives move while the agent runs. */
    MPID_Progress_set_hook(upper_progress, &MPIR_upper_work);
    return MPI_SUCCESS;
}

static void comm_destroy(MPIR_Comm *c)
{
    if (c->local_comm)
        MPIR_Comm_release(c->local_comm);
    free(c->world_ranks);
    free(c->local_world_ranks);
    MPIR_Info_release(c->info);
    MPIR_Errhandler_release(c->errhandler);
    free(c->topo);
    MPIR_Bsend_comm_destroy(c);
    free(c);
}

void MPIR_Comm_finalize_all(void)
{
    MPID_Progress_set_hook(NULL, NULL);
    for (int i = 2; i < comms_used; i++) {
        if (MPIR_Comm_table[i]) {
            MPIR_Comm *c = MPIR_Comm_table[i];
            MPIR_Comm_table[i] = NULL;
            c->local_comm = NULL; /* in the table too */
            comm_destroy(c);
        }
    }
    MPIR_Comm_table[0] = MPIR_Comm_table[1] = NULL;
    comms_used = 2;
}

void MPIR_Comm_release(MPIR_Comm *comm)
{
    if (--comm->ref > 0 || comm == &world_obj || comm == &self_obj)
        return;
    /* A local_comm shares its parent's block: only the parent gives it back. */
    MPIR_Context_release(comm->context_id);
    MPIR_Comm_table[comm->handle & 0x03ffffff] = NULL;
    comm_destroy(comm);
}

/* A new communicator object in the table.  world_ranks (owned from now on,
 * also on failure) maps its point-to-point ranks; rank is the caller's.  A
 * context_id of -1 is set later (MPIR_Comm_set_context). */
int MPIR_Comm_new(int context_id, int rank, int size, int *world_ranks, MPIR_Comm **comm_p)
{
    int slot = -1;
    for (int i = 2; i < MPIR_COMM_MAX && slot < 0; i++)
        if (!MPIR_Comm_table[i])
            slot = i;
    MPIR_Comm *c = slot < 0 ? NULL : calloc(1, sizeof(*c));
    if (!c) {
        free(world_ranks);
        return MPIR_Err_create(MPI_ERR_NO_MEM, "out of communicator objects (%d at most)",
                               MPIR_COMM_MAX - 2);
    }
    c->handle = MPIR_HANDLE_KIND_COMM | slot;
    c->ref = 1;
    c->context_id = context_id;
    c->rank = rank;
    c->size = size;
    c->world_ranks = world_ranks;
    c->errhandler = MPI_ERRORS_ARE_FATAL;
    c->info = MPI_INFO_NULL;
    MPIR_Context_take(context_id);
    MPIR_Comm_table[slot] = c;
    if (comms_used < slot + 1)
        comms_used = slot + 1;
    *comm_p = c;
    return MPI_SUCCESS;
}

/* A new communicator takes its parent's error handler (MPI-4.1 sec. 9.3: "a newly created
 * communicator inherits the error handler that is associated with the parent"). */
void MPIR_Comm_inherit_errhandler(MPIR_Comm *n, const MPIR_Comm *parent)
{
    if (n)
        MPIR_Errhandler_set(&n->errhandler, parent->errhandler);
}

/* A copy of the world ranks of comm's local group. */
int *MPIR_Comm_local_ranks(const MPIR_Comm *comm)
{
    int *r = malloc(sizeof(int) * (comm->size ? comm->size : 1));
    if (r)
        for (int i = 0; i < comm->size; i++)
            r[i] = MPIR_Comm_local_world_rank(comm, i);
    return r;
}

/* The intracommunicator over an intercommunicator's local group. */
int MPIR_Comm_make_local(MPIR_Comm *inter)
{
    int *ranks = malloc(sizeof(int) * inter->size);
    if (!ranks)
        return MPIR_Err_create(MPI_ERR_NO_MEM, "out of memory making a communicator");
    memcpy(ranks, inter->local_world_ranks, sizeof(int) * inter->size);
    return MPIR_Comm_new(inter->context_id + MPIR_CONTEXT_LOCAL_OFFSET, inter->rank, inter->size,
                         ranks, &inter->local_comm);
}

/* A communicator over comm's groups whose context is still to come (MPIR_Comm_set_context). */
static int dup_groups(MPIR_Comm *comm, MPIR_Comm **newcomm_p)
{
    int n = MPIR_Comm_peer_size(comm);
    int *ranks = NULL;
    if (comm->world_ranks) {
        ranks = malloc(sizeof(int) * n);
        if (!ranks)
            return MPIR_Err_create(MPI_ERR_NO_MEM, "out of memory duplicating a communicator");
        memcpy(ranks, comm->world_ranks, sizeof(int) * n);
    }
    MPIR_Comm *c;
    int err = MPIR_Comm_new(-1, comm->rank, comm->size, ranks, &c);
    if (err)
        return err;
    c->session = comm->session;
    if (comm->is_inter) {
        c->is_inter = 1;
        c->remote_size = comm->remote_size;
        c->local_world_ranks = MPIR_Comm_local_ranks(comm);
        if (!c->local_world_ranks) {
            MPIR_Comm_release(c);
            return MPIR_Err_create(MPI_ERR_NO_MEM, "out of memory duplicating a communicator");
        }
    }
    c->errhandler = comm->errhandler;
    MPIR_Errhandler_add_ref(c->errhandler);
    /* A duplicate has its original's topology (MPI-4.1 sec. 7.4.2); the topology constructors
     * that start from a duplicate replace it. */
    if (comm->topo && !(c->topo = MPIR_Topo_dup(comm->topo))) {
        MPIR_Comm_release(c);
        return MPIR_Err_create(MPI_ERR_NO_MEM, "out of memory duplicating a topology");
    }
    *newcomm_p = c;
    return MPI_SUCCESS;
}

/* Gives a communicator made by dup_groups its agreed context (which it owns from now on, also
 * on failure) and, for an intercommunicator, its local-group communicator. */
static int set_context(MPIR_Comm *c, int ctx)
{
    c->context_id = ctx;
    MPIR_Context_take(ctx);
    return c->is_inter ? MPIR_Comm_make_local(c) : MPI_SUCCESS;
}

int MPIR_Comm_dup_impl(MPIR_Comm *comm, MPIR_Comm **newcomm_p)
{
    MPIR_Comm *c = NULL;
    int ctx, err = MPIR_Context_agree(comm, &ctx);
    if (err)
        return err;
    if ((err = dup_groups(comm, &c))) {
        MPIR_Context_release(ctx);
        return err;
    }
    if ((err = set_context(c, ctx))) {
        MPIR_Comm_release(c);
        return err;
    }
    *newcomm_p = c;
    return MPI_SUCCESS;
}

/* What a duplicate takes from its original besides the groups: the attributes, through their
 * copy callbacks, and the info hints (info's instead when it is given). */
static int copy_attrs_info(MPIR_Comm *c, MPIR_Comm *n, MPI_Info info)
{
    int err = MPIR_Attr_copy_all(MPIR_ATTR_COMM, c->handle, n->handle);
    if (!err)
        err = MPIR_Info_dup_impl(info == MPI_INFO_NULL ? c->info : info, &n->info);
    if (err)
        MPIR_Attr_delete_all(MPIR_ATTR_COMM, n->handle);
    return err;
}

static int dup_with_attrs(const char *fname, MPI_Comm comm, MPI_Info info, MPI_Comm *newcomm)
{
    MPIR_Comm *c, *n = NULL;
    if (newcomm)
        *newcomm = MPI_COMM_NULL; /* what the caller has if this fails */
    int err = MPIR_Check_comm(comm, &c);
    if (!err && !newcomm)
        err = MPIR_Err_create(MPI_ERR_ARG, "newcomm is NULL");
    if (!err)
        err = MPIR_Comm_dup_impl(c, &n);
    if (!err && (err = copy_attrs_info(c, n, info)))
        MPIR_Comm_release(n);
    if (err)
        return MPIR_Err_return(c, fname, err);
    *newcomm = n->handle;
    return MPI_SUCCESS;
}

#pragma weak MPI_Comm_dup = PMPI_Comm_dup
int PMPI_Comm_dup(MPI_Comm comm, MPI_Comm *newcomm)
{
    MPIR_CHECK_INIT("MPI_Comm_dup");
    return dup_with_attrs("MPI_Comm_dup", comm, MPI_INFO_NULL, newcomm);
}

#pragma weak MPI_Comm_dup_with_info = PMPI_Comm_dup_with_info
int PMPI_Comm_dup_with_info(MPI_Comm comm, MPI_Info info, MPI_Comm *newcomm)
{
    MPIR_CHECK_INIT("MPI_Comm_dup_with_info");
    return dup_with_attrs("MPI_Comm_dup_with_info", comm, info, newcomm);
}

/* MPI_Comm_idup: the new communicator exists at once, with the attributes and hints of the
 * original at the time of the call (MPI-4.1 sec. 7.4.2); its context comes when the agreement,
 * advanced by the agent, is over, and then the request completes.  The program may not use the
 * communicator before that. */
typedef struct {
    MPIR_Request *req;
    MPIR_Comm *newcomm;
} idup_t;

static void idup_done(void *arg, int err, int ctx)
{
    idup_t *s = arg;
    if (!err)
        err = set_context(s->newcomm, ctx);
    else
        s->newcomm->context_id = -1; /* owns no block */
    MPIR_Request_set_error(s->req, err);
    MPIR_Comm_release(s->newcomm); /* this operation's reference; the user holds the other */
    MPIDI_Request_complete_one(s->req);
    free(s);
}

static int idup(const char *fname, MPI_Comm comm, MPI_Info info, MPI_Comm *newcomm,
                MPI_Request *request)
{
    MPIR_Comm *c, *n = NULL;
    idup_t *s = NULL;
    int err = MPIR_Check_comm(comm, &c);
    if (!err && (!newcomm || !request))
        err = MPIR_Err_create(MPI_ERR_ARG, "newcomm or request is NULL");
    if (!err)
        err = dup_groups(c, &n);
    if (!err && (err = copy_attrs_info(c, n, info))) {
        MPIR_Comm_release(n);
        n = NULL;
    }
    if (!err && !(s = malloc(sizeof(*s))))
        err = MPIR_Err_create(MPI_ERR_NO_MEM, "out of memory in %s", fname);
    if (!err && !(s->req = MPIR_Request_create(MPIR_REQ_COMPOSITE)))
        err = MPIR_Err_create(MPI_ERR_NO_MEM, "out of requests");
    if (err) {
        free(s);
        if (n) {
            MPIR_Attr_delete_all(MPIR_ATTR_COMM, n->handle);
            MPIR_Comm_release(n);
        }
        return MPIR_Err_return(c, fname, err);
    }
    MPIR_Request *req = s->req;
    req->comm = c;
    c->ref++;
    req->status.MPI_SOURCE = MPI_ANY_SOURCE;
    req->status.MPI_TAG = MPI_ANY_TAG;
    s->newcomm = n;
    n->ref++;
    *newcomm = n->handle;
    *request = req->handle;
    /* Each idup on a communicator has its own tag, so several may be under way at once; the
     * members count them alike because they call collectives in the same order. */
    int tag = MPIR_TAG_KINDS * (1 + (int)(c->idup_seq++ % MPIR_IDUP_TAGS)) + MPIR_TAG_CONTEXT;
    if ((err = MPIR_Context_agree_start(c, tag, idup_done, s)))
        idup_done(s, err, -1);
    return MPI_SUCCESS;
}

#pragma weak MPI_Comm_idup = PMPI_Comm_idup
int PMPI_Comm_idup(MPI_Comm comm, MPI_Comm *newcomm, MPI_Request *request)
{
    MPIR_CHECK_INIT("MPI_Comm_idup");
    return idup("MPI_Comm_idup", comm, MPI_INFO_NULL, newcomm, request);
}

#pragma weak MPI_Comm_idup_with_info = PMPI_Comm_idup_with_info
int PMPI_Comm_idup_with_info(MPI_Comm comm, MPI_Info info, MPI_Comm *newcomm, MPI_Request *request)
{
    MPIR_CHECK_INIT("MPI_Comm_idup_with_info");
    return idup("MPI_Comm_idup_with_info", comm, info, newcomm, request);
}

#pragma weak MPI_Comm_free = PMPI_Comm_free
int PMPI_Comm_free(MPI_Comm *comm)
{
    MPIR_CHECK_INIT("MPI_Comm_free");
    MPIR_Comm *c = NULL;
    int err = comm ? MPIR_Check_comm(*comm, &c) : MPIR_Err_create(MPI_ERR_ARG, "comm is NULL");
    if (!err && (*comm == MPI_COMM_WORLD || *comm == MPI_COMM_SELF))
        err = MPIR_Err_create(MPI_ERR_COMM, "MPI_COMM_WORLD and MPI_COMM_SELF cannot be freed");
    /* Delete callbacks run first; one that fails keeps the communicator. */
    if (!err)
        err = MPIR_Attr_delete_all(MPIR_ATTR_COMM, c->handle);
    if (err)
        return MPIR_Err_return(c, "MPI_Comm_free", err);
    /* Pending requests hold references; the object goes when they finish. */
    MPIR_Comm_release(c);
    *comm = MPI_COMM_NULL;
    return MPI_SUCCESS;
}

#pragma weak MPI_Comm_disconnect = PMPI_Comm_disconnect
int PMPI_Comm_disconnect(MPI_Comm *comm)
{
    MPIR_CHECK_INIT("MPI_Comm_disconnect");
    /* Free after waiting for pending communication: a barrier covers what a
     * correct program has left (all its requests must be complete). */
    MPIR_Comm *c = comm ? MPIR_Comm_get(*comm) : NULL;
    if (c && !c->is_inter) {
        int err = MPIR_Barrier_impl(c);
        if (err)
            return MPIR_Err_return(c, "MPI_Comm_disconnect", err);
    }
    return PMPI_Comm_free(comm);
}

#pragma weak MPI_Comm_rank = PMPI_Comm_rank
int PMPI_Comm_rank(MPI_Comm comm, int *rank)
{
    MPIR_CHECK_INIT("MPI_Comm_rank");
    MPIR_Comm *c;
    int err = MPIR_Check_comm(comm, &c);
    if (!err && !rank)
        err = MPIR_Err_create(MPI_ERR_ARG, "rank is NULL");
    if (err)
        return MPIR_Err_return(c, "MPI_Comm_rank", err);
    *rank = c->rank;
    return MPI_SUCCESS;
}

#pragma weak MPI_Comm_size = PMPI_Comm_size
int PMPI_Comm_size(MPI_Comm comm, int *size)
{
    MPIR_CHECK_INIT("MPI_Comm_size");
    MPIR_Comm *c;
    int err = MPIR_Check_comm(comm, &c);
    if (!err && !size)
        err = MPIR_Err_create(MPI_ERR_ARG, "size is NULL");
    if (err)
        return MPIR_Err_return(c, "MPI_Comm_size", err);
    *size = c->size;
    return MPI_SUCCESS;
}

/* ---- Splitting and creating ---- */

typedef struct {
    int color, key, rank;
} split_entry_t;

static int by_key(const void *a, const void *b)
{
    const split_entry_t *x = a, *y = b;
    if (x->key != y->key)
        return x->key < y->key ? -1 : 1;
    return x->rank - y->rank;
}

/* The members of the caller's color in comm, ordered by (key, old rank):
 * their world ranks and the caller's new rank.  Needs every member's
 * (color, key), gathered already. */
static int split_members(const MPIR_Comm *comm, const int *pairs, int color, int **world_ranks_p,
                         int *n_p, int *rank_p)
{
    split_entry_t *e = malloc(sizeof(*e) * comm->size);
    int *ranks = malloc(sizeof(int) * comm->size);
    if (!e || !ranks) {
        free(e);
        free(ranks);
        return MPIR_Err_create(MPI_ERR_NO_MEM, "out of memory splitting a communicator");
    }
    int n = 0;
    for (int i = 0; i < comm->size; i++)
        if (pairs[2 * i] == color)
            e[n++] = (split_entry_t){color, pairs[2 * i + 1], i};
    qsort(e, n, sizeof(*e), by_key);
    for (int i = 0; i < n; i++) {
        ranks[i] = MPIR_Comm_local_world_rank(comm, e[i].rank);
        if (e[i].rank == comm->rank)
            *rank_p = i;
    }
    free(e);
    *world_ranks_p = ranks;
    *n_p = n;
    return MPI_SUCCESS;
}

int MPIR_Comm_split_impl(MPIR_Comm *comm, int color, int key, MPIR_Comm **newcomm_p)
{
    *newcomm_p = NULL;
    int mine[2] = {color, key};
    int *pairs = malloc(sizeof(int) * 2 * comm->size);
    if (!pairs)
        return MPIR_Err_create(MPI_ERR_NO_MEM, "out of memory splitting a communicator");
    int err = MPIR_Allgather_impl(mine, 2, MPI_INT, pairs, 2, MPI_INT, comm);
    int ctx;
    if (!err)
        err = MPIR_Context_agree(comm, &ctx);
    if (err || color == MPI_UNDEFINED) {
        free(pairs);
        if (!err)
            MPIR_Context_release(ctx);
        return err;
    }
    int *ranks = NULL, n = 0, rank = 0;
    err = split_members(comm, pairs, color, &ranks, &n, &rank);
    free(pairs);
    if (!err)
        err = MPIR_Comm_new(ctx, rank, n, ranks, newcomm_p);
    if (err)
        MPIR_Context_release(ctx);
    else
        (*newcomm_p)->session = comm->session;
    return err;
}

#pragma weak MPI_Comm_split = PMPI_Comm_split
int PMPI_Comm_split(MPI_Comm comm, int color, int key, MPI_Comm *newcomm)
{
    MPIR_CHECK_INIT("MPI_Comm_split");
    MPIR_Comm *c, *n = NULL;
    int err = MPIR_Check_comm(comm, &c);
    if (!err && !newcomm)
        err = MPIR_Err_create(MPI_ERR_ARG, "newcomm is NULL");
    if (!err && color < 0 && color != MPI_UNDEFINED)
        err =
            MPIR_Err_create(MPI_ERR_ARG, "Invalid color %d (must be >= 0 or MPI_UNDEFINED)", color);
    if (!err)
        err = c->is_inter ? MPIR_Intercomm_split_impl(c, color, key, &n)
                          : MPIR_Comm_split_impl(c, color, key, &n);
    if (err)
        return MPIR_Err_return(c, "MPI_Comm_split", err);
    MPIR_Comm_inherit_errhandler(n, c);
    *newcomm = n ? n->handle : MPI_COMM_NULL;
    return MPI_SUCCESS;
}

/* The ranks of one node share a host name; the color of a rank is the
 * lowest rank on its host. */
static int host_color(MPIR_Comm *comm, int *color_p)
{
    char *names = malloc((size_t)MPI_MAX_PROCESSOR_NAME * comm->size);
    char mine[MPI_MAX_PROCESSOR_NAME] = {0};
    if (!names)
        return MPIR_Err_create(MPI_ERR_NO_MEM, "out of memory in MPI_Comm_split_type");
    snprintf(mine, sizeof(mine), "%s", MPIDI_world.hostname);
    int err = MPIR_Allgather_impl(mine, MPI_MAX_PROCESSOR_NAME, MPI_CHAR, names,
                                  MPI_MAX_PROCESSOR_NAME, MPI_CHAR, comm);
    for (int i = 0; !err && i < comm->size; i++) {
        if (strcmp(names + (size_t)i * MPI_MAX_PROCESSOR_NAME, mine) == 0) {
            *color_p = i;
            break;
        }
    }
    free(names);
    return err;
}

#pragma weak MPI_Comm_split_type = PMPI_Comm_split_type
int PMPI_Comm_split_type(MPI_Comm comm, int split_type, int key, MPI_Info info, MPI_Comm *newcomm)
{
    MPIR_CHECK_INIT("MPI_Comm_split_type");
    MPIR_Comm *c, *n = NULL;
    int err = MPIR_Check_comm(comm, &c);
    if (!err && !newcomm)
        err = MPIR_Err_create(MPI_ERR_ARG, "newcomm is NULL");
    if (!err && c->is_inter)
        err = MPIR_Err_create(MPI_ERR_COMM, "MPI_Comm_split_type needs an intracommunicator");
    if (!err && split_type != MPI_UNDEFINED && split_type != MPI_COMM_TYPE_SHARED &&
        split_type != MPI_COMM_TYPE_HW_GUIDED && split_type != MPI_COMM_TYPE_HW_UNGUIDED)
        err = MPIR_Err_create(MPI_ERR_ARG, "Invalid split_type %d", split_type);
    if (err)
        return MPIR_Err_return(c, "MPI_Comm_split_type", err);
    /* Shared memory is the one hardware level Ferry knows: HW_GUIDED with
     * mpi_hw_resource_type=mpi_shared_memory and HW_UNGUIDED (when the node
     * is a strict subset) give the node; other requests give
     * MPI_COMM_NULL, as the standard allows (MPI-4.1 sec. 7.4.2). */
    /* Every member gathers, also one that passes MPI_UNDEFINED. */
    int color = MPI_UNDEFINED, lo = 0, hi = 0;
    err = host_color(c, &color);
    if (!err)
        err = MPIR_Allreduce_impl(&color, &lo, 1, MPI_INT, MPI_MIN, c);
    if (!err)
        err = MPIR_Allreduce_impl(&color, &hi, 1, MPI_INT, MPI_MAX, c);
    if (split_type == MPI_UNDEFINED)
        color = MPI_UNDEFINED;
    if (!err && split_type == MPI_COMM_TYPE_HW_GUIDED) {
        char val[MPI_MAX_INFO_VAL + 1];
        int flag = 0;
        if (info != MPI_INFO_NULL)
            MPIR_Info_get_impl(info, "mpi_hw_resource_type", sizeof(val), val, &flag);
        if (!flag || strcmp(val, "mpi_shared_memory") != 0)
            color = MPI_UNDEFINED;
    }
    if (!err && split_type == MPI_COMM_TYPE_HW_UNGUIDED && lo == hi)
        color = MPI_UNDEFINED; /* all on one node: no strict subset exists */
    if (!err)
        err = MPIR_Comm_split_impl(c, color, key, &n);
    if (err)
        return MPIR_Err_return(c, "MPI_Comm_split_type", err);
    MPIR_Comm_inherit_errhandler(n, c);
    *newcomm = n ? n->handle : MPI_COMM_NULL;
    return MPI_SUCCESS;
}

/* The caller's rank in a group, or MPI_UNDEFINED. */
static int rank_in(const MPIR_Group *g)
{
    return g->rank;
}

/* A communicator over group g with an agreed context (NULL for non-members, which give the
 * context back, as does a failure). */
static int comm_from_group(int ctx, const MPIR_Group *g, MPIR_Comm **newcomm_p)
{
    *newcomm_p = NULL;
    int err = MPI_SUCCESS, *ranks = NULL;
    if (rank_in(g) != MPI_UNDEFINED) {
        ranks = malloc(sizeof(int) * (g->size ? g->size : 1));
        if (!ranks)
            err = MPIR_Err_create(MPI_ERR_NO_MEM, "out of memory making a communicator");
        else {
            memcpy(ranks, g->world_ranks, sizeof(int) * g->size);
            err = MPIR_Comm_new(ctx, g->rank, g->size, ranks, newcomm_p);
            if (!err) /* a session's group makes a communicator of that session */
                (*newcomm_p)->session = g->session;
        }
    }
    if (!*newcomm_p)
        MPIR_Context_release(ctx);
    return err;
}

/* Checks that g's processes are in comm's local group; ranks_p (if not NULL) gets their comm
 * ranks in group order (malloc'ed). */
static int check_subgroup(const MPIR_Comm *comm, const MPIR_Group *g, int **ranks_p)
{
    int *ranks = malloc(sizeof(int) * (g->size ? g->size : 1));
    if (!ranks)
        return MPIR_Err_create(MPI_ERR_NO_MEM, "out of memory checking a group");
    for (int i = 0; i < g->size; i++) {
        ranks[i] = -1;
        for (int j = 0; j < comm->size && ranks[i] < 0; j++)
            if (MPIR_Comm_local_world_rank(comm, j) == g->world_ranks[i])
                ranks[i] = j;
        if (ranks[i] < 0) {
            free(ranks);
            return MPIR_Err_create(MPI_ERR_GROUP,
                                   "the group holds process %d (world rank), "
                                   "which is not in the communicator",
                                   g->world_ranks[i]);
        }
    }
    if (ranks_p)
        *ranks_p = ranks;
    else
        free(ranks);
    return MPI_SUCCESS;
}

#pragma weak MPI_Comm_create = PMPI_Comm_create
int PMPI_Comm_create(MPI_Comm comm, MPI_Group group, MPI_Comm *newcomm)
{
    MPIR_CHECK_INIT("MPI_Comm_create");
    MPIR_Comm *c, *n = NULL;
    MPIR_Group *g = NULL;
    int err = MPIR_Check_comm(comm, &c);
    if (!err)
        err = MPIR_Check_group(group, &g);
    if (!err && !newcomm)
        err = MPIR_Err_create(MPI_ERR_ARG, "newcomm is NULL");
    if (!err)
        err = check_subgroup(c, g, NULL);
    int ctx;
    if (!err && c->is_inter)
        err = MPIR_Intercomm_create_from_group(c, g, &n);
    else if (!err && !(err = MPIR_Context_agree(c, &ctx)))
        err = comm_from_group(ctx, g, &n);
    if (err)
        return MPIR_Err_return(c, "MPI_Comm_create", err);
    MPIR_Comm_inherit_errhandler(n, c);
    *newcomm = n ? n->handle : MPI_COMM_NULL;
    return MPI_SUCCESS;
}

/* Collective over the group's members only: they agree on a context among
 * themselves over a subset communicator that borrows comm's collective
 * context, with tags derived from the user's tag so that concurrent
 * creations with different tags stay apart (MPI-4.1 sec. 7.4.2). */
#pragma weak MPI_Comm_create_group = PMPI_Comm_create_group
int PMPI_Comm_create_group(MPI_Comm comm, MPI_Group group, int tag, MPI_Comm *newcomm)
{
    MPIR_CHECK_INIT("MPI_Comm_create_group");
    MPIR_Comm *c, *n = NULL;
    MPIR_Group *g = NULL;
    int err = MPIR_Check_comm(comm, &c);
    if (!err)
        err = MPIR_Check_group(group, &g);
    if (!err && !newcomm)
        err = MPIR_Err_create(MPI_ERR_ARG, "newcomm is NULL");
    if (!err && c->is_inter)
        err = MPIR_Err_create(MPI_ERR_COMM, "MPI_Comm_create_group needs an intracommunicator");
    if (!err)
        err = MPIR_Check_send_tag(tag);
    if (!err)
        err = MPIR_Comm_create_group_impl(c, g, MPIR_TAG_FROM_USER(tag), &n);
    if (err)
        return MPIR_Err_return(c, "MPI_Comm_create_group", err);
    MPIR_Comm_inherit_errhandler(n, c);
    *newcomm = n->handle;
    return MPI_SUCCESS;
}

int MPIR_Comm_create_group_impl(MPIR_Comm *c, const MPIR_Group *g, int tag_base,
                                MPIR_Comm **newcomm_p)
{
    int *members = NULL;
    int err = check_subgroup(c, g, &members);
    if (!err && g->rank == MPI_UNDEFINED)
        err = MPIR_Err_create(MPI_ERR_GROUP, "the caller is not in the group");
    if (!err) {
        /* comm itself with tags made from the caller's: its ranks name the senders, so a
         * message of a later creation over another group cannot match this one's receives. */
        MPIR_Comm sub = *c;
        sub.coll_tag_base = tag_base;
        int ctx;
        err = MPIR_Context_agree_group(&sub, members, g->size, g->rank, &ctx);
        if (!err)
            err = comm_from_group(ctx, g, newcomm_p);
    }
    free(members);
    return err;
}

/* ---- Queries ---- */

static int same_ranks(const int *a, const int *b, int n)
{
    return memcmp(a, b, sizeof(int) * n) == 0;
}

static int same_members(const int *a, const int *b, int n)
{
    for (int i = 0; i < n; i++) {
        int found = 0;
        for (int j = 0; j < n && !found; j++)
            found = a[i] == b[j];
        if (!found)
            return 0;
    }
    return 1;
}

#pragma weak MPI_Comm_compare = PMPI_Comm_compare
int PMPI_Comm_compare(MPI_Comm comm1, MPI_Comm comm2, int *result)
{
    MPIR_CHECK_INIT("MPI_Comm_compare");
    MPIR_Comm *a, *b = NULL;
    int err = MPIR_Check_comm(comm1, &a);
    /* An invalid comm2 is an error of no communicator, raised as such (on MPI_COMM_WORLD's
     * handler, as MPICH does), not on comm1's. */
    if (!err && (err = MPIR_Check_comm(comm2, &b)))
        a = NULL;
    if (!err && !result)
        err = MPIR_Err_create(MPI_ERR_ARG, "result is NULL");
    if (err)
        return MPIR_Err_return(a, "MPI_Comm_compare", err);
    if (a == b) {
        *result = MPI_IDENT;
        return MPI_SUCCESS;
    }
    *result = MPI_UNEQUAL;
    if (a->is_inter != b->is_inter || a->size != b->size ||
        MPIR_Comm_peer_size(a) != MPIR_Comm_peer_size(b))
        return MPI_SUCCESS;
    int *la = MPIR_Comm_local_ranks(a), *lb = MPIR_Comm_local_ranks(b);
    int n = MPIR_Comm_peer_size(a);
    int *ra = malloc(sizeof(int) * (n ? n : 1)), *rb = malloc(sizeof(int) * (n ? n : 1));
    if (la && lb && ra && rb) {
        for (int i = 0; i < n; i++) {
            ra[i] = MPIR_Comm_world_rank(a, i);
            rb[i] = MPIR_Comm_world_rank(b, i);
        }
        if (same_ranks(la, lb, a->size) && same_ranks(ra, rb, n))
            *result = MPI_CONGRUENT;
        else if (same_members(la, lb, a->size) && same_members(ra, rb, n))
            *result = MPI_SIMILAR;
    } else
        err = MPIR_Err_create(MPI_ERR_NO_MEM, "out of memory in MPI_Comm_compare");
    free(la);
    free(lb);
    free(ra);
    free(rb);
    return MPIR_Err_return(a, "MPI_Comm_compare", err);
}

#pragma weak MPI_Comm_set_name = PMPI_Comm_set_name
int PMPI_Comm_set_name(MPI_Comm comm, const char *comm_name)
{
    MPIR_CHECK_INIT("MPI_Comm_set_name");
    MPIR_Comm *c;
    int err = MPIR_Check_comm(comm, &c);
    if (!err && !comm_name)
        err = MPIR_Err_create(MPI_ERR_ARG, "comm_name is NULL");
    if (err)
        return MPIR_Err_return(c, "MPI_Comm_set_name", err);
    snprintf(c->name, sizeof(c->name), "%s", comm_name);
    return MPI_SUCCESS;
}

#pragma weak MPI_Comm_get_name = PMPI_Comm_get_name
int PMPI_Comm_get_name(MPI_Comm comm, char *comm_name, int *resultlen)
{
    MPIR_CHECK_INIT("MPI_Comm_get_name");
    MPIR_Comm *c;
    int err = MPIR_Check_comm(comm, &c);
    if (!err && (!comm_name || !resultlen))
        err = MPIR_Err_create(MPI_ERR_ARG, "comm_name or resultlen is NULL");
    if (err)
        return MPIR_Err_return(c, "MPI_Comm_get_name", err);
    snprintf(comm_name, MPI_MAX_OBJECT_NAME, "%s", c->name);
    *resultlen = (int)strlen(comm_name);
    return MPI_SUCCESS;
}

static const char *const comm_hints[] = {"mpi_assert_no_any_tag", "mpi_assert_no_any_source",
                                         "mpi_assert_exact_length", "mpi_assert_allow_overtaking",
                                         NULL};

#pragma weak MPI_Comm_set_info = PMPI_Comm_set_info
int PMPI_Comm_set_info(MPI_Comm comm, MPI_Info info)
{
    MPIR_CHECK_INIT("MPI_Comm_set_info");
    MPIR_Comm *c;
    int err = MPIR_Check_comm(comm, &c);
    if (!err)
        err = MPIR_Comm_set_hints(c, info);
    return MPIR_Err_return(c, "MPI_Comm_set_info", err);
}

int MPIR_Comm_set_hints(MPIR_Comm *c, MPI_Info info)
{
    MPI_Info copy = MPI_INFO_NULL;
    int err = MPIR_Info_dup_impl(info, &copy);
    /* Only the assertions MPI-4.1 defines for communicators are kept (and
     * returned by MPI_Comm_get_info); other keys are ignored, as allowed. */
    if (!err && copy != MPI_INFO_NULL)
        err = MPIR_Info_keep_only(copy, comm_hints);
    if (err) {
        MPIR_Info_release(copy);
        return err;
    }
    MPIR_Info_release(c->info);
    c->info = copy;
    return MPI_SUCCESS;
}

#pragma weak MPI_Comm_get_info = PMPI_Comm_get_info
int PMPI_Comm_get_info(MPI_Comm comm, MPI_Info *info_used)
{
    MPIR_CHECK_INIT("MPI_Comm_get_info");
    MPIR_Comm *c;
    int err = MPIR_Check_comm(comm, &c);
    if (!err && !info_used)
        err = MPIR_Err_create(MPI_ERR_ARG, "info_used is NULL");
    /* A new info object, empty when no hints were set (MPI-4.1 sec. 7.4.4). */
    if (!err)
        err = c->info == MPI_INFO_NULL ? MPIR_Info_create_impl(info_used)
                                       : MPIR_Info_dup_impl(c->info, info_used);
    return MPIR_Err_return(c, "MPI_Comm_get_info", err);
}
