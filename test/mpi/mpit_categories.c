/* mpit_categories.c: MPI_T categories: each category's information (the string rules), its index
 * back, its members matching the counts it gives (control and performance variables,
 * subcategories: valid indexes, no category its own member), short arrays filled only as far
 * as len, invalid indexes and names, and MPI_T_category_changed stable while nothing changes.
 * Against Ferry also: every variable is in exactly one category, and verbs_ring is verbs's
 * subcategory.  Run after MPI_Init; 1 rank (any number). */
#include <stdlib.h>
#include "mpit_common.h"

/* The members of category c of one kind, checked against the count n and the limit max. */
static void check_members(int c, const char *kind, int n, int max, int (*get)(int, int, int[]),
                          int *seen)
{
    int *idx = malloc(sizeof(int) * ((size_t)n + 2));
    idx[n] = idx[n + 1] = -7;
    int rc = get(c, n + 2, idx);
    CHECK(rc == MPI_SUCCESS, "category %d: its %s: %s", c, kind, mpit_errname(rc));
    for (int k = 0; rc == MPI_SUCCESS && k < n; k++) {
        CHECK(idx[k] >= 0 && idx[k] < max, "category %d: %s %d is index %d of %d", c, kind, k,
              idx[k], max);
        if (seen && idx[k] >= 0 && idx[k] < max)
            seen[idx[k]]++;
    }
    CHECK(idx[n] == -7 && idx[n + 1] == -7, "category %d: more than %d %s written", c, n, kind);
    if (n > 0) {
        int first = idx[0];
        idx[0] = idx[1] = -7;
        rc = get(c, 1, idx);
        CHECK(rc == MPI_SUCCESS && idx[0] == first && (n == 1 || idx[1] == -7),
              "category %d: %s with len 1: %s, [%d, %d]", c, kind, mpit_errname(rc), idx[0],
              idx[1]);
    }
    free(idx);
}

static void check_categories(void)
{
    int ncat = -1, ncvar = 0, npvar = 0, stamp = -1, stamp2 = -2, rc;
    CHECK_RC(MPI_T_category_get_num(&ncat), MPI_SUCCESS, "MPI_T_category_get_num");
    MPI_T_cvar_get_num(&ncvar);
    MPI_T_pvar_get_num(&npvar);
    CHECK_RC(MPI_T_category_changed(&stamp), MPI_SUCCESS, "MPI_T_category_changed");
    int *cvar_seen = calloc((size_t)ncvar + 1, sizeof(int)),
        *pvar_seen = calloc((size_t)npvar + 1, sizeof(int));
    for (int c = 0; c < ncat; c++) {
        char name[256], desc[1024];
        int name_len = sizeof(name), desc_len = sizeof(desc), nc = -1, np = -1, nsub = -1,
            index = -1;
        rc = MPI_T_category_get_info(c, name, &name_len, desc, &desc_len, &nc, &np, &nsub);
        if (MPIT_DELETED(rc))
            continue;
        CHECK(rc == MPI_SUCCESS, "MPI_T_category_get_info(%d): %s", c, mpit_errname(rc));
        if (rc != MPI_SUCCESS)
            continue;
        CHECK(name_len == (int)strlen(name) + 1 && name[0], "category %d: name \"%s\", length %d",
              c, name, name_len);
        rc = MPI_T_category_get_index(name, &index);
        CHECK(rc == MPI_SUCCESS && index == c, "MPI_T_category_get_index(%s): %s, %d", name,
              mpit_errname(rc), index);
        int len = 0;
        rc = MPI_T_category_get_info(c, NULL, &len, NULL, NULL, NULL, NULL, NULL);
        CHECK(rc == MPI_SUCCESS && len == name_len, "category %s: length asked: %d, expected %d",
              name, len, name_len);
        check_members(c, "cvars", nc, ncvar, MPI_T_category_get_cvars, cvar_seen);
        check_members(c, "pvars", np, npvar, MPI_T_category_get_pvars, pvar_seen);
        check_members(c, "categories", nsub, ncat, MPI_T_category_get_categories, NULL);
        int *sub = malloc(sizeof(int) * ((size_t)nsub + 1));
        MPI_T_category_get_categories(c, nsub, sub);
        for (int k = 0; k < nsub; k++)
            CHECK(sub[k] != c, "category %s lists itself", name);
        free(sub);
    }
#ifdef FERRY_VERSION
    for (int i = 0; i < ncvar; i++)
        CHECK(cvar_seen[i] == 1, "control variable %d is in %d categories", i, cvar_seen[i]);
    for (int i = 0; i < npvar; i++)
        CHECK(pvar_seen[i] == 1, "performance variable %d is in %d categories", i, pvar_seen[i]);
    int verbs = -1, ring = -1, sub[2] = {-1, -1}, nsub = -1;
    MPI_T_category_get_index("verbs", &verbs);
    MPI_T_category_get_index("verbs_ring", &ring);
    MPI_T_category_get_info(verbs, NULL, NULL, NULL, NULL, NULL, NULL, &nsub);
    MPI_T_category_get_categories(verbs, 2, sub);
    CHECK(ring >= 0 && nsub == 1 && sub[0] == ring,
          "verbs's subcategories: %d, first %d; "
          "verbs_ring is %d",
          nsub, sub[0], ring);
#endif
    free(cvar_seen);
    free(pvar_seen);
    int index, idx[1];
    CHECK_INDEX_RC(MPI_T_category_get_info(ncat, NULL, NULL, NULL, NULL, NULL, NULL, NULL),
                   "MPI_T_category_get_info(num_cat)");
    CHECK_INDEX_RC(MPI_T_category_get_cvars(-1, 1, idx), "MPI_T_category_get_cvars(-1)");
    CHECK_RC(MPI_T_category_get_index("no_such_category_at_all", &index), MPI_T_ERR_INVALID_NAME,
             "MPI_T_category_get_index(no_such_category_at_all)");
    CHECK_RC(MPI_T_category_changed(&stamp2), MPI_SUCCESS, "MPI_T_category_changed");
    CHECK(stamp2 == stamp, "MPI_T_category_changed went from %d to %d with nothing changed", stamp,
          stamp2);
}

int main(int argc, char **argv)
{
    int provided, rank;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    CHECK_RC(MPI_T_init_thread(MPI_THREAD_SINGLE, &provided), MPI_SUCCESS, "MPI_T_init_thread");
    check_categories();
    CHECK_RC(MPI_T_finalize(), MPI_SUCCESS, "MPI_T_finalize");
    int all = mpit_errs_before_finalize();
    MPI_Finalize();
    return mpit_report(rank, all);
}
