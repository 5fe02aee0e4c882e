/* group.c: process groups (ordered sets of world ranks) and the MPI_Group_ calls. */
#include <stdlib.h>
#include <string.h>
#include "mpiimpl.h"

#define MAX_GROUPS 4096
static MPIR_Group *groups[MAX_GROUPS];
/* One past the highest slot ever used: finalize reads no further (reading the
 * untouched rest of the table faults in its pages in every process at exit). */
static int groups_used = 1;
static MPIR_Group empty_group = {.handle = MPI_GROUP_EMPTY, .ref = 1, .rank = MPI_UNDEFINED};

MPIR_Group *MPIR_Group_get(MPI_Group group)
{
    if (group == MPI_GROUP_EMPTY)
        return &empty_group;
    if ((group & 0xfc000000) != MPIR_HANDLE_KIND_GROUP)
        return NULL;
    int idx = group & 0x03ffffff;
    return idx < MAX_GROUPS ? groups[idx] : NULL;
}

int MPIR_Check_group(MPI_Group group, MPIR_Group **group_p)
{
    *group_p = MPIR_Group_get(group);
    if (*group_p)
        return MPI_SUCCESS;
    if (group == MPI_GROUP_NULL)
        return MPIR_Err_create(MPI_ERR_GROUP, "Invalid group: MPI_GROUP_NULL");
    return MPIR_Err_create(MPI_ERR_GROUP, "Invalid group %#x", (unsigned)group);
}

/* A group of n world ranks (ranks is owned from now on, also on failure). */
int MPIR_Group_new(int n, int *ranks, MPIR_Group **group_p)
{
    int slot = -1;
    for (int i = 1; i < MAX_GROUPS && slot < 0; i++)
        if (!groups[i])
            slot = i;
    MPIR_Group *g = slot < 0 ? NULL : calloc(1, sizeof(*g));
    if (!g) {
        free(ranks);
        return MPIR_Err_create(MPI_ERR_NO_MEM, "out of group objects (%d at most)", MAX_GROUPS - 1);
    }
    g->handle = MPIR_HANDLE_KIND_GROUP | slot;
    g->ref = 1;
    g->size = n;
    g->world_ranks = ranks;
    g->rank = MPI_UNDEFINED;
    for (int i = 0; i < n; i++)
        if (ranks[i] == MPIDI_world.rank)
            g->rank = i;
    groups[slot] = g;
    if (groups_used < slot + 1)
        groups_used = slot + 1;
    *group_p = g;
    return MPI_SUCCESS;
}

void MPIR_Group_finalize_all(void)
{
    for (int i = 1; i < groups_used; i++) {
        if (groups[i]) {
            free(groups[i]->world_ranks);
            free(groups[i]->rank_of_world);
            free(groups[i]);
            groups[i] = NULL;
        }
    }
    groups_used = 1;
}

static void group_release(MPIR_Group *g)
{
    if (g == &empty_group || --g->ref > 0)
        return;
    groups[g->handle & 0x03ffffff] = NULL;
    free(g->world_ranks);
    free(g->rank_of_world);
    free(g);
}

static int *alloc_ranks(int n)
{
    return malloc(sizeof(int) * (n > 0 ? n : 1));
}

/* Hands a new group of n ranks, derived from session (0: the world model's), to the user
 * (MPI_GROUP_EMPTY when n is 0: no communicator is made from it, so its session is no matter). */
static int publish(const char *fname, int n, int *ranks, MPI_Session session,
                   MPI_Group *newgroup)
{
    MPIR_Group *g;
    if (!ranks)
        return MPIR_Err_return(NULL, fname, MPIR_Err_create(MPI_ERR_NO_MEM, "out of memory"));
    if (n == 0) {
        free(ranks);
        *newgroup = MPI_GROUP_EMPTY;
        return MPI_SUCCESS;
    }
    int err = MPIR_Group_new(n, ranks, &g);
    if (err)
        return MPIR_Err_return(NULL, fname, err);
    g->session = session;
    *newgroup = g->handle;
    return MPI_SUCCESS;
}

static int comm_group(const char *fname, MPI_Comm comm, MPI_Group *group, int remote)
{
    MPIR_Comm *c;
    int err = MPIR_Check_comm(comm, &c);
    if (!err && !group)
        err = MPIR_Err_create(MPI_ERR_ARG, "group is NULL");
    if (!err && remote && !c->is_inter)
        err = MPIR_Err_create(MPI_ERR_COMM, "%s needs an intercommunicator", fname);
    if (err)
        return MPIR_Err_return(c, fname, err);
    int n = remote ? c->remote_size : c->size;
    int *ranks = remote ? alloc_ranks(n) : MPIR_Comm_local_ranks(c);
    if (remote && ranks)
        for (int i = 0; i < n; i++)
            ranks[i] = MPIR_Comm_world_rank(c, i);
    return publish(fname, n, ranks, c->session, group);
}

#pragma weak MPI_Comm_group = PMPI_Comm_group
int PMPI_Comm_group(MPI_Comm comm, MPI_Group *group)
{
    MPIR_CHECK_INIT("MPI_Comm_group");
    return comm_group("MPI_Comm_group", comm, group, 0);
}

#pragma weak MPI_Comm_remote_group = PMPI_Comm_remote_group
int PMPI_Comm_remote_group(MPI_Comm comm, MPI_Group *group)
{
    MPIR_CHECK_INIT("MPI_Comm_remote_group");
    return comm_group("MPI_Comm_remote_group", comm, group, 1);
}

#pragma weak MPI_Group_size = PMPI_Group_size
int PMPI_Group_size(MPI_Group group, int *size)
{
    MPIR_CHECK_INIT("MPI_Group_size");
    MPIR_Group *g;
    int err = MPIR_Check_group(group, &g);
    if (!err && !size)
        err = MPIR_Err_create(MPI_ERR_ARG, "size is NULL");
    if (err)
        return MPIR_Err_return(NULL, "MPI_Group_size", err);
    *size = g->size;
    return MPI_SUCCESS;
}

#pragma weak MPI_Group_rank = PMPI_Group_rank
int PMPI_Group_rank(MPI_Group group, int *rank)
{
    MPIR_CHECK_INIT("MPI_Group_rank");
    MPIR_Group *g;
    int err = MPIR_Check_group(group, &g);
    if (!err && !rank)
        err = MPIR_Err_create(MPI_ERR_ARG, "rank is NULL");
    if (err)
        return MPIR_Err_return(NULL, "MPI_Group_rank", err);
    *rank = g->rank;
    return MPI_SUCCESS;
}

#pragma weak MPI_Group_free = PMPI_Group_free
int PMPI_Group_free(MPI_Group *group)
{
    MPIR_CHECK_INIT("MPI_Group_free");
    MPIR_Group *g = NULL;
    int err = group ? MPIR_Check_group(*group, &g) : MPIR_Err_create(MPI_ERR_ARG, "group is NULL");
    if (err)
        return MPIR_Err_return(NULL, "MPI_Group_free", err);
    group_release(g);
    *group = MPI_GROUP_NULL;
    return MPI_SUCCESS;
}

/* Groups larger than this get a map from world ranks to their ranks at their first lookup, so
 * that a translation or a set operation costs the sum of the groups' sizes, not their product
 * (MPI_Group_translate_ranks of n ranks into a group of m members was O(n m)).  Smaller groups
 * are searched: their search is as quick, and a map costs a world-sized array. */
#define MPIR_GROUP_MAP_MIN 8

/* The rank in g of a world rank, -1 if it is not a member. */
static int index_of(MPIR_Group *g, int world_rank)
{
    if (g->size > MPIR_GROUP_MAP_MIN && !g->rank_of_world &&
        (g->rank_of_world = malloc(sizeof(int) * (size_t)MPIDI_world.size)) != NULL) {
        for (int r = 0; r < MPIDI_world.size; r++)
            g->rank_of_world[r] = -1;
        for (int i = g->size - 1; i >= 0; i--)
            g->rank_of_world[g->world_ranks[i]] = i;
    }
    if (g->rank_of_world)
        return g->rank_of_world[world_rank];
    for (int i = 0; i < g->size; i++)
        if (g->world_ranks[i] == world_rank)
            return i;
    return -1;
}

#pragma weak MPI_Group_translate_ranks = PMPI_Group_translate_ranks
int PMPI_Group_translate_ranks(MPI_Group group1, int n, const int ranks1[], MPI_Group group2,
                               int ranks2[])
{
    MPIR_CHECK_INIT("MPI_Group_translate_ranks");
    MPIR_Group *a, *b = NULL;
    int err = MPIR_Check_group(group1, &a);
    if (!err)
        err = MPIR_Check_group(group2, &b);
    if (!err && n < 0)
        err = MPIR_Err_create(MPI_ERR_ARG, "Negative n %d", n);
    if (!err && n > 0 && (!ranks1 || !ranks2))
        err = MPIR_Err_create(MPI_ERR_ARG, "ranks1 or ranks2 is NULL");
    for (int i = 0; !err && i < n; i++)
        if (ranks1[i] != MPI_PROC_NULL && (ranks1[i] < 0 || ranks1[i] >= a->size))
            err = MPIR_Err_create(MPI_ERR_RANK, "Invalid rank %d in ranks1[%d] (group size %d)",
                                  ranks1[i], i, a->size);
    if (err)
        return MPIR_Err_return(NULL, "MPI_Group_translate_ranks", err);
    for (int i = 0; i < n; i++) {
        if (ranks1[i] == MPI_PROC_NULL) {
            ranks2[i] = MPI_PROC_NULL;
            continue;
        }
        int j = index_of(b, a->world_ranks[ranks1[i]]);
        ranks2[i] = j < 0 ? MPI_UNDEFINED : j;
    }
    return MPI_SUCCESS;
}

#pragma weak MPI_Group_compare = PMPI_Group_compare
int PMPI_Group_compare(MPI_Group group1, MPI_Group group2, int *result)
{
    MPIR_CHECK_INIT("MPI_Group_compare");
    MPIR_Group *a, *b = NULL;
    int err = MPIR_Check_group(group1, &a);
    if (!err)
        err = MPIR_Check_group(group2, &b);
    if (!err && !result)
        err = MPIR_Err_create(MPI_ERR_ARG, "result is NULL");
    if (err)
        return MPIR_Err_return(NULL, "MPI_Group_compare", err);
    *result = MPI_UNEQUAL;
    if (a->size != b->size)
        return MPI_SUCCESS;
    if (a->size == 0 || memcmp(a->world_ranks, b->world_ranks, sizeof(int) * a->size) == 0) {
        *result = MPI_IDENT;
        return MPI_SUCCESS;
    }
    for (int i = 0; i < a->size; i++)
        if (index_of(b, a->world_ranks[i]) < 0)
            return MPI_SUCCESS;
    *result = MPI_SIMILAR;
    return MPI_SUCCESS;
}

/* Union, intersection, difference: the order is group1's, then group2's
 * (MPI-4.1 sec. 7.3.2). */
enum { SET_UNION, SET_INTERSECTION, SET_DIFFERENCE };

static int set_op(const char *fname, MPI_Group group1, MPI_Group group2, int op,
                  MPI_Group *newgroup)
{
    MPIR_Group *a, *b = NULL;
    int err = MPIR_Check_group(group1, &a);
    if (!err)
        err = MPIR_Check_group(group2, &b);
    if (!err && !newgroup)
        err = MPIR_Err_create(MPI_ERR_ARG, "newgroup is NULL");
    if (err)
        return MPIR_Err_return(NULL, fname, err);
    int *r = alloc_ranks(a->size + b->size), n = 0;
    if (!r)
        return publish(fname, 0, NULL, 0, newgroup);
    for (int i = 0; i < a->size; i++) {
        int in_b = index_of(b, a->world_ranks[i]) >= 0;
        if (op == SET_UNION || (op == SET_INTERSECTION) == in_b)
            r[n++] = a->world_ranks[i];
    }
    if (op == SET_UNION)
        for (int i = 0; i < b->size; i++)
            if (index_of(a, b->world_ranks[i]) < 0)
                r[n++] = b->world_ranks[i];
    return publish(fname, n, r, a->session, newgroup);
}

#pragma weak MPI_Group_union = PMPI_Group_union
int PMPI_Group_union(MPI_Group group1, MPI_Group group2, MPI_Group *newgroup)
{
    MPIR_CHECK_INIT("MPI_Group_union");
    return set_op("MPI_Group_union", group1, group2, SET_UNION, newgroup);
}

#pragma weak MPI_Group_intersection = PMPI_Group_intersection
int PMPI_Group_intersection(MPI_Group group1, MPI_Group group2, MPI_Group *newgroup)
{
    MPIR_CHECK_INIT("MPI_Group_intersection");
    return set_op("MPI_Group_intersection", group1, group2, SET_INTERSECTION, newgroup);
}

#pragma weak MPI_Group_difference = PMPI_Group_difference
int PMPI_Group_difference(MPI_Group group1, MPI_Group group2, MPI_Group *newgroup)
{
    MPIR_CHECK_INIT("MPI_Group_difference");
    return set_op("MPI_Group_difference", group1, group2, SET_DIFFERENCE, newgroup);
}

/* The ranks listed must be valid and distinct (MPI-4.1 sec. 7.3.2). */
static int check_rank_list(const MPIR_Group *g, int n, const int ranks[], char *seen)
{
    if (n < 0 || n > g->size)
        return MPIR_Err_create(MPI_ERR_ARG, "Invalid n %d (group size %d)", n, g->size);
    if (n > 0 && !ranks)
        return MPIR_Err_create(MPI_ERR_ARG, "ranks is NULL");
    for (int i = 0; i < n; i++) {
        if (ranks[i] < 0 || ranks[i] >= g->size)
            return MPIR_Err_create(MPI_ERR_RANK, "Invalid rank %d in ranks[%d] (group size %d)",
                                   ranks[i], i, g->size);
        if (seen[ranks[i]])
            return MPIR_Err_create(MPI_ERR_RANK, "rank %d appears twice", ranks[i]);
        seen[ranks[i]] = 1;
    }
    return MPI_SUCCESS;
}

static int incl_excl(const char *fname, MPI_Group group, int n, const int ranks[], int excl,
                     MPI_Group *newgroup)
{
    MPIR_Group *g;
    int err = MPIR_Check_group(group, &g);
    if (!err && !newgroup)
        err = MPIR_Err_create(MPI_ERR_ARG, "newgroup is NULL");
    if (err)
        return MPIR_Err_return(NULL, fname, err);
    char *seen = calloc(g->size ? g->size : 1, 1);
    int *r = alloc_ranks(g->size), m = 0;
    if (!seen || !r) {
        free(seen);
        free(r);
        return publish(fname, 0, NULL, 0, newgroup);
    }
    err = check_rank_list(g, n, ranks, seen);
    if (err) {
        free(seen);
        free(r);
        return MPIR_Err_return(NULL, fname, err);
    }
    if (!excl)
        for (int i = 0; i < n; i++)
            r[m++] = g->world_ranks[ranks[i]];
    else
        for (int i = 0; i < g->size; i++)
            if (!seen[i])
                r[m++] = g->world_ranks[i];
    free(seen);
    return publish(fname, m, r, g->session, newgroup);
}

#pragma weak MPI_Group_incl = PMPI_Group_incl
int PMPI_Group_incl(MPI_Group group, int n, const int ranks[], MPI_Group *newgroup)
{
    MPIR_CHECK_INIT("MPI_Group_incl");
    return incl_excl("MPI_Group_incl", group, n, ranks, 0, newgroup);
}

#pragma weak MPI_Group_excl = PMPI_Group_excl
int PMPI_Group_excl(MPI_Group group, int n, const int ranks[], MPI_Group *newgroup)
{
    MPIR_CHECK_INIT("MPI_Group_excl");
    return incl_excl("MPI_Group_excl", group, n, ranks, 1, newgroup);
}

/* The number of ranks the triplet (first, last, stride) computes (stride != 0):
 * first, first + stride, ... up to last, so last itself need not be one of them. */
static long range_count(int first, int last, int stride)
{
    if ((stride > 0 && first > last) || (stride < 0 && first < last))
        return 0;
    return ((long)last - first) / stride + 1;
}

/* Expands (first, last, stride) triplets into a rank list.  Only the ranks a triplet computes
 * must lie in the group (MPI-4.1 sec. 7.3.2): (5, 8, 2) names 5 and 7 of a group of 8. */
static int expand_ranges(const MPIR_Group *g, int n, int ranges[][3], int **list_p, int *len_p)
{
    if (n < 0)
        return MPIR_Err_create(MPI_ERR_ARG, "Negative n %d", n);
    if (n > 0 && !ranges)
        return MPIR_Err_create(MPI_ERR_ARG, "ranges is NULL");
    long total = 0;
    for (int i = 0; i < n; i++) {
        int first = ranges[i][0], last = ranges[i][1], stride = ranges[i][2];
        if (stride == 0)
            return MPIR_Err_create(MPI_ERR_ARG, "stride 0 in range %d", i);
        long count = range_count(first, last, stride);
        if (count == 0)
            continue;
        long final = first + (count - 1) * stride;
        if (first < 0 || first >= g->size || final < 0 || final >= g->size)
            return MPIR_Err_create(MPI_ERR_RANK,
                                   "range %d (%d, %d, %d) names rank %ld, outside the group of %d",
                                   i, first, last, stride,
                                   first < 0 || first >= g->size ? (long)first : final, g->size);
        total += count;
        if (total > g->size)
            return MPIR_Err_create(MPI_ERR_RANK,
                                   "the ranges name more ranks than the group "
                                   "has (%d)",
                                   g->size);
    }
    int *list = alloc_ranks((int)total), len = 0;
    if (!list)
        return MPIR_Err_create(MPI_ERR_NO_MEM, "out of memory");
    for (int i = 0; i < n; i++) {
        int first = ranges[i][0], stride = ranges[i][2];
        long count = range_count(first, ranges[i][1], stride);
        for (long k = 0; k < count; k++)
            list[len++] = (int)(first + k * stride);
    }
    *list_p = list;
    *len_p = len;
    return MPI_SUCCESS;
}

static int range_incl_excl(const char *fname, MPI_Group group, int n, int ranges[][3], int excl,
                           MPI_Group *newgroup)
{
    MPIR_Group *g;
    int *list = NULL, len = 0;
    int err = MPIR_Check_group(group, &g);
    if (!err)
        err = expand_ranges(g, n, ranges, &list, &len);
    if (err)
        return MPIR_Err_return(NULL, fname, err);
    err = incl_excl(fname, group, len, list, excl, newgroup);
    free(list);
    return err;
}

#pragma weak MPI_Group_range_incl = PMPI_Group_range_incl
int PMPI_Group_range_incl(MPI_Group group, int n, int ranges[][3], MPI_Group *newgroup)
{
    MPIR_CHECK_INIT("MPI_Group_range_incl");
    return range_incl_excl("MPI_Group_range_incl", group, n, ranges, 0, newgroup);
}

#pragma weak MPI_Group_range_excl = PMPI_Group_range_excl
int PMPI_Group_range_excl(MPI_Group group, int n, int ranges[][3], MPI_Group *newgroup)
{
    MPIR_CHECK_INIT("MPI_Group_range_excl");
    return range_incl_excl("MPI_Group_range_excl", group, n, ranges, 1, newgroup);
}
