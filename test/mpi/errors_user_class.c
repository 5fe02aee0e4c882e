/* errors_user_class.c: error classes, codes and strings added by the program (MPI-4.1 sec.
 * 9.5): MPI_Add_error_class gives a class that MPI_Error_class maps to itself and that differs
 * from every predefined class and from the other added ones; MPI_Add_error_code gives codes of
 * that class (and of a predefined class); their text is "" until MPI_Add_error_string sets it,
 * and a later call replaces it; the MPI_LASTUSEDCODE attribute of MPI_COMM_WORLD is at least
 * every added class; an error handler called with an added code gets that code; with Ferry,
 * the text of a predefined code, a string that does not fit MPI_MAX_ERROR_STRING and a code
 * passed as a class are refused.  Written from the standard's
 * text. */
#include "mtest.h"

#include <string.h>

static int handler_code = -1;
static void record(MPI_Comm *comm, int *code, ...)
{
    (void)comm;
    handler_code = *code;
}

static int check_text(int code, const char *want, const char *what)
{
    int errs = 0, len = -1;
    char text[MPI_MAX_ERROR_STRING];
    int rc = MPI_Error_string(code, text, &len);
    MTEST_CHECK_RC(errs, rc, "%s: MPI_Error_string", what);
    if (!rc && (strcmp(text, want) != 0 || len != (int)strlen(want)))
        MTEST_FAIL(errs, "%s: text \"%s\" (length %d), expected \"%s\"", what, text, len, want);
    return errs;
}

int main(int argc, char **argv)
{
    int errs = 0, c1 = -1, c2 = -1, k1 = -1, k2 = -1, kp = -1, cls = -1;
    MTest_Init(&argc, &argv);
    MTEST_CHECK_RC(errs, MPI_Add_error_class(&c1), "MPI_Add_error_class");
    MTEST_CHECK_RC(errs, MPI_Add_error_class(&c2), "second MPI_Add_error_class");
    if (c1 == c2)
        MTEST_FAIL(errs, "two added classes are both %d", c1);
    for (int p = MPI_SUCCESS; p <= MPI_ERR_LASTCODE && p < 128; p++) {
        MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
        int rc = MPI_Error_class(p, &cls);
        MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
        if (rc == MPI_SUCCESS && cls == p && (p == c1 || p == c2))
            MTEST_FAIL(errs, "added class %d is the predefined class %d", p, p);
    }
    MPI_Error_class(c1, &cls);
    MTEST_CHECK_INT(errs, c1, cls, "MPI_Error_class of an added class");
    MTEST_CHECK_RC(errs, MPI_Add_error_code(c1, &k1), "MPI_Add_error_code");
    MTEST_CHECK_RC(errs, MPI_Add_error_code(c1, &k2), "second MPI_Add_error_code");
    MTEST_CHECK_RC(errs, MPI_Add_error_code(MPI_ERR_ARG, &kp), "MPI_Add_error_code(MPI_ERR_ARG)");
    if (k1 == k2 || k1 == c1 || k1 == c2)
        MTEST_FAIL(errs, "added codes %d, %d not distinct from each other and the classes", k1, k2);
    MPI_Error_class(k2, &cls);
    MTEST_CHECK_INT(errs, c1, cls, "class of an added code");
    MPI_Error_class(kp, &cls);
    MTEST_CHECK_INT(errs, MPI_ERR_ARG, cls, "class of a code added to MPI_ERR_ARG");

    errs += check_text(c1, "", "added class without a string");
    errs += check_text(k1, "", "added code without a string");
    MPI_Add_error_string(c1, "class one");
    MPI_Add_error_string(k1, "code one of class one");
    MPI_Add_error_string(k1, "code one, renamed");
    errs += check_text(c1, "class one", "added class");
    errs += check_text(k1, "code one, renamed", "added code after a second MPI_Add_error_string");
    errs += check_text(k2, "", "the other code keeps no text");

    /* MPI_LASTUSEDCODE: the largest error class, the added ones included. */
    int *last = NULL, flag = 0, most = c1 > c2 ? c1 : c2;
    MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_LASTUSEDCODE, &last, &flag);
    MTEST_CHECK_INT(errs, 1, flag, "MPI_LASTUSEDCODE is set");
    if (flag && *last < most)
        MTEST_FAIL(errs, "MPI_LASTUSEDCODE %d is below the added class %d", *last, most);

    MPI_Errhandler eh;
    MPI_Comm dup;
    MPI_Comm_dup(MPI_COMM_WORLD, &dup);
    MPI_Comm_create_errhandler(record, &eh);
    MPI_Comm_set_errhandler(dup, eh);
    MPI_Comm_call_errhandler(dup, k2);
    MTEST_CHECK_INT(errs, k2, handler_code, "code the error handler received");
    MPI_Errhandler_free(&eh);
    MPI_Comm_free(&dup);

    char big[MPI_MAX_ERROR_STRING + 8];
    memset(big, 'x', sizeof big - 1);
    big[sizeof big - 1] = 0;
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
#ifdef FERRY_VERSION
    /* These are erroneous; Ferry promises to say so (MPICH 4.0.2 accepts them). */
    if (MPI_Add_error_string(MPI_ERR_ARG, "mine now") == MPI_SUCCESS)
        MTEST_FAIL(errs, "MPI_Add_error_string changed the text of MPI_ERR_ARG");
    if (MPI_Add_error_string(k2, big) == MPI_SUCCESS)
        MTEST_FAIL(errs, "MPI_Add_error_string took %zu characters", strlen(big));
    if (MPI_Add_error_code(k1, &kp) == MPI_SUCCESS)
        MTEST_FAIL(errs, "MPI_Add_error_code accepted the code %d as a class", k1);
#endif
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
    return MTest_Finalize(errs);
}
