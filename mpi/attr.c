/* attr.c: keyvals and attributes on communicators, datatypes and windows, with their copy and
 * delete callbacks, and the predefined attributes of MPI_COMM_WORLD.
 *
 * Attributes live in one list keyed by (kind, object handle), so the
 * objects themselves carry nothing; the object's constructors and
 * destructors call MPIR_Attr_copy_all and MPIR_Attr_delete_all. */
#include <stddef.h>
#include <stdlib.h>
#include "mpiimpl.h"

typedef int(attr_copy_fn)(int, int, void *, void *, void *, int *);
typedef int(attr_delete_fn)(int, int, void *, void *);

#define MAX_KEYVALS 4096
typedef struct {
    int in_use;
    MPIR_Attr_kind_t kind;
    attr_copy_fn *copy;
    attr_delete_fn *del;
    void *extra_state;
    int freed; /* MPI_*_free_keyval came; kept while attributes use it */
    int nattrs;
} keyval_t;
static keyval_t keyvals[MAX_KEYVALS];

typedef struct attr {
    struct attr *next;
    MPIR_Attr_kind_t kind;
    int handle;
    int keyval;
    void *value; /* what callbacks get; a Fortran value as an address-sized integer */
    /* Set from Fortran: the value as stored, so that C's get can point at it (MPI-4.1 sec.
     * 19.3.7: C gets a pointer to the MPI_Aint, or to the int of MPI_Attr_put). */
    MPIR_Attr_form_t form;
    MPI_Aint aint_value;
    int int_value;
} attr_t;
static attr_t *attrs, **attrs_tail = &attrs;

static const char *kind_name[] = {"communicator", "datatype", "window"};

/* Predefined attribute keys live above the user's keyval indices. */
#define KEYVAL_INDEX(k) ((k)&0x03ffffff)

int MPIR_Dup_fn(int oldobj, int keyval, void *extra_state, void *attribute_val_in,
                void *attribute_val_out, int *flag)
{
    (void)oldobj;
    (void)keyval;
    (void)extra_state;
    *(void **)attribute_val_out = attribute_val_in;
    *flag = 1;
    return MPI_SUCCESS;
}

static int create_keyval(const char *fname, MPIR_Attr_kind_t kind, attr_copy_fn *copy,
                         attr_delete_fn *del, int *keyval, void *extra_state)
{
    if (!keyval)
        return MPIR_Err_return(NULL, fname, MPIR_Err_create(MPI_ERR_ARG, "keyval is NULL"));
    for (int i = 1; i < MAX_KEYVALS; i++) {
        if (!keyvals[i].in_use) {
            keyvals[i] = (keyval_t){
                .in_use = 1, .kind = kind, .copy = copy, .del = del, .extra_state = extra_state};
            *keyval = MPIR_HANDLE_KIND_KEYVAL | i;
            return MPI_SUCCESS;
        }
    }
    return MPIR_Err_return(
        NULL, fname,
        MPIR_Err_create(MPI_ERR_OTHER, "out of keyvals (%d at most)", MAX_KEYVALS - 1));
}

static int is_predefined(int keyval)
{
    return keyval == MPI_TAG_UB || keyval == MPI_HOST || keyval == MPI_IO ||
           keyval == MPI_WTIME_IS_GLOBAL || keyval == MPI_UNIVERSE_SIZE || keyval == MPI_APPNUM ||
           keyval == MPI_LASTUSEDCODE || keyval == MPI_WIN_BASE || keyval == MPI_WIN_SIZE ||
           keyval == MPI_WIN_DISP_UNIT || keyval == MPI_WIN_CREATE_FLAVOR ||
           keyval == MPI_WIN_MODEL;
}

/* A keyval the user may name: allocated and not freed, or (allow_freed)
 * freed but still used by attributes, whose copies and deletions go on. */
static keyval_t *find_keyval(int keyval, MPIR_Attr_kind_t kind, int allow_freed, int *err)
{
    *err = MPI_SUCCESS;
    int i = KEYVAL_INDEX(keyval);
    if ((keyval & 0xfc000000) == MPIR_HANDLE_KIND_KEYVAL && i > 0 && i < MAX_KEYVALS &&
        keyvals[i].in_use && (allow_freed || !keyvals[i].freed)) {
        if (keyvals[i].kind == kind)
            return &keyvals[i];
        *err = MPIR_Err_create(MPI_ERR_KEYVAL, "keyval %#x was made for a %s, not a %s",
                               (unsigned)keyval, kind_name[keyvals[i].kind], kind_name[kind]);
        return NULL;
    }
    *err = MPIR_Err_create(MPI_ERR_KEYVAL, "Invalid keyval %#x", (unsigned)keyval);
    return NULL;
}

/* A freed keyval stays usable through the attributes that still hold it
 * (MPI-4.1 sec. 7.7.2: freeing marks it; it goes with its last attribute). */
static keyval_t *get_keyval(int keyval, MPIR_Attr_kind_t kind, int *err)
{
    return find_keyval(keyval, kind, 1, err);
}

static void keyval_unuse(int i)
{
    if (--keyvals[i].nattrs == 0 && keyvals[i].freed)
        keyvals[i].in_use = 0;
}

static int free_keyval(const char *fname, MPIR_Attr_kind_t kind, int *keyval)
{
    int err = MPI_SUCCESS;
    if (!keyval)
        err = MPIR_Err_create(MPI_ERR_ARG, "keyval is NULL");
    else if (is_predefined(*keyval))
        err = MPIR_Err_create(MPI_ERR_KEYVAL, "predefined keyval %#x cannot be freed",
                              (unsigned)*keyval);
    /* Freeing again while attributes still hold it (a delete callback that
     * frees its keyval runs once per attribute) changes nothing. */
    keyval_t *k = err ? NULL : find_keyval(*keyval, kind, 1, &err);
    if (err)
        return MPIR_Err_return(NULL, fname, err);
    /* Attributes still set keep it alive until they are deleted. */
    k->freed = 1;
    if (k->nattrs == 0)
        k->in_use = 0;
    *keyval = MPI_KEYVAL_INVALID;
    return MPI_SUCCESS;
}

static attr_t **find(MPIR_Attr_kind_t kind, int handle, int keyval)
{
    for (attr_t **pp = &attrs; *pp; pp = &(*pp)->next)
        if ((*pp)->kind == kind && (*pp)->handle == handle && (*pp)->keyval == keyval)
            return pp;
    return NULL;
}

static void unlink_attr(attr_t **pp)
{
    attr_t *a = *pp;
    *pp = a->next;
    if (attrs_tail == &a->next)
        attrs_tail = pp;
    keyval_unuse(KEYVAL_INDEX(a->keyval));
    free(a);
}

/* The error a failing callback makes the call return: an error code as it is (a predefined
 * class such as MPI_ERR_OTHER, a code an MPI call gave the callback, a code or class the program
 * added), so that the program can compare it with what its callback returned, as MPICH does;
 * any other value as MPI_ERR_OTHER naming the callback and what it returned. */
static int callback_error(int rc, const char *which, int keyval)
{
    if (MPIR_Err_is_code(rc))
        return rc;
    return MPIR_Err_create(MPI_ERR_OTHER, "the %s callback of keyval %#x returned %d", which,
                           (unsigned)keyval, rc);
}

static int call_delete(const attr_t *a)
{
    keyval_t *k = &keyvals[KEYVAL_INDEX(a->keyval)];
    if (!k->del)
        return MPI_SUCCESS;
    int rc = k->del(a->handle, a->keyval, a->value, k->extra_state);
    return rc == MPI_SUCCESS ? rc : callback_error(rc, "delete", a->keyval);
}

static void store_value(attr_t *a, void *value, MPIR_Attr_form_t form)
{
    a->value = value;
    a->form = form;
    a->aint_value = (MPI_Aint)value;
    a->int_value = (int)(MPI_Aint)value;
}

static int set_attr(MPIR_Attr_kind_t kind, int handle, int keyval, void *value,
                    MPIR_Attr_form_t form, int is_copy)
{
    int err;
    keyval_t *k = find_keyval(keyval, kind, is_copy, &err);
    if (!k)
        return err;
    attr_t **pp = find(kind, handle, keyval);
    if (pp) {
        /* Replacing a value deletes the old one first (MPI-4.1 sec. 7.7.2). */
        if ((err = call_delete(*pp)))
            return err;
        store_value(*pp, value, form);
        return MPI_SUCCESS;
    }
    attr_t *a = malloc(sizeof(*a));
    if (!a)
        return MPIR_Err_create(MPI_ERR_NO_MEM, "out of memory setting an attribute");
    *a = (attr_t){.kind = kind, .handle = handle, .keyval = keyval};
    store_value(a, value, form);
    *attrs_tail = a;
    attrs_tail = &a->next;
    k->nattrs++;
    return MPI_SUCCESS;
}

static int delete_attr(MPIR_Attr_kind_t kind, int handle, int keyval)
{
    int err;
    if (!get_keyval(keyval, kind, &err))
        return err;
    attr_t **pp = find(kind, handle, keyval);
    if (!pp)
        return MPIR_Err_create(MPI_ERR_KEYVAL, "no attribute for keyval %#x on this %s",
                               (unsigned)keyval, kind_name[kind]);
    if ((err = call_delete(*pp)))
        return err;
    unlink_attr(pp);
    return MPI_SUCCESS;
}

/* The predefined attributes (MPI-4.1 sec. 9.1.2): values live here, the
 * caller gets a pointer to them.  A communicator of the sessions model (sessions_model) has
 * MPI_TAG_UB alone: the standard attaches the others to MPI_COMM_WORLD, that is, to the world
 * model; MPI_LASTUSEDCODE stays, as a program that uses sessions alone has no other way to learn
 * the codes it added. */
static int get_predefined(int keyval, void *attribute_val, int *flag, MPIR_Attr_form_t form,
                          int sessions_model)
{
    static int tag_ub = MPIR_TAG_UB, host = MPI_PROC_NULL, io = MPI_ANY_SOURCE;
    static int wtime_global = 0, universe, appnum, lastused = MPI_ERR_LASTCODE;
    universe = MPIDI_world.universe_size;
    appnum = MPIDI_world.appnum;
    int *val = NULL;
    switch (keyval) {
    case MPI_TAG_UB:
        val = &tag_ub;
        break;
    case MPI_HOST:
        val = &host;
        break;
    case MPI_IO:
        val = &io;
        break;
    case MPI_WTIME_IS_GLOBAL:
        val = &wtime_global;
        break;
    case MPI_UNIVERSE_SIZE:
        val = &universe;
        break;
    case MPI_APPNUM:
        val = &appnum;
        break;
    case MPI_LASTUSEDCODE:
        lastused = MPIR_Err_last_used();
        val = &lastused;
        break;
    default:
        break;
    }
    if (sessions_model && keyval != MPI_TAG_UB && keyval != MPI_LASTUSEDCODE)
        val = NULL;
    *flag = val != NULL;
    if (val && form == MPIR_ATTR_VOID_PTR)
        *(int **)attribute_val = val;
    else if (val) /* Fortran gets the value itself */
        *(MPI_Aint *)attribute_val = *val;
    return MPI_SUCCESS;
}

/* form says who asks: C (a void * written through attribute_val) or Fortran (an MPI_Aint
 * written there; MPI_Attr_get's binding cuts it to an INTEGER).  Across languages MPI-4.1 sec.
 * 19.3.7: C reading a value set from Fortran gets a pointer to it, Fortran reading a C pointer
 * gets the address as an integer. */
static int get_attr(MPIR_Attr_kind_t kind, int handle, int keyval, void *attribute_val, int *flag,
                    MPIR_Attr_form_t form, int sessions_model)
{
    if (!attribute_val || !flag)
        return MPIR_Err_create(MPI_ERR_ARG, "attribute_val or flag is NULL");
    if (kind == MPIR_ATTR_COMM && is_predefined(keyval))
        return get_predefined(keyval, attribute_val, flag, form, sessions_model);
    int err;
    if (!get_keyval(keyval, kind, &err))
        return err;
    attr_t **pp = find(kind, handle, keyval);
    *flag = pp != NULL;
    if (!pp)
        return MPI_SUCCESS;
    attr_t *a = *pp;
    if (form != MPIR_ATTR_VOID_PTR)
        *(MPI_Aint *)attribute_val = a->aint_value;
    else if (a->form == MPIR_ATTR_AINT)
        *(MPI_Aint **)attribute_val = &a->aint_value;
    else if (a->form == MPIR_ATTR_INT)
        *(int **)attribute_val = &a->int_value;
    else
        *(void **)attribute_val = a->value;
    return MPI_SUCCESS;
}

int MPIR_Attr_copy_all(MPIR_Attr_kind_t kind, int old_handle, int new_handle)
{
    attr_t *last =
        attrs_tail == &attrs ? NULL : (attr_t *)((char *)attrs_tail - offsetof(attr_t, next));
    for (attr_t *a = attrs; a; a = a->next) {
        if (a->kind == kind && a->handle == old_handle) {
            keyval_t *k = &keyvals[KEYVAL_INDEX(a->keyval)];
            void *out = NULL;
            int flag = 0;
            if (k->copy) {
                int rc = k->copy(old_handle, a->keyval, k->extra_state, a->value, &out, &flag);
                if (rc != MPI_SUCCESS)
                    return callback_error(rc, "copy", a->keyval);
            }
            if (flag) {
                int err = set_attr(kind, new_handle, a->keyval, out, a->form, 1);
                if (err)
                    return err;
            }
        }
        if (a == last)
            break; /* not the copies just appended */
    }
    return MPI_SUCCESS;
}

/* Last set, first deleted (MPI-4.1 sec. 11.2.4 asks this of MPI_COMM_SELF
 * at MPI_Finalize; every object gets the same order). */
int MPIR_Attr_delete_all(MPIR_Attr_kind_t kind, int handle)
{
    for (;;) {
        attr_t **last = NULL;
        for (attr_t **pp = &attrs; *pp; pp = &(*pp)->next)
            if ((*pp)->kind == kind && (*pp)->handle == handle)
                last = pp;
        if (!last)
            return MPI_SUCCESS;
        int err = call_delete(*last);
        if (err)
            return err;
        unlink_attr(last);
    }
}

void MPIR_Attr_finalize(void)
{
    while (attrs)
        unlink_attr(&attrs);
    attrs_tail = &attrs;
}

/* ---- Communicators ---- */

#pragma weak MPI_Comm_create_keyval = PMPI_Comm_create_keyval
int PMPI_Comm_create_keyval(MPI_Comm_copy_attr_function *comm_copy_attr_fn,
                            MPI_Comm_delete_attr_function *comm_delete_attr_fn, int *comm_keyval,
                            void *extra_state)
{
    MPIR_CHECK_INIT("MPI_Comm_create_keyval");
    return create_keyval("MPI_Comm_create_keyval", MPIR_ATTR_COMM, comm_copy_attr_fn,
                         comm_delete_attr_fn, comm_keyval, extra_state);
}

#pragma weak MPI_Comm_free_keyval = PMPI_Comm_free_keyval
int PMPI_Comm_free_keyval(int *comm_keyval)
{
    MPIR_CHECK_INIT("MPI_Comm_free_keyval");
    return free_keyval("MPI_Comm_free_keyval", MPIR_ATTR_COMM, comm_keyval);
}

static int comm_attr_op(const char *fname, MPI_Comm comm, int op, int keyval, void *val, int *flag,
                        MPIR_Attr_form_t form)
{
    MPIR_Comm *c;
    int err = MPIR_Check_comm(comm, &c);
    if (!err && op != 1 && is_predefined(keyval))
        err = MPIR_Err_create(MPI_ERR_KEYVAL, "predefined attribute %#x cannot be changed",
                              (unsigned)keyval);
    if (!err)
        err = op == 0   ? set_attr(MPIR_ATTR_COMM, comm, keyval, val, form, 0)
              : op == 1 ? get_attr(MPIR_ATTR_COMM, comm, keyval, val, flag, form, c->session != 0)
                        : delete_attr(MPIR_ATTR_COMM, comm, keyval);
    return MPIR_Err_return(c, fname, err);
}

#pragma weak MPI_Comm_set_attr = PMPI_Comm_set_attr
int PMPI_Comm_set_attr(MPI_Comm comm, int comm_keyval, void *attribute_val)
{
    MPIR_CHECK_INIT("MPI_Comm_set_attr");
    return comm_attr_op("MPI_Comm_set_attr", comm, 0, comm_keyval, attribute_val, NULL,
                        MPIR_ATTR_VOID_PTR);
}

#pragma weak MPI_Comm_get_attr = PMPI_Comm_get_attr
int PMPI_Comm_get_attr(MPI_Comm comm, int comm_keyval, void *attribute_val, int *flag)
{
    MPIR_CHECK_INIT("MPI_Comm_get_attr");
    return comm_attr_op("MPI_Comm_get_attr", comm, 1, comm_keyval, attribute_val, flag,
                        MPIR_ATTR_VOID_PTR);
}

#pragma weak MPI_Comm_delete_attr = PMPI_Comm_delete_attr
int PMPI_Comm_delete_attr(MPI_Comm comm, int comm_keyval)
{
    MPIR_CHECK_INIT("MPI_Comm_delete_attr");
    return comm_attr_op("MPI_Comm_delete_attr", comm, 2, comm_keyval, NULL, NULL,
                        MPIR_ATTR_VOID_PTR);
}

/* The MPI-1 names (deprecated, still in MPI-4.1): communicator attributes. */
#pragma weak MPI_Keyval_create = PMPI_Keyval_create
int PMPI_Keyval_create(MPI_Copy_function *copy_fn, MPI_Delete_function *delete_fn, int *keyval,
                       void *extra_state)
{
    MPIR_CHECK_INIT("MPI_Keyval_create");
    return create_keyval("MPI_Keyval_create", MPIR_ATTR_COMM, copy_fn, delete_fn, keyval,
                         extra_state);
}

#pragma weak MPI_Keyval_free = PMPI_Keyval_free
int PMPI_Keyval_free(int *keyval)
{
    MPIR_CHECK_INIT("MPI_Keyval_free");
    return free_keyval("MPI_Keyval_free", MPIR_ATTR_COMM, keyval);
}

#pragma weak MPI_Attr_put = PMPI_Attr_put
int PMPI_Attr_put(MPI_Comm comm, int keyval, void *attribute_val)
{
    MPIR_CHECK_INIT("MPI_Attr_put");
    return comm_attr_op("MPI_Attr_put", comm, 0, keyval, attribute_val, NULL, MPIR_ATTR_VOID_PTR);
}

#pragma weak MPI_Attr_get = PMPI_Attr_get
int PMPI_Attr_get(MPI_Comm comm, int keyval, void *attribute_val, int *flag)
{
    MPIR_CHECK_INIT("MPI_Attr_get");
    return comm_attr_op("MPI_Attr_get", comm, 1, keyval, attribute_val, flag, MPIR_ATTR_VOID_PTR);
}

#pragma weak MPI_Attr_delete = PMPI_Attr_delete
int PMPI_Attr_delete(MPI_Comm comm, int keyval)
{
    MPIR_CHECK_INIT("MPI_Attr_delete");
    return comm_attr_op("MPI_Attr_delete", comm, 2, keyval, NULL, NULL, MPIR_ATTR_VOID_PTR);
}

/* ---- Datatypes ---- */

#pragma weak MPI_Type_create_keyval = PMPI_Type_create_keyval
int PMPI_Type_create_keyval(MPI_Type_copy_attr_function *type_copy_attr_fn,
                            MPI_Type_delete_attr_function *type_delete_attr_fn, int *type_keyval,
                            void *extra_state)
{
    MPIR_CHECK_INIT("MPI_Type_create_keyval");
    return create_keyval("MPI_Type_create_keyval", MPIR_ATTR_TYPE, type_copy_attr_fn,
                         type_delete_attr_fn, type_keyval, extra_state);
}

#pragma weak MPI_Type_free_keyval = PMPI_Type_free_keyval
int PMPI_Type_free_keyval(int *type_keyval)
{
    MPIR_CHECK_INIT("MPI_Type_free_keyval");
    return free_keyval("MPI_Type_free_keyval", MPIR_ATTR_TYPE, type_keyval);
}

static int type_attr_op(const char *fname, MPI_Datatype type, int op, int keyval, void *val,
                        int *flag, MPIR_Attr_form_t form)
{
    int err = MPIR_Check_type(type);
    if (!err)
        err = op == 0   ? set_attr(MPIR_ATTR_TYPE, type, keyval, val, form, 0)
              : op == 1 ? get_attr(MPIR_ATTR_TYPE, type, keyval, val, flag, form, 0)
                        : delete_attr(MPIR_ATTR_TYPE, type, keyval);
    return MPIR_Err_return(NULL, fname, err);
}

#pragma weak MPI_Type_set_attr = PMPI_Type_set_attr
int PMPI_Type_set_attr(MPI_Datatype datatype, int type_keyval, void *attribute_val)
{
    MPIR_CHECK_INIT("MPI_Type_set_attr");
    return type_attr_op("MPI_Type_set_attr", datatype, 0, type_keyval, attribute_val, NULL,
                        MPIR_ATTR_VOID_PTR);
}

#pragma weak MPI_Type_get_attr = PMPI_Type_get_attr
int PMPI_Type_get_attr(MPI_Datatype datatype, int type_keyval, void *attribute_val, int *flag)
{
    MPIR_CHECK_INIT("MPI_Type_get_attr");
    return type_attr_op("MPI_Type_get_attr", datatype, 1, type_keyval, attribute_val, flag,
                        MPIR_ATTR_VOID_PTR);
}

#pragma weak MPI_Type_delete_attr = PMPI_Type_delete_attr
int PMPI_Type_delete_attr(MPI_Datatype datatype, int type_keyval)
{
    MPIR_CHECK_INIT("MPI_Type_delete_attr");
    return type_attr_op("MPI_Type_delete_attr", datatype, 2, type_keyval, NULL, NULL,
                        MPIR_ATTR_VOID_PTR);
}

/* ---- Fortran's attribute calls (mpi/fortran/fbind.c): values as integers ---- */

int MPIR_Attr_set_fortran(const char *fname, MPIR_Attr_kind_t kind, int handle, int keyval,
                          MPI_Aint value, MPIR_Attr_form_t form)
{
    MPIR_CHECK_INIT(fname);
    void *v = (void *)value;
    return kind == MPIR_ATTR_COMM ? comm_attr_op(fname, handle, 0, keyval, v, NULL, form)
                                  : type_attr_op(fname, handle, 0, keyval, v, NULL, form);
}

int MPIR_Attr_get_fortran(const char *fname, MPIR_Attr_kind_t kind, int handle, int keyval,
                          MPI_Aint *value, int *flag)
{
    MPIR_CHECK_INIT(fname);
    return kind == MPIR_ATTR_COMM
               ? comm_attr_op(fname, handle, 1, keyval, value, flag, MPIR_ATTR_AINT)
               : type_attr_op(fname, handle, 1, keyval, value, flag, MPIR_ATTR_AINT);
}

/* ---- Windows: keyvals work; windows themselves are refused (doc/api.md) ---- */

#pragma weak MPI_Win_create_keyval = PMPI_Win_create_keyval
int PMPI_Win_create_keyval(MPI_Win_copy_attr_function *win_copy_attr_fn,
                           MPI_Win_delete_attr_function *win_delete_attr_fn, int *win_keyval,
                           void *extra_state)
{
    MPIR_CHECK_INIT("MPI_Win_create_keyval");
    return create_keyval("MPI_Win_create_keyval", MPIR_ATTR_WIN, win_copy_attr_fn,
                         win_delete_attr_fn, win_keyval, extra_state);
}

#pragma weak MPI_Win_free_keyval = PMPI_Win_free_keyval
int PMPI_Win_free_keyval(int *win_keyval)
{
    MPIR_CHECK_INIT("MPI_Win_free_keyval");
    return free_keyval("MPI_Win_free_keyval", MPIR_ATTR_WIN, win_keyval);
}
