/* mpit_errors.c: how MPI_T reports errors: every MPI_T_ERR_ class is a distinct error class
 * that MPI_Error_class and MPI_Error_string know; each family of calls before
 * MPI_T_init_thread returns MPI_T_ERR_NOT_INITIALIZED; failing calls return their class and
 * never call the error handler (a counting handler on MPI_COMM_WORLD stays at 0); null handles
 * and sessions are refused.  Against Ferry also: a thread level that is none is refused, and the
 * event and source calls answer as for a library with no event types and no sources.  1 rank
 * (any number). */
#include <stdlib.h>
#include "mpit_common.h"

static int handler_calls;
static void count_calls(MPI_Comm *comm, int *code, ...)
{
    handler_calls++;
}

static void check_classes(void)
{
    size_t n = sizeof(mpit_classes) / sizeof(mpit_classes[0]);
    for (size_t i = 1; i < n; i++) {
        int code = mpit_classes[i].code, cls = -1, len = 0, rc;
        char text[MPI_MAX_ERROR_STRING];
        rc = MPI_Error_class(code, &cls);
        CHECK(rc == MPI_SUCCESS && cls == code, "MPI_Error_class(%s): %d, class %d",
              mpit_classes[i].name, rc, cls);
        rc = MPI_Error_string(code, text, &len);
        CHECK(rc == MPI_SUCCESS && len > 0, "MPI_Error_string(%s): %d, length %d",
              mpit_classes[i].name, rc, len);
        CHECK(code > MPI_SUCCESS && code <= MPI_ERR_LASTCODE, "%s is %d", mpit_classes[i].name,
              code);
        for (size_t j = 1; j < i; j++)
            CHECK(mpit_classes[j].code != code, "%s and %s are both %d", mpit_classes[j].name,
                  mpit_classes[i].name, code);
    }
}

/* One call of each family before MPI_T_init_thread (and after the last MPI_T_finalize). */
static void check_not_initialized(const char *when)
{
    int n, index;
    char what[128];
#define NOT_INIT(call)                                                                             \
    snprintf(what, sizeof(what), "%s %s", #call, when);                                            \
    CHECK_RC(call, MPI_T_ERR_NOT_INITIALIZED, what)
    MPI_T_cvar_handle ch = MPI_T_CVAR_HANDLE_NULL;
    MPI_T_pvar_session s = MPI_T_PVAR_SESSION_NULL;
    NOT_INIT(MPI_T_cvar_get_num(&n));
    NOT_INIT(MPI_T_cvar_get_index("x", &index));
    NOT_INIT(MPI_T_cvar_handle_free(&ch));
    NOT_INIT(MPI_T_pvar_get_num(&n));
    NOT_INIT(MPI_T_pvar_session_create(&s));
    NOT_INIT(MPI_T_category_get_num(&n));
    NOT_INIT(MPI_T_category_changed(&n));
    NOT_INIT(MPI_T_enum_get_info(MPI_T_ENUM_NULL, &n, NULL, NULL));
#if MPI_VERSION >= 4 /* (events are MPI-4.0's; Open MPI 4.1 is MPI-3.1) */
    NOT_INIT(MPI_T_event_get_num(&n));
    NOT_INIT(MPI_T_source_get_num(&n));
#endif
    NOT_INIT(MPI_T_finalize());
#undef NOT_INIT
}

/* Failing calls with MPI_COMM_WORLD's handler counting: they return and never call it. */
static void check_no_handler(void)
{
    MPI_Errhandler eh;
    MPI_Comm_create_errhandler(count_calls, &eh);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, eh);
    int n = 0, index, count;
    MPI_T_cvar_handle ch;
    MPI_T_pvar_session s;
    MPI_T_cvar_get_num(&n);
    CHECK_INDEX_RC(MPI_T_cvar_handle_alloc(n, NULL, &ch, &count), "MPI_T_cvar_handle_alloc");
    CHECK_RC(MPI_T_cvar_get_index("no_such_variable_at_all", &index), MPI_T_ERR_INVALID_NAME,
             "MPI_T_cvar_get_index");
    MPI_T_category_get_num(&n);
    CHECK_INDEX_RC(MPI_T_category_get_info(n, NULL, NULL, NULL, NULL, NULL, NULL, NULL),
                   "MPI_T_category_get_info");
    MPI_T_pvar_session_create(&s);
    CHECK_RC(MPI_T_pvar_get_index("no_such_variable_at_all", MPI_T_PVAR_CLASS_COUNTER, &index),
             MPI_T_ERR_INVALID_NAME, "MPI_T_pvar_get_index");
    MPI_T_pvar_session_free(&s);
#ifdef FERRY_VERSION
    /* (MPICH 4.0.2 and Open MPI 4.1 crash on some of these) */
    MPI_T_cvar_handle null_ch = MPI_T_CVAR_HANDLE_NULL;
    MPI_T_pvar_session null_s = MPI_T_PVAR_SESSION_NULL;
    int value;
    CHECK_RC(MPI_T_cvar_read(MPI_T_CVAR_HANDLE_NULL, &value), MPI_T_ERR_INVALID_HANDLE,
             "MPI_T_cvar_read(MPI_T_CVAR_HANDLE_NULL)");
    CHECK_RC(MPI_T_cvar_handle_free(&null_ch), MPI_T_ERR_INVALID_HANDLE,
             "MPI_T_cvar_handle_free(MPI_T_CVAR_HANDLE_NULL)");
    CHECK_RC(MPI_T_pvar_session_free(&null_s), MPI_T_ERR_INVALID_SESSION,
             "MPI_T_pvar_session_free(MPI_T_PVAR_SESSION_NULL)");
    CHECK_RC(MPI_T_enum_get_info(MPI_T_ENUM_NULL, &n, NULL, NULL), MPI_T_ERR_INVALID_HANDLE,
             "MPI_T_enum_get_info(MPI_T_ENUM_NULL)");
    CHECK_RC(MPI_T_cvar_get_num(NULL), MPI_T_ERR_INVALID, "MPI_T_cvar_get_num(NULL)");
#endif
    CHECK(handler_calls == 0, "failing MPI_T calls called the error handler %d times",
          handler_calls);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
    MPI_Errhandler_free(&eh);
}

#ifdef FERRY_VERSION
/* No event types, no sources: counts 0, every index and handle refused. */
static void check_events(void)
{
    int n = -1, ncat = 0, index;
    char name[32];
    int len = sizeof(name);
    MPI_Count t;
    MPI_T_event_registration reg = MPI_T_EVENT_REGISTRATION_NULL;
    CHECK_RC(MPI_T_event_get_num(&n), MPI_SUCCESS, "MPI_T_event_get_num");
    CHECK(n == 0, "%d event types", n);
    CHECK_RC(
        MPI_T_event_get_info(0, name, &len, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL),
        MPI_T_ERR_INVALID_INDEX, "MPI_T_event_get_info(0)");
    CHECK_RC(MPI_T_event_get_index("x", &index), MPI_T_ERR_INVALID_NAME, "MPI_T_event_get_index");
    CHECK_RC(MPI_T_event_handle_alloc(0, NULL, MPI_INFO_NULL, &reg), MPI_T_ERR_INVALID_INDEX,
             "MPI_T_event_handle_alloc(0)");
    CHECK_RC(MPI_T_event_register_callback(reg, MPI_T_CB_REQUIRE_NONE, MPI_INFO_NULL, NULL, NULL),
             MPI_T_ERR_INVALID_HANDLE, "MPI_T_event_register_callback");
    CHECK_RC(MPI_T_event_handle_free(reg, NULL, NULL), MPI_T_ERR_INVALID_HANDLE,
             "MPI_T_event_handle_free");
    CHECK_RC(MPI_T_event_set_dropped_handler(reg, NULL), MPI_T_ERR_INVALID_HANDLE,
             "MPI_T_event_set_dropped_handler");
    CHECK_RC(MPI_T_event_get_timestamp(NULL, &t), MPI_T_ERR_INVALID_HANDLE,
             "MPI_T_event_get_timestamp");
    CHECK_RC(MPI_T_source_get_num(&n), MPI_SUCCESS, "MPI_T_source_get_num");
    CHECK(n == 0, "%d sources", n);
    CHECK_RC(MPI_T_source_get_info(0, name, &len, NULL, NULL, NULL, NULL, NULL, NULL),
             MPI_T_ERR_INVALID_INDEX, "MPI_T_source_get_info(0)");
    CHECK_RC(MPI_T_source_get_timestamp(0, &t), MPI_T_ERR_INVALID_INDEX,
             "MPI_T_source_get_timestamp(0)");
    MPI_T_category_get_num(&ncat);
    for (int c = 0; c < ncat; c++) {
        n = -1;
        CHECK_RC(MPI_T_category_get_num_events(c, &n), MPI_SUCCESS,
                 "MPI_T_category_get_num_events");
        CHECK(n == 0, "category %d has %d events", c, n);
        CHECK_RC(MPI_T_category_get_events(c, 0, NULL), MPI_SUCCESS, "MPI_T_category_get_events");
    }
    CHECK_RC(MPI_T_category_get_num_events(ncat, &n), MPI_T_ERR_INVALID_INDEX,
             "MPI_T_category_get_num_events(num_cat)");
}
#endif

int main(int argc, char **argv)
{
    int provided = -1, rank;
    check_not_initialized("before MPI_T_init_thread");
#ifdef FERRY_VERSION
    CHECK_RC(MPI_T_init_thread(-5, &provided), MPI_T_ERR_INVALID, "MPI_T_init_thread(-5)");
#endif
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    check_classes();
    CHECK_RC(MPI_T_init_thread(MPI_THREAD_FUNNELED, &provided), MPI_SUCCESS, "MPI_T_init_thread");
    CHECK(provided >= MPI_THREAD_SINGLE && provided <= MPI_THREAD_MULTIPLE, "provided %d",
          provided);
    check_no_handler();
#ifdef FERRY_VERSION
    check_events();
#endif
    CHECK_RC(MPI_T_finalize(), MPI_SUCCESS, "MPI_T_finalize");
    check_not_initialized("after MPI_T_finalize");
    int all = mpit_errs_before_finalize();
    MPI_Finalize();
    return mpit_report(rank, all);
}
