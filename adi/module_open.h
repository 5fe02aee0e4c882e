/* module_open.h: finds and opens one of Ferry's loadable modules (PKGLIBDIR/ferry_<name>.so). */
#ifndef MODULE_OPEN_H_INCLUDED
#define MODULE_OPEN_H_INCLUDED

#include <stddef.h>

/* dlopens the module file (a bare name such as "ferry_verbs.so") from ferry/
 * beside the library holding this code (an installed tree that was moved
 * still finds its own modules), else from the configured PKGLIBDIR.  Returns
 * the handle, or NULL with each path tried and dlerror()'s answer for it in
 * tried[0..len). */
void *MPIDU_module_open(const char *file, char *tried, size_t len);

#endif
