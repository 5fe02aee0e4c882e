/* refused.c: functions Ferry declares but does not implement: each returns
 * MPI_ERR_UNSUPPORTED_OPERATION (through the error handler) with a message naming the call and
 * the reason, so programs that reference them link and fail clearly.  The list and the
 * reasons are in doc/api.md.  The error goes where the standard sends such a call's errors: a
 * call given a communicator (MPI_Win_create, MPI_Comm_spawn ...) raises it on that
 * communicator's handler, an I/O call on MPI_FILE_NULL's (no file can exist), any other on the
 * handler of errors bound to no object. */
#include <stdio.h>
#include "mpiimpl.h"

static const char why_rma[] = "one-sided communication (windows) is not implemented";
static const char why_io[] = "parallel I/O (MPI_File) is not implemented";
static const char why_dyn[] = "dynamic processes (spawn, ports, name service) are not implemented";

static int refusal(const char *fname, const char *why)
{
    return MPIR_Err_create(MPI_ERR_UNSUPPORTED_OPERATION,
                           "%s is not implemented in Ferry: %s (doc/api.md)", fname, why);
}

static int refuse(const char *fname, const char *why)
{
    return MPIR_Err_return(NULL, fname, refusal(fname, why));
}

/* A call given comm: its handler when comm is a communicator, else as refuse. */
static int refuse_on(MPI_Comm comm, const char *fname, const char *why)
{
    return MPIR_Err_return(MPIR_Comm_get(comm), fname, refusal(fname, why));
}

/* An I/O call: MPI_FILE_NULL's handler, MPI_ERRORS_RETURN unless the program set another.  A
 * program that does not look at the codes it gets would go on without its file and say
 * nothing: the first refusal of the process says so on stderr. */
static int refuse_io(const char *fname)
{
    static int told;
    if (!told && MPIR_File_null_errhandler() == MPI_ERRORS_RETURN) {
        told = 1;
        fprintf(stderr,
                "ferry: %s: %s in Ferry; it returns MPI_ERR_UNSUPPORTED_OPERATION to the "
                "program, as every I/O call will (MPI_FILE_NULL's handler is MPI_ERRORS_RETURN; "
                "doc/api.md)\n",
                fname, why_io);
    }
    return MPIR_Err_return_file_null(fname, refusal(fname, why_io));
}

/* ---- One-sided communication ---- */

#pragma weak MPI_Win_create = PMPI_Win_create
int PMPI_Win_create(void *base, MPI_Aint size, int disp_unit, MPI_Info info, MPI_Comm comm,
                    MPI_Win *win)
{
    return refuse_on(comm, "MPI_Win_create", why_rma);
}

#pragma weak MPI_Win_allocate = PMPI_Win_allocate
int PMPI_Win_allocate(MPI_Aint size, int disp_unit, MPI_Info info, MPI_Comm comm, void *baseptr,
                      MPI_Win *win)
{
    return refuse_on(comm, "MPI_Win_allocate", why_rma);
}

#pragma weak MPI_Win_allocate_shared = PMPI_Win_allocate_shared
int PMPI_Win_allocate_shared(MPI_Aint size, int disp_unit, MPI_Info info, MPI_Comm comm,
                             void *baseptr, MPI_Win *win)
{
    return refuse_on(comm, "MPI_Win_allocate_shared", why_rma);
}

#pragma weak MPI_Win_create_dynamic = PMPI_Win_create_dynamic
int PMPI_Win_create_dynamic(MPI_Info info, MPI_Comm comm, MPI_Win *win)
{
    return refuse_on(comm, "MPI_Win_create_dynamic", why_rma);
}

#pragma weak MPI_Win_free = PMPI_Win_free
int PMPI_Win_free(MPI_Win *win)
{
    return refuse("MPI_Win_free", why_rma);
}

#pragma weak MPI_Win_fence = PMPI_Win_fence
int PMPI_Win_fence(int assert, MPI_Win win)
{
    return refuse("MPI_Win_fence", why_rma);
}

#pragma weak MPI_Win_lock = PMPI_Win_lock
int PMPI_Win_lock(int lock_type, int rank, int assert, MPI_Win win)
{
    return refuse("MPI_Win_lock", why_rma);
}

#pragma weak MPI_Win_unlock = PMPI_Win_unlock
int PMPI_Win_unlock(int rank, MPI_Win win)
{
    return refuse("MPI_Win_unlock", why_rma);
}

#pragma weak MPI_Win_lock_all = PMPI_Win_lock_all
int PMPI_Win_lock_all(int assert, MPI_Win win)
{
    return refuse("MPI_Win_lock_all", why_rma);
}

#pragma weak MPI_Win_unlock_all = PMPI_Win_unlock_all
int PMPI_Win_unlock_all(MPI_Win win)
{
    return refuse("MPI_Win_unlock_all", why_rma);
}

#pragma weak MPI_Win_flush = PMPI_Win_flush
int PMPI_Win_flush(int rank, MPI_Win win)
{
    return refuse("MPI_Win_flush", why_rma);
}

#pragma weak MPI_Win_flush_all = PMPI_Win_flush_all
int PMPI_Win_flush_all(MPI_Win win)
{
    return refuse("MPI_Win_flush_all", why_rma);
}

#pragma weak MPI_Win_flush_local = PMPI_Win_flush_local
int PMPI_Win_flush_local(int rank, MPI_Win win)
{
    return refuse("MPI_Win_flush_local", why_rma);
}

#pragma weak MPI_Win_flush_local_all = PMPI_Win_flush_local_all
int PMPI_Win_flush_local_all(MPI_Win win)
{
    return refuse("MPI_Win_flush_local_all", why_rma);
}

#pragma weak MPI_Win_sync = PMPI_Win_sync
int PMPI_Win_sync(MPI_Win win)
{
    return refuse("MPI_Win_sync", why_rma);
}

#pragma weak MPI_Win_post = PMPI_Win_post
int PMPI_Win_post(MPI_Group group, int assert, MPI_Win win)
{
    return refuse("MPI_Win_post", why_rma);
}

#pragma weak MPI_Win_start = PMPI_Win_start
int PMPI_Win_start(MPI_Group group, int assert, MPI_Win win)
{
    return refuse("MPI_Win_start", why_rma);
}

#pragma weak MPI_Win_complete = PMPI_Win_complete
int PMPI_Win_complete(MPI_Win win)
{
    return refuse("MPI_Win_complete", why_rma);
}

#pragma weak MPI_Win_wait = PMPI_Win_wait
int PMPI_Win_wait(MPI_Win win)
{
    return refuse("MPI_Win_wait", why_rma);
}

#pragma weak MPI_Win_test = PMPI_Win_test
int PMPI_Win_test(MPI_Win win, int *flag)
{
    return refuse("MPI_Win_test", why_rma);
}

#pragma weak MPI_Win_get_group = PMPI_Win_get_group
int PMPI_Win_get_group(MPI_Win win, MPI_Group *group)
{
    return refuse("MPI_Win_get_group", why_rma);
}

#pragma weak MPI_Win_shared_query = PMPI_Win_shared_query
int PMPI_Win_shared_query(MPI_Win win, int rank, MPI_Aint *size, int *disp_unit, void *baseptr)
{
    return refuse("MPI_Win_shared_query", why_rma);
}

#pragma weak MPI_Win_attach = PMPI_Win_attach
int PMPI_Win_attach(MPI_Win win, void *base, MPI_Aint size)
{
    return refuse("MPI_Win_attach", why_rma);
}

#pragma weak MPI_Win_detach = PMPI_Win_detach
int PMPI_Win_detach(MPI_Win win, const void *base)
{
    return refuse("MPI_Win_detach", why_rma);
}

#pragma weak MPI_Win_set_attr = PMPI_Win_set_attr
int PMPI_Win_set_attr(MPI_Win win, int win_keyval, void *attribute_val)
{
    return refuse("MPI_Win_set_attr", why_rma);
}

#pragma weak MPI_Win_get_attr = PMPI_Win_get_attr
int PMPI_Win_get_attr(MPI_Win win, int win_keyval, void *attribute_val, int *flag)
{
    return refuse("MPI_Win_get_attr", why_rma);
}

#pragma weak MPI_Win_delete_attr = PMPI_Win_delete_attr
int PMPI_Win_delete_attr(MPI_Win win, int win_keyval)
{
    return refuse("MPI_Win_delete_attr", why_rma);
}

#pragma weak MPI_Win_set_name = PMPI_Win_set_name
int PMPI_Win_set_name(MPI_Win win, const char *win_name)
{
    return refuse("MPI_Win_set_name", why_rma);
}

#pragma weak MPI_Win_get_name = PMPI_Win_get_name
int PMPI_Win_get_name(MPI_Win win, char *win_name, int *resultlen)
{
    return refuse("MPI_Win_get_name", why_rma);
}

#pragma weak MPI_Win_set_errhandler = PMPI_Win_set_errhandler
int PMPI_Win_set_errhandler(MPI_Win win, MPI_Errhandler errhandler)
{
    return refuse("MPI_Win_set_errhandler", why_rma);
}

#pragma weak MPI_Win_get_errhandler = PMPI_Win_get_errhandler
int PMPI_Win_get_errhandler(MPI_Win win, MPI_Errhandler *errhandler)
{
    return refuse("MPI_Win_get_errhandler", why_rma);
}

#pragma weak MPI_Win_create_errhandler = PMPI_Win_create_errhandler
int PMPI_Win_create_errhandler(MPI_Win_errhandler_function *win_errhandler_fn,
                               MPI_Errhandler *errhandler)
{
    return refuse("MPI_Win_create_errhandler", why_rma);
}

#pragma weak MPI_Win_call_errhandler = PMPI_Win_call_errhandler
int PMPI_Win_call_errhandler(MPI_Win win, int errorcode)
{
    return refuse("MPI_Win_call_errhandler", why_rma);
}

#pragma weak MPI_Win_set_info = PMPI_Win_set_info
int PMPI_Win_set_info(MPI_Win win, MPI_Info info)
{
    return refuse("MPI_Win_set_info", why_rma);
}

#pragma weak MPI_Win_get_info = PMPI_Win_get_info
int PMPI_Win_get_info(MPI_Win win, MPI_Info *info_used)
{
    return refuse("MPI_Win_get_info", why_rma);
}

#pragma weak MPI_Put = PMPI_Put
int PMPI_Put(const void *origin_addr, int origin_count, MPI_Datatype origin_datatype,
             int target_rank, MPI_Aint target_disp, int target_count, MPI_Datatype target_datatype,
             MPI_Win win)
{
    return refuse("MPI_Put", why_rma);
}

#pragma weak MPI_Get = PMPI_Get
int PMPI_Get(void *origin_addr, int origin_count, MPI_Datatype origin_datatype, int target_rank,
             MPI_Aint target_disp, int target_count, MPI_Datatype target_datatype, MPI_Win win)
{
    return refuse("MPI_Get", why_rma);
}

#pragma weak MPI_Accumulate = PMPI_Accumulate
int PMPI_Accumulate(const void *origin_addr, int origin_count, MPI_Datatype origin_datatype,
                    int target_rank, MPI_Aint target_disp, int target_count,
                    MPI_Datatype target_datatype, MPI_Op op, MPI_Win win)
{
    return refuse("MPI_Accumulate", why_rma);
}

#pragma weak MPI_Get_accumulate = PMPI_Get_accumulate
int PMPI_Get_accumulate(const void *origin_addr, int origin_count, MPI_Datatype origin_datatype,
                        void *result_addr, int result_count, MPI_Datatype result_datatype,
                        int target_rank, MPI_Aint target_disp, int target_count,
                        MPI_Datatype target_datatype, MPI_Op op, MPI_Win win)
{
    return refuse("MPI_Get_accumulate", why_rma);
}

#pragma weak MPI_Fetch_and_op = PMPI_Fetch_and_op
int PMPI_Fetch_and_op(const void *origin_addr, void *result_addr, MPI_Datatype datatype,
                      int target_rank, MPI_Aint target_disp, MPI_Op op, MPI_Win win)
{
    return refuse("MPI_Fetch_and_op", why_rma);
}

#pragma weak MPI_Compare_and_swap = PMPI_Compare_and_swap
int PMPI_Compare_and_swap(const void *origin_addr, const void *compare_addr, void *result_addr,
                          MPI_Datatype datatype, int target_rank, MPI_Aint target_disp, MPI_Win win)
{
    return refuse("MPI_Compare_and_swap", why_rma);
}

#pragma weak MPI_Rput = PMPI_Rput
int PMPI_Rput(const void *origin_addr, int origin_count, MPI_Datatype origin_datatype,
              int target_rank, MPI_Aint target_disp, int target_count, MPI_Datatype target_datatype,
              MPI_Win win, MPI_Request *request)
{
    return refuse("MPI_Rput", why_rma);
}

#pragma weak MPI_Rget = PMPI_Rget
int PMPI_Rget(void *origin_addr, int origin_count, MPI_Datatype origin_datatype, int target_rank,
              MPI_Aint target_disp, int target_count, MPI_Datatype target_datatype, MPI_Win win,
              MPI_Request *request)
{
    return refuse("MPI_Rget", why_rma);
}

#pragma weak MPI_Raccumulate = PMPI_Raccumulate
int PMPI_Raccumulate(const void *origin_addr, int origin_count, MPI_Datatype origin_datatype,
                     int target_rank, MPI_Aint target_disp, int target_count,
                     MPI_Datatype target_datatype, MPI_Op op, MPI_Win win, MPI_Request *request)
{
    return refuse("MPI_Raccumulate", why_rma);
}

#pragma weak MPI_Rget_accumulate = PMPI_Rget_accumulate
int PMPI_Rget_accumulate(const void *origin_addr, int origin_count, MPI_Datatype origin_datatype,
                         void *result_addr, int result_count, MPI_Datatype result_datatype,
                         int target_rank, MPI_Aint target_disp, int target_count,
                         MPI_Datatype target_datatype, MPI_Op op, MPI_Win win,
                         MPI_Request *request)
{
    return refuse("MPI_Rget_accumulate", why_rma);
}

/* The large-count forms (MPI-4.0). */

#pragma weak MPI_Win_create_c = PMPI_Win_create_c
int PMPI_Win_create_c(void *base, MPI_Aint size, MPI_Aint disp_unit, MPI_Info info, MPI_Comm comm,
                      MPI_Win *win)
{
    return refuse_on(comm, "MPI_Win_create_c", why_rma);
}

#pragma weak MPI_Win_allocate_c = PMPI_Win_allocate_c
int PMPI_Win_allocate_c(MPI_Aint size, MPI_Aint disp_unit, MPI_Info info, MPI_Comm comm,
                        void *baseptr, MPI_Win *win)
{
    return refuse_on(comm, "MPI_Win_allocate_c", why_rma);
}

#pragma weak MPI_Win_allocate_shared_c = PMPI_Win_allocate_shared_c
int PMPI_Win_allocate_shared_c(MPI_Aint size, MPI_Aint disp_unit, MPI_Info info, MPI_Comm comm,
                               void *baseptr, MPI_Win *win)
{
    return refuse_on(comm, "MPI_Win_allocate_shared_c", why_rma);
}

#pragma weak MPI_Win_shared_query_c = PMPI_Win_shared_query_c
int PMPI_Win_shared_query_c(MPI_Win win, int rank, MPI_Aint *size, MPI_Aint *disp_unit,
                            void *baseptr)
{
    return refuse("MPI_Win_shared_query_c", why_rma);
}

#pragma weak MPI_Put_c = PMPI_Put_c
int PMPI_Put_c(const void *origin_addr, MPI_Count origin_count, MPI_Datatype origin_datatype,
               int target_rank, MPI_Aint target_disp, MPI_Count target_count,
               MPI_Datatype target_datatype, MPI_Win win)
{
    return refuse("MPI_Put_c", why_rma);
}

#pragma weak MPI_Get_c = PMPI_Get_c
int PMPI_Get_c(void *origin_addr, MPI_Count origin_count, MPI_Datatype origin_datatype,
               int target_rank, MPI_Aint target_disp, MPI_Count target_count,
               MPI_Datatype target_datatype, MPI_Win win)
{
    return refuse("MPI_Get_c", why_rma);
}

#pragma weak MPI_Accumulate_c = PMPI_Accumulate_c
int PMPI_Accumulate_c(const void *origin_addr, MPI_Count origin_count, MPI_Datatype origin_datatype,
                      int target_rank, MPI_Aint target_disp, MPI_Count target_count,
                      MPI_Datatype target_datatype, MPI_Op op, MPI_Win win)
{
    return refuse("MPI_Accumulate_c", why_rma);
}

#pragma weak MPI_Get_accumulate_c = PMPI_Get_accumulate_c
int PMPI_Get_accumulate_c(const void *origin_addr, MPI_Count origin_count,
                          MPI_Datatype origin_datatype, void *result_addr, MPI_Count result_count,
                          MPI_Datatype result_datatype, int target_rank, MPI_Aint target_disp,
                          MPI_Count target_count, MPI_Datatype target_datatype, MPI_Op op,
                          MPI_Win win)
{
    return refuse("MPI_Get_accumulate_c", why_rma);
}

#pragma weak MPI_Rput_c = PMPI_Rput_c
int PMPI_Rput_c(const void *origin_addr, MPI_Count origin_count, MPI_Datatype origin_datatype,
                int target_rank, MPI_Aint target_disp, MPI_Count target_count,
                MPI_Datatype target_datatype, MPI_Win win, MPI_Request *request)
{
    return refuse("MPI_Rput_c", why_rma);
}

#pragma weak MPI_Rget_c = PMPI_Rget_c
int PMPI_Rget_c(void *origin_addr, MPI_Count origin_count, MPI_Datatype origin_datatype,
                int target_rank, MPI_Aint target_disp, MPI_Count target_count,
                MPI_Datatype target_datatype, MPI_Win win, MPI_Request *request)
{
    return refuse("MPI_Rget_c", why_rma);
}

#pragma weak MPI_Raccumulate_c = PMPI_Raccumulate_c
int PMPI_Raccumulate_c(const void *origin_addr, MPI_Count origin_count,
                       MPI_Datatype origin_datatype, int target_rank, MPI_Aint target_disp,
                       MPI_Count target_count, MPI_Datatype target_datatype, MPI_Op op,
                       MPI_Win win, MPI_Request *request)
{
    return refuse("MPI_Raccumulate_c", why_rma);
}

#pragma weak MPI_Rget_accumulate_c = PMPI_Rget_accumulate_c
int PMPI_Rget_accumulate_c(const void *origin_addr, MPI_Count origin_count,
                           MPI_Datatype origin_datatype, void *result_addr, MPI_Count result_count,
                           MPI_Datatype result_datatype, int target_rank, MPI_Aint target_disp,
                           MPI_Count target_count, MPI_Datatype target_datatype, MPI_Op op,
                           MPI_Win win, MPI_Request *request)
{
    return refuse("MPI_Rget_accumulate_c", why_rma);
}

/* ---- Parallel I/O ---- */

#pragma weak MPI_File_open = PMPI_File_open
int PMPI_File_open(MPI_Comm comm, const char *filename, int amode, MPI_Info info, MPI_File *fh)
{
    return refuse_io("MPI_File_open");
}

#pragma weak MPI_File_close = PMPI_File_close
int PMPI_File_close(MPI_File *fh)
{
    return refuse_io("MPI_File_close");
}

#pragma weak MPI_File_delete = PMPI_File_delete
int PMPI_File_delete(const char *filename, MPI_Info info)
{
    return refuse_io("MPI_File_delete");
}

#pragma weak MPI_File_set_size = PMPI_File_set_size
int PMPI_File_set_size(MPI_File fh, MPI_Offset size)
{
    return refuse_io("MPI_File_set_size");
}

#pragma weak MPI_File_get_size = PMPI_File_get_size
int PMPI_File_get_size(MPI_File fh, MPI_Offset *size)
{
    return refuse_io("MPI_File_get_size");
}

#pragma weak MPI_File_set_view = PMPI_File_set_view
int PMPI_File_set_view(MPI_File fh, MPI_Offset disp, MPI_Datatype etype, MPI_Datatype filetype,
                       const char *datarep, MPI_Info info)
{
    return refuse_io("MPI_File_set_view");
}

#pragma weak MPI_File_read = PMPI_File_read
int PMPI_File_read(MPI_File fh, void *buf, int count, MPI_Datatype datatype, MPI_Status *status)
{
    return refuse_io("MPI_File_read");
}

#pragma weak MPI_File_read_at = PMPI_File_read_at
int PMPI_File_read_at(MPI_File fh, MPI_Offset offset, void *buf, int count, MPI_Datatype datatype,
                      MPI_Status *status)
{
    return refuse_io("MPI_File_read_at");
}

#pragma weak MPI_File_read_all = PMPI_File_read_all
int PMPI_File_read_all(MPI_File fh, void *buf, int count, MPI_Datatype datatype, MPI_Status *status)
{
    return refuse_io("MPI_File_read_all");
}

#pragma weak MPI_File_read_at_all = PMPI_File_read_at_all
int PMPI_File_read_at_all(MPI_File fh, MPI_Offset offset, void *buf, int count,
                          MPI_Datatype datatype, MPI_Status *status)
{
    return refuse_io("MPI_File_read_at_all");
}

#pragma weak MPI_File_write = PMPI_File_write
int PMPI_File_write(MPI_File fh, const void *buf, int count, MPI_Datatype datatype,
                    MPI_Status *status)
{
    return refuse_io("MPI_File_write");
}

#pragma weak MPI_File_write_at = PMPI_File_write_at
int PMPI_File_write_at(MPI_File fh, MPI_Offset offset, const void *buf, int count,
                       MPI_Datatype datatype, MPI_Status *status)
{
    return refuse_io("MPI_File_write_at");
}

#pragma weak MPI_File_write_all = PMPI_File_write_all
int PMPI_File_write_all(MPI_File fh, const void *buf, int count, MPI_Datatype datatype,
                        MPI_Status *status)
{
    return refuse_io("MPI_File_write_all");
}

#pragma weak MPI_File_write_at_all = PMPI_File_write_at_all
int PMPI_File_write_at_all(MPI_File fh, MPI_Offset offset, const void *buf, int count,
                           MPI_Datatype datatype, MPI_Status *status)
{
    return refuse_io("MPI_File_write_at_all");
}

#pragma weak MPI_File_seek = PMPI_File_seek
int PMPI_File_seek(MPI_File fh, MPI_Offset offset, int whence)
{
    return refuse_io("MPI_File_seek");
}

#pragma weak MPI_File_get_position = PMPI_File_get_position
int PMPI_File_get_position(MPI_File fh, MPI_Offset *offset)
{
    return refuse_io("MPI_File_get_position");
}

#pragma weak MPI_File_sync = PMPI_File_sync
int PMPI_File_sync(MPI_File fh)
{
    return refuse_io("MPI_File_sync");
}

#pragma weak MPI_File_set_errhandler = PMPI_File_set_errhandler
int PMPI_File_set_errhandler(MPI_File file, MPI_Errhandler errhandler)
{
    MPIR_CHECK_INIT("MPI_File_set_errhandler");
    if (file != MPI_FILE_NULL)
        return refuse_io("MPI_File_set_errhandler");
    return MPIR_Err_return_file_null("MPI_File_set_errhandler",
                                     MPIR_File_null_set_errhandler(errhandler));
}

#pragma weak MPI_File_get_errhandler = PMPI_File_get_errhandler
int PMPI_File_get_errhandler(MPI_File file, MPI_Errhandler *errhandler)
{
    MPIR_CHECK_INIT("MPI_File_get_errhandler");
    if (file != MPI_FILE_NULL)
        return refuse_io("MPI_File_get_errhandler");
    if (!errhandler)
        return MPIR_Err_return_file_null("MPI_File_get_errhandler",
                                         MPIR_Err_create(MPI_ERR_ARG, "errhandler is NULL"));
    *errhandler = MPIR_File_null_errhandler();
    return MPI_SUCCESS;
}

#pragma weak MPI_File_create_errhandler = PMPI_File_create_errhandler
int PMPI_File_create_errhandler(MPI_File_errhandler_function *file_errhandler_fn,
                                MPI_Errhandler *errhandler)
{
    return refuse_io("MPI_File_create_errhandler");
}

#pragma weak MPI_File_call_errhandler = PMPI_File_call_errhandler
int PMPI_File_call_errhandler(MPI_File fh, int errorcode)
{
    MPIR_CHECK_INIT("MPI_File_call_errhandler");
    if (fh != MPI_FILE_NULL)
        return refuse_io("MPI_File_call_errhandler");
    MPIR_Err_return_file_null("MPI_File_call_errhandler", errorcode);
    return MPI_SUCCESS;
}

#pragma weak MPI_File_get_info = PMPI_File_get_info
int PMPI_File_get_info(MPI_File fh, MPI_Info *info_used)
{
    return refuse_io("MPI_File_get_info");
}

#pragma weak MPI_File_set_info = PMPI_File_set_info
int PMPI_File_set_info(MPI_File fh, MPI_Info info)
{
    return refuse_io("MPI_File_set_info");
}

/* The rest of the I/O chapter (MPI-2 to MPI-4.0): its nonblocking, split collective and
 * shared-pointer calls, the large-count forms, and the file's inquiries. */

#pragma weak MPI_File_read_at_c = PMPI_File_read_at_c
int PMPI_File_read_at_c(MPI_File fh, MPI_Offset offset, void *buf, MPI_Count count,
                        MPI_Datatype datatype, MPI_Status *status)
{
    return refuse_io("MPI_File_read_at_c");
}

#pragma weak MPI_File_iread_at = PMPI_File_iread_at
int PMPI_File_iread_at(MPI_File fh, MPI_Offset offset, void *buf, int count, MPI_Datatype datatype,
                       MPI_Request *request)
{
    return refuse_io("MPI_File_iread_at");
}

#pragma weak MPI_File_iread_at_c = PMPI_File_iread_at_c
int PMPI_File_iread_at_c(MPI_File fh, MPI_Offset offset, void *buf, MPI_Count count,
                         MPI_Datatype datatype, MPI_Request *request)
{
    return refuse_io("MPI_File_iread_at_c");
}

#pragma weak MPI_File_read_at_all_c = PMPI_File_read_at_all_c
int PMPI_File_read_at_all_c(MPI_File fh, MPI_Offset offset, void *buf, MPI_Count count,
                            MPI_Datatype datatype, MPI_Status *status)
{
    return refuse_io("MPI_File_read_at_all_c");
}

#pragma weak MPI_File_iread_at_all = PMPI_File_iread_at_all
int PMPI_File_iread_at_all(MPI_File fh, MPI_Offset offset, void *buf, int count,
                           MPI_Datatype datatype, MPI_Request *request)
{
    return refuse_io("MPI_File_iread_at_all");
}

#pragma weak MPI_File_iread_at_all_c = PMPI_File_iread_at_all_c
int PMPI_File_iread_at_all_c(MPI_File fh, MPI_Offset offset, void *buf, MPI_Count count,
                             MPI_Datatype datatype, MPI_Request *request)
{
    return refuse_io("MPI_File_iread_at_all_c");
}

#pragma weak MPI_File_read_at_all_begin = PMPI_File_read_at_all_begin
int PMPI_File_read_at_all_begin(MPI_File fh, MPI_Offset offset, void *buf, int count,
                                MPI_Datatype datatype)
{
    return refuse_io("MPI_File_read_at_all_begin");
}

#pragma weak MPI_File_read_at_all_begin_c = PMPI_File_read_at_all_begin_c
int PMPI_File_read_at_all_begin_c(MPI_File fh, MPI_Offset offset, void *buf, MPI_Count count,
                                  MPI_Datatype datatype)
{
    return refuse_io("MPI_File_read_at_all_begin_c");
}

#pragma weak MPI_File_read_at_all_end = PMPI_File_read_at_all_end
int PMPI_File_read_at_all_end(MPI_File fh, void *buf, MPI_Status *status)
{
    return refuse_io("MPI_File_read_at_all_end");
}

#pragma weak MPI_File_read_c = PMPI_File_read_c
int PMPI_File_read_c(MPI_File fh, void *buf, MPI_Count count, MPI_Datatype datatype,
                     MPI_Status *status)
{
    return refuse_io("MPI_File_read_c");
}

#pragma weak MPI_File_iread = PMPI_File_iread
int PMPI_File_iread(MPI_File fh, void *buf, int count, MPI_Datatype datatype, MPI_Request *request)
{
    return refuse_io("MPI_File_iread");
}

#pragma weak MPI_File_iread_c = PMPI_File_iread_c
int PMPI_File_iread_c(MPI_File fh, void *buf, MPI_Count count, MPI_Datatype datatype,
                      MPI_Request *request)
{
    return refuse_io("MPI_File_iread_c");
}

#pragma weak MPI_File_read_all_c = PMPI_File_read_all_c
int PMPI_File_read_all_c(MPI_File fh, void *buf, MPI_Count count, MPI_Datatype datatype,
                         MPI_Status *status)
{
    return refuse_io("MPI_File_read_all_c");
}

#pragma weak MPI_File_iread_all = PMPI_File_iread_all
int PMPI_File_iread_all(MPI_File fh, void *buf, int count, MPI_Datatype datatype,
                        MPI_Request *request)
{
    return refuse_io("MPI_File_iread_all");
}

#pragma weak MPI_File_iread_all_c = PMPI_File_iread_all_c
int PMPI_File_iread_all_c(MPI_File fh, void *buf, MPI_Count count, MPI_Datatype datatype,
                          MPI_Request *request)
{
    return refuse_io("MPI_File_iread_all_c");
}

#pragma weak MPI_File_read_all_begin = PMPI_File_read_all_begin
int PMPI_File_read_all_begin(MPI_File fh, void *buf, int count, MPI_Datatype datatype)
{
    return refuse_io("MPI_File_read_all_begin");
}

#pragma weak MPI_File_read_all_begin_c = PMPI_File_read_all_begin_c
int PMPI_File_read_all_begin_c(MPI_File fh, void *buf, MPI_Count count, MPI_Datatype datatype)
{
    return refuse_io("MPI_File_read_all_begin_c");
}

#pragma weak MPI_File_read_all_end = PMPI_File_read_all_end
int PMPI_File_read_all_end(MPI_File fh, void *buf, MPI_Status *status)
{
    return refuse_io("MPI_File_read_all_end");
}

#pragma weak MPI_File_read_shared = PMPI_File_read_shared
int PMPI_File_read_shared(MPI_File fh, void *buf, int count, MPI_Datatype datatype,
                          MPI_Status *status)
{
    return refuse_io("MPI_File_read_shared");
}

#pragma weak MPI_File_read_shared_c = PMPI_File_read_shared_c
int PMPI_File_read_shared_c(MPI_File fh, void *buf, MPI_Count count, MPI_Datatype datatype,
                            MPI_Status *status)
{
    return refuse_io("MPI_File_read_shared_c");
}

#pragma weak MPI_File_iread_shared = PMPI_File_iread_shared
int PMPI_File_iread_shared(MPI_File fh, void *buf, int count, MPI_Datatype datatype,
                           MPI_Request *request)
{
    return refuse_io("MPI_File_iread_shared");
}

#pragma weak MPI_File_iread_shared_c = PMPI_File_iread_shared_c
int PMPI_File_iread_shared_c(MPI_File fh, void *buf, MPI_Count count, MPI_Datatype datatype,
                             MPI_Request *request)
{
    return refuse_io("MPI_File_iread_shared_c");
}

#pragma weak MPI_File_read_ordered = PMPI_File_read_ordered
int PMPI_File_read_ordered(MPI_File fh, void *buf, int count, MPI_Datatype datatype,
                           MPI_Status *status)
{
    return refuse_io("MPI_File_read_ordered");
}

#pragma weak MPI_File_read_ordered_c = PMPI_File_read_ordered_c
int PMPI_File_read_ordered_c(MPI_File fh, void *buf, MPI_Count count, MPI_Datatype datatype,
                             MPI_Status *status)
{
    return refuse_io("MPI_File_read_ordered_c");
}

#pragma weak MPI_File_read_ordered_begin = PMPI_File_read_ordered_begin
int PMPI_File_read_ordered_begin(MPI_File fh, void *buf, int count, MPI_Datatype datatype)
{
    return refuse_io("MPI_File_read_ordered_begin");
}

#pragma weak MPI_File_read_ordered_begin_c = PMPI_File_read_ordered_begin_c
int PMPI_File_read_ordered_begin_c(MPI_File fh, void *buf, MPI_Count count, MPI_Datatype datatype)
{
    return refuse_io("MPI_File_read_ordered_begin_c");
}

#pragma weak MPI_File_read_ordered_end = PMPI_File_read_ordered_end
int PMPI_File_read_ordered_end(MPI_File fh, void *buf, MPI_Status *status)
{
    return refuse_io("MPI_File_read_ordered_end");
}

#pragma weak MPI_File_write_at_c = PMPI_File_write_at_c
int PMPI_File_write_at_c(MPI_File fh, MPI_Offset offset, const void *buf, MPI_Count count,
                         MPI_Datatype datatype, MPI_Status *status)
{
    return refuse_io("MPI_File_write_at_c");
}

#pragma weak MPI_File_iwrite_at = PMPI_File_iwrite_at
int PMPI_File_iwrite_at(MPI_File fh, MPI_Offset offset, const void *buf, int count,
                        MPI_Datatype datatype, MPI_Request *request)
{
    return refuse_io("MPI_File_iwrite_at");
}

#pragma weak MPI_File_iwrite_at_c = PMPI_File_iwrite_at_c
int PMPI_File_iwrite_at_c(MPI_File fh, MPI_Offset offset, const void *buf, MPI_Count count,
                          MPI_Datatype datatype, MPI_Request *request)
{
    return refuse_io("MPI_File_iwrite_at_c");
}

#pragma weak MPI_File_write_at_all_c = PMPI_File_write_at_all_c
int PMPI_File_write_at_all_c(MPI_File fh, MPI_Offset offset, const void *buf, MPI_Count count,
                             MPI_Datatype datatype, MPI_Status *status)
{
    return refuse_io("MPI_File_write_at_all_c");
}

#pragma weak MPI_File_iwrite_at_all = PMPI_File_iwrite_at_all
int PMPI_File_iwrite_at_all(MPI_File fh, MPI_Offset offset, const void *buf, int count,
                            MPI_Datatype datatype, MPI_Request *request)
{
    return refuse_io("MPI_File_iwrite_at_all");
}

#pragma weak MPI_File_iwrite_at_all_c = PMPI_File_iwrite_at_all_c
int PMPI_File_iwrite_at_all_c(MPI_File fh, MPI_Offset offset, const void *buf, MPI_Count count,
                              MPI_Datatype datatype, MPI_Request *request)
{
    return refuse_io("MPI_File_iwrite_at_all_c");
}

#pragma weak MPI_File_write_at_all_begin = PMPI_File_write_at_all_begin
int PMPI_File_write_at_all_begin(MPI_File fh, MPI_Offset offset, const void *buf, int count,
                                 MPI_Datatype datatype)
{
    return refuse_io("MPI_File_write_at_all_begin");
}

#pragma weak MPI_File_write_at_all_begin_c = PMPI_File_write_at_all_begin_c
int PMPI_File_write_at_all_begin_c(MPI_File fh, MPI_Offset offset, const void *buf, MPI_Count count,
                                   MPI_Datatype datatype)
{
    return refuse_io("MPI_File_write_at_all_begin_c");
}

#pragma weak MPI_File_write_at_all_end = PMPI_File_write_at_all_end
int PMPI_File_write_at_all_end(MPI_File fh, const void *buf, MPI_Status *status)
{
    return refuse_io("MPI_File_write_at_all_end");
}

#pragma weak MPI_File_write_c = PMPI_File_write_c
int PMPI_File_write_c(MPI_File fh, const void *buf, MPI_Count count, MPI_Datatype datatype,
                      MPI_Status *status)
{
    return refuse_io("MPI_File_write_c");
}

#pragma weak MPI_File_iwrite = PMPI_File_iwrite
int PMPI_File_iwrite(MPI_File fh, const void *buf, int count, MPI_Datatype datatype,
                     MPI_Request *request)
{
    return refuse_io("MPI_File_iwrite");
}

#pragma weak MPI_File_iwrite_c = PMPI_File_iwrite_c
int PMPI_File_iwrite_c(MPI_File fh, const void *buf, MPI_Count count, MPI_Datatype datatype,
                       MPI_Request *request)
{
    return refuse_io("MPI_File_iwrite_c");
}

#pragma weak MPI_File_write_all_c = PMPI_File_write_all_c
int PMPI_File_write_all_c(MPI_File fh, const void *buf, MPI_Count count, MPI_Datatype datatype,
                          MPI_Status *status)
{
    return refuse_io("MPI_File_write_all_c");
}

#pragma weak MPI_File_iwrite_all = PMPI_File_iwrite_all
int PMPI_File_iwrite_all(MPI_File fh, const void *buf, int count, MPI_Datatype datatype,
                         MPI_Request *request)
{
    return refuse_io("MPI_File_iwrite_all");
}

#pragma weak MPI_File_iwrite_all_c = PMPI_File_iwrite_all_c
int PMPI_File_iwrite_all_c(MPI_File fh, const void *buf, MPI_Count count, MPI_Datatype datatype,
                           MPI_Request *request)
{
    return refuse_io("MPI_File_iwrite_all_c");
}

#pragma weak MPI_File_write_all_begin = PMPI_File_write_all_begin
int PMPI_File_write_all_begin(MPI_File fh, const void *buf, int count, MPI_Datatype datatype)
{
    return refuse_io("MPI_File_write_all_begin");
}

#pragma weak MPI_File_write_all_begin_c = PMPI_File_write_all_begin_c
int PMPI_File_write_all_begin_c(MPI_File fh, const void *buf, MPI_Count count,
                                MPI_Datatype datatype)
{
    return refuse_io("MPI_File_write_all_begin_c");
}

#pragma weak MPI_File_write_all_end = PMPI_File_write_all_end
int PMPI_File_write_all_end(MPI_File fh, const void *buf, MPI_Status *status)
{
    return refuse_io("MPI_File_write_all_end");
}

#pragma weak MPI_File_write_shared = PMPI_File_write_shared
int PMPI_File_write_shared(MPI_File fh, const void *buf, int count, MPI_Datatype datatype,
                           MPI_Status *status)
{
    return refuse_io("MPI_File_write_shared");
}

#pragma weak MPI_File_write_shared_c = PMPI_File_write_shared_c
int PMPI_File_write_shared_c(MPI_File fh, const void *buf, MPI_Count count, MPI_Datatype datatype,
                             MPI_Status *status)
{
    return refuse_io("MPI_File_write_shared_c");
}

#pragma weak MPI_File_iwrite_shared = PMPI_File_iwrite_shared
int PMPI_File_iwrite_shared(MPI_File fh, const void *buf, int count, MPI_Datatype datatype,
                            MPI_Request *request)
{
    return refuse_io("MPI_File_iwrite_shared");
}

#pragma weak MPI_File_iwrite_shared_c = PMPI_File_iwrite_shared_c
int PMPI_File_iwrite_shared_c(MPI_File fh, const void *buf, MPI_Count count, MPI_Datatype datatype,
                              MPI_Request *request)
{
    return refuse_io("MPI_File_iwrite_shared_c");
}

#pragma weak MPI_File_write_ordered = PMPI_File_write_ordered
int PMPI_File_write_ordered(MPI_File fh, const void *buf, int count, MPI_Datatype datatype,
                            MPI_Status *status)
{
    return refuse_io("MPI_File_write_ordered");
}

#pragma weak MPI_File_write_ordered_c = PMPI_File_write_ordered_c
int PMPI_File_write_ordered_c(MPI_File fh, const void *buf, MPI_Count count, MPI_Datatype datatype,
                              MPI_Status *status)
{
    return refuse_io("MPI_File_write_ordered_c");
}

#pragma weak MPI_File_write_ordered_begin = PMPI_File_write_ordered_begin
int PMPI_File_write_ordered_begin(MPI_File fh, const void *buf, int count, MPI_Datatype datatype)
{
    return refuse_io("MPI_File_write_ordered_begin");
}

#pragma weak MPI_File_write_ordered_begin_c = PMPI_File_write_ordered_begin_c
int PMPI_File_write_ordered_begin_c(MPI_File fh, const void *buf, MPI_Count count,
                                    MPI_Datatype datatype)
{
    return refuse_io("MPI_File_write_ordered_begin_c");
}

#pragma weak MPI_File_write_ordered_end = PMPI_File_write_ordered_end
int PMPI_File_write_ordered_end(MPI_File fh, const void *buf, MPI_Status *status)
{
    return refuse_io("MPI_File_write_ordered_end");
}

#pragma weak MPI_File_seek_shared = PMPI_File_seek_shared
int PMPI_File_seek_shared(MPI_File fh, MPI_Offset offset, int whence)
{
    return refuse_io("MPI_File_seek_shared");
}

#pragma weak MPI_File_get_position_shared = PMPI_File_get_position_shared
int PMPI_File_get_position_shared(MPI_File fh, MPI_Offset *offset)
{
    return refuse_io("MPI_File_get_position_shared");
}

#pragma weak MPI_File_get_byte_offset = PMPI_File_get_byte_offset
int PMPI_File_get_byte_offset(MPI_File fh, MPI_Offset offset, MPI_Offset *disp)
{
    return refuse_io("MPI_File_get_byte_offset");
}

#pragma weak MPI_File_get_amode = PMPI_File_get_amode
int PMPI_File_get_amode(MPI_File fh, int *amode)
{
    return refuse_io("MPI_File_get_amode");
}

#pragma weak MPI_File_get_atomicity = PMPI_File_get_atomicity
int PMPI_File_get_atomicity(MPI_File fh, int *flag)
{
    return refuse_io("MPI_File_get_atomicity");
}

#pragma weak MPI_File_set_atomicity = PMPI_File_set_atomicity
int PMPI_File_set_atomicity(MPI_File fh, int flag)
{
    return refuse_io("MPI_File_set_atomicity");
}

#pragma weak MPI_File_get_group = PMPI_File_get_group
int PMPI_File_get_group(MPI_File fh, MPI_Group *group)
{
    return refuse_io("MPI_File_get_group");
}

#pragma weak MPI_File_get_type_extent = PMPI_File_get_type_extent
int PMPI_File_get_type_extent(MPI_File fh, MPI_Datatype datatype, MPI_Aint *extent)
{
    return refuse_io("MPI_File_get_type_extent");
}

#pragma weak MPI_File_get_type_extent_c = PMPI_File_get_type_extent_c
int PMPI_File_get_type_extent_c(MPI_File fh, MPI_Datatype datatype, MPI_Count *extent)
{
    return refuse_io("MPI_File_get_type_extent_c");
}

#pragma weak MPI_File_get_view = PMPI_File_get_view
int PMPI_File_get_view(MPI_File fh, MPI_Offset *disp, MPI_Datatype *etype, MPI_Datatype *filetype,
                       char *datarep)
{
    return refuse_io("MPI_File_get_view");
}

#pragma weak MPI_File_preallocate = PMPI_File_preallocate
int PMPI_File_preallocate(MPI_File fh, MPI_Offset size)
{
    return refuse_io("MPI_File_preallocate");
}

#pragma weak MPI_Register_datarep = PMPI_Register_datarep
int PMPI_Register_datarep(const char *datarep, MPI_Datarep_conversion_function *read_conversion_fn,
                          MPI_Datarep_conversion_function *write_conversion_fn,
                          MPI_Datarep_extent_function *dtype_file_extent_fn, void *extra_state)
{
    return refuse_io("MPI_Register_datarep");
}

#pragma weak MPI_Register_datarep_c = PMPI_Register_datarep_c
int PMPI_Register_datarep_c(const char *datarep,
                            MPI_Datarep_conversion_function_c *read_conversion_fn,
                            MPI_Datarep_conversion_function_c *write_conversion_fn,
                            MPI_Datarep_extent_function *dtype_file_extent_fn, void *extra_state)
{
    return refuse_io("MPI_Register_datarep_c");
}

/* ---- Dynamic processes ---- */

#pragma weak MPI_Comm_spawn = PMPI_Comm_spawn
int PMPI_Comm_spawn(const char *command, char *argv[], int maxprocs, MPI_Info info, int root,
                    MPI_Comm comm, MPI_Comm *intercomm, int array_of_errcodes[])
{
    return refuse_on(comm, "MPI_Comm_spawn", why_dyn);
}

#pragma weak MPI_Comm_spawn_multiple = PMPI_Comm_spawn_multiple
int PMPI_Comm_spawn_multiple(int count, char *array_of_commands[], char **array_of_argv[],
                             const int array_of_maxprocs[], const MPI_Info array_of_info[],
                             int root, MPI_Comm comm, MPI_Comm *intercomm, int array_of_errcodes[])
{
    return refuse_on(comm, "MPI_Comm_spawn_multiple", why_dyn);
}

#pragma weak MPI_Open_port = PMPI_Open_port
int PMPI_Open_port(MPI_Info info, char *port_name)
{
    return refuse("MPI_Open_port", why_dyn);
}

#pragma weak MPI_Close_port = PMPI_Close_port
int PMPI_Close_port(const char *port_name)
{
    return refuse("MPI_Close_port", why_dyn);
}

#pragma weak MPI_Comm_accept = PMPI_Comm_accept
int PMPI_Comm_accept(const char *port_name, MPI_Info info, int root, MPI_Comm comm,
                     MPI_Comm *newcomm)
{
    return refuse_on(comm, "MPI_Comm_accept", why_dyn);
}

#pragma weak MPI_Comm_connect = PMPI_Comm_connect
int PMPI_Comm_connect(const char *port_name, MPI_Info info, int root, MPI_Comm comm,
                      MPI_Comm *newcomm)
{
    return refuse_on(comm, "MPI_Comm_connect", why_dyn);
}

#pragma weak MPI_Publish_name = PMPI_Publish_name
int PMPI_Publish_name(const char *service_name, MPI_Info info, const char *port_name)
{
    return refuse("MPI_Publish_name", why_dyn);
}

#pragma weak MPI_Unpublish_name = PMPI_Unpublish_name
int PMPI_Unpublish_name(const char *service_name, MPI_Info info, const char *port_name)
{
    return refuse("MPI_Unpublish_name", why_dyn);
}

#pragma weak MPI_Lookup_name = PMPI_Lookup_name
int PMPI_Lookup_name(const char *service_name, MPI_Info info, char *port_name)
{
    return refuse("MPI_Lookup_name", why_dyn);
}

#pragma weak MPI_Comm_join = PMPI_Comm_join
int PMPI_Comm_join(int fd, MPI_Comm *intercomm)
{
    return refuse("MPI_Comm_join", why_dyn);
}
