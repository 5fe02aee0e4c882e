/* mpit_event.c: MPI_T events and event sources (MPI-4.0).  Ferry has no event types and no
 * sources (the standard allows zero of each): the counts are 0, every index is
 * MPI_T_ERR_INVALID_INDEX, and since no registration or event instance can exist, every handle
 * is MPI_T_ERR_INVALID_HANDLE. */
#include "mpit.h"

#pragma weak MPI_T_event_get_num = PMPI_T_event_get_num
int PMPI_T_event_get_num(int *num_events)
{
    MPIR_T_ENTER;
    return MPIR_T_give_count(num_events, 0);
}

#pragma weak MPI_T_event_get_info = PMPI_T_event_get_info
int PMPI_T_event_get_info(int event_index, char *name, int *name_len, int *verbosity,
                          MPI_Datatype array_of_datatypes[], MPI_Aint array_of_displacements[],
                          int *num_elements, MPI_T_enum *enumtype, MPI_Info *info, char *desc,
                          int *desc_len, int *bind)
{
    MPIR_T_ENTER;
    return MPI_T_ERR_INVALID_INDEX;
}

#pragma weak MPI_T_event_get_index = PMPI_T_event_get_index
int PMPI_T_event_get_index(const char *name, int *event_index)
{
    MPIR_T_ENTER;
    return name && event_index ? MPI_T_ERR_INVALID_NAME : MPI_T_ERR_INVALID;
}

#pragma weak MPI_T_event_handle_alloc = PMPI_T_event_handle_alloc
int PMPI_T_event_handle_alloc(int event_index, void *obj_handle, MPI_Info info,
                              MPI_T_event_registration *event_registration)
{
    MPIR_T_ENTER;
    return MPI_T_ERR_INVALID_INDEX;
}

#pragma weak MPI_T_event_handle_set_info = PMPI_T_event_handle_set_info
int PMPI_T_event_handle_set_info(MPI_T_event_registration event_registration, MPI_Info info)
{
    MPIR_T_ENTER;
    return MPI_T_ERR_INVALID_HANDLE;
}

#pragma weak MPI_T_event_handle_get_info = PMPI_T_event_handle_get_info
int PMPI_T_event_handle_get_info(MPI_T_event_registration event_registration, MPI_Info *info_used)
{
    MPIR_T_ENTER;
    return MPI_T_ERR_INVALID_HANDLE;
}

#pragma weak MPI_T_event_handle_free = PMPI_T_event_handle_free
int PMPI_T_event_handle_free(MPI_T_event_registration event_registration, void *user_data,
                             MPI_T_event_free_cb_function free_cb_function)
{
    MPIR_T_ENTER;
    return MPI_T_ERR_INVALID_HANDLE;
}

#pragma weak MPI_T_event_register_callback = PMPI_T_event_register_callback
int PMPI_T_event_register_callback(MPI_T_event_registration event_registration,
                                   MPI_T_cb_safety cb_safety, MPI_Info info, void *user_data,
                                   MPI_T_event_cb_function event_cb_function)
{
    MPIR_T_ENTER;
    return MPI_T_ERR_INVALID_HANDLE;
}

#pragma weak MPI_T_event_callback_set_info = PMPI_T_event_callback_set_info
int PMPI_T_event_callback_set_info(MPI_T_event_registration event_registration,
                                   MPI_T_cb_safety cb_safety, MPI_Info info)
{
    MPIR_T_ENTER;
    return MPI_T_ERR_INVALID_HANDLE;
}

#pragma weak MPI_T_event_callback_get_info = PMPI_T_event_callback_get_info
int PMPI_T_event_callback_get_info(MPI_T_event_registration event_registration,
                                   MPI_T_cb_safety cb_safety, MPI_Info *info_used)
{
    MPIR_T_ENTER;
    return MPI_T_ERR_INVALID_HANDLE;
}

#pragma weak MPI_T_event_set_dropped_handler = PMPI_T_event_set_dropped_handler
int PMPI_T_event_set_dropped_handler(MPI_T_event_registration event_registration,
                                     MPI_T_event_dropped_cb_function dropped_cb_function)
{
    MPIR_T_ENTER;
    return MPI_T_ERR_INVALID_HANDLE;
}

/* An event instance exists only inside a callback, and no callback is ever made. */
#pragma weak MPI_T_event_read = PMPI_T_event_read
int PMPI_T_event_read(MPI_T_event_instance event_instance, int element_index, void *buffer)
{
    MPIR_T_ENTER;
    return MPI_T_ERR_INVALID_HANDLE;
}

#pragma weak MPI_T_event_copy = PMPI_T_event_copy
int PMPI_T_event_copy(MPI_T_event_instance event_instance, void *buffer)
{
    MPIR_T_ENTER;
    return MPI_T_ERR_INVALID_HANDLE;
}

#pragma weak MPI_T_event_get_timestamp = PMPI_T_event_get_timestamp
int PMPI_T_event_get_timestamp(MPI_T_event_instance event_instance, MPI_Count *event_timestamp)
{
    MPIR_T_ENTER;
    return MPI_T_ERR_INVALID_HANDLE;
}

#pragma weak MPI_T_event_get_source = PMPI_T_event_get_source
int PMPI_T_event_get_source(MPI_T_event_instance event_instance, int *source_index)
{
    MPIR_T_ENTER;
    return MPI_T_ERR_INVALID_HANDLE;
}

#pragma weak MPI_T_category_get_num_events = PMPI_T_category_get_num_events
int PMPI_T_category_get_num_events(int cat_index, int *num_events)
{
    MPIR_T_ENTER;
    int num_cat, err = PMPI_T_category_get_num(&num_cat);
    if (err)
        return err;
    if (cat_index < 0 || cat_index >= num_cat)
        return MPI_T_ERR_INVALID_INDEX;
    return MPIR_T_give_count(num_events, 0);
}

#pragma weak MPI_T_category_get_events = PMPI_T_category_get_events
int PMPI_T_category_get_events(int cat_index, int len, int indices[])
{
    MPIR_T_ENTER;
    int num_events, err = PMPI_T_category_get_num_events(cat_index, &num_events);
    return err ? err : len < 0 ? MPI_T_ERR_INVALID : MPI_SUCCESS;
}

#pragma weak MPI_T_source_get_num = PMPI_T_source_get_num
int PMPI_T_source_get_num(int *num_sources)
{
    MPIR_T_ENTER;
    return MPIR_T_give_count(num_sources, 0);
}

#pragma weak MPI_T_source_get_info = PMPI_T_source_get_info
int PMPI_T_source_get_info(int source_index, char *name, int *name_len, char *desc, int *desc_len,
                           MPI_T_source_order *ordering, MPI_Count *ticks_per_second,
                           MPI_Count *max_ticks, MPI_Info *info)
{
    MPIR_T_ENTER;
    return MPI_T_ERR_INVALID_INDEX;
}

#pragma weak MPI_T_source_get_timestamp = PMPI_T_source_get_timestamp
int PMPI_T_source_get_timestamp(int source_index, MPI_Count *timestamp)
{
    MPIR_T_ENTER;
    return MPI_T_ERR_INVALID_INDEX;
}
