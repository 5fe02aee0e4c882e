/* comm.c: communicator objects, context-id agreement, and the MPI_Comm_ calls. */
#include <stdlib.h>
#include <string.h>
#include "mpiimpl.h"
#include "op.h"

/* Context ids come in pairs (point-to-point, collective).  Each process keeps
 * a mask of free pairs; MPI_Comm_dup agrees on the lowest pair free on every
 * member with an allreduce(BAND) of the masks, so no two live communicators
 * with common members share an id. */
#define NPAIRS 1024
#define MASK_WORDS (NPAIRS / 32)
static uint32_t free_mask[MASK_WORDS];

#define MAX_COMMS 4096
static MPIR_Comm *comms[MAX_COMMS];
static MPIR_Comm world_obj, self_obj;
static int self_rank_map[1];

MPIR_Comm *MPIR_Comm_get(MPI_Comm comm)
{
    if ((comm & 0xfc000000) != MPIR_HANDLE_KIND_COMM)
        return NULL;
    int idx = comm & 0x03ffffff;
    return idx < MAX_COMMS ? comms[idx] : NULL;
}

static void mask_take(int pair) { free_mask[pair / 32] &= ~(1u << (pair % 32)); }
static void mask_give(int pair) { free_mask[pair / 32] |= 1u << (pair % 32); }

int MPIR_Comm_init_builtins(int world_rank, int world_size)
{
    memset(free_mask, 0xff, sizeof(free_mask));
    world_obj = (MPIR_Comm){.handle = MPI_COMM_WORLD, .ref = 1, .context_id = 0,
                            .rank = world_rank, .size = world_size,
                            .errhandler = MPI_ERRORS_ARE_FATAL, .name = "MPI_COMM_WORLD"};
    self_rank_map[0] = world_rank;
    self_obj = (MPIR_Comm){.handle = MPI_COMM_SELF, .ref = 1, .context_id = 2, .rank = 0,
                           .size = 1, .world_ranks = self_rank_map,
                           .errhandler = MPI_ERRORS_ARE_FATAL, .name = "MPI_COMM_SELF"};
    mask_take(0);
    mask_take(1);
    comms[0] = &world_obj;
    comms[1] = &self_obj;
    return MPI_SUCCESS;
}

void MPIR_Comm_finalize_all(void)
{
    for (int i = 2; i < MAX_COMMS; i++) {
        if (comms[i]) {
            free(comms[i]->world_ranks);
            free(comms[i]);
            comms[i] = NULL;
        }
    }
    comms[0] = comms[1] = NULL;
}

void MPIR_Comm_release(MPIR_Comm *comm)
{
    if (--comm->ref > 0 || comm == &world_obj || comm == &self_obj)
        return;
    mask_give(comm->context_id / 2);
    comms[comm->handle & 0x03ffffff] = NULL;
    free(comm->world_ranks);
    free(comm);
}

int MPIR_Comm_dup_impl(MPIR_Comm *comm, MPIR_Comm **newcomm_p)
{
    uint32_t common[MASK_WORDS];
    int err = MPIR_Allreduce_impl(free_mask, common, MASK_WORDS, MPI_UINT32_T, MPI_BAND, comm);
    if (err)
        return err;
    int pair = -1;
    for (int w = 0; w < MASK_WORDS && pair < 0; w++)
        if (common[w])
            pair = w * 32 + __builtin_ctz(common[w]);
    if (pair < 0)
        return MPIR_Err_create(MPI_ERR_OTHER, "no context id left: too many communicators "
                                              "(%d at most)", NPAIRS - 2);
    int slot = -1;
    for (int i = 2; i < MAX_COMMS && slot < 0; i++)
        if (!comms[i])
            slot = i;
    MPIR_Comm *c = calloc(1, sizeof(*c));
    if (slot < 0 || !c) {
        free(c);
        return MPIR_Err_create(MPI_ERR_NO_MEM, "out of communicator objects");
    }
    *c = *comm;
    c->handle = MPIR_HANDLE_KIND_COMM | slot;
    c->ref = 1;
    c->context_id = pair * 2;
    c->name[0] = '\0';
    if (comm->world_ranks) {
        c->world_ranks = malloc(sizeof(int) * comm->size);
        if (!c->world_ranks) {
            free(c);
            return MPIR_Err_create(MPI_ERR_NO_MEM, "out of memory duplicating a communicator");
        }
        memcpy(c->world_ranks, comm->world_ranks, sizeof(int) * comm->size);
    }
    mask_take(pair);
    comms[slot] = c;
    *newcomm_p = c;
    return MPI_SUCCESS;
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

#pragma weak MPI_Comm_dup = PMPI_Comm_dup
int PMPI_Comm_dup(MPI_Comm comm, MPI_Comm *newcomm)
{
    MPIR_CHECK_INIT("MPI_Comm_dup");
    MPIR_Comm *c, *n = NULL;
    int err = MPIR_Check_comm(comm, &c);
    if (!err && !newcomm)
        err = MPIR_Err_create(MPI_ERR_ARG, "newcomm is NULL");
    if (!err)
        err = MPIR_Comm_dup_impl(c, &n);
    if (err)
        return MPIR_Err_return(c, "MPI_Comm_dup", err);
    *newcomm = n->handle;
    return MPI_SUCCESS;
}

#pragma weak MPI_Comm_free = PMPI_Comm_free
int PMPI_Comm_free(MPI_Comm *comm)
{
    MPIR_CHECK_INIT("MPI_Comm_free");
    MPIR_Comm *c = NULL;
    int err = comm ? MPIR_Check_comm(*comm, &c) : MPIR_Err_create(MPI_ERR_ARG, "comm is NULL");
    if (!err && (*comm == MPI_COMM_WORLD || *comm == MPI_COMM_SELF))
        err = MPIR_Err_create(MPI_ERR_COMM, "MPI_COMM_WORLD and MPI_COMM_SELF cannot be freed");
    if (err)
        return MPIR_Err_return(c, "MPI_Comm_free", err);
    /* Pending requests hold references; the object goes when they finish. */
    MPIR_Comm_release(c);
    *comm = MPI_COMM_NULL;
    return MPI_SUCCESS;
}

#pragma weak MPI_Comm_get_attr = PMPI_Comm_get_attr
int PMPI_Comm_get_attr(MPI_Comm comm, int keyval, void *attribute_val, int *flag)
{
    MPIR_CHECK_INIT("MPI_Comm_get_attr");
    static int tag_ub = MPIR_TAG_UB, host = MPI_PROC_NULL, io = MPI_ANY_SOURCE, wtime_global = 0;
    static int universe, appnum;
    MPIR_Comm *c;
    int err = MPIR_Check_comm(comm, &c);
    if (!err && (!attribute_val || !flag))
        err = MPIR_Err_create(MPI_ERR_ARG, "attribute_val or flag is NULL");
    if (err)
        return MPIR_Err_return(c, "MPI_Comm_get_attr", err);
    universe = MPIDI_world.universe_size;
    appnum = MPIDI_world.appnum;
    int *val = NULL;
    switch (keyval) {
    case MPI_TAG_UB: val = &tag_ub; break;
    case MPI_HOST: val = &host; break;
    case MPI_IO: val = &io; break;
    case MPI_WTIME_IS_GLOBAL: val = &wtime_global; break;
    case MPI_UNIVERSE_SIZE: val = &universe; break;
    case MPI_APPNUM: val = &appnum; break;
    default:
        return MPIR_Err_return(c, "MPI_Comm_get_attr",
                               MPIR_Err_create(MPI_ERR_KEYVAL, "Invalid keyval %d", keyval));
    }
    *(int **)attribute_val = val;
    *flag = 1;
    return MPI_SUCCESS;
}

#pragma weak MPI_Comm_set_errhandler = PMPI_Comm_set_errhandler
int PMPI_Comm_set_errhandler(MPI_Comm comm, MPI_Errhandler errhandler)
{
    MPIR_CHECK_INIT("MPI_Comm_set_errhandler");
    MPIR_Comm *c;
    int err = MPIR_Check_comm(comm, &c);
    if (!err && errhandler != MPI_ERRORS_RETURN && errhandler != MPI_ERRORS_ARE_FATAL)
        err = MPIR_Err_create(MPI_ERR_ARG, "Invalid error handler %#x", (unsigned)errhandler);
    if (err)
        return MPIR_Err_return(c, "MPI_Comm_set_errhandler", err);
    c->errhandler = errhandler;
    return MPI_SUCCESS;
}

#pragma weak MPI_Comm_get_errhandler = PMPI_Comm_get_errhandler
int PMPI_Comm_get_errhandler(MPI_Comm comm, MPI_Errhandler *errhandler)
{
    MPIR_CHECK_INIT("MPI_Comm_get_errhandler");
    MPIR_Comm *c;
    int err = MPIR_Check_comm(comm, &c);
    if (!err && !errhandler)
        err = MPIR_Err_create(MPI_ERR_ARG, "errhandler is NULL");
    if (err)
        return MPIR_Err_return(c, "MPI_Comm_get_errhandler", err);
    *errhandler = c->errhandler;
    return MPI_SUCCESS;
}

#pragma weak MPI_Errhandler_free = PMPI_Errhandler_free
int PMPI_Errhandler_free(MPI_Errhandler *errhandler)
{
    MPIR_CHECK_INIT("MPI_Errhandler_free");
    /* The predefined handlers are the only ones; freeing a handle to one just
     * clears the handle. */
    if (!errhandler ||
        (*errhandler != MPI_ERRORS_RETURN && *errhandler != MPI_ERRORS_ARE_FATAL))
        return MPIR_Err_return(NULL, "MPI_Errhandler_free",
                               MPIR_Err_create(MPI_ERR_ARG, "Invalid error handler"));
    *errhandler = MPI_ERRHANDLER_NULL;
    return MPI_SUCCESS;
}
