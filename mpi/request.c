/* request.c: completion calls: Wait/Test and their -all/-any/-some forms, request status,
 * cancel, free, and the completion of persistent, generalized and composite requests. */
#include <stdlib.h>
#include "mpiimpl.h"

void MPIR_Status_empty(MPI_Status *status)
{
    if (status == MPI_STATUS_IGNORE)
        return;
    status->MPI_SOURCE = MPI_ANY_SOURCE;
    status->MPI_TAG = MPI_ANY_TAG;
    status->MPI_ERROR = MPI_SUCCESS;
    status->count_bytes_ = 0;
    status->cancelled_ = 0;
}

/* The envelope of a receive; a send's status carries only its count (0)
 * and whether it was cancelled. */
static void status_from(MPI_Status *status, const MPI_Status *st, int is_recv, int cancelled)
{
    if (is_recv) {
        status->MPI_SOURCE = st->MPI_SOURCE;
        status->MPI_TAG = st->MPI_TAG;
    }
    status->count_bytes_ = is_recv ? st->count_bytes_ : 0;
    status->cancelled_ = cancelled;
}

void MPIR_Status_set(MPI_Status *status, const MPIR_Request *req)
{
    if (status == MPI_STATUS_IGNORE)
        return;
    int is_recv = req->kind == MPIR_REQ_RECV || req->kind == MPIR_REQ_COMPOSITE ||
                  (req->kind == MPIR_REQ_PERSISTENT && req->u.preq.op == MPIR_PREQ_RECV) ||
                  (req->kind == MPIR_REQ_PART && req->u.part->is_recv);
    status_from(status, &req->status, is_recv, req->cancelled);
    /* MPI_ERROR is written only by the -all/-some calls (MPI-4.1 sec. 3.2.5). */
}

/* A request the completion calls treat as absent: MPI_REQUEST_NULL or an
 * inactive persistent or partitioned request (MPI-4.1 sec. 3.7.3). */
static int is_inactive(const MPIR_Request *req)
{
    return !req || (req->kind == MPIR_REQ_PERSISTENT && !req->u.preq.active) ||
           (req->kind == MPIR_REQ_PART && !req->u.part->active);
}

static int is_done(const MPIR_Request *req)
{
    return MPIR_Request_is_complete(req);
}

/* A generalized request's status comes from its query function. */
static int greq_query(MPIR_Request *req, MPI_Status *status)
{
    MPI_Status st;
    MPIR_Status_empty(&st);
    int err = req->u.greq.query_fn(req->u.greq.extra_state, &st);
    if (!err)
        err = st.MPI_ERROR;
    if (status != MPI_STATUS_IGNORE) {
        int keep = status->MPI_ERROR;
        *status = st;
        status->MPI_ERROR = keep;
    }
    return err;
}

/* MPIR_Request_finish of a send or receive, the common case of every completion call: its
 * status, its release, its handle.  Inline in the loops of the -all/-some calls. */
static inline int finish_pt2pt(MPI_Request *handle, MPIR_Request *req, MPI_Status *status)
{
    if (status != MPI_STATUS_IGNORE)
        status_from(status, &req->status, req->kind == MPIR_REQ_RECV, req->cancelled);
    int err = req->status.MPI_ERROR;
    MPIR_Request_release(req);
    *handle = MPI_REQUEST_NULL;
    return err;
}

static inline int is_pt2pt(const MPIR_Request *req)
{
    return req->kind == MPIR_REQ_SEND || req->kind == MPIR_REQ_RECV;
}

int MPIR_Request_finish(MPI_Request *handle, MPIR_Request *req, MPI_Status *status)
{
    int err;
    if (is_pt2pt(req))
        return finish_pt2pt(handle, req, status);
    switch (req->kind) {
    case MPIR_REQ_PERSISTENT:
        /* The handle survives: the request becomes inactive, ready to start again. */
        if (!req->u.preq.active) {
            MPIR_Status_empty(status);
            return MPI_SUCCESS;
        }
        MPIR_Status_set(status, req);
        req->u.preq.active = 0;
        if (req->linked) { /* the operation is over: a cancel cannot reach it now */
            MPIR_Request *inner = req->linked;
            req->linked = NULL;
            MPIR_Request_release(inner);
        }
        return req->status.MPI_ERROR;
    case MPIR_REQ_PART:
        /* As a persistent request: inactive again, ready for the next round. */
        if (!req->u.part->active) {
            MPIR_Status_empty(status);
            return MPI_SUCCESS;
        }
        MPIR_Status_set(status, req);
        req->u.part->active = 0;
        return req->status.MPI_ERROR;
    case MPIR_REQ_GREQ:
        err = greq_query(req, status);
        if (req->u.greq.free_fn) {
            int ferr = req->u.greq.free_fn(req->u.greq.extra_state);
            if (!err)
                err = ferr;
        }
        break;
    default:
        MPIR_Status_set(status, req);
        err = req->status.MPI_ERROR;
        break;
    }
    MPIR_Request_release(req);
    *handle = MPI_REQUEST_NULL;
    return err;
}

static int check_req(MPI_Request handle, MPIR_Request **req_p)
{
    *req_p = NULL;
    if (handle == MPI_REQUEST_NULL)
        return MPI_SUCCESS;
    *req_p = MPIR_Request_get(handle);
    if (!*req_p || (*req_p)->kind == MPIR_REQ_UNEXP || (*req_p)->parent)
        return MPIR_Err_create(MPI_ERR_REQUEST, "Invalid request handle %#x", (unsigned)handle);
    return MPI_SUCCESS;
}

/* The request objects of an array call.  Up to MPIR_REQ_ARRAY_STACK of them
 * live on the caller's stack: a window of nonblocking calls completed with
 * one Waitall is the common case, and a malloc per call showed in the
 * message rate (issue 12).  128: a bi-directional window (64 receives and
 * 64 sends in one Waitall, as OSU's osu_bibw and bench/latbw.c post) took a
 * malloc per window with 64.  Larger arrays are allocated. */
#define MPIR_REQ_ARRAY_STACK 128
typedef struct {
    MPIR_Request **objs;
    MPIR_Request *stack[MPIR_REQ_ARRAY_STACK];
} req_array_t;

static void array_free(req_array_t *a)
{
    if (a->objs != a->stack)
        free(a->objs);
}

static int check_array(const char *fname, int count, const MPI_Request reqs[],
                       const MPI_Status *statuses, req_array_t *a)
{
    if (count < 0)
        return MPIR_Err_create(MPI_ERR_COUNT, "Negative count %d", count);
    if (count > 0 && !reqs)
        return MPIR_Err_create(MPI_ERR_ARG, "array_of_requests is NULL");
    if (count > 0 && !statuses)
        return MPIR_Err_create(MPI_ERR_ARG, "the statuses are NULL (MPI_STATUSES_IGNORE ignores "
                                            "them)");
    a->objs = count <= MPIR_REQ_ARRAY_STACK ? a->stack : malloc(sizeof(*a->objs) * count);
    if (!a->objs)
        return MPIR_Err_create(MPI_ERR_NO_MEM, "out of memory in %s", fname);
    for (int i = 0; i < count; i++) {
        int err = check_req(reqs[i], &a->objs[i]);
        if (err) {
            array_free(a);
            return err;
        }
    }
    return MPI_SUCCESS;
}

/* The communicator whose error handler a completion call uses: the
 * request's, or MPI_COMM_WORLD's for requests without one (generalized). */
static MPIR_Comm *req_comm(const MPIR_Request *req)
{
    return req && req->comm ? req->comm : MPIR_Comm_get(MPI_COMM_WORLD);
}

/* Finishes one request for a single-request call (Wait, Test, -any). */
static int finish_one(const char *fname, MPI_Request *handle, MPIR_Request *req, MPI_Status *status)
{
    MPIR_Comm *comm = req_comm(req);
    comm->ref++; /* the request may take the last reference with it */
    int err = MPIR_Err_return(comm, fname, MPIR_Request_finish(handle, req, status));
    MPIR_Comm_release(comm);
    return err;
}

static int wait_done(void *arg)
{
    return is_done(arg);
}

void MPIR_Request_wait(MPIR_Request *req)
{
    MPID_Progress_wait(wait_done, req);
}

#pragma weak MPI_Wait = PMPI_Wait
int PMPI_Wait(MPI_Request *request, MPI_Status *status)
{
    MPIR_CHECK_INIT("MPI_Wait");
    MPIR_Request *req = NULL;
    int err = request ? check_req(*request, &req) : MPIR_Err_create(MPI_ERR_ARG, "request is NULL");
    if (!err)
        err = MPIR_Check_status(status);
    if (err)
        return MPIR_Err_return(NULL, "MPI_Wait", err);
    if (is_inactive(req)) {
        MPIR_Status_empty(status);
        return MPI_SUCCESS;
    }
    MPIR_Request_wait(req);
    return finish_one("MPI_Wait", request, req, status);
}

/* The first steps of MPI_Test and MPI_Request_get_status: an inactive request is complete with
 * the empty status and nothing is left to do (returns 0); otherwise one poll when it is not
 * done yet, and *flag says whether it is now (returns 1 when the caller must report it). */
static int test_step(MPIR_Request *req, int *flag, MPI_Status *status)
{
    if (is_inactive(req)) {
        *flag = 1;
        MPIR_Status_empty(status);
        return 0;
    }
    if (!is_done(req))
        MPID_Progress_poll();
    *flag = is_done(req);
    return *flag;
}

#pragma weak MPI_Test = PMPI_Test
int PMPI_Test(MPI_Request *request, int *flag, MPI_Status *status)
{
    MPIR_CHECK_INIT("MPI_Test");
    MPIR_Request *req = NULL;
    int err = request && flag ? check_req(*request, &req)
                              : MPIR_Err_create(MPI_ERR_ARG, "request or flag is NULL");
    if (!err)
        err = MPIR_Check_status(status);
    if (err)
        return MPIR_Err_return(NULL, "MPI_Test", err);
    if (!test_step(req, flag, status))
        return MPI_SUCCESS;
    return finish_one("MPI_Test", request, req, status);
}

/* The status of a complete request for MPI_Request_get_status and its -any/-all/-some forms:
 * like MPI_Test's, but the request stays as it is.  Returns the request's error. */
static int peek(MPIR_Request *req, MPI_Status *status)
{
    if (req->kind == MPIR_REQ_GREQ)
        return greq_query(req, status);
    MPIR_Status_set(status, req);
    return req->status.MPI_ERROR;
}

/* The statuses of the listed requests (all of them when indices is NULL), with MPI_ERROR as the
 * -all/-some calls report it; an inactive request's is the empty status.  Raises
 * MPI_ERR_IN_STATUS when one of them failed, as finish_array does. */
static int peek_array(const char *fname, int count, MPIR_Request **objs, const int *indices,
                      MPI_Status statuses[])
{
    MPIR_Comm *comm = NULL;
    int first_err = MPI_SUCCESS;
    for (int k = 0; k < count; k++) {
        MPIR_Request *req = objs[indices ? indices[k] : k];
        MPI_Status *st = statuses == MPI_STATUSES_IGNORE ? MPI_STATUS_IGNORE : &statuses[k];
        if (req && !comm)
            comm = req_comm(req);
        if (is_inactive(req)) {
            MPIR_Status_empty(st);
            continue;
        }
        int err = peek(req, st);
        if (st != MPI_STATUS_IGNORE)
            st->MPI_ERROR = err;
        if (err && !first_err)
            first_err = err;
    }
    return first_err ? MPIR_Err_return_in_status(comm, fname, first_err) : MPI_SUCCESS;
}

#pragma weak MPI_Request_get_status = PMPI_Request_get_status
int PMPI_Request_get_status(MPI_Request request, int *flag, MPI_Status *status)
{
    MPIR_CHECK_INIT("MPI_Request_get_status");
    MPIR_Request *req = NULL;
    int err = flag ? check_req(request, &req) : MPIR_Err_create(MPI_ERR_ARG, "flag is NULL");
    if (!err)
        err = MPIR_Check_status(status);
    if (err)
        return MPIR_Err_return(NULL, "MPI_Request_get_status", err);
    if (!test_step(req, flag, status))
        return MPI_SUCCESS;
    return MPIR_Err_return(req_comm(req), "MPI_Request_get_status", peek(req, status));
}

typedef struct {
    int count;
    MPIR_Request **objs;
    int first; /* the requests before it are known complete (or inactive) */
} all_arg_t;

/* Requests complete and stay complete, so each poll resumes at the first
 * one not seen complete: a window of n requests costs n checks in all, not
 * n per poll. */
static int all_done(void *arg)
{
    all_arg_t *a = arg;
    for (; a->first < a->count; a->first++)
        if (!is_inactive(a->objs[a->first]) && !is_done(a->objs[a->first]))
            return 0;
    return 1;
}

/* Finishes one request of an -all/-some call: its status with MPI_ERROR (as
 * these calls alone report per request); an inactive one's status is the
 * empty one.  Returns the request's error. */
static inline int finish_listed(MPI_Request *handle, MPIR_Request *req, MPI_Status *st)
{
    if (is_inactive(req)) {
        MPIR_Status_empty(st);
        return MPI_SUCCESS;
    }
    int err = is_pt2pt(req) ? finish_pt2pt(handle, req, st) : MPIR_Request_finish(handle, req, st);
    if (st != MPI_STATUS_IGNORE)
        st->MPI_ERROR = err;
    return err;
}

/* Finishes the requests of an -all/-some call whose index is listed (all of
 * them when indices is NULL); statuses get MPI_ERROR, as these calls alone
 * report per request. */
static int finish_array(const char *fname, int count, MPI_Request reqs[], MPIR_Request **objs,
                        const int *indices, MPI_Status statuses[])
{
    MPIR_Comm *comm = NULL;
    for (int k = 0; k < count && !comm; k++) {
        int i = indices ? indices[k] : k;
        if (objs[i])
            comm = req_comm(objs[i]);
    }
    if (comm)
        comm->ref++; /* finishing may free the requests */
    int first_err = MPI_SUCCESS;
    if (!indices) {
        /* Waitall and Testall, in a loop of their own: no index to look up
         * (issue 12). */
        int ignore = statuses == MPI_STATUSES_IGNORE;
        for (int i = 0; i < count; i++) {
            int err = finish_listed(&reqs[i], objs[i], ignore ? MPI_STATUS_IGNORE : &statuses[i]);
            if (err && !first_err)
                first_err = err;
        }
    } else {
        for (int k = 0; k < count; k++) {
            int i = indices ? indices[k] : k;
            MPI_Status *st =
                statuses == MPI_STATUSES_IGNORE ? MPI_STATUS_IGNORE : &statuses[indices ? k : i];
            int err = finish_listed(&reqs[i], objs[i], st);
            if (err && !first_err)
                first_err = err;
        }
    }
    int ret = MPI_SUCCESS;
    if (first_err != MPI_SUCCESS)
        ret = MPIR_Err_return_in_status(comm, fname, first_err);
    if (comm)
        MPIR_Comm_release(comm);
    return ret;
}

#pragma weak MPI_Waitall = PMPI_Waitall
int PMPI_Waitall(int count, MPI_Request *array_of_requests, MPI_Status *array_of_statuses)
{
    MPIR_CHECK_INIT("MPI_Waitall");
    req_array_t arr;
    int err = check_array("MPI_Waitall", count, array_of_requests, array_of_statuses, &arr);
    if (err)
        return MPIR_Err_return(NULL, "MPI_Waitall", err);
    all_arg_t a = {count, arr.objs, 0};
    MPID_Progress_wait(all_done, &a);
    err = finish_array("MPI_Waitall", count, array_of_requests, arr.objs, NULL, array_of_statuses);
    array_free(&arr);
    return err;
}

#pragma weak MPI_Testall = PMPI_Testall
int PMPI_Testall(int count, MPI_Request *array_of_requests, int *flag,
                 MPI_Status *array_of_statuses)
{
    MPIR_CHECK_INIT("MPI_Testall");
    req_array_t arr;
    int err = flag ? check_array("MPI_Testall", count, array_of_requests, array_of_statuses, &arr)
                   : MPIR_Err_create(MPI_ERR_ARG, "flag is NULL");
    if (err)
        return MPIR_Err_return(NULL, "MPI_Testall", err);
    all_arg_t a = {count, arr.objs, 0};
    if (!all_done(&a))
        MPID_Progress_poll();
    *flag = all_done(&a);
    if (*flag)
        err = finish_array("MPI_Testall", count, array_of_requests, arr.objs, NULL,
                           array_of_statuses);
    array_free(&arr);
    return err;
}

typedef struct {
    int count, index;
    MPIR_Request **objs;
} any_arg_t;

static int any_done(void *arg)
{
    any_arg_t *a = arg;
    for (int i = 0; i < a->count; i++) {
        if (!is_inactive(a->objs[i]) && is_done(a->objs[i])) {
            a->index = i;
            return 1;
        }
    }
    return 0;
}

static int nactive(int count, MPIR_Request **objs)
{
    int n = 0;
    for (int i = 0; i < count; i++)
        n += !is_inactive(objs[i]);
    return n;
}

/* How the -any and -some calls complete: Waitany/some block, Testany/some poll once, and
 * MPI-4.1's Request_get_status_any/some poll once and leave the requests as they are. */
typedef enum { COMPLETE_WAIT, COMPLETE_TEST, COMPLETE_PEEK } complete_how_t;

static void await_any(any_arg_t *a, complete_how_t how)
{
    if (how == COMPLETE_WAIT)
        MPID_Progress_wait(any_done, a);
    else if (!any_done(a)) {
        MPID_Progress_poll();
        any_done(a);
    }
}

/* Waitany, Testany, Request_get_status_any. */
static int complete_any(const char *fname, int count, MPI_Request reqs[], int *index, int *flag,
                        MPI_Status *status, complete_how_t how)
{
    req_array_t arr;
    int err = !index ? MPIR_Err_create(MPI_ERR_ARG, "index is NULL") : MPIR_Check_status(status);
    if (!err)
        err = check_array(fname, count, reqs, status, &arr);
    if (err)
        return MPIR_Err_return(NULL, fname, err);
    MPIR_Request **objs = arr.objs;
    if (nactive(count, objs) == 0) {
        array_free(&arr);
        *index = MPI_UNDEFINED;
        *flag = 1;
        MPIR_Status_empty(status);
        return MPI_SUCCESS;
    }
    any_arg_t a = {count, -1, objs};
    await_any(&a, how);
    MPIR_Request *req = a.index >= 0 ? objs[a.index] : NULL;
    array_free(&arr);
    *flag = req != NULL;
    *index = req ? a.index : MPI_UNDEFINED;
    if (!req)
        return MPI_SUCCESS;
    if (how == COMPLETE_PEEK)
        return MPIR_Err_return(req_comm(req), fname, peek(req, status));
    return finish_one(fname, &reqs[a.index], req, status);
}

#pragma weak MPI_Waitany = PMPI_Waitany
int PMPI_Waitany(int count, MPI_Request *array_of_requests, int *index, MPI_Status *status)
{
    MPIR_CHECK_INIT("MPI_Waitany");
    int flag;
    return complete_any("MPI_Waitany", count, array_of_requests, index, &flag, status,
                        COMPLETE_WAIT);
}

#pragma weak MPI_Testany = PMPI_Testany
int PMPI_Testany(int count, MPI_Request array_of_requests[], int *index, int *flag,
                 MPI_Status *status)
{
    MPIR_CHECK_INIT("MPI_Testany");
    if (!flag)
        return MPIR_Err_return(NULL, "MPI_Testany", MPIR_Err_create(MPI_ERR_ARG, "flag is NULL"));
    return complete_any("MPI_Testany", count, array_of_requests, index, flag, status,
                        COMPLETE_TEST);
}

/* The indices of the active requests that are complete, in order; returns how many. */
static int done_indices(int count, MPIR_Request **objs, int indices[])
{
    int n = 0;
    for (int i = 0; i < count; i++)
        if (!is_inactive(objs[i]) && is_done(objs[i]))
            indices[n++] = i;
    return n;
}

/* Waitsome and Testsome. */
static int complete_some(const char *fname, int incount, MPI_Request reqs[], int *outcount,
                         int indices[], MPI_Status statuses[], complete_how_t how)
{
    req_array_t arr;
    int err = outcount && (incount == 0 || indices)
                  ? check_array(fname, incount, reqs, statuses, &arr)
                  : MPIR_Err_create(MPI_ERR_ARG, "outcount or array_of_indices is NULL");
    if (err)
        return MPIR_Err_return(NULL, fname, err);
    MPIR_Request **objs = arr.objs;
    if (nactive(incount, objs) == 0) {
        array_free(&arr);
        *outcount = MPI_UNDEFINED;
        return MPI_SUCCESS;
    }
    any_arg_t a = {incount, -1, objs};
    await_any(&a, how);
    int n = done_indices(incount, objs, indices);
    *outcount = n;
    err = how == COMPLETE_PEEK ? peek_array(fname, n, objs, indices, statuses)
                               : finish_array(fname, n, reqs, objs, indices, statuses);
    array_free(&arr);
    return err;
}

#pragma weak MPI_Waitsome = PMPI_Waitsome
int PMPI_Waitsome(int incount, MPI_Request array_of_requests[], int *outcount,
                  int array_of_indices[], MPI_Status array_of_statuses[])
{
    MPIR_CHECK_INIT("MPI_Waitsome");
    return complete_some("MPI_Waitsome", incount, array_of_requests, outcount, array_of_indices,
                         array_of_statuses, COMPLETE_WAIT);
}

#pragma weak MPI_Testsome = PMPI_Testsome
int PMPI_Testsome(int incount, MPI_Request array_of_requests[], int *outcount,
                  int array_of_indices[], MPI_Status array_of_statuses[])
{
    MPIR_CHECK_INIT("MPI_Testsome");
    return complete_some("MPI_Testsome", incount, array_of_requests, outcount, array_of_indices,
                         array_of_statuses, COMPLETE_TEST);
}

/* ---- MPI-4.1: MPI_Request_get_status_any/all/some, Testany/all/some that leave the requests
 * as they are (not freed, not made inactive). ---- */

/* The request arrays of the -any/-some forms are const: COMPLETE_PEEK never writes them. */
#pragma weak MPI_Request_get_status_any = PMPI_Request_get_status_any
int PMPI_Request_get_status_any(int count, const MPI_Request array_of_requests[], int *index,
                                int *flag, MPI_Status *status)
{
    static const char fname[] = "MPI_Request_get_status_any";
    MPIR_CHECK_INIT(fname);
    if (!flag)
        return MPIR_Err_return(NULL, fname, MPIR_Err_create(MPI_ERR_ARG, "flag is NULL"));
    return complete_any(fname, count, (MPI_Request *)array_of_requests, index, flag, status,
                        COMPLETE_PEEK);
}

#pragma weak MPI_Request_get_status_all = PMPI_Request_get_status_all
int PMPI_Request_get_status_all(int count, const MPI_Request array_of_requests[], int *flag,
                                MPI_Status array_of_statuses[])
{
    static const char fname[] = "MPI_Request_get_status_all";
    MPIR_CHECK_INIT(fname);
    req_array_t arr;
    int err = flag ? check_array(fname, count, array_of_requests, array_of_statuses, &arr)
                   : MPIR_Err_create(MPI_ERR_ARG, "flag is NULL");
    if (err)
        return MPIR_Err_return(NULL, fname, err);
    all_arg_t a = {count, arr.objs, 0};
    if (!all_done(&a))
        MPID_Progress_poll();
    *flag = all_done(&a);
    if (*flag)
        err = peek_array(fname, count, arr.objs, NULL, array_of_statuses);
    array_free(&arr);
    return err;
}

#pragma weak MPI_Request_get_status_some = PMPI_Request_get_status_some
int PMPI_Request_get_status_some(int incount, const MPI_Request array_of_requests[],
                                 int *outcount, int array_of_indices[],
                                 MPI_Status array_of_statuses[])
{
    MPIR_CHECK_INIT("MPI_Request_get_status_some");
    return complete_some("MPI_Request_get_status_some", incount,
                         (MPI_Request *)array_of_requests, outcount, array_of_indices,
                         array_of_statuses, COMPLETE_PEEK);
}

#pragma weak MPI_Request_free = PMPI_Request_free
int PMPI_Request_free(MPI_Request *request)
{
    MPIR_CHECK_INIT("MPI_Request_free");
    MPIR_Request *req = NULL;
    int err = request ? check_req(*request, &req) : MPIR_Err_create(MPI_ERR_ARG, "request is NULL");
    if (!err && !req)
        err = MPIR_Err_create(MPI_ERR_REQUEST, "MPI_Request_free of MPI_REQUEST_NULL");
    if (err)
        return MPIR_Err_return(NULL, "MPI_Request_free", err);
    /* Erroneous (MPI-4.0 sec. 4.2.1): its partitions may still be waiting for MPI_Pready. */
    if (req->kind == MPIR_REQ_PART && req->u.part->active)
        return MPIR_Err_return(req->comm, "MPI_Request_free",
                               MPIR_Err_create(MPI_ERR_REQUEST,
                                               "MPI_Request_free of an active partitioned "
                                               "request (complete its round first)"));
    /* The operation goes on: the device (or a started persistent request's
     * inner operation) keeps its own reference until it is over.  A
     * generalized request's free function runs now if it is complete, else
     * when MPI_Grequest_complete comes. */
    *request = MPI_REQUEST_NULL;
    if (req->kind == MPIR_REQ_GREQ) {
        if (!is_done(req)) {
            req->user_freed = 1;
            MPIR_Request_release(req);
            return MPI_SUCCESS;
        }
        if (req->u.greq.free_fn)
            err = req->u.greq.free_fn(req->u.greq.extra_state);
    }
    MPIR_Request_release(req);
    return MPIR_Err_return(NULL, "MPI_Request_free", err);
}

static void child_done(MPIR_Request *child);

/* Whether MPID_Cancel_send would ask the receiver anything for this send
 * (or a buffered send's internal one). */
static int send_cancellable(const MPIR_Request *s)
{
    if (s->kind == MPIR_REQ_SEND && s->linked)
        s = s->linked;
    return s->kind == MPIR_REQ_SEND && s->peer >= 0 && !s->cancel_pending && !s->cancelled;
}

/* A request that already completed waits again, for its operation's
 * cancellation answer: one event, and the device's reference.  One still
 * pending completes with its operation anyway. */
static void wait_again(MPIR_Request *req)
{
    if (req->cc == 0) {
        req->ref++;
        req->cc = 1;
    }
}

/* The internal send of a buffered send answered a cancel request: its block
 * may go, and the user's request completes with what the answer said. */
static void bsend_cancel_done(MPIR_Request *inner)
{
    MPIR_Request *user = inner->parent;
    MPIR_Bsend_block_done(inner);
    user->cancelled |= inner->cancelled;
    inner->parent = NULL;
    MPIDI_Request_complete_one(user);
}

/* Cancels what a request stands for; the completion call that follows says
 * whether it was (MPI_Test_cancelled).  A persistent request and a buffered
 * send reach the operation they started, even when it is complete locally:
 * its message may still be unmatched at the receiver. */
int MPIR_Request_cancel(MPIR_Request *req)
{
    switch (req->kind) {
    case MPIR_REQ_RECV:
        return MPID_Cancel_recv(req);
    case MPIR_REQ_SEND:
        if (!req->linked)
            return MPID_Cancel_send(req);
        if (send_cancellable(req)) {
            wait_again(req);
            req->linked->parent = req;
            req->linked->on_complete = bsend_cancel_done;
            MPID_Cancel_send(req->linked);
        }
        return MPI_SUCCESS;
    case MPIR_REQ_PERSISTENT:
        if (req->linked && req->linked->kind == MPIR_REQ_RECV)
            return MPID_Cancel_recv(req->linked);
        if (req->linked && send_cancellable(req->linked)) {
            wait_again(req);
            req->linked->on_complete = child_done; /* it tells this request again */
            req->linked->parent = req;
            return MPIR_Request_cancel(req->linked);
        }
        return MPI_SUCCESS;
    case MPIR_REQ_GREQ:
        return req->u.greq.cancel_fn ? req->u.greq.cancel_fn(req->u.greq.extra_state, is_done(req))
                                     : MPI_SUCCESS;
    default:
        return MPI_SUCCESS; /* composite requests are not cancelled */
    }
}

#pragma weak MPI_Cancel = PMPI_Cancel
int PMPI_Cancel(MPI_Request *request)
{
    MPIR_CHECK_INIT("MPI_Cancel");
    MPIR_Request *req = NULL;
    int err = request ? check_req(*request, &req) : MPIR_Err_create(MPI_ERR_ARG, "request is NULL");
    if (!err && !req)
        err = MPIR_Err_create(MPI_ERR_REQUEST, "MPI_Cancel of MPI_REQUEST_NULL");
    if (!err && is_inactive(req))
        err = MPIR_Err_create(MPI_ERR_REQUEST, "MPI_Cancel of an inactive persistent request");
    if (err)
        return MPIR_Err_return(NULL, "MPI_Cancel", err);
    /* Erroneous (MPI-4.0 sec. 4.2.1): the peer's round would never end. */
    if (req->kind == MPIR_REQ_PART)
        return MPIR_Err_return(
            req->comm, "MPI_Cancel",
            MPIR_Err_create(MPI_ERR_REQUEST, "MPI_Cancel of an active partitioned request"));
    return MPIR_Err_return(req_comm(req), "MPI_Cancel", MPIR_Request_cancel(req));
}

#pragma weak MPI_Test_cancelled = PMPI_Test_cancelled
int PMPI_Test_cancelled(const MPI_Status *status, int *flag)
{
    MPIR_CHECK_INIT("MPI_Test_cancelled");
    if (!status || status == MPI_STATUS_IGNORE || !flag)
        return MPIR_Err_return(NULL, "MPI_Test_cancelled",
                               MPIR_Err_create(MPI_ERR_ARG, "status or flag is NULL"));
    *flag = status->cancelled_;
    return MPI_SUCCESS;
}

/* ---- Parents and children: a persistent request's started operation, the
 * halves of an Isendrecv.  A child's completion hands its status (a
 * receive's envelope and count, any error, cancellation) to the parent and
 * counts one of the parent's events as done. ---- */

static void child_done(MPIR_Request *child)
{
    MPIR_Request *parent = child->parent;
    if (child->kind == MPIR_REQ_RECV) {
        parent->status.MPI_SOURCE = child->status.MPI_SOURCE;
        parent->status.MPI_TAG = child->status.MPI_TAG;
        parent->status.count_bytes_ = child->status.count_bytes_;
    }
    parent->cancelled |= child->cancelled;
    MPIR_Request_set_error(parent, child->status.MPI_ERROR);
    if (parent->kind == MPIR_REQ_COMPOSITE) {
        child->parent = NULL;
        child->on_complete = NULL;
        MPIR_Request_release(child); /* the handle reference the parent held */
    }
    /* A persistent request keeps its inner one (linked) until a completion
     * call, so that MPI_Cancel can still reach the message. */
    MPIDI_Request_complete_one(parent);
}

void MPIR_Request_adopt(MPIR_Request *parent, MPIR_Request *child)
{
    child->parent = parent;
    if (parent->kind == MPIR_REQ_PERSISTENT)
        parent->linked = child;
    if (is_done(child))
        child_done(child);
    else
        child->on_complete = child_done;
}
