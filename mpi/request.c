/* request.c: completion calls: Wait/Test and their -all/-any forms, cancel, free. */
#include <stdlib.h>
#include "mpiimpl.h"

static void empty_status(MPI_Status *status)
{
    if (status == MPI_STATUS_IGNORE)
        return;
    status->MPI_SOURCE = MPI_ANY_SOURCE;
    status->MPI_TAG = MPI_ANY_TAG;
    status->MPI_ERROR = MPI_SUCCESS;
    status->count_bytes_ = 0;
    status->cancelled_ = 0;
}

void MPIR_Status_set(MPI_Status *status, const MPIR_Request *req)
{
    if (status == MPI_STATUS_IGNORE)
        return;
    if (req->kind == MPIR_REQ_RECV) {
        status->MPI_SOURCE = req->status.MPI_SOURCE;
        status->MPI_TAG = req->status.MPI_TAG;
    }
    status->count_bytes_ = req->kind == MPIR_REQ_RECV ? req->status.count_bytes_ : 0;
    status->cancelled_ = req->cancelled;
    /* MPI_ERROR is written only by the -all/-some calls (MPI-3.1 sec. 3.2.5). */
}

int MPIR_Request_finish(MPI_Request *handle, MPIR_Request *req, MPI_Status *status)
{
    MPIR_Status_set(status, req);
    int err = req->status.MPI_ERROR;
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
    if (!*req_p || (*req_p)->kind == MPIR_REQ_UNEXP)
        return MPIR_Err_create(MPI_ERR_REQUEST, "Invalid request handle %#x", (unsigned)handle);
    return MPI_SUCCESS;
}

static int check_array(const char *fname, int count, MPI_Request reqs[], MPIR_Request ***objs_p)
{
    if (count < 0)
        return MPIR_Err_create(MPI_ERR_COUNT, "Negative count %d", count);
    if (count > 0 && !reqs)
        return MPIR_Err_create(MPI_ERR_ARG, "array_of_requests is NULL");
    MPIR_Request **objs = malloc(sizeof(*objs) * (count ? count : 1));
    if (!objs)
        return MPIR_Err_create(MPI_ERR_NO_MEM, "out of memory in %s", fname);
    for (int i = 0; i < count; i++) {
        int err = check_req(reqs[i], &objs[i]);
        if (err) {
            free(objs);
            return err;
        }
    }
    *objs_p = objs;
    return MPI_SUCCESS;
}

int MPI_Wait(MPI_Request *request, MPI_Status *status)
{
    MPIR_CHECK_INIT("MPI_Wait");
    MPIR_Request *req = NULL;
    int err = request ? check_req(*request, &req)
                      : MPIR_Err_create(MPI_ERR_ARG, "request is NULL");
    if (err)
        return MPIR_Err_return(NULL, "MPI_Wait", err);
    if (!req) {
        empty_status(status);
        return MPI_SUCCESS;
    }
    MPIR_Comm *comm = req->comm;
    comm->ref++; /* the request may take the last reference with it */
    MPID_Wait(req);
    err = MPIR_Request_finish(request, req, status);
    err = MPIR_Err_return(comm, "MPI_Wait", err);
    MPIR_Comm_release(comm);
    return err;
}

int MPI_Test(MPI_Request *request, int *flag, MPI_Status *status)
{
    MPIR_CHECK_INIT("MPI_Test");
    MPIR_Request *req = NULL;
    int err = request && flag ? check_req(*request, &req)
                              : MPIR_Err_create(MPI_ERR_ARG, "request or flag is NULL");
    if (err)
        return MPIR_Err_return(NULL, "MPI_Test", err);
    if (!req) {
        *flag = 1;
        empty_status(status);
        return MPI_SUCCESS;
    }
    if (!MPIR_Request_is_complete(req))
        MPID_Progress_test();
    *flag = MPIR_Request_is_complete(req);
    if (!*flag)
        return MPI_SUCCESS;
    MPIR_Comm *comm = req->comm;
    comm->ref++;
    err = MPIR_Err_return(comm, "MPI_Test", MPIR_Request_finish(request, req, status));
    MPIR_Comm_release(comm);
    return err;
}

typedef struct {
    int count;
    MPIR_Request **objs;
} all_arg_t;

static int all_done(void *arg)
{
    all_arg_t *a = arg;
    for (int i = 0; i < a->count; i++)
        if (a->objs[i] && !MPIR_Request_is_complete(a->objs[i]))
            return 0;
    return 1;
}

static int complete_array(const char *fname, int count, MPI_Request reqs[], MPIR_Request **objs,
                          MPI_Status statuses[])
{
    MPIR_Comm *comm = NULL;
    /* Take a comm reference before finishing frees the requests. */
    for (int i = 0; i < count && !comm; i++)
        if (objs[i])
            comm = objs[i]->comm;
    if (comm)
        comm->ref++;
    int any_err = 0, first_err = MPI_SUCCESS;
    for (int i = 0; i < count; i++) {
        MPI_Status *st = statuses == MPI_STATUSES_IGNORE ? MPI_STATUS_IGNORE : &statuses[i];
        if (!objs[i]) {
            empty_status(st);
            if (st != MPI_STATUS_IGNORE)
                st->MPI_ERROR = MPI_SUCCESS;
            continue;
        }
        int err = MPIR_Request_finish(&reqs[i], objs[i], st);
        if (st != MPI_STATUS_IGNORE)
            st->MPI_ERROR = err;
        if (err && !any_err)
            first_err = err;
        any_err |= err != MPI_SUCCESS;
    }
    free(objs);
    int ret = MPI_SUCCESS;
    if (any_err)
        ret = MPIR_Err_return(comm, fname,
                              MPIR_Err_create(MPI_ERR_IN_STATUS,
                                              "a request failed: %s (see the statuses)",
                                              MPIR_Err_string(first_err)));
    if (comm)
        MPIR_Comm_release(comm);
    return ret;
}

int MPI_Waitall(int count, MPI_Request *array_of_requests, MPI_Status *array_of_statuses)
{
    MPIR_CHECK_INIT("MPI_Waitall");
    MPIR_Request **objs;
    int err = check_array("MPI_Waitall", count, array_of_requests, &objs);
    if (err)
        return MPIR_Err_return(NULL, "MPI_Waitall", err);
    all_arg_t a = {count, objs};
    MPID_Progress_wait(all_done, &a);
    return complete_array("MPI_Waitall", count, array_of_requests, objs, array_of_statuses);
}

int MPI_Testall(int count, MPI_Request *array_of_requests, int *flag,
                MPI_Status *array_of_statuses)
{
    MPIR_CHECK_INIT("MPI_Testall");
    MPIR_Request **objs;
    int err = flag ? check_array("MPI_Testall", count, array_of_requests, &objs)
                   : MPIR_Err_create(MPI_ERR_ARG, "flag is NULL");
    if (err)
        return MPIR_Err_return(NULL, "MPI_Testall", err);
    all_arg_t a = {count, objs};
    if (!all_done(&a))
        MPID_Progress_test();
    *flag = all_done(&a);
    if (!*flag) {
        free(objs);
        return MPI_SUCCESS;
    }
    return complete_array("MPI_Testall", count, array_of_requests, objs, array_of_statuses);
}

typedef struct {
    int count, index;
    MPIR_Request **objs;
} any_arg_t;

static int any_done(void *arg)
{
    any_arg_t *a = arg;
    for (int i = 0; i < a->count; i++) {
        if (a->objs[i] && MPIR_Request_is_complete(a->objs[i])) {
            a->index = i;
            return 1;
        }
    }
    return 0;
}

int MPI_Waitany(int count, MPI_Request *array_of_requests, int *index, MPI_Status *status)
{
    MPIR_CHECK_INIT("MPI_Waitany");
    MPIR_Request **objs;
    int err = index ? check_array("MPI_Waitany", count, array_of_requests, &objs)
                    : MPIR_Err_create(MPI_ERR_ARG, "index is NULL");
    if (err)
        return MPIR_Err_return(NULL, "MPI_Waitany", err);
    int active = 0;
    for (int i = 0; i < count; i++)
        active |= objs[i] != NULL;
    if (!active) {
        free(objs);
        *index = MPI_UNDEFINED;
        empty_status(status);
        return MPI_SUCCESS;
    }
    any_arg_t a = {count, -1, objs};
    MPID_Progress_wait(any_done, &a);
    MPIR_Request *req = objs[a.index];
    free(objs);
    MPIR_Comm *comm = req->comm;
    comm->ref++;
    *index = a.index;
    err = MPIR_Err_return(comm, "MPI_Waitany",
                          MPIR_Request_finish(&array_of_requests[a.index], req, status));
    MPIR_Comm_release(comm);
    return err;
}

int MPI_Request_free(MPI_Request *request)
{
    MPIR_CHECK_INIT("MPI_Request_free");
    MPIR_Request *req = NULL;
    int err = request ? check_req(*request, &req)
                      : MPIR_Err_create(MPI_ERR_ARG, "request is NULL");
    if (!err && !req)
        err = MPIR_Err_create(MPI_ERR_REQUEST, "MPI_Request_free of MPI_REQUEST_NULL");
    if (err)
        return MPIR_Err_return(NULL, "MPI_Request_free", err);
    /* The device keeps its own reference until the operation is over. */
    MPIR_Request_release(req);
    *request = MPI_REQUEST_NULL;
    return MPI_SUCCESS;
}

int MPI_Cancel(MPI_Request *request)
{
    MPIR_CHECK_INIT("MPI_Cancel");
    MPIR_Request *req = NULL;
    int err = request ? check_req(*request, &req)
                      : MPIR_Err_create(MPI_ERR_ARG, "request is NULL");
    if (!err && !req)
        err = MPIR_Err_create(MPI_ERR_REQUEST, "MPI_Cancel of MPI_REQUEST_NULL");
    if (err)
        return MPIR_Err_return(NULL, "MPI_Cancel", err);
    /* Cancelling a send is allowed to fail (MPI-3.1 3.8.4): sends are never
     * cancelled, and MPI_Test_cancelled says so. */
    if (req->kind == MPIR_REQ_RECV)
        MPID_Cancel_recv(req);
    return MPI_SUCCESS;
}

int MPI_Test_cancelled(const MPI_Status *status, int *flag)
{
    MPIR_CHECK_INIT("MPI_Test_cancelled");
    if (!status || status == MPI_STATUS_IGNORE || !flag)
        return MPIR_Err_return(NULL, "MPI_Test_cancelled",
                               MPIR_Err_create(MPI_ERR_ARG, "status or flag is NULL"));
    *flag = status->cancelled_;
    return MPI_SUCCESS;
}
