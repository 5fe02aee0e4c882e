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
static int check_pack(MPI_Count count, MPI_Datatype type, const void *userbuf, MPIR_Datatype **dt_p)
{
    int err;
    if ((err = MPIR_Check_count(count)) || (err = MPIR_Check_comm_type(type)) ||
        (err = MPIR_Check_typed_buf(userbuf, count, type)))
        return err;
    *dt_p = MPIR_Datatype_get(type);
    return MPI_SUCCESS;
}

/* Bytes of count elements of dt (size bytes each), or an error if that overflows. */
static int total_bytes(MPI_Count count, MPI_Aint size, MPI_Count *bytes_p)
{
    if (__builtin_mul_overflow(count, (MPI_Count)size, bytes_p))
        return MPIR_Err_create(MPI_ERR_COUNT, "%lld elements of %ld bytes overflow a count",
                               (long long)count, (long)size);
    return MPI_SUCCESS;
}

/* Pack (to_packed) or unpack count elements of type at user, from/to packed + *position,
 * within packed_size bytes.  external32 uses that representation instead of the native one. */
static int pack_common(const char *fname, int to_packed, int external32, void *user,
                       MPI_Count count, MPI_Datatype type, void *packed, MPI_Count packed_size,
                       MPI_Count *position)
{
    MPIR_Datatype *dt;
    MPI_Count need = 0;
    int err = check_pack(count, type, user, &dt);
    if (!err && !position)
        err = MPIR_Err_create(MPI_ERR_ARG, "position is NULL");
    if (!err)
        err = total_bytes(count, external32 ? dt->ext32_size : dt->size, &need);
    if (!err && (*position < 0 || need > packed_size - *position))
        err = MPIR_Err_create(MPI_ERR_TRUNCATE,
                              "%s of %lld bytes at position %lld: the buffer has %lld bytes", fname,
                              (long long)need, (long long)*position, (long long)packed_size);
    if (!err && need > 0 && !packed)
        err = MPIR_Err_create(MPI_ERR_BUFFER, "%s is NULL", to_packed ? "outbuf" : "inbuf");
    if (err || need == 0)
        return err;
    char *at = (char *)packed + *position;
    if (external32) {
        if (to_packed)
            MPIR_Pack_external(dt, count, user, at);
        else
            MPIR_Unpack_external(dt, count, at, user);
    } else {
        MPIR_Segment seg;
        if ((err = MPIR_Segment_init(&seg, user, count, type)))
            return MPIR_Err_create(err, "%s: out of memory", fname);
        if (to_packed)
            MPIR_Segment_pack(&seg, 0, seg.size, at);
        else
            MPIR_Segment_unpack(&seg, 0, seg.size, at);
    }
    *position += need;
    return MPI_SUCCESS;
}

/* MPI_Pack and MPI_Unpack in both forms: the communicator is only checked. */
static int pack_native(const char *fname, int to_packed, void *user, MPI_Count count,
                       MPI_Datatype type, void *packed, MPI_Count packed_size, MPI_Count *position,
                       MPI_Comm comm)
{
    MPIR_Comm *c;
    int err = MPIR_Check_comm(comm, &c);
    if (!err)
        err = pack_common(fname, to_packed, 0, user, count, type, packed, packed_size, position);
    return MPIR_Err_return(c, fname, err);
}

#pragma weak MPI_Pack = PMPI_Pack
int PMPI_Pack(const void *inbuf, int incount, MPI_Datatype datatype, void *outbuf, int outsize,
              int *position, MPI_Comm comm)
{
    MPIR_CHECK_INIT("MPI_Pack");
    MPI_Count pos = position ? *position : 0;
    int err = pack_native("MPI_Pack", 1, (void *)inbuf, incount, datatype, outbuf, outsize,
                          position ? &pos : NULL, comm);
    if (!err)
        *position = (int)pos; /* at most outsize */
    return err;
}

#pragma weak MPI_Pack_c = PMPI_Pack_c
int PMPI_Pack_c(const void *inbuf, MPI_Count incount, MPI_Datatype datatype, void *outbuf,
                MPI_Count outsize, MPI_Count *position, MPI_Comm comm)
{
    MPIR_CHECK_INIT("MPI_Pack_c");
    return pack_native("MPI_Pack_c", 1, (void *)inbuf, incount, datatype, outbuf, outsize, position,
                       comm);
}

#pragma weak MPI_Unpack = PMPI_Unpack
int PMPI_Unpack(const void *inbuf, int insize, int *position, void *outbuf, int outcount,
                MPI_Datatype datatype, MPI_Comm comm)
{
    MPIR_CHECK_INIT("MPI_Unpack");
    MPI_Count pos = position ? *position : 0;
    int err = pack_native("MPI_Unpack", 0, outbuf, outcount, datatype, (void *)inbuf, insize,
                          position ? &pos : NULL, comm);
    if (!err)
        *position = (int)pos; /* at most insize */
    return err;
}

#pragma weak MPI_Unpack_c = PMPI_Unpack_c
int PMPI_Unpack_c(const void *inbuf, MPI_Count insize, MPI_Count *position, void *outbuf,
                  MPI_Count outcount, MPI_Datatype datatype, MPI_Comm comm)
{
    MPIR_CHECK_INIT("MPI_Unpack_c");
    return pack_native("MPI_Unpack_c", 0, outbuf, outcount, datatype, (void *)inbuf, insize,
                       position, comm);
}

/* The packed size of count elements; external32 for the external forms. */
static int pack_size(MPI_Count count, MPI_Datatype datatype, int external32, MPI_Count *size)
{
    int err;
    if ((err = MPIR_Check_count(count)) || (err = MPIR_Check_type(datatype)))
        return err;
    if (!size)
        return MPIR_Err_create(MPI_ERR_ARG, "size is NULL");
    MPIR_Datatype *dt = MPIR_Datatype_get(datatype);
    return total_bytes(count, external32 ? dt->ext32_size : dt->size, size);
}

#pragma weak MPI_Pack_size = PMPI_Pack_size
int PMPI_Pack_size(int incount, MPI_Datatype datatype, MPI_Comm comm, int *size)
{
    MPIR_CHECK_INIT("MPI_Pack_size");
    MPIR_Comm *c;
    MPI_Count need = 0;
    int err = MPIR_Check_comm(comm, &c);
    if (!err)
        err = pack_size(incount, datatype, 0, size ? &need : NULL);
    if (!err && need > INT_MAX)
        err = MPIR_Err_create(MPI_ERR_VALUE_TOO_LARGE,
                              "MPI_Pack_size: %lld bytes do not fit an int (use MPI_Pack_size_c)",
                              (long long)need);
    if (err)
        return MPIR_Err_return(c, "MPI_Pack_size", err);
    *size = (int)need;
    return MPI_SUCCESS;
}

#pragma weak MPI_Pack_size_c = PMPI_Pack_size_c
int PMPI_Pack_size_c(MPI_Count incount, MPI_Datatype datatype, MPI_Comm comm, MPI_Count *size)
{
    MPIR_CHECK_INIT("MPI_Pack_size_c");
    MPIR_Comm *c;
    int err = MPIR_Check_comm(comm, &c);
    if (!err)
        err = pack_size(incount, datatype, 0, size);
    return MPIR_Err_return(c, "MPI_Pack_size_c", err);
}

static int check_datarep(const char *datarep)
{
    if (datarep && strcmp(datarep, "external32") == 0)
        return MPI_SUCCESS;
    return MPIR_Err_create(MPI_ERR_ARG, "datarep \"%s\" is not \"external32\"",
                           datarep ? datarep : "(null)");
}

static int pack_external(const char *fname, const char *datarep, int to_packed, void *user,
                         MPI_Count count, MPI_Datatype type, void *packed, MPI_Count packed_size,
                         MPI_Count *position)
{
    int err = check_datarep(datarep);
    if (!err)
        err = pack_common(fname, to_packed, 1, user, count, type, packed, packed_size, position);
    return MPIR_Err_return(NULL, fname, err);
}

#pragma weak MPI_Pack_external = PMPI_Pack_external
int PMPI_Pack_external(const char datarep[], const void *inbuf, int incount, MPI_Datatype datatype,
                       void *outbuf, MPI_Aint outsize, MPI_Aint *position)
{
    MPIR_CHECK_INIT("MPI_Pack_external");
    MPI_Count pos = position ? *position : 0;
    int err = pack_external("MPI_Pack_external", datarep, 1, (void *)inbuf, incount, datatype,
                            outbuf, outsize, position ? &pos : NULL);
    if (!err)
        *position = (MPI_Aint)pos;
    return err;
}

#pragma weak MPI_Pack_external_c = PMPI_Pack_external_c
int PMPI_Pack_external_c(const char datarep[], const void *inbuf, MPI_Count incount,
                         MPI_Datatype datatype, void *outbuf, MPI_Count outsize,
                         MPI_Count *position)
{
    MPIR_CHECK_INIT("MPI_Pack_external_c");
    return pack_external("MPI_Pack_external_c", datarep, 1, (void *)inbuf, incount, datatype,
                         outbuf, outsize, position);
}

#pragma weak MPI_Unpack_external = PMPI_Unpack_external
int PMPI_Unpack_external(const char datarep[], const void *inbuf, MPI_Aint insize,
                         MPI_Aint *position, void *outbuf, int outcount, MPI_Datatype datatype)
{
    MPIR_CHECK_INIT("MPI_Unpack_external");
    MPI_Count pos = position ? *position : 0;
    int err = pack_external("MPI_Unpack_external", datarep, 0, outbuf, outcount, datatype,
                            (void *)inbuf, insize, position ? &pos : NULL);
    if (!err)
        *position = (MPI_Aint)pos;
    return err;
}

#pragma weak MPI_Unpack_external_c = PMPI_Unpack_external_c
int PMPI_Unpack_external_c(const char datarep[], const void *inbuf, MPI_Count insize,
                           MPI_Count *position, void *outbuf, MPI_Count outcount,
                           MPI_Datatype datatype)
{
    MPIR_CHECK_INIT("MPI_Unpack_external_c");
    return pack_external("MPI_Unpack_external_c", datarep, 0, outbuf, outcount, datatype,
                         (void *)inbuf, insize, position);
}

#pragma weak MPI_Pack_external_size = PMPI_Pack_external_size
int PMPI_Pack_external_size(const char datarep[], int incount, MPI_Datatype datatype,
                            MPI_Aint *size)
{
    MPIR_CHECK_INIT("MPI_Pack_external_size");
    MPI_Count need = 0;
    int err = check_datarep(datarep);
    if (!err)
        err = pack_size(incount, datatype, 1, size ? &need : NULL);
    if (err)
        return MPIR_Err_return(NULL, "MPI_Pack_external_size", err);
    *size = (MPI_Aint)need;
    return MPI_SUCCESS;
}

#pragma weak MPI_Pack_external_size_c = PMPI_Pack_external_size_c
int PMPI_Pack_external_size_c(const char datarep[], MPI_Count incount, MPI_Datatype datatype,
                              MPI_Count *size)
{
    MPIR_CHECK_INIT("MPI_Pack_external_size_c");
    int err = check_datarep(datarep);
    if (!err)
        err = pack_size(incount, datatype, 1, size);
    return MPIR_Err_return(NULL, "MPI_Pack_external_size_c", err);
}
