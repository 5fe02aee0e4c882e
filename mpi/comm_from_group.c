/* comm_from_group.c: MPI_Comm_create_from_group and MPI_Intercomm_create_from_groups (MPI-4.0)
 * for groups of the world model or of a session (every group in Ferry is a set of
 * MPI_COMM_WORLD's processes, mpi://WORLD's too: mpi/session.c).
 *
 * Both are collective over the group(s) only, with no parent communicator: the members agree
 * on a context over MPI_COMM_WORLD's collective context, as MPI_Comm_create_group does, with a
 * tag made from a hash of the string tag (MPIR_TAG_FROM_STRING), which the standard requires to
 * differ between creations that may be under way at the same time. */
#include <string.h>
#include "mpiimpl.h"

/* FNV-1a: a well-spread hash of the string tag, cheap for the short tags programs use. */
static unsigned hash_tag(const char *s)
{
    unsigned h = 2166136261u;
    for (; *s; s++)
        h = (h ^ (unsigned char)*s) * 16777619u;
    return h;
}

static int check_args(const char *fname, const MPIR_Group *g, const char *stringtag,
                      MPI_Errhandler errhandler, const void *newcomm)
{
    if (!stringtag)
        return MPIR_Err_create(MPI_ERR_ARG, "%s: stringtag is NULL", fname);
    if (strlen(stringtag) >= MPI_MAX_STRINGTAG_LEN)
        return MPIR_Err_create(MPI_ERR_ARG, "%s: stringtag is %zu characters (at most %d)", fname,
                               strlen(stringtag), MPI_MAX_STRINGTAG_LEN - 1);
    int err = MPIR_Check_errhandler(errhandler, MPIR_EH_FOR_COMM);
    if (err)
        return err;
    if (!newcomm)
        return MPIR_Err_create(MPI_ERR_ARG, "%s: the output communicator is NULL", fname);
    if (g->rank == MPI_UNDEFINED)
        return MPIR_Err_create(MPI_ERR_GROUP, "%s: the caller is not in the (local) group", fname);
    return MPI_SUCCESS;
}

/* The new communicator takes the caller's error handler and hints. */
static int finish(MPIR_Comm *n, MPI_Info info, MPI_Errhandler errhandler)
{
    MPIR_Errhandler_set(&n->errhandler, errhandler);
    return MPIR_Comm_set_hints(n, info);
}

#pragma weak MPI_Comm_create_from_group = PMPI_Comm_create_from_group
int PMPI_Comm_create_from_group(MPI_Group group, const char *stringtag, MPI_Info info,
                                MPI_Errhandler errhandler, MPI_Comm *newcomm)
{
    MPIR_CHECK_INIT("MPI_Comm_create_from_group");
    MPIR_Group *g;
    MPIR_Comm *n = NULL;
    int err = MPIR_Check_group(group, &g);
    if (!err)
        err = check_args("MPI_Comm_create_from_group", g, stringtag, errhandler, newcomm);
    if (!err)
        err = MPIR_Comm_create_group_impl(MPIR_Comm_get(MPI_COMM_WORLD), g,
                                          MPIR_TAG_FROM_STRING(hash_tag(stringtag)), &n);
    if (!err && (err = finish(n, info, errhandler)))
        MPIR_Comm_release(n);
    if (err)
        return MPIR_Err_return(NULL, "MPI_Comm_create_from_group", err);
    *newcomm = n->handle;
    return MPI_SUCCESS;
}

/* The local group makes an intracommunicator of its own, whose leader then meets the remote
 * leader over MPI_COMM_WORLD, as in MPI_Intercomm_create. */
#pragma weak MPI_Intercomm_create_from_groups = PMPI_Intercomm_create_from_groups
int PMPI_Intercomm_create_from_groups(MPI_Group local_group, int local_leader,
                                      MPI_Group remote_group, int remote_leader,
                                      const char *stringtag, MPI_Info info,
                                      MPI_Errhandler errhandler, MPI_Comm *newintercomm)
{
    MPIR_CHECK_INIT("MPI_Intercomm_create_from_groups");
    MPIR_Group *lg, *rg = NULL;
    MPIR_Comm *lc = NULL, *n = NULL;
    int err = MPIR_Check_group(local_group, &lg);
    if (!err)
        err = MPIR_Check_group(remote_group, &rg);
    if (!err)
        err =
            check_args("MPI_Intercomm_create_from_groups", lg, stringtag, errhandler, newintercomm);
    if (!err && (local_leader < 0 || local_leader >= lg->size))
        err = MPIR_Err_create(MPI_ERR_RANK, "Invalid local_leader %d (local_group size %d)",
                              local_leader, lg->size);
    if (!err && (remote_leader < 0 || remote_leader >= rg->size))
        err = MPIR_Err_create(MPI_ERR_RANK, "Invalid remote_leader %d (remote_group size %d)",
                              remote_leader, rg->size);
    MPIR_Comm *world = MPIR_Comm_get(MPI_COMM_WORLD);
    int tag_base = err ? 0 : MPIR_TAG_FROM_STRING(hash_tag(stringtag));
    if (!err)
        err = MPIR_Comm_create_group_impl(world, lg, tag_base, &lc);
    if (!err)
        err = MPIR_Intercomm_create_impl(lc, local_leader, world, rg->world_ranks[remote_leader],
                                         tag_base, &n);
    if (lc)
        MPIR_Comm_release(lc);
    if (!err && (err = finish(n, info, errhandler)))
        MPIR_Comm_release(n);
    if (err)
        return MPIR_Err_return(NULL, "MPI_Intercomm_create_from_groups", err);
    *newintercomm = n->handle;
    return MPI_SUCCESS;
}
