/* session_comm_attrs.c: the predefined attributes a communicator carries in each model (MPI-4.1
 * sec. 9.1.2).  A communicator made from a session's mpi://WORLD group (with
 * MPI_Comm_create_from_group) has MPI_TAG_UB, at least 32767 and the same on every process, and
 * none of MPI_HOST, MPI_IO and MPI_WTIME_IS_GLOBAL, which the standard attaches to
 * MPI_COMM_WORLD, i.e. to the world model only; a duplicate of it and a split of it are of the
 * sessions model too.  MPI_COMM_WORLD, beside it in the same process, keeps all four. */
#include "mtest.h"

struct attr {
    int keyval;
    const char *name;
};
static const struct attr world_only[] = {
    {MPI_HOST, "MPI_HOST"}, {MPI_IO, "MPI_IO"}, {MPI_WTIME_IS_GLOBAL, "MPI_WTIME_IS_GLOBAL"}};
#define NWORLD_ONLY (int)(sizeof world_only / sizeof world_only[0])

/* The attributes of a communicator of the sessions model (what names it). */
static int check_session_comm(MPI_Comm comm, const char *what)
{
    int errs = 0, flag = -1, *val = NULL;
    MTEST_CHECK_RC(errs, MPI_Comm_get_attr(comm, MPI_TAG_UB, &val, &flag), "%s: MPI_TAG_UB", what);
    MTEST_CHECK_INT(errs, 1, flag, "%s: MPI_TAG_UB's flag", what);
    if (flag) {
        int tag_ub = *val, min_ub = 0, max_ub = 0;
        if (tag_ub < 32767)
            MTEST_FAIL(errs, "%s: MPI_TAG_UB is %d, less than 32767", what, tag_ub);
        MPI_Allreduce(&tag_ub, &min_ub, 1, MPI_INT, MPI_MIN, comm);
        MPI_Allreduce(&tag_ub, &max_ub, 1, MPI_INT, MPI_MAX, comm);
        MTEST_CHECK_INT(errs, min_ub, max_ub, "%s: MPI_TAG_UB, least and greatest", what);
    }
    for (int i = 0; i < NWORLD_ONLY; i++) {
        flag = -1;
        MTEST_CHECK_RC(errs, MPI_Comm_get_attr(comm, world_only[i].keyval, &val, &flag), "%s: %s",
                       what, world_only[i].name);
        MTEST_CHECK_INT(errs, 0, flag, "%s: %s's flag (a world model attribute)", what,
                        world_only[i].name);
    }
    return errs;
}

int main(int argc, char **argv)
{
    int errs = 0;
    MTest_Init(&argc, &argv);

    MPI_Session session = MPI_SESSION_NULL;
    MPI_Group group = MPI_GROUP_NULL;
    MPI_Comm scomm = MPI_COMM_NULL, sdup = MPI_COMM_NULL, ssplit = MPI_COMM_NULL;
    MTEST_CHECK_RC(errs, MPI_Session_init(MPI_INFO_NULL, MPI_ERRORS_RETURN, &session),
                   "Session_init");
    MTEST_CHECK_RC(errs, MPI_Group_from_session_pset(session, "mpi://WORLD", &group),
                   "Group_from_session_pset");
    MTEST_CHECK_RC(errs,
                   MPI_Comm_create_from_group(group, "session_comm_attrs", MPI_INFO_NULL,
                                              MPI_ERRORS_RETURN, &scomm),
                   "Comm_create_from_group");
    if (scomm != MPI_COMM_NULL) {
        errs += check_session_comm(scomm, "Comm_create_from_group's");
        MPI_Comm_dup(scomm, &sdup);
        errs += check_session_comm(sdup, "its duplicate");
        MPI_Comm_split(scomm, mtest_rank % 2, 0, &ssplit);
        errs += check_session_comm(ssplit, "its split");
        MPI_Comm_free(&ssplit);
        MPI_Comm_free(&sdup);
        MPI_Comm_free(&scomm);
    }
    if (group != MPI_GROUP_NULL)
        MPI_Group_free(&group);

    /* The world model's communicator keeps what the standard attaches to it. */
    int flag, *val;
    flag = -1;
    MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_TAG_UB, &val, &flag);
    MTEST_CHECK_INT(errs, 1, flag, "MPI_COMM_WORLD: MPI_TAG_UB's flag");
    for (int i = 0; i < NWORLD_ONLY; i++) {
        flag = -1;
        MPI_Comm_get_attr(MPI_COMM_WORLD, world_only[i].keyval, &val, &flag);
        MTEST_CHECK_INT(errs, 1, flag, "MPI_COMM_WORLD: %s's flag", world_only[i].name);
    }

    if (session != MPI_SESSION_NULL)
        MTEST_CHECK_RC(errs, MPI_Session_finalize(&session), "Session_finalize");
    return MTest_Finalize(errs);
}
