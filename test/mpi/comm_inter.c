/* comm_inter.c: communicators from groups and splits, and intercommunicators (MPI-4.1 ch. 7).
 * Comm_split into even and odd ranks (keys reversing the order); groups: incl, excl, range_incl,
 * union, intersection, difference, translate_ranks, compare; Comm_create and Comm_create_group;
 * Comm_compare; an intercommunicator between the halves (Intercomm_create over
 * MPI_COMM_WORLD): remote size and group, point-to-point with remote ranks and MPI_ANY_SOURCE,
 * Barrier, Bcast with MPI_ROOT/MPI_PROC_NULL, Allreduce; Intercomm_merge with high deciding the
 * order; attribute copy and delete callbacks on Comm_dup and Comm_free. */
#include "mtest.h"

#include <stdlib.h>

static int copies, deletes;

static int copy_fn(MPI_Comm c, int key, void *extra, void *in, void *out, int *flag)
{
    copies++;
    *(void **)out = (char *)in + 1; /* the copy's value differs, so we can tell it */
    *flag = 1;
    return MPI_SUCCESS;
}

static int delete_fn(MPI_Comm c, int key, void *val, void *extra)
{
    deletes++;
    return MPI_SUCCESS;
}

static int check_attrs(void)
{
    int errs = 0, key, flag = 0;
    static char base[4];
    void *val = NULL;
    MPI_Comm dup;
    copies = deletes = 0;
    MPI_Comm_create_keyval(copy_fn, delete_fn, &key, NULL);
    MPI_Comm_set_attr(MPI_COMM_WORLD, key, base);
    MPI_Comm_dup(MPI_COMM_WORLD, &dup);
    MTEST_CHECK_INT(errs, 1, copies, "copy callbacks on Comm_dup");
    MPI_Comm_get_attr(dup, key, &val, &flag);
    MTEST_CHECK_INT(errs, 1, flag, "attribute present on the duplicate");
    MTEST_CHECK_INT(errs, 1, (int)((char *)val - base), "value made by the copy callback");
    MPI_Comm_set_attr(dup, key, base + 2); /* replacing deletes the old value */
    MTEST_CHECK_INT(errs, 1, deletes, "delete callbacks after replacing a value");
    MPI_Comm_free(&dup);
    MTEST_CHECK_INT(errs, 2, deletes, "delete callbacks after Comm_free");
    MPI_Comm_delete_attr(MPI_COMM_WORLD, key);
    MTEST_CHECK_INT(errs, 3, deletes, "delete callbacks after Comm_delete_attr");
    MPI_Comm_free_keyval(&key);
    MTEST_CHECK_INT(errs, MPI_KEYVAL_INVALID, key, "keyval after Comm_free_keyval");
    return errs;
}

static int check_groups(int rank, int size)
{
    int errs = 0, res, n, r;
    MPI_Group world, evens, odds, u, i, d, g;
    MPI_Comm_group(MPI_COMM_WORLD, &world);
    int range[1][3] = {{0, size - 1, 2}};
    MPI_Group_range_incl(world, 1, range, &evens);
    MPI_Group_difference(world, evens, &odds);
    MPI_Group_size(evens, &n);
    MTEST_CHECK_INT(errs, (size + 1) / 2, n, "size of the even group");
    MPI_Group_rank(odds, &r);
    MTEST_CHECK_INT(errs, rank % 2 ? rank / 2 : MPI_UNDEFINED, r, "rank in the odd group");
    MPI_Group_union(odds, evens, &u);
    MPI_Group_compare(u, world, &res);
    MTEST_CHECK_INT(errs, size > 1 ? MPI_SIMILAR : MPI_IDENT, res, "compare(odds+evens, world)");
    MPI_Group_intersection(evens, odds, &i);
    MPI_Group_size(i, &n);
    MTEST_CHECK_INT(errs, 0, n, "size of evens & odds");
    int last = size - 1, t = -5;
    MPI_Group_translate_ranks(world, 1, &last, u, &t);
    MTEST_CHECK_INT(errs, size % 2 == 0 ? size / 2 - 1 : size - 1, t, "translate last rank");
    int ex[1] = {0};
    MPI_Group_excl(world, 1, ex, &d);
    MPI_Group_size(d, &n);
    MTEST_CHECK_INT(errs, size - 1, n, "size after excluding rank 0");
    MPI_Group_incl(world, 1, ex, &g);
    MPI_Comm c;
    MPI_Comm_create(MPI_COMM_WORLD, g, &c); /* only rank 0 gets a communicator */
    MTEST_CHECK_INT(errs, rank == 0, c != MPI_COMM_NULL, "Comm_create membership");
    if (c != MPI_COMM_NULL)
        MPI_Comm_free(&c);
    if (rank % 2 == 0) { /* collective over the evens only */
        MPI_Comm_create_group(MPI_COMM_WORLD, evens, 5, &c);
        int s = -1, sum = 0;
        MPI_Comm_size(c, &s);
        MTEST_CHECK_INT(errs, (size + 1) / 2, s, "size from Comm_create_group");
        MPI_Allreduce(&rank, &sum, 1, MPI_INT, MPI_SUM, c);
        int want = 0;
        for (int k = 0; k < size; k += 2)
            want += k;
        MTEST_CHECK_INT(errs, want, sum, "Allreduce over Comm_create_group's communicator");
        MPI_Comm_free(&c);
    }
    MPI_Group *all[] = {&world, &evens, &odds, &u, &i, &d, &g};
    for (int k = 0; k < 7; k++)
        MPI_Group_free(all[k]);
    return errs;
}

static int check_inter(int rank, int size)
{
    int errs = 0, n, flag;
    MPI_Comm half, inter, merged;
    int color = rank % 2;
    MPI_Comm_split(MPI_COMM_WORLD, color, -rank, &half); /* keys reverse the order */
    int hrank, hsize;
    MPI_Comm_rank(half, &hrank);
    MPI_Comm_size(half, &hsize);
    MTEST_CHECK_INT(errs, (size - color + 1) / 2 - 1 - rank / 2, hrank, "rank after split");
    /* Leaders: the highest even and odd world ranks (rank 0 of each half). */
    int remote_leader =
        color == 0 ? (size % 2 ? size - 2 : size - 1) : (size % 2 ? size - 1 : size - 2);
    MPI_Intercomm_create(half, 0, MPI_COMM_WORLD, remote_leader, 77, &inter);
    MPI_Comm_test_inter(inter, &flag);
    MTEST_CHECK_INT(errs, 1, flag, "Comm_test_inter");
    MPI_Comm_remote_size(inter, &n);
    MTEST_CHECK_INT(errs, color == 0 ? size / 2 : (size + 1) / 2, n, "remote size");
    int rsize = n;
    /* Everyone on the odd side sends its world rank to remote rank 0; it receives them with
     * MPI_ANY_SOURCE and checks the sources are remote ranks. */
    if (color == 1)
        MPI_Send(&rank, 1, MPI_INT, 0, 3, inter);
    else if (hrank == 0) {
        for (int k = 0; k < rsize; k++) {
            int v;
            MPI_Status st;
            MPI_Recv(&v, 1, MPI_INT, MPI_ANY_SOURCE, 3, inter, &st);
            int expect_src = (size - 1 - v) / 2; /* odd side ranks reversed too */
            if (size % 2 == 1)
                expect_src = (size - 2 - v) / 2;
            MTEST_CHECK_INT(errs, expect_src, st.MPI_SOURCE, "source of %d on the intercomm", v);
        }
    }
    MPI_Barrier(inter);
    int val = color == 0 ? 1234 : -1;
    MPI_Bcast(&val, 1, MPI_INT, color == 0 ? (hrank == 0 ? MPI_ROOT : MPI_PROC_NULL) : 0, inter);
    MTEST_CHECK_INT(errs, 1234, val, "Bcast across the intercommunicator");
    int sum = -1;
    MPI_Allreduce(&rank, &sum, 1, MPI_INT, MPI_SUM, inter);
    int want = 0;
    for (int k = 1 - color; k < size; k += 2)
        want += k;
    MTEST_CHECK_INT(errs, want, sum, "intercomm Allreduce (the other side's sum)");
    MPI_Intercomm_merge(inter, color == 0, &merged); /* odd side first */
    int mrank;
    MPI_Comm_rank(merged, &mrank);
    MTEST_CHECK_INT(errs, color == 1 ? hrank : (size / 2) + hrank, mrank, "rank after merge");
    MPI_Comm dup;
    MPI_Comm_dup(inter, &dup);
    MPI_Comm_compare(inter, dup, &n);
    MTEST_CHECK_INT(errs, MPI_CONGRUENT, n, "compare(intercomm, its dup)");
    MPI_Barrier(dup);
    MPI_Comm_free(&dup);
    MPI_Comm_free(&merged);
    MPI_Comm_free(&inter);
    MPI_Comm_free(&half);
    return errs;
}

int main(int argc, char **argv)
{
    int errs = 0, rank, size;
    MTest_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    errs += check_attrs();
    errs += check_groups(rank, size);
    if (size >= 2)
        errs += check_inter(rank, size);
    return MTest_Finalize(errs);
}
