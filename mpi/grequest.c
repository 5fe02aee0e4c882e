/* grequest.c: generalized requests and the status setters their query functions use.
 *
 * A generalized request (MPI-4.1 sec. 13.2) is complete when the user calls
 * MPI_Grequest_complete.  The completion call that finishes it calls
 * query_fn for the status and then free_fn; MPI_Cancel calls cancel_fn with
 * whether it is complete already; MPI_Request_free before completion defers
 * free_fn to MPI_Grequest_complete. */
#include "mpiimpl.h"

typedef int(grequest_query_fn)(void *, MPI_Status *);
typedef int(grequest_free_fn)(void *);
typedef int(grequest_cancel_fn)(void *, int);

static void greq_completed(MPIR_Request *req)
{
    /* Freed by the user already: nobody will query it, free it now. */
    if (req->user_freed && req->u.greq.free_fn)
        req->u.greq.free_fn(req->u.greq.extra_state);
}

#pragma weak MPI_Grequest_start = PMPI_Grequest_start
int PMPI_Grequest_start(MPI_Grequest_query_function *query_fn, MPI_Grequest_free_function *free_fn,
                        MPI_Grequest_cancel_function *cancel_fn, void *extra_state,
                        MPI_Request *request)
{
    MPIR_CHECK_INIT("MPI_Grequest_start");
    if (!request || !query_fn)
        return MPIR_Err_return(NULL, "MPI_Grequest_start",
                               MPIR_Err_create(MPI_ERR_ARG, "request or query_fn is NULL"));
    MPIR_Request *req = MPIR_Request_create(MPIR_REQ_GREQ);
    if (!req)
        return MPIR_Err_return(NULL, "MPI_Grequest_start",
                               MPIR_Err_create(MPI_ERR_NO_MEM, "out of requests"));
    req->u.greq = (MPIR_Greq){.query_fn = query_fn,
                              .free_fn = free_fn,
                              .cancel_fn = cancel_fn,
                              .extra_state = extra_state};
    req->on_complete = greq_completed;
    *request = req->handle;
    return MPI_SUCCESS;
}

#pragma weak MPI_Grequest_complete = PMPI_Grequest_complete
int PMPI_Grequest_complete(MPI_Request request)
{
    MPIR_CHECK_INIT("MPI_Grequest_complete");
    MPIR_Request *req = MPIR_Request_get(request);
    if (!req || req->kind != MPIR_REQ_GREQ || MPIR_Request_is_complete(req))
        return MPIR_Err_return(NULL, "MPI_Grequest_complete",
                               MPIR_Err_create(MPI_ERR_REQUEST,
                                               "Request %#x is not a pending generalized request",
                                               (unsigned)request));
    MPIDI_Request_complete_one(req);
    return MPI_SUCCESS;
}

/* ---- MPI-4.1: a status's public fields through calls (for languages and tools that do not
 * see the struct) ---- */

static int status_field(const char *fname, const MPI_Status *status, const void *out)
{
    if (!status || status == MPI_STATUS_IGNORE || !out)
        return MPIR_Err_return(NULL, fname,
                               MPIR_Err_create(MPI_ERR_ARG, "%s is NULL or ignored",
                                               status ? "the output" : "status"));
    return MPI_SUCCESS;
}

#pragma weak MPI_Status_get_source = PMPI_Status_get_source
int PMPI_Status_get_source(const MPI_Status *status, int *source)
{
    MPIR_CHECK_INIT("MPI_Status_get_source");
    int err = status_field("MPI_Status_get_source", status, source);
    if (!err)
        *source = status->MPI_SOURCE;
    return err;
}

#pragma weak MPI_Status_set_source = PMPI_Status_set_source
int PMPI_Status_set_source(MPI_Status *status, int source)
{
    MPIR_CHECK_INIT("MPI_Status_set_source");
    int err = status_field("MPI_Status_set_source", status, status);
    if (!err)
        status->MPI_SOURCE = source;
    return err;
}

#pragma weak MPI_Status_get_tag = PMPI_Status_get_tag
int PMPI_Status_get_tag(const MPI_Status *status, int *tag)
{
    MPIR_CHECK_INIT("MPI_Status_get_tag");
    int err = status_field("MPI_Status_get_tag", status, tag);
    if (!err)
        *tag = status->MPI_TAG;
    return err;
}

#pragma weak MPI_Status_set_tag = PMPI_Status_set_tag
int PMPI_Status_set_tag(MPI_Status *status, int tag)
{
    MPIR_CHECK_INIT("MPI_Status_set_tag");
    int err = status_field("MPI_Status_set_tag", status, status);
    if (!err)
        status->MPI_TAG = tag;
    return err;
}

#pragma weak MPI_Status_get_error = PMPI_Status_get_error
int PMPI_Status_get_error(const MPI_Status *status, int *error)
{
    MPIR_CHECK_INIT("MPI_Status_get_error");
    int err = status_field("MPI_Status_get_error", status, error);
    if (!err)
        *error = status->MPI_ERROR;
    return err;
}

#pragma weak MPI_Status_set_error = PMPI_Status_set_error
int PMPI_Status_set_error(MPI_Status *status, int error)
{
    MPIR_CHECK_INIT("MPI_Status_set_error");
    int err = status_field("MPI_Status_set_error", status, status);
    if (!err)
        status->MPI_ERROR = error;
    return err;
}

#pragma weak MPI_Status_set_cancelled = PMPI_Status_set_cancelled
int PMPI_Status_set_cancelled(MPI_Status *status, int flag)
{
    MPIR_CHECK_INIT("MPI_Status_set_cancelled");
    if (!status || status == MPI_STATUS_IGNORE)
        return MPIR_Err_return(NULL, "MPI_Status_set_cancelled",
                               MPIR_Err_create(MPI_ERR_ARG, "status is NULL"));
    status->cancelled_ = flag != 0;
    return MPI_SUCCESS;
}

static int set_elements(const char *fname, MPI_Status *status, MPI_Datatype datatype,
                        MPI_Count count)
{
    int err = MPIR_Check_type(datatype);
    if (!err && (!status || status == MPI_STATUS_IGNORE))
        err = MPIR_Err_create(MPI_ERR_ARG, "status is NULL");
    if (!err && count < 0)
        err = MPIR_Err_create(MPI_ERR_COUNT, "Negative count %lld", (long long)count);
    if (err)
        return MPIR_Err_return(NULL, fname, err);
    /* count basic elements: the bytes that MPI_Get_elements reads back as
     * count (MPI-4.1 sec. 13.3).  Whole elements of the type, then the
     * bytes of the rest, guessed for a type of one basic size and found by
     * a scan in a mixed one. */
    MPIR_Datatype *dt = MPIR_Datatype_get(datatype);
    MPI_Count bytes = 0;
    if (dt->n_elements > 0 && dt->size > 0) {
        MPI_Count full = count / dt->n_elements, rest = count % dt->n_elements;
        bytes = full * dt->size;
        if (rest > 0) {
            MPI_Count guess = bytes + rest * (dt->size / dt->n_elements);
            if (MPIR_Type_get_elements(dt, guess) != count)
                for (guess = bytes + 1; guess < bytes + dt->size; guess++)
                    if (MPIR_Type_get_elements(dt, guess) == count)
                        break;
            bytes = guess;
        }
    }
    status->count_bytes_ = bytes;
    return MPI_SUCCESS;
}

#pragma weak MPI_Status_set_elements = PMPI_Status_set_elements
int PMPI_Status_set_elements(MPI_Status *status, MPI_Datatype datatype, int count)
{
    MPIR_CHECK_INIT("MPI_Status_set_elements");
    return set_elements("MPI_Status_set_elements", status, datatype, count);
}

#pragma weak MPI_Status_set_elements_x = PMPI_Status_set_elements_x
int PMPI_Status_set_elements_x(MPI_Status *status, MPI_Datatype datatype, MPI_Count count)
{
    MPIR_CHECK_INIT("MPI_Status_set_elements_x");
    return set_elements("MPI_Status_set_elements_x", status, datatype, count);
}

#pragma weak MPI_Status_set_elements_c = PMPI_Status_set_elements_c
int PMPI_Status_set_elements_c(MPI_Status *status, MPI_Datatype datatype, MPI_Count count)
{
    MPIR_CHECK_INIT("MPI_Status_set_elements_c");
    return set_elements("MPI_Status_set_elements_c", status, datatype, count);
}
