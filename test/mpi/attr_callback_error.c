/* attr_callback_error.c: what a call returns when an attribute callback fails.  An error code
 * (a code or class the program added with MPI_Add_error_class/code, or a predefined class) comes
 * back as it is, from MPI_Comm_dup (copy callback) and MPI_Comm_delete_attr (delete callback); on
 * Ferry any other non-success value is a code of class MPI_ERR_OTHER.  The failed dup leaves MPI_COMM_NULL; the failed delete keeps the
 * attribute.  Any number of ranks. */
#include "mtest.h"

static int fail_with; /* what the callbacks return */

static int copy_fn(MPI_Comm c, int key, void *extra, void *in, void *out, int *flag)
{
    (void)c, (void)key, (void)extra;
    *(void **)out = in;
    *flag = 1;
    return fail_with;
}

static int delete_fn(MPI_Comm c, int key, void *val, void *extra)
{
    (void)c, (void)key, (void)val, (void)extra;
    return fail_with;
}

int main(int argc, char **argv)
{
    int errs = 0, cls, code, key, rc, flag;
    void *val;
    MTest_Init(&argc, &argv);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    MPI_Add_error_class(&cls);
    MPI_Add_error_code(cls, &code);
    MPI_Comm_create_keyval(copy_fn, delete_fn, &key, NULL);
    MPI_Comm_set_attr(MPI_COMM_WORLD, key, &key);

    /* An error code comes back as it is (added, or predefined as Intel's MPI_Keyval3_c expects);
     * on Ferry anything else (-5) is a code of class MPI_ERR_OTHER. */
#ifdef FERRY_VERSION
    const int returned[] = {cls, code, MPI_ERR_OTHER, MPI_ERR_BUFFER, -5};
#else
    const int returned[] = {cls, code, MPI_ERR_OTHER, MPI_ERR_BUFFER};
#endif
    const int nreturned = (int)(sizeof(returned) / sizeof(returned[0]));
    for (int i = 0; i < nreturned; i++) {
        MPI_Comm dup = MPI_COMM_WORLD;
        int as_is = returned[i] > 0;
        fail_with = returned[i];
        rc = MPI_Comm_dup(MPI_COMM_WORLD, &dup);
        if (as_is)
            MTEST_CHECK_INT(errs, returned[i], rc, "MPI_Comm_dup when the copy callback returns %d",
                            returned[i]);
        else {
            int c = -1;
            MPI_Error_class(rc, &c);
            MTEST_CHECK_INT(errs, MPI_ERR_OTHER, c, "class when the copy callback returns %d",
                            returned[i]);
        }
        if (dup != MPI_COMM_NULL)
            MTEST_FAIL(errs, "a failed MPI_Comm_dup left a communicator");
        rc = MPI_Comm_delete_attr(MPI_COMM_WORLD, key);
        if (as_is)
            MTEST_CHECK_INT(errs, returned[i], rc,
                            "MPI_Comm_delete_attr when the delete callback returns %d",
                            returned[i]);
        MPI_Comm_get_attr(MPI_COMM_WORLD, key, &val, &flag);
        MTEST_CHECK_INT(errs, 1, flag, "the attribute after a failed delete");
    }
    fail_with = MPI_SUCCESS;
    MPI_Comm_delete_attr(MPI_COMM_WORLD, key);
    MPI_Comm_free_keyval(&key);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
    return MTest_Finalize(errs);
}
