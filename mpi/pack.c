/* pack.c: MPI_Pack/Unpack (native and external32), their sizes, MPI_Get_address and
 * MPI_Get_elements. */
#include <limits.h>
#include <string.h>
#include "mpiimpl.h"
#include "segment.h"

#pragma weak MPI_Get_address = PMPI_Get_address
int PMPI_Get_address(const void *location, MPI_Aint *address)
{
    MPIR_CHECK_INIT("MPI_Get_address");
    if (!address)
        return MPIR_Err_return(NULL, "MPI_Get_address",
                               MPIR_Err_create(MPI_ERR_ARG, "address is NULL"));
    *address = (MPI_Aint)(uintptr_t)location;
    return MPI_SUCCESS;
}

/* Address arithmetic as integers: MPI_Aint is intptr_t, so these are exact. */
#pragma weak MPI_Aint_add = PMPI_Aint_add
MPI_Aint PMPI_Aint_add(MPI_Aint base, MPI_Aint disp)
{
    return (MPI_Aint)((uintptr_t)base + (uintptr_t)disp);
}

#pragma weak MPI_Aint_diff = PMPI_Aint_diff
MPI_Aint PMPI_Aint_diff(MPI_Aint addr1, MPI_Aint addr2)
{
    return (MPI_Aint)((uintptr_t)addr1 - (uintptr_t)addr2);
}

static int get_elements(const char *fname, const MPI_Status *status, MPI_Datatype datatype,
                        MPI_Count *count)
{
    int err = MPIR_Check_type(datatype);
    if (!err && (!status || status == MPI_STATUS_IGNORE || !count))
        err = MPIR_Err_create(MPI_ERR_ARG, "status or count is NULL or MPI_STATUS_IGNORE");
    if (err)
        return MPIR_Err_return(NULL, fname, err);
    /* -1: the data ends inside a basic element. */
    MPI_Count n = MPIR_Type_get_elements(MPIR_Datatype_get(datatype), status->count_bytes_);
    *count = n < 0 ? MPI_UNDEFINED : n;
    return MPI_SUCCESS;
}

#pragma weak MPI_Get_elements = PMPI_Get_elements
int PMPI_Get_elements(const MPI_Status *status, MPI_Datatype datatype, int *count)
{
    MPIR_CHECK_INIT("MPI_Get_elements");
    MPI_Count n = 0;
    int err = get_elements("MPI_Get_elements", status, datatype, count ? &n : NULL);
    if (!err)
        *count = n > INT_MAX ? MPI_UNDEFINED : (int)n;
    return err;
}

#pragma weak MPI_Get_elements_x = PMPI_Get_elements_x
int PMPI_Get_elements_x(const MPI_Status *status, MPI_Datatype datatype, MPI_Count *count)
{
    MPIR_CHECK_INIT("MPI_Get_elements_x");
    return get_elements("MPI_Get_elements_x", status, datatype, count);
}

#pragma weak MPI_Get_elements_c = PMPI_Get_elements_c
int PMPI_Get_elements_c(const MPI_Status *status, MPI_Datatype datatype, MPI_Count *count)
{
    MPIR_CHECK_INIT("MPI_Get_elements_c");
    return get_elements("MPI_Get_elements_c", status, datatype, count);
}

/* Common checks of the pack calls: datatype committed, count, user buffer. */
static int check_pack(int count, MPI_Datatype type, const void *userbuf, MPIR_Datatype **dt_p)
{
    int err;
    if ((err = MPIR_Check_count(count)) || (err = MPIR_Check_comm_type(type)) ||
        (err = MPIR_Check_typed_buf(userbuf, count, type)))
        return err;
    *dt_p = MPIR_Datatype_get(type);
    return MPI_SUCCESS;
}

#pragma weak MPI_Pack = PMPI_Pack
int PMPI_Pack(const void *inbuf, int incount, MPI_Datatype datatype, void *outbuf, int outsize,
             int *position, MPI_Comm comm)
{
    MPIR_CHECK_INIT("MPI_Pack");
    MPIR_Comm *c;
    MPIR_Datatype *dt;
    int err = MPIR_Check_comm(comm, &c);
    if (!err && !(err = check_pack(incount, datatype, inbuf, &dt)) && !position)
        err = MPIR_Err_create(MPI_ERR_ARG, "position is NULL");
    MPI_Aint need = err ? 0 : incount * dt->size;
    if (!err && (*position < 0 || need > (MPI_Aint)outsize - *position))
        err = MPIR_Err_create(MPI_ERR_TRUNCATE,
                              "MPI_Pack of %ld bytes at position %d does not fit outsize %d",
                              (long)need, *position, outsize);
    if (!err && need > 0 && !outbuf)
        err = MPIR_Err_create(MPI_ERR_BUFFER, "outbuf is NULL");
    if (err)
        return MPIR_Err_return(c, "MPI_Pack", err);
    MPIR_Segment seg;
    if ((err = MPIR_Segment_init(&seg, inbuf, incount, datatype)))
        return MPIR_Err_return(c, "MPI_Pack", MPIR_Err_create(err, "MPI_Pack: no memory"));
    if (need > 0)
        MPIR_Segment_pack(&seg, 0, seg.size, (char *)outbuf + *position);
    *position += (int)need;
    return MPI_SUCCESS;
}

#pragma weak MPI_Unpack = PMPI_Unpack
int PMPI_Unpack(const void *inbuf, int insize, int *position, void *outbuf, int outcount,
               MPI_Datatype datatype, MPI_Comm comm)
{
    MPIR_CHECK_INIT("MPI_Unpack");
    MPIR_Comm *c;
    MPIR_Datatype *dt;
    int err = MPIR_Check_comm(comm, &c);
    if (!err && !(err = check_pack(outcount, datatype, outbuf, &dt)) && !position)
        err = MPIR_Err_create(MPI_ERR_ARG, "position is NULL");
    MPI_Aint need = err ? 0 : outcount * dt->size;
    if (!err && (*position < 0 || need > (MPI_Aint)insize - *position))
        err = MPIR_Err_create(MPI_ERR_TRUNCATE,
                              "MPI_Unpack of %ld bytes at position %d: only %d bytes in inbuf",
                              (long)need, *position, insize);
    if (!err && need > 0 && !inbuf)
        err = MPIR_Err_create(MPI_ERR_BUFFER, "inbuf is NULL");
    if (err)
        return MPIR_Err_return(c, "MPI_Unpack", err);
    MPIR_Segment seg;
    if ((err = MPIR_Segment_init(&seg, outbuf, outcount, datatype)))
        return MPIR_Err_return(c, "MPI_Unpack", MPIR_Err_create(err, "MPI_Unpack: no memory"));
    if (need > 0)
        MPIR_Segment_unpack(&seg, 0, seg.size, (const char *)inbuf + *position);
    *position += (int)need;
    return MPI_SUCCESS;
}

#pragma weak MPI_Pack_size = PMPI_Pack_size
int PMPI_Pack_size(int incount, MPI_Datatype datatype, MPI_Comm comm, int *size)
{
    MPIR_CHECK_INIT("MPI_Pack_size");
    MPIR_Comm *c;
    int err = MPIR_Check_comm(comm, &c);
    if (!err && !(err = MPIR_Check_count(incount)) && !(err = MPIR_Check_type(datatype)) && !size)
        err = MPIR_Err_create(MPI_ERR_ARG, "size is NULL");
    MPI_Aint need = err ? 0 : incount * MPIR_Datatype_get(datatype)->size;
    if (!err && need > INT_MAX)
        err =
            MPIR_Err_create(MPI_ERR_ARG, "MPI_Pack_size: %ld bytes do not fit an int", (long)need);
    if (err)
        return MPIR_Err_return(c, "MPI_Pack_size", err);
    *size = (int)need;
    return MPI_SUCCESS;
}

static int check_datarep(const char *datarep)
{
    if (datarep && strcmp(datarep, "external32") == 0)
        return MPI_SUCCESS;
    return MPIR_Err_create(MPI_ERR_ARG, "datarep \"%s\" is not \"external32\"",
                           datarep ? datarep : "(null)");
}

#pragma weak MPI_Pack_external = PMPI_Pack_external
int PMPI_Pack_external(const char datarep[], const void *inbuf, int incount, MPI_Datatype datatype,
                      void *outbuf, MPI_Aint outsize, MPI_Aint *position)
{
    MPIR_CHECK_INIT("MPI_Pack_external");
    MPIR_Datatype *dt;
    int err = check_datarep(datarep);
    if (!err && !(err = check_pack(incount, datatype, inbuf, &dt)) && !position)
        err = MPIR_Err_create(MPI_ERR_ARG, "position is NULL");
    MPI_Aint need = err ? 0 : incount * dt->ext32_size;
    if (!err && (*position < 0 || need > outsize - *position))
        err = MPIR_Err_create(MPI_ERR_TRUNCATE,
                              "MPI_Pack_external of %ld bytes at position %ld does not fit "
                              "outsize %ld",
                              (long)need, (long)*position, (long)outsize);
    if (!err && need > 0 && !outbuf)
        err = MPIR_Err_create(MPI_ERR_BUFFER, "outbuf is NULL");
    if (err)
        return MPIR_Err_return(NULL, "MPI_Pack_external", err);
    if (need > 0)
        MPIR_Pack_external(dt, incount, inbuf, (char *)outbuf + *position);
    *position += need;
    return MPI_SUCCESS;
}

#pragma weak MPI_Unpack_external = PMPI_Unpack_external
int PMPI_Unpack_external(const char datarep[], const void *inbuf, MPI_Aint insize,
                        MPI_Aint *position, void *outbuf, int outcount, MPI_Datatype datatype)
{
    MPIR_CHECK_INIT("MPI_Unpack_external");
    MPIR_Datatype *dt;
    int err = check_datarep(datarep);
    if (!err && !(err = check_pack(outcount, datatype, outbuf, &dt)) && !position)
        err = MPIR_Err_create(MPI_ERR_ARG, "position is NULL");
    MPI_Aint need = err ? 0 : outcount * dt->ext32_size;
    if (!err && (*position < 0 || need > insize - *position))
        err = MPIR_Err_create(MPI_ERR_TRUNCATE,
                              "MPI_Unpack_external of %ld bytes at position %ld: only %ld bytes "
                              "in inbuf",
                              (long)need, (long)*position, (long)insize);
    if (!err && need > 0 && !inbuf)
        err = MPIR_Err_create(MPI_ERR_BUFFER, "inbuf is NULL");
    if (err)
        return MPIR_Err_return(NULL, "MPI_Unpack_external", err);
    if (need > 0)
        MPIR_Unpack_external(dt, outcount, (const char *)inbuf + *position, outbuf);
    *position += need;
    return MPI_SUCCESS;
}

#pragma weak MPI_Pack_external_size = PMPI_Pack_external_size
int PMPI_Pack_external_size(const char datarep[], int incount, MPI_Datatype datatype, MPI_Aint *size)
{
    MPIR_CHECK_INIT("MPI_Pack_external_size");
    int err = check_datarep(datarep);
    if (!err && !(err = MPIR_Check_count(incount)) && !(err = MPIR_Check_type(datatype)) && !size)
        err = MPIR_Err_create(MPI_ERR_ARG, "size is NULL");
    if (err)
        return MPIR_Err_return(NULL, "MPI_Pack_external_size", err);
    *size = incount * MPIR_Datatype_get(datatype)->ext32_size;
    return MPI_SUCCESS;
}
