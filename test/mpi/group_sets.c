/* group_sets.c: MPI_Group_translate_ranks, the set operations and MPI_Group_compare on groups
 * of MPI_COMM_WORLD in several orders (the world, reversed, evens, odds, the upper half, self,
 * empty), checked against lists the test builds itself.  Run with more than 8 ranks, the groups
 * that big take the library's map from world ranks (mpi/group.c); with fewer, its search. */
#include "mtest.h"

#include <stdlib.h>

#define NG 7

struct grp {
    const char *name;
    int n;
    int *w; /* world ranks, in the group's order */
    MPI_Group g;
};

/* Position of world rank r in list w of n, or -1. */
static int pos(const int *w, int n, int r)
{
    for (int i = 0; i < n; i++)
        if (w[i] == r)
            return i;
    return -1;
}

/* The world ranks of group g, through translation into the world group. */
static int members(MPI_Group g, MPI_Group world, int *out, int max)
{
    int n;
    MPI_Group_size(g, &n);
    if (n > max)
        return -1;
    int *idx = malloc(sizeof(int) * (size_t)(n ? n : 1));
    for (int i = 0; i < n; i++)
        idx[i] = i;
    MPI_Group_translate_ranks(g, n, idx, world, out);
    free(idx);
    return n;
}

int main(int argc, char **argv)
{
    int errs = 0;
    MTest_Init(&argc, &argv);
    int N = mtest_size, me = mtest_rank;
    MPI_Group world;
    MPI_Comm_group(MPI_COMM_WORLD, &world);

    struct grp gs[NG];
    for (int k = 0; k < NG; k++)
        gs[k].w = malloc(sizeof(int) * (size_t)N);
    gs[0].name = "world";
    gs[0].n = N;
    for (int i = 0; i < N; i++)
        gs[0].w[i] = i;
    gs[0].g = world;
    gs[1].name = "reversed";
    gs[1].n = N;
    for (int i = 0; i < N; i++)
        gs[1].w[i] = N - 1 - i;
    MPI_Group_incl(world, N, gs[1].w, &gs[1].g);
    gs[2].name = "evens";
    gs[2].n = (N + 1) / 2;
    for (int i = 0; i < gs[2].n; i++)
        gs[2].w[i] = 2 * i;
    /* A triplet's last need not be a member, only the ranks it computes (MPI-4.1 sec. 7.3.2):
     * whichever of evens and odds can, names N, one past the group, as its last. */
    int evens[1][3] = {{0, N % 2 ? N : N - 1, 2}};
    MPI_Group_range_incl(world, 1, evens, &gs[2].g);
    gs[3].name = "odds";
    gs[3].n = N / 2;
    for (int i = 0; i < gs[3].n; i++)
        gs[3].w[i] = 2 * i + 1;
    if (N > 1) {
        int odds[1][3] = {{1, N % 2 ? N - 1 : N, 2}};
        MPI_Group_range_incl(world, 1, odds, &gs[3].g);
    } else {
        gs[3].g = MPI_GROUP_EMPTY;
    }
    gs[4].name = "upper half, descending";
    gs[4].n = N - N / 2;
    for (int i = 0; i < gs[4].n; i++)
        gs[4].w[i] = N - 1 - i;
    MPI_Group_incl(world, gs[4].n, gs[4].w, &gs[4].g);
    gs[5].name = "self";
    gs[5].n = 1;
    gs[5].w[0] = me;
    MPI_Comm_group(MPI_COMM_SELF, &gs[5].g);
    gs[6].name = "empty";
    gs[6].n = 0;
    gs[6].g = MPI_GROUP_EMPTY;

    int *out = malloc(sizeof(int) * (size_t)(2 * N + 1)),
        *idx = malloc(sizeof(int) * (size_t)(N + 1));
    int *want = malloc(sizeof(int) * (size_t)(2 * N + 1));
    for (int a = 0; a < NG; a++) {
        int n;
        MPI_Group_size(gs[a].g, &n);
        MTEST_CHECK_INT(errs, gs[a].n, n, "size of %s", gs[a].name);
        for (int b = 0; b < NG; b++) {
            /* Every rank of a, and MPI_PROC_NULL, into b. */
            for (int i = 0; i < gs[a].n; i++)
                idx[i] = i;
            idx[gs[a].n] = MPI_PROC_NULL;
            MPI_Group_translate_ranks(gs[a].g, gs[a].n + 1, idx, gs[b].g, out);
            for (int i = 0; i < gs[a].n; i++) {
                int j = pos(gs[b].w, gs[b].n, gs[a].w[i]);
                MTEST_CHECK_INT(errs, j < 0 ? MPI_UNDEFINED : j, out[i],
                                "rank %d of %s translated into %s", i, gs[a].name, gs[b].name);
            }
            MTEST_CHECK_INT(errs, MPI_PROC_NULL, out[gs[a].n], "MPI_PROC_NULL from %s into %s",
                            gs[a].name, gs[b].name);

            /* Union, intersection, difference: a's order, then b's. */
            for (int op = 0; op < 3; op++) {
                MPI_Group r;
                int nw = 0;
                if (op == 0)
                    MPI_Group_union(gs[a].g, gs[b].g, &r);
                else if (op == 1)
                    MPI_Group_intersection(gs[a].g, gs[b].g, &r);
                else
                    MPI_Group_difference(gs[a].g, gs[b].g, &r);
                for (int i = 0; i < gs[a].n; i++) {
                    int in_b = pos(gs[b].w, gs[b].n, gs[a].w[i]) >= 0;
                    if (op == 0 || (op == 1) == in_b)
                        want[nw++] = gs[a].w[i];
                }
                if (op == 0)
                    for (int i = 0; i < gs[b].n; i++)
                        if (pos(gs[a].w, gs[a].n, gs[b].w[i]) < 0)
                            want[nw++] = gs[b].w[i];
                static const char *ops[] = {"union", "intersection", "difference"};
                int got = members(r, world, out, 2 * N + 1);
                MTEST_CHECK_INT(errs, nw, got, "size of the %s of %s and %s", ops[op], gs[a].name,
                                gs[b].name);
                for (int i = 0; i < nw && i < got; i++)
                    MTEST_CHECK_INT(errs, want[i], out[i], "member %d of the %s of %s and %s", i,
                                    ops[op], gs[a].name, gs[b].name);
                if (r != MPI_GROUP_EMPTY)
                    MPI_Group_free(&r);
            }

            /* Compare: the same members in the same order, the same members, or not. */
            int res, same_set = gs[a].n == gs[b].n, same_order = same_set;
            for (int i = 0; i < gs[a].n && same_set; i++) {
                same_set = pos(gs[b].w, gs[b].n, gs[a].w[i]) >= 0;
                same_order = same_order && gs[b].w[i] == gs[a].w[i];
            }
            MPI_Group_compare(gs[a].g, gs[b].g, &res);
            MTEST_CHECK_INT(errs,
                            same_order ? MPI_IDENT
                            : same_set ? MPI_SIMILAR
                                       : MPI_UNEQUAL,
                            res, "compare %s with %s", gs[a].name, gs[b].name);
        }
    }
    for (int k = 1; k < NG; k++)
        if (gs[k].g != MPI_GROUP_EMPTY)
            MPI_Group_free(&gs[k].g);
    MPI_Group_free(&world);
    for (int k = 0; k < NG; k++)
        free(gs[k].w);
    free(out);
    free(idx);
    free(want);
    return MTest_Finalize(errs);
}
