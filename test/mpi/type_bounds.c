/* type_bounds.c: the bounds of the hand-computed datatypes of type_table.h (mixed alignment,
 * negative displacements and strides, resized and array markers that win over the data, empty
 * members): MPI_Type_size, MPI_Type_get_extent and MPI_Type_get_true_extent of each must be the
 * numbers worked out from the standard's definitions, before and after commit. */
#include "mtest.h"
#include "type_table.h"

static int check(MPI_Datatype h, const tt_case_t *c, const char *when)
{
    int errs = 0, size = -7;
    MPI_Aint lb = -7, ext = -7, tlb = -7, text = -7;
    MPI_Type_size(h, &size);
    MPI_Type_get_extent(h, &lb, &ext);
    MPI_Type_get_true_extent(h, &tlb, &text);
    MTEST_CHECK_INT(errs, c->size, size, "%s %s: size", c->name, when);
    MTEST_CHECK_INT(errs, c->lb, lb, "%s %s: lb", c->name, when);
    MTEST_CHECK_INT(errs, c->extent, ext, "%s %s: extent", c->name, when);
    /* An empty type's true bounds are not pinned down by the standard. */
    if (c->size > 0) {
        MTEST_CHECK_INT(errs, c->true_lb, tlb, "%s %s: true lb", c->name, when);
        MTEST_CHECK_INT(errs, c->true_extent, text, "%s %s: true extent", c->name, when);
    }
    return errs;
}

int main(int argc, char **argv)
{
    int errs = 0;
    MTest_Init(&argc, &argv);
    for (int i = 0; i < TT_NCASES; i++) {
        tg_type *t = tt_cases[i].make();
        int rc = tg_build(t);
        MTEST_CHECK_RC(errs, rc, "building %s", tt_cases[i].name);
        if (rc == MPI_SUCCESS) {
            errs += check(t->h, &tt_cases[i], "before commit");
            if (t->comb != MPI_COMBINER_NAMED) {
                MPI_Type_commit(&t->h);
                errs += check(t->h, &tt_cases[i], "after commit");
            }
        }
        tg_free(t);
    }
    return MTest_Finalize(errs);
}
