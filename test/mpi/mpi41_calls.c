/* mpi41_calls.c: the MPI-4.1 calls around point-to-point that take no new machinery:
 *   MPI_Request_get_status_any/all/some  report complete requests and leave them as they are
 *                                        (a later MPI_Wait still finds them), inactive and null
 *                                        requests as MPI_Testany/all/some do;
 *   MPI_Status_get/set_source/tag/error  a status's public fields;
 *   MPI_Type_get_value_index             the MINLOC/MAXLOC pair types, MPI_DATATYPE_NULL else;
 *   MPI_Remove_error_class/code/string   what MPI_Add_error_* added, taken back
 *                                        (MPI_LASTUSEDCODE follows), a class after its
 *                                        codes, a class or code after its string;
 *   MPI_Get_hw_resource_info             a new info object, which the program frees.
 * Needs 2 ranks or more; ranks 0 and 1 exchange, the others only check the local calls. */
#include "mtest.h"

#include <string.h>

static int check_get_status(int rank)
{
    int errs = 0;
    int out[2] = {11, 22}, in[2] = {-1, -1};
    MPI_Request r[3] = {MPI_REQUEST_NULL, MPI_REQUEST_NULL, MPI_REQUEST_NULL};
    MPI_Status st[3];
    int flag = -1, index = -2, outcount = -3, indices[3];

    if (rank == 1) {
        /* Receives that rank 0 answers only after a barrier: not complete before it. */
        MPI_Irecv(&in[0], 1, MPI_INT, 0, 7, MPI_COMM_WORLD, &r[0]);
        MPI_Irecv(&in[1], 1, MPI_INT, 0, 8, MPI_COMM_WORLD, &r[1]);
        MTEST_CHECK_RC(errs, MPI_Request_get_status_all(3, r, &flag, st), "get_status_all early");
        MTEST_CHECK_INT(errs, 0, flag, "get_status_all before the sends");
        MTEST_CHECK_RC(errs, MPI_Request_get_status_some(3, r, &outcount, indices, st),
                       "get_status_some early");
        MTEST_CHECK_INT(errs, 0, outcount, "get_status_some before the sends");
        MTEST_CHECK_RC(errs, MPI_Request_get_status_any(3, r, &index, &flag, &st[0]),
                       "get_status_any early");
        MTEST_CHECK_INT(errs, 0, flag, "get_status_any before the sends");
        MTEST_CHECK_INT(errs, MPI_UNDEFINED, index, "get_status_any index before the sends");
        MPI_Barrier(MPI_COMM_WORLD);
        /* Tag 8 first: once it is there, _any and _some name it alone. */
        do {
            MPI_Request_get_status_some(3, r, &outcount, indices, st);
        } while (outcount == 0);
        MTEST_CHECK_INT(errs, 1, outcount, "get_status_some: one request done");
        MTEST_CHECK_INT(errs, 1, indices[0], "get_status_some: the tag-8 receive");
        MTEST_CHECK_INT(errs, 8, st[0].MPI_TAG, "get_status_some: its tag");
        MTEST_CHECK_INT(errs, MPI_SUCCESS, st[0].MPI_ERROR, "get_status_some: its MPI_ERROR");
        MTEST_CHECK_RC(errs, MPI_Request_get_status_any(3, r, &index, &flag, &st[1]),
                       "get_status_any");
        MTEST_CHECK_INT(errs, 1, flag, "get_status_any flag");
        MTEST_CHECK_INT(errs, 1, index, "get_status_any index");
        MTEST_CHECK_INT(errs, 0, st[1].MPI_SOURCE, "get_status_any source");
        if (r[1] == MPI_REQUEST_NULL)
            MTEST_FAIL(errs, "get_status_any freed the request");
        MPI_Barrier(MPI_COMM_WORLD); /* rank 0 sends tag 7 now */
        do {
            MPI_Request_get_status_all(3, r, &flag, st);
        } while (!flag);
        MTEST_CHECK_INT(errs, 7, st[0].MPI_TAG, "get_status_all: first status's tag");
        MTEST_CHECK_INT(errs, 8, st[1].MPI_TAG, "get_status_all: second status's tag");
        MTEST_CHECK_INT(errs, MPI_ANY_SOURCE, st[2].MPI_SOURCE,
                        "get_status_all: the null request's empty status");
        /* The requests are still there, complete: MPI_Waitall frees them. */
        if (r[0] == MPI_REQUEST_NULL || r[1] == MPI_REQUEST_NULL)
            MTEST_FAIL(errs, "get_status_all freed a request");
        MTEST_CHECK_RC(errs, MPI_Waitall(3, r, st), "Waitall after get_status_all");
        MTEST_CHECK_INT(errs, 11, in[0], "data of tag 7");
        MTEST_CHECK_INT(errs, 22, in[1], "data of tag 8");
    } else if (rank == 0) {
        MPI_Barrier(MPI_COMM_WORLD);
        MPI_Send(&out[1], 1, MPI_INT, 1, 8, MPI_COMM_WORLD);
        MPI_Barrier(MPI_COMM_WORLD);
        MPI_Send(&out[0], 1, MPI_INT, 1, 7, MPI_COMM_WORLD);
    } else {
        MPI_Barrier(MPI_COMM_WORLD);
        MPI_Barrier(MPI_COMM_WORLD);
    }

    /* Only null requests: flag true, MPI_UNDEFINED, empty statuses. */
    MPI_Request nulls[2] = {MPI_REQUEST_NULL, MPI_REQUEST_NULL};
    MTEST_CHECK_RC(errs, MPI_Request_get_status_any(2, nulls, &index, &flag, &st[0]),
                   "get_status_any of null requests");
    MTEST_CHECK_INT(errs, 1, flag, "get_status_any of null requests: flag");
    MTEST_CHECK_INT(errs, MPI_UNDEFINED, index, "get_status_any of null requests: index");
    MTEST_CHECK_RC(errs, MPI_Request_get_status_some(2, nulls, &outcount, indices, st),
                   "get_status_some of null requests");
    MTEST_CHECK_INT(errs, MPI_UNDEFINED, outcount, "get_status_some of null requests");
    MTEST_CHECK_RC(errs, MPI_Request_get_status_all(2, nulls, &flag, MPI_STATUSES_IGNORE),
                   "get_status_all of null requests");
    MTEST_CHECK_INT(errs, 1, flag, "get_status_all of null requests: flag");
    /* A persistent request not started is inactive: the same. */
    MPI_Request p;
    MPI_Send_init(out, 1, MPI_INT, 0, 3, MPI_COMM_SELF, &p);
    MTEST_CHECK_RC(errs, MPI_Request_get_status_any(1, &p, &index, &flag, &st[0]),
                   "get_status_any of an inactive request");
    MTEST_CHECK_INT(errs, MPI_UNDEFINED, index, "get_status_any of an inactive request");
    MPI_Request_free(&p);

    /* Bad arguments. */
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    errs += mtest_check_class(MPI_Request_get_status_all(-1, nulls, &flag, st), MPI_ERR_COUNT,
                              "get_status_all with count -1");
    errs += mtest_check_class(MPI_Request_get_status_any(2, nulls, NULL, &flag, &st[0]),
                              MPI_ERR_ARG, "get_status_any with index NULL");
    errs += mtest_check_class(MPI_Request_get_status_some(2, nulls, NULL, indices, st),
                              MPI_ERR_ARG, "get_status_some with outcount NULL");
    MPI_Request bogus[1] = {(MPI_Request)0x7ead};
    errs += mtest_check_class(MPI_Request_get_status_all(1, bogus, &flag, st), MPI_ERR_REQUEST,
                              "get_status_all of a bad handle");
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
    return errs;
}

static int check_status_fields(void)
{
    int errs = 0, v = -1;
    MPI_Status st;
    MTEST_CHECK_RC(errs, MPI_Status_set_source(&st, 5), "Status_set_source");
    MTEST_CHECK_RC(errs, MPI_Status_set_tag(&st, 77), "Status_set_tag");
    MTEST_CHECK_RC(errs, MPI_Status_set_error(&st, MPI_ERR_TRUNCATE), "Status_set_error");
    MTEST_CHECK_INT(errs, 5, st.MPI_SOURCE, "MPI_SOURCE after Status_set_source");
    MTEST_CHECK_INT(errs, 77, st.MPI_TAG, "MPI_TAG after Status_set_tag");
    MTEST_CHECK_RC(errs, MPI_Status_get_source(&st, &v), "Status_get_source");
    MTEST_CHECK_INT(errs, 5, v, "Status_get_source");
    MTEST_CHECK_RC(errs, MPI_Status_get_tag(&st, &v), "Status_get_tag");
    MTEST_CHECK_INT(errs, 77, v, "Status_get_tag");
    MTEST_CHECK_RC(errs, MPI_Status_get_error(&st, &v), "Status_get_error");
    MTEST_CHECK_INT(errs, MPI_ERR_TRUNCATE, v, "Status_get_error");
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    errs += mtest_check_class(MPI_Status_get_tag(MPI_STATUS_IGNORE, &v), MPI_ERR_ARG,
                              "Status_get_tag of MPI_STATUS_IGNORE");
    errs += mtest_check_class(MPI_Status_get_source(&st, NULL), MPI_ERR_ARG,
                              "Status_get_source into NULL");
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
    return errs;
}

static int check_value_index(void)
{
    static const struct {
        MPI_Datatype value, index, pair;
        const char *name;
    } pairs[] = {
        {MPI_FLOAT, MPI_INT, MPI_FLOAT_INT, "MPI_FLOAT_INT"},
        {MPI_DOUBLE, MPI_INT, MPI_DOUBLE_INT, "MPI_DOUBLE_INT"},
        {MPI_LONG, MPI_INT, MPI_LONG_INT, "MPI_LONG_INT"},
        {MPI_INT, MPI_INT, MPI_2INT, "MPI_2INT"},
        {MPI_SHORT, MPI_INT, MPI_SHORT_INT, "MPI_SHORT_INT"},
        {MPI_LONG_DOUBLE, MPI_INT, MPI_LONG_DOUBLE_INT, "MPI_LONG_DOUBLE_INT"},
        {MPI_INT, MPI_LONG, MPI_DATATYPE_NULL, "no pair (int, long)"},
        {MPI_CHAR, MPI_INT, MPI_DATATYPE_NULL, "no pair (char, int)"},
    };
    int errs = 0;
    for (size_t i = 0; i < sizeof pairs / sizeof pairs[0]; i++) {
        MPI_Datatype t = MPI_BYTE;
        MTEST_CHECK_RC(errs, MPI_Type_get_value_index(pairs[i].value, pairs[i].index, &t),
                       "Type_get_value_index for %s", pairs[i].name);
        if (t != pairs[i].pair)
            MTEST_FAIL(errs, "Type_get_value_index: %#x, expected %s", (unsigned)t,
                       pairs[i].name);
    }
    MPI_Datatype t;
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    errs += mtest_check_class(MPI_Type_get_value_index(MPI_DATATYPE_NULL, MPI_INT, &t),
                              MPI_ERR_TYPE, "Type_get_value_index of MPI_DATATYPE_NULL");
    errs += mtest_check_class(MPI_Type_get_value_index(MPI_INT, MPI_INT, NULL), MPI_ERR_ARG,
                              "Type_get_value_index into NULL");
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
    return errs;
}

static int last_used(void)
{
    int *v = NULL, flag = 0;
    MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_LASTUSEDCODE, &v, &flag);
    return flag ? *v : -1;
}

static int check_remove_error(void)
{
    int errs = 0, cls = -1, code = -1, cls2 = -1, len = -1, got = -1;
    char text[MPI_MAX_ERROR_STRING];
    int before = last_used();
    MTEST_CHECK_RC(errs, MPI_Add_error_class(&cls), "Add_error_class");
    MTEST_CHECK_RC(errs, MPI_Add_error_code(cls, &code), "Add_error_code");
    MTEST_CHECK_RC(errs, MPI_Add_error_string(code, "a code of mine"), "Add_error_string");
    MTEST_CHECK_RC(errs, MPI_Add_error_class(&cls2), "second Add_error_class");
    MTEST_CHECK_INT(errs, cls2, last_used(), "MPI_LASTUSEDCODE after two classes");

    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    errs += mtest_check_class(MPI_Remove_error_class(cls), MPI_ERR_OTHER,
                              "Remove_error_class of a class that has a code");
    errs += mtest_check_class(MPI_Remove_error_code(cls), MPI_ERR_ARG,
                              "Remove_error_code of a class");
    errs += mtest_check_class(MPI_Remove_error_class(MPI_ERR_TRUNCATE), MPI_ERR_ARG,
                              "Remove_error_class of a predefined class");
    /* MPI-4.1 sec. 9.5: erroneous, and detected: a code or class goes after its string. */
    errs += mtest_check_class(MPI_Remove_error_code(code), MPI_ERR_OTHER,
                              "Remove_error_code of a code that has a string");
    errs += mtest_check_class(MPI_Remove_error_string(cls), MPI_ERR_ARG,
                              "Remove_error_string of a class that has no string");
    MTEST_CHECK_RC(errs, MPI_Error_string(code, text, &len), "Error_string before the removal");
    MTEST_CHECK_INT(errs, (int)strlen("a code of mine"), len, "length of the string kept");
    MTEST_CHECK_RC(errs, MPI_Remove_error_string(code), "Remove_error_string");
    errs += mtest_check_class(MPI_Remove_error_string(code), MPI_ERR_ARG,
                              "Remove_error_string twice");
    MTEST_CHECK_RC(errs, MPI_Error_string(code, text, &len), "Error_string after the removal");
    MTEST_CHECK_INT(errs, 0, len, "length of a removed string");
    MTEST_CHECK_RC(errs, MPI_Remove_error_code(code), "Remove_error_code");
    errs += mtest_check_class(MPI_Error_class(code, &got), MPI_ERR_ARG,
                              "Error_class of a removed code");
    errs += mtest_check_class(MPI_Remove_error_code(code), MPI_ERR_ARG,
                              "Remove_error_code twice");
    MTEST_CHECK_RC(errs, MPI_Remove_error_class(cls), "Remove_error_class after its code");
    MTEST_CHECK_INT(errs, cls2, last_used(), "MPI_LASTUSEDCODE after removing the first class");
    MTEST_CHECK_RC(errs, MPI_Add_error_string(cls2, "a class of mine"), "Add_error_string");
    errs += mtest_check_class(MPI_Remove_error_class(cls2), MPI_ERR_OTHER,
                              "Remove_error_class of a class that has a string");
    MTEST_CHECK_INT(errs, cls2, last_used(), "MPI_LASTUSEDCODE after a refused removal");
    MTEST_CHECK_RC(errs, MPI_Remove_error_string(cls2), "Remove_error_string of a class");
    MTEST_CHECK_RC(errs, MPI_Remove_error_class(cls2), "Remove_error_class of the last class");
    MTEST_CHECK_INT(errs, before, last_used(), "MPI_LASTUSEDCODE back where it was");
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
    return errs;
}

static int check_hw_info(void)
{
    int errs = 0, nkeys = -1;
    MPI_Info info = MPI_INFO_NULL;
    MTEST_CHECK_RC(errs, MPI_Get_hw_resource_info(&info), "Get_hw_resource_info");
    if (info == MPI_INFO_NULL)
        MTEST_FAIL(errs, "Get_hw_resource_info gave MPI_INFO_NULL");
    else {
        MTEST_CHECK_RC(errs, MPI_Info_get_nkeys(info, &nkeys), "Info_get_nkeys of it");
        if (nkeys < 0)
            MTEST_FAIL(errs, "Info_get_nkeys gave %d", nkeys);
        MTEST_CHECK_RC(errs, MPI_Info_free(&info), "Info_free of it");
    }
    return errs;
}

int main(int argc, char **argv)
{
    int errs = 0, rank, size;
    MTest_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (size < 2) {
        fprintf(stderr, "mpi41_calls needs 2 ranks\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    errs += check_get_status(rank);
    errs += check_status_fields();
    errs += check_value_index();
    errs += check_remove_error();
    errs += check_hw_info();
    return MTest_Finalize(errs);
}
