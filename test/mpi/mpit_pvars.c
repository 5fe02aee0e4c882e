/* mpit_pvars.c: MPI_T performance variables: the calls before MPI_T_init_thread, the variables
 * that appear at MPI_Init (MPI_T_category_changed), every variable's information and index
 * back, sessions and handles (a handle of one session is not one of another, freed handles and
 * sessions become null), start/stop/write/reset/readreset of continuous and read-only variables
 * refused and MPI_T_PVAR_ALL_HANDLES accepted, invalid indexes.  Against Ferry also: counters
 * move by exactly what known sends do (eager_sent, eager_bytes, rndv_sent on the sender,
 * unexpected on the receiver), the level variables of the receive queues (posted receives,
 * unexpected messages and their bytes) follow what the receiver holds, and after MPI_Finalize
 * the handles still read the final values.  2 ranks (any number >= 2). */
#include <stdlib.h>
#include "mpit_common.h"

#define NEAGER 5
#define EAGER_BYTES 8
#define RNDV_BYTES (1 << 20)

/* Every variable: information, index back; a handle for each one bound to no object, read. */
static void check_all(MPI_T_pvar_session session)
{
    int n = -1, rc = MPI_T_pvar_get_num(&n);
    CHECK(rc == MPI_SUCCESS && n >= 0, "MPI_T_pvar_get_num: %s, %d", mpit_errname(rc), n);
    for (int i = 0; i < n; i++) {
        char name[256], desc[1024];
        int name_len = sizeof(name), desc_len = sizeof(desc), verbosity, var_class, bind, readonly,
            continuous, atomic, index = -1, count = -1;
        MPI_Datatype type;
        MPI_T_enum e;
        rc = MPI_T_pvar_get_info(i, name, &name_len, &verbosity, &var_class, &type, &e, desc,
                                 &desc_len, &bind, &readonly, &continuous, &atomic);
        if (MPIT_DELETED(rc))
            continue;
        CHECK(rc == MPI_SUCCESS, "MPI_T_pvar_get_info(%d): %s", i, mpit_errname(rc));
        if (rc != MPI_SUCCESS)
            continue;
        CHECK(name_len == (int)strlen(name) + 1 && name[0], "pvar %d: name \"%s\", length %d", i,
              name, name_len);
        CHECK(var_class >= MPI_T_PVAR_CLASS_STATE && var_class <= MPI_T_PVAR_CLASS_GENERIC,
              "pvar %s: class %d", name, var_class);
        rc = MPI_T_pvar_get_index(name, var_class, &index);
        CHECK(rc == MPI_SUCCESS && index == i, "MPI_T_pvar_get_index(%s): %s, %d, expected %d",
              name, mpit_errname(rc), index, i);
        if (bind != MPI_T_BIND_NO_OBJECT)
            continue;
        MPI_T_pvar_handle h;
        rc = MPI_T_pvar_handle_alloc(session, i, NULL, &h, &count);
        CHECK(rc == MPI_SUCCESS && count > 0, "pvar %s: handle: %s, count %d", name,
              mpit_errname(rc), count);
        if (rc != MPI_SUCCESS)
            continue;
        char *value = calloc((size_t)count, 16);
        if (continuous) {
            CHECK_RC(MPI_T_pvar_start(session, h), MPI_T_ERR_PVAR_NO_STARTSTOP,
                     "MPI_T_pvar_start of a continuous variable");
            CHECK_RC(MPI_T_pvar_stop(session, h), MPI_T_ERR_PVAR_NO_STARTSTOP,
                     "MPI_T_pvar_stop of a continuous variable");
        }
        rc = MPI_T_pvar_read(session, h, value);
        CHECK(rc == MPI_SUCCESS, "MPI_T_pvar_read(%s): %s", name, mpit_errname(rc));
        /* (Open MPI 4.1 answers MPI_T_ERR_INVALID or _INVALID_HANDLE there) */
        if (readonly && !MPIT_OPEN_MPI) {
            CHECK_RC(MPI_T_pvar_write(session, h, value), MPI_T_ERR_PVAR_NO_WRITE,
                     "MPI_T_pvar_write of a read-only variable");
            CHECK_RC(MPI_T_pvar_reset(session, h), MPI_T_ERR_PVAR_NO_WRITE,
                     "MPI_T_pvar_reset of a read-only variable");
            rc = MPI_T_pvar_readreset(session, h, value);
            CHECK(rc == MPI_T_ERR_PVAR_NO_WRITE || (!atomic && rc == MPI_T_ERR_PVAR_NO_ATOMIC),
                  "MPI_T_pvar_readreset of read-only %s: %s", name, mpit_errname(rc));
        }
        free(value);
        /* The handle stays: MPI_T_pvar_session_free frees it. */
    }
    int index, count;
    MPI_T_pvar_handle h;
#ifdef FERRY_VERSION
    /* (MPICH 4.0.2 crashes on index num_pvar, Open MPI 4.1 on -1) */
    CHECK_RC(MPI_T_pvar_get_info(-1, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL,
                                 NULL, NULL),
             MPI_T_ERR_INVALID_INDEX, "MPI_T_pvar_get_info(-1)");
    CHECK_RC(MPI_T_pvar_get_info(n, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL,
                                 NULL, NULL),
             MPI_T_ERR_INVALID_INDEX, "MPI_T_pvar_get_info(num_pvar)");
    CHECK_RC(MPI_T_pvar_handle_alloc(session, n, NULL, &h, &count), MPI_T_ERR_INVALID_INDEX,
             "MPI_T_pvar_handle_alloc(num_pvar)"); /* (MPICH 4.0.2 crashes) */
#endif
    CHECK_RC(MPI_T_pvar_get_index("no_such_variable_at_all", MPI_T_PVAR_CLASS_COUNTER, &index),
             MPI_T_ERR_INVALID_NAME, "MPI_T_pvar_get_index(no_such_variable_at_all)");
}

/* Handles and sessions: one session's handle is not another's; ALL_HANDLES; freeing. */
static void check_sessions(void)
{
    int n, count;
    MPI_T_pvar_get_num(&n);
    MPI_T_pvar_session a, b;
    CHECK_RC(MPI_T_pvar_session_create(&a), MPI_SUCCESS, "MPI_T_pvar_session_create");
    CHECK_RC(MPI_T_pvar_session_create(&b), MPI_SUCCESS, "MPI_T_pvar_session_create");
    check_all(a);
    /* Every variable's handle is in a: start, stop and reset of all of them skip the continuous
     * and read-only ones. */
    int startable = 0, writable = 0;
    for (int i = 0; i < n; i++) {
        int readonly = 1, continuous = 1;
        if (MPI_T_pvar_get_info(i, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, &readonly,
                                &continuous, NULL) == MPI_SUCCESS) {
            startable |= !continuous;
            writable |= !readonly;
        }
    }
    if (!startable) {
        CHECK_RC(MPI_T_pvar_start(a, MPI_T_PVAR_ALL_HANDLES), MPI_SUCCESS,
                 "MPI_T_pvar_start(MPI_T_PVAR_ALL_HANDLES)");
        CHECK_RC(MPI_T_pvar_stop(a, MPI_T_PVAR_ALL_HANDLES), MPI_SUCCESS,
                 "MPI_T_pvar_stop(MPI_T_PVAR_ALL_HANDLES)");
    }
    if (!writable)
        CHECK_RC(MPI_T_pvar_reset(a, MPI_T_PVAR_ALL_HANDLES), MPI_SUCCESS,
                 "MPI_T_pvar_reset(MPI_T_PVAR_ALL_HANDLES)");
    unsigned long long value[64];
    /* "cannot be used" (MPI-4.1 sec. 15.3.7) names no class: MPICH and Ferry say
     * MPI_T_ERR_INVALID. */
    int rc = MPI_T_pvar_read(a, MPI_T_PVAR_ALL_HANDLES, value);
    CHECK(rc == MPI_T_ERR_INVALID || rc == MPI_T_ERR_INVALID_HANDLE,
          "MPI_T_pvar_read(MPI_T_PVAR_ALL_HANDLES): %s", mpit_errname(rc));
#ifdef FERRY_VERSION /* (Open MPI 4.1 crashes) */
    CHECK_RC(MPI_T_pvar_start(MPI_T_PVAR_SESSION_NULL, MPI_T_PVAR_ALL_HANDLES),
             MPI_T_ERR_INVALID_SESSION, "MPI_T_pvar_start(MPI_T_PVAR_SESSION_NULL)");
#endif
    if (n > 0) {
        MPI_T_pvar_handle h;
        int bind = -1;
        MPI_T_pvar_get_info(0, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, &bind, NULL, NULL,
                            NULL);
        if (bind == MPI_T_BIND_NO_OBJECT &&
            MPI_T_pvar_handle_alloc(a, 0, NULL, &h, &count) == MPI_SUCCESS && count <= 64) {
            CHECK_RC(MPI_T_pvar_read(b, h, value), MPI_T_ERR_INVALID_HANDLE,
                     "MPI_T_pvar_read with another session's handle");
#ifndef OPEN_MPI /* (Open MPI 4.1 frees it) */
            CHECK_RC(MPI_T_pvar_handle_free(b, &h), MPI_T_ERR_INVALID_HANDLE,
                     "MPI_T_pvar_handle_free with another session");
#endif
            CHECK_RC(MPI_T_pvar_handle_free(a, &h), MPI_SUCCESS, "MPI_T_pvar_handle_free");
            CHECK(h == MPI_T_PVAR_HANDLE_NULL, "a freed handle is not MPI_T_PVAR_HANDLE_NULL");
        }
    }
    CHECK_RC(MPI_T_pvar_session_free(&a), MPI_SUCCESS, "MPI_T_pvar_session_free");
    CHECK(a == MPI_T_PVAR_SESSION_NULL, "a freed session is not MPI_T_PVAR_SESSION_NULL");
    CHECK_RC(MPI_T_pvar_session_free(&b), MPI_SUCCESS, "MPI_T_pvar_session_free");
}

#ifdef FERRY_VERSION
static long counter(MPI_T_pvar_session s, const char *name)
{
    return mpit_ferry_counter(s, name, MPI_T_PVAR_CLASS_COUNTER);
}
static long level(MPI_T_pvar_session s, const char *name)
{
    return mpit_ferry_counter(s, name, MPI_T_PVAR_CLASS_LEVEL);
}

#define CHECK_MOVED(name, before, after, expected)                                                 \
    CHECK((after) - (before) == (expected), "%s moved by %ld, expected %ld", name,                 \
          (long)((after) - (before)), (long)(expected))

/* Rank 0 sends NEAGER small messages and one large one to rank 1: its counters move by exactly
 * that.  Then two messages wait unexpected at rank 1, and three receives stay posted there. */
static void ferry_counts(MPI_T_pvar_session s, int rank)
{
    char *buf = calloc(RNDV_BYTES, 1);
    char go = 0;
    long eager0 = counter(s, "eager_sent"), bytes0 = counter(s, "eager_bytes"),
         rndv0 = counter(s, "rndv_sent"), unexp0;
    if (rank == 0) {
        /* Each receive is posted before its send (the go message), so none is unexpected. */
        for (int k = 0; k < NEAGER; k++) {
            MPI_Recv(&go, 1, MPI_CHAR, 1, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            MPI_Send(buf, EAGER_BYTES, MPI_CHAR, 1, 0, MPI_COMM_WORLD);
        }
        long eager1 = counter(s, "eager_sent"), bytes1 = counter(s, "eager_bytes");
        MPI_Send(buf, RNDV_BYTES, MPI_CHAR, 1, 0, MPI_COMM_WORLD);
        long rndv1 = counter(s, "rndv_sent");
        /* (the go messages are rank 1's sends, not ours) */
        CHECK_MOVED("eager_sent", eager0, eager1, NEAGER);
        CHECK_MOVED("eager_bytes", bytes0, bytes1, NEAGER * EAGER_BYTES);
        CHECK_MOVED("rndv_sent", rndv0, rndv1, 1);
        CHECK(mpit_ferry_counter(s, "eager_bytes_max", MPI_T_PVAR_CLASS_HIGHWATERMARK) >=
                  EAGER_BYTES,
              "eager_bytes_max below %d", EAGER_BYTES);
        /* Two messages that rank 1 has not posted for yet. */
        MPI_Recv(&go, 1, MPI_CHAR, 1, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        MPI_Send(buf, EAGER_BYTES, MPI_CHAR, 1, 2, MPI_COMM_WORLD);
        MPI_Send(buf, 2 * EAGER_BYTES, MPI_CHAR, 1, 3, MPI_COMM_WORLD);
    } else if (rank == 1) {
        MPI_Request r;
        for (int k = 0; k < NEAGER; k++) {
            MPI_Irecv(buf, EAGER_BYTES, MPI_CHAR, 0, 0, MPI_COMM_WORLD, &r);
            MPI_Send(&go, 1, MPI_CHAR, 0, 1, MPI_COMM_WORLD);
            MPI_Wait(&r, MPI_STATUS_IGNORE);
        }
        MPI_Recv(buf, RNDV_BYTES, MPI_CHAR, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        unexp0 = counter(s, "unexpected");

        long posted0 = level(s, "recvq_posted"), held0 = level(s, "recvq_unexpected"),
             bytes_held0 = level(s, "recvq_unexpected_bytes");
        MPI_Request rs[3];
        for (int k = 0; k < 3; k++)
            MPI_Irecv(buf, 1, MPI_CHAR, 0, 100 + k, MPI_COMM_WORLD, &rs[k]);
        CHECK_MOVED("recvq_posted", posted0, level(s, "recvq_posted"), 3);
        MPI_Send(&go, 1, MPI_CHAR, 0, 1, MPI_COMM_WORLD);
        /* Messages from one sender arrive in order: once tag 3 is probed, tag 2 is in too. */
        MPI_Probe(0, 3, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        CHECK_MOVED("recvq_unexpected", held0, level(s, "recvq_unexpected"), 2);
        CHECK_MOVED("recvq_unexpected_bytes", bytes_held0, level(s, "recvq_unexpected_bytes"),
                    3 * EAGER_BYTES);
        CHECK_MOVED("unexpected", unexp0, counter(s, "unexpected"), 2);
        MPI_Recv(buf, EAGER_BYTES, MPI_CHAR, 0, 2, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        MPI_Recv(buf, 2 * EAGER_BYTES, MPI_CHAR, 0, 3, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        CHECK_MOVED("recvq_unexpected", held0, level(s, "recvq_unexpected"), 0);
        CHECK_MOVED("recvq_unexpected_bytes", bytes_held0, level(s, "recvq_unexpected_bytes"), 0);
        for (int k = 0; k < 3; k++)
            MPI_Cancel(&rs[k]);
        MPI_Waitall(3, rs, MPI_STATUSES_IGNORE);
        CHECK_MOVED("recvq_posted", posted0, level(s, "recvq_posted"), 0);
    }
    free(buf);
}

/* After MPI_Finalize a handle reads what the counter said at the end. */
static void ferry_after_finalize(MPI_T_pvar_session s, MPI_T_pvar_handle h, unsigned long last,
                                 int num)
{
    unsigned long v = 0, again = 1;
    CHECK_RC(MPI_T_pvar_read(s, h, &v), MPI_SUCCESS, "MPI_T_pvar_read after MPI_Finalize");
    CHECK(v >= last, "eager_sent reads %lu after MPI_Finalize, %lu before", v, last);
    MPI_T_pvar_read(s, h, &again);
    CHECK(again == v, "eager_sent after MPI_Finalize changes: %lu then %lu", v, again);
    int n = -1;
    MPI_T_pvar_get_num(&n);
    CHECK(n == num, "%d performance variables after MPI_Finalize, %d before", n, num);
}
#endif

int main(int argc, char **argv)
{
    int n0 = -1, n1 = -1, provided, rank, stamp0 = -1, stamp1 = -1;
    MPI_T_pvar_session s;
    CHECK_RC(MPI_T_pvar_get_num(&n0), MPI_T_ERR_NOT_INITIALIZED, "MPI_T_pvar_get_num before init");
    CHECK_RC(MPI_T_pvar_session_create(&s), MPI_T_ERR_NOT_INITIALIZED,
             "MPI_T_pvar_session_create before init");
    CHECK_RC(MPI_T_init_thread(MPI_THREAD_SINGLE, &provided), MPI_SUCCESS, "MPI_T_init_thread");
    MPI_T_category_changed(&stamp0);
    MPI_T_pvar_get_num(&n0);
#ifndef OPEN_MPI /* (Open MPI 4.1's psm2 variables crash MPI_T_pvar_handle_alloc before MPI_Init)  \
                  */
    check_sessions();
#endif
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_T_category_changed(&stamp1);
    MPI_T_pvar_get_num(&n1);
    CHECK(n1 >= n0, "%d performance variables before MPI_Init, %d after", n0, n1);
    CHECK(n1 == n0 || stamp1 != stamp0,
          "MPI_T_category_changed gives %d before and after "
          "MPI_Init, while the variables went from %d to %d",
          stamp0, n0, n1);
#ifdef FERRY_VERSION
    CHECK(n0 == 0 && n1 > 0, "Ferry's counters appear at MPI_Init: %d before, %d after", n0, n1);
#endif
    check_sessions();
    MPI_T_pvar_session_create(&s);
#ifdef FERRY_VERSION
    ferry_counts(s, rank);
    MPI_T_pvar_handle h;
    int index, count;
    unsigned long last = 0;
    MPI_T_pvar_get_index("eager_sent", MPI_T_PVAR_CLASS_COUNTER, &index);
    MPI_T_pvar_handle_alloc(s, index, NULL, &h, &count);
    MPI_T_pvar_read(s, h, &last);
#endif
    int all = mpit_errs_before_finalize();
    MPI_Finalize();
#ifdef FERRY_VERSION
    ferry_after_finalize(s, h, last, n1);
    check_sessions();
#endif
    MPI_T_pvar_session_free(&s);
#ifndef OPEN_MPI /* (Open MPI 4.1 crashes in MPI_T_finalize after MPI_Finalize) */
    CHECK_RC(MPI_T_finalize(), MPI_SUCCESS, "MPI_T_finalize");
    CHECK_RC(MPI_T_pvar_get_num(&n0), MPI_T_ERR_NOT_INITIALIZED,
             "MPI_T_pvar_get_num after MPI_T_finalize");
#endif
    return mpit_report(rank, all);
}
