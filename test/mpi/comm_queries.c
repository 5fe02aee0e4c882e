/* comm_queries.c: calls of the communicator and group chapters that no other program in the
 * list checks (MPI-4.1 secs. 7.3-7.4, 7.8, 9.1.1):
 *   MPI_Comm_split_type(MPI_COMM_TYPE_SHARED): every process of one node, ordered by key (the
 *     runs here are on one node, so that is the whole job); MPI_UNDEFINED gives MPI_COMM_NULL;
 *   MPI_Group_range_incl/excl with strides of both signs, checked against the explicit lists;
 *   MPI_Comm_set_name/get_name: predefined names, a set name, a duplicate without one;
 *   MPI_Get_library_version: a string whose length is the one returned. */
#include "mtest.h"

#include <stdlib.h>
#include <string.h>

static int split_type(void)
{
    int errs = 0, size = -1, rank = -1;
    MPI_Comm node = MPI_COMM_NULL, none = MPI_COMM_NULL;
    /* Key: the reverse of the world rank. */
    MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, mtest_size - mtest_rank,
                        MPI_INFO_NULL, &node);
    if (node == MPI_COMM_NULL) {
        MTEST_FAIL(errs, "MPI_COMM_TYPE_SHARED gave MPI_COMM_NULL");
        return errs;
    }
    MPI_Comm_size(node, &size);
    MPI_Comm_rank(node, &rank);
    MTEST_CHECK_INT(errs, mtest_size, size, "node communicator size (one node)");
    MTEST_CHECK_INT(errs, mtest_size - 1 - mtest_rank, rank, "node rank, ordered by key");
    int sum = 0;
    MPI_Allreduce(&mtest_rank, &sum, 1, MPI_INT, MPI_SUM, node);
    MTEST_CHECK_INT(errs, mtest_size * (mtest_size - 1) / 2, sum, "allreduce on it");
    MPI_Comm_free(&node);
    /* Half the processes opt out. */
    MPI_Comm_split_type(MPI_COMM_WORLD, mtest_rank % 2 ? MPI_UNDEFINED : MPI_COMM_TYPE_SHARED, 0,
                        MPI_INFO_NULL, &none);
    if (mtest_rank % 2) {
        if (none != MPI_COMM_NULL)
            MTEST_FAIL(errs, "split_type with MPI_UNDEFINED gave a communicator");
    } else if (none == MPI_COMM_NULL)
        MTEST_FAIL(errs, "split_type of the even ranks gave MPI_COMM_NULL");
    else {
        MPI_Comm_size(none, &size);
        MTEST_CHECK_INT(errs, (mtest_size + 1) / 2, size, "size of the even ranks' node comm");
        MPI_Comm_free(&none);
    }
    return errs;
}

/* The ranks of a range triplet list, expanded as the standard defines them. */
static int expand(int n, int ranges[][3], int *out)
{
    int k = 0;
    for (int i = 0; i < n; i++)
        for (int r = ranges[i][0]; ranges[i][2] > 0 ? r <= ranges[i][1] : r >= ranges[i][1];
             r += ranges[i][2])
            out[k++] = r;
    return k;
}

static int ranges(void)
{
    int errs = 0, n = mtest_size;
    if (n < 4)
        return 0;
    MPI_Group world, inc, exc, ref;
    MPI_Comm_group(MPI_COMM_WORLD, &world);
    /* From the top down by 2, then rank 1 alone (when the first range missed it). */
    int rg[2][3] = {{n - 1, 0, -2}, {1, 1, 1}}, nr = (n - 1) % 2 ? 1 : 2;
    int *list = malloc(sizeof(int) * (size_t)n), k = expand(nr, rg, list);
    MPI_Group_range_incl(world, nr, rg, &inc);
    MPI_Group_incl(world, k, list, &ref);
    int cmp = MPI_UNEQUAL, size = -1;
    MPI_Group_compare(inc, ref, &cmp);
    MTEST_CHECK_INT(errs, MPI_IDENT, cmp, "MPI_Group_range_incl against MPI_Group_incl");
    MPI_Group_free(&ref);
    MPI_Group_range_excl(world, nr, rg, &exc);
    MPI_Group_excl(world, k, list, &ref);
    MPI_Group_compare(exc, ref, &cmp);
    MTEST_CHECK_INT(errs, MPI_IDENT, cmp, "MPI_Group_range_excl against MPI_Group_excl");
    MPI_Group_size(exc, &size);
    MTEST_CHECK_INT(errs, n - k, size, "MPI_Group_range_excl size");
    MPI_Group_free(&ref);
    MPI_Group_free(&inc);
    MPI_Group_free(&exc);
    MPI_Group_free(&world);
    free(list);
    return errs;
}

static int names(void)
{
    int errs = 0, len = -1;
    char name[MPI_MAX_OBJECT_NAME];
    MPI_Comm_get_name(MPI_COMM_WORLD, name, &len);
    if (strcmp(name, "MPI_COMM_WORLD"))
        MTEST_FAIL(errs, "MPI_COMM_WORLD's name is \"%s\"", name);
    MTEST_CHECK_INT(errs, (int)strlen(name), len, "length of MPI_COMM_WORLD's name");
    MPI_Comm_get_name(MPI_COMM_SELF, name, &len);
    if (strcmp(name, "MPI_COMM_SELF"))
        MTEST_FAIL(errs, "MPI_COMM_SELF's name is \"%s\"", name);
    MPI_Comm dup, dup2;
    MPI_Comm_dup(MPI_COMM_WORLD, &dup);
    MPI_Comm_get_name(dup, name, &len);
    MTEST_CHECK_INT(errs, 0, len, "a new communicator's name length");
    MPI_Comm_set_name(dup, "a communicator of the test");
    MPI_Comm_get_name(dup, name, &len);
    if (strcmp(name, "a communicator of the test"))
        MTEST_FAIL(errs, "name set, then read back as \"%s\"", name);
    MTEST_CHECK_INT(errs, (int)strlen("a communicator of the test"), len, "its length");
    /* Names are not copied by MPI_Comm_dup (MPI-4.1 sec. 7.8). */
    MPI_Comm_dup(dup, &dup2);
    MPI_Comm_get_name(dup2, name, &len);
    MTEST_CHECK_INT(errs, 0, len, "the name length of a duplicate");
    MPI_Comm_free(&dup2);
    MPI_Comm_free(&dup);
    return errs;
}

static int library_version(void)
{
    int errs = 0, len = -1;
    char v[MPI_MAX_LIBRARY_VERSION_STRING];
    memset(v, 'x', sizeof(v));
    MPI_Get_library_version(v, &len);
    if (len <= 0 || len >= MPI_MAX_LIBRARY_VERSION_STRING)
        MTEST_FAIL(errs, "MPI_Get_library_version: length %d", len);
    else
        MTEST_CHECK_INT(errs, len, (int)strnlen(v, sizeof(v)), "the string's own length");
    return errs;
}

int main(int argc, char **argv)
{
    int errs = 0;
    MTest_Init(&argc, &argv);
    errs += split_type();
    errs += ranges();
    errs += names();
    errs += library_version();
    return MTest_Finalize(errs);
}
